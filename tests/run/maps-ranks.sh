#!/bin/sh
# Maps over ranks.  A map built by driver code is whole on every rank; a
# loop over its keys that touches maps only at its key parts them, each
# rank keeping the keys it owns and running them; driver code reads a key
# from its owner; an insert, an erase, or a loop reading other keys makes
# the map whole again, in insertion order.
#  - on 1, 2 and 3 ranks (and 2 over TCP) the output is identical:
#    reductions over the keys, values updated in place, a join, driver
#    reads, len(), count(), an insert and an erase, get() at other keys,
#    a multimap of strings;
#  - the loops over keys run "chunks (owner computes)";
#  - a loop accumulating into a dvector and a map runs spread over the
#    ranks, and its sums are the same;
#  - deg, parted at the end, holds at most 1/P of its one-rank memory on
#    each rank.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/maps.sap" <<'SAP'
// Maps over ranks: built whole by driver code, parted by loops over
// their keys, read by driver code from the keys' owners, made whole
// again by an insert, and by a loop that reads them at other keys.
param long n = 200000;
dmap<long, double> w;
dmap<long, long> deg;
dmultimap<string, long> tags;
dvector<long> X(1000);
for (long i = 0; i < n; i++) {
    w[i * 7919 % 1000003] = 0.5 * (i % 100);
    if (i % 3 == 0)
        deg[i * 7919 % 1000003] = i % 11;
}
for (long i = 0; i < 30; i++)
    insert(tags, i % 3 == 0 ? "a" : i % 3 == 1 ? "bb" : "ccc", i);
for (long i = 0; i < len(X); i++)
    X[i] = i * i % 97;
for (int round = 0; round < 2; round++) {
    double total = 0;
    async for (long k : w) reduce(+: total) {
        total += w[k];
    }
    async for (long k : w) {
        w[k] = w[k] * 2 + X[k % len(X)] + round;
    }
    double both = 0;
    long cnt = 0;
    async for (long k : join(w, deg)) reduce(+: both, cnt) {
        both += w[k] * deg[k];
        cnt += count(deg, k);
    }
    print("round %d: total %.1f, join %d keys, %.1f\n", round, total, cnt, both);
    // Driver reads: from the keys' owners.
    print("w[7919] %.1f, w[15838] %.1f, has 5: %d, len %d\n", w[7919], w[15838],
          count(w, 5), len(w));
}
// A driver insert makes w whole again; the next loop parts it again.
w[-1] = 1.5;
erase(w, 7919);
double total = 0;
async for (long k : w) reduce(+: total) {
    total += w[k];
}
print("after insert and erase: len %d total %.1f\n", len(w), total);
// A loop over a vector reading w at other keys reads it whole.
double some = 0;
async for (long i = 0; i < 1000; i++) reduce(+: some) {
    some += get(w, i * 7919 % 1000003, 0.0);
}
print("some %.1f\n", some);
long nt = 0;
async for (string t : tags) reduce(+: nt) {
    list<long> v = tags[t];
    nt += len(v) * len(t);
}
dvector<string> tk = keys(tags);
print("tags %d, keys %d, first %s\n", nt, len(tk), tk[0]);
// Accumulated on each rank, summed over the ranks.
dvector<long> hist(16);
dmap<long, long> byk;
async for (long i = 0; i < 100000; i++) accumulate(+: hist, byk) {
    hist[i * 31 % 16] += i % 5;
    byk[i % 1000 * 7919 % 1000003] += 1;
}
print("hist %d %d %d, byk %d keys, byk[7919] %d\n", hist[0], hist[7], hist[15], len(byk),
      byk[7919]);
SAP
"$SAPC" -O2 -o "$tmp/maps" "$tmp/maps.sap" || fail "sapc maps.sap"

# deg FILE: each rank's megabytes of map deg at the end, one a line.
deg() {
	sed -n 's/^  dmap deg: 66667 entries, on this rank \(.*\) MB at the end, .* MB at most$/\1/p' "$1"
}

for np in 1 2 3 tcp; do
	case $np in
	tcp) run="$MPIEXEC --mca btl tcp,self -n 2" P=2 ;;
	*) run="$MPIEXEC -n $np" P=$np ;;
	esac
	$run "$tmp/maps" --threads=1 --stats >"$tmp/$np.out" 2>"$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: exit status $?"; }
	test "$(deg "$tmp/$np.err" | wc -l)" = "$P" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: not one line of deg a rank"; }
	if test "$np" = 1; then
		one=$(deg "$tmp/1.err")
		continue
	fi
	cmp "$tmp/1.out" "$tmp/$np.out" ||
		{ diff "$tmp/1.out" "$tmp/$np.out"; fail "output on $np ranks differs from 1 rank's"; }
	for l in 1 2 3 4 6; do
		grep -q "^ *$l [^ ]*maps.sap:[0-9]* .* chunks (owner computes)\$" "$tmp/$np.err" ||
			{ cat "$tmp/$np.err"; fail "loop $l on $np ranks: not run where its keys are"; }
	done
	# The accumulating loop runs spread: P workers, not 1 on every rank.
	awk -v P="$P" '$1 == 7 && $2 ~ /maps.sap:/ { n++; if ($10 != P) bad = 1 }
		END { exit bad || n != P }' "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "loop 7 on $np ranks: not spread over the ranks"; }
	deg "$tmp/$np.err" | while read -r mb; do
		awk -v P="$P" -v one="$one" -v mb="$mb" 'BEGIN {
			exit !(mb > 0 && mb <= one / P * 1.05 + 0.05) }' ||
			fail "deg on $np ranks: $mb MB on a rank, want at most $one / $P"
	done || exit 1
done
grep -q '^round 1: total 19467378.0, join 66667 keys' "$tmp/1.out" ||
	{ cat "$tmp/1.out"; fail "unexpected results"; }
exit 0
