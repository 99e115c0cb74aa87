/* sched.c: plans for async loops: blocks to groups, groups to rounds,
 * rounds to workers; and the checker of plans.
 *
 * Iterations with the same block mask form a group, run on one worker in
 * index order.  Groups whose masks are disjoint touch disjoint keys, so a
 * round of such groups runs in parallel without locks and the result is
 * that of running the round's groups one after another.  For SGDMF (each
 * iteration touches one row of W and one of H) the groups are the cells
 * of a B x B grid and the rounds are the DSGD/Strata strata.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* ---- grouping: a parallel counting sort by mask ---- */

enum { CACHE_BITS = 10, CACHE = 1 << CACHE_BITS };

/* Distinct masks in the order first seen, with an open-addressing index. */
typedef struct mask_set {
	uint64_t *mask;
	int64_t *count;
	int64_t n, cap;
	int64_t *slot;          /* id + 1, 0 when empty */
	int64_t nslot;          /* a power of two */
	/* Direct-mapped in front of the index: a loop has few distinct
	 * masks (SGDMF on T workers: (8T)^2), looked up millions of times. */
	uint64_t cmask[CACHE];
	int64_t cid[CACHE];     /* -1 when empty */
} mask_set;

static void set_rehash(mask_set *s)
{
	free(s->slot);
	s->slot = sap_xcalloc((size_t)s->nslot, sizeof *s->slot);
	for (int64_t id = 0; id < s->n; id++) {
		uint64_t h = mix64(s->mask[id]) & (uint64_t)(s->nslot - 1);
		while (s->slot[h])
			h = (h + 1) & (uint64_t)(s->nslot - 1);
		s->slot[h] = id + 1;
	}
}

static int64_t set_id(mask_set *s, uint64_t m)
{
	uint64_t h = mix64(m) & (uint64_t)(s->nslot - 1);
	for (;;) {
		int64_t id = s->slot[h] - 1;
		if (id < 0)
			break;
		if (s->mask[id] == m)
			return id;
		h = (h + 1) & (uint64_t)(s->nslot - 1);
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->mask = sap_xrealloc(s->mask, (size_t)s->cap * sizeof *s->mask);
		s->count = sap_xrealloc(s->count, (size_t)s->cap * sizeof *s->count);
	}
	int64_t id = s->n++;
	s->mask[id] = m;
	s->count[id] = 0;
	if (2 * s->n > s->nslot) {
		s->nslot *= 2;
		set_rehash(s);
	} else {
		s->slot[h] = id + 1;
	}
	return id;
}

static void set_init(mask_set *s)
{
	memset(s, 0, sizeof *s);
	for (int k = 0; k < CACHE; k++)
		s->cid[k] = -1;
	s->nslot = 128;
	s->slot = sap_xcalloc((size_t)s->nslot, sizeof *s->slot);
}

static void set_free(mask_set *s)
{
	free(s->mask);
	free(s->count);
	free(s->slot);
}

typedef struct group_job {
	uint32_t *ids;          /* per iteration: its mask's id in its worker's set */
	int64_t lo, n;
	int T;
	const sap_layout *ly;   /* fine masks to deal out, or NULL */
	mask_set *local;        /* per worker */
	const uint64_t *masks;  /* given masks, or NULL under reconnaissance */
	int64_t **grp;          /* per worker, per local id: its group */
	int64_t **pos;          /* per worker, per group: next order slot */
	int64_t *order;
} group_job;

static void count(group_job *j, int w, int64_t first, const uint64_t *m, int64_t n)
{
	mask_set *s = &j->local[w];
	uint32_t *ids = j->ids + (first - j->lo);
	for (int64_t k = 0; k < n; k++) {
		unsigned c = (unsigned)((m[k] * 0x9e3779b97f4a7c15ULL) >> (64 - CACHE_BITS));
		int64_t id = s->cid[c];
		if (id < 0 || s->cmask[c] != m[k]) {
			id = set_id(s, m[k]);
			s->cmask[c] = m[k];
			s->cid[c] = id;
		}
		s->count[id]++;
		ids[k] = (uint32_t)id;
	}
}

static void count_sink(void *arg, int w, int64_t first, const uint64_t *m, int64_t n)
{
	count(arg, w, first, m, n);
}

static void count_worker(void *arg, int w)
{
	group_job *j = arg;
	int64_t a = sap_chunk(j->lo, j->lo + j->n, j->T, w);
	int64_t b = sap_chunk(j->lo, j->lo + j->n, j->T, w + 1);
	count(j, w, a, j->masks + (a - j->lo), b - a);
}

static void scatter_worker(void *arg, int w)
{
	group_job *j = arg;
	int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
	int64_t *pos = j->pos[w];
	const int64_t *grp = j->grp[w];
	for (int64_t k = a; k < b; k++)
		j->order[pos[grp[j->ids[k]]]++] = j->lo + k;
}

/* Largest first; among equal sizes, the group seen first. */
static const int64_t *sort_count;
static int by_size(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	if (sort_count[a] != sort_count[b])
		return sort_count[a] > sort_count[b] ? -1 : 1;
	return (a > b) - (a < b);
}

static void group_begin(group_job *j, sap_plan *p, uint32_t *ids, int64_t lo, int64_t n, int T)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->nworkers = T;
	*j = (group_job){ .ids = ids, .lo = lo, .n = n, .T = T };
	j->local = sap_xcalloc((size_t)T, sizeof *j->local);
	for (int w = 0; w < T; w++)
		set_init(&j->local[w]);
}

/* The block of each fine block (by mask bit): per DDS, heaviest first
 * onto the lightest block, weight being the iterations that touch it. */
static void deal_blocks(const sap_layout *ly, const mask_set *fine, int map[64])
{
	int64_t weight[64] = { 0 };
	for (int64_t id = 0; id < fine->n; id++)
		for (uint64_t m = fine->mask[id]; m; m &= m - 1)
			weight[__builtin_ctzll(m)] += fine->count[id];
	for (int part = 0; part < ly->nparts; part++) {
		int f0 = part * ly->F;
		int byw[64];
		for (int f = 0; f < ly->F; f++) {
			int k = f;
			while (k > 0 && weight[f0 + byw[k - 1]] < weight[f0 + f]) {
				byw[k] = byw[k - 1];
				k--;
			}
			byw[k] = f;
		}
		int64_t load[64] = { 0 };
		for (int k = 0; k < ly->F; k++) {
			int best = 0;
			for (int c = 1; c < ly->B; c++)
				if (load[c] < load[best])
					best = c;
			load[best] += weight[f0 + byw[k]];
			map[f0 + byw[k]] = part * ly->B + best;
		}
		/* Largest first leaves a block up to one fine block over;
		 * moves and swaps from the fullest block to another even that
		 * out when fine blocks differ in size (one very popular key). */
		for (int step = 0; step < 4 * ly->F; step++) {
			int hi = 0;
			for (int c = 1; c < ly->B; c++)
				hi = load[c] > load[hi] ? c : hi;
			int64_t gain = 0, d = 0;
			int fa = -1, fb = -1, to = -1;
			for (int x = 0; x < ly->F; x++) {
				if (map[f0 + x] != part * ly->B + hi)
					continue;
				/* x moves alone (y = -1), or swaps with y. */
				for (int y = -1; y < ly->F; y++) {
					int c = y >= 0 ? map[f0 + y] - part * ly->B : -1;
					if (y >= 0 && c == hi)
						continue;
					int c0 = y >= 0 ? c : 0, c1 = y >= 0 ? c + 1 : ly->B;
					for (int cc = c0; cc < c1; cc++) {
						if (cc == hi)
							continue;
						int64_t gap = load[hi] - load[cc];
						int64_t dd = weight[f0 + x] - (y >= 0 ? weight[f0 + y] : 0);
						if (dd <= 0 || dd >= gap)
							continue;
						int64_t g = gap - (gap - dd > dd ? gap - dd : dd);
						if (g > gain) {
							gain = g;
							fa = x;
							fb = y;
							to = cc;
							d = dd;
						}
					}
				}
			}
			if (fa < 0)
				break;
			map[f0 + fa] = part * ly->B + to;
			if (fb >= 0)
				map[f0 + fb] = part * ly->B + hi;
			load[hi] -= d;
			load[to] += d;
		}
	}
}

/* Fine blocks to B blocks in contiguous runs, per DDS, cutting where
 * the runs carry about equal weight: blocks of keys used together stay
 * together (a banded matrix's neighbouring columns). */
static void run_blocks(const sap_layout *ly, const mask_set *fine, int B, int map[64])
{
	double weight[64] = { 0 };
	for (int64_t id = 0; id < fine->n; id++)
		for (uint64_t m = fine->mask[id]; m; m &= m - 1)
			weight[__builtin_ctzll(m)] += (double)fine->count[id];
	for (int part = 0; part < ly->nparts; part++) {
		int f0 = part * ly->F;
		double left = 0;
		for (int f = 0; f < ly->F; f++)
			left += weight[f0 + f];
		int f = 0;
		for (int b = 0; b < B; b++) {
			double share = left / (B - b), have = 0;
			while (f < ly->F && (b == B - 1 || f < ly->F - (B - 1 - b) || have == 0)) {
				if (b < B - 1 && have > 0 && have + weight[f0 + f] - share > share - have)
					break;
				have += weight[f0 + f];
				map[f0 + f++] = part * B + b;
				if (b < B - 1 && have >= share)
					break;
			}
			left -= have;
		}
	}
}

