/* Unit tests of the mini-batch a sync for body sees (runtime/sync/sync.c) and
 * of gemm on matrices of rows (runtime/lib/vmath.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"
#include "suites.h"

/* Consecutive iterations are a view of the vector's storage; others are
 * gathered, in the order given, into a list sap_sync_batch_done frees. */
START_TEST(batch_view_and_gather)
{
	sap_dvec v;
	sap_dv_create(&v, "v", 10, sizeof(int64_t), NULL);
	for (int64_t k = 0; k < 10; k++)
		((int64_t *)v.data)[k] = 100 + k;

	sap_list b = sap_sync_batch(&v, NULL, NULL, 2, 5);
	ck_assert_ptr_eq(b.v, v.data + 2 * sizeof(int64_t));
	ck_assert_int_eq(b.n, 3);
	ck_assert_int_eq(b.cap, 0);
	sap_sync_batch_done(&b);

	const int64_t run[] = { 9, 3, 4, 5, 9 };
	b = sap_sync_batch(&v, NULL, run, 1, 4);
	ck_assert_ptr_eq(b.v, v.data + 3 * sizeof(int64_t));
	ck_assert_int_eq(b.n, 3);
	sap_sync_batch_done(&b);

	const int64_t scattered[] = { 7, 1, 8, 2 };
	b = sap_sync_batch(&v, NULL, scattered, 0, 4);
	ck_assert_int_eq(b.n, 4);
	ck_assert_int_ne(b.cap, 0);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(((int64_t *)b.v)[k], 100 + scattered[k]);
	((int64_t *)b.v)[0] = -1;       /* a copy: the vector keeps its value */
	ck_assert_int_eq(((int64_t *)v.data)[7], 107);
	sap_sync_batch_done(&b);
	sap_dv_free(&v);
}
END_TEST

/* Small integers, so that any order of the sums gives the same floats. */
static void fill(float *a, int64_t n, int seed)
{
	for (int64_t k = 0; k < n; k++)
		a[k] = (float)((k * 7 + seed * 3) % 9 - 4);
}

/* Z = X W^T on shapes no kernel has a special case for, into a list that
 * first has more rows than X and then fewer; and W += a G^T X. */
START_TEST(gemm_against_loops)
{
	sap_vmath_init();       /* OpenBLAS on one thread */
	enum { M = 37, N = 53, R = 11 };
	float *x = malloc(M * N * sizeof *x), *w = malloc(R * N * sizeof *w);
	fill(x, M * N, 1);
	fill(w, R * N, 2);
	for (int start = 50; start >= 5; start -= 45) {
		sap_list z = { 0 };
		sap_list_grow(&z, start, R * sizeof(float));
		z.n = start;
		memset(z.v, 0x7f, (size_t)start * R * sizeof(float));
		sap_gemm_f((sap_mat){ NULL, 0, R, "Z" }, &z, (sap_mat){ x, M, N, "X" },
		           (sap_mat){ w, R, N, "W" }, NULL);
		ck_assert_int_eq(z.n, M);
		for (int i = 0; i < M; i++)
			for (int r = 0; r < R; r++) {
				float s = 0;
				for (int k = 0; k < N; k++)
					s += x[i * N + k] * w[r * N + k];
				ck_assert_float_eq(((float *)z.v)[i * R + r], s);
			}
		sap_list_free(&z);
	}

	float *g = malloc(M * R * sizeof *g), *want = malloc(R * N * sizeof *want);
	fill(g, M * R, 3);
	for (int r = 0; r < R; r++)
		for (int k = 0; k < N; k++) {
			float s = w[r * N + k];
			for (int i = 0; i < M; i++)
				s += -2 * g[i * R + r] * x[i * N + k];
			want[r * N + k] = s;
		}
	sap_gemm_upd_f((sap_mat){ w, R, N, "W" }, -2, (sap_mat){ g, M, R, "G" },
	               (sap_mat){ x, M, N, "X" }, NULL);
	ck_assert_mem_eq(w, want, R * N * sizeof *w);
	free(x);
	free(w);
	free(g);
	free(want);
}
END_TEST

