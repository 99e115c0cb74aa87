/* Reads the vectors tests/run/lanes.sap prints and computes its dot()s and
 * softmax with samples/baselines/lanes.h, printing the same lines.  First
 * it checks lanes.h's dot of every length up to 70 against the order
 * written out term by term, which tests the code the C compiler picked
 * (vectors of 4 or, with AVX, of 8); it exits 2 if one differs. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lanes.h"

enum { N = 37 };

/* Lane k % L, then the halving tree. */
static int check_lengths(void)
{
	enum { M = 70 };
	float a[M], b[M];
	double x[M], y[M];
	unsigned s = 1;
	for (int k = 0; k < M; k++) {
		s = s * 1103515245u + 12345u;
		a[k] = ldexpf((float)(s >> 8) / 16777216.0f - 0.5f, (int)(s % 25) - 12);
		b[k] = (float)(k % 7) - 3.25f;
		x[k] = ldexp((double)(s >> 4) / 268435456.0 - 0.5, (int)(s % 23) - 11);
		y[k] = (double)(k % 5) - 1.125;
	}
	for (int n = 0; n <= M; n++) {
		float lf[16] = { 0 };
		double ld[8] = { 0 };
		for (int k = 0; k < n; k++) {
			lf[k % 16] += a[k] * b[k];
			ld[k % 8] += x[k] * y[k];
		}
		for (int h = 8; h >= 1; h /= 2)
			for (int l = 0; l < h; l++)
				lf[l] += lf[l + h];
		for (int h = 4; h >= 1; h /= 2)
			for (int l = 0; l < h; l++)
				ld[l] += ld[l + h];
		float gf = lanes_dot_f(a, b, n);
		double gd = lanes_dot_d(x, y, n);
		if (memcmp(&gf, &lf[0], sizeof gf) != 0 || memcmp(&gd, &ld[0], sizeof gd) != 0) {
			fprintf(stderr, "length %d: %a %a, want %a %a\n", n, gf, gd, lf[0], ld[0]);
			return 0;
		}
	}
	return 1;
}

int main(void)
{
	if (!check_lengths())
		return 2;
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
