/* explain.c: the report of sapc --explain.
 *
 * For every parallel loop: its verdict and the reason, each DDS access
 * with its mode and key, the slice that records the dynamic keys, how a
 * sync for merges what it writes, and which DDSs could be accumulated or
 * relaxed.  Apart from the analysis because it decides nothing: it prints
 * what access.c, slice.c and verdict.c recorded.
 */
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

static const char *mode_str(int m)
{
	return m == ACC_READ ? "read" : m == ACC_WRITE ? "write" : "read-write";
}

static int line_no(Node *n)
{
	int line, col;
	diag_linecol(n->file, n->off, &line, &col);
	return line;
}

static void put_line(FILE *out, Node *n, const char *tag)
{
	SrcFile *f = n->file;
	int line = line_no(n);
	const char *p = f->text + f->lines[line - 1];
	const char *e = strchr(p, '\n');
	int len = e ? (int)(e - p) : (int)strlen(p);
	fprintf(out, "    %4d | %.*s%s\n", line, len, p, tag);
}

static int cmp_node_off(const void *a, const void *b)
{
	const Node *x = *(Node *const *)a, *y = *(Node *const *)b;
	return (x->off > y->off) - (x->off < y->off);
}

/* Do a and b take the same invariants for the loop variable (the one
 * under if (i == k), the other not)? */
static bool same_eqs(const Access *a, const Access *b)
{
	if (a->eqs.n != b->eqs.n)
		return false;
	for (int i = 0; i < a->eqs.n; i++)
		if (!acc_same_expr(a->eqs.v[i], b->eqs.v[i]))
			return false;
	return true;
}

/* The row text of access a, "d[key]"; with the line of the first access
 * of its key when another access prints alike but names other locals (a
 * j declared in each of two blocks), so that the two keys get two rows.
 * Keys that print alike and name the same locals differ too where a
 * local changes between two records (Access.rekeyed): each gets the line
 * of the record it goes by (its own, the one it is folded into, or the
 * last before it). */
static char *access_text(LoopInfo *L, Access *a)
{
	char *text = format("%s[%s]", a->dds->name, acc_expr_str(a->key));
	Access *rep = NULL, *by = NULL, *first = NULL;
	bool other = false, rekeyed = false, before = true;
	int recs = 0;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *b = L->accesses.v[i];
		bool text = b->dds == a->dds && !strcmp(acc_expr_str(b->key), acc_expr_str(a->key));
		bool same = text && same_eqs(a, b);
		if (same && (b->key == a->key || acc_same_expr(b->key, a->key) ||
		             (acc_has_rand(b->key) && acc_has_rand(a->key)))) {
			if (!rep)
				rep = b;
			if (b->recorded) {
				recs++;
				rekeyed |= b->rekeyed;
				if (!first)
					first = b;
				if (before || b == a)
					by = b;
			}
		} else if (text) {
			other = true;
		}
		before = before && b != a;
	}
	if (recs > 1 && rekeyed)
		return format("%s (line %d)", text, line_no((a->folded_into ? a->folded_into :
		                                             by ? by : first)->at));
	if (other && a->eqs.n)
		return format("%s (%s = %s)", text, acc_expr_str(a->eqs.v[0]), a->iv->name);
	return other ? format("%s (line %d)", text, line_no(rep->at)) : text;
}

/* The text of access a among texts. */
static char *into_text(LoopInfo *L, char **texts, Access *a)
{
	for (int i = 0; i < L->accesses.n; i++)
		if (L->accesses.v[i] == a)
			return texts[i];
	return access_text(L, a);
}

/* access_text of every access of L, by index: made once, as each is a
 * pass over the accesses. */
static char **access_texts(LoopInfo *L)
{
	char **t = xcalloc((size_t)L->accesses.n + 1, sizeof *t);
	for (int i = 0; i < L->accesses.n; i++)
		t[i] = access_text(L, L->accesses.v[i]);
	return t;
}

/* How the slice treats control node n, when not as the body does. */
static const char *slice_note(Node *n)
{
	Ctl *c = n->kind == N_IF || n->kind == N_WHILE || n->kind == N_DO || n->kind == N_FOR ?
	         n->aux : NULL;
	if (!c || (!c->taint && !c->over))
		return "";
	if (c->fork)
		return "    (condition not evaluated: the slice runs the iteration once with each branch "
		       "taken, and records the keys of both)";
	if (c->over && c->guard == n->cond && c->jump)
		return "    (a break on a condition not evaluated is ignored: the keys of iterations "
		       "the body may not reach are recorded too)";
	if (c->over && c->guard == n->cond)
		return "    (its condition uses a value set under a condition not evaluated: the slice "
		       "runs it as far as that value takes it, and the keys of iterations the body may "
		       "not reach are recorded too)";
	if (c->over)
		return format("    (runs while %s, the part of the condition it can evaluate: the keys of "
		              "iterations the body may not reach are recorded too)",
		              acc_expr_str(c->guard));
	if (n->kind != N_IF || (!c->guard && !c->skip))
		return "    (condition not evaluated: accesses under it are recorded unconditionally)";
	Buf b = {0};
	buf_puts(&b, "    (condition evaluated only in part: accesses under it are recorded ");
	if (c->guard)
		buf_printf(&b, "when %s", acc_expr_str(c->guard));
	else
		buf_puts(&b, "unconditionally");
	if (n->els)
		buf_printf(&b, ", under else %s", c->skip ? format("unless %s", acc_expr_str(c->skip)) :
		           "unconditionally");
	buf_puts(&b, ")");
	return b.s;
}

/* The statements of l's slice, in source order, and what it records. */
static void put_slice(FILE *out, Node *l, LoopInfo *L)
{
	Vec nodes = {0};
	/* Included statements and control headers, in source order. */
	Vec stack = {0};
	vec_push(&stack, l->body);
	while (stack.n) {
		Node *n = stack.v[--stack.n];
		if (!n)
			continue;
		if (n->slice || (n->kind == N_VAR && n->sym->slice_decl))
			vec_push(&nodes, n);
		switch (n->kind) {
		case N_BLOCK:
			for (Node *c = n->args; c; c = c->next)
				vec_push(&stack, c);
			break;
		case N_IF:
			vec_push(&stack, n->then);
			vec_push(&stack, n->els);
			break;
		case N_WHILE: case N_DO: case N_FOR:
			vec_push(&stack, n->init);
			vec_push(&stack, n->body);
			break;
		default:
			break;
		}
	}
	if (nodes.n > 1)
		qsort(nodes.v, (size_t)nodes.n, sizeof(void *), cmp_node_off);
	int last = 0;
	for (int i = 0; i < nodes.n; i++) {
		Node *n = nodes.v[i];
		if (line_no(n) == last)
			continue;
		last = line_no(n);
		put_line(out, n, n->slice ? slice_note(n) :
		         "    (declared only, without its initialiser: a statement the slice runs "
		         "assigns it)");
	}
	fprintf(out, "    record");
	Vec rs = {0};
	char **texts = access_texts(L);
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (!a->recorded)
			continue;
		char *text = texts[i];
		bool dup = false;
		for (int k = 0; k < rs.n && !dup && !acc_has_rand(a->key); k++)
			dup = !strcmp(rs.v[k], text);
		if (!dup) {
			vec_push(&rs, text);
			fprintf(out, "%s %s", rs.n > 1 ? "," : "", text);
		}
	}
	fprintf(out, "\n");
}

