/* merge.c: the arithmetic of accumulate and of sync for synchronizations,
 * on the scalars of elements (numbers, arrays and structs of numbers,
 * through their sap_numtype): adding the workers' copies or changes
 * together, and merging the total into the old values (avg, sum or the
 * program's function). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "sap-int.h"

size_t sap_scalar_size(sap_scalar s)
{
	return s == SAP_S_FLOAT || s == SAP_S_INT ? 4 : 8;
}

bool sap_nt_flat(const sap_numtype *t)
{
	return t->nf == 1 && t->f[0].off == 0 &&
	       (size_t)t->f[0].n * sap_scalar_size(t->f[0].kind) == t->size;
}

bool sap_nt_has_int(const sap_numtype *t)
{
	for (int k = 0; k < t->nf; k++)
		if (t->f[k].kind == SAP_S_INT || t->f[k].kind == SAP_S_LONG)
			return true;
	return false;
}

bool sap_nt_zero(const sap_numtype *t, const void *p)
{
	for (int k = 0; k < t->nf; k++) {
		const unsigned char *b = (const unsigned char *)p + t->f[k].off;
		size_t sz = sap_scalar_size(t->f[k].kind);
		/* The sign bit of a float or double does not count. */
		uint64_t sign = t->f[k].kind == SAP_S_DOUBLE ? (uint64_t)1 << 63 :
		                t->f[k].kind == SAP_S_FLOAT ? (uint64_t)1 << 31 : 0;
		for (uint32_t i = 0; i < t->f[k].n; i++) {
			uint64_t x = 0;
			if (sz == 8)
				memcpy(&x, b + (size_t)i * 8, 8);
			else {
				uint32_t y;
				memcpy(&y, b + (size_t)i * 4, 4);
				x = y;
			}
			if (x & ~sign)
				return false;
		}
	}
	return true;
}

void sap_nt_identity(const sap_numtype *t, void *p, int64_t n)
{
	bool flat = sap_nt_flat(t);
	if (flat && t->f[0].kind == SAP_S_DOUBLE) {
		double *d = p;
		for (int64_t i = 0, m = n * t->f[0].n; i < m; i++)
			d[i] = -0.0;
		return;
	}
	if (flat && t->f[0].kind == SAP_S_FLOAT) {
		float *d = p;
		for (int64_t i = 0, m = n * t->f[0].n; i < m; i++)
			d[i] = -0.0f;
		return;
	}
	memset(p, 0, (size_t)n * t->size);
	if (!sap_nt_has_float(t))
		return;
	for (int64_t i = 0; i < n; i++) {
		char *e = (char *)p + (size_t)i * t->size;
		for (int k = 0; k < t->nf; k++) {
			const sap_numfield *f = &t->f[k];
			if (f->kind == SAP_S_FLOAT)
				for (uint32_t j = 0; j < f->n; j++)
					memcpy(e + f->off + (size_t)j * 4, &(float){ -0.0f }, 4);
			else if (f->kind == SAP_S_DOUBLE)
				for (uint32_t j = 0; j < f->n; j++)
					memcpy(e + f->off + (size_t)j * 8, &(double){ -0.0 }, 8);
		}
	}
}

bool sap_nt_has_float(const sap_numtype *t)
{
	for (int k = 0; k < t->nf; k++)
		if (t->f[k].kind == SAP_S_FLOAT || t->f[k].kind == SAP_S_DOUBLE)
			return true;
	return false;
}

bool sap_nt_is_identity(const sap_numtype *t, const void *p)
{
	for (int k = 0; k < t->nf; k++) {
		const sap_numfield *f = &t->f[k];
		const char *b = (const char *)p + f->off;
		for (uint32_t j = 0; j < f->n; j++) {
			bool id;
			switch (f->kind) {
			case SAP_S_FLOAT: {
				float x;
				memcpy(&x, b + (size_t)j * 4, 4);
				id = x == 0 && signbit(x);
				break;
			}
			case SAP_S_DOUBLE: {
				double x;
				memcpy(&x, b + (size_t)j * 8, 8);
				id = x == 0 && signbit(x);
				break;
			}
			case SAP_S_INT: {
				int32_t x;
				memcpy(&x, b + (size_t)j * 4, 4);
				id = x == 0;
				break;
			}
			default: {
				int64_t x;
				memcpy(&x, b + (size_t)j * 8, 8);
				id = x == 0;
				break;
			}
			}
			if (!id)
				return false;
		}
	}
	return true;
}

typedef enum op { OP_ADD, OP_SUB, OP_DELTA, OP_DIV, OP_AVG, OP_SUM } op;

/* n scalars of type T (bits of the same size U): v and a, b the
 * operands (out, old, total for the merges; out may be either).  A
 * worker's change to a scalar it left as it was is -0.0, which adds
 * nothing to any sum, where new - old would be NaN for an infinite old
 * value and +0.0 for -0.0.  Sixteen bytes at a time through the
 * compiler's vector types, which -O2 does not vectorize on its own
 * (its cost model takes no loop with a remainder), then one by one:
 * the same operations on each scalar either way. */
