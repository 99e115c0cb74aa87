/* ranks.c: plans over ranks.  Each rank slices its share of the
 * iterations, the ranks pool their masks into one plan for all their
 * workers (the plan one rank of as many threads would make), and each
 * rank receives the iterations of its workers' groups, with their
 * elements of vectors held in parts; sap_plan_share then gives every
 * rank every group's list.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* The rank that runs group g: the owner of the worker sap_plan_pack gave it. */
static int *group_ranks(const sap_plan *p, int threads)
{
	int T = p->nworkers;
	int *own = sap_xmalloc((size_t)p->ngroups * sizeof *own);
	for (int64_t r = 0; r < p->nrounds; r++)
		for (int w = 0; w < T; w++)
			for (int64_t k = p->ro[r * T + w]; k < p->ro[r * T + w + 1]; k++)
				own[p->rg[k]] = w / threads;
	return own;
}

/* Rank r's iterations in group g with key k (sap_plan_fine_key; nk keys
 * a group, 1 when groups run in index order). */
static inline int64_t cell(const int64_t *cg, int64_t G, int nk, int r, int64_t g, int k)
{
	return cg[((size_t)r * (size_t)G + (size_t)g) * (size_t)nk + (size_t)k];
}

/* The iterations a rank keeps of its own skip the exchange (for two
 * ranks, about half of what a plan moves, copied twice more and written
 * into fresh pages): idx[j] is the j-th of them in the order the rank
 * would have sent them to itself, and base their elements (NULL: the
 * element is the iteration itself). */
typedef struct kept {
	const int64_t *idx;
	const char *base;
} kept;

/* The exchange of out (counts and displacements per rank) into in,
 * without this rank's part to itself, which neither buffer holds. */
static void exchange_others(const void *out, const int64_t *scnt, const int64_t *sdis, void *in,
                            const int64_t *rcnt, const int64_t *rdis, size_t es)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t *sc = sap_xmalloc((size_t)P * sizeof *sc), *rc = sap_xmalloc((size_t)P * sizeof *rc);
	memcpy(sc, scnt, (size_t)P * sizeof *sc);
	memcpy(rc, rcnt, (size_t)P * sizeof *rc);
	sc[me] = rc[me] = 0;
	sap_comm_alltoallv(out, sc, sdis, in, rc, rdis, es);
	free(sc);
	free(rc);
}

/* What this rank received, from each rank in rank order and each rank's
 * by group and key, into dst in plan order (elements of es bytes): a
 * group's by key, and within a key those from rank s after those from
 * the ranks before, so that each key's stay in index order, as on one
 * rank (group.c).  Its own come from self. */
static void place_by_group(char *dst, const char *src, size_t es, const sap_plan *p,
                           const int *own, const int64_t *cg, int nk, const int64_t *rdis,
                           const kept *self)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t G = p->ngroups;
	int64_t *at = sap_xmalloc((size_t)P * sizeof *at);
	memcpy(at, rdis, (size_t)P * sizeof *at);
	at[me] = 0;
	for (int64_t g = 0; g < G; g++) {
		if (own[g] != me)
			continue;
		int64_t q = p->goff[g];
		for (int k = 0; k < nk; k++)
			for (int s = 0; s < P; s++) {
				int64_t c = cell(cg, G, nk, s, g, k);
				if (s != me)
					memcpy(dst + (size_t)q * es, src + (size_t)at[s] * es, (size_t)c * es);
				else if (self->base)
					for (int64_t j = 0; j < c; j++)
						memcpy(dst + (size_t)(q + j) * es,
						       self->base + (size_t)self->idx[at[s] + j] * es, es);
				else
					memcpy(dst + (size_t)q * es, self->idx + at[s], (size_t)c * es);
				q += c;
				at[s] += c;
			}
	}
	free(at);
}

/* The elements of sh->v at the iterations sendb[0 .. ns) that this rank
 * sends as the plan's (counts and displacements as for them), into
 * sh->s in plan order. */
