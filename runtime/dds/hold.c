/* hold.c: which rank holds the current value of each element of a
 * dvector that async loops over ranks wrote.
 *
 * After such a loop, an element's current value is only where it was
 * last written: sending every written element to every rank after each
 * invocation costs more than the loop moves within it (SGDMF's W, whose
 * rows never leave their rank).  So the ranks instead agree on a holder
 * per element, from the plan or the chunks, which every rank knows.
 * What reads the vector next gets only what it needs from the holders:
 * a planned loop what its groups touch (sap_dist_fetch), a loop that
 * writes nothing what its read slice records (sap_reads_fetch), driver
 * code the element it reads (sap_dv_fetch_one), save each rank's part
 * (sap_dv_own_parts).  Anything else first makes the vector whole,
 * collectively: sync for, and loops whose keys the runtime does not
 * know.  The holder map is the same on every rank, so every rank
 * decides the same way.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* The vectors that have a holder map, to make whole before code that may
 * read any vector. */
static sap_ptrs held;

static int64_t moved_sent, moved_recv;

/* The source of sap_holders.stamp, by which a loop knows that nothing
 * changed a map since it last set it (sap_dist_settle). */
static uint64_t hold_clock;

void sap_moved_add(int64_t sent, int64_t received)
{
	moved_sent += sent;
	moved_recv += received;
}

void sap_hold_moved(int64_t *sent, int64_t *received)
{
	*sent = moved_sent;
	*received = moved_recv;
}

enum { BLOCK = 1 << SAP_HOLD_SHIFT };

size_t sap_hold_bytes(const sap_dvec *v)
{
	const sap_holders *h = v->holder;
	if (!h)
		return 0;
	return sizeof *h + (size_t)h->nblk * (sizeof *h->blk + sizeof *h->val) +
	       (size_t)h->nmixed * BLOCK * sizeof **h->blk;
}

sap_holders *sap_hold_map(sap_dvec *v)
{
	if (v->holder)
		return v->holder;
	if (sap_nranks() >= SAP_HOLD_ALL)
		sap_fatal(NULL, "more than %d ranks are not supported", SAP_HOLD_ALL - 1);
	sap_holders *h = sap_xcalloc(1, sizeof *h);
	h->nblk = (v->n + BLOCK - 1) / BLOCK;
	h->blk = sap_xcalloc((size_t)h->nblk, sizeof *h->blk);
	h->val = sap_xmalloc((size_t)h->nblk * sizeof *h->val);
	for (int64_t b = 0; b < h->nblk; b++)
		h->val[b] = SAP_HOLD_ALL;
	h->stamp = ++hold_clock;
	v->holder = h;
	sap_dv_account(v, v->held + sap_hold_bytes(v));
	v->fetched = 0;
	sap_ptrs_add(&held, v);
	return h;
}

void sap_hold_drop(sap_dvec *v)
{
	sap_holders *h = v->holder;
	if (!h)
		return;
	size_t bytes = sap_hold_bytes(v);
	for (int64_t b = 0; b < h->nblk; b++)
		free(h->blk[b]);
	free(h->blk);
	free(h->val);
	free(h);
	v->holder = NULL;
	sap_dv_account(v, v->held - bytes);
	sap_ptrs_del(&held, v);
}

/* Block b of v's map as an array of its keys' holders. */
static uint16_t *mixed(sap_dvec *v, int64_t b)
{
	sap_holders *h = v->holder;
	if (!h->blk[b]) {
		h->blk[b] = sap_xmalloc(BLOCK * sizeof **h->blk);
		for (int i = 0; i < BLOCK; i++)
			h->blk[b][i] = h->val[b];
		h->nmixed++;
		sap_dv_account(v, v->held + BLOCK * sizeof **h->blk);
	}
	return h->blk[b];
}

/* Every key of block b of v's map held by r. */
static void whole_block(sap_dvec *v, int64_t b, uint16_t r)
{
	sap_holders *h = v->holder;
	if (h->blk[b]) {
		free(h->blk[b]);
		h->blk[b] = NULL;
		h->nmixed--;
		sap_dv_account(v, v->held - BLOCK * sizeof **h->blk);
	}
	h->val[b] = r;
}

void sap_hold_set(sap_dvec *v, int64_t k, uint16_t r)
{
	sap_holders *h = v->holder;
	int64_t b = k >> SAP_HOLD_SHIFT;
	h->stamp = ++hold_clock;
	if (!h->blk[b] && h->val[b] == r)
		return;
	mixed(v, b)[k & (BLOCK - 1)] = r;
}

void sap_hold_range(sap_dvec *v, int64_t a, int64_t b, uint16_t r)
{
	sap_holders *h = v->holder;
	h->stamp = ++hold_clock;
	for (int64_t k = a; k < b;) {
		int64_t blk = k >> SAP_HOLD_SHIFT, end = (blk + 1) << SAP_HOLD_SHIFT;
		if (k == blk << SAP_HOLD_SHIFT && (end <= b || b == v->n)) {
			/* The whole block (the last one may be short). */
			whole_block(v, blk, r);
			k = end;
			continue;
		}
		/* Part of a block: a row of a 2000-column grid set key by key
		 * was a quarter of a stencil's sweep on 2 ranks. */
		int64_t e = end < b ? end : b;
		if (h->blk[blk] || h->val[blk] != r) {
			uint16_t *m = mixed(v, blk);
			for (int64_t q = k; q < e; q++)
				m[q & (BLOCK - 1)] = r;
		}
		k = e;
	}
}

void sap_hold_stride(sap_dvec *v, int64_t k, int64_t s, int64_t n, uint16_t r)
{
	sap_holders *h = v->holder;
	h->stamp = ++hold_clock;
	while (n > 0) {
		int64_t b = k >> SAP_HOLD_SHIFT, end = (b + 1) << SAP_HOLD_SHIFT;
		int64_t m = (end - k + s - 1) / s;
		m = m < n ? m : n;
		if (h->blk[b] || h->val[b] != r) {
			uint16_t *a = mixed(v, b);
			for (int64_t i = 0; i < m; i++)
				a[(k + i * s) & (BLOCK - 1)] = r;
		}
		k += m * s;
		n -= m;
	}
}

/* Block by block rather than key by key: a plan's last writers alternate
 * from key to key where its groups interleave (LDA's z, a token a key,
 * written by the rank of the token's word), and a key at a time cost
 * 23 ns a key on 2 ranks, 28 ms a settle of 1.2 M keys. */
void sap_hold_from(sap_dvec *v, const uint16_t *lw)
{
	sap_holders *h = v->holder;
	h->stamp = ++hold_clock;
	for (int64_t b = 0; b < h->nblk; b++) {
		const uint16_t *l = lw + b * BLOCK;
		int64_t n = v->n - b * BLOCK < BLOCK ? v->n - b * BLOCK : BLOCK;
		int64_t set = 0;
		uint16_t r = SAP_HOLD_ALL;
		bool one = true;
		for (int64_t i = 0; i < n; i++) {
			if (l[i] == SAP_HOLD_ALL)
				continue;
			set++;
			one &= r == SAP_HOLD_ALL || l[i] == r;
			r = l[i];
		}
		if (!set)
			continue;
		/* One writer, and the keys it did not write held by it or by
		 * every rank: the block is its.  Left to every rank, keys
		 * nobody wrote cut the map into runs of a key or two (a
		 * planned loop's writes at random keys: a later loop's check
		 * of where its elements are walked a million runs). */
		for (int64_t i = 0; one && set < n && i < n; i++) {
			uint16_t was = h->blk[b] ? h->blk[b][i] : h->val[b];
			one = l[i] != SAP_HOLD_ALL || was == SAP_HOLD_ALL || was == r;
		}
		if (one) {
			whole_block(v, b, r);
			continue;
		}
		uint16_t *a = mixed(v, b);
		for (int64_t i = 0; i < n; i++)
			if (l[i] != SAP_HOLD_ALL)
				a[i] = l[i];
	}
}

