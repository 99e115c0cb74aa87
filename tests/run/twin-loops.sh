#!/bin/sh
# tests/explain/twin-loops.sap: a slice records the keys of a loop that
# repeats an earlier loop's header once, in the earlier loop, only where
# that loop reaches every key the later one can.  Under --check-plan every
# plan is checked against the keys the bodies touch, on 1 x 2, 2 x 1,
# 1 x 3 and 3 x 1; 2 x 1 and 3 x 1 train what 1 x 2 and 1 x 3 do, bit for
# bit.  (tests/explain/twin-loops.out shows which loops fold.)
set -u
: "${SAPC:?must be set}" "${MPIEXEC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

"$SAPC" -O2 -o "$tmp/tl" "$top_srcdir/tests/explain/twin-loops.sap" || fail "sapc"
for pt in 1x2 2x1 1x3 3x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" "$tmp/tl" --threads="$t" --check-plan >"$tmp/$pt.out" \
		2>"$tmp/$pt.err" || { cat "$tmp/$pt.err"; fail "the program failed on $pt"; }
	grep -q '^checksum ' "$tmp/$pt.out" || fail "no checksum on $pt"
done
cmp -s "$tmp/1x2.out" "$tmp/2x1.out" ||
	fail "2 x 1 differs from 1 x 2: $(cat "$tmp/1x2.out" "$tmp/2x1.out")"
cmp -s "$tmp/1x3.out" "$tmp/3x1.out" ||
	fail "3 x 1 differs from 1 x 3: $(cat "$tmp/1x3.out" "$tmp/3x1.out")"
exit 0
