/* Unit tests of dmap and dmultimap (runtime/dds/dmap.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"
#include "capture.h"
#include "suites.h"

typedef struct { int64_t a; double b; } val;

/* The DDS memory --stats reports: what dvectors and maps hold, back to
 * where it was when they are freed. */
START_TEST(memory_held)
{
	int64_t before = sap_mem_dds_held();
	sap_dvec v;
	sap_dv_create(&v, "v", 1000, 12, NULL);
	ck_assert_int_eq(sap_mem_dds_held() - before, 12032);  /* whole cache lines */
	sap_dmap m;
	sap_dm_create(&m, "m", SAP_K_LONG, sizeof(double), false, NULL);
	for (int64_t k = 0; k < 1000; k++)
		*(double *)sap_dm_upsert(&m, &k) = 1;
	int64_t held = sap_mem_dds_held() - before - 12032;
	/* 1000 entries of 24 bytes (key, flag, value) and an index (a 4-byte
	 * slot a key over their range here), grown by doubling. */
	ck_assert_int_ge(held, 1000 * 24 + 1000 * 4);
	ck_assert_int_le(held, 2 * (1000 * 24 + 4096 * 8));
	sap_dm_free(&m);
	sap_dv_free(&v);
	ck_assert_int_eq(sap_mem_dds_held(), before);
}
END_TEST

START_TEST(basic_ops)
{
	sap_dmap m;
	sap_dm_create(&m, "M", SAP_K_INT, sizeof(val), false, NULL);
	int32_t k = 42;
	ck_assert_ptr_null(sap_dm_find(&m, &k));
	ck_assert_int_eq(sap_dm_count(&m, &k), 0);
	ck_assert_int_eq(sap_dm_erase(&m, &k), 0);
	val *v = sap_dm_upsert(&m, &k);
	ck_assert(v->a == 0 && v->b == 0);      /* zeroed */
	v->a = 7;
	v->b = 1.5;
	ck_assert_ptr_eq(sap_dm_upsert(&m, &k), v);
	ck_assert_ptr_eq(sap_dm_find(&m, &k), v);
	ck_assert_ptr_eq(sap_dm_get(&m, &k, NULL), v);
	ck_assert_int_eq(sap_dm_count(&m, &k), 1);
	ck_assert_int_eq(sap_dm_size(&m), 1);
	int32_t k2 = -3;
	((val *)sap_dm_upsert(&m, &k2))->a = 9;
	ck_assert_int_eq(sap_dm_size(&m), 2);
	ck_assert_int_eq(((val *)sap_dm_find(&m, &k))->a, 7);
	ck_assert_int_eq(sap_dm_erase(&m, &k), 1);
	ck_assert_ptr_null(sap_dm_find(&m, &k));
	ck_assert_int_eq(sap_dm_size(&m), 1);
	/* Re-inserting an erased key gives a fresh zero value. */
	v = sap_dm_upsert(&m, &k);
	ck_assert_int_eq(v->a, 0);
	ck_assert_int_eq(sap_dm_size(&m), 2);
	/* On a plain map, add replaces. */
	v = sap_dm_add(&m, &k2);
	ck_assert_int_eq(v->a, 0);
	ck_assert_int_eq(sap_dm_size(&m), 2);
	sap_dm_free(&m);
}
END_TEST

START_TEST(long_keys)
{
	sap_dmap m;
	sap_dm_create(&m, "L", SAP_K_LONG, sizeof(int32_t), false, NULL);
	for (int64_t i = 0; i < 1000; i++) {
		int64_t k = i << 33;    /* differ only above 32 bits */
		*(int32_t *)sap_dm_upsert(&m, &k) = (int32_t)i;
	}
	ck_assert_int_eq(sap_dm_size(&m), 1000);
	for (int64_t i = 0; i < 1000; i++) {
		int64_t k = i << 33;
		ck_assert_int_eq(*(int32_t *)sap_dm_get(&m, &k, NULL), i);
	}
	int64_t k = 1;
	ck_assert_ptr_null(sap_dm_find(&m, &k));
	sap_dm_free(&m);
}
END_TEST

