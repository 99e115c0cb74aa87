#!/bin/sh
# Reductions and merges over every element type: reduce-grid.gen writes
# one program that checks accumulate (dvector and dmap), reduce (+, min,
# max, a function; over indices and over a map's keys), sync for merges
# (avg, sum, a function; recon on and off), a reduce in a sync for and a
# dmap a sync for writes, for {int, long, float, double} x {scalar, T[3],
# T[2][2], a struct of numbers with padding, a struct of T only, an array
# of structs}, each result equal to the sequential loop's in the same
# program (the values are exact).  It runs on 1, 2 and 3 ranks x 1 and 2
# threads, but for 3 x 2.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

sh "$top_srcdir/tests/run/reduce-grid.gen" >"$tmp/grid.sap" || fail "reduce-grid.gen"
# -O0: the program is long and runs a moment.
"$SAPC" -O0 -o "$tmp/grid" "$tmp/grid.sap" || fail "sapc grid.sap"

# As many checks as the generator wrote, every one run and passed.
want=$(grep -c 'failed += check(' "$tmp/grid.sap")
test "$want" -gt 500 || fail "only $want checks generated"
# Not 3 x 2: six workers on CI's two cores took a third of the test's
# time, and 2 x 2 and 3 x 1 have both of its ways of combining.
for np in 1 2 3; do
	for nt in 1 2; do
		test "$np.$nt" = 3.2 && continue
		out="$tmp/grid.$np.$nt"
		$MPIEXEC --bind-to none -n "$np" "$tmp/grid" --threads="$nt" --workers=$((np * nt)) \
			>"$out" 2>&1 || { cat "$out"; fail "grid on $np ranks x $nt threads"; }
		grep FAIL "$out" && fail "grid on $np ranks x $nt threads: wrong results"
		n=$(sed -n 's/^grid: \([0-9]*\) checks, 0 failed$/\1/p' "$out")
		test -n "$n" || { cat "$out"; fail "grid on $np ranks x $nt threads: no summary"; }
		test "$n" -ge "$want" ||
			fail "grid on $np ranks x $nt threads: $n checks run, $want written"
	done
done
exit 0
