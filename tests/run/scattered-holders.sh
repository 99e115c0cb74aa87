#!/bin/sh
# A planned loop writes w at keys from data (w[key[i]] += ...), and each
# key stays with the rank that wrote it; the planner cut the keys among
# the ranks a little apart from where v's parts are.  The loop after it
# reads v[i] and w[i] where v's elements are: it made w whole (3.2 MB
# over 4 passes, on 2 ranks) for the few keys held across the cut.  It
# fetches those keys now, and every layout prints the one rank's sums.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >sh.sap <<'SAP'
param int passes = 4;
long n = 200000;
dvector<long> key(n);
dvector<long> val(n);
async for (long i = 0; i < n; i++) {
    key[i] = (i * 2654435761) % n;
    val[i] = i % 97;
}
dvector<long> w(n);
dvector<long> v(n);
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < n; i++) w[key[i]] = w[key[i]] + val[i] + p;
    async for (long i = 1; i < n - 1; i++) v[i] = (w[i - 1] + w[i + 1] + v[i]) % 1000;
    long cv = 0;
    async for (long i = 0; i < n; i++) reduce(+: cv) cv += v[i] * (i % 7 + 1) + w[i];
    print("pass %d cv %d\n", p, cv);
}
SAP
"$SAPC" -O2 -o sh sh.sap || fail "sapc sh.sap"
$MPIEXEC -n 1 ./sh >one.out </dev/null || fail "the run on 1 rank failed"
cat >want.out <<'OUT'
pass 0 cv 86394497
pass 1 cv 251384052
pass 2 cv 448693645
pass 3 cv 435963256
OUT
cmp -s want.out one.out || { diff want.out one.out; fail "1 x 1 prints other sums"; }
same_on_layouts sh one.out
# The loop's sent_MB on rank 0 of 2.
sent_mb sh sh.sap:15
awk -v mb="$mb" 'BEGIN { exit !(mb < 0.8) }' ||
	fail "the loop sent $mb MB from rank 0 over 4 passes to read the keys of w held across the cut"
exit 0
