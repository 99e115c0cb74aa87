#!/bin/sh
# sync for with bsp over ranks: each rank runs a mini-batch of its own on
# its own copy of the vectors the body writes, and after each step the
# ranks average their changes (one MPI_Allreduce per vector).
#  - additive updates show the averaging exactly: after all the steps a
#    vector has 1/P of the change one rank makes (250, 125, 83.3333 on
#    1, 2, 3 ranks), integers too, and reduce sums over every element;
#  - least squares by SGD (8 weights, 6000 examples, 3 epochs of bsp
#    mini-batches) gives the same weights on every run for a given P, and
#    its error falls on every P.
#
# Run by `make check` with SAPC and MPIEXEC set.

if test -z "${SAPC:-}" || test ! -x "$SAPC"; then
	echo "SKIP: no sapc (SAPC='${SAPC:-}')"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sync-ranks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

cat >"$tmp/add.sap" <<'SAP'
dvector<long> D(1000);
async for (long i = 0; i < len(D); i++)
    D[i] = i;
dvector<double> W(4);
dvector<long> C(1);
double s = 0;
sync for (long x : D) with (bsp, batch = 12) reduce(+: s) {
    W[x % 4] += 1.0;
    C[0] += 3;
    s += x;
}
print("W %.4f %.4f %.4f %.4f C %d s %.1f\n", W[0], W[1], W[2], W[3], C[0], s);
SAP

cat >"$tmp/lsq.sap" <<'SAP'
const int F = 8;
struct Ex {
    float[F] x;
    float y;
}
dvector<Ex> E(6000);
async for (long i = 0; i < len(E); i++) {
    float y = 0;
    for (int f = 0; f < F; f++) {
        E[i].x[f] = rand() * 2 - 1;
        y += E[i].x[f] * (f + 1) * 0.25;
    }
    E[i].y = y + (rand() - 0.5) * 0.2;
}
dvector<float[F]> W(1);
for (int ep = 0; ep < 3; ep++) {
    sync for (Ex e : E) with (bsp, batch = 50) {
        float p = dot(W[0], e.x);
        for (int f = 0; f < F; f++)
            W[0][f] -= 0.002 * (p - e.y) * e.x[f];
    }
    double se = 0;
    async for (long i = 0; i < len(E); i++) reduce(+: se) {
        double d = dot(W[0], E[i].x) - E[i].y;
        se += d * d;
    }
    print("epoch %d mse %.9g\n", ep, se / len(E));
}
print("w %.6f %.6f %.6f\n", W[0][0], W[0][3], W[0][7]);
SAP

for p in add lsq; do
	"$SAPC" -O2 -o "$tmp/$p" "$tmp/$p.sap" || fail "sapc $p.sap"
done

for np in 1 2 3; do
	$MPIEXEC -n "$np" "$tmp/add" --threads=1 >"$tmp/add.$np" 2>&1 || { cat "$tmp/add.$np"; fail "add on $np ranks"; }
done
grep -qx 'W 250.0000 250.0000 250.0000 250.0000 C 3000 s 499500.0' "$tmp/add.1" ||
	{ cat "$tmp/add.1"; fail "add on 1 rank"; }
grep -qx 'W 125.0000 125.0000 125.0000 125.0000 C 1500 s 499500.0' "$tmp/add.2" ||
	{ cat "$tmp/add.2"; fail "add on 2 ranks: changes not averaged"; }
grep -qx 'W 83.3333 83.3333 83.3333 83.3333 C 1000 s 499500.0' "$tmp/add.3" ||
	{ cat "$tmp/add.3"; fail "add on 3 ranks: changes not averaged"; }

for np in 1 2 3; do
	for run in a b; do
		$MPIEXEC -n "$np" "$tmp/lsq" --threads=1 >"$tmp/lsq.$np.$run" 2>&1 ||
			{ cat "$tmp/lsq.$np.$run"; fail "lsq on $np ranks"; }
	done
	cmp "$tmp/lsq.$np.a" "$tmp/lsq.$np.b" || fail "lsq on $np ranks: two runs differ"
	awk '/^epoch/ { mse[$2] = $4 } END { exit !(mse[2] < mse[0] && mse[0] < 1) }' \
		"$tmp/lsq.$np.a" || { cat "$tmp/lsq.$np.a"; fail "lsq on $np ranks: error does not fall"; }
done
exit 0
