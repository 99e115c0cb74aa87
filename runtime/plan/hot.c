/* hot.c: the warning a loop gets when its plan gives its workers
 * nothing to do in parallel, or takes locks.
 *
 * Such a plan is almost always the work of a few hot keys (the weights
 * of frequent features, TransE's relation rows, LDA's topic totals) that
 * most iterations write, or of iterations that each write so many elements
 * that every task group meets every other.  Both are easy to miss: the
 * program is correct, only slow, and with --locks not deterministic.
 * So when a plan is built, one line on stderr says which, from the keys
 * of an evenly spaced sample of the iterations, and what to do.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

/* Iterations sampled: a share is then exact to a fraction of a percent,
 * and logging them costs less than the plan did. */
enum { SAMPLE = 65536 };

/* A key written by at least this share of the iterations is named as the
 * cause: it alone keeps that share of the work on one worker at a time. */
#define HOT_SHARE 0.1

/* Invocations of fewer iterations are not warned about. */
enum { WARN_MIN = 64 };

/* Fewer iterations than twice the workers leave some idle in any plan;
 * such a loop, or one of a few dozen iterations, is too short to matter
 * (a Dijkstra's relaxing of a vertex's 9 arcs). */
static bool too_short(int workers, int64_t n)
{
	return workers < 2 || n < 2 * (int64_t)workers || n < WARN_MIN;
}

/* Iterations logged at a time, at most: the log holds every key they
 * touch, so only the counts of the elements, which are at most the DDSs'
 * sizes, grow with the sample.  Iterations of many keys each go fewer at
 * a time, LOG_KEYS keys or so: 4096 iterations of a Lasso's dense column
 * (2000 keys each) made a 256 MB log, grown by copies and faulted in
 * page by page, which cost the probes three times the plan. */
enum { CHUNK = 4096, LOG_KEYS = 65536 };

/* One element written by some sampled iterations, and by how many. */
typedef struct hot_key {
	int64_t dds, key, count;
	int64_t first, last;    /* the first and last iteration counted */
} hot_key;

static void span_add(hot_key *a, const hot_key *b)
{
	a->count += b->count;
	a->first = b->first < a->first ? b->first : a->first;
	a->last = b->last > a->last ? b->last : a->last;
}

static int by_key(const void *x, const void *y)
{
	const hot_key *a = x, *b = y;
	if (a->dds != b->dds)
		return (a->dds > b->dds) - (a->dds < b->dds);
	return (a->key > b->key) - (a->key < b->key);
}

/* v[0 .. n) sorted by element, each element once with the counts of its
 * entries summed; the entries left. */
static int64_t merge_runs(hot_key *v, int64_t n)
{
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, by_key);
	int64_t m = 0;
	for (int64_t k = 0; k < n; k++) {
		if (m && !by_key(&v[m - 1], &v[k]))
			span_add(&v[m - 1], &v[k]);
		else
			v[m++] = v[k];
	}
	return m;
}

/* Reads, counted for the warning's cause only, are entries of DDS
 * READ + d, which sort after every write; a read of a DDS the loop does
 * not write, or accumulates, is no conflict and not counted (NOT). */
#define READ (INT64_C(1) << 32)
enum { NOT = -1 };

static int64_t counted(const sap_access *x, const sap_async_spec *spec, bool reads)
{
	if (x->mode & SAP_WRITE)
		return x->dds;
	if (!reads || x->dds < 0 || x->dds >= spec->ndds)
		return NOT;
	const sap_dds *d = &spec->dds[x->dds];
	return (d->mode & SAP_WRITE) && !d->accumulate ? READ + x->dds : NOT;
}

/* The distinct elements each iteration of the log writes (and reads,
 * if counted), one entry of count 1 each (an iteration writing an
 * element twice counts once). */
static hot_key *written_keys(const sap_keylog *log, const sap_async_spec *spec, bool reads,
                             int64_t *nout)
{
	hot_key *v = sap_xmalloc((size_t)(log->n ? log->n : 1) * sizeof *v);
	int64_t n = 0;
	for (int64_t s = 0; s < log->n;) {
		int64_t e = s, first = n;
		while (e < log->n && log->v[e].i == log->v[s].i) {
			const sap_access *x = &log->v[e++];
			int64_t d = counted(x, spec, reads);
			if (d != NOT)
				v[n++] = (hot_key){ d, x->key, 1, x->i, x->i };
		}
		int64_t m = merge_runs(v + first, n - first);
		for (int64_t k = first; k < first + m; k++)
			v[k].count = 1;
		n = first + m;
		s = e;
	}
	*nout = n;
	return v;
}

/* An element as one number, DDS above key, where both fit: sorted by
 * radix, the numbers follow by_key's order. */
enum { KEY_BITS = 56 };

static bool packs(const sap_access *x)
{
	return x->dds >= 0 && x->dds < 1 << (63 - KEY_BITS) && x->key >= 0 &&
	       x->key < (int64_t)1 << KEY_BITS;
}

/* Per element written: how many iterations wrote it, and the last one
 * that did, so that one writing it twice counts once.  Open addressing
 * on the element as a number (packs), 0 an empty slot. */
typedef struct tally {
	struct tslot {
		int64_t elem;           /* the number + 1 */
		int64_t last, count, first;
	} *s;
	int64_t cap, n;
} tally;

