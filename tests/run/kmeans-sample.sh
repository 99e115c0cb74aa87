#!/bin/sh
# samples/kmeans.sap against its serial C twin, samples/baselines/kmeans.c,
# on 4000 Fashion-MNIST images (Debian's dataset-fashion-mnist):
#  - on 1 rank x 1 thread the sample prints what the twin prints (every
#    iteration's cost) and saves the same centroids, bit for bit;
#  - 1 rank x 2 threads and 2 ranks x 1 thread print and save the same,
#    bit for bit: the centroid sums combine in worker order;
#  - on 1, 2 and 3 ranks x 1 and 2 threads each iteration's cost is
#    within 1e-9 of the twin's, relatively, and every saved centroid
#    value within 1e-5: the sums in another order differ by rounding
#    (the images' assignments, decided in float, are the same here), where
#    an image lost or counted twice moves a centroid by about 1e-3.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.
# Exit status: 0 pass, 1 fail, 77 skip.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
fashion=/usr/share/datasets/fashion-mnist
if test ! -r "$fashion/train-images-idx3-ubyte.gz"; then
	echo "SKIP: no $fashion (Debian's dataset-fashion-mnist; ./bootstrap installs it)"
	exit 77
fi

make_tmp

"$top_builddir/tools/idx2txt" --limit=4000 "$fashion/train-images-idx3-ubyte.gz" \
	"$fashion/train-labels-idx1-ubyte.gz" >"$tmp/images.txt" || fail "idx2txt"
"$SAPC" -O2 -o "$tmp/kmeans" "$top_srcdir/samples/kmeans.sap" ||
	fail "sapc could not compile samples/kmeans.sap"
# The flags sapc builds the generated C with.
${CC:-cc} -std=c11 -O2 -ffp-contract=off -fwrapv -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/kmeans.c" -lm ||
	fail "could not compile samples/baselines/kmeans.c"

set -- --data="$tmp/images.txt" --k=8 --iters=6
"$tmp/twin" "$@" --out="$tmp/twin.txt" >"$tmp/twin.out" || fail "the twin failed"
test "$(grep -c '^iter [0-9]* cost ' "$tmp/twin.out")" = 6 ||
	{ cat "$tmp/twin.out"; fail "unexpected report from the twin"; }
strip_time "$tmp/twin.out" >"$tmp/twin.cmp"

for np in 1 2 3; do
	for nt in 1 2; do
		l=${np}x$nt
		$MPIEXEC -n $np "$tmp/kmeans" "$@" --threads=$nt --out="$tmp/$l.txt" \
			>"$tmp/$l.out" 2>"$tmp/$l.err" || { cat "$tmp/$l.err"; fail "$l: exit status"; }
		strip_time "$tmp/$l.out" >"$tmp/$l.cmp"
		awk 'NR == FNR { if ($1 == "iter") c[$2] = $4; next }
			$1 == "iter" {
				d = $4 - c[$2]; d = d < 0 ? -d : d
				if (d > 1e-9 * c[$2]) { print "iteration " $2 ": cost " $4 " against " c[$2]; bad = 1 }
				n++
			}
			END { if (n != 6) { print n " iterations"; bad = 1 }; exit bad }' \
			"$tmp/twin.out" "$tmp/$l.out" || fail "$l: costs not the twin's"
		awk 'NR == FNR { for (f = 1; f <= NF; f++) t[FNR, f] = $f; next }
			{
				if (NF != 784) { print "line " FNR ": " NF " values"; bad = 1; exit }
				for (f = 1; f <= NF; f++) {
					d = $f - t[FNR, f]; d = d < 0 ? -d : d
					if (d > 1e-5) { print "centroid " FNR - 1 ", pixel " f - 1 ": " $f " against " t[FNR, f]; bad = 1; exit }
				}
			}
			END { if (FNR != 8) { print FNR " centroids"; bad = 1 }; exit bad }' \
			"$tmp/twin.txt" "$tmp/$l.txt" || fail "$l: centroids not the twin's"
	done
done
cmp -s "$tmp/twin.cmp" "$tmp/1x1.cmp" ||
	{ diff "$tmp/twin.cmp" "$tmp/1x1.cmp" | head; fail "1x1 does not print what the twin prints"; }
cmp -s "$tmp/twin.txt" "$tmp/1x1.txt" || fail "1x1 does not save the twin's centroids bit for bit"
cmp -s "$tmp/1x2.cmp" "$tmp/2x1.cmp" || fail "1x2 and 2x1 print differently"
cmp -s "$tmp/1x2.txt" "$tmp/2x1.txt" || fail "1x2 and 2x1 save different centroids"
exit 0
