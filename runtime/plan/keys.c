/* keys.c: key-level plans for async loops, the wavefront and strips,
 * tried when the block plan (group.c, rounds.c) leaves the workers idle;
 * sap_plan_keys makes the cheaper from the key log.
 *
 * When blocks cannot separate iterations that touch few keys each (8
 * random keys of 10^6: every iteration meets 8 of the 64 blocks, so every
 * group meets nearly every other), a plan at key level can: the
 * wavefront.  In index order, iteration i goes in round 1 + the latest
 * round of an earlier iteration it conflicts with on some key (one of the
 * two writes it).  So iterations of one round touch disjoint keys but
 * for reads, and of two that conflict the earlier runs in an earlier
 * round: running the rounds in order, each round's iterations in any
 * order, conflicts the same as running them in index order, and every
 * key ends as the serial loop leaves it, whatever the workers.
 *
 * Data with locality (Lasso's columns touching rows near j n / p, bands
 * wider than 64 blocks allow) chain neighbours in index order, so the
 * wavefront has as many rounds as the chains are long; but the span of
 * iterations that touch any written key is short.  Strips use that: the
 * iterations cut into T m runs, run s in round s mod m, worker w running
 * runs j + w m of round j, i.e. its even share in m pieces (see
 * strips_pick for why no two runs of a round conflict).  Conflicting
 * iterations run in different rounds, though not always in index order:
 * the result, as with a block plan, depends on the number of workers
 * only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* Per key: the round that last wrote it, the latest that read it; for
 * strips, 1 + the first iteration (from lo) that touched it, STRIP_W set
 * once any iteration wrote it. */
typedef struct key_rounds {
	uint32_t w, r, first;
} key_rounds;

#define STRIP_W 0x80000000u

/* One DDS's keys: a dense array for a dvector of at most DENSE_KEYS
 * elements, else a hash table. */
typedef struct key_table {
	bool skip;              /* never a conflict: the iteration's own key */
	key_rounds *dense;
	int64_t ndense;
	sap_keytab hash;
} key_table;

/* Bounds on what the key-level plans hold, so that trying them costs
 * little beside the block plan: a dvector of at most DENSE_KEYS elements
 * gets 12 bytes per element, up to DENSE_TOTAL elements over the DDSs
 * (96 MiB); other keys go to hash tables of at most HASHED_KEYS distinct
 * keys in all (a table at most four slots of 25 bytes per key: 100 MiB),
 * and a loop that touches more gets no key-level plan.  Beside them, 4
 * bytes per iteration for the wavefront's rounds and 4 for the strips'
 * reach.  The key log is read LOG_ACCESSES accesses at a time (2 MiB,
 * with the workers' buffers 7 MiB), in buffers reused from piece to
 * piece: pieces of 24 MiB took fresh pages every time they grew, whose
 * zeroing was half of a short loop's plan, and tripled its peak memory. */
enum { DENSE_KEYS = 1 << 22, DENSE_TOTAL = 1 << 23, HASHED_KEYS = 1 << 20,
       LOG_ACCESSES = 1 << 16 };

/* Strips of up to this many rounds are tried: whatever m, a written
 * key's iterations must lie within about (m - 1) / m of a worker's
 * share, so more rounds gain only the rounding of the runs' edges, and
 * each costs a barrier. */
enum { STRIPS_ROUNDS = 64 };

/* The colouring replaces the wavefront or strips when it costs less by
 * this share of a worker's iterations or more. */
#define COLOUR_GAIN 0.05

typedef struct wave {
	key_table *t;
	int ndds;
	uint32_t *round;        /* per iteration, from 1; 0 when not seen */
	int64_t lo, n;
	uint32_t top;
	int64_t hashed;
	int64_t last;           /* the last iteration fed */
	bool waving;            /* the wavefront is still a candidate */
	/* Strips, while still a candidate (else NULL): per iteration x (from
	 * lo), the last iteration touching a written key whose first is x. */
	uint32_t *far;
	int T;
} wave;

