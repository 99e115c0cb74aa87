/* slice.c: the reconnaissance slice of a parallel loop.
 *
 * From the units, controls and taint that access.c computed: the
 * statements and conditions the recorded keys depend on (marked in
 * Node.slice and Sym.needed), where each key is recorded, and the reason,
 * with its cause, when a key cannot be computed ahead of the loop.  A
 * stage of its own because it is the largest one, and the one whose
 * failures become the analysis's error messages.
 */
#include <string.h>
#include "sapc.h"
#include "grammar.h"

static bool mark_needed(Vec *syms)
{
	bool changed = false;
	for (int i = 0; i < syms->n; i++) {
		Sym *s = syms->v[i];
		if (!s->needed) {
			s->needed = true;
			changed = true;
		}
	}
	return changed;
}

static bool include_ctrl(Vec *cs)
{
	bool changed = false;
	for (int i = 0; i < cs->n; i++) {
		Node *n = cs->v[i];
		Ctl *c = n->aux;
		if (c->included)
			continue;
		c->included = true;
		changed = true;
		if (c->taint) {
			n->slice = SL_FLAT;
			if (n->kind == N_IF) {
				c->guard = acc_then_guard(n->cond, c->cond);
				c->skip = n->els ? acc_else_skip(n->cond, c->cond) : NULL;
				Vec uses = {0};
				acc_evaluable(c->guard, c->cond, &uses, NULL);
				acc_evaluable(c->skip, c->cond, &uses, NULL);
				mark_needed(&uses);
			}
		} else if (c->over) {
			n->slice = SL_INCLUDED;
			Vec uses = {0};
			acc_evaluable(c->guard, c->cond, &uses, NULL);
			mark_needed(&uses);
		} else {
			n->slice = SL_INCLUDED;
			if (c->cond)
				mark_needed(&c->cond->uses);
		}
	}
	return changed;
}

/* Building a read slice (try_read_slice): a failure only means there is
 * none. */
bool acc_soft, acc_soft_failed;

/* Building a sync for's slice: the vectors it records (all their
 * accesses, static ones too, since no key of a sync for is static in its
 * loop variable), and why it cannot, when it cannot. */
Vec acc_sync_only;
const char *acc_sync_reject;

static bool sync_records(Sym *d)
{
	for (int i = 0; i < acc_sync_only.n; i++)
		if (acc_sync_only.v[i] == d)
			return true;
	return false;
}

/* The node of e that starts furthest left: where a caret under e goes. */
Node *acc_leftmost(Node *e)
{
	Node *best = e;
	Node *kids[] = { e->lhs, e->rhs, e->cond };
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (kids[i] && e->kind != N_CALL) {
			Node *k = acc_leftmost(kids[i]);
			if (k->off < best->off)
				best = k;
		}
	return best;
}

/* Does expression e hold node x? */
static bool holds(Node *e, Node *x)
{
	if (!e)
		return false;
	if (e == x)
		return true;
	if (holds(e->lhs, x) || holds(e->rhs, x) || holds(e->cond, x) || holds(e->then, x) ||
	    holds(e->els, x))
		return true;
	if (e->kind == N_CALL)
		for (Node *a = e->args; a; a = a->next)
			if (holds(a, x))
				return true;
	return false;
}

void acc_reject(Node *at, const char *reason, Node *nat, const char *note)
{
	if (acc_loop->kind == N_SYNC) {
		/* Not an error: the vectors take the dense path. */
		(void)at, (void)nat, (void)note;
		if (!acc_sync_reject)
			acc_sync_reject = reason;
		return;
	}
	if (acc_soft) {
		acc_soft_failed = true;
		return;
	}
	if (acc_li->verdict == VD_REJECTED)
		return;
	acc_li->verdict = VD_REJECTED;
	acc_li->reason = reason;
	acc_li->reason_at = at;
	acc_li->note = note;
	acc_li->note_at = nat;
}


/* What unit u computes: its expression. */
Node *acc_unit_expr(Unit *u)
{
	Node *n = u->node;
	return n->kind == N_VAR ? n->init : n->kind == N_EXPR ? n->lhs :
	       u->is_step ? n->step : n->cond;
}

void acc_add_name(Vec *v, const char *name)
{
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], name))
			return;
	vec_push(v, (void *)name);
}

/* "a", "a and b", "a, b and c" */
char *acc_name_list(Vec *v)
{
	Buf b = {0};
	for (int i = 0; i < v->n; i++) {
		if (i)
			buf_puts(&b, i == v->n - 1 ? " and " : ", ");
		buf_puts(&b, v->v[i]);
	}
	return b.s ? b.s : xstrdup("");
}

/* The tainted condition that decides whether a jump is taken. */
static Ctl *jump_guard(Node *jn)
{
	for (int i = 0; i < acc_jumps.n; i++) {
		Jump *j = acc_jumps.v[i];
		if (j->node != jn)
			continue;
		bool inside = j->target == NULL;
		for (int k = 0; k < j->ctrl.n; k++) {
			Node *n = j->ctrl.v[k];
			if (n == j->target)
				inside = true;
			else if (inside && ((Ctl *)n->aux)->taint)
				return n->aux;
		}
	}
	return NULL;
}

/* The chain of causes behind a tainted local: the locals it passes
 * through, the written DDSs at its root (and the first read of one), the
 * first random draw on the way. */
typedef struct Cause {
	Vec vars, dds;
	Node *read, *draw;
	Node *fn;               /* a call of a function that draws random numbers */
	Sym *dds_of;            /* the DDS whose key this is: its read is the one to show */
} Cause;

static void cause_unit(Cause *c, Unit *u, Node *e)
{
	if (!c->draw && e && acc_has_rand(e))
		c->draw = e;
	if (!u)
		return;
	for (int i = 0; i < u->reads.n; i++) {
		Node *r = u->reads.v[i];
		if (acc_changing(r, u)) {
			acc_add_name(&c->dds, acc_read_dds(r)->name);
			if (!c->read || (acc_read_dds(r) == c->dds_of && acc_read_dds(c->read) != c->dds_of))
				c->read = r;
		}
	}
	if (!c->dds.n && u->rngcall)
		c->fn = u->rngcall;
}

static void cause_of(Cause *c, Sym *s, Unit *at)
{
	for (int guard = 0; s && guard < 1000; guard++) {
		Taint *x = acc_taint_at(s, at);
		if (!x)
			return;
		acc_add_name(&c->vars, s->name);
		Sym *next;
		if (!x->ctl) {
			cause_unit(c, x->from ? NULL : x->unit, acc_unit_expr(x->unit));
			next = x->from;
			at = x->unit;
		} else {
			Ctl *g = x->ctl->kind == N_CONTINUE ? jump_guard(x->ctl) : x->ctl->aux;
			if (g && g->jump)
				g = jump_guard(g->jump);
			if (!g)
				return;
			cause_unit(c, g->from ? NULL : g->cond, g->cond ? acc_unit_expr(g->cond) : NULL);
			next = g->from;
			at = g->cond;
		}
		s = next;
	}
}

static const char *line_of(Node *n)
{
	int line, col;
	diag_linecol(n->file, n->off, &line, &col);
	return format("line %d", line);
}

/* Is access a an addition to an element: 'D[k] += x', '-=', '++', '--'
 * (of the element or of a scalar inside it)? */
