/* delta.c: the dense written vectors' step merged over ranks from the
 * rows it changed, when they are few.
 *
 * On the dense path every rank holds the whole vector, and the chain of
 * sap_chain_sum moves all of it twice a step whatever the step wrote: a
 * perceptron's mini-batch of 64 sentences changes a few thousand of its
 * 56,000 weights, and the chain took 30 times the body.  No slice can
 * name those rows ahead (the keys depend on what the body reads), but
 * after the step each rank finds them by comparing its workers' values
 * with the step's old ones.  Every rank then gets every rank's changes to
 * its rows, per worker, in one exchange for all the vectors, and adds
 * each row's in worker order, the zeros left out, as the sparse path's
 * owners do: the same sums on every rank, and the ones the chain makes,
 * where a worker that left a row as it was adds -0.0, nothing.  Which of
 * the two a vector takes follows from counts every rank has.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* Bytes compared at once before looking at single rows: most blocks of
 * a sparse step are unchanged, and memcmp checks them fastest. */
enum { BLOCK = 512 };

typedef struct rows {
	int64_t *v;
	int64_t n, cap;
} rows;

static void push(rows *r, int64_t k)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->v = sap_xrealloc(r->v, (size_t)r->cap * sizeof *r->v);
	}
	r->v[r->n++] = k;
}

static inline bool differs(const char *a, const char *b, size_t es)
{
	if (es == 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x != y;
	}
	return memcmp(a, b, es) != 0;
}

/* The rows some term changed, in key order. */
static void changed(const sap_dvec *v, char *const *term, int T, const char *old, rows *out)
{
	size_t es = v->elsize;
	int64_t n = v->n, per = es < BLOCK ? (int64_t)(BLOCK / es) : 1;
	for (int64_t b = 0; b < n; b += per) {
		int64_t e1 = n - b < per ? n : b + per;
		size_t at = (size_t)b * es, len = (size_t)(e1 - b) * es;
		bool any = false;
		for (int t = 0; t < T && !any; t++)
			any = term[t] && memcmp(term[t] + at, old + at, len);
		if (!any)
			continue;
		for (int64_t e = b; e < e1; e++)
			for (int t = 0; t < T; t++)
				if (term[t] && differs(term[t] + (size_t)e * es, old + (size_t)e * es, es)) {
					push(out, e);
					break;
				}
	}
}

/* The records of the rows of r at out: each its key, then its T
 * changes in thread order, term's value less old (old less old, a zero,
 * for a thread without a term). */
static void pack(const sap_syncdds *w, char *const *term, int T, const char *old, const rows *r,
                 char *out)
{
	size_t es = w->dv->elsize, rs = es * (size_t)T;
	char *d = sap_xmalloc((size_t)r->n * rs + 1), *o = sap_xmalloc((size_t)r->n * rs + 1);
	for (int64_t j = 0; j < r->n; j++) {
		size_t at = (size_t)r->v[j] * es;
		for (int t = 0; t < T; t++) {
			memcpy(d + (size_t)j * rs + (size_t)t * es, (term[t] ? term[t] : old) + at, es);
			memcpy(o + (size_t)j * rs + (size_t)t * es, old + at, es);
		}
	}
	sap_sc_sub(w->num, d, o, r->n * T);
	for (int64_t j = 0; j < r->n; j++) {
		char *rec = out + (size_t)j * (sizeof(int64_t) + rs);
		memcpy(rec, &r->v[j], sizeof(int64_t));
		memcpy(rec + sizeof(int64_t), d + (size_t)j * rs, rs);
	}
	free(o);
	free(d);
}

/* Every rank's records of one vector, rank r's cnt[r] of them at in[r],
 * merged into the storage, key by key: each row's changes in rank order,
 * each rank's in thread order, the zeros left out; then one merge call
 * for all the rows. */
