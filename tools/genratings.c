/* genratings: synthetic Netflix-shaped ratings for the SGDMF sample and
 * benchmarks.
 *
 * A planted rank-R model U (users x R), V (items x R) gives each rating
 *     r = clamp(3 + 1.2 * (u . v) + noise, 1, 5),
 * written with 2 decimals as "user item rating", 0-based ids.  Users and
 * items are drawn with Zipf-like popularity (exponent 0.5 for users, 0.8 for
 * items), as in real rating data where a few titles get most of the votes.
 * Every user and item appears at least once in the training file, so a
 * trainer that sizes its factors from the largest id sees every row.
 *
 * The output is a pure function of the options: the generator is our own
 * (xoshiro256** seeded by splitmix64), not the C library's.
 */
#define _POSIX_C_SOURCE 200809L     /* fsync, fileno */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gen.h"

const char *const gen_name = "genratings";

#define USER_SKEW 0.5
#define ITEM_SKEW 0.8

static void usage(FILE *f)
{
	fputs("usage: genratings [--users=N] [--items=N] [--ratings=N] [--test=N]\n"
	      "                  [--rank=N] [--noise=SD] [--seed=S]\n"
	      "                  [--out=FILE] [--test-out=FILE]\n"
	      "\n"
	      "Write N synthetic training ratings \"user item rating\" to FILE\n"
	      "(default: standard output) and --test held-out ones to --test-out.\n"
	      "Defaults: --users=600 --items=400 --ratings=30000 --test=0\n"
	      "          --rank=8 --noise=0.3 --seed=1\n", f);
}

/* ==== Random numbers ==================================================== */

/* ==== Skewed popularity ================================================= */

/* Ids are drawn by popularity rank (weight rank^-skew), then mapped through
 * a random permutation: real ids do not come sorted by popularity, and a
 * block distribution over ids should not get all the hot rows on one rank. */
typedef struct popularity {
	int64_t n;
	double *cdf;            /* cdf[k] = P(rank <= k) */
	int32_t *id;            /* popularity rank -> id */
} popularity;

static popularity popularity_make(int64_t n, double skew, rng *r)
{
	popularity p = { n, xmalloc((size_t)n, sizeof(double)),
	                 xmalloc((size_t)n, sizeof(int32_t)) };
	double sum = 0;
	for (int64_t k = 0; k < n; k++)
		p.cdf[k] = sum += pow((double)(k + 1), -skew);
	for (int64_t k = 0; k < n; k++)
		p.cdf[k] /= sum;
	for (int64_t k = 0; k < n; k++)
		p.id[k] = (int32_t)k;
	for (int64_t k = n - 1; k > 0; k--) {
		int64_t m = below(r, k + 1);
		int32_t t = p.id[k];
		p.id[k] = p.id[m];
		p.id[m] = t;
	}
	return p;
}

