/* word2vec: the serial C twin of samples/word2vec.sap.
 *
 * Skip-gram with negative sampling as in Mikolov's word2vec.c, plainly,
 * on one thread, so that the SAP sample and fastText have a yardstick
 * for both speed and quality (bench/word2vec.sh):
 *
 *  - the corpus is plain text, one sentence a line (tools/brown2txt);
 *    words seen fewer than --min-count times are dropped before
 *    windows are formed, as word2vec does;
 *  - frequent words are sub-sampled with word2vec's formula: a word of
 *    count c among T kept with probability (sqrt(c / (s T)) + 1) s T / c,
 *    s = --sample, drawn again each epoch;
 *  - as in word2vec and fastText, the window shrinks at random: for each
 *    centre word b is drawn uniformly in [1, --window], and every word
 *    within b positions of it, in the sub-sampled sentence, is a context.
 *    Near words are thus weighted more, and the work per word read is
 *    that of word2vec, fastText and the SAP sample, (window + 1) / 2
 *    contexts each side on average;
 *  - as in word2vec, the context word's input vector predicts the centre
 *    word against --negative words drawn from a table of 1e7 entries
 *    filled in proportion to count^0.75 (fastText uses count^0.5);
 *  - the sigmoid comes from a table of 1000 values over [-6, 6]; beyond,
 *    the gradient saturates.  word2vec indexes its table with an integer
 *    division (1000 / 6 / 2 = 83) that uses 997 of the 1000 entries; this
 *    uses them all;
 *  - the learning rate falls linearly from --alpha to alpha * 1e-4 over
 *    the words read in all epochs, set at the start of each sentence;
 *  - input vectors start uniform in [-0.5 / dim, 0.5 / dim), output
 *    vectors at zero.
 *
 * Random numbers come from splitmix64 seeded with --seed: the
 * initialisation; then, for each sentence, one draw per word read for
 * sub-sampling (when --sample > 0); then, for each centre word of the
 * sub-sampled sentence in turn, one draw for its window
 * (b = 1 + splitmix64() % window) before one per negative of each of its
 * contexts.  One seed, one result.
 *
 * It prints "words/s N": the in-vocabulary words read per second of
 * training, before sub-sampling, as fastText's words/sec/thread counts
 * them (fastText also counts one end-of-line token a sentence, about 6 %
 * more on Brown).  Loading and writing are not timed.
 *
 *   cc -std=c11 -O2 -Wall -Wextra -o word2vec samples/baselines/word2vec.c -lm
 *   ./word2vec --data=samples/data/brown.txt --out=vectors.txt
 */
#define _POSIX_C_SOURCE 200809L     /* getline, clock_gettime */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lanes.h"

#define EXP_TABLE_SIZE 1000
#define MAX_EXP 6
#define TABLE_SIZE 10000000

static const char *prog = "word2vec";

static void usage(FILE *f)
{
	fputs("usage: word2vec [--data=FILE] [--out=FILE] [--dim=N] [--window=N]\n"
	      "                [--negative=N] [--epochs=N] [--min-count=N]\n"
	      "                [--sample=S] [--alpha=A] [--seed=N]\n"
	      "\n"
	      "Train skip-gram word vectors with negative sampling on FILE (plain\n"
	      "text, one sentence a line), serially, and print the training speed.\n"
	      "\n"
	      "  --data=FILE     the corpus (default samples/data/brown.txt)\n"
	      "  --out=FILE      write the vectors there, word2vec text format\n"
	      "  --dim=N         vector size (default 100)\n"
	      "  --window=N      most context words each side; each centre word\n"
	      "                  draws its own from 1..N (default 5)\n"
	      "  --negative=N    negative samples (default 5)\n"
	      "  --epochs=N      passes over the corpus (default 5)\n"
	      "  --min-count=N   drop words seen fewer times (default 5)\n"
	      "  --sample=S      sub-sampling threshold, 0 for none (default 1e-3)\n"
	      "  --alpha=A       starting learning rate (default 0.025)\n"
	      "  --seed=N        random seed (default 1)\n", f);
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, why);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("memory", "out of memory");
	return p;
}

static uint64_t rng;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double uniform(void)
{
	return (double)(splitmix64() >> 11) * 0x1.0p-53;
}

/* Every distinct word of the corpus; an open-addressing table maps a word
 * to its entry. */
typedef struct entry {
	char *word;
	long count;
	long id;                /* in the vocabulary, or -1 */
} entry;

static entry *ents;
static long nents, cents;
static long *slots;
static uint64_t smask;

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

