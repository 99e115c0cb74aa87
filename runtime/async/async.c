/* async.c: sap_async_for, the driver of one invocation of an async loop.
 *
 * It picks the cheapest way to run the invocation that stays
 * serializable: in index order (one worker, or the compiler said every
 * iteration writes the same key), in contiguous chunks (every written DDS
 * is indexed a * i + b, so iterations touch disjoint keys), or by a plan
 * from reconnaissance.  The reconnaissance and the plan are kept while
 * their inputs stay the same, since ML loops run many times over the same
 * data (STRADS-AP section 4.2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include "sap-int.h"

static struct sap_loop_state *state_of(sap_loop *L)
{
	if (!L->state) {
		struct sap_loop_state *st = sap_xcalloc(1, sizeof *st);
		st->loop = L;
		sap_stats_register(st);
		L->state = st;
	}
	return L->state;
}

bool sap_async_history(const sap_loop *L, sap_plan_history *h)
{
	const struct sap_loop_state *st = L->state;
	if (L->kind != SAP_ASYNC || !st || !st->cached || !st->layout.d)
		return false;
	*h = (sap_plan_history){
		.layout_inv = st->layout_inv, .lo = st->lo, .hi = st->hi, .T = st->T,
		.blocks = st->blocks, .ndds = st->ndds, .naffine = st->naffine, .sizes = st->sizes,
		.affine = st->affine, .ndrv = st->ndrv == SIZE_MAX ? 0 : (int64_t)st->ndrv,
		.drv = st->drv,
		.has_memo = st->layout.memo != NULL,
	};
	if (st->layout.memo)
		h->memo = *st->layout.memo;
	return true;
}

void sap_async_bounds(const sap_loop *L, int64_t b[2])
{
	const struct sap_loop_state *st = L->kind == SAP_ASYNC ? L->state : NULL;
	b[0] = st ? st->last_lo : 0;
	b[1] = st ? st->last_hi : 0;
}

void sap_async_set_bounds(sap_loop *L, const int64_t b[2])
{
	if (L->kind != SAP_ASYNC || (!L->state && !b[0] && !b[1]))
		return;
	struct sap_loop_state *st = state_of(L);
	st->last_lo = b[0];
	st->last_hi = b[1];
}

void sap_async_resume(sap_loop *L, const sap_plan_history *h, uint64_t restored)
{
	struct sap_loop_state *st = state_of(L);
	int nd = h->ndds ? h->ndds : 1;
	st->lo = h->lo;
	st->hi = h->hi;
	st->T = h->T;
	st->blocks = h->blocks;
	st->ndds = h->ndds;
	st->naffine = h->naffine;
	st->sizes = sap_xrealloc(st->sizes, (size_t)nd * sizeof *st->sizes);
	memcpy(st->sizes, h->sizes, (size_t)h->ndds * sizeof *st->sizes);
	st->affine = sap_xrealloc(st->affine, (size_t)(h->naffine ? h->naffine : 1) *
	                          sizeof *st->affine);
	if (h->naffine)
		memcpy(st->affine, h->affine, (size_t)h->naffine * sizeof *st->affine);
	st->ndrv = (size_t)h->ndrv;
	st->drv = sap_xrealloc(st->drv, st->ndrv ? st->ndrv : 1);
	if (st->ndrv)
		memcpy(st->drv, h->drv, st->ndrv);
	st->layout_inv = h->layout_inv;
	st->restored = restored;
	free(st->resume_memo);
	st->resume_memo = NULL;
	if (h->has_memo) {
		st->resume_memo = sap_xmalloc(sizeof *st->resume_memo);
		*st->resume_memo = h->memo;
	}
	st->resumed = st->cached = true;
}

/* ---- what the spec says ---- */

typedef enum shape { INDEPENDENT, NEEDS_PLAN, UNKNOWN } shape;

static shape shape_of(const sap_async_spec *spec, const char **why)
{
	bool indep = true;
	int parts = 0;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!(d->mode & SAP_WRITE) || d->accumulate)
			continue;
		parts++;
		/* An insert may move every value of a map, under the feet of
		 * a worker updating another key. */
		if (d->dm && !d->keeps_keys && !d->check_keys) {
			*why = "it writes a dmap, whose inserts are not thread-safe";
			return UNKNOWN;
		}
		/* A map written only at the key of a loop over keys, each
		 * listed once, and never inserted into: no two iterations
		 * meet there.  Planned, the workers' keys interleaved over
		 * the map's entries, and a truncation pass over 100,000
		 * weights ran 3 times slower on 2 threads than on one. */
		if (d->dm && d->at_key && d->keeps_keys)
			continue;
		int forms = 0;
		const sap_affine *first = NULL;
		for (int q = 0; q < spec->naffine; q++) {
			const sap_affine *a = &spec->affine[q];
			if (a->dds != k)
				continue;
			if (!first)
				first = a;
			if (a->a != first->a || a->b != first->b)
				forms++;
		}
		if (!first && !spec->slice) {
			*why = "the spec records no access of a DDS it writes";
			return UNKNOWN;
		}
		if ((spec->slice && !d->no_slice) || !first || forms || first->a == 0)
			indep = false;
	}
	if (parts > 64) {
		*why = "it writes more than 64 DDSs";
		return UNKNOWN;
	}
	return indep ? INDEPENDENT : NEEDS_PLAN;
}

/* Keys past this are not a vector's: a hull that would reach past it is
 * cut here, where the runtime's sums of keys still fit. */
#define HULL_MAX ((__int128)1 << 61)

/* The keys of span sp an iteration reach from its a i + b: up to this
 * past b (its hull's width). */
static int64_t span_reach(const sap_span *sp)
{
	return sp->m > 1 ? sp->c * (sp->m - 1) + sp->w : sp->w;
}

static __int128 gcd128(__int128 x, __int128 y)
{
	while (y) {
		__int128 t = x % y;
		x = y;
		y = t;
	}
	return x;
}

sap_span sap_span_hull(int dds, sap_mode mode, int64_t a, int64_t b, int n, const int64_t *clh,
                       bool narrow)
{
	sap_span s = { .dds = dds, .mode = mode, .a = a, .b = b, .w = 0, .c = 0, .m = 1,
	               .narrow = narrow };
	__int128 lo = b, ext = 0;
	for (int m = 0; m < n; m++) {
		__int128 c = clh[3 * m], L = clh[3 * m + 1], H = clh[3 * m + 2];
		if (H <= L)
			return s;
		lo += c >= 0 ? c * L : c * (H - 1);
		ext += (c >= 0 ? c : -c) * (H - 1 - L);
		if (lo < -HULL_MAX || lo > HULL_MAX || ext > HULL_MAX)
			break;
	}
	lo = lo < -HULL_MAX ? -HULL_MAX : lo > HULL_MAX ? HULL_MAX : lo;
	ext = ext > HULL_MAX ? HULL_MAX : ext;
	s.b = (int64_t)lo;
	s.w = (int64_t)ext + 1;
	/* A lattice: the loops whose |C| is at least some t are its rows,
	 * their offsets multiples of g, the gcd of those |C|; when g steps
	 * over the hull of the other loops' keys, w, the keys are w from
	 * each of the multiples of g the rows' offsets span (a column of a
	 * row-major matrix; of a volume, x[(z * H + y) * W + i] over z and y:
	 * rows W apart). */
	__int128 best = -1;
	for (int t = 0; t < n && ext <= HULL_MAX / 2; t++) {
		__int128 ct = clh[3 * t] < 0 ? -(__int128)clh[3 * t] : clh[3 * t];
		__int128 g = 0, rest = 0, span = 0;
		for (int m = 0; m < n; m++) {
			__int128 c = clh[3 * m] < 0 ? -(__int128)clh[3 * m] : clh[3 * m];
			__int128 e = c * (clh[3 * m + 2] - 1 - clh[3 * m + 1]);
			if (c >= ct && c > 0) {
				g = gcd128(g, c);
				span += e;
			} else {
				rest += e;
			}
		}
		/* The narrowest rows: of a volume's columns, W apart, not
		 * the planes H W apart with rows of (H - 1) W + 1. */
		if (g > rest + 1 && span >= g && span / g + 1 <= HULL_MAX / g &&
		    (best < 0 || rest < best)) {
			best = rest;
			s.w = (int64_t)rest + 1;
			s.c = (int64_t)g;
			s.m = (int64_t)(span / g) + 1;
		}
	}
	return s;
}

sap_span sap_span_exact(sap_span s, int64_t a, int64_t b, int64_t c, int64_t pl, int64_t ql,
                        int64_t ph, int64_t qh)
{
	s.exact = true;
	s.ja = a;
	s.jb = b;
	s.jc = c;
	s.jpl = pl;
	s.jql = ql;
	s.jph = ph;
	s.jqh = qh;
	return s;
}

/* ---- keys as cells of a row-major grid (grid_apart) ---- */

/* A bound s i + q of iteration i. */
typedef struct gline {
	__int128 s, q;
} gline;

/* The cells of one form in iteration i: rows [r1, r2) by columns
 * [c1, c2) of a grid of rows R long, each bound a gline; w: it writes. */
typedef struct grect {
	gline r1, r2, c1, c2;
	bool w;
	__int128 i0, i1;        /* the iterations with cells: [i0, i1] */
} grect;

static __int128 gat(gline l, __int128 i)
{
	return l.s * i + l.q;
}

/* x as xr R + xc, xr and xc each -1, 0 or 1. */
static bool grid_split(int64_t x, int64_t R, int *xr, int *xc)
{
	for (int r = -1; r <= 1; r++)
		for (int c = -1; c <= 1; c++)
			if ((__int128)r * R + c == x) {
				*xr = r;
				*xc = c;
				return true;
			}
	return false;
}

static __int128 floor_div(__int128 x, __int128 y);
static void glt(__int128 s, __int128 t, __int128 *x0, __int128 *x1);

/* Form key = a i + b + c j, j in [L(i), H(i)) with L = pl i + ql and
 * H = ph i + qh, as a grect of rows R long: j moving a row or a column,
 * not both, and every cell's column in [0, R) over [lo, hi) (checked at
 * the corners of the iterations' j ranges, where a linear form has its
 * extremes). */
static bool grid_rect(int64_t a, int64_t b, int64_t c, int64_t pl, int64_t ql, int64_t ph,
                      int64_t qh, int64_t R, int64_t lo, int64_t hi, bool w, grect *g)
{
	int ar, ac, cr = 0, cc = 0;
	if (!grid_split(a, R, &ar, &ac) || (c && !grid_split(c, R, &cr, &cc)) || (cr && cc))
		return false;
	__int128 br = floor_div(b, R), bc = (__int128)b - br * R;
	/* The iterations whose j range is not empty, L(i) < H(i): an
	 * interval, the two being linear. */
	__int128 i0 = lo, i1 = hi - 1;
	glt(pl - ph, qh - ql, &i0, &i1);
	if (i0 > i1) {
		*g = (grect){ .i0 = 1, .i1 = 0 };
		return true;
	}
	for (int e = 0; e < 2; e++) {
		__int128 i = e ? i1 : i0, L = (__int128)pl * i + ql, H = (__int128)ph * i + qh;
		for (int f = 0; f < 2 && c; f++) {
			__int128 col = ac * i + cc * (f ? H - 1 : L) + bc;
			if (col < 0 || col >= R)
				return false;
		}
		if (!c && (ac * i + bc < 0 || ac * i + bc >= R))
			return false;
	}
	g->i0 = i0;
	g->i1 = i1;
	gline row = { ar, br }, col = { ac, bc };
	gline L = { pl, ql }, H = { ph, qh };
	if (!c) {
		*g = (grect){ row, { row.s, row.q + 1 }, col, { col.s, col.q + 1 }, w, i0, i1 };
		return true;
	}
	/* Along j: from x + L to x + H, or, going down, from x - H + 1. */
	int k = cr ? cr : cc;
	gline base = cr ? row : col, from, to;
	if (k > 0) {
		from = (gline){ base.s + L.s, base.q + L.q };
		to = (gline){ base.s + H.s, base.q + H.q };
	} else {
		from = (gline){ base.s - H.s, base.q - H.q + 1 };
		to = (gline){ base.s - L.s, base.q - L.q + 1 };
	}
	if (cr)
		*g = (grect){ from, to, col, { col.s, col.q + 1 }, w, i0, i1 };
	else
		*g = (grect){ row, { row.s, row.q + 1 }, from, to, w, i0, i1 };
	return true;
}

/* The interval [*x0, *x1] of i' narrowed to where s i' < t. */
static void glt(__int128 s, __int128 t, __int128 *x0, __int128 *x1)
{
	/* The usual slopes with no division (helper U19: a band of 4 M rows
	 * spent 19% of its check dividing). */
	if (s == 0) {
		if (!(0 < t))
			*x0 = *x1 + 1;
	} else if (s == 1) {
		*x1 = t - 1 < *x1 ? t - 1 : *x1;
	} else if (s == -1) {
		*x0 = 1 - t > *x0 ? 1 - t : *x0;
	} else if (s > 0) {
		__int128 m = floor_div(t - 1, s);
		*x1 = m < *x1 ? m : *x1;
	} else {
		__int128 m = floor_div(-t, -s) + 1;
		*x0 = m > *x0 ? m : *x0;
	}
}

/* Do the cells of f in some iteration i and of g in another i' meet?  For each i the i' whose g cells meet f's are an
 * interval, from g's bounds being linear in i'. */
static bool grid_meet(const grect *f, const grect *g)
{
	for (__int128 i = f->i0; i <= f->i1; i++) {
		__int128 r1 = gat(f->r1, i), r2 = gat(f->r2, i), c1 = gat(f->c1, i), c2 = gat(f->c2, i);
		if (r1 >= r2 || c1 >= c2)
			continue;
		__int128 x0 = g->i0, x1 = g->i1;
		/* g.r1(i') < r2, r1 < g.r2(i'), and the same of columns; and
		 * g's cells in i' not empty. */
		glt(g->r1.s, r2 - g->r1.q, &x0, &x1);
		glt(-g->r2.s, g->r2.q - r1, &x0, &x1);
		glt(g->c1.s, c2 - g->c1.q, &x0, &x1);
		glt(-g->c2.s, g->c2.q - c1, &x0, &x1);
		glt(g->r1.s - g->r2.s, g->r2.q - g->r1.q, &x0, &x1);
		glt(g->c1.s - g->c2.s, g->c2.q - g->c1.q, &x0, &x1);
		if (x0 <= x1 && !(x0 == i && x1 == i))
			return true;
	}
	return false;
}

/* Are iterations [lo, hi) apart at DDS k as cells of a row-major grid:
 * each form a row's or a column's run of cells, or a cell, in each
 * iteration, none of one iteration meeting another's where either
 * writes?  A kernel matrix's upper triangle by rows mirrored into the
 * lower, K[i * n + j] and K[j * n + i] for j from i: the rows and the
 * columns of different iterations never meet, which no stride shows
 * (helper KER: planned at a key per element, 100 times the loop).  On
 * one rank's threads, as pairs_apart; for up to GRID_MAX iterations. */
enum { GRID_FORMS = 16, GRID_MAX = 1 << 22 };

/* The forms of DDS k as grid cells of rows R long, their keys less o
 * (the grid's origin), into g; how many, or -1 if some form is none. */
static int grid_forms(const sap_async_spec *spec, int k, int64_t R, int64_t o, int64_t lo,
                      int64_t hi, grect *g)
{
	int n = 0;
	for (int q = 0; q < spec->naffine + spec->nspan; q++) {
		const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
		const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
		if ((af ? af->dds : sp->dds) != k)
			continue;
		bool w = (af ? af->mode : sp->mode) & SAP_WRITE;
		int64_t b;
		if (__builtin_sub_overflow(af ? af->b : sp->exact ? sp->jb : sp->b, o, &b))
			return -1;
		bool ok;
		if (af)
			ok = grid_rect(af->a, b, 0, 0, 0, 0, 1, R, lo, hi, w, &g[n]);
		else if (sp->exact)
			ok = grid_rect(sp->ja, b, sp->jc, sp->jpl, sp->jql, sp->jph, sp->jqh, R, lo, hi, w,
			               &g[n]);
		/* A hull: a run of w keys, or of m keys c apart. */
		else if (sp->m <= 1)
			ok = sp->w <= 0 || grid_rect(sp->a, b, 1, 0, 0, 0, sp->w, R, lo, hi, w, &g[n]);
		else
			ok = sp->w == 1 && grid_rect(sp->a, b, sp->c, 0, 0, 0, sp->m, R, lo, hi, w, &g[n]);
		if (!ok)
			return -1;
		if (af || sp->w > 0)
			n++;
	}
	return n;
}

static bool grid_check(const sap_async_spec *spec, int k, int64_t lo, int64_t hi);
static bool grid_at(const sap_dds *d, const sap_async_spec *spec, int k, int64_t R, int64_t o,
                    int64_t lo, int64_t hi, grect *g);

/* The answers of grid_check for the last few forms and bounds: a loop
 * runs again with the same (helper U19: a band of 4 M rows checked at
 * each of 10 invocations took 15 times the loop).  Only the driver
 * thread asks. */
enum { GRID_MEMO = 8, GRID_FIELDS = 15, GRID_KEY = 3 + GRID_FIELDS * GRID_FORMS };
static struct {
	int64_t key[GRID_KEY];
	int n;
	bool apart;
} grid_memo[GRID_MEMO];
static unsigned grid_next;

/* Everything grid_check reads of DDS k's forms, the vector's length
 * and the bounds, field by field, into key; how many. */
static int grid_key(const sap_async_spec *spec, int k, int64_t lo, int64_t hi, int64_t *key)
{
	int n = 0;
	key[n++] = lo;
	key[n++] = hi;
	key[n++] = spec->dds[k].dv ? spec->dds[k].dv->n : -1;
	for (int q = 0; q < spec->naffine + spec->nspan; q++) {
		const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
		const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
		if ((af ? af->dds : sp->dds) != k)
			continue;
		if (n + GRID_FIELDS > GRID_KEY)
			return -1;
		if (af) {
			int64_t f[GRID_FIELDS] = { 0, af->a, af->b, (int64_t)af->mode };
			memcpy(key + n, f, sizeof f);
		} else {
			int64_t f[GRID_FIELDS] = { 1, sp->a, sp->b, (int64_t)sp->mode, sp->w, sp->c, sp->m,
			                           sp->exact, sp->ja, sp->jb, sp->jc, sp->jpl, sp->jql,
			                           sp->jph, sp->jqh };
			memcpy(key + n, f, sizeof f);
		}
		n += GRID_FIELDS;
	}
	return n;
}

