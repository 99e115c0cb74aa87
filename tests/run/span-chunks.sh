#!/bin/sh
# Keys affine in several inner loops (nested-spans.sap: an image of a
# batch, y[((b * F + f) * OH + oy) * OW + ox]; rows with gaps; a row read
# backwards, or from right to left; a recurrence's read of step t - 1
# under t > 0, whose range of t the guard narrows; the columns of a
# row-major matrix, apart by their residues) run in chunks with no
# reconnaissance on 2 and 3 ranks, where each was recorded key by key
# and planned (a CNN's forward pass 3.5 times slower on 1 x 2 than on
# 1 x 1, an RNN's 10 times, a column blur's plan 6 times its body);
# pairs of neighbouring columns, which meet, a guard the compiler does
# not read, and a read in a while loop's own condition are still planned.  Results are the serial program's
# (nested-spans.out, from its C twin).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1
cp "$top_srcdir/tests/run/nested-spans.sap" . || fail "no nested-spans.sap"
"$SAPC" -o ns nested-spans.sap || fail "sapc nested-spans.sap"
# The recons column of loop $1 in err.
recons() {
	sed -n "s/^ *$1 nested-spans.sap:[0-9]* *[0-9]* *\([0-9]*\) .*/\1/p" err | head -n 1
}
for l in "2 1" "3 1" "2 2"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./ns --threads="$2" --stats >out 2>err || { cat err; fail "$1 x $2"; }
	cmp out "$top_srcdir/tests/run/nested-spans.out" || fail "$1 x $2: output differs"
	got=
	for loop in 3 4 5 6 7 8 9 10 11 12 13 14 15 16 18 19; do
		got="$got $(recons $loop)"
	done
	want=" 0 0 0 0 0 0 1 0 0 0 1 0 0 0 0 0"
	test "$got" = "$want" || { cat err; fail "$1 x $2: recons $got, not $want"; }
done

# A read in a while loop's own condition is not under that condition,
# which runs once more, false: t[j + k] reads t[j + 1], which iteration
# j + 1 writes, so the loop is planned, and its order replays on one
# process (it ran in chunks, reading a stale t[j + 1] on 2 ranks).
cat >wc.sap <<'SAP'
param long M = 4000;
dvector<long> t(M + 1);
async for (long j = 0; j <= M; j++) t[j] = j % 7 + 1;
async for (long j = 0; j < M; j++) {
    long s = 0;
    for (int k = 0; k < 2; k++)
        while ((s = s * 3 + t[j + k]) > -1 && k < 1) break;
    t[j] = s;
}
long h = 0;
for (long j = 0; j <= M; j++) h = h * 31 + t[j];
print("%ld\n", h);
SAP
"$SAPC" -o wc wc.sap || fail "sapc wc.sap"
$MPIEXEC -n 2 ./wc --threads=1 --stats --dump-order=wc.order >out 2>err || { cat err; fail "wc 2 x 1"; }
sed -n 's/^ *2 wc.sap:[0-9]* *[0-9]* *\([0-9]*\) .*/\1/p' err | grep -qx 1 ||
	{ cat err; fail "wc: the loop with a read in a while condition was not planned"; }
$MPIEXEC -n 1 ./wc --threads=1 --run-order=wc.order >replay 2>err || { cat err; fail "wc replay"; }
cmp out replay || fail "wc: 2 x 1 is not its own order's result"

# An edit distance by anti-diagonals: a cell and its three neighbours
# are m + 2 keys apart at a stride of m, and no two cells of a diagonal
# meet, pair by pair of the keys' forms: on one rank's threads the
# diagonals run in chunks, where each ran in index order ("too few
# iterations to plan").  The distances are the serial loop's.
cat >ed.sap <<'SAP'
param long n = 900;
param long m = 700;
long W = m + 1;
dvector<int> D((n + 1) * W);
for (long d = 0; d <= n + m; d++) {
    long lo = d - m > 0 ? d - m : 0;
    long hi = d < n ? d : n;
    async for (long i = lo; i <= hi; i++) {
        long j = d - i;
        int v = int(i + j);
        if (i > 0 && j > 0) {
            int sub = D[(i - 1) * W + j - 1] + ((i * 7 + j * 3) % 5 == 0 ? 0 : 1);
            v = min(sub, min(D[(i - 1) * W + j] + 1, D[i * W + j - 1] + 1));
        }
        D[i * W + j] = v;
    }
}
long cs = 0;
for (long k = 0; k < len(D); k++) cs = cs * 31 + D[k];
print("%ld %d\n", cs, D[len(D) - 1]);
SAP
"$SAPC" -o ed ed.sap || fail "sapc ed.sap"
$MPIEXEC -n 1 ./ed --threads=1 >serial 2>err || { cat err; fail "ed 1 x 1"; }
for l in "1 2" "2 1" "1 3" "2 2"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./ed --threads="$2" --stats >out 2>err || { cat err; fail "ed $1 x $2"; }
	cmp out serial || fail "ed $1 x $2: $(cat out), not the serial $(cat serial)"
done
$MPIEXEC -n 1 ./ed --threads=2 --stats >out 2>err || { cat err; fail "ed 1 x 2"; }
grep -q '^ *1 ed.sap:[0-9]* .* chunks$' err || { cat err; fail "ed: the diagonals did not run in chunks"; }
exit 0
