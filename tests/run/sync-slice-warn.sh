#!/bin/sh
# A sync for on the sparse path (recon = on) whose steps touch every row
# it writes (k-means' centroids: the slice is the whole nearest-centroid
# search, the body's work again) says once that the slice only adds work
# and to write recon = off; --quiet-plans silences it; one whose steps
# touch a few rows of many (embeddings) says nothing of its slice.  On
# ranks, that is: one rank's threads log the rows the body writes and run
# no slice, so there is nothing to say.  The k-means has 240000 points on
# 2 ranks, for a slice time well over the warning's 0.05 s floor (120000
# left it at about 0.05 s), in steps of 8192: as many steps of 256 took
# 200 s of a loaded make check, each step's merge waiting on the other
# rank's share of the cores.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/km.sap" <<'SAP'
const int D = 32;
const int K = 8;
struct P { double[D] x; }
param long n = 120000;
dvector<P> X(n);
async for (long i = 0; i < n; i++)
    for (int d = 0; d < D; d++)
        X[i].x[d] = double((i * 7919 + d * 104729) % 1000) / 1000.0;
dvector<double[D]> C(K);
for (int k = 0; k < K; k++)
    for (int d = 0; d < D; d++)
        C[k][d] = double((k * 31 + d * 17) % 100) / 100.0;
dvector<double[D]> S(K);
for (int it = 0; it < 20; it++) {
    sync for (P p : X) with (bsp, batch = 8192, merge(S) = sum) {
        int best = 0;
        double bd = 1e300;
        for (int k = 0; k < K; k++) {
            double s = 0;
            for (int d = 0; d < D; d++)
                s += (p.x[d] - C[k][d]) * (p.x[d] - C[k][d]);
            if (s < bd) {
                bd = s;
                best = k;
            }
        }
        for (int d = 0; d < D; d++)
            S[best][d] += p.x[d];
    }
}
print("%.6f\n", S[0][0]);
SAP
cat >"$tmp/emb.sap" <<'SAP'
param long n = 20000;
param long rows = 200000;
dvector<long> W(n);
async for (long i = 0; i < n; i++)
    W[i] = (i * 7919) % rows;
dvector<double[8]> E(rows);
sync for (long w : W) with (bsp, batch = 64, merge(E) = sum) {
    for (int d = 0; d < 8; d++)
        E[w][d] += 0.5;
}
print("%.1f\n", E[0][0]);
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o km km.sap || fail "sapc km.sap"
"$SAPC" -O2 -o emb emb.sap || fail "sapc emb.sap"
$MPIEXEC -n 2 ./km --n=240000 >out 2>err </dev/null || { cat err; fail "km failed"; }
test "$(grep -c 'warning: sync for touches 100% of the rows it writes' err)" = 1 ||
	{ cat err; fail "km: no single warning that the slice only adds work"; }
grep -q "write recon = off" err || { cat err; fail "km: the warning says not what to do"; }
$MPIEXEC -n 2 ./km --n=240000 --quiet-plans >out 2>err </dev/null || { cat err; fail "km failed"; }
test ! -s err || { cat err; fail "km --quiet-plans: warned"; }
$MPIEXEC -n 1 ./km --threads=2 >out 2>err </dev/null || { cat err; fail "km failed"; }
! grep -q 'slice only adds work' err || { cat err; fail "km: warned of a slice one rank does not run"; }
$MPIEXEC -n 1 ./emb --threads=2 >out 2>err </dev/null || { cat err; fail "emb failed"; }
# (A loaded machine may find its steps cost more to merge than the
# body takes, which is the other warning, about the batch.)
! grep -q 'slice only adds work' err || { cat err; fail "emb: warned of a slice that pays"; }
exit 0
