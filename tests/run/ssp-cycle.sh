#!/bin/sh
# sync for with ssp(s) on 3 ranks of uneven work ends.  A rank used to
# wait, after merging a clock, for its own sends of that clock, while
# another waited to receive from a third: on 3 ranks the waits could
# close a cycle (a send of a large change ends only when its receiver
# takes it), and 9 runs in 12 of this program hung.  (What the workers
# read depends on when changes arrive, so the result is not compared
# from run to run.)
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/u.sap" <<'SAP'
param int n = 5000;
param int epochs = 20;
dvector<int> X(n);
async for (long i = 0; i < n; i++) X[i] = int((i * 7919) % 1000);
dvector<double> w(4096);
for (int ep = 0; ep < epochs; ep++) {
    sync for (int x : X) with (ssp(3), batch = 10) {
        double e = 1;
        for (int k = 0; k < x; k++) e -= 0.001 * w[(x + k) % 4096];
        w[x * 13 % 4096] += 0.01 * e;
    }
}
double s = 0;
for (long i = 0; i < len(w); i++) s += w[i] * (i + 1);
print("%.17g\n", s);
SAP
"$SAPC" -O2 -o "$tmp/u" "$tmp/u.sap" || fail "sapc u.sap"

for run in 1 2 3 4 5 6; do
	timeout 120 $MPIEXEC -n 3 "$tmp/u" --threads=1 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc = 124 && fail "run $run: still running after 120 s"
	test $rc = 0 || { cat "$tmp/err"; fail "run $run: exit status $rc"; }
	grep -Eqx '6[0-9]{5}\.[0-9]+' "$tmp/out" ||
		fail "run $run: printed '$(cat "$tmp/out")', not about 639190"
done
exit 0