int64_t sap_hold_run(const sap_dvec *v, int64_t k, int64_t end, uint16_t *who)
{
	const sap_holders *h = v->holder;
	uint16_t w = sap_hold_get(v, k);
	*who = w;
	while (k < end) {
		int64_t blk = k >> SAP_HOLD_SHIFT, bend = (blk + 1) << SAP_HOLD_SHIFT;
		const uint16_t *a = h->blk[blk];
		if (!a) {
			if (h->val[blk] != w)
				return k;
			k = bend;
			continue;
		}
		for (; k < bend && k < end; k++)
			if (a[k & (BLOCK - 1)] != w)
				return k;
	}
	return end;
}

void sap_hold_tidy(sap_dvec *v)
{
	sap_holders *h = v->holder;
	if (!h)
		return;
	h->stamp = ++hold_clock;
	for (int64_t b = 0; b < h->nblk; b++) {
		uint16_t *a = h->blk[b];
		if (!a)
			continue;
		int64_t n = v->n - b * BLOCK < BLOCK ? v->n - b * BLOCK : BLOCK;
		bool one = true;
		for (int64_t i = 1; i < n && one; i++)
			one = a[i] == a[0];
		if (one)
			whole_block(v, b, a[0]);
	}
}

/* The bytes of v's keys [a, b) as they travel, at out if not NULL. */
static size_t put_run(const sap_dvec *v, int64_t a, int64_t b, char *out)
{
	if (!v->codec) {
		size_t bytes = (size_t)(b - a) * v->elsize;
		if (out)
			memcpy(out, v->data + (size_t)a * v->elsize, bytes);
		return bytes;
	}
	size_t bytes = 0;
	for (int64_t k = a; k < b; k++)
		bytes += sap_dv_put(v, k, out ? out + bytes : NULL);
	return bytes;
}

static const char *take_run(sap_dvec *v, int64_t a, int64_t b, const char *in)
{
	if (!v->codec) {
		size_t bytes = (size_t)(b - a) * v->elsize;
		memcpy(v->data + (size_t)a * v->elsize, in, bytes);
		return in + bytes;
	}
	for (int64_t k = a; k < b; k++)
		in = sap_dv_take(v, k, in);
	return in;
}

/* Where every rank holds at most one run of v's elements (the chunks of
 * a loop that wrote v), they go straight from the holders' data into the
 * others', by one allgatherv in place: no packing, no buffers to fault in
 * (a 4 MB vector took 13 ms packed against MPI's 0.5 ms).  Its runs'
 * [a, b) in ab, or false. */
static bool one_run_each(const sap_dvec *v, int P, int64_t *ab)
{
	if (v->codec)
		return false;
	for (int r = 0; r < P; r++)
		ab[2 * r] = ab[2 * r + 1] = 0;
	uint16_t h;
	for (int64_t k = 0, j; k < v->n; k = j) {
		j = sap_hold_run(v, k, v->n, &h);
		if (h == SAP_HOLD_ALL)
			continue;
		if (h >= P)
			return false;
		/* Runs end at blocks too: adjacent ones of h are one. */
		if (ab[2 * h + 1] > ab[2 * h] && ab[2 * h + 1] != k)
			return false;
		if (ab[2 * h + 1] == ab[2 * h])
			ab[2 * h] = k;
		ab[2 * h + 1] = j;
	}
	return true;
}

/* v is whole on every rank now: the bytes counted, the holders gone. */
static void whole_done(sap_dvec *v, sap_dist_stats *stats, int64_t sent, int64_t got)
{
	if (stats) {
		stats->sent += sent;
		stats->received += got;
	} else {
		moved_sent += sent;
		moved_recv += got;
	}
	sap_hold_drop(v);
	sap_dv_recount(v);
	v->gathered = true;
}

/* Each rank sends the elements it holds, in key order, to all: no keys
 * travel, since every rank knows the holder map.  The map goes by runs
 * of one holder, which are whole blocks but where loops mixed them. */
static void dv_whole(sap_dvec *v, sap_dist_stats *stats);

void sap_dv_whole(sap_dvec *v, sap_dist_stats *stats)
{
	if (!v->holder)
		return;
	const char *was = sap_oom_doing;
	char *doing = sap_strf("making dvector %s (%.1f MB) whole on rank %d, which driver code, "
	                       "a save or a loop reads whole (sap-run(1), Several ranks)",
	                       v->name ? v->name : "?", (double)v->n * (double)v->elsize / 1e6,
	                       sap_rank());
	sap_oom_doing = doing;
	dv_whole(v, stats);
	sap_oom_doing = was;
	free(doing);
}

static void dv_whole(sap_dvec *v, sap_dist_stats *stats)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t mine = 0;
	uint16_t h;
	int64_t *ab = sap_xmalloc((size_t)(2 * P) * sizeof *ab);
	if (one_run_each(v, P, ab)) {
		int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt);
		int64_t *dis = sap_xmalloc((size_t)P * sizeof *dis), total = 0;
		for (int r = 0; r < P; r++) {
			cnt[r] = ab[2 * r + 1] - ab[2 * r];
			dis[r] = ab[2 * r];
			total += cnt[r];
		}
		sap_comm_allgatherv(v->data + (size_t)dis[me] * v->elsize, cnt[me], v->data, cnt, dis,
		                    v->elsize);
		whole_done(v, stats, cnt[me] * (int64_t)v->elsize * (P - 1),
		           (total - cnt[me]) * (int64_t)v->elsize);
		free(ab);
		free(cnt);
		free(dis);
		return;
	}
	free(ab);
	for (int64_t k = 0, j; k < v->n; k = j) {
		j = sap_hold_run(v, k, v->n, &h);
		if (h == me)
			mine += (int64_t)put_run(v, k, j, NULL);
	}
	char *out = sap_xmalloc((size_t)mine), *o = out;
	for (int64_t k = 0, j; k < v->n; k = j) {
		j = sap_hold_run(v, k, v->n, &h);
		if (h == me)
			o += put_run(v, k, j, o);
	}
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_comm_counts(mine, cnt, dis);
	char *in = sap_xmalloc((size_t)total);
	sap_comm_allgatherv(out, mine, in, cnt, dis, 1);
	const char **at = sap_xmalloc((size_t)P * sizeof *at);
	for (int r = 0; r < P; r++)
		at[r] = in + dis[r];
	for (int64_t k = 0, j; k < v->n; k = j) {
		j = sap_hold_run(v, k, v->n, &h);
		if (h != SAP_HOLD_ALL && h != me)
			at[h] = take_run(v, k, j, at[h]);
	}
	whole_done(v, stats, cnt[me] * (P - 1), total - cnt[me]);
	free(at);
	free(out);
	free(in);
	free(cnt);
	free(dis);
}

void sap_whole_all(void)
{
	sap_dm_whole_all();
	for (int k = held.n - 1; k >= 0; k--) {
		sap_dvec *v = held.v[k];
		if (v->holder)
			sap_dv_whole(v, NULL);
		else
			sap_ptrs_del(&held, v);      /* created again over an old one */
	}
}

