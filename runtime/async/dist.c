/* dist.c: async loops over several ranks.
 *
 * Every rank keeps address space for the whole of every DDS.  A loop is
 * planned for P x T workers, the same plan on every rank (each runs the
 * same reconnaissance); rank r runs workers r*T .. r*T + T - 1.  Before
 * the first round it fetches what it needs from the elements' holders,
 * and after each round it sends the elements its groups wrote to the
 * ranks that touch them later, so that no round reads a stale copy.  A round's
 * groups are conflict-free across ranks as across threads, so no element
 * arrives from two ranks.  Reductions combine in worker order, rank by
 * rank: the result depends on P and T only.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

bool sap_dist_ok(const sap_async_spec *spec, const sap_reduce *r, const char **why)
{
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!(d->mode & SAP_WRITE))
			continue;
		if (d->accumulate) {
			/* Its buffers go to every rank with the reduce struct. */
			bool found = false;
			for (int a = 0; r && a < r->nacc; a++)
				found |= r->acc[a].dds == k;
			/* A relaxed one's views fold along the ranks. */
			for (int a = 0; r && a < r->nrel; a++)
				found |= r->rel[a].dv == d->dv;
			if (!found) {
				*why = "it accumulates into a DDS";
				return false;
			}
			continue;
		}
		if (!d->dv) {
			*why = "it writes a dmap";
			return false;
		}
		if (!d->flat && !d->dv->codec) {
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

static sap_send_rec *rec_new(sap_send_log *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = sap_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
	}
	return &l->v[l->n++];
}

/* The records of the keys key0 + i of DDS k whose bit i of x is set,
 * appended to the list l makes (after records of lower keys of k, or of
 * other DDSs):
 * made once for the lists a plan sends again and again.  A run of
 * consecutive keys of a vector of flat elements is one record, also
 * across words (a plan's blocks follow key order: one memcpy a run, not
 * a call and a header an element); other keys of the word one masked
 * record (LDA's tokens, every other one this rank's: otherwise a
 * 16-byte header a 4-byte element); an element of strings or lists one
 * record each. */
static void recs_add(sap_send_log *l, const sap_async_spec *spec, int k, int64_t key0, uint64_t x)
{
	const sap_dvec *v = spec->dds[k].dv;
	if (v->codec || v->elsize > INT32_MAX / 64) {
		for (; x; x &= x - 1)
			*rec_new(l) = (sap_send_rec){ key0 + __builtin_ctzll(x), 0, k, 1 };
		return;
	}
	if (!x)
		return;
	int z = __builtin_ctzll(x);
	uint64_t y = x >> z;
	int n = __builtin_popcountll(y);
	if (y & (y + 1)) {
		*rec_new(l) = (sap_send_rec){ key0 + z, y, k, n };
		return;
	}
	sap_send_rec *last = l->n > l->from ? &l->v[l->n - 1] : NULL;
	if (last && !last->mask && last->dds == k && last->key + last->n == key0 + z &&
	    (int64_t)last->n + n <= INT32_MAX / (int64_t)v->elsize)
		last->n += n;
	else
		*rec_new(l) = (sap_send_rec){ key0 + z, 0, k, n };
}

/* Bitmaps over the keys of every written dvector of the loop, DDS k's
 * from word base[k]: one per round, for this rank's writes (wr) and its
 * reads and writes (tc); one per round and rank, for what to send that
 * rank after the round (now). */
typedef struct key_maps {
	int64_t *base, words;   /* base: ndds + 1 */
	uint64_t *wr, *tc, *now;
} key_maps;

/* The maps' words, DDS k's from base[k] (ndds + 1 of them, new). */
static int64_t map_words(const sap_async_spec *spec, int64_t **base)
{
	int64_t *b = sap_xcalloc((size_t)spec->ndds + 1, sizeof *b), words = 0;
	for (int k = 0; k < spec->ndds; k++) {
		b[k] = words;
		if ((spec->dds[k].mode & SAP_WRITE) && spec->dds[k].dv && !spec->dds[k].accumulate)
			words += (spec->dds[k].dv->n + 63) / 64;
	}
	b[spec->ndds] = words;
	*base = b;
	return words;
}

static void maps_make(key_maps *m, const sap_async_spec *spec, int64_t R)
{
	m->words = map_words(spec, &m->base);
	size_t n = (size_t)(R ? R : 1) * (size_t)(m->words ? m->words : 1);
	m->wr = sap_xcalloc(n, sizeof *m->wr);
	m->tc = sap_xcalloc(n, sizeof *m->tc);
	m->now = sap_xcalloc(n * (size_t)sap_nranks(), sizeof *m->now);
}

static void maps_free(key_maps *m)
{
	free(m->wr);
	free(m->tc);
	free(m->now);
}

/* Every rank's maps of one kind, rank d's round r at (d * R + r) * W. */
static uint64_t *gather(const uint64_t *mine, int64_t R, int64_t W)
{
	int P = sap_nranks();
	uint64_t *all = sap_xmalloc((size_t)P * (size_t)(R * W > 0 ? R * W : 1) * sizeof *all);
	sap_comm_allgather(mine, all, R * W, sizeof *all);
	return all;
}

/* now[r][d] = the keys written in round r whose next touch after round
 * r is rank d's, before any rank writes them again (else that writer
 * sends the newer value), swept from the last round down; and d's need
 * and the last writers (see sap_dist), swept up.  From every rank's
 * maps: p's, or else this rank's gathered. */
static void decide(key_maps *m, int64_t R, sap_dist *dist, const sap_plan *p)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t W = m->words;
	const uint64_t *tc = p->dist_tc, *wr = p->dist_wr;
	uint64_t *tcg = NULL, *wrg = NULL;
	if (!wr) {
		tc = tcg = gather(m->tc, R, W);
		wr = wrg = gather(m->wr, R, W);
	}
	uint64_t *later = sap_xcalloc((size_t)P * (size_t)W, sizeof *later);
	uint64_t *any = sap_xmalloc((size_t)W * sizeof *any);
	dist->incoming = sap_xcalloc((size_t)R * (size_t)W, sizeof *dist->incoming);
	for (int64_t r = R - 1; r >= 0; r--) {
		const uint64_t *mw = m->wr + r * W;
		for (int d = 0; d < P; d++) {
			uint64_t *now = m->now + (r * P + d) * W, *ld = later + d * W;
			for (int64_t b = 0; b < W; b++)
				if (d != me)
					now[b] = mw[b] & ld[b];
		}
		/* What the others send this rank after round r, the same way. */
		const uint64_t *lme = later + (int64_t)me * W;
		for (int q = 0; q < P; q++) {
			const uint64_t *wq = wr + ((int64_t)q * R + r) * W;
			for (int64_t b = 0; q != me && b < W; b++)
				dist->incoming[r * W + b] |= wq[b] & lme[b];
		}
		/* Before round r: d needs what it touches in r, and what it
		 * needed after r unless round r writes it anew. */
		memset(any, 0, (size_t)W * sizeof *any);
		for (int d = 0; d < P; d++) {
			const uint64_t *wd = wr + ((int64_t)d * R + r) * W;
			for (int64_t b = 0; b < W; b++)
				any[b] |= wd[b];
		}
		for (int d = 0; d < P; d++) {
			uint64_t *ld = later + d * W;
			const uint64_t *td = tc + ((int64_t)d * R + r) * W;
			for (int64_t b = 0; b < W; b++)
				ld[b] = td[b] | (ld[b] & ~any[b]);
		}
	}
	free(any);
	dist->need = sap_xcalloc((size_t)P * (size_t)W, sizeof *dist->need);
	dist->lastw = sap_xmalloc((size_t)W * 64 * sizeof *dist->lastw);
	for (int64_t b = 0; b < W * 64; b++)
		dist->lastw[b] = SAP_HOLD_ALL;
	uint64_t *before = later;       /* written in an earlier round */
	memset(before, 0, (size_t)(W ? W : 1) * sizeof *before);
	for (int64_t r = 0; r < R; r++) {
		for (int d = 0; d < P; d++) {
			uint64_t *nd = dist->need + d * W;
			const uint64_t *td = tc + ((int64_t)d * R + r) * W;
			for (int64_t b = 0; b < W; b++)
				nd[b] |= td[b] & ~before[b];
		}
		for (int d = 0; d < P; d++) {
			const uint64_t *wd = wr + ((int64_t)d * R + r) * W;
			for (int64_t b = 0; b < W; b++) {
				before[b] |= wd[b];
				for (uint64_t x = wd[b]; x; x &= x - 1)
					dist->lastw[b * 64 + __builtin_ctzll(x)] = (uint16_t)d;
			}
		}
	}
	free(tcg);
	free(wrg);
	free(later);
}

