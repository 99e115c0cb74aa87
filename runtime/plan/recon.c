/* recon.c: reconnaissance, running the slice a compiler emitted for an
 * async loop to learn which keys of the DDSs it writes each iteration
 * touches.
 *
 * For planning only the blocks of the keys matter, so an iteration's
 * accesses become one 64-bit mask: eight bytes per iteration and no
 * allocation while the slice runs.  The full list of keys is needed only
 * to lock keys and to check a plan, which log them (sap_recon_log).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* A dvector's keys fall into at most this many granules, the unit of the
 * table that maps them to blocks: 64 KiB of table per DDS, which stays
 * in cache while the slice runs. */
enum { GRANULES = 65536 };

/* Fine blocks per block: enough that dealing them out evens the load,
 * few enough that masks stay few and planning cheap. */
enum { FINE = 8 };

/* Iterations whose keys are sampled to weigh the granules: SAMPLE_PER
 * per fine block (a block's weight then errs by a few percent), at
 * least SAMPLE_MIN, at most SAMPLE, and at most a quarter of them. */
enum { SAMPLE_PER = 1024, SAMPLE_MIN = 8192, SAMPLE = 65536 };

/* Is every access of written DDS k the iteration's own key a i + b? */
static bool own_key(const sap_async_spec *spec, int k)
{
	const sap_dds *d = &spec->dds[k];
	if (!d->no_slice || !d->dv)
		return false;
	const sap_affine *first = NULL;
	for (int q = 0; q < spec->naffine; q++) {
		const sap_affine *a = &spec->affine[q];
		if (a->dds != k)
			continue;
		if (!first)
			first = a;
		if (a->a != first->a || a->b != first->b)
			return false;
	}
	return first && first->a != 0;
}

/* The keys an iteration has just recorded, by a hash of the key: a body
 * that walks a few keys over and over (TD(lambda) updates a run's 19
 * values at every step of a random walk) records each at every step,
 * 170 M keys for 3,000 iterations that touch 57,000, and weighing and
 * logging them took 2.1 s and 800 MB against 0.18 s of body.  A key
 * met again in the same iteration is the same conflict: kept once. */
enum { SEEN = 256, SEEN_MAX = 1 << 16 };
typedef struct seen_slot {
	int64_t i, key;
	int64_t at;             /* its entry in the log (log_key) */
	int32_t dds;            /* -1: empty */
} seen_slot;

/* The slots, SEEN at first; an iteration whose keys do not fit (an RNN
 * step reading the last step's 64 units for each of its own 64, 12,800
 * keys an iteration) makes it grow, up to SEEN_MAX: at 256, 13 M records
 * went through 16 probes each to the log, 1.8 s of planning for a loop
 * of 16 iterations. */
typedef struct seen_tab {
	seen_slot *v;
	uint64_t mask;
	int64_t i, misses;      /* slots not found in iteration i */
} seen_tab;

static void seen_make(seen_tab *t, uint64_t n)
{
	free(t->v);
	t->v = sap_xmalloc((size_t)n * sizeof *t->v);
	for (uint64_t k = 0; k < n; k++)
		t->v[k].dds = -1;
	t->mask = n - 1;
	t->misses = 0;
}

/* The slot of (dds, key) in iteration i: the one holding it, else a free
 * one (empty, or another iteration's) to take; NULL when the few probed
 * are all taken by the iteration's other keys. */
static inline seen_slot *seen_at(seen_tab *t, int64_t i, int dds, int64_t key)
{
	uint64_t h = ((uint64_t)key * 0x9e3779b97f4a7c15ULL ^ (uint64_t)dds * 0xff51afd7ed558ccdULL) >> 32;
	for (int p = 0; p < 16; p++) {
		seen_slot *z = &t->v[(h + (uint64_t)p) & t->mask];
		if (z->dds < 0 || z->i != i || (z->key == key && z->dds == dds))
			return z;
	}
	if (t->i != i) {
		t->i = i;
		t->misses = 0;
	}
	/* The keys met so far in i are forgotten: a few kept twice. */
	if (++t->misses > (int64_t)(t->mask + 1) / 8 && t->mask + 1 < SEEN_MAX)
		seen_make(t, 4 * (t->mask + 1));
	return NULL;
}

