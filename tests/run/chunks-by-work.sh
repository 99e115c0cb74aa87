#!/bin/sh
# A chunks loop whose inner loop runs n - i - 1 times (pairs j > i) is cut
# into chunks of even work, not of even counts, which gave the first of 2
# workers three quarters of the pairs.  --stats' balance weighs the
# chunks' work: near 1 on 2 and 3 workers, however spread over ranks, and
# the float sums agree bit for bit between layouts of as many workers
# (the cuts depend on the bounds and driver values only).  A loaded input
# held in parts is fetched where the chunks need it.  The cut itself is
# seen in a relaxed loop's --dump-order.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

awk 'BEGIN { for (i = 0; i < 3001; i++) printf "%.6f\n", (i * 7919 % 1000) / 1000.0 }' >x.txt
cat >tw.sap <<'SAP'
dvector<double> X = load("x.txt");
long m = len(X);
dvector<double> R(m);
dvector<long> C(m);
double tot = 0;
long pairs = 0;
async for (long i = 0; i < m; i++) reduce(+: tot, pairs) accumulate(+: C) {
    double s = 0;
    for (long j = i + 1; j < m; j++) {
        double d = X[i] - X[j];
        s += d * d;
        if (d > 0.5) {
            pairs++;
            C[j] += 1;
        }
    }
    R[i] = s;
    tot += s;
}
long ck = 0;
for (long i = 0; i < m; i++) ck = ck * 31 + C[i];
double rs = 0;
for (long i = 0; i < m; i++) rs += R[i] * (i % 3);
print("tot %a pairs %d ck %d rs %a\n", tot, pairs, ck, rs);
SAP
"$SAPC" -o tw tw.sap || fail "sapc tw.sap"
for layout in "1 2" "2 1" "1 3" "3 1"; do
	# shellcheck disable=SC2086 # the ranks and the threads, two words
	set -- $layout
	$MPIEXEC -n "$1" ./tw --threads="$2" --stats >"o$1$2" 2>"e$1$2" </dev/null ||
		{ cat "e$1$2"; fail "$1 x $2 failed"; }
	# Column 11 of the loop's row is its balance.
	b=$(awk '$2 == "tw.sap:7" { print $11; exit }' "e$1$2")
	awk -v b="$b" 'BEGIN { exit !(b != "" && b < 1.02) }' ||
		{ cat "e$1$2"; fail "$1 x $2: the chunks' balance is '$b', not near 1"; }
done
cmp -s o12 o21 || { diff o12 o21; fail "1 x 2 and 2 x 1 differ"; }
cmp -s o13 o31 || { diff o13 o31; fail "1 x 3 and 3 x 1 differ"; }
# The integers are the same on every layout.
$MPIEXEC -n 1 ./tw >o11 </dev/null || fail "1 x 1 failed"
for f in o12 o13; do
	[ "$(cut -d' ' -f4-6 o11)" = "$(cut -d' ' -f4-6 "$f")" ] ||
		fail "$f: other integers than 1 x 1: $(cat "$f")"
done
# Where the chunks are cut: a relaxed loop's --dump-order gives each
# worker's count.  Even counts would be 1501 and 1500; even work puts
# the cut near 3001 (1 - 1/sqrt(2)), 879.
cat >rl.sap <<'SAP'
dvector<double> X = load("x.txt");
long m = len(X);
dvector<double> G(4);
async for (long i = 0; i < m; i++) relaxed(+: G) {
    double s = 0;
    for (long j = i + 1; j < m; j++)
        s += X[j];
    G[i % 4] += s;
}
print("%a %a\n", G[0], G[3]);
SAP
# The same pairs counted down, and with the test written the other way.
sed 's/for (long j = i + 1; j < m; j++)/for (long j = m - 1; j > i; j--)/' rl.sap >rld.sap
sed 's/for (long j = i + 1; j < m; j++)/for (long j = i + 1; m > j; j = j + 1)/' rl.sap >rlw.sap
if ! grep -q 'j--' rld.sap || ! grep -q 'm > j' rlw.sap; then
	fail "the sed of rl.sap"
fi
"$SAPC" -o rld rld.sap || fail "sapc rld.sap"
"$SAPC" -o rlw rlw.sap || fail "sapc rlw.sap"
"$SAPC" -o rl rl.sap || fail "sapc rl.sap"
for p in rld rlw; do
	$MPIEXEC -n 2 ./$p --threads=1 --dump-order="d$p" >/dev/null </dev/null || fail "$p on 2 x 1 failed"
	grep -qx "round 0 worker 0 count 879" "d$p" || { grep '^round' "d$p"; fail "$p: not cut by work"; }
done
for layout in "1 2" "2 1"; do
	# shellcheck disable=SC2086 # the ranks and the threads, two words
	set -- $layout
	$MPIEXEC -n "$1" ./rl --threads="$2" --dump-order="d$1$2" >/dev/null </dev/null ||
		fail "rl on $1 x $2 failed"
	grep -qx "round 0 worker 0 count 879" "d$1$2" || { grep '^round' "d$1$2"; fail "$1 x $2: not cut by work"; }
done
exit 0
