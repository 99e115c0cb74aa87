#!/bin/sh
# Folded keys must not lose a key: the slice records an access once for
# a later one with the same key, and those later writes must still travel.
#  - tests/explain/folded-keys.sap: its writes of X are all under a
#    condition on a driver variable (the pass), after reads of the same
#    keys at the body's top level.  The slice records each key once, with
#    the writes' mode, and without the condition: the plan is made once
#    for the three passes, and over ranks every rank learns what another
#    wrote.  (Recorded as reads only, the writes would stay on the rank
#    that made them.)
#  - tests/explain/twin-loops.sap: a loop that repeats an earlier loop's
#    header is recorded in the earlier loop, only where that loop reaches
#    every key the later one can (its .out shows which loops fold).
# Each runs under --check-plan on 1 x 2, 2 x 1, 1 x 3 and 3 x 1, and
# 2 x 1 and 3 x 1 train what 1 x 2 and 1 x 3 do, bit for bit.
set -u
: "${SAPC:?must be set}" "${MPIEXEC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

for prog in folded-keys twin-loops; do
	"$SAPC" -O2 -o "$tmp/$prog" "$top_srcdir/tests/explain/$prog.sap" || fail "sapc $prog.sap"
	for pt in 1x2 2x1 1x3 3x1; do
		np=${pt%x*} t=${pt#*x} out=$tmp/$prog.$pt
		$MPIEXEC -n "$np" "$tmp/$prog" --threads="$t" --check-plan --stats >"$out.out" \
			2>"$out.err" || { cat "$out.err"; fail "$prog failed on $pt"; }
		grep -q '^checksum ' "$out.out" || fail "$prog: no checksum on $pt"
		test "$prog" = folded-keys || continue
		awk '$1 == 2 && $2 ~ /folded-keys.sap:19$/ { found = 1; if ($4 != 1 || $6 != 1) bad = 1 }
			END { exit !(found && !bad) }' "$out.err" ||
			{ cat "$out.err"; fail "on $pt the loop did not plan exactly once over its passes"; }
	done
	for p in 2 3; do
		cmp -s "$tmp/$prog.1x$p.out" "$tmp/$prog.${p}x1.out" ||
			fail "$prog: $p x 1 differs from 1 x $p: $(cat "$tmp/$prog.1x$p.out" "$tmp/$prog.${p}x1.out")"
	done
done
exit 0
