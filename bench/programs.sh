#!/bin/sh
# programs.sh: five whole programs against their serial C twins, as a
# user runs them (start-up, loading, the loops, saving), on small data
# (the twin runs a second or so) and on large data (ten seconds or more),
# as 1 rank x 1 thread, 1 x 2 and 2 x 1:
#   kmeans    samples/kmeans.sap    Fashion-MNIST images, k = 10
#   pagerank  samples/pagerank.sap  tools/gengraph graphs
#   lasso     samples/lasso.sap     tools/genlasso, little column overlap
#   sgdmf     samples/sgdmf.sap     tools/genratings, K = 16
#   mlr       samples/mlr.sap       Fashion-MNIST, softmax regression
# Each round runs the twin and the three layouts in turn (interleaved);
# reported: the median wall time of REPS rounds and the median over
# rounds of the twin's time over the layout's in the same round (above 1:
# faster than the twin).  The twins build with gcc -O3
# -ffp-contract=off -fwrapv, as sapc -O3 builds the samples.
#
#   bench/programs.sh                  # both sizes, 3 rounds
#   BENCH_QUICK=1 bench/programs.sh    # small data, 1 round
#
# Environment: see bench/common.subr; BENCH_PROGRAMS (default: all five),
# BENCH_SIZES (default: "small large").
set -eu

# shellcheck shell=sh source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init programs

programs=${BENCH_PROGRAMS:-kmeans pagerank lasso sgdmf mlr}
sizes=${BENCH_SIZES:-small large}
test "$quick" = 1 && sizes=small && reps=1
for z in $sizes; do
	case $z in
	small | large) ;;
	*) bench_fail "BENCH_SIZES: $z: expected small or large" ;;
	esac
done
fashion=/usr/share/datasets/fashion-mnist
test -r "$fashion/train-images-idx3-ubyte.gz" ||
	bench_fail "no $fashion (Debian's dataset-fashion-mnist; ./bootstrap installs it)"
openblas_cflags=$(pkg-config --cflags openblas 2>/dev/null || true)
openblas_libs=$(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
tools=$top_builddir/tools
mkdir -p "$BENCH_DATA"
D=$BENCH_DATA

# ---- data, made once into the cache ----
fashion_txt() { # N FILE: the first N training images (N = 0: all)
	test -s "$2" && return 0
	lim=
	test "$1" != 0 && lim=--limit=$1
	# shellcheck disable=SC2086
	"$tools/idx2txt" $lim "$fashion/train-images-idx3-ubyte.gz" \
		"$fashion/train-labels-idx1-ubyte.gz" >"$2.tmp" && mv "$2.tmp" "$2" ||
		bench_fail "idx2txt"
}
fashion_test() {
	test -s "$2" && return 0
	"$tools/idx2txt" --limit="$1" "$fashion/t10k-images-idx3-ubyte.gz" \
		"$fashion/t10k-labels-idx1-ubyte.gz" >"$2.tmp" && mv "$2.tmp" "$2" ||
		bench_fail "idx2txt"
}
graph() { # N FILE
	test -s "$2" || "$tools/gengraph" --nodes="$1" --degree=8 --out="$2" || bench_fail "gengraph"
}
lasso_data() { # ROWS FEATURES STEM
	test -s "$3.X.txt" && test -s "$3.y.txt" && return 0
	"$tools/genlasso" --rows="$1" --features="$2" --nnz=20 --spread=0.0002 \
		--support=$(($2 / 10)) --noise=1 --seed=1 --out="$3.X.txt" --y-out="$3.y.txt" ||
		bench_fail "genlasso"
}
ratings() { # USERS ITEMS N FILE
	test -s "$4" || "$tools/genratings" --users="$1" --items="$2" --ratings="$3" --rank=10 \
		--noise=0.5 --seed=42 --out="$4" || bench_fail "genratings"
}

# args PROGRAM SIZE: the options of both the sample and its twin.
args() {
	o=--out=$tmp/out.txt
	case $1.$2 in
	kmeans.small)
		fashion_txt 20000 "$D/fashion-20000.txt"
		echo "--data=$D/fashion-20000.txt --k=10 --iters=4 $o" ;;
	kmeans.large)
		fashion_txt 0 "$D/fashion-60000.txt"
		echo "--data=$D/fashion-60000.txt --k=10 --iters=25 $o" ;;
	pagerank.small)
		graph 1000000 "$D/graph-n1000000-d8-l0.5-a0.8-s1.txt"
		echo "--data=$D/graph-n1000000-d8-l0.5-a0.8-s1.txt --iters=20 $o" ;;
	pagerank.large)
		graph 3000000 "$D/graph-n3000000-d8-l0.5-a0.8-s1.txt"
		echo "--data=$D/graph-n3000000-d8-l0.5-a0.8-s1.txt --iters=100 $o" ;;
	lasso.small)
		lasso_data 50000 100000 "$D/programs-lasso-small"
		echo "--data=$D/programs-lasso-small.X.txt --y=$D/programs-lasso-small.y.txt --lambda=0.003 --sweeps=200 $o" ;;
	lasso.large)
		lasso_data 500000 1000000 "$D/programs-lasso-large"
		echo "--data=$D/programs-lasso-large.X.txt --y=$D/programs-lasso-large.y.txt --lambda=0.003 --sweeps=250 $o" ;;
	sgdmf.small)
		ratings 8000 2000 1000000 "$D/programs-ratings-1m.txt"
		echo "--data=$D/programs-ratings-1m.txt --iters=100 $o" ;;
	sgdmf.large)
		ratings 24000 3500 5000000 "$D/programs-ratings-5m.txt"
		echo "--data=$D/programs-ratings-5m.txt --iters=120 $o" ;;
	mlr.small)
		fashion_txt 20000 "$D/fashion-20000.txt"
		fashion_test 5000 "$D/fashion-test-5000.txt"
		echo "--train=$D/fashion-20000.txt --test=$D/fashion-test-5000.txt --epochs=3" ;;
	mlr.large)
		fashion_txt 0 "$D/fashion-60000.txt"
		fashion_test 10000 "$D/fashion-test-10000.txt"
		echo "--train=$D/fashion-60000.txt --test=$D/fashion-test-10000.txt --epochs=120" ;;
	*) bench_fail "no arguments for $1.$2" ;;
	esac
}

