#!/bin/sh
# The first line of a .csv or .tsv, as load and save see it (helper L):
#  - a first line of data with an error (1,2.5x,3) is skipped as a header,
#    as sap(7) says, and load warns that it holds numbers;
#  - comments before a header (# exported ...) no longer hide it, and the
#    line numbers of errors below count them, on 1, 2 and 3 ranks;
#  - save refuses an element 0 that would load back as the header (its
#    strings are the field names) or without its byte-order mark, where
#    it used to write it and lose it at the next load.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >p.sap <<'SAP'
struct P { long id; double x; int y; }
param string data = "a.csv";
dvector<P> A = load(data);
print("n %d first %d\n", len(A), A[0].id);
SAP
"$SAPC" -o p p.sap || fail "sapc p.sap"
printf '1,2.5x,3\n2,3.5,4\n3,4.5,5\n' >typo.csv
printf '# exported\n\nid,x,y\n1,2,3\n2,3,4\n' >comm.csv
printf '# exported\nid,x,y\n1,2,3\n2,3,4\n3,4,5\nbad,1,2\n' >bad.csv
./p --data=typo.csv >out 2>err || { cat err; fail "typo.csv"; }
test "$(cat out)" = "n 2 first 2" || fail "typo.csv: $(cat out)"
grep -q "warning: 'typo.csv': its first line, \"1,2.5x,3\", does not read as an element and is skipped as a header, but it holds numbers" err ||
	{ cat err; fail "typo.csv: no warning"; }
for np in 1 2 3; do
	$MPIEXEC -n $np ./p --data=comm.csv >out 2>err </dev/null || { cat err; fail "comm.csv, $np ranks"; }
	test "$(cat out)" = "n 2 first 1" || fail "comm.csv, $np ranks: $(cat out)"
	test -s err && { cat err; fail "comm.csv, $np ranks: a message"; }
	$MPIEXEC -n $np ./p --data=bad.csv >out 2>err </dev/null && fail "bad.csv, $np ranks loaded"
	grep -q "bad.csv:6: error: field 'id': expected a long, got \"bad\"" err ||
		{ cat err; fail "bad.csv, $np ranks: not line 6"; }
done

cat >s.sap <<'SAP'
struct Edge { string src; string dst; }
param string out = "e.csv";
param string first = "src";
dvector<Edge> D(3);
D[0].src = first; D[0].dst = "dst";
D[1].src = "a";   D[1].dst = "b";
D[2].src = "b";   D[2].dst = "c";
save(D, out);
dvector<Edge> R = load(out);
print("%d %s\n", len(R), R[0].src);
SAP
"$SAPC" -o s s.sap || fail "sapc s.sap"
for f in e.csv e.tsv; do
	for np in 1 2; do
		$MPIEXEC -n $np ./s --out=$f >out 2>err </dev/null && fail "$f, $np ranks: saved $(cat out)"
		grep -q "element 0 would not load back: its fields are the struct's field names (src,dst)" err ||
			{ cat err; fail "$f, $np ranks: no message"; }
		test -e $f && fail "$f, $np ranks: written"
	done
done
./s --out=e.txt >out 2>err || { cat err; fail "e.txt"; }
test "$(cat out)" = "3 src" || fail "e.txt: $(cat out)"
./s --out=b.csv --first="$(printf '\357\273\277w')" >out 2>err && fail "b.csv saved: $(cat out)"
grep -q "element 0 would not load back: it starts with a byte-order mark" err || { cat err; fail "b.csv: no message"; }
exit 0
