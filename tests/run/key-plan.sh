#!/bin/sh
# Key-level plans: a loop whose iterations each update 8 elements at keys
# drawn uniformly from its data meets 8 of the 64 blocks per iteration,
# so a plan by blocks is serial; at key level its conflicts are few.
#  - on 1 rank of 2 and 3 threads --stats says "planned (key-level)",
#    built once for both invocations, with balance below 1.1, and no
#    hot-key warning;
#  - the output equals the 1-worker run bit for bit, though the order of
#    two updates of an element matters (X[k] = X[k] / 2 + term); so do
#    the sequential replays of --dump-order (--run-order);
#  - --check-plan finds no conflict;
#  - a relaxed(+: R) variant runs the same plan, the same bits twice;
#  - on 2 and 3 ranks of 1 thread and 2 of 2 the same: a key-level plan
#    on every rank, the output of 1 worker; the relaxed variant's equals
#    1 rank's of as many threads;
#  - so with keys loaded from a file, held in parts over ranks, and with
#    keys in lists loaded from a file (a vector with a holder map, which
#    a planned loop over ranks otherwise fetches by iteration).
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cd "$tmp" || exit 1

cat >kp.sap <<'SAP'
// Each iteration updates 8 elements of X at keys drawn uniformly from
// the data, K: X[k] = X[k] / 2 + a term of i, so the order of two
// updates of one element matters; C[k] += i + j and the reduction s
// are integers, the same in any order.  With --relax, R (2 elements,
// every iteration adds to both) is relaxed(+: R) and read back in X.
param long n = 6000;
param long keys = 20000;
param int epochs = 2;
param bool relax = false;
param string out = "X.txt";
param string cout = "C.txt";
dvector<long> K(8 * n);
async for (long q = 0; q < len(K); q++)
    K[q] = q * 2654435761 % 4294967296 % keys;
dvector<double> X(keys);
dvector<long> C(keys);
dvector<double> R(2);
long s = 0;
for (int ep = 0; ep < epochs; ep++) {
    if (relax) {
        async for (long i = 0; i < n; i++) relaxed(+: R) {
            for (int j = 0; j < 8; j++) {
                long k = K[8 * i + j];
                X[k] = 0.5 * X[k] + 0.001 * R[j % 2] + j;
                R[j % 2] += 0.001 * (i + 1);
            }
        }
    } else {
        async for (long i = 0; i < n; i++) reduce(+: s) {
            for (int j = 0; j < 8; j++) {
                long k = K[8 * i + j];
                X[k] = 0.5 * X[k] + 0.001 * (i + 1) + j;
                C[k] += i + j;
                s += k;
            }
        }
    }
}
print("s = %d\n", s);
save(X, out);
save(C, cout);
SAP
"$SAPC" -O2 -o kp kp.sap || fail "sapc kp.sap"

./kp --threads=1 --out=X.1 --cout=C.1 >out.1 2>err.1 || { cat err.1; fail "1 worker"; }
for t in 2 3; do
	./kp --threads=$t --check-plan --stats --dump-order=order.$t --out=X.$t --cout=C.$t \
		>out.$t 2>stats.$t || { cat stats.$t; fail "$t threads"; }
	# Loop 3, the training loop: key level, one plan for both
	# invocations, the workers busy.
	awk -v t=$t '$1 == 3 && $3 == 2 && $4 == 1 && $6 == 1 && $10 == t && $11 < 1.1 &&
		/planned \(key-level\)$/ { ok = 1 } END { exit !ok }' stats.$t ||
		{ cat stats.$t; fail "$t threads: loop 3 has no key-level plan"; }
	# A plan that keeps the workers busy is no hot-key news.
	! grep -q 'warning' stats.$t || { cat stats.$t; fail "$t threads: a warning"; }
	cmp X.1 X.$t || fail "$t threads: X differs from 1 worker"
	cmp C.1 C.$t || fail "$t threads: C differs from 1 worker"
	cmp out.1 out.$t || fail "$t threads: the reduction differs from 1 worker"
	./kp --threads=1 --run-order=order.$t --out=Xr.$t --cout=Cr.$t >/dev/null 2>err.r ||
		{ cat err.r; fail "replay of the $t-thread order"; }
	cmp X.1 Xr.$t || fail "the replay of the $t-thread order differs"
	for k in 1 2; do
		./kp --relax --threads=$t --check-plan --stats --out=XR.$t.$k >/dev/null 2>stats.r ||
			{ cat stats.r; fail "relaxed on $t threads"; }
		grep -q '^ *2 .*planned (key-level)$' stats.r ||
			{ cat stats.r; fail "relaxed on $t threads: no key-level plan"; }
	done
	cmp XR.$t.1 XR.$t.2 || fail "relaxed on $t threads: two runs differ"
done

