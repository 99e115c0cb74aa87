/* load.c: reading a dvector from a text file, one element per line.
 *
 * On one rank the file is read whole into one buffer (a corpus of
 * millions of lines must load in well under a second or two), counted,
 * then parsed in place by the generated per-type parser through the
 * scanners below.  On several ranks each reads and parses the lines that
 * start in its share of the file's bytes; the elements keep file order.
 * Scanners never look past the end of their line.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <signal.h>
#include "sap-int.h"

/* Set while a rank parses its share of a file: the first error is kept
 * here instead of ending the program, so that every rank can agree on
 * the first bad line of the whole file. */
typedef struct load_trap {
	jmp_buf at;
	int64_t line;
	char *msg;              /* sap_xmalloc */
} load_trap;
static _Thread_local load_trap *trap;

/* Inside a line, '\n' can only appear in fields built by hand; treat it
 * like a blank so a token never spans lines. */
static inline bool is_sep(char c)
{
	return sap_is_blank(c) || c == '\n';
}

static _Noreturn __attribute__((format(printf, 2, 3)))
void field_error(const sap_fields *f, const char *fmt, ...)
{
	sap_site s = { f->file, f->line > INT32_MAX ? INT32_MAX : (int)f->line, 0 };
	va_list ap;
	va_start(ap, fmt);
	if (trap) {
		trap->msg = sap_vstrf(fmt, ap);
		va_end(ap);
		trap->line = f->line;
		longjmp(trap->at, 1);
	}
	sap_vfatal(&s, fmt, ap);
}

/* A token for a message, in quotes: long ones cut short, control bytes
 * escaped (a data file may hold anything). */
static char *tok(const char *p, size_t n)
{
	char *e = sap_token(p, n);
	/* What the quotes do not show: a no-break space looks like the
	 * blank it is not. */
	bool nbsp = false;
	for (size_t i = 0; i + 1 < n && !nbsp; i++)
		nbsp = (unsigned char)p[i] == 0xc2 && (unsigned char)p[i + 1] == 0xa0;
	char *q = sap_strf("\"%s\"%s", e, nbsp ? " (with a no-break space, U+00A0, which "
	                   "does not separate fields)" : "");
	free(e);
	return q;
}

/* Inside an element of a list of structs or arrays, a ':' ends a field
 * too, and joins it to the next field of the same element. */
static inline bool ends_field(const sap_fields *f, char c)
{
	return is_sep(c) || (f->elem && c == ':') || (f->comma && c == ',');
}

/* Past the blanks before the next field, and in a .csv file past the
 * one comma owed before it.  A missing comma is left for next_token to
 * name, as is a second one (an empty field). */
static inline const char *skip_sep(sap_fields *f, const char *p)
{
	while (p < f->end && is_sep(*p))
		p++;
	if (f->owed && p < f->end && *p == ',') {
		f->owed = false;
		p++;
		while (p < f->end && is_sep(*p))
			p++;
	}
	return p;
}

static _Noreturn void elem_error(const sap_fields *f, const char *field, const char *what)
{
	field_error(f, "field '%s': %s; an element of list '%s' is a %s", field, what, f->elem,
	            f->eshape);
}

static const char *next_token(sap_fields *f, const char *field, size_t *n)
{
	const char *p = f->p;
	if (f->elem && f->eat > 0 && p < f->end && *p == ':') {
		p++;
		if (p == f->end || is_sep(*p) || *p == ':')
			elem_error(f, field, "empty (nothing after ':')");
	} else {
		p = skip_sep(f, p);
		if (f->comma && p < f->end && (f->owed || *p == ',')) {
			const char *q = p;
			while (q < f->end && !ends_field(f, *q))
				q++;
			if (f->owed)
				field_error(f, "field '%s': %s follows the last field with no ',': "
				            "the fields of a .csv file are separated by commas", field,
				            tok(p, (size_t)(q - p)));
			field_error(f, "field '%s': empty (two commas in a row)", field);
		}
	}
	if (p == f->end) {
		if (f->elem && f->eat > 0)
			field_error(f, "list '%s': the line ends inside an element, %d field%s short: "
			            "an element is a %s", f->elem, f->enf - f->eat,
			            f->enf - f->eat == 1 ? "" : "s", f->eshape);
		/* A .csv of another separator: one field, which holds all. */
		const char *sep = f->comma && !memchr(f->start, ',', (size_t)(f->end - f->start)) ?
		                  memchr(f->start, ';', (size_t)(f->end - f->start)) ? ";" :
		                  memchr(f->start, '|', (size_t)(f->end - f->start)) ? "|" : NULL : NULL;
		if (sep)
			field_error(f, "field '%s': missing (line has too few fields): the line has no "
			            "',' but '%s', and the fields of a .csv file are separated by commas",
			            field, sep);
		field_error(f, "field '%s': missing (line has too few fields)", field);
	}
	const char *q = p;
	while (q < f->end && !ends_field(f, *q))
		q++;
	if (q == p)
		elem_error(f, field, "empty (nothing before ':')");
	if (f->elem && f->eat++ == 0)
		f->estart = p;
	else if (f->elem)
		f->ejoin |= p[-1] == ':' ? 1 : 2;
	f->p = q;
	f->owed = f->comma;
	*n = (size_t)(q - p);
	return p;
}

void sap_scan_elem(sap_fields *f, const char *list, const char *shape, int nf)
{
	f->elem = list;
	f->eshape = shape;
	f->enf = nf;
	f->eat = 0;
	f->ejoin = 0;
}

/* The element ending at f->p holds its fields otherwise than the line's
 * first (f->lfirst), or both ways (f->ejoin 3). */
static _Noreturn __attribute__((cold, noinline)) void mixed_forms(const sap_fields *f)
{
	int form = f->ejoin;
	if (form == 3)
		field_error(f, "list '%s': %s joins some of its fields by ':' and separates "
		            "others by blanks: an element is a %s, and a ':' ends a string field",
		            f->elem, tok(f->estart, (size_t)(f->p - f->estart)), f->eshape);
	const char *j = form == 1 ? f->estart : f->lfirst;
	const char *b = form == 1 ? f->lfirst : f->estart;
	const char *je = j, *be = b;
	while (je < f->end && !is_sep(*je))
		je++;
	for (int k = 1; be < f->end && k < f->enf; k++) {
		while (be < f->end && !is_sep(*be))
			be++;
		while (be < f->end && is_sep(*be))
			be++;
	}
	while (be < f->end && !is_sep(*be))
		be++;
	field_error(f, "list '%s': %s at column %lld joins an element's fields by ':' "
	            "but %s at column %lld separates them by blanks: a line holds its "
	            "elements one way, and a ':' ends a string field, so that a word "
	            "holding one becomes two fields (an element is a %s)", f->elem,
	            tok(j, (size_t)(je - j)), (long long)(j - f->start + 1),
	            tok(b, (size_t)(be - b)), (long long)(b - f->start + 1), f->eshape);
}

