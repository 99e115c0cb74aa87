/* Unit tests of the async engine (runtime/async/async.c, exec.c, lock.c,
 * order.c, stats.c): which way an invocation runs, determinism,
 * serializability through --dump-order and --run-order, reductions in
 * worker order, the reconnaissance cache, and locked groups. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "synth.h"
#include "capture.h"
#include "suites.h"

/* Forked or not, every test starts from the defaults. */
static void setup(void)
{
	sap_order_end();
	memset(&sap_cfg, 0, sizeof sap_cfg);
	/* The planner's tests plan loops of any size (but small_loops). */
	sap_cfg.plan_small = true;
}

static void teardown(void)
{
	sap_order_end();
	sap_pool_end();
}

static sap_loop new_loop(int id)
{
	return (sap_loop){ .id = id, .kind = SAP_ASYNC, .site = { "test.sap", id, 1 } };
}

static char *tmpname(void)
{
	static char buf[8][64];
	static int k;
	char *s = buf[k++ % 8];
	snprintf(s, 64, "/tmp/sap-test-XXXXXX");
	int fd = mkstemp(s);
	ck_assert_int_ge(fd, 0);
	close(fd);
	return s;
}

/* ---- recording body calls ---- */

typedef struct call {
	int64_t lo, hi;
	pthread_t thread;
} call;

static pthread_mutex_t calls_mu = PTHREAD_MUTEX_INITIALIZER;
static call calls[1 << 16];
static int ncalls;
static int64_t seq[1 << 16];       /* iterations in the order they ran */
static int nseq;

static void record_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	(void)env;
	(void)red;
	pthread_mutex_lock(&calls_mu);
	calls[ncalls++] = idx ? (call){ idx[lo], idx[hi - 1] + 1, pthread_self() }
	                      : (call){ lo, hi, pthread_self() };
	for (int64_t k = lo; k < hi; k++)
		seq[nseq++] = idx ? idx[k] : k;
	pthread_mutex_unlock(&calls_mu);
}

static int by_lo(const void *x, const void *y)
{
	const call *a = x, *b = y;
	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* ---- which way an invocation runs ---- */

START_TEST(one_worker_index_order)
{
	sgd m;
	sgd_make(&m, 500, 50, 50, 1);
	sap_cfg.threads = 1;
	ncalls = nseq = 0;
	sap_loop L = new_loop(1);
	sap_async_for(&L, &m.spec, 10, 500, &m, record_body, NULL, NULL);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].lo, 10);
	ck_assert_int_eq(calls[0].hi, 500);
	ck_assert(pthread_equal(calls[0].thread, pthread_self()));
	ck_assert_int_eq(L.state->verdict, SAP_V_INDEX);
	ck_assert_int_eq(L.state->recon_runs, 0);
	ck_assert_int_eq(m.sliced, 0);
	sgd_free(&m);
}
END_TEST

START_TEST(serial_spec_index_order)
{
	sgd m;
	sgd_make(&m, 500, 50, 50, 1);
	m.spec.serial = "every iteration writes S[0]";
	sap_cfg.threads = 3;
	ncalls = nseq = 0;
	sap_loop L = new_loop(1);
	sap_async_for(&L, &m.spec, 0, 500, &m, record_body, NULL, NULL);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].lo, 0);
	ck_assert_int_eq(calls[0].hi, 500);
	ck_assert(pthread_equal(calls[0].thread, pthread_self()));
	ck_assert_int_eq(L.state->verdict, SAP_V_SERIAL);
	ck_assert_str_eq(L.state->reason, "every iteration writes S[0]");
	ck_assert_int_eq(m.sliced, 0);
	sgd_free(&m);
}
END_TEST

START_TEST(unanalysed_spec_index_order)
{
	sap_cfg.threads = 3;
	ncalls = nseq = 0;
	sap_async_spec spec = { 0 };
	sap_loop L = new_loop(1);
	sap_async_for(&L, &spec, 0, 100, NULL, record_body, NULL, NULL);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(L.state->verdict, SAP_V_SERIAL);

	/* A written DDS with no access recorded at all: nothing to plan by. */
	sap_dvec x;
	sap_dv_create(&x, "x", 10, 4, NULL);
	sap_dds d = { .name = "x", .dv = &x, .mode = SAP_WRITE };
	sap_async_spec spec2 = { .dds = &d, .ndds = 1 };
	ncalls = nseq = 0;
	sap_async_for(&L, &spec2, 0, 100, NULL, record_body, NULL, NULL);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(L.state->verdict, SAP_V_SERIAL);

	/* A written dmap: an insert by one worker moves another's values. */
	sap_dmap dm;
	sap_dm_create(&dm, "m", SAP_K_LONG, 4, false, NULL);
	sap_dds dd = { .name = "m", .dm = &dm, .mode = SAP_RW };
	sap_affine af = { .dds = 0, .mode = SAP_RW, .a = 1, .b = 0 };
	sap_async_spec spec3 = { .dds = &dd, .ndds = 1, .affine = &af, .naffine = 1 };
	ncalls = nseq = 0;
	sap_async_for(&L, &spec3, 0, 100, NULL, record_body, NULL, NULL);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(L.state->verdict, SAP_V_SERIAL);
	ck_assert_str_eq(L.state->reason, "it writes a dmap, whose inserts are not thread-safe");
	/* Accumulated, its updates merge after the loop: no obstacle. */
	dd.accumulate = true;
	sap_async_for(&L, &spec3, 0, 100, NULL, record_body, NULL, NULL);
	ck_assert_int_eq(L.state->verdict, SAP_V_CHUNKS);
	sap_dm_free(&dm);
	sap_dv_free(&x);
}
END_TEST