static struct tslot *tally_at(tally *t, int64_t elem)
{
	uint64_t mask = (uint64_t)t->cap - 1;
	for (uint64_t p = sap_dm_ihash((uint64_t)elem) & mask;; p = (p + 1) & mask)
		if (t->s[p].elem == elem + 1 || !t->s[p].elem)
			return &t->s[p];
}

static void tally_grow(tally *t)
{
	struct tslot *old = t->s;
	int64_t oc = t->cap;
	t->cap = oc ? 2 * oc : 4096;
	t->s = sap_xcalloc((size_t)t->cap, sizeof *t->s);
	for (int64_t k = 0; k < oc; k++)
		if (old[k].elem)
			*tally_at(t, old[k].elem - 1) = old[k];
	free(old);
}

/* The log's writes into t, and the reads counted into r; false, both
 * untouched, when an element does not pack. */
static bool tally_log(tally *t, tally *r, const sap_keylog *log, const sap_async_spec *spec,
                     bool reads)
{
	for (int64_t e = 0; e < log->n; e++)
		if (counted(&log->v[e], spec, reads) != NOT && !packs(&log->v[e]))
			return false;
	for (int64_t e = 0; e < log->n; e++) {
		const sap_access *x = &log->v[e];
		int64_t d = counted(x, spec, reads);
		if (d == NOT)
			continue;
		tally *u = d >= READ ? r : t;
		if (2 * (u->n + 1) > u->cap)
			tally_grow(u);
		int64_t elem = (int64_t)x->dds << KEY_BITS | x->key;
		struct tslot *sl = tally_at(u, elem);
		if (!sl->elem) {
			*sl = (struct tslot){ elem + 1, x->i, 1, x->i };
			u->n++;
		} else if (sl->last != x->i) {
			sl->last = x->i;
			sl->count++;
		}
	}
	return true;
}

/* t's elements and counts, sorted by element (by a radix sort of the
 * numbers: qsort of 24-byte entries through a comparator took most of
 * the time of LDA's warning, 2 M tokens written, 0.3 s). */
static hot_key *tally_keys(tally *t, int64_t *nout)
{
	int64_t *p = sap_xmalloc((size_t)(t->n ? t->n : 1) * sizeof *p), n = 0;
	for (int64_t k = 0; k < t->cap; k++)
		if (t->s[k].elem)
			p[n++] = t->s[k].elem - 1;
	sap_sort_keys(p, n, -1);
	hot_key *v = sap_xmalloc((size_t)(n ? n : 1) * sizeof *v);
	for (int64_t k = 0; k < n; k++) {
		const struct tslot *sl = tally_at(t, p[k]);
		v[k] = (hot_key){ p[k] >> KEY_BITS, p[k] & (((int64_t)1 << KEY_BITS) - 1),
		                  sl->count, sl->first, sl->last };
	}
	free(p);
	*nout = n;
	return v;
}

/* a[0 .. na) and b[0 .. nb), both sorted by element with each once, as
 * one such array (a new one; both freed). */
static hot_key *merge_sorted(hot_key *a, int64_t na, hot_key *b, int64_t nb, int64_t *n)
{
	hot_key *v = sap_xmalloc((size_t)(na + nb) * sizeof *v);
	int64_t i = 0, j = 0, m = 0;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : by_key(&a[i], &b[j]);
		if (c < 0) {
			v[m++] = a[i++];
		} else if (c > 0) {
			v[m++] = b[j++];
		} else {
			v[m] = a[i++];
			span_add(&v[m++], &b[j++]);
		}
	}
	free(a);
	free(b);
	*n = m;
	return v;
}

/* What the tables t and r (reads) hold, as entries sorted by element. */
static hot_key *tallied(tally *t, tally *r, int64_t *nout)
{
	int64_t nw, nr;
	hot_key *w = tally_keys(t, &nw), *rd = tally_keys(r, &nr);
	for (int64_t k = 0; k < nr; k++)
		rd[k].dds += READ;
	return merge_sorted(w, nw, rd, nr, nout);
}

/* How many of the iterations idx[0 .. n) write each element (and, if
 * reads, read one of a DDS the loop writes), sorted by element: counted
 * in a table as the log comes (one pass, where sorting each iteration's
 * keys to count it once zeroed a radix sort's counts every iteration, a
 * fifth of a doc-major LDA loop's time); elements that do not pack, by
 * sorting entries, chunk by chunk. */
static hot_key *count_writes(const sap_async_spec *spec, const sap_layout *ly, void *env,
                             const int64_t *idx, int64_t n, int threads, bool reads,
                             int64_t *nout)
{
	hot_key *all = NULL;
	int64_t nall = 0;
	tally t = { 0 }, r = { 0 };
	bool tallying = true;
	sap_keylog log = { 0 };
	/* The first chunk short, to learn the keys an iteration logs. */
	int64_t chunk = n < 64 ? n : 64;
	for (int64_t s = 0, e; s < n; s = e) {
		int64_t nk;
		e = n - s < chunk ? n : s + chunk;
		log.n = 0;
		sap_recon_log(spec, ly, env, idx + s, e - s, &log, threads);
		chunk = log.n ? (int64_t)((double)LOG_KEYS * (double)(e - s) / (double)log.n) : CHUNK;
		chunk = chunk < 1 ? 1 : chunk > CHUNK ? CHUNK : chunk;
		if (tallying && tally_log(&t, &r, &log, spec, reads))
			continue;
		if (tallying) {
			/* From here on by entries: what the tables have so
			 * far, then the chunks from this one. */
			tallying = false;
			all = tallied(&t, &r, &nall);
		}
		hot_key *v = written_keys(&log, spec, reads, &nk);
		nk = merge_runs(v, nk);
		all = merge_sorted(all, nall, v, nk, &nall);
	}
	if (tallying)
		all = tallied(&t, &r, &nall);
	free(t.s);
	free(r.s);
	sap_keylog_free(&log);
	*nout = nall;
	return all;
}

