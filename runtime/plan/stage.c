/* stage.c: plan-order copies of the dvectors a loop reads at its own
 * index (sap_dds.by_index).
 *
 * A plan's group runs its iterations in ascending order (by small block,
 * then ascending: group.c), but they are spread over the whole index
 * range: a body reading X[i] takes a few
 * elements from each cache line of X, and every round streams X again.
 * A copy in the plan's order makes each group's elements one contiguous
 * run, which is what a hand-written Strata program gets by sorting its
 * ratings into cells.  The copy is made once per plan and version of X,
 * and a loop that writes nothing can run in another loop's plan to read
 * that loop's copies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sap-int.h"

bool sap_stage_valid(const sap_stage *s, const sap_dvec *v)
{
	return s->src == v && s->version == v->version && s->n == v->n;
}

void sap_stage_free(sap_stage *s)
{
	sap_mem_copies(-(int64_t)s->held);
	free(s->data);
	free(s->lists);
	*s = (sap_stage){ 0 };
}

/* The largest buffer the loader gave back.  Its pages are in memory
 * already, where a fresh allocation's are not: the first touch of each
 * costs a page fault, several microseconds on a VM, which was most of the
 * time a copy of SGDMF's 60 MB of ratings took.  So the first copy it can
 * hold takes it; until then the kernel may reclaim its pages (MADV_FREE)
 * if memory runs short. */
static char *spare;
static size_t spare_n;

void sap_spare_give(void *p, size_t n)
{
	enum { SMALL = 1 << 20 };
	if (n < SMALL || n <= spare_n) {
		free(p);
		return;
	}
	free(spare);
	spare = p;
	spare_n = n;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
	if (a < e)
		madvise((void *)a, e - a, MADV_FREE);
}

void *sap_spare_take(size_t need, size_t *got)
{
	if (!spare || spare_n < need)
		return NULL;
	void *p = spare;
	*got = spare_n;
	spare = NULL;
	spare_n = 0;
	return p;
}

void sap_stage_reserve(sap_stage *s, size_t need)
{
	if (s->cap >= need)
		return;
	free(s->data);
	s->data = sap_spare_take(need, &s->cap);
	if (!s->data) {
		s->data = sap_xmalloc(need);
		s->cap = need;
	}
}

void sap_stage_done(sap_stage *s, const sap_dvec *v, size_t filled)
{
	sap_mem_copies((int64_t)filled - (int64_t)s->held);
	s->held = filled;
	s->src = v;
	s->version = v->version;
	s->n = v->n;
}

/* Places [at[k], at[k] + len[k]) of the plan order, k = 0 .. nr - 1,
 * cum[k] places before range k.  With lend, the copied elements' lists
 * are then lent to lists: bytes[w] of them for thread w's places. */
typedef struct fill_job {
	char *dst;
	const char *src;
	size_t es;
	const int64_t *order;
	const int64_t *at, *cum;
	int64_t nr, total;
	int threads;
	size_t (*lend)(void *x, char *at);
	char *lists;
	size_t *bytes;
} fill_job;

/* Constant sizes make the copies plain moves. */
#define GATHER(SZ)                                                                   \
	for (int64_t q = a; q < b; q++)                                              \
		memcpy(j->dst + (size_t)q * (SZ), j->src + (size_t)j->order[q] * (SZ), (SZ))

static void gather(const fill_job *j, int64_t a, int64_t b)
{
	switch (j->es) {
	case 4: GATHER(4); break;
	case 8: GATHER(8); break;
	case 12: GATHER(12); break;
	case 16: GATHER(16); break;
	default: GATHER(j->es); break;
	}
}

/* The copied elements at places [a, b): with out NULL their lists'
 * bytes, else those lists lent to out. */
static size_t lend(const fill_job *j, int64_t a, int64_t b, char *out)
{
	size_t used = 0;
	for (int64_t q = a; q < b; q++)
		used += j->lend(j->dst + (size_t)q * j->es, out ? out + used : NULL);
	return used;
}

/* Thread w's share of the concatenation of the ranges: phase 0 copies
 * the elements and counts their lists' bytes, phase 1 lends the lists
 * after the bytes of the threads before. */
