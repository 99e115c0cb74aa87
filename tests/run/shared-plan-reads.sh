#!/bin/sh
# A loop that only reads, at and next to its loop variable, after a
# planned loop over the same iterations runs in that loop's plan; on
# several ranks it fetched nothing by keys and gathered every vector it
# read instead, each invocation (a check of a running sum, y[i] against
# y[i - 1]: 32 MB an invocation of 4 M-element vectors on 2 ranks).  Now
# it fetches the elements around its iterations, and prints what one
# rank of as many threads prints.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >pr.sap <<'SAP'
param long n = 400000;
param int passes = 3;
dvector<long> a(n);
dvector<long> y(n);
dvector<long> yo(n);
for (long i = 0; i < n; i++) a[i] = (i * 7919) % 1000;
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < n; i++) yo[i] = y[i];
    async for (long i = 1; i < n; i++) {
        y[i] = y[i - 1] + a[i] + p;
    }
    long bad = 0;
    long h = 0;
    async for (long i = 1; i < n; i++) reduce(+: bad) reduce(^: h) {
        long v = y[i] - a[i] - p;
        if (v != yo[i - 1] && v != y[i - 1]) bad += 1;
        h ^= y[i] * (2 * i + 1);
    }
    print("pass %d bad %d hash %d\n", p, bad, h);
}
SAP
"$SAPC" -O2 -Wno-loop-carried -o pr pr.sap || fail "sapc pr.sap"
for t in 2 3; do
	$MPIEXEC -n 1 ./pr --threads=$t >"out1$t" 2>"err1$t" </dev/null || { cat "err1$t"; fail "1 x $t failed"; }
	$MPIEXEC -n $t ./pr --threads=1 --stats >"out${t}1" 2>"err${t}1" </dev/null ||
		{ cat "err${t}1"; fail "$t x 1 failed"; }
	cmp "out1$t" "out${t}1" || fail "$t x 1 printed $(cat "out${t}1"), 1 x $t $(cat "out1$t")"
	grep -q "bad [^0]" "out${t}1" && fail "$t x 1: $(cat "out${t}1")"
	grep -q "pr.sap:14 .*loop 2's plan" "err${t}1" || { cat "err${t}1"; fail "$t x 1: loop 3 not in loop 2's plan"; }
done
sent_mb pr pr.sap:14
awk -v mb="$mb" 'BEGIN { exit !(mb < 1) }' || fail "2 x 1 sent $mb MB for the reading loop"
exit 0
