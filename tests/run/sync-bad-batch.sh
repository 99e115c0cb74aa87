#!/bin/sh
# A sync for's batch or staleness that is not valid is an error of the
# driver's values, which every rank meets alike: reported with its place,
# exit status 1, and over ranks by rank 0 first, the others waiting for
# it to end the job (each rank printed it at once, two or three copies).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/bb.sap" <<'SAP'
param long batch = 10;
param int s = 1;
dvector<long> x(100);
dvector<double> w(4);
sync for (long i : x) with (bsp, batch = batch) { w[i % 4] += 1; }
sync for (long i : x) with (ssp(s), batch = 10) { w[i % 4] += 1; }
print("ok %g\n", w[0]);
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o bb bb.sap || fail "sapc bb.sap"
check() { # what, expected message, options
	what=$1 msg=$2
	shift 2
	for np in 1 2; do
		$MPIEXEC -n $np ./bb "$@" >out 2>err
		rc=$?
		test $rc = 1 || { cat err; fail "$what, $np ranks: exit status $rc"; }
		test ! -s out || fail "$what, $np ranks: printed '$(cat out)'"
		first=$(grep 'error:' err | head -n 1)
		case $np.$first in
		"1.$msg" | "2.[rank 0] $msg") ;;
		*) cat err; fail "$what, $np ranks: first error '$first'" ;;
		esac
	done
}
check "batch 0" "bb.sap:5:1: error: sync for: batch must be positive, got 0" --batch=0
check "ssp(-1)" "bb.sap:6:1: error: sync for: the staleness of ssp(s) must be 0 or more, got -1" --s=-1
# Each step's updates averaged over the workers: 100 a loop on one.
for np in 1 2; do
	$MPIEXEC -n $np ./bb --threads=1 >out 2>err || { cat err; fail "valid values, $np ranks"; }
	grep -qx "ok $((200 / np))" out || fail "valid values, $np ranks: printed '$(cat out)'"
done
exit 0