static void wave_init(wave *v, int ndds, int64_t lo, int64_t n, uint32_t *round, int T,
                      bool strips)
{
	memset(v, 0, sizeof *v);
	v->ndds = ndds;
	v->t = sap_xcalloc((size_t)ndds, sizeof *v->t);
	v->lo = lo;
	v->n = n;
	v->round = round;
	v->last = lo - 1;
	v->waving = true;
	v->T = T;
	memset(round, 0, (size_t)n * sizeof *round);
	/* first holds 31 bits of an iteration; and one strip per worker
	 * needs as many iterations. */
	if (strips && n < (int64_t)STRIP_W && n >= T)
		v->far = sap_xcalloc((size_t)n, sizeof *v->far);
}

static void wave_free(wave *v)
{
	for (int k = 0; k < v->ndds; k++) {
		free(v->t[k].dense);
		sap_keytab_free(&v->t[k].hash);
	}
	free(v->t);
	free(v->far);
}

/* ---- hash tables of keys ---- */

static char *kt_slot(const sap_keytab *t, uint64_t h)
{
	return t->slot + h * t->stride;
}

/* The slot of key, or the empty one where it would go. */
static uint64_t kt_at(const sap_keytab *t, int64_t key)
{
	uint64_t h = sap_mix64((uint64_t)key) & (uint64_t)(t->nslot - 1);
	while (t->used[h] && *(int64_t *)kt_slot(t, h) != key)
		h = (h + 1) & (uint64_t)(t->nslot - 1);
	return h;
}

void *sap_keytab_find(const sap_keytab *t, int64_t key)
{
	if (!t->nslot)
		return NULL;
	uint64_t h = kt_at(t, key);
	return t->used[h] ? kt_slot(t, h) + 8 : NULL;
}

void *sap_keytab_make(sap_keytab *t, size_t vsize, int64_t key, int64_t *count, int64_t max)
{
	if (t->nslot) {
		uint64_t h = kt_at(t, key);
		if (t->used[h])
			return kt_slot(t, h) + 8;
	}
	if (*count >= max)
		return NULL;
	if (2 * (t->n + 1) > t->nslot) {
		sap_keytab old = *t;
		t->stride = 8 + ((vsize + 7) & ~(size_t)7);
		t->nslot = old.nslot ? 2 * old.nslot : 1024;
		t->slot = sap_xcalloc((size_t)t->nslot, t->stride);
		t->used = sap_xcalloc((size_t)t->nslot, 1);
		for (int64_t k = 0; k < old.nslot; k++)
			if (old.used[k]) {
				uint64_t h = kt_at(t, *(int64_t *)kt_slot(&old, (uint64_t)k));
				memcpy(kt_slot(t, h), kt_slot(&old, (uint64_t)k), t->stride);
				t->used[h] = 1;
			}
		free(old.slot);
		free(old.used);
	}
	uint64_t h = kt_at(t, key);
	t->used[h] = 1;
	memcpy(kt_slot(t, h), &key, sizeof key);
	t->n++;
	(*count)++;
	return kt_slot(t, h) + 8;
}

void sap_keytab_free(sap_keytab *t)
{
	free(t->slot);
	free(t->used);
	memset(t, 0, sizeof *t);
}

/* The rounds of key, or NULL when none touched it yet. */
static const key_rounds *kr_find(const key_table *t, int64_t key)
{
	if (t->dense)
		return (uint64_t)key < (uint64_t)t->ndense ? &t->dense[key] : NULL;
	return sap_keytab_find(&t->hash, key);
}

/* The rounds of key, made if new; NULL past HASHED_KEYS. */
static key_rounds *kr_make(wave *v, key_table *t, int64_t key)
{
	if (t->dense)
		return (uint64_t)key < (uint64_t)t->ndense ? &t->dense[key] : NULL;
	return sap_keytab_make(&t->hash, sizeof(key_rounds), key, &v->hashed, HASHED_KEYS);
}

/* What a strip of iteration k (from lo) learns from touching kr with
 * mode: a written key's iterations, from its first to k, may conflict.
 * A span of n / T or more kills strips: see strips_pick. */
