/* wordnet-triples: WN18-style knowledge-graph triples from WordNet 3.0.
 *
 * Reads the database files of Debian's wordnet-base (data.noun, data.verb,
 * data.adj, data.adv; format in wndb(5)) and writes the graph the TransE
 * paper (Bordes et al. 2013) evaluates on as WN18: synsets are entities,
 * and the 18 relations come from the pointer symbols listed in relations[]
 * below.
 *
 * How the data are derived, and where that departs from a naive reading:
 *
 *  - An entity is a synset, named by its part of speech and offset
 *    ("n00001740"; adjective satellites count as adjectives, since both
 *    live in data.adj at distinct offsets).
 *  - Semantic pointers (source/target field 0000) link two synsets
 *    directly.  Lexical pointers link two words; they are lifted to the
 *    synsets of those words.  WN18 does the same: its
 *    derivationally_related_form relation exists only as lexical pointers
 *    in WordNet ('+' is never semantic), and also_see and verb_group are
 *    partly lexical.  --semantic-only keeps the semantic pointers alone,
 *    which leaves derivationally_related_form empty.
 *  - Duplicates (several word pairs of the same two synsets) collapse
 *    into one triple, and the 19 lexical pointers between words of the
 *    same synset are dropped.
 *  - Like WN18, entities in fewer than --min-triples triples are dropped,
 *    with the triples that touch them, in one pass.  WN18 used 15 on
 *    counts we cannot reproduce exactly; 5 on distinct triples gives about
 *    38k entities and 149k triples, close to WN18's 41k and 151k.
 *  - Both directions of inverse pairs (hypernym/hyponym, ...) are kept, as
 *    in WN18, which makes the test set easier than it looks (WN18RR was
 *    built to remove that); the point here is WN18's shape, not its flaws'
 *    repair.
 *  - The split is a seeded shuffle.  A triple goes to test (then valid)
 *    only if its head, relation and tail each keep another triple in
 *    train, so every entity and relation of valid and test is trained.
 *    The train file stays in shuffled order, so SGD in file order sees no
 *    structure.  Relation ids count only the relations that occur.
 *
 * Outputs, in --out=DIR: train.txt valid.txt test.txt ("h r t" per line),
 * entities.txt ("id synset first-lemma") and relations.txt ("id name").
 * The output is a pure function of the input files and the options.
 */
#define _POSIX_C_SOURCE 200809L     /* getline */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "wordnet-triples";

static void usage(FILE *f)
{
	fputs("usage: wordnet-triples [--wordnet=DIR] [--out=DIR] [--min-triples=K]\n"
	      "                       [--limit=N] [--valid=N] [--test=N] [--seed=S]\n"
	      "                       [--semantic-only] [--quiet]\n"
	      "\n"
	      "Derive WN18-style triples from WordNet's data.{noun,verb,adj,adv} in\n"
	      "DIR and write train.txt, valid.txt, test.txt (\"h r t\" ids), entities.txt\n"
	      "and relations.txt to --out.  Statistics go to standard output.\n"
	      "\n"
	      "  --wordnet=DIR     WordNet database (default /usr/share/wordnet)\n"
	      "  --out=DIR         output directory, which must exist (default .)\n"
	      "  --min-triples=K   drop entities in fewer than K triples (default 5)\n"
	      "  --limit=N         then keep only the N entities in most triples, for\n"
	      "                    small test data (default 0: no limit)\n"
	      "  --valid=N         held-out validation triples (default 5000)\n"
	      "  --test=N          held-out test triples (default 5000)\n"
	      "  --seed=S          seed of the split (default 1)\n"
	      "  --semantic-only   ignore lexical pointers (WN18 lifts them to synsets)\n"
	      "  --quiet           print no statistics\n", f);
}

