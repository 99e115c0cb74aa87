/* w2v-eval: how well word vectors know WordNet's synonyms.
 *
 * Reads word vectors in word2vec's text format (a line "V D", then
 * "WORD X1 ... XD" per word; fastText's .vec files are the same) and the
 * synsets of WordNet (data.noun, data.verb, data.adj and data.adv of
 * Debian's wordnet-base; format in wndb(5)), and prints
 *
 *   vocabulary V
 *   dimension D
 *   synonym_pairs N      distinct pairs {a, b}, a != b, of one-word lemmas
 *                        of one synset, lowercased, both in the vocabulary
 *   synonym_cosine C     their mean cosine similarity
 *   random_cosine R      the mean cosine of N random pairs of distinct
 *                        vocabulary words
 *   margin C-R
 *   centred_synonym_cosine, centred_random_cosine, centred_margin
 *                        the same after centring: each vector scaled to
 *                        length 1, less the mean of those unit vectors
 *   neighbours W: W1 C1, W2 C2, ...   the --k nearest words to W by
 *                        (plain) cosine
 *
 * Why the centred figures: skip-gram with negative sampling gives all
 * vectors a common direction, strongest on a small corpus and on rare
 * words, so that on Brown any two words have a plain cosine near 0.7 to
 * 0.8 and rare ones more; random vocabulary pairs, mostly rare words,
 * then score above WordNet's synonyms, which are more frequent, and the
 * plain margin comes out negative for fastText and word2vec alike.
 * Taking out the common direction (the first step of Mu and Viswanath's
 * "all-but-the-top") puts random pairs near 0, and the centred margin is the
 * figure to compare between two trainings.
 *
 * The random pairs come from splitmix64 under --seed, so the same file
 * gives the same figures everywhere; cosines are summed in double, in
 * the order the pairs are first met in WordNet, for the same reason.
 * Multi-word lemmas (with '_') are left out: a corpus tokenised on spaces
 * has no vectors for them.  Vocabulary words are matched as written, so a
 * vectors file with capitals matches only the lowercase ones.
 */
#define _POSIX_C_SOURCE 200809L     /* getline */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "w2v-eval";

static void usage(FILE *f)
{
	fputs("usage: w2v-eval [--wordnet=DIR] [--neighbours=W1,W2,...] [--k=N]\n"
	      "                [--seed=S] VECTORS\n"
	      "\n"
	      "Evaluate word vectors (word2vec/fastText text format) against the\n"
	      "synonyms of WordNet: the mean cosine of synonym pairs, of as many\n"
	      "random pairs, their difference, and nearest neighbours.\n"
	      "\n"
	      "  --wordnet=DIR       WordNet's data.* files (default /usr/share/wordnet)\n"
	      "  --neighbours=LIST   words to list neighbours of, comma-separated\n"
	      "                      (default man,government,money,city,day,war;\n"
	      "                      empty: none)\n"
	      "  --k=N               neighbours per word (default 5)\n"
	      "  --seed=S            seed of the random pairs (default 1)\n", f);
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, why);
	exit(1);
}

/* "FILE:LINE: why" */
static void die_at(const char *path, long line, const char *why)
{
	fprintf(stderr, "%s: %s:%ld: %s\n", prog, path, line, why);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("memory", "out of memory");
	return p;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
	return h;
}

/* The vectors, and an open-addressing table of their words. */
static long V, D;
static char **words;
static float *vec;
static double *norm;
static long *slot;              /* word index or -1; size mask + 1 */
static uint64_t mask;

static long lookup(const char *s, size_t n)
{
	for (uint64_t h = fnv1a(s, n) & mask;; h = (h + 1) & mask) {
		long w = slot[h];
		if (w < 0)
			return -1;
		if (!strncmp(words[w], s, n) && !words[w][n])
			return w;
	}
}

