/* ptrs.c: sets of pointers, for the runtime's lists of live or special
 * DDSs (few, and walked rarely). */
#include "sap-int.h"

void sap_ptrs_add(sap_ptrs *s, void *p)
{
	for (int k = 0; k < s->n; k++)
		if (s->v[k] == p)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = sap_xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
	}
	s->v[s->n++] = p;
}

void sap_ptrs_del(sap_ptrs *s, void *p)
{
	for (int k = 0; k < s->n; k++)
		if (s->v[k] == p) {
			s->v[k] = s->v[--s->n];
			return;
		}
}
