/* Unit tests of plans (runtime/plan/: group.c, rounds.c, keys.c, plan.c,
 * check.c, recon.c): layouts, grouping, the Strata shape of SGDMF's
 * rounds, oversized groups, and the plan checker on good and broken
 * plans. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "synth.h"
#include "suites.h"

static int64_t gsize(const sap_plan *p, int64_t g)
{
	return p->goff[g + 1] - p->goff[g];
}

/* Every iteration once, each group in index order (or, when the plan
 * sorts its groups by small block, by key and then in index order) with
 * one mask, each group in one round, and the groups of a round disjoint
 * (by masks: a key-level plan's groups have none, sap_plan_check is
 * their test). */
static void assert_well_formed(const sap_plan *p, const uint64_t *mask_of)
{
	int T = p->nworkers;
	char *seen = calloc((size_t)p->n + 1, 1);
	for (int64_t g = 0; g < p->ngroups; g++) {
		ck_assert_int_gt(gsize(p, g), 0);
		if (g > 0 && !p->keys)
			ck_assert_int_le(gsize(p, g), gsize(p, g - 1));
		for (int64_t k = p->goff[g]; k < p->goff[g + 1]; k++) {
			int64_t i = p->order[k];
			ck_assert(i >= 0 && i < p->n);
			ck_assert(!seen[i]);
			seen[i] = 1;
			if (k > p->goff[g] && p->fine && mask_of) {
				int64_t h = p->order[k - 1];
				int kh = sap_plan_fine_key(mask_of[h], p->fine_first, p->fine_F);
				int ki = sap_plan_fine_key(mask_of[i], p->fine_first, p->fine_F);
				ck_assert_int_le(kh, ki);
				if (kh == ki)
					ck_assert_int_lt(h, i);
			} else if (k > p->goff[g] && !p->fine) {
				ck_assert_int_lt(p->order[k - 1], i);
			}
			if (mask_of && !p->keys) {
				uint64_t m = 0;
				for (int b = 0; b < 64; b++)
					if (mask_of[i] >> b & 1)
						m |= (uint64_t)1 << p->bit[b];
				ck_assert(m == p->gmask[g]);
			}
		}
	}
	ck_assert_int_eq(p->goff[p->ngroups], p->n);
	char *placed = calloc((size_t)p->ngroups + 1, 1);
	for (int64_t r = 0; r < p->nrounds; r++) {
		uint64_t used = 0;
		for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++) {
			int64_t g = p->rg[k];
			ck_assert(!placed[g]);
			placed[g] = 1;
			if (!p->rlocked[r] && !p->keys)
				ck_assert((used & p->gmask[g]) == 0);
			used |= p->gmask[g];
		}
	}
	for (int64_t g = 0; g < p->ngroups; g++)
		ck_assert(placed[g]);
	free(seen);
	free(placed);
}

/* The masks the reconnaissance gives each iteration. */
static uint64_t *masks_of(const sap_async_spec *spec, void *env, int64_t n, int T)
{
	sap_layout ly;
	sap_layout_make(&ly, spec, T, 0);
	sap_layout_weigh(&ly, spec, env, 0, n, T, false);
	uint64_t *m = malloc((size_t)n * sizeof *m);
	sap_recon_masks(spec, &ly, env, 0, n, m, T);
	sap_layout_free(&ly);
	return m;
}

START_TEST(layout_blocks)
{
	sap_dvec a, b, c;
	sap_dv_create(&a, "a", 10, 4, NULL);
	sap_dv_create(&b, "b", 0, 4, NULL);
	sap_dv_create(&c, "c", 7, 4, NULL);
	sap_dmap m;
	sap_dm_create(&m, "m", SAP_K_LONG, 4, false, NULL);
	sap_dds d[5] = {
		{ .name = "a", .dv = &a, .mode = SAP_RW },
		{ .name = "r", .dv = &c, .mode = SAP_READ },
		{ .name = "acc", .dv = &c, .mode = SAP_RW, .accumulate = true },
		{ .name = "m", .dm = &m, .mode = SAP_WRITE },
		{ .name = "b", .dv = &b, .mode = SAP_RW },
	};
	sap_async_spec spec = { .dds = d, .ndds = 5 };
	sap_layout ly;
	ck_assert(sap_layout_make(&ly, &spec, 30, 0));
	ck_assert_int_eq(ly.nparts, 3);
	ck_assert_int_eq(ly.B, 21);     /* 3 x 30 bits do not fit in 64 */
	ck_assert_uint_eq(ly.d[0].nblk, 21);
	ck_assert_uint_eq(ly.d[0].base, 0);
	ck_assert_uint_eq(ly.d[0].max, 9);
	ck_assert_uint_eq(ly.d[1].nblk, 0);     /* read only */
	ck_assert_uint_eq(ly.d[2].nblk, 0);     /* accumulate */
	ck_assert_uint_eq(ly.d[3].nblk, 21);
	ck_assert_uint_eq(ly.d[3].base, 21);
	ck_assert(ly.d[3].max == UINT64_MAX);
	ck_assert_uint_eq(ly.d[4].nblk, 0);     /* empty */
	sap_layout_free(&ly);
	ck_assert(sap_layout_make(&ly, &spec, 4, 5));
	ck_assert_int_eq(ly.B, 5);
	sap_layout_free(&ly);
	sap_dv_free(&a);
	sap_dv_free(&b);
	sap_dv_free(&c);
	sap_dm_free(&m);
}
END_TEST

START_TEST(layout_granules)
{
	/* A dvector's keys fall into at most 65536 granules, cut into
	 * contiguous blocks: before weighing, of equal numbers of keys. */
	struct { int64_t n; uint32_t shift; } c[] = {
		{ 1000, 0 }, { 65536, 0 }, { 65537, 1 }, { 1 << 20, 4 }, { 3000000, 6 },
	};
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		sap_dvec v;
		sap_dv_create(&v, "v", c[k].n, 4, NULL);
		sap_dds d[1] = { { .name = "v", .dv = &v, .mode = SAP_RW } };
		sap_async_spec spec = { .dds = d, .ndds = 1 };
		sap_layout ly;
		ck_assert(sap_layout_make(&ly, &spec, 2, 0));
		ck_assert_int_eq(ly.F, 16);
		ck_assert_uint_eq(ly.d[0].shift, c[k].shift);
		uint64_t prev = 1;
		for (int64_t key = 0; key < c[k].n; key += 1 + c[k].n / 997) {
			uint64_t b = sap_rec_bit(&ly.d[0], key);
			ck_assert(b == prev || b == prev << 1);
			prev = b;
		}
		ck_assert_uint_eq(sap_rec_bit(&ly.d[0], c[k].n - 1), (uint64_t)1 << 15);
		sap_layout_free(&ly);
		sap_dv_free(&v);
	}
}
END_TEST

/* Iteration i writes key[i] of X; the keys from a table. */
typedef struct one_key {
	sap_dvec X;
	const int64_t *key;
	sap_dds d[1];
	sap_async_spec spec;
} one_key;

static void one_key_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	one_key *m = env;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		sap_rec_key(rec, 0, m->key[i], SAP_RW);
	}
}

START_TEST(layout_weighed)
{
	/* Half the iterations write key 0: it gets a block of its own, and
	 * the other blocks share the rest evenly. */
	enum { N = 40000, KEYS = 1000 };
	int64_t *key = malloc(N * sizeof *key);
	uint64_t s = 7;
	for (int64_t i = 0; i < N; i++)
		key[i] = i % 2 ? 0 : 1 + synth_below(&s, KEYS - 1);
	one_key m = { .key = key };
	sap_dv_create(&m.X, "X", KEYS, 8, NULL);
	m.d[0] = (sap_dds){ .name = "X", .dv = &m.X, .mode = SAP_RW };
	m.spec = (sap_async_spec){ .dds = m.d, .ndds = 1, .slice = one_key_slice };
	sap_layout ly;
	sap_layout_make(&ly, &m.spec, 2, 0);
	sap_layout_weigh(&ly, &m.spec, &m, 0, N, 2, false);
	ck_assert_uint_eq(sap_rec_bit(&ly.d[0], 0), 1);
	ck_assert_uint_eq(sap_rec_bit(&ly.d[0], 1), 2);
	ck_assert_uint_eq(sap_rec_bit(&ly.d[0], KEYS - 1), (uint64_t)1 << 15);
	/* Blocks 1 .. 15 hold about 999 / 15 keys each. */
	int64_t per[16] = { 0 };
	for (int64_t k = 1; k < KEYS; k++)
		per[__builtin_ctzll(sap_rec_bit(&ly.d[0], k))]++;
	for (int b = 1; b < 16; b++)
		ck_assert(per[b] > 50 && per[b] < 85);
	/* The plan: key 0's iterations in one group, the rest spread. */
	planned pl;
	plan_spec(&pl, &m.spec, &m, N, 2, false);
	assert_well_formed(&pl.plan, NULL);
	ck_assert(pl.plan.balance < 1.05);
	sap_conflict c;
	ck_assert(sap_plan_check(&pl.plan, 0, pl.log.v, pl.log.n, &c));
	planned_free(&pl);
	sap_layout_free(&ly);
	sap_dv_free(&m.X);
	free(key);
}
END_TEST

