/* verdict.c: what the access analysis concludes about each parallel loop.
 *
 * Runs the stages over one loop (walk, taint, slice) and decides its
 * verdict: chunks, a plan without reconnaissance, reconnaissance once or
 * every invocation, serial or rejected.  Then the questions the emitter
 * asks about a loop's accesses (reads of the iteration's own element,
 * accesses at a map loop's key), the dvectors held in parts, and
 * acc_program, the entry point for the whole program.
 */
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/* ---- verdicts ---- */

bool acc_same_terms(Vec *x, Vec *y)
{
	if (x->n != y->n)
		return false;
	for (int i = 0; i < x->n; i++) {
		AffTerm *a = x->v[i], *b = y->v[i];
		if (a->k != b->k || (a->inv != b->inv &&
		    (!a->inv || !b->inv || strcmp(acc_key_id(a->inv), acc_key_id(b->inv)))))
			return false;
	}
	return true;
}

bool acc_const_nonzero(Vec *a)
{
	int64_t k = 0;
	for (int i = 0; i < a->n; i++) {
		AffTerm *t = a->v[i];
		if (t->inv || __builtin_add_overflow(k, t->k, &k))
			return false;
	}
	return k != 0;
}

/* Does e read the driver variable v? */
static bool reads_var(Node *e, Sym *v)
{
	Vec r = {0};
	acc_driver_reads(e, &r);
	for (int i = 0; i < r.n; i++)
		if (r.v[i] == v)
			return true;
	return false;
}


/* The driver variables the slice just built reads. */
static void slice_driver_reads(Vec *all)
{
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		if (!u->included)
			continue;
		Node *n = u->node;
		acc_driver_reads(n->kind == N_VAR ? n->init : n->kind == N_EXPR ? n->lhs :
		                 u->is_step ? n->step : n->cond, all);
	}
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (a->recorded)
			acc_driver_reads(a->key, all);
	}
	for (int i = 0; i < acc_ctls.n; i++) {
		Ctl *c = acc_ctls.v[i];
		if (c->included && (c->taint || c->over)) {
			acc_driver_reads(c->guard, all);
			acc_driver_reads(c->skip, all);
		}
	}
}

/* A sync for's slice reading a reduce variable, whose value is each
 * worker's own partial one: its keys cannot be known, so the vector
 * takes the dense path. */
static void sync_reduce_read(void)
{
	Vec all = {0};
	slice_driver_reads(&all);
	for (int i = 0; i < all.n && !acc_sync_reject; i++)
		if (acc_is_reduce(all.v[i]))
			acc_sync_reject = format("a key depends on the reduce variable '%s', whose value "
			                         "differs from worker to worker while the loop runs",
			                         ((Sym *)all.v[i])->name);
}

