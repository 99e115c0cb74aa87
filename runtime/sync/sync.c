/* sync.c: sync for loops, in mini-batches; and the per-iteration random
 * numbers of every loop.
 *
 * The workers are the threads of every rank.  Worker r * T + t (rank r,
 * thread t) runs the (r * T + t)-th of P x T even chunks of the vector
 * the loop runs over, so each rank its even share (its shard), the
 * elements being moved there first; each worker runs one mini-batch of
 * its part a step.
 * Under bsp every worker runs on a copy of the written vectors of its own
 * (thread 0 on the vector itself), and after each step the copies merge:
 * the ranks add their workers' changes against a copy of the old values,
 * and the merge (avg, sum, the program's function) makes the new values
 * from the old ones and the sum: with few rows changed, every rank gets
 * the changed rows of all (delta.c).  Under hybrid a rank's threads share
 * the vectors without locks and only ranks merge.  ssp runs as bsp among
 * a rank's threads and lets ranks run ahead (ssp.c).  Sums are taken in
 * worker order, rank after rank (see merge), so a bsp result depends on
 * ranks x threads only and is the same from run to run.  A body writing anything else (a map, strings) runs whole,
 * one worker on every rank.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

_Thread_local const sap_view *sap_tview;

/* ---- the shards ---- */

enum { HOGWILD_CHUNK = 16 };

typedef struct sync_run {
	sap_run x;
	const sap_syncspec *spec;
	int P, T;
	bool hybrid, copies, keep_old;
	/* One rank, every written vector sparse: each step is one run of
	 * the threads, thread 0 on copies too (local_step). */
	bool local;
	bool tracked;           /* local: the body logs the rows it writes */
	/* One rank, every written vector dense: every thread on copies,
	 * merged by all of them (par_step). */
	bool par;
	/* tracked: this step merges the vectors whole (par_merge), as the
	 * last one wrote so many rows that sorting their keys cost more */
	bool whole;
	_Atomic int64_t logged;  /* tracked: rows the step's threads wrote */
	char *ptmp;             /* par, tracked: thread t's merge buffer at t * ptmpsz */
	size_t ptmpsz;
	int64_t A;              /* local: the step's active workers */
	int64_t M, steps;
	int64_t *idx;           /* this rank's shard */
	int64_t *tlo;           /* thread t runs idx[tlo[t] .. tlo[t + 1]) */
	int64_t *wsize;         /* every worker's part, rank-major */
	char **old;             /* per written vector, when keep_old */
	char **copy;            /* [t * nwr + k], t >= 1, when copies */
	sap_view *views;        /* thread t's at t * (nwr + 1) */
	int64_t step;
	/* Hogwild on one rank: the threads take chunks of the shard from
	 * next, so that none idles while another has long sentences left. */
	bool hogwild;
	_Atomic int64_t next;
	_Atomic int64_t touched;        /* local: rows the step touched */
	sap_sparse *sp;         /* the vectors on the sparse path, or NULL */
	sap_sync_stats *st;
} sync_run;

static bool thread_active(const sync_run *s, int t, int64_t step)
{
	return s->tlo[t + 1] - s->tlo[t] > step * s->M;
}

/* Workers (or, under hybrid, ranks) that run a batch in step. */
static int64_t active(const sync_run *s, int64_t step)
{
	int64_t a = 0;
	for (int r = 0; r < s->P; r++) {
		bool any = false;
		for (int t = 0; t < s->T; t++) {
			bool on = s->wsize[r * s->T + t] > step * s->M;
			a += on && !s->hybrid;
			any |= on;
		}
		a += any && s->hybrid;
	}
	return a;
}

/* Worker w = r * T + t of the P x T runs the w-th of P x T even chunks
 * of the elements, whatever P and T are, so that 1 x 2 and 2 x 1 split
 * them alike; rank r's shard, the union of its workers', is its even
 * share. */
static void layout(sync_run *s, int64_t n)
{
	int P = s->P, T = s->T, me = sap_rank(), W = P * T;
	int64_t a = sap_chunk(0, n, W, me * T), mine = sap_chunk(0, n, W, (me + 1) * T) - a;
	s->idx = sap_xmalloc((size_t)mine * sizeof *s->idx);
	for (int64_t k = 0; k < mine; k++)
		s->idx[k] = a + k;
	s->tlo = sap_xmalloc((size_t)(T + 1) * sizeof *s->tlo);
	for (int t = 0; t <= T; t++)
		s->tlo[t] = sap_chunk(0, n, W, me * T + t) - a;
	s->wsize = sap_xmalloc((size_t)W * sizeof *s->wsize);
	s->steps = 0;
	for (int w = 0; w < W; w++) {
		int64_t c = sap_chunk(0, n, W, w + 1) - sap_chunk(0, n, W, w);
		s->wsize[w] = c;
		if ((c + s->M - 1) / s->M > s->steps)
			s->steps = (c + s->M - 1) / s->M;
	}
}

