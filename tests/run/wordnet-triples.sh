#!/bin/sh
# tools/wordnet-triples on a tiny hand-made WordNet database, so that it
# runs without the wordnet-base package: which pointers become triples,
# the degree filter, --limit, the split's guarantees, determinism, and
# errors that name the file and line.
#
# Run by `make check` with top_srcdir and top_builddir set.  Exit status:
# 0 pass, 1 fail.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
tool=$top_builddir/tools/wordnet-triples
test -x "$tool" || fail "no $tool"

make_tmp

# wndb(5) lines.  Besides plain semantic pointers: lexical '+' pointers
# (lifted to synsets), one duplicated, one within a synset (dropped), an
# antonym '!' (not a WN18 relation), verb frames, an adjective satellite
# with a marker, and the indented licence lines that start each file.
db=$tmp/wn
mkdir "$db" "$tmp/out"
cat >"$db/data.noun" <<'EOF'
  1 This licence line is skipped.
00000001 03 n 01 thing 0 003 ~ 00000002 n 0000 ~ 00000003 n 0000 + 00000010 v 0101 | a thing
00000002 05 n 02 dog 0 domestic_dog 0 003 @ 00000001 n 0000 %p 00000004 n 0000 ! 00000003 n 0101 | a dog
00000003 05 n 01 cat 0 002 @ 00000001 n 0000 + 00000010 v 0101 | a cat
00000004 08 n 01 tail 0 002 #p 00000002 n 0000 + 00000004 n 0102 | a tail
EOF
cat >"$db/data.verb" <<'EOF'
  1 licence
00000010 32 v 01 bark 0 002 + 00000001 n 0101 + 00000001 n 0101 01 + 02 00 | make a noise
EOF
cat >"$db/data.adj" <<'EOF'
  1 licence
00000020 00 a 01 big 0 001 & 00000021 s 0000 | large
00000021 00 s 01 huge(a) 0 001 & 00000020 a 0000 | very large
EOF
cat >"$db/data.adv" <<'EOF'
  1 licence
00000030 02 r 01 loudly 0 001 ^ 00000031 r 0000 | noisily
00000031 02 r 01 softly 0 001 ^ 00000030 r 0000 | quietly
EOF

"$tool" --help | grep -q '^usage: wordnet-triples' || fail "--help"

