/* mapparts.c: dmaps and dmultimaps over several ranks.
 *
 * A map is whole on every rank while driver code and loops that run on
 * every rank build and use it: each rank runs the same inserts in the
 * same order.  A loop over a map's keys that writes maps only at its
 * key runs each key on the rank that holds it; before it runs, each map
 * it touches there is parted: every rank keeps only the keys sap_dm_owner
 * gives it, and nothing is sent, since every rank had them all.  A parted
 * map takes about 1/P of the memory on each rank, and stays parted
 * through further such loops and their keys().  A loop's accumulated
 * sums of a map, where many, go to their keys' owners, which add them to
 * the map parted (sap_dm_owner_sums, sap_acc_merge).
 *
 * Driver code reading a key of a parted map asks the key's owner, by a
 * broadcast.  Anything else (an insert, an erase, iterating, a loop that
 * runs on every rank, sync for) first makes the map whole again: every
 * rank gets every entry, in the order the entries were first inserted
 * (each keeps its number), so that iteration order, and so results, do
 * not depend on P.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* The parted maps, to make whole before code that may touch any. */
static sap_ptrs parted;

int sap_dm_key_worker(const sap_dmap *m, const void *key, int W)
{
	/* Bits the index leaves alone (its slots take the low bits, its tags
	 * the top 24), mixed and cut in W ranges: rank r's keys are those
	 * of the workers r * T .. r * T + T - 1 of W = P x T, whatever T. */
	uint32_t g = (uint32_t)(sap_dm_hash(m, key) >> 32) * 0x9e3779b1u;
	return (int)(((uint64_t)g * (uint64_t)W) >> 32);
}

int sap_dm_owner(const sap_dmap *m, const void *key)
{
	return sap_dm_key_worker(m, key, sap_nranks());
}

static bool owned(const sap_dmap *m, const void *key, void *arg)
{
	(void)arg;
	return sap_dm_owner(m, key) == sap_rank();
}

bool sap_dm_part(sap_dmap *m)
{
	if (m->parted)
		return true;
	/* Values holding strings or lists could not be sent back. */
	if (sap_nranks() == 1 || m->drop || m->refs)
		return false;
	m->total = m->live;
	sap_dm_keep(m, owned, NULL);
	m->parted = true;
	sap_dm_forget_asked(m);
	sap_ptrs_add(&parted, m);
	return true;
}

void sap_dm_set_parted(sap_dmap *m, int64_t total)
{
	m->total = total;
	m->parted = true;
	sap_dm_forget_asked(m);
	sap_ptrs_add(&parted, m);
}