/* Iteration must follow insertion order through erases, compaction and
 * index rebuilds. */
START_TEST(order_after_erase_and_rehash)
{
	enum { N = 100000 };
	sap_dmap m;
	sap_dm_create(&m, "M", SAP_K_INT, sizeof(int32_t), false, NULL);
	/* Keys in a scrambled order, so hash order differs from insertion. */
	for (int32_t i = 0; i < N; i++) {
		int32_t k = (int32_t)((i * 7919u) % N);
		*(int32_t *)sap_dm_upsert(&m, &k) = i;
	}
	ck_assert_int_eq(sap_dm_size(&m), N);
	/* Erase two thirds, then insert more to force compaction. */
	for (int32_t i = 0; i < N; i++)
		if (i % 3 != 0) {
			int32_t k = (int32_t)((i * 7919u) % N);
			ck_assert_int_eq(sap_dm_erase(&m, &k), 1);
		}
	for (int32_t i = N; i < 2 * N; i++) {
		int32_t k = i;
		*(int32_t *)sap_dm_upsert(&m, &k) = i;
	}
	int64_t pos = 0, seen = 0;
	const void *key;
	void *v;
	int32_t expect = 0;
	while (sap_dm_next(&m, &pos, &key, &v)) {
		ck_assert_int_eq(*(int32_t *)v, expect);
		if (expect < N)
			ck_assert_int_eq(*(const int32_t *)key, (int32_t)((expect * 7919u) % N));
		else
			ck_assert_int_eq(*(const int32_t *)key, expect);
		/* Survivors: every third of the first N, then all the rest. */
		if (expect < N)
			expect = expect + 3 < N ? expect + 3 : N;
		else
			expect++;
		seen++;
	}
	ck_assert_int_eq(seen, sap_dm_size(&m));
	ck_assert_int_eq(seen, (N + 2) / 3 + N);
	for (int32_t i = 0; i < N; i++) {
		int32_t k = (int32_t)((i * 7919u) % N);
		int32_t *p = sap_dm_find(&m, &k);
		if (i % 3 == 0)
			ck_assert(p && *p == i);
		else
			ck_assert_ptr_null(p);
	}
	sap_dm_free(&m);
}
END_TEST

START_TEST(erase_while_iterating)
{
	sap_dmap m;
	sap_dm_create(&m, "M", SAP_K_INT, sizeof(int32_t), false, NULL);
	for (int32_t k = 0; k < 100; k++)
		*(int32_t *)sap_dm_upsert(&m, &k) = k;
	int64_t pos = 0, n = 0;
	const void *key;
	while (sap_dm_next(&m, &pos, &key, NULL)) {
		int32_t k = *(const int32_t *)key;
		ck_assert_int_eq(k, n);
		sap_dm_erase(&m, &k);
		int32_t next = k + 1;
		sap_dm_erase(&m, &next);
		n += 2;
	}
	ck_assert_int_eq(n, 100);
	ck_assert_int_eq(sap_dm_size(&m), 0);
	sap_dm_free(&m);
}
END_TEST

/* Insert-erase churn leaves tombstones and dead entries; neither the
 * index nor the entry array may grow without bound. */
START_TEST(churn)
{
	sap_dmap m;
	sap_dm_create(&m, "M", SAP_K_LONG, sizeof(int64_t), false, NULL);
	int64_t keep = -1;
	*(int64_t *)sap_dm_upsert(&m, &keep) = 5;
	for (int64_t k = 0; k < 100000; k++) {
		*(int64_t *)sap_dm_upsert(&m, &k) = k;
		ck_assert_int_eq(sap_dm_erase(&m, &k), 1);
	}
	ck_assert_int_eq(sap_dm_size(&m), 1);
	ck_assert_int_eq(*(int64_t *)sap_dm_get(&m, &keep, NULL), 5);
	ck_assert_int_le(m.nslots, 64);
	ck_assert_int_le(m.capents, 64);
	sap_dm_free(&m);
}
END_TEST