static void decide(void)
{
	if (acc_li->verdict == VD_REJECTED)
		return;
	/* Accumulated DDSs are only added to; relaxed ones also read. */
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (!a->accumulate)
			continue;
		bool relaxed = acc_is_relaxed(acc_li, a->dds);
		if (relaxed && a->mode == ACC_READ)
			continue;
		/* D[k] -= 1.5 into a long: truncated at each step serially,
		 * once a worker's copy in parallel. */
		Node *e = a->unit && a->unit->kind == N_EXPR ? a->unit->lhs : NULL;
		if (e && e->kind == N_ASSIGN && (e->op == TK_PLUS || e->op == TK_MINUS) &&
		    ty_is_int(e->lhs->ty) && ty_is_float(e->rhs->ty)) {
			acc_reject(e, format("'%s' holds integers, and adding a fractional value truncates at "
			                     "every step, which the workers' copies, added up once, do not "
			                     "repeat: convert the value, int(...), or make the elements "
			                     "doubles", a->dds->name), NULL, NULL);
			return;
		}
		/* (a long into ints: checked where the copies add up) */
		if (acc_adds_to(a))
			sema_note_narrow(acc_li, e, a->dds);
		if (acc_adds_only(a))
			continue;
		const char *d = a->dds->name;
		/* What the body does instead, in its words. */
		const char *did = a->at->kind == N_CALL && a->at->builtin == B_INSERT ? "insert keys" :
		                  a->at->kind == N_CALL && a->at->builtin == B_ERASE ? "erase keys" :
		                  "assign them";
		if (relaxed)
			acc_reject(a->at, format("'%s' is relaxed in this loop, so the body may only read its "
			                         "elements and add to them ('%s[k] += x', '-=', '++', '--'), not "
			                         "%s", d, d, did), NULL, NULL);
		else if (a->mode == ACC_READ && a->dds->ty->kind == TY_DVEC)
			acc_reject(a->at, format("'%s' is accumulated by this loop, so the body may only add to "
			                         "its elements ('%s[k] += x', '-=', '++', '--'), not read them; to "
			                         "read them as of the start of the round plus this worker's own "
			                         "updates, use relaxed(+: %s)", d, d, d), NULL, NULL);
		else if (a->mode == ACC_READ)
			acc_reject(a->at, format("'%s' is accumulated by this loop, so the body may only add to "
			                         "its elements ('%s[k] += x', '-=', '++', '--'), not read them "
			                         "(relaxed, which reads them, takes dvectors only)", d, d), NULL,
			           NULL);
		else
			acc_reject(a->at, format("'%s' is accumulated by this loop, so the body may only add to its "
			                         "elements ('%s[k] += x', '-=', '++', '--'), not %s", d, d, did),
			           NULL, NULL);
		return;
	}
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		/* m[k] = v inserts only a missing k: the runtime checks the
		 * keys the slice records, and runs the loop serially when
		 * one is missing (sap_rec_has). */
		if (a->structural && !a->accumulate && !acc_check_insert(a)) {
			bool erase = a->at->kind == N_CALL && a->at->builtin == B_ERASE;
			/* A write the slice does not record: at a constant key. */
			const char *way = a->may_insert && !a->dynamic ?
			                  format("; every iteration that writes %s writes %s[%s], which may be "
			                         "missing", a->dds->name, a->dds->name, acc_expr_str(a->key)) : "";
			acc_li->verdict = VD_SERIAL;
			acc_li->has_slice = false;
			acc_li->reason = format("the body %s %s, and a map's structure cannot change in "
			                        "parallel%s", erase ? "erases keys of" : "inserts keys into",
			                        a->dds->name, way);
			acc_li->reason_at = a->at;
			return;
		}
	}
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (acc_const_write(a)) {
			acc_li->verdict = VD_SERIAL;
			acc_li->has_slice = false;
			acc_li->reason = format("every iteration that writes %s writes %s[%s]", a->dds->name,
			                        a->dds->name, acc_expr_str(a->key));
			acc_li->reason_at = a->at;
			/* And the other DDSs so written: naming one, then
			 * the next once that one is relaxed, took a run each. */
			for (int j = i + 1; j < acc_li->accesses.n; j++) {
				Access *b = acc_li->accesses.v[j];
				bool named = b->dds == a->dds;
				for (int q = i + 1; q < j && !named; q++)
					named = ((Access *)acc_li->accesses.v[q])->dds == b->dds &&
					        acc_const_write(acc_li->accesses.v[q]);
				if (acc_const_write(b) && !named)
					acc_li->reason = format("%s; those that write %s, %s[%s]", acc_li->reason,
					                        b->dds->name, b->dds->name, acc_expr_str(b->key));
			}
			return;
		}
	}
	bool any_write = false;
	for (int i = 0; i < acc_li->dds.n; i++)
		any_write |= acc_written(acc_li->dds.v[i]);
	if (!any_write) {
		acc_li->verdict = VD_NOWRITE;
		return;
	}
	if (acc_li->has_slice) {
		acc_li->slice_rng = false;
		for (int i = 0; i < acc_units.n; i++) {
			Unit *u = acc_units.v[i];
			Node *e = u->node->kind == N_VAR ? u->node :
			          u->node->kind == N_EXPR ? u->node->lhs : NULL;
			if (u->included && e && acc_has_rand(e->kind == N_VAR ? e->init : e))
				acc_li->slice_rng = true;
			if (u->included && !e && acc_has_rand(u->is_step ? u->node->step : u->node->cond))
				acc_li->slice_rng = true;
		}
		/* h[rand_int(n)]: the slice draws in the key itself. */
		for (int i = 0; i < acc_li->accesses.n; i++) {
			Access *a = acc_li->accesses.v[i];
			if (a->recorded && acc_has_rand(a->key))
				acc_li->slice_rng = true;
		}
		for (int i = 0; i < acc_ctls.n; i++) {
			Ctl *c = acc_ctls.v[i];
			if (c->included && (acc_has_rand(c->guard) || acc_has_rand(c->skip)))
				acc_li->slice_rng = true;
		}
		/* Driver variables the slice reads may change between
		 * invocations, which the runtime's cache does not see; a reduce
		 * variable among them, any of them, has no value to read. */
		Vec all = {0};
		slice_driver_reads(&all);
		acc_li->slice_var = all.n ? all.v[0] : NULL;
		for (int i = 0; i < all.n; i++)
			if (acc_is_reduce(all.v[i])) {
				acc_li->slice_var = all.v[i];
				break;
			}
		if (acc_li->slice_var && acc_is_reduce(acc_li->slice_var)) {
			/* At the recorded key that reads it, or else at the first
			 * statement of the slice that does. */
			Node *at = NULL;
			const char *what = "a key the loop must know in advance";
			for (int i = 0; i < acc_li->accesses.n && !at; i++) {
				Access *a = acc_li->accesses.v[i];
				if (a->recorded && reads_var(a->key, acc_li->slice_var)) {
					at = acc_leftmost(a->key);
					what = format("the key of %s[%s]", a->dds->name, acc_expr_str(a->key));
				}
			}
			for (int i = 0; i < acc_units.n && !at; i++) {
				Unit *u = acc_units.v[i];
				if (u->included && reads_var(acc_unit_expr(u), acc_li->slice_var))
					at = u->node;
			}
			acc_reject(at ? at : acc_loop, format("%s depends on the reduce variable '%s', whose value "
			                                      "differs from worker to worker while the loop runs: a "
			                                      "slice cannot know it in advance", what,
			                                      acc_li->slice_var->name), NULL, NULL);
			return;
		}
		/* Numbers the runtime compares: the plan stays while they do
		 * (a bound n = len(X) is assigned once and never changes); and
		 * lists of numbers or of structs of them, by their bytes (a
		 * tree's nodes a helper walks, which a driver loop built once:
		 * helper FN's boosting pass planned again every invocation). */
		bool scalars = all.n > 0;
		for (int i = 0; i < all.n; i++) {
			Type *t = ((Sym *)all.v[i])->ty;
			scalars &= ty_is_scalar(t) || (t->kind == TY_LIST && ty_is_flat(t->elem));
		}
		acc_li->slice_vars = scalars ? all : (Vec){0};
		acc_li->verdict = acc_li->slice_rng || (acc_li->slice_var && !acc_li->slice_vars.n) ?
		                  VD_EACH : VD_ONCE;
		return;
	}
	/* All static: independent when each written DDS is accessed through
	 * one injective affine key. */
	for (int d = 0; d < acc_li->dds.n; d++) {
		if (!acc_written(acc_li->dds.v[d]))
			continue;
		Access *first = NULL;
		for (int i = 0; i < acc_li->accesses.n; i++) {
			Access *a = acc_li->accesses.v[i];
			if (a->ddsi != d)
				continue;
			if (!first) {
				first = a;
				if (!acc_const_nonzero(&a->aterms)) {
					acc_li->verdict = VD_STATIC;
					return;
				}
			} else if (!acc_same_terms(&a->aterms, &first->aterms) ||
			           !acc_same_terms(&a->bterms, &first->bterms)) {
				acc_li->verdict = VD_STATIC;
				return;
			}
		}
	}
	acc_li->verdict = VD_INDEPENDENT;
}

/* Why a driver variable d read by the slice, in a condition or in a key,
 * leaves the loop with no read slice. */
static const char *no_read_slice(const Sym *d, bool cond)
{
	return format("%s on the %s %s, %s", cond ? "whether an element is read depends" :
	              "a key depends", acc_is_reduce((Sym *)d) ? "reduce variable" : "driver variable",
	              d->name, acc_is_reduce((Sym *)d) ? "whose value differs from worker to worker "
	              "while the loop runs" : cond ? "which may change between invocations" :
	              "which may change between invocations and is no number the runtime can "
	              "compare");
}

/* A loop that writes nothing, or only at keys of its own iterations, may
 * still read elements of a dvector that an async loop over ranks left
 * where it wrote them (see runtime/dds/hold.c).
 * A slice recording its dynamic reads tells each rank which of those
 * elements to fetch, instead of all.  Only where a slice can compute
 * every such key exactly, from the iteration and data alone. */