START_TEST(layout_split_granule)
{
	/* Keys 0 and 1, each written by a quarter of the iterations, share a
	 * granule of 8 keys: the cut splits it, and the keys get blocks of
	 * their own. */
	enum { N = 40000, KEYS = 300000 };
	int64_t *key = malloc(N * sizeof *key);
	uint64_t s = 9;
	for (int64_t i = 0; i < N; i++)
		key[i] = i % 4 == 1 ? 0 : i % 4 == 3 ? 1 : 2 + synth_below(&s, KEYS - 2);
	one_key m = { .key = key };
	sap_dv_create(&m.X, "X", KEYS, 8, NULL);
	m.d[0] = (sap_dds){ .name = "X", .dv = &m.X, .mode = SAP_RW };
	m.spec = (sap_async_spec){ .dds = m.d, .ndds = 1, .slice = one_key_slice };
	sap_layout ly;
	sap_layout_make(&ly, &m.spec, 2, 0);
	ck_assert_uint_eq(ly.d[0].shift, 3);
	sap_layout_weigh(&ly, &m.spec, &m, 0, N, 2, false);
	ck_assert_uint_eq(ly.d[0].tab[0], SAP_SPLIT);
	ck_assert_uint_eq(sap_rec_bit(&ly.d[0], 0), 1);
	ck_assert_uint_eq(sap_rec_bit(&ly.d[0], 1), 2);
	ck_assert_uint_eq(sap_rec_bit(&ly.d[0], 2), 4);
	ck_assert_uint_eq(sap_rec_bit(&ly.d[0], KEYS - 1), (uint64_t)1 << 15);
	/* Every key's block by the table agrees with the cuts. */
	for (int64_t k = 0; k < KEYS; k += 7) {
		int b = 0;
		while (b + 1 < 16 && ly.d[0].cut[b + 1] <= k)
			b++;
		ck_assert_uint_eq(sap_rec_bit(&ly.d[0], k), (uint64_t)1 << b);
	}
	sap_layout_free(&ly);
	sap_dv_free(&m.X);
	free(key);
}
END_TEST

static int blk_of(int64_t key, int64_t n, int F)
{
	int b = 0;
	while (b + 1 < F && (b + 1) * n / F <= key)
		b++;
	return b;
}

START_TEST(masks_of_keys)
{
	/* Block bits of the slice's keys and of the affine forms; keys out
	 * of a dvector's range count for nothing. */
	sap_dvec x, y;
	sap_dv_create(&x, "x", 100, 4, NULL);
	sap_dv_create(&y, "y", 100, 4, NULL);
	sap_dds d[2] = {
		{ .name = "x", .dv = &x, .mode = SAP_RW },
		{ .name = "y", .dv = &y, .mode = SAP_WRITE },
	};
	sap_affine af[2] = { { .dds = 1, .mode = SAP_WRITE, .a = 2, .b = 1 }, { .dds = 1, .mode = SAP_WRITE, .a = 1, .b = 90 } };
	sap_async_spec spec = { .dds = d, .ndds = 2, .affine = af, .naffine = 2 };
	sap_layout ly;
	sap_layout_make(&ly, &spec, 4, 0);
	ck_assert_int_eq(ly.B, 4);
	ck_assert_int_eq(ly.F, 32);     /* 8 B, as 2 x 32 bits fit */
	ck_assert_uint_eq(ly.d[1].base, 32);
	uint64_t m[20];
	sap_recon_masks(&spec, &ly, NULL, 0, 20, m, 3);
	for (int64_t i = 0; i < 20; i++) {
		/* 100 keys in 32 contiguous blocks, block b from b 100 / 32. */
		uint64_t want = (uint64_t)1 << (32 + blk_of(2 * i + 1, 100, 32));
		if (i + 90 < 100)
			want |= (uint64_t)1 << (32 + blk_of(i + 90, 100, 32));
		ck_assert_uint_eq(m[i], want);
	}
	sap_layout_free(&ly);
	sap_dv_free(&x);
	sap_dv_free(&y);
}
END_TEST

/* SGDMF planned on T workers: well formed, conflict-free, and in the
 * DSGD/Strata shape of T rounds of T groups. */
static void plan_strata(sgd *m, int T, planned *pl)
{
	uint64_t *mk = masks_of(&m->spec, m, m->A.n, T);
	plan_spec(pl, &m->spec, m, m->A.n, T, true);
	const sap_plan *p = &pl->plan;
	assert_well_formed(p, mk);
	ck_assert_int_eq(p->ngroups, T * T);
	ck_assert_int_eq(p->nlocked, 0);
	ck_assert_int_eq(p->nrounds, T);
	/* Each group by the small blocks of the ratings' larger side (the
	 * first DDS here, as large as the second: the first of equals). */
	ck_assert(p->fine);
	ck_assert_int_eq(p->fine_first, 0);
	sap_conflict c;
	ck_assert(sap_plan_check(p, 0, pl->log.v, pl->log.n, &c));
	free(mk);
}

/* With SAP_FINE_ORDER=0 the groups stay in index order. */
START_TEST(strata_index_order)
{
	sgd m;
	sgd_make(&m, 50000, 5000, 5000, 5);
	sap_cfg.groups_in_index_order = true;
	uint64_t *mk = masks_of(&m.spec, &m, m.A.n, 2);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.A.n, 2, true);
	ck_assert(!pl.plan.fine);
	assert_well_formed(&pl.plan, mk);
	sap_cfg.groups_in_index_order = false;
	free(mk);
	planned_free(&pl);
	sgd_free(&m);
}
END_TEST

static int by_user(const void *x, const void *y)
{
	const rating *a = x, *b = y;
	return (a->u > b->u) - (a->u < b->u);
}

/* Ratings sorted by user walk W block by block in index order already:
 * the groups keep the program's order (group.c), as LDA's tokens by
 * document do; the shuffled ones of plan_strata are sorted. */
START_TEST(strata_sorted_index_order)
{
	sgd m;
	sgd_make(&m, 50000, 5000, 5000, 5);
	qsort(m.A.data, (size_t)m.A.n, sizeof(rating), by_user);
	uint64_t *mk = masks_of(&m.spec, &m, m.A.n, 2);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.A.n, 2, true);
	ck_assert(!pl.plan.fine);
	ck_assert_int_eq(pl.plan.ngroups, 4);
	assert_well_formed(&pl.plan, mk);
	free(mk);
	planned_free(&pl);
	sgd_free(&m);
}
END_TEST

/* DSGD/Strata: T rounds of T groups, one per worker, loads within 10%. */
START_TEST(strata_shape)
{
	int T = 2 + _i % 3;
	sgd m;
	sgd_make(&m, 200000, 20000, 20000, 11 + (uint64_t)_i);
	planned pl;
	plan_strata(&m, T, &pl);
	const sap_plan *p = &pl.plan;
	for (int64_t r = 0; r < p->nrounds; r++) {
		int64_t lo = INT64_MAX, hi = 0;
		for (int w = 0; w < T; w++) {
			ck_assert_int_eq(p->ro[r * T + w + 1] - p->ro[r * T + w], 1);
			int64_t load = gsize(p, p->rg[p->ro[r * T + w]]);
			lo = load < lo ? load : lo;
			hi = load > hi ? load : hi;
		}
		ck_assert_msg(hi <= 1.10 * lo, "T=%d round %lld: loads %lld to %lld", T,
		              (long long)r, (long long)lo, (long long)hi);
	}
	ck_assert(p->balance >= 1.0 && p->balance < 1.10);
	planned_free(&pl);
	sgd_free(&m);
}
END_TEST