bool acc_adds_only(Access *a)
{
	Node *u = a->unit;
	Node *e = u->kind == N_EXPR ? u->lhs : NULL;
	bool ok = a->mode == ACC_RW && e &&
	          ((e->kind == N_ASSIGN && (e->op == TK_PLUS || e->op == TK_MINUS)) ||
	           e->kind == N_INCDEC);
	if (ok) {
		Node *b = e->lhs;
		while ((b->kind == N_INDEX && !acc_is_dds(b->lhs)) || b->kind == N_FIELD)
			b = b->lhs;
		ok = b == a->at;
	}
	return ok;
}

/* Is a the store of an addition written as C programmers often write
 * it, D[k] = D[k] + x (or x + D[k], or D[k] - x), which relaxed and
 * accumulate take as D[k] += x only?  The assignment, or NULL. */
static Node *add_as_store(Access *a)
{
	Node *u = a->unit;
	Node *e = u->kind == N_EXPR ? u->lhs : NULL;
	if (!(a->mode & ACC_WRITE) || !e || e->kind != N_ASSIGN || e->op != TK_ASSIGN)
		return NULL;
	Node *b = e->lhs;
	while ((b->kind == N_INDEX && !acc_is_dds(b->lhs)) || b->kind == N_FIELD)
		b = b->lhs;
	Node *r = sema_as_written(e->rhs);
	if (b != a->at || r->kind != N_BINARY || (r->op != TK_PLUS && r->op != TK_MINUS))
		return NULL;
	if (acc_same_expr(sema_as_written(r->lhs), e->lhs) ||
	    (r->op == TK_PLUS && acc_same_expr(sema_as_written(r->rhs), e->lhs)))
		return e;
	return NULL;
}

/* Is d a dvector of numbers this loop only reads and adds to, adding
 * somewhere, not accumulated?  *reads: whether it reads it too.  With
 * stores (not NULL), a store D[k] = D[k] + x counts as an addition too,
 * and *stores is the first such, if any. */
static bool only_adds_as(Sym *d, bool *reads, Node **stores)
{
	*reads = false;
	if (stores)
		*stores = NULL;
	if (!d || d->ty->kind != TY_DVEC || !ty_is_numeric(d->ty->elem) || acc_is_accum(acc_li, d))
		return false;
	bool adds = false;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (a->dds != d)
			continue;
		Node *st = a->mode != ACC_READ && stores && !acc_adds_only(a) ? add_as_store(a) : NULL;
		if (a->mode != ACC_READ && !acc_adds_only(a) && !st)
			return false;
		if (st && !*stores)
			*stores = st;
		adds |= a->mode != ACC_READ;
		*reads |= a->mode == ACC_READ;
	}
	return adds;
}

static bool only_adds(Sym *d, bool *reads)
{
	return only_adds_as(d, reads, NULL);
}

/* Could d be relaxed(+: d) in this loop: does it read and add to it? */
static bool could_relax(Sym *d)
{
	bool reads;
	return only_adds(d, &reads) && reads;
}

/* Could d join a relaxed DDS whose reads its keys depend on: a vector
 * this loop only adds to (a perceptron's second weight vector, updated
 * at the tag predicted from the first)? */
static bool could_relax_too(Sym *d)
{
	bool reads;
	return d && !acc_is_relaxed(acc_li, d) && only_adds(d, &reads) && !reads;
}

/* Does the loop store to d, a dvector of integers, other than by adding? */
static bool stores_ints(Sym *d)
{
	if (d->ty->kind != TY_DVEC || !ty_is_int(d->ty->elem))
		return false;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (a->dds == d && (a->mode & ACC_WRITE) && !acc_adds_only(a))
			return true;
	}
	return false;
}

/* Does the loop write (or add to) d, a dvector of integers? */
static bool writes_ints(Sym *d)
{
	if (d->ty->kind != TY_DVEC || !ty_is_int(d->ty->elem))
		return false;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (a->dds == d && (a->mode & ACC_WRITE))
			return true;
	}
	return false;
}

static int is_node(Node *n, void *target)
{
	return n == target;
}

static int tainted_ternary(Node *n, void *unit)
{
	return n->kind == N_COND && !acc_evaluable(n->cond, unit, NULL, NULL);
}

static int cond_of_ternary(Node *n, void *target)
{
	return n->kind == N_COND && emit_any_node(n->cond, is_node, target);
}

/* The note for a key of d that a read of d keeps unknown, if relaxing d
 * could be the way out (acc_analyse_loop tries it, and says so if it
 * works). */
static const char *relax_offer(Sym *d)
{
	bool reads;
	Node *st;
	if (acc_loop->kind == N_ASYNC && !could_relax(d) && only_adds_as(d, &reads, &st) && reads &&
	    st) {
		/* Not tried: the body as written assigns d. */
		int line, col;
		diag_linecol(st->file, st->off, &line, &col);
		const char *place = acc_expr_str(st->lhs);
		return format("the loop only reads %s and adds to it, but adds by a store at line %d: "
		              "written '%s += ...' (or -=) and declared relaxed(+: %s), it runs in "
		              "parallel, its reads of %s seeing the values at the start of the round plus "
		              "this worker's own updates (stale by at most one round); or use sync for, "
		              "whose iterations may read stale values", d->name, line, place, d->name,
		              d->name);
	}
	if (acc_loop->kind != N_ASYNC || !could_relax(d))
		return NULL;
	acc_li->relax_hint = d;
	return format("the loop only reads %s and adds to it: declared relaxed(+: %s), it runs in "
	              "parallel, its reads of %s seeing the values at the start of the round plus "
	              "this worker's own updates (stale by at most one round); or use sync for, "
	              "whose iterations may read stale values", d->name, d->name, d->name);
}

/* What call c (a unit's rngcall) gives that no slice can repeat. */
static const char *unrepeatable(const Node *c)
{
	if (c->builtin == B_WTIME)
		return "the clock, wtime()";
	if (c->sym->uses_rng)
		return format("random numbers drawn inside function '%s'", c->sym->name);
	return format("the clock, read inside function '%s'", c->sym->name);
}

static const char *unrepeatable_hint(const Node *c)
{
	if (c->builtin == B_NONE && c->sym->uses_rng)
		return "called here; draw with rand(), rand_int(n) or rand_normal() in the loop body "
		       "instead, or use sync for";
	return "read here; the slice runs before the body, so the body's keys cannot depend on the "
	       "time it reads";
}

/* Access a's key reads root, a DDS the loop writes or a function that
 * draws random numbers, directly or through the tainted local s. */
static int field_on(Node *n, void *arg)
{
	Node **f = arg;
	if (n->kind == N_FIELD && n->lhs == f[0]) {
		f[1] = n;
		return 1;
	}
	return 0;
}

/* The N_FIELD of the loop's body that selects a field of element at. */
static Node *field_of(Node *at)
{
	Node *f[2] = { at, NULL };
	emit_any_node(acc_loop->body, field_on, f);
	return f[1];
}

/* Gauss-Seidel with the unknown kept in the row, A[i].x = ...
 * A[A[i].a[k].col].x: the key reads a field of d that the loop never
 * writes, and the fix is to keep the written field in a vector of its
 * own, not sync for.  The hint, or NULL. */