static void try_read_slice(void)
{
	acc_soft = true;
	acc_soft_failed = false;
	acc_build_slice();
	acc_soft = false;
	bool ok = acc_li->has_slice && !acc_soft_failed;
	acc_li->reads_why = !acc_li->has_slice ? NULL : ok ? NULL : "a slice cannot compute every key";
	for (int i = 0; ok && i < acc_units.n + acc_li->accesses.n; i++) {
		Node *e = NULL;
		bool cond = false;
		if (i < acc_units.n) {
			Unit *u = acc_units.v[i];
			Node *n = u->node;
			if (u->included)
				e = n->kind == N_VAR ? n->init : n->kind == N_EXPR ? n->lhs :
				    u->is_step ? n->step : n->cond;
			cond = e && e == n->cond;
		} else {
			Access *a = acc_li->accesses.v[i - acc_units.n];
			if (a->recorded)
				e = a->key;
		}
		Sym *d = e ? acc_driver_read(e) : NULL;
		for (int k = 0; !d && i == 0 && k < acc_ctls.n; k++) {
			Ctl *c = acc_ctls.v[k];
			if (c->included && (c->taint || c->over) && !(d = acc_driver_read(c->guard)))
				d = acc_driver_read(c->skip);
			cond = d != NULL;
		}
		if (e && acc_has_rand(e)) {
			ok = false;
			acc_li->reads_why = "a key depends on random numbers, which differ from one invocation "
			                    "to the next";
		} else if (d && (cond || !ty_is_scalar(d->ty) || acc_is_reduce(d))) {
			/* A number in a key is compared at each invocation (the
			 * fetch list is made again when it changes).  One that
			 * decides whether or how often elements are read (an
			 * inner loop to ne over every entity) would have the
			 * slice record the whole vector, key by key, where
			 * making it whole costs one copy; a reduce variable is
			 * each worker's own while the loop runs. */
			ok = false;
			acc_li->reads_why = no_read_slice(d, cond);
		}
	}
	if (ok) {
		Vec all = {0};
		slice_driver_reads(&all);
		for (int i = 0; i < all.n && ok; i++) {
			Sym *d = all.v[i];
			if (!ty_is_scalar(d->ty) || acc_is_reduce(d)) {
				ok = false;
				acc_li->reads_why = no_read_slice(d, false);
			}
		}
		acc_li->slice_vars = ok ? all : (Vec){0};
	}
	acc_li->has_slice = false;
	acc_li->has_reads = ok;
	if (!ok) {
		for (int i = 0; i < acc_li->accesses.n; i++)
			((Access *)acc_li->accesses.v[i])->recorded = false;
		acc_li->slice_reads.n = acc_li->slice_moving.n = 0;
	}
}

/* Recorded, itself or by the access its record is folded into, whose
 * key it has. */
static bool is_recorded(const Access *a)
{
	return a->recorded || (a->folded_into && a->folded_into->recorded);
}

static bool every_access(LoopInfo *l, Sym *d, bool (*ok)(const Access *));

bool acc_dv_recorded(LoopInfo *l, Sym *d)
{
	return l->has_reads && d->ty->kind == TY_DVEC && every_access(l, d, is_recorded);
}

int acc_dds_mode_of(LoopInfo *l, Sym *d)
{
	for (int i = 0; i < l->dds.n; i++)
		if (l->dds.v[i] == d)
			return (int)(intptr_t)l->dds_mode.v[i];
	return 0;
}

static int collect_rand(Node *n, void *calls)
{
	if (n->kind == N_CALL && (n->builtin == B_RAND || n->builtin == B_RAND_INT ||
	                          n->builtin == B_RAND_NORMAL))
		vec_push(calls, n);
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	const Node *x = *(Node *const *)a, *y = *(Node *const *)b;
	return (x->off > y->off) - (x->off < y->off);
}

/* Each call of rand, rand_int or rand_normal in the body is a site,
 * numbered from 1 in source order (sap(7)): its draws are the site's. */
static void number_rand_sites(Node *l)
{
	Vec calls = {0};
	emit_any_node(l->body, collect_rand, &calls);
	if (calls.n)
		qsort(calls.v, (size_t)calls.n, sizeof *calls.v, by_offset);
	for (int i = 0; i < calls.n; i++)
		((Node *)calls.v[i])->rsite = i + 1;
	acc_li->nrand = calls.n;
}

/* The body's units, controls, jumps and accesses, afresh. */
static void walk_loop(Node *l)
{
	acc_loop = l;
	acc_li = l->li;
	acc_units.n = acc_ctls.n = acc_jumps.n = acc_ctrl.n = acc_branch.n = 0;
	acc_li->accesses.n = acc_li->dds.n = acc_li->dds_mode.n = acc_li->slice_reads.n = 0;
	acc_li->slice_moving.n = 0;
	acc_li->whole_dds.n = 0;
	number_rand_sites(l);
	acc_li->nforks = 0;
	acc_li->has_slice = acc_li->has_reads = false;
	/* A sync for's variable is an element, not an index: no key of it
	 * is static. */
	acc_iv = l->kind == N_ASYNC ? l->init->sym : NULL;
	Unit top = {0};
	acc_cur = &top;
	acc_walk_stmt(l->body);
	acc_cur = NULL;
	/* A slice built before marked locals it needed, and tainted some. */
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		for (int k = 0; k < u->defs.n; k++) {
			((Sym *)u->defs.v[k])->needed = false;
			((Sym *)u->defs.v[k])->slice_decl = false;
			((Sym *)u->defs.v[k])->taint = NULL;
		}
		for (int k = 0; k < u->uses.n; k++) {
			((Sym *)u->uses.v[k])->needed = false;
			((Sym *)u->uses.v[k])->taint = NULL;
		}
	}
}

static bool dv_of_numbers(Sym *d)
{
	return d->ty->kind == TY_DVEC && ty_is_numeric(d->ty->elem);
}

/* The written dvectors of ints a sync for stores longs in (D[k] += n, for
 * a long n): their merges add up the workers' changes checked for range,
 * as the body's stores are (sema_note_narrow), where int sums would
 * wrap. */
static void sync_narrow(void)
{
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		Node *e = a->unit && a->unit->kind == N_EXPR ? a->unit->lhs : NULL;
		if (!(a->mode & ACC_WRITE) || !e || e->kind != N_ASSIGN ||
		    a->dds->ty->kind != TY_DVEC)
			continue;
		Node *b = e->lhs;
		while ((b->kind == N_INDEX && !acc_is_dds(b->lhs)) || b->kind == N_FIELD)
			b = b->lhs;
		if (b == a->at)
			sema_note_narrow(acc_li, e, a->dds);
	}
}

/* Which written vectors of a sync for take the sparse path: those whose
 * every access a slice can record, when recon is on.  Each is tried
 * alone, so that one vector's unknowable keys leave the others sparse;
 * then the slice is built for all of those together. */
