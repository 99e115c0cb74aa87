/* dmap.c: hash maps and multimaps iterated in insertion order.
 *
 * Entries live in one array in insertion order, which is the iteration
 * order.  An open-addressing index (linear probing) maps each live key to
 * its first entry; a slot also holds the top bits of the key's hash, so
 * probing past other keys touches no entry.  In a multimap the entries of
 * one key form a chain through `next`, in insertion order, and the first
 * one knows the last so that adding is O(1).  Erasing marks entries dead
 * and leaves them in place, so erasing never moves values; dead entries
 * are squeezed out when the array is full, and the index is rebuilt then
 * or when it fills up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

typedef struct ent {
	union {
		int32_t i;
		int64_t l;
		sap_str s;
	} key;
	uint64_t live;          /* 8 bytes keeps the value 8-aligned */
} ent;

/* Only multimap entries carry this, right after the ent. */
typedef struct chain {
	int64_t next;           /* next entry of the same key, or -1 */
	int64_t last;           /* in the first entry of a key: its last one */
	int64_t n;              /* in the first entry: the key's values; else 0 */
	int64_t g;              /* in the first entry, while grouped: where its
	                           values start in gval */
} chain;

/* An index slot's s: 0 when empty, TOMB when its key was erased,
 * otherwise the entry index + 1 in the low IDX_BITS and the hash's top
 * bits (its tag) above; its k the key, or of a string the string or its
 * hash (slot_key; sap.h reads them too: sap_dm_hit). */
#define IDX_BITS SAP_DM_IDX_BITS
#define IDX_MASK SAP_DM_IDX_MASK
#define TAG_MASK (~IDX_MASK)
#define EMPTY ((uint64_t)0)
#define TOMB ((uint64_t)1 << IDX_BITS)

static inline bool is_ent(uint64_t slot) { return (slot & IDX_MASK) != 0; }
static inline int64_t ent_of(uint64_t slot) { return (int64_t)(slot & IDX_MASK) - 1; }

static inline ent *E(const sap_dmap *m, int64_t i)
{
	return (ent *)(m->ents + (size_t)i * m->entsize);
}

static inline chain *C(const sap_dmap *m, int64_t i)
{
	return (chain *)(m->ents + (size_t)i * m->entsize + sizeof(ent));
}

static inline void *V(const sap_dmap *m, int64_t i)
{
	return m->vals + (size_t)i * m->vstride;
}

/* Entry j takes entry i's place (i > j). */
static void move_ent(sap_dmap *m, int64_t j, int64_t i)
{
	memcpy(E(m, j), E(m, i), m->entsize);
	memcpy(V(m, j), V(m, i), m->vstride);
}

/* The entries' and values' arrays for cap entries. */
static void resize(sap_dmap *m, int64_t cap)
{
	size_t eb, vb;
	if (cap > (int64_t)IDX_MASK - 1 || __builtin_mul_overflow((uint64_t)cap, m->entsize, &eb) ||
	    __builtin_mul_overflow((uint64_t)cap, m->vstride, &vb))
		sap_fatal(NULL, "out of memory");
	m->ents = sap_xrealloc(m->ents, eb);
	m->vals = sap_xrealloc(m->vals, vb ? vb : 1);
	m->capents = cap;
}

/* The hash of a key; of a string (len not NULL), also its length up to 9
 * (9: longer than 8). */
static uint64_t hash_len(const sap_dmap *m, const void *key, uint64_t *len)
{
	uint64_t x;
	switch (m->kk) {
	case SAP_K_INT:
		x = (uint64_t)(int64_t)*(const int32_t *)key;
		break;
	case SAP_K_LONG:
		x = (uint64_t)*(const int64_t *)key;
		break;
	default: {
		/* FNV-1a 64 over the bytes, then the mix. */
		/* A string never assigned is NULL, and means "". */
		x = 14695981039346656037u;
		const unsigned char *s = (const unsigned char *)sap_str_c(*(const sap_str *)key), *p;
		for (p = s; *p; p++)
			x = (x ^ *p) * 1099511628211u;
		*len = p - s > 8 ? 9 : (uint64_t)(p - s);
		break;
	}
	}
	return sap_dm_ihash(x);
}

/* A string's hash for the index, 8 bytes at a time: FNV's loop over its
 * bytes, one multiply after another, was a sixth of a PageRank's over
 * names (hash_len keeps it, for what the ranks agree on). */
static uint64_t str_index_hash(const char *s, size_t n)
{
	uint64_t h = 0x243f6a8885a308d3u ^ (uint64_t)n, w = 0;
	/* The tail in loads of fixed size, overlapping (the length is in
	 * h): a copy of n bytes was a call's worth of work for a word. */
	if (n >= 8) {
		const char *end = s + n;
		for (; n > 8; s += 8, n -= 8) {
			memcpy(&w, s, 8);
			h = (h ^ w) * 0xbf58476d1ce4e5b9u;
			h ^= h >> 31;
		}
		memcpy(&w, end - 8, 8);
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		w = (uint64_t)a << 32 | b;
	} else if (n) {
		w = (uint64_t)(unsigned char)s[0] << 16 | (uint64_t)(unsigned char)s[n >> 1] << 8 |
		    (unsigned char)s[n - 1];
	}
	h = (h ^ w) * 0x94d049bb133111ebu;
	return h ^ (h >> 29);
}

/* The index's hash of a key: a string's length up to 9 in its top 4
 * bits, which a slot's tag keeps (slot_key). */
static uint64_t hash_key(const sap_dmap *m, const void *key)
{
	if (m->kk != SAP_K_STRING) {
		uint64_t len;
		return hash_len(m, key, &len);
	}
	const char *s = sap_str_c(*(const sap_str *)key);
	size_t n = strlen(s);
	uint64_t h = sap_dm_ihash(str_index_hash(s, n));
	return (h & ~((uint64_t)15 << 60)) | (uint64_t)(n > 8 ? 9 : n) << 60;
}

sap_ptrs sap_live_maps;

