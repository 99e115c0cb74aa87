/* Unit tests of holder maps (runtime/dds/hold.c) and the codec of elements
 * holding strings or lists (runtime/dds/dvec.c). */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"
#include "suites.h"

enum { BLOCK = 1 << SAP_HOLD_SHIFT };

/* Every key's holder, as the map says. */
static void expect(const sap_dvec *v, const uint16_t *want)
{
	for (int64_t k = 0; k < v->n; k++)
		ck_assert_msg(sap_hold_get(v, k) == want[k], "key %lld: holder %u, want %u",
		              (long long)k, sap_hold_get(v, k), want[k]);
}

/* A block whose keys one rank holds is one value; a key set apart makes
 * it an array; tidying gives the array back once the keys agree again.
 * The bytes it takes are counted in the vector's DDS memory. */
START_TEST(blocks)
{
	sap_dvec v;
	int64_t n = 3 * BLOCK + 100;    /* the last block is short */
	sap_dv_create(&v, "v", n, 8, NULL);
	size_t base = v.held;
	uint16_t *want = malloc((size_t)n * sizeof *want);
	sap_hold_map(&v);
	for (int64_t k = 0; k < n; k++)
		want[k] = SAP_HOLD_ALL;
	expect(&v, want);
	ck_assert_int_eq(v.holder->nmixed, 0);

	/* Parts [0, 5000) and [5000, n): block 1 is split, the rest whole. */
	sap_hold_range(&v, 0, 5000, 0);
	sap_hold_range(&v, 5000, n, 1);
	for (int64_t k = 0; k < n; k++)
		want[k] = k < 5000 ? 0 : 1;
	expect(&v, want);
	ck_assert_int_eq(v.holder->nmixed, 1);
	ck_assert_uint_eq(v.held, base + sap_hold_bytes(&v));
	ck_assert_uint_ge(sap_hold_bytes(&v), BLOCK * sizeof(uint16_t));

	/* One key moves, then every key of block 1 goes to rank 1. */
	sap_hold_set(&v, 3 * BLOCK + 7, 0);
	want[3 * BLOCK + 7] = 0;
	expect(&v, want);
	ck_assert_int_eq(v.holder->nmixed, 2);
	for (int64_t k = BLOCK; k < 2 * BLOCK; k++) {
		sap_hold_set(&v, k, 1);
		want[k] = 1;
	}
	sap_hold_tidy(&v);
	expect(&v, want);
	ck_assert_int_eq(v.holder->nmixed, 1);
	ck_assert_uint_eq(v.held, base + sap_hold_bytes(&v));

	/* The short last block is whole as a range to the end. */
	sap_hold_range(&v, 3 * BLOCK, n, 2);
	for (int64_t k = 3 * BLOCK; k < n; k++)
		want[k] = 2;
	expect(&v, want);
	ck_assert_int_eq(v.holder->nmixed, 0);

	sap_hold_drop(&v);
	ck_assert_ptr_null(v.holder);
	ck_assert_uint_eq(v.held, base);
	sap_dv_free(&v);
	free(want);
}
END_TEST

/* sap_hold_from sets the holders of the keys its array names and leaves
 * the others: a block all of one new holder becomes one value (freeing
 * an array it had), as does a block partly named by one holder whose
 * other keys it or every rank held; a block of several holders, or
 * partly named where another rank held a key, an array; a block named
 * nowhere stays as it was; the stamp is new. */