/* Why a sync for runs whole on every rank, one worker each, or NULL: the
 * runtime's test (sync_for in runtime/sync/sync.c), but for a loop over
 * something other than a dvector, which the compiler does not make. */
static char *sync_whole(LoopInfo *L)
{
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		if (((intptr_t)L->dds_mode.v[i] & ACC_WRITE) &&
		    (d->ty->kind != TY_DVEC || !ty_is_numeric(d->ty->elem)))
			return format("it writes %s, a %s, which no merge covers", d->name,
			              d->ty->kind == TY_DVEC ? "dvector of other than numbers" : "map");
	}
	for (int i = 0; i < L->reduce_syms.n; i++) {
		Sym *v = L->reduce_syms.v[i];
		if (!ty_is_flat(v->ty))
			return format("its reduce clause combines %s, a %s, which steps do not merge",
			              v->name, ty_str(v->ty));
	}
	if (L->accum_syms.n)
		return format("it accumulates into %s", ((Sym *)L->accum_syms.v[0])->name);
	return NULL;
}

/* A dense vector d of a bsp or hybrid loop, merged by how (shown as
 * shown), dense for why; over: the loop runs over it.  A step's changed rows travel alone
 * (runtime/sync/delta.c) unless a merge function applies to every row
 * or the loop runs over d. */
static void put_dense(FILE *out, Sym *d, const char *how, const char *shown, const char *why,
                      bool over)
{
	bool rows = (!strcmp(how, "avg") || !strcmp(how, "sum")) && !over;
	fprintf(out, "%s, dense (%s): elements of fixed size (%s), whole on every rank; %sthe "
	        "ranks add their workers' changes on the vector's storage, no packing, in a chain: "
	        "the running sum goes from rank to rank in pieces of at least 256 KiB, each rank "
	        "adding to one while the next adds to the one before, and the last broadcasts the "
	        "sum\n", shown, why, ty_str(d->ty->elem),
	        rows ? "after each step a rank finds the rows its workers changed, and when the "
	               "ranks' rows are few every rank gets them all; else " : "after each step ");
}

/* How a sync for's written DDSs are merged, each. */
static void explain_sync(FILE *out, Node *l, LoopInfo *L)
{
	fprintf(out, "  synchronisation: ");
	if (L->model == 0)
		fprintf(out, "bsp: every worker (thread of a rank) after each of its mini-batches\n");
	else if (L->model == 1)
		fprintf(out, "ssp(%s): ranks run up to that many steps apart; a rank's threads as bsp\n",
		        acc_expr_str(L->staleness));
	else
		fprintf(out, "hybrid: a rank's threads share its copy without locks; ranks after each "
		        "sub-iteration\n");
	bool whole = sync_whole(L) != NULL;
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		if (!((intptr_t)L->dds_mode.v[i] & ACC_WRITE))
			continue;
		fprintf(out, "    %-12s ", d->name);
		if (d->ty->kind != TY_DVEC || !ty_is_numeric(d->ty->elem)) {
			fprintf(out, "not merged: a %s; the loop runs whole on every rank, one worker each\n",
			        d->ty->kind == TY_DVEC ? "dvector of other than numbers" : "map");
			continue;
		}
		const char *how = "avg";
		for (int k = 0; k < L->merge_dds.n; k++)
			if (L->merge_dds.v[k] == d) {
				Node *h = ((Node *)L->merge_how.v[k])->rhs;
				how = format("%.*s", h->name.len, h->name.p);
			}
		if (whole) {
			fprintf(out, "%s, but the loop runs whole on every rank, one worker each\n", how);
			continue;
		}
		/* An embedding's rows that one worker of three changed moved a
		 * third as far, and its neighbours came out half as good. */
		const char *shown = strcmp(how, "avg") ? how :
		                    format("avg (a step's changes divided by its workers, also where one "
		                           "worker alone changed a row; merge(%s) = sum keeps them whole)",
		                           d->name);
		const char *why = i < L->sync_why.n ? L->sync_why.v[i] : "recon = off";
		if (!why)
			fprintf(out, "%s, sparse: only the rows the slice records travel; each step a rank "
			        "fetches them from their owners and sends its changes to the owners\n", shown);
		else if (L->model == 1)
			fprintf(out, "%s, dense (%s): elements of fixed size (%s), so a rank sends each "
			        "step's change to every rank whole, no packing\n", shown, why,
			        ty_str(d->ty->elem));
		else
			put_dense(out, d, how, shown, why, d == l->lhs->sym);
	}
	if (!whole && L->has_slice) {
		fprintf(out, "  slice (each step, over the step's elements, before they run):\n");
		put_slice(out, l, L);
	}
}

/* Access a adds to its element: 'D[k] += x', '-=', '++' or '--' as a
 * statement of its own (as accumulate requires). */
bool acc_adds_to(const Access *a)
{
	Node *u = a->unit;
	Node *e = u->kind == N_EXPR ? u->lhs : NULL;
	if (a->mode != ACC_RW || !e ||
	    !((e->kind == N_ASSIGN && (e->op == TK_PLUS || e->op == TK_MINUS)) || e->kind == N_INCDEC))
		return false;
	Node *b = e->lhs;
	while ((b->kind == N_INDEX && !acc_is_dds(b->lhs)) || b->kind == N_FIELD)
		b = b->lhs;
	return b == a->at;
}


/* The value update x (D[k] += v, or ++, --) adds, as written: without
 * the conversion to D's type sema wraps it in; NULL for ++ and --. */
static Node *added_value(Node *x)
{
	if (x->kind != N_ASSIGN)
		return NULL;
	return sema_as_written(x->rhs);
}

/* Does update x add a fraction to integers, which truncates at every
 * step: not something accumulate or relaxed takes (sema_loop.c)? */
static bool fraction_into_int(Node *x)
{
	Node *v = added_value(x);
	return v && ty_is_int(ty_first_scalar(x->lhs->ty)) && !ty_is_int(ty_first_scalar(v->ty));
}

/* Does access b run wherever access a does, as far as its enclosing
 * control says: inside the same loops, and no if that a is not in? */
static bool runs_with(const Access *b, const Access *a)
{
	if (b->ctrl.n > a->ctrl.n)
		return false;
	for (int i = 0; i < b->ctrl.n; i++) {
		Node *c = b->ctrl.v[i];
		if (c != a->ctrl.v[i] || c->kind == N_IF)
			return false;
	}
	return true;
}

