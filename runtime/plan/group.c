/* group.c: plans for async loops, the first step: iterations grouped by
 * block mask.
 *
 * Iterations with the same block mask form a group, run on one worker in
 * index order.  Grouping is a parallel counting sort by mask: the
 * workers count their chunks' masks into sets of their own, the sets
 * merge in the order of first appearance, fine blocks map to blocks
 * (choose_map: the map whose plan costs least, each tried map packed by
 * rounds.c), and the iterations scatter into their groups, largest
 * group first.  For SGDMF (each iteration touches one row of W and one
 * of H) the groups are the cells of a B x B grid.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

static void set_rehash(sap_mask_set *s)
{
	free(s->slot);
	s->slot = sap_xcalloc((size_t)s->nslot, sizeof *s->slot);
	for (int64_t id = 0; id < s->n; id++) {
		uint64_t h = sap_mix64(s->mask[id]) & (uint64_t)(s->nslot - 1);
		while (s->slot[h])
			h = (h + 1) & (uint64_t)(s->nslot - 1);
		s->slot[h] = id + 1;
	}
}

int64_t sap_mask_set_id(sap_mask_set *s, uint64_t m)
{
	uint64_t h = sap_mix64(m) & (uint64_t)(s->nslot - 1);
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

void sap_mask_set_init(sap_mask_set *s)
{
	memset(s, 0, sizeof *s);
	for (int k = 0; k < SAP_MASK_CACHE; k++)
		s->cid[k] = -1;
	s->nslot = 128;
	s->slot = sap_xcalloc((size_t)s->nslot, sizeof *s->slot);
}

void sap_mask_set_free(sap_mask_set *s)
{
	free(s->mask);
	free(s->count);
	free(s->slot);
}

static void count(sap_group_job *j, int w, int64_t first, const uint64_t *m, int64_t n)
{
	sap_mask_set *s = &j->local[w];
	uint32_t *ids = j->ids + (first - j->lo);
	for (int64_t k = 0; k < n; k++) {
		unsigned c = (unsigned)((m[k] * 0x9e3779b97f4a7c15ULL) >>
		                        (64 - SAP_MASK_CACHE_BITS));
		int64_t id = s->cid[c];
		if (id < 0 || s->cmask[c] != m[k]) {
			id = sap_mask_set_id(s, m[k]);
			s->cmask[c] = m[k];
			s->cid[c] = id;
		}
		s->count[id]++;
		ids[k] = (uint32_t)id;
	}
}

void sap_plan_count_sink(void *arg, int w, int64_t first, const uint64_t *m, int64_t n)
{
	count(arg, w, first, m, n);
}

void sap_plan_count_worker(void *arg, int w)
{
	sap_group_job *j = arg;
	int64_t a = sap_chunk(j->lo, j->lo + j->n, j->T, w);
	int64_t b = sap_chunk(j->lo, j->lo + j->n, j->T, w + 1);
	count(j, w, a, j->masks + (a - j->lo), b - a);
}

static void scatter_worker(void *arg, int w)
{
	sap_group_job *j = arg;
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

void sap_plan_group_begin(sap_group_job *j, sap_plan *p, uint32_t *ids, int64_t lo, int64_t n,
                          int T)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->nworkers = T;
	*j = (sap_group_job){ .ids = ids, .lo = lo, .n = n, .T = T };
	j->local = sap_xcalloc((size_t)T, sizeof *j->local);
	for (int w = 0; w < T; w++)
		sap_mask_set_init(&j->local[w]);
}

/* The block of each fine block (by mask bit): per DDS, heaviest first
 * onto the lightest block, weight being the iterations that touch it. */
static void deal_blocks(const sap_layout *ly, const sap_mask_set *fine, int map[64])
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
static void run_blocks(const sap_layout *ly, const sap_mask_set *fine, int B, int map[64])
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



static uint64_t coarse_mask(uint64_t m, const int map[64])
{
	uint64_t c = 0;
	for (; m; m &= m - 1)
		c |= (uint64_t)1 << map[__builtin_ctzll(m)];
	return c;
}

