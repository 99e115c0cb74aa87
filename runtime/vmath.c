/* vmath.c: the standard library's numerics: the sigmoid table, softmax,
 * and gemv/ger on a dvector of rows through OpenBLAS.
 */
#include <math.h>
#include <cblas.h>
#include "sap-int.h"

float sap_sigmoid_tab[SAP_SIGMOID_N];

void sap_vmath_init(void)
{
	for (int i = 0; i < SAP_SIGMOID_N; i++) {
		double x = ((double)i / SAP_SIGMOID_N * 2 - 1) * SAP_SIGMOID_MAX;
		sap_sigmoid_tab[i] = (float)(1 / (1 + exp(-x)));
	}
	/* The workers are the program's threads; a BLAS call inside one must
	 * not start threads of its own on the same cores. */
	openblas_set_num_threads(1);
}

void sap_softmax_f(float *a, int64_t n)
{
	float mx = a[0], sum = 0;
	for (int64_t k = 1; k < n; k++)
		mx = a[k] > mx ? a[k] : mx;
	for (int64_t k = 0; k < n; k++)
		sum += a[k] = expf(a[k] - mx);
	for (int64_t k = 0; k < n; k++)
		a[k] /= sum;
}

void sap_softmax_d(double *a, int64_t n)
{
	double mx = a[0], sum = 0;
	for (int64_t k = 1; k < n; k++)
		mx = a[k] > mx ? a[k] : mx;
	for (int64_t k = 0; k < n; k++)
		sum += a[k] = exp(a[k] - mx);
	for (int64_t k = 0; k < n; k++)
		a[k] /= sum;
}

/* The rows of W, checked against the m a gemv or ger expects. */
static void rows(const sap_dvec *w, int64_t m, const char *what, const sap_site *s)
{
	if (w->n != m)
		sap_fatal(s, "%s: '%s' has %lld rows, but the vector has %lld elements", what,
		          w->name, (long long)w->n, (long long)m);
	if (m > INT32_MAX / 2)
		sap_fatal(s, "%s: '%s' is too large for BLAS", what, w->name);
}

void sap_gemv_f(float *y, int64_t m, const sap_dvec *w, const void *wdata, const float *x,
                int64_t n, const sap_site *s)
{
	rows(w, m, "gemv", s);
	cblas_sgemv(CblasRowMajor, CblasNoTrans, (blasint)m, (blasint)n, 1, wdata, (blasint)n,
	            x, 1, 0, y, 1);
}

void sap_gemv_d(double *y, int64_t m, const sap_dvec *w, const void *wdata, const double *x,
                int64_t n, const sap_site *s)
{
	rows(w, m, "gemv", s);
	cblas_dgemv(CblasRowMajor, CblasNoTrans, (blasint)m, (blasint)n, 1, wdata, (blasint)n,
	            x, 1, 0, y, 1);
}

void sap_ger_f(const sap_dvec *w, void *wdata, float a, const float *y, int64_t m,
               const float *x, int64_t n, const sap_site *s)
{
	rows(w, m, "ger", s);
	cblas_sger(CblasRowMajor, (blasint)m, (blasint)n, a, y, 1, x, 1, wdata, (blasint)n);
}

void sap_ger_d(const sap_dvec *w, void *wdata, double a, const double *y, int64_t m,
               const double *x, int64_t n, const sap_site *s)
{
	rows(w, m, "ger", s);
	cblas_dger(CblasRowMajor, (blasint)m, (blasint)n, a, y, 1, x, 1, wdata, (blasint)n);
}
