#!/bin/sh
# The C of tests/explain/twin-loops.sap (whose --explain that golden test
# checks and whose runs folded-keys.sh compares): an access folded into
# another's record (its loops 2 and 7) has that record's key, which the
# runtime checks in range before it calls the body with sap_v 2, so it is
# written with the check left out there, as a recorded access is.  A
# check left in keeps cc from hoisting the list's header out of the loop
# (the check's call may not return), which cost the Lasso sample's update
# loop a load an entry.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

"$SAPC" -S -o "$tmp/a.c" "$top_srcdir/tests/explain/twin-loops.sap" || fail "sapc -S"
# The bodies' text: from each sap_loopN_run to the next function.
awk '/^static .* void sap_loop[0-9]+_run\(/ { on = 1 } on && /^}/ { on = 0 } on' "$tmp/a.c" >"$tmp/run.c"
test "$(grep -c '^static .* void sap_loop[0-9]*_run(' "$tmp/run.c")" -ge 8 ||
	fail "fewer than 8 async bodies in the C"
grep -q 'sap_dv_ix(&u_W,' "$tmp/run.c" && fail "a body indexes W with a check that cannot fail at sap_v 2"
# (sap_dv_ixa: the same, audited under --check-plan at sap_v 0.)
test "$(grep -o 'sap_dv_ix[ac](&u_W, [^;]*sap_v < 2[,)]' "$tmp/run.c" | wc -l)" -ge 14 ||
	fail "fewer W accesses than expected are left unchecked at sap_v 2"
# The slices still check every key they record.
grep -q 'sap_rec_key(rec, 1, (int64_t)(((u_E \*)sap_list_atn(' "$tmp/a.c" ||
	fail "a slice records R[i].x[k] unchecked"
exit 0
