/* accum.c: the private buffers of accumulate(+: D).
 *
 * Updates that commute are not conflicts: each worker adds into its own
 * buffer and the buffers are summed in worker order, so the result is
 * deterministic for a given number of workers.  The sums themselves are
 * sap_acc_add's (merge.c), scalar by scalar of each element. */
#include <stdlib.h>
#include "sap-int.h"

void *sap_acc_alloc(int64_t n, size_t elsize)
{
	return sap_xcalloc(n > 0 ? (size_t)n : 1, elsize ? elsize : 1);
}

void sap_acc_free(void *p)
{
	free(p);
}

void sap_dm_merge(const sap_numtype *t, sap_dmap *into, sap_dmap *from)
{
	int64_t pos = 0;
	const void *key;
	void *val;
	while (sap_dm_next(from, &pos, &key, &val))
		sap_acc_add(t, sap_dm_upsert(into, key), val, 1);
}
