/* Unit tests of the communication layer (runtime/comm/comm.c) on its
 * single-process back end (runtime/comm/comm-self.c), which this runner links
 * instead of MPI: collectives as copies, the one size guard, and a round's
 * write-back (runtime/async/dist.c) packed, exchanged and unpacked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"
#include "capture.h"
#include "suites.h"

/* One rank, rank 0, started or not. */
START_TEST(one_rank)
{
	ck_assert_int_eq(sap_comm_size(), 1);
	ck_assert_int_eq(sap_comm_rank(), 0);
	ck_assert(!sap_comm_live());
	int argc = 1;
	char *args[] = { "prog", NULL }, **argv = args;
	sap_comm_start(&argc, &argv);
	ck_assert(sap_comm_live());
	ck_assert_int_eq(sap_comm_size(), 1);
	sap_comm_end();
	sap_comm_end();
	ck_assert(!sap_comm_live());
}
END_TEST

/* What all ranks agree on is this rank's own value; what others would
 * send this one is a copy of its own, at the displacement asked. */
START_TEST(collectives)
{
	int64_t v[3] = { 5, -2, 7 };
	sap_comm_allreduce(v, 3, SAP_COMM_I64, SAP_COMM_MAX);
	ck_assert(v[0] == 5 && v[1] == -2 && v[2] == 7);
	ck_assert_int_eq(sap_comm_exscan_sum(42), 0);

	int64_t cnt[1], dis[1];
	ck_assert_int_eq(sap_comm_counts(3, cnt, dis), 3);
	ck_assert(cnt[0] == 3 && dis[0] == 0);

	uint64_t all[5] = { 0 };
	const uint64_t mine[3] = { 10, 11, 12 };
	int64_t at = 2;
	sap_comm_allgatherv(mine, 3, all, cnt, &at, sizeof *mine);
	ck_assert(all[0] == 0 && all[1] == 0 && all[2] == 10 && all[3] == 11 && all[4] == 12);

	double in[4] = { 0 };
	const double out[4] = { 1.5, 2.5, 3.5, 4.5 };
	int64_t sc = 2, sd = 1, rc = 2, rd = 2;
	sap_comm_alltoallv(out, &sc, &sd, in, &rc, &rd, sizeof *out);
	ck_assert(in[0] == 0 && in[1] == 0 && in[2] == 2.5 && in[3] == 3.5);
}
END_TEST

/* The exchange of bytes only the sender knows the size of: counts go
 * first, then the bytes, packed in rank order with a spare byte after. */
START_TEST(exchange)
{
	const char out[] = "bytes that cross ranks";
	int64_t scnt[1] = { (int64_t)sizeof out }, rcnt[1], rdis[2];
	char *in = sap_comm_exchange(out, scnt, rcnt, rdis);
	ck_assert_int_eq(rcnt[0], (int64_t)sizeof out);
	ck_assert(rdis[0] == 0 && rdis[1] == (int64_t)sizeof out);
	ck_assert_str_eq(in, out);
	free(in);
}
END_TEST

/* Past an int's count, one process fails as many would, with the one
 * message, before touching a byte. */
static void too_large(void)
{
	int64_t n = (int64_t)INT32_MAX + 1, rcnt[1], rdis[2];
	sap_comm_exchange(NULL, &n, rcnt, rdis);
}

static void too_many_items(void)
{
	int64_t n = (int64_t)INT32_MAX + 1;
	sap_comm_allgather(NULL, NULL, n, 8);
}

START_TEST(size_guard)
{
	ck_assert(sap_comm_fits(INT32_MAX));
	ck_assert(!sap_comm_fits((int64_t)INT32_MAX + 1));
	/* Items of 8 bytes go as items once their bytes no longer fit. */
	int64_t n = INT32_MAX / 8 + 1;
	ck_assert_uint_eq(sap_comm_check(&n, 1, 8, "a test"), 8);
	n = INT32_MAX / 8;
	ck_assert_uint_eq(sap_comm_check(&n, 1, 8, "a test"), 1);

	char msg[512];
	ck_assert_int_eq(run_captured(too_large, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "sap: error: an exchange between ranks is too large for one MPI call "
	                      "(a count of 2147483648, over 2^31 - 1); use more ranks, or smaller "
	                      "batches in a sync for\n");
	ck_assert_int_eq(run_captured(too_many_items, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "sap: error: a gather between ranks is too large for one MPI call "
	                      "(a count of 2147483648, over 2^31 - 1); use more ranks, or smaller "
	                      "batches in a sync for\n");
}
END_TEST

/* A round's write-back on one rank: the records of the written keys (one
 * key, a masked record, a run) are packed, cross to this rank through the
 * exchange and are taken back, over whatever the vector held meanwhile;
 * the bytes moved are counted. */
static void scribble(void *arg)
{
	sap_dvec *v = arg;
	memset(v->data, 0xff, (size_t)v->n * v->elsize);
}

START_TEST(write_back)
{
	sap_dvec v;
	enum { N = 1000, K = 3 };
	sap_dv_create(&v, "W", N, K * sizeof(float), NULL);
	float *w = (float *)v.data;
	for (int i = 0; i < N * K; i++)
		w[i] = (float)i * 0.5f;
	sap_dds dds[1] = { { .name = "W", .dv = &v, .mode = SAP_WRITE, .flat = true } };
	sap_async_spec spec = { .dds = dds, .ndds = 1 };
	sap_send_rec recs[3] = { { .key = 7, .n = 1 }, { .key = 500, .mask = 0xb, .n = 3 },
	                         { .key = 997, .n = 3 } };
	int64_t keys[7] = { 7, 500, 501, 503, 997, 998, 999 };
	int64_t off[2] = { 0, 3 };
	sap_dist_stats st = { 0 };
	sap_dist_send_each(recs, off, &spec, &st, scribble, &v);
	for (int k = 0; k < 7; k++)
		for (int j = 0; j < K; j++) {
			int64_t i = keys[k] * K + j;
			ck_assert_msg(w[i] == (float)i * 0.5f, "key %lld: %g", (long long)keys[k],
			              (double)w[i]);
		}
	/* The rest keeps what the scribble left, also between the masked
	 * record's keys. */
	uint32_t x;
	memcpy(&x, &w[0], sizeof x);
	ck_assert_uint_eq(x, 0xffffffffu);
	memcpy(&x, &w[502 * K], sizeof x);
	ck_assert_uint_eq(x, 0xffffffffu);
	ck_assert_int_gt(st.sent, 7 * K * (int64_t)sizeof(float));
	ck_assert_int_eq(st.sent, st.received);
	sap_dv_free(&v);
}
END_TEST

Suite *comm_suite(void)
{
	Suite *s = suite_create("comm");
	TCase *tc = tcase_create("self");
	tcase_add_test(tc, one_rank);
	tcase_add_test(tc, collectives);
	tcase_add_test(tc, exchange);
	tcase_add_test(tc, size_guard);
	tcase_add_test(tc, write_back);
	suite_add_tcase(s, tc);
	return s;
}
