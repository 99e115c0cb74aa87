/* comm-self.c: the communication layer in one process, rank 0 of 1.
 *
 * What a collective sends this rank is a copy; what it sends others does
 * not exist.  Sizes pass the same guard as on MPI, so that a run on one
 * process fails where one on many would.  There is no other rank to
 * exchange messages with: the engines never send to themselves, so a
 * point-to-point call here is an internal error. */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

static bool live;

void sap_comm_start(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	live = true;
}

void sap_comm_end(void)
{
	live = false;
}

bool sap_comm_live(void)
{
	return live;
}

_Noreturn void sap_comm_abort(int status)
{
	exit(status);
}

int sap_comm_rank(void) { return 0; }
int sap_comm_size(void) { return 1; }
int sap_comm_node_size(void) { return 1; }

double sap_comm_wtime(void)
{
	return sap_now();
}

/* ---- collectives ---- */

void sap_comm_barrier(void)
{
}

void sap_comm_allreduce(void *buf, int64_t n, sap_comm_type t, sap_comm_op op)
{
	(void)buf;
	(void)t;
	(void)op;
	sap_comm_check(&n, 1, 1, "a reduction");
}

int64_t sap_comm_exscan_sum(int64_t v)
{
	(void)v;
	return 0;
}

void sap_comm_bcast(void *buf, int64_t n, size_t unit, int root)
{
	(void)buf;
	(void)root;
	if (unit != 1)
		sap_comm_check(&n, 1, unit, "a broadcast");
}

/* n items of unit bytes from `from` to `to`, which may overlap. */
static void copy(void *to, const void *from, int64_t n, size_t unit)
{
	if (n > 0 && to != from)
		memmove(to, from, (size_t)n * unit);
}

void sap_comm_allgather(const void *mine, void *all, int64_t n, size_t unit)
{
	sap_comm_check(&n, 1, unit, "a gather");
	copy(all, mine, n, unit);
}

void sap_comm_allgatherv(const void *mine, int64_t n, void *all, const int64_t *cnt,
                         const int64_t *dis, size_t unit)
{
	int64_t v[3] = { n, cnt[0], dis[0] };
	sap_comm_check(v, 3, unit, "a gather");
	copy((char *)all + (size_t)dis[0] * unit, mine, n, unit);
}

void sap_comm_gather(const void *mine, void *all, int64_t n, size_t unit, int root)
{
	(void)root;
	sap_comm_allgather(mine, all, n, unit);
}

void sap_comm_gatherv(const void *mine, int64_t n, void *all, const int64_t *cnt,
                      const int64_t *dis, size_t unit, int root)
{
	(void)root;
	sap_comm_allgatherv(mine, n, all, cnt, dis, unit);
}

void sap_comm_alltoall(const void *out, void *in, int64_t n, size_t unit)
{
	sap_comm_check(&n, 1, unit, "an exchange");
	copy(in, out, n, unit);
}

void sap_comm_alltoallv(const void *out, const int64_t *scnt, const int64_t *sdis, void *in,
                        const int64_t *rcnt, const int64_t *rdis, size_t unit)
{
	int64_t v[4] = { scnt[0], sdis[0], rcnt[0], rdis[0] };
	sap_comm_check(v, 4, unit, "an exchange");
	copy((char *)in + (size_t)rdis[0] * unit, (const char *)out + (size_t)sdis[0] * unit,
	     scnt[0], unit);
}

/* ---- point to point ---- */

void sap_comm_open(sap_comm_chan ch)
{
	(void)ch;
}

static _Noreturn void no_peer(const char *what)
{
	sap_fatal(NULL, "internal error: %s with no other rank (single-process communication)",
	          what);
}

void sap_comm_send(const void *buf, int64_t n, size_t unit, int to, sap_comm_chan ch)
{
	(void)buf, (void)n, (void)unit, (void)to, (void)ch;
	no_peer("a message sent");
}

void sap_comm_recv(void *buf, int64_t n, size_t unit, int from, sap_comm_chan ch)
{
	(void)buf, (void)n, (void)unit, (void)from, (void)ch;
	no_peer("a message awaited");
}

void sap_comm_isend(const void *buf, int64_t n, size_t unit, int to, sap_comm_chan ch,
                    sap_comm_req *rq)
{
	(void)rq;
	sap_comm_send(buf, n, unit, to, ch);
}

void sap_comm_irecv(void *buf, int64_t n, size_t unit, int from, sap_comm_chan ch,
                    sap_comm_req *rq)
{
	(void)rq;
	sap_comm_recv(buf, n, unit, from, ch);
}

void sap_comm_wait(sap_comm_req *rq)
{
	rq->live = false;
}

void sap_comm_waitall(int64_t n, sap_comm_req *rq)
{
	for (int64_t i = 0; i < n; i++)
		rq[i].live = false;
}

bool sap_comm_testall(int64_t n, sap_comm_req *rq)
{
	sap_comm_waitall(n, rq);
	return true;
}

bool sap_comm_iprobe(int from, sap_comm_chan ch)
{
	(void)from;
	(void)ch;
	return false;
}

void sap_comm_probe(int from, sap_comm_chan ch)
{
	(void)from;
	(void)ch;
	no_peer("a message awaited");
}