static void sync_paths(Node *l)
{
	Vec cand = {0};
	acc_li->sync_why.n = 0;
	for (int i = 0; i < acc_li->dds.n; i++) {
		vec_push(&acc_li->sync_why, NULL);
		Sym *d = acc_li->dds.v[i];
		if (!((intptr_t)acc_li->dds_mode.v[i] & ACC_WRITE))
			continue;
		if (!dv_of_numbers(d))
			return;         /* the loop runs whole */
		vec_push(&cand, d);
	}
	const char *all = !acc_li->recon ? "recon = off" :
	                  acc_li->model == 1 ? "under ssp a rank applies the others' changes as they "
	                                       "arrive, which needs them whole" : NULL;
	for (int c = 0; c < cand.n; c++) {
		int i = 0;
		while (acc_li->dds.v[i] != cand.v[c])
			i++;
		if (all) {
			acc_li->sync_why.v[i] = (void *)all;
			continue;
		}
		/* A step's elements are the worker's copy of them: the sparse
		 * path, which fetches and sends recorded rows, leaves them. */
		if (cand.v[c] == l->lhs->sym) {
			acc_li->sync_why.v[i] = (void *)"the loop runs over it";
			continue;
		}
		bool whole = false;
		for (int k = 0; k < acc_li->whole_dds.n; k++)
			whole |= acc_li->whole_dds.v[k] == cand.v[c];
		if (whole) {
			acc_li->sync_why.v[i] = (void *)"gemv, ger or gemm uses every row of it";
			continue;
		}
		/* f(old, 0, workers) need not be old (a decay): f applies to
		 * every element, which the sparse path, merging the rows a
		 * step touched, would skip. */
		bool fn = false;
		for (int k = 0; k < acc_li->merge_dds.n; k++)
			fn |= acc_li->merge_dds.v[k] == cand.v[c] &&
			      ((Node *)acc_li->merge_how.v[k])->rhs->sym;
		if (fn) {
			acc_li->sync_why.v[i] = (void *)"a merge function applies to every element at "
			                                "every step, also to those no step touches";
			continue;
		}
		walk_loop(l);
		acc_compute_taint();
		acc_sync_only.n = 0;
		vec_push(&acc_sync_only, cand.v[c]);
		acc_sync_reject = NULL;
		acc_build_slice();
		sync_reduce_read();
		acc_li->sync_why.v[i] = (void *)acc_sync_reject;
	}
	Vec why = acc_li->sync_why;
	walk_loop(l);
	acc_li->sync_why = why;
	acc_sync_only.n = 0;
	for (int c = 0; c < cand.n; c++) {
		int i = 0;
		while (acc_li->dds.v[i] != cand.v[c])
			i++;
		if (!acc_li->sync_why.v[i])
			vec_push(&acc_sync_only, cand.v[c]);
	}
	if (!acc_sync_only.n)
		return;
	acc_compute_taint();
	acc_sync_reject = NULL;
	acc_build_slice();
	if (acc_sync_reject) {
		fprintf(stderr, "sapc: internal error: a sync for slice fails together: %s\n",
		        acc_sync_reject);
		abort();
	}
}

/* if (b < 0) h[0] += 1; else h[b] += 1: a constant key written under an
 * if the slice can evaluate is the slice's to record, under that if, not
 * an affine form's, which every iteration has ("every iteration that
 * writes h writes h[0]": serialized).  Under conditions it cannot
 * evaluate the slice would record it for every iteration anyway. */
static void guarded_constant_keys(void)
{
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (a->dynamic || a->aterms.n || !(a->mode & ACC_WRITE) || a->accumulate ||
		    a->structural)
			continue;
		for (int k = 0; k < a->ctrl.n && !a->dynamic; k++) {
			Node *c = a->ctrl.v[k];
			a->dynamic = c->kind == N_IF && !((Ctl *)c->aux)->taint;
		}
		if (a->dynamic)
			a->bterms.n = 0;
	}
}

/* m[i] = v on a map, i the loop variable: an affine key, but whether it
 * inserts depends on the map's keys, which only the runtime knows; the
 * slice records it, so that the runtime can check. */
static void recorded_map_stores(void)
{
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (a->may_insert && !a->dynamic && a->aterms.n) {
			a->dynamic = true;
			a->aterms.n = a->bterms.n = 0;
		}
	}
}

static void analyse(Node *l)
{
	walk_loop(l);
	acc_li->verdict = 0;
	acc_li->reads_why = NULL;
	acc_li->relax_hint = NULL;
	acc_li->relax_note = NULL;
	acc_li->rows_hint = NULL;
	acc_li->relax_ternary = false;
	if (l->kind == N_SYNC) {
		acc_li->verdict = VD_SYNC;
		for (int i = 0; i < acc_li->merge_dds.n; i++)
			if (!(acc_dds_mode_of(acc_li, acc_li->merge_dds.v[i]) & ACC_WRITE)) {
				Node *w = acc_li->merge_how.v[i];
				acc_li->verdict = VD_REJECTED;
				acc_li->reason_at = w;
				acc_li->reason = format("merge(%s): the loop's body does not write '%s', so "
				                        "there is nothing to merge",
				                        ((Sym *)acc_li->merge_dds.v[i])->name,
				                        ((Sym *)acc_li->merge_dds.v[i])->name);
			}
		if (acc_li->verdict == VD_SYNC) {
			sync_paths(l);
			sync_narrow();
		}
		return;
	}
	/* A clause naming a DDS the body never adds to would give the
	 * runtime a buffer of no DDS of the loop's. */
	for (int k = 0; k < 2; k++) {
		Vec *v = k ? &acc_li->relax_syms : &acc_li->accum_syms;
		for (int i = 0; i < v->n; i++)
			if (!(acc_dds_mode_of(acc_li, v->v[i]) & ACC_WRITE)) {
				const char *d = ((Sym *)v->v[i])->name;
				acc_reject(l, format("%s(+: %s): the loop's body does not add to '%s', so there "
				                     "is nothing to %s; take it out of the clause",
				                     k ? "relaxed" : "accumulate", d, d,
				                     k ? "relax" : "accumulate"), NULL, NULL);
				return;
			}
	}
	acc_compute_taint();
	acc_li->nforks = 0;
	while (acc_choose_forks())
		acc_retaint();
	guarded_constant_keys();
	recorded_map_stores();
	acc_build_slice();
	acc_find_spans();
	decide();
	/* Owner computes (VD_INDEPENDENT) too: a matrix-vector product
	 * writes q[i] and reads p at the columns of row i. */
	if (acc_li->verdict == VD_NOWRITE || acc_li->verdict == VD_INDEPENDENT)
		try_read_slice();
}

/* analyse, and when a key is rejected for reading a DDS that the loop
 * only reads and adds to, and the loop runs with that DDS relaxed, the
 * note says so. */
