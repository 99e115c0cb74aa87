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
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <mpi.h>
#include "sap-int.h"

/* Set while a rank parses its share of a file: the first error is kept
 * here instead of ending the program, so that every rank can agree on
 * the first bad line of the whole file. */
typedef struct load_trap {
	jmp_buf at;
	int64_t line;
	char msg[512];
} load_trap;
static load_trap *trap;

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
		vsnprintf(trap->msg, sizeof trap->msg, fmt, ap);
		va_end(ap);
		trap->line = f->line;
		longjmp(trap->at, 1);
	}
	sap_vfatal(&s, fmt, ap);
}

/* Long tokens are cut short in messages. */
enum { SHOW = 60 };
#define TOK_FMT "\"%.*s%s\""
#define TOK_ARGS(p, n) (int)((n) > SHOW ? SHOW : (n)), (p), (n) > SHOW ? "..." : ""

static const char *next_token(sap_fields *f, const char *field, size_t *n)
{
	const char *p = f->p;
	while (p < f->end && is_sep(*p))
		p++;
	if (p == f->end)
		field_error(f, "field '%s': missing (line has too few fields)", field);
	const char *q = p;
	while (q < f->end && !is_sep(*q))
		q++;
	f->p = q;
	*n = (size_t)(q - p);
	return p;
}

/* A decimal integer in [lo, hi] filling the whole token. */
static int64_t scan_integer(sap_fields *f, const char *field, const char *type,
                            int64_t lo, int64_t hi)
{
	size_t n;
	const char *t = next_token(f, field, &n);
	const char *p = t, *end = t + n;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (p == end)
		goto bad;
	uint64_t u = 0;
	bool over = false;
	for (; p < end; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9)
			goto bad;
		/* Keep checking digits after an overflow: "99999999999x" is
		 * not a number at all. */
		if (u > UINT64_MAX / 10 || (u == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			over = true;
		else
			u = u * 10 + d;
	}
	uint64_t limit = neg ? (uint64_t)-(lo + 1) + 1 : (uint64_t)hi;
	if (over || u > limit)
		field_error(f, "field '%s': %.*s is out of range for %s", field,
		            (int)n, t, type);
	return neg ? (int64_t)(0 - u) : (int64_t)u;
bad:
	field_error(f, "field '%s': expected %s %s, got " TOK_FMT, field,
	            type[0] == 'i' ? "an" : "a", type, TOK_ARGS(t, n));
}

void sap_scan_int(sap_fields *f, int32_t *out, const char *field)
{
	*out = (int32_t)scan_integer(f, field, "int", INT32_MIN, INT32_MAX);
}

void sap_scan_long(sap_fields *f, int64_t *out, const char *field)
{
	*out = scan_integer(f, field, "long", INT64_MIN, INT64_MAX);
}

/* Clinger's fast path: a decimal m * 10^e with m and 10^|e| both exact in
 * the target type is correctly rounded by one multiply or divide, so the
 * common "4.5" or "0.125" needs no strtof.  False sends the token to
 * strtof/strtod, which handle everything else (and the errors). */
static bool fast_real(const char *p, const char *end, bool is_float, double *out)
{
#if FLT_EVAL_METHOD == 0
	static const float p10f[] = { 1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f,
	                              1e7f, 1e8f, 1e9f, 1e10f };
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	                              1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	                              1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	bool neg = false;
	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	uint64_t m = 0;
	int ndig = 0, e = 0;
	for (; p < end && (unsigned)(*p - '0') <= 9; p++, ndig++)
		m = m * 10 + (unsigned)(*p - '0');
	if (p < end && *p == '.')
		for (p++; p < end && (unsigned)(*p - '0') <= 9; p++, ndig++, e--)
			m = m * 10 + (unsigned)(*p - '0');
	/* 19 digits cannot overflow m. */
	if (ndig == 0 || ndig > 19)
		return false;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p == end)
			return false;
		int x = 0;
		for (; p < end && (unsigned)(*p - '0') <= 9; p++)
			if ((x = x * 10 + (*p - '0')) > 1000)
				return false;
		e += eneg ? -x : x;
	}
	if (p != end)
		return false;
	if (is_float) {
		if (m > (1u << 24) || e < -10 || e > 10)
			return false;
		float x = (float)m;
		x = e < 0 ? x / p10f[-e] : x * p10f[e];
		*out = neg ? -x : x;
	} else {
		if (m > ((uint64_t)1 << 53) || e < -22 || e > 22)
			return false;
		double x = (double)m;
		x = e < 0 ? x / p10[-e] : x * p10[e];
		*out = neg ? -x : x;
	}
	return true;