/* Reduce: the iterations each worker ran, concatenated by combine. */
typedef struct seen_red {
	int64_t n;
	int64_t v[2048];
} seen_red;

static void seen_init(void *r) { ((seen_red *)r)->n = 0; }

static void seen_combine(void *into, const void *from)
{
	seen_red *a = into;
	const seen_red *b = from;
	memcpy(a->v + a->n, b->v, (size_t)b->n * sizeof *b->v);
	a->n += b->n;
}

static const sap_reduce seen_reduce = { sizeof(seen_red), seen_init, seen_combine, true, NULL, 0, false, NULL, 0 };

static void seen_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	seen_red *r = red;
	if (env)
		sgd_body(env, idx, lo, hi, NULL);
	for (int64_t k = lo; k < hi; k++)
		r->v[r->n++] = idx ? idx[k] : k;
}

/* A loop that needs a plan, of fewer than 512 iterations over bounds the
 * last invocation did not have, runs in index order on one worker (a
 * plan would cost more than it saves, and nothing would reuse it); over
 * the same bounds again, and past 512, it plans. */
START_TEST(small_loops)
{
	sap_cfg.plan_small = false;
	sap_dvec x, a;
	sap_dv_create(&x, "x", 2000, 4, NULL);
	sap_dv_create(&a, "a", 2000, 4, NULL);
	sap_dds d[2] = {
		{ .name = "a", .dv = &a, .mode = SAP_READ },
		{ .name = "x", .dv = &x, .mode = SAP_RW },
	};
	/* x[i] and x[i + 1]: a plan. */
	sap_affine af[2] = { { .dds = 1, .mode = SAP_WRITE, .a = 1, .b = 0 }, { .dds = 1, .mode = SAP_READ, .a = 1, .b = 1 } };
	sap_async_spec spec = { .dds = d, .ndds = 2, .affine = af, .naffine = 2 };
	sap_cfg.threads = 2;
	seen_red red;
	sap_loop L = new_loop(1);
	sap_async_for(&L, &spec, 0, 300, NULL, seen_body, &seen_reduce, &red);
	ck_assert_int_eq(L.state->verdict, SAP_V_INDEX);
	ck_assert_int_eq(L.state->plan_builds, 0);
	sap_async_for(&L, &spec, 300, 600, NULL, seen_body, &seen_reduce, &red);
	ck_assert_int_eq(L.state->verdict, SAP_V_INDEX);
	ck_assert_int_eq(red.n, 300);
	for (int64_t i = 0; i < 300; i++)
		ck_assert_int_eq(red.v[i], 300 + i);
	sap_async_for(&L, &spec, 300, 600, NULL, seen_body, &seen_reduce, &red);
	ck_assert_int_eq(L.state->verdict, SAP_V_PLANNED);
	ck_assert_int_eq(L.state->plan_builds, 1);
	sap_async_for(&L, &spec, 0, 1999, NULL, seen_body, &seen_reduce, &red);
	ck_assert_int_eq(L.state->verdict, SAP_V_PLANNED);
	sap_dv_free(&x);
	sap_dv_free(&a);
}
END_TEST

START_TEST(chunks_when_independent)
{
	/* X[i] = ..., reading A: iterations touch disjoint keys. */
	sap_dvec x, a;
	sap_dv_create(&x, "x", 30, 4, NULL);
	sap_dv_create(&a, "a", 30, 4, NULL);
	sap_dds d[2] = {
		{ .name = "a", .dv = &a, .mode = SAP_READ },
		{ .name = "x", .dv = &x, .mode = SAP_RW },
	};
	sap_affine af[2] = { { .dds = 1, .mode = SAP_READ, .a = 1, .b = 0 }, { .dds = 1, .mode = SAP_WRITE, .a = 1, .b = 0 } };
	sap_async_spec spec = { .dds = d, .ndds = 2, .affine = af, .naffine = 2 };
	sap_cfg.threads = 3;
	ncalls = nseq = 0;
	sap_loop L = new_loop(1);
	sap_async_for(&L, &spec, 0, 30, NULL, record_body, NULL, NULL);
	ck_assert_int_eq(L.state->verdict, SAP_V_CHUNKS);
	ck_assert_int_eq(ncalls, 3);
	qsort(calls, 3, sizeof *calls, by_lo);
	for (int w = 0; w < 3; w++) {
		ck_assert_int_eq(calls[w].lo, 10 * w);
		ck_assert_int_eq(calls[w].hi, 10 * w + 10);
	}
	ck_assert(!pthread_equal(calls[0].thread, calls[1].thread));

	/* Combined in worker order: chunks in order are index order. */
	seen_red red;
	sap_async_for(&L, &spec, 0, 30, NULL, seen_body, &seen_reduce, &red);
	ck_assert_int_eq(red.n, 30);
	for (int64_t i = 0; i < 30; i++)
		ck_assert_int_eq(red.v[i], i);

	/* Two affine forms of x: x[i] and x[i + 1] may be one key. */
	sap_affine af2[2] = { { .dds = 1, .mode = SAP_WRITE, .a = 1, .b = 0 }, { .dds = 1, .mode = SAP_READ, .a = 1, .b = 1 } };
	spec.affine = af2;
	sap_async_for(&L, &spec, 0, 29, NULL, seen_body, &seen_reduce, &red);
	ck_assert_int_eq(L.state->verdict, SAP_V_PLANNED);
	ck_assert_int_eq(red.n, 29);
	sap_dv_free(&x);
	sap_dv_free(&a);
}
END_TEST

