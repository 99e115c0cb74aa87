#!/bin/sh
# lasso.sh: samples/lasso.sap against its serial C twin,
# samples/baselines/lasso.c, scikit-learn's Lasso and glmnet, on sparse
# regression data from tools/genlasso: the time to reach the objective the
# twin reaches after N sweeps of cyclic coordinate descent.
#
#   bench/lasso.sh                  # full: 500k rows, 1M features, 20M nonzeros
#   BENCH_QUICK=1 bench/lasso.sh    # smoke test: 20k rows, 40k features
#
# Data: two matrices of the same shape, one whose columns overlap little
# (genlasso --spread=100/rows: column j's 20 rows lie in a window of 100
# rows around row j n / p, so neighbouring features share rows and are
# strongly correlated, which makes coordinate descent slow, but features
# far apart share no row and can be updated at once) and one
# whose columns overlap much (--spread=1, uniformly random rows).  lambda
# is BENCH_LAMBDA (default 0.003, against a lambda_max of about 5), small
# enough that coordinate descent is still making progress after N sweeps.
# At the full size the twin takes 11-13 s for 400 sweeps on a quiet 2-core
# EPYC VM (at least 10 s, so that fixed costs weigh as in a real job);
# each X file is 315 MB, generated in 5 s.
#
# The target is the twin's objective after N = BENCH_SWEEPS sweeps
# (default 400, quick 20), F_N; a run reaches it at the first sweep whose
# objective is at most F_N + 1e-12 |F_N| (several workers visit the
# features in another order, so their objectives differ from the twin's
# in the last digits).  Its time is the seconds the program itself prints
# at that sweep, counted from the start of the first sweep: loading and
# the column norms are left out of every program's time alike.
#  - the twin: gcc -O3 -ffp-contract=off -fwrapv, as sapc builds;
#  - SAP: sapc -O3, as P ranks x T threads for each layout of
#    BENCH_LAYOUTS (default "1x1 1x2 2x1"), under Open MPI with --bind-to
#    none, with --sweeps = N + N/10 + 2 in case another order needs a few
#    more; with --stats, whose row for the features' loop gives the plan:
#    groups, rounds and balance (max worker's work over the mean);
#  - scikit-learn (Debian python3-sklearn): Lasso(alpha=lambda,
#    fit_intercept=False, precompute=False, selection='cyclic', tol=0,
#    max_iter=N, copy_X=False) on the same X as a scipy CSC matrix, the
#    same cyclic coordinate descent; the time is fit() alone;
#  - glmnet (Debian r-cran-glmnet): glmnet(X, y, lambda=lambda,
#    standardize=FALSE, intercept=FALSE, thresh=t, maxit=1e7) on a
#    dgCMatrix, with the largest t in 1e-1, 1e-2, ... 1e-14 whose
#    solution reaches the target (glmnet has no sweep count to give it);
#    the time is the glmnet() call alone.
# The objectives of both libraries are computed from their coefficients.
# If either package is missing the script says so and leaves its row out.
#
# Environment: see bench/common.subr; also BENCH_SWEEPS, BENCH_LAMBDA,
# BENCH_LAYOUTS, BENCH_SPREADS (default "100/rows 1"), BENCH_PYTHON (a python
# with scikit-learn; default: python3, else /usr/bin/python3).
set -eu

# shellcheck source=common.subr source-path=SCRIPTDIR
. "$(dirname "$0")/common.subr"
bench_init lasso

if test "$quick" = 1; then
	rows=20000 features=40000 nnz=10
	sweeps=${BENCH_SWEEPS:-20}
else
	rows=500000 features=1000000 nnz=20
	sweeps=${BENCH_SWEEPS:-400}
fi
support=$((features / 10))
noise=1 seed=1
lambda=${BENCH_LAMBDA:-0.003}
layouts=${BENCH_LAYOUTS:-1x1 1x2 2x1}
spreads=${BENCH_SPREADS:-$(awk -v n=$rows 'BEGIN { printf "%g", 100 / n }') 1}
rtol=1e-12
case $sweeps in
'' | *[!0-9]* | 0) bench_fail "BENCH_SWEEPS=$sweeps: expected a count >= 1" ;;
esac
awk -v l="$lambda" 'BEGIN { exit !(l + 0 > 0) }' ||
	bench_fail "BENCH_LAMBDA=$lambda: expected a number > 0"