static bool pack(sap_plan *p, bool locks, int64_t max_rounds);

static uint64_t coarse_mask(uint64_t m, const int map[64])
{
	uint64_t c = 0;
	for (; m; m &= m - 1)
		c |= (uint64_t)1 << map[__builtin_ctzll(m)];
	return c;
}

/* The groups of `all` under map, sorted largest first into p (goff,
 * gmask, ngroups); byrank[r] is the id in `blk` of group r. */
static void sorted_groups(sap_plan *p, const mask_set *blk, int64_t *byrank)
{
	int64_t G = blk->n;
	for (int64_t g = 0; g < G; g++)
		byrank[g] = g;
	sort_count = blk->count;
	if (G > 1)
		qsort(byrank, (size_t)G, sizeof *byrank, by_size);
	p->ngroups = G;
	p->goff = sap_xmalloc((size_t)(G + 1) * sizeof *p->goff);
	p->gmask = sap_xmalloc((size_t)(G ? G : 1) * sizeof *p->gmask);
	p->goff[0] = 0;
	for (int64_t r = 0; r < G; r++) {
		p->gmask[r] = blk->mask[byrank[r]];
		p->goff[r + 1] = p->goff[r] + blk->count[byrank[r]];
	}
}

static void merge_masks(const mask_set *fine, const int map[64], mask_set *blk, int64_t *to)
{
	set_init(blk);
	for (int64_t g = 0; g < fine->n; g++) {
		to[g] = set_id(blk, coarse_mask(fine->mask[g], map));
		blk->count[to[g]] += fine->count[g];
	}
}

/* Packing costs about the number of groups times the rounds: a map
 * that makes more groups than this is not tried. */
enum { TRY_GROUPS = 4096 };

/* A plan of more rounds than this spends more than a tenth of a
 * worker's share on barriers: a tried map whose plan gets there is
 * dropped before it costs the packing of them all. */
enum { TRY_ROUNDS = 200 };

/* What running a plan costs, in iterations of one worker: its critical
 * path, the sum over rounds of the busiest worker's iterations, plus a
 * barrier per round, charged as 1/2000 of a worker's share. */
static double plan_cost(const sap_plan *p)
{
	double share = (double)p->n / p->nworkers;
	return p->balance * share + (double)p->nrounds * (share / 2000.0 + 1.0);
}

/* The plan for map without locks: its cost, the cheaper of the two ways
 * of packing, which goes to *levelp. */
static double try_map(const sap_plan *base, const mask_set *fine, const int map[64],
                      bool *levelp)
{
	mask_set blk;
	int64_t *to = sap_xmalloc((size_t)(fine->n ? fine->n : 1) * sizeof *to);
	merge_masks(fine, map, &blk, to);
	if (blk.n > TRY_GROUPS) {
		free(to);
		set_free(&blk);
		return INFINITY;
	}
	int64_t *byrank = sap_xmalloc((size_t)(blk.n ? blk.n : 1) * sizeof *byrank);
	sap_plan t = { .n = base->n, .nworkers = base->nworkers };
	for (int b = 0; b < 64; b++)
		t.bitw[b] = 1;
	memset(t.home, 255, sizeof t.home);
	sorted_groups(&t, &blk, byrank);
	double c = INFINITY;
	for (int level = 0; level < 2; level++) {
		t.level = level;
		if (pack(&t, false, TRY_ROUNDS) && plan_cost(&t) < c) {
			c = plan_cost(&t);
			*levelp = level;
		}
		free(t.ro);
		free(t.rg);
		free(t.rlocked);
		t.ro = t.rg = NULL;
		t.rlocked = NULL;
	}
	sap_plan_free(&t);
	free(byrank);
	free(to);
	set_free(&blk);
	return c;
}

/* The map of fine blocks to blocks whose plan costs least: contiguous
 * runs of B, 2B, 3B ... (a banded matrix: runs of twice the band let
 * every other run go at once), or dealt out by weight to B blocks
 * (SGDMF's strata when a few keys are popular), or the fine blocks
 * themselves.  Returns the blocks per DDS of the map. */
static int choose_map(const sap_layout *ly, sap_plan *p, const mask_set *fine, int map[64])
{
	sap_plan_memo *memo = ly->memo;
	if (memo && memo->mapped) {
		memcpy(map, memo->map, sizeof memo->map);
		p->level = memo->level;
		return memo->nb;
	}
	int try[64], best = ly->B;
	bool lv = false;
	/* Contiguous runs first: on a tie they keep the keys of a block
	 * where loops in chunks over them will look. */
	for (int b = 0; b < 64; b++)
		try[b] = map[b] = b;
	run_blocks(ly, fine, ly->B, map);
	double c = try_map(p, fine, map, &p->level);
	deal_blocks(ly, fine, try);
	double cd = try_map(p, fine, try, &lv);
	if (cd < 0.99 * c) {
		c = cd;
		p->level = lv;
		memcpy(map, try, sizeof try);
	}
	for (int B = 2 * ly->B; B <= ly->F; B += ly->B) {
		if (B == ly->F)
			for (int b = 0; b < 64; b++)
				try[b] = b;
		else
			run_blocks(ly, fine, B, try);
		/* Fewer rounds and groups unless more of them gain 1%. */
		double cr = try_map(p, fine, try, &lv);
		if (cr < 0.99 * c) {
			c = cr;
			best = B;
			p->level = lv;
			memcpy(map, try, sizeof try);
		}
	}
	if (memo) {
		memo->mapped = true;
		memo->nb = best;
		memo->level = p->level;
		memcpy(memo->map, map, sizeof memo->map);
	}
	return best;
}

/* p->home of each block bit under map, when one DDS takes part: the
 * middle of the keys of the fine blocks mapped to it, as a worker's even
 * share of the DDS. */
static void set_homes(const sap_layout *ly, sap_plan *p, const int map[64], int nb)
{
	int T = p->nworkers;
	memset(p->home, 255, sizeof p->home);
	/* With several DDSs no one placement suits them all, and keeping
	 * each worker's blocks from round to round matters more. */
	if (!ly || ly->nparts != 1)
		return;
	for (int part = 0; part < ly->nparts; part++) {
		const sap_rec_dds *d = &ly->d[ly->part[part]];
		if (!d->tab)
			continue;
		int64_t n = (int64_t)d->max + 1;
		for (int b = 0; b < nb; b++) {
			int64_t lo = INT64_MAX, hi = -1;
			for (int f = 0; f < ly->F; f++)
				if (map[part * ly->F + f] == part * nb + b) {
					lo = d->cut[f] < lo ? d->cut[f] : lo;
					hi = d->cut[f + 1] > hi ? d->cut[f + 1] : hi;
				}
			if (hi < 0 || n <= 0)
				continue;
			int64_t mid = lo + (hi - lo) / 2;
			int w = (int)((unsigned __int128)(uint64_t)mid * (uint64_t)T / (uint64_t)n);
			p->home[part * nb + b] = (uint8_t)(w < T ? w : T - 1);
		}
	}
}

/* Number the groups of `all` largest first (ids of equal size in order
 * of first appearance), after mapping fine blocks to blocks; gid[w][k],
 * worker w's local id k, becomes its group's number. */
static void number_groups(group_job *j, sap_plan *p, mask_set *all_in, int64_t **gid)
{
	int T = j->T;
	mask_set all = *all_in;
	/* Fine masks become block masks; fine groups with one block mask
	 * merge. */
	int map[64];
	for (int b = 0; b < 64; b++)
		map[b] = b;
	int nb = j->ly ? j->ly->F : 0;
	if (j->ly && j->ly->F > j->ly->B && all.n > 1)
		nb = choose_map(j->ly, p, &all, map);
	if (j->ly && nb != j->ly->F) {
		mask_set blk;
		int64_t *to = sap_xmalloc((size_t)(all.n ? all.n : 1) * sizeof *to);
		merge_masks(&all, map, &blk, to);
		for (int w = 0; w < T; w++)
			for (int64_t k = 0; k < j->local[w].n; k++)
				gid[w][k] = to[gid[w][k]];
		free(to);
		set_free(&all);
		all = blk;
	}
	for (int b = 0; b < 64; b++) {
		p->bit[b] = (uint8_t)map[b];
		p->bitw[b] = 1;
	}
	/* Block bits are part * nb + block. */
	if (j->ly)
		for (int part = 0; part < j->ly->nparts; part++)
			for (int b = 0; b < nb; b++)
				p->bitw[part * nb + b] = 1 + j->ly->bytes[part] / nb;
	set_homes(j->ly, p, map, nb);
	int64_t G = all.n;
	int64_t *byrank = sap_xmalloc((size_t)(G ? G : 1) * sizeof *byrank);
	int64_t *rank = sap_xmalloc((size_t)(G ? G : 1) * sizeof *rank);
	sorted_groups(p, &all, byrank);
	for (int64_t r = 0; r < G; r++)
		rank[byrank[r]] = r;

	for (int w = 0; w < T; w++)
		for (int64_t k = 0; k < j->local[w].n; k++)
			gid[w][k] = rank[gid[w][k]];
	free(byrank);
	free(rank);
	*all_in = all;
}

