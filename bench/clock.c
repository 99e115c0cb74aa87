/* clock.c: the wall clock of bench/static-loop.sap (an extern function). */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

double wall_seconds(void);

double wall_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
