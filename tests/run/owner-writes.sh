#!/bin/sh
# Owner computes with vectors written at the loop variable (sap_dds.at_own):
# a chunks loop over ranks that runs each iteration where its element is
# made every other vector it writes whole first, though each rank held the
# elements its iterations write (CG's x[i] += alpha p[i]; r[i] -= alpha
# q[i] gathered r every invocation: 1 MB a call for 250k doubles).  The
# vectors are the same bit for bit on every layout, and the loop sends
# nothing on 2 and 3 ranks.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/ow.sap" <<'SAP'
param long n = 100003;
dvector<double> x(n);
dvector<double> p(n);
dvector<double> r(n);
dvector<double> q(n);
async for (long i = 0; i < n; i++) {
    p[i] = double((i * 7919) % 1000) / 1000.0;
    q[i] = 0.5;
}
for (int it = 0; it < 6; it++) {
    async for (long i = 0; i < n; i++) {
        x[i] += 0.25 * p[i];
        r[i] -= 0.75 * q[i];
        q[i] = q[i] * 0.5 + p[i];
    }
    async for (long i = 0; i < n; i++) {
        p[i] = r[i] + 0.125 * p[i];
    }
}
save(x, "x.txt");
save(r, "r.txt");
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o ow ow.sap || fail "sapc ow.sap"
for l in "1 1" "2 1" "3 1" "1 2" "2 2"; do
	set -- $l
	$MPIEXEC -n "$1" ./ow --threads="$2" --stats >"out.$1$2" 2>"err.$1$2" </dev/null ||
		{ cat "err.$1$2"; fail "$1 x $2: the run failed"; }
	for v in x r; do
		mv "$v.txt" "$v.$1$2"
		cmp -s "$v.11" "$v.$1$2" || fail "$1 x $2: $v differs from one worker's"
	done
done
# Loop 2 on 2 and 3 ranks, on every rank: owner computes, nothing sent
# (the 13th column).
for np in 2 3; do
	rows=$(grep "^ *2 [^ ]*ow.sap:11 " "err.${np}1")
	test "$(echo "$rows" | grep -c 'owner computes')" = "$np" ||
		{ cat "err.${np}1"; fail "$np ranks: loop 2 not owner computes on every rank"; }
	sent=$(echo "$rows" | awk '{ print $13 }' | sort -u)
	test "$sent" = 0.00 || fail "$np ranks: loop 2 sent $sent MB: $rows"
done

# The same over a loaded vector, held in parts, that the loop reads at
# the loop variable: the iterations run by its parts (chunks), and a
# vector written there stays there.  r[i] -= c * X[i][j] sent the rank's
# share of r every call (a user sweep's Lasso over dense rows).
awk 'BEGIN { for (i = 0; i < 30011; i++) print (i % 13) * 0.125, (i % 5) - 2 }' >X.txt
awk 'BEGIN { for (i = 0; i < 30011; i++) print (i % 17) * 0.5 }' >y.txt
cat >ol.sap <<'SAP'
dvector<float[2]> X = load("X.txt");
dvector<double> r = load("y.txt");
long n = len(X);
for (int k = 0; k < 20; k++) {
    int j = k % 2;
    double s = 0;
    async for (long i = 0; i < n; i++) reduce(+: s) { s += X[i][j] * r[i]; }
    async for (long i = 0; i < n; i++) { r[i] -= 1e-6 * s * X[i][j]; }
}
save(r, "r.txt");
SAP
"$SAPC" -O2 -o ol ol.sap || fail "sapc ol.sap"
for l in "1 1" "2 1" "3 1" "1 2"; do
	set -- $l
	$MPIEXEC -n "$1" ./ol --threads="$2" --stats >"out.$1$2" 2>"err.$1$2" </dev/null ||
		{ cat "err.$1$2"; fail "ol on $1 x $2: the run failed"; }
	mv r.txt "r.$1$2"
done
cmp -s r.21 r.12 || fail "ol: 2 x 1 differs from 1 x 2"
for np in 2 3; do
	rows=$(grep "^ *2 [^ ]*ol.sap:8 " "err.${np}1")
	sent=$(echo "$rows" | awk '{ print $13 }' | sort -u)
	test "$sent" = 0.00 || fail "ol on $np ranks: loop 2 sent $sent MB: $rows"
done
exit 0