void sap_scan_elem_end(sap_fields *f)
{
	if (f->p < f->end && *f->p == ':') {
		const char *q = f->p;
		while (q < f->end && !is_sep(*q))
			q++;
		size_t n = (size_t)(q - f->estart);
		field_error(f, "list '%s': %s has more than the %d fields of an element, "
		            "a %s", f->elem, tok(f->estart, n), f->enf, f->eshape);
	}
	/* A line that mixes the forms has most likely a ':' inside a string
	 * field ("4:30" for a word), which made two fields of it and
	 * shifted every element after it: silently, when a second such
	 * word shifts them back. */
	if (f->ejoin != f->lform) {
		if (f->lform || f->ejoin == 3)
			mixed_forms(f);
		f->lform = f->ejoin;
		f->lfirst = f->estart;
	}
	f->elem = NULL;
}

/* ---- lists, into blocks (see sap_lbuf) ---- */

/* A block is an arena block (sap-int.h) of lists. */
enum { LB_HEAD = SAP_ARENA_HEAD, LB_MIN = 64 << 10 };

static void lb_close(sap_lbuf *b)
{
	if (!b->tail)
		return;
	size_t used = (size_t)(b->top - (b->tail + LB_HEAD));
	memcpy(b->tail + sizeof(char *), &used, sizeof used);
	b->used += used;
}

/* A block for at least need bytes more: the first for about half the
 * text's bytes (a list of ints takes about half the text it is read
 * from), each next one twice the last. */
static void lb_grow(sap_lbuf *b, size_t need)
{
	size_t size = b->tail ? 2 * (size_t)(b->end - b->tail) : b->hint / 2 + LB_MIN;
	if (size < need + LB_HEAD + LB_MIN)
		size = need + LB_HEAD + LB_MIN;
	char *blk = sap_alloc_dds(size);
	if (!blk)
		sap_fatal(NULL, "out of memory reading lists");
	memset(blk, 0, LB_HEAD);
	lb_close(b);
	if (b->tail)
		memcpy(b->tail, &blk, sizeof blk);
	else
		b->head = blk;
	b->tail = blk;
	b->top = blk + LB_HEAD;
	b->end = blk + size;
}

void *sap_scan_push_slow(sap_fields *f, sap_list *l, size_t elsize)
{
	sap_lbuf *b = f->lists;
	if (!b)
		return sap_list_push(l, elsize);
	size_t have = (size_t)l->n * elsize;
	char *from = l->n ? l->v : NULL;
	/* The list at the top moves with its elements; one that is not (a
	 * list the parser did not start) is copied to the top. */
	if (from && !l->cap && from + have == b->top)
		b->top = from;
	/* Whole 8-byte words keep every list's elements aligned. */
	size_t pad = b->tail ? (8 - (uintptr_t)b->top % 8) % 8 : 0;
	if (!b->tail || (size_t)(b->end - b->top) < pad + have + elsize) {
		lb_grow(b, have + elsize);
		pad = 0;
	}
	char *at = b->top + pad;
	if (from && at != from)
		memmove(at, from, have);
	if (l->cap)
		free(l->v);
	l->v = at;
	l->cap = 0;
	b->top = at + have + elsize;
	return at + (size_t)l->n++ * elsize;
}

/* A decimal integer in [lo, hi] filling the whole token. */
static int64_t scan_integer(sap_fields *f, const char *field, const char *type,
                            int64_t lo, int64_t hi)
{
	size_t n;
	const char *t = next_token(f, field, &n);
	int64_t v = 0;
	switch (sap_parse_integer(t, n, lo, hi, &v)) {
	case SAP_NUM_RANGE:
		field_error(f, "field '%s': %s is out of range for %s", field, sap_token(t, n), type);
	case SAP_NUM_BAD:
		field_error(f, "field '%s': expected %s %s, got %s", field,
		            type[0] == 'i' ? "an" : "a", type, tok(t, n));
	}
	return v;
}

/* Where the next field starts, for the one-pass readers below: after
 * the ':' inside an element, else after blanks.  Nothing is checked. */
static inline const char *quick_start(const sap_fields *f)
{
	const char *p = f->p;
	if (f->elem && f->eat > 0 && p < f->end && *p == ':')
		return p + 1;
	while (p < f->end && is_sep(*p))
		p++;
	/* The owed comma, then one field: anything else (no comma, two)
	 * is next_token's to name. */
	if (f->comma) {
		if (f->owed) {
			if (p == f->end || *p != ',')
				return f->end;
			p++;
			while (p < f->end && is_sep(*p))
				p++;
		}
		if (p < f->end && *p == ',')
			return f->end;
	}
	return p;
}

/* The field [t, q) read by a one-pass reader: taken if it ends there. */
static inline bool quick_take(sap_fields *f, const char *t, const char *q)
{
	if (q < f->end && !ends_field(f, *q))
		return false;
	if (f->elem && f->eat++ == 0)
		f->estart = t;
	else if (f->elem)
		f->ejoin |= t[-1] == ':' ? 1 : 2;
	f->p = q;
	f->owed = f->comma;
	return true;
}

/* The common token, up to 18 plain digits with an optional '-', read in
 * one pass; false leaves f as it was, for scan_integer to read the token
 * again and say what is wrong with it.  A graph's lists of ids took
 * three passes over each token. */
static inline bool quick_integer(sap_fields *f, int64_t lo, int64_t hi, int64_t *out)
{
	const char *t = quick_start(f), *p = t, *end = f->end;
	bool neg = p < end && *p == '-';
	p += neg;
	const char *d = p, *dmax = end - p > 18 ? p + 18 : end;
	uint64_t u = 0;
	while (p < dmax && (unsigned)(*p - '0') <= 9)
		u = u * 10 + (unsigned)(*p++ - '0');
	int64_t v = neg ? -(int64_t)u : (int64_t)u;
	if (p == d || v < lo || v > hi || !quick_take(f, t, p))
		return false;
	*out = v;
	return true;
}

void sap_scan_int(sap_fields *f, int32_t *out, const char *field)
{
	int64_t v;
	if (!quick_integer(f, INT32_MIN, INT32_MAX, &v))
		v = scan_integer(f, field, "int", INT32_MIN, INT32_MAX);
	*out = (int32_t)v;
}

void sap_scan_long(sap_fields *f, int64_t *out, const char *field)
{
	if (!quick_integer(f, INT64_MIN, INT64_MAX, out))
		*out = scan_integer(f, field, "long", INT64_MIN, INT64_MAX);
}

static double scan_real(sap_fields *f, const char *field, bool is_float)
{
	size_t n;
	const char *t = next_token(f, field, &n);
	double x = 0;
	const char *type = is_float ? "float" : "double";
	switch (sap_parse_real(t, n, is_float, &x)) {
	case SAP_NUM_BAD:
		field_error(f, "field '%s': expected a %s, got %s", field, type, tok(t, n));
	case SAP_NUM_RANGE:
		field_error(f, "field '%s': %s is out of range for %s", field, sap_token(t, n), type);
	case SAP_NUM_TINY:
		field_error(f, "field '%s': %s is too small for %s: it would be 0", field,
		            sap_token(t, n), type);
	case SAP_NUM_NOTFINITE:
		field_error(f, "field '%s': expected a finite %s, got %s (nan and inf are not "
		            "accepted)", field, type, tok(t, n));
	}
	return x;
}