static void list_keys(sap_send_log *all, const key_maps *m, const uint64_t *bits,
                      const sap_async_spec *spec)
{
	for (int k = 0; k < spec->ndds; k++)
		for (int64_t b = m->base[k]; b < m->base[k + 1]; b++)
			recs_add(all, spec, k, (b - m->base[k]) * 64, bits[b]);
}

/* Which of this rank's threads may start round r + 1 while the rank
 * exchanges what round r wrote: those whose groups touch no block of a
 * key that arrives (early[r * threads + t]). */
static void start_early(sap_dist *d, const sap_plan *p, const sap_async_spec *spec,
                        const sap_layout *ly, int rank, int threads)
{
	int64_t R = d->nrounds, W = d->words;
	int T = p->nworkers;
	d->early = sap_xcalloc((size_t)R * (size_t)threads, sizeof *d->early);
	for (int64_t r = 0; r + 1 < R; r++) {
		uint64_t in = 0;
		for (int k = 0; k < spec->ndds; k++)
			for (int64_t b = d->base[k]; !ly->d[k].own && b < d->base[k + 1]; b++)
				for (uint64_t x = d->incoming[r * W + b]; x; x &= x - 1) {
					int64_t key = (b - d->base[k]) * 64 + __builtin_ctzll(x);
					uint64_t bit = sap_rec_bit(&ly->d[k], key);
					in |= (uint64_t)1 << p->bit[__builtin_ctzll(bit)];
				}
		for (int t = 0; t < threads; t++) {
			int w = rank * threads + t;
			bool ok = !p->rlocked[r + 1];
			for (int64_t g = p->ro[(r + 1) * T + w]; ok && g < p->ro[(r + 1) * T + w + 1]; g++)
				ok = !(p->gmask[p->rg[g]] & in);
			d->early[r * threads + t] = ok;
		}
	}
}

void sap_dist_premark(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly, void *env,
                      int64_t a, int64_t b, int threads, const int64_t *grp)
{
	int P = sap_nranks(), T = p->nworkers;
	int64_t R = p->nrounds, *base, W = map_words(spec, &base);
	/* slot numbers a rank's round in 32 bits. */
	if (!W || p->nlocked || !p->mine || (int64_t)P * R > UINT32_MAX) {
		free(base);
		return;
	}
	int64_t *round = sap_xmalloc((size_t)p->ngroups * sizeof *round);
	for (int64_t r = 0; r < R; r++)
		for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++)
			round[p->rg[k]] = r;
	uint32_t *slot = sap_xmalloc((size_t)(b - a + 1) * sizeof *slot);
	for (int64_t i = a; i < b; i++)
		slot[i - a] = (uint32_t)(p->mine[grp[i - a]] * R + round[grp[i - a]]);
	size_t n = (size_t)P * (size_t)R * (size_t)W;
	uint64_t *maps = sap_xcalloc(2 * n, sizeof *maps);
	sap_recon_mark_slots(spec, ly, env, a, b, threads, slot, base, W, maps, maps + n);
	sap_comm_allreduce(maps, (int64_t)(2 * n), SAP_COMM_U64, SAP_COMM_BOR);
	p->dist_wr = maps;
	p->dist_tc = maps + n;
	free(slot);
	free(round);
	free(base);
}

/* The slice runs over each group's list in the plan, so that it reads the
 * group's plan-order copies when the loop has them, unless the ranks
 * that sliced the iterations for the plan marked their keys already
 * (sap_dist_premark).  Collective. */