/* Skewed keys, as real ratings have them: a third of the ratings go to
 * 12 items.  Hashed blocks would be as uneven as those items; fine blocks
 * dealt out by weight even them out. */
START_TEST(strata_skewed)
{
	int T = 2 + _i % 3;
	sgd m;
	sgd_make(&m, 200000, 20000, 3000, 5 + (uint64_t)_i);
	rating *a = (rating *)m.A.data;
	uint64_t s = 99;
	for (int64_t i = 0; i < m.A.n; i++)
		if (synth_below(&s, 3) == 0)
			a[i].v = (int32_t)synth_below(&s, 12);
	planned pl;
	plan_strata(&m, T, &pl);
	ck_assert_msg(pl.plan.balance < 1.03, "T=%d: balance %.3f", T, pl.plan.balance);
	planned_free(&pl);
	sgd_free(&m);
}
END_TEST

/* Iterations with the given masks, n[k] of mask[k], interleaved. */
static uint64_t *masks_for(const uint64_t *mask, const int64_t *cnt, int ng, int64_t *n)
{
	int64_t total = 0;
	for (int k = 0; k < ng; k++)
		total += cnt[k];
	uint64_t *m = malloc((size_t)total * sizeof *m);
	int64_t left[64], at = 0;
	memcpy(left, cnt, (size_t)ng * sizeof *cnt);
	while (at < total)
		for (int k = 0; k < ng; k++)
			if (left[k]-- > 0)
				m[at++] = mask[k];
	*n = total;
	return m;
}

START_TEST(greedy_stranded)
{
	/* 3 x 3 cells, the diagonal largest, then (0,1) and (1,0): greedy
	 * packing gives the second round just those two, since (2,2) went
	 * in the first.  Augmenting finds 3 rounds of 3. */
	static const int cell[9][3] = {
		{ 0, 0, 100 }, { 1, 1, 99 }, { 2, 2, 98 }, { 0, 1, 90 }, { 1, 0, 89 },
		{ 0, 2, 50 }, { 1, 2, 49 }, { 2, 0, 48 }, { 2, 1, 47 },
	};
	uint64_t mask[9];
	int64_t cnt[9];
	for (int k = 0; k < 9; k++) {
		mask[k] = (uint64_t)1 << cell[k][0] | (uint64_t)1 << (3 + cell[k][1]);
		cnt[k] = cell[k][2];
	}
	int64_t n;
	uint64_t *m = masks_for(mask, cnt, 9, &n);
	uint64_t *m0 = malloc((size_t)n * sizeof *m0);
	memcpy(m0, m, (size_t)n * sizeof *m);
	sap_plan p;
	sap_plan_build(&p, m, 0, n, 3, false);
	assert_well_formed(&p, m0);
	ck_assert_int_eq(p.nrounds, 3);
	for (int64_t r = 0; r < 3; r++)
		ck_assert_int_eq(p.ro[(r + 1) * 3] - p.ro[r * 3], 3);
	sap_plan_free(&p);
	free(m);
	free(m0);
}
END_TEST

START_TEST(oversized_group)
{
	uint64_t mask[3] = { 1, 2, 4 };
	int64_t cnt[3] = { 800, 100, 100 };
	int64_t n;
	uint64_t *m = masks_for(mask, cnt, 3, &n);
	uint64_t *m0 = malloc((size_t)n * sizeof *m0);
	memcpy(m0, m, (size_t)n * sizeof *m);
	sap_plan p;
	/* 800 > 1.5 x 1000 / 2: a locked round of its own, first. */
	sap_plan_build(&p, m, 0, n, 2, true);
	assert_well_formed(&p, m0);
	ck_assert_int_eq(p.nlocked, 1);
	ck_assert(p.rlocked[0]);
	ck_assert_int_eq(p.rg[p.ro[0]], 0);
	ck_assert_int_eq(gsize(&p, 0), 800);
	ck_assert_int_eq(p.nrounds, 2);
	ck_assert(!p.rlocked[1]);
	sap_plan_free(&p);

	/* Without locks it is a group like the others; 800 on one worker. */
	memcpy(m, m0, (size_t)n * sizeof *m);
	sap_plan_build(&p, m, 0, n, 2, false);
	ck_assert_int_eq(p.nlocked, 0);
	ck_assert_int_eq(p.nrounds, 1);
	ck_assert_int_eq(p.ro[1] - p.ro[0], 1);    /* worker 0: the 800 */
	ck_assert_int_eq(p.ro[2] - p.ro[1], 2);    /* worker 1: the two 100s */
	ck_assert(p.balance > 1.59 && p.balance < 1.61);
	sap_plan_free(&p);

	/* 700 of 1000 on 2 workers is not oversized. */
	int64_t cnt2[3] = { 700, 150, 150 };
	free(m);
	m = masks_for(mask, cnt2, 3, &n);
	sap_plan_build(&p, m, 0, n, 2, true);
	ck_assert_int_eq(p.nlocked, 0);
	sap_plan_free(&p);
	free(m);
	free(m0);
}
END_TEST

/* Iterations that touch no key (their slice recorded nothing: an empty
 * list, an update under a false if) form a group of mask 0, which fits in
 * any round.  Packed to the lead's size (p->level), it led a round of its
 * own and was then added again beside itself: on 2 workers its
 * iterations ran twice, in both packings the plan runs each once, and
 * the checker says so of a plan that places a group twice. */
START_TEST(keyless_group_once)
{
	uint64_t mask[3] = { 1, 2, 0 };
	int64_t cnt[3] = { 8, 7, 5 };
	int64_t n;
	uint64_t *m = masks_for(mask, cnt, 3, &n);
	uint64_t *m0 = malloc((size_t)n * sizeof *m0);
	memcpy(m0, m, (size_t)n * sizeof *m);
	for (int level = 0; level < 2; level++) {
		sap_plan p;
		memcpy(m, m0, (size_t)n * sizeof *m);
		sap_plan_build(&p, m, 0, n, 2, false);
		if (level) {
			free(p.ro);
			free(p.rg);
			free(p.rlocked);
			p.level = true;
			sap_plan_pack(&p, false, 0);
		}
		assert_well_formed(&p, m0);
		sap_conflict c;
		ck_assert(sap_plan_check(&p, 0, NULL, 0, &c));
		/* The last group placed a second time, in the last round. */
		int64_t last = p.ro[p.nrounds * 2];
		p.rg = realloc(p.rg, (size_t)(last + 1) * sizeof *p.rg);
		p.rg[last] = p.rg[last - 1];
		p.ro[p.nrounds * 2] = last + 1;
		ck_assert(!sap_plan_check(&p, 0, NULL, 0, &c));
		ck_assert_int_eq(c.dds, -1);
		ck_assert_int_eq(c.times, 2);
		sap_plan_free(&p);
	}
	free(m);
	free(m0);
}
END_TEST

START_TEST(check_transe)
{
	int T = 2 + _i;
	transe m;
	transe_make(&m, 30000, 2000, 5 + (uint64_t)_i);
	uint64_t *mk = masks_of(&m.spec, &m, m.T.n, T);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.T.n, T, false);
	assert_well_formed(&pl.plan, mk);
	ck_assert_int_gt(pl.plan.nrounds, 1);
	/* 4 keys an iteration: head, relation, tail, corrupted; an entity
	 * met twice in an iteration is logged once. */
	const int32_t *t = (const int32_t *)m.T.data;
	int64_t want = 0;
	for (int64_t i = 0; i < m.T.n; i++) {
		const int32_t *x = t + 4 * i;
		want += 2 + (x[2] != x[0]) + (x[3] != x[0] && x[3] != x[2]);
	}
	ck_assert_int_lt(want, 4 * m.T.n);
	ck_assert_int_eq(pl.log.n, want);
	sap_conflict c;
	ck_assert(sap_plan_check(&pl.plan, 0, pl.log.v, pl.log.n, &c));
	planned_free(&pl);
	free(mk);
	transe_free(&m);
}
END_TEST