static void ship_elements(const sap_plan *p, struct sap_ship *sh, const int *own,
                          const int64_t *cg, int nk, const int64_t *sendb, int64_t ns,
                          const int64_t *scnt, const int64_t *sdis, const int64_t *rcnt,
                          const int64_t *rdis, int64_t nr)
{
	int me = sap_rank();
	size_t es = sh->v->elsize, got;
	/* Over ranks the loader's buffer is a share of the file, too small
	 * for the copy but not for what this rank sends. */
	char *out = sap_spare_take((size_t)ns * es, &got);
	if (!out) {
		got = (size_t)(ns ? ns : 1) * es;
		out = sap_xmalloc(got);
	}
	char *in = sap_xmalloc((size_t)nr * es);
	for (int64_t q = 0; q < ns; q++)
		if (q < sdis[me] || q >= sdis[me] + scnt[me])
			memcpy(out + (size_t)q * es, sh->v->data + (size_t)sendb[q] * es, es);
	exchange_others(out, scnt, sdis, in, rcnt, rdis, es);
	sap_stage_reserve(sh->s, (size_t)p->n * es);
	kept self = { sendb + sdis[me], sh->v->data };
	place_by_group(sh->s->data, in, es, p, own, cg, nk, rdis, &self);
	sap_stage_done(sh->s, sh->v, (size_t)nr * es);
	/* What went to other ranks and came from them. */
	sh->sent += (int64_t)((size_t)(ns - scnt[me]) * es);
	sh->received += (int64_t)((size_t)(nr - rcnt[me]) * es);
	sap_spare_give(out, got);
	free(in);
}

/* sap_plan_recon_ranks' state from phase to phase. */
typedef struct rank_plan {
	sap_plan *p;
	int P, me, threads;
	int64_t a, b;           /* this rank's share of the iterations */
	sap_group_job j;        /* their grouping on this rank's threads */
	uint64_t *mine;         /* this rank's masks and their counts, in pairs */
	int64_t *cnts, *dis;    /* per rank: its pairs' count and place in every */
	uint64_t *every;        /* every rank's pairs */
	sap_mask_set all;       /* every rank's masks */
	int64_t **gid;          /* per thread, per local id: its id in all, then
	                           its group */
	int64_t *partof;        /* rank r's sets are sid[partof[r] .. partof[r + 1]) */
	int64_t *sid;           /* per set of any rank: the same */
} rank_plan;

/* This rank's share of [lo, hi): the iterations of its workers' chunks,
 * sliced and counted on its threads. */
static void ranks_recon(rank_plan *rp, sap_plan *p, const sap_async_spec *spec,
                        const sap_layout *ly, void *env, int64_t lo, int64_t hi, int T,
                        int threads, uint32_t *ids, double *recon_s, uint64_t *kmax)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t a = sap_chunk(lo, hi, T, me * threads), b = sap_chunk(lo, hi, T, (me + 1) * threads);
	*rp = (rank_plan){ .p = p, .P = P, .me = me, .threads = threads, .a = a, .b = b };
	sap_group_job *j = &rp->j;
	sap_plan_group_begin(j, p, ids, a, b - a, threads);
	j->ly = ly;
	*recon_s = sap_recon(spec, ly, env, a, b, threads, sap_plan_count_sink, j, kmax);
	if (kmax && spec->ndds)
		sap_comm_allreduce(kmax, spec->ndds, SAP_COMM_U64, SAP_COMM_MAX);
	p->n = hi - lo;
	p->nworkers = T;
}

/* Every rank's masks, in rank order and each rank's in thread order:
 * the order a single rank of T threads would see them in. */
static void ranks_gather(rank_plan *rp)
{
	int P = rp->P, threads = rp->threads;
	const sap_group_job *j = &rp->j;
	int64_t nl = 0;
	for (int w = 0; w < threads; w++)
		nl += j->local[w].n;
	uint64_t *mine = sap_xmalloc((size_t)(2 * nl + 1) * sizeof *mine);
	int64_t at = 0;
	for (int w = 0; w < threads; w++)
		for (int64_t k = 0; k < j->local[w].n; k++) {
			mine[at++] = j->local[w].mask[k];
			mine[at++] = (uint64_t)j->local[w].count[k];
		}
	int64_t cnt = 2 * nl, *cnts = sap_xmalloc((size_t)P * sizeof *cnts);
	int64_t *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_comm_counts(cnt, cnts, dis);
	uint64_t *every = sap_xmalloc((size_t)total * sizeof *every);
	sap_comm_allgatherv(mine, cnt, every, cnts, dis, sizeof *every);
	rp->mine = mine;
	rp->cnts = cnts;
	rp->dis = dis;
	rp->every = every;
}

