#!/bin/sh
# Writes into a dmap at keys from the data (w[x.f] -= g, P[a.u] += ...,
# insert(m, k, v)) insert only missing keys: the reconnaissance checks
# that every key the body writes is there, and the loop runs planned when
# all are, serially (inserting them) when one is missing.
#  - int and string keys, keys affine in the loop variable, insert():
#    the same sums on 1 x 1, 1 x 2, 2 x 1 and 3 x 1, under --check-plan;
#  - --stats says planned, or serialized naming the map when a key was
#    missing; the next invocation, every key there, is planned again;
#  - keys changed between invocations with the map's size kept (one
#    erased, one inserted) make the plan check again;
#  - a body that reads the map at other keys gives the model of the order
#    it ran in: --dump-order on 1 x 2, replayed by --run-order on one
#    thread, prints the same bits, and so does a second run;
#  - a count that inserts warns once, offering accumulate.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1

cat >keys.sap <<'SAP'
struct E { int a; int b; string s; long c; }
param long n = 40000;
param int nk = 3000;
param int passes = 2;
dvector<E> X(n);
for (long t = 0; t < n; t++) {
    X[t].a = int((t * 7919) % nk);
    X[t].b = int((t * 104729 + 13) % nk);
    X[t].s = "k" + string((t * 15485863 + 101) % nk);
    X[t].c = t % 97;
}
dmap<int, long> w;
dmap<string, long> ws;
dmap<long, long> h;
dmap<int, long> g;
dmap<string, long> gs;
dmap<int, long> last;
for (int k = 0; k < nk; k++) {
    w[k] = k;
    ws["k" + string(k)] = 0;
    if (k % 2 == 0) {
        g[k] = 1;
        gs["k" + string(k)] = 1;
    }
    last[k] = -1;
}
for (long t = 0; t < n; t++)
    h[t] = t % 5;

for (int e = 0; e < passes; e++) {
    // Every key there: planned.
    async for (long t = 0; t < n; t++) {
        E x = X[t];
        w[x.a] += x.c;
        w[x.b] += 1;
        ws[x.s] += x.c + 1;
    }
    // Keys t of h, affine in t: planned, each iteration its own.
    async for (long t = 0; t < n; t++)
        h[t] = h[t] * 3 + X[t].c;
    // Half of the keys of g and gs missing the first time: serial,
    // inserting them; the second time all are there.
    async for (long t = 0; t < n; t++) {
        g[X[t].a] += X[t].c;
        gs[X[t].s] += 1;
    }
    // insert() sets the value of a key that is there: the largest t of
    // each key, whatever the order (max of the old value and t).
    async for (long t = 0; t < n; t++)
        insert(last, X[t].b, max(last[X[t].b], t));
    long sw = 0;
    long sg = 0;
    long sl = 0;
    for (int k = 0; k < nk; k++) {
        sw += w[k] * (k + 1);
        sl += last[k] * (k + 1);
        if (contains(g, k))
            sg += g[k] * (k + 1) + gs["k" + string(k)];
    }
    print("pass %d: w %d %d, ws %d, h %d, g %d %d, gs %d, last %d\n", e, len(w), sw, len(ws), len(h),
          len(g), sg, len(gs), sl);
}
long s = 0;
for (int k = 0; k < nk; k++)
    s += ws["k" + string(k)] * (k % 13);
long hs = 0;
for (long t = 0; t < n; t++)
    hs += h[t] % 1000003;
print("ws %d h %d\n", s, hs);
// Keys change between invocations with the map's size kept: one erased,
// another inserted; the loop writes the erased one, so it runs serially
// and inserts it again.
for (int e = 0; e < 3; e++) {
    if (e == 1) {
        erase(w, 5);
        w[nk + 5] = 7;
    }
    async for (long t = 0; t < n; t++)
        w[X[t].a] -= 1;
    long sw = 0;
    for (int k = 0; k < nk + 10; k++)
        if (contains(w, k))
            sw += w[k] * (k + 1);
    print("change %d: w %d %d %d\n", e, len(w), sw, contains(w, 5));
}
SAP

cat >keys.expect <<'OUT'
pass 0: w 3000 11940805008, ws 3000, h 40000, g 3000 2883080508, gs 3000, last 173301740500
pass 1: w 3000 14881611016, ws 3000, h 40000, g 3000 5763909516, gs 3000, last 173301740500
ws 23489366 h 8395608
change 0: w 3000 14821592016 1
change 1: w 3001 14761586558 1
change 2: w 3001 14701567558 1
OUT

