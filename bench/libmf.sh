#!/bin/sh
# libmf.sh: matrix factorisation against LIBMF (github cjlin1/libmf), the
# tool a user would pick instead: samples/sgdmf-adaptive.sap, which is
# LIBMF's algorithm (per-row learning rates, ratings divided by their
# standard deviation) written in SAP, against LIBMF's mf-train on the same
# ratings with the same K, lambda, learning rate and thread count.
#
#   LIBMF_DIR=/path/to/libmf bench/libmf.sh
#   BENCH_QUICK=1 LIBMF_DIR=... bench/libmf.sh    # smoke test: 200k ratings
#
# LIBMF is not part of sapc: bring its source (git clone
# https://github.com/cjlin1/libmf) and say where with LIBMF_DIR; without
# it the script prints "skipped: set LIBMF_DIR" and stops.  It is built in
# the bench cache from that source with its Makefile's AVX option (DFLAG
# -DUSEAVX -DUSEOMP, -mavx on top of its own -O3 -march=native); sapc
# builds the sample with -O3 -march=native likewise.
#
# Data: tools/genratings, 5M training ratings (24000 users x 3500 items,
# planted rank 10, noise 0.5) and 250k test ratings (quick: 200k / 20k).
# Settings: K in BENCH_KS (default "100 32"); lambda 0.05 and learning
# rate 0.1 for both (mf-train -l2 0.05 -r 0.1; --lambda, --eta); LIBMF on
# 2 threads (-s 2), SAP on the ranks x threads of BENCH_LAYOUTS (default
# "1x2 2x1").
# Measured, REPS times, LIBMF and SAP interleaved:
#  - per pass: LIBMF's wall time with 21 passes minus with 1, over 20;
#    SAP's own clock between the end of its first pass and of its 21st,
#    over 20 (loading, setup and saving left out of both); updates/s is
#    ratings per second of that;
#  - to LIBMF's quality: the target is LIBMF's test RMSE after 20 passes
#    (mf-train -p, iteration 19); LIBMF takes 20 passes to reach it, the
#    wall time of 21 passes minus 1; SAP the time it prints at its first
#    pass with a test RMSE at or below the target (from the start of its
#    first pass, reconnaissance and planning included), within
#    BENCH_MAX_PASSES (default 40) passes.
# Ratios are SAP's time over LIBMF's (below 1: SAP is faster), per
# repetition, and the median of those is reported.
#
# Environment: see bench/common.subr; also LIBMF_DIR, BENCH_KS,
# BENCH_LAYOUTS, BENCH_MAX_PASSES.
set -eu

# shellcheck shell=sh source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init libmf

if test -z "${LIBMF_DIR:-}"; then
	echo "skipped: set LIBMF_DIR to a checkout of https://github.com/cjlin1/libmf"
	exit 0
fi
test -f "$LIBMF_DIR/mf.cpp" && test -f "$LIBMF_DIR/Makefile" ||
	bench_fail "LIBMF_DIR=$LIBMF_DIR: no mf.cpp and Makefile there"

if test "$quick" = 1; then
	users=2000 items=800 ratings=200000 test_n=20000
else
	users=24000 items=3500 ratings=5000000 test_n=250000
fi
ks=${BENCH_KS:-100 32}
layouts=${BENCH_LAYOUTS:-1x2 2x1}
max_passes=${BENCH_MAX_PASSES:-40}
lambda=0.05 eta=0.1

# ---- Builds ----

