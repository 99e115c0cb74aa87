/* accum.c: the private buffers of accumulate(+: D).
 *
 * Updates that commute are not conflicts: each worker adds into its own
 * buffer and the buffers are summed in worker order, so the result is
 * deterministic for a given number of workers.  The sums themselves are
 * sap_acc_add's (merge.c), scalar by scalar of each element. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* A loop that accumulates into a vector takes a zeroed buffer of it per
 * worker, and the driver one more, every invocation.  Large ones come
 * from mmap and go back to it, so each invocation paid a page fault per
 * 4 KiB (PageRank's 8 MB vector on two threads: 24 MB of faults a pass,
 * as long as the loop itself).  Freed buffers are kept here, up to
 * KEEP_BYTES, and zeroed again when taken: a few memsets on the pool's
 * threads.  Each buffer has a header with its size. */
enum { HEAD = 64, KEEP = 32 };
#define KEEP_BYTES ((size_t)1 << 30)

static pthread_mutex_t keep_mu = PTHREAD_MUTEX_INITIALIZER;
static void *kept[KEEP];
static size_t kept_size[KEEP];
static int nkept;
static size_t kept_bytes;

typedef struct zero_job {
	char *p;
	size_t bytes;
	int T;
	const sap_numtype *t;   /* with floats: elements of -0.0 */
	int64_t n;
} zero_job;

static void zero_part(void *arg, int w)
{
	zero_job *j = arg;
	if (j->t) {
		int64_t a = sap_chunk(0, j->n, j->T, w), b = sap_chunk(0, j->n, j->T, w + 1);
		sap_nt_identity(j->t, j->p + (size_t)a * j->t->size, b - a);
		return;
	}
	size_t a = (size_t)sap_chunk(0, (int64_t)j->bytes, j->T, w);
	size_t b = (size_t)sap_chunk(0, (int64_t)j->bytes, j->T, w + 1);
	memset(j->p + a, 0, b - a);
}

/* Set while the driver's reduce struct is initialized: its vector
 * buffers are left NULL, for sap_acc_driver_init to make. */
static _Thread_local bool driver_init;

/* A kept buffer of bytes, as its last user left it, or a new one, zeroed
 * (*fresh).  The header's address. */
static char *take(size_t bytes, bool *fresh)
{
	*fresh = false;
	char *p = NULL;
	pthread_mutex_lock(&keep_mu);
	for (int k = 0; k < nkept; k++)
		if (kept_size[k] == bytes) {
			p = kept[k];
			kept_bytes -= bytes;
			kept[k] = kept[--nkept];
			kept_size[k] = kept_size[nkept];
			break;
		}
	pthread_mutex_unlock(&keep_mu);
	if (p)
		return p;
	p = sap_alloc_dds(bytes + HEAD);
	if (!p)
		sap_fatal(NULL, "out of memory");
	memset(p, 0, bytes + HEAD);
	memcpy(p, &bytes, sizeof bytes);
	*fresh = true;
	return p;
}

/* The bytes of a buffer of n elements: never none. */
static size_t buf_bytes(int64_t n, size_t elsize)
{
	return (n > 0 ? (size_t)n : 1) * (elsize ? elsize : 1);
}

void *sap_acc_take(int64_t n, size_t elsize)
{
	bool fresh;
	return take(buf_bytes(n, elsize), &fresh) + HEAD;
}

/* A float's identity in sums is -0.0, not +0.0: -0.0 + -0.0 is -0.0,
 * and an element no iteration adds to stays as it was, -0.0 included
 * (a buffer of +0.0 made it +0.0). */
void *sap_acc_alloc(int64_t n, size_t elsize, const sap_numtype *t)
{
	if (driver_init)
		return NULL;
	size_t bytes = buf_bytes(n, elsize);
	bool fresh;
	char *p = take(bytes, &fresh);
	bool floats = t && n > 0 && sap_nt_has_float(t);
	if (fresh && !floats)
		return p + HEAD;
	zero_job j = { p + HEAD, bytes, 1, floats ? t : NULL, n };
	if (bytes >= SAP_PAR_BYTES && sap_pool_free())
		j.T = sap_threads();
	sap_pool_run(j.T, zero_part, &j);
	return p + HEAD;
}

void *sap_acc_opt(const sap_loop *L, int dds, int64_t n, size_t elsize, const sap_numtype *t)
{
	return dds < 64 && (L->sums >> dds & 1) ? sap_acc_alloc(n, elsize, t) : NULL;
}

