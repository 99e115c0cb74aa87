#!/bin/sh
# Chunks loops over ranks, against the promise that a result depends on
# ranks x threads only and that every iteration runs once:
#  - a sum of floats over part of a loaded vector (held in parts): each
#    rank ran the iterations of its part, so 2 x 1 summed other chunks
#    than 1 x 2 (a different float sum, silently); now the workers' even
#    chunks, their elements fetched from the parts;
#  - a loop over more iterations than a list of a map's keys has, reading
#    it where i < len(ks): taken for a loop over the map's keys, its
#    iterations went by keys read past the list's end, some twice and
#    some never (598 of 600 on 2 ranks).
# Both reported by a user-program sweep.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1

# 1e16 at 100, -1e16 at 999, 1.0 at every 3rd index between: a sum whose
# value shows where the partial sums were cut.
awk 'BEGIN { for (i = 0; i < 1000; i++) {
	v = 0
	if (i == 100) v = "1e16"
	else if (i == 999) v = "-1e16"
	else if (i > 100 && i % 3 == 0) v = 1
	print v } }' >a.txt
cat >cl.sap <<'SAP'
dvector<double> A = load("a.txt");
double s = 0;
long n = 0;
async for (long i = 100; i < 1000; i++) reduce(+: s, n) {
    s += A[i];
    if (A[i] == 1)
        n++;
}
double ones = 0;
async for (long i = 100; i < 999; i++) reduce(+: ones)
    ones += A[i] < 2 ? A[i] : 0;
dmap<long, long> m;
for (long k = 0; k < 500; k++)
    m[k] = 1;
dvector<long> ks = keys(m);
long it = 0;
long si = 0;
long sk = 0;
double d = 0;
async for (long i = 0; i < 600; i++) reduce(+: it, si, sk, d) {
    it += 1;
    si += i;
    d += i * 0.5;
    if (i < 500)
        sk += ks[i];
}
print("%.17g %d %.17g\n", s, n, ones);
print("%d %d %d %.17g\n", it, si, sk, d);
SAP
"$SAPC" cl.sap -o cl 2>err || { cat err; fail "sapc"; }

run() {
	$MPIEXEC -n "$1" ./cl --threads="$2" >"out.$1x$2" 2>err ||
		{ cat err; fail "on $1 x $2"; }
	# What every layout must print: the counts and exact sums.
	sed -n 2p "out.$1x$2" | grep -q '^600 179700 124750 89850$' ||
		{ cat "out.$1x$2"; fail "on $1 x $2: iterations lost or run twice"; }
	sed -n 1p "out.$1x$2" | grep -q ' 299 299$' ||
		{ cat "out.$1x$2"; fail "on $1 x $2: a sum of ones"; }
}
for l in "1 1" "1 2" "2 1" "1 3" "3 1" "1 4" "2 2" "4 1"; do
	# shellcheck disable=SC2086
	run $l
done
cmp out.1x2 out.2x1 || fail "2 x 1 differs from 1 x 2"
cmp out.1x3 out.3x1 || fail "3 x 1 differs from 1 x 3"
cmp out.1x4 out.2x2 || fail "2 x 2 differs from 1 x 4"
cmp out.1x4 out.4x1 || fail "4 x 1 differs from 1 x 4"
