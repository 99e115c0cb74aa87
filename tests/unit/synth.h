/* Synthetic async loops for the engine's tests and benchmark: data over
 * plain arrays wrapped in dvectors, and bodies and slices written by hand
 * the way sapc emits them. */
#ifndef SYNTH_H
#define SYNTH_H
#include "sap-int.h"

/* A deterministic generator for test data (splitmix64). */
static inline uint64_t synth_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline int64_t synth_below(uint64_t *s, int64_t n)
{
	return (int64_t)(((unsigned __int128)synth_next(s) * (uint64_t)n) >> 64);
}

/* ---- SGDMF: iteration i updates W[u(i)] and H[v(i)] ---- */

enum { SYNTH_K = 8 };

typedef struct rating {
	int32_t u, v;
	float r;
} rating;

typedef struct sgd {
	sap_dvec A, W, H;       /* rating; float[SYNTH_K]; float[SYNTH_K] */
	sap_dds dds[3];
	sap_async_spec spec;
	float gamma, lambda;
	_Atomic int64_t sliced; /* iterations the slice ran */
} sgd;

/* nr ratings of nu users and nv items, uniform, from seed; W and H
 * initialised from the seed too. */
void sgd_make(sgd *m, int64_t nr, int64_t nu, int64_t nv, uint64_t seed);
void sgd_free(sgd *m);
/* W and H as they were made. */
void sgd_reset(sgd *m, uint64_t seed);
void sgd_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red);
void sgd_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec);

/* ---- TransE: iteration i touches 3 random entities of E (head, tail,
 * corrupted) and one of 18 relations of R, all read and written ---- */

typedef struct transe {
	sap_dvec T;             /* int32_t[4]: head, relation, tail, corrupted */
	sap_dvec E, R;          /* float */
	sap_dds dds[3];
	sap_async_spec spec;
} transe;

void transe_make(transe *m, int64_t n, int64_t ne, uint64_t seed);
void transe_free(transe *m);
void transe_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red);

/* ---- random patterns: iteration i touches 1 to 4 random keys of 1 to 3
 * DDSs, each read, written or both ---- */

typedef struct pattern {
	int64_t n;
	int32_t *nk;            /* keys of iteration i: key[4 i .. 4 i + nk[i]) */
	int32_t *dds, *mode;
	int64_t *key;
	sap_dvec X[3];
	sap_dds dds3[3];
	sap_async_spec spec;
} pattern;

void pattern_make(pattern *m, int64_t n, int64_t nkeys, uint64_t seed);
void pattern_free(pattern *m);

/* ---- banded: Lasso's columns; iteration j reads and writes 10 keys of
 * X (of `rows`) within +-w of j rows / n ---- */

typedef struct band {
	int64_t n;
	int64_t *key;           /* iteration j's: key[10 j .. 10 j + 10) */
	sap_dvec X;
	sap_dds d[1];
	sap_async_spec spec;
} band;

void band_make(band *m, int64_t n, int64_t rows, int64_t w, uint64_t seed);
void band_free(band *m);

/* A plan and the key log of a spec over [0, n) on T workers. */
typedef struct planned {
	sap_layout ly;
	uint32_t *ids;
	int64_t *order;
	sap_plan plan;
	sap_keylog log;
} planned;

void plan_spec(planned *pl, const sap_async_spec *spec, void *env, int64_t n, int T,
               bool locks);
void planned_free(planned *pl);

#endif
