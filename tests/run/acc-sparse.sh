#!/bin/sh
# accumulate into large vectors that a loop adds to at few elements: on
# several ranks the workers' non-zero blocks go to every rank, which adds
# them up in the chain's order.  The sums (inexact floats, -0.0 terms,
# elements of three doubles, longs; a vector zero before the loop and one
# that is not; two invocations) are the same bits on 1 x 2 as on 2 x 1 and
# on 1 x 3 as on 3 x 1, and a loop that adds everywhere (the chain) too;
# on 2 ranks the sparse loop moves a small part of the vector.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/acc.sap" <<'SAP'
const long N = 1000000;
dvector<double> X(N);
dvector<double[3]> Y(N);
dvector<long> L(N);
dvector<double> Z(N) = 1.5;
for (int rep = 0; rep < 2; rep++) {
    async for (long i = 0; i < 3000; i++) accumulate(+: X, Y, L, Z) {
        long k = (i * 7919 + rep * 31) % N;
        double v = 0.1 * i + 1.0 / (i + 3);
        X[k] += v;
        X[(k * 13) % N] += i % 7 == 0 ? -0.0 : -v / 3;
        Y[k][i % 3] += v * v;
        L[(k * 17) % N] += i;
        Z[k] -= v;
    }
}
// Everywhere: the chain.
dvector<double> D(4000);
async for (long i = 0; i < 40000; i++) accumulate(+: D)
    D[(i * 101) % 4000] += 1.0 / (i + 1);
double sx = 0, sy = 0, sz = 0, sd = 0;
long sl = 0, neg = 0;
async for (long k = 0; k < N; k++) reduce(+: sx, sy, sz, sl, neg) {
    sx += X[k] * (k % 5 + 1);
    sy += Y[k][0] + 2 * Y[k][1] + 3 * Y[k][2];
    sz += Z[k];
    sl += L[k] * (k % 3);
    if (1 / X[k] < 0) neg++;
}
async for (long k = 0; k < 4000; k++) reduce(+: sd)
    sd += D[k] * k;
print("X %.17g Y %.17g Z %.17g L %ld neg %ld D %.17g\n", sx, sy, sz, sl, neg, sd);
print("X[7919] %.17g X[23757] %.17g Y[7919][0] %.17g D[101] %.17g\n", X[7919], X[23757], Y[7919][0], D[101]);
SAP
"$SAPC" -O2 -o "$tmp/acc" "$tmp/acc.sap" || fail "sapc acc.sap"

run() {
	$MPIEXEC --bind-to none -n "$1" "$tmp/acc" --threads="$2" --stats >"$tmp/out.$1.$2" 2>"$tmp/err.$1.$2" ||
		{ cat "$tmp/out.$1.$2" "$tmp/err.$1.$2"; fail "acc on $1 x $2"; }
}
for l in "1 2" "2 1" "1 3" "3 1"; do
	# shellcheck disable=SC2086
	run $l
done
cmp "$tmp/out.1.2" "$tmp/out.2.1" || { cat "$tmp/out.1.2" "$tmp/out.2.1"; fail "1 x 2 and 2 x 1 differ"; }
cmp "$tmp/out.1.3" "$tmp/out.3.1" || { cat "$tmp/out.1.3" "$tmp/out.3.1"; fail "1 x 3 and 3 x 1 differ"; }
grep -q '^X ' "$tmp/out.2.1" || { cat "$tmp/out.2.1"; fail "no result"; }
# The sparse loop's MB sent by rank 0 (sent_MB of the stats line of the
# loop at acc.sap:7): the chain would carry the 8 + 24 + 8 + 8 MB of its
# vectors twice an invocation, 96 MB; their blocks are about 14.
awk '$2 ~ /acc.sap:7$/ { if ($13 > 0 && $13 < 24) ok = 1 } END { exit !ok }' "$tmp/err.2.1" ||
	{ cat "$tmp/err.2.1"; fail "the sparse loop sent too much on 2 ranks"; }
