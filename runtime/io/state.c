/* state.c: a program's state after a parallel operator, as the bytes of
 * a checkpoint, and back.
 *
 * The compiler writes one function per program, sap_state, that names
 * every driver variable, DDS and parallel loop in one order.  It runs
 * with a state that writes (after an operator, when a checkpoint is due)
 * or with one that reads (at the start, under --resume), so that what is
 * written and what is read cannot disagree.  The runtime's own part (the
 * driver's generator, the count of operators run) comes first.
 *
 * A dvector that load() filled and nothing has written since is not
 * written at all: the checkpoint names its file, with its size and time,
 * and --resume loads it again (sap_state_input).  Nor is one that its
 * declaration made from what nothing has written since, which --resume
 * makes again (sap_state_remade).
 *
 * A DDS is written as this rank holds it once each rank's part is current
 * there (sap_dv_own_parts): its part of a dvector, its keys of a parted
 * map, or the whole of either where every rank holds all of it.  A
 * checkpoint therefore resumes on as many ranks as wrote it. */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "sap-int.h"

/* Reading, a part of the checkpoint: this rank's, or one of each rank
 * that wrote it when there were as many then as now. */
typedef struct part_in {
	const char *p;
	size_t n, at;
} part_in;

struct sap_state {
	bool reading;
	char *buf;              /* writing */
	size_t n, cap;
	int nin;                /* reading: the parts, 1 or `ranks` */
	int ranks;              /* that wrote the checkpoint */
	part_in *in;
};

/* Reading the parts of another number of ranks. */
static bool resharding(const sap_state *s)
{
	return s->ranks != sap_nranks();
}

/* ---- bytes ---- */

/* The buffer starts on a page, from which its part goes to the disk
 * without the page cache (ckpt.c). */
static char *room(sap_state *s, size_t k)
{
	if (s->n + k > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->n + k)
			if (__builtin_mul_overflow(cap, 2, &cap))
				sap_fatal(NULL, "out of memory");
		char *buf = aligned_alloc(4096, cap);
		if (!buf)
			sap_fatal(NULL, "out of memory");
		if (s->n)
			memcpy(buf, s->buf, s->n);
		free(s->buf);
		s->buf = buf;
		s->cap = cap;
	}
	char *p = s->buf + s->n;
	s->n += k;
	return p;
}

/* k bytes of part r, or an error naming what was being read: the data
 * passed their CRC, so only another build of the runtime gets here. */
static const char *take(sap_state *s, int r, size_t k, const char *what)
{
	part_in *in = &s->in[r];
	if (k > in->n - in->at)
		sap_fatal(NULL, "checkpoint: the data end inside %s (written by another build?)", what);
	const char *p = in->p + in->at;
	in->at += k;
	return p;
}

static void put_i64(sap_state *s, int64_t x)
{
	memcpy(room(s, 8), &x, 8);
}

static int64_t get_i64(sap_state *s, int r, const char *what)
{
	int64_t x;
	memcpy(&x, take(s, r, 8, what), 8);
	return x;
}

/* A number every rank wrote alike: part 0's, the others' passed. */
static int64_t get_same(sap_state *s, const char *what)
{
	int64_t x = get_i64(s, 0, what);
	for (int r = 1; r < s->nin; r++)
		get_i64(s, r, what);
	return x;
}

/* x's bytes, or its packing, after its length. */
static void put_val(sap_state *s, const void *x, size_t size, size_t (*pack)(const void *, char *))
{
	size_t k = pack ? pack(x, NULL) : size;
	put_i64(s, (int64_t)k);
	if (pack)
		pack(x, room(s, k));
	else
		memcpy(room(s, k), x, k);
}

/* Part r's value into x, or past it when x is NULL. */
static void get_val(sap_state *s, int r, void *x, size_t size,
                    const char *(*unpack)(void *, const char *), void (*drop)(void *),
                    const char *what)
{
	int64_t k = get_i64(s, r, what);
	if (k < 0 || (!unpack && (size_t)k != size))
		sap_fatal(NULL, "checkpoint: %s has %lld bytes, not %zu", what, (long long)k, size);
	const char *p = take(s, r, (size_t)k, what);
	if (!x)
		return;
	if (!unpack) {
		memcpy(x, p, size);
		return;
	}
	if (drop)
		drop(x);
	if (unpack(x, p) != p + k)
		sap_fatal(NULL, "checkpoint: %s does not unpack to its length", what);
}

/* ---- what generated code names ---- */

void sap_state_var(sap_state *s, void *x, size_t size, size_t (*pack)(const void *, char *),
                   const char *(*unpack)(void *, const char *), void (*drop)(void *),
                   const char *name)
{
	if (!s->reading) {
		put_val(s, x, size, pack);
		return;
	}
	/* Driver code runs alike on every rank: part 0 has what all have. */
	for (int r = 0; r < s->nin; r++)
		get_val(s, r, r ? NULL : x, size, unpack, drop, name);
}

/* Set, when reading, once every DDS is back: what changes after it
 * changes a loop's inputs (sap_async_resume). */
static uint64_t restored;

/* How often it ran, and how it plans while its inputs stay as they are
 * (sap_plan_history). */
