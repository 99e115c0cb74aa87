#include <stdint.h>

void setk(int32_t *a, int32_t v);

void setk(int32_t *a, int32_t v)
{
	a[0] = v;
}