/* Over ranks, every rank's entries on rank 0 (collective); elsewhere v
 * as it is. */
static hot_key *gather_keys(hot_key *v, int64_t *n)
{
	int P = sap_nranks(), me = sap_rank();
	int64_t mine = *n * 5, *all = NULL;
	int64_t *cnts = sap_xmalloc((size_t)P * sizeof *cnts);
	int64_t *dis = sap_xmalloc((size_t)P * sizeof *dis);
	sap_comm_gather(&mine, cnts, 1, sizeof mine, 0);
	int64_t total = 0;
	if (me == 0) {
		for (int r = 0; r < P; r++) {
			dis[r] = total;
			total += cnts[r];
		}
		all = sap_xmalloc((size_t)total * sizeof *all);
	}
	/* hot_key is five int64_t, no padding. */
	sap_comm_gatherv(v, mine, all, cnts, dis, sizeof *all, 0);
	free(cnts);
	free(dis);
	free(v);
	*n = total / 5;
	return me == 0 ? (hot_key *)all : NULL;
}

/* The element as the program would write it: D[17], or m["word"] for a
 * string key of a map when exactly one of its keys has that hash; NULL
 * when it cannot be named. */
static char *element_name(const sap_dds *d, int64_t key)
{
	const char *name = d->name ? d->name : "?";
	if (d->dv || (d->dm && d->dm->kk != SAP_K_STRING))
		return sap_strf("%s[%lld]", name, (long long)key);
	if (!d->dm)
		return NULL;
	const char *found = NULL;
	int64_t pos = 0, seq;
	const void *k;
	void *val;
	while (sap_dm_entry(d->dm, &pos, &k, &val, &seq)) {
		const char *s = sap_str_c(*(const sap_str *)k);
		if ((int64_t)sap_fnv1a(s) != key)
			continue;
		if (found && strcmp(found, s))
			return NULL;
		found = s;
	}
	if (!found)
		return NULL;
	char buf[200];
	return sap_strf("%s[\"%s\"]", name, sap_shown(found, buf, sizeof buf));
}

/* cause's DDSs with hot elements, when there are several (dds HOT_SET). */
enum { HOT_SET = -2 };
static uint64_t hot_set;

/* With hot elements in more than one DDS, all of them, the hottest of
 * each DDS, into hot_set, as "96% of its iterations write Y[0], 95% Q[0]
 * and 94% bi[0]"; else NULL.  An SVD++ named Y[0], then with Y relaxed
 * bi[0], then Q[0]: three runs to find what one could say. */
static char *hot_many(const sap_async_spec *spec, const hot_key *v, int64_t n, int64_t ns)
{
	enum { MAXD = 8 };
	const hot_key *best[MAXD];
	int nb = 0;
	for (int64_t k = 0; k < n; k++) {
		if (v[k].dds >= READ || v[k].count < 2 || v[k].dds >= 64 ||
		    (double)v[k].count / (double)ns < HOT_SHARE)
			continue;
		int i = 0;
		while (i < nb && best[i]->dds != v[k].dds)
			i++;
		if (i == nb && nb < MAXD)
			best[nb++] = &v[k];
		else if (i < nb && v[k].count > best[i]->count)
			best[i] = &v[k];
	}
	if (nb < 2)
		return NULL;
	/* Hottest first. */
	for (int i = 1; i < nb; i++)
		for (int j = i; j > 0 && best[j]->count > best[j - 1]->count; j--) {
			const hot_key *t = best[j];
			best[j] = best[j - 1];
			best[j - 1] = t;
		}
	hot_set = 0;
	char *c = NULL;
	for (int i = 0; i < nb; i++) {
		const sap_dds *d = &spec->dds[best[i]->dds];
		hot_set |= (uint64_t)1 << best[i]->dds;
		char *el = element_name(d, best[i]->key);
		if (!el)
			el = sap_strf("one element of %s", d->name ? d->name : "?");
		double sh = 100 * (double)best[i]->count / (double)ns;
		char *t = !c ? sap_strf("%.0f%% of its iterations write %s", sh, el) :
		          sap_strf("%s%s%.0f%% %s", c, i == nb - 1 ? " and " : ", ", sh, el);
		free(c);
		free(el);
		c = t;
	}
	return c;
}

/* The cause, from the sample's counts v[0 .. n) (merged, by key) over ns
 * iterations, and the DDS whose updates could stop conflicting (its
 * index, or -1 for each of them). */
