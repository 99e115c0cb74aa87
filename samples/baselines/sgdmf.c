/* sgdmf.c: matrix factorisation by stochastic gradient descent, serial.
 *
 * Learns user factors W (nu x K) and item factors H (nv x K) so that
 * W[i] . H[j] approximates rating r of user i for item j.  This is the
 * program samples/sgdmf.sap was ported from, and the two train the same
 * model bit for bit: same initial factors, same update order, same float
 * arithmetic.  Keep them in step when changing either.
 *
 * With --adaptive=true it is instead the program samples/sgdmf-adaptive.sap
 * was ported from: LIBMF's per-row learning rates (see that file).
 *
 *   gcc -std=c11 -O2 -Wall -Wextra samples/baselines/sgdmf.c -lm
 *   ./a.out --data=samples/data/ratings-small.txt --iters=10
 */
#define _POSIX_C_SOURCE 200809L     /* getline, clock_gettime */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <Random123/philox.h>
#include "lanes.h"

/* Factor length; bench/sgdmf.sh builds other lengths with -DK=N. */
#ifndef K
#define K 16
#endif

typedef struct Rating {
	int i;          /* user */
	int j;          /* item */
	float r;        /* rating */
} Rating;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "sgdmf: out of memory\n");
		exit(1);
	}
	return p;
}

/* ==== Loading ============================================================ */

static void bad_line(const char *path, long line, const char *what)
{
	fprintf(stderr, "%s:%ld: error: %s\n", path, line, what);
	exit(1);
}

/* One "user item rating" per line; blank lines and '#' comments skipped. */
static Rating *load(const char *path, long *count)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "sgdmf: cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	Rating *A = NULL;
	long n = 0, cap = 0, line = 0;
	char *buf = NULL;
	size_t bufsize = 0;
	while (getline(&buf, &bufsize, f) != -1) {
		line++;
		char *p = buf + strspn(buf, " \t\r\n\v\f");
		if (*p == '\0' || *p == '#')
			continue;
		char *end;
		Rating a;
		errno = 0;
		long i = strtol(p, &end, 10);
		if (end == p || errno || i < 0 || i > INT32_MAX)
			bad_line(path, line, "field 'i': expected a user id >= 0");
		p = end;
		long j = strtol(p, &end, 10);
		if (end == p || errno || j < 0 || j > INT32_MAX)
			bad_line(path, line, "field 'j': expected an item id >= 0");
		p = end;
		a.i = (int)i;
		a.j = (int)j;
		a.r = strtof(p, &end);
		if (end == p)
			bad_line(path, line, "field 'r': expected a float");
		if (end[strspn(end, " \t\r\n\v\f")] != '\0')
			bad_line(path, line, "extra field after the rating");
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			A = realloc(A, (size_t)cap * sizeof *A);
			if (!A) {
				fprintf(stderr, "sgdmf: out of memory\n");
				exit(1);
			}
		}
		A[n++] = a;
	}
	if (ferror(f)) {
		fprintf(stderr, "sgdmf: cannot read %s\n", path);
		exit(1);
	}
	free(buf);
	fclose(f);
	*count = n;
	return A;
}

/* ==== Initial factors ==================================================== */

