/* plan.c: plans for async loops: blocks to groups, groups to rounds,
 * rounds to workers.  The entry points: sap_plan_build from given masks,
 * sap_plan_recon from the reconnaissance, which tries the key-level plans
 * too; the steps are in group.c, rounds.c and keys.c, plans over ranks in
 * ranks.c, the checker of plans in check.c.
 *
 * Iterations with the same block mask form a group, run on one worker in
 * index order.  Groups whose masks are disjoint touch disjoint keys, so a
 * round of such groups runs in parallel without locks and the result is
 * that of running the round's groups one after another.  For SGDMF (each
 * iteration touches one row of W and one of H) the groups are the cells
 * of a B x B grid and the rounds are the DSGD/Strata strata.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

void sap_plan_build(sap_plan *p, const uint64_t *masks, int64_t lo, int64_t n, int T,
                    bool locks)
{
	sap_group_job j;
	uint32_t *ids = sap_xmalloc((size_t)n * sizeof *ids);
	sap_plan_group_begin(&j, p, ids, lo, n, T);
	j.masks = masks;
	sap_pool_run(T, sap_plan_count_worker, &j);
	sap_plan_group_end(&j, p, sap_xmalloc((size_t)n * sizeof *p->order));
	p->owns_order = true;
	free(ids);
	sap_plan_pack(p, locks, 0);
}

void sap_plan_recon(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly, void *env,
                    int64_t lo, int64_t hi, int T, int threads, bool locks, uint32_t *ids,
                    int64_t *order, double *recon_s, uint64_t *kmax)
{
	sap_group_job j;
	sap_plan_group_begin(&j, p, ids, lo, hi - lo, threads);
	p->nworkers = T;
	j.ly = ly;
	*recon_s = sap_recon(spec, ly, env, lo, hi, threads, sap_plan_count_sink, &j, kmax);
	sap_plan_group_end(&j, p, order);
	sap_plan_pack(p, locks, 0);
	/* A key missing: the loop runs serially, this plan is not used. */
	if (*ly->missing)
		return;
	/* ids is free again: the rounds of the iterations.  A locked plan
	 * costs more than its even load says, and is not deterministic: a
	 * key-level plan that keeps the workers busy enough replaces it. */
	double c = sap_plan_cost(p), share = (double)(hi - lo) / T;
	if (T > 1 && (c > SAP_KEYS_WORTH * share || p->nlocked) && !sap_plan_keys_lost(ly, p)) {
		double max_cost = p->nlocked ? fmax(0.99 * c, SAP_KEYS_WORTH * share) : 0.99 * c;
		if (!p->nlocked &&
		    sap_keys_futile(spec, ly, env, lo, hi, lo, hi, threads, false, T, max_cost))
			sap_plan_keys_tried(ly, false);
		else
			sap_plan_keys_tried(ly, sap_plan_keys(p, spec, ly, env, lo, hi, T, threads, ids,
			                                      order, max_cost));
	}
}

void sap_plan_free(sap_plan *p)
{
	if (p->owns_order)
		free(p->order);
	free(p->goff);
	free(p->gmask);
	free(p->ro);
	free(p->rg);
	free(p->rlocked);
	free(p->mine);
	free(p->dist_wr);
	memset(p, 0, sizeof *p);
}
