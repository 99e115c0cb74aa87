#!/bin/sh
# A read slice whose body scans an inner loop records a key per element
# read: a triangular loop over rows (s += X[j] for j > i) records n^2 / 2
# keys to learn that a rank needs X whole.  Past 32 records an element
# the slice stops and X is made whole instead; a later invocation of few
# rows slices again and fetches what it reads.  Rows alternate between
# all and ten, X rewritten by its holders before each: every layout
# prints what one rank does.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >tri.sap <<'SAP'
param int n = 3000;
param int passes = 4;
dvector<double> X(n);
dvector<double> S(n);
for (int pass = 0; pass < passes; pass++) {
    async for (long i = 0; i < n; i++)
        X[i] = (i * 7 + pass * 13) % 101 - 50.0;
    long m = pass % 2 == 0 ? n : 10;
    async for (long i = 0; i < m; i++) {
        double s = 0;
        for (long j = i + 1; j < n; j++)
            s += X[j] * (j % 7);
        S[i] = s;
    }
    double t = 0;
    for (long i = 0; i < n; i++)
        t += S[i] * (i % 5);
    print("pass %d rows %d t %.17g\n", pass, m, t);
}
SAP
"$SAPC" --explain tri.sap >explain.out || fail "sapc --explain"
grep -q "read slice (on several ranks, each rank fetches the elements its iterations read):" explain.out ||
	{ cat explain.out; fail "no read slice"; }
"$SAPC" -o tri tri.sap || fail "sapc tri.sap"
$MPIEXEC -n 1 ./tri >one.out </dev/null || fail "the run on 1 rank failed"
cat >want.out <<'OUT'
pass 0 rows 3000 t -3482155
pass 1 rows 10 t -3446245
pass 2 rows 3000 t 4064198
pass 3 rows 10 t 4040316
OUT
cmp -s want.out one.out || { diff want.out one.out; fail "1 x 1 prints other sums"; }
same_on_layouts tri one.out
exit 0