/* The common token, read in one pass as quick_integer does. */
static inline bool quick_real(sap_fields *f, bool is_float, double *out)
{
	const char *t = quick_start(f);
	const char *q = sap_quick_real(t, f->end, is_float, out);
	return q && quick_take(f, t, q);
}

void sap_scan_float(sap_fields *f, float *out, const char *field)
{
	/* strtof's float, widened and narrowed back unchanged. */
	double x;
	if (!quick_real(f, true, &x))
		x = scan_real(f, field, true);
	*out = (float)x;
}

void sap_scan_double(sap_fields *f, double *out, const char *field)
{
	if (!quick_real(f, false, out))
		*out = scan_real(f, field, false);
}

void sap_scan_bool(sap_fields *f, bool *out, const char *field)
{
	size_t n;
	const char *t = next_token(f, field, &n);
	if ((n == 4 && !memcmp(t, "true", 4)) || (n == 1 && *t == '1'))
		*out = true;
	else if ((n == 5 && !memcmp(t, "false", 5)) || (n == 1 && *t == '0'))
		*out = false;
	else
		field_error(f, "field '%s': expected a bool, got %s", field, tok(t, n));
}

void sap_scan_str(sap_fields *f, sap_str *out, const char *field)
{
	size_t n;
	const char *t = next_token(f, field, &n);
	*out = sap_str_dup(t, n);
}

void sap_scan_line(sap_fields *f, sap_str *out)
{
	sap_scan_more(f);
	const char *q = f->end;
	while (q > f->p && is_sep(q[-1]))
		q--;
	*out = sap_str_dup(f->p, (size_t)(q - f->p));
	f->p = f->end;
}

bool sap_scan_more(sap_fields *f)
{
	const char *p = f->p;
	while (p < f->end && is_sep(*p))
		p++;
	/* A comma that ends the line ("1,2,") ends it. */
	if (f->comma && f->owed && p < f->end && *p == ',') {
		const char *q = p + 1;
		while (q < f->end && is_sep(*q))
			q++;
		if (q == f->end)
			p = q;
	}
	f->p = p;
	return p < f->end;
}

void sap_scan_end(sap_fields *f, const char *type)
{
	if (!sap_scan_more(f))
		return;
	if (f->comma && *f->p == ',')
		f->p = skip_sep(f, f->p);
	const char *q = f->p;
	while (q < f->end && !is_sep(*q))
		q++;
	size_t n = (size_t)(q - f->p);
	/* Lines ended by a CR alone (old Mac files) are one line. */
	const char *cr = memchr(f->start, '\r', (size_t)(f->end - f->start));
	if (cr && cr + 1 < f->end)
		field_error(f, "extra field %s after %s: the line holds carriage returns, so its "
		            "lines may end in a CR alone, which load does not take for a line end; "
		            "convert it (tr '\\r' '\\n')", tok(f->p, n), type);
	field_error(f, "extra field %s after %s", tok(f->p, n), type);
}

/* ---- the file ---- */

/* Text to parse: p[0 .. len), either in a buffer of ours or in a
 * read-only mapping of the file (map, maplen). */
typedef struct text {
	char *p;
	size_t len;
	void *map;
	size_t maplen;
} text;

/* A mapped file that shrinks under the parser raises SIGBUS at the first
 * page past its new end: one line instead of a crash report. */
static const char *volatile mapped_path;
static struct sigaction bus_before;

static void put_err(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(2, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void on_sigbus(int sig)
{
	(void)sig;
	put_err("sap: error: '");
	put_err(mapped_path ? mapped_path : "?");
	put_err("' was truncated while it was being loaded\n");
	_exit(1);
}

/* The bytes [lo, size) of regular file fd, mapped: the parser reads the
 * page cache's own pages, where read() would copy them into as many
 * fresh pages, each zeroed by the kernel on first touch (a third of the
 * system time loading a 60 MB graph).  False if it cannot be mapped
 * (empty, or a file system without mmap): then it is read. */
static bool map_text(int fd, off_t lo, off_t size, text *t, const char *path)
{
	long pg = sysconf(_SC_PAGESIZE);
	off_t a0 = pg > 0 ? lo / pg * pg : 0;
	if (size <= lo || (uint64_t)(size - a0) > SIZE_MAX)
		return false;
	void *m = mmap(NULL, (size_t)(size - a0), PROT_READ, MAP_PRIVATE, fd, a0);
	if (m == MAP_FAILED)
		return false;
	*t = (text){ (char *)m + (lo - a0), (size_t)(size - lo), m, (size_t)(size - a0) };
	mapped_path = path;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &bus_before);
	return true;
}

static void text_done(text *t)
{
	if (t->map) {
		munmap(t->map, t->maplen);
		sigaction(SIGBUS, &bus_before, NULL);
		mapped_path = NULL;
	} else
		sap_spare_give(t->p, t->len);
	*t = (text){ 0 };
}

/* All of fd (closed) plus a NUL; NULL with errno set on failure.  A
 * regular file's size is a hint; pipes and devices grow the buffer. */
static char *read_fd(int fd, size_t *len)
{
	struct stat st;
	size_t cap = 1 << 16;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	char *buf = sap_xmalloc(cap);
	size_t n = 0;
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = sap_xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* All of fd (closed), path; false with errno set on failure. */
static bool read_text(int fd, text *t, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && map_text(fd, 0, st.st_size, t, path)) {
		close(fd);
		return true;
	}
	*t = (text){ 0 };
	t->p = read_fd(fd, &t->len);
	return t->p != NULL;
}

/* path opened for reading: the descriptor, or -1 with errno set.  A
 * directory is refused here, since read() would fail later with a vaguer
 * message.  Only to look (peek), a FIFO is opened without waiting for its
 * writer. */
static int open_input(const char *path, bool *regular, bool peek)
{
	int fd = open(path, O_RDONLY | (peek ? O_NONBLOCK : 0));
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return -1;
	}
	*regular = S_ISREG(st.st_mode);
	return fd;
}

/* A UTF-8 byte-order mark, which some editors put at the start of a text
 * file, is not data: its length at buf, or 0. */
static size_t bom(const char *buf, size_t len)
{
	return len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
}

/* A file of UTF-16 text, told by its byte-order mark: its every other
 * byte a NUL, which parsing would call an error of its first line. */
static void not_utf16(const char *buf, size_t len, const char *path, const sap_site *s)
{
	if (len >= 2 && ((buf[0] == '\xff' && buf[1] == '\xfe') ||
	                 (buf[0] == '\xfe' && buf[1] == '\xff')))
		sap_fatal(s, "'%s' is UTF-16 text (it starts with the byte-order mark %s): data files "
		          "are UTF-8; convert it (iconv -f UTF-16 -t UTF-8)", path,
		          buf[0] == '\xff' ? "FF FE" : "FE FF");
}