static char *cause(const sap_async_spec *spec, const hot_key *v, int64_t n, int64_t ns,
                   int *dds, bool *by_reads)
{
	const hot_key *top = NULL, *rtop = NULL;
	int64_t writes = 0, w0 = -1;
	for (int64_t k = 0; k < n; k++) {
		if (v[k].dds >= READ) {
			if (!rtop || v[k].count > rtop->count)
				rtop = &v[k];
			continue;
		}
		writes += v[k].count;
		w0 = w0 < 0 ? k : w0;
		if (!top || v[k].count > top->count)
			top = &v[k];
	}
	*by_reads = false;
	/* An element one iteration writes is no cause, whatever its share
	 * of a short loop. */
	double share = top ? (double)top->count / (double)ns : 0;
	char *many = top && top->count > 1 && share >= HOT_SHARE ? hot_many(spec, v, n, ns) : NULL;
	if (many) {
		*dds = HOT_SET;
		return many;
	}
	if (top && top->count > 1 && share >= HOT_SHARE) {
		const sap_dds *d = &spec->dds[top->dds];
		char *el = element_name(d, top->key);
		if (!el)
			el = sap_strf("one element of %s", d->name ? d->name : "?");
		*dds = (int)top->dds;
		char *c = sap_strf("%.0f%% of its iterations write %s", 100 * share, el);
		free(el);
		return c;
	}
	/* No written element is hot, but one that is read: a Gauss-Seidel
	 * sweep, every x[j] = f(x[0 .. n)), where each iteration conflicts
	 * with every other through its reads. */
	double rshare = rtop ? (double)rtop->count / (double)ns : 0;
	if (rtop && rtop->count > 1 && rshare >= HOT_SHARE) {
		int d = (int)(rtop->dds - READ);
		int64_t reads = 0;
		for (int64_t k = 0; k < n; k++)
			reads += v[k].dds == rtop->dds ? v[k].count : 0;
		const char *name = spec->dds[d].name ? spec->dds[d].name : "?";
		char *el = element_name(&spec->dds[d], rtop->key);
		if (!el)
			el = sap_strf("one of them");
		*dds = d;
		*by_reads = true;
		char *c = sap_strf("its iterations each read %.1f elements of %s on average, which the "
		                   "loop writes (%.0f%% of them read %s), so each conflicts with the "
		                   "others", (double)reads / (double)ns, name, 100 * rshare, el);
		free(el);
		return c;
	}
	*dds = w0 >= 0 ? (int)v[w0].dds : -1;
	if (!writes)
		return sap_strf("none of the sampled iterations writes an element the plan knows of");
	/* No element is hot: the groups meet through many elements each,
	 * of one DDS, or of several. */
	for (int64_t k = w0 + 1; k < n; k++)
		if (v[k].dds < READ && v[k].dds != v[w0].dds)
			*dds = -1;
	/* A share under 1% would print as "more than 0%". */
	char *most = 100 * share >= 1 ? sap_strf("more than %.0f%%", 100 * share) :
	             sap_strf("more than %.2g%%", 100 * share);
	char *c = sap_strf("no element is written by %s of its iterations, but they write %.1f "
	                   "elements each on average, so every task group shares blocks with the "
	                   "others", most, (double)writes / (double)(ns ? ns : 1));
	free(most);
	return c;
}

/* The loops warned about, and whether the plan was locked.  A loop
 * warns once, and again only when its plans change from serial to
 * locked or back: a plan rebuilt every invocation (its slice draws
 * random numbers) varies a little in balance and shares, which is no
 * news, and is not worth sampling again. */
typedef struct warned {
	const sap_loop *loop;
	bool locked;
} warned;
static warned *seen;
static int nseen, capseen;

static warned *warned_of(const sap_loop *L)
{
	for (int k = 0; k < nseen; k++)
		if (seen[k].loop == L)
			return &seen[k];
	return NULL;
}

/* Whether the loop would still need a plan with its updates of dds
 * relaxed (dds -1: of every DDS only added to; HOT_SET: of hot_set's): a write of another DDS
 * that conflicts, and that the sampled iterations make (bit k of
 * written, k < 64; a write under `if (bias)` may never happen).
 * Without one the loop runs in chunks, and a relaxed DDS is stale by
 * the whole invocation, which an SGD may not tolerate. */
static int planned_without(const sap_async_spec *spec, int dds, uint64_t written)
{
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		bool relaxed = dds == HOT_SET ? k < 64 && (hot_set >> k & 1) :
		               dds < 0 ? d->additive == 1 || d->additive == 2 : k == dds;
		if (!relaxed && (d->mode & SAP_WRITE) && !d->accumulate && !d->at_own &&
		    (k >= 64 || (written >> k & 1)))
			return k;
	}
	return -1;
}

/* "a round stale", and what a round would be.  A dual coordinate
 * descent's plan for alpha[perm[k]] is one round, keys that never meet,
 * where "a round stale" read as a small lag. */
static char *staleness(const sap_async_spec *spec, int dds, uint64_t written)
{
	int k = planned_without(spec, dds, written);
	if (k >= 0)
		return sap_strf("a round stale, where a round is one of the plan the loop still makes "
		                "for its writes of %s (a whole pass if those never meet; sap(7))",
		                spec->dds[k].name ? spec->dds[k].name : "?");
	return sap_strf("stale by a whole pass: with nothing else to plan, the loop would run in "
	                "chunks, each worker reading the values of the loop's start plus its own "
	                "updates (sap(7))");
}

/* What to do about dds, whose element(s) most iterations write; written
 * as for planned_without. */