START_TEST(gemm_double)
{
	double x[2][3] = { { 1, 2, 3 }, { -1, 0, 2 } }, w[2][3] = { { 1, 0, -1 }, { 2, 2, 2 } };
	double z[2][2];
	sap_gemm_d((sap_mat){ z, 2, 2, "Z" }, NULL, (sap_mat){ x, 2, 3, "X" },
	           (sap_mat){ w, 2, 3, "W" }, NULL);
	ck_assert_double_eq(z[0][0], -2);
	ck_assert_double_eq(z[0][1], 12);
	ck_assert_double_eq(z[1][0], -3);
	ck_assert_double_eq(z[1][1], 2);
	sap_gemm_upd_d((sap_mat){ w, 2, 3, "W" }, 0.5, (sap_mat){ z, 2, 2, "G" },
	               (sap_mat){ x, 2, 3, "X" }, NULL);
	/* w[0] += 0.5 (z[0][0] x[0] + z[1][0] x[1]) = 0.5 (-2 x[0] - 3 x[1]) */
	ck_assert_double_eq(w[0][0], 1 + 0.5 * (-2 + 3));
	ck_assert_double_eq(w[0][2], -1 + 0.5 * (-6 - 6));
	ck_assert_double_eq(w[1][1], 2 + 0.5 * (12 * 2 + 0));
}
END_TEST

/* A Z whose rows do not match W's rows is a run-time error. */
START_TEST(gemm_mismatch)
{
	float x[2][3] = { { 0 } }, w[4][3] = { { 0 } }, z[2][3];
	sap_gemm_f((sap_mat){ z, 2, 3, "Z" }, NULL, (sap_mat){ x, 2, 3, "X" },
	           (sap_mat){ w, 4, 3, "W" }, NULL);
}
END_TEST

/* So is an X with other rows than G in an update. */
START_TEST(gemm_upd_mismatch)
{
	float x[3][2] = { { 0 } }, w[4][2] = { { 0 } }, g[2][4] = { { 0 } };
	sap_gemm_upd_f((sap_mat){ w, 4, 2, "W" }, 1, (sap_mat){ g, 2, 4, "G" },
	               (sap_mat){ x, 3, 2, "X" }, NULL);
}
END_TEST


/* The lane order of sap(7) written another way: lane l is the sum of
 * terms l, l + L, l + 2L ... from +0; the tree adds the two halves of
 * the lanes' sums, each half a tree itself, the lower half first. */
static float tree_f(const float *lane, int w, int stride)
{
	if (w == 1)
		return lane[0];
	return tree_f(lane, w / 2, stride * 2) + tree_f(lane + stride, w / 2, stride * 2);
}

static double tree_d(const double *lane, int w, int stride)
{
	if (w == 1)
		return lane[0];
	return tree_d(lane, w / 2, stride * 2) + tree_d(lane + stride, w / 2, stride * 2);
}

/* Values spread over many magnitudes, so that another order of the sum
 * would give other bits. */
static double spread(uint64_t *x)
{
	*x = *x * 6364136223846793005u + 1442695040888963407u;
	int e = (int)(*x >> 59) - 16;
	double m = (double)((*x >> 11) & 0xfffff) / 1048576.0 - 0.5;
	return ldexp(m, e);
}

