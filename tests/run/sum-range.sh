#!/bin/sh
# Longs added to ints (an accumulated vector, map, struct field or relaxed
# vector, a reduce variable, a vector a sync for writes): every step is
# checked for range, as a store is, and so is the adding up of the
# workers' copies, which used to wrap: 2 workers printed -1294967296
# where 1 worker stopped with an error.
# Ints added to ints wrap alike on every layout.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >sr.sap <<'SAP'
param long big = 1500000000;
param long last = 1500000000;
param int which = 0;
param int n = 1000;
struct S { long total; int hits[2]; }
dvector<long> v(n);
dvector<int> iv(n);
v[0] = big;
v[n - 1] = last;
iv[0] = int(big);
iv[n - 1] = int(last);
if (which == 0) {
    dvector<int> c(3);
    async for (long i = 0; i < n; i++) accumulate(+: c) c[1] += v[i];
    print("vector %d\n", c[1]);
} else if (which == 1) {
    dmap<string, int> m;
    async for (long i = 0; i < n; i++) accumulate(+: m) m["k"] += v[i];
    print("map %d\n", m["k"]);
} else if (which == 2) {
    dvector<S> s(2);
    async for (long i = 0; i < n; i++) accumulate(+: s) {
        s[1].total += v[i];
        s[1].hits[1] += v[i];
    }
    print("struct %d\n", s[1].hits[1]);
} else if (which == 3) {
    dvector<int> r(2);
    async for (long i = 0; i < n; i++) relaxed(+: r) r[1] += v[i];
    print("relaxed %d\n", r[1]);
} else if (which == 4) {
    int t = 0;
    async for (long i = 0; i < n; i++) reduce(+: t) t += v[i];
    print("reduce %d\n", t);
} else if (which == 6) {
    dvector<int> c(2);
    sync for (long x : v) with (bsp, batch = n, merge(c) = sum) c[1] += x;
    print("sync %d\n", c[1]);
} else if (which == 7) {
    dvector<S> s(2);
    sync for (long x : v) with (ssp(1), batch = n, merge(s) = sum) s[1].hits[1] += x;
    print("ssp %d\n", s[1].hits[1]);
} else if (which == 8) {
    dvector<int> c(2);
    sync for (long x : v) with (bsp, batch = n, merge(c) = sum, recon = on) c[x != 0 ? 1 : 0] += x;
    print("sparse %d\n", c[1]);
} else if (which == 9) {
    dvector<int> c(2);
    sync for (long x : v) with (bsp, batch = n) c[1] = c[1] + x;
    print("avg %d\n", c[1]);
} else {
    dvector<int> w(2);
    int t = 0;
    async for (long i = 0; i < n; i++) accumulate(+: w) reduce(+: t) {
        w[1] += iv[i];
        t += iv[i];
    }
    print("wrapped %d %d\n", w[1], t);
}
SAP
"$SAPC" -O2 -o sr sr.sap || fail "sapc sr.sap"

# $1 ranks, $2 threads, then the options; the output in out, err.
run() {
	r=$1 t=$2
	shift 2
	$MPIEXEC -n "$r" ./sr --threads="$t" "$@" >out 2>err </dev/null
}

for w in 0 1 2 3 4 6 7 8 9; do
	run 1 1 --which=$w && fail "which=$w 1 x 1 did not stop: $(cat out)"
	grep -q "sr.sap:.*error: 3000000000 stored in" err || { cat err; fail "which=$w 1 x 1"; }
	for l in "1 2" "2 1"; do
		# shellcheck disable=SC2086
		run $l --which=$w && fail "which=$w $l did not stop: $(cat out)"
		# Under ssp a rank's copy may take the other's change before
		# its own store, which then stops it.
		grep -q "sr.sap:.*error: the workers' .* \(add up\|combine\) to 3000000000: out of the range of an int" err ||
			{ [ $w = 7 ] && grep -q "sr.sap:.*error: 3000000000 stored in an int" err; } ||
			{ cat err; fail "which=$w $l: no message about the sum"; }
	done
	# In range: the exact sum (an average, 9's, is another number).
	test $w = 9 && continue
	run 2 1 --which=$w --last=-1499999995 || { cat err; fail "which=$w 2 x 1 in range"; }
	grep -q " 5$" out || fail "which=$w 2 x 1 in range printed $(cat out)"
done
for l in "1 1" "3 1"; do
	# shellcheck disable=SC2086
	run $l --which=5 || { cat err; fail "which=5 $l"; }
	test "$(cat out)" = "wrapped -1294967296 -1294967296" || fail "which=5 $l printed $(cat out)"
done
exit 0