/* The masks gathered into one set, in that order, with the id in it of
 * every rank's sets and of this rank's threads'. */
static void ranks_merge(rank_plan *rp)
{
	int P = rp->P, me = rp->me, threads = rp->threads;
	const sap_group_job *j = &rp->j;
	const int64_t *cnts = rp->cnts, *dis = rp->dis;
	const uint64_t *every = rp->every;
	sap_mask_set_init(&rp->all);
	int64_t **gid = sap_xcalloc((size_t)threads, sizeof *gid);
	for (int w = 0; w < threads; w++)
		gid[w] = sap_xmalloc((size_t)j->local[w].n * sizeof **gid);
	/* Rank r's sets are sid[partof[r] .. partof[r + 1]). */
	int64_t *partof = sap_xmalloc((size_t)(P + 1) * sizeof *partof);
	partof[0] = 0;
	for (int r = 0; r < P; r++)
		partof[r + 1] = partof[r] + cnts[r] / 2;
	int64_t *sid = sap_xmalloc((size_t)partof[P] * sizeof *sid);
	for (int r = 0; r < P; r++)
		for (int64_t q = partof[r]; q < partof[r + 1]; q++) {
			uint64_t m = every[dis[r] + 2 * (q - partof[r])];
			int64_t c = (int64_t)every[dis[r] + 2 * (q - partof[r]) + 1];
			sid[q] = sap_mask_set_id(&rp->all, m);
			rp->all.count[sid[q]] += c;
		}
	int64_t at = partof[me];
	for (int w = 0; w < threads; w++)
		for (int64_t k = 0; k < j->local[w].n; k++)
			gid[w][k] = sid[at++];
	rp->gid = gid;
	rp->partof = partof;
	rp->sid = sid;
}

/* The same numbering, blocks and rounds on every rank. */
static void ranks_number(rank_plan *rp)
{
	int threads = rp->threads;
	/* sap_plan_number_groups renumbers gid; the other ranks' set ids
	 * go through it too, as a worker of their own. */
	sap_group_job jj = rp->j;
	sap_mask_set *sets = sap_xcalloc((size_t)threads + 1, sizeof *sets);
	int64_t **g2 = sap_xcalloc((size_t)threads + 1, sizeof *g2);
	for (int w = 0; w < threads; w++) {
		sets[w].n = rp->j.local[w].n;
		g2[w] = rp->gid[w];
	}
	sets[threads].n = rp->partof[rp->P];
	g2[threads] = rp->sid;
	jj.local = sets;
	jj.T = threads + 1;
	sap_plan_number_groups(&jj, rp->p, &rp->all, g2);
	free(sets);
	free(g2);
	sap_plan_pack(rp->p, false, 0);
}

/* The key-level plan, as on one rank of T threads: every rank slices
 * every iteration and makes the same wavefront, so the plan, and the
 * result, depend on the workers only, however spread over ranks;
 * every rank then has every group's list, and no iteration moves.
 * Vectors held in parts, which only their holders could slice, are
 * made whole for it first (the block plan, if kept, still finds its
 * elements where they were).  True when it replaced the block plan. */