#define KERNEL(T, U)                                                             \
	typedef T T##_v __attribute__((vector_size(16)));                        \
	typedef U T##_u __attribute__((vector_size(16)));                        \
	static inline bool same_##T(T x, T y)                                    \
	{                                                                        \
		U bx, by;                                                        \
		memcpy(&bx, &x, sizeof bx);                                      \
		memcpy(&by, &y, sizeof by);                                      \
		return bx == by;                                                 \
	}                                                                        \
	/* x - y, or -0.0 where the two have the same bits. */                   \
	static inline T##_v diff_##T(T##_v x, T##_v y)                           \
	{                                                                        \
		T##_u m = (T##_u)((T##_u)x == (T##_u)y);                         \
		T##_u z = (T##_u)(-(T##_v){ 0 });                                \
		return (T##_v)(((T##_u)(x - y) & ~m) | (z & m));                 \
	}                                                                        \
	static void k_##T(op o, void *vv, const void *va, const void *vb, int64_t n, \
	                  int64_t A)                                             \
	{                                                                        \
		T *v = vv;                                                       \
		const T *a = va, *b = vb;                                        \
		int64_t i = 0, m = n - n % (int64_t)(16 / sizeof(T));            \
		T##_v x, y, z;                                                   \
		switch (o) {                                                     \
		case OP_ADD:                                                     \
			VLOOP(x += y, 1, 0);                                     \
			for (; i < n; i++)                                       \
				v[i] += a[i];                                    \
			break;                                                   \
		case OP_SUB:                                                     \
			VLOOP(x = diff_##T(x, y), 1, 0);                         \
			for (; i < n; i++)                                       \
				v[i] = same_##T(v[i], a[i]) ? (T)-0.0 : v[i] - a[i]; \
			break;                                                   \
		case OP_DELTA:                                                   \
			VLOOP(x += diff_##T(y, z), 1, 1);                        \
			for (; i < n; i++)                                       \
				v[i] += same_##T(a[i], b[i]) ? (T)-0.0 : a[i] - b[i]; \
			break;                                                   \
		case OP_DIV:                                                     \
			VLOOP(x /= (T)A, 0, 0);                                  \
			for (; i < n; i++)                                       \
				v[i] /= (T)A;                                    \
			break;                                                   \
		case OP_AVG:                                                     \
			VLOOP(x = y + z / (T)A, 1, 1);                           \
			for (; i < n; i++)                                       \
				v[i] = (T)(a[i] + b[i] / (T)A);                  \
			break;                                                   \
		case OP_SUM:                                                     \
			VLOOP(x = y + z, 1, 1);                                  \
			for (; i < n; i++)                                       \
				v[i] = (T)(a[i] + b[i]);                         \
			break;                                                   \
		}                                                                \
	}
/* The vector part of a k_T loop: x from v, y from a, z from b when
 * the operation reads them; STMT; x back to v. */
#define VLOOP(STMT, RA, RB)                                                      \
	for (; i < m; i += (int64_t)(sizeof x / sizeof *v)) {                    \
		memcpy(&x, v + i, sizeof x);                                     \
		if (RA)                                                          \
			memcpy(&y, a + i, sizeof y);                             \
		if (RB)                                                          \
			memcpy(&z, b + i, sizeof z);                             \
		STMT;                                                            \
		memcpy(v + i, &x, sizeof x);                                     \
	}
KERNEL(float, uint32_t)
KERNEL(double, uint64_t)
KERNEL(int32_t, uint32_t)
KERNEL(int64_t, uint64_t)

static void kernel(op o, sap_scalar s, void *v, const void *a, const void *b, int64_t n,
                   int64_t A)
{
	switch (s) {
	case SAP_S_FLOAT: k_float(o, v, a, b, n, A); break;
	case SAP_S_DOUBLE: k_double(o, v, a, b, n, A); break;
	case SAP_S_INT: k_int32_t(o, v, a, b, n, A); break;
	case SAP_S_LONG: k_int64_t(o, v, a, b, n, A); break;
	}
}

/* kernel where the scalars may sit at any address, as a packed struct's
 * do (SAP_PACKED): through aligned copies, 16 at a time. */
static void kernel_at(op o, sap_scalar s, void *v, const void *a, const void *b, int64_t n,
                      int64_t A)
{
	size_t sz = sap_scalar_size(s);
	if ((((uintptr_t)v | (uintptr_t)a | (uintptr_t)b) & (sz - 1)) == 0) {
		kernel(o, s, v, a, b, n, A);
		return;
	}
	double tv[16], ta[16], tb[16];
	for (int64_t i = 0; i < n; i += 16) {
		size_t off = (size_t)i * sz, bytes = (size_t)(n - i < 16 ? n - i : 16) * sz;
		memcpy(tv, (char *)v + off, bytes);
		if (a)
			memcpy(ta, (const char *)a + off, bytes);
		if (b)
			memcpy(tb, (const char *)b + off, bytes);
		kernel(o, s, tv, a ? ta : NULL, b ? tb : NULL, (int64_t)(bytes / sz), A);
		memcpy((char *)v + off, tv, bytes);
	}
}

/* o on n ints, as kernel's, each result checked for c's range (int64
 * arithmetic, where int's would wrap); at any address, as a packed
 * struct's.  A worker's change out of range (from near one end of the
 * range to near the other) is an error too, though its sum with the
 * others' might be back in range: such a worker's values crossed more
 * than an int's range, which the serial loop's running value would have
 * too, in the other order. */
static void kernel_checked(const sap_sumcheck *c, op o, void *v, const void *a, const void *b,
                           int64_t n, int64_t A)
{
	for (int64_t i = 0; i < n; i++) {
		int32_t x, y = 0, z = 0;
		memcpy(&x, (char *)v + 4 * i, 4);
		if (a)
			memcpy(&y, (const char *)a + 4 * i, 4);
		if (b)
			memcpy(&z, (const char *)b + 4 * i, 4);
		int64_t r;
		switch (o) {
		case OP_ADD: r = (int64_t)x + y; break;
		case OP_SUB: r = (int64_t)x - y; break;
		case OP_DELTA: r = (int64_t)x + ((int64_t)y - z); break;
		case OP_DIV: r = x / A; break;
		case OP_AVG: r = (int64_t)y + z / A; break;
		case OP_SUM: r = (int64_t)y + z; break;
		default: r = x; break;
		}
		if (r != (int32_t)r)
			sap_sum_range(c, r);
		x = (int32_t)r;
		memcpy((char *)v + 4 * i, &x, 4);
	}
}

/* o on n elements of type t, run by run; a and b may be NULL where o
 * does not read them.  An element of one kind of scalar and no padding
 * is one run over all of them. */
static void apply(const sap_numtype *t, op o, void *v, const void *a, const void *b,
                  int64_t n, int64_t A)
{
	bool chk = t->check != NULL;
	if (sap_nt_flat(t)) {
		if (chk && t->f[0].kind == SAP_S_INT)
			kernel_checked(t->check, o, v, a, b, n * t->f[0].n, A);
		else
			kernel(o, t->f[0].kind, v, a, b, n * t->f[0].n, A);
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		size_t at = (size_t)i * t->size;
		for (int k = 0; k < t->nf; k++) {
			const sap_numfield *f = &t->f[k];
			char *vf = (char *)v + at + f->off;
			const char *af = a ? (const char *)a + at + f->off : NULL;
			const char *bf = b ? (const char *)b + at + f->off : NULL;
			if (chk && f->kind == SAP_S_INT)
				kernel_checked(t->check, o, vf, af, bf, f->n, A);
			else
				kernel_at(o, f->kind, vf, af, bf, f->n, A);
		}
	}
}

void sap_sc_add(const sap_numtype *t, void *v, const void *a, int64_t n)
{
	apply(t, OP_ADD, v, a, NULL, n, 1);
}

void sap_sc_sub(const sap_numtype *t, void *v, const void *a, int64_t n)
{
	apply(t, OP_SUB, v, a, NULL, n, 1);
}

void sap_sc_delta(const sap_numtype *t, void *v, const void *a, const void *old, int64_t n)
{
	apply(t, OP_DELTA, v, a, old, n, 1);
}

void sap_sc_div(const sap_numtype *t, void *v, int64_t n, int64_t A)
{
	apply(t, OP_DIV, v, NULL, NULL, n, A);
}

void sap_sc_merge(const sap_syncdds *w, void *out, const void *old, const void *total,
                  int64_t n, int64_t A)
{
	switch (w->merge) {
	case SAP_M_AVG:
		apply(w->num, OP_AVG, out, old, total, n, A);
		break;
	case SAP_M_SUM:
		apply(w->num, OP_SUM, out, old, total, n, 1);
		break;
	case SAP_M_FN:
		w->fn(out, old, total, n, A);
		break;
	}
}

typedef struct add_job {
	const sap_numtype *t;
	char *into;
	const char *from;
	int64_t n;
	int T;
} add_job;

static void add_part(void *arg, int w)
{
	add_job *j = arg;
	int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
	apply(j->t, OP_ADD, j->into + (size_t)a * j->t->size, j->from + (size_t)a * j->t->size,
	      NULL, b - a, 1);
}

/* Element by element, so the pool's threads take parts of a large one
 * when they are free: the same sums. */
void sap_acc_add(const sap_numtype *t, void *into, const void *from, int64_t n)
{
	if (!from)
		return;
	add_job j = { t, into, from, n, 1 };
	if ((size_t)n * t->size >= SAP_PAR_BYTES && sap_pool_free())
		j.T = sap_threads();
	sap_pool_run(j.T, add_part, &j);
}
