#!/bin/sh
# The C of tests/run/list-range.sap (whose output that golden test checks):
# a list subscript is written without its check, as a plain C index, only
# where the loop around it counts over that very list (k < len(L), or
# k < n with n a local that still holds len(L)) and its body leaves the
# counter and the list's path alone; every other one keeps its check.
# Also: an async body with static keys, run over contiguous iterations (no
# index list), is called with a NULL that cc sees, which leaves out the
# plan-order copies and lets it vectorise.  (A driver loop's counter is
# a C local, sap_dl_u_k.)
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

"$SAPC" -S -o "$tmp/a.c" "$top_srcdir/tests/run/list-range.sap" || fail "sapc -S"
checked() {
	grep -q "sap_list_atn(&$1," "$tmp/a.c"
}
plain() {
	grep -q "$1\.v)\[$2\]" "$tmp/a.c"
}
for v in c1 c2 c3 c4 c5 c7 c9.u_x c11 d6 c13 c14 c15 c16; do
	checked "u_$v" || fail "u_${v}[...] lost its check"
	plain "u_$v" '\(sap_dl_\)\{0,1\}u_k[_0-9]*' && fail "u_${v}[k] is written unchecked"
done
# u2[5] after its loop is checked, and so is u10[k - 2]: only L[k] is known.
checked u_u2 || fail "u2[5] lost its check"
checked u_u10 || fail "u10[k - 2] lost its check"
for v in u1 u2 u8 u10 u12 u17 u18; do
	plain "u_$v" '\(sap_dl_\)\{0,1\}u_k[_0-9]*' || fail "u_${v}[k] still checked"
done
# The nested loop's u8[k].x[m], in driver code and in the async body.
test "$(grep -o 'u_x\.v)\[\(sap_dl_\)\{0,1\}u_m[_0-9]*\]' "$tmp/a.c" | wc -l)" -ge 5 ||
	fail "L[k].x[m] still checked"
grep -q 'sap_list_atn(&[^,]*u_x, u_m' "$tmp/a.c" && fail "an x[m] is checked"
test "$(grep -o 'sap_loop[12]_run(env, NULL, lo, hi, red, 1, false, 0);' "$tmp/a.c" | wc -l)" = 2 ||
	fail "an async body over contiguous iterations is not called with a NULL index list"
exit 0
