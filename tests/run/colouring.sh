#!/bin/sh
# Key-level plans by colouring, and plan-order copies of elements holding
# lists: samples/lasso.sap on columns over uniformly random rows
# (tools/genlasso --spread=1: 20000 columns of 8 of 10000 rows, each row
# in some 16 columns).  Every column meets 8 scattered blocks of the
# residual, so a plan by blocks is serial; in index order the conflicts
# chain into a wavefront of hundreds of rounds; the colouring (each
# column in the first round where none it shares a row with is) takes
# some 40.
#  - on 1 rank of 2 and 3 threads --stats says "planned (key-level
#    colouring)" for the features' loop, built once for every sweep,
#    --check-plan finds no conflict, and there is no warning;
#  - the plan-order copies hold the columns' lists (X is 2.4 MB with
#    them), not only the flat vectors (0.3 MB);
#  - the memory table counts the lists load laid out for X: 12 bytes an
#    entry { int row; double v; } (a packed struct), each list rounded
#    up to 8 bytes;
#  - the coefficients are the same bits on 1 x 2, 1 x 3, 2 x 1, 3 x 1
#    and 2 x 2 ranks x threads (the colouring does not depend on the
#    workers, which only cut its rounds), and in the sequential replays
#    of --dump-order (--run-order);
#  - the final objective is within 1e-11 of 1 worker's (another
#    serializable order of coordinate descent, converged: see
#    lasso-sample.sh).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cd "$tmp" || exit 1
"$top_builddir/tools/genlasso" --rows=10000 --features=20000 --nnz=8 --spread=1 \
	--support=2000 --noise=1 --seed=7 --out=X.txt --y-out=y.txt || fail "genlasso"
"$SAPC" -O2 -o lasso "$top_srcdir/samples/lasso.sap" || fail "sapc samples/lasso.sap"
loop=$(grep -n 'async for (long j = 0; j < p; j++) {$' "$top_srcdir/samples/lasso.sap" |
	cut -d : -f 1)
test -n "$loop" || fail "cannot find the features' loop in samples/lasso.sap"
set -- --data=X.txt --y=y.txt --lambda=0.5 --sweeps=40

objective() {
	sed -n 's/^sweep 40 objective \([^ ]*\) .*/\1/p' "$1"
}

./lasso "$@" --threads=1 --out=b.1 >out.1 2>err.1 || { cat err.1; fail "1 worker"; }
f1=$(objective out.1)
test -n "$f1" || { cat out.1; fail "1 worker: no objective after 40 sweeps"; }

for t in 2 3; do
	./lasso "$@" --threads=$t --check-plan --stats --dump-order=order.$t --out=b.$t \
		>out.$t 2>stats.$t || { cat stats.$t; fail "$t threads"; }
	# Built once for the 40 sweeps, every worker busy.
	awk -v s="lasso.sap:$loop" -v t=$t 'index($2, s) && $3 == 40 && $6 == 1 && $10 == t &&
		$11 < 1.1 && /planned \(key-level colouring\)$/ { ok = 1 } END { exit !ok }' stats.$t ||
		{ cat stats.$t; fail "$t threads: the features' loop has no colouring plan"; }
	! grep -q 'warning' stats.$t || { cat stats.$t; fail "$t threads: a warning"; }
	awk '/^Plan-order copies/ { mb = $6 } END { exit !(mb > 2.2) }' stats.$t ||
		{ cat stats.$t; fail "$t threads: no plan-order copy of the columns' lists"; }
	lists=$(awk '!/^#/ { b += int((gsub(":", ":") * 12 + 7) / 8) * 8 }
		END { printf "%.2f", b / 1e6 }' X.txt)
	grep -q "^  dvector X: 20000 x 24 B = .*; their lists $lists MB\$" stats.$t ||
		{ cat stats.$t; fail "$t threads: X's lists are not $lists MB in the memory table"; }
	./lasso "$@" --threads=1 --run-order=order.$t --out=br.$t >/dev/null 2>err.r ||
		{ cat err.r; fail "replay of the $t-thread order"; }
	cmp b.$t br.$t || fail "the replay of the $t-thread order differs"
	f=$(objective out.$t)
	awk -v a="$f" -v b="$f1" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d <= 1e-11) }' ||
		fail "$t threads: objective $f, 1 worker's $f1: more than 1e-11 apart"
done
cmp b.2 b.3 || fail "2 and 3 threads save different coefficients"

for pt in 2x1 3x1 2x2; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" ./lasso "$@" --threads="$t" --stats --dump-order=order.$pt \
		--out=b.$pt >/dev/null 2>stats.$pt || { cat stats.$pt; fail "$pt"; }
	awk -v s="lasso.sap:$loop" 'index($2, s) &&
		/planned \(key-level colouring\)$/ { n++ } END { exit n != '"$np"' }' stats.$pt ||
		{ cat stats.$pt; fail "$pt: no colouring plan on every rank"; }
	cmp b.2 b.$pt || fail "$pt saves other coefficients than 1 x 2"
	./lasso "$@" --threads=1 --run-order=order.$pt --out=br.$pt >/dev/null 2>err.r ||
		{ cat err.r; fail "replay of the $pt order"; }
	cmp b.$pt br.$pt || fail "the replay of the $pt order differs"
done
exit 0