void sap_whole_these(sap_dvec *const *v, int n, const sap_dvec *const *keep, int nkeep)
{
	sap_dm_whole_all();
	for (int k = 0; k < n; k++) {
		bool kept = false;
		for (int i = 0; i < nkeep; i++)
			kept |= v[k] == keep[i];
		if (!kept && v[k]->holder)
			sap_dv_whole(v[k], NULL);
	}
}

void sap_dv_every(sap_dvec *v, sap_dist_stats *stats)
{
	sap_dv_unpart(v);
	sap_dv_whole(v, stats);
}

void sap_whole_spec(const sap_async_spec *spec, const bool *skip, sap_dist_stats *stats)
{
	/* One the body takes only the length of (mode 0) is not read. */
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].dv && spec->dds[k].mode && (!skip || !skip[k]))
			sap_dv_whole(spec->dds[k].dv, stats);
}

/* ---- the keys a loop that writes nothing reads ---- */

typedef struct read_marks {
	const sap_async_spec *spec;
	uint64_t **bits;        /* per spec DDS, or NULL */
	int64_t recs;           /* keys recorded */
} read_marks;

static void mark_read(sap_rec *r, int dds, int64_t key, sap_mode mode)
{
	(void)mode;
	read_marks *m = r->logbuf;
	m->recs++;
	const sap_dvec *v = m->spec->dds[dds].dv;
	/* Out of range: the body reports it. */
	if (m->bits[dds] && (uint64_t)key < (uint64_t)v->n)
		m->bits[dds][(uint64_t)key / 64] |= (uint64_t)1 << ((uint64_t)key % 64);
}

static uint64_t dds_version_of(const sap_dds *d)
{
	return d->dv ? d->dv->version : d->dm ? d->dm->version : 0;
}

static int64_t dds_size_of(const sap_dds *d)
{
	return d->dv ? d->dv->n : d->dm ? sap_dm_size(d->dm) : 0;
}

/* The values of spec's affine keys and spans, and of the driver
 * variables its read slice reads, as many words as *n says, to free: an
 * offset may be a driver variable (A[p * K + j] under a loop over p), and
 * the need made from them holds only while they do. */
static int64_t *forms_of(const sap_async_spec *spec, int64_t *n)
{
	int64_t m = 4 * (int64_t)spec->naffine + 7 * (int64_t)(spec->nspan + spec->nrspan), at = 0;
	for (int k = 0; k < spec->ndrv; k++)
		m += 1 + (int64_t)(spec->drv[k].size + 7) / 8;
	int64_t *f = sap_xcalloc((size_t)(m ? m : 1), sizeof *f);
	for (int q = 0; q < spec->naffine; q++) {
		const sap_affine *af = &spec->affine[q];
		int64_t v[] = { af->dds, af->mode, af->a, af->b };
		memcpy(f + at, v, sizeof v);
		at += 4;
	}
	for (int q = 0; q < spec->nspan + spec->nrspan; q++) {
		const sap_span *sp = q < spec->nspan ? &spec->span[q] : &spec->rspan[q - spec->nspan];
		int64_t v[] = { sp->dds, sp->mode, sp->a, sp->b, sp->w, sp->c, sp->m };
		memcpy(f + at, v, sizeof v);
		at += 7;
	}
	for (int k = 0; k < spec->ndrv; k++) {
		f[at++] = (int64_t)spec->drv[k].size;
		memcpy(f + at, spec->drv[k].p, spec->drv[k].size);
		at += (int64_t)(spec->drv[k].size + 7) / 8;
	}
	*n = m;
	return f;
}

/* Is the cached need of st for these iterations and inputs, and for
 * the vectors which says?  Those change with the holder maps: a vector
 * whole at the last run (x[0] = 1 in driver code) and scattered since by
 * a loop is one more to fetch, and the cache has none of its keys. */
/* 1 when the cache holds the need of these iterations and inputs; 0 when
 * it holds none, or another set of iterations' or vectors'; -1 when the
 * same iterations' inputs changed since (whole_read_much). */
static int reads_valid(const struct sap_loop_state *st, const sap_async_spec *spec,
                       const void *key1, int64_t key2, int64_t a, int64_t b, const bool *which)
{
	if (!st->rdist.need || st->rd_key1 != key1 || st->rd_key2 != key2 || st->rd_a != a ||
	    st->rd_b != b || st->rd_ndds != spec->ndds)
		return 0;
	for (int k = 0; k < spec->ndds; k++)
		if (st->rd_which[k] != which[k])
			return 0;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		/* One the body takes only the length of (mode 0) may give
		 * the keys, as one the slice reads does. */
		if ((d->slice_reads || !d->mode) && st->rd_versions[k] != dds_version_of(d))
			return -1;
		if (st->rd_sizes[k] != dds_size_of(d))
			return -1;
	}
	int64_t m;
	int64_t *f = forms_of(spec, &m);
	bool same = m == st->rd_nforms && !memcmp(f, st->rd_forms, (size_t)m * sizeof *f);
	free(f);
	return same ? 1 : -1;
}

/* d's key maps: a bit per key of each DDS k with which[k], DDS k's from
 * word base[k]. */
static void key_maps(sap_dist *d, const sap_async_spec *spec, const bool *which)
{
	int n = spec->ndds;
	d->base = sap_xcalloc((size_t)n + 1, sizeof *d->base);
	for (int k = 0; k < n; k++) {
		d->base[k] = d->words;
		if (which[k])
			d->words += (spec->dds[k].dv->n + 63) / 64;
	}
	d->base[n] = d->words;
}

/* The cache's names of the iterations and inputs it now holds. */
static void reads_remember(struct sap_loop_state *st, const sap_async_spec *spec,
                           const void *key1, int64_t key2, int64_t a, int64_t b, const bool *which)
{
	int n = spec->ndds;
	st->rd_key1 = key1;
	st->rd_key2 = key2;
	st->rd_a = a;
	st->rd_b = b;
	st->rd_ndds = n;
	free(st->rd_versions);
	free(st->rd_sizes);
	free(st->rd_which);
	st->rd_versions = sap_xcalloc((size_t)n, sizeof *st->rd_versions);
	st->rd_sizes = sap_xcalloc((size_t)n, sizeof *st->rd_sizes);
	st->rd_which = sap_xmalloc((size_t)(n ? n : 1) * sizeof *st->rd_which);
	memcpy(st->rd_which, which, (size_t)n * sizeof *which);
	free(st->rd_forms);
	st->rd_forms = forms_of(spec, &st->rd_nforms);
	for (int k = 0; k < n; k++) {
		st->rd_versions[k] = dds_version_of(&spec->dds[k]);
		st->rd_sizes[k] = dds_size_of(&spec->dds[k]);
	}
}

/* Bits [x, y) of bits set, clipped to [0, n). */
static void set_bits(uint64_t *bits, int64_t x, int64_t y, int64_t n)
{
	x = x < 0 ? 0 : x;
	y = y > n ? n : y;
	for (; x < y; x++)
		bits[(uint64_t)x / 64] |= (uint64_t)1 << ((uint64_t)x % 64);
}

/* A key form: iteration i touches the w keys from s i + o, and when
 * m > 1 from s i + o + c j too, for each j in [0, m) (a lattice). */
typedef struct key_form {
	int64_t s, o, w, c, m;
} key_form;

/* The key forms of DDS k, into *out (to free); how many.  Of a written
 * one, under a loop whose spans keep its iterations apart, its static
 * keys and spans; of a ranged one (sap_dds.ranged), spec->rspan's. */
