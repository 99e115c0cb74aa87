#!/bin/sh
# Checkpoint and resume (sap-run(1), CHECKPOINTS), on tests/run/everything.sap,
# which has a bit of every kind of state: scalars, strings, lists and
# structs in driver variables, dvectors of flat and of list elements, maps
# and multimaps, random numbers in driver code and in loop bodies, async
# loops and sync loops.  On 1, 2 and 3 ranks, a run killed (SIGKILL, on
# one rank) after parallel loop K, for each K, then resumed, must print
# what an uninterrupted run prints and write the same files, bit for bit:
# the killed run's lines are a prefix of the uninterrupted run's, the
# resumed run's a suffix, and together they are all of them (a line
# printed between the checkpoint and the kill is printed again).  Then:
# taken on P ranks and resumed on Q, and resumed with another seed or
# other params.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

src=$top_srcdir/tests/run
cp "$src/everything.sap" "$tmp/" || exit 99
cp "$src/everything.c" "$tmp/helpers.c" || exit 99
for f in "$src"/everything.*.in; do
	cp "$f" "$tmp/$(basename "$f" .in | sed 's/^everything\.//')" || exit 99
done
cd "$tmp" || exit 99
"$SAPC" -O2 -o prog everything.sap helpers.c || fail "sapc everything.sap"
outs="points.out corpus.out u.out"

for np in 1 2 3; do
	run="$MPIEXEC -n $np ./prog"
	rm -rf ck full && mkdir full
	$run >full/stdout 2>full/stderr </dev/null || { cat full/stderr; fail "$np ranks: the run failed"; }
	for f in $outs; do mv "$f" full/; done
	# The loops run, from the checkpoints a run takes after each.
	$run --checkpoint-dir=ck --checkpoint-every=1 --stats >/dev/null 2>stats </dev/null ||
		fail "$np ranks: the run with checkpoints failed"
	n=$(sed -n 's/^Checkpoints: \([0-9]*\) taken.*/\1/p' stats | head -n 1)
	test "${n:-0}" -ge 8 || fail "$np ranks: $n checkpoints, expected one per loop"
	for f in $outs; do cmp -s "$f" "full/$f" || fail "$np ranks: checkpoints changed $f"; done
	k=1
	while [ "$k" -lt "$n" ]; do
		rm -rf ck $outs
		SAP_TEST_KILL_AFTER=$k:$((k % np)) $run --checkpoint-dir=ck --checkpoint-every=2 \
			>p1 2>p1.err </dev/null && fail "$np ranks: not killed after loop $k"
		$run --checkpoint-dir=ck --checkpoint-every=2 --resume >p2 2>p2.err </dev/null ||
			{ cat p2.err; fail "$np ranks, killed after loop $k: --resume failed"; }
		if [ "$k" -ge 2 ]; then
			grep -q "^resuming from checkpoint" p2.err ||
				{ cat p2.err; fail "$np ranks, killed after loop $k: did not resume"; }
		fi
		covers full/stdout p1 p2 || {
			diff full/stdout p2
			fail "$np ranks, killed after loop $k: the output is not the uninterrupted run's"
		}
		for f in $outs; do
			cmp -s "$f" "full/$f" || fail "$np ranks, killed after loop $k: $f differs"
		done
		k=$((k + np))
	done
done