void sap_state_loop(sap_state *s, sap_loop *L)
{
	const char *what = "a loop's history";
	sap_plan_history h;
	if (!s->reading) {
		put_i64(s, L->invocations);
		int64_t b[2];
		sap_async_bounds(L, b);
		put_i64(s, b[0]);
		put_i64(s, b[1]);
		bool has = sap_async_history(L, &h);
		put_i64(s, has);
		if (!has)
			return;
		int64_t f[] = { h.layout_inv, h.lo, h.hi, h.T, h.blocks, h.ndds, h.naffine, h.has_memo,
		                h.ndrv };
		memcpy(room(s, sizeof f), f, sizeof f);
		memcpy(room(s, (size_t)h.ndds * sizeof *h.sizes), h.sizes, (size_t)h.ndds * sizeof *h.sizes);
		memcpy(room(s, (size_t)h.naffine * sizeof *h.affine), h.affine,
		       (size_t)h.naffine * sizeof *h.affine);
		memcpy(room(s, (size_t)h.ndrv), h.drv, (size_t)h.ndrv);
		memcpy(room(s, sizeof h.memo), &h.memo, sizeof h.memo);
		return;
	}
	L->invocations = (uint32_t)get_same(s, what);
	int64_t b[2];
	b[0] = get_same(s, what);
	b[1] = get_same(s, what);
	sap_async_set_bounds(L, b);
	for (int r = 0; r < s->nin; r++) {
		if (!get_i64(s, r, what))
			continue;
		int64_t f[9];
		memcpy(f, take(s, r, sizeof f, what), sizeof f);
		if (f[5] < 0 || f[5] > 1 << 20 || f[6] < 0 || f[6] > 1 << 20 || f[8] < 0 ||
		    f[8] > SAP_HISTORY_DRV_MAX)
			sap_fatal(NULL, "checkpoint: %s is garbled", what);
		h = (sap_plan_history){ .layout_inv = (uint32_t)f[0], .lo = f[1], .hi = f[2],
		                        .T = (int32_t)f[3], .blocks = (int32_t)f[4],
		                        .ndds = (int32_t)f[5], .naffine = (int32_t)f[6],
		                        .has_memo = f[7] != 0, .ndrv = f[8] };
		int64_t *sizes = sap_xmalloc((size_t)(h.ndds + 1) * sizeof *sizes);
		memcpy(sizes, take(s, r, (size_t)h.ndds * sizeof *sizes, what),
		       (size_t)h.ndds * sizeof *sizes);
		sap_affine *aff = sap_xmalloc((size_t)(h.naffine + 1) * sizeof *aff);
		memcpy(aff, take(s, r, (size_t)h.naffine * sizeof *aff, what),
		       (size_t)h.naffine * sizeof *aff);
		unsigned char *drv = sap_xmalloc((size_t)h.ndrv + 1);
		memcpy(drv, take(s, r, (size_t)h.ndrv, what), (size_t)h.ndrv);
		memcpy(&h.memo, take(s, r, sizeof h.memo, what), sizeof h.memo);
		h.sizes = sizes;
		h.affine = aff;
		h.drv = drv;
		/* Plans for another number of workers are made afresh. */
		if (!resharding(s)) {
			if (!restored)
				restored = sap_new_version();
			sap_async_resume(L, &h, restored);
		}
		free(sizes);
		free(aff);
		free(drv);
	}
}

/* A dvector: whether it exists yet, its length, its cuts, then this
 * rank's part.  Elements travel through the codec of their type, which
 * the compiler gives: a vector of a map's keys holds its strings in the
 * map's arena and has no codec of its own. */
static size_t put_elem(const sap_dvec *v, const sap_codec *c, int64_t k, char *out)
{
	const char *x = v->data + (size_t)k * v->elsize;
	if (c)
		return c->pack(x, out);
	if (out)
		memcpy(out, x, v->elsize);
	return v->elsize;
}

/* The runs of v's elements this rank writes: those it holds, and of
 * those every rank holds, its own part's; 2 * (their number) into *n. */
static int64_t *held_runs(const sap_dvec *v, int64_t *n)
{
	int me = sap_rank();
	int64_t lo, hi, *run = NULL, cap = 0;
	sap_dv_part(v, me, &lo, &hi);
	*n = 0;
	for (int64_t k = 0; k < v->n;) {
		uint16_t h;
		int64_t e = sap_hold_run(v, k, v->n, &h);
		int64_t a = k, b = e;
		if (h == SAP_HOLD_ALL) {
			a = a > lo ? a : lo;
			b = b < hi ? b : hi;
		} else if (h != me) {
			b = a;
		}
		if (a < b && *n && run[*n - 1] == a) {
			run[*n - 1] = b;
		} else if (a < b) {
			if (*n + 2 > cap)
				run = sap_xrealloc(run, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *run);
			run[(*n)++] = a;
			run[(*n)++] = b;
		}
		k = e;
	}
	return run;
}

static void put_dvec(sap_state *s, sap_dvec *v, const sap_codec *c, const sap_dmap *keys_of)
{
	put_i64(s, v->name ? v->n : -1);
	if (!v->name)
		return;
	int P = sap_nranks();
	/* Elements an async loop left on other ranks than their owners are
	 * written where they are: brought home for the checkpoint, the next
	 * loop would only move them back. */
	bool held = v->holder && !v->part_only && P > 1;
	if (!held)
		sap_dv_own_parts(v);
	put_i64(s, v->part_only);
	put_i64(s, v->codec != NULL);
	put_i64(s, keys_of && v->keys_of == keys_of);
	put_i64(s, v->cuts != NULL);
	for (int r = 0; v->cuts && r <= P; r++)
		put_i64(s, v->cuts[r]);
	/* Where no holder map says otherwise, every copy is current and the
	 * resumed run makes the vector whole again (see get_dvec). */
	put_i64(s, v->holder == NULL && !v->part_only);
	put_i64(s, held);
	int64_t nrun = 2, own[2], *run = own;
	sap_dv_part(v, sap_rank(), &own[0], &own[1]);
	if (held) {
		run = held_runs(v, &nrun);
		put_i64(s, nrun / 2);
		for (int64_t i = 0; i < nrun; i++)
			put_i64(s, run[i]);
	}
	size_t bytes = 0;
	for (int64_t i = 0; i < nrun; i += 2)
		for (int64_t k = run[i]; k < run[i + 1]; k++)
			bytes += put_elem(v, c, k, NULL);
	put_i64(s, (int64_t)bytes);
	char *p = room(s, bytes);
	for (int64_t i = 0; i < nrun; i += 2)
		for (int64_t k = run[i]; k < run[i + 1]; k++)
			p += put_elem(v, c, k, p);
	if (held)
		free(run);
}