static const char *field_hint(Node *read, Sym *d)
{
	Node *rf = read ? field_of(read) : NULL, *wf = NULL;
	if (!rf)
		return NULL;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b->dds != d || !(b->mode & ACC_WRITE))
			continue;
		Node *f = b->at->kind == N_INDEX ? field_of(b->at) : NULL;
		if (!f || f->field_index == rf->field_index ||
		    (wf && wf->field_index != f->field_index))
			return NULL;
		wf = f;
	}
	if (!wf)
		return NULL;
	if (d->ty->kind == TY_DMAP)
		return format("the loop writes only the field %.*s of %s's elements, and the key reads "
		              "their field %.*s: keep %.*s in a map of its own (dmap<%s, %s> %.*s), and "
		              "the key reads nothing the loop writes", wf->name.len, wf->name.p,
		              d->name, rf->name.len, rf->name.p, wf->name.len, wf->name.p,
		              ty_str(d->ty->key), ty_str(wf->ty), wf->name.len, wf->name.p);
	return format("the loop writes only the field %.*s of %s's elements, and the key reads their "
	              "field %.*s: keep %.*s in a vector of its own (dvector<%s> %.*s(len(%s))), and "
	              "the key reads nothing the loop writes", wf->name.len, wf->name.p, d->name,
	              rf->name.len, rf->name.p, wf->name.len, wf->name.p, ty_str(wf->ty),
	              wf->name.len, wf->name.p, d->name);
}

/* Does e read s? */
static bool mentions(Node *e, Sym *s)
{
	if (!e)
		return false;
	if (e->kind == N_NAME && e->sym == s)
		return true;
	if (e->kind == N_CALL)
		for (Node *x = e->args; x; x = x->next)
			if (mentions(x, s))
				return true;
	return mentions(e->lhs, s) || mentions(e->rhs, s) || mentions(e->cond, s) ||
	       mentions(e->then, s) || mentions(e->els, s);
}

/* A flat matrix's key r * K + s, K a constant and s the local the slice
 * cannot know (LDA's counts, ndk[d * K + k] with k drawn from them): as a
 * dvector of rows, ndk[d][k], the key is r, which it may know. */
static const char *rows_hint(Access *a, Sym *s)
{
	Node *k = a->key;
	while (k->kind == N_CONV)
		k = k->lhs;
	if (!s || a->dds->ty->kind != TY_DVEC || k->kind != N_BINARY || k->op != TK_PLUS)
		return NULL;
	for (int side = 0; side < 2; side++) {
		Node *m = side ? k->lhs : k->rhs, *col = side ? k->rhs : k->lhs;
		while (col->kind == N_CONV)
			col = col->lhs;
		while (m->kind == N_CONV)
			m = m->lhs;
		/* long base = i * K; ... H[base + c] (helper HASH: a heap per
		 * iteration in its row). */
		while (m->kind == N_NAME && m->sym && m->sym->kind == SYM_VAR && !m->sym->modified &&
		       m->sym->vclass == V_LOCAL && m->sym->decl && m->sym->decl->kind == N_VAR &&
		       m->sym->decl->init) {
			m = m->sym->decl->init;
			while (m->kind == N_CONV)
				m = m->lhs;
		}
		if (col->kind != N_NAME || col->sym != s || m->kind != N_BINARY || m->op != TK_STAR)
			continue;
		int64_t n;
		for (int f = 0; f < 2; f++) {
			Node *c = f ? m->lhs : m->rhs, *row = f ? m->rhs : m->lhs;
			if (!sema_const_int(c, &n) || n < 1 || n > 1 << 20 || mentions(row, s))
				continue;
			return format("if %s stays in [0, %lld), declared a dvector<%s[%s]> and written "
			              "%s[%s][%s], its key is the row, %s, and the loop stays exact",
			              s->name, (long long)n, ty_str(a->dds->ty->elem), acc_expr_str(c),
			              a->dds->name, acc_expr_str(row), s->name, acc_expr_str(row));
		}
	}
	return NULL;
}

/* The first read in e of a DDS the loop changes (an index, or a call
 * such as get(m, k, d)), or NULL. */
static Node *changing_read(Node *e)
{
	if (!e)
		return NULL;
	if ((e->kind == N_INDEX || (e->kind == N_CALL && e->builtin != B_NONE && e->args)) &&
	    acc_read_dds(e) && acc_changing(e, NULL))
		return e;
	Node *r = changing_read(e->lhs);
	r = r ? r : changing_read(e->rhs);
	r = r ? r : changing_read(e->cond);
	r = r ? r : changing_read(e->then);
	r = r ? r : changing_read(e->els);
	for (Node *x = e->kind == N_CALL ? e->args : NULL; !r && x; x = x->next)
		r = changing_read(x);
	return r;
}

