#!/bin/sh
# A static key the body takes under a test of the loop variable (if
# (i > 0) x[i - 1], i + 1 < n ? x[i + 1] : 0, the else of if (i == 0))
# is taken only in the iterations the test leaves: a stencil's boundary
# reads, taken in every iteration, met the first iteration's write one
# row on and x[-1], and the loop was planned at every invocation (helper
# WAYS), where no two iterations meet.  A test that leaves iterations
# whose keys do meet keeps the loop planned.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >gk.sap <<'SAP'
param long n = 1000;
param int steps = 6;
param long h = 400;
dvector<double> T(long(steps + 1) * n);
dvector<double> k0(n);
for (long i = 0; i < n; i++) {
    T[i] = (i % 17) * 1.5 - (i % 5);
    k0[i] = 0.1 + (i % 3) * 0.05;
}
for (long t = 0; t < steps; t++) {
    async for (long i = 0; i < n; i++) {
        double l = i > 0 ? T[t * n + i - 1] : 0;
        double r = 0;
        if (i + 1 < n)
            r = T[t * n + i + 1];
        double c = T[t * n + i];
        if (i == 0)
            l = l + c;
        else
            l = l + T[t * n + i - 1];
        T[(t + 1) * n + i] = c + k0[i] * (0.5 * l - 2 * c + r);
    }
}
// A guarded write a row on, one key back: iteration 0 writes nothing, and
// over ranks the holder of U[(t + 1) * n - 1], row t's last, stays.
dvector<double> U(long(steps + 1) * n);
for (long i = 0; i < n; i++)
    U[i] = i % 11;
for (long t = 0; t < steps; t++) {
    async for (long i = 0; i < n; i++)
        if (i > 0)
            U[(t + 1) * n + i - 1] = U[t * n + i] * 0.5 + U[t * n + i - 1];
    async for (long i = n - 1; i < n; i++)
        U[(t + 1) * n + i] = U[t * n + i] + 1;
}
double u = 0;
for (long i = 0; i < len(U); i++)
    u += U[i] * (i % 7 + 1);
print("%.17g\n", u);
// Iteration h reads x[h], which iteration 0 writes: planned.
dvector<double> x(2 * n);
for (long i = 0; i < 2 * n; i++)
    x[i] = i % 7;
async for (long i = 0; i < n; i++)
    if (i <= h && !(i < 0))
        x[i + h] = x[i + h] * 0.5 + x[i];
double s = 0;
for (long i = 0; i < n; i++)
    s += T[steps * n + i] * (i + 1);
print("%.17g %a\n", s, T[steps * n + n / 2]);
SAP
sed 's/async for/for/' gk.sap >twin.sap
"$SAPC" -o gk gk.sap 2>err || { cat err; fail "sapc gk.sap"; }
"$SAPC" -o twin twin.sap || fail "sapc twin.sap"
./twin >want || fail "the plain for's run failed"
$MPIEXEC -n 1 ./gk >out.1 || fail "1 x 1 failed"
cmp -s want out.1 || { cat want out.1; fail "1 x 1 prints other results than the plain for"; }
same_on_layouts gk want
$MPIEXEC -n 1 ./gk --threads=2 --stats >out 2>err || { cat err; fail "1 x 2 --stats failed"; }
grep "^ *[0-9]* gk.sap:11 " err | grep -q " chunks$" ||
	{ cat err; fail "the stencil's guarded reads kept it planned"; }
grep "^ *[0-9]* gk.sap:44 " err | grep -q " chunks" &&
	{ cat err; fail "iterations 0 and h meet at x[h], but ran in chunks"; }
$MPIEXEC -n 2 ./gk --threads=2 --check-plan >out 2>err || { cat err; fail "--check-plan failed"; }
# Over ranks, spread: in chunks, each rank fetching the ranges its chunk
# reads (planned at a key an element before).
for np in 2 3; do
	SAP_SHORT_LOOPS=spread $MPIEXEC -x SAP_SHORT_LOOPS -n $np ./gk --threads=1 --stats >out 2>err ||
		{ cat err; fail "$np x 1, spread, failed"; }
	cmp -s want out || { cat want out; fail "$np x 1, spread, prints other results"; }
	grep "^ *[0-9]* gk.sap:11 " err | grep -q " chunks$" ||
		{ cat err; fail "$np x 1, spread: the stencil not in chunks"; }
done
exit 0
