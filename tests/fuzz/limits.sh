#!/bin/sh
# The compiler on programs of extreme shapes: each compiles (sapc -S), or
# fails with one error naming its place, never a crash, a stack overflow
# or a run time that grows with the square of the program's size.  The
# time limit only catches the last (two orders of magnitude beyond a
# linear compile on a loaded machine); nothing asserts a duration.
# Environment (from Makefile.am): SAPC, top_srcdir.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp
cd "$tmp" || exit 99
status=0

# gen KIND N: a program of that shape and size on stdout.
gen() {
	awk -v k="$1" -v n="$2" 'function rep(s, n,   r) { r = ""; for (; n > 0; n = int(n / 2)) { if (n % 2) r = r s; s = s s }; return r }
	BEGIN {
	if (k == "plus") printf "int x = 1%s;\nprint(\"%%d\\n\", x);\n", rep(" + 1", n)
	else if (k == "paren") printf "int x = %s1%s;\nprint(\"%%d\\n\", x);\n", rep("(", n), rep(")", n)
	else if (k == "minus") printf "int x = %s1;\nprint(\"%%d\\n\", x);\n", rep("- ", n)
	else if (k == "not") printf "bool x = %strue;\n", rep("!", n)
	else if (k == "call") printf "int f(int a) { return a; }\nint x = %s1%s;\n", rep("f(", n), rep(")", n)
	else if (k == "index") printf "int[1] a;\na[0] = 0;\nint x = %s0%s;\n", rep("a[", n), rep("]", n)
	else if (k == "block") printf "%sprint(\"x\\n\");%s\n", rep("{", n), rep("}", n)
	else if (k == "if") printf "int x = 1;\n%sx = 2;\n", rep("if (x > 0) ", n)
	else if (k == "while") printf "int x = 0;\n%sx++;\n", rep("while (x < 1) ", n)
	else if (k == "cond") printf "int x = %s0;\n", rep("1 ? 1 : ", n)
	else if (k == "elif") { printf "int x = 1;\nif (x == 0) x = 1;\n"; for (i = 1; i < n; i++) printf "else if (x == %d) x = %d;\n", i, i + 1 }
	else if (k == "for") { for (i = 0; i < n; i++) printf "for (int i%d = 0; i%d < 1; i%d++)\n", i, i, i; print "print(\"x\\n\");" }
	else if (k == "list") printf "%sint%s a;\n", rep("list<", n), rep(">", n)
	else if (k == "array") printf "int%s a;\n", rep("[1]", n)
	else if (k == "struct") { print "struct S0 { int a; }"; for (i = 1; i < n; i++) printf "struct S%d { S%d a; }\n", i, i - 1; printf "S%d s;\n", n - 1 }
	else if (k == "decls") { for (i = 0; i < n; i++) printf "int v%d = %d;\n", i, i; print "print(\"%d\\n\", v0);" }
	else if (k == "locals") { print "int g() {"; for (i = 0; i < n; i++) printf "int v%d = %d;\n", i, i; print "return v0;\n}\nprint(\"%d\\n\", g());" }
	else if (k == "stmts") { print "int x = 0;\n{"; for (i = 0; i < n; i++) print "x++;"; print "}" }
	else if (k == "funcs") { for (i = 0; i < n; i++) printf "int f%d(int a) { return a + %d; }\n", i, i; print "print(\"%d\\n\", f0(1));" }
	else if (k == "fields") { print "struct S {"; for (i = 0; i < n; i++) printf "int f%d;\n", i; print "}\nS s;\ns.f0 = 1;" }
	else if (k == "structs") { for (i = 0; i < n; i++) printf "struct S%d { int a; }\n", i; print "S0 s;" }
	else if (k == "params") { for (i = 0; i < n; i++) printf "/// p%d\nparam int p%d = %d;\n", i, i, i; print "print(\"%d\\n\", p0);" }
	else if (k == "args") printf "print(\"%%d\\n\", max(1%s));\n", rep(", 1", n)
	else if (k == "string") printf "string s = \"%s\";\nprint(\"%%d\\n\", len(s));\n", rep("a", n)
	else if (k == "longname") printf "int %s = 1;\nint y = %sb;\n", rep("a", n), rep("a", n - 1)
	else if (k == "loopbody") { print "dvector<double> d(100);\nasync for (long i = 0; i < 100; i++) {"; for (i = 0; i < n; i++) printf "d[(i + %d) %% 100] += 1;\n", i; print "}" }
	else if (k == "callchain") { printf "double f%d(double x) { print(\"x\\n\"); return x; }\n", n - 1; for (i = n - 2; i >= 0; i--) printf "double f%d(double x) { return f%d(x) + 1; }\n", i, i + 1; print "print(\"%g\\n\", f0(1.0));" }
	else if (k == "longline") printf "int x = 1;%sint y = ;\n", rep(" ", n)
	}'
}

