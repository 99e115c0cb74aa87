/* check.c: the checker of plans: that each iteration runs once, and that
 * no two groups of a round (but a locked one) touch one key, one of them
 * writing it, from the accesses the slice records (the unit tests and
 * --check-plan use it).
 */
#include <stdlib.h>
#include "sap-int.h"

/* Per (round, DDS, key): the first group to touch it, another group that
 * did, and a group that wrote it. */
typedef struct touch {
	int64_t round, key;
	int32_t dds, used;
	int64_t g0, g1, w;
} touch;

/* Each iteration in one group and each group in one round: a group
 * placed twice ran its iterations twice, with no conflict to show (a
 * group that touches no key fits anywhere, and was placed twice). */
static bool check_cover(const sap_plan *p, int64_t lo, sap_conflict *c)
{
	int T = p->nworkers;
	int64_t *times = sap_xcalloc((size_t)p->n + 1, sizeof *times);
	int64_t *placed = sap_xcalloc((size_t)p->ngroups + 1, sizeof *placed);
	int64_t *round = sap_xmalloc(((size_t)p->ngroups + 1) * sizeof *round);
	for (int64_t r = 0; r < p->nrounds; r++)
		for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++)
			if (p->rg[k] >= 0 && p->rg[k] < p->ngroups) {
				placed[p->rg[k]]++;
				round[p->rg[k]] = r;
			}
	for (int64_t g = 0; g < p->ngroups; g++)
		for (int64_t k = p->goff[g]; k < p->goff[g + 1]; k++)
			if (p->order[k] >= lo && p->order[k] < lo + p->n)
				times[p->order[k] - lo] += placed[g];
	bool ok = true;
	for (int64_t i = 0; i < p->n && ok; i++)
		if (times[i] != 1) {
			int64_t g = -1;
			for (int64_t q = 0; q < p->ngroups && g < 0; q++)
				for (int64_t k = p->goff[q]; k < p->goff[q + 1]; k++)
					if (p->order[k] == lo + i)
						g = q;
			*c = (sap_conflict){ g >= 0 && placed[g] ? round[g] : -1, g, g, -1, lo + i,
			                     times[i] };
			ok = false;
		}
	free(times);
	free(placed);
	free(round);
	return ok;
}

bool sap_plan_check(const sap_plan *p, int64_t lo, const sap_access *log, int64_t nlog,
                    sap_conflict *c)
{
	if (!check_cover(p, lo, c))
		return false;
	int T = p->nworkers;
	int64_t *gof = sap_xmalloc((size_t)p->n * sizeof *gof);
	for (int64_t k = 0; k < p->n; k++)
		gof[k] = -1;
	for (int64_t g = 0; g < p->ngroups; g++)
		for (int64_t k = p->goff[g]; k < p->goff[g + 1]; k++)
			gof[p->order[k] - lo] = g;
	int64_t *rof = sap_xmalloc((size_t)p->ngroups * sizeof *rof);
	for (int64_t g = 0; g < p->ngroups; g++)
		rof[g] = -1;
	for (int64_t r = 0; r < p->nrounds; r++)
		for (int64_t k = p->ro[r * T]; k < p->ro[(r + 1) * T]; k++)
			rof[p->rg[k]] = r;

	int64_t nslot = 64;
	while (nslot < 2 * nlog)
		nslot *= 2;
	touch *tab = sap_xcalloc((size_t)nslot, sizeof *tab);
	bool ok = true;
	for (int64_t k = 0; k < nlog && ok; k++) {
		const sap_access *a = &log[k];
		if (a->i < lo || a->i >= lo + p->n)
			continue;
		int64_t g = gof[a->i - lo];
		int64_t r = g < 0 ? -1 : rof[g];
		if (r < 0 || p->rlocked[r])
			continue;
		uint64_t h = sap_mix64((uint64_t)a->key ^
		                       sap_mix64((uint64_t)r << 20 ^ (uint64_t)a->dds));
		h &= (uint64_t)(nslot - 1);
		while (tab[h].used && !(tab[h].round == r && tab[h].dds == a->dds &&
		                        tab[h].key == a->key))
			h = (h + 1) & (uint64_t)(nslot - 1);
		touch *t = &tab[h];
		bool wr = a->mode & SAP_WRITE;
		if (!t->used) {
			*t = (touch){ r, a->key, a->dds, 1, g, -1, wr ? g : -1 };
			continue;
		}
		if (g != t->g0 && t->g1 < 0)
			t->g1 = g;
		int64_t other = -1;
		if (wr)
			other = t->g0 != g ? t->g0 : t->g1 != g ? t->g1 : -1;
		else if (t->w >= 0 && t->w != g)
			other = t->w;
		if (wr && t->w < 0)
			t->w = g;
		if (other >= 0) {
			*c = (sap_conflict){ r, other < g ? other : g, other < g ? g : other,
			                     a->dds, a->key, 0 };
			ok = false;
		}
	}
	free(tab);
	free(gof);
	free(rof);
	return ok;
}
