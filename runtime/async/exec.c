/* exec.c: running the iterations of an async loop on the workers: a plan
 * round by round, contiguous chunks, or a given order on one thread. */
#include <stdatomic.h>
#include <stdlib.h>
#include <sched.h>
#include "sap-int.h"

/* A body that draws random numbers points sap_rng_cur at its iteration's
 * generator; the driver's must be current again afterwards. */
static void run_range(const sap_run *x, int64_t lo, int64_t hi, void *red)
{
	sap_rng *saved = sap_rng_cur;
	x->body(x->env, NULL, lo, hi, red);
	sap_rng_cur = saved;
}

/* Iterations it[0 .. n): a group, ascending, or, sorted by small block
 * (sap_plan.fine), ascending within each block's run.  A body takes
 * ascending indices (it finds runs of consecutive ones, and the range
 * its checks cover, from the ends), so each ascending run is a call. */
static void run_group(const sap_run *x, const int64_t *it, int64_t n, void *red)
{
	sap_rng *saved = sap_rng_cur;
	for (int64_t k = 0, e; k < n; k = e) {
		for (e = k + 1; e < n && it[e] > it[e - 1]; e++)
			;
		x->body(x->env, it, k, e, red);
	}
	sap_rng_cur = saved;
}

/* Iterations it[0 .. n) in that order, which may be any: one body call
 * per run of consecutive indices. */
static void run_list(const sap_run *x, const int64_t *it, int64_t n, void *red)
{
	int64_t k = 0;
	while (k < n) {
		int64_t e = k + 1;
		while (e < n && it[e] == it[e - 1] + 1)
			e++;
		run_range(x, it[k], it[e - 1] + 1, red);
		k = e;
	}
}

void sap_exec_range(const sap_run *x, int64_t lo, int64_t hi, void *red)
{
	run_range(x, lo, hi, red);
}

void sap_exec_list(const sap_run *x, const int64_t *idx, int64_t n, void *red)
{
	run_list(x, idx, n, red);
}

void sap_exec_group(const sap_run *x, const int64_t *idx, int64_t n, void *red)
{
	run_group(x, idx, n, red);
}

/* A run shorter than SEQ_MIN is not worth a call of its own; a stretch
 * that is no run ends after SEQ_SCAN places, so that its places are
 * still in cache when the body reads them.  The iterations of a group
 * ascend, so idx[m - 1] - idx[k] == m - 1 - k holds exactly when
 * idx[k .. m) are consecutive, and holds for every m up to the run's end
 * and for none after. */
enum { SEQ_MIN = 16, SEQ_SCAN = 1024 };

static bool consecutive(const int64_t *idx, int64_t k, int64_t m)
{
	return idx[m - 1] - idx[k] == m - 1 - k;
}

bool sap_seq_next(const int64_t *idx, int64_t k, int64_t hi, int64_t *end)
{
	if (!idx) {
		*end = hi;
		return false;
	}
	if (hi - k >= SEQ_MIN && consecutive(idx, k, k + SEQ_MIN)) {
		if (consecutive(idx, k, hi)) {
			*end = hi;
			return true;
		}
		/* consecutive(k, a), not consecutive(k, b): gallop, then halve. */
		int64_t a = k + SEQ_MIN, b = hi;
		for (int64_t step = SEQ_MIN; a + step < hi; step *= 2) {
			if (!consecutive(idx, k, a + step)) {
				b = a + step;
				break;
			}
			a += step;
		}
		while (b - a > 1) {
			int64_t m = a + (b - a) / 2;
			if (consecutive(idx, k, m))
				a = m;
			else
				b = m;
		}
		*end = a;
		return true;
	}
	/* Not a run: up to the first window of SEQ_MIN places from k that is
	 * one (a run of 2 SEQ_MIN - 1 or more holds one), moved back to its
	 * run's start, which is after k since the window at k is none. */
	int64_t lim = hi - k > SEQ_SCAN ? k + SEQ_SCAN : hi;
	for (int64_t s = k + SEQ_MIN; s + SEQ_MIN <= lim; s += SEQ_MIN) {
		if (consecutive(idx, s, s + SEQ_MIN)) {
			while (s - 1 > k && idx[s - 1] == idx[s] - 1)
				s--;
			*end = s;
			return false;
		}
	}
	*end = lim;
	return false;
}

/* ---- chunks ---- */

/* Worker w of the rank runs [cut[w], cut[w + 1]); thread t its workers
 * (sap_run_first) one after another, each into its own partial result. */
typedef struct chunk_job {
	const sap_run *x;
	int64_t *cut;           /* x->V + 1 */
	const int64_t *idx;     /* a list's, or NULL */
} chunk_job;