/* ---- a step ---- */

/* Thread t runs idx[lo .. hi) of the shard. */
static void run(sync_run *s, int64_t lo, int64_t hi, int t)
{
	if (s->spec->batched)
		sap_exec_group(&s->x, s->idx + lo, hi - lo, sap_run_red(&s->x, t));
	else
		sap_exec_list(&s->x, s->idx + lo, hi - lo, sap_run_red(&s->x, t));
}

static void step_worker(void *arg, int t)
{
	sync_run *s = arg;
	const sap_syncspec *spec = s->spec;
	bool on = thread_active(s, t, s->step);
	if (s->copies) {
		if (t > 0 && on)
			for (int k = 0; k < spec->nwr; k++) {
				if (sap_sparse_has(s->sp, k))
					sap_sparse_copy_in(s->sp, t, k, s->copy[t * spec->nwr + k]);
				else
					memcpy(s->copy[t * spec->nwr + k], spec->wr[k].dv->data,
					       spec->wr[k].dv->n * spec->wr[k].dv->elsize);
			}
		/* Thread 0 writes the vectors themselves. */
		sap_pool_barrier();
		if (t > 0)
			sap_tview = s->views + t * (spec->nwr + 1);
	}
	if (s->hogwild) {
		/* A body over mini-batches takes them whole. */
		int64_t end = s->tlo[s->T], chunk = spec->batched ? spec->batch : HOGWILD_CHUNK;
		for (;;) {
			int64_t lo = atomic_fetch_add(&s->next, chunk);
			if (lo >= end)
				break;
			int64_t hi = end - lo < chunk ? end : lo + chunk;
			run(s, lo, hi, t);
		}
	} else if (on) {
		int64_t lo = s->tlo[t] + s->step * s->M;
		int64_t hi = lo + s->M < s->tlo[t + 1] ? lo + s->M : s->tlo[t + 1];
		run(s, lo, hi, t);
	}
	sap_tview = NULL;
}

/* Worker term c of a sum in worker order into v, n elements: the first
 * taken as it is (less old, if not NULL), each later one added (its
 * change from old, if not NULL), so that the sums are the same however
 * the workers fall on ranks and threads. */
static void add_term(const sap_syncdds *w, char *v, const char *c, const char *old, int64_t n,
                     bool *first)
{
	if (!*first) {
		if (old)
			sap_sc_delta(w->num, v, c, old, n);
		else
			sap_sc_add(w->num, v, c, n);
		return;
	}
	if (c != v)
		memcpy(v, c, (size_t)n * w->dv->elsize);
	if (old)
		sap_sc_sub(w->num, v, old, n);
	*first = false;
}

/* The first element of thread t's part of n in a par_step merge: even
 * parts, cut at 64-element multiples so that no two threads write the
 * same cache line of a vector of small elements. */
static int64_t par_cut(int64_t n, int T, int t)
{
	if (t == T)
		return n;
	int64_t c = sap_chunk(0, n, T, t);
	c = (c + 63) & ~(int64_t)63;
	return c < n ? c : n;
}

/* Elements [e0, e1) of written vector k merged into the storage, which
 * holds the old values, and into every thread's copy: the same sums,
 * term by term, as gather and merge make on one rank. */
static void par_merge(sync_run *s, int k, int64_t e0, int64_t e1, char *v)
{
	const sap_syncdds *w = &s->spec->wr[k];
	int nwr = s->spec->nwr;
	/* On the sparse path's arithmetic (local) an average too is of the
	 * changes. */
	bool changes = s->keep_old || s->local;
	int64_t n = e1 - e0;
	size_t es = w->dv->elsize, at = (size_t)e0 * es, bytes = (size_t)n * es;
	char *old = (char *)w->dv->data + at;
	bool first = true;
	for (int u = 0; u < s->T; u++)
		if (thread_active(s, u, s->step))
			add_term(w, v, s->copy[u * nwr + k] + at, changes ? old : NULL, n, &first);
	if (first)
		return;
	if (changes)
		sap_sc_merge(w, v, old, v, n, s->A);
	else if (s->A > 1)
		sap_sc_div(w->num, v, n, s->A);
	memcpy(old, v, bytes);
	for (int u = 0; u < s->T; u++)
		memcpy(s->copy[u * nwr + k] + at, v, bytes);
}

/* Thread t's part of every written vector merged, a chunk at a time
 * that stays in the cache. */