static long intern(const char *w)
{
	if (2 * (uint64_t)(nents + 1) > smask) {
		uint64_t m = smask ? 2 * (smask + 1) : 1 << 16;
		slots = xrealloc(slots, m * sizeof *slots);
		for (uint64_t h = 0; h < m; h++)
			slots[h] = -1;
		smask = m - 1;
		for (long e = 0; e < nents; e++) {
			uint64_t h = fnv1a(ents[e].word) & smask;
			while (slots[h] >= 0)
				h = (h + 1) & smask;
			slots[h] = e;
		}
	}
	uint64_t h = fnv1a(w) & smask;
	for (; slots[h] >= 0; h = (h + 1) & smask)
		if (!strcmp(ents[slots[h]].word, w))
			return slots[h];
	if (nents == cents) {
		cents = cents ? 2 * cents : 1 << 15;
		ents = xrealloc(ents, (size_t)cents * sizeof *ents);
	}
	ents[nents].word = strdup(w);
	if (!ents[nents].word)
		die("memory", "out of memory");
	ents[nents].count = 0;
	ents[nents].id = -1;
	slots[h] = nents;
	return nents++;
}

/* The corpus as entries, sentence after sentence: sentence s is
 * toks[ends[s - 1] .. ends[s]). */
static long *toks, ntoks, ctoks;
static long *ends, nsent, csent;

static void load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		long before = ntoks;
		for (char *p = line, *w; *(p += strspn(p, " \t\r\n\v\f"));) {
			w = p;
			p += strcspn(p, " \t\r\n\v\f");
			char c = *p;
			*p = 0;
			if (ntoks == ctoks) {
				ctoks = ctoks ? 2 * ctoks : 1 << 20;
				toks = xrealloc(toks, (size_t)ctoks * sizeof *toks);
			}
			long e = intern(w);
			ents[e].count++;
			toks[ntoks++] = e;
			*p = c;
		}
		if (ntoks == before)
			continue;
		if (nsent == csent) {
			csent = csent ? 2 * csent : 1 << 16;
			ends = xrealloc(ends, (size_t)csent * sizeof *ends);
		}
		ends[nsent++] = ntoks;
	}
	if (ferror(f))
		die(path, strerror(errno));
	free(line);
	fclose(f);
}

/* Most frequent first, ties by bytes: the same vocabulary order on every
 * machine, whatever qsort does with equal keys. */
static int by_count(const void *a, const void *b)
{
	const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->word, y->word);
}

static long num(const char *arg, const char *val, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(val, &end, 10);
	if (!*val || *end || errno || v < lo || v > hi)
		die(arg, "expected an integer in range");
	return v;
}

static double real(const char *arg, const char *val, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(val, &end);
	if (!*val || *end || errno || !(v >= lo && v <= hi))
		die(arg, "expected a number in range");
	return v;
}

