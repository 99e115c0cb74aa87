#!/bin/sh
# On several ranks a dvector takes memory on a rank only for the elements
# the rank holds: those it last wrote, its index part of what an
# initializer filled, and, during a loop, what the loop fetched for it.
#  - on 1, 2 and 3 ranks (and 2 over TCP) the printed results and the
#    saved W are identical (integer updates: any serializable order gives
#    the same W and H);
#  - the --stats line of W, written by a planned loop and read by a
#    read-only one, the driver and save, shows on every rank at most
#    n * s / P (within 2 %), plus its holder map (at most 2 bytes an
#    element),
#    at the end and at its most: the runtime measures it with mincore;
#  - X, filled by uniform() and read by a read-only loop at keys from the
#    data, most of the other ranks' share of it every round: fetched in
#    the first round, and, unchanged since, made whole in the second, it
#    stays whole (its whole size at the end), where fetching it every
#    round sent the same bytes three times.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/mem.sap" <<'SAP'
struct Rating {
    int i;
    int j;
    float r;
}
param string data = "in.txt";
param string out = "W.txt";
dvector<Rating> A = load(data);
int nu = 0;
int nv = 0;
async for (long n = 0; n < len(A); n++) reduce(max: nu, nv) {
    nu = max(nu, A[n].i + 1);
    nv = max(nv, A[n].j + 1);
}
dvector<long[16]> W(nu);
dvector<long[16]> H(nv);
dvector<float[32]> X(nu) = uniform(0, 1);
for (int r = 0; r < 3; r++) {
    async for (long n = 0; n < len(A); n++) {
        Rating a = A[n];
        for (int k = 0; k < 16; k++) {
            W[a.i][k] = W[a.i][k] + a.j + r + k;
            H[a.j][k] = H[a.j][k] + a.i + k;
        }
    }
    long t = 0;
    async for (long n = 0; n < len(A); n++) reduce(+: t) {
        Rating a = A[n];
        t += W[a.i][n % 16] % 1000 + H[a.j][0] % 1000 + long(X[a.i][n % 32] * 1000);
    }
    print("round %d t %d\n", r, t);
}
print("w %d h %d x %.6f\n", W[5][3], H[7][2], X[11][4]);
save(W, out);
SAP
"$SAPC" -O2 -o "$tmp/mem" "$tmp/mem.sap" || fail "sapc mem.sap"
"$top_builddir/tools/genratings" --users=40000 --items=8000 --ratings=300000 --seed=5 \
	--out="$tmp/in.txt" || fail "genratings"

# vec FILE NAME: "n s end most" of each rank's line of dvector NAME, one
# line a rank, sizes in MB.
vec() {
	sed -n "s/^  dvector $2: \([0-9]*\) x \([0-9]*\) B = .* MB, on this rank \(.*\) MB at the end, \(.*\) MB at most\$/\1 \2 \3 \4/p" "$1"
}

# share P N S MB: is MB (a rank's) at most N * S / P, within 2 %, plus
# the holder map and the rounding of --stats?  And, when LOW is set, at
# least 98 % of N * S / P?
share() {
	awk -v P="$1" -v n="$2" -v s="$3" -v mb="$4" -v low="${5:-}" 'BEGIN {
		want = n * s / P / 1e6
		if (mb > want * 1.02 + 2 * n / 1e6 + 0.02) exit 1
		if (low != "" && mb < want * 0.98) exit 1 }'
}

for np in 1 2 3 tcp; do
	case $np in
	tcp) run="$MPIEXEC --mca btl tcp,self -n 2" P=2 ;;
	*) run="$MPIEXEC -n $np" P=$np ;;
	esac
	$run "$tmp/mem" --data="$tmp/in.txt" --out="$tmp/W.$np.txt" --stats \
		>"$tmp/$np.out" 2>"$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: exit status $?"; }
	if test "$np" != 1; then
		cmp "$tmp/1.out" "$tmp/$np.out" || fail "output on $np ranks differs from 1 rank's"
		cmp "$tmp/W.1.txt" "$tmp/W.$np.txt" || fail "W on $np ranks differs from 1 rank's"
	fi
	test "$(vec "$tmp/$np.err" W | wc -l)" = "$P" &&
		test "$(vec "$tmp/$np.err" X | wc -l)" = "$P" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: not one line of W and of X a rank"; }
	vec "$tmp/$np.err" W | while read -r n s end most; do
		test "$n $s" = "40000 128" || fail "W is $n x $s B"
		if test "$P" = 1; then
			test "$end $most" = "5.12 5.12" ||
				fail "W on 1 rank: $end MB at the end, $most at most, want 5.12"
			continue
		fi
		share "$P" "$n" "$s" "$end" low && share "$P" "$n" "$s" "$most" ||
			{ cat "$tmp/$np.err"; fail "W on $np ranks: $end MB at the end, $most MB at most"; }
	done || exit 1
	vec "$tmp/$np.err" X | while read -r n s end most; do
		test "$end" = 5.12 ||
			{ cat "$tmp/$np.err"; fail "X on $np ranks: $end MB at the end, not whole"; }
	done || exit 1
done
grep -q '^w [0-9]* h [0-9]* x 0\.[0-9]*$' "$tmp/1.out" || { cat "$tmp/1.out"; fail "no result line"; }
exit 0
