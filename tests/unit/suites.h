/* One check suite per component; tests/unit/main.c runs them all. */
#ifndef SUITES_H
#define SUITES_H
#include <check.h>

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