static void strip_touch(wave *v, key_rounds *kr, int mode, uint32_t k)
{
	if (!kr->first)
		kr->first = k + 1;
	if (mode & SAP_WRITE)
		kr->first |= STRIP_W;
	if (!(kr->first & STRIP_W))
		return;
	uint32_t f = (kr->first & ~STRIP_W) - 1;
	if (v->far[f] < k)
		v->far[f] = k;
	if ((double)(k - f) * v->T >= (double)v->n) {
		free(v->far);
		v->far = NULL;
	}
}

/* Feed the accesses a[0 .. na), each iteration's together, iterations
 * ascending and after those fed before, to the candidates still alive.
 * False past the bounds on keys held. */
static bool wave_feed(wave *v, const sap_access *a, int64_t na)
{
	for (int64_t s = 0; s < na && (v->waving || v->far);) {
		int64_t i = a[s].i, e = s;
		if (i <= v->last || i >= v->lo + v->n)
			sap_fatal(NULL, "internal error: a key log out of iteration order at %lld",
			          (long long)i);
		uint32_t r = 0;
		for (; e < na && a[e].i == i; e++) {
			if (a[e].dds < 0 || a[e].dds >= v->ndds)
				sap_fatal(NULL, "internal error: a key log names DDS %d", (int)a[e].dds);
			const key_table *t = &v->t[a[e].dds];
			if (t->skip || !v->waving)
				continue;
			const key_rounds *kr = kr_find(t, a[e].key);
			if (!kr)
				continue;
			r = kr->w > r ? kr->w : r;
			if ((a[e].mode & SAP_WRITE) && kr->r > r)
				r = kr->r;
		}
		if (r == UINT32_MAX - 1)
			v->waving = false;
		r++;
		for (int64_t q = s; q < e; q++) {
			key_table *t = &v->t[a[q].dds];
			if (t->skip)
				continue;
			key_rounds *kr = kr_make(v, t, a[q].key);
			if (!kr)
				return false;
			if (v->waving) {
				if (a[q].mode & SAP_WRITE)
					kr->w = r;
				if ((a[q].mode & SAP_READ) && kr->r < r)
					kr->r = r;
			}
			/* Past the wavefront, first keeps the slot taken. */
			if (v->far)
				strip_touch(v, kr, a[q].mode, (uint32_t)(i - v->lo));
		}
		if (v->waving) {
			v->round[i - v->lo] = r;
			v->top = r > v->top ? r : v->top;
		}
		v->last = i;
		s = e;
	}
	return true;
}

int64_t *sap_rounds_sizes(uint32_t *round, int64_t n, uint32_t *top)
{
	if (!*top)
		*top = 1;
	int64_t *size = sap_xcalloc((size_t)*top + 1, sizeof *size);
	for (int64_t k = 0; k < n; k++) {
		if (!round[k])
			round[k] = 1;
		size[round[k]]++;
	}
	return size;
}

static int64_t *wave_sizes(wave *v)
{
	return sap_rounds_sizes(v->round, v->n, &v->top);
}

double sap_rounds_cost(const int64_t *size, uint32_t top, int64_t n, int T)
{
	double steps = 0, share = (double)n / T;
	for (uint32_t r = 1; r <= top; r++)
		steps += (double)((size[r] + T - 1) / T);
	return steps + (double)top * (share / 2000.0 + 1.0);
}

void sap_log_weigh(uint32_t *weight, const sap_access *log, int64_t nlog, int64_t lo, int64_t n)
{
	for (int64_t k = 0; k < nlog; k++) {
		int64_t i = log[k].i - lo;
		if (i >= 0 && i < n && weight[i] < UINT32_MAX)
			weight[i]++;
	}
}

/* Where worker w's group of a round of m iterations, at[0 .. m) of the
 * plan's order, begins: cut[w], of T + 1.  By weight, an iteration goes
 * to the earlier group when its middle falls before the cut. */
static void round_cuts(int64_t *cut, const int64_t *at, int64_t m, const uint32_t *weight,
                       int64_t lo, int T)
{
	if (!weight) {
		for (int w = 0; w <= T; w++)
			cut[w] = sap_chunk(0, m, T, w);
		return;
	}
	double total = 0;
	for (int64_t j = 0; j < m; j++)
		total += (double)weight[at[j] - lo] + 1.0;
	double sum = 0;
	int64_t j = 0;
	cut[0] = 0;
	for (int w = 1; w < T; w++) {
		double goal = total * w / T;
		while (j < m && sum + ((double)weight[at[j] - lo] + 1.0) / 2.0 < goal)
			sum += (double)weight[at[j++] - lo] + 1.0;
		cut[w] = j;
	}
	cut[T] = m;
}