bool sap_is_csv(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && !strcasecmp(path + n - 4, ".csv");
}

static bool is_tsv(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && !strcasecmp(path + n - 4, ".tsv");
}

/* Start of the line's content, or NULL for a blank or comment line. */
static const char *content(const char *p, const char *eol)
{
	while (p < eol && sap_is_blank(*p))
		p++;
	return p == eol || *p == '#' ? NULL : p;
}

/* Every element of buf[0 .. len), lines numbered from line0 + 1, into
 * elems (count of them); with trap set, the first error is caught there. */
static void parse_lines(const char *buf, size_t len, const char *path, int64_t line0,
                        char *elems, size_t elsize, sap_parse_fn parse, sap_lbuf *lists)
{
	const char *end = buf + len;
	/* A NUL would end a string field early, silently: text has none. */
	const char *nul = memchr(buf, '\0', len);
	sap_fields f = { .file = path, .line = line0, .lists = lists, .comma = sap_is_csv(path) };
	for (const char *p = buf; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		f.line++;
		if (nul && nul < eol)
			field_error(&f, "a NUL byte at column %lld: data files are text, "
			            "which holds none", (long long)(nul - p + 1));
		const char *c = content(p, eol);
		if (c) {
			f.p = f.start = c;
			f.lform = 0;
			f.end = eol;
			f.owed = false;
			parse(&f, elems);
			elems += elsize;
		}
		p = eol + 1;
	}
}

/* Physical lines (line starts), elements, and comment lines (their first
 * non-blank character a '#') in buf[0 .. len). */
static void count_lines(const char *buf, size_t len, int64_t *lines, int64_t *elems,
                        int64_t *hashes, int64_t *blanks, int64_t *tail)
{
	const char *end = buf + len;
	*lines = *elems = *hashes = *blanks = *tail = 0;
	for (const char *p = buf; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		++*lines;
		if (content(p, eol)) {
			++*elems;
			*tail = 0;
		} else {
			const char *q = p;
			while (q < eol && sap_is_blank(*q))
				q++;
			bool hash = q < eol && *q == '#';
			*hashes += hash;
			*blanks += !hash;
			*tail += !hash;
		}
		p = eol + 1;
	}
}

/* The comment lines of the load in progress: of the whole file, or of
 * this rank's share until load_shared adds them up. */
static int64_t load_hashes;
/* Its blank lines, those after its last element, and its elements: of
 * the text counted, or of this rank's share until load_shared adds them
 * up (blanks_shared). */
static struct { int64_t all, tail, elems; } load_blanks;

/* Collective: load_blanks of the whole file from the ranks' shares, which
 * follow one another in rank order. */
static void blanks_shared(void)
{
	int P = sap_nranks();
	int64_t mine[3] = { load_blanks.all, load_blanks.tail, load_blanks.elems };
	int64_t *all = sap_xmalloc((size_t)P * sizeof mine);
	sap_comm_allgather(mine, all, 3, sizeof *mine);
	load_blanks.all = load_blanks.tail = load_blanks.elems = 0;
	for (int r = 0; r < P; r++) {
		const int64_t *x = all + 3 * r;
		load_blanks.all += x[0];
		load_blanks.tail = x[2] ? x[1] : load_blanks.tail + x[0];
		load_blanks.elems += x[2];
	}
	free(all);
}

static void parse_trapped(load_trap *t, const char *buf, size_t len, const char *path,
                          int64_t line0, char *elems, size_t elsize, sap_parse_fn parse,
                          sap_lbuf *lists)
{
	trap = t;
	if (!setjmp(t->at))
		parse_lines(buf, len, path, line0, elems, elsize, parse, lists);
	trap = NULL;
}

/* Whether the line [p, eol) reads as an element, an empty one (p ==
 * eol) too, which a load skips; what it holds is dropped. */
static bool reads(const char *p, const char *eol, const char *path, size_t elsize,
                  sap_parse_fn parse, const sap_codec *codec)
{
	char *el = sap_xcalloc(1, elsize ? elsize : 1);
	load_trap t = { .line = INT64_MAX };
	if (p == eol) {
		sap_fields f = { .file = path, .comma = sap_is_csv(path) };
		f.p = f.start = f.end = p;
		trap = &t;
		if (!setjmp(t.at))
			parse(&f, el);
		trap = NULL;
	} else {
		parse_trapped(&t, p, (size_t)(eol - p), path, 0, el, elsize, parse, NULL);
	}
	bool ok = t.line == INT64_MAX;
	free(t.msg);
	if (codec && codec->drop)
		codec->drop(el);
	free(el);
	return ok;
}

/* The next field of a header line at *p before eol, separated by blanks
 * or commas: its start, with its length in *n (0 at the line's end). */
static const char *next_field(const char **p, const char *eol, size_t *n)
{
	const char *q = *p;
	while (q < eol && (sap_is_blank(*q) || *q == ',' || *q == '\r'))
		q++;
	const char *f = q;
	while (q < eol && !sap_is_blank(*q) && *q != ',' && *q != '\r')
		q++;
	*p = q;
	*n = (size_t)(q - f);
	return f;
}

/* Whether every field of the line is a name, none a number: a header
 * whatever the lines after it are (none, or one with an error). */
static bool names_only(const char *p, const char *eol)
{
	int fields = 0;
	size_t n;
	for (const char *f; (f = next_field(&p, eol, &n)), n; fields++) {
		/* A name starts with a letter or '_', as no number does but
		 * nan and inf. */
		bool letter = *f == '_' || ((*f | 32) >= 'a' && (*f | 32) <= 'z');
		if (!letter || (n == 3 && (!strncasecmp(f, "nan", 3) || !strncasecmp(f, "inf", 3))) ||
		    (n == 8 && !strncasecmp(f, "infinity", 8)))
			return false;
	}
	return fields > 0;
}

/* The field names of the struct the load in progress reads ("a,b"), or
 * NULL: driver code loads one file at a time, on the main thread, so the
 * header test below reads them here rather than down every call. */
static const char *load_fields;

/* Whether the line's fields are the names in fields ("a,b"), in order and
 * all of them, in any case: a header even where it reads as an element
 * (columns all strings: "src,dst" of an edge list). */
static bool field_names(const char *p, const char *eol, const char *fields)
{
	if (!fields)
		return false;
	for (const char *n = fields;; n++) {
		size_t len, nn = strcspn(n, ",");
		const char *f = next_field(&p, eol, &len);
		if (len != nn || strncasecmp(f, n, nn))
			return false;
		n += nn;
		if (!*n) {
			next_field(&p, eol, &len);
			return len == 0;
		}
	}
}

bool sap_header_names(const char *path, const char *p, const char *eol, const char *fields)
{
	return (sap_is_csv(path) || is_tsv(path)) && field_names(p, eol, fields);
}

