#!/bin/sh
# A list of structs reads its elements' fields separated by blanks or
# joined by ':', and a ':' ends a string field.  So a word holding one,
# as a tagged corpus's "4:30 cd", became two fields and shifted every
# element after it: an error at the end of the line when the count came
# out odd, and silently wrong pairs when a second such word shifted them
# back.  A line whose elements mix the two forms is now an error naming
# both, on 1 and 3 ranks; lines of one form load as before, in a .txt
# and a .csv file.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/tags.sap" <<'SAP'
struct Tok { string w; string tag; }
struct Sent { int id; list<Tok> t; }
param string data = "tags.txt";
dvector<Sent> S = load(data);
for (long i = 0; i < len(S); i++) {
    printf("%d:", S[i].id);
    for (long k = 0; k < len(S[i].t); k++)
        printf(" %s/%s", S[i].t[k].w, S[i].t[k].tag);
    printf("\n");
}
SAP
(cd "$tmp" && $SAPC tags.sap -o tags) || fail "sapc failed on tags.sap"

# Lines of one form, either form, load as written.
printf '1 the at time nn\n2 the:at time:nn\n3 a at\n' >"$tmp/good.txt"
printf '1,the,at,time,nn\n2, the:at, time:nn\n3,a, at\n' >"$tmp/good.csv"
cat >"$tmp/want" <<'OUT'
1: the/at time/nn
2: the/at time/nn
3: a/at
OUT
for f in good.txt good.csv; do
	for np in 1 3; do
		(cd "$tmp" && $MPIEXEC -n $np ./tags --data=$f) >"$tmp/out" 2>"$tmp/err" </dev/null ||
			{ cat "$tmp/err"; fail "$f on $np ranks: the run failed"; }
		diff -u "$tmp/want" "$tmp/out" || fail "$f on $np ranks: wrong pairs"
	done
done

# A word with a ':' in a line of blank-separated pairs; two of them,
# which loaded silently shifted and shifted back; one at the start of
# the line; an element joined in part.
check() {
	printf '1 the at\n2 %s\n3 a at\n' "$1" >"$tmp/bad.txt"
	for np in 1 3; do
		(cd "$tmp" && $MPIEXEC -n $np ./tags --data=bad.txt) >"$tmp/out" 2>"$tmp/err" &&
			fail "'$1' on $np ranks: exit status 0"
		grep -qF "bad.txt:2: error: list 't': $2" "$tmp/err" ||
			{ cat "$tmp/err"; fail "'$1' on $np ranks: not the message wanted"; }
	done
}
check 'at in 4:30 cd p.m. rb' \
	'"4:30" at column 9 joins an element'"'"'s fields by '"'"':'"'"' but "at in" at column 3 separates them by blanks'
check 'at in 4:30 cd x 1:2 y z' '"4:30" at column 9 joins'
check '4:30 cd p.m. rb' '"4:30" at column 3 joins an element'"'"'s fields by '"'"':'"'"' but "cd p.m." at column 8'
check 'the at time:nn' '"time:nn" at column 10 joins'
exit 0
