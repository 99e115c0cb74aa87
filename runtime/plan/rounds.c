/* rounds.c: plans for async loops, the second step: groups packed into
 * rounds, rounds to workers.
 *
 * Groups whose masks are disjoint touch disjoint keys, so a round of such
 * groups runs in parallel without locks and the result is that of running
 * the round's groups one after another.  For SGDMF the rounds are the
 * DSGD/Strata strata of the B x B grid of groups.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

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
	int64_t pos[64];        /* bitg[b][0 .. pos[b]) are not free */
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
	/* Until a search succeeds, a group that is not free stays so: each
	 * bit's list is gone through once, not once a search (which made
	 * many groups' packing cost their cube: 1.4 s for 900 groups). */
	uint64_t freed = p->gmask[h] & ~p->gmask[g];
	for (uint64_t m = freed; m; m &= m - 1) {
		int b = __builtin_ctzll(m);
		while (pl->pos[b] < pl->nbitg[b]) {
			int64_t f = pl->bitg[b][pl->pos[b]++];
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
	int *wk = sap_xmalloc((size_t)ng * sizeof *wk);
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

/* pack's state from phase to phase. */
typedef struct packing {
	planner pl;
	int64_t cap;            /* of p->rg */
	double maxsum, meansum; /* append_round's sums, for p->balance */
	bool aug;               /* augmenting paths are tried */
	int64_t *left, nleft;   /* the groups not placed yet */
	int64_t *lload;         /* per worker: its load of the round (p->level) */
	int64_t bitload[64];    /* per bit: the iterations of the groups left */
} packing;

static void pack_begin(packing *pk, sap_plan *p)
{
	int T = p->nworkers;
	int64_t G = p->ngroups;
	memset(pk, 0, sizeof *pk);
	pk->cap = G + 1;
	p->nrounds = 0;
	p->nlocked = 0;
	p->ro = NULL;
	p->rlocked = NULL;
	p->rg = sap_xmalloc((size_t)pk->cap * sizeof *p->rg);
	pk->maxsum = 0;
	pk->meansum = 0;

	pk->pl = (planner){ .p = p };
	pk->pl.state = sap_xcalloc((size_t)G, 1);
	pk->pl.r.g = sap_xmalloc((size_t)G * sizeof *pk->pl.r.g);
	p->ro = sap_xmalloc(((size_t)64 * (size_t)T + 1) * sizeof *p->ro);
	p->rlocked = sap_xmalloc(64 * sizeof *p->rlocked);
	p->ro[0] = 0;
}

/* A group too big to share a round fairly gets one of its own, split
 * over every worker under locks. */
static void pack_locked(packing *pk, bool locks)
{
	sap_plan *p = pk->pl.p;
	int T = p->nworkers;
	int64_t G = p->ngroups;
	if (locks && T > 1) {
		for (int64_t g = 0; g < G; g++) {
			if ((double)(p->goff[g + 1] - p->goff[g]) * T <= 1.5 * (double)p->n)
				break;
			pk->pl.state[g] = PLACED;
			append_round(p, &pk->cap, &g, 1, true, &pk->maxsum, &pk->meansum);
			p->nlocked++;
		}
	}
}

/* The groups of each bit, for augmenting paths (when there are few
 * enough groups for them). */
static void pack_index_bits(packing *pk)
{
	sap_plan *p = pk->pl.p;
	planner *pl = &pk->pl;
	int64_t G = p->ngroups;
	pk->aug = G <= AUGMENT_MAX_GROUPS;
	if (pk->aug) {
		for (int b = 0; b < 64; b++)
			pl->nbitg[b] = 0;
		for (int64_t g = 0; g < G; g++)
			for (uint64_t m = p->gmask[g]; m; m &= m - 1)
				pl->nbitg[__builtin_ctzll(m)]++;
		for (int b = 0; b < 64; b++) {
			pl->bitg[b] = sap_xmalloc((size_t)pl->nbitg[b] *
			                          sizeof **pl->bitg);
			pl->nbitg[b] = 0;
		}
		for (int64_t g = 0; g < G; g++)
			for (uint64_t m = p->gmask[g]; m; m &= m - 1) {
				int b = __builtin_ctzll(m);
				pl->bitg[b][pl->nbitg[b]++] = g;
			}
	}
}

/* The groups not placed yet, largest first, and the iterations of each
 * bit's. */
static void pack_left(packing *pk)
{
	sap_plan *p = pk->pl.p;
	int T = p->nworkers;
	int64_t G = p->ngroups;
	pk->left = sap_xmalloc((size_t)G * sizeof *pk->left);
	pk->nleft = 0;
	for (int64_t g = 0; g < G; g++)
		if (pk->pl.state[g] == FREE)
			pk->left[pk->nleft++] = g;

	pk->lload = sap_xmalloc((size_t)T * sizeof *pk->lload);
	for (int64_t k = 0; k < pk->nleft; k++) {
		int64_t g = pk->left[k];
		for (uint64_t m = p->gmask[g]; m; m &= m - 1)
			pk->bitload[__builtin_ctzll(m)] += p->goff[g + 1] - p->goff[g];
	}
}

/* With p->level: the round's first group, then those the least loaded
 * worker can take without going over it. */
static void round_level(packing *pk)
{
	sap_plan *p = pk->pl.p;
	int T = p->nworkers;
	rnd *r = &pk->pl.r;
	int64_t *left = pk->left, nleft = pk->nleft, *lload = pk->lload;
	for (int w = 0; w < T; w++)
		lload[w] = 0;
	/* The first group: the largest with the busiest bit,
	 * whose groups make the longest chain. */
	int hot = 0;
	for (int b = 1; b < 64; b++)
		hot = pk->bitload[b] > pk->bitload[hot] ? b : hot;
	int64_t lead = left[0];
	for (int64_t k = 0; k < nleft; k++)
		if (p->gmask[left[k]] >> hot & 1) {
			lead = left[k];
			break;
		}
	int64_t top = p->goff[lead + 1] - p->goff[lead];
	lload[0] = top;
	round_add(r, p, lead);
	pk->pl.state[lead] = IN_ROUND;
	for (int64_t k = 0; k < nleft; k++) {
		int64_t g = left[k], sz = p->goff[g + 1] - p->goff[g];
		/* The lead too: a group that touches no key (mask 0) conflicts
		 * with nothing, not even itself. */
		if (g == lead || p->gmask[g] & r->used)
			continue;
		int w = 0;
		for (int x = 1; x < T; x++)
			w = lload[x] < lload[w] ? x : w;
		if (r->n && lload[w] + sz > top)
			continue;
		lload[w] += sz;
		round_add(r, p, g);
		pk->pl.state[g] = IN_ROUND;
	}
}

/* By default: every group that fits beside the ones the round has. */
static void round_greedy(packing *pk)
{
	sap_plan *p = pk->pl.p;
	rnd *r = &pk->pl.r;
	for (int64_t k = 0; k < pk->nleft; k++) {
		int64_t g = pk->left[k];
		if (!(p->gmask[g] & r->used)) {
			round_add(r, p, g);
			pk->pl.state[g] = IN_ROUND;
		}
	}
}

/* More groups by augmenting paths.  A failed search from g stays failed
 * until the round changes, so marks are cleared only after a success. */
static void round_augment(packing *pk)
{
	int64_t *left = pk->left, nleft = pk->nleft;
	char *state = pk->pl.state;
	memset(pk->pl.pos, 0, sizeof pk->pl.pos);
	for (int64_t k = 0; k < nleft; k++) {
		int64_t g = left[k];
		if (state[g] != FREE)
			continue;
		state[g] = SEEN;
		if (augment(&pk->pl, g)) {
			for (int64_t q = 0; q < nleft; q++)
				if (state[left[q]] == SEEN)
					state[left[q]] = FREE;
			memset(pk->pl.pos, 0, sizeof pk->pl.pos);
		}
	}
	for (int64_t q = 0; q < nleft; q++)
		if (state[left[q]] == SEEN)
			state[left[q]] = FREE;
}

/* The round made onto the plan; its groups leave the groups left. */
static void round_append(packing *pk)
{
	sap_plan *p = pk->pl.p;
	rnd *r = &pk->pl.r;
	/* Ids are ranks by size: sorting by id puts the largest first. */
	if (r->n > 1)
		qsort(r->g, (size_t)r->n, sizeof *r->g, by_group);
	append_round(p, &pk->cap, r->g, r->n, false, &pk->maxsum, &pk->meansum);
	int64_t kept = 0;
	for (int64_t k = 0; k < pk->nleft; k++) {
		int64_t g = pk->left[k];
		if (pk->pl.state[g] == IN_ROUND) {
			pk->pl.state[g] = PLACED;
			for (uint64_t m = p->gmask[g]; m; m &= m - 1)
				pk->bitload[__builtin_ctzll(m)] -= p->goff[g + 1] - p->goff[g];
		} else
			pk->left[kept++] = g;
	}
	pk->nleft = kept;
}

/* Rounds until no group is left; false when that would take more than
 * max_rounds (0: no limit). */
static bool pack_rounds(packing *pk, int64_t max_rounds)
{
	sap_plan *p = pk->pl.p;
	while (pk->nleft > 0) {
		if (max_rounds && p->nrounds >= max_rounds)
			return false;
		rnd *r = &pk->pl.r;
		r->n = 0;
		r->used = 0;
		if (p->level)
			round_level(pk);
		else
			round_greedy(pk);
		if (pk->aug && !p->level)
			round_augment(pk);
		round_append(pk);
	}
	return true;
}

static void pack_end(packing *pk)
{
	sap_plan *p = pk->pl.p;
	p->balance = pk->meansum > 0 ? pk->maxsum / pk->meansum : 1.0;

	if (pk->aug)
		for (int b = 0; b < 64; b++)
			free(pk->pl.bitg[b]);
	free(pk->lload);
	free(pk->left);
	free(pk->pl.state);
	free(pk->pl.r.g);
}

/* Rounds take groups largest first.  By default a round takes every
 * group that fits beside the ones it has, and augmenting paths add more;
 * with p->level, only those that the least loaded worker can take
 * without going over the round's first group, which keeps a worker that
 * runs a long chain of conflicting groups (one very popular key) from
 * waiting in rounds that others finish early.  Returns false, the plan
 * unfinished, when it would take more than max_rounds rounds (0: no
 * limit). */
bool sap_plan_pack(sap_plan *p, bool locks, int64_t max_rounds)
{
	packing pk;
	pack_begin(&pk, p);
	pack_locked(&pk, locks);
	pack_index_bits(&pk);
	pack_left(&pk);
	bool done = pack_rounds(&pk, max_rounds);
	pack_end(&pk);
	return done;
}
