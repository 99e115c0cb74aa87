#!/bin/sh
# Two programs may share a checkpoint dir: each removes only its own old
# checkpoints.  A killed program whose dir another then wrote to lost its
# checkpoints to the other's pruning, and --resume started it over
# (helper CK).  A run started without --resume in a dir holding the
# checkpoints of a run of its own that did not end is warned that it will
# replace them; after a run that ended, it is not.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >a.sap <<'SAP'
param double scale = 1;
dvector<double> x(100);
double s = 0;
for (int it = 0; it < 8; it++) {
    async for (long i = 0; i < 100; i++) reduce(+: s) { x[i] = x[i] * 0.5 + (i + it) * scale; s += x[i]; }
    print("a %d %.17g\n", it, s);
}
SAP
sed 's/0\.5/0.25/; s/"a /"b /' a.sap >b.sap
"$SAPC" -o a a.sap || fail "sapc a.sap"
"$SAPC" -o b b.sap || fail "sapc b.sap"
for layout in "1 1" "2 1"; do
	# shellcheck disable=SC2086
	set -- $layout
	ra="$MPIEXEC -n $1 ./a --threads=$2"
	rb="$MPIEXEC -n $1 ./b --threads=$2"
	rm -rf ck
	$ra >full </dev/null 2>full.err || { cat full.err; fail "$1 x $2: a failed"; }
	SAP_TEST_KILL_AFTER=5 $ra --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &&
		fail "$1 x $2: a not killed"
	$rb --checkpoint-dir=ck --checkpoint-every=1 >pb 2>pb.err </dev/null ||
		{ cat pb.err; fail "$1 x $2: b failed"; }
	grep -q "warning" pb.err && { cat pb.err; fail "$1 x $2: b warned of a's checkpoints"; }
	$ra --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null ||
		{ cat p2.err; fail "$1 x $2: --resume of a failed"; }
	grep -q "starting from the beginning" p2.err && { cat p2.err; fail "$1 x $2: a's checkpoints gone"; }
	test -s p2 || fail "$1 x $2: resumed a printed nothing"
	tail -n "$(wc -l <p2)" full | cmp -s - p2 || fail "$1 x $2: resumed a printed '$(cat p2)'"
	# Killed again, then started over without --resume: warned.
	SAP_TEST_KILL_AFTER=3 $ra --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &&
		fail "$1 x $2: a not killed"
	$ra --checkpoint-dir=ck --checkpoint-every=1 >p3 2>p3.err </dev/null ||
		{ cat p3.err; fail "$1 x $2: a failed"; }
	grep -q "holds a checkpoint of this program (ckpt-[0-9]*), which this run, started without --resume, will replace" p3.err ||
		{ cat p3.err; fail "$1 x $2: not warned of replacing a killed run's checkpoints"; }
	cmp -s full p3 || fail "$1 x $2: a started over printed another result"
	# That run ended: the next is not warned.
	$ra --checkpoint-dir=ck --checkpoint-every=1 >p4 2>p4.err </dev/null ||
		{ cat p4.err; fail "$1 x $2: a failed"; }
	grep -q "warning" p4.err && { cat p4.err; fail "$1 x $2: warned after a run that ended"; }
done

# Both at once (helper U21: they took the same numbers, wrote into each
# other's checkpoints and pruned them as a killed run's; a's resume found
# none).  The later loops are slow enough for the runs to overlap.
sed 's/it < 8/it < 40/; s/100/20000/g' a.sap >a2.sap
sed 's/it < 8/it < 40/; s/100/20000/g' b.sap >b2.sap
"$SAPC" -o a2 a2.sap || fail "sapc a2.sap"
"$SAPC" -o b2 b2.sap || fail "sapc b2.sap"
./a2 >full2 2>full2.err </dev/null || { cat full2.err; fail "a2 failed"; }
./b2 >fullb2 2>fullb2.err </dev/null || { cat fullb2.err; fail "b2 failed"; }
rm -rf ck
SAP_TEST_KILL_AFTER=30 ./a2 --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &
./b2 --checkpoint-dir=ck --checkpoint-every=1 >pb 2>pb.err </dev/null || { cat pb.err; fail "b2 failed"; }
wait
grep -q "warning" p1.err pb.err && { cat p1.err pb.err; fail "the runs sharing ck warned"; }
cmp -s fullb2 pb || fail "b2 beside a2 printed another result"
./a2 --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null || { cat p2.err; fail "--resume of a2 failed"; }
grep -q "^resuming from checkpoint" p2.err || { cat p2.err; fail "a2 did not resume"; }
tail -n "$(wc -l <p2)" full2 | cmp -s - p2 || fail "resumed a2 printed '$(cat p2)'"

