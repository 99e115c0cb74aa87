/* lasso: the serial C twin of samples/lasso.sap.
 *
 * The Lasso, min over b of (1/(2n)) ||y - X b||^2 + lambda ||b||_1 (the
 * objective of scikit-learn's Lasso and of glmnet with standardize =
 * FALSE, intercept = FALSE), by cyclic coordinate descent over the
 * features from b = 0.  X is sparse and stored by column; the residual
 * r = y - X b is kept up to date in place, at the rows of column j, when
 * b[j] changes.  After each sweep it prints the objective, the nonzeros
 * of b and the seconds since the first sweep began.  The arithmetic is
 * the sample's, in the same order and the same types, so that on one
 * worker the two print the same objectives and save the same b, bit for
 * bit: build with -ffp-contract=off, as sapc builds.
 *
 *   cc -std=c11 -O2 -ffp-contract=off -fwrapv -o lasso samples/baselines/lasso.c -lm
 *   tools/genlasso --out=X.txt --y-out=y.txt
 *   ./lasso --data=X.txt --y=y.txt --lambda=0.5 --sweeps=20
 */
#define _POSIX_C_SOURCE 200809L     /* getline, clock_gettime */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what, const char *why)
{
	fprintf(stderr, "lasso: %s: %s\n", what, why);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory", strerror(ENOMEM));
	return p;
}

static void bad_line(const char *path, long line, const char *what)
{
	fprintf(stderr, "%s:%ld: error: %s\n", path, line, what);
	exit(1);
}

/* ==== Loading ============================================================ */

/* X by column (compressed sparse columns): column j's rows and values are
 * row[col[j]] .. row[col[j + 1] - 1], in the order of the file. */
typedef struct csc {
	long p;
	long *col;
	int *row;
	double *val;
} csc;

static int skipped(const char *p)
{
	return *p == '\0' || *p == '#';
}

/* One line a column, "row:value row:value ...", as tools/genlasso writes
 * it; blank lines and '#' comments skipped. */
static csc load_x(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	csc X = { 0, NULL, NULL, NULL };
	long nnz = 0, cap = 0, ccap = 0, line = 0;
	char *buf = NULL;
	size_t size = 0;
	X.col = xrealloc(NULL, sizeof *X.col);
	X.col[0] = 0;
	while (getline(&buf, &size, f) != -1) {
		line++;
		char *p = buf + strspn(buf, " \t\r\n\v\f");
		if (skipped(p))
			continue;
		while (*p) {
			char *end;
			errno = 0;
			long i = strtol(p, &end, 10);
			if (end == p || *end != ':' || errno || i < 0 || i > INT32_MAX)
				bad_line(path, line, "expected row:value with a row >= 0");
			p = end + 1;
			double v = strtod(p, &end);
			if (end == p || !isfinite(v))
				bad_line(path, line, "expected a finite value after ':'");
			p = end + strspn(end, " \t\r\n\v\f");
			if (end == p && *p)
				bad_line(path, line, "expected a blank after the value");
			if (nnz == cap) {
				cap = cap ? 2 * cap : 4096;
				X.row = xrealloc(X.row, (size_t)cap * sizeof *X.row);
				X.val = xrealloc(X.val, (size_t)cap * sizeof *X.val);
			}
			X.row[nnz] = (int)i;
			X.val[nnz] = v;
			nnz++;
		}
		if (X.p + 2 > ccap) {
			ccap = ccap ? 2 * ccap : 1024;
			X.col = xrealloc(X.col, (size_t)ccap * sizeof *X.col);
		}
		X.col[++X.p] = nnz;
	}
	if (ferror(f))
		die(path, "cannot read");
	free(buf);
	fclose(f);
	return X;
}

/* One value a line. */
static double *load_y(const char *path, long *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	double *y = NULL;
	long k = 0, cap = 0, line = 0;
	char *buf = NULL;
	size_t size = 0;
	while (getline(&buf, &size, f) != -1) {
		line++;
		char *p = buf + strspn(buf, " \t\r\n\v\f");
		if (skipped(p))
			continue;
		char *end;
		double v = strtod(p, &end);
		if (end == p || !isfinite(v) || end[strspn(end, " \t\r\n\v\f")])
			bad_line(path, line, "expected one finite value");
		if (k == cap) {
			cap = cap ? 2 * cap : 4096;
			y = xrealloc(y, (size_t)cap * sizeof *y);
		}
		y[k++] = v;
	}
	if (ferror(f))
		die(path, "cannot read");
	free(buf);
	fclose(f);
	*n = k;
	return y;
}