static inline bool seen_hit(const seen_slot *z, int64_t i, int dds, int64_t key)
{
	return z && z->dds == dds && z->i == i && z->key == key;
}

static inline int64_t affine_key(const sap_affine *a, int64_t i)
{
	/* Wrapping arithmetic: an overflowing key is out of range anyway. */
	return (int64_t)((uint64_t)a->a * (uint64_t)i + (uint64_t)a->b);
}

/* The granule table of the cuts of d, a dvector of n keys. */
static void fill_table(const sap_rec_dds *d, uint8_t *tab, int64_t n)
{
	int64_t ng = (int64_t)(d->max >> d->shift) + 1;
	uint32_t b = 0;
	for (int64_t g = 0; g < ng; g++) {
		int64_t first = g << d->shift, last = ((g + 1) << d->shift) - 1;
		if (last > n - 1)
			last = n - 1;
		while (b + 1 < d->nblk && d->cut[b + 1] <= first)
			b++;
		tab[g] = b + 1 < d->nblk && d->cut[b + 1] <= last ? SAP_SPLIT : (uint8_t)b;
	}
}

bool sap_layout_make(sap_layout *ly, const sap_async_spec *spec, int T, int blocks)
{
	memset(ly, 0, sizeof *ly);
	ly->missing = sap_xcalloc(1, sizeof *ly->missing);
	ly->ndds = spec->ndds;
	ly->d = sap_xcalloc((size_t)spec->ndds, sizeof *ly->d);
	ly->tabs = sap_xcalloc((size_t)spec->ndds, sizeof *ly->tabs);
	ly->cuts = sap_xcalloc((size_t)spec->ndds, sizeof *ly->cuts);
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if ((d->mode & SAP_WRITE) && !d->accumulate && !own_key(spec, k))
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
		sap_rec_dds *rd = &ly->d[k];
		/* Every DDS's, for the bound of its keys (sap_recon). */
		rd->max = d->dv ? (uint64_t)d->dv->n - 1 : UINT64_MAX;
		if (!(d->mode & SAP_WRITE) || d->accumulate)
			continue;
		if (own_key(spec, k)) {
			rd->own = true;
			rd->nblk = d->dv->n > 0;
			continue;
		}
		ly->part[part] = k;
		ly->bytes[part] = d->dv ? (double)d->dv->n * (double)d->dv->elsize :
		                  d->dm ? (double)sap_dm_size(d->dm) : 0;
		rd->base = (uint32_t)(part++ * ly->F);
		rd->nblk = (uint32_t)ly->F;
		if (d->dv) {
			/* An empty dvector has no key to conflict on. */
			if (d->dv->n == 0) {
				rd->nblk = 0;
				continue;
			}
			while ((rd->max >> rd->shift) + 1 > GRANULES)
				rd->shift++;
			int64_t ng = (int64_t)(rd->max >> rd->shift) + 1;
			ly->tabs[k] = sap_xmalloc((size_t)ng);
			ly->cuts[k] = sap_xmalloc(((size_t)ly->F + 1) * sizeof **ly->cuts);
			for (int b = 0; b <= ly->F; b++)
				ly->cuts[k][b] = (int64_t)((unsigned __int128)b * (uint64_t)d->dv->n / (uint64_t)ly->F);
			rd->tab = ly->tabs[k];
			rd->cut = ly->cuts[k];
			fill_table(rd, ly->tabs[k], d->dv->n);
		}
	}
	return true;
}

/* Cut keys 0 .. n - 1 into F contiguous blocks of about equal weight, a
 * key's weight being its count among the sampled keys key[0 .. m)
 * (ascending) plus an even prior: each block takes keys until it has
 * its share of what is left, so a key heavier than a share is a block of
 * its own and the rest is shared evenly by the blocks after it. */
