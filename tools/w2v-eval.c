/* w2v-eval: how well word vectors know WordNet's synonyms.
 *
 * Reads word vectors in word2vec's text format (a line "V D", then
 * "WORD X1 ... XD" per word; fastText's .vec files are the same) or the
 * same lines without the header, as samples/word2vec.sap writes them,
 * and the synsets of WordNet (data.noun, data.verb, data.adj and data.adv
 * of Debian's wordnet-base; format in wndb(5)), and prints
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
 *   centred_auc A        the chance that a synonym pair's centred cosine
 *                        is above a random pair's (ties count half): 0.5
 *                        for vectors that know nothing, 1 for a perfect
 *                        ranking; the figure least moved by the scale of
 *                        the vectors
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
 *
 * The header is optional: a first line of exactly two integers is one (so
 * a headerless file of dimension 1 cannot start with a word written as an
 * integer and an integer value); without it the first vector line sets
 * the dimension.  Either way every vector must have that many numbers.
 *
 * With --pairs it reads no vectors and writes instead the synonym pairs
 * it would score, by the same rules but with no vocabulary to meet, one
 * "A B" a line in the order first met, A before B as in their synset: the
 * list for another tool, or to see what the figures stand on.
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
	      "       w2v-eval [--wordnet=DIR] --pairs\n"
	      "\n"
	      "Evaluate word vectors (word2vec/fastText text format, the \"WORDS DIM\"\n"
	      "header optional) against the synonyms of WordNet: the mean cosine of\n"
	      "synonym pairs, of as many random pairs, their difference, and nearest\n"
	      "neighbours.\n"
	      "\n"
	      "  --wordnet=DIR       WordNet's data.* files (default /usr/share/wordnet)\n"
	      "  --pairs             write the synonym pairs, \"A B\" a line, instead:\n"
	      "                      one-word lemmas of one synset, lowercased, each\n"
	      "                      pair once, in the order first met; no VECTORS\n"
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

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("memory", "out of memory");
	return p;
}

/* The words, V of them (the vocabulary, or with --pairs the lemmas), and
 * an open-addressing table of them; the vectors, D numbers a word. */
static long V, D, cwords;
static char **words;
static float *vec;
static double *norm;
static long *slot;              /* word index or -1; size mask + 1 */
static uint64_t mask;

/* The slot of S[0 .. N) in the table: its word's, or the empty one where
 * it would go. */
static uint64_t find(const char *s, size_t n)
{
	uint64_t h = fnv1a(s, n) & mask;
	for (; slot[h] >= 0; h = (h + 1) & mask)
		if (!strncmp(words[slot[h]], s, n) && !words[slot[h]][n])
			break;
	return h;
}

static long lookup(const char *s, size_t n)
{
	return slot ? slot[find(s, n)] : -1;
}

/* S[0 .. N) as a word: its index, the new one V - 1 if it was not there
 * yet.  The table stays under half full, so probes stay short. */
