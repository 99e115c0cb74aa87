/* util.c: allocation that cannot fail, strings, buffers, file reading.
 * The compiler is a short-lived process: it does not free its AST one
 * node at a time, but xfree_all() releases everything at once. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"

static void oom(void)
{
	fputs("sapc: out of memory\n", stderr);
	exit(1);
}

/* Every block is on one list, so that a process compiling many programs
 * (the fuzz target) can release a whole compilation at once. */
typedef union Hdr {
	struct {
		union Hdr *prev, *next;
	} l;
	max_align_t align;
} Hdr;
static Hdr live = {.l = {&live, &live}};

static void *link_block(Hdr *h)
{
	h->l.prev = &live;
	h->l.next = live.l.next;
	live.l.next->l.prev = h;
	live.l.next = h;
	return h + 1;
}

static void unlink_block(Hdr *h)
{
	h->l.prev->l.next = h->l.next;
	h->l.next->l.prev = h->l.prev;
}

void *xcalloc(size_t n, size_t size)
{
	n = n ? n : 1;
	size = size ? size : 1;
	if (n > (SIZE_MAX - sizeof(Hdr)) / size)
		oom();
	Hdr *h = calloc(1, sizeof(Hdr) + n * size);
	if (!h)
		oom();
	return link_block(h);
}

void *xrealloc(void *p, size_t size)
{
	if (!p)
		return xcalloc(1, size);
	if (size > SIZE_MAX - sizeof(Hdr))
		oom();
	Hdr *h = (Hdr *)p - 1;
	unlink_block(h);
	Hdr *q = realloc(h, sizeof(Hdr) + (size ? size : 1));
	if (!q) {
		link_block(h);
		oom();
	}
	return link_block(q);
}

void xfree(void *p)
{
	if (!p)
		return;
	Hdr *h = (Hdr *)p - 1;
	unlink_block(h);
	free(h);
}

void xfree_all(void)
{
	for (Hdr *h = live.l.next; h != &live;) {
		Hdr *next = h->l.next;
		free(h);
		h = next;
	}
	live.l.prev = live.l.next = &live;
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
	xfree(s);
}

void vec_push(Vec *v, void *p)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->v = xrealloc(v->v, v->cap * sizeof *v->v);
	}
	v->v[v->n++] = p;
}

static unsigned hash_str(const char *s, size_t n)
{
	unsigned h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

void *map_getn(const Map *m, const char *key, size_t n)
{
	if (!m->cap)
		return NULL;
	unsigned mask = (unsigned)m->cap - 1;
	for (unsigned i = hash_str(key, n) & mask; m->keys[i]; i = (i + 1) & mask)
		if (strncmp(m->keys[i], key, n) == 0 && !m->keys[i][n])
			return m->vals[i];
	return NULL;
}

void *map_get(const Map *m, const char *key)
{
	return map_getn(m, key, strlen(key));
}

void map_put(Map *m, const char *key, void *val)
{
	if (2 * (m->n + 1) > m->cap) {
		Map g = {.cap = m->cap ? 2 * m->cap : 64};
		g.keys = xcalloc((size_t)g.cap, sizeof *g.keys);
		g.vals = xcalloc((size_t)g.cap, sizeof *g.vals);
		for (int i = 0; i < m->cap; i++)
			if (m->keys[i])
				map_put(&g, m->keys[i], m->vals[i]);
		xfree(m->keys);
		xfree(m->vals);
		*m = g;
	}
	unsigned i = hash_str(key, strlen(key)) & (unsigned)(m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (unsigned)(m->cap - 1);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
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
		xfree(b.s);
		errno = EIO;
		return NULL;
	}
	if (!b.s)
		b.s = xcalloc(1, 1);
	b.s[b.len] = 0;
	*len = b.len;
	return b.s;
}
