/* genlasso: synthetic sparse regression data for the Lasso sample and
 * benchmark, with a tunable overlap between the columns' row sets.
 *
 * X is n x p and sparse, stored by column: column j has K nonzeros at
 * distinct rows drawn uniformly from a window of max(K, s n) rows centred
 * on row (j + 1/2) n / p (the spread s in [0, 1]; s = 1 draws from all
 * the rows).  A small spread gives nearby features nearby rows and
 * features far apart disjoint ones, so coordinate descent can update many
 * features at once; a large one makes every pair of columns likely to
 * share a row.  Each value is a normal draw times sqrt(n / K), so
 * ||x_j||^2 / n is about 1 and a lambda means about the same on every
 * size.  Values are multiples of 1e-4, written exactly, so the value a
 * reader parses is the one y was computed from.
 *
 * A planted coefficient vector b* has M nonzeros at random features, of
 * random sign and magnitude in [0.5, 1.5); y = X b* + noise N(0, sd^2).
 *
 * The output is a pure function of the options: the generator is our own
 * (xoshiro256** seeded by splitmix64), not the C library's, and column j
 * draws from a stream of its own.
 */
#define _POSIX_C_SOURCE 200809L     /* fsync, fileno */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gen.h"

const char *const gen_name = "genlasso";

static void usage(FILE *f)
{
	fputs("usage: genlasso [--rows=N] [--features=P] [--nnz=K] [--spread=S]\n"
	      "                [--support=M] [--noise=SD] [--seed=S]\n"
	      "                [--out=FILE] [--y-out=FILE] [--beta-out=FILE]\n"
	      "\n"
	      "Write an N x P sparse matrix X with K nonzeros in each column to\n"
	      "--out (default: standard output), y = X b* + noise to --y-out, and\n"
	      "the planted coefficients b* (M nonzeros) to --beta-out.\n"
	      "\n"
	      "--out: one line per column j = 0 .. P-1, its nonzeros as\n"
	      "  row:value pairs separated by blanks, rows 0-based and ascending:\n"
	      "      12:0.5314 17:-2.0871 40:1.2\n"
	      "  (a SAP program reads it as struct Entry { int row; double v; }\n"
	      "  struct Column { list<Entry> x; }).\n"
	      "--y-out: one value a line, row i on line i.\n"
	      "--beta-out: one value a line, feature j on line j.\n"
	      "Every file starts with '#' comment lines: the command, and in the\n"
	      "y file 'lambda_max L', the smallest lambda whose Lasso solution is\n"
	      "0 for the objective (1/(2N)) ||y - X b||^2 + lambda ||b||_1.\n"
	      "\n"
	      "Column j's rows are drawn from a window of max(K, S*N) rows around\n"
	      "row (j + 1/2) N / P: S = 0 gives features far apart disjoint rows,\n"
	      "S = 1 uniformly random rows.  Values are normal times sqrt(N / K),\n"
	      "in steps of 1e-4, so ||x_j||^2 / N is about 1.\n"
	      "Defaults: --rows=2000 --features=1000 --nnz=10 --spread=0.01\n"
	      "          --support=100 --noise=1 --seed=1\n", f);
}

/* ==== Random numbers ==================================================== */

/* ==== Columns =========================================================== */

typedef struct shape {
	int64_t n, p, k;        /* rows, features, nonzeros per column */
	int64_t window;         /* rows a column draws from */
	double scale;           /* sqrt(n / k) */
	uint64_t seed;
} shape;