void acc_analyse_loop(Node *l)
{
	analyse(l);
	LoopInfo *L = l->li;
	if (L->verdict != VD_REJECTED || !L->relax_hint || !L->relax_note)
		return;
	const char *note = L->relax_note;
	/* Relaxing one may leave another in the way (a bandit's successes
	 * and failures, a mixture's counts): relax those too, while each
	 * rejection names one more to relax. */
	int n0 = L->relax_syms.n;
	vec_push(&L->relax_syms, L->relax_hint);
	analyse(l);
	for (int tries = 0; tries < 8 && L->verdict == VD_REJECTED && L->relax_hint &&
	                    L->relax_note; tries++) {
		bool have = false;
		for (int i = n0; i < L->relax_syms.n; i++)
			have |= L->relax_syms.v[i] == L->relax_hint;
		if (have)
			break;
		vec_push(&L->relax_syms, L->relax_hint);
		analyse(l);
	}
	bool runs = L->verdict != VD_REJECTED && L->verdict != VD_SERIAL;
	bool one_round = L->verdict == VD_NOWRITE || L->verdict == VD_INDEPENDENT;
	Vec names = {0};
	for (int i = n0; i < L->relax_syms.n; i++)
		vec_push(&names, (void *)((Sym *)L->relax_syms.v[i])->name);
	L->relax_syms.n = n0;
	analyse(l);
	if (runs && names.n > 1) {
		Buf list = {0};
		for (int i = 0; i < names.n; i++)
			buf_printf(&list, "%s%s", i ? ", " : "", (const char *)names.v[i]);
		const char *semi = strchr(note, ';');
		note = format("%.*s; the loop only reads %s and adds to them: declared relaxed(+: %s), it "
		              "runs in parallel, its reads of them seeing the values at the start of the "
		              "round plus this worker's own updates (stale by at most one round); or use "
		              "sync for, whose iterations may read stale values",
		              semi ? (int)(semi - note) : 0, note, acc_name_list(&names), list.s);
	}
	/* A helper's online k-means overshot its centroids P-fold so. */
	if (runs && one_round)
		note = format("%s; relaxed so, the loop has nothing else to plan and runs each "
		              "invocation as one round of contiguous chunks: a worker's reads miss the "
		              "other workers' updates of the whole invocation, which suits sums such as "
		              "gradients but not running means (c += (x - c) / n)", note);
	/* Written as an if, the loop stays exact: said first. */
	if (runs && L->relax_ternary) {
		const char *semi = strchr(note, ';');
		if (semi)
			note = format("%.*s; %s; or%s", (int)(semi - note), note, TERNARY_IF, semi + 1);
	}
	/* As rows, the loop stays exact too. */
	if (runs && L->rows_hint) {
		const char *semi = strchr(note, ';');
		if (semi)
			note = format("%.*s; %s; or%s", (int)(semi - note), note, L->rows_hint, semi + 1);
	}
	if (runs)
		L->note = note;
}

/* ---- reads of the iteration's own element ---- */

/* Is a an access of X[i], read or written, i the loop variable? */
static bool at_own(const Access *a)
{
	if (a->dynamic || a->aterms.n != 1)
		return false;
	const AffTerm *t = a->aterms.v[0];
	for (int k = 0; k < a->bterms.n; k++)
		if (((AffTerm *)a->bterms.v[k])->k != 0)
			return false;
	return t->k == 1 && !t->inv;
}

/* Is a a read of X[i]? */
static bool reads_own(const Access *a)
{
	return a->mode == ACC_READ && at_own(a);
}

bool acc_at_own(LoopInfo *l, Sym *d)
{
	return l->verdict != VD_SYNC && d->ty->kind == TY_DVEC && !acc_is_accum(l, d) &&
	       every_access(l, d, at_own);
}

/* Does l access d, and is every access of it ok? */
static bool every_access(LoopInfo *l, Sym *d, bool (*ok)(const Access *))
{
	bool any = false;
	for (int i = 0; i < l->accesses.n; i++) {
		Access *a = l->accesses.v[i];
		if (a->dds != d)
			continue;
		if (!ok(a))
			return false;
		any = true;
	}
	return any;
}

/* Is a the access of a map at the key of a loop over a map's keys, of
 * the map's key type? */
bool acc_at_loop_key(const Access *a)
{
	const Node *k = a->key;
	return k && k->kind == N_NAME && k->sym && k->sym->keys_of && k->sym->ty &&
	       a->dds->ty->key && k->sym->ty->kind == a->dds->ty->key->kind;
}

bool acc_at_key(LoopInfo *l, Sym *d)
{
	return l->verdict != VD_SYNC && d->ty->kind != TY_DVEC && every_access(l, d, acc_at_loop_key);
}

bool acc_reads_own(LoopInfo *l, Sym *d)
{
	return l->verdict != VD_SYNC && d->ty->kind == TY_DVEC && !acc_is_accum(l, d) &&
	       every_access(l, d, reads_own);
}

/* The constant c of a read at i + c, if it is one (|c| small enough
 * that the neighbours of a rank's elements are few). */
static bool read_near(const Access *a, int64_t *c)
{
	if (a->dynamic || a->mode != ACC_READ || a->aterms.n != 1)
		return false;
	const AffTerm *t = a->aterms.v[0];
	if (t->k != 1 || t->inv)
		return false;
	*c = 0;
	for (int k = 0; k < a->bterms.n; k++) {
		const AffTerm *b = a->bterms.v[k];
		if (b->inv)
			return false;
		*c += b->k;
	}
	return *c >= -1024 && *c <= 1024;
}

bool acc_reads_near(LoopInfo *l, Sym *d, int64_t *lo, int64_t *hi)
{
	if (l->verdict == VD_SYNC || d->ty->kind != TY_DVEC || acc_is_accum(l, d))
		return false;
	bool any = false;
	for (int i = 0; i < l->accesses.n; i++) {
		Access *a = l->accesses.v[i];
		int64_t c;
		if (a->dds != d)
			continue;
		if (!read_near(a, &c))
			return false;
		*lo = any && *lo < c ? *lo : c;
		*hi = any && *hi > c ? *hi : c;
		any = true;
	}
	return any;
}

static bool read_ranged(const Access *a)
{
	return a->mode == ACC_READ && (!a->dynamic || a->span);
}

bool acc_reads_ranged(LoopInfo *l, Sym *d)
{
	return l->verdict != VD_SYNC && d->ty->kind == TY_DVEC && !acc_is_accum(l, d) &&
	       every_access(l, d, read_ranged);
}

static bool is_static(const Access *a)
{
	return !a->dynamic;
}

bool acc_no_slice(LoopInfo *l, Sym *d)
{
	return l->verdict != VD_SYNC && every_access(l, d, is_static);
}

bool acc_by_index(LoopInfo *l, Sym *d)
{
	return (ty_is_flat(d->ty->elem) || ty_has_flat_list(d->ty->elem)) && acc_reads_own(l, d);
}

/* ---- dvectors held in parts ---- */

/* Is index node x, X[k] in loop l, a read of the iteration's own element
 * in a loop that each rank can run on its own part of X? */
static bool own_element(Node *x, Node *l)
{
	LoopInfo *L = l ? l->li : NULL;
	/* Loops that run whole on every rank need every element. */
	if (!L || l->kind != N_ASYNC || L->verdict == VD_SERIAL || L->verdict == VD_REJECTED ||
	    L->accum_syms.n || L->relax_syms.n)
		return false;
	for (int i = 0; i < L->reduce_syms.n; i++)
		if (!ty_is_flat(((Sym *)L->reduce_syms.v[i])->ty))
			return false;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (a->at == x)
			return reads_own(a);
	}
	return false;
}

/* Clear `parted` on every dvector that node n, inside loop l (or driver
 * code or a function when NULL), uses other than as its own element,
 * len(X) or save(X, ...). */