static void reject_key(Access *a, Node *root, Sym *s, Unit *u)
{
	const char *acc = format("%s[%s]", a->dds->name, acc_expr_str(a->key));
	const char *when = acc_loop->kind == N_SYNC ? "before each step runs" : "before the loop runs";
	const char *hint = "an async for must know every iteration's keys before it runs; use sync "
	                   "for, whose iterations may read stale values, or a plain for, which "
	                   "runs in order";
	/* A sync for that changes a map's keys runs on one worker: no
	 * way out (helper PROB's DP mixture, its clusters' counts). */
	LoopInfo *li = acc_loop->li;
	Sym *ins = NULL;
	for (int i = -1; li && acc_loop->kind != N_SYNC && !ins && i < li->dds.n; i++) {
		Sym *d = i < 0 ? a->dds : li->dds.v[i];
		if (d->ty->kind != TY_DVEC && acc_inserts(li, d))
			ins = d;
	}
	if (ins)
		hint = format("an async for must know every iteration's keys before it runs; use a "
		              "plain for, which runs in order (a sync for that inserts or erases keys "
		              "of %s would run on one worker)", ins->name);
	/* The straight port of LDA, a count drawn by weights from counts:
	 * acc_analyse_loop says so if relaxing the count makes the loop run. */
	const char *relax_hint = relax_offer(a->dds);
	Cause c = {0};
	c.dds_of = a->dds;
	if (s)
		cause_of(&c, s, u);
	else
		cause_unit(&c, NULL, a->key);
	if (!c.read && root->kind != N_CALL && acc_read_dds(root) && acc_changing(root, NULL)) {
		c.read = root;
		acc_add_name(&c.dds, acc_read_dds(root)->name);
	}
	if (!c.read && !c.fn && root->kind == N_CALL &&
	    (root->builtin == B_NONE || root->builtin == B_WTIME))
		c.fn = root;
	if (c.fn && !c.read) {
		acc_reject(acc_leftmost(a->key), format("the key of %s is not known %s: %s %s, which a "
		                              "reconnaissance slice cannot predict", acc, when,
		                              s ? format("%s depends on", s->name) : "it depends on",
		                              unrepeatable(c.fn)),
		           c.fn, unrepeatable_hint(c.fn));
		return;
	}
	/* A relaxed read: the slice cannot know the worker's round. */
	if (c.read && acc_is_relaxed(acc_li, acc_read_dds(c.read)) && !could_relax(a->dds))
		hint = format("%s is relaxed, so its reads see this worker's round, which no slice can "
		              "know before the loop runs; only the key of a relaxed or accumulated DDS, "
		              "or an index inside an element, may depend on them",
		              acc_read_dds(c.read)->name);
	/* parent[a] = parent[parent[a]]: keys kept in a vector of integers
	 * the loop stores to (a union-find, a linked list), which a sync
	 * for would merge by average or sum into no key at all (helper SER:
	 * 2 components of 8). */
	Sym *kd = c.read ? acc_read_dds(c.read) : NULL;
	bool no_sync = kd && !ins && !relax_hint && acc_loop->kind == N_ASYNC && stores_ints(kd);
	if (no_sync)
		hint = format("an async for must know every iteration's keys before it runs; use a "
		              "plain for, which runs in order (a sync for would merge the workers' "
		              "stores to %s, integers its keys come from, into their average or "
		              "sum: a key no worker stored)", kd->name);
	/* order[start[c] + fill[c]] = i; fill[c] += 1: a scatter by
	 * counters, which stale in a sync for store to the same slots
	 * (helper GEO: 200 of 300 points lost or doubled on 2 x 2). */
	if (!no_sync && kd && !ins && !relax_hint && acc_loop->kind == N_ASYNC && writes_ints(kd) &&
	    (!acc_adds_to(a) || kd != a->dds) && !acc_is_relaxed(acc_li, kd)) {
		no_sync = true;
		hint = format("an async for must know every iteration's keys before it runs; use a "
		              "plain for, which runs in order (in a sync for, each worker would read "
		              "%s, integers its keys come from, as of its step's start, and write "
		              "where another worker writes too)", kd->name);
	}
	/* The slice takes each branch of an if in turn, not of a ?: (a
	 * value, whose branches may not both be evaluable). */
	/* Or through locals, the usual way: la = label[a]; ... tgt = la < lb ?
	 * b : a; the key's own local chosen by a condition it cannot know. */
	/* Written as an if, the loop stays exact: that before relaxed (an
	 * additive update's ?: key got only the relaxed advice, which
	 * changes the results). */
	Taint *tx = s ? acc_taint_at(s, u) : NULL;
	if (c.read && acc_loop->kind == N_ASYNC &&
	    (emit_any_node(acc_loop->body, cond_of_ternary, c.read) ||
	     (u && emit_any_node(a->key, tainted_ternary, u)) ||
	     (tx && tx->unit && !tx->ctl &&
	      emit_any_node(acc_unit_expr(tx->unit), tainted_ternary, tx->unit)))) {
		hint = relax_hint ? format("%s; or %s", TERNARY_IF, relax_hint)
		       : no_sync ? TERNARY_IF
		                  : format("%s, or use sync for, whose iterations may read stale "
		                           "values", TERNARY_IF);
		acc_li->relax_ternary = relax_hint != NULL;
	}
	/* Relaxing the DDS read made the key of one only added to depend on
	 * a relaxed read: relaxed too, it may (acc_analyse_loop tries). */
	if (!relax_hint && c.read && acc_loop->kind == N_ASYNC &&
	    acc_is_relaxed(acc_li, acc_read_dds(c.read)) && could_relax_too(a->dds)) {
		acc_li->relax_hint = a->dds;
		relax_hint = "";
	}
	if (relax_hint && c.read)
		acc_li->relax_note = format("%s is read here; %s", acc_read_dds(c.read)->name, relax_hint);
	/* Its additions written as stores: not tried, only said. */
	if (relax_hint && !acc_li->relax_hint && !acc_li->relax_ternary && c.read &&
	    acc_read_dds(c.read) == a->dds)
		hint = relax_hint;
	/* if ((j = nbr[i]) > 0 && w[j] > 0.1): j itself is knowable, but the
	 * slice evaluates a condition whole or not at all. */
	Taint *tc = s ? acc_taint_at(s, u) : NULL;
	Node *cn = tc && tc->unit && !tc->ctl ? tc->unit->node : NULL;
	if (cn && ((cn->kind != N_IF && cn->kind != N_WHILE && cn->kind != N_DO) ||
	           !cn->cond || ((Ctl *)cn->aux)->cond != tc->unit))
		cn = NULL;
	if (cn && c.read)
		hint = format("the slice evaluates a condition whole or not at all: assign %s in a "
		              "statement of its own before the %s", s->name,
		              cn->kind == N_IF ? "if" : "loop");
	const char *fh = c.read && !cn ? field_hint(c.read, acc_read_dds(c.read)) : NULL;
	if (fh)
		hint = fh;
	Node *ow = c.read && !cn && !fh ? acc_own_write_before(c.read) : NULL;
	if (ow)
		hint = format("%s is the iteration's own element, which the body writes before this "
		              "read (%s): a slice knows only its value before the loop; read it into "
		              "a local before writing it (int v = ...; %s = v;) and use the local",
		              acc_expr_str(c.read), line_of(ow), acc_expr_str(ow));
	/* while (e < end) { ...; if (x[c] > t) break; e++; }: e is assigned
	 * after a break the slice cannot evaluate; a for loop's counter,
	 * advanced by its step, the slice follows past such a break. */
	Taint *tw = s && !ow && !fh && !cn ? acc_taint_at(s, u) : NULL;
	for (int hop = 0; tw && !tw->ctl && tw->from && hop < 16; hop++)
		tw = acc_taint_at(tw->from, tw->unit);
	if (tw && tw->ctl && (tw->ctl->kind == N_WHILE || tw->ctl->kind == N_DO) &&
	    ((Ctl *)tw->ctl->aux)->jump) {
		Node *d = tw->sym->decl;
		const char *from = d && d->kind == N_VAR && d->init ? acc_expr_str(d->init) : "...";
		hint = format("%s is advanced in the loop at %s after its break at %s, which depends on "
		              "%s: written as a for loop that sets and advances %s itself "
		              "(for (%s = %s; %s; %s++)), with the break inside, its keys are known for "
		              "every pass the loop may make; or use sync for, whose iterations may read "
		              "stale values", tw->sym->name, line_of(tw->ctl),
		              line_of(((Ctl *)tw->ctl->aux)->jump), acc_name_list(&c.dds), tw->sym->name,
		              tw->sym->name, from, acc_expr_str(tw->ctl->cond), tw->sym->name);
	}
	if (!s) {
		/* Read through get(m, k, d), which the cause missed (helper
		 * U23: a null dereference). */
		Node *rd = c.read ? c.read : changing_read(a->key);
		const char *nm = rd ? acc_read_dds(rd)->name : a->dds->name;
		acc_reject(acc_leftmost(a->key), format("the key of %s is not known %s: it reads %s, "
		                              "which this loop writes", acc, when,
		                              c.dds.n ? acc_name_list(&c.dds) : nm),
		           rd ? rd : a->key, format("%s is read here; %s", nm, hint));
		return;
	}
	Taint *x = acc_taint_at(s, u);
	Vec via = {0};
	for (int i = 1; i < c.vars.n; i++)
		vec_push(&via, c.vars.v[i]);
	const char *through = via.n ? format(", through %s,", acc_name_list(&via)) : "";
	const char *on = c.draw ? format("a random draw (%s) and on %s", line_of(c.draw),
	                                 acc_name_list(&c.dds)) : acc_name_list(&c.dds);
	const char *what = format("%s depends%s on %s", s->name, through, on);
	if (cn)
		what = format("%s is assigned inside a condition (%s) that depends%s on %s", s->name,
		              line_of(cn), through, on);
	const char *tail = "";
	Ctl *g = x && x->ctl && x->ctl->kind != N_CONTINUE ? x->ctl->aux : NULL;
	if (x && x->ctl && x->ctl->kind == N_CONTINUE)
		what = format("%s is assigned after a continue (%s) whose condition depends%s on %s",
		              s->name, line_of(x->ctl), through, on);
	else if (g && !g->is_loop) {
		/* Why the slice does not take each branch in turn. */
		Node *in = NULL;
		for (int k = 0; k < g->ctrl.n && !in; k++)
			if (((Ctl *)((Node *)g->ctrl.v[k])->aux)->is_loop)
				in = g->ctrl.v[k];
		tail = in ? format("; the condition is in the loop at %s, where the slice cannot "
		                   "take each of its branches in turn", line_of(in)) :
		       acc_li->nforks == MAX_FORKS ? format("; the slice takes each branch in turn of at "
		                                        "most %d such conditions", MAX_FORKS) : "";
		what = format("%s is assigned under a condition (%s) that depends%s on %s", s->name,
		              line_of(x->ctl), through, on);
	}
	else if (x && !x->ctl && x->from) {
		/* Through other locals to the one a condition taints: why
		 * the slice does not take its branches (a, b, ... g under
		 * seven conditions, k = a + ... + g). */
		Taint *r = x;
		for (int hop = 0; r && !r->ctl && r->from && hop < 16; hop++)
			r = acc_taint_at(r->from, r->unit);
		Ctl *rg = r && r->ctl && r->ctl->kind == N_IF ? r->ctl->aux : NULL;
		bool in_loop = false;
		for (int k = 0; rg && k < rg->ctrl.n; k++)
			in_loop |= ((Ctl *)((Node *)rg->ctrl.v[k])->aux)->is_loop;
		if (rg && !in_loop && acc_li->nforks == MAX_FORKS)
			tail = format("; %s is assigned under a condition (%s), and the slice takes each "
			              "branch in turn of at most %d such conditions", r->sym->name,
			              line_of(r->ctl), MAX_FORKS);
	}
	else if (g && x->unit && acc_has_rand(acc_unit_expr(x->unit))) {
		what = format("%s is drawn at random (%s) in a loop (%s) whose %s depends%s on %s",
		              s->name, line_of(x->unit->node), line_of(x->ctl),
		              g->jump ? "break" : "condition", through, on);
		tail = "; the slice cannot know how many numbers the body draws there";
	}
	else if (g && g->jump)
		what = format("%s is set by a loop (%s) whose break (%s) depends%s on %s", s->name,
		              line_of(x->ctl), line_of(g->jump), through, on);
	else if (g)
		what = format("%s is set by a loop (%s) whose condition depends%s on %s", s->name,
		              line_of(x->ctl), through, on);
	const char *rows = c.read && acc_loop->kind == N_ASYNC ? rows_hint(a, s) : NULL;
	if (rows)
		hint = format("%s; or %s", rows, hint);
	acc_li->rows_hint = rows;
	acc_reject(acc_leftmost(a->key), format("the key of %s is not known %s: %s, which "
	                                        "this loop writes%s", acc, when, what, tail),
	           c.read, format("%s is read here; %s", c.read ? acc_read_dds(c.read)->name : "?", hint));
}