void sap_dist_build(sap_dist *d, const sap_plan *p, const sap_async_spec *spec,
                    const sap_layout *ly, void *env, int rank, int threads)
{
	int T = p->nworkers, P = sap_nranks();
	int64_t R = p->nrounds;
	if (P > SAP_HOLD_ALL)
		sap_fatal(NULL, "async loops over more than %d ranks are not supported",
		          SAP_HOLD_ALL);
	memset(d, 0, sizeof *d);
	d->nrounds = R;
	d->off = sap_xcalloc((size_t)(R * P) + 1, sizeof *d->off);
	key_maps m;
	maps_make(&m, spec, R);
	if (p->dist_wr) {
		size_t mine = (size_t)rank * (size_t)R * (size_t)m.words;
		memcpy(m.wr, p->dist_wr + mine, (size_t)(R * m.words) * sizeof *m.wr);
		memcpy(m.tc, p->dist_tc + mine, (size_t)(R * m.words) * sizeof *m.tc);
	}
	uint64_t **wr = sap_xcalloc((size_t)spec->ndds, sizeof *wr);
	uint64_t **tc = sap_xcalloc((size_t)spec->ndds, sizeof *tc);
	for (int64_t r = 0; r < R && m.words && !p->dist_wr; r++) {
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
	decide(&m, R, d, p);
	d->later = sap_xcalloc((size_t)(R + 1) * (size_t)m.words, sizeof *d->later);
	for (int64_t r = R - 1; r >= 0; r--)
		for (int64_t b = 0; b < m.words; b++)
			d->later[r * m.words + b] = d->later[(r + 1) * m.words + b] |
			                            m.tc[r * m.words + b];

	sap_send_log all = { 0 };
	for (int64_t r = 0; r < R; r++)
		for (int q = 0; q < P; q++) {
			all.from = all.n;
			list_keys(&all, &m, m.now + (r * P + q) * m.words, spec);
			d->off[r * P + q + 1] = all.n;
		}
	maps_free(&m);
	d->recs = all.v;
	d->base = m.base;
	d->words = m.words;
	start_early(d, p, spec, ly, rank, threads);
}

static uint64_t stamp_of(const sap_dvec *v)
{
	return v->holder ? v->holder->stamp : 0;
}

/* Whether a DDS of spec has keys in the maps and a holder map. */
static bool scattered(const sap_dist *d, const sap_async_spec *spec)
{
	for (int k = 0; k < spec->ndds; k++)
		if (d->base[k + 1] > d->base[k] && spec->dds[k].dv->holder)
			return true;
	return false;
}

/* The keys this rank sends each rank before the plan's first round:
 * those it holds of the ones that rank needs. */
static void fetch_lists(sap_dist *d, const sap_async_spec *spec)
{
	int P = sap_nranks(), me = sap_rank();
	sap_send_log lg = { 0 };
	free(d->frecs);
	free(d->foff);
	int64_t *off = sap_xcalloc((size_t)P + 1, sizeof *off);
	for (int e = 0; e < P; e++) {
		const uint64_t *ne = d->need + (int64_t)e * d->words;
		lg.from = lg.n;
		for (int k = 0; e != me && k < spec->ndds; k++) {
			const sap_dvec *v = spec->dds[k].dv;
			for (int64_t b = d->base[k]; v && v->holder && b < d->base[k + 1]; b++) {
				/* A block of the holder map that is all another
				 * rank's (or every rank's) sends nothing. */
				int64_t blk = ((b - d->base[k]) * 64) >> SAP_HOLD_SHIFT;
				if (!v->holder->blk[blk] && v->holder->val[blk] != me) {
					b = d->base[k] + (((blk + 1) << SAP_HOLD_SHIFT) / 64) - 1;
					continue;
				}
				uint64_t mine = 0;
				for (uint64_t x = ne[b]; x; x &= x - 1) {
					int64_t key = (b - d->base[k]) * 64 + __builtin_ctzll(x);
					if (sap_hold_get(v, key) == me)
						mine |= x & -x;
				}
				recs_add(&lg, spec, k, (b - d->base[k]) * 64, mine);
			}
		}
		off[e + 1] = lg.n;
	}
	d->frecs = lg.v;
	d->foff = off;
}

/* Whether d's cached fetch lists were made from the holder maps as they
 * are now; if not, the maps' stamps are kept for the new lists. */
static bool fetch_cached(sap_dist *d, const sap_async_spec *spec)
{
	bool same = d->fstamp != NULL;
	if (!d->fstamp)
		d->fstamp = sap_xcalloc((size_t)spec->ndds, sizeof *d->fstamp);
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dvec *v = spec->dds[k].dv;
		uint64_t s = d->base[k + 1] > d->base[k] && v ? stamp_of(v) : 0;
		same &= d->fstamp[k] == s;
		d->fstamp[k] = s;
	}
	return same;
}

void sap_dist_fetch(sap_dist *d, const sap_async_spec *spec, sap_dist_stats *stats)
{
	if (!scattered(d, spec))
		return;
	/* The lists depend on the need, fixed, and the holder maps: a loop
	 * run again with nothing moved in between finds them as it left
	 * them, and scanning every needed key again cost LDA's sweep on 2
	 * ranks 0.7 ms of 30. */
	if (!fetch_cached(d, spec))
		fetch_lists(d, spec);
	sap_dist_send_each(d->frecs, d->foff, spec, stats, d->later ? sap_dist_release_cb : NULL,
	                   &(sap_dist_at){ d, spec, 0 });
}

/* A key of DDS k stays on this rank if it touches it from round `from`
 * of the invocation on, or holds it at the end: its last writer's, or if
 * none, its holder's now. */
typedef struct keep_arg {
	const sap_dist *d;
	int k;
	int64_t from;
} keep_arg;

static bool keep_key(const sap_dvec *v, int64_t k0, int64_t k1, void *arg)
{
	const keep_arg *a = arg;
	const sap_dist *d = a->d;
	const uint64_t *later = d->later + a->from * d->words + d->base[a->k];
	for (int64_t key = k0; key < k1; key++) {
		if (later[key / 64] >> (key % 64) & 1)
			return true;
		uint16_t h = d->lastw[d->base[a->k] * 64 + key];
		if (h == SAP_HOLD_ALL)
			h = v->holder ? sap_hold_get(v, key) : SAP_HOLD_ALL;
		if (h == sap_rank() || h == SAP_HOLD_ALL)
			return true;
	}
	return false;
}

void sap_dist_release(const sap_dist *d, const sap_async_spec *spec, int64_t from)
{
	for (int k = 0; k < spec->ndds; k++) {
		sap_dvec *v = spec->dds[k].dv;
		if (d->base[k + 1] == d->base[k] || !v->sparse)
			continue;
		/* Before what goes: the most this rank held in the loop. */
		sap_dv_recount(v);
		keep_arg a = { d, k, from };
		sap_dv_release(v, keep_key, &a);
	}
}

void sap_dist_release_cb(void *arg)
{
	const sap_dist_at *at = arg;
	sap_dist_release(at->d, at->spec, at->from);
}

void sap_dist_settle(sap_dist *d, const sap_async_spec *spec)
{
	if (!d->stamp) {
		d->stamp = sap_xcalloc((size_t)spec->ndds, sizeof *d->stamp);
	} else {
		/* Settling again what the last settle left is a no-op that
		 * costs a scan of every key of the plan's (LDA's z: every
		 * token). */
		bool same = true;
		for (int k = 0; k < spec->ndds && same; k++)
			if (d->base[k + 1] > d->base[k])
				same = stamp_of(spec->dds[k].dv) == d->stamp[k];
		if (same)
			return;
	}
	for (int k = 0; k < spec->ndds; k++)
		if (d->base[k + 1] > d->base[k]) {
			sap_dvec *v = spec->dds[k].dv;
			const uint16_t *lw = d->lastw + d->base[k] * 64;
			int64_t i = 0;
			while (i < v->n && lw[i] == SAP_HOLD_ALL)
				i++;
			if (i < v->n) {
				sap_hold_map(v);
				sap_hold_from(v, lw);
				sap_hold_tidy(v);
			}
			d->stamp[k] = stamp_of(v);
		}
}

void sap_dist_free(sap_dist *d)
{
	free(d->off);
	free(d->recs);
	free(d->base);
	free(d->need);
	free(d->lastw);
	free(d->later);
	free(d->incoming);
	free(d->early);
	free(d->stamp);
	free(d->frecs);
	free(d->foff);
	free(d->fstamp);
	memset(d, 0, sizeof *d);
}

/* ---- exchanging written elements ---- */

/* On the wire, a record (sap_send_rec) is a header, (key, dds, length of
 * what follows), then the elements, padded to 8 bytes.  A masked
 * record's header has dds stored as -1 - dds, and the elements follow a
 * word whose bit i says that key + i is there. */
typedef struct rec_head {
	int64_t key;
	int32_t dds, len;
} rec_head;

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The bytes of record c after its header. */
static size_t rec_bytes(const sap_send_rec *c, const sap_async_spec *spec)
{
	const sap_dvec *v = spec->dds[c->dds].dv;
	if (c->mask)
		return sizeof c->mask + (size_t)c->n * v->elsize;
	return v->codec ? sap_dv_put(v, c->key, NULL) : (size_t)c->n * v->elsize;
}

