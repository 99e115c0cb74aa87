#!/bin/sh
# Hot keys neither go non-deterministic nor serialize silently:
#  - by default a loop whose plan cannot be parallel (every two of its
#    iterations write a common element) runs deterministically, two runs
#    printing the same bits, and rank 0 warns once, at the loop, naming
#    the element most iterations write and its share, or, when no element
#    is hot, how many elements each iteration writes;
#  - --locks (or SAP_LOCKS=1) locks the oversized group, which --stats
#    and the warning call non-deterministic; --no-locks undoes it;
#  - --quiet-plans silences the warning;
#  - a parallel plan (random bipartite keys, as SGDMF's) gets no warning;
#  - a loop the compiler serialized warns once too, with what to do;
#  - an invocation of fewer than 64 iterations does not warn;
#  - hot elements of several DDSs are named in one warning, and of a
#    DDS only added to beside one assigned at the same key, the one
#    assigned is the cause named.
# On 1 to 3 ranks of 1 or 2 threads.  Every two iterations conflicting
# makes the plan serial whatever the scheduler, so the balance is exactly
# the number of workers.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cd "$tmp" || exit 1

# 60% of the iterations write W[0], and the sets of elements they write
# meet pairwise: a 20-iteration cycle of {0, 1, 2} x 3, {0, 3, 4} x 3,
# {0, 5, 6} x 3, {0, 7, 8} x 3, {1, 3, 5, 7} x 4 and {2, 4, 6, 7} x 4,
# so W[1] to W[7] are written by 35% at most.  The first invocation's
# 100000 iterations are sampled (65536 of them, evenly spaced); the next
# ones get a new plan, serial again, which is not news.
cat >hot.sap <<'SAP'
param int n = 2500;
param int epochs = 3;
dvector<double> W(9);

long key(long i, int j) {
    long c = i % 20;
    if (c < 12) {
        long s = c / 3;
        if (j == 0)
            return 0;
        if (j == 1)
            return 2 * s + 1;
        return 2 * s + 2;
    }
    if (c < 16)
        return 2 * j + 1;
    if (j == 3)
        return 7;
    return 2 * j + 2;
}

for (int ep = 0; ep < epochs; ep++) {
    long m = ep == 0 ? 40 * n : n;
    async for (long i = 0; i < m; i++) {
        for (int j = 0; j < 4; j++)
            W[key(i, j)] += 1.0 / (i + 1 + j);
    }
}
for (int k = 0; k < 9; k++)
    print("W[%d] = %.17g\n", k, W[k]);
SAP

# No element is hot: iteration i writes the 12 points of line i % 133 of
# the projective plane over F_11, each on 12 of the 133 lines (9%), and
# any two lines meet; of W, or with --two of W and V.
cat >spread.sap <<'SAP'
param int n = 1330;
param bool two = false;
dvector<double> W(133);
dvector<double> V(133);

// Coordinate c of the k-th of the 133 normalised vectors of F_11^3.
long coord(long k, int c) {
    if (k < 121) {
        if (c == 0)
            return 1;
        if (c == 1)
            return k / 11;
        return k % 11;
    }
    if (k < 132) {
        if (c == 0)
            return 0;
        if (c == 1)
            return 1;
        return k - 121;
    }
    return c == 2 ? 1 : 0;
}

async for (long i = 0; i < n; i++) {
    long l = i % 133;
    for (long p = 0; p < 133; p++)
        if ((coord(l, 0) * coord(p, 0) + coord(l, 1) * coord(p, 1) +
             coord(l, 2) * coord(p, 2)) % 11 == 0) {
            W[p] += 1.0 / (i + 1);
            if (two)
                V[p] -= W[p];
        }
}
double s = 0;
for (int k = 0; k < 133; k++)
    s += (W[k] + V[k]) * (k + 1);
print("checksum %.17g\n", s);
SAP

# SGDMF's shape: users and items drawn at random, so the plan is the
# DSGD one, balanced.
cat >bipartite.sap <<'SAP'
struct Rating { int u; int v; }
dvector<Rating> A(6000);
async for (long i = 0; i < len(A); i++) {
    A[i].u = int(rand_int(300));
    A[i].v = int(rand_int(200));
}
dvector<double> W(300);
dvector<double> H(200);
for (int ep = 0; ep < 2; ep++) {
    async for (long i = 0; i < len(A); i++) {
        Rating r = A[i];
        double e = 1 - W[r.u] * H[r.v];
        W[r.u] += 0.01 * e;
        H[r.v] += 0.01 * e;
    }
}
print("W[0] %.17g H[0] %.17g\n", W[0], H[0]);
SAP

