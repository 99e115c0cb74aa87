/* list.c: storage of local lists; the generated code handles elements. */
#include <stdlib.h>
#include "sap-int.h"

void sap_list_grow(sap_list *l, int64_t need, size_t elsize)
{
	if (need <= l->cap)
		return;
	/* Doubling keeps push amortised O(1). */
	int64_t cap = l->cap < 4 ? 4 : l->cap;
	while (cap < need)
		if (__builtin_mul_overflow(cap, 2, &cap))
			sap_fatal(NULL, "out of memory");
	size_t bytes;
	if (__builtin_mul_overflow((uint64_t)cap, elsize, &bytes))
		sap_fatal(NULL, "out of memory");
	l->v = sap_xrealloc(l->v, bytes);
	l->cap = cap;
}

void sap_list_free(sap_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
