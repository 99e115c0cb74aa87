/* transe.c: TransE (Bordes et al. 2013) by SGD, serial.
 *
 * The serial twin of samples/transe.sap: the same algorithm, statement for
 * statement, with the same float arithmetic and the same random numbers,
 * so that the SAP program run on one thread (iterations in index order)
 * trains the same embeddings bit for bit.  tests/run/transe-twin.sh checks
 * it.  Keep the two in step when changing either.
 *
 * The random numbers are libsap's (runtime/core/rng.c), Philox4x32-10 under
 * key {seed, stream} at counter {index lo, index hi, invocation, draw}:
 *  - initialisers: stream = FNV-1a of the dvector's name, index = row,
 *    invocation 0, draw = component;
 *  - a parallel loop body: stream = the loop's number among the program's
 *    parallel loops (1-based, source order), index = iteration,
 *    invocation = earlier runs of that loop, and draw = site << 24 | n,
 *    site being the 1-based rank of the rand/rand_int/rand_normal call in
 *    the body's source and n the draws of that site in this iteration.
 *
 *   cc -std=c11 -O2 -ffp-contract=off -Wall -Wextra \
 *       samples/baselines/transe.c -lm
 *   ./a.out --train=samples/data/wn18/train.txt ... --epochs=10
 */
#define _POSIX_C_SOURCE 200809L     /* getline */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Random123/philox.h>
#include "lanes.h"

#define D 20

/* The training loop is the seventh parallel loop of transe.sap: three
 * size the embeddings, one normalises R, and with --ball=1 two draw E
 * and R anew before it. */
#define BALL_E_LOOP 5
#define BALL_R_LOOP 6
#define TRAIN_LOOP 7
/* Its rand() and rand_int() calls, in source order. */
#define SITE_HEAD 1
#define SITE_ENTITY 2

typedef struct Triple {
	int h;          /* head entity */
	int r;          /* relation */
	int t;          /* tail entity */
} Triple;

/* Parameters, with transe.sap's defaults: a float param's default is the
 * double literal converted, as sapc emits it. */
static const char *train = "samples/data/wn18/train.txt";
static const char *valid = "samples/data/wn18/valid.txt";
static const char *test = "samples/data/wn18/test.txt";
static const char *out = "E.txt";
static int epochs = 100;
static float lr = (float)0.01;
static float margin = (float)2;
static int norm = 1;
static int ball = 0;
static int neval = 500;
static uint32_t seed = 1;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "transe: out of memory\n");
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

static int field(const char *path, long line, char **p, const char *what)
{
	char *end;
	errno = 0;
	long x = strtol(*p, &end, 10);
	if (end == *p || errno || x < INT32_MIN || x > INT32_MAX)
		bad_line(path, line, what);
	*p = end;
	return (int)x;
}

/* One "h r t" per line; blank lines and '#' comments skipped. */
static Triple *load(const char *path, long *count)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "transe: cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	Triple *A = NULL;
	long n = 0, cap = 0, line = 0;
	char *buf = NULL;
	size_t bufsize = 0;
	while (getline(&buf, &bufsize, f) != -1) {
		line++;
		char *p = buf + strspn(buf, " \t\r\n\v\f");
		if (*p == '\0' || *p == '#')
			continue;
		Triple a;
		a.h = field(path, line, &p, "field 'h': expected an int");
		a.r = field(path, line, &p, "field 'r': expected an int");
		a.t = field(path, line, &p, "field 't': expected an int");
		if (p[strspn(p, " \t\r\n\v\f")] != '\0')
			bad_line(path, line, "extra field after 't'");
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			A = realloc(A, (size_t)cap * sizeof *A);
			if (!A) {
				fprintf(stderr, "transe: out of memory\n");
				exit(1);
			}
		}
		A[n++] = a;
	}
	if (ferror(f)) {
		fprintf(stderr, "transe: cannot read %s\n", path);
		exit(1);
	}
	free(buf);
	fclose(f);
	*count = n;
	return A;
}

/* ==== Random numbers ===================================================== */