START_TEST(check_patterns)
{
	int T = 2 + _i;
	pattern m;
	pattern_make(&m, 20000, 500, 9 + (uint64_t)_i);
	uint64_t *mk = masks_of(&m.spec, &m, m.n, T);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.n, T, false);
	assert_well_formed(&pl.plan, mk);
	sap_conflict c;
	ck_assert(sap_plan_check(&pl.plan, 0, pl.log.v, pl.log.n, &c));
	planned_free(&pl);
	free(mk);
	pattern_free(&m);
}
END_TEST

/* The conflict is real: each group has an iteration touching the key, and
 * one of those accesses writes. */
static void assert_real_conflict(const sap_plan *p, const sap_keylog *log, const sap_conflict *c)
{
	ck_assert_int_ne(c->g1, c->g2);
	int64_t *gof = malloc((size_t)p->n * sizeof *gof);
	for (int64_t g = 0; g < p->ngroups; g++)
		for (int64_t k = p->goff[g]; k < p->goff[g + 1]; k++)
			gof[p->order[k]] = g;
	bool in1 = false, in2 = false, wr = false;
	for (int64_t k = 0; k < log->n; k++) {
		const sap_access *a = &log->v[k];
		if (a->dds != c->dds || a->key != c->key)
			continue;
		int64_t g = gof[a->i];
		if (g == c->g1 || g == c->g2) {
			in1 |= g == c->g1;
			in2 |= g == c->g2;
			wr |= (a->mode & SAP_WRITE) != 0;
		}
	}
	ck_assert(in1 && in2 && wr);
	free(gof);
}

START_TEST(check_catches_broken)
{
	int T = 3;
	sgd m;
	sgd_make(&m, 30000, 3000, 3000, 4);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.A.n, T, false);
	sap_plan *p = &pl.plan;
	ck_assert_int_eq(p->nrounds, 3);
	sap_conflict c;
	ck_assert(sap_plan_check(p, 0, pl.log.v, pl.log.n, &c));

	/* Swap a group of round 0 with one of round 1: each now shares a
	 * row or a column block, hence keys, with a group of its new round. */
	int64_t *a = &p->rg[p->ro[0]], *b = &p->rg[p->ro[T]];
	int64_t t = *a;
	*a = *b;
	*b = t;
	ck_assert(!sap_plan_check(p, 0, pl.log.v, pl.log.n, &c));
	ck_assert(c.round == 0 || c.round == 1);
	ck_assert(c.dds == 1 || c.dds == 2);
	assert_real_conflict(p, &pl.log, &c);
	*b = *a;
	*a = t;
	ck_assert(sap_plan_check(p, 0, pl.log.v, pl.log.n, &c));

	/* Every group in one round. */
	int64_t ro[4] = { 0, p->ngroups, p->ngroups, p->ngroups };
	int64_t *saved = p->ro;
	int64_t nr = p->nrounds;
	p->ro = ro;
	p->nrounds = 1;
	ck_assert(!sap_plan_check(p, 0, pl.log.v, pl.log.n, &c));
	ck_assert_int_eq(c.round, 0);
	assert_real_conflict(p, &pl.log, &c);
	/* A locked round is exempt: its locks order the shared keys. */
	p->rlocked[0] = true;
	ck_assert(sap_plan_check(p, 0, pl.log.v, pl.log.n, &c));
	p->rlocked[0] = false;
	p->ro = saved;
	p->nrounds = nr;
	planned_free(&pl);
	sgd_free(&m);
}
END_TEST

START_TEST(check_modes)
{
	/* Three iterations, each its own group, all in one round. */
	int64_t order[3] = { 0, 1, 2 }, goff[4] = { 0, 1, 2, 3 }, ro[4] = { 0, 1, 2, 3 };
	int64_t rg[3] = { 0, 1, 2 };
	uint64_t gmask[3] = { 1, 2, 4 };
	bool rlocked[1] = { false };
	sap_plan p = {
		.n = 3, .order = order, .ngroups = 3, .goff = goff, .gmask = gmask,
		.nworkers = 3, .nrounds = 1, .ro = ro, .rg = rg, .rlocked = rlocked,
	};
	sap_access log[4] = {
		{ 0, 5, 0, SAP_READ }, { 1, 5, 0, SAP_READ }, { 2, 5, 1, SAP_WRITE },
		{ 2, 5, 0, SAP_WRITE },
	};
	sap_conflict c;
	/* Readers share; one key of two DDSs is two keys. */
	ck_assert(sap_plan_check(&p, 0, log, 3, &c));
	/* A writer does not. */
	ck_assert(!sap_plan_check(&p, 0, log, 4, &c));
	ck_assert_int_eq(c.round, 0);
	ck_assert_int_eq(c.g1, 0);
	ck_assert_int_eq(c.g2, 2);
	ck_assert_int_eq(c.dds, 0);
	ck_assert_int_eq(c.key, 5);
	/* Writing first, then reading from another group. */
	sap_access log2[2] = { { 1, 9, 0, SAP_RW }, { 2, 9, 0, SAP_READ } };
	ck_assert(!sap_plan_check(&p, 0, log2, 2, &c));
	ck_assert_int_eq(c.g1, 1);
	ck_assert_int_eq(c.g2, 2);
	/* Within a group anything goes. */
	goff[1] = 0;
	goff[2] = 0;            /* group 2 holds all three */
	order[0] = 0;
	ck_assert(sap_plan_check(&p, 0, log, 4, &c));
}
END_TEST

/* ---- key-level plans ---- */

/* The round of each iteration of p. */
static int64_t *rounds_of(const sap_plan *p, int64_t lo)
{
	int T = p->nworkers;
	int64_t *r = malloc((size_t)p->n * sizeof *r);
	for (int64_t k = 0; k < p->n; k++)
		r[k] = -1;
	for (int64_t q = 0; q < p->nrounds; q++)
		for (int64_t k = p->ro[q * T]; k < p->ro[(q + 1) * T]; k++)
			for (int64_t x = p->goff[p->rg[k]]; x < p->goff[p->rg[k] + 1]; x++)
				r[p->order[x] - lo] = q;
	return r;
}

/* The shape of a key-level plan of iterations [lo, lo + n) from log:
 * well formed, each round's iterations ascending over its groups in
 * worker order, cut evenly by weight (an iteration's accesses in the log
 * plus one: each cut within half an iteration's weight of the even
 * share's, so no group is off it by more than the heaviest iteration),
 * a worker's group contiguous in index order; balance by counts. */
static void assert_wave_shape(const sap_plan *p, const sap_access *log, int64_t nlog)
{
	int T = p->nworkers;
	ck_assert(p->keys);
	assert_well_formed(p, NULL);
	ck_assert_int_eq(p->nlocked, 0);
	int64_t lo = INT64_MAX;
	for (int64_t k = 0; k < p->n; k++)
		lo = p->order[k] < lo ? p->order[k] : lo;
	double *wt = malloc((size_t)p->n * sizeof *wt);
	for (int64_t k = 0; k < p->n; k++)
		wt[k] = 1;
	for (int64_t k = 0; k < nlog; k++)
		wt[log[k].i - lo] += 1;
	double maxsum = 0;
	for (int64_t r = 0; r < p->nrounds; r++) {
		int64_t prev = -1, size = 0;
		double total = 0, heaviest = 0;
		for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++) {
			int64_t g = p->rg[k];
			for (int64_t x = p->goff[g]; x < p->goff[g + 1]; x++) {
				double w = wt[p->order[x] - lo];
				total += w;
				heaviest = w > heaviest ? w : heaviest;
			}
		}
		double done = 0;
		for (int w = 0; w < T; w++) {
			double c = 0;
			for (int64_t k = p->ro[r * T + w]; k < p->ro[r * T + w + 1]; k++) {
				int64_t g = p->rg[k];
				size += gsize(p, g);
				for (int64_t x = p->goff[g]; x < p->goff[g + 1]; x++) {
					ck_assert_int_gt(p->order[x], prev);
					prev = p->order[x];
					c += wt[p->order[x] - lo];
				}
			}
			ck_assert_int_le(p->ro[r * T + w + 1] - p->ro[r * T + w], 1);
			done += c;
			if (w < T - 1)
				ck_assert(fabs(done - total * (w + 1) / T) <= heaviest / 2 + 1e-9);
		}
		ck_assert_int_gt(size, 0);
		maxsum += (double)((size + T - 1) / T);
	}
	free(wt);
	ck_assert(fabs(p->balance - maxsum * T / (double)p->n) < 1e-9);
}

/* No two iterations of a round conflict, and of two that conflict the
 * earlier one's round comes first; by every pair. */
