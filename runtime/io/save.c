/* save.c: writing a dvector as text, one element per line, in the format
 * sap_load reads back. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sap-int.h"

struct sap_out {
	char *buf;
	size_t n, cap;
	bool line_start;        /* no field on this line yet */
	bool comma;             /* fields separated by commas (a .csv) */
	int fd;                 /* streaming to it, or -1: all in memory */
	int err;                /* the first failed write's errno, or 0 */
	int64_t elem;           /* the element being formatted */
	int grp;                /* in a list element: 1 before its first field, 2 after */
	int64_t bad;            /* the first element that would not load back, or INT64_MAX */
	char *why;              /* why not, for the message */
	const char *path;
	const char *fields;     /* a struct's field names, "a,b", or NULL */
	int64_t flushes;        /* of the buffer to the file */
};

enum { OUT_BUF = 1 << 20 };

/* After the first failure nothing more is written: the temporary file is
 * dropped anyway, and the caller reports o->err. */
static void write_all(sap_out *o, const char *p, size_t n)
{
	while (n > 0 && !o->err) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0) {
			if (errno != EINTR)
				o->err = errno;
			continue;
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
	o->flushes++;
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

/* Fields are separated by one space (a comma in a .csv), those of one
 * element of a list of structs or arrays by ':'; a line starts without
 * one. */
static void field(sap_out *o)
{
	if (!o->line_start) {
		*room(o, 1) = o->grp == 2 ? ':' : o->comma ? ',' : ' ';
		o->n++;
	}
	o->line_start = false;
	if (o->grp)
		o->grp = 2;
}

void sap_fmt_elem(sap_out *o)
{
	o->grp = 1;
}

void sap_fmt_elem_end(sap_out *o)
{
	o->grp = 0;
}

/* A value that load would not read back, or would read as something else:
 * the first such element is reported once every rank has formatted its
 * part (settle_loadable), and nothing is renamed into place. */
static __attribute__((format(printf, 2, 3)))
void unloadable(sap_out *o, const char *fmt, ...)
{
	if (o->elem >= o->bad)
		return;
	va_list ap;
	va_start(ap, fmt);
	free(o->why);
	o->why = sap_vstrf(fmt, ap);
	va_end(ap);
	o->bad = o->elem;
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

/* sap_load rejects nan and inf, so a file holding one could not be read
 * back; a model gone to nan is a failed training besides. */
static void check_finite(sap_out *o, double x, const char *name)
{
	if (!isfinite(x))
		unloadable(o, "%s%s%sholds %s, which is not a number load reads",
		           *name ? "field '" : "it", name, *name ? "' " : " ",
		           isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
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

void sap_fmt_float(sap_out *o, float x, const char *name)
{
	check_finite(o, x, name);
	field(o);
	char *p = room(o, 32);
	o->n += (size_t)snprintf(p, 32, "%.9g", (double)x);
}

void sap_fmt_double(sap_out *o, double x, const char *name)
{
	check_finite(o, x, name);
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
	else if (has_blank(x))
		unloadable(o, "field '%s' is \"%s\", and a string field cannot hold a blank",
		           name, sap_shown(x, b, sizeof b));
	else if (o->comma && strchr(x, ','))
		unloadable(o, "field '%s' is \"%s\", and a string field of a .csv file cannot hold "
		           "a comma", name, sap_shown(x, b, sizeof b));
	else if (o->grp && strchr(x, ':'))
		unloadable(o, "field '%s' is \"%s\", and a string in an element of a list of "
		           "structs or arrays cannot hold ':'", name, sap_shown(x, b, sizeof b));
	else if (o->line_start && *x == '#')
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
	else if (sap_is_blank(x[0]) || sap_is_blank(x[n - 1]) || x[0] == '\n' || x[n - 1] == '\n')
		unloadable(o, "\"%s\" starts or ends with a blank, and a line is read without them",
		           sap_shown(x, b, sizeof b));
	else if (strchr(x, '\n'))
		unloadable(o, "\"%s\" holds a newline, and an element is one line",
		           sap_shown(x, b, sizeof b));
	else if (*x == '#')
		unloadable(o, "\"%s\" starts with '#', and a line starting with '#' is a comment",
		           sap_shown(x, b, sizeof b));
	field(o);
	put(o, x, n);
}

/* The file's first line, [line, line + n): load skips a byte-order mark
 * at its start, and takes it for a header in a .csv or .tsv where its
 * fields are the struct's names. */
static void check_first(sap_out *o, const char *line, size_t n)
{
	if (n >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
		unloadable(o, "it starts with a byte-order mark (U+FEFF), which load skips at the "
		           "start of a file");
	else if (o->fields && sap_header_names(o->path, line, line + n, o->fields))
		unloadable(o, "its fields are the struct's field names (%s), and load takes such a "
		           "first line of a .csv or .tsv file for its header", o->fields);
}

/* Elements [lo, hi) as text, appended to o. */
static void format_range(sap_out *o, const sap_dvec *v, int64_t lo, int64_t hi,
                         sap_format_fn fmt)
{
	for (int64_t i = lo; i < hi; i++) {
		o->elem = i;
		o->line_start = true;
		size_t at = o->n;
		int64_t f = o->flushes;
		fmt(o, v->data + (size_t)i * v->elsize);
		if (i == 0 && o->flushes == f && o->n >= at)
			check_first(o, o->buf + at, o->n - at);
		if (o->line_start)
			unloadable(o, "it is an empty list, which writes an empty line, and "
			           "empty lines are skipped; a struct with a field before the list keeps its place");
		*room(o, 1) = '\n';
		o->n++;
	}
}

/* ---- the temporary file ----
 *
 * FILE is written as DIR/.FILE.sap-tmp.HOST.PID (HOST and PID those of
 * rank 0) and renamed to FILE once every rank's part is on disk, so FILE
 * is complete or as it was.  The leading dot keeps the temporary out of
 * `ls` and of globs such as FILE*; a run killed while saving leaves it
 * behind, and the next save of the same FILE on that host removes it
 * once its process is gone. */

static const char TMP_TAG[] = ".sap-tmp.";
/* Of FILE's name, the temporary's holds no more than this, so that it
 * stays within NAME_MAX (255) whenever FILE does. */
enum { TMP_BASE = 120 };

typedef struct save_names {
	char *dir;              /* "" for the working directory, else with '/' */
	const char *base;       /* the last component of the path */
	int bn;                 /* how much of it the temporary's name holds */
	char host[72];          /* HOST_NAME_MAX is 64 */
	char *tmp;
} save_names;

static void names_make(save_names *nm, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dn = slash ? (size_t)(slash - path) + 1 : 0;
	nm->dir = sap_xmalloc(dn + 1);
	memcpy(nm->dir, path, dn);
	nm->dir[dn] = '\0';
	nm->base = path + dn;
	nm->bn = strlen(nm->base) > TMP_BASE ? TMP_BASE : (int)strlen(nm->base);
	if (gethostname(nm->host, sizeof nm->host) < 0)
		strcpy(nm->host, "localhost");
	nm->host[sizeof nm->host - 1] = '\0';
	for (char *p = nm->host; *p; p++)
		if (*p == '/')
			*p = '_';
	size_t n = dn + 1 + (size_t)nm->bn + sizeof TMP_TAG + strlen(nm->host) + 24;
	nm->tmp = sap_xmalloc(n);
	snprintf(nm->tmp, n, "%s.%.*s%s%s.%ld", nm->dir, nm->bn, nm->base, TMP_TAG, nm->host,
	         (long)getpid());
}

static void names_free(save_names *nm)
{
	free(nm->dir);
	free(nm->tmp);
}

/* Remove the temporaries of earlier saves of this file that were killed
 * midway: ours by name, made on this host by a process that is gone (or
 * by one with our PID, which cannot be saving this file now). */
static void clean_stale(const save_names *nm)
{
	DIR *d = opendir(nm->dir[0] ? nm->dir : ".");
	if (!d)
		return;
	size_t bn = (size_t)nm->bn, hn = strlen(nm->host), tn = sizeof TMP_TAG - 1;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		if (p[0] != '.' || strncmp(p + 1, nm->base, bn) || strncmp(p + 1 + bn, TMP_TAG, tn))
			continue;
		p += 1 + bn + tn;
		if (strncmp(p, nm->host, hn) || p[hn] != '.')
			continue;
		p += hn + 1;
		char *end;
		errno = 0;
		long pid = strtol(p, &end, 10);
		if (*p < '0' || *p > '9' || *end || errno || pid <= 0 || pid != (pid_t)pid)
			continue;
		if (pid == (long)getpid() || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* The rename is only durable once the directory is on disk. */
static int sync_dir(const save_names *nm)
{
	int fd = open(nm->dir[0] ? nm->dir : ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return errno;
	int err = 0;
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		err = errno;
	close(fd);
	return err;
}

/* fsync, then close; the first errno, or 0.  File systems that cannot
 * sync (EINVAL) have nothing to make durable. */
static int finish_fd(int fd, int err)
{
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS && !err)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	return err;
}

/* ---- agreeing on the outcome ---- */

/* One step's outcome on every rank (err: this rank's errno or 0): when
 * any rank failed, the lowest such rank drops the temporary file and
 * reports; the others wait until its abort ends them.  No rank goes on
 * to rename a file another rank could not write. */
static void settle_note(int err, const char *path, const char *tmp, const sap_site *s,
                        const char *note)
{
	int P = sap_nranks(), r = sap_rank(), first = err ? r : P;
	if (P > 1)
		sap_comm_allreduce(&first, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (first == P)
		return;
	if (r == first) {
		if (tmp)
			unlink(tmp);
		sap_fatal(s, "cannot write '%s': %s%s", path, strerror(err), note);
	}
	sap_comm_barrier();
}

static void settle(int err, const char *path, const char *tmp, const sap_site *s)
{
	settle_note(err, path, tmp, s, "");
}

/* The first element (over all ranks) that would not load back. */
static void settle_loadable(const sap_out *o, const sap_dvec *v, const char *path,
                          const char *tmp, const sap_site *s)
{
	int64_t first = o->bad;
	if (sap_nranks() > 1)
		sap_comm_allreduce(&first, 1, SAP_COMM_I64, SAP_COMM_MIN);
	if (first == INT64_MAX)
		return;
	if (o->bad == first) {
		if (tmp)
			unlink(tmp);
		sap_fatal(s, "cannot save '%s' to '%s': element %lld would not load back: %s; "
		          "'%s' is left as it was", v->name ? v->name : "the vector", path,
		          (long long)first, o->why, path);
	}
	sap_comm_barrier();
}

/* ---- saving ---- */

static void save_one(sap_dvec *v, const char *path, sap_format_fn fmt, const char *fields,
                     const sap_site *s)
{
	save_names nm;
	names_make(&nm, path);
	clean_stale(&nm);
	sap_out o = { .cap = OUT_BUF, .bad = INT64_MAX, .comma = sap_is_csv(path),
	              .path = path, .fields = fields };
	o.fd = open(nm.tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (o.fd < 0)
		settle(errno, path, NULL, s);
	o.buf = sap_xmalloc(OUT_BUF);
	format_range(&o, v, 0, v->n, fmt);
	flush(&o);
	settle(finish_fd(o.fd, o.err), path, nm.tmp, s);
	settle_loadable(&o, v, path, nm.tmp, s);
	if (rename(nm.tmp, path) < 0)
		settle(errno, path, nm.tmp, s);
	settle(sync_dir(&nm), path, NULL, s);
	free(o.buf);
	free(o.why);
	names_free(&nm);
}

/* pwrite all of p[0 .. n) at off: 0 or an errno. */
static int pwrite_all(int fd, const char *p, size_t n, off_t off)
{
	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* Several ranks: each formats its part, then writes it at its offset in
 * one temporary file; once all parts are on disk, rank 0 renames it, so
 * FILE appears complete, in element order, the same bytes for any number
 * of ranks.  Plain POSIX I/O reports each rank's errno, which MPI-IO
 * gave only as a generic class (and a short write not at all). */
static void save_shared(sap_dvec *v, const char *path, sap_format_fn fmt, const char *fields,
                        const sap_site *s)
{
	int r = sap_rank();
	int64_t lo, hi;
	sap_dv_part(v, r, &lo, &hi);
	sap_out o = { .cap = OUT_BUF, .fd = -1, .bad = INT64_MAX, .comma = sap_is_csv(path),
	              .path = path, .fields = fields };
	o.buf = sap_xmalloc(o.cap);
	format_range(&o, v, lo, hi, fmt);
	settle_loadable(&o, v, path, NULL, s);

	long long off = (long long)sap_comm_exscan_sum((int64_t)o.n);

	/* Rank 0 names and creates the file, the others open it. */
	save_names nm;
	names_make(&nm, path);
	int err = 0;
	if (r == 0) {
		clean_stale(&nm);
		o.fd = open(nm.tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (o.fd < 0)
			err = errno;
	}
	settle(err, path, NULL, s);
	int tn = (int)strlen(nm.tmp);
	sap_comm_bcast(&tn, 1, sizeof tn, 0);
	nm.tmp = sap_xrealloc(nm.tmp, (size_t)tn + 1);
	sap_comm_bcast(nm.tmp, tn + 1, 1, 0);
	if (r != 0 && (o.fd = open(nm.tmp, O_WRONLY)) < 0)
		err = errno;
	settle(err, path, nm.tmp, s);

	err = finish_fd(o.fd, pwrite_all(o.fd, o.buf, o.n, (off_t)off));
	settle(err, path, nm.tmp, s);
	if (r == 0 && rename(nm.tmp, path) < 0)
		err = errno;
	settle(err, path, nm.tmp, s);
	if (r == 0)
		err = sync_dir(&nm);
	settle(err, path, NULL, s);
	free(o.buf);
	free(o.why);
	names_free(&nm);
}

/* The descriptor a path names, the program's standard output or error,
 * else -1.  Where that is a regular file (prog > out.txt), the path
 * opened anew writes from its start, over what the program printed, and
 * a temporary renamed to the path replaced the link /dev/stdout itself
 * with a regular file. */
static int std_fd(const char *path)
{
	static const char *const out[] = {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
	static const char *const err[] = {"/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"};
	for (int i = 0; i < 3; i++) {
		if (!strcmp(path, out[i]))
			return 1;
		if (!strcmp(path, err[i]))
			return 2;
	}
	/* Spelled otherwise (/dev//stdout, a link to it): the same file as
	 * the descriptor's. */
	struct stat p, o;
	if (stat(path, &p) != 0)
		return -1;
	for (int fd = 1; fd <= 2; fd++)
		if (fstat(fd, &o) == 0 && o.st_dev == p.st_dev && o.st_ino == p.st_ino)
			return fd;
	return -1;
}

/* Is path something other than a regular file or a directory: a device
 * (/dev/null, /dev/stdout) or a FIFO?  Renaming a temporary file over
 * such a path would replace it, so a save writes into it in place. */
static bool is_stream(const char *path)
{
	struct stat st;
	return std_fd(path) >= 0 ||
	       (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* A symbolic link is saved through: its target is the file renamed over,
 * and the link stays.  Links that lead back to themselves (or past 40)
 * set *err to ELOOP, as fopen would fail: renamed over, the last link
 * became a regular file. */
static char *save_target(const char *path, int *err)
{
	struct stat st;
	*err = 0;
	if (std_fd(path) >= 0 || lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return sap_strf("%s", path);
	char *real = realpath(path, NULL);
	if (real)
		return real;
	/* A chain of links to a file yet to be made: its last target, each
	 * from its link's directory if relative. */
	char *cur = sap_strf("%s", path);
	for (int hops = 0; hops < 40 && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
		char to[4096];
		ssize_t n = readlink(cur, to, sizeof to - 1);
		if (n <= 0)
			break;
		to[n] = '\0';
		const char *slash = strrchr(cur, '/');
		char *next = to[0] == '/' || !slash ? sap_strf("%s", to) :
		             sap_strf("%.*s%s", (int)(slash - cur + 1), cur, to);
		free(cur);
		cur = next;
	}
	if (lstat(cur, &st) == 0 && S_ISLNK(st.st_mode)) {
		*err = ELOOP;
		free(cur);
		return sap_strf("%s", path);
	}
	return cur;
}

/* Before the program starts its work: whether a save to path could
 * create its file.  Rank 0 creates (and removes) the very temporary a
 * save would, which also finds read-only file systems and permissions
 * that root does not bypass; the other ranks, which open that file,
 * check that the directory is there for them too. */
void sap_check_output(sap_str file, const sap_site *s)
{
	int err;
	char *target = save_target(sap_str_c(file), &err);
	const char *path = target;
	save_names nm;
	names_make(&nm, path);
	struct stat st;
	if (err) {
		;
	} else if (!*nm.base) {
		err = *path ? EISDIR : ENOENT;
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		err = EISDIR;
	} else if (is_stream(path)) {
		/* Written in place by rank 0; opening a FIFO here would wait
		 * for its reader, so only the permission is checked. */
		if (sap_rank() == 0 && access(path, W_OK) < 0)
			err = errno;
	} else if (sap_rank() == 0) {
		clean_stale(&nm);
		int fd = open(nm.tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0) {
			err = errno;
		} else {
			close(fd);
			unlink(nm.tmp);
		}
	} else if (stat(nm.dir[0] ? nm.dir : ".", &st) < 0) {
		err = errno;
	} else if (!S_ISDIR(st.st_mode)) {
		err = ENOTDIR;
	}
	settle_note(err, path, NULL, s, " (checked at start, before any work that the save "
	            "would lose)");
	names_free(&nm);
	free(target);
}

/* Rank 0 writes the whole vector into the stream at path; nothing can be
 * left as it was there, so an element that would not load back is
 * reported before the first byte. */
static void save_stream(sap_dvec *v, const char *path, sap_format_fn fmt, const char *fields,
                        const sap_site *s)
{
	/* Held in parts, rank 0 wrote zeros for the other ranks' parts. */
	if (sap_nranks() > 1)
		sap_dv_every(v, NULL);
	sap_out o = { .cap = OUT_BUF, .bad = INT64_MAX, .fd = -1, .comma = sap_is_csv(path),
	              .path = path, .fields = fields };
	int err = 0;
	if (sap_rank() == 0) {
		/* Formatted in memory first (fd -1 grows the buffer). */
		o.buf = sap_xmalloc(OUT_BUF);
		format_range(&o, v, 0, v->n, fmt);
	}
	settle_loadable(&o, v, path, NULL, s);
	if (sap_rank() == 0 && std_fd(path) >= 0) {
		/* After what the program printed, where it printed it. */
		fflush(std_fd(path) == 1 ? stdout : stderr);
		o.fd = std_fd(path);
		write_all(&o, o.buf, o.n);
		err = o.err;
	} else if (sap_rank() == 0) {
		o.fd = open(path, O_WRONLY);
		if (o.fd < 0) {
			err = errno;
		} else {
			write_all(&o, o.buf, o.n);
			err = o.err;
			if (close(o.fd) < 0 && !err)
				err = errno;
		}
	}
	settle(err, path, NULL, s);
	free(o.buf);
	free(o.why);
}

void sap_save(sap_dvec *v, const char *file, sap_format_fn fmt, const char *fields,
              const sap_site *s)
{
	int err;
	char *path = save_target(file, &err);
	sap_print_settle();
	settle(err, path, NULL, s);
	/* Every rank decides alike: rank 0's view of path. */
	int stream = sap_rank() == 0 && is_stream(path);
	if (sap_nranks() > 1)
		sap_comm_bcast(&stream, 1, sizeof stream, 0);
	if (stream) {
		save_stream(v, path, fmt, fields, s);
	} else if (sap_nranks() > 1) {
		sap_dv_own_parts(v);
		save_shared(v, path, fmt, fields, s);
	} else {
		save_one(v, path, fmt, fields, s);
	}
	sap_resume_saved(path);
	free(path);
}
