#!/bin/sh
# sgdmf.sh: samples/sgdmf.sap against its serial C twin,
# samples/baselines/sgdmf.c, on Netflix-shaped synthetic ratings.
#
# For each K (factor length) the sample is rebuilt with `const int K = ...`
# rewritten (sapc -O3) and the twin with -DK=... (gcc -O3
# -ffp-contract=off, as sapc builds the generated C).  Each is run with
# --iters=0 and --iters=E, REPS times, interleaved.  The two runs do the
# same loading, sizing, initialisation, test evaluation and saving, and
# the same MPI start-up, so (T(E) - T(0)) / E is the time of one epoch:
# one training pass plus the training-RMSE pass.  Reported: the median
# over the REPS runs of that time, the speedup of the twin's epoch over
# SAP's, the test RMSE after E epochs, and, when the program has --stats,
# the reconnaissance plus planning seconds per epoch as a share of the
# epoch, from the same difference of the two runs (and their total over
# the E epochs, which is what a plan built once and reused costs, as a
# share of one epoch).
#
#   bench/sgdmf.sh                  # full: 5M ratings, K = 100 and 32, 20 epochs
#   BENCH_QUICK=1 bench/sgdmf.sh    # smoke test: 100k ratings, 2 epochs
#
# A control row runs two twins at once, each on its own copy of the data
# and model: 2 x (twin's epoch) / (the pair's epoch) is how far this
# machine scales two copies of this memory-bound loop on its two cores
# (shared cache and memory bandwidth, and on a VM the host), which bounds
# what two threads of SAP can get on it.
#
# Environment: see bench/common.subr; also BENCH_K (default "100 32"),
# BENCH_EPOCHS (default 20, quick 2), BENCH_THREADS (default "1 2"),
# BENCH_CONTROL (default yes; no leaves out the two-twins row).
set -eu

# shellcheck source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init sgdmf

if test "$quick" = 1; then
	users=2000 items=500 ratings=100000 ntest=5000
	epochs=${BENCH_EPOCHS:-2}
else
	users=24000 items=3500 ratings=5000000 ntest=250000
	epochs=${BENCH_EPOCHS:-20}
fi
rank=10 noise=0.5 seed=42
klist=${BENCH_K:-100 32}
threads=${BENCH_THREADS:-1 2}
control=${BENCH_CONTROL:-yes}
case $epochs in
'' | *[!0-9]* | 0) bench_fail "BENCH_EPOCHS=$epochs: expected a count >= 1" ;;
esac

gen=$top_builddir/tools/genratings
test -x "$gen" || bench_fail "no $gen (run make first)"

# ---- Data, generated once into the cache ----

mkdir -p "$BENCH_DATA"
stem=$BENCH_DATA/ratings-u$users-i$items-n$ratings-t$ntest-r$rank-z$noise-s$seed
train=$stem.train.txt
test=$stem.test.txt
gencmd="tools/genratings --users=$users --items=$items --ratings=$ratings \
--test=$ntest --rank=$rank --noise=$noise --seed=$seed \
--out=TRAIN --test-out=TEST"
if test ! -s "$train" || test ! -s "$test"; then
	t0=$(bench_now)
	"$gen" --users=$users --items=$items --ratings=$ratings --test=$ntest \
		--rank=$rank --noise=$noise --seed=$seed \
		--out="$train" --test-out="$test" || bench_fail "genratings failed"
	t1=$(bench_now)
	echo "generated $train and its test file in" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" >&2
fi
# Into the page cache, so that no run pays for the disk.
cat "$train" "$test" >/dev/null

# ---- Builds ----

twin_src=$top_srcdir/samples/baselines/sgdmf.c
grep -q '^#ifndef K' "$twin_src" ||
	bench_fail "$twin_src has no '#ifndef K': -DK would not take"
