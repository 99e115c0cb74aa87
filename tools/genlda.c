/* genlda: token files for LDA (samples/lda.sap and its serial twin).
 *
 * The output has one token a line, "doc word", 0-based ids, the tokens of
 * document 0 first, then those of document 1, and so on, each document's
 * in text order; comment lines (#) say how it was made.  Two sources:
 *
 * Planted topics (the default).  Topic k owns the words k*V/K ...
 * (k+1)*V/K - 1 (before the id shuffle below): a fraction --own of its
 * mass goes to them, with Zipf weights 1/r^0.8 in a random order, and
 * the rest to all V words, again Zipf-weighted in another random order
 * (the common words every topic uses).  Each document draws its mixture
 * theta ~ Dirichlet(--alpha, ..., --alpha) (small: a few topics per
 * document), its length uniformly in [L/2, 3L/2] for --length=L, and each
 * token a topic from theta and a word from that topic.  Word ids are then
 * put through a random permutation, so that a topic's words are not a
 * range of ids (no real vocabulary is sorted by topic).  The word ids
 * that no token drew stay unused: a trainer that sizes its counts from
 * the largest id sees a few words that never occur, which is harmless.
 *
 * Text (--text=FILE).  One document a line (tools/brown2txt -d writes
 * the Brown corpus so, one line per corpus file), words separated by
 * blanks and lowercased (ASCII letters only, whatever the locale).  As is
 * common for topic models (Griffiths and Steyvers 2004
 * removed stop words and rare words; Mallet drops its stop list by
 * default), a word is dropped when it is on the English stop list below
 * (the 179 words of NLTK's list), holds no letter, or occurs fewer than
 * --min-count times (default 5) in the whole corpus.  Word ids are given
 * in order of first occurrence; --vocab-out=FILE writes "id word count"
 * for them.  A line left with no word is no document.
 *
 * The output is a pure function of the options and input: the generator
 * is our own (xoshiro256** seeded by splitmix64), not the C library's.
 */
#define _POSIX_C_SOURCE 200809L     /* getline, fsync, fileno */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gen.h"

const char *const gen_name = "genlda";

#define WORD_SKEW 0.8

static void usage(FILE *f)
{
	fputs("usage: genlda [--docs=D] [--vocab=V] [--topics=K] [--length=L]\n"
	      "              [--alpha=A] [--own=F] [--seed=S] [--out=FILE]\n"
	      "       genlda --text=FILE [--min-count=N] [--vocab-out=FILE] [--out=FILE]\n"
	      "\n"
	      "Write an LDA corpus as one \"doc word\" token a line, documents in\n"
	      "order, to FILE (default: standard output).  The first form plants\n"
	      "K topics, each owning V/K words that get the fraction F of its mass;\n"
	      "documents mix topics by Dirichlet(A) and have L/2 to 3L/2 tokens.\n"
	      "The second reads text, one document a line, lowercases it and drops\n"
	      "stop words, words with no letter and words seen fewer than N times.\n"
	      "Defaults: --docs=1000 --vocab=5000 --topics=20 --length=100\n"
	      "          --alpha=0.1 --own=0.9 --seed=1 --min-count=5\n", f);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (n != 0 && size > SIZE_MAX / n)
		fail(1, "out of memory");
	p = realloc(p, n * size + 1);
	if (!p)
		fail(1, "out of memory");
	return p;
}

/* ==== Random numbers ==================================================== */

/* Gamma(a, 1) by Marsaglia and Tsang (2000); for a < 1 through
 * Gamma(a + 1) * U^(1/a). */