# Over ranks the same key-level plan, built on every rank from every
# iteration's keys: the same bits as 1 rank of as many threads.
for pt in 2x1 3x1 2x2; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" ./kp --threads="$t" --check-plan --stats --dump-order=order.$pt \
		--out=X.$pt --cout=C.$pt >out.$pt 2>stats.$pt || { cat stats.$pt; fail "on $pt"; }
	awk -v w=$((np * t)) '$1 == 3 && $3 == 2 && $4 == 1 && $6 == 1 && $10 == w &&
		$11 < 1.1 && /planned \(key-level\)$/ { n++ } END { exit n != '"$np"' }' stats.$pt ||
		{ cat stats.$pt; fail "on $pt: loop 3 has no key-level plan on every rank"; }
	! grep -q 'warning' stats.$pt || { cat stats.$pt; fail "on $pt: a warning"; }
	cmp X.1 X.$pt || fail "on $pt: X differs from 1 worker"
	cmp C.1 C.$pt || fail "on $pt: C differs from 1 worker"
	cmp out.1 out.$pt || fail "on $pt: the reduction differs from 1 worker"
	./kp --threads=1 --run-order=order.$pt --out=Xr.$pt --cout=Cr.$pt >/dev/null 2>err.r ||
		{ cat err.r; fail "replay of the $pt order"; }
	cmp X.1 Xr.$pt || fail "the replay of the $pt order differs"
	$MPIEXEC -n "$np" ./kp --relax --threads="$t" --check-plan --out=XR.$pt \
		>/dev/null 2>err.$pt || { cat err.$pt; fail "relaxed on $pt"; }
done
# Keys loaded from a file and read only as K[i]: over ranks K is held
# in parts, made whole for the key-level plan; the same bits everywhere.
cat >kpl.sap <<'SAP'
struct Keys { long k0; long k1; long k2; long k3; long k4; long k5; long k6; long k7; }
param string data = "keys.txt";
param string out = "L.txt";
dvector<Keys> K = load(data);
dvector<double> X(20000);
for (int ep = 0; ep < 2; ep++) {
    async for (long i = 0; i < len(K); i++) {
        Keys c = K[i];
        X[c.k0] = 0.5 * X[c.k0] + 0.001 * (i + 1);
        X[c.k1] = 0.5 * X[c.k1] + 0.001 * (i + 1) + 1;
        X[c.k2] = 0.5 * X[c.k2] + 0.001 * (i + 1) + 2;
        X[c.k3] = 0.5 * X[c.k3] + 0.001 * (i + 1) + 3;
        X[c.k4] = 0.5 * X[c.k4] + 0.001 * (i + 1) + 4;
        X[c.k5] = 0.5 * X[c.k5] + 0.001 * (i + 1) + 5;
        X[c.k6] = 0.5 * X[c.k6] + 0.001 * (i + 1) + 6;
        X[c.k7] = 0.5 * X[c.k7] + 0.001 * (i + 1) + 7;
    }
}
save(X, out);
SAP
"$SAPC" -O2 -o kpl kpl.sap || fail "sapc kpl.sap"
awk 'BEGIN { s = 12345
	for (i = 0; i < 6000; i++) {
		l = ""
		for (j = 0; j < 8; j++) {
			s = (s * 1103515245 + 12345) % 2147483648
			l = l (j ? " " : "") int(s / 65536) % 20000
		}
		print l
	} }' >keys.txt
./kpl --threads=1 --out=L.1 >/dev/null 2>err.1 || { cat err.1; fail "kpl on 1 worker"; }
for pt in 1x2 2x1 3x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" ./kpl --threads="$t" --check-plan --stats --out=L.$pt \
		>/dev/null 2>stats.$pt || { cat stats.$pt; fail "kpl on $pt"; }
	grep -q '^ *1 .*planned (key-level)$' stats.$pt ||
		{ cat stats.$pt; fail "kpl on $pt: no key-level plan"; }
	cmp L.1 L.$pt || fail "kpl on $pt: X differs from 1 worker"
done
# Keys in lists, loaded: the vector has a holder map and is read only at
# the loop variable, so a planned loop over ranks fetches each rank's
# elements rather than making it whole; the key-level plan slices every
# iteration on every rank, so it must have them all first.  Without
# --check-plan, which makes every vector whole.
cat >kpv.sap <<'SAP'
struct Row { list<long> k; }
param string data = "keys.txt";
param string out = "V.txt";
dvector<Row> K = load(data);
dvector<double> X(20000);
for (int ep = 0; ep < 2; ep++) {
    async for (long i = 0; i < len(K); i++) {
        for (long j = 0; j < len(K[i].k); j++)
            X[K[i].k[j]] = 0.5 * X[K[i].k[j]] + 0.001 * (i + 1) + j;
    }
}
save(X, out);
SAP
"$SAPC" -O2 -o kpv kpv.sap || fail "sapc kpv.sap"
./kpv --threads=1 --out=V.1 >/dev/null 2>err.1 || { cat err.1; fail "kpv on 1 worker"; }
for pt in 2x1 3x1 2x2; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" ./kpv --threads="$t" --stats --out=V.$pt >/dev/null 2>stats.$pt ||
		{ cat stats.$pt; fail "kpv on $pt"; }
	grep -q '^ *1 .*planned (key-level)$' stats.$pt ||
		{ cat stats.$pt; fail "kpv on $pt: no key-level plan"; }
	cmp V.1 V.$pt || fail "kpv on $pt: X differs from 1 worker"
done
# Relaxed results depend on the workers only, not on how they are spread.
cmp XR.2.1 XR.2x1 || fail "relaxed: 2 ranks x 1 thread differs from 1 rank x 2 threads"
cmp XR.3.1 XR.3x1 || fail "relaxed: 3 ranks x 1 thread differs from 1 rank x 3 threads"
exit 0
