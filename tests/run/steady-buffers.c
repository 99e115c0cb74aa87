#include <stdint.h>
#include <sys/resource.h>

/* The minor page faults of this process so far. */
int64_t minor_faults(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (int64_t)u.ru_minflt;
}
