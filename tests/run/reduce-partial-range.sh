#!/bin/sh
# An int reduced by += of longs: the serial loop's running total stays in
# range, but on 3 workers one worker's partial sum does not.  The error
# says that the variable holds a worker's partial value and to widen it,
# rather than blame a line that never overflows serially.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >iovf.sap <<'SAP'
param int n = 30000;
dvector<long> a(n);
a[0] = -1500000000L;
a[n / 2 - 1] = 1500000000L;
a[n / 2] = 1500000000L;
a[n - 1] = -1500000000L;
int s = 0;
async for (long i = 0; i < n; i++) reduce(+: s) s += a[i];
print("s %d\n", s);
SAP
"$SAPC" -O2 -o iovf iovf.sap || fail "sapc iovf.sap"
$MPIEXEC -n 1 ./iovf --threads=1 >out 2>err </dev/null || { cat err; fail "1 x 1 failed"; }
test "$(cat out)" = "s 0" || fail "1 x 1 printed $(cat out)"
$MPIEXEC -n 1 ./iovf --threads=3 >out 2>err </dev/null && fail "1 x 3 did not stop"
grep -q "iovf.sap:8:.*error: 3000000000 stored in s: out of the range of an int; s holds one worker's partial value of its reduce clause" err ||
	{ cat err; fail "1 x 3: no message about the partial value"; }
exit 0
