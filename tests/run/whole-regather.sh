#!/bin/sh
# A gather over all of a vector at keys that move with the pass
# (a[(idx[i] + p * 7) % n]), while driver code changes a between passes:
# on several ranks the read slice ran again at every pass, over every
# iteration, and each rank fetched most of the others' part of a (8.5 MB
# over 10 passes on 2 ranks).  A loop whose slice needed a sixteenth or
# more of a vector from other ranks, and must run again on changed
# inputs, makes it whole instead; driver code keeps it whole.  Every
# layout prints the one rank's sums.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >wr.sap <<'SAP'
param int passes = 10;
long n = 400000;
dvector<long> a(n);
dvector<int> idx(n);
async for (long i = 0; i < n; i++) {
    a[i] = i % 101;
    idx[i] = int((i * 37 + 11) % n);
}
for (int p = 0; p < passes; p++) {
    long s = 0;
    async for (long i = 0; i < n; i++) reduce(+: s) s += a[(idx[i] + p * 7) % n] * (i % 3 + 1);
    a[p * 1000 % n] += 3;
    print("pass %d sum %d\n", p, s);
}
SAP
"$SAPC" -O2 -o wr wr.sap || fail "sapc wr.sap"
$MPIEXEC -n 1 ./wr >one.out </dev/null || fail "the run on 1 rank failed"
cat >want.out <<'OUT'
pass 0 sum 39997144
pass 1 sum 39997752
pass 2 sum 39997506
pass 3 sum 39997138
pass 4 sum 39997731
pass 5 sum 39997647
pass 6 sum 39997438
pass 7 sum 39997716
pass 8 sum 39997953
pass 9 sum 39997603
OUT
cmp -s want.out one.out || { diff want.out one.out; fail "1 x 1 prints other sums"; }
same_on_layouts wr one.out
# The loop's sent_MB on rank 0 of 2: its first pass fetches about 0.85
# MB, and making a whole sends the other 1.6 MB of rank 0's half.
sent_mb wr wr.sap:11
awk -v mb="$mb" 'BEGIN { exit !(mb < 4) }' ||
	fail "the loop sent $mb MB from rank 0 over 10 passes of a gather that moves with the pass"
exit 0