/* The bytes m holds, after its entries or index changed size. */
static void account(sap_dmap *m)
{
	size_t held = (size_t)m->capents * (m->entsize + m->vstride) +
	              (size_t)m->nslots * sizeof *m->slots +
	              (size_t)m->dn * sizeof *m->dix +
	              (m->gval ? (size_t)m->live * m->valsize : 0) +
	              (size_t)m->gn * 2 * sizeof *m->gdir;
	sap_mem_dds((int64_t)held - (int64_t)m->held);
	m->held = held;
	if (held > m->peak)
		m->peak = held;
}

void sap_dm_create(sap_dmap *m, const char *name, sap_keykind kk, size_t valsize,
                   bool multi, void (*drop)(void *))
{
	memset(m, 0, sizeof *m);
	sap_ptrs_add(&sap_live_maps, m);
	m->name = name;
	m->kk = kk;
	m->valsize = valsize;
	m->multi = multi;
	m->drop = drop;
	m->version = sap_new_version();
	/* Values of generated code hold nothing wider than 8 bytes (scalars,
	 * pointers, lists), so 8-byte alignment suffices.  They lie apart from
	 * the keys, packed: a lookup by the direct index touches the value
	 * only, in an array as dense as a dvector's. */
	m->entsize = sizeof(ent) + (multi ? sizeof(chain) : 0);
	m->vstride = (valsize + 7) & ~(size_t)7;
}

void sap_dm_create_buffer(sap_dmap *m, const char *name, sap_keykind kk, size_t valsize,
                          const sap_numtype *num)
{
	sap_dm_create(m, name, kk, valsize, false, NULL);
	sap_ptrs_del(&sap_live_maps, m);
	m->num = num;
}

void sap_dm_free(sap_dmap *m)
{
	sap_acc_free(m->dense);
	m->dense = NULL;
	m->shadow = NULL;
	m->dense_all = false;
	if (m->drop)
		for (int64_t i = 0; i < m->nents; i++)
			if (E(m, i)->live)
				m->drop(V(m, i));
	sap_dm_clear(m);
	sap_dm_unpart(m);
	sap_dm_forget_asked(m);
	sap_ptrs_del(&sap_live_maps, m);
	m->name = NULL;         /* no map now: a checkpoint writes none */
}

/* The keys the last sap_dm_keys listed, sorted and without duplicates
 * (with b, those b has too), while neither map's keys changed. */
typedef struct sap_dm_sorted {
	uint64_t kver, bkver;
	const sap_dmap *b;
	bool spread;            /* pooled from every rank's keys */
	int64_t n;
	char keys[];
} sap_dm_sorted;

static void ungroup(sap_dmap *m);

static void keys_changed(sap_dmap *m)
{
	m->kver++;
	free(m->sorted);
	m->sorted = NULL;
	ungroup(m);
}

void sap_dm_clear(sap_dmap *m)
{
	keys_changed(m);
	m->kset = 0;
	free(m->ents);
	free(m->vals);
	free(m->slots);
	free(m->dix);
	m->ents = NULL;
	m->vals = NULL;
	m->slots = NULL;
	m->dix = NULL;
	m->nents = m->capents = m->live = 0;
	m->nslots = m->nkeys = m->nused = m->dn = 0;
	account(m);
}

/* An int or long key as a number. */
static int64_t ikey(const sap_dmap *m, const void *key)
{
	return m->kk == SAP_K_INT ? *(const int32_t *)key : *(const int64_t *)key;
}

/* The first 8 bytes of a string of at most 8, zero after its end. */
static inline uint64_t str_prefix(const char *s)
{
	uint64_t x = 0;
	for (int n = 0; n < 8 && s[n]; n++)
		x |= (uint64_t)(unsigned char)s[n] << (8 * n);
	return x;
}

/* What a slot holds of key, of hash h (hash_key): in k the key, or, for
 * a string of at most 8 bytes, the string itself, or the address of a
 * longer one (the entry's own: key is the entry's when the slot is
 * made); in the tag bits of s the hash's top bits, of a string with its
 * length (up to 9) in the top 4 of them.  A probe for a string of at
 * most 8 bytes is then settled by the slot alone: one cache miss, not
 * the three of reading the entry and its string too; a longer string
 * is compared where the slot points, without the entry. */
static uint64_t slot_key(const sap_dmap *m, const void *key, uint64_t h)
{
	if (m->kk != SAP_K_STRING)
		return (uint64_t)ikey(m, key);
	const char *s = sap_str_c(*(const sap_str *)key);
	return h >> 60 <= 8 ? str_prefix(s) : (uint64_t)(uintptr_t)s;
}

/* Hash index position of key's first entry, or -1. */
static int64_t lookup(const sap_dmap *m, const void *key, uint64_t h)
{
	if (m->nslots == 0)
		return -1;
	uint64_t tag = h & TAG_MASK, mask = (uint64_t)m->nslots - 1;
	if (m->kk == SAP_K_STRING && h >> 60 > 8) {
		/* The tag's 20 bits of hash pass one other string in a
		 * million to the comparison. */
		const char *s = sap_str_c(*(const sap_str *)key);
		for (uint64_t p = h & mask;; p = (p + 1) & mask) {
			const sap_dm_slot *sl = &m->slots[p];
			if (sl->s == EMPTY)
				return -1;
			if (is_ent(sl->s) && (sl->s & TAG_MASK) == tag &&
			    ((const char *)(uintptr_t)sl->k == s || !strcmp((const char *)(uintptr_t)sl->k, s)))
				return (int64_t)p;
		}
	}
	/* An int, or a string of at most 8 bytes: its slot's k (and, for a
	 * string, its length). */
	uint64_t want = slot_key(m, key, h);
	bool str = m->kk == SAP_K_STRING;
	for (uint64_t p = h & mask;; p = (p + 1) & mask) {
		const sap_dm_slot *sl = &m->slots[p];
		if (sl->s == EMPTY)
			return -1;
		if (is_ent(sl->s) && sl->k == want && (!str || (sl->s & TAG_MASK) == tag))
			return (int64_t)p;
	}
}

/* Key's first entry (of hash h), or -1. */
static int64_t find_ent(const sap_dmap *m, const void *key, uint64_t h)
{
	if (m->dix) {
		uint64_t p = (uint64_t)ikey(m, key) - (uint64_t)m->dlo;
		return p < (uint64_t)m->dn ? (int64_t)m->dix[p] - 1 : -1;
	}
	int64_t p = lookup(m, key, h);
	return p < 0 ? -1 : ent_of(m->slots[p].s);
}

