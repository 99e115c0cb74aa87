#!/bin/sh
# A program keeps no OpenBLAS threads: OpenBLAS's pthreads build starts
# one per core when it is loaded, which spins in sched_yield for about
# 0.1 s on the cores the workers load data on (runtime/lib/vmath.c stops
# them).  A program running for a second has the threads it has under
# OPENBLAS_NUM_THREADS=1, where OpenBLAS starts none.  On one CPU OpenBLAS
# starts none either, and the test is skipped.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

test "$(nproc 2>/dev/null || echo 1)" -ge 2 || exit 77
cat >"$tmp/wait.sap" <<'SAP'
double t0 = wtime();
long k = 0;
while (wtime() - t0 < 2.5)
    k++;
print("%d\n", k > 0);
SAP
"$SAPC" -o "$tmp/wait" "$tmp/wait.sap" || fail "sapc"

# The program's threads 1.2 s after it starts (its start-up is over).
threads() {
	"$@" "$tmp/wait" --threads=1 >"$tmp/out" &
	pid=$!
	sleep 1.2
	n=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
	wait "$pid" || fail "the program failed"
	test "$(cat "$tmp/out")" = 1 || fail "the program printed $(cat "$tmp/out")"
	test "$n" -gt 0 || fail "the program ended before 1.2 s"
	echo "$n"
}
plain=$(threads env) || exit 1
none=$(threads env OPENBLAS_NUM_THREADS=1) || exit 1
test "$plain" = "$none" ||
	fail "$plain threads, $none with OPENBLAS_NUM_THREADS=1: OpenBLAS's are still there"
exit 0
