#!/bin/sh
# Over ranks, two more loops run whole on every rank where that is
# faster, timed both ways as short loops are (SAP_SHORT_LOOPS forces a
# way, to test both; the bits are the same either way):
#  - a loop whose iterations are apart pair by pair with no hub and no
#    inexact sum (a knapsack's row per item, read from the row before):
#    planned at every invocation over ranks, 49 plans took 8 s on 2 ranks
#    against 0.08 s in chunks on one (helper DP); whole, it runs in chunks
#    as one rank of all the workers;
#  - a plan of many rounds (a coordinate descent's columns over shared
#    rows: 184 rounds a sweep sent 584 MB on 2 ranks, 25 s for a serial
#    0.5, helper SPM): whole, every rank runs the plan as one rank of all
#    the workers would, with no exchange after each round.
# 1 x 2 and 2 x 1 (1 x 3 and 3 x 1) print the same either way.  A loop
# apart pair by pair with a floating-point sum runs whole in chunks
# always, as one rank's threads do, so that it sums alike.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >pw.sap <<'SAP'
param long cap = 2000;
param int items = 12;
param long p = 3000;
param long n = 600;
long W = cap + 1;
long at(long r, long c) { return r * (cap + 1) + c; }
dvector<long> dp(long(items + 1) * W);
for (long i = 1; i <= items; i++) {
    long w = (i * 37 + 11) % 97 + 1;
    long v = (i * 53 + 5) % 101 + 1;
    async for (long c = 0; c <= cap; c++) {
        long best = dp[at(i - 1, c)];
        if (c >= w && dp[at(i - 1, c - w)] + v > best)
            best = dp[at(i - 1, c - w)] + v;
        dp[at(i, c)] = best;
    }
}
dvector<long> rows(p * 4);
for (long t = 0; t < p * 4; t++)
    rows[t] = (t * 7919 + (t / 4) * 104729 + 13) % n;
dvector<double> r(n);
for (long t = 0; t < n; t++)
    r[t] = 1.0 + t % 7;
dvector<double> b(p);
for (int sweep = 0; sweep < 10; sweep++) {
    async for (long j = 0; j < p; j++) {
        double rho = 0;
        for (long k = 0; k < 4; k++)
            rho += r[rows[j * 4 + k]] * (k + 1);
        double nb = rho / (30.0 + j % 5);
        double d = nb - b[j];
        b[j] = nb;
        for (long k = 0; k < 4; k++)
            r[rows[j * 4 + k]] -= d * (k + 1) * 0.25;
    }
}
// Apart pair by pair too, with a floating-point sum: whole in chunks
// always, as on one rank's threads (spread by a plan, 2 x 1 summed
// otherwise than 1 x 2: helper WAYS).
param long m = 1000;
dvector<double> U(2 * m);
for (long t = 0; t < m; t++)
    U[t] = 1.0 / (t + 3);
double e = 0;
async for (long t = 0; t < m; t++) reduce(+: e) {
    U[m + t] = U[t] * 3;
    e += U[t] * 0.7;
}
double s = e;
for (long t = 0; t < n; t++)
    s += r[t] * (t + 1);
for (long t = 0; t < p; t++)
    s += b[t];
print("%d %.17g %a\n", dp[at(items, cap)], s, e);
SAP
"$SAPC" -o pw pw.sap || fail "sapc pw.sap"
for w in 2 3; do
	$MPIEXEC -n 1 ./pw --threads=$w >want.$w 2>err || { cat err; fail "1 x $w: run failed"; }
	for mode in whole spread; do
		SAP_SHORT_LOOPS=$mode $MPIEXEC -x SAP_SHORT_LOOPS -n $w ./pw --threads=1 --stats \
			>out 2>err || { cat err; fail "$w x 1, $mode: run failed"; }
		head -n 1 out | cmp -s - want.$w ||
			{ cat want.$w out; fail "$w x 1, $mode: not 1 x $w's numbers"; }
		if [ $mode = whole ]; then
			grep -h "^ *[0-9]* pw.sap:11 " out err | grep -q "chunks, on every rank: as one rank of all the workers runs it, and SAP_SHORT_LOOPS=whole" ||
				{ cat out err; fail "$w x 1: the knapsack's rows not whole in chunks"; }
			grep -h "^ *[0-9]* pw.sap:26 " out err | grep -q "planned.*on every rank: as one rank of all the workers runs its plan" ||
				{ cat out err; fail "$w x 1: the coordinates' plan not run whole"; }
		else
			grep -h "^ *[0-9]* pw.sap:26 " out err | grep -q "on every rank" &&
				{ cat out err; fail "$w x 1: spread, but run whole"; }
		fi
		grep -h "^ *[0-9]* pw.sap:45 " out err | grep -q "chunks, on every rank: as one rank of all the workers runs it$" ||
			{ cat out err; fail "$w x 1, $mode: the floating-point sum not whole in chunks"; }
	done
done
exit 0
