#!/bin/sh
# tests/explain/folded-keys.sap: its writes of X are all under a condition
# on a driver variable (the pass), after reads of the same keys at the
# body's top level.  The slice records each key once, with the writes'
# mode, and without the condition: the plan is made once for the three
# passes, and over ranks every rank learns what another wrote, so 2 x 1
# and 3 x 1 train what 1 x 2 and 1 x 3 do, bit for bit.  (Recorded as
# reads only, the writes would stay on the rank that made them.)
set -u
: "${SAPC:?must be set}" "${MPIEXEC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

"$SAPC" -O2 -o "$tmp/fk" "$top_srcdir/tests/explain/folded-keys.sap" || fail "sapc"
for pt in 1x2 2x1 1x3 3x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" "$tmp/fk" --threads="$t" --check-plan --stats >"$tmp/$pt.out" \
		2>"$tmp/$pt.err" || { cat "$tmp/$pt.err"; fail "the program failed on $pt"; }
	awk '$1 == 2 && $2 ~ /folded-keys.sap:19$/ { found = 1; if ($4 != 1 || $6 != 1) bad = 1 }
		END { exit !(found && !bad) }' "$tmp/$pt.err" ||
		{ cat "$tmp/$pt.err"; fail "on $pt the loop did not plan exactly once over its passes"; }
done
cmp -s "$tmp/1x2.out" "$tmp/2x1.out" ||
	fail "2 x 1 differs from 1 x 2: $(cat "$tmp/1x2.out" "$tmp/2x1.out")"
cmp -s "$tmp/1x3.out" "$tmp/3x1.out" ||
	fail "3 x 1 differs from 1 x 3: $(cat "$tmp/1x3.out" "$tmp/3x1.out")"
exit 0
