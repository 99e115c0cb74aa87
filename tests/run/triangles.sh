#!/bin/sh
# Rows and columns of a flat matrix from its diagonal on: a kernel
# matrix's upper triangle by rows, mirrored into the lower, K[i * n + j]
# and K[j * n + i] for j from i.  Their hulls meet, their keys never do,
# which the strides cannot show: planned at a key per element, 1 x 2 took
# 100 times the serial loop (helper KER).  The runtime now takes the keys
# as cells of a grid of rows n long, each iteration's a row's or a
# column's run, and finds the cells of different iterations apart: the
# loop runs in chunks on a rank's threads, and over ranks as one rank of
# all the workers on every rank.  Whole rows and columns, and a row from
# one before the diagonal, whose cells do meet, are planned; and every
# layout gives the serial loop's numbers.  A band's row, j from i - 2 to
# i + 2, is j = i + t: a row of keys moving by the band's width, in chunks
# (helper U19: its grid check at each of 10 invocations of 4 M rows took
# 15 times the loop).  A matrix after a header, K[1 + i * n + j], is a grid
# whose rows start at 1.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1
# Loops of 300 iterations plan rather than run in index order.
SAP_PLAN_SMALL=1
export SAP_PLAN_SMALL

cat >tri.sap <<'SAP'
param long n = 300;
dvector<double> X(n);
for (long i = 0; i < n; i++)
    X[i] = (i * 37 % 101) * 0.01;
// The upper triangle by rows, mirrored into the lower.
dvector<double> K(n * n);
async for (long i = 0; i < n; i++)
    for (long j = i; j < n; j++) {
        double k = X[i] * X[j] + 1.0 / (1 + i + j);
        K[i * n + j] = k;
        K[j * n + i] = k;
    }
// Strictly above, mirrored, and the diagonal apart.
dvector<double> L(n * n);
async for (long i = 0; i < n; i++) {
    L[i * n + i] = X[i] * X[i];
    for (long j = i + 1; j < n; j++) {
        L[i * n + j] = X[i] - X[j];
        L[j * n + i] = X[j] - X[i];
    }
}
// Whole rows and whole columns: row i meets column i' at (i, i').
dvector<double> M(n * n);
async for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
        double v = X[i] + X[j];
        M[i * n + j] = v;
        M[j * n + i] = v;
    }
// The lower triangle from the upper, read by columns.
async for (long i = 1; i < n; i++)
    for (long j = 0; j < i; j++)
        L[i * n + j] = L[i * n + j] + L[j * n + i];
// From one before the diagonal: iteration i's row holds (i, i - 1), which
// iteration i - 1's column holds too.
dvector<double> P(n * n);
async for (long i = 1; i < n; i++)
    for (long j = i - 1; j < n; j++) {
        double v = X[i] * X[j] + X[i] + X[j];
        P[i * n + j] = v;
        P[j * n + i] = v;
    }
// Downwards.
dvector<double> Q(n * n);
async for (long i = 0; i < n; i++)
    for (long j = n - 1; j >= i; j--) {
        Q[i * n + j] = i - j;
        Q[j * n + i] = j - i;
    }
// A band kept five to a row, j from i - 2 to i + 2 at B[i * 5 + j - i + 2]:
// j = i + t, the keys moving by 5, a row of its own; a guard on j is
// no bound of t.
dvector<double> B(n * 5);
async for (long i = 2; i < n - 2; i++)
    for (long j = i - 2; j <= i + 2; j++)
        if (j > 3)
            B[i * 5 + j - i + 2] = B[i * 5 + j - i + 2] + X[j] * (j - i);
// A band mirrored, j from i to i + 2: shifted as the band above, its rows
// and columns still a grid's, apart (helper U20: planned for a while).
dvector<double> W(n * n);
async for (long i = 0; i < n - 2; i++)
    for (long j = i; j <= i + 2; j++) {
        W[i * n + j] = X[i] * X[j] + 1.0 / (1 + i + j);
        W[j * n + i] = X[i] * X[j] - 1.0 / (1 + i + j);
    }
// After a header of one element: the grid's rows start at key 1 (helper
// NEW: planned at a key per element, 350 MB).
dvector<double> H(n * n + 1);
async for (long i = 0; i < n; i++)
    for (long j = i; j < n; j++) {
        H[1 + i * n + j] = X[i] * X[j] + 1.0 / (1 + i + j);
        H[1 + j * n + i] = X[i] * X[j] - 1.0 / (1 + i + j);
    }
// Its columns one to the right of the rows': column i + 1 from row i
// meets row i + 1 at its diagonal (max, so that a plan's order gives the
// serial loop's numbers).
async for (long i = 0; i < n - 1; i++)
    for (long j = i; j < n - 1; j++) {
        H[i * n + j] = max(H[i * n + j], X[i] + X[j]);
        H[1 + j * n + i] = max(H[1 + j * n + i], X[i] * X[j]);
    }
double s = 0;
for (long t = 0; t < n * n; t++)
    s += (K[t] + L[t] * 2 + M[t] * 3 + P[t] * 4 + Q[t] * 5 + W[t] * 6) * (t % 7 + 1);
for (long t = 0; t < n * 5; t++)
    s += B[t] * (t % 3 + 1);
for (long t = 0; t < n * n + 1; t++)
    s += H[t] * (t % 5 + 1);
print("%.17g\n", s);
SAP
sed 's/async for/for/' tri.sap >serial.sap
"$SAPC" -O2 -o tri tri.sap || fail "sapc tri.sap"
"$SAPC" -O2 -o serial serial.sap || fail "sapc serial.sap"
./serial >want || fail "serial run"
for l in "1 2" "2 1" "1 3" "3 1" "2 2"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./tri --threads="$2" --stats >out 2>err || { cat err; fail "$l: run failed"; }
	head -n 1 out | cmp -s - want || { cat want out; fail "$l: not the serial loop's numbers"; }
	for line in 7 15 31 45 54 61 69; do
		grep "^ *[0-9]* tri.sap:$line " out err | grep -q " chunks" ||
			{ cat out err; fail "$l: line $line not in chunks"; }
	done
	for line in 24 37 76; do
		grep "^ *[0-9]* tri.sap:$line " out err | grep -q " chunks" &&
			{ cat out err; fail "$l: line $line, whose cells meet, in chunks"; }
	done
done
exit 0
