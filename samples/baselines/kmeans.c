/* kmeans: the serial C twin of samples/kmeans.sap.
 *
 * Lloyd's algorithm on "LABEL P1 ... P784" lines (tools/idx2txt): each
 * image to its nearest centroid (squared distance summed in float, in
 * pixel order), each centroid to the mean of its images (sums in double,
 * in image order); the first k images are the first centroids.  The
 * arithmetic is the sample's, in the same order and types, so on one
 * worker the two print the same costs and save the same centroids.
 *
 *   cc -std=c11 -O2 -ffp-contract=off -fwrapv -o kmeans kmeans.c -lm
 *   ./kmeans --data=fashion-train.txt --k=10 --iters=10 --out=centroids.txt
 */
#define _POSIX_C_SOURCE 200809L     /* getline */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { D = 784 };

typedef struct image {
	int y;
	float x[D];
} image;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "kmeans: %s: %s\n", what, why);
	exit(1);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static image *load(const char *path, long *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	long cap = 1024;
	image *v = malloc((size_t)cap * sizeof *v);
	*n = 0;
	char *line = NULL;
	size_t len = 0;
	while (getline(&line, &len, f) > 0) {
		if (*n == cap) {
			cap *= 2;
			v = realloc(v, (size_t)cap * sizeof *v);
		}
		if (!v)
			die(path, "out of memory");
		char *p = line, *end;
		image *im = &v[*n];
		im->y = (int)strtol(p, &end, 10);
		if (end == p)
			die(path, "a line without a label");
		for (int d = 0; d < D; d++) {
			p = end;
			im->x[d] = strtof(p, &end);
			if (end == p)
				die(path, "a line with too few pixels");
		}
		++*n;
	}
	free(line);
	fclose(f);
	return v;
}

static const char *opt(int argc, char **argv, const char *name, const char *def)
{
	size_t n = strlen(name);
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], name, n) && argv[i][n] == '=')
			return argv[i] + n + 1;
	return def;
}

int main(int argc, char **argv)
{
	const char *data = opt(argc, argv, "--data", "samples/data/fashion-train.txt");
	const char *out = opt(argc, argv, "--out", "centroids.txt");
	int k = atoi(opt(argc, argv, "--k", "10"));
	int iters = atoi(opt(argc, argv, "--iters", "10"));
	long n;
	image *A = load(data, &n);
	if (k < 1 || k > n)
		die("--k", "out of range");
	float (*C)[D] = malloc((size_t)k * sizeof *C);
	double (*S)[D] = malloc((size_t)k * sizeof *S);
	long *cnt = malloc((size_t)k * sizeof *cnt);
	if (!C || !S || !cnt)
		die("memory", strerror(errno));
	for (int c = 0; c < k; c++)
		memcpy(C[c], A[c].x, sizeof C[c]);
	printf("kmeans: %ld images, %d clusters\n", n, k);

	double t0 = now();
	for (int it = 0; it < iters; it++) {
		memset(S, 0, (size_t)k * sizeof *S);
		memset(cnt, 0, (size_t)k * sizeof *cnt);
		double cost = 0;
		for (long i = 0; i < n; i++) {
			int best = 0;
			float bd = 0;
			for (int c = 0; c < k; c++) {
				float s = 0;
				for (int d = 0; d < D; d++) {
					float t = A[i].x[d] - C[c][d];
					s += t * t;
				}
				if (c == 0 || s < bd) {
					bd = s;
					best = c;
				}
			}
			for (int d = 0; d < D; d++)
				S[best][d] += A[i].x[d];
			cnt[best] += 1;
			cost += bd;
		}
		for (int c = 0; c < k; c++)
			if (cnt[c] > 0)
				for (int d = 0; d < D; d++)
					C[c][d] = (float)(S[c][d] / cnt[c]);
		printf("iter %d cost %.17g time %.3f\n", it + 1, cost, now() - t0);
	}
	FILE *f = fopen(out, "w");
	if (!f)
		die(out, strerror(errno));
	for (int c = 0; c < k; c++)
		for (int d = 0; d < D; d++)
			fprintf(f, "%.9g%c", C[c][d], d == D - 1 ? '\n' : ' ');
	if (fclose(f) != 0)
		die(out, "cannot write");
	free(A);
	free(C);
	free(S);
	free(cnt);
	return 0;
}
