#!/bin/sh
# sapc's C-compiler options: -S keeps the C, -c makes an object that links
# with the flags --showme:compile / --showme:link print, -o names the
# output, SAPC_CC overrides the C compiler, --version and --help work, and
# bad usage is an error.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp
cd "$tmp" || exit 99
run() { $MPIEXEC -n 1 "$@"; }

cat >hello.sap <<'SAP'
param int n = 3;
long s = 0;
async for (long i = 0; i < n; i++) reduce(+: s) { s += i * i; }
print("sum %d\n", s);
SAP

"$SAPC" --version | grep -q '^sapc [0-9]' || fail "--version"
"$SAPC" --help | grep -q -- '--showme:link' || fail "--help"

# -S: C with #line directives back to the .sap file, compilable by hand.
"$SAPC" -S hello.sap || fail "-S"
[ -f hello.c ] || fail "-S did not write hello.c"
grep -q '^#line 3 "hello.sap"' hello.c || fail "no #line directive for hello.sap:3"
# shellcheck disable=SC2046
mpicc -std=c11 -Wall -Wextra -Werror $("$SAPC" --showme:compile) hello.c \
	$("$SAPC" --showme:link) -o by-hand || fail "compiling -S output with --showme flags"
[ "$(run ./by-hand --n=4)" = "sum 14" ] || fail "program built from -S output"

# A name with "*/" and a newline: the comment naming the source in the C
# stays one comment (it ended early and broke the C).
mkdir 'x*' && cp hello.sap 'x*/h
i.sap' || fail "copying to an odd name"
"$SAPC" -o odd 'x*/h
i.sap' || fail "a source whose name holds */ and a newline"
[ "$(run ./odd)" = "sum 5" ] || fail "program from the oddly named source"

# Arithmetic sap(7) defines draws no C compiler warning: a wrapping int
# sum gcc folds, a floating division by zero.  And --showme:compile gives
# the flags that define it.
cat >quiet.sap <<'SAP'
param int x = 1;
param double d = 2;
int w = 2147483647 + (x - x + 1);
print("%d %g\n", w, d / 0);
SAP
"$SAPC" -o quiet quiet.sap 2>quiet.err || fail "quiet.sap"
test -s quiet.err && { cat quiet.err; fail "warnings for defined arithmetic"; }
[ "$(run ./quiet)" = "-2147483648 inf" ] || fail "quiet.sap printed $(run ./quiet)"
"$SAPC" --showme:compile | grep -q -- '-ffp-contract=off -fwrapv' ||
	fail "--showme:compile lacks -ffp-contract=off -fwrapv"

# -P: no #line directives.
"$SAPC" -S -P -o plain.c hello.sap || fail "-S -P"
grep -q '^#line' plain.c && fail "-P left #line directives"

# -c: an object file, linked separately.
"$SAPC" -c -O3 hello.sap || fail "-c"
[ -f hello.o ] || fail "-c did not write hello.o"
# shellcheck disable=SC2046
mpicc hello.o $("$SAPC" --showme:link) -o from-object || fail "linking hello.o"
[ "$(run ./from-object)" = "sum 5" ] || fail "program linked from hello.o"

# Default output name, -g, -Wall -Werror.
"$SAPC" -g -O0 -Wall -Werror hello.sap || fail "-g -O0 -Wall -Werror"
[ -x hello ] || fail "default output name"

# -Wall: unused variables are sapc's to warn of, by their SAP names at
# their columns (gcc named the C's, u_y, at the C's columns); -Werror
# makes the first an error, -Wno-... turns one off.
cat >unused.sap <<'SAP'
int f(int a) {
    int y = 3;
    return a;
}
int q;
q = 5;
dvector<double> x(4);
async for (long i = 0; i < 4; i++) {
    double t = 2;
    int k = 1;
    k += 1;
    x[i] = i;
}
print("%d\n", f(1));
SAP
cat >unused.expect <<'TXT'
unused.sap:2:9: warning: unused variable 'y' [-Wunused-variable]
     2 |     int y = 3;
       |         ^
unused.sap:5:5: warning: variable 'q' set but not used [-Wunused-but-set-variable]
     5 | int q;
       |     ^
