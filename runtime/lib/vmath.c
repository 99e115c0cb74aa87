/* vmath.c: the standard library's numerics: the sigmoid table, softmax,
 * gemv/ger on a dvector of rows and gemm on matrices of rows, through
 * OpenBLAS.
 */
#include <math.h>
#include <string.h>
#include <cblas.h>
#include "sap-int.h"

float sap_sigmoid_tab[SAP_SIGMOID_N];

/* OpenBLAS's pthreads build starts a thread per core when it is loaded,
 * which waits for work spinning in sched_yield for about 0.1 s: on the
 * cores where the workers are loading the data, a tenth of a core's
 * second taken from a program of one.  The workers are the program's
 * threads, and a BLAS call runs in one of them on that thread alone, so
 * OpenBLAS's threads stop before main: blas_thread_shutdown_ is what
 * OpenBLAS calls before a fork.  Weak, since other BLAS builds need not
 * have it; one thread, or the next BLAS call would start them again. */
extern int blas_thread_shutdown_(void) __attribute__((weak));

__attribute__((constructor)) static void blas_one_thread(void)
{
	openblas_set_num_threads(1);
	if (blas_thread_shutdown_)
		blas_thread_shutdown_();
}

void sap_vmath_init(void)
{
	for (int i = 0; i < SAP_SIGMOID_N; i++) {
		double x = ((double)i / SAP_SIGMOID_N * 2 - 1) * SAP_SIGMOID_MAX;
		sap_sigmoid_tab[i] = (float)(1 / (1 + exp(-x)));
	}
}

/* The sum in the lane order of sap_dot_f and sap_dot_d. */
void sap_softmax_f(float *a, int64_t n)
{
	float mx = a[0], s[SAP_LANES_F] = {0};
	for (int64_t k = 1; k < n; k++)
		mx = a[k] > mx ? a[k] : mx;
	for (int64_t k = 0; k < n; k++)
		s[k % SAP_LANES_F] += a[k] = expf(a[k] - mx);
	float sum = sap_lanes_f(s);
	for (int64_t k = 0; k < n; k++)
		a[k] /= sum;
}

void sap_softmax_d(double *a, int64_t n)
{
	double mx = a[0], s[SAP_LANES_D] = {0};
	for (int64_t k = 1; k < n; k++)
		mx = a[k] > mx ? a[k] : mx;
	for (int64_t k = 0; k < n; k++)
		s[k % SAP_LANES_D] += a[k] = exp(a[k] - mx);
	double sum = sap_lanes_d(s);
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

/* ---- gemm ---- */

static void too_large(const sap_mat *m, const sap_site *s)
{
	if (m->rows > INT32_MAX / 2 || m->cols > INT32_MAX / 2)
		sap_fatal(s, "gemm: '%s' is too large for BLAS", m->name);
}

static void same_rows(const sap_mat *a, const char *what, int64_t want, const sap_mat *b,
                      const sap_site *s)
{
	if (a->rows != want)
		sap_fatal(s, "gemm: '%s' has %lld rows, but needs %lld, %s '%s'", a->name,
		          (long long)a->rows, (long long)want, what, b->name);
}

/* A row of a as long as b has rows; none of the three too large. */
static void fits(const sap_mat *a, const sap_mat *b, const sap_mat *c, const sap_site *s)
{
	if (a->cols != b->rows)
		sap_fatal(s, "gemm: a row of '%s' has %lld numbers, but '%s' has %lld rows", a->name,
		          (long long)a->cols, b->name, (long long)b->rows);
	too_large(a, s);
	too_large(b, s);
	too_large(c, s);
}

/* Z's rows, after fitting a list Z to X. */
static void gemm_shape(sap_mat *z, sap_list *fit, size_t scalar, const sap_mat *x,
                       const sap_mat *w, const sap_site *s)
{
	if (fit) {
		size_t row = (size_t)z->cols * scalar;
		if (x->rows > fit->n) {
			sap_list_grow(fit, x->rows, row);
			memset((char *)fit->v + (size_t)fit->n * row, 0, (size_t)(x->rows - fit->n) * row);
		}
		fit->n = x->rows;
		z->v = fit->v;
		z->rows = x->rows;
	}
	same_rows(z, "one per row of", x->rows, x, s);
	fits(z, w, x, s);
}

static void upd_shape(const sap_mat *w, const sap_mat *g, const sap_mat *x, const sap_site *s)
{
	same_rows(x, "as many as", g->rows, g, s);
	fits(g, w, x, s);
}

/* One sgemm or dgemm, row-major; alpha and beta as doubles hold a float's
 * value exactly. */
static void blas_gemm(bool dbl, bool ta, bool tb, const sap_mat *c, int64_t k, double alpha,
                      const sap_mat *a, const sap_mat *b, double beta)
{
	if (!c->rows || !c->cols || !k)
		return;
	enum CBLAS_TRANSPOSE A = ta ? CblasTrans : CblasNoTrans, B = tb ? CblasTrans : CblasNoTrans;
	if (dbl)
		cblas_dgemm(CblasRowMajor, A, B, (blasint)c->rows, (blasint)c->cols, (blasint)k, alpha,
		            a->v, (blasint)a->cols, b->v, (blasint)b->cols, beta, c->v,
		            (blasint)c->cols);
	else
		cblas_sgemm(CblasRowMajor, A, B, (blasint)c->rows, (blasint)c->cols, (blasint)k,
		            (float)alpha, a->v, (blasint)a->cols, b->v, (blasint)b->cols, (float)beta,
		            c->v, (blasint)c->cols);
}

/* Z = X W^T */
void sap_gemm_f(sap_mat z, sap_list *fit, sap_mat x, sap_mat w, const sap_site *s)
{
	gemm_shape(&z, fit, sizeof(float), &x, &w, s);
	blas_gemm(false, false, true, &z, x.cols, 1, &x, &w, 0);
}

void sap_gemm_d(sap_mat z, sap_list *fit, sap_mat x, sap_mat w, const sap_site *s)
{
	gemm_shape(&z, fit, sizeof(double), &x, &w, s);
	blas_gemm(true, false, true, &z, x.cols, 1, &x, &w, 0);
}

/* W += a G^T X */
void sap_gemm_upd_f(sap_mat w, float a, sap_mat g, sap_mat x, const sap_site *s)
{
	upd_shape(&w, &g, &x, s);
	blas_gemm(false, true, false, &w, x.rows, a, &g, &x, 1);
}

void sap_gemm_upd_d(sap_mat w, double a, sap_mat g, sap_mat x, const sap_site *s)
{
	upd_shape(&w, &g, &x, s);
	blas_gemm(true, true, false, &w, x.rows, a, &g, &x, 1);
}
