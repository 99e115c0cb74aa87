#!/bin/sh
# A program that saves a file each pass and loads it back the next
# (helper O): a run killed after a pass's save, resumed from a checkpoint
# taken before that pass's load, loaded the newer file as the older one
# and printed other sums, without a word.  It now stops with an error
# naming the file; where the resumed run saves the file again itself
# before loading it, it goes on, and prints the uninterrupted run's lines.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >p.sap <<'SAP'
param int passes = 4;
param long n = 20000;
param long spin = 20000000;
dvector<long> v(n);
async for (long i = 0; i < n; i++) v[i] = i % 1000;
save(v, "state.txt");
for (int p = 0; p < passes; p++) {
    dvector<long> cur = load("state.txt");
    async for (long i = 0; i < len(cur); i++)
        cur[i] = (cur[i] * 3 + p) % 100003;
    // Driver work: the save comes well after the checkpoint of the loop.
    long h = 0;
    for (long t = 0; t < spin; t++) h = (h * 31 + t) % 1000003;
    save(cur, "state.txt");
    long s = 0;
    async for (long i = 0; i < len(cur); i++) reduce(+: s) { s += cur[i]; }
    print("pass %d sum %d h %d\n", p, s, h);
}
SAP
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"
$MPIEXEC -n 2 ./p >full 2>full.err </dev/null || { cat full.err; fail "the uninterrupted run"; }

# Loops run 1 (the fill), then 2 and 3 each pass.  Checkpoints every 3
# loop runs: after run 3 (pass 0's sum), before pass 1 loads the file;
# killed after run 5, once pass 1 has saved over it.
rm -f state.txt
SAP_TEST_KILL_AFTER=5 $MPIEXEC -n 2 ./p --checkpoint-dir=ck --checkpoint-every=3 >k1 2>k1.err \
	</dev/null && fail "not killed after loop run 5"
$MPIEXEC -n 2 ./p --checkpoint-dir=ck --checkpoint-every=3 --resume >r1 2>r1.err </dev/null &&
	fail "resumed onto the file pass 1 saved: $(cat r1)"
grep -q "p.sap:8:.*error: --resume: 'state.txt' was changed after the checkpoint was taken" r1.err ||
	{ cat r1.err; fail "no message naming state.txt"; }

# Checkpoints every 2: after run 4 (pass 1's update), before its save;
# killed after run 5.  The resumed run saves the file before it loads it.
rm -rf ck state.txt
SAP_TEST_KILL_AFTER=5 $MPIEXEC -n 2 ./p --checkpoint-dir=ck --checkpoint-every=2 >k2 2>k2.err \
	</dev/null && fail "not killed after loop run 5 (every 2)"
$MPIEXEC -n 2 ./p --checkpoint-dir=ck --checkpoint-every=2 --resume >r2 2>r2.err </dev/null ||
	{ cat r2.err; fail "the resume from run 4"; }
tail -n "$(wc -l <r2)" full | cmp - r2 || fail "the resumed run printed $(cat r2)"
exit 0