for k in $klist; do
	case $k in
	'' | *[!0-9]* | 0) bench_fail "BENCH_K: bad K '$k'" ;;
	esac
	sed "s/^const int K = [0-9]*;\$/const int K = $k;/" \
		"$top_srcdir/samples/sgdmf.sap" >"$tmp/sgdmf-k$k.sap"
	test "$(grep -c "^const int K = $k;\$" "$tmp/sgdmf-k$k.sap")" = 1 ||
		bench_fail "could not set K = $k in samples/sgdmf.sap"
	"$SAPC" -O3 -o "$tmp/sap-k$k" "$tmp/sgdmf-k$k.sap" ||
		bench_fail "sapc failed for K = $k"
	"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -DK="$k" -o "$tmp/twin-k$k" \
		"$twin_src" -lm || bench_fail "the twin did not build for K = $k"
done
first=${klist%% *}
via=$(bench_threads_via "$tmp/sap-k$first")
stats=no
bench_has_stats "$tmp/sap-k$first" && stats=yes

# ---- Runs ----

# run K PROG THREADS ITERS REP: one timed run, appended to $tmp/raw as
# "K prog threads iters rep seconds test_rmse recon_s plan_s cpu_s
# last_train_rmse others", others being the share of the machine's CPUs
# that other processes used during the run.
run() {
	k=$1 prog=$2 nt=$3 it=$4 rep=$5
	out=$tmp/out err=$tmp/err
	set -- --data="$train" --test="$test" --iters="$it" --out="$tmp/W.txt"
	bench_quiet
	busy0=$(bench_busy)
	if test "$prog" = twin; then
		bench_cpu
		c0=$bench_cpu_s
		t0=$(bench_now)
		"$tmp/twin-k$k" "$@" >"$out" 2>"$err" ||
			{ cat "$err" >&2; bench_fail "the twin failed (K = $k)"; }
		t1=$(bench_now)
		bench_cpu
		c1=$bench_cpu_s
	elif test "$prog" = pair; then
		# The control: two twins at once, timed until both are done.
		bench_cpu
		c0=$bench_cpu_s
		t0=$(bench_now)
		"$tmp/twin-k$k" --data="$train" --test="$test" --iters="$it" \
			--out="$tmp/W2.txt" >"$out.2" 2>"$err.2" &
		pid=$!
		"$tmp/twin-k$k" "$@" >"$out" 2>"$err" ||
			{ cat "$err" >&2; bench_fail "the twin failed (K = $k)"; }
		wait "$pid" ||
			{ cat "$err.2" >&2; bench_fail "the second twin failed (K = $k)"; }
		t1=$(bench_now)
		bench_cpu
		c1=$bench_cpu_s
	else
		targs=$(bench_thread_args "$via" "$nt")
		test $stats = yes && set -- "$@" --stats
		bench_cpu
		c0=$bench_cpu_s
		t0=$(bench_now)
		# $targs unquoted: empty or one word.
		# shellcheck disable=SC2086
		bench_mpirun "$tmp/sap-k$k" "$@" $targs >"$out" 2>"$err" ||
			{ cat "$err" >&2; bench_fail "sgdmf.sap failed (K = $k, $nt threads)"; }
		t1=$(bench_now)
		bench_cpu
		c1=$bench_cpu_s
	fi
	busy1=$(bench_busy)
	rmse=$(sed -n 's/^test_rmse //p' "$out")
	test -n "$rmse" || bench_fail "no test_rmse from $prog (K = $k)"
	# Both programs save K factors a row: a check that K took.
	test "$(head -n 1 "$tmp/W.txt" | wc -w)" = "$k" ||
		bench_fail "$prog did not train K = $k factors"
	rp="- -"
	if test "$prog" = sap && test $stats = yes; then
		rp=$(awk -f "$bench_dir/stats.awk" "$err") || {
			echo "--- standard error of the run with --stats:" >&2
			cat "$err" >&2
			bench_fail "cannot read recon and plan seconds from --stats"
		}
		rp=${rp% * *}
	fi
	train_rmse=$(sed -n 's/^iter [0-9]* train_rmse //p' "$out" | tail -n 1)
	echo "$k $prog $nt $it $rep $(awk -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.4f", b - a }') $rmse $rp $(awk -v a="$c0" -v b="$c1" \
		'BEGIN { printf "%.3f", b - a }') ${train_rmse:--} $(awk -v b0="$busy0" \
		-v b1="$busy1" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" \
		-v n="$bench_ncpu" 'BEGIN { o = (b1 - b0 - (c1 - c0)) / (n * (t1 - t0))
			printf "%.3f", o < 0 ? 0 : o }')" >>"$tmp/raw"
}