/* ---- the direct index ----
 * Keys that are ids fill most of a range; the index is then an array
 * over the range, as long as it stays under DIRECT slots a live entry
 * (the hash index takes 1.4 to 3 slots of 16 bytes a key). */
enum { DIRECT = 8, DIRECT_MIN = 32 };

static unsigned __int128 direct_max(const sap_dmap *m)
{
	return (unsigned __int128)DIRECT * (uint64_t)(m->live + 1) + 64;
}

static bool direct_ok(const sap_dmap *m, unsigned __int128 width)
{
	return width <= direct_max(m) && m->capents < (int64_t)UINT32_MAX;
}

/* The index over [lo, lo + width), with the live entries in it. */
static void direct_build(sap_dmap *m, int64_t lo, int64_t width)
{
	free(m->slots);
	m->slots = NULL;
	m->nslots = m->nused = 0;
	free(m->dix);
	m->dix = sap_xcalloc((size_t)width, sizeof *m->dix);
	sap_advise_huge(m->dix, (size_t)width * sizeof *m->dix);
	m->dlo = lo;
	m->dn = width;
	account(m);
}

/* Whether the direct index has or can take key k (growing by half again
 * towards it, so that keys arriving in order cost O(1) each). */
static bool direct_fits(sap_dmap *m, int64_t k)
{
	if ((uint64_t)k - (uint64_t)m->dlo < (uint64_t)m->dn)
		return true;
	__int128 lo = m->dlo, hi = (__int128)m->dlo + m->dn;
	__int128 nlo = k < lo ? k : lo, nhi = k >= hi ? (__int128)k + 1 : hi;
	__int128 grow = (nhi - nlo) / 2 + 16;
	__int128 elo = nlo, ehi = nhi;
	if (k < lo)
		nlo = nlo - grow < INT64_MIN ? INT64_MIN : nlo - grow;
	else
		nhi = nhi + grow > (__int128)INT64_MAX + 1 ? (__int128)INT64_MAX + 1 : nhi + grow;
	if (!direct_ok(m, (unsigned __int128)(nhi - nlo))) {
		/* Near the density limit: as much room as the limit gives, if
		 * that grows the range by a sixteenth at least, so that keys
		 * arriving in order at about the limit's density do not copy
		 * the index every few keys: at most 11 copies of it while its
		 * range doubles, else the hash index until the entries double. */
		__int128 max = (__int128)direct_max(m);
		if (k < lo)
			nlo = ehi - max < INT64_MIN ? INT64_MIN : ehi - max;
		else
			nhi = elo + max > (__int128)INT64_MAX + 1 ? (__int128)INT64_MAX + 1 : elo + max;
		if (nlo > elo || nhi < ehi || (nhi - nlo) - (hi - lo) < (hi - lo) / 16 ||
		    !direct_ok(m, (unsigned __int128)(nhi - nlo)))
			return false;
	}
	int64_t width = (int64_t)(nhi - nlo), shift = (int64_t)(lo - nlo);
	if (shift == 0) {
		/* Upwards realloc moves a large index's pages rather than
		 * copying them into fresh ones (page faults cost most here). */
		m->dix = sap_xrealloc(m->dix, (size_t)width * sizeof *m->dix);
		memset(m->dix + m->dn, 0, (size_t)(width - m->dn) * sizeof *m->dix);
	} else {
		uint32_t *d = sap_xcalloc((size_t)width, sizeof *d);
		sap_advise_huge(d, (size_t)width * sizeof *d);
		memcpy(d + shift, m->dix, (size_t)m->dn * sizeof *d);
		free(m->dix);
		m->dix = d;
	}
	m->dlo = (int64_t)nlo;
	m->dn = width;
	account(m);
	return true;
}

static void hash_rebuild(sap_dmap *m);

/* A key's term in m->kset. */
static uint64_t key_mix(const sap_dmap *m, const void *key)
{
	uint64_t len, x = m->kk == SAP_K_STRING ? hash_len(m, key, &len) : (uint64_t)ikey(m, key);
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

uint64_t sap_dm_keyset(const sap_dmap *m)
{
	return m->kset ^ ((uint64_t)m->nkeys * 0x9e3779b97f4a7c15u);
}

/* Make entry i, of hash h, the first of a key that is not in the index. */
static void index_new(sap_dmap *m, int64_t i, uint64_t h)
{
	if (m->dix && !direct_fits(m, ikey(m, &E(m, i)->key))) {
		/* Entry i is live already: the new index has it. */
		hash_rebuild(m);
		return;
	}
	if (m->dix) {
		m->dix[(uint64_t)ikey(m, &E(m, i)->key) - (uint64_t)m->dlo] = (uint32_t)(i + 1);
	} else {
		uint64_t mask = (uint64_t)m->nslots - 1;
		uint64_t p = h & mask;
		while (is_ent(m->slots[p].s))
			p = (p + 1) & mask;
		if (m->slots[p].s == EMPTY)
			m->nused++;
		m->slots[p].s = (h & TAG_MASK) | (uint64_t)(i + 1);
		m->slots[p].k = slot_key(m, &E(m, i)->key, h);
	}
	m->nkeys++;
	if (m->multi) {
		C(m, i)->next = -1;
		C(m, i)->last = i;
		C(m, i)->n = 1;
	}
}

/* Append entry i to the chain of the key whose first entry is head. */
static void chain_append(sap_dmap *m, int64_t head, int64_t i)
{
	C(m, C(m, head)->last)->next = i;
	C(m, head)->last = i;
	C(m, head)->n++;
	C(m, i)->next = -1;
	C(m, i)->n = 0;
}

/* Index the live entries again (index_new, as if added in order). */
static void index_all(sap_dmap *m)
{
	m->nkeys = m->nused = 0;
	/* Hashes are not stored: recomputing them costs less memory than
	 * keeping them, and happens O(1) times per entry overall. */
	for (int64_t i = 0; i < m->nents; i++) {
		ent *e = E(m, i);
		if (!e->live)
			continue;
		uint64_t h = m->dix ? 0 : hash_key(m, &e->key);
		int64_t f = m->multi ? find_ent(m, &e->key, h) : -1;
		if (f >= 0)
			chain_append(m, f, i);
		else
			index_new(m, i, h);
	}
}

/* A hash index for the live entries, at most 35% full after. */
static void hash_rebuild(sap_dmap *m)
{
	int64_t want = 16;
	while (7 * want < 20 * (m->nkeys + 1))
		want *= 2;
	free(m->dix);
	m->dix = NULL;
	m->dn = 0;
	free(m->slots);
	m->slots = sap_xcalloc((size_t)want, sizeof *m->slots);
	sap_advise_huge(m->slots, (size_t)want * sizeof *m->slots);
	m->nslots = want;
	account(m);
	index_all(m);
}

/* A direct index for the live entries if their keys allow one. */
static bool try_direct(sap_dmap *m)
{
	if ((m->kk == SAP_K_INT || m->kk == SAP_K_LONG) && m->live >= DIRECT_MIN) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (int64_t i = 0; i < m->nents; i++)
			if (E(m, i)->live) {
				int64_t k = ikey(m, &E(m, i)->key);
				lo = k < lo ? k : lo;
				hi = k > hi ? k : hi;
			}
		unsigned __int128 width = (unsigned __int128)((__int128)hi - lo + 1);
		/* Room above for keys still to come in order. */
		unsigned __int128 room = width + width / 2 + 16;
		if (room > direct_max(m))
			room = direct_max(m) > width ? direct_max(m) : width;
		if ((__int128)lo + (__int128)room > (__int128)INT64_MAX + 1)
			room = width;
		if (direct_ok(m, room)) {
			direct_build(m, lo, (int64_t)room);
			index_all(m);
			return true;
		}
	}
	return false;
}