/* Bytes of the records recs[0 .. n). */
static size_t records(const sap_send_rec *recs, int64_t n, const sap_async_spec *spec)
{
	size_t bytes = 0;
	for (int64_t k = 0; k < n; k++)
		bytes += sizeof(rec_head) + pad8(rec_bytes(&recs[k], spec));
	return bytes;
}

/* The elements of base (of es bytes) at the bits of mask, to out, one
 * after another; with the common sizes' copies inlined, as a round's
 * records scatter over a vector an element or two a word. */
static void gather_masked(char *out, const char *base, uint64_t mask, size_t es)
{
	switch (es) {
	case 4:
		for (; mask; mask &= mask - 1, out += 4)
			memcpy(out, base + 4 * __builtin_ctzll(mask), 4);
		break;
	case 8:
		for (; mask; mask &= mask - 1, out += 8)
			memcpy(out, base + 8 * __builtin_ctzll(mask), 8);
		break;
	default:
		for (; mask; mask &= mask - 1, out += es)
			memcpy(out, base + es * (size_t)__builtin_ctzll(mask), es);
	}
}

/* The other way: in's elements to base at the bits of mask. */
static void scatter_masked(char *base, const char *in, uint64_t mask, size_t es)
{
	switch (es) {
	case 4:
		for (; mask; mask &= mask - 1, in += 4)
			memcpy(base + 4 * __builtin_ctzll(mask), in, 4);
		break;
	case 8:
		for (; mask; mask &= mask - 1, in += 8)
			memcpy(base + 8 * __builtin_ctzll(mask), in, 8);
		break;
	default:
		for (; mask; mask &= mask - 1, in += es)
			memcpy(base + es * (size_t)__builtin_ctzll(mask), in, es);
	}
}

static char *pack(char *p, const sap_send_rec *recs, int64_t n, const sap_async_spec *spec)
{
	for (int64_t k = 0; k < n; k++) {
		const sap_send_rec *c = &recs[k];
		const sap_dvec *v = spec->dds[c->dds].dv;
		char *at = p + sizeof(rec_head);
		size_t len, es = v->elsize;
		if (c->mask) {
			memcpy(at, &c->mask, sizeof c->mask);
			gather_masked(at + sizeof c->mask, v->data + (size_t)c->key * es, c->mask, es);
			len = sizeof c->mask + (size_t)c->n * es;
		} else if (v->codec) {
			len = sap_dv_put(v, c->key, at);
		} else {
			len = (size_t)c->n * es;
			memcpy(at, v->data + (size_t)c->key * es, len);
		}
		if (len > INT32_MAX)
			sap_fatal(NULL, "an element of %s takes more than 2 GiB", v->name);
		rec_head h = { c->key, c->mask ? -1 - c->dds : c->dds, (int32_t)len };
		memcpy(p, &h, sizeof h);
		memset(p + sizeof h + len, 0, pad8(len) - len);
		p += sizeof h + pad8(len);
	}
	return p;
}

static void unpack(const char *q, const char *end, const sap_async_spec *spec)
{
	while (q < end) {
		rec_head h;
		memcpy(&h, q, sizeof h);
		const char *at = q + sizeof h;
		if (h.dds < 0) {
			sap_dvec *v = spec->dds[-1 - h.dds].dv;
			uint64_t mask;
			memcpy(&mask, at, sizeof mask);
			scatter_masked(v->data + (size_t)h.key * v->elsize, at + sizeof mask, mask, v->elsize);
		} else {
			sap_dvec *v = spec->dds[h.dds].dv;
			if (v->codec)
				sap_dv_take(v, h.key, at);
			else
				memcpy(v->data + (size_t)h.key * v->elsize, at, (size_t)h.len);
		}
		q += sizeof h + pad8((size_t)h.len);
	}
}

void sap_dist_send_each(const sap_send_rec *recs, const int64_t *off, const sap_async_spec *spec,
                        sap_dist_stats *stats, void (*packed)(void *), void *arg)
{
	int P = sap_nranks();
	int64_t *scnt = sap_xmalloc((size_t)P * sizeof *scnt), *sdis = sap_xmalloc((size_t)P * sizeof *sdis);
	int64_t *rcnt = sap_xmalloc((size_t)P * sizeof *rcnt);
	int64_t *rdis = sap_xmalloc((size_t)(P + 1) * sizeof *rdis);
	int64_t sent = 0;
	for (int d = 0; d < P; d++) {
		sdis[d] = sent;
		scnt[d] = (int64_t)records(recs + off[d], off[d + 1] - off[d], spec);
		sent += scnt[d];
	}
	char *out = sap_xmalloc((size_t)sent);
	for (int d = 0; d < P; d++)
		pack(out + sdis[d], recs + off[d], off[d + 1] - off[d], spec);
	char *in = sap_comm_exchange(out, scnt, rcnt, rdis);
	int64_t got = rdis[P];
	if (packed)
		packed(arg);
	/* In rank order: the plan never lets two ranks write one element in
	 * a round. */
	for (int d = 0; d < P; d++)
		unpack(in + rdis[d], in + rdis[d] + rcnt[d], spec);
	if (stats) {
		stats->sent += sent;
		stats->received += got;
	}
	free(out);
	free(in);
	free(scnt);
	free(sdis);
	free(rcnt);
	free(rdis);
}

/* ---- the chain over ranks ---- */

/* The chain moves a vector in pieces of whole elements: rank r adds its
 * workers' terms to piece k + 1 while rank r + 1 adds its own to piece
 * k, so that P ranks take about (k + P - 2) piece times for k pieces
 * instead of (P - 1) whole vectors.  A piece is at least CHAIN_PIECE
 * bytes: past Open MPI's eager limits, so it goes by one rendezvous
 * without staging copies, and small enough to stay in cache while the
 * workers' terms are added to it.  But each piece costs a handshake
 * between two ranks, which on busy or shared cores waits for the other
 * rank to be scheduled: a vector is cut in at most CHAIN_PER_HOP pieces
 * per hop of the chain, which keeps the pipeline's fill, (P - 2) pieces,
 * within about a quarter of the vector while bounding the handshakes (on
 * 2 ranks, with no fill to hide, 256 KiB pieces of a 4 MB vector took
 * twice as long as 1 MiB ones on a loaded machine). */
enum { CHAIN_PIECE = 256 << 10, CHAIN_PER_HOP = 4 };
/* and at most a GiB, so that a piece's bytes fit an int count. */
#define CHAIN_PIECE_MAX ((size_t)1 << 30)
/* Pieces a rank has sent on and not seen arrive: enough to cover the
 * latency of a handshake, few enough to keep the MPI library's queues
 * short. */
enum { CHAIN_FLIGHT = 4 };

/* The bytes of buf (elements of es bytes, of v) that rank r is sent
 * after a chain: the elements it holds and those every rank holds, in
 * key order; packed at out if not NULL. */
