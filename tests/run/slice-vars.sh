#!/bin/sh
# A slice that reads driver variables (a bound n = len(X), a modulus m
# the driver changes now and then) keeps its plan while their values
# stay: --stats counts one plan for the loop over n in all its
# invocations, and one per value of m for the other, where before each
# invocation planned again.  A plan kept across a change of m would let
# two groups of a round write one element: --check-plan checks each plan
# against the keys, and the sums must be those of 1 x 1.  The values are
# in a checkpoint too: killed after a loop and resumed, a run plans as the
# uninterrupted one and prints the same bits (the updates depend on the
# order of the iterations in a group).  The counts are doubles: counts in
# a long would be sums, which need no plan (sap(7)).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/p.sap" <<'SAP'
struct E { list<int> nb; }
dvector<E> X(4000);
long n = len(X);
for (long i = 0; i < n; i++)
    for (int k = 0; k < int(i % 3) + 1; k++)
        push(X[i].nb, int((i * 13 + k * 101) % n));
dvector<double> w(n);
dvector<double> c(n);
long m = 0;
for (int r = 0; r < 8; r++) {
    async for (long i = 0; i < n; i++) {
        for (long j = 0; j < len(X[i].nb); j++)
            w[X[i].nb[j] % n] = w[X[i].nb[j] % n] * 0.5 + i;
    }
    m = 500 + 250 * (r / 3);
    async for (long i = 0; i < n; i++) {
        for (long j = 0; j < len(X[i].nb); j++)
            c[(X[i].nb[j] * 7 + i) % m] += 1;
    }
}
double s = 0;
long t = 0;
long u = 0;
for (long i = 0; i < n; i++) {
    s += w[i];
    t += long(c[i]) * (i % 10);
    u += long(c[i]);
}
print("c %d %d\n", t, u);
print("w %.17g\n", s);
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"
$MPIEXEC -n 1 ./p --threads=1 >one 2>err || { cat err; fail "1 x 1 failed"; }
grep '^c ' one >one.c
for l in 1x2 2x1; do
	np=${l%x*} nt=${l#*x}
	$MPIEXEC -n "$np" ./p --threads="$nt" --check-plan --stats >out 2>stats ||
		{ cat stats; fail "$l failed"; }
	grep '^c ' out | cmp -s - one.c || fail "$l: the counts are not 1 x 1's: $(grep '^c ' out)"
	# Loop 1 reads n, loop 2 m, which takes 3 values.
	awk -v l=$l '
		$1 == 1 && $3 == 8 && $6 == 1 { a = 1 }
		$1 == 2 && $3 == 8 && $6 == 3 { b = 1 }
		END { if (!a || !b) { print l ": plans not kept while n and m stay"; exit 1 } }' stats ||
		{ grep -A3 '^loop site' stats; fail "$l: plans"; }
	cp out "full.$l"
done

# Killed after loop K (of 16), resumed: the uninterrupted run's bits.
for l in 1x2 2x1; do
	np=${l%x*} nt=${l#*x}
	for k in 3 8 13; do
		rm -rf ck
		SAP_TEST_KILL_AFTER=$k $MPIEXEC -n "$np" ./p --threads="$nt" --checkpoint-dir=ck \
			--checkpoint-every=1 >p1 2>p1.err && fail "$l: not killed after loop $k"
		$MPIEXEC -n "$np" ./p --threads="$nt" --checkpoint-dir=ck --checkpoint-every=1 \
			--resume >p2 2>p2.err || { cat p2.err; fail "$l, killed after loop $k: --resume failed"; }
		cmp -s p2 "full.$l" ||
			{ diff p2 "full.$l"; fail "$l, killed after loop $k: not the uninterrupted run's output"; }
	done
done
exit 0