START_TEST(dot_lane_order)
{
	enum { N = 70 };
	float af[N], bf[N];
	double ad[N], bd[N];
	uint64_t x = 42;
	for (int k = 0; k < N; k++) {
		af[k] = (float)spread(&x);
		bf[k] = (float)spread(&x);
		ad[k] = spread(&x);
		bd[k] = spread(&x);
	}
	int differs = 0;
	for (int n = 0; n <= N; n++) {
		float lf[SAP_LANES_F] = {0}, strict_f = 0;
		double ld[SAP_LANES_D] = {0};
		for (int k = 0; k < n; k++) {
			lf[k % SAP_LANES_F] += af[k] * bf[k];
			ld[k % SAP_LANES_D] += ad[k] * bd[k];
			strict_f += af[k] * bf[k];
		}
		float want_f = tree_f(lf, SAP_LANES_F, 1);
		double want_d = tree_d(ld, SAP_LANES_D, 1);
		float got_f = sap_dot_f(af, bf, n);
		double got_d = sap_dot_d(ad, bd, n);
		ck_assert_msg(memcmp(&got_f, &want_f, sizeof got_f) == 0,
		              "float n=%d: %a, want %a", n, got_f, want_f);
		ck_assert_msg(memcmp(&got_d, &want_d, sizeof got_d) == 0,
		              "double n=%d: %a, want %a", n, got_d, want_d);
		differs += got_f != strict_f;
	}
	/* The data tell the lane order from index order. */
	ck_assert_int_gt(differs, N / 2);

	/* One that cancels: index order loses the 1 to rounding. */
	const float c[3] = { 1e8f, 1, -1e8f }, one[3] = { 1, 1, 1 };
	ck_assert(sap_dot_f(c, one, 3) == 1.0f);
}
END_TEST

/* softmax sums in the same lanes. */
START_TEST(softmax_lane_order)
{
	enum { N = 37 };
	float a[N], e[N], lane[SAP_LANES_F] = {0};
	uint64_t x = 7;
	for (int k = 0; k < N; k++)
		a[k] = (float)spread(&x) * 64;
	float mx = a[0];
	for (int k = 1; k < N; k++)
		mx = a[k] > mx ? a[k] : mx;
	for (int k = 0; k < N; k++)
		lane[k % SAP_LANES_F] += e[k] = expf(a[k] - mx);
	float sum = tree_f(lane, SAP_LANES_F, 1);
	sap_softmax_f(a, N);
	for (int k = 0; k < N; k++) {
		float want = e[k] / sum;
		ck_assert_msg(memcmp(&a[k], &want, sizeof want) == 0, "k=%d: %a, want %a", k, a[k],
		              want);
	}
}
END_TEST


/* accumulate's buffers: a freed one is kept and comes back zeroed, for
 * its size only, -0.0 where its type has floats (fresh or kept); a large
 * sap_acc_add is the same sums in parts. */
START_TEST(acc_buffers)
{
	enum { N = 300000 };
	static const sap_numfield f = { .off = 0, .n = 1, .kind = SAP_S_DOUBLE };
	sap_numtype t = { .size = sizeof(double), .nf = 1, .f = &f };
	double *a = sap_acc_alloc(N, sizeof *a, NULL);
	for (int64_t k = 0; k < N; k++)
		ck_assert(a[k] == 0 && !signbit(a[k]));
	for (int64_t k = 0; k < N; k++)
		a[k] = (double)k + 0.5;
	sap_acc_free(a);
	double *b = sap_acc_alloc(N, sizeof *b, NULL);
	ck_assert_ptr_eq(b, a);         /* kept, and zeroed again */
	for (int64_t k = 0; k < N; k++)
		ck_assert(b[k] == 0 && !signbit(b[k]));
	float *c = sap_acc_alloc(N, sizeof *c, NULL);
	ck_assert_ptr_ne(c, b);
	double *x = sap_acc_alloc(N, sizeof *x, &t);
	for (int64_t k = 0; k < N; k++)
		ck_assert(x[k] == 0 && signbit(x[k]));
	for (int64_t k = 0; k < N; k++) {
		b[k] = (double)k / 3;
		x[k] = (double)(N - k) / 7;
	}
	sap_acc_add(&t, b, x, N);
	for (int64_t k = 0; k < N; k++)
		ck_assert(b[k] == (double)k / 3 + (double)(N - k) / 7);
	sap_acc_free(x);
	double *y = sap_acc_alloc(N, sizeof *y, &t);
	ck_assert_ptr_eq(y, x);         /* kept, and -0.0 again */
	for (int64_t k = 0; k < N; k++)
		ck_assert(y[k] == 0 && signbit(y[k]));
	sap_acc_free(b);
	sap_acc_free(c);
	sap_acc_free(y);
}
END_TEST