unused.sap:9:12: warning: unused variable 't' [-Wunused-variable]
     9 |     double t = 2;
       |            ^
TXT
"$SAPC" -Wall -Wextra -o unused unused.sap 2>unused.err || fail "-Wall on unused.sap"
diff -u unused.expect unused.err || fail "-Wall warnings on unused.sap"
[ "$(run ./unused)" = "1" ] || fail "unused.sap printed $(run ./unused)"
"$SAPC" -o unused unused.sap 2>unused.err || fail "unused.sap without -Wall"
test -s unused.err && { cat unused.err; fail "warnings without -Wall"; }
"$SAPC" -Wall -Wno-unused-variable -o unused unused.sap 2>unused.err || fail "-Wno-unused-variable"
[ "$(grep -c warning: unused.err)" = 1 ] || fail "-Wno-unused-variable: $(cat unused.err)"
"$SAPC" -Wall -Werror -o unused2 unused.sap 2>unused.err && fail "-Wall -Werror should fail"
[ -e unused2 ] && fail "-Werror still built the program"
[ "$(head -n 1 unused.err)" = \
  "unused.sap:2:9: error: unused variable 'y' [-Werror=unused-variable]" ] ||
	fail "-Werror: $(cat unused.err)"
[ "$(grep -c error: unused.err)" = 1 ] || fail "-Werror: more than the first error"
"$SAPC" -Werror=unused-but-set-variable -fsyntax-only unused.sap 2>unused.err &&
	fail "-Werror=unused-but-set-variable should fail"
grep -q "5:5: error: variable 'q' set but not used \[-Werror=unused-but-set-variable\]" unused.err ||
	fail "-Werror=unused-but-set-variable: $(cat unused.err)"

# A constant that an implicit conversion changes warns by default (not
# int(...), nor a constant that converts exactly); -Wno-unused leaves it
# on, -Wno-literal-conversion turns it off, -Werror makes it an error.
cat >conv.sap <<'SAP'
param int p = 1.5;
int a = int(2.5);
int b = 10 * 0.5;
print("%d %d %d\n", p, a, b);
SAP
cat >conv.expect <<'TXT'
conv.sap:1:15: warning: the constant 1.5 converted to 'int' becomes 1; write int(...) if that is meant [-Wliteral-conversion]
     1 | param int p = 1.5;
       |               ^
TXT
"$SAPC" -Wno-unused -o conv conv.sap 2>conv.err || fail "conv.sap"
diff -u conv.expect conv.err || fail "the warning of conv.sap"
[ "$(run ./conv)" = "1 2 5" ] || fail "conv.sap printed $(run ./conv)"
"$SAPC" -Wno-literal-conversion -fsyntax-only conv.sap 2>conv.err || fail "-Wno-literal-conversion"
test -s conv.err && { cat conv.err; fail "-Wno-literal-conversion still warned"; }
"$SAPC" -Werror -fsyntax-only conv.sap 2>conv.err && fail "-Werror on conv.sap should fail"
grep -q "1:15: error: .*\[-Werror=literal-conversion\]" conv.err || fail "-Werror: $(cat conv.err)"

# sapc's own warnings (loop-carried, ...) are not the C compiler's: gcc
# refused -Wloop-carried, -Werror=loop-carried and -Wno-error=x; and
# -Werror made a warning of the loops' analysis an error that still
# built the program, exit status 0.
cat >chain.sap <<'SAP'
dvector<long> C(100);
async for (long i = 1; i < 100; i++)
    C[i] = C[i - 1] + i;
print("%d\n", C[99]);
SAP
for o in -Wloop-carried -Wno-loop-carried -Wlost-copy -Wno-error=loop-carried; do
	rm -f chain
	"$SAPC" $o -o chain chain.sap 2>chain.err || { cat chain.err; fail "$o: the build failed"; }
	test -x chain || fail "$o: no program"
done
# gcc ignores an unknown -Wno-x: a typo of one of sapc's names is said.
"$SAPC" -Wno-lost-copies -o chain chain.sap 2>chain.err || { cat chain.err; fail "-Wno-lost-copies"; }
grep -qx "sapc: warning: unknown warning option '-Wno-lost-copies'; did you mean '-Wno-lost-copy'?" chain.err ||
	{ cat chain.err; fail "no word of the typo -Wno-lost-copies"; }
