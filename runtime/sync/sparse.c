/* sparse.c: the sparse path of sync for, for the written vectors whose
 * every key the loop's reconnaissance slice records.
 *
 * Each row has an owner, which holds its current value between steps:
 * its holder, or the rank of its even chunk.  Before a step, every
 * worker runs the slice over the elements of its mini-batch; its rank
 * fetches the rows they touch from their owners and keeps their old
 * values.  After the step, the rank's change to each row it wrote (its
 * storage's and its threads' copies', in thread order) goes to the
 * owner, which adds the ranks' changes in rank order and merges the
 * total into the row.  So only the rows a step touches travel, the
 * other ranks never hold a whole copy, and for given ranks x threads the
 * result is the same from run to run.  When the loop ends the owners
 * hold the rows (hold.c), and the others give back their pages.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* Keys as key * 2 + 1 when written, key * 2 when only read.  A cache
 * line apart: the threads push to theirs at once, and ones sharing a
 * line took 35% of the slice's time passing it between cores. */
typedef struct keys {
	int64_t *v;
	int64_t n, cap;
	char pad[64 - 3 * sizeof(int64_t)];
} keys;

static void push(keys *k, int64_t x)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->v = sap_xrealloc(k->v, (size_t)k->cap * sizeof *k->v);
	}
	k->v[k->n++] = x;
}

/* Sorted, each key once, written if any copy of it was. */
static void unique(keys *k)
{
	sap_sort_keys(k->v, k->n, -1);
	int64_t m = 0;
	for (int64_t i = 0; i < k->n; i++) {
		if (m && k->v[m - 1] >> 1 == k->v[i] >> 1)
			k->v[m - 1] |= k->v[i];
		else
			k->v[m++] = k->v[i];
	}
	k->n = m;
}

/* A thread's log of the rows it writes, a cache line of its own. */
typedef struct wlog {
	sap_wlog l;
	char pad[64 - sizeof(sap_wlog) % 64];
} wlog;

/* A thread's buffers for its part of the merge (one rank), kept from
 * step to step: allocating them each step faulted in fresh pages. */
typedef struct lbuf {
	char *d, *o, *tot;
	int64_t *rk, *pos;
	size_t dcap, ocap, totcap, rkcap, poscap;
	char pad[64];
} lbuf;

struct sap_sparse {
	const sap_syncspec *spec;
	int T, P, me, nwr;
	int *of_rec;            /* slice index -> written vector, or -1 */
	int nrec;
	keys *tk;               /* [t * nwr + k]: thread t's keys this step */
	uint64_t **seen;        /* [t * nwr + k]: bit per row, while recording */
	uint64_t **wrote;       /* ... of the rows written */
	wlog *wl;               /* [t * nwr + k]: the rows the body wrote (one
	                           rank), its bits seen's */
	lbuf *lb;               /* [t] */
	keys *uk;               /* [k]: the rank's keys this step */
	char **old;             /* [k]: the rows of uk[k] before the step */
	size_t *oldcap;
};

bool sap_sparse_has(const sap_sparse *sp, int k)
{
	return sp && sp->seen[k] != NULL;
}

int sap_sync_owner(const sap_dvec *v, int64_t k)
{
	int P = sap_nranks();
	if (P == 1)
		return 0;
	if (v->part_only) {
		int r = 0;
		int64_t lo, hi;
		for (sap_dv_part(v, r, &lo, &hi); k >= hi && r < P - 1;)
			sap_dv_part(v, ++r, &lo, &hi);
		return r;
	}
	if (v->holder) {
		uint16_t h = sap_hold_get(v, k);
		if (h != SAP_HOLD_ALL)
			return h;
	}
	return (int)((__int128)k * P / v->n);
}