int main(int argc, char **argv)
{
	const char *data = "samples/data/brown.txt", *out = NULL;
	long dim = 100, window = 5, negative = 5, epochs = 5, min_count = 5;
	double sample = 1e-3, alpha0 = 0.025;
	uint64_t seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = strchr(a, '=');
		v = v ? v + 1 : "";
#define IS(name) (!strncmp(a, name "=", sizeof name))
		if (!strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (IS("--data")) {
			data = v;
		} else if (IS("--out")) {
			out = v;
		} else if (IS("--dim")) {
			dim = num(a, v, 1, 10000);
		} else if (IS("--window")) {
			window = num(a, v, 1, 1000);
		} else if (IS("--negative")) {
			negative = num(a, v, 0, 1000);
		} else if (IS("--epochs")) {
			epochs = num(a, v, 1, 100000);
		} else if (IS("--min-count")) {
			min_count = num(a, v, 1, LONG_MAX);
		} else if (IS("--sample")) {
			sample = real(a, v, 0, 1);
		} else if (IS("--alpha")) {
			alpha0 = real(a, v, 0, 10);
		} else if (IS("--seed")) {
			seed = (uint64_t)num(a, v, 0, LONG_MAX);
		} else {
			fprintf(stderr, "%s: unknown argument %s\n", prog, a);
			usage(stderr);
			return 2;
		}
#undef IS
	}
	rng = seed;

	load(data);
	entry **order = xrealloc(NULL, (size_t)nents * sizeof *order);
	for (long e = 0; e < nents; e++)
		order[e] = &ents[e];
	qsort(order, (size_t)nents, sizeof *order, by_count);
	long V = 0;
	while (V < nents && order[V]->count >= min_count) {
		order[V]->id = V;
		V++;
	}
	if (V < 2)
		die(data, "fewer than 2 words reach --min-count");
	/* The corpus in vocabulary ids; dropped words leave no gap. */
	long n = 0, s = 0;
	for (long t = 0, sn = 0; sn < nsent; sn++) {
		for (; t < ends[sn]; t++)
			if (ents[toks[t]].id >= 0)
				toks[n++] = ents[toks[t]].id;
		if (n > (s ? ends[s - 1] : 0))
			ends[s++] = n;
	}
	nsent = s;
	long train_words = n;

	/* Sub-sampling: the probability of keeping each word. */
	double *keep = xrealloc(NULL, (size_t)V * sizeof *keep);
	for (long w = 0; w < V; w++) {
		double c = (double)order[w]->count, st = sample * (double)train_words;
		keep[w] = sample > 0 ? (sqrt(c / st) + 1) * st / c : 1;
	}
	/* Negatives: word w fills count^0.75 / sum of the table. */
	int *table = xrealloc(NULL, TABLE_SIZE * sizeof *table);
	double zsum = 0, cum;
	for (long w = 0; w < V; w++)
		zsum += pow((double)order[w]->count, 0.75);
	long w = 0;
	cum = pow((double)order[0]->count, 0.75) / zsum;
	for (long a = 0; a < TABLE_SIZE; a++) {
		table[a] = (int)w;
		if ((double)a / TABLE_SIZE > cum && w < V - 1) {
			w++;
			cum += pow((double)order[w]->count, 0.75) / zsum;
		}
	}
	float sigmoid[EXP_TABLE_SIZE];
	for (int i = 0; i < EXP_TABLE_SIZE; i++) {
		double x = exp(((double)i / EXP_TABLE_SIZE * 2 - 1) * MAX_EXP);
		sigmoid[i] = (float)(x / (x + 1));
	}
	size_t nv = (size_t)V * (size_t)dim;
	float *in = xrealloc(NULL, nv * sizeof *in);
	float *outv = xrealloc(NULL, nv * sizeof *outv);
	float *grad = xrealloc(NULL, (size_t)dim * sizeof *grad);
	for (size_t k = 0; k < nv; k++) {
		in[k] = (float)((uniform() - 0.5) / (double)dim);
		outv[k] = 0;
	}
	/* Opened before training: a bad --out should not cost one. */
	FILE *fout = NULL;
	if (out && !(fout = fopen(out, "w")))
		die(out, strerror(errno));
	long *sen = xrealloc(NULL, 1);
	long csen = 0;

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	double total = (double)epochs * (double)train_words + 1;
	long long done = 0;
	for (long ep = 0; ep < epochs; ep++) {
		for (long sn = 0, t = 0; sn < nsent; t = ends[sn++]) {
			float alpha = (float)(alpha0 * (1 - (double)done / total));
			if (alpha < alpha0 * 1e-4)
				alpha = (float)(alpha0 * 1e-4);
			long len = 0;
			if (csen < ends[sn] - t) {
				csen = ends[sn] - t;
				sen = xrealloc(sen, (size_t)csen * sizeof *sen);
			}
			for (; t < ends[sn]; t++) {
				done++;
				if (sample > 0 && keep[toks[t]] < uniform())
					continue;
				sen[len++] = toks[t];
			}
			for (long pos = 0; pos < len; pos++) {
				long word = sen[pos];
				/* Drawn before the negatives, whatever the sentence
				 * edges leave of the window: the draws do not depend on
				 * where the centre word sits. */
				long b = 1 + (long)(splitmix64() % (uint64_t)window);
				long lo = pos - b > 0 ? pos - b : 0;
				long hi = pos + b < len - 1 ? pos + b : len - 1;
				for (long c = lo; c <= hi; c++) {
					if (c == pos)
						continue;
					float *x = in + (size_t)sen[c] * (size_t)dim;
					memset(grad, 0, (size_t)dim * sizeof *grad);
					for (long d = 0; d <= negative; d++) {
						long target = word;
						float label = 1;
						if (d > 0) {
							target = table[splitmix64() % TABLE_SIZE];
							if (target == word)
								continue;
							label = 0;
						}
						float *y = outv + (size_t)target * (size_t)dim;
						float f = lanes_dot_f(x, y, dim), g;
						if (f >= MAX_EXP)
							g = (label - 1) * alpha;
						else if (f <= -MAX_EXP)
							g = label * alpha;
						else {
							/* f just below MAX_EXP may round up to the end. */
							int i = (int)((f + MAX_EXP) * (EXP_TABLE_SIZE / (2.0f * MAX_EXP)));
							g = (label - sigmoid[i < EXP_TABLE_SIZE ? i : EXP_TABLE_SIZE - 1]) * alpha;
						}
						for (long k = 0; k < dim; k++)
							grad[k] += g * y[k];
						for (long k = 0; k < dim; k++)
							y[k] += g * x[k];
					}
					for (long k = 0; k < dim; k++)
						x[k] += grad[k];
				}
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;

	printf("vocabulary %ld\nsentences %ld\ntrain_words %ld\nepochs %ld\n",
	       V, nsent, train_words, epochs);
	printf("train_seconds %.3f\nwords/s %.0f\n", secs, (double)done / (secs > 0 ? secs : 1e-9));
	if (fout) {
		FILE *f = fout;
		fprintf(f, "%ld %ld\n", V, dim);
		for (long v = 0; v < V; v++) {
			fputs(order[v]->word, f);
			for (long k = 0; k < dim; k++)
				fprintf(f, " %.6g", in[(size_t)v * (size_t)dim + (size_t)k]);
			putc('\n', f);
		}
		if (fflush(f) || ferror(f) || fclose(f))
			die(out, strerror(errno ? errno : EIO));
	}
	if (fflush(stdout) || ferror(stdout))
		die("standard output", strerror(errno ? errno : EIO));
	return 0;
}
