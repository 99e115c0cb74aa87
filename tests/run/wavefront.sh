#!/bin/sh
# An edit distance by anti-diagonals of a flattened table: an async for per
# diagonal, each over new bounds, up to 600 cells of a table of 420 k.  A
# plan keeps track of every cell of the table, so such invocations run in
# index order on one worker, on every rank, rather than plan 1,300 times
# (2 ranks took 24 times as long as one).  The distance is the same on
# every layout, and no layout plans the diagonals.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >wf.sap <<'SAP'
param long N = 700;
param long M = 600;
dvector<int> A(N);
dvector<int> B(M);
for (long i = 0; i < N; i++) A[i] = int((i * 7 + i / 5) % 4);
for (long j = 0; j < M; j++) B[j] = int((j * 5 + j / 3) % 4);
long S = M + 1;
dvector<int> D((N + 1) * S);
for (long i = 0; i < N + 1; i++) D[i * S] = int(i) * 2;
for (long j = 0; j < M + 1; j++) D[j] = int(j) * 3;
int cost(int x, int y) { if (x == y) return 0; return 1 + (x + y) % 3; }
for (long d = 2; d <= N + M; d++) {
    long lo = max(1L, d - M);
    long hi = min(N, d - 1);
    async for (long i = lo; i < hi + 1; i++) {
        long j = d - i;
        long c = i * S + j;
        int best = D[c - S - 1] + cost(A[i - 1], B[j - 1]);
        int del = D[c - S] + 2;
        int ins = D[c - 1] + 3;
        if (del < best) best = del;
        if (ins < best) best = ins;
        D[c] = best;
    }
}
long chk = 0;
for (long i = 0; i < (N + 1) * S; i++) chk += D[i] * (i % 7 + 1);
print("dist %d chk %d\n", D[N * S + M], chk);
SAP
"$SAPC" -O2 -o wf wf.sap || fail "sapc wf.sap"
for l in "1 1" "1 2" "2 1" "3 1"; do
	set -- $l
	$MPIEXEC -n "$1" ./wf --threads="$2" --stats >"out$1$2" 2>"err$1$2" </dev/null ||
		{ cat "err$1$2"; fail "$1 x $2 failed"; }
	cmp out11 "out$1$2" || fail "$1 x $2 printed $(cat "out$1$2"), 1 x 1 $(cat out11)"
	# Column 6 of the loop's --stats row is its plans.
	plans=$(awk '$2 == "wf.sap:15" { print $6; exit }' "err$1$2")
	test "$plans" = 0 || { cat "err$1$2"; fail "$1 x $2 planned the diagonals $plans times"; }
done
exit 0
