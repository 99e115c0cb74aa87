/* sync.c: sync for loops, in mini-batches; and the per-iteration random
 * numbers of every loop.
 *
 * On one rank, one worker runs the mini-batches in order.  On several
 * ranks, when everything the body writes is a dvector of numbers, each
 * rank runs mini-batches of the elements it holds of the vector the loop
 * runs over (its shard), one a step (bsp), on its own copy of the
 * written vectors; then the ranks that ran one average their changes with
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

/* The rank whose shard element k of v is in: its holder, or the rank
 * of its even chunk when every rank has it. */
static int shard_of(const sap_dvec *v, int64_t k)
{
	int P = sap_nranks();
	if (v->part_only) {
		int r = 0;
		int64_t lo, hi;
		for (sap_dv_part(v, r, &lo, &hi); k >= hi && r < P - 1;)
			sap_dv_part(v, ++r, &lo, &hi);
		return r;
	}
	if (v->holder) {
		uint16_t h = sap_hold_get(v, k);
		if (h != SAP_HOLD_ALL)
			return h;
	}
	return (int)((__int128)k * P / v->n);
}

/* Over ranks: rank r runs the elements of its shard (those it holds) in
 * mini-batches, one a step; after each step the ranks that ran one
 * average their changes. */
static void run_spread(sap_run *x, const sap_syncspec *spec, void *red)
{
	int P = sap_nranks(), me = sap_rank();
	sap_dvec *over = spec->over;
	int64_t *size = sap_xcalloc((size_t)P, sizeof *size);
	int64_t *idx = sap_xmalloc((size_t)(over->n ? over->n : 1) * sizeof *idx), mine = 0;
	for (int64_t k = 0; k < over->n; k++) {
		int r = shard_of(over, k);
		size[r]++;
		if (r == me)
			idx[mine++] = k;
	}
	int64_t M = spec->batch, steps = 0;
	for (int r = 0; r < P; r++)
		if ((size[r] + M - 1) / M > steps)
			steps = (size[r] + M - 1) / M;
	char **old = sap_xcalloc((size_t)(spec->nwr ? spec->nwr : 1), sizeof *old);
	for (int k = 0; k < spec->nwr; k++)
		old[k] = sap_xmalloc(spec->wr[k].dv->n * spec->wr[k].dv->elsize + 1);
	for (int64_t s = 0; s < steps; s++) {
		int active = 0;
		for (int r = 0; r < P; r++)
			active += size[r] > s * M;
		for (int k = 0; k < spec->nwr; k++)
			memcpy(old[k], spec->wr[k].dv->data, spec->wr[k].dv->n * spec->wr[k].dv->elsize);
		if (mine > s * M)
			sap_exec_list(x, idx + s * M, mine - s * M < M ? mine - s * M : M, red);
		for (int k = 0; k < spec->nwr; k++)
			average(&spec->wr[k], old[k], active);
	}
	for (int k = 0; k < spec->nwr; k++)
		free(old[k]);
	free(old);
	free(idx);
	free(size);
}

void sap_sync_for(sap_loop *L, int64_t n, const sap_syncspec *spec, void *env,
                  sap_body_fn body, const sap_reduce *r, void *red)
{
	L->invocations++;
	if (spec->batch <= 0)
		sap_fatal(&L->site, "sync for: batch must be positive, got %lld",
		          (long long)spec->batch);
	bool spread = sap_nranks() > 1 && spec->dense && spec->over && spec->over->n == n &&
	              (!r || (r->flat && !r->nacc));
	/* Every rank starts from every current value, but of the vector it
	 * runs over, which each rank runs its own elements of. */
	sap_whole_all_but(spread ? spec->over : NULL);
	if (r)
		r->init(red);
	sap_run x = { L, env, body, r, NULL, 1 };
	if (spread) {
		run_spread(&x, spec, red);
		if (r) {
			sap_dist_stats none = { 0, 0 };
			sap_dist_reduce(r, NULL, red, &none);
		}
		return;
	}
	for (int64_t b = 0; b < n; b += spec->batch) {
		int64_t e = n - b < spec->batch ? n : b + spec->batch;
		sap_exec_range(&x, b, e, red);
	}
}

sap_rng sap_rng_iter(const sap_loop *L, int64_t i)
{
	return sap_rng_make((uint32_t)L->id, i, L->invocations - 1);
}

int64_t sap_key_str(sap_str s) { return (int64_t)sap_fnv1a(sap_str_c(s)); }