START_TEST(from_last_writers)
{
	sap_dvec v;
	int64_t n = 4 * BLOCK + 50;     /* the last block is short */
	sap_dv_create(&v, "v", n, 4, NULL);
	size_t base = v.held;
	uint16_t *want = malloc((size_t)n * sizeof *want);
	uint16_t *lw = malloc((size_t)n * sizeof *lw);
	sap_hold_map(&v);
	/* Before: block 0 rank 1's, blocks 1 and 3 arrays (a key of rank
	 * 0's each), the rest every rank's. */
	sap_hold_range(&v, 0, BLOCK, 1);
	sap_hold_set(&v, BLOCK + 3, 0);
	sap_hold_set(&v, 3 * BLOCK + 20, 0);
	for (int64_t k = 0; k < n; k++) {
		want[k] = k < BLOCK ? 1 : k == BLOCK + 3 || k == 3 * BLOCK + 20 ? 0 : SAP_HOLD_ALL;
		lw[k] = SAP_HOLD_ALL;
	}
	ck_assert_int_eq(v.holder->nmixed, 2);
	/* Block 0 untouched; block 1 all rank 2's; block 2 alternating
	 * (LDA's tokens); block 3 one key of rank 1's beside rank 0's; the
	 * short block 4 ten keys of rank 0's, which then holds it all (the
	 * others were every rank's: a planned loop's writes at random keys). */
	for (int64_t k = BLOCK; k < 2 * BLOCK; k++)
		lw[k] = want[k] = 2;
	for (int64_t k = 2 * BLOCK; k < 3 * BLOCK; k++)
		lw[k] = want[k] = (uint16_t)(k % 2);
	lw[3 * BLOCK + 9] = want[3 * BLOCK + 9] = 1;
	for (int64_t k = 4 * BLOCK; k < n; k++) {
		if (k < 4 * BLOCK + 10)
			lw[k] = 0;
		want[k] = 0;
	}
	uint64_t stamp = v.holder->stamp;
	sap_hold_from(&v, lw);
	expect(&v, want);
	ck_assert_uint_gt(v.holder->stamp, stamp);
	ck_assert_ptr_null(v.holder->blk[0]);
	ck_assert_ptr_null(v.holder->blk[1]);
	ck_assert_ptr_nonnull(v.holder->blk[2]);
	ck_assert_ptr_nonnull(v.holder->blk[3]);
	ck_assert_ptr_null(v.holder->blk[4]);
	ck_assert_int_eq(v.holder->nmixed, 2);
	ck_assert_uint_eq(v.held, base + sap_hold_bytes(&v));
	sap_hold_drop(&v);
	sap_dv_free(&v);
	free(want);
	free(lw);
}
END_TEST

/* sap_hold_run walks the map in runs of one holder: checked against the
 * holders key by key, from every start, on whole blocks of one holder,
 * mixed blocks, a run across blocks and the short last block, with ends
 * inside and past a run. */
START_TEST(runs)
{
	sap_dvec v;
	int64_t n = 5 * BLOCK + 33;
	sap_dv_create(&v, "v", n, 8, NULL);
	sap_hold_map(&v);
	sap_hold_range(&v, 0, 2 * BLOCK + 10, 1);      /* across blocks 0-2 */
	sap_hold_range(&v, 2 * BLOCK + 10, 4 * BLOCK, 0);
	sap_hold_set(&v, 3 * BLOCK + 5, 2);            /* a lone key */
	sap_hold_set(&v, 3 * BLOCK + 6, 2);
	sap_hold_set(&v, BLOCK - 1, SAP_HOLD_ALL);     /* the last key of block 0 */
	sap_hold_range(&v, 4 * BLOCK, n, 2);           /* the short last block */
	for (int64_t k = 0; k < n; k += (k > 3 * BLOCK - 50 && k < 3 * BLOCK + 50) || k % BLOCK > BLOCK - 4 ? 1 : 97) {
		int64_t ends[] = { k + 1, k + 3, k + BLOCK, n };
		for (int e = 0; e < 4; e++) {
			int64_t end = ends[e] < n ? ends[e] : n;
			uint16_t who = 7;
			int64_t j = sap_hold_run(&v, k, end, &who);
			ck_assert_uint_eq(who, sap_hold_get(&v, k));
			ck_assert_msg(j > k && j <= end, "run from %lld to %lld: ends at %lld",
			              (long long)k, (long long)end, (long long)j);
			int64_t q = k;
			while (q < j && sap_hold_get(&v, q) == who)
				q++;
			ck_assert_msg(q == j, "run from %lld: key %lld is not its holder's",
			              (long long)k, (long long)q);
			ck_assert_msg(j == end || sap_hold_get(&v, j) != who,
			              "run from %lld stops early at %lld", (long long)k, (long long)j);
		}
	}
	sap_dv_free(&v);
}
END_TEST

