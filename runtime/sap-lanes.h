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
 * With GCC or Clang the lanes are vectors, of 8 floats or 4 doubles with
 * AVX and of 4 or 2 without: written as arrays of scalars, gcc builds the
 * tree out of shuffles and scalar adds that cost as much as the products.
 * Other compilers get the arrays; all compute the same bits.
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

/* The tree over lanes s[0 .. 16).  Halves are taken element by element:
 * a memcpy out of a vector keeps it on the stack. */
static inline float sap_lanes_f(const float *s)
{
	sap_vf8 lo, hi;
	memcpy(&lo, s, sizeof lo);
	memcpy(&hi, s + 8, sizeof hi);
	lo += hi;
	sap_vf4 a = { lo[0], lo[1], lo[2], lo[3] }, b = { lo[4], lo[5], lo[6], lo[7] };
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
 * vectors too, by 8, then 4, then up to 3 at once, not through memory (a
 * store of scalars that a vector load reads back stalls): the lanes a
 * vector has no term for add -0, which leaves every value as it is.  The
 * sums are vectors the code names, never an array indexed by a variable
 * lane, and no memcpy takes a part of one: gcc keeps such vectors on the
 * stack and reads back every add (an SGDMF step ran 20 % slower than its
 * twin's).  With AVX they are vectors of 8; without, gcc splits those
 * through memory where a tail fills part of one, so they are 4 of 4. */
#if defined __AVX__
SAP_LANES_INLINE float sap_dot_f(const float *a, const float *b, int64_t n)
{
	const float z = -0.0f;
	sap_vf8 s0 = { 0 }, s1 = { 0 };
	int64_t k = 0;
	for (; k + 16 <= n; k += 16) {
		sap_vf8 x0, x1, y0, y1;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 8, sizeof x1);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 8, sizeof y1);
		s0 += x0 * y0;
		s1 += x1 * y1;
	}
	int high = 0;      /* the next terms go into s1 */
	if (k + 8 <= n) {
		sap_vf8 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		s0 += x * y;
		k += 8;
		high = 1;
	}
	int upper = 0;     /* into the upper half of that vector */
	if (k + 4 <= n) {
		sap_vf4 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		sap_vf4 p = x * y;
		sap_vf8 q = { p[0], p[1], p[2], p[3], z, z, z, z };
		if (high)
			s1 += q;
		else
			s0 += q;
		k += 4;
		upper = 1;
	}
	if (k < n) {            /* 1 to 3 terms */
		sap_vf4 p = { a[k] * b[k], z, z, z };
		if (k + 1 < n)
			p[1] = a[k + 1] * b[k + 1];
		if (k + 2 < n)
			p[2] = a[k + 2] * b[k + 2];
		sap_vf8 q = upper ? (sap_vf8){ z, z, z, z, p[0], p[1], p[2], p[3] }
		                  : (sap_vf8){ p[0], p[1], p[2], p[3], z, z, z, z };
		if (high)
			s1 += q;
		else
			s0 += q;
	}
	s0 += s1;
	sap_vf4 x = { s0[0], s0[1], s0[2], s0[3] }, y = { s0[4], s0[5], s0[6], s0[7] };
	x += y;
	return (x[0] + x[2]) + (x[1] + x[3]);
}

