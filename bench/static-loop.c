/* static-loop.c: bench/static-loop.sap in C, loop for loop and operation
 * for operation, so that the two print the same checksum.
 *
 *   gcc -std=c11 -O3 -ffp-contract=off bench/static-loop.c bench/clock.c
 *   ./a.out --n=100000 --reps=100
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K 16

double wall_seconds(void);

/* Each repetition is one full sweep, as each invocation of a SAP parallel
 * loop is: without this barrier gcc would swap the repetition loop inside
 * the element loop and time something else. */
static inline void sweep_done(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "static-loop: out of memory\n");
		exit(1);
	}
	return p;
}

static long long arg(const char *a, const char *name, long long lo)
{
	size_t n = strlen(name);
	char *end;
	long long x = strtoll(a + n, &end, 10);
	if (end == a + n || *end || x < lo) {
		fprintf(stderr, "static-loop: bad option '%s'\n", a);
		exit(2);
	}
	return x;
}

int main(int argc, char **argv)
{
	long n = 100000;
	int reps = 100;
	float a = 0.001f, decay = 0.5f, c = 0.25f;

	for (int k = 1; k < argc; k++) {
		if (!strncmp(argv[k], "--n=", 4))
			n = (long)arg(argv[k], "--n=", 0);
		else if (!strncmp(argv[k], "--reps=", 7))
			reps = (int)arg(argv[k], "--reps=", 0);
		else {
			fprintf(stderr, "usage: static-loop [--n=N] [--reps=R]\n");
			return 2;
		}
	}

	float *x = xmalloc((size_t)n * sizeof *x);
	float *y = xmalloc((size_t)n * sizeof *y);
	float (*W)[K] = xmalloc((size_t)n * sizeof *W);
	for (long i = 0; i < n; i++) {
		x[i] = (float)(i % 1000) * 0.001;
		y[i] = (float)(i % 17);
		for (int k = 0; k < K; k++)
			W[i][k] = (float)k;
	}

	double t0 = wall_seconds();
	for (int r = 0; r < reps * K; r++) {
		for (long i = 0; i < n; i++)
			y[i] = a * x[i] + y[i];
		sweep_done();
	}
	double t1 = wall_seconds();

	for (int r = 0; r < reps; r++) {
		for (long j = 0; j < n; j++)
			for (int k = 0; k < K; k++)
				W[j][k] = W[j][k] * decay + (float)(j % 7 + k) * c;
		sweep_done();
	}
	double t2 = wall_seconds();

	double s = 0;
	for (long i = 0; i < n; i++) {
		s += y[i];
		for (int k = 0; k < K; k++)
			s += W[i][k];
	}
	printf("saxpy_s %.6f rows_s %.6f checksum %.17g\n", t1 - t0, t2 - t1, s);
	free(x);
	free(y);
	free(W);
	return 0;
}