START_TEST(reduce_in_worker_order)
{
	sgd m;
	sgd_make(&m, 2000, 200, 200, 3);
	sap_cfg.threads = 3;
	sap_loop L = new_loop(1);
	seen_red red = { .n = 99 };     /* init must reset it */
	sap_async_for(&L, &m.spec, 0, 2000, &m, seen_body, &seen_reduce, &red);
	const sap_plan *p = &L.state->plan;
	ck_assert_int_eq(L.state->verdict, SAP_V_PLANNED);
	ck_assert_int_eq(p->nrounds, 3);
	/* Worker 0's iterations over all rounds, then worker 1's, ... */
	int64_t at = 0;
	for (int w = 0; w < 3; w++)
		for (int64_t r = 0; r < p->nrounds; r++)
			for (int64_t k = p->ro[r * 3 + w]; k < p->ro[r * 3 + w + 1]; k++)
				for (int64_t q = p->goff[p->rg[k]]; q < p->goff[p->rg[k] + 1]; q++)
					ck_assert_int_eq(red.v[at++], p->order[q]);
	ck_assert_int_eq(at, 2000);
	ck_assert_int_eq(red.n, 2000);
	sgd_free(&m);
}
END_TEST

/* ---- determinism and serializability ---- */

/* W and H after iters invocations of SGD on T workers from the initial
 * model, in fresh copies the caller frees. */
static void train(sgd *m, int T, int iters, float **w, float **h, sap_verdict *v)
{
	sgd_reset(m, 7);
	sap_cfg.threads = T;
	sap_loop L = new_loop(3);
	for (int it = 0; it < iters; it++)
		sap_async_for(&L, &m->spec, 0, m->A.n, m, sgd_body, NULL, NULL);
	size_t wn = (size_t)m->W.n * SYNTH_K * sizeof(float);
	size_t hn = (size_t)m->H.n * SYNTH_K * sizeof(float);
	*w = malloc(wn);
	*h = malloc(hn);
	memcpy(*w, m->W.data, wn);
	memcpy(*h, m->H.data, hn);
	*v = L.state->verdict;
}

START_TEST(deterministic)
{
	sgd m;
	sgd_make(&m, 50000, 2000, 2000, 5);
	size_t wn = (size_t)m.W.n * SYNTH_K * sizeof(float);
	size_t hn = (size_t)m.H.n * SYNTH_K * sizeof(float);
	float *w1, *h1, *w2, *h2, *w0, *h0;
	sap_verdict v;
	train(&m, 3, 4, &w1, &h1, &v);
	ck_assert_int_eq(v, SAP_V_PLANNED);
	train(&m, 3, 4, &w2, &h2, &v);
	ck_assert(!memcmp(w1, w2, wn));
	ck_assert(!memcmp(h1, h2, hn));
	/* Another order than the index order: the plan did reorder. */
	train(&m, 1, 4, &w0, &h0, &v);
	ck_assert_int_eq(v, SAP_V_INDEX);
	ck_assert(memcmp(w0, w1, wn) != 0);
	free(w0);
	free(h0);
	free(w1);
	free(h1);
	free(w2);
	free(h2);
	sgd_free(&m);
}
END_TEST

/* The dumped orders: each a permutation of [0, n), one not the identity. */
static void assert_orders(const char *path, int invocations, int64_t n)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char *seen = malloc((size_t)n);
	bool reordered = false;
	for (int inv = 1; inv <= invocations; inv++) {
		int id;
		unsigned k;
		long long cnt;
		ck_assert_int_eq(fscanf(f, "loop %d invocation %u count %lld\n", &id, &k, &cnt), 3);
		ck_assert_int_eq(id, 3);
		ck_assert_uint_eq(k, (unsigned)inv);
		ck_assert_int_eq(cnt, n);
		memset(seen, 0, (size_t)n);
		for (int64_t q = 0; q < n; q++) {
			long long i;
			ck_assert_int_eq(fscanf(f, "%lld\n", &i), 1);
			ck_assert(i >= 0 && i < n && !seen[i]);
			seen[i] = 1;
			reordered |= i != q;
		}
	}
	ck_assert_int_eq(fgetc(f), EOF);
	ck_assert(reordered);
	free(seen);
	fclose(f);
}

