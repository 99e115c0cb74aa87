#!/bin/sh
# tools/genlda, the LDA corpus tool, and brown2txt -d, which feeds it the
# Brown corpus one document a line.
#  - planted: the same options give the same bytes, another seed other
#    ones; documents come in order, each with L/2 to 3L/2 tokens, word ids
#    below V; the planted topics show: with --own=1 and a tiny --alpha
#    almost every document draws its words from one topic's V/K words,
#    with --own=0 none does.
#  - text: a hand-written text gives exactly the expected tokens and
#    vocabulary (lowercased, stop words, words with no letter and rare
#    words dropped, ids by first occurrence, empty documents skipped).
#  - brown2txt -d: one line per corpus file.
#  - bad options fail with status 2 and say why.
#
# Run by `make check` with top_srcdir and top_builddir set.  Exit status:
# 0 pass, 1 fail.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
gen=$top_builddir/tools/genlda
b2t=$top_builddir/tools/brown2txt
for t in "$gen" "$b2t"; do
	test -x "$t" || fail "no $t"
done

make_tmp

### Planted topics

set -- --docs=150 --vocab=300 --topics=12 --length=40 --seed=9
"$gen" "$@" --out="$tmp/a.txt" 2>/dev/null || fail "genlda: exit status $?"
"$gen" "$@" >"$tmp/b.txt" 2>/dev/null || fail "genlda to standard output"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "two runs with the same options differ"
"$gen" --docs=150 --vocab=300 --topics=12 --length=40 --seed=10 >"$tmp/c.txt" 2>/dev/null
cmp -s "$tmp/a.txt" "$tmp/c.txt" && fail "--seed=10 gives the same corpus as --seed=9"
head -n 1 "$tmp/a.txt" | grep -q '^# genlda --docs=150 --vocab=300 --topics=12 --length=40 ' ||
	fail "no header line naming the options"
awk '/^#/ { next }
	NF != 2 { print "line " NR ": " NF " fields"; bad = 1; exit }
	$1 < last || $1 > last + 1 { print "line " NR ": document " $1 " after " last; bad = 1; exit }
	$2 < 0 || $2 >= 300 { print "line " NR ": word " $2; bad = 1; exit }
	{ last = $1; n[$1]++ }
	END {
		if (bad) exit 1
		if (last != 149) { print "last document " last ", want 149"; exit 1 }
		for (d = 0; d < 150; d++)
			if (n[d] < 20 || n[d] > 60) { print "document " d ": " n[d] " tokens"; exit 1 }
	}' "$tmp/a.txt" || fail "the planted corpus breaks its format"

# Documents with at most V/K = 10 distinct words: one topic's own words.
one_topic() {
	"$gen" --docs=200 --vocab=100 --topics=10 --length=200 --alpha=0.001 \
		--own="$1" --seed=4 2>/dev/null |
		awk '!/^#/ { if (!seen[$1 " " $2]++) n[$1]++ }
			END { for (d in n) c += n[d] <= 10; print c + 0 }'
}
c=$(one_topic 1)
test "$c" -ge 180 || fail "--own=1: $c of 200 documents keep to one topic's words, want >= 180"
c=$(one_topic 0)
test "$c" = 0 || fail "--own=0: $c documents keep to 10 words, want 0"

### Text

cat >"$tmp/text.txt" <<'EOF'
The Cat sat on the mat, 1961 --

A cat and a dog ; the dog ran
It is THE
cat dog mat cat
EOF
cat >"$tmp/want" <<'EOF'
# genlda --text=TEXT --min-count=2
# one token a line: doc word
0 0
1 0
1 1
1 1
2 0
2 1
2 0
EOF
cat >"$tmp/want-vocab" <<'EOF'
0 cat 4
1 dog 3
EOF
"$gen" --text="$tmp/text.txt" --min-count=2 --vocab-out="$tmp/vocab" 2>"$tmp/err" |
	sed "s|--text=$tmp/text.txt|--text=TEXT|" >"$tmp/out" || fail "genlda --text"
cmp -s "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; fail "genlda --text: tokens"; }
cmp -s "$tmp/want-vocab" "$tmp/vocab" ||
	{ diff "$tmp/want-vocab" "$tmp/vocab"; fail "genlda --text: --vocab-out"; }
grep -q '3 documents, 2 words, 7 tokens' "$tmp/err" || { cat "$tmp/err"; fail "genlda --text: summary"; }

### brown2txt -d

mkdir "$tmp/corpus"
printf '\tThe/at jury/nn said/vbd ./.\n\n\tIt/pps ran/vbd ./.\n' >"$tmp/corpus/ca01"
# shellcheck disable=SC2016  # the backquotes are Brown's opening quote
printf '\t``/`` ./.\n' >"$tmp/corpus/ca02"
printf '\tA/at dog/nn\n\n\n\tbarked/vbd\n' >"$tmp/corpus/cb01"
printf '%s\n' 'the jury said it ran' 'a dog barked' >"$tmp/want"
"$b2t" -d -o "$tmp/out" "$tmp/corpus" || fail "brown2txt -d: exit status $?"
cmp -s "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; fail "brown2txt -d"; }

### Errors

# err WANT ARGS...: genlda ARGS fails with status 2 and a message matching WANT.
err() {
	want=$1
	shift
	"$gen" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	test "$rc" = 2 || fail "genlda $*: exit status $rc, want 2"
	grep -q -e "$want" "$tmp/err" || { cat "$tmp/err"; fail "genlda $*: no message '$want'"; }
}
err "more than --vocab" --topics=30 --vocab=20
err "takes no option of the planted corpus" --text="$tmp/text.txt" --docs=3
err "go with --text" --min-count=3
err "expected a number in" --own=2
err "unknown option" --bogus=1
"$gen" --text="$tmp/missing" >/dev/null 2>"$tmp/err" && fail "genlda read a missing file"
grep -q 'missing: No such file' "$tmp/err" || { cat "$tmp/err"; fail "no message for a missing file"; }

# A FIFO (or /dev/null) as --out is written in place, not replaced by a
# renamed temporary; the same code writes every generator's files.
mkfifo "$tmp/fifo" || fail "mkfifo"
timeout 60 cat "$tmp/fifo" >"$tmp/fifo.out" &
"$gen" --docs=20 --out="$tmp/fifo" 2>/dev/null || fail "genlda --out=FIFO"
wait $! || fail "the FIFO's reader failed"
test -p "$tmp/fifo" || fail "genlda replaced the FIFO"
"$gen" --docs=20 --out="$tmp/plain.txt" 2>/dev/null || fail "genlda --docs=20"
cmp -s "$tmp/fifo.out" "$tmp/plain.txt" || fail "the FIFO got other lines"

echo "PASS: genlda and brown2txt -d"