static void cut_keys(int64_t *cut, int F, int64_t n, const int64_t *key, int64_t m)
{
	/* A fifth of the weight spread evenly: keys the sample missed are
	 * not all free. */
	double prior = (double)m / (4.0 * (double)n);
	double left = (double)m + prior * (double)n;
	int64_t k = 0, q = 0;
	cut[0] = 0;
	for (int b = 0; b < F - 1; b++) {
		double share = left / (F - b), have = 0;
		/* Leave a key for each block after this one, when there are. */
		int64_t last = n - (F - 1 - b);
		while (k < n && k < last) {
			int64_t next = q < m ? key[q] : n;
			/* The keys before the next sampled one weigh the prior. */
			if (next > k) {
				double gap = prior * (double)(next - k);
				if (have + gap >= share) {
					int64_t take = (int64_t)ceil((share - have) / prior);
					take = take < 1 ? 1 : take;
					take = take > last - k ? last - k : take;
					have += prior * (double)take;
					k += take;
					break;
				}
				int64_t stop = next < last ? next : last;
				have += prior * (double)(stop - k);
				k = stop;
				continue;
			}
			int64_t c = 0;
			while (q < m && key[q] == k) {
				c++;
				q++;
			}
			double w = (double)c + prior;
			/* Stop before a key that overshoots the share by more than
			 * the block falls short without it. */
			if (have > 0 && have + w - share > share - have) {
				q -= c;
				break;
			}
			have += w;
			k++;
			if (have >= share)
				break;
		}
		cut[b + 1] = k;
		left -= have;
	}
	cut[F] = n;
}

/* The keys of the parts that the sampled iterations idx[0 .. m) touch:
 * each key of each access, read or written, as a unit of weight; part
 * p's keys together, cnt[p] of them, nk in all.  Only the keys are kept,
 * not the iterations or modes of a key log: a sample's slicing is most of
 * what planning a loop the first time costs. */
typedef struct weigh_buf {
	int64_t *v[64];
	int64_t n[64], cap[64];
	int64_t lo, hi;         /* the run being sliced */
	const int *part_of;     /* per DDS: its part, or -1 */
	seen_tab seen;
} weigh_buf;

static void weigh_push(weigh_buf *wb, int p, int64_t key)
{
	if (wb->n[p] == wb->cap[p]) {
		wb->cap[p] = wb->cap[p] ? 2 * wb->cap[p] : 4096;
		wb->v[p] = sap_xrealloc(wb->v[p], (size_t)wb->cap[p] * sizeof *wb->v[p]);
	}
	wb->v[p][wb->n[p]++] = key;
}

static void weigh_key(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	(void)mode;
	weigh_buf *wb = r->logbuf;
	int p = wb->part_of[dds];
	if (p < 0 || (uint64_t)key > r->d[dds].max || r->i < wb->lo || r->i >= wb->hi)
		return;
	seen_slot *z = seen_at(&wb->seen, r->i, dds, key);
	if (seen_hit(z, r->i, dds, key))
		return;
	if (z)
		*z = (seen_slot){ r->i, key, 0, dds };
	weigh_push(wb, p, key);
}

typedef struct weigh_job {
	const sap_async_spec *spec;
	const sap_layout *ly;
	void *env;
	const int64_t *idx;
	int64_t n;
	int T;
	const int *part_of;
	weigh_buf *out;         /* per worker */
} weigh_job;

static void weigh_worker(void *arg, int w)
{
	weigh_job *j = arg;
	int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
	weigh_buf *wb = &j->out[w];
	wb->part_of = j->part_of;
	seen_make(&wb->seen, SEEN);
	sap_rec r = { .d = j->ly->d, .log = weigh_key, .logbuf = wb };
	r.mask = &r.sink;
	while (a < b) {
		int64_t e = a + 1;
		while (e < b && j->idx[e] == j->idx[e - 1] + 1)
			e++;
		wb->lo = j->idx[a];
		wb->hi = j->idx[e - 1] + 1;
		if (j->spec->slice)
			j->spec->slice(j->env, j->idx, a, e, &r);
		for (int k = 0; k < j->spec->naffine; k++) {
			const sap_affine *af = &j->spec->affine[k];
			int p = j->part_of[af->dds];
			if (p < 0)
				continue;
			for (int64_t i = wb->lo; i < wb->hi; i++) {
				int64_t key = affine_key(af, i);
				if ((uint64_t)key <= j->ly->d[af->dds].max && sap_affine_runs(af, i))
					weigh_push(wb, p, key);
			}
		}
		a = e;
	}
}

