/* colour.c: the colouring, a key-level plan fed the key log beside the
 * wavefront and strips (keys.c).
 *
 * The wavefront keeps the serial loop's order, and pays for it where
 * conflicts chain: Lasso's columns over uniformly random rows, each row
 * in some 40 columns, make a wavefront of 1800 rounds for 200000
 * features, a barrier for every 110 of them.  Each round needs only
 * iterations that do not conflict, not the serial order between rounds:
 * in index order, an iteration goes in the first round where none it
 * conflicts with is (first-fit colouring of the conflict graph), which
 * there takes 165 rounds.  Running the rounds in order is running the
 * iterations in the order (round, index), a serial order: the loop stays
 * serializable, and its result is the same for every number of workers
 * (which only cut each round), though not the serial loop's.
 *
 * Per key the rounds are bits: w, the rounds that write it, r, those
 * that touch it; a write conflicts with r, a read with w.  All of a
 * key's bits lie in one cache line, SETS words of each, so that an
 * iteration finds its round with one line per key it touches.
 */
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* Rounds are SETS x 64 at most: a key written by more iterations than
 * that (a hot key) makes the colouring fail, as it then takes more
 * rounds than it pays for. */
enum { SETS = 4, ROUNDS = SETS * 64 };

typedef struct col_key {
	uint64_t w[SETS], r[SETS];
} col_key;

/* One DDS's keys: dense for a dvector of at most DENSE_KEYS elements,
 * else an open-addressing table. */
typedef struct col_table {
	bool skip;              /* never a conflict (see tables_make in keys.c) */
	col_key *dense;
	int64_t ndense;
	sap_keytab hash;
} col_table;

/* Bounds, as in keys.c but for 64 bytes a key: DENSE_TOTAL keys in
 * dense arrays (128 MiB), HASHED_KEYS hashed (tables of at most four
 * slots of 73 bytes per key, 146 MiB), past which the colouring gives
 * up. */
enum { DENSE_KEYS = 1 << 21, DENSE_TOTAL = 1 << 21, HASHED_KEYS = 1 << 19 };

struct sap_colouring {
	col_table *t;
	int ndds;
	int64_t lo, n, last;
	int64_t hashed;
	uint32_t *round;        /* per iteration, from 1; 0 when not seen */
	uint32_t top;
	bool alive;
};

static const col_key *ck_find(const col_table *t, int64_t key)
{
	if (t->dense)
		return (uint64_t)key < (uint64_t)t->ndense ? &t->dense[key] : NULL;
	return sap_keytab_find(&t->hash, key);
}

/* The rounds of key, made if new; NULL past the bounds. */
static col_key *ck_make(sap_colouring *c, col_table *t, int64_t key)
{
	if (t->dense)
		return (uint64_t)key < (uint64_t)t->ndense ? &t->dense[key] : NULL;
	return sap_keytab_make(&t->hash, sizeof(col_key), key, &c->hashed, HASHED_KEYS);
}

sap_colouring *sap_colour_new(const sap_async_spec *spec, const sap_layout *ly, int ndds,
                              int64_t lo, int64_t n, uint32_t *round, const int64_t *acc)
{
	sap_colouring *c = sap_xcalloc(1, sizeof *c);
	c->ndds = ndds;
	c->t = sap_xcalloc((size_t)(ndds ? ndds : 1), sizeof *c->t);
	c->lo = lo;
	c->n = n;
	c->last = lo - 1;
	c->round = round;
	c->alive = true;
	memset(round, 0, (size_t)n * sizeof *round);
	int64_t dense = 0;
	for (int k = 0; spec && k < ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		col_table *t = &c->t[k];
		t->skip = ly->d[k].own || !ly->d[k].nblk;
		if (!t->skip && d->dv && d->dv->n <= DENSE_KEYS && dense + d->dv->n <= DENSE_TOTAL &&
		    sap_dense_keys(d->dv->n, acc[k])) {
			t->ndense = d->dv->n;
			t->dense = sap_xcalloc((size_t)t->ndense, sizeof *t->dense);
			dense += t->ndense;
		}
	}
	return c;
}

void sap_colour_free(sap_colouring *c)
{
	if (!c)
		return;
	for (int k = 0; k < c->ndds; k++) {
		free(c->t[k].dense);
		sap_keytab_free(&c->t[k].hash);
	}
	free(c->t);
	free(c);
}

bool sap_colour_alive(const sap_colouring *c)
{
	return c->alive;
}

void sap_colour_kill(sap_colouring *c)
{
	c->alive = false;
}

uint32_t sap_colour_top(const sap_colouring *c)
{
	return c->top;
}

void sap_colour_feed(sap_colouring *c, const sap_access *a, int64_t na)
{
	for (int64_t s = 0; s < na && c->alive;) {
		int64_t i = a[s].i, e = s;
		if (i <= c->last || i >= c->lo + c->n)
			sap_fatal(NULL, "internal error: a key log out of iteration order at %lld",
			          (long long)i);
		uint64_t busy[SETS] = { 0 };
		for (; e < na && a[e].i == i; e++) {
			if (a[e].dds < 0 || a[e].dds >= c->ndds)
				sap_fatal(NULL, "internal error: a key log names DDS %d", (int)a[e].dds);
			const col_table *t = &c->t[a[e].dds];
			const col_key *k = t->skip ? NULL : ck_find(t, a[e].key);
			if (!k)
				continue;
			const uint64_t *b = a[e].mode & SAP_WRITE ? k->r : k->w;
			for (int q = 0; q < SETS; q++)
				busy[q] |= b[q];
		}
		int set = 0;
		while (set < SETS && busy[set] == UINT64_MAX)
			set++;
		if (set == SETS) {
			c->alive = false;
			break;
		}
		uint64_t bit = ~busy[set] & (busy[set] + 1);
		for (int64_t q = s; q < e; q++) {
			col_table *t = &c->t[a[q].dds];
			if (t->skip)
				continue;
			col_key *k = ck_make(c, t, a[q].key);
			if (!k) {
				c->alive = false;
				return;
			}
			if (a[q].mode & SAP_WRITE)
				k->w[set] |= bit;
			k->r[set] |= bit;
		}
		uint32_t r = (uint32_t)set * 64 + (uint32_t)__builtin_ctzll(bit) + 1;
		c->round[i - c->lo] = r;
		c->top = r > c->top ? r : c->top;
		c->last = i;
		s = e;
	}
}

bool sap_plan_colour(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                     int T, int64_t *order)
{
	int ndds = 0;
	for (int64_t k = 0; k < nlog; k++)
		ndds = log[k].dds + 1 > ndds ? log[k].dds + 1 : ndds;
	if (n <= 0 || n >= UINT32_MAX)
		return false;
	uint32_t *round = sap_xmalloc((size_t)n * sizeof *round);
	sap_colouring *c = sap_colour_new(NULL, NULL, ndds, lo, n, round, NULL);
	sap_colour_feed(c, log, nlog);
	bool ok = c->alive;
	if (ok) {
		uint32_t top = c->top;
		int64_t *size = sap_rounds_sizes(round, n, &top);
		uint32_t *weight = sap_xcalloc((size_t)n, sizeof *weight);
		sap_log_weigh(weight, log, nlog, lo, n);
		sap_rounds_plan(p, lo, n, round, top, size, weight, T, order);
		free(weight);
		p->colour = true;
		free(size);
	}
	sap_colour_free(c);
	free(round);
	return ok;
}