# A model whose updates read the map at other keys: order matters.
cat >order.sap <<'SAP'
struct E { int a; int b; }
param long n = 30000;
param int nk = 2000;
dvector<E> X(n);
for (long t = 0; t < n; t++) {
    X[t].a = int((t * 7919) % nk);
    X[t].b = int((t * 104729 + 13) % nk);
}
dmap<int, double> w;
for (int k = 0; k < nk; k++)
    w[k] = 1.0 / (k + 1);
for (int e = 0; e < 3; e++)
    async for (long t = 0; t < n; t++) {
        double g = w[X[t].a] - 0.5 * w[X[t].b];
        w[X[t].a] -= 0.1 * g;
        w[X[t].b] += 0.05 * g;
    }
double s = 0;
for (int k = 0; k < nk; k++)
    s += w[k] * (k + 1);
print("checksum %.17g\n", s);
SAP

cat >count.sap <<'SAP'
dvector<string> words(5000);
for (long i = 0; i < len(words); i++)
    words[i] = "w" + string(i * 7919 % 300);
dmap<string, long> freq;
async for (long n = 0; n < len(words); n++) {
    freq[words[n]] += 1;
}
print("%d %d\n", len(freq), freq["w7"]);
SAP

for p in keys order count; do
	"$SAPC" -Wall -Wextra -Werror -o $p $p.sap >cc.log 2>&1 || { cat cc.log; fail "sapc $p.sap"; }
done

for layout in "1 1" "1 2" "2 1" "3 1"; do
	set -- $layout
	$MPIEXEC -n "$1" ./keys --threads="$2" --check-plan >out 2>err ||
		{ cat err; fail "keys on $1 x $2"; }
	diff -u keys.expect out || fail "keys on $1 x $2: sums differ"
	# The loops that insert into g and w warn on more than one worker.
	grep -v "^keys.sap:\(43\|78\):5: warning: async for runs serially" err >other
	test -s other && { cat err; fail "keys on $1 x $2 printed to stderr"; }
done

# What ran how: the site's verdict (of its last invocation) in --stats.
verdict() {
	awk -v site="keys.sap:$1" '$2 == site { for (i = 17; i <= NF; i++) printf "%s%s", $i, i < NF ? " " : "\n" }' "$2"
}
$MPIEXEC -n 1 ./keys --threads=2 --stats >out 2>stats || { cat stats; fail "keys --stats"; }
for line in 32 39 43 49 78; do
	v=$(verdict $line stats)
	test "$v" = planned || { cat stats; fail "the loop at line $line ran '$v', not planned"; }
done
$MPIEXEC -n 1 ./keys --threads=2 --passes=1 --stats >out 2>stats || { cat stats; fail "keys --passes=1"; }
v=$(verdict 43 stats)
case $v in
"serialized: the body inserts keys into g: a key it writes is missing") ;;
*) cat stats; fail "the loop inserting keys of g ran '$v'" ;;
esac
# The warning names every map missing keys: accumulating one of them
# would leave the loop serial.
grep -q "keys.sap:43:5: warning: async for runs serially on 2 workers: the body inserts keys into g, gs (keys it writes are missing); make its updates of them 'accumulate(+: g, gs)'" stats ||
	{ cat stats; fail "the warning does not name g and gs"; }
test "$(verdict 32 stats)" = planned || { cat stats; fail "the first loop did not run planned"; }

# The order a 1 x 2 run took, replayed on one thread: the same bits.
$MPIEXEC -n 1 ./order --threads=2 --check-plan --dump-order=order.bin >planned 2>err ||
	{ cat err; fail "order on 1 x 2"; }
$MPIEXEC -n 1 ./order --threads=2 >again 2>err || { cat err; fail "order on 1 x 2, again"; }
cmp -s planned again || fail "two runs of order on 1 x 2 differ: $(cat planned) $(cat again)"
$MPIEXEC -n 1 ./order --threads=1 --run-order=order.bin >replayed 2>err ||
	{ cat err; fail "order replayed"; }
cmp -s planned replayed || fail "the replay differs: $(cat planned) $(cat replayed)"

# A count that inserts runs serially and says what would not.
$MPIEXEC -n 1 ./count --threads=2 >out 2>err || { cat err; fail "count"; }
test "$(cat out)" = "300 17" || fail "count printed $(cat out)"
grep -q "count.sap:5:1: warning: async for runs serially on 2 workers: the body inserts keys into freq (a key it writes is missing); make its updates of freq 'accumulate(+: freq)', which inserts keys in parallel" err ||
	{ cat err; fail "no warning for the count"; }
test "$(wc -l <err)" -eq 1 || { cat err; fail "more than the one warning"; }
$MPIEXEC -n 1 ./count --threads=2 --quiet-plans >out 2>err || { cat err; fail "count --quiet-plans"; }
test -s err && { cat err; fail "--quiet-plans did not silence the warning"; }
exit 0