/* Past one element of part r: unpacked into scratch and dropped. */
static const char *skip_elem(const char *p, size_t elsize, const sap_codec *c, char *scratch)
{
	if (!c)
		return p + elsize;
	memset(scratch, 0, elsize);
	p = c->unpack(scratch, p);
	if (c->drop)
		c->drop(scratch);
	return p;
}

/* The runs of part r's elements, 2 * (their number) into *n: those
 * written as held, or [a, b). */
static int64_t *get_runs(sap_state *s, int r, bool held, int64_t a, int64_t b, int64_t n,
                         int64_t *nrun, const char *name)
{
	int64_t k = held ? get_i64(s, r, name) : 1;
	/* Not held, a part is one run, [a, b) even when it is empty (a
	 * vector of no elements has one, [0, 0), which was refused). */
	if (k < 0 || k > (n > 0 ? n : 1))
		sap_fatal(NULL, "checkpoint: dvector %s: %lld runs of elements", name, (long long)k);
	int64_t *run = sap_xmalloc((size_t)(2 * k + 2) * sizeof *run);
	run[0] = a;
	run[1] = b;
	for (int64_t i = 0; held && i < 2 * k; i++)
		run[i] = get_i64(s, r, name);
	for (int64_t i = 0; i < 2 * k; i += 2)
		if (run[i] < 0 || run[i] > run[i + 1] || run[i + 1] > n)
			sap_fatal(NULL, "checkpoint: dvector %s: elements [%lld, %lld) of %lld", name,
			          (long long)run[i], (long long)run[i + 1], (long long)n);
	*nrun = 2 * k;
	return run;
}

/* The elements of part r, in runs run[0 .. nrun), into v, those in
 * [lo, hi) kept. */
static void get_elems(sap_state *s, int r, sap_dvec *v, const sap_codec *c, const int64_t *run,
                      int64_t nrun, int64_t lo, int64_t hi, const char *name)
{
	int64_t bytes = get_i64(s, r, name);
	const char *p = take(s, r, (size_t)bytes, name), *end = p + bytes;
	char *scratch = sap_xcalloc(1, v->elsize ? v->elsize : 1);
	for (int64_t i = 0; i < nrun; i += 2)
		for (int64_t k = run[i]; k < run[i + 1]; k++) {
			if (p >= end && v->elsize)
				sap_fatal(NULL, "checkpoint: dvector %s: a part ends early", name);
			if (k < lo || k >= hi) {
				p = skip_elem(p, v->elsize, c, scratch);
				continue;
			}
			char *x = v->data + (size_t)k * v->elsize;
			if (c) {
				p = c->unpack(x, p);
			} else {
				memcpy(x, p, v->elsize);
				p += v->elsize;
			}
		}
	free(scratch);
	if (p != end)
		sap_fatal(NULL, "checkpoint: dvector %s: a part has bytes left over", name);
}

/* Every rank's runs run[0 .. nrun), held by it in v. */
static void hold_runs(sap_dvec *v, const int64_t *run, int64_t nrun)
{
	int P = sap_nranks();
	int64_t *cnt = sap_xmalloc((size_t)P * sizeof *cnt), *dis = sap_xmalloc((size_t)P * sizeof *dis);
	int64_t total = sap_comm_counts(nrun, cnt, dis);
	int64_t *all = sap_xmalloc((size_t)(total + 1) * sizeof *all);
	sap_comm_allgatherv(run, nrun, all, cnt, dis, sizeof *all);
	sap_hold_map(v);
	for (int r = 0; r < P; r++)
		for (int64_t i = dis[r]; i < dis[r] + cnt[r]; i += 2)
			sap_hold_range(v, all[i], all[i + 1], (uint16_t)r);
	sap_hold_tidy(v);
	free(all);
	free(dis);
	free(cnt);
}

static void get_dvec(sap_state *s, sap_dvec *v, const char *name, size_t elsize,
                     const sap_codec *c, const sap_dmap *keys_of, const sap_site *site)
{
	int64_t n = get_same(s, name);
	if (n < 0)
		return;
	int P = sap_nranks(), me = sap_rank(), W = s->ranks;
	bool part_only = get_same(s, name) != 0;
	bool own_codec = get_same(s, name) != 0;
	bool of_keys = get_same(s, name) != 0;
	int64_t *cuts = NULL;
	if (get_same(s, name)) {
		cuts = sap_xmalloc((size_t)(W + 1) * sizeof *cuts);
		for (int r = 0; r <= W; r++)
			cuts[r] = get_same(s, name);
	}
	bool whole = get_same(s, name) != 0;
	bool held = get_same(s, name) != 0;
	int64_t *run, nrun;
	if (resharding(s)) {
		/* Another number of ranks: a vector held in parts is cut in
		 * even parts; any other is whole on every rank, read from every
		 * part.  One rank holds it whole, as its load() would have:
		 * loops never look for parts there. */
		part_only &= P > 1;
		int64_t lo = part_only ? sap_chunk(0, n, P, me) : 0;
		int64_t hi = part_only ? sap_chunk(0, n, P, me + 1) : n;
		if (part_only)
			sap_dv_create_part(v, name, n, elsize, lo, hi, site);
		else
			sap_dv_create(v, name, n, elsize, site);
		for (int r = 0; r < W; r++) {
			run = get_runs(s, r, held, cuts ? cuts[r] : sap_chunk(0, n, W, r),
			               cuts ? cuts[r + 1] : sap_chunk(0, n, W, r + 1), n, &nrun, name);
			get_elems(s, r, v, c, run, nrun, lo, hi, name);
			free(run);
		}
		free(cuts);
		whole = held = false;
	} else {
		if (part_only)
			sap_dv_create_part(v, name, n, elsize, cuts ? cuts[me] : sap_chunk(0, n, P, me),
			                   cuts ? cuts[me + 1] : sap_chunk(0, n, P, me + 1), site);
		else
			sap_dv_create(v, name, n, elsize, site);
		if (cuts)
			sap_dv_set_cuts(v, cuts);
		int64_t lo, hi;
		sap_dv_part(v, me, &lo, &hi);
		run = get_runs(s, 0, held, lo, hi, n, &nrun, name);
		get_elems(s, 0, v, c, run, nrun, 0, n, name);
		if (held)
			hold_runs(v, run, nrun);
		free(run);
	}
	if (of_keys)
		v->keys_of = keys_of;
	sap_dv_recount(v);
	/* The other ranks' parts travel with the type's codec too. */
	sap_dv_set_codec(v, c);
	if (P > 1 && !part_only && !held && !resharding(s)) {
		sap_hold_map(v);
		for (int r = 0; r < P; r++) {
			int64_t a, b;
			sap_dv_part(v, r, &a, &b);
			sap_hold_range(v, a, b, (uint16_t)r);
		}
		sap_hold_tidy(v);
		if (whole)
			sap_dv_whole(v, NULL);
	}
	sap_dv_set_codec(v, own_codec ? c : NULL);
}