sap_sparse *sap_sparse_open(const sap_syncspec *spec, int T)
{
	int nwr = spec->nwr, any = 0;
	for (int k = 0; k < nwr; k++)
		any += spec->wr[k].sparse && spec->wr[k].dv != spec->over;
	if (!any)
		return NULL;
	sap_sparse *sp = sap_xcalloc(1, sizeof *sp);
	sp->spec = spec;
	sp->T = T;
	sp->P = sap_nranks();
	sp->me = sap_rank();
	sp->nwr = nwr;
	for (int k = 0; k < nwr; k++)
		if (spec->wr[k].rec >= sp->nrec)
			sp->nrec = spec->wr[k].rec + 1;
	sp->of_rec = sap_xmalloc((size_t)sp->nrec * sizeof *sp->of_rec);
	for (int i = 0; i < sp->nrec; i++)
		sp->of_rec[i] = -1;
	sp->tk = sap_xcalloc((size_t)(T * nwr), sizeof *sp->tk);
	sp->seen = sap_xcalloc((size_t)(T * nwr), sizeof *sp->seen);
	sp->wrote = sap_xcalloc((size_t)(T * nwr), sizeof *sp->wrote);
	sp->wl = sap_xcalloc((size_t)(T * nwr), sizeof *sp->wl);
	sp->lb = sap_xcalloc((size_t)T, sizeof *sp->lb);
	sp->uk = sap_xcalloc((size_t)nwr, sizeof *sp->uk);
	sp->old = sap_xcalloc((size_t)nwr, sizeof *sp->old);
	sp->oldcap = sap_xcalloc((size_t)nwr, sizeof *sp->oldcap);
	for (int k = 0; k < nwr; k++) {
		const sap_syncdds *w = &spec->wr[k];
		if (!w->sparse || w->dv == spec->over)
			continue;
		sp->of_rec[w->rec] = k;
		for (int t = 0; t < T; t++) {
			sp->seen[t * nwr + k] = sap_xcalloc((size_t)(w->dv->n / 64 + 1), sizeof(uint64_t));
			sp->wrote[t * nwr + k] = sap_xcalloc((size_t)(w->dv->n / 64 + 1), sizeof(uint64_t));
			sp->wl[t * nwr + k].l.bits = sp->seen[t * nwr + k];
		}
	}
	return sp;
}

/* A row of es bytes: most are one double or float, whose copy the
 * compiler inlines when it knows the size. */
static inline void cp(char *d, const char *s, size_t es)
{
	if (es == 8)
		memcpy(d, s, 8);
	else if (es == 4)
		memcpy(d, s, 4);
	else
		memcpy(d, s, es);
}

/* Rows key[0 .. n) of w's vector: old (their values, in that order) and
 * the workers' total changes tot merged, in one call, and stored. */
static void merge_rows(const sap_syncdds *w, char *tot, const char *old, const int64_t *key,
                       int64_t n, int64_t A)
{
	sap_dvec *v = w->dv;
	size_t es = v->elsize;
	sap_sc_merge(w, tot, old, tot, n, A);
	for (int64_t q = 0; q < n; q++)
		cp(v->data + (size_t)key[q] * es, tot + (size_t)q * es, es);
}

/* ---- recording ---- */

typedef struct rec_ctx {
	sap_sparse *sp;
	int t;
} rec_ctx;

static void log_key(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	rec_ctx *c = r->logbuf;
	sap_sparse *sp = c->sp;
	int k = dds < sp->nrec ? sp->of_rec[dds] : -1;
	if (k < 0 || (uint64_t)key >= (uint64_t)sp->spec->wr[k].dv->n)
		return;         /* the body reports a key out of range */
	int i = c->t * sp->nwr + k;
	uint64_t m = (uint64_t)1 << (key & 63);
	uint64_t *seen = &sp->seen[i][key >> 6], *wrote = &sp->wrote[i][key >> 6];
	if (!(*seen & m)) {
		*seen |= m;
		push(&sp->tk[i], key);
	}
	if (mode & SAP_WRITE)
		*wrote |= m;
}

void sap_sparse_recon(sap_sparse *sp, int t, const int64_t *idx, int64_t n)
{
	for (int k = 0; k < sp->nwr; k++)
		sp->tk[t * sp->nwr + k].n = 0;
	if (n <= 0)
		return;
	rec_ctx c = { sp, t };
	sap_rec r = { .log = log_key, .logbuf = &c };
	r.mask = &r.sink;
	sp->spec->slice(NULL, idx, 0, n, &r);
	for (int k = 0; k < sp->nwr; k++) {
		int i = t * sp->nwr + k;
		keys *tk = &sp->tk[i];
		if (!sp->seen[i])
			continue;
		for (int64_t j = 0; j < tk->n; j++) {
			int64_t key = tk->v[j];
			tk->v[j] = key * 2 + (int64_t)(sp->wrote[i][key >> 6] >> (key & 63) & 1);
		}
		/* Whole words, once every key in them has its flag. */
		for (int64_t j = 0; j < tk->n; j++)
			sp->seen[i][tk->v[j] >> 7] = sp->wrote[i][tk->v[j] >> 7] = 0;
		sap_sort_keys(tk->v, tk->n, -1);
	}
}