/* The groups of `all` under map, sorted largest first into p (goff,
 * gmask, ngroups); byrank[r] is the id in `blk` of group r. */
static void sorted_groups(sap_plan *p, const sap_mask_set *blk, int64_t *byrank)
{
	int64_t G = blk->n;
	for (int64_t g = 0; g < G; g++)
		byrank[g] = g;
	sort_count = blk->count;
	if (G > 1)
		qsort(byrank, (size_t)G, sizeof *byrank, by_size);
	p->ngroups = G;
	p->goff = sap_xmalloc((size_t)(G + 1) * sizeof *p->goff);
	p->gmask = sap_xmalloc((size_t)G * sizeof *p->gmask);
	p->goff[0] = 0;
	for (int64_t r = 0; r < G; r++) {
		p->gmask[r] = blk->mask[byrank[r]];
		p->goff[r + 1] = p->goff[r] + blk->count[byrank[r]];
	}
}

static void merge_masks(const sap_mask_set *fine, const int map[64], sap_mask_set *blk, int64_t *to)
{
	sap_mask_set_init(blk);
	for (int64_t g = 0; g < fine->n; g++) {
		to[g] = sap_mask_set_id(blk, coarse_mask(fine->mask[g], map));
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
double sap_plan_cost(const sap_plan *p)
{
	double share = (double)p->n / p->nworkers;
	return p->balance * share + (double)p->nrounds * (share / 2000.0 + 1.0);
}

/* The plan for map without locks: its cost, the cheaper of the two ways
 * of packing, which goes to *levelp. */
static double try_map(const sap_plan *base, const sap_mask_set *fine, const int map[64],
                      bool *levelp)
{
	sap_mask_set blk;
	int64_t *to = sap_xmalloc((size_t)fine->n * sizeof *to);
	merge_masks(fine, map, &blk, to);
	if (blk.n > TRY_GROUPS) {
		free(to);
		sap_mask_set_free(&blk);
		return INFINITY;
	}
	int64_t *byrank = sap_xmalloc((size_t)blk.n * sizeof *byrank);
	sap_plan t = { .n = base->n, .nworkers = base->nworkers };
	for (int b = 0; b < 64; b++)
		t.bitw[b] = 1;
	memset(t.home, 255, sizeof t.home);
	sorted_groups(&t, &blk, byrank);
	double c = INFINITY;
	/* Levelled rounds hold fewer groups: when packing them all
	 * takes too many rounds, levelling them does too. */
	for (int level = 0; level < 2; level++) {
		t.level = level;
		bool packed = sap_plan_pack(&t, false, TRY_ROUNDS);
		if (packed && sap_plan_cost(&t) < c) {
			c = sap_plan_cost(&t);
			*levelp = level;
		}
		free(t.ro);
		free(t.rg);
		free(t.rlocked);
		t.ro = t.rg = NULL;
		t.rlocked = NULL;
		if (!packed)
			break;
	}
	sap_plan_free(&t);
	free(byrank);
	free(to);
	sap_mask_set_free(&blk);
	return c;
}

/* The map of fine blocks to blocks whose plan costs least: contiguous
 * runs of B, 2B, 3B ... (a banded matrix: runs of twice the band let
 * every other run go at once), or dealt out by weight to B blocks
 * (SGDMF's strata when a few keys are popular), or the fine blocks
 * themselves.  Returns the blocks per DDS of the map. */
static int choose_map(const sap_layout *ly, sap_plan *p, const sap_mask_set *fine, int map[64])
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
		/* Fewer rounds and groups unless more of them gain 1%.  Finer
		 * maps make more groups: once one needs too many rounds, so do
		 * the finer ones, and packing each cost its groups times
		 * TRY_ROUNDS (a 3000-iteration loop planned in 160 ms, 20 times
		 * its run). */
		double cr = try_map(p, fine, try, &lv);
		if (cr == INFINITY)
			break;
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
void sap_plan_number_groups(sap_group_job *j, sap_plan *p, sap_mask_set *all_in, int64_t **gid)
{
	int T = j->T;
	sap_mask_set all = *all_in;
	/* Fine masks become block masks; fine groups with one block mask
	 * merge. */
	int map[64];
	for (int b = 0; b < 64; b++)
		map[b] = b;
	int nb = j->ly ? j->ly->F : 0;
	if (j->ly && j->ly->F > j->ly->B && all.n > 1)
		nb = choose_map(j->ly, p, &all, map);
	if (j->ly && nb != j->ly->F) {
		sap_mask_set blk;
		int64_t *to = sap_xmalloc((size_t)all.n * sizeof *to);
		merge_masks(&all, map, &blk, to);
		for (int w = 0; w < T; w++)
			for (int64_t k = 0; k < j->local[w].n; k++)
				gid[w][k] = to[gid[w][k]];
		free(to);
		sap_mask_set_free(&all);
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
	int64_t *byrank = sap_xmalloc((size_t)G * sizeof *byrank);
	int64_t *rank = sap_xmalloc((size_t)G * sizeof *rank);
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

/* ---- locality inside a group ----
 *
 * A group runs on one worker, in any order: the plan is serializable
 * whatever order each group has.  In index order, the iterations of a
 * group over data in random order (ratings) touch its rows at random,
 * and a group's rows are megabytes, more than the worker's cache.
 * Sorted by the small block of the heaviest DDS (SGDMF's W, by user),
 * a group runs one small block's rows after another, as LIBMF sorts
 * each of its blocks by user: passes 10-14 % shorter at K = 100.  Sorting
 * by the other DDS's small block too made them shorter still, but the
 * model converged more slowly per pass; by the heaviest alone it
 * converged as in index order.  The sort is stable, in index order
 * within a small block, and depends on the masks alone.
 *
 * But index order is the program's, and where it already walks some DDS
 * small block by small block, the data are in an order the algorithm
 * may rely on: LDA's tokens by document, whose Gibbs sweeps sorted by
 * word block mixed worse (the planted corpus's log-likelihood after 100
 * sweeps below the twin's worst seed in 4 of 5 seeds; in index order
 * within the twin's range).  Such groups keep index order; the sort is
 * for data in no order, as ratings shuffled. */

/* Keys at most this many per plan (groups x small blocks), for the
 * counts over ranks (ranks.c). */
enum { FINE_CELLS = 1 << 22 };

int sap_plan_fine_first(const sap_layout *ly, int64_t ngroups)
{
	if (sap_cfg.groups_in_index_order || !ly || ly->F <= ly->B || ly->nparts < 1 ||
	    ngroups * (ly->F + 1) > FINE_CELLS)
		return -1;
	int best = 0;
	for (int part = 1; part < ly->nparts; part++)
		if (ly->bytes[part] > ly->bytes[best])
			best = part;
	return best * ly->F;
}

void sap_plan_fine_pairs(const sap_layout *ly, const sap_mask_set *set, const uint32_t *ids,
                         int64_t n, int64_t *pairs, int64_t *same)
{
	for (int q = 0; q < ly->nparts; q++) {
		int prev = -1;
		for (int64_t k = 0; k < n; k++) {
			int key = sap_plan_fine_key(set->mask[ids[k]], q * ly->F, ly->F);
			if (key == ly->F) {
				prev = -1;
				continue;
			}
			if (prev >= 0) {
				pairs[q]++;
				same[q] += key == prev;
			}
			prev = key;
		}
	}
}

bool sap_plan_index_local(const sap_layout *ly, const int64_t *pairs, const int64_t *same)
{
	for (int q = 0; q < ly->nparts; q++)
		if (pairs[q] > 0 && 2 * same[q] >= pairs[q])
			return true;
	return false;
}

typedef struct fine_job {
	const sap_group_job *j;
	sap_plan *p;
	uint8_t *key;           /* per iteration */
	int first, F;
} fine_job;

static void fine_keys(void *arg, int w)
{
	fine_job *fj = arg;
	const sap_group_job *j = fj->j;
	int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
	const sap_mask_set *s = &j->local[w];
	for (int64_t k = a; k < b; k++)
		fj->key[k] = (uint8_t)sap_plan_fine_key(s->mask[j->ids[k]], fj->first, fj->F);
}

static void fine_sort(void *arg, int w)
{
	fine_job *fj = arg;
	const sap_group_job *j = fj->j;
	sap_plan *p = fj->p;
	int nk = fj->F + 1;
	int64_t cnt[65 + 1];
	int64_t *tmp = NULL;
	size_t cap = 0;
	for (int64_t g = w; g < p->ngroups; g += j->T) {
		int64_t a = p->goff[g], n = p->goff[g + 1] - a;
		if (n < 2)
			continue;
		if ((size_t)n > cap) {
			free(tmp);
			cap = (size_t)n;
			tmp = sap_xmalloc(cap * sizeof *tmp);
		}
		memset(cnt, 0, sizeof cnt);
		for (int64_t q = a; q < a + n; q++)
			cnt[fj->key[p->order[q] - j->lo] + 1]++;
		for (int k = 0; k < nk; k++)
			cnt[k + 1] += cnt[k];
		for (int64_t q = a; q < a + n; q++)
			tmp[cnt[fj->key[p->order[q] - j->lo]]++] = p->order[q];
		memcpy(p->order + a, tmp, (size_t)n * sizeof *tmp);
	}
	free(tmp);
}

static void order_by_fine_blocks(const sap_group_job *j, sap_plan *p)
{
	int first = sap_plan_fine_first(j->ly, p->ngroups);
	if (first < 0 || j->n < 2)
		return;
	int64_t pairs[64] = {0}, same[64] = {0};
	for (int w = 0; w < j->T; w++) {
		int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
		sap_plan_fine_pairs(j->ly, &j->local[w], j->ids + a, b - a, pairs, same);
	}
	if (sap_plan_index_local(j->ly, pairs, same))
		return;
	p->fine = true;
	p->fine_first = first;
	p->fine_F = j->ly->F;
	fine_job fj = { .j = j, .p = p, .first = first, .F = j->ly->F };
	fj.key = sap_xmalloc((size_t)j->n * sizeof *fj.key);
	sap_pool_run(j->T, fine_keys, &fj);
	sap_pool_run(j->T, fine_sort, &fj);
	free(fj.key);
}

/* The workers' sets counted: number the groups, largest first, and sort
 * the iterations into them. */
void sap_plan_group_end(sap_group_job *j, sap_plan *p, int64_t *order)
{
	int T = j->T;
	/* Global ids in the order of first appearance, so that the plan does
	 * not depend on how the workers were scheduled. */
	sap_mask_set all;
	sap_mask_set_init(&all);
	int64_t **gid = sap_xcalloc((size_t)T, sizeof *gid);
	for (int w = 0; w < T; w++) {
		sap_mask_set *s = &j->local[w];
		gid[w] = sap_xmalloc((size_t)s->n * sizeof **gid);
		for (int64_t k = 0; k < s->n; k++) {
			int64_t g = sap_mask_set_id(&all, s->mask[k]);
			all.count[g] += s->count[k];
			gid[w][k] = g;
		}
	}
	sap_plan_number_groups(j, p, &all, gid);
	int64_t G = p->ngroups;
	/* Worker w's part of a group follows the parts of workers before it,
	 * and the worker scans its iterations in index order: each group
	 * stays in index order. */
	int64_t *cursor = sap_xmalloc((size_t)G * sizeof *cursor);
	memcpy(cursor, p->goff, (size_t)G * sizeof *cursor);
	int64_t **pos = sap_xcalloc((size_t)T, sizeof *pos);
	for (int w = 0; w < T; w++) {
		sap_mask_set *s = &j->local[w];
		pos[w] = sap_xcalloc((size_t)G, sizeof **pos);
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
	order_by_fine_blocks(j, p);

	for (int w = 0; w < T; w++) {
		sap_mask_set_free(&j->local[w]);
		free(gid[w]);
		free(pos[w]);
	}
	free(j->local);
	free(gid);
	free(pos);
	free(cursor);
	sap_mask_set_free(&all);
}

