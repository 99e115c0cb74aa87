/* relaxed.c: the worker views of relaxed(+: D).
 *
 * The body reads and adds to D through a view: D's own elements when one
 * worker runs the invocation (exactly the serial loop), else a copy per
 * worker, taken at the start of a round.  At the end of every round the
 * views are added into D in global worker order (the ranks in order, each
 * rank's workers in order, as on one rank of P x T workers):
 *
 *     D' = view_0 + (view_1 - D) + (view_2 - D) + ...
 *
 * scalar by scalar, a view whose scalar has D's bits adding nothing (so
 * an untouched infinity stays one, and -0 stays -0).  Every rank then
 * holds D', and every view starts the next round as a copy of it.  The
 * result depends on the workers and the plan only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

static void **view_at(const sap_run *x, int w, int i)
{
	return (void **)((char *)sap_run_red(x, w) + x->r->rel[i].off);
}

void sap_rel_direct(const sap_reduce *r, void *red)
{
	for (int i = 0; r && i < r->nrel; i++) {
		sap_dvec *v = r->rel[i].dv;
		/* Every element, current on every rank: collective, as the
		 * loop is. */
		sap_dv_every(v, NULL);
		void *d = v->data;
		memcpy((char *)red + r->rel[i].off, &d, sizeof d);
	}
}

/* The threads a pass over bytes of every view takes: the pool's, when
 * it is large and no job is running. */
static int pass_threads(const sap_run *x, size_t bytes)
{
	return bytes * (size_t)x->V >= SAP_PAR_BYTES && sap_pool_free() ? x->T : 1;
}

/* A pass over the relaxed vectors (open's copy, close's fold) on T
 * threads. */
typedef struct pass_job {
	const sap_run *x;
	int T;
} pass_job;

/* The bytes of x's relaxed vectors. */
static size_t rel_bytes(const sap_run *x)
{
	size_t bytes = 0;
	for (int i = 0; i < x->r->nrel; i++)
		bytes += (size_t)x->r->rel[i].dv->n * x->r->rel[i].dv->elsize;
	return bytes;
}

/* Thread w's share of every relaxed vector, copied into every view. */
static void open_part(void *arg, int w)
{
	const pass_job *j = arg;
	for (int i = 0; i < j->x->r->nrel; i++) {
		const sap_dvec *v = j->x->r->rel[i].dv;
		size_t a = (size_t)sap_chunk(0, v->n, j->T, w) * v->elsize;
		size_t b = (size_t)sap_chunk(0, v->n, j->T, w + 1) * v->elsize;
		for (int k = 0; k < j->x->V; k++)
			memcpy((char *)*view_at(j->x, k, i) + a, v->data + a, b - a);
	}
}

void sap_rel_open(const sap_run *x)
{
	if (!x->r || !x->reds || !x->r->nrel)
		return;
	for (int i = 0; i < x->r->nrel; i++) {
		const sap_dvec *v = x->r->rel[i].dv;
		for (int w = 0; w < x->V; w++)
			*view_at(x, w, i) = sap_acc_take(v->n, v->elsize);
	}
	pass_job j = { x, pass_threads(x, rel_bytes(x)) };
	sap_pool_run(j.T, open_part, &j);
}

/* out[k] += v[k] - d[k] for the n scalars of one kind whose bits differ. */
#define ADD_RUN(T)                                                              \
	static void add_##T(void *vo, const void *vv, const void *vd, int64_t n)    \
	{                                                                       \
		T *o = vo;                                                      \
		const T *v = vv, *d = vd;                                       \
		for (int64_t k = 0; k < n; k++)                                 \
			if (memcmp(&v[k], &d[k], sizeof(T)))                    \
				o[k] += v[k] - d[k];                            \
	}
ADD_RUN(float)
ADD_RUN(double)
ADD_RUN(int32_t)
ADD_RUN(int64_t)

