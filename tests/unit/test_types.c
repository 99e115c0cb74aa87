/* Types: interning, names in messages, C's arithmetic conversions, and
 * the properties the emitter relies on. */
#include "suites.h"
#include "sapc.h"

START_TEST(interned)
{
	ck_assert_ptr_eq(ty_array(ty_float, 16), ty_array(ty_float, 16));
	ck_assert_ptr_ne(ty_array(ty_float, 16), ty_array(ty_float, 8));
	ck_assert_ptr_eq(ty_dvec(ty_array(ty_float, 4)), ty_dvec(ty_array(ty_float, 4)));
	ck_assert_ptr_ne(ty_dmap(ty_int, ty_float, false), ty_dmap(ty_int, ty_float, true));
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(ty_str(ty_array(ty_array(ty_float, 4), 3)), "float[3][4]");
	ck_assert_str_eq(ty_str(ty_dvec(ty_list(ty_string))), "dvector<list<string>>");
	ck_assert_str_eq(ty_str(ty_dmap(ty_long, ty_double, true)), "dmultimap<long, double>");
	ck_assert_str_eq(ty_array(ty_float, 16)->cname, "sap_float_16");
}
END_TEST

START_TEST(arithmetic)
{
	ck_assert_ptr_eq(ty_arith(ty_int, ty_long), ty_long);
	ck_assert_ptr_eq(ty_arith(ty_long, ty_float), ty_float);
	ck_assert_ptr_eq(ty_arith(ty_float, ty_double), ty_double);
	ck_assert_ptr_eq(ty_arith(ty_bool, ty_bool), ty_int);
}
END_TEST

START_TEST(properties)
{
	ck_assert(ty_is_numarray(ty_array(ty_double, 2)));
	ck_assert(!ty_is_numarray(ty_array(ty_string, 2)));
	ck_assert(ty_needs_drop(ty_list(ty_int)));
	ck_assert(ty_needs_drop(ty_array(ty_list(ty_int), 2)));
	ck_assert(!ty_needs_drop(ty_array(ty_float, 2)));
	ck_assert(ty_has_dds(ty_dvec(ty_int)));
	ck_assert_int_eq(ty_ncomp(ty_array(ty_array(ty_float, 4), 3)), 12);
	ck_assert_int_eq(ty_ncomp(ty_int), 0);
}
END_TEST

Suite *types_suite(void)
{
	Suite *s = suite_create("types");
	TCase *tc = tcase_create("types");
	tcase_add_test(tc, interned);
	tcase_add_test(tc, names);
	tcase_add_test(tc, arithmetic);
	tcase_add_test(tc, properties);
	suite_add_tcase(s, tc);
	return s;
}
