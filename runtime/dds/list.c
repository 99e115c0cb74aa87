/* list.c: storage of local lists; the generated code handles elements. */
#include <stdlib.h>
#include <string.h>
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
	if (l->cap == 0 && l->v) {
		/* Borrowed storage is copied out, never reallocated. */
		void *v = sap_xmalloc(bytes);
		memcpy(v, l->v, (size_t)l->n * elsize);
		l->v = v;
	} else {
		l->v = sap_xrealloc(l->v, bytes);
	}
	l->cap = cap;
}

void sap_list_release(void *v)
{
	free(v);
}

size_t sap_list_settle(sap_list *l, size_t elsize, char *at)
{
	void *own = l->n && at && l->cap ? l->v : NULL;
	size_t bytes = sap_list_lend(l, elsize, at);
	free(own);
	return bytes;
}

/* Whole 8-byte words keep every list's elements aligned. */
size_t sap_list_lend(sap_list *l, size_t elsize, char *at)
{
	if (l->n == 0)
		return 0;
	size_t bytes = (size_t)l->n * elsize;
	if (at) {
		memcpy(at, l->v, bytes);
		l->v = at;
		l->cap = 0;
	}
	return (bytes + 7) & ~(size_t)7;
}
