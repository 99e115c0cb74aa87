#!/bin/sh
# The round trip of save and load, as a property over every element type
# load accepts: scalars, strings (whole lines and fields), arrays, nested
# arrays, structs, structs holding arrays, arrays of structs, lists of
# each kind of element (lists of structs and arrays in ':'-joined groups),
# structs ending in lists, nested structs ending in lists.  A program
# fills a dvector of each type from a seeded generator that reaches the
# corners (int and long limits, -0, subnormals, the largest finite
# values, 0.1, non-ASCII bytes), saves it, loads it back, compares every
# value with the one saved (so a format that loses digits fails here, not
# only one that reads differently), and saves it again.  On 1, 2 and 3
# ranks:
#  - every value comes back and the second file is byte-identical to the
#    first;
#  - the files are byte-identical whatever the number of ranks.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

# name|element type|a generated value|@a and @b equal
shapes='bool|bool|gb()|@a == @b
int|int|gi()|@a == @b
long|long|gl()|@a == @b
float|float|gf()|sf(@a, @b)
double|double|gd()|sd(@a, @b)
string|string|gline()|@a == @b
int3|int[3]|mkI3()|@a[0] == @b[0] && @a[1] == @b[1] && @a[2] == @b[2]
str2|string[2]|mkS2()|@a[0] == @b[0] && @a[1] == @b[1]
d23|double[2][3]|mkD23()|eqD23(@a, @b)
S|S|mkS()|eqS(@a, @b)
SS|SS|mkSS()|eqSS(@a, @b)
SA|SA|mkSA()|eqSA(@a, @b)
S2|S[2]|mkSx2()|eqS(@a[0], @b[0]) && eqS(@a[1], @b[1])
lint|list<int>|mkLi()|eqLi(@a, @b)
llong|list<long>|mkLl()|eqLl(@a, @b)
lfloat|list<float>|mkLf()|eqLf(@a, @b)
lbool|list<bool>|mkLb()|eqLb(@a, @b)
lstring|list<string>|mkLs()|eqLs(@a, @b)
lint2|list<int[2]>|mkLi2()|eqLi2(@a, @b)
lP|list<P>|mkLP()|eqLP(@a, @b)
Ex|Ex|mkEx()|eqEx(@a, @b)
L|L|mkL()|eqL(@a, @b)
NL|NL|mkNL()|eqNL(@a, @b)
LW|LW|mkLW()|eqLW(@a, @b)
LS|LS|mkLS()|eqLS(@a, @b)
LA|LA|mkLA()|eqLA(@a, @b)
LG|LG|mkLG()|eqLG(@a, @b)
lint1|list<int>[1]|mkLi1()|eqLi(@a[0], @b[0])'

cat >"$tmp/rt.sap" <<'SAP'
// Every element type load accepts, filled with seeded values that reach
// the corners (int and long limits, -0, subnormals, the largest finite
// floats, strings with non-ASCII bytes), saved, loaded, compared value
// by value with what was saved, and saved again.
param long n = 40;
param string dir = ".";

struct S { int a; double b; }
struct SS { string s; S in; bool f; }
struct SA { long k; float[2] v; }
struct P { int i; double v; }
struct Ex { double label; list<P> x; }
struct L { int id; list<S> e; }
struct NL { bool z; L l; }
struct W { long w; }
struct LW { string name; list<W> ws; }
struct LS { float f; list<string> words; }
struct LA { int id; list<double[2][2]> m; }
struct G { string k; int v; }
struct LG { int id; list<G> g; }

