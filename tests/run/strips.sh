#!/bin/sh
# Key-level plans by strips: each iteration of a 1-D stencil updates the
# 6 nodes i .. i + 5 of a mesh whose nodes are numbered at random, so
# every iteration meets 6 scattered blocks of keys (a plan by blocks
# leaves the workers idle) and consecutive iterations conflict (the
# wavefront is one long chain); but every node's iterations lie within 6
# of each other, so strips, the iterations cut into 2 T runs, run s in
# round s mod 2, are conflict-free.
#  - on 1 rank of 2, 3 and 4 threads --stats says "planned (key-level
#    strips)", 2 rounds of one group per worker, balance 1.00;
#  - --check-plan finds no conflict;
#  - the sequential replay of --dump-order (--run-order) gives the same
#    bits, though the order of two updates of a node matters
#    (X[k] = X[k] / 2 + a term of i);
#  - on 2 x 1, 3 x 1 and 2 x 2 ranks x threads, the same plan on every
#    rank and the bits of 1 rank of as many threads, and their replays;
#  - a relaxed(+: R) variant: the same, its replay too.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cd "$tmp" || exit 1

cat >sb.sap <<'SAP'
// Node j of the mesh is stored at P[j], a random permutation (shuffled
// in driver code); iteration i updates nodes i .. i + 5.
param long n = 30000;
param bool relax = false;
param string out = "X.txt";
long nodes = n + 5;
dvector<long> P(nodes);
async for (long j = 0; j < nodes; j++)
    P[j] = j;
long s = 12345;
for (long j = nodes - 1; j > 0; j--) {
    s = s * 6364136223846793005 + 1442695040888963407;
    long r = (s >> 33) % (j + 1);
    if (r < 0)
        r = -r;
    long t = P[j];
    P[j] = P[r];
    P[r] = t;
}
dvector<double> X(nodes);
dvector<double> R(2);
for (int ep = 0; ep < 2; ep++) {
    if (relax) {
        async for (long i = 0; i < n; i++) relaxed(+: R) {
            for (int q = 0; q < 6; q++) {
                long k = P[i + q];
                X[k] = 0.5 * X[k] + 0.001 * R[q % 2] + q;
                R[q % 2] += 0.001 * (i + 1);
            }
        }
    } else {
        async for (long i = 0; i < n; i++) {
            for (int q = 0; q < 6; q++) {
                long k = P[i + q];
                X[k] = 0.5 * X[k] + 0.001 * (i + 1) + q;
            }
        }
    }
}
save(X, out);
SAP
"$SAPC" -O2 -o sb sb.sap || fail "sapc sb.sap"

# The plain loop is loop 3, the relaxed one loop 2.
for v in plain relax; do
	if test $v = plain; then flag= loop=3; else flag=--relax loop=2; fi
	for t in 2 3 4; do
		./sb $flag --threads=$t --check-plan --stats --dump-order=order.$v.$t \
			--out=X.$v.$t >/dev/null 2>stats.$v.$t || { cat stats.$v.$t; fail "$v on $t threads"; }
		# Built once for both invocations: 2 rounds, one group per
		# worker and round, every worker busy.
		awk -v l=$loop -v t=$t '$1 == l && $3 == 2 && $4 == 1 && $6 == 1 &&
			$8 == 2 * t && $9 == 2 && $10 == t && $11 == "1.00" &&
			/planned \(key-level strips\)$/ { ok = 1 } END { exit !ok }' stats.$v.$t ||
			{ cat stats.$v.$t; fail "$v on $t threads: loop $loop has no strips plan"; }
		! grep -q 'warning' stats.$v.$t || { cat stats.$v.$t; fail "$v on $t threads: a warning"; }
		./sb $flag --threads=1 --run-order=order.$v.$t --out=Xr.$v.$t >/dev/null 2>err.r ||
			{ cat err.r; fail "$v: replay of the $t-thread order"; }
		cmp X.$v.$t Xr.$v.$t || fail "$v: the replay of the $t-thread order differs"
	done
	# Over ranks: every rank makes the plan of 1 rank of as many threads.
	for pt in 2x1 3x1 2x2; do
		np=${pt%x*} t=${pt#*x}
		$MPIEXEC -n "$np" ./sb $flag --threads="$t" --check-plan --stats \
			--dump-order=order.$v.$pt --out=X.$v.$pt >/dev/null 2>stats.$v.$pt ||
			{ cat stats.$v.$pt; fail "$v on $pt"; }
		awk -v l=$loop -v w=$((np * t)) '$1 == l && $10 == w && $11 == "1.00" &&
			/planned \(key-level strips\)$/ { n++ } END { exit n != '"$np"' }' stats.$v.$pt ||
			{ cat stats.$v.$pt; fail "$v on $pt: loop $loop has no strips plan on every rank"; }
		cmp X.$v.$((np * t)) X.$v.$pt ||
			fail "$v on $pt: X differs from 1 rank of $((np * t)) threads"
		./sb $flag --threads=1 --run-order=order.$v.$pt --out=Xr.$v.$pt >/dev/null 2>err.r ||
			{ cat err.r; fail "$v: replay of the $pt order"; }
		cmp X.$v.$pt Xr.$v.$pt || fail "$v: the replay of the $pt order differs"
	done
done
exit 0
