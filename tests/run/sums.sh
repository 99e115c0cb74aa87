#!/bin/sh
# Sums of whole numbers (cnt[k] += 1 at keys from the data, never read)
# come out the same in any order: on several workers the runtime adds
# them into a copy per worker, as accumulate does, where the invocation
# has at least as many iterations as the vector has elements, and plans
# them otherwise.  Every layout prints the one rank's results, which a
# planned run (the runtime before sums) printed too; on 2 ranks the
# loops whose only dynamic keys are sums run with no reconnaissance (each
# ran one per pass, or once, before), and the vector longer than its
# loop is still planned.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >sm.sap <<'SAP'
param int passes = 3;
long n = 30000;
long m = 100;
dvector<int> w(n);
dvector<long> cnt(m);
dvector<int> ci(m);
dvector<int[3]> arr(m);
dvector<long> big(4 * n);
dvector<int> y(n);
dvector<long> both(n);
async for (long i = 0; i < n; i++)
    w[i] = int((i * 7919 + 13) % 104729 % m);
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < n; i++) {
        int k = int((w[i] + p) % m);
        if (k % 3 != 1)
            cnt[k] += 1;
        else
            cnt[k] -= 2;
    }
    async for (long i = 0; i < n; i++) {
        ci[w[i]] += 2000000011;
        ci[(w[i] * 3) % m]++;
        for (int j = 0; j < 3; j++)
            arr[(w[i] + j) % m][j] += j + p;
    }
    async for (long i = 0; i < n / 10; i++)
        big[(w[i] * 101 + i) % (4 * n)] += i;
    async for (long i = 0; i < n; i++) {
        y[(i * 31) % n] = w[i] + p;
        cnt[w[i]] += y[(i * 31) % n] % 5 == 0 ? 1 : 0;
    }
    async for (long i = 0; i < n; i++) {
        both[i] += 1;
        both[(w[i] * 17) % n] += 3;
    }
    long s = 0;
    long s2 = 0;
    long s3 = 0;
    async for (long k = 0; k < m; k++) reduce(+: s, s2) {
        s += cnt[k] * (k + 1) + long(ci[k]) * (k % 7 + 1);
        s2 += arr[k][0] + 2 * arr[k][1] + 3 * arr[k][2];
    }
    async for (long k = 0; k < 4 * n; k++) reduce(+: s3)
        s3 += big[k] * (k % 11) + (k < n ? both[k] * (k % 13 + 1) + y[k] : 0);
    print("pass %d: %d %d %d\n", p, s, s2, s3);
}
SAP
"$SAPC" -O2 -o sm sm.sap || fail "sapc sm.sap"
$MPIEXEC -n 1 ./sm >one.out </dev/null || fail "the run on 1 rank failed"
cat >want.out <<'OUT'
pass 0: 259526921837 240000 24829795
pass 1: -159550968395 660000 48200230
pass 2: 168695495162 1260000 71570665
OUT
cmp -s want.out one.out || { diff want.out one.out; fail "1 x 1 prints other sums"; }
same_on_layouts sm one.out
$MPIEXEC -n 2 ./sm --stats >stats.out 2>stats.err </dev/null ||
	{ cat stats.err; fail "the run with --stats failed"; }
# Column 3 of a loop's row is its invocations, 4 its reconnaissances.
recons=$(awk '/^sap stats: parallel loops on rank 0/ { on = 1 }
	/^sap stats: parallel loops on rank 1/ { on = 0 }
	on && $2 ~ /^sm\.sap:/ { printf "%s %s %s\n", $2, $3, $4 }' stats.err)
cat >want.recons <<'OUT'
sm.sap:11 1 0
sm.sap:14 3 0
sm.sap:21 3 0
sm.sap:27 3 1
sm.sap:29 3 1
sm.sap:33 3 0
sm.sap:40 3 0
sm.sap:44 3 0
OUT
echo "$recons" >got.recons
cmp -s want.recons got.recons ||
	{ diff want.recons got.recons; fail "the loops of sums ran other reconnaissances"; }

# A vector of sums with a static key beside its dynamic one (cnt[i]--),
# in a loop that accumulates into a double too, whose iterations go from
# one fewer than cnt's elements (planned) to as many (a copy per worker):
# the static key placed the iterations and left the sums where its
# writes were, and 2 ranks printed 28806 where 1 printed 39999.
cat >st.sap <<'SAP'
param int M = 20000;
dvector<int> src(M);
async for (long i = 0; i < M; i++) src[i] = int((i * 7919 + 5) % M);
dvector<long> cnt(M);
dvector<double> acc(M);
for (int p = 0; p < 2; p++) {
    async for (long i = 0; i < M - 1 + p; i++) accumulate(+: acc) {
        int k = src[i];
        cnt[k] += 2;
        cnt[i]--;
        acc[k] += 1;
    }
    long s = 0;
    long w = 0;
    async for (long j = 0; j < M; j++) reduce(+: s, w) { s += cnt[j]; w += cnt[j] * (j % 97); }
    print("pass %d sum %d weighted %d\n", p, s, w);
}
SAP
"$SAPC" -O2 -o st st.sap || fail "sapc st.sap"
$MPIEXEC -n 1 ./st >st.one </dev/null || fail "st: the run on 1 rank failed"
cat >st.want <<'OUT'
pass 0 sum 19999 weighted 959190
pass 1 sum 39999 weighted 1918479
OUT
cmp -s st.want st.one || { diff st.want st.one; fail "st: 1 x 1 prints other sums"; }
same_on_layouts st st.one

# A loop serialized because every iteration writes count[0], with only
# static keys besides: its sums go to copies, and it runs in chunks.
cat >c0.sap <<'SAP'
long n = 100000;
dvector<long> count(4);
dvector<double> y(n);
async for (long i = 0; i < n; i++) {
    count[0] += 1;
    if (i % 3 == 0)
        count[1 + i % 3] += i % 7;
    y[i] = i * 0.5;
}
print("%d %d %d %.17g\n", count[0], count[1], count[2], y[7]);
SAP
"$SAPC" -O2 -o c0 c0.sap || fail "sapc c0.sap"
$MPIEXEC -n 1 ./c0 >c0.one </dev/null || fail "c0: the run on 1 rank failed"
echo "100000 100002 0 3.5" >c0.want
cmp -s c0.want c0.one || { diff c0.want c0.one; fail "c0: 1 x 1 prints other sums"; }
same_on_layouts c0 c0.one
$MPIEXEC -n 2 ./c0 --stats >c0.out 2>c0.err </dev/null || { cat c0.err; fail "c0 --stats failed"; }
grep -q '^ *1 c0\.sap:4 .* chunks' c0.err || { cat c0.err; fail "c0: the loop did not run in chunks"; }
exit 0
