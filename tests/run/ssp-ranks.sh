#!/bin/sh
# sync for with ssp(s) over ranks, one rank slowed on purpose: the items
# of the upper half spin, so on 2 ranks rank 1 is slow and rank 0 runs
# ahead of it.
#  - ssp(2): rank 0 waits exactly at the clocks it reaches 3 ahead of
#    rank 1 (--stats counts the clocks by lead), which is most of them
#    (all but clocks 0 .. 2, unless the machine stalls rank 0), and its
#    largest staleness is 2; rank 1 is never ahead and never waits;
#  - ssp(100): nobody waits, rank 0 runs up to 29 clocks ahead;
#  - ssp(0) is bsp: the same output as the bsp loop, and no waits;
#  - the vectors end the same on every rank (min = max over the ranks),
#    and least squares by SGD under ssp(1) converges on 2 and 3 ranks.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

if test -z "${SAPC:-}" || test ! -x "$SAPC"; then
	echo "SKIP: no sapc (SAPC='${SAPC:-}')"
	exit 77
fi

: "${top_srcdir:?must be set}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ssp-ranks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

cat >"$tmp/slow.sap" <<'SAP'
struct Item {
    long work;
}
param int s = 2;
param long spin = 3000000;
param long n = 60;
dvector<Item> A(n);
for (long i = n / 2; i < n; i++)
    A[i].work = spin;
dvector<double> W(2);
sync for (Item it : A) with (ssp(s), batch = 1) {
    double x = 0;
    for (long k = 0; k < it.work; k++)
        x = x * 0.999999 + 1;
    W[0] += 1 + it.work * 1e-9;
    W[1] += x * 0;
}
// Every rank's W[0], through a loop whose iterations spread over them.
double lo = 1e30;
double hi = -1e30;
async for (long i = 0; i < 64; i++) reduce(min: lo) reduce(max: hi) {
    lo = min(lo, W[0]);
    hi = max(hi, W[0]);
}
print("W %.6f %.4f agree %d\n", W[0], W[1], lo == hi);
SAP
sed 's/with (ssp(s), /with (bsp, /' "$tmp/slow.sap" >"$tmp/slowbsp.sap"

sed 's/@MODEL@/ssp(1)/' "$top_srcdir/tests/run/lsq.sap.in" >"$tmp/lsq.sap"

for p in slow slowbsp lsq; do
	"$SAPC" -O2 -o "$tmp/$p" "$tmp/$p.sap" || fail "sapc $p.sap"
done

# The sync table's row for rank R: "waits staleness".
row() {
	awk -v r="$2" '/^sap stats: parallel loops on rank/ { rank = $7 }
		$2 ~ /slow\.sap:/ && $4 ~ /^(ssp|bsp)/ && rank == r { print $10, $12 }' "$1"
}

run() {
	out=$1
	shift
	$MPIEXEC -n 2 "$@" --threads=1 --stats >"$out" 2>&1 || { cat "$out"; fail "$*"; }
}

run "$tmp/s2" "$tmp/slow" --s=2
grep -qx 'W 30.045000 0.0000 agree 1' "$tmp/s2" || { cat "$tmp/s2"; fail "ssp(2): wrong result"; }
# Rank R's clocks by lead: "lead:count ...".
leads() {
	awk -v r="$2" '/^sap stats: parallel loops on rank/ { rank = $7 }
		/^Loop 1: clocks by how many/ && rank == r {
			sub(/.*reaching them: /, ""); gsub(/ \(waited\)/, ""); gsub(/: /, ":"); print }' "$1"
}
set -- $(row "$tmp/s2" 0)
waits=$1
test "$2" = 2 || { cat "$tmp/s2"; fail "ssp(2): rank 0 ran more than 2 clocks ahead"; }
test "$waits" -ge 10 || { cat "$tmp/s2"; fail "ssp(2): rank 0 waited $waits times only"; }
leads "$tmp/s2" 0 | tr ' ' '\n' | awk -F: -v w="$waits" '
	{ n += $2; if ($1 > 3) bad = 1; if ($1 == 3) at3 = $2 }
	END { exit !(n == 30 && !bad && at3 == w) }' ||
	{ cat "$tmp/s2"; fail "ssp(2): rank 0 waited other than at the clocks it was 3 ahead"; }
test "$(row "$tmp/s2" 1)" = "0 0" && test "$(leads "$tmp/s2" 1)" = "0:30" ||
	{ cat "$tmp/s2"; fail "ssp(2): the slow rank ran ahead or waited"; }

run "$tmp/s100" "$tmp/slow" --s=100
grep -qx 'W 30.045000 0.0000 agree 1' "$tmp/s100" || { cat "$tmp/s100"; fail "ssp(100): wrong result"; }
test "$(row "$tmp/s100" 0)" = "0 29" ||
	{ cat "$tmp/s100"; fail "ssp(100): rank 0 should run up to 29 clocks ahead, never waiting"; }

run "$tmp/s0" "$tmp/slow" --s=0
run "$tmp/bsp" "$tmp/slowbsp"
grep '^W' "$tmp/s0" >"$tmp/s0.w"
grep '^W' "$tmp/bsp" >"$tmp/bsp.w"
cmp "$tmp/s0.w" "$tmp/bsp.w" || fail "ssp(0) differs from bsp"
test "$(row "$tmp/s0" 0)" = "0 0" || { cat "$tmp/s0"; fail "ssp(0) waited like ssp"; }

for np in 2 3; do
	$MPIEXEC -n "$np" "$tmp/lsq" --threads=1 >"$tmp/lsq.$np" 2>&1 ||
		{ cat "$tmp/lsq.$np"; fail "lsq on $np ranks"; }
	awk '/^epoch/ { mse[$2] = $4 } END { exit !(mse[2] < mse[0] && mse[2] < 0.01) }' \
		"$tmp/lsq.$np" || { cat "$tmp/lsq.$np"; fail "lsq under ssp(1) on $np ranks: no convergence"; }
done
exit 0