static bool add_word(long w)
{
	size_t n = strlen(words[w]);
	uint64_t h = fnv1a(words[w], n) & mask;
	for (; slot[h] >= 0; h = (h + 1) & mask)
		if (!strcmp(words[slot[h]], words[w]))
			return false;
	slot[h] = w;
	return true;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void load_vectors(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	char *line = NULL, *end;
	size_t cap = 0;
	long ln = 1;
	if (getline(&line, &cap, f) < 0)
		die(path, ferror(f) ? strerror(errno) : "empty file");
	V = strtol(line, &end, 10);
	char *p = end;
	D = strtol(p, &end, 10);
	while (space(*end))
		end++;
	if (p == end || *end || V < 1 || D < 1 || V > 100000000 || D > 100000)
		die_at(path, ln, "expected a header \"WORDS DIMENSIONS\"");
	words = xmalloc((size_t)V * sizeof *words);
	vec = xmalloc((size_t)V * (size_t)D * sizeof *vec);
	norm = xmalloc((size_t)V * sizeof *norm);
	for (mask = 1; mask < 2 * (uint64_t)V; mask <<= 1)
		;
	slot = xmalloc(mask * sizeof *slot);
	for (uint64_t h = 0; h < mask; h++)
		slot[h] = -1;
	mask--;
	long n = 0, lines = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		ln++;
		p = line;
		while (space(*p))
			p++;
		if (!*p)
			continue;
		if (lines++ == V)
			die_at(path, ln, "more vectors than the header says");
		char *w = p;
		while (*p && !space(*p))
			p++;
		if (*p)
			*p++ = 0;
		words[n] = strdup(w);
		if (!words[n])
			die(path, "out of memory");
		float *x = vec + (size_t)n * (size_t)D;
		double s = 0;
		for (long k = 0; k < D; k++) {
			x[k] = strtof(p, &end);
			if (end == p || !isfinite(x[k]))
				die_at(path, ln, "expected as many numbers as the dimension");
			s += (double)x[k] * x[k];
			p = end;
		}
		while (space(*p))
			p++;
		if (*p)
			die_at(path, ln, "more numbers than the dimension");
		norm[n] = sqrt(s);
		/* A repeated word keeps its first vector, as a lookup would. */
		if (!add_word(n))
			free(words[n]);
		else
			n++;
	}
	if (ferror(f))
		die(path, strerror(errno));
	free(line);
	fclose(f);
	if (lines < V) {
		char msg[80];
		snprintf(msg, sizeof msg, "%ld vectors, the header says %ld", lines, V);
		die(path, msg);
	}
	V = n;
}

static double cosine(long a, long b)
{
	if (norm[a] == 0 || norm[b] == 0)
		return 0;
	const float *x = vec + (size_t)a * (size_t)D, *y = vec + (size_t)b * (size_t)D;
	double s = 0;
	for (long k = 0; k < D; k++)
		s += (double)x[k] * y[k];
	return s / (norm[a] * norm[b]);
}

/* Centring without a second copy of the vectors: with u the unit vectors
 * (0 for a zero vector), m their mean, p_v = u_v.m and mm = m.m,
 * (u_a - m).(u_b - m) = cos(a, b) - p_a - p_b + mm, and
 * |u_v - m|^2 = |u_v|^2 - 2 p_v + mm. */
static double *proj, mm;

static void centre(void)
{
	double *m = xmalloc((size_t)D * sizeof *m);
	proj = xmalloc((size_t)V * sizeof *proj);
	for (long k = 0; k < D; k++)
		m[k] = 0;
	for (long v = 0; v < V; v++)
		for (long k = 0; k < D && norm[v] > 0; k++)
			m[k] += vec[(size_t)v * (size_t)D + (size_t)k] / norm[v];
	mm = 0;
	for (long k = 0; k < D; k++) {
		m[k] /= (double)V;
		mm += m[k] * m[k];
	}
	for (long v = 0; v < V; v++) {
		proj[v] = 0;
		for (long k = 0; k < D && norm[v] > 0; k++)
			proj[v] += vec[(size_t)v * (size_t)D + (size_t)k] / norm[v] * m[k];
	}
	free(m);
}

static double centred_cosine(long a, long b, double cos)
{
	double na = (norm[a] > 0) - 2 * proj[a] + mm, nb = (norm[b] > 0) - 2 * proj[b] + mm;
	if (na <= 0 || nb <= 0)
		return 0;
	return (cos - proj[a] - proj[b] + mm) / sqrt(na * nb);
}

