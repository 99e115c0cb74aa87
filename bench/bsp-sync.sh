#!/bin/sh
# bsp-sync.sh: BSP dense synchronization in sync for against a
# hand-written MPI_Allreduce loop on the same arrays.  bench/bsp-sync.sap
# runs a light body over mini-batches, so its time is mostly merging W
# after every step (one in-place MPI_Allreduce on W's storage, then the
# division by the number of workers); bench/baselines/bsp-sync.c does the
# same by hand.  Both time the loop from inside (bench/clock.c), one
# thread per rank, and must print the same checksum.  The figure is C time
# / SAP time: 1.00 is parity, above is faster than by hand.  The same
# program with recon = on (the sparse path: each step moves only the rows
# its mini-batches touch, to their owners) is the last columns; its
# checksum agrees to rounding (it adds changes where dense adds copies).
#
#   bench/bsp-sync.sh                  # 1 MB and 16 MB models, 2 ranks
#   BENCH_QUICK=1 bench/bsp-sync.sh    # smoke test
#
# Environment: see bench/common.subr; also BENCH_RANKS (default 2).
set -eu

# shellcheck source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init bsp-sync 5

# rows:steps:reps; W has rows x 256 floats (1 KiB a row).
if test "$quick" = 1; then
	sizes="1000:20:1"
else
	sizes="1000:400:5 16000:40:5"
fi
batch=4
ranks=${BENCH_RANKS:-2}

"$SAPC" -O3 -o "$tmp/sap" "$bench_dir/bsp-sync.sap" "$bench_dir/clock.c" ||
	bench_fail "sapc failed"
sed 's/recon = off/recon = on/' "$bench_dir/bsp-sync.sap" >"$tmp/sparse.sap"
"$SAPC" -O3 -o "$tmp/sparse" "$tmp/sparse.sap" "$bench_dir/clock.c" || bench_fail "sapc failed"
mpicc -std=c11 -O3 -ffp-contract=off -o "$tmp/c" "$bench_dir/baselines/bsp-sync.c" \
	"$bench_dir/clock.c" || bench_fail "bsp-sync.c did not build"

# "np rows steps reps prog rep loop_s checksum", one line a run.
: >"$tmp/raw"
for rep in $(seq "$reps"); do
	for np in $ranks; do
		for sz in $sizes; do
			rows=${sz%%:*} rest=${sz#*:}
			steps=${rest%:*} r=${rest#*:}
			n=$((steps * np * batch))
			for prog in c sap sparse; do
				bench_quiet
				# $mpi_bind unquoted: it may carry several words.
				# shellcheck disable=SC2086
				$MPIEXEC -n "$np" $mpi_bind "$tmp/$prog" --rows="$rows" --n="$n" \
					--batch="$batch" --reps="$r" --threads=1 >"$tmp/out" 2>&1 ||
					bench_fail "$prog on $np ranks: $(cat "$tmp/out")"
				line=$(sed -n 's/^loop_s \([^ ]*\) checksum \([^ ]*\)$/\1 \2/p' "$tmp/out")
				test -n "$line" || bench_fail "unexpected output from $prog: $(cat "$tmp/out")"
				echo "$np $rows $steps $r $prog $rep $line" >>"$tmp/raw"
			done
		done
	done
done

awk '{ k = $1 " " $2 " " $6; if ($5 == "c") c[k] = $8; else if ($5 == "sap") s[k] = $8; else p[k] = $8 }
	END { for (k in c) if (c[k] != s[k] || (p[k] - c[k]) ^ 2 > (1e-6 * c[k]) ^ 2) {
		print "np rows rep " k ": checksum C " c[k] ", SAP " s[k] ", sparse " p[k]; bad = 1 }
		exit bad }' "$tmp/raw" >&2 ||
	bench_fail "the SAP and C programs disagree"

echo
echo "### BSP dense synchronization: sync for vs a hand-written MPI_Allreduce loop, median of $reps runs"
echo
bench_machine
echo "- SAP: sapc -O3 bench/bsp-sync.sap bench/clock.c; $MPIEXEC -n P ${mpi_bind:+$mpi_bind }PROG" \
	"--rows=R --n=S*P*$batch --batch=$batch --reps=N --threads=1"
echo "- C: mpicc -std=c11 -O3 -ffp-contract=off bench/baselines/bsp-sync.c bench/clock.c; the same options"
echo "- seconds of N invocations of the loop (S steps each, one MPI_Allreduce of W per step)," \
	"timed inside the program after one untimed invocation; checksums equal"
echo
echo "- C / SAP: of the medians; paired: the median over runs of C / SAP in the same run (C then SAP," \
	"back to back), which machine noise that lasts longer than a pair cancels from"
echo
echo "- sparse: the SAP program with recon = on; each step moves the $batch rows per rank its mini-batch" \
	"touches; C / sparse of the medians"
echo
echo "| ranks | W MB | steps x reps | C s [min-max] | SAP s [min-max] | ms/step C | ms/step SAP | C / SAP | paired | sparse s | C / sparse |"
echo "|--:|--:|--:|--|--|--:|--:|--:|--:|--:|--:|"
for np in $ranks; do
	for sz in $sizes; do
		rows=${sz%%:*} rest=${sz#*:}
		steps=${rest%:*} r=${rest#*:}
		get() { awk -v np="$np" -v rows="$rows" -v p="$1" \
			'$1 == np && $2 == rows && $5 == p { print $7 }' "$tmp/raw"; }
		cm=$(get c | bench_median)
		sm=$(get sap | bench_median)
		pm=$(get sparse | bench_median)
		cr=$(get c | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }')
		sr=$(get sap | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }')
		pr=$(awk -v np="$np" -v rows="$rows" '$1 == np && $2 == rows {
			if ($5 == "c") c[$6] = $7; else if ($5 == "sap") s[$6] = $7 }
			END { for (k in c) print c[k] / s[k] }' "$tmp/raw" | bench_median)
		awk -v np="$np" -v rows="$rows" -v st="$steps" -v r="$r" -v c="$cm" -v s="$sm" \
			-v cr="$cr" -v sr="$sr" -v pr="$pr" -v pm="$pm" 'BEGIN {
			printf "| %d | %.2f | %d x %d | %.3f [%s] | %.3f [%s] | %.3f | %.3f | %.2f | %.2f | %.3f | %.1f |\n",
				np, rows * 1024 / 1e6, st, r, c, cr, s, sr, 1000 * c / (st * r),
				1000 * s / (st * r), c / s, pr, pm, c / pm }'
	done
done