void sap_state_dvec(sap_state *s, sap_dvec *v, const char *name, size_t elsize,
                    const sap_codec *c, const sap_dmap *keys_of, const sap_site *site)
{
	if (s->reading)
		get_dvec(s, v, name, elsize, c, keys_of, site);
	else
		put_dvec(s, v, c, keys_of);
}

/* A map: whether it exists yet, its flags, then the entries this rank
 * holds in their order, each with its number. */
static void put_key(sap_state *s, sap_keykind kk, const void *key)
{
	if (kk == SAP_K_STRING) {
		const char *k = sap_str_c(*(const sap_str *)key);
		size_t len = strlen(k);
		put_i64(s, (int64_t)len);
		memcpy(room(s, len), k, len);
	} else {
		put_i64(s, kk == SAP_K_INT ? *(const int32_t *)key : *(const int64_t *)key);
	}
}

/* The files dvectors were loaded from, and what they were then. */
typedef struct input {
	const sap_dvec *v;
	uint64_t version;       /* v's, just loaded */
	char *path;             /* NULL: not a regular file, read once */
	int64_t size, sec, nsec;
} input;

static input *inputs;
static int ninputs;

void sap_input_note(const sap_dvec *v, const char *path)
{
	input *in = NULL;
	for (int i = 0; i < ninputs && !in; i++)
		if (inputs[i].v == v)
			in = &inputs[i];
	if (!in) {
		inputs = sap_xrealloc(inputs, (size_t)(ninputs + 1) * sizeof *inputs);
		in = &inputs[ninputs++];
	} else {
		free(in->path);
	}
	struct stat st;
	*in = (input){ .v = v, .version = v->version };
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		in->path = sap_strf("%s", path);
		in->size = (int64_t)st.st_size;
		in->sec = (int64_t)st.st_mtim.tv_sec;
		in->nsec = (int64_t)st.st_mtim.tv_nsec;
	}
}

static input *input_of(const sap_dvec *v)
{
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].v == v)
			return &inputs[i];
	return NULL;
}

void sap_state_input(sap_state *s, sap_dvec *v, const char *name, size_t elsize,
                     const sap_codec *c, void (*reload)(void), const sap_site *site)
{
	const char *what = name;
	if (!s->reading) {
		input *in = input_of(v);
		/* On every rank alike, or else written out on every rank. */
		int named = in && in->path && v->name && in->version == v->version;
		if (sap_nranks() > 1)
			sap_comm_allreduce(&named, 1, SAP_COMM_INT, SAP_COMM_MIN);
		put_i64(s, named);
		if (!named) {
			put_dvec(s, v, c, NULL);
			return;
		}
		size_t len = strlen(in->path);
		put_i64(s, (int64_t)len);
		memcpy(room(s, len), in->path, len);
		put_i64(s, in->size);
		put_i64(s, in->sec);
		put_i64(s, in->nsec);
		return;
	}
	if (!get_same(s, what)) {
		get_dvec(s, v, name, elsize, c, NULL, site);
		return;
	}
	char *path = NULL;
	int64_t f[3];
	for (int r = 0; r < s->nin; r++) {
		int64_t len = get_i64(s, r, what);
		if (len < 0 || len > 1 << 20)
			sap_fatal(NULL, "checkpoint: the file of %s is garbled", what);
		const char *p = take(s, r, (size_t)len, what);
		if (r == 0)
			path = sap_strf("%.*s", (int)len, p);
		for (int k = 0; k < 3; k++) {
			int64_t x = get_i64(s, r, what);
			if (r == 0)
				f[k] = x;
		}
	}
	reload();
	const input *in = input_of(v);
	if (!in || !in->path || strcmp(in->path, path))
		sap_fatal(site, "--resume: dvector %s was loaded from '%s' when the checkpoint was taken, "
		          "and now from '%s': resume with the same inputs", name, path,
		          in && in->path ? in->path : "a file that is not a regular one");
	if (in->size != f[0] || in->sec != f[1] || in->nsec != f[2])
		sap_fatal(site, "--resume: '%s', which dvector %s was loaded from, has changed since the "
		          "checkpoint was taken (its size or its time): resume with the same inputs (a "
		          "save() of the program to it, after the checkpoint, changes it too, and then "
		          "the run can only start again)", path, name);
	free(path);
}

void sap_state_remade(sap_state *s, sap_dvec *v, void (*remake)(void))
{
	if (!s->reading)
		put_i64(s, v->name != NULL);
	else if (get_same(s, "a vector made again"))
		remake();
}

typedef struct map_rec {
	int64_t seq;
	union { int32_t i; int64_t l; sap_str s; } key;
	int part;
	size_t val;             /* where its value is in its part */
} map_rec;

