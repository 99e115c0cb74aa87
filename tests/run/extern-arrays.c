#include <stdint.h>

void fill(double *a, double f) { a[0] = f; a[1] = 2 * f; }
void scale(double *a, double f) { a[0] *= f; a[1] *= f; }
double sum2(double *a) { return a[0] + a[1]; }
void tally(int64_t *h, int32_t k) { h[k % 4] += 1; }
