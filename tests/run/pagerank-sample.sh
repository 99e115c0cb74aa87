#!/bin/sh
# samples/pagerank.sap against its serial C twin,
# samples/baselines/pagerank.c, on a graph from tools/gengraph (skewed
# in-degrees, dangling nodes):
#  - tools/gengraph writes the same bytes for the same options, ids in
#    order, no self-loop or repeated neighbour, and rejects bad options;
#  - on 1 rank x 1 thread the sample prints what the twin prints (every
#    iteration's change) and saves the same ranks, bit for bit;
#  - with 2 workers, 1 rank x 2 threads and 2 ranks x 1 thread print and
#    save the same, bit for bit: the accumulated sums and the reductions
#    combine in worker order whatever the ranks;
#  - on 1, 2 and 3 ranks x 1 and 2 threads every saved rank is within
#    1e-12 (relatively) of the twin's, and the ranks sum to 1 within
#    1e-12: the sums in another order differ by rounding only, where a
#    lost or doubled share is off by far more.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.
# Exit status: 0 pass, 1 fail, 77 skip.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
gen=$top_builddir/tools/gengraph
test -x "$gen" || { echo "SKIP: no $gen"; exit 77; }

make_tmp

# ---- the generator ----
set -- --nodes=20000 --degree=6 --local=0.5 --skew=1 --seed=5
"$gen" "$@" --out="$tmp/g.txt" || fail "gengraph"
"$gen" "$@" >"$tmp/g2.txt" || fail "gengraph to standard output"
cmp -s "$tmp/g.txt" "$tmp/g2.txt" || fail "two runs with the same options differ"
"$gen" "$@" --seed=6 >"$tmp/g3.txt" || fail "gengraph --seed=6"
cmp -s "$tmp/g.txt" "$tmp/g3.txt" && fail "--seed=6 writes the same graph"
awk '/^#/ { next }
	{
		if ($1 != n) { print "line " NR ": id " $1 ", not " n; bad = 1 }
		if (NF - 1 > 12) { print "node " n ": " NF - 1 " out-edges, more than 12"; bad = 1 }
		delete seen
		for (f = 2; f <= NF; f++) {
			if ($f !~ /^[0-9]+$/ || $f >= 20000 || $f == n || ($f in seen)) {
				print "node " n ": bad neighbour " $f; bad = 1
			}
			seen[$f] = 1
		}
		dangling += NF == 1
		n++
	}
	END {
		if (n != 20000) { print n " nodes"; bad = 1 }
		if (dangling == 0) { print "no dangling node"; bad = 1 }
		exit bad
	}' "$tmp/g.txt" || fail "the graph is not as documented"
for bad in --nodes=0 --degree=-1 --skew=3 --local=2 --bogus=1 --nodes=10; do
	"$gen" $bad >/dev/null 2>"$tmp/err"
	test $? = 2 || fail "gengraph $bad: exit status not 2"
	test -s "$tmp/err" || fail "gengraph $bad: no message"
done

# ---- the sample against its twin ----
"$SAPC" -O2 -o "$tmp/pagerank" "$top_srcdir/samples/pagerank.sap" ||
	fail "sapc could not compile samples/pagerank.sap"
# The flags sapc builds the generated C with.
${CC:-cc} -std=c11 -O2 -ffp-contract=off -fwrapv -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/pagerank.c" -lm ||
	fail "could not compile samples/baselines/pagerank.c"

set -- --data="$tmp/g.txt" --iters=15
"$tmp/twin" "$@" --out="$tmp/twin.txt" >"$tmp/twin.out" || fail "the twin failed"
test "$(grep -c '^iter [0-9]* diff ' "$tmp/twin.out")" = 15 ||
	{ cat "$tmp/twin.out"; fail "unexpected report from the twin"; }
strip_time "$tmp/twin.out" >"$tmp/twin.cmp"

for np in 1 2 3; do
	for nt in 1 2; do
		l=${np}x$nt
		$MPIEXEC -n $np "$tmp/pagerank" "$@" --threads=$nt --out="$tmp/$l.txt" \
			>"$tmp/$l.out" 2>"$tmp/$l.err" || { cat "$tmp/$l.err"; fail "$l: exit status"; }
		strip_time "$tmp/$l.out" >"$tmp/$l.cmp"
		awk 'NR == FNR { t[FNR] = $1; next }
			{
				d = $1 - t[FNR]; d = d < 0 ? -d : d
				if (d > 1e-12 * t[FNR]) { print "node " FNR - 1 ": " $1 " against " t[FNR]; bad = 1; exit }
				s += $1
			}
			END {
				if (FNR != 20000) { print FNR " ranks saved"; bad = 1 }
				if (!bad && (s - 1 > 1e-12 || 1 - s > 1e-12)) { print "the ranks sum to " s; bad = 1 }
				exit bad
			}' "$tmp/twin.txt" "$tmp/$l.txt" || fail "$l: ranks not the twin's"
	done
done
cmp -s "$tmp/twin.cmp" "$tmp/1x1.cmp" ||
	{ diff "$tmp/twin.cmp" "$tmp/1x1.cmp" | head; fail "1x1 does not print what the twin prints"; }
cmp -s "$tmp/twin.txt" "$tmp/1x1.txt" || fail "1x1 does not save the twin's ranks bit for bit"
cmp -s "$tmp/1x2.cmp" "$tmp/2x1.cmp" || fail "1x2 and 2x1 print differently"
cmp -s "$tmp/1x2.txt" "$tmp/2x1.txt" || fail "1x2 and 2x1 save different ranks"
exit 0