#else
	/* Excess precision would round twice. */
	(void)p, (void)end, (void)is_float, (void)out;
	return false;
#endif
}

/* strtod skips leading white space, newlines included, and the token is
 * not NUL-terminated: hand it a terminated copy. */
static double scan_real(sap_fields *f, const char *field, bool is_float)
{
	size_t n;
	const char *t = next_token(f, field, &n);
	double fast;
	if (fast_real(t, t + n, is_float, &fast))
		return fast;
	char small[64];
	char *buf = n < sizeof small ? small : sap_xmalloc(n + 1);
	memcpy(buf, t, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	double x = is_float ? strtof(buf, &end) : strtod(buf, &end);
	bool bad = end != buf + n, range = errno == ERANGE && (x > 1 || x < -1);
	if (buf != small)
		free(buf);
	const char *type = is_float ? "float" : "double";
	if (bad)
		field_error(f, "field '%s': expected a %s, got " TOK_FMT, field, type,
		            TOK_ARGS(t, n));
	if (range)
		field_error(f, "field '%s': %.*s is out of range for %s", field,
		            (int)n, t, type);
	return x;
}

void sap_scan_float(sap_fields *f, float *out, const char *field)
{
	/* strtof's float, widened and narrowed back unchanged. */
	*out = (float)scan_real(f, field, true);
}

void sap_scan_double(sap_fields *f, double *out, const char *field)
{
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
		field_error(f, "field '%s': expected a bool, got " TOK_FMT, field,
		            TOK_ARGS(t, n));
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
	while (f->p < f->end && is_sep(*f->p))
		f->p++;
	return f->p < f->end;
}

void sap_scan_end(sap_fields *f, const char *type)
{
	if (!sap_scan_more(f))
		return;
	const char *q = f->p;
	while (q < f->end && !is_sep(*q))
		q++;
	size_t n = (size_t)(q - f->p);
	field_error(f, "extra field " TOK_FMT " after %s", TOK_ARGS(f->p, n), type);
}

/* ---- the file ---- */

/* The whole file plus a NUL; NULL with errno set on failure. */
static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	size_t cap = 1 << 16;
	if (fstat(fd, &st) == 0) {
		/* read() would fail later with a vaguer message. */
		if (S_ISDIR(st.st_mode)) {
			close(fd);
			errno = EISDIR;
			return NULL;
		}
		/* One read fills a regular file; pipes grow the buffer. */
		if (S_ISREG(st.st_mode) && st.st_size > 0)
			cap = (size_t)st.st_size + 1;
	}
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
                        char *elems, size_t elsize, sap_parse_fn parse)
{
	const char *end = buf + len;
	sap_fields f = { .file = path, .line = line0 };
	for (const char *p = buf; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		f.line++;
		const char *c = content(p, eol);
		if (c) {
			f.p = c;
			f.end = eol;
			parse(&f, elems);
			elems += elsize;
		}
		p = eol + 1;
	}
}

/* Physical lines (line starts) and elements in buf[0 .. len). */
static void count_lines(const char *buf, size_t len, int64_t *lines, int64_t *elems)
{
	const char *end = buf + len;
	*lines = *elems = 0;
	for (const char *p = buf; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		++*lines;
		if (content(p, eol))
			++*elems;
		p = eol + 1;
	}
}

