/* text.c: the standard library's text processing: tokens(), vocab() and
 * unigram(), what word2vec-like programs do before they train.
 *
 * vocab() and unigram() are collective like every dvector initialiser:
 * each rank builds the same whole vector from the same whole input, in an
 * order fixed by the data alone, so no rank needs to tell another
 * anything.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

static bool digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Joiners keep "atlanta's", "term-end" and "u.s" one word; anywhere else
 * they are punctuation. */
static bool joiner(unsigned char c)
{
	return c == '\'' || c == '-' || c == '.';
}

/* Where a number starts with its sign or point: "-0.613", "+5", ".5",
 * "-.5", but not the second dash of "1990--2000". */
static bool number_lead(const unsigned char *s, const unsigned char *p)
{
	const unsigned char *q = p;
	if (*q == '+' || *q == '-')
		q++;
	if (*q == '.')
		q++;
	if (q == p || !digit(*q))
		return false;
	return p == s || !(word_byte(p[-1]) || p[-1] == '+' || p[-1] == '-' || p[-1] == '.');
}

/* The '+' of an exponent, as in "1e+5" ('-' is a joiner already). */
static bool exponent_sign(const unsigned char *p, const unsigned char *q)
{
	return *q == '+' && q - p >= 2 && (q[-1] == 'e' || q[-1] == 'E') &&
	       (digit(q[-2]) || q[-2] == '.') && digit(q[1]);
}

sap_list sap_tokens(sap_str str)
{
	const unsigned char *s = (const unsigned char *)sap_str_c(str), *p = s;
	sap_list out = {0};
	while (*p) {
		if (!word_byte(*p) && !number_lead(s, p)) {
			p++;
			continue;
		}
		const unsigned char *q = p;
		if (*q == '+' || *q == '-')
			q++;
		while (word_byte(*q) || ((joiner(*q) || exponent_sign(p, q)) && word_byte(q[1])))
			q++;
		char *w = sap_arena_alloc((size_t)(q - p) + 1);
		size_t n = 0;
		for (; p < q; p++)
			w[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		w[n] = '\0';
		*(sap_str *)sap_list_push(&out, sizeof(sap_str)) = w;
	}
	return out;
}

sap_list sap_split(sap_str str, sap_str sep, const sap_site *site)
{
	const char *s = sap_str_c(str), *d = sap_str_c(sep);
	size_t nd = strlen(d);
	if (!nd)
		sap_fatal(site, "split: the separator is the empty string");
	sap_list out = {0};
	for (;;) {
		const char *e = strstr(s, d);
		size_t n = e ? (size_t)(e - s) : strlen(s);
		*(sap_str *)sap_list_push(&out, sizeof(sap_str)) = sap_str_dup(s, n);
		if (!e)
			return out;
		s = e + nd;
	}
}

static bool blank_or_nl(char c)
{
	return sap_is_blank(c) || c == '\n';
}

sap_list sap_fields_of(sap_str str)
{
	const char *p = sap_str_c(str);
	sap_list out = {0};
	for (;;) {
		while (blank_or_nl(*p))
			p++;
		if (!*p)
			return out;
		const char *q = p;
		while (*q && !blank_or_nl(*q))
			q++;
		*(sap_str *)sap_list_push(&out, sizeof(sap_str)) = sap_str_dup(p, (size_t)(q - p));
		p = q;
	}
}

/* The whole string as a number of the type, as load reads a field: no
 * blanks around it, and anything else is an error naming the text. */
static _Noreturn void not_number(const sap_site *site, const char *type, const char *s, int why)
{
	char b[200];
	if (why == SAP_NUM_RANGE)
		sap_fatal(site, "to_%s: \"%s\" is out of range for %s", type, sap_shown(s, b, sizeof b),
		          type);
	if (why == SAP_NUM_TINY)
		sap_fatal(site, "to_%s: \"%s\" is too small for %s: it would be 0", type,
		          sap_shown(s, b, sizeof b), type);
	if (why == SAP_NUM_NOTFINITE)
		sap_fatal(site, "to_%s: \"%s\" is not a finite %s (nan and inf are not accepted)",
		          type, sap_shown(s, b, sizeof b), type);
	sap_fatal(site, "to_%s: \"%s\" is not %s %s", type, sap_shown(s, b, sizeof b),
	          type[0] == 'i' ? "an" : "a", type);
}

static int64_t to_integer(sap_str str, const char *type, int64_t lo, int64_t hi,
                          const sap_site *site)
{
	const char *s = sap_str_c(str);
	int64_t v = 0;
	int r = sap_parse_integer(s, strlen(s), lo, hi, &v);
	if (r != SAP_NUM_OK)
		not_number(site, type, s, r);
	return v;
}

int32_t sap_to_int(sap_str s, const sap_site *site)
{
	return (int32_t)to_integer(s, "int", INT32_MIN, INT32_MAX, site);
}

int64_t sap_to_long(sap_str s, const sap_site *site)
{
	return to_integer(s, "long", INT64_MIN, INT64_MAX, site);
}

static double to_real(sap_str str, bool is_float, const sap_site *site)
{
	const char *s = sap_str_c(str);
	double x = 0;
	int r = sap_parse_real(s, strlen(s), is_float, &x);
	if (r != SAP_NUM_OK)
		not_number(site, is_float ? "float" : "double", s, r);
	return x;
}

float sap_to_float(sap_str s, const sap_site *site)
{
	return (float)to_real(s, true, site);
}

double sap_to_double(sap_str s, const sap_site *site)
{
	return to_real(s, false, site);
}

typedef struct vword {
	sap_str w;
	double c;
} vword;

static int by_count(const void *a, const void *b)
{
	const vword *x = a, *y = b;
	if (x->c != y->c)
		return x->c > y->c ? -1 : 1;
	return strcmp(x->w, y->w);
}

static double num_at(const void *p, sap_scalar k)
{
	switch (k) {
	case SAP_S_INT: return *(const int32_t *)p;
	case SAP_S_LONG: return (double)*(const int64_t *)p;
	case SAP_S_FLOAT: return *(const float *)p;
	default: return *(const double *)p;
	}
}

void sap_vocab(sap_dvec *v, const char *name, sap_dmap *m, sap_scalar vk, double min,
               const sap_site *s)
{
	if (m->kk != SAP_K_STRING)
		sap_fatal(s, "vocab needs a map with string keys");
	vword *ws = NULL;
	int64_t n = 0, cap = 0, pos = 0;
	const void *key;
	void *val;
	while (sap_dm_next(m, &pos, &key, &val)) {
		double c = num_at(val, vk);
		if (c < min)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			ws = sap_xrealloc(ws, (size_t)cap * sizeof *ws);
		}
		ws[n].w = sap_str_c(*(const sap_str *)key);
		ws[n++].c = c;
	}
	if (n > 1)
		qsort(ws, (size_t)n, sizeof *ws, by_count);
	sap_dv_create(v, name, n, sizeof(sap_str), s);
	for (int64_t i = 0; i < n; i++)
		((sap_str *)v->data)[i] = sap_str_dup(ws[i].w, strlen(ws[i].w));
	free(ws);
}

