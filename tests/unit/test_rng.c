/* Unit tests of the counter-based random numbers (runtime/core/rng.c). */
#include <math.h>
#include <stdlib.h>
#include <Random123/philox.h>
#include "sap.h"
#include "suites.h"

START_TEST(philox_known_answer)
{
	/* From Random123's kat_vectors: philox4x32 10 rounds, zero input. */
	philox4x32_ctr_t c = { { 0, 0, 0, 0 } };
	philox4x32_key_t k = { { 0, 0 } };
	philox4x32_ctr_t r = philox4x32(c, k);
	ck_assert_uint_eq(r.v[0], 0x6627e8d5u);
	ck_assert_uint_eq(r.v[1], 0xe169c58du);
	ck_assert_uint_eq(r.v[2], 0xbc57ac4cu);
	ck_assert_uint_eq(r.v[3], 0x9b00dbd8u);
}
END_TEST

START_TEST(make_layout)
{
	sap_rng r = sap_rng_make(7, ((int64_t)3 << 32) | 5, 9);
	ck_assert_uint_eq(r.key[0], sap_seed());
	ck_assert_uint_eq(r.key[1], 7);
	ck_assert_uint_eq(r.ctr[0], 5);
	ck_assert_uint_eq(r.ctr[1], 3);
	ck_assert_uint_eq(r.ctr[2], 9);
	ck_assert_uint_eq(r.ctr[3], 0);
}
END_TEST

START_TEST(rand_formula)
{
	/* The documented formula, which serial C twins rely on. */
	sap_rng r = sap_rng_make(3, 11, 2);
	philox4x32_ctr_t c = { { 11, 0, 2, 0 } };
	philox4x32_key_t k = { { sap_seed(), 3 } };
	for (int d = 0; d < 4; d++) {
		c.v[3] = (uint32_t)d;
		philox4x32_ctr_t w = philox4x32(c, k);
		double want = ((w.v[0] >> 5) * 67108864.0 + (w.v[1] >> 6)) *
		              (1.0 / 9007199254740992.0);
		ck_assert(sap_rand(&r) == want);
	}
	ck_assert_uint_eq(r.ctr[3], 4);
}
END_TEST

START_TEST(rand_deterministic)
{
	sap_rng a = sap_rng_make(5, 123456789012, 4);
	sap_rng b = sap_rng_make(5, 123456789012, 4);
	for (int d = 0; d < 100; d++) {
		double x = sap_rand(&a);
		ck_assert(x == sap_rand(&b));
		ck_assert(x >= 0 && x < 1);
	}
}
END_TEST

START_TEST(streams_differ)
{
	/* Stream, index and invocation each select a different sequence. */
	sap_rng base = sap_rng_make(1, 0, 0);
	sap_rng other[3] = {
		sap_rng_make(2, 0, 0), sap_rng_make(1, 1, 0), sap_rng_make(1, 0, 1),
	};
	double x = sap_rand(&base);
	for (int i = 0; i < 3; i++)
		ck_assert(sap_rand(&other[i]) != x);
	/* Successive draws differ too. */
	ck_assert(sap_rand(&base) != x);
}
END_TEST

START_TEST(rand_int_range)
{
	enum { N = 10, DRAWS = 100000 };
	int hist[N] = { 0 };
	sap_rng r = sap_rng_make(0, 0, 0);
	for (int d = 0; d < DRAWS; d++) {
		int64_t x = sap_rand_int(&r, N, NULL);
		ck_assert(x >= 0 && x < N);
		hist[x]++;
	}
	/* Expected 10000 per bucket, sd ~95: 5 sd is a generous margin. */
	for (int i = 0; i < N; i++)
		ck_assert_msg(abs(hist[i] - DRAWS / N) < 500, "bucket %d: %d", i, hist[i]);
	/* n = 1 always gives 0; huge bounds stay in range. */
	for (int d = 0; d < 1000; d++) {
		ck_assert_int_eq(sap_rand_int(&r, 1, NULL), 0);
		int64_t x = sap_rand_int(&r, INT64_MAX, NULL);
		ck_assert(x >= 0);
	}
}
END_TEST

START_TEST(rand_int_formula)
{
	sap_rng r = sap_rng_make(4, 8, 0);
	philox4x32_ctr_t c = { { 8, 0, 0, 0 } };
	philox4x32_key_t k = { { sap_seed(), 4 } };
	philox4x32_ctr_t w = philox4x32(c, k);
	uint64_t x = (uint64_t)w.v[0] << 32 | w.v[1];
	int64_t want = (int64_t)(((unsigned __int128)x * 1000003u) >> 64);
	ck_assert_int_eq(sap_rand_int(&r, 1000003, NULL), want);
	ck_assert_uint_eq(r.ctr[3], 1);
}
END_TEST

