/* pagerank.c: the serial program samples/pagerank.sap comes from.  On one
 * worker the sample computes the same doubles in the same order, so its
 * ranks equal these bit for bit.
 *
 *   cc -std=c11 -O2 -ffp-contract=off -fwrapv -o pagerank pagerank.c -lm
 *   ./pagerank --data=graph.txt --iters=20 --out=ranks.txt
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what, const char *why)
{
	fprintf(stderr, "pagerank: %s: %s\n", what, why);
	exit(1);
}

static void *grow(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("memory", strerror(errno));
	return p;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The out-neighbours of node u: to[off[u] .. off[u + 1]). */
typedef struct graph {
	long n;
	long *off;
	int *to;
} graph;

static graph load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	graph g = { 0, NULL, NULL };
	long cap = 0, ecap = 0, m = 0;
	char *line = NULL;
	size_t len = 0;
	g.off = grow(NULL, sizeof *g.off);
	g.off[0] = 0;
	while (getline(&line, &len, f) > 0) {
		char *p = line, *q;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == 0)
			continue;
		long id = strtol(p, &q, 10);
		if (q == p || id != g.n)
			die(path, "expected the nodes' ids in order from 0");
		for (p = q;; p = q) {
			long v = strtol(p, &q, 10);
			if (q == p)
				break;
			if (m == ecap) {
				ecap = ecap ? 2 * ecap : 1024;
				g.to = grow(g.to, (size_t)ecap * sizeof *g.to);
			}
			g.to[m++] = (int)v;
		}
		if (g.n + 1 >= cap) {
			cap = cap ? 2 * cap : 1024;
			g.off = grow(g.off, (size_t)(cap + 1) * sizeof *g.off);
		}
		g.off[++g.n] = m;
	}
	free(line);
	fclose(f);
	for (long e = 0; e < m; e++)
		if (g.to[e] < 0 || g.to[e] >= g.n)
			die(path, "an out-neighbour that is not a node");
	return g;
}

int main(int argc, char **argv)
{
	const char *data = "samples/data/graph.txt", *out = "ranks.txt";
	int iters = 20;
	double d = 0.85;
	for (int a = 1; a < argc; a++) {
		if (!strncmp(argv[a], "--data=", 7))
			data = argv[a] + 7;
		else if (!strncmp(argv[a], "--out=", 6))
			out = argv[a] + 6;
		else if (!strncmp(argv[a], "--iters=", 8))
			iters = atoi(argv[a] + 8);
		else if (!strncmp(argv[a], "--d=", 4))
			d = atof(argv[a] + 4);
		else
			die(argv[a], "unknown option");
	}
	graph g = load(data);
	long n = g.n;
	double *rank = grow(NULL, (size_t)n * sizeof *rank);
	double *next = grow(NULL, (size_t)n * sizeof *next);
	for (long v = 0; v < n; v++)
		rank[v] = 1.0 / n;
	printf("pagerank: %ld nodes, %ld edges\n", n, g.off[n]);

	double t0 = now();
	for (int it = 0; it < iters; it++) {
		for (long v = 0; v < n; v++)
			next[v] = 0;
		for (long u = 0; u < n; u++) {
			long k = g.off[u + 1] - g.off[u];
			if (k > 0) {
				double share = rank[u] / k;
				for (long e = g.off[u]; e < g.off[u + 1]; e++)
					next[g.to[e]] += share;
			}
		}
		double dangling = 0;
		for (long u = 0; u < n; u++)
			if (g.off[u + 1] == g.off[u])
				dangling += rank[u];
		double diff = 0;
		for (long v = 0; v < n; v++) {
			double r = (1 - d) / n + d * (next[v] + dangling / n);
			diff += fabs(r - rank[v]);
			rank[v] = r;
		}
		printf("iter %d diff %.17g time %.3f\n", it + 1, diff, now() - t0);
	}
	FILE *f = fopen(out, "w");
	if (!f)
		die(out, strerror(errno));
	for (long v = 0; v < n; v++)
		fprintf(f, "%.17g\n", rank[v]);
	if (fclose(f) != 0)
		die(out, "cannot write");
	free(rank);
	free(next);
	free(g.off);
	free(g.to);
	return 0;
}