/* Is every access of d at the key of a write of another DDS that stays
 * in the plan, and runs with it (flag[c] += 1 beside x[c] = x[c] * 0.5 +
 * v): then the iterations that conflict on d conflict there anyway, and
 * taking d's additions out of the plan would leave it as it is. */
static bool shadowed(LoopInfo *L, Sym *d)
{
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (a->dds != d)
			continue;
		bool beside = false;
		for (int j = 0; j < L->accesses.n && !beside; j++) {
			Access *b = L->accesses.v[j];
			if (b->dds == d || !(b->mode & ACC_WRITE) || acc_is_accum(L, b->dds) ||
			    !a->dynamic || !b->dynamic || a->rekeyed || b->rekeyed ||
			    !acc_same_expr(a->key, b->key) || !runs_with(b, a))
				continue;
			/* b's DDS must stay: not one only added to itself. */
			bool adds_only = true;
			for (int k = 0; k < L->accesses.n && adds_only; k++) {
				Access *c = L->accesses.v[k];
				if (c->dds == b->dds && c->mode != ACC_READ && !acc_adds_to(c))
					adds_only = false;
			}
			beside = !adds_only;
		}
		if (!beside)
			return false;
	}
	return true;
}

/* What DDS d, which loop L writes, is to a hint: 0 when it is not only
 * added to (or cannot be accumulated, or each iteration touches elements
 * of its own, so it never conflicts), else 1 when the body never reads
 * it otherwise (accumulate), 2 when it does (relaxed, a dvector), 4 when
 * it does and d is a dmap (which relaxed does not take). */
static int additive_kind(LoopInfo *L, Sym *d, bool *shadow);

int acc_additive(LoopInfo *L, Sym *d)
{
	bool shadow;
	int k = additive_kind(L, d, &shadow);
	return shadow ? 0 : k;
}

/* Is d only added to, but at the keys of a DDS the body assigns, so that
 * taking its additions out of the plan would change nothing (a count
 * beside a "last seen" index): a hot key's warning then names the DDS
 * assigned, not d. */
bool acc_shadowed_adds(LoopInfo *L, Sym *d)
{
	bool shadow;
	return additive_kind(L, d, &shadow) && shadow;
}

static int additive_kind(LoopInfo *L, Sym *d, bool *shadow)
{
	*shadow = false;
	/* L's own modes, not the loop being analysed (acc_written): the
	 * emitter asks of every loop after all of them are. */
	bool written = false;
	for (int i = 0; i < L->dds.n; i++)
		if (L->dds.v[i] == d)
			written = ((intptr_t)L->dds_mode.v[i] & ACC_WRITE) && !acc_is_accum(L, d);
	if (!written || !ty_is_numeric(d->ty->elem) ||
	    (d->ty->kind != TY_DVEC && d->ty->kind != TY_DMAP))
		return 0;
	for (int i = 0; i < L->whole_dds.n; i++)
		if (L->whole_dds.v[i] == d)
			return 0;
	bool reads = false, adds = false, own = true, own_key = true;
	Access *first = NULL;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (a->dds != d)
			continue;
		/* An insert by +=, which accumulate allows, but not insert(). */
		if (a->at->kind == N_CALL && a->structural)
			return 0;
		if (acc_adds_to(a) && fraction_into_int(a->unit->lhs))
			return 0;
		if (acc_adds_to(a))
			adds = true;
		else if (a->mode == ACC_READ)
			reads = true;
		else
			return 0;
		if (!first)
			first = a;
		own = own && !a->dynamic && acc_const_nonzero(&a->aterms) &&
		      acc_same_terms(&a->aterms, &first->aterms) && acc_same_terms(&a->bterms, &first->bterms);
		own_key = own_key && acc_at_loop_key(a);
	}
	if (!adds || own || own_key)
		return 0;
	/* y[i] += y[i - 1], a running sum (or y[i - off]): not hot keys,
	 * and relaxed reads would break the chain, not serve it. */
	for (int i = 0; i < L->accesses.n; i++)
		for (int j = 0; j < L->accesses.n; j++) {
			Access *a = L->accesses.v[i], *b = L->accesses.v[j];
			int64_t gap;
			if (a->dds == d && b->dds == d && acc_adds_to(a) &&
			    (acc_iter_gap(a, b, &gap) || acc_iter_gap_inv(a, b)))
				return 0;
		}
	*shadow = shadowed(L, d);
	/* relaxed takes dvectors only. */
	if (reads && d->ty->kind != TY_DVEC)
		return 4;
	return reads ? 2 : 1;
}

/* Sums of whole numbers come out the same in any order and grouping, so
 * an async loop's updates X[k] += n of a vector of int or long elements,
 * n an int, or a long into longs (a float added to a long truncates at
 * every step, which is not a sum), may go into a buffer per worker, as
 * accumulate(+: X) does, instead of into the plan: the runtime chooses (sap_acc_opt),
 * as that pays only where the loop runs at least as many iterations as
 * X has elements.  The keys must be ones the slice records, which the
 * plan would serialize on, or the loop serialized for an element of X. */
void acc_find_sums(Node *l)
{
	LoopInfo *L = l->li;
	if (L->sums_found)
		return;
	L->sums_found = true;
	bool serial = L->verdict == VD_SERIAL;
	if (l->kind != N_ASYNC || (L->verdict != VD_STATIC && L->verdict != VD_ONCE &&
	    L->verdict != VD_EACH && !serial))
		return;
	/* Serialized for one element of a vector of sums (count[0] += 1):
	 * sums if every other DDS the loop writes is written at each
	 * iteration's own keys only, which the runtime then runs in chunks
	 * without a slice. */
	Sym *why = NULL;
	for (int i = 0; serial && i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (a->at == L->reason_at && !a->structural)
			why = a->dds;
	}
	if (serial && !why)
		return;
	Vec found = {0};
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		Type *e = d->ty->elem;
		if (d->ty->kind != TY_DVEC || acc_additive(L, d) != 1 ||
		    !ty_all_of(e, ty_first_scalar(e)) || !ty_is_int(ty_first_scalar(e)))
			continue;
		bool whole = true, recorded = false;
		for (int j = 0; j < L->accesses.n; j++) {
			Access *a = L->accesses.v[j];
			if (a->dds != d)
				continue;
			/* A long into an int is checked for range at every
			 * step, which a copy from 0 would not repeat. */
			Node *v = added_value(a->unit->lhs);
			Type *vs = v ? ty_first_scalar(v->ty) : NULL;
			whole = whole && (!v || (ty_all_of(v->ty, vs) && (vs->kind == TY_INT ||
			        (vs->kind == TY_LONG && ty_first_scalar(e)->kind == TY_LONG))));
			recorded = recorded || a->recorded;
		}
		if (whole && (recorded || serial))
			vec_push(&found, d);
	}
	for (int i = 0; serial && i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		bool sum = false;
		for (int k = 0; k < found.n; k++)
			sum |= found.v[k] == a->dds;
		if (a->dds == why && !sum)
			return;
		if (!sum && !acc_is_accum(L, a->dds) &&
		    ((intptr_t)L->dds_mode.v[a->ddsi] & ACC_WRITE) && !acc_at_own(L, a->dds))
			return;
	}
	L->sum_syms = found;
}

