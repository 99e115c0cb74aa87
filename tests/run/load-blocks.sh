#!/bin/sh
# Lists that load parses go into blocks, one list after another, and the
# vector keeps the blocks as its arena (sap_lbuf).  Here the lists take
# four times the bytes of their text, so they fill several blocks: lists
# cross from one block to the next half parsed, one list is longer than
# a whole block, and on 2 threads each piece of the text has blocks of
# its own.  On 1, 2 and 3 ranks and 1 and 2 threads:
#  - the saved file is the input, byte for byte, and the checksum over
#    every element in order is the same everywhere;
#  - --stats counts the lists' bytes exactly (8 a value, each list
#    rounded up to 8 bytes) on one rank.
# Integers read by the fast path and the slow one (a '+', leading zeros,
# the limits of int and long) come back as the numbers they are.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/lb.sap" <<'SAP'
struct Row {
    int id;
    list<double> v;
}
struct Ints {
    int a;
    long b;
    list<int> c;
}
param string data = "in.txt";
param string ints = "ints.txt";
param string out = "out.txt";
dvector<Row> R = load(data);
dvector<Ints> I = load(ints);
long n = len(R);
double s = 0;
long m = 0;
async for (long i = 0; i < n; i++) reduce(+: s, m) {
    for (long k = 0; k < len(R[i].v); k++)
        s += R[i].v[k] * (k % 5 + 1) * (i % 3 + 1);
    m += len(R[i].v);
}
print("rows %d values %d sum %.17g\n", n, m, s);
for (long i = 0; i < len(I); i++) {
    long t = 0;
    for (long k = 0; k < len(I[i].c); k++)
        t += I[i].c[k];
    print("%d %d %d\n", I[i].a, I[i].b, t);
}
save(R, out);
SAP
"$SAPC" -O2 -o "$tmp/lb" "$tmp/lb.sap" || fail "sapc lb.sap"

# 30000 rows of 0-199 one-digit values (about 6 MB of text, 24 MB of
# lists), and at row 20000 one of 300000 values (2.4 MB, more than any
# block the text's first blocks hold).
awk 'BEGIN {
	for (i = 0; i < 30000; i++) {
		k = i == 20000 ? 300000 : (i * 37) % 200
		# Printed a value at a time: appending to a string is
		# quadratic in awk, a minute for the long row.
		printf "%d", i
		for (j = 0; j < k; j++)
			printf " %d", (i + j) % 10
		printf "\n"
		bytes += 8 * k
	}
	printf "%d\n", bytes > "/dev/stderr"
}' >"$tmp/in.txt" 2>"$tmp/bytes" || fail "awk"
cat >"$tmp/ints.txt" <<'TXT'
1 2 3 4 5
+7 007 -0 0000000000000000000000000000000042 -12
2147483647 9223372036854775807 -2147483648 2147483647
-2147483648 -9223372036854775808 -1 -2 -3
0 123456789012345678 1234567890 1234567890
TXT
for np in 1 2 3; do
	for t in 1 2; do
		$MPIEXEC -n $np "$tmp/lb" --threads=$t --data="$tmp/in.txt" --ints="$tmp/ints.txt" \
			--out="$tmp/out.$np.$t" --stats >"$tmp/stdout.$np.$t" 2>"$tmp/stats.$np.$t" ||
			{ rc=$?; cat "$tmp/stats.$np.$t"; fail "$np x $t: exit status $rc"; }
		cmp "$tmp/in.txt" "$tmp/out.$np.$t" ||
			fail "$np x $t: the saved file is not the input"
		cmp "$tmp/stdout.1.1" "$tmp/stdout.$np.$t" >/dev/null ||
			{ diff "$tmp/stdout.1.1" "$tmp/stdout.$np.$t"; fail "$np x $t: output differs from 1 x 1's"; }
	done
done
cat >"$tmp/want" <<'TXT'
1 2 12
7 7 30
2147483647 9223372036854775807 -1
-2147483648 -9223372036854775808 -6
0 123456789012345678 2469135780
TXT
grep -v '^rows' "$tmp/stdout.1.1" | diff "$tmp/want" - || fail "the integers read wrong"
grep -q '^rows 30000 values 3285000 ' "$tmp/stdout.1.1" ||
	{ cat "$tmp/stdout.1.1"; fail "not every row and value loaded"; }
mb=$(awk '{ printf "%.2f", $1 / 1e6 }' "$tmp/bytes")
for t in 1 2; do
	grep -q "dvector R: .*; their lists $mb MB" "$tmp/stats.1.$t" ||
		{ cat "$tmp/stats.1.$t"; fail "1 x $t: --stats does not count $mb MB of lists"; }
done
exit 0
