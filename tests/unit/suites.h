/* One check suite per component; tests/unit/main.c runs them all. */
#ifndef SUITES_H
#define SUITES_H
#include <check.h>

/* check's ck_assert_msg (and every ck_assert_* built on it) records each
 * passing assertion's place with the parent process, a write(2) each in
 * fork mode: the plan checks assert per element, 13 million writes in
 * all, 36 s of the suites' run here and fifteen minutes under ASan.  The
 * same assertion without the record on success: a failure is reported as
 * before; a crash names the test, not the last assertion passed. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
	((expr) ? (void)0 : \
	 _ck_assert_failed(__FILE__, __LINE__, "Assertion '"#expr"' failed" , ## __VA_ARGS__))

Suite *lexer_suite(void);
Suite *parser_suite(void);
Suite *types_suite(void);
Suite *rng_suite(void);
Suite *dmap_suite(void);
Suite *load_suite(void);
Suite *sched_suite(void);
Suite *async_suite(void);
Suite *hold_suite(void);
Suite *vmath_suite(void);
Suite *arith_suite(void);
Suite *comm_suite(void);
Suite *ckpt_suite(void);

#endif