/* The workers' sets counted: number the groups, largest first, and sort
 * the iterations into them. */
static void group_end(group_job *j, sap_plan *p, int64_t *order)
{
	int T = j->T;
	/* Global ids in the order of first appearance, so that the plan does
	 * not depend on how the workers were scheduled. */
	mask_set all;
	set_init(&all);
	int64_t **gid = sap_xcalloc((size_t)T, sizeof *gid);
	for (int w = 0; w < T; w++) {
		mask_set *s = &j->local[w];
		gid[w] = sap_xmalloc((size_t)(s->n ? s->n : 1) * sizeof **gid);
		for (int64_t k = 0; k < s->n; k++) {
			int64_t g = set_id(&all, s->mask[k]);
			all.count[g] += s->count[k];
			gid[w][k] = g;
		}
	}
	number_groups(j, p, &all, gid);
	int64_t G = p->ngroups;
	/* Worker w's part of a group follows the parts of workers before it,
	 * and the worker scans its iterations in index order: each group
	 * stays in index order. */
	int64_t *cursor = sap_xmalloc((size_t)(G ? G : 1) * sizeof *cursor);
	memcpy(cursor, p->goff, (size_t)G * sizeof *cursor);
	int64_t **pos = sap_xcalloc((size_t)T, sizeof *pos);
	for (int w = 0; w < T; w++) {
		mask_set *s = &j->local[w];
		pos[w] = sap_xcalloc((size_t)(G ? G : 1), sizeof **pos);
		for (int64_t k = 0; k < s->n; k++)
			pos[w][gid[w][k]] += s->count[k];
		for (int64_t g = 0; g < G; g++) {
			int64_t c = pos[w][g];
			pos[w][g] = cursor[g];
			cursor[g] += c;
		}
	}
	j->grp = gid;
	j->pos = pos;
	p->order = j->order = order;
	sap_pool_run(T, scatter_worker, j);

	for (int w = 0; w < T; w++) {
		set_free(&j->local[w]);
		free(gid[w]);
		free(pos[w]);
	}
	free(j->local);
	free(gid);
	free(pos);
	free(cursor);
	set_free(&all);
}

/* ---- rounds ---- */

/* The round being built: its groups and which group holds each bit. */
typedef struct rnd {
	int64_t *g;
	int64_t n;
	uint64_t used;
	int64_t owner[64];
} rnd;

static void round_add(rnd *r, const sap_plan *p, int64_t g)
{
	r->g[r->n++] = g;
	r->used |= p->gmask[g];
	for (uint64_t m = p->gmask[g]; m; m &= m - 1)
		r->owner[__builtin_ctzll(m)] = g;
}

static void round_remove(rnd *r, const sap_plan *p, int64_t g)
{
	int64_t k = 0;
	while (r->g[k] != g)
		k++;
	memmove(r->g + k, r->g + k + 1, (size_t)(r->n - k - 1) * sizeof *r->g);
	r->n--;
	r->used &= ~p->gmask[g];
}

/* Groups that are not placed yet, by bit: for finding the groups a
 * removal frees bits for. */
typedef struct planner {
	sap_plan *p;
	rnd r;
	char *state;            /* per group: 0 free, 1 placed, 2 in r, 3 seen */
	int64_t *bitg[64];      /* groups with that bit, largest first */
	int64_t nbitg[64];
} planner;

enum { FREE, PLACED, IN_ROUND, SEEN };

/* An augmenting path, as in bipartite matching: put g in the round in
 * place of the one group it conflicts with, then find a group for the
 * bits that frees, and so on until a group fits without displacing any;
 * the round then has one group more.  Greedy packing alone can strand a
 * round with fewer groups than workers (SGDMF on 3 workers: the cells
 * (0,1) and (1,0) leave (2,2), which an earlier round took), and every
 * short round makes one more round. */
static bool augment(planner *pl, int64_t g)
{
	sap_plan *p = pl->p;
	rnd *r = &pl->r;
	uint64_t conf = p->gmask[g] & r->used;
	if (!conf) {
		round_add(r, p, g);
		pl->state[g] = IN_ROUND;
		return true;
	}
	int64_t h = r->owner[__builtin_ctzll(conf)];
	for (uint64_t m = conf; m; m &= m - 1)
		if (r->owner[__builtin_ctzll(m)] != h)
			return false;
	if (pl->state[h] != IN_ROUND)
		return false;
	round_remove(r, p, h);
	round_add(r, p, g);
	pl->state[g] = IN_ROUND;
	pl->state[h] = SEEN;
	uint64_t freed = p->gmask[h] & ~p->gmask[g];
	for (uint64_t m = freed; m; m &= m - 1) {
		int b = __builtin_ctzll(m);
		for (int64_t k = 0; k < pl->nbitg[b]; k++) {
			int64_t f = pl->bitg[b][k];
			if (pl->state[f] != FREE)
				continue;
			pl->state[f] = SEEN;
			if (augment(pl, f))
				return true;
		}
	}
	round_remove(r, p, g);
	round_add(r, p, h);
	pl->state[h] = IN_ROUND;
	pl->state[g] = SEEN;
	return false;
}

/* Augmenting costs up to the number of groups per group added; beyond
 * this many groups the rounds are short anyway (many small masks). */
enum { AUGMENT_MAX_GROUPS = 4096 };

/* The home worker of the group of mask m: its heaviest block's, or -1. */
static int group_home(const sap_plan *p, uint64_t m)
{
	int bit = -1;
	for (; m; m &= m - 1) {
		int b = __builtin_ctzll(m);
		if (p->home[b] != 255 && (bit < 0 || p->bitw[b] > p->bitw[bit]))
			bit = b;
	}
	return bit < 0 ? -1 : p->home[bit];
}

static void append_round(sap_plan *p, int64_t *cap, const int64_t *g, int64_t ng, bool locked,
                         double *maxsum, double *meansum)
{
	int T = p->nworkers;
	if (p->nrounds % 64 == 0) {
		size_t m = (size_t)(p->nrounds + 64);
		p->ro = sap_xrealloc(p->ro, (m * (size_t)T + 1) * sizeof *p->ro);
		p->rlocked = sap_xrealloc(p->rlocked, m * sizeof *p->rlocked);
	}
	if (p->ro[p->nrounds * T] + ng > *cap) {
		*cap = 2 * *cap + ng;
		p->rg = sap_xrealloc(p->rg, (size_t)*cap * sizeof *p->rg);
	}
	int64_t r = p->nrounds++;
	p->rlocked[r] = locked;
	int64_t *load = sap_xcalloc((size_t)T, sizeof *load);
	int *wk = sap_xmalloc((size_t)(ng ? ng : 1) * sizeof *wk);
	int64_t total = 0;
	if (locked) {
		wk[0] = 0;
		total = p->goff[g[0] + 1] - p->goff[g[0]];
		for (int w = 0; w < T; w++)
			load[w] = sap_chunk(0, total, T, w + 1) - sap_chunk(0, total, T, w);
	} else {
		/* What each worker ran in the round before. */
		uint64_t *prev = sap_xcalloc((size_t)T, sizeof *prev);
		for (int w = 0; r > 0 && w < T; w++)
			for (int64_t k = p->ro[(r - 1) * T + w]; k < p->ro[(r - 1) * T + w + 1]; k++)
				prev[w] |= p->gmask[p->rg[k]];
		/* g is largest first: each to the least loaded worker, and
		 * among those to the one that holds the most bytes of its
		 * blocks already (so that over ranks, the big blocks stay). */
		for (int64_t k = 0; k < ng; k++) {
			/* The first round places groups by where their keys
			 * are; later ones keep blocks with their workers. */
			int best = 0, home = r == 0 ? group_home(p, p->gmask[g[k]]) : -1;
			double keep = -1;
			for (int w = 0; w < T; w++) {
				if (load[w] > load[best])
					continue;
				double kw = 0;
				for (uint64_t m = prev[w] & p->gmask[g[k]]; m; m &= m - 1)
					kw += p->bitw[__builtin_ctzll(m)];
				/* Among those, in the first round, the worker whose
				 * share of the keys the group's largest block is in,
				 * so that loops over chunks find the elements written
				 * where they are. */
				if (load[w] < load[best] || kw > keep || (kw == keep && w == home)) {
					best = w;
					keep = kw;
				}
			}
			wk[k] = best;
			int64_t sz = p->goff[g[k] + 1] - p->goff[g[k]];
			load[best] += sz;
			total += sz;
		}
		free(prev);
	}
	int64_t at = p->ro[r * T];
	for (int w = 0; w < T; w++) {
		p->ro[r * T + w] = at;
		for (int64_t k = 0; k < ng; k++)
			if (wk[k] == w)
				p->rg[at++] = g[k];
	}
	p->ro[(r + 1) * T] = at;
	int64_t mx = 0;
	for (int w = 0; w < T; w++)
		mx = load[w] > mx ? load[w] : mx;
	*maxsum += (double)mx;
	*meansum += (double)total / T;
	free(load);
	free(wk);
}

