/* accum.c: the private buffers of accumulate(+: D).
 *
 * Updates that commute are not conflicts: each worker adds into its own
 * buffer and the buffers are summed in worker order, so the result is
 * deterministic for a given number of workers.  The sums themselves are
 * sap_acc_add's (merge.c), scalar by scalar of each element. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* A loop that accumulates into a vector takes a zeroed buffer of it per
 * worker, and the driver one more, every invocation.  Large ones come
 * from mmap and go back to it, so each invocation paid a page fault per
 * 4 KiB (PageRank's 8 MB vector on two threads: 24 MB of faults a pass,
 * as long as the loop itself).  Freed buffers are kept here, up to
 * KEEP_BYTES, and zeroed again when taken: a few memsets on the pool's
 * threads.  Each buffer has a header with its size. */
enum { HEAD = 64, KEEP = 32 };
#define KEEP_BYTES ((size_t)1 << 30)

static pthread_mutex_t keep_mu = PTHREAD_MUTEX_INITIALIZER;
static void *kept[KEEP];
static size_t kept_size[KEEP];
static int nkept;
static size_t kept_bytes;

typedef struct zero_job {
	char *p;
	size_t bytes;
	int T;
} zero_job;

static void zero_part(void *arg, int w)
{
	zero_job *j = arg;
	size_t a = (size_t)sap_chunk(0, (int64_t)j->bytes, j->T, w);
	size_t b = (size_t)sap_chunk(0, (int64_t)j->bytes, j->T, w + 1);
	memset(j->p + a, 0, b - a);
}

void *sap_acc_alloc(int64_t n, size_t elsize)
{
	size_t bytes = (n > 0 ? (size_t)n : 1) * (elsize ? elsize : 1);
	char *p = NULL;
	pthread_mutex_lock(&keep_mu);
	for (int k = 0; k < nkept; k++)
		if (kept_size[k] == bytes) {
			p = kept[k];
			kept_bytes -= bytes;
			kept[k] = kept[--nkept];
			kept_size[k] = kept_size[nkept];
			break;
		}
	pthread_mutex_unlock(&keep_mu);
	if (!p) {
		p = sap_xcalloc(1, bytes + HEAD);
		memcpy(p, &bytes, sizeof bytes);
		return p + HEAD;
	}
	zero_job j = { p + HEAD, bytes, 1 };
	if (bytes >= SAP_PAR_BYTES && sap_pool_free())
		j.T = sap_threads();
	sap_pool_run(j.T, zero_part, &j);
	return p + HEAD;
}

void sap_acc_free(void *q)
{
	if (!q)
		return;
	char *p = (char *)q - HEAD;
	size_t bytes;
	memcpy(&bytes, p, sizeof bytes);
	pthread_mutex_lock(&keep_mu);
	if (nkept < KEEP && kept_bytes + bytes <= KEEP_BYTES) {
		kept[nkept] = p;
		kept_size[nkept++] = bytes;
		kept_bytes += bytes;
		p = NULL;
	}
	pthread_mutex_unlock(&keep_mu);
	free(p);
}

bool sap_acc_in_place(const sap_dvec *v)
{
	return v->holder && !v->part_only && !v->codec;
}

void sap_acc_apply(const sap_numtype *t, sap_dvec *v, const void *buf)
{
	const char *b = buf;
	size_t es = v->elsize;
	if (!sap_acc_in_place(v)) {
		sap_acc_add(t, v->data, b, v->n);
		return;
	}
	/* Only the elements this rank holds had their sums sent here. */
	int me = sap_rank();
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h == me || h == SAP_HOLD_ALL)
			sap_acc_add(t, v->data + (size_t)k * es, b + (size_t)k * es, j - k);
	}
}

void sap_dm_merge(const sap_numtype *t, sap_dmap *into, sap_dmap *from)
{
	int64_t pos = 0;
	const void *key;
	void *val;
	while (sap_dm_next(from, &pos, &key, &val))
		sap_acc_add(t, sap_dm_upsert(into, key), val, 1);
}
