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
		if (!d->flat) {
			*why = "it writes strings or lists, which are local to a rank";
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

static void grow(sap_keylog *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = sap_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
	}
}

/* Bitmaps over the keys of every written dvector of the loop, DDS k's
 * from word base[k]: one per round, for this rank's writes (wr), its
 * reads and writes (tc), and what to send after the round (now). */
typedef struct key_maps {
	int64_t *base, words;   /* base: ndds + 1 */
	uint64_t *wr, *tc, *now;
} key_maps;

static void maps_make(key_maps *m, const sap_async_spec *spec, int64_t R)
{
	m->base = sap_xcalloc((size_t)spec->ndds + 1, sizeof *m->base);
	m->words = 0;
	for (int k = 0; k < spec->ndds; k++) {
		m->base[k] = m->words;
		if ((spec->dds[k].mode & SAP_WRITE) && spec->dds[k].dv)
			m->words += (spec->dds[k].dv->n + 63) / 64;
	}
	m->base[spec->ndds] = m->words;
	size_t n = (size_t)(R ? R : 1) * (size_t)(m->words ? m->words : 1);
	m->wr = sap_xcalloc(n, sizeof *m->wr);
	m->tc = sap_xcalloc(n, sizeof *m->tc);
	m->now = sap_xcalloc(n, sizeof *m->now);
}

static void maps_free(key_maps *m)
{
	free(m->base);
	free(m->wr);
	free(m->tc);
	free(m->now);
}

/* now[r] = the keys written in round r that another rank touches in a
 * later round: going down from the last round, one Allreduce a round
 * counts the ranks that touch each key. */
static void decide(key_maps *m, int64_t R)
{
	int P = sap_nranks();
	int64_t nk = m->words * 64;
	uint8_t *mine = sap_xmalloc((size_t)(nk ? nk : 1));
	uint8_t *cnt = sap_xmalloc((size_t)(nk ? nk : 1));
	uint8_t *others = sap_xcalloc((size_t)(nk ? nk : 1), 1);   /* in rounds after r */
	for (int64_t r = R - 1; r >= 0; r--) {
		const uint64_t *wr = m->wr + r * m->words, *tc = m->tc + r * m->words;
		uint64_t *now = m->now + r * m->words;
		for (int64_t b = 0; b < m->words; b++)
			for (uint64_t x = wr[b]; x; x &= x - 1)
				if (others[b * 64 + __builtin_ctzll(x)])
					now[b] |= x & -x;
		for (int64_t key = 0; key < nk; key++)
			mine[key] = (uint8_t)(tc[key / 64] >> (key % 64) & 1);
		/* A count per key fits a byte below 256 ranks; above, any
		 * touch counts as another rank's, which only sends more. */
		if (P < 256) {
			MPI_Allreduce(mine, cnt, (int)nk, MPI_UINT8_T, MPI_SUM, MPI_COMM_WORLD);
			for (int64_t key = 0; key < nk; key++)
				others[key] |= cnt[key] > mine[key];
		} else {
			MPI_Allreduce(mine, cnt, (int)nk, MPI_UINT8_T, MPI_MAX, MPI_COMM_WORLD);
			for (int64_t key = 0; key < nk; key++)
				others[key] |= cnt[key];
		}
	}
	free(mine);
	free(cnt);
	free(others);
}

static void list_keys(sap_keylog *all, const key_maps *m, const uint64_t *bits,
                      const sap_async_spec *spec)
{
	for (int k = 0; k < spec->ndds; k++)
		for (int64_t b = m->base[k]; b < m->base[k + 1]; b++)
			for (uint64_t x = bits[b]; x; x &= x - 1) {
				grow(all);
				all->v[all->n++] = (sap_access){ 0, (b - m->base[k]) * 64 +
				                                 __builtin_ctzll(x), k, SAP_WRITE };
			}
}

/* The slice runs over each group's list in the plan, so that it reads the
 * group's plan-order copies when the loop has them.  Collective. */
void sap_dist_build(sap_dist *d, const sap_plan *p, const sap_async_spec *spec,
                    const sap_layout *ly, void *env, int rank, int threads)
{
	int T = p->nworkers;
	int64_t R = p->nrounds;
	memset(d, 0, sizeof *d);
	d->nrounds = R;
	d->off = sap_xcalloc((size_t)R + 2, sizeof *d->off);
	key_maps m;
	maps_make(&m, spec, R);
	uint64_t **wr = sap_xcalloc((size_t)(spec->ndds ? spec->ndds : 1), sizeof *wr);
	uint64_t **tc = sap_xcalloc((size_t)(spec->ndds ? spec->ndds : 1), sizeof *tc);
	for (int64_t r = 0; r < R; r++) {
		for (int k = 0; k < spec->ndds; k++) {
			bool on = m.base[k + 1] > m.base[k];
			wr[k] = on ? m.wr + r * m.words + m.base[k] : NULL;
			tc[k] = on ? m.tc + r * m.words + m.base[k] : NULL;
		}
		for (int w = rank * threads; w < (rank + 1) * threads; w++)
			for (int64_t k = p->ro[r * T + w]; k < p->ro[r * T + w + 1]; k++) {
				int64_t g = p->rg[k];
				sap_recon_mark(spec, ly, env, p->order + p->goff[g],
				               p->goff[g + 1] - p->goff[g], wr, tc);
			}
	}
	free(wr);
	free(tc);
	decide(&m, R);

	/* The keys whose last write here no other rank needed before the
	 * loop ends: their final values go after the last round. */
	uint64_t *last = sap_xcalloc((size_t)(m.words ? m.words : 1), sizeof *last);
	sap_keylog all = { 0 };
	for (int64_t r = 0; r < R; r++) {
		const uint64_t *now = m.now + r * m.words, *w = m.wr + r * m.words;
		for (int64_t b = 0; b < m.words; b++)
			last[b] = (last[b] & ~now[b]) | (w[b] & ~now[b]);
		list_keys(&all, &m, now, spec);
		d->off[r + 1] = all.n;
	}
	list_keys(&all, &m, last, spec);
	d->off[R + 1] = all.n;
	free(last);
	maps_free(&m);
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