static char *fix_for(const sap_async_spec *spec, int dds, uint64_t written)
{
	const char *d = spec->dds[dds].name ? spec->dds[dds].name : "?";
	if (spec->dds[dds].additive == 3)
		return sap_strf("the body only assigns %s, at constant keys, and never reads it: if it "
		                "is a flag or a total, a driver variable in a reduce(max: ...) or "
		                "reduce(+: ...) clause of the loop holds it without serializing the loop", d);
	/* relaxed changes what the body reads, and so what the program
	 * computes: a sweep's averaged perceptron made half again as many
	 * mistakes an epoch on 3 workers. */
	if (spec->dds[dds].additive == 1)
		return sap_strf("make its updates of %s 'accumulate(+: %s)'", d, d);
	if (spec->dds[dds].additive == 5)
		return sap_strf("the body only adds to %s, but at the elements where it assigns another "
		                "DDS, whose writes conflict as much: spread its writes over more "
		                "elements", d);
	if (spec->dds[dds].additive == 4)
		return sap_strf("the body reads %s as well as adding to it, and relaxed, which would "
		                "take such updates out of the plan, takes a dvector: keep the values in "
		                "a dvector indexed by ids (vocab(), or a dmap from key to id) to use "
		                "'relaxed(+: ...)'", d);
	if (spec->dds[dds].additive) {
		char *st = staleness(spec, dds, written);
		char *fix = sap_strf("make its updates of %s 'relaxed(+: %s)', if the algorithm "
		                     "tolerates reading %s %s", d, d, d, st);
		free(st);
		return fix;
	}
	/* A bias kept among weights the body assigns (a truncated
	 * gradient's) cannot be spread, but it can move. */
	return sap_strf("the body changes %s other than by adding to its elements ('%s[k] += x': "
	                "it assigns them, pushes to them or inserts keys), so neither accumulate "
	                "nor relaxed applies to %s as it is written: if the body only adds to that "
	                "element (a bias kept among the weights), keep it in a dvector of its own, "
	                "whose updates 'relaxed(+: ...)' or 'accumulate(+: ...)' take out of the "
	                "plan; else spread its writes over more elements", d, d, d);
}

/* The names of the DDSs of mask (bit k; k >= 64 when all ones) only
 * added to (additive 1 or 2; only 1 or only 2 for want), as "a, b",
 * *read when the body reads one of them too; NULL when there are none. */
static char *added_names(const sap_async_spec *spec, uint64_t mask, int want, bool *read)
{
	char *names = NULL;
	*read = false;
	for (int k = 0; k < spec->ndds; k++) {
		bool in = k < 64 ? mask >> k & 1 : mask == ~(uint64_t)0;
		int a = spec->dds[k].additive;
		/* Not one whose updates are out of the plan already: the
		 * whole numbers the runtime sums (helper HASH: the clause
		 * named tcnt, which --explain listed as summed). */
		if (!in || (a != 1 && a != 2) || (want && a != want) || spec->dds[k].accumulate)
			continue;
		*read |= a == 2;
		const char *nm = spec->dds[k].name ? spec->dds[k].name : "?";
		char *t = names ? sap_strf("%s, %s", names, nm) : sap_strf("%s", nm);
		free(names);
		names = t;
	}
	return names;
}

/* The clause that takes the updates of mask's DDSs only added to out of
 * the plan, after lead: relaxed for those the body reads (stale as for
 * staleness(dds)), accumulate for the others, which relaxed would have
 * read stale for nothing; NULL when there are none. */
static char *adds_clause(const sap_async_spec *spec, uint64_t mask, int dds, uint64_t written,
                         const char *lead)
{
	bool read;
	char *rd = added_names(spec, mask, 2, &read), *acc = added_names(spec, mask, 1, &read);
	char *fix = NULL;
	if (rd) {
		char *st = staleness(spec, dds, written);
		char *also = acc ? sap_strf(", and those of %s 'accumulate(+: %s)'", acc, acc) : NULL;
		fix = sap_strf("%s 'relaxed(+: %s)'%s, if the algorithm tolerates reading %s %s", lead,
		               rd, also ? also : "", acc ? rd : "them", st);
		free(also);
		free(st);
	} else if (acc) {
		fix = sap_strf("%s 'accumulate(+: %s)'", lead, acc);
	}
	free(rd);
	free(acc);
	return fix;
}

/* What to do about hot_set's DDSs: one clause for them all when each is
 * only added to, else what to do about the first that is not. */
static char *fix_set(const sap_async_spec *spec, uint64_t written)
{
	/* One only added to beside one assigned (cnt[b] += 1; last[b] = i)
	 * is not the cause: the one assigned is. */
	int beside = -1;
	for (int k = 0; k < spec->ndds && k < 64; k++) {
		int a = spec->dds[k].additive;
		if (!(hot_set >> k & 1) || a == 1 || a == 2)
			continue;
		if (a != 5)
			return fix_for(spec, k, written);
		if (beside < 0)
			beside = k;
	}
	if (beside >= 0)
		return fix_for(spec, beside, written);
	char *fix = adds_clause(spec, hot_set, HOT_SET, written, "make their updates");
	return fix ? fix : sap_strf("spread its writes over more elements");
}

/* What to do about a loop whose iterations read, most of them, elements
 * of dds that others write. */
static char *reads_fix(const sap_async_spec *spec, int dds, uint64_t written)
{
	const char *d = spec->dds[dds].name ? spec->dds[dds].name : "?";
	if (spec->dds[dds].additive == 2)
		return fix_for(spec, dds, written);
	return sap_strf("if the algorithm allows, read the values %s had before the loop from a "
	                "copy the loop does not write (a Jacobi sweep rather than Gauss-Seidel), "
	                "and the iterations no longer conflict", d);
}

static warned *warned_add(const sap_loop *L)
{
	if (nseen == capseen) {
		capseen = capseen ? 2 * capseen : 16;
		seen = sap_xrealloc(seen, (size_t)capseen * sizeof *seen);
	}
	warned *w = &seen[nseen++];
	w->loop = L;
	w->locked = false;
	return w;
}

