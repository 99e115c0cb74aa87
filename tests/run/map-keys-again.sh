#!/bin/sh
# A loop over a map's keys that writes only their values keeps its plan
# while the keys stay: the driver lists the keys anew before every
# invocation, and a list of the same keys is the same input.  Inserting a
# key or erasing one makes a new plan.  Over int and string keys, on 1x2
# threads (planned), and on 1 to 3 ranks; --check-plan audits every
# access against the plan's keys, and the sums are checked against the
# same steps in driver code.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1

cat >ka.sap <<'SAP'
dmap<int, double> m;
dmap<string, double> w;
dmap<int, double> m2;
dmap<string, double> w2;
for (int i = 0; i < 3000; i++) {
    m[i * 7 % 3001] = i;
    m2[i * 7 % 3001] = i;
}
w["apple"] = 1; w["pear"] = 2; w["fig"] = 3;
w2["apple"] = 1; w2["pear"] = 2; w2["fig"] = 3;
for (int step = 0; step < 4; step++) {
    if (step == 2) {
        m[5000] = 1;
        m2[5000] = 1;
    }
    if (step == 3) {
        erase(m, 7);
        erase(m2, 7);
    }
    for (int it = 0; it < 3; it++) {
        // Through a copy of the key, which the compiler does not take
        // for the loop's own (written there, the map would run in
        // chunks with no plan).
        async for (int k : m) {
            int kk = k;
            m[kk] = m[kk] * 0.5 + kk;
        }
        async for (string s : w) {
            string ss = s;
            w[ss] = w[ss] * 2 + 1;
        }
        dvector<int> ks = keys(m2);
        for (long i = 0; i < len(ks); i++)
            m2[ks[i]] = m2[ks[i]] * 0.5 + ks[i];
        dvector<string> ws = keys(w2);
        for (long i = 0; i < len(ws); i++)
            w2[ws[i]] = w2[ws[i]] * 2 + 1;
    }
    if (step == 1) {
        w["kiwi"] = 4;
        w2["kiwi"] = 4;
    }
}
double s = 0;
async for (int k : m) reduce(+: s) { s += m[k]; }
double t = 0;
async for (string k : w) reduce(+: t) { t += w[k]; }
double s2 = 0;
dvector<int> ks = keys(m2);
for (long i = 0; i < len(ks); i++)
    s2 += m2[ks[i]];
double t2 = 0;
dvector<string> ws = keys(w2);
for (long i = 0; i < len(ws); i++)
    t2 += w2[ws[i]];
print("%.17g %.17g %d %d\n", s, t, len(m), len(w));
if (s != s2 || t != t2)
    print("differs from the driver's: %.17g %.17g\n", s2, t2);
SAP
"$SAPC" ka.sap -o ka 2>err || { cat err; fail "sapc"; }
echo "9005743.4992675781 37180 3000 4" >want

./ka --threads=2 --check-plan --stats >out.1x2 2>stats || { cat stats; fail "1x2"; }
cmp want out.1x2 || { cat out.1x2; fail "1x2: the sums"; }
# Loop 1 (int keys): a plan, then one after the insert and one after the
# erase; loop 2 (string keys): a plan, then one after the insert.
awk '$1 == 1 && $3 == 12 && $4 == 3 && $6 == 3 && /planned$/ { a = 1 }
	$1 == 2 && $3 == 12 && $4 == 2 && $6 == 2 && /planned$/ { b = 1 }
	END { exit !(a && b) }' stats || { cat stats; fail "1x2: plans not kept, or kept too long"; }

# Written at the loop's own key, a map needs no plan: chunks of the
# sorted keys (planned, the workers' keys interleaved over the map's
# entries, a pass ran 3 times slower on 2 threads than on one).
cat >own.sap <<'SAP'
dmap<int, double> m;
for (int i = 0; i < 3000; i++)
    m[i * 7 % 3001] = i;
for (int it = 0; it < 3; it++)
    async for (int k : m) {
        m[k] = m[k] * 0.5 + k;
    }
double s = 0;
for (int i = 0; i < 3001; i++)
    s += get(m, i, 0.0);
print("%.17g\n", s);
SAP
"$SAPC" own.sap -o own 2>err || { cat err; fail "sapc own.sap"; }
./own --threads=1 >own.1x1 || fail "own.sap on 1x1"
./own --threads=2 --check-plan --stats >own.1x2 2>stats || { cat stats; fail "own.sap on 1x2"; }
cmp own.1x1 own.1x2 || fail "own.sap: 1x2's sum is not 1x1's"
grep -q '^ *1 own.sap:5 *3 *0 .* chunks$' stats || { cat stats; fail "own.sap: not in chunks"; }

for np in 1 2 3; do
	$MPIEXEC -n "$np" ./ka --threads=1 --check-plan >out.$np 2>err.$np ||
		{ cat err.$np; fail "on $np ranks"; }
	cmp want out.$np || { cat out.$np; fail "on $np ranks: the sums"; }
done
