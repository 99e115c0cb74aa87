#include <stdint.h>

/* Adds 100 to a[0]. */
void bump(int64_t *a);

void bump(int64_t *a)
{
	a[0] += 100;
}
