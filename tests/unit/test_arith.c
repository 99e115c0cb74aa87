/* Unit tests of the arithmetic helpers in sap.h that generated code calls
 * for /, %, abs, min, max and integer dot: where C is undefined (the most
 * negative integer divided by -1 or negated, sums that overflow) they must
 * wrap as the language's -fwrapv arithmetic does, and a zero divisor must
 * stop the program with the message at the site. */
#include <limits.h>
#include <math.h>
#include "sap.h"
#include "suites.h"

static const sap_site site = { "t.sap", 3, 7 };

START_TEST(div_mod_wrap)
{
	ck_assert_int_eq(sap_div_i32(INT32_MIN, -1, &site), INT32_MIN);
	ck_assert_int_eq(sap_div_i64(INT64_MIN, -1, &site), INT64_MIN);
	ck_assert_int_eq(sap_mod_i32(INT32_MIN, -1, &site), 0);
	ck_assert_int_eq(sap_mod_i64(INT64_MIN, -1, &site), 0);
	/* C's truncation toward zero, not floor */
	ck_assert_int_eq(sap_div_i32(-7, 2, &site), -3);
	ck_assert_int_eq(sap_mod_i32(-7, 2, &site), -1);
	ck_assert_int_eq(sap_div_i64(7, -2, &site), -3);
	ck_assert_int_eq(sap_mod_i64(7, -2, &site), 1);
	ck_assert_int_eq(sap_div_i32(5, -1, &site), -5);
}
END_TEST

START_TEST(div_by_zero)
{
	(void)sap_div_i32(1, 0, &site);
}
END_TEST

START_TEST(mod_by_zero)
{
	(void)sap_mod_i64(1, 0, &site);
}
END_TEST

START_TEST(abs_min_max)
{
	ck_assert_int_eq(sap_abs_i32(INT32_MIN), INT32_MIN);
	ck_assert_int_eq(sap_abs_i64(INT64_MIN), INT64_MIN);
	ck_assert_int_eq(sap_abs_i32(-5), 5);
	ck_assert_int_eq(sap_abs_i64(-5), 5);
	ck_assert(signbit(sap_abs_d(-0.0)) == 0);
	ck_assert(sap_abs_f(-2.5f) == 2.5f);
	ck_assert_int_eq(sap_min_i32(-1, 1), -1);
	ck_assert_int_eq(sap_max_i64(INT64_MIN, 0), 0);
	ck_assert(sap_min_d(1.0, 2.0) == 1.0);
	ck_assert(sap_max_f(1.0f, 2.0f) == 2.0f);
	/* The order of the operands does not matter: a NaN gives NaN, and
	 * of the zeros max takes 0 and min -0. */
	ck_assert(isnan(sap_min_d(NAN, 2.0)));
	ck_assert(isnan(sap_min_d(2.0, NAN)));
	ck_assert(isnan(sap_max_d(1.0, NAN)));
	ck_assert(isnan(sap_max_f(NAN, 1.0f)));
	ck_assert(signbit(sap_max_d(-0.0, 0.0)) == 0 && signbit(sap_max_d(0.0, -0.0)) == 0);
	ck_assert(signbit(sap_min_d(-0.0, 0.0)) != 0 && signbit(sap_min_d(0.0, -0.0)) != 0);
	ck_assert(signbit(sap_min_f(0.0f, -0.0f)) != 0 && signbit(sap_max_f(-0.0f, 0.0f)) == 0);
	ck_assert(sap_min_d(-3.0, -4.5) == -4.5 && sap_max_d(-3.0, -4.5) == -3.0);
}
END_TEST

/* sap_keys_clip against every k: the iterations of [lo, hi) whose key
 * a * k + b is in [0, n), as one interval, or empty at hi; and at the
 * ends of 64 bits. */
START_TEST(keys_clip)
{
	for (int64_t a = -3; a <= 3; a++)
		for (int64_t b = -12; b <= 12; b++)
			for (int64_t n = 0; n <= 8; n++)
				for (int64_t lo = -7; lo <= 7; lo++)
					for (int64_t hi = lo; hi <= 7; hi++) {
						int64_t l = lo, h = hi, first = INT64_MAX, last = INT64_MIN;
						sap_keys_clip(a, b, n, &l, &h);
						for (int64_t k = lo; k < hi; k++)
							if (a * k + b >= 0 && a * k + b < n) {
								first = k < first ? k : first;
								last = k;
							}
						if (first == INT64_MAX) {
							ck_assert_int_eq(l, hi);
							ck_assert_int_eq(h, hi);
						} else {
							ck_assert_int_eq(l, first);
							ck_assert_int_eq(h, last + 1);
						}
					}
	int64_t l = INT64_MIN, h = INT64_MAX;
	sap_keys_clip(INT64_MAX, 0, 10, &l, &h);
	ck_assert_int_eq(l, 0);
	ck_assert_int_eq(h, 1);
	l = INT64_MIN, h = INT64_MAX;
	sap_keys_clip(-1, INT64_MIN, INT64_MAX, &l, &h);
	ck_assert_int_eq(l, INT64_MIN);
	ck_assert_int_eq(h, INT64_MIN + 1);
	l = INT64_MIN, h = INT64_MAX;
	sap_keys_clip(-2, INT64_MAX, INT64_MAX, &l, &h);
	ck_assert_int_eq(l, 1);
	ck_assert_int_eq(h, INT64_MAX / 2 + 1);
}
END_TEST

START_TEST(dot_wraps)
{
	const int32_t a[] = { INT32_MAX, 1, -3 }, b[] = { 2, 5, 4 };
	/* 2 * INT32_MAX + 5 - 12 modulo 2^32 */
	ck_assert_int_eq(sap_dot_i32(a, b, 3), (int32_t)(2u * (uint32_t)INT32_MAX + 5u - 12u));
	const int64_t c[] = { INT64_MAX, 2 }, d[] = { 1, 1 };
	ck_assert_int_eq(sap_dot_i64(c, d, 2), INT64_MIN + 1);
	ck_assert_int_eq(sap_dot_i64(c, d, 0), 0);
}
END_TEST

Suite *arith_suite(void)
{
	Suite *s = suite_create("arith");
	TCase *tc = tcase_create("helpers");
	tcase_add_test(tc, div_mod_wrap);
	tcase_add_exit_test(tc, div_by_zero, 1);
	tcase_add_exit_test(tc, mod_by_zero, 1);
	tcase_add_test(tc, abs_min_max);
	tcase_add_test(tc, dot_wraps);
	tcase_add_test(tc, keys_clip);
	suite_add_tcase(s, tc);
	return s;
}