static void part_walk(Node *n, Node *l)
{
	for (; n; n = n->next) {
		Node *inner = n->kind == N_ASYNC || n->kind == N_SYNC ? n : l;
		if (n->kind == N_INDEX && n->lhs->kind == N_NAME && n->lhs->sym &&
		    n->lhs->sym->parted) {
			if (!own_element(n, l))
				n->lhs->sym->parted = false;
			part_walk(n->rhs, l);
			continue;
		}
		if (n->kind == N_CALL && (n->builtin == B_LEN || n->builtin == B_SAVE) && n->args &&
		    n->args->kind == N_NAME) {
			part_walk(n->args->next, l);
			continue;
		}
		if (n->kind == N_NAME && n->sym && n->sym->parted)
			n->sym->parted = false;
		Node *kids[] = { n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->size,
		                 n->args, n->clauses };
		for (size_t k = 0; k < sizeof kids / sizeof *kids; k++)
			part_walk(kids[k], inner);
		part_walk(n->body, inner);
	}
}

static void part_candidates(Node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_VAR && n->sym && n->sym->ty->kind == TY_DVEC &&
		    ty_is_flat(n->sym->ty->elem) && n->init && n->init->kind == N_CALL &&
		    n->init->builtin == B_LOAD)
			n->sym->parted = true;
		Node *kids[] = { n->then, n->els, n->init, n->body, n->args };
		for (size_t k = 0; k < sizeof kids / sizeof *kids; k++)
			if (kids[k] && kids[k]->kind != N_CALL)
				part_candidates(kids[k]);
	}
}

/* A loop may follow the parts of one dvector only. */
static void part_one_home(Program *p)
{
	for (int i = 0; i < p->loops.n; i++) {
		LoopInfo *L = ((Node *)p->loops.v[i])->li;
		int homes = 0;
		for (int k = 0; k < L->dds.n; k++)
			homes += ((Sym *)L->dds.v[k])->parted;
		if (homes > 1)
			for (int k = 0; k < L->dds.n; k++)
				((Sym *)L->dds.v[k])->parted = false;
	}
}

static void partition(Program *p)
{
	part_candidates(p->items);
	part_walk(p->items, NULL);
	for (int i = 0; i < p->funcs.n; i++)
		part_walk(((Node *)p->funcs.v[i])->body, NULL);
	part_one_home(p);
}

/* ---- chains of iterations ---- */

/* Whether two invariants of keys are the same (NULL: the number 1). */
static bool same_inv(Node *a, Node *b)
{
	return a == b || (a && b && !strcmp(acc_key_id(a), acc_key_id(b)));
}

static bool number_of(const Node *x, int64_t *k)
{
	if (x->kind == N_INT) {
		*k = x->ival;
		return true;
	}
	if (x->has_cval && x->ty && ty_is_int(x->ty)) {
		*k = x->cval;
		return true;
	}
	return false;
}

/* v's terms with the numbers an invariant adds, takes away or is
 * multiplied by apart: n - 1 - i is i's -1, n and -1, so that its gap to
 * n - i is a number (helper U16: x[n - 1 - i] += x[n - i], a chain
 * -Wloop-carried missed), and 2 * s is s's 2, so that its gap to s is
 * s (helper DP: A[i + 2 * s] = A[i + s] ...). */
static Vec peeled(const Vec *v)
{
	Vec out = {0};
	for (int i = 0; i < v->n; i++) {
		const AffTerm *t = v->v[i];
		Node *e = t->inv;
		int64_t c = 0, m = 1, k;
		for (;;) {
			while (e && e->kind == N_CONV && e->ty && ty_is_int(e->ty) && e->lhs->ty &&
			       ty_is_int(e->lhs->ty))
				e = e->lhs;
			if (!e || e->kind != N_BINARY)
				break;
			/* m (x + k) = m x + m k */
			if ((e->op == TK_PLUS || e->op == TK_MINUS) && number_of(e->rhs, &k) &&
			    k != INT64_MIN && !__builtin_mul_overflow(m, e->op == TK_PLUS ? k : -k, &k) &&
			    !__builtin_add_overflow(c, k, &c))
				e = e->lhs;
			else if (e->op == TK_PLUS && number_of(e->lhs, &k) &&
			         !__builtin_mul_overflow(m, k, &k) && !__builtin_add_overflow(c, k, &c))
				e = e->rhs;
			else if (e->op == TK_STAR && number_of(e->rhs, &k) &&
			         !__builtin_mul_overflow(m, k, &m))
				e = e->lhs;
			else if (e->op == TK_STAR && number_of(e->lhs, &k) &&
			         !__builtin_mul_overflow(m, k, &m))
				e = e->rhs;
			else
				break;
		}
		int64_t kc, km;
		if ((c || m != 1) && e && !__builtin_mul_overflow(t->k, c, &kc) &&
		    !__builtin_mul_overflow(t->k, m, &km)) {
			if (c) {
				AffTerm *n = xcalloc(1, sizeof *n);
				*n = (AffTerm){ .k = kc, .inv = NULL };
				vec_push(&out, n);
			}
			AffTerm *x = xcalloc(1, sizeof *x);
			*x = (AffTerm){ .k = km, .inv = e };
			vec_push(&out, x);
		} else {
			vec_push(&out, (void *)t);
		}
	}
	return out;
}

/* The numbers of invariant inv in b's terms less those in a's, in *tot;
 * false if that overflows. */
static bool inv_total(const Vec *a, const Vec *b, Node *inv, int64_t *tot)
{
	*tot = 0;
	const Vec *both[2] = {a, b};
	for (int r = 0; r < 2; r++)
		for (int j = 0; j < both[r]->n; j++) {
			const AffTerm *u = both[r]->v[j];
			if (same_inv(inv, u->inv) && (r ? __builtin_add_overflow(*tot, u->k, tot) :
			                                  __builtin_sub_overflow(*tot, u->k, tot)))
				return false;
		}
	return true;
}

/* b - a, term by term, where it is a multiple of inv alone (a number
 * when inv is NULL): that multiple, in *sum. */
static bool gap_terms(const Vec *a, const Vec *b, Node *inv, int64_t *sum)
{
	*sum = 0;
	const Vec *both[2] = {a, b};
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < both[s]->n; i++) {
			const AffTerm *t = both[s]->v[i];
			int64_t tot;
			if (!inv_total(a, b, t->inv, &tot))
				return false;
			if (same_inv(t->inv, inv))
				*sum = tot;
			else if (tot)
				return false;
		}
	return true;
}

/* How many iterations after a's, b's key is the key of: d when b is at
 * K (i + d) + C, a at K i + C, K a number or an invariant times one.
 * Also for keys that are spans over the same inner loop, K i + C + j
 * (c[(i - 1) * n + j] beside c[i * n + j]: a row of a flat matrix). */