/* FNV-1a, 32 bits: names the random stream of each factor matrix. */
static uint32_t fnv1a32(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Uniform in [lo, hi), as libsap's uniform() initialiser draws it: row i's
 * d-th value comes from Philox4x32-10 at counter {i, 0, d} under key
 * {seed, fnv1a32(name)}, so it does not depend on how rows are spread
 * over ranks. */
static void init_uniform(float (*X)[K], long rows, uint32_t seed,
                         const char *name, double lo, double hi)
{
	philox4x32_key_t key = {{ seed, fnv1a32(name) }};
	for (long i = 0; i < rows; i++) {
		for (int d = 0; d < K; d++) {
			philox4x32_ctr_t c = {{ (uint32_t)i, (uint32_t)((uint64_t)i >> 32),
			                        0, (uint32_t)d }};
			philox4x32_ctr_t b = philox4x32(c, key);
			double u = ((b.v[0] >> 5) * 67108864.0 + (b.v[1] >> 6))
			           * (1.0 / 9007199254740992.0);
			X[i][d] = (float)(lo + (hi - lo) * u);
		}
	}
}

/* ==== Training =========================================================== */

/* The SAP dot(): in float, in sap(7)'s lane order (lanes.h). */
static float dot(const float *a, const float *b)
{
	return lanes_dot_f(a, b, K);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* sgdmf-adaptive.sap's row: LIBMF's two parts, each with its own rate. */
#define S 8
typedef struct Factors {
	float s[S];             /* the first S dimensions */
	float f[K - S];         /* the others */
	float gs, gf;           /* the sums of the mean squared gradients, from 1 */
} Factors;

static float predict(const Factors *w, const Factors *h)
{
	return lanes_dot_f(w->s, h->s, S) + lanes_dot_f(w->f, h->f, K - S);
}

static double rmse_of(const Rating *T, long nT, const Factors *W, const Factors *H, float scale)
{
	double se = 0;
	for (long n = 0; n < nT; n++) {
		Rating a = T[n];
		double e = a.r - scale * predict(&W[a.i], &H[a.j]);
		se += e * e;
	}
	return sqrt(se / nT);
}

/* One part of rows w and h: g = lam x - err y for each, x -= eta /
 * sqrt(G) g, G += mean(g^2). */
static void step(float *x, float *y, float *gx, float *gy, int n, float lam, float err,
                 float eta)
{
	float dx[K], dy[K];
	for (int k = 0; k < n; k++)
		dx[k] = lam * x[k] - err * y[k];
	for (int k = 0; k < n; k++)
		dy[k] = lam * y[k] - err * x[k];
	float rx = eta / sqrtf(*gx), ry = eta / sqrtf(*gy);
	for (int k = 0; k < n; k++)
		x[k] -= rx * dx[k];
	for (int k = 0; k < n; k++)
		y[k] -= ry * dy[k];
	*gx += lanes_dot_f(dx, dx, n) / n;
	*gy += lanes_dot_f(dy, dy, n) / n;
}

static void split(Factors *X, float (*X0)[K], long rows)
{
	for (long i = 0; i < rows; i++) {
		memcpy(X[i].s, X0[i], sizeof X[i].s);
		memcpy(X[i].f, X0[i] + S, sizeof X[i].f);
		X[i].gs = X[i].gf = 1;
	}
}

/* LIBMF's schedule (samples/sgdmf-adaptive.sap), into W0 on the ratings'
 * scale. */
static void train_adaptive(const Rating *A, long nA, const Rating *T, long nT, int nu,
                           int nv, int iters, float eta, float lambda, uint32_t seed,
                           float (*W0)[K], float (*H0)[K])
{
	double s1 = 0, s2 = 0;
	for (long n = 0; n < nA; n++) {
		s1 += A[n].r;
		s2 += (double)A[n].r * A[n].r;
	}
	double mean = s1 / nA;
	double sd = sqrt(s2 / nA - mean * mean);
	float scale = (float)(sd > 1e-4 ? sd : 1e-4);
	float inv = 1 / scale;
	float lam = lambda / scale;
	init_uniform(W0, nu, seed, "W0", 0, (float)sqrt(1.0 / K));
	init_uniform(H0, nv, seed, "H0", 0, (float)sqrt(1.0 / K));
	Factors *W = xmalloc((size_t)nu * sizeof *W), *H = xmalloc((size_t)nv * sizeof *H);
	split(W, W0, nu);
	split(H, H0, nv);

	double t0 = now();
	for (int it = 0; it < iters; it++) {
		double se = 0;
		for (long n = 0; n < nA; n++) {
			Rating a = A[n];
			Factors *w = &W[a.i], *h = &H[a.j];
			float err = a.r * inv - predict(w, h);
			se += err * err;
			step(w->s, h->s, &w->gs, &h->gs, S, lam, err, eta);
			/* LIBMF's first pass learns the first part only. */
			if (it > 0)
				step(w->f, h->f, &w->gf, &h->gf, K - S, lam, err, eta);
		}
		printf("iter %d train_rmse %.4f test_rmse %.4f time %.3f\n", it,
		       scale * sqrt(se / nA), rmse_of(T, nT, W, H, scale), now() - t0);
	}
	float root = sqrtf(scale);
	for (int i = 0; i < nu; i++) {
		for (int k = 0; k < S; k++)
			W0[i][k] = W[i].s[k] * root;
		for (int k = S; k < K; k++)
			W0[i][k] = W[i].f[k - S] * root;
	}
	free(W);
	free(H);
}

/* ==== Options ========================================================== */

static const char usage[] =
	"usage: sgdmf [--data=FILE] [--test=FILE] [--out=FILE] [--iters=N]\n"
	"             [--gamma=F] [--lambda=F] [--seed=S] [--rmse_pass=BOOL]\n"
	"             [--adaptive=BOOL --eta=F]\n";

static _Noreturn void bad_option(const char *arg)
{
	fprintf(stderr, "sgdmf: bad option '%s'\n%s", arg, usage);
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

static long long int_option(const char *arg, const char *v, long long lo,
                            long long hi)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (end == v || *end || errno || x < lo || x > hi)
		bad_option(arg);
	return x;
}

static int bool_option(const char *arg, const char *v)
{
	if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
		return 1;
	if (strcmp(v, "false") != 0 && strcmp(v, "0") != 0)
		bad_option(arg);
	return 0;
}

static float float_option(const char *arg, const char *v)
{
	char *end;
	errno = 0;
	float x = strtof(v, &end);
	if (end == v || *end || errno)
		bad_option(arg);
	return x;
}

int main(int argc, char **argv)
{
	const char *data = "samples/data/ratings-small.txt";
	const char *test = "";          /* "" for none */
	const char *out = "W.txt";
	int iters = 10;
	float gamma = 0.01f;            /* learning rate */
	float lambda = 0.05f;           /* L2 regularisation */
	uint32_t seed = 1;
	int rmse_pass = 0;              /* the training RMSE in a pass of its own */
	int adaptive = 0;               /* LIBMF's schedule, as sgdmf-adaptive.sap */
	float eta = 0.1f;               /* its base learning rate */

	for (int k = 1; k < argc; k++) {
		const char *a = argv[k], *v;
		if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if ((v = value(a, "data")))
			data = v;
		else if ((v = value(a, "test")))
			test = v;
		else if ((v = value(a, "out")))
			out = v;
		else if ((v = value(a, "iters")))
			iters = (int)int_option(a, v, INT32_MIN, INT32_MAX);
		else if ((v = value(a, "gamma")))
			gamma = float_option(a, v);
		else if ((v = value(a, "lambda")))
			lambda = float_option(a, v);
		else if ((v = value(a, "seed")))
			seed = (uint32_t)int_option(a, v, 0, UINT32_MAX);
		else if ((v = value(a, "rmse_pass")))
			rmse_pass = bool_option(a, v);
		else if ((v = value(a, "adaptive")))
			adaptive = bool_option(a, v);
		else if ((v = value(a, "eta")))
			eta = float_option(a, v);
		else
			bad_option(a);
	}

	long nA;
	Rating *A = load(data, &nA);

	/* Size the factors from the largest user and item ids. */
	int nu = 0;
	int nv = 0;
	for (long n = 0; n < nA; n++) {
		if (A[n].i + 1 > nu)
			nu = A[n].i + 1;
		if (A[n].j + 1 > nv)
			nv = A[n].j + 1;
	}

	float (*W)[K] = xmalloc((size_t)nu * sizeof *W);
	float (*H)[K] = xmalloc((size_t)nv * sizeof *H);
	if (adaptive) {
		if (strcmp(test, "") == 0) {
			fprintf(stderr, "sgdmf: --adaptive=true needs --test=FILE\n");
			return 2;
		}
		long nT;
		Rating *T = load(test, &nT);
		train_adaptive(A, nA, T, nT, nu, nv, iters, eta, lambda, seed, W, H);
		free(T);
		test = "";
		iters = 0;
	} else {
		init_uniform(W, nu, seed, "W", 0, 0.1);
		init_uniform(H, nv, seed, "H", 0, 0.1);
	}

	for (int it = 0; it < iters; it++) {
		double se = 0;
		for (long n = 0; n < nA; n++) {
			Rating a = A[n];
			float err = a.r - dot(W[a.i], H[a.j]);
			se += err * err;
			float w[K];
			for (int k = 0; k < K; k++)
				w[k] = W[a.i][k];
			for (int k = 0; k < K; k++)
				W[a.i][k] += gamma * (err * H[a.j][k] - lambda * w[k]);
			for (int k = 0; k < K; k++)
				H[a.j][k] += gamma * (err * w[k] - lambda * H[a.j][k]);
		}
		if (rmse_pass) {
			se = 0;
			for (long n = 0; n < nA; n++) {
				Rating a = A[n];
				double e = a.r - dot(W[a.i], H[a.j]);
				se += e * e;
			}
		}
		printf("iter %d train_rmse %.4f\n", it, sqrt(se / nA));
	}

	if (strcmp(test, "") != 0) {
		long nT;
		Rating *T = load(test, &nT);
		for (long n = 0; n < nT; n++)
			if (T[n].i >= nu || T[n].j >= nv) {
				fprintf(stderr, "%s: error: rating %ld: user %d or item %d "
				        "not in the training data\n", test, n, T[n].i, T[n].j);
				return 1;
			}
		double se = 0;
		for (long n = 0; n < nT; n++) {
			Rating a = T[n];
			double e = a.r - dot(W[a.i], H[a.j]);
			se += e * e;
		}
		printf("test_rmse %.4f\n", sqrt(se / nT));
		free(T);
	}

	FILE *f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "sgdmf: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (int i = 0; i < nu; i++)
		for (int k = 0; k < K; k++)
			fprintf(f, "%.9g%c", W[i][k], k == K - 1 ? '\n' : ' ');
	if (fclose(f) != 0) {
		fprintf(stderr, "sgdmf: cannot write %s\n", out);
		return 1;
	}
	free(W);
	free(H);
	free(A);
	return 0;
}
