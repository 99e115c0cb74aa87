/* sgdmf-mpi.c: SGDMF as an expert writes it by hand for a cluster: DSGD
 * with the Strata schedule over P MPI ranks x T threads.
 *
 * The W = P * T workers each own a block of users (rows of W, balanced by
 * rating count) and, in each of the W sub-epochs of an epoch, one block
 * of items (rows of H): worker w trains on the cell (w, (w + s) mod W) in
 * sub-epoch s, so no two workers touch the same rows.  Between
 * sub-epochs every item block moves from worker w + 1 to worker w: inside
 * a rank that is free (threads share H), across ranks one block per rank
 * travels over MPI.  A cell's ratings are trained in file order.
 *
 * It reads the same files, takes the same options (and --threads=T),
 * starts from the same factors and prints the same lines as the serial
 * twin samples/baselines/sgdmf.c; the order of updates differs, so the
 * model does too.
 *
 *   mpicc -std=c11 -O3 -ffp-contract=off -pthread -DK=100 \
 *       bench/baselines/sgdmf-mpi.c -lm -o sgdmf-mpi
 *   mpiexec -n 2 --bind-to none ./sgdmf-mpi --data=train.txt --threads=1
 */
#define _POSIX_C_SOURCE 200809L     /* getline */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Random123/philox.h>
#include "../../samples/baselines/lanes.h"

#ifndef K
#define K 16
#endif

typedef struct Rating {
	int i;          /* user */
	int j;          /* item */
	float r;        /* rating */
} Rating;

static int rank, nranks;

static _Noreturn void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sgdmf-mpi: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory%s", "");
	return p;
}

/* ==== Loading: every rank parses the whole file ========================== */

static Rating *load(const char *path, long *count)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot open %s", path);
	Rating *A = NULL;
	long n = 0, cap = 0;
	char *buf = NULL;
	size_t bufsize = 0;
	while (getline(&buf, &bufsize, f) != -1) {
		char *p = buf + strspn(buf, " \t\r\n\v\f"), *end;
		if (*p == '\0' || *p == '#')
			continue;
		Rating a;
		a.i = (int)strtol(p, &end, 10);
		if (end == p)
			die("%s: bad line", path);
		p = end;
		a.j = (int)strtol(p, &end, 10);
		if (end == p)
			die("%s: bad line", path);
		p = end;
		a.r = strtof(p, &end);
		if (end == p || a.i < 0 || a.j < 0)
			die("%s: bad line", path);
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			A = realloc(A, (size_t)cap * sizeof *A);
			if (!A)
				die("out of memory%s", "");
		}
		A[n++] = a;
	}
	free(buf);
	fclose(f);
	*count = n;
	return A;
}

/* ==== Initial factors, as the twin and libsap draw them ================== */