static bool grid_apart(const sap_async_spec *spec, int k, int64_t lo, int64_t hi)
{
	int64_t key[GRID_KEY];
	int n = grid_key(spec, k, lo, hi, key);
	if (n < 0)
		return false;
	for (int m = 0; m < GRID_MEMO; m++)
		if (grid_memo[m].n == n && !memcmp(grid_memo[m].key, key, (size_t)n * sizeof *key))
			return grid_memo[m].apart;
	bool apart = grid_check(spec, k, lo, hi);
	unsigned m = grid_next++ % GRID_MEMO;
	memcpy(grid_memo[m].key, key, (size_t)n * sizeof *key);
	grid_memo[m].n = n;
	grid_memo[m].apart = apart;
	return apart;
}

static bool grid_check(const sap_async_spec *spec, int k, int64_t lo, int64_t hi)
{
	const sap_dds *d = &spec->dds[k];
	if (!d->dv || hi - lo > GRID_MAX || lo >= hi)
		return false;
	/* The row length: one near a coefficient, R - 1, R or R + 1, under
	 * which every form is a row's or a column's run (any such R maps
	 * keys to cells one to one, so the cells meet where the keys do). */
	int64_t cand[3 * 2 * GRID_FORMS];
	int nc = 0, nf = 0;
	bool exact = false;
	for (int q = 0; q < spec->naffine + spec->nspan; q++) {
		const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
		const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
		if ((af ? af->dds : sp->dds) != k)
			continue;
		if (++nf > GRID_FORMS)
			return false;
		exact |= sp && sp->exact;
		int64_t x[2] = { af ? af->a : sp->exact ? sp->ja : sp->a,
		                 af ? 0 : sp->exact ? sp->jc : sp->m > 1 ? sp->c : 1 };
		for (int e = 0; e < 2; e++) {
			int64_t m = x[e] < 0 ? -x[e] : x[e];
			if (m > INT64_MAX / 2)
				return false;
			for (int t = -1; t <= 1 && m > 3; t++)
				cand[nc++] = m + t;
		}
	}
	/* Only where a bound moves with i: the others the strides keep
	 * apart, or not. */
	if (!exact)
		return false;
	/* The grid's origin: 0, or where a form's constant puts it, for a
	 * matrix after a header, K[O + i * n + j] (helper NEW: planned at a
	 * key per element, 350 MB, where K[i * n + j] ran in chunks). */
	int64_t org[GRID_FORMS + 1] = { 0 };
	int no = 1;
	for (int q = 0; q < spec->naffine + spec->nspan && no <= GRID_FORMS; q++) {
		const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
		const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
		if ((af ? af->dds : sp->dds) == k)
			org[no++] = af ? af->b : sp->exact ? sp->jb : sp->b;
	}
	grect g[GRID_FORMS];
	for (int c = 0; c < nc; c++) {
		int64_t R = cand[c];
		bool seen = false;
		for (int e = 0; e < c && !seen; e++)
			seen = cand[e] == R;
		/* b's remainder by R: a row's start, as 0 is. */
		int64_t os[GRID_FORMS + 1];
		int nos = 0;
		for (int u = 0; !seen && u < no; u++) {
			int64_t o = (int64_t)((__int128)org[u] - floor_div(org[u], R) * R);
			bool again = false;
			for (int e = 0; e < nos && !again; e++)
				again = os[e] == o;
			if (again)
				continue;
			os[nos++] = o;
			if (grid_at(d, spec, k, R, o, lo, hi, g))
				return true;
		}
	}
	return false;
}

/* Are the forms of DDS k apart as cells of rows R long from key o? */
static bool grid_at(const sap_dds *d, const sap_async_spec *spec, int k, int64_t R, int64_t o,
                    int64_t lo, int64_t hi, grect *g)
{
	int n = grid_forms(spec, k, R, o, lo, hi, g);
	if (n < 0)
		return false;
	/* Every cell in the vector: a bound's extremes are at the ends. */
	for (int f = 0; f < n; f++)
		for (int e = 0; e < 2 && g[f].i0 <= g[f].i1; e++) {
			__int128 i = e ? g[f].i1 : g[f].i0;
			__int128 r1 = gat(g[f].r1, i), r2 = gat(g[f].r2, i);
			__int128 c1 = gat(g[f].c1, i), c2 = gat(g[f].c2, i);
			if (r1 < r2 && c1 < c2 &&
			    (r1 * R + c1 + o < 0 || (r2 - 1) * R + (c2 - 1) + o >= d->dv->n))
				return false;
		}
	for (int f = 0; f < n; f++)
		for (int h = 0; h < n; h++)
			if ((g[f].w || g[h].w) && grid_meet(&g[f], &g[h]))
				return false;
	return true;
}

/* The iterations of [lo, hi) that take f's key, [*l, *h); false when
 * none does. */
static bool form_iters(const sap_affine *f, int64_t lo, int64_t hi, int64_t *l, int64_t *h)
{
	*l = f && f->guarded && f->glo > lo ? f->glo : lo;
	*h = f && f->guarded && f->ghi < hi ? f->ghi : hi;
	return *l < *h;
}

/* Does a key's form leave its type's range in iterations [lo, hi)?
 * It is then not the key the body computes, which wraps: b * F * G with
 * F = G = 65536 is 0 in int for every b, b * 2^62 every fourth b in
 * long. */
static bool form_wraps(int64_t a, int64_t b, int64_t reach, int64_t lo, int64_t hi, bool narrow)
{
	__int128 x = (__int128)a * lo + b, y = (__int128)a * (hi - 1) + b;
	__int128 min = x < y ? x : y, max = (x < y ? y : x) + (reach > 0 ? reach - 1 : 0);
	return narrow ? min < INT32_MIN || max > INT32_MAX : min < INT64_MIN || max > INT64_MAX;
}

/* Does any of spec's forms of keys wrap (form_wraps)?  Then it runs as
 * the serial loop. */
static bool keys_wrap(const sap_async_spec *spec, int64_t lo, int64_t hi)
{
	if (lo >= hi)
		return false;
	for (int q = 0; q < spec->naffine; q++) {
		const sap_affine *f = &spec->affine[q];
		int64_t l, h;
		if (form_iters(f, lo, hi, &l, &h) && form_wraps(f->a, f->b, 1, l, h, f->narrow))
			return true;
	}
	for (int q = 0; q < spec->nspan + spec->nrspan + spec->nchecks; q++) {
		const sap_span *sp = q < spec->nspan ? &spec->span[q] :
		                     q < spec->nspan + spec->nrspan ? &spec->rspan[q - spec->nspan] :
		                     &spec->checks[q - spec->nspan - spec->nrspan];
		if (sp->w > 0 && form_wraps(sp->a, sp->b, span_reach(sp), lo, hi, sp->narrow))
			return true;
	}
	return false;
}


/* Are iterations [lo, hi) of the accesses of DDS k apart by their
 * residues mod a lattice's row stride C (spans_apart's other way)?
 * Every key that moves moves by a, and lies at an offset whose residue
 * mod C falls in a window of width R (no wider than C); when a is at
 * least R and the iterations' windows, a R apart, fit in C, iteration
 * i's keys are its residues' alone: the columns of a row-major matrix,
 * x[y * W + i], which each hull of the whole matrix met. */
static bool lattice_apart(const sap_async_spec *spec, int k, int64_t a, int64_t lo, int64_t hi)
{
	int64_t C = 0;
	for (int q = 0; q < spec->nspan; q++) {
		const sap_span *sp = &spec->span[q];
		if (sp->dds == k && sp->a != 0 && sp->w > 0 && sp->m > 1) {
			if (C && sp->c != C)
				return false;
			C = sp->c;
		}
	}
	if (!C)
		return false;
	/* The window: residues of every moving key's offsets. */
	__int128 r0 = 0, r1 = 0;
	bool any = false;
	int nacc = spec->naffine + spec->nspan;
	for (int q = 0; q < nacc; q++) {
		const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
		const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
		if ((af ? af->dds : sp->dds) != k || (af ? af->a : sp->a) == 0 || (sp && sp->w <= 0))
			continue;
		int64_t b = af ? af->b : sp->b, w = af ? 1 : sp->w;
		if (w > C)
			return false;
		__int128 r = ((__int128)b % C + C) % C;
		if (!any || r < r0)
			r0 = r;
		if (!any || r + w > r1)
			r1 = r + w;
		any = true;
	}
	__int128 R = r1 - r0, s = a < 0 ? -(__int128)a : a;
	return any && R <= C && s >= R && s * (hi - lo - 1) + R <= C;
}

/* Do the iterations [lo, hi) of a loop whose dynamic accesses of the
 * DDSs it writes are all spans (spec->span) touch keys of those DDSs
 * apart from each other's?  For each written dvector: its spans and
 * affine keys that move with i all move by the same stride a, and the
 * keys of one iteration lie within |a| of each other, so that no two
 * iterations' meet; those that do not move (a = 0) are only read, and
 * outside every key the others reach; and every key lies in the vector
 * (an index error is the plan's path to report).  Then the loop runs as
 * contiguous chunks with no reconnaissance nor plan: rows i > k of
 * Gaussian elimination, which read row k, planned in 100 times the
 * body's time. */
/* Do no two of iterations [lo, hi) meet at DDS k's keys, pair by pair of
 * its forms that move by stride a (spans_apart's third way)?  Form q
 * gives iteration i the keys [a i + b_q, a i + b_q + w_q); forms q and p
 * of iterations i and i' meet when a (i - i') falls in
 * [b_p - b_q - w_q + 1, b_p - b_q + w_p - 1], which no multiple of a but
 * 0 within the iterations may do where either writes.  An edit distance
 * by anti-diagonals writes a cell and reads its left, upper and
 * upper-left neighbours, m + 2 keys apart at a stride of m: no window of
 * keys holds an iteration's, but no two cells of a diagonal meet. */
static bool pairs_apart(const sap_async_spec *spec, int k, int64_t a, int64_t lo, int64_t hi)
{
	int nacc = spec->naffine + spec->nspan;
	for (int q = 0; q < nacc; q++)
		for (int p = q; p < nacc; p++) {
			const sap_affine *fq = q < spec->naffine ? &spec->affine[q] : NULL;
			const sap_span *sq = fq ? NULL : &spec->span[q - spec->naffine];
			const sap_affine *fp = p < spec->naffine ? &spec->affine[p] : NULL;
			const sap_span *sp = fp ? NULL : &spec->span[p - spec->naffine];
			if ((fq ? fq->dds : sq->dds) != k || (fp ? fp->dds : sp->dds) != k ||
			    (fq ? fq->a : sq->a) == 0 || (fp ? fp->a : sp->a) == 0)
				continue;
			if ((sq && sq->m > 1) || (sp && sp->m > 1))
				return false;
			__int128 wq = fq ? 1 : sq->w, wp = fp ? 1 : sp->w;
			if (wq <= 0 || wp <= 0)
				continue;
			if (!(((fq ? fq->mode : sq->mode) | (fp ? fp->mode : sp->mode)) & SAP_WRITE))
				continue;
			/* Where each runs: a guarded key (if (i > 0) x[i - 1]) in
			 * its guard's iterations only. */
			int64_t lq, hq, lp, hp;
			if (!form_iters(fq, lo, hi, &lq, &hq) || !form_iters(fp, lo, hi, &lp, &hp))
				continue;
			__int128 d = (__int128)(fp ? fp->b : sp->b) - (fq ? fq->b : sq->b);
			__int128 x = d - wq + 1, y = d + wp - 1;
			/* The t = i - i' in [lq - hp + 1, hq - 1 - lp], t != 0,
			 * with a t in [x, y]: as s t' with s = |a|, t' = +-t. */
			__int128 s = a < 0 ? -(__int128)a : a;
			__int128 t0 = (__int128)lq - hp + 1, t1 = (__int128)hq - 1 - lp;
			if (a < 0) {
				__int128 t = t0;
				t0 = -t1;
				t1 = -t;
			}
			__int128 m0 = -floor_div(-x, s), m1 = floor_div(y, s);
			t0 = t0 > m0 ? t0 : m0;
			t1 = t1 < m1 ? t1 : m1;
			if (t0 <= t1 && !(t0 == 0 && t1 == 0))
				return false;
		}
	return true;
}

/* Hubs: the few iterations whose keys meet keys every iteration reads at
 * a place that does not move with i (Floyd-Warshall's row k, which
 * iteration k writes and all read): ranges [a[q], b[q]), ascending. */
enum { HUB_MAX = 64 };

typedef struct hub_set {
	int n;
	int64_t a[2 * HUB_MAX], b[2 * HUB_MAX];
	/* The keys read that do not move, of DDS fdds each: fm rows of fw
	 * keys from f0, fc apart (a lattice; else one row), which over ranks
	 * a hub's rank sends the others after it ran, as a rank fetched
	 * them (mark_spans): not the gaps between rows, which it may hold
	 * stale. */
	int nf;
	int fdds[2 * HUB_MAX];
	int64_t f0[2 * HUB_MAX], fw[2 * HUB_MAX], fc[2 * HUB_MAX], fm[2 * HUB_MAX];
	bool grid;              /* some DDS apart only as a grid (grid_apart) */
} hub_set;

static __int128 floor_div(__int128 x, __int128 y)
{
	__int128 q = x / y;
	return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q;
}

/* Add to h the iterations of [lo, hi) whose keys, within [a i + off_lo,
 * a i + off_hi), meet [b0, b1); false when there are too many ranges. */
static bool hub_add(hub_set *h, int dds, const sap_span *sp, int64_t a, __int128 off_lo,
                    __int128 off_hi, __int128 b0, __int128 b1, int64_t lo, int64_t hi)
{
	/* a i + off_lo < b1 and a i + off_hi > b0. */
	__int128 i0, i1;
	if (a > 0) {
		i0 = floor_div(b0 - off_hi, a) + 1;
		i1 = floor_div(b1 - off_lo - 1, a) + 1;
	} else {
		i0 = floor_div(off_lo - b1, -(__int128)a) + 1;
		i1 = floor_div(off_hi - b0 - 1, -(__int128)a) + 1;
	}
	i0 = i0 < lo ? lo : i0;
	i1 = i1 > hi ? hi : i1;
	if (i0 >= i1)
		return true;
	if (h->n == 2 * HUB_MAX)
		return false;
	h->a[h->n] = (int64_t)i0;
	h->b[h->n] = (int64_t)i1;
	h->n++;
	h->fdds[h->nf] = dds;
	h->f0[h->nf] = (int64_t)b0;
	h->fw[h->nf] = sp ? sp->w : 1;
	h->fc[h->nf] = sp && sp->m > 1 ? sp->c : 0;
	h->fm[h->nf] = sp && sp->m > 1 ? sp->m : 1;
	h->nf++;
	return true;
}

/* Sorts and merges h's ranges: few and short enough to run between
 * chunks? */
static bool hubs_few(hub_set *h, int64_t lo, int64_t hi)
{
	for (int q = 1; q < h->n; q++)
		for (int p = q; p > 0 && h->a[p] < h->a[p - 1]; p--) {
			int64_t ta = h->a[p], tb = h->b[p];
			h->a[p] = h->a[p - 1];
			h->b[p] = h->b[p - 1];
			h->a[p - 1] = ta;
			h->b[p - 1] = tb;
		}
	int m = 0;
	int64_t all = 0;
	for (int q = 0; q < h->n; q++) {
		if (m && h->a[q] <= h->b[m - 1]) {
			h->b[m - 1] = h->b[q] > h->b[m - 1] ? h->b[q] : h->b[m - 1];
			continue;
		}
		h->a[m] = h->a[q];
		h->b[m] = h->b[q];
		m++;
	}
	h->n = m;
	for (int q = 0; q < m; q++)
		all += h->b[q] - h->a[q];
	/* One or two in any invocation: a pivot row's of four rows (helper
	 * U17: colouring ran it after the rows that read it). */
	return m <= HUB_MAX && (all * 8 <= hi - lo || all <= 2);
}

static bool spans_apart(const sap_async_spec *spec, const sap_reduce *r, int64_t lo, int64_t hi,
                        bool pairs, hub_set *hubs)
{
	if (hubs) {
		hubs->n = hubs->nf = 0;
		hubs->grid = false;
	}
	/* A relaxed loop's reads are as of its rounds, the plan's.  Spans
	 * stand for every dynamic key of the DDSs the loop writes; with
	 * none (pairs alone), their keys must all be static (no slice). */
	if ((!spec->nspan && (!pairs || spec->slice || !spec->naffine)) || (r && r->nrel))
		return false;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!(d->mode & SAP_WRITE) || d->accumulate)
			continue;
		if (!d->dv)
			return false;
		/* A triangle mirrored: a grid's rows and columns. */
		if (pairs && grid_apart(spec, k, lo, hi)) {
			if (hubs)
				hubs->grid = true;
			continue;
		}
		int64_t stride = 0;
		__int128 off_lo = 0, off_hi = 0;
		bool moves = false;
		int nacc = spec->naffine + spec->nspan;
		/* The stride is the widest moving key's (a row's, beside its
		 * diagonal x[i * n + i], which moves by n + 1); a key that moves
		 * by another stands apart if it keeps within the window of its
		 * iteration's keys of that stride, at both ends of [lo, hi). */
		int64_t widest = 0;
		int64_t fl, fh;
		for (int q = 0; q < nacc; q++) {
			const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
			const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
			int64_t a = af ? af->a : sp->a;
			int64_t w = af ? 1 : sp->w > 0 ? span_reach(sp) : sp->w;
			if ((af ? af->dds : sp->dds) == k && a != 0 && w > 0 && (!moves || w > widest) &&
			    form_iters(af, lo, hi, &fl, &fh)) {
				stride = a;
				widest = w;
				moves = true;
			}
		}
		moves = false;
		int nother = 0;
		int others[8];
		/* First the keys that move, then those that stay. */
		for (int pass = 0; pass < 2; pass++) {
			__int128 h0 = 0, h1 = 0;
			for (int o = 0; pass == 1 && o < nother; o++) {
				int q = others[o];
				const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
				const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
				int64_t a = af ? af->a : sp->a, b = af ? af->b : sp->b;
				int64_t w = af ? 1 : span_reach(sp);
				form_iters(af, lo, hi, &fl, &fh);
				for (int e = 0; e < 2; e++) {
					__int128 i = e ? fh - 1 : fl, key = (__int128)a * i + b,
					         own = (__int128)stride * i;
					if (off_hi - off_lo > (stride > 0 ? stride : -(__int128)stride) ||
					    key < own + off_lo || key + w > own + off_hi)
						return false;
				}
			}
			if (pass == 1 && moves) {
				/* The hull of the moving keys, each over the
				 * iterations that take it. */
				bool any = false;
				for (int q = 0; q < nacc; q++) {
					const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
					const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
					int64_t w = af ? 1 : sp->w > 0 ? span_reach(sp) : sp->w;
					if ((af ? af->dds : sp->dds) != k || (af ? af->a : sp->a) != stride ||
					    w <= 0 || !form_iters(af, lo, hi, &fl, &fh))
						continue;
					__int128 b = af ? af->b : sp->b;
					__int128 first = (__int128)stride * fl + b, last = (__int128)stride * (fh - 1) + b;
					__int128 f0 = stride > 0 ? first : last, f1 = (stride > 0 ? last : first) + w;
					h0 = !any || f0 < h0 ? f0 : h0;
					h1 = !any || f1 > h1 ? f1 : h1;
					any = true;
				}
				if ((off_hi - off_lo > (stride > 0 ? stride : -(__int128)stride) &&
				     !lattice_apart(spec, k, stride, lo, hi) &&
				     !(pairs && pairs_apart(spec, k, stride, lo, hi))) || h0 < 0 ||
				    h1 > d->dv->n)
					return false;
			}
			for (int q = 0; q < nacc; q++) {
				const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
				const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
				int dds = af ? af->dds : sp->dds;
				int64_t a = af ? af->a : sp->a, b = af ? af->b : sp->b;
				int64_t w = af ? 1 : sp->w > 0 ? span_reach(sp) : sp->w;
				sap_mode mode = af ? af->mode : sp->mode;
				if (dds != k || w <= 0 || !form_iters(af, lo, hi, &fl, &fh))
					continue;
				if (pass == 0 && a != 0 && a != stride) {
					if (nother == 8)
						return false;
					others[nother++] = q;
				} else if (pass == 0 && a != 0) {
					if (!moves || b < off_lo)
						off_lo = b;
					if (!moves || (__int128)b + w > off_hi)
						off_hi = (__int128)b + w;
					stride = a;
					moves = true;
				} else if (pass == 1 && a == 0) {
					if (mode & SAP_WRITE)
						return false;
					if (moves && (__int128)b < h1 && (__int128)b + w > h0 &&
					    (!hubs || !hub_add(hubs, k, sp, stride, off_lo, off_hi, b,
					                       (__int128)b + w, lo, hi)))
						return false;
				}
			}
		}
	}
	return !hubs || hubs_few(hubs, lo, hi);
}