void sap_dm_unpart(sap_dmap *m)
{
	m->parted = false;
	sap_ptrs_del(&parted, m);
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* A key as bytes that mean the same on every rank: an integer as an
 * int64_t; a string as its length, then its bytes, to 8. */
static size_t key_bytes(sap_keykind kk, const void *key)
{
	return kk == SAP_K_STRING ? 8 + pad8(strlen(sap_str_c(*(const sap_str *)key))) : 8;
}

static char *put_key(char *p, sap_keykind kk, const void *key)
{
	int64_t x;
	if (kk == SAP_K_STRING) {
		const char *s = sap_str_c(*(const sap_str *)key);
		x = (int64_t)strlen(s);
		memcpy(p, &x, 8);
		memset(p + 8, 0, pad8((size_t)x));
		memcpy(p + 8, s, (size_t)x);
		return p + 8 + pad8((size_t)x);
	}
	x = kk == SAP_K_INT ? *(const int32_t *)key : *(const int64_t *)key;
	memcpy(p, &x, 8);
	return p + 8;
}

/* Strings received from other ranks, each once.  Strings live as long as
 * the program, so a copy for each key received grew a loop over a parted
 * map's keys, or one accumulating into a fresh map, by every key's bytes
 * each run; the same key received again is the same string.  Collectives
 * run on the main thread only. */
static struct {
	sap_str *v;
	uint64_t cap, n;        /* cap a power of two, or 0 */
} interned;

static uint64_t bytes_hash(const char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
	return h ^ (h >> 29);
}

static sap_str intern(const char *p, size_t n)
{
	if (2 * (interned.n + 1) > interned.cap) {
		uint64_t cap = interned.cap ? 2 * interned.cap : 1024;
		sap_str *v = sap_xcalloc(cap, sizeof *v);
		for (uint64_t i = 0; i < interned.cap; i++) {
			sap_str s = interned.v[i];
			if (!s)
				continue;
			uint64_t j = bytes_hash(s, strlen(s)) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = s;
		}
		free(interned.v);
		interned.v = v;
		interned.cap = cap;
	}
	uint64_t j = bytes_hash(p, n) & (interned.cap - 1);
	for (sap_str s; (s = interned.v[j]); j = (j + 1) & (interned.cap - 1))
		if (!strncmp(s, p, n) && !s[n])
			return s;
	interned.n++;
	return interned.v[j] = sap_str_dup(p, n);
}

/* The key at p into *key (its type's bytes; a string, interned); returns
 * what follows it. */
static const char *get_key(const char *p, sap_keykind kk, void *key)
{
	int64_t x;
	memcpy(&x, p, 8);
	if (kk == SAP_K_STRING) {
		sap_str s = intern(p + 8, (size_t)x);
		memcpy(key, &s, sizeof s);
		return p + 8 + pad8((size_t)x);
	}
	if (kk == SAP_K_INT) {
		int32_t i = (int32_t)x;
		memcpy(key, &i, sizeof i);
	} else {
		memcpy(key, &x, sizeof x);
	}
	return p + 8;
}

/* Every rank's bytes [out, out + n), in rank order, into a new buffer;
 * *total gets its size. */
static char *pool(const char *out, int64_t n, int64_t *total)
{
	int P = sap_nranks();
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	*total = sap_comm_counts(n, cnt, dis);
	char *in = sap_xmalloc((size_t)*total);
	sap_comm_allgatherv(out, n, in, cnt, dis, 1);
	sap_moved_add(n * (P - 1), *total - n);
	free(cnt);
	free(dis);
	return in;
}

typedef struct rec {
	int64_t seq;
	const char *at;         /* the key, then the value */
} rec;

static int by_seq(const void *a, const void *b)
{
	int64_t x = ((const rec *)a)->seq, y = ((const rec *)b)->seq;
	return (x > y) - (x < y);
}

void sap_dm_whole(sap_dmap *m)
{
	if (!m->parted)
		return;
	double t0 = sap_now();
	size_t vs = pad8(m->valsize);
	size_t bytes = 0;
	int64_t pos = 0, seq;
	const void *key;
	void *val;
	while (sap_dm_entry(m, &pos, &key, &val, &seq))
		bytes += 8 + key_bytes(m->kk, key) + vs;
	char *out = sap_xcalloc(bytes ? bytes : 1, 1), *p = out;
	pos = 0;
	while (sap_dm_entry(m, &pos, &key, &val, &seq)) {
		memcpy(p, &seq, 8);
		p = put_key(p + 8, m->kk, key);
		memcpy(p, val, m->valsize);
		p += vs;
	}
	int64_t total;
	char *in = pool(out, (int64_t)bytes, &total);
	free(out);
	rec *r = sap_xmalloc((size_t)m->total * sizeof *r);
	int64_t n = 0;
	for (const char *q = in; q < in + total; n++) {
		if (n == m->total)
			sap_fatal(NULL, "map '%s': more entries on the ranks than it had", m->name);
		memcpy(&r[n].seq, q, 8);
		r[n].at = q + 8;
		int64_t len;
		memcpy(&len, q + 8, 8);
		q += 8 + (m->kk == SAP_K_STRING ? 8 + pad8((size_t)len) : 8) + vs;
	}
	if (n > 1)
		qsort(r, (size_t)n, sizeof *r, by_seq);
	sap_dm_clear(m);
	for (int64_t k = 0; k < n; k++) {
		union { int32_t i; int64_t l; sap_str s; } kb;
		const char *v = get_key(r[k].at, m->kk, &kb);
		memcpy(sap_dm_put(m, &kb, r[k].seq), v, m->valsize);
	}
	free(r);
	free(in);
	sap_dm_unpart(m);
	m->whole_s = sap_now() - t0;
}

void sap_dm_whole_all(void)
{
	while (parted.n)
		sap_dm_whole(parted.v[parted.n - 1]);
}

/* Past this many keys, driver code is likely walking the map: one
 * exchange of everything costs less than a broadcast each. */
enum { ASK_MAX = 64 };

void sap_dm_forget_asked(sap_dmap *m)
{
	if (m->asked)
		for (uint32_t i = 0; i < m->fetched && i < ASK_MAX; i++)
			free(m->asked[i]);
	free(m->asked);
	m->asked = NULL;
	m->fetched = 0;
}

/* Every ask has a buffer of its own, on the owner too, kept until the map
 * is parted again: one expression may hold several values at once
 * (dot(a[1], a[2]) had both point at one buffer, the second's value),
 * and the ask that makes the map whole must not take the others' values
 * away with the entries they pointed into. */
int64_t sap_dm_ask(sap_dmap *m, const void *key, void **val)
{
	if (m->fetched >= ASK_MAX) {
		sap_dm_whole(m);
		return sap_dm_here(m, key, val);
	}
	int o = sap_dm_owner(m, key), me = sap_rank();
	size_t vs = pad8(m->valsize);
	if (!m->asked)
		m->asked = sap_xcalloc(ASK_MAX, sizeof *m->asked);
	char *buf = m->asked[m->fetched++] = sap_xcalloc(1, 8 + vs);
	int64_t n = 0;
	if (me == o) {
		void *here = NULL;
		n = sap_dm_here(m, key, &here);
		memcpy(buf, &n, 8);
		if (here)
			memcpy(buf + 8, here, m->valsize);
	}
	sap_comm_bcast(buf, (int64_t)(8 + vs), 1, o);
	memcpy(&n, buf, 8);
	if (me == o)
		sap_moved_add((int64_t)(8 + vs) * (sap_nranks() - 1), 0);
	else
		sap_moved_add(0, (int64_t)(8 + vs));
	*val = n ? buf + 8 : NULL;
	return n;
}

bool sap_dm_spread(sap_dmap *m, sap_dmap *b)
{
	if (sap_nranks() == 1 || !(m->parted || (b && b->parted)))
		return false;
	if (sap_dm_part(m) && (!b || sap_dm_part(b)))
		return true;
	sap_dm_whole(m);
	if (b)
		sap_dm_whole(b);
	return false;
}

char *sap_dm_pool_keys(sap_keykind kk, char *keys, int64_t *n)
{
	size_t ks = kk == SAP_K_INT ? sizeof(int32_t) : kk == SAP_K_LONG ? sizeof(int64_t) :
	            sizeof(sap_str);
	size_t bytes = 0;
	for (int64_t i = 0; i < *n; i++)
		bytes += key_bytes(kk, keys + (size_t)i * ks);
	char *out = sap_xcalloc(bytes ? bytes : 1, 1), *p = out;
	for (int64_t i = 0; i < *n; i++)
		p = put_key(p, kk, keys + (size_t)i * ks);
	free(keys);
	int64_t total, count = 0;
	char *in = pool(out, (int64_t)bytes, &total);
	free(out);
	for (const char *q = in; q < in + total; count++) {
		int64_t len;
		memcpy(&len, q, 8);
		q += kk == SAP_K_STRING ? 8 + pad8((size_t)len) : 8;
	}
	char *all = sap_xmalloc((size_t)count * ks);
	const char *q = in;
	for (int64_t i = 0; i < count; i++)
		q = get_key(q, kk, all + (size_t)i * ks);
	free(in);
	*n = count;
	return all;
}

static char *pack_one(const sap_dmap *m, char *p, const void *key, const void *val,
                      size_t *bytes, int64_t *n)
{
	size_t vs = pad8(m->valsize);
	*bytes += key_bytes(m->kk, key) + vs;
	++*n;
	if (p) {
		p = put_key(p, m->kk, key);
		memset(p, 0, vs);
		memcpy(p, val, m->valsize);
		p += vs;
	}
	return p;
}

size_t sap_dm_pack(const sap_dmap *m, char *out)
{
	size_t bytes = 8;
	int64_t pos = 0, seq, n = 0;
	const void *key;
	void *val;
	char *p = out ? out + 8 : NULL;
	/* An accumulate buffer's sums of its target's keys, where any and
	 * not every rank's already. */
	for (int64_t i = 0; m->shadow && !m->dense_all && i < m->shadow->nents; i++) {
		const char *v = m->dense + (size_t)i * m->valsize;
		if ((key = sap_dm_key_at(m->shadow, i)) && !sap_nt_is_identity(m->num, v))
			p = pack_one(m, p, key, v, &bytes, &n);
	}
	while (sap_dm_entry(m, &pos, &key, &val, &seq))
		p = pack_one(m, p, key, val, &bytes, &n);
	if (out)
		memcpy(out, &n, 8);
	return bytes;
}

const char *sap_dm_unpack(sap_dmap *m, const char *in)
{
	int64_t n;
	memcpy(&n, in, 8);
	in += 8;
	for (int64_t i = 0; i < n; i++) {
		union { int32_t i; int64_t l; sap_str s; } kb;
		in = get_key(in, m->kk, &kb);
		/* A buffer that shadows a map takes the sums of that map's
		 * keys into its array. */
		memcpy(m->shadow ? sap_dm_upsert(m, &kb) : sap_dm_put(m, &kb, ++m->seq), in, m->valsize);
		in += pad8(m->valsize);
	}
	return in;
}

/* ---- accumulate sums where their keys are held ---- */

bool sap_dm_owner_sums(sap_dmap *const *bufs, int T, bool can, sap_dmap *total, int64_t min,
                       int64_t *sent, int64_t *received)
{
	int P = sap_nranks(), me = sap_rank();
	const sap_dmap *b0 = bufs[0];
	/* Every worker's entries, each rank's T after a count of -1 where it
	 * cannot go this way: where each worker's numbers start. */
	int64_t *mine = sap_xmalloc((size_t)(T + 1) * sizeof *mine);
	int64_t *all = sap_xmalloc((size_t)P * (size_t)(T + 1) * sizeof *all);
	mine[0] = can ? 0 : -1;
	for (int w = 0; w < T; w++) {
		mine[w + 1] = bufs[w]->live;
		if (bufs[w]->shadow || bufs[w]->owned)
			mine[0] = -1;
	}
	sap_comm_allgather(mine, all, T + 1, sizeof *mine);
	free(mine);
	int64_t span = 0, *start = sap_xmalloc((size_t)T * sizeof *start);
	bool ok = true;
	for (int q = 0; q < P; q++) {
		ok = ok && all[(size_t)q * (T + 1)] == 0;
		for (int w = 0; w < T; w++) {
			if (q == me)
				start[w] = span;
			span += all[(size_t)q * (T + 1) + 1 + w];
		}
	}
	free(all);
	if (!ok || span < min) {
		free(start);
		return false;
	}
	/* Each entry's owner, then records for each rank: the entry's
	 * number, its key, its value. */
	size_t vs = pad8(b0->valsize);
	int64_t n = 0;
	for (int w = 0; w < T; w++)
		n += bufs[w]->live;
	int *own = sap_xmalloc((size_t)(n ? n : 1) * sizeof *own);
	int64_t *scnt = sap_xcalloc((size_t)P, sizeof *scnt), *sdis = sap_xmalloc((size_t)P * sizeof *sdis);
	int64_t i = 0, pos, seq;
	const void *key;
	void *val;
	for (int w = 0; w < T; w++)
		for (pos = 0; sap_dm_entry(bufs[w], &pos, &key, &val, &seq); i++) {
			own[i] = sap_dm_owner(b0, key);
			scnt[own[i]] += 8 + (int64_t)key_bytes(b0->kk, key) + (int64_t)vs;
		}
	int64_t out_n = 0;
	for (int q = 0; q < P; q++) {
		sdis[q] = out_n;
		out_n += scnt[q];
	}
	char *out = sap_xmalloc((size_t)(out_n ? out_n : 1));
	int64_t *at = sap_xmalloc((size_t)P * sizeof *at);
	memcpy(at, sdis, (size_t)P * sizeof *at);
	i = 0;
	for (int w = 0; w < T; w++) {
		int64_t j = 0;
		for (pos = 0; sap_dm_entry(bufs[w], &pos, &key, &val, &seq); i++, j++) {
			char *p = out + at[own[i]];
			int64_t num = start[w] + j;
			memcpy(p, &num, 8);
			p = put_key(p + 8, b0->kk, key);
			memset(p, 0, vs);
			memcpy(p, val, b0->valsize);
			at[own[i]] = p + vs - out;
		}
	}
	free(own);
	free(at);
	free(start);
	int64_t *rcnt = sap_xmalloc((size_t)P * sizeof *rcnt), *rdis = sap_xmalloc((size_t)P * sizeof *rdis);
	sap_comm_alltoall(scnt, rcnt, 1, sizeof *scnt);
	int64_t in_n = 0;
	for (int q = 0; q < P; q++) {
		rdis[q] = in_n;
		in_n += rcnt[q];
	}
	char *in = sap_xmalloc((size_t)(in_n ? in_n : 1));
	sap_comm_alltoallv(out, scnt, sdis, in, rcnt, rdis, 1);
	*sent = out_n - scnt[me];
	*received = in_n - rcnt[me];
	free(out);
	free(scnt);
	free(sdis);
	free(rcnt);
	free(rdis);
	/* Rank by rank, worker by worker: the chain's order of adding. */
	sap_dm_create_buffer(total, b0->name, b0->kk, b0->valsize, b0->num);
	for (const char *p = in; p < in + in_n;) {
		int64_t num;
		memcpy(&num, p, 8);
		union { int32_t i; int64_t l; sap_str s; } kb;
		p = get_key(p + 8, b0->kk, &kb);
		void *v;
		if (!sap_dm_here(total, &kb, &v))
			v = sap_dm_put(total, &kb, num + 1);
		sap_sc_add(b0->num, v, p, 1);
		p += vs;
	}
	free(in);
	total->owned = true;
	total->span = span;
	for (int w = 0; w < T; w++)
		sap_dm_clear(bufs[w]);
	return true;
}

void sap_dm_recount(sap_dmap *m)
{
	int64_t n = m->live;
	sap_comm_allreduce(&n, 1, SAP_COMM_I64, SAP_COMM_SUM);
	m->total = n;
}
