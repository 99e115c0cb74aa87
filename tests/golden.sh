#!/bin/sh
# Golden tests, run by automake for every tests/*/X.sap:
#   tests/compile/X.sap  sapc must fail; its diagnostics must equal X.err.
#   tests/run/X.sap      sapc must compile it warning-free; running it under
#                        mpiexec (with the arguments in X.args, if any) must
#                        print X.out; for each X.NAME.expect, the file NAME
#                        the program writes must equal it.
# Environment (from Makefile.am): SAPC, MPIEXEC, top_srcdir.
set -u
test=$1
dir=$(dirname "$test")
name=$(basename "$test" .sap)
kind=$(basename "$dir")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sapc-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

case $kind in
compile)
	# Run from the test's directory so messages name "X.sap".
	(cd "$dir" && "$SAPC" -fsyntax-only "$name.sap") >"$tmp/out" 2>&1
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
run)
	cp "$dir/$name.sap" "$tmp/" || exit 99
	for f in "$dir/$name".*.in; do
		[ -e "$f" ] && cp "$f" "$tmp/$(basename "$f" .in | sed "s/^$name\.//")"
	done
	cd "$tmp" || exit 99
	extra=
	if [ -f "$OLDPWD/$dir/$name.c" ]; then
		cp "$OLDPWD/$dir/$name.c" helpers.c && extra=helpers.c
	fi
	# shellcheck disable=SC2086
	if ! "$SAPC" -O2 -Wall -Wextra -Werror -o "$name" "$name.sap" $extra >cc.log 2>&1; then
		echo "FAIL: sapc could not compile $name.sap"
		cat cc.log
		exit 1
	fi
	args=
	[ -f "$OLDPWD/$dir/$name.args" ] && args=$(cat "$OLDPWD/$dir/$name.args")
	# shellcheck disable=SC2086
	$MPIEXEC -n 1 "./$name" $args >out 2>err
	rc=$?
	want_rc=0
	[ -f "$OLDPWD/$dir/$name.status" ] && want_rc=$(cat "$OLDPWD/$dir/$name.status")
	if [ "$rc" -ne "$want_rc" ]; then
		echo "FAIL: exit status $rc, expected $want_rc"
		cat err
		exit 1
	fi
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
