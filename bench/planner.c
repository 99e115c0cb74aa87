/* planner: the parallelism the async planner finds on synthetic access
 * patterns, against an upper bound, with the plan checker on every plan.
 *
 *   bench/planner [ITERATIONS]
 *
 * Work is counted in iterations.  A plan's critical path is the sum over
 * its rounds of the busiest worker's iterations, and its parallelism the
 * iterations over the critical path.  No schedule on T workers does
 * better than the bound min(T, n / c), c the most iterations that write
 * one key: those all conflict, so they run one after another.  The
 * planner works on blocks of keys, and at key level (a wavefront, strips
 * of contiguous runs, or a colouring) only when blocks leave the workers
 * idle, so
 * it can fall short of the bound; the table says by how much, and which
 * plan it made. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <math.h>
#include "synth.h"

/* Iteration i touches keys key[off[i] .. off[i + 1]) of DDSs dds[..],
 * all read and written; `own` adds a write of Y[i], as Lasso writes its
 * coefficient. */
typedef struct loop {
	int64_t n, *off, *key;
	int8_t *dds;
	sap_dvec X[2], Y;
	sap_dds d[3];
	sap_affine own;
	sap_async_spec spec;
} loop;

static void slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	loop *m = env;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		for (int64_t q = m->off[i]; q < m->off[i + 1]; q++)
			sap_rec_key(rec, m->dds[q], m->key[q], SAP_RW);
	}
}

static void loop_init(loop *m, int64_t n, int64_t per, const int64_t nkeys[2], bool own)
{
	memset(m, 0, sizeof *m);
	m->n = n;
	m->off = calloc((size_t)n + 1, sizeof *m->off);
	m->key = calloc((size_t)(n * per), sizeof *m->key);
	m->dds = calloc((size_t)(n * per), 1);
	static const char *const names[2] = { "X", "Z" };
	int nd = 0;
	for (int k = 0; k < 2 && nkeys[k]; k++, nd++) {
		sap_dv_create(&m->X[k], names[k], nkeys[k], 8, NULL);
		m->d[k] = (sap_dds){ .name = names[k], .dv = &m->X[k], .mode = SAP_RW };
	}
	m->spec = (sap_async_spec){ .dds = m->d, .ndds = nd, .slice = slice };
	if (own) {
		sap_dv_create(&m->Y, "Y", n, 8, NULL);
		m->d[nd] = (sap_dds){ .name = "Y", .dv = &m->Y, .mode = SAP_WRITE, .no_slice = true };
		m->own = (sap_affine){ nd, SAP_WRITE, 1, 0 };
		m->spec.ndds = nd + 1;
		m->spec.affine = &m->own;
		m->spec.naffine = 1;
	}
}

static void add(loop *m, int64_t i, int dds, int64_t key)
{
	/* A key already there (two draws alike) counts once. */
	for (int64_t q = m->off[i]; q < m->off[i + 1]; q++)
		if (m->dds[q] == dds && m->key[q] == key)
			return;
	m->dds[m->off[i + 1]] = (int8_t)dds;
	m->key[m->off[i + 1]++] = key;
}

static void next(loop *m, int64_t i)
{
	m->off[i + 2] = m->off[i + 1];
}

static void loop_free(loop *m)
{
	free(m->off);
	free(m->key);
	free(m->dds);
	for (int k = 0; k < 2; k++)
		if (m->X[k].data)
			sap_dv_free(&m->X[k]);
	if (m->Y.data)
		sap_dv_free(&m->Y);
}

/* Zipf(s) over [0, n) by inversion of a table of cumulative weights. */
typedef struct zipf {
	double *cum;
	int64_t n;
} zipf;

static void zipf_init(zipf *z, int64_t n, double s)
{
	z->n = n;
	z->cum = malloc((size_t)n * sizeof *z->cum);
	double t = 0;
	for (int64_t k = 0; k < n; k++)
		z->cum[k] = t += pow((double)(k + 1), -s);
	for (int64_t k = 0; k < n; k++)
		z->cum[k] /= t;
}