static void assert_wave_order(const sap_plan *p, const sap_access *log, int64_t nlog)
{
	int64_t *r = rounds_of(p, 0);
	for (int64_t a = 0; a < nlog; a++)
		for (int64_t b = 0; b < nlog; b++) {
			const sap_access *x = &log[a], *y = &log[b];
			if (x->i >= y->i || x->dds != y->dds || x->key != y->key ||
			    !((x->mode | y->mode) & SAP_WRITE))
				continue;
			ck_assert_int_lt(r[x->i], r[y->i]);
		}
	free(r);
}

START_TEST(wave_rounds)
{
	/* Iterations 0 .. 7 over keys of DDSs 0 and 1. */
	sap_access log[] = {
		{ 0, 1, 0, SAP_WRITE },
		{ 1, 1, 0, SAP_READ },          /* after 0's write: round 2 */
		{ 2, 1, 0, SAP_READ },          /* readers share: round 2 */
		{ 2, 4, 0, SAP_RW },
		{ 3, 2, 0, SAP_WRITE },         /* nothing before: round 1 */
		{ 4, 1, 0, SAP_WRITE },         /* after the reads: round 3 */
		{ 4, 1, 0, SAP_READ },          /* its own read: no conflict */
		/* 5 touches nothing: round 1 */
		{ 6, 2, 1, SAP_RW },            /* key 2 of DDS 1 is not of DDS 0 */
		{ 7, 4, 0, SAP_READ },          /* after 2's write: round 3 */
		{ 7, 2, 1, SAP_READ },          /* and 6's */
	};
	int64_t nlog = sizeof log / sizeof log[0];
	static const int64_t want[8] = { 0, 1, 1, 0, 2, 0, 0, 2 };
	for (int T = 1; T <= 4; T++) {
		sap_plan p;
		ck_assert(sap_plan_wave(&p, log, nlog, 0, 8, T, NULL));
		ck_assert_int_eq(p.nrounds, 3);
		assert_wave_shape(&p, log, nlog);
		int64_t *r = rounds_of(&p, 0);
		for (int i = 0; i < 8; i++)
			ck_assert_int_eq(r[i], want[i]);
		free(r);
		/* Round 1 holds 0, 3, 5, 6: cut into T runs in that order. */
		ck_assert_int_eq(p.order[0], 0);
		ck_assert_int_eq(p.order[1], 3);
		ck_assert_int_eq(p.order[2], 5);
		ck_assert_int_eq(p.order[3], 6);
		assert_wave_order(&p, log, nlog);
		sap_conflict c;
		ck_assert(sap_plan_check(&p, 0, log, nlog, &c));
		/* Moving 4 into round 2 puts it beside the readers of key 1. */
		if (T == 2) {
			/* Round 3 is groups of 4 and of 7; round 2 of 1 and 2. */
			ck_assert_int_eq(p.ro[2 * T], p.ro[3 * T] - 2);
			int64_t g4 = p.rg[p.ro[2 * T]], g1 = p.rg[p.ro[1 * T]];
			ck_assert_int_eq(p.order[p.goff[g4]], 4);
			ck_assert_int_eq(p.order[p.goff[g1]], 1);
			p.rg[p.ro[2 * T]] = g1;
			p.rg[p.ro[1 * T]] = g4;
			ck_assert(!sap_plan_check(&p, 0, log, nlog, &c));
			ck_assert_int_eq(c.key, 1);
			ck_assert_int_eq(c.dds, 0);
		}
		sap_plan_free(&p);
	}
	/* Iterations numbered from lo, into the caller's order buffer. */
	sap_access two[] = { { 100, 7, 0, SAP_WRITE }, { 101, 7, 0, SAP_WRITE } };
	int64_t order[3];
	sap_plan p;
	ck_assert(sap_plan_wave(&p, two, 2, 100, 3, 2, order));
	ck_assert(p.order == order && !p.owns_order);
	ck_assert_int_eq(p.nrounds, 2);
	ck_assert_int_eq(order[0], 100);
	ck_assert_int_eq(order[1], 102);
	ck_assert_int_eq(order[2], 101);
	sap_plan_free(&p);
}
END_TEST

START_TEST(wave_random)
{
	/* 1 to 4 keys of 3 DDSs, read, written or both, from 30 keys:
	 * dense conflicts. */
	pattern m;
	pattern_make(&m, 400, 30, 21 + (uint64_t)_i);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.n, 3, false);
	for (int T = 1; T <= 5; T++) {
		sap_plan p;
		ck_assert(sap_plan_wave(&p, pl.log.v, pl.log.n, 0, m.n, T, NULL));
		assert_wave_shape(&p, pl.log.v, pl.log.n);
		assert_wave_order(&p, pl.log.v, pl.log.n);
		sap_conflict c;
		ck_assert(sap_plan_check(&p, 0, pl.log.v, pl.log.n, &c));
		sap_plan_free(&p);
	}
	planned_free(&pl);
	pattern_free(&m);
}
END_TEST

START_TEST(wave_weighted)
{
	/* A triangular loop: iteration i of 100 writes 100 - i keys of its
	 * own, so one round.  Cut by counts, the first of 2 workers would
	 * get 3/4 of the accesses; cut by them, each group is within one
	 * iteration's accesses of an even share. */
	enum { N = 100 };
	sap_access *log = malloc(N * N * sizeof *log);
	int64_t nlog = 0;
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = 0; j < N - i; j++)
			log[nlog++] = (sap_access){ i, i * N + j, 0, SAP_WRITE };
	for (int T = 1; T <= 4; T++) {
		sap_plan p;
		ck_assert(sap_plan_wave(&p, log, nlog, 0, N, T, NULL));
		ck_assert_int_eq(p.nrounds, 1);
		ck_assert_int_eq(p.ngroups, T);
		double total = 0;
		for (int64_t i = 0; i < N; i++)
			total += (double)(N - i + 1);
		for (int w = 0; w < T; w++) {
			int64_t g = p.rg[p.ro[w]];
			double sum = 0;
			for (int64_t k = p.goff[g]; k < p.goff[g + 1]; k++) {
				/* Each group a run of consecutive iterations. */
				if (k > p.goff[g])
					ck_assert_int_eq(p.order[k], p.order[k - 1] + 1);
				sum += (double)(N - p.order[k] + 1);
			}
			ck_assert(fabs(sum - total / T) <= N + 1);
		}
		sap_conflict c;
		ck_assert(sap_plan_check(&p, 0, log, nlog, &c));
		sap_plan_free(&p);
	}
	free(log);
}
END_TEST

START_TEST(wave_bounds)
{
	/* Hashed keys are bounded (2^20 in all): one iteration more, each
	 * writing a key of its own, and there is no key-level plan. */
	int64_t n = ((int64_t)1 << 20) + 1;
	sap_access *log = malloc((size_t)n * sizeof *log);
	for (int64_t i = 0; i < n; i++)
		log[i] = (sap_access){ i, 3 * i, 0, SAP_WRITE };
	sap_plan p;
	ck_assert(!sap_plan_wave(&p, log, n, 0, n, 2, NULL));
	ck_assert(sap_plan_wave(&p, log, n - 1, 0, n - 1, 2, NULL));
	ck_assert_int_eq(p.nrounds, 1);
	ck_assert_int_eq(p.ngroups, 2);
	sap_plan_free(&p);
	free(log);
}
END_TEST

/* Iteration i reads and writes 8 keys of X, uniformly random. */
typedef struct eight {
	sap_dvec X;
	int64_t *key;
	sap_dds d[1];
	sap_async_spec spec;
} eight;

static void eight_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	eight *m = env;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		for (int q = 0; q < 8; q++)
			sap_rec_key(rec, 0, m->key[8 * i + q], SAP_RW);
	}
}