static void add_run(sap_scalar s, void *o, const void *v, const void *d, int64_t n)
{
	switch (s) {
	case SAP_S_FLOAT: add_float(o, v, d, n); break;
	case SAP_S_DOUBLE: add_double(o, v, d, n); break;
	case SAP_S_INT: add_int32_t(o, v, d, n); break;
	case SAP_S_LONG: add_int64_t(o, v, d, n); break;
	}
}

/* add_run where the scalars may sit at any address, as a packed struct's
 * do (SAP_PACKED): through aligned copies, 16 at a time. */
static void add_run_at(sap_scalar s, void *o, const void *v, const void *d, int64_t n)
{
	size_t sz = sap_scalar_size(s);
	if ((((uintptr_t)o | (uintptr_t)v | (uintptr_t)d) & (sz - 1)) == 0) {
		add_run(s, o, v, d, n);
		return;
	}
	double to[16], tv[16], td[16];
	for (int64_t i = 0; i < n; i += 16) {
		size_t off = (size_t)i * sz, bytes = (size_t)(n - i < 16 ? n - i : 16) * sz;
		memcpy(to, (char *)o + off, bytes);
		memcpy(tv, (const char *)v + off, bytes);
		memcpy(td, (const char *)d + off, bytes);
		add_run(s, to, tv, td, (int64_t)(bytes / sz));
		memcpy((char *)o + off, to, bytes);
	}
}

/* add_run on n ints whose sums c checks for range; at any address. */
static void add_checked(const sap_sumcheck *c, void *o, const void *v, const void *d, int64_t n)
{
	for (int64_t k = 0; k < n; k++) {
		int32_t x, y, z;
		memcpy(&x, (char *)o + 4 * k, 4);
		memcpy(&y, (const char *)v + 4 * k, 4);
		memcpy(&z, (const char *)d + 4 * k, 4);
		int64_t r = (int64_t)x + ((int64_t)y - z);
		if (r != (int32_t)r)
			sap_sum_range(c, r);
		x = (int32_t)r;
		memcpy((char *)o + 4 * k, &x, 4);
	}
}

/* out (elements e0 .. e1 of D) += view - D, run by run of t's scalars. */
static void add_view(const sap_numtype *t, char *out, const char *view, const char *d,
                     int64_t e0, int64_t e1)
{
	size_t at = (size_t)e0 * t->size;
	if (t->check) {
		for (int64_t e = e0; e < e1; e++, at += t->size, out += t->size)
			for (int k = 0; k < t->nf; k++) {
				const sap_numfield *f = &t->f[k];
				if (f->kind == SAP_S_INT)
					add_checked(t->check, out + f->off, view + at + f->off,
					            d + at + f->off, f->n);
				else
					add_run_at(f->kind, out + f->off, view + at + f->off,
					           d + at + f->off, f->n);
			}
		return;
	}
	if (sap_nt_flat(t)) {
		add_run(t->f[0].kind, out, view + at, d + at, (e1 - e0) * t->f[0].n);
		return;
	}
	for (int64_t e = e0; e < e1; e++, at += t->size, out += t->size)
		for (int k = 0; k < t->nf; k++) {
			const sap_numfield *f = &t->f[k];
			add_run_at(f->kind, out + f->off, view + at + f->off, d + at + f->off, f->n);
		}
}

typedef struct fold_job {
	const sap_run *x;
	int i;                  /* the relaxed vector */
	char *into;             /* the sum of elements base .. */
	int64_t base;
} fold_job;

/* Elements [e0, e1) of the sum: pre's (the workers before this rank's),
 * or the first worker's view; then every other worker's change. */
static void fold_piece(void *arg, int64_t e0, int64_t e1, const void *pre)
{
	fold_job *j = arg;
	const sap_relaxed *rl = &j->x->r->rel[j->i];
	size_t es = rl->dv->elsize;
	char *out = j->into + (size_t)(e0 - j->base) * es;
	int w = 0;
	if (pre) {
		memcpy(out, pre, (size_t)(e1 - e0) * es);
	} else {
		memcpy(out, (char *)*view_at(j->x, 0, j->i) + (size_t)e0 * es, (size_t)(e1 - e0) * es);
		w = 1;
	}
	for (; w < j->x->V; w++)
		add_view(rl->num, out, *view_at(j->x, w, j->i), rl->dv->data, e0, e1);
}