/* The first line of the last file load took as a header (header_len),
 * or NULL: said when it was the only line. */
static char *header_text;

/* Lines below the first that show a first line of names is data (an
 * edge list's first node again) before load warns that it may be a
 * header; fewer tell nothing. */
enum { DOUBT_MIN = 20, DOUBT_MAX = 2000 };

/* Set by header_len when the first line, loaded as an element, holds only
 * names, none of which any of the next lines (at least DOUBT_MIN) has: a
 * header of other names than the struct's fields ("from,to" for fields
 * a and b), which reads as an element as well. */
static bool header_doubt;
/* Set by header_len when it skips a first line that does not read as an
 * element but holds numbers: a header, or a first line of data with an
 * error ("1,2.5x,3"), which would go unnoticed. */
static bool skip_doubt;
static char *doubt_line;

/* header_doubt or skip_doubt said, once, at the load. */
static void warn_doubt(const char *path, const sap_site *s)
{
	if (header_doubt)
		sap_warn(s, "'%s': its first line, \"%s\", is loaded as an element, but none of its "
		         "words shows up in the lines below it: if it is a header, name the struct's "
		         "fields after its columns (they are %s), and load skips it", path,
		         doubt_line, load_fields ? load_fields : "?");
	else if (skip_doubt)
		sap_warn(s, "'%s': its first line, \"%s\", does not read as an element and is skipped "
		         "as a header, but it holds numbers: if it is data, it has an error (the next "
		         "lines read as elements)", path, doubt_line);
	header_doubt = skip_doubt = false;
	free(doubt_line);
	doubt_line = NULL;
}

/* Whether a field of the line starts as a number does. */
static bool has_number(const char *p, const char *eol)
{
	size_t n;
	for (const char *f; (f = next_field(&p, eol, &n)), n;) {
		const char *d = f + (n > 1 && (*f == '-' || *f == '+'));
		if ((*d >= '0' && *d <= '9') || (*d == '.' && d + 1 < f + n && d[1] >= '0' && d[1] <= '9'))
			return true;
	}
	return false;
}

/* Whether a field of the first line [line, eol) shows up in one of the
 * lines after it (any column), or too few follow before end to tell. */
static bool names_below(const char *line, const char *eol, const char *end)
{
	int seen = 0;
	for (const char *p = eol + 1; p < end && seen < DOUBT_MAX;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			break;          /* the look's last line may be cut short */
		if (content(p, e)) {
			seen++;
			size_t n, m;
			for (const char *q = p, *f; (f = next_field(&q, e, &n)), n;) {
				const char *r = line;
				for (const char *g; (g = next_field(&r, eol, &m)), m;)
					if (m == n && !memcmp(f, g, n))
						return true;
			}
		}
		p = e + 1;
	}
	return seen < DOUBT_MIN;
}

/* The first line of a .csv or .tsv file when it does not read as an
 * element and the next line with content does, or it holds names only,
 * or it is the struct's field names:
 * the column names that spreadsheets and pandas write (pandas writes
 * them alone for an empty frame), which load skips (not for a
 * dvector<string>, whose elements are the lines as they are).  Its
 * length with its '\n', or 0. */
static size_t header_len_of(const char *buf, size_t len, const char *path, size_t elsize,
                            sap_parse_fn parse, const sap_codec *codec);

static size_t header_len(const char *buf, size_t len, const char *path, size_t elsize,
                         sap_parse_fn parse, const sap_codec *codec)
{
	size_t h = header_len_of(buf, len, path, elsize, parse, codec);
	free(header_text);
	header_text = NULL;
	if (h) {
		size_t n = h;
		while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
		/* The header's own line, past comments before it. */
		const char *ls = memrchr(buf, '\n', n);
		size_t a = ls ? (size_t)(ls + 1 - buf) : 0;
		header_text = sap_token(buf + a, n - a);
	}
	return h;
}

static size_t header_len_of(const char *buf, size_t len, const char *path, size_t elsize,
                            sap_parse_fn parse, const sap_codec *codec)
{
	if ((!sap_is_csv(path) && !is_tsv(path)) || (codec && codec->lines))
		return 0;
	/* Past the comments and blank lines before it ("# exported ..."),
	 * which load skips anyway. */
	const char *end = buf + len, *line = buf, *eol;
	for (;;) {
		eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		if (eol == end || content(line, eol))
			break;
		line = eol + 1;
	}
	size_t h = eol < end ? (size_t)(eol + 1 - buf) : len;
	if (content(line, eol) && field_names(line, eol, load_fields))
		return h;
	if (!content(line, eol))
		return 0;
	size_t n = (size_t)(eol - line);
	if (reads(line, eol, path, elsize, parse, codec)) {
		header_doubt = names_only(line, eol) && !names_below(line, eol, end);
		if (header_doubt) {
			free(doubt_line);
			doubt_line = sap_token(line, n && line[n - 1] == '\r' ? n - 1 : n);
		}
		return 0;
	}
	if (names_only(line, eol))
		return h;
	for (const char *p = eol + 1; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (content(p, e)) {
			if (!reads(p, e, path, elsize, parse, codec))
				return 0;
			skip_doubt = has_number(line, eol);
			if (skip_doubt) {
				free(doubt_line);
				doubt_line = sap_token(line, n && line[n - 1] == '\r' ? n - 1 : n);
			}
			return h;
		}
		p = e + 1;
	}
	return 0;
}

/* A text cut at line starts into pieces that the pool's threads count
 * and parse at once: a corpus of millions of lines is parsed at the
 * speed of all the rank's threads.  Each piece keeps its first error;
 * the text's first is the one of the lowest line, whatever the threads,
 * so the message is the same as when one thread parses it all. */
enum { PIECE_MIN = 1 << 20 };

typedef struct piece {
	const char *p;
	size_t len;
	int64_t lines, elems;   /* counted */
	int64_t hashes;         /* comment lines, counted */
	int64_t blanks, tail;   /* blank lines, and those after its last element */
	int64_t line0, at;      /* lines and elements before it */
	load_trap t;
	sap_lbuf lists;
} piece;

typedef struct text_cut {
	piece *pc;
	int n;
	const char *path;
	char *elems;
	size_t elsize;
	sap_parse_fn parse;
} text_cut;

static void count_piece(void *arg, int w)
{
	piece *pc = &((text_cut *)arg)->pc[w];
	count_lines(pc->p, pc->len, &pc->lines, &pc->elems, &pc->hashes, &pc->blanks, &pc->tail);
}

static void parse_piece(void *arg, int w)
{
	text_cut *c = arg;
	piece *pc = &c->pc[w];
	pc->t = (load_trap){ .line = INT64_MAX };
	pc->lists = (sap_lbuf){ .hint = pc->len };
	parse_trapped(&pc->t, pc->p, pc->len, c->path, pc->line0, c->elems + (size_t)pc->at * c->elsize,
	              c->elsize, c->parse, &pc->lists);
}

