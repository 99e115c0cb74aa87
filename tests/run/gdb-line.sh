#!/bin/sh
# gdb stops at a .sap line: the generated C carries #line directives, so a
# breakpoint set as sgdmf.sap:LINE lands in the loop body that line is in.
set -u
command -v gdb >/dev/null 2>&1 || { echo "gdb not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sapc-gdb.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
src=$top_srcdir/samples/sgdmf.sap
line=$(grep -n 'float err = a.r - dot' "$src" | cut -d: -f1)
[ -n "$line" ] || { echo "FAIL: cannot find the training line in $src"; exit 1; }
"$top_builddir/tools/genratings" --users=20 --items=10 --ratings=100 --seed=2 \
	--out="$tmp/r.txt" || exit 99
cp "$src" "$tmp/sgdmf.sap"
cd "$tmp" || exit 99
"$SAPC" -g -O0 -o sgdmf sgdmf.sap || { echo "FAIL: sapc -g"; exit 1; }
gdb -q -batch -ex "break sgdmf.sap:$line" -ex "run --data=r.txt --iters=1 --out=W.txt" \
	-ex "print u_a" -ex "bt 1" ./sgdmf >gdb.out 2>&1
cat gdb.out
# The body is compiled twice (with and without per-element checks), so
# the breakpoint may have two locations.
grep -q -e "Breakpoint 1 at .*: file .*sgdmf.sap, line $line\." \
	-e "Breakpoint 1 at .*: sgdmf.sap:$line\. ([0-9]* locations)" gdb.out ||
	{ echo "FAIL: breakpoint not set at sgdmf.sap:$line"; exit 1; }
grep -q "hit Breakpoint 1[.0-9]*, sap_loop[0-9]*_body .* at .*sgdmf.sap:$line$" gdb.out || { echo "FAIL: did not stop at sgdmf.sap:$line"; exit 1; }
grep -q "u_i = " gdb.out || { echo "FAIL: cannot print the .sap variable a"; exit 1; }
exit 0