/* Rebuild the index for the live entries: direct where the keys allow. */
static void reindex(sap_dmap *m)
{
	ungroup(m);
	if (!try_direct(m))
		hash_rebuild(m);
}

/* Room for one more entry and one more key; may move every entry. */
static void reserve(sap_dmap *m)
{
	if (m->nents == m->capents) {
		if (m->live <= m->nents / 2 && m->nents > 0) {
			/* Mostly dead: squeeze them out rather than grow. */
			int64_t j = 0;
			for (int64_t i = 0; i < m->nents; i++)
				if (E(m, i)->live) {
					if (i != j)
						move_ent(m, j, i);
					j++;
				}
			m->nents = j;
			reindex(m);
		} else {
			resize(m, m->capents ? m->capents * 2 : 16);
			account(m);
		}
	}
	/* Linear probing stays short while the index is under 70% full,
	 * tombstones included. */
	if (!m->dix && 10 * (m->nused + 1) > 7 * m->nslots)
		reindex(m);
}

/* A new zeroed entry for key, after every existing one, numbered seq. */
static int64_t append_seq(sap_dmap *m, const void *key, uint64_t h, int64_t seq)
{
	reserve(m);
	keys_changed(m);
	int64_t i = m->nents++;
	ent *e = E(m, i);
	/* Sizes the compiler knows: a call to memset an insert was a tenth
	 * of a graph's loading. */
	if (m->multi)
		memset(e, 0, sizeof(ent) + sizeof(chain));
	else
		memset(e, 0, sizeof(ent));
	if (m->vstride == 8)
		memset(V(m, i), 0, 8);
	else if (m->vstride == 16)
		memset(V(m, i), 0, 16);
	else
		memset(V(m, i), 0, m->vstride);
	switch (m->kk) {
	case SAP_K_INT:
		e->key.i = *(const int32_t *)key;
		break;
	case SAP_K_LONG:
		e->key.l = *(const int64_t *)key;
		break;
	default:
		e->key.s = sap_str_c(*(const sap_str *)key);
		break;
	}
	e->live = (uint64_t)seq;
	m->live++;
	if (m->num)
		sap_nt_identity(m->num, V(m, i), 1);
	int64_t f = m->multi ? find_ent(m, key, h) : -1;
	if (f >= 0) {
		chain_append(m, f, i);
	} else {
		m->kset += key_mix(m, key);
		index_new(m, i, h);
	}
	return i;
}

static int64_t append(sap_dmap *m, const void *key, uint64_t h)
{
	return append_seq(m, key, h, ++m->seq);
}

/* ---- for mapparts.c ---- */

uint64_t sap_dm_hash(const sap_dmap *m, const void *key)
{
	uint64_t len;
	return hash_len(m, key, &len);
}

void *sap_dm_put(sap_dmap *m, const void *key, int64_t seq)
{
	return V(m, append_seq(m, key, hash_key(m, key), seq));
}

/* -0.0 in the floating scalars of an element of type t made +0.0. */
static void plus_zero(const sap_numtype *t, void *p)
{
	for (int k = 0; k < t->nf; k++) {
		const sap_numfield *f = &t->f[k];
		char *b = (char *)p + f->off;
		for (uint32_t j = 0; j < f->n; j++) {
			if (f->kind == SAP_S_DOUBLE) {
				double x;
				memcpy(&x, b + (size_t)j * 8, 8);
				x += 0.0;
				memcpy(b + (size_t)j * 8, &x, 8);
			} else if (f->kind == SAP_S_FLOAT) {
				float x;
				memcpy(&x, b + (size_t)j * 4, 4);
				x += 0.0f;
				memcpy(b + (size_t)j * 4, &x, 4);
			}
		}
	}
}

const void *sap_dm_key_at(const sap_dmap *m, int64_t i)
{
	return E(m, i)->live ? &E(m, i)->key : NULL;
}

uint64_t sap_dm_order_hash(const sap_dmap *m)
{
	uint64_t h = sap_dm_mix((uint64_t)m->nents ^ (uint64_t)m->kk << 56);
	for (int64_t i = 0; i < m->nents; i++) {
		const ent *e = E(m, i);
		uint64_t x = 0x5bd1e9955bd1e995u;
		if (e->live)
			x = hash_key(m, &e->key);
		h = sap_dm_mix(h ^ x) + (uint64_t)i;
	}
	return h;
}