static void apply(const sap_syncdds *w, int T, const char *old, int64_t A, char *const *in,
                  const int64_t *cnt, int P)
{
	sap_dvec *v = w->dv;
	size_t es = v->elsize, rec = sizeof(int64_t) + es * (size_t)T;
	int64_t total = 0;
	for (int r = 0; r < P; r++)
		total += cnt[r];
	int64_t *cur = sap_xcalloc((size_t)P, sizeof *cur), nrow = 0;
	char *tot = sap_xmalloc((size_t)total * es + 1), *olds = sap_xmalloc((size_t)total * es + 1);
	int64_t *rk = sap_xmalloc((size_t)total * sizeof *rk + 1);
	for (;;) {
		int64_t k = INT64_MAX, x;
		for (int r = 0; r < P; r++)
			if (cur[r] < cnt[r] && (memcpy(&x, in[r] + (size_t)cur[r] * rec, sizeof x), x < k))
				k = x;
		if (k == INT64_MAX)
			break;
		char *sum = tot + (size_t)nrow * es;
		bool have = false;
		for (int r = 0; r < P; r++) {
			if (cur[r] >= cnt[r])
				continue;
			const char *p = in[r] + (size_t)cur[r] * rec;
			memcpy(&x, p, sizeof x);
			if (x != k)
				continue;
			for (int t = 0; t < T; t++) {
				const char *c = p + sizeof(int64_t) + (size_t)t * es;
				if (sap_nt_zero(w->num, c))
					continue;
				if (have)
					sap_sc_add(w->num, sum, c, 1);
				else
					memcpy(sum, c, es);
				have = true;
			}
			cur[r]++;
		}
		if (!have)
			sap_nt_identity(w->num, sum, 1);
		memcpy(olds + (size_t)nrow * es, old + (size_t)k * es, es);
		rk[nrow++] = k;
	}
	sap_sc_merge(w, tot, olds, tot, nrow, A);
	for (int64_t q = 0; q < nrow; q++)
		memcpy(v->data + (size_t)rk[q] * es, tot + (size_t)q * es, es);
	free(rk);
	free(olds);
	free(tot);
	free(cur);
}

void sap_sync_delta(const sap_syncdds *const *w, char *const *term, const char *const *old, int nv,
                    int T, int64_t A, bool *done, sap_sync_stats *st)
{
	int P = sap_nranks(), me = sap_rank();
	rows *mine = sap_xcalloc((size_t)nv, sizeof *mine);
	int64_t *n = sap_xmalloc((size_t)nv * sizeof *n);
	for (int k = 0; k < nv; k++) {
		changed(w[k]->dv, term + (size_t)k * T, T, old[k], &mine[k]);
		n[k] = mine[k].n;
	}
	/* cnt[r * nv + k]: rank r's rows of vector k. */
	int64_t *cnt = sap_xmalloc((size_t)P * (size_t)nv * sizeof *cnt);
	sap_comm_allgather(n, cnt, nv, sizeof *n);
	/* bytes[r]: rank r's records, vector after vector, of those that go
	 * this way: when every rank getting every row of the others moves
	 * fewer bytes than the chain's whole vector, about twice over. */
	int64_t *bytes = sap_xcalloc((size_t)P, sizeof *bytes), *at = sap_xmalloc((size_t)P * sizeof *at);
	for (int k = 0; k < nv; k++) {
		size_t es = w[k]->dv->elsize, rec = sizeof(int64_t) + es * (size_t)T;
		double total = 0;
		for (int r = 0; r < P; r++)
			total += (double)cnt[r * nv + k];
		done[k] = total * (double)rec <= (double)w[k]->dv->n * (double)es;
		for (int r = 0; done[k] && r < P; r++)
			bytes[r] += cnt[r * nv + k] * (int64_t)rec;
	}
	int64_t all = 0;
	for (int r = 0; r < P; r++) {
		at[r] = all;
		all += bytes[r];
	}
	char *buf = sap_xmalloc((size_t)all + 1), *o = buf + at[me];
	for (int k = 0; k < nv; k++)
		if (done[k]) {
			pack(w[k], term + (size_t)k * T, T, old[k], &mine[k], o);
			o += (size_t)mine[k].n * (sizeof(int64_t) + w[k]->dv->elsize * (size_t)T);
		}
	if (all > 0) {
		sap_comm_allgatherv(buf + at[me], bytes[me], buf, bytes, at, 1);
		st->sync_bytes += (double)(all - bytes[me]);
	}
	/* in[r]: rank r's records of the vector being merged. */
	char **in = sap_xmalloc((size_t)P * sizeof *in);
	int64_t *ck = sap_xmalloc((size_t)P * sizeof *ck);
	for (int r = 0; r < P; r++)
		in[r] = buf + at[r];
	for (int k = 0; k < nv; k++) {
		if (!done[k])
			continue;
		size_t rec = sizeof(int64_t) + w[k]->dv->elsize * (size_t)T;
		for (int r = 0; r < P; r++)
			ck[r] = cnt[r * nv + k];
		apply(w[k], T, old[k], A, in, ck, P);
		for (int r = 0; r < P; r++) {
			in[r] += (size_t)ck[r] * rec;
			if (r != me)
				st->rows += mine[k].n;
		}
	}
	free(ck);
	free(in);
	free(buf);
	free(at);
	free(bytes);
	free(cnt);
	free(n);
	for (int k = 0; k < nv; k++)
		free(mine[k].v);
	free(mine);
}