/* ==== Options ========================================================== */

static const char usage[] =
	"usage: lasso [--data=FILE] [--y=FILE] [--out=FILE] [--lambda=F] [--sweeps=N]\n";

static _Noreturn void bad_option(const char *arg)
{
	fprintf(stderr, "lasso: bad option '%s'\n%s", arg, usage);
	exit(2);
}

/* The value of arg if it is --name=value, else NULL. */
static const char *value(const char *arg, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(arg, "--", 2) != 0 || strncmp(arg + 2, name, n) != 0
	    || arg[2 + n] != '=')
		return NULL;
	return arg + 3 + n;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *data = "samples/data/lasso-X.txt";
	const char *yfile = "samples/data/lasso-y.txt";
	const char *out = "beta.txt";
	double lambda = 0.5;
	int sweeps = 20;

	for (int a = 1; a < argc; a++) {
		const char *arg = argv[a], *v;
		char *end;
		if (strcmp(arg, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if ((v = value(arg, "data"))) {
			data = v;
		} else if ((v = value(arg, "y"))) {
			yfile = v;
		} else if ((v = value(arg, "out"))) {
			out = v;
		} else if ((v = value(arg, "lambda"))) {
			errno = 0;
			lambda = strtod(v, &end);
			if (end == v || *end || errno)
				bad_option(arg);
		} else if ((v = value(arg, "sweeps"))) {
			errno = 0;
			long s = strtol(v, &end, 10);
			if (end == v || *end || errno || s < INT32_MIN || s > INT32_MAX)
				bad_option(arg);
			sweeps = (int)s;
		} else {
			bad_option(arg);
		}
	}

	csc X = load_x(data);
	long n;
	/* The residual y - X b, with b = 0 at the start. */
	double *r = load_y(yfile, &n);
	long p = X.p;
	for (long k = 0; k < X.col[p]; k++)
		if (X.row[k] >= n) {
			fprintf(stderr, "lasso: %s: row %d out of range: %s has %ld rows\n",
			        data, X.row[k], yfile, n);
			return 1;
		}
	double *beta = xrealloc(NULL, (size_t)p * sizeof *beta);
	double *nrm = xrealloc(NULL, (size_t)p * sizeof *nrm);
	for (long j = 0; j < p; j++)
		beta[j] = 0;

	/* ||x_j||^2, the curvature of the objective along feature j (times n). */
	for (long j = 0; j < p; j++) {
		double s = 0;
		for (long k = X.col[j]; k < X.col[j + 1]; k++)
			s += X.val[k] * X.val[k];
		nrm[j] = s;
	}
	double nl = n * lambda;
	printf("lasso: %ld rows, %ld features, %ld nonzeros, lambda %.17g\n",
	       n, p, X.col[p], lambda);

	double t0 = now();
	for (int sweep = 0; sweep < sweeps; sweep++) {
		for (long j = 0; j < p; j++) {
			if (nrm[j] == 0)
				continue;
			double bj = beta[j];
			/* x_j . (r + x_j b_j) = x_j . r + ||x_j||^2 b_j */
			double rho = 0;
			for (long k = X.col[j]; k < X.col[j + 1]; k++)
				rho += X.val[k] * r[X.row[k]];
			rho += nrm[j] * bj;
			double b = 0;
			if (rho > nl)
				b = (rho - nl) / nrm[j];
			else if (rho < -nl)
				b = (rho + nl) / nrm[j];
			double delta = b - bj;
			if (delta != 0) {
				beta[j] = b;
				for (long k = X.col[j]; k < X.col[j + 1]; k++)
					r[X.row[k]] -= delta * X.val[k];
			}
		}
		double rss = 0;
		for (long i = 0; i < n; i++)
			rss += r[i] * r[i];
		double l1 = 0;
		long nnz = 0;
		for (long j = 0; j < p; j++) {
			l1 += fabs(beta[j]);
			if (beta[j] != 0)
				nnz++;
		}
		double obj = rss / (2.0 * n) + lambda * l1;
		printf("sweep %d objective %.17g nnz %ld time %.3f\n", sweep + 1, obj, nnz,
		       now() - t0);
	}

	FILE *f = fopen(out, "w");
	if (!f)
		die(out, strerror(errno));
	for (long j = 0; j < p; j++)
		fprintf(f, "%.17g\n", beta[j]);
	if (fclose(f) != 0)
		die(out, "cannot write");
	free(X.col);
	free(X.row);
	free(X.val);
	free(r);
	free(beta);
	free(nrm);
	return 0;
}