static uint32_t fnv1a32(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static void init_rows(float (*X)[K], long lo, long hi, uint32_t seed, const char *name,
                      double a, double b)
{
	philox4x32_key_t key = {{ seed, fnv1a32(name) }};
	for (long i = lo; i < hi; i++)
		for (int d = 0; d < K; d++) {
			philox4x32_ctr_t c = {{ (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 0,
			                        (uint32_t)d }};
			philox4x32_ctr_t x = philox4x32(c, key);
			double u = ((x.v[0] >> 5) * 67108864.0 + (x.v[1] >> 6))
			           * (1.0 / 9007199254740992.0);
			X[i][d] = (float)(a + (b - a) * u);
		}
}

/* In lanes, as an expert vectorizes it, and as sapc's dot() does. */
static float dot(const float *a, const float *b)
{
	return lanes_dot_f(a, b, K);
}

/* ==== Blocks ============================================================ */

/* cut[0 .. nb]: nb contiguous ranges of ids 0 .. n - 1 with about equal
 * numbers of ratings. */
static void balanced_cuts(const long *count, int n, int nb, int *cut)
{
	long total = 0;
	for (int x = 0; x < n; x++)
		total += count[x];
	cut[0] = 0;
	long acc = 0;
	int b = 1;
	for (int x = 0; x < n && b < nb; x++) {
		acc += count[x];
		while (b < nb && acc * nb >= total * b)
			cut[b++] = x + 1;
	}
	while (b <= nb)
		cut[b++] = n;
}

static int block_of(const int *cut, int nb, int x)
{
	int lo = 0, hi = nb;            /* cut[lo] <= x < cut[hi] */
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (cut[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ==== Training ========================================================== */

static int T, NW;                       /* threads per rank, workers */
static int *ucut, *vcut;                /* NW + 1 each */
static float (*W)[K], (*H)[K];
static float gamma_, lambda_;
static Rating **cell;                   /* [t * NW + b]: thread t's users, item block b */
static long *ncell;
static pthread_barrier_t bar;
static double *se_part;                 /* per thread */
static Rating *mine;                    /* this rank's ratings */
static long nmine;

static void train_cell(const Rating *c, long n)
{
	for (long q = 0; q < n; q++) {
		Rating a = c[q];
		float err = a.r - dot(W[a.i], H[a.j]);
		float w[K];
		for (int k = 0; k < K; k++)
			w[k] = W[a.i][k];
		for (int k = 0; k < K; k++)
			W[a.i][k] += gamma_ * (err * H[a.j][k] - lambda_ * w[k]);
		for (int k = 0; k < K; k++)
			H[a.j][k] += gamma_ * (err * w[k] - lambda_ * H[a.j][k]);
	}
}

/* Item block b's rows of H go to rank `to`, the next one's come from
 * rank `from`; the main thread only (MPI_THREAD_FUNNELED). */
static void pass_blocks(int send_b, int to, int recv_b, int from)
{
	MPI_Request rq[2];
	int ns = (vcut[send_b + 1] - vcut[send_b]) * K;
	int nr = (vcut[recv_b + 1] - vcut[recv_b]) * K;
	MPI_Irecv(H[vcut[recv_b]], nr, MPI_FLOAT, from, 0, MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(H[vcut[send_b]], ns, MPI_FLOAT, to, 0, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
}

static void *epoch_worker(void *arg)
{
	int t = (int)(intptr_t)arg, w = rank * T + t;
	for (int s = 0; s < NW; s++) {
		int b = (w + s) % NW;
		train_cell(cell[t * NW + b], ncell[t * NW + b]);
		pthread_barrier_wait(&bar);
		/* The rank's last thread next needs the block the next rank's
		 * thread 0 holds; this rank's thread 0's block ((r*T + s) mod
		 * NW) goes to the previous rank.  After the last sub-epoch
		 * this brings every worker back its first block. */
		if (t == 0 && nranks > 1)
			pass_blocks((w + s) % NW, (rank + nranks - 1) % nranks,
			            ((rank + 1) * T + s) % NW, (rank + 1) % nranks);
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static void *se_worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	long lo = nmine * t / T, hi = nmine * (t + 1) / T;
	double se = 0;
	for (long n = lo; n < hi; n++) {
		Rating a = mine[n];
		double e = a.r - dot(W[a.i], H[a.j]);
		se += e * e;
	}
	se_part[t] = se;
	return NULL;
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t *th = xmalloc((size_t)T * sizeof *th);
	for (int t = 1; t < T; t++)
		pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t);
	fn((void *)0);
	for (int t = 1; t < T; t++)
		pthread_join(th[t], NULL);
	free(th);
}

/* Every item block, from the rank whose threads hold it at an epoch's
 * start (rank r holds r * T .. r * T + T - 1), to every rank. */
static void share_H(void)
{
	int *cnt = xmalloc((size_t)nranks * sizeof *cnt), *dis = xmalloc((size_t)nranks * sizeof *dis);
	for (int r = 0; r < nranks; r++) {
		dis[r] = vcut[r * T] * K;
		cnt[r] = (vcut[(r + 1) * T] - vcut[r * T]) * K;
	}
	MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, H, cnt, dis, MPI_FLOAT, MPI_COMM_WORLD);
	free(cnt);
	free(dis);
}

static double rmse_of(const Rating *R, long n, long total)
{
	Rating *saved = mine;
	long saved_n = nmine;
	mine = (Rating *)R;
	nmine = n;
	run_threads(se_worker);
	mine = saved;
	nmine = saved_n;
	double se = 0, all = 0;
	for (int t = 0; t < T; t++)
		se += se_part[t];
	MPI_Allreduce(&se, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return sqrt(all / total);
}

static const char *value(const char *arg, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(arg, "--", 2) || strncmp(arg + 2, name, n) || arg[2 + n] != '=')
		return NULL;
	return arg + 3 + n;
}

int main(int argc, char **argv)
{
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	const char *data = "samples/data/ratings-small.txt", *test = "", *out = "W.txt";
	int iters = 10;
	uint32_t seed = 1;
	gamma_ = 0.01f;
	lambda_ = 0.05f;
	T = 1;
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k], *v;
		if ((v = value(a, "data")))
			data = v;
		else if ((v = value(a, "test")))
			test = v;
		else if ((v = value(a, "out")))
			out = v;
		else if ((v = value(a, "iters")))
			iters = atoi(v);
		else if ((v = value(a, "gamma")))
			gamma_ = strtof(v, NULL);
		else if ((v = value(a, "lambda")))
			lambda_ = strtof(v, NULL);
		else if ((v = value(a, "seed")))
			seed = (uint32_t)strtoul(v, NULL, 10);
		else if ((v = value(a, "threads")))
			T = atoi(v);
		else
			die("bad option '%s'", a);
	}
	if (T < 1)
		die("--threads must be at least 1%s", "");
	NW = nranks * T;

	long nA;
	Rating *A = load(data, &nA);
	int nu = 0, nv = 0;
	for (long n = 0; n < nA; n++) {
		nu = A[n].i + 1 > nu ? A[n].i + 1 : nu;
		nv = A[n].j + 1 > nv ? A[n].j + 1 : nv;
	}
	if (nu < NW || nv < NW)
		die("fewer users or items than workers%s", "");
	long *cu = calloc((size_t)nu, sizeof *cu), *cv = calloc((size_t)nv, sizeof *cv);
	for (long n = 0; n < nA; n++) {
		cu[A[n].i]++;
		cv[A[n].j]++;
	}
	ucut = xmalloc((size_t)(NW + 1) * sizeof *ucut);
	vcut = xmalloc((size_t)(NW + 1) * sizeof *vcut);
	balanced_cuts(cu, nu, NW, ucut);
	balanced_cuts(cv, nv, NW, vcut);

	/* This rank's ratings, bucketed into cells in file order. */
	ncell = calloc((size_t)T * NW, sizeof *ncell);
	cell = xmalloc((size_t)T * NW * sizeof *cell);
	nmine = 0;
	for (long n = 0; n < nA; n++) {
		int u = block_of(ucut, NW, A[n].i);
		if (u / T == rank) {
			ncell[(u % T) * NW + block_of(vcut, NW, A[n].j)]++;
			nmine++;
		}
	}
	mine = xmalloc((size_t)nmine * sizeof *mine);
	long at = 0;
	for (int c = 0; c < T * NW; c++) {
		cell[c] = mine + at;
		at += ncell[c];
		ncell[c] = 0;
	}
	for (long n = 0; n < nA; n++) {
		int u = block_of(ucut, NW, A[n].i);
		if (u / T == rank) {
			int c = (u % T) * NW + block_of(vcut, NW, A[n].j);
			cell[c][ncell[c]++] = A[n];
		}
	}
	free(A);

	W = xmalloc((size_t)nu * sizeof *W);
	H = xmalloc((size_t)nv * sizeof *H);
	init_rows(W, ucut[rank * T], ucut[(rank + 1) * T], seed, "W", 0, 0.1);
	init_rows(H, 0, nv, seed, "H", 0, 0.1);
	se_part = xmalloc((size_t)T * sizeof *se_part);
	pthread_barrier_init(&bar, NULL, (unsigned)T);

	for (int it = 0; it < iters; it++) {
		run_threads(epoch_worker);
		share_H();
		double r = rmse_of(mine, nmine, nA);
		if (rank == 0)
			printf("iter %d train_rmse %.4f\n", it, r);
	}

	if (strcmp(test, "") != 0) {
		long nT;
		Rating *Tr = load(test, &nT);
		long k = 0;
		for (long n = 0; n < nT; n++) {
			if (Tr[n].i >= nu || Tr[n].j >= nv)
				die("%s: a test rating's user or item is not in the training data", test);
			if (block_of(ucut, NW, Tr[n].i) / T == rank)
				Tr[k++] = Tr[n];
		}
		double r = rmse_of(Tr, k, nT);
		if (rank == 0)
			printf("test_rmse %.4f\n", r);
		free(Tr);
	}

	/* W's rows to rank 0, in order. */
	int *cnt = xmalloc((size_t)nranks * sizeof *cnt), *dis = xmalloc((size_t)nranks * sizeof *dis);
	for (int r = 0; r < nranks; r++) {
		dis[r] = ucut[r * T] * K;
		cnt[r] = (ucut[(r + 1) * T] - ucut[r * T]) * K;
	}
	if (rank == 0)
		MPI_Gatherv(MPI_IN_PLACE, 0, MPI_FLOAT, W, cnt, dis, MPI_FLOAT, 0, MPI_COMM_WORLD);
	else
		MPI_Gatherv(W[ucut[rank * T]], cnt[rank], MPI_FLOAT, NULL, NULL, NULL, MPI_FLOAT, 0,
		            MPI_COMM_WORLD);
	if (rank == 0) {
		FILE *f = fopen(out, "w");
		if (!f)
			die("cannot write %s", out);
		for (int i = 0; i < nu; i++)
			for (int k = 0; k < K; k++)
				fprintf(f, "%.9g%c", W[i][k], k == K - 1 ? '\n' : ' ');
		if (fclose(f) != 0)
			die("cannot write %s", out);
	}
	MPI_Finalize();
	return 0;
}