/* The synonym pairs: a set of lo << 32 | hi word indices, kept in the order
 * first seen. */
static uint64_t *pairs, *pset;
static size_t npairs, cpairs, pmask;

static void add_pair(long a, long b)
{
	uint64_t key = a < b ? (uint64_t)a << 32 | (uint64_t)b : (uint64_t)b << 32 | (uint64_t)a;
	if (2 * (npairs + 1) > pmask) {
		size_t m = pmask ? 2 * (pmask + 1) : 1024;
		uint64_t *t = xmalloc(m * sizeof *t);
		for (size_t h = 0; h < m; h++)
			t[h] = UINT64_MAX;
		for (size_t i = 0; i < npairs; i++) {
			size_t h = fnv1a((const char *)&pairs[i], sizeof pairs[i]) & (m - 1);
			while (t[h] != UINT64_MAX)
				h = (h + 1) & (m - 1);
			t[h] = pairs[i];
		}
		free(pset);
		pset = t;
		pmask = m - 1;
	}
	size_t h = fnv1a((const char *)&key, sizeof key) & pmask;
	for (; pset[h] != UINT64_MAX; h = (h + 1) & pmask)
		if (pset[h] == key)
			return;
	pset[h] = key;
	if (npairs == cpairs) {
		cpairs = cpairs ? 2 * cpairs : 1024;
		pairs = realloc(pairs, cpairs * sizeof *pairs);
		if (!pairs)
			die("memory", "out of memory");
	}
	pairs[npairs++] = key;
}

/* One wndb(5) data file: "OFFSET LEXFILE TYPE W_CNT WORD LEX_ID ... |
 * gloss", W_CNT in two hex digits; indented lines are the licence. */
