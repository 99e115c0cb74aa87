/* sync.c: sync for loops, in mini-batches; and the per-iteration random
 * numbers of every loop.
 *
 * On one rank, one worker runs the mini-batches in order.  On several
 * ranks, when everything the body writes is a dvector of numbers, each
 * rank runs a mini-batch of its own at the same time (bsp) on its own
 * copy of the vectors, then the ranks average their changes with
 * one in-place MPI_Allreduce per vector, so that every rank starts the
 * next batch from the same values.  The changes are summed in the
 * order the Allreduce takes for a given number of ranks, so results
 * depend on P and are the same from run to run.  ssp and hybrid run as
 * bsp over ranks for now.  Anything else (a body writing a map, strings)
 * runs whole on every rank.
 */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "sap-int.h"

static size_t scalar_size(sap_scalar s)
{
	return s == SAP_S_FLOAT || s == SAP_S_INT ? 4 : 8;
}

static MPI_Datatype scalar_type(sap_scalar s)
{
	switch (s) {
	case SAP_S_FLOAT: return MPI_FLOAT;
	case SAP_S_DOUBLE: return MPI_DOUBLE;
	case SAP_S_INT: return MPI_INT32_T;
	default: return MPI_INT64_T;
	}
}

/* v = old + (the ranks' sum of (v - old)) / P, in place; v's scalars are
 * n of kind s. */
#define AVERAGE(T)                                                              \
	static void average_##T(T *v, const T *old, int64_t n, int P, MPI_Datatype t) \
	{                                                                       \
		for (int64_t i = 0; i < n; i++)                                 \
			v[i] -= old[i];                                         \
		for (int64_t at = 0; at < n; at += INT32_MAX) {                 \
			int c = n - at < INT32_MAX ? (int)(n - at) : INT32_MAX; \
			MPI_Allreduce(MPI_IN_PLACE, v + at, c, t, MPI_SUM, MPI_COMM_WORLD); \
		}                                                               \
		for (int64_t i = 0; i < n; i++)                                 \
			v[i] = (T)(old[i] + v[i] / P);                          \
	}
AVERAGE(float)
AVERAGE(double)
AVERAGE(int32_t)
AVERAGE(int64_t)

static void average(const sap_syncdds *w, const char *old, int P)
{
	sap_dvec *v = w->dv;
	int64_t n = (int64_t)(v->n * v->elsize / scalar_size(w->scalar));
	MPI_Datatype t = scalar_type(w->scalar);
	switch (w->scalar) {
	case SAP_S_FLOAT: average_float((float *)v->data, (const float *)old, n, P, t); break;
	case SAP_S_DOUBLE: average_double((double *)v->data, (const double *)old, n, P, t); break;
	case SAP_S_INT: average_int32_t((int32_t *)v->data, (const int32_t *)old, n, P, t); break;
	case SAP_S_LONG: average_int64_t((int64_t *)v->data, (const int64_t *)old, n, P, t); break;
	}
}

void sap_sync_for(sap_loop *L, int64_t n, const sap_syncspec *spec, void *env,
                  sap_body_fn body, const sap_reduce *r, void *red)
{
	L->invocations++;
	if (spec->batch <= 0)
		sap_fatal(&L->site, "sync for: batch must be positive, got %lld",
		          (long long)spec->batch);
	/* Every rank starts from every current value. */
	sap_whole_all();
	if (r)
		r->init(red);
	sap_run x = { L, env, body, r, NULL, 1 };
	int P = sap_nranks(), me = sap_rank();
	bool spread = P > 1 && spec->dense && (!r || (r->flat && !r->nacc));
	char **old = NULL;
	if (spread) {
		old = sap_xcalloc((size_t)(spec->nwr ? spec->nwr : 1), sizeof *old);
		for (int k = 0; k < spec->nwr; k++)
			old[k] = sap_xmalloc(spec->wr[k].dv->n * spec->wr[k].dv->elsize + 1);
	}
	/* A step is one mini-batch on each worker: rank r takes the r-th
	 * batch of the step's P. */
	int W = spread ? P : 1;
	int64_t step = spec->batch > INT64_MAX / W ? INT64_MAX : spec->batch * W;
	for (int64_t b = 0; b < n; b = n - b < step ? n : b + step) {
		if (!spread) {
			sap_exec_range(&x, b, n - b < step ? n : b + step, red);
			continue;
		}
		for (int k = 0; k < spec->nwr; k++)
			memcpy(old[k], spec->wr[k].dv->data, spec->wr[k].dv->n * spec->wr[k].dv->elsize);
		int64_t lo = n - b <= spec->batch * me ? n : b + spec->batch * me;
		int64_t hi = n - lo < spec->batch ? n : lo + spec->batch;
		if (lo < hi)
			sap_exec_range(&x, lo, hi, red);
		for (int k = 0; k < spec->nwr; k++)
			average(&spec->wr[k], old[k], P);
	}
	if (spread) {
		for (int k = 0; k < spec->nwr; k++)
			free(old[k]);
		free(old);
		if (r) {
			sap_dist_stats none = { 0, 0 };
			sap_dist_reduce(r, NULL, red, &none);
		}
	}
}

sap_rng sap_rng_iter(const sap_loop *L, int64_t i)
{
	return sap_rng_make((uint32_t)L->id, i, L->invocations - 1);
}

int64_t sap_key_str(sap_str s) { return (int64_t)sap_fnv1a(sap_str_c(s)); }
