#!/bin/sh
# relaxed(+: D) on 1, 2 and 3 ranks of 1 and 2 threads, with an LDA-shaped
# program (tests/run/relaxed-lda.sap.in):
#  - on one worker its async for relaxed(+: nk, mass) gives, bit for bit,
#    what the same body as a sequential for gives (integers, doubles and
#    the topics drawn);
#  - on several workers two runs with the same ranks x threads print the
#    same, and so do 1 x 2 and 2 x 1, 1 x 3 and 3 x 1, 1 x 4 and 2 x 2,
#    1 x 6 and 3 x 2 (global worker order), also with topics drawn by
#    rand() (--rng) and with --check-plan;
#  - reads are stale by at most one round: in chunks each worker's reads
#    are the invocation's start plus its own updates; by a plan no worker
#    reads the same value of a total twice, and of two iterations that
#    conflict the later one reads more; totals are exact;
#  - a run on several workers, dumped with --dump-order, replays on one
#    process with --run-order to the same output, bit for bit (its rounds
#    and workers are in the file).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cp "$top_srcdir/tests/run/relaxed-lda.sap.in" "$tmp/lda.sap" || exit 1
# Its mk loop reads mk in what it adds, on purpose: -Wrelaxed-self's
# warning, which -Werror makes an error that stops the build.
"$SAPC" -O2 -Wall -Wextra -Werror -Wno-relaxed-self -o "$tmp/lda" "$tmp/lda.sap" || fail "sapc lda.sap"

# run P T [options]: the output, in $tmp/out.P.T[.tag]
run() {
	np=$1 th=$2
	shift 2
	# $MPIEXEC unquoted: it may carry its own options.
	$MPIEXEC -n "$np" "$tmp/lda" --threads="$th" --W=$((np * th)) "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "$np x $th $*: the program failed"; }
	# The staleness checks must hold on every run.
	grep -q '^chunks 0: total 3000, reads off the round.s start plus own updates: 0$' "$tmp/out" &&
		grep -q '^chunks 1: total 6000, reads off the round.s start plus own updates: 0$' "$tmp/out" &&
		grep -q '^planned: total 3000, values read more than W times 0, outside \[0, N) 0, conflicting reads not after 0$' "$tmp/out" ||
		{ cat "$tmp/out"; fail "$np x $th $*: a read was more than one round stale"; }
}

same() {
	cmp -s "$1" "$2" || { diff "$1" "$2"; fail "$3"; }
}

# One worker: the relaxed loop is the serial loop, bit for bit.
run 1 1
cp "$tmp/out" "$tmp/one"
a=$(sed -n 's/^async: //p' "$tmp/one")
f=$(sed -n 's/^for:   //p' "$tmp/one")
test -n "$a" || fail "no result printed"
test "$a" = "$f" || fail "on one worker the relaxed loop differs from the for loop:
async: $a
for:   $f"

for rng in "" --rng; do
	for pair in "1 2:2 1" "1 3:3 1" "1 4:2 2" "1 6:3 2"; do
		x=${pair%:*} y=${pair#*:}
		run $x $rng
		cp "$tmp/out" "$tmp/x"
		run $x $rng
		same "$tmp/x" "$tmp/out" "two runs on $x (ranks threads) $rng differ"
		run $y $rng
		same "$tmp/x" "$tmp/out" "$x and $y (ranks threads) $rng differ"
	done
	# Several workers read stale totals: a different model, or the test
	# above would not exercise the views.
	run 1 2 $rng
	test "$(sed -n 's/^async: //p' "$tmp/out")" != "$a" ||
		fail "on 2 workers $rng the relaxed loop gave the serial result"
done

# The plans stay conflict-free (the checker reads every iteration's keys)
# and checking them changes nothing.
for x in "2 2" "3 1"; do
	run $x
	cp "$tmp/out" "$tmp/x"
	run $x --check-plan
	same "$tmp/x" "$tmp/out" "$x (ranks threads) with --check-plan differs"
done
for x in "1 2" "2 1" "3 1" "2 2"; do
	# shellcheck disable=SC2086
	set -- $x
	run "$1" "$2" --dump-order="$tmp/order"
	cp "$tmp/out" "$tmp/x"
	$MPIEXEC -n 1 "$tmp/lda" --threads=1 --W=$(($1 * $2)) --run-order="$tmp/order" \
		>"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "the replay of $x failed"; }
	same "$tmp/x" "$tmp/out" "$x (ranks threads) and its replay on one worker differ"
done
echo "PASS: one worker is the serial loop; P x T workers are deterministic and the same for the same P*T; reads at most one round stale; replays exact"