bool sap_dm_take(const sap_numtype *t, sap_dmap *m, sap_dmap *buf)
{
	if (m->live || m->parted || m->multi || buf->shadow || buf->multi || m->kk != buf->kk ||
	    m->valsize != buf->valsize || m->entsize != buf->entsize ||
	    m->vstride != buf->vstride || buf->live == 0)
		return false;
	sap_dm_clear(m);
	m->ents = buf->ents;
	m->vals = buf->vals;
	m->capents = buf->capents;
	m->nents = buf->nents;
	m->live = buf->live;
	m->slots = buf->slots;
	m->nslots = buf->nslots;
	m->nkeys = buf->nkeys;
	m->kset = buf->kset;
	m->nused = buf->nused;
	m->dix = buf->dix;
	m->dlo = buf->dlo;
	m->dn = buf->dn;
	if (buf->seq > m->seq)
		m->seq = buf->seq;
	/* The buffer's bytes are the map's now. */
	m->held = buf->held;
	m->peak = m->held > m->peak ? m->held : m->peak;
	buf->held = 0;
	buf->ents = NULL;
	buf->vals = NULL;
	buf->slots = NULL;
	buf->dix = NULL;
	buf->nents = buf->capents = buf->live = buf->nslots = buf->nkeys = buf->nused = buf->dn = 0;
	buf->kset = 0;
	/* A key inserted by the merge starts at +0.0, and +0.0 + -0.0 is
	 * +0.0: a sum of -0.0 (the buffer's start) becomes +0.0. */
	if (sap_nt_has_float(t))
		for (int64_t i = 0; i < m->nents; i++)
			if (E(m, i)->live)
				plus_zero(t, V(m, i));
	return true;
}

void sap_dm_add_dense(const sap_numtype *t, sap_dmap *m, const char *dense)
{
	bool dbl = sap_nt_flat(t) && t->f[0].kind == SAP_S_DOUBLE && t->f[0].n == 1;
	for (int64_t i = 0; i < m->nents; i++) {
		if (!E(m, i)->live)
			continue;
		const char *a = dense + (size_t)i * t->size;
		if (dbl) {
			double x, y;
			memcpy(&x, V(m, i), sizeof x);
			memcpy(&y, a, sizeof y);
			x += y;
			memcpy(V(m, i), &x, sizeof x);
		} else {
			sap_sc_add(t, V(m, i), a, 1);
		}
	}
}

bool sap_dm_entry(const sap_dmap *m, int64_t *pos, const void **key, void **val, int64_t *seq)
{
	for (int64_t i = *pos; i < m->nents; i++) {
		ent *e = E(m, i);
		if (!e->live)
			continue;
		*pos = i + 1;
		*key = &e->key;
		*val = V(m, i);
		*seq = (int64_t)e->live;
		return true;
	}
	*pos = m->nents;
	return false;
}

void sap_dm_keep(sap_dmap *m, bool (*keep)(const sap_dmap *m, const void *key, void *arg),
                 void *arg)
{
	int64_t j = 0;
	for (int64_t i = 0; i < m->nents; i++) {
		ent *e = E(m, i);
		if (!e->live)
			continue;
		if (!keep(m, &e->key, arg)) {
			keys_changed(m);
			if (m->drop)
				m->drop(V(m, i));
			m->live--;
			continue;
		}
		if (i != j)
			move_ent(m, j, i);
		j++;
	}
	m->nents = j;
	/* Room for what is left, and no more. */
	int64_t cap = j > 16 ? j : 16;
	if (cap < m->capents)
		resize(m, cap);
	/* Sized for at most as many keys as entries. */
	m->nkeys = m->live;
	reindex(m);
	m->kset = 0;
	for (int64_t i = 0; i < m->nents; i++)
		if (E(m, i)->live && (!m->multi || C(m, i)->n > 0))
			m->kset += key_mix(m, &E(m, i)->key);
}

int64_t sap_dm_here(sap_dmap *m, const void *key, void **val)
{
	int64_t f = find_ent(m, key, hash_key(m, key));
	*val = f < 0 ? NULL : V(m, f);
	if (f < 0)
		return 0;
	return m->multi ? C(m, f)->n : 1;
}

/* Driver code reaching a map parted over ranks: it asks the key's owner,
 * or brings the whole map to every rank first. */
static inline bool driver(const sap_dmap *m)
{
	return m->parted && !m->local;
}

void *sap_dm_find(sap_dmap *m, const void *key)
{
	if (driver(m)) {
		void *v;
		return sap_dm_ask(m, key, &v) ? v : NULL;
	}
	int64_t f = find_ent(m, key, hash_key(m, key));
	return f < 0 ? NULL : V(m, f);
}

void *sap_dm_get(sap_dmap *m, const void *key, const sap_site *s)
{
	void *v = sap_dm_find(m, key);
	if (v)
		return v;
	const char *kind = m->multi ? "dmultimap" : "dmap";
	/* A key that is not there reads no zero, as C++'s map[] would: say
	 * how to read one. */
	char *hint = m->multi ? NULL :
	             sap_strf("; get(%s, key, value) reads value where the key is missing", m->name);
	switch (m->kk) {
	case SAP_K_INT:
		sap_fatal(s, "key %d not in %s '%s'%s", *(const int32_t *)key, kind, m->name,
		          hint ? hint : "");
	case SAP_K_LONG:
		sap_fatal(s, "key %lld not in %s '%s'%s", (long long)*(const int64_t *)key,
		          kind, m->name, hint ? hint : "");
	default: {
		/* The key may come from a data file: its control bytes escaped. */
		const char *k = sap_str_c(*(const sap_str *)key);
		sap_fatal(s, "key \"%s\" not in %s '%s'%s", sap_escape(k, strlen(k)), kind, m->name,
		          hint ? hint : "");
	}
	}
}

void *sap_dm_upsert(sap_dmap *m, const void *key)
{
	if (m->shadow) {
		int64_t f = find_ent(m->shadow, key, hash_key(m->shadow, key));
		if (f >= 0)
			return m->dense + (size_t)f * m->valsize;
	}
	if (driver(m))
		sap_dm_whole(m);
	uint64_t h = hash_key(m, key);
	int64_t f = find_ent(m, key, h);
	if (f >= 0)
		return V(m, f);
	return V(m, append(m, key, h));
}