/* shape_of for the iterations [lo, hi): a loop to plan whose spans keep
 * them apart runs as independent ones. */
static shape shape_at(const sap_async_spec *spec, const sap_reduce *r, int64_t lo, int64_t hi,
                      const char **why)
{
	shape s = shape_of(spec, why);
	return s == NEEDS_PLAN && spans_apart(spec, r, lo, hi, true, NULL) ? INDEPENDENT : s;
}

static int64_t dds_size(const sap_dds *d)
{
	return d->dv ? d->dv->n : d->dm ? sap_dm_size(d->dm) : 0;
}

static uint64_t dds_version(const sap_dds *d)
{
	return d->dv ? d->dv->version : d->dm ? d->dm->version : 0;
}

static const void *dds_ptr(const sap_dds *d)
{
	return d->dv ? (const void *)d->dv : (const void *)d->dm;
}

/* ---- the cache ---- */

/* The keys of v, a list of a map's keys, in a row: each string with its
 * NUL, or the integers' bytes; at out if not NULL.  Their bytes. */
static size_t keys_row(const sap_dvec *v, char *out)
{
	if (v->keys_of->kk != SAP_K_STRING) {
		if (out)
			memcpy(out, v->data, (size_t)v->n * v->elsize);
		return (size_t)v->n * v->elsize;
	}
	size_t at = 0;
	for (int64_t i = 0; i < v->n; i++) {
		sap_str s = ((const sap_str *)v->data)[i];
		size_t len = strlen(s) + 1;
		if (out)
			memcpy(out + at, s, len);
		at += len;
	}
	return at;
}

/* Copies of vectors written between invocations stop at this size. */
#define CHURN_MAX ((size_t)256 << 20)

/* Whether DDS k of the spec, a vector whose bytes the cache keeps, holds
 * the same ones as when the cache was saved.  The driver lists a map's
 * keys again before every invocation (a new version each time), though
 * a loop that writes only the values of the keys it runs over leaves
 * them as they were; a Lasso's active flags, which its sweep writes
 * every time, change at the first sweeps only, and re-planning every
 * sweep made 1 x 2 nine times slower than one thread.  Only a vector
 * whose every element is current on this rank compares. */
static bool same_bytes(const struct sap_loop_state *st, int k, const sap_dds *d)
{
	const sap_dvec *v = d->dv;
	if (!v || k >= st->nkcopy || !st->kcopy[k] || v->holder || v->part_only)
		return false;
	if (!v->keys_of || v->keys_of->kk != SAP_K_STRING)
		return st->kbytes[k] == (size_t)v->n * v->elsize &&
		       memcmp(st->kcopy[k], v->data, st->kbytes[k]) == 0;
	const char *c = st->kcopy[k], *end = c + st->kbytes[k];
	for (int64_t i = 0; i < v->n; i++) {
		sap_str s = ((const sap_str *)v->data)[i];
		size_t len = strlen(s) + 1;
		if ((size_t)(end - c) < len || memcmp(c, s, len) != 0)
			return false;
		c += len;
	}
	return c == end;
}

/* Driver lists the slice reads past this many bytes are not kept (nor
 * are the 8 spare plans' copies of them): such a loop plans again every
 * invocation, as it did before lists were compared. */
#define DRV_MAX ((size_t)4 << 20)
_Static_assert(DRV_MAX <= SAP_HISTORY_DRV_MAX, "a checkpoint holds what the plan keeps");

/* The bytes of the driver variables spec's slice reads. */
static size_t drv_bytes(const sap_async_spec *spec)
{
	size_t n = 0;
	for (int k = 0; k < spec->ndrv; k++)
		n += spec->drv[k].size;
	return n;
}

static bool drv_same(const struct sap_loop_state *st, const sap_async_spec *spec)
{
	if (st->ndrv != drv_bytes(spec) || st->ndrv > DRV_MAX)
		return false;
	size_t at = 0;
	for (int k = 0; k < spec->ndrv; k++) {
		if (memcmp(st->drv + at, spec->drv[k].p, spec->drv[k].size) != 0)
			return false;
		at += spec->drv[k].size;
	}
	return true;
}

/* Field by field: the generated code's initializers leave the padding
 * as it was. */
static bool affine_same(const sap_affine *x, const sap_affine *y)
{
	return x->dds == y->dds && x->mode == y->mode && x->a == y->a && x->b == y->b &&
	       x->narrow == y->narrow && x->guarded == y->guarded &&
	       (!x->guarded || (x->glo == y->glo && x->ghi == y->ghi));
}

/* The plan stays valid while the loop bounds, the workers, the blocks,
 * the sizes of the DDSs, the affine forms, the DDSs the slice reads and
 * the values of the driver variables it reads stay the same
 * (same_inputs); a slice that draws random numbers sees new ones every
 * invocation, so its plan never is (cache_valid). */
static bool same_inputs(const struct sap_loop_state *st, const sap_async_spec *spec,
                        int64_t lo, int64_t hi, int T)
{
	if (!st->cached || st->lo != lo || st->hi != hi || st->T != T ||
	    st->blocks != sap_cfg.blocks || st->ndds != spec->ndds ||
	    st->naffine != spec->naffine)
		return false;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		/* An input held in parts travels with its iterations when the
		 * plan is made: a new one (loaded again, perhaps at the old
		 * one's address) needs a new plan to travel. */
		bool tracked = d->slice_reads || d->parted;
		if (st->resumed ? st->sizes[k] != dds_size(d) ||
		                  (tracked && dds_version(d) > st->restored)
		                : st->ptrs[k] != dds_ptr(d) || st->sizes[k] != dds_size(d) ||
		                  (tracked && st->versions[k] != dds_version(d) &&
		                   !same_bytes(st, k, d)))
			return false;
	}
	/* A map whose keys were checked: the check holds while its keys do,
	 * the same set even if the map was rebuilt since (made whole after a
	 * loop that ran on its parts). */
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].check_keys && !st->resumed &&
		    st->kvers[k] != sap_dm_keyset(spec->dds[k].dm))
			return false;
	for (int q = 0; q < spec->naffine; q++)
		if (!affine_same(&st->affine[q], &spec->affine[q]))
			return false;
	return drv_same(st, spec);
}

/* After a planned run on the cached plan: a DDS the loop writes only
 * where its slice does not read (slice_fixed: other fields, or a map's
 * keys, none of which came or went) is changed by this loop alone, which
 * leaves the plan valid; sap_async_kept, after the driver stamps what the
 * loop wrote, takes the new versions in.  The field-keyed Gauss-Seidel
 * re-planned every sweep, for 8 times the body's time on 1 x 2. */
static void cache_own_writes(struct sap_loop_state *st)
{
	st->own_kept = st->cached;
}

void sap_async_kept(sap_loop *L, const sap_async_spec *spec)
{
	struct sap_loop_state *st = L->kind == SAP_ASYNC ? L->state : NULL;
	if (!st || !st->own_kept)
		return;
	st->own_kept = false;
	if (!st->cached || st->ndds != spec->ndds)
		return;
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].slice_fixed)
			st->versions[k] = dds_version(&spec->dds[k]);
}

/* ok, a finding of same_inputs, as every rank finds it when ranks (then
 * collective): bytes compared may differ where a struct's padding does,
 * which would send the ranks on to different collectives.  Whether
 * bytes are kept is the same on every rank. */
static bool agreed(const struct sap_loop_state *st, const sap_async_spec *spec, bool ok,
                   bool ranks)
{
	bool bytes = false;
	for (int k = 0; ranks && k < st->nkcopy && k < spec->ndds; k++)
		bytes |= st->kcopy[k] && !spec->dds[k].dv->keys_of;
	if (bytes && sap_nranks() > 1) {
		int v = ok;
		sap_comm_allreduce(&v, 1, SAP_COMM_INT, SAP_COMM_MIN);
		ok = v;
	}
	return ok;
}

static bool cache_valid(const struct sap_loop_state *st, const sap_async_spec *spec,
                        int64_t lo, int64_t hi, int T, bool ranks)
{
	/* A resumed loop has the inputs but no plan yet.  A plan made over
	 * ranks has on each rank its own groups' order only: not one for a
	 * rank running all of the loop, nor the other way. */
	return agreed(st, spec, !spec->slice_rng && !st->resumed &&
	              (st->plan.mine != NULL) == (ranks && sap_nranks() > 1) &&
	              same_inputs(st, spec, lo, hi, T), ranks);
}

/* Why the cached plan does not do for these inputs, as far as its DDSs
 * and driver variables go: which of them changed (added to st->dds_new,
 * drv_new), and which the slice reads were written since (churn). */
static void note_new(struct sap_loop_state *st, const sap_async_spec *spec)
{
	if (!st->cached || st->resumed || st->ndds != spec->ndds)
		return;
	if (st->nchurn < spec->ndds) {
		st->churn = sap_xrealloc(st->churn, (size_t)spec->ndds * sizeof *st->churn);
		memset(st->churn + st->nchurn, 0, (size_t)(spec->ndds - st->nchurn) * sizeof *st->churn);
		st->nchurn = spec->ndds;
	}
	/* churn from versions alone, which every rank has alike: whether a
	 * rank keeps bytes must be (agreed). */
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!d->slice_reads || st->versions[k] == dds_version(d))
			continue;
		st->churn[k] |= st->ptrs[k] == dds_ptr(d);
		if (!same_bytes(st, k, d))
			st->dds_new |= (uint64_t)1 << (k < 63 ? k : 63);
	}
	if (st->ndrv != drv_bytes(spec))
		return;
	for (int k = 0, at = 0; k < spec->ndrv && k < 64; at += (int)spec->drv[k].size, k++)
		if (memcmp(st->drv + at, spec->drv[k].p, spec->drv[k].size) != 0)
			st->drv_new |= (uint64_t)1 << k;
}

static void cache_save(struct sap_loop_state *st, const sap_async_spec *spec, int64_t lo,
                       int64_t hi, int T)
{
	int nd = spec->ndds ? spec->ndds : 1;
	st->lo = lo;
	st->hi = hi;
	st->T = T;
	st->blocks = sap_cfg.blocks;
	st->ndds = spec->ndds;
	st->ptrs = sap_xrealloc(st->ptrs, (size_t)nd * sizeof *st->ptrs);
	st->sizes = sap_xrealloc(st->sizes, (size_t)nd * sizeof *st->sizes);
	st->versions = sap_xrealloc(st->versions, (size_t)nd * sizeof *st->versions);
	st->kvers = sap_xrealloc(st->kvers, (size_t)nd * sizeof *st->kvers);
	for (int k = 0; k < st->nkcopy; k++)
		free(st->kcopy[k]);
	st->kcopy = sap_xrealloc(st->kcopy, (size_t)nd * sizeof *st->kcopy);
	st->kbytes = sap_xrealloc(st->kbytes, (size_t)nd * sizeof *st->kbytes);
	st->nkcopy = spec->ndds;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		st->ptrs[k] = dds_ptr(d);
		st->sizes[k] = dds_size(d);
		st->versions[k] = dds_version(d);
		st->kvers[k] = d->dm ? sap_dm_keyset(d->dm) : 0;
		st->kcopy[k] = NULL;
		const sap_dvec *v = d->dv;
		if (v && v->keys_of && d->slice_reads) {
			st->kbytes[k] = keys_row(v, NULL);
			st->kcopy[k] = sap_xmalloc(st->kbytes[k] + 1);
			keys_row(v, st->kcopy[k]);
		} else if (v && d->slice_reads && k < st->nchurn && st->churn[k] && d->flat &&
		           !v->codec && !v->holder && !v->part_only &&
		           (size_t)v->n * v->elsize <= CHURN_MAX) {
			st->kbytes[k] = (size_t)v->n * v->elsize;
			st->kcopy[k] = sap_xmalloc(st->kbytes[k] + 1);
			memcpy(st->kcopy[k], v->data, st->kbytes[k]);
		}
	}
	st->naffine = spec->naffine;
	st->affine = sap_xrealloc(st->affine, (size_t)spec->naffine *
	                          sizeof *st->affine);
	if (spec->naffine)
		memcpy(st->affine, spec->affine, (size_t)spec->naffine * sizeof *spec->affine);
	st->ndrv = drv_bytes(spec);
	if (st->ndrv > DRV_MAX)
		st->ndrv = SIZE_MAX;
	st->drv = sap_xrealloc(st->drv, st->ndrv != SIZE_MAX && st->ndrv ? st->ndrv : 1);
	for (size_t k = 0, at = 0; st->ndrv != SIZE_MAX && k < (size_t)spec->ndrv;
	     at += spec->drv[k].size, k++)
		memcpy(st->drv + at, spec->drv[k].p, spec->drv[k].size);
	st->cached = true;
}

static void drop_plan(struct sap_loop_state *st)
{
	/* The copies follow the plan's order; their buffers stay. */
	for (int k = 0; k < st->nstage; k++)
		st->stage[k].src = NULL;
	for (int64_t r = 0; r < st->plan.nlocked; r++)
		sap_locks_free(&st->locked[r]);
	free(st->locked);
	st->locked = NULL;
	sap_plan_free(&st->plan);
	sap_audit_free(st);
	sap_layout_free(&st->layout);
	sap_dist_free(&st->dist);
	st->cached = false;
	st->keys_known = false;
}

static void check_plan(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                       int64_t lo, int64_t hi, int T)
{
	int64_t n = hi - lo;
	int64_t *all = sap_xmalloc((size_t)n * sizeof *all);
	for (int64_t k = 0; k < n; k++)
		all[k] = lo + k;
	sap_keylog log = { 0 };
	sap_recon_log(spec, &st->layout, env, all, n, &log, T);
	sap_conflict c;
	if (sap_plan_check(&st->plan, lo, log.v, log.n, &c))
		sap_audit_keep(st, &log);
	else if (c.dds < 0) {
		char times[32];
		snprintf(times, sizeof times, c.times == 0 ? "never" : c.times == 2 ? "twice" :
		         "%lld times", (long long)c.times);
		sap_fatal(&st->loop->site, "--check-plan: the plan of loop %d runs iteration %lld "
		          "%s, not once", st->loop->id, (long long)c.key, times);
	}
	else
		sap_fatal(&st->loop->site, "--check-plan: the plan of loop %d puts groups %lld and "
		          "%lld in round %lld, but both touch %s[%lld] and one of them writes it",
		          st->loop->id, (long long)c.g1, (long long)c.g2, (long long)c.round,
		          spec->dds[c.dds].name ? spec->dds[c.dds].name : "?", (long long)c.key);
	sap_keylog_free(&log);
	free(all);
}

/* ---- plan-order copies ---- */

/* The dvector of spec whose part this rank alone holds, or NULL. */
static const sap_dvec *held_part(const sap_async_spec *spec)
{
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].parted && spec->dds[k].dv && spec->dds[k].dv->part_only)
			return spec->dds[k].dv;
	return NULL;
}

/* ---- the spare plan ----
 *
 * A loop whose slice reads a driver variable that alternates (the colour
 * of a checkerboard sweep: for (c = 0; c < 2; c++) async for ...) planned
 * anew at every invocation: an Ising model spent as long in recon and
 * planning as in its body.  The plan before the current one is kept
 * aside, and taken back when the inputs are its again.  A plan is a
 * function of its inputs (where the slice draws no random numbers), so
 * one taken back is the one a new plan would be, and a run resumed from
 * a checkpoint, which has only the current plan's history, makes it
 * again alike. */

/* The fields of a loop's state that one plan and its inputs are. */
#define PLAN_FIELDS(X) X(cached) X(layout_inv) X(lo) X(hi) X(T) X(blocks) X(ndds) X(sizes) \
	X(versions) X(kcopy) X(kbytes) X(nkcopy) X(ptrs) X(affine) X(naffine) X(drv) X(ndrv) \
	X(kvers) X(layout) X(ids) X(order) X(bufcap) X(plan) X(key_max) X(keys_known) X(audit) \
	X(naudit) X(locked) X(inserts) X(missing) X(plan_no) X(dist) X(idist) X(id_builds) \
	X(id_which) X(id_whole) X(scatter_of) X(scattered)
#define SWAP_FIELD(f) { __typeof__(a->f) t_ = a->f; a->f = b->f; b->f = t_; }

static void swap_plans(struct sap_loop_state *a, struct sap_loop_state *b)
{
	PLAN_FIELDS(SWAP_FIELD)
}