static int64_t *sample_keys(const sap_async_spec *spec, const sap_layout *ly, void *env,
                            const int64_t *idx, int64_t m, int T, int64_t *cnt, int64_t *nk)
{
	int *part_of = sap_xmalloc((size_t)spec->ndds * sizeof *part_of);
	for (int k = 0; k < spec->ndds; k++)
		part_of[k] = -1;
	for (int p = 0; p < ly->nparts; p++)
		if (ly->tabs[ly->part[p]])
			part_of[ly->part[p]] = p;
	weigh_buf *out = sap_xcalloc((size_t)T, sizeof *out);
	if (m) {
		weigh_job j = { spec, ly, env, idx, m, T, part_of, out };
		sap_pool_run(T, weigh_worker, &j);
	}
	int64_t tot = 0;
	for (int w = 0; w < T; w++)
		for (int p = 0; p < ly->nparts; p++)
			tot += out[w].n[p];
	int64_t *keys = sap_xmalloc((size_t)tot * sizeof *keys);
	*nk = 0;
	for (int p = 0; p < ly->nparts; p++)
		for (int w = 0; w < T; w++) {
			if (out[w].n[p])
				memcpy(keys + *nk, out[w].v[p], (size_t)out[w].n[p] * sizeof *keys);
			*nk += out[w].n[p];
			cnt[p] += out[w].n[p];
		}
	for (int w = 0; w < T; w++) {
		for (int p = 0; p < ly->nparts; p++)
			free(out[w].v[p]);
		free(out[w].seen.v);
	}
	free(out);
	free(part_of);
	return keys;
}

void sap_layout_weigh(sap_layout *ly, const sap_async_spec *spec, void *env, int64_t lo,
                      int64_t hi, int threads, bool ranks)
{
	int64_t n = hi - lo;
	bool any = false;
	for (int p = 0; p < ly->nparts; p++)
		any |= ly->tabs[ly->part[p]] != NULL;
	if (!any || n <= 0 || !spec->slice)
		return;
	/* One iteration of each of S equal strides, at a pseudo-random
	 * place in it, so that a period in the data does not alias; over
	 * ranks each rank slices those of its share and every rank gets all
	 * the keys, so that every rank cuts the same blocks whatever the
	 * number of ranks. */
	int64_t S = SAMPLE_PER * ly->F;
	S = S < SAMPLE_MIN ? SAMPLE_MIN : S > SAMPLE ? SAMPLE : S;
	S = n / 4 < S ? n / 4 : S;
	if (S < 1)
		S = 1;
	int64_t a = lo, b = hi;
	if (ranks) {
		int me = sap_rank(), T = sap_nranks() * threads;
		a = sap_chunk(lo, hi, T, me * threads);
		b = sap_chunk(lo, hi, T, (me + 1) * threads);
	}
	int64_t *idx = sap_xmalloc((size_t)S * sizeof *idx), m = 0;
	for (int64_t q = 0; q < S; q++) {
		int64_t x = (int64_t)((unsigned __int128)q * (uint64_t)n / (uint64_t)S);
		int64_t y = (int64_t)((unsigned __int128)(q + 1) * (uint64_t)n / (uint64_t)S);
		int64_t i = lo + x + (int64_t)(sap_key_block(q, UINT32_MAX) % (uint64_t)(y - x));
		if (i >= a && i < b)
			idx[m++] = i;
	}
	/* Part p's keys, then its count, per part. */
	int64_t nk = 0, cnt[64] = { 0 };
	int64_t *keys = sample_keys(spec, ly, env, idx, m, threads, cnt, &nk);
	free(idx);
	if (ranks) {
		int P = sap_nranks();
		int64_t *all = sap_xmalloc((size_t)P * 64 * sizeof *all);
		sap_comm_allgather(cnt, all, 64, sizeof *cnt);
		/* Gathered part by part, so that each part's keys are
		 * together. */
		int64_t tot = 0;
		for (int r = 0; r < P; r++)
			for (int p = 0; p < 64; p++)
				tot += all[r * 64 + p];
		int64_t *every = sap_xmalloc((size_t)tot * sizeof *every);
		int64_t *rc = sap_xmalloc((size_t)P * sizeof *rc), *rd = sap_xmalloc((size_t)P * sizeof *rd);
		int64_t at = 0, from = 0;
		for (int p = 0; p < ly->nparts; p++) {
			int64_t off = 0;
			for (int r = 0; r < P; r++) {
				rc[r] = all[r * 64 + p];
				rd[r] = at + off;
				off += all[r * 64 + p];
			}
			sap_comm_allgatherv(keys + from, cnt[p], every, rc, rd, sizeof *every);
			from += cnt[p];
			cnt[p] = off;
			at += off;
		}
		free(keys);
		free(all);
		free(rc);
		free(rd);
		keys = every;
	}
	int64_t from = 0;
	for (int p = 0; p < ly->nparts; p++) {
		int k = ly->part[p];
		int64_t *kp = keys + from;
		from += cnt[p];
		if (!ly->tabs[k] || !cnt[p])
			continue;
		const sap_dvec *v = spec->dds[k].dv;
		int bits = 1;
		while (bits < 63 && (v->n - 1) >> bits)
			bits++;
		sap_sort_keys(kp, cnt[p], bits);
		cut_keys(ly->cuts[k], ly->F, v->n, kp, cnt[p]);
		fill_table(&ly->d[k], ly->tabs[k], v->n);
	}
	free(keys);
}

