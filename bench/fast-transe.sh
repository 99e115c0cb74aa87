#!/bin/sh
# fast-transe.sh: samples/transe.sap against Fast-TransE (the transE
# program of https://github.com/thunlp/Fast-TransX) on the WN18-style
# triples tools/wordnet-triples derives from WordNet: the wall time each
# needs to reach the same filtered Hits@10, and the time of an epoch.
#
#   FASTTRANSX_DIR=/path/to/Fast-TransX bench/fast-transe.sh
#   BENCH_QUICK=1 FASTTRANSX_DIR=... bench/fast-transe.sh    # smoke test
#
# The peer.  Fetch Fast-TransX into a folder outside this repository and
# say where with FASTTRANSX_DIR; without it the script prints "skipped:
# set FASTTRANSX_DIR" and stops.  Its transE/transE.cpp has no return
# statement at the end of train(), which g++ -O3 compiles into a thread
# that never ends; the script copies the file into its temporary folder,
# adds `return NULL;` there, and builds it as the project's README says
# (g++ -O3 -march=native -pthread).
#
# Settings, the same for both: D = 20, L1 distance, learning rate 0.01,
# margin 2, two threads (Fast-TransE -thread 2; SAP as 1 rank x 2 threads
# and 2 ranks x 1 thread).  The sample runs with --ball=1, which keeps the
# rows in the unit ball as Fast-TransE does, and is built with sapc -O3
# -march=native, as the peer is built.  What stays different is each
# program's own: Fast-TransE draws each epoch's triples at random with
# replacement (Hogwild, on shared rows, so no two runs are alike), draws
# a corrupting entity that makes no training triple, and starts from a
# normal distribution; the sample visits each triple once an epoch in a
# conflict-free order, corrupts uniformly and starts uniform.
#
# Quality: bench/transe-eval.sap scores both programs' embeddings by the
# rule samples/transe.sap reports with (filtered mean rank and Hits@10,
# L1, on all test triples).  Time: the wall time of the whole run,
# start-up, loading and saving included (Fast-TransE -epochs N; SAP
# --epochs=N --neval=0), at each epoch count N of BENCH_EPOCHS, REPS
# interleaved runs of each program at each N, every run scored.
#
# The target is Fast-TransE's median Hits@10 at BENCH_TARGET_EPOCHS
# (default 200 epochs, its default run being 1000 epochs of D = 100).
# Each program's time to it is its median time at the fewest epochs of
# BENCH_EPOCHS whose median Hits@10 reaches it; the ratio to Fast-TransE
# is the median of the pairs' ratios (run k of SAP over run k of the peer)
# at those epochs.  s/epoch: (T(N) - T(0)) / N at the largest N.
#
# Environment: see bench/common.subr; also FASTTRANSX_DIR, BENCH_EPOCHS
# (default "50 100 150 175 200 225 250 300 400"), BENCH_TARGET_EPOCHS,
# BENCH_LAYOUTS (default "1x2 2x1"), TRANSE_DATA (default
# $top_builddir/samples/data/wn18, derived if missing).
set -eu

# shellcheck shell=sh source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init fast-transe

if test -z "${FASTTRANSX_DIR:-}"; then
	echo "skipped: set FASTTRANSX_DIR to a checkout of https://github.com/thunlp/Fast-TransX"
	exit 0
fi
src=$FASTTRANSX_DIR/transE/transE.cpp
test -f "$src" || bench_fail "FASTTRANSX_DIR=$FASTTRANSX_DIR: no transE/transE.cpp there"
command -v g++ >/dev/null || bench_fail "no g++ to build Fast-TransE"

if test "$quick" = 1; then
	epochs_list=${BENCH_EPOCHS:-2 4}
	target_epochs=${BENCH_TARGET_EPOCHS:-4}
else
	epochs_list=${BENCH_EPOCHS:-50 100 150 175 200 225 250 300 400}
	target_epochs=${BENCH_TARGET_EPOCHS:-200}
fi
layouts=${BENCH_LAYOUTS:-1x2 2x1}
for n in $epochs_list $target_epochs; do
	case $n in
	'' | *[!0-9]* | 0) bench_fail "BENCH_EPOCHS / BENCH_TARGET_EPOCHS: $n: expected a count >= 1" ;;
	esac
done
case " $epochs_list " in
*" $target_epochs "*) ;;
*) bench_fail "BENCH_TARGET_EPOCHS=$target_epochs is not in BENCH_EPOCHS ($epochs_list)" ;;
esac
for l in $layouts; do
	case $l in
	[1-9]*x[1-9]*) ;;
	*) bench_fail "BENCH_LAYOUTS: $l: expected RANKSxTHREADS, as 1x2" ;;
	esac