/* Sums into buffers cost a pass over each worker's buffer, and a plan
 * one over the iterations, or none when the plan is kept: buffers pay
 * where the loop has at least as many iterations as the vector has
 * elements.  On one worker, neither: the body adds into the vector in
 * index order.  A replay runs the recorded order, into the vector too. */
bool sap_sums_choose(sap_sums *s, sap_loop *L, const sap_async_spec **spec,
                     const sap_reduce **r, int64_t lo, int64_t hi)
{
	const sap_reduce *R = *r;
	const sap_async_spec *S = *spec;
	L->sums = 0;
	int opt = 0;
	for (int a = 0; R && a < R->nacc; a++)
		opt += R->acc[a].optional;
	if (!opt || !S->dds)
		return false;
	bool many = sap_threads() * sap_nranks() > 1 && !sap_cfg.run_order;
	uint64_t want = 0;
	for (int a = 0; a < R->nacc; a++) {
		const sap_accum *x = &R->acc[a];
		const sap_dvec *v = S->dds[x->dds].dv;
		if (x->optional && many && x->dds < 64 && v && v->n <= hi - lo)
			want |= (uint64_t)1 << x->dds;
	}
	/* A loop serialized for an element of sums runs free of them only
	 * if they all go to copies: it has no slice to plan the others. */
	if (S->serial) {
		bool all = S->serial_dds > 0 && S->serial_dds <= 64 && (want >> (S->serial_dds - 1) & 1);
		for (int a = 0; all && a < R->nacc; a++)
			all = !R->acc[a].optional || (R->acc[a].dds < 64 && (want >> R->acc[a].dds & 1));
		if (!all)
			want = 0;
	}
	s->acc = sap_xmalloc((size_t)R->nacc * sizeof *s->acc);
	int n = 0;
	for (int a = 0; a < R->nacc; a++) {
		const sap_accum *x = &R->acc[a];
		if (x->optional && !(x->dds < 64 && (want >> x->dds & 1)))
			continue;
		s->acc[n++] = *x;
	}
	L->sums = want;
	s->r = *R;
	s->r.acc = s->acc;
	s->r.nacc = n;
	*r = &s->r;
	s->dds = NULL;
	s->affine = NULL;
	s->span = NULL;
	if (!L->sums)
		return true;
	/* The spec an accumulate clause gives: the DDSs accumulated, and
	 * their static keys and spans not among the writes that place
	 * iterations and elements (a static cnt[i]-- beside cnt[k] += 2
	 * left the sums where the writes at i were, not where they went). */
	s->spec = *S;
	s->spec.serial = NULL;
	s->spec.serial_dds = 0;
	s->dds = sap_xmalloc((size_t)S->ndds * sizeof *s->dds);
	memcpy(s->dds, S->dds, (size_t)S->ndds * sizeof *s->dds);
	for (int k = 0; k < S->ndds && k < 64; k++)
		if (L->sums >> k & 1)
			s->dds[k].accumulate = true;
	s->spec.dds = s->dds;
	s->affine = sap_xmalloc((size_t)(S->naffine ? S->naffine : 1) * sizeof *s->affine);
	s->spec.naffine = 0;
	for (int q = 0; q < S->naffine; q++)
		if (S->affine[q].dds >= 64 || !(L->sums >> S->affine[q].dds & 1))
			s->affine[s->spec.naffine++] = S->affine[q];
	s->spec.affine = s->affine;
	s->span = sap_xmalloc((size_t)(S->nspan ? S->nspan : 1) * sizeof *s->span);
	s->spec.nspan = 0;
	for (int q = 0; q < S->nspan; q++)
		if (S->span[q].dds >= 64 || !(L->sums >> S->span[q].dds & 1))
			s->span[s->spec.nspan++] = S->span[q];
	s->spec.span = S->span && s->spec.nspan ? s->span : NULL;
	*spec = &s->spec;
	return true;
}

void sap_sums_free(sap_sums *s, sap_loop *L)
{
	free(s->acc);
	free(s->dds);
	free(s->affine);
	free(s->span);
	L->sums = 0;
}

void sap_acc_free(void *q)
{
	if (!q)
		return;
	char *p = (char *)q - HEAD;
	size_t bytes;
	memcpy(&bytes, p, sizeof bytes);
	pthread_mutex_lock(&keep_mu);
	if (nkept < KEEP && kept_bytes + bytes <= KEEP_BYTES) {
		kept[nkept] = p;
		kept_size[nkept++] = bytes;
		kept_bytes += bytes;
		p = NULL;
	}
	pthread_mutex_unlock(&keep_mu);
	free(p);
}