bool acc_iter_gap(const Access *a, const Access *b, int64_t *d)
{
	const Vec *aa, *ab, *ba, *bb;
	/* Spans over one range of inner loops of their own (a trellis's row
	 * t from row t - 1, written over j and read over i: helper DP) hold
	 * the same keys whatever the inner variables' names. */
	if (!a->dynamic && !b->dynamic) {
		aa = &a->aterms, ab = &a->bterms, ba = &b->aterms, bb = &b->bterms;
	} else if (a->span_var && b->span_var && a->span_le == b->span_le &&
	           acc_same_expr(a->span_lo, b->span_lo) && acc_same_expr(a->span_hi, b->span_hi)) {
		aa = &a->span_a, ab = &a->span_b, ba = &b->span_a, bb = &b->span_b;
	} else {
		return false;
	}
	if (aa->n == 0 || !acc_same_terms((Vec *)aa, (Vec *)ba))
		return false;
	const AffTerm *t = aa->v[0];
	int64_t sum;
	Vec pa = peeled(ab), pb = peeled(bb);
	if (aa->n == 1) {
		if (t->k == 0 || !gap_terms(&pa, &pb, t->inv, &sum) || sum % t->k)
			return false;
		*d = sum / t->k;
		return *d != 0;
	}
	/* A coefficient of several terms, w - 1 of i * w - i (a wavefront
	 * whose stride is a driver variable): b - a is d times it, term by
	 * term. */
	if (t->k == 0 || !inv_total(&pa, &pb, t->inv, &sum) || sum % t->k || !sum)
		return false;
	int64_t g = sum / t->k;
	const Vec *all[3] = {aa, &pa, &pb};
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < all[s]->n; i++) {
			const AffTerm *u = all[s]->v[i];
			int64_t coef = 0, want, tot;
			for (int j = 0; j < aa->n; j++) {
				const AffTerm *x = aa->v[j];
				if (same_inv(x->inv, u->inv) && __builtin_add_overflow(coef, x->k, &coef))
					return false;
			}
			if (__builtin_mul_overflow(g, coef, &want) || !inv_total(&pa, &pb, u->inv, &tot) ||
			    tot != want)
				return false;
		}
	*d = g;
	return true;
}

/* b's key as iteration i + e's key of a, where e is an invariant times a
 * number plus a number (x[i - off] beside x[i]: a scan's in-place step
 * by a driver variable): e as the program would write it, "i - off",
 * or NULL (acc_iter_gap's keys, with no number for a gap). */
static const char *iter_gap_sym(const Node *l, const Access *a, const Access *b, const char *iv,
                                int64_t *sign)
{
	if (a->dynamic || b->dynamic || a->aterms.n != 1 ||
	    !acc_same_terms((Vec *)&a->aterms, (Vec *)&b->aterms))
		return NULL;
	const AffTerm *t = a->aterms.v[0];
	if ((t->k != 1 && t->k != -1) || t->inv)
		return NULL;
	/* The difference b - a, by invariant: one invariant with a number,
	 * and a number. */
	Node *inv = NULL;
	int64_t k = 0, c = 0;
	Vec pa = peeled(&a->bterms), pb = peeled(&b->bterms);
	const Vec *both[2] = {&pa, &pb};
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < both[s]->n; i++) {
			const AffTerm *u = both[s]->v[i];
			int64_t tot;
			if (!inv_total(both[0], both[1], u->inv, &tot))
				return NULL;
			if (!tot)
				continue;
			if (!u->inv)
				c = tot;
			else if (!inv || same_inv(inv, u->inv))
				inv = u->inv, k = tot;
			else
				return NULL;
		}
	if (!inv || !k)
		return NULL;
	/* In iterations: x[n - 1 - i] moves down as i goes up. */
	if (t->k == -1 && (k == INT64_MIN || c == INT64_MIN))
		return NULL;
	if (t->k == -1)
		k = -k, c = -c;
	/* Not the other half of a vector the loop's bound long
	 * (buf[i + n] = buf[i] over [L, n), L >= 0): no two iterations that
	 * far apart, k n + c at least n - L, as no_iteration says of numbers. */
	const Node *lo = l ? l->init->init : NULL, *hi = l ? l->cond->rhs : NULL;
	int64_t L;
	if (lo && number_of(lo, &L) && L >= 0 && hi && same_inv(inv, (Node *)hi) &&
	    ((k >= 1 && c >= -L) || (k <= -1 && c <= L)))
		return NULL;
	*sign = k < 0 ? -1 : 1;
	const char *e = acc_expr_str(inv);
	const char *m = k == 1 || k == -1 ? format("%s", e) :
	                format("%lld * %s", (long long)(k < 0 ? -k : k), e);
	const char *s = format("%s %s %s", iv, k < 0 ? "-" : "+", m);
	return c ? format("%s %s %lld", s, c < 0 ? "-" : "+", (long long)(c < 0 ? -c : c)) : s;
}

bool acc_iter_gap_inv(const Access *a, const Access *b)
{
	int64_t sign;
	return iter_gap_sym(NULL, a, b, "i", &sign) != NULL;
}

/* Whether no two iterations of l are d apart: its bounds are constants
 * no more than d apart (X[i] = X[i + 4] over [0, 4)). */
static bool no_iteration(const Node *l, int64_t d)
{
	const Node *lo = l->init->init, *hi = l->cond->rhs;
	return lo && hi && lo->has_cval && hi->has_cval && (d < 0 ? -d : d) >= hi->cval - lo->cval;
}

/* An async for whose iteration i touches an element that iteration i + d
 * writes (x[i] = x[i - 1] + a[i], a running sum or average): it runs the
 * iterations in an order of its own, so the chain comes out as another
 * order's, which sap(7) allows and nobody porting a loop expects. */
static void warn_chain(Node *l)
{
	LoopInfo *L = l->li;
	if (l->kind != N_ASYNC || L->verdict == VD_REJECTED || L->verdict == VD_SERIAL)
		return;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *w = L->accesses.v[i];
		if (!(w->mode & ACC_WRITE) || w->accumulate || w->dds->ty->kind != TY_DVEC ||
		    acc_is_relaxed(L, w->dds) || acc_is_accum(L, w->dds))
			continue;
		for (int j = 0; j < L->accesses.n; j++) {
			Access *a = L->accesses.v[j];
			int64_t d;
			const char *iv = l->init->sym->name, *other = NULL;
			if (a == w || a->dds != w->dds)
				continue;
			if (acc_iter_gap(w, a, &d) && !no_iteration(l, d))
				other = format("%s %s %lld", iv, d < 0 ? "-" : "+", (long long)(d < 0 ? -d : d));
			/* By an invariant: a Hillis-Steele scan in place,
			 * x[i] += x[i - off] (taken as of a positive off). */
			else
				other = iter_gap_sym(l, w, a, iv, &d);
			if (!other)
				continue;
			bool wr = a->mode & ACC_WRITE;
			const char *so = wr ? "the element may keep another iteration's value than the "
			                      "serial loop's last" :
			                 d < 0 ? "a chain like this (a running sum or average) comes out as "
			                         "another order's" :
			                 "the read may see the value written after it in the serial loop";
			diag_warning(a->at->file, a->at->off, "loop-carried",
			             "iteration %s %s %s, which iteration %s writes%s: async for runs its "
			             "iterations in an order of its own, not index order on several "
			             "workers, so %s; write a plain for loop to keep index order", iv,
			             wr ? "writes" : "reads", acc_expr_str(a->at), other, wr ? " too" : "",
			             so);
			return;
		}
	}
}