static bool ranks_keys(rank_plan *rp, const sap_async_spec *spec, const sap_layout *ly,
                       void *env, int64_t lo, int64_t hi, int T, int64_t *order,
                       sap_dist_stats *traffic)
{
	sap_plan *p = rp->p;
	double c = sap_plan_cost(p), share = (double)(hi - lo) / T;
	/* ids still holds this rank's groups. */
	uint32_t *round = NULL;
	bool keyed = false;
	if (T > 1 && c > SAP_KEYS_WORTH * share && !sap_plan_keys_lost(ly, p)) {
		/* A hot key makes every key-level plan serial: found on a
		 * sample, before vectors are made whole for nothing (a
		 * linear model's examples, every feature list on every rank,
		 * three times the loop's work for SVM by SGD). */
		if (sap_keys_futile(spec, ly, env, lo, hi, rp->a, rp->b, rp->threads, true, T,
		                    0.99 * c)) {
			sap_plan_keys_tried(ly, false);
			return false;
		}
		/* So must a vector the slice reads that only some ranks hold
		 * current (an input fetched by iteration, sap_index_fetch). */
		for (int k = 0; k < spec->ndds; k++) {
			sap_dvec *v = spec->dds[k].dv;
			if (v && v->part_only)
				sap_dv_unpart(v);
			if (v && v->holder && spec->dds[k].slice_reads)
				sap_dv_whole(v, traffic);
		}
		round = sap_xmalloc((size_t)(hi - lo) * sizeof *round);
		keyed = sap_plan_keys(p, spec, ly, env, lo, hi, T, rp->threads, round, order,
		                      0.99 * c);
		sap_plan_keys_tried(ly, keyed);
		free(round);
		/* Every rank decides from the same key log, unless a key came
		 * from something that differs between ranks (a C function
		 * keeping state): then the ranks would go on to different
		 * exchanges and wait for each other for ever. */
		int k[2] = {keyed, -(int)keyed};
		sap_comm_allreduce(k, 2, SAP_COMM_INT, SAP_COMM_MIN);
		if (k[0] != -k[1])
			sap_fatal(NULL, "an async for's keys differ between ranks: a key depends on a "
			          "value that is not the same on every rank, such as a C function that "
			          "keeps state (sap(7), Extern functions)");
	}
	return keyed;
}

/* Where the block plan's iterations go: what this rank sends to each
 * rank and receives from it. */
typedef struct route {
	int64_t *cg;            /* per rank, per group, per key: its iterations */
	int nk, first;          /* keys a group, and sap_plan_fine_first */
	int *own;               /* per group: the rank that runs it */
	int64_t *scnt, *sdis;   /* per rank: what this rank sends it, in sendb */
	int64_t *rcnt, *rdis;   /* per rank: what this rank receives from it */
	int64_t *sendb, ns;
	int64_t *recvb, nr;
} route;

/* Collective: whether the ranks' iterations in index order walk some
 * DDS small block by small block (group.c). */
static bool index_local(const rank_plan *rp, const uint32_t *ids)
{
	const sap_layout *ly = rp->j.ly;
	int64_t cnt[128] = {0};
	for (int w = 0; w < rp->threads; w++) {
		int64_t x = sap_chunk(rp->a, rp->b, rp->threads, w);
		int64_t y = sap_chunk(rp->a, rp->b, rp->threads, w + 1);
		sap_plan_fine_pairs(ly, &rp->j.local[w], ids + (x - rp->a), y - x, cnt, cnt + 64);
	}
	sap_comm_allreduce(cnt, 128, SAP_COMM_I64, SAP_COMM_SUM);
	return sap_plan_index_local(ly, cnt, cnt + 64);
}

/* Each rank's count of each group and key, for everyone. */
static void route_counts(const rank_plan *rp, route *rt, const uint32_t *ids)
{
	const sap_plan *p = rp->p;
	int P = rp->P;
	int64_t G = p->ngroups;
	const sap_layout *ly = rp->j.ly;
	rt->first = sap_plan_fine_first(ly, G);
	if (rt->first >= 0 && index_local(rp, ids))
		rt->first = -1;
	rt->nk = rt->first >= 0 ? ly->F + 1 : 1;
	if (rt->first >= 0) {
		rp->p->fine = true;
		rp->p->fine_first = rt->first;
		rp->p->fine_F = ly->F;
	}
	int64_t *cg = sap_xcalloc((size_t)P * (size_t)G * (size_t)rt->nk, sizeof *cg);
	for (int r = 0; r < P; r++)
		for (int64_t q = rp->partof[r]; q < rp->partof[r + 1]; q++) {
			const uint64_t *pair = &rp->every[rp->dis[r] + 2 * (q - rp->partof[r])];
			int k = rt->first >= 0 ? sap_plan_fine_key(pair[0], rt->first, ly->F) : 0;
			cg[((size_t)r * (size_t)G + (size_t)rp->sid[q]) * (size_t)rt->nk + (size_t)k] +=
				(int64_t)pair[1];
		}
	rt->cg = cg;
	rt->own = group_ranks(p, rp->threads);
}