static int by_group(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* Rounds take groups largest first.  By default a round takes every
 * group that fits beside the ones it has, and augmenting paths add more;
 * with p->level, only those that the least loaded worker can take
 * without going over the round's first group, which keeps a worker that
 * runs a long chain of conflicting groups (one very popular key) from
 * waiting in rounds that others finish early.  Returns false, the plan
 * unfinished, when it would take more than max_rounds rounds (0: no
 * limit). */
static bool pack(sap_plan *p, bool locks, int64_t max_rounds)
{
	int T = p->nworkers;
	int64_t G = p->ngroups;
	int64_t cap = G + 1;
	p->nrounds = 0;
	p->nlocked = 0;
	p->ro = NULL;
	p->rlocked = NULL;
	p->rg = sap_xmalloc((size_t)cap * sizeof *p->rg);
	double maxsum = 0, meansum = 0;

	planner pl = { .p = p };
	pl.state = sap_xcalloc((size_t)(G ? G : 1), 1);
	pl.r.g = sap_xmalloc((size_t)(G ? G : 1) * sizeof *pl.r.g);
	p->ro = sap_xmalloc(((size_t)64 * (size_t)T + 1) * sizeof *p->ro);
	p->rlocked = sap_xmalloc(64 * sizeof *p->rlocked);
	p->ro[0] = 0;

	/* A group too big to share a round fairly gets one of its own, split
	 * over every worker under locks. */
	if (locks && T > 1) {
		for (int64_t g = 0; g < G; g++) {
			if ((double)(p->goff[g + 1] - p->goff[g]) * T <= 1.5 * (double)p->n)
				break;
			pl.state[g] = PLACED;
			append_round(p, &cap, &g, 1, true, &maxsum, &meansum);
			p->nlocked++;
		}
	}

	bool aug = G <= AUGMENT_MAX_GROUPS;
	if (aug) {
		for (int b = 0; b < 64; b++)
			pl.nbitg[b] = 0;
		for (int64_t g = 0; g < G; g++)
			for (uint64_t m = p->gmask[g]; m; m &= m - 1)
				pl.nbitg[__builtin_ctzll(m)]++;
		for (int b = 0; b < 64; b++) {
			pl.bitg[b] = sap_xmalloc((size_t)(pl.nbitg[b] ? pl.nbitg[b] : 1) * sizeof **pl.bitg);
			pl.nbitg[b] = 0;
		}
		for (int64_t g = 0; g < G; g++)
			for (uint64_t m = p->gmask[g]; m; m &= m - 1) {
				int b = __builtin_ctzll(m);
				pl.bitg[b][pl.nbitg[b]++] = g;
			}
	}

	/* The groups not placed yet, largest first. */
	int64_t *left = sap_xmalloc((size_t)(G ? G : 1) * sizeof *left);
	int64_t nleft = 0;
	for (int64_t g = 0; g < G; g++)
		if (pl.state[g] == FREE)
			left[nleft++] = g;

	bool done = true;
	int64_t *lload = sap_xmalloc((size_t)T * sizeof *lload), bitload[64] = { 0 };
	for (int64_t k = 0; k < nleft; k++)
		for (uint64_t m = p->gmask[left[k]]; m; m &= m - 1)
			bitload[__builtin_ctzll(m)] += p->goff[left[k] + 1] - p->goff[left[k]];
	while (nleft > 0) {
		if (max_rounds && p->nrounds >= max_rounds) {
			done = false;
			break;
		}
		rnd *r = &pl.r;
		r->n = 0;
		r->used = 0;
		if (p->level) {
			for (int w = 0; w < T; w++)
				lload[w] = 0;
			/* The first group: the largest with the busiest bit,
			 * whose groups make the longest chain. */
			int hot = 0;
			for (int b = 1; b < 64; b++)
				hot = bitload[b] > bitload[hot] ? b : hot;
			int64_t lead = left[0];
			for (int64_t k = 0; k < nleft; k++)
				if (p->gmask[left[k]] >> hot & 1) {
					lead = left[k];
					break;
				}
			int64_t top = p->goff[lead + 1] - p->goff[lead];
			lload[0] = top;
			round_add(r, p, lead);
			pl.state[lead] = IN_ROUND;
			for (int64_t k = 0; k < nleft; k++) {
				int64_t g = left[k], sz = p->goff[g + 1] - p->goff[g];
				if (p->gmask[g] & r->used)
					continue;
				int w = 0;
				for (int x = 1; x < T; x++)
					w = lload[x] < lload[w] ? x : w;
				if (r->n && lload[w] + sz > top)
					continue;
				lload[w] += sz;
				round_add(r, p, g);
				pl.state[g] = IN_ROUND;
			}
		}
		for (int64_t k = 0; !p->level && k < nleft; k++) {
			int64_t g = left[k];
			if (!(p->gmask[g] & r->used)) {
				round_add(r, p, g);
				pl.state[g] = IN_ROUND;
			}
		}
		if (aug && !p->level) {
			/* A failed search from g stays failed until the round
			 * changes, so marks are cleared only after a success. */
			for (int64_t k = 0; k < nleft; k++) {
				int64_t g = left[k];
				if (pl.state[g] != FREE)
					continue;
				pl.state[g] = SEEN;
				if (augment(&pl, g)) {
					for (int64_t q = 0; q < nleft; q++)
						if (pl.state[left[q]] == SEEN)
							pl.state[left[q]] = FREE;
				}
			}
			for (int64_t q = 0; q < nleft; q++)
				if (pl.state[left[q]] == SEEN)
					pl.state[left[q]] = FREE;
		}
		/* Ids are ranks by size: sorting by id puts the largest first. */
		if (r->n > 1)
			qsort(r->g, (size_t)r->n, sizeof *r->g, by_group);
		append_round(p, &cap, r->g, r->n, false, &maxsum, &meansum);
		int64_t kept = 0;
		for (int64_t k = 0; k < nleft; k++) {
			int64_t g = left[k];
			if (pl.state[g] == IN_ROUND) {
				pl.state[g] = PLACED;
				for (uint64_t m = p->gmask[g]; m; m &= m - 1)
					bitload[__builtin_ctzll(m)] -= p->goff[g + 1] - p->goff[g];
			} else
				left[kept++] = g;
		}
		nleft = kept;
	}
	p->balance = meansum > 0 ? maxsum / meansum : 1.0;

	if (aug)
		for (int b = 0; b < 64; b++)
			free(pl.bitg[b]);
	free(lload);
	free(left);
	free(pl.state);
	free(pl.r.g);
	return done;
}

void sap_plan_build(sap_plan *p, const uint64_t *masks, int64_t lo, int64_t n, int T,
                    bool locks)
{
	group_job j;
	uint32_t *ids = sap_xmalloc((size_t)(n ? n : 1) * sizeof *ids);
	group_begin(&j, p, ids, lo, n, T);
	j.masks = masks;
	sap_pool_run(T, count_worker, &j);
	group_end(&j, p, sap_xmalloc((size_t)(n ? n : 1) * sizeof *p->order));
	p->owns_order = true;
	free(ids);
	pack(p, locks, 0);
}

/* ---- key-level plans ---- */

/* When blocks cannot separate iterations that touch few keys each (8
 * random keys of 10^6: every iteration meets 8 of the 64 blocks, so every
 * group meets nearly every other), a plan at key level can: the
 * wavefront.  In index order, iteration i goes in round 1 + the latest
 * round of an earlier iteration it conflicts with on some key (one of the
 * two writes it).  So iterations of one round touch disjoint keys but
 * for reads, and of two that conflict the earlier runs in an earlier
 * round: running the rounds in order, each round's iterations in any
 * order, conflicts the same as running them in index order, and every
 * key ends as the serial loop leaves it, whatever the workers.
 *
 * Data with locality (Lasso's columns touching rows near j n / p, bands
 * wider than 64 blocks allow) chain neighbours in index order, so the
 * wavefront has as many rounds as the chains are long; but the span of
 * iterations that touch any written key is short.  Strips use that: the
 * iterations cut into T m runs, run s in round s mod m, worker w running
 * runs j + w m of round j, i.e. its even share in m pieces (see
 * strips_pick for why no two runs of a round conflict).  Conflicting
 * iterations run in different rounds, though not always in index order:
 * the result, as with a block plan, depends on the number of workers
 * only. */

/* Per key: the round that last wrote it, the latest that read it; for
 * strips, 1 + the first iteration (from lo) that touched it, STRIP_W set
 * once any iteration wrote it. */
typedef struct key_rounds {
	uint32_t w, r, first;
} key_rounds;

#define STRIP_W 0x80000000u

static inline bool kr_used(const key_rounds *kr)
{
	return (kr->w | kr->r | kr->first) != 0;
}

typedef struct key_slot {
	int64_t key;
	key_rounds kr;          /* all 0: the slot is empty */
} key_slot;

/* One DDS's keys: a dense array for a dvector of at most DENSE_KEYS
 * elements, else an open-addressing table. */
typedef struct key_table {
	bool skip;              /* never a conflict: the iteration's own key */
	key_rounds *dense;
	int64_t ndense;
	key_slot *slot;
	int64_t nslot, used;
} key_table;

/* Bounds on what the key-level plans hold, so that trying them costs
 * little beside the block plan: a dvector of at most DENSE_KEYS elements
 * gets 12 bytes per element, up to DENSE_TOTAL elements over the DDSs
 * (96 MiB); other keys go to hash tables of at most HASHED_KEYS distinct
 * keys in all (a table at most four slots of 24 bytes per key: 96 MiB),
 * and a loop that touches more gets no key-level plan.  Beside them, 4
 * bytes per iteration for the wavefront's rounds and 4 for the strips'
 * reach.  The key log is read LOG_ACCESSES accesses at a time (24 MiB). */
enum { DENSE_KEYS = 1 << 22, DENSE_TOTAL = 1 << 23, HASHED_KEYS = 1 << 20,
       LOG_ACCESSES = 1 << 20 };

/* Strips of up to this many rounds are tried: whatever m, a written
 * key's iterations must lie within about (m - 1) / m of a worker's
 * share, so more rounds gain only the rounding of the runs' edges, and
 * each costs a barrier. */
enum { STRIPS_ROUNDS = 64 };

typedef struct wave {
	key_table *t;
	int ndds;
	uint32_t *round;        /* per iteration, from 1; 0 when not seen */
	int64_t lo, n;
	uint32_t top;
	int64_t hashed;
	int64_t last;           /* the last iteration fed */
	bool waving;            /* the wavefront is still a candidate */
	/* Strips, while still a candidate (else NULL): per iteration x (from
	 * lo), the last iteration touching a written key whose first is x. */
	uint32_t *far;
	int T;
} wave;

static void wave_init(wave *v, int ndds, int64_t lo, int64_t n, uint32_t *round, int T,
                      bool strips)
{
	memset(v, 0, sizeof *v);
	v->ndds = ndds;
	v->t = sap_xcalloc((size_t)(ndds ? ndds : 1), sizeof *v->t);
	v->lo = lo;
	v->n = n;
	v->round = round;
	v->last = lo - 1;
	v->waving = true;
	v->T = T;
	memset(round, 0, (size_t)n * sizeof *round);
	/* first holds 31 bits of an iteration; and one strip per worker
	 * needs as many iterations. */
	if (strips && n < (int64_t)STRIP_W && n >= T)
		v->far = sap_xcalloc((size_t)n, sizeof *v->far);
}

static void wave_free(wave *v)
{
	for (int k = 0; k < v->ndds; k++) {
		free(v->t[k].dense);
		free(v->t[k].slot);
	}
	free(v->t);
	free(v->far);
}

static key_slot *slot_of(key_table *t, int64_t key)
{
	uint64_t h = mix64((uint64_t)key) & (uint64_t)(t->nslot - 1);
	while (kr_used(&t->slot[h].kr) && t->slot[h].key != key)
		h = (h + 1) & (uint64_t)(t->nslot - 1);
	return &t->slot[h];
}

/* The rounds of key, or NULL when none touched it yet. */
static const key_rounds *kr_find(const key_table *t, int64_t key)
{
	if (t->dense)
		return (uint64_t)key < (uint64_t)t->ndense ? &t->dense[key] : NULL;
	if (!t->slot)
		return NULL;
	key_slot *s = slot_of((key_table *)t, key);
	return kr_used(&s->kr) ? &s->kr : NULL;
}

/* The rounds of key, made if new; NULL past HASHED_KEYS. */
static key_rounds *kr_make(wave *v, key_table *t, int64_t key)
{
	if (t->dense)
		return (uint64_t)key < (uint64_t)t->ndense ? &t->dense[key] : NULL;
	if (!t->slot || 2 * (t->used + 1) > t->nslot) {
		if (v->hashed >= HASHED_KEYS)
			return NULL;
		key_slot *old = t->slot;
		int64_t nold = t->nslot;
		t->nslot = t->nslot ? 2 * t->nslot : 1024;
		t->slot = sap_xcalloc((size_t)t->nslot, sizeof *t->slot);
		for (int64_t k = 0; k < nold; k++)
			if (kr_used(&old[k].kr))
				*slot_of(t, old[k].key) = old[k];
		free(old);
	}
	key_slot *s = slot_of(t, key);
	if (!kr_used(&s->kr)) {
		if (v->hashed >= HASHED_KEYS)
			return NULL;
		s->key = key;
		t->used++;
		v->hashed++;
	}
	return &s->kr;
}

/* What a strip of iteration k (from lo) learns from touching kr with
 * mode: a written key's iterations, from its first to k, may conflict.
 * A span of n / T or more kills strips: see strips_pick. */
static void strip_touch(wave *v, key_rounds *kr, int mode, uint32_t k)
{
	if (!kr->first)
		kr->first = k + 1;
	if (mode & SAP_WRITE)
		kr->first |= STRIP_W;
	if (!(kr->first & STRIP_W))
		return;
	uint32_t f = (kr->first & ~STRIP_W) - 1;
	if (v->far[f] < k)
		v->far[f] = k;
	if ((double)(k - f) * v->T >= (double)v->n) {
		free(v->far);
		v->far = NULL;
	}
}

/* Feed the accesses a[0 .. na), each iteration's together, iterations
 * ascending and after those fed before, to the candidates still alive.
 * False past the bounds on keys held. */
static bool wave_feed(wave *v, const sap_access *a, int64_t na)
{
	for (int64_t s = 0; s < na && (v->waving || v->far);) {
		int64_t i = a[s].i, e = s;
		if (i <= v->last || i >= v->lo + v->n)
			sap_fatal(NULL, "internal error: a key log out of iteration order at %lld",
			          (long long)i);
		uint32_t r = 0;
		for (; e < na && a[e].i == i; e++) {
			if (a[e].dds < 0 || a[e].dds >= v->ndds)
				sap_fatal(NULL, "internal error: a key log names DDS %d", (int)a[e].dds);
			const key_table *t = &v->t[a[e].dds];
			if (t->skip || !v->waving)
				continue;
			const key_rounds *kr = kr_find(t, a[e].key);
			if (!kr)
				continue;
			r = kr->w > r ? kr->w : r;
			if ((a[e].mode & SAP_WRITE) && kr->r > r)
				r = kr->r;
		}
		if (r == UINT32_MAX - 1)
			v->waving = false;
		r++;
		for (int64_t q = s; q < e; q++) {
			key_table *t = &v->t[a[q].dds];
			if (t->skip)
				continue;
			key_rounds *kr = kr_make(v, t, a[q].key);
			if (!kr)
				return false;
			if (v->waving) {
				if (a[q].mode & SAP_WRITE)
					kr->w = r;
				if ((a[q].mode & SAP_READ) && kr->r < r)
					kr->r = r;
			}
			/* Past the wavefront, first keeps the slot taken. */
			if (v->far)
				strip_touch(v, kr, a[q].mode, (uint32_t)(i - v->lo));
		}
		if (v->waving) {
			v->round[i - v->lo] = r;
			v->top = r > v->top ? r : v->top;
		}
		v->last = i;
		s = e;
	}
	return true;
}

/* Iterations of round r: size[r], r = 1 .. top; an iteration without
 * accesses conflicts with none and goes in round 1. */
static int64_t *wave_sizes(wave *v)
{
	if (!v->top)
		v->top = 1;
	int64_t *size = sap_xcalloc((size_t)v->top + 1, sizeof *size);
	for (int64_t k = 0; k < v->n; k++) {
		if (!v->round[k])
			v->round[k] = 1;
		size[v->round[k]]++;
	}
	return size;
}

/* What a plan with these rounds costs (plan_cost): each round split
 * evenly over T workers, its busiest worker takes ceil(size / T). */
static double wave_cost(const int64_t *size, uint32_t top, int64_t n, int T)
{
	double steps = 0, share = (double)n / T;
	for (uint32_t r = 1; r <= top; r++)
		steps += (double)((size[r] + T - 1) / T);
	return steps + (double)top * (share / 2000.0 + 1.0);
}

/* The plan of the wavefront's rounds: each round's iterations in index
 * order, cut into T contiguous runs (a worker's keys stay near each
 * other), each run a group. */
static void wave_plan(sap_plan *p, const wave *v, const int64_t *size, int T, int64_t *order)
{
	int64_t n = v->n;
	uint32_t R = v->top;
	memset(p, 0, sizeof *p);
	p->n = n;
	p->nworkers = T;
	p->keys = true;
	if (order) {
		p->order = order;
	} else {
		p->order = sap_xmalloc((size_t)(n ? n : 1) * sizeof *p->order);
		p->owns_order = true;
	}
	int64_t *at = sap_xmalloc(((size_t)R + 2) * sizeof *at);
	at[1] = 0;
	for (uint32_t r = 1; r <= R; r++)
		at[r + 1] = at[r] + size[r];
	for (int64_t k = 0; k < n; k++)
		p->order[at[v->round[k]]++] = v->lo + k;
	int64_t G = 0;
	for (uint32_t r = 1; r <= R; r++)
		G += size[r] < T ? size[r] : T;
	p->ngroups = G;
	p->goff = sap_xmalloc((size_t)(G + 1) * sizeof *p->goff);
	p->gmask = sap_xmalloc((size_t)(G ? G : 1) * sizeof *p->gmask);
	p->rg = sap_xmalloc((size_t)(G ? G : 1) * sizeof *p->rg);
	p->nrounds = R;
	p->ro = sap_xmalloc(((size_t)R * (size_t)T + 1) * sizeof *p->ro);
	p->rlocked = sap_xcalloc((size_t)(R ? R : 1), sizeof *p->rlocked);
	/* Blocks mean nothing here: every group may touch any of them. */
	for (int b = 0; b < 64; b++) {
		p->bit[b] = (uint8_t)b;
		p->bitw[b] = 1;
	}
	memset(p->home, 255, sizeof p->home);
	int64_t g = 0, base = 0;
	double maxsum = 0;
	for (uint32_t r = 1; r <= R; r++) {
		for (int w = 0; w < T; w++) {
			int64_t a = sap_chunk(base, base + size[r], T, w);
			int64_t b = sap_chunk(base, base + size[r], T, w + 1);
			p->ro[(int64_t)(r - 1) * T + w] = g;
			if (b > a) {
				p->goff[g] = a;
				p->gmask[g] = ~(uint64_t)0;
				p->rg[g] = g;
				g++;
			}
		}
		maxsum += (double)((size[r] + T - 1) / T);
		base += size[r];
	}
	p->goff[G] = n;
	p->ro[(int64_t)R * T] = G;
	p->balance = n ? maxsum * T / (double)n : 1.0;
	free(at);
}

/* The fewest rounds m of strips for T workers (0 when none up to
 * STRIPS_ROUNDS works), turning v->far into its prefix maximum; *cost
 * gets the plan's cost as plan_cost counts it.
 *
 * Why the colouring is conflict-free: two iterations x < y conflict only
 * on a key one of them writes, whose interval [first, last] of
 * iterations touching it holds both; far[first] >= last when fed, so
 * after the prefix maximum far[x] >= y, and far is ascending.  With runs
 * of T m, x in run s and y in run t > s: y <= far[x] <= far[end of s -
 * 1], which lies before run s + m when the test below holds, so t - s <
 * m and s mod m != t mod m: different rounds.  Runs of one round are m
 * or more apart, so no two conflict; a run is one worker's.  And a span
 * last - first >= n / T fails every m: a run's start is floor(s n / R),
 * so the runs s .. s + m - 1 hold at most ceil(n / T) iterations and
 * the span would need more (strip_touch stops on it). */
static int strips_pick(wave *v, int T, double *cost)
{
	int64_t n = v->n;
	uint32_t *far = v->far, top = 0;
	for (int64_t x = 0; x < n; x++) {
		top = far[x] > top ? far[x] : top;
		top = (uint32_t)x > top ? (uint32_t)x : top;
		far[x] = top;
	}
	double charge = (double)n / T / 2000.0 + 1.0;
	for (int m = 1; m <= STRIPS_ROUNDS && (int64_t)T * m <= n; m++) {
		int R = T * m;
		bool fits = true;
		for (int s = 0; s + m < R && fits; s++)
			fits = far[sap_chunk(0, n, R, s + 1) - 1] < sap_chunk(0, n, R, s + m);
		if (!fits)
			continue;
		double steps = 0;
		for (int j = 0; j < m; j++) {
			int64_t most = 0;
			for (int w = 0; w < T; w++) {
				int q = j + w * m;
				int64_t c = sap_chunk(0, n, R, q + 1) - sap_chunk(0, n, R, q);
				most = c > most ? c : most;
			}
			steps += (double)most;
		}
		*cost = steps + (double)m * charge;
		return m;
	}
	return 0;
}

/* The plan of strips in m rounds: round j, worker w runs the iterations
 * of run j + w m of T m, in index order, one group. */
static void strips_plan(sap_plan *p, int64_t lo, int64_t n, int T, int m, int64_t *order)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->nworkers = T;
	p->keys = true;
	p->strips = true;
	if (order) {
		p->order = order;
	} else {
		p->order = sap_xmalloc((size_t)(n ? n : 1) * sizeof *p->order);
		p->owns_order = true;
	}
	int R = T * m;
	p->ngroups = R;
	p->goff = sap_xmalloc(((size_t)R + 1) * sizeof *p->goff);
	p->gmask = sap_xmalloc((size_t)R * sizeof *p->gmask);
	p->rg = sap_xmalloc((size_t)R * sizeof *p->rg);
	p->nrounds = m;
	p->ro = sap_xmalloc(((size_t)R + 1) * sizeof *p->ro);
	p->rlocked = sap_xcalloc((size_t)m, sizeof *p->rlocked);
	for (int b = 0; b < 64; b++) {
		p->bit[b] = (uint8_t)b;
		p->bitw[b] = 1;
	}
	memset(p->home, 255, sizeof p->home);
	int64_t at = 0, g = 0;
	double maxsum = 0;
	for (int j = 0; j < m; j++) {
		int64_t most = 0;
		for (int w = 0; w < T; w++, g++) {
			int q = j + w * m;
			int64_t a = sap_chunk(0, n, R, q), b = sap_chunk(0, n, R, q + 1);
			p->ro[g] = g;
			p->rg[g] = g;
			p->goff[g] = at;
			p->gmask[g] = ~(uint64_t)0;
			for (int64_t x = a; x < b; x++)
				p->order[at++] = lo + x;
			most = b - a > most ? b - a : most;
		}
		maxsum += (double)most;
	}
	p->goff[R] = n;
	p->ro[R] = R;
	p->balance = n ? maxsum * T / (double)n : 1.0;
}

