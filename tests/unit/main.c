/* The unit-test runner: every component's suite in one SRunner.  The
 * runtime is linked with its single-process communication layer and never
 * with MPI, so check may fork each test. */
#include <stdlib.h>
#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(lexer_suite());
	srunner_add_suite(sr, parser_suite());
	srunner_add_suite(sr, types_suite());
	srunner_add_suite(sr, rng_suite());
	srunner_add_suite(sr, dmap_suite());
	srunner_add_suite(sr, load_suite());
	srunner_add_suite(sr, sched_suite());
	srunner_add_suite(sr, async_suite());
	srunner_add_suite(sr, hold_suite());
	srunner_add_suite(sr, vmath_suite());
	srunner_add_suite(sr, arith_suite());
	srunner_add_suite(sr, comm_suite());
	srunner_add_suite(sr, ckpt_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