/* This rank's iterations to the ranks that run their groups: by
 * destination, then group, then key, then index. */
static void route_send(const rank_plan *rp, route *rt, const uint32_t *ids)
{
	int P = rp->P, me = rp->me, threads = rp->threads;
	int64_t G = rp->p->ngroups, a = rp->a, b = rp->b;
	const int *own = rt->own;
	const int64_t *cg = rt->cg;
	int nk = rt->nk;
	int64_t *scnt = sap_xcalloc((size_t)P, sizeof *scnt), *sdis = sap_xmalloc((size_t)P * sizeof *sdis);
	int64_t *gat = sap_xmalloc((size_t)G * (size_t)nk * sizeof *gat);
	int64_t *dstat = sap_xcalloc((size_t)P, sizeof *dstat);
	for (int64_t g = 0; g < G; g++)
		for (int k = 0; k < nk; k++) {
			gat[g * nk + k] = dstat[own[g]];
			dstat[own[g]] += cell(cg, G, nk, me, g, k);
		}
	int64_t s0 = 0;
	for (int d = 0; d < P; d++) {
		sdis[d] = s0;
		scnt[d] = dstat[d];
		s0 += dstat[d];
	}
	int64_t *sendb = sap_xmalloc((size_t)s0 * sizeof *sendb);
	for (int w = 0; w < threads; w++) {
		int64_t x = sap_chunk(a, b, threads, w), y = sap_chunk(a, b, threads, w + 1);
		const sap_mask_set *set = &rp->j.local[w];
		for (int64_t i = x; i < y; i++) {
			uint32_t id = ids[i - a];
			int64_t g = rp->gid[w][id];
			int k = rt->first >= 0 ? sap_plan_fine_key(set->mask[id], rt->first, rp->j.ly->F) : 0;
			sendb[sdis[own[g]] + gat[g * nk + k]++] = i;
		}
	}
	free(gat);
	free(dstat);
	rt->scnt = scnt;
	rt->sdis = sdis;
	rt->sendb = sendb;
	rt->ns = s0;
}

/* The exchange: what every rank sends this one of its workers' groups,
 * into order, which the plan takes, each group in index order. */
static void route_receive(const rank_plan *rp, route *rt, int64_t *order)
{
	sap_plan *p = rp->p;
	int P = rp->P, me = rp->me;
	int64_t G = p->ngroups;
	const int *own = rt->own;
	const int64_t *cg = rt->cg;
	int64_t *rcnt = sap_xcalloc((size_t)P, sizeof *rcnt), *rdis = sap_xmalloc((size_t)P * sizeof *rdis);
	int64_t r0 = 0;
	for (int s = 0; s < P; s++) {
		int64_t c = 0;
		for (int64_t g = 0; g < G; g++)
			if (own[g] == me)
				for (int k = 0; k < rt->nk; k++)
					c += cell(cg, G, rt->nk, s, g, k);
		rdis[s] = r0;
		rcnt[s] = c;
		r0 += c;
	}
	int64_t *recvb = sap_xmalloc((size_t)r0 * sizeof *recvb);
	exchange_others(rt->sendb, rt->scnt, rt->sdis, recvb, rcnt, rdis, sizeof *recvb);
	kept self = { rt->sendb + rt->sdis[me], NULL };
	place_by_group((char *)order, (const char *)recvb, sizeof *order, p, own, cg, rt->nk, rdis,
	               &self);
	p->order = order;
	p->mine = rt->own;
	rt->rcnt = rcnt;
	rt->rdis = rdis;
	rt->recvb = recvb;
	rt->nr = r0;
}

/* The elements of the ship vectors, the same way. */
static void route_ship(const rank_plan *rp, const route *rt, struct sap_ship *ship, int nship)
{
	for (int k = 0; k < nship; k++) {
		double t0 = sap_now();
		ship_elements(rp->p, &ship[k], rt->own, rt->cg, rt->nk, rt->sendb, rt->ns, rt->scnt,
		              rt->sdis, rt->rcnt, rt->rdis, rt->nr);
		ship[k].seconds += sap_now() - t0;
	}
}

/* The block plan's iterations, and the elements shipped with them, to
 * the ranks that run their groups (the plan keeps own as p->mine). */
