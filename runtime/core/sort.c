/* sort.c: radix sorts of keys.  The runtime sorts keys it logged (a
 * sample for the planner, a mini-batch's rows) where a comparison sort
 * costs more than the work the keys stand for. */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

enum { D = 11, SMALL = 48 };

/* Digits of d bits, d at most D, for n keys of `bits` bits: the fewest
 * passes over the keys, unless narrower digits cost less in all, each
 * pass clearing and summing 2^d counters (a few hundred keys' digits of
 * 11 bits cleared 2048 counters each pass for them). */
static int digit_bits(int64_t n, int bits)
{
	int best = D;
	double cost = 1e300;
	for (int d = 4; d <= D; d++) {
		int passes = (bits + d - 1) / d;
		double c = passes * ((double)(1 << d) + 2.0 * (double)n);
		if (c < cost) {
			cost = c;
			best = d;
		}
	}
	return best;
}

static int bits_of(const void *base, int64_t n, size_t size)
{
	uint64_t any = 0;
	for (int64_t k = 0; k < n; k++) {
		uint64_t x;
		memcpy(&x, (const char *)base + (size_t)k * size, sizeof x);
		any |= x;
	}
	return any ? 64 - __builtin_clzll(any) : 0;
}

void sap_sort_keys(int64_t *v, int64_t n, int bits)
{
	if (n < 2)
		return;
	if (bits < 0)
		bits = bits_of(v, n, sizeof *v);
	if (n < SMALL) {
		for (int64_t i = 1; i < n; i++) {
			int64_t x = v[i], j = i;
			for (; j > 0 && (uint64_t)v[j - 1] > (uint64_t)x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	int64_t *tmp = sap_xmalloc((size_t)n * sizeof *tmp), *from = v, *to = tmp;
	int db = digit_bits(n, bits);
	uint64_t mask = ((uint64_t)1 << db) - 1;
	for (int sh = 0; sh < bits; sh += db) {
		int64_t cnt[(1 << D) + 1];
		memset(cnt, 0, ((size_t)1 << db) * sizeof *cnt + sizeof *cnt);
		for (int64_t k = 0; k < n; k++)
			cnt[((uint64_t)from[k] >> sh & mask) + 1]++;
		for (uint64_t d = 0; d < mask; d++)
			cnt[d + 1] += cnt[d];
		for (int64_t k = 0; k < n; k++)
			to[cnt[(uint64_t)from[k] >> sh & mask]++] = from[k];
		int64_t *t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, (size_t)n * sizeof *v);
	free(tmp);
}

void sap_sort_recs(void *base, int64_t n, size_t size)
{
	if (n < 2)
		return;
	char *b = base;
	int bits = bits_of(base, n, size);
	if (n < SMALL) {
		char *x = sap_xmalloc(size);
		for (int64_t i = 1; i < n; i++) {
			uint64_t kx;
			memcpy(x, b + (size_t)i * size, size);
			memcpy(&kx, x, sizeof kx);
			int64_t j = i;
			for (; j > 0; j--) {
				uint64_t kj;
				memcpy(&kj, b + (size_t)(j - 1) * size, sizeof kj);
				if (kj <= kx)
					break;
				memcpy(b + (size_t)j * size, b + (size_t)(j - 1) * size, size);
			}
			memcpy(b + (size_t)j * size, x, size);
		}
		free(x);
		return;
	}
	char *tmp = sap_xmalloc((size_t)n * size), *from = b, *to = tmp;
	int db = digit_bits(n, bits);
	uint64_t mask = ((uint64_t)1 << db) - 1;
	for (int sh = 0; sh < bits; sh += db) {
		int64_t cnt[(1 << D) + 1];
		memset(cnt, 0, ((size_t)1 << db) * sizeof *cnt + sizeof *cnt);
		for (int64_t k = 0; k < n; k++) {
			uint64_t x;
			memcpy(&x, from + (size_t)k * size, sizeof x);
			cnt[(x >> sh & mask) + 1]++;
		}
		for (uint64_t d = 0; d < mask; d++)
			cnt[d + 1] += cnt[d];
		for (int64_t k = 0; k < n; k++) {
			uint64_t x;
			memcpy(&x, from + (size_t)k * size, sizeof x);
			memcpy(to + (size_t)cnt[x >> sh & mask]++ * size, from + (size_t)k * size, size);
		}
		char *t = from;
		from = to;
		to = t;
	}
	if (from != b)
		memcpy(b, from, (size_t)n * size);
	free(tmp);
}
