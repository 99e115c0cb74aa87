#!/bin/sh
# After an async loop over ranks, each element of the vectors it wrote
# stays where it was last written (by a planned loop or a static one); a loop that writes nothing then
# fetches only the elements its iterations read (its read slice), and
# driver code fetches the elements it reads from their holders (every
# element once it has fetched 64), and save each rank's part.
#  - on 1, 2 and 3 ranks (and 2 over TCP) the printed results and the
#    saved file are identical (integer updates: any serializable order
#    gives the same model), with driver reads and writes of W between
#    the loops;
#  - static loops move nothing: the first leaves each rank's chunk of W
#    there, the second runs each row's iteration where the row is;
#  - on P ranks the read-only loop moves less than a tenth of W: the
#    rows a rank's groups read are the rows its groups wrote.  Making W
#    whole instead would move W / P from every rank.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/hold.sap" <<'EOF'
struct Rating {
    int i;
    int j;
    float r;
}
param string data = "in.txt";
param string out = "out.txt";
dvector<Rating> A = load(data);
int nu = 0;
int nv = 0;
async for (long n = 0; n < len(A); n++) reduce(max: nu, nv) {
    nu = max(nu, A[n].i + 1);
    nv = max(nv, A[n].j + 1);
}
dvector<long[16]> W(nu);
dvector<long> H(nv);
// A static loop: each rank's chunk of W stays where it was written.
async for (long u = 0; u < len(W); u++) {
    W[u][0] = u % 13;
}
for (int r = 0; r < 3; r++) {
    async for (long n = 0; n < len(A); n++) {
        Rating a = A[n];
        for (int k = 0; k < 16; k++)
            W[a.i][k] = W[a.i][k] + a.j + k;
        H[a.j] = H[a.j] + a.i % 5 + r;
    }
    // Right after the loop that wrote H: a read key that depends on
    // elements of H held elsewhere, which the read slice must see
    // current.
    long z2 = 0;
    async for (long n = 0; n < len(A); n++) reduce(+: z2) {
        Rating a = A[n];
        z2 += W[H[a.j] % len(W)][2] % 101;
    }
    long t = 0;
    async for (long n = 0; n < len(A); n++) reduce(+: t) {
        Rating a = A[n];
        t += W[a.i][n % 16] % 1000 * (H[a.j] % 10);
    }
    // Read keys under a condition, in an inner loop, past the group's
    // own block of H.
    long q = 0;
    async for (long n = 0; n < len(A); n++) reduce(+: q) {
        Rating a = A[n];
        if (a.j % 3 == 0) {
            for (int k = 0; k < 2; k++)
                q += H[(a.j + k * 7) % len(H)] % 97;
        }
    }
    // Owner computes: each rank updates the rows it holds.
    async for (long u = 0; u < len(W); u++) {
        W[u][1] = W[u][1] % 1000 + r;
    }
    print("round %d t %d q %d z2 %d W[7][3] %d H[2] %d\n", r, t, q, z2, W[7][3], H[2]);
    W[7][3] = W[7][3] % 100;
}
// Element by element, then (past 64 elements) all at once.
long z = 0;
for (int u = 0; u < 100; u++)
    z += W[u][u % 16] % 1000;
print("z %d\n", z);
save(W, out);
EOF
"$SAPC" -O2 -o "$tmp/hold" "$tmp/hold.sap" || fail "sapc hold.sap"
"$top_builddir/tools/genratings" --users=20000 --items=300 --ratings=200000 --seed=5 \
	--out="$tmp/in.txt" || fail "genratings"

for np in 1 2 3 tcp; do
	case $np in
	tcp) run="$MPIEXEC --mca btl tcp,self -n 2" P=2 ;;
	*) run="$MPIEXEC -n $np" P=$np ;;
	esac
	$run "$tmp/hold" --data="$tmp/in.txt" --out="$tmp/$np.out" --stats \
		>"$tmp/$np.stdout" 2>"$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: exit status $?"; }
	test "$np" = 1 && continue
	cmp "$tmp/1.out" "$tmp/$np.out" || fail "saved W on $np ranks differs from 1 rank's"
	cmp "$tmp/1.stdout" "$tmp/$np.stdout" || fail "output on $np ranks differs from 1 rank's"
	grep -q "^ *5 .* planned (loop 3's plan)\$" "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: the read-only loop did not share the plan"; }
	awk '$1 == 2 && $NF == "chunks" { n++; if ($13 != 0 || $14 != 0) bad = 1 }
		END { exit bad || n != P }' P="$P" "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: the static loop sent what it wrote"; }
	awk '$1 == 7 && $NF == "computes)" { n++; if ($13 != 0 || $14 != 0) bad = 1 }
		END { exit bad || n != P }' P="$P" "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: the owner-computes loop moved rows"; }
	# W: 16 longs a user.
	users=$(awk '$1 + 1 > n { n = $1 + 1 } END { print n }' "$tmp/in.txt")
	awk -v w="$users * 128 / 1e6" -v users="$users" -v P="$P" '
		$1 == 5 && $NF == "plan)" { n++; if ($13 >= users * 128 / 1e6 / 10) bad = 1 }
		END { exit bad || n != P }' "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: the read-only loop moved a tenth of W or more"; }
	# save made W whole, and --stats says so.
	grep -q "^Moved for driver code and save: " "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: no line on making W whole"; }
done
grep -q "^round 2 t " "$tmp/1.stdout" || fail "no output"
exit 0