static size_t holders_part(const sap_dvec *v, const char *buf, size_t es, int r, char *out)
{
	size_t bytes = 0;
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h != r && h != SAP_HOLD_ALL)
			continue;
		if (out)
			memcpy(out + bytes, buf + (size_t)k * es, (size_t)(j - k) * es);
		bytes += (size_t)(j - k) * es;
	}
	return bytes;
}

static void holders_unpack(const sap_dvec *v, char *buf, size_t es, const char *in)
{
	int me = sap_rank();
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h != me && h != SAP_HOLD_ALL)
			continue;
		memcpy(buf + (size_t)k * es, in, (size_t)(j - k) * es);
		in += (size_t)(j - k) * es;
	}
}

/* The last rank's total to each rank, of the elements it holds. */
static void send_to_holders(const sap_dvec *v, char *buf, size_t es, sap_dist_stats *stats)
{
	int P = sap_nranks(), me = sap_rank();
	if (me != P - 1) {
		size_t bytes = holders_part(v, buf, es, me, NULL);
		char *in = sap_xmalloc(bytes);
		sap_comm_recv(in, (int64_t)bytes, 1, P - 1, SAP_CH_HOLDERS);
		holders_unpack(v, buf, es, in);
		free(in);
		stats->received += (int64_t)bytes;
		return;
	}
	for (int r = 0; r < P - 1; r++) {
		size_t bytes = holders_part(v, buf, es, r, NULL);
		char *out = sap_xmalloc(bytes);
		holders_part(v, buf, es, r, out);
		sap_comm_send(out, (int64_t)bytes, 1, r, SAP_CH_HOLDERS);
		free(out);
		stats->sent += (int64_t)bytes;
	}
}

bool sap_chain_sum(char *buf, int64_t n, size_t es, bool mine, sap_chain_fn add, void *arg,
                   sap_dist_stats *stats)
{
	return sap_chain_sum_to(buf, n, es, mine, add, arg, NULL, stats);
}

bool sap_chain_sum_to(char *buf, int64_t n, size_t es, bool mine, sap_chain_fn add, void *arg,
                      const sap_dvec *to, sap_dist_stats *stats)
{
	int P = sap_nranks(), me = sap_rank();
	size_t piece = (size_t)n * es / ((size_t)CHAIN_PER_HOP * (size_t)(P > 1 ? P - 1 : 1)) + 1;
	if (piece > CHAIN_PIECE_MAX)
		piece = CHAIN_PIECE_MAX;
	if (piece < CHAIN_PIECE)
		piece = CHAIN_PIECE;
	int64_t m = es < piece ? (int64_t)(piece / es) : 1;
	if (P == 1) {
		for (int64_t e0 = 0; mine && e0 < n; e0 += m)
			add(arg, e0, n - e0 < m ? n : e0 + m, NULL);
		if (!mine)
			memset(buf, 0, (size_t)n * es);
		return mine;
	}
	/* First whether the ranks so far had any term, then, if so, their
	 * sum piece by piece. */
	int in = 0, have;
	if (me > 0)
		sap_comm_recv(&in, 1, sizeof in, me - 1, SAP_CH_CHAIN);
	have = in || mine;
	bool next = me < P - 1;
	if (next)
		sap_comm_send(&have, 1, sizeof have, me + 1, SAP_CH_CHAIN);
	if (have && n > 0) {
		size_t pb = (size_t)m * es;
		char *pre[2] = { NULL, NULL };
		sap_comm_req rq[2] = { 0 }, sq[CHAIN_FLIGHT] = { 0 };
		if (in) {
			pre[0] = sap_xmalloc(pb);
			pre[1] = sap_xmalloc(pb);
			sap_comm_irecv(pre[0], n < m ? n : m, es, me - 1, SAP_CH_CHAIN, &rq[0]);
		}
		for (int64_t k = 0, e0 = 0; e0 < n; k++, e0 += m) {
			int64_t e1 = n - e0 < m ? n : e0 + m;
			if (in) {
				/* The next piece comes in while this one is added. */
				if (e1 < n)
					sap_comm_irecv(pre[(k + 1) % 2], n - e1 < m ? n - e1 : m, es, me - 1,
					               SAP_CH_CHAIN, &rq[(k + 1) % 2]);
				sap_comm_wait(&rq[k % 2]);
			}
			add(arg, e0, e1, in ? pre[k % 2] : NULL);
			if (next) {
				sap_comm_req *s = &sq[k % CHAIN_FLIGHT];
				sap_comm_wait(s);
				sap_comm_isend(buf + (size_t)e0 * es, e1 - e0, es, me + 1, SAP_CH_CHAIN, s);
			}
		}
		sap_comm_waitall(CHAIN_FLIGHT, sq);
		free(pre[0]);
		free(pre[1]);
		if (in)
			stats->received += (int64_t)((size_t)n * es);
		if (next)
			stats->sent += (int64_t)((size_t)n * es);
	}
	/* The last rank's total to every rank; Open MPI pipelines a large
	 * broadcast itself. */
	int any = have;
	sap_comm_bcast(&any, 1, sizeof any, P - 1);
	size_t bytes = (size_t)n * es;
	if (!any) {
		memset(buf, 0, bytes);
		return false;
	}
	if (to) {
		send_to_holders(to, buf, es, stats);
		return true;
	}
	sap_comm_bcast(buf, (int64_t)bytes, 1, P - 1);
	if (me == P - 1)
		stats->sent += (int64_t)bytes * (P - 1);
	else
		stats->received += (int64_t)bytes;
	return true;
}

/* The bytes of map accumulate buffer a of red, at out if not NULL; a
 * vector's buffer goes by sap_chain_sum, so none. */
static size_t acc_pack(const sap_reduce *r, const sap_async_spec *spec, int a, const char *red,
                       char *out)
{
	if (spec->dds[r->acc[a].dds].dv)
		return 0;
	return sap_dm_pack((const sap_dmap *)(red + r->acc[a].off), out);
}

/* Struct red (of reduce r) and its map accumulate buffers as bytes: the
 * struct, then each map's entries. */
static char *pack_red(const sap_reduce *r, const sap_async_spec *spec, const char *red,
                      int64_t *bytes)
{
	size_t rs = (r->size + 7) & ~(size_t)7, n = rs;
	for (int a = 0; a < r->nacc; a++)
		n += acc_pack(r, spec, a, red, NULL);
	char *out = sap_xcalloc(n, 1), *o = out + rs;
	memcpy(out, red, r->size);
	for (int a = 0; a < r->nacc; a++)
		o += acc_pack(r, spec, a, red, o);
	*bytes = (int64_t)n;
	return out;
}

/* red becomes the struct packed at p, with maps of its own in place of
 * its old ones (freed), and its own vector buffers. */