# Keys drawn at random: a new plan every invocation, each serial (every
# iteration writes B[0], which the slice learns by drawing), and one
# warning for them all.
cat >rng.sap <<'SAP'
dvector<double> B(4);
dvector<double> W(100);
for (int ep = 0; ep < 4; ep++) {
    async for (long i = 0; i < 1000; i++) {
        long z = rand_int(1);
        B[z] += 1;
        W[rand_int(len(W))] += B[z];
    }
}
print("B[0] %.17g W[0] %.17g\n", B[0], W[0]);
SAP

# Hot elements of two DDSs, B[0] and C[1], both read: one warning names
# both, and one clause that takes them both out of the plan (an SVD++
# named one, then with it relaxed the next, one run each).
cat >hot2.sap <<'SAP'
dvector<double> B(4);
dvector<double> C(4);
dvector<double> W(100);
dvector<long> k(1000);
async for (long i = 0; i < 1000; i++) {
    B[k[i]] += 1;
    C[k[i] + 1] += B[k[i]];
    W[(i * 37) % 100] += C[k[i] + 1];
}
print("B[0] %.17g C[1] %.17g W[0] %.17g\n", B[0], C[1], W[0]);
SAP

# A count beside a "last seen" index at the same hot key: the warning
# names the index, which the body assigns, as the cause, not the count,
# which it only adds to (it named the count).
# Elements at keys the loop variable does not change, known to the
# compiler: every DDS so written is named (B read, so relaxed; BU only
# added to, so accumulate), where the warning named B, and BU only once B
# was relaxed; a bias among weights the body assigns moves to a dvector
# of its own.
cat >konst.sap <<'SAP'
param bool bias = false;
dvector<double> W(50);
dvector<double> B(1);
dvector<double> BU(1);
dvector<float> w(64);
if (bias) {
    async for (long i = 0; i < 1000; i++) {
        float v = w[i % 50] - float(B[0]);
        if (v > 0.5) w[i % 50] = v - 0.5;
        else w[i % 50] = 0;
        w[63] = w[63] - 0.25;
    }
} else {
    async for (long i = 0; i < 1000; i++) {
        W[i % 50] += B[0];
        B[0] += 0.5;
        BU[0] += i;
    }
}
print("%.17g %.17g %.17g %.17g\n", W[7], B[0], BU[0], w[63]);
SAP

cat >beside.sap <<'SAP'
dvector<long> key(1000);
dvector<long> cnt(8);
dvector<long> last(8);
async for (long i = 0; i < 1000; i++) {
    long b = key[i];
    cnt[b] += 1;
    last[b] = i;
}
print("%d %d\n", cnt[0], last[0]);
SAP

# An SVM by SGD as an async for over loaded examples, a bias feature in
# every one: over ranks the planner finds the hot element on a sample
# before it would make the examples whole on every rank for a key-level
# plan (sap_hot_share); the plan is serial, and so the model is the
# serial loop's on every layout.
cat >svm.sap <<'SAP'
struct F { int j; double v; }
struct Ex { double y; list<F> x; }
dvector<Ex> X = load("svm.txt");
dvector<double> w(64);
for (int ep = 0; ep < 3; ep++) {
    async for (long i = 0; i < len(X); i++) {
        double m = 0;
        for (long k = 0; k < len(X[i].x); k++)
            m += w[X[i].x[k].j] * X[i].x[k].v;
        if (X[i].y * m < 1)
            for (long k = 0; k < len(X[i].x); k++)
                w[X[i].x[k].j] += 0.01 * X[i].y * X[i].x[k].v;
    }
}
double s = 0;
for (int j = 0; j < 64; j++)
    s += w[j] * (j + 1);
print("w[0] %.17g checksum %.17g\n", w[0], s);
SAP
awk 'BEGIN { for (i = 0; i < 3000; i++) {
	printf "%d 0:1", i % 3 == 0 ? -1 : 1
	for (k = 1; k <= 4; k++)
		printf " %d:%.3f", 1 + (i * 7 + k * 13) % 63, ((i * k) % 17) / 17.0
	printf "\n" } }' >svm.txt

