/* dist.c: async loops over several ranks.
 *
 * Every rank still keeps a whole copy of every DDS.  A loop is planned
 * for P x T workers, the same plan on every rank (each runs the same
 * reconnaissance); rank r runs workers r*T .. r*T + T - 1, and after each
 * round sends the elements its groups wrote to every other rank, so that
 * the copies agree again before the next round reads them.  A round's
 * groups are conflict-free across ranks as across threads, so no element
 * arrives from two ranks.  Reductions combine in worker order, rank by
 * rank: the result depends on P and T only.
 */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "sap-int.h"

bool sap_dist_ok(const sap_async_spec *spec, const sap_reduce *r, const char **why)
{
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!(d->mode & SAP_WRITE))
			continue;
		if (d->accumulate) {
			*why = "it accumulates into a DDS";
			return false;
		}
		if (!d->dv) {
			*why = "it writes a dmap";
			return false;
		}
	}
	if (r && !r->flat) {
		*why = "a reduce variable holds a list or string";
		return false;
	}
	return true;
}

/* ---- the keys a rank writes ---- */

static int by_key(const void *x, const void *y)
{
	const sap_access *a = x, *b = y;
	if (a->dds != b->dds)
		return a->dds < b->dds ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

static int by_index(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* Sorted, without repeats, keeping written ones only. */
static int64_t written_keys(sap_access *v, int64_t n)
{
	int64_t m = 0;
	for (int64_t k = 0; k < n; k++)
		if (v[k].mode & SAP_WRITE)
			v[m++] = v[k];
	qsort(v, (size_t)m, sizeof *v, by_key);
	int64_t u = 0;
	for (int64_t k = 0; k < m; k++)
		if (!u || by_key(&v[u - 1], &v[k]))
			v[u++] = v[k];
	return u;
}

void sap_dist_build(sap_dist *d, const sap_plan *p, const sap_async_spec *spec,
                    const sap_layout *ly, void *env, int rank, int threads)
{
	int T = p->nworkers;
	memset(d, 0, sizeof *d);
	d->nrounds = p->nrounds;
	d->off = sap_xcalloc((size_t)p->nrounds + 1, sizeof *d->off);
	sap_keylog all = { 0 };
	int64_t *idx = sap_xmalloc((size_t)(p->n ? p->n : 1) * sizeof *idx);
	for (int64_t r = 0; r < p->nrounds; r++) {
		int64_t n = 0;
		for (int w = rank * threads; w < (rank + 1) * threads; w++)
			for (int64_t k = p->ro[r * T + w]; k < p->ro[r * T + w + 1]; k++) {
				int64_t g = p->rg[k];
				for (int64_t q = p->goff[g]; q < p->goff[g + 1]; q++)
					idx[n++] = p->order[q];
			}
		/* The log wants ascending iterations. */
		qsort(idx, (size_t)n, sizeof *idx, by_index);
		sap_keylog log = { 0 };
		sap_recon_log(spec, ly, env, idx, n, &log, threads);
		int64_t u = written_keys(log.v, log.n);
		for (int64_t k = 0; k < u; k++) {
			if (all.n == all.cap) {
				all.cap = all.cap ? 2 * all.cap : 1024;
				all.v = sap_xrealloc(all.v, (size_t)all.cap * sizeof *all.v);
			}
			all.v[all.n++] = log.v[k];
		}
		d->off[r + 1] = all.n;
		sap_keylog_free(&log);
	}
	free(idx);
	d->keys = all.v;
}

void sap_dist_free(sap_dist *d)
{
	free(d->off);
	free(d->keys);
	memset(d, 0, sizeof *d);
}

/* ---- exchanging written elements ---- */

/* Records of (dds, key, element bytes); the key 8-aligned. */
typedef struct rec_head {
	int64_t key;
	int32_t dds, pad;
} rec_head;

static size_t rec_size(const sap_async_spec *spec, int dds)
{
	return sizeof(rec_head) + ((spec->dds[dds].dv->elsize + 7) & ~(size_t)7);
}

void sap_dist_send(const sap_access *keys, int64_t n, const sap_async_spec *spec,
                   sap_dist_stats *stats)
{
	int P = sap_nranks(), me = sap_rank();
	size_t bytes = 0;
	for (int64_t k = 0; k < n; k++)
		bytes += rec_size(spec, keys[k].dds);
	char *out = sap_xmalloc(bytes ? bytes : 1);
	char *p = out;
	for (int64_t k = 0; k < n; k++) {
		const sap_dvec *v = spec->dds[keys[k].dds].dv;
		rec_head h = { keys[k].key, keys[k].dds, 0 };
		memcpy(p, &h, sizeof h);
		memcpy(p + sizeof h, v->data + (size_t)keys[k].key * v->elsize, v->elsize);
		p += rec_size(spec, keys[k].dds);
	}
	if (bytes > INT32_MAX)
		sap_fatal(NULL, "a round writes more than 2 GiB on one rank; use more ranks");
	int mine = (int)bytes;
	int *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
	int64_t total = 0;
	for (int r = 0; r < P; r++) {
		if (total > INT32_MAX)
			sap_fatal(NULL, "a round writes more than 2 GiB; use more ranks");
		dis[r] = (int)total;
		total += cnt[r];
	}
	char *in = sap_xmalloc(total ? (size_t)total : 1);
	MPI_Allgatherv(out, mine, MPI_BYTE, in, cnt, dis, MPI_BYTE, MPI_COMM_WORLD);
	for (int r = 0; r < P; r++) {
		if (r == me)
			continue;
		for (char *q = in + dis[r]; q < in + dis[r] + cnt[r];) {
			rec_head h;
			memcpy(&h, q, sizeof h);
			sap_dvec *v = spec->dds[h.dds].dv;
			memcpy(v->data + (size_t)h.key * v->elsize, q + sizeof h, v->elsize);
			q += rec_size(spec, h.dds);
		}
	}
	if (stats) {
		stats->sent += (int64_t)bytes * (P - 1);
		stats->received += total - (int64_t)bytes;
	}
	free(out);
	free(in);
	free(cnt);
	free(dis);
}

void sap_dist_reduce(const sap_reduce *r, void *red)
{
	int P = sap_nranks();
	char *all = sap_xmalloc((size_t)P * r->size);
	MPI_Allgather(red, (int)r->size, MPI_BYTE, all, (int)r->size, MPI_BYTE, MPI_COMM_WORLD);
	r->init(red);
	for (int k = 0; k < P; k++)
		r->combine(red, all + (size_t)k * r->size);
	free(all);
}