static void load_whole(sap_dvec *v, const char *name, const char *path, size_t elsize,
                       sap_parse_fn parse, const sap_site *s)
{
	size_t len;
	char *buf = read_all(path, &len);
	if (!buf)
		sap_fatal(s, "cannot read '%s': %s", path, strerror(errno));
	int64_t lines, count;
	count_lines(buf, len, &lines, &count);
	sap_dv_create(v, name, count, elsize, s);
	parse_lines(buf, len, path, 0, v->data, elsize, parse);
	sap_spare_give(buf, len);
}

static void parse_trapped(load_trap *t, const char *buf, size_t len, const char *path,
                          int64_t line0, char *elems, size_t elsize, sap_parse_fn parse)
{
	trap = t;
	if (!setjmp(t->at))
		parse_lines(buf, len, path, line0, elems, elsize, parse);
	trap = NULL;
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
 * past hi to its end.  Returns the buffer (NUL-terminated) and its
 * length, or NULL with errno set. */
static char *read_share(int fd, off_t size, int r, int P, size_t *len)
{
	off_t per = size / P, extra = size % P;
	off_t lo = per * r + (r < extra ? r : extra);
	off_t hi = lo + per + (r < extra ? 1 : 0);
	/* One byte before lo tells whether a line starts at lo. */
	off_t a = lo > 0 ? lo - 1 : 0;
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
	*len = n - first;
	buf[*len] = '\0';
	return buf;
fail:
	free(buf);
	return NULL;
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
	size_t len = 0;
	char *buf = read_share(fd, size, r, P, &len);
	int err = buf ? 0 : errno;
	close(fd);
	int maxerr = 0;
	MPI_Allreduce(&err, &maxerr, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (maxerr) {
		if (err)
			sap_fatal(s, "cannot read '%s': %s", path, strerror(err));
		MPI_Barrier(MPI_COMM_WORLD);    /* until the failed rank aborts */
	}

	int64_t lines, count, line0 = 0;
	count_lines(buf, len, &lines, &count);
	MPI_Exscan(&lines, &line0, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (r == 0)
		line0 = 0;
	int64_t *counts = sap_xmalloc((size_t)P * sizeof *counts);
	MPI_Allgather(&count, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, MPI_COMM_WORLD);
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

	load_trap t = { .line = INT64_MAX };
	parse_trapped(&t, buf, len, path, line0, v->data + (size_t)cuts[r] * elsize, elsize,
	              parse);
	sap_spare_give(buf, len);
	int64_t first = INT64_MAX;
	MPI_Allreduce(&t.line, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
	if (first != INT64_MAX) {
		if (t.line == first) {
			sap_site at = { path, first > INT32_MAX ? INT32_MAX : (int)first, 0 };
			sap_fatal(&at, "%s", t.msg);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
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
              sap_parse_fn parse, bool flat, bool parted, const sap_site *s)
{
	load_any(v, name, path, elsize, parse, flat, parted, NULL, s);
}

void sap_load_codec(sap_dvec *v, const char *name, const char *path, size_t elsize,
                    sap_parse_fn parse, const sap_codec *codec, const sap_site *s)
{
	load_any(v, name, path, elsize, parse, false, false, codec, s);
}

static void load_any(sap_dvec *v, const char *name, const char *path, size_t elsize,
                     sap_parse_fn parse, bool flat, bool parted, const sap_codec *codec,
                     const sap_site *s)
{
	/* Shares are byte ranges of one regular file: a pipe, or elements
	 * holding strings with no codec to send them, are read whole by
	 * every rank. */
	if (sap_nranks() > 1 && (flat || codec) && elsize <= INT32_MAX) {
		int fd = open(path, O_RDONLY);
		struct stat st;
		int regular = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
		int all = 0;
		MPI_Allreduce(&regular, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		if (all) {
			load_shared(v, name, path, elsize, parse, flat && parted, codec, s, fd,
			            st.st_size);
			return;
		}
		if (fd >= 0)
			close(fd);
	}
	load_whole(v, name, path, elsize, parse, s);
	v->codec = codec;
}
