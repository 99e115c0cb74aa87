#!/bin/sh
# samples/mlr.sap on a slice of Fashion-MNIST (Debian's
# dataset-fashion-mnist, through tools/idx2txt): 6000 training and 2000
# test images, 3 epochs of bsp mini-batches.
#  - on 1, 2 and 3 ranks the test accuracy after the last epoch is above
#    75 % (it is about 80 %), and on 2 ranks two runs print the same;
#  - each rank's memory for the training images is its share of them;
#  - on 1 rank it prints what its serial C twin, samples/baselines/mlr.c,
#    prints: the same accuracies and the same model checksum.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
fashion=/usr/share/datasets/fashion-mnist
if test ! -r "$fashion/train-images-idx3-ubyte.gz"; then
	echo "SKIP: no $fashion (Debian's dataset-fashion-mnist; ./bootstrap installs it)"
	exit 77
fi

make_tmp

idx=$top_builddir/tools/idx2txt
"$idx" --limit=6000 "$fashion/train-images-idx3-ubyte.gz" "$fashion/train-labels-idx1-ubyte.gz" \
	>"$tmp/train.txt" || fail "idx2txt train"
"$idx" --limit=2000 "$fashion/t10k-images-idx3-ubyte.gz" "$fashion/t10k-labels-idx1-ubyte.gz" \
	>"$tmp/test.txt" || fail "idx2txt test"
"$SAPC" -O2 -o "$tmp/mlr" "$top_srcdir/samples/mlr.sap" || fail "sapc mlr.sap"

for run in 1 2 3 2b; do
	np=${run%b}
	$MPIEXEC -n "$np" "$tmp/mlr" --threads=1 --train="$tmp/train.txt" --test="$tmp/test.txt" \
		--epochs=3 --stats >"$tmp/$run.out" 2>"$tmp/$run.err" ||
		{ cat "$tmp/$run.err"; fail "$np ranks: exit status $?"; }
	awk '/^epoch 2 test_accuracy/ { ok = $4 > 0.75 } END { exit !ok }' "$tmp/$run.out" ||
		{ cat "$tmp/$run.out"; fail "$np ranks: accuracy"; }
	# dvector A: 6000 x 3140 B = 18.84 MB, on this rank E MB at the end, ...
	awk -v P="$np" '$1 == "dvector" && $2 == "A:" {
		n++; if ($13 > $8 / P * 1.05 + 0.05) bad = 1 }
		END { exit bad || n != P }' "$tmp/$run.err" ||
		{ cat "$tmp/$run.err"; fail "$np ranks: more than a share of the images on a rank"; }
done
cmp "$tmp/2.out" "$tmp/2b.out" || fail "two runs on 2 ranks differ"
# shellcheck disable=SC2046
${CC:-cc} -std=c11 -O2 -ffp-contract=off $(pkg-config --cflags openblas) -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/mlr.c" $(pkg-config --libs openblas) -lm ||
	fail "could not compile samples/baselines/mlr.c"
"$tmp/twin" --train="$tmp/train.txt" --test="$tmp/test.txt" --epochs=3 >"$tmp/twin.out" ||
	fail "twin: exit status $?"
grep -q '^model checksum ' "$tmp/twin.out" || { cat "$tmp/twin.out"; fail "twin: no checksum"; }
cmp "$tmp/1.out" "$tmp/twin.out" ||
	{ diff "$tmp/1.out" "$tmp/twin.out"; fail "1 rank and the serial C twin differ"; }
exit 0
