/* pagerank-mpi.c: samples/pagerank.sap's algorithm written by hand for a
 * cluster, as bench/pagerank.sh compares it: each of P ranks pushes the
 * shares of a contiguous block of nodes into a private vector of all n,
 * MPI_Reduce_scatter_block sums those vectors into each rank's block, and
 * MPI_Allgather makes the new ranks whole again.  Every rank reads the
 * whole graph file and keeps its block's out-links.
 *
 *   mpicc -std=c11 -O3 -o pagerank-mpi pagerank-mpi.c -lm
 *   mpiexec -n 2 ./pagerank-mpi --data=graph.txt --iters=20
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *why)
{
	fprintf(stderr, "pagerank-mpi: %s: %s\n", what, why);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *grow(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("memory", strerror(errno));
	return p;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int P, me;
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	const char *data = "graph.txt";
	int iters = 20;
	double d = 0.85;
	for (int a = 1; a < argc; a++) {
		if (!strncmp(argv[a], "--data=", 7))
			data = argv[a] + 7;
		else if (!strncmp(argv[a], "--iters=", 8))
			iters = atoi(argv[a] + 8);
		else
			die(argv[a], "unknown option");
	}
	FILE *f = fopen(data, "r");
	if (!f)
		die(data, strerror(errno));
	long n = 0, cap = 0, ecap = 0, m = 0;
	long *off = grow(NULL, sizeof *off);
	int *to = NULL;
	char *line = NULL;
	size_t len = 0;
	off[0] = 0;
	while (getline(&line, &len, f) > 0) {
		if (line[0] == '#')
			continue;
		char *p = line, *q;
		strtol(p, &q, 10);
		for (p = q;; p = q) {
			long v = strtol(p, &q, 10);
			if (q == p)
				break;
			if (m == ecap) {
				ecap = ecap ? 2 * ecap : 1024;
				to = grow(to, (size_t)ecap * sizeof *to);
			}
			to[m++] = (int)v;
		}
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 1024;
			off = grow(off, (size_t)(cap + 1) * sizeof *off);
		}
		off[++n] = m;
	}
	free(line);
	fclose(f);
	long B = (n + P - 1) / P, N = B * P, a = me * B, b = a + B < n ? a + B : n;
	double *rank = calloc((size_t)N, sizeof *rank), *buf = calloc((size_t)N, sizeof *buf);
	double *mine = calloc((size_t)B, sizeof *mine);
	if (!rank || !buf || !mine)
		die("memory", strerror(errno));
	for (long v = 0; v < n; v++)
		rank[v] = 1.0 / n;
	if (me == 0)
		printf("pagerank: %ld nodes, %ld edges\n", n, m);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int it = 0; it < iters; it++) {
		memset(buf, 0, (size_t)N * sizeof *buf);
		for (long u = a; u < b; u++) {
			long k = off[u + 1] - off[u];
			if (k > 0) {
				double share = rank[u] / k;
				for (long e = off[u]; e < off[u + 1]; e++)
					buf[to[e]] += share;
			}
		}
		MPI_Reduce_scatter_block(buf, mine, (int)B, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		double dangling = 0;
		for (long u = a; u < b; u++)
			if (off[u + 1] == off[u])
				dangling += rank[u];
		MPI_Allreduce(MPI_IN_PLACE, &dangling, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		double diff = 0;
		for (long v = a; v < b; v++) {
			double r = (1 - d) / n + d * (mine[v - a] + dangling / n);
			diff += fabs(r - rank[v]);
			rank[v] = r;
		}
		MPI_Allreduce(MPI_IN_PLACE, &diff, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allgather(MPI_IN_PLACE, (int)B, MPI_DOUBLE, rank, (int)B, MPI_DOUBLE, MPI_COMM_WORLD);
		if (me == 0)
			printf("iter %d diff %.17g time %.3f\n", it + 1, diff, MPI_Wtime() - t0);
	}
	free(rank);
	free(buf);
	free(mine);
	free(off);
	free(to);
	MPI_Finalize();
	return 0;
}