static void ranks_route(const rank_plan *rp, const uint32_t *ids, int64_t *order,
                        struct sap_ship *ship, int nship)
{
	route rt;
	route_counts(rp, &rt, ids);
	route_send(rp, &rt, ids);
	route_receive(rp, &rt, order);
	route_ship(rp, &rt, ship, nship);
	free(rt.cg);
	free(rt.scnt);
	free(rt.sdis);
	free(rt.rcnt);
	free(rt.rdis);
	free(rt.sendb);
	free(rt.recvb);
}

/* The keys this rank's iterations write and touch, marked for the rank
 * and round that run them while they are at hand in index order: slicing
 * them again in each group's order, for sap_dist_build, cost three times
 * the reconnaissance (a chain of data-dependent subscripts on 2 ranks),
 * though the maps then cross twice (TransE's 2 MB a plan, where the
 * slice in plan order cost no more).  Collective. */
static void ranks_premark(const rank_plan *rp, const sap_async_spec *spec, void *env,
                          const uint32_t *ids)
{
	if (sap_plan_serial(rp->p))
		return;
	double t0 = sap_now();
	int64_t a = rp->a, b = rp->b;
	int64_t *grp = sap_xmalloc((size_t)(b - a + 1) * sizeof *grp);
	for (int w = 0; w < rp->threads; w++) {
		int64_t x = sap_chunk(a, b, rp->threads, w), y = sap_chunk(a, b, rp->threads, w + 1);
		for (int64_t i = x; i < y; i++)
			grp[i - a] = rp->gid[w][ids[i - a]];
	}
	sap_dist_premark(rp->p, spec, rp->j.ly, env, a, b, rp->threads, grp);
	free(grp);
	rp->p->mark_s = sap_now() - t0;
}

static void ranks_free(rank_plan *rp)
{
	for (int w = 0; w < rp->threads; w++) {
		sap_mask_set_free(&rp->j.local[w]);
		free(rp->gid[w]);
	}
	free(rp->j.local);
	free(rp->gid);
	sap_mask_set_free(&rp->all);
	free(rp->mine);
	free(rp->cnts);
	free(rp->dis);
	free(rp->every);
	free(rp->partof);
	free(rp->sid);
}

void sap_plan_recon_ranks(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly,
                          void *env, int64_t lo, int64_t hi, int T, int threads,
                          uint32_t *ids, int64_t *order, double *recon_s,
                          struct sap_ship *ship, int nship, uint64_t *kmax,
                          sap_dist_stats *traffic, bool premark)
{
	rank_plan rp;
	ranks_recon(&rp, p, spec, ly, env, lo, hi, T, threads, ids, recon_s, kmax);
	ranks_gather(&rp);
	ranks_merge(&rp);
	ranks_number(&rp);
	if (ranks_keys(&rp, spec, ly, env, lo, hi, T, order, traffic))
		p->mine = group_ranks(p, threads);
	else {
		ranks_route(&rp, ids, order, ship, nship);
		if (premark)
			ranks_premark(&rp, spec, env, ids);
	}
	ranks_free(&rp);
}

void sap_plan_share(sap_plan *p)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t G = p->ngroups, n = 0;
	for (int64_t g = 0; g < G; g++)
		if (p->mine[g] == me)
			n += p->goff[g + 1] - p->goff[g];
	int64_t *out = sap_xmalloc((size_t)n * sizeof *out), at = 0;
	for (int64_t g = 0; g < G; g++)
		if (p->mine[g] == me)
			for (int64_t q = p->goff[g]; q < p->goff[g + 1]; q++)
				out[at++] = p->order[q];
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_comm_counts(n, cnt, dis);
	int64_t *in = sap_xmalloc((size_t)total * sizeof *in);
	sap_comm_allgatherv(out, n, in, cnt, dis, sizeof *in);
	for (int r = 0; r < P; r++) {
		int64_t q = dis[r];
		for (int64_t g = 0; g < G; g++)
			if (p->mine[g] == r) {
				int64_t k = p->goff[g + 1] - p->goff[g];
				memcpy(p->order + p->goff[g], in + q, (size_t)k * sizeof *in);
				q += k;
			}
	}
	free(out);
	free(in);
	free(cnt);
	free(dis);
}
