#!/bin/sh
# samples/lasso.sap against its serial C twin, samples/baselines/lasso.c,
# on data from tools/genlasso: columns with little row overlap (spread
# 0.01, the case where features can be updated at once) and with much
# (spread 1, uniformly random rows).
#  - on 1 rank x 1 thread the sample prints what the twin prints, every
#    sweep's objective and nonzero count, and saves the same b, bit for
#    bit (the "time" fields aside);
#  - on 1, 2 and 3 ranks x 1 and 2 threads two runs print the same and
#    save the same b, bit for bit, the second with --check-plan, which
#    checks every plan against the keys the iterations touch;
#  - there the final objective is within 1e-11 of the twin's, relatively.
#    With several workers the iterations run in another serializable
#    order, a coordinate descent that visits the features in another
#    order, and the sums of the objective are added in another order; on
#    a convex objective both reach the same minimum.  The data are sized
#    so that the twin's objective has stopped moving (its last sweep
#    changes it by less than 1e-13, checked: there it goes up and down by
#    an ulp or two from one sweep to the next), so what is left is rounding:
#    the residual's sum of squares over 3000 rows in another order is
#    off by at most 3000 ulps, 7e-13, in the worst case.  A lost or
#    doubled update of the residual is off by far more;
#  - the objective recomputed from the saved b, y and X (in awk) agrees
#    with the printed one to 1e-9: the residual the loop updated in place
#    is y - X b.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.
# Exit status: 0 pass, 1 fail, 77 skip.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

sweeps=30
lambda=0.5

"$SAPC" -O2 -o "$tmp/lasso" "$top_srcdir/samples/lasso.sap" ||
	fail "sapc could not compile samples/lasso.sap"
# The flags sapc builds the generated C with.
${CC:-cc} -std=c11 -O2 -ffp-contract=off -fwrapv -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/lasso.c" -lm ||
	fail "could not compile samples/baselines/lasso.c"

# objective FILE: the last sweep's objective.
objective() {
	sed -n 's/^sweep [0-9]* objective \([^ ]*\) .*/\1/p' "$1" | tail -n 1
}

for spread in 0.01 1; do
	d=$tmp/s$spread
	mkdir "$d" || exit 1
	"$top_builddir/tools/genlasso" --rows=3000 --features=1500 --nnz=8 \
		--spread=$spread --support=150 --noise=1 --seed=7 \
		--out="$d/X.txt" --y-out="$d/y.txt" || fail "genlasso --spread=$spread"
	set -- --data="$d/X.txt" --y="$d/y.txt" --lambda=$lambda --sweeps=$sweeps
	"$tmp/twin" "$@" --out="$d/b-twin.txt" >"$d/twin.out" ||
		fail "spread $spread: the twin failed"
	# Guard against passing on two equally empty or unconverged runs.
	test "$(grep -c '^sweep [0-9]* objective [^ ]* nnz [1-9][0-9]* time ' "$d/twin.out")" = $sweeps ||
		{ cat "$d/twin.out"; fail "spread $spread: unexpected report from the twin"; }
	ft=$(objective "$d/twin.out")
	sed -n 's/^sweep [0-9]* objective \([^ ]*\) .*/\1/p' "$d/twin.out" | tail -n 2 |
		awk 'NR == 1 { a = $1 } NR == 2 { d = (a - $1) / $1; if (d < 0) d = -d; exit !(d < 1e-13) }' ||
		fail "spread $spread: the twin has not converged in $sweeps sweeps: the test's tolerance would not hold"
	strip_time "$d/twin.out" >"$d/twin.cmp"

	for np in 1 2 3; do
		for nt in 1 2; do
			for run in a b; do
				o=$d/$np-$nt$run
				# The second run checks each plan against the keys.
				check=
				test $run = b && check=--check-plan
				# $MPIEXEC unquoted: it may carry its own options;
				# $check: empty or one word.
				$MPIEXEC -n $np "$tmp/lasso" "$@" --threads=$nt $check --out="$o.beta" \
					>"$o.out" 2>"$o.err" ||
					{ cat "$o.err"; fail "spread $spread, $np ranks x $nt threads: exit status $?"; }
				strip_time "$o.out" >"$o.cmp"
			done
			o=$d/$np-$nt
			cmp -s "$o"a.cmp "$o"b.cmp ||
				{ diff "$o"a.cmp "$o"b.cmp; fail "spread $spread, $np x $nt: two runs print different reports"; }
			cmp -s "$o"a.beta "$o"b.beta ||
				fail "spread $spread, $np x $nt: two runs save different coefficients"
			if test $np = 1 && test $nt = 1; then
				cmp -s "$d/twin.cmp" "$o"a.cmp ||
					{ diff "$d/twin.cmp" "$o"a.cmp; fail "spread $spread: 1 x 1 and the twin print different reports"; }
				cmp -s "$d/b-twin.txt" "$o"a.beta ||
					fail "spread $spread: 1 x 1 and the twin save different coefficients"
			fi
			fs=$(objective "$o"a.out)
			awk -v a="$fs" -v b="$ft" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d <= 1e-11) }' ||
				fail "spread $spread, $np x $nt: objective $fs, the twin's $ft: more than 1e-11 apart"
			# The objective of the saved b, from y and X.
			awk -v lambda=$lambda -v f="$fs" '
				FILENAME == ARGV[1] { b[NR - 1] = $1; l1 += $1 < 0 ? -$1 : $1; next }
				/^#/ { next }
				FILENAME == ARGV[2] { r[n++] = $1; next }
				{
					for (k = 1; k <= NF; k++) {
						split($k, e, ":")
						r[e[1]] -= e[2] * b[j]
					}
					j++
				}
				END {
					for (i = 0; i < n; i++)
						rss += r[i] * r[i]
					g = rss / (2 * n) + lambda * l1
					d = (g - f) / f
					if (d < 0) d = -d
					if (d > 1e-9) {
						printf "objective of the saved b %.17g, printed %.17g\n", g, f
						exit 1
					}
				}' "$o"a.beta "$d/y.txt" "$d/X.txt" ||
				fail "spread $spread, $np x $nt: the residual is not y - X b"
		done
	done
done
echo "PASS: bit for bit with the twin on 1 worker, deterministic and at its objective on 1-3 ranks x 1-2 threads"
exit 0
