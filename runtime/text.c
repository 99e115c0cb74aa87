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
	       c >= 0x80;
}

/* Joiners keep "atlanta's", "term-end" and "u.s" one word; anywhere else
 * they are punctuation. */
static bool joiner(unsigned char c)
{
	return c == '\'' || c == '-' || c == '.';
}

sap_list sap_tokens(sap_str s)
{
	const unsigned char *p = (const unsigned char *)sap_str_c(s);
	sap_list out = {0};
	while (*p) {
		if (!word_byte(*p)) {
			p++;
			continue;
		}
		const unsigned char *q = p;
		while (word_byte(*q) || (joiner(*q) && word_byte(q[1])))
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
