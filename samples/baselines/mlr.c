/* mlr: the serial C twin of samples/mlr.sap.
 *
 * Softmax regression by mini-batch SGD over the training images in file
 * order, batch images a step, with the learning rate lr / (1 + decay *
 * epoch) on the sum of their gradients; the test accuracy after each
 * epoch.  The arithmetic is the sample's, in the same order and the same
 * types, so that on one worker the two print the same accuracies: build
 * with -ffp-contract=off, as sapc builds, and with OpenBLAS, whose gemm
 * the sample calls.
 *
 *   cc -std=c11 -O2 -ffp-contract=off $(pkg-config --cflags openblas) \
 *      -o mlr samples/baselines/mlr.c $(pkg-config --libs openblas) -lm
 */
#define _POSIX_C_SOURCE 200809L     /* getline */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "lanes.h"

enum { D = 784, C = 10 };

typedef struct image {
	int y;
	float x[D];
} image;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "mlr: %s: %s\n", what, why);
	exit(1);
}

/* "LABEL P1 ... PD" lines, as tools/idx2txt writes them. */
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
		for (int k = 0; k < D; k++) {
			p = end;
			im->x[k] = strtof(p, &end);
			if (end == p)
				die(path, "a line with too few pixels");
		}
		++*n;
	}
	free(line);
	fclose(f);
	return v;
}

/* The SAP dot(): in float, in sap(7)'s lane order (lanes.h). */
static float dot(const float *a, const float *b)
{
	return lanes_dot_f(a, b, D);
}

/* As the sample's softmax (runtime/lib/vmath.c): exp(a - max) / sum, the
 * sum in sap(7)'s lane order (lanes.h). */
static void softmax(float *a, int n)
{
	float mx = a[0], s[16] = {0};
	for (int k = 1; k < n; k++)
		mx = a[k] > mx ? a[k] : mx;
	for (int k = 0; k < n; k++)
		s[k % 16] += a[k] = expf(a[k] - mx);
	float sum = lanes_sum_f(s);
	for (int k = 0; k < n; k++)
		a[k] /= sum;
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
	const char *train = opt(argc, argv, "--train", "samples/data/fashion-train.txt");
	const char *test = opt(argc, argv, "--test", "samples/data/fashion-test.txt");
	int epochs = atoi(opt(argc, argv, "--epochs", "10"));
	float lr = strtof(opt(argc, argv, "--lr", "0.005"), NULL);
	float decay = strtof(opt(argc, argv, "--decay", "1"), NULL);
	long batch = atol(opt(argc, argv, "--batch", "100"));
	if (batch <= 0)
		die("--batch", "must be positive");
	/* Serial, as each worker of the sample is; OpenBLAS's threads would
	 * also split the sums differently. */
	openblas_set_num_threads(1);
	long na, nt;
	image *A = load(train, &na), *T = load(test, &nt);
	static float W[C][D], B[C];
	float (*X)[D] = malloc((size_t)batch * sizeof *X);
	float (*G)[C] = malloc((size_t)batch * sizeof *G);
	if (!X || !G)
		die("mini-batch", "out of memory");
	for (int ep = 0; ep < epochs; ep++) {
		float rate = lr / (1 + decay * ep);
		for (long b = 0; b < na; b += batch) {
			int m = (int)(na - b < batch ? na - b : batch);
			for (int k = 0; k < m; k++)
				memcpy(X[k], A[b + k].x, sizeof X[k]);
			/* G = X W^T: the scores. */
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, C, D, 1, &X[0][0], D,
			            &W[0][0], D, 0, &G[0][0], C);
			for (int k = 0; k < m; k++) {
				for (int c = 0; c < C; c++)
					G[k][c] += B[c];
				softmax(G[k], C);
				G[k][A[b + k].y] -= 1;
			}
			for (int k = 0; k < m; k++)
				for (int c = 0; c < C; c++)
					B[c] -= rate * G[k][c];
			/* W -= rate G^T X: the step. */
			cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, D, m, -rate, &G[0][0], C,
			            &X[0][0], D, 1, &W[0][0], D);
		}
		long right = 0;
		for (long n = 0; n < nt; n++) {
			int best = 0;
			float bz = -1e30f;
			for (int c = 0; c < C; c++) {
				float z = dot(W[c], T[n].x) + B[c];
				if (z > bz) {
					bz = z;
					best = c;
				}
			}
			if (best == T[n].y)
				right++;
		}
		printf("epoch %d test_accuracy %.4f\n", ep, (double)right / nt);
	}
	double cs = 0;
	for (int c = 0; c < C; c++) {
		for (int k = 0; k < D; k++)
			cs += W[c][k] * (k + 1);
		cs += B[c];
	}
	printf("model checksum %.9g\n", cs);
	free(X);
	free(G);
	free(A);
	free(T);
	return 0;
}
