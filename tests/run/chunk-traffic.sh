#!/bin/sh
# What the chunked loops after a planned one move between ranks.
# samples/lasso.sap on 2 ranks, on banded data (tools/genlasso, spread
# 0.0005): the features' loop writes the residual r and the coefficients
# b by a plan of two halves; the loops that sum r's squares and b's norm
# after every sweep read r[i] and b[j] at their loop variable, in chunks.
#  - each half of the plan runs on the rank whose even share of r holds
#    its rows (the planner puts a group on the worker whose share of the
#    keys its block is in), so the elements the chunks read are mostly
#    where they were written;
#  - a chunk loop fetches only its chunk of a vector it reads at the
#    loop variable, not the whole vector.
# Together: over 4 sweeps the sum of squares moves less than a tenth of
# r (1.6 MB) a sweep, where making r whole moved half of it every sweep.
# And the features' loop fetches only the columns of X (and norms) its
# rank's groups need, every sweep (what a rank fetched goes at the end of
# each invocation), where making X whole moved half of it (8 MB): less
# than a tenth of that over 4 sweeps.  Its results are those of 1 rank x
# 2 threads bit for bit: the same plan, and every column where it is
# needed in every sweep (fetching them in the first sweep only fails).
# But where a rank needs many elements from others every invocation (LDA's
# tokens, under a plan that runs document blocks and word blocks in
# turn), the input is made whole once instead: samples/lda.sap on 2
# ranks moves under 4 MB over 4 sweeps of 200000 tokens, where fetching
# the tokens every sweep moved 6.6 MB.
# The counts come from --stats, which is exact, not a timing.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

# below LIMIT FILE SITE AWKEXPR WHAT: every rank's AWKEXPR of --stats
# line SITE in FILE is below LIMIT, or fail saying WHAT.
below() {
	got=$(awk -v site="$3" '$2 ~ site"$" { print '"$4"' }' "$2")
	test -n "$got" || { cat "$2"; fail "no --stats line for $3"; }
	for m in $got; do
		awk -v s="$m" -v l="$1" 'BEGIN { exit !(s < l) }' || fail "$5: $m MB"
	done
}

"$top_builddir/tools/genlasso" --rows=200000 --features=100000 --nnz=10 --spread=0.0005 \
	--out="$tmp/X.txt" --y-out="$tmp/y.txt" --beta-out="$tmp/b.txt" || fail "genlasso"
"$SAPC" -O2 -o "$tmp/lasso" "$top_srcdir/samples/lasso.sap" || fail "sapc lasso.sap"
timeout 300 $MPIEXEC -n 2 "$tmp/lasso" --threads=1 --data="$tmp/X.txt" --y="$tmp/y.txt" \
	--lambda=0.01 --sweeps=4 --out="$tmp/beta.txt" --stats >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "lasso on 2 ranks"; }
# The sum of squares: the loop at samples/lasso.sap's 'rss += r[i] * r[i]'.
line=$(grep -n 'rss += r\[i\] \* r\[i\]' "$top_srcdir/samples/lasso.sap" | cut -d: -f1)
loop=$((line - 1))
sent=$(awk -v site="lasso.sap:$loop" '$2 ~ site"$" { print $13; exit }' "$tmp/err")
test -n "$sent" || { cat "$tmp/err"; fail "no --stats line for lasso.sap:$loop"; }
awk -v s="$sent" 'BEGIN { exit !(s < 4 * 0.16) }' ||
	fail "the sum of squares sent $sent MB over 4 sweeps (r is 1.6 MB)"
# The features' loop, on data where columns near the middle have rows on
# both sides of the ranks' shares of r, so that the rank running them
# must fetch some columns from the other.
"$top_builddir/tools/genlasso" --rows=50000 --features=100000 --nnz=10 --spread=0.002 \
	--out="$tmp/X2.txt" --y-out="$tmp/y2.txt" || fail "genlasso"
set -- --data="$tmp/X2.txt" --y="$tmp/y2.txt" --lambda=0.003 --sweeps=4
timeout 300 $MPIEXEC -n 2 "$tmp/lasso" --threads=1 "$@" --out="$tmp/beta1.txt" --stats \
	>"$tmp/out1" 2>"$tmp/err1" || { cat "$tmp/err1"; fail "lasso on 2 ranks"; }
line=$(grep -n '^    async for (long j = 0; j < p; j++) {$' "$top_srcdir/samples/lasso.sap" | cut -d: -f1)
below 0.8 "$tmp/err1" "lasso.sap:$line" '$13 + $14' \
	"the features' loop moved too much over 4 sweeps (half of X is 8 MB)"
timeout 300 $MPIEXEC -n 1 "$tmp/lasso" --threads=2 "$@" --out="$tmp/beta2.txt" \
	>"$tmp/out2" 2>"$tmp/err2" || { cat "$tmp/err2"; fail "lasso on 1 rank x 2 threads"; }
sed 's/ time .*//' "$tmp/out1" >"$tmp/o1"
sed 's/ time .*//' "$tmp/out2" >"$tmp/o2"
cmp -s "$tmp/o1" "$tmp/o2" || { diff "$tmp/o1" "$tmp/o2"; fail "2 x 1 and 1 x 2 printed different objectives"; }
cmp -s "$tmp/beta1.txt" "$tmp/beta2.txt" || fail "2 ranks x 1 thread and 1 x 2 saved different b"

"$top_builddir/tools/genlda" --docs=2000 --vocab=5000 --topics=20 --length=100 --seed=5 \
	--out="$tmp/tok.txt" 2>/dev/null || fail "genlda"
