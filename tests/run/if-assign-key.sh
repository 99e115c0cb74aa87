#!/bin/sh
# A key's local assigned in an if's condition, if ((j = p[i]) >= 0): the
# reconnaissance slice has to run the if as well.  It left the if out (an
# if's condition is walked outside the if), so it recorded j's value from
# before the if: every iteration "wrote a[0]", and on several ranks the
# writes to other elements were never sent to their holders (stale
# results), on threads they raced, a sync for lost its sums, and keys out
# of range went unchecked.  Found by a helper's scheduling hunt.  The sums
# are of integers, so every serial order gives the values below (a
# python model gives them too).
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp
cd "$tmp" || exit 1

cat >keys.sap <<'SAP'
param long n = 40;
dvector<long> p(n);
dvector<long> a(n);
dvector<long> b(n);
async for (long i = 0; i < n; i++) {
    p[i] = (i * 7 + 3) % n;
    a[i] = i;
}
long hits = 0;
async for (long i = 0; i < n; i++) reduce(+: hits) {
    long j = 0;
    if ((j = p[i]) >= 0)
        hits += 1;
    a[j] = a[j] + 100 * i;
}
async for (long i = 0; i < n; i++) {
    long j = i;
    if (j++ < 0) {}
    b[j % n] = b[j % n] + 2 * i + 1;
}
async for (long i = 0; i < n; i++) {
    long j = 0;
    if ((j = (i * 3 + 1) % n) > 5)
        a[j] = a[j] + 1;
    else
        b[j] = b[j] + 1000;
}
async for (long i = 0; i < n; i++) {
    for (long k = 0; k < 2; k++) {
        long j = 0;
        if ((j = (i + k * 11) % n) < 0) {}
        b[j] = b[j] + 10000 * (k + 1);
    }
}
long sa = 0;
long sb = 0;
async for (long i = 0; i < n; i++) reduce(+: sa, sb) {
    sa += a[i] * (i + 1);
    sb += b[i] * (i + 1);
}
print("hits %d sa %d sb %d\n", hits, sa, sb);
print("a[0] %d a[21] %d a[39] %d b[0] %d b[21] %d b[39] %d\n", a[0], a[21], a[39], b[0], b[21], b[39]);
SAP
cat >keys.want <<'EOF2'
hits 40 sa 1696119 sb 24662900
a[0] 1100 a[21] 1422 a[39] 2840 b[0] 31079 b[21] 30041 b[39] 30077
EOF2

cat >batch.sap <<'SAP'
param long n = 20;
dvector<long> X(n);
async for (long i = 0; i < n; i++)
    X[i] = i;
dvector<double> W(n);
sync for (long x : X) with (bsp, batch = 4, merge(W) = sum) {
    long j = x;
    if ((j = (x * 7 + 3) % n) < 0) {}
    W[j] += 1.0 + x;
}
double s = 0;
for (long i = 0; i < n; i++)
    s += W[i] * (i + 1);
print("W[1] %.1f s %.1f\n", W[1], s);
SAP
echo "W[1] 15.0 s 2180.0" >batch.want

cat >range.sap <<'SAP'
param long n = 40;
param long off = 1000;
dvector<long> a(n);
async for (long i = 0; i < n; i++) {
    long j = 0;
    if ((j = i + off) < 0) {}
    a[j] = a[j] + 1;
}
long s = 0;
for (long i = 0; i < n; i++)
    s += a[i];
print("%d\n", s);
SAP

for p in keys batch range; do
	"$SAPC" -o $p $p.sap || fail "sapc $p.sap"
done
for l in 1x1 1x2 2x1 3x1 2x2; do
	np=${l%x*} nt=${l#*x}
	for p in keys batch; do
		$MPIEXEC -n "$np" ./$p --threads="$nt" >out 2>err || { cat err; fail "$p on $l failed"; }
		diff -u $p.want out || fail "$p on $l: not the sums of a serial order"
	done
	$MPIEXEC -n "$np" ./range --threads="$nt" >out 2>err &&
		fail "range on $l: an index out of range went unchecked (printed $(cat out))"
	grep -q "range.sap:7:13: error: index 10[0-9][0-9] out of range for a (size 40)" err ||
		{ cat err; fail "range on $l: not the index error"; }
done
exit 0