done
lr=0.01 margin=2

# ---- Data and builds ----

data=${TRANSE_DATA:-$top_builddir/samples/data/wn18}
if test ! -s "$data/train.txt"; then
	mkdir -p "$data" || bench_fail "cannot create $data"
	"$top_builddir/tools/wordnet-triples" --out="$data" --quiet ||
		bench_fail "could not derive the data (is wordnet-base installed?)"
fi
# Fast-TransE reads the counts from the first lines of entity2id.txt and
# relation2id.txt, and train2id.txt as a count and then "head tail
# relation" lines.
ne=$(cat "$data/train.txt" "$data/valid.txt" "$data/test.txt" |
	awk '$1 + 1 > m { m = $1 + 1 } $3 + 1 > m { m = $3 + 1 } END { print m + 0 }')
nr=$(cat "$data/train.txt" "$data/valid.txt" "$data/test.txt" |
	awk '$2 + 1 > m { m = $2 + 1 } END { print m + 0 }')
ntrain=$(grep -c . "$data/train.txt")
ntest=$(grep -c . "$data/test.txt")
mkdir -p "$tmp/in" "$tmp/out"
echo "$ne" >"$tmp/in/entity2id.txt"
echo "$nr" >"$tmp/in/relation2id.txt"
{ echo "$ntrain"; awk '{ print $1, $3, $2 }' "$data/train.txt"; } >"$tmp/in/train2id.txt"

awk '/^void\* train\(void \*con\) \{/ { f = 1 }
	f && /^}/ { print "\treturn NULL;"; f = 0; n++ }
	{ print }
	END { exit n != 1 }' "$src" >"$tmp/transE.cpp" ||
	bench_fail "could not find the end of train() in $src to add its return"
g++ -O3 -march=native -pthread -o "$tmp/fast-transe" "$tmp/transE.cpp" 2>"$tmp/build.log" ||
	{ cat "$tmp/build.log" >&2; bench_fail "Fast-TransE did not build"; }