START_TEST(replay_equals_parallel)
{
	int T = 2 + _i;
	sgd m;
	sgd_make(&m, 30000, 1500, 1500, 8);
	size_t wn = (size_t)m.W.n * SYNTH_K * sizeof(float);
	size_t hn = (size_t)m.H.n * SYNTH_K * sizeof(float);
	char *path = tmpname();
	float *w1, *h1, *w2, *h2;
	sap_verdict v;
	sap_cfg.dump_order = path;
	train(&m, T, 3, &w1, &h1, &v);
	ck_assert_int_eq(v, SAP_V_PLANNED);
	sap_order_end();
	assert_orders(path, 3, m.A.n);

	sap_cfg.dump_order = NULL;
	sap_cfg.run_order = path;
	train(&m, T, 3, &w2, &h2, &v);
	ck_assert_int_eq(v, SAP_V_REPLAY);
	ck_assert(!memcmp(w1, w2, wn));
	ck_assert(!memcmp(h1, h2, hn));
	unlink(path);
	free(w1);
	free(h1);
	free(w2);
	free(h2);
	sgd_free(&m);
}
END_TEST

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(replay_follows_file)
{
	char *path = tmpname();
	write_file(path, "loop 7 invocation 1 count 4\n3\n1\n2\n0\n"
	                 "loop 7 invocation 2 count 0\n");
	sap_cfg.run_order = path;
	sap_cfg.threads = 3;
	sap_loop L = new_loop(7);
	sap_async_spec spec = { 0 };
	ncalls = nseq = 0;
	sap_async_for(&L, &spec, 0, 4, NULL, record_body, NULL, NULL);
	ck_assert_int_eq(nseq, 4);
	ck_assert_int_eq(seq[0], 3);
	ck_assert_int_eq(seq[1], 1);
	ck_assert_int_eq(seq[2], 2);
	ck_assert_int_eq(seq[3], 0);
	/* Consecutive indices run as one call. */
	ck_assert_int_eq(ncalls, 3);
	ck_assert_int_eq(calls[1].lo, 1);
	ck_assert_int_eq(calls[1].hi, 3);
	sap_async_for(&L, &spec, 5, 5, NULL, record_body, NULL, NULL);
	ck_assert_int_eq(nseq, 4);
	unlink(path);
}
END_TEST

static const char *mismatch_file;
static const char *mismatch_text;

static void run_mismatch(void)
{
	write_file(mismatch_file, mismatch_text);
	sap_cfg.run_order = mismatch_file;
	sap_loop L = new_loop(7);
	sap_async_spec spec = { 0 };
	sap_async_for(&L, &spec, 0, 4, NULL, record_body, NULL, NULL);
}

START_TEST(replay_mismatch)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "loop 7 invocation 1 count 5\n0\n1\n2\n3\n4\n",
		  "the program runs loop 7 invocation 1 with 4 iterations here, but the file "
		  "has loop 7 invocation 1 count 5" },
		{ "loop 6 invocation 1 count 4\n0\n1\n2\n3\n", "but the file has loop 6" },
		{ "", "the file ends where invocation 1 of loop 7 (4 iterations) should start" },
		{ "loop 7 invocation 1 count 4\n0\n1\n", "the file ends after 2 of the 4" },
		{ "loop 7 invocation 1 count 4\n0\n1\n2\n3", ":5: the file ends inside this line "
		  "(\"3\"): it was cut short" },
		{ "loop 7 invocation 1 count 4\n0\n1\n1\n3\n", ":4: iteration 1 comes twice" },
		{ "loop 7 invocation 1 count 4\n0\n9\n", ":3: iteration 9 is out of the loop's "
		  "range [0, 4)" },
		{ "loop 7 invocation 1 count 4\n0\nx\n", ":3: expected an iteration index" },
		{ "garbage\n", ":1: expected \"loop 7 invocation 1 count 4\", got \"garbage\"" },
	};
	char msg[1024];
	mismatch_file = tmpname();
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		mismatch_text = cases[k].text;
		ck_assert_int_eq(run_captured(run_mismatch, msg, sizeof msg), 1);
		ck_assert_msg(strstr(msg, "test.sap:7:1: error: --run-order=") == msg, "%s", msg);
		ck_assert_msg(strstr(msg, cases[k].want), "case %zu: %s", k, msg);
	}
	unlink(mismatch_file);
}
END_TEST

/* ---- accumulate, the cache, versions ---- */

/* SGD's W only, plus a counter C[0] every iteration bumps; or, when
 * h_mode is set, W and H's key with that mode. */
static sap_mode h_mode;

static void counted_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	sgd *m = env;
	const rating *a = (const rating *)m->A.data;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		sap_rec_key(rec, 1, a[i].u, SAP_RW);
		if (h_mode)
			sap_rec_key(rec, 2, a[i].v, h_mode);
	}
}

START_TEST(accumulate_not_a_conflict)
{
	sgd m;
	sgd_make(&m, 3000, 300, 300, 2);
	sap_dvec c;
	sap_dv_create(&c, "C", 1, sizeof(int64_t), NULL);
	sap_dds d[3] = { m.dds[0], m.dds[1], { .name = "C", .dv = &c, .mode = SAP_RW,
	                                       .accumulate = true } };
	sap_affine af = { .dds = 2, .mode = SAP_RW, .a = 0, .b = 0 };
	sap_async_spec spec = { .dds = d, .ndds = 3, .affine = &af, .naffine = 1,
	                        .slice = counted_slice };
	sap_cfg.threads = 3;
	sap_loop L = new_loop(1);
	sap_async_for(&L, &spec, 0, 3000, &m, record_body, NULL, NULL);
	/* Groups by W's blocks alone. */
	ck_assert_int_eq(L.state->plan.ngroups, 3);
	ck_assert_int_eq(L.state->plan.nlocked, 0);
	ck_assert_int_eq(L.state->plan.nrounds, 1);
	ck_assert_int_eq(L.state->verdict, SAP_V_PLANNED);

	/* Not accumulate: C[0] is in every group, so each needs a round. */
	d[2].accumulate = false;
	sap_loop L2 = new_loop(2);
	sap_async_for(&L2, &spec, 0, 3000, &m, record_body, NULL, NULL);
	ck_assert_int_eq(L2.state->plan.ngroups, 3);
	ck_assert_int_eq(L2.state->plan.nrounds, 3);
	sap_dv_free(&c);
	sgd_free(&m);
}
END_TEST

