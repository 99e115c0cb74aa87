#!/bin/sh
# async for on several threads and ranks is deterministic and
# serializable, and its plans are conflict-free:
#  - two runs with the same ranks x threads save identical models;
#  - the order a run executed (--dump-order), replayed sequentially on one
#    rank and thread (--run-order), gives the same model bit for bit;
#  - --check-plan verifies every plan against the keys the slices record;
#  - 2 ranks x 1 thread and 1 x 2 (likewise 3) save the same model, and so
#    do 2 ranks over TCP.
# For SGDMF (the DSGD/Strata pattern) and a TransE-like program whose
# keys are drawn at random (the plan is rebuilt every invocation), on
# 1 x 2, 1 x 3, 1 x 4, 2 x 1, 3 x 1, 4 x 1 and 2 x 2 (where a thread
# may start a round while its rank exchanges the last one's writes).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

"$top_builddir/tools/genratings" --users=300 --items=200 --ratings=6000 --seed=7 \
	--out="$tmp/train.txt" || fail "genratings"
"$SAPC" -O2 -o "$tmp/sgdmf" "$top_srcdir/samples/sgdmf.sap" || fail "sapc sgdmf.sap"

cat >"$tmp/kg.sap" <<'SAP'
// Each iteration updates its triple's head, tail and relation, and a
// random entity: keys the slice can only know by drawing them.
const int D = 4;
struct T { int h; int r; int t; }
param int n = 3000;
param string out = "E.txt";
dvector<T> X(n);
async for (long i = 0; i < len(X); i++) {
    X[i].h = int(i * 37 % 500);
    X[i].r = int(i % 18);
    X[i].t = int(i * 101 % 500);
}
dvector<float[D]> E(500) = uniform(-1, 1);
dvector<float[D]> R(18) = uniform(-1, 1);
for (int ep = 0; ep < 3; ep++) {
    async for (long i = 0; i < len(X); i++) {
        T x = X[i];
        int c = rand_int(len(E));
        float[D] d = E[x.h] + R[x.r] - E[x.t];
        E[x.h] -= 0.01 * d;
        E[x.t] += 0.01 * d;
        R[x.r] -= 0.01 * d;
        E[c] *= 0.999;
    }
}
save(E, out);
SAP
"$SAPC" -O2 -o "$tmp/kg" "$tmp/kg.sap" || fail "sapc kg.sap"

cd "$tmp" || exit 1
# "ranks x threads": the plans are for ranks x threads workers; over
# ranks, each runs its workers' groups and sends what they wrote to the
# others after every round.
for prog in sgdmf kg; do
	args=
	# --rmse_pass=true: the train-RMSE loop of its own.
	[ $prog = sgdmf ] && args="--data=train.txt --iters=3 --rmse_pass=true"
	for pt in 1x2 1x3 1x4 2x1 3x1 4x1 2x2; do
		np=${pt%x*} t=${pt#*x}
		run="$MPIEXEC -n $np"
		# shellcheck disable=SC2086
		$run ./$prog $args --threads=$t --check-plan --stats --dump-order=order.$prog.$pt \
			--out=a.$prog.$pt >out.a 2>stats.$pt || { cat stats.$pt; fail "$prog on $pt"; }
		grep -q 'planned' stats.$pt || { cat stats.$pt; fail "$prog on $pt: no loop was planned"; }
		# The train-RMSE loop writes nothing, but sums doubles: it runs
		# even chunks, not the training loop's plan, so that its sums do
		# not depend on whether that plan is at hand (after a resume).
		if [ $prog = sgdmf ]; then
			grep -q "^ *3 .* chunks\$" stats.$pt ||
				{ cat stats.$pt; fail "sgdmf on $pt: loop 3 did not run even chunks"; }
		fi
		# On 2 x 2 a thread whose groups need nothing from the other
		# rank starts the next round while its rank exchanges.
		if [ $prog = sgdmf ] && [ $pt = 2x2 ]; then
			grep -q "^Loop 2: [1-9][0-9]* of [0-9]* times a thread started a round while" stats.$pt ||
				{ cat stats.$pt; fail "sgdmf on 2x2: no thread started a round early"; }
		fi
		# shellcheck disable=SC2086
		$run ./$prog $args --threads=$t --out=b.$prog.$pt >out.b 2>/dev/null || fail "$prog rerun on $pt"
		cmp a.$prog.$pt b.$prog.$pt || fail "$prog: two runs on $pt differ"
		# shellcheck disable=SC2086
		./$prog $args --threads=1 --run-order=order.$prog.$pt --out=c.$prog.$pt >out.c 2>err.c ||
			{ cat err.c; fail "$prog: replay of the $pt order"; }
		cmp a.$prog.$pt c.$prog.$pt || fail "$prog: the sequential replay of the $pt order differs"
	done
	# The same workers give the same plan and model, threads or ranks.
	cmp a.$prog.1x2 a.$prog.2x1 || fail "$prog: 2 ranks x 1 thread differs from 1 rank x 2 threads"
	cmp a.$prog.1x3 a.$prog.3x1 || fail "$prog: 3 ranks x 1 thread differs from 1 rank x 3 threads"
	cmp a.$prog.1x4 a.$prog.2x2 || fail "$prog: 2 ranks x 2 threads differs from 1 rank x 4 threads"
	cmp a.$prog.1x4 a.$prog.4x1 || fail "$prog: 4 ranks x 1 thread differs from 1 rank x 4 threads"
done
# Over TCP rather than shared memory, the same model.
# shellcheck disable=SC2086
$MPIEXEC --mca btl tcp,self -n 2 ./sgdmf --data=train.txt --iters=3 --rmse_pass=true --threads=1 --out=tcp \
	>/dev/null 2>err.tcp || { cat err.tcp; fail "sgdmf on 2 ranks over TCP"; }
cmp tcp a.sgdmf.2x1 || fail "sgdmf on 2 ranks over TCP differs from shared memory"
exit 0