bool sap_plan_wave(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                   int T, int64_t *order)
{
	int ndds = 0;
	for (int64_t k = 0; k < nlog; k++)
		ndds = log[k].dds + 1 > ndds ? log[k].dds + 1 : ndds;
	if (n <= 0 || n >= UINT32_MAX)
		return false;
	uint32_t *round = sap_xmalloc((size_t)n * sizeof *round);
	wave v;
	wave_init(&v, ndds, lo, n, round, T, false);
	bool ok = wave_feed(&v, log, nlog) && v.waving;
	if (ok) {
		int64_t *size = wave_sizes(&v);
		wave_plan(p, &v, size, T, order);
		free(size);
	}
	wave_free(&v);
	free(round);
	return ok;
}

bool sap_plan_strips(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                     int T, int64_t *order)
{
	int ndds = 0;
	for (int64_t k = 0; k < nlog; k++)
		ndds = log[k].dds + 1 > ndds ? log[k].dds + 1 : ndds;
	if (n <= 0 || n >= UINT32_MAX)
		return false;
	uint32_t *round = sap_xmalloc((size_t)n * sizeof *round);
	wave v;
	wave_init(&v, ndds, lo, n, round, T, true);
	double cost;
	int m = wave_feed(&v, log, nlog) && v.far ? strips_pick(&v, T, &cost) : 0;
	if (m)
		strips_plan(p, lo, n, T, m, order);
	wave_free(&v);
	free(round);
	return m > 0;
}