# gcc rejects an unknown -Wx only once sapc's work is done, and does not
# know sapc's names: the typo is said first.
if "$SAPC" -Werror=loop-carry -o chain chain.sap 2>chain.err; then
	fail "-Werror=loop-carry built"
fi
head -n 1 chain.err | grep -qx "sapc: warning: unknown warning option '-Werror=loop-carry'; did you mean '-Werror=loop-carried'?" ||
	{ cat chain.err; fail "no word of the typo -Werror=loop-carry"; }
"$SAPC" -Wno-sign-compare -Wno-loop-carried -o chain chain.sap 2>chain.err || fail "-Wno-sign-compare"
test -s chain.err && { cat chain.err; fail "-Wno-sign-compare, gcc's: a warning"; }
# -w: no warning at all, as gcc's.
"$SAPC" -w -o chain chain.sap 2>chain.err || { cat chain.err; fail "-w: the build failed"; }
test -s chain.err && { cat chain.err; fail "-w still warned"; }
rm -f chain
"$SAPC" -Werror=loop-carried -o chain chain.sap 2>chain.err && fail "-Werror=loop-carried built it"
test -e chain && fail "-Werror=loop-carried: a program was written"
grep -q "3:13: error: .*\[-Werror=loop-carried\]" chain.err || fail "-Werror=loop-carried: $(cat chain.err)"
"$SAPC" -Werror -Wno-error=loop-carried -o chain chain.sap 2>chain.err ||
	{ cat chain.err; fail "-Werror -Wno-error=loop-carried: the build failed"; }
grep -q "3:13: warning: .*\[-Wloop-carried\]" chain.err || fail "-Wno-error=loop-carried: $(cat chain.err)"

# A statement with no effect warns by default, as gcc does of C: a for
# step `k` for `k++` (which crashed sapc) never ends the loop; the C
# stays clean, and the program runs.
cat >effect.sap <<'SAP'
int x = 3;
x + 1;
for (int k = 0; k < 3; k) {
    x++;
    if (x > 5)
        break;
}
print("%d\n", x);
SAP
cat >effect.expect <<'TXT'
effect.sap:2:1: warning: statement with no effect [-Wunused-value]
     2 | x + 1;
       | ^