bool acc_is_sum(LoopInfo *L, Sym *d)
{
	for (int i = 0; i < L->sum_syms.n; i++)
		if (L->sum_syms.v[i] == d)
			return true;
	return false;
}

/* Is d, which the serialized loop L writes, only assigned in it, at
 * constant keys, and never read: a flag (changed[0] = 1) or a last
 * value, which a reduce variable holds without serializing anything? */
bool acc_assigned_only(LoopInfo *L, Sym *d)
{
	if (!ty_is_numeric(d->ty->elem) || (d->ty->kind != TY_DVEC && d->ty->kind != TY_DMAP))
		return false;
	bool any = false;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (a->dds != d)
			continue;
		if (a->mode != ACC_WRITE || a->structural || a->dynamic || a->aterms.n || a->accumulate)
			return false;
		any = true;
	}
	for (int i = 0; i < L->whole_dds.n; i++)
		if (L->whole_dds.v[i] == d)
			return false;
	return any;
}

/* For a loop whose parallelism depends on its keys: the DDSs whose
 * updates could leave the plan, any of which may hold the hot elements;
 * for a serialized loop, the one that serializes it, if that would do. */
static void explain_additive(FILE *out, LoopInfo *L)
{
	if (L->verdict != VD_STATIC && L->verdict != VD_ONCE && L->verdict != VD_EACH &&
	    L->verdict != VD_SERIAL)
		return;
	Sym *only = NULL;
	for (int i = 0; L->verdict == VD_SERIAL && i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (a->at == L->reason_at)
			only = a->dds;
	}
	if (L->verdict == VD_SERIAL && !only)
		return;
	if (only && acc_assigned_only(L, only))
		fprintf(out, "  hint: %s is only assigned in this loop, at constant keys, and never read: "
		        "if it is a flag or a total, a driver variable in a 'reduce(max: ...)' or "
		        "'reduce(+: ...)' clause of the loop holds it without serializing the loop\n",
		        only->name);
	for (int kind = 1; kind <= 2; kind++) {
		Vec ds = {0};
		/* Maps whose keys may be missing: a loop that inserts one runs
		 * serially, which accumulate does not. */
		bool inserts = false;
		for (int i = 0; i < L->dds.n; i++)
			if ((!only || L->dds.v[i] == only) && acc_additive(L, L->dds.v[i]) == kind &&
			    !acc_is_sum(L, L->dds.v[i])) {
				acc_add_name(&ds, ((Sym *)L->dds.v[i])->name);
				inserts |= acc_checks_keys(L, L->dds.v[i]);
			}
		if (!ds.n)
			continue;
		char *names = acc_name_list(&ds);
		Buf clause = {0};
		for (int i = 0; i < ds.n; i++)
			buf_printf(&clause, "%s%s", i ? ", " : "", (const char *)ds.v[i]);
		bool one = ds.n == 1;
		fprintf(out, "  hint: %s %s only added to ('+=', '-=', '++', '--') and %s: ", names,
		        one ? "is" : "are", kind == 1 ? "never read otherwise" : "read");
		if (L->verdict == VD_SERIAL)
			fprintf(out, "with '%s(+: %s)' these updates never conflict",
			        kind == 1 ? "accumulate" : "relaxed", clause.s);
		else if (inserts && kind == 1)
			fprintf(out, "with 'accumulate(+: %s)' these updates never conflict and insert missing "
			        "keys in parallel", clause.s);
		else
			fprintf(out, "if most iterations write a few of %s elements, which makes the plan "
			        "serial, '%s(+: %s)' takes these updates out of the plan", one ? "its" : "their",
			        kind == 1 ? "accumulate" : "relaxed", clause.s);
		/* With nothing else to plan, the loop runs in chunks: one
		 * round, an SGD's weights read a whole pass stale, which a
		 * helper's AdaGrad on 3 ranks did not survive. */
		bool alone = kind == 2;
		for (int i = 0; alone && i < L->dds.n; i++) {
			Sym *d = L->dds.v[i];
			if (((intptr_t)L->dds_mode.v[i] & ACC_WRITE) && !acc_is_accum(L, d) &&
			    !((!only || d == only) && acc_additive(L, d) == kind) && !acc_no_slice(L, d))
				alone = false;
		}
		fprintf(out, "%s%s\n", kind == 1 ? "" : "; a read then sees the value at the start of the "
		        "round plus the worker's own updates", alone ? ", and with nothing else to plan "
		        "a round is the whole invocation" : "");
	}
}

/* The sums the runtime may take out of the plan (acc_find_sums). */
/* Has l sums and, when they go to copies, nothing else to plan? */
static bool sums_alone(Node *l, LoopInfo *L)
{
	acc_find_sums(l);
	if (!L->sum_syms.n)
		return false;
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		if (((intptr_t)L->dds_mode.v[i] & ACC_WRITE) && !acc_is_accum(L, d) &&
		    !acc_is_sum(L, d) && !acc_no_slice(L, d))
			return false;
	}
	return true;
}

static void explain_sums(FILE *out, Node *l, LoopInfo *L)
{
	acc_find_sums(l);
	if (!L->sum_syms.n)
		return;
	Vec ds = {0};
	for (int i = 0; i < L->sum_syms.n; i++)
		acc_add_name(&ds, ((Sym *)L->sum_syms.v[i])->name);
	bool one = ds.n == 1, alone = sums_alone(l, L);
	Buf clause = {0};
	for (int i = 0; i < ds.n; i++)
		buf_printf(&clause, "%s%s", i ? ", " : "", (const char *)ds.v[i]);
	bool serial = L->verdict == VD_SERIAL;
	fprintf(out, "  sums: %s: whole numbers the loop only adds to, the same in any order; on "
	        "several workers, an invocation with at least as many iterations as %s elements "
	        "adds to %s in a copy per worker, as 'accumulate(+: %s)' would, %s\n",
	        acc_name_list(&ds), one ? "the vector has" : "a vector has", one ? "it" : "that vector",
	        clause.s, serial ? (one ? "and runs in contiguous chunks instead of serially" :
	                            "and, where each does, runs in contiguous chunks instead of "
	                            "serially") :
	        alone ? "not through the plan, and with nothing else to plan runs in contiguous "
	        "chunks with no reconnaissance" : "not through the plan");
}

/* The accesses, one line per DDS and key, with how each is known. */
/* The key of a loop over a map's keys (async for (int a : m)), which
 * the parser made a loop over the index of the keys' vector: NULL for
 * another loop. */