static void par_part(sync_run *s, int t)
{
	char *v = s->ptmp + (size_t)t * s->ptmpsz;
	for (int k = 0; k < s->spec->nwr; k++) {
		const sap_dvec *dv = s->spec->wr[k].dv;
		int64_t e1 = par_cut(dv->n, s->T, t + 1), chunk = (int64_t)(s->ptmpsz / dv->elsize);
		for (int64_t e = par_cut(dv->n, s->T, t); e < e1; e += chunk)
			par_merge(s, k, e, e1 - e < chunk ? e1 : e + chunk, v);
	}
}

/* One step on one rank of dense vectors (s->par): each thread runs its
 * mini-batch on its copy, the storage untouched, then merges its part
 * of every vector.  Before,
 * thread 0 wrote the storage the others had just copied, each of its
 * first writes to a line taking the line back from the other core, and
 * the driver merged alone: a step of 2048 sparse examples ran four
 * times the body of one thread. */
static void par_step(void *arg, int t)
{
	sync_run *s = arg;
	int nwr = s->spec->nwr;
	double t0 = sap_now();
	if (thread_active(s, t, s->step)) {
		int64_t lo = s->tlo[t] + s->step * s->M;
		int64_t hi = lo + s->M < s->tlo[t + 1] ? lo + s->M : s->tlo[t + 1];
		sap_tview = s->views + t * (nwr + 1);
		run(s, lo, hi, t);
		sap_tview = NULL;
	}
	double t1 = sap_now();
	sap_pool_barrier();
	par_part(s, t);
	if (t == 0) {
		s->st->compute_s += t1 - t0;
		s->st->sync_s += sap_now() - t1;
	}
}

/* One step on one rank (s->local): thread t runs its mini-batch on its
 * copies; when all have, it merges its share of the rows into the
 * storage, which kept the old values.  No fetch, and one wake-up of the
 * threads a step.  s->tracked: the copies are the storage's values at the
 * start of the step, and the body logs the rows it writes
 * (sap_sync_mark), to be merged into the storage and every copy: no
 * reconnaissance pass, which cost several times the body of a sparse
 * model's small mini-batches.  Else the thread runs the slice over its
 * mini-batch first and copies the rows it records, so that a vector
 * much larger than what an invocation touches is not copied whole. */
static void local_step(void *arg, int t)
{
	sync_run *s = arg;
	int nwr = s->spec->nwr;
	double t0 = sap_now();
	int64_t lo = 0, hi = 0;
	bool on = thread_active(s, t, s->step);
	if (on) {
		lo = s->tlo[t] + s->step * s->M;
		hi = lo + s->M < s->tlo[t + 1] ? lo + s->M : s->tlo[t + 1];
	}
	if (!s->tracked) {
		sap_sparse_recon(s->sp, t, s->idx + lo, hi - lo);
		for (int k = 0; k < nwr; k++)
			sap_sparse_copy_in(s->sp, t, k, s->copy[t * nwr + k]);
	}
	double t1 = sap_now();
	if (on) {
		sap_tview = s->views + t * (nwr + 1);
		run(s, lo, hi, t);
		sap_tview = NULL;
	}
	double t2 = sap_now();
	if (s->tracked)
		atomic_fetch_add(&s->logged, sap_sparse_logged(s->sp, t, !s->whole));
	sap_pool_barrier();
	int64_t touched = 0;
	if (s->whole)
		par_part(s, t);
	else
		touched = sap_sparse_local_merge(s->sp, s->copy, t, s->A, s->tracked);
	if (t == 0) {
		s->st->recon_s += t1 - t0;
		s->st->compute_s += t2 - t1;
		s->st->sync_s += sap_now() - t2;
	}
	atomic_fetch_add(&s->touched, touched);
}

/* Thread t records the keys of its mini-batch (sparse path). */
static void recon_worker(void *arg, int t)
{
	sync_run *s = arg;
	int64_t lo = 0, hi = 0;
	if (thread_active(s, t, s->step)) {
		lo = s->tlo[t] + s->step * s->M;
		hi = lo + s->M < s->tlo[t + 1] ? lo + s->M : s->tlo[t + 1];
	}
	sap_sparse_recon(s->sp, t, s->idx + lo, hi - lo);
}

/* Whether this rank's workers have a term in the step: the vector
 * itself (thread 0's, or all threads' under hybrid), or a copy of a
 * worker that ran a batch. */
static bool has_terms(const sync_run *s)
{
	for (int t = 0; t < s->T; t++)
		if (thread_active(s, t, s->step) && (t == 0 || s->hybrid || s->copies))
			return true;
	return false;
}

typedef struct gather_job {
	sync_run *s;
	int k;
} gather_job;

/* Into elements [e0, e1) of vector k's storage: pre (if not NULL)
 * followed by what this rank's workers made of them in the step, the
 * sum of their changes (of their copies without old values: hogwild's
 * one rank), added in worker order.  The first term is taken as it is, not added
 * to zero, so the sums are the same however the workers fall on ranks.
 * Zeros when there is nothing. */
