#!/bin/sh
# A .csv or .tsv whose first line holds other names than the element
# struct's fields reads as an element when its columns are all strings
# (from,to of an edge list of names): load keeps it, as sap(7) says, and
# warns once when none of its words shows up in the lines after it, where
# a first edge's nodes would.  Two helpers' edge lists gained a bogus
# "src"-"dst" edge with nothing said.
#  - h.csv and h.tsv, a header above 40 edges: one warning, on 1 and 2
#    ranks, and the header loaded (41 elements);
#  - e.csv, the same edges without it: no warning;
#  - s.csv, a header above 3 edges (too few to tell): no warning;
#  - o.csv, a header alone: no elements, and the warning says its line was
#    taken as a header (not that the file is empty);
#  - c.csv, fields separated by ';': the first line is taken as a header,
#    and the error at the second says the separator is not a comma.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp
cd "$tmp" || exit 99

cat >p.sap <<'SAP'
struct Link { string a; string b; }
param string data = "h.csv";
dvector<Link> L = load(data);
print("%d %s-%s\n", len(L), L[0].a, L[0].b);
SAP
"$SAPC" -o p p.sap || fail "sapc p.sap"
awk 'BEGIN { for (i = 0; i < 40; i++) printf "n%d,n%d\n", i % 13, (i * 7) % 11 }' >e.csv
{ echo "from,to"; cat e.csv; } >h.csv
{ echo "from	to"; tr , '\t' <e.csv; } >h.tsv
{ echo "from,to"; head -n 3 e.csv; } >s.csv

for np in 1 2; do
	for f in h.csv h.tsv; do
		$MPIEXEC -n $np ./p --data=$f >out 2>err || { cat err; fail "$f, $np ranks"; }
		test "$(cat out)" = "41 from-to" || fail "$f, $np ranks: printed '$(cat out)'"
		sep=,
		test $f = h.tsv && sep='\x09'
		test "$(cat err)" = "p.sap:3:19: warning: '$f': its first line, \"from${sep}to\", is loaded as an element, but none of its words shows up in the lines below it: if it is a header, name the struct's fields after its columns (they are a,b), and load skips it" ||
			{ cat err; fail "$f, $np ranks: not the one warning"; }
	done
	for f in e.csv s.csv; do
		$MPIEXEC -n $np ./p --data=$f >out 2>err || { cat err; fail "$f, $np ranks"; }
		test ! -s err || { cat err; fail "$f, $np ranks: a warning"; }
	done
	echo "a,b" >o.csv
	$MPIEXEC -n $np ./p --data=o.csv >out 2>err && fail "o.csv, $np ranks: L[0] of no elements"
	grep -qx "p.sap:3:19: warning: 'o.csv' holds no elements: its one line, \"a,b\", was taken as a header of column names" err ||
		{ cat err; fail "o.csv, $np ranks: not the header's warning"; }
	printf 'n1;n2\nn3;n4\n' >c.csv
	$MPIEXEC -n $np ./p --data=c.csv >out 2>err && fail "c.csv, $np ranks: loaded"
	grep -q "c.csv:2: error: field 'b': missing (line has too few fields): the line has no ',' but ';', and the fields of a .csv file are separated by commas" err ||
		{ cat err; fail "c.csv, $np ranks: not the separator's error"; }
done
exit 0
