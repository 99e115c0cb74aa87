#!/bin/sh
# samples/word2vec.sap on a corpus with planted structure, made here: 4
# topics of 25 words, each sentence 6-15 words of one topic with "the"
# and "of" between.  3 epochs of hybrid mini-batches:
#  - on 1, 2 and 3 ranks and on 1 rank x 2 threads it counts the
#    vocabulary, sentences and words as awk does, the 5 nearest
#    neighbours of a word are words of its topic, and same-topic pairs
#    score far above random pairs (centred margin above 0.5; it is
#    about 1.1);
#  - with one thread a rank it is deterministic: two runs on 1 rank, and
#    two on 2, write the same vectors bit for bit;
#  - the vectors file has a "WORD X1 ... X100" line per vocabulary word.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

# MINSTD in awk's doubles is exact, so mawk and gawk make one corpus.
awk 'function rnd(n) { x = (x * 16807) % 2147483647; return int(x / 2147483647 * n) }
BEGIN {
	x = 1
	for (s = 0; s < 2000; s++) {
		t = rnd(4); n = 6 + rnd(10); line = ""
		for (i = 0; i < n; i++) {
			w = "t" t "w" rnd(25)
			if (rnd(4) == 0)
				w = rnd(2) ? "the" : "of"
			line = line (i ? " " : "") w
		}
		print line
	}
}' >"$tmp/corpus.txt" || fail "making the corpus"
awk '{ for (i = 1; i <= NF; i++) c[$i]++ }
	END { for (w in c) if (c[w] >= 5) { v++; t += c[w] }
		printf "vocabulary %d\nsentences %d\ntrain_words %d\n", v, NR, t }' \
	"$tmp/corpus.txt" >"$tmp/counts" || fail "counting"
# Pairs of one topic, for the synonym check.
for t in 0 1 2 3; do
	for i in 0 1 2 3 4; do
		echo "t${t}w$i t${t}w$((i + 5))"
	done
done >"$tmp/pairs.txt"

"$SAPC" -O2 -o "$tmp/w2v" "$top_srcdir/samples/word2vec.sap" || fail "sapc word2vec.sap"

for run in 1x1 1x1b 2x1 2x1b 3x1 1x2; do
	np=${run%%x*} nt=${run#*x}
	nt=${nt%b}
	$MPIEXEC --bind-to none -n "$np" "$tmp/w2v" --threads="$nt" --data="$tmp/corpus.txt" \
		--pairs="$tmp/pairs.txt" --epochs=3 --batch=200 --probe="t0w1 t1w1 t2w1 t3w1" \
		--out="$tmp/vec.$run" >"$tmp/out.$run" 2>"$tmp/err.$run" ||
		{ cat "$tmp/out.$run" "$tmp/err.$run"; fail "$run: run"; }
	head -n 3 "$tmp/out.$run" | cmp -s - "$tmp/counts" ||
		{ cat "$tmp/counts" "$tmp/out.$run"; fail "$run: counts differ from awk's"; }
	for t in 0 1 2 3; do
		line=$(grep "^neighbours t${t}w1:" "$tmp/out.$run") ||
			{ cat "$tmp/out.$run"; fail "$run: no neighbours of t${t}w1"; }
		echo "$line" | awk -v t="t${t}w" '{ for (i = 3; i <= 11; i += 2) if (index($i, t) != 1) bad = 1;
			if (NF != 12) bad = 1 } END { exit bad }' ||
			{ cat "$tmp/out.$run"; fail "$run: neighbours of t${t}w1 from other topics"; }
	done
	grep -qx 'synonym_pairs 20' "$tmp/out.$run" || { cat "$tmp/out.$run"; fail "$run: pairs"; }
	awk '$1 == "centred_margin" { ok = $2 > 0.5 } END { exit !ok }' "$tmp/out.$run" ||
		{ cat "$tmp/out.$run"; fail "$run: same-topic pairs not far above random ones"; }
	v=$(sed -n 's/^vocabulary //p' "$tmp/counts")
	awk -v v="$v" 'NF != 101 { bad = 1 } END { exit bad || NR != v }' "$tmp/vec.$run" ||
		fail "$run: the vectors file is not $v lines of a word and 100 numbers"
done
cmp "$tmp/vec.1x1" "$tmp/vec.1x1b" || fail "two runs on 1 rank differ"
cmp "$tmp/vec.2x1" "$tmp/vec.2x1b" || fail "two runs on 2 ranks differ"
echo "PASS: counts, neighbours, margin on 1-3 ranks and 1 x 2 threads; deterministic vectors"