static void gather(void *arg, int64_t e0, int64_t e1, const void *pre)
{
	gather_job *g = arg;
	sync_run *s = g->s;
	const sap_syncdds *w = &s->spec->wr[g->k];
	int64_t n = e1 - e0;
	size_t es = w->dv->elsize, at = (size_t)e0 * es, bytes = (size_t)n * es;
	char *v = (char *)w->dv->data + at;
	const char *old = s->keep_old ? s->old[g->k] + at : NULL;
	bool own = false, first = true;
	for (int t = 0; t < s->T; t++)
		own |= (t == 0 || s->hybrid) && thread_active(s, t, s->step);
	for (int t = 0; t < s->T; t++) {
		const char *c = v;
		if (t == 0 && !own)
			continue;
		if (t > 0) {
			if (!s->copies || !thread_active(s, t, s->step))
				continue;
			c = (const char *)s->copy[t * s->spec->nwr + g->k] + at;
		}
		bool was = first;
		add_term(w, v, c, old, n, &first);
		if (was && pre)
			sap_sc_add(w->num, v, pre, n);
	}
	if (first) {
		if (pre)
			memcpy(v, pre, bytes);
		else
			memset(v, 0, bytes);
	}
}

/* ssp: this rank's changes go out; the vectors go on from the old
 * values plus what has come in.  Every vector's change is taken before
 * the first goes out, since sending takes in what has arrived from the
 * other ranks, into every vector: a vector whose change was taken after
 * that counted the others' changes as this rank's, twice over. */
static void ssp_merge(sync_run *s, sap_ssp *q)
{
	int nwr = s->spec->nwr;
	void **d = sap_xcalloc((size_t)nwr, sizeof *d);
	for (int k = 0; k < nwr; k++) {
		const sap_syncdds *w = &s->spec->wr[k];
		size_t bytes = (size_t)w->dv->n * w->dv->elsize;
		gather_job g = { s, k };
		gather(&g, 0, w->dv->n, NULL);
		d[k] = sap_xmalloc(bytes + 1);
		memcpy(d[k], w->dv->data, bytes);
		memcpy(w->dv->data, s->old[k], bytes);
	}
	for (int k = 0; k < nwr; k++) {
		const sap_syncdds *w = &s->spec->wr[k];
		sap_ssp_push(q, s->step, k, d[k]);
		s->st->sync_bytes += (double)w->dv->n * (double)w->dv->elsize * (s->P - 1);
	}
	free(d);
}

/* The vectors whose step merges from the rows it changed, where that
 * pays (sap_sync_delta), marked in done: over ranks, against the old
 * values, those not on the sparse path, not merged by the program's
 * function (which applies to every row) and not the one the loop runs
 * over (whose elements stay in parts). */
static void delta(sync_run *s, int64_t A, bool *done)
{
	const sap_syncspec *spec = s->spec;
	int nwr = spec->nwr, nv = 0;
	if (s->P == 1 || !s->old)
		return;
	/* A term per worker, or per rank under hybrid, whose threads share
	 * the storage. */
	int T = s->hybrid ? 1 : s->T;
	const sap_syncdds **w = sap_xmalloc((size_t)nwr * sizeof *w);
	const char **old = sap_xmalloc((size_t)nwr * sizeof *old);
	char **term = sap_xcalloc((size_t)nwr * (size_t)T, sizeof *term);
	int *of = sap_xmalloc((size_t)nwr * sizeof *of);
	bool *did = sap_xmalloc((size_t)nwr * sizeof *did);
	for (int k = 0; k < nwr; k++) {
		const sap_syncdds *x = &spec->wr[k];
		if (sap_sparse_has(s->sp, k) || !s->old[k] || x->merge == SAP_M_FN || x->dv == spec->over)
			continue;
		for (int t = 0; t < s->T; t++) {
			if (!thread_active(s, t, s->step))
				continue;
			if (s->hybrid || t == 0)
				term[nv * T] = x->dv->data;
			else if (s->copies)
				term[nv * T + t] = s->copy[t * nwr + k];
		}
		w[nv] = x;
		old[nv] = s->old[k];
		of[nv++] = k;
	}
	if (nv)
		sap_sync_delta(w, term, old, nv, T, A, did, s->st);
	for (int q = 0; q < nv; q++)
		done[of[q]] = did[q];
	free(did);
	free(of);
	free(term);
	free(old);
	free(w);
}

/* Every rank's workers' step merged into the written vectors.  The
 * ranks add their workers' terms in a chain (sap_chain_sum), rank r
 * onto the sum of ranks 0 .. r - 1, piece by piece, so that rank r + 1
 * adds to one piece while rank r adds to the next; the last rank's
 * total goes to all.  Each element is one sum in worker order, the one
 * a single rank of P x T threads takes. */