/* Is any of syms assigned inside control node c (its body, condition or
 * step)? */
bool acc_defined_inside(Node *c, Vec *syms)
{
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		bool in = u->node == c && c->kind != N_IF;
		for (int k = 0; k < u->ctrl.n && !in; k++)
			in = u->ctrl.v[k] == c;
		if (!in)
			continue;
		for (int k = 0; k < u->defs.n; k++)
			for (int m = 0; m < syms->n; m++)
				if (u->defs.v[k] == syms->v[m])
					return true;
	}
	return false;
}

/* Assigned by one statement at the body's top level (or the loop
 * variable): the same value wherever it is read after that. */
static bool assigned_once(Sym *s)
{
	if (s == acc_iv)
		return true;
	int n = 0;
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		for (int k = 0; k < u->defs.n; k++)
			if (u->defs.v[k] == s) {
				if (u->ctrl.n || u->is_step || u->node->aux)
					return false;
				n++;
			}
	}
	return n == 1;
}

/* The unit holding access a: a loop's condition and step are two units
 * of one node. */
static Unit *access_unit(const Access *a)
{
	for (int k = 0; k < acc_units.n; k++) {
		Unit *x = acc_units.v[k];
		if (x->node == a->unit && (!x->node->aux || x->node->kind == N_IF ||
		                           holds(x->is_step ? x->node->step : x->node->cond, a->at)))
			return x;
	}
	return NULL;
}

/* While comparing two loops, x's variable as_x stands for y's as_y, and
 * a local that loop_x (loop_y) defines once at its top stands for its
 * initial value (loop_local). */
static Sym *as_x, *as_y;
static Node *loop_x, *loop_y;
static Node *loop_local(Node *l, Sym *v, Sym *s);

/* Do x and y compute the same value from the same variables?  Keys have
 * no side effects and draw no random numbers (acc_build_slice rejects those). */
bool acc_same_expr(const Node *x, const Node *y)
{
	if (!x || !y)
		return x == y;
	if (as_x) {
		Node *d;
		if (x->kind == N_NAME && x->sym != as_x && (d = loop_local(loop_x, as_x, x->sym)))
			return acc_same_expr(d->init, y);
		if (y->kind == N_NAME && y->sym != as_y && (d = loop_local(loop_y, as_y, y->sym)))
			return acc_same_expr(x, d->init);
	}
	if (x->kind != y->kind || x->op != y->op || x->postfix != y->postfix ||
	    (x->sym != y->sym && !(as_x && x->sym == as_x && y->sym == as_y)) ||
	    x->field_index != y->field_index || x->builtin != y->builtin || x->ival != y->ival ||
	    x->fval != y->fval || x->rsite || y->rsite ||
	    (x->kind == N_CONV && x->ty != y->ty) ||
	    ((x->sval || y->sval) && (!x->sval || !y->sval || strcmp(x->sval, y->sval) != 0)))
		return false;
	if (!acc_same_expr(x->lhs, y->lhs) || !acc_same_expr(x->rhs, y->rhs) ||
	    !acc_same_expr(x->cond, y->cond) || !acc_same_expr(x->then, y->then) ||
	    !acc_same_expr(x->els, y->els))
		return false;
	const Node *p = x->args, *q = y->args;
	for (; p && q; p = p->next, q = q->next)
		if (!acc_same_expr(p, q))
			return false;
	return !p && !q;
}

static Sym *plain_for(Node *l);

/* Is x's context, its enclosing control nodes, y's or one around y's?
 * The branches of an if are two contexts: a unit in the then branch
 * runs in no iteration that runs one in the else branch. */
static bool ctrl_within(const Unit *x, const Unit *y)
{
	if (x->ctrl.n > y->ctrl.n)
		return false;
	for (int k = 0; k < x->ctrl.n; k++)
		if (x->ctrl.v[k] != y->ctrl.v[k] || x->branch.v[k] != y->branch.v[k])
			return false;
	return true;
}

/* Does local s keep one value from unit b to the units after b in b's
 * context: assigned once, at the top level or before b in b's context
 * or one around it (int u = G[v].nb[k] in a loop over k), or the counter
 * of a plain loop around b? */
static bool fixed_from(Sym *s, const Unit *b)
{
	if (assigned_once(s))
		return true;
	for (int k = 0; k < b->ctrl.n; k++) {
		Node *n = b->ctrl.v[k];
		if (n->kind == N_FOR && plain_for(n) == s)
			return true;
	}
	const Unit *def = NULL;
	for (int i = 0; i < acc_units.n; i++) {
		const Unit *u = acc_units.v[i];
		for (int k = 0; k < u->defs.n; k++)
			if (u->defs.v[k] == s) {
				if (def)
					return false;
				def = u;
			}
	}
	return def && !def->is_step && !def->node->aux && def->pos < b->pos && ctrl_within(def, b);
}