/* buf[0 .. len) cut for the threads and counted: its elements, and in
 * *lines its physical lines. */
static int64_t count_text(text_cut *c, const char *buf, size_t len, int64_t *lines)
{
	int T = len >= PIECE_MIN && sap_pool_free() ? sap_threads() : 1;
	if ((size_t)T > len / (PIECE_MIN / 2) + 1)
		T = (int)(len / (PIECE_MIN / 2) + 1);
	c->pc = sap_xcalloc((size_t)T, sizeof *c->pc);
	const char *p = buf, *end = buf + len;
	int n = 0;
	for (int k = 0; k < T && p < end; k++) {
		const char *q = k == T - 1 ? end : buf + (size_t)((double)len * (k + 1) / T);
		if (q < p)
			q = p;
		if (q < end) {
			const char *eol = memchr(q, '\n', (size_t)(end - q));
			q = eol ? eol + 1 : end;
		}
		c->pc[n].p = p;
		c->pc[n++].len = (size_t)(q - p);
		p = q;
	}
	c->n = n;
	if (n > 1)
		sap_pool_run(n, count_piece, c);
	else if (n == 1)
		count_piece(c, 0);
	int64_t e = 0, l = 0;
	for (int k = 0; k < n; k++) {
		c->pc[k].at = e;
		c->pc[k].line0 = l;
		e += c->pc[k].elems;
		l += c->pc[k].lines;
		load_hashes += c->pc[k].hashes;
		load_blanks.all += c->pc[k].blanks;
		load_blanks.tail = c->pc[k].elems ? c->pc[k].tail : load_blanks.tail + c->pc[k].blanks;
		load_blanks.elems += c->pc[k].elems;
	}
	*lines = l;
	return e;
}

/* The counted text's elements into elems, lines numbered from line0 + 1,
 * their lists into *lists; the first error, if any, into *first.  Frees
 * the cut. */
static void parse_text(text_cut *c, const char *path, int64_t line0, char *elems, size_t elsize,
                       sap_parse_fn parse, load_trap *first, sap_lbuf *lists)
{
	c->path = path;
	c->elems = elems;
	c->elsize = elsize;
	c->parse = parse;
	for (int k = 0; k < c->n; k++)
		c->pc[k].line0 += line0;
	if (c->n > 1)
		sap_pool_run(c->n, parse_piece, c);
	else if (c->n == 1)
		parse_piece(c, 0);
	*first = (load_trap){ .line = INT64_MAX };
	for (int k = 0; k < c->n; k++)
		if (c->pc[k].t.line < first->line) {
			free(first->msg);
			first->line = c->pc[k].t.line;
			first->msg = c->pc[k].t.msg;
		} else {
			free(c->pc[k].t.msg);
		}
	/* The pieces' blocks, chained in element order. */
	*lists = (sap_lbuf){ 0 };
	for (int k = 0; k < c->n; k++) {
		sap_lbuf *b = &c->pc[k].lists;
		if (!b->head)
			continue;
		lb_close(b);
		if (lists->tail)
			memcpy(lists->tail, &b->head, sizeof b->head);
		else
			lists->head = b->head;
		lists->tail = b->tail;
		lists->used += b->used;
	}
	free(c->pc);
	c->pc = NULL;
}

/* The lines before buf + b, where parsing starts: past a header, and
 * the comments before it. */
static int64_t header_line(const char *buf, size_t b)
{
	int64_t n = 0;
	for (const char *p = buf, *e = buf + b; (p = memchr(p, '\n', (size_t)(e - p))); p++)
		n++;
	return n;
}

static ssize_t pread_full(int fd, char *p, size_t n, off_t off);

/* header_len of the file fd, from its first bytes (the next line may be
 * in another rank's share). */
static size_t header_at(int fd, const char *path, size_t elsize, sap_parse_fn parse,
                        const sap_codec *codec, size_t *bomlen)
{
	enum { LOOK = 1 << 16 };
	if (!sap_is_csv(path) && !is_tsv(path))
		return 0;
	char *buf = sap_xmalloc(LOOK);
	ssize_t n = pread_full(fd, buf, LOOK, 0);
	size_t h = 0;
	if (n > 0) {
		size_t b = bom(buf, (size_t)n);
		h = header_len(buf + b, (size_t)n - b, path, elsize, parse, codec);
		*bomlen = b;
	}
	free(buf);
	return h;
}

/* The elements of buf[0 .. len), the whole file, into v.  On several
 * ranks every rank has the same bytes and finds the same first error,
 * which rank 0 alone reports. */
static void load_buffer(sap_dvec *v, const char *name, const char *path, size_t elsize,
                        sap_parse_fn parse, const sap_codec *codec, text *txt,
                        const sap_site *s)
{
	char *buf = txt->p;
	size_t len = txt->len;
	not_utf16(buf, len, path, s);
	size_t b = bom(buf, len);
	b += header_len(buf + b, len - b, path, elsize, parse, codec);
	warn_doubt(path, s);
	int64_t lines;
	text_cut c;
	int64_t count = count_text(&c, buf + b, len - b, &lines);
	sap_dv_create(v, name, count, elsize, s);
	load_trap t;
	sap_lbuf lists;
	parse_text(&c, path, header_line(buf, b), v->data, elsize, parse, &t, &lists);
	if (t.line != INT64_MAX) {
		if (sap_rank() == 0) {
			sap_site at = { path, t.line > INT32_MAX ? INT32_MAX : (int)t.line, 0 };
			sap_fatal(&at, "%s", t.msg);
		}
		sap_comm_barrier();
	}
	text_done(txt);
	v->codec = codec;
	sap_dv_adopt_lists(v, lists.head, lists.used);
}

/* pread all of [off, off + n) or up to the end of the file; the bytes
 * read, or -1 with errno set. */
static ssize_t pread_full(int fd, char *p, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, p + got, n - got, off + (off_t)got);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* This rank's lines: those that start in its share [lo, hi) of the file's
 * bytes.  A line starts at byte 0 or after a '\n'; the last one runs on
 * past hi to its end.  Into *t, mapped or read; false with errno set. */