static Node *map_key_of(Node *l)
{
	Node *k = l->kind == N_ASYNC && l->body && l->body->kind == N_BLOCK ? l->body->args : NULL;
	return k && k->kind == N_VAR && k->keys_of && k->init && k->init->kind == N_INDEX ? k : NULL;
}

static void explain_accesses(FILE *out, Node *l, LoopInfo *L)
{
	fprintf(out, "  accesses:\n");
	if (!L->accesses.n && !L->whole_dds.n)
		fprintf(out, "    (none)\n");
	Vec seen = {0};
	char **texts = access_texts(L);
	/* A loop over a map's keys reads its keys' vector at the hidden
	 * index: the user wrote the key, which the header shows. */
	Node *key = map_key_of(l);
	Sym *keys = key ? key->init->lhs->sym : NULL;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		char *text = texts[i];
		if (keys && a->dds == keys)
			continue;
		bool dup = false;
		for (int k = 0; k < seen.n && !dup; k++)
			dup = !strcmp(seen.v[k], text);
		if (dup)
			continue;
		vec_push(&seen, text);
		int mode = 0;
		bool rec = false;
		Access *into = NULL;
		for (int k = i; k < L->accesses.n; k++) {
			Access *b = L->accesses.v[k];
			if (b->dds == a->dds && !strcmp(texts[k], text)) {
				mode |= b->mode | (b->recorded ? b->folded : 0);
				rec |= b->recorded;
				if (!into)
					into = b->folded_into;
			}
		}
		const char *cls;
		bool planned = L->verdict == VD_ONCE || L->verdict == VD_EACH;
		bool sync_rec = L->verdict == VD_SYNC && L->has_slice;
		if (a->accumulate)
			cls = acc_is_relaxed(L, a->dds) ? "relaxed" : "accumulated";
		else if (sync_rec && rec)
			cls = a->dynamic ? "dynamic, recorded by the slice" : "constant, recorded by the slice";
		else if (sync_rec && !acc_written(a->dds))
			cls = "dynamic (read-only DDS: not recorded)";
		else if (!a->dynamic && !a->aterms.n)
			cls = "static (constant key)";
		else if (!a->dynamic)
			cls = format("static (affine in %s)", l->init->sym->name);
		else if (rec && planned)
			cls = a->key->has_cval || a->key->kind == N_INT ?
			      "constant, recorded by the slice under its condition" :
			      "dynamic, recorded by the slice";
		else if (into && planned)
			cls = format("dynamic, recorded as %s (the same key)", into_text(L, texts, into));
		else if (planned && !acc_written(a->dds))
			cls = "dynamic (read-only DDS: not recorded)";
		else
			cls = "dynamic";
		fprintf(out, "    %-20s %-10s  %s\n", text, mode_str(mode), cls);
	}
	for (int i = 0; i < L->whole_dds.n; i++) {
		Sym *d = L->whole_dds.v[i];
		fprintf(out, "    %-20s %-10s  every row (gemv, ger or gemm)\n", format("%s[*]", d->name),
		        mode_str((int)acc_dds_mode_of(L, d)));
	}
}

/* The reduce, accumulate and relaxed clauses, and what each means. */
static void explain_clauses(FILE *out, Node *l, LoopInfo *L)
{
	if (L->reduce_syms.n) {
		fprintf(out, "  reduce:");
		for (int i = 0; i < L->reduce_syms.n; i++) {
			Node *r = L->reduce_ops.v[i];
			Sym *v = L->reduce_syms.v[i];
			fprintf(out, " %.*s: %s", r->name.len, r->name.p, v->name);
			int n = 0;
			for (int j = 0; j < L->kept_syms.n; j++)
				if (L->kept_with.v[j] == v)
					fprintf(out, "%s%s", n++ ? ", " : " (keeping ", ((Sym *)L->kept_syms.v[j])->name);
			/* Won with nothing kept: a float tested as the body does,
			 * so that 0 and -0 go as serially. */
			for (int j = 0; j < L->won_syms.n; j++)
				if (L->won_syms.v[j] == v)
					fprintf(out, n ? " as set with it)" : " (combined by the body's test)");
		}
		fprintf(out, "\n");
	}
	if (L->accum_syms.n) {
		fprintf(out, "  accumulate:");
		for (int i = 0; i < L->accum_syms.n; i++)
			fprintf(out, "%s %s", i ? "," : "", ((Sym *)L->accum_syms.v[i])->name);
		fprintf(out, " (each worker adds into its own copy; the copies are merged when the loop "
		        "ends, so these updates never conflict");
		bool map = false;
		for (int i = 0; i < L->accum_syms.n; i++)
			map |= ((Sym *)L->accum_syms.v[i])->ty->kind != TY_DVEC;
		/* sap_dist_reduce, owner_sums */
		if (map && l->kind == N_ASYNC)
			fprintf(out, "; on several ranks, a map's sums go to the ranks that hold their "
			        "keys, which leaves the map parted");
		fputs(")\n", out);
	}
	if (L->relax_syms.n) {
		fprintf(out, "  relaxed:");
		for (int i = 0; i < L->relax_syms.n; i++)
			fprintf(out, "%s %s", i ? "," : "", ((Sym *)L->relax_syms.v[i])->name);
		fprintf(out, " (never a conflict: reads see the values at the start of the round plus "
		        "this worker's own updates; the other workers' updates of the round are added, "
		        "in worker order, when it ends: stale by at most one round, exact on one "
		        "worker)\n");
		const char *rounds = L->verdict == VD_SERIAL ? "none: the loop is serialized, so its "
		                                               "reads are exact" :
		                     L->verdict == VD_NOWRITE || L->verdict == VD_INDEPENDENT ?
		                     "one per invocation (the iterations run in contiguous chunks)" :
		                     "the plan's";
		if (L->verdict != VD_REJECTED)
			fprintf(out, "  relaxed rounds: %s\n", rounds);
	}
}

/* The verdict, in words: how the loop runs, and why. */

/* The driver variables key e reads, besides the loop's own: a static
 * key's plan is made anew when one changes. */
static void key_vars(Node *e, Sym *iv, Vec *out)
{
	if (!e)
		return;
	if (e->kind == N_NAME && e->sym && e->sym != iv && e->sym->kind == SYM_VAR && e->sym->is_driver &&
	    e->sym->vclass != V_CONST && e->sym->vclass != V_PARAM && !ty_is_dds(e->sym->ty))
		acc_add_sym(out, e->sym);
	key_vars(e->lhs, iv, out);
	key_vars(e->rhs, iv, out);
	key_vars(e->cond, iv, out);
	key_vars(e->then, iv, out);
	key_vars(e->els, iv, out);
	for (Node *a = e->args; a; a = a->next)
		key_vars(a, iv, out);
}

static int span_keys(Node *l, LoopInfo *L, Vec *names);