static int by_seq(const void *x, const void *y)
{
	const map_rec *a = x, *b = y;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

void sap_state_dmap(sap_state *s, sap_dmap *m, const char *name, sap_keykind kk,
                    size_t valsize, bool multi, size_t (*pack)(const void *, char *),
                    const char *(*unpack)(void *, const char *), void (*drop)(void *))
{
	if (!s->reading) {
		/* The entries here: a parted map's size is every rank's. */
		int64_t here = 0, pos = 0, seq;
		const void *key;
		void *val;
		while (m->name && sap_dm_entry(m, &pos, &key, &val, &seq))
			here++;
		put_i64(s, m->name ? here : -1);
		if (!m->name)
			return;
		put_i64(s, m->parted);
		put_i64(s, m->local);
		put_i64(s, m->total);
		put_i64(s, m->seq);
		pos = 0;
		while (sap_dm_entry(m, &pos, &key, &val, &seq)) {
			put_i64(s, seq);
			put_key(s, kk, key);
			put_val(s, val, valsize, pack);
		}
		return;
	}
	/* Each part: its entries' count, the flags, then the entries. */
	sap_dm_create(m, name, kk, valsize, multi, drop);
	bool exists = false, parted = false;
	int64_t total = 0, top = 0;
	map_rec *all = NULL;
	int64_t nall = 0, cap = 0;
	for (int r = 0; r < s->nin; r++) {
		int64_t n = get_i64(s, r, name);
		if (n < 0)
			continue;
		exists = true;
		parted = get_i64(s, r, name) != 0;
		bool local = get_i64(s, r, name) != 0;
		total = get_i64(s, r, name);
		top = get_i64(s, r, name);
		(void)local;
		/* A map whole on every rank is read from part 0 alone. */
		bool keep = r == 0 || parted;
		for (int64_t i = 0; i < n; i++) {
			map_rec e = { .seq = get_i64(s, r, name) };
			int64_t x = get_i64(s, r, name);
			if (kk == SAP_K_STRING) {
				if (x < 0)
					sap_fatal(NULL, "checkpoint: map %s: a key of %lld bytes", name, (long long)x);
				const char *k = take(s, r, (size_t)x, name);
				e.key.s = keep ? sap_str_dup(k, (size_t)x) : NULL;
			} else if (kk == SAP_K_INT) {
				e.key.i = (int32_t)x;
			} else {
				e.key.l = x;
			}
			e.part = r;
			e.val = s->in[r].at;
			get_val(s, r, NULL, valsize, unpack, NULL, name);
			if (!keep)
				continue;
			if (nall == cap)
				all = sap_xrealloc(all, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *all);
			all[nall++] = e;
		}
	}
	if (!exists) {
		sap_dm_free(m);
		return;
	}
	/* In the order the entries were first made, as sap_dm_whole does:
	 * the parts of a parted map hold them in that order each. */
	if (s->nin > 1 && parted && nall > 1)
		qsort(all, (size_t)nall, sizeof *all, by_seq);
	for (int64_t i = 0; i < nall; i++) {
		part_in *in = &s->in[all[i].part];
		size_t at = in->at;
		in->at = all[i].val;
		get_val(s, all[i].part, sap_dm_put(m, &all[i].key, all[i].seq), valsize, unpack, NULL,
		        name);
		in->at = at;
	}
	free(all);
	m->seq = top;
	if (parted && !resharding(s))
		sap_dm_set_parted(m, total);
}

/* ---- checkpoints and resuming ---- */

/* A warning from this rank, which may be the only one to see the cause. */
static __attribute__((format(printf, 1, 2))) void warn_rank(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = sap_vstrf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (sap_nranks() > 1)
		fprintf(stderr, "[rank %d] warning: %s\n", sap_rank(), text);
	else
		fprintf(stderr, "warning: %s\n", text);
	fflush(stderr);
	free(text);
}

static uint64_t ckpt_seq;      /* of the next checkpoint; 0: not known yet */
static uint64_t first_seq;     /* this run's first */
static int64_t failed_parts;    /* checkpoints this rank could not write */
static uint64_t ops_run;        /* parallel operators finished */
static double last_ckpt;        /* when the last checkpoint was taken */
static double ckpt_seconds;
static int64_t ckpt_bytes, ckpt_count, ckpt_largest;

/* The runtime's part, first in every checkpoint: the count of operators,
 * the driver's generator, and the clock, whose wtime() goes on from
 * where it was. */
/* A resumed run's params that differ from the checkpoint's, as
 * "--k=3 (now 4), ...", or NULL: said once the state is read. */
static char *params_changed;

uint64_t sap_ckpt_key(bool workers)
{
	uint32_t h = 0, g = 0x9e3779b9u;
	int64_t run[2] = { sap_seed(), workers ? (int64_t)sap_nranks() * sap_cfg.threads : 0 };
	h = sap_crc32c(h, run, sizeof run);
	g = sap_crc32c(g, run, sizeof run);
	for (int i = 0; i < sap_param_count(); i++) {
		if (sap_param_out_only(i))
			continue;
		const char *name = sap_param_name(i);
		char *v = sap_param_text(i);
		h = sap_crc32c(h, name, strlen(name) + 1);
		h = sap_crc32c(h, v, strlen(v) + 1);
		g = sap_crc32c(g, v, strlen(v) + 1);
		free(v);
	}
	return (uint64_t)h << 32 | g;
}

/* The params' values as text, each after its name: a run resumed with
 * others continues from a state they did not make, which --resume says
 * (sap_resume); changing some (more epochs) is what the user wants. */
static void params_state(sap_state *s)
{
	int n = sap_param_count();
	if (!s->reading) {
		put_i64(s, n);
		for (int i = 0; i < n; i++) {
			const char *name = sap_param_name(i);
			char *v = sap_param_text(i);
			put_val(s, name, strlen(name), NULL);
			put_val(s, v, strlen(v), NULL);
			free(v);
		}
		return;
	}
	for (int r = 0; r < s->nin; r++) {
		int64_t m = get_i64(s, r, "the params");
		for (int64_t i = 0; i < m; i++) {
			int64_t kn = get_i64(s, r, "a param's name");
			const char *name = take(s, r, (size_t)kn, "a param's name");
			int64_t kv = get_i64(s, r, "a param's value");
			const char *was = take(s, r, (size_t)kv, "a param's value");
			if (r > 0)
				continue;
			for (int j = 0; j < n; j++) {
				const char *pn = sap_param_name(j);
				if (strlen(pn) != (size_t)kn || memcmp(pn, name, (size_t)kn) ||
				    sap_param_out_only(j))
					continue;
				char *now = sap_param_text(j);
				if (strlen(now) != (size_t)kv || memcmp(now, was, (size_t)kv)) {
					char *add = sap_strf("%s%s--%s=%.*s (now %s)", params_changed ?
					                     params_changed : "", params_changed ? ", " : "",
					                     pn, (int)kv, was, now);
					free(params_changed);
					params_changed = add;
				}
				free(now);
			}
		}
	}
}

/* The time a resumed run's checkpoint was taken, as file times go (the
 * kernel's coarse clock), and the files this run saved since: a file the
 * stopped run changed after the checkpoint (a save() of its own, a pass
 * later) is not what the resumed run's load() of it must read. */
static struct timespec taken;
static bool resumed, restoring;
typedef struct file_id {
	dev_t dev;
	ino_t ino;
} file_id;
static file_id *saved;
static int nsaved;

void sap_resume_saved(const char *path)
{
	struct stat st;
	if (!resumed || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	saved = sap_xrealloc(saved, (size_t)(nsaved + 1) * sizeof *saved);
	saved[nsaved++] = (file_id){ st.st_dev, st.st_ino };
}

void sap_resume_check_load(const char *path, const sap_site *site)
{
	struct stat st;
	/* What the checkpoint names a file for is loaded again and compared
	 * with it there (sap_state_input). */
	if (!resumed || restoring || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	if (st.st_mtim.tv_sec < taken.tv_sec ||
	    (st.st_mtim.tv_sec == taken.tv_sec && st.st_mtim.tv_nsec <= taken.tv_nsec))
		return;
	for (int i = 0; i < nsaved; i++)
		if (saved[i].dev == st.st_dev && saved[i].ino == st.st_ino)
			return;
	sap_fatal(site, "--resume: '%s' was changed after the checkpoint was taken (by the run that "
	          "stopped: a save() of its own to it, say), so this load would not read what the "
	          "stopped run read here, and the run cannot go on exactly from the checkpoint; run "
	          "again from the start, and to make such a run resumable, save each pass to a file "
	          "of its own", path);
}

static void runtime_state(sap_state *s)
{
	sap_rng *r = sap_driver_rng();
	params_state(s);
	if (s->reading) {
		ops_run = (uint64_t)get_same(s, "the runtime's state");
		double t = 0;
		int64_t when[2] = { 0, 0 };
		for (int k = 0; k < s->nin; k++) {
			const char *p = take(s, k, sizeof *r, "the driver's generator");
			if (k == 0)
				memcpy(r, p, sizeof *r);
			p = take(s, k, sizeof t, "the clock");
			if (k == 0)
				memcpy(&t, p, sizeof t);
			for (int j = 0; j < 2; j++) {
				int64_t x = get_i64(s, k, "the time of the checkpoint");
				if (k == 0)
					when[j] = x;
			}
		}
		sap_wtime_continue(t);
		taken = (struct timespec){ .tv_sec = (time_t)when[0], .tv_nsec = (long)when[1] };
		resumed = true;
	} else {
		put_i64(s, (int64_t)ops_run);
		memcpy(room(s, sizeof *r), r, sizeof *r);
		double t = sap_wtime();
		memcpy(room(s, sizeof t), &t, sizeof t);
		struct timespec now;
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		put_i64(s, (int64_t)now.tv_sec);
		put_i64(s, (int64_t)now.tv_nsec);
	}
}

/* Every rank decides alike: by the count of operators, or by rank 0's
 * clock. */
static bool due(void)
{
	if (sap_cfg.ckpt_every > 0 && ops_run % (uint64_t)sap_cfg.ckpt_every == 0)
		return true;
	if (sap_cfg.ckpt_seconds <= 0)
		return false;
	int d = sap_rank() == 0 && sap_wtime() - last_ckpt >= sap_cfg.ckpt_seconds;
	if (sap_nranks() > 1)
		sap_comm_bcast(&d, 1, sizeof d, 0);
	return d;
}

static void checkpoint(const sap_loop *L, sap_state_fn fn);
static void complete(bool last);

/* SAP_TEST_KILL_AFTER=N[:R]: rank R (0 if not given) kills itself with
 * SIGKILL once parallel operator N is over, its checkpoint taken if one
 * was due: a crash at a point the tests choose. */
static void test_kill(void)
{
	static int64_t after = -1, who;
	if (after < 0) {
		const char *v = getenv("SAP_TEST_KILL_AFTER");
		long long n = 0, r = 0;
		after = v && sscanf(v, "%lld:%lld", &n, &r) >= 1 ? n : 0;
		who = r;
	}
	if (after > 0 && ops_run == (uint64_t)after) {
		/* The checkpoint just taken is complete when the rank dies. */
		complete(true);
		if (sap_rank() == who) {
			fflush(stdout);
			raise(SIGKILL);
		}
	}
}

void sap_ckpt_after(const sap_loop *L, sap_state_fn fn)
{
	/* The lines printed before a checkpoint are out before it is. */
	sap_print_settle();
	ops_run++;
	if (sap_cfg.ckpt_dir && due())
		checkpoint(L, fn);
	test_kill();
}

/* The checkpoint whose part a thread of its own writes while the run
 * goes on: its writes and fsyncs are off the run's path, and only the
 * state's copy into memory is on it.  The next checkpoint waits for the
 * thread and the ranks agree that every part is on disk (collective);
 * rank 0's next thread then writes that checkpoint's COMPLETE before its
 * own part, and the end of the run writes the last one's.  A run killed
 * before a COMPLETE leaves that checkpoint incomplete, and --resume
 * takes the one before. */
static struct {
	bool active;
	bool threaded;          /* else written already */
	pthread_t thread;
	sap_ckpt_head h;
	sap_state s;
	char *err;
	uint32_t crc;
	double seconds;         /* the thread's */
	/* Rank 0: the agreed checkpoint whose COMPLETE the thread writes
	 * first, and why it could not. */
	bool mark;
	sap_ckpt_head mark_h;
	int64_t mark_bytes;
	uint32_t *crcs;
	char *mark_err;
} writing;
static double write_seconds;
/* The last state's buffer, kept: a fresh one's pages each cost a fault. */
static sap_state spare;

/* At the run's own priority: a few ms of CPU, the rest waiting for the
 * disk.  At SCHED_IDLE, on cores the run keeps busy, it got no CPU
 * until the next checkpoint waited for it, which cost more. */
static void *write_part(void *arg)
{
	(void)arg;
	double t0 = sap_now();
	if (writing.mark)
		writing.mark_err = sap_ckpt_mark(sap_cfg.ckpt_dir, &writing.mark_h, writing.crcs,
		                                 sap_nranks());
	writing.mark = false;
	writing.err = sap_ckpt_write_part(sap_cfg.ckpt_dir, &writing.h, writing.s.buf, writing.s.n,
	                                  &writing.crc);
	writing.seconds = sap_now() - t0;
	return NULL;
}

static void counted(int64_t bytes, int sign)
{
	ckpt_count += sign;
	ckpt_bytes += sign * bytes;
	if (sign > 0 && bytes > ckpt_largest)
		ckpt_largest = bytes;
}

/* Collective: the checkpoint being written waited for, and the ranks'
 * agreement on it; its COMPLETE is left to rank 0's next thread, or
 * written here at the end of the run (last). */
static void complete(bool last)
{
	if (!writing.active)
		return;
	if (writing.threaded)
		pthread_join(writing.thread, NULL);
	writing.active = false;
	write_seconds += writing.seconds;
	int P = sap_nranks(), me = sap_rank();
	/* The COMPLETE rank 0 wrote before this part: if it failed, that
	 * checkpoint was not taken after all, on every rank. */
	int unmarked = writing.mark_err != NULL;
	if (writing.mark_err) {
		warn_rank("%s (the run goes on)", writing.mark_err);
		free(writing.mark_err);
		writing.mark_err = NULL;
	}
	writing.crcs = sap_xrealloc(writing.crcs, (size_t)P * sizeof *writing.crcs);
	bool ok = sap_ckpt_agree(writing.err == NULL, writing.crc, writing.crcs, &unmarked);
	if (unmarked) {
		counted(writing.mark_bytes, -1);
		sap_ckpt_discard(sap_cfg.ckpt_dir, writing.mark_h.seq);
	}
	if (!ok)
		sap_ckpt_discard(sap_cfg.ckpt_dir, writing.h.seq);
	if (writing.err) {
		/* A directory that cannot be written fails every checkpoint:
		 * three say so, the end of the run how many more did. */
		if (++failed_parts <= 3)
			warn_rank("%s (the run goes on%s)", writing.err, failed_parts == 3 ?
			          "; further failures are counted at the end" : "");
		free(writing.err);
		writing.err = NULL;
	} else if (!ok && me == 0) {
		sap_warn(NULL, "checkpoint %llu in '%s' not written: another rank failed (the run "
		         "goes on)", (unsigned long long)writing.h.seq, sap_cfg.ckpt_dir);
	}
	if (ok) {
		counted((int64_t)writing.s.n, 1);
		writing.mark_h = writing.h;
		writing.mark_bytes = (int64_t)writing.s.n;
		writing.mark = me == 0;
	}
	if (last && ok) {
		int bad = 0;
		if (me == 0) {
			char *err = sap_ckpt_mark(sap_cfg.ckpt_dir, &writing.h, writing.crcs, P);
			if (err) {
				warn_rank("%s", err);
				free(err);
				bad = 1;
			}
		}
		writing.mark = false;
		sap_comm_bcast(&bad, 1, sizeof bad, 0);
		if (bad) {
			counted(writing.mark_bytes, -1);
			sap_ckpt_discard(sap_cfg.ckpt_dir, writing.h.seq);
		}
	}
	free(spare.buf);
	spare = writing.s;
	writing.s = (sap_state){ 0 };
}

void sap_ckpt_finish(void)
{
	double t0 = sap_wtime();
	bool was = writing.active;
	complete(true);
	/* Its newest checkpoint is a finished run's: a run started after it
	 * without --resume is not warned (sap_resume). */
	uint64_t last;
	if (sap_rank() == 0 && first_seq &&
	    (last = sap_ckpt_newest(sap_cfg.ckpt_dir, sap_program_hash())) >= first_seq)
		sap_ckpt_ended(sap_cfg.ckpt_dir, last);
	sap_ckpt_run_end();
	if (failed_parts > 3)
		warn_rank("%lld checkpoints in all could not be written to '%s'",
		          (long long)failed_parts, sap_cfg.ckpt_dir);
	free(writing.crcs);
	writing.crcs = NULL;
	free(spare.buf);
	spare = (sap_state){ 0 };
	if (was)
		ckpt_seconds += sap_wtime() - t0;
}

static void checkpoint(const sap_loop *L, sap_state_fn fn)
{
	double t0 = sap_wtime();
	complete(false);
	/* After any there already are, which a fresh run's must outlive:
	 * the newest two are kept, and --resume takes the newest. */
	if (!ckpt_seq)
		first_seq = ckpt_seq = sap_ckpt_last_seq(sap_cfg.ckpt_dir) + 1;
	sap_state s = {.buf = spare.buf, .cap = spare.cap};
	spare = (sap_state){ 0 };
	runtime_state(&s);
	fn(&s, L->id);
	ckpt_seq = sap_ckpt_reserve(sap_cfg.ckpt_dir, ckpt_seq, sap_program_hash());
	writing.h = (sap_ckpt_head){.program = sap_program_hash(), .seq = ckpt_seq++,
	                            .invocation = ops_run, .op = (uint32_t)L->id,
	                            .threads = (uint32_t)sap_cfg.threads, .seed = sap_seed()};
	writing.s = s;
	writing.err = NULL;
	writing.active = true;
	writing.threaded = pthread_create(&writing.thread, NULL, write_part, &writing) == 0;
	if (!writing.threaded)
		write_part(NULL);       /* no thread to spare: here, then */
	last_ckpt = sap_wtime();
	ckpt_seconds += last_ckpt - t0;
}

static void passed_over(const char *why)
{
	warn_rank("--resume: passing over %s", why);
}

int sap_resume(sap_state_fn fn)
{
	last_ckpt = sap_wtime();
	/* A run restarted without --resume starts over, and its own
	 * checkpoints soon replace those of a run that did not end: said,
	 * as that loses its progress (helper CK). */
	uint64_t old;
	if (!sap_cfg.resume && sap_cfg.ckpt_dir && fn && sap_rank() == 0 &&
	    (old = sap_ckpt_newest(sap_cfg.ckpt_dir, sap_program_hash())) &&
	    !sap_ckpt_is_ended(sap_cfg.ckpt_dir, old))
		sap_warn(NULL, "'%s' holds a checkpoint of this program (ckpt-%llu), which this run, "
		         "started without --resume, will replace: --resume continues from it",
		         sap_cfg.ckpt_dir, (unsigned long long)old);
	if (!sap_cfg.resume)
		return 0;
	const char *dir = sap_cfg.ckpt_dir;
	if (!fn) {
		sap_warn(NULL, "--resume: this program has no parallel loop in its driver code, so no "
		         "checkpoints: starting from the beginning");
		return 0;
	}
	sap_ckpt_head h;
	sap_ckpt_parts pt;
	if (!sap_ckpt_load(dir, sap_program_hash(), &h, &pt, passed_over)) {
		sap_warn(NULL, "--resume: no complete checkpoint of this program in '%s': starting from "
		         "the beginning", dir);
		return 0;
	}
	sap_state s = {.reading = true, .nin = pt.n, .ranks = pt.ranks};
	s.in = sap_xcalloc((size_t)pt.n, sizeof *s.in);
	for (int r = 0; r < pt.n; r++)
		s.in[r] = (part_in){ .p = pt.data[r], .n = pt.len[r] };
	runtime_state(&s);
	restoring = true;
	fn(&s, (int)h.op);
	restoring = false;
	for (int r = 0; r < pt.n; r++)
		if (s.in[r].at != s.in[r].n)
			sap_fatal(NULL, "checkpoint %llu in '%s': %zu bytes left over in part %d (written "
			          "by another build?)", (unsigned long long)h.seq, dir,
			          s.in[r].n - s.in[r].at, pt.n > 1 ? r : sap_rank());
	free(s.in);
	int was = pt.ranks;
	sap_ckpt_parts_free(&pt);
	/* After every one there, a damaged newer one included. */
	first_seq = ckpt_seq = sap_ckpt_last_seq(dir) + 1;
	if (sap_rank() == 0)
		fprintf(stderr, "resuming from checkpoint %llu in '%s', after parallel loop run %llu "
		        "(loop %u)\n", (unsigned long long)h.seq, dir, (unsigned long long)h.invocation,
		        h.op);
	/* As many workers on other ranks: the plans are for as many, but
	 * cut from the keys of the invocation after the checkpoint. */
	if (was != sap_nranks())
		sap_warn(NULL, "--resume: the checkpoint was taken on %d rank%s, this run has %d: its "
		         "vectors and maps are cut anew, and its async loops plan afresh%s (sap-run(1), "
		         "CHECKPOINTS)", was, was == 1 ? "" : "s", sap_nranks(),
		         (int64_t)was * h.threads != (int64_t)sap_nranks() * sap_cfg.threads ?
		         " for other workers" : "");
	else if (h.threads != (uint32_t)sap_cfg.threads)
		sap_warn(NULL, "--resume: the checkpoint was taken with %u thread%s a rank, this run "
		         "has %d: its async loops plan for other workers, so its results may differ "
		         "from the uninterrupted run's", h.threads, h.threads == 1 ? "" : "s",
		         sap_cfg.threads);
	if (params_changed) {
		sap_warn(NULL, "--resume: the checkpoint was taken with %s: what it holds was made "
		         "with the old values and goes on with the new, as the program reads them "
		         "(sap-run(1), CHECKPOINTS)", params_changed);
		free(params_changed);
		params_changed = NULL;
	}
	/* The random numbers after the checkpoint would be another seed's
	 * than those before it: a run of neither. */
	if (h.seed != sap_seed())
		sap_warn(NULL, "--resume: the checkpoint was taken with --seed=%u, this run has --seed=%u: "
		         "its random numbers from here on are another run's, so its result is that of "
		         "neither seed", h.seed, sap_seed());
	last_ckpt = sap_wtime();
	return (int)h.op;
}

void sap_ckpt_stats(double *seconds, double *writing_s, int64_t *bytes, int64_t *count,
                    int64_t *largest)
{
	*largest = ckpt_largest;
	*seconds = ckpt_seconds;
	*writing_s = write_seconds;
	*bytes = ckpt_bytes;
	*count = ckpt_count;
}