/* The plan fields of a spare state freed and zeroed. */
static void spare_clear(struct sap_loop_state *sp)
{
	drop_plan(sp);
	sap_dist_free(&sp->idist);
	free(sp->id_which);
	free(sp->id_whole);
	for (int k = 0; k < sp->nkcopy; k++)
		free(sp->kcopy[k]);
	free(sp->kcopy);
	free(sp->kbytes);
	free(sp->ptrs);
	free(sp->sizes);
	free(sp->versions);
	free(sp->kvers);
	free(sp->affine);
	free(sp->drv);
	free(sp->ids);
	free(sp->order);
	free(sp->key_max);
	struct sap_loop_state zero = { 0 }, *a = sp, *b = &zero;
	PLAN_FIELDS(SWAP_FIELD)
}

/* Plans of more iterations are not kept twice, nor spares of more in
 * all. */
enum { SPARE_MAX = 1 << 24 };

/* Whether a spare plan is valid for these inputs: then it is current,
 * and the current one a spare. */
static bool spare_take(struct sap_loop_state *st, const sap_async_spec *spec, int64_t lo,
                       int64_t hi, int T, bool ranks)
{
	for (int s = 0; s < SAP_SPARES; s++) {
		struct sap_loop_state *sp = st->spare[s];
		if (!sp || !sp->cached)
			continue;
		swap_plans(st, sp);
		if (!cache_valid(st, spec, lo, hi, T, ranks)) {
			swap_plans(st, sp);
			continue;
		}
		/* The plan-order copies follow the other plan's order. */
		for (int k = 0; k < st->nstage; k++)
			st->stage[k].src = NULL;
		st->spare_hits++;
		st->spare_stamp[s] = ++st->spare_clock;
		return true;
	}
	return false;
}

/* Does plan state st keep a copy of a vector its slice reads? */
static bool has_copies(const struct sap_loop_state *st)
{
	for (int k = 0; k < st->nkcopy; k++)
		if (st->kcopy[k])
			return true;
	return false;
}

/* The current plan set aside before one for other inputs is made: in a
 * free slot, or that of the spare current longest ago, which goes, as
 * do others while the spares' iterations would pass SPARE_MAX.  Bitonic
 * steps and a cycle over three blocks planned every invocation with one
 * spare (helper PAR). */
static void spare_keep(struct sap_loop_state *st, const sap_async_spec *spec, int64_t lo,
                       int64_t hi)
{
	if (!st->cached || st->resumed || st->inserts || spec->slice_rng || hi - lo > SPARE_MAX ||
	    st->hi - st->lo > SPARE_MAX)
		return;
	for (;;) {
		int64_t all = st->hi - st->lo;
		int old = -1;
		for (int s = 0; s < SAP_SPARES; s++) {
			struct sap_loop_state *sp = st->spare[s];
			if (!sp || !sp->cached)
				continue;
			all += sp->hi - sp->lo;
			if (old < 0 || st->spare_stamp[s] < st->spare_stamp[old])
				old = s;
		}
		if (all <= SPARE_MAX || old < 0)
			break;
		spare_clear(st->spare[old]);
	}
	/* At most one spare keeps copies of the vectors its slice reads
	 * (kcopy, up to 256 MB each), as before there were eight: a Lasso's
	 * flags, new every sweep, would keep eight copies, and compare
	 * each at every miss. */
	int slot = -1;
	if (has_copies(st))
		for (int s = 0; s < SAP_SPARES; s++)
			if (st->spare[s] && st->spare[s]->cached && has_copies(st->spare[s])) {
				spare_clear(st->spare[s]);
				slot = slot < 0 ? s : slot;
			}
	for (int s = 0; s < SAP_SPARES && slot < 0; s++)
		if (!st->spare[s] || !st->spare[s]->cached)
			slot = s;
	if (slot < 0) {
		slot = 0;
		for (int s = 1; s < SAP_SPARES; s++)
			if (st->spare_stamp[s] < st->spare_stamp[slot])
				slot = s;
	}
	if (!st->spare[slot])
		st->spare[slot] = sap_xcalloc(1, sizeof *st->spare[slot]);
	spare_clear(st->spare[slot]);
	for (int k = 0; k < st->nstage; k++)
		st->stage[k].src = NULL;
	swap_plans(st, st->spare[slot]);
	st->spare_stamp[slot] = ++st->spare_clock;
}

/* A plan for T workers, made on `threads` threads (of every rank, when
 * ranks: then collective, and each rank has its own groups' lists). */
static void make_plan(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                      int64_t lo, int64_t hi, int T, int threads, bool locks, bool ranks)
{
	if (cache_valid(st, spec, lo, hi, T, ranks))
		return;
	note_new(st, spec);
	/* Only the random numbers changed: the keys are as many and as
	 * spread as before, so the blocks' cuts and the plan's search
	 * (ly->memo) stay. */
	bool again = agreed(st, spec, same_inputs(st, spec, lo, hi, T), ranks);
	/* Over ranks, not where inputs held in parts travel with the
	 * iterations into plan-order copies as the plan is made: the other
	 * plan's copies are gone. */
	bool shipped = false;
	for (int k = 0; ranks && k < spec->ndds; k++)
		shipped |= spec->dds[k].dv && spec->dds[k].dv->part_only;
	if (!shipped && !spec->slice_rng) {
		if (spare_take(st, spec, lo, hi, T, ranks))
			return;
		if (!again)
			spare_keep(st, spec, lo, hi);
	}
	sap_layout kept = st->layout;
	if (again)
		st->layout = (sap_layout){ 0 };
	drop_plan(st);
	int64_t n = hi - lo;
	/* Slicing and grouping interleave; the slicing is the recon part,
	 * the rest, the buffers' first touch included, planning. */
	double t0 = sap_now(), slicing;
	if (again && st->resumed) {
		/* Cut as the uninterrupted run cut it, from the keys of the
		 * invocation it did so in (their random numbers are its). */
		sap_loop *L = (sap_loop *)st->loop;
		uint32_t now = L->invocations;
		L->invocations = st->layout_inv;
		sap_layout_make(&st->layout, spec, T, sap_cfg.blocks);
		sap_layout_weigh(&st->layout, spec, env, lo, hi, threads, ranks);
		L->invocations = now;
		st->layout.memo = st->resume_memo ? st->resume_memo :
		                  sap_xcalloc(1, sizeof *st->layout.memo);
		st->resume_memo = NULL;
	} else if (again) {
		st->layout = kept;
	} else {
		sap_layout_make(&st->layout, spec, T, sap_cfg.blocks);
		sap_layout_weigh(&st->layout, spec, env, lo, hi, threads, ranks);
		st->layout.memo = sap_xcalloc(1, sizeof *st->layout.memo);
		st->layout_inv = st->loop->invocations;
	}
	st->resumed = false;
	free(st->resume_memo);
	st->resume_memo = NULL;
	*st->layout.missing = 0;
	/* A loop that fills a map misses keys at once: no plan then. */
	if (!ranks && (st->missing = sap_recon_missing(spec, &st->layout, env, lo, hi))) {
		st->inserts = true;
		st->recon_s += sap_now() - t0;
		return;
	}
	if (st->bufcap < n) {
		free(st->ids);
		free(st->order);
		st->ids = sap_xmalloc((size_t)n * sizeof *st->ids);
		st->order = sap_xmalloc((size_t)n * sizeof *st->order);
		st->bufcap = n;
	}

	sap_plan *p = &st->plan;
	st->key_max = sap_xrealloc(st->key_max, (size_t)spec->ndds *
	                           sizeof *st->key_max);
	if (ranks) {
		/* Inputs held in parts travel with their iterations. */
		sap_stage_slots(st, spec);
		struct sap_ship *ship = sap_xcalloc((size_t)spec->ndds, sizeof *ship);
		int nship = 0;
		for (int k = 0; k < spec->ndds; k++)
			if (spec->dds[k].dv && spec->dds[k].dv->part_only)
				ship[nship++] = (struct sap_ship){ spec->dds[k].dv, &st->stage[k], 0, 0, 0 };
		bool premark = !st->premark_s || (st->reslice_s && st->premark_s <= st->reslice_s);
		sap_plan_recon_ranks(p, spec, &st->layout, env, lo, hi, T, threads, st->ids,
		                     st->order, &slicing, ship, nship, st->key_max, &st->traffic,
		                     premark);
		for (int k = 0; k < nship; k++) {
			st->traffic.sent += ship[k].sent;
			st->traffic.received += ship[k].received;
			st->fetch_s += ship[k].seconds;
		}
		free(ship);
		/* What the order dump and the checker read. */
		if (sap_cfg.dump_order || sap_cfg.check_plan)
			sap_plan_share(p);
	} else {
		sap_plan_recon(p, spec, &st->layout, env, lo, hi, T, threads, locks, st->ids,
		               st->order, &slicing, st->key_max);
	}
	st->locked = sap_xcalloc((size_t)p->nlocked, sizeof *st->locked);
	for (int64_t r = 0; r < p->nlocked; r++) {
		int64_t g = p->rg[p->ro[r * T]];
		sap_locks_prepare(&st->locked[r], spec, &st->layout, env, p->order + p->goff[g],
		                  p->goff[g + 1] - p->goff[g], threads);
	}
	st->keys_known = spec->slice != NULL;
	st->missing = *st->layout.missing;
	st->inserts = st->missing != 0;
	/* Static keys come from the affine subscripts, not a slice: that
	 * pass is the plan's, as --explain says. */
	if (spec->slice)
		st->recon_runs++;
	st->recon_s += slicing;
	st->plan_builds++;
	st->plan_no = st->plan_builds;
	st->plan_s += sap_now() - t0 - slicing;

	if (sap_cfg.check_plan && !st->inserts)
		check_plan(st, spec, env, lo, hi, threads);
	cache_save(st, spec, lo, hi, T);
	if (!st->inserts)
		sap_hot_warn(st, spec, env, lo, hi, threads, ranks);
}

/* Every vector of spec held in parts, whole on every rank: collective. */
static void unpart_all(const sap_async_spec *spec)
{
	for (int k = 0; spec->dds && k < spec->ndds; k++)
		if (spec->dds[k].dv)
			sap_dv_unpart(spec->dds[k].dv);
}

/* Can a plan over ranks run on the parts of spec's vectors: is each read
 * only at the loop index, over [0, its length), which makes the shares
 * the ranks slice its parts? */
static bool plan_on_parts(const sap_async_spec *spec, int64_t lo, int64_t hi)
{
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (d->dv && d->dv->part_only && (!d->by_index || lo != 0 || hi != d->dv->n))
			return false;
	}
	return !sap_cfg.check_plan;
}

/* ---- worker-private reductions ---- */

static void reds_open(sap_run *x)
{
	if (!x->r)
		return;
	x->reds = sap_xmalloc((size_t)x->V * x->r->size);
	for (int w = 0; w < x->V; w++) {
		x->r->init(sap_run_red(x, w));
		if (x->spec)
			sap_acc_shadows(x->r, x->spec, sap_run_red(x, w), x->n);
	}
	sap_rel_open(x);
}

/* In worker order, so the result depends on the plan and T only. */
static void reds_close(sap_run *x, void *red)
{
	if (!x->r)
		return;
	sap_rel_close(x, false, NULL);
	for (int w = 0; w < x->V; w++)
		x->r->combine(red, sap_run_red(x, w));
	free(x->reds);
	x->reds = NULL;
}

/* On several ranks, every rank's workers in order (sap_dist_reduce). */
static void reds_close_ranks(sap_run *x, const sap_async_spec *spec, void *red,
                             sap_dist_stats *stats)
{
	if (!x->r || sap_nranks() == 1) {
		reds_close(x, red);
		return;
	}
	sap_rel_close(x, true, stats);
	sap_dist_reduce(x->r, spec, x->reds, x->V, red, stats);
	free(x->reds);
	x->reds = NULL;
}

/* ---- one invocation ---- */

static void stamp(const sap_async_spec *spec)
{
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!(d->mode & SAP_WRITE))
			continue;
		if (d->dv)
			d->dv->version = sap_new_version();
		if (d->dm)
			d->dm->version = sap_new_version();
	}
}

/* How an invocation ran, for --stats. */
static void ran(struct sap_loop_state *st, sap_verdict v, int workers, int64_t groups,
                int64_t rounds, double balance)
{
	st->verdict = v;
	st->reason = NULL;
	st->key_level = false;
	st->strips = false;
	st->colour = false;
	st->workers = workers;
	st->groups = groups;
	st->rounds = rounds;
	st->balance = balance;
}

static bool relaxed_run(const sap_run *x, int V)
{
	return x->r && x->r->nrel && V > 1;
}

/* A relaxed loop's plan, round by round and worker by worker (every
 * group's list in order: over ranks, after sap_plan_share). */
static void dump_plan_rounds(const sap_loop *L, const sap_plan *p)
{
	int T = p->nworkers;
	int64_t *idx = sap_xmalloc((size_t)p->n * sizeof *idx), at = 0;
	int64_t *cnt = sap_xcalloc((size_t)(p->nrounds * T), sizeof *cnt);
	for (int64_t r = 0; r < p->nrounds; r++)
		for (int w = 0; w < T; w++)
			for (int64_t k = p->ro[r * T + w]; k < p->ro[r * T + w + 1]; k++) {
				int64_t g = p->rg[k];
				for (int64_t q = p->goff[g]; q < p->goff[g + 1]; q++)
					idx[at++] = p->order[q];
				cnt[r * T + w] += p->goff[g + 1] - p->goff[g];
			}
	sap_order_dump_rounds(L, idx, cnt, T, p->nrounds);
	free(idx);
	free(cnt);
}

/* A relaxed loop run in chunks: one round, worker w's iterations
 * [cut[w], cut[w + 1]). */
static void dump_chunk_rounds(const sap_loop *L, const int64_t *cut, int V)
{
	int64_t n = cut[V] - cut[0];
	int64_t *idx = sap_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
	int64_t *cnt = sap_xmalloc((size_t)V * sizeof *cnt), at = 0;
	for (int w = 0; w < V; w++) {
		cnt[w] = cut[w + 1] > cut[w] ? cut[w + 1] - cut[w] : 0;
		for (int64_t i = cut[w]; i < cut[w + 1]; i++)
			idx[at++] = i;
	}
	sap_order_dump_rounds(L, idx, cnt, V, 1);
	free(idx);
	free(cnt);
}

/* The rounds of a relaxed loop's run, as its workers ran them, one worker
 * after another on this thread, each with its view and partial result,
 * the views folded after every round: what the run computed. */
static void replay_rounds(sap_run *x, const int64_t *idx, const int64_t *cnt, int V, int64_t R,
                          void *red)
{
	sap_plan p = { 0 };
	int64_t G = R * V;
	p.n = 0;
	p.order = (int64_t *)idx;
	p.ngroups = G;
	p.goff = sap_xmalloc((size_t)(G + 1) * sizeof *p.goff);
	p.ro = sap_xmalloc((size_t)(G + 1) * sizeof *p.ro);
	p.rg = sap_xmalloc((size_t)G * sizeof *p.rg);
	p.rlocked = sap_xcalloc((size_t)R, sizeof *p.rlocked);
	p.goff[0] = 0;
	for (int64_t k = 0; k < G; k++) {
		p.goff[k + 1] = p.goff[k] + cnt[k];
		p.ro[k] = k;
		p.rg[k] = k;
	}
	p.ro[G] = G;
	p.n = p.goff[G];
	p.nworkers = V;
	p.nrounds = R;
	sap_run y = *x;
	y.V = V;
	y.T = 1;
	reds_open(&y);
	sap_exec_plan(&y, &p, NULL, NULL);
	reds_close(&y, red);
	free(p.goff);
	free(p.ro);
	free(p.rg);
	free(p.rlocked);
}

/* On the calling thread with the caller's accumulator: exactly the
 * sequential loop. */
static void run_serial(struct sap_loop_state *st, sap_run *x, int64_t lo, int64_t hi,
                       void *red, sap_verdict v, const char *reason)
{
	ran(st, v, 1, 1, 1, 1.0);
	st->reason = reason;
	if (sap_cfg.dump_order)
		sap_order_dump(x->L, NULL, lo, hi - lo);
	double t0 = sap_now();
	sap_exec_range(x, lo, hi, red);
	st->compute_s += sap_now() - t0;
}

/* Pieces of [lo, hi) whose costs spec->cost weighs, at their middles:
 * the cuts of even work err by less than a piece, and a loop of many
 * cheap iterations pays a few thousand calls, not one an iteration. */
enum { COST_PIECES = 4096 };

/* x->wcut for W workers of [lo, hi), when spec says what its iterations
 * cost: worker w's chunk is the run of iterations whose work (cost + 1
 * an iteration) comes to a W-th of the whole, from the pieces' sums and
 * even within a piece.  From the bounds and driver values alone, so
 * alike on every rank and layout of W workers. */
static void chunk_weights(sap_run *x, const sap_async_spec *spec, int64_t lo, int64_t hi, int W)
{
	x->wcut = NULL;
	if (!spec || !spec->cost || !spec->cost_varies || W < 2 || hi - lo < W)
		return;
	int64_t n = hi - lo, M = n < COST_PIECES ? n : COST_PIECES;
	double *sum = sap_xmalloc((size_t)(M + 1) * sizeof *sum);
	sum[0] = 0;
	for (int64_t q = 0; q < M; q++) {
		int64_t a = sap_chunk(lo, hi, (int)M, (int)q), b = sap_chunk(lo, hi, (int)M, (int)q + 1);
		double c = spec->cost(a + (b - a) / 2);
		c = c > 0 && c < 1e300 ? c : 0;
		sum[q + 1] = sum[q] + (c + 1.0) * (double)(b - a);
	}
	int64_t *cut = sap_xmalloc(((size_t)W + 1) * sizeof *cut);
	cut[0] = lo;
	cut[W] = hi;
	int64_t q = 0;
	for (int w = 1; w < W; w++) {
		double goal = sum[M] * w / W;
		while (q < M - 1 && sum[q + 1] < goal)
			q++;
		int64_t a = sap_chunk(lo, hi, (int)M, (int)q), b = sap_chunk(lo, hi, (int)M, (int)q + 1);
		double in = sum[q + 1] > sum[q] ? (goal - sum[q]) / (sum[q + 1] - sum[q]) : 0;
		in = in < 0 ? 0 : in > 1 ? 1 : in;
		int64_t c = a + (int64_t)(in * (double)(b - a) + 0.5);
		cut[w] = c < cut[w - 1] ? cut[w - 1] : c > hi ? hi : c;
	}
	free(sum);
	x->wcut = cut;
	x->wlo = lo;
	x->whi = hi;
	x->wW = W;
	/* Every rank must cut alike, or iterations would run twice or not
	 * at all: a bound from a value that differs between ranks (a C
	 * function keeping state) is an error, as in a plan's keys. */
	if (sap_nranks() > 1) {
		uint64_t h = 1469598103934665603ULL;
		for (int w = 0; w <= W; w++)
			h = (h ^ (uint64_t)cut[w]) * 1099511628211ULL;
		int64_t k[2] = { (int64_t)(h >> 1), -(int64_t)(h >> 1) };
		sap_comm_allreduce(k, 2, SAP_COMM_I64, SAP_COMM_MIN);
		if (k[0] != -k[1])
			sap_fatal(&x->L->site, "this async for's inner loops run a number of times that "
			          "differs between ranks: a bound depends on a value that is not the same "
			          "on every rank, such as a C function that keeps state (sap(7), Extern "
			          "functions)");
	}
}