for l in $layouts; do
	case $l in
	[1-9]*x[1-9]*) ;;
	*) bench_fail "BENCH_LAYOUTS: $l: expected RANKSxTHREADS, as 1x2" ;;
	esac
done
sap_sweeps=$((sweeps + sweeps / 10 + 2))

gen=$top_builddir/tools/genlasso
test -x "$gen" || bench_fail "no $gen (run make first)"

# The libraries, if installed.  Debian's python3-sklearn is for
# /usr/bin/python3, which another python3 first in PATH does not see.
have_skl=no have_glmnet=no python=
for py in ${BENCH_PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$py" >/dev/null &&
		"$py" -c 'import sklearn, scipy, numpy' 2>/dev/null; then
		have_skl=yes python=$py
		break
	fi
done
test $have_skl = yes ||
	echo "NOTE: no scikit-learn (python3 -c 'import sklearn' fails):" \
		"its rows are left out; install Debian's python3-sklearn" >&2
if command -v Rscript >/dev/null &&
	Rscript -e 'suppressMessages(library(glmnet))' >/dev/null 2>&1; then
	have_glmnet=yes
else
	echo "NOTE: no glmnet (Rscript -e 'library(glmnet)' fails):" \
		"its rows are left out; install Debian's r-cran-glmnet" >&2
fi

# ---- Builds ----

"$SAPC" -O3 -o "$tmp/sap" "$top_srcdir/samples/lasso.sap" ||
	bench_fail "sapc samples/lasso.sap"
"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -fwrapv -o "$tmp/twin" \
	"$top_srcdir/samples/baselines/lasso.c" -lm || bench_fail "the twin did not build"
# For scale, not as a peer: the twin with its features' loop split in two
# contiguous halves by OpenMP, each thread updating the residual without
# any care for the other (rows the halves share race, so it is not a
# correct program).  Its time is what two cores of the machine give the
# twin's own layout at that moment.
have_omp=no
awk '/for \(int sweep = 0; sweep < sweeps; sweep\+\+\) \{/ { print; getline
	if ($0 ~ /for \(long j = 0; j < p; j\+\+\) \{/) { print "#pragma omp parallel for schedule(static)"; n++ } }
	{ print } END { exit n != 1 }' "$top_srcdir/samples/baselines/lasso.c" >"$tmp/omp.c" &&
	"$BENCH_CC" -std=c11 -O3 -ffp-contract=off -fwrapv -fopenmp -o "$tmp/twin-omp" "$tmp/omp.c" \
		-lm 2>/dev/null && have_omp=yes
test $have_omp = yes ||
	echo "NOTE: the twin with OpenMP did not build: its row is left out" >&2
# The features' loop, for its row of the --stats table.
loop_line=$(grep -n '^    async for (long j = 0; j < p; j++) {$' \
	"$top_srcdir/samples/lasso.sap" | cut -d : -f 1)
case $loop_line in
'' | *[!0-9]*) bench_fail "cannot find the features' loop in samples/lasso.sap" ;;
esac

cat >"$tmp/skl.py" <<'EOF'
# X: one line a column, "row:value ..."; y: one value a line; '#' comments.
import sys, time, warnings
import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import Lasso

xf, yf, lam, iters, reps = sys.argv[1], sys.argv[2], float(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5])
with open(xf) as f:
    lines = [l for l in f.read().split('\n') if l and not l.startswith('#')]
counts = np.array([l.count(':') for l in lines], dtype=np.int64)
flat = np.fromstring(' '.join(lines).replace(':', ' '), dtype=np.float64, sep=' ')
del lines
if flat.size != 2 * counts.sum():
    sys.exit('skl.py: cannot parse ' + xf)
y = np.loadtxt(yf, comments='#', dtype=np.float64)
n, p = y.size, counts.size
indptr = np.concatenate(([0], np.cumsum(counts)))
X = sp.csc_matrix((flat[1::2].copy(), flat[0::2].astype(np.int32), indptr), shape=(n, p))
del flat
warnings.simplefilter('ignore')     # ConvergenceWarning: tol=0 never converges
for rep in range(reps):
    m = Lasso(alpha=lam, fit_intercept=False, precompute=False, selection='cyclic',
              tol=0.0, max_iter=iters, copy_X=False)
    t0 = time.perf_counter()
    m.fit(X, y)
    t = time.perf_counter() - t0
    w = m.coef_
    r = y - X @ w
    obj = r @ r / (2.0 * n) + lam * np.abs(w).sum()
    print('sklearn seconds %.4f objective %.17g nnz %d iters %d'
          % (t, obj, np.count_nonzero(w), m.n_iter_))