static void fill_share(fill_job *j, int w, int phase)
{
	int64_t a = sap_chunk(0, j->total, j->threads, w), b = sap_chunk(0, j->total, j->threads, w + 1);
	char *out = NULL;
	if (phase == 1) {
		out = j->lists;
		for (int v = 0; v < w; v++)
			out += j->bytes[v];
	}
	/* The range holding place a of the concatenation. */
	int64_t lo = 0, hi = j->nr;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (j->cum[mid] <= a)
			lo = mid;
		else
			hi = mid;
	}
	size_t used = 0;
	for (int64_t k = lo; k < j->nr && a < b; k++) {
		int64_t s = a - j->cum[k], e = j->cum[k + 1] - j->cum[k];
		int64_t n = b - a < e - s ? b - a : e - s;
		int64_t p = j->at[k] + s;
		if (phase == 0)
			gather(j, p, p + n);
		if (j->lend)
			used += lend(j, p, p + n, out ? out + used : NULL);
		a += n;
	}
	if (phase == 0 && j->lend)
		j->bytes[w] = used;
}

static void fill_worker(void *arg, int w)
{
	fill_share(arg, w, 0);
}

static void lend_worker(void *arg, int w)
{
	fill_share(arg, w, 1);
}

void sap_stage_fill(sap_stage *s, const sap_dvec *v, const sap_plan *p, int w0, int nw,
                    int threads)
{
	sap_stage_reserve(s, (size_t)p->n * v->elsize);
	int T = p->nworkers;
	int64_t nr = 0, *at, *cum;
	if (w0 == 0 && nw == T) {
		at = sap_xmalloc(sizeof *at);
		cum = sap_xmalloc(2 * sizeof *cum);
		at[0] = 0;
		cum[0] = 0;
		cum[1] = p->n;
		nr = 1;
	} else {
		/* Over ranks, only this rank's groups have their lists. */
		int64_t ng = p->ro[p->nrounds * T];
		at = sap_xmalloc((size_t)ng * sizeof *at);
		cum = sap_xmalloc((size_t)(ng + 1) * sizeof *cum);
		cum[0] = 0;
		for (int64_t r = 0; r < p->nrounds; r++)
			for (int64_t k = p->ro[r * T + w0]; k < p->ro[r * T + w0 + nw]; k++) {
				int64_t g = p->rg[k];
				at[nr] = p->goff[g];
				cum[nr + 1] = cum[nr] + p->goff[g + 1] - p->goff[g];
				nr++;
			}
	}
	fill_job j = { s->data, v->data, v->elsize, p->order, at, cum, nr, cum[nr], threads,
	               v->codec ? v->codec->lend : NULL, NULL, NULL };
	if (j.lend)
		j.bytes = sap_xcalloc((size_t)threads, sizeof *j.bytes);
	sap_pool_run(threads, fill_worker, &j);
	size_t lists = 0;
	for (int w = 0; j.lend && w < threads; w++)
		lists += j.bytes[w];
	if (lists) {
		if (s->lists_cap < lists) {
			free(s->lists);
			s->lists = sap_xmalloc(lists);
			s->lists_cap = lists;
		}
		j.lists = s->lists;
		sap_pool_run(threads, lend_worker, &j);
	}
	sap_stage_done(s, v, (size_t)cum[nr] * v->elsize + lists);
	free(j.bytes);
	free(at);
	free(cum);
}

/* ---- the copies of a loop ---- */

/* A copy and a pointer to show per spec DDS. */
void sap_stage_slots(struct sap_loop_state *st, const sap_async_spec *spec)
{
	if (st->nstage == spec->ndds && st->stage)
		return;
	for (int k = 0; k < st->nstage; k++)
		sap_stage_free(&st->stage[k]);
	free(st->stage);
	free(st->stage_ptr);
	st->nstage = spec->ndds;
	st->stage = sap_xcalloc((size_t)st->nstage, sizeof *st->stage);
	st->stage_ptr = sap_xcalloc((size_t)st->nstage, sizeof *st->stage_ptr);
}

/* Can the body read d from a plan-order copy: d a dvector read only at
 * the loop variable, its elements flat or holding lists of flat elements
 * that the copy lends (the compiler's acc_by_index)? */
static bool stageable(const sap_dds *d)
{
	return d->by_index && d->dv && (d->flat || (d->dv->codec && d->dv->codec->lend));
}

/* Below this many iterations in a row on average, a plan is scattered. */
enum { SCATTER_RUN = 8 };

