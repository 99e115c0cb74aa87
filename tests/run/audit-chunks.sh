#!/bin/sh
# --check-plan checks a body against the plan it runs by, and only then:
# an invocation that runs in chunks, with the plan of an earlier one kept
# for later ones, was checked against that plan's keys and stopped as "a
# bug of sapc" (helper DP: a wavefront's last diagonal, one iteration,
# against the plan of the diagonal before; a knapsack's row 2 against
# row 1's plan).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >w.sap <<'SAP'
param long n = 6;
param long cap = 300;
dvector<double> D((n + 1) * (n + 2));
for (long t = 0; t < n + 2; t++)
    D[t] = t;
for (long d = 2; d <= 2 * n; d++) {
    long lo = d - n > 1 ? d - n : 1;
    long hi = d - 1 < n ? d - 1 : n;
    async for (long i = lo; i <= hi; i++) {
        long j = d - i;
        D[i * (n + 2) + j] = D[(i - 1) * (n + 2) + j] + D[(i - 1) * (n + 2) + j + 1] + 1;
    }
}
long at(long r, long c) { return r * (cap + 1) + c; }
dvector<long> dp(9 * (cap + 1));
for (long i = 1; i <= 8; i++) {
    long w = (i * 37 + 11) % 97 + 1;
    async for (long c = 0; c <= cap; c++) {
        long best = dp[at(i - 1, c)];
        if (c >= w && dp[at(i - 1, c - w)] + i * 3 > best)
            best = dp[at(i - 1, c - w)] + i * 3;
        dp[at(i, c)] = best;
    }
}
print("%.17g %d\n", D[n * (n + 2) + n], dp[at(8, cap)]);
SAP
sed 's/async for/for/' w.sap >serial.sap
"$SAPC" -Wno-loop-carried -o w w.sap || fail "sapc w.sap"
"$SAPC" -o serial serial.sap || fail "sapc serial.sap"
./serial >want || fail "serial run"
for l in "1 2" "1 3" "2 1" "3 1"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./w --threads="$2" --check-plan >out 2>err ||
		{ cat err; fail "$l: --check-plan stopped the run"; }
	awk '{print $2}' want >want2
	awk '{print $2}' out | cmp -s - want2 || { cat want out; fail "$l: not the knapsack's best"; }
done
exit 0
