#!/bin/sh
# samples/sgdmf.sap and the serial program it was ported from,
# samples/baselines/sgdmf.c, must train the same model bit for bit: same
# printed RMSEs and a byte-identical W file.  Both are built at -O2 with no
# -march flags: on x86-64 that leaves no FMA for either to contract a*b+c
# into, which would round differently.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.
# Exit status: 0 pass, 1 fail, 77 skip.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

"$top_builddir/tools/genratings" --users=300 --items=200 --ratings=8000 \
	--test=800 --rank=8 --seed=5 \
	--out="$tmp/train.txt" --test-out="$tmp/test.txt" ||
	fail "genratings"

"$SAPC" -O2 -o "$tmp/sgdmf" "$top_srcdir/samples/sgdmf.sap" ||
	fail "sapc could not compile samples/sgdmf.sap"
${CC:-cc} -std=c11 -O2 -o "$tmp/sgdmf-c" \
	"$top_srcdir/samples/baselines/sgdmf.c" -lm ||
	fail "could not compile samples/baselines/sgdmf.c"

# A seed other than the default checks that --seed reaches the initialisers.
set -- --data="$tmp/train.txt" --test="$tmp/test.txt" --iters=5 --seed=3
"$tmp/sgdmf-c" "$@" --out="$tmp/W-c.txt" >"$tmp/out-c.txt" ||
	fail "the C baseline failed"
# $MPIEXEC unquoted: it may carry its own options.  One thread runs the
# iterations in index order, the serial program's order.
$MPIEXEC -n 1 "$tmp/sgdmf" "$@" --threads=1 --out="$tmp/W-sap.txt" >"$tmp/out-sap.txt" ||
	fail "the SAP program failed"

# Guard against passing on two equally empty runs.
if test "$(grep -c '^iter [0-9]* train_rmse ' "$tmp/out-c.txt")" != 5 ||
	! grep -q '^test_rmse ' "$tmp/out-c.txt" || ! test -s "$tmp/W-c.txt"; then
	fail "the C baseline printed an unexpected report"
fi

status=0
if ! cmp -s "$tmp/out-c.txt" "$tmp/out-sap.txt"; then
	echo "FAIL: the printed reports differ (< C baseline, > SAP):"
	diff "$tmp/out-c.txt" "$tmp/out-sap.txt"
	status=1
fi
if ! cmp -s "$tmp/W-c.txt" "$tmp/W-sap.txt"; then
	echo "FAIL: the W files differ: C baseline $(wc -l <"$tmp/W-c.txt") rows," \
		"SAP $(wc -l <"$tmp/W-sap.txt") rows; the first differing rows:"
	awk -v sap="$tmp/W-sap.txt" '
		{ if ((getline s <sap) <= 0) s = "(none)" }
		$0 != s && shown++ < 3 {
			print "row " NR - 1 ":\n  C:   " $0 "\n  SAP: " s
		}' "$tmp/W-c.txt"
	status=1
fi

# The training RMSE from a pass of its own after each epoch: the same in
# both, and not the RMSE the updates saw.
set -- --data="$tmp/train.txt" --iters=3 --seed=3 --rmse_pass=true
"$tmp/sgdmf-c" "$@" --out="$tmp/W-c2.txt" >"$tmp/pass-c.txt" ||
	fail "the C baseline failed with --rmse_pass=true"
$MPIEXEC -n 1 "$tmp/sgdmf" "$@" --threads=1 --out="$tmp/W-sap2.txt" >"$tmp/pass-sap.txt" ||
	fail "the SAP program failed with --rmse_pass=true"
if ! cmp -s "$tmp/pass-c.txt" "$tmp/pass-sap.txt"; then
	echo "FAIL: the reports with --rmse_pass=true differ (< C baseline, > SAP):"
	diff "$tmp/pass-c.txt" "$tmp/pass-sap.txt"
	status=1
fi
head -n 3 "$tmp/out-c.txt" | cmp -s - "$tmp/pass-c.txt" &&
	fail "--rmse_pass=true prints the RMSE of the update pass"
test $status = 0 && echo "PASS: same report and same W, bit for bit"
exit $status
