/* dvec.c: storage of dvectors: the whole vector, or on several ranks a
 * rank's part of it, or the elements it holds (sap_dvec.sparse). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sap-int.h"

/* A vector this small costs a rank less than the mapping's bookkeeping
 * would save: it is held whole on every rank. */
enum { SPARSE_MIN = 64 << 10 };

sap_ptrs sap_live_dvecs;

void sap_dv_account(sap_dvec *v, size_t held)
{
	sap_mem_dds((int64_t)held - (int64_t)v->held);
	v->held = held;
	if (held > v->peak)
		v->peak = held;
}

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
	v->mapped = v->sparse = false;
	v->gathered = v->refetched = v->all_in = false;
	v->held = v->peak = 0;
	v->holder = NULL;
	v->keys_of = NULL;
	v->codec = NULL;
	v->arena = NULL;
	v->arena_bytes = 0;
	v->packed = 0;
	sap_dv_account(v, held);
	sap_ptrs_add(&sap_live_dvecs, v);
}

static char *map_zero(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	               MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void create(sap_dvec *v, const char *name, int64_t n, size_t elsize, const sap_site *s,
                   bool may_sparse);

void sap_dv_create(sap_dvec *v, const char *name, int64_t n, size_t elsize,
                   const sap_site *s)
{
	create(v, name, n, elsize, s, true);
}

void sap_dv_create_whole(sap_dvec *v, const char *name, int64_t n, size_t elsize,
                         const sap_site *s)
{
	create(v, name, n, elsize, s, false);
}

static void create(sap_dvec *v, const char *name, int64_t n, size_t elsize, const sap_site *s,
                   bool may_sparse)
{
	if (n < 0)
		sap_fatal(s, "negative size %lld for dvector %s", (long long)n, name);
	int64_t bytes_n;
	if (elsize > INT64_MAX || __builtin_mul_overflow(n, (int64_t)elsize, &bytes_n))
		sap_fatal(s, "dvector %s of %lld elements of %zu bytes: more bytes than a 64-bit "
		          "size holds", name, (long long)n, elsize);
	/* Whole cache lines: elements of different workers share no line
	 * at the ends of the array. */
	size_t bytes = whole_bytes(n, elsize);
	bool sparse = may_sparse && sap_nranks() > 1 && bytes >= SPARSE_MIN;
	if (sparse) {
		v->data = map_zero(bytes);
	} else {
		v->data = sap_alloc_dds(bytes);
		if (v->data)
			memset(v->data, 0, bytes);
	}
	if (!v->data)
		sap_fatal(s, "out of memory allocating %lld elements for dvector %s",
		          (long long)n, name);
	fill_in(v, name, n, elsize, false, sparse ? 0 : bytes);
	v->mapped = v->sparse = sparse;
}

void sap_dv_create_part(sap_dvec *v, const char *name, int64_t n, size_t elsize, int64_t lo,
                        int64_t hi, const sap_site *s)
{
	sap_mul_size(n, (int64_t)elsize, s);
	/* Address space for all n, pages only for [lo, hi): anonymous
	 * pages are zero and take no memory until written, and nothing
	 * outside the part is ever touched. */
	size_t bytes = whole_bytes(n, elsize);
	v->data = map_zero(bytes);
	if (!v->data)
		sap_fatal(s, "out of address space allocating %lld elements for dvector %s",
		          (long long)n, name);
	fill_in(v, name, n, elsize, true, (size_t)(hi - lo) * elsize);
	v->mapped = true;
}

/* Atomic: loops running on several threads stamp DDSs too. */
uint64_t sap_new_version(void)
{
	static _Atomic uint64_t next = 1;
	return next++;
}

/* An arena's blocks (see SAP_ARENA_HEAD). */
static void arena_free(char *a)
{
	while (a) {
		char *next;
		memcpy(&next, a, sizeof next);
		free(a);
		a = next;
	}
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
	sap_ptrs_del(&sap_live_dvecs, v);
	v->part_only = v->mapped = v->sparse = false;
	v->held = v->peak = 0;
	free(v->cuts);
	arena_free(v->arena);
	sap_mem_dds(-(int64_t)v->arena_bytes);
	v->arena_bytes = 0;
	v->data = NULL;
	v->cuts = NULL;
	v->arena = NULL;
	v->n = 0;
	v->name = NULL;         /* no vector now: a checkpoint writes none */
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

/* ---- the pages of a sparse vector ---- */

static size_t page_size(void)
{
	static size_t pg;
	if (!pg)
		pg = (size_t)sysconf(_SC_PAGESIZE);
	return pg;
}

/* mincore's map of v's pages; *np gets their number. */
static unsigned char *resident(sap_dvec *v, size_t *np)
{
	size_t pg = page_size();
	*np = (whole_bytes(v->n, v->elsize) + pg - 1) / pg;
	unsigned char *in = sap_xmalloc(*np);
	if (v->all_in || mincore(v->data, *np * pg, in) != 0) {
		memset(in, 1, *np);     /* count it all rather than guess */
		return in;
	}
	size_t p = 0;
	while (p < *np && (in[p] & 1))
		p++;
	v->all_in = p == *np;
	return in;
}


void sap_dv_recount(sap_dvec *v)
{
	if (!v->sparse)
		return;
	size_t np = (whole_bytes(v->n, v->elsize) + page_size() - 1) / page_size(), held = np;
	if (!v->all_in) {
		unsigned char *in = resident(v, &np);
		held = 0;
		for (size_t p = 0; p < np; p++)
			held += in[p] & 1;
		free(in);
	}
	sap_dv_account(v, held * page_size() + sap_hold_bytes(v));
}

static bool held_here(const sap_dvec *v, int64_t k0, int64_t k1, void *arg)
{
	(void)arg;
	for (int64_t k = k0; k < k1;) {
		uint16_t h;
		k = sap_hold_run(v, k, k1, &h);
		if (h == sap_rank() || h == SAP_HOLD_ALL)
			return true;
	}
	return false;
}

/* Pages [p, p + n) of v go back to the system.  Elements owning memory
 * (lists) are dropped first and zeroed whole, even where they reach into
 * a page that stays, so that every element is a value or all zero. */
static void give_back(sap_dvec *v, size_t p, size_t n)
{
	size_t pg = page_size(), es = v->elsize;
	if (v->codec && v->codec->drop) {
		int64_t k0 = (int64_t)(p * pg / es), k1 = (int64_t)(((p + n) * pg - 1) / es);
		for (int64_t k = k0; k <= k1 && k < v->n; k++) {
			v->codec->drop(v->data + (size_t)k * es);
			memset(v->data + (size_t)k * es, 0, es);
		}
	}
	madvise(v->data + p * pg, n * pg, MADV_DONTNEED);
	v->all_in = false;
}

/* Pages not resident hold nothing to give back: only the others are
 * looked at, so that after every loop over ranks this costs what the
 * rank holds, not the vector's length. */
void sap_dv_release(sap_dvec *v, sap_keep_fn keep, void *arg)
{
	if (!v->sparse || v->n == 0)
		return;
	size_t pg = page_size(), es = v->elsize, np;
	unsigned char *in = resident(v, &np);
	size_t run = 0, runlen = 0;
	for (size_t p = 0; p < np; p++) {
		if (!(in[p] & 1))
			continue;
		int64_t k0 = (int64_t)(p * pg / es);
		int64_t k1 = (int64_t)(((p + 1) * pg - 1) / es);
		if (k0 >= v->n)
			break;
		if (k1 >= v->n)
			k1 = v->n - 1;
		if (keep(v, k0, k1 + 1, arg))
			continue;
		if (runlen && run + runlen == p) {
			runlen++;
			continue;
		}
		if (runlen)
			give_back(v, run, runlen);
		run = p;
		runlen = 1;
	}
	if (runlen)
		give_back(v, run, runlen);
	free(in);
}

/* The pages of elements only other ranks hold go back to the system:
 * their contents are stale here, and anything that reads them again
 * fetches them from their holder first.  A page that also holds an
 * element this rank holds, or that every rank does, stays. */
void sap_dv_trim(sap_dvec *v)
{
	if (!v->sparse)
		return;
	if (v->holder && (v->gathered || (v->refetched && !v->codec))) {
		v->gathered = false;
		sap_dv_recount(v);
		return;
	}
	if (v->holder) {
		/* What the loop left here counts first: it is the most. */
		sap_dv_recount(v);
		sap_dv_release(v, held_here, NULL);
	}
	sap_dv_recount(v);
}

/* ---- elements as they travel ---- */

size_t sap_dv_put(const sap_dvec *v, int64_t key, char *out)
{
	const char *x = v->data + (size_t)key * v->elsize;
	if (v->codec)
		return v->codec->pack(x, out);
	if (out)
		memcpy(out, x, v->elsize);
	return v->elsize;
}

const char *sap_dv_take(sap_dvec *v, int64_t key, const char *in)
{
	char *x = v->data + (size_t)key * v->elsize;
	if (!v->codec) {
		memcpy(x, in, v->elsize);
		return in + v->elsize;
	}
	if (v->codec->drop)
		v->codec->drop(x);
	return v->codec->unpack(x, in);
}

/* Lists pushed one element at a time lie wherever realloc left them,
 * and a loop over the elements chases pointers across the heap rather
 * than streaming (on the Lasso sample, a tenth of its time on one
 * thread, more on two, which share the memory bus). */
void sap_dv_pack_lists(sap_dvec *v, int64_t lo, int64_t hi)
{
	if (!v->codec || !v->codec->settle)
		return;
	size_t bytes = 0;
	for (int64_t i = lo; i < hi; i++)
		bytes += v->codec->settle(v->data + (size_t)i * v->elsize, NULL);
	char *old = v->arena;
	v->arena = NULL;
	if (bytes) {
		char *at = v->arena = sap_alloc_dds(SAP_ARENA_HEAD + bytes);
		if (!at)
			sap_fatal(NULL, "out of memory packing the lists of dvector %s", v->name);
		memset(at, 0, SAP_ARENA_HEAD);
		memcpy(at + sizeof(char *), &bytes, sizeof bytes);
		at += SAP_ARENA_HEAD;
		for (int64_t i = lo; i < hi; i++)
			at += v->codec->settle(v->data + (size_t)i * v->elsize, at);
	}
	arena_free(old);
	sap_mem_dds((int64_t)bytes - (int64_t)v->arena_bytes);
	v->arena_bytes = bytes;
	v->packed = v->version;
}

void sap_dv_adopt_lists(sap_dvec *v, char *arena, size_t bytes)
{
	arena_free(v->arena);
	v->arena = arena;
	sap_mem_dds((int64_t)bytes - (int64_t)v->arena_bytes);
	v->arena_bytes = bytes;
	v->packed = v->version;
}