/* With weights, the groups of a round are even in accesses rather than
 * iterations: a triangular loop (row i of an all-pairs table fills
 * n - i - 1 cells) cut by counts gave the first of 2 workers three
 * quarters of the work, 1.4x where 2x was there.  The weights come from
 * the keys, alike on every layout; the balance stays the counts'. */
void sap_rounds_plan(sap_plan *p, int64_t lo, int64_t n, const uint32_t *round, uint32_t R,
                     const int64_t *size, const uint32_t *weight, int T, int64_t *order)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->nworkers = T;
	p->keys = true;
	if (order) {
		p->order = order;
	} else {
		p->order = sap_xmalloc((size_t)n * sizeof *p->order);
		p->owns_order = true;
	}
	int64_t *at = sap_xmalloc(((size_t)R + 2) * sizeof *at);
	at[1] = 0;
	for (uint32_t r = 1; r <= R; r++)
		at[r + 1] = at[r] + size[r];
	for (int64_t k = 0; k < n; k++)
		p->order[at[round[k]]++] = lo + k;
	int64_t G = 0;
	for (uint32_t r = 1; r <= R; r++)
		G += size[r] < T ? size[r] : T;
	p->goff = sap_xmalloc((size_t)(G + 1) * sizeof *p->goff);
	p->gmask = sap_xmalloc((size_t)G * sizeof *p->gmask);
	p->rg = sap_xmalloc((size_t)G * sizeof *p->rg);
	p->nrounds = R;
	p->ro = sap_xmalloc(((size_t)R * (size_t)T + 1) * sizeof *p->ro);
	p->rlocked = sap_xcalloc((size_t)R, sizeof *p->rlocked);
	/* Blocks mean nothing here: every group may touch any of them. */
	for (int b = 0; b < 64; b++) {
		p->bit[b] = (uint8_t)b;
		p->bitw[b] = 1;
	}
	memset(p->home, 255, sizeof p->home);
	int64_t *cut = sap_xmalloc(((size_t)T + 1) * sizeof *cut);
	int64_t g = 0, base = 0;
	double maxsum = 0;
	for (uint32_t r = 1; r <= R; r++) {
		round_cuts(cut, p->order + base, size[r], weight, lo, T);
		for (int w = 0; w < T; w++) {
			p->ro[(int64_t)(r - 1) * T + w] = g;
			if (cut[w + 1] > cut[w]) {
				p->goff[g] = base + cut[w];
				p->gmask[g] = ~(uint64_t)0;
				p->rg[g] = g;
				g++;
			}
		}
		maxsum += (double)((size[r] + T - 1) / T);
		base += size[r];
	}
	p->ngroups = g;
	p->goff[g] = n;
	p->ro[(int64_t)R * T] = g;
	p->balance = n ? maxsum * T / (double)n : 1.0;
	free(cut);
	free(at);
}

static void wave_plan(sap_plan *p, const wave *v, const int64_t *size, const uint32_t *weight,
                      int T, int64_t *order)
{
	sap_rounds_plan(p, v->lo, v->n, v->round, v->top, size, weight, T, order);
}

/* The fewest rounds m of strips for T workers (0 when none up to
 * STRIPS_ROUNDS works), turning v->far into its prefix maximum; *cost
 * gets the plan's cost as sap_plan_cost counts it.
 *
 * Why the colouring is conflict-free: two iterations x < y conflict only
 * on a key one of them writes, whose interval [first, last] of
 * iterations touching it holds both; far[first] >= last when fed, so
 * after the prefix maximum far[x] >= y, and far is ascending.  With runs
 * of T m, x in run s and y in run t > s: y <= far[x] <= far[end of s -
 * 1], which lies before run s + m when the test below holds, so t - s <
 * m and s mod m != t mod m: different rounds.  Runs of one round are m
 * or more apart, so no two conflict; a run is one worker's.  And a span
 * last - first >= n / T fails every m: a run's start is floor(s n / R),
 * so the runs s .. s + m - 1 hold at most ceil(n / T) iterations and
 * the span would need more (strip_touch stops on it). */
