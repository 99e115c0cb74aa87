/* Reads the vectors tests/run/lanes.sap prints and computes its dot()s and
 * softmax with samples/baselines/lanes.h, printing the same lines. */
#include <math.h>
#include <stdio.h>
#include "lanes.h"

enum { N = 37 };

int main(void)
{
	float a[N], b[N];
	double x[N], y[N];
	char line[256];
	int n = 0;
	while (n < N && fgets(line, sizeof line, stdin))
		if (sscanf(line, "a %g %g %lg %lg", &a[n], &b[n], &x[n], &y[n]) == 4)
			n++;
	if (n != N)
		return 1;
	printf("dot_f %.9g\n", lanes_dot_f(a, b, N));
	printf("dot_d %.17g\n", lanes_dot_d(x, y, N));
	float a16[16], b16[16];
	double x100[100], y100[100];
	for (int k = 0; k < 16; k++) {
		a16[k] = a[k];
		b16[k] = b[k + 1];
	}
	for (int k = 0; k < 100; k++) {
		x100[k] = x[k % N] * (k + 1);
		y100[k] = y[(k * 7) % N];
	}
	printf("dot_f16 %.9g\n", lanes_dot_f(a16, b16, 16));
	printf("dot_d100 %.17g\n", lanes_dot_d(x100, y100, 100));
	float s[16] = {0}, e[N], mx = a[0] / 512;
	for (int k = 1; k < N; k++)
		mx = a[k] / 512 > mx ? a[k] / 512 : mx;
	for (int k = 0; k < N; k++)
		s[k % 16] += e[k] = expf(a[k] / 512 - mx);
	float sum = lanes_sum_f(s);
	for (int k = 0; k < N; k++)
		printf("softmax %.9g\n", e[k] / sum);
	return 0;
}