/* D's elements [e0, e1) become the sum, and every view's too unless
 * this is the last fold, after which the views go. */
static void renew(const sap_run *x, int i, const char *sum, int64_t e0, int64_t e1, bool last)
{
	sap_dvec *v = x->r->rel[i].dv;
	size_t es = v->elsize, off = (size_t)e0 * es, bytes = (size_t)(e1 - e0) * es;
	memcpy(v->data + off, sum, bytes);
	for (int w = 0; w < x->V && !last; w++)
		memcpy((char *)*view_at(x, w, i) + off, sum, bytes);
}

/* Elements at a time, so that the sum stays in cache. */
enum { PIECE = 4096 };

static void fold(const sap_run *x, int t, int nt, bool last)
{
	for (int i = 0; i < x->r->nrel; i++) {
		const sap_dvec *v = x->r->rel[i].dv;
		int64_t lo = sap_chunk(0, v->n, nt, t), hi = sap_chunk(0, v->n, nt, t + 1);
		if (lo >= hi)
			continue;
		char *sum = sap_xmalloc((size_t)PIECE * v->elsize);
		for (int64_t e0 = lo; e0 < hi; e0 += PIECE) {
			int64_t e1 = hi - e0 < PIECE ? hi : e0 + PIECE;
			fold_job j = { x, i, sum, e0 };
			fold_piece(&j, e0, e1, NULL);
			renew(x, i, sum, e0, e1, last);
		}
		free(sum);
	}
}

void sap_rel_fold(const sap_run *x, int t, int nt)
{
	if (x->r && x->reds)
		fold(x, t, nt, false);
}

static void close_part(void *arg, int w)
{
	const pass_job *j = arg;
	fold(j->x, w, j->T, true);
}

/* ---- few changes: the changed blocks to every rank ----
 *
 * A round that changes few elements of D (k-core's degrees of a few
 * neighbours, a round of a plan with hundreds) would still carry all of
 * D along the chain.  Each worker's blocks that differ from D then go to
 * every rank, which folds them in global worker order onto D: the first
 * worker's block replaces D's, as its view does in fold_piece, and every
 * other worker's adds its change by add_view; a block a worker left as
 * it was adds nothing there either.  So the sums are the chain's, bit for
 * bit.  Whether the blocks are few enough is decided from every rank's
 * count, the same on all. */
enum { REL_BLOCK = 512 };

/* This rank's workers' blocks of view i that differ from D, packed as
 * [count, then (block, bytes) per block] per worker into *out (NULL to
 * count only); the bytes, or more than limit once past it. */
static int64_t changed_blocks(const sap_run *x, int i, int64_t be, int64_t limit, char *out)
{
	const sap_dvec *v = x->r->rel[i].dv;
	size_t es = v->elsize;
	int64_t n = v->n, nb = (n + be - 1) / be, bytes = 0;
	for (int w = 0; w < x->V && bytes <= limit; w++) {
		const char *view = *view_at(x, w, i);
		char *count = out ? out + bytes : NULL;
		int64_t c = 0;
		bytes += (int64_t)sizeof c;
		for (int64_t k = 0; k < nb && bytes <= limit; k++) {
			int64_t e0 = k * be, e1 = e0 + be < n ? e0 + be : n;
			size_t off = (size_t)e0 * es, len = (size_t)(e1 - e0) * es;
			if (!memcmp(view + off, v->data + off, len))
				continue;
			if (out) {
				memcpy(out + bytes, &k, sizeof k);
				memcpy(out + bytes + sizeof k, view + off, len);
			}
			bytes += (int64_t)(sizeof k + len);
			c++;
		}
		if (count)
			memcpy(count, &c, sizeof c);
	}
	return bytes;
}