/* On a plain map, add replaces the value: the old one is dropped. */
void *sap_dm_add(sap_dmap *m, const void *key)
{
	if (driver(m))
		sap_dm_whole(m);
	uint64_t h = hash_key(m, key);
	if (!m->multi) {
		int64_t f = find_ent(m, key, h);
		if (f >= 0) {
			void *v = V(m, f);
			if (m->drop)
				m->drop(v);
			memset(v, 0, m->valsize);
			return v;
		}
	}
	return V(m, append(m, key, h));
}

int64_t sap_dm_count(sap_dmap *m, const void *key)
{
	void *v;
	if (driver(m))
		return sap_dm_ask(m, key, &v);
	/* A grouped multimap's directory has the count, where the key's
	 * first entry, in insertion order among all the others, is a cache
	 * miss: count(m, k) before a loop over m[k] took most of a PageRank
	 * pass over in-edges. */
	if (m->gdir) {
		uint64_t p = (uint64_t)ikey(m, key) - (uint64_t)m->glo;
		return p < (uint64_t)m->gn && m->gdir[2 * p + 1] ? (int64_t)m->gdir[2 * p + 1] - 1 : 0;
	}
	return sap_dm_here(m, key, &v);
}

/* A random long id's adjacency, count and then view, went twice through
 * the general lookup (the key's kind, the string cases), a third of a
 * label propagation over a multimap's keys. */
int64_t sap_dm_count_int(sap_dmap *m, int64_t key)
{
	int32_t k32 = (int32_t)key;
	const void *kp = m->kk == SAP_K_INT ? (const void *)&k32 : (const void *)&key;
	if (driver(m) || m->gdir || m->kk == SAP_K_STRING)
		return sap_dm_count(m, kp);
	int64_t f = sap_dm_hit_ent(m, key, m->kk == SAP_K_LONG);
	return f < 0 ? 0 : m->multi ? C(m, f)->n : 1;
}

void sap_dm_view_key(sap_dmap *m, int64_t k, sap_list *l)
{
	int32_t k32 = (int32_t)k;
	const void *kp = m->kk == SAP_K_INT ? (const void *)&k32 : (const void *)&k;
	if (!m->multi || !m->gval || driver(m) || m->gdir) {
		sap_dm_view(m, kp, l);
		return;
	}
	int64_t f = sap_dm_hit_ent(m, k, m->kk == SAP_K_LONG);
	if (f < 0)
		return;
	l->v = m->gval + (size_t)C(m, f)->g * m->valsize;
	l->n = C(m, f)->n;
	l->cap = 0;
}

int64_t sap_dm_erase(sap_dmap *m, const void *key)
{
	if (driver(m))
		sap_dm_whole(m);
	uint64_t h = hash_key(m, key);
	int64_t f = find_ent(m, key, h);
	if (f < 0)
		return 0;
	int64_t n = 0;
	keys_changed(m);
	m->kset -= key_mix(m, key);
	for (int64_t i = f; i >= 0; i = m->multi ? C(m, i)->next : -1) {
		if (m->drop)
			m->drop(V(m, i));
		E(m, i)->live = 0;
		n++;
	}
	if (m->dix)
		m->dix[(uint64_t)ikey(m, key) - (uint64_t)m->dlo] = 0;
	else
		m->slots[lookup(m, key, h)].s = TOMB;
	m->live -= n;
	m->nkeys--;
	return n;
}

int64_t sap_dm_size(const sap_dmap *m)
{
	return m->parted ? m->total : m->live;
}

bool sap_dm_next(sap_dmap *m, int64_t *pos, const void **key, void **val)
{
	if (driver(m))
		sap_dm_whole(m);
	for (int64_t i = *pos; i < m->nents; i++) {
		ent *e = E(m, i);
		if (!e->live)
			continue;
		*pos = i + 1;
		if (key)
			*key = &e->key;
		if (val)
			*val = V(m, i);
		return true;
	}
	*pos = m->nents;
	return false;
}

/* *pos is 0 before the first value, then 1 + the entry last returned. */
void *sap_dm_next_of(sap_dmap *m, const void *key, int64_t *pos)
{
	if (driver(m))
		sap_dm_whole(m);
	int64_t i;
	if (*pos == 0) {
		i = find_ent(m, key, hash_key(m, key));
	} else {
		int64_t prev = *pos - 1;
		/* The key may have been erased since the last call. */
		if (!m->multi || prev >= m->nents || !E(m, prev)->live)
			i = -1;
		else
			i = C(m, prev)->next;
	}
	if (i < 0)
		return NULL;
	*pos = i + 1;
	return V(m, i);
}

void sap_dm_values(sap_dmap *m, const void *key, sap_list *l)
{
	if (driver(m))
		sap_dm_whole(m);
	int64_t f = find_ent(m, key, hash_key(m, key));
	if (f < 0)
		return;
	int64_t n = m->multi ? C(m, f)->n : 1;
	sap_list_grow(l, l->n + n, m->valsize);
	char *d = (char *)l->v + (size_t)l->n * m->valsize;
	l->n += n;
	if (m->multi && !m->gval && !sap_in_loop() && ++m->reads > m->nkeys / 4)
		sap_dm_group(m);
	if (m->gval) {
		/* The key's values side by side, as a CSR graph's. */
		memcpy(d, m->gval + (size_t)C(m, f)->g * m->valsize, (size_t)n * m->valsize);
		return;
	}
	for (int64_t i = f; i >= 0; i = m->multi ? C(m, i)->next : -1, d += m->valsize)
		memcpy(d, V(m, i), m->valsize);
}

void *sap_dm_value_at(sap_dmap *m, const void *key, int64_t i, const sap_site *s)
{
	if (driver(m))
		sap_dm_whole(m);
	int64_t f = find_ent(m, key, hash_key(m, key));
	int64_t n = f < 0 ? 0 : m->multi ? C(m, f)->n : 1;
	if ((uint64_t)i >= (uint64_t)n)
		sap_oob(s, "list", i, n);
	/* Driver code reading the values one by one (a loop over
	 * m[k][i]) groups them as sap_dm_values does: the chain is then
	 * followed once, not i steps for every i. */
	if (m->multi && !m->gval && !sap_in_loop() && ++m->reads > m->nkeys / 4)
		sap_dm_group(m);
	if (m->gval)
		return m->gval + (size_t)(C(m, f)->g + i) * m->valsize;
	while (i-- > 0)
		f = C(m, f)->next;
	return V(m, f);
}

