/* str.c: immutable strings, carved from a chunked arena.
 *
 * Strings are never freed, and a large corpus makes millions of small
 * ones: a malloc each would cost more time and memory than the text.  Each
 * thread carves from its own chunk, so later parallel loaders need no lock.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

enum { CHUNK = 1 << 20 };

static _Thread_local char *chunk_p;
static _Thread_local size_t chunk_left;

char *sap_arena_alloc(size_t n)
{
	if (n > chunk_left) {
		/* A big string gets its own block rather than wasting the
		 * rest of a chunk. */
		if (n > CHUNK / 8)
			return sap_xmalloc(n);
		chunk_p = sap_xmalloc(CHUNK);
		chunk_left = CHUNK;
	}
	char *p = chunk_p;
	chunk_p += n;
	chunk_left -= n;
	return p;
}

sap_str sap_str_dup(const char *s, size_t n)
{
	char *p = sap_arena_alloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

sap_str sap_str_of_long(int64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
	return sap_str_dup(buf, (size_t)n);
}

sap_str sap_str_of_double(double v)
{
	char buf[32];
	int n = 0;
	/* A subnormal has fewer significant digits than 15 (5e-324 has one):
	 * at 15 it would print digits of noise. */
	int from = v != 0 && fabs(v) < DBL_MIN ? 1 : 15;
	for (int digits = from; digits <= 17; digits++) {
		n = snprintf(buf, sizeof buf, "%.*g", digits, v);
		if (v != v || strtod(buf, NULL) == v)
			break;
	}
	return sap_str_dup(buf, (size_t)n);
}

sap_str sap_str_of_float(float v)
{
	char buf[32];
	int n = 0;
	int from = v != 0 && fabsf(v) < FLT_MIN ? 1 : 6;
	for (int digits = from; digits <= 9; digits++) {
		n = snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
		if (v != v || strtof(buf, NULL) == v)
			break;
	}
	return sap_str_dup(buf, (size_t)n);
}

sap_str sap_str_cat(sap_str a, sap_str b)
{
	a = sap_str_c(a);
	b = sap_str_c(b);
	size_t na = strlen(a), nb = strlen(b);
	char *p = sap_arena_alloc(na + nb + 1);
	memcpy(p, a, na);
	memcpy(p + na, b, nb + 1);
	return p;
}

const char *sap_shown(const char *s, char *buf, size_t size)
{
	size_t n = 0, i = 0;
	for (; s[i] && i < 40 && n + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			n += (size_t)snprintf(buf + n, size - n, c == '"' || c == '\\' ? "\\%c" : "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	if (s[i] && n + 4 < size)
		n += (size_t)snprintf(buf + n, size - n, "...");
	buf[n] = '\0';
	return buf;
}

