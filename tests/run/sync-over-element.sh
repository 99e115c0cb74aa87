#!/bin/sh
# A sync for's element and its vector, over ranks and threads:
#  - a body that also indexes the vector it runs over (X[n - x], a
#    sampled negative) read 0 for the elements other ranks held: each rank
#    kept only its part of it;
#  - a body that writes the vector it runs over read its element from the
#    vector's storage, which worker 0 writes as its copy: a race (the sum
#    came out 100000, 82132 or 0 on one rank of two threads).  The element
#    is the worker's own view now, as every other read of a written vector:
#    the last worker has incremented X[n - 1] once for each of its other
#    iterations when it reaches it.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/rev.sap" <<'SAP'
param int n = 12;
dvector<double> X(n);
async for (long i = 0; i < n; i++) X[i] = i + 1;
double s = 0;
sync for (double x : X) with (bsp, batch = 2) reduce(+: s) {
    s += X[n - int(x)];
}
print("%g\n", s);
SAP
cat >"$tmp/own.sap" <<'SAP'
param int n = 20000;
param int batch = 20000;
param int batch2 = 1000;
dvector<double> X(n);
double s = 0;
sync for (double x : X) with (bsp, batch = batch, merge(X) = sum, recon = off) reduce(+: s) {
    X[n - 1] += 1;
    s += x;
}
double t = 0;
sync for (list<double> b : X) with (bsp, batch = batch2, merge(X) = sum) reduce(+: t) {
    X[n - 1] += 1;
    t += b[len(b) - 1];
}
print("%g %g\n", s, t);
SAP
cd "$tmp" || exit 1
"$SAPC" -o rev rev.sap || fail "sapc rev.sap"
"$SAPC" -o own own.sap || fail "sapc own.sap"
# s: the last worker's share of 20000 elements, less one.  t: the last
# batch of the last worker starts from the first loop's 20000 increments
# plus the W workers' one a step (bsp merges after every step) of the
# steps before it.
for pt in 1x1 1x2 2x1 3x1 2x2; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" ./rev --threads="$t" >rev.out 2>rev.err || { cat rev.err; fail "rev on $pt"; }
	test "$(cat rev.out)" = 78 || fail "rev on $pt: $(cat rev.out), not 78"
	case $pt in
	1x1) want="19999 20019" ;;
	1x2|2x1) want="9999 20018" ;;
	3x1) want="6666 20018" ;;
	2x2) want="4999 20016" ;;
	esac
	for rep in 1 2 3; do
		$MPIEXEC -n "$np" ./own --threads="$t" >own.out 2>own.err ||
			{ cat own.err; fail "own on $pt"; }
		test "$(cat own.out)" = "$want" || fail "own on $pt: $(cat own.out), not $want"
	done
done
exit 0