/* A word never seen is never drawn, whatever the power (0^0 is 1). */
static double weight(double c, double power)
{
	return c > 0 ? pow(c, power) : 0;
}

void sap_unigram(sap_dvec *v, const char *name, sap_dvec *counts, sap_scalar ck, int64_t size,
                 double power, const sap_site *s)
{
	if (size <= 0)
		sap_fatal(s, "unigram: the table size must be positive, not %lld", (long long)size);
	sap_dv_whole(counts, NULL);
	int64_t nw = counts->n;
	double total = 0;
	for (int64_t w = 0; w < nw; w++) {
		double c = num_at(counts->data + (size_t)w * counts->elsize, ck);
		if (!(c >= 0))
			sap_fatal(s, "unigram: count %lld of '%s' is %g; counts cannot be negative",
			          (long long)w, counts->name, c);
		total += weight(c, power);
	}
	if (nw == 0 || !(total > 0))
		sap_fatal(s, "unigram: '%s' has no positive count", counts->name);
	if (nw > INT32_MAX)
		sap_fatal(s, "unigram: '%s' has more words than an int can number", counts->name);
	sap_dv_create(v, name, size, sizeof(int32_t), s);
	int32_t *t = (int32_t *)v->data;
	/* Word w fills the slots a with a / size in [cum(w-1), cum(w)): the
	 * share of each word is its weight to within one slot, and the table
	 * is the same on every machine that rounds pow the same way. */
	int64_t w = 0;
	double cum = weight(num_at(counts->data, ck), power) / total;
	for (int64_t a = 0; a < size; a++) {
		while ((double)a / (double)size >= cum && w < nw - 1) {
			w++;
			cum += weight(num_at(counts->data + (size_t)w * counts->elsize, ck), power) / total;
		}
		t[a] = (int32_t)w;
	}
}
