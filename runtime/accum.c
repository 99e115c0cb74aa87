/* accum.c: the private buffers of accumulate(+: D).
 *
 * Updates that commute are not conflicts: each worker adds into its own
 * buffer and the buffers are summed in worker order, so the result is
 * deterministic for a given number of workers. */
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

#define ADD(T)                                                                  \
	void sap_acc_add_##T(void *into, const void *from, int64_t n)           \
	{                                                                       \
		T *a = into;                                                    \
		const T *b = from;                                              \
		for (int64_t i = 0; i < n; i++)                                 \
			a[i] += b[i];                                           \
	}                                                                       \
	void sap_dm_merge_##T(sap_dmap *into, sap_dmap *from, int64_t ncomp)    \
	{                                                                       \
		int64_t pos = 0;                                                \
		const void *key;                                                \
		void *val;                                                      \
		while (sap_dm_next(from, &pos, &key, &val)) {                   \
			T *d = sap_dm_upsert(into, key);                        \
			const T *s = val;                                       \
			for (int64_t c = 0; c < ncomp; c++)                     \
				d[c] += s[c];                                   \
		}                                                               \
	}
ADD(float)
ADD(double)
ADD(int32_t)
ADD(int64_t)
