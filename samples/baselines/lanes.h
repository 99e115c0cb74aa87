/* lanes.h: the sums of sapc's dot() and softmax(), for the serial C twins.
 *
 * sap(7), "Floating-point arithmetic": a float sum runs in 16 lanes, a
 * double sum in 8; term k goes into lane k % L, each lane adds its terms
 * in index order starting from +0, and the lanes are added as a halving
 * tree, lane l taking lane l + h for h = L/2, L/4, ... 1.  This is the
 * code of runtime/sap.h (sap_dot_f, sap_dot_d), so a twin computes the
 * same bits as the SAP program; gcc vectorizes it without -ffast-math. */
#ifndef LANES_H
#define LANES_H

static inline float lanes_sum_f(float *s)
{
	for (int l = 0; l < 8; l++)
		s[l] += s[l + 8];
	for (int l = 0; l < 4; l++)
		s[l] += s[l + 4];
	for (int l = 0; l < 2; l++)
		s[l] += s[l + 2];
	return s[0] + s[1];
}

static inline double lanes_sum_d(double *s)
{
	for (int l = 0; l < 4; l++)
		s[l] += s[l + 4];
	for (int l = 0; l < 2; l++)
		s[l] += s[l + 2];
	return s[0] + s[1];
}

static inline float lanes_dot_f(const float *a, const float *b, long n)
{
	float s[16] = {0};
	long k = 0;
	for (; k + 16 <= n; k += 16)
		for (int l = 0; l < 16; l++)
			s[l] += a[k + l] * b[k + l];
	for (int l = 0; k + l < n; l++)
		s[l] += a[k + l] * b[k + l];
	return lanes_sum_f(s);
}

static inline double lanes_dot_d(const double *a, const double *b, long n)
{
	double s[8] = {0};
	long k = 0;
	for (; k + 8 <= n; k += 8)
		for (int l = 0; l < 8; l++)
			s[l] += a[k + l] * b[k + l];
	for (int l = 0; k + l < n; l++)
		s[l] += a[k + l] * b[k + l];
	return lanes_sum_d(s);
}

#endif