EOF

cat >"$tmp/glmnet.R" <<'EOF'
# X: one line a column, "row:value ..."; y: one value a line; '#' comments.
suppressMessages({ library(Matrix); library(glmnet) })
a <- commandArgs(TRUE)
lam <- as.numeric(a[3]); target <- as.numeric(a[4]); reps <- as.integer(a[5])
# Entries per column, and every row and value: tr makes "row:value" two fields.
cnt <- count.fields(a[1], comment.char = "#", quote = "")
con <- pipe(paste("tr ':' ' ' <", shQuote(a[1])))
v <- scan(con, comment.char = "#", quiet = TRUE)
close(con)
y <- scan(a[2], comment.char = "#", quiet = TRUE)
n <- length(y); p <- length(cnt)
X <- sparseMatrix(i = v[c(TRUE, FALSE)] + 1, j = rep(seq_len(p), cnt),
                  x = v[c(FALSE, TRUE)], dims = c(n, p))
rm(v)
fit <- function(th) {
    t <- system.time(f <- glmnet(X, y, family = "gaussian", lambda = lam,
        standardize = FALSE, intercept = FALSE, thresh = th, maxit = 1e7))[["elapsed"]]
    b <- as.vector(coef(f))[-1]
    r <- y - as.vector(X %*% b)
    list(t = t, obj = sum(r * r) / (2 * n) + lam * sum(abs(b)), nnz = sum(b != 0))
}
out <- function(th, f)
    cat(sprintf("glmnet seconds %.4f objective %.17g nnz %d thresh %g\n",
                f$t, f$obj, f$nnz, th))
for (e in 1:14) {
    th <- 10^-e
    f <- fit(th)
    if (f$obj <= target || e == 14) break
}
out(th, f)
if (reps > 1) for (k in 2:reps) out(th, fit(th))
EOF

# ---- Data, generated once into the cache ----

mkdir -p "$BENCH_DATA"
stem_of() {
	echo "$BENCH_DATA/lasso-n$rows-p$features-k$nnz-s$1-m$support-z$noise-r$seed"
}
for spread in $spreads; do
	stem=$(stem_of "$spread")
	test -s "$stem.X.txt" && test -s "$stem.y.txt" && continue
	t0=$(bench_now)
	"$gen" --rows=$rows --features=$features --nnz=$nnz --spread="$spread" \
		--support=$support --noise=$noise --seed=$seed \
		--out="$stem.X.txt" --y-out="$stem.y.txt" || bench_fail "genlasso failed"
	t1=$(bench_now)
	echo "generated $stem.X.txt and .y.txt in" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" >&2
done

# ---- Runs ----

# reach FILE TARGET: "SWEEP SECONDS OBJECTIVE" of the first sweep of a
# report at or below the target, or "- - LAST_OBJECTIVE".
reach() {
	awk -v t="$2" -v rtol=$rtol '
		$1 == "sweep" && $3 == "objective" {
			last = $4
			if ($4 <= t + rtol * (t < 0 ? -t : t)) { print $2, $8, $4; found = 1; exit }
		}
		END { if (!found) print "-", "-", (last == "" ? "-" : last) }' "$1"
}

