/* lda.c: latent Dirichlet allocation by collapsed Gibbs sampling, serial.
 *
 * The serial twin of samples/lda.sap: the same algorithm, statement for
 * statement, with the same arithmetic and the same random numbers, so that
 * the SAP program on one worker (iterations in index order) samples the
 * same topics bit for bit and prints the same report.
 * tests/run/lda-twin.sh checks it.  Keep the two in step.
 *
 * Tokens come one a line, "doc word" (0-based ids; tools/genlda writes
 * them).  Each sweep visits the tokens in file order (Griffiths and
 * Steyvers 2004): it takes the token's topic out of the counts ndk[d]
 * (document d's tokens per topic), nwk[w] (word w's) and nk (all tokens'),
 * draws a new topic k with weight
 *     (ndk[d][k] + alpha) (nwk[w][k] + beta) / (nk[k] + V beta)
 * from one uniform number against the running sums, and puts it back.
 *
 * The log-likelihood is the collapsed joint log p(w, z) over the number
 * of tokens, as Griffiths and Steyvers's and Mallet's samplers report it:
 *     K lgamma(V b)
 *       + sum_k sum_w (lgamma(nwk[w][k] + b) - lgamma(b)) [nwk != 0]
 *       - sum_k lgamma(nk[k] + V b)
 *     + sum_d [ sum_k (lgamma(ndk[d][k] + a) - lgamma(a)) [ndk != 0]
 *               + lgamma(K a) - lgamma(nd + K a) ]
 * (the zero counts' lgamma(b) and lgamma(a) terms cancel against the
 * normalisers' V lgamma(b) and K lgamma(a)), summed in that grouping:
 * per word, per document, then the rest.
 *
 * The random numbers are libsap's (runtime/core/rng.c), Philox4x32-10 under
 * key {seed, stream} at counter {index lo, index hi, invocation, draw}:
 * stream = the loop's number among lda.sap's parallel loops (1-based,
 * source order), index = the iteration (token), invocation = the earlier
 * runs of that loop, draw = site << 24 | n for the n-th draw of the
 * body's site-th rand/rand_int call.
 *
 *   cc -std=c11 -O2 -ffp-contract=off -Wall -Wextra samples/baselines/lda.c -lm
 *   ./a.out --data=corpus.txt --sweeps=50
 */
#define _POSIX_C_SOURCE 200809L     /* getline, clock_gettime */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <Random123/philox.h>

/* Topics; bench/lda.sh builds other counts with -DK=N. */
#ifndef K
#define K 20
#endif

/* lda.sap's parallel loops: sizing, initial topics, the sweep, then the
 * likelihood's loops over words and documents. */
#define INIT_LOOP 2
#define SWEEP_LOOP 3

typedef struct Tok {
	int d;          /* document */
	int w;          /* word */
} Tok;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "lda: out of memory\n");
		exit(1);
	}
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "lda: out of memory\n");
		exit(1);
	}
	return p;
}

/* ==== Loading ============================================================ */

static void bad_line(const char *path, long line, const char *what)
{
	fprintf(stderr, "%s:%ld: error: %s\n", path, line, what);
	exit(1);
}

/* One "doc word" per line; blank lines and '#' comments skipped. */
static Tok *load(const char *path, long *count)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "lda: cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	Tok *A = NULL;
	long n = 0, cap = 0, line = 0;
	char *buf = NULL;
	size_t bufsize = 0;
	while (getline(&buf, &bufsize, f) != -1) {
		line++;
		char *p = buf + strspn(buf, " \t\r\n\v\f");
		if (*p == '\0' || *p == '#')
			continue;
		char *end;
		errno = 0;
		long d = strtol(p, &end, 10);
		if (end == p || errno || d < 0 || d > INT32_MAX)
			bad_line(path, line, "field 'd': expected a document id >= 0");
		p = end;
		long w = strtol(p, &end, 10);
		if (end == p || errno || w < 0 || w > INT32_MAX)
			bad_line(path, line, "field 'w': expected a word id >= 0");
		if (end[strspn(end, " \t\r\n\v\f")] != '\0')
			bad_line(path, line, "extra field after the word");
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			A = realloc(A, (size_t)cap * sizeof *A);
			if (!A) {
				fprintf(stderr, "lda: out of memory\n");
				exit(1);
			}
		}
		A[n++] = (Tok){ (int)d, (int)w };
	}
	if (ferror(f)) {
		fprintf(stderr, "lda: cannot read %s\n", path);
		exit(1);
	}
	free(buf);
	fclose(f);
	*count = n;
	return A;
}

/* ==== Random numbers ===================================================== */

static uint32_t seed = 1;

static philox4x32_ctr_t block(uint32_t stream, int64_t index, uint32_t invocation,
                              uint32_t draw)
{
	philox4x32_key_t k = {{ seed, stream }};
	philox4x32_ctr_t c = {{ (uint32_t)index, (uint32_t)((uint64_t)index >> 32),
	                        invocation, draw }};
	return philox4x32(c, k);
}

static double rand_of(philox4x32_ctr_t w)
{
	return ((w.v[0] >> 5) * 67108864.0 + (w.v[1] >> 6)) * (1.0 / 9007199254740992.0);
}

static int64_t rand_int_of(philox4x32_ctr_t w, int64_t n)
{
	uint64_t x = (uint64_t)w.v[0] << 32 | w.v[1];
	return (int64_t)(((unsigned __int128)x * (uint64_t)n) >> 64);
}

/* ==== Options ============================================================ */

static const char usage[] =
	"usage: lda [--data=FILE] [--out=FILE] [--sweeps=N] [--every=N]\n"
	"           [--alpha=A] [--beta=B] [--seed=S]\n";

