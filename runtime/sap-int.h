/* sap-int.h: what the files of libsap share and generated code never sees. */
#ifndef SAP_INT_H
#define SAP_INT_H

#include <stdarg.h>
#include "sap.h"

/* error.c */
_Noreturn void sap_vfatal(const sap_site *s, const char *fmt, va_list ap);
/* Allocation that cannot fail: running out of memory is a fatal error, so
 * callers need no NULL checks. */
void *sap_xmalloc(size_t n);
void *sap_xrealloc(void *p, size_t n);
/* n * size with the product checked, like calloc. */
void *sap_xcalloc(size_t n, size_t size);

/* str.c: n bytes from the string arena; they are never freed. */
char *sap_arena_alloc(size_t n);

/* Blanks separate fields of a data file; a newline ends the line. */
static inline bool sap_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

#endif