static int strips_pick(wave *v, int T, double *cost)
{
	int64_t n = v->n;
	uint32_t *far = v->far, top = 0;
	for (int64_t x = 0; x < n; x++) {
		top = far[x] > top ? far[x] : top;
		top = (uint32_t)x > top ? (uint32_t)x : top;
		far[x] = top;
	}
	double charge = (double)n / T / 2000.0 + 1.0;
	for (int m = 1; m <= STRIPS_ROUNDS && (int64_t)T * m <= n; m++) {
		int R = T * m;
		bool fits = true;
		for (int s = 0; s + m < R && fits; s++)
			fits = far[sap_chunk(0, n, R, s + 1) - 1] < sap_chunk(0, n, R, s + m);
		if (!fits)
			continue;
		double steps = 0;
		for (int j = 0; j < m; j++) {
			int64_t most = 0;
			for (int w = 0; w < T; w++) {
				int q = j + w * m;
				int64_t c = sap_chunk(0, n, R, q + 1) - sap_chunk(0, n, R, q);
				most = c > most ? c : most;
			}
			steps += (double)most;
		}
		*cost = steps + (double)m * charge;
		return m;
	}
	return 0;
}

/* The plan of strips in m rounds: round j, worker w runs the iterations
 * of run j + w m of T m, in index order, one group. */
static void strips_plan(sap_plan *p, int64_t lo, int64_t n, int T, int m, int64_t *order)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->nworkers = T;
	p->keys = true;
	p->strips = true;
	if (order) {
		p->order = order;
	} else {
		p->order = sap_xmalloc((size_t)n * sizeof *p->order);
		p->owns_order = true;
	}
	int R = T * m;
	p->ngroups = R;
	p->goff = sap_xmalloc(((size_t)R + 1) * sizeof *p->goff);
	p->gmask = sap_xmalloc((size_t)R * sizeof *p->gmask);
	p->rg = sap_xmalloc((size_t)R * sizeof *p->rg);
	p->nrounds = m;
	p->ro = sap_xmalloc(((size_t)R + 1) * sizeof *p->ro);
	p->rlocked = sap_xcalloc((size_t)m, sizeof *p->rlocked);
	for (int b = 0; b < 64; b++) {
		p->bit[b] = (uint8_t)b;
		p->bitw[b] = 1;
	}
	memset(p->home, 255, sizeof p->home);
	int64_t at = 0, g = 0;
	double maxsum = 0;
	for (int j = 0; j < m; j++) {
		int64_t most = 0;
		for (int w = 0; w < T; w++, g++) {
			int q = j + w * m;
			int64_t a = sap_chunk(0, n, R, q), b = sap_chunk(0, n, R, q + 1);
			p->ro[g] = g;
			p->rg[g] = g;
			p->goff[g] = at;
			p->gmask[g] = ~(uint64_t)0;
			for (int64_t x = a; x < b; x++)
				p->order[at++] = lo + x;
			most = b - a > most ? b - a : most;
		}
		maxsum += (double)most;
	}
	p->goff[R] = n;
	p->ro[R] = R;
	p->balance = n ? maxsum * T / (double)n : 1.0;
}

bool sap_plan_wave(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                   int T, int64_t *order)
{
	int ndds = 0;
	for (int64_t k = 0; k < nlog; k++)
		ndds = log[k].dds + 1 > ndds ? log[k].dds + 1 : ndds;
	if (n <= 0 || n >= UINT32_MAX)
		return false;
	uint32_t *round = sap_xmalloc((size_t)n * sizeof *round);
	wave v;
	wave_init(&v, ndds, lo, n, round, T, false);
	bool ok = wave_feed(&v, log, nlog) && v.waving;
	if (ok) {
		int64_t *size = wave_sizes(&v);
		uint32_t *weight = sap_xcalloc((size_t)n, sizeof *weight);
		sap_log_weigh(weight, log, nlog, lo, n);
		wave_plan(p, &v, size, weight, T, order);
		free(weight);
		free(size);
	}
	wave_free(&v);
	free(round);
	return ok;
}