/* Keys that fill a range (ids) go by the direct index; keys that leave
 * the range sparse move the map to the hash index, with nothing lost and
 * insertion order kept; dense again, it goes back. */
START_TEST(direct_index)
{
	sap_dmap m;
	sap_dm_create(&m, "ids", SAP_K_LONG, sizeof(int64_t), false, NULL);
	for (int64_t k = 0; k < 10000; k++)
		*(int64_t *)sap_dm_upsert(&m, &k) = k * 3;
	ck_assert_ptr_nonnull(m.dix);
	/* Below the range: it grows down. */
	for (int64_t k = -1; k >= -500; k--)
		*(int64_t *)sap_dm_upsert(&m, &k) = k * 3;
	ck_assert_ptr_nonnull(m.dix);
	int64_t gap = 20000, far = (int64_t)1 << 40, lo = INT64_MIN, hi = INT64_MAX;
	ck_assert_ptr_null(sap_dm_find(&m, &gap));
	ck_assert_int_eq(sap_dm_erase(&m, &gap), 0);
	int64_t five = 5;
	ck_assert_int_eq(sap_dm_erase(&m, &five), 1);
	ck_assert_ptr_null(sap_dm_find(&m, &five));
	ck_assert_ptr_null(sap_dm_hit(&m, 5, true));
	ck_assert_ptr_eq(sap_dm_hit(&m, 6, true), sap_dm_find(&m, &(int64_t){ 6 }));
	ck_assert_ptr_null(sap_dm_hit(&m, far, true));
	ck_assert_ptr_null(sap_dm_hit(&m, lo, true));
	/* Far keys: the hash index, the same contents. */
	*(int64_t *)sap_dm_upsert(&m, &far) = 1;
	*(int64_t *)sap_dm_upsert(&m, &lo) = 2;
	*(int64_t *)sap_dm_upsert(&m, &hi) = 3;
	ck_assert_ptr_null(m.dix);
	ck_assert_int_eq(sap_dm_size(&m), 10500 - 1 + 3);
	for (int64_t k = -500; k < 10000; k++)
		if (k != 5)
			ck_assert_int_eq(*(int64_t *)sap_dm_get(&m, &k, NULL), k * 3);
	ck_assert_int_eq(*(int64_t *)sap_dm_hit(&m, lo, true), 2);
	ck_assert_int_eq(*(int64_t *)sap_dm_hit(&m, hi, true), 3);
	/* Insertion order through both indexes. */
	int64_t pos = 0, n = 0;
	const void *key;
	void *v;
	while (sap_dm_next(&m, &pos, &key, &v)) {
		int64_t want = n < 10000 - 1 ? (n < 5 ? n : n + 1) : n < 10499 ? -(n - 9999 + 1) :
		               n == 10499 ? far : n == 10500 ? lo : hi;
		ck_assert_int_eq(*(const int64_t *)key, want);
		n++;
	}
	ck_assert_int_eq(n, 10502);
	/* Without the far keys, and many more ids: direct again when the
	 * hash index is rebuilt. */
	sap_dm_erase(&m, &far);
	sap_dm_erase(&m, &lo);
	sap_dm_erase(&m, &hi);
	for (int64_t k = 10000; k < 40000; k++)
		*(int64_t *)sap_dm_upsert(&m, &k) = k * 3;
	ck_assert_ptr_nonnull(m.dix);
	for (int64_t k = -500; k < 40000; k++)
		if (k != 5)
			ck_assert_int_eq(*(int64_t *)sap_dm_hit(&m, k, true), k * 3);
	sap_dm_free(&m);

	/* int keys at the ends of their range. */
	sap_dm_create(&m, "i", SAP_K_INT, sizeof(int32_t), true, NULL);
	for (int32_t k = 0; k < 100; k++)
		for (int j = 0; j < 3; j++)
			*(int32_t *)sap_dm_add(&m, &k) = k + j;
	ck_assert_ptr_nonnull(m.dix);
	int32_t imin = INT32_MIN, imax = INT32_MAX;
	*(int32_t *)sap_dm_add(&m, &imin) = -1;
	*(int32_t *)sap_dm_add(&m, &imax) = -2;
	ck_assert_int_eq(sap_dm_count(&m, &imin), 1);
	ck_assert_int_eq(*(int32_t *)sap_dm_hit(&m, INT32_MAX, false), -2);
	for (int32_t k = 0; k < 100; k++) {
		ck_assert_int_eq(sap_dm_count(&m, &k), 3);
		int64_t p = 0;
		int32_t *x, j = 0;
		while ((x = sap_dm_next_of(&m, &k, &p)))
			ck_assert_int_eq(*x, k + j++);
	}
	sap_dm_free(&m);
}
END_TEST