int gi() {
    long k = rand_int(8);
    if (k == 0)
        return -2147483647 - 1;
    if (k == 1)
        return 2147483647;
    return rand_int(2000001) - 1000000;
}
long gl() {
    long k = rand_int(8);
    if (k == 0)
        return -9223372036854775807 - 1;
    if (k == 1)
        return 9223372036854775807;
    long a = rand_int(2000000001) - 1000000000;
    return a * (rand_int(2000000001) - 1000000000);
}
double gd() {
    long k = rand_int(14);
    if (k == 0)
        return 0.0;
    if (k == 1)
        return -0.0;
    if (k == 2)
        return 1e-310 * (rand() + 0.5);
    if (k == 3)
        return 0.1;
    if (k == 4)
        return -1.7976931348623157e308;
    if (k == 5)
        return 4.9e-324;
    if (k == 6)
        return rand_int(100) - 50;
    double m = rand() - 0.5;
    return m * pow(10.0, rand_int(601) - 300);
}
float gf() {
    long k = rand_int(12);
    if (k == 0)
        return -0.0;
    if (k == 1)
        return 1e-40 * (rand() + 0.5);
    if (k == 2)
        return 3.4028234663852886e38;
    if (k == 3)
        return 0.1;
    if (k == 4)
        return rand_int(100) - 50;
    double m = rand() - 0.5;
    return m * pow(10.0, rand_int(71) - 35);
}
bool gb() {
    return rand() < 0.5;
}
string piece(long k) {
    if (k == 0) return "ab";
    if (k == 1) return "Zq";
    if (k == 2) return "é";
    if (k == 3) return "x-y";
    if (k == 4) return "0";
    if (k == 5) return "_";
    if (k == 6) return "1e5";
    if (k == 7) return "q#";
    if (k == 8) return "%s";
    return ".";
}
// A string field: never empty, no blank, no ':' (it may sit in a list
// element), no '#' first.
string gs() {
    string s = piece(rand_int(7));
    long m = rand_int(3);
    for (long j = 0; j < m; j++)
        s = s + piece(rand_int(10));
    return s;
}
// A whole line: blanks and ':' inside.
string gline() {
    string s = gs();
    long m = 1 + rand_int(4);
    for (long j = 0; j < m; j++) {
        s = s + (rand() < 0.5 ? " " : "\t: ");
        s = s + gs();
    }
    return s;
}

bool sd(double x, double y) {
    return x == y && (x != 0 || (1 / x > 0) == (1 / y > 0));
}
bool sf(float x, float y) {
    return x == y && (x != 0 || (1 / x > 0) == (1 / y > 0));
}

