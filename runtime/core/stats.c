/* stats.c: the --stats table, one row per async loop that ran.
 *
 * Scripts parse it (man/sap-run.1 documents the columns), so columns are
 * only ever added at the end, before the verdict.
 */
#define _POSIX_C_SOURCE 200809L     /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include "sap-int.h"

static struct sap_loop_state *loops;

/* Bytes held by DDSs: now, and the most at any time; the same of the
 * plan-order copies. */
static _Atomic int64_t mem_now, mem_peak, copies_now, copies_peak;

int64_t sap_mem_dds_held(void)
{
	return mem_now;
}

void sap_mem_dds(int64_t delta)
{
	int64_t now = atomic_fetch_add(&mem_now, delta) + delta;
	int64_t peak = mem_peak;
	while (now > peak && !atomic_compare_exchange_weak(&mem_peak, &peak, now))
		;
}

void sap_mem_copies(int64_t delta)
{
	int64_t now = atomic_fetch_add(&copies_now, delta) + delta;
	if (now > copies_peak)
		copies_peak = now;
}

void sap_stats_register(struct sap_loop_state *st)
{
	st->next = loops;
	loops = st;
}

struct sap_loop_state *sap_stats_loops(void)
{
	return loops;
}

static char *verdict1(const struct sap_loop_state *st);

/* The verdict, whole however long its reasons (the caller frees it). */
static char *verdict(const struct sap_loop_state *st)
{
	char *v = verdict1(st);
	if (!st->whole_why)
		return v;
	char *w = sap_strf("%s, on every rank: %s", v, st->whole_why);
	free(v);
	return w;
}

static char *verdict1(const struct sap_loop_state *st)
{
	if (st->ever_locked)
		return sap_strf("locked (non-deterministic)");
	switch (st->verdict) {
	case SAP_V_SHARED:
		return sap_strf("planned (loop %d's plan)", st->shared_with);
	case SAP_V_INDEX:
		return st->reason ? sap_strf("index-order: %s", st->reason) : sap_strf("index-order");
	case SAP_V_CHUNKS:
		return st->reason ? sap_strf("chunks: %s", st->reason) : sap_strf("chunks");
	case SAP_V_OWNER: return sap_strf("chunks (owner computes)");
	case SAP_V_PLANNED: {
		/* The last invocation's way; colours, whose order is not index
		 * order's, where some but not all ran by them (helper U17: a
		 * loop said key-level had run by colours before). */
		const char *v = st->strips ? "planned (key-level strips)" :
		                st->colour ? "planned (key-level colouring)" :
		                st->key_level ? "planned (key-level)" : "planned";
		if (st->coloured && st->coloured < st->loop->invocations)
			return sap_strf("%s; by colours in %u of %u invocations", v, st->coloured,
			                st->loop->invocations);
		return sap_strf("%s", v);
	}
	case SAP_V_LOCKED: return sap_strf("locked (non-deterministic)");
	case SAP_V_REPLAY: return sap_strf("replayed");
	case SAP_V_SERIAL: return sap_strf("serialized: %s", st->reason ? st->reason : "");
	case SAP_V_NONE: break;
	}
	return sap_strf("-");
}

static int by_id(const void *x, const void *y)
{
	const struct sap_loop_state *a = *(struct sap_loop_state *const *)x;
	const struct sap_loop_state *b = *(struct sap_loop_state *const *)y;
	return (a->loop->id > b->loop->id) - (a->loop->id < b->loop->id);
}

static int by_name(const void *a, const void *b)
{
	const sap_dvec *x = *(sap_dvec *const *)a, *y = *(sap_dvec *const *)b;
	return strcmp(x->name, y->name);
}

static int map_by_name(const void *a, const void *b)
{
	const sap_dmap *x = *(sap_dmap *const *)a, *y = *(sap_dmap *const *)b;
	return strcmp(x->name, y->name);
}

