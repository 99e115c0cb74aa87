#!/bin/sh
# A loop over a multimap's keys writes a map that holds every one of them
# at its key, and keeps the key of its largest count: no write inserts,
# so on one rank's threads it runs as a loop keeping the keys, in chunks,
# and the tie goes as in index order (helper GEO: planned, 1 x 2 printed
# the other cell of 60).  A key missing from the map inserts it:
# serially, the same result.  (Over ranks the loop runs planned, as
# before: a loop over one map's keys runs each where that map holds it,
# not where the other, parted, does; helpers U22 and APR.)
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >kt.sap <<'SAP'
param long n = 40000;
param long W = 7;
dmultimap<long, long> cell;
dmap<long, long> cp;
dmap<long, long> part;
for (long i = 0; i < n; i++) {
    long c = ((i * 7919) % 4000 - 2000) * W + (i * 104729) % 5;
    insert(cell, c, i);
    cp[c] = -1;
    if (c % 2 == 0)
        part[c] = -1;
}
long mx = -1;
long at = 0;
long tot = 0;
async for (long k : cell) reduce(max: mx) reduce(+: tot) {
    long c = 0;
    for (long t = 0; t < len(cell[k]); t++)
        c += int(cell[k][t] % 3 == 0);
    cp[k] = c;
    tot += c;
    if (c > mx) { mx = c; at = k; }
}
print("%d %d %d\n", mx, at, tot);
long mx2 = -1;
long at2 = 0;
async for (long k : cell) reduce(max: mx2) {
    long c = len(cell[k]) % 4;
    part[k] = c;
    if (c >= mx2) { mx2 = c; at2 = k; }
}
long h = 0;
dvector<long> ks = keys(part);
for (long i = 0; i < len(ks); i++)
    h = (h * 31 + part[ks[i]] * 7 + ks[i]) % 1000000007;
print("%d %d %d %d\n", mx2, at2, len(ks), h);
SAP
cat >want <<'OUT'
4 -14000 13334
2 13997 4000 -815301066
OUT
"$SAPC" -o kt kt.sap || fail "sapc kt.sap"
for t in 1 2 3; do
	$MPIEXEC -n 1 ./kt --threads=$t --stats >out 2>err </dev/null || { cat err; fail "1 x $t failed"; }
	cmp -s want out || { cat want out; fail "1 x $t prints other results than index order"; }
	if [ $t -gt 1 ]; then
		grep "^ *[0-9]* kt.sap:16 " err | grep -q " chunks (owner computes)$" ||
			{ cat err; fail "1 x $t: the loop over cell's keys not in chunks"; }
	fi
done
# Over ranks: as one rank's workers would, planned, each layout of as
# many workers alike.
$MPIEXEC -n 2 ./kt --threads=1 >out.2 2>err </dev/null || { cat err; fail "2 x 1 failed"; }
$MPIEXEC -n 2 ./kt --threads=1 >out.2b 2>err </dev/null || { cat err; fail "2 x 1 failed"; }
cmp -s out.2 out.2b || fail "2 x 1 prints other results from run to run"
sed -n 2p want >w2
sed -n 2p out.2 | cmp -s - w2 || fail "2 x 1: the map's inserts differ"
exit 0