static void merge(sync_run *s, sap_ssp *q)
{
	const sap_syncspec *spec = s->spec;
	int64_t A = active(s, s->step);
	if (q) {
		ssp_merge(s, q);
		return;
	}
	bool *done = sap_xcalloc((size_t)spec->nwr + 1, sizeof *done);
	delta(s, A, done);
	for (int k = 0; k < spec->nwr; k++) {
		const sap_syncdds *w = &spec->wr[k];
		int64_t n = w->dv->n;
		size_t bytes = n * w->dv->elsize;
		void *v = w->dv->data;
		if (sap_sparse_has(s->sp, k) || done[k])
			continue;
		/* One worker, here for another vector's merge function: this
		 * one is the worker's copy, as the serial loop leaves it (old
		 * plus the change would round). */
		if (s->P * s->T == 1 && w->merge != SAP_M_FN)
			continue;
		gather_job g = { s, k };
		sap_dist_stats moved = { 0, 0 };
		sap_chain_sum(v, n, w->dv->elsize, has_terms(s), gather, &g, &moved);
		if (s->keep_old)
			sap_sc_merge(w, v, s->old[k], v, n, A);
		else if (A > 1)
			sap_sc_div(w->num, v, n, A);
		s->st->sync_bytes += s->P > 1 ? (double)bytes * 2 : 0;
	}
	free(done);
	if (s->sp)
		sap_sparse_merge(s->sp, s->copies ? s->copy : NULL, A, s->st);
}

/* ---- the loop ---- */

static sap_sync_stats *stats_list;

/* Whether every rank's part of v (sap_dv_part) is its even share, so
 * that each rank can run its workers' elements where they are once each
 * holds its part; a vector every rank has whole is. */
static bool parts_even(const sap_dvec *v)
{
	int P = sap_nranks();
	if (!v->part_only && !v->holder)
		return true;
	for (int r = 0; r < P; r++) {
		int64_t lo, hi;
		sap_dv_part(v, r, &lo, &hi);
		if (lo != sap_chunk(0, v->n, P, r) || hi != sap_chunk(0, v->n, P, r + 1))
			return false;
	}
	return true;
}

static sap_sync_stats *stats_of(const sap_loop *L, const sap_syncspec *spec)
{
	sap_sync_stats **p = &stats_list;
	for (; *p; p = &(*p)->next)
		if ((*p)->loop == L)
			return *p;
	*p = sap_xcalloc(1, sizeof **p);
	(*p)->loop = L;
	(*p)->model = spec->model;
	(*p)->staleness = spec->staleness;
	return *p;
}

sap_sync_stats *sap_sync_stats_all(void)
{
	return stats_list;
}

/* How the workers of a split run share the written vectors, and the
 * buffers that takes: the old values, each worker's copies, the reduce
 * buffers; the SSP clocks when the run is stale synchronous. */