/* ---- logged by the body (one rank) ---- */

void sap_wlog_grow(sap_wlog *l)
{
	l->cap = l->cap ? 2 * l->cap : 256;
	l->v = sap_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
}

sap_wlog *sap_sparse_log(sap_sparse *sp, int t, int k)
{
	return sap_sparse_has(sp, k) ? &sp->wl[t * sp->nwr + k].l : NULL;
}

int64_t sap_sparse_logged(sap_sparse *sp, int t, bool want)
{
	int64_t all = 0;
	for (int k = 0; k < sp->nwr; k++) {
		int i = t * sp->nwr + k;
		keys *tk = &sp->tk[i];
		sap_wlog *l = &sp->wl[i].l;
		tk->n = 0;
		if (!sap_sparse_has(sp, k))
			continue;
		all += l->n;
		for (int64_t j = 0; j < l->n; j++) {
			if (want)
				push(tk, l->v[j] * 2 + 1);
			l->bits[l->v[j] >> 6] = 0;
		}
		l->n = 0;
		if (want)
			sap_sort_keys(tk->v, tk->n, -1);
	}
	return all;
}

/* ---- exchanges ---- */

/* The keys of uk (written ones only when wonly) grouped by owner, in key
 * order within each: into *out, with pos[j] the place in uk of the j-th,
 * and per rank the bytes of keys in cnt. */
static int64_t by_owner(const sap_dvec *v, const keys *uk, bool wonly, bool others, int P,
                        int me, int64_t *out, int64_t *pos, int64_t *cnt)
{
	int64_t *at = sap_xcalloc((size_t)P + 1, sizeof *at);
	int *own = sap_xmalloc((size_t)uk->n * sizeof *own);
	for (int64_t j = 0; j < uk->n; j++) {
		own[j] = -1;
		if (wonly && !(uk->v[j] & 1))
			continue;
		int o = sap_sync_owner(v, uk->v[j] >> 1);
		if (others && o == me)
			continue;
		own[j] = o;
		at[o + 1]++;
	}
	for (int r = 0; r < P; r++) {
		cnt[r] = at[r + 1] * (int64_t)sizeof(int64_t);
		at[r + 1] += at[r];
	}
	int64_t m = at[P];
	for (int64_t j = 0; j < uk->n; j++)
		if (own[j] >= 0) {
			int64_t q = at[own[j]]++;
			out[q] = uk->v[j] >> 1;
			pos[q] = j;
		}
	free(own);
	free(at);
	return m;
}

void sap_sparse_fetch(sap_sparse *sp, sap_sync_stats *st)
{
	int P = sp->P, T = sp->T, nwr = sp->nwr;
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *rcnt = sap_xmalloc((size_t)P * sizeof *rcnt);
	int64_t *rdis = sap_xmalloc((size_t)(P + 1) * sizeof *rdis);
	for (int k = 0; k < nwr; k++) {
		if (!sap_sparse_has(sp, k))
			continue;
		sap_dvec *v = sp->spec->wr[k].dv;
		size_t es = v->elsize;
		keys *uk = &sp->uk[k];
		uk->n = 0;
		for (int t = 0; t < T; t++)
			for (int64_t j = 0; j < sp->tk[t * nwr + k].n; j++)
				push(uk, sp->tk[t * nwr + k].v[j]);
		if (T > 1)
			unique(uk);
		st->touched += uk->n;
		st->offered += v->n;
		if (P > 1) {
			/* The rows others own, from them. */
			int64_t *want = sap_xmalloc((size_t)uk->n * sizeof *want);
			int64_t *pos = sap_xmalloc((size_t)uk->n * sizeof *pos);
			int64_t m = by_owner(v, uk, false, true, P, sp->me, want, pos, cnt);
			char *asked = sap_comm_exchange(want, cnt, rcnt, rdis);
			int64_t na = rdis[P] / (int64_t)sizeof(int64_t);
			char *rows = sap_xmalloc((size_t)na * es + 1);
			for (int64_t j = 0; j < na; j++) {
				int64_t key;
				memcpy(&key, asked + j * sizeof key, sizeof key);
				memcpy(rows + j * es, v->data + (size_t)key * es, es);
			}
			for (int r = 0; r < P; r++)
				rcnt[r] = rcnt[r] / (int64_t)sizeof(int64_t) * (int64_t)es;
			int64_t *back = sap_xmalloc((size_t)(P + 1) * sizeof *back);
			char *got = sap_comm_exchange(rows, rcnt, cnt, back);
			for (int64_t j = 0; j < m; j++)
				memcpy(v->data + (size_t)want[j] * es, got + j * es, es);
			st->sync_bytes += (double)(m * (int64_t)sizeof(int64_t)) + (double)na * (double)es;
			st->rows += m;
			free(back);
			free(got);
			free(rows);
			free(asked);
			free(pos);
			free(want);
		}
		if ((size_t)uk->n * es + 1 > sp->oldcap[k]) {
			sp->oldcap[k] = (size_t)uk->n * es * 2 + 1;
			free(sp->old[k]);
			sp->old[k] = sap_xmalloc(sp->oldcap[k]);
		}
		for (int64_t j = 0; j < uk->n; j++)
			memcpy(sp->old[k] + j * es, v->data + (size_t)(uk->v[j] >> 1) * es, es);
	}
	free(cnt);
	free(rcnt);
	free(rdis);
}

