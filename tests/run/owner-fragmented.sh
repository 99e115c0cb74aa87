#!/bin/sh
# Owner computes over scattered holders: a planned loop writes z at
# tokens grouped by word, so that on several ranks z's holders alternate
# every few keys (LDA's topics after a sweep); a loop that only reads z at
# its own index then ran each rank's runs of one holder, 25 times the
# loop's work on one rank.  It runs even chunks instead, their elements
# fetched; the results are the same.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/of.sap" <<'SAP'
param long n = 200000;
param int V = 500;
param int passes = 4;
dvector<int> word(n);
dvector<int> z(n);
dvector<long> cnt(V);
async for (long t = 0; t < n; t++) {
    word[t] = int((t * 7919 + t / 13) % V);
    z[t] = int(t % 5);
}
for (int p = 0; p < passes; p++) {
    async for (long t = 0; t < n; t++) {
        int w = word[t];
        int k = int((cnt[w] + z[t] + p) % 7);
        cnt[w] = cnt[w] * 3 % 1000003 + k;
        z[t] = k;
    }
    long chk = 0;
    async for (long t = 0; t < n; t++) reduce(+: chk) {
        chk += z[t] * (t % 7 + 1);
    }
    print("pass %d chk %ld\n", p, chk);
}
long c = 0;
for (int w = 0; w < V; w++) c = (c * 31 + cnt[w]) % 1000000007;
print("cnt %ld\n", c);
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o of of.sap || fail "sapc of.sap"
cat >want <<'OUT'
pass 0 chk 2421044
pass 1 chk 2427632
pass 2 chk 2434415
pass 3 chk 2399691
cnt 750281909
OUT
$MPIEXEC -n 1 ./of --threads=1 >out.1.1 || fail "1 x 1"
cmp want out.1.1 || fail "1 x 1 printed $(cat out.1.1)"
# Conflicting updates run in an order that may depend on the number of
# workers (sap(7)): each layout against the other of its workers.
for l in "2 1" "1 2" "3 1" "1 3"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./of --threads="$2" --stats >"out.$1.$2" 2>"err.$1.$2" ||
		{ cat "err.$1.$2"; fail "$1 x $2"; }
done
cmp out.2.1 out.1.2 || fail "2 x 1 and 1 x 2 differ"
cmp out.3.1 out.1.3 || fail "3 x 1 and 1 x 3 differ"
for p in 2 3; do
	grep -q '^ *2 of.sap:.* planned$' "err.$p.1" || { cat "err.$p.1"; fail "$p ranks: loop 2 not planned"; }
	grep -q '^ *3 of.sap:.* chunks$' "err.$p.1" || { cat "err.$p.1"; fail "$p ranks: loop 3 not by chunks"; }
done
exit 0