START_TEST(wave_chosen)
{
	/* Every iteration meets 8 of the 64 blocks, so block plans are
	 * serial; at key level the conflicts are few. */
	enum { N = 20000, KEYS = 200000 };
	int T = 2 + _i;
	eight m = { .key = malloc(8 * N * sizeof *m.key) };
	uint64_t s = 11;
	for (int64_t k = 0; k < 8 * N; k++)
		m.key[k] = synth_below(&s, KEYS);
	sap_dv_create(&m.X, "X", KEYS, 8, NULL);
	m.d[0] = (sap_dds){ .name = "X", .dv = &m.X, .mode = SAP_RW };
	m.spec = (sap_async_spec){ .dds = m.d, .ndds = 1, .slice = eight_slice };
	planned pl;
	plan_spec(&pl, &m.spec, &m, N, T, false);
	ck_assert(pl.plan.keys);
	assert_wave_shape(&pl.plan, pl.log.v, pl.log.n);
	ck_assert(pl.plan.balance < 1.1);
	sap_conflict c;
	ck_assert(sap_plan_check(&pl.plan, 0, pl.log.v, pl.log.n, &c));
	/* The same rounds as the wavefront of the whole log. */
	sap_plan w;
	ck_assert(sap_plan_wave(&w, pl.log.v, pl.log.n, 0, N, T, NULL));
	ck_assert_int_eq(w.nrounds, pl.plan.nrounds);
	ck_assert_int_eq(w.ngroups, pl.plan.ngroups);
	ck_assert(!memcmp(w.order, pl.plan.order, N * sizeof *w.order));
	sap_plan_free(&w);
	planned_free(&pl);
	/* With --locks the block plan would lock; the key-level plan,
	 * cheaper, needs none. */
	plan_spec(&pl, &m.spec, &m, N, T, true);
	ck_assert(pl.plan.keys);
	ck_assert_int_eq(pl.plan.nlocked, 0);
	planned_free(&pl);
	sap_dv_free(&m.X);
	free(m.key);
}
END_TEST

START_TEST(wave_not_for_sgdmf)
{
	/* A block plan near T workers' worth is kept as it is. */
	int T = 2 + _i;
	sgd m;
	sgd_make(&m, 30000, 3000, 3000, 4);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.A.n, T, false);
	ck_assert(!pl.plan.keys);
	planned_free(&pl);
	sgd_free(&m);
}
END_TEST

/* ---- the colouring ---- */

/* p's rounds for iterations 0 .. n - 1, each round in index order cut
 * into T groups as the wavefront's (assert_wave_shape), and conflict
 * free: every plan of the colouring of one log runs the same rounds. */
static int64_t *assert_colour(const sap_plan *p, const sap_access *log, int64_t nlog, int64_t n)
{
	ck_assert(p->colour && !p->strips);
	ck_assert_int_eq(p->n, n);
	assert_wave_shape(p, log, nlog);
	sap_conflict c;
	ck_assert(sap_plan_check(p, 0, log, nlog, &c));
	return rounds_of(p, 0);
}

START_TEST(colour_rounds)
{
	sap_access log[] = {
		{ 0, 1, 0, SAP_WRITE },         /* round 1 */
		{ 1, 1, 0, SAP_READ },          /* after 0's write: round 2 */
		{ 1, 2, 0, SAP_WRITE },
		{ 2, 2, 0, SAP_WRITE },         /* 1 wrote key 2 in round 2: round 1,
		                                   where the wavefront has 3 */
		{ 3, 1, 0, SAP_READ },          /* readers of key 1 in round 2 */
		{ 3, 3, 1, SAP_WRITE },         /* DDS 1's key 3 is new */
		/* 4 touches nothing: round 1 */
		{ 5, 1, 0, SAP_WRITE },         /* 0 in 1, 1 and 3 read in 2: round 3 */
		{ 6, 2, 0, SAP_READ },          /* 2 in 1, 1 in 2 wrote key 2: round 3 */
		{ 6, 3, 1, SAP_READ },          /* 3 wrote it in 2 */
	};
	int64_t nlog = sizeof log / sizeof log[0];
	static const int64_t want[7] = { 0, 1, 0, 1, 0, 2, 2 };
	for (int T = 1; T <= 4; T++) {
		sap_plan p;
		ck_assert(sap_plan_colour(&p, log, nlog, 0, 7, T, NULL));
		ck_assert_int_eq(p.nrounds, 3);
		int64_t *r = assert_colour(&p, log, nlog, 7);
		for (int i = 0; i < 7; i++)
			ck_assert_int_eq(r[i], want[i]);
		free(r);
		sap_plan_free(&p);
	}
	sap_plan w;
	ck_assert(sap_plan_wave(&w, log, nlog, 0, 7, 2, NULL));
	ck_assert_int_eq(w.nrounds, 4);
	sap_plan_free(&w);
}
END_TEST

START_TEST(colour_random)
{
	/* Dense conflicts, as wave_random: never more rounds than the
	 * wavefront, and the same order whatever T. */
	pattern m;
	pattern_make(&m, 400, 30, 21 + (uint64_t)_i);
	planned pl;
	plan_spec(&pl, &m.spec, &m, m.n, 3, false);
	sap_plan one;
	ck_assert(sap_plan_colour(&one, pl.log.v, pl.log.n, 0, m.n, 1, NULL));
	int64_t *r1 = assert_colour(&one, pl.log.v, pl.log.n, m.n);
	for (int T = 2; T <= 5; T++) {
		sap_plan p, w;
		ck_assert(sap_plan_colour(&p, pl.log.v, pl.log.n, 0, m.n, T, NULL));
		ck_assert(sap_plan_wave(&w, pl.log.v, pl.log.n, 0, m.n, T, NULL));
		ck_assert_int_le(p.nrounds, w.nrounds);
		ck_assert_int_eq(p.nrounds, one.nrounds);
		ck_assert(!memcmp(p.order, one.order, (size_t)m.n * sizeof *p.order));
		int64_t *r = assert_colour(&p, pl.log.v, pl.log.n, m.n);
		ck_assert(!memcmp(r, r1, (size_t)m.n * sizeof *r));
		free(r);
		sap_plan_free(&p);
		sap_plan_free(&w);
	}
	free(r1);
	sap_plan_free(&one);
	planned_free(&pl);
	pattern_free(&m);
}
END_TEST

START_TEST(colour_hot)
{
	/* A key written by every iteration takes a round each: 256 fit,
	 * 257 do not. */
	sap_access log[257];
	for (int64_t i = 0; i < 257; i++)
		log[i] = (sap_access){ i, 5, 0, SAP_WRITE };
	sap_plan p;
	ck_assert(!sap_plan_colour(&p, log, 257, 0, 257, 2, NULL));
	ck_assert(sap_plan_colour(&p, log, 256, 0, 256, 2, NULL));
	ck_assert_int_eq(p.nrounds, 256);
	free(assert_colour(&p, log, 256, 256));
	sap_plan_free(&p);
}
END_TEST

START_TEST(colour_chosen)
{
	/* 8 random keys of 10000 per iteration, 20000 iterations: each key
	 * in 16 of them, conflicts chain into a wavefront of some 260
	 * rounds, which the colouring cuts to some 40; the planner takes
	 * it. */
	enum { N = 20000, KEYS = 10000 };
	int T = 2 + _i;
	eight m = { .key = malloc(8 * N * sizeof *m.key) };
	uint64_t s = 5;
	for (int64_t k = 0; k < 8 * N; k++)
		m.key[k] = synth_below(&s, KEYS);
	sap_dv_create(&m.X, "X", KEYS, 8, NULL);
	m.d[0] = (sap_dds){ .name = "X", .dv = &m.X, .mode = SAP_RW };
	m.spec = (sap_async_spec){ .dds = m.d, .ndds = 1, .slice = eight_slice };
	planned pl;
	plan_spec(&pl, &m.spec, &m, N, T, false);
	ck_assert(pl.plan.keys && pl.plan.colour);
	free(assert_colour(&pl.plan, pl.log.v, pl.log.n, N));
	ck_assert(pl.plan.balance < 1.1);
	sap_plan w, c;
	ck_assert(sap_plan_wave(&w, pl.log.v, pl.log.n, 0, N, T, NULL));
	ck_assert(sap_plan_colour(&c, pl.log.v, pl.log.n, 0, N, T, NULL));
	ck_assert_int_gt(w.nrounds, 4 * c.nrounds);
	/* The same rounds as the colouring of the whole log. */
	ck_assert_int_eq(c.nrounds, pl.plan.nrounds);
	ck_assert(!memcmp(c.order, pl.plan.order, N * sizeof *c.order));
	sap_plan_free(&w);
	sap_plan_free(&c);
	planned_free(&pl);
	sap_dv_free(&m.X);
	free(m.key);
}
END_TEST

/* ---- strips ---- */