static void chunk_worker(void *arg, int t)
{
	chunk_job *j = arg;
	for (int w = sap_run_first(j->x, t); w < sap_run_first(j->x, t + 1); w++) {
		int64_t a = j->cut[w], b = j->cut[w + 1];
		if (a >= b)
			continue;
		if (j->idx)
			run_list(j->x, j->idx + a, b - a, sap_run_red(j->x, w));
		else
			run_range(j->x, a, b, sap_run_red(j->x, w));
	}
}

/* Worker k of W's chunk of [lo, hi) starts at sap_run_cut(x, lo, hi, W,
 * k), clamped to [a, b). */
static int64_t clamp_chunk(const sap_run *x, int64_t lo, int64_t hi, int W, int k, int64_t a,
                           int64_t b)
{
	int64_t c = sap_run_cut(x, lo, hi, W, k);
	return c < a ? a : c > b ? b : c;
}

void sap_exec_chunks(const sap_run *x, int64_t lo, int64_t hi)
{
	sap_exec_chunks_of(x, lo, hi, lo, hi, x->V, 0);
}

void sap_exec_chunks_of(const sap_run *x, int64_t a, int64_t b, int64_t lo, int64_t hi, int W,
                        int w0)
{
	int64_t *cut = sap_xmalloc((size_t)(x->V + 1) * sizeof *cut);
	cut[0] = a;
	cut[x->V] = b;
	for (int w = 1; w < x->V; w++)
		cut[w] = clamp_chunk(x, lo, hi, W, w0 + w, a, b);
	chunk_job j = { x, cut, NULL };
	sap_pool_run(x->T, chunk_worker, &j);
	free(cut);
}

/* Iterations [a, b) in index order on this thread, each into the partial
 * result of the worker whose chunk of [lo, hi) holds it (of W from w0):
 * between the chunks of the others, what worker w's chunk would have
 * run. */
void sap_exec_owned(const sap_run *x, int64_t a, int64_t b, int64_t lo, int64_t hi, int W,
                    int w0)
{
	for (int w = 0; w < x->V; w++) {
		int64_t c = clamp_chunk(x, lo, hi, W, w0 + w, a, b);
		int64_t d = w + 1 < x->V ? clamp_chunk(x, lo, hi, W, w0 + w + 1, a, b) : b;
		if (w == 0)
			c = a;
		if (c < d)
			run_range(x, c, d, sap_run_red(x, w));
	}
}

void sap_exec_lists(const sap_run *x, const int64_t *idx, int64_t *cut)
{
	chunk_job j = { x, cut, idx };
	sap_pool_run(x->T, chunk_worker, &j);
}

void sap_exec_list_chunks(const sap_run *x, const int64_t *idx, int64_t n)
{
	sap_exec_list_chunks_of(x, idx, n, 0, 0, 0, 0);
}

void sap_exec_list_chunks_of(const sap_run *x, const int64_t *idx, int64_t n, int64_t lo,
                             int64_t hi, int W, int w0)
{
	int64_t *cut = sap_xmalloc((size_t)(x->V + 1) * sizeof *cut);
	cut[0] = 0;
	cut[x->V] = n;
	for (int w = 1, q = 0; w < x->V; w++) {
		if (!W) {
			cut[w] = sap_chunk(0, n, x->V, w);
			continue;
		}
		int64_t c = sap_run_cut(x, lo, hi, W, w0 + w);
		while (q < n && idx[q] < c)
			q++;
		cut[w] = q;
	}
	chunk_job j = { x, cut, idx };
	sap_pool_run(x->T, chunk_worker, &j);
	free(cut);
}

/* ---- plans ---- */

/* Workers claim iterations of a locked group this many at a time. */
enum { CLAIM = 64 };

typedef struct plan_job {
	const sap_run *x;
	const sap_plan *p;
	const sap_locked *lk;           /* per locked round */
	_Atomic int64_t *claim;         /* per locked round: next iteration */
	_Atomic int64_t *ticket;        /* per locked round */
	int64_t *order;                 /* the serial order, or NULL */
	const int64_t *rstart;          /* per round: its first place in order */
	int w0;                         /* the plan's worker of thread 0 */
	void (*between)(void *arg, int64_t round);      /* on thread 0 after a round */
	void *between_arg;
	const bool *early;              /* per round and thread: need not wait
	                                   for between (or NULL) */
	_Atomic int64_t passed;         /* rounds whose between has run */
	_Atomic int64_t started;        /* thread-rounds begun during one */
	sap_dist_stats *moved;          /* relaxed folds along the ranks */
	bool loose;                     /* no wait between rounds */
} plan_job;