static long intern(const char *s, size_t n)
{
	if (2 * (uint64_t)(V + 1) > mask) {
		uint64_t m = slot ? 2 * (mask + 1) : 1 << 16;
		slot = xrealloc(slot, m * sizeof *slot);
		for (uint64_t h = 0; h < m; h++)
			slot[h] = -1;
		mask = m - 1;
		for (long w = 0; w < V; w++)
			slot[find(words[w], strlen(words[w]))] = w;
	}
	uint64_t h = find(s, n);
	if (slot[h] >= 0)
		return slot[h];
	if (V == cwords) {
		cwords = cwords ? 2 * cwords : 1 << 14;
		words = xrealloc(words, (size_t)cwords * sizeof *words);
	}
	words[V] = xmalloc(n + 1);
	memcpy(words[V], s, n);
	words[V][n] = 0;
	slot[h] = V;
	return V++;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Whether LINE is a header "V D": exactly two integer fields. */
static bool header(const char *line, long *v, long *d)
{
	long x[2];
	const char *p = line;
	char *end;
	for (int i = 0; i < 2; i++) {
		while (space(*p))
			p++;
		errno = 0;
		x[i] = strtol(p, &end, 10);
		if (end == p || errno || (*end && !space(*end)))
			return false;
		p = end;
	}
	while (space(*p))
		p++;
	if (*p)
		return false;
	*v = x[0];
	*d = x[1];
	return true;
}

/* The numbers of a vector line after its word, from P: how many, and
 * nothing else on the line; for the first line of a headerless file. */
static long count_numbers(const char *path, long ln, const char *p)
{
	long n = 0;
	char *end;
	for (;;) {
		while (space(*p))
			p++;
		if (!*p)
			return n;
		float x = strtof(p, &end);
		if (end == p || (*end && !space(*end)) || !isfinite(x))
			die_at(path, ln, "expected numbers after the word");
		p = end;
		n++;
	}
}

static void load_vectors(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	char *line = NULL, *end;
	size_t cap = 0;
	long ln = 0, hv = -1;       /* hv: the header's word count, if any */
	long lines = 0, crows = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		ln++;
		char *p = line;
		while (space(*p))
			p++;
		if (!*p)
			continue;
		if (!D && hv < 0 && header(p, &hv, &D)) {
			if (hv < 1 || D < 1 || hv > 100000000 || D > 100000)
				die_at(path, ln, "header \"WORDS DIMENSIONS\" out of range");
			continue;
		}
		if (lines++ == hv)
			die_at(path, ln, "more vectors than the header says");
		char *w = p;
		while (*p && !space(*p))
			p++;
		size_t wlen = (size_t)(p - w);
		if (!D) {
			D = count_numbers(path, ln, p);
			if (D < 1)
				die_at(path, ln, "expected a vector: a word and its numbers");
			if (D > 100000)
				die_at(path, ln, "more than 100000 numbers");
		}
		/* Read into row V; a repeated word leaves it to the next. */
		if (V == crows) {
			crows = crows ? 2 * crows : 1 << 14;
			vec = xrealloc(vec, (size_t)crows * (size_t)D * sizeof *vec);
			norm = xrealloc(norm, (size_t)crows * sizeof *norm);
		}
		float *x = vec + (size_t)V * (size_t)D;
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
		norm[V] = sqrt(s);
		/* A repeated word keeps its first vector, as a lookup would. */
		intern(w, wlen);
	}
	if (ferror(f))
		die(path, strerror(errno));
	free(line);
	fclose(f);
	if (hv >= 0 && lines < hv) {
		char msg[80];
		snprintf(msg, sizeof msg, "%ld vectors, the header says %ld", lines, hv);
		die(path, msg);
	}
	if (!lines)
		die(path, ln ? "no vectors" : "empty file");
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

/* The synonym pairs, a << 32 | b, in the order first seen, a before b as
 * in that synset; and the set of them as lo << 32 | hi, each unordered
 * pair once. */
static uint64_t *pairs, *pset;
static size_t npairs, cpairs, pmask;

static uint64_t pair_key(uint64_t p)
{
	uint64_t a = p >> 32, b = p & 0xffffffffu;
	return a < b ? p : b << 32 | a;
}

static void add_pair(long a, long b)
{
	uint64_t key = pair_key((uint64_t)a << 32 | (uint64_t)b);
	if (2 * (npairs + 1) > pmask) {
		size_t m = pmask ? 2 * (pmask + 1) : 1024;
		uint64_t *t = xmalloc(m * sizeof *t);
		for (size_t h = 0; h < m; h++)
			t[h] = UINT64_MAX;
		for (size_t i = 0; i < npairs; i++) {
			uint64_t k = pair_key(pairs[i]);
			size_t h = fnv1a((const char *)&k, sizeof k) & (m - 1);
			while (t[h] != UINT64_MAX)
				h = (h + 1) & (m - 1);
			t[h] = k;
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
	pairs[npairs++] = (uint64_t)a << 32 | (uint64_t)b;
}

/* One wndb(5) data file: "OFFSET LEXFILE TYPE W_CNT WORD LEX_ID ... |
 * gloss", W_CNT in two hex digits; indented lines are the licence.  With
 * ALL, every lemma becomes a word; without, only the vocabulary's count. */
static void load_synsets(const char *dir, const char *name, bool all)
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
			long id = all ? intern(w, len) : lookup(w, len);
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

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The chance that a value of p is above one of q, ties half (the
 * Mann-Whitney U over |p| |q|): both sorted, one merge. */
static double auc(double *p, size_t np, double *q, size_t nq)
{
	qsort(p, np, sizeof *p, by_value);
	qsort(q, nq, sizeof *q, by_value);
	double u = 0;
	size_t below = 0, eq = 0;
	for (size_t i = 0; i < np; i++) {
		while (below < nq && q[below] < p[i])
			below++;
		if (eq < below)
			eq = below;
		while (eq < nq && q[eq] == p[i])
			eq++;
		u += (double)below + 0.5 * (double)(eq - below);
	}
	return u / ((double)np * (double)nq);
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
	bool only_pairs = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--pairs")) {
			only_pairs = true;
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
	static const char *const files[] = { "data.noun", "data.verb", "data.adj", "data.adv" };
	if (only_pairs) {
		if (path) {
			fprintf(stderr, "%s: --pairs reads no vectors (%s)\n", prog, path);
			usage(stderr);
			return 2;
		}
		for (size_t i = 0; i < sizeof files / sizeof *files; i++)
			load_synsets(wordnet, files[i], true);
		for (size_t i = 0; i < npairs; i++)
			printf("%s %s\n", words[pairs[i] >> 32], words[pairs[i] & 0xffffffffu]);
		if (fflush(stdout) || ferror(stdout))
			die("standard output", strerror(errno ? errno : EIO));
		return 0;
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	load_vectors(path);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		load_synsets(wordnet, files[i], false);

	printf("vocabulary %ld\ndimension %ld\nsynonym_pairs %zu\n", V, D, npairs);
	centre();
	double syn = 0, rnd = 0, csyn = 0, crnd = 0;
	double *cs = xmalloc((npairs ? npairs : 1) * sizeof *cs);
	double *cr = xmalloc((npairs ? npairs : 1) * sizeof *cr);
	for (size_t i = 0; i < npairs; i++) {
		/* Lower index first, whatever the synset's order: the same
		 * roundings, so the same figures, as the unordered pair. */
		uint64_t key = pair_key(pairs[i]);
		long a = (long)(key >> 32), b = (long)(key & 0xffffffffu);
		double c = cosine(a, b);
		syn += c;
		csyn += cs[i] = centred_cosine(a, b, c);
	}
	size_t nrnd = V > 1 ? npairs : 0;
	for (size_t i = 0; i < nrnd; i++) {
		/* Modulo bias is below V / 2^64: nothing next to the sampling noise. */
		long a = (long)(splitmix64(&seed) % (uint64_t)V);
		long b = (long)(splitmix64(&seed) % (uint64_t)(V - 1));
		b += b >= a;
		double c = cosine(a, b);
		rnd += c;
		crnd += cr[i] = centred_cosine(a, b, c);
	}
	print_means("", syn, rnd, npairs, nrnd);
	print_means("centred_", csyn, crnd, npairs, nrnd);
	if (npairs && nrnd)
		printf("centred_auc %.4f\n", auc(cs, npairs, cr, nrnd));
	else
		printf("centred_auc nan\n");
	free(cs);
	free(cr);
	neighbours(nb, k);
	if (fflush(stdout) || ferror(stdout))
		die("standard output", strerror(errno ? errno : EIO));
	return 0;
}
