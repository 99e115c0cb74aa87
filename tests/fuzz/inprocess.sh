#!/bin/sh
# Every .sap file of the tree through the fuzz target's entry point, one
# after another in one process, twice over: what one compilation leaves
# behind must not break the next (tests/fuzz/inprocess.c).
# Environment (from Makefile.am): top_srcdir, top_builddir.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
files=$(find "$top_srcdir/samples" "$top_srcdir/tests" "$top_srcdir/stdlib" -name '*.sap' | sort)
# shellcheck disable=SC2086
SAPC_STDLIB="$top_srcdir/stdlib/std.sap" timeout 600 \
	"$top_builddir/tests/fuzz/inprocess" $files $files >/dev/null ||
	fail "the front end broke compiling programs one after another in one process"
echo "PASS: $(echo $files | wc -w) programs, twice, in one process"