bool sap_acc_idle(const sap_numtype *t, const char *p, int64_t n)
{
	if (!t || !sap_nt_has_float(t))
		return sap_all_zero(p, (size_t)n * (t ? t->size : 1));
	/* Every word the identity's (-0.0 as 0x8000...): the flat vectors
	 * of doubles or floats a buffer most often holds. */
	bool flat = sap_nt_flat(t);
	if (flat && (t->f[0].kind == SAP_S_DOUBLE || t->f[0].kind == SAP_S_FLOAT)) {
		size_t bytes = (size_t)n * t->size, i = 0;
		uint64_t pat = t->f[0].kind == SAP_S_DOUBLE ? 0x8000000000000000ULL : 0x8000000080000000ULL;
		uint64_t any = 0, w;
		for (; i + sizeof w <= bytes; i += sizeof w) {
			memcpy(&w, p + i, sizeof w);
			any |= w ^ pat;
		}
		for (; i < bytes; i += 4) {
			uint32_t h;
			memcpy(&h, p + i, sizeof h);
			any |= h ^ 0x80000000u;
		}
		return !any;
	}
	char *id = sap_xmalloc(t->size);
	sap_nt_identity(t, id, 1);
	bool idle = true;
	for (int64_t k = 0; k < n && idle; k++)
		idle = !memcmp(p + (size_t)k * t->size, id, t->size);
	free(id);
	return idle;
}

bool sap_all_zero(const char *p, size_t n)
{
	uint64_t any = 0, w;
	size_t i = 0;
	for (; i + 8 * sizeof w <= n; i += 8 * sizeof w) {
		for (int k = 0; k < 8; k++) {
			memcpy(&w, p + i + k * sizeof w, sizeof w);
			any |= w;
		}
		if (any)
			return false;
	}
	for (; i < n; i++)
		any |= (unsigned char)p[i];
	return !any;
}

/* Whether v is all zero where this rank holds it, or everywhere if it
 * has no holder map. */
static bool zero_here(const sap_dvec *v)
{
	if (!sap_acc_in_place(v))
		return sap_all_zero(v->data, (size_t)v->n * v->elsize);
	int me = sap_rank();
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if ((h == me || h == SAP_HOLD_ALL) &&
		    !sap_all_zero(v->data + (size_t)k * v->elsize, (size_t)(j - k) * v->elsize))
			return false;
	}
	return true;
}

/* The driver's buffer of a vector that is all +0.0 (every bit zero) is
 * the vector itself: 0 + s is s exactly, so adding the workers' sums to
 * its zeros gives what adding the buffer's sums to the vector would, and
 * a loop that zeroes its target first (PageRank's next) neither zeroes
 * a buffer nor adds it in afterwards.  On one worker the body then adds
 * into the vector as the serial program does.  Where the vector has a
 * holder map, only the elements this rank holds count, and the others
 * may be left with partial sums: they are stale here by the map, as
 * before. */
void sap_acc_driver_init(const sap_reduce *r, const sap_async_spec *spec, void *red)
{
	if (!spec->dds) {
		r->init(red);
		return;
	}
	driver_init = true;
	r->init(red);
	driver_init = false;
	for (int a = 0; a < r->nacc; a++) {
		char *p;
		memcpy(&p, (char *)red + r->acc[a].off, sizeof p);
		if (p)
			continue;
		sap_dvec *v = spec->dds[r->acc[a].dds].dv;
		p = v->n > 0 && !v->part_only && zero_here(v) ? v->data :
		    sap_acc_alloc(v->n, v->elsize, r->acc[a].num);
		memcpy((char *)red + r->acc[a].off, &p, sizeof p);
	}
}

bool sap_acc_in_place(const sap_dvec *v)
{
	return v->holder && !v->part_only && !v->codec;
}

void sap_acc_apply(const sap_numtype *t, sap_dvec *v, void *buf)
{
	const char *b = buf;
	size_t es = v->elsize;
	if (buf == v->data)
		return;
	if (!sap_acc_in_place(v)) {
		sap_acc_add(t, v->data, b, v->n);
		sap_acc_free(buf);
		return;
	}
	/* Only the elements this rank holds had their sums sent here. */
	int me = sap_rank();
	for (int64_t k = 0, j; k < v->n; k = j) {
		uint16_t h;
		j = sap_hold_run(v, k, v->n, &h);
		if (h == me || h == SAP_HOLD_ALL)
			sap_acc_add(t, v->data + (size_t)k * es, b + (size_t)k * es, j - k);
	}
	sap_acc_free(buf);
}

