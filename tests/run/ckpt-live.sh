#!/bin/sh
# A checkpoint holds the driver variables and DDSs that the program may
# read after its loop, no more (sap-run(1), CHECKPOINTS): on
# tests/run/live-state.sap, the vector `big` (2.4 MB) is in the checkpoint
# taken after loop 1, which loop 2 reads it in, and in none after loop 2.
# What is left out must not matter: on 1, 2 and 3 ranks, a run killed
# after each loop and resumed prints what the uninterrupted run prints and
# saves the same w.txt, bit for bit.  The state it must keep although no
# statement after the loop in its block names it: `carry`, read at the
# top of the next pass, and the map `m`, which --resume makes `ks` from.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cp "$top_srcdir/tests/run/live-state.sap" "$tmp/" || exit 99
cd "$tmp" || exit 99
"$SAPC" -O2 -o prog live-state.sap || fail "sapc live-state.sap"

# The bytes of checkpoint $1's parts.
ckpt_bytes() {
	cat ck/ckpt-"$1"/part-* | wc -c
}

for np in 1 2 3; do
	run="$MPIEXEC -n $np ./prog"
	rm -rf ck full && mkdir full
	$run >full/stdout 2>full/stderr </dev/null || { cat full/stderr; fail "$np ranks: the run failed"; }
	mv w.txt full/
	rm -rf ck
	SAP_TEST_KILL_AFTER=1 $run --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &&
		fail "$np ranks: not killed after loop 1"
	b1=$(ckpt_bytes 1)
	test "$b1" -gt 2400000 || fail "$np ranks: the checkpoint after loop 1 has $b1 bytes, not big"
	rm -rf ck
	SAP_TEST_KILL_AFTER=3 $run --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &&
		fail "$np ranks: not killed after loop 3"
	for c in 2 3; do
		b=$(ckpt_bytes $c)
		test "$b" -lt 100000 || fail "$np ranks: the checkpoint after loop $c has $b bytes: big is dead"
	done
	for k in 1 2 3 4 9; do
		rm -rf ck w.txt
		SAP_TEST_KILL_AFTER=$k:$((k % np)) $run --checkpoint-dir=ck --checkpoint-every=1 \
			>p1 2>p1.err </dev/null && fail "$np ranks: not killed after loop $k"
		$run --checkpoint-dir=ck --checkpoint-every=1 --resume >p2 2>p2.err </dev/null ||
			{ cat p2.err; fail "$np ranks, killed after loop $k: --resume failed"; }
		grep -q "^resuming from checkpoint" p2.err ||
			{ cat p2.err; fail "$np ranks, killed after loop $k: did not resume"; }
		covers full/stdout p1 p2 || {
			diff full/stdout p2
			fail "$np ranks, killed after loop $k: the output is not the uninterrupted run's"
		}
		cmp -s w.txt full/w.txt || fail "$np ranks, killed after loop $k: w.txt differs"

	done
done
exit 0