static uint32_t fnv1a32(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static philox4x32_ctr_t block(uint32_t stream, int64_t index, uint32_t invocation,
                              uint32_t draw)
{
	philox4x32_key_t k = {{ seed, stream }};
	philox4x32_ctr_t c = {{ (uint32_t)index, (uint32_t)((uint64_t)index >> 32),
	                        invocation, draw }};
	return philox4x32(c, k);
}

static double bits53(uint32_t a, uint32_t b)
{
	return (a >> 5) * 67108864.0 + (b >> 6);
}

/* rand() and rand_int(n) of libsap, from their block. */
static double rand_of(philox4x32_ctr_t w)
{
	return bits53(w.v[0], w.v[1]) * (1.0 / 9007199254740992.0);
}

static double rand_normal_of(philox4x32_ctr_t w)
{
	double u1 = (bits53(w.v[0], w.v[1]) + 1.0) * (1.0 / 9007199254740992.0);
	double u2 = bits53(w.v[2], w.v[3]) * (1.0 / 9007199254740992.0);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}

static int64_t rand_int_of(philox4x32_ctr_t w, int64_t n)
{
	uint64_t x = (uint64_t)w.v[0] << 32 | w.v[1];
	return (int64_t)(((unsigned __int128)x * (uint64_t)n) >> 64);
}

/* dvector<float[D]> X(rows) = uniform(lo, hi), computed in double as
 * libsap does, then rounded to float. */
static void init_uniform(float (*X)[D], long rows, const char *name, double lo,
                         double hi)
{
	uint32_t stream = fnv1a32(name);
	for (long i = 0; i < rows; i++)
		for (int d = 0; d < D; d++)
			X[i][d] = (float)(lo + (hi - lo) * rand_of(block(stream, i, 0, (uint32_t)d)));
}

/* ==== The model ========================================================== */

/* sapc's dot(): in float, in sap(7)'s lane order (lanes.h). */
static float dot(const float *a, const float *b)
{
	return lanes_dot_f(a, b, D);
}

static float dist(const float *x)
{
	float s = 0;
	if (norm == 1) {
		for (int k = 0; k < D; k++)
			s += fabsf(x[k]);
		return s;
	}
	for (int k = 0; k < D; k++)
		s += x[k] * x[k];
	return sqrtf(s);
}

static void dist_grad(float *g, const float *x, float d)
{
	for (int k = 0; k < D; k++) {
		if (norm == 1)
			g[k] = x[k] > 0 ? 1.0f : (x[k] < 0 ? -1.0f : 0.0f);
		else
			g[k] = d > 0 ? x[k] / d : 0.0f;
	}
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int64_t key(int64_t h, int64_t r, int64_t t, int64_t nr, int64_t ne)
{
	return (h * nr + r) * ne + t;
}

/* ==== The filter set: open addressing on the encoded triples ============= */

typedef struct keyset {
	int64_t *slot;          /* -1 for empty; keys are >= 0 */
	size_t mask;
} keyset;

static size_t mix(int64_t k)
{
	uint64_t z = (uint64_t)k * 0x9e3779b97f4a7c15u;
	return (size_t)(z ^ (z >> 29));
}

static keyset keyset_make(size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	keyset s = { xmalloc(cap * sizeof(int64_t)), cap - 1 };
	for (size_t k = 0; k < cap; k++)
		s.slot[k] = -1;
	return s;
}

static void keyset_add(keyset *s, int64_t k)
{
	size_t i = mix(k) & s->mask;
	while (s->slot[i] != -1 && s->slot[i] != k)
		i = (i + 1) & s->mask;
	s->slot[i] = k;
}

static bool keyset_has(const keyset *s, int64_t k)
{
	for (size_t i = mix(k) & s->mask; s->slot[i] != -1; i = (i + 1) & s->mask)
		if (s->slot[i] == k)
			return true;
	return false;
}

/* ==== Options ============================================================ */

static const char usage[] =
	"usage: transe [--train=FILE] [--valid=FILE] [--test=FILE] [--out=FILE]\n"
	"              [--epochs=N] [--lr=F] [--margin=F] [--norm=1|2] [--ball=0|1]\n"
	"              [--neval=N] [--seed=S]\n";

static _Noreturn void bad_option(const char *arg)
{
	fprintf(stderr, "transe: bad option '%s'\n%s", arg, usage);
	exit(2);
}

static const char *value(const char *arg, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(arg, "--", 2) != 0 || strncmp(arg + 2, name, n) != 0
	    || arg[2 + n] != '=')
		return NULL;
	return arg + 3 + n;
}

static long long int_option(const char *arg, const char *v, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (end == v || *end || errno || x < lo || x > hi)
		bad_option(arg);
	return x;
}

/* strtof, as libsap parses a float param. */
static float float_option(const char *arg, const char *v)
{
	char *end;
	errno = 0;
	float x = strtof(v, &end);
	if (end == v || *end || errno)
		bad_option(arg);
	return x;
}

static void write_rows(const char *path, float (*X)[D], long rows)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "transe: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (long i = 0; i < rows; i++)
		for (int k = 0; k < D; k++)
			fprintf(f, "%.9g%c", X[i][k], k == D - 1 ? '\n' : ' ');
	if (fclose(f) != 0) {
		fprintf(stderr, "transe: cannot write %s\n", path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k], *v;
		if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if ((v = value(a, "train")))
			train = v;
		else if ((v = value(a, "valid")))
			valid = v;
		else if ((v = value(a, "test")))
			test = v;
		else if ((v = value(a, "out")))
			out = v;
		else if ((v = value(a, "epochs")))
			epochs = (int)int_option(a, v, INT32_MIN, INT32_MAX);
		else if ((v = value(a, "lr")))
			lr = float_option(a, v);
		else if ((v = value(a, "margin")))
			margin = float_option(a, v);
		else if ((v = value(a, "norm")))
			norm = (int)int_option(a, v, INT32_MIN, INT32_MAX);
		else if ((v = value(a, "ball")))
			ball = (int)int_option(a, v, INT32_MIN, INT32_MAX);
		else if ((v = value(a, "neval")))
			neval = (int)int_option(a, v, INT32_MIN, INT32_MAX);
		else if ((v = value(a, "seed")))
			seed = (uint32_t)int_option(a, v, 0, UINT32_MAX);
		else
			bad_option(a);
	}

	long nTr, nVa, nTe;
	Triple *Tr = load(train, &nTr);
	Triple *Va = load(valid, &nVa);
	Triple *Te = load(test, &nTe);

	int ne = 0;
	int nr = 0;
	Triple *split[3] = { Tr, Va, Te };
	long nsplit[3] = { nTr, nVa, nTe };
	for (int s = 0; s < 3; s++)
		for (long n = 0; n < nsplit[s]; n++) {
			Triple a = split[s][n];
			ne = imax(ne, imax(a.h, a.t) + 1);
			nr = imax(nr, a.r + 1);
		}
	printf("entities %d relations %d train %ld valid %ld test %ld\n",
	       ne, nr, nTr, nVa, nTe);
	/* transe.sap indexes E and R with bounds checks; here a bad id would
	 * corrupt memory instead, so check the ids once. */
	for (int s = 0; s < 3; s++)
		for (long n = 0; n < nsplit[s]; n++)
			if (split[s][n].h < 0 || split[s][n].r < 0 || split[s][n].t < 0) {
				fprintf(stderr, "transe: error: negative id in triple %ld of %s\n",
				        n, s == 0 ? train : s == 1 ? valid : test);
				return 1;
			}

	double bound = 6 / sqrt(D);
	float (*E)[D] = xmalloc((size_t)ne * sizeof *E);
	float (*R)[D] = xmalloc((size_t)nr * sizeof *R);
	init_uniform(E, ne, "E", -bound, bound);
	init_uniform(R, nr, "R", -bound, bound);
	for (long i = 0; i < nr; i++) {
		float l = sqrtf(dot(R[i], R[i]));
		for (int k = 0; k < D; k++)
			R[i][k] /= l;
	}
	if (ball != 0) {
		for (long i = 0; i < ne; i++)
			for (int k = 0; k < D; k++)
				E[i][k] = (float)(rand_normal_of(block(BALL_E_LOOP, i, 0,
				                                       1u << 24 | (uint32_t)k)) / D);
		for (long i = 0; i < nr; i++)
			for (int k = 0; k < D; k++)
				R[i][k] = (float)(rand_normal_of(block(BALL_R_LOOP, i, 0,
				                                       1u << 24 | (uint32_t)k)) / D);
	}

	for (int ep = 0; ep < epochs; ep++) {
		double loss = 0;
		for (long n = 0; n < nTr; n++) {
			uint32_t draws_entity = 0;
			Triple a = Tr[n];
			bool head = rand_of(block(TRAIN_LOOP, n, (uint32_t)ep,
			                          SITE_HEAD << 24 | 0)) < 0.5;
			int old = head ? a.h : a.t;
			int c = old;
			while (c == old && ne > 1)
				c = (int)rand_int_of(block(TRAIN_LOOP, n, (uint32_t)ep,
				                           SITE_ENTITY << 24 | draws_entity++), ne);
			int h2 = head ? c : a.h;
			int t2 = head ? a.t : c;

			float l;
			if (ball == 0) {
				l = sqrtf(dot(E[a.h], E[a.h]));
				for (int k = 0; k < D; k++)
					E[a.h][k] /= l;
				l = sqrtf(dot(E[a.t], E[a.t]));
				for (int k = 0; k < D; k++)
					E[a.t][k] /= l;
				l = sqrtf(dot(E[c], E[c]));
				for (int k = 0; k < D; k++)
					E[c][k] /= l;
			}

			float r[D], p[D], q[D];
			memcpy(r, R[a.r], sizeof r);
			for (int k = 0; k < D; k++)
				p[k] = E[a.h][k] + r[k] - E[a.t][k];
			for (int k = 0; k < D; k++)
				q[k] = E[h2][k] + r[k] - E[t2][k];
			float dp = dist(p);
			float dq = dist(q);
			float z = margin + dp - dq;
			if (z > 0) {
				loss += z;
				float gp[D], gq[D];
				dist_grad(gp, p, dp);
				for (int k = 0; k < D; k++)
					gp[k] = lr * gp[k];
				dist_grad(gq, q, dq);
				for (int k = 0; k < D; k++)
					gq[k] = lr * gq[k];
				for (int k = 0; k < D; k++)
					E[a.h][k] -= gp[k];
				for (int k = 0; k < D; k++)
					E[a.t][k] += gp[k];
				for (int k = 0; k < D; k++)
					R[a.r][k] -= gp[k];
				for (int k = 0; k < D; k++)
					E[h2][k] += gq[k];
				for (int k = 0; k < D; k++)
					E[t2][k] -= gq[k];
				for (int k = 0; k < D; k++)
					R[a.r][k] += gq[k];
			}
			if (ball != 0) {
				float *row[4] = { R[a.r], E[a.h], E[a.t], E[c] };
				for (int w = 0; w < 4; w++) {
					l = sqrtf(dot(row[w], row[w]));
					if (l > 1)
						for (int k = 0; k < D; k++)
							row[w][k] /= l;
				}
			}
		}
		printf("epoch %d loss %.6f\n", ep, loss / nTr);
	}

	keyset known = keyset_make((size_t)(nTr + nVa + nTe));
	for (int s = 0; s < 3; s++)
		for (long n = 0; n < nsplit[s]; n++) {
			Triple a = split[s][n];
			keyset_add(&known, key(a.h, a.r, a.t, nr, ne));
		}

	long nt = nTe;
	if (neval >= 0 && neval < nt)
		nt = neval;
	long ranks = 0;
	long hits = 0;
	for (long n = 0; n < nt; n++) {
		Triple a = Te[n];
		float r[D], eh[D], et[D], x[D];
		memcpy(r, R[a.r], sizeof r);
		memcpy(eh, E[a.h], sizeof eh);
		memcpy(et, E[a.t], sizeof et);
		for (int k = 0; k < D; k++)
			x[k] = eh[k] + r[k] - et[k];
		float d = dist(x);
		long rh = 1;
		long rt = 1;
		for (int e = 0; e < ne; e++) {
			if (e != a.h) {
				for (int k = 0; k < D; k++)
					x[k] = E[e][k] + r[k] - et[k];
				if (dist(x) < d && !keyset_has(&known, key(e, a.r, a.t, nr, ne)))
					rh++;
			}
			if (e != a.t) {
				for (int k = 0; k < D; k++)
					x[k] = eh[k] + r[k] - E[e][k];
				if (dist(x) < d && !keyset_has(&known, key(a.h, a.r, e, nr, ne)))
					rt++;
			}
		}
		ranks += rh + rt;
		if (rh <= 10)
			hits++;
		if (rt <= 10)
			hits++;
	}
	if (nt > 0)
		printf("test %ld mean_rank %.2f hits@10 %.4f\n", nt,
		       (double)ranks / (2 * nt), (double)hits / (2 * nt));
	write_rows(out, E, ne);

	free(known.slot);
	free(E);
	free(R);
	free(Tr);
	free(Va);
	free(Te);
	return 0;
}