START_TEST(cache_reuse)
{
	sgd m;
	sgd_make(&m, 4000, 300, 300, 6);
	sap_cfg.threads = 2;
	sap_loop L = new_loop(1);
	uint64_t av = m.A.version, wv = m.W.version;
	for (int k = 0; k < 3; k++)
		sap_async_for(&L, &m.spec, 0, 4000, &m, sgd_body, NULL, NULL);
	/* Once, and a quarter once more to weigh the blocks. */
	ck_assert_int_eq(m.sliced, 5000);
	ck_assert_int_eq(L.state->recon_runs, 1);
	ck_assert_int_eq(L.state->plan_builds, 1);
	/* Written DDSs get new versions; read ones keep theirs. */
	ck_assert_uint_eq(m.A.version, av);
	ck_assert_uint_gt(m.W.version, wv);
	ck_assert_uint_gt(m.H.version, wv);

	/* The slice reads A: a new version of A means new keys. */
	m.A.version = sap_new_version();
	sap_async_for(&L, &m.spec, 0, 4000, &m, sgd_body, NULL, NULL);
	ck_assert_int_eq(m.sliced, 10000);
	sap_async_for(&L, &m.spec, 0, 4000, &m, sgd_body, NULL, NULL);
	ck_assert_int_eq(m.sliced, 10000);
	/* So do new bounds, and another number of workers (each plan
	 * slices 3999 iterations and a sample of 999). */
	sap_async_for(&L, &m.spec, 0, 3999, &m, sgd_body, NULL, NULL);
	ck_assert_int_eq(m.sliced, 10000 + 4998);
	sap_cfg.threads = 3;
	sap_async_for(&L, &m.spec, 0, 3999, &m, sgd_body, NULL, NULL);
	ck_assert_int_eq(m.sliced, 10000 + 2 * 4998);
	ck_assert_int_eq(L.state->plan.nrounds, 3);
	/* A version change of a DDS the slice does not read changes
	 * nothing. */
	m.W.version = sap_new_version();
	sap_async_for(&L, &m.spec, 0, 3999, &m, sgd_body, NULL, NULL);
	ck_assert_int_eq(m.sliced, 10000 + 2 * 4998);
	/* A slice drawing random numbers runs every time, on the blocks of
	 * the plan before, which draws were the only change to: the sample
	 * that weighs them is not sliced again. */
	m.spec.slice_rng = true;
	sap_async_for(&L, &m.spec, 0, 3999, &m, sgd_body, NULL, NULL);
	sap_async_for(&L, &m.spec, 0, 3999, &m, sgd_body, NULL, NULL);
	ck_assert_int_eq(m.sliced, 10000 + 2 * 4998 + 2 * 3999);
	/* And the map of fine blocks to blocks is the one chosen before. */
	ck_assert(L.state->layout.memo && L.state->layout.memo->mapped);
	for (int b = 0; b < 64; b++)
		ck_assert_int_eq(L.state->plan.bit[b], L.state->layout.memo->map[b]);
	ck_assert_int_eq(L.state->recon_runs, 6);
	ck_assert_uint_eq(L.invocations, 10);
	sgd_free(&m);
}
END_TEST

/* ---- locked groups ---- */

/* Every iteration reads and bumps S[0] and stores what it read in X[i]:
 * with one block per DDS, one group, too big for one worker. */
typedef struct bump {
	sap_dvec S, X;
	sap_dds d[2];
	sap_affine af[2];
	sap_async_spec spec;
} bump;

/* Iterations inside S's critical section at once, beyond the first. */
static _Atomic int bump_inside, bump_overlaps;

static void bump_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	(void)red;
	bump *b = env;
	int64_t *s = (int64_t *)b->S.data, *x = (int64_t *)b->X.data;
	for (int64_t q = lo; q < hi; q++) {
		int64_t i = idx ? idx[q] : q;
		if (bump_inside++)
			bump_overlaps++;
		int64_t v = *s;
		x[i] = v;
		/* Widen the window a race would need. */
		for (volatile int k = 0; k < 200; k++)
			;
		*s = v + 1;
		bump_inside--;
	}
}