bool sap_plan_strips(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                     int T, int64_t *order)
{
	int ndds = 0;
	for (int64_t k = 0; k < nlog; k++)
		ndds = log[k].dds + 1 > ndds ? log[k].dds + 1 : ndds;
	if (n <= 0 || n >= UINT32_MAX)
		return false;
	uint32_t *round = sap_xmalloc((size_t)n * sizeof *round);
	wave v;
	wave_init(&v, ndds, lo, n, round, T, true);
	double cost;
	int m = wave_feed(&v, log, nlog) && v.far ? strips_pick(&v, T, &cost) : 0;
	if (m)
		strips_plan(p, lo, n, T, m, order);
	wave_free(&v);
	free(round);
	return m > 0;
}

/* The key tables of v for the loop's DDSs: none for those that never
 * conflict (the iteration's own element, one no iteration writes),
 * dense arrays for dvectors within DENSE_KEYS, up to budget keys, that
 * the loop's acc[k] accesses may touch a fair share of (sap_dense_keys). */
static void tables_make(wave *v, const sap_async_spec *spec, const sap_layout *ly, int64_t budget,
                        const int64_t *acc)
{
	int64_t dense = 0;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		key_table *t = &v->t[k];
		t->skip = ly->d[k].own || !ly->d[k].nblk;
		if (!t->skip && d->dv && d->dv->n <= DENSE_KEYS && dense + d->dv->n <= budget &&
		    sap_dense_keys(d->dv->n, acc[k])) {
			t->ndense = d->dv->n;
			t->dense = sap_xcalloc((size_t)t->ndense, sizeof *t->dense);
			dense += t->ndense;
		}
	}
}

/* How many iterations the next piece of the key log takes, for about
 * LOG_ACCESSES accesses, nacc having come from `done`. */
static int64_t log_chunk(int64_t nacc, int64_t done)
{
	int64_t per = nacc / (done > 0 ? done : 1) + 1, chunk = LOG_ACCESSES / per;
	return chunk < 1 ? 1 : chunk > 65536 ? 65536 : chunk;
}

/* The wavefront and strips on one thread, the colouring on another. */
typedef struct feed_job {
	wave *v;
	sap_colouring *c;
	const sap_keylog *log;
	int nw;
	bool fed;
} feed_job;

static void feed_worker(void *arg, int w)
{
	feed_job *f = arg;
	if (w == 0)
		f->fed = wave_feed(f->v, f->log->v, f->log->n);
	if ((w == 1 || f->nw == 1) && sap_colour_alive(f->c))
		sap_colour_feed(f->c, f->log->v, f->log->n);
}

/* Did the last plan made with this layout try a key-level plan and keep
 * the blocks'?  Then this one does not try (a locked plan always does). */
bool sap_plan_keys_lost(const sap_layout *ly, const sap_plan *p)
{
	return ly->memo && ly->memo->keys_tried && !ly->memo->keys_won && !p->nlocked;
}

void sap_plan_keys_tried(const sap_layout *ly, bool won)
{
	if (ly->memo) {
		ly->memo->keys_tried = true;
		ly->memo->keys_won = won;
	}
}

/* The key-level plan of [lo, hi) for T workers from the key log, sliced
 * on `threads` threads, into p: the cheaper of the wavefront and strips,
 * when it costs less than max_cost; round is scratch for hi - lo rounds.
 * False, p untouched, when neither does, or when the keys exceed the
 * bounds above.  It reads the log only while a candidate may still make
 * it: the wavefront until its rounds alone cost max_cost (so a loop
 * whose iterations form long chains, a hot key, pays for a little of its
 * log only), strips until a written key spans n / T iterations. */
