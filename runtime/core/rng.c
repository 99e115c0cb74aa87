/* rng.c: counter-based random numbers (Philox4x32-10).
 *
 * The formulas here are part of the contract: a serial C twin of a program
 * reproduces them bit for bit, so change none without changing it.
 */
#include "sap-int.h"

_Thread_local sap_rng *sap_rng_cur;

/* Exact: 2 * pi rounded is twice pi rounded. */
static const double two_pi = 2.0 * 3.14159265358979323846;
static const double two_m53 = 1.0 / 9007199254740992.0;

sap_rng sap_rng_make(uint32_t stream, int64_t index, uint32_t invocation)
{
	sap_rng r = {
		.key = { sap_seed(), stream },
		.ctr = { (uint32_t)index, (uint32_t)((uint64_t)index >> 32), invocation, 0 },
	};
	return r;
}

/* The next block; the draw counter moves on. */
static philox4x32_ctr_t block(sap_rng *r)
{
	philox4x32_ctr_t c = { { r->ctr[0], r->ctr[1], r->ctr[2], r->ctr[3] } };
	philox4x32_key_t k = { { r->key[0], r->key[1] } };
	r->ctr[3]++;
	return philox4x32(c, k);
}

/* The top 53 bits of words a and b, as an exact double integer. */
static inline double bits53(uint32_t a, uint32_t b)
{
	return (a >> 5) * 67108864.0 + (b >> 6);
}

double sap_rand(sap_rng *r)
{
	philox4x32_ctr_t w = block(r);
	return bits53(w.v[0], w.v[1]) * two_m53;
}

int64_t sap_rand_int(sap_rng *r, int64_t n, const sap_site *s)
{
	if (n <= 0)
		sap_rand_int_bad(n, s);
	philox4x32_ctr_t w = block(r);
	uint64_t x = (uint64_t)w.v[0] << 32 | w.v[1];
	/* Multiply-shift: no division, and no bias worth measuring. */
	return (int64_t)(((unsigned __int128)x * (uint64_t)n) >> 64);
}

double sap_rand_normal(sap_rng *r)
{
	philox4x32_ctr_t w = block(r);
	/* u1 in (0, 1] so that log(u1) is finite. */
	double u1 = (bits53(w.v[0], w.v[1]) + 1.0) * two_m53;
	double u2 = bits53(w.v[2], w.v[3]) * two_m53;
	return sqrt(-2.0 * log(u1)) * cos(two_pi * u2);
}

uint32_t sap_fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static void store(sap_dvec *v, int64_t i, int c, bool is_double, double x)
{
	char *e = v->data + (size_t)i * v->elsize;
	if (is_double) {
		memcpy(e + (size_t)c * sizeof(double), &x, sizeof x);
	} else {
		float f = (float)x;
		memcpy(e + (size_t)c * sizeof(float), &f, sizeof f);
	}
}

void sap_init_uniform(sap_dvec *v, int ncomp, bool is_double, double lo, double hi)
{
	uint32_t stream = sap_fnv1a(v->name);
	int64_t a, b;
	sap_dv_fill_range(v, &a, &b);
	for (int64_t i = a; i < b; i++) {
		sap_rng r = sap_rng_make(stream, i, 0);
		for (int c = 0; c < ncomp; c++)
			store(v, i, c, is_double, lo + (hi - lo) * sap_rand(&r));
	}
	sap_dv_recount(v);
}

void sap_init_normal(sap_dvec *v, int ncomp, bool is_double, double mean, double sd)
{
	uint32_t stream = sap_fnv1a(v->name);
	int64_t a, b;
	sap_dv_fill_range(v, &a, &b);
	for (int64_t i = a; i < b; i++) {
		sap_rng r = sap_rng_make(stream, i, 0);
		for (int c = 0; c < ncomp; c++)
			store(v, i, c, is_double, mean + sd * sap_rand_normal(&r));
	}
	sap_dv_recount(v);
}

/* A copy of r at draw n of site s; *n moves on. */
static sap_rng at(const sap_rng *r, uint32_t site, uint32_t *n)
{
	sap_rng c = *r;
	c.ctr[3] = site << 24 | (*n)++;
	return c;
}

_Noreturn void sap_rand_int_bad(int64_t bound, const sap_site *s)
{
	sap_fatal(s, "rand_int: bound must be positive, got %lld", (long long)bound);
}

double sap_rand_normal_at(const sap_rng *r, uint32_t site, uint32_t *n)
{
	sap_rng c = at(r, site, n);
	return sap_rand_normal(&c);
}