static int key_forms(const sap_async_spec *spec, int k, key_form **out)
{
	bool ranged = spec->dds[k].ranged;
	int naf = ranged ? 0 : spec->naffine, nsp = ranged ? spec->nrspan : spec->nspan, m = 0;
	const sap_span *spans = ranged ? spec->rspan : spec->span;
	*out = sap_xmalloc((size_t)(naf + nsp + 1) * sizeof **out);
	for (int q = 0; q < naf + nsp; q++) {
		const sap_affine *af = q < naf ? &spec->affine[q] : NULL;
		const sap_span *sp = af ? NULL : &spans[q - naf];
		if ((af ? af->dds : sp->dds) == k)
			(*out)[m++] = af ? (key_form){ af->a, af->b, 1, 0, 1 } :
			                   (key_form){ sp->a, sp->b, sp->w, sp->c, sp->m > 1 ? sp->m : 1 };
	}
	return m;
}

/* The keys iterations [a, b) touch of DDS k (key_forms), in bits. */
static void mark_spans(const sap_async_spec *spec, int k, uint64_t *bits, int64_t a, int64_t b)
{
	int64_t n = spec->dds[k].dv->n;
	key_form *f;
	int m = key_forms(spec, k, &f);
	for (int q = 0; q < m; q++)
		for (int64_t j = 0; j < f[q].m; j++) {
		int64_t s = f[q].s, o = f[q].o + (f[q].m > 1 ? f[q].c * j : 0), w = f[q].w;
		/* Rows that meet or touch are one range, in either order (the
		 * hull of a column read backwards is most of the vector each
		 * iteration); a key that does not move (a row every iteration
		 * reads) is marked once. */
		if (s != 0 && w >= (s > 0 ? s : -s)) {
			if (s > 0)
				set_bits(bits, s * a + o, s * (b - 1) + o + w, n);
			else
				set_bits(bits, s * (b - 1) + o, s * a + o + w, n);
			continue;
		}
		for (int64_t i = a; i < (s ? b : a + 1); i++)
			set_bits(bits, s * i + o, s * i + o + w, n);
	}
	free(f);
}

/* The keys [*x, *y) that hold every key iterations [a, b) touch of the
 * vector span[k] says, as mark_span marks them (spans not set). */
static void span_hull(const sap_async_spec *spec, int k, int64_t a, int64_t b, int64_t *x,
                      int64_t *y)
{
	const sap_dds *d = &spec->dds[k];
	*x = d->near ? a + d->near_lo : a;
	*y = d->near ? b + d->near_hi : b;
	if (d->ranged) {
		key_form *f;
		int m = key_forms(spec, k, &f);
		*x = INT64_MAX;
		*y = INT64_MIN;
		for (int q = 0; q < m; q++) {
			int64_t s = f[q].s, o = f[q].o;
			int64_t lo = s >= 0 ? s * a + o : s * (b - 1) + o;
			int64_t hi = (s >= 0 ? s * (b - 1) + o : s * a + o) + f[q].w +
			             (f[q].m > 1 ? f[q].c * (f[q].m - 1) : 0);
			*x = lo < *x ? lo : *x;
			*y = hi > *y ? hi : *y;
		}
		free(f);
	}
	*x = *x < 0 ? 0 : *x;
	*y = *y > d->dv->n ? d->dv->n : *y;
}

/* How many of v's keys [x, y) other ranks hold (not every rank). */
static int64_t far_keys(const sap_dvec *v, int64_t x, int64_t y)
{
	int me = sap_rank();
	int64_t far = 0;
	while (x < y) {
		uint16_t h;
		int64_t e = sap_hold_run(v, x, y, &h);
		if (h != me && h != SAP_HOLD_ALL)
			far += e - x;
		x = e;
	}
	return far;
}

bool sap_ranged_fetch(const sap_async_spec *spec, int k, const int64_t *ab, int64_t nruns)
{
	const sap_dvec *v = spec->dds[k].dv;
	int64_t far = 0;
	for (int64_t r = 0; r < nruns; r++) {
		int64_t x, y;
		if (ab[2 * r] >= ab[2 * r + 1])
			continue;
		span_hull(spec, k, ab[2 * r], ab[2 * r + 1], &x, &y);
		far += far_keys(v, x, y);
	}
	sap_comm_allreduce(&far, 1, SAP_COMM_I64, SAP_COMM_MAX);
	return far * 16 < v->n;
}

/* Does this rank hold v's keys [x, y) (or every rank)? */
static bool held_here(const sap_dvec *v, int64_t x, int64_t y)
{
	uint16_t me = (uint16_t)sap_rank();
	while (x < y) {
		uint16_t h;
		int64_t e = sap_hold_run(v, x, y, &h);
		if (h != me && h != SAP_HOLD_ALL)
			return false;
		x = e;
	}
	return true;
}

/* The keys the iterations [a, b) read of the vectors span says, in bits
 * (per DDS): [a, b) itself, or [a + near_lo, b + near_hi) of a vector
 * read at neighbours of the loop variable, or those of mark_spans of a
 * ranged one, and under spans of a vector the loop writes. */
static void mark_span(const sap_async_spec *spec, const bool *span, uint64_t **bits, int64_t a,
                      int64_t b, bool spans)
{
	for (int k = 0; k < spec->ndds; k++) {
		if (!span[k] || a >= b)
			continue;
		const sap_dds *d = &spec->dds[k];
		if ((spans && (d->mode & SAP_WRITE)) || d->ranged) {
			mark_spans(spec, k, bits[k], a, b);
			continue;
		}
		int64_t x = d->near ? a + d->near_lo : a, y = d->near ? b + d->near_hi : b;
		set_bits(bits[k], x, y, d->dv->n);
	}
}

void sap_span_fetch(struct sap_loop_state *st, const sap_async_spec *spec, const bool *span,
                    const int64_t *ab, int64_t nruns)
{
	int n = spec->ndds;
	bool any = false;
	for (int k = 0; k < n; k++)
		any |= span[k] && spec->dds[k].dv->holder;
	if (!any)
		return;
	/* Where every rank holds what its runs read (a loop reading the
	 * rows the ranks wrote), one allreduce says so: marking the keys
	 * and gathering every rank's marks took a histogram's loop over
	 * 200,000 rows 3 ms a pass for nothing. */
	int need = 0;
	for (int k = 0; k < n && !need; k++) {
		const sap_dvec *v = spec->dds[k].dv;
		for (int64_t r = 0; span[k] && v->holder && r < nruns && !need; r++) {
			int64_t x, y;
			if (ab[2 * r] >= ab[2 * r + 1])
				continue;
			span_hull(spec, k, ab[2 * r], ab[2 * r + 1], &x, &y);
			need = !held_here(v, x, y);
		}
	}
	sap_comm_allreduce(&need, 1, SAP_COMM_INT, SAP_COMM_MAX);
	if (!need)
		return;
	sap_dist d = { 0 };
	key_maps(&d, spec, span);
	uint64_t *mine = sap_xcalloc((size_t)d.words + 1, sizeof *mine);
	uint64_t **bits = sap_xcalloc((size_t)n, sizeof *bits);
	for (int k = 0; k < n; k++)
		bits[k] = d.base[k + 1] > d.base[k] ? mine + d.base[k] : NULL;
	for (int64_t r = 0; r < nruns; r++)
		mark_span(spec, span, bits, ab[2 * r], ab[2 * r + 1], false);
	d.need = sap_xmalloc((size_t)sap_nranks() * (size_t)(d.words + 1) * sizeof *d.need);
	sap_comm_allgather(mine, d.need, d.words, sizeof *mine);
	sap_dist_fetch(&d, spec, &st->traffic);
	sap_dist_free(&d);
	free(mine);
	free(bits);
}

/* Collective: the elements [a, b) of the vectors span says from their
 * holders, if any of them has a holder map. */
