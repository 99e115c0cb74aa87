#!/bin/sh
# A sync for on one worker is the serial loop, one mini-batch after
# another, for avg and sum (sap(7)): also when another vector has a merge
# function, which still applies after every step.  Before, every vector
# was then merged as old + (copy - old), which rounds: w ended at
# 0.1036999999999999 where the serial loop gives 0.1037.  On the sparse
# path (recon on, the default) and the dense one.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

prog() {
	cat <<SAP
double keep(double old, double total, long workers) { return old + total; }
dvector<double> x(1) = 0.1;
dvector<double> w(1) = 3.7;
dvector<double> u(1);
sync for (double v : x) with (bsp, batch = 1, merge(u) = keep$1) {
    w[0] = w[0] * 0.001 + v;
    u[0] += 1;
}
double s = 3.7;
for (long i = 0; i < len(x); i++)
    s = s * 0.001 + x[i];
print("%.17g %.17g %g\n", w[0], s, u[0]);
SAP
}
cd "$tmp" || exit 1
prog "" >sparse.sap
prog ", recon = off" >dense.sap
for p in sparse dense; do
	"$SAPC" -o "$p" "$p.sap" || fail "sapc $p.sap"
	set -- $($MPIEXEC -n 1 "./$p" --threads=1) || fail "$p on 1 x 1"
	test "$1" = "$2" || fail "$p: sync for on one worker gave $1, the serial loop $2"
	test "$3" = 1 || fail "$p: u is $3, not 1"
done
exit 0