/* What each dvector and map takes on this rank, by name. */
static void put_dvectors(FILE *f)
{
	int n = sap_live_dvecs.n;
	sap_dvec **v = sap_xmalloc((size_t)n * sizeof *v);
	if (n)
		memcpy(v, sap_live_dvecs.v, (size_t)n * sizeof *v);
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, by_name);
	for (int k = 0; k < n; k++) {
		sap_dv_recount(v[k]);
		fprintf(f, "  dvector %s: %lld x %zu B = %.2f MB, on this rank %.2f MB at the end, "
		        "%.2f MB at most", v[k]->name, (long long)v[k]->n, v[k]->elsize,
		        (double)v[k]->n * (double)v[k]->elsize / 1e6, (double)v[k]->held / 1e6,
		        (double)v[k]->peak / 1e6);
		/* The elements' lists, laid out by load in element order. */
		if (v[k]->arena_bytes)
			fprintf(f, "; their lists %.2f MB", (double)v[k]->arena_bytes / 1e6);
		fputc('\n', f);
	}
	free(v);
	n = sap_live_maps.n;
	sap_dmap **m = sap_xmalloc((size_t)n * sizeof *m);
	if (n)
		memcpy(m, sap_live_maps.v, (size_t)n * sizeof *m);
	if (n > 1)
		qsort(m, (size_t)n, sizeof *m, map_by_name);
	for (int k = 0; k < n; k++)
		fprintf(f, "  %s %s: %lld entries, on this rank %.2f MB at the end, "
		        "%.2f MB at most\n", m[k]->multi ? "dmultimap" : "dmap", m[k]->name,
		        (long long)sap_dm_size(m[k]), (double)m[k]->held / 1e6,
		        (double)m[k]->peak / 1e6);
	free(m);
}

static const char *model_name(const sap_sync_stats *s, char *buf, size_t n)
{
	if (s->model == SAP_SSP)
		snprintf(buf, n, "ssp(%lld)", (long long)s->staleness);
	else
		snprintf(buf, n, "%s", s->model == SAP_BSP ? "bsp" : "hybrid");
	return buf;
}

/* The sync for loops: where their time went and, under ssp, how far
 * this rank ran ahead of the slowest one. */
static void put_sync(FILE *f)
{
	if (!sap_sync_stats_all())
		return;
	fprintf(f, "%4s %-20s %11s %8s %7s %8s %10s %8s %9s %6s %8s %9s %8s %10s\n", "sync", "site",
	        "invocations", "model", "workers", "steps", "compute_s", "sync_s", "sync_MB",
	        "waits", "wait_s", "staleness", "recon_s", "rows_sent");
	for (const sap_sync_stats *s = sap_sync_stats_all(); s; s = s->next) {
		char m[32];
		char *site = sap_strf("%s:%d", s->loop->site.file ? s->loop->site.file : "?",
		                      s->loop->site.line);
		fprintf(f, "%4d %-20s %11u %8s %7d %8lld %10.4f %8.4f %9.2f %6lld %8.4f %9lld %8.4f %10lld%s%s\n",
		        s->loop->id, site, s->loop->invocations, model_name(s, m, sizeof m), s->workers,
		        (long long)s->steps, s->compute_s, s->sync_s, s->sync_bytes / 1e6,
		        (long long)s->waits, s->wait_s, (long long)s->max_stale, s->recon_s,
		        (long long)s->rows,
		        s->whole_why ? " one worker: " : "", s->whole_why ? s->whole_why : "");
		free(site);
	}
	for (const sap_sync_stats *s = sap_sync_stats_all(); s; s = s->next) {
		if (!s->nlead)
			continue;
		fprintf(f, "Loop %d: clocks by how many this rank was ahead of the slowest on reaching "
		        "them:", s->loop->id);
		for (int d = 0; d < s->nlead; d++)
			if (s->lead[d])
				fprintf(f, " %d: %lld%s", d, (long long)s->lead[d],
				        d > s->staleness ? " (waited)" : "");
		fputc('\n', f);
	}
}

