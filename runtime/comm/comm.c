/* comm.c: what both back ends of the communication layer share: the size
 * guard, and the patterns built from their collectives. */
#include <stdint.h>
#include <stdlib.h>
#include "sap-int.h"

bool sap_comm_fits(int64_t n)
{
	return n <= INT32_MAX;
}

size_t sap_comm_check(const int64_t *n, int k, size_t unit, const char *what)
{
	int64_t most = 0;
	for (int i = 0; i < k; i++)
		if (n[i] > most)
			most = n[i];
	if (unit > 0 && (uint64_t)most <= (uint64_t)INT32_MAX / unit)
		return 1;
	if (sap_comm_fits(most))
		return unit;
	/* The data are too large for the ranks they are spread over, or a
	 * sync for's batch sends too much at once: say which way out. */
	sap_fatal(NULL, "%s between ranks is too large for one MPI call (a count of %lld, over "
	          "2^31 - 1); use more ranks, or smaller batches in a sync for",
	          what, (long long)most);
}

int64_t sap_comm_counts(int64_t n, int64_t *cnt, int64_t *dis)
{
	sap_comm_allgather(&n, cnt, 1, sizeof n);
	int64_t total = 0;
	for (int r = 0; r < sap_comm_size(); r++) {
		dis[r] = total;
		total += cnt[r];
	}
	return total;
}

char *sap_comm_exchange(const void *out, const int64_t *scnt, int64_t *rcnt, int64_t *rdis)
{
	int P = sap_comm_size();
	int64_t *sdis = sap_xmalloc((size_t)(P + 1) * sizeof *sdis);
	sdis[0] = 0;
	for (int r = 0; r < P; r++)
		sdis[r + 1] = sdis[r] + scnt[r];
	/* Checked before the counts go, and before room is taken for what
	 * cannot come. */
	sap_comm_check(scnt, P, 1, "an exchange");
	sap_comm_check(sdis, P, 1, "an exchange");
	sap_comm_alltoall(scnt, rcnt, 1, sizeof *scnt);
	rdis[0] = 0;
	for (int r = 0; r < P; r++)
		rdis[r + 1] = rdis[r] + rcnt[r];
	sap_comm_check(rcnt, P, 1, "an exchange");
	sap_comm_check(rdis, P, 1, "an exchange");
	char *in = sap_xmalloc((size_t)rdis[P] + 1);
	sap_comm_alltoallv(out, scnt, sdis, in, rcnt, rdis, 1);
	free(sdis);
	return in;
}
