#!/bin/sh
# The C of tests/run/array-fill.sap (whose output that golden test checks):
# a local array that a counted loop fills before any read is declared
# without the zeroing every other local gets; every array that a read could
# see unwritten (the k* cases, and v in the parallel loop) is still zeroed.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

"$SAPC" -S -o "$tmp/a.c" "$top_srcdir/tests/run/array-fill.sap" || fail "sapc -S"
decls=$(grep -oE 'sap_double_8 u_[a-z0-9]+( = \{0\})?;' "$tmp/a.c" | sort -u)
for v in e1 e2 w; do
	echo "$decls" | grep -qx "sap_double_8 u_$v;" || fail "$v is filled before any read but not declared bare"
	echo "$decls" | grep -qx "sap_double_8 u_$v = {0};" && fail "$v is still zeroed"
done
for v in k1 k2 k3 k4 k5 k6 k7 k8 k9 v; do
	echo "$decls" | grep -qx "sap_double_8 u_$v = {0};" || fail "$v may be read unwritten but is not zeroed"
	echo "$decls" | grep -qx "sap_double_8 u_$v;" && fail "$v is declared bare"
done
exit 0
