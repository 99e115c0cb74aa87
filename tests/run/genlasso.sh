#!/bin/sh
# tools/genlasso, the data of samples/lasso.sap and bench/lasso.sh:
#  - the same options write the same bytes, another seed another X;
#  - X has one line a feature, each with --nnz distinct rows, ascending,
#    in range, and nonzero values with four decimals;
#  - column j's rows lie in its window of max(K, s n) rows around row
#    (j + 1/2) n / p, and --spread=1 spreads them over all the rows;
#  - with --noise=0, y is X b* (b* from --beta-out, with --support
#    nonzeros);
#  - lambda_max in y's header is where the Lasso solution becomes 0: the
#    serial twin, samples/baselines/lasso.c, keeps b = 0 just above it and
#    not just below;
#  - bad options exit with status 2 and a message.
#
# Run by `make check` with top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
gen=$top_builddir/tools/genlasso
test -x "$gen" || { echo "SKIP: no $gen"; exit 77; }

make_tmp

"$gen" --help | grep -q -e '--spread=S' || fail "--help does not list --spread"

set -- --rows=500 --features=300 --nnz=6 --spread=0.05 --support=30 --seed=3
"$gen" "$@" --out="$tmp/X1" --y-out="$tmp/y1" --beta-out="$tmp/b1" || fail "genlasso"
"$gen" "$@" --out="$tmp/X2" --y-out="$tmp/y2" --beta-out="$tmp/b2" || fail "genlasso again"
for f in X y b; do
	cmp -s "$tmp/${f}1" "$tmp/${f}2" || fail "two runs with the same options differ ($f)"
done
"$gen" "$@" --seed=4 --out="$tmp/X3" --y-out="$tmp/y3" || fail "genlasso --seed=4"
cmp -s "$tmp/X1" "$tmp/X3" && fail "--seed=4 writes the same X as --seed=3"
# X on standard output is the same X.
"$gen" "$@" --y-out="$tmp/y4" >"$tmp/X4" || fail "genlasso to standard output"
cmp -s "$tmp/X1" "$tmp/X4" || fail "X on standard output differs"

# shape N P K WINDOW FILE: every check of X's lines.
shape() {
	awk -v n="$1" -v p="$2" -v k="$3" -v w="$4" '
		/^#/ { next }
		{
			if (NF != k) { print "line of feature " j ": " NF " entries, not " k; bad = 1 }
			c = (j + 0.5) * n / p
			start = c - w / 2
			start = start > n - w ? n - w : start
			start = start < 0 ? 0 : start
			for (f = 1; f <= NF; f++) {
				if (split($f, e, ":") != 2 || e[1] !~ /^[0-9]+$/ ||
					e[2] !~ /^-?[0-9]+\.[0-9][0-9][0-9][0-9]$/ || e[2] + 0 == 0) {
					print "feature " j ": bad entry " $f; bad = 1
				}
				r = e[1] + 0
				if (r >= n || (f > 1 && r <= prev)) {
					print "feature " j ": row " r " out of range or order"; bad = 1
				}
				if (r < start - 1 || r > start + w) {
					print "feature " j ": row " r " outside its window from " start; bad = 1
				}
				if (r < lo) lo = r
				if (r > hi) hi = r
				prev = r
			}
			j++
		}
		END {
			if (j != p) { print j " lines, not " p; bad = 1 }
			print "span", hi - lo
			exit bad
		}' "$5"
}
shape 500 300 6 25 "$tmp/X1" >"$tmp/shape" || { cat "$tmp/shape"; fail "X's lines"; }
"$gen" --rows=500 --features=300 --nnz=6 --spread=1 --y-out="$tmp/y5" >"$tmp/X5" ||
	fail "genlasso --spread=1"
shape 500 300 6 500 "$tmp/X5" >"$tmp/shape" || { cat "$tmp/shape"; fail "X's lines, --spread=1"; }
# Uniform rows: some column spans most of them (a window of 25 rows
# could not).
awk '/^#/ { next } { lo = 1e9; hi = -1
	for (f = 1; f <= NF; f++) { split($f, e, ":"); r = e[1] + 0
		if (r < lo) lo = r; if (r > hi) hi = r }
	if (hi - lo > 400) wide++ }
	END { exit !(wide > 10) }' "$tmp/X5" || fail "--spread=1 does not spread the rows"
# --spread=0: a window of exactly --nnz rows, all of them taken.
"$gen" --rows=500 --features=300 --nnz=6 --spread=0 --y-out="$tmp/y6" >"$tmp/X6" ||
	fail "genlasso --spread=0"
shape 500 300 6 6 "$tmp/X6" >"$tmp/shape" || { cat "$tmp/shape"; fail "X's lines, --spread=0"; }

# y = X b* when there is no noise.
"$gen" "$@" --noise=0 --out="$tmp/X7" --y-out="$tmp/y7" --beta-out="$tmp/b7" ||
	fail "genlasso --noise=0"
test "$(grep -v '^#' "$tmp/b7" | grep -cv '^0$')" = 30 || fail "b* has not 30 nonzeros"
awk '
	FILENAME == ARGV[1] { if (!/^#/) b[nb++] = $1; next }
	FILENAME == ARGV[2] { if (!/^#/) y[ny++] = $1; next }
	/^#/ { next }
	{ for (f = 1; f <= NF; f++) { split($f, e, ":"); xb[e[1]] += e[2] * b[j] } j++ }
	END {
		for (i = 0; i < ny; i++) {
			d = y[i] - xb[i]
			if (d < -1e-9 || d > 1e-9) { print "row " i ": y " y[i] ", X b* " xb[i]; exit 1 }
		}
		exit !(ny == 500 && nb == 300)
	}' "$tmp/b7" "$tmp/y7" "$tmp/X7" || fail "y is not X b* with --noise=0"

# lambda_max against the twin.
${CC:-cc} -std=c11 -O2 -ffp-contract=off -fwrapv -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/lasso.c" -lm || fail "could not compile the twin"
lmax=$(sed -n 's/^# lambda_max //p' "$tmp/y1")
test -n "$lmax" || fail "no lambda_max in y's header"
for f in 1.000001 0.999; do
	l=$(awk -v a="$lmax" -v f=$f 'BEGIN { printf "%.17g", a * f }')
	"$tmp/twin" --data="$tmp/X1" --y="$tmp/y1" --lambda="$l" --sweeps=3 \
		--out="$tmp/beta" >"$tmp/twin.out" || fail "the twin failed"
	nnz=$(sed -n 's/^sweep 3 objective [^ ]* nnz \([0-9]*\) .*/\1/p' "$tmp/twin.out")
	case $f,$nnz in
	1.000001,0 | 0.999,[1-9]*) ;;
	*) cat "$tmp/twin.out"; fail "lambda = $f lambda_max gives $nnz nonzeros" ;;
	esac
done

# Bad options.
bad() {
	"$gen" "$@" --y-out="$tmp/ybad" >"$tmp/bad.out" 2>"$tmp/bad.err"
	s=$?
	test $s = 2 && grep -q '^genlasso: ' "$tmp/bad.err" ||
		{ cat "$tmp/bad.err"; fail "genlasso $*: exit status $s, want 2 and a message"; }
}
bad --nnz=11 --rows=10
bad --spread=1.5
bad --spread=-0.1
bad --support=20 --features=10
bad --rows=0
bad --colour=red
"$gen" --rows=10 >/dev/null 2>"$tmp/bad.err"
test $? = 2 && grep -q -e '--y-out' "$tmp/bad.err" || fail "no --y-out is not an error"
echo "PASS: genlasso"
exit 0