/* The shape of a strips plan of n iterations in m rounds for T workers:
 * round j, worker w runs run j + w m of T m, [s n / R, (s + 1) n / R),
 * in index order, one group. */
static void assert_strips_shape(const sap_plan *p, int64_t lo, int64_t n, int T, int m)
{
	ck_assert(p->keys && p->strips);
	ck_assert_int_eq(p->nworkers, T);
	ck_assert_int_eq(p->nrounds, m);
	ck_assert_int_eq(p->ngroups, (int64_t)T * m);
	ck_assert_int_eq(p->nlocked, 0);
	if (!lo)
		assert_well_formed(p, NULL);
	int64_t R = (int64_t)T * m, maxsum = 0;
	for (int j = 0; j < m; j++) {
		int64_t most = 0;
		for (int w = 0; w < T; w++) {
			ck_assert_int_eq(p->ro[j * T + w + 1] - p->ro[j * T + w], 1);
			int64_t g = p->rg[p->ro[j * T + w]], s = j + (int64_t)w * m;
			int64_t a = s * n / R, b = (s + 1) * n / R;
			ck_assert_int_eq(gsize(p, g), b - a);
			for (int64_t x = 0; x < b - a; x++)
				ck_assert_int_eq(p->order[p->goff[g] + x], lo + a + x);
			most = b - a > most ? b - a : most;
		}
		maxsum += most;
	}
	ck_assert(fabs(p->balance - (double)maxsum * T / (double)n) < 1e-9);
}

START_TEST(strips_by_hand)
{
	/* 12 iterations on 2 workers.  Written keys' iterations: A 2-4,
	 * B 5-6, C 2-6 (read by 2, written by 6); D is only read, by 0
	 * and 11, which is no conflict.  One round of halves splits B; two
	 * rounds of 4 runs of 3 put C's 2 (run 0) and 6 (run 2) in round
	 * 0; three rounds of 6 runs of 2 hold every span within 2 runs. */
	sap_access log[] = {
		{ 100, 9, 0, SAP_READ },        /* D */
		{ 102, 1, 0, SAP_RW },          /* A */
		{ 102, 3, 1, SAP_READ },        /* C, of DDS 1 */
		{ 104, 1, 0, SAP_WRITE },
		{ 105, 2, 0, SAP_READ },        /* B */
		{ 106, 2, 0, SAP_WRITE },
		{ 106, 3, 1, SAP_WRITE },
		{ 107, 3, 0, SAP_WRITE },       /* key 3 of DDS 0 is not C */
		{ 111, 9, 0, SAP_READ },
	};
	int64_t nlog = sizeof log / sizeof log[0];
	sap_plan p;
	ck_assert(sap_plan_strips(&p, log, nlog, 100, 12, 2, NULL));
	assert_strips_shape(&p, 100, 12, 2, 3);
	/* Rounds: runs 0 and 3, 1 and 4, 2 and 5. */
	static const int64_t want[12] = { 0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11 };
	for (int k = 0; k < 12; k++)
		ck_assert_int_eq(p.order[k], 100 + want[k]);
	sap_conflict c;
	ck_assert(sap_plan_check(&p, 100, log, nlog, &c));
	/* C's 6 runs before its 2: not index order. */
	int64_t *r = rounds_of(&p, 100);
	ck_assert_int_lt(r[6], r[2]);
	free(r);
	sap_plan_free(&p);
	/* Colour by hand with m = 2: runs 0 ([0,3)) and 2 ([6,9)) in round
	 * 0 share C. */
	sap_plan h = { 0 };
	ck_assert(sap_plan_strips(&h, log, nlog, 100, 12, 2, NULL));
	int64_t two[12] = { 0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11 };
	for (int k = 0; k < 12; k++)
		h.order[k] = 100 + two[k];
	int64_t goff[5] = { 0, 3, 6, 9, 12 };
	h.ngroups = 4;
	h.nrounds = 2;
	memcpy(h.goff, goff, sizeof goff);
	h.ro[4] = 4;
	ck_assert(!sap_plan_check(&h, 100, log, nlog, &c));
	ck_assert_int_eq(c.dds, 1);
	ck_assert_int_eq(c.key, 3);
	sap_plan_free(&h);
	/* A written key over n / T = 6 iterations fits no m. */
	sap_access wide[] = { { 0, 5, 0, SAP_WRITE }, { 6, 5, 0, SAP_READ } };
	ck_assert(!sap_plan_strips(&p, wide, 2, 0, 12, 2, NULL));
	/* Over 5 it fits, in four rounds: 1 and 6 are in runs 0 and 1 of
	 * 2, 0 and 2 of 4, 0 and 3 of 6, 1 and 4 of 8 (cut at 0, 1, 3, 4,
	 * 6, ...). */
	wide[0].i = 1;
	ck_assert(sap_plan_strips(&p, wide, 2, 0, 12, 2, NULL));
	assert_strips_shape(&p, 0, 12, 2, 4);
	ck_assert(sap_plan_check(&p, 0, wide, 2, &c));
	sap_plan_free(&p);
	/* Within a worker's share, one round. */
	wide[1].i = 5;
	ck_assert(sap_plan_strips(&p, wide, 2, 0, 12, 2, NULL));
	ck_assert_int_eq(p.nrounds, 1);
	sap_plan_free(&p);
	/* Read-only, it conflicts with nothing: one round, two halves. */
	wide[0].mode = SAP_READ;
	wide[1].i = 11;
	ck_assert(sap_plan_strips(&p, wide, 2, 0, 12, 2, NULL));
	assert_strips_shape(&p, 0, 12, 2, 1);
	sap_plan_free(&p);
}
END_TEST

/* Iteration i touches 1 to 4 keys of 3 DDSs near i (i / 2 - 6 ..
 * i / 2 + 6), read, written or both: strips fit, and whichever m they
 * take, no run of a round meets another. */
START_TEST(strips_local)
{
	enum { N = 600 };
	int T = 2 + _i;
	uint64_t s = 31 + (uint64_t)_i;
	sap_access *log = malloc(4 * N * sizeof *log);
	int64_t nlog = 0;
	for (int64_t i = 0; i < N; i++) {
		int nk = 1 + (int)synth_below(&s, 4);
		for (int k = 0; k < nk; k++) {
			int64_t key = i / 2 - 6 + synth_below(&s, 13);
			log[nlog++] = (sap_access){ i, key < 0 ? 0 : key, (int32_t)synth_below(&s, 3),
			                            1 + (int32_t)synth_below(&s, 3) };
		}
	}
	sap_plan p;
	ck_assert(sap_plan_strips(&p, log, nlog, 0, N, T, NULL));
	ck_assert_int_ge(p.nrounds, 2);
	assert_strips_shape(&p, 0, N, T, (int)p.nrounds);
	sap_conflict c;
	ck_assert(sap_plan_check(&p, 0, log, nlog, &c));
	/* By every pair: conflicting iterations in different rounds, or in
	 * one group. */
	int64_t *r = rounds_of(&p, 0), grp[N];
	for (int64_t g = 0; g < p.ngroups; g++)
		for (int64_t x = p.goff[g]; x < p.goff[g + 1]; x++)
			grp[p.order[x]] = g;
	for (int64_t a = 0; a < nlog; a++)
		for (int64_t b = a + 1; b < nlog; b++)
			if (log[a].i != log[b].i && log[a].dds == log[b].dds &&
			    log[a].key == log[b].key && ((log[a].mode | log[b].mode) & SAP_WRITE))
				ck_assert(r[log[a].i] != r[log[b].i] || grp[log[a].i] == grp[log[b].i]);
	free(r);
	/* m is the fewest rounds whose runs of T m hold every written key's
	 * iterations, first to last, within m runs. */
	int m = (int)p.nrounds;
	for (int mm = m - 1; mm <= m; mm++) {
		int64_t R = (int64_t)T * mm, widest = 0;
		for (int64_t a = 0; a < nlog; a++) {
			int64_t first = -1, last = -1;
			bool wr = false;
			for (int64_t b = 0; b < nlog; b++)
				if (log[b].dds == log[a].dds && log[b].key == log[a].key) {
					first = first < 0 ? log[b].i : first;
					last = log[b].i;
					wr |= (log[b].mode & SAP_WRITE) != 0;
				}
			/* The run of x: the last s with s N / R <= x. */
			int64_t rf = (first * R + R - 1) / N, rl = (last * R + R - 1) / N;
			while (rf * N / R > first)
				rf--;
			while (rl * N / R > last)
				rl--;
			if (wr && rl - rf > widest)
				widest = rl - rf;
		}
		if (mm == m)
			ck_assert_int_lt(widest, m);
		else
			ck_assert_int_ge(widest, mm);
	}
	sap_plan_free(&p);
	free(log);
}
END_TEST

