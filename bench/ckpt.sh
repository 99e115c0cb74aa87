#!/bin/sh
# ckpt.sh: what checkpoints cost (sap-run(1), CHECKPOINTS).  Two programs,
# each run without checkpoints and with one after every epoch, in turn
# (A B A B ...), on 1 rank x 2 threads and 2 ranks x 1 thread:
#   sgdmf     samples/sgdmf.sap with K = 100, on 5 M ratings from
#             tools/genratings (24000 users, 3500 items), ITERS passes
#   word2vec  samples/word2vec.sap on the Brown corpus, EPOCHS epochs
# Reported: the median wall time of each (the whole run, as a user sees
# it), the median of the pairwise ratios with / without, the bytes of the
# largest checkpoint (all ranks' parts) and what --stats says the
# checkpoints took.  The checkpoint directory is in $TMPDIR (default /tmp).
#
#   bench/ckpt.sh                  # full: 3 pairs each
#   BENCH_QUICK=1 bench/ckpt.sh    # smoke test: small data, 1 pair
#
# Environment: see bench/common.subr; BENCH_ITERS (default 10), BENCH_EPOCHS
# (default 3).
set -eu

# shellcheck shell=sh source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init ckpt

D=$BENCH_DATA
mkdir -p "$D"
tools=$top_builddir/tools
iters=${BENCH_ITERS:-10}
epochs=${BENCH_EPOCHS:-3}
if test "$quick" = 1; then
	ratings=$D/ckpt-ratings-200k.txt
	test -s "$ratings" || "$tools/genratings" --users=2000 --items=500 --ratings=200000 \
		--rank=10 --noise=0.5 --seed=42 --out="$ratings" || bench_fail "genratings"
	iters=2 epochs=1
else
	ratings=$D/programs-ratings-5m.txt
	test -s "$ratings" || "$tools/genratings" --users=24000 --items=3500 --ratings=5000000 \
		--rank=10 --noise=0.5 --seed=42 --out="$ratings" || bench_fail "genratings"
fi
corpus=$top_srcdir/samples/data/brown.txt
test -s "$corpus" || bench_fail "no $corpus (make samples/data/brown.txt)"

sed 's/^const int K = 16;$/const int K = 100;/' "$top_srcdir/samples/sgdmf.sap" >"$tmp/sgdmf.sap"
grep -q '^const int K = 100;$' "$tmp/sgdmf.sap" || bench_fail "samples/sgdmf.sap no longer sets K"
"$SAPC" -O3 -o "$tmp/sgdmf" "$tmp/sgdmf.sap" || bench_fail "sapc sgdmf"
"$SAPC" -O3 -o "$tmp/word2vec" "$top_srcdir/samples/word2vec.sap" || bench_fail "sapc word2vec"

# Parallel loops a pass runs: sgdmf one (no test set, no rmse pass),
# word2vec one (its sync for).
args_sgdmf="--data=$ratings --iters=$iters --out=$tmp/W.txt"
args_word2vec="--data=$corpus --epochs=$epochs --out=$tmp/vectors.txt"

# "prog layout rep mode seconds ckpt_bytes ckpt_s count" a line a run.
: >"$tmp/raw"
for rep in $(seq "$reps"); do
	for prog in sgdmf word2vec; do
		eval "args=\$args_$prog"
		for layout in 1x2 2x1; do
			P=${layout%x*} T=${layout#*x}
			for mode in none every-epoch; do
				rm -rf "$tmp/ck"
				extra=
				test "$mode" = none || extra="--checkpoint-dir=$tmp/ck --checkpoint-every=1"
				bench_quiet
				t0=$(bench_now)
				# shellcheck disable=SC2086 # $args, $extra: several words
				$MPIEXEC -n "$P" $mpi_bind "$tmp/$prog" --threads="$T" $args $extra --stats \
					>"$tmp/out" 2>"$tmp/err" </dev/null || {
					cat "$tmp/err" >&2
					bench_fail "$prog $layout $mode failed"
				}
				t1=$(bench_now)
				bytes=0 cs=0 count=0
				if test "$mode" != none; then
					# The largest checkpoint: every rank's largest part.
					bytes=$(sed -n 's/^Checkpoints: .*(the largest \([0-9.]*\) MB).*/\1/p' "$tmp/err" |
						awk '{ s += $1 } END { printf "%.0f", s * 1e6 }')
					line=$(grep '^Checkpoints:' "$tmp/err" | head -n 1)
					count=$(echo "$line" | sed -n 's/^Checkpoints: \([0-9]*\) taken.*/\1/p')
					cs=$(echo "$line" | sed -n 's/.* MB), \([0-9.]*\) s on the run.s path.*/\1/p')
				fi
				echo "$prog $layout $rep $mode $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $bytes ${cs:-0} ${count:-0}" >>"$tmp/raw"
			done
		done
	done
done
cp "$tmp/raw" "$D/ckpt-last.raw"

echo "### ckpt: a checkpoint after every epoch against none, the whole run's wall time"
echo
bench_machine
echo "- sgdmf: samples/sgdmf.sap with K = 100, $(wc -l <"$ratings") ratings, --iters=$iters"
echo "- word2vec: samples/word2vec.sap on $(basename "$corpus"), --epochs=$epochs"
echo "- with: --checkpoint-dir=DIR --checkpoint-every=1 (after every parallel loop: one a pass, and the few before the passes)"
echo "- load average before / after: see the raw file $D/ckpt-last.raw"
echo
echo "| program | ranks x threads | none s | every epoch s | ratio (median of pairs) | checkpoints | largest on disk, MB | on the run's path, s (rank 0) |"
echo "|---|---|--:|--:|--:|--:|--:|--:|"
for prog in sgdmf word2vec; do
	for layout in 1x2 2x1; do
		sel() { awk -v p="$prog" -v l="$layout" -v m="$1" '$1 == p && $2 == l && $4 == m' "$tmp/raw"; }
		none=$(sel none | awk '{ print $5 }' | bench_median)
		with=$(sel every-epoch | awk '{ print $5 }' | bench_median)
		ratio=$(awk -v p="$prog" -v l="$layout" '$1 == p && $2 == l { t[$4 " " $3] = $5 }
			END { for (r = 1; ("none " r) in t; r++) print t["every-epoch " r] / t["none " r] }' \
			"$tmp/raw" | bench_median)
		set -- $(sel every-epoch | tail -n 1)
		printf '| %s | %s | %.2f | %.2f | %.3f | %d | %.1f | %.2f |\n' "$prog" "$layout" \
			"$none" "$with" "$ratio" "$8" "$(awk -v b="$6" 'BEGIN { print b / 1e6 }')" "$7"
	done
done