static void replace_red(const sap_reduce *r, const sap_async_spec *spec, char *red, const char *p)
{
	char *in = sap_xmalloc(r->size);
	memcpy(in, p, r->size);
	p += (r->size + 7) & ~(size_t)7;
	for (int a = 0; a < r->nacc; a++) {
		size_t off = r->acc[a].off;
		if (spec->dds[r->acc[a].dds].dv) {
			memcpy(in + off, red + off, sizeof(void *));
		} else {
			sap_dmap *mine = (sap_dmap *)(red + off), *m = (sap_dmap *)(in + off);
			sap_dm_create_buffer(m, mine->name, mine->kk, mine->valsize, mine->num);
			/* A dense buffer stays one (its array taken over), with
			 * its sums if they are every rank's (dense_chains). */
			if (mine->shadow) {
				m->shadow = mine->shadow;
				m->dense = mine->dense;
				m->dense_all = mine->dense_all;
				mine->shadow = NULL;
				mine->dense = NULL;
				if (!m->dense_all)
					sap_nt_identity(m->num, m->dense, m->shadow->nents);
			}
			p = sap_dm_unpack(m, p);
			sap_dm_free(mine);
		}
	}
	memcpy(red, in, r->size);
	free(in);
}

/* A vector accumulate buffer's piece in the chain (or a map buffer's
 * dense array's, map): pre's elements, or the zeros of init on rank 0,
 * then each worker's, in order. */
typedef struct acc_job {
	const sap_numtype *num;
	size_t es;
	const char *reds;
	size_t rsize, off;
	int T;
	char *into;
	bool map;
} acc_job;

static void acc_add(void *arg, int64_t e0, int64_t e1, const void *pre)
{
	acc_job *j = arg;
	char *d = j->into + (size_t)e0 * j->es;
	if (pre)
		memcpy(d, pre, (size_t)(e1 - e0) * j->es);
	for (int w = 0; w < j->T; w++) {
		const char *at = j->reds + (size_t)w * j->rsize + j->off, *b;
		if (j->map)
			b = ((const sap_dmap *)at)->dense;
		else
			memcpy(&b, at, sizeof b);
		sap_acc_add(j->num, d, b + (size_t)e0 * j->es, e1 - e0);
	}
}

/* A map accumulate buffer that shadows its target (sap_acc_shadow) has
 * the sums of the target's keys in an array by entry.  Where every rank's
 * target holds the same keys at the same entries (a map the ranks built
 * alike, as they do in driver code and by merges), the arrays add up
 * along the chain piece by piece, as a vector's buffers do, in the order
 * the records would: ((rank 0's workers) + rank 1's workers) + ...  Only
 * keys new to the target then go as records.  Whether the targets agree
 * is asked of all ranks, by a hash of their entries in order. */
static void dense_chains(const sap_reduce *r, const sap_async_spec *spec, char *reds, int T,
                         char *red, sap_dist_stats *stats)
{
	int n = 0;
	for (int a = 0; a < r->nacc; a++)
		n += spec->dds[r->acc[a].dds].dm != NULL;
	if (!n)
		return;
	/* Per map: its target's hash and entries + 1 (0: no dense buffer
	 * here), then the same complemented, so that one MAX gives the
	 * largest and the smallest. */
	uint64_t *v = sap_xcalloc((size_t)4 * (size_t)n, sizeof *v);
	for (int a = 0, k = 0; a < r->nacc; a++) {
		if (!spec->dds[r->acc[a].dds].dm)
			continue;
		size_t off = r->acc[a].off;
		const sap_dmap *b = (const sap_dmap *)(red + off);
		bool ok = b->shadow && !b->dense_all;
		for (int w = 0; ok && w < T; w++)
			ok = ((const sap_dmap *)(reds + (size_t)w * r->size + off))->shadow == b->shadow;
		uint64_t h = ok ? sap_dm_order_hash(b->shadow) : 0;
		uint64_t ne = ok ? (uint64_t)b->shadow->nents + 1 : 0;
		v[2 * k] = h;
		v[2 * k + 1] = ne;
		v[2 * n + 2 * k] = ~h;
		v[2 * n + 2 * k + 1] = ~ne;
		k++;
	}
	sap_comm_allreduce(v, 4 * n, SAP_COMM_U64, SAP_COMM_MAX);
	for (int a = 0, k = 0; a < r->nacc; a++) {
		if (!spec->dds[r->acc[a].dds].dm)
			continue;
		bool same = v[2 * k + 1] && v[2 * k] == ~v[2 * n + 2 * k] &&
		            v[2 * k + 1] == ~v[2 * n + 2 * k + 1];
		k++;
		if (!same)
			continue;
		size_t off = r->acc[a].off;
		sap_dmap *b = (sap_dmap *)(red + off);
		acc_job j = { b->num, b->valsize, reds, r->size, off, T, b->dense, true };
		sap_chain_sum_to(b->dense, b->shadow->nents, b->valsize, true, acc_add, &j, NULL,
		                 stats);
		b->dense_all = true;
		for (int w = 0; w < T; w++) {
			sap_dmap *wb = (sap_dmap *)(reds + (size_t)w * r->size + off);
			sap_acc_free(wb->dense);
			wb->dense = NULL;
			wb->shadow = NULL;
		}
	}
	free(v);
}

static void big_send(const char *b, int64_t n, int to)
{
	sap_comm_send(&n, 1, sizeof n, to, SAP_CH_CHAIN);
	sap_comm_send(b, n, 1, to, SAP_CH_CHAIN);
}

static char *big_recv(int from, int64_t *n)
{
	sap_comm_recv(n, 1, sizeof *n, from, SAP_CH_CHAIN);
	char *b = sap_xmalloc((size_t)*n + 1);
	sap_comm_recv(b, *n, 1, from, SAP_CH_CHAIN);
	return b;
}


/* With one worker a rank, a vector held in pieces by the ranks (no
 * element held by all) needs no chain: each rank sends each holder its
 * worker's sums of that holder's elements, all at once, and the holder
 * adds them up in rank order, which is the chain's order, so the sums
 * are the same bit for bit; a rank sends (P - 1) / P of the vector
 * rather than the chain's whole vector on and part of it back.  buf,
 * the driver's buffer, is zero where this rank holds; mine is its
 * worker's.  False, with nothing sent, where it does not apply, the same
 * on every rank: the holder map is. */
static bool acc_to_holders(const sap_numtype *num, const sap_dvec *v, char *buf,
                           const char *mine, sap_dist_stats *stats)
{
	int P = sap_nranks(), me = sap_rank();
	size_t es = v->elsize;
	int64_t *held = sap_xcalloc((size_t)P, sizeof *held);
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h == SAP_HOLD_ALL) {
			free(held);
			return false;
		}
		held[h] += (j - k) * (int64_t)es;
	}
	int64_t total = 0;
	for (int q = 0; q < P; q++)
		total += held[q];
	if (!sap_comm_fits(total - held[me]) || !sap_comm_fits(held[me] * (P - 1))) {
		free(held);
		return false;
	}
	int64_t *scnt = sap_xmalloc((size_t)P * sizeof *scnt), *sdis = sap_xmalloc((size_t)P * sizeof *sdis);
	int64_t *rcnt = sap_xmalloc((size_t)P * sizeof *rcnt), *rdis = sap_xmalloc((size_t)P * sizeof *rdis);
	int64_t so = 0, ro = 0;
	for (int q = 0; q < P; q++) {
		scnt[q] = q == me ? 0 : held[q];
		rcnt[q] = q == me ? 0 : held[me];
		sdis[q] = so;
		rdis[q] = ro;
		so += scnt[q];
		ro += rcnt[q];
	}
	char *out = sap_xmalloc((size_t)so + 1), *in = sap_xmalloc((size_t)ro + 1);
	int64_t *at = sap_xcalloc((size_t)P, sizeof *at);
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h == me)
			continue;
		memcpy(out + sdis[h] + at[h], mine + (size_t)k * es, (size_t)(j - k) * es);
		at[h] += (int64_t)((size_t)(j - k) * es);
	}
	sap_comm_alltoallv(out, scnt, sdis, in, rcnt, rdis, 1);
	stats->sent += so;
	stats->received += ro;
	/* ((0 + rank 0's) + rank 1's) + ... on the elements held here. */
	size_t pos = 0;
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h != me)
			continue;
		char *d = buf + (size_t)k * es;
		for (int q = 0; q < P; q++)
			sap_acc_add(num, d, q == me ? mine + (size_t)k * es : in + rdis[q] + pos, j - k);
		pos += (size_t)(j - k) * es;
	}
	free(at);
	free(out);
	free(in);
	free(scnt);
	free(sdis);
	free(rcnt);
	free(rdis);
	free(held);
	return true;
}