void sap_dm_view(sap_dmap *m, const void *key, sap_list *l)
{
	if (!m->multi || !m->gval || driver(m)) {
		sap_dm_values(m, key, l);
		return;
	}
	if (m->gdir) {
		uint64_t p = (uint64_t)ikey(m, key) - (uint64_t)m->glo;
		if (p >= (uint64_t)m->gn || !m->gdir[2 * p + 1])
			return;
		l->v = m->gval + (size_t)m->gdir[2 * p] * m->valsize;
		l->n = m->gdir[2 * p + 1] - 1;
		l->cap = 0;
		return;
	}
	int64_t f = find_ent(m, key, hash_key(m, key));
	if (f < 0)
		return;
	/* Borrowed (cap 0): never freed or grown in place. */
	l->v = m->gval + (size_t)C(m, f)->g * m->valsize;
	l->n = C(m, f)->n;
	l->cap = 0;
}

/* ---- a multimap's values grouped by key ----
 *
 * A multimap's entries are in insertion order, so the values of one key
 * lie scattered when keys came mixed (edges, ratings): following the
 * chain costs a cache miss a value, each waiting for the last, and a
 * copy a call per value.  A map read much and changed little (an
 * adjacency, ratings by user) gets a copy of its values key by key, each
 * key's in insertion order, its first entry knowing where they start:
 * built in two passes over the entries, before a loop that reads the map
 * or after enough reads by driver code, and dropped when the keys
 * change.  Values are never written in place, so the copy stays true. */
static void ungroup(sap_dmap *m)
{
	m->reads = 0;
	if (!m->gval)
		return;
	free(m->gval);
	m->gval = NULL;
	free(m->gdir);
	m->gdir = NULL;
	m->gn = 0;
	account(m);
}

void sap_dm_group(sap_dmap *m)
{
	if (!m->multi || m->gval || m->drop || m->live < 256 || m->live < 2 * m->nkeys)
		return;
	size_t vs = m->valsize;
	char *gval = sap_alloc_dds((size_t)m->live * vs);
	if (!gval)
		return;
	/* Ids filling their range go in key order, as a CSR graph's rows:
	 * a loop over the ids then reads the values in one stream, where in
	 * the order the keys first came (an edge list sorted by source,
	 * grouped by target) each key's values were a cache miss away,
	 * which made a pull PageRank's iterations ten times C's. */
	bool dense = m->dix && m->dn <= 2 * m->live && m->live < (int64_t)UINT32_MAX - 1;
	int64_t at = 0;
	for (int64_t p = 0; dense && p < m->dn; p++) {
		int64_t f = (int64_t)m->dix[p] - 1;
		if (f >= 0 && E(m, f)->live && C(m, f)->n > 0) {
			C(m, f)->g = at;
			at += C(m, f)->n;
		}
	}
	for (int64_t i = 0; !dense && i < m->nents; i++)
		if (E(m, i)->live && C(m, i)->n > 0) {
			C(m, i)->g = at;
			at += C(m, i)->n;
		}
	/* Each value at the place its chain's previous one left for it
	 * (entry by entry in order: a chain's next comes after); a later
	 * entry's g is free for that. */
	for (int64_t i = 0; i < m->nents; i++) {
		if (!E(m, i)->live)
			continue;
		int64_t j = C(m, i)->next, g = C(m, i)->g;
		memcpy(gval + (size_t)g * vs, V(m, i), vs);
		if (j >= 0)
			C(m, j)->g = g + 1;
	}
	m->gval = gval;
	/* Ids filling their range: each key's start and count by the key,
	 * as a CSR graph's offsets are. */
	if (dense) {
		m->gdir = sap_xcalloc((size_t)m->dn * 2, sizeof *m->gdir);
		for (int64_t p = 0; p < m->dn; p++) {
			int64_t f = (int64_t)m->dix[p] - 1;
			if (f >= 0) {
				m->gdir[2 * p] = (uint32_t)C(m, f)->g;
				m->gdir[2 * p + 1] = (uint32_t)C(m, f)->n + 1;
			}
		}
		m->glo = m->dlo;
		m->gn = m->dn;
	}
	account(m);
}

/* ---- keys, for loops over maps ---- */

static void keys_done(sap_dvec *v, sap_dmap *m, const sap_dmap *b);

static sap_keykind sort_kind;
static int by_key(const void *x, const void *y)
{
	switch (sort_kind) {
	case SAP_K_INT: {
		int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
		return (a > b) - (a < b);
	}
	case SAP_K_LONG: {
		int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
		return (a > b) - (a < b);
	}
	default:
		return strcmp(*(const sap_str *)x, *(const sap_str *)y);
	}
}

/* A string key and its first 8 bytes as a big-endian number, which
 * orders as strcmp does (the bytes unsigned, a shorter string first). */
typedef struct str_rec {
	uint64_t pre;
	sap_str s;
} str_rec;

static int by_rest(const void *x, const void *y)
{
	return strcmp(((const str_rec *)x)->s + 8, ((const str_rec *)y)->s + 8);
}

/* n strings in strcmp order: by radix on their first 8 bytes, then
 * strcmp over the rest where those are equal and the strings go on.  A
 * loop over 1.8M word pairs spent seconds in qsort's strcmp calls. */
static void sort_strs(sap_str *k, int64_t n)
{
	str_rec *r = sap_xmalloc((size_t)n * sizeof *r);
	for (int64_t i = 0; i < n; i++) {
		const unsigned char *c = (const unsigned char *)k[i];
		uint64_t p = 0;
		for (int b = 0; b < 8 && c[b]; b++)
			p |= (uint64_t)c[b] << (56 - 8 * b);
		r[i] = (str_rec){ p, k[i] };
	}
	sap_sort_recs(r, n, sizeof *r);
	for (int64_t a = 0, z; a < n; a = z) {
		for (z = a + 1; z < n && r[z].pre == r[a].pre; z++)
			;
		if (z - a > 1 && (r[a].pre & 0xff))
			qsort(r + a, (size_t)(z - a), sizeof *r, by_rest);
	}
	for (int64_t i = 0; i < n; i++)
		k[i] = r[i].s;
	free(r);
}

