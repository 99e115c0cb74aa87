#!/bin/sh
# The minimum over a node's neighbours, written as a reader who ports
# C writes it: if (lab[u] < m) m = lab[u].  The read under the condition
# has the key the condition's read has just recorded; recording it
# again made the read slice decide the condition, read lab itself and
# so make lab whole on every rank, each pass (8 MB over 10 passes on 2
# ranks, where only a few neighbours are across the cut).  Every layout
# prints the one rank's sums.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >fr.sap <<'SAP'
struct Node { list<int> nb; }
param int passes = 10;
long n = 200000;
dvector<Node> G(n);
async for (long v = 0; v < n; v++) {
    push(G[v].nb, int((v + 1) % n));
    push(G[v].nb, int((v + n - 3) % n));
    if (v % 1000 == 0)
        push(G[v].nb, int((v * 7919) % n));
}
dvector<long> lab(n);
dvector<long> nl(n);
async for (long v = 0; v < n; v++) lab[v] = (v * 2654435761) % 1000003;
for (int p = 0; p < passes; p++) {
    async for (long v = 0; v < n; v++) {
        long m = lab[v];
        for (long k = 0; k < len(G[v].nb); k++) {
            int u = G[v].nb[k];
            if (lab[u] < m)
                m = lab[u];
        }
        nl[v] = m;
    }
    async for (long v = 0; v < n; v++) lab[v] = nl[v];
    long s = 0;
    async for (long v = 0; v < n; v++) reduce(+: s) s += lab[v] % 1000;
    print("pass %d sum %d\n", p, s);
}
SAP
"$SAPC" -O2 -o fr fr.sap || fail "sapc fr.sap"
$MPIEXEC -n 1 ./fr >one.out </dev/null || fail "the run on 1 rank failed"
cat >want.out <<'OUT'
pass 0 sum 99840055
pass 1 sum 99763051
pass 2 sum 99698287
pass 3 sum 99585152
pass 4 sum 99465416
pass 5 sum 99346021
pass 6 sum 99299532
pass 7 sum 99232301
pass 8 sum 99168041
pass 9 sum 99118260
OUT
cmp -s want.out one.out || { diff want.out one.out; fail "1 x 1 prints other sums"; }
same_on_layouts fr one.out
# The loop's sent_MB on rank 0 of 2.
sent_mb fr fr.sap:15
awk -v mb="$mb" 'BEGIN { exit !(mb < 1) }' ||
	fail "the loop sent $mb MB from rank 0 over 10 passes to read the neighbours across the cut"
exit 0
