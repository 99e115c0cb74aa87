#!/bin/sh
# What the chunked loops after a planned one move between ranks.
# samples/lasso.sap on 2 ranks, on banded data (tools/genlasso, spread
# 0.0005): the features' loop writes the residual r and the coefficients
# b by a plan of two halves; the loops that sum r's squares and b's norm
# after every sweep read r[i] and b[j] at their loop variable, in chunks.
#  - each half of the plan runs on the rank whose even share of r holds
#    its rows (the planner puts a group on the worker whose share of the
#    keys its block is in), so the elements the chunks read are mostly
#    where they were written;
#  - a chunk loop fetches only its chunk of a vector it reads at the
#    loop variable, not the whole vector.
# Together: over 4 sweeps the sum of squares moves less than a tenth of
# r (1.6 MB) a sweep, where making r whole moved half of it every sweep.
# The count comes from --stats, which is exact, not a timing.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

if test -z "${SAPC:-}" || test ! -x "$SAPC"; then
	echo "SKIP: no sapc (SAPC='${SAPC:-}')"
	exit 77
fi
: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/chunk-traffic.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

"$top_builddir/tools/genlasso" --rows=200000 --features=100000 --nnz=10 --spread=0.0005 \
	--out="$tmp/X.txt" --y-out="$tmp/y.txt" --beta-out="$tmp/b.txt" || fail "genlasso"
"$SAPC" -O2 -o "$tmp/lasso" "$top_srcdir/samples/lasso.sap" || fail "sapc lasso.sap"
timeout 300 $MPIEXEC -n 2 "$tmp/lasso" --threads=1 --data="$tmp/X.txt" --y="$tmp/y.txt" \
	--lambda=0.01 --sweeps=4 --out="$tmp/beta.txt" --stats >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "lasso on 2 ranks"; }
# The sum of squares: the loop at samples/lasso.sap's 'rss += r[i] * r[i]'.
line=$(grep -n 'rss += r\[i\] \* r\[i\]' "$top_srcdir/samples/lasso.sap" | cut -d: -f1)
loop=$((line - 1))
sent=$(awk -v site="lasso.sap:$loop" '$2 ~ site"$" { print $13; exit }' "$tmp/err")
test -n "$sent" || { cat "$tmp/err"; fail "no --stats line for lasso.sap:$loop"; }
awk -v s="$sent" 'BEGIN { exit !(s < 4 * 0.16) }' ||
	fail "the sum of squares sent $sent MB over 4 sweeps (r is 1.6 MB)"
exit 0