static void run_locked(plan_job *j, int64_t r, int w)
{
	const sap_plan *p = j->p;
	const sap_locked *lk = &j->lk[r];
	int64_t g = p->rg[p->ro[r * p->nworkers]];
	const int64_t *it = p->order + p->goff[g];
	int64_t n = p->goff[g + 1] - p->goff[g];
	void *red = sap_run_red(j->x, w);
	for (;;) {
		int64_t a = atomic_fetch_add(&j->claim[r], CLAIM);
		if (a >= n)
			break;
		int64_t b = a + CLAIM < n ? a + CLAIM : n;
		for (int64_t k = a; k < b; k++) {
			sap_locks_take(lk, k);
			int64_t t = atomic_fetch_add(&j->ticket[r], 1);
			run_range(j->x, it[k], it[k] + 1, red);
			sap_locks_give(lk, k);
			if (j->order)
				j->order[j->rstart[r] + t] = it[k];
		}
	}
}

/* Thread t runs its workers' groups of a round one worker after
 * another (sap_run_first), each into its own partial result; a locked
 * round's iterations it claims as one worker. */
static void plan_worker(void *arg, int t)
{
	plan_job *j = arg;
	const sap_plan *p = j->p;
	int T = p->nworkers, v0 = sap_run_first(j->x, t), v1 = sap_run_first(j->x, t + 1);
	/* Relaxed vectors take in every worker's updates after each round
	 * (the last one's when the reductions close). */
	bool rel = j->x->r && j->x->r->nrel;
	for (int64_t r = 0; r < p->nrounds; r++) {
		if (p->rlocked[r]) {
			run_locked(j, r, v0);
		} else {
			for (int v = v0; v < v1; v++) {
				int w = j->w0 + v;
				void *red = sap_run_red(j->x, v);
				for (int64_t k = p->ro[r * T + w]; k < p->ro[r * T + w + 1]; k++) {
					int64_t g = p->rg[k];
					run_group(j->x, p->order + p->goff[g], p->goff[g + 1] - p->goff[g],
					          red);
				}
			}
		}
		/* Groups of the next round may touch what this round's wrote:
		 * after between, or before it if they touch none of what it
		 * brings (j->early), so that it overlaps their work. */
		if (j->between) {
			sap_pool_barrier();
			if (t == 0) {
				j->between(j->between_arg, r);
				if (rel && r + 1 < p->nrounds)
					sap_rel_fold_ranks(j->x, j->moved);
				atomic_store(&j->passed, r + 1);
			} else if (r + 1 < p->nrounds && j->early && !rel &&
			           j->early[r * j->x->T + t]) {
				atomic_fetch_add(&j->started, 1);
			} else {
				while (atomic_load(&j->passed) <= r)
					sched_yield();
			}
		} else if (r + 1 < p->nrounds && !j->loose) {
			sap_pool_barrier();
			if (rel) {
				sap_rel_fold(j->x, t, j->x->T);
				sap_pool_barrier();
			}
		}
	}
}

int64_t sap_exec_plan_part(const sap_run *x, const sap_plan *p, int w0,
                           void (*between)(void *arg, int64_t round), void *arg,
                           const bool *early, sap_dist_stats *moved)
{
	plan_job j = { .x = x, .p = p, .w0 = w0, .between = between, .between_arg = arg,
	               .early = early, .moved = moved };
	sap_pool_run(x->T, plan_worker, &j);
	return j.started;
}

void sap_exec_plan_loose(const sap_run *x, const sap_plan *p, int w0)
{
	plan_job j = { .x = x, .p = p, .w0 = w0, .loose = true };
	sap_pool_run(x->T, plan_worker, &j);
}

void sap_exec_plan(const sap_run *x, const sap_plan *p, const sap_locked *lk, int64_t *order)
{
	int T = p->nworkers;
	int64_t nl = p->nlocked ? p->nlocked : 1;
	_Atomic int64_t *claim = sap_xcalloc((size_t)nl, sizeof *claim);
	_Atomic int64_t *ticket = sap_xcalloc((size_t)nl, sizeof *ticket);
	int64_t *rstart = sap_xmalloc((size_t)(p->nrounds + 1) * sizeof *rstart);
	rstart[0] = 0;
	for (int64_t r = 0; r < p->nrounds; r++) {
		int64_t sz = 0;
		for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++)
			sz += p->goff[p->rg[k] + 1] - p->goff[p->rg[k]];
		rstart[r + 1] = rstart[r] + sz;
	}

	plan_job j = { .x = x, .p = p, .lk = lk, .claim = claim, .ticket = ticket, .order = order,
	               .rstart = rstart };
	sap_pool_run(x->T, plan_worker, &j);

	/* A plain round is equivalent to its groups one after another, in
	 * worker order. */
	if (order) {
		for (int64_t r = 0; r < p->nrounds; r++) {
			if (p->rlocked[r])
				continue;
			int64_t at = rstart[r];
			for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++)
				for (int64_t q = p->goff[p->rg[k]]; q < p->goff[p->rg[k] + 1]; q++)
					order[at++] = p->order[q];
		}
	}
	free(claim);
	free(ticket);
	free(rstart);
}