static sap_ssp *split_begin(sync_run *s, int64_t n)
{
	const sap_syncspec *spec = s->spec;
	int nwr = spec->nwr, T = s->T;
	bool ssp = spec->model == SAP_SSP && spec->staleness > 0 && s->P > 1 && nwr > 0;
	s->hybrid = spec->model == SAP_HYBRID;
	s->copies = !s->hybrid && T > 1;
	/* Every merge is of the changes against the old values: an average
	 * as old + (the sum of the changes) / workers, as sap(7) has it,
	 * which merging only the rows a step changed needs (delta.c), and
	 * integers' rounded toward zero. */
	s->keep_old = true;
	/* Hybrid on one rank merges nothing, so its threads need not wait
	 * for each other between mini-batches: the loop is one step, in
	 * which they share out the elements as Hogwild's threads do.  A sum
	 * or an integer average of one rank's changes is the changes, so
	 * the old values need not be kept; the program's merge function
	 * still applies after every step. */
	bool fn = false;
	for (int k = 0; k < nwr; k++)
		fn |= spec->wr[k].merge == SAP_M_FN;
	s->hogwild = s->hybrid && s->P == 1 && !fn;
	if (s->hogwild)
		s->keep_old = false;
	if (s->hogwild)
		s->M = n ? n : 1;
	layout(s, n);
	if (spec->slice && !s->hogwild && !ssp && s->P * T > 1)
		s->sp = sap_sparse_open(spec, T);
	s->local = s->sp && s->P == 1 && s->copies;
	for (int k = 0; s->local && k < nwr; k++)
		s->local = sap_sparse_has(s->sp, k);
	/* Whole copies, unless they are large beside the invocation's
	 * elements: a slice costs about as much an element as copying half
	 * a kilobyte. */
	double bytes = 0;
	for (int k = 0; s->local && k < nwr; k++)
		bytes += (double)spec->wr[k].dv->n * (double)spec->wr[k].dv->elsize * T;
	s->tracked = s->local && bytes <= 512.0 * (double)n;
	/* A merge function stays with the driver: it is the program's.  A
	 * copy for thread 0 too costs one more whole copy: not of a model
	 * of gigabytes. */
	double vbytes = 0;
	for (int k = 0; k < nwr; k++)
		vbytes += (double)spec->wr[k].dv->n * (double)spec->wr[k].dv->elsize;
	s->par = s->P == 1 && s->copies && !s->sp && !fn && vbytes <= (double)(1 << 30) / T;
	s->whole = false;
	if (s->par || (s->tracked && !fn)) {
		size_t most = 1;
		for (int k = 0; k < nwr; k++)
			if (spec->wr[k].dv->elsize > most)
				most = spec->wr[k].dv->elsize;
		s->ptmpsz = ((most > 16384 ? most : 16384 / most * most) + 63) & ~(size_t)63;
		s->ptmp = sap_xmalloc((size_t)T * s->ptmpsz);
	}
	if (s->keep_old) {
		s->old = sap_xcalloc((size_t)nwr, sizeof *s->old);
		for (int k = 0; k < nwr && !s->par; k++)
			if (!sap_sparse_has(s->sp, k))
				s->old[k] = sap_xmalloc(spec->wr[k].dv->n * spec->wr[k].dv->elsize + 1);
	}
	if (s->copies) {
		s->copy = sap_xcalloc((size_t)(T * nwr), sizeof *s->copy);
		s->views = sap_xcalloc((size_t)(T * (nwr + 1)), sizeof *s->views);
		for (int t = s->local || s->par ? 0 : 1; t < T; t++)
			for (int k = 0; k < nwr; k++) {
				const sap_dvec *v = spec->wr[k].dv;
				size_t bytes = v->n * v->elsize;
				s->copy[t * nwr + k] = sap_xmalloc(bytes + 1);
				s->views[t * (nwr + 1) + k] = (sap_view){ v, s->copy[t * nwr + k], NULL };
				/* local_step and par_step keep these the
				 * storage's values. */
				if (s->tracked || s->par)
					memcpy(s->copy[t * nwr + k], v->data, bytes);
				if (s->tracked)
					s->views[t * (nwr + 1) + k].log = sap_sparse_log(s->sp, t, k);
			}
	}
	const sap_reduce *r = s->x.r;
	if (r) {
		s->x.reds = sap_xmalloc((size_t)T * r->size);
		for (int t = 0; t < T; t++)
			r->init(sap_run_red(&s->x, t));
	}
	if (!ssp)
		return NULL;
	int64_t *A = sap_xmalloc((size_t)s->steps * sizeof *A);
	for (int64_t c = 0; c < s->steps; c++)
		A[c] = active(s, c);
	sap_ssp *q = sap_ssp_open(spec, s->steps, A);
	free(A);
	return q;
}

/* The mini-batch steps: each one's keys learnt and rows fetched (sparse),
 * run on the workers, then merged. */
static void split_steps(sync_run *s, sap_ssp *q)
{
	const sap_syncspec *spec = s->spec;
	int nwr = spec->nwr, T = s->T;
	for (s->step = 0; s->step < s->steps; s->step++) {
		if (q)
			sap_ssp_wait(q, s->step);
		if (s->local) {
			s->A = active(s, s->step);
			atomic_store(&s->touched, 0);
			atomic_store(&s->logged, 0);
			sap_pool_run(T, local_step, s);
			s->st->touched += atomic_load(&s->touched);
			int64_t all = 0;
			for (int k = 0; k < nwr; k++)
				all += spec->wr[k].dv->n;
			s->st->offered += all;
			/* Merging whole vectors costs about a nanosecond a row,
			 * merging by keys several times that a key written: the
			 * next step takes the cheaper, as far as this one tells.
			 * Both make the same sums. */
			s->whole = s->ptmp && atomic_load(&s->logged) * 8 > all;
			continue;
		}
		if (s->par) {
			s->A = active(s, s->step);
			sap_pool_run(T, par_step, s);
			continue;
		}
		for (int k = 0; s->keep_old && k < nwr; k++)
			if (s->old[k])
				memcpy(s->old[k], spec->wr[k].dv->data,
				       spec->wr[k].dv->n * spec->wr[k].dv->elsize);
		if (s->sp) {
			double r0 = sap_now();
			sap_pool_run(T, recon_worker, s);
			s->st->recon_s += sap_now() - r0;
			r0 = sap_now();
			sap_sparse_fetch(s->sp, s->st);
			s->st->sync_s += sap_now() - r0;
		}
		double t0 = sap_now();
		sap_pool_run(T, step_worker, s);
		double t1 = sap_now();
		merge(s, q);
		s->st->compute_s += t1 - t0;
		s->st->sync_s += sap_now() - t1;
	}
}