void sap_serial_warn(const sap_loop *L, const sap_async_spec *spec, int workers, int64_t n)
{
	/* A map whose keys the body inserts or erases has no other way: a
	 * warning would be noise. */
	int d = spec->serial_dds - 1;
	if (sap_cfg.quiet_plans || too_short(workers, n) || d < 0 || d >= spec->ndds ||
	    warned_of(L))
		return;
	warned_add(L);
	hot_set = spec->serial_mask;
	char *fix = hot_set ? fix_set(spec, ~(uint64_t)0) : fix_for(spec, d, ~(uint64_t)0);
	sap_warn(&L->site, "async for runs serially on %d workers: %s; %s", workers, spec->serial,
	         fix);
	free(fix);
}

void sap_insert_warn(const sap_loop *L, const sap_async_spec *spec, uint64_t missing, int workers,
                     int64_t n)
{
	/* Only where accumulate is the way out: a loop that fills a map
	 * (P[u] = p) has no other, and a warning would be noise. */
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].check_keys && spec->dds[k].additive != 1)
			return;
	int d = sap_missing_dds(spec, missing);
	if (sap_cfg.quiet_plans || too_short(workers, n) || d < 0 || warned_of(L))
		return;
	warned_add(L);
	/* Every map missing a key: accumulating one of several still
	 * leaves the loop serial. */
	char *m = sap_strf("%s", spec->dds[d].name ? spec->dds[d].name : "?");
	int nm = 1;
	for (int k = d + 1; k < spec->ndds; k++)
		if (spec->dds[k].check_keys && (missing >> (k < 63 ? k : 63) & 1) && spec->dds[k].name) {
			char *t = sap_strf("%s, %s", m, spec->dds[k].name);
			free(m);
			m = t;
			nm++;
		}
	/* 3 x 2 said "on 2 workers": every rank runs all of such a loop. */
	const char *each = sap_nranks() > 1 ? " (those of each rank: every rank runs all of a loop "
	                                      "that writes a map)" : "";
	sap_warn(&L->site, "async for runs serially on %d workers%s: the body inserts keys into %s "
	         "(%s it writes %s missing); make its updates of %s 'accumulate(+: %s)', which "
	         "inserts keys in parallel", workers, each, m, nm > 1 ? "keys" : "a key",
	         nm > 1 ? "are" : "is", nm > 1 ? "them" : m, m);
	free(m);
}

/* The DDSs only added to, by name, and the clause that takes their
 * updates out of the plan (accumulate only for those the body does not
 * read); NULL if there are none. */
static char *additive_fix(const sap_async_spec *spec, uint64_t written)
{
	return adds_clause(spec, ~(uint64_t)0, -1, written,
	                   "take the additive updates out of the plan with");
}

/* The inputs of the slice whose change made the last plan invalid, as
 * "a, b and c" (*many when more than one), or NULL. */
static char *replan_cause(const struct sap_loop_state *st, const sap_async_spec *spec, bool *many)
{
	const char *name[8];
	int n = 0, more = 0;
	for (int k = 0; k < spec->ndds; k++)
		if (st->dds_new >> (k < 63 ? k : 63) & 1 && spec->dds[k].name)
			n < 8 ? (void)(name[n++] = spec->dds[k].name) : (void)more++;
	for (int k = 0; k < spec->ndrv && k < 64; k++)
		if (st->drv_new >> k & 1 && spec->drv[k].name)
			n < 8 ? (void)(name[n++] = spec->drv[k].name) : (void)more++;
	if (!n)
		return NULL;
	*many = n + more > 1;
	char *s = sap_strf("%s", name[0]);
	for (int i = 1; i < n; i++) {
		bool last = i == n - 1 && !more;
		char *t = sap_strf("%s%s%s", s, last ? " and " : ", ", name[i]);
		free(s);
		s = t;
	}
	if (more) {
		char *t = sap_strf("%s and %d more", s, more);
		free(s);
		s = t;
	}
	return s;
}

void sap_plan_cost_warn(struct sap_loop_state *st, const sap_async_spec *spec)
{
	const sap_loop *L = st->loop;
	double planning = st->recon_s + st->plan_s;
	/* For sap_plan_cost_final, which has no spec: a sparse perceptron's
	 * one plan cost 18 passes of its body on 1 x 2, where relaxed ran
	 * faster than one worker. */
	if (st->plan_builds && !st->cost_fixed) {
		st->cost_fixed = true;
		st->cost_fix = additive_fix(spec, ~(uint64_t)0);
	}
	/* Lasso's sweep over an active set re-planned for its flags and
	 * for the driver's "full sweep" switch, and the advice named only
	 * relaxed: what made the latest plan, for both warnings. */
	if (st->cause_at != st->plan_builds) {
		st->cause_at = st->plan_builds;
		free(st->cause);
		bool many = false;
		char *c = replan_cause(st, spec, &many);
		st->cause = c ? sap_strf("it plans again when %s %s, as its keys depend on %s", c,
		                         many ? "change" : "changes", many ? "them" : "it") : NULL;
		free(c);
	}
	/* Re-planned at least three times, in most invocations: a plan
	 * reused costs nothing more, and a first plan pays for itself. */
	if (sap_cfg.quiet_plans || st->warned_cost || st->workers < 2 || st->plan_builds < 3 ||
	    5 * st->plan_builds < 4 * (int64_t)L->invocations || planning < 0.5 ||
	    planning < 2 * st->compute_s)
		return;
	st->warned_cost = true;
	/* k-core's peeling re-plans every sweep for its degrees, which it
	 * only decrements: relaxed takes them out of the plan.  A sync for
	 * breaks a compare-exchange network (a bitonic sort's steps), which
	 * a plain for keeps. */
	char *adds = additive_fix(spec, ~(uint64_t)0);
	sap_warn(&L->site, "async for has spent %.2f s planning in its first %lld invocations (%lld "
	         "plans) against %.2f s running the body on %d workers: the plans cost more than they "
	         "save%s%s%s; %s%sa plain for (index order), fewer workers, or a sync for if the "
	         "body tolerates reading stale values would likely run it faster (--stats "
	         "shows the times)", planning, (long long)L->invocations,
	         (long long)st->plan_builds, st->compute_s, st->workers, st->cause ? " (" : "",
	         st->cause ? st->cause : "", st->cause ? ")" : "",
	         adds ? adds : "", adds ? "; or " : "");
	free(adds);
}

