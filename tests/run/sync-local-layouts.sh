#!/bin/sh
# sync for on the sparse path: one rank's threads merge the step's rows
# themselves (each its share of the keys, from every thread's copy),
# ranks through the rows' owners.  Both must give the sums a single rank
# of P x T workers takes: 1 x T equals T x 1 bit for bit, for double,
# float, int and struct rows, under sum and avg, with rows some workers
# only read.  One rank takes two ways, both checked: the body logging the
# rows it writes into whole copies of the vectors, or, for vectors large
# beside the loop's elements (--rows), the slice over each mini-batch.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1
cat >sl.sap <<'SAP'
struct P2 {
    double a;
    float b;
}
param long rows = 6000;
dvector<long> D(6000);
for (long i = 0; i < len(D); i++)
    D[i] = (i * 7919) % 5003;
dvector<float> f(rows);
dvector<P2> p(rows);
dvector<int> c(rows);
dvector<double> r(6000);
for (long i = 0; i < 6000; i++)
    r[i] = 1.0 / (1 + i);
for (int e = 0; e < 3; e++) {
    sync for (long d : D) with (bsp, batch = 50, merge(f) = sum, merge(p) = avg) {
        f[d] += 0.25 * (d % 3) - f[d] * 0.01 + r[(d * 7) % 6000];
        f[(d * 3) % 6000] -= 0.125;
        p[d].a += 1.0 / (1 + d);
        if (d % 2 == 0)
            p[d].b -= 0.5;
        c[d % 100] += 1;
    }
}
double s1 = 0;
double s2 = 0;
long s3 = 0;
async for (long i = 0; i < 6000; i++) reduce(+: s1, s2, s3) {
    s1 += f[i] * (1 + i % 5);
    s2 += p[i].a * (1 + i % 3) + p[i].b;
    s3 += c[i] * (1 + i % 11);
}
print("%.17g %.17g %d\n", s1, s2, s3);
SAP
"$SAPC" sl.sap -o sl 2>err || { cat err; fail "sapc"; }
for l in "1 2" "2 1" "1 3" "3 1" "1 4" "2 2" "4 1"; do
	# shellcheck disable=SC2086
	set -- $l
	$MPIEXEC -n "$1" ./sl --threads="$2" >"out.$1x$2" 2>err ||
		{ cat err; fail "on $1 x $2"; }
done
cmp out.1x2 out.2x1 || fail "2 x 1 differs from 1 x 2: $(cat out.1x2) / $(cat out.2x1)"
cmp out.1x3 out.3x1 || fail "3 x 1 differs from 1 x 3: $(cat out.1x3) / $(cat out.3x1)"
cmp out.1x4 out.2x2 || fail "2 x 2 differs from 1 x 4: $(cat out.1x4) / $(cat out.2x2)"
cmp out.1x4 out.4x1 || fail "4 x 1 differs from 1 x 4: $(cat out.1x4) / $(cat out.4x1)"
# Two workers' steps differ from three's: the layouts are not all alike.
cmp -s out.1x2 out.1x3 && fail "1 x 2 and 1 x 3 alike: $(cat out.1x2)"
for t in 2 3; do
	$MPIEXEC -n 1 ./sl --threads=$t --rows=1000000 >"big.1x$t" 2>err ||
		{ cat err; fail "on 1 x $t, --rows=1000000"; }
	cmp "out.1x$t" "big.1x$t" ||
		fail "1 x $t differs with large vectors: $(cat "out.1x$t") / $(cat "big.1x$t")"
done
exit 0
