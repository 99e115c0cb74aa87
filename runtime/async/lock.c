/* lock.c: striped key locks for groups too big to share a round.
 *
 * Such a group is split over every worker; an iteration locks the
 * stripes of all its keys, in ascending stripe order so that two
 * iterations never wait for each other in a cycle, and takes a ticket
 * while it holds them.  Two iterations that share a key then run in
 * ticket order, so running all of them one at a time in ticket order
 * gives the same result: the ticket order is the equivalent serial
 * order that --dump-order writes.
 */
#include <pthread.h>
#include <stdlib.h>
#include "sap-int.h"

enum { NSTRIPES = 4096 };

static pthread_mutex_t stripes[NSTRIPES];
static pthread_once_t stripes_once = PTHREAD_ONCE_INIT;

static void stripes_init(void)
{
	for (int k = 0; k < NSTRIPES; k++)
		pthread_mutex_init(&stripes[k], NULL);
}

uint32_t sap_stripe(int dds, int64_t key)
{
	/* The block hash of a key salted with its DDS: keys of two DDSs
	 * rarely share a stripe. */
	uint64_t salted = (uint64_t)key ^ ((uint64_t)dds * 0x9e3779b97f4a7c15ULL);
	return sap_key_block((int64_t)salted, NSTRIPES);
}

static int by_stripe(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

void sap_locks_prepare(sap_locked *lk, const sap_async_spec *spec, const sap_layout *ly,
                       void *env, const int64_t *idx, int64_t n, int T)
{
	pthread_once(&stripes_once, stripes_init);
	sap_keylog log = { 0 };
	sap_recon_log(spec, ly, env, idx, n, &log, T);
	lk->n = n;
	lk->koff = sap_xmalloc((size_t)(n + 1) * sizeof *lk->koff);
	lk->stripe = sap_xmalloc((size_t)log.n * sizeof *lk->stripe);
	/* The log has each iteration's keys together, iterations in the order
	 * of idx. */
	int64_t at = 0, e = 0;
	for (int64_t k = 0; k < n; k++) {
		lk->koff[k] = at;
		int64_t first = at;
		for (; e < log.n && log.v[e].i == idx[k]; e++)
			lk->stripe[at++] = sap_stripe(log.v[e].dds, log.v[e].key);
		if (at - first > 1)
			qsort(lk->stripe + first, (size_t)(at - first), sizeof *lk->stripe, by_stripe);
		int64_t u = first;
		for (int64_t q = first; q < at; q++)
			if (q == first || lk->stripe[q] != lk->stripe[u - 1])
				lk->stripe[u++] = lk->stripe[q];
		at = u;
	}
	lk->koff[n] = at;
	sap_keylog_free(&log);
}

void sap_locks_free(sap_locked *lk)
{
	free(lk->koff);
	free(lk->stripe);
	lk->koff = NULL;
	lk->stripe = NULL;
	lk->n = 0;
}

void sap_locks_take(const sap_locked *lk, int64_t k)
{
	for (int64_t q = lk->koff[k]; q < lk->koff[k + 1]; q++)
		pthread_mutex_lock(&stripes[lk->stripe[q]]);
}

void sap_locks_give(const sap_locked *lk, int64_t k)
{
	for (int64_t q = lk->koff[k + 1]; q-- > lk->koff[k];)
		pthread_mutex_unlock(&stripes[lk->stripe[q]]);
}