static bool read_share(int fd, off_t size, int r, int P, text *t, const char *path, off_t skip)
{
	off_t per = size / P, extra = size % P;
	off_t lo = per * r + (r < extra ? r : extra);
	off_t hi = lo + per + (r < extra ? 1 : 0);
	/* The header, and comments before it, are rank 0's: it skips them
	 * whole, where another rank would read a line of them as data. */
	lo = lo < skip && r > 0 ? skip : lo;
	hi = hi < skip ? skip : hi;
	/* One byte before lo tells whether a line starts at lo. */
	off_t a = lo > 0 ? lo - 1 : 0;
	if (map_text(fd, a, size, t, path)) {
		size_t h = (size_t)(hi - a), end = h;
		if (h > (size_t)(lo - a) && t->p[h - 1] != '\n') {
			char *nl = memchr(t->p + h, '\n', t->len - h);
			end = nl ? (size_t)(nl - t->p) + 1 : t->len;
		}
		size_t first = 0;
		if (lo > 0) {
			char *nl = memchr(t->p, '\n', end);
			first = nl ? (size_t)(nl - t->p) + 1 : end;
		}
		if (a + (off_t)first >= hi)
			first = end;
		t->p += first;
		t->len = end - first;
		return true;
	}
	size_t cap = (size_t)(hi - a) + (1 << 16), n = 0;
	char *buf = sap_xmalloc(cap + 1);
	ssize_t got = pread_full(fd, buf, (size_t)(hi - a), a);
	if (got < 0)
		goto fail;
	n = (size_t)got;
	/* Past hi until the last line ends. */
	while (n > (size_t)(lo - a) && buf[n - 1] != '\n' && a + (off_t)n < size) {
		if (cap - n < (1 << 16)) {
			cap *= 2;
			buf = sap_xrealloc(buf, cap + 1);
		}
		got = pread_full(fd, buf + n, 1 << 16, a + (off_t)n);
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		/* Only up to the first newline belongs to this rank. */
		char *nl = memchr(buf + n, '\n', (size_t)got);
		n = nl ? (size_t)(nl - buf) + 1 : n + (size_t)got;
		if (nl)
			break;
	}
	size_t first = 0;
	if (lo > 0) {
		char *nl = memchr(buf, '\n', n);
		first = nl ? (size_t)(nl - buf) + 1 : n;
	}
	/* A line that starts at or after hi is the next rank's. */
	if (a + (off_t)first >= hi)
		first = n;
	memmove(buf, buf + first, n - first);
	*t = (text){ buf, n - first, NULL, 0 };
	buf[t->len] = '\0';
	return true;
fail:
	free(buf);
	return false;
}

/* Several ranks: each parses its share; then, unless the vector is
 * parted, the shares are exchanged so that every rank holds every
 * element.  All or no ranks fail, and the error reported is that of the
 * file's first bad line. */
static void load_shared(sap_dvec *v, const char *name, const char *path, size_t elsize,
                        sap_parse_fn parse, bool parted, const sap_codec *codec,
                        const sap_site *s, int fd, off_t size)
{
	int P = sap_nranks(), r = sap_rank();
	text txt;
	size_t bomlen = 0;
	size_t head = r == 0 ? header_at(fd, path, elsize, parse, codec, &bomlen) : 0;
	warn_doubt(path, s);
	int64_t skip = head ? (int64_t)(bomlen + head) : 0;
	sap_comm_bcast(&skip, 1, sizeof skip, 0);
	int err = read_share(fd, size, r, P, &txt, path, (off_t)skip) ? 0 : errno;
	close(fd);
	int maxerr = err;
	sap_comm_allreduce(&maxerr, 1, SAP_COMM_INT, SAP_COMM_MAX);
	if (maxerr) {
		if (err)
			sap_fatal(s, "cannot read '%s': %s", path, strerror(err));
		sap_comm_barrier();    /* until the failed rank aborts */
	}

	int64_t lines;
	char *buf = txt.p;
	size_t len = txt.len;
	if (r == 0)
		not_utf16(buf, len, path, s);
	size_t b = r == 0 ? bom(buf, len) : 0;
	if (b + head > len)
		head = 0;
	/* The header line, and comments before it, count in the lines'
	 * numbers. */
	int64_t hl = header_line(buf + b, head);
	b += head;
	text_cut c;
	int64_t count = count_text(&c, buf + b, len - b, &lines);
	sap_comm_allreduce(&load_hashes, 1, SAP_COMM_I64, SAP_COMM_SUM);
	blanks_shared();
	lines += hl;
	int64_t line0 = sap_comm_exscan_sum(lines) + hl;
	int64_t *counts = sap_xmalloc((size_t)P * sizeof *counts);
	sap_comm_allgather(&count, counts, 1, sizeof count);
	int64_t *cuts = sap_xmalloc((size_t)(P + 1) * sizeof *cuts);
	cuts[0] = 0;
	for (int k = 0; k < P; k++) {
		if (counts[k] > INT32_MAX)
			sap_fatal(s, "'%s': more than %d elements on one rank; use more ranks",
			          path, INT32_MAX);
		cuts[k + 1] = cuts[k] + counts[k];
	}
	if (parted)
		sap_dv_create_part(v, name, cuts[P], elsize, cuts[r], cuts[r + 1], s);
	else
		sap_dv_create(v, name, cuts[P], elsize, s);
	v->codec = codec;

	load_trap t;
	sap_lbuf lists;
	parse_text(&c, path, line0, v->data + (size_t)cuts[r] * elsize, elsize, parse, &t, &lists);
	text_done(&txt);
	int64_t first = t.line;
	sap_comm_allreduce(&first, 1, SAP_COMM_I64, SAP_COMM_MIN);
	if (first != INT64_MAX) {
		if (t.line == first) {
			sap_site at = { path, first > INT32_MAX ? INT32_MAX : (int)first, 0 };
			sap_fatal(&at, "%s", t.msg);
		}
		sap_comm_barrier();
	}
	sap_dv_adopt_lists(v, lists.head, lists.used);
	if (parted) {
		free(counts);
		sap_dv_set_cuts(v, cuts);
		sap_dv_even_parts(v);
		return;
	}

	free(counts);
	/* Each rank holds the elements it parsed; what needs them elsewhere
	 * fetches them (hold.c), those holding strings or lists through
	 * their codec.  They move to the even shares at once, where loops
	 * run them, so that the work splits the same way whatever the
	 * ranks and threads (the lines' byte ranges do not). */
	sap_hold_map(v);
	for (int k = 0; k < P; k++)
		sap_hold_range(v, cuts[k], cuts[k + 1], (uint16_t)k);
	free(cuts);
	sap_dv_set_cuts(v, NULL);
	sap_dv_recount(v);
	sap_dv_own_parts(v);
}

static void load_any(sap_dvec *v, const char *name, const char *path, size_t elsize,
                     sap_parse_fn parse, bool flat, bool parted, const sap_codec *codec,
                     const sap_site *s);

void sap_load(sap_dvec *v, const char *name, const char *path, size_t elsize,
              sap_parse_fn parse, bool flat, bool parted, const char *fields,
              const sap_site *s)
{
	sap_print_settle();
	load_fields = fields;
	load_any(v, name, path, elsize, parse, flat, parted, NULL, s);
	load_fields = NULL;
}

void sap_load_codec(sap_dvec *v, const char *name, const char *path, size_t elsize,
                    sap_parse_fn parse, const sap_codec *codec, const char *fields,
                    const sap_site *s)
{
	sap_print_settle();
	load_fields = fields;
	load_any(v, name, path, elsize, parse, false, false, codec, s);
	load_fields = NULL;
}

/* Several ranks: fail on every rank when rank `first` (the lowest that
 * failed, from err) could not read path. */