# "spread prog layout rep sweep seconds objective groups rounds balance"
: >"$tmp/raw"
load0=$(bench_load)
for spread in $spreads; do
	stem=$(stem_of "$spread")
	cat "$stem.X.txt" "$stem.y.txt" >/dev/null
	set -- --data="$stem.X.txt" --y="$stem.y.txt" --lambda="$lambda" --out="$tmp/beta.txt"
	target=
	for rep in $(seq "$reps"); do
		bench_quiet
		"$tmp/twin" "$@" --sweeps="$sweeps" >"$tmp/twin.out" ||
			bench_fail "the twin failed (spread $spread)"
		f=$(sed -n "s/^sweep $sweeps objective \\([^ ]*\\) .*/\\1/p" "$tmp/twin.out")
		test -n "$f" || bench_fail "no objective after $sweeps sweeps from the twin"
		test -z "$target" && target=$f
		test "$f" = "$target" || bench_fail "two runs of the twin end at different objectives"
		echo "$spread twin 1x1 $rep $(reach "$tmp/twin.out" "$target") - - -" >>"$tmp/raw"
		if test $have_omp = yes; then
			bench_quiet
			OMP_NUM_THREADS=2 "$tmp/twin-omp" "$@" --sweeps=$sap_sweeps >"$tmp/omp.out" ||
				bench_fail "the twin with OpenMP failed (spread $spread)"
			echo "$spread twin-omp-racy 1x2 $rep $(reach "$tmp/omp.out" "$target") - - -" >>"$tmp/raw"
		fi
		for l in $layouts; do
			np=${l%%x*} nt=${l#*x}
			bench_quiet
			# shellcheck disable=SC2086  # $mpi_bind: empty or two words
			$MPIEXEC -n "$np" $mpi_bind "$tmp/sap" "$@" --sweeps=$sap_sweeps \
				--threads="$nt" --stats >"$tmp/sap.out" 2>"$tmp/sap.err" ||
				{ cat "$tmp/sap.err" >&2; bench_fail "lasso.sap on $l failed (spread $spread)"; }
			plan=$(awk -v s="lasso.sap:$loop_line" 'index($2, s) &&
				substr($2, length($2) - length(s) + 1) == s { print $8, $9, $11; exit }' \
				"$tmp/sap.err")
			echo "$spread sap $l $rep $(reach "$tmp/sap.out" "$target") ${plan:-- - -}" >>"$tmp/raw"
		done
	done
	if test $have_skl = yes; then
		bench_quiet
		"$python" "$tmp/skl.py" "$stem.X.txt" "$stem.y.txt" "$lambda" "$sweeps" "$reps" \
			>"$tmp/skl.out" || bench_fail "scikit-learn failed (spread $spread)"
		awk -v s="$spread" -v t="$target" -v rtol=$rtol '{
			ok = $5 <= t + rtol * (t < 0 ? -t : t)
			print s, "sklearn", "1x1", NR, ok ? $9 : "-", ok ? $3 : "-", $5, "-", "-", "-" }' \
			"$tmp/skl.out" >>"$tmp/raw"
	fi
	if test $have_glmnet = yes; then
		bench_quiet
		Rscript "$tmp/glmnet.R" "$stem.X.txt" "$stem.y.txt" "$lambda" \
			"$(awk -v t="$target" -v rtol=$rtol 'BEGIN { printf "%.17g", t + rtol * (t < 0 ? -t : t) }')" \
			"$reps" >"$tmp/glmnet.out" || bench_fail "glmnet failed (spread $spread)"
		awk -v s="$spread" -v t="$target" -v rtol=$rtol '{
			ok = $5 <= t + rtol * (t < 0 ? -t : t)
			print s, "glmnet", "1x1", NR, ok ? "thresh=" $9 : "-", ok ? $3 : "-", $5, "-", "-", "-" }' \
			"$tmp/glmnet.out" >>"$tmp/raw"
	fi
	echo "$spread target $target" >>"$tmp/targets"
done
load1=$(bench_load)

# ---- Report ----

echo
echo "### lasso: $rows rows x $features features, $nnz nonzeros a column," \
	"lambda $lambda, target: the twin's objective after $sweeps sweeps;" \
	"median of $reps runs"
echo
bench_machine
echo "- data: tools/genlasso --rows=$rows --features=$features --nnz=$nnz" \
	"--spread=S --support=$support --noise=$noise --seed=$seed, S in: $spreads"
echo "- twin: $BENCH_CC -std=c11 -O3 -ffp-contract=off -fwrapv samples/baselines/lasso.c -lm;" \
	"./twin --data=X --y=Y --lambda=$lambda --sweeps=$sweeps"
test $have_omp = yes &&
	echo "- twin-omp-racy: the twin with '#pragma omp parallel for schedule(static)' on" \
		"its features' loop, built with -fopenmp, OMP_NUM_THREADS=2: rows the two" \
		"halves share race, so not a correct program; the machine's two cores on the" \
		"twin's layout, for scale"
echo "- SAP: sapc -O3 samples/lasso.sap; $MPIEXEC -n P ${mpi_bind:+$mpi_bind }PROG" \
	"--threads=T --lambda=$lambda --sweeps=$sap_sweeps --stats"