static void fetch_span(struct sap_loop_state *st, const sap_async_spec *spec, const bool *span,
                       int64_t a, int64_t b)
{
	int64_t ab[2] = { a, b };
	sap_span_fetch(st, spec, span, ab, 1);
}

/* Fetched elements go at the end of the invocation, so a chunk loop over
 * a vector that a planned loop scattered (lists pushed at keys from the
 * data) fetched half of it again every run though nothing changed it:
 * 0.3 MB a pass of a PageRank's adjacency on 2 ranks.  A vector read at
 * the loop variable that this loop fetched a sixteenth or more of before,
 * and that has not changed since, is made whole instead, once: it then
 * costs nothing until something writes it.  Collective; every rank
 * decides the same. */
static bool span_input(const sap_dds *d, bool span)
{
	return span && d->dv->holder && !d->dv->part_only && !(d->mode & SAP_WRITE);
}

/* Those whose keys are [a, b), more or less: not a ranged one, which
 * whole_if_refetched counts from its need. */
static bool index_input(const sap_dds *d, bool span)
{
	return span_input(d, span) && !d->ranged;
}

/* st's per-DDS versions of vectors it fetched much of (st->span_ver). */
static void fetched_vers(struct sap_loop_state *st, int n)
{
	if (st->nspan != n) {
		free(st->span_ver);
		free(st->read_much);
		st->span_ver = sap_xcalloc((size_t)(n ? n : 1), sizeof *st->span_ver);
		st->read_much = sap_xcalloc((size_t)(n ? n : 1), sizeof *st->read_much);
		st->nspan = n;
	}
}

/* Collective, the end of both: of the vectors ok says, one that some
 * rank reads a sixteenth or more of from others (far, this rank's count
 * each) is made whole if this loop found so before at its version, else
 * its version is kept; with mark, st->read_much says which.  Frees ok
 * and far. */
static void whole_if_again(struct sap_loop_state *st, const sap_async_spec *spec, bool *ok,
                           int64_t *far, bool mark)
{
	int n = spec->ndds;
	fetched_vers(st, n);
	sap_comm_allreduce(far, n, SAP_COMM_I64, SAP_COMM_MAX);
	for (int k = 0; k < n; k++) {
		sap_dvec *v = spec->dds[k].dv;
		if (mark)
			st->read_much[k] = ok[k] && far[k] * 16 > v->n;
		if (!ok[k] || far[k] * 16 <= v->n)
			continue;
		if (st->span_ver[k] == v->version)
			sap_dv_whole(v, &st->traffic);
		else
			st->span_ver[k] = v->version;
	}
	free(ok);
	free(far);
}

static void whole_if_same(struct sap_loop_state *st, const sap_async_spec *spec, const bool *span,
                          int64_t a, int64_t b)
{
	int n = spec->ndds;
	if (sap_nranks() == 1)
		return;
	bool any = false, *ok = sap_xcalloc((size_t)(n ? n : 1), sizeof *ok);
	for (int k = 0; k < n; k++)
		any |= ok[k] = index_input(&spec->dds[k], span[k]);
	if (!any) {
		free(ok);
		return;
	}
	int64_t *far = sap_xcalloc((size_t)(n ? n : 1), sizeof *far);
	for (int k = 0; k < n; k++)
		if (ok[k])
			far[k] = far_keys(spec->dds[k].dv, a < 0 ? 0 : a,
			                  b > spec->dds[k].dv->n ? spec->dds[k].dv->n : b);
	whole_if_again(st, spec, ok, far, false);
}

/* How many of bits [x, y) are set. */
static int64_t bits_in(const uint64_t *bits, int64_t x, int64_t y)
{
	int64_t c = 0;
	for (; x < y && x % 64; x++)
		c += bits[x / 64] >> (x % 64) & 1;
	for (; x + 64 <= y; x += 64)
		c += __builtin_popcountll(bits[x / 64]);
	for (; x < y; x++)
		c += bits[x / 64] >> (x % 64) & 1;
	return c;
}

/* The same for a vector the loop reads at keys its read slice records
 * (which says), from the need st->rdist holds: AdaBoost's loop over
 * features reads every example's bins, which changed only when built,
 * and fetched the other rank's half of them every round (3.2 MB of a
 * 3.6 MB round on 2 ranks).  Collective. */
static void whole_if_refetched(struct sap_loop_state *st, const sap_async_spec *spec,
                               const bool *which)
{
	int n = spec->ndds, P = sap_nranks(), me = sap_rank();
	const sap_dist *d = &st->rdist;
	if (P == 1 || !d->need)
		return;
	bool any = false, *ok = sap_xcalloc((size_t)(n ? n : 1), sizeof *ok);
	for (int k = 0; k < n; k++)
		any |= ok[k] = which[k] && span_input(&spec->dds[k], true) &&
		               d->base[k + 1] > d->base[k];
	if (!any) {
		free(ok);
		return;
	}
	int64_t *far = sap_xcalloc((size_t)(n ? n : 1), sizeof *far);
	for (int k = 0; k < n; k++) {
		const sap_dvec *v = spec->dds[k].dv;
		if (!ok[k])
			continue;
		const uint64_t *bits = d->need + (int64_t)me * d->words + d->base[k];
		for (int64_t x = 0; x < v->n;) {
			uint16_t who;
			int64_t e = sap_hold_run(v, x, v->n, &who);
			if (who != me && who != SAP_HOLD_ALL)
				far[k] += bits_in(bits, x, e);
			x = e;
		}
	}
	whole_if_again(st, spec, ok, far, true);
}

/* Collective: of the vectors which says, those whose last fetch by this
 * loop's slice needed a sixteenth or more of them from other ranks (a
 * gather over all of a vector that driver code changes between passes),
 * made whole where the slice must run again, which then need not run for
 * them: the slice over every iteration, a bitmap of the vector from every
 * rank and the fetch took 3 of a gather's 4 s on 2 ranks, each pass,
 * where whole the vector moves once and stays so until a loop writes it.
 * A list of keys still good is cheaper to fetch by than the whole vector
 * (a pull PageRank's neighbours). */
static bool whole_read_much(struct sap_loop_state *st, const sap_async_spec *spec,
                            const bool *which)
{
	bool any = false;
	for (int k = 0; k < spec->ndds && k < st->nspan; k++) {
		sap_dvec *v = spec->dds[k].dv;
		if (which[k] && st->read_much[k] && v && v->holder && !v->part_only) {
			sap_dv_whole(v, &st->traffic);
			any = true;
		}
	}
	return any;
}

/* The vectors d fetches from marked fetched again by the same keys, or
 * not (sap_dvec.refetched). */
static void mark_refetched(const sap_dist *d, const sap_async_spec *spec, bool again)
{
	for (int k = 0; k < spec->ndds; k++)
		if (d->base[k + 1] > d->base[k] && spec->dds[k].dv)
			spec->dds[k].dv->refetched = again;
}

/* Over another loop's plan p (its workers w0 .. w0 + threads here):
 * the vectors read only at or next to the loop variable, and never
 * written, which the slice does not record; their keys around this
 * rank's iterations, run by run, fetched; the others false.  Made whole
 * instead, a read-only loop after a planned one (a check of a running
 * sum, y[i] against y[i - 1]) gathered every vector it read, each
 * invocation: 32 MB of 4 M-element vectors on 2 ranks. */