START_TEST(rand_int_bad_bound)
{
	sap_rng r = sap_rng_make(0, 0, 0);
	sap_site s = { "t.sap", 3, 7 };
	sap_rand_int(&r, 0, &s);
}
END_TEST

START_TEST(rand_normal_moments)
{
	enum { DRAWS = 100000 };
	double sum = 0, sq = 0;
	for (int i = 0; i < DRAWS; i++) {
		/* One generator per index, as in a loop body. */
		sap_rng r = sap_rng_make(9, i, 0);
		double z = sap_rand_normal(&r);
		ck_assert(isfinite(z));
		sum += z;
		sq += z * z;
	}
	double mean = sum / DRAWS, var = sq / DRAWS - mean * mean;
	/* Standard errors: mean 0.0032, variance 0.0045. */
	ck_assert_msg(fabs(mean) < 0.02, "mean %g", mean);
	ck_assert_msg(fabs(var - 1) < 0.03, "variance %g", var);
}
END_TEST

START_TEST(fnv1a_values)
{
	ck_assert_uint_eq(sap_fnv1a(""), 2166136261u);
	ck_assert_uint_eq(sap_fnv1a("a"), 0xe40c292cu);
	ck_assert_uint_eq(sap_fnv1a("foobar"), 0xbf9cf968u);
}
END_TEST

START_TEST(init_uniform_reproducible)
{
	enum { N = 1000, K = 3 };
	sap_dvec a, b, d;
	sap_dv_create(&a, "W", N, K * sizeof(float), NULL);
	sap_dv_create(&b, "W", N, K * sizeof(float), NULL);
	sap_dv_create(&d, "W", N, K * sizeof(double), NULL);
	sap_init_uniform(&a, K, false, -1, 3);
	sap_init_uniform(&b, K, false, -1, 3);
	sap_init_uniform(&d, K, true, -1, 3);
	ck_assert(memcmp(a.data, b.data, (size_t)N * K * sizeof(float)) == 0);
	const float *fa = (const float *)a.data;
	const double *da = (const double *)d.data;
	for (int i = 0; i < N * K; i++) {
		ck_assert(fa[i] >= -1 && fa[i] <= 3);
		ck_assert(da[i] >= -1 && da[i] < 3);
		ck_assert(fa[i] == (float)da[i]);
	}
	/* Element 5, component 2: the third draw of its own generator. */
	sap_rng r = sap_rng_make(sap_fnv1a("W"), 5, 0);
	sap_rand(&r);
	sap_rand(&r);
	ck_assert(da[5 * K + 2] == -1 + 4 * sap_rand(&r));
	/* Another name, another stream. */
	sap_dvec h;
	sap_dv_create(&h, "H", N, K * sizeof(float), NULL);
	sap_init_uniform(&h, K, false, -1, 3);
	ck_assert(memcmp(a.data, h.data, (size_t)N * K * sizeof(float)) != 0);
	sap_dv_free(&a);
	sap_dv_free(&b);
	sap_dv_free(&d);
	sap_dv_free(&h);
}
END_TEST

START_TEST(init_normal_formula)
{
	sap_dvec v;
	sap_dv_create(&v, "Z", 10, 2 * sizeof(double), NULL);
	sap_init_normal(&v, 2, true, 5, 0.5);
	const double *z = (const double *)v.data;
	sap_rng r = sap_rng_make(sap_fnv1a("Z"), 7, 0);
	ck_assert(z[14] == 5 + 0.5 * sap_rand_normal(&r));
	ck_assert(z[15] == 5 + 0.5 * sap_rand_normal(&r));
	sap_dv_free(&v);
}
END_TEST

START_TEST(loop_rng)
{
	/* Iteration rngs follow the loop's invocation count. */
	sap_loop L = { .id = 3, .kind = SAP_ASYNC };
	L.invocations = 2;
	sap_rng r = sap_rng_iter(&L, 17);
	sap_rng want = sap_rng_make(3, 17, 1);
	ck_assert(memcmp(&r, &want, sizeof r) == 0);
}
END_TEST

/* ---- loops, whose invocation counts feed the iteration rngs ---- */

typedef struct { int64_t lo[16], hi[16]; int calls; } chunks;

static void record(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	chunks *c = env;
	ck_assert_ptr_null(idx);        /* batches are ranges */
	c->lo[c->calls] = lo;
	c->hi[c->calls] = hi;
	c->calls++;
	if (red)
		*(int64_t *)red += hi - lo;
}

