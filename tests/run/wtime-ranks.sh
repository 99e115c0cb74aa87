#!/bin/sh
# wtime() in driver code is the same value on every rank (rank 0's
# clock), so a program that trains for a time budget, `while (wtime() -
# t0 < budget)`, runs the same number of passes on every rank: each
# rank's count, reduced with min and max in a loop, must agree, and the
# sum over the vector must be the one that count gives.  Before, each
# rank read its own clock and stopped after its own count: the vector's
# parts were trained for different numbers of passes, with nothing said,
# and a loop with a reduction could wait for ever.  In a loop body, and a
# function one calls, wtime() stays the worker's own and costs no
# message (the same function called from driver code then broadcasts).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/p.sap" <<'SAP'
param long n = 20000;
param double budget = 0.4;
dvector<double> V(n);
dvector<double> T(n);

double since(double t0) {
    return wtime() - t0;
}

double t0 = wtime();
int passes = 0;
while (since(t0) < budget) {
    double d = 0;
    async for (long i = 0; i < n; i++) reduce(+: d) {
        V[i] = V[i] * 0.5 + passes;
        T[i] = since(t0);
        d += 1;
    }
    passes++;
}
double s = 0;
int hi = 0;
int lo = 1000000000;
async for (long i = 0; i < n; i++) reduce(+: s) reduce(max: hi) reduce(min: lo) {
    s += V[i];
    hi = max(hi, passes);
    lo = min(lo, passes);
}
bool late = false;
async for (long i = 0; i < n; i++) reduce(||: late) {
    late = late || T[i] < 0;
}
print("passes %d %d %d sum %.17g late %d\n", passes, lo, hi, s, late);
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"
for np in 1 2 3; do
	timeout 120 $MPIEXEC -n $np ./p --threads=1 >out 2>err
	rc=$?
	test $rc = 124 && fail "$np ranks: still running after 120 s"
	test $rc = 0 || { cat err; fail "$np ranks: exit status $rc"; }
	awk -v np=$np '
		$1 != "passes" { print np " ranks: " $0; exit 1 }
		{
			p = $2
			# V[i] after p passes: sum over e < p of e 0.5^(p - 1 - e),
			# which is 2 (p - 2) + 2^(2 - p), for n = 20000 elements.
			want = 20000 * (2 * (p - 2) + 2 ^ (2 - p))
			if ($3 != p || $4 != p) { print np " ranks: passes " p ", but the ranks ran " $3 " to " $4; exit 1 }
			if (p < 2) { print np " ranks: only " p " passes"; exit 1 }
			d = $6 - want; d = d < 0 ? -d : d
			if (d > 1e-9 * want) { print np " ranks: sum " $6 ", want " want; exit 1 }
			if ($8 != 0) { print np " ranks: a body read a negative time"; exit 1 }
		}' out || fail "$(cat out)"
done
exit 0
