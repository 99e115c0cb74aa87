/* comm.h: the communication layer, the one place where bytes cross ranks.
 *
 * Checkpoints, record/replay and the unit tests each need to see (or
 * stand in for) everything that goes between ranks, so the rest of the
 * runtime never calls MPI itself.  Two back ends implement this header,
 * chosen at link time:
 *
 *   comm-mpi.c   MPI, all ranks of the run; in libsap, so every program.
 *   comm-self.c  one process of rank 0: a collective is a copy at most,
 *                and nothing needs MPI; the unit tests link it.
 *
 * Buffers are n items of `unit` bytes each, n an int64_t; displacements
 * are in items too.  MPI counts are ints, so a back end moves a buffer as
 * bytes when n * unit fits an int, else as n items of one derived type;
 * past that the run stops in sap_comm_check, the one size guard, which
 * both back ends apply alike so that one process fails where many would.
 * Broadcasts and blocking messages of bytes (unit 1) go in pieces of
 * INT32_MAX bytes instead, and have no limit.
 *
 * Collectives must be called by every rank in the same order; `root` and
 * ranks are 0 .. sap_comm_size() - 1.
 */
#ifndef SAP_COMM_H
#define SAP_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the process ---- */

/* Start communicating: rank and size are known from here on.  Programs
 * call it from sap_init; code that never does (the unit tests, the
 * engine benchmarks) runs as rank 0 of 1 with no collective live. */
void sap_comm_start(int *argc, char ***argv);
/* Stop; any number of times, and without a start. */
void sap_comm_end(void);
/* Started and not yet ended, so that a collective can run: error paths
 * ask before they wait for or abort the other ranks. */
bool sap_comm_live(void);
/* End every rank's process with status (after a fatal error on one). */
_Noreturn void sap_comm_abort(int status);
int sap_comm_rank(void);
int sap_comm_size(void);
/* The ranks on this node, this one included, so that threads are not
 * oversubscribed; 1 when not known. */
int sap_comm_node_size(void);
/* Seconds since some fixed time, the same clock on every rank as far as
 * the back end can tell. */
double sap_comm_wtime(void);

/* ---- the size guard ---- */

/* Whether n items fit one call's int count: for code that picks another
 * way when they do not. */
bool sap_comm_fits(int64_t n);
/* How the k counts or displacements n[] of one call of `what` ("an
 * exchange", "a gather" ...) travel: 1 if as bytes (n[i] * unit fits an
 * int), `unit` if as items of `unit` bytes (n[i] fits); if neither, a
 * fatal error that says what to do.  Back ends call it; so may others
 * that check early. */
size_t sap_comm_check(const int64_t *n, int k, size_t unit, const char *what);

/* ---- collectives ---- */

void sap_comm_barrier(void);

/* Element-wise over every rank's buf[0 .. n), in place. */
typedef enum { SAP_COMM_INT, SAP_COMM_I64, SAP_COMM_U64, SAP_COMM_DOUBLE } sap_comm_type;
typedef enum { SAP_COMM_SUM, SAP_COMM_MIN, SAP_COMM_MAX, SAP_COMM_BOR } sap_comm_op;
void sap_comm_allreduce(void *buf, int64_t n, sap_comm_type t, sap_comm_op op);
/* The sum of v over the ranks before this one; 0 on rank 0. */
int64_t sap_comm_exscan_sum(int64_t v);

/* root's buf[0 .. n) to every rank. */
void sap_comm_bcast(void *buf, int64_t n, size_t unit, int root);

/* Every rank's mine[0 .. n), the same n on all, into all[r * n ..). */
void sap_comm_allgather(const void *mine, void *all, int64_t n, size_t unit);
/* Every rank's mine[0 .. cnt[r]) into all[dis[r] ..); n = cnt[me]; mine
 * may be all + dis[me] (in place). */
void sap_comm_allgatherv(const void *mine, int64_t n, void *all, const int64_t *cnt,
                         const int64_t *dis, size_t unit);
/* Every rank's count n into cnt[], and their running sums, where an
 * allgatherv packs them in rank order, into dis[]; returns the total. */
int64_t sap_comm_counts(int64_t n, int64_t *cnt, int64_t *dis);

/* As the allgathers, onto root only: cnt, dis and all matter only there. */
void sap_comm_gather(const void *mine, void *all, int64_t n, size_t unit, int root);
void sap_comm_gatherv(const void *mine, int64_t n, void *all, const int64_t *cnt,
                      const int64_t *dis, size_t unit, int root);

/* Rank d gets out[d * n ..) of n items into in[me * n ..) of its own. */
void sap_comm_alltoall(const void *out, void *in, int64_t n, size_t unit);
/* Rank d gets scnt[d] items from out[sdis[d] ..), into in[rdis[me] ..)
 * of its own, which expects rcnt[me] of them. */
void sap_comm_alltoallv(const void *out, const int64_t *scnt, const int64_t *sdis, void *in,
                        const int64_t *rcnt, const int64_t *rdis, size_t unit);
/* The exchange of bytes whose sizes only the senders know: out holds
 * scnt[d] bytes for each rank d, packed in rank order.  Returns what came,
 * packed in rank order (one spare byte after it), rank d's rcnt[d] bytes
 * from rdis[d] (P + 1 displacements: rdis[P] is the total). */
char *sap_comm_exchange(const void *out, const int64_t *scnt, int64_t *rcnt, int64_t *rdis);

/* ---- point to point, between the collectives of a phase ---- */

/* A message matches only one of the same channel, between the same two
 * ranks, in the order they were sent. */
typedef enum {
	SAP_CH_CHAIN,           /* a chain along the ranks, and plain transfers */
	SAP_CH_HOLDERS,         /* a chain's total to the holders of its elements */
	SAP_CH_SSP,             /* stale synchronous steps, which probe */
	SAP_CH_N
} sap_comm_chan;

/* Collective, before a channel's first message, since a back end may
 * have to set it up with the other ranks; later calls do nothing. */
void sap_comm_open(sap_comm_chan ch);

/* An operation in flight; zero-initialised, or after a wait, it is done. */
typedef struct sap_comm_req {
	bool live;
	union {
		void *p;
		int64_t i;
	} h;                    /* the back end's handle */
} sap_comm_req;

/* Blocking.  Bytes (unit 1) go in pieces of at most INT32_MAX, none when
 * n is 0, so sender and receiver must give the same n; other units go as
 * one message, even of no items. */
void sap_comm_send(const void *buf, int64_t n, size_t unit, int to, sap_comm_chan ch);
void sap_comm_recv(void *buf, int64_t n, size_t unit, int from, sap_comm_chan ch);
/* Not blocking: the buffer is the layer's until the request is done. */
void sap_comm_isend(const void *buf, int64_t n, size_t unit, int to, sap_comm_chan ch,
                    sap_comm_req *rq);
void sap_comm_irecv(void *buf, int64_t n, size_t unit, int from, sap_comm_chan ch,
                    sap_comm_req *rq);
void sap_comm_wait(sap_comm_req *rq);
void sap_comm_waitall(int64_t n, sap_comm_req *rq);
/* Whether every request of rq is done, without waiting; if so they are
 * all done as after sap_comm_waitall, and if not none is changed. */
bool sap_comm_testall(int64_t n, sap_comm_req *rq);
/* Whether a message from rank `from` waits on ch; probe blocks until one
 * does. */
bool sap_comm_iprobe(int from, sap_comm_chan ch);
void sap_comm_probe(int from, sap_comm_chan ch);

#endif
