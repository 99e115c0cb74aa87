#!/bin/sh
# A chunks loop invoked many times over few iterations (a mini-batch
# logistic regression's driver loop over batches of 50 examples, then a
# pass over its 9 weights) runs whole on every rank where that is faster,
# as the P x T workers of one rank: spread, each invocation fetched its
# chunk's rows and chained the workers' sums from rank to rank, 5000
# invocations in 2 s against 0.03 s of body.  The choice is timed, so the
# bits must not depend on it: spread (SAP_SHORT_LOOPS=spread), whole
# (=whole) and timed, 2 x 1 prints what 1 x 2 does and 3 x 1 what 1 x 3
# does, floating-point sums and accumulated gradients included; whole, the
# loop moves the examples once, fewer bytes than spread; --stats says
# which way it ran.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/p.sap" <<'SAP'
const int F = 8;
param long n = 20000;
param int batch = 50;
param int epochs = 3;
dvector<double> X(n * F);
dvector<int> Y(n);
async for (long i = 0; i < n; i++) {
    for (int j = 0; j < F; j++)
        X[i * F + j] = sin(i * 0.37 + j * 1.3);
    Y[i] = int(i * 2654435761 % 7) < 3 ? 1 : 0;
}
dvector<double> w(F + 1);
dvector<double> g(F + 1);
for (int ep = 0; ep < epochs; ep++) {
    double loss = 0;
    for (long b = 0; b < n; b += batch) {
        long e = min(b + batch, n);
        async for (long i = b; i < e; i++) accumulate(+: g) reduce(+: loss) {
            double z = w[F];
            for (int j = 0; j < F; j++)
                z += w[j] * X[i * F + j];
            double p = 1 / (1 + exp(-z));
            double d = p - Y[i];
            for (int j = 0; j < F; j++)
                g[j] += d * X[i * F + j];
            g[F] += d;
            loss += Y[i] == 1 ? -log(p) : -log(1 - p);
        }
        double scale = 0.5 / (e - b);
        async for (long j = 0; j < F + 1; j++) {
            w[j] -= scale * g[j];
            g[j] = 0;
        }
    }
    print("epoch %d loss %.17g w0 %.17g\n", ep, loss / n, w[0]);
}
SAP
"$SAPC" -O2 -o "$tmp/p" "$tmp/p.sap" || fail "sapc"

# field FILE N: field N of the --stats line of the loop at p.sap:18.
field() {
	awk -v n="$2" '$2 ~ "p.sap:18$" { print $n; exit }' "$1"
}
# verdict FILE: that loop's verdict.
verdict() {
	awk '$2 ~ "p.sap:18$" { for (i = 17; i <= NF; i++) printf "%s%s", (i > 17 ? " " : ""), $i; exit }' "$1"
}

short='chunks, on every rank: its invocations are short, and SAP_SHORT_LOOPS=whole'
for w in 2 3; do
	$MPIEXEC -n 1 "$tmp/p" --threads=$w >"$tmp/one" || fail "1 x $w"
	for mode in spread whole timed; do
		SAP_SHORT_LOOPS=$mode $MPIEXEC -x SAP_SHORT_LOOPS -n $w "$tmp/p" --threads=1 --stats \
			>"$tmp/out" 2>"$tmp/err.$mode" || { cat "$tmp/err.$mode"; fail "$w x 1, $mode"; }
		cmp "$tmp/one" "$tmp/out" || fail "$w x 1 $mode prints other bits than 1 x $w"
	done
	v=$(verdict "$tmp/err.whole")
	[ "$v" = "$short" ] || { cat "$tmp/err.whole"; fail "$w x 1 whole: ran as '$v'"; }
	v=$(verdict "$tmp/err.spread")
	[ "$v" = chunks ] || { cat "$tmp/err.spread"; fail "$w x 1 spread: ran as '$v'"; }
	sw=$(field "$tmp/err.whole" 13) ss=$(field "$tmp/err.spread" 13)
	awk -v a="$sw" -v b="$ss" 'BEGIN { exit !(a < b) }' ||
		fail "$w x 1: whole sent $sw MB, spread $ss MB"
done
