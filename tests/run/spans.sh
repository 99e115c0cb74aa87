#!/bin/sh
# Keys over an inner loop's range (spans): a[i * n + j] for
# j in [k + 1, n), rows of a flat matrix.  Gaussian elimination's step,
# rows i > k reading row k, planned every step at a key per element (a
# hundred times the body's time on 2 workers); its rows never meet, which
# the runtime now finds from the spans before it plans, and runs the step
# in contiguous chunks.  On 1 x 2, 2 x 1, 3 x 1 and 2 x 2 the elimination,
# a loop of rows by <= and a loop whose rows all read row 0 (which
# iteration 0 writes: they meet, so it is planned) give one worker's
# numbers bit for bit, and a loop reading columns after the ranks wrote
# the rows reads what they wrote; a row's diagonal, which moves by n + 1
# within its row, keeps it in chunks; so do rows of a triangle, j from i,
# and rows that run into the next are planned.  --stats names the way each ran, and
# --explain the spans.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1
# The loop whose rows meet has 90 iterations, which would run in index
# order rather than pay for a plan (sap-run(1)): planned all the same.
SAP_PLAN_SMALL=1
export SAP_PLAN_SMALL

cat >spans.sap <<'SAP'
param int n = 90;
dvector<double> a(n * n);
async for (long c = 0; c < n * n; c++)
    a[c] = 1.0 + (c % 7) * 0.01 + (c % n == c / n ? n : 0);
// LU without pivoting: the rows below k read row k.
for (int k = 0; k < n - 1; k++) {
    double d = a[k * n + k];
    async for (int i = k + 1; i < n; i++) {
        double l = a[i * n + k] / d;
        a[i * n + k] = l;
        for (int j = k + 1; j < n; j++)
            a[i * n + j] -= l * a[k * n + j];
    }
}
// Columns read across the rows the ranks wrote.
dvector<double> col(n);
async for (long i = 0; i < n; i++) {
    double s = 0;
    for (long j = 0; j < n; j++)
        s += a[j * n + i] * (j + 1);
    col[i] = s;
}
double cs = 0;
for (long c = 0; c < n * n; c++)
    cs += a[c] * (c % 13 + 1);
double cc = 0;
for (long i = 0; i < n; i++)
    cc += col[i];
print("lu %.17g columns %.17g\n", cs, cc);
// Rows of n + 1 by <=, in long.
dvector<long> b(n * (n + 1));
async for (long i = 0; i < n; i++)
    for (long j = 0; j <= n; j++)
        b[i * (n + 1) + j] = i * 1000 + j;
long bs = 0;
for (long c = 0; c < n * (n + 1); c++)
    bs += b[c] * (c % 5);
print("rows %ld\n", bs);
// Row 0 read by every iteration, which iteration 0 writes: they meet,
// but only at iteration 0, which runs before the chunks of the others.
dvector<double> c(n * n);
for (long x = 0; x < n * n; x++)
    c[x] = x % 11;
async for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
        c[i * n + j] = c[i * n + j] + c[j];
double s0 = 0;
for (long x = 0; x < n * n; x++)
    s0 += c[x] * (x % 7);
print("meet %.17g\n", s0);
// Each row with its diagonal, which moves by n + 1 but stays in its row.
async for (long i = 0; i < n; i++) {
    for (long j = 0; j < n; j++)
        c[i * n + j] = c[i * n + j] * 0.5;
    c[i * n + i] = c[i * n + i] + i;
}
double sd = 0;
for (long x = 0; x < n * n; x++)
    sd += c[x] * (x % 5);
print("diagonal %.17g\n", sd);
// Rows of a triangle, j from i: a bound that moves with i, whose hull
// over the invocation keeps each iteration in its row.
dvector<long> u(n * n);
async for (long i = 0; i < n; i++)
    for (long j = i; j < n; j++)
        u[i * n + j] = i * 1000 + j;
// Rows that run two keys into the next row's: they meet, so it is
// planned.
dvector<long> v(n * n + n + 2);
async for (long i = 0; i < n; i++)
    for (long j = i; j < n + i + 2; j++)
        v[i * n + j] = max(v[i * n + j], i * 7 % 11);
long us = 0;
long vs = 0;
for (long x = 0; x < n * n; x++)
    us += u[x] * (x % 5);
for (long x = 0; x < n * n + n + 2; x++)
    vs += v[x] * (x % 3 + 1);
print("triangle %ld meet %ld\n", us, vs);
SAP
$SAPC spans.sap -o spans || fail "sapc failed on spans.sap"
$SAPC --explain spans.sap -o /dev/null >explain 2>&1 || fail "sapc --explain failed"
grep -qF '  spans: a[i * n + j] (j in [k + 1, n)) and a[k * n + j] (j in [k + 1, n)) each cover' explain ||
	{ cat explain; fail "--explain: no spans line for the elimination"; }
grep -qF '  spans: b[i * (n + 1) + j] (j in [0, n]) covers' explain ||
	{ cat explain; fail "--explain: no spans line for the rows by <="; }
# The verdict says first what such a loop usually does: run in chunks.
grep -qF '  verdict: parallel: in contiguous chunks, with no reconnaissance or plan, when the spans below keep the iterations apart; otherwise reconnaissance runs once' explain ||
	{ cat explain; fail "--explain: the verdict does not say the spans may run the loop in chunks"; }

cat >want <<'OUT'
lu 30161.353628888188 columns 458265.4092097719
rows 729827100
meet 358276
diagonal 126008
triangle 251572140 meet 81804
OUT
for l in "1 1" "1 2" "2 1" "3 1" "2 2"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./spans --threads="$2" --stats >out 2>err </dev/null ||
		{ cat err; fail "$1 x $2: the run failed"; }
	diff -u want out || fail "$1 x $2: not one worker's numbers"
	test "$1$2" = 11 && continue
	for v in "8 chunks" "32 chunks" "44 chunks: between the few iterations that write what all read" \
		"52 chunks" "64 chunks"; do
		# shellcheck disable=SC2086
		set -- $v
		line=$1
		shift
		rows=$(grep "^ *[0-9]* spans.sap:$line " err)
		test -n "$rows" || { cat err; fail "$l: no stats for line $line"; }
		echo "$rows" | grep -qv " $*\(, on every rank: .*\)\{0,1\}\$" &&
			{ cat err; fail "$l: line $line not '$*'"; }
	done
	grep "^ *[0-9]* spans.sap:70 " err | grep -q " chunks" &&
		{ cat err; fail "$l: rows that meet ran in chunks"; }
done
exit 0
