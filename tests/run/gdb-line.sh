#!/bin/sh
# gdb stops at a .sap line: the generated C carries #line directives, so a
# breakpoint set as sgdmf.sap:LINE lands in the loop body that line is in,
# or in the driver statement on it.  The C that sapc makes up itself is
# attributed to the generated file, sgdmf.sap.c under its own line numbers
# (main starts there, never inside a loop body of the .sap file), and no
# temporary file name is left in the debug information.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
command -v gdb >/dev/null 2>&1 || { echo "gdb not installed"; exit 77; }
make_tmp
src=$top_srcdir/samples/sgdmf.sap
line=$(grep -n 'float err = a.r - dot' "$src" | cut -d: -f1)
[ -n "$line" ] || fail "cannot find the training line in $src"
# A driver statement, after the loop that sizes W from the data.
dline=$(grep -n '^dvector<float\[K\]> W(nu)' "$src" | cut -d: -f1)
[ -n "$dline" ] || fail "cannot find the driver line in $src"
"$top_builddir/tools/genratings" --users=20 --items=10 --ratings=100 --seed=2 \
	--out="$tmp/r.txt" || exit 99
nu=$(awk '$1 + 1 > m { m = $1 + 1 } END { print m }' "$tmp/r.txt")
cp "$src" "$tmp/sgdmf.sap"
cd "$tmp" || exit 99
"$SAPC" -g -O0 -o sgdmf sgdmf.sap || fail "sapc -g"
gdb -q -batch -ex "info line main" -ex "break sgdmf.sap:$line" -ex "break sgdmf.sap:$dline" \
	-ex "run --data=r.txt --iters=1 --out=W.txt" -ex "bt 1" -ex "print u_nu" -ex "continue" \
	-ex "print u_a" -ex "bt 1" ./sgdmf >gdb.out 2>&1
cat gdb.out
# The body is one function, sap_loopN_run, inlined into sap_loopN_body
# once per version (what its keys are known to be), so the breakpoint may
# have several locations.
grep -q -e "Breakpoint 1 at .*: file .*sgdmf.sap, line $line\." \
	-e "Breakpoint 1 at .*: sgdmf.sap:$line\. ([0-9]* locations)" gdb.out ||
	fail "breakpoint not set at sgdmf.sap:$line"
grep -q "hit Breakpoint 1[.0-9]*, sap_loop[0-9]*_\(body\|run\) .* at .*sgdmf.sap:$line$" gdb.out ||
	fail "did not stop at sgdmf.sap:$line"
grep -q "u_i = " gdb.out || fail "cannot print the .sap variable a"

# The driver: the program's function (which main runs, on a thread of
# its own when its arrays need a larger stack) runs the statement on line
# $dline, where nu is known.
grep -q "Breakpoint 2 at .*: file .*sgdmf.sap, line $dline\." gdb.out ||
	fail "breakpoint not set at sgdmf.sap:$dline"
grep -q "hit Breakpoint 2, sap_main_program .* at .*sgdmf.sap:$dline$" gdb.out ||
	fail "did not stop in the driver at sgdmf.sap:$dline"
grep -q "^\$1 = $nu$" gdb.out || fail "nu at sgdmf.sap:$dline is not $nu"

# main is in the generated file, on the line that declares it or its brace.
mline=$(sed -n 's/^Line \([0-9]*\) of "\(.*\/\)\{0,1\}sgdmf\.sap\.c" .*<main>.*/\1/p' gdb.out)
[ -n "$mline" ] || fail "info line main does not name sgdmf.sap.c"
"$SAPC" -S -o sgdmf.sap.c sgdmf.sap || fail "sapc -S"
{ sed -n "${mline}p" sgdmf.sap.c | grep -q '^int main(' ||
	{ sed -n "${mline}p" sgdmf.sap.c | grep -q '^{$' &&
	  sed -n "$((mline - 1))p" sgdmf.sap.c | grep -q '^int main('; }; } ||
	fail "line $mline of sgdmf.sap.c is not main: $(sed -n "${mline}p" sgdmf.sap.c)"

# No temporary file in the debug information: file names, directories,
# compile units.
if command -v readelf >/dev/null 2>&1; then
	readelf --debug-dump=line,info sgdmf >dwarf.txt 2>&1 || fail "readelf"
	grep -q 'sgdmf\.sap\.c' dwarf.txt || fail "sgdmf.sap.c not in the debug information"
	if grep "${TMPDIR:-/tmp}/sapc-" dwarf.txt; then
		fail "a temporary file of sapc is named in the debug information"
	fi
fi

# -save-temps keeps the C under the name the debug information gives it.
rm -f sgdmf.sap.c
"$SAPC" -save-temps -O0 -o sgdmf2 sgdmf.sap || fail "sapc -save-temps"
[ -s sgdmf.sap.c ] || fail "-save-temps did not keep sgdmf.sap.c"
grep -q '^#line [0-9]* "sgdmf\.sap\.c"$' sgdmf.sap.c || fail "sgdmf.sap.c does not name itself"
exit 0
