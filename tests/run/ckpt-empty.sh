#!/bin/sh
# Checkpoints of empty things resume: a dvector of no elements (declared
# empty, or made in the epoch loop with a size that is 0 at first) and
# the keys of a map with none.  Every checkpoint of such a program was
# refused on --resume ("dvector e: 1 runs of elements"), on every layout.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >empty.sap <<'SAP'
dvector<int> e(0);
dmap<long, double> m;
long total = 0;
for (int it = 0; it < 4; it++) {
    dvector<long> y(it);
    async for (long i = 0; i < len(e); i++) { e[i] += 1; }
    async for (long i = 0; i < len(y); i++) reduce(+: total) { y[i] = i + it; total += y[i]; }
    async for (long k : m) reduce(+: total) { total += long(m[k]); }
    print("it %d len %d %d total %d\n", it, len(e), len(y), total);
}
SAP
"$SAPC" -o empty empty.sap || fail "sapc empty.sap"
for layout in "1 1" "1 2" "2 1" "3 1"; do
	set -- $layout
	run="$MPIEXEC -n $1 ./empty --threads=$2"
	$run >full </dev/null 2>full.err || { cat full.err; fail "$1 x $2: the run failed"; }
	for k in 1 3 5; do
		rm -rf ck
		SAP_TEST_KILL_AFTER=$k $run --checkpoint-dir=ck --checkpoint-every=1 >p1 2>p1.err </dev/null &&
			fail "$1 x $2: not killed after loop $k"
		$run --checkpoint-dir=ck --resume >p2 2>p2.err </dev/null ||
			{ cat p2.err; fail "$1 x $2, killed after loop $k: --resume failed"; }
		# The resumed run prints the end of what the whole one does.
		test -s p2 && tail -n "$(wc -l <p2)" full | cmp -s - p2 ||
			fail "$1 x $2, killed after loop $k: resumed printing '$(cat p2)'"
	done
done
exit 0
