#!/bin/sh
# sync for's dense path over ranks when a step changes few rows: each
# rank finds the rows its workers changed and every rank gets them all,
# in place of the chain that moves the whole vector (runtime/sync/delta.c).
#  - a perceptron-like body whose keys depend on the vector it writes (no
#    slice can name them) over small mini-batches: a sum of doubles, an
#    average of integers and an average of double[2] give the same bits
#    for the same workers as threads or as ranks (1 x 2 and 2 x 1, 1 x 3
#    and 3 x 1, 1 x 4 and 2 x 2), the same on two runs, and --explain
#    says the vectors are dense;
#  - on 2 ranks the loop moves a small part of what the chain would (two
#    whole copies of W, C and V a step, --stats sync_MB), and rows_sent
#    counts the rows;
#  - a step that changes every row goes by the chain, with the same bits
#    on either layout, and so does a loop where only some steps do.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/delta.sap" <<'SAP'
const long N = 20000;
dvector<long> X(6000);
async for (long i = 0; i < len(X); i++)
    X[i] = rand_int(N);
dvector<double> W(N);
dvector<long> C(N);
dvector<double[2]> V(N);
for (int ep = 0; ep < 3; ep++) {
    sync for (long x : X) with (bsp, batch = 32, merge(W) = sum) {
        long k = x;
        if (W[k] > 0.5)
            k = (k * 31 + 7) % N;
        W[k] += 0.25 + 0.001 * (x % 13);
        C[k] += 3 + x % 5;
        V[(k + 1) % N][ep % 2] += W[k] * 0.5 - 0.1;
    }
}
// Every row, every step: the chain.
dvector<long> Y(24);
async for (long i = 0; i < len(Y); i++)
    Y[i] = i;
sync for (long y : Y) with (bsp, batch = 2, recon = off) {
    for (long j = 0; j < N; j++)
        W[j] += 0.001 * (y % 5) + W[(j + y) % N] * 0.0001;
}
// Every row in some steps only (y < 6), few in the others.
sync for (long y : Y) with (bsp, batch = 1, recon = off, merge(C) = sum) {
    long m = y < 6 ? N : 10;
    for (long j = 0; j < m; j++)
        C[(j * 7 + y) % N] += y + 1;
}
double w = 0;
double v = 0;
long c = 0;
for (long i = 0; i < N; i++) {
    w += W[i] * (i % 7 + 1);
    v += V[i][0] - 2 * V[i][1];
    c += C[i] * (i % 3 + 1);
}
print("W %.17g V %.17g C %ld\n", w, v, c);
SAP

"$SAPC" -O2 -o "$tmp/delta" "$tmp/delta.sap" || fail "sapc delta.sap"
"$SAPC" --explain "$tmp/delta.sap" >"$tmp/explain" || fail "sapc --explain"
for d in W C V; do
	grep -q "^    $d  *[a-z]*.*, dense (the key of" "$tmp/explain" ||
		{ cat "$tmp/explain"; fail "--explain: $d is not dense for want of a slice"; }
done

run() {
	out=$tmp/out.$1.$2.$3
	$MPIEXEC --bind-to none -n "$1" "$tmp/delta" --threads="$2" --stats </dev/null >"$out" 2>"$out.err" ||
		{ cat "$out" "$out.err"; fail "delta on $1 ranks x $2 threads"; }
}
for l in "1 2" "2 1" "1 3" "3 1" "1 4" "2 2"; do
	# shellcheck disable=SC2086
	run $l a
done
# shellcheck disable=SC2086
run 2 1 b
cmp "$tmp/out.2.1.a" "$tmp/out.2.1.b" || fail "two runs on 2 ranks differ"
for pair in "1.2 2.1" "1.3 3.1" "1.4 2.2"; do
	set -- $pair
	cmp "$tmp/out.$1.a" "$tmp/out.$2.a" ||
		{ cat "$tmp/out.$1.a" "$tmp/out.$2.a"; fail "$1 and $2 (ranks.threads) differ"; }
done

# The perceptron loop, on each of 2 ranks: 3 invocations of 94 steps; the chain
# would move 2 x 640,000 bytes a step (W, C, V).
awk '$1 == 2 && $4 == "bsp" {
	n++
	if ($6 != 282) { print "steps " $6; bad = 1 }
	if ($9 >= 282 * 1.28 / 20) { print "sync_MB " $9; bad = 1 }
	if ($14 < 1000) { print "rows_sent " $14; bad = 1 }
} END { exit bad || n != 2 }' "$tmp/out.2.1.a.err" ||
	{ cat "$tmp/out.2.1.a.err"; fail "the perceptron loop moves too much on 2 ranks"; }
