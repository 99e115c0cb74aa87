#!/bin/sh
# A run that stops with an error keeps, in its --dump-order file, every
# loop run that started before, on any number of ranks (a rank's error
# aborts the job, which kills rank 0 before exit() would flush), and on
# one rank the one it stopped in: the replay of that file stops at the
# same error.  Over ranks another rank may stop the job while rank 0
# writes the order of the run that fails, so there the replay may end
# where that run starts instead.  A replay that ends before its file does
# (recorded by a run that went further, with other parameters) warns.
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp
cd "$tmp" || exit 1

cat >stop.sap <<'SAP'
param int n = 100;
dvector<int> key(n);
async for (long i = 0; i < n; i++) key[i] = int((i * 7) % 13);
dvector<int> V(13);
for (int pass = 0; pass < 3; pass++) {
    async for (long i = 0; i < n; i++) {
        V[key[i]] = V[key[i]] * 3 + int(i);
    }
}
async for (long i = 0; i < n; i++) {
    V[key[i] + 13 * (i / 99)] += 1;     // 17 at i = 99
}
print("done %d\n", V[0]);
SAP
"$SAPC" -o stop stop.sap || fail "sapc stop.sap"

for np in 1 2 3; do
	$MPIEXEC -n "$np" ./stop --threads=1 --dump-order=order.$np >out 2>err &&
		fail "$np ranks: the run did not stop"
	grep -q "index 17 out of range" err || { cat err; fail "$np ranks: not the index error"; }
	# The four runs before the failing one: the first loop and three passes.
	runs=$(grep -c '^loop ' order.$np)
	[ "$runs" -ge 4 ] || { cat order.$np; fail "$np ranks: $runs loop runs in the dump, not 4"; }
	./stop --threads=1 --run-order=order.$np >out 2>err.replay &&
		fail "$np ranks: the replay did not stop"
	grep -q "index 17 out of range" err.replay ||
		{ [ "$np" -gt 1 ] && grep -q "ends where invocation 1 of loop 3 " err.replay; } ||
		{ cat err.replay; fail "$np ranks: the replay did not reach the same error"; }
done

cat >passes.sap <<'SAP'
param int passes = 3;
dvector<double> W(50);
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < 50; i++) { W[i] = W[i] * 0.5 + rand(); }
}
print("%.17g\n", W[7]);
SAP
"$SAPC" -o passes passes.sap || fail "sapc passes.sap"
./passes --threads=2 --dump-order=order.passes >out.full 2>/dev/null || fail "passes: the run"
./passes --run-order=order.passes >out.replay 2>err.replay || fail "passes: the replay"
cmp -s out.full out.replay || fail "passes: the replay printed another value"
test -s err.replay && { cat err.replay; fail "passes: the full replay warned"; }
./passes --passes=1 --run-order=order.passes >/dev/null 2>err.short || fail "passes: the short replay"
grep -q "warning: --run-order=order.passes: the program ended before the file did (line 54: \"loop 1 invocation 2 count 50\")" err.short ||
	{ cat err.short; fail "passes: a replay that ends before its file did not warn"; }
exit 0