/* Plan a spec as plan_spec does, for T workers on `threads` threads. */
static void plan_workers(planned *pl, const sap_async_spec *spec, void *env, int64_t n, int T,
                         int threads)
{
	memset(pl, 0, sizeof *pl);
	sap_layout_make(&pl->ly, spec, T, 0);
	sap_layout_weigh(&pl->ly, spec, env, 0, n, threads, false);
	pl->ids = sap_xmalloc((size_t)n * sizeof *pl->ids);
	pl->order = sap_xmalloc((size_t)n * sizeof *pl->order);
	double slicing;
	sap_plan_recon(&pl->plan, spec, &pl->ly, env, 0, n, T, threads, false, pl->ids,
	               pl->order, &slicing, NULL);
	int64_t *all = sap_xmalloc((size_t)n * sizeof *all);
	for (int64_t i = 0; i < n; i++)
		all[i] = i;
	sap_recon_log(spec, &pl->ly, env, all, n, &pl->log, threads);
	free(all);
}

START_TEST(strips_banded)
{
	/* Lasso's columns over a band of +-2% of the rows: on 16 workers
	 * the band spans 3 of the 64 blocks, and blocks fall short; strips
	 * keep nearly all 16 busy. */
	band m;
	band_make(&m, 20000, 200000, 4000, 7);
	planned pl;
	plan_workers(&pl, &m.spec, &m, m.n, 16, 4);
	ck_assert(pl.plan.strips);
	ck_assert(16 / pl.plan.balance >= 0.9 * 16);
	assert_strips_shape(&pl.plan, 0, m.n, 16, (int)pl.plan.nrounds);
	sap_conflict c;
	ck_assert(sap_plan_check(&pl.plan, 0, pl.log.v, pl.log.n, &c));
	/* The same plan as from the whole log. */
	sap_plan w;
	ck_assert(sap_plan_strips(&w, pl.log.v, pl.log.n, 0, m.n, 16, NULL));
	ck_assert_int_eq(w.nrounds, pl.plan.nrounds);
	ck_assert(!memcmp(w.order, pl.plan.order, (size_t)m.n * sizeof *w.order));
	sap_plan_free(&w);
	planned_free(&pl);
	band_free(&m);
}
END_TEST

START_TEST(strips_not_random)
{
	/* 8 random keys of 200000 per iteration: a written key's
	 * iterations span most of the loop, so no strips; the wavefront. */
	enum { N = 20000, KEYS = 200000 };
	int T = 2 + _i;
	eight m = { .key = malloc(8 * N * sizeof *m.key) };
	uint64_t s = 11;
	for (int64_t k = 0; k < 8 * N; k++)
		m.key[k] = synth_below(&s, KEYS);
	sap_dv_create(&m.X, "X", KEYS, 8, NULL);
	m.d[0] = (sap_dds){ .name = "X", .dv = &m.X, .mode = SAP_RW };
	m.spec = (sap_async_spec){ .dds = m.d, .ndds = 1, .slice = eight_slice };
	planned pl;
	plan_spec(&pl, &m.spec, &m, N, T, false);
	ck_assert(pl.plan.keys && !pl.plan.strips);
	sap_plan w;
	ck_assert(!sap_plan_strips(&w, pl.log.v, pl.log.n, 0, N, T, NULL));
	planned_free(&pl);
	/* A hot key, written by every iteration beside its own: no
	 * key-level plan at all. */
	for (int64_t i = 0; i < N; i++) {
		m.key[8 * i] = 0;
		for (int q = 1; q < 8; q++)
			m.key[8 * i + q] = i * 8 + q;
	}
	plan_spec(&pl, &m.spec, &m, N, T, false);
	ck_assert(!pl.plan.keys && !pl.plan.strips);
	ck_assert(!sap_plan_strips(&w, pl.log.v, pl.log.n, 0, N, T, NULL));
	planned_free(&pl);
	sap_dv_free(&m.X);
	free(m.key);
}
END_TEST

/* These tests run plans of up to 4 workers on as many threads, which
 * the pool starts only when --threads allows them. */
static void allow_threads(void)
{
	sap_cfg.threads = 4;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The radix sorts (core/sort.c) against qsort, over sizes around the
 * insertion sort's and the digit widths' changes and keys of 0 to 64
 * bits; sap_sort_recs keeps equal keys' records in their order. */
START_TEST(radix_sorts)
{
	static const int64_t sizes[] = { 0, 1, 2, 47, 48, 49, 170, 1000, 6000, 70000 };
	static const int widths[] = { 0, 1, 7, 18, 33, 57, 64 };
	uint64_t r = 88172645463325252u;
	for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
		for (size_t b = 0; b < sizeof widths / sizeof *widths; b++) {
			int64_t n = sizes[a];
			int w = widths[b];
			uint64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
			uint64_t *want = malloc((size_t)(n ? n : 1) * sizeof *want);
			uint64_t (*rec)[2] = malloc((size_t)(n ? n : 1) * sizeof *rec);
			for (int64_t k = 0; k < n; k++) {
				r ^= r << 13;
				r ^= r >> 7;
				r ^= r << 17;
				v[k] = w == 64 ? r : w ? r & (((uint64_t)1 << w) - 1) : 0;
				/* Few distinct keys too, so that ties are many. */
				if (k % 3 == 0)
					v[k] &= 7;
				want[k] = v[k];
				rec[k][0] = v[k];
				rec[k][1] = (uint64_t)k;
			}
			qsort(want, (size_t)n, sizeof *want, by_u64);
			sap_sort_keys((int64_t *)v, n, -1);
			sap_sort_recs(rec, n, sizeof *rec);
			for (int64_t k = 0; k < n; k++) {
				ck_assert_msg(v[k] == want[k], "n %lld width %d: key %lld", (long long)n, w,
				              (long long)k);
				ck_assert_msg(rec[k][0] == want[k], "n %lld width %d: record %lld",
				              (long long)n, w, (long long)k);
				ck_assert_msg(k == 0 || rec[k - 1][0] != rec[k][0] || rec[k - 1][1] < rec[k][1],
				              "n %lld width %d: ties out of order at %lld", (long long)n, w,
				              (long long)k);
			}
			free(v);
			free(want);
			free(rec);
		}
}
END_TEST

Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, allow_threads, NULL);
	tcase_add_test(tc, keyless_group_once);
	tcase_add_test(tc, radix_sorts);
	tcase_add_test(tc, layout_blocks);
	tcase_add_test(tc, layout_granules);
	tcase_add_test(tc, layout_weighed);
	tcase_add_test(tc, layout_split_granule);
	tcase_add_test(tc, masks_of_keys);
	tcase_add_loop_test(tc, strata_skewed, 0, 3);
	tcase_add_loop_test(tc, strata_shape, 0, 6);
	tcase_add_test(tc, strata_index_order);
	tcase_add_test(tc, strata_sorted_index_order);
	tcase_add_test(tc, greedy_stranded);
	tcase_add_test(tc, oversized_group);
	tcase_add_loop_test(tc, check_transe, 0, 2);
	tcase_add_loop_test(tc, check_patterns, 0, 3);
	tcase_add_test(tc, check_catches_broken);
	tcase_add_test(tc, check_modes);
	tcase_add_test(tc, wave_rounds);
	tcase_add_loop_test(tc, wave_random, 0, 3);
	tcase_add_test(tc, wave_weighted);
	tcase_add_test(tc, wave_bounds);
	tcase_add_loop_test(tc, wave_chosen, 0, 3);
	tcase_add_loop_test(tc, wave_not_for_sgdmf, 0, 3);
	tcase_add_test(tc, colour_rounds);
	tcase_add_loop_test(tc, colour_random, 0, 3);
	tcase_add_test(tc, colour_hot);
	tcase_add_loop_test(tc, colour_chosen, 0, 3);
	tcase_add_test(tc, strips_by_hand);
	tcase_add_loop_test(tc, strips_local, 0, 3);
	tcase_add_test(tc, strips_banded);
	tcase_add_loop_test(tc, strips_not_random, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