static void bump_make(bump *b, int64_t n)
{
	sap_dv_create(&b->S, "S", 1, sizeof(int64_t), NULL);
	sap_dv_create(&b->X, "X", n, sizeof(int64_t), NULL);
	b->d[0] = (sap_dds){ .name = "S", .dv = &b->S, .mode = SAP_RW };
	b->d[1] = (sap_dds){ .name = "X", .dv = &b->X, .mode = SAP_WRITE };
	b->af[0] = (sap_affine){ .dds = 0, .mode = SAP_RW, .a = 0, .b = 0 };
	b->af[1] = (sap_affine){ .dds = 1, .mode = SAP_WRITE, .a = 1, .b = 0 };
	b->spec = (sap_async_spec){ .dds = b->d, .ndds = 2, .affine = b->af, .naffine = 2 };
}

START_TEST(locked_group_serializable)
{
	enum { N = 20000 };
	int T = 2 + _i;
	bump b;
	bump_make(&b, N);
	char *path = tmpname();
	sap_cfg.threads = T;
	sap_cfg.blocks = 1;
	sap_cfg.dump_order = path;
	sap_cfg.locks = true;
	sap_loop L = new_loop(4);
	sap_async_for(&L, &b.spec, 0, N, &b, bump_body, NULL, NULL);
	sap_order_end();
	ck_assert_int_eq(L.state->verdict, SAP_V_LOCKED);
	ck_assert(L.state->ever_locked);
	ck_assert_int_eq(bump_overlaps, 0);
	ck_assert_int_eq(*(int64_t *)b.S.data, N);
	/* The ticket order is the serial order: the k-th read k. */
	FILE *f = fopen(path, "r");
	ck_assert_int_eq(fscanf(f, "loop 4 invocation 1 count %*d\n"), 0);
	const int64_t *x = (const int64_t *)b.X.data;
	for (int64_t k = 0; k < N; k++) {
		long long i;
		ck_assert_int_eq(fscanf(f, "%lld\n", &i), 1);
		ck_assert_int_eq(x[i], k);
	}
	fclose(f);
	unlink(path);

	/* Without locks (the default) the plan keeps one worker busy at a
	 * time, and the loop runs on one worker, in index order. */
	sap_cfg.dump_order = NULL;
	sap_cfg.locks = false;
	*(int64_t *)b.S.data = 0;
	sap_loop L2 = new_loop(5);
	sap_async_for(&L2, &b.spec, 0, N, &b, bump_body, NULL, NULL);
	ck_assert_int_eq(L2.state->verdict, SAP_V_INDEX);
	ck_assert_str_eq(L2.state->reason, "its plan keeps one worker busy at a time");
	for (int64_t i = 0; i < N; i++)
		ck_assert_int_eq(x[i], i);
	sap_dv_free(&b.S);
	sap_dv_free(&b.X);
}
END_TEST

/* ---- --check-plan, --stats ---- */

START_TEST(check_plan_passes)
{
	transe m;
	transe_make(&m, 20000, 1500, 3);
	sap_cfg.threads = 3;
	sap_cfg.check_plan = true;
	sap_loop L = new_loop(1);
	sap_async_for(&L, &m.spec, 0, m.T.n, &m, transe_body, NULL, NULL);
	ck_assert_int_eq(L.state->verdict, SAP_V_PLANNED);
	transe_free(&m);
}
END_TEST

/* sgd_body, auditing its accesses as a body under --check-plan does;
 * off_by adds to the item key it writes, as a slice that records other
 * keys than the body touches would look. */
static int64_t off_by;
static _Atomic int64_t audited;
static const sap_loop *audited_loop;

static void audited_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	(void)red;
	sgd *m = env;
	const sap_loop *L = audited_loop;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		const rating *a = (const rating *)m->A.data + i;
		sap_audit_key(L, 0, i, i, SAP_READ, NULL);
		sap_audit_key(L, 1, i, a->u, SAP_RW, NULL);
		sap_audit_key(L, 2, i, (a->v + off_by) % m->H.n, SAP_WRITE, NULL);
		audited++;
	}
	sgd_body(env, idx, lo, hi, NULL);
}

static void audit_run(int64_t off, bool read_h)
{
	sgd m;
	sgd_make(&m, 6000, 300, 300, 8);
	/* sgd_slice, but H's key recorded as only read. */
	if (read_h) {
		h_mode = SAP_READ;
		m.spec.slice = counted_slice;
	}
	sap_cfg.threads = 2;
	sap_cfg.check_plan = true;
	sap_audit_on = true;
	off_by = off;
	audited = 0;
	sap_loop L = new_loop(1);
	audited_loop = &L;
	sap_async_for(&L, &m.spec, 0, m.A.n, &m, audited_body, NULL, NULL);
	ck_assert_int_eq(L.state->verdict, SAP_V_PLANNED);
	ck_assert_int_eq(audited, 6000);
	ck_assert_int_gt(L.state->naudit, 6000);
	sap_audit_on = false;
	sgd_free(&m);
}

START_TEST(audit_passes)
{
	audit_run(0, false);
}
END_TEST

/* Exits 1 with the iteration and the key. */
START_TEST(audit_finds_unrecorded_key)
{
	audit_run(1, false);
}
END_TEST

START_TEST(audit_finds_write_recorded_as_read)
{
	audit_run(0, true);
}
END_TEST