/* At the end of the run: a loop planned too few times for
 * sap_plan_cost_warn whose planning alone took longer than its body
 * would have on one worker.  A helper's symmetric matrix, filled by one
 * async for, planned for 3.9 s against 0.011 s of body, and nothing
 * said so. */
void sap_plan_cost_final(void)
{
	for (struct sap_loop_state *st = sap_stats_loops(); st; st = st->next) {
		const sap_loop *L = st->loop;
		double planning = st->recon_s + st->plan_s;
		/* Not one that went on in chunks once its plans were timed
		 * against them (async.c, pairs_fit). */
		if (sap_cfg.quiet_plans || st->warned_cost || st->workers < 2 || !st->plan_builds ||
		    planning < 0.5 || planning < st->workers * st->compute_s || st->pairs.way > 0)
			continue;
		st->warned_cost = true;
		sap_warn(&L->site, "async for spent %.2f s planning (%lld plan%s in %lld "
		         "invocation%s%s%s) against %.2f s running the body on %d workers: on one "
		         "worker, with no plan, it would likely have run faster (--stats shows the "
		         "times)%s%s", planning,
		         (long long)st->plan_builds, st->plan_builds == 1 ? "" : "s",
		         (long long)L->invocations, L->invocations == 1 ? "" : "s",
		         st->plan_builds > 1 && st->cause ? "; " : "",
		         st->plan_builds > 1 && st->cause ? st->cause : "", st->compute_s,
		         st->workers, st->cost_fix ? "; or " : "", st->cost_fix ? st->cost_fix : "");
	}
}

/* Of ns evenly spaced iterations of [lo, hi), those in [a, b), into idx;
 * how many. */
static int64_t spaced(int64_t lo, int64_t hi, int64_t ns, int64_t a, int64_t b, int64_t *idx)
{
	int64_t m = 0;
	for (int64_t k = 0; k < ns; k++) {
		int64_t i = lo + (int64_t)((__int128)(hi - lo) * k / ns);
		if (i >= a && i < b)
			idx[m++] = i;
	}
	return m;
}

/* Iterations the probe of sap_hot_share samples: at most PROBE, and
 * fewer, down to PROBE_MIN, when they would log more than PROBE_KEYS
 * accesses.  A Gaussian elimination's step writes a row of a flat
 * matrix an iteration: 600 rows of 600 keys were tallied in a table
 * grown by doubling to 24 MB, 60% of each of its plans, where a hot key
 * shows in far fewer iterations (and fewer make the share's estimate
 * only more cautious). */
enum { PROBE = 4096, PROBE_MIN = 64, PROBE_KEYS = 1 << 16 };

/* The probe's size, from the accesses of PROBE_MIN spaced iterations:
 * collective over ranks, each slicing those of its share [a, b). */
static int64_t probe_size(const sap_async_spec *spec, const sap_layout *ly, void *env,
                          int64_t lo, int64_t hi, int64_t a, int64_t b, int threads, bool ranks)
{
	int64_t n = hi - lo, ns = n < PROBE ? n : PROBE;
	if (ns <= PROBE_MIN)
		return ns;
	int64_t *idx = sap_xmalloc(PROBE_MIN * sizeof *idx);
	sap_keylog log = { 0 };
	sap_recon_log(spec, ly, env, idx, spaced(lo, hi, PROBE_MIN, a, b, idx), &log, threads);
	int64_t acc = log.n;
	sap_keylog_free(&log);
	free(idx);
	if (ranks)
		sap_comm_allreduce(&acc, 1, SAP_COMM_I64, SAP_COMM_SUM);
	double per = (double)acc / PROBE_MIN;
	if (per * (double)ns > PROBE_KEYS)
		ns = (int64_t)(PROBE_KEYS / per) > PROBE_MIN ? (int64_t)(PROBE_KEYS / per) : PROBE_MIN;
	return ns;
}

/* sap_hot_share, and in *span the most iterations between the first and
 * the last of the sample's writers of one element (0 when none is
 * written twice), alike on every rank. */