bool acc_slice_fixed(LoopInfo *L, Sym *d)
{
	bool reads = false, moving = false, written = false;
	for (int k = 0; k < L->slice_reads.n; k++)
		reads |= L->slice_reads.v[k] == d;
	for (int k = 0; k < L->slice_moving.n; k++)
		moving |= L->slice_moving.v[k] == d;
	for (int k = 0; k < L->dds.n; k++)
		written |= L->dds.v[k] == d && ((intptr_t)L->dds_mode.v[k] & ACC_WRITE);
	return reads && !moving && written;
}

static bool keys_own(LoopInfo *L);

static bool sums_alone(Node *l, LoopInfo *L);

static void explain_verdict(FILE *out, Node *l, LoopInfo *L)
{
	/* What a run's --stats shows on several workers, said first, as
	 * for spans below. */
	fprintf(out, "  verdict: %s", sums_alone(l, L) || (L->verdict == VD_SERIAL &&
	                                                  (acc_find_sums(l), L->sum_syms.n)) ?
	        "parallel on several workers where its sums go to copies (see sums): in "
	        "contiguous chunks, with no reconnaissance or plan; otherwise " : "");
	/* Where its spans keep the iterations apart, which is the common
	 * case (each iteration a row of its own), the loop runs in chunks:
	 * said first, as it is what a run's --stats usually shows. */
	const char *spans = span_keys(l, L, NULL) ? "parallel: in contiguous chunks, with no "
	                    "reconnaissance or plan, when the spans below keep the iterations "
	                    "apart; otherwise" : NULL;
	/* Chunks cut by the work of inner loops (sap-run(1), chunks). */
	const char *work = emit_cost_varies(l) ? "; the chunks are even in the passes of its inner "
	                   "loops, which vary with the iteration" : "";
	switch (L->verdict) {
	case VD_NOWRITE:
		fprintf(out, "parallel: writes no DDS%s, so the iterations are split into contiguous "
		        "chunks with no reconnaissance%s\n",
		        L->accum_syms.n && L->relax_syms.n ? " except by accumulation and relaxed updates" :
		        L->accum_syms.n ? " except by accumulation" :
		        L->relax_syms.n ? " except by relaxed updates" : "", work);
		break;
	case VD_INDEPENDENT:
		fprintf(out, "parallel: every key of the DDSs it writes is static and each iteration "
		        "writes keys of its own, so the iterations are split into contiguous chunks "
		        "with no reconnaissance%s\n", work);
		break;
	case VD_STATIC:
		fprintf(out, "parallel: every key of the DDSs it writes is static, so the plan is built "
		        "from the affine keys with no reconnaissance; on one rank's threads, if its "
		        "keys move by one stride and no two iterations' can meet when the loop "
		        "starts, it runs in contiguous chunks with no plan\n");
		break;
	case VD_ONCE: {
		/* Helper BIO: a plan and an order said, chunks run. */
		if (keys_own(L)) {
			fprintf(out, "parallel: it writes maps only at the key of its loop over a map's "
			        "keys, which they hold, so no two iterations meet: they run in contiguous "
			        "chunks with no reconnaissance or plan\n");
			break;
		}
		fprintf(out, "%s reconnaissance runs once and the plan is reused while the loop "
		        "bounds", spans ? spans : "parallel:");
		/* What the plan is made from: the slice's inputs, and the driver
		 * variables of the static keys (V[n + off] is planned anew when
		 * off changes). */
		Vec ns = {0};
		for (int i = 0; i < L->slice_reads.n; i++)
			acc_add_sym(&ns, L->slice_reads.v[i]);
		for (int i = 0; i < L->slice_vars.n; i++)
			acc_add_sym(&ns, L->slice_vars.v[i]);
		for (int i = 0; i < L->accesses.n; i++) {
			Access *a = L->accesses.v[i];
			if (!a->dynamic && !a->accumulate)
				key_vars(a->key, l->init->sym, &ns);
		}
		for (int i = 0; i < ns.n; i++)
			fprintf(out, "%s%s", i == ns.n - 1 ? " and " : ", ", ((Sym *)ns.v[i])->name);
		fprintf(out, " are unchanged");
		Vec own = {0};
		for (int i = 0; i < L->slice_reads.n; i++)
			if (acc_slice_fixed(L, L->slice_reads.v[i]))
				vec_push(&own, (void *)((Sym *)L->slice_reads.v[i])->name);
		if (own.n)
			fprintf(out, " (by other code: the loop's own writes of %s leave what its slice "
			        "reads as it was)", acc_name_list(&own));
		fprintf(out, "\n");
		break;
	}
	case VD_EACH:
		fprintf(out, "%s, with the plan rebuilt every invocation: ",
		        spans ? spans : "parallel");
		if (L->slice_rng)
			fprintf(out, "the slice draws random numbers, which differ from one invocation to "
			        "the next\n");
		else
			fprintf(out, "the slice reads the driver variable %s, which may change between "
			        "invocations\n", L->slice_var->name);
		break;
	case VD_SERIAL:
		fprintf(out, "serialized: %s (line %d)\n", L->reason, line_no(L->reason_at));
		break;
	case VD_REJECTED:
		fprintf(out, "rejected: %s (line %d)\n", L->reason, line_no(L->reason_at));
		if (L->note)
			fprintf(out, "    note (line %d): %s\n", line_no(L->note_at), L->note);
		break;
	case VD_SYNC: {
		/* What no merge covers makes the loop run whole (see explain_sync). */
		char *whole = sync_whole(L);
		if (whole)
			fprintf(out, "whole on every rank (sync for): %s, so the loop runs whole on every "
			        "rank, one worker each\n", whole);
		else
			fprintf(out, "data-parallel (sync for): each worker updates its own copy of what "
			        "the body writes, merged at synchronisation points\n");
		explain_sync(out, l, L);
		break;
	}
	}
}

/* Does the loop write only maps, each only at the key of its loop over a
 * map's keys, which they hold (no insert nor erase)?  The runtime then
 * runs it in chunks (shape_of in runtime/async/async.c): no two
 * iterations meet. */
static bool keys_own(LoopInfo *L)
{
	bool any = false;
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		if (!(((intptr_t)L->dds_mode.v[i]) & ACC_WRITE) || acc_is_accum(L, d) ||
		    acc_is_relaxed(L, d))
			continue;
		if (d->ty->kind == TY_DVEC || !acc_at_key(L, d) || acc_inserts(L, d))
			return false;
		any = true;
	}
	return any;
}

/* A planned loop's order: a helper's greedy independent set came out
 * 607 on one worker, 596 on two and 893 on four, each a valid set, with
 * nothing in --explain to say that its answer depends on the workers. */
static void explain_order(FILE *out, Node *l, LoopInfo *L)
{
	if (l->kind != N_ASYNC ||
	    (L->verdict != VD_STATIC && L->verdict != VD_ONCE && L->verdict != VD_EACH) ||
	    (L->verdict == VD_ONCE && keys_own(L)))
		return;
	fprintf(out, "  order: iterations that conflict run one after the other: in index order "
	        "on one worker and under a key-level wavefront plan; by blocks or strips in an "
	        "order that depends on the number of workers; by colours in one order for any "
	        "number of workers above one: a result that depends on which runs first (a greedy "
	        "matching or colouring) can differ with the workers\n");
}

