#!/bin/sh
# What load would not read back, save refuses, and what is no number,
# to_int / to_long / to_double refuse; never a file that loads as
# something else, never a silent 0.  Each mode of one program holds one
# bad value; on 1, 2 and 3 ranks it must exit non-zero with the exact
# message naming the .sap line (and for save the dvector, element and
# field), leave the old output file as it was and no temporary behind.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/t.sap" <<'SAP'
// One bad value per mode: save must refuse what load would not read back,
// and to_int / to_long / to_double / split must refuse what is no number.
struct T { int id; string s; }
struct PS { string k; int v; }
struct R { int id; list<PS> g; }
param string mode = "blank";
param string out = "out.txt";
param string text = "";
dvector<T> D(3);
for (long i = 0; i < 3; i++)
    D[i].s = "w";
dvector<list<int>> E(2);
push(E[0], 1);
dvector<list<string>> H(2);
push(H[0], "a");
push(H[1], "#x");
dvector<string> S(2);
S[0] = "a line";
S[1] = text;
dvector<R> G(1);
PS p;
p.k = "a:b";
push(G[0].g, p);
if (mode == "blank") {
    D[1].s = "a b";
    save(D, out);
}
if (mode == "empty") {
    D[2].s = "";
    save(D, out);
}
if (mode == "hash")
    save(H, out);
if (mode == "colon")
    save(G, out);
if (mode == "emptylist")
    save(E, out);
if (mode == "line")
    save(S, out);
dvector<double> x(4);
async for (long i = 0; i < len(x); i++) {
    if (mode == "to_double" && i == 2)
        x[i] = to_double(text);
    if (mode == "to_int" && i == 3)
        x[i] = to_int(text);
    if (mode == "to_long")
        x[i] = to_long(text);
    if (mode == "split")
        x[i] = len(split("a", text));
}
print("done %s\n", mode);
SAP
(cd "$tmp" && "$SAPC" -O1 -Wall -Wextra -Werror -o t t.sap) || fail "sapc t.sap"

# mode|--text|the message, after "t.sap:LINE:COL: error: "
cases='blank||26:5: error: cannot save '"'D'"' to '"'out.txt'"': element 1 would not load back: field '"'s'"' is "a b", and a string field cannot hold a blank
empty||30:5: error: cannot save '"'D'"' to '"'out.txt'"': element 2 would not load back: field '"'s'"' is the empty string
hash||33:5: error: cannot save '"'H'"' to '"'out.txt'"': element 1 would not load back: field '"'element'"' is "#x" at the start of the line, and a line starting with '"'#'"' is a comment
colon||35:5: error: cannot save '"'G'"' to '"'out.txt'"': element 0 would not load back: field '"'g.k'"' is "a:b", and a string in an element of a list of structs or arrays cannot hold '"':'"'
emptylist||37:5: error: cannot save '"'E'"' to '"'out.txt'"': element 1 would not load back: it is an empty list, which writes an empty line, and empty lines are skipped; a struct with a field before the list keeps its place
line||39:5: error: cannot save '"'S'"' to '"'out.txt'"': element 1 would not load back: it is the empty string, and empty lines are skipped
line| x|39:5: error: cannot save '"'S'"' to '"'out.txt'"': element 1 would not load back: " x" starts or ends with a blank, and a line is read without them
line|#c|39:5: error: cannot save '"'S'"' to '"'out.txt'"': element 1 would not load back: "#c" starts with '"'#'"', and a line starting with '"'#'"' is a comment
to_double|0.5x|43:16: error: to_double: "0.5x" is not a double
to_double|1e400|43:16: error: to_double: "1e400" is out of range for double
to_double|1e-400|43:16: error: to_double: "1e-400" is too small for double: it would be 0
to_double| 1|43:16: error: to_double: " 1" is not a double
to_double|nan|43:16: error: to_double: "nan" is not a finite double (nan and inf are not accepted)
to_int|3000000000|45:16: error: to_int: "3000000000" is out of range for int
to_int|1.5|45:16: error: to_int: "1.5" is not an int
to_long||47:16: error: to_long: "" is not a long
split||49:20: error: split: the separator is the empty string'

echo "$cases" | while IFS='|' read -r mode text want; do
	for np in 1 2 3; do
		echo old >"$tmp/out.txt"
		(cd "$tmp" && $MPIEXEC -n $np ./t --mode="$mode" --text="$text") </dev/null >"$tmp/out" 2>"$tmp/err"
		rc=$?
		test $rc = 0 && fail "$mode '$text' on $np ranks: exit status 0"
		grep -qF "t.sap:$want" "$tmp/err" ||
			{ cat "$tmp/err"; fail "$mode '$text' on $np ranks: no 't.sap:$want'"; }
		test "$(cat "$tmp/out.txt")" = old || fail "$mode '$text' on $np ranks: old file changed"
		if ls -A "$tmp" | grep -q 'out\.txt.*sap-tmp'; then
			fail "$mode '$text' on $np ranks: a temporary of out.txt left behind"
		fi
		if grep -q done "$tmp/out"; then
			fail "$mode '$text' on $np ranks: went on after the error"
		fi
	done
done || exit 1

# A line with a tab inside, a string with a ':' outside list elements and
# a '#' after the first field are fine, and what load gives back.
(cd "$tmp" && $MPIEXEC -n 2 ./t --mode=line --text="a	b:c #d") >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "line 'a<TAB>b:c #d': exit status $?"; }
printf 'a line\na\tb:c #d\n' | cmp - "$tmp/out.txt" || fail "line 'a<TAB>b:c #d': wrong file"
exit 0