effect.sap:3:24: warning: statement with no effect [-Wunused-value]
     3 | for (int k = 0; k < 3; k) {
       |                        ^
TXT
"$SAPC" -Wall -Wextra -Werror=unused-variable -o effect effect.sap 2>effect.err || fail "effect.sap"
diff -u effect.expect effect.err || fail "the warnings of effect.sap"
[ "$(run ./effect)" = "6" ] || fail "effect.sap printed $(run ./effect)"
"$SAPC" -Wno-unused-value -fsyntax-only effect.sap 2>effect.err || fail "-Wno-unused-value"
test -s effect.err && { cat effect.err; fail "-Wno-unused-value still warned"; }

# -Wshadow finds no shadows the program does not have (a reduction's
# private copy, driver variables as file-scope statics); sap.h's inline
# helpers convert explicitly (-Wfloat-conversion).
cat >shadow.sap <<'SAP'
double s = 0;
async for (long i = 0; i < 8; i++) reduce(+: s) { s += fast_sigmoid(i - 4.0); }
if (s > 0) {
    int k = 1;
    print("%d\n", k);
}
for (int t = 0; t < 1; t++) {
    int k = 2;
    print("%d %.3f\n", k, s);
}
SAP
"$SAPC" -Wall -Wextra -Wshadow -Wfloat-conversion -Werror -o shadow shadow.sap ||
	fail "-Wshadow -Wfloat-conversion -Werror on shadow.sap"

# SAPC_CC overrides the compiler; -v shows the command.
SAPC_CC=false "$SAPC" -o never hello.sap 2>/dev/null && fail "SAPC_CC=false should fail"
SAPC_CC=mpicc "$SAPC" -v -o cc hello.sap 2>cmd.txt || fail "SAPC_CC=mpicc"
grep -q '^mpicc ' cmd.txt || fail "-v did not show the mpicc command"

# Code generation options reach the C compiler after sapc's own, so that
# they win; the program still runs.
"$SAPC" -v -O3 -march=native -mtune=native -fno-unroll-loops -o native hello.sap 2>cmd.txt ||
	fail "-march=native -mtune=native -fno-unroll-loops"
tr -d "'" <cmd.txt | grep -q -- '-ffp-contract=off .*-march=native -mtune=native -fno-unroll-loops' ||
	fail "the code generation options are not passed on after sapc's: $(cat cmd.txt)"
[ "$(run ./native)" = "sum 5" ] || fail "program built with -march=native"
"$SAPC" -fsyntax-only hello.sap || fail "-fsyntax-only is still sapc's own"

# -O3 computes what -O2 does: GCC 12's -O3 used a float's value before
# its rounding in these loops' last iterations (sapc(1), -O3).
cat >o3.sap <<'SAP'
const int K = 19;
double g = 0.013;
float w[K], h[K];
double d[K];
for (int k = 0; k < K; k++) { w[k] = 0.1f * k - 0.7f; h[k] = 1.0f / (k + 1); d[k] = 0.3 * k; }
for (int it = 0; it < 2; it++) {
    for (int k = 0; k < K; k++) w[k] += g * (0.37f * h[k] - 0.05f * w[k]);
    for (int k = 0; k < K; k++) d[k] = d[k] * 0.99 + w[k];
}
print("%.17g %.17g\n", d[16], d[17]);
SAP
"$SAPC" -O2 -o o2 o3.sap && "$SAPC" -O3 -o o3 o3.sap && "$SAPC" -O3 -march=native -o o3n o3.sap ||
	fail "sapc o3.sap"
[ "$(run ./o2)" = "6.4945771013307567 6.9873657231426236" ] || fail "o3.sap at -O2: $(run ./o2)"
[ "$(run ./o3)" = "$(run ./o2)" ] || fail "o3.sap: -O3 gives $(run ./o3), -O2 $(run ./o2)"
[ "$(run ./o3n)" = "$(run ./o2)" ] || fail "o3.sap: -O3 -march=native gives $(run ./o3n)"
# And straight-line code at -O2.
cat >slp.sap <<'SAP'
float w[2];
double dd[2];
double g = 0.013;
w[0] = 0.9f; w[1] = 1.0f; dd[0] = 4.8; dd[1] = 5.1;
for (int i = 0; i < 3; i++) {
    w[0] = w[0] + g * (0.37f * 0.5f - 0.05f * w[0]);
    w[1] = w[1] + g * (0.37f * 0.25f - 0.05f * w[1]);
    dd[0] = dd[0] * 0.99 + w[0];
    dd[1] = dd[1] * 0.99 + w[1];
}
print("%.17g %.17g\n", dd[0], dd[1]);
SAP
"$SAPC" -O2 -o slp slp.sap || fail "sapc slp.sap"
[ "$(run ./slp)" = "7.341367920595598 7.921916637258434" ] || fail "slp.sap at -O2: $(run ./slp)"

# Nothing of sapc's is left in TMPDIR, whether the C compiler succeeds or
# fails.
mkdir t || exit 99
TMPDIR=$tmp/t "$SAPC" -o t1 hello.sap || fail "TMPDIR=$tmp/t"
TMPDIR=$tmp/t SAPC_CC=false "$SAPC" -o never hello.sap 2>/dev/null
[ -z "$(ls -A t)" ] || fail "sapc left temporaries in TMPDIR: $(ls -A t)"

# Usage errors: exit status 1 and a message.
"$SAPC" 2>err.txt && fail "no input should fail"
grep -q 'no .sap input' err.txt || fail "message for no input"
"$SAPC" --frobnicate hello.sap 2>err.txt && fail "unknown option should fail"
grep -q "unknown option '--frobnicate'" err.txt || fail "message for an unknown option"
"$SAPC" missing.sap 2>err.txt && fail "missing file should fail"
grep -q "cannot read 'missing.sap'" err.txt || fail "message for a missing file"
exit 0