/* A span loop's bound e + add narrowed by its guards' (min or max of
 * them), as .sap text: a number where they all are. */
static const char *span_bound(Node *e, int64_t add, Vec *more, const char *fn)
{
	bool nums = e->has_cval;
	int64_t v = e->cval + add;
	for (int k = 0; k < more->n && nums; k++) {
		SpanBound *b = more->v[k];
		nums = b->e->has_cval;
		int64_t w = b->e->cval + b->add;
		v = *fn == 'm' && fn[1] == 'a' ? (w > v ? w : v) : (w < v ? w : v);
	}
	if (nums && more->n)
		return format("%lld", (long long)v);
	const char *first = add ? format("%s + %lld", acc_expr_str(e), (long long)add) : acc_expr_str(e);
	if (!more->n)
		return first;
	Buf b = {0};
	buf_printf(&b, "%s(%s", fn, first);
	for (int k = 0; k < more->n; k++) {
		SpanBound *x = more->v[k];
		buf_printf(&b, ", %s%s", acc_expr_str(x->e),
		           x->add ? format(" %c %lld", x->add > 0 ? '+' : '-',
		                           (long long)(x->add > 0 ? x->add : -x->add)) : "");
	}
	buf_puts(&b, ")");
	return b.s;
}

/* The dynamic keys of the DDSs a loop writes, when all are spans (rows
 * of a flat matrix): the runtime's check before it plans.  Into names
 * if not NULL; how many (0 when some key is not a span). */
static int span_keys(Node *l, LoopInfo *L, Vec *names)
{
	if (l->kind != N_ASYNC ||
	    (L->verdict != VD_STATIC && L->verdict != VD_ONCE && L->verdict != VD_EACH))
		return 0;
	int n = 0;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (!a->dynamic || a->accumulate || !(acc_dds_mode_of(L, a->dds) & ACC_WRITE))
			continue;
		if (!a->span)
			return 0;
		n++;
		if (!names)
			continue;
		Buf dims = {0};
		/* if (i == k) x[k * w + j]: row i. */
		for (int m = 0; m < a->eqs.n; m++)
			buf_printf(&dims, "%s = %s, ", acc_expr_str(a->eqs.v[m]), a->iv->name);
		for (int m = 0; m < a->span_dims.n; m++) {
			SpanDim *d = a->span_dims.v[m];
			/* A guard's bound is exclusive: so is the range then. */
			bool le = d->le && !d->his.n;
			buf_printf(&dims, "%s%s in [%s, %s%c", m ? ", " : "", d->var->name,
			           span_bound(d->lo, 0, &d->los, "max"),
			           span_bound(d->hi, d->le && !le, &d->his, "min"), le ? ']' : ')');
		}
		/* Each span once: an FFT's butterfly reads and writes re[q]
		 * three times, and the line listed 12 spans for 4. */
		char *name = format("%s[%s] (%s)", a->dds->name, acc_expr_str(a->key), dims.s);
		bool seen = false;
		for (int k = 0; k < names->n && !seen; k++)
			seen = !strcmp(names->v[k], name);
		if (!seen)
			vec_push(names, (void *)name);
	}
	return n;
}

static void explain_spans(FILE *out, Node *l, LoopInfo *L)
{
	Vec names = {0};
	if (!span_keys(l, L, &names))
		return;
	fprintf(out, "  spans: %s %s a range of keys an iteration: when the loop starts, if those "
	        "of different iterations cannot meet, it runs in contiguous chunks with no "
	        "reconnaissance or plan\n", acc_name_list(&names), names.n > 1 ? "each cover" : "covers");
}

/* The path to the first number in a value of type t ("", ".sum",
 * "[0].w"): what '+= 0' can add to, which a struct or an array cannot. */
static const char *number_in(Type *t)
{
	if (t->kind == TY_ARRAY)
		return format("[0]%s", number_in(t->elem));
	if (t->kind == TY_STRUCT) {
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (ty_is_numeric(f->ty))
				return format(".%s%s", f->sym->name, number_in(f->ty));
	}
	return "";
}

/* Maps the loop writes at keys that may be missing: planned only when
 * none is, which the reconnaissance checks every time it runs. */
static void explain_checked_keys(FILE *out, LoopInfo *L)
{
	Vec ms = {0}, nums = {0};
	bool at_keys = true;
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		if (!acc_checks_keys(L, d))
			continue;
		vec_push(&ms, (void *)d->name);
		at_keys &= acc_at_key(L, d);
		if (ty_is_numeric(d->ty->elem) && acc_additive(L, d) != 1)
			vec_push(&nums, d);
	}
	if (!ms.n)
		return;
	fprintf(out, "    keys: writing a missing key of %s inserts it, and a map's structure cannot "
	        "change in parallel: the reconnaissance checks that every key the body writes is "
	        "there (again whenever the keys of the map change), and runs an invocation in which "
	        "one is missing serially (--stats says so)", acc_name_list(&ms));
	/* keys_there in runtime/async/async.c. */
	if (at_keys)
		fprintf(out, "; on one rank's threads, as the loop writes %s only at its key, the "
		        "runtime looks its keys up there as it starts, and where all are there runs it "
		        "in contiguous chunks, with no reconnaissance or plan", acc_name_list(&ms));
	/* Keys to come: a loop under accumulate inserts them in parallel
	 * (the hint says so for a map the body only adds to). */
	for (int i = 0; i < nums.n; i++) {
		Sym *m = nums.v[i];
		fprintf(out, "%s%s[k]%s += 0 under accumulate(+: %s)", i ? ", " : "; a loop before it "
		        "can insert the keys in parallel: ", m->name, number_in(m->ty->elem), m->name);
	}
	fputc('\n', out);
}

/* Why a loop over a map's keys cannot run on the maps' parts, each rank
 * the keys it holds, or NULL when it can: the runtime's test
 * (map_keys in runtime/async/async.c), in the same order. */
static const char *owner_why(LoopInfo *L, Type *kt, bool flat)
{
	if (!flat)
		return "a reduce variable holds a list or string";
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		bool wr = (intptr_t)L->dds_mode.v[i] & ACC_WRITE;
		/* A map it accumulates into gets the sums after it; one it
		 * only reads, it reads at its key parted, or else whole. */
		if (acc_is_accum(L, d)) {
			if (d->ty->kind == TY_DVEC)
				return format("it accumulates into %s", d->name);
			continue;
		}
		if (d->ty->kind == TY_DVEC) {
			if (wr)
				return format("it writes the dvector %s", d->name);
			continue;
		}
		if (!wr)
			continue;
		if (!acc_at_key(L, d))
			return format("it touches %s at keys other than its own", d->name);
		if (wr && acc_inserts(L, d)) {
			bool call = false;
			for (int k = 0; k < L->accesses.n; k++) {
				Access *a = L->accesses.v[k];
				call |= a->dds == d && a->structural && a->at->kind == N_CALL;
			}
			return call ? format("it inserts or erases keys of %s", d->name) :
			       format("it may write a key of %s that is missing, which inserts it", d->name);
		}
		if (!ty_is_flat(d->ty->elem))
			return format("the values of %s hold strings or lists", d->name);
		if (d->ty->key->kind != kt->kind)
			return format("%s has keys of another type", d->name);
	}
	return NULL;
}

