/* save.c: writing a dvector as text, one element per line, in the format
 * sap_load reads back. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "sap-int.h"

struct sap_out {
	char *buf;
	size_t n, cap;
	bool line_start;        /* no field on this line yet */
	int elem;               /* in a list element: 1 before its first field, 2 after */
	const sap_dvec *v;      /* what is written, and which element, for messages */
	int64_t at;
	int fd;
	const char *path;       /* what the user asked for, for messages */
	const char *tmp;        /* what is being written */
	const sap_site *site;
};

enum { OUT_BUF = 1 << 20 };

static _Noreturn void write_error(sap_out *o)
{
	int e = errno;
	close(o->fd);
	unlink(o->tmp);
	sap_fatal(o->site, "cannot write '%s': %s", o->path, strerror(e));
}

static void write_all(sap_out *o, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			write_error(o);
		}
		p += w;
		n -= (size_t)w;
	}
}

static void flush(sap_out *o)
{
	if (o->fd < 0) {
		/* In memory: grow instead. */
		o->cap *= 2;
		o->buf = sap_xrealloc(o->buf, o->cap);
		return;
	}
	write_all(o, o->buf, o->n);
	o->n = 0;
}

/* At least n free bytes at the end of the buffer (n <= OUT_BUF when
 * writing to a file). */
static char *room(sap_out *o, size_t n)
{
	/* To a file, one flush empties the buffer; in memory, it doubles. */
	while (o->cap - o->n < n)
		flush(o);
	return o->buf + o->n;
}

/* Fields are separated by one space, those of one element of a list of
 * structs or arrays by ':'; a line starts without one. */
static void field(sap_out *o)
{
	if (!o->line_start) {
		*room(o, 1) = o->elem == 2 ? ':' : ' ';
		o->n++;
	}
	o->line_start = false;
	if (o->elem)
		o->elem = 2;
}

void sap_fmt_elem(sap_out *o)
{
	o->elem = 1;
}

void sap_fmt_elem_end(sap_out *o)
{
	o->elem = 0;
}

/* A value that load would not read back is an error, never a file that
 * loads as something else. */
static _Noreturn __attribute__((format(printf, 2, 3)))
void unloadable(sap_out *o, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (o->fd >= 0) {
		close(o->fd);
		unlink(o->tmp);
	}
	sap_fatal(o->site, "cannot save '%s' to '%s': element %lld would not load back: %s",
	          o->v->name, o->path, (long long)o->at, why);
}

static bool has_blank(const char *s)
{
	for (; *s; s++)
		if (sap_is_blank(*s) || *s == '\n')
			return true;
	return false;
}

static void put(sap_out *o, const char *s, size_t n)
{
	if (n > o->cap && o->fd >= 0) {
		flush(o);
		write_all(o, s, n);
		return;
	}
	memcpy(room(o, n), s, n);
	o->n += n;
}

void sap_fmt_bool(sap_out *o, bool x)
{
	field(o);
	if (x)
		put(o, "true", 4);
	else
		put(o, "false", 5);
}

/* snprintf is slow for the integers that fill most data files. */
static void put_u64(sap_out *o, uint64_t u, bool neg)
{
	char tmp[24];
	char *p = tmp + sizeof tmp;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		*--p = '-';
	put(o, p, (size_t)(tmp + sizeof tmp - p));
}

void sap_fmt_int(sap_out *o, int32_t x)
{
	field(o);
	put_u64(o, x < 0 ? 0 - (uint64_t)x : (uint64_t)x, x < 0);
}

void sap_fmt_long(sap_out *o, int64_t x)
{
	field(o);
	put_u64(o, x < 0 ? 0 - (uint64_t)x : (uint64_t)x, x < 0);
}

void sap_fmt_float(sap_out *o, float x)
{
	field(o);
	char *p = room(o, 32);
	o->n += (size_t)snprintf(p, 32, "%.9g", (double)x);
}

void sap_fmt_double(sap_out *o, double x)
{
	field(o);
	char *p = room(o, 32);
	o->n += (size_t)snprintf(p, 32, "%.17g", x);
}

void sap_fmt_str(sap_out *o, sap_str x, const char *name)
{
	x = sap_str_c(x);
	char b[200];
	if (!*x)
		unloadable(o, "field '%s' is the empty string", name);
	if (has_blank(x))
		unloadable(o, "field '%s' is \"%s\", and a string field cannot hold a blank",
		           name, sap_shown(x, b, sizeof b));
	if (o->elem && strchr(x, ':'))
		unloadable(o, "field '%s' is \"%s\", and a string in an element of a list of "
		           "structs or arrays cannot hold ':'", name, sap_shown(x, b, sizeof b));
	if (o->line_start && *x == '#')
		unloadable(o, "field '%s' is \"%s\" at the start of the line, and a line "
		           "starting with '#' is a comment", name, sap_shown(x, b, sizeof b));
	field(o);
	put(o, x, strlen(x));
}

void sap_fmt_line(sap_out *o, sap_str x)
{
	x = sap_str_c(x);
	size_t n = strlen(x);
	char b[200];
	if (!n)
		unloadable(o, "it is the empty string, and empty lines are skipped");
	if (sap_is_blank(x[0]) || sap_is_blank(x[n - 1]) || x[0] == '\n' || x[n - 1] == '\n')
		unloadable(o, "\"%s\" starts or ends with a blank, and a line is read without them",
		           sap_shown(x, b, sizeof b));
	if (strchr(x, '\n'))
		unloadable(o, "\"%s\" holds a newline, and an element is one line",
		           sap_shown(x, b, sizeof b));
	if (*x == '#')
		unloadable(o, "\"%s\" starts with '#', and a line starting with '#' is a comment",
		           sap_shown(x, b, sizeof b));
	field(o);
	put(o, x, n);
}

