#!/bin/sh
# dot() and softmax() sum in sap(7)'s lane order, which does not depend on
# the optimisation level or the CPU's vector width: tests/run/lanes.sap
# built with -O0, -O2 and -O3 -march=native prints the same bits, and
# samples/baselines/lanes.h, the twins' copy of the order, computes the
# same sums from the vectors it prints (tests/run/lanes-check.c), and the
# dot of every length up to 70 in the order written out, built without AVX2
# and, where the CPU has it, with.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

for flags in "-O0" "-O2" "-O3 -march=native"; do
	# shellcheck disable=SC2086  # $flags: one or two options
	"$SAPC" $flags -o "$tmp/lanes" "$top_srcdir/tests/run/lanes.sap" || fail "sapc $flags"
	"$tmp/lanes" >"$tmp/out" || fail "the program built with $flags failed"
	cmp -s "$tmp/out" "$top_srcdir/tests/run/lanes.out" ||
		fail "built with $flags, it prints other sums: $(diff "$top_srcdir/tests/run/lanes.out" "$tmp/out" | head -5)"
done
grep -qx 'cancel 1' "$tmp/out" || fail "dot(1e8 1 -1e8, 1 1 1) is not 1"

${CC:-cc} -std=c11 -O2 -ffp-contract=off -I"$top_srcdir/samples/baselines" -o "$tmp/check" \
	"$top_srcdir/tests/run/lanes-check.c" -lm || fail "cannot build lanes-check.c"
"$tmp/check" <"$tmp/out" >"$tmp/c.out" || fail "lanes-check failed (exit status $?)"
grep -v '^a \|^cancel ' "$tmp/out" >"$tmp/sap.out"
cmp -s "$tmp/sap.out" "$tmp/c.out" ||
	fail "lanes.h sums differently: $(diff "$tmp/sap.out" "$tmp/c.out" | head -5)"
# The code for AVX, vectors of 8 (the default build has vectors of 4),
# where this CPU runs it.
if grep -qw avx2 /proc/cpuinfo 2>/dev/null &&
	${CC:-cc} -std=c11 -O3 -mavx2 -ffp-contract=off -I"$top_srcdir/samples/baselines" \
		-o "$tmp/check-avx" "$top_srcdir/tests/run/lanes-check.c" -lm 2>/dev/null; then
	"$tmp/check-avx" <"$tmp/out" >"$tmp/c-avx.out" || fail "lanes-check with AVX2 failed (exit status $?)"
	cmp -s "$tmp/sap.out" "$tmp/c-avx.out" || fail "lanes.h with AVX2 sums differently"
fi
exit 0
