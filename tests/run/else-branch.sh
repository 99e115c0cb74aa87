#!/bin/sh
# The same key written in both branches of an if: the slice must record
# it in each, as an iteration runs one or the other.  A record in the
# then branch stood for the else branch's too (the two branches counted
# as one context), so the iterations that took the else branch wrote
# keys no plan knew of: on 2 and 3 ranks their updates were lost or
# doubled, silently (-52079 became 736749 on 2 ranks).
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >br.sap <<'SAP'
long n = 30000;
long m = 100;
dvector<int> w(n);
dvector<double> cnt(m);
dvector<double> two(m);
async for (long i = 0; i < n; i++)
    w[i] = int((i * 7919 + 13) % 104729 % m);
for (int p = 0; p < 2; p++) {
    async for (long i = 0; i < n; i++) {
        int k = w[i];
        if (k % 3 != p)
            cnt[k] += 1;
        else
            cnt[k] -= 2;
    }
    async for (long i = 0; i < n; i++) {
        int k = w[i];
        if (k % 2 == 0) {
            two[k] += 0.5;
        } else {
            if (k > 50)
                two[k] = two[k] * 0.5 + 1;
        }
    }
    double s = 0;
    double t = 0;
    async for (long k = 0; k < m; k++) reduce(+: s, t) {
        s += cnt[k] * (k + 1);
        t += two[k] * (k % 7 + 1);
    }
    print("pass %d: %.17g %.17g\n", p, s, t);
}
SAP
"$SAPC" -O2 -o br br.sap || fail "sapc br.sap"
$MPIEXEC -n 1 ./br >one.out </dev/null || fail "the run on 1 rank failed"
cat >want.out <<'OUT'
pass 0: -52079 29672.5
pass 1: -29779 59143
OUT
cmp -s want.out one.out || { diff want.out one.out; fail "1 x 1 prints other sums"; }
same_on_layouts br one.out
exit 0