static int64_t zipf_draw(const zipf *z, uint64_t *s)
{
	double u = (double)(synth_next(s) >> 11) * 0x1p-53;
	int64_t lo = 0, hi = z->n - 1;
	while (lo < hi) {
		int64_t mid = (lo + hi) / 2;
		if (z->cum[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- the patterns ---- */

/* Lasso's columns: feature j touches 10 rows within +-w of j n / p. */
static void banded(loop *m, int64_t p, int64_t rows, int64_t w)
{
	loop_init(m, p, 10, (int64_t[2]){ rows, 0 }, true);
	uint64_t s = 1;
	for (int64_t j = 0; j < p; j++) {
		next(m, j - 1 < 0 ? -1 : j - 1);
		int64_t c = j * rows / p;
		for (int k = 0; k < 10; k++) {
			int64_t r = c - w + synth_below(&s, 2 * w + 1);
			add(m, j, 0, r < 0 ? 0 : r >= rows ? rows - 1 : r);
		}
	}
}

/* 16 clusters of keys; an iteration touches 3 keys of one cluster. */
static void block_diagonal(loop *m, int64_t n, int64_t keys)
{
	loop_init(m, n, 3, (int64_t[2]){ keys, 0 }, false);
	uint64_t s = 2;
	for (int64_t i = 0; i < n; i++) {
		next(m, i - 1);
		int64_t c = synth_below(&s, 16), lo = c * keys / 16, hi = (c + 1) * keys / 16;
		for (int k = 0; k < 3; k++)
			add(m, i, 0, lo + synth_below(&s, hi - lo));
	}
}

/* SGDMF: one row of each of two matrices. */
static void bipartite(loop *m, int64_t n, int64_t users, int64_t items)
{
	loop_init(m, n, 2, (int64_t[2]){ users, items }, false);
	uint64_t s = 3;
	for (int64_t i = 0; i < n; i++) {
		next(m, i - 1);
		add(m, i, 0, synth_below(&s, users));
		add(m, i, 1, synth_below(&s, items));
	}
}

/* Two keys, Zipf-distributed with the popular keys first, as word ids
 * sorted by frequency have them. */
static void power_law(loop *m, int64_t n, int64_t keys, double sk)
{
	loop_init(m, n, 2, (int64_t[2]){ keys, 0 }, false);
	zipf z;
	zipf_init(&z, keys, sk);
	uint64_t s = 4;
	for (int64_t i = 0; i < n; i++) {
		next(m, i - 1);
		add(m, i, 0, zipf_draw(&z, &s));
		add(m, i, 0, zipf_draw(&z, &s));
	}
	free(z.cum);
}

/* per keys drawn uniformly: a graph's edges (2), or sparse examples. */
static void uniform(loop *m, int64_t n, int64_t keys, int per)
{
	loop_init(m, n, per, (int64_t[2]){ keys, 0 }, false);
	uint64_t s = 5;
	for (int64_t i = 0; i < n; i++) {
		next(m, i - 1);
		for (int k = 0; k < per; k++)
			add(m, i, 0, synth_below(&s, keys));
	}
}

/* ---- measuring ---- */

/* The most iterations writing one key. */
static int64_t hottest(const loop *m)
{
	int64_t most = 0;
	for (int d = 0; d < 2 && m->X[d].data; d++) {
		int64_t *c = calloc((size_t)m->X[d].n, sizeof *c);
		for (int64_t q = 0; q < m->off[m->n]; q++)
			if (m->dds[q] == d && ++c[m->key[q]] > most)
				most = c[m->key[q]];
		free(c);
	}
	return most;
}

/* The parallelism of a key-level greedy colouring: iteration i goes in
 * the first round after every earlier iteration that shares a key with
 * it (so conflicting iterations keep their order), and a round of c
 * iterations takes ceil(c / T) steps on T workers. */
static double greedy(const loop *m, int T)
{
	int64_t nk[2] = { m->X[0].n, m->X[1].data ? m->X[1].n : 0 };
	int64_t *last[2];
	for (int d = 0; d < 2; d++)
		last[d] = calloc((size_t)(nk[d] ? nk[d] : 1), sizeof **last);
	int64_t *size = calloc((size_t)m->n + 2, sizeof *size), top = 0;
	for (int64_t i = 0; i < m->n; i++) {
		int64_t r = 0;
		for (int64_t q = m->off[i]; q < m->off[i + 1]; q++)
			if (last[m->dds[q]][m->key[q]] > r)
				r = last[m->dds[q]][m->key[q]];
		r++;
		for (int64_t q = m->off[i]; q < m->off[i + 1]; q++)
			last[m->dds[q]][m->key[q]] = r;
		size[r]++;
		top = r > top ? r : top;
	}
	int64_t steps = 0;
	for (int64_t r = 1; r <= top; r++)
		steps += (size[r] + T - 1) / T;
	free(size);
	free(last[0]);
	free(last[1]);
	return (double)m->n / (double)steps;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int short_count;

static void measure(const char *name, loop *m)
{
	int64_t c = hottest(m);
	static const int Ts[] = { 2, 4, 8, 16 };
	for (size_t t = 0; t < sizeof Ts / sizeof Ts[0]; t++) {
		int T = Ts[t];
		/* As plan_spec does, timing the reconnaissance and planning
		 * but not the key log for the checker. */
		planned pl;
		memset(&pl, 0, sizeof pl);
		double t0 = now(), slicing;
		sap_layout_make(&pl.ly, &m->spec, T, 0);
		sap_layout_weigh(&pl.ly, &m->spec, m, 0, m->n, T, false);
		pl.ids = sap_xmalloc((size_t)m->n * sizeof *pl.ids);
		pl.order = sap_xmalloc((size_t)m->n * sizeof *pl.order);
		sap_plan_recon(&pl.plan, &m->spec, &pl.ly, m, 0, m->n, T, T, false, pl.ids,
		               pl.order, &slicing, NULL);
		double secs = now() - t0;
		int64_t *all = sap_xmalloc((size_t)m->n * sizeof *all);
		for (int64_t i = 0; i < m->n; i++)
			all[i] = i;
		sap_recon_log(&m->spec, &pl.ly, m, all, m->n, &pl.log, T);
		free(all);
		const sap_plan *p = &pl.plan;
		sap_conflict x;
		bool ok = sap_plan_check(p, 0, pl.log.v, pl.log.n, &x);
		double par = T / p->balance;
		double bound = fmin(T, (double)m->n / (double)c);
		double ratio = par / bound;
		bool serial = bound < 1.5;
		if (!serial && ratio < 0.8)
			short_count++;
		printf("%-18s %3d %9.2f %7.2f %7.2f %6.2f%-6s %-6s %7lld %7lld %7.3f  %s\n", name, T,
		       par, bound, greedy(m, T), ratio,
		       serial ? " (serial bound)" : !serial && ratio < 0.8 ? " SHORT" : "",
		       p->strips ? "strips" : p->colour ? "colour" : p->keys ? "keys" : "blocks",
		       (long long)p->ngroups, (long long)p->nrounds, secs,
		       ok ? "ok" : "CONFLICT");
		if (!ok)
			exit(1);
		planned_free(&pl);
	}
}

int main(int argc, char **argv)
{
	int64_t n = argc > 1 ? atoll(argv[1]) : 200000;
	sap_cfg.threads = 16;
	printf("%lld iterations per pattern; work in iterations; parallel = work / critical "
	       "path of the plan;\nbound = min(T, n / most writers of one key); greedy = a "
	       "key-level greedy colouring (see greedy());\nratio = parallel / bound; plan s = "
	       "reconnaissance and planning on %d threads\n\n", (long long)n, sap_threads());
	printf("%-18s %3s %9s %7s %7s %12s %-6s %7s %7s %7s  %s\n", "pattern", "T", "parallel",
	       "bound", "greedy", "ratio", "plan", "groups", "rounds", "plan s", "checker");
	loop m;
	banded(&m, n / 10, n, n / 1000);
	measure("banded (Lasso)", &m);
	loop_free(&m);
	banded(&m, n / 10, n, n / 50);
	measure("banded, wide", &m);
	loop_free(&m);
	block_diagonal(&m, n, 100000);
	measure("block-diagonal", &m);
	loop_free(&m);
	bipartite(&m, n, 20000, 5000);
	measure("bipartite (SGDMF)", &m);
	loop_free(&m);
	power_law(&m, n, 100000, 1.0);
	measure("power-law s=1", &m);
	loop_free(&m);
	power_law(&m, n, 100000, 0.6);
	measure("power-law s=0.6", &m);
	loop_free(&m);
	uniform(&m, n, 1000000, 2);
	measure("uniform, 2 keys", &m);
	loop_free(&m);
	uniform(&m, n, 1000000, 8);
	measure("uniform, 8 keys", &m);
	loop_free(&m);
	/* Lasso's columns over uniformly random rows: 20 of n / 2. */
	uniform(&m, n, n / 2, 20);
	measure("uniform, 20 of n/2", &m);
	loop_free(&m);
	printf("\n%d plans below 0.8 of a bound that is not serial\n", short_count);
	return 0;
}