void sap_sparse_copy_in(const sap_sparse *sp, int t, int k, char *copy)
{
	const sap_dvec *v = sp->spec->wr[k].dv;
	const keys *tk = &sp->tk[t * sp->nwr + k];
	for (int64_t j = 0; j < tk->n; j++) {
		size_t at = (size_t)(tk->v[j] >> 1) * v->elsize;
		cp(copy + at, v->data + at, v->elsize);
	}
}

/* ---- merging ---- */

typedef struct part {
	int64_t key;
	int rank;
	int64_t at;             /* its row in what came in */
} part;

/* Each of this rank's threads' changes to the rows of uk[k] it wrote,
 * at pos order, T rows a row (-0.0, no change, for a thread that did not
 * write it), and its storage back to the old values.  The owner adds them
 * up worker by worker, so that the sum is the one a single rank of P x T
 * threads takes.  The subtractions go a thread at a time over all its
 * rows (sap_sc_sub), not a call a row. */
static char *changes(sap_sparse *sp, int k, char **copies, const int64_t *pos, int64_t m)
{
	const sap_syncdds *w = &sp->spec->wr[k];
	sap_dvec *v = w->dv;
	size_t es = v->elsize, rs = es * (size_t)sp->T;
	const keys *uk = &sp->uk[k];
	int64_t n = uk->n;
	const char *old = sp->old[k];
	/* Thread t's change to row j of uk at d + (t * n + j) * es. */
	char *d = sap_xmalloc((size_t)n * rs + 1);
	for (int64_t j = 0; j < n; j++)
		cp(d + (size_t)j * es, v->data + (size_t)(uk->v[j] >> 1) * es, es);
	sap_sc_sub(w->num, d, old, n);
	for (int64_t j = 0; j < n; j++)
		if (uk->v[j] & 1)
			cp(v->data + (size_t)(uk->v[j] >> 1) * es, old + (size_t)j * es, es);
	char *o = sap_xmalloc((size_t)n * es + 1);
	for (int t = 1; t < sp->T; t++) {
		char *dt = d + (size_t)t * (size_t)n * es;
		const char *c = copies ? copies[t * sp->nwr + k] : NULL;
		const keys *tk = &sp->tk[t * sp->nwr + k];
		/* Rows the thread did not write (or all, without copies): old
		 * against old, no change. */
		memcpy(dt, old, (size_t)n * es);
		memcpy(o, old, (size_t)n * es);
		if (c)
			for (int64_t q = 0, j = 0; q < tk->n; q++) {
				if (!(tk->v[q] & 1))
					continue;
				while (uk->v[j] >> 1 != tk->v[q] >> 1)
					j++;
				cp(dt + (size_t)j * es, c + (size_t)(tk->v[q] >> 1) * es, es);
			}
		sap_sc_sub(w->num, dt, o, n);
	}
	free(o);
	char *out = sap_xmalloc((size_t)m * rs + 1);
	for (int64_t q = 0; q < m; q++)
		for (int t = 0; t < sp->T; t++)
			cp(out + (size_t)q * rs + (size_t)t * es, d + ((size_t)t * (size_t)n + (size_t)pos[q]) * es, es);
	free(d);
	return out;
}