static void chunk_weights_free(sap_run *x)
{
	free(x->wcut);
	x->wcut = NULL;
}

/* The busiest of W chunks of [lo, hi) over the mean: in iterations, or
 * in work where cut by it. */
static double chunks_balance(const sap_run *x, const sap_async_spec *spec, int64_t lo,
                             int64_t hi, int W)
{
	double mx = 0, all = 0;
	for (int w = 0; w < W; w++) {
		int64_t a = sap_run_cut(x, lo, hi, W, w), b = sap_run_cut(x, lo, hi, W, w + 1);
		double c = (double)(b - a);
		if (x->wcut) {
			/* At COST_PIECES points of the chunk at most. */
			int64_t m = b - a < COST_PIECES ? b - a : COST_PIECES;
			double s = 0;
			for (int64_t q = 0; q < m; q++) {
				int64_t u = sap_chunk(a, b, (int)m, (int)q), v = sap_chunk(a, b, (int)m, (int)q + 1);
				double k = spec->cost(u + (v - u) / 2);
				s += ((k > 0 && k < 1e300 ? k : 0) + 1.0) * (double)(v - u);
			}
			c = s;
		}
		mx = c > mx ? c : mx;
		all += c;
	}
	return all > 0 ? mx * W / all : 1.0;
}

static void run_chunks(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                       int64_t lo, int64_t hi, void *red)
{
	int T = x->V;
	int64_t n = hi - lo;
	chunk_weights(x, spec, lo, hi, T);
	ran(st, SAP_V_CHUNKS, T, T, 1, chunks_balance(x, spec, lo, hi, T));
	/* Chunks in worker order are index order, but for a relaxed loop
	 * which worker ran which matters. */
	if (sap_cfg.dump_order && relaxed_run(x, T)) {
		int64_t *cut = sap_xmalloc((size_t)(T + 1) * sizeof *cut);
		for (int w = 0; w <= T; w++)
			cut[w] = sap_run_cut(x, lo, hi, T, w);
		dump_chunk_rounds(x->L, cut, T);
		free(cut);
	} else if (sap_cfg.dump_order) {
		sap_order_dump(x->L, NULL, lo, n);
	}
	double t0 = sap_now();
	reds_open(x);
	sap_exec_chunks(x, lo, hi);
	reds_close(x, red);
	st->compute_s += sap_now() - t0;
	chunk_weights_free(x);
}

/* A loop whose iterations' keys are apart but for a few hubs' (h,
 * spans_apart): the chunks of the iterations before the first hub, the
 * hub's in index order, the chunks of those up to the next, and so on.
 * The iterations between hubs meet no other, so this is index order's
 * result; each worker's partial results take the iterations of its chunk
 * in index order, as run_chunks gives them.  Floyd-Warshall's rows for
 * one k, all reading row k, which iteration k writes, planned anew for
 * each k: 8 s of plans against 0.15 s of body on 1 x 2 (n = 400). */
static void run_hubs(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                     int64_t lo, int64_t hi, void *red, const hub_set *h)
{
	int T = x->V;
	chunk_weights(x, spec, lo, hi, T);
	ran(st, SAP_V_CHUNKS, T, T, 2 * h->n + 1, chunks_balance(x, spec, lo, hi, T));
	st->reason = h->n ? "between the few iterations that write what all read" : NULL;
	if (sap_cfg.dump_order)
		sap_order_dump(x->L, NULL, lo, hi - lo);
	double t0 = sap_now();
	reds_open(x);
	int64_t at = lo;
	for (int q = 0; q <= h->n; q++) {
		int64_t e = q < h->n ? h->a[q] : hi;
		if (at < e)
			sap_exec_chunks_of(x, at, e, lo, hi, T, 0);
		if (q < h->n)
			sap_exec_owned(x, h->a[q], h->b[q], lo, hi, T, 0);
		at = q < h->n ? h->b[q] : hi;
	}
	reds_close(x, red);
	st->compute_s += sap_now() - t0;
	chunk_weights_free(x);
}

/* The plan order of every round's groups, in worker order: a serial
 * order equivalent to a plan without locked rounds. */
static void dump_plan_order(const sap_loop *L, const sap_plan *p, int64_t lo)
{
	int T = p->nworkers;
	int64_t *order = sap_xmalloc((size_t)p->n * sizeof *order), at = 0;
	for (int64_t k = 0; k < p->ro[p->nrounds * T]; k++)
		for (int64_t q = p->goff[p->rg[k]]; q < p->goff[p->rg[k] + 1]; q++)
			order[at++] = p->order[q];
	sap_order_dump(L, order, lo, p->n);
	free(order);
}

/* A plan's order as the dump has it: a relaxed loop's by rounds and
 * workers, any other's as one serial order. */
static void dump_plan(const sap_run *x, const sap_plan *p, int64_t lo, int V)
{
	if (relaxed_run(x, V))
		dump_plan_rounds(x->L, p);
	else
		dump_plan_order(x->L, p, lo);
}

/* Why a loop whose plan found a key missing ran serially: writing it
 * inserts it, which moves a map's values under the other workers. */
static const char *inserts_why(struct sap_loop_state *st, const sap_async_spec *spec)
{
	int d = sap_missing_dds(spec, st->missing);
	const char *name = d >= 0 && spec->dds[d].name ? spec->dds[d].name : "a map";
	snprintf(st->insert_why, sizeof st->insert_why, "the body inserts keys into %s: a key it "
	         "writes is missing", name);
	return st->insert_why;
}

/* Iterations a plan's fixed costs (sampling keys, cutting blocks,
 * trying maps of them) outweigh: run in index order on one worker
 * instead, when their bounds are not the last invocation's, so that no
 * plan made now would be reused.  An SGD over blocks of 100 examples
 * (async for over [b0, b0 + 100), then a pass over the weights) planned
 * 4000 times on 1 x 2 for 5.4 s against 0.1 s of body; a loop invoked
 * again over the same iterations still plans, from its second run.  The
 * choice depends on the bounds alone: the same on every run.  So do
 * iterations fewer than one in KEYS_PER of the elements of the vectors
 * the loop writes (not accumulates): a plan keeps a bit of each such
 * element a round and, over ranks, the rank that last wrote it, so its
 * cost grows with the vectors rather than with the loop.  An edit
 * distance by anti-diagonals of up to 1,300 cells of a 2 M-cell table
 * planned 1,777 times, 1.9 ms a plan on 2 ranks: 12 s, against 0.5 s in
 * index order; the choice depends on the bounds and the vectors' sizes,
 * alike on every layout. */
enum { PLAN_MIN = 512, KEYS_PER = 16 };

/* Why a plan would not pay (what --stats says), or NULL. */
static const char *plan_unpaid(const struct sap_loop_state *st, const sap_async_spec *spec,
                               int64_t lo, int64_t hi)
{
	static const char few[] = "too few iterations to plan";
	if ((st->last_lo == lo && st->last_hi == hi) || sap_cfg.check_plan || sap_cfg.locks ||
	    sap_cfg.plan_small)
		return NULL;
	/* A body that nests loops two deep (a DTW of two series for each
	 * pair an iteration fills) pays for its plan in a few iterations:
	 * 300 rows of an all-pairs matrix ran on one worker of any number.
	 * Known from the source, so alike on every run and layout. */
	if (spec->heavy)
		return hi - lo < 2 ? few : NULL;
	if (hi - lo < PLAN_MIN)
		return few;
	int64_t keys = 0;
	for (int k = 0; k < spec->ndds; k++)
		if ((spec->dds[k].mode & SAP_WRITE) && spec->dds[k].dv && !spec->dds[k].accumulate)
			keys += spec->dds[k].dv->n;
	/* 800,000 rows one-hot encoded said "too few iterations" alone. */
	return (hi - lo) < keys / KEYS_PER ? "too few iterations to plan for the elements it writes "
	                                     "(a sixteenth of them), over new bounds" : NULL;
}

/* plan_unpaid over ranks: in index order, as on one rank of P x T
 * threads, on every rank, with every vector whole.  Planned over the
 * ranks instead, such a loop ran in the plan's order, another result
 * than 1 x T's (tests/run/small-loop-ranks.sap), and 4 iterations of an
 * in-place partition of a tree's node ranges took 2.5 s a plan. */
static void run_serial_ranks(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                             int64_t lo, int64_t hi, void *red, const char *reason)
{
	unpart_all(spec);
	sap_whole_spec(spec, NULL, &st->traffic);
	run_serial(st, x, lo, hi, red, SAP_V_INDEX, reason);
	st->whole_why = "as one worker runs them";
}

/* A plan that keeps about one worker busy at a time (sap_plan_serial)
 * runs in index order on one worker instead: its order would cost as
 * much as the serial loop and give another result, and over ranks each
 * round would wait for an exchange.  A sparse SGD whose examples each
 * write 15 of 100k weights, some frequent, had such a plan (balance 1.7
 * on 2 workers): over 10 epochs its body took 0.42 s on 1 x 2 and 4.4 s
 * on 2 x 1, most of it waiting after each of 134 rounds, against 0.46 s
 * in index order.  The choice follows from the plan, which depends on
 * the workers only, so every layout of as many workers makes it alike;
 * the result is the serial loop's. */
static const char *const SERIAL_PLAN = "its plan keeps one worker busy at a time";

static void run_planned(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                        int64_t lo, int64_t hi, void *red)
{
	make_plan(st, spec, x->env, lo, hi, x->V, x->T, sap_cfg.locks, false);
	if (st->inserts) {
		sap_insert_warn(x->L, spec, st->missing, x->V, hi - lo);
		run_serial(st, x, lo, hi, red, SAP_V_SERIAL, inserts_why(st, spec));
		return;
	}
	const sap_plan *p = &st->plan;
	if (sap_plan_serial(p)) {
		run_serial(st, x, lo, hi, red, SAP_V_INDEX, SERIAL_PLAN);
		return;
	}
	ran(st, p->nlocked ? SAP_V_LOCKED : SAP_V_PLANNED, x->V, p->ngroups, p->nrounds,
	    p->balance);
	st->key_level = p->keys;
	st->strips = p->strips;
	st->colour = p->colour;
	st->coloured += p->colour;
	st->ever_locked |= p->nlocked > 0;

	sap_stage_inputs(st, spec, x, 0, x->V);
	x->L->key_max = st->keys_known ? st->key_max : NULL;
	/* Locked rounds' order is known only once they ran: the order the
	 * iterations took their locks in. */
	int64_t *order = NULL;
	if (sap_cfg.dump_order && p->nlocked)
		order = sap_xmalloc((size_t)p->n * sizeof *order);
	else if (sap_cfg.dump_order)
		dump_plan(x, p, lo, x->V);
	double t0 = sap_now();
	reds_open(x);
	st->audit_live = true;
	sap_exec_plan(x, p, st->locked, order);
	st->audit_live = false;
	reds_close(x, red);
	cache_own_writes(st);
	st->compute_s += sap_now() - t0;
	x->L->stage = NULL;
	x->L->key_max = NULL;
	if (order)
		sap_order_dump(x->L, order, lo, p->n);
	free(order);
}

static void run_replay(struct sap_loop_state *st, sap_run *x, int64_t lo, int64_t hi, void *red)
{
	int V;
	int64_t R, *cnt;
	int64_t *idx = sap_order_next(x->L, lo, hi, &V, &R, &cnt);
	int64_t n = hi > lo ? hi - lo : 0;
	ran(st, SAP_V_REPLAY, 1, 1, 1, 1.0);
	if (sap_cfg.dump_order && cnt)
		sap_order_dump_rounds(x->L, idx, cnt, V, R);
	else if (sap_cfg.dump_order)
		sap_order_dump(x->L, idx, lo, n);
	double t0 = sap_now();
	if (cnt)
		replay_rounds(x, idx, cnt, V, R, red);
	else
		sap_exec_list(x, idx, n, red);
	st->compute_s += sap_now() - t0;
	free(idx);
	free(cnt);
}

/* In the plan of loop o (see plan_to_share), with its copies; over ranks
 * this rank's workers' groups. */
static void run_shared(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                       int64_t lo, void *red, struct sap_loop_state *o)
{
	const sap_plan *p = &o->plan;
	ran(st, SAP_V_SHARED, p->nworkers, p->ngroups, p->nrounds, p->balance);
	st->shared_with = o->loop->id;
	sap_stage_slots(st, spec);
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		st->stage_ptr[k] = NULL;
		for (int q = 0; d->by_index && d->dv && q < o->nstage; q++)
			if (sap_stage_valid(&o->stage[q], d->dv))
				st->stage_ptr[k] = o->stage[q].data;
	}
	x->L->stage_base = p->order;
	x->L->stage = st->stage_ptr;
	if (sap_cfg.dump_order)
		dump_plan_order(x->L, p, lo);
	double t0 = sap_now();
	if (sap_nranks() > 1) {
		sap_reads_fetch(st, spec, x->env, p, sap_rank() * x->T, x->T, o, o->plan_no, 0, 0,
		                false);
		st->send_s += sap_now() - t0;
	}
	reds_open(x);
	sap_exec_plan_loose(x, p, sap_rank() * x->T);
	reds_close_ranks(x, spec, red, &st->traffic);
	st->compute_s += sap_now() - t0;
	x->L->stage = NULL;
	x->L->key_max = NULL;
}

/* ---- several ranks ---- */

typedef struct dist_ctx {
	struct sap_loop_state *st;
	const sap_async_spec *spec;
} dist_ctx;

static void dist_between(void *arg, int64_t r)
{
	dist_ctx *c = arg;
	const sap_dist *d = &c->st->dist;
	double t0 = sap_now();
	int P = sap_nranks();
	if (r + 1 < d->nrounds)
		sap_dist_send_each(d->recs, d->off + r * P, c->spec, &c->st->traffic,
		                   sap_dist_release_cb, &(sap_dist_at){ d, c->spec, r + 1 });
	c->st->send_s += sap_now() - t0;
}

static void run_dist_planned(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                             int64_t lo, int64_t hi, void *red)
{
	int me = sap_rank(), T = sap_nranks() * x->T;
	/* The checker reads every iteration's keys on every rank. */
	if (!plan_on_parts(spec, lo, hi))
		unpart_all(spec);
	/* The written vectors' elements come from their holders below; the
	 * plan knows no other keys.  But one the slice reads (an iteration's
	 * own element, before it writes it) must be current everywhere first:
	 * every rank runs the whole slice. */
	bool *written = sap_xcalloc((size_t)spec->ndds, sizeof *written);
	for (int k = 0; k < spec->ndds; k++)
		written[k] = spec->dds[k].dv && (spec->dds[k].mode & SAP_WRITE) &&
		             !spec->dds[k].slice_reads;
	/* Inputs read only at the loop variable come where the iterations
	 * are: the slice's here, the plan's after it. */
	bool *by_index = sap_xcalloc((size_t)spec->ndds, sizeof *by_index);
	bool any = plan_on_parts(spec, lo, hi) && sap_index_inputs(spec, lo, hi, by_index);
	for (int k = 0; any && k < spec->ndds; k++)
		written[k] |= by_index[k];
	sap_whole_spec(spec, written, &st->traffic);
	free(written);
	if (any && !cache_valid(st, spec, lo, hi, T, true))
		sap_index_fetch(st, spec, by_index, NULL, sap_chunk(lo, hi, T, me * x->T),
		                sap_chunk(lo, hi, T, (me + 1) * x->T));
	make_plan(st, spec, x->env, lo, hi, T, x->T, false, true);
	const sap_plan *p = &st->plan;
	if (sap_plan_serial(p)) {
		free(by_index);
		run_serial_ranks(st, spec, x, lo, hi, red, SERIAL_PLAN);
		return;
	}
	if (any)
		sap_index_fetch(st, spec, by_index, p, 0, 0);
	free(by_index);
	sap_stage_inputs(st, spec, x, me * x->T, x->T);
	x->L->key_max = st->keys_known ? st->key_max : NULL;
	if (!st->dist.off) {
		double t0 = sap_now();
		sap_dist_build(&st->dist, p, spec, &st->layout, x->env, me, x->T);
		double t = sap_now() - t0;
		st->plan_s += t;
		/* Each way once, timed alike on every rank. */
		double *way = p->dist_wr ? &st->premark_s : &st->reslice_s;
		if (!*way && (p->dist_wr || st->premark_s)) {
			t += p->mark_s;
			sap_comm_allreduce(&t, 1, SAP_COMM_DOUBLE, SAP_COMM_MAX);
			*way = t > 0 ? t : 1e-9;
		}
	}
	double t1 = sap_now();
	sap_dist_fetch(&st->dist, spec, &st->traffic);
	st->send_s += sap_now() - t1;
	st->compute_s += sap_now() - t1;
	ran(st, SAP_V_PLANNED, T, p->ngroups, p->nrounds, p->balance);
	st->key_level = p->keys;
	st->strips = p->strips;
	st->colour = p->colour;
	st->coloured += p->colour;
	if (sap_cfg.dump_order)
		dump_plan(x, p, lo, T);
	double t0 = sap_now();
	reds_open(x);
	dist_ctx c = { st, spec };
	st->audit_live = true;
	st->early_starts += sap_exec_plan_part(x, p, me * x->T, dist_between, &c, st->dist.early,
	                                      &st->traffic);
	st->audit_live = false;
	st->thread_rounds += (p->nrounds - 1) * (x->T - 1);
	sap_dist_settle(&st->dist, spec);
	reds_close_ranks(x, spec, red, &st->traffic);
	cache_own_writes(st);
	st->compute_s += sap_now() - t0;
	x->L->stage = NULL;
	x->L->key_max = NULL;
}

/* The vector held in parts whose parts a chunks loop's ranks run, if
 * any: not for a loop whose partial results depend on how iterations
 * fall on workers (a sum of floats), which runs the workers' even
 * chunks, as on one rank, so that its result depends on ranks x threads
 * only (a sum over [100, 1000) of a loaded vector differed between 2 x 1
 * and 1 x 2); nor for one cut by work (x->wcut), whose balance is worth
 * more than the elements it fetches. */
