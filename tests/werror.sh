#!/bin/sh
# The C that sapc generates is clean under -Wall -Wextra: every .sap
# program of the tree that compiles (the samples, the tests, the standard
# library's users) is compiled to an object with -Werror.  But for those
# of tests/run/, which tests/golden.sh compiles so already.
# Environment (from Makefile.am): SAPC, top_srcdir.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp
status=0
n=0
own="-Wno-error=loop-carried -Wno-error=relaxed-self -Wno-error=lost-copy"
own="$own -Wno-error=array-parameter-copy -Wno-error=literal-conversion -Wno-error=draw-order"
for f in $(find "$top_srcdir/samples" "$top_srcdir/tests" "$top_srcdir/bench" -name '*.sap' | sort); do
	case $f in */tests/compile/*|*/tests/fuzz/regress/*|*/tests/run/*) continue ;; esac
	# Programs the compiler rejects on purpose (the golden tests of errors,
	# loops --explain shows rejected) have no C to check.
	"$SAPC" -fsyntax-only "$f" >/dev/null 2>&1 || continue
	n=$((n + 1))
	# sapc's own warnings, which some tests give on purpose, stay
	# warnings: this is about the C.
	if ! "$SAPC" -c -O2 -Wall -Wextra -Werror $own -o "$tmp/x.o" "$f" >"$tmp/log" 2>&1; then
		echo "FAIL: ${f#$top_srcdir/}: the generated C does not compile with -Wall -Wextra -Werror"
		head -n 20 "$tmp/log"
		status=1
	fi
done
# The benchmarks build samples in other forms: -O3 -march=native, and K
# rewritten (bench/libmf.sh, sgdmf.sh).  K = 100 made cc warn of an
# overflow in sap_dot_f's last terms, and call dot() instead of inlining it.
for f in sgdmf sgdmf-adaptive; do
	for k in 32 100; do
		sed "s/^const int K = [0-9]*;\$/const int K = $k;/" "$top_srcdir/samples/$f.sap" \
			>"$tmp/$f-k$k.sap"
		n=$((n + 1))
		if ! "$SAPC" -c -O3 -march=native -Wall -Wextra -Werror -o "$tmp/x.o" \
			"$tmp/$f-k$k.sap" >"$tmp/log" 2>&1; then
			echo "FAIL: samples/$f.sap at K = $k, -O3 -march=native:" \
				"the generated C does not compile with -Wall -Wextra -Werror"
			head -n 20 "$tmp/log"
			status=1
		elif nm "$tmp/x.o" | grep -q ' sap_dot_'; then
			# Called, dot cost SGDMF's loop a tenth of its time.
			echo "FAIL: samples/$f.sap at K = $k, -O3 -march=native: dot() is not inlined"
			status=1
		fi
	done
done
# A function that calls itself on every path is the program's to run
# forever; gcc 12 warns of it (-Winfinite-recursion), which the C leaves
# to sapc's user, not to -Werror.
printf 'int f(int x) { return f(x + 1) + 1; }\nprint("%%d\\n", f(0));\n' >"$tmp/recurse.sap"
n=$((n + 1))
if ! "$SAPC" -c -O2 -Wall -Wextra -Werror -o "$tmp/x.o" "$tmp/recurse.sap" >"$tmp/log" 2>&1; then
	echo "FAIL: a function calling itself on every path: the C does not compile with -Werror"
	head -n 20 "$tmp/log"
	status=1
fi
echo "compiled $n programs"
[ "$n" -gt 0 ] || status=1
exit $status