/* Exit status 2 for a bad command line, 1 for anything else. */
static _Noreturn __attribute__((format(printf, 2, 3)))
void fail(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputs(status == 2 ? "\n(try --help)\n" : "\n", stderr);
	va_end(ap);
	exit(status);
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (n != 0 && size > SIZE_MAX / n)
		fail(1, "out of memory");
	p = realloc(p, n * size + 1);   /* + 1: a size of 0 is no failure */
	if (!p)
		fail(1, "out of memory");
	return p;
}

/* ==== Relations ========================================================== */

/* WN18's relations, in WN18's usual order; the index is the relation id
 * before unused ones are squeezed out. */
static const struct relation {
	const char *symbol;     /* wndb(5) pointer symbol */
	const char *name;
} relations[] = {
	{ "@",  "hypernym" },
	{ "~",  "hyponym" },
	{ "@i", "instance_hypernym" },
	{ "~i", "instance_hyponym" },
	{ "#m", "member_holonym" },
	{ "%m", "member_meronym" },
	{ "#p", "part_of" },
	{ "%p", "has_part" },
	{ "+",  "derivationally_related_form" },
	{ ";c", "synset_domain_topic_of" },
	{ "-c", "member_of_domain_topic" },
	{ ";u", "synset_domain_usage_of" },
	{ "-u", "member_of_domain_usage" },
	{ ";r", "synset_domain_region_of" },
	{ "-r", "member_of_domain_region" },
	{ "^",  "also_see" },
	{ "$",  "verb_group" },
	{ "&",  "similar_to" },
};
enum { NREL = sizeof relations / sizeof relations[0] };

static int relation_of(const char *sym, size_t n)
{
	for (int r = 0; r < NREL; r++)
		if (strlen(relations[r].symbol) == n && !memcmp(relations[r].symbol, sym, n))
			return r;
	return -1;
}

/* ==== Reading the database ============================================== */

/* A synset key: part of speech (n v a r = 0..3) times 10^8 plus offset. */
typedef uint32_t synkey;
static const char posname[] = "nvar";

static int pos_index(char c)
{
	switch (c) {
	case 'n': return 0;
	case 'v': return 1;
	case 'a': case 's': return 2;
	case 'r': return 3;
	}
	return -1;
}

typedef struct synset {
	synkey key;
	char *lemma;
} synset;

/* A pointer as read: targets are resolved once every file is read, and
 * the place is kept so that a dangling one can be reported. */
typedef struct rawtriple {
	synkey h, t;
	int r;
	int file;
	long line;
} rawtriple;

typedef struct db {
	synset *syn;
	size_t nsyn, capsyn;
	rawtriple *raw;
	size_t nraw, capraw;
	char *path[4];
} db;

typedef struct cursor {
	const char *path;
	long line;
	char *p;                /* next unread character */
	int field;              /* fields read so far, for messages */
} cursor;

