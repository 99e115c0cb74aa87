/* recon.c: reconnaissance, running the slice a compiler emitted for an
 * async loop to learn which keys of the DDSs it writes each iteration
 * touches.
 *
 * For planning only the blocks of the keys matter, so an iteration's
 * accesses become one 64-bit mask: eight bytes per iteration and no
 * allocation while the slice runs.  The full list of keys is needed only
 * to lock keys and to check a plan, which log them (sap_recon_log).
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* Granules of up to GRANULE_BYTES, but at least GRANULES per block, or a
 * hash of too few granules would balance the blocks poorly.  Rows of one
 * worker interleaved with another's would share the cache lines at their
 * ends, and the adjacent lines that the hardware prefetches, with the
 * other worker, which is writing them; and on several ranks, the pages
 * that hold them, which then take memory on both (sap_dv_trim): granules
 * of many pages share few. */
enum { GRANULE_BYTES = 65536, GRANULES = 256 };

/* Fine blocks per block: enough that dealing them out evens the load,
 * few enough that masks stay few and planning cheap. */
enum { FINE = 8 };

static uint32_t granule_shift(const sap_dvec *v, int B)
{
	uint32_t s = 0;
	while (s < 30 && (v->elsize << (s + 1)) <= GRANULE_BYTES &&
	       (v->n >> (s + 1)) >= (int64_t)GRANULES * B)
		s++;
	return s;
}

bool sap_layout_make(sap_layout *ly, const sap_async_spec *spec, int T, int blocks)
{
	ly->ndds = spec->ndds;
	ly->d = sap_xcalloc((size_t)(spec->ndds ? spec->ndds : 1), sizeof *ly->d);
	ly->nparts = 0;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if ((d->mode & SAP_WRITE) && !d->accumulate)
			ly->nparts++;
	}
	ly->B = 0;
	if (ly->nparts > 64)
		return false;
	int B = blocks > 0 ? blocks : T;
	if (ly->nparts && B > 64 / ly->nparts)
		B = 64 / ly->nparts;
	ly->B = B < 1 ? 1 : B;
	ly->F = ly->B;
	if (ly->B > 1) {
		ly->F = FINE * ly->B;
		if (ly->nparts && ly->F > 64 / ly->nparts)
			ly->F = 64 / ly->nparts;
	}
	int part = 0;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!(d->mode & SAP_WRITE) || d->accumulate)
			continue;
		sap_rec_dds *rd = &ly->d[k];
		ly->bytes[part] = d->dv ? (double)d->dv->n * (double)d->dv->elsize :
		                  d->dm ? (double)sap_dm_size(d->dm) : 0;
		rd->base = (uint32_t)(part++ * ly->F);
		rd->nblk = (uint32_t)ly->F;
		rd->max = UINT64_MAX;
		if (d->dv) {
			/* An empty dvector has no key to conflict on. */
			if (d->dv->n == 0)
				rd->nblk = 0;
			rd->max = (uint64_t)d->dv->n - 1;
			rd->shift = granule_shift(d->dv, ly->B);
		}
	}
	return true;
}

void sap_layout_free(sap_layout *ly)
{
	free(ly->d);
	ly->d = NULL;
}

static inline int64_t affine_key(const sap_affine *a, int64_t i)
{
	/* Wrapping arithmetic: an overflowing key is out of range anyway. */
	return (int64_t)((uint64_t)a->a * (uint64_t)i + (uint64_t)a->b);
}

/* ---- masks ---- */

/* Iterations sliced at a time: their masks stay in L1 for the sink. */
enum { SUB = 2048 };

typedef struct mask_job {
	const sap_async_spec *spec;
	const sap_layout *ly;
	void *env;
	int64_t lo, hi;
	int T;
	sap_mask_sink sink;
	void *arg;
	double *slice_s;        /* per worker */
} mask_job;

