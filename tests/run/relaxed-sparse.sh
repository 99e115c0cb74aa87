#!/bin/sh
# A relaxed vector of doubles of which each round changes a few elements:
# on several ranks only the changed blocks travel (relaxed.c, fold_sparse),
# and the sums must be the chain's bit for bit: 2 x 1 prints what 1 x 2
# prints, 3 x 1 what 1 x 3 does, with fractional, order-sensitive sums and
# a plan of many rounds; and the ranks send a fraction of the vector.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >rs.sap <<'SAP'
param int n = 200000;
param int m = 20000;
dvector<double> tot(n);
dvector<double> y(n);
dvector<int> w(m);
for (long i = 0; i < m; i++)
    w[i] = int((i * 7919 + i / 3) % 997);
for (int p = 0; p < 3; p++) {
    async for (long i = 0; i < m; i++) relaxed(+: tot) {
        int k = w[i];
        int k2 = w[(i + 1) % m] * 200;
        int at = (k % 40) * 4999 + p;
        double t = tot[at];
        tot[at] += 0.001 * t + 1.3;
        tot[n - 1 - at] -= t / 3;
        y[k] = y[k] * 0.5 + t;
        y[k2] = y[k2] * 0.25 + t;
    }
}
double s = 0, q = 0;
for (long i = 0; i < n; i++) {
    s += tot[i];
    q += y[i];
}
print("%.17g %.17g\n", s, q);
SAP
"$SAPC" -O2 -o rs rs.sap || fail "sapc rs.sap"
for l in "1 2" "2 1" "1 3" "3 1"; do
	set -- $l
	$MPIEXEC -n "$1" ./rs --threads="$2" >"out$1$2" 2>"err$1$2" </dev/null ||
		{ cat "err$1$2"; fail "$1 x $2 failed"; }
done
cmp out12 out21 || fail "2 x 1 printed $(cat out21), 1 x 2 $(cat out12)"
cmp out13 out31 || fail "3 x 1 printed $(cat out31), 1 x 3 $(cat out13)"
# The vector is 1.6 MB and the plan has 8 rounds: the chain carried it
# in every one, 38 MB in all.
sent_mb rs rs.sap:9
awk -v mb="$mb" 'BEGIN { exit !(mb < 2) }' || fail "2 x 1 sent $mb MB for the loop"
exit 0