/* Ids one in five of their range, arriving scrambled (a graph's node
 * ids): the direct index, whose 1.5x room over the range does not fit
 * 8 slots a key, takes the range itself, and grows to a key just below
 * it by the room the density limit leaves. */
START_TEST(direct_index_scattered)
{
	sap_dmap m;
	sap_dm_create(&m, "nodes", SAP_K_LONG, sizeof(double), false, NULL);
	enum { N = 200000, RANGE = 1000003 };
	for (int64_t i = 0; i < N; i++) {
		int64_t k = (i * 7919 + 13) % RANGE;
		*(double *)sap_dm_upsert(&m, &k) = (double)i;
	}
	ck_assert_ptr_nonnull(m.dix);
	ck_assert_int_le(m.dn, 8 * (N + 1) + 64);
	int64_t low = m.dlo - 5;
	*(double *)sap_dm_upsert(&m, &low) = -1;
	ck_assert_ptr_nonnull(m.dix);
	ck_assert_int_le(m.dlo, low);
	for (int64_t i = 0; i < N; i++)
		ck_assert(*(double *)sap_dm_hit(&m, (i * 7919 + 13) % RANGE, true) == (double)i);
	ck_assert(*(double *)sap_dm_hit(&m, low, true) == -1);
	ck_assert_int_eq(sap_dm_size(&m), N + 1);
	sap_dm_free(&m);

	/* Keys in order at the limit's density: direct while the limit
	 * leaves room, hashed after, and every key found either way. */
	sap_dm_create(&m, "stride", SAP_K_LONG, sizeof(int64_t), false, NULL);
	for (int64_t i = 0; i < 100000; i++) {
		int64_t k = 8 * i;
		*(int64_t *)sap_dm_upsert(&m, &k) = i;
	}
	for (int64_t i = 0; i < 100000; i++)
		ck_assert_int_eq(*(int64_t *)sap_dm_hit(&m, 8 * i, true), i);
	ck_assert_ptr_null(sap_dm_hit(&m, 4, true));
	sap_dm_free(&m);
}
END_TEST

