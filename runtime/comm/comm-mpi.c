/* comm-mpi.c: the communication layer on MPI, the only file of libsap
 * that calls it.  Everything goes over MPI_COMM_WORLD but stale
 * synchronous steps, which probe for messages and so get a communicator
 * of their own, where nothing else can match.
 *
 * A job of one process does not start MPI at all (`solo`): MPI_Init and
 * MPI_Finalize under mpiexec take 0.1 s, which is a tenth of a program
 * of a second's work, and with one rank a collective is a copy at most,
 * as in comm-self.c. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "sap-int.h"

static int rank = 0, size = 1;
static MPI_Comm ssp_comm = MPI_COMM_NULL;
/* Not started, or started as a job of one process: no MPI. */
static bool solo = true;
static bool solo_live;

_Static_assert(sizeof(MPI_Request) <= sizeof(((sap_comm_req *)0)->h),
               "an MPI request fits a sap_comm_req");

/* ---- the process ---- */

/* Open MPI's default start-up tries its cm layer first, whose network
 * back ends (psm, psm2, ofi) take 0.2 s to find no network: most of a
 * small program's run.  Ranks that all share one node need no network,
 * so unless the user chose a layer, they take ob1 (shared memory), as
 * every rank decides alike; a program started without mpiexec runs as a
 * singleton that also starts no daemon.  Other MPIs ignore the names. */
static void quick_start(void)
{
	const char *world = getenv("OMPI_COMM_WORLD_SIZE");
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (!world && !getenv("PMIX_RANK") && !getenv("PMI_RANK")) {
		setenv("OMPI_MCA_pml", "ob1", 0);
		setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
	} else if (world && local && strcmp(world, local) == 0) {
		setenv("OMPI_MCA_pml", "ob1", 0);
	}
}

/* Whether the launcher says the job has one process, or there is no
 * launcher (a singleton); SAP_MPI=1 starts MPI anyway, for C code of the
 * user's that calls it. */
static bool one_process(void)
{
	const char *v = getenv("SAP_MPI");
	if (v && *v && strcmp(v, "0") != 0)
		return false;
	const char *world = getenv("OMPI_COMM_WORLD_SIZE");
	if (!world)
		world = getenv("PMI_SIZE");
	if (world)
		return strcmp(world, "1") == 0;
	return !getenv("PMIX_RANK") && !getenv("PMI_RANK") && !getenv("SLURM_STEP_NUM_TASKS");
}

void sap_comm_start(int *argc, char ***argv)
{
	if (one_process()) {
		solo = solo_live = true;
		return;
	}
	int provided;
	solo = false;
	quick_start();
	MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
}

bool sap_comm_live(void)
{
	if (solo)
		return solo_live;
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	return init && !fin;
}

void sap_comm_end(void)
{
	if (solo)
		solo_live = false;
	else if (sap_comm_live())
		MPI_Finalize();
}

_Noreturn void sap_comm_abort(int status)
{
	if (solo)
		exit(status);
	/* What the other ranks printed before is in their pipes to Open
	 * MPI's daemon; an abort at once can end the daemon before it has
	 * forwarded it (seen on 3 ranks under load: rank 0's line before
	 * the error went missing).  A moment lets it drain them. */
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

int sap_comm_rank(void) { return rank; }
int sap_comm_size(void) { return size; }

int sap_comm_node_size(void)
{
	MPI_Comm node;
	int local = 1;
	if (solo)
		return 1;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
	                        &node) == MPI_SUCCESS) {
		MPI_Comm_size(node, &local);
		MPI_Comm_free(&node);
	}
	return local;
}

double sap_comm_wtime(void)
{
	if (solo)
		return sap_now();
	return MPI_Wtime();
}

/* ---- how buffers travel ---- */

/* One item of `unit` bytes as a type; past INT_MAX bytes, GiB blocks
 * and the rest. */
static MPI_Datatype unit_type(size_t unit)
{
	MPI_Datatype t;
	if (unit <= INT32_MAX) {
		MPI_Type_contiguous((int)unit, MPI_BYTE, &t);
	} else {
		const size_t G = (size_t)1 << 30;
		MPI_Datatype g, parts[2], s;
		MPI_Type_contiguous((int)G, MPI_BYTE, &g);
		MPI_Type_contiguous((int)(unit / G), g, &parts[0]);
		MPI_Type_contiguous((int)(unit % G), MPI_BYTE, &parts[1]);
		int len[2] = { 1, 1 };
		MPI_Aint at[2] = { 0, (MPI_Aint)(unit / G * G) };
		MPI_Type_create_struct(2, len, at, parts, &s);
		MPI_Type_create_resized(s, 0, (MPI_Aint)unit, &t);
		MPI_Type_free(&g);
		MPI_Type_free(&parts[0]);
		MPI_Type_free(&parts[1]);
		MPI_Type_free(&s);
	}
	MPI_Type_commit(&t);
	return t;
}