/* The workers' reduce buffers combined into red; everything freed. */
static void split_end(sync_run *s, sap_ssp *q, void *red)
{
	int nwr = s->spec->nwr, T = s->T;
	if (q) {
		double t0 = sap_now();
		sap_ssp_close(q, s->st);
		s->st->sync_s += sap_now() - t0;
	}
	s->st->steps += s->steps;
	if (s->sp)
		sap_sparse_close(s->sp);
	const sap_reduce *r = s->x.r;
	if (r) {
		/* Every worker in order, as one rank of P x T threads would. */
		if (s->P > 1) {
			sap_dist_stats none = { 0, 0 };
			sap_dist_reduce(r, NULL, s->x.reds, T, red, &none);
		} else {
			for (int t = 0; t < T; t++)
				r->combine(red, sap_run_red(&s->x, t));
		}
		free(s->x.reds);
	}
	for (int k = 0; s->old && k < nwr; k++)
		free(s->old[k]);
	for (int k = 0; s->copy && k < T * nwr; k++)
		free(s->copy[k]);
	free(s->old);
	free(s->copy);
	free(s->ptmp);
	free(s->views);
	free(s->idx);
	free(s->tlo);
	free(s->wsize);
}

static void run_split(sync_run *s, int64_t n, void *red)
{
	sap_ssp *q = split_begin(s, n);
	split_steps(s, q);
	split_end(s, q, red);
}

/* The sparse path pays where a step touches a small part of the rows;
 * where every step touches nearly all of them (a dense model's weights,
 * k-means' centroids), the slice only repeats work, once as much as the
 * body's in k-means.  Said once a loop, when it costs. */
static void slice_warn(const sap_loop *L, sap_sync_stats *st)
{
	/* The merge of rows by their keys too, which the dense path does
	 * with no keys: a logistic regression's 8 weights, every one in
	 * every step, merged in 0.27 s sparse, 0.027 s dense (helper SY). */
	double over = st->recon_s + st->sync_s;
	if (st->warned || sap_cfg.quiet_plans || st->offered == 0 ||
	    (double)st->touched < 0.9 * (double)st->offered || over < 0.05 ||
	    over < 0.25 * st->compute_s)
		return;
	st->warned = true;
	sap_warn(&L->site, "sync for touches %.0f%% of the rows it writes at every step, so its "
	         "reconnaissance slice only adds work, and so does the merge by rows it feeds "
	         "(%.2f s so far, against %.2f s in the body); write recon = off in its with (...) "
	         "(sap(7))",
	         100.0 * (double)st->touched / (double)st->offered, over, st->compute_s);
}

/* A mini-batch too small for its workers: each step's merge (and
 * slice) costs a fixed part, which dwarfs a body of a few microseconds,
 * and the loop runs slower than on one worker.  Said once a loop. */
static void steps_warn(const sap_loop *L, const sap_syncspec *spec, sap_sync_stats *st)
{
	double over = st->sync_s + st->recon_s;
	if (st->warned_steps || sap_cfg.quiet_plans || st->workers < 2 || over < 0.5 ||
	    over < 3 * st->compute_s)
		return;
	st->warned_steps = true;
	/* Under hybrid only ranks merge (helper GR: "its 4 workers" of 2
	 * ranks of 2 threads). */
	bool hy = spec->model == SAP_HYBRID;
	sap_warn(&L->site, "sync for has spent %.2f s so far merging its %d %s' steps, against "
	         "%.2f s in the body: mini-batches of %lld elements are too small for that many "
	         "%s, and %s or a larger batch would run faster (sap(7))", over,
	         hy ? sap_nranks() : st->workers, hy ? "ranks" : "workers", st->compute_s,
	         (long long)spec->batch, hy ? "ranks" : "workers",
	         hy ? "fewer ranks (more threads each)" : "fewer (--threads=1, fewer ranks)");
}

