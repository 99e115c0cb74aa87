#!/bin/sh
# The C that sapc generates is clean under -Wall -Wextra: every .sap
# program of the tree that compiles (the samples, the tests, the standard
# library's users) is compiled to an object with -Werror.
# Environment (from Makefile.am): SAPC, top_srcdir.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp
status=0
n=0
for f in $(find "$top_srcdir/samples" "$top_srcdir/tests" "$top_srcdir/bench" -name '*.sap' | sort); do
	case $f in */tests/compile/*|*/tests/fuzz/regress/*) continue ;; esac
	# Programs the compiler rejects on purpose (the golden tests of errors,
	# loops --explain shows rejected) have no C to check.
	"$SAPC" -fsyntax-only "$f" >/dev/null 2>&1 || continue
	n=$((n + 1))
	if ! "$SAPC" -c -O2 -Wall -Wextra -Werror -o "$tmp/x.o" "$f" >"$tmp/log" 2>&1; then
		echo "FAIL: ${f#$top_srcdir/}: the generated C does not compile with -Wall -Wextra -Werror"
		head -n 20 "$tmp/log"
		status=1
	fi
done
echo "compiled $n programs"
[ "$n" -gt 0 ] || status=1
exit $status