/* The merge arithmetic (runtime/dds/merge.c) runs sixteen bytes at a time
 * and then one by one: every operation gives, bit for bit, what one
 * scalar at a time gives, at every length and on signed zeros,
 * infinities and NaNs (a change of -0.0 where the bits are the same). */
static uint32_t bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

START_TEST(merge_kernels)
{
	static const sap_numfield f = { .off = 0, .n = 1, .kind = SAP_S_FLOAT };
	sap_numtype t = { .size = sizeof(float), .nf = 1, .f = &f };
	const float sp[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.5f, -2.25f, 1e-40f };
	enum { N = 37, NS = sizeof sp / sizeof *sp };
	float a[N], b[N], v[N], r[N];
	for (int n = 0; n <= N; n++)
		for (int op = 0; op < 5; op++) {
			for (int i = 0; i < N; i++) {
				a[i] = sp[(i * 3 + n) % NS];
				b[i] = i % 4 == 0 ? a[i] : sp[(i * 5 + op) % NS] + (float)i;
				v[i] = r[i] = sp[(i + op) % NS] - (float)n;
			}
			switch (op) {
			case 0:
				sap_sc_sub(&t, v, a, n);
				for (int i = 0; i < n; i++)
					r[i] = bits(r[i]) == bits(a[i]) ? -0.0f : r[i] - a[i];
				break;
			case 1:
				sap_sc_delta(&t, v, b, a, n);
				for (int i = 0; i < n; i++)
					r[i] += bits(b[i]) == bits(a[i]) ? -0.0f : b[i] - a[i];
				break;
			case 2:
				sap_sc_add(&t, v, a, n);
				for (int i = 0; i < n; i++)
					r[i] += a[i];
				break;
			case 3:
				sap_sc_div(&t, v, n, 3);
				for (int i = 0; i < n; i++)
					r[i] /= 3.0f;
				break;
			default: {
				sap_syncdds w = { .num = &t, .merge = SAP_M_AVG };
				sap_sc_merge(&w, v, a, b, n, 3);
				for (int i = 0; i < n; i++)
					r[i] = a[i] + b[i] / 3.0f;
			}
			}
			for (int i = 0; i < N; i++)
				ck_assert_msg(bits(v[i]) == bits(r[i]), "op %d, n %d, [%d]: %a, not %a",
				              op, n, i, (double)v[i], (double)r[i]);
		}
	/* -0.0 where the bits are the same, NaN's included */
	float x[4] = { NAN, 0.0f, -0.0f, 1 }, y[4] = { NAN, -0.0f, 0.0f, 1 };
	sap_sc_sub(&t, x, y, 4);
	ck_assert_uint_eq(bits(x[0]), bits(-0.0f));
	ck_assert_uint_eq(bits(x[1]), bits(0.0f));
	ck_assert_uint_eq(bits(x[2]), bits(-0.0f));
	ck_assert_uint_eq(bits(x[3]), bits(-0.0f));
}
END_TEST

Suite *vmath_suite(void)
{
	Suite *s = suite_create("vmath");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, batch_view_and_gather);
	tcase_add_test(tc, gemm_against_loops);
	tcase_add_test(tc, gemm_double);
	tcase_add_test(tc, dot_lane_order);
	tcase_add_test(tc, softmax_lane_order);
	tcase_add_test(tc, acc_buffers);
	tcase_add_test(tc, merge_kernels);
	tcase_add_exit_test(tc, gemm_mismatch, 1);
	tcase_add_exit_test(tc, gemm_upd_mismatch, 1);
	suite_add_tcase(s, tc);
	return s;
}