static void print_stats(void)
{
	sgd m;
	sgd_make(&m, 6000, 300, 300, 6);
	sap_cfg.threads = 2;
	sap_cfg.stats = true;
	sap_loop L = new_loop(3);
	for (int k = 0; k < 2; k++)
		sap_async_for(&L, &m.spec, 0, m.A.n, &m, sgd_body, NULL, NULL);
	sap_loop L2 = new_loop(5);
	m.spec.serial = "one key";
	/* Its warning (serial on 2 workers) is not the table's. */
	sap_cfg.quiet_plans = true;
	sap_async_for(&L2, &m.spec, 0, m.A.n, &m, sgd_body, NULL, NULL);
	sap_cfg.quiet_plans = false;
	sap_stats_print();
}

START_TEST(stats_table)
{
	char msg[2048];
	ck_assert_int_eq(run_captured(print_stats, msg, sizeof msg), 0);
	char *l1 = strchr(msg, '\n') + 1;
	char *l2 = strchr(l1, '\n') + 1;
	char *l3 = strchr(l2, '\n') + 1;
	ck_assert_msg(!strncmp(l1, "loop site", 9), "%s", msg);
	char head[12][16];
	ck_assert_int_eq(sscanf(l1, "%15s %15s %15s %15s %15s %15s %15s %15s %15s %15s %15s %15s",
	                        head[0], head[1], head[2], head[3], head[4], head[5], head[6],
	                        head[7], head[8], head[9], head[10], head[11]), 12);
	ck_assert_str_eq(head[4], "recon_s");
	ck_assert_str_eq(head[6], "plan_s");
	ck_assert_str_eq(head[11], "compute_s");
	int id, groups, rounds, workers;
	char site[64], verdict[64];
	unsigned inv;
	long long recons, plans;
	double rs, ps, bal, cs, sent, recv, fetch, send;
	ck_assert_int_eq(sscanf(l2, "%d %63s %u %lld %lf %lld %lf %d %d %d %lf %lf %lf %lf %lf %lf "
	                        "%63[^\n]", &id, site, &inv, &recons, &rs, &plans, &ps, &groups,
	                        &rounds, &workers, &bal, &cs, &sent, &recv, &fetch, &send, verdict),
	                 17);
	ck_assert(sent == 0 && recv == 0 && send == 0);         /* one rank */
	ck_assert(fetch >= 0 && fetch <= ps);
	ck_assert_int_eq(id, 3);
	ck_assert_str_eq(site, "test.sap:3");
	ck_assert_uint_eq(inv, 2);
	ck_assert_int_eq(recons, 1);
	ck_assert_int_eq(plans, 1);
	ck_assert_int_eq(groups, 4);
	ck_assert_int_eq(rounds, 2);
	ck_assert_int_eq(workers, 2);
	ck_assert(rs >= 0 && ps >= 0 && cs > 0 && bal >= 1.0);
	ck_assert_str_eq(verdict, "planned");
	ck_assert_int_eq(sscanf(l3, "%d %63s %u %lld %lf %lld %lf %d %d %d %lf %lf %lf %lf %lf %lf "
	                        "%63[^\n]", &id, site, &inv, &recons, &rs, &plans, &ps, &groups,
	                        &rounds, &workers, &bal, &cs, &sent, &recv, &fetch, &send, verdict),
	                 17);
	ck_assert_int_eq(id, 5);
	ck_assert_str_eq(verdict, "serialized: one key");
}
END_TEST

/* ---- the warning of serial plans (hot.c) ---- */

/* Every iteration writes two of the words of a string map, {the, cat} x 5,
 * {the, sat} x 3 and {cat, sat} x 2 in every 10 (or "dog" for "the"):
 * any two share one, so every plan is serial, and 80% write "the". */
static const char *hot_word = "the";

static void words_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	(void)env;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k, c = i % 10;
		sap_rec_begin(rec, i);
		sap_rec_key(rec, 0, sap_key_str(c < 8 ? hot_word : "cat"), SAP_RW);
		sap_rec_key(rec, 0, sap_key_str(c < 5 ? "cat" : "sat"), SAP_RW);
	}
}

static void no_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	(void)env, (void)idx, (void)lo, (void)hi, (void)red;
}

static void words_warn(void)
{
	sap_dmap m;
	sap_dm_create(&m, "M", SAP_K_STRING, sizeof(double), false, NULL);
	const char *words[] = { "the", "cat", "sat" };
	for (int k = 0; k < 3; k++)
		sap_dm_upsert(&m, &words[k]);
	sap_dds d = { .name = "M", .dm = &m, .mode = SAP_RW, .keeps_keys = true,
	              .additive = 1 };
	sap_async_spec spec = { .dds = &d, .ndds = 1, .slice = words_slice };
	sap_cfg.threads = 2;
	sap_loop L = new_loop(7);
	/* Once, however many invocations, and not again for a new serial
	 * plan (of 15 iterations, 87% of which write "the"). */
	for (int k = 0; k < 3; k++)
		sap_async_for(&L, &spec, 0, 1000, NULL, no_body, NULL, NULL);
	sap_async_for(&L, &spec, 0, 15, NULL, no_body, NULL, NULL);
	/* Too short for a warning: fewer iterations than twice the workers. */
	sap_loop L2 = new_loop(8);
	sap_async_for(&L2, &spec, 0, 3, NULL, no_body, NULL, NULL);
	/* Serial, then, for a new plan, locked: a warning each. */
	sap_loop L3 = new_loop(9);
	sap_async_for(&L3, &spec, 0, 1000, NULL, no_body, NULL, NULL);
	sap_cfg.locks = true;
	sap_async_for(&L3, &spec, 0, 999, NULL, no_body, NULL, NULL);
	sap_cfg.locks = false;
	/* A hot key the map does not hold: the map alone is named. */
	hot_word = "dog";
	sap_loop L4 = new_loop(10);
	sap_async_for(&L4, &spec, 0, 1000, NULL, no_body, NULL, NULL);
	/* Quiet. */
	sap_cfg.quiet_plans = true;
	sap_loop L5 = new_loop(11);
	sap_async_for(&L5, &spec, 0, 1000, NULL, no_body, NULL, NULL);
	sap_dm_free(&m);
}

