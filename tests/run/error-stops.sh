#!/bin/sh
# A runtime error on one rank stops every rank before any further output:
# rank 0 prints a line only once every rank has got there, so a line
# printed after the failing statement never appears, whichever rank
# fails.  Run 5 times on 2 and 3 ranks (the failing iteration is the last
# rank's), once on 1.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/e.sap" <<'SAP'
param long n = 1000;
dvector<double> a(n);
dvector<double> b(3);
print("start\n");
async for (long i = 0; i < n; i++) {
    if (i == n - 1)
        a[i] = b[i];
    else
        a[i] = i;
}
print("done\n");
print("sum %g\n", a[0] + a[1]);
SAP
"$SAPC" -O2 -o "$tmp/e" "$tmp/e.sap" || fail "sapc e.sap"

for np in 1 2 2 2 2 2 3 3 3 3 3; do
	timeout 120 $MPIEXEC -n $np "$tmp/e" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc = 124 && fail "$np ranks: still running after 120 s"
	test $rc = 0 && fail "$np ranks: exit status 0"
	test "$(cat "$tmp/out")" = start ||
		fail "$np ranks: printed '$(cat "$tmp/out")' where only 'start' comes before the error"
	grep -q "e.sap:7:17: error: index 999 out of range for b (size 3)" "$tmp/err" ||
		{ cat "$tmp/err"; fail "$np ranks: no error"; }
done

# A key from a C function that keeps state differs between the ranks'
# slices: the ranks chose different exchanges and waited for ever.  Now
# they find out, and stop.
cat >"$tmp/k.sap" <<'SAP'
extern int off();
dvector<long> H(8);
async for (long i = 0; i < 6; i++)
    H[i + off()] += 1;
print("done\n");
SAP
cat >"$tmp/k.c" <<'C'
int off(void) { static int n; return n++ % 2; }
C
"$SAPC" -O2 -o "$tmp/k" "$tmp/k.sap" "$tmp/k.c" || fail "sapc k.sap"
# Planned, though it has too few iterations to pay for a plan (run in
# index order on every rank, each rank would take its own keys; sap(7)
# asks such functions to be pure).
SAP_PLAN_SMALL=1 timeout 120 $MPIEXEC -x SAP_PLAN_SMALL -n 2 "$tmp/k" --threads=1 >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc = 124 && fail "a stateful key: still running after 120 s"
grep -q "keys differ between ranks" "$tmp/err" || { cat "$tmp/err"; fail "a stateful key: no error"; }
exit 0