static void mask_worker(void *arg, int w)
{
	mask_job *j = arg;
	int64_t a = sap_chunk(j->lo, j->hi, j->T, w), b = sap_chunk(j->lo, j->hi, j->T, w + 1);
	uint64_t m[SUB];
	double spent = 0;
	for (int64_t s = a; s < b; s += SUB) {
		int64_t e = b - s < SUB ? b : s + SUB;
		double t0 = sap_now();
		memset(m, 0, (size_t)(e - s) * sizeof *m);
		if (j->spec->slice) {
			sap_rec r = { .masks = m, .lo = s, .n = e - s, .d = j->ly->d };
			r.mask = &r.sink;
			j->spec->slice(j->env, NULL, s, e, &r);
		}
		for (int k = 0; k < j->spec->naffine; k++) {
			const sap_affine *af = &j->spec->affine[k];
			const sap_rec_dds *d = &j->ly->d[af->dds];
			if (!d->nblk)
				continue;
			for (int64_t i = s; i < e; i++) {
				int64_t key = affine_key(af, i);
				if ((uint64_t)key <= d->max)
					m[i - s] |= sap_rec_bit(d, key);
			}
		}
		spent += sap_now() - t0;
		j->sink(j->arg, w, s, m, e - s);
	}
	j->slice_s[w] = spent;
}

double sap_recon(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                 int64_t hi, int T, sap_mask_sink sink, void *arg)
{
	double *spent = sap_xcalloc((size_t)T, sizeof *spent);
	mask_job j = { spec, ly, env, lo, hi, T, sink, arg, spent };
	sap_pool_run(T, mask_worker, &j);
	double mx = 0;
	for (int w = 0; w < T; w++)
		mx = spent[w] > mx ? spent[w] : mx;
	free(spent);
	return mx;
}

typedef struct copy_to {
	uint64_t *masks;
	int64_t lo;
} copy_to;

static void copy_sink(void *arg, int w, int64_t first, const uint64_t *m, int64_t n)
{
	(void)w;
	copy_to *c = arg;
	memcpy(c->masks + (first - c->lo), m, (size_t)n * sizeof *m);
}

void sap_recon_masks(const sap_async_spec *spec, const sap_layout *ly, void *env,
                     int64_t lo, int64_t hi, uint64_t *masks, int T)
{
	copy_to c = { masks, lo };
	sap_recon(spec, ly, env, lo, hi, T, copy_sink, &c);
}

/* ---- key logs ---- */

static void push(sap_keylog *lg, int64_t i, int dds, int64_t key, int mode)
{
	if (lg->n == lg->cap) {
		lg->cap = lg->cap ? 2 * lg->cap : 1024;
		lg->v = sap_xrealloc(lg->v, (size_t)lg->cap * sizeof *lg->v);
	}
	lg->v[lg->n++] = (sap_access){ i, key, dds, mode };
}

/* r->logbuf during one run of consecutive iterations. */
typedef struct run_log {
	sap_keylog keys;
	int64_t lo, hi;
} run_log;

static void log_key(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	const sap_rec_dds *d = &r->d[dds];
	run_log *rl = r->logbuf;
	if (d->nblk && (uint64_t)key <= d->max && r->i >= rl->lo && r->i < rl->hi)
		push(&rl->keys, r->i, dds, key, (int)mode);
}

typedef struct log_job {
	const sap_async_spec *spec;
	const sap_layout *ly;
	void *env;
	const int64_t *idx;
	int64_t n;
	int T;
	sap_keylog *out;        /* per worker */
} log_job;