/* A loop that accumulates into a map of many keys adds to most of them
 * (a gradient's), and a map of its own per worker would insert them all
 * again, every invocation, and merge them by lookups.  The buffer then
 * keeps the sums of the keys the target has in an array by the target's
 * entry (the target's index finds them; the body cannot change it), at
 * the sum's identity where nothing was added, and only new keys in the
 * map.  The sums are the same either way: the identity adds nothing.
 * Dense pays when the loop is not much shorter than the map. */
void sap_acc_shadow(sap_dmap *buf, const sap_dmap *m, int64_t n)
{
	if (!buf->num || buf->shadow || buf->live || buf->num->size != buf->valsize || m->multi ||
	    m->parted || m->nents < 1024 || n < m->nents / 16)
		return;
	buf->shadow = m;
	buf->dense = sap_acc_take(m->nents, buf->valsize);
	sap_nt_identity(buf->num, buf->dense, m->nents);
}

/* Each map accumulate buffer of red, a reduce struct of r for spec's
 * loop of n iterations, made to shadow its target if that pays. */
void sap_acc_shadows(const sap_reduce *r, const sap_async_spec *spec, void *red, int64_t n)
{
	for (int a = 0; r && red && a < r->nacc; a++) {
		sap_dmap *m = spec->dds[r->acc[a].dds].dm;
		if (m)
			sap_acc_shadow((sap_dmap *)((char *)red + r->acc[a].off), m, n);
	}
}

/* from's sums in a dense array by m's entry, into into's values. */
static void merge_dense(const sap_numtype *t, sap_dmap *into, const sap_dmap *m,
                        const char *dense)
{
	size_t vs = t->size;
	if (into->shadow == m) {
		sap_acc_add(t, into->dense, dense, m->nents);
		return;
	}
	if (into == m) {
		sap_dm_add_dense(t, into, dense);
		return;
	}
	for (int64_t i = 0; i < m->nents; i++) {
		const char *v = dense + (size_t)i * vs;
		if (!sap_nt_is_identity(t, v)) {
			const void *key = sap_dm_key_at(m, i);
			if (key)
				sap_sc_add(t, sap_dm_upsert(into, key), v, 1);
		}
	}
}

void sap_dm_merge(const sap_numtype *t, sap_dmap *into, sap_dmap *from)
{
	if (from->shadow)
		merge_dense(t, into, from->shadow, from->dense);
	int64_t pos = 0;
	const void *key;
	void *val;
	while (sap_dm_next(from, &pos, &key, &val))
		sap_sc_add(t, sap_dm_upsert(into, key), val, 1);
}

/* After the loop: the time counts as the loop's in --stats. */
static void loop_time(sap_loop *L, double t0)
{
	if (L->kind == SAP_ASYNC && L->state)
		L->state->compute_s += sap_now() - t0;
}

/* buf's sums of the keys this rank owns into m, parted: a key m lacks
 * takes the number its entry had among every worker's, after m's own, so
 * that m's entries stay in the order a merge of them all gives. */
static void owned_merge(const sap_numtype *t, sap_dmap *m, sap_dmap *buf)
{
	if (!sap_dm_part(m))
		sap_fatal(NULL, "internal error: map '%s' not parted for its sums", m->name);
	int64_t base = m->seq, pos = 0, seq;
	const void *key;
	void *val;
	while (sap_dm_entry(buf, &pos, &key, &val, &seq)) {
		void *v;
		if (!sap_dm_here(m, key, &v))
			v = sap_dm_put(m, key, base + seq);
		sap_sc_add(t, v, val, 1);
	}
	m->seq = base + buf->span;
	sap_dm_recount(m);
}

void sap_acc_merge(sap_loop *L, const sap_numtype *t, sap_dmap *m, sap_dmap *buf)
{
	double t0 = sap_now();
	/* Into an empty map (a fresh gradient each pass, counts made from
	 * nothing), the buffer's entries are the map's, in the order the
	 * merge would insert them. */
	if (buf->owned)
		owned_merge(t, m, buf);
	else if (!sap_dm_take(t, m, buf))
		sap_dm_merge(t, m, buf);
	sap_dm_free(buf);
	loop_time(L, t0);
}

void sap_acc_done(sap_loop *L, const sap_numtype *t, sap_dvec *v, void *buf)
{
	double t0 = sap_now();
	sap_acc_apply(t, v, buf);
	loop_time(L, t0);
}