static void load_synsets(const char *dir, const char *name)
{
	size_t plen = strlen(dir) + strlen(name) + 2;
	char *path = xmalloc(plen);
	snprintf(path, plen, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	long ln = 0;
	long *ids = NULL;
	size_t cids = 0;
	while (getline(&line, &cap, f) > 0) {
		ln++;
		if (line[0] == ' ' || line[0] == '\n')
			continue;
		char *p = line, *end;
		for (int field = 0; field < 3; field++) {
			while (*p && !space(*p))
				p++;
			while (space(*p))
				p++;
		}
		unsigned long n = strtoul(p, &end, 16);
		if (end == p || !space(*end) || n == 0 || n > 255)
			die_at(path, ln, "malformed synset line (no word count)");
		if (n > cids) {
			cids = n;
			free(ids);
			ids = xmalloc(cids * sizeof *ids);
		}
		size_t nids = 0;
		p = end;
		for (unsigned long i = 0; i < n; i++) {
			while (space(*p))
				p++;
			char *w = p;
			while (*p && !space(*p))
				p++;
			size_t len = (size_t)(p - w);
			while (space(*p))
				p++;
			char *lex = p;              /* the lex_id, one hex digit */
			while (*p && !space(*p))
				p++;
			if (!len || p == lex)
				die_at(path, ln, "malformed synset line (fewer words than its count)");
			/* An adjective's syntactic marker: "galore(ip)". */
			if (w[len - 1] == ')') {
				char *o = memchr(w, '(', len);
				if (o)
					len = (size_t)(o - w);
			}
			if (!len || memchr(w, '_', len))
				continue;
			for (size_t k = 0; k < len; k++)
				if (w[k] >= 'A' && w[k] <= 'Z')
					w[k] = (char)(w[k] - 'A' + 'a');
			long id = lookup(w, len);
			bool seen = id < 0;
			for (size_t k = 0; k < nids && !seen; k++)
				seen = ids[k] == id;
			if (!seen)
				ids[nids++] = id;
		}
		for (size_t a = 0; a < nids; a++)
			for (size_t b = a + 1; b < nids; b++)
				add_pair(ids[a], ids[b]);
	}
	if (ferror(f))
		die(path, strerror(errno));
	fclose(f);
	free(line);
	free(ids);
	free(path);
}

/* PREFIXsynonym_cosine, PREFIXrandom_cosine and PREFIXmargin, "nan" for a
 * mean of nothing. */
static void print_means(const char *prefix, double syn, double rnd, size_t ns, size_t nr)
{
	if (ns)
		printf("%ssynonym_cosine %.4f\n", prefix, syn / (double)ns);
	else
		printf("%ssynonym_cosine nan\n", prefix);
	if (nr)
		printf("%srandom_cosine %.4f\n", prefix, rnd / (double)nr);
	else
		printf("%srandom_cosine nan\n", prefix);
	if (ns && nr)
		printf("%smargin %.4f\n", prefix, syn / (double)ns - rnd / (double)nr);
	else
		printf("%smargin nan\n", prefix);
}

static void neighbours(const char *list, long k)
{
	long *best = xmalloc((size_t)k * sizeof *best);
	double *bc = xmalloc((size_t)k * sizeof *bc);
	while (*list) {
		size_t n = strcspn(list, ",");
		if (n) {
			printf("neighbours %.*s:", (int)n, list);
			long w = lookup(list, n);
			if (w < 0) {
				fputs(" not in the vocabulary\n", stdout);
			} else {
				long got = 0;
				for (long v = 0; v < V; v++) {
					if (v == w)
						continue;
					double c = cosine(w, v);
					/* Strictly greater: on a tie the earlier word stays ahead. */
					long i = got < k ? got++ : k;
					for (; i > 0 && c > bc[i - 1]; i--) {
						if (i < k) {
							best[i] = best[i - 1];
							bc[i] = bc[i - 1];
						}
					}
					if (i < k) {
						best[i] = v;
						bc[i] = c;
					}
				}
				for (long i = 0; i < got; i++)
					printf("%s %s %.4f", i ? "," : "", words[best[i]], bc[i]);
				putchar('\n');
			}
		}
		list += n + (list[n] == ',');
	}
	free(best);
	free(bc);
}

int main(int argc, char **argv)
{
	const char *wordnet = "/usr/share/wordnet";
	const char *nb = "man,government,money,city,day,war";
	const char *path = NULL;
	long k = 5;
	uint64_t seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strncmp(a, "--wordnet=", 10)) {
			wordnet = a + 10;
		} else if (!strncmp(a, "--neighbours=", 13)) {
			nb = a + 13;
		} else if (!strncmp(a, "--k=", 4)) {
			errno = 0;
			k = strtol(a + 4, &end, 10);
			if (!a[4] || *end || errno || k < 1 || k > 1000000)
				die(a, "expected a count from 1");
		} else if (!strncmp(a, "--seed=", 7)) {
			errno = 0;
			seed = strtoull(a + 7, &end, 10);
			if (!a[7] || *end || errno || a[7] == '-')
				die(a, "expected a non-negative integer");
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			usage(stderr);
			return 2;
		} else if (!path) {
			path = a;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	load_vectors(path);
	static const char *const files[] = { "data.noun", "data.verb", "data.adj", "data.adv" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		load_synsets(wordnet, files[i]);

	printf("vocabulary %ld\ndimension %ld\nsynonym_pairs %zu\n", V, D, npairs);
	centre();
	double syn = 0, rnd = 0, csyn = 0, crnd = 0;
	for (size_t i = 0; i < npairs; i++) {
		long a = (long)(pairs[i] >> 32), b = (long)(pairs[i] & 0xffffffffu);
		double c = cosine(a, b);
		syn += c;
		csyn += centred_cosine(a, b, c);
	}
	size_t nrnd = V > 1 ? npairs : 0;
	for (size_t i = 0; i < nrnd; i++) {
		/* Modulo bias is below V / 2^64: nothing next to the sampling noise. */
		long a = (long)(splitmix64(&seed) % (uint64_t)V);
		long b = (long)(splitmix64(&seed) % (uint64_t)(V - 1));
		b += b >= a;
		double c = cosine(a, b);
		rnd += c;
		crnd += centred_cosine(a, b, c);
	}
	print_means("", syn, rnd, npairs, nrnd);
	print_means("centred_", csyn, crnd, npairs, nrnd);
	neighbours(nb, k);
	if (fflush(stdout) || ferror(stdout))
		die("standard output", strerror(errno ? errno : EIO));
	return 0;
}
