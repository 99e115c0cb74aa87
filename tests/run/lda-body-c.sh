#!/bin/sh
# The C of samples/lda.sap's sweep (loop 3), a tight body of the kind the
# compiler must not slow down against hand-written C (bench/lda.sh): its
# weights p[K], filled by a counted loop before any read, are not zeroed
# per token, and the relaxed totals nk are addressed through a local
# pointer taken once per body call, not through sap_red after every store.
# The body draws only inline (rand() at its own site), so it does not
# point sap_rng_cur at its generator, which keeps the generator out of
# memory that the counts' int stores may alias (tests/run/rng-calls.sap
# checks bodies whose functions draw).  The vectors' buffers are locals
# too, taken once per call, and so is the generator's seed and invocation
# (sap_rng_base), which a store to the counts might change for all cc knows.
# tests/run/lda-twin.sh checks that the results stay the twin's bit for bit.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

"$SAPC" -S -P -o "$tmp/lda.c" "$top_srcdir/samples/lda.sap" || fail "sapc -S"
# The body (sap_loop3_run, which sap_loop3_body calls, or the body
# function itself), from its definition to the next function's.
awk '/^static .*void sap_loop3_(run|body)\(/ { on = 1 }
	on && /^static / && !/sap_loop3_(run|body)\(/ { on = 0 } on' \
	"$tmp/lda.c" >"$tmp/body.c"
[ -s "$tmp/body.c" ] || fail "no sap_loop3_body in the C"
grep -q 'sap_double_20 u_p;' "$tmp/body.c" || fail "p is not declared bare"
grep -q 'u_p = {0}' "$tmp/body.c" && fail "p is zeroed per token"
grep -q 'int32_t \*const sap_acc_u_nk = sap_red->acc_u_nk;' "$tmp/body.c" ||
	fail "nk's buffer is not held in a local"
grep -q 'sap_red->acc_u_nk)\[' "$tmp/body.c" && fail "nk is indexed through sap_red"
grep -q 'sap_rng_cur' "$tmp/body.c" && fail "the body sets sap_rng_cur but calls nothing that draws"
grep -q 'sap_rand_at(&sap_rng_it, 1,' "$tmp/body.c" || fail "the body does not draw inline"
grep -q 'sap_rng_iter(&sap_loop3, sap_i)' "$tmp/body.c" && fail "the body reads the seed per iteration"
grep -q 'sap_rng_index(sap_rng_base, sap_i)' "$tmp/body.c" || fail "no per-call generator base"
for v in tok z ndk nwk; do
	grep -q "char \*const sap_du_$v = u_$v.data;" "$tmp/body.c" || fail "$v's buffer is not held in a local"
done
grep -q 'u_ndk\.data)\[' "$tmp/body.c" && fail "ndk is indexed through u_ndk.data"
exit 0
