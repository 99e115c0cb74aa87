#!/bin/sh
# A loaded dvector that the program reads only at the loop variable, in
# loops that write no DDS, is held in parts: on P ranks each keeps the
# elements it parsed, and each rank runs the iterations of its part.
#  - on 1, 2 and 3 ranks (and 2 over TCP) the printed results and the
#    saved file are identical;
#  - each rank's DDS memory in --stats is its part, within 2 % (plus
#    0.02 MB of rounding) of the 1-rank figure / P;
#  - the same data read also in driver code is whole on every rank.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

if test -z "${SAPC:-}" || test ! -x "$SAPC"; then
	echo "SKIP: no sapc (SAPC='${SAPC:-}')"
	exit 77
fi
: "${top_builddir:?must be set}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/parts-ranks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

head='struct Rating {
    int i;
    int j;
    float r;
}
param string data = "in.txt";
param string out = "out.txt";
dvector<Rating> A = load(data);
long si = 0;
long sj = 0;
int mi = 0;
async for (long n = 0; n < len(A); n++) reduce(+: si, sj) reduce(max: mi) {
    si += (n % 7 + 1) * A[n].i;
    sj += A[n].j;
    mi = max(mi, A[n].i);
}
print("n %d si %d sj %d max %d\n", len(A), si, sj, mi);
save(A, out);'
printf '%s\n' "$head" >"$tmp/parts.sap"
printf '%s\n%s\n' "$head" 'print("first %d\n", A[0].i);' >"$tmp/whole.sap"
for p in parts whole; do
	"$SAPC" -O2 -o "$tmp/$p" "$tmp/$p.sap" || fail "sapc $p.sap"
done

"$top_builddir/tools/genratings" --users=500 --items=300 --ratings=200000 --seed=3 \
	--out="$tmp/in.txt" || fail "genratings"

# mem FILE: the largest "at most" DDS memory of any rank, in MB; and the
# smallest, after a space.
mem() {
	sed -n 's/^DDS memory on this rank: .* MB at the end, \(.*\) MB at most$/\1/p' "$1" |
		sort -n | sed -n '1h;$p;${x;p}' | tr '\n' ' '
}

for p in parts whole; do
	for np in 1 2 3 tcp; do
		case $np in
		tcp) run="$MPIEXEC --mca btl tcp,self -n 2" P=2 ;;
		*) run="$MPIEXEC -n $np" P=$np ;;
		esac
		$run "$tmp/$p" --data="$tmp/in.txt" --out="$tmp/$p.$np.out" --stats \
			>"$tmp/$p.$np.stdout" 2>"$tmp/$p.$np.err" ||
			{ cat "$tmp/$p.$np.err"; fail "$p on $np ranks: exit status $?"; }
		test "$(grep -c '^DDS memory on this rank' "$tmp/$p.$np.err")" = "$P" ||
			{ cat "$tmp/$p.$np.err"; fail "$p on $np ranks: not one memory line a rank"; }
		if test "$np" = 1; then
			one=$(mem "$tmp/$p.1.err")
			one=${one%% *}
			continue
		fi
		cmp "$tmp/$p.1.out" "$tmp/$p.$np.out" ||
			fail "$p: saved file on $np ranks differs from 1 rank's"
		cmp "$tmp/$p.1.stdout" "$tmp/$p.$np.stdout" ||
			fail "$p: output on $np ranks differs from 1 rank's"
		set -- $(mem "$tmp/$p.$np.err")
		if test "$p" = parts; then
			awk -v hi="$1" -v lo="$2" -v one="$one" -v P="$P" 'BEGIN {
				want = one / P
				exit !(hi <= want * 1.02 + 0.02 && lo >= want * 0.98 - 0.02) }' ||
				fail "parts on $np ranks: DDS memory $2-$1 MB a rank, want $one / $P"
		else
			awk -v lo="$2" -v one="$one" 'BEGIN { exit !(lo >= one - 0.02) }' ||
				fail "whole on $np ranks: DDS memory $2 MB on a rank, want $one"
		fi
	done
done