bool sap_plan_keys(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly, void *env,
                   int64_t lo, int64_t hi, int T, int threads, uint32_t *round, int64_t *order,
                   double max_cost)
{
	int64_t n = hi - lo;
	if (n <= 0 || n >= UINT32_MAX || !ly->nparts)
		return false;
	double share = (double)n / T, charge = share / 2000.0 + 1.0;
	wave v;
	/* Strips take at least a worker's share and a round. */
	wave_init(&v, spec->ndds, lo, n, round, T, share + charge < max_cost);
	uint32_t *colour = sap_xmalloc((size_t)n * sizeof *colour);
	uint32_t *weight = sap_xcalloc((size_t)n, sizeof *weight);
	sap_colouring *c = NULL;
	int64_t chunk = 1024, nacc = 0;
	int64_t *idx = sap_xmalloc(65536 * sizeof *idx);
	bool fed = true;
	sap_keylog log = { 0 };
	for (int64_t s = lo; s < hi && fed && (v.waving || v.far || !c || sap_colour_alive(c));) {
		int64_t e = hi - s < chunk ? hi : s + chunk;
		for (int64_t i = s; i < e; i++)
			idx[i - s] = i;
		/* The accesses expected, from those of the chunks before. */
		if (s > lo)
			sap_keylog_reserve(&log, threads, (int64_t)((double)nacc / (double)(s - lo) *
			                                            (double)(e - s)) + 1);
		log.n = 0;
		sap_recon_log(spec, ly, env, idx, e - s, &log, threads);
		sap_log_weigh(weight, log.v, log.n, lo, n);
		if (!c) {
			/* The tables once the first chunk tells how many keys of
			 * each DDS an iteration touches: a sparse model's 20 keys
			 * an example over a vector of a million is no fair share. */
			int64_t *acc = sap_xcalloc((size_t)spec->ndds + 1, sizeof *acc);
			for (int64_t k = 0; k < log.n; k++)
				if (log.v[k].dds >= 0 && log.v[k].dds < spec->ndds)
					acc[log.v[k].dds]++;
			for (int k = 0; k < spec->ndds; k++)
				acc[k] = (int64_t)((double)acc[k] / (double)(e - s) * (double)n);
			tables_make(&v, spec, ly, DENSE_TOTAL, acc);
			c = sap_colour_new(spec, ly, spec->ndds, lo, n, colour, acc);
			free(acc);
		}
		feed_job f = { &v, c, &log, threads > 1 ? 2 : 1, true };
		sap_pool_run(f.nw, feed_worker, &f);
		fed = f.fed;
		nacc += log.n;
		/* The rounds of each and the work so far are a lower bound of
		 * its cost. */
		double work = (double)(e - lo) / T;
		v.waving = v.waving && (double)v.top * charge + work < max_cost;
		if ((double)sap_colour_top(c) * charge + work >= max_cost)
			sap_colour_kill(c);
		chunk = log_chunk(nacc, e - lo);
		s = e;
	}
	free(idx);
	sap_keylog_free(&log);
	/* The cheapest: on a tie the wavefront, which keeps the serial
	 * loop's result, then strips, whose runs are contiguous; the
	 * colouring, which has neither, when it saves COLOUR_GAIN of a
	 * worker's share more. */
	double wc = INFINITY, sc = INFINITY, cc = INFINITY;
	int64_t *size = NULL, *csize = NULL;
	int m = 0;
	uint32_t ctop = sap_colour_top(c);
	if (fed && v.waving) {
		size = wave_sizes(&v);
		wc = sap_rounds_cost(size, v.top, n, T);
	}
	if (fed && v.far)
		m = strips_pick(&v, T, &sc);
	sc = m ? sc : INFINITY;
	if (fed && sap_colour_alive(c)) {
		csize = sap_rounds_sizes(colour, n, &ctop);
		cc = sap_rounds_cost(csize, ctop, n, T);
	}
	wave_free(&v);
	sap_colour_free(c);
	bool colours = cc < max_cost && cc + COLOUR_GAIN * share < fmin(wc, sc);
	bool ok = colours || fmin(wc, sc) < max_cost;
	if (ok) {
		sap_plan_free(p);
		if (colours) {
			sap_rounds_plan(p, lo, n, colour, ctop, csize, weight, T, order);
			p->colour = true;
		} else if (wc <= sc) {
			wave_plan(p, &v, size, weight, T, order);
		} else {
			strips_plan(p, lo, n, T, m, order);
		}
	}
	free(size);
	free(csize);
	free(colour);
	free(weight);
	return ok;
}
