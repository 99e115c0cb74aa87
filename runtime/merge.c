/* merge.c: the arithmetic of sync for synchronizations, on the scalars
 * of a written vector, for each scalar type: adding the workers' copies
 * or changes together, and merging the total into the old values
 * (avg, sum or the program's function). */
#include <string.h>
#include "sap-int.h"

size_t sap_scalar_size(sap_scalar s)
{
	return s == SAP_S_FLOAT || s == SAP_S_INT ? 4 : 8;
}

MPI_Datatype sap_scalar_mpi(sap_scalar s)
{
	switch (s) {
	case SAP_S_FLOAT: return MPI_FLOAT;
	case SAP_S_DOUBLE: return MPI_DOUBLE;
	case SAP_S_INT: return MPI_INT32_T;
	default: return MPI_INT64_T;
	}
}

int64_t sap_sync_nscalars(const sap_syncdds *w)
{
	return (int64_t)(w->dv->n * w->dv->elsize / sap_scalar_size(w->scalar));
}

#define KERNELS(T)                                                               \
	static void add_##T(T *restrict v, const T *restrict a, int64_t n)            \
	{                                                                        \
		for (int64_t i = 0; i < n; i++)                                  \
			v[i] += a[i];                                            \
	}                                                                        \
	static void sub_##T(T *restrict v, const T *restrict a, int64_t n)            \
	{                                                                        \
		for (int64_t i = 0; i < n; i++)                                  \
			v[i] -= a[i];                                            \
	}                                                                        \
	static void delta_##T(T *restrict v, const T *restrict a, const T *restrict old, \
	                      int64_t n)                                         \
	{                                                                        \
		for (int64_t i = 0; i < n; i++)                                  \
			v[i] += a[i] - old[i];                                   \
	}                                                                        \
	static void div_##T(T *v, int64_t n, int64_t A)                          \
	{                                                                        \
		for (int64_t i = 0; i < n; i++)                                  \
			v[i] /= (T)A;                                            \
	}                                                                        \
	static void avg_##T(T *out, const T *old, const T *tot, int64_t n, int64_t A) \
	{                                                                        \
		for (int64_t i = 0; i < n; i++)                                  \
			out[i] = (T)(old[i] + tot[i] / (T)A);                    \
	}                                                                        \
	static void sum_##T(T *out, const T *old, const T *tot, int64_t n)       \
	{                                                                        \
		for (int64_t i = 0; i < n; i++)                                  \
			out[i] = (T)(old[i] + tot[i]);                           \
	}
KERNELS(float)
KERNELS(double)
KERNELS(int32_t)
KERNELS(int64_t)

#define DISPATCH(s, call_f, call_d, call_i, call_l) \
	switch (s) {                               \
	case SAP_S_FLOAT: call_f; break;           \
	case SAP_S_DOUBLE: call_d; break;          \
	case SAP_S_INT: call_i; break;             \
	case SAP_S_LONG: call_l; break;            \
	}

void sap_sc_add(sap_scalar s, void *v, const void *a, int64_t n)
{
	DISPATCH(s, add_float(v, a, n), add_double(v, a, n), add_int32_t(v, a, n),
	         add_int64_t(v, a, n))
}

void sap_sc_sub(sap_scalar s, void *v, const void *a, int64_t n)
{
	DISPATCH(s, sub_float(v, a, n), sub_double(v, a, n), sub_int32_t(v, a, n),
	         sub_int64_t(v, a, n))
}

void sap_sc_delta(sap_scalar s, void *v, const void *a, const void *old, int64_t n)
{
	DISPATCH(s, delta_float(v, a, old, n), delta_double(v, a, old, n),
	         delta_int32_t(v, a, old, n), delta_int64_t(v, a, old, n))
}

void sap_sc_div(sap_scalar s, void *v, int64_t n, int64_t A)
{
	DISPATCH(s, div_float(v, n, A), div_double(v, n, A), div_int32_t(v, n, A),
	         div_int64_t(v, n, A))
}

void sap_sc_merge(const sap_syncdds *w, void *out, const void *old, const void *total,
                  int64_t n, int64_t A)
{
	switch (w->merge) {
	case SAP_M_AVG:
		DISPATCH(w->scalar, avg_float(out, old, total, n, A),
		         avg_double(out, old, total, n, A), avg_int32_t(out, old, total, n, A),
		         avg_int64_t(out, old, total, n, A))
		break;
	case SAP_M_SUM:
		DISPATCH(w->scalar, sum_float(out, old, total, n), sum_double(out, old, total, n),
		         sum_int32_t(out, old, total, n), sum_int64_t(out, old, total, n))
		break;
	case SAP_M_FN:
		w->fn(out, old, total, n, A);
		break;
	}
}