static const sap_dvec *home_of(const sap_async_spec *spec, const sap_run *x)
{
	return (x->r && !x->r->exact) || x->wcut ? NULL : held_part(spec);
}

/* Rank r's iterations of a chunks loop over ranks, [*a, *b): its share
 * of the workers' chunks, or, owner computes, those of its part of a
 * vector held in parts (home_of). */
static void chunk_of(const sap_async_spec *spec, const sap_run *x, int64_t lo, int64_t hi,
                     int r, int64_t *a, int64_t *b)
{
	int threads = x->T, T = sap_nranks() * threads;
	*a = sap_run_cut(x, lo, hi, T, r * threads);
	*b = sap_run_cut(x, lo, hi, T, (r + 1) * threads);
	const sap_dvec *home = home_of(spec, x);
	if (home) {
		int64_t pl, ph;
		sap_dv_part(home, r, &pl, &ph);
		/* Iterations outside the vector (an index error when they
		 * run) go to the first and last ranks, as on one rank. */
		if (r == 0)
			pl = lo;
		if (r == sap_nranks() - 1)
			ph = hi;
		*a = lo > pl ? lo : pl;
		*b = hi < ph ? hi : ph;
		if (*a > *b)
			*a = *b;
	}
}

/* An affine written access whose vector is held where it was written,
 * or else a vector read only at the loop variable that is: a chunks loop
 * over ranks runs each iteration where its element is (into *out). */
static const sap_affine *owner_key(const sap_async_spec *spec, sap_affine *out)
{
	for (int q = 0; q < spec->naffine; q++) {
		const sap_affine *af = &spec->affine[q];
		const sap_dvec *v = spec->dds[af->dds].dv;
		if ((af->mode & SAP_WRITE) && af->a != 0 && v && v->holder)
			return af;
	}
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (d->by_index && d->dv && d->dv->holder && d->mode == SAP_READ) {
			*out = (sap_affine){ .dds = k, .mode = SAP_READ, .a = 1, .b = 0 };
			return out;
		}
	}
	return NULL;
}

/* The ranks of a chunks loop's iterations as runs, in ascending order of
 * iteration: one rank's chunk, or a block of keys with one holder, is
 * one run, so that deciding where iterations go costs what the holder
 * map has of blocks, not the loop's length. */
typedef struct own_run {
	int64_t a, b;
	uint16_t r;
} own_run;

typedef struct owners {
	own_run *run;
	int64_t n, cap;
} owners;

static void owners_add(owners *o, int64_t a, int64_t b, uint16_t r)
{
	if (a >= b)
		return;
	if (o->n && o->run[o->n - 1].b == a && o->run[o->n - 1].r == r) {
		o->run[o->n - 1].b = b;
		return;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->run = sap_xrealloc(o->run, (size_t)o->cap * sizeof *o->run);
	}
	o->run[o->n++] = (own_run){ a, b, r };
}

/* Each rank's chunk of [lo, hi). */
static owners chunk_owners(const sap_async_spec *spec, const sap_run *x, int64_t lo, int64_t hi)
{
	owners o = { 0 };
	for (int r = 0; r < sap_nranks(); r++) {
		int64_t a, b;
		chunk_of(spec, x, lo, hi, r, &a, &b);
		owners_add(&o, a, b, (uint16_t)r);
	}
	return o;
}

/* The rank of each iteration of [lo, hi): the holder of its element of
 * af's vector, or, where every rank has it, the rank of its chunk; or,
 * past max runs, none (o.n > max). */
static owners iteration_ranks(const sap_async_spec *spec, const sap_run *x,
                              const sap_affine *af, int64_t lo, int64_t hi, int64_t max)
{
	const sap_dvec *v = spec->dds[af->dds].dv;
	owners o = { 0 };
	for (int r = 0; r < sap_nranks() && o.n <= max; r++) {
		int64_t a, b;
		chunk_of(spec, x, lo, hi, r, &a, &b);
		for (int64_t i = a, j; i < b && o.n <= max; i = j) {
			int64_t key = (int64_t)((uint64_t)af->a * (uint64_t)i + (uint64_t)af->b);
			uint16_t h = SAP_HOLD_ALL;
			j = i + 1;
			if (af->a != 1) {
				if ((uint64_t)key < (uint64_t)v->n)
					h = sap_hold_get(v, key);
			} else if (key < 0) {
				/* Keys below the vector (an index error when run),
				 * up to the iteration of key 0. */
				j = -af->b < b ? -af->b : b;
			} else if (key >= v->n) {
				j = b;
			} else {
				int64_t end = v->n - key < b - i ? v->n : key + (b - i);
				j = i + (sap_hold_run(v, key, end, &h) - key);
			}
			owners_add(&o, i, j, h == SAP_HOLD_ALL ? (uint16_t)r : h);
		}
	}
	return o;
}

/* The busiest rank's iterations over the mean, for --stats: a chunks
 * loop runs where its elements are (owner computes, or the part of a
 * vector held in parts), which leaves ranks idle when the loop covers
 * what some hold (the first half of a loaded vector), and a balance of 1
 * would hide it.  o: the owners when the loop has them, else by chunk_of. */
static double ranks_balance(const sap_async_spec *spec, const sap_run *x, const owners *o,
                            int64_t lo, int64_t hi)
{
	int P = sap_nranks();
	int64_t *cnt = sap_xcalloc((size_t)P, sizeof *cnt), top = 0;
	for (int64_t u = 0; u < o->n; u++)
		cnt[o->run[u].r] += o->run[u].b - o->run[u].a;
	for (int r = 0; !o->n && r < P; r++) {
		int64_t a, b;
		chunk_of(spec, x, lo, hi, r, &a, &b);
		cnt[r] = b - a;
	}
	for (int r = 0; r < P; r++)
		top = cnt[r] > top ? cnt[r] : top;
	free(cnt);
	return hi > lo ? (double)top * P / (double)(hi - lo) : 1.0;
}

/* Whether rank r alone holds every key of v in [a, b). */
static bool held_only_by(const sap_dvec *v, int64_t a, int64_t b, uint16_t r)
{
	for (int64_t k = a; k < b;) {
		uint16_t h;
		k = sap_hold_run(v, k, b, &h);
		if (h != r)
			return false;
	}
	return true;
}

/* The keys written by a chunks loop (affine in the iteration) stay with
 * the rank that ran the iteration. */
static void settle_chunks(const sap_async_spec *spec, const owners *o)
{
	for (int q = 0; q < spec->naffine; q++) {
		const sap_affine *af = &spec->affine[q];
		sap_dvec *v = spec->dds[af->dds].dv;
		if (!(af->mode & SAP_WRITE) || !v)
			continue;
		sap_hold_map(v);
		for (int64_t u = 0; u < o->n; u++) {
			/* Only the iterations that take the key (if (i > 0)
			 * x[i - 1] = ...): the others leave its holder. */
			own_run cw = o->run[u];
			if (!form_iters(af, o->run[u].a, o->run[u].b, &cw.a, &cw.b))
				continue;
			const own_run *w = &cw;
			/* Where the rank already holds every key between the
			 * run's first and last (x[2 * i + c] over the keys the
			 * last invocation left with it), nothing moves: a key at
			 * a time cost the body's time again, and a new stamp
			 * made every fetch list over the vector anew. */
			__int128 f = (__int128)af->a * w->a + af->b, l = (__int128)af->a * (w->b - 1) + af->b;
			__int128 lo = f < l ? f : l, hi = (f < l ? l : f) + 1;
			lo = lo < 0 ? 0 : lo;
			hi = hi > v->n ? v->n : hi;
			if (w->a < w->b && lo < hi && held_only_by(v, (int64_t)lo, (int64_t)hi, w->r))
				continue;
			if (af->a == 1) {
				/* A run of one rank's iterations: their keys are a
				 * range. */
				int64_t k0 = w->a + af->b, k1 = w->b + af->b;
				k0 = k0 < 0 ? 0 : k0;
				k1 = k1 > v->n ? v->n : k1;
				if (k0 < k1)
					sap_hold_range(v, k0, k1, w->r);
				continue;
			}
			if (af->a != 0 && w->a < w->b && f >= 0 && f < v->n && l >= 0 && l < v->n) {
				/* Every key in v: the keys in ascending order. */
				int64_t s = af->a > 0 ? af->a : -af->a;
				sap_hold_stride(v, (int64_t)lo, s, w->b - w->a, w->r);
				continue;
			}
			for (int64_t i = w->a; i < w->b; i++) {
				int64_t key = (int64_t)((uint64_t)af->a * (uint64_t)i + (uint64_t)af->b);
				if ((uint64_t)key < (uint64_t)v->n)
					sap_hold_set(v, key, w->r);
			}
		}
		sap_hold_tidy(v);
	}
	/* Spans (spans_apart): each iteration's keys, a range. */
	for (int q = 0; q < spec->nspan; q++) {
		const sap_span *sp = &spec->span[q];
		sap_dvec *v = spec->dds[sp->dds].dv;
		if (!(sp->mode & SAP_WRITE) || !v || sp->w <= 0)
			continue;
		sap_hold_map(v);
		/* A lattice's rows one by one: a run of columns is a
		 * range of each row. */
		int64_t rows = sp->m > 1 ? sp->m : 1;
		for (int64_t u = 0; u < o->n; u++)
			for (int64_t j = 0; j < rows; j++) {
			int64_t x = o->run[u].a, y = o->run[u].b, b = sp->b + (rows > 1 ? sp->c * j : 0);
			/* Spans that touch or overlap make one range a run: the
			 * rows of a flat matrix took a range an iteration, 60%
			 * of a 16-column histogram's loop on 2 ranks. */
			bool one = sp->a > 0 && sp->w >= sp->a && x < y;
			for (int64_t i = x; i < y; i++) {
				int64_t k0 = sp->a * i + b, k1 = one ? sp->a * (y - 1) + b + sp->w : k0 + sp->w;
				k0 = k0 < 0 ? 0 : k0;
				k1 = k1 > v->n ? v->n : k1;
				if (k0 < k1)
					sap_hold_range(v, k0, k1, o->run[u].r);
				if (one)
					break;
			}
		}
		sap_hold_tidy(v);
	}
}

/* Whether v's elements [a, b) are held by r or by every rank. */
static bool held_by(const sap_dvec *v, int64_t a, int64_t b, uint16_t r)
{
	for (int64_t k = a; k < b;) {
		uint16_t h;
		k = sap_hold_run(v, k, b, &h);
		if (h != r && h != SAP_HOLD_ALL)
			return false;
	}
	return true;
}

/* sap_ranged_fetch for the runs of own that rank me runs. */
static bool ranged_fetch(const sap_async_spec *spec, int k, const owners *own, int me)
{
	int64_t *ab = sap_xmalloc((size_t)(2 * own->n + 2) * sizeof *ab), nr = 0;
	for (int64_t u = 0; u < own->n; u++)
		if (own->run[u].r == me) {
			ab[2 * nr] = own->run[u].a;
			ab[2 * nr + 1] = own->run[u].b;
			nr++;
		}
	bool fetch = sap_ranged_fetch(spec, k, ab, nr);
	free(ab);
	return fetch;
}

/* spans: a loop whose spans keep its iterations apart (spans_apart),
 * which reads the vectors it writes at keys other than its own: each
 * rank fetches the keys its chunk touches (sap_reads_fetch), and it runs
 * in chunks, not where an affine key's element is held.  Making every
 * vector whole first, a loaded input included, took 0.4 s against the
 * body's 7 ms for a flat histogram's rows on 2 ranks. */
/* The shortest mean run of iterations with one holder that owner
 * computes takes for a loop that only reads the element it follows. */
#define OWNER_RUN 64

/* After hub iterations ran on rank `from`: the keys every iteration reads
 * that do not move (h), from there to every rank, which the iterations
 * after read.  Every rank had them current before (fetched for its
 * chunk, or sent by the hubs before), and only hubs write them. */
static void hubs_send(struct sap_loop_state *st, const sap_async_spec *spec, const hub_set *h,
                      int from)
{
	for (int f = 0; f < h->nf; f++)
		for (int64_t j = 0; j < h->fm[f]; j++) {
			sap_dvec *v = spec->dds[h->fdds[f]].dv;
			int64_t a = h->f0[f] + h->fc[f] * j, b = a + h->fw[f];
			a = a < 0 ? 0 : a;
			b = b > v->n ? v->n : b;
			if (a >= b)
				continue;
			sap_comm_bcast(v->data + (size_t)a * v->elsize, b - a, v->elsize, from);
			int64_t bytes = (b - a) * (int64_t)v->elsize;
			if (sap_rank() == from)
				st->traffic.sent += bytes * (sap_nranks() - 1);
			else
				st->traffic.received += bytes;
		}
}

/* This rank's part of chunks [a, b) of [lo, hi) between hubs h (run_hubs
 * over ranks): each run of hubs by the ranks whose chunks hold it, in
 * order, each sending the keys all read (hubs_send) after its part. */
static void exec_hub_chunks(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                            int64_t a, int64_t b, int64_t lo, int64_t hi, const hub_set *h)
{
	int T = sap_nranks() * x->T, me = sap_rank();
	int64_t at = lo;
	for (int q = 0; q <= h->n; q++) {
		int64_t e = q < h->n ? h->a[q] : hi;
		int64_t sa = at > a ? at : a, sb = e < b ? e : b;
		if (sa < sb)
			sap_exec_chunks_of(x, sa, sb, lo, hi, T, me * x->T);
		if (q == h->n)
			break;
		for (int r = 0; r < sap_nranks(); r++) {
			int64_t ra, rb;
			chunk_of(spec, x, lo, hi, r, &ra, &rb);
			int64_t pa = h->a[q] > ra ? h->a[q] : ra, pb = h->b[q] < rb ? h->b[q] : rb;
			if (pa >= pb)
				continue;
			if (r == me)
				sap_exec_owned(x, pa, pb, lo, hi, T, me * x->T);
			hubs_send(st, spec, h, r);
		}
		at = h->b[q];
	}
}

