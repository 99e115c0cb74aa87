/* bsp-sync: the hand-written MPI twin of bench/bsp-sync.sap.
 *
 * Rank r runs elements [r n / P, (r + 1) n / P) in mini-batches; element
 * x adds 0.001 (k + 1) to W[x % rows][k]; after each mini-batch the
 * ranks sum W with one in-place MPI_Allreduce and divide by P, as a
 * programmer would write BSP model averaging by hand.  The same
 * arithmetic in the same order as the SAP program, so the checksums
 * agree bit for bit.
 *
 *   mpicc -std=c11 -O3 -ffp-contract=off -o bsp-sync bench/baselines/bsp-sync.c bench/clock.c
 *   mpiexec -n 2 ./bsp-sync --rows=1000 --n=1600 --batch=4 --reps=5
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K = 256 };

double wall_seconds(void);

static long opt(int argc, char **argv, const char *name, long def)
{
	size_t len = strlen(name);
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, name, len) &&
		    argv[i][2 + len] == '=')
			return atol(argv[i] + 3 + len);
	return def;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int P, me;
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	long rows = opt(argc, argv, "rows", 1000), n = opt(argc, argv, "n", 1600);
	long batch = opt(argc, argv, "batch", 4), reps = opt(argc, argv, "reps", 5);
	if (rows <= 0 || n <= 0 || batch <= 0 || reps < 0) {
		fprintf(stderr, "bsp-sync: bad options\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	float (*W)[K] = calloc((size_t)rows, sizeof *W);
	if (!W) {
		fprintf(stderr, "bsp-sync: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	long lo = (long)((__int128)n * me / P), hi = (long)((__int128)n * (me + 1) / P);
	long steps = 0;
	for (int r = 0; r < P; r++) {
		long m = (long)((__int128)n * (r + 1) / P - (__int128)n * r / P);
		if ((m + batch - 1) / batch > steps)
			steps = (m + batch - 1) / batch;
	}
	double t = 0;
	for (long rep = 0; rep <= reps; rep++) {
		double t0 = wall_seconds();
		for (long s = 0; s < steps; s++) {
			long b = lo + s * batch, e = b + batch < hi ? b + batch : hi;
			for (long x = b; x < e; x++) {
				long j = x % rows;
				for (int k = 0; k < K; k++)
					W[j][k] += 0.001 * (k + 1);
			}
			MPI_Allreduce(MPI_IN_PLACE, W, (int)(rows * K), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
			for (long i = 0; i < rows * K; i++)
				W[i / K][i % K] /= (float)P;
		}
		if (rep > 0)
			t += wall_seconds() - t0;
	}
	double cs = 0;
	for (long j = 0; j < rows; j++)
		for (int k = 0; k < K; k++)
			cs += W[j][k] * ((j + k) % 7);
	if (me == 0)
		printf("loop_s %.6f checksum %.9g\n", t, cs);
	free(W);
	MPI_Finalize();
	return 0;
}