static int64_t int_at(const char *buf, int64_t i, bool narrow)
{
	if (narrow) {
		int32_t k;
		memcpy(&k, buf + (size_t)i * sizeof k, sizeof k);
		return k;
	}
	int64_t k;
	memcpy(&k, buf + (size_t)i * sizeof k, sizeof k);
	return k;
}

static void put_int(char *buf, int64_t i, int64_t k, bool narrow)
{
	if (narrow) {
		int32_t k32 = (int32_t)k;
		memcpy(buf + (size_t)i * sizeof k32, &k32, sizeof k32);
	} else {
		memcpy(buf + (size_t)i * sizeof k, &k, sizeof k);
	}
}

/* n int32 (narrow) or int64 keys at buf in ascending order, by radix
 * over their offsets from the least: a graph's millions of ids took
 * qsort a third of a second. */
static void sort_ints(char *buf, int64_t n, bool narrow)
{
	int64_t lo = INT64_MAX;
	for (int64_t i = 0; i < n; i++) {
		int64_t k = int_at(buf, i, narrow);
		lo = k < lo ? k : lo;
	}
	int64_t *w = sap_xmalloc((size_t)n * sizeof *w);
	for (int64_t i = 0; i < n; i++)
		w[i] = (int64_t)((uint64_t)int_at(buf, i, narrow) - (uint64_t)lo);
	sap_sort_keys(w, n, -1);
	for (int64_t i = 0; i < n; i++)
		put_int(buf, i, (int64_t)((uint64_t)w[i] + (uint64_t)lo), narrow);
	free(w);
}

void sap_dm_keys(sap_dvec *v, const char *name, sap_dmap *m, sap_dmap *b, const sap_site *s)
{
	size_t ks = m->kk == SAP_K_INT ? sizeof(int32_t) :
	            m->kk == SAP_K_LONG ? sizeof(int64_t) : sizeof(sap_str);
	/* On several ranks, a map parted stays so: each rank lists the keys
	 * it holds (of both maps, which the same key puts on the same rank),
	 * and the ranks pool them. */
	bool spread = sap_dm_spread(m, b);
	const sap_dm_sorted *c = m->sorted;
	int same = c && c->spread == spread && c->kver == m->kver && c->b == b &&
	           (!b || c->bkver == b->kver);
	/* Pooled keys hold while no rank's changed: every rank takes the
	 * same way, as pooling is collective.  Pooling and sorting them
	 * again cost a loop over a parted map's 100,000 keys 5 ms a call
	 * on 2 ranks, against 0.2 ms of body. */
	if (spread)
		sap_comm_allreduce(&same, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (same) {
		/* Loops over the keys of a map whose keys stay the same (a
		 * gradient's, a graph's) sort them once. */
		sap_dv_create_whole(v, name, c->n, ks, s);
		memcpy(v->data, c->keys, (size_t)c->n * ks);
		keys_done(v, m, b);
		return;
	}
	/* Every live key once, sorted; then with b the keys b lacks
	 * squeezed out.  Integer keys come from the index, which holds
	 * each once, in a fraction of the entries' bytes: a direct one in
	 * order already. */
	char *buf = sap_xmalloc((size_t)(m->live > m->nkeys ? m->live : m->nkeys) * ks + 1);
	int64_t n = 0;
	bool narrow = m->kk == SAP_K_INT;
	if (m->kk != SAP_K_STRING && m->dix) {
		for (int64_t p = 0; p < m->dn; p++)
			if (m->dix[p])
				put_int(buf, n++, (int64_t)((uint64_t)m->dlo + (uint64_t)p), narrow);
	} else if (m->kk != SAP_K_STRING) {
		for (int64_t p = 0; p < m->nslots; p++)
			if (is_ent(m->slots[p].s))
				put_int(buf, n++, (int64_t)m->slots[p].k, narrow);
		if (n > 1)
			sort_ints(buf, n, narrow);
	} else {
		for (int64_t i = 0; i < m->nents; i++) {
			const ent *e = E(m, i);
			if (e->live && (!m->multi || C(m, i)->n > 0))
				memcpy(buf + (size_t)n++ * ks, &e->key, ks);
		}
		if (n > 1)
			sort_strs((sap_str *)(void *)buf, n);
	}
	sort_kind = m->kk;
	int64_t kept = 0;
	for (int64_t i = 0; i < n; i++) {
		const char *k = buf + (size_t)i * ks;
		void *val;
		if (kept > 0 && by_key(buf + (size_t)(kept - 1) * ks, k) == 0)
			continue;
		if (b && !sap_dm_here(b, k, &val))
			continue;
		memmove(buf + (size_t)kept++ * ks, k, ks);
	}
	if (spread) {
		buf = sap_dm_pool_keys(m->kk, buf, &kept);
		sort_kind = m->kk;
		if (kept > 1)
			qsort(buf, (size_t)kept, ks, by_key);
	}
	sap_dv_create_whole(v, name, kept, ks, s);
	memcpy(v->data, buf, (size_t)kept * ks);
	free(m->sorted);
	m->sorted = sap_xmalloc(sizeof *m->sorted + (size_t)kept * ks);
	*m->sorted = (sap_dm_sorted){ m->kver, b ? b->kver : 0, b, spread, kept };
	memcpy(m->sorted->keys, buf, (size_t)kept * ks);
	free(buf);
	keys_done(v, m, b);
}

static void keys_done(sap_dvec *v, sap_dmap *m, const sap_dmap *b)
{
	/* The keys' strings are the map's, shared: strings live as long as
	 * the program, an erased key's too.  (A copy of each, every listing,
	 * grew a loop over a map's keys by its keys' bytes each run.) */
	sap_dv_recount(v);
	v->keys_of = m;
	/* The same keys while the maps are unchanged: a loop over them
	 * keeps its plan. */
	v->version = b && b->version > m->version ? b->version : m->version;
}
