#!/bin/sh
# An async for of few iterations over new bounds runs in index order on
# one worker, as a plan would cost more than its iterations -- unless its
# body nests loops two deep, calls included (here three): 300 rows of an all-pairs
# matrix, each a DTW-like double loop per pair, ran on one worker of any
# number, and on 2 x 1 each rank ran all of it.
#  - the deep body plans on 1 x 2 and 2 x 1 (--stats), or, its triangle's
#    rows and columns apart, runs in chunks; every layout prints what
#    1 x 1 prints;
#  - a body one loop deep of as few iterations still runs in index order.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >p.sap <<'SAP'
param int n = 60;
param int m = 30;
dvector<double> X(n * m);
for (long k = 0; k < n * m; k++)
    X[k] = (k * 7919 % 1000) / 1000.0;

double weight(long u, long v)
{
    double w = 0;
    for (long k = 0; k <= u; k++)
        w += 1.0 / (k + v + 1);
    return w;
}

dvector<double> D(n * n);
async for (long i = 0; i < n; i++) {
    for (long j = i + 1; j < n; j++) {
        double d = 0;
        for (long u = 0; u < m; u++)
            d += fabs(X[i * m + u] - X[j * m + u]) * weight(u, j);
        D[i * n + j] = d;
        D[j * n + i] = d;
    }
}
dvector<double> R(n);
async for (long i = 0; i < n; i++) {
    double s = 0;
    for (long j = 0; j < n; j++)
        s += D[i * n + j];
    R[i * 7 % n] += s;
}
double t = 0;
for (long i = 0; i < n; i++)
    t += R[i] * (i + 1);
print("%.17g\n", t);
SAP
"$SAPC" -o p p.sap || fail "sapc p.sap"
$MPIEXEC -n 1 ./p >want || fail "p on 1 x 1"
same_on_layouts p want
for pt in 1x2 2x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" ./p --threads="$t" --stats >/dev/null 2>stats || { cat stats; fail "p on $pt"; }
	grep -q '^ *1 p.sap:16 .* \(planned\|chunks\)' stats ||
		{ cat stats; fail "the deep body on $pt: neither planned nor in chunks"; }
	grep -q '^ *2 p.sap:26 .* index-order: too few iterations to plan' stats ||
		{ cat stats; fail "the shallow body on $pt: planned"; }
done
exit 0