/* The same for doubles: 8 lanes, the last terms by 4, 2, then one. */
SAP_LANES_INLINE double sap_dot_d(const double *a, const double *b, int64_t n)
{
	const double z = -0.0;
	sap_vd4 s0 = { 0 }, s1 = { 0 };
	int64_t k = 0;
	for (; k + 8 <= n; k += 8) {
		sap_vd4 x0, x1, y0, y1;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 4, sizeof x1);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 4, sizeof y1);
		s0 += x0 * y0;
		s1 += x1 * y1;
	}
	int high = 0;
	if (k + 4 <= n) {
		sap_vd4 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		s0 += x * y;
		k += 4;
		high = 1;
	}
	int upper = 0;
	if (k + 2 <= n) {
		sap_vd2 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		sap_vd2 p = x * y;
		sap_vd4 q = { p[0], p[1], z, z };
		if (high)
			s1 += q;
		else
			s0 += q;
		k += 2;
		upper = 1;
	}
	if (k < n) {            /* the one term left */
		double t = a[k] * b[k];
		sap_vd4 q = upper ? (sap_vd4){ z, z, t, z } : (sap_vd4){ t, z, z, z };
		if (high)
			s1 += q;
		else
			s0 += q;
	}
	s0 += s1;
	return (s0[0] + s0[2]) + (s0[1] + s0[3]);
}
#else
SAP_LANES_INLINE float sap_dot_f(const float *a, const float *b, int64_t n)
{
	const float z = -0.0f;
	sap_vf4 s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
	int64_t k = 0;
	for (; k + 16 <= n; k += 16) {
		sap_vf4 x0, x1, x2, x3, y0, y1, y2, y3;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 4, sizeof x1);
		memcpy(&x2, a + k + 8, sizeof x2);
		memcpy(&x3, a + k + 12, sizeof x3);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 4, sizeof y1);
		memcpy(&y2, b + k + 8, sizeof y2);
		memcpy(&y3, b + k + 12, sizeof y3);
		s0 += x0 * y0;
		s1 += x1 * y1;
		s2 += x2 * y2;
		s3 += x3 * y3;
	}
	int q = 0;              /* the next terms' lanes: 4 q, 4 q + 1, ... */
	if (k + 8 <= n) {
		sap_vf4 x0, x1, y0, y1;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 4, sizeof x1);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 4, sizeof y1);
		s0 += x0 * y0;
		s1 += x1 * y1;
		k += 8;
		q = 2;
	}
	if (k + 4 <= n) {
		sap_vf4 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		if (q == 0)
			s0 += x * y;
		else
			s2 += x * y;
		k += 4;
		q++;
	}
	if (k < n) {            /* 1 to 3 terms */
		sap_vf4 p = { a[k] * b[k], z, z, z };
		if (k + 1 < n)
			p[1] = a[k + 1] * b[k + 1];
		if (k + 2 < n)
			p[2] = a[k + 2] * b[k + 2];
		switch (q) {
		case 0: s0 += p; break;
		case 1: s1 += p; break;
		case 2: s2 += p; break;
		default: s3 += p; break;
		}
	}
	s0 += s2;
	s1 += s3;
	s0 += s1;
	return (s0[0] + s0[2]) + (s0[1] + s0[3]);
}

SAP_LANES_INLINE double sap_dot_d(const double *a, const double *b, int64_t n)
{
	const double z = -0.0;
	sap_vd2 s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
	int64_t k = 0;
	for (; k + 8 <= n; k += 8) {
		sap_vd2 x0, x1, x2, x3, y0, y1, y2, y3;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 2, sizeof x1);
		memcpy(&x2, a + k + 4, sizeof x2);
		memcpy(&x3, a + k + 6, sizeof x3);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 2, sizeof y1);
		memcpy(&y2, b + k + 4, sizeof y2);
		memcpy(&y3, b + k + 6, sizeof y3);
		s0 += x0 * y0;
		s1 += x1 * y1;
		s2 += x2 * y2;
		s3 += x3 * y3;
	}
	int q = 0;              /* the next terms' lanes: 2 q, 2 q + 1 */
	if (k + 4 <= n) {
		sap_vd2 x0, x1, y0, y1;
		memcpy(&x0, a + k, sizeof x0);
		memcpy(&x1, a + k + 2, sizeof x1);
		memcpy(&y0, b + k, sizeof y0);
		memcpy(&y1, b + k + 2, sizeof y1);
		s0 += x0 * y0;
		s1 += x1 * y1;
		k += 4;
		q = 2;
	}
	if (k + 2 <= n) {
		sap_vd2 x, y;
		memcpy(&x, a + k, sizeof x);
		memcpy(&y, b + k, sizeof y);
		if (q == 0)
			s0 += x * y;
		else
			s2 += x * y;
		k += 2;
		q++;
	}
	if (k < n) {            /* the one term left */
		sap_vd2 p = { a[k] * b[k], z };
		switch (q) {
		case 0: s0 += p; break;
		case 1: s1 += p; break;
		case 2: s2 += p; break;
		default: s3 += p; break;
		}
	}
	s0 += s2;
	s1 += s3;
	return (s0[0] + s1[0]) + (s0[1] + s1[1]);
}
#endif
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
