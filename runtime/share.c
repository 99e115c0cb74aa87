/* share.c: elements holding strings or lists, sent between ranks.
 *
 * Their bytes hold pointers local to a rank, so such a vector is whole
 * on every rank, and what one rank made of it goes to every other rank
 * through the codec the compiler generated for its element type: after
 * a shared load, each rank's parsed lines; after a loop whose ranks ran
 * shares of the iterations, the elements each rank's iterations wrote.
 */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "sap-int.h"

char *sap_gather_bytes(const char *out, int64_t n, int64_t *at)
{
	int P = sap_nranks();
	if (n > INT32_MAX)
		sap_fatal(NULL, "a rank sends more than 2 GiB at once; use more ranks");
	int *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_gather_counts((int)n, cnt, dis);
	char *in = sap_xmalloc(total ? (size_t)total : 1);
	MPI_Allgatherv(out, cnt[sap_rank()], MPI_BYTE, in, cnt, dis, MPI_BYTE, MPI_COMM_WORLD);
	for (int r = 0; r < P; r++)
		at[r] = dis[r];
	at[P] = total;
	free(cnt);
	free(dis);
	return in;
}

/* Packs the elements at keys[0 .. n) of v; *bytes gets the size. */
static char *pack_keys(const sap_dvec *v, const int64_t *keys, int64_t n, size_t *bytes)
{
	size_t total = 0;
	for (int64_t k = 0; k < n; k++)
		total += v->codec->pack(v->data + (size_t)keys[k] * v->elsize, NULL);
	char *out = sap_xmalloc(total ? total : 1), *o = out;
	for (int64_t k = 0; k < n; k++)
		o += v->codec->pack(v->data + (size_t)keys[k] * v->elsize, o);
	*bytes = total;
	return out;
}

/* Every rank's elements at its keys (keys of rank r at keys[off[r] ..
 * off[r + 1])), packed, to every rank, which puts the others' in place. */
static void share(sap_dvec *v, const int64_t *keys, const int64_t *off, bool drop,
                  sap_dist_stats *stats)
{
	int P = sap_nranks(), me = sap_rank();
	size_t bytes;
	char *out = pack_keys(v, keys + off[me], off[me + 1] - off[me], &bytes);
	int64_t *at = sap_xmalloc((size_t)(P + 1) * sizeof *at);
	char *in = sap_gather_bytes(out, (int64_t)bytes, at);
	if (stats) {
		stats->sent += (int64_t)bytes * (P - 1);
		stats->received += at[P] - (int64_t)bytes;
	} else {
		sap_moved_add((int64_t)bytes * (P - 1), at[P] - (int64_t)bytes);
	}
	free(out);
	for (int r = 0; r < P; r++) {
		if (r == me)
			continue;
		const char *p = in + at[r];
		for (int64_t k = off[r]; k < off[r + 1]; k++) {
			void *x = v->data + (size_t)keys[k] * v->elsize;
			if (drop && v->codec->drop)
				v->codec->drop(x);
			p = v->codec->unpack(x, p);
		}
	}
	free(in);
	free(at);
	v->version = sap_new_version();
	sap_dv_recount(v);
}

void sap_dv_share_parts(sap_dvec *v)
{
	int P = sap_nranks();
	int64_t *keys = sap_xmalloc((size_t)(v->n ? v->n : 1) * sizeof *keys);
	int64_t *off = sap_xmalloc((size_t)(P + 1) * sizeof *off);
	for (int64_t k = 0; k < v->n; k++)
		keys[k] = k;
	for (int r = 0; r <= P; r++) {
		int64_t hi;
		if (r < P)
			sap_dv_part(v, r, &off[r], &hi);
		else
			off[r] = v->n;
	}
	/* The slots of other ranks' lines are still zero: nothing to drop. */
	share(v, keys, off, false, NULL);
	free(keys);
	free(off);
}

void sap_dv_share_written(sap_dvec *v, const sap_affine *af, int64_t lo, int64_t hi,
                          const uint16_t *own, sap_dist_stats *stats)
{
	int P = sap_nranks();
	int64_t *off = sap_xcalloc((size_t)P + 1, sizeof *off);
	int64_t *keys = sap_xmalloc((size_t)(hi > lo ? hi - lo : 1) * sizeof *keys);
	for (int64_t i = lo; i < hi; i++) {
		int64_t key = (int64_t)((uint64_t)af->a * (uint64_t)i + (uint64_t)af->b);
		if ((uint64_t)key < (uint64_t)v->n)
			off[own[i - lo] + 1]++;
	}
	for (int r = 0; r < P; r++)
		off[r + 1] += off[r];
	int64_t *at = sap_xmalloc((size_t)P * sizeof *at);
	memcpy(at, off, (size_t)P * sizeof *at);
	for (int64_t i = lo; i < hi; i++) {
		int64_t key = (int64_t)((uint64_t)af->a * (uint64_t)i + (uint64_t)af->b);
		if ((uint64_t)key < (uint64_t)v->n)
			keys[at[own[i - lo]]++] = key;
	}
	share(v, keys, off, true, stats);
	free(at);
	free(keys);
	free(off);
}
