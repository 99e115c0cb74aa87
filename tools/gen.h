/* gen.h: what the data generators in tools/ share: errors, memory, a
 * seeded random number generator, output files that appear whole, and
 * option values. */
#ifndef GEN_H
#define GEN_H
#include <stdint.h>
#include <stdio.h>

/* The program's name, for its messages; each generator defines it. */
extern const char *const gen_name;

/* Exit status 2 for a bad command line, 1 for anything else. */
_Noreturn __attribute__((format(printf, 2, 3))) void fail(int status, const char *fmt, ...);
/* n * size bytes (and one more, so that 0 is not NULL), or fail. */
void *xmalloc(size_t n, size_t size);

/* xoshiro256** seeded by splitmix64 from (seed, stream): the streams of
 * one seed are independent, so a generator's outputs do not depend on
 * how many numbers another part of it drew. */
typedef struct rng {
	uint64_t s[4];
} rng;

uint64_t splitmix64(uint64_t *x);
rng rng_make(uint64_t seed, uint64_t stream);
uint64_t next64(rng *r);
/* [0, 1) with 53 random bits. */
double uniform(rng *r);
/* [0, n) for n < 2^32. */
int64_t below(rng *r, int64_t n);
/* Standard normal, by Box-Muller. */
double normal(rng *r);

/* A file written under PATH.tmp and renamed to PATH once on disk, or
 * standard output when path is NULL. */
typedef struct outfile {
	const char *path;
	char *tmp;
	FILE *f;
} outfile;

outfile out_open(const char *path);
/* Fails (removing the temporary) if a write has failed. */
void out_check(outfile *o);
void out_close(outfile *o);

/* The value of option --NAME=VAL, or fail with status 2. */
int64_t opt_int(const char *name, const char *val, int64_t lo, int64_t hi);
double opt_real(const char *name, const char *val, double lo, double hi);
const char *opt_path(const char *name, const char *val);

#endif