/* ---- sparse accumulate buffers ----
 *
 * A loop that adds to few elements of a large vector (counts by hashed
 * features, a sparse gradient) leaves its workers' buffers zero almost
 * everywhere, and the chain would still carry the whole vector from rank
 * to rank and back.  Each worker's blocks with a bit set then go to every
 * rank, which adds them up worker by worker, rank by rank: the chain's
 * order, ((0 + rank 0's worker 0's) + its worker 1's) + ..., so the sums
 * are the same bit for bit.  A block of zeros adds nothing: a sum that
 * starts at +0.0 never becomes -0.0, and x + +0.0 is x for every other
 * x.  Whether the blocks are few enough is decided from every rank's
 * count, the same on all. */
enum { SPARSE_BLOCK = 512 };

/* Worker w's buffer (of job j). */
static const char *worker_buf(const acc_job *j, int w)
{
	const char *b;
	memcpy(&b, j->reds + (size_t)w * j->rsize + j->off, sizeof b);
	return b;
}

/* The bytes of this rank's workers' non-zero blocks, as [count, then
 * (block, bytes) per block] per worker, stopping past limit; the blocks
 * go to ks (nb a worker), their counts to cnt. */
static int64_t sparse_scan(const acc_job *j, int64_t n, int64_t be, int64_t limit, int64_t *ks,
                           int64_t *cnt)
{
	int64_t bytes = 0, nb = (n + be - 1) / be;
	for (int w = 0; w < j->T && bytes <= limit; w++) {
		const char *b = worker_buf(j, w);
		cnt[w] = 0;
		bytes += (int64_t)sizeof *cnt;
		for (int64_t k = 0; k < nb && bytes <= limit; k++) {
			int64_t e0 = k * be, e1 = e0 + be < n ? e0 + be : n;
			size_t len = (size_t)(e1 - e0) * j->es;
			if (sap_acc_idle(j->num, b + (size_t)e0 * j->es, e1 - e0))
				continue;
			ks[w * nb + cnt[w]++] = k;
			bytes += (int64_t)(sizeof k + len);
		}
	}
	return bytes;
}

/* The blocks sparse_scan found, packed at out. */
static void sparse_pack(const acc_job *j, int64_t n, int64_t be, const int64_t *ks,
                        const int64_t *cnt, char *out)
{
	int64_t nb = (n + be - 1) / be;
	for (int w = 0; w < j->T; w++) {
		const char *b = worker_buf(j, w);
		memcpy(out, &cnt[w], sizeof *cnt);
		out += sizeof *cnt;
		for (int64_t i = 0; i < cnt[w]; i++) {
			int64_t k = ks[w * nb + i], e0 = k * be, e1 = e0 + be < n ? e0 + be : n;
			size_t len = (size_t)(e1 - e0) * j->es;
			memcpy(out, &k, sizeof k);
			memcpy(out + sizeof k, b + (size_t)e0 * j->es, len);
			out += sizeof k + len;
		}
	}
}

/* The total of every worker's buffer into j->into (zero all over), or,
 * with v, into the elements of v this rank holds (zero there), by the
 * blocks, when they are fewer bytes than the vector; false, nothing
 * done, otherwise, on every rank alike. */
static bool acc_sparse(acc_job *j, int64_t n, const sap_dvec *v, sap_dist_stats *stats)
{
	int P = sap_nranks();
	int64_t be = j->es >= SPARSE_BLOCK ? 1 : (int64_t)(SPARSE_BLOCK / j->es);
	int64_t whole = n * (int64_t)j->es;
	/* A glance first: a buffer with most of 64 blocks across it set is
	 * dense (PageRank's next), and not scanned whole to tell. */
	int64_t nb = (n + be - 1) / be, set = 0;
	for (int s = 0; s < 64 && nb >= 256 && j->T > 0; s++) {
		int64_t k = nb * s / 64, e0 = k * be, e1 = e0 + be < n ? e0 + be : n;
		set += !sap_acc_idle(j->num, worker_buf(j, 0) + (size_t)e0 * j->es, e1 - e0);
	}
	int64_t *ks = NULL, *kc = NULL, mine = whole + 1;
	if (set <= 32) {
		ks = sap_xmalloc((size_t)(j->T * nb + 1) * sizeof *ks);
		kc = sap_xcalloc((size_t)j->T + 1, sizeof *kc);
		mine = sparse_scan(j, n, be, whole, ks, kc);
	}
	int64_t total = mine;
	sap_comm_allreduce(&total, 1, SAP_COMM_I64, SAP_COMM_SUM);
	if (P < 2 || total > whole || !sap_comm_fits(total)) {
		free(ks);
		free(kc);
		return false;
	}
	char *out = sap_xmalloc((size_t)mine + 1), *in = sap_xmalloc((size_t)total + 1);
	sparse_pack(j, n, be, ks, kc, out);
	free(ks);
	free(kc);
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	sap_comm_counts(mine, cnt, dis);
	sap_comm_allgatherv(out, mine, in, cnt, dis, 1);
	stats->sent += mine * (P - 1);
	stats->received += total - mine;
	const char *p = in, *end = in + total;
	while (p < end) {
		int64_t c;
		memcpy(&c, p, sizeof c);
		p += sizeof c;
		for (int64_t i = 0; i < c; i++) {
			int64_t k;
			memcpy(&k, p, sizeof k);
			p += sizeof k;
			int64_t e0 = k * be, e1 = e0 + be < n ? e0 + be : n;
			if (!v || !sap_acc_in_place(v)) {
				char *d = v ? v->data : j->into;
				sap_acc_add(j->num, d + (size_t)e0 * j->es, p, e1 - e0);
			} else {
				for (int64_t a = e0, b; a < e1; a = b) {
					uint16_t h;
					b = sap_hold_run(v, a, e1, &h);
					if (h == sap_rank() || h == SAP_HOLD_ALL)
						sap_acc_add(j->num, v->data + (size_t)a * j->es,
						            p + (size_t)(a - e0) * j->es, b - a);
				}
			}
			p += (size_t)(e1 - e0) * j->es;
		}
	}
	free(out);
	free(in);
	free(cnt);
	free(dis);
	return true;
}

