/* audit.c: --check-plan's check of a loop body against its plan.
 *
 * A plan is only as good as the keys it was made from: if a slice
 * records other keys than the body then touches (a condition it left
 * out, a stale local), two groups of one round may write one element,
 * and the result depends on the workers, silently.  So under
 * --check-plan the body runs its fully checked version (sap_v 0), and
 * every access of a dvector or map the plan orders asks here whether the
 * iteration's reconnaissance recorded that key with that mode (a string
 * key by its hash, as the slice records it).  The log
 * is the one check_plan recorded for the plan, sorted; it lives as long
 * as the plan.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

bool sap_audit_on;

static int by_access(const void *pa, const void *pb)
{
	const sap_access *a = pa, *b = pb;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	if (a->dds != b->dds)
		return a->dds < b->dds ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return 0;
}

void sap_audit_keep(struct sap_loop_state *st, const sap_keylog *log)
{
	sap_audit_free(st);
	sap_access *v = sap_xmalloc((size_t)(log->n ? log->n : 1) * sizeof *v);
	if (log->n)
		memcpy(v, log->v, (size_t)log->n * sizeof *v);
	qsort(v, (size_t)log->n, sizeof *v, by_access);
	/* One entry a key, with the modes of all its accesses. */
	int64_t n = 0;
	for (int64_t k = 0; k < log->n; k++) {
		if (n && !by_access(&v[n - 1], &v[k]))
			v[n - 1].mode |= v[k].mode;
		else
			v[n++] = v[k];
	}
	st->audit = v;
	st->naudit = n;
}

void sap_audit_free(struct sap_loop_state *st)
{
	free(st->audit);
	st->audit = NULL;
	st->naudit = 0;
}

/* Whether the plan's log has key of DDS dds for iteration it in mode, or
 * the plan does not order that DDS; *rec says whether the log has the key
 * in another mode. */
static bool recorded(const sap_loop *L, int dds, int64_t it, int64_t key, int mode, bool *rec)
{
	const struct sap_loop_state *st = L->state;
	*rec = false;
	/* No plan (one worker, chunks: helper DP's check of a wavefront's
	 * last diagonal, one iteration, against the plan of the one before),
	 * or a DDS the plan does not order. */
	if (!st || !st->audit || !st->audit_live || dds >= st->layout.ndds ||
	    !st->layout.d[dds].nblk ||
	    (uint64_t)key > st->layout.d[dds].max)
		return true;
	sap_access want = { it, key, dds, 0 };
	const sap_access *a = bsearch(&want, st->audit, (size_t)st->naudit, sizeof *a, by_access);
	*rec = a != NULL;
	/* A key recorded as written covers a read of it too. */
	return a && (!(mode & SAP_WRITE) || (a->mode & SAP_WRITE));
}

static _Noreturn void unrecorded(const sap_loop *L, int64_t it, const char *name, const char *key,
                                 int mode, bool rec, const sap_site *s)
{
	sap_fatal(s, "--check-plan: iteration %lld of loop %d %s %s[%s], which its "
	          "reconnaissance %s: the plan may run it beside another iteration that touches "
	          "it (a bug of sapc; please report it)", (long long)it, L->id,
	          mode & SAP_WRITE ? "writes" : "reads", name ? name : "?", key,
	          rec ? "recorded as only read" : "did not record");
}

void sap_audit_key(const sap_loop *L, int dds, int64_t it, int64_t key, int mode,
                   const sap_site *s)
{
	bool rec;
	if (recorded(L, dds, it, key, mode, &rec))
		return;
	const struct sap_loop_state *st = L->state;
	const sap_dvec *v = dds < st->ndds ? st->ptrs[dds] : NULL;
	unrecorded(L, it, v ? v->name : NULL, sap_strf("%lld", (long long)key), mode, rec, s);
}

void sap_audit_map(const sap_loop *L, int dds, int64_t it, int64_t key, const sap_str *skey,
                   int mode, const sap_site *s)
{
	bool rec;
	if (recorded(L, dds, it, key, mode, &rec))
		return;
	const struct sap_loop_state *st = L->state;
	const sap_dmap *m = dds < st->ndds ? st->ptrs[dds] : NULL;
	char buf[200];
	unrecorded(L, it, m ? m->name : NULL,
	           skey ? sap_strf("\"%s\"", sap_shown(sap_str_c(*skey), buf, sizeof buf)) :
	           sap_strf("%lld", (long long)key), mode, rec, s);
}