peer_commit=$(git -C "$FASTTRANSX_DIR" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

"$SAPC" -O3 -march=native -o "$tmp/transe" "$top_srcdir/samples/transe.sap" ||
	bench_fail "sapc could not compile samples/transe.sap"
"$SAPC" -O3 -march=native -o "$tmp/eval" "$top_srcdir/bench/transe-eval.sap" ||
	bench_fail "sapc could not compile bench/transe-eval.sap"

# ---- Runs ----

splits="--train=$data/train.txt --valid=$data/valid.txt --test=$data/test.txt"

# wall CMD...: the seconds of one run of CMD, its output in $tmp/run.out.
wall() {
	t0=$(bench_now)
	"$@" >"$tmp/run.out" 2>"$tmp/run.err" ||
		{ cat "$tmp/run.out" "$tmp/run.err" >&2; bench_fail "failed: $*"; }
	t1=$(bench_now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}

# score E R: "mean_rank hits@10" of embeddings E and R.
score() {
	# shellcheck disable=SC2086  # $splits is several options
	bench_mpirun "$tmp/eval" --threads=2 $splits --entities="$1" --relations="$2" \
		>"$tmp/eval.out" 2>&1 || { cat "$tmp/eval.out" >&2; bench_fail "scoring failed"; }
	awk '/^test / { print $4, $6 }' "$tmp/eval.out"
}

# run PROG N: one run of program PROG (fast, or a layout such as 1x2) for
# N epochs; prints "seconds" and leaves the embeddings in $tmp/E, $tmp/R.
run() {
	case $1 in
	fast)
		wall "$tmp/fast-transe" -size 20 -input "$tmp/in/" -output "$tmp/out/" \
			-thread 2 -epochs "$2" -alpha $lr -margin $margin
		cp "$tmp/out/entity2vec.vec" "$tmp/E"
		cp "$tmp/out/relation2vec.vec" "$tmp/R" ;;
	*)
		p=${1%x*} t=${1#*x}
		# shellcheck disable=SC2086  # $MPIEXEC, $mpi_bind, $splits
		wall $MPIEXEC -n "$p" $mpi_bind "$tmp/transe" --threads="$t" $splits \
			--epochs="$2" --neval=0 --ball=1 --lr=$lr --margin=$margin \
			--out="$tmp/E" --rout="$tmp/R" ;;
	esac
}

# "prog epochs rep seconds mean_rank hits"
: >"$tmp/raw"
load0=$(bench_load)
for rep in $(seq "$reps"); do
	for n in 0 $epochs_list; do
		for prog in fast $layouts; do
			bench_quiet
			s=$(run "$prog" "$n")
			if test "$n" = 0; then
				q='- -'
			else
				q=$(score "$tmp/E" "$tmp/R")
			fi
			echo "$prog $n $rep $s $q" >>"$tmp/raw"
		done
	done
done
load1=$(bench_load)
cp "$tmp/raw" "$BENCH_DATA/fast-transe-last.raw" 2>/dev/null || true

# ---- Report ----

med() { # PROG EPOCHS FIELD: the median of FIELD over the reps
	awk -v p="$1" -v n="$2" -v f="$3" '$1 == p && $2 == n { print $f }' "$tmp/raw" | bench_median
}
target=$(med fast "$target_epochs" 6)
last=$(echo "$epochs_list" | awk '{ print $NF }')

echo "### TransE against Fast-TransE: $ne entities, $nr relations, $ntrain train triples; D = 20, L1, lr $lr, margin $margin; median of $reps runs"
echo
bench_machine
echo "- peer compiler: $(g++ --version | head -n 1)"
echo "- Fast-TransE: $FASTTRANSX_DIR at $peer_commit, transE/transE.cpp with \`return NULL;\` added to train(); g++ -O3 -march=native -pthread; -size 20 -thread 2 -epochs N -alpha $lr -margin $margin"
echo "- SAP: sapc -O3 -march=native samples/transe.sap; $MPIEXEC -n P${mpi_bind:+ $mpi_bind} PROG --threads=T --epochs=N --neval=0 --ball=1 --lr=$lr --margin=$margin"
echo "- quality: bench/transe-eval.sap on all $ntest test triples (filtered); time: whole run, wall clock"
echo "- target: Fast-TransE's median Hits@10 after $target_epochs epochs, $target"
echo "- load average before / after: $load0 / $load1"
echo
echo "| program | layout | epochs to target | s to target [min-max] | peer s / s | s/epoch | mean rank | Hits@10 |"
echo "|--|--|--:|--|--:|--:|--:|--:|"
peer_n=
for prog in fast $layouts; do
	reach=
	for n in $epochs_list; do
		h=$(med "$prog" "$n" 6)
		if awk -v h="$h" -v t="$target" 'BEGIN { exit !(h >= t) }'; then
			reach=$n
			break
		fi
	done
	t0=$(med "$prog" 0 4)
	tl=$(med "$prog" "$last" 4)
	per=$(awk -v a="$t0" -v b="$tl" -v n="$last" 'BEGIN { printf "%.4f", (b - a) / n }')
	name=transe.sap layout=$prog
	test "$prog" = fast && name=Fast-TransE layout="1 process x 2 threads"
	if test -z "$reach"; then
		echo "| $name | $layout | not reached by $last | - | - | $per | - | - |"
		continue
	fi
	test "$prog" = fast && peer_n=$reach
	s=$(med "$prog" "$reach" 4)
	range=$(awk -v p="$prog" -v n="$reach" '$1 == p && $2 == n { print $4 }' "$tmp/raw" |
		sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }')
	ratio=$(awk -v p="$prog" -v n="$reach" -v pn="$peer_n" '
		$1 == "fast" && $2 == pn { f[$3] = $4 }
		$1 == p && $2 == n { s[$3] = $4 }
		END { for (r in s) if (r in f && s[r] > 0) print f[r] / s[r] }' "$tmp/raw" |
		bench_median)
	printf '| %s | %s | %s | %.3f [%s] | %.2fx | %s | %s | %s |\n' "$name" "$layout" "$reach" \
		"$s" "$range" "$ratio" "$per" "$(med "$prog" "$reach" 5)" "$(med "$prog" "$reach" 6)"
done
echo
echo "Hits@10 by epochs (median of the runs):"
echo
printf '| epochs |'
for prog in fast $layouts; do printf ' %s |' "$prog"; done
echo
printf '|--:|'
for prog in fast $layouts; do printf -- '--:|'; done
echo
for n in $epochs_list; do
	printf '| %s |' "$n"
	for prog in fast $layouts; do printf ' %s |' "$(med "$prog" "$n" 6)"; done
	echo
done
echo
echo "(every run: $BENCH_DATA/fast-transe-last.raw: program, epochs, rep, seconds, mean rank, Hits@10)"
