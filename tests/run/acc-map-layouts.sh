#!/bin/sh
# Accumulating into a map over ranks (sap-run(1)): a PageRank over nodes
# named by strings, pushing rank[u] / deg[u] into a fresh map each
# iteration from a loop over rank's keys.  The loop runs where each key is
# (chunks (owner computes)), reading the adjacency multimap of strings
# whole; the sums, over 4096 keys, go to the ranks that hold their keys,
# and the map stays parted for the next loop over its keys.
#  - 1 x 2 prints what 2 x 1 prints, and 1 x 3 what 3 x 1 prints, bit for
#    bit (the sums are of doubles: the same workers give the same sums);
#  - 1 x 1 equals the same iterations written as serial loops;
#  - on 2 ranks each rank sends about its share of the sums, not the map.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/pr.sap" <<'SAP'
param long n = 12000;
param int iters = 8;
dmultimap<string, string> adj;
dmap<string, double> rank;
for (long i = 0; i < n; i++) {
    string u = "node" + string(i);
    rank[u] = 1.0 / n;
    long k = 1 + (i * 7 % 5);
    for (long e = 0; e < k; e++)
        insert(adj, u, "node" + string((i * 7919 + e * 104729 + e * e) % n));
}
dmap<string, double> twin;
dvector<string> ks = keys(rank);
for (long i = 0; i < len(ks); i++)
    twin[ks[i]] = rank[ks[i]];
for (int it = 0; it < iters; it++) {
    dmap<string, double> nxt;
    async for (string u : rank) accumulate(+: nxt) {
        list<string> o = adj[u];
        double share = rank[u] / len(o);
        for (long e = 0; e < len(o); e++)
            nxt[o[e]] += share;
    }
    async for (string u : rank) {
        rank[u] = 0.15 / n + 0.85 * get(nxt, u, 0.0);
    }
    // The serial loops, in the keys' order.
    dmap<string, double> tn;
    for (long i = 0; i < len(ks); i++) {
        list<string> o = adj[ks[i]];
        double share = twin[ks[i]] / len(o);
        for (long e = 0; e < len(o); e++)
            tn[o[e]] += share;
    }
    for (long i = 0; i < len(ks); i++)
        twin[ks[i]] = 0.15 / n + 0.85 * get(tn, ks[i], 0.0);
}
double total = 0, tt = 0;
long same = 0;
for (long i = 0; i < len(ks); i++) {
    total += rank[ks[i]];
    tt += twin[ks[i]];
    same += rank[ks[i]] == twin[ks[i]] ? 1 : 0;
}
printf("total %.17g node5 %.17g node11999 %.17g\n", total, rank["node5"], rank["node11999"]);
printf("twin %.17g, %ld of %ld equal\n", tt, same, len(ks));
SAP
"$SAPC" -O2 -o "$tmp/pr" "$tmp/pr.sap" || fail "sapc pr.sap"
cd "$tmp" || exit 99

for l in 1x1 1x2 2x1 1x3 3x1; do
	np=${l%x*} nt=${l#*x}
	$MPIEXEC --bind-to none -n "$np" ./pr --threads="$nt" --stats >"out.$l" 2>"err.$l" ||
		{ cat "err.$l"; fail "$l: the run failed"; }
done
sed -n 2p out.1x1 | grep -q "^twin .*, 12000 of 12000 equal$" ||
	{ cat out.1x1; fail "1 x 1 is not the serial loops' result"; }
cmp -s out.1x2 out.2x1 || { diff out.1x2 out.2x1; fail "1 x 2 and 2 x 1 differ"; }
cmp -s out.1x3 out.3x1 || { diff out.1x3 out.3x1; fail "1 x 3 and 3 x 1 differ"; }
# The first loop over rank's keys runs where the keys are, each rank
# sending the sums of the keys the other holds, in records of 40 bytes:
# 1.4 MB over the 8 iterations, where the chain and the whole total to
# every rank sent 2.3 MB (and ran 2.3 times as long).
line=$(grep -E '^ +1 .*pr\.sap:18 ' err.2x1 | head -n 1)
echo "$line" | grep -q "chunks (owner computes)$" || { cat err.2x1; fail "2 x 1: loop 1 not owner computes"; }
sent=$(echo "$line" | awk '{print $13}')
awk -v s="$sent" 'BEGIN { exit !(s > 0.5 && s < 2.0) }' ||
	{ cat err.2x1; fail "2 x 1: loop 1 sent $sent MB"; }
exit 0