S mkS() { S x; x.a = gi(); x.b = gd(); return x; }
bool eqS(S x, S y) { return x.a == y.a && sd(x.b, y.b); }
SS mkSS() { SS x; x.s = gs(); x.in = mkS(); x.f = gb(); return x; }
bool eqSS(SS x, SS y) { return x.s == y.s && eqS(x.in, y.in) && x.f == y.f; }
SA mkSA() { SA x; x.k = gl(); x.v[0] = gf(); x.v[1] = gf(); return x; }
bool eqSA(SA x, SA y) { return x.k == y.k && sf(x.v[0], y.v[0]) && sf(x.v[1], y.v[1]); }
P mkP() { P x; x.i = gi(); x.v = gd(); return x; }
bool eqP(P x, P y) { return x.i == y.i && sd(x.v, y.v); }
Ex mkEx() {
    Ex x;
    x.label = gd();
    long m = rand_int(5);
    for (long j = 0; j < m; j++)
        push(x.x, mkP());
    return x;
}
bool eqEx(Ex x, Ex y) {
    if (!sd(x.label, y.label) || len(x.x) != len(y.x))
        return false;
    for (long j = 0; j < len(x.x); j++)
        if (!eqP(x.x[j], y.x[j]))
            return false;
    return true;
}
L mkL() {
    L x;
    x.id = gi();
    long m = rand_int(4);
    for (long j = 0; j < m; j++)
        push(x.e, mkS());
    return x;
}
bool eqL(L x, L y) {
    if (x.id != y.id || len(x.e) != len(y.e))
        return false;
    for (long j = 0; j < len(x.e); j++)
        if (!eqS(x.e[j], y.e[j]))
            return false;
    return true;
}
NL mkNL() { NL x; x.z = gb(); x.l = mkL(); return x; }
bool eqNL(NL x, NL y) { return x.z == y.z && eqL(x.l, y.l); }
LW mkLW() {
    LW x;
    x.name = gs();
    long m = rand_int(4);
    for (long j = 0; j < m; j++) {
        W w;
        w.w = gl();
        push(x.ws, w);
    }
    return x;
}
bool eqLW(LW x, LW y) {
    if (x.name != y.name || len(x.ws) != len(y.ws))
        return false;
    for (long j = 0; j < len(x.ws); j++)
        if (x.ws[j].w != y.ws[j].w)
            return false;
    return true;
}
LS mkLS() {
    LS x;
    x.f = gf();
    long m = rand_int(4);
    for (long j = 0; j < m; j++)
        push(x.words, gs());
    return x;
}
bool eqLS(LS x, LS y) {
    if (!sf(x.f, y.f) || len(x.words) != len(y.words))
        return false;
    for (long j = 0; j < len(x.words); j++)
        if (x.words[j] != y.words[j])
            return false;
    return true;
}
LA mkLA() {
    LA x;
    x.id = gi();
    long m = rand_int(3);
    for (long j = 0; j < m; j++) {
        double[2][2] a;
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 2; c++)
                a[r][c] = gd();
        push(x.m, a);
    }
    return x;
}
bool eqLA(LA x, LA y) {
    if (x.id != y.id || len(x.m) != len(y.m))
        return false;
    for (long j = 0; j < len(x.m); j++)
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 2; c++)
                if (!sd(x.m[j][r][c], y.m[j][r][c]))
                    return false;
    return true;
}
LG mkLG() {
    LG x;
    x.id = gi();
    long m = rand_int(4);
    for (long j = 0; j < m; j++) {
        G g;
        g.k = gs();
        g.v = gi();
        push(x.g, g);
    }
    return x;
}
bool eqLG(LG x, LG y) {
    if (x.id != y.id || len(x.g) != len(y.g))
        return false;
    for (long j = 0; j < len(x.g); j++)
        if (x.g[j].k != y.g[j].k || x.g[j].v != y.g[j].v)
            return false;
    return true;
}

int[3] mkI3() { int[3] x; for (int j = 0; j < 3; j++) x[j] = gi(); return x; }
string[2] mkS2() { string[2] x; x[0] = gs(); x[1] = gs(); return x; }
double[2][3] mkD23() {
    double[2][3] x;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++)
            x[r][c] = gd();
    return x;
}
bool eqD23(double[2][3] x, double[2][3] y) {
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++)
            if (!sd(x[r][c], y[r][c]))
                return false;
    return true;
}
S[2] mkSx2() { S[2] x; x[0] = mkS(); x[1] = mkS(); return x; }
// Top-level lists are never empty: an empty one would be a blank line.
list<int> mkLi() { list<int> x; long m = 1 + rand_int(5); for (long j = 0; j < m; j++) push(x, gi()); return x; }
bool eqLi(list<int> x, list<int> y) {
    if (len(x) != len(y)) return false;
    for (long j = 0; j < len(x); j++) if (x[j] != y[j]) return false;
    return true;
}
list<long> mkLl() { list<long> x; long m = 1 + rand_int(5); for (long j = 0; j < m; j++) push(x, gl()); return x; }
bool eqLl(list<long> x, list<long> y) {
    if (len(x) != len(y)) return false;
    for (long j = 0; j < len(x); j++) if (x[j] != y[j]) return false;
    return true;
}
list<float> mkLf() { list<float> x; long m = 1 + rand_int(5); for (long j = 0; j < m; j++) push(x, gf()); return x; }
bool eqLf(list<float> x, list<float> y) {
    if (len(x) != len(y)) return false;
    for (long j = 0; j < len(x); j++) if (!sf(x[j], y[j])) return false;
    return true;
}
list<bool> mkLb() { list<bool> x; long m = 1 + rand_int(5); for (long j = 0; j < m; j++) push(x, gb()); return x; }
bool eqLb(list<bool> x, list<bool> y) {
    if (len(x) != len(y)) return false;
    for (long j = 0; j < len(x); j++) if (x[j] != y[j]) return false;
    return true;
}
list<string> mkLs() { list<string> x; long m = 1 + rand_int(5); for (long j = 0; j < m; j++) push(x, gs()); return x; }
bool eqLs(list<string> x, list<string> y) {
    if (len(x) != len(y)) return false;
    for (long j = 0; j < len(x); j++) if (x[j] != y[j]) return false;
    return true;
}
list<int[2]> mkLi2() {
    list<int[2]> x;
    long m = 1 + rand_int(5);
    for (long j = 0; j < m; j++) {
        int[2] p;
        p[0] = gi();
        p[1] = gi();
        push(x, p);
    }
    return x;
}
bool eqLi2(list<int[2]> x, list<int[2]> y) {
    if (len(x) != len(y)) return false;
    for (long j = 0; j < len(x); j++) if (x[j][0] != y[j][0] || x[j][1] != y[j][1]) return false;
    return true;
}
list<P> mkLP() { list<P> x; long m = 1 + rand_int(5); for (long j = 0; j < m; j++) push(x, mkP()); return x; }
bool eqLP(list<P> x, list<P> y) {
    if (len(x) != len(y)) return false;
    for (long j = 0; j < len(x); j++) if (!eqP(x[j], y[j])) return false;
    return true;
}
list<int>[1] mkLi1() { list<int>[1] x; x[0] = mkLi(); return x; }
long nbad = 0;
SAP

