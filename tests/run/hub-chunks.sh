#!/bin/sh
# Loops whose rows are apart but for a few that all read (hub-rows.sap:
# Floyd-Warshall's row k, Gauss-Jordan's pivot row, two rows read from a
# loop running backwards, a sum beside the updates) run in chunks
# between those rows' iterations, with no reconnaissance nor plan, where
# each was planned anew for every k (Floyd-Warshall, n = 400: 8 s of
# plans on 1 x 2, 16 s on 2 x 1, against 0.15 s of body); over ranks,
# each hub's rank sends the row all read after it, or every rank runs all
# of it, whichever ran faster.  Results are
# the serial program's (hub-rows.out, from its C twin), and a sum of
# floats is the same on every layout of as many workers.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1
cp "$top_srcdir/tests/run/hub-rows.sap" . || fail "no hub-rows.sap"
"$SAPC" -o hr hub-rows.sap || fail "sapc hub-rows.sap"
for l in "1 2" "2 1" "1 3" "3 1" "2 2"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./hr --threads="$2" --stats >out 2>err || { cat err; fail "$1 x $2"; }
	cmp out "$top_srcdir/tests/run/hub-rows.out" || fail "$1 x $2: output differs"
	for loop in 2 5 7 9; do
		grep -q "^ *$loop hub-rows.sap:[0-9]* *[0-9]* *0 .* chunks: between the few iterations" err ||
			{ cat err; fail "$1 x $2: loop $loop did not run in chunks between its hubs"; }
	done
done
# On one rank's threads: 3 rounds (chunks, hub, chunks), 5 for two hubs.
$MPIEXEC -n 1 ./hr --threads=2 --stats >out 2>err || { cat err; fail "1 x 2"; }
rounds() {
	sed -n "s/^ *$1 hub-rows.sap:[0-9]*\( *[0-9.]*\)\{6\} *\([0-9]*\) .*/\2/p" err | head -n 1
}
test "$(rounds 2) $(rounds 7)" = "3 5" || { cat err; fail "rounds $(rounds 2) $(rounds 7), not 3 5"; }

# A sum of floats beside the updates: each worker's partial sum takes
# its chunk's rows in order, the hub's included, as in chunks, so every
# layout of as many workers gives the same bits; over ranks, spread (the
# first three passes, each hub's rank sending row n / 3 after it) as
# whole on every rank (the next three).
cat >fs.sap <<'SAP'
param int n = 200;
param int m = 13;
dvector<double> S(n * m);
async for (long i = 0; i < n * m; i++) S[i] = (i % 9) / 3.0 + 0.1;
double sum = 0;
for (int pass = 0; pass < 8; pass++) {
    async for (long i = 0; i < n; i++) reduce(+: sum) {
        for (long j = 0; j < m; j++) {
            S[i * m + j] = S[i * m + j] * 0.9 + S[(n / 3) * m + j] / 7;
            sum += S[i * m + j];
        }
    }
}
print("%a\n", sum);
SAP
"$SAPC" -o fs fs.sap || fail "sapc fs.sap"
for w in 2 3; do
	$MPIEXEC -n 1 ./fs --threads="$w" >a 2>err || { cat err; fail "fs 1 x $w"; }
	$MPIEXEC -n "$w" ./fs --threads=1 >b 2>err || { cat err; fail "fs $w x 1"; }
	cmp a b || fail "fs: 1 x $w and $w x 1 differ"
done
$MPIEXEC -n 2 ./fs --threads=2 >b 2>err || { cat err; fail "fs 2 x 2"; }
$MPIEXEC -n 1 ./fs --threads=4 >a 2>err || { cat err; fail "fs 1 x 4"; }
cmp a b || fail "fs: 1 x 4 and 2 x 2 differ"

# Keys apart pair by pair (a Haar lifting's w[a] and w[a + st], a = 2 st
# p), which only a rank's threads check: on 2 ranks no iteration writes
# what all read, and --stats does not say so (it did); nor is such a loop
# run whole on every rank, which moved an LU's matrix at every row swap.
cat >haar.sap <<'SAP'
param int L = 64;
dvector<double> w(3 * L);
async for (long i = 0; i < len(w); i++) w[i] = (i * 7 % 11) / 4.0;
for (int st = 1; st < L; st = st * 2) {
    long pairs = len(w) / (2 * st);
    async for (long p = 0; p < pairs; p++) {
        long a = p * 2 * st;
        double d = w[a + st] - w[a];
        w[a] = w[a] + d / 2;
        w[a + st] = d;
    }
}
double h = 0;
for (long i = 0; i < len(w); i++) h = h * 0.5 + w[i];
print("%a\n", h);
SAP
"$SAPC" -o haar haar.sap || fail "sapc haar.sap"
$MPIEXEC -n 1 ./haar --threads=1 >a 2>err || { cat err; fail "haar 1 x 1"; }
$MPIEXEC -n 2 ./haar --threads=1 --stats >b 2>err || { cat err; fail "haar 2 x 1"; }
cmp a b || fail "haar: 2 x 1 is not the serial loop's result"
grep -q "^ *2 haar.sap:6 .*\(between the few\|as one rank of all\)" err &&
	{ cat err; fail "haar: said to have hubs, or run whole on every rank"; }

# A column of two rows read by every row (a lattice: its hubs are the
# two rows' iterations, on two ranks' chunks when k = n / 2 - 1): spread
# over ranks, each hub's rank sends the column's two elements, not the
# rest of the rows between them.
cat >lat.sap <<'SAP'
param int n = 200;
param int m = 64;
dvector<double> D(n * m);
async for (long i = 0; i < n * m; i++) D[i] = (i % 11) / 4.0;
for (int s = 0; s < 8; s++) {
    long k = n / 2 - 1;
    async for (long i = 0; i < n; i++) {
        double t = 0;
        for (long j2 = 0; j2 < 2; j2++) t += D[(k + j2) * m + 3];
        for (long j = 0; j < m; j++) D[i * m + j] = D[i * m + j] * 0.5 + t / 8 + j + s;
    }
}
double h = 0;
for (long q = 0; q < n * m; q++) h = h * 0.5 + D[q];
print("%a\n", h);
SAP
"$SAPC" -o lat lat.sap || fail "sapc lat.sap"
$MPIEXEC -n 1 ./lat --threads=1 >a 2>err || { cat err; fail "lat 1 x 1"; }
for l in "2 1" "3 1" "2 2"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./lat --threads="$2" >b 2>err || { cat err; fail "lat $1 x $2"; }
	cmp a b || fail "lat: $1 x $2 is not the serial loop's result"
done
