/* util.c: allocation that cannot fail, strings, buffers, file reading.
 * The compiler is a short-lived process: it does not free its AST. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"

static void oom(void)
{
	fputs("sapc: out of memory\n", stderr);
	exit(1);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xcalloc(n + 1, 1);
	memcpy(d, s, n);
	return d;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		oom();
	char *s = xcalloc(n + 1, 1);
	vsnprintf(s, n + 1, fmt, ap);
	return s;
}

char *format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

void buf_putc(Buf *b, char c)
{
	if (b->len + 2 > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->s = xrealloc(b->s, b->cap);
	}
	b->s[b->len++] = c;
	b->s[b->len] = 0;
}

void buf_puts(Buf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 256;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	buf_puts(b, s);
	free(s);
}

void vec_push(Vec *v, void *p)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->v = xrealloc(v->v, v->cap * sizeof *v->v);
	}
	v->v[v->n++] = p;
}

/* The whole file, NUL-terminated; NULL with errno set on failure. */
char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	Buf b = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n + 1 > b.cap) {
			while (b.len + n + 1 > b.cap)
				b.cap = b.cap ? b.cap * 2 : 65536;
			b.s = xrealloc(b.s, b.cap);
		}
		memcpy(b.s + b.len, chunk, n);
		b.len += n;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(b.s);
		errno = EIO;
		return NULL;
	}
	if (!b.s)
		b.s = xcalloc(1, 1);
	b.s[b.len] = 0;
	*len = b.len;
	return b.s;
}
