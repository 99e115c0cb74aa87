#!/bin/sh
# The ranks add their workers' terms of a dense sync for merge and of an
# accumulate buffer in a chain that moves the vector in pieces of whole
# elements (sap_chain_sum).  Here the vectors span several pieces, with
# elements of 24 bytes, which do not divide a piece, and the terms expose
# rounding (2^53, then ones), so a piece added out of place or out of
# worker order changes the printed bits: 1 x 2 must equal 2 x 1, and so
# on, element by element.  13 items on 3 x 2 workers leave ranks 1 and 2
# without a batch in the last step, so the total passes through them.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/chain.sap" <<'SAP'
long n = 50000;                 // 1.2 MB of double[3]: five pieces
dvector<double> it(13);
for (long i = 0; i < 13; i++)
    it[i] = i == 0 ? 9007199254740992.0 : 1.0;
dvector<double[3]> V(n);
sync for (double x : it) with (bsp, batch = 1, merge(V) = sum, recon = off) {
    for (long j = 0; j < n; j++)
        for (int c = 0; c < 3; c++)
            V[j][c] += x * (1 + (j + c) % 5);
}
dvector<double[3]> A(n);
async for (long i = 0; i < 13; i++) accumulate(+: A) {
    for (long j = 0; j < n; j++)
        for (int c = 0; c < 3; c++)
            A[j][c] += it[i] * (1 + (j * 3 + c) % 7);
}
for (long j = 0; j < n; j++)
    print("%d %.17g %.17g %.17g %.17g %.17g %.17g\n", j, V[j][0], V[j][1], V[j][2],
          A[j][0], A[j][1], A[j][2]);
SAP
"$SAPC" -O2 -o "$tmp/chain" "$tmp/chain.sap" || fail "sapc chain.sap"

run() {
	$MPIEXEC --bind-to none -n "$1" "$tmp/chain" --threads="$2" \
		>"$tmp/$1.$2" 2>"$tmp/$1.$2.err" || { cat "$tmp/$1.$2.err"; fail "$1 ranks x $2 threads"; }
	test "$(wc -l <"$tmp/$1.$2")" -eq 50000 || fail "$1 ranks x $2 threads: not 50000 lines"
}

for pt in 1.1 1.2 2.1 1.3 3.1 1.6 3.2; do
	run "${pt%.*}" "${pt#*.}"
done
# The terms expose rounding: two workers round differently from one.
cmp -s "$tmp/1.1" "$tmp/1.2" && fail "the terms expose no rounding"
for pair in "1.2 2.1" "1.3 3.1" "1.6 3.2"; do
	set -- $pair
	cmp "$tmp/$1" "$tmp/$2" || { diff "$tmp/$1" "$tmp/$2" | head; fail "$1 and $2 (ranks.threads) differ"; }
done
exit 0
