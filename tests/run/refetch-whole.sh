#!/bin/sh
# A vector a loop reads at keys its read slice records, fetched from the
# other ranks in one invocation and unchanged by the next, is made whole
# then and fetched no more: AdaBoost's loop over features scans every
# example's bins, built once, and fetched the other rank's half of them
# every round.  Here xb (0.8 MB, each rank holding half after the loop
# that fills it) is read whole, at keys from the data (xb[idx[i]]), by
# a loop over 4 "features" in each of 5 rounds, between which a loop at
# the loop variable changes wt only: the first round fetches 0.4 MB of
# xb, the second makes it whole (0.4 MB), and the last three move none
# of it, 0.8 MB in all where every round fetching moved 2 MB; wt, read
# as a row (wt[i], i over all), goes whole every round (0.4 MB each).
# A loop that writes xb between rounds still fetches it each round, and
# the results on 2 and 3 ranks are those of one.  The counts come from
# --stats, which is exact, not a timing.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/p.sap" <<'SAP'
param long n = 100000;
param int rounds = 5;
param bool change = false;
dvector<double> xb(n);
dvector<double> wt(n) = 1.0;
dvector<long> idx(n);
for (long i = 0; i < n; i++)
    idx[i] = i * 7919 % n;
async for (long i = 0; i < n; i++) xb[i] = i % 7;
for (int t = 0; t < rounds; t++) {
    long s = 0;
    async for (long f = 0; f < 4; f++) reduce(+: s) {
        for (long i = 0; i < n; i++) s += long(xb[idx[i]]) * (f + 1) + long(wt[i]);
    }
    async for (long i = 0; i < n; i++) wt[i] = wt[i] * 0.5 + xb[i];
    if (change)
        async for (long i = 0; i < n; i++) xb[i] = xb[i] + 1;
    print("%d\n", s);
}
SAP
"$SAPC" -O2 -o "$tmp/p" "$tmp/p.sap" || fail "sapc"

# sent FILE: rank 0's MB sent by the loop at p.sap:12.
sent() {
	awk '$2 ~ "p.sap:12$" { print $13; exit }' "$1"
}

for change in false true; do
	$MPIEXEC -n 1 "$tmp/p" --change=$change >"$tmp/one" || fail "1 rank, change=$change"
	$MPIEXEC -n 2 "$tmp/p" --threads=1 --change=$change --stats >"$tmp/two" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "2 ranks, change=$change"; }
	cmp "$tmp/one" "$tmp/two" || fail "2 ranks print other sums than 1, change=$change"
	s=$(sent "$tmp/err")
	test -n "$s" || { cat "$tmp/err"; fail "no --stats line for p.sap:12"; }
	# xb's half 0.4 MB and wt's half 0.4 MB: wt changes every round.
	if [ $change = false ]; then
		awk -v s="$s" 'BEGIN { exit !(s >= 2.79 && s <= 2.81) }' ||
			fail "the features' loop sent $s MB over 5 rounds, not 2.8 (xb fetched each round?)"
	else
		awk -v s="$s" 'BEGIN { exit !(s >= 3.99 && s <= 4.01) }' ||
			fail "with xb written each round the loop sent $s MB, not 4.0"
	fi
	$MPIEXEC -n 3 "$tmp/p" --threads=1 --change=$change >"$tmp/three" || fail "3 ranks"
	cmp "$tmp/one" "$tmp/three" || fail "3 ranks print other sums than 1, change=$change"
done
exit 0
