#!/bin/sh
# A loaded dvector that the program reads only at the loop variable, in
# async loops that run spread over ranks, is held in parts: on P ranks
# each keeps an even share, runs the iterations of its share in loops that
# write no DDS, and in planned loops receives the elements of its groups'
# iterations with them (a plan-order copy, which a read-only loop then
# shares).
#  - on 1, 2 and 3 ranks (and 2 over TCP) the printed results and the
#    saved file are identical;
#  - each rank's DDS memory in --stats is its part, within 2 % (plus
#    0.02 MB of rounding) of the 1-rank figure / P, and so is the memory
#    of the plan-order copies of the planned loop;
#  - the same data read also in driver code is not held in parts but by
#    the rank that parsed each line (the driver's read fetches it, the
#    loop runs where the lines are): each rank's DDS memory is its share
#    plus the 2-byte holder map of the 200000 ratings, not the whole.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

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
# Integer updates, so that any serializable order gives the same U.
planned='dvector<long> U(500);
for (int r = 0; r < 2; r++) {
    async for (long n = 0; n < len(A); n++) {
        U[A[n].i] = U[A[n].i] + A[n].j + r;
    }
    long t = 0;
    async for (long n = 0; n < len(A); n++) reduce(+: t) {
        t += U[A[n].i] % 1000 * (n % 3);
    }
    print("round %d t %d\n", r, t);
}'
printf '%s\n' "$head" >"$tmp/parts.sap"
printf '%s\n%s\n' "$head" "$planned" >"$tmp/planned.sap"
printf '%s\n%s\n' "$head" 'print("first %d\n", A[0].i);' >"$tmp/whole.sap"
for p in parts planned whole; do
	"$SAPC" -O2 -o "$tmp/$p" "$tmp/$p.sap" || fail "sapc $p.sap"
done

"$top_builddir/tools/genratings" --users=500 --items=300 --ratings=200000 --seed=3 \
	--out="$tmp/in.txt" || fail "genratings"

# mem FILE [WHAT]: the largest "at most" memory of any rank on the WHAT
# line (DDS memory), in MB; and the smallest, after a space.
mem() {
	sed -n "s/^${2:-DDS memory} on this rank: .* MB at the end, \(.*\) MB at most\$/\1/p" "$1" |
		sort -n | sed -n '1h;$p;${x;p}' | tr '\n' ' '
}

# part P ONE HI LO: is every rank's figure (HI the largest, LO the
# smallest) ONE / P?
part() {
	awk -v P="$1" -v one="$2" -v hi="$3" -v lo="$4" 'BEGIN {
		want = one / P
		exit !(hi <= want * 1.02 + 0.02 && lo >= want * 0.98 - 0.02) }'
}

for p in parts planned whole; do
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
		if test "$p" != whole; then
			part "$P" "$one" "$1" "$2" ||
				fail "$p on $np ranks: DDS memory $2-$1 MB a rank, want $one / $P"
		fi
		if test "$p" = planned; then
			grep -q "^ *2 .* planned\$" "$tmp/$p.$np.err" &&
				grep -q "^ *3 .* planned (loop 2's plan)\$" "$tmp/$p.$np.err" ||
				{ cat "$tmp/$p.$np.err"; fail "planned on $np ranks: not planned, or not shared"; }
			# Half of a rank's share of A goes to the other rank of 2
			# (the groups are balanced), and --stats counts it.
			grep -q ' sent_MB  *recv_MB  *fetch_s  *send_s verdict$' "$tmp/$p.$np.err" ||
				fail "planned on $np ranks: no fetch_s and send_s columns"
			awk -v one="$one" -v P="$P" '$1 == 2 && $NF == "planned" {
				if ($13 < one / P * (P - 1) / P * 0.9) bad = 1; n++ }
				END { exit bad || n != P }' "$tmp/$p.$np.err" ||
				fail "planned on $np ranks: the copies' elements are missing from sent_MB"
			# The copy holds the elements of the rank's groups: A / P
			# (balance 1.00), as much as its part.
			set -- $(mem "$tmp/$p.$np.err" Plan-order\ copies)
			part "$P" "$one" "$1" "$2" ||
				fail "planned on $np ranks: copies of $2-$1 MB a rank, want $one / $P"
		elif test "$p" = whole; then
			awk -v P="$P" -v one="$one" -v hi="$1" 'BEGIN {
				exit !(hi <= one / P * 1.02 + 0.4 + 0.02) }' ||
				fail "whole on $np ranks: DDS memory $1 MB on a rank, want $one / $P + 0.4"
		fi
	done
done

# An index past the end of a vector held in parts fails as on one rank:
# the iterations past its end go to the last rank, whose body reports the
# index, and every rank exits.  For a read-only loop (owner computes) and
# a planned one (over another range than [0, len(A)), so A is gathered).
for kind in read planned; do
	case $kind in
	read) body='async for (long n = 0; n < len(A) + 1; n++) reduce(+: s) { s += A[n].j; }' ;;
	planned) body='dvector<long> U(500);
async for (long n = 0; n < len(A) + 1; n++) { U[A[n].i] += A[n].j; }' ;;
	esac
	printf '%s\nlong s = 0;\n%s\nprint("not reached %%d\\n", s);\n' "$head" "$body" \
		>"$tmp/oob-$kind.sap"
	"$SAPC" -O2 -o "$tmp/oob-$kind" "$tmp/oob-$kind.sap" || fail "sapc oob-$kind.sap"
	timeout 300 $MPIEXEC -n 3 "$tmp/oob-$kind" --data="$tmp/in.txt" --out="$tmp/oob.out" \
		>"$tmp/oob.stdout" 2>"$tmp/oob.err"
	rc=$?
	test $rc = 124 && fail "index past the end ($kind) on 3 ranks: still running after 300 s"
	test $rc = 0 && fail "index past the end ($kind) on 3 ranks: exit status 0"
	grep -q "error: index 200000 out of range for A (size 200000)" "$tmp/oob.err" ||
		{ cat "$tmp/oob.err"; fail "index past the end ($kind) on 3 ranks: no index error"; }
	grep -q "not reached" "$tmp/oob.stdout" && fail "index past the end ($kind): went on"
done
exit 0