/* A call's counts: as bytes, which Open MPI moves by its fastest path,
 * where they fit an int, else as items of a type made for the call. */
typedef struct how {
	MPI_Datatype type;
	int64_t per;            /* bytes or items in one count */
} how;

static how how_of(const int64_t *n, int k, size_t unit, const char *what)
{
	size_t u = sap_comm_check(n, k, unit, what);
	if (u == 1 || solo)
		return (how){ MPI_BYTE, (int64_t)unit };
	return (how){ unit_type(unit), 1 };
}

/* One process's share of a collective: n items to `to` from `from`,
 * which may overlap. */
static void solo_copy(void *to, const void *from, int64_t n, size_t unit)
{
	if (n > 0 && to != from)
		memmove(to, from, (size_t)n * unit);
}

static void how_done(how *h)
{
	if (h->type != MPI_BYTE)
		MPI_Type_free(&h->type);
}

/* Counts of P ranks in the call's units, as the ints MPI takes. */
static int *ints(const int64_t *n, const how *h)
{
	int *v = sap_xmalloc((size_t)size * sizeof *v);
	for (int r = 0; r < size; r++)
		v[r] = (int)(n[r] * h->per);
	return v;
}

/* ---- collectives ---- */

void sap_comm_barrier(void)
{
	if (solo)
		return;
	MPI_Barrier(MPI_COMM_WORLD);
}

void sap_comm_allreduce(void *buf, int64_t n, sap_comm_type t, sap_comm_op op)
{
	MPI_Op ops[] = { [SAP_COMM_SUM] = MPI_SUM, [SAP_COMM_MIN] = MPI_MIN,
	                [SAP_COMM_MAX] = MPI_MAX, [SAP_COMM_BOR] = MPI_BOR };
	MPI_Datatype types[] = { [SAP_COMM_INT] = MPI_INT, [SAP_COMM_I64] = MPI_INT64_T,
	                         [SAP_COMM_U64] = MPI_UINT64_T, [SAP_COMM_DOUBLE] = MPI_DOUBLE };
	sap_comm_check(&n, 1, 1, "a reduction");
	if (solo)
		return;
	MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, types[t], ops[op], MPI_COMM_WORLD);
}

