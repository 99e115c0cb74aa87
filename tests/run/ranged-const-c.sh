#!/bin/sh
# The C of array loops with constant ends: a key affine in the counter
# with constant coefficients is left to cc, which proves it in range and
# drops its check before it unrolls the loop.  A range flag there (the
# ranged loops of tests/run/ranged-keys.sap), though it folds to true,
# was folded too late: SGDMF's K = 16 loops came out half-vectorised and
# its two-thread step ran 1.7x slower.  A loop whose end is a param, or a
# key with a variable in it, keeps its flag.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

cat >"$tmp/a.sap" <<'SAP'
const int K = 16;
param int m = 8;
param int off = 2;
dvector<float[K]> W(100);
dvector<float[K]> H(100);
async for (long n = 0; n < 100; n++) {
    for (int k = 0; k < K; k++) {
        W[n][k] = 0.5;
        H[n][k] = 0.25;
    }
}
double t = 0;
async for (long n = 0; n < 100; n++) reduce(+: t) {
    float w[K];
    for (int k = 0; k < K; k++)
        w[k] = W[n][k];
    for (int k = 0; k < 16; k++)
        W[n][k] += 0.1 * (H[n][k] - w[k]);
    for (int k = 0; k < m; k++)
        t += w[k];
    for (long k = 0; k < 4; k++)
        t += w[k + off];
}
print("%.4f\n", t);
SAP
"$SAPC" -S -o "$tmp/a.c" "$tmp/a.sap" || fail "sapc -S"
awk '/^static .* void sap_loop[0-9]+_run\(/ { on = 1 } on && /^}/ { on = 0 } on' "$tmp/a.c" >"$tmp/run.c"
grep -q 'sap_loop[0-9]*_run(' "$tmp/run.c" || fail "no loop body in the C"
# Two flags: the loop to m and the key k + off.
n=$(grep -o 'const bool sap_in[0-9]* = ' "$tmp/run.c" | wc -l)
test "$n" -eq 2 || { grep -o 'const bool sap_in[0-9]* = [^;]*;' "$tmp/run.c"; fail "$n range flags, expected 2"; }
grep -q "sap_affine_in(1, 0, u_k[_0-9]*, (int64_t)(u_m), 16)" "$tmp/run.c" ||
	fail "the loop to m has no range test"
"$SAPC" -o "$tmp/a" "$tmp/a.sap" || fail "sapc"
out=$("$tmp/a") || fail "the program failed"
test "$out" = "600.0000" || fail "printed $out, expected 600.0000"
exit 0