run() {
	rm -f "$tmp"/out/*
	"$tool" --wordnet="$db" --out="$tmp/out" "$@" >"$tmp/stats" ||
		fail "wordnet-triples $* failed"
}

# Every triple once, whatever the split.
all_triples() {
	cat "$tmp/out/train.txt" "$tmp/out/valid.txt" "$tmp/out/test.txt" | sort
}

run --min-triples=1 --valid=1 --test=1 --seed=2
cat >"$tmp/expect" <<'EOF'
0 n00000001 thing
1 n00000002 dog
2 n00000003 cat
3 n00000004 tail
4 v00000010 bark
5 a00000020 big
6 a00000021 huge
7 r00000030 loudly
8 r00000031 softly
EOF
cmp -s "$tmp/expect" "$tmp/out/entities.txt" ||
	fail "entities.txt: $(diff "$tmp/expect" "$tmp/out/entities.txt")"
cat >"$tmp/expect" <<'EOF'
0 hypernym
1 hyponym
2 part_of
3 has_part
4 derivationally_related_form
5 also_see
6 similar_to
EOF
cmp -s "$tmp/expect" "$tmp/out/relations.txt" ||
	fail "relations.txt: $(diff "$tmp/expect" "$tmp/out/relations.txt")"
cat >"$tmp/expect" <<'EOF'
0 1 1
0 1 2
0 4 4
1 0 0
1 3 3
2 0 0
2 4 4
3 2 1
4 4 0
5 6 6
6 6 5
7 5 8
8 5 7
EOF
all_triples >"$tmp/got"
cmp -s "$tmp/expect" "$tmp/got" || fail "triples: $(diff "$tmp/expect" "$tmp/got")"
if test "$(wc -l <"$tmp/out/valid.txt")" != 1 ||
	test "$(wc -l <"$tmp/out/test.txt")" != 1; then
	fail "expected one valid and one test triple"
fi
# Held-out entities and relations all appear in train.
awk 'FNR == NR { e[$1]; e[$3]; r[$2]; next }
	!($1 in e) || !($3 in e) || !($2 in r) { bad = 1 }
	END { exit bad }' "$tmp/out/train.txt" "$tmp/out/valid.txt" "$tmp/out/test.txt" ||
	fail "a valid or test triple has an entity or relation not in train"
if ! grep -q '^entities 9$' "$tmp/stats" || ! grep -q '^train 11$' "$tmp/stats"; then
	fail "statistics: $(cat "$tmp/stats")"
fi

# The same options give the same files.
cp "$tmp/out/train.txt" "$tmp/train-1"
run --min-triples=1 --valid=1 --test=1 --seed=2
cmp -s "$tmp/train-1" "$tmp/out/train.txt" || fail "two runs differ"

# Entities in fewer than 3 triples go, with their triples.
run --min-triples=3 --valid=0 --test=0
printf '%s\n' "0 1 1" "0 1 2" "0 2 3" "1 0 0" "2 0 0" "2 2 3" "3 2 0" >"$tmp/expect"
all_triples >"$tmp/got"
cmp -s "$tmp/expect" "$tmp/got" ||
	fail "--min-triples=3: $(diff "$tmp/expect" "$tmp/got")"

# --limit keeps the best connected entities.
run --min-triples=1 --limit=2 --valid=0 --test=0
printf '%s\n' "0 1 1" "1 0 0" >"$tmp/expect"
all_triples >"$tmp/got"
cmp -s "$tmp/expect" "$tmp/got" || fail "--limit=2: $(diff "$tmp/expect" "$tmp/got")"

# --semantic-only leaves the lexical '+' pointers out.
run --min-triples=1 --valid=0 --test=0 --semantic-only
grep -q derivationally "$tmp/out/relations.txt" && fail "--semantic-only kept '+'"

# Errors: the file and line of the bad input, exit status 1; a bad
# command line, exit status 2.
expect_error() {
	status=$1 message=$2
	shift 2
	"$tool" --out="$tmp/out" "$@" >/dev/null 2>"$tmp/err"
	got=$?
	test $got = "$status" || fail "$*: exit status $got, expected $status"
	grep -qF -- "$message" "$tmp/err" ||
		fail "$*: expected '$message', got: $(cat "$tmp/err")"
}
bad=$tmp/bad
mkdir "$bad"
cp "$db"/data.* "$bad"
sed -i 's/^00000003 05 n 01 cat 0 002 @ 00000001 n 0000 .*/00000003 05 n 01 cat 0 002 @ 00000001 n 0000/' "$bad/data.noun"
expect_error 1 "$bad/data.noun:4: error: line ends where a pointer symbol (field 12) was expected" \
	--wordnet="$bad"
cp "$db/data.noun" "$bad"
sed -i 's/& 00000020 a 0000/\& 0000020 a 0000/' "$bad/data.adj"
expect_error 1 "$bad/data.adj:3: error: field 9: expected a pointer's target offset" \
	--wordnet="$bad"
cp "$db/data.adj" "$bad"
sed -i "s/01 + 02 00 |/01 + 02 |/" "$bad/data.verb"
expect_error 1 "$bad/data.verb:2: error: field 19: expected a frame's word number" \
	--wordnet="$bad"
cp "$db/data.verb" "$bad"
sed -i 's/00000030 r 0000/00000032 r 0000/' "$bad/data.adv"
expect_error 1 "$bad/data.adv:3: error: pointer to r00000032, which no data file defines" \
	--wordnet="$bad"
rm "$bad/data.adv"
expect_error 1 "cannot open $bad/data.adv" --wordnet="$bad"
expect_error 2 "unknown option '--bogus=1'" --bogus=1
expect_error 2 "--test=x: expected an integer" --test=x

echo "PASS: triples, filter, limit, split and errors"