static bool *plan_spans(struct sap_loop_state *st, const sap_async_spec *spec, const sap_plan *p,
                        int w0, int threads, const bool *known)
{
	int n = spec->ndds;
	bool *ps = sap_xcalloc((size_t)(n ? n : 1), sizeof *ps), any = false;
	for (int k = 0; p && sap_nranks() > 1 && k < n; k++) {
		const sap_dds *d = &spec->dds[k];
		ps[k] = !known[k] && d->dv && d->dv->holder && !d->dv->part_only &&
		        (d->by_index || d->near) && !d->ranged && !(d->mode & SAP_WRITE);
		any |= ps[k];
	}
	if (!any)
		return ps;
	int64_t nr = 0, cap = 64, T = p->nworkers;
	int64_t *ab = sap_xmalloc((size_t)cap * 2 * sizeof *ab);
	for (int64_t q = 0; q < p->nrounds; q++)
		for (int w = w0; w < w0 + threads; w++)
			for (int64_t k = p->ro[q * T + w]; k < p->ro[q * T + w + 1]; k++) {
				int64_t g = p->rg[k];
				for (int64_t j = p->goff[g]; j < p->goff[g + 1]; j++) {
					int64_t i = p->order[j];
					if (nr && ab[2 * nr - 1] == i) {
						ab[2 * nr - 1] = i + 1;
						continue;
					}
					if (nr == cap) {
						cap *= 2;
						ab = sap_xrealloc(ab, (size_t)cap * 2 * sizeof *ab);
					}
					ab[2 * nr] = i;
					ab[2 * nr + 1] = i + 1;
					nr++;
				}
			}
	sap_span_fetch(st, spec, ps, ab, nr);
	free(ab);
	return ps;
}

/* A read slice records a key per read: one whose body scans an inner
 * loop records as many keys as the body reads elements, far more than
 * the vector has.  A similarity join over all pairs of 12,000 points
 * recorded X[j] and nrm[j] for every pair, 30 % of each rank's time, to
 * find that each rank needed all of both (1 MB).  Past SLICE_PER
 * records an element of the vectors it records, those are made whole
 * instead, as moving every element costs less than so many records. */
enum { SLICE_PER = 32, SLICE_PIECES = 64 };

/* The slice over [a, b) in pieces, into m: whether its records, so far
 * or as the pieces so far foretell them for the rest (once a sixteenth
 * has run), pass SLICE_PER an element of the vectors it records (known
 * and not span).  Then it stops: the marks are incomplete. */
static int slice_over(const sap_async_spec *spec, void *env, int64_t a, int64_t b, sap_rec *r,
                      read_marks *m, const bool *known, const bool *span)
{
	double budget = 0;
	for (int k = 0; k < spec->ndds; k++)
		if (known[k] && !span[k] && spec->dds[k].dv)
			budget += (double)spec->dds[k].dv->n;
	budget = budget * SLICE_PER + 4096;
	int64_t piece = (b - a + SLICE_PIECES - 1) / SLICE_PIECES;
	for (int64_t x = a; x < b; x += piece) {
		int64_t y = b - x < piece ? b : x + piece;
		spec->reads(env, NULL, x, y, r);
		double done = (double)(y - a), recs = (double)m->recs;
		if (recs > budget || (done * 16 >= (double)(b - a) &&
		                      recs / done * (double)(b - a) > budget))
			return 1;
	}
	return 0;
}

/* Collective, after slice_over on some rank: the vectors the slice
 * records (known, not span) whole on every rank, their marks cleared
 * and known no more, so that nothing fetches them. */
static void whole_recorded(struct sap_loop_state *st, const sap_async_spec *spec, bool *known,
                           const bool *span, uint64_t **bits, const sap_dist *d)
{
	for (int k = 0; k < spec->ndds; k++) {
		if (!known[k] || span[k] || !spec->dds[k].dv)
			continue;
		if (bits[k])
			memset(bits[k], 0, (size_t)(d->base[k + 1] - d->base[k]) * sizeof *bits[k]);
		sap_dv_every(spec->dds[k].dv, &st->traffic);
		known[k] = false;
	}
}