/* m[k] of a multimap in a program: the values of k appended to a list. */
START_TEST(multimap_values)
{
	sap_dmap m;
	sap_dm_create(&m, "out", SAP_K_LONG, sizeof(int64_t), true, NULL);
	for (int64_t j = 0; j < 10; j++)
		for (int64_t k = 0; k < 100; k++)
			if (j <= k % 7)
				*(int64_t *)sap_dm_add(&m, &k) = 1000 * k + j;
	for (int64_t k = 0; k < 100; k++) {
		sap_list l = {0};
		*(int64_t *)sap_list_push(&l, sizeof(int64_t)) = -1;
		sap_dm_values(&m, &k, &l);
		ck_assert_int_eq(l.n, 1 + k % 7 + 1);
		ck_assert_int_eq(((int64_t *)l.v)[0], -1);
		for (int64_t j = 0; j <= k % 7; j++)
			ck_assert_int_eq(((int64_t *)l.v)[1 + j], 1000 * k + j);
		sap_list_free(&l);
	}
	sap_list none = {0};
	int64_t missing = 100;
	sap_dm_values(&m, &missing, &none);
	ck_assert_int_eq(none.n, 0);
	ck_assert_ptr_null(none.v);
	sap_dm_free(&m);
	/* A plain map: the one value. */
	sap_dm_create(&m, "one", SAP_K_INT, sizeof(int32_t), false, NULL);
	int32_t k = 4;
	*(int32_t *)sap_dm_upsert(&m, &k) = 9;
	sap_list l = {0};
	sap_dm_values(&m, &k, &l);
	ck_assert_int_eq(l.n, 1);
	ck_assert_int_eq(((int32_t *)l.v)[0], 9);
	sap_list_free(&l);
	sap_dm_free(&m);
}
END_TEST

START_TEST(string_keys)
{
	sap_dmap m;
	sap_dm_create(&m, "words", SAP_K_STRING, sizeof(int64_t), false, NULL);
	const char *text[] = { "the", "cat", "sat", "on", "the", "mat", "the", "end" };
	for (size_t i = 0; i < sizeof text / sizeof *text; i++) {
		/* Equal content at a different address is the same key. */
		sap_str w = sap_str_dup(text[i], strlen(text[i]));
		(*(int64_t *)sap_dm_upsert(&m, &w))++;
	}
	ck_assert_int_eq(sap_dm_size(&m), 6);
	sap_str the = "the";
	ck_assert_int_eq(*(int64_t *)sap_dm_get(&m, &the, NULL), 3);
	const char *order[] = { "the", "cat", "sat", "on", "mat", "end" };
	int64_t pos = 0;
	const void *key;
	void *v;
	for (int i = 0; sap_dm_next(&m, &pos, &key, &v); i++)
		ck_assert_str_eq(*(const sap_str *)key, order[i]);
	sap_str sat = sap_str_cat("s", "at");
	ck_assert_int_eq(sap_dm_erase(&m, &sat), 1);
	ck_assert_ptr_null(sap_dm_find(&m, &sat));
	sap_dm_free(&m);
}
END_TEST

/* Key i of string_key_prefixes, a copy of buf: "abcdefg", "abcdefgh",
 * "", "x", "xy", then "abcdefgh5" ... "abcdefgh2999": 0 to 12 bytes. */
static sap_str prefix_key(char buf[32], int i)
{
	static const char *first[] = { "abcdefg", "abcdefgh", "", "x", "xy" };
	int n = i < 5 ? snprintf(buf, 32, "%s", first[i]) : snprintf(buf, 32, "abcdefgh%d", i);
	return sap_str_dup(buf, (size_t)n);
}

/* Keys that share their first 8 bytes, of 7, 8, 9 and more bytes, and
 * the empty key: a probe settles a key of at most 8 bytes by its slot
 * (the bytes and the length), a longer one by comparing it with the
 * entry's string, which its slot points at.  Each key is
 * found with its own count, missing ones are missing, and so through
 * the rehashes of growth and after erasing half. */