# check KIND N EXPECT: EXPECT is "ok" or the first line sapc must print.
check() {
	gen "$1" "$2" >"$1.sap"
	timeout 300 "$SAPC" -S -o "$1.c" "$1.sap" >"$1.log" 2>&1
	rc=$?
	first=$(head -n 1 "$1.log")
	if [ "$3" = ok ]; then
		if [ $rc -ne 0 ]; then
			echo "FAIL: $1 $2: sapc exited with $rc"
			head -c 300 "$1.log"; echo
			status=1
		fi
	elif [ $rc -ne 1 ] || [ "$first" != "$3" ]; then
		echo "FAIL: $1 $2: sapc exited with $rc, printing:"
		head -c 300 "$1.log"; echo
		echo "expected exit status 1 and: $3"
		status=1
	fi
}

# Nesting: up to the limit compiles, beyond it is one error.
deep='expression nested too deeply: more than 1000 levels; split it up'
for k in plus minus not call index; do
	check $k 900 ok
done
check plus 60000 "plus.sap:1:5: error: $deep"
check minus 5000 "minus.sap:1:5: error: $deep"
# Deeper than the parser's stack: its own message.
check minus 100000 "minus.sap:1:31997: error: nested too deeply; split it up"
check not 5000 "not.sap:1:6: error: $deep"
check call 5000 "call.sap:2:5: error: $deep"
check index 5000 "index.sap:3:5: error: $deep"
check cond 3000 "cond.sap:1:5: error: $deep"
check paren 15000 ok
check paren 100000 "paren.sap:1:16003: error: nested too deeply; split it up"
check block 900 ok
check block 5000 "block.sap:1:1001: error: statements nested too deeply: more than 1000 levels; split it up"
check if 900 ok
check if 3000 "if.sap:2:11001: error: statements nested too deeply: more than 1000 levels; split it up"
check while 900 ok
check elif 900 ok
check elif 2000 "elif.sap:1002:6: error: statements nested too deeply: more than 1000 levels; split it up"
check for 900 ok
check list 900 ok
check list 5000 "list.sap:1:4996: error: type nested too deeply: more than 1000 levels"
check array 900 ok
check struct 900 ok
check struct 5000 "struct.sap:1001:21: error: structs nested too deeply: more than 1000 levels"

# Size: each of these took minutes (quadratic) at half this size.
check decls 200000 ok
check locals 200000 ok
check stmts 200000 ok
check funcs 200000 ok
check fields 200000 ok
check structs 200000 ok
check params 200000 ok
# One parallel loop of many accesses (records of each key's text were
# compared pair by pair, a copy of both texts each time: gigabytes).
check loopbody 5000 ok
# I/O and use spread along a chain of calls (one pass per link before).
check callchain 100000 ok
check args 200000 "args.sap:1:15: error: max takes 2 arguments, but 200001 were given"
check string 1000000 ok
# A megabyte line: the message and its caret, once.
check longline 1000000 "longline.sap:1:1000019: error: expected an expression before ';'"
# A misspelt name thousands of characters long: no "did you mean" (whose
# table was on the stack, and overflowed it).
name=$(awk 'BEGIN { for (i = 1; i < 3000; i++) printf "a"; print "b" }')
check longname 3000 "longname.sap:2:9: error: undefined name '$name'"
if [ "$(wc -l <longline.log)" -ne 3 ]; then
	echo "FAIL: longline: the message is not three lines"
	status=1
fi
exit $status
