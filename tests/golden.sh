#!/bin/sh
# Golden tests, run by automake for every tests/*/X.sap:
#   tests/compile/X.sap  sapc must fail; its diagnostics must equal X.err.
#   tests/explain/X.sap  sapc --explain must print X.out and exit 0 (or
#                        with the status in X.status).
#   tests/run/X.sap      sapc must compile it warning-free (with X.c, if
#                        any); running it under mpiexec on 1, 2 and 3 ranks
#                        (with the arguments in X.args) must print X.out and
#                        exit 0, or, with X.status, exit with that status on
#                        one rank and print X.err; X.flags holds more
#                        options of sapc (-Wno-...); X.NAME.in is copied in
#                        as NAME, and each X.NAME.expect must equal the file
#                        NAME the program writes.
# Environment (from Makefile.am): SAPC, MPIEXEC, top_srcdir; and
# SAP_TEST_RANKS, the rank counts of tests/run (default "1 2 3"; CI's
# sanitized pass runs them on one rank, the plain pass on all three).
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
test=$1
# Absolute, so that it stays right after a cd (VPATH builds and distcheck
# give a relative or an absolute path).
dir=$(cd "$(dirname "$test")" && pwd) || exit 99
name=$(basename "$test" .sap)
kind=$(basename "$dir")
make_tmp

case $kind in
compile)
	# Run from the test's directory so messages name "X.sap".
	# A time limit, so that a compiler that never ends fails the test.
	(cd "$dir" && timeout 120 "$SAPC" -fsyntax-only "$name.sap") >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -ne 1 ]; then
		echo "FAIL: sapc exited with $rc, expected 1"
		cat "$tmp/out"
		exit 1
	fi
	if ! diff -u "$dir/$name.err" "$tmp/out"; then
		echo "FAIL: diagnostics differ from $dir/$name.err"
		exit 1
	fi
	;;
explain)
	(cd "$dir" && "$SAPC" --explain "$name.sap") >"$tmp/out" 2>&1
	rc=$?
	want_rc=0
	[ -f "$dir/$name.status" ] && want_rc=$(cat "$dir/$name.status")
	if [ $rc -ne "$want_rc" ]; then
		echo "FAIL: sapc --explain exited with $rc, expected $want_rc"
		cat "$tmp/out"
		exit 1
	fi
	if ! diff -u "$dir/$name.out" "$tmp/out"; then
		echo "FAIL: --explain output differs from $dir/$name.out"
		exit 1
	fi
	;;
run)
	cp "$dir/$name.sap" "$tmp/" || exit 99
	for f in "$dir/$name".*.in; do
		[ -e "$f" ] && cp "$f" "$tmp/$(basename "$f" .in | sed "s/^$name\.//")"
	done
	cd "$tmp" || exit 99
	extra=
	if [ -f "$dir/$name.c" ]; then
		cp "$dir/$name.c" helpers.c && extra=helpers.c
	fi
	flags=
	[ -f "$dir/$name.flags" ] && flags=$(cat "$dir/$name.flags")
	# shellcheck disable=SC2086
	if ! "$SAPC" -O2 -Wall -Wextra -Werror $flags -o "$name" "$name.sap" $extra >cc.log 2>&1; then
		echo "FAIL: sapc could not compile $name.sap"
		cat cc.log
		exit 1
	fi
	args=
	[ -f "$dir/$name.args" ] && args=$(cat "$dir/$name.args")
	want_rc=0
	[ -f "$dir/$name.status" ] && want_rc=$(cat "$dir/$name.status")
	# Programs that succeed run on 1, 2 and 3 ranks and must write the same
	# output every time; failing ones run on one rank, where their message
	# is exact.
	ranks=${SAP_TEST_RANKS:-1 2 3}
	[ "$want_rc" -ne 0 ] && ranks=1
	for np in $ranks; do
		rm -f out err
		# shellcheck disable=SC2086
		$MPIEXEC -n "$np" "./$name" $args >out 2>err
		rc=$?
		if [ "$rc" -ne "$want_rc" ]; then
			echo "FAIL: exit status $rc on $np ranks, expected $want_rc"
			cat err
			exit 1
		fi
		if [ "$np" != 1 ] && ! diff -u out.1 out; then
			echo "FAIL: output on $np ranks differs from one rank's"
			exit 1
		fi
		[ "$np" = 1 ] && cp out out.1
	done
	cd "$OLDPWD" || exit 99
	if ! diff -u "$dir/$name.out" "$tmp/out"; then
		echo "FAIL: output differs from $dir/$name.out"
		exit 1
	fi
	# mpiexec adds boxed notes of its own about failed processes.
	awk '/^-----+$/ { skip = !skip; next } !skip' "$tmp/err" >"$tmp/err.own"
	if [ -f "$dir/$name.err" ] && ! diff -u "$dir/$name.err" "$tmp/err.own"; then
		echo "FAIL: errors differ from $dir/$name.err"
		exit 1
	fi
	for e in "$dir/$name".*.expect; do
		[ -e "$e" ] || continue
		f=$(basename "$e" .expect | sed "s/^$name\.//")
		if ! cmp -s "$e" "$tmp/$f"; then
			echo "FAIL: $f differs from $e"
			diff -u "$e" "$tmp/$f" | head -20
			exit 1
		fi
	done
	;;
*)
	echo "golden.sh: unknown test directory $dir"
	exit 99
	;;
esac
exit 0