static int32_t popularity_draw(const popularity *p, rng *r)
{
	double u = uniform(r);
	int64_t lo = 0, hi = p->n - 1;  /* first k with u < cdf[k] */
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (u < p->cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return p->id[lo];
}

/* ==== Ratings =========================================================== */

/* Kept in hundredths so that printing needs no floating point and the
 * training set can be shuffled in 12 bytes a rating. */
typedef struct rating {
	int32_t user, item;
	int32_t cents;
} rating;

typedef struct model {
	int rank;
	double noise;
	double *U, *V;          /* users x rank, items x rank */
} model;

static int32_t rate(const model *m, int32_t user, int32_t item, rng *r)
{
	const double *u = m->U + (size_t)user * (size_t)m->rank;
	const double *v = m->V + (size_t)item * (size_t)m->rank;
	double dot = 0;
	for (int k = 0; k < m->rank; k++)
		dot += u[k] * v[k];
	double x = 3.0 + 1.2 * dot + m->noise * normal(r);
	x = x < 1.0 ? 1.0 : x > 5.0 ? 5.0 : x;
	return (int32_t)lround(x * 100.0);
}

/* ==== Output ============================================================ */

/* Written to PATH.tmp and renamed at the end, so an interrupted run never
 * leaves a truncated file that make would take as up to date. */

/* printf costs about as much as everything else together at benchmark
 * sizes, so lines are formatted by hand. */
static char *put_uint(char *p, uint32_t x)
{
	char buf[10];
	int n = 0;
	do
		buf[n++] = (char)('0' + x % 10);
	while (x /= 10);
	while (n)
		*p++ = buf[--n];
	return p;
}

static void write_ratings(outfile *o, const rating *a, int64_t n)
{
	char buf[1 << 16];
	char *p = buf;
	for (int64_t k = 0; k < n; k++) {
		if (p > buf + sizeof buf - 64) {
			fwrite(buf, 1, (size_t)(p - buf), o->f);
			p = buf;
		}
		p = put_uint(p, (uint32_t)a[k].user);
		*p++ = ' ';
		p = put_uint(p, (uint32_t)a[k].item);
		*p++ = ' ';
		p = put_uint(p, (uint32_t)(a[k].cents / 100));
		*p++ = '.';
		*p++ = (char)('0' + a[k].cents / 10 % 10);
		*p++ = (char)('0' + a[k].cents % 10);
		*p++ = '\n';
	}
	fwrite(buf, 1, (size_t)(p - buf), o->f);
	if (ferror(o->f)) {
		int e = errno;
		if (o->path)
			unlink(o->tmp);
		fail(1, "cannot write %s: %s", o->path ? o->path : "standard output",
		     strerror(e));
	}
}

/* ==== Options =========================================================== */

int main(int argc, char **argv)
{
	int64_t users = 600, items = 400, nratings = 30000, ntest = 0;
	int rank = 8;
	double noise = 0.3;
	uint64_t seed = 1;
	const char *out = NULL, *test_out = NULL;

	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		const char *eq = strchr(a, '=');
		if (strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strncmp(a, "--", 2) != 0)
			fail(2, "unexpected argument '%s'", a);
		if (!eq)
			fail(2, "option '%s' needs =VALUE", a);
		size_t len = (size_t)(eq - a - 2);
		const char *name = a + 2, *val = eq + 1;
		/* Ids are int in the trainers; below() shuffles < 2^32 ratings. */
		if (len == 5 && !strncmp(name, "users", len))
			users = opt_int("users", val, 1, INT32_MAX);
		else if (len == 5 && !strncmp(name, "items", len))
			items = opt_int("items", val, 1, INT32_MAX);
		else if (len == 7 && !strncmp(name, "ratings", len))
			nratings = opt_int("ratings", val, 1, UINT32_MAX);
		else if (len == 4 && !strncmp(name, "test", len))
			ntest = opt_int("test", val, 0, UINT32_MAX);
		else if (len == 4 && !strncmp(name, "rank", len))
			rank = (int)opt_int("rank", val, 1, 1000);
		else if (len == 4 && !strncmp(name, "seed", len))
			seed = (uint64_t)opt_int("seed", val, 0, INT64_MAX);
		else if (len == 3 && !strncmp(name, "out", len))
			out = opt_path("out", val);
		else if (len == 8 && !strncmp(name, "test-out", len))
			test_out = opt_path("test-out", val);
		else if (len == 5 && !strncmp(name, "noise", len)) {
			char *end;
			noise = strtod(val, &end);
			if (end == val || *end || !(noise >= 0 && noise < 1e6))
				fail(2, "--noise=%s: expected a standard deviation >= 0", val);
		} else
			fail(2, "unknown option '%s'", a);
	}
	if (ntest > 0 && !test_out)
		fail(2, "--test needs --test-out=FILE");
	/* Covering every user and item takes at most one rating for each. */
	if (nratings < users + items)
		fail(2, "--ratings must be at least --users + --items, so that "
		     "every user and item can appear");

	model m = { rank, noise, NULL, NULL };
	/* Variance 1/sqrt(rank) per entry gives u . v unit variance whatever the
	 * rank, so ratings spread over about 3 +- 1.2 as real ones do. */
	double sd = pow((double)rank, -0.25);
	rng r = rng_make(seed, 1);
	m.U = xmalloc((size_t)users * (size_t)rank, sizeof(double));
	m.V = xmalloc((size_t)items * (size_t)rank, sizeof(double));
	for (int64_t k = 0; k < users * rank; k++)
		m.U[k] = sd * normal(&r);
	for (int64_t k = 0; k < items * rank; k++)
		m.V[k] = sd * normal(&r);
	rng rp = rng_make(seed, 2);
	popularity pu = popularity_make(users, USER_SKEW, &rp);
	popularity pi = popularity_make(items, ITEM_SKEW, &rp);

	/* One rating for each user, then one for each item still unseen, then
	 * popularity-drawn ones; the shuffle hides that order. */
	rating *A = xmalloc((size_t)nratings, sizeof(rating));
	bool *seen = xmalloc((size_t)items, sizeof(bool));
	memset(seen, 0, (size_t)items);
	rng rt = rng_make(seed, 3);
	int64_t n = 0;
	for (int32_t u = 0; u < users; u++) {
		int32_t i = popularity_draw(&pi, &rt);
		seen[i] = true;
		A[n++] = (rating){ u, i, rate(&m, u, i, &rt) };
	}
	for (int32_t i = 0; i < items; i++) {
		if (seen[i])
			continue;
		int32_t u = popularity_draw(&pu, &rt);
		A[n++] = (rating){ u, i, rate(&m, u, i, &rt) };
	}
	while (n < nratings) {
		int32_t u = popularity_draw(&pu, &rt);
		int32_t i = popularity_draw(&pi, &rt);
		A[n++] = (rating){ u, i, rate(&m, u, i, &rt) };
	}
	rng rs = rng_make(seed, 4);
	for (int64_t k = n - 1; k > 0; k--) {
		int64_t j = below(&rs, k + 1);
		rating t = A[k];
		A[k] = A[j];
		A[j] = t;
	}
	outfile o = out_open(out);
	write_ratings(&o, A, n);
	out_close(&o);
	free(A);

	if (test_out) {
		rating *T = xmalloc((size_t)ntest, sizeof(rating));
		rng rh = rng_make(seed, 5);
		for (int64_t k = 0; k < ntest; k++) {
			int32_t u = popularity_draw(&pu, &rh);
			int32_t i = popularity_draw(&pi, &rh);
			T[k] = (rating){ u, i, rate(&m, u, i, &rh) };
		}
		outfile ot = out_open(test_out);
		write_ratings(&ot, T, ntest);
		out_close(&ot);
		free(T);
	}
	free(seen);
	free(m.U);
	free(m.V);
	free(pu.cdf);
	free(pu.id);
	free(pi.cdf);
	free(pi.id);
	return 0;
}