# A loop of one iteration, over X's one list, on 2 and 3 ranks: a rank
# with no share of the planner's sample still takes part in its
# collectives (it once waited alone, for ever).
cat >tiny.sap <<'SAP'
dvector<list<int>> X(1);
dvector<long> r(3);
for (int it = 0; it < 3; it++) {
    async for (long j = 0; j < len(X); j++) {
        for (long k = 0; k < len(X[j]); k++)
            r[X[j][k]] += 1;
    }
    push(X[0], 2);
}
print("r %d %d %d\n", r[0], r[1], r[2]);
SAP

# Every iteration writes W[0]: serial, but an invocation of fewer than 64
# iterations is too short to matter, and gets no warning (a Dijkstra's
# relaxing of one vertex's 9 arcs was blamed on an element one of them
# wrote, "11% of its iterations").
cat >short.sap <<'SAP'
param long n = 40;
dvector<double> W(4);
async for (long i = 0; i < n; i++) {
    W[0] += 1;
    W[1 + i % 3] = W[0];
}
print("%g\n", W[0]);
SAP

for p in hot spread bipartite rng hot2 beside svm tiny short; do
	"$SAPC" -o $p $p.sap || fail "sapc $p.sap"
done
./short --threads=2 >short.out 2>short.err || { cat short.err; fail "short"; }
[ -s short.err ] && { cat short.err; fail "short: a warning for 40 iterations"; }
./short --threads=2 --n=64 >short.out 2>short.err || { cat short.err; fail "short, n 64"; }
grep -q "short.sap:3:1: warning: async for runs serially on 2 workers" short.err ||
	{ cat short.err; fail "short: no warning for 64 iterations"; }
