#!/bin/sh
# pagerank.sh: samples/pagerank.sap against its serial twin
# (samples/baselines/pagerank.c) and PageRank written by hand for a
# cluster (bench/baselines/pagerank-mpi.c: reduce-scatter and allgather),
# on graphs from tools/gengraph: a small one (the twin's whole run about a
# second) and a large one (about ten seconds or more).
#
# Per size, REPS interleaved rounds of: twin, SAP 1x1, 1x2, 2x1, the
# hand-written program on 2 ranks.  Reported: medians of the whole run's
# wall time (start-up and loading included) and of the iterations' time
# (the last "time" printed), and the twin's time over each (above 1 is
# faster than the twin); bytes sent per iteration by rank 0 in the push
# loop, from --stats.
#
#   bench/pagerank.sh                  # small and large graphs
#   BENCH_QUICK=1 bench/pagerank.sh    # smoke test: small graph, 1 round
#
# Environment: see bench/common.subr.
set -eu

# shellcheck shell=sh source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init pagerank

MPICC=${MPICC:-mpicc}
command -v "$MPICC" >/dev/null || bench_fail "no $MPICC"
gen=$top_builddir/tools/gengraph
test -x "$gen" || bench_fail "no $gen (run make first)"

# name nodes degree iterations
if test "$quick" = 1; then
	sizes="small:1000000:8:20"
	reps=1
else
	sizes="small:1000000:8:20 large:3000000:8:100"
fi

"$SAPC" -O3 -o "$tmp/sap" "$top_srcdir/samples/pagerank.sap" || bench_fail "sapc failed"
"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -fwrapv -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/pagerank.c" -lm || bench_fail "the twin did not build"
"$MPICC" -std=c11 -O3 -ffp-contract=off -fwrapv -o "$tmp/mpi" \
	"$top_srcdir/bench/baselines/pagerank-mpi.c" -lm || bench_fail "pagerank-mpi.c did not build"
loop_line=$(grep -n '^ *async for .*accumulate(+: next)' "$top_srcdir/samples/pagerank.sap" | cut -d : -f 1)
case $loop_line in
'' | *[!0-9]*) bench_fail "cannot find the push loop in samples/pagerank.sap" ;;
esac

mkdir -p "$BENCH_DATA"
: >"$tmp/raw"
load0=$(bench_load)
for s in $sizes; do
	IFS=: read -r name nodes degree iters <<EOS
$s
EOS
	g=$BENCH_DATA/graph-n$nodes-d$degree-l0.5-a0.8-s1.txt
	test -s "$g" || "$gen" --nodes="$nodes" --degree="$degree" --out="$g" ||
		bench_fail "gengraph failed"
	cat "$g" >/dev/null
	for rep in $(seq "$reps"); do
		for prog in twin 1x1 1x2 2x1 mpi2; do
			bench_quiet
			t0=$(bench_now)
			case $prog in
			twin) "$tmp/twin" --data="$g" --iters="$iters" --out="$tmp/r.txt" >"$tmp/out" ;;
			mpi2) $MPIEXEC -n 2 $mpi_bind "$tmp/mpi" --data="$g" --iters="$iters" >"$tmp/out" ;;
			*)
				$MPIEXEC -n "${prog%%x*}" $mpi_bind "$tmp/sap" --data="$g" --iters="$iters" \
					--threads="${prog#*x}" --out="$tmp/r.txt" --stats >"$tmp/out" 2>"$tmp/err" ||
					{ cat "$tmp/err" >&2; bench_fail "pagerank.sap $prog failed"; }
				;;
			esac
			t1=$(bench_now)
			loop=$(sed -n "s/^iter $iters diff .* time \\([0-9.]*\\)\$/\\1/p" "$tmp/out")
			test -n "$loop" || bench_fail "$prog: no iteration $iters"
			diff=$(sed -n "s/^iter $iters diff \\([^ ]*\\) .*/\\1/p" "$tmp/out")
			sent=-
			case $prog in
			*x*)
				sent=$(awk -v s="pagerank.sap:$loop_line" -v it="$iters" '
					index($2, s) { printf "%.2f", $13 / it; exit }' "$tmp/err")
				;;
			esac
			echo "$name $prog $rep $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $loop $diff ${sent:--}" >>"$tmp/raw"
		done
	done
done
load1=$(bench_load)
cp "$tmp/raw" "$BENCH_DATA/pagerank-last.raw"

echo
echo "### pagerank: push form, accumulate(+: next); median of $reps rounds"
echo
bench_machine
echo "- data: tools/gengraph --nodes=N --degree=D (--local=0.5 --skew=0.8 --seed=1); sizes (name:N:D:iterations): $sizes"
echo "- twin: $BENCH_CC -std=c11 -O3 -ffp-contract=off -fwrapv samples/baselines/pagerank.c; hand MPI: $MPICC -O3 bench/baselines/pagerank-mpi.c, 2 ranks"
echo "- SAP: sapc -O3 samples/pagerank.sap; $MPIEXEC -n P ${mpi_bind:+$mpi_bind }PROG --threads=T --stats"
echo "- whole: wall time of the command (start-up, loading, iterations, saving); loop: the iterations"
echo "- sent/iter: MB rank 0 sent in the push loop per iteration (--stats)"
echo "- load average before / after: $load0 / $load1"
echo
echo "| graph | program | whole s | twin/whole | loop s | twin/loop | sent MB/iter | last diff |"
echo "|--|--|--:|--:|--:|--:|--:|--|"
for s in $sizes; do
	name=${s%%:*}
	tw=$(awk -v n="$name" '$1 == n && $2 == "twin" { print $4 }' "$tmp/raw" | bench_median)
	tl=$(awk -v n="$name" '$1 == n && $2 == "twin" { print $5 }' "$tmp/raw" | bench_median)
	for prog in twin 1x1 1x2 2x1 mpi2; do
		w=$(awk -v n="$name" -v p="$prog" '$1 == n && $2 == p { print $4 }' "$tmp/raw" | bench_median)
		l=$(awk -v n="$name" -v p="$prog" '$1 == n && $2 == p { print $5 }' "$tmp/raw" | bench_median)
		sent=$(awk -v n="$name" -v p="$prog" '$1 == n && $2 == p { print $7; exit }' "$tmp/raw")
		diff=$(awk -v n="$name" -v p="$prog" '$1 == n && $2 == p { print $6; exit }' "$tmp/raw")
		label=$prog
		case $prog in twin) label="twin 1x1" ;; mpi2) label="hand MPI 2x1" ;; *) label="sap $prog" ;; esac
		awk -v g="$name" -v p="$label" -v w="$w" -v l="$l" -v tw="$tw" -v tl="$tl" -v s="$sent" -v d="$diff" \
			'BEGIN { printf "| %s | %s | %.3f | %.2fx | %.3f | %.2fx | %s | %s |\n", g, p, w, tw / w, l, tl / l, s, d }'
	done
done
echo
echo "(every run: $BENCH_DATA/pagerank-last.raw)"