echo "$shapes" | while IFS='|' read -r name type mk eq; do
	a=$(echo "$eq" | sed "s/@a/v$name[i]/g; s/@b/u$name[i]/g")
	cat <<SAP
dvector<$type> v$name(n);
for (long i = 0; i < n; i++)
    v$name[i] = $mk;
save(v$name, dir + "/$name.1");
dvector<$type> u$name = load(dir + "/$name.1");
if (len(u$name) != n) {
    print("$name: %d elements loaded, %d saved\n", len(u$name), n);
    nbad++;
}
for (long i = 0; i < min(n, len(u$name)); i++)
    if (!($a)) {
        print("$name: element %d differs\n", i);
        nbad++;
    }
save(u$name, dir + "/$name.2");
SAP
done >>"$tmp/rt.sap"
nshapes=$(echo "$shapes" | wc -l)
# printf, not echo: dash's echo turns the \n into a newline.
printf 'print("%%d shapes, %%d differences\\n", %s, nbad);\n' "$nshapes" >>"$tmp/rt.sap"

"$SAPC" -O1 -Wall -Wextra -Werror -o "$tmp/rt" "$tmp/rt.sap" || fail "sapc rt.sap"

for np in 1 2 3; do
	mkdir "$tmp/$np"
	$MPIEXEC -n $np "$tmp/rt" --dir="$tmp/$np" >"$tmp/$np.out" 2>"$tmp/$np.err"
	rc=$?
	test $rc = 0 || { cat "$tmp/$np.out" "$tmp/$np.err"; fail "$np ranks: exit status $rc"; }
	test "$(cat "$tmp/$np.out")" = "$nshapes shapes, 0 differences" ||
		{ cat "$tmp/$np.out"; fail "$np ranks: values did not come back"; }
	echo "$shapes" | while IFS='|' read -r name type rest; do
		cmp "$tmp/$np/$name.1" "$tmp/$np/$name.2" ||
			fail "$type on $np ranks: save, load, save is not byte-identical"
		test "$np" = 1 || cmp "$tmp/1/$name.1" "$tmp/$np/$name.1" ||
			fail "$type: the file saved on $np ranks differs from 1 rank's"
		test "$(wc -l <"$tmp/$np/$name.1")" = 40 || fail "$type: not 40 lines"
	done || exit 1
done
echo "$nshapes element types: save, load, save byte-identical on 1, 2 and 3 ranks"
exit 0
