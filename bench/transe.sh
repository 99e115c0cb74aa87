#!/bin/sh
# transe.sh: samples/transe.sap on 1 and 2 threads against its serial C
# twin, samples/baselines/transe.c, on the WN18-style graph that
# tools/wordnet-triples derives from WordNet.  Prints a markdown table.
#
# Speed.  Each program runs with --epochs=0 and --epochs=E (evaluation
# off, --neval=0), REPS times, interleaved.  Both runs do the same
# loading, initialisation, filter-set building and saving, and the same
# MPI start-up, so (T(E) - T(0)) / E is the time of one pass of the
# training loop; triples/s is the training triples over that time.  The
# median over the REPS runs is reported.
#
# Quality.  One more run of each with --epochs=Q and --neval=N gives the
# filtered mean rank and Hits@10 on the first N test triples (all 5000 by
# default; -1 means all).  On one thread SAP must equal the twin exactly;
# the script says whether it did.  On two threads the iterations run in
# another order, so the numbers may differ a little.
#
# Environment, all optional (make bench-transe sets the first five):
#   SAPC, MPIEXEC, top_srcdir, top_builddir  as for make check
#   TRANSE_DATA     the derived data (default: $top_builddir/samples/data/wn18,
#                   derived with tools/wordnet-triples if missing)
#   TRANSE_EPOCHS   E, epochs of the timed runs (default 20)
#   TRANSE_QEPOCHS  Q, epochs of the quality runs (default 200)
#   TRANSE_NEVAL    N, test triples evaluated (default -1: all)
#   BENCH_REPS      runs of each timing (default 3)
#   BENCH_QUICK=1   a smoke test: 2 epochs, 1 rep, 50 test triples
#   BENCH_CC        the C compiler for the twin (default: gcc)

set -u
bench_dir=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(dirname "$bench_dir")}
top_builddir=${top_builddir:-$top_srcdir}
SAPC=${SAPC:-$top_builddir/sapc}
MPIEXEC=${MPIEXEC:-mpiexec}
BENCH_CC=${BENCH_CC:-gcc}
data=${TRANSE_DATA:-$top_builddir/samples/data/wn18}
epochs=${TRANSE_EPOCHS:-20}
qepochs=${TRANSE_QEPOCHS:-200}
neval=${TRANSE_NEVAL:--1}
reps=${BENCH_REPS:-3}
if test "${BENCH_QUICK:-0}" = 1; then
	epochs=2 qepochs=2 neval=50 reps=1
fi

die() {
	echo "transe.sh: error: $*" >&2
	exit 1
}

for v in "epochs=$epochs" "qepochs=$qepochs" "reps=$reps"; do
	case ${v#*=} in
	'' | *[!0-9]* | 0) die "${v%%=*}=${v#*=}: expected a count >= 1" ;;
	esac
done
case $neval in
-1 | [0-9] | [1-9]*[0-9]) ;;
*) die "TRANSE_NEVAL=$neval: expected a count, or -1 for all" ;;
esac
test -x "$SAPC" || die "no compiler at $SAPC (run make first)"
command -v "$BENCH_CC" >/dev/null || die "no C compiler $BENCH_CC"
case $(date +%N) in
*[!0-9]*) die "date +%N does not give nanoseconds" ;;
esac

OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Open MPI binds a one-rank job to one core, which would leave the second
# thread no core of its own.
mpi_bind=
if $MPIEXEC --version 2>&1 | grep -q -e 'Open MPI' -e OpenRTE; then
	mpi_bind='--bind-to none'
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-transe.XXXXXX") || die "mktemp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

if test ! -s "$data/train.txt"; then
	mkdir -p "$data" || die "cannot create $data"
	"$top_builddir/tools/wordnet-triples" --out="$data" --quiet ||
		die "could not derive the data (is wordnet-base installed?)"
fi
ntrain=$(grep -c . "$data/train.txt")
ntest=$(grep -c . "$data/test.txt")
nvalid=$(grep -c . "$data/valid.txt")
nent=$(grep -c . "$data/entities.txt" 2>/dev/null || echo '?')
nrel=$(grep -c . "$data/relations.txt" 2>/dev/null || echo '?')
if test "$neval" = -1 || test "$neval" -gt "$ntest"; then
	nevaluated=$ntest
else
	nevaluated=$neval
fi

"$SAPC" -O2 -o "$tmp/transe" "$top_srcdir/samples/transe.sap" ||
	die "sapc could not compile samples/transe.sap"
"$BENCH_CC" -std=c11 -O2 -ffp-contract=off -o "$tmp/transe-c" \
	"$top_srcdir/samples/baselines/transe.c" -lm ||
	die "could not compile samples/baselines/transe.c"