static void ignore_key(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	(void)r, (void)dds, (void)key, (void)mode;
}

/* Iterations of the sample: enough that a loop filling a map meets a
 * missing key among them, few enough to cost nothing beside the loop.
 * All of them, not up to the first missing key: the messages name every
 * map the sample found missing keys of. */
enum { MISSING_SAMPLE = 1024 };

uint64_t sap_recon_missing(const sap_async_spec *spec, const sap_layout *ly, void *env,
                           int64_t lo, int64_t hi)
{
	bool any = false;
	for (int k = 0; k < spec->ndds; k++)
		any |= spec->dds[k].check_keys;
	int64_t n = hi - lo, S = n < MISSING_SAMPLE ? n : MISSING_SAMPLE;
	if (!any || !spec->slice || S <= 0)
		return 0;
	uint64_t missing = 0;
	sap_rec r = { .d = ly->d, .log = ignore_key, .missing = &missing };
	r.mask = &r.sink;
	for (int64_t q = 0; q < S; q++) {
		int64_t i = lo + (int64_t)((unsigned __int128)q * (uint64_t)n / (uint64_t)S);
		spec->slice(env, &i, 0, 1, &r);
	}
	return missing;
}

int sap_missing_dds(const sap_async_spec *spec, uint64_t missing)
{
	int first = -1;
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].check_keys) {
			if (missing >> (k < 63 ? k : 63) & 1)
				return k;
			if (first < 0)
				first = k;
		}
	return first;
}

void sap_layout_free(sap_layout *ly)
{
	for (int k = 0; ly->tabs && k < ly->ndds; k++) {
		free(ly->tabs[k]);
		free(ly->cuts[k]);
	}
	free(ly->tabs);
	free(ly->cuts);
	ly->cuts = NULL;
	free(ly->d);
	free(ly->memo);
	free(ly->missing);
	ly->missing = NULL;
	ly->tabs = NULL;
	ly->d = NULL;
	ly->memo = NULL;
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
	uint64_t *kmax;         /* per worker and DDS, or NULL */
} mask_job;

static void mask_worker(void *arg, int w)
{
	mask_job *j = arg;
	int64_t a = sap_chunk(j->lo, j->hi, j->T, w), b = sap_chunk(j->lo, j->hi, j->T, w + 1);
	uint64_t m[SUB];
	uint64_t *kmax = j->kmax ? j->kmax + (size_t)w * (size_t)j->spec->ndds : NULL;
	double spent = 0;
	for (int64_t s = a; s < b; s += SUB) {
		int64_t e = b - s < SUB ? b : s + SUB;
		double t0 = sap_now();
		memset(m, 0, (size_t)(e - s) * sizeof *m);
		if (j->spec->slice) {
			sap_rec r = { .masks = m, .lo = s, .n = e - s, .d = j->ly->d, .kmax = kmax,
			              .missing = j->ly->missing };
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
				if ((uint64_t)key <= d->max && sap_affine_runs(af, i))
					m[i - s] |= sap_rec_bit(d, key);
			}
		}
		spent += sap_now() - t0;
		j->sink(j->arg, w, s, m, e - s);
	}
	j->slice_s[w] = spent;
}