/* An access the slice records anyway, before a, in a's context or one
 * around it (the body's top level, the condition of an if a is under),
 * with the same key, whose variables keep their values from there to a:
 * every iteration that runs a has run it, so recording a adds no key,
 * only the conditions a is under, which would make the slice read what
 * decides them (a pass counter of the driver, say; the minimum so far of
 * the very vector read, if (lab[u] < m) m = lab[u], which then had to be
 * whole on every rank) and plan again whenever that changes. */
static Access *recorded_before(const Access *a, const Unit *u, const Vec *uses)
{
	if (!u || !u->ctrl.n || u->is_step || u->node->aux)
		return NULL;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b == a || b->dds != a->dds || !b->dynamic || b->accumulate || !b->recorded ||
		    b->folded_into)
			continue;
		const Unit *ub = access_unit(b);
		if (!ub || ub->is_step || (ub->node->aux && ub->node->kind != N_IF) ||
		    ub->pos >= u->pos || !ctrl_within(ub, u) || !acc_same_expr(a->key, b->key))
			continue;
		bool fixed = true;
		for (int k = 0; k < uses->n && fixed; k++)
			fixed = fixed_from(uses->v[k], ub);
		if (fixed)
			return b;
	}
	return NULL;
}

/* Does a (in unit u, its key reading the locals uses) follow a recorded
 * access of the same key expression with an assignment to one of those
 * locals between them (k = w[i]; y[k] ...; k = z[i]; y[k] ...)? */
static bool rekeyed(const Access *a, const Unit *u, const Vec *uses)
{
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b == a || b->dds != a->dds || !b->recorded || !acc_same_expr(a->key, b->key))
			continue;
		const Unit *ub = access_unit(b);
		for (int j = 0; ub && j < acc_units.n; j++) {
			const Unit *d = acc_units.v[j];
			if (d->pos <= ub->pos || d->pos >= u->pos)
				continue;
			for (int k = 0; k < d->defs.n; k++)
				for (int m = 0; m < uses->n; m++)
					if (d->defs.v[k] == uses->v[m])
						return true;
		}
	}
	return false;
}

/* Does unit u (a loop's header part) compute what it did at the loop's
 * start whenever it runs, from v, locals assigned once, and DDSs the loop
 * does not write? */
static bool header_fixed(const Unit *u, const Sym *v)
{
	if (!u || u->rngcall || u->ddswrite || u->effect)
		return false;
	for (int k = 0; k < u->uses.n; k++)
		if (u->uses.v[k] != v && !assigned_once(u->uses.v[k]))
			return false;
	for (int k = 0; k < u->reads.n; k++)
		if (acc_written(acc_read_dds(u->reads.v[k])))
			return false;
	return true;
}

/* The variable of l if l is for (T v = a; cond; step) with a, cond and
 * step fixed as header_fixed says, v assigned in its header only, and no
 * break or continue of its own; else NULL. */
static Sym *plain_for(Node *l)
{
	if (l->kind != N_FOR || !l->init || l->init->kind != N_VAR || !l->cond || !l->step)
		return NULL;
	Ctl *c = l->aux;
	Sym *v = l->init->sym;
	if (c->taint || c->over || !header_fixed(c->cond, v) || !header_fixed(c->step, v))
		return NULL;
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		bool init = u->node == l->init;
		if (init && !header_fixed(u, v))
			return NULL;
		for (int k = 0; k < u->defs.n; k++)
			if (u->defs.v[k] == v && !init && u != c->step)
				return NULL;
		if (u == c->step && u->defs.n != 1)
			return NULL;
	}
	for (int i = 0; i < acc_jumps.n; i++)
		if (((Jump *)acc_jumps.v[i])->target == l)
			return NULL;
	return v;
}

/* The declaration of s if it is the only assignment of s, in the body of
 * loop l (counter v) and under no condition or loop there, with an
 * initial value header_fixed allows: Entry e = X[j].x[k]; else NULL. */
static Node *loop_local(Node *l, Sym *v, Sym *s)
{
	Unit *def = NULL;
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		for (int k = 0; k < u->defs.n; k++)
			if (u->defs.v[k] == s) {
				if (def)
					return NULL;
				def = u;
			}
	}
	if (!def || def->is_step || def->node->kind != N_VAR || def->node->sym != s ||
	    !def->node->init || def->ctrl.n == 0 || def->ctrl.v[def->ctrl.n - 1] != l ||
	    !header_fixed(def, v))
		return NULL;
	return def->node;
}

/* Whether a jump between units at from and to (either order) can end
 * the body's iteration: a continue of the loop, or a return. */
static bool leaves_between(int from, int to)
{
	int lo = from < to ? from : to, hi = from < to ? to : from;
	for (int i = 0; i < acc_jumps.n; i++) {
		const Jump *j = acc_jumps.v[i];
		if (!j->target && j->pos >= lo && j->pos <= hi)
			return true;
	}
	return false;
}

/* An access the slice records anyway in another loop with the same
 * header, at the body's top level, with the same key but for the loop
 * variable: sparse updates read a row's entries in one loop and update
 * them in another (under a condition, say).  Every pass of a's loop
 * repeats one of the other loop, which recorded the key unconditionally
 * before it or records it after, with no way out of the iteration in
 * between; recording a again would double the slice's work and the key
 * log, and a's condition would make the slice read what decides it (a
 * sampler's old topic, for (j ...) if (j == old) n[d * K + j]--, which
 * the loop writes: planned again at every sweep). */
static Access *recorded_in_twin_loop(const Access *a, const Unit *u, const Vec *uses)
{
	if (!u || u->is_step || u->node->aux)
		return NULL;
	Node *l2 = NULL;
	for (int k = 0; k < u->ctrl.n; k++) {
		Node *c = u->ctrl.v[k];
		if (((Ctl *)c->aux)->is_loop) {
			if (l2)
				return NULL;
			l2 = c;
		}
	}
	Sym *v2 = l2 ? plain_for(l2) : NULL;
	if (!v2)
		return NULL;
	bool guarded = false;
	for (int k = 0; k < u->ctrl.n; k++)
		guarded |= !((Ctl *)((Node *)u->ctrl.v[k])->aux)->is_loop;
	for (int k = 0; k < uses->n; k++)
		if (uses->v[k] != v2 && !assigned_once(uses->v[k]) && !loop_local(l2, v2, uses->v[k]))
			return NULL;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b == a || b->dds != a->dds || !b->dynamic || b->accumulate || b->folded_into)
			continue;
		const Unit *ub = access_unit(b);
		if (!ub || ub->is_step || ub->node->aux || ub->ctrl.n != 1 || ub->pos == u->pos ||
		    leaves_between(u->pos, ub->pos))
			continue;
		/* One before has been seeded: recorded, unless folded; one
		 * after will be, as a is (the same vector), or the loop is
		 * rejected.  Folding into one after is worth it where a is
		 * under a condition, which the slice then need not decide. */
		if (ub->pos < u->pos ? !b->recorded : !guarded)
			continue;
		Node *l1 = ub->ctrl.v[0];
		Sym *v1 = l1 != l2 ? plain_for(l1) : NULL;
		if (!v1 || v1->ty != v2->ty)
			continue;
		as_x = v2;
		as_y = v1;
		loop_x = l2;
		loop_y = l1;
		bool same = acc_same_expr(l2->init->init, l1->init->init) &&
		            acc_same_expr(l2->cond, l1->cond) && acc_same_expr(l2->step, l1->step) &&
		            acc_same_expr(a->key, b->key);
		as_x = as_y = NULL;
		if (same)
			return b;
	}
	return NULL;
}