START_TEST(serial_plan_warns)
{
	char msg[4096];
	ck_assert_int_eq(run_captured(words_warn, msg, sizeof msg), 0);
	const char *serial = "warning: async for runs serially on 2 workers (balance 2.0)";
	const char *fix = "make its updates of M 'accumulate(+: M)'";
	const char *locks = ", or run with --locks (not deterministic)\n";
	char *want = sap_strf("test.sap:7:1: %s: 80%% of its iterations write M[\"the\"]; %s%s"
	                      "test.sap:9:1: %s: 80%% of its iterations write M[\"the\"]; %s%s"
	                      "test.sap:9:1: warning: async for runs locked on 2 workers (not "
	                      "deterministic): 80%% of its iterations write M[\"the\"]; %s to run "
	                      "it in parallel deterministically\n"
	                      "test.sap:10:1: %s: 80%% of its iterations write one element of M; "
	                      "%s%s", serial, fix, locks, serial, fix, locks, fix, serial, fix, locks);
	ck_assert_str_eq(msg, want);
	free(want);
}
END_TEST

/* sap_seq_next cuts a group into stretches that cover it in order, each
 * one either a run of consecutive iterations (of 16 or more, ending where
 * the run ends) or not, and no run of 31 or more is left in a stretch
 * that is not; the iterations counted in a run are idx's.  Groups with
 * holes every few places, rarely, in bursts, none; and short ones. */
START_TEST(seq_stretches)
{
	enum { N = 20000 };
	int64_t *idx = malloc(N * sizeof *idx);
	uint64_t x = 88172645463325252ULL;
	const int gaps[] = { 2, 5, 20, 100, 3000, 0 };
	for (int gi = 0; gi < 6; gi++) {
		for (int len = 1; len <= N; len = len < 100 ? len + 7 : len * 3) {
			int64_t v = 7;
			for (int k = 0; k < len; k++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				v += gaps[gi] && x % (uint64_t)gaps[gi] == 0 ? 2 + (int64_t)(x >> 40) % 5 : 1;
				idx[k] = v;
			}
			int64_t lo = len > 3 ? 2 : 0, k = lo;
			while (k < len) {
				int64_t e = -1;
				bool run = sap_seq_next(idx, k, len, &e);
				ck_assert_int_gt(e, k);
				ck_assert_int_le(e, len);
				if (run) {
					ck_assert_int_ge(e - k, 16);
					for (int64_t q = k; q < e; q++)
						ck_assert_int_eq(idx[k] - k + q, idx[q]);
					ck_assert(e == len || idx[e] != idx[e - 1] + 1);
				} else {
					int64_t r = 1;
					for (int64_t q = k + 1; q < e; q++) {
						r = idx[q] == idx[q - 1] + 1 ? r + 1 : 1;
						ck_assert_int_lt(r, 31);
					}
				}
				k = e;
			}
			bool dense = sap_seq_dense(idx, lo, len);
			ck_assert(dense == (idx[len - 1] - idx[lo] < (len - lo) + (len - lo) / 32));
		}
	}
	int64_t e = -1;
	ck_assert(!sap_seq_next(NULL, 3, 10, &e));
	ck_assert_int_eq(e, 10);
	ck_assert(!sap_seq_dense(NULL, 0, 10));
	free(idx);
}
END_TEST

Suite *async_suite(void)
{
	Suite *s = suite_create("async");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, one_worker_index_order);
	tcase_add_test(tc, serial_spec_index_order);
	tcase_add_test(tc, unanalysed_spec_index_order);
	tcase_add_test(tc, chunks_when_independent);
	tcase_add_test(tc, small_loops);
	tcase_add_test(tc, reduce_in_worker_order);
	tcase_add_test(tc, deterministic);
	tcase_add_loop_test(tc, replay_equals_parallel, 0, 2);
	tcase_add_test(tc, replay_follows_file);
	tcase_add_test(tc, replay_mismatch);
	tcase_add_test(tc, accumulate_not_a_conflict);
	tcase_add_test(tc, cache_reuse);
	tcase_add_loop_test(tc, locked_group_serializable, 0, 2);
	tcase_add_test(tc, check_plan_passes);
	tcase_add_test(tc, audit_passes);
	tcase_add_exit_test(tc, audit_finds_unrecorded_key, 1);
	tcase_add_exit_test(tc, audit_finds_write_recorded_as_read, 1);
	tcase_add_test(tc, stats_table);
	tcase_add_test(tc, serial_plan_warns);
	tcase_add_test(tc, seq_stretches);
	suite_add_tcase(s, tc);
	return s;
}