static double gamma_draw(rng *r, double a)
{
	if (a < 1) {
		double u = 1.0 - uniform(r);
		return gamma_draw(r, a + 1) * pow(u, 1.0 / a);
	}
	double d = a - 1.0 / 3, c = 1.0 / sqrt(9 * d);
	for (;;) {
		double x, v;
		do {
			x = normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = 1.0 - uniform(r);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

static void shuffle(int32_t *a, int64_t n, rng *r)
{
	for (int64_t k = n - 1; k > 0; k--) {
		int64_t m = below(r, k + 1);
		int32_t t = a[k];
		a[k] = a[m];
		a[m] = t;
	}
}

/* The first k with u < cdf[k], cdf increasing with cdf[n - 1] = 1; u may
 * round to the top: the last entry then. */
static int64_t search(const double *cdf, int64_t n, double u)
{
	int64_t lo = 0, hi = n - 1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (u < cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* ==== Output ============================================================ */

/* Written to PATH.tmp and renamed at the end, so an interrupted run never
 * leaves a truncated file that make would take as up to date. */

/* printf would cost more than the sampling at benchmark sizes. */
static char *put_uint(char *p, uint32_t x)
{
	char buf[10];
	int n = 0;
	do
		buf[n++] = (char)('0' + x % 10);
	while (x /= 10);
	while (n)
		*p++ = buf[--n];
	return p;
}

typedef struct tokbuf {
	outfile *o;
	char buf[1 << 16];
	char *p;
	int64_t n;
} tokbuf;

static void tok_put(tokbuf *b, int32_t doc, int32_t word)
{
	if (b->p > b->buf + sizeof b->buf - 32) {
		fwrite(b->buf, 1, (size_t)(b->p - b->buf), b->o->f);
		out_check(b->o);
		b->p = b->buf;
	}
	b->p = put_uint(b->p, (uint32_t)doc);
	*b->p++ = ' ';
	b->p = put_uint(b->p, (uint32_t)word);
	*b->p++ = '\n';
	b->n++;
}

static void tok_flush(tokbuf *b)
{
	fwrite(b->buf, 1, (size_t)(b->p - b->buf), b->o->f);
	out_check(b->o);
	b->p = b->buf;
}

/* ==== Planted topics ==================================================== */

static void planted(outfile *o, int64_t docs, int64_t vocab, int topics, int64_t length,
                    double alpha, double own, uint64_t seed)
{
	/* phi[k] as a cdf over the V words, in pre-shuffle ids. */
	double *cdf = xmalloc((size_t)topics * (size_t)vocab, sizeof(double));
	double *w = xmalloc((size_t)vocab, sizeof(double));
	int32_t *order = xmalloc((size_t)vocab, sizeof(int32_t));
	rng rt = rng_make(seed, 1);
	/* The background every topic shares. */
	double *bg = xmalloc((size_t)vocab, sizeof(double));
	for (int64_t v = 0; v < vocab; v++)
		order[v] = (int32_t)v;
	shuffle(order, vocab, &rt);
	double bsum = 0;
	for (int64_t r = 0; r < vocab; r++)
		bsum += bg[order[r]] = pow((double)(r + 1), -WORD_SKEW);
	for (int64_t v = 0; v < vocab; v++)
		bg[v] /= bsum;
	for (int k = 0; k < topics; k++) {
		int64_t lo = k * vocab / topics, hi = (k + 1) * vocab / topics;
		int64_t n = hi - lo;
		for (int64_t r = 0; r < n; r++)
			order[r] = (int32_t)(lo + r);
		shuffle(order, n, &rt);
		double s = 0;
		for (int64_t v = 0; v < vocab; v++)
			w[v] = 0;
		for (int64_t r = 0; r < n; r++)
			s += w[order[r]] = pow((double)(r + 1), -WORD_SKEW);
		double *c = cdf + (size_t)k * (size_t)vocab, acc = 0;
		for (int64_t v = 0; v < vocab; v++) {
			acc += own * w[v] / s + (1 - own) * bg[v];
			c[v] = acc;
		}
		for (int64_t v = 0; v < vocab; v++)
			c[v] /= acc;
	}
	int32_t *id = xmalloc((size_t)vocab, sizeof(int32_t));
	for (int64_t v = 0; v < vocab; v++)
		id[v] = (int32_t)v;
	rng rp = rng_make(seed, 2);
	shuffle(id, vocab, &rp);

	fprintf(o->f, "# genlda --docs=%" PRId64 " --vocab=%" PRId64 " --topics=%d"
	        " --length=%" PRId64 " --alpha=%g --own=%g --seed=%" PRIu64 "\n",
	        docs, vocab, topics, length, alpha, own, seed);
	fputs("# one token a line: doc word\n", o->f);
	out_check(o);
	tokbuf *b = xmalloc(1, sizeof *b);
	b->o = o;
	b->p = b->buf;
	b->n = 0;
	double *theta = xmalloc((size_t)topics, sizeof(double));
	rng rd = rng_make(seed, 3);
	for (int64_t d = 0; d < docs; d++) {
		double s = 0;
		for (int k = 0; k < topics; k++)
			s += theta[k] = gamma_draw(&rd, alpha);
		/* All K gammas can underflow to 0 for a tiny alpha: one topic then. */
		if (!(s > 0)) {
			for (int k = 0; k < topics; k++)
				theta[k] = 0;
			theta[below(&rd, topics)] = s = 1;
		}
		double acc = 0;
		for (int k = 0; k < topics; k++)
			theta[k] = acc += theta[k] / s;
		theta[topics - 1] = 1;
		int64_t len = length / 2 + below(&rd, length + 1);
		if (len < 1)
			len = 1;
		for (int64_t t = 0; t < len; t++) {
			int k = (int)search(theta, topics, uniform(&rd));
			int64_t v = search(cdf + (size_t)k * (size_t)vocab, vocab, uniform(&rd));
			tok_put(b, (int32_t)d, id[v]);
		}
	}
	tok_flush(b);
	fprintf(stderr, "genlda: %" PRId64 " documents, %" PRId64 " tokens\n", docs, b->n);
	free(b);
	free(theta);
	free(id);
	free(bg);
	free(order);
	free(w);
	free(cdf);
}

/* ==== Text ============================================================== */

/* NLTK's English stop words (nltk_data corpora/stopwords/english). */
static const char *const stop_words[] = {
	"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you",
	"you're", "you've", "you'll", "you'd", "your", "yours", "yourself",
	"yourselves", "he", "him", "his", "himself", "she", "she's", "her", "hers",
	"herself", "it", "it's", "its", "itself", "they", "them", "their",
	"theirs", "themselves", "what", "which", "who", "whom", "this", "that",
	"that'll", "these", "those", "am", "is", "are", "was", "were", "be",
	"been", "being", "have", "has", "had", "having", "do", "does", "did",
	"doing", "a", "an", "the", "and", "but", "if", "or", "because", "as",
	"until", "while", "of", "at", "by", "for", "with", "about", "against",
	"between", "into", "through", "during", "before", "after", "above",
	"below", "to", "from", "up", "down", "in", "out", "on", "off", "over",
	"under", "again", "further", "then", "once", "here", "there", "when",
	"where", "why", "how", "all", "any", "both", "each", "few", "more",
	"most", "other", "some", "such", "no", "nor", "not", "only", "own",
	"same", "so", "than", "too", "very", "s", "t", "can", "will", "just",
	"don", "don't", "should", "should've", "now", "d", "ll", "m", "o", "re",
	"ve", "y", "ain", "aren", "aren't", "couldn", "couldn't", "didn",
	"didn't", "doesn", "doesn't", "hadn", "hadn't", "hasn", "hasn't",
	"haven", "haven't", "isn", "isn't", "ma", "mightn", "mightn't", "mustn",
	"mustn't", "needn", "needn't", "shan", "shan't", "shouldn",
	"shouldn't", "wasn", "wasn't", "weren", "weren't", "won", "won't",
	"wouldn", "wouldn't",
};

/* Open addressing over the distinct words; ids in order of first sight. */
typedef struct vocab {
	char **word;            /* id -> word */
	int64_t *count;
	int64_t n, cap;
	int32_t *slot;          /* -1 empty, else id */
	size_t nslot;
} vocab;

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

static void vocab_grow(vocab *v)
{
	size_t ns = v->nslot ? 2 * v->nslot : 1024;
	int32_t *slot = xmalloc(ns, sizeof(int32_t));
	for (size_t i = 0; i < ns; i++)
		slot[i] = -1;
	for (int64_t id = 0; id < v->n; id++) {
		size_t i = hash(v->word[id], strlen(v->word[id])) & (ns - 1);
		while (slot[i] >= 0)
			i = (i + 1) & (ns - 1);
		slot[i] = (int32_t)id;
	}
	free(v->slot);
	v->slot = slot;
	v->nslot = ns;
}

/* The id of s[0..n), added if new when add is set, else -1. */
static int32_t vocab_id(vocab *v, const char *s, size_t n, bool add)
{
	if (2 * (size_t)v->n + 2 > v->nslot)
		vocab_grow(v);
	size_t i = hash(s, n) & (v->nslot - 1);
	for (; v->slot[i] >= 0; i = (i + 1) & (v->nslot - 1)) {
		const char *w = v->word[v->slot[i]];
		if (strlen(w) == n && memcmp(w, s, n) == 0)
			return v->slot[i];
	}
	if (!add)
		return -1;
	if (v->n == INT32_MAX)
		fail(1, "more than %d distinct words", INT32_MAX);
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->word = xrealloc(v->word, (size_t)v->cap, sizeof(char *));
		v->count = xrealloc(v->count, (size_t)v->cap, sizeof(int64_t));
	}
	char *w = xmalloc(n + 1, 1);
	memcpy(w, s, n);
	w[n] = '\0';
	v->word[v->n] = w;
	v->count[v->n] = 0;
	v->slot[i] = (int32_t)v->n;
	return (int32_t)v->n++;
}

static bool has_letter(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80)
			return true;
	}
	return false;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Two passes: the whole text is read and its words counted first, since
 * --min-count is over the corpus; a line that keeps no word is no
 * document, so document numbers stay dense. */
static void text(outfile *o, const char *path, int64_t min_count, const char *vocab_out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f)
		fail(1, "cannot open %s: %s", path, strerror(errno));
	vocab stop = { 0 }, all = { 0 };
	for (size_t i = 0; i < sizeof stop_words / sizeof *stop_words; i++)
		vocab_id(&stop, stop_words[i], strlen(stop_words[i]), true);
	/* The ids of the words in the file, -1 for a dropped one, and where
	 * each line ends. */
	int32_t *tok = NULL;
	int64_t ntok = 0, captok = 0;
	int64_t *line_end = NULL, nlines = 0, caplines = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	errno = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (memchr(line, '\0', (size_t)len))
			fail(1, "%s:%" PRId64 ": a NUL byte in the text", path, nlines + 1);
		for (ssize_t i = 0; i < len;) {
			while (i < len && blank(line[i]))
				i++;
			ssize_t j = i;
			while (j < len && !blank(line[j]))
				j++;
			if (j > i) {
				size_t n = (size_t)(j - i);
				for (ssize_t c = i; c < j; c++)
					if (line[c] >= 'A' && line[c] <= 'Z')
						line[c] = (char)(line[c] - 'A' + 'a');
				int32_t id = -1;
				if (has_letter(line + i, n) && vocab_id(&stop, line + i, n, false) < 0) {
					id = vocab_id(&all, line + i, n, true);
					all.count[id]++;
				}
				if (ntok == captok) {
					captok = captok ? 2 * captok : 1 << 16;
					tok = xrealloc(tok, (size_t)captok, sizeof *tok);
				}
				tok[ntok++] = id;
			}
			i = j;
		}
		if (nlines == caplines) {
			caplines = caplines ? 2 * caplines : 1024;
			line_end = xrealloc(line_end, (size_t)caplines, sizeof *line_end);
		}
		line_end[nlines++] = ntok;
		errno = 0;
	}
	if (ferror(f))
		fail(1, "cannot read %s: %s", path, strerror(errno ? errno : EIO));
	if (f != stdin)
		fclose(f);
	free(line);

	/* Kept words get new ids in order of first occurrence. */
	int32_t *newid = xmalloc((size_t)all.n, sizeof(int32_t));
	int64_t nkept = 0;
	for (int64_t id = 0; id < all.n; id++)
		newid[id] = all.count[id] >= min_count ? (int32_t)nkept++ : -1;
	fprintf(o->f, "# genlda --text=%s --min-count=%" PRId64 "\n", path, min_count);
	fputs("# one token a line: doc word\n", o->f);
	out_check(o);
	tokbuf *b = xmalloc(1, sizeof *b);
	b->o = o;
	b->p = b->buf;
	b->n = 0;
	int64_t doc = 0, t = 0, dropped = 0;
	for (int64_t l = 0; l < nlines; l++) {
		bool any = false;
		for (; t < line_end[l]; t++) {
			int32_t w = tok[t] >= 0 ? newid[tok[t]] : -1;
			if (w < 0) {
				dropped++;
				continue;
			}
			tok_put(b, (int32_t)doc, w);
			any = true;
		}
		doc += any;
	}
	tok_flush(b);
	fprintf(stderr, "genlda: %" PRId64 " documents, %" PRId64 " words, %" PRId64
	        " tokens (%" PRId64 " dropped)\n", doc, nkept, b->n, dropped);
	if (vocab_out) {
		outfile ov = out_open(vocab_out);
		for (int64_t id = 0; id < all.n; id++)
			if (newid[id] >= 0)
				fprintf(ov.f, "%" PRId32 " %s %" PRId64 "\n", newid[id], all.word[id],
				        all.count[id]);
		out_check(&ov);
		out_close(&ov);
	}
	free(b);
	free(newid);
	free(tok);
	free(line_end);
}

/* ==== Options =========================================================== */

int main(int argc, char **argv)
{
	int64_t docs = 1000, vocab_n = 5000, length = 100, min_count = 5;
	int topics = 20;
	double alpha = 0.1, own = 0.9;
	uint64_t seed = 1;
	const char *out = NULL, *textpath = NULL, *vocab_out = NULL;
	bool planted_opt = false, text_opt = false;

	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		const char *eq = strchr(a, '=');
		if (strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strncmp(a, "--", 2) != 0)
			fail(2, "unexpected argument '%s'", a);
		if (!eq)
			fail(2, "option '%s' needs =VALUE", a);
		size_t len = (size_t)(eq - a - 2);
		const char *name = a + 2, *val = eq + 1;
#define IS(s) (len == sizeof s - 1 && !strncmp(name, s, len))
		/* Ids are int in the trainers. */
		if (IS("docs"))
			docs = opt_int("docs", val, 1, INT32_MAX), planted_opt = true;
		else if (IS("vocab"))
			vocab_n = opt_int("vocab", val, 1, INT32_MAX), planted_opt = true;
		else if (IS("topics"))
			topics = (int)opt_int("topics", val, 1, 100000), planted_opt = true;
		else if (IS("length"))
			length = opt_int("length", val, 1, INT32_MAX), planted_opt = true;
		else if (IS("alpha"))
			alpha = opt_real("alpha", val, 1e-6, 1e6), planted_opt = true;
		else if (IS("own"))
			own = opt_real("own", val, 0, 1), planted_opt = true;
		else if (IS("seed"))
			seed = (uint64_t)opt_int("seed", val, 0, INT64_MAX), planted_opt = true;
		else if (IS("text"))
			textpath = opt_path("text", val), text_opt = true;
		else if (IS("min-count"))
			min_count = opt_int("min-count", val, 1, INT64_MAX), text_opt = true;
		else if (IS("vocab-out"))
			vocab_out = opt_path("vocab-out", val), text_opt = true;
		else if (IS("out"))
			out = opt_path("out", val);
		else
			fail(2, "unknown option '%s'", a);
#undef IS
	}
	if (text_opt && !textpath)
		fail(2, "--min-count and --vocab-out go with --text=FILE");
	if (text_opt && planted_opt)
		fail(2, "--text=FILE takes no option of the planted corpus");
	if (!text_opt && topics > vocab_n)
		fail(2, "--topics=%d is more than --vocab=%" PRId64 ": a topic owns at "
		     "least one word", topics, vocab_n);
	if (!text_opt && (double)docs * (double)(length / 2 + length) > (double)INT64_MAX / 2)
		fail(2, "--docs times --length is too large");

	outfile o = out_open(out);
	if (textpath)
		text(&o, textpath, min_count, vocab_out);
	else
		planted(&o, docs, vocab_n, topics, length, alpha, own, seed);
	out_close(&o);
	return 0;
}