/* Did the last plan made with this layout try a key-level plan and keep
 * the blocks'?  Then this one does not try (a locked plan always does). */
static bool keys_lost(const sap_layout *ly, const sap_plan *p)
{
	return ly->memo && ly->memo->keys_tried && !ly->memo->keys_won && !p->nlocked;
}

static void keys_tried(const sap_layout *ly, bool won)
{
	if (ly->memo) {
		ly->memo->keys_tried = true;
		ly->memo->keys_won = won;
	}
}

/* The key-level plan of [lo, hi) for T workers from the key log, sliced
 * on `threads` threads, into p: the cheaper of the wavefront and strips,
 * when it costs less than max_cost; round is scratch for hi - lo rounds.
 * False, p untouched, when neither does, or when the keys exceed the
 * bounds above.  It reads the log only while a candidate may still make
 * it: the wavefront until its rounds alone cost max_cost (so a loop
 * whose iterations form long chains, a hot key, pays for a little of its
 * log only), strips until a written key spans n / T iterations. */
static bool plan_keys(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly,
                      void *env, int64_t lo, int64_t hi, int T, int threads, uint32_t *round,
                      int64_t *order, double max_cost)
{
	int64_t n = hi - lo;
	if (n <= 0 || n >= UINT32_MAX || !ly->nparts)
		return false;
	double share = (double)n / T, charge = share / 2000.0 + 1.0;
	wave v;
	/* Strips take at least a worker's share and a round. */
	wave_init(&v, spec->ndds, lo, n, round, T, share + charge < max_cost);
	int64_t dense = 0;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		key_table *t = &v.t[k];
		t->skip = ly->d[k].own || !ly->d[k].nblk;
		if (!t->skip && d->dv && d->dv->n <= DENSE_KEYS && dense + d->dv->n <= DENSE_TOTAL) {
			t->ndense = d->dv->n;
			t->dense = sap_xcalloc((size_t)(t->ndense ? t->ndense : 1), sizeof *t->dense);
			dense += t->ndense;
		}
	}
	int64_t chunk = 1024, nacc = 0;
	int64_t *idx = sap_xmalloc(65536 * sizeof *idx);
	bool ok = true;
	for (int64_t s = lo; s < hi && ok;) {
		int64_t e = hi - s < chunk ? hi : s + chunk;
		for (int64_t i = s; i < e; i++)
			idx[i - s] = i;
		sap_keylog log = { 0 };
		sap_recon_log(spec, ly, env, idx, e - s, &log, threads);
		ok = wave_feed(&v, log.v, log.n);
		nacc += log.n;
		sap_keylog_free(&log);
		/* Its rounds and the work so far are a lower bound of the
		 * wavefront's cost. */
		v.waving = v.waving && (double)v.top * charge + (double)(e - lo) / T < max_cost;
		ok = ok && (v.waving || v.far);
		/* About LOG_ACCESSES accesses per piece of the log. */
		int64_t per = nacc / (e - lo) + 1;
		chunk = LOG_ACCESSES / per;
		chunk = chunk < 1 ? 1 : chunk > 65536 ? 65536 : chunk;
		s = e;
	}
	free(idx);
	if (ok) {
		/* The cheaper, the wavefront on a tie: it also keeps the
		 * serial loop's result. */
		double best = max_cost, sc = INFINITY;
		int64_t *size = NULL;
		if (v.waving) {
			size = wave_sizes(&v);
			double c = wave_cost(size, v.top, n, T);
			best = c < best ? c : best;
		}
		int m = v.far ? strips_pick(&v, T, &sc) : 0;
		ok = best < max_cost || (m && sc < max_cost);
		if (ok) {
			sap_plan_free(p);
			if (m && sc < best)
				strips_plan(p, lo, n, T, m, order);
			else
				wave_plan(p, &v, size, T, order);
		}
		free(size);
	}
	wave_free(&v);
	return ok;
}