/* An element holding a string and a list goes through its codec:
 * sap_dv_put packs it, sap_dv_take frees the old value and unpacks. */
typedef struct { int32_t id; sap_str name; sap_list xs; } doc;

static size_t pack_doc(const void *xv, char *o)
{
	const doc *x = xv;
	int64_t len = (int64_t)strlen(x->name);
	size_t n = sizeof x->id + 8 + (size_t)len + 8 + (size_t)x->xs.n * sizeof(int64_t);
	if (o) {
		memcpy(o, &x->id, sizeof x->id);
		memcpy(o + 4, &len, 8);
		memcpy(o + 12, x->name, (size_t)len);
		memcpy(o + 12 + len, &x->xs.n, 8);
		memcpy(o + 20 + len, x->xs.v, (size_t)x->xs.n * sizeof(int64_t));
	}
	return n;
}

static const char *unpack_doc(void *xv, const char *p)
{
	doc *x = xv;
	int64_t len, n;
	memcpy(&x->id, p, 4);
	memcpy(&len, p + 4, 8);
	x->name = sap_str_dup(p + 12, (size_t)len);
	memcpy(&n, p + 12 + len, 8);
	x->xs = (sap_list){ 0 };
	sap_list_grow(&x->xs, n, sizeof(int64_t));
	x->xs.n = n;
	memcpy(x->xs.v, p + 20 + len, (size_t)n * sizeof(int64_t));
	return p + 20 + len + n * 8;
}

static int drops;
static void drop_doc(void *xv)
{
	doc *x = xv;
	sap_list_free(&x->xs);
	drops++;
}

static const sap_codec doc_codec = { pack_doc, unpack_doc, drop_doc, NULL, NULL, false };

START_TEST(codec_put_take)
{
	sap_dvec v;
	sap_dv_create(&v, "docs", 3, sizeof(doc), NULL);
	sap_dv_set_codec(&v, &doc_codec);
	doc *d = (doc *)v.data;
	d[0].id = 7;
	d[0].name = "seven";
	for (int64_t k = 0; k < 5; k++)
		*(int64_t *)sap_list_push(&d[0].xs, sizeof(int64_t)) = k * k;
	size_t n = sap_dv_put(&v, 0, NULL);
	ck_assert_uint_eq(n, 4 + 8 + 5 + 8 + 5 * 8);
	char *buf = malloc(n);
	ck_assert_uint_eq(sap_dv_put(&v, 0, buf), n);
	drops = 0;
	ck_assert_ptr_eq(sap_dv_take(&v, 2, buf), buf + n);
	ck_assert_int_eq(drops, 1);     /* the old (empty) value of 2 */
	ck_assert_int_eq(d[2].id, 7);
	ck_assert_str_eq(d[2].name, "seven");
	ck_assert_int_eq(d[2].xs.n, 5);
	ck_assert_int_eq(((int64_t *)d[2].xs.v)[4], 16);
	ck_assert_ptr_ne(d[2].xs.v, d[0].xs.v);
	free(buf);
	sap_list_free(&d[0].xs);
	sap_list_free(&d[2].xs);
	sap_dv_free(&v);
}
END_TEST

Suite *hold_suite(void)
{
	Suite *s = suite_create("hold");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, blocks);
	tcase_add_test(tc, runs);
	tcase_add_test(tc, from_last_writers);
	tcase_add_test(tc, codec_put_take);
	suite_add_tcase(s, tc);
	return s;
}
