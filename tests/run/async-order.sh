#!/bin/sh
# async for on several threads is deterministic and serializable, and its
# plans are conflict-free:
#  - two runs with the same number of threads save identical models;
#  - the order a run executed (--dump-order), replayed sequentially on one
#    thread (--run-order), gives the same model bit for bit;
#  - --check-plan verifies every plan against the keys the slices record.
# For SGDMF (the DSGD/Strata pattern) and a TransE-like program whose
# keys are drawn at random (the plan is rebuilt every invocation), on 2
# and 3 threads.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

if test -z "${SAPC:-}" || test ! -x "$SAPC"; then
	echo "SKIP: no sapc (SAPC='${SAPC:-}')"
	exit 77
fi
: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/async-order.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

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
for prog in sgdmf kg; do
	args=
	[ $prog = sgdmf ] && args="--data=train.txt --iters=3"
	for t in 2 3; do
		# shellcheck disable=SC2086
		./$prog $args --threads=$t --check-plan --stats --dump-order=order.$t \
			--out=a.$t >out.a 2>stats.$t || { cat stats.$t; fail "$prog on $t threads"; }
		grep -q 'planned' stats.$t || { cat stats.$t; fail "$prog on $t threads: no loop was planned"; }
		# shellcheck disable=SC2086
		./$prog $args --threads=$t --out=b.$t >out.b 2>/dev/null || fail "$prog rerun on $t threads"
		cmp a.$t b.$t || fail "$prog: two runs on $t threads differ"
		# shellcheck disable=SC2086
		./$prog $args --threads=1 --run-order=order.$t --out=c.$t >out.c 2>err.c ||
			{ cat err.c; fail "$prog: replay of the $t-thread order"; }
		cmp a.$t c.$t || fail "$prog: the sequential replay of the $t-thread order differs"
	done
done
exit 0