static void log_worker(void *arg, int w)
{
	log_job *j = arg;
	int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
	sap_keylog *out = &j->out[w];
	run_log rl = { 0 };
	sap_rec r = { .d = j->ly->d, .log = log_key, .logbuf = &rl };
	r.mask = &r.sink;
	while (a < b) {
		/* The slice takes a range: one call per run of consecutive
		 * iterations. */
		int64_t e = a + 1;
		while (e < b && j->idx[e] == j->idx[e - 1] + 1)
			e++;
		rl.lo = j->idx[a];
		rl.hi = j->idx[e - 1] + 1;
		rl.keys.n = 0;
		if (j->spec->slice)
			j->spec->slice(j->env, j->idx, a, e, &r);
		/* Merge the slice's keys with the affine ones, iteration by
		 * iteration, so that each iteration's keys are together. */
		int64_t s = 0;
		for (int64_t i = rl.lo; i < rl.hi; i++) {
			while (s < rl.keys.n && rl.keys.v[s].i == i) {
				const sap_access *x = &rl.keys.v[s++];
				push(out, x->i, x->dds, x->key, x->mode);
			}
			for (int k = 0; k < j->spec->naffine; k++) {
				const sap_affine *af = &j->spec->affine[k];
				const sap_rec_dds *d = &j->ly->d[af->dds];
				int64_t key = affine_key(af, i);
				if (d->nblk && (uint64_t)key <= d->max)
					push(out, i, af->dds, key, (int)af->mode);
			}
		}
		if (s < rl.keys.n)
			sap_fatal(NULL, "internal error: a reconnaissance slice recorded "
			          "iteration %lld out of order", (long long)rl.keys.v[s].i);
		a = e;
	}
	sap_keylog_free(&rl.keys);
}

void sap_recon_log(const sap_async_spec *spec, const sap_layout *ly, void *env,
                   const int64_t *idx, int64_t n, sap_keylog *log, int T)
{
	sap_keylog *out = sap_xcalloc((size_t)T, sizeof *out);
	log_job j = { spec, ly, env, idx, n, T, out };
	sap_pool_run(T, log_worker, &j);
	for (int w = 0; w < T; w++) {
		for (int64_t k = 0; k < out[w].n; k++) {
			const sap_access *x = &out[w].v[k];
			push(log, x->i, x->dds, x->key, x->mode);
		}
		sap_keylog_free(&out[w]);
	}
	free(out);
}

void sap_keylog_free(sap_keylog *log)
{
	free(log->v);
	log->v = NULL;
	log->n = log->cap = 0;
}

/* ---- written keys as bitmaps ---- */

typedef struct mark_to {
	uint64_t **bits;
	uint64_t **touched;     /* or NULL */
	int64_t lo, hi;         /* the run being sliced */
} mark_to;

static inline void mark(uint64_t **bits, int dds, int64_t key)
{
	bits[dds][(uint64_t)key / 64] |= (uint64_t)1 << ((uint64_t)key % 64);
}

static void mark_key(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	const sap_rec_dds *d = &r->d[dds];
	mark_to *m = r->logbuf;
	if (!m->bits[dds] || !d->nblk || (uint64_t)key > d->max || r->i < m->lo || r->i >= m->hi)
		return;
	if (mode & SAP_WRITE)
		mark(m->bits, dds, key);
	if (m->touched)
		mark(m->touched, dds, key);
}

void sap_recon_mark(const sap_async_spec *spec, const sap_layout *ly, void *env,
                    const int64_t *idx, int64_t n, uint64_t **bits, uint64_t **touched)
{
	mark_to m = { bits, touched, 0, 0 };
	sap_rec r = { .d = ly->d, .log = mark_key, .logbuf = &m };
	r.mask = &r.sink;
	for (int64_t a = 0; a < n;) {
		int64_t e = a + 1;
		while (e < n && idx[e] == idx[e - 1] + 1)
			e++;
		m.lo = idx[a];
		m.hi = idx[e - 1] + 1;
		if (spec->slice)
			spec->slice(env, idx, a, e, &r);
		for (int k = 0; k < spec->naffine; k++) {
			const sap_affine *af = &spec->affine[k];
			const sap_rec_dds *d = &ly->d[af->dds];
			if (!bits[af->dds] || !d->nblk)
				continue;
			for (int64_t i = m.lo; i < m.hi; i++) {
				int64_t key = affine_key(af, i);
				if ((uint64_t)key > d->max)
					continue;
				if (af->mode & SAP_WRITE)
					mark(bits, af->dds, key);
				if (touched)
					mark(touched, af->dds, key);
			}
		}
		a = e;
	}
}