static double hot_probe(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                        int64_t hi, int64_t a, int64_t b, int threads, bool ranks, double *span)
{
	ranks = ranks && sap_nranks() > 1;
	*span = 0;
	/* The share, less its error, is at most 1 - 1 / ns, short of
	 * SAP_KEYS_FUTILE below 20 iterations: not worth logging them (2
	 * iterations rewriting 1M elements each tallied them, 60% of the
	 * plan).  Alike on every rank, from the bounds. */
	if (1.0 - 1.0 / (double)(hi - lo < PROBE ? hi - lo : PROBE) < SAP_KEYS_FUTILE)
		return 0;
	int64_t ns = probe_size(spec, ly, env, lo, hi, a, b, threads, ranks);
	if (ns <= 0)
		return 0;
	int64_t *idx = sap_xmalloc((size_t)ns * sizeof *idx), nk;
	int64_t m = spaced(lo, hi, ns, a, b, idx);
	hot_key *v = count_writes(spec, ly, env, idx, m, threads, false, &nk);
	free(idx);
	if (ranks) {
		v = gather_keys(v, &nk);
		if (v)
			nk = merge_runs(v, nk);
	}
	double h = 0, sp = 0;
	if (v) {
		int64_t top = 0;
		for (int64_t k = 0; k < nk; k++) {
			top = v[k].count > top ? v[k].count : top;
			if (v[k].count > 1 && (double)(v[k].last - v[k].first) > sp)
				sp = (double)(v[k].last - v[k].first);
		}
		free(v);
		h = (double)top / (double)ns;
		h -= 3 * sqrt(h * (1 - h) / (double)ns) + 1.0 / (double)ns;
	}
	if (ranks) {
		double x[2] = { h, sp };
		sap_comm_bcast(x, 2, sizeof *x, 0);
		h = x[0];
		sp = x[1];
	}
	*span = sp;
	return h;
}

double sap_hot_share(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                     int64_t hi, int64_t a, int64_t b, int threads, bool ranks)
{
	double span;
	return hot_probe(spec, ly, env, lo, hi, a, b, threads, ranks, &span);
}

bool sap_keys_futile(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                     int64_t hi, int64_t a, int64_t b, int threads, bool ranks, int T,
                     double max_cost)
{
	double span, h = hot_probe(spec, ly, env, lo, hi, a, b, threads, ranks, &span);
	if (h >= SAP_KEYS_FUTILE)
		return true;
	/* The wavefront and the colouring put each writer of an element in
	 * a round of its own, and strips need every element's writers
	 * within n / T iterations: a sparse model's features, each in a
	 * twentieth of the examples all over them, made every rank log
	 * every iteration's keys (its examples made whole first) for plans
	 * that could not beat the serial one. */
	double n = (double)(hi - lo), share = n / T, charge = share / 2000.0 + 1.0;
	return h > 0 && span >= share && h * n * charge + share >= max_cost;
}

void sap_hot_warn(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                  int64_t lo, int64_t hi, int threads, bool ranks)
{
	const sap_plan *p = &st->plan;
	int T = p->nworkers;
	bool locked = p->nlocked > 0;
	if (sap_cfg.quiet_plans || too_short(T, hi - lo) || (!locked && !sap_plan_serial(p)))
		return;
	warned *w = warned_of(st->loop);
	if (w && w->locked == locked)
		return;
	if (!w)
		w = warned_add(st->loop);
	w->locked = locked;

	/* Evenly spaced iterations of [lo, hi); over ranks, each rank
	 * slices those of its share, as it did for the plan. */
	int64_t n = hi - lo, ns = n < SAMPLE ? n : SAMPLE;
	int64_t a = lo, b = hi;
	if (ranks) {
		a = sap_chunk(lo, hi, T, sap_rank() * threads);
		b = sap_chunk(lo, hi, T, (sap_rank() + 1) * threads);
	}
	int64_t *idx = sap_xmalloc((size_t)ns * sizeof *idx);
	int64_t m = spaced(lo, hi, ns, a, b, idx);
	int64_t nk;
	hot_key *v = count_writes(spec, &st->layout, env, idx, m, threads, true, &nk);
	free(idx);
	if (ranks && sap_nranks() > 1) {
		v = gather_keys(v, &nk);
		if (!v)
			return;
		nk = merge_runs(v, nk);
	}

	int dds;
	bool by_reads;
	char *why = cause(spec, v, nk, ns, &dds, &by_reads);
	uint64_t written = 0;
	for (int64_t k = 0; k < nk; k++)
		written |= v[k].dds >= 0 && v[k].dds < 64 ? (uint64_t)1 << v[k].dds : 0;
	free(v);
	/* Such a plan runs in index order on one worker (async.c). */
	char *how = locked ? sap_strf("runs locked on %d workers (not deterministic)", T) :
	            sap_strf("runs serially on %d workers (balance %.1f)", T, p->balance);
	char *fix;
	char *adds = dds >= 0 || dds == HOT_SET ? NULL : additive_fix(spec, written);
	if (dds == HOT_SET) {
		fix = fix_set(spec, written);
	} else if (by_reads) {
		fix = reads_fix(spec, dds, written);
	} else if (dds >= 0) {
		fix = fix_for(spec, dds, written);
	} else if (adds) {
		fix = adds;
	} else {
		fix = sap_strf("the body does more than add to what it writes, so neither accumulate "
		               "nor relaxed applies: spread its writes over more elements");
	}
	/* Over ranks no group is locked: --locks would change nothing; nor
	 * where it is on and no group was big enough to lock. */
	char *text = sap_strf("async for %s: %s; %s%s", how, why, fix,
	                      locked ? " to run it in parallel deterministically" :
	                      ranks || sap_cfg.locks || by_reads ? "" :
	                      ", or run with --locks (not deterministic)");
	sap_warn(&st->loop->site, "%s", text);
	free(text);
	free(fix);
	free(how);
	free(why);
}