if test $have_skl = yes; then
	echo "- scikit-learn $("$python" -c 'import sklearn; print(sklearn.__version__)'):" \
		"Lasso(alpha=$lambda, fit_intercept=False, precompute=False," \
		"selection='cyclic', tol=0, max_iter=$sweeps) on a CSC matrix, fit() timed"
else
	echo "- scikit-learn: not installed (python3-sklearn), left out"
fi
if test $have_glmnet = yes; then
	echo "- glmnet $(Rscript -e 'cat(format(packageVersion("glmnet")))' 2>/dev/null):" \
		"glmnet(X, y, lambda=$lambda, standardize=FALSE, intercept=FALSE," \
		"thresh=t, maxit=1e7) on a dgCMatrix, the largest t = 1e-1 .. 1e-14 that" \
		"reaches the target; glmnet() timed"
else
	echo "- glmnet: not installed (r-cran-glmnet), left out"
fi
echo "- reached: the first sweep with objective <= target + $rtol |target|; s: the" \
	"seconds from the first sweep's start to then (load excluded), median [min-max]"
echo "- plan: the features' loop in --stats (rank 0): groups / rounds / balance"
echo "- load average before / after: $load0 / $load1"
echo
echo "- twin s / s: of the medians; paired: the median over repetitions of the twin's s over this" \
	"program's s in the same repetition (run back to back), which cancels the machine's drift"
echo
echo "| data (spread) | program | ranks x threads | reached at | s [min-max] | twin s / s | paired | objective | plan |"
echo "|--|--|--|--:|--|--:|--:|--:|--|"
for spread in $spreads; do
	target=$(awk -v s="$spread" '$1 == s { print $3 }' "$tmp/targets")
	tw=$(awk -v s="$spread" '$1 == s && $2 == "twin" { print $6 }' "$tmp/raw" | bench_median)
	awk -v s="$spread" '$1 == s && !seen[$2 " " $3]++ { print $2, $3 }' "$tmp/raw" |
	while read -r prog l; do
		awk -v s="$spread" -v p="$prog" -v l="$l" '$1 == s && $2 == p && $3 == l' \
			"$tmp/raw" >"$tmp/rows"
		if awk '$6 == "-" { bad = 1 } END { exit !bad }' "$tmp/rows"; then
			obj=$(awk '{ print $7 }' "$tmp/rows" | sort -g | tail -n 1)
			printf '| %s | %s | %s | not reached | - | - | - | %s | %s |\n' "$spread" "$prog" \
				"$l" "$obj" "$(awk 'NR == 1 { print ($8 == "-" ? "-" : $8 " / " $9 " / " $10) }' "$tmp/rows")"
			continue
		fi
		med=$(awk '{ print $6 }' "$tmp/rows" | bench_median)
		range=$(awk '{ print $6 }' "$tmp/rows" | sort -g |
			awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }')
		at=$(awk 'NR == 1 { print $5 }' "$tmp/rows")
		obj=$(awk 'NR == 1 { print $7 }' "$tmp/rows")
		plan=$(awk 'NR == 1 { print ($8 == "-" ? "-" : $8 " / " $9 " / " $10) }' "$tmp/rows")
		paired=$(awk -v s="$spread" -v p="$prog" -v l="$l" '$1 == s && $2 == "twin" { t[$4] = $6 }
			$1 == s && $2 == p && $3 == l && $6 != "-" { u[$4] = $6 }
			END { if (p != "sklearn" && p != "glmnet")   # these run apart, after the others
				for (r in u) if ((r in t) && u[r] > 0) print t[r] / u[r] }' "$tmp/raw" |
			bench_median | awk '{ printf "%.2fx", $1 }')
		printf '| %s | %s | %s | %s | %.3f [%s] | %s | %s | %s | %s |\n' "$spread" "$prog" "$l" \
			"$at" "$med" "$range" \
			"$(awk -v a="$tw" -v b="$med" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')" \
			"${paired:--}" "$obj" "$plan"
	done
	echo "| $spread | target | | | | | | $target | |"
done
echo
{
	echo "# bench/lasso.sh, $(bench_commit), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# spread program layout rep reached_at seconds objective groups rounds balance"
	cat "$tmp/raw"
} >"$BENCH_DATA/lasso-last.raw"
echo "(every run: $BENCH_DATA/lasso-last.raw)"