double sap_recon(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                 int64_t hi, int T, sap_mask_sink sink, void *arg, uint64_t *kmax)
{
	double *spent = sap_xcalloc((size_t)T, sizeof *spent);
	size_t nd = (size_t)spec->ndds;
	uint64_t *km = kmax && nd ? sap_xcalloc((size_t)T * nd, sizeof *km) : NULL;
	mask_job j = { spec, ly, env, lo, hi, T, sink, arg, spent, km };
	sap_pool_run(T, mask_worker, &j);
	double mx = 0;
	for (int w = 0; w < T; w++)
		mx = spent[w] > mx ? spent[w] : mx;
	/* Keys within a DDS's layout are not followed one by one (the hot
	 * path of sap_rec_key): its largest key stands for them. */
	for (size_t k = 0; km && k < nd; k++) {
		kmax[k] = ly->d[k].max;
		for (int w = 0; w < T; w++)
			kmax[k] = km[(size_t)w * nd + k] > kmax[k] ? km[(size_t)w * nd + k] : kmax[k];
	}
	free(km);
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
	sap_recon(spec, ly, env, lo, hi, T, copy_sink, &c, NULL);
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
	seen_tab seen;
} run_log;

/* A key met again in the iteration adds its mode to the first entry. */
static void log_key(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	const sap_rec_dds *d = &r->d[dds];
	run_log *rl = r->logbuf;
	if (!d->nblk || (uint64_t)key > d->max || r->i < rl->lo || r->i >= rl->hi)
		return;
	seen_slot *z = seen_at(&rl->seen, r->i, dds, key);
	if (seen_hit(z, r->i, dds, key) && z->at < rl->keys.n && rl->keys.v[z->at].i == r->i) {
		rl->keys.v[z->at].mode |= (int)mode;
		return;
	}
	if (z)
		*z = (seen_slot){ r->i, key, rl->keys.n, dds };
	push(&rl->keys, r->i, dds, key, (int)mode);
}

typedef struct log_job {
	const sap_async_spec *spec;
	const sap_layout *ly;
	void *env;
	const int64_t *idx;
	int64_t n;
	int T;
	sap_keylog *out;        /* per worker, and its run's keys: 2 T */
} log_job;

static void log_worker(void *arg, int w)
{
	log_job *j = arg;
	int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
	sap_keylog *out = &j->out[w];
	run_log rl = { j->out[j->T + w], 0, 0, { 0 } };
	seen_make(&rl.seen, SEEN);
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
				if (d->nblk && (uint64_t)key <= d->max && sap_affine_runs(af, i))
					push(out, i, af->dds, key, (int)af->mode);
			}
		}
		if (s < rl.keys.n)
			sap_fatal(NULL, "internal error: a reconnaissance slice recorded "
			          "iteration %lld out of order", (long long)rl.keys.v[s].i);
		a = e;
	}
	free(rl.seen.v);
	j->out[j->T + w] = rl.keys;
}

/* The log's two buffers per worker for T workers. */
static void work_bufs(sap_keylog *log, int T)
{
	if (log->nwork < 2 * T) {
		log->work = sap_xrealloc(log->work, (size_t)(2 * T) * sizeof *log->work);
		memset(log->work + log->nwork, 0, (size_t)(2 * T - log->nwork) * sizeof *log->work);
		log->nwork = 2 * T;
	}
}

void sap_recon_log(const sap_async_spec *spec, const sap_layout *ly, void *env,
                   const int64_t *idx, int64_t n, sap_keylog *log, int T)
{
	work_bufs(log, T);
	sap_keylog *out = log->work;
	for (int w = 0; w < 2 * T; w++)
		out[w].n = 0;
	log_job j = { spec, ly, env, idx, n, T, out };
	sap_pool_run(T, log_worker, &j);
	/* The workers' chunks follow one another. */
	int64_t total = log->n;
	for (int w = 0; w < T; w++)
		total += out[w].n;
	if (total > log->cap) {
		log->cap = total;
		log->v = sap_xrealloc(log->v, (size_t)total * sizeof *log->v);
	}
	for (int w = 0; w < T; w++) {
		if (out[w].n)
			memcpy(log->v + log->n, out[w].v, (size_t)out[w].n * sizeof *log->v);
		log->n += out[w].n;
	}
}