void sap_sparse_merge(sap_sparse *sp, char **copies, int64_t A, sap_sync_stats *st)
{
	int P = sp->P;
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *rcnt = sap_xmalloc((size_t)P * sizeof *rcnt);
	int64_t *rdis = sap_xmalloc((size_t)(P + 1) * sizeof *rdis);
	int64_t *rdis2 = sap_xmalloc((size_t)(P + 1) * sizeof *rdis2);
	for (int k = 0; k < sp->nwr; k++) {
		if (!sap_sparse_has(sp, k))
			continue;
		const sap_syncdds *w = &sp->spec->wr[k];
		sap_dvec *v = w->dv;
		size_t es = v->elsize;
			const keys *uk = &sp->uk[k];
		int64_t *send = sap_xmalloc((size_t)uk->n * sizeof *send);
		int64_t *pos = sap_xmalloc((size_t)uk->n * sizeof *pos);
		int64_t m = by_owner(v, uk, true, false, P, sp->me, send, pos, cnt);
		char *rows = changes(sp, k, copies, pos, m);
		char *kin = sap_comm_exchange(send, cnt, rcnt, rdis);
		size_t rs = es * (size_t)sp->T;
		for (int r = 0; r < P; r++)
			cnt[r] = cnt[r] / (int64_t)sizeof(int64_t) * (int64_t)rs;
		char *rin = sap_comm_exchange(rows, cnt, rcnt, rdis2);
		for (int r = 0; r < P; r++)
			if (r != sp->me) {
				st->sync_bytes += (double)cnt[r] + (double)cnt[r] / (double)rs * sizeof(int64_t);
				st->rows += cnt[r] / (int64_t)rs;
			}
		/* Every rank's change to each row this rank owns, in rank order. */
		int64_t n = rdis[P] / (int64_t)sizeof(int64_t);
		part *pt = sap_xmalloc((size_t)n * sizeof *pt);
		for (int r = 0; r < P; r++)
			for (int64_t j = rdis[r] / (int64_t)sizeof(int64_t);
			     j < rdis[r + 1] / (int64_t)sizeof(int64_t); j++) {
				memcpy(&pt[j].key, kin + j * sizeof(int64_t), sizeof(int64_t));
				pt[j].rank = r;
				pt[j].at = j;
			}
		/* By key, each key's in rank order as they came. */
		sap_sort_recs(pt, n, sizeof *pt);
		/* Worker by worker, rank after rank; a change that is zero is
		 * left out, since a worker that did not write the row sends one
		 * on some layouts and nothing on others.  Then every row's merge
		 * in one call. */
		char *tot = sap_xmalloc((size_t)n * es + 1), *olds = sap_xmalloc((size_t)n * es + 1);
		int64_t *at = sap_xmalloc((size_t)n * sizeof *at + 1), nrow = 0;
		for (int64_t j = 0; j < n;) {
			int64_t e = j;
			bool have = false;
			char *sum = tot + (size_t)nrow * es;
			for (; e < n && pt[e].key == pt[j].key; e++)
				for (int t = 0; t < sp->T; t++) {
					const char *c = rin + pt[e].at * rs + (size_t)t * es;
					if (sap_nt_zero(w->num, c))
						continue;
					if (have)
						sap_sc_add(w->num, sum, c, 1);
					else
						cp(sum, c, es);
					have = true;
				}
			if (!have)
				sap_nt_identity(w->num, sum, 1);
			at[nrow] = pt[j].key;
			cp(olds + (size_t)nrow * es, v->data + (size_t)pt[j].key * es, es);
			nrow++;
			j = e;
		}
		merge_rows(w, tot, olds, at, nrow, A);
		free(at);
		free(olds);
		free(tot);
		free(pt);
		free(rin);
		free(kin);
		free(rows);
		free(pos);
		free(send);
	}
	free(cnt);
	free(rcnt);
	free(rdis);
	free(rdis2);
}

/* ---- one rank ---- */

/* dst += src, a row of es bytes; most rows are doubles. */
static inline void add_row(const sap_numtype *num, bool flat_double, char *dst, const char *src,
                           size_t es)
{
	if (flat_double) {
		for (size_t i = 0; i < es; i += 8) {
			double a, b;
			memcpy(&a, dst + i, 8);
			memcpy(&b, src + i, 8);
			a += b;
			memcpy(dst + i, &a, 8);
		}
	} else {
		sap_sc_add(num, dst, src, 1);
	}
}

