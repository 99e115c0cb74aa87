#include <sys/resource.h>

/* The process's peak resident memory, in KiB. */
long maxrss_kb(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}