/* fold_ranks for relaxed vector i by its changed blocks, when they are
 * fewer bytes than D; false, nothing done, otherwise, on every rank
 * alike. */
static bool fold_sparse(const sap_run *x, int i, sap_dist_stats *stats, bool last)
{
	sap_dvec *v = x->r->rel[i].dv;
	size_t es = v->elsize;
	int64_t n = v->n, whole = n * (int64_t)es;
	int64_t be = es >= REL_BLOCK ? 1 : (int64_t)(REL_BLOCK / es), nb = (n + be - 1) / be;
	int64_t mine = changed_blocks(x, i, be, whole, NULL), total = mine;
	int P = sap_nranks();
	sap_comm_allreduce(&total, 1, SAP_COMM_I64, SAP_COMM_SUM);
	if (total > whole || !sap_comm_fits(total))
		return false;
	char *out = sap_xmalloc((size_t)mine + 1), *in = sap_xmalloc((size_t)total + 1);
	changed_blocks(x, i, be, whole, out);
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	sap_comm_counts(mine, cnt, dis);
	sap_comm_allgatherv(out, mine, in, cnt, dis, 1);
	stats->sent += mine * (P - 1);
	stats->received += total - mine;
	/* Only the blocks a worker changed are summed, each from D's, or the
	 * first worker's, when first met: not a copy of all of D a round. */
	char *sum = sap_xmalloc((size_t)whole + 1);
	unsigned char *hit = sap_xcalloc((size_t)nb + 1, 1);
	const char *p = in, *end = in + total;
	for (int64_t w = 0; p < end; w++) {
		int64_t c;
		memcpy(&c, p, sizeof c);
		p += sizeof c;
		for (int64_t b = 0; b < c; b++) {
			int64_t k;
			memcpy(&k, p, sizeof k);
			p += sizeof k;
			int64_t e0 = k * be, e1 = e0 + be < n ? e0 + be : n;
			size_t off = (size_t)e0 * es, len = (size_t)(e1 - e0) * es;
			if (w == 0 || !hit[k])
				memcpy(sum + off, w == 0 ? p : v->data + off, len);
			if (w > 0)
				add_view(x->r->rel[i].num, sum + off, p, v->data + off, 0, e1 - e0);
			hit[k] = 1;
			p += (size_t)(e1 - e0) * es;
		}
	}
	for (int64_t k = 0; k < nb; k++)
		if (hit[k]) {
			int64_t e0 = k * be, e1 = e0 + be < n ? e0 + be : n;
			renew(x, i, sum + (size_t)e0 * es, e0, e1, last);
		}
	free(hit);
	free(sum);
	free(out);
	free(in);
	free(cnt);
	free(dis);
	return true;
}

static void fold_ranks(const sap_run *x, sap_dist_stats *stats, bool last)
{
	for (int i = 0; i < x->r->nrel; i++) {
		const sap_dvec *v = x->r->rel[i].dv;
		if (fold_sparse(x, i, stats, last))
			continue;
		char *sum = sap_xmalloc((size_t)v->n * v->elsize);
		fold_job j = { x, i, sum, 0 };
		sap_chain_sum(sum, v->n, v->elsize, true, fold_piece, &j, stats);
		renew(x, i, sum, 0, v->n, last);
		free(sum);
	}
}

void sap_rel_fold_ranks(const sap_run *x, sap_dist_stats *stats)
{
	if (x->r && x->reds)
		fold_ranks(x, stats, false);
}

void sap_rel_close(const sap_run *x, bool ranks, sap_dist_stats *stats)
{
	if (!x->r || !x->reds || !x->r->nrel)
		return;
	if (ranks) {
		fold_ranks(x, stats, true);
	} else {
		pass_job j = { x, pass_threads(x, rel_bytes(x)) };
		sap_pool_run(j.T, close_part, &j);
	}
	for (int i = 0; i < x->r->nrel; i++)
		for (int w = 0; w < x->V; w++) {
			sap_acc_free(*view_at(x, w, i));
			*view_at(x, w, i) = NULL;
		}
}