# How to ask for N threads: --threads=N if the program lists it, and the
# environment variable SAP_THREADS in any case, for runtimes that read it.
# shellcheck disable=SC2086
if $MPIEXEC -n 1 $mpi_bind "$tmp/transe" --help 2>/dev/null | grep -q -e '--threads'; then
	threads_via=option
elif grep -q SAP_THREADS "$tmp/transe"; then
	threads_via='env'
else
	threads_via=none
fi

set -- --train="$data/train.txt" --valid="$data/valid.txt" --test="$data/test.txt"

# run NAME [OPTIONS...]: one run of configuration NAME (c, sap1, sap2);
# its report goes to $tmp/out.
run() {
	name=$1
	shift
	case $name in
	c) "$tmp/transe-c" "$@" >"$tmp/out" ;;
	sap*)
		n=${name#sap}
		opt=
		test $threads_via = option && opt=--threads=$n
		# shellcheck disable=SC2086
		SAP_THREADS=$n $MPIEXEC -n 1 $mpi_bind "$tmp/transe" $opt "$@" >"$tmp/out" ;;
	esac || die "$name $* failed: $(cat "$tmp/out")"
}

seconds() {
	start=$(date +%s.%N)
	run "$@"
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }'
}

median() {
	sort -g | awk '{ v[NR] = $1 }
		END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

configs="c sap1 sap2"
for _ in $(seq "$reps"); do
	for c in $configs; do
		t0=$(seconds "$c" "$@" --epochs=0 --neval=0 --out="$tmp/E0.txt")
		tE=$(seconds "$c" "$@" --epochs="$epochs" --neval=0 --out="$tmp/E.txt")
		awk -v a="$t0" -v b="$tE" -v e="$epochs" \
			'BEGIN { printf "%.6f\n", (b - a) / e }' >>"$tmp/epoch-$c"
	done
done
for c in $configs; do
	run "$c" "$@" --epochs="$qepochs" --neval="$neval" --out="$tmp/E-$c.txt"
	mv "$tmp/out" "$tmp/quality-$c"
done

echo "## TransE on WN18-style WordNet triples"
echo
echo "- data: $nent entities, $nrel relations, $ntrain train / $nvalid valid / $ntest test triples ($data)"
echo "- speed: median over $reps runs of (T($epochs epochs) - T(0 epochs)) / $epochs, evaluation off"
echo "- quality: after $qepochs epochs, filtered, on the first $nevaluated test triples"
case $threads_via in
option) echo "- threads set with --threads=N" ;;
env) echo "- threads set with env SAP_THREADS=N (no --threads option in this build)" ;;
*) echo "- NOTE: this build has neither --threads nor SAP_THREADS: the 2-thread row ran on one thread" ;;
esac
commit=$(git -C "$top_srcdir" rev-parse --short=12 HEAD 2>/dev/null) || commit='?'
if test "$commit" != '?' && ! git -C "$top_srcdir" diff --quiet HEAD -- 2>/dev/null; then
	commit="$commit+uncommitted changes"
fi
echo "- machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" \
	"at the end; $(uname -sr); sapc $commit"
echo
echo "| program | threads | s/epoch | train triples/s | vs twin | mean rank | Hits@10 |"
echo "|---|---:|---:|---:|---:|---:|---:|"
twin=$(median <"$tmp/epoch-c")
for c in $configs; do
	s=$(median <"$tmp/epoch-$c")
	case $c in
	c) prog="C twin" th=1 ;;
	*) prog="transe.sap" th=${c#sap} ;;
	esac
	metrics=$(awk '/^test / { printf "%s | %s", $4, $6 }' "$tmp/quality-$c")
	awk -v p="$prog" -v th="$th" -v s="$s" -v tw="$twin" -v n="$ntrain" -v m="$metrics" '
		BEGIN {
			rate = s > 0 ? sprintf("%.0f", n / s) : "n/a"
			rel = s > 0 ? sprintf("%.2fx", tw / s) : "n/a"
			if (m == "") m = "n/a | n/a"
			printf "| %s | %s | %.4f | %s | %s | %s |\n", p, th, s, rate, rel, m
		}'
done
echo
if cmp -s "$tmp/quality-c" "$tmp/quality-sap1" && cmp -s "$tmp/E-c.txt" "$tmp/E-sap1.txt"; then
	echo "transe.sap on 1 thread reproduced the twin bit for bit (report and E)."
else
	echo "WARNING: transe.sap on 1 thread did NOT reproduce the twin bit for" \
		"bit (make check TESTS=tests/run/transe-twin.sh shows where)."
fi