/* A block plan whose critical path and barriers take longer than this
 * share of the workers' even share leaves them idle a fifth of the
 * time or more: only then is a key-level plan tried. */
#define KEYS_WORTH 1.25

void sap_plan_recon(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly, void *env,
                    int64_t lo, int64_t hi, int T, int threads, bool locks, uint32_t *ids,
                    int64_t *order, double *recon_s, uint64_t *kmax)
{
	group_job j;
	group_begin(&j, p, ids, lo, hi - lo, threads);
	p->nworkers = T;
	j.ly = ly;
	*recon_s = sap_recon(spec, ly, env, lo, hi, threads, count_sink, &j, kmax);
	group_end(&j, p, order);
	pack(p, locks, 0);
	/* ids is free again: the rounds of the iterations.  A locked plan
	 * costs more than its even load says, and is not deterministic: a
	 * key-level plan that keeps the workers busy enough replaces it. */
	double c = plan_cost(p), share = (double)(hi - lo) / T;
	if (T > 1 && (c > KEYS_WORTH * share || p->nlocked) && !keys_lost(ly, p))
		keys_tried(ly, plan_keys(p, spec, ly, env, lo, hi, T, threads, ids, order,
		                         p->nlocked ? fmax(0.99 * c, KEYS_WORTH * share) : 0.99 * c));
}

void sap_plan_free(sap_plan *p)
{
	if (p->owns_order)
		free(p->order);
	free(p->goff);
	free(p->gmask);
	free(p->ro);
	free(p->rg);
	free(p->rlocked);
	free(p->mine);
	memset(p, 0, sizeof *p);
}

/* ---- the checker ---- */

/* Per (round, DDS, key): the first group to touch it, another group that
 * did, and a group that wrote it. */
typedef struct touch {
	int64_t round, key;
	int32_t dds, used;
	int64_t g0, g1, w;
} touch;

bool sap_plan_check(const sap_plan *p, int64_t lo, const sap_access *log, int64_t nlog,
                    sap_conflict *c)
{
	int T = p->nworkers;
	int64_t *gof = sap_xmalloc((size_t)(p->n ? p->n : 1) * sizeof *gof);
	for (int64_t k = 0; k < p->n; k++)
		gof[k] = -1;
	for (int64_t g = 0; g < p->ngroups; g++)
		for (int64_t k = p->goff[g]; k < p->goff[g + 1]; k++)
			gof[p->order[k] - lo] = g;
	int64_t *rof = sap_xmalloc((size_t)(p->ngroups ? p->ngroups : 1) * sizeof *rof);
	for (int64_t g = 0; g < p->ngroups; g++)
		rof[g] = -1;
	for (int64_t r = 0; r < p->nrounds; r++)
		for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++)
			rof[p->rg[k]] = r;

	int64_t nslot = 64;
	while (nslot < 2 * nlog)
		nslot *= 2;
	touch *tab = sap_xcalloc((size_t)nslot, sizeof *tab);
	bool ok = true;
	for (int64_t k = 0; k < nlog && ok; k++) {
		const sap_access *a = &log[k];
		if (a->i < lo || a->i >= lo + p->n)
			continue;
		int64_t g = gof[a->i - lo];
		int64_t r = g < 0 ? -1 : rof[g];
		if (r < 0 || p->rlocked[r])
			continue;
		uint64_t h = mix64((uint64_t)a->key ^ mix64((uint64_t)r << 20 ^ (uint64_t)a->dds));
		h &= (uint64_t)(nslot - 1);
		while (tab[h].used && !(tab[h].round == r && tab[h].dds == a->dds &&
		                        tab[h].key == a->key))
			h = (h + 1) & (uint64_t)(nslot - 1);
		touch *t = &tab[h];
		bool wr = a->mode & SAP_WRITE;
		if (!t->used) {
			*t = (touch){ r, a->key, a->dds, 1, g, -1, wr ? g : -1 };
			continue;
		}
		if (g != t->g0 && t->g1 < 0)
			t->g1 = g;
		int64_t other = -1;
		if (wr)
			other = t->g0 != g ? t->g0 : t->g1 != g ? t->g1 : -1;
		else if (t->w >= 0 && t->w != g)
			other = t->w;
		if (wr && t->w < 0)
			t->w = g;
		if (other >= 0) {
			*c = (sap_conflict){ r, other < g ? other : g, other < g ? g : other,
			                     a->dds, a->key };
			ok = false;
		}
	}
	free(tab);
	free(gof);
	free(rof);
	return ok;
}

/* ---- plans over ranks ---- */

/* The rank that runs group g: the owner of the worker pack gave it. */
static int *group_ranks(const sap_plan *p, int threads)
{
	int T = p->nworkers;
	int *own = sap_xmalloc((size_t)(p->ngroups ? p->ngroups : 1) * sizeof *own);
	for (int64_t r = 0; r < p->nrounds; r++)
		for (int w = 0; w < T; w++)
			for (int64_t k = p->ro[r * T + w]; k < p->ro[r * T + w + 1]; k++)
				own[p->rg[k]] = w / threads;
	return own;
}

/* What this rank received, from each rank in rank order and each rank's
 * by group, into dst in plan order (elements of es bytes): a group's from
 * rank s after those from the ranks before, so that it stays in index
 * order. */
static void place_by_group(char *dst, const char *src, size_t es, const sap_plan *p,
                           const int *own, const int64_t *cg, const int64_t *rdis)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t G = p->ngroups;
	int64_t *done = sap_xcalloc((size_t)(G ? G : 1), sizeof *done);
	for (int s = 0; s < P; s++) {
		int64_t q = rdis[s];
		for (int64_t g = 0; g < G; g++) {
			if (own[g] != me)
				continue;
			int64_t c = cg[(size_t)s * (size_t)G + (size_t)g];
			memcpy(dst + (size_t)(p->goff[g] + done[g]) * es, src + (size_t)q * es,
			       (size_t)c * es);
			done[g] += c;
			q += c;
		}
	}
	free(done);
}

/* The elements of sh->v at the iterations sendb[0 .. ns) that this rank
 * sends as the plan's (counts and displacements as for them), into
 * sh->s in plan order. */
static void ship_elements(const sap_plan *p, struct sap_ship *sh, const int *own,
                          const int64_t *cg, const int64_t *sendb, int64_t ns,
                          const int64_t *scnt, const int64_t *sdis, const int64_t *rcnt,
                          const int64_t *rdis, int64_t nr)
{
	int me = sap_rank();
	size_t es = sh->v->elsize, got;
	/* Over ranks the loader's buffer is a share of the file, too small
	 * for the copy but not for what this rank sends. */
	char *out = sap_spare_take((size_t)ns * es, &got);
	if (!out) {
		got = (size_t)(ns ? ns : 1) * es;
		out = sap_xmalloc(got);
	}
	char *in = sap_xmalloc((size_t)(nr ? nr : 1) * es);
	for (int64_t q = 0; q < ns; q++)
		memcpy(out + (size_t)q * es, sh->v->data + (size_t)sendb[q] * es, es);
	sap_comm_alltoallv(out, scnt, sdis, in, rcnt, rdis, es);
	sap_stage_reserve(sh->s, (size_t)p->n * es);
	place_by_group(sh->s->data, in, es, p, own, cg, rdis);
	sap_stage_done(sh->s, sh->v, (size_t)nr * es);
	/* What went to other ranks and came from them. */
	sh->sent += (int64_t)((size_t)(ns - scnt[me]) * es);
	sh->received += (int64_t)((size_t)(nr - rcnt[me]) * es);
	sap_spare_give(out, got);
	free(in);
}

