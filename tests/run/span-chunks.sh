#!/bin/sh
# Keys affine in several inner loops (nested-spans.sap: an image of a
# batch, y[((b * F + f) * OH + oy) * OW + ox]; rows with gaps; a row read
# backwards, or from right to left; a recurrence's read of step t - 1
# under t > 0, whose range of t the guard narrows; the columns of a
# row-major matrix, apart by their residues) run in chunks with no
# reconnaissance on 2 and 3 ranks, where each was recorded key by key
# and planned (a CNN's forward pass 3.5 times slower on 1 x 2 than on
# 1 x 1, an RNN's 10 times, a column blur's plan 6 times its body);
# pairs of neighbouring columns, which meet, and a guard the compiler
# does not read are still planned.  Results are the serial program's
# (nested-spans.out, from its C twin).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1
cp "$top_srcdir/tests/run/nested-spans.sap" . || fail "no nested-spans.sap"
"$SAPC" -o ns nested-spans.sap || fail "sapc nested-spans.sap"
# The recons column of loop $1 in err.
recons() {
	sed -n "s/^ *$1 nested-spans.sap:[0-9]* *[0-9]* *\([0-9]*\) .*/\1/p" err | head -n 1
}
for l in "2 1" "3 1" "2 2"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./ns --threads="$2" --stats >out 2>err || { cat err; fail "$1 x $2"; }
	cmp out "$top_srcdir/tests/run/nested-spans.out" || fail "$1 x $2: output differs"
	got=
	for loop in 3 4 5 6 7 8 9 10 11 12 13 14 15 16 18 19; do
		got="$got $(recons $loop)"
	done
	want=" 0 0 0 0 0 0 1 0 0 0 1 0 0 0 0 0"
	test "$got" = "$want" || { cat err; fail "$1 x $2: recons $got, not $want"; }
done
exit 0
