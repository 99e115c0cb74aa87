#!/bin/sh
# sync for with bsp over ranks and threads: each worker runs a mini-batch
# of its own on its own copy of the vectors the body writes, and after
# each step the workers' copies merge (one MPI_Allreduce per vector).
#  - additive updates show the merging exactly: after all the steps an
#    averaged vector has 1/W of the change one worker makes (W workers:
#    250, 125, 83.3333 ...), integers too; merge(S) = sum keeps the whole
#    change; merge(M) = tenfold applies the program's function at every
#    step; reduce sums over every element;
#  - under hybrid the threads of a rank share its copy: only ranks
#    average, and they do after every sub-iteration (on one rank the
#    threads share out the elements in one step);
#  - least squares by SGD (8 weights, 6000 examples, 3 epochs of bsp
#    mini-batches) gives the same weights on every run for given ranks x
#    threads, the same for 2 workers as threads or as ranks, and its error
#    falls on every one.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/add.sap" <<'SAP'
dvector<long> D(1000);
async for (long i = 0; i < len(D); i++)
    D[i] = i;
dvector<double> W(4);
dvector<long> C(1);
dvector<long> S(1);
dvector<long> M(1);
// At each step: M + (10 x the items of the step) / workers, in integers.
long tenfold(long old, long total, long workers) {
    return old + 10 * total / workers;
}
double s = 0;
sync for (long x : D) with (bsp, batch = 12, merge(S) = sum, merge(M) = tenfold) reduce(+: s) {
    W[x % 4] += 1.0;
    C[0] += 3;
    S[0] += 2;
    M[0] += 1;
    s += x;
}
print("W %.4f %.4f %.4f %.4f C %d S %d M %d s %.1f\n", W[0], W[1], W[2], W[3], C[0], S[0], M[0], s);
SAP

cat >"$tmp/hyb.sap" <<'SAP'
dvector<long> D(1000);
async for (long i = 0; i < len(D); i++)
    D[i] = i;
dvector<double> W(1000);
sync for (long x : D) with (hybrid, batch = 10) {
    W[x] += 1;
}
double t = 0;
for (long i = 0; i < len(W); i++)
    t += W[i];
print("hybrid %.4f\n", t);
SAP

sed 's/@MODEL@/bsp/' "$top_srcdir/tests/run/lsq.sap.in" >"$tmp/lsq.sap"

for p in add hyb lsq; do
	"$SAPC" -O2 -o "$tmp/$p" "$tmp/$p.sap" || fail "sapc $p.sap"
done

# ranks x threads, and what the workers' changes come to.
while read -r np nt want; do
	$MPIEXEC --bind-to none -n "$np" "$tmp/add" --threads="$nt" </dev/null >"$tmp/add.$np.$nt" 2>"$tmp/add.$np.$nt.err" ||
		{ cat "$tmp/add.$np.$nt" "$tmp/add.$np.$nt.err"; fail "add on $np ranks x $nt threads"; }
	test "$(cat "$tmp/add.$np.$nt")" = "$want" ||
		{ cat "$tmp/add.$np.$nt"; fail "add on $np ranks x $nt threads: want $want"; }
done <<'EOF'
1 1 W 250.0000 250.0000 250.0000 250.0000 C 3000 S 2000 M 10000 s 499500.0
1 2 W 125.0000 125.0000 125.0000 125.0000 C 1500 S 2000 M 5000 s 499500.0
2 1 W 125.0000 125.0000 125.0000 125.0000 C 1500 S 2000 M 5000 s 499500.0
2 2 W 62.5000 62.5000 62.5000 62.5000 C 750 S 2000 M 2500 s 499500.0
3 1 W 83.3333 83.3333 83.3333 83.3333 C 1000 S 2000 M 3333 s 499500.0
3 2 W 41.6667 41.6667 41.6667 41.6667 C 500 S 2000 M 1666 s 499500.0
EOF

# hybrid: a rank's threads write one copy, so only ranks average: the
# total is 1000 / ranks whatever the threads (bsp: / ranks x threads);
# one synchronization per sub-iteration, each thread 10 elements in it;
# on one rank nothing merges, and the threads run one step (Hogwild).
# The result (stdout) and --stats (stderr) are kept apart: mpiexec
# forwards the two streams on their own, and could splice one into the
# other in a shared file.
while read -r np nt want steps; do
	out=$tmp/hyb.$np.$nt
	$MPIEXEC --bind-to none -n "$np" "$tmp/hyb" --threads="$nt" --stats </dev/null >"$out" 2>"$out.err" ||
		{ cat "$out" "$out.err"; fail "hybrid on $np ranks x $nt threads"; }
	grep -qx "hybrid $want" "$out" ||
		{ cat "$out" "$out.err"; fail "hybrid on $np ranks x $nt threads: want $want"; }
	awk -v s="$steps" '$4 == "hybrid" { n++; if ($6 != s) bad = 1 } END { exit bad || !n }' "$out.err" ||
		{ cat "$out.err"; fail "hybrid on $np ranks x $nt threads: not $steps steps"; }
done <<'EOF'
1 2 1000.0000 1
2 1 500.0000 50
2 2 500.0000 25
3 2 333.3333 17
EOF

for np in 1 2 3; do
	for nt in 1 2; do
		for run in a b; do
			out=$tmp/lsq.$np.$nt.$run
			$MPIEXEC --bind-to none -n "$np" "$tmp/lsq" --threads=$nt >"$out" 2>"$out.err" ||
				{ cat "$out" "$out.err"; fail "lsq on $np ranks x $nt threads"; }
		done
		cmp "$tmp/lsq.$np.$nt.a" "$tmp/lsq.$np.$nt.b" ||
			fail "lsq on $np ranks x $nt threads: two runs differ"
		awk '/^epoch/ { mse[$2] = $4 } END { exit !(mse[2] < mse[1] && mse[1] < mse[0]) }' \
			"$tmp/lsq.$np.$nt.a" ||
			{ cat "$tmp/lsq.$np.$nt.a"; fail "lsq on $np ranks x $nt threads: error does not fall"; }
	done
done
# Two workers are two workers, as threads or as ranks.
cmp "$tmp/lsq.1.2.a" "$tmp/lsq.2.1.a" || fail "lsq: 1 rank x 2 threads differs from 2 ranks x 1"
exit 0
