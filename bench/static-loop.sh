#!/bin/sh
# static-loop.sh: "static loops cost nothing extra".  bench/static-loop.sap
# has two parallel loops whose every access is a static index of the loop
# variable (saxpy y[i] = a * x[i] + y[i] over dvector<float>, and an update
# of every row W[j] of a dvector<float[16]> from j); bench/static-loop.c is
# the same program in C.  Both are built at -O3 (sapc -O3; gcc -O3
# -ffp-contract=off, as sapc builds the generated C), run on one thread,
# and time each loop from inside the program (CLOCK_MONOTONIC around the
# repetitions, bench/clock.c), so start-up and set-up are not counted.
# Both loops update n * reps * 16 floats.  They must print the same
# checksum.  Two sizes: in cache (L2) and in memory.
#
#   bench/static-loop.sh                  # full, 5 runs of each
#   BENCH_QUICK=1 bench/static-loop.sh    # smoke test
#
# Environment: see bench/common.subr.
set -eu

# shellcheck source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init static-loop 5

# N:R, elements and repetitions: in cache (x, y and W in L2) and in memory.
# R makes each timed loop last about a second in C.
if test "$quick" = 1; then
	sizes="16384:61 1048576:2"
else
	sizes="16384:7630 8388608:10"
fi

"$SAPC" -O3 -o "$tmp/sap" "$bench_dir/static-loop.sap" "$bench_dir/clock.c" ||
	bench_fail "sapc failed"
"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -o "$tmp/c" \
	"$bench_dir/static-loop.c" "$bench_dir/clock.c" ||
	bench_fail "static-loop.c did not build"
via=$(bench_threads_via "$tmp/sap")
targs=$(bench_thread_args "$via" 1)

# "n reps prog rep saxpy_s rows_s checksum", one line a run.
: >"$tmp/raw"
for rep in $(seq "$reps"); do
	for nr in $sizes; do
		n=${nr%:*} r=${nr#*:}
		for prog in c sap; do
			bench_quiet
			bench_cpu
			c0=$bench_cpu_s
			busy0=$(bench_busy)
			t0=$(bench_now)
			if test $prog = c; then
				"$tmp/c" --n="$n" --reps="$r" >"$tmp/out" ||
					bench_fail "static-loop.c failed"
			else
				# $targs unquoted: empty or one word.
				# shellcheck disable=SC2086
				bench_mpirun "$tmp/sap" --n="$n" --reps="$r" $targs >"$tmp/out" ||
					bench_fail "static-loop.sap failed"
			fi
			t1=$(bench_now)
			busy1=$(bench_busy)
			bench_cpu
			c1=$bench_cpu_s
			# The share of the CPUs other processes took during the run.
			others=$(awk -v b0="$busy0" -v b1="$busy1" -v c0="$c0" -v c1="$c1" \
				-v t0="$t0" -v t1="$t1" -v n="$bench_ncpu" 'BEGIN {
				o = (b1 - b0 - (c1 - c0)) / (n * (t1 - t0))
				printf "%.3f", o < 0 ? 0 : o }')
			line=$(sed -n 's/^saxpy_s \([^ ]*\) rows_s \([^ ]*\) checksum \([^ ]*\)$/\1 \2 \3/p' \
				"$tmp/out")
			test -n "$line" || bench_fail "unexpected output from $prog: $(cat "$tmp/out")"
			echo "$n $r $prog $rep $line $others" >>"$tmp/raw"
		done
	done
done

# The same work, or the timings mean nothing.
awk '{ k = $1 " " $4; if ($3 == "c") c[k] = $7; else s[k] = $7 }
	END { for (k in c) if (c[k] != s[k]) {
		print "n=" k ": checksum C " c[k] ", SAP " s[k]; bad = 1 }
		exit bad }' "$tmp/raw" >&2 ||
	bench_fail "the SAP and C programs disagree"

col() {
	awk -v n="$1" -v p="$2" -v c="$3" '$1 == n && $3 == p { print $c }' "$tmp/raw"
}

echo
echo "### static loops: SAP vs the same loop in C, 1 thread, median of $reps runs"
echo
bench_machine
echo "- SAP: sapc -O3 bench/static-loop.sap bench/clock.c;" \
	"$MPIEXEC -n 1 ${mpi_bind:+$mpi_bind }PROG --n=N --reps=R${targs:+ $targs}"
echo "- C: $BENCH_CC -std=c11 -O3 -ffp-contract=off bench/static-loop.c bench/clock.c; PROG --n=N --reps=R"
if test "$via" = none; then
	echo "- one thread: this build has no thread option and runs every loop on one thread"
else
	echo "- $(bench_describe_threads "$via" | sed 's/=N/=1/')"
fi
echo "- seconds of the loop alone (timed inside the program), both loops updating N*R*16 floats;" \
	"checksums equal; each run waited up to $bench_quiet_wait s for an idle second"
echo
echo "- others: the share of the $bench_ncpu CPUs other processes used during the runs" \
	"of that size (median; from /proc/stat)"
echo
echo "| loop | N | R | C s [min-max] | SAP s [min-max] | ns/float C | ns/float SAP | SAP / C | others |"
echo "|------|--:|--:|--|--|--:|--:|--:|--:|"
for loop in saxpy rows; do
	c=5
	test $loop = rows && c=6
	for nr in $sizes; do
		n=${nr%:*} r=${nr#*:}
		cm=$(col "$n" c $c | bench_median)
		sm=$(col "$n" sap $c | bench_median)
		cr=$(col "$n" c $c | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
			END { printf "%.3f-%.3f", lo, hi }')
		sr=$(col "$n" sap $c | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
			END { printf "%.3f-%.3f", lo, hi }')
		om=$(awk -v n="$n" '$1 == n { print $8 }' "$tmp/raw" | bench_median)
		awk -v l="$loop" -v n="$n" -v r="$r" -v c="$cm" -v s="$sm" -v cr="$cr" -v sr="$sr" \
			-v o="$om" 'BEGIN { f = n * r * 16
			printf "| %s | %d | %d | %.3f [%s] | %.3f [%s] | %.3f | %.3f | %.3f | %.0f %% |\n",
				l, n, r, c, cr, s, sr, c / f * 1e9, s / f * 1e9, s / c, o * 100 }'
	done
done
echo
mkdir -p "$BENCH_DATA"
{
	echo "# bench/static-loop.sh, $(bench_commit), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# n reps prog rep saxpy_s rows_s checksum others"
	cat "$tmp/raw"
} >"$BENCH_DATA/static-loop-last.raw"
echo "(every run: $BENCH_DATA/static-loop-last.raw)"
