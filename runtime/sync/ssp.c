/* ssp.c: stale synchronous parallel steps over ranks.
 *
 * A rank's change to each written vector in clock c goes to every other
 * rank as it finishes the clock (one message per vector, in order, so
 * the k-th message from a rank is clock k / nwr, vector k % nwr).  A
 * rank takes what has come in whenever it looks, and before clock c it
 * waits while some rank has finished fewer than c - s clocks.  So a rank
 * runs on values missing at most s clocks of the others' changes.
 *
 * The working vectors take each change when it arrives, so they differ
 * from rank to rank.  Beside them each rank keeps the synchronized
 * values z: clock c merged in once every rank's change for it is in,
 * added in rank order.  At the end the vectors become z, the same on
 * every rank, and driver code goes on from the same values everywhere.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

struct sap_ssp {
	const sap_syncspec *spec;
	int P, me, nwr;
	int64_t steps, s;
	int64_t *A;             /* per clock */
	void **d;               /* [(c * P + r) * nwr + k]: rank r's change */
	int64_t *got;           /* per rank: messages in (this rank: pushed) */
	sap_comm_req *req;      /* [(c * P + r) * nwr + k]: the send to rank r */
	char **z;               /* per vector */
	void *sum;
	int64_t done;           /* clocks merged into z */
	int64_t sent;           /* clocks whose sends are done, their buffers freed */
	int64_t waits, max_stale;
	double wait_s;
	int64_t *lead;          /* per lead, s + 2 */
};

static size_t bytes(const sap_syncdds *w)
{
	return w->dv->n * w->dv->elsize;
}

sap_ssp *sap_ssp_open(const sap_syncspec *spec, int64_t steps, const int64_t *A)
{
	sap_comm_open(SAP_CH_SSP);
	sap_ssp *q = sap_xcalloc(1, sizeof *q);
	q->spec = spec;
	q->P = sap_nranks();
	q->me = sap_rank();
	q->nwr = spec->nwr;
	q->steps = steps;
	q->s = spec->staleness;
	q->A = sap_xmalloc((size_t)steps * sizeof *q->A);
	memcpy(q->A, A, (size_t)steps * sizeof *A);
	size_t slots = (size_t)steps * (size_t)q->P * (size_t)q->nwr;
	q->d = sap_xcalloc(slots ? slots : 1, sizeof *q->d);
	q->req = sap_xcalloc(slots ? slots : 1, sizeof *q->req);
	q->got = sap_xcalloc((size_t)q->P, sizeof *q->got);
	q->z = sap_xcalloc((size_t)q->nwr, sizeof *q->z);
	size_t most = 1;
	for (int k = 0; k < q->nwr; k++) {
		const sap_syncdds *w = &spec->wr[k];
		if (w->dv->n > INT32_MAX)
			sap_fatal(NULL, "ssp: dvector %s has more than 2^31 elements; use bsp",
			          w->dv->name);
		q->z[k] = sap_xmalloc(bytes(w) + 1);
		memcpy(q->z[k], w->dv->data, bytes(w));
		if (bytes(w) > most)
			most = bytes(w);
	}
	q->sum = sap_xmalloc(most);
	q->lead = sap_xcalloc((size_t)(q->s < steps ? q->s : steps) + 2, sizeof *q->lead);
	return q;
}

static void **slot(sap_ssp *q, int64_t c, int r, int k)
{
	return &q->d[((size_t)c * (size_t)q->P + (size_t)r) * (size_t)q->nwr + (size_t)k];
}

/* The clocks every other rank has finished. */
static int64_t slowest(const sap_ssp *q, int *who)
{
	int64_t m = q->steps;
	*who = -1;
	for (int r = 0; r < q->P; r++)
		if (r != q->me && q->got[r] / q->nwr < m) {
			m = q->got[r] / q->nwr;
			*who = r;
		}
	return m;
}

/* The next message from rank r, into the working vectors. */
static void take(sap_ssp *q, int r)
{
	int64_t c = q->got[r] / q->nwr;
	int k = (int)(q->got[r] % q->nwr);
	const sap_syncdds *w = &q->spec->wr[k];
	void *d = sap_xmalloc(bytes(w) + 1);
	sap_comm_recv(d, w->dv->n, w->dv->elsize, r, SAP_CH_SSP);
	*slot(q, c, r, k) = d;
	sap_sc_merge(w, w->dv->data, w->dv->data, d, w->dv->n, q->A[c]);
	q->got[r]++;
}

/* Whatever has come in, without waiting. */
static void poll(sap_ssp *q)
{
	for (int r = 0; r < q->P; r++) {
		if (r == q->me)
			continue;
		for (;;) {
			if (q->got[r] == q->steps * q->nwr || !sap_comm_iprobe(r, SAP_CH_SSP))
				break;
			take(q, r);
		}
	}
}