/* The first entry of sorted tk (keys * 2 + flag) whose key is at least k. */
static int64_t first_at(const keys *tk, int64_t k)
{
	int64_t lo = 0, hi = tk->n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (tk->v[mid] >> 1 < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Where thread t's share of vector k's keys starts in the merge: where
 * the threads' keys of the step fall t / T of the way through, on
 * average, so that each merges about as many rows (a sparse model's
 * frequent features sit at low keys, and even chunks of the key range
 * left one thread most of the work).  Which thread merges a row changes
 * nothing in it. */
static int64_t split(const sap_sparse *sp, int k, int t)
{
	int T = sp->T;
	int64_t n = sp->spec->wr[k].dv->n;
	if (t == 0)
		return 0;
	if (t == T)
		return n;
	double sum = 0;
	int m = 0;
	for (int u = 0; u < T; u++) {
		const keys *tk = &sp->tk[u * sp->nwr + k];
		if (tk->n) {
			sum += (double)(tk->v[(int64_t)((__int128)tk->n * t / T)] >> 1);
			m++;
		}
	}
	return m ? (int64_t)(sum / m) : sap_chunk(0, n, T, t);
}

/* Room for n bytes at *p, which holds *cap. */
static void *room(void *p, size_t *cap, size_t n)
{
	if (n > *cap) {
		*cap = n + n / 2 + 64;
		free(p);
		p = sap_xmalloc(*cap);
	}
	return p;
}

/* A change of a double row that is zero (either sign), as sap_nt_zero. */
static inline bool zero_doubles(const char *c, size_t es)
{
	for (size_t i = 0; i < es; i += 8) {
		uint64_t x;
		memcpy(&x, c + i, 8);
		if (x << 1)
			return false;
	}
	return true;
}

int64_t sap_sparse_local_merge(sap_sparse *sp, char **copies, int t, int64_t A, bool spread)
{
	int T = sp->T, nwr = sp->nwr;
	int64_t touched = 0;
	lbuf *L = &sp->lb[t];
	L->pos = room(L->pos, &L->poscap, (size_t)T * 4 * sizeof(int64_t));
	int64_t *a = L->pos, *b = a + T, *cur = b + T, *dat = cur + T;
	for (int k = 0; k < nwr; k++) {
		if (!sap_sparse_has(sp, k))
			continue;
		const sap_syncdds *w = &sp->spec->wr[k];
		sap_dvec *v = w->dv;
		size_t es = v->elsize;
		bool fd = sap_nt_flat(w->num) && w->num->f[0].kind == SAP_S_DOUBLE;
		int64_t lo = split(sp, k, t), hi = split(sp, k, t + 1);
		/* Each thread's entries in [lo, hi), and its written rows'
		 * changes, thread after thread, into d. */
		int64_t nw = 0, ne = 0;
		for (int u = 0; u < T; u++) {
			const keys *tk = &sp->tk[u * nwr + k];
			a[u] = first_at(tk, lo);
			b[u] = first_at(tk, hi);
			ne += b[u] - a[u];
			for (int64_t q = a[u]; q < b[u]; q++)
				nw += tk->v[q] & 1;
		}
		char *d = L->d = room(L->d, &L->dcap, (size_t)nw * es + 1);
		char *o = L->o = room(L->o, &L->ocap, (size_t)nw * es + 1);
		int64_t j = 0;
		for (int u = 0; u < T; u++) {
			const keys *tk = &sp->tk[u * nwr + k];
			const char *c = copies[u * nwr + k];
			dat[u] = j;
			/* The rows another thread wrote are in its core's
			 * cache: asked for ahead, their transfers overlap. */
			for (int64_t q = a[u]; q < b[u]; q++) {
				if (q + 8 < b[u])
					__builtin_prefetch(c + (size_t)(tk->v[q + 8] >> 1) * es);
				if (tk->v[q] & 1) {
					size_t at = (size_t)(tk->v[q] >> 1) * es;
					cp(d + (size_t)j * es, c + at, es);
					cp(o + (size_t)j * es, v->data + at, es);
					j++;
				}
			}
		}
		sap_sc_sub(w->num, d, o, nw);
		/* Row by row in key order, each one's changes in thread order
		 * (a zero change left out, as sap_sparse_merge does); then
		 * every row's merge in one call. */
		char *tot = L->tot = room(L->tot, &L->totcap, (size_t)(ne < 1 ? 1 : ne) * es);
		char *olds = o;
		int64_t *rk = L->rk = room(L->rk, &L->rkcap, (size_t)(ne < 1 ? 1 : ne) * sizeof *rk);
		int64_t nrow = 0;
		for (int u = 0; u < T; u++)
			cur[u] = a[u];
		for (;;) {
			int64_t key = INT64_MAX;
			for (int u = 0; u < T; u++)
				if (cur[u] < b[u] && sp->tk[u * nwr + k].v[cur[u]] >> 1 < key)
					key = sp->tk[u * nwr + k].v[cur[u]] >> 1;
			if (key == INT64_MAX)
				break;
			touched++;
			bool wrote = false, have = false;
			char *sum = tot + (size_t)nrow * es;
			for (int u = 0; u < T; u++) {
				const keys *tk = &sp->tk[u * nwr + k];
				if (cur[u] >= b[u] || tk->v[cur[u]] >> 1 != key)
					continue;
				if (tk->v[cur[u]] & 1) {
					wrote = true;
					const char *c = d + (size_t)dat[u]++ * es;
					if (fd ? !zero_doubles(c, es) : !sap_nt_zero(w->num, c)) {
						if (have)
							add_row(w->num, fd, sum, c, es);
						else
							cp(sum, c, es);
						have = true;
					}
				}
				cur[u]++;
			}
			if (!wrote)
				continue;
			if (!have)
				sap_nt_identity(w->num, sum, 1);
			/* o's first rows are free again: the old values in row order. */
			rk[nrow++] = key;
		}
		for (int64_t q = 0; q < nrow; q++)
			cp(olds + (size_t)q * es, v->data + (size_t)rk[q] * es, es);
		merge_rows(w, tot, olds, rk, nrow, A);
		for (int u = 0; spread && u < T; u++) {
			char *c = copies[u * nwr + k];
			for (int64_t q = 0; q < nrow; q++) {
				if (q + 8 < nrow)
					__builtin_prefetch(c + (size_t)rk[q + 8] * es, 1);
				cp(c + (size_t)rk[q] * es, tot + (size_t)q * es, es);
			}
		}
	}
	return touched;
}

/* ---- the end ---- */

/* The rows nobody held alone go to their owners: the ranks of the even
 * chunks. */
static void settle(sap_dvec *v, int P)
{
	sap_holders *h = sap_hold_map(v);
	for (int r = 0; r < P; r++) {
		int64_t lo = (int64_t)(((__int128)r * v->n + P - 1) / P);
		int64_t hi = (int64_t)(((__int128)(r + 1) * v->n + P - 1) / P);
		for (int64_t k = lo; k < hi;) {
			int64_t b = k >> SAP_HOLD_SHIFT, end = (b + 1) << SAP_HOLD_SHIFT;
			if (end > hi)
				end = hi;
			if (!h->blk[b]) {
				if (h->val[b] == SAP_HOLD_ALL)
					sap_hold_range(v, k, end, (uint16_t)r);
			} else {
				for (int64_t q = k; q < end; q++)
					if (h->blk[b][q & ((1 << SAP_HOLD_SHIFT) - 1)] == SAP_HOLD_ALL)
						sap_hold_set(v, q, (uint16_t)r);
			}
			k = end;
		}
	}
	sap_hold_tidy(v);
	sap_dv_trim(v);
}

void sap_sparse_close(sap_sparse *sp)
{
	int nwr = sp->nwr;
	for (int k = 0; k < nwr; k++) {
		if (sap_sparse_has(sp, k) && sp->P > 1 && !sp->spec->wr[k].dv->part_only)
			settle(sp->spec->wr[k].dv, sp->P);
		free(sp->uk[k].v);
		free(sp->old[k]);
	}
	for (int i = 0; i < sp->T * nwr; i++) {
		free(sp->wl[i].l.v);
		free(sp->tk[i].v);
		free(sp->seen[i]);
		free(sp->wrote[i]);
	}
	for (int t = 0; t < sp->T; t++) {
		lbuf *L = &sp->lb[t];
		free(L->d);
		free(L->o);
		free(L->tot);
		free(L->rk);
		free(L->pos);
	}
	free(sp->lb);
	free(sp->tk);
	free(sp->wl);
	free(sp->seen);
	free(sp->wrote);
	free(sp->uk);
	free(sp->old);
	free(sp->oldcap);
	free(sp->of_rec);
	free(sp);
}
