#!/bin/sh
# load and save on several ranks: each rank parses the lines that start in
# its share of the file's bytes, and save writes one file in element order.
#  - files loaded and saved on 1, 2 and 3 ranks (and 2 ranks over TCP)
#    give byte-identical saved files and the same printed checksums:
#    generated ratings, and hand-made edges (blank and comment lines, no
#    final newline, a line longer than a rank's share, fewer lines than
#    ranks, an empty file);
#  - a file with two malformed lines, in different ranks' shares, fails on
#    3 ranks within 30 s with the first one's line number in the whole
#    file, reported once, and a non-zero exit status.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/rt.sap" <<'SAP'
// Load, print a checksum that depends on every field and the order, save.
struct Rating {
    int i;
    int j;
    float r;
}
param string data = "in.txt";
param string out = "out.txt";
dvector<Rating> A = load(data);
double sum = 0;
for (long n = 0; n < len(A); n++)
    sum += (n % 7 + 1) * (A[n].i + 3.0 * A[n].j + 0.5 * A[n].r);
print("n %d sum %.6f\n", len(A), sum);
save(A, out);
SAP
"$SAPC" -O2 -o "$tmp/rt" "$tmp/rt.sap" || fail "sapc rt.sap"

"$top_builddir/tools/genratings" --users=500 --items=300 --ratings=20000 --seed=3 \
	--out="$tmp/gen.txt" || fail "genratings"
printf '# ratings\n\n1 2 3.5\n   \n4 5 1\n# end\n6 7 2.25' >"$tmp/edges.txt"
{
	echo "1 1 1"
	# One line longer than a third of the file: it spans two shares.
	printf '2 2 '
	i=0
	while test $i -lt 200; do printf '0'; i=$((i + 1)); done
	echo "1.5"
	echo "3 3 3"
} >"$tmp/long.txt"
printf '9 9 9\n' >"$tmp/one.txt"
: >"$tmp/empty.txt"

for f in gen edges long one empty; do
	for np in 1 2 3 tcp; do
		case $np in
		tcp) run="$MPIEXEC --mca btl tcp,self -n 2" ;;
		*) run="$MPIEXEC -n $np" ;;
		esac
		$run "$tmp/rt" --data="$tmp/$f.txt" --out="$tmp/$f.$np.out" \
			>"$tmp/$f.$np.stdout" 2>"$tmp/$f.$np.err" ||
			{ cat "$tmp/$f.$np.err"; fail "$f on $np ranks: exit status $?"; }
		if test "$np" != 1; then
			cmp "$tmp/$f.1.out" "$tmp/$f.$np.out" ||
				fail "$f: saved file on $np ranks differs from 1 rank's"
			cmp "$tmp/$f.1.stdout" "$tmp/$f.$np.stdout" ||
				fail "$f: output on $np ranks differs from 1 rank's"
		fi
	done
done
# The round trip keeps every element: the generated file has no blanks.
test "$(wc -l <"$tmp/gen.1.out")" = 20000 || fail "gen: not 20000 lines saved"
grep -q '^n 20000 ' "$tmp/gen.1.stdout" || fail "gen: not 20000 elements loaded"
grep -q '^n 3 ' "$tmp/edges.1.stdout" || fail "edges: blank and comment lines counted"
grep -q '^n 3 ' "$tmp/long.1.stdout" || fail "long: a line lost or split"
grep -q '^n 0 ' "$tmp/empty.1.stdout" || fail "empty: not 0 elements"
test ! -s "$tmp/empty.1.out" || fail "empty: saved file not empty"

# Two bad lines, at 5000 and 18000 of 20000: the first is in rank 0's
# share on 3 ranks, the second in rank 2's.
awk 'NR == 5000 { $3 = "4x" } NR == 18000 { $1 = "u7" } { print }' \
	"$tmp/gen.txt" >"$tmp/bad.txt"
start=$(date +%s)
timeout 300 $MPIEXEC -n 3 "$tmp/rt" --data="$tmp/bad.txt" --out="$tmp/bad.out" \
	>"$tmp/bad.stdout" 2>"$tmp/bad.err"
rc=$?
end=$(date +%s)
test $rc = 124 && fail "malformed input on 3 ranks: still running after 300 s"
test $rc = 0 && fail "malformed input on 3 ranks: exit status 0"
want="$tmp/bad.txt:5000: error: field 'r': expected a float, got \"4x\""
test "$(grep -c "error:" "$tmp/bad.err")" = 1 ||
	{ cat "$tmp/bad.err"; fail "malformed input: not exactly one error reported"; }
grep -qF "$want" "$tmp/bad.err" ||
	{ cat "$tmp/bad.err"; fail "malformed input: no '$want'"; }
test ! -e "$tmp/bad.out" || fail "malformed input: a file was saved"
echo "malformed input on 3 ranks: exit status $rc after $((end - start)) s"
exit 0