# The same program twice at once with other params, one killed (helper
# U23: the other pruned its checkpoints, and --resume took the other's):
# each keeps its own, and --resume takes those of its params.
./a2 --scale=3 >full3 2>full3.err </dev/null || { cat full3.err; fail "a2 --scale=3 failed"; }
rm -rf ck
SAP_TEST_KILL_AFTER=12 ./a2 --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &
./a2 --scale=3 --checkpoint-dir=ck --checkpoint-every=1 >pb 2>pb.err </dev/null ||
	{ cat pb.err; fail "a2 --scale=3 failed"; }
wait
grep -q "warning" p1.err pb.err && { cat p1.err pb.err; fail "two runs of a2 sharing ck warned"; }
cmp -s full3 pb || fail "a2 --scale=3 beside another run printed another result"
./a2 --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null || { cat p2.err; fail "--resume of a2 failed"; }
grep -q "^resuming from checkpoint" p2.err || { cat p2.err; fail "the killed a2 did not resume"; }
grep -q "warning" p2.err && { cat p2.err; fail "the killed a2 resumed another run's checkpoint"; }
tail -n "$(wc -l <p2)" full2 | cmp -s - p2 || fail "the killed a2, resumed, printed '$(cat p2)'"

# One after the other: a run with other params, started fresh, neither
# replaces nor is warned of the killed run's checkpoints, another
# experiment's (helper U24).
rm -rf ck
SAP_TEST_KILL_AFTER=12 ./a2 --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &&
	fail "a2 not killed"
./a2 --scale=3 --checkpoint-dir=ck --checkpoint-every=1 >pb 2>pb.err </dev/null ||
	{ cat pb.err; fail "a2 --scale=3 after a killed a2 failed"; }
grep -q "warning" pb.err && { cat pb.err; fail "a2 --scale=3 was warned of the killed a2's checkpoints"; }
./a2 --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null || { cat p2.err; fail "--resume of a2 failed"; }
grep -q "warning" p2.err && { cat p2.err; fail "the killed a2 resumed another run's checkpoint"; }
tail -n "$(wc -l <p2)" full2 | cmp -s - p2 || fail "the killed a2, resumed later, printed '$(cat p2)'"

# Seed replicas, the killed one started second (helper U25: the other
# pruned its checkpoints, and its --resume printed the other seed's
# result); then a sweep that always passes --resume: a run of other params
# does not continue one that ended.
./a2 --seed=5 >full5 2>full5.err </dev/null || { cat full5.err; fail "a2 --seed=5 failed"; }
rm -rf ck
./a2 --seed=6 --checkpoint-dir=ck --checkpoint-every=1 >pb 2>pb.err </dev/null &
sleep 0.3
SAP_TEST_KILL_AFTER=12 ./a2 --seed=5 --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err \
	</dev/null && fail "a2 --seed=5 not killed"
wait
./a2 --seed=5 --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null ||
	{ cat p2.err; fail "--resume of a2 --seed=5 failed"; }
grep -q "warning" p2.err && { cat p2.err; fail "a2 --seed=5 resumed another run's checkpoint"; }
tail -n "$(wc -l <p2)" full5 | cmp -s - p2 || fail "a2 --seed=5, resumed, printed '$(cat p2)'"
rm -rf ck
./a2 --checkpoint-dir=ck --checkpoint-every=1 --resume >p1 2>p1.err </dev/null ||
	{ cat p1.err; fail "a2 --resume over an empty dir failed"; }
./a2 --scale=3 --checkpoint-dir=ck --checkpoint-every=1 --resume >p2 2>p2.err </dev/null ||
	{ cat p2.err; fail "a2 --scale=3 --resume failed"; }
cmp -s full3 p2 || { cat p2.err; fail "a2 --scale=3 --resume continued another run that ended"; }
exit 0