static void sync_for(sap_loop *L, int64_t n, const sap_syncspec *spec, void *env,
                     sap_body_fn body, const sap_reduce *r, void *red)
{
	L->invocations++;
	sap_sync_stats *st = stats_of(L, spec);
	int P = sap_nranks();
	const char *why = !spec->dense ? "the body writes something other than dvectors of numbers" :
	                  !spec->over || spec->over->n != n ? "the loop does not run over a dvector" :
	                  r && (!r->flat || r->nacc) ? "its reduce clause is not over numbers" : NULL;
	int T = why ? 1 : sap_threads();
	if (!why && P > 1)
		sap_comm_allreduce(&T, 1, SAP_COMM_INT, SAP_COMM_MIN);
	/* One worker needs no merging, unless by the program's function. */
	bool fn = false;
	for (int k = 0; k < spec->nwr; k++)
		fn |= spec->wr[k].merge == SAP_M_FN;
	bool split = !why && (P * T > 1 || fn);
	if (sap_cfg.dump_order || sap_cfg.run_order) {
		bool sparse = false;
		for (int k = 0; spec->slice && k < spec->nwr; k++)
			sparse |= spec->wr[k].sparse;
		sap_order_sync(L, split ? P : 1, split ? T : 1,
		               spec->model == SAP_HYBRID ? 2 :
		               spec->model == SAP_SSP && spec->staleness > 0 ? 1 : 0, sparse);
	}
	/* Every rank starts from every current value, but of the vector it
	 * runs over, which each rank runs its own elements of. */
	const sap_dvec **keep = sap_xmalloc((size_t)(spec->nwr + 1) * sizeof *keep);
	int nkeep = 0;
	if (split && P > 1) {
		/* Ranks run even shares: elements the load or an earlier loop
		 * left elsewhere come to them, or the vector is made whole. */
		if (spec->over && !spec->over_indexed && parts_even(spec->over)) {
			if (spec->over->holder)
				sap_dv_own_parts(spec->over);
			keep[nkeep++] = spec->over;
		}
		/* Not over, which the sparse path leaves (sap_sparse_open): kept
		 * in parts, it would be merged densely from parts. */
		for (int k = 0; spec->slice && k < spec->nwr; k++)
			if (spec->wr[k].sparse && spec->wr[k].dv != spec->over &&
			    !(spec->model == SAP_SSP && spec->staleness > 0))
				keep[nkeep++] = spec->wr[k].dv;
	}
	sap_whole_these(spec->uses, spec->nuses, keep, nkeep);
	free(keep);
	if (r)
		r->init(red);
	st->whole_why = P * sap_threads() > 1 ? why : NULL;
	if (!split) {
		sap_run x = { .L = L, .env = env, .body = body, .r = r, .T = 1, .V = 1 };
		double t0 = sap_now();
		for (int64_t b = 0; b < n; b += spec->batch) {
			int64_t e = n - b < spec->batch ? n : b + spec->batch;
			sap_exec_range(&x, b, e, red);
		}
		st->compute_s += sap_now() - t0;
		st->workers = 1;
		st->steps += (n + spec->batch - 1) / spec->batch;
		return;
	}
	sync_run s = { .spec = spec, .P = P, .T = T, .M = spec->batch, .st = st };
	s.x = (sap_run){ .L = L, .env = env, .body = body, .r = r, .T = T, .V = T };
	st->workers = P * T;
	run_split(&s, n, red);
	slice_warn(L, st);
	steps_warn(L, spec, st);
}

void sap_sync_for(sap_loop *L, int64_t n, const sap_syncspec *spec, void *env,
                  sap_body_fn body, const sap_reduce *r, void *red)
{
	sap_print_settle();
	/* Errors of the driver's values, which every rank meets: outside
	 * the loop, for rank 0 alone to report (sap_vfatal). */
	if (spec->batch <= 0)
		sap_fatal(&L->site, "sync for: batch must be positive, got %lld",
		          (long long)spec->batch);
	if (spec->model == SAP_SSP && spec->staleness < 0)
		sap_fatal(&L->site, "sync for: the staleness of ssp(s) must be 0 or more, got %lld",
		          (long long)spec->staleness);
	/* A batch past the elements is all of them, a step: start + batch
	 * overflowed for batch = LONG_MAX, "the whole share" (helper SY: on
	 * 2 workers no step ran, or a crash). */
	sap_syncspec all;
	if (spec->batch > n) {
		all = *spec;
		all.batch = n > 0 ? n : 1;
		spec = &all;
	}
	atomic_fetch_add(&sap_loops_running, 1);
	sync_for(L, n, spec, env, body, r, red);
	atomic_fetch_sub(&sap_loops_running, 1);
}

sap_list sap_sync_batch(const sap_dvec *over, const void *copy, const int64_t *idx, int64_t lo,
                        int64_t hi)
{
	int64_t n = hi - lo, first = idx ? idx[lo] : lo;
	bool runs = !copy;
	for (int64_t k = 1; idx && k < n && runs; k++)
		runs = idx[lo + k] == first + k;
	size_t sz = over->elsize;
	if (runs)
		return (sap_list){ (char *)over->data + (size_t)first * sz, n, 0 };
	const char *from = copy ? copy : over->data;
	sap_list b = { sap_xmalloc((size_t)n * sz + 1), n, n };
	for (int64_t k = 0; k < n; k++)
		memcpy((char *)b.v + (size_t)k * sz, from + (size_t)(idx ? idx[lo + k] : lo + k) * sz, sz);
	return b;
}

void sap_sync_batch_done(sap_list *b)
{
	if (b->cap)
		free(b->v);
}

int64_t sap_key_str(sap_str s) { return (int64_t)sap_fnv1a(sap_str_c(s)); }
