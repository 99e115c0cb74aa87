#!/bin/sh
# mlr-gemm.sh: does a mini-batch pay for gemm?  samples/mlr.sap, whose
# sync for runs once per mini-batch of 100 images (two gemm calls), against
# bench/mlr-image.sap, the same model trained one image at a time (a gemv
# and a ger per image), on one worker: the training loop's compute time
# (from --stats) and the test accuracy after each epoch.
#
#   bench/mlr-gemm.sh                 # the full data, 10 epochs
#   BENCH_QUICK=1 bench/mlr-gemm.sh   # 6000 + 2000 images, 2 epochs
#
# Environment: see bench/common.subr; also BENCH_TARGET (an accuracy in
# [0, 1], default 0.842) and BENCH_EPOCHS.

. "$(dirname "$0")/common.subr"
bench_init mlr-gemm 3

fashion=/usr/share/datasets/fashion-mnist
test -r "$fashion/train-images-idx3-ubyte.gz" ||
	bench_fail "no $fashion: install dataset-fashion-mnist"
idx=$top_builddir/tools/idx2txt
test -x "$idx" || bench_fail "no $idx (run make first)"
if test "$quick" = 1; then
	ntrain=6000 ntest=2000 epochs=${BENCH_EPOCHS:-2} target=${BENCH_TARGET:-0.78}
else
	ntrain=60000 ntest=10000 epochs=${BENCH_EPOCHS:-10} target=${BENCH_TARGET:-0.842}
fi
mkdir -p "$BENCH_DATA"
stem=$BENCH_DATA/fashion-$ntrain-$ntest
if ! test -s "$stem.train.sap" || ! test -s "$stem.test.sap"; then
	"$idx" --limit=$ntrain "$fashion/train-images-idx3-ubyte.gz" \
		"$fashion/train-labels-idx1-ubyte.gz" >"$stem.train.sap" || bench_fail "idx2txt"
	"$idx" --limit=$ntest "$fashion/t10k-images-idx3-ubyte.gz" \
		"$fashion/t10k-labels-idx1-ubyte.gz" >"$stem.test.sap" || bench_fail "idx2txt"
fi
"$SAPC" -O3 -o "$tmp/batch" "$top_srcdir/samples/mlr.sap" || bench_fail "sapc samples/mlr.sap"
"$SAPC" -O3 -o "$tmp/image" "$top_srcdir/bench/mlr-image.sap" ||
	bench_fail "sapc bench/mlr-image.sap"

# The sync table's row: id, site, invocations, model, workers, steps,
# compute_s, ...
for r in $(seq "$reps"); do
	for p in batch image; do
		bench_quiet
		bench_mpirun "$tmp/$p" --threads=1 --epochs="$epochs" --stats \
			--train="$stem.train.sap" --test="$stem.test.sap" \
			>"$tmp/$p.$r.out" 2>"$tmp/$p.$r.err" || bench_fail "$p: exit status $?"
		awk '$1 == "sync" && $2 == "site" { on = 1; next }
			on && NF >= 7 { print $7; exit }' "$tmp/$p.$r.err" >>"$tmp/$p.compute"
		test -s "$tmp/$p.compute" || bench_fail "$p: no sync table in --stats"
	done
	cmp -s "$tmp/batch.1.out" "$tmp/batch.$r.out" || bench_fail "samples/mlr.sap: runs differ"
done

echo
echo "### mlr-gemm: a mini-batch per body run (gemm) against an image per run (gemv, ger)"
echo
bench_machine
echo "- data: Fashion-MNIST, $ntrain training and $ntest test images; $epochs epochs, 1 rank x 1 thread"
echo "- batch: sapc -O3 samples/mlr.sap (its defaults: batch 100, lr 0.005, sum of the gradients)"
echo "- image: sapc -O3 bench/mlr-image.sap (its defaults: batch 100, lr 0.02, a step per image)"
echo "- compute_s: the sync for loop's, from --stats, all epochs, median of $reps runs"
echo
echo "| program | compute_s | per epoch, s | first epoch at $(awk -v t="$target" 'BEGIN { printf "%.1f", t * 100 }') % | accuracy after $epochs |"
echo "|---|--:|--:|--:|--:|"
for p in batch image; do
	c=$(bench_median <"$tmp/$p.compute")
	first=$(awk -v t="$target" '$1 == "epoch" && $4 >= t { print $2 + 1; f = 1; exit }
		END { if (!f) print "-" }' "$tmp/$p.1.out")
	last=$(awk '$1 == "epoch" { a = $4 } END { printf "%.2f %%", a * 100 }' "$tmp/$p.1.out")
	echo "| $p | $c | $(awk -v c="$c" -v e="$epochs" 'BEGIN { printf "%.4f", c / e }') | $first | $last |"
	eval "c_$p=\$c"
done
echo
echo "image / batch compute time: $(awk -v a="$c_image" -v b="$c_batch" 'BEGIN { printf "%.2f", a / b }')"