: >"$tmp/raw"
load0=$(bench_load)
for rep in $(seq "$reps"); do
	for k in $klist; do
		for it in 0 "$epochs"; do
			run "$k" twin 1 "$it" "$rep"
			test "$control" = yes && run "$k" pair 2 "$it" "$rep"
			for nt in $threads; do
				run "$k" sap "$nt" "$it" "$rep"
			done
		done
	done
done

load1=$(bench_load)

# ---- Report ----

# field K PROG THREADS ITERS COLUMN: that column of each rep, one a line,
# in rep order.
field() {
	awk -v k="$1" -v p="$2" -v t="$3" -v i="$4" -v c="$5" \
		'$1 == k && $2 == p && $3 == t && $4 == i { print $5, $c }' "$tmp/raw" |
		sort -n | cut -d ' ' -f 2
}

# epochs_of K PROG THREADS [COLUMN]: the per-rep epoch times
# (T(E) - T(0)) / E, wall clock (column 6, the default) or CPU (10).
epochs_of() {
	field "$1" "$2" "$3" "$epochs" "${4:-6}" >"$tmp/a"
	field "$1" "$2" "$3" 0 "${4:-6}" >"$tmp/b"
	paste -d ' ' "$tmp/a" "$tmp/b" | awk -v e="$epochs" '{ print ($1 - $2) / e }'
}

echo
echo "### sgdmf: $ratings ratings ($users users x $items items, planted rank $rank," \
	"noise $noise), $epochs epochs, median of $reps runs"
echo
bench_machine
echo "- data: ${gencmd}"
sargs="--data=TRAIN --test=TEST --iters=0|$epochs"
test $stats = yes && sargs="$sargs --stats"
echo "- SAP: sapc -O3 (K rewritten), run as" \
	"$MPIEXEC -n 1 ${mpi_bind:+$mpi_bind }PROG $sargs"
echo "- twin: $BENCH_CC -std=c11 -O3 -ffp-contract=off -DK=K samples/baselines/sgdmf.c -lm"
echo "- $(bench_describe_threads "$via")"
echo "- s/epoch = (T(--iters=$epochs) - T(--iters=0)) / $epochs per run (training pass" \
	"+ train-RMSE pass; excludes start-up, load, init, test, save); median [min-max]"
echo "- CPU s/epoch: the same difference of user + system seconds (all threads)"
if test $stats = yes; then
	echo "- recon+plan / epoch: the recon and plan seconds of all loops in the" \
		"--stats table, (S(--iters=$epochs) - S(--iters=0)) / $epochs, over s/epoch;" \
		"recon+plan total: S(--iters=$epochs) - S(--iters=0) over s/epoch (what a" \
		"plan reused over the $epochs epochs cost once)"
else
	echo "- recon+plan: n/a, this build has no --stats option"
fi
echo "- speedup vs twin: twin's s/epoch over this row's; vs SAP 1 thread: the same" \
	"against SAP on ${threads%% *} thread(s), i.e. the scaling of the engine alone"
test "$control" = yes &&
	echo "- control: two twins started together, timed until both end;" \
		"its speedup is 2 x twin's s/epoch over its own, the machine's scaling"
echo "- RMSE vs twin: the largest |RMSE - twin's| / twin's over the runs"
echo "- others: the share of the $bench_ncpu CPUs that other processes used during the" \
	"--iters=$epochs runs (median), from /proc/stat; each run waited up to" \
	"$bench_quiet_wait s for an idle second first; load average before / after: $load0 / $load1"