static void settle_read(int err, const char *path, const sap_site *s)
{
	int P = sap_nranks(), r = sap_rank(), first = err ? r : P;
	sap_comm_allreduce(&first, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (first == P)
		return;
	if (r == first && err == ESPIPE)
		sap_fatal(s, "cannot read '%s': a regular file on rank 0 but not on rank %d", path,
		          r);
	if (r == first)
		sap_fatal(s, "cannot read '%s': %s", path, strerror(err));
	sap_comm_barrier();    /* until that rank aborts */
}

/* Rank 0's buffer to every rank. */
static char *bcast_buffer(char *buf, size_t *len)
{
	int64_t n = (int64_t)*len;
	sap_comm_bcast(&n, 1, sizeof n, 0);
	if (sap_rank() != 0) {
		buf = sap_xmalloc((size_t)n + 1);
		buf[n] = '\0';
	}
	sap_comm_bcast(buf, n, 1, 0);
	*len = (size_t)n;
	return buf;
}

/* Whether an empty line reads as an element (its type a list alone, or
 * a struct of one): then a blank line could have been one. */
static bool empty_reads(const char *path, size_t elsize, sap_parse_fn parse,
                        const sap_codec *codec)
{
	static const char nothing[1] = "";
	return reads(nothing, nothing, path, elsize, parse, codec);
}

static void warn_empty(const sap_dvec *v, const char *path, size_t elsize, sap_parse_fn parse,
                       const sap_codec *codec, const sap_site *s)
{
	/* Blank lines are skipped; where an element can hold nothing (a
	 * sparse matrix's empty column, a list alone), the elements after
	 * one moved up by one each, silently: save() writes no such line. */
	int64_t among = load_blanks.all - load_blanks.tail;
	if (among > 0 && !(codec && codec->lines) && empty_reads(path, elsize, parse, codec))
		sap_warn(s, "'%s': %lld blank line%s before its last element %s skipped, not "
		         "loaded into %s: an element of its type can hold nothing but a list, and "
		         "if one of those lines was meant as an empty list, every element after it "
		         "is one place early (an empty list is no line; sap(7), LOADING AND "
		         "SAVING)", path, (long long)among, among == 1 ? "" : "s",
		         among == 1 ? "was" : "were", v->name);
	load_blanks.all = load_blanks.tail = load_blanks.elems = 0;
	/* A corpus's lines starting with '#' (hashtags, Markdown headings)
	 * are data more often than comments: not dropped without a word. */
	if (v->codec && v->codec->lines && load_hashes > 0)
		sap_warn(s, "'%s': %lld line%s whose first non-blank character is '#' %s skipped as "
		         "comment%s, not loaded into %s (sap(7), LOADING AND SAVING)", path,
		         (long long)load_hashes, load_hashes == 1 ? "" : "s",
		         load_hashes == 1 ? "was" : "were", load_hashes == 1 ? "" : "s", v->name);
	load_hashes = 0;
	if (v->n == 0 && header_text)
		sap_warn(s, "'%s' holds no elements: its one line, \"%s\", was taken as a header of "
		         "column names%s", path, header_text, strchr(header_text, ';') &&
		         !strchr(header_text, ',') ? " (the fields of a .csv file are separated by "
		                                     "commas)" : "");
	else if (v->n == 0)
		sap_warn(s, "'%s' holds no elements: it is empty or has only blank and comment "
		         "lines", path);
	free(header_text);
	header_text = NULL;
}

static void load_file(sap_dvec *v, const char *name, const char *path, size_t elsize,
                      sap_parse_fn parse, bool flat, bool parted, const sap_codec *codec,
                      const sap_site *s);

/* What was read, for a checkpoint to name instead of holding it. */
static void load_any(sap_dvec *v, const char *name, const char *path, size_t elsize,
                     sap_parse_fn parse, bool flat, bool parted, const sap_codec *codec,
                     const sap_site *s)
{
	sap_resume_check_load(path, s);
	load_file(v, name, path, elsize, parse, flat, parted, codec, s);
	sap_input_note(v, path);
}

static void load_file(sap_dvec *v, const char *name, const char *path, size_t elsize,
                      sap_parse_fn parse, bool flat, bool parted, const sap_codec *codec,
                      const sap_site *s)
{
	if (sap_nranks() == 1) {
		bool regular;
		text t;
		int fd = open_input(path, &regular, false);
		if (fd < 0 || !read_text(fd, &t, path))
			sap_fatal(s, "cannot read '%s': %s", path, strerror(errno));
		load_buffer(v, name, path, elsize, parse, codec, &t, s);
		warn_empty(v, path, elsize, parse, codec, s);
		return;
	}
	/* Rank 0 looks first: a pipe, a FIFO or a device (/dev/stdin) can be
	 * read only once, and only rank 0 has the terminal's or the shell's
	 * stdin, so rank 0 reads it and sends it to the others; opening a
	 * FIFO on every rank would split its bytes among them, or block. */
	int r = sap_rank(), err = 0, fd = -1;
	bool regular = false;
	if (r == 0 && (fd = open_input(path, &regular, false)) < 0)
		err = errno;
	settle_read(err, path, s);
	int reg = regular;
	sap_comm_bcast(&reg, 1, sizeof reg, 0);
	text t = { 0 };
	if (!reg) {
		if (r == 0 && !(t.p = read_fd(fd, &t.len)))
			err = errno;
		settle_read(err, path, s);
		t.p = bcast_buffer(t.p, &t.len);
		load_buffer(v, name, path, elsize, parse, codec, &t, s);
		warn_empty(v, path, elsize, parse, codec, s);
		return;
	}
	/* A regular file on rank 0 must be one on every rank (a shared file
	 * system): shares are byte ranges of it. */
	if (r != 0) {
		if ((fd = open_input(path, &regular, true)) < 0)
			err = errno;
		else if (!regular)
			err = ESPIPE;
	}
	settle_read(err, path, s);
	/* Shares cut from different sizes would lose or repeat lines: a file
	 * that differs between nodes (a stale copy, one still being written)
	 * is an error. */
	struct stat st;
	long long size = fstat(fd, &st) == 0 ? (long long)st.st_size : -1, size0 = size;
	sap_comm_bcast(&size0, 1, sizeof size0, 0);
	int first = size != size0 ? r : sap_nranks();
	sap_comm_allreduce(&first, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (first != sap_nranks()) {
		if (r == first)
			sap_fatal(s, "'%s' has %lld bytes on rank %d but %lld on rank 0: every rank "
			          "must read the same file", path, size, r, size0);
		sap_comm_barrier();
	}
	if ((flat || codec) && elsize <= INT32_MAX) {
		load_shared(v, name, path, elsize, parse, flat && parted, codec, s, fd,
		            (off_t)size);
	} else {
		/* Elements holding strings with no codec to send them: every
		 * rank reads the whole file. */
		if (!read_text(fd, &t, path))
			err = errno;
		settle_read(err, path, s);
		load_buffer(v, name, path, elsize, parse, codec, &t, s);
	}
	warn_empty(v, path, elsize, parse, codec, s);
}