void sap_plan_recon_ranks(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly,
                          void *env, int64_t lo, int64_t hi, int T, int threads,
                          uint32_t *ids, int64_t *order, double *recon_s,
                          struct sap_ship *ship, int nship, uint64_t *kmax)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t a = sap_chunk(lo, hi, T, me * threads), b = sap_chunk(lo, hi, T, (me + 1) * threads);
	group_job j;
	group_begin(&j, p, ids, a, b - a, threads);
	j.ly = ly;
	*recon_s = sap_recon(spec, ly, env, a, b, threads, count_sink, &j, kmax);
	if (kmax && spec->ndds)
		sap_comm_allreduce(kmax, spec->ndds, SAP_COMM_U64, SAP_COMM_MAX);
	p->n = hi - lo;
	p->nworkers = T;

	/* Every rank's masks, in rank order and each rank's in thread order:
	 * the order a single rank of T threads would see them in. */
	int64_t nl = 0;
	for (int w = 0; w < threads; w++)
		nl += j.local[w].n;
	uint64_t *mine = sap_xmalloc((size_t)(2 * nl + 1) * sizeof *mine);
	int64_t at = 0;
	for (int w = 0; w < threads; w++)
		for (int64_t k = 0; k < j.local[w].n; k++) {
			mine[at++] = j.local[w].mask[k];
			mine[at++] = (uint64_t)j.local[w].count[k];
		}
	int64_t cnt = 2 * nl, *cnts = sap_xmalloc((size_t)P * sizeof *cnts);
	int64_t *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_comm_counts(cnt, cnts, dis);
	uint64_t *every = sap_xmalloc((size_t)(total ? total : 1) * sizeof *every);
	sap_comm_allgatherv(mine, cnt, every, cnts, dis, sizeof *every);
	mask_set all;
	set_init(&all);
	int64_t **gid = sap_xcalloc((size_t)threads, sizeof *gid);
	for (int w = 0; w < threads; w++)
		gid[w] = sap_xmalloc((size_t)(j.local[w].n ? j.local[w].n : 1) * sizeof **gid);
	/* Rank r's sets are sid[partof[r] .. partof[r + 1]). */
	int64_t *partof = sap_xmalloc((size_t)(P + 1) * sizeof *partof);
	partof[0] = 0;
	for (int r = 0; r < P; r++)
		partof[r + 1] = partof[r] + cnts[r] / 2;
	int64_t *sid = sap_xmalloc((size_t)(partof[P] ? partof[P] : 1) * sizeof *sid);
	for (int r = 0; r < P; r++)
		for (int64_t q = partof[r]; q < partof[r + 1]; q++) {
			uint64_t m = every[dis[r] + 2 * (q - partof[r])];
			int64_t c = (int64_t)every[dis[r] + 2 * (q - partof[r]) + 1];
			sid[q] = set_id(&all, m);
			all.count[sid[q]] += c;
		}
	at = partof[me];
	for (int w = 0; w < threads; w++)
		for (int64_t k = 0; k < j.local[w].n; k++)
			gid[w][k] = sid[at++];
	/* The same numbering, blocks and rounds on every rank. */
	{
		/* number_groups renumbers gid; the other ranks' set ids go
		 * through it too, as a worker of their own. */
		group_job jj = j;
		mask_set *sets = sap_xcalloc((size_t)threads + 1, sizeof *sets);
		int64_t **g2 = sap_xcalloc((size_t)threads + 1, sizeof *g2);
		for (int w = 0; w < threads; w++) {
			sets[w].n = j.local[w].n;
			g2[w] = gid[w];
		}
		sets[threads].n = partof[P];
		g2[threads] = sid;
		jj.local = sets;
		jj.T = threads + 1;
		number_groups(&jj, p, &all, g2);
		free(sets);
		free(g2);
	}
	pack(p, false, 0);
	/* The key-level plan, as on one rank of T threads: every rank slices
	 * every iteration and makes the same wavefront, so the plan, and the
	 * result, depend on the workers only, however spread over ranks;
	 * every rank then has every group's list, and no iteration moves.
	 * Vectors held in parts, which only their holders could slice, are
	 * made whole for it first (the block plan, if kept, still finds its
	 * elements where they were). */
	double c = plan_cost(p), share = (double)(hi - lo) / T;
	/* ids still holds this rank's groups. */
	uint32_t *round = NULL;
	bool keyed = false;
	if (T > 1 && c > KEYS_WORTH * share && !keys_lost(ly, p)) {
		/* So must a vector the slice reads that only some ranks hold
		 * current (an input fetched by iteration, sap_index_fetch). */
		for (int k = 0; k < spec->ndds; k++) {
			sap_dvec *v = spec->dds[k].dv;
			if (v && v->part_only)
				sap_dv_unpart(v);
			if (v && v->holder && spec->dds[k].slice_reads)
				sap_dv_whole(v, NULL);
		}
		round = sap_xmalloc((size_t)(hi - lo) * sizeof *round);
		keyed = plan_keys(p, spec, ly, env, lo, hi, T, threads, round, order, 0.99 * c);
		keys_tried(ly, keyed);
		free(round);
	}
	if (keyed) {
		p->mine = group_ranks(p, threads);
		goto done;
	}
	int64_t G = p->ngroups;

	/* Each rank's count of each group, for everyone. */
	int64_t *cg = sap_xcalloc((size_t)P * (size_t)(G ? G : 1), sizeof *cg);
	for (int r = 0; r < P; r++)
		for (int64_t q = partof[r]; q < partof[r + 1]; q++)
			cg[(size_t)r * (size_t)G + (size_t)sid[q]] +=
				(int64_t)every[dis[r] + 2 * (q - partof[r]) + 1];
	int *own = group_ranks(p, threads);

	/* This rank's iterations to the ranks that run their groups: by
	 * destination, then group, then index. */
	int64_t *scnt = sap_xcalloc((size_t)P, sizeof *scnt), *sdis = sap_xmalloc((size_t)P * sizeof *sdis);
	int64_t *rcnt = sap_xcalloc((size_t)P, sizeof *rcnt), *rdis = sap_xmalloc((size_t)P * sizeof *rdis);
	int64_t *gat = sap_xmalloc((size_t)(G ? G : 1) * sizeof *gat);
	int64_t *dstat = sap_xcalloc((size_t)P, sizeof *dstat);
	for (int64_t g = 0; g < G; g++) {
		gat[g] = dstat[own[g]];
		dstat[own[g]] += cg[(size_t)me * (size_t)G + (size_t)g];
	}
	int64_t s0 = 0;
	for (int d = 0; d < P; d++) {
		sdis[d] = s0;
		scnt[d] = dstat[d];
		s0 += dstat[d];
	}
	int64_t *sendb = sap_xmalloc((size_t)(s0 ? s0 : 1) * sizeof *sendb);
	for (int w = 0; w < threads; w++) {
		int64_t x = sap_chunk(a, b, threads, w), y = sap_chunk(a, b, threads, w + 1);
		for (int64_t i = x; i < y; i++) {
			int64_t g = gid[w][ids[i - a]];
			sendb[sdis[own[g]] + gat[g]++] = i;
		}
	}
	int64_t r0 = 0;
	for (int s = 0; s < P; s++) {
		int64_t c = 0;
		for (int64_t g = 0; g < G; g++)
			if (own[g] == me)
				c += cg[(size_t)s * (size_t)G + (size_t)g];
		rdis[s] = r0;
		rcnt[s] = c;
		r0 += c;
	}
	int64_t *recvb = sap_xmalloc((size_t)(r0 ? r0 : 1) * sizeof *recvb);
	sap_comm_alltoallv(sendb, scnt, sdis, recvb, rcnt, rdis, sizeof *recvb);
	place_by_group((char *)order, (const char *)recvb, sizeof *order, p, own, cg, rdis);
	p->order = order;
	p->mine = own;
	for (int k = 0; k < nship; k++) {
		double t0 = sap_now();
		ship_elements(p, &ship[k], own, cg, sendb, s0, scnt, sdis, rcnt, rdis, r0);
		ship[k].seconds += sap_now() - t0;
	}
	free(cg);
	free(scnt);
	free(sdis);
	free(rcnt);
	free(rdis);
	free(gat);
	free(dstat);
	free(sendb);
	free(recvb);
done:
	for (int w = 0; w < threads; w++) {
		set_free(&j.local[w]);
		free(gid[w]);
	}
	free(j.local);
	free(gid);
	set_free(&all);
	free(mine);
	free(cnts);
	free(dis);
	free(every);
	free(partof);
	free(sid);
}

void sap_plan_share(sap_plan *p)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t G = p->ngroups, n = 0;
	for (int64_t g = 0; g < G; g++)
		if (p->mine[g] == me)
			n += p->goff[g + 1] - p->goff[g];
	int64_t *out = sap_xmalloc((size_t)(n ? n : 1) * sizeof *out), at = 0;
	for (int64_t g = 0; g < G; g++)
		if (p->mine[g] == me)
			for (int64_t q = p->goff[g]; q < p->goff[g + 1]; q++)
				out[at++] = p->order[q];
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_comm_counts(n, cnt, dis);
	int64_t *in = sap_xmalloc((size_t)(total ? total : 1) * sizeof *in);
	sap_comm_allgatherv(out, n, in, cnt, dis, sizeof *in);
	for (int r = 0; r < P; r++) {
		int64_t q = dis[r];
		for (int64_t g = 0; g < G; g++)
			if (p->mine[g] == r) {
				int64_t k = p->goff[g + 1] - p->goff[g];
				memcpy(p->order + p->goff[g], in + q, (size_t)k * sizeof *in);
				q += k;
			}
	}
	free(out);
	free(in);
	free(cnt);
	free(dis);
}
