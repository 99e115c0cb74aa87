/* dvec.c: storage of dvectors: the whole vector, or on several ranks a
 * rank's part of it. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sap-int.h"

static size_t whole_bytes(int64_t n, size_t elsize)
{
	size_t bytes = (n ? (size_t)n : 1) * (elsize ? elsize : 1);
	return (bytes + 63) & ~(size_t)63;
}

/* The fields beside data; held bytes count as DDS memory. */
static void fill_in(sap_dvec *v, const char *name, int64_t n, size_t elsize, bool part_only,
                    size_t held)
{
	v->n = n;
	v->elsize = elsize;
	v->name = name;
	v->version = sap_new_version();
	v->cuts = NULL;
	v->part_only = part_only;
	v->mapped = false;
	v->held = held;
	v->holder = NULL;
	sap_mem_dds((int64_t)held);
}

void sap_dv_create(sap_dvec *v, const char *name, int64_t n, size_t elsize,
                   const sap_site *s)
{
	if (n < 0)
		sap_fatal(s, "negative size %lld for dvector %s", (long long)n, name);
	if (elsize > INT64_MAX)
		sap_fatal(s, "size overflow");
	sap_mul_size(n, (int64_t)elsize, s);
	/* Whole cache lines: elements of different workers share no line
	 * at the ends of the array. */
	size_t bytes = whole_bytes(n, elsize);
	v->data = aligned_alloc(64, bytes);
	if (v->data)
		memset(v->data, 0, bytes);
	if (!v->data)
		sap_fatal(s, "out of memory allocating %lld elements for dvector %s",
		          (long long)n, name);
	fill_in(v, name, n, elsize, false, bytes);
}

void sap_dv_create_part(sap_dvec *v, const char *name, int64_t n, size_t elsize, int64_t lo,
                        int64_t hi, const sap_site *s)
{
	sap_mul_size(n, (int64_t)elsize, s);
	/* Address space for all n, pages only for [lo, hi): anonymous
	 * pages are zero and take no memory until written, and nothing
	 * outside the part is ever touched. */
	size_t bytes = whole_bytes(n, elsize);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	               MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		sap_fatal(s, "out of address space allocating %lld elements for dvector %s",
		          (long long)n, name);
	v->data = p;
	fill_in(v, name, n, elsize, true, (size_t)(hi - lo) * elsize);
	v->mapped = true;
}

/* Atomic: loops running on several threads stamp DDSs too. */
uint64_t sap_new_version(void)
{
	static _Atomic uint64_t next = 1;
	return next++;
}

void sap_dv_free(sap_dvec *v)
{
	sap_hold_drop(v);
	if (v->data)
		sap_mem_dds(-(int64_t)v->held);
	if (v->mapped && v->data)
		munmap(v->data, whole_bytes(v->n, v->elsize));
	else
		free(v->data);
	v->part_only = v->mapped = false;
	v->held = 0;
	free(v->cuts);
	v->data = NULL;
	v->cuts = NULL;
	v->n = 0;
}

void sap_dv_set_cuts(sap_dvec *v, int64_t *cuts)
{
	free(v->cuts);
	v->cuts = cuts;
}

void sap_dv_part(const sap_dvec *v, int r, int64_t *lo, int64_t *hi)
{
	if (v->cuts) {
		*lo = v->cuts[r];
		*hi = v->cuts[r + 1];
	} else {
		*lo = sap_chunk(0, v->n, sap_nranks(), r);
		*hi = sap_chunk(0, v->n, sap_nranks(), r + 1);
	}
}