/* This rank's changes whose sends are done, freed in clock order; with
 * wait, all of them.  Waiting for a send here while other ranks wait
 * to receive from a third could close a cycle of waits on 3 ranks and
 * more (a send of a large change ends only when its receiver takes it):
 * only sap_ssp_close, which takes every message first, waits. */
static void free_sent(sap_ssp *q, bool wait)
{
	for (; q->sent < q->done; q->sent++) {
		sap_comm_req *rq = &q->req[(size_t)q->sent * (size_t)q->P * (size_t)q->nwr];
		if (wait)
			sap_comm_waitall(q->P * q->nwr, rq);
		else if (!sap_comm_testall(q->P * q->nwr, rq))
			return;
		for (int k = 0; k < q->nwr; k++) {
			free(*slot(q, q->sent, q->me, k));
			*slot(q, q->sent, q->me, k) = NULL;
		}
	}
}

/* Clocks every rank's changes are in for, merged into z in order. */
static void settle(sap_ssp *q)
{
	free_sent(q, false);
	for (; q->done < q->steps; q->done++) {
		int64_t c = q->done;
		for (int r = 0; r < q->P; r++)
			if (q->got[r] <= c * q->nwr + q->nwr - 1)
				return;
		for (int k = 0; k < q->nwr; k++) {
			const sap_syncdds *w = &q->spec->wr[k];
			memcpy(q->sum, *slot(q, c, 0, k), bytes(w));
			for (int r = 1; r < q->P; r++)
				sap_sc_add(w->num, q->sum, *slot(q, c, r, k), w->dv->n);
			sap_sc_merge(w, q->z[k], q->z[k], q->sum, w->dv->n, q->A[c]);
		}
		/* The others' changes; this rank's own is a send's buffer. */
		for (int r = 0; r < q->P; r++)
			for (int k = 0; r != q->me && k < q->nwr; k++) {
				free(*slot(q, c, r, k));
				*slot(q, c, r, k) = NULL;
			}
	}
	free_sent(q, false);
}

void sap_ssp_wait(sap_ssp *q, int64_t clock)
{
	poll(q);
	int who;
	int64_t m = slowest(q, &who);
	/* Clock c - 1 ran at most s ahead, so c is at most s + 1. */
	q->lead[clock - m < 0 ? 0 : clock - m]++;
	if (clock - m > q->s) {
		double t0 = sap_now();
		q->waits++;
		while (clock - (m = slowest(q, &who)) > q->s) {
			sap_comm_probe(who, SAP_CH_SSP);
			take(q, who);
		}
		poll(q);
		q->wait_s += sap_now() - t0;
	}
	if (clock - slowest(q, &who) > q->max_stale)
		q->max_stale = clock - slowest(q, &who);
	settle(q);
}

void sap_ssp_push(sap_ssp *q, int64_t clock, int k, void *delta)
{
	const sap_syncdds *w = &q->spec->wr[k];
	*slot(q, clock, q->me, k) = delta;
	sap_sc_merge(w, w->dv->data, w->dv->data, delta, w->dv->n, q->A[clock]);
	for (int r = 0; r < q->P; r++)
		if (r != q->me)
			sap_comm_isend(delta, w->dv->n, w->dv->elsize, r, SAP_CH_SSP,
			               &q->req[((size_t)clock * (size_t)q->P + (size_t)r) *
			                       (size_t)q->nwr + (size_t)k]);
	q->got[q->me]++;
	poll(q);
}

void sap_ssp_close(sap_ssp *q, sap_sync_stats *st)
{
	for (int r = 0; r < q->P; r++)
		while (r != q->me && q->got[r] < q->steps * q->nwr)
			take(q, r);
	settle(q);
	free_sent(q, true);
	for (int k = 0; k < q->nwr; k++) {
		memcpy(q->spec->wr[k].dv->data, q->z[k], bytes(&q->spec->wr[k]));
		free(q->z[k]);
	}
	int nl = (int)((q->s < q->steps ? q->s : q->steps) + 2);
	if (nl > st->nlead) {
		st->lead = sap_xrealloc(st->lead, (size_t)nl * sizeof *st->lead);
		memset(st->lead + st->nlead, 0, (size_t)(nl - st->nlead) * sizeof *st->lead);
		st->nlead = nl;
	}
	for (int d = 0; d < nl; d++)
		st->lead[d] += q->lead[d];
	free(q->lead);
	st->waits += q->waits;
	st->wait_s += q->wait_s;
	if (q->max_stale > st->max_stale)
		st->max_stale = q->max_stale;
	free(q->z);
	free(q->sum);
	free(q->d);
	free(q->req);
	free(q->got);
	free(q->A);
	free(q);
}
