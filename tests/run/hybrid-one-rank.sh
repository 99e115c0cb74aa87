#!/bin/sh
# hybrid on one rank merges nothing, so its threads run Hogwild in one
# step, as sap(7) says, whatever the merge: with merge(w) = sum (as
# samples/word2vec.sap has) or an integer vector the loop ran in lock
# step instead, copying and merging the whole vector after every
# mini-batch (1000 steps of a 1M-element vector here).  A merge function
# still applies after every step, so it keeps the steps.  The elements
# of I are the indices, each once, so that no two threads add to one
# element of w or c: Hogwild's threads may lose such additions.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/h.sap" <<'SAP'
param int n = 2000;
dvector<long> I(n);
dvector<float> w(n);
dvector<long> c(n);
async for (long k = 0; k < n; k++)
    I[k] = k;
sync for (long i : I) with (hybrid, batch = 10, merge(w) = sum) {
    w[i] += 1;
}
sync for (long i : I) with (hybrid, batch = 10) {
    c[i] += 1;
}
long s = 0;
async for (long j = 0; j < n; j++) reduce(+: s) s += c[j];
print("%d\n", s);
SAP
cd "$tmp" || exit 1
"$SAPC" -o h h.sap || fail "sapc h.sap"
$MPIEXEC -n 1 ./h --threads=2 --stats >h.out 2>h.err || { cat h.err; fail "h on 1 x 2"; }
test "$(head -n 1 h.out)" = 2000 || fail "h: $(head -n 1 h.out), not 2000"
# The steps column of both loops' rows in the sync table.
steps=$(awk '$3 == "hybrid" || $4 == "hybrid" { for (i = 1; i <= NF; i++) if ($i == "hybrid") print $(i + 2) }' h.out h.err)
test "$steps" = "1
1" || { cat h.out h.err; fail "hybrid on one rank: steps '$steps', not one each"; }
exit 0
