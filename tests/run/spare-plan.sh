#!/bin/sh
# An async loop whose slice reads a driver variable that alternates (a
# checkerboard sweep's colour) keeps the plans before the current one (up
# to 8) and takes one back when the variable comes back
# (runtime/async/async.c, the spare plans):
#  - two colours over 12 sweeps: 2 plans on 1 x 2 (24 before), and on
#    2 x 1 (24 before: red-black SOR over 2 ranks spent 10 times its body
#    planning); the same output on 1 x 2 as on 2 x 1, and on 1 x 3 as on
#    3 x 1;
#  - three colours in turn (which conflict): 3 plans (a plan each
#    invocation with one spare), and the same outputs for the same
#    workers;
#  - a run killed after invocation 9 and resumed prints what the whole
#    run prints, on 1 x 2 and on 2 x 1.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp
cd "$tmp" || exit 99

cat >ck.sap <<'SAP'
param int colours = 2;
param int L = 64;
int wrap(int a, int n) {
    if (a < 0) return a + n;
    if (a >= n) return a - n;
    return a;
}
long N = long(L) * L;
dvector<int> S(N);
async for (long s = 0; s < N; s++) {
    if (rand() < 0.5) S[s] = 1; else S[s] = -1;
}
for (int sw = 0; sw < 12 / colours * 2; sw++) {
    for (int colour = 0; colour < colours; colour++) {
        async for (long k = 0; k < N / colours; k++) {
            long s = k * colours + (k / (L / colours) + colour) % colours;
            int r = int(s / L);
            int c = int(s % L);
            int nb = S[long(wrap(r - 1, L)) * L + c] + S[long(wrap(r + 1, L)) * L + c]
                   + S[long(r) * L + wrap(c - 1, L)] + S[long(r) * L + wrap(c + 1, L)];
            if (rand() < 1.0 / (1.0 + exp(-0.88 * nb))) S[s] = 1; else S[s] = -1;
        }
    }
    long m = 0;
    async for (long s = 0; s < N; s++) reduce(+: m)
        m += S[s] * (s % 7 + 1);
    print("sweep %d m %ld\n", sw, m);
}
SAP
"$SAPC" -O2 -o ck ck.sap || fail "sapc ck.sap"

# The colour loop's plans (--stats, loop 2).
plans() {
	awk '/^sap stats: parallel loops/ { r0 = ($0 ~ /rank [1-9]/) ? 0 : 1 }
	     r0 && $1 == 2 && $2 ~ /ck.sap/ { print $3, $6 }' "$1"
}
for c in 2 3; do
	for l in "1 2" "2 1" "1 3" "3 1"; do
		set -- $l
		$MPIEXEC -n "$1" ./ck --threads="$2" --colours=$c --stats >out.$1.$2 2>err ||
			{ cat err; fail "$c colours on $1 x $2"; }
		if test "$l" = "1 2" || test "$l" = "2 1"; then
			set -- $(plans err)
			test "$c" = 2 && test "$1 $2" != "24 2" &&
				{ cat err; fail "2 colours on $l: $2 plans in $1 invocations, want 2 in 24"; }
			test "$c" = 3 && test "$1 $2" != "24 3" &&
				{ cat err; fail "3 colours on $l: $2 plans in $1 invocations, want 3 in 24"; }
		fi
	done
	# A plan taken back is the one a new plan would be.
	cmp out.1.2 out.2.1 || fail "$c colours: 1 x 2 and 2 x 1 differ"
	cmp out.1.3 out.3.1 || fail "$c colours: 1 x 3 and 3 x 1 differ"
done

# Killed after invocation 9 and resumed: the spare plan is made again.
$MPIEXEC -n 1 ./ck --threads=2 >full 2>/dev/null || fail "the whole run"
SAP_TEST_KILL_AFTER=9 $MPIEXEC -n 1 ./ck --threads=2 --checkpoint-dir=cp --checkpoint-every=1 \
	>a 2>/dev/null && fail "not killed after invocation 9"
$MPIEXEC -n 1 ./ck --threads=2 --checkpoint-dir=cp --resume >b 2>b.err ||
	{ cat b.err; fail "--resume"; }
covers full a b || { cat full a b; fail "the killed and resumed runs do not make the whole run"; }
# And over ranks.
$MPIEXEC -n 2 ./ck --threads=1 >full 2>/dev/null || fail "the whole run on 2 x 1"
SAP_TEST_KILL_AFTER=9 $MPIEXEC -n 2 ./ck --threads=1 --checkpoint-dir=cp2 --checkpoint-every=1 \
	>a 2>/dev/null && fail "not killed after invocation 9 on 2 x 1"
$MPIEXEC -n 2 ./ck --threads=1 --checkpoint-dir=cp2 --resume >b 2>b.err ||
	{ cat b.err; fail "--resume on 2 x 1"; }
covers full a b || { cat full a b; fail "on 2 x 1, the killed and resumed runs do not make the whole run"; }
exit 0