static int cmp_row(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Column j: its k rows, ascending, and their values in units of 1e-4
 * (never 0, so that every written entry is a nonzero).  taken[] is all
 * zero on entry and on return. */
static void column(const shape *s, int64_t j, int32_t *row, int64_t *val,
                   unsigned char *taken)
{
	rng r = rng_make(s->seed, 16 + (uint64_t)j);
	double centre = ((double)j + 0.5) * (double)s->n / (double)s->p;
	int64_t start = llround(centre - (double)s->window / 2);
	if (start > s->n - s->window)
		start = s->n - s->window;
	if (start < 0)
		start = 0;
	for (int64_t t = 0; t < s->k; t++) {
		int64_t i;
		do
			i = start + below(&r, s->window);
		while (taken[i]);
		taken[i] = 1;
		row[t] = (int32_t)i;
	}
	for (int64_t t = 0; t < s->k; t++)
		taken[row[t]] = 0;
	qsort(row, (size_t)s->k, sizeof *row, cmp_row);
	for (int64_t t = 0; t < s->k; t++) {
		int64_t v;
		do
			v = llround(s->scale * normal(&r) * 1e4);
		while (v == 0);
		val[t] = v;
	}
}

/* ==== Output ============================================================ */

/* Written to PATH.tmp and renamed at the end, so an interrupted run never
 * leaves a truncated file that make would take as up to date. */

/* printf costs more than everything else together at benchmark sizes, so
 * the entries are formatted by hand. */
static char *put_uint(char *p, uint64_t x)
{
	char buf[20];
	int n = 0;
	do
		buf[n++] = (char)('0' + x % 10);
	while (x /= 10);
	while (n)
		*p++ = buf[--n];
	return p;
}

/* v / 1e4 with its four decimals. */
static char *put_fixed4(char *p, int64_t v)
{
	uint64_t a;
	if (v < 0) {
		*p++ = '-';
		a = (uint64_t)0 - (uint64_t)v;
	} else {
		a = (uint64_t)v;
	}
	p = put_uint(p, a / 10000);
	*p++ = '.';
	uint64_t f = a % 10000;
	*p++ = (char)('0' + f / 1000);
	*p++ = (char)('0' + f / 100 % 10);
	*p++ = (char)('0' + f / 10 % 10);
	*p++ = (char)('0' + f % 10);
	return p;
}

/* ==== Options =========================================================== */

int main(int argc, char **argv)
{
	int64_t n = 2000, p = 1000, k = 10, support = 100;
	double spread = 0.01, noise = 1;
	uint64_t seed = 1;
	const char *out = NULL, *y_out = NULL, *beta_out = NULL;

	for (int a = 1; a < argc; a++) {
		const char *arg = argv[a];
		const char *eq = strchr(arg, '=');
		if (strcmp(arg, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strncmp(arg, "--", 2) != 0)
			fail(2, "unexpected argument '%s'", arg);
		if (!eq)
			fail(2, "option '%s' needs =VALUE", arg);
		size_t len = (size_t)(eq - arg - 2);
		const char *name = arg + 2, *val = eq + 1;
#define IS(s) (len == sizeof s - 1 && !strncmp(name, s, len))
		/* Rows are int in the readers. */
		if (IS("rows"))
			n = opt_int("rows", val, 1, INT32_MAX);
		else if (IS("features"))
			p = opt_int("features", val, 1, INT32_MAX);
		else if (IS("nnz"))
			k = opt_int("nnz", val, 1, INT32_MAX);
		else if (IS("spread"))
			spread = opt_real("spread", val, 0, 1);
		else if (IS("support"))
			support = opt_int("support", val, 0, INT32_MAX);
		else if (IS("noise"))
			noise = opt_real("noise", val, 0, 1e6);
		else if (IS("seed"))
			seed = (uint64_t)opt_int("seed", val, 0, INT64_MAX);
		else if (IS("out"))
			out = opt_path("out", val);
		else if (IS("y-out"))
			y_out = opt_path("y-out", val);
		else if (IS("beta-out"))
			beta_out = opt_path("beta-out", val);
		else
			fail(2, "unknown option '%s'", arg);
#undef IS
	}
	if (k > n)
		fail(2, "--nnz=%" PRId64 " is more than --rows=%" PRId64, k, n);
	if (support > p)
		fail(2, "--support=%" PRId64 " is more than --features=%" PRId64, support, p);
	if (!y_out)
		fail(2, "--y-out=FILE is needed");

	shape s = { n, p, k, 0, sqrt((double)n / (double)k), seed };
	s.window = llround(spread * (double)n);
	if (s.window < k)
		s.window = k;
	if (s.window > n)
		s.window = n;

	/* The planted coefficients: a partial shuffle picks the support. */
	double *beta = xmalloc((size_t)p, sizeof *beta);
	int32_t *perm = xmalloc((size_t)p, sizeof *perm);
	for (int64_t j = 0; j < p; j++) {
		beta[j] = 0;
		perm[j] = (int32_t)j;
	}
	rng rb = rng_make(seed, 1);
	for (int64_t t = 0; t < support; t++) {
		int64_t m = t + below(&rb, p - t);
		int32_t x = perm[t];
		perm[t] = perm[m];
		perm[m] = x;
		double mag = 0.5 + uniform(&rb);
		beta[perm[t]] = next64(&rb) >> 63 ? -mag : mag;
	}
	free(perm);

	char cmd[512];
	snprintf(cmd, sizeof cmd, "# genlasso --rows=%" PRId64 " --features=%" PRId64
	         " --nnz=%" PRId64 " --spread=%g --support=%" PRId64
	         " --noise=%g --seed=%" PRIu64 "\n",
	         n, p, k, spread, support, noise, seed);

	/* X, column by column, adding each planted column into y. */
	double *y = xmalloc((size_t)n, sizeof *y);
	for (int64_t i = 0; i < n; i++)
		y[i] = 0;
	int32_t *row = xmalloc((size_t)k, sizeof *row);
	int64_t *val = xmalloc((size_t)k, sizeof *val);
	unsigned char *taken = xmalloc((size_t)n, 1);
	memset(taken, 0, (size_t)n);
	outfile ox = out_open(out);
	fputs(cmd, ox.f);
	fprintf(ox.f, "# X: %" PRId64 " rows x %" PRId64 " features, one line a"
	        " feature: row:value ...\n", n, p);
	size_t cap = 1 << 16;
	char *buf = xmalloc(cap, 1);
	for (int64_t j = 0; j < p; j++) {
		column(&s, j, row, val, taken);
		char *q = buf;
		for (int64_t t = 0; t < k; t++) {
			/* An entry takes at most 10 + 1 + 20 + 6 bytes. */
			if ((size_t)(q - buf) + 40 > cap) {
				fwrite(buf, 1, (size_t)(q - buf), ox.f);
				q = buf;
			}
			if (t)
				*q++ = ' ';
			q = put_uint(q, (uint64_t)row[t]);
			*q++ = ':';
			q = put_fixed4(q, val[t]);
			if (beta[j] != 0)
				y[row[t]] += (double)val[t] / 1e4 * beta[j];
		}
		*q++ = '\n';
		fwrite(buf, 1, (size_t)(q - buf), ox.f);
		out_check(&ox);
	}
	out_close(&ox);
	rng rn = rng_make(seed, 2);
	for (int64_t i = 0; i < n; i++)
		y[i] += noise * normal(&rn);

	/* lambda_max = max_j |x_j . y| / n: the columns again, from their
	 * own streams, rather than all of X kept in memory. */
	double lmax = 0;
	for (int64_t j = 0; j < p; j++) {
		column(&s, j, row, val, taken);
		double c = 0;
		for (int64_t t = 0; t < k; t++)
			c += (double)val[t] / 1e4 * y[row[t]];
		c = fabs(c) / (double)n;
		if (c > lmax)
			lmax = c;
	}

	outfile oy = out_open(y_out);
	fputs(cmd, oy.f);
	fprintf(oy.f, "# y: %" PRId64 " rows\n# lambda_max %.17g\n", n, lmax);
	for (int64_t i = 0; i < n; i++)
		fprintf(oy.f, "%.17g\n", y[i]);
	out_check(&oy);
	out_close(&oy);

	if (beta_out) {
		outfile ob = out_open(beta_out);
		fputs(cmd, ob.f);
		fprintf(ob.f, "# b*: %" PRId64 " features, %" PRId64 " nonzero\n", p, support);
		for (int64_t j = 0; j < p; j++)
			fprintf(ob.f, "%.17g\n", beta[j]);
		out_check(&ob);
		out_close(&ob);
	}
	free(buf);
	free(taken);
	free(val);
	free(row);
	free(y);
	free(beta);
	return 0;
}