"$SAPC" -O2 -o "$tmp/lda" "$top_srcdir/samples/lda.sap" || fail "sapc lda.sap"
timeout 300 $MPIEXEC -n 2 "$tmp/lda" --threads=1 --data="$tmp/tok.txt" --sweeps=4 --every=1000 \
	--stats >"$tmp/out3" 2>"$tmp/err3" || { cat "$tmp/err3"; fail "lda on 2 ranks"; }
line=$(grep -n 'async for (long t = 0; t < len(tok); t++) relaxed' "$top_srcdir/samples/lda.sap" | cut -d: -f1)
below 4 "$tmp/err3" "lda.sap:$line" '$13' \
	"the sampling loop sent too much over 4 sweeps of 200000 tokens"

# A loop that reads x at its loop variable and at keys from the data
# (a path graph's neighbours): its read slice records both, so each rank
# fetches the one neighbour the other holds, not the other's half of x
# (80 KB a pass, 0.8 MB over 10) as when x[u] went unrecorded.
cat >"$tmp/halo.sap" <<'SAP'
struct Node { int id; list<int> nb; }
dvector<Node> G = load("path.txt");
long n = len(G);
dvector<double> x(n) = 1.0;
dvector<double> y(n);
for (int it = 0; it < 10; it++) {
    async for (long u = 0; u < n; u++) {
        double s = x[u];
        for (long e = 0; e < len(G[u].nb); e++)
            s += x[G[u].nb[e]];
        y[u] = s / (1 + len(G[u].nb));
    }
    async for (long u = 0; u < n; u++)
        x[u] = y[u] + (u == 0 ? 1.0 : 0.0);
}
double t = 0;
async for (long u = 0; u < n; u++) reduce(+: t) t += x[u];
print("sum %.17g\n", t);
SAP
awk 'BEGIN { n = 20000; for (u = 0; u < n; u++) { l = u; if (u > 0) l = l " " u - 1
	if (u < n - 1) l = l " " u + 1; print l } }' >"$tmp/path.txt"
"$SAPC" -O2 -o "$tmp/halo" "$tmp/halo.sap" || fail "sapc halo.sap"
(cd "$tmp" && timeout 300 $MPIEXEC -n 2 ./halo --threads=1 --stats >out4 2>err4) ||
	{ cat "$tmp/err4"; fail "halo on 2 ranks"; }
(cd "$tmp" && timeout 300 $MPIEXEC -n 1 ./halo >out5 2>err5) ||
	{ cat "$tmp/err5"; fail "halo on 1 rank"; }
cmp -s "$tmp/out4" "$tmp/out5" || { diff "$tmp/out4" "$tmp/out5"; fail "halo: 2 ranks and 1 differ"; }
below 0.05 "$tmp/err4" "halo.sap:7" '$13' "the neighbours' loop sent too much over 10 passes"

# PageRank over a graph of names: the adjacency, pushed by a loop planned
# by the names' ids, is held in interleaved blocks, and the chunk loops
# that read it at their loop variable each pass fetched half of it again
# every pass (0.3 MB).  Unchanged since the pass before, it is made whole
# once instead.
cat >"$tmp/names.sap" <<'SAP'
struct SE { string a; string b; }
struct Node { list<int> out; }
dvector<SE> E = load("names.txt");
dmap<string, long> deg;
async for (long i = 0; i < len(E); i++) accumulate(+: deg) {
    deg[E[i].a] += 1;
    deg[E[i].b] += 0;
}
dvector<string> names = vocab(deg, 0);
long n = len(names);
dmap<string, int> id;
async for (long i = 0; i < n; i++)
    id[names[i]] = int(i);
dvector<Node> G(n);
async for (long i = 0; i < len(E); i++)
    push(G[id[E[i].a]].out, id[E[i].b]);
dvector<double> rank(n) = 1.0 / n;
dvector<double> next(n);
for (int it = 0; it < 10; it++) {
    async for (long v = 0; v < n; v++)
        next[v] = 0;
    async for (long u = 0; u < n; u++) accumulate(+: next) {
        long k = len(G[u].out);
        for (long e = 0; e < k; e++)
            next[G[u].out[e]] += rank[u] / k;
    }
    double dang = 0;
    async for (long u = 0; u < n; u++) reduce(+: dang) {
        if (len(G[u].out) == 0)
            dang += rank[u];
    }
    async for (long v = 0; v < n; v++)
        rank[v] = 0.15 / n + 0.85 * (next[v] + dang / n);
}
double s = 0;
async for (long v = 0; v < n; v++) reduce(+: s) s += rank[v] * (v % 10);
print("%.15g\n", s);
SAP
awk 'BEGIN { n = 20000; s = 1
	for (u = 0; u < n; u++) { d = (u * 7919) % 9
		for (k = 0; k < d; k++) { s = (s * 1103515245 + 12345) % 2147483648; print "n" u, "n" s % n } } }' \
	>"$tmp/names.txt"
"$SAPC" -O2 -o "$tmp/names" "$tmp/names.sap" || fail "sapc names.sap"
(cd "$tmp" && timeout 300 $MPIEXEC -n 2 ./names --threads=1 --stats >out6 2>err6) ||
	{ cat "$tmp/err6"; fail "names on 2 ranks"; }
(cd "$tmp" && timeout 300 $MPIEXEC -n 1 ./names --threads=2 >out7 2>err7) ||
	{ cat "$tmp/err7"; fail "names on 1 rank x 2 threads"; }
cmp -s "$tmp/out6" "$tmp/out7" || { diff "$tmp/out6" "$tmp/out7"; fail "names: 2 x 1 and 1 x 2 differ"; }
below 1 "$tmp/err6" "names.sap:28" '$14' "the dangling nodes' loop received too much over 10 passes"
exit 0
