/* gen.c: the parts the data generators share (gen.h). */
#define _POSIX_C_SOURCE 200809L     /* fsync, fileno */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gen.h"

void fail(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", gen_name);
	vfprintf(stderr, fmt, ap);
	fputs(status == 2 ? "\n(try --help)\n" : "\n", stderr);
	va_end(ap);
	exit(status);
}

uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

rng rng_make(uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95u);
	rng r;
	for (int k = 0; k < 4; k++)
		r.s[k] = splitmix64(&x);
	return r;
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t next64(rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* [0, 1) with 53 random bits. */
double uniform(rng *r)
{
	return (double)(next64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* [0, n) for n < 2^32, as floor(x n / 2^64) of a 64-bit draw x. */
int64_t below(rng *r, int64_t n)
{
	uint64_t x = next64(r), m = (uint64_t)n;
	return (int64_t)(((x >> 32) * m + (((x & 0xffffffffu) * m) >> 32)) >> 32);
}

double normal(rng *r)
{
	double u = 1.0 - uniform(r);    /* (0, 1]: log stays finite */
	return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * uniform(r));
}

void *xmalloc(size_t n, size_t size)
{
	if (n != 0 && size > SIZE_MAX / n)
		fail(1, "out of memory");
	void *p = malloc(n * size + 1);
	if (!p)
		fail(1, "out of memory");
	return p;
}

outfile out_open(const char *path)
{
	outfile o = { path, NULL, stdout };
	if (!path)
		return o;
	/* A FIFO or a device (/dev/null) is written in place: renaming a
	 * temporary over it would replace it with a regular file. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		o.f = fopen(path, "w");
		if (!o.f)
			fail(1, "cannot write %s: %s", path, strerror(errno));
		return o;
	}
	o.tmp = xmalloc(strlen(path) + 5, 1);
	strcpy(o.tmp, path);
	strcat(o.tmp, ".tmp");
	o.f = fopen(o.tmp, "w");
	if (!o.f)
		fail(1, "cannot write %s: %s", o.tmp, strerror(errno));
	return o;
}

void out_check(outfile *o)
{
	if (ferror(o->f)) {
		int e = errno;
		if (o->tmp)
			unlink(o->tmp);
		fail(1, "cannot write %s: %s", o->path ? o->path : "standard output",
		     strerror(e ? e : EIO));
	}
}

void out_close(outfile *o)
{
	if (o->path && !o->tmp) {
		if (fflush(o->f) != 0 || ferror(o->f) || fclose(o->f) != 0)
			fail(1, "cannot write %s: %s", o->path, strerror(errno ? errno : EIO));
	} else if (o->path) {
		/* On disk before the rename, or a crash could leave the new
		 * name on an empty file. */
		if (fflush(o->f) != 0 || ferror(o->f) ||
		    (fsync(fileno(o->f)) != 0 && errno != EINVAL) || fclose(o->f) != 0) {
			int e = errno;
			unlink(o->tmp);
			fail(1, "cannot write %s: %s", o->path, strerror(e ? e : EIO));
		}
		if (rename(o->tmp, o->path) != 0)
			fail(1, "cannot create %s: %s", o->path, strerror(errno));
		free(o->tmp);
	} else if (fflush(o->f) != 0 || ferror(o->f)) {
		fail(1, "cannot write standard output");
	}
}

int64_t opt_int(const char *name, const char *val, int64_t lo, int64_t hi)
{
	char *end;
	errno = 0;
	long long x = strtoll(val, &end, 10);
	if (end == val || *end || errno || x < lo || x > hi) {
		fail(2, "--%s=%s: expected an integer in [%" PRId64 ", %" PRId64 "]",
		     name, val, lo, hi);
	}
	return x;
}

double opt_real(const char *name, const char *val, double lo, double hi)
{
	char *end;
	errno = 0;
	double x = strtod(val, &end);
	if (end == val || *end || errno || !(x >= lo && x <= hi))
		fail(2, "--%s=%s: expected a number in [%g, %g]", name, val, lo, hi);
	return x;
}

const char *opt_path(const char *name, const char *val)
{
	if (!*val)
		fail(2, "--%s needs a file name", name);
	return val;
}
