#!/bin/sh
# Property test of reconnaissance slices: for random loop bodies with
# conditions a slice cannot evaluate (on w, which the loop writes), inner
# loops bounded by them, break, continue, locals assigned in branches and
# reads of the iteration's own element, the async for must give what the
# same body run as a plain for gives.  On 2 and 3 ranks (and 2 ranks x 2
# threads, with --check-plan) an element a slice failed to record would
# not reach the rank that holds it, and the counts would differ.  The
# seeds are fixed, chosen so that every kind of over-approximation in
# sapc --explain occurs; most programs must be accepted.
#
# The programs come from slice-twins.awk (any POSIX awk writes the same
# ones).  Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
: "${MPIEXEC:?must be set}"
make_tmp

accepted=0
for seed in 4 6 17 26 27 28 33 40; do
	p="$tmp/t$seed"
	awk -v seed="$seed" -f "$top_srcdir/tests/run/slice-twins.awk" >"$p.sap" ||
		fail "seed $seed: generator failed"
	# The generator declares locals it never reads, as a user might: their
	# warnings are the program's, not sapc's.
	if ! SAPC_CFLAGS="${SAPC_CFLAGS:-} -Wno-unused-variable -Wno-unused-but-set-variable" \
		"$SAPC" -O1 -o "$p" "$p.sap" >"$p.log" 2>&1; then
		grep -q 'error: the key of' "$p.log" || { cat "$p.log"; fail "seed $seed: sapc failed"; }
		continue
	fi
	accepted=$((accepted + 1))
	for run in "2 1" "3 1" "2 2"; do
		set -- $run
		# Random bodies often make serial plans, whose warning is
		# not what this test is about.
		out=$(SAP_THREADS=$2 $MPIEXEC -n "$1" "$p" --check-plan --quiet-plans 2>&1)
		test "$out" = "bad 0" || {
			cat "$p.sap"
			fail "seed $seed on $1 ranks x $2 threads: $out"
		}
	done
done
test "$accepted" -ge 6 || fail "only $accepted of 8 programs accepted"
exit 0