/* from's elements into to, where this rank holds them if held, else all. */
static void copy_held(const sap_dvec *v, char *to, const char *from, bool held)
{
	size_t es = v->elsize;
	if (!held) {
		memcpy(to, from, (size_t)v->n * es);
		return;
	}
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h == sap_rank() || h == SAP_HOLD_ALL)
			memcpy(to + (size_t)k * es, from + (size_t)k * es, (size_t)(j - k) * es);
	}
}

/* Past this many entries in the workers' buffers of a map over all
 * ranks, their sums go to their keys' owners (sap_dm_owner_sums), as a
 * hand-written program sends them, and the map is left parted; fewer
 * take the chain to every rank, in fewer messages. */
enum { OWNER_SUMS_MIN = 4096 };

/* The sums of red's map accumulate buffers that went to their owners,
 * by accumulate (NULL where none did), the workers' buffers left empty:
 * not those that shadow their target (dense_chains) nor of maps that
 * are never parted. */
static sap_dmap **owner_sums(const sap_reduce *r, const sap_async_spec *spec, char *reds, int T,
                             char *red, sap_dist_stats *stats)
{
	sap_dmap **sums = NULL;
	sap_dmap **bufs = sap_xmalloc((size_t)T * sizeof *bufs);
	for (int a = 0; a < r->nacc; a++) {
		const sap_dmap *m = spec->dds[r->acc[a].dds].dm;
		size_t off = r->acc[a].off;
		if (!m || m->multi || m->drop || m->refs)
			continue;
		for (int w = 0; w < T; w++)
			bufs[w] = (sap_dmap *)(reds + (size_t)w * r->size + off);
		sap_dmap *total = sap_xcalloc(1, sizeof *total);
		int64_t sent = 0, received = 0;
		bool can = !((const sap_dmap *)(red + off))->shadow;
		if (!sap_dm_owner_sums(bufs, T, can, total, OWNER_SUMS_MIN, &sent, &received)) {
			free(total);
			continue;
		}
		if (!sums)
			sums = sap_xcalloc((size_t)r->nacc, sizeof *sums);
		sums[a] = total;
		stats->sent += sent;
		stats->received += received;
	}
	free(bufs);
	return sums;
}

void sap_dist_reduce(const sap_reduce *r, const sap_async_spec *spec, char *reds, int T,
                     void *red, sap_dist_stats *stats)
{
	int P = sap_nranks(), me = sap_rank();
	if (r->nacc) {
		/* Accumulate buffers may be large: a chain, rank r adding its
		 * workers' to the sum of ranks 0 .. r - 1, and the last rank's
		 * total to every rank.  A vector's buffer goes piece by piece
		 * (sap_chain_sum); the struct, with the maps' buffers, whole
		 * after it, the workers' vector buffers being gone. */
		for (int a = 0; a < r->nacc; a++) {
			const sap_dvec *v = spec->dds[r->acc[a].dds].dv;
			if (!v)
				continue;
			char *buf;
			memcpy(&buf, (char *)red + r->acc[a].off, sizeof buf);
			acc_job j = { r->acc[a].num, v->elsize, reds, r->size, r->acc[a].off, T, buf, false };
			char *w0;
			memcpy(&w0, reds + j.off, sizeof w0);
			/* Where the vector is held by ranks, the sums go to the
			 * holders of their elements only (sap_acc_apply). */
			bool place = sap_acc_in_place(v);
			if (!(T == 1 && place && acc_to_holders(j.num, v, buf, w0, stats))) {
				/* The chain carries every element's sums from rank
				 * 0 on, so it needs a buffer that is zero all over:
				 * not the vector itself, which sap_acc_driver_init
				 * takes as the buffer where it is zero only where
				 * this rank holds it.  Then 0 + total is total;
				 * +0.0, as the elements it replaces are. */
				bool alias = buf == v->data;
				if (!acc_sparse(&j, v->n, alias ? v : NULL, stats)) {
					if (alias)
						j.into = sap_acc_alloc(v->n, v->elsize, NULL);
					sap_chain_sum_to(j.into, v->n, v->elsize, true, acc_add, &j,
					                 place ? v : NULL, stats);
					if (alias) {
						copy_held(v, buf, j.into, place);
						sap_acc_free(j.into);
					}
				}
			}
			for (int w = 0; w < T; w++) {
				char *wr = reds + (size_t)w * r->size + j.off, *wb, *none = NULL;
				memcpy(&wb, wr, sizeof wb);
				sap_acc_free(wb);
				memcpy(wr, &none, sizeof none);
			}
		}
		sap_dmap **sums = owner_sums(r, spec, reds, T, red, stats);
		dense_chains(r, spec, reds, T, red, stats);
		int64_t n;
		if (me > 0) {
			char *in = big_recv(me - 1, &n);
			replace_red(r, spec, red, in);
			stats->received += n;
			free(in);
		}
		for (int w = 0; w < T; w++)
			r->combine(red, reds + (size_t)w * r->size);
		char *out = pack_red(r, spec, red, &n);
		if (me < P - 1) {
			big_send(out, n, me + 1);
			stats->sent += n;
		}
		sap_comm_bcast(&n, 1, sizeof n, P - 1);
		if (me != P - 1) {
			free(out);
			out = sap_xmalloc((size_t)n + 1);
		}
		sap_comm_bcast(out, n, 1, P - 1);
		if (me != P - 1) {
			replace_red(r, spec, red, out);
			stats->received += n;
		} else {
			stats->sent += n * (P - 1);
		}
		free(out);
		for (int a = 0; sums && a < r->nacc; a++) {
			if (!sums[a])
				continue;
			sap_dmap *b = (sap_dmap *)(red + r->acc[a].off);
			sap_dm_free(b);
			*b = *sums[a];
			free(sums[a]);
		}
		free(sums);
		return;
	}
	/* Small structs: every worker's to every rank. */
	size_t rs = (r->size + 7) & ~(size_t)7, bytes = (size_t)T * rs;
	char *out = sap_xcalloc(bytes ? bytes : 1, 1);
	for (int w = 0; w < T; w++)
		memcpy(out + (size_t)w * rs, reds + (size_t)w * r->size, r->size);
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_comm_counts((int64_t)bytes, cnt, dis);
	char *in = sap_xmalloc((size_t)total);
	sap_comm_allgatherv(out, (int64_t)bytes, in, cnt, dis, 1);
	free(out);
	stats->sent += (int64_t)bytes * (P - 1);
	stats->received += total - (int64_t)bytes;
	/* Every worker of every rank in order onto red: the sums a single
	 * rank with all the workers takes. */
	char *from = sap_xmalloc(r->size);
	for (int q = 0; q < P; q++) {
		if (q == me) {
			for (int w = 0; w < T; w++)
				r->combine(red, reds + (size_t)w * r->size);
			continue;
		}
		for (const char *p = in + dis[q], *end = p + cnt[q]; p < end; p += rs) {
			memcpy(from, p, r->size);
			r->combine(red, from);
		}
	}
	free(from);
	free(in);
	free(cnt);
	free(dis);
}
