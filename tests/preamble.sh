# shellcheck shell=sh
# tests/preamble.sh: the set-up the shell tests share (tests/golden.sh,
# tests/werror.sh, tests/fuzz/*.sh, tests/run/*.sh).  Not a test itself.
# A test checks top_srcdir, which locates this file, and sources it:
#
#   : "${top_srcdir:?must be set}"
#   # shellcheck source=../preamble.sh source-path=SCRIPTDIR
#   . "$top_srcdir/tests/preamble.sh"
#
# (source= is this file's path from the test's directory, for the
# checks of `shellcheck -x`.)  Then the test calls what it needs, in its
# own order, and keeps its own checks: top_builddir, the tools and data it
# fails or skips without.
#
# Expects: what `make check` sets (Makefile.am's AM_TESTS_ENVIRONMENT):
# SAPC, MPIEXEC, top_srcdir, top_builddir.  Sourcing runs nothing and
# reads none of them; each function reads only what it names.  Plain
# POSIX sh, safe under set -u.  Exit statuses are automake's: 0 pass,
# 1 fail, 77 skip, 99 hard error (the test could not be set up).
#
# Defines:
#   fail MESSAGE...  print "FAIL: MESSAGE" and exit 1.
#   need_sapc        skip (exit 77) unless $SAPC names an executable.
#   need_mpiexec     skip (exit 77) unless $MPIEXEC is set and not empty.
#   make_tmp         make a fresh directory, $tmp, under ${TMPDIR:-/tmp},
#                    named after the script (its name without .sh),
#                    removed when the script exits; a hang-up, an
#                    interrupt or a TERM exits 1, so it is removed then
#                    too.  Exits 99 if it cannot.  A script that must
#                    undo more (save-full.sh unmounts) sets its own EXIT
#                    trap after it, which removes $tmp too.  Open MPI
#                    jobs the script starts keep their session directory
#                    in $tmp/mpi.
#   strip_time FILE  FILE without the " time SECONDS" that ends a line:
#                    the reports of a sample and of its C twin, compared
#                    without each program's own clock.
#   same_on_layouts PROG WANT
#                    run ./PROG under $MPIEXEC on 1 x 2, 2 x 1, 3 x 1 and
#                    2 x 2 (ranks x --threads); fail unless each prints
#                    the file WANT.
#   sent_mb PROG SITE
#                    run ./PROG --stats on 2 ranks and set mb to the
#                    sent_MB of the loop at SITE (prog.sap:LINE) on rank
#                    0; fail if the run fails or has no such row.
#
# Running MPI programs: $MPIEXEC stays unquoted, as it may carry options
# of its own; and in a `while read` loop, give it </dev/null, as Open MPI
# forwards its standard input to rank 0, which would eat the loop's lines.

fail() {
	echo "FAIL: $*"
	exit 1
}

need_sapc() {
	if test -z "${SAPC:-}" || test ! -x "$SAPC"; then
		echo "SKIP: no sapc (SAPC='${SAPC:-}')"
		exit 77
	fi
}

need_mpiexec() {
	if test -z "${MPIEXEC:-}"; then
		echo "SKIP: no mpiexec"
		exit 77
	fi
}

make_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX") || exit 99
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
	# Jobs that start at the same moment (make -j) race to make Open
	# MPI's session directory under /tmp, and the loser's orte_init fails
	# ("mkdir ... File exists", open-mpi/ompi#8510): each test's jobs get
	# their own, unless the caller chose one.
	mkdir "$tmp/mpi" || exit 99
	OMPI_MCA_orte_tmpdir_base=${OMPI_MCA_orte_tmpdir_base:-$tmp/mpi}
	export OMPI_MCA_orte_tmpdir_base
}

strip_time() {
	sed 's/ time [0-9.]*$//' "$1"
}

# covers FULL A B: A is a prefix of FULL, B a suffix, and together they are
# all of it: a run killed (A) and resumed from a checkpoint (B), whose
# lines between the checkpoint and the kill come twice.
covers() {
	f=$(wc -l <"$1") a=$(wc -l <"$2") b=$(wc -l <"$3")
	head -n "$a" "$1" | cmp -s - "$2" || return 1
	tail -n "$b" "$1" | cmp -s - "$3" || return 1
	test $((a + b)) -ge "$f"
}

same_on_layouts() {
	for layout in "1 2" "2 1" "3 1" "2 2"; do
		# shellcheck disable=SC2086 # the ranks and the threads, two words
		set -- "$1" "$2" $layout
		$MPIEXEC -n "$3" "./$1" --threads="$4" >"$1.layout.out" 2>"$1.layout.err" </dev/null ||
			{ cat "$1.layout.err"; fail "$3 x $4 failed"; }
		cmp -s "$2" "$1.layout.out" ||
			{ diff "$2" "$1.layout.out"; fail "$3 x $4 prints other results than 1 x 1"; }
	done
}

sent_mb() {
	$MPIEXEC -n 2 "./$1" --stats >"$1.stats.out" 2>"$1.stats.err" </dev/null ||
		{ cat "$1.stats.err"; fail "the run of $1 with --stats failed"; }
	# Column 13 of a loop's row is its sent_MB.
	mb=$(awk -v site="$2" '/^sap stats: parallel loops on rank 0/ { on = 1 }
		/^sap stats: parallel loops on rank 1/ { on = 0 }
		on && $2 == site { print $13 }' "$1.stats.err")
	test -n "$mb" || { cat "$1.stats.err"; fail "no --stats row for the loop at $2"; }
}
