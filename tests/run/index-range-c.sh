#!/bin/sh
# A local whose every write puts a value inside an array (an argmax's
# best = j in a loop over the array) indexes it with no test: the test
# on s[best] kept cc from making the branch a conditional move, and the
# loop ran 3x slower than its C twin.  Where a write may leave the array
# (best = -1, j + 1 at the end, an increment, a value from elsewhere),
# the test stays, and the program stops at it.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

cat >"$tmp/a.sap" <<'SAP'
const int K = 16;
param int far = 3;
int pick(long[K] s) {
    int best = 0;
    for (int j = 1; j < K; j++)
        if (s[j] > s[best]) best = j;
    return best;
}
long t = 0;
async for (long i = 0; i < 1000; i++) reduce(+: t) {
    long[K] s;
    for (int j = 0; j < K; j++) s[j] = (i * 7 + j * 5) % 11;
    int top;
    for (int j = 0; j < K; j++)
        if (s[j] > s[top]) top = j > 3 ? j : 3;
    int low = -1;
    for (int j = 0; j < K; j++)
        if (s[j] < 3) low = j;
    if (low >= 0) t += s[low];
    int next = 0;
    for (int j = 0; j < K; j++)
        if (s[j] > 9) next = j + 1;
    int bumped = 0;
    bumped++;
    int given = far;
    t += pick(s) + top + s[top] + s[bumped] + s[given] + next;
}
print("%ld\n", t);
SAP
"$SAPC" -S -o "$tmp/a.c" "$tmp/a.sap" || fail "sapc -S"
for v in best top; do
	grep -q "sap_check_index(u_${v}[_0-9]*," "$tmp/a.c" && fail "s[$v] is still tested"
done
for v in low bumped given; do
	grep -q "sap_check_index(u_${v}[_0-9]*," "$tmp/a.c" || fail "s[$v] is not tested"
done
"$SAPC" -o "$tmp/a" "$tmp/a.sap" || fail "sapc"
out=$("$tmp/a") || fail "the program failed"
test "$out" = "43529" || fail "printed $out, expected 43529"

# next = j + 1 reaches K: it is tested, and stops the program there.
sed 's/+ next;/+ next + s[next];/' "$tmp/a.sap" >"$tmp/b.sap"
"$SAPC" -o "$tmp/b" "$tmp/b.sap" || fail "sapc b.sap"
"$tmp/b" >"$tmp/b.out" 2>"$tmp/b.err" && fail "s[next] out of range ran to the end"
grep -q "b.sap:26:.*index 16 out of range" "$tmp/b.err" || { cat "$tmp/b.err"; fail "no index error at s[next]"; }
exit 0