/* Does p visit the iterations of its workers w0 .. w0 + nw - 1
 * scattered?  Then a copy of elements holding lists pays: their lists
 * stream as a flat copy does, where the body would otherwise chase a
 * pointer into the loader's arena and a few cache lines there for each
 * iteration (Lasso's columns under a key-level plan: 3 times the body's
 * time).  A plan of long runs (strips, blocks of a band) reads the
 * arena in order already, and the copy would double the vector's
 * memory for nothing; flat copies are cheap and always made. */
static bool scattered(const sap_plan *p, int w0, int nw)
{
	int T = p->nworkers;
	int64_t n = 0, runs = 0;
	for (int64_t r = 0; r < p->nrounds; r++)
		for (int64_t k = p->ro[r * T + w0]; k < p->ro[r * T + w0 + nw]; k++) {
			int64_t g = p->rg[k];
			for (int64_t q = p->goff[g]; q < p->goff[g + 1]; q++)
				runs += q == p->goff[g] || p->order[q] != p->order[q - 1] + 1;
			n += p->goff[g + 1] - p->goff[g];
		}
	return runs * SCATTER_RUN > n;
}

/* Copy the dvectors the body reads at its own index in the order of the
 * plan (of which this rank runs workers w0 .. w0 + nw - 1), unless
 * copied already, and show them to the body. */
void sap_stage_inputs(struct sap_loop_state *st, const sap_async_spec *spec, const sap_run *x,
                      int w0, int nw)
{
	sap_stage_slots(st, spec);
	const sap_plan *p = &st->plan;
	bool any = false;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		const sap_dvec *v = d->dv;
		st->stage_ptr[k] = NULL;
		/* An iteration outside v must fail in the body, as it would
		 * without the copy. */
		if (!stageable(d) || st->lo < 0 || st->hi > v->n)
			continue;
		if (!d->flat) {
			if (st->scatter_of != st->plan_no) {
				st->scatter_of = st->plan_no;
				st->scattered = scattered(p, w0, nw);
			}
			if (!st->scattered)
				continue;
		}
		if (!sap_stage_valid(&st->stage[k], v) && v->part_only)
			sap_fatal(&x->L->site, "internal error: no plan-order copy of %s, which is "
			          "held in parts", v->name);
		if (!sap_stage_valid(&st->stage[k], v)) {
			double t0 = sap_now();
			sap_stage_fill(&st->stage[k], v, p, w0, nw, x->T);
			st->plan_s += sap_now() - t0;
			st->fetch_s += sap_now() - t0;
		}
		st->stage_ptr[k] = st->stage[k].data;
		any = true;
	}
	x->L->stage_base = p->order;
	x->L->stage = any ? st->stage_ptr : NULL;
}

/* A loop that writes no DDS may run in any order: in the plan of another
 * loop over the same iterations that made copies of the dvectors this one
 * reads at its own index, it reads those copies and each worker the
 * blocks that loop gave it.  That loop's state, or NULL.  Not a loop
 * whose partial results (r) depend on how the iterations fall on workers:
 * its result would then depend on whether that plan is at hand (not after
 * a resume, before the other loop has run again), not only on the ranks
 * and threads. */
struct sap_loop_state *sap_plan_to_share(struct sap_loop_state *st, const sap_async_spec *spec,
                                         const sap_reduce *r, int64_t lo, int64_t hi, int T)
{
	if (r && !r->exact)
		return NULL;
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].mode & SAP_WRITE)
			return NULL;
	for (struct sap_loop_state *o = sap_stats_loops(); o; o = o->next) {
		if (o == st || !o->cached || o->lo != lo || o->hi != hi ||
		    o->plan.nworkers != T || o->plan.nlocked || !o->plan.order)
			continue;
		/* Every vector held in parts must come with it. */
		bool copies = false, parts = true;
		for (int k = 0; k < spec->ndds; k++) {
			const sap_dds *d = &spec->dds[k];
			if (!d->dv)
				continue;
			bool has = false;
			for (int q = 0; stageable(d) && q < o->nstage; q++)
				has |= sap_stage_valid(&o->stage[q], d->dv);
			copies |= has;
			parts &= has || !d->dv->part_only;
		}
		if (copies && parts)
			return o;
	}
	return NULL;
}