static _Noreturn __attribute__((format(printf, 2, 3)))
void bad(const cursor *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s:%ld: error: ", c->path, c->line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* The next blank-separated field; *n is its length. */
static char *next(cursor *c, size_t *n, const char *what)
{
	while (*c->p == ' ')
		c->p++;
	if (*c->p == '\0' || *c->p == '\n' || *c->p == '\r')
		bad(c, "line ends where %s (field %d) was expected", what, c->field + 1);
	char *s = c->p;
	while (*c->p && *c->p != ' ' && *c->p != '\n' && *c->p != '\r')
		c->p++;
	*n = (size_t)(c->p - s);
	c->field++;
	return s;
}

static bool all_digits(const char *s, size_t n, int base)
{
	for (size_t k = 0; k < n; k++) {
		char ch = s[k];
		bool ok = (ch >= '0' && ch <= '9')
		          || (base == 16 && ((ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')));
		if (!ok)
			return false;
	}
	return n > 0;
}

/* A number of exactly `width` digits in `base`, as wndb(5) writes them. */
static unsigned long number(cursor *c, int width, int base, const char *what)
{
	size_t n;
	char *s = next(c, &n, what);
	if (n != (size_t)width || !all_digits(s, n, base))
		bad(c, "field %d: expected %s (%d %s digits), got '%.*s'", c->field, what,
		    width, base == 16 ? "hex" : "decimal", (int)(n > 40 ? 40 : n), s);
	char buf[16];
	memcpy(buf, s, n);
	buf[n] = '\0';
	return strtoul(buf, NULL, base);
}

/* A word as the synset's name: adjective markers such as "(a)" go. */
static char *lemma_of(const char *s, size_t n)
{
	const char *paren = memchr(s, '(', n);
	if (paren && paren > s && s[n - 1] == ')')
		n = (size_t)(paren - s);
	char *w = xrealloc(NULL, n + 1, 1);
	memcpy(w, s, n);
	w[n] = '\0';
	return w;
}

static void parse_line(db *d, int file, cursor *c, int filepos, bool semantic_only)
{
	unsigned long off = number(c, 8, 10, "a synset offset");
	number(c, 2, 10, "a lexicographer file number");
	size_t n;
	char *s = next(c, &n, "a synset type");
	int pos = n == 1 ? pos_index(*s) : -1;
	if (pos < 0)
		bad(c, "field %d: expected a synset type (n v a s r), got '%.*s'",
		    c->field, (int)(n > 40 ? 40 : n), s);
	if (pos != filepos)
		bad(c, "synset type '%c' in the %s file", *s, filepos == 0 ? "noun"
		    : filepos == 1 ? "verb" : filepos == 2 ? "adjective" : "adverb");
	synkey h = (synkey)pos * 100000000u + (synkey)off;

	unsigned long words = number(c, 2, 16, "a word count");
	if (words == 0)
		bad(c, "a synset without words");
	char *lemma = NULL;
	for (unsigned long w = 0; w < words; w++) {
		s = next(c, &n, "a word");
		if (w == 0)
			lemma = lemma_of(s, n);
		number(c, 1, 16, "a lex_id");
	}
	if (d->nsyn == d->capsyn) {
		d->capsyn = d->capsyn ? 2 * d->capsyn : 1 << 16;
		d->syn = xrealloc(d->syn, d->capsyn, sizeof *d->syn);
	}
	d->syn[d->nsyn++] = (synset){ h, lemma };

	unsigned long ptrs = number(c, 3, 10, "a pointer count");
	for (unsigned long k = 0; k < ptrs; k++) {
		char *sym = next(c, &n, "a pointer symbol");
		if (n > 2 || !strchr("!@~#%+;-^$&*<>=\\", sym[0]))
			bad(c, "field %d: expected a pointer symbol, got '%.*s'", c->field,
			    (int)(n > 40 ? 40 : n), sym);
		size_t symlen = n;
		unsigned long toff = number(c, 8, 10, "a pointer's target offset");
		char *tp = next(c, &n, "a pointer's part of speech");
		int tpos = n == 1 ? pos_index(*tp) : -1;
		if (tpos < 0)
			bad(c, "field %d: expected a part of speech (n v a s r), got '%.*s'",
			    c->field, (int)(n > 40 ? 40 : n), tp);
		unsigned long st = number(c, 4, 16, "a pointer's source/target");
		int r = relation_of(sym, symlen);
		if (r < 0 || (semantic_only && st != 0))
			continue;
		if (d->nraw == d->capraw) {
			d->capraw = d->capraw ? 2 * d->capraw : 1 << 18;
			d->raw = xrealloc(d->raw, d->capraw, sizeof *d->raw);
		}
		d->raw[d->nraw++] = (rawtriple){
			h, (synkey)tpos * 100000000u + (synkey)toff, r, file, c->line };
	}
	/* Verbs list sentence frames before the gloss; nothing else may. */
	if (filepos == 1) {
		s = c->p;
		while (*s == ' ')
			s++;
		if (*s != '|') {
			unsigned long frames = number(c, 2, 10, "a frame count");
			for (unsigned long k = 0; k < frames; k++) {
				s = next(c, &n, "'+' before a frame");
				if (n != 1 || *s != '+')
					bad(c, "field %d: expected '+' before a frame, got '%.*s'",
					    c->field, (int)(n > 40 ? 40 : n), s);
				number(c, 2, 10, "a frame number");
				number(c, 2, 16, "a frame's word number");
			}
		}
	}
	s = next(c, &n, "'|' before the gloss");
	if (*s != '|')
		bad(c, "field %d: expected '|' before the gloss, got '%.*s'", c->field,
		    (int)(n > 40 ? 40 : n), s);
}

static void read_file(db *d, const char *dir, int filepos, bool semantic_only)
{
	static const char *const names[] = { "data.noun", "data.verb", "data.adj", "data.adv" };
	size_t len = strlen(dir) + strlen(names[filepos]) + 2;
	char *path = xrealloc(NULL, len, 1);
	snprintf(path, len, "%s/%s", dir, names[filepos]);
	d->path[filepos] = path;
	FILE *f = fopen(path, "r");
	if (!f)
		fail(1, "cannot open %s: %s%s", path, strerror(errno),
		     errno == ENOENT ? " (is the wordnet-base package installed?)" : "");
	cursor c = { path, 0, NULL, 0 };
	char *buf = NULL;
	size_t cap = 0;
	while (getline(&buf, &cap, f) != -1) {
		c.line++;
		/* The licence at the top of each file is indented by two blanks. */
		if (buf[0] == ' ' || buf[0] == '\n' || (buf[0] == '\r' && buf[1] == '\n'))
			continue;
		c.p = buf;
		c.field = 0;
		parse_line(d, filepos, &c, filepos, semantic_only);
	}
	if (ferror(f))
		fail(1, "cannot read %s: %s", path, strerror(errno));
	free(buf);
	fclose(f);
	if (c.line == 0)
		fail(1, "%s is empty", path);
}

/* ==== Triples ============================================================ */

typedef struct triple {
	int32_t h, r, t;
} triple;

static int cmp_synset(const void *a, const void *b)
{
	synkey x = ((const synset *)a)->key, y = ((const synset *)b)->key;
	return (x > y) - (x < y);
}

static int cmp_triple(const void *a, const void *b)
{
	const triple *x = a, *y = b;
	if (x->h != y->h)
		return (x->h > y->h) - (x->h < y->h);
	if (x->r != y->r)
		return (x->r > y->r) - (x->r < y->r);
	return (x->t > y->t) - (x->t < y->t);
}

static long find_synset(const db *d, synkey k)
{
	size_t lo = 0, hi = d->nsyn;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syn[mid].key < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nsyn && d->syn[lo].key == k ? (long)lo : -1;
}

/* ==== Random numbers (the split) ======================================== */

/* Our own generator, so that the split is the same with every C library:
 * xoshiro256** seeded by splitmix64, as tools/genratings does. */
typedef struct rng {
	uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t next64(rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* [0, n) for n < 2^32 by multiply-shift in two halves that cannot
 * overflow; the bias is below n / 2^64. */
static size_t below(rng *r, size_t n)
{
	uint64_t x = next64(r), m = (uint64_t)n;
	return (size_t)(((x >> 32) * m + (((x & 0xffffffffu) * m) >> 32)) >> 32);
}

/* ==== Output ============================================================ */

/* Written to PATH.tmp and renamed, so that an interrupted run never leaves
 * a truncated file that make would take as up to date. */
typedef struct outfile {
	char *path, *tmp;
	FILE *f;
} outfile;

static outfile out_open(const char *dir, const char *name)
{
	outfile o;
	size_t len = strlen(dir) + strlen(name) + 6;
	o.path = xrealloc(NULL, len, 1);
	o.tmp = xrealloc(NULL, len, 1);
	snprintf(o.path, len, "%s/%s", dir, name);
	snprintf(o.tmp, len, "%s/%s.tmp", dir, name);
	o.f = fopen(o.tmp, "w");
	if (!o.f)
		fail(1, "cannot write %s: %s", o.tmp, strerror(errno));
	return o;
}

static void out_close(outfile *o)
{
	/* On disk before the rename, or a crash could leave the new name on
	 * an empty file. */
	if (fflush(o->f) != 0 || ferror(o->f) ||
	    (fsync(fileno(o->f)) != 0 && errno != EINVAL) || fclose(o->f) != 0) {
		int e = errno;
		unlink(o->tmp);
		fail(1, "cannot write %s: %s", o->path, strerror(e ? e : EIO));
	}
	if (rename(o->tmp, o->path) != 0)
		fail(1, "cannot create %s: %s", o->path, strerror(errno));
	free(o->path);
	free(o->tmp);
}

static void write_triples(const char *dir, const char *name, const triple *a, size_t n)
{
	outfile o = out_open(dir, name);
	for (size_t k = 0; k < n; k++)
		fprintf(o.f, "%" PRId32 " %" PRId32 " %" PRId32 "\n", a[k].h, a[k].r, a[k].t);
	out_close(&o);
}

/* ==== Options =========================================================== */

static long long opt_int(const char *name, const char *val, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long x = strtoll(val, &end, 10);
	if (end == val || *end || errno || x < lo || x > hi)
		fail(2, "--%s=%s: expected an integer in [%lld, %lld]", name, val, lo, hi);
	return x;
}

static const char *opt_dir(const char *name, const char *val)
{
	if (!*val)
		fail(2, "--%s needs a directory", name);
	return val;
}

int main(int argc, char **argv)
{
	const char *wndir = "/usr/share/wordnet", *outdir = ".";
	long long min_triples = 5, limit = 0, nvalid = 5000, ntest = 5000;
	uint64_t seed = 1;
	bool semantic_only = false, quiet = false;

	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		if (strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "--semantic-only") == 0) {
			semantic_only = true;
			continue;
		}
		if (strcmp(a, "--quiet") == 0) {
			quiet = true;
			continue;
		}
		if (strncmp(a, "--", 2) != 0)
			fail(2, "unexpected argument '%s'", a);
		const char *eq = strchr(a, '=');
		if (!eq)
			fail(2, "unknown option '%s', or it needs =VALUE", a);
		size_t len = (size_t)(eq - a - 2);
		const char *name = a + 2, *val = eq + 1;
#define IS(s) (len == strlen(s) && !strncmp(name, s, len))
		if (IS("wordnet"))
			wndir = opt_dir("wordnet", val);
		else if (IS("out"))
			outdir = opt_dir("out", val);
		else if (IS("min-triples"))
			min_triples = opt_int("min-triples", val, 0, INT32_MAX);
		else if (IS("limit"))
			limit = opt_int("limit", val, 0, INT32_MAX);
		else if (IS("valid"))
			nvalid = opt_int("valid", val, 0, INT32_MAX);
		else if (IS("test"))
			ntest = opt_int("test", val, 0, INT32_MAX);
		else if (IS("seed"))
			seed = (uint64_t)opt_int("seed", val, 0, INT64_MAX);
		else
			fail(2, "unknown option '%s'", a);
#undef IS
	}

	db d = { 0 };
	for (int f = 0; f < 4; f++)
		read_file(&d, wndir, f, semantic_only);
	qsort(d.syn, d.nsyn, sizeof *d.syn, cmp_synset);
	for (size_t k = 1; k < d.nsyn; k++)
		if (d.syn[k].key == d.syn[k - 1].key)
			fail(1, "synset %c%08" PRIu32 " is defined twice",
			     posname[d.syn[k].key / 100000000u], d.syn[k].key % 100000000u);

	/* Synset indexes for now; entity ids come after filtering. */
	triple *T = xrealloc(NULL, d.nraw, sizeof *T);
	size_t nt = 0;
	for (size_t k = 0; k < d.nraw; k++) {
		const rawtriple *w = &d.raw[k];
		long h = find_synset(&d, w->h), t = find_synset(&d, w->t);
		if (t < 0) {
			fprintf(stderr, "%s:%ld: error: pointer to %c%08" PRIu32
			        ", which no data file defines\n", d.path[w->file], w->line,
			        posname[w->t / 100000000u], w->t % 100000000u);
			exit(1);
		}
		if (h != t)
			T[nt++] = (triple){ (int32_t)h, w->r, (int32_t)t };
	}
	free(d.raw);
	qsort(T, nt, sizeof *T, cmp_triple);
	size_t m = 0;
	for (size_t k = 0; k < nt; k++)
		if (m == 0 || cmp_triple(&T[m - 1], &T[k]) != 0)
			T[m++] = T[k];
	nt = m;

	/* One-pass degree filter, as WN18's. */
	long *deg = xrealloc(NULL, d.nsyn, sizeof *deg);
	memset(deg, 0, d.nsyn * sizeof *deg);
	for (size_t k = 0; k < nt; k++)
		deg[T[k].h]++, deg[T[k].t]++;
	bool *keep = xrealloc(NULL, d.nsyn, sizeof *keep);
	for (size_t e = 0; e < d.nsyn; e++)
		keep[e] = deg[e] > 0 && deg[e] >= min_triples;
	m = 0;
	for (size_t k = 0; k < nt; k++)
		if (keep[T[k].h] && keep[T[k].t])
			T[m++] = T[k];
	nt = m;

	/* --limit: the most connected entities give a small graph that is still
	 * a graph, where a random sample would be mostly isolated pairs. */
	if (limit > 0) {
		memset(deg, 0, d.nsyn * sizeof *deg);
		for (size_t k = 0; k < nt; k++)
			deg[T[k].h]++, deg[T[k].t]++;
		/* Degree threshold by counting: the limit-th largest degree, with
		 * ties at it broken by synset order. */
		long maxdeg = 0;
		for (size_t e = 0; e < d.nsyn; e++)
			if (deg[e] > maxdeg)
				maxdeg = deg[e];
		long *hist = xrealloc(NULL, (size_t)maxdeg + 1, sizeof *hist);
		memset(hist, 0, ((size_t)maxdeg + 1) * sizeof *hist);
		for (size_t e = 0; e < d.nsyn; e++)
			if (deg[e] > 0)
				hist[deg[e]]++;
		long above = 0, cut;
		for (cut = maxdeg; cut >= 1 && above + hist[cut] <= limit; cut--)
			above += hist[cut];
		long ties = limit - above;      /* entities of degree cut to take */
		for (size_t e = 0; e < d.nsyn; e++) {
			keep[e] = deg[e] > cut;
			if (cut >= 1 && deg[e] == cut && ties > 0)
				keep[e] = true, ties--;
		}
		free(hist);
		m = 0;
		for (size_t k = 0; k < nt; k++)
			if (keep[T[k].h] && keep[T[k].t])
				T[m++] = T[k];
		nt = m;
	}
	if (nt == 0)
		fail(1, "no triples left after filtering (--min-triples=%lld, --limit=%lld)",
		     min_triples, limit);

	/* Entity ids in synset order, over the entities that kept a triple. */
	int32_t *eid = xrealloc(NULL, d.nsyn, sizeof *eid);
	for (size_t e = 0; e < d.nsyn; e++)
		eid[e] = -1;
	for (size_t k = 0; k < nt; k++)
		eid[T[k].h] = eid[T[k].t] = 0;
	int32_t ne = 0;
	for (size_t e = 0; e < d.nsyn; e++)
		if (eid[e] == 0)
			eid[e] = ne++;
	int32_t rid[NREL], nr = 0;
	long rcount[NREL] = { 0 };
	for (size_t k = 0; k < nt; k++)
		rcount[T[k].r]++;
	for (int r = 0; r < NREL; r++)
		rid[r] = rcount[r] ? nr++ : -1;
	for (size_t k = 0; k < nt; k++)
		T[k] = (triple){ eid[T[k].h], rid[T[k].r], eid[T[k].t] };

	/* The split. */
	rng g;
	uint64_t x = seed;
	for (int k = 0; k < 4; k++)
		g.s[k] = splitmix64(&x);
	for (size_t k = nt - 1; k > 0; k--) {
		size_t j = below(&g, k + 1);
		triple tmp = T[k];
		T[k] = T[j];
		T[j] = tmp;
	}
	long *ecount = xrealloc(NULL, (size_t)ne, sizeof *ecount);
	long *rc = xrealloc(NULL, (size_t)nr, sizeof *rc);
	memset(ecount, 0, (size_t)ne * sizeof *ecount);
	memset(rc, 0, (size_t)nr * sizeof *rc);
	for (size_t k = 0; k < nt; k++)
		ecount[T[k].h]++, ecount[T[k].t]++, rc[T[k].r]++;
	triple *train = xrealloc(NULL, nt, sizeof *train);
	triple *valid = xrealloc(NULL, (size_t)nvalid, sizeof *valid);
	triple *test = xrealloc(NULL, (size_t)ntest, sizeof *test);
	size_t ntrain = 0, nv = 0, nte = 0;
	for (size_t k = 0; k < nt; k++) {
		triple a = T[k];
		bool movable = ecount[a.h] > 1 && ecount[a.t] > 1 && rc[a.r] > 1;
		if (movable && (nte < (size_t)ntest || nv < (size_t)nvalid)) {
			ecount[a.h]--, ecount[a.t]--, rc[a.r]--;
			if (nte < (size_t)ntest)
				test[nte++] = a;
			else
				valid[nv++] = a;
		} else {
			train[ntrain++] = a;
		}
	}
	if (nte < (size_t)ntest || nv < (size_t)nvalid)
		fprintf(stderr, "%s: warning: only %zu test and %zu valid triples could be "
		        "held out with every entity still in train\n", prog, nte, nv);

	write_triples(outdir, "train.txt", train, ntrain);
	write_triples(outdir, "valid.txt", valid, nv);
	write_triples(outdir, "test.txt", test, nte);
	outfile o = out_open(outdir, "entities.txt");
	for (size_t e = 0; e < d.nsyn; e++)
		if (eid[e] >= 0)
			fprintf(o.f, "%" PRId32 " %c%08" PRIu32 " %s\n", eid[e],
			        posname[d.syn[e].key / 100000000u], d.syn[e].key % 100000000u,
			        d.syn[e].lemma);
	out_close(&o);
	o = out_open(outdir, "relations.txt");
	for (int r = 0; r < NREL; r++)
		if (rid[r] >= 0)
			fprintf(o.f, "%" PRId32 " %s\n", rid[r], relations[r].name);
	out_close(&o);

	if (!quiet) {
		printf("synsets %zu\nentities %" PRId32 "\nrelations %" PRId32 "\n"
		       "triples %zu\ntrain %zu\nvalid %zu\ntest %zu\n",
		       d.nsyn, ne, nr, nt, ntrain, nv, nte);
		for (int r = 0; r < NREL; r++)
			if (rid[r] >= 0)
				printf("relation %" PRId32 " %s %ld\n", rid[r], relations[r].name,
				       rcount[r]);
	}

	for (size_t e = 0; e < d.nsyn; e++)
		free(d.syn[e].lemma);
	for (int f = 0; f < 4; f++)
		free(d.path[f]);
	free(d.syn);
	free(T);
	free(deg);
	free(keep);
	free(eid);
	free(ecount);
	free(rc);
	free(train);
	free(valid);
	free(test);
	return 0;
}