/* In a read slice, a static read of a vector the loop also reads at
 * dynamic keys (x[u] beside x[G[u].nb[e]]): recorded too, so that the
 * runtime knows every key of the vector the loop reads and fetches
 * those, not the whole vector (a path graph's smoothing sent each rank's
 * whole half of x every pass for one neighbour).  Not one whose key
 * reads a driver variable or draws, which a read slice cannot take. */
static bool read_beside_dynamic(const Access *a)
{
	if (!acc_soft || a->dynamic || a->mode != ACC_READ || acc_driver_read(a->key) ||
	    acc_has_rand(a->key))
		return false;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		const Access *b = acc_li->accesses.v[i];
		if (b->dds == a->dds && b->dynamic && !b->accumulate)
			return true;
	}
	return false;
}

/* The slice reads r: of a DDS it reads, and, unless only at a part the
 * loop never changes, of one the loop's own writes make it re-plan. */
static void slice_read(Node *r)
{
	Sym *d = acc_read_dds(r);
	acc_add_sym(&acc_li->slice_reads, d);
	if (acc_written(d) && !acc_read_fixed(r))
		acc_add_sym(&acc_li->slice_moving, d);
}

/* A recorded access: its key checked, the locals it needs marked, and
 * where the slice records it.  False when the key is rejected. */
static bool seed_key(Access *a)
{
	if (acc_loop->kind == N_SYNC)
		a->recorded = sync_records(a->dds);
	else
		a->recorded = (a->dynamic || read_beside_dynamic(a)) && !a->accumulate &&
		              (acc_soft ? a->dds->ty->kind == TY_DVEC : acc_written(a->dds)) &&
		              !acc_fixed_keys(a->at);
	if (!a->recorded)
		return true;
	Unit *u = access_unit(a);
	/* The key's own locals. */
	Unit tmp = {0};
	Unit *saved = acc_cur;
	acc_cur = &tmp;
	int nacc = acc_li->accesses.n;
	acc_walk_expr(a->key);
	acc_li->accesses.n = nacc;
	acc_cur = saved;
	for (int k = 0; k < tmp.reads.n; k++) {
		Node *r = tmp.reads.v[k];
		if (acc_changing(r, u)) {
			reject_key(a, r, NULL, u);
			return false;
		}
		/* U[X[i].u]: a new X may move the keys. */
		slice_read(r);
	}
	if (tmp.rngcall) {
		reject_key(a, tmp.rngcall, NULL, u);
		return false;
	}
	/* h[rand_int(n)] in a loop the slice runs once for all its trips. */
	for (int k = 0; u && acc_has_rand(a->key) && k < u->ctrl.n; k++) {
		Node *n = u->ctrl.v[k];
		Ctl *c = n->aux;
		if (!c->taint || !c->is_loop || c->fork)
			continue;
		Sym *d = acc_read_dds(c->taint);
		const char *relax = d ? relax_offer(a->dds) : NULL;
		if (relax)
			acc_li->relax_note = format("%s is read here; %s", d->name, relax);
		acc_reject(acc_leftmost(a->key), format("the key of %s[%s] is not known %s: it is drawn at "
		                                        "random in a loop (%s) whose %s depends on %s; the "
		                                        "slice cannot know how many numbers the body draws "
		                                        "there", a->dds->name, acc_expr_str(a->key),
		                                        acc_loop->kind == N_SYNC ? "before each step runs" :
		                                        "before the loop runs", line_of(n),
		                                        c->jump ? "break" : "condition",
		                                        d ? format("%s, which this loop writes", d->name) :
		                                        "random numbers drawn inside a function"),
		           c->taint, d ? format("%s is read here; use sync for, whose iterations may read "
		                                "stale values", d->name) :
		           "called here; draw with rand(), rand_int(n) or rand_normal() in the loop body "
		           "instead, or use sync for");
		return false;
	}
	if (tmp.ddswrite || tmp.defs.n || tmp.effect) {
		const char *what = tmp.defs.n ? format("it assigns %s", ((Sym *)tmp.defs.v[0])->name) :
		                   tmp.effect ? format("it assigns %s", acc_expr_str(tmp.effect)) :
		                   format("it writes %s", acc_expr_str(tmp.ddswrite));
		acc_reject(acc_leftmost(a->key), format("the key of %s[%s] has a side effect (%s), which a slice that "
		                              "computes keys in advance cannot repeat: compute it into a "
		                              "variable first", a->dds->name, acc_expr_str(a->key), what),
		           NULL, NULL);
		return false;
	}
	for (int k = 0; k < tmp.uses.n; k++) {
		Sym *s = tmp.uses.v[k];
		Taint *x = acc_taint_at(s, u);
		if (x) {
			reject_key(a, x->root, s, u);
			return false;
		}
	}
	Access *b = acc_loop->kind == N_SYNC ? NULL : recorded_before(a, u, &tmp.uses);
	if (!b && acc_loop->kind != N_SYNC)
		b = recorded_in_twin_loop(a, u, &tmp.uses);
	if (b) {
		b->folded |= a->mode;
		a->folded_into = b;
		a->recorded = false;
		return true;
	}
	a->rekeyed = u && rekeyed(a, u, &tmp.uses);
	mark_needed(&tmp.uses);
	acc_li->has_slice = true;
	if (!u)
		return true;
	/* Record it before the outermost enclosing loops that do not
	 * change its key: once per iteration of the async for instead of
	 * once per pass of an inner loop.  Not out of an if, which would
	 * record keys of branches not taken, nor out of any loop when the
	 * key draws a random number, which is another on every pass. */
	a->anchor = u->node;
	int depth = u->ctrl.n;
	bool draws = acc_has_rand(a->key);
	while (depth > 0 && !draws) {
		Node *c = u->ctrl.v[depth - 1];
		if (!((Ctl *)c->aux)->is_loop || acc_defined_inside(c, &tmp.uses))
			break;
		a->anchor = c;
		depth--;
	}
	if (depth == u->ctrl.n && u->node->aux && u->node->kind != N_IF) {
		acc_reject(acc_leftmost(a->key), format("the key of %s[%s] in the %s of the loop changes inside that "
		                              "loop, but a slice records the keys of a loop's header once, "
		                              "before it: move the access into the loop body%s", a->dds->name,
		                              acc_expr_str(a->key), u->is_step ? "step" : "condition",
		                              u->is_step ? "" : " (for (k = 0; k < n && c; k++) body is "
		                              "for (k = 0; k < n; k++) { if (!(c)) break; body })"),
		           NULL, NULL);
		return false;
	}
	Vec outer = {0};
	for (int k = 0; k < depth; k++)
		vec_push(&outer, u->ctrl.v[k]);
	include_ctrl(&outer);
	a->stable = depth == 0;
	for (int k = 0; k < tmp.uses.n && a->stable; k++)
		a->stable = assigned_once(tmp.uses.v[k]);
	return true;
}

/* Everything the needed locals depend on, to a fixed point: the units
 * assigning them, the conditions around those, and the jumps deciding
 * which iterations of an included loop run. */