for pt in 2x1 3x1; do
	np=${pt%x*} t=${pt#*x}
	timeout 120 $MPIEXEC -n $np ./tiny --threads=$t --quiet-plans >tiny.out 2>tiny.err ||
		{ cat tiny.err; fail "tiny on $pt"; }
	echo "r 0 0 3" | diff - tiny.out || fail "tiny on $pt"
done
./svm --threads=1 --quiet-plans >svm.want 2>svm.err || { cat svm.err; fail "svm on 1x1"; }
for pt in 1x2 2x1 3x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n $np ./svm --threads=$t --quiet-plans >svm.out 2>svm.err ||
		{ cat svm.err; fail "svm on $pt"; }
	diff svm.want svm.out || fail "svm on $pt: not the serial loop's model"
done

# The --stats verdict of a plan that keeps one worker busy at a time.
serial='index-order: its plan keeps one worker busy at a time'
# Relaxed, the DDSs a warning names would leave the loop nothing to plan.
whole="stale by a whole pass: with nothing else to plan, the loop would run in chunks,"
whole="$whole each worker reading the values of the loop's start plus its own updates (sap(7))"
hot_warning() {
	echo "hot.sap:24:5: warning: async for runs $1: 60% of its iterations write W[0];" \
		"make its updates of W 'accumulate(+: W)'$2"
}

for pt in 1x1 1x2 2x1 2x2 3x1 3x2; do
	np=${pt%x*} t=${pt#*x}
	w=$((np * t))
	# shellcheck disable=SC2086
	$MPIEXEC -n $np ./hot --threads=$t --stats >hot.$pt.out 2>hot.$pt.err ||
		{ cat hot.$pt.err; fail "hot on $pt"; }
	# shellcheck disable=SC2086
	$MPIEXEC -n $np ./hot --threads=$t >hot.$pt.out2 2>hot.$pt.err2 ||
		{ cat hot.$pt.err2; fail "hot rerun on $pt"; }
	cmp hot.$pt.out hot.$pt.out2 || fail "hot: two runs on $pt print different results"
	grep 'warning' hot.$pt.err >warned
	if [ $w = 1 ]; then
		# One worker runs in index order: no plan, nothing to say.
		[ -s warned ] && { cat hot.$pt.err; fail "hot on $pt: a warning on one worker"; }
		continue
	fi
	if [ $np = 1 ]; then
		hot_warning "serially on $w workers (balance $w.0)" \
			", or run with --locks (not deterministic)" >want
	else
		hot_warning "serially on $w workers (balance $w.0)" "" >want
	fi
	diff want warned || { cat hot.$pt.err; fail "hot on $pt: not the one warning expected"; }
	grep 'warning' hot.$pt.err2 | diff want - || fail "hot on $pt: the rerun warns differently"
	# Such a plan runs in index order on one worker, over ranks on every
	# rank (sap-run(1)).
	v=$serial
	[ $np = 1 ] || v="$v, on every rank: as one worker runs them"
	grep -q "^ *1 hot.sap:24 .* $v\$" hot.$pt.err ||
		{ cat hot.$pt.err; fail "hot on $pt: not in index order"; }
	grep -q 'locked' hot.$pt.err && { cat hot.$pt.err; fail "hot on $pt: locked by default"; }

	# shellcheck disable=SC2086
	$MPIEXEC -n $np ./spread --threads=$t >spread.$pt.out 2>spread.$pt.err ||
		{ cat spread.$pt.err; fail "spread on $pt"; }
	# shellcheck disable=SC2086
	$MPIEXEC -n $np ./spread --threads=$t >spread.$pt.out2 2>/dev/null || fail "spread rerun on $pt"
	cmp spread.$pt.out spread.$pt.out2 || fail "spread: two runs on $pt print different results"
	locks=", or run with --locks (not deterministic)"
	[ $np = 1 ] || locks=
	echo "spread.sap:25:1: warning: async for runs serially on $w workers (balance $w.0):" \
		"no element is written by more than 9% of its iterations, but they write 12.0" \
		"elements each on average, so every task group shares blocks with the others;" \
		"make its updates of W 'relaxed(+: W)', if the algorithm tolerates" \
		"reading W $whole$locks" >want
	diff want spread.$pt.err || fail "spread on $pt: not the one warning expected"

	# shellcheck disable=SC2086
	$MPIEXEC -n $np ./bipartite --threads=$t --stats >bip.$pt.out 2>bip.$pt.err ||
		{ cat bip.$pt.err; fail "bipartite on $pt"; }
	grep -q 'planned' bip.$pt.err || { cat bip.$pt.err; fail "bipartite on $pt: not planned"; }
	grep 'warning' bip.$pt.err && fail "bipartite on $pt: a warning for a parallel plan"
done

for pt in 1x2 2x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n $np ./rng --threads=$t --stats >rng.out 2>rng.err || { cat rng.err; fail "rng on $pt"; }
	v=$serial
	[ $np = 1 ] || v="$v, on every rank: as one worker runs them"
	grep -q "^ *1 rng.sap:4 *4 *4 .*$v\$" rng.err ||
		{ cat rng.err; fail "rng on $pt: not planned 4 times"; }
	locks=", or run with --locks (not deterministic)"
	[ $np = 1 ] || locks=
	echo "rng.sap:4:5: warning: async for runs serially on 2 workers (balance 2.0):" \
		"100% of its iterations write B[0];" \
		"make its updates of B 'relaxed(+: B)', if the algorithm tolerates" \
		"reading B a round stale, where a round is one of the plan the loop still makes" \
		"for its writes of W (a whole pass if those never meet; sap(7))$locks" >want
	grep warning rng.err | diff want - || fail "rng on $pt: not the one warning expected"
done

# Of two DDSs added to, one also read (W): relaxed for W (accumulate
# would not take it), accumulate for V, which relaxed would have the body
# read stale for nothing.
$MPIEXEC -n 1 ./spread --threads=2 --two >/dev/null 2>two.err || fail "spread --two"
echo "spread.sap:25:1: warning: async for runs serially on 2 workers (balance 2.0):" \
	"no element is written by more than 9% of its iterations, but they write 24.0" \
	"elements each on average, so every task group shares blocks with the others;" \
	"take the additive updates out of the plan with 'relaxed(+: W)', and those of V" \
	"'accumulate(+: V)', if the algorithm tolerates reading W $whole, or run with" \
	"--locks (not deterministic)" >want
diff want two.err || fail "spread --two: not the one warning expected"
for pt in 1x2 2x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n $np ./hot2 --threads=$t >hot2.out 2>hot2.err || { cat hot2.err; fail "hot2 on $pt"; }
	grep -qx 'B\[0\] 1000 C\[1\] 500500 W\[0\] 1431760' hot2.out ||
		fail "hot2 on $pt printed $(cat hot2.out)"
	locks=", or run with --locks (not deterministic)"
	[ $np = 1 ] || locks=
	echo "hot2.sap:5:1: warning: async for runs serially on 2 workers (balance 2.0):" \
		"100% of its iterations write B[0] and 100% C[1]; make their updates" \
		"'relaxed(+: B, C)', if the algorithm tolerates reading them a round stale," \
		"where a round is one of the plan the loop still makes for its writes of W" \
		"(a whole pass if those never meet; sap(7))$locks" >want
	grep warning hot2.err | diff want - || fail "hot2 on $pt: not the one warning expected"
done

$MPIEXEC -n 1 ./beside --threads=2 >beside.out 2>beside.err || { cat beside.err; fail "beside"; }
grep -qx '1000 999' beside.out || fail "beside printed $(cat beside.out)"
echo "beside.sap:4:1: warning: async for runs serially on 2 workers (balance 2.0):" \
	"100% of its iterations write cnt[0] and 100% last[0]; the body changes last" \
	"other than by adding to its elements ('last[k] += x': it assigns them, pushes to" \
	"them or inserts keys), so neither accumulate nor relaxed applies to last as it is" \
	"written: if the body only adds to that element (a bias kept among the weights)," \
	"keep it in a dvector of its own, whose updates 'relaxed(+: ...)' or" \
	"'accumulate(+: ...)' take out of the plan; else spread its writes over more" \
	"elements, or run with --locks (not deterministic)" >want
diff want beside.err || fail "beside: not the one warning expected"

"$SAPC" -o konst konst.sap || fail "sapc konst.sap"
$MPIEXEC -n 1 ./konst --threads=2 >konst.out 2>konst.err || { cat konst.err; fail "konst"; }
echo "konst.sap:14:5: warning: async for runs serially on 2 workers: every iteration" \
	"that writes B writes B[0]; those that write BU, BU[0]; make their updates" \
	"'relaxed(+: B)', and those of BU 'accumulate(+: BU)', if the algorithm tolerates" \
	"reading B a round stale, where a round is one of the plan the loop still makes for" \
	"its writes of W (a whole pass if those never meet; sap(7))" >want
diff want konst.err || fail "konst: not the one warning expected"
$MPIEXEC -n 1 ./konst --threads=2 --bias >konst.out 2>konst.err || { cat konst.err; fail "konst --bias"; }
echo "konst.sap:7:5: warning: async for runs serially on 2 workers: every iteration" \
	"that writes w writes w[63]; the body changes w other than by adding to its" \
	"elements ('w[k] += x': it assigns them, pushes to them or inserts keys), so" \
	"neither accumulate nor relaxed applies to w as it is written: if the body only" \
	"adds to that element (a bias kept among the weights), keep it in a dvector of its" \
	"own, whose updates 'relaxed(+: ...)' or 'accumulate(+: ...)' take out of the" \
	"plan; else spread its writes over more elements" >want
diff want konst.err || fail "konst --bias: not the one warning expected"

# With --locks on and no group to lock (one key in every iteration), it
# is no advice.
$MPIEXEC -n 1 ./rng --threads=2 --locks >/dev/null 2>rngl.err || fail "rng --locks"
echo "rng.sap:4:5: warning: async for runs serially on 2 workers (balance 2.0):" \
	"100% of its iterations write B[0]; make its updates of B 'relaxed(+: B)', if the" \
	"algorithm tolerates reading B a round stale, where a round is one of the plan the" \
	"loop still makes for its writes of W (a whole pass if those never meet; sap(7))" >want
grep warning rngl.err | diff want - || fail "rng --locks: not the one warning expected"

# --locks, or SAP_LOCKS=1, locks the group: said by the warning and --stats.
hot_warning "locked on 2 workers (not deterministic)" \
	" to run it in parallel deterministically" >want
$MPIEXEC -n 1 ./hot --threads=2 --locks --stats >/dev/null 2>locks.err || fail "hot --locks"
grep warning locks.err | diff want - || { cat locks.err; fail "hot --locks: not the one warning expected"; }
grep -q "^ *1 hot.sap:24 .* locked (non-deterministic)\$" locks.err ||
	{ cat locks.err; fail "hot --locks: not locked"; }
SAP_LOCKS=1 $MPIEXEC -x SAP_LOCKS -n 1 ./hot --threads=2 --stats >/dev/null 2>locks.err ||
	fail "hot with SAP_LOCKS=1"
grep -q "^ *1 hot.sap:24 .* locked (non-deterministic)\$" locks.err ||
	{ cat locks.err; fail "SAP_LOCKS=1: not locked"; }
SAP_LOCKS=1 $MPIEXEC -x SAP_LOCKS -n 1 ./hot --threads=2 --no-locks --stats >/dev/null 2>locks.err ||
	fail "hot with SAP_LOCKS=1 --no-locks"
grep -q "^ *1 hot.sap:24 .* $serial\$" locks.err ||
	{ cat locks.err; fail "SAP_LOCKS=1 --no-locks: not planned"; }
$MPIEXEC -n 1 ./hot --threads=2 --locks --no-locks --stats >/dev/null 2>locks.err ||
	fail "hot --locks --no-locks"
grep -q "^ *1 hot.sap:24 .* $serial\$" locks.err ||
	{ cat locks.err; fail "--locks --no-locks: not planned"; }

# --quiet-plans, and the results stay those of the default.
$MPIEXEC -n 2 ./hot --threads=1 --quiet-plans >quiet.out 2>quiet.err || fail "hot --quiet-plans"
[ -s quiet.err ] && { cat quiet.err; fail "--quiet-plans still warns"; }
cmp quiet.out hot.2x1.out || fail "--quiet-plans changed the results"

# A loop the compiler serialized (every iteration that writes cnt writes
# cnt[0]) warns too, once, with what would take the updates out (for
# last, only assigned, a reduce variable): on one
# worker, and with --quiet-plans, nothing.  (last[0] written under an
# if, by a few iterations, is the slice's to record: no longer serial.)
cat >ser.sap <<'SAP'
dvector<double> w(1000);
dvector<long> cnt(2);
dvector<long> last(2);
for (int ep = 0; ep < 3; ep++) {
    async for (long i = 0; i < 4000; i++) {
        w[(i * 7919) % 1000] += 1;
        cnt[0] += 1;
    }
    async for (long i = 0; i < 4000; i++) {
        last[0] = i;
    }
}
print("%d %d\n", cnt[0], last[0]);
SAP
"$SAPC" -o ser ser.sap || fail "sapc ser.sap"
for pt in 1x1 1x2 2x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n $np ./ser --threads=$t >ser.out 2>ser.err || { cat ser.err; fail "ser on $pt"; }
	test "$(cat ser.out)" = "12000 3999" || fail "ser on $pt: printed $(cat ser.out)"
	if [ $pt = 1x1 ]; then
		[ -s ser.err ] && { cat ser.err; fail "ser on one worker: a warning"; }
		continue
	fi
	{
		echo "ser.sap:5:5: warning: async for runs serially on 2 workers: every iteration" \
			"that writes cnt writes cnt[0]; make its updates of cnt 'accumulate(+: cnt)'"
		echo "ser.sap:9:5: warning: async for runs serially on 2 workers: every iteration" \
			"that writes last writes last[0]; the body only assigns last, at constant keys," \
			"and never reads it: if it is a flag or a total, a driver variable in a" \
			"reduce(max: ...) or reduce(+: ...) clause of the loop holds it without" \
			"serializing the loop"
	} >want
	diff want ser.err || fail "ser on $pt: not the two warnings expected"
	$MPIEXEC -n $np ./ser --threads=$t --quiet-plans >/dev/null 2>ser.err || fail "ser --quiet-plans"
	[ -s ser.err ] && { cat ser.err; fail "ser on $pt: --quiet-plans still warns"; }
done

# A Gauss-Seidel sweep writes one element an iteration, but every
# iteration reads all of x: the warning blames the reads, names the
# fix that removes them and does not offer --locks, which keeps them.
cat >gs.sap <<'SAP'
param int p = 64;
dvector<double> x(p) = 1.0;
for (int sweep = 0; sweep < 3; sweep++) {
    async for (long j = 0; j < p; j++) {
        double s = 0;
        for (long k = 0; k < p; k++)
            if (k != j)
                s += x[k];
        x[j] = 0.5 * x[j] + s / (4 * p);
    }
}
print("%.17g\n", x[0] + x[p - 1]);
SAP
"$SAPC" -o gs gs.sap || fail "sapc gs.sap"
./gs >gs.want 2>gs.err || fail "gs on one worker"
for pt in 1x2 2x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n $np ./gs --threads=$t >gs.out 2>gs.err || { cat gs.err; fail "gs on $pt"; }
	echo "gs.sap:4:5: warning: async for runs serially on 2 workers (balance 2.0):" \
		"its iterations each read 64.0 elements of x on average, which the loop writes" \
		"(100% of them read x[0]), so each conflicts with the others; if the algorithm" \
		"allows, read the values x had before the loop from a copy the loop does not" \
		"write (a Jacobi sweep rather than Gauss-Seidel), and the iterations no longer" \
		"conflict" >want
	diff want gs.err || fail "gs on $pt: not the warning expected"
done
exit 0