# ---- builds ----
for p in $programs; do
	"$SAPC" -O3 -o "$tmp/$p-sap" "$top_srcdir/samples/$p.sap" || bench_fail "sapc $p.sap"
	# shellcheck disable=SC2086
	"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -fwrapv $openblas_cflags \
		-I"$top_srcdir/samples/baselines" -o "$tmp/$p-twin" \
		"$top_srcdir/samples/baselines/$p.c" $openblas_libs -lm || bench_fail "twin $p.c"
done

# ---- runs ----
: >"$tmp/raw"
load0=$(bench_load)
for size in $sizes; do
	for p in $programs; do
		a=$(args "$p" "$size")
		for f in $a; do
			case $f in --data=* | --y=* | --train=* | --test=*) cat "${f#*=}" >/dev/null ;; esac
		done
		for rep in $(seq "$reps"); do
			for l in twin 1x1 1x2 2x1; do
				bench_quiet
				t0=$(bench_now)
				if test $l = twin; then
					# shellcheck disable=SC2086
					"$tmp/$p-twin" $a >"$tmp/o" 2>"$tmp/e" ||
						{ cat "$tmp/e" >&2; bench_fail "$p twin ($size)"; }
				else
					# shellcheck disable=SC2086
					$MPIEXEC -n "${l%%x*}" $mpi_bind "$tmp/$p-sap" $a --threads="${l#*x}" \
						>"$tmp/o" 2>"$tmp/e" || { cat "$tmp/e" >&2; bench_fail "$p $l ($size)"; }
				fi
				t1=$(bench_now)
				echo "$p $size $l $rep $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >>"$tmp/raw"
			done
		done
	done
done
load1=$(bench_load)
cp "$tmp/raw" "$D/programs-last.raw"

# ---- report ----
echo
echo "### programs: whole runs against the serial twins; median of $reps rounds"
echo
bench_machine
echo "- twins: $BENCH_CC -std=c11 -O3 -ffp-contract=off -fwrapv samples/baselines/P.c; SAP: sapc -O3 samples/P.sap, $MPIEXEC -n R ${mpi_bind:+$mpi_bind }PROG --threads=T"
echo "- seconds: wall time of the whole command (start-up, loading, loops, saving); ratio: the median over rounds of the twin's seconds over the layout's in the same round"
echo "- load average before / after: $load0 / $load1"
echo
echo "| program | data | arguments | twin s | 1x1 s | 1x2 s | 2x1 s | 1x1 | 1x2 | 2x1 |"
echo "|--|--|--|--:|--:|--:|--:|--:|--:|--:|"
for size in $sizes; do
	for p in $programs; do
		m() { awk -v p="$p" -v s="$size" -v l="$1" '$1 == p && $2 == s && $3 == l { print $5 }' "$tmp/raw" | bench_median; }
		# The twin's seconds over the layout's in the same round, a median.
		r() { awk -v p="$p" -v s="$size" -v l="$1" '$1 == p && $2 == s && $3 == "twin" { t[$4] = $5 }
			$1 == p && $2 == s && $3 == l { u[$4] = $5 }
			END { for (k in u) if ((k in t) && u[k] > 0) print t[k] / u[k] }' "$tmp/raw" | bench_median; }
		tw=$(m twin) a=$(m 1x1) b=$(m 1x2) c=$(m 2x1)
		ra=$(r 1x1) rb=$(r 1x2) rc=$(r 2x1)
		shown=$(args "$p" "$size" | sed "s|$D/||g; s| --out=[^ ]*||")
		awk -v p="$p" -v s="$size" -v g="$shown" -v t="$tw" -v a="$a" -v b="$b" -v c="$c" \
			-v ra="$ra" -v rb="$rb" -v rc="$rc" 'BEGIN {
			printf "| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2fx | %.2fx |\n",
				p, s, g, t, a, b, c, ra, rb, rc }'
	done
done
echo
echo "(every run: $D/programs-last.raw)"