void sap_reads_fetch(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                     const sap_plan *p, int w0, int threads, const void *key1, int64_t key2,
                     int64_t a, int64_t b, bool spans)
{
	int P = sap_nranks();
	int n = spec->ndds;
	bool *known = sap_xcalloc((size_t)n, sizeof *known);
	bool *span = sap_xcalloc((size_t)n, sizeof *span);
	bool any = false;
	for (int k = 0; k < n; k++) {
		const sap_dds *d = &spec->dds[k];
		/* What the slice itself reads must be current before it
		 * runs: those vectors are made whole. */
		known[k] = spec->reads && d->dv && d->recorded && !(d->mode & SAP_WRITE) &&
		           !d->slice_reads;
		/* A vector read only at the loop variable, in a run of
		 * iterations [a, b): those keys, not the whole vector; or
		 * only at its neighbours: [a + near_lo, b + near_hi); or
		 * written (and read) only at the loop variable, which the
		 * loop leaves where it ran (settle_chunks): r[i] -= c * X[i]
		 * over a loaded X sent the rank's share of r every call. */
		span[k] = !p && d->dv && (((d->by_index || ((d->near || d->ranged) && !d->dv->part_only)) &&
		                           !(d->mode & SAP_WRITE)) ||
		                          (d->at_own && !d->dv->part_only) ||
		                          (spans && (d->mode & SAP_WRITE) && !d->accumulate));
		known[k] |= span[k];
	}
	for (int k = 0; k < n; k++) {
		const sap_dds *d = &spec->dds[k];
		if (span[k] && d->ranged && d->dv->holder && P > 1 &&
		    !sap_ranged_fetch(spec, k, (int64_t[]){ a, b }, 1))
			span[k] = known[k] = false;
		any |= known[k] && d->dv->holder;
	}
	bool *pspan = plan_spans(st, spec, p, w0, threads, known);
	whole_if_same(st, spec, span, a, b);
	/* A vector held in parts keeps no holder map: the elements [a, b)
	 * of a span one come from the parts now (a sum of floats runs
	 * even chunks, not the parts: home_of in async.c). */
	for (int k = 0; k < n; k++)
		if (span[k] && spec->dds[k].dv->part_only && P > 1)
			sap_dv_part_span(spec->dds[k].dv, a, b);
	/* And a vector accumulated into where it is held: it is not read. */
	bool *skip = sap_xcalloc((size_t)n, sizeof *skip);
	for (int k = 0; k < n; k++)
		skip[k] = known[k] || pspan[k] || (spec->dds[k].accumulate && spec->dds[k].dv &&
		                                   sap_acc_in_place(spec->dds[k].dv));
	sap_whole_spec(spec, skip, &st->traffic);
	free(skip);
	free(pspan);
	if (!any) {
		free(known);
		free(span);
		return;
	}
	/* Each rank's own iterations [a, b) are in the key: when the bounds
	 * change, some ranks' may not (rank 0's [0, 19) of 39 and of 38),
	 * and every rank must take the collective below or none. */
	int valid = reads_valid(st, spec, key1, key2, a, b, known);
	if (P > 1)
		sap_comm_allreduce(&valid, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (valid < 0 && P > 1 && whole_read_much(st, spec, known)) {
		any = false;
		for (int k = 0; k < n; k++)
			any |= known[k] && spec->dds[k].dv->holder;
		if (!any) {
			free(known);
			free(span);
			return;
		}
	}
	if (valid <= 0) {
		sap_dist_free(&st->rdist);
		sap_dist *d = &st->rdist;
		key_maps(d, spec, known);
		int64_t W = d->words;
		uint64_t *mine = sap_xcalloc((size_t)W, sizeof *mine);
		uint64_t **bits = sap_xcalloc((size_t)n, sizeof *bits);
		for (int k = 0; k < n; k++)
			bits[k] = d->base[k + 1] > d->base[k] ? mine + d->base[k] : NULL;
		/* A vector read at the loop variable that the slice reads too
		 * (A in w[A[i]]): its elements [a, b) come first, else the slice
		 * would take the keys from stale copies where this rank's
		 * iterations are not the elements it holds (a loop over part
		 * of a loaded vector, or over one a planned loop scattered). */
		bool *first = sap_xcalloc((size_t)n, sizeof *first);
		for (int k = 0; k < n; k++)
			first[k] = span[k] && spec->dds[k].slice_reads && spec->reads;
		fetch_span(st, spec, first, a, b);
		free(first);
		read_marks m = { spec, bits, 0 };
		sap_rec r = { .log = mark_read, .logbuf = &m };
		r.mask = &r.sink;
		int over = 0;
		if (p) {
			int T = p->nworkers;
			for (int64_t q = 0; q < p->nrounds; q++)
				for (int w = w0; w < w0 + threads; w++)
					for (int64_t k = p->ro[q * T + w]; k < p->ro[q * T + w + 1]; k++) {
						int64_t g = p->rg[k];
						spec->reads(env, p->order, p->goff[g], p->goff[g + 1], &r);
					}
		} else if (a < b && spec->reads) {
			over = slice_over(spec, env, a, b, &r, &m, known, span);
		}
		if (P > 1)
			sap_comm_allreduce(&over, 1, SAP_COMM_INT, SAP_COMM_MAX);
		if (over)
			whole_recorded(st, spec, known, span, bits, d);
		mark_span(spec, span, bits, a, b, spans);
		d->need = sap_xmalloc((size_t)P * (size_t)W * sizeof *d->need);
		sap_comm_allgather(mine, d->need, (int64_t)W, sizeof *mine);
		free(mine);
		free(bits);
		if (over)
			st->rd_ndds = -1;
		else
			reads_remember(st, spec, key1, key2, a, b, known);
	}
	for (int k = 0; k < n; k++)
		known[k] &= !span[k] || spec->dds[k].ranged;
	whole_if_refetched(st, spec, known);
	sap_dist_fetch(&st->rdist, spec, &st->traffic);
	mark_refetched(&st->rdist, spec, valid > 0);
	free(known);
	free(span);
}

/* Names the iterations of sap_reads_fetch_runs in the cache (key1). */
static const char runs_key;

void sap_reads_fetch_runs(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                          const bool *which, const int64_t *ab, int64_t nruns)
{
	int P = sap_nranks(), n = spec->ndds;
	uint64_t h = sap_dm_mix((uint64_t)nruns);
	for (int64_t r = 0; r < 2 * nruns; r++)
		h = sap_dm_mix(h ^ (uint64_t)ab[r]);
	int64_t a = nruns ? ab[0] : 0, b = nruns ? ab[2 * nruns - 1] : 0;
	int valid = reads_valid(st, spec, &runs_key, (int64_t)h, a, b, which);
	if (P > 1)
		sap_comm_allreduce(&valid, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (valid < 0 && P > 1 && whole_read_much(st, spec, which)) {
		bool any = false;
		for (int k = 0; k < n; k++)
			any |= which[k] && spec->dds[k].dv->holder;
		if (!any)
			return;
	}
	if (valid <= 0) {
		sap_dist_free(&st->rdist);
		sap_dist *d = &st->rdist;
		key_maps(d, spec, which);
		int64_t W = d->words;
		uint64_t *mine = sap_xcalloc((size_t)W + 1, sizeof *mine);
		uint64_t **bits = sap_xcalloc((size_t)n, sizeof *bits);
		for (int k = 0; k < n; k++)
			bits[k] = d->base[k + 1] > d->base[k] ? mine + d->base[k] : NULL;
		read_marks m = { spec, bits, 0 };
		sap_rec r = { .log = mark_read, .logbuf = &m };
		r.mask = &r.sink;
		for (int64_t u = 0; u < nruns; u++)
			if (ab[2 * u] < ab[2 * u + 1])
				spec->reads(env, NULL, ab[2 * u], ab[2 * u + 1], &r);
		d->need = sap_xmalloc((size_t)P * (size_t)W * sizeof *d->need + 1);
		sap_comm_allgather(mine, d->need, (int64_t)W, sizeof *mine);
		free(mine);
		free(bits);
		reads_remember(st, spec, &runs_key, (int64_t)h, a, b, which);
	}
	whole_if_refetched(st, spec, which);
	sap_dist_fetch(&st->rdist, spec, &st->traffic);
	mark_refetched(&st->rdist, spec, valid > 0);
}

/* ---- inputs of planned loops read at the loop variable ---- */

bool sap_index_inputs(const sap_async_spec *spec, int64_t lo, int64_t hi, bool *which)
{
	bool any = false;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		which[k] = d->dv && d->by_index && !(d->mode & SAP_WRITE) && !d->accumulate &&
		           d->dv->holder && lo >= 0 && hi <= d->dv->n;
		any |= which[k];
	}
	return any;
}

/* Such a vector made whole would move all of it to every rank (the lists
 * of a sparse matrix's columns, say), where the iterations a rank runs
 * need only their own elements, which the plan mostly puts where they are
 * held.  What a rank fetches goes again at the end of the invocation
 * (sap_dv_trim), so the plan's are fetched every invocation; which they
 * are is kept with the plan. */
static void index_need(struct sap_loop_state *st, sap_dist *d, const sap_async_spec *spec,
                       const bool *which, const sap_plan *p, int64_t a, int64_t b, bool *whole)
{
	int n = spec->ndds, P = sap_nranks(), me = sap_rank();
	sap_dist_free(d);
	key_maps(d, spec, which);
	uint64_t *mine = sap_xcalloc((size_t)d->words, sizeof *mine);
	int64_t *far = sap_xcalloc((size_t)n, sizeof *far);
	for (int k = 0; k < n; k++) {
		if (!which[k])
			continue;
		uint64_t *bits = mine + d->base[k];
		for (int64_t i = a; !p && i < b; i++)
			bits[(uint64_t)i / 64] |= (uint64_t)1 << ((uint64_t)i % 64);
		for (int64_t g = 0; p && g < p->ngroups; g++)
			for (int64_t q = p->goff[g]; p->mine[g] == me && q < p->goff[g + 1]; q++) {
				uint64_t i = (uint64_t)p->order[q];
				bits[i / 64] |= (uint64_t)1 << (i % 64);
			}
		const sap_dvec *v = spec->dds[k].dv;
		for (int64_t w = d->base[k]; w < d->base[k + 1]; w++)
			for (uint64_t x = mine[w]; x; x &= x - 1) {
				uint16_t h = sap_hold_get(v, (w - d->base[k]) * 64 + __builtin_ctzll(x));
				far[k] += h != me && h != SAP_HOLD_ALL;
			}
	}
	/* Fetched elements go at the end of the invocation, so they come
	 * again in every one; a vector of which some rank needs more than a
	 * sixteenth from others (the tokens of a plan that runs documents
	 * and words in turn) is made whole once instead, and then costs
	 * nothing more until it changes.  Every rank decides the same. */
	sap_comm_allreduce(far, n, SAP_COMM_I64, SAP_COMM_MAX);
	for (int k = 0; k < n; k++) {
		sap_dvec *v = spec->dds[k].dv;
		if (!which[k] || far[k] * 16 <= v->n)
			continue;
		sap_dv_whole(v, &st->traffic);
		if (whole)
			whole[k] = true;
		memset(mine + d->base[k], 0, (size_t)(d->base[k + 1] - d->base[k]) * sizeof *mine);
	}
	free(far);
	d->need = sap_xmalloc((size_t)P * (size_t)d->words * sizeof *d->need);
	sap_comm_allgather(mine, d->need, d->words, sizeof *mine);
	free(mine);
}

void sap_index_fetch(struct sap_loop_state *st, const sap_async_spec *spec, const bool *which_in,
                     const sap_plan *p, int64_t a, int64_t b)
{
	/* Planning may have made some whole since (a key-level plan slices
	 * every iteration on every rank). */
	bool *which = sap_xcalloc((size_t)spec->ndds, sizeof *which), any = false;
	for (int k = 0; k < spec->ndds; k++)
		any |= which[k] = which_in[k] && spec->dds[k].dv->holder;
	if (!any) {
		free(which);
		return;
	}
	double t0 = sap_now();
	if (!p) {
		sap_dist d = { 0 };
		index_need(st, &d, spec, which, NULL, a, b, NULL);
		sap_dist_fetch(&d, spec, &st->traffic);
		sap_dist_free(&d);
	} else {
		/* The need is the plan's, for these vectors. */
		bool same = st->idist.need && st->id_builds == st->plan_no && st->id_which;
		for (int k = 0; same && k < spec->ndds; k++)
			same = st->id_which[k] == which[k];
		if (!same) {
			free(st->id_whole);
			st->id_whole = sap_xcalloc((size_t)spec->ndds, sizeof *st->id_whole);
			index_need(st, &st->idist, spec, which, p, 0, 0, st->id_whole);
			free(st->id_which);
			st->id_which = sap_xmalloc((size_t)spec->ndds * sizeof *which);
			memcpy(st->id_which, which, (size_t)spec->ndds * sizeof *which);
		} else {
			/* One made whole rather than fetched has its need left out
			 * of idist; a loop that wrote it since left its elements
			 * with their writers (holder map again), so it is made
			 * whole again, or this plan would read stale copies. */
			for (int k = 0; k < spec->ndds; k++)
				if (which[k] && st->id_whole[k])
					sap_dv_whole(spec->dds[k].dv, &st->traffic);
		}
		st->id_builds = st->plan_no;
		sap_dist_fetch(&st->idist, spec, &st->traffic);
	}
	st->fetch_s += sap_now() - t0;
	free(which);
}

/* ---- driver code and save ---- */

/* Past this many single elements, driver code is likely walking the
 * vector: one exchange of everything costs less than a broadcast each. */
enum { FETCH_ONE_MAX = 64 };

void sap_dv_fetch_one(sap_dvec *v, int64_t i)
{
	if (++v->fetched > FETCH_ONE_MAX) {
		sap_dv_whole(v, NULL);
		return;
	}
	int h = sap_hold_get(v, i), P = sap_nranks();
	int64_t len = 0;
	if (sap_rank() == h)
		len = (int64_t)sap_dv_put(v, i, NULL);
	if (v->codec)
		sap_comm_bcast(&len, 1, sizeof len, h);
	else
		len = (int64_t)v->elsize;
	char *buf = sap_xmalloc((size_t)len);
	if (sap_rank() == h)
		sap_dv_put(v, i, buf);
	sap_comm_bcast(buf, len, 1, h);
	if (sap_rank() != h)
		sap_dv_take(v, i, buf);
	free(buf);
	sap_hold_set(v, i, SAP_HOLD_ALL);
	sap_dv_recount(v);
	if (sap_rank() == h)
		moved_sent += len * (P - 1);
	else
		moved_recv += len;
}

/* Which rank's part (sap_dv_part) holds key k, walking up from rank *r. */
static int part_of(const sap_dvec *v, int64_t k, int *r, int64_t *hi)
{
	while (k >= *hi) {
		int64_t lo;
		sap_dv_part(v, ++*r, &lo, hi);
	}
	return *r;
}

static bool in_part(const sap_dvec *v, int64_t k0, int64_t k1, void *arg)
{
	const int64_t *part = arg;
	if (k0 < part[1] && part[0] < k1)
		return true;
	for (int64_t k = k0; k < k1;) {
		uint16_t h;
		k = sap_hold_run(v, k, k1, &h);
		if (h == SAP_HOLD_ALL)
			return true;
	}
	return false;
}

void sap_dv_own_parts(sap_dvec *v)
{
	if (!v->holder)
		return;
	int P = sap_nranks(), me = sap_rank();
	int64_t *sn = sap_xcalloc((size_t)P, sizeof *sn);
	int64_t lo, hi;
	sap_dv_part(v, 0, &lo, &hi);
	int d = 0;
	for (int64_t k = 0; k < v->n; k++) {
		part_of(v, k, &d, &hi);
		if (sap_hold_get(v, k) == me && d != me)
			sn[d] += (int64_t)sap_dv_put(v, k, NULL);
	}
	int64_t sent = 0;
	for (int q = 0; q < P; q++)
		sent += sn[q];
	char *out = sap_xmalloc((size_t)sent);
	char **to = sap_xmalloc((size_t)P * sizeof *to);
	for (int q = 0; q < P; q++)
		to[q] = q ? to[q - 1] + sn[q - 1] : out;
	sap_dv_part(v, 0, &lo, &hi);
	d = 0;
	for (int64_t k = 0; k < v->n; k++) {
		part_of(v, k, &d, &hi);
		if (sap_hold_get(v, k) == me && d != me)
			to[d] += sap_dv_put(v, k, to[d]);
	}
	int64_t *rcnt = sap_xmalloc((size_t)P * sizeof *rcnt);
	int64_t *rdis = sap_xmalloc((size_t)(P + 1) * sizeof *rdis);
	char *in = sap_comm_exchange(out, sn, rcnt, rdis);
	int64_t got = rdis[P];
	/* What went is no longer needed here, before what came takes room. */
	sap_dv_recount(v);
	sap_dv_part(v, me, &lo, &hi);
	int64_t mine[2] = { lo, hi };
	sap_dv_release(v, in_part, mine);
	const char **at = sap_xmalloc((size_t)P * sizeof *at);
	for (int q = 0; q < P; q++)
		at[q] = in + rdis[q];
	sap_dv_part(v, 0, &lo, &hi);
	d = 0;
	for (int64_t k = 0; k < v->n; k++) {
		part_of(v, k, &d, &hi);
		uint16_t hk = sap_hold_get(v, k);
		if (hk == SAP_HOLD_ALL || hk == d)
			continue;
		if (d == me)
			at[hk] = sap_dv_take(v, k, at[hk]);
		sap_hold_set(v, k, (uint16_t)d);
	}
	sap_hold_tidy(v);
	moved_sent += sent;
	moved_recv += got;
	free(at);
	free(to);
	free(out);
	free(in);
	free(rcnt);
	free(rdis);
	free(sn);
	sap_dv_trim(v);
}

/* ---- initializers ---- */

void sap_dv_fill_range(sap_dvec *v, int64_t *lo, int64_t *hi)
{
	*lo = 0;
	*hi = v->n;
	if (!v->sparse)
		return;
	sap_hold_map(v);
	for (int r = 0; r < sap_nranks(); r++) {
		int64_t a, b;
		sap_dv_part(v, r, &a, &b);
		sap_hold_range(v, a, b, (uint16_t)r);
	}
	sap_dv_part(v, sap_rank(), lo, hi);
}

void sap_dv_fill(sap_dvec *v, const void *elem)
{
	int64_t lo, hi;
	sap_dv_fill_range(v, &lo, &hi);
	for (int64_t k = lo; k < hi; k++)
		memcpy(v->data + (size_t)k * v->elsize, elem, v->elsize);
	sap_dv_recount(v);
}