/* Room for n accesses in lg, empty: a fresh buffer, which sap_xmalloc
 * backs by huge pages, not one grown by doubling from 1024 entries, whose
 * copies and first touches (every 4 KB a fault) were a third of a
 * key-level plan's time. */
static void reserve(sap_keylog *lg, int64_t n)
{
	lg->n = 0;
	if (lg->cap >= n)
		return;
	free(lg->v);
	lg->v = sap_xmalloc((size_t)n * sizeof *lg->v);
	lg->cap = n;
}

void sap_keylog_reserve(sap_keylog *log, int T, int64_t n)
{
	work_bufs(log, T);
	/* A worker's share of the iterations may hold more than its share
	 * of the accesses. */
	int64_t per = n / T + n / (4 * T) + 1024;
	for (int w = 0; w < 2 * T; w++)
		reserve(&log->work[w], per);
	reserve(log, n + n / 4);
}

void sap_keylog_free(sap_keylog *log)
{
	for (int w = 0; w < log->nwork; w++)
		sap_keylog_free(&log->work[w]);
	free(log->work);
	free(log->v);
	memset(log, 0, sizeof *log);
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
				if ((uint64_t)key > d->max || !sap_affine_runs(af, i))
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

/* ---- written keys by the rank and round that run them ---- */

typedef struct slot_job {
	const sap_async_spec *spec;
	const sap_layout *ly;
	void *env;
	int64_t a, b;
	int T;
	const uint32_t *slot;   /* per iteration of [a, b) */
	const int64_t *base;
	int64_t words;
	uint64_t *wr, *tc;
} slot_job;

typedef struct slot_run {
	const slot_job *j;
	int64_t lo, hi;
} slot_run;

static inline void slot_or(const slot_job *j, uint64_t *map, int64_t i, int dds, int64_t key)
{
	uint64_t *w = map + (size_t)j->slot[i - j->a] * (size_t)j->words + (size_t)j->base[dds] +
	              (uint64_t)key / 64;
	uint64_t bit = (uint64_t)1 << ((uint64_t)key % 64);
	/* Workers of the rank share the maps; one alone needs no lock. */
	if (j->T > 1)
		__atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
	else
		*w |= bit;
}

static inline void slot_mark(const slot_job *j, int64_t i, int dds, int64_t key, int mode)
{
	const sap_rec_dds *d = &j->ly->d[dds];
	if (j->base[dds + 1] == j->base[dds] || !d->nblk || (uint64_t)key > d->max)
		return;
	if (mode & SAP_WRITE)
		slot_or(j, j->wr, i, dds, key);
	slot_or(j, j->tc, i, dds, key);
}

static void slot_key(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	const slot_run *s = r->logbuf;
	if (r->i >= s->lo && r->i < s->hi)
		slot_mark(s->j, r->i, dds, key, (int)mode);
}

static void slot_worker(void *arg, int w)
{
	const slot_job *j = arg;
	int64_t a = sap_chunk(j->a, j->b, j->T, w), b = sap_chunk(j->a, j->b, j->T, w + 1);
	slot_run s = { j, 0, 0 };
	sap_rec r = { .d = j->ly->d, .log = slot_key, .logbuf = &s };
	r.mask = &r.sink;
	for (s.lo = a; s.lo < b; s.lo = s.hi) {
		s.hi = b - s.lo < SUB ? b : s.lo + SUB;
		if (j->spec->slice)
			j->spec->slice(j->env, NULL, s.lo, s.hi, &r);
		for (int k = 0; k < j->spec->naffine; k++) {
			const sap_affine *af = &j->spec->affine[k];
			for (int64_t i = s.lo; i < s.hi; i++)
				if (sap_affine_runs(af, i))
					slot_mark(j, i, af->dds, affine_key(af, i), (int)af->mode);
		}
	}
}

void sap_recon_mark_slots(const sap_async_spec *spec, const sap_layout *ly, void *env,
                          int64_t a, int64_t b, int T, const uint32_t *slot,
                          const int64_t *base, int64_t words, uint64_t *wr, uint64_t *tc)
{
	slot_job j = { spec, ly, env, a, b, T, slot, base, words, wr, tc };
	sap_pool_run(T, slot_worker, &j);
}
