#!/bin/sh
# Sparse data in the LIBSVM format ("label index:value ..."), read in SAP
# alone, two ways: as a dvector of structs whose list holds index:value
# pairs, and as lines taken apart with fields, split, to_int and
# to_double.  The file is made here: signs (+1, -.25, -0), exponents in
# both cases, a subnormal, a hexadecimal float, comment and blank lines, a
# CRLF line, trailing blanks, an example without features, and no newline
# at the end.  On 1, 2 and 3 ranks both ways give exactly the numbers
# below, and save writes the structs back in LIBSVM form.  A ragged pair
# ("3:" or a lone "3") is an error naming the file and line on every rank
# count.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/svm.sap" <<'SAP'
// A LIBSVM file read two ways: as structs (a label, then index:value
// pairs), and as lines taken apart with fields, split and to_int /
// to_double.  Both must give the same numbers.
struct Feature { int index; double value; }
struct Example { double label; list<Feature> x; }
param string data = "train.svm";
param string out = "out.svm";

dvector<Example> train = load(data);
dvector<string> lines = load(data);

dvector<double[3]> a(len(train));
async for (long n = 0; n < len(train); n++) {
    double dot = 0;
    for (long k = 0; k < len(train[n].x); k++)
        dot += train[n].x[k].index * train[n].x[k].value;
    a[n][0] = train[n].label;
    a[n][1] = len(train[n].x);
    a[n][2] = dot;
}
dvector<double[3]> b(len(lines));
async for (long n = 0; n < len(lines); n++) {
    list<string> f = fields(lines[n]);
    double dot = 0;
    long nf = 0;
    for (long k = 1; k < len(f); k++) {
        list<string> iv = split(f[k], ":");
        dot += to_int(iv[0]) * to_double(iv[1]);
        nf++;
    }
    b[n][0] = to_double(f[0]);
    b[n][1] = nf;
    b[n][2] = dot;
}
long same = 0;
for (long n = 0; n < len(train); n++) {
    print("%d: label %g, %g features, sum of index*value %.17g\n", n, a[n][0], a[n][1], a[n][2]);
    if (a[n][0] == b[n][0] && a[n][1] == b[n][1] && a[n][2] == b[n][2])
        same++;
}
print("%d examples, %d read the same both ways\n", len(train), same);
save(train, out);
SAP
"$SAPC" -O2 -Wall -Wextra -Werror -o "$tmp/svm" "$tmp/svm.sap" || fail "sapc svm.sap"

printf '# LIBSVM: label index:value ...\n+1 1:0.5 3:-0.613 10:1e-3\n-1 2:-1.5E+2 4:7\n\n0 1:-0 7:2.5e-310\r\n+1 5:-.25   \n-1\n  # indented comment\n-1 3:0x1p-2 12:-1.25e-3\n1 1:1 2:2 3:3 4:4 5:5 6:6 7:7 8:8 9:9 10:10' >"$tmp/train.svm"

cat >"$tmp/want.out" <<'OUT'
0: label 1, 3 features, sum of index*value -1.329
1: label -1, 2 features, sum of index*value -272
2: label 0, 2 features, sum of index*value 1.7500000000000119e-309
3: label 1, 1 features, sum of index*value -1.25
4: label -1, 0 features, sum of index*value 0
5: label -1, 2 features, sum of index*value 0.73499999999999999
6: label 1, 10 features, sum of index*value 385
7 examples, 7 read the same both ways
OUT
cat >"$tmp/want.svm" <<'OUT'
1 1:0.5 3:-0.61299999999999999 10:0.001
-1 2:-150 4:7
0 1:-0 7:2.5000000000000171e-310
1 5:-0.25
-1
-1 3:0.25 12:-0.00125
1 1:1 2:2 3:3 4:4 5:5 6:6 7:7 8:8 9:9 10:10
OUT

for np in 1 2 3; do
	$MPIEXEC -n $np "$tmp/svm" --data="$tmp/train.svm" --out="$tmp/out.$np.svm" \
		>"$tmp/out.$np" 2>"$tmp/err.$np"
	rc=$?
	test $rc = 0 || { cat "$tmp/err.$np"; fail "$np ranks: exit status $rc"; }
	diff -u "$tmp/want.out" "$tmp/out.$np" || fail "$np ranks: wrong numbers"
	diff -u "$tmp/want.svm" "$tmp/out.$np.svm" || fail "$np ranks: wrong saved file"
done

# A pair cut short, alone or before ':', on the line after a good one.
for bad in '3:' '3'; do
	printf '1 2:0.5\n-1 1:1 %s\n1 4:4\n' "$bad" >"$tmp/bad.svm"
	case $bad in
	3:) want="bad.svm:2: error: field 'x.value': empty (nothing after ':'); an element of list 'x' is a 'Feature' of 2 fields (index:value)" ;;
	3) want="bad.svm:2: error: list 'x': the line ends inside an element, 1 field short: an element is a 'Feature' of 2 fields (index:value)" ;;
	esac
	for np in 1 2 3; do
		(cd "$tmp" && $MPIEXEC -n $np ./svm --data=bad.svm --out=never.svm) \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		test $rc = 0 && fail "'$bad' on $np ranks: exit status 0"
		grep -qF "$want" "$tmp/err" || { cat "$tmp/err"; fail "'$bad' on $np ranks: no '$want'"; }
		test -e "$tmp/never.svm" && fail "'$bad' on $np ranks: a file was saved"
	done
done
exit 0
