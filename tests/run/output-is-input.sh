#!/bin/sh
# sapc refuses an output file that is one of its inputs, as gcc does,
# and leaves the input as it was: -o FILE.sap (the program would replace
# the source), -S -o FILE.sap (the generated C would), a second path to
# the same file, and -o naming an extra C file.  An output that only
# looks like an input's name but is another file is still written.  A
# source named '.sap' gives no name to the output: it needs -o.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cd "$tmp" || exit 99
src='print("x\n");'
printf '%s\n' "$src" >prog.sap
printf 'int sap_extra_unused;\n' >extra.c
mkdir sub
ln -s ../prog.sap sub/link.sap

refused() {   # args...: sapc must fail with the message and keep the inputs
	"$SAPC" "$@" >out 2>&1 && fail "sapc $* succeeded"
	grep -q "error: input file '.*' is the same as output file" out ||
		{ cat out; fail "sapc $*: no 'same as output file' error"; }
	[ "$(cat prog.sap)" = "$src" ] || fail "sapc $* changed prog.sap"
	[ "$(cat extra.c)" = 'int sap_extra_unused;' ] || fail "sapc $* changed extra.c"
}
refused -o prog.sap prog.sap
refused -S -o prog.sap prog.sap
refused -c -o ./prog.sap prog.sap
refused -o sub/link.sap prog.sap
refused -o sub/../prog.sap sub/link.sap
refused -o extra.c prog.sap extra.c

# Only the same file is refused.
cp prog.sap copy.sap
"$SAPC" -S -o copy.sap prog.sap || fail "sapc -S -o copy.sap prog.sap"
grep -q 'sap_main' copy.sap || fail "copy.sap was not written"

# -S's default name, prog.c beside prog.sap, is where a C twin lives:
# written over only if sapc wrote it (or -o names it).
printf 'int twin;\n' >prog.c
"$SAPC" -S prog.sap >out 2>&1 && fail "sapc -S wrote over prog.c"
grep -q "error: 'prog.c' exists and sapc did not write it" out || { cat out; fail "no error for prog.c"; }
[ "$(cat prog.c)" = 'int twin;' ] || fail "sapc -S changed prog.c"
"$SAPC" -save-temps -o p2 prog.sap >/dev/null 2>&1 || fail "sapc -save-temps"
"$SAPC" -S -o prog.c prog.sap || fail "sapc -S -o prog.c"
"$SAPC" -S prog.sap || fail "sapc -S over its own prog.c"
grep -q 'sap_main' prog.c || fail "prog.c was not written"

cp prog.sap sub/.sap
"$SAPC" sub/.sap >out 2>&1 && fail "sapc sub/.sap succeeded"
grep -q "error: 'sub/.sap' gives no name to the output: name it with -o FILE" out ||
	{ cat out; fail "sapc sub/.sap: no error for the output's name"; }
"$SAPC" -o dot sub/.sap || fail "sapc -o dot sub/.sap"
exit 0
