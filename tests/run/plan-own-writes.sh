#!/bin/sh
# A loop whose slice reads only what the loop never changes of a DDS it
# writes (a field no write reaches, g[i].to; a map's keys, under
# 'if (contains(m, k))') keeps its plan across its own writes: planned
# once for three invocations, where it re-planned every one.  A change
# by other code (driver code setting g[7].to, a key inserted into m)
# still makes it plan again, and the results are the serial loop's.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/po.sap" <<'SAP'
struct Node { int to; long hits; double w; }
param long n = 20000;
param int other = 0;
dvector<Node> g(n);
list<Node> s;
dmap<long, double> m;
dmap<long, double> ms;
async for (long i = 0; i < n; i++) g[i].to = int((i * 7919 + 13) % n);
for (long i = 0; i < n; i++) {
    push(s, g[i]);
    if (i % 3 == 0) {
        m[i] = 1;
        ms[i] = 1;
    }
}
for (int p = 0; p < 3; p++) {
    async for (long i = 0; i < n; i++) {
        int t = g[i].to;
        g[t].hits += 1;
        g[t].w = g[t].w * 0.5 + i % 97 + p;
    }
    async for (long i = 0; i < n; i++) {
        long k = (i * 31) % n;
        if (contains(m, k))
            m[k] = m[k] * 0.5 + i % 5;
    }
    for (long i = 0; i < n; i++) {
        int t = s[i].to;
        s[t].hits += 1;
        s[t].w = s[t].w * 0.5 + i % 97 + p;
        long k = (i * 31) % n;
        if (contains(ms, k))
            ms[k] = ms[k] * 0.5 + i % 5;
    }
    if (other == 1) {
        g[7].to = 11 + p;
        s[7].to = 11 + p;
        m[n + p] = 0;
        ms[n + p] = 0;
    }
}
long bad = 0;
for (long i = 0; i < n; i++)
    if (g[i].hits != s[i].hits || g[i].w != s[i].w || get(m, i, -1.0) != get(ms, i, -1.0))
        bad++;
print("bad %ld len %ld\n", bad, len(m));
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o po po.sap || fail "sapc po.sap"
# The recons column of loop $1 in err.
recons() {
	sed -n "s/^ *$1 po.sap:[0-9]* *[0-9]* *\([0-9]*\) .*/\1/p" err | head -n 1
}
for other in 0 1; do
	# One worker: index order, the serial loop's order.
	$MPIEXEC -n 1 ./po --threads=1 --other=$other >out 2>err || { cat err; fail "1 x 1, other=$other"; }
	grep -q '^bad 0 ' out || fail "1 x 1, other=$other printed $(cat out)"
	# A loop that writes a dmap runs on a rank's threads only: loop 3 is
	# planned on 1 x 2 and 1 x 3, and runs in index order on 2 x 1.
	for l in "1 2" "2 1" "1 3"; do
		# shellcheck disable=SC2086
		set -- $l
		$MPIEXEC -n "$1" ./po --threads="$2" --other=$other --stats >"out.$1.$2" 2>err ||
			{ cat err; fail "$1 x $2, other=$other"; }
		case $other.$2 in
		0.1) want="1 0" ;;
		0.*) want="1 1" ;;
		*.1) want="3 0" ;;
		*) want="3 3" ;;
		esac
		got="$(recons 2) $(recons 3)"
		test "$got" = "$want" || { cat err; fail "$1 x $2, other=$other: recons $got, not $want"; }
	done
	cmp out.1.2 out.2.1 || fail "other=$other: 1 x 2 and 2 x 1 differ"
done
exit 0