static void zero(void *red) { *(int64_t *)red = 0; }
static void add(void *into, const void *from) { *(int64_t *)into += *(const int64_t *)from; }

START_TEST(sync_for_batches)
{
	sap_loop L = { .id = 1, .kind = SAP_SYNC };
	sap_syncspec spec = { .model = SAP_BSP, .batch = 4 };
	sap_reduce r = { sizeof(int64_t), zero, add, true, NULL, 0, false, NULL, 0 };
	chunks c = { .calls = 0 };
	int64_t red = 99;
	sap_sync_for(&L, 10, &spec, &c, record, &r, &red);
	ck_assert_int_eq(c.calls, 3);
	ck_assert(c.lo[0] == 0 && c.hi[0] == 4);
	ck_assert(c.lo[1] == 4 && c.hi[1] == 8);
	ck_assert(c.lo[2] == 8 && c.hi[2] == 10);
	ck_assert_int_eq(red, 10);
	ck_assert_uint_eq(L.invocations, 1);
	c.calls = 0;
	sap_sync_for(&L, 0, &spec, &c, record, NULL, NULL);
	ck_assert_int_eq(c.calls, 0);
	ck_assert_uint_eq(L.invocations, 2);
}
END_TEST

START_TEST(sync_for_bad_batch)
{
	sap_loop L = { .id = 1, .kind = SAP_SYNC, .site = { "t.sap", 4, 1 } };
	sap_syncspec spec = { .model = SAP_BSP, .batch = 0 };
	chunks c = { .calls = 0 };
	sap_sync_for(&L, 10, &spec, &c, record, NULL, NULL);
}
END_TEST

START_TEST(sync_for_bad_staleness)
{
	sap_loop L = { .id = 1, .kind = SAP_SYNC, .site = { "t.sap", 4, 1 } };
	sap_syncspec spec = { .model = SAP_SSP, .batch = 2, .staleness = -3 };
	chunks c = { .calls = 0 };
	sap_sync_for(&L, 10, &spec, &c, record, NULL, NULL);
}
END_TEST

static sap_rng body_rng;

static void draw(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	(void)red;
	const sap_loop *L = env;
	for (int64_t k = lo; k < hi; k++) {
		body_rng = sap_rng_iter(L, idx ? idx[k] : k);
		sap_rng_cur = &body_rng;
	}
}

START_TEST(async_for_runs)
{
	sap_loop L = { .id = 2, .kind = SAP_ASYNC };
	sap_reduce r = { sizeof(int64_t), zero, add, true, NULL, 0, false, NULL, 0 };
	chunks c = { .calls = 0 };
	int64_t red = 99;
	sap_async_spec spec = { 0 };
	sap_async_for(&L, &spec, 5, 5, &c, record, &r, &red);
	ck_assert_int_eq(c.calls, 0);
	ck_assert_int_eq(red, 0);
	sap_async_for(&L, &spec, 3, 9, &c, record, &r, &red);
	ck_assert_int_eq(c.calls, 1);
	ck_assert(c.lo[0] == 3 && c.hi[0] == 9);
	ck_assert_int_eq(red, 6);
	ck_assert_uint_eq(L.invocations, 2);
	/* The driver's generator is current again after a body that drew. */
	sap_rng driver = sap_rng_make(0, 0, 0);
	sap_rng_cur = &driver;
	sap_async_for(&L, &spec, 0, 3, &L, draw, NULL, NULL);
	ck_assert_ptr_eq(sap_rng_cur, &driver);
	ck_assert_uint_eq(body_rng.ctr[2], 2);
}
END_TEST

Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, philox_known_answer);
	tcase_add_test(tc, make_layout);
	tcase_add_test(tc, rand_formula);
	tcase_add_test(tc, rand_deterministic);
	tcase_add_test(tc, streams_differ);
	tcase_add_test(tc, rand_int_range);
	tcase_add_test(tc, rand_int_formula);
	tcase_add_exit_test(tc, rand_int_bad_bound, 1);
	tcase_add_test(tc, rand_normal_moments);
	tcase_add_test(tc, fnv1a_values);
	tcase_add_test(tc, init_uniform_reproducible);
	tcase_add_test(tc, init_normal_formula);
	tcase_add_test(tc, loop_rng);
	suite_add_tcase(s, tc);
	tc = tcase_create("loop");
	tcase_add_test(tc, sync_for_batches);
	tcase_add_exit_test(tc, sync_for_bad_batch, 1);
	tcase_add_exit_test(tc, sync_for_bad_staleness, 1);
	tcase_add_test(tc, async_for_runs);
	suite_add_tcase(s, tc);
	return s;
}