static _Noreturn void bad_option(const char *arg)
{
	fprintf(stderr, "lda: bad option '%s'\n%s", arg, usage);
	exit(2);
}

static const char *value(const char *arg, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(arg, "--", 2) != 0 || strncmp(arg + 2, name, n) != 0
	    || arg[2 + n] != '=')
		return NULL;
	return arg + 3 + n;
}

static long long int_option(const char *arg, const char *v, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (end == v || *end || errno || x < lo || x > hi)
		bad_option(arg);
	return x;
}

static double double_option(const char *arg, const char *v)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || *end || errno)
		bad_option(arg);
	return x;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *data = "samples/data/lda-small.txt";
	const char *out = "";           /* "" for none */
	int sweeps = 50;
	int every = 10;
	double alpha = 0.1;
	double beta = 0.01;

	for (int a = 1; a < argc; a++) {
		const char *s = argv[a], *v;
		if (strcmp(s, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if ((v = value(s, "data")))
			data = v;
		else if ((v = value(s, "out")))
			out = v;
		else if ((v = value(s, "sweeps")))
			sweeps = (int)int_option(s, v, INT32_MIN, INT32_MAX);
		else if ((v = value(s, "every")))
			every = (int)int_option(s, v, INT32_MIN, INT32_MAX);
		else if ((v = value(s, "alpha")))
			alpha = double_option(s, v);
		else if ((v = value(s, "beta")))
			beta = double_option(s, v);
		else if ((v = value(s, "seed")))
			seed = (uint32_t)int_option(s, v, 0, UINT32_MAX);
		else
			bad_option(s);
	}
	if (!(alpha > 0) || !(beta > 0)) {
		fprintf(stderr, "lda: alpha and beta must be > 0\n");
		return 1;
	}

	long ntok;
	Tok *tok = load(data, &ntok);
	int nd = 0;
	int nv = 0;
	for (long t = 0; t < ntok; t++) {
		if (tok[t].d + 1 > nd)
			nd = tok[t].d + 1;
		if (tok[t].w + 1 > nv)
			nv = tok[t].w + 1;
	}
	double vbeta = nv * beta;

	int (*ndk)[K] = xcalloc((size_t)nd, sizeof *ndk);
	int (*nwk)[K] = xcalloc((size_t)nv, sizeof *nwk);
	int *nk = xcalloc(K, sizeof *nk);
	int *z = xmalloc((size_t)ntok * sizeof *z);

	for (long t = 0; t < ntok; t++) {
		int k = (int)rand_int_of(block(INIT_LOOP, t, 0, 1u << 24 | 0), K);
		z[t] = k;
		ndk[tok[t].d][k]++;
		nwk[tok[t].w][k]++;
		nk[k]++;
	}

	printf("lda: %ld tokens, %d documents, %d words, %d topics\n", ntok, nd, nv, K);
	double secs = 0;
	for (int it = 0; it < sweeps; it++) {
		double t0 = now();
		for (long t = 0; t < ntok; t++) {
			int d = tok[t].d;
			int w = tok[t].w;
			int k = z[t];
			ndk[d][k]--;
			nwk[w][k]--;
			nk[k]--;
			double p[K];
			double s = 0;
			for (int j = 0; j < K; j++) {
				s += (ndk[d][j] + alpha) * (nwk[w][j] + beta) / (nk[j] + vbeta);
				p[j] = s;
			}
			double u = rand_of(block(SWEEP_LOOP, t, (uint32_t)it, 1u << 24 | 0)) * s;
			k = 0;
			while (k < K - 1 && p[k] <= u)
				k++;
			z[t] = k;
			ndk[d][k]++;
			nwk[w][k]++;
			nk[k]++;
		}
		secs += now() - t0;

		if ((it + 1) % every == 0 || it == sweeps - 1) {
			double lw = 0;
			double lgb = lgamma(beta);
			for (int w = 0; w < nv; w++) {
				double s = 0;
				for (int j = 0; j < K; j++)
					if (nwk[w][j] != 0)
						s += lgamma(nwk[w][j] + beta) - lgb;
				lw += s;
			}
			double ld = 0;
			double lga = lgamma(alpha);
			double lgka = lgamma(K * alpha);
			for (int d = 0; d < nd; d++) {
				double s = 0;
				int n = 0;
				for (int j = 0; j < K; j++) {
					n += ndk[d][j];
					if (ndk[d][j] != 0)
						s += lgamma(ndk[d][j] + alpha) - lga;
				}
				ld += s + lgka - lgamma(n + K * alpha);
			}
			double ll = K * lgamma(vbeta) + lw;
			for (int j = 0; j < K; j++)
				ll -= lgamma(nk[j] + vbeta);
			ll += ld;
			printf("sweep %d loglik/token %.12f\n", it + 1, ll / ntok);
		}
	}
	printf("tokens per topic:");
	for (int j = 0; j < K; j++)
		printf(" %d", nk[j]);
	printf("\n");
	printf("tokens/s %.0f\n", secs > 0 ? (double)ntok * sweeps / secs : 0.0);

	if (strcmp(out, "") != 0) {
		FILE *f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "lda: cannot write %s: %s\n", out, strerror(errno));
			return 1;
		}
		for (int w = 0; w < nv; w++)
			for (int j = 0; j < K; j++)
				fprintf(f, "%d%c", nwk[w][j], j == K - 1 ? '\n' : ' ');
		if (fclose(f) != 0) {
			fprintf(stderr, "lda: cannot write %s\n", out);
			return 1;
		}
	}
	free(z);
	free(nk);
	free(nwk);
	free(ndk);
	free(tok);
	return 0;
}
