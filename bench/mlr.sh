#!/bin/sh
# mlr.sh: samples/mlr.sap against liblinear on Fashion-MNIST: the time to
# reach a test accuracy (default 84.2 %), whole runs, load included.
#
#   bench/mlr.sh                  # the full data (60000 + 10000 images)
#   BENCH_QUICK=1 bench/mlr.sh    # smoke test: 6000 + 2000 images, 78 %
#
# liblinear: liblinear-train -s 0 (L2-regularized logistic regression,
# its defaults) on the same pixels in libsvm format (tools/idx2txt
# --format=libsvm), then liblinear-predict; its time is training and
# prediction, and its accuracy is whatever it reaches.  SAP: samples/mlr.sap
# with its defaults, run with --epochs=1, 2, ... until the accuracy after
# the last epoch reaches the target; its time is that whole run.  It runs
# as P ranks x T threads for each layout PxT (1 x 1, 1 x 2, 2 x 1 by
# default), under Open MPI with --bind-to none, or a rank's second thread
# would share its first's core.  Needs Debian's dataset-fashion-mnist and
# liblinear-tools.
#
# Environment: see bench/common.subr; also BENCH_TARGET (an accuracy in
# [0, 1]) and BENCH_LAYOUTS (RANKSxTHREADS, default "1x1 1x2 2x1").

. "$(dirname "$0")/common.subr"
bench_init mlr 1

fashion=/usr/share/datasets/fashion-mnist
test -r "$fashion/train-images-idx3-ubyte.gz" ||
	bench_fail "no $fashion: install dataset-fashion-mnist"
command -v liblinear-train >/dev/null ||
	bench_fail "no liblinear-train: install liblinear-tools"
idx=$top_builddir/tools/idx2txt
test -x "$idx" || bench_fail "no $idx (run make first)"

if test "$quick" = 1; then
	ntrain=6000 ntest=2000 target=${BENCH_TARGET:-0.78}
else
	ntrain=60000 ntest=10000 target=${BENCH_TARGET:-0.842}
fi
layouts=${BENCH_LAYOUTS:-1x1 1x2 2x1}
for l in $layouts; do
	case $l in
	*x*) ;;
	*) bench_fail "BENCH_LAYOUTS: $l: expected RANKSxTHREADS, as 1x2" ;;
	esac
	for n in "${l%%x*}" "${l#*x}"; do
		case $n in
		'' | *[!0-9]* | 0*) bench_fail "BENCH_LAYOUTS: $l: expected RANKSxTHREADS, as 1x2" ;;
		esac
	done
done
mkdir -p "$BENCH_DATA"
stem=$BENCH_DATA/fashion-$ntrain-$ntest
for fmt in sap libsvm; do
	test -s "$stem.train.$fmt" && test -s "$stem.test.$fmt" && continue
	"$idx" --format=$fmt --limit=$ntrain "$fashion/train-images-idx3-ubyte.gz" \
		"$fashion/train-labels-idx1-ubyte.gz" >"$stem.train.$fmt" || bench_fail "idx2txt"
	"$idx" --format=$fmt --limit=$ntest "$fashion/t10k-images-idx3-ubyte.gz" \
		"$fashion/t10k-labels-idx1-ubyte.gz" >"$stem.test.$fmt" || bench_fail "idx2txt"
done
"$SAPC" -O3 -o "$tmp/mlr" "$top_srcdir/samples/mlr.sap" || bench_fail "sapc samples/mlr.sap"

bench_quiet
t0=$(bench_now)
liblinear-train -s 0 -q "$stem.train.libsvm" "$tmp/model" || bench_fail "liblinear-train"
liblinear-predict "$stem.test.libsvm" "$tmp/model" "$tmp/pred" >"$tmp/ll.out" ||
	bench_fail "liblinear-predict"
t1=$(bench_now)
ll_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
ll_acc=$(sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$tmp/ll.out")

rows=
for l in $layouts; do
	np=${l%%x*} nt=${l#*x}
	e=0 got=
	while test "$e" -lt 30; do
		e=$((e + 1))
		bench_quiet
		t0=$(bench_now)
		# shellcheck disable=SC2086
		$MPIEXEC -n "$np" $mpi_bind "$tmp/mlr" --threads="$nt" --epochs=$e \
			--train="$stem.train.sap" --test="$stem.test.sap" >"$tmp/sap.out" ||
			bench_fail "mlr on $np ranks x $nt threads"
		t1=$(bench_now)
		acc=$(sed -n "s/^epoch $((e - 1)) test_accuracy //p" "$tmp/sap.out")
		if awk -v a="$acc" -v t="$target" 'BEGIN { exit !(a >= t) }'; then
			got=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
			break
		fi
	done
	test -n "$got" || bench_fail "mlr on $np ranks x $nt threads: $target not reached in 30 epochs"
	rows="$rows
| samples/mlr.sap | $np x $nt | $e | $(awk -v a="$acc" 'BEGIN { printf "%.2f", a * 100 }') % | $got | $(awk -v l="$ll_s" -v s="$got" 'BEGIN { printf "%.3f", s / l }') |"
done

echo
echo "### mlr: Fashion-MNIST, $ntrain training and $ntest test images, target $(awk -v t="$target" 'BEGIN { printf "%.1f", t * 100 }') % test accuracy"
echo
bench_machine
echo "- liblinear: liblinear-train -s 0 -q TRAIN.libsvm MODEL; liblinear-predict TEST.libsvm MODEL OUT"
echo "- SAP: sapc -O3 samples/mlr.sap; mpiexec -n P $mpi_bind PROG --threads=T --epochs=E (its defaults otherwise), the first E that reaches the target"
echo "- times: whole runs, load included, one run each"
echo
echo "| program | ranks x threads | epochs | test accuracy | s | SAP / liblinear time |"
echo "|---|---|--:|--:|--:|--:|"
echo "| liblinear -s 0 | 1 x 1 | - | $ll_acc % | $ll_s | - |"
echo "$rows" | sed '/^$/d'
