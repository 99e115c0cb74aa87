#!/bin/sh
# What a loop writing rows of a flat matrix (spans) and the loops reading
# them move between ranks.  A helper's boosted stumps binned a loaded
# input into bins[i * F + f], f in [0, F): on 2 ranks the loop made every
# vector it touched whole first, the loaded input included (0.4 s against
# 7 ms of body), and a later loop reading bins[i * F] made bins whole
# again (6.4 MB).  Now the rows stay where they were written, and loops
# that read them at keys affine in the loop variable or in rows (ranged
# reads) fetch only what their chunk reads: here nothing, since each rank
# reads the rows it wrote.  On 2 and 3 ranks:
#  - the three loops move nothing (--stats' sent_MB 0.00);
#  - the input and bins take a rank's share of memory, and no vector's
#    memory "at the end" exceeds its "at most" (a vector made whole
#    once said 27.2 MB at the end, 13.6 at most);
#  - the sums are one rank's.
# The counts come from --stats, which is exact, not a timing.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

awk 'BEGIN { for (i = 0; i < 30000; i++) { printf "%d", i % 5;
	for (f = 0; f < 8; f++) printf " %d", (i * 7 + f * 13) % 32; printf "\n" } }' >rows.txt
cat >p.sap <<'SAP'
const int F = 8;
struct Row { int t; int[F] x; }
dvector<Row> A = load("rows.txt");
long n = len(A);
dvector<int> bins(n * F);
async for (long i = 0; i < n; i++) {
    for (int f = 0; f < F; f++)
        bins[i * F + f] = A[i].x[f] + A[i].t;
}
long s = 0, t = 0;
async for (long i = 0; i < n; i++) reduce(+: s)
    s += bins[i * F] * 3 + bins[i * F + 5];
async for (long i = 0; i < n; i++) reduce(+: t) {
    for (int f = 1; f < F; f++)
        t += bins[i * F + f] * f;
}
print("%ld %ld\n", s, t);
SAP
$SAPC -O2 p.sap -o p || fail "sapc failed on p.sap"
$MPIEXEC -n 1 ./p >want || fail "1 rank"
for np in 2 3; do
	$MPIEXEC -n $np ./p --threads=1 --stats >out 2>err || { cat err; fail "$np ranks"; }
	cmp want out || fail "$np ranks print other sums than 1"
	for line in 6 11 13; do
		sent=$(awk -v site="p.sap:$line" '$2 == site { print $13 }' err)
		test -n "$sent" || { cat err; fail "$np ranks: no --stats line for p.sap:$line"; }
		for m in $sent; do
			test "$m" = 0.00 || { cat err; fail "$np ranks: the loop at line $line sent $m MB"; }
		done
	done
	# dvector NAME: N x S B = T MB, on this rank END MB at the end, MOST MB at most
	awk -v np=$np '$1 == "dvector" {
		total = $8; fin = $13; most = $18
		if (fin > most + 0.005) { print "memory at the end over at most: " $0; bad = 1 }
		if (most > total / np + 0.05) { print "more than a share: " $0; bad = 1 } }
		END { exit bad }' err || { cat err; fail "$np ranks: memory"; }
done
exit 0