mkdir -p "$BENCH_DATA"
libmf=$BENCH_DATA/libmf-build
if ! test -x "$libmf/mf-train" || test "$LIBMF_DIR/mf.cpp" -nt "$libmf/mf-train"; then
	rm -rf "$libmf"
	mkdir -p "$libmf"
	cp "$LIBMF_DIR"/*.cpp "$LIBMF_DIR"/*.h "$LIBMF_DIR/Makefile" "$libmf/" ||
		bench_fail "cannot copy LIBMF's source"
	make -C "$libmf" DFLAG='-DUSEAVX -DUSEOMP' \
		CXXFLAGS='-Wall -O3 -pthread -std=c++0x -march=native -mavx -fopenmp' \
		mf-train >"$tmp/libmf-build.log" 2>&1 ||
		{ cat "$tmp/libmf-build.log" >&2; bench_fail "LIBMF did not build"; }
fi
libmf_version=$(sed -n 's/.*LIBMF_VERSION *\([0-9]*\).*/\1/p' "$LIBMF_DIR/mf.h" | head -n 1)
libmf_commit=$(git -C "$LIBMF_DIR" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

for k in $ks; do
	sed "s/^const int K = [0-9]*;\$/const int K = $k;/" \
		"$top_srcdir/samples/sgdmf-adaptive.sap" >"$tmp/sgdmf-k$k.sap"
	grep -q "^const int K = $k;\$" "$tmp/sgdmf-k$k.sap" ||
		bench_fail "could not set K = $k in samples/sgdmf-adaptive.sap"
	"$SAPC" -O3 -march=native -o "$tmp/sap-k$k" "$tmp/sgdmf-k$k.sap" ||
		bench_fail "sapc failed (K = $k)"
done

train=$BENCH_DATA/libmf-u$users-i$items-n$ratings.txt
test_f=$BENCH_DATA/libmf-u$users-i$items-n$ratings-test.txt
if ! test -s "$train" || ! test -s "$test_f"; then
	"$top_builddir/tools/genratings" --users=$users --items=$items --ratings=$ratings \
		--test=$test_n --rank=10 --noise=0.5 --seed=42 --out="$train" \
		--test-out="$test_f" || bench_fail "genratings failed"
fi
cat "$train" "$test_f" >/dev/null

# ---- Runs ----

# wall SECONDS of a command's run, its output to $tmp/run.out.
wall() {
	t0=$(bench_now)
	"$@" >"$tmp/run.out" 2>"$tmp/run.err" ||
		{ cat "$tmp/run.err" >&2; bench_fail "failed: $*"; }
	t1=$(bench_now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}

# "k prog layout rep per_pass_s to_target_s passes_to_target final_rmse target"
: >"$tmp/raw"
load0=$(bench_load)
for k in $ks; do
	for rep in $(seq "$reps"); do
		bench_quiet
		w1=$(wall "$libmf/mf-train" -k "$k" -t 1 -s 2 -l2 $lambda -r $eta --quiet \
			"$train" "$tmp/model")
		bench_quiet
		w21=$(wall "$libmf/mf-train" -k "$k" -t 21 -s 2 -l2 $lambda -r $eta \
			-p "$test_f" "$train" "$tmp/model")
		target=$(awk '$1 == 19 { print $3 }' "$tmp/run.out")
		test -n "$target" || bench_fail "no test RMSE after 20 passes from mf-train"
		final=$(awk '$1 == 20 { print $3 }' "$tmp/run.out")
		l20=$(awk -v a="$w1" -v b="$w21" 'BEGIN { printf "%.4f", b - a }')
		echo "$k libmf 2 $rep $(awk -v t="$l20" 'BEGIN { printf "%.5f", t / 20 }') $l20 20 $final $target" \
			>>"$tmp/raw"
		for l in $layouts; do
			np=${l%%x*} nt=${l#*x}
			bench_quiet
			# shellcheck disable=SC2086  # $mpi_bind: empty or two words
			$MPIEXEC -n "$np" $mpi_bind "$tmp/sap-k$k" --data="$train" --test="$test_f" \
				--iters="$max_passes" --lambda=$lambda --eta=$eta --threads="$nt" \
				--out="$tmp/W.txt" >"$tmp/sap.out" 2>"$tmp/sap.err" ||
				{ cat "$tmp/sap.err" >&2; bench_fail "sgdmf-adaptive.sap failed on $l (K = $k)"; }
			awk -v k="$k" -v l="$l" -v rep="$rep" -v t="$target" '
				$1 == "iter" { time[$2] = $8; rmse[$2] = $6
					if (reach == "" && $6 + 0 <= t + 0) { reach = $8; at = $2 + 1 } }
				END {
					if (!(20 in time)) exit 1
					printf "%s sap %s %s %.5f %s %s %s %s\n", k, l, rep,
						(time[20] - time[0]) / 20, reach == "" ? "-" : reach,
						reach == "" ? "-" : at, rmse[19], t
				}' "$tmp/sap.out" >>"$tmp/raw" ||
				bench_fail "sgdmf-adaptive.sap printed fewer than 21 passes"
		done
	done
done
load1=$(bench_load)
cp "$tmp/raw" "$BENCH_DATA/libmf-last.raw"

# ---- Report ----

echo
echo "### libmf: $ratings ratings ($users x $items), lambda $lambda, learning rate $eta," \
	"median of $reps interleaved runs"
echo
bench_machine
echo "- LIBMF ${libmf_version:-?} (commit $libmf_commit), AVX build: make DFLAG='-DUSEAVX -DUSEOMP'" \
	"CXXFLAGS='-Wall -O3 -pthread -std=c++0x -march=native -mavx -fopenmp';" \
	"mf-train -k K -t 1|21 -s 2 -l2 $lambda -r $eta [-p TEST]"
echo "- SAP: samples/sgdmf-adaptive.sap with K set, sapc -O3 -march=native;" \
	"$MPIEXEC -n P ${mpi_bind:+$mpi_bind }PROG --threads=T --iters=$max_passes --lambda=$lambda --eta=$eta"
echo "- data: tools/genratings --users=$users --items=$items --ratings=$ratings --test=$test_n --rank=10 --noise=0.5 --seed=42"
echo "- per pass: LIBMF (wall(21 passes) - wall(1 pass)) / 20; SAP (its time after pass 21 - after pass 1) / 20"
echo "- to LIBMF's quality: target = LIBMF's test RMSE after 20 passes; LIBMF: wall(21) - wall(1); SAP: its time at the first pass at or below the target"
echo "- ratio: SAP / LIBMF per repetition, median (below 1: SAP faster)"
echo "- load average before / after: $load0 / $load1"
echo
echo "| K | program | ranks x threads | s per pass | updates/s | vs LIBMF per pass | to LIBMF's 20-pass test RMSE: s (passes) | vs LIBMF | test RMSE after 20 passes |"
echo "|--:|--|--|--:|--:|--:|--|--:|--:|"
for k in $ks; do
	awk -v k="$k" '$1 == k && !seen[$2 " " $3]++ { print $2, $3 }' "$tmp/raw" |
	while read -r prog l; do
		awk -v k="$k" -v p="$prog" -v l="$l" '$1 == k && $2 == p && $3 == l' "$tmp/raw" >"$tmp/rows"
		per=$(awk '{ print $5 }' "$tmp/rows" | bench_median)
		to=$(awk '$6 != "-" { print $6 }' "$tmp/rows" | bench_median 2>/dev/null || echo -)
		passes=$(awk '$7 != "-" { print $7 }' "$tmp/rows" | bench_median 2>/dev/null || echo -)
		rmse=$(awk 'NR == 1 { print $8 }' "$tmp/rows")
		if test "$prog" = libmf; then
			vs_pass=1.00x vs_to=1.00x label="LIBMF mf-train" lay="1 x 2 threads"
		else
			label="sgdmf-adaptive.sap" lay="$(echo "$l" | sed 's/x/ x /')"
			# Ratios per repetition against the LIBMF run just before.
			vs_pass=$(awk -v k="$k" -v l="$l" '$1 == k && $2 == "libmf" { lib[$4] = $5; lt[$4] = $6 }
				$1 == k && $2 == "sap" && $3 == l { print $5 / lib[$4] }' "$tmp/raw" |
				bench_median | awk '{ printf "%.2fx", $1 }')
			vs_to=$(awk -v k="$k" -v l="$l" '$1 == k && $2 == "libmf" { lt[$4] = $6 }
				$1 == k && $2 == "sap" && $3 == l && $6 != "-" { print $6 / lt[$4] }' "$tmp/raw" |
				bench_median 2>/dev/null | awk '{ printf "%.2fx", $1 }')
			test -n "$vs_to" || vs_to="not reached in $max_passes passes"
		fi
		printf '| %s | %s | %s | %.4f | %.1f M | %s | %s | %s | %s |\n' "$k" "$label" "$lay" \
			"$per" "$(awk -v n=$ratings -v t="$per" 'BEGIN { print n / t / 1e6 }')" "$vs_pass" \
			"$(test "$to" = - && echo "not reached" || printf '%.3f (%s)' "$to" "$passes")" \
			"$vs_to" "$rmse"
	done
done
echo
echo "(every run: $BENCH_DATA/libmf-last.raw)"