START_TEST(string_key_prefixes)
{
	sap_dmap m;
	sap_dm_create(&m, "prefixes", SAP_K_STRING, sizeof(int64_t), false, NULL);
	enum { N = 3000 };
	char buf[32];
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < N; i++) {
			sap_str k = prefix_key(buf, i);
			*(int64_t *)sap_dm_upsert(&m, &k) += i + 1;
		}
	ck_assert_int_eq(sap_dm_size(&m), N);
	for (int i = 0; i < N; i++) {
		sap_str k = prefix_key(buf, i);
		int64_t *v = sap_dm_find(&m, &k);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(*v, 2 * (i + 1));
	}
	sap_str none = NULL;
	ck_assert_int_eq(*(int64_t *)sap_dm_find(&m, &none), 6);
	const char *missing[] = { "abcdef", "abcdefgi", "abcdefgh3000", "abcdefghi", "xyz", "y" };
	for (size_t i = 0; i < sizeof missing / sizeof *missing; i++) {
		sap_str k = missing[i];
		ck_assert_ptr_null(sap_dm_find(&m, &k));
	}
	for (int i = 5; i < N; i += 2) {
		snprintf(buf, sizeof buf, "abcdefgh%d", i);
		sap_str k = buf;
		ck_assert_int_eq(sap_dm_erase(&m, &k), 1);
	}
	sap_str s8 = "abcdefgh", s7 = "abcdefg", s9 = "abcdefgh6";
	ck_assert_int_eq(*(int64_t *)sap_dm_find(&m, &s8), 4);
	ck_assert_int_eq(*(int64_t *)sap_dm_find(&m, &s7), 2);
	ck_assert_int_eq(*(int64_t *)sap_dm_find(&m, &s9), 14);
	snprintf(buf, sizeof buf, "abcdefgh%d", 7);
	sap_str gone = buf;
	ck_assert_ptr_null(sap_dm_find(&m, &gone));
	sap_dm_free(&m);
}
END_TEST

START_TEST(multimap)
{
	sap_dmap m;
	sap_dm_create(&m, "byUser", SAP_K_INT, sizeof(int32_t), true, NULL);
	/* Interleaved keys; each key's values must come back in order. */
	enum { KEYS = 50, PER = 200 };
	for (int32_t j = 0; j < PER; j++)
		for (int32_t k = 0; k < KEYS; k++)
			*(int32_t *)sap_dm_add(&m, &k) = k * 1000 + j;
	ck_assert_int_eq(sap_dm_size(&m), KEYS * PER);
	for (int32_t k = 0; k < KEYS; k++) {
		ck_assert_int_eq(sap_dm_count(&m, &k), PER);
		ck_assert_int_eq(*(int32_t *)sap_dm_find(&m, &k), k * 1000);
		int64_t pos = 0;
		int32_t *v, j = 0;
		while ((v = sap_dm_next_of(&m, &k, &pos)))
			ck_assert_int_eq(*v, k * 1000 + j++);
		ck_assert_int_eq(j, PER);
	}
	int32_t k = 7, none = 999;
	int64_t pos = 0;
	ck_assert_ptr_null(sap_dm_next_of(&m, &none, &pos));
	ck_assert_int_eq(sap_dm_erase(&m, &k), PER);
	ck_assert_int_eq(sap_dm_count(&m, &k), 0);
	ck_assert_int_eq(sap_dm_size(&m), (KEYS - 1) * PER);
	/* Whole-map iteration is in global insertion order. */
	pos = 0;
	const void *key;
	void *v;
	int64_t n = 0;
	while (sap_dm_next(&m, &pos, &key, &v)) {
		int64_t idx = n + n / (KEYS - 1) + (n % (KEYS - 1) >= 7);
		ck_assert_int_eq(*(const int32_t *)key, idx % KEYS);
		ck_assert_int_eq(*(int32_t *)v, (idx % KEYS) * 1000 + idx / KEYS);
		n++;
	}
	ck_assert_int_eq(n, (KEYS - 1) * PER);
	/* Adding after an erase starts a new chain; upsert finds the first. */
	*(int32_t *)sap_dm_add(&m, &k) = 1;
	*(int32_t *)sap_dm_add(&m, &k) = 2;
	ck_assert_int_eq(*(int32_t *)sap_dm_upsert(&m, &k), 1);
	ck_assert_int_eq(sap_dm_count(&m, &k), 2);
	/* Many erasures force compaction and a rebuilt index. */
	for (int32_t j = 0; j < KEYS; j++)
		if (j != 3 && j != k)
			sap_dm_erase(&m, &j);
	/* Enough adds to fill the entry array: compaction, not growth. */
	for (int32_t j = 0; j < 7000; j++) {
		int32_t key2 = 3;
		*(int32_t *)sap_dm_add(&m, &key2) = 3000 + PER + j;
	}
	int32_t three = 3;
	ck_assert_int_eq(sap_dm_count(&m, &three), PER + 7000);
	pos = 0;
	int32_t *p, j = 0;
	while ((p = sap_dm_next_of(&m, &three, &pos)))
		ck_assert_int_eq(*p, 3000 + j++);
	ck_assert_int_eq(j, PER + 7000);
	sap_dm_free(&m);
}
END_TEST