static void include_needed(void)
{
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < acc_units.n; i++) {
			Unit *u = acc_units.v[i];
			if (u->included)
				continue;
			/* Not an assignment of an unknowable value: every use it
			 * reaches is tainted, so no recorded key needs it. */
			bool need = false;
			for (int k = 0; k < u->defs.n && !need; k++)
				need = ((Sym *)u->defs.v[k])->needed && !acc_unknown_def(u->defs.v[k], u);
			if (!need)
				continue;
			u->included = true;
			changed = true;
			if (u->node->kind == N_VAR || u->node->kind == N_EXPR)
				u->node->slice = SL_INCLUDED;
			else if (u->is_step)
				u->node->step->slice = SL_INCLUDED;
			mark_needed(&u->uses);
			/* It may assign locals no key needs (k = j = p[i]): the
			 * slice declares them, with no initialiser, whose
			 * value nothing it records reads. */
			for (int k = 0; k < u->defs.n; k++)
				((Sym *)u->defs.v[k])->slice_decl = true;
			include_ctrl(&u->ctrl);
			/* An if's condition is walked outside the if (access.c),
			 * so its controls leave the if out; one that assigns a
			 * needed local (if ((j = p[i]) >= 0)) needs the if run
			 * too, or the slice records j's earlier value. */
			if (u->node->kind == N_IF && ((Ctl *)u->node->aux)->cond == u) {
				Vec self = {0};
				vec_push(&self, u->node);
				include_ctrl(&self);
			}
		}
		for (int i = 0; i < acc_ctls.n; i++) {
			Ctl *c = acc_ctls.v[i];
			if (c->included && !c->taint && !c->over && c->cond && !c->cond->included) {
				c->cond->included = true;
				mark_needed(&c->cond->uses);
				changed = true;
			}
		}
		/* Jumps that decide which iterations of an included loop run. */
		for (int i = 0; i < acc_jumps.n; i++) {
			Jump *j = acc_jumps.v[i];
			if (j->node->slice)
				continue;
			bool target_in = !j->target || ((Ctl *)j->target->aux)->included;
			if (!target_in || (j->target && j->target->slice == SL_FLAT) || acc_jump_taint(j))
				continue;
			j->node->slice = SL_INCLUDED;
			Vec inner = {0};
			bool inside = j->target == NULL;
			for (int k = 0; k < j->ctrl.n; k++) {
				if (j->ctrl.v[k] == j->target)
					inside = true;
				else if (inside)
					vec_push(&inner, j->ctrl.v[k]);
			}
			include_ctrl(&inner);
			changed = true;
		}
	}
}

/* What the slice must not do, and what it reads. */
static void check_included(void)
{
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		if (!u->included)
			continue;
		if (u->ddswrite || u->effect) {
			Sym *k = NULL;
			for (int m = 0; m < u->defs.n && !k; m++)
				if (((Sym *)u->defs.v[m])->needed)
					k = u->defs.v[m];
			Node *w = u->ddswrite ? u->ddswrite : u->effect;
			acc_reject(acc_leftmost(w), format("this statement computes %s, which a key the loop must know in "
			                         "advance depends on, and also writes %s, which a slice computing "
			                         "that key cannot repeat: split it into two statements",
			                         k ? k->name : "a value",
			                         w->kind == N_CALL ? format("%s(...)", w->sym ? w->sym->name :
			                                                    "a DDS") : acc_expr_str(w)),
			           NULL, NULL);
			return;
		}
		if (u->rngcall) {
			acc_reject(u->rngcall, format("an index depends on %s, which a reconnaissance slice "
			                              "cannot predict", unrepeatable(u->rngcall)), NULL, NULL);
			return;
		}
		for (int k = 0; k < u->reads.n; k++)
			slice_read(u->reads.v[k]);
	}
	for (int i = 0; i < acc_ctls.n; i++) {
		Ctl *c = acc_ctls.v[i];
		if (!c->included || !c->cond)
			continue;
		Vec reads = {0};
		if (c->taint || c->over) {
			acc_evaluable(c->guard, c->cond, NULL, &reads);
			acc_evaluable(c->skip, c->cond, NULL, &reads);
		} else {
			reads = c->cond->reads;
		}
		for (int k = 0; k < reads.n; k++)
			slice_read(reads.v[k]);
	}
}

void acc_build_slice(void)
{
	/* Seeds: the keys of recorded accesses and their guards. */
	for (int i = 0; i < acc_li->accesses.n; i++)
		if (!seed_key(acc_li->accesses.v[i]))
			return;
	if (!acc_li->has_slice)
		return;
	include_needed();
	check_included();
}

Node *acc_slice_guard(Node *c, bool skip)
{
	Ctl *x = c->aux;
	if (!x->taint && !x->over)
		return skip ? NULL : c->cond;
	return skip ? x->skip : x->guard;
}

bool acc_slice_over(Node *c)
{
	Ctl *x = c->aux;
	return x && (x->taint || x->over);
}

/* A driver variable (not a const or param) that e reads, or NULL. */
Sym *acc_driver_read(Node *e)
{
	if (!e)
		return NULL;
	if (e->kind == N_NAME) {
		Sym *s = e->sym;
		/* long n = len(y), never changed, is as a const. */
		if (s && s->kind == SYM_VAR && !acc_is_local(s) && !ty_is_dds(s->ty) &&
		    s->vclass != V_CONST && s->vclass != V_PARAM && !(s->once && !s->modified))
			return s;
		return NULL;
	}
	Sym *r = NULL;
	if (e->kind == N_CALL) {
		for (Node *a = e->args; a && !r; a = a->next)
			r = acc_driver_read(a);
		return r;
	}
	if (!r) r = acc_driver_read(e->lhs);
	if (!r) r = acc_driver_read(e->rhs);
	if (!r) r = acc_driver_read(e->cond);
	if (!r && e->kind == N_COND) r = acc_driver_read(e->then);
	if (!r && e->kind == N_COND) r = acc_driver_read(e->els);
	if (!r) r = acc_driver_read(e->init);
	if (!r) r = acc_driver_read(e->size);
	return r;
}

void acc_driver_reads(Node *e, Vec *out)
{
	if (!e)
		return;
	if (e->kind == N_NAME) {
		Sym *s = acc_driver_read(e);
		for (int i = 0; s && i < out->n; i++)
			if (out->v[i] == s)
				return;
		if (s)
			vec_push(out, s);
		return;
	}
	if (e->kind == N_CALL) {
		for (Node *a = e->args; a; a = a->next)
			acc_driver_reads(a, out);
		return;
	}
	acc_driver_reads(e->lhs, out);
	acc_driver_reads(e->rhs, out);
	acc_driver_reads(e->cond, out);
	if (e->kind == N_COND) {
		acc_driver_reads(e->then, out);
		acc_driver_reads(e->els, out);
	}
	acc_driver_reads(e->init, out);
	acc_driver_reads(e->size, out);
}

bool acc_is_reduce(Sym *s)
{
	for (int i = 0; i < acc_li->reduce_syms.n; i++)
		if (acc_li->reduce_syms.v[i] == s)
			return true;
	return false;
}

/* Does the slice draw random numbers?  Any rand call in an included unit. */
bool acc_has_rand(Node *e)
{
	if (!e)
		return false;
	if (e->kind == N_CALL && e->rsite)
		return true;
	if (e->kind == N_CALL) {
		for (Node *a = e->args; a; a = a->next)
			if (acc_has_rand(a))
				return true;
		return false;
	}
	if (e->kind == N_COND && (acc_has_rand(e->then) || acc_has_rand(e->els)))
		return true;
	return acc_has_rand(e->lhs) || acc_has_rand(e->rhs) || acc_has_rand(e->cond) || acc_has_rand(e->init) ||
	       acc_has_rand(e->size);
}