/* A dvector of a map's keys (ks = keys(m)) that a loop over [0, len(ks))
 * reads at its index and only so: the runtime runs the loop as one over
 * the map's keys (map_keys in runtime/async/async.c). */
static Sym *keys_read(Node *l, LoopInfo *L)
{
	if (l->kind != N_ASYNC || strcmp(acc_expr_str(l->init->init), "0"))
		return NULL;
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		Node *in = d->decl ? d->decl->init : NULL;
		if (d->ty->kind != TY_DVEC || (intptr_t)L->dds_mode.v[i] != ACC_READ || !in ||
		    in->kind != N_CALL || (in->builtin != B_KEYS && in->builtin != B_JOIN) ||
		    strcmp(acc_expr_str(l->cond->rhs), format("len(%s)", d->name)))
			continue;
		bool own = true;
		for (int k = 0; k < L->accesses.n; k++) {
			Access *a = L->accesses.v[k];
			own &= a->dds != d || (a->key->kind == N_NAME && a->key->sym == l->init->sym);
		}
		if (own)
			return d;
	}
	return NULL;
}

/* On several ranks: a loop that writes a dmap (not accumulated) runs
 * whole on every rank, its threads the workers (a map's values stay on
 * the rank that writes them), unless over a map's keys each rank can
 * run the keys it holds (sap_dist_ok, map_keys). */
static void explain_ranks(FILE *out, Node *l, LoopInfo *L)
{
	if (l->kind != N_ASYNC || L->verdict == VD_REJECTED || L->verdict == VD_SERIAL)
		return;
	bool flat = true;
	for (int i = 0; i < L->reduce_syms.n; i++)
		flat = flat && ty_is_flat(((Sym *)L->reduce_syms.v[i])->ty);
	Sym *wmap = NULL;
	for (int i = 0; i < L->dds.n && !wmap; i++) {
		Sym *d = L->dds.v[i];
		if (d->ty->kind != TY_DVEC && ((intptr_t)L->dds_mode.v[i] & ACC_WRITE) &&
		    !acc_is_accum(L, d))
			wmap = d;
	}
	Node *key = map_key_of(l);
	const char *why = key ? owner_why(L, key->sym->ty, flat) : NULL;
	Sym *ks = key ? NULL : keys_read(l, L);
	if (ks && !owner_why(L, ks->ty->elem, flat)) {
		fprintf(out, "  keys: %s holds the keys of %s and the loop reads it at its index, all "
		        "of it: on several ranks, or with a reduce whose result depends on how the "
		        "iterations are grouped, it runs as a loop over those keys, each on the worker "
		        "that holds it, each worker's keys in index order\n", ks->name,
		        acc_expr_str(ks->decl->init->args));
		return;
	}
	if (key && !why) {
		bool acc = false;
		for (int i = 0; i < L->dds.n; i++) {
			Sym *d = L->dds.v[i];
			acc |= d->ty->kind != TY_DVEC && acc_is_accum(L, d);
		}
		if (wmap || acc)
			fprintf(out, "  ranks: each rank runs the keys of the maps that it holds\n");
		return;
	}
	if (!flat)
		why = "a reduce variable holds a list or string";
	else if (wmap && !why)
		why = format("it writes the dmap %s", wmap->name);
	else if (wmap)
		why = format("it writes the dmap %s, and %s", wmap->name, why);
	else
		return;
	fprintf(out, "  ranks: every rank runs the whole loop on its own threads (%s), so more ranks "
	        "do not make it faster\n", why);
}

static void explain_loop(FILE *out, Node *l)
{
	LoopInfo *L = l->li;
	int line, col;
	diag_linecol(l->file, l->off, &line, &col);
	Node *key = map_key_of(l);
	if (key)
		fprintf(out, "%s:%d:%d: loop %d: async for (%s %s : %s)\n", l->file->name, line, col, L->id,
		        ty_str(key->sym->ty), key->sym->name, acc_expr_str(key->keys_of));
	else if (l->kind == N_ASYNC)
		fprintf(out, "%s:%d:%d: loop %d: async for (%s in [%s, %s))\n", l->file->name, line, col, L->id,
		        l->init->sym->name, acc_expr_str(l->init->init), acc_expr_str(l->cond->rhs));
	else
		fprintf(out, "%s:%d:%d: loop %d: sync for (%s : %s)%s\n", l->file->name, line, col, L->id,
		        l->init->sym->name, acc_expr_str(l->lhs),
		        L->batched ? ", the body once per mini-batch" : "");
	explain_accesses(out, l, L);
	explain_clauses(out, l, L);
	if (l->kind == N_ASYNC && L->verdict != VD_REJECTED) {
		if (L->verdict == VD_SERIAL) {
			fprintf(out, "  slice: none (the loop is serialized)\n");
		} else if (!L->has_slice) {
			fprintf(out, "  slice: none (no dynamic key of a DDS the loop writes)\n");
			if (L->has_reads) {
				fprintf(out, "  read slice (on several ranks, each rank fetches the elements its "
				        "iterations read");
				for (int i = 0; i < L->slice_vars.n; i++)
					fprintf(out, "%s%s", i ? i == L->slice_vars.n - 1 ? " and " : ", " :
					        "; the slice runs again when ", ((Sym *)L->slice_vars.v[i])->name);
				fprintf(out, "%s):\n", !L->slice_vars.n ? "" : L->slice_vars.n == 1 ? " changes" :
				        " change");
				put_slice(out, l, L);
			} else if (L->reads_why) {
				fprintf(out, "  read slice: none (%s), so on several ranks the vectors it reads are "
				        "first made whole\n", L->reads_why);
			}
		} else {
			fprintf(out, "  slice:\n");
			put_slice(out, l, L);
		}
	}
	explain_verdict(out, l, L);
	explain_sums(out, l, L);
	explain_spans(out, l, L);
	explain_order(out, l, L);
	explain_checked_keys(out, L);
	explain_ranks(out, l, L);
	explain_additive(out, L);
}

void acc_explain(Program *p, FILE *out)
{
	for (int i = 0; i < p->loops.n; i++) {
		Node *l = p->loops.v[i];
		/* The slice marks on nodes are the last analysis's: redo it. */
		acc_analyse_loop(l);
		if (i)
			fputc('\n', out);
		explain_loop(out, l);
	}
	if (!p->loops.n)
		fprintf(out, "no parallel loops\n");
}
