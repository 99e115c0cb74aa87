#!/bin/sh
# 1 x 2 equals 2 x 1: every loop form splits its iterations among the
# P x T workers the same way whatever P and T are, and combines their
# partial results in the same order, so that a result depends only on
# P x T, bit for bit.  The input exposes rounding: 2^53, then 999 ones
# (adding a one to 2^53 does nothing), loaded from a file
# (whose lines the ranks parse in byte ranges, not in even shares).
# Each form: chunks over the parts of a loaded vector, accumulate and
# owner computes over a loaded vector held where parsed, owner computes
# over a vector held where a loop wrote it, planned, a loop run in
# another's plan, one every rank runs whole, sync for (merge sum on the sparse path, avg on the
# dense one, a reduce), and a loop over a map's keys.  On one worker
# every result is the sequential loop's.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

awk 'BEGIN { print "9007199254740992"; for (i = 1; i < 1000; i++) print "1" }' >"$tmp/big.txt"

cat >"$tmp/forms.sap" <<'SAP'
param string data = "big.txt";
dvector<double> X = load(data);     // read at other indices too: held where parsed
dvector<double> Xp = load(data);    // read only as Xp[i]: held in parts
long n = len(X);
double s1 = 0;
async for (long i = 0; i < n; i++) reduce(+: s1) {
    s1 += Xp[i];
}
dvector<double> acc(2);
async for (long i = 0; i < n; i++) accumulate(+: acc) {
    acc[0] += X[i];
    acc[1] += X[i] * 2;
}
double s0 = 0;
async for (long i = 0; i < n; i++) reduce(+: s0) {
    s0 += X[i];
}
dvector<double> Y(n);
async for (long i = 0; i < n; i++) {
    Y[i] = X[i] * 2;
}
double s2 = 0;
async for (long i = 0; i < n; i++) reduce(+: s2) {
    s2 += Y[i];
}
dvector<long> K(n);
for (long i = 0; i < n; i++)
    K[i] = i * 37 % 101;
dvector<double> Z(101);
double s3 = 0;
async for (long i = 0; i < n; i++) reduce(+: s3) {
    Z[K[i]] += 1;
    s3 += X[i];
}
double s6 = 0;                  // max is exact: it may run in loop 6's plan
async for (long i = 0; i < n; i++) reduce(max: s6) {
    s6 = max(s6, X[i] + Z[K[i]] * 0);
}
dvector<double> G(3);
double s4 = 0;
sync for (double x : X) with (bsp, batch = 7, merge(G) = sum) reduce(+: s4) {
    G[long(x) % 1] += x;        // a key the slice computes: the sparse path
    G[2] += 1;
    s4 += x;
}
dvector<double> V(2);
sync for (double x : X) with (bsp, batch = 7, recon = off) {
    V[0] += x;
    V[1] += 1;
}
dmap<long, double> m;
for (long i = 0; i < n; i++)
    m[i * 7919 % 100003] = X[i];
double s5 = 0;
async for (long k : m) reduce(+: s5) {
    s5 += m[k];
}
// Owner computes where a planned loop left the elements: not in the
// workers' chunks, so a loop that reduces runs the chunks instead.
dvector<double> Y2(n);
async for (long i = 0; i < n; i++) {
    Y2[K[i] * 10 % n] = 1;
}
double s7 = 0;
async for (long i = 0; i < n; i++) reduce(+: s7) {
    s7 += i == 0 ? 9007199254740992.0 : Y2[i];
}
// A loop every rank runs whole (it writes a map's values), which runs
// there as one rank of P x T threads would.
dmap<long, double> wm;
for (long i = 0; i < n; i++)
    wm[i] = i == 0 ? 9007199254740992.0 : 1.0;
dvector<double> Zw(101);
double s9 = 0;
async for (long k : wm) reduce(+: s9) {
    wm[k] = wm[k] * 2;
    Zw[k % 101] += 1;
    s9 += wm[k] / 2;
}
// The sequential loop, last: driver reads make X whole.
double seq = 0;
for (long i = 0; i < n; i++)
    seq += X[i];
print("seq %.17g\n", seq);
print("chunks %.17g\n", s1);
print("accumulate %.17g %.17g\n", acc[0], acc[1]);
print("owner-loaded %.17g\n", s0);
print("owner %.17g\n", s2 / 2);
print("planned %.17g\n", s3);
print("shared-plan %.17g\n", s6);
print("sync-sum %.17g %.17g %.17g\n", s4, G[0], G[2]);
print("sync-avg %.17g %.17g\n", V[0] * V[1] / 1000 * 1000 / V[1], V[1]);
print("map %.17g\n", s5);
print("owner-after-plan %.17g\n", s7);
print("whole %.17g\n", s9);
SAP
"$SAPC" -O2 -o "$tmp/forms" "$tmp/forms.sap" || fail "sapc forms.sap"

run() {
	$MPIEXEC --bind-to none -n "$1" "$tmp/forms" --threads="$2" --data="$tmp/big.txt" --stats \
		>"$tmp/$1.$2" 2>"$tmp/$1.$2.err" || { cat "$tmp/$1.$2.err"; fail "$1 ranks x $2 threads"; }
}

for pt in 1.1 1.2 2.1 1.3 3.1 2.2 1.4 3.2 2.3; do
	run "${pt%.*}" "${pt#*.}"
done

# One worker: the sequential loop's sums, loop by loop.
seq=$(sed -n 's/^seq \([^ ]*\)$/\1/p' "$tmp/1.1")
for form in chunks accumulate owner-loaded owner planned shared-plan sync-sum sync-avg map whole; do
	v=$(sed -n "s/^$form \([^ ]*\).*/\1/p" "$tmp/1.1")
	test "$v" = "$seq" || { cat "$tmp/1.1"; fail "$form on one worker: $v, not the sequential $seq"; }
done
# The input exposes rounding: two workers round differently from one.
cmp -s "$tmp/1.1" "$tmp/1.2" && { cat "$tmp/1.1"; fail "the input exposes no rounding"; }
for pair in "1.2 2.1" "1.3 3.1" "1.4 2.2" "3.2 2.3"; do
	set -- $pair
	cmp "$tmp/$1" "$tmp/$2" || { diff "$tmp/$1" "$tmp/$2"; fail "$1 and $2 (ranks.threads) differ"; }
done
# The forms are the ones named (on 2 ranks; on 1 rank the loop over the
# map's keys runs where its keys fall, too).
for l in "1 chunks" "2 chunks (owner computes)" "3 chunks (owner computes)" \
	"5 chunks (owner computes)" "6 planned" "7 planned (loop 6's plan)" \
	"10 chunks (owner computes)" "11 planned" "12 chunks"; do
	n=${l%% *} how=${l#* }
	grep -q "^ *$n [^ ]*forms.sap:[0-9]* .* $how\$" "$tmp/2.1.err" ||
		{ cat "$tmp/2.1.err"; fail "loop $n on 2 ranks: not $how"; }
done
exit 0