int64_t sap_comm_exscan_sum(int64_t v)
{
	int64_t sum = 0;
	if (solo)
		return 0;
	MPI_Exscan(&v, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	return rank == 0 ? 0 : sum;
}

void sap_comm_bcast(void *buf, int64_t n, size_t unit, int root)
{
	if (solo) {
		if (unit != 1)
			sap_comm_check(&n, 1, unit, "a broadcast");
		return;
	}
	if (unit == 1) {
		for (int64_t at = 0; at < n; at += INT32_MAX)
			MPI_Bcast((char *)buf + at, n - at < INT32_MAX ? (int)(n - at) : INT32_MAX,
			          MPI_BYTE, root, MPI_COMM_WORLD);
		return;
	}
	how h = how_of(&n, 1, unit, "a broadcast");
	MPI_Bcast(buf, (int)(n * h.per), h.type, root, MPI_COMM_WORLD);
	how_done(&h);
}

void sap_comm_allgather(const void *mine, void *all, int64_t n, size_t unit)
{
	how h = how_of(&n, 1, unit, "a gather");
	if (solo) {
		solo_copy(all, mine, n, unit);
		return;
	}
	MPI_Allgather(mine, (int)(n * h.per), h.type, all, (int)(n * h.per), h.type,
	              MPI_COMM_WORLD);
	how_done(&h);
}

/* The counts and displacements of a v-collective, and mine, checked
 * together: one choice of type for the call. */
static how how_v(int64_t n, const int64_t *cnt, const int64_t *dis, size_t unit,
                 const char *what)
{
	int64_t *all = sap_xmalloc((size_t)(2 * size + 1) * sizeof *all);
	memcpy(all, cnt, (size_t)size * sizeof *all);
	memcpy(all + size, dis, (size_t)size * sizeof *all);
	all[2 * size] = n;
	how h = how_of(all, 2 * size + 1, unit, what);
	free(all);
	return h;
}

void sap_comm_allgatherv(const void *mine, int64_t n, void *all, const int64_t *cnt,
                         const int64_t *dis, size_t unit)
{
	how h = how_v(n, cnt, dis, unit, "a gather");
	if (solo) {
		how_done(&h);
		solo_copy((char *)all + (size_t)dis[0] * unit, mine, n, unit);
		return;
	}
	int *c = ints(cnt, &h), *d = ints(dis, &h);
	/* mine already where it goes in all: MPI wants that said. */
	const void *from = (const char *)all + (size_t)dis[rank] * unit == mine ? MPI_IN_PLACE : mine;
	MPI_Allgatherv(from, (int)(n * h.per), h.type, all, c, d, h.type, MPI_COMM_WORLD);
	free(c);
	free(d);
	how_done(&h);
}

void sap_comm_gather(const void *mine, void *all, int64_t n, size_t unit, int root)
{
	if (solo) {
		sap_comm_allgather(mine, all, n, unit);
		return;
	}
	how h = how_of(&n, 1, unit, "a gather");
	MPI_Gather(mine, (int)(n * h.per), h.type, all, (int)(n * h.per), h.type, root,
	           MPI_COMM_WORLD);
	how_done(&h);
}

void sap_comm_gatherv(const void *mine, int64_t n, void *all, const int64_t *cnt,
                      const int64_t *dis, size_t unit, int root)
{
	if (solo) {
		sap_comm_allgatherv(mine, n, all, cnt, dis, unit);
		return;
	}
	/* Only the root's counts mean anything; the others check their own. */
	how h = rank == root ? how_v(n, cnt, dis, unit, "a gather") : how_of(&n, 1, unit, "a gather");
	int *c = NULL, *d = NULL;
	if (rank == root) {
		c = ints(cnt, &h);
		d = ints(dis, &h);
	}
	MPI_Gatherv(mine, (int)(n * h.per), h.type, all, c, d, h.type, root, MPI_COMM_WORLD);
	free(c);
	free(d);
	how_done(&h);
}

void sap_comm_alltoall(const void *out, void *in, int64_t n, size_t unit)
{
	how h = how_of(&n, 1, unit, "an exchange");
	if (solo) {
		solo_copy(in, out, n, unit);
		return;
	}
	MPI_Alltoall(out, (int)(n * h.per), h.type, in, (int)(n * h.per), h.type, MPI_COMM_WORLD);
	how_done(&h);
}

void sap_comm_alltoallv(const void *out, const int64_t *scnt, const int64_t *sdis, void *in,
                        const int64_t *rcnt, const int64_t *rdis, size_t unit)
{
	int64_t *all = sap_xmalloc((size_t)(4 * size) * sizeof *all);
	memcpy(all, scnt, (size_t)size * sizeof *all);
	memcpy(all + size, sdis, (size_t)size * sizeof *all);
	memcpy(all + 2 * size, rcnt, (size_t)size * sizeof *all);
	memcpy(all + 3 * size, rdis, (size_t)size * sizeof *all);
	how h = how_of(all, 4 * size, unit, "an exchange");
	free(all);
	if (solo) {
		how_done(&h);
		solo_copy((char *)in + (size_t)rdis[0] * unit, (const char *)out + (size_t)sdis[0] * unit,
		          scnt[0], unit);
		return;
	}
	int *sc = ints(scnt, &h), *sd = ints(sdis, &h), *rc = ints(rcnt, &h), *rd = ints(rdis, &h);
	MPI_Alltoallv(out, sc, sd, h.type, in, rc, rd, h.type, MPI_COMM_WORLD);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	how_done(&h);
}

/* ---- point to point ---- */

void sap_comm_open(sap_comm_chan ch)
{
	if (solo)
		return;
	if (ch == SAP_CH_SSP && ssp_comm == MPI_COMM_NULL)
		MPI_Comm_dup(MPI_COMM_WORLD, &ssp_comm);
}

static MPI_Comm comm_of(sap_comm_chan ch)
{
	return ch == SAP_CH_SSP ? ssp_comm : MPI_COMM_WORLD;
}

static int tag_of(sap_comm_chan ch)
{
	return ch == SAP_CH_HOLDERS ? 1 : 0;
}

/* The engines never send to themselves, so with one process a message is
 * an internal error, not a call into an MPI that was never started. */
static void need_peer(const char *what)
{
	if (solo)
		sap_fatal(NULL, "internal error: %s with no other rank (a job of one process)", what);
}

void sap_comm_send(const void *buf, int64_t n, size_t unit, int to, sap_comm_chan ch)
{
	need_peer("a message sent");
	if (unit == 1) {
		for (int64_t at = 0; at < n; at += INT32_MAX)
			MPI_Send((const char *)buf + at, n - at < INT32_MAX ? (int)(n - at) : INT32_MAX,
			         MPI_BYTE, to, tag_of(ch), comm_of(ch));
		return;
	}
	how h = how_of(&n, 1, unit, "a message");
	MPI_Send(buf, (int)(n * h.per), h.type, to, tag_of(ch), comm_of(ch));
	how_done(&h);
}

void sap_comm_recv(void *buf, int64_t n, size_t unit, int from, sap_comm_chan ch)
{
	need_peer("a message awaited");
	if (unit == 1) {
		for (int64_t at = 0; at < n; at += INT32_MAX)
			MPI_Recv((char *)buf + at, n - at < INT32_MAX ? (int)(n - at) : INT32_MAX,
			         MPI_BYTE, from, tag_of(ch), comm_of(ch), MPI_STATUS_IGNORE);
		return;
	}
	how h = how_of(&n, 1, unit, "a message");
	MPI_Recv(buf, (int)(n * h.per), h.type, from, tag_of(ch), comm_of(ch), MPI_STATUS_IGNORE);
	how_done(&h);
}

static void put_req(sap_comm_req *rq, MPI_Request r)
{
	rq->live = true;
	memcpy(&rq->h, &r, sizeof r);
}

static MPI_Request get_req(const sap_comm_req *rq)
{
	MPI_Request r = MPI_REQUEST_NULL;
	if (rq->live)
		memcpy(&r, &rq->h, sizeof r);
	return r;
}

/* A type freed while an operation uses it lives until the operation
 * ends (MPI 4.1, 5.1.10 "Type_free"), so a request needs no type kept. */
void sap_comm_isend(const void *buf, int64_t n, size_t unit, int to, sap_comm_chan ch,
                    sap_comm_req *rq)
{
	need_peer("a message sent");
	how h = how_of(&n, 1, unit, "a message");
	MPI_Request r;
	MPI_Isend(buf, (int)(n * h.per), h.type, to, tag_of(ch), comm_of(ch), &r);
	how_done(&h);
	put_req(rq, r);
}

void sap_comm_irecv(void *buf, int64_t n, size_t unit, int from, sap_comm_chan ch,
                    sap_comm_req *rq)
{
	need_peer("a message awaited");
	how h = how_of(&n, 1, unit, "a message");
	MPI_Request r;
	MPI_Irecv(buf, (int)(n * h.per), h.type, from, tag_of(ch), comm_of(ch), &r);
	how_done(&h);
	put_req(rq, r);
}

void sap_comm_wait(sap_comm_req *rq)
{
	if (!rq->live)
		return;
	MPI_Request r = get_req(rq);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	rq->live = false;
}

void sap_comm_waitall(int64_t n, sap_comm_req *rq)
{
	if (solo) {
		for (int64_t i = 0; i < n; i++)
			rq[i].live = false;
		return;
	}
	MPI_Request *r = sap_xmalloc((size_t)n * sizeof *r);
	int k = 0;
	for (int64_t i = 0; i < n; i++)
		if (rq[i].live)
			r[k++] = get_req(&rq[i]);
	MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
	for (int64_t i = 0; i < n; i++)
		rq[i].live = false;
	free(r);
}

bool sap_comm_testall(int64_t n, sap_comm_req *rq)
{
	if (solo) {
		for (int64_t i = 0; i < n; i++)
			rq[i].live = false;
		return true;
	}
	MPI_Request *r = sap_xmalloc((size_t)(n ? n : 1) * sizeof *r);
	int k = 0, flag = 0;
	for (int64_t i = 0; i < n; i++)
		if (rq[i].live)
			r[k++] = get_req(&rq[i]);
	MPI_Testall(k, r, &flag, MPI_STATUSES_IGNORE);
	if (flag)
		for (int64_t i = 0; i < n; i++)
			rq[i].live = false;
	free(r);
	return flag != 0;
}

bool sap_comm_iprobe(int from, sap_comm_chan ch)
{
	int flag = 0;
	if (solo)
		return false;
	MPI_Iprobe(from, tag_of(ch), comm_of(ch), &flag, MPI_STATUS_IGNORE);
	return flag;
}

void sap_comm_probe(int from, sap_comm_chan ch)
{
	need_peer("a message awaited");
	MPI_Probe(from, tag_of(ch), comm_of(ch), MPI_STATUS_IGNORE);
}