static void run_dist_chunks(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                            int64_t lo, int64_t hi, void *red, bool spans, const hub_set *hubs)
{
	int T = sap_nranks() * x->T, me = sap_rank();
	double t0 = sap_now();
	chunk_weights(x, spec, lo, hi, T);
	/* A vector it writes cannot stay in parts; the rest is fetched
	 * below, as for other chunks. */
	for (int k = 0; spans && k < spec->ndds; k++)
		if (spec->dds[k].dv && (spec->dds[k].mode & SAP_WRITE))
			sap_dv_unpart(spec->dds[k].dv);
	/* Owner computes: where the elements it writes are, if they were
	 * left where written; else by chunks (of a part held, if any). */
	sap_affine read_key;
	const sap_affine *af = spans || home_of(spec, x) ? NULL : owner_key(spec, &read_key);
	owners own = { 0 };
	int64_t a = 0, b = 0;
	if (af) {
		/* Elements only read, whose holders alternate every few keys
		 * (LDA's topics after a sweep): running each rank's short runs
		 * cost 40% of LDA's sweep on 2 ranks, 25 times the loop's work;
		 * the elements of even chunks move instead. */
		bool read = !(af->mode & SAP_WRITE);
		own = iteration_ranks(spec, x, af, lo, hi, read ? (hi - lo) / OWNER_RUN : INT64_MAX);
		if (read && own.n > (hi - lo) / OWNER_RUN) {
			free(own.run);
			own = (owners){ 0 };
			af = NULL;
		}
	}
	if (af && x->r && !x->r->exact) {
		/* Partial results combine per worker, so a loop that reduces
		 * runs each worker's even chunk, as on one rank, even where
		 * the elements are elsewhere: those are made whole. */
		for (int64_t u = 0; af && u < own.n; u++) {
			int r = own.run[u].r;
			if (own.run[u].a < sap_run_cut(x, lo, hi, T, r * x->T) ||
			    own.run[u].b > sap_run_cut(x, lo, hi, T, (r + 1) * x->T))
				af = NULL;
		}
		if (!af) {
			free(own.run);
			own = (owners){ 0 };
		}
		/* Then as chunks below: the vectors read at the loop
		 * variable are fetched for the chunk, the others made whole. */
	}
	ran(st, af ? SAP_V_OWNER : SAP_V_CHUNKS, T, T, 1,
	    x->wcut && !af ? chunks_balance(x, spec, lo, hi, T) : ranks_balance(spec, x, &own, lo, hi));
	int64_t *idx = NULL, n = 0, nmine = 0;
	if (af) {
		/* The others are made whole, but for a vector read at the
		 * loop variable that is held where the iterations run (the
		 * same on every rank: own and the holders are). */
		bool *skip = sap_xcalloc((size_t)spec->ndds, sizeof *skip);
		bool *near = sap_xcalloc((size_t)spec->ndds, sizeof *near);
		bool *reads = sap_xcalloc((size_t)spec->ndds, sizeof *reads);
		bool fetch = false, fetch_reads = false;
		skip[af->dds] = true;
		for (int k = 0; k < spec->ndds; k++) {
			const sap_dvec *v = spec->dds[k].dv;
			if (spec->dds[k].accumulate && v && sap_acc_in_place(v)) {
				skip[k] = true;
				continue;
			}
			/* A stencil's neighbours, or a ranged vector's keys (rows
			 * of a flat matrix): the elements this rank's runs read
			 * come from their holders, not the whole vector. */
			if ((spec->dds[k].near || spec->dds[k].ranged) && v && v->holder &&
			    !v->part_only && !(spec->dds[k].mode & SAP_WRITE) &&
			    (!spec->dds[k].ranged || ranged_fetch(spec, k, &own, me))) {
				skip[k] = near[k] = fetch = true;
				continue;
			}
			/* Read at keys the read slice records (q[i] = A[i] . p):
			 * those elements, not the whole vector. */
			if (spec->reads && spec->dds[k].recorded && !spec->dds[k].slice_reads && v &&
			    v->holder && !(spec->dds[k].mode & SAP_WRITE) && !spec->dds[k].accumulate) {
				skip[k] = reads[k] = fetch_reads = true;
				continue;
			}
			/* Read only at the loop variable and held in parts: each
			 * rank's runs in its part, or it is made whole below. */
			if (spec->dds[k].by_index && v && v->part_only && !(spec->dds[k].mode & SAP_WRITE) &&
			    hi <= v->n && lo >= 0) {
				skip[k] = true;
				for (int64_t u = 0; u < own.n && skip[k]; u++) {
					int64_t pl, ph;
					sap_dv_part(v, own.run[u].r, &pl, &ph);
					skip[k] = own.run[u].a >= pl && own.run[u].b <= ph;
				}
				continue;
			}
			/* Read or written only at the loop variable, where the
			 * iterations run: nothing to fetch. */
			if (!(spec->dds[k].by_index || spec->dds[k].at_own) || !v || !v->holder ||
			    hi > v->n || lo < 0)
				continue;
			skip[k] = true;
			for (int64_t u = 0; u < own.n && skip[k]; u++)
				skip[k] = held_by(v, own.run[u].a, own.run[u].b, own.run[u].r);
			/* Only read, and held apart from where the iterations run
			 * by a little (a planned loop's key ranges cut elsewhere
			 * than the other vector's parts): the elements the runs
			 * miss, not the whole vector.  Made whole, every element
			 * another rank wrote moved each pass (5 MB of a 16 MB
			 * vector, for a loop whose ranks had missed 0.3%). */
			if (!skip[k] && spec->dds[k].mode == SAP_READ && !v->part_only &&
			    ranged_fetch(spec, k, &own, me))
				skip[k] = near[k] = fetch = true;
		}
		/* sap_whole_spec would leave one held in parts so: the
		 * iterations went where another vector's elements are, and
		 * on 2 ranks read a loaded input's elements where the other
		 * rank held them (garbage, silently). */
		for (int k = 0; k < spec->ndds; k++)
			if (!skip[k] && spec->dds[k].dv && spec->dds[k].mode)
				sap_dv_every(spec->dds[k].dv, &st->traffic);
		/* Every rank takes the same way: own and the holders are the
		 * same on all. */
		if (fetch || fetch_reads) {
			int64_t *ab = sap_xmalloc((size_t)(2 * own.n + 2) * sizeof *ab), nr = 0;
			for (int64_t u = 0; u < own.n; u++)
				if (own.run[u].r == me) {
					ab[2 * nr] = own.run[u].a;
					ab[2 * nr + 1] = own.run[u].b;
					nr++;
				}
			if (fetch)
				sap_span_fetch(st, spec, near, ab, nr);
			/* After the others: the slice reads their elements. */
			if (fetch_reads)
				sap_reads_fetch_runs(st, spec, x->env, reads, ab, nr);
			free(ab);
		}
		free(near);
		free(reads);
		free(skip);
		/* This rank's iterations: a range, or a list if they are
		 * several runs. */
		for (int64_t u = 0; u < own.n; u++)
			if (own.run[u].r == me) {
				n += own.run[u].b - own.run[u].a;
				a = nmine++ ? a : own.run[u].a;
				b = own.run[u].b;
			}
		if (nmine > 1) {
			idx = sap_xmalloc((size_t)n * sizeof *idx);
			int64_t m = 0;
			for (int64_t u = 0; u < own.n; u++)
				for (int64_t i = own.run[u].a; own.run[u].r == me && i < own.run[u].b; i++)
					idx[m++] = i;
		}
	} else {
		chunk_of(spec, x, lo, hi, me, &a, &b);
		sap_reads_fetch(st, spec, x->env, NULL, 0, 0, NULL, 0, a, b, spans);
		bool writes = false;
		for (int q = 0; q < spec->naffine; q++)
			writes |= (spec->affine[q].mode & SAP_WRITE) != 0;
		for (int q = 0; spans && q < spec->nspan; q++)
			writes |= (spec->span[q].mode & SAP_WRITE) != 0;
		if (writes)
			own = chunk_owners(spec, x, lo, hi);
	}
	st->send_s += sap_now() - t0;
	if (sap_cfg.dump_order && relaxed_run(x, T)) {
		/* Each rank's range, cut among its workers as
		 * sap_exec_chunks_of cuts it. */
		int64_t *cut = sap_xmalloc((size_t)(T + 1) * sizeof *cut);
		for (int r = 0; r < sap_nranks(); r++) {
			int64_t ra, rb;
			chunk_of(spec, x, lo, hi, r, &ra, &rb);
			for (int v = 0; v < x->T; v++) {
				int64_t c = sap_run_cut(x, lo, hi, T, r * x->T + v);
				cut[r * x->T + v] = v == 0 ? ra : c < ra ? ra : c > rb ? rb : c;
			}
			cut[(r + 1) * x->T] = rb;
		}
		dump_chunk_rounds(x->L, cut, T);
		free(cut);
	} else if (sap_cfg.dump_order) {
		sap_order_dump(x->L, NULL, lo, hi - lo);
	}
	reds_open(x);
	if (idx)
		sap_exec_list_chunks_of(x, idx, n, lo, hi, T, me * x->T);
	else if (hubs && hubs->n)
		exec_hub_chunks(st, spec, x, a, b, lo, hi, hubs);
	else if (a < b)
		sap_exec_chunks_of(x, a, b, lo, hi, T, me * x->T);
	settle_chunks(spec, &own);
	free(own.run);
	free(idx);
	reds_close_ranks(x, spec, red, &st->traffic);
	st->compute_s += sap_now() - t0;
	chunk_weights_free(x);
}

/* ---- loops over the keys of maps, on several ranks ---- */

/* Whether a loop over keys reads map d whole on every rank rather than
 * parted: it only reads it, and at other keys than its own, or its
 * values hold strings or lists (which are never parted), or its keys are
 * of another kind. */
static bool read_whole(const sap_dds *d, const sap_dvec *keys)
{
	return d->mode == SAP_READ && (!d->at_key || d->dm->drop || d->dm->refs ||
	                               d->dm->kk != keys->keys_of->kk);
}

/* The keys(m) a loop over a map's keys runs over, each iteration [lo,
 * hi) reading its own, or NULL. */
static const sap_dvec *keys_vector(const sap_async_spec *spec, int64_t lo, int64_t hi)
{
	const sap_dvec *keys = NULL;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (d->dv && d->dv->keys_of && d->mode == SAP_READ && d->by_index && lo == 0 &&
		    hi == d->dv->n)
			keys = d->dv;
	}
	return keys;
}

/* The keys a loop runs over, if it is a loop over a map's keys that
 * writes maps only at its key, inserting nothing, and writes no dvector
 * (it may accumulate into maps): on several ranks, each key's rank runs
 * it, on maps parted (or whole, read_whole).
 * Its iterations [lo, hi) are those of the keys, each reading its own:
 * a loop over more iterations than a list of keys has (a user's ks =
 * keys(m), read where i < len(ks)) is no such loop, and ran keys read
 * past the list's end, some iterations twice and others never. */
static const sap_dvec *map_keys(const sap_async_spec *spec, const sap_reduce *r, int64_t lo,
                                int64_t hi, char *why, size_t wn)
{
	const sap_dvec *keys = keys_vector(spec, lo, hi);
	if (!keys)
		return NULL;
	/* Why a loop over a map's keys does not run on the maps' parts, for
	 * --stats, where the reason is not the general one. */
	if (r && !r->flat) {
		snprintf(why, wn, "a reduce variable holds a list or string");
		return NULL;
	}
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		/* A map it accumulates into, it does not read: the sums go to
		 * the keys' owners after it (sap_dist_reduce). */
		if (d->accumulate && d->dm)
			continue;
		if (d->accumulate) {
			snprintf(why, wn, "it accumulates into %s", d->name);
			return NULL;
		}
		if (d->dv && (d->mode & SAP_WRITE)) {
			snprintf(why, wn, "it writes the dvector %s", d->name);
			return NULL;
		}
		if (!d->dm || read_whole(d, keys))
			continue;
		if (!d->at_key)
			snprintf(why, wn, "it touches %s at keys other than its own", d->name);
		else if ((d->mode & SAP_WRITE) && !d->keeps_keys)
			snprintf(why, wn, "it may insert or erase keys of %s", d->name);
		else if (d->dm->drop || d->dm->refs)
			snprintf(why, wn, "the values of %s hold strings or lists", d->name);
		else if (d->dm->kk != keys->keys_of->kk)
			snprintf(why, wn, "%s has keys of another type", d->name);
		else
			continue;
		return NULL;
	}
	return keys;
}

/* Whether a loop over a map's keys, on several ranks, runs every key on
 * every rank rather than each where it is held.  A truncated-gradient
 * SGD passes over its weights map between blocks of examples, and the
 * blocks' loop, which writes the map at keys from the data, runs on
 * every rank: the map went whole there and parted here every block, 2.7
 * ms a pass on 2 ranks against 0.3 ms of body.  Where the map is whole
 * when the loop starts, it only writes maps at its keys, and parting and
 * making whole again took longer than the other ranks' share of the
 * body, it runs whole: every rank computes every key's values, the same
 * bits its owner would, so timing may choose (and the ranks agree). */
static bool map_whole_run(const struct sap_loop_state *st, const sap_async_spec *spec,
                          const sap_run *x)
{
	if (sap_nranks() == 1 || x->r || !st->mk_timed)
		return false;
	double again = st->mk_part_s;
	bool any = false;
	for (int k = 0; k < spec->ndds; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!(d->mode & SAP_WRITE))
			continue;
		if (!d->dm || !d->at_key || d->accumulate || d->dm->parted)
			return false;
		again += d->dm->whole_s;
		any = true;
	}
	int whole = any && st->mk_body_s * (sap_nranks() - 1) < again;
	sap_comm_allreduce(&whole, 1, SAP_COMM_INT, SAP_COMM_MIN);
	return whole;
}

static void run_map_owner(struct sap_loop_state *st, const sap_async_spec *spec, sap_run *x,
                          int64_t lo, int64_t hi, void *red, const sap_dvec *keys)
{
	if (map_whole_run(st, spec, x)) {
		st->whole_why = "its maps go whole between its runs, which costs more than every key";
		unpart_all(spec);
		sap_whole_spec(spec, NULL, &st->traffic);
		for (int k = 0; k < spec->ndds; k++)
			if (spec->dds[k].dm && !spec->dds[k].accumulate)
				sap_dm_whole(spec->dds[k].dm);
		run_chunks(st, spec, x, lo, hi, red);
		return;
	}
	double t0 = sap_now();
	int me = sap_rank();
	ran(st, SAP_V_OWNER, sap_nranks() * x->T, sap_nranks() * x->T, 1, 1.0);
	/* The dvectors it reads, other than its keys, are read anywhere. */
	unpart_all(spec);
	sap_whole_spec(spec, NULL, &st->traffic);
	double tp = sap_now();
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].dm && !spec->dds[k].accumulate) {
			if (read_whole(&spec->dds[k], keys)) {
				sap_dm_whole(spec->dds[k].dm);
				continue;
			}
			sap_dm_part(spec->dds[k].dm);
			spec->dds[k].dm->local = true;
			/* Parting keeps the rank's entries, not their values
			 * grouped by key: group them again, as for any loop that
			 * reads a multimap (a key's values read by index were
			 * otherwise a walk along its chain each). */
			if (!(spec->dds[k].mode & SAP_WRITE))
				sap_dm_group(spec->dds[k].dm);
		}
	st->mk_part_s = sap_now() - tp;
	/* Each key on its worker of the P x T (sap_dm_key_worker), so that
	 * partial results are the same whatever P and T: thread t of this
	 * rank runs the keys of worker me * T + t, ascending. */
	int T = x->T, W = sap_nranks() * T;
	int *wk = sap_xmalloc((size_t)(hi - lo) * sizeof *wk);
	int64_t *cut = sap_xcalloc((size_t)T + 1, sizeof *cut);
	for (int64_t i = lo; i < hi; i++) {
		wk[i - lo] = sap_dm_key_worker(keys->keys_of, keys->data + (size_t)i * keys->elsize, W) -
		             me * T;
		if (wk[i - lo] >= 0 && wk[i - lo] < T)
			cut[wk[i - lo] + 1]++;
	}
	for (int t = 0; t < T; t++)
		cut[t + 1] += cut[t];
	int64_t *idx = sap_xmalloc((size_t)cut[T] * sizeof *idx);
	int64_t *at = sap_xmalloc((size_t)T * sizeof *at);
	for (int t = 0; t < T; t++)
		at[t] = cut[t];
	for (int64_t i = lo; i < hi; i++)
		if (wk[i - lo] >= 0 && wk[i - lo] < T)
			idx[at[wk[i - lo]]++] = i;
	free(wk);
	free(at);
	st->send_s += sap_now() - t0;
	if (sap_cfg.dump_order)
		sap_order_dump(x->L, NULL, lo, hi - lo);
	reds_open(x);
	double tb = sap_now();
	if (cut[T])
		sap_exec_lists(x, idx, cut);
	st->mk_body_s = sap_now() - tb;
	st->mk_timed = true;
	free(idx);
	free(cut);
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].dm && !spec->dds[k].accumulate)
			spec->dds[k].dm->local = false;
	reds_close_ranks(x, spec, red, &st->traffic);
	st->compute_s += sap_now() - t0;
	chunk_weights_free(x);
}

/* A vector of elements with lists that this loop only reads, and that has
 * not changed since its previous run, is likely read many times more:
 * its lists, wherever pushes left them, are packed in element order
 * once.  Not one whose elements move between ranks (holder maps, pages
 * given back), where some lists are copies fetched for a loop. */
static void pack_lists(struct sap_loop_state *st, const sap_async_spec *spec)
{
	if (st->nseen != spec->ndds) {
		st->seen = sap_xrealloc(st->seen, (size_t)spec->ndds *
		                        sizeof *st->seen);
		memset(st->seen, 0, (size_t)(spec->ndds ? spec->ndds : 1) * sizeof *st->seen);
		st->nseen = spec->ndds;
	}
	for (int k = 0; k < spec->ndds; k++) {
		sap_dvec *v = spec->dds[k].dv;
		if (!v) {
			st->seen[k] = 0;
			continue;
		}
		if (spec->dds[k].mode == SAP_READ && v->codec && v->codec->settle &&
		    st->seen[k] == v->version && v->packed != v->version && !v->holder &&
		    !v->sparse && (!v->part_only || v->cuts)) {
			int64_t a = 0, b = v->n;
			if (v->part_only && v->cuts) {
				a = v->cuts[sap_rank()];
				b = v->cuts[sap_rank() + 1];
			}
			sap_dv_pack_lists(v, a, b);
		}
		st->seen[k] = v->version;
	}
}

/* ---- short invocations over ranks ---- */

/* A loop whose iterations are independent, invoked many times over few
 * iterations (a mini-batch SGD's driver loop over batches of 50
 * examples, a pass over a model's 17 weights after each), paid on
 * several ranks at every invocation what spreading it costs: fetching
 * the rows of its chunk, chaining the workers' sums from rank to rank.
 * 5000 such invocations took 2 s on 2 x 1 against 0.03 s of body on
 * 1 x 1.  Run whole on every rank instead, as one rank of P x T workers
 * (the partial results combining in the same order), it moves nothing
 * once its vectors are whole.  The result is the same bits either way,
 * so timing may choose: of the loop's invocations of at most BRIEF_N
 * iterations over vectors of at most BRIEF_BYTES in all, the first
 * BRIEF_TRY run spread and the next BRIEF_TRY whole, each way's first
 * left out of the count (it moves the vectors), and the way that took
 * less on the slowest rank is kept. */
enum { BRIEF_N = 4096, BRIEF_TRY = 8 };
#define BRIEF_BYTES (64.0 * 1024 * 1024)
/* Nor is a loop short whose inner loops make its work more than
 * BRIEF_WORK passes (spec->cost), or nest two deep (spec->heavy): an
 * all-pairs force loop over 3000 particles ran whole on every rank of
 * 2, each doing all of it, after 8 invocations timed on a busy node. */
#define BRIEF_WORK (64.0 * BRIEF_N)

/* The passes of [lo, hi)'s inner loops, plus one an iteration, from 64
 * pieces weighed at their middles. */
static double loop_work(const sap_async_spec *spec, int64_t lo, int64_t hi)
{
	int64_t n = hi - lo, M = n < 64 ? n : 64;
	double w = 0;
	for (int64_t q = 0; q < M; q++) {
		int64_t a = sap_chunk(lo, hi, (int)M, (int)q), b = sap_chunk(lo, hi, (int)M, (int)q + 1);
		double c = spec->cost(a + (b - a) / 2);
		w += ((c > 0 && c < 1e300 ? c : 0) + 1.0) * (double)(b - a);
	}
	return w;
}

/* Would spec's vectors, made whole on every rank, take at most
 * BRIEF_BYTES? */
static bool fits_whole(const sap_async_spec *spec)
{
	double bytes = 0;
	for (int k = 0; k < spec->ndds; k++)
		if (spec->dds[k].dv)
			bytes += (double)spec->dds[k].dv->n * (double)spec->dds[k].dv->elsize;
	return bytes <= BRIEF_BYTES;
}

static bool brief_fits(const sap_async_spec *spec, const sap_reduce *r, int64_t lo, int64_t hi)
{
	const char *why;
	if (hi - lo > BRIEF_N || sap_cfg.check_plan || (r && r->nrel) ||
	    shape_of(spec, &why) != INDEPENDENT || spec->heavy ||
	    (spec->cost && loop_work(spec, lo, hi) > BRIEF_WORK))
		return false;
	return fits_whole(spec);
}

/* Whole on every rank, with w's times so far (try invocations of each
 * way: spread first). */
static bool ways_whole(const sap_two_ways *w, int try)
{
	if (sap_cfg.short_loops)
		return sap_cfg.short_loops > 0;
	return w->way ? w->way > 0 : w->n >= try;
}

/* Collective, once: the choice, from both ways' times, each way's first
 * left out. */
static void ways_timed(sap_two_ways *w, int try, bool whole, double s)
{
	if (w->way || sap_cfg.short_loops)
		return;
	int k = w->n++;
	if (whole && k > try)
		w->whole_s += s;
	else if (!whole && k > 0)
		w->spread_s += s;
	if (w->n < 2 * try)
		return;
	double t[2] = { w->spread_s, w->whole_s };
	sap_comm_allreduce(t, 2, SAP_COMM_DOUBLE, SAP_COMM_MAX);
	w->way = t[1] < t[0] ? 1 : -1;
}

static bool brief_whole(const struct sap_loop_state *st)
{
	return ways_whole(&st->brief, BRIEF_TRY);
}

static void brief_timed(struct sap_loop_state *st, bool whole, double s)
{
	ways_timed(&st->brief, BRIEF_TRY, whole, s);
}

/* A loop in chunks between hubs over ranks runs spread (each hub's rank
 * sending what all read after it) or whole on every rank as one rank of
 * all the workers: the same partial results either way, so the faster,
 * timed as for short loops.  Floyd-Warshall's rows for one k spread over
 * 2 ranks cost 5 ms an invocation in fetches and holders, 8 times its
 * whole run's; a loop of heavy rows spreads. */