/* This rank's table. */
static char *table(void)
{
	size_t n = 0;
	for (struct sap_loop_state *st = loops; st; st = st->next)
		n++;
	struct sap_loop_state **v = sap_xmalloc(n * sizeof *v);
	n = 0;
	for (struct sap_loop_state *st = loops; st; st = st->next)
		v[n++] = st;
	if (n > 1)
		qsort(v, n, sizeof *v, by_id);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		sap_fatal(NULL, "out of memory");
	if (sap_nranks() > 1)
		fprintf(f, "sap stats: parallel loops on rank %d of %d, times in seconds\n",
		        sap_rank(), sap_nranks());
	else
		fprintf(f, "sap stats: parallel loops, times in seconds\n");
	fprintf(f, "%4s %-20s %11s %6s %8s %6s %8s %7s %7s %7s %7s %10s %9s %9s %8s %8s %s\n",
	        "loop", "site", "invocations", "recons", "recon_s", "plans", "plan_s", "groups",
	        "rounds", "workers", "balance", "compute_s", "sent_MB", "recv_MB", "fetch_s",
	        "send_s", "verdict");
	for (size_t k = 0; k < n; k++) {
		const struct sap_loop_state *st = v[k];
		char *site = sap_strf("%s:%d", st->loop->site.file ? st->loop->site.file : "?",
		                      st->loop->site.line);
		char *why = verdict(st);
		fprintf(f, "%4d %-20s %11u %6lld %8.4f %6lld %8.4f %7lld %7lld %7d %7.2f %10.4f "
		        "%9.2f %9.2f %8.4f %8.4f %s\n",
		        st->loop->id, site, st->loop->invocations, (long long)st->recon_runs,
		        st->recon_s, (long long)st->plan_builds, st->plan_s, (long long)st->groups,
		        (long long)st->rounds, st->workers, st->balance, st->compute_s,
		        (double)st->traffic.sent / 1e6, (double)st->traffic.received / 1e6,
		        st->fetch_s, st->send_s, why);
		free(site);
		free(why);
	}
	for (size_t k = 0; k < n; k++)
		if (v[k]->thread_rounds)
			fprintf(f, "Loop %d: %lld of %lld times a thread started a round while the "
			        "rank exchanged the last one's writes\n", v[k]->loop->id,
			        (long long)v[k]->early_starts, (long long)v[k]->thread_rounds);
	put_sync(f);
	fprintf(f, "DDS memory on this rank: %.2f MB at the end, %.2f MB at most\n",
	        (double)mem_now / 1e6, (double)mem_peak / 1e6);
	put_dvectors(f);
	int64_t hs, hr;
	sap_hold_moved(&hs, &hr);
	if (hs || hr)
		fprintf(f, "Moved for driver code and save: %.2f MB sent, %.2f MB received\n",
		        (double)hs / 1e6, (double)hr / 1e6);
	if (copies_peak)
		fprintf(f, "Plan-order copies on this rank: %.2f MB at the end, %.2f MB at most\n",
		        (double)copies_now / 1e6, (double)copies_peak / 1e6);
	double cs, cw;
	int64_t cb, cn, cl;
	sap_ckpt_stats(&cs, &cw, &cb, &cn, &cl);
	if (sap_cfg.ckpt_dir)
		fprintf(f, "Checkpoints: %lld taken, %.2f MB of this rank's parts (the largest %.2f MB), "
		        "%.4f s on the run's path, %.4f s writing beside it\n", (long long)cn,
		        (double)cb / 1e6, (double)cl / 1e6, cs, cw);
	fclose(f);
	free(v);
	return buf;
}

/* Every rank's table, in rank order, from rank 0: collective. */
void sap_stats_print(void)
{
	if (!sap_cfg.stats)
		return;
	char *mine = table();
	int P = sap_nranks();
	int64_t len = (int64_t)strlen(mine);
	int64_t *lens = sap_xmalloc((size_t)P * sizeof *lens), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	char *all = NULL;
	if (P > 1) {
		sap_comm_gather(&len, lens, 1, sizeof len, 0);
		int64_t total = 0;
		for (int r = 0; r < P; r++) {
			dis[r] = total;
			total += sap_rank() == 0 ? lens[r] : 0;
		}
		all = sap_xmalloc((size_t)total + 1);
		sap_comm_gatherv(mine, len, all, lens, dis, 1, 0);
		all[total] = '\0';
	}
	if (sap_rank() == 0) {
		fflush(stdout);
		fputs(P > 1 ? all : mine, stderr);
		fflush(stderr);
	}
	free(all);
	free(lens);
	free(dis);
	free(mine);
}
