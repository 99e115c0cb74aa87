#!/bin/sh
# samples/sgdmf-adaptive.sap (LIBMF's per-row learning rates) and its
# serial twin, samples/baselines/sgdmf.c --adaptive=true, train the same
# model bit for bit on one worker: the same printed RMSEs and W file.  On
# 1-3 ranks and 2 threads the runs are deterministic for a given layout,
# the same for 1 x 2 and 2 x 1, and end within 2 % of the twin's test RMSE
# after 20 passes (on these 20000 ratings another order of the updates
# moves it by about 1 %).
set -u
: "${SAPC:?must be set}" "${MPIEXEC:?must be set}" "${top_srcdir:?must be set}" \
	"${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp

"$top_builddir/tools/genratings" --users=400 --items=300 --ratings=20000 \
	--test=2000 --rank=8 --seed=11 --out="$tmp/train.txt" --test-out="$tmp/test.txt" ||
	fail "genratings"
k=$(sed -n 's/^const int K = \([0-9]*\);$/\1/p' "$top_srcdir/samples/sgdmf-adaptive.sap")
[ -n "$k" ] || fail "no K in samples/sgdmf-adaptive.sap"
"$SAPC" -O2 -o "$tmp/sap" "$top_srcdir/samples/sgdmf-adaptive.sap" || fail "sapc"
${CC:-cc} -std=c11 -O2 -DK="$k" -o "$tmp/twin" "$top_srcdir/samples/baselines/sgdmf.c" -lm ||
	fail "could not compile samples/baselines/sgdmf.c"

set -- --data="$tmp/train.txt" --test="$tmp/test.txt" --iters=20 --seed=4
"$tmp/twin" --adaptive=true "$@" --out="$tmp/W-c.txt" >"$tmp/c.out" || fail "the twin failed"
[ "$(grep -c '^iter [0-9]* train_rmse [0-9.]* test_rmse [0-9.]*' "$tmp/c.out")" = 20 ] ||
	fail "the twin printed an unexpected report: $(cat "$tmp/c.out")"
$MPIEXEC -n 1 "$tmp/sap" "$@" --threads=1 --out="$tmp/W-1x1.txt" >"$tmp/1x1.out" ||
	fail "the SAP program failed on 1 x 1"
strip_time "$tmp/c.out" >"$tmp/c.rmse"
strip_time "$tmp/1x1.out" | cmp -s - "$tmp/c.rmse" ||
	fail "the reports differ: $(strip_time "$tmp/1x1.out" | diff "$tmp/c.rmse" - | head -6)"
cmp -s "$tmp/W-c.txt" "$tmp/W-1x1.txt" || fail "the W files differ on 1 x 1"

twin_rmse=$(tail -n 1 "$tmp/c.rmse" | awk '{ print $NF }')
for pt in 1x2 2x1 3x1 2x2; do
	np=${pt%x*} t=${pt#*x}
	for run in a b; do
		$MPIEXEC -n "$np" "$tmp/sap" "$@" --threads="$t" --out="$tmp/W-$pt$run.txt" \
			>"$tmp/$pt$run.out" || fail "the SAP program failed on $pt"
	done
	cmp -s "$tmp/W-${pt}a.txt" "$tmp/W-${pt}b.txt" || fail "two runs on $pt differ"
	rmse=$(tail -n 1 "$tmp/${pt}a.out" | sed 's/.* test_rmse \([0-9.]*\).*/\1/')
	awk -v a="$rmse" -v b="$twin_rmse" 'BEGIN { exit !(a <= b * 1.02) }' ||
		fail "$pt ends at test RMSE $rmse, more than 2 % above the twin's $twin_rmse"
done
cmp -s "$tmp/W-1x2a.txt" "$tmp/W-2x1a.txt" || fail "1 x 2 and 2 x 1 differ"
exit 0