/* Elements [lo, hi) as text, appended to o. */
static void format_range(sap_out *o, const sap_dvec *v, int64_t lo, int64_t hi,
                         sap_format_fn fmt)
{
	o->v = v;
	for (int64_t i = lo; i < hi; i++) {
		o->line_start = true;
		o->at = i;
		fmt(o, v->data + (size_t)i * v->elsize);
		if (o->line_start)
			unloadable(o, "it is an empty list, which writes an empty line, and "
			           "empty lines are skipped; a struct with a field before the list keeps its place");
		*room(o, 1) = '\n';
		o->n++;
	}
}

static char *tmp_name(const char *path)
{
	size_t pn = strlen(path);
	char *tmp = sap_xmalloc(pn + sizeof ".tmp");
	memcpy(tmp, path, pn);
	memcpy(tmp + pn, ".tmp", sizeof ".tmp");
	return tmp;
}

static void save_one(sap_dvec *v, const char *path, sap_format_fn fmt, const sap_site *s)
{
	char *tmp = tmp_name(path);
	sap_out o = { .cap = OUT_BUF, .path = path, .tmp = tmp, .site = s };
	o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (o.fd < 0)
		sap_fatal(s, "cannot write '%s': %s", path, strerror(errno));
	o.buf = sap_xmalloc(OUT_BUF);
	format_range(&o, v, 0, v->n, fmt);
	flush(&o);
	/* The rename makes the file appear complete or not at all, even
	 * after a crash, so the data must be on disk before it. */
	if (fsync(o.fd) < 0 && errno != EINVAL && errno != EROFS)
		write_error(&o);
	if (close(o.fd) < 0) {
		int e = errno;
		unlink(tmp);
		sap_fatal(s, "cannot write '%s': %s", path, strerror(e));
	}
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		sap_fatal(s, "cannot write '%s': %s", path, strerror(e));
	}
	free(o.buf);
	free(tmp);
}

/* An MPI-IO failure on any rank, reported once, by the lowest such rank. */
static void agree(int rc, const char *what, const char *path, const char *tmp,
                  const sap_site *s)
{
	int r = sap_rank(), bad = rc == MPI_SUCCESS ? sap_nranks() : r, first;
	MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == sap_nranks())
		return;
	if (r == first) {
		char msg[MPI_MAX_ERROR_STRING];
		int len = 0;
		MPI_Error_string(rc, msg, &len);
		unlink(tmp);
		sap_fatal(s, "cannot write '%s': %s: %s", path, what, msg);
	}
	MPI_Barrier(MPI_COMM_WORLD);    /* until that rank aborts */
}

/* Several ranks: each formats its part, then all write it at its offset
 * in one file, which appears (by rename) complete, in element order, the
 * same bytes for any number of ranks. */
static void save_shared(sap_dvec *v, const char *path, sap_format_fn fmt, const sap_site *s)
{
	int r = sap_rank();
	char *tmp = tmp_name(path);
	int64_t lo, hi;
	sap_dv_part(v, r, &lo, &hi);
	sap_out o = { .cap = OUT_BUF, .fd = -1, .path = path, .tmp = tmp, .site = s };
	o.buf = sap_xmalloc(o.cap);
	format_range(&o, v, lo, hi, fmt);

	long long mine = (long long)o.n, off = 0, total = 0;
	MPI_Exscan(&mine, &off, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (r == 0)
		off = 0;
	MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

	MPI_File fh;
	int rc = MPI_File_open(MPI_COMM_WORLD, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY,
	                       MPI_INFO_NULL, &fh);
	agree(rc, "open", path, tmp, s);
	/* A longer file of the same name may be there from before. */
	rc = MPI_File_set_size(fh, (MPI_Offset)total);
	agree(rc, "set size", path, tmp, s);
	rc = MPI_SUCCESS;
	for (size_t at = 0; at < o.n && rc == MPI_SUCCESS;) {
		enum { PIECE = 1 << 30 };
		int n = o.n - at > PIECE ? PIECE : (int)(o.n - at);
		rc = MPI_File_write_at(fh, (MPI_Offset)(off + (long long)at), o.buf + at, n,
		                       MPI_BYTE, MPI_STATUS_IGNORE);
		at += (size_t)n;
	}
	agree(rc, "write", path, tmp, s);
	rc = MPI_File_sync(fh);
	agree(rc, "sync", path, tmp, s);
	rc = MPI_File_close(&fh);
	agree(rc, "close", path, tmp, s);
	int err = 0;
	if (r == 0 && rename(tmp, path) < 0) {
		err = errno;
		unlink(tmp);
	}
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (err) {
		if (r == 0)
			sap_fatal(s, "cannot write '%s': %s", path, strerror(err));
		MPI_Barrier(MPI_COMM_WORLD);
	}
	free(o.buf);
	free(tmp);
}

void sap_save(sap_dvec *v, const char *path, sap_format_fn fmt, const sap_site *s)
{
	if (sap_nranks() > 1) {
		sap_dv_own_parts(v);
		save_shared(v, path, fmt, s);
	} else {
		save_one(v, path, fmt, s);
	}
}