echo
echo "| K | program | threads | s/epoch [min-max] | CPU s/epoch | speedup vs twin | vs SAP 1 thread | recon+plan / epoch | recon+plan total | test RMSE | RMSE vs twin | others |"
echo "|--:|---------|--:|--|--:|--:|--:|--:|--:|--:|--:|--:|"
for k in $klist; do
	epochs_of "$k" twin 1 >"$tmp/tw"
	tw=$(bench_median <"$tmp/tw")
	twr=$(field "$k" twin 1 "$epochs" 7 | bench_median)
	first_nt=${threads%% *}
	s1=$(epochs_of "$k" sap "$first_nt" | bench_median)
	rows=twin
	test "$control" = yes && rows="twin pair"
	for row in $rows $(for nt in $threads; do echo "sap-$nt"; done); do
		case $row in
		twin) p=twin nt=1 label="C twin" ;;
		pair) p=pair nt=2 label="2 C twins at once (control)" ;;
		*) p=sap nt=${row#sap-} label="sgdmf.sap" ;;
		esac
		epochs_of "$k" "$p" "$nt" >"$tmp/ep"
		ep=$(bench_median <"$tmp/ep")
		cpu=$(epochs_of "$k" "$p" "$nt" 10 | bench_median)
		others=$(field "$k" "$p" "$nt" "$epochs" 12 | bench_median |
			awk '{ printf "%.0f %%", $1 * 100 }')
		range=$(sort -g "$tmp/ep" | awk 'NR == 1 { lo = $1 } { hi = $1 }
			END { printf "%.3f-%.3f", lo, hi }')
		speed=$(awk -v a="$tw" -v b="$ep" 'BEGIN { printf "%.2fx", a / b }')
		# Two epochs done in the pair's time: the machine's throughput.
		test $p = pair && speed=$(awk -v a="$tw" -v b="$ep" \
			'BEGIN { printf "%.2fx", 2 * a / b }')
		rmse=$(field "$k" "$p" "$nt" "$epochs" 7 | bench_median)
		# The worst of the runs, not the median: a scheduling-dependent
		# result must stay close in every run.
		dev=$(field "$k" "$p" "$nt" "$epochs" 7 | awk -v t="$twr" '
			{ d = ($1 - t) / t * 100; if (d < 0) d = -d; if (d > w) w = d }
			END { printf "%.2f %%", w }')
		self=-
		test $p = sap && self=$(awk -v a="$s1" -v b="$ep" \
			'BEGIN { printf "%.2fx", a / b }')
		share=- total=-
		if test $p = sap && test $stats = yes; then
			for it in 0 "$epochs"; do
				field "$k" sap "$nt" "$it" 8 >"$tmp/r$it"
				field "$k" sap "$nt" "$it" 9 >"$tmp/p$it"
			done
			paste -d ' ' "$tmp/r$epochs" "$tmp/p$epochs" "$tmp/r0" \
				"$tmp/p0" "$tmp/ep" >"$tmp/rp"
			share=$(awk -v e="$epochs" \
				'{ print (($1 + $2) - ($3 + $4)) / e / $5 * 100 }' "$tmp/rp" |
				bench_median | awk '{ printf "%.1f %%", $1 }')
			total=$(awk '{ print (($1 + $2) - ($3 + $4)) / $5 * 100 }' "$tmp/rp" |
				bench_median | awk '{ printf "%.1f %%", $1 }')
		fi
		test $p != sap && dev=-
		printf '| %s | %s | %s | %.3f [%s] | %.3f | %s | %s | %s | %s | %s | %s | %s |\n' \
			"$k" "$label" "$nt" "$ep" "$range" "$cpu" "$speed" "$self" "$share" \
			"$total" "$rmse" "$dev" "$others"
	done
done
echo
{
	echo "# bench/sgdmf.sh, $(bench_commit), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# K program threads iters rep seconds test_rmse recon_s plan_s cpu_s last_train_rmse others"
	cat "$tmp/raw"
} >"$BENCH_DATA/sgdmf-last.raw"
echo "(every run: $BENCH_DATA/sgdmf-last.raw)"