enum { HUB_TRY = 3 };

/* Does every key of the DDSs the loop writes that moves with the loop
 * variable move by one (no lattice)?  Then a run of iterations touches
 * ranges of keys, which a rank fetches whole (mark_spans). */
static bool unit_strides(const sap_async_spec *spec)
{
	for (int q = 0; q < spec->naffine + spec->nspan; q++) {
		const sap_affine *af = q < spec->naffine ? &spec->affine[q] : NULL;
		const sap_span *sp = af ? NULL : &spec->span[q - spec->naffine];
		int64_t a = af ? af->a : sp->a;
		if ((a != 0 && a != 1 && a != -1) || (sp && sp->m > 1))
			return false;
	}
	return true;
}

/* A planned loop over ranks runs its plan spread, each rank its
 * workers' groups with an exchange after every round, or whole on every
 * rank as one rank of all the workers would, with no exchange: the same
 * plan (ranks.c makes the one a rank of as many threads makes), so the
 * same result either way, and the faster is kept.  Spread, a coordinate
 * descent's plan of 184 rounds a sweep sent 584 MB over 240 sweeps, 25 s
 * against 0.5 s for the serial loop (helper SPM).  Not with relaxed
 * vectors, whose rounds fold per rank, nor where the vectors, made
 * whole, would not fit. */
enum { PLAN_TRY = 3 };

static bool planned_fits(const sap_async_spec *spec, const sap_reduce *r)
{
	return !(r && r->nrel) && !sap_cfg.locks && !sap_cfg.check_plan && !sap_cfg.dump_order &&
	       fits_whole(spec);
}

static bool pairs_fit(const sap_async_spec *spec, const sap_reduce *r)
{
	return (!r || r->exact) && planned_fits(spec, r);
}

/* Only a plan of many rounds, each an exchange when spread: one of a
 * few (a Lasso's halves) runs spread, where its ranks share the work. */
enum { PLAN_ROUNDS = 16 };

static bool planned_timed(const struct sap_loop_state *st, const sap_async_spec *spec,
                          const sap_reduce *r)
{
	return st->rounds >= PLAN_ROUNDS && planned_fits(spec, r);
}

static bool planned_whole(const struct sap_loop_state *st, const sap_async_spec *spec,
                          const sap_reduce *r)
{
	return planned_timed(st, spec, r) && ways_whole(&st->planned, PLAN_TRY);
}

static void async_for(sap_loop *L, const sap_async_spec *spec, int64_t lo, int64_t hi,
                      void *env, sap_body_fn body, const sap_reduce *r, void *red)
{
	double t_start = sap_now();
	L->invocations++;
	struct sap_loop_state *st = state_of(L);
	st->audit_live = false;
	pack_lists(st, spec);
	sap_run x = { .L = L, .env = env, .body = body, .r = r, .T = sap_threads(),
	              .V = sap_threads() };
	if (r)
		sap_acc_driver_init(r, spec, red);
	/* One worker reads and adds to relaxed vectors in place. */
	sap_rel_direct(r, red);

	const char *why = NULL;
	hub_set hubs;
	bool dist_hubs = false, pairs = false;
	/* A loop over a map's keys runs each key where the map holds it;
	 * one whose partial results depend on grouping does so on one rank
	 * too, so that they are the same whatever the ranks. */
	st->why_buf[0] = 0;
	const sap_dvec *mk = (sap_nranks() > 1 || (r && !r->exact && x.T > 1)) && !sap_cfg.run_order &&
	                     lo < hi && spec->dds && !spec->serial ?
	                     map_keys(spec, r, lo, hi, st->why_buf, sizeof st->why_buf) : NULL;
	/* Any other loop reads maps whole; those it accumulates into, it
	 * does not read, and the sums go where the map is after it. */
	for (int k = 0; !mk && spec->dds && k < spec->ndds; k++)
		if (spec->dds[k].dm && !spec->dds[k].accumulate)
			sap_dm_whole(spec->dds[k].dm);
	/* Now that the maps are as the loop sees them.  A multimap the loop
	 * reads and does not change lists its values by key, where the
	 * loop is long enough to pay for the listing. */
	for (int k = 0; spec->dds && k < spec->ndds; k++) {
		sap_dmap *m = spec->dds[k].dm;
		if (m && m->multi && !(spec->dds[k].mode & SAP_WRITE) && 4 * (hi - lo) >= m->nkeys)
			sap_dm_group(m);
	}
	if (r && spec->dds) {
		x.spec = spec;
		x.n = hi - lo;
		sap_acc_shadows(r, spec, red, x.n);
	}
	const char *serial = spec->dds && !spec->serial && keys_wrap(spec, lo, hi) ?
	                     "its keys pass their type's range and wrap" : spec->serial;
	bool ranks = !mk && sap_nranks() > 1 && !sap_cfg.run_order && lo < hi && spec->dds &&
	             !serial && sap_dist_ok(spec, r, &why) && shape_of(spec, &why) != UNKNOWN;
	bool brief = ranks && brief_fits(spec, r, lo, hi), brief_all = brief && brief_whole(st);
	ranks = ranks && !brief_all;
	/* Every rank runs all of it: then as one rank of P x T workers, so
	 * that the partial results combine as there, on its T threads. */
	if (sap_nranks() > 1 && !mk && !ranks && ((r && !r->exact) || brief_all) &&
	    !sap_cfg.run_order)
		x.V = x.T * sap_nranks();
	/* Said in --stats: on several ranks, every rank ran all of it. */
	st->whole_why = NULL;
	if (brief_all)
		why = sap_cfg.short_loops ? "its invocations are short, and SAP_SHORT_LOOPS=whole" :
		      "its invocations are short, and ran faster that way";
	if (sap_nranks() > 1 && !mk && !ranks && lo < hi && spec->dds && !serial &&
	    !sap_cfg.run_order)
		st->whole_why = st->why_buf[0] ? st->why_buf : why ? why : "its keys are unknown";
	/* What a loop accumulates into, every rank adds the same sums to,
	 * or each holder those of its elements. */
	for (int k = 0; ranks && k < spec->ndds; k++)
		if (spec->dds[k].accumulate && spec->dds[k].dv && !sap_acc_in_place(spec->dds[k].dv))
			sap_dv_whole(spec->dds[k].dv, &st->traffic);
	/* Whole on every rank, so with every element. */
	if (sap_nranks() > 1 && !ranks && lo < hi)
		unpart_all(spec);
	/* Loops over ranks know which elements they need (or make whole
	 * what they do not); others read them all on every rank. */
	if (sap_nranks() > 1 && spec->dds && !ranks && lo < hi)
		sap_whole_spec(spec, NULL, &st->traffic);
	if (mk) {
		run_map_owner(st, spec, &x, lo, hi, red, mk);
	} else if (sap_cfg.run_order) {
		run_replay(st, &x, lo, hi, red);
	} else if (lo >= hi) {
		if (sap_cfg.dump_order)
			sap_order_dump(L, NULL, lo, 0);
	} else if (!spec->dds) {
		run_serial(st, &x, lo, hi, red, SAP_V_SERIAL, "no access spec");
	} else if (serial) {
		if (spec->serial)
			sap_serial_warn(L, spec, x.T * sap_nranks(), hi - lo);
		run_serial(st, &x, lo, hi, red, SAP_V_SERIAL, serial);
	} else if (ranks) {
		struct sap_loop_state *o = sap_plan_to_share(st, spec, r, lo, hi, sap_nranks() * x.T);
		/* Whether a rank holds plan-order copies (which share a plan)
		 * is its own affair, but every rank must take the same way:
		 * their collectives differ (MPI_ERR_TRUNCATE on 3 ranks). */
		int64_t who[2] = { o ? o->loop->id : -1, o ? -(int64_t)o->loop->id : 1 };
		sap_comm_allreduce(who, 2, SAP_COMM_I64, SAP_COMM_MIN);
		if (who[0] < 0 || who[0] != -who[1])
			o = NULL;
		if (o)
			run_shared(st, spec, &x, lo, red, o);
		else if (shape_of(spec, &why) == INDEPENDENT)
			run_dist_chunks(st, spec, &x, lo, hi, red, false, NULL);
		/* Not pairs over ranks: an anti-diagonal of a table is a
		 * few keys far apart, each invocation's holders and fetches
		 * a bit per element (an edit distance 60 times slower than
		 * in index order on every rank). */
		/* With hubs: between them, each hub's rank sending what all
		 * read after it (exec_hub_chunks), or whole (below). */
		else if ((dist_hubs = spans_apart(spec, r, lo, hi, false, &hubs)) &&
		         (!hubs.n || !ways_whole(&st->hubs, HUB_TRY))) {
			double t = sap_now();
			run_dist_chunks(st, spec, &x, lo, hi, red, true, &hubs);
			if (hubs.n) {
				st->reason = "between the few iterations that write what all read";
				ways_timed(&st->hubs, HUB_TRY, false, sap_now() - t);
			}
		}
		/* Hubs that only a rank's threads find apart (pair by
		 * pair), or hubs run so: every rank all of it as one rank
		 * of P x T threads would (run_hubs), so that partial sums
		 * combine as there.  Not keys apart pair by pair with no hub,
		 * whose plan's order is index order's result: whole at every
		 * invocation, an LU's row swap moved its matrix 800 times,
		 * 662 MB (helper LA2). */
		/* And a grid's rows and columns, whose hulls meet where
		 * their keys do not: no rank could send back the keys its
		 * chunks wrote by their hulls (helper KER's kernel matrix,
		 * mirrored, planned at a key per element: 4.8 s for 0.06). */
		/* Keys apart pair by pair with no hub, where the workers'
		 * results are one whatever iterations each runs (no inexact
		 * sum): whole in chunks or spread by a plan, timed, as a
		 * knapsack's row per item from the one before planned 49 times
		 * for 8 s over 2 ranks, 0.08 s in chunks (helper DP).  With a
		 * floating-point sum, whole always: a plan's groups are not a
		 * rank's threads' chunks, and 2 x 1 summed otherwise than 1 x 2
		 * (helper WAYS). */
		else if (dist_hubs || ((pairs = spans_apart(spec, r, lo, hi, true, &hubs)) &&
		                       (hubs.n || hubs.grid || (r && !r->exact) ||
		                        (pairs_fit(spec, r) && ways_whole(&st->pairs, HUB_TRY))))) {
			double t = sap_now();
			bool timed = !dist_hubs && !hubs.n && !hubs.grid && (!r || r->exact);
			unpart_all(spec);
			sap_whole_spec(spec, NULL, &st->traffic);
			x.V = x.T * sap_nranks();
			run_hubs(st, spec, &x, lo, hi, red, &hubs);
			st->whole_why = !dist_hubs && !timed ? "as one rank of all the workers runs it" :
			                sap_cfg.short_loops ? "as one rank of all the workers runs it, and "
			                                      "SAP_SHORT_LOOPS=whole" :
			                "as one rank of all the workers runs it, which ran faster";
			if (dist_hubs)
				ways_timed(&st->hubs, HUB_TRY, true, sap_now() - t);
			else if (timed)
				ways_timed(&st->pairs, HUB_TRY, true, sap_now() - t);
		}
		else if ((why = plan_unpaid(st, spec, lo, hi)))
			run_serial_ranks(st, spec, &x, lo, hi, red, why);
		else if (!pairs && planned_whole(st, spec, r)) {
			double t = sap_now();
			unpart_all(spec);
			sap_whole_spec(spec, NULL, &st->traffic);
			x.V = x.T * sap_nranks();
			run_planned(st, spec, &x, lo, hi, red);
			st->whole_why = sap_cfg.short_loops ? "as one rank of all the workers runs its plan, "
			                                      "and SAP_SHORT_LOOPS=whole" :
			                "as one rank of all the workers runs its plan, which ran faster";
			ways_timed(&st->planned, PLAN_TRY, true, sap_now() - t);
		} else if (pairs && !hubs.n && !hubs.grid && unit_strides(spec)) {
			/* Apart pair by pair, every key moving by one: spread
			 * in chunks, each rank fetching the ranges of keys its
			 * chunk touches (a stencil's guarded boundary reads, a
			 * row on from its writes, over a vector too large to go
			 * whole: planned at a key a element, 240 ms a step for
			 * 4 ms of body on 2 ranks). */
			double t = sap_now();
			run_dist_chunks(st, spec, &x, lo, hi, red, true, NULL);
			if (pairs_fit(spec, r))
				ways_timed(&st->pairs, HUB_TRY, false, sap_now() - t);
		} else {
			double t = sap_now();
			run_dist_planned(st, spec, &x, lo, hi, red);
			if (pairs && pairs_fit(spec, r))
				ways_timed(&st->pairs, HUB_TRY, false, sap_now() - t);
			else if (!pairs && planned_timed(st, spec, r))
				ways_timed(&st->planned, PLAN_TRY, false, sap_now() - t);
		}
	} else if (x.V == 1) {
		run_serial(st, &x, lo, hi, red, SAP_V_INDEX, NULL);
	} else {
		switch (shape_at(spec, r, lo, hi, &why)) {
		case UNKNOWN:
			run_serial(st, &x, lo, hi, red, SAP_V_SERIAL, why);
			break;
		case INDEPENDENT: {
			struct sap_loop_state *o = sap_plan_to_share(st, spec, r, lo, hi, x.V);
			/* Run whole on every rank (short invocations, or a
			 * reduction of floats), not in another loop's plan:
			 * run_shared runs a rank's share of the workers and
			 * combines over ranks, and a plan made over ranks holds
			 * only a rank's own groups' order and copies (the 9th
			 * invocation, the first run so, read garbage ids; a plan
			 * made whole gave a wrong sum, or a crash on 3 ranks).
			 * A shared plan's reductions are exact, so chunks give
			 * the same bits. */
			if (sap_nranks() > 1)
				o = NULL;
			if (o)
				run_shared(st, spec, &x, lo, red, o);
			else
				run_chunks(st, spec, &x, lo, hi, red);
			break;
		}
		case NEEDS_PLAN:
			if (spans_apart(spec, r, lo, hi, true, &hubs))
				run_hubs(st, spec, &x, lo, hi, red, &hubs);
			else if ((why = plan_unpaid(st, spec, lo, hi)))
				run_serial(st, &x, lo, hi, red, SAP_V_INDEX, why);
			else
				run_planned(st, spec, &x, lo, hi, red);
			break;
		}
	}
	st->last_lo = lo;
	st->last_hi = hi;
	if (spec->dds && !spec->serial)
		sap_plan_cost_warn(st, spec);
	if (spec->dds)
		stamp(spec);
	/* What this rank fetched or wrote and no longer holds goes. */
	for (int k = 0; spec->dds && sap_nranks() > 1 && k < spec->ndds; k++)
		if (spec->dds[k].dv)
			sap_dv_trim(spec->dds[k].dv);
	if (brief)
		brief_timed(st, brief_all, sap_now() - t_start);
}

/* A loop over a map's keys that writes another map only at its key, where
 * that map may lack some (check_keys): where it has every one, no write
 * inserts, and on one rank's threads the loop runs as one that keeps the
 * map's keys, with no plan (helper GEO: a per-cell count into a map
 * holding every cell was planned, and a kept maximum's tie went
 * otherwise than the serial loop's).  Then *sc, a copy of spec whose
 * DDSs, *dd to free, say so. */
static const sap_async_spec *keys_there(const sap_async_spec *spec, int64_t lo, int64_t hi,
                                        sap_async_spec *sc, sap_dds **dd)
{
	*dd = NULL;
	/* One rank's threads only: over ranks, a loop over one map's keys
	 * runs each where that map holds it, which is not where the other
	 * map, parted, holds it (helpers U22, APR: stale reads after, and
	 * broadcasts that no longer matched). */
	if (!spec->dds || lo >= hi || sap_threads() == 1 || sap_nranks() > 1)
		return spec;
	const sap_dvec *keys = keys_vector(spec, lo, hi);
	if (!keys || keys->part_only || keys->holder ||
	    (keys->keys_of->kk == SAP_K_STRING ? keys->elsize != sizeof(sap_str) :
	     keys->elsize != 8 && keys->elsize != 4))
		return spec;
	bool str = keys->keys_of->kk == SAP_K_STRING;
	int any = 0, all = 1;
	for (int k = 0; k < spec->ndds && all; k++) {
		const sap_dds *d = &spec->dds[k];
		if (!d->dm || !d->at_key || !d->check_keys || d->keeps_keys || d->accumulate ||
		    !(d->mode & SAP_WRITE))
			continue;
		if ((d->dm->kk == SAP_K_STRING) != str || d->dm->multi) {
			all = 0;
			break;
		}
		bool wide = d->dm->kk == SAP_K_LONG;
		for (int64_t i = lo; str && i < hi && all; i++)
			all = sap_dm_find(d->dm, (const sap_str *)keys->data + i) != NULL;
		for (int64_t i = lo; !str && i < hi && all; i++) {
			int64_t key = keys->elsize == 8 ? ((const int64_t *)keys->data)[i] :
			              ((const int32_t *)keys->data)[i];
			int32_t k32 = (int32_t)key;
			if (!wide && k32 != key) {
				all = 0;
				break;
			}
			all = sap_dm_find_int(d->dm, key, wide) != NULL;
		}
		any = 1;
	}
	if (!any || !all)
		return spec;
	*dd = sap_xmalloc((size_t)spec->ndds * sizeof **dd);
	memcpy(*dd, spec->dds, (size_t)spec->ndds * sizeof **dd);
	for (int k = 0; k < spec->ndds; k++)
		if ((*dd)[k].dm && (*dd)[k].at_key && (*dd)[k].check_keys && !(*dd)[k].accumulate &&
		    ((*dd)[k].mode & SAP_WRITE))
			(*dd)[k].keeps_keys = true;
	*sc = *spec;
	sc->dds = *dd;
	return sc;
}

void sap_async_for(sap_loop *L, const sap_async_spec *spec, int64_t lo, int64_t hi,
                   void *env, sap_body_fn body, const sap_reduce *r, void *red)
{
	sap_print_settle();
	/* No iterations, said once for all below (an end of NaN, at
	 * INT64_MIN: sap_for_end). */
	if (hi < lo)
		hi = lo;
	atomic_fetch_add(&sap_loops_running, 1);
	sap_async_spec sc;
	sap_dds *dd;
	spec = keys_there(spec, lo, hi, &sc, &dd);
	sap_sums sums;
	bool chose = sap_sums_choose(&sums, L, &spec, &r, lo, hi);
	async_for(L, spec, lo, hi, env, body, r, red);
	if (chose)
		sap_sums_free(&sums, L);
	free(dd);
	atomic_fetch_sub(&sap_loops_running, 1);
}