/* Values that own memory: the map drops them on erase and free. */
static int drops;
static void drop_list(void *v)
{
	sap_list_free(v);
	drops++;
}

START_TEST(drop_called)
{
	sap_dmap m;
	sap_dm_create(&m, "M", SAP_K_INT, sizeof(sap_list), false, drop_list);
	drops = 0;
	for (int32_t k = 0; k < 10; k++) {
		sap_list *l = sap_dm_upsert(&m, &k);
		for (int i = 0; i < 5; i++)
			*(int *)sap_list_push(l, sizeof(int)) = i;
	}
	int32_t k = 4;
	ck_assert_int_eq(sap_dm_erase(&m, &k), 1);
	ck_assert_int_eq(drops, 1);
	ck_assert_int_eq(sap_dm_erase(&m, &k), 0);
	ck_assert_int_eq(drops, 1);
	sap_dm_free(&m);
	ck_assert_int_eq(drops, 10);

	sap_dm_create(&m, "MM", SAP_K_INT, sizeof(sap_list), true, drop_list);
	drops = 0;
	for (int i = 0; i < 3; i++)
		sap_list_push(sap_dm_add(&m, &k), sizeof(int));
	ck_assert_int_eq(sap_dm_erase(&m, &k), 3);
	ck_assert_int_eq(drops, 3);
	sap_dm_free(&m);
}
END_TEST

static void get_missing_int(void)
{
	sap_dmap m;
	sap_dm_create(&m, "M", SAP_K_INT, 4, false, NULL);
	int32_t k = 42;
	sap_site s = { "prog.sap", 12, 5 };
	sap_dm_get(&m, &k, &s);
}

static void get_missing_str(void)
{
	sap_dmap m;
	sap_dm_create(&m, "idx", SAP_K_STRING, 4, true, NULL);
	sap_str k = "zebra";
	sap_dm_get(&m, &k, NULL);
}

START_TEST(get_missing)
{
	get_missing_int();
}
END_TEST

START_TEST(get_missing_messages)
{
	char msg[512];
	ck_assert_int_eq(run_captured(get_missing_int, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "prog.sap:12:5: error: key 42 not in dmap 'M'; get(M, key, value) reads "
	                      "value where the key is missing\n");
	ck_assert_int_eq(run_captured(get_missing_str, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "sap: error: key \"zebra\" not in dmultimap 'idx'\n");
}
END_TEST

Suite *dmap_suite(void)
{
	Suite *s = suite_create("dmap");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, basic_ops);
	tcase_add_test(tc, memory_held);
	tcase_add_test(tc, long_keys);
	tcase_add_test(tc, order_after_erase_and_rehash);
	tcase_add_test(tc, erase_while_iterating);
	tcase_add_test(tc, churn);
	tcase_add_test(tc, direct_index);
	tcase_add_test(tc, direct_index_scattered);
	tcase_add_test(tc, multimap_values);
	tcase_add_test(tc, string_keys);
	tcase_add_test(tc, string_key_prefixes);
	tcase_add_test(tc, multimap);
	tcase_add_test(tc, drop_called);
	tcase_add_exit_test(tc, get_missing, 1);
	tcase_add_test(tc, get_missing_messages);
	suite_add_tcase(s, tc);
	return s;
}
