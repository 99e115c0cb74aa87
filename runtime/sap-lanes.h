/* sap-lanes.h: the sums of dot() and softmax() in sap(7)'s lane order.
 *
 * A float sum runs in SAP_LANES_F = 16 lanes, a double sum in
 * SAP_LANES_D = 8 (64 bytes of either): term k goes into lane k % L, each
 * lane adds its terms in index order starting from +0, and the lanes are
 * added as a halving tree, lane l taking lane l + h for h = L/2, L/4, ...
 * 1.  The order is fixed, so the result is the same bits on every machine
 * and at every optimisation level, and it is a vector sum, which the C
 * compiler makes SIMD code of without -ffast-math.
 *
 * With GCC or Clang the lanes are vectors of 8 floats or 4 doubles (the
 * compiler splits them for SSE and joins two for AVX-512): written as
 * arrays of scalars, gcc builds the tree out of shuffles and scalar adds
 * that cost as much as the products.  Other compilers get the arrays;
 * both compute the same bits.
 *
 * It needs <stdint.h> and <string.h>.  sap.h includes it for generated
 * programs, and samples/baselines/lanes.h for the serial C twins, which
 * must compute what the SAP programs compute. */
#ifndef SAP_LANES_H
#define SAP_LANES_H

#define SAP_LANES_F 16
#define SAP_LANES_D 8

#if defined __GNUC__
typedef float sap_vf8 __attribute__((vector_size(32)));
typedef float sap_vf4 __attribute__((vector_size(16)));
typedef double sap_vd4 __attribute__((vector_size(32)));
typedef double sap_vd2 __attribute__((vector_size(16)));
/* A dot in a loop body is inlined even where the body is large (a loop
 * of SGDMF's is written three times, for what its caller knows in range):
 * called, it cost a tenth of the loop, and its length is often a
 * constant that folds its last terms away. */
#define SAP_LANES_INLINE static inline __attribute__((always_inline))

/* The tree over lanes s[0 .. 16). */
static inline float sap_lanes_f(const float *s)
{
	sap_vf8 lo, hi;
	memcpy(&lo, s, sizeof lo);
	memcpy(&hi, s + 8, sizeof hi);
	lo += hi;
	sap_vf4 a, b;
	memcpy(&a, &lo, sizeof a);
	memcpy(&b, (const char *)&lo + sizeof a, sizeof b);
	a += b;
	return (a[0] + a[2]) + (a[1] + a[3]);
}

static inline double sap_lanes_d(const double *s)
{
	sap_vd4 lo, hi;
	memcpy(&lo, s, sizeof lo);
	memcpy(&hi, s + 4, sizeof hi);
	lo += hi;
	return (lo[0] + lo[2]) + (lo[1] + lo[3]);
}

/* The last n - k < 16 terms of a float sum go into lanes 0, 1, ... as
 * vectors too, by 8, then 4, then one by one, not through memory (a
 * store of scalars that a vector load reads back stalls): the lanes a
 * vector has no term for add -0, which leaves every value as it is. */
SAP_LANES_INLINE float sap_dot_f(const float *a, const float *b, int64_t n)
{
	sap_vf8 s[2] = { { 0 }, { 0 } };
	int64_t k = 0;
	for (; k + 16 <= n; k += 16) {
		sap_vf8 x0, x1, y0, y1;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 8, sizeof x1);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 8, sizeof y1);
		s[0] += x0 * y0;
		s[1] += x1 * y1;
	}
	int l = 0;              /* the lane of term k */
	if (k + 8 <= n) {
		sap_vf8 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		s[0] += x * y;
		k += 8;
		l = 8;
	}
	if (k + 4 <= n) {
		sap_vf4 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		sap_vf4 p = x * y;
		s[l / 8] += (sap_vf8){ p[0], p[1], p[2], p[3], -0.0f, -0.0f, -0.0f, -0.0f };
		k += 4;
		l += 4;
	}
	/* At most 3 terms are left; t tells cc so, which cannot see it and
	 * warns of an overflow at iteration 2^62. */
	for (int t = 0; t < 3 && k < n; t++, k++, l++)
		s[l / 8][l % 8] += a[k] * b[k];
	s[0] += s[1];
	sap_vf4 x, y;
	memcpy(&x, &s[0], sizeof x);
	memcpy(&y, (const char *)&s[0] + sizeof x, sizeof y);
	x += y;
	return (x[0] + x[2]) + (x[1] + x[3]);
}

/* The same for doubles: 8 lanes, the last terms by 4, 2, then one. */
SAP_LANES_INLINE double sap_dot_d(const double *a, const double *b, int64_t n)
{
	sap_vd4 s[2] = { { 0 }, { 0 } };
	int64_t k = 0;
	for (; k + 8 <= n; k += 8) {
		sap_vd4 x0, x1, y0, y1;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 4, sizeof x1);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 4, sizeof y1);
		s[0] += x0 * y0;
		s[1] += x1 * y1;
	}
	int l = 0;
	if (k + 4 <= n) {
		sap_vd4 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		s[0] += x * y;
		k += 4;
		l = 4;
	}
	if (k + 2 <= n) {
		sap_vd2 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		sap_vd2 p = x * y;
		s[l / 4] += (sap_vd4){ p[0], p[1], -0.0, -0.0 };
		k += 2;
		l += 2;
	}
	if (k < n)              /* the one term left */
		s[l / 4][l % 4] += a[k] * b[k];
	s[0] += s[1];
	return (s[0][0] + s[0][2]) + (s[0][1] + s[0][3]);
}
#else
static inline float sap_lanes_f(const float *s0)
{
	float s[16];
	memcpy(s, s0, sizeof s);
	for (int l = 0; l < 8; l++)
		s[l] += s[l + 8];
	for (int l = 0; l < 4; l++)
		s[l] += s[l + 4];
	return (s[0] + s[2]) + (s[1] + s[3]);
}

static inline double sap_lanes_d(const double *s0)
{
	double s[8];
	memcpy(s, s0, sizeof s);
	for (int l = 0; l < 4; l++)
		s[l] += s[l + 4];
	return (s[0] + s[2]) + (s[1] + s[3]);
}

static inline float sap_dot_f(const float *a, const float *b, int64_t n)
{
	float s[16] = {0};
	int64_t k = 0;
	for (; k + 16 <= n; k += 16)
		for (int l = 0; l < 16; l++)
			s[l] += a[k + l] * b[k + l];
	for (int l = 0; l < 16 && k + l < n; l++)
		s[l] += a[k + l] * b[k + l];
	return sap_lanes_f(s);
}

static inline double sap_dot_d(const double *a, const double *b, int64_t n)
{
	double s[8] = {0};
	int64_t k = 0;
	for (; k + 8 <= n; k += 8)
		for (int l = 0; l < 8; l++)
			s[l] += a[k + l] * b[k + l];
	for (int l = 0; l < 8 && k + l < n; l++)
		s[l] += a[k + l] * b[k + l];
	return sap_lanes_d(s);
}
#endif

#endif