# Taken on P ranks, resumed on Q: the vectors and maps are cut anew.  The
# program's results do not depend on the number of ranks (its golden test
# checks that), so they are still the uninterrupted run's.
for pq in 2:1 1:3 3:2; do
	p=${pq%:*} q=${pq#*:}
	for k in 2 5 8; do
		rm -rf ck $outs
		SAP_TEST_KILL_AFTER=$k:$((k % p)) $MPIEXEC -n "$p" ./prog --checkpoint-dir=ck \
			--checkpoint-every=1 >p1 2>p1.err </dev/null && fail "$p ranks: not killed after loop $k"
		$MPIEXEC -n "$q" ./prog --checkpoint-dir=ck --checkpoint-every=1 --resume >p2 2>p2.err \
			</dev/null || { cat p2.err; fail "killed on $p ranks after loop $k: --resume on $q failed"; }
		rk=ranks
		test "$p" = 1 && rk=rank
		grep -q "warning: --resume: the checkpoint was taken on $p $rk, this run has $q" p2.err ||
			{ cat p2.err; fail "no warning of $p ranks resumed on $q"; }
		covers full/stdout p1 p2 || {
			diff full/stdout p2
			fail "killed on $p ranks after loop $k, resumed on $q: the output differs"
		}
		for f in $outs; do
			cmp -s "$f" "full/$f" || fail "killed on $p ranks after loop $k, resumed on $q: $f differs"
		done
	done
done
# Resumed with another --seed: the random numbers after the checkpoint are
# another seed's, which is said; with the same one, nothing is.
rm -rf ck $outs
SAP_TEST_KILL_AFTER=3 $MPIEXEC -n 1 ./prog --checkpoint-dir=ck --checkpoint-every=1 --seed=7 >p1 \
	2>p1.err </dev/null && fail "not killed after loop 3"
$MPIEXEC -n 1 ./prog --checkpoint-dir=ck --checkpoint-every=1 --resume --seed=7 >p2 2>p2.err \
	</dev/null || { cat p2.err; fail "--resume --seed=7"; }
grep -q seed p2.err && { cat p2.err; fail "a warning of the seed resumed with the same seed"; }
# That run ended: another seed's --resume would not take its checkpoints
# (another experiment's, finished); a killed one's it takes.
SAP_TEST_KILL_AFTER=3 $MPIEXEC -n 1 ./prog --checkpoint-dir=ck --checkpoint-every=1 --seed=7 >p1 \
	2>p1.err </dev/null && fail "not killed after loop 3"
$MPIEXEC -n 1 ./prog --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null ||
	{ cat p2.err; fail "--resume with the default seed"; }
grep -q "warning: --resume: the checkpoint was taken with --seed=7, this run has --seed=1" p2.err ||
	{ cat p2.err; fail "no warning of a checkpoint of --seed=7 resumed with --seed=1"; }
grep -q "params\|--count\|--scale" p2.err && { cat p2.err; fail "a warning of params not changed"; }
# Resumed with other params: what the checkpoint holds was made with the
# old values, which is said, naming each changed one.
$MPIEXEC -n 1 ./prog --checkpoint-dir=ck --resume --seed=7 --scale=2.5 --label=x >p2 2>p2.err \
	</dev/null || { cat p2.err; fail "--resume --scale=2.5 --label=x"; }
grep -q "warning: --resume: the checkpoint was taken with --scale=2 (now 2.5), --label=run (now x): " p2.err ||
	{ cat p2.err; fail "no warning of params changed on --resume"; }

# A vector loaded from a file and never written (C, from corpus.txt) is
# not in the checkpoint: --resume loads it again, and refuses a file that
# changed since.
rm -rf ck $outs
SAP_TEST_KILL_AFTER=4 $MPIEXEC -n 2 ./prog --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err \
	</dev/null && fail "not killed after loop 4"
test "$(grep -c corpus ck/ckpt-4/part-0)" -ge 1 || fail "the checkpoint does not name corpus.txt"
grep -q "cccccc" corpus.txt && fail "this test's marker is in corpus.txt"
cp corpus.txt corpus.saved
echo "cccccc" >>corpus.txt
$MPIEXEC -n 2 ./prog --checkpoint-dir=ck --checkpoint-every=1 --resume >p2 2>p2.err </dev/null &&
	fail "--resume took a changed corpus.txt"
grep -q "error: --resume: 'corpus.txt', which dvector C was loaded from, has changed since the checkpoint was taken" p2.err ||
	{ cat p2.err; fail "the message for a changed input"; }

# A driver loop whose body has a parallel loop: --resume jumps into the
# body, past what runs before its first pass, so the array's keys are
# tested there each pass (an index out of range after a resume went
# through, with a flag never set).
cat >ranged.sap <<'SAP'
int cls[8];
double tot = 0;
for (int k = 0; k < 12; k++) {
    cls[k] = k;
    double s = 0;
    async for (long j = 0; j < 100; j++) reduce(+: s) { s += j; }
    tot += s;
}
print("%g\n", tot);
SAP
"$SAPC" -O2 -Wall -Wextra -Werror -o ranged ranged.sap || fail "sapc ranged.sap"
rm -rf ck
SAP_TEST_KILL_AFTER=3 $MPIEXEC -n 1 ./ranged --checkpoint-dir=ck --checkpoint-every=1 >/dev/null 2>&1 \
	</dev/null && fail "ranged: not killed after loop 3"
$MPIEXEC -n 1 ./ranged --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null &&
	fail "ranged: the resumed run wrote past the array"
grep -q "ranged.sap:4:8: error: index 8 out of range for array 'cls' (size 8)" p2.err ||
	{ cat p2.err; fail "ranged: no range error after --resume"; }

# A loaded vector held in parts on 2 ranks, resumed on 1 rank of 2
# threads: whole there, as load() makes it on one rank, for the planned
# loop that reads it at its index (it stopped at "no plan-order copy").
cat >bf.sap <<'SAP'
struct Edge { int u; int v; int w; }
if (len("edges.txt") > 0) {
    dvector<Edge> E = load("edges.txt");
    int n = 0;
    async for (long i = 0; i < len(E); i++) reduce(max: n)
        n = max(n, max(E[i].u, E[i].v) + 1);
    dvector<long> dist(n) = 1000000000L;
    dist[0] = 0;
    bool changed = true;
    while (changed) {
        changed = false;
        async for (long i = 0; i < len(E); i++) reduce(||: changed) {
            Edge e = E[i];
            if (dist[e.u] + e.w < dist[e.v]) {
                dist[e.v] = dist[e.u] + e.w;
                changed = true;
            }
        }
    }
    long tot = 0;
    async for (long v = 0; v < n; v++) reduce(+: tot) { tot += dist[v]; }
    print("total %d\n", tot);
}
SAP
awk 'BEGIN { n = 3000; s = 1
	for (i = 0; i < 4 * n; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; u = s % n
		s = (s * 1103515245 + 12345) % 2147483648; v = s % n
		s = (s * 1103515245 + 12345) % 2147483648; print u, v, 1 + s % 100
	} }' >edges.txt
"$SAPC" -O2 -Wall -Wextra -Werror -o bf bf.sap || fail "sapc bf.sap"
$MPIEXEC -n 1 ./bf >p0 2>&1 </dev/null || { cat p0; fail "bf: the run failed"; }
rm -rf ck
SAP_TEST_KILL_AFTER=3 $MPIEXEC -n 2 ./bf --checkpoint-dir=ck --checkpoint-every=1 >/dev/null 2>&1 \
	</dev/null && fail "bf: not killed after loop 3"
$MPIEXEC -n 1 ./bf --threads=2 --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null ||
	{ cat p2.err; fail "bf: killed on 2 ranks, --resume on 1 rank of 2 threads failed"; }
cmp -s p0 p2 || { diff p0 p2; fail "bf: resumed on 1 rank of 2 threads, the total differs"; }
exit 0