/* The locals whose values may come from DDS d's: flow-insensitive, for
 * a warning. */
typedef struct SelfDep {
	Sym *d;
	Vec deps;               /* Sym * */
	bool grew;
} SelfDep;

static bool is_dep(const SelfDep *s, const Sym *x)
{
	for (int i = 0; i < s->deps.n; i++)
		if (s->deps.v[i] == x)
			return true;
	return false;
}

static int reads_dep(Node *n, void *arg)
{
	const SelfDep *s = arg;
	if (n->kind == N_INDEX && n->lhs->kind == N_NAME && n->lhs->sym == s->d)
		return 1;
	return n->kind == N_NAME && n->sym && is_dep(s, n->sym);
}

static int grow_deps(Node *n, void *arg)
{
	SelfDep *s = arg;
	Node *lhs = n->kind == N_ASSIGN ? n->lhs : NULL, *e = n->kind == N_VAR ? n->init :
	                                                   n->kind == N_ASSIGN ? n->rhs : NULL;
	/* p.x = ..., a[k] = ...: the local they are parts of. */
	while (lhs && (lhs->kind == N_FIELD || (lhs->kind == N_INDEX && !acc_is_dds(lhs->lhs))))
		lhs = lhs->lhs;
	Sym *x = n->kind == N_VAR ? n->sym : lhs && lhs->kind == N_NAME ? lhs->sym : NULL;
	if (x && e && !is_dep(s, x) && emit_any_node(e, reads_dep, s)) {
		vec_push(&s->deps, x);
		s->grew = true;
	}
	return 0;
}

/* A relaxed DDS of a loop that runs each invocation as one round (nothing
 * else to plan), whose additive update adds an amount computed from the
 * DDS itself: each worker corrects it from the invocation's start, and
 * the corrections add up.  A helper's global bias, g[0] += lr * (x[i] -
 * g[0]), went 3, 6, 0, 6 ... on 2 ranks and 9, -9, 27, -45 on 3, and an
 * SGD-MF with biases relaxed as --explain's hint offered went to NaN on
 * 3 ranks, with nothing said. */
/* Is every write of d in L at the iteration's own element, d[i]: then
 * no two workers add to one element, and nothing adds up. */
static bool writes_own(LoopInfo *L, Sym *d)
{
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (a->dds == d && (a->mode & ACC_WRITE) && !at_own(a))
			return false;
	}
	return true;
}

static void warn_relaxed_self(Node *l)
{
	LoopInfo *L = l->li;
	if (l->kind != N_ASYNC || (L->verdict != VD_NOWRITE && L->verdict != VD_INDEPENDENT))
		return;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (!acc_is_relaxed(L, a->dds) || !acc_adds_to(a) || a->unit->kind != N_EXPR ||
		    a->unit->lhs->kind != N_ASSIGN || writes_own(L, a->dds))
			continue;
		SelfDep s = { a->dds, {0}, true };
		while (s.grew) {
			s.grew = false;
			emit_any_node(l->body, grow_deps, &s);
		}
		if (!emit_any_node(a->unit->lhs->rhs, reads_dep, &s))
			continue;
		diag_warning(a->at->file, a->at->off, "relaxed-self",
		             "the amount added to %s is computed from %s itself, and relaxed so, the "
		             "loop runs each invocation as one round: every worker corrects %s from "
		             "the values at the start, and the workers' corrections add up, which can "
		             "overshoot by up to the number of workers (a running mean, a bias, a "
		             "large step), where relaxed suits sums such as counts; leave %s out of "
		             "relaxed, or use sync for with merge(%s) = avg", a->dds->name,
		             a->dds->name, a->dds->name, a->dds->name, a->dds->name);
		return;
	}
}

bool acc_program(Program *p, bool explain)
{
	acc_explain_mode = explain;
	/* Zeroed, not just emptied: between two programs in one process
	 * xfree_all() frees what the vectors held. */
	acc_units = acc_ctls = acc_jumps = acc_ctrl = acc_branch = acc_sync_only = acc_taints = (Vec){0};
	for (int i = 0; i < p->loops.n; i++) {
		Node *l = p->loops.v[i];
		acc_analyse_loop(l);
		if (l->li->verdict == VD_REJECTED && !explain) {
			diag_error(l->li->reason_at->file, l->li->reason_at->off, "%s", l->li->reason);
			if (l->li->note)
				diag_note(l->li->note_at->file, l->li->note_at->off, "%s", l->li->note);
			return false;
		}
		warn_chain(l);
		warn_relaxed_self(l);
	}
	partition(p);
	return true;
}

/* The DDSs a driver statement writes. */
/* The DDS whose element the path b (X[k], X[k].f[j], M[s]) writes into. */
static void written_path(Node *b, Vec *out)
{
	while (b->kind == N_INDEX || b->kind == N_FIELD) {
		if (b->kind == N_INDEX && b->lhs->kind == N_NAME && ty_is_dds(b->lhs->ty)) {
			acc_add_sym(out, b->lhs->sym);
			return;
		}
		b = b->lhs;
	}
}

static void written_in(Node *e, Vec *out)
{
	if (!e)
		return;
	switch (e->kind) {
	case N_ASSIGN: case N_INCDEC:
		written_path(e->lhs, out);
		break;
	case N_CALL:
		if ((e->builtin == B_INSERT || e->builtin == B_ERASE) && e->args->kind == N_NAME)
			acc_add_sym(out, e->args->sym);
		/* The built-ins that write their first argument: push(X[0], v)
		 * onto an element's list writes X (it kept its version, and a
		 * loop planned when the list was empty kept its plan). */
		if (e->builtin == B_PUSH || e->builtin == B_GEMV || e->builtin == B_GEMM)
			written_path(e->args, out);
		/* A C function may write an array argument (sap(7)): bump(W[5])
		 * in driver code writes W, and loops planned before it must not
		 * keep their copies of W. */
		if (!e->builtin && e->sym && e->sym->is_extern) {
			Node *p = e->sym->decl->args;
			for (Node *a = e->args; a && p; a = a->next, p = p->next)
				if (p->sym && p->sym->ty->kind == TY_ARRAY)
					written_path(a, out);
		}
		break;
	default:
		break;
	}
	written_in(e->lhs, out);
	written_in(e->rhs, out);
	written_in(e->cond, out);
	if (e->kind == N_COND) {
		written_in(e->then, out);
		written_in(e->els, out);
	}
	if (e->kind == N_CALL)
		for (Node *a = e->args; a; a = a->next)
			written_in(a, out);
}

void acc_dds_written_expr(Node *e, Vec *out)
{
	written_in(e, out);
}

void acc_dds_written(Node *s, Vec *out)
{
	if (s->kind == N_EXPR)
		written_in(s->lhs, out);
	else if (s->kind == N_VAR)
		written_in(s->init, out);
}
