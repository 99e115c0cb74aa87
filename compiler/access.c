/* access.c: the access sets of parallel loops.
 *
 * For every DDS subscript in a loop body: its mode and whether its key is
 * static (affine in the loop variable and loop invariants) or dynamic.
 * Dynamic keys of DDSs the loop writes are what the runtime must learn
 * before it can schedule, so for them the analysis marks a reconnaissance
 * slice: the statements the keys depend on, and the conditions guarding
 * them when those can be evaluated without running the loop.
 *
 * A body local is *tainted* when its value cannot be predicted: it is
 * computed from a DDS the loop writes, from random numbers drawn inside a
 * called function (those share one stream, so a slice cannot reproduce
 * them), or under a condition that is itself tainted.  A key that depends
 * on a tainted local makes the loop's access set unknowable: a compile
 * error for async for.  Accesses under a tainted condition are recorded
 * unconditionally, which over-approximates and is therefore safe.
 */
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/* A statement, or the condition or step of a control statement, with what
 * it reads and writes. */
typedef struct Unit {
	Node *node;             /* N_VAR, N_EXPR; a control node for its cond/step */
	bool is_step;
	Vec ctrl;               /* enclosing control nodes in the body, outermost first */
	Vec defs, uses;         /* Sym * of body locals */
	Vec reads;              /* N_INDEX / N_CALL nodes reading a DDS */
	Node *rngcall;          /* call of a function that draws random numbers */
	Node *ddswrite;         /* a DDS write in it */
	Node *effect;           /* an assignment to a driver variable (reduce) */
	int pos;                /* in units: source order, loop headers first */
	bool included;
} Unit;

typedef struct Ctl {
	Node *node;
	Unit *cond, *step;      /* step: N_FOR */
	Vec ctrl;               /* enclosing control nodes */
	Node *taint;            /* why the condition cannot be evaluated: the
	                           read or call at the root, */
	Sym *from;              /* through this tainted local, */
	Node *jump;             /* or a break under a tainted condition */
	/* What the slice evaluates instead of a tainted condition, implied by
	 * it: an if's then branch runs when guard holds (always when NULL),
	 * its else branch unless skip holds; a counted loop runs while guard
	 * holds, ignoring the tainted rest (over) of its condition and breaks
	 * on tainted conditions. */
	Node *guard, *skip;
	Node *over;
	int fork;               /* an if whose branches the slice runs both of,
	                           one per path: its bit in the path number + 1 */
	bool included;
	bool is_loop;
} Ctl;

typedef struct Jump {
	Node *node;
	Vec ctrl;               /* enclosing control nodes */
	Node *target;           /* the loop it leaves or continues; NULL: the body */
} Jump;

/* The loop being analysed. */
static Node *loop;
static LoopInfo *li;
static Sym *iv;
static Vec units, ctls, jumps;
static Vec ctrl;                /* the current control stack */
static Unit *cur;               /* unit being walked */
static bool explain_mode;

/* ---- printing expressions ---- */

static void put_expr(Buf *b, Node *e, int prec);

static int prec_of(int op)
{
	switch (op) {
	case TK_OROR: return 1;
	case TK_ANDAND: return 2;
	case TK_OR: return 3;
	case TK_XOR: return 4;
	case TK_AND: return 5;
	case TK_EQ: case TK_NE: return 6;
	case TK_LT: case TK_LE: case TK_GT: case TK_GE: return 7;
	case TK_SHL: case TK_SHR: return 8;
	case TK_PLUS: case TK_MINUS: return 9;
	default: return 10;
	}
}

static void put_args(Buf *b, Node *a)
{
	for (; a; a = a->next) {
		put_expr(b, a, 0);
		if (a->next)
			buf_puts(b, ", ");
	}
}

static void put_expr(Buf *b, Node *e, int prec)
{
	switch (e->kind) {
	case N_INT: buf_printf(b, "%lld", (long long)e->ival); return;
	case N_FLOAT: buf_printf(b, "%s", e->sval); return;
	case N_STR: buf_printf(b, "\"%s\"", e->sval); return;
	case N_BOOL: buf_puts(b, e->ival ? "true" : "false"); return;
	case N_NAME: buf_printf(b, "%.*s", e->name.len, e->name.p); return;
	case N_FIELD:
		put_expr(b, e->lhs, 11);
		buf_printf(b, ".%.*s", e->name.len, e->name.p);
		return;
	case N_INDEX:
		put_expr(b, e->lhs, 11);
		buf_putc(b, '[');
		put_expr(b, e->rhs, 0);
		buf_putc(b, ']');
		return;
	case N_CALL:
		buf_printf(b, "%.*s(", e->name.len, e->name.p);
		put_args(b, e->args);
		buf_putc(b, ')');
		return;
	case N_CONV:
		buf_printf(b, "(%s)", ty_str(e->ty));
		put_expr(b, e->lhs, 11);
		return;
	case N_UNARY:
		buf_puts(b, ast_opname(e->op));
		put_expr(b, e->lhs, 11);
		return;
	case N_INCDEC:
		if (!e->postfix)
			buf_puts(b, e->op == TK_INC ? "++" : "--");
		put_expr(b, e->lhs, 11);
		if (e->postfix)
			buf_puts(b, e->op == TK_INC ? "++" : "--");
		return;
	case N_BINARY: {
		int p = prec_of(e->op);
		if (p < prec)
			buf_putc(b, '(');
		put_expr(b, e->lhs, p);
		buf_printf(b, " %s ", ast_opname(e->op));
		put_expr(b, e->rhs, p + 1);
		if (p < prec)
			buf_putc(b, ')');
		return;
	}
	case N_COND:
		if (prec > 0)
			buf_putc(b, '(');
		put_expr(b, e->cond, 1);
		buf_puts(b, " ? ");
		put_expr(b, e->then, 0);
		buf_puts(b, " : ");
		put_expr(b, e->els, 0);
		if (prec > 0)
			buf_putc(b, ')');
		return;
	case N_ASSIGN:
		put_expr(b, e->lhs, 11);
		buf_printf(b, " %s= ", e->op == TK_ASSIGN ? "" : ast_opname(e->op));
		put_expr(b, e->rhs, 0);
		return;
	default:
		buf_puts(b, "...");
		return;
	}
}

/* Written once per node: keys are compared by their text, pair by pair,
 * and a copy per comparison filled gigabytes for a loop of 2000 accesses.
 * The tree no longer changes once analysis starts. */
char *acc_expr_str(Node *e)
{
	if (!e->text) {
		Buf b = {0};
		put_expr(&b, e, 0);
		e->text = b.s ? b.s : xstrdup("");
	}
	return e->text;
}

/* ---- small helpers ---- */

static bool is_dds(Node *e) { return e->ty && ty_is_dds(e->ty); }

static bool is_local(Sym *s)
{
	return s && s->kind == SYM_VAR && (s->loop == loop || s == iv) && !ty_is_dds(s->ty);
}

static void add_sym(Vec *v, Sym *s)
{
	for (int i = 0; i < v->n; i++)
		if (v->v[i] == s)
			return;
	vec_push(v, s);
}

bool acc_is_relaxed(LoopInfo *l, Sym *dds)
{
	for (int i = 0; i < l->relax_syms.n; i++)
		if (l->relax_syms.v[i] == dds)
			return true;
	return false;
}

bool acc_is_accum(LoopInfo *l, Sym *dds)
{
	for (int i = 0; i < l->accum_syms.n; i++)
		if (l->accum_syms.v[i] == dds)
			return true;
	return acc_is_relaxed(l, dds);
}

bool acc_inserts(LoopInfo *l, Sym *dds)
{
	for (int i = 0; i < l->accesses.n; i++) {
		Access *a = l->accesses.v[i];
		if (a->dds == dds && a->structural)
			return true;
	}
	return false;
}

Access *acc_static_dv(LoopInfo *l, Node *e)
{
	for (int i = 0; i < l->accesses.n; i++) {
		Access *a = l->accesses.v[i];
		if (a->at == e)
			return !a->dynamic && !a->accumulate && a->dds->ty->kind == TY_DVEC ? a : NULL;
	}
	return NULL;
}

Access *acc_recorded_dv(LoopInfo *l, Node *e)
{
	for (int i = 0; l->has_slice && i < l->accesses.n; i++) {
		Access *a = l->accesses.v[i];
		if (a->at == e)
			return a->recorded && !a->accumulate && a->dds->ty->kind == TY_DVEC ? a : NULL;
	}
	return NULL;
}

static Sym *dds_of(Node *e)
{
	return e->kind == N_NAME ? e->sym : NULL;
}

static int dds_index(Sym *d, int mode)
{
	for (int i = 0; i < li->dds.n; i++)
		if (li->dds.v[i] == d) {
			li->dds_mode.v[i] = (void *)((intptr_t)li->dds_mode.v[i] | mode);
			return i;
		}
	vec_push(&li->dds, d);
	vec_push(&li->dds_mode, (void *)(intptr_t)mode);
	return li->dds.n - 1;
}

static bool written(Sym *d)
{
	for (int i = 0; i < li->dds.n; i++)
		if (li->dds.v[i] == d)
			return ((intptr_t)li->dds_mode.v[i] & ACC_WRITE) && !acc_is_accum(li, d);
	return false;
}

/* Does read r (in unit u) see a value that can change while the loop
 * runs: of a DDS the loop writes, other than the iteration's own element,
 * or of a relaxed DDS, whose reads see the worker's round (a slice, which
 * runs before, cannot)? */
static bool own_read(Node *r, Unit *u);
static Sym *read_dds(Node *r);
static bool changing(Node *r, Unit *u)
{
	Sym *d = read_dds(r);
	return d && ((written(d) && !(u && own_read(r, u))) || acc_is_relaxed(li, d));
}

/* ---- affine keys ---- */

static bool invariant(Node *e)
{
	switch (e->kind) {
	case N_INT: case N_BOOL:
		return true;
	case N_NAME: {
		Sym *s = e->sym;
		if (!s || s->kind != SYM_VAR || is_local(s) || ty_is_dds(s->ty))
			return false;
		for (int i = 0; i < li->reduce_syms.n; i++)
			if (li->reduce_syms.v[i] == s)
				return false;
		return ty_is_int(s->ty);
	}
	case N_BINARY:
		return ty_is_int(e->ty) && invariant(e->lhs) && invariant(e->rhs);
	case N_UNARY:
		return ty_is_int(e->ty) && invariant(e->lhs);
	case N_CALL:
		if (e->builtin == B_LEN)
			return e->args->ty->kind == TY_DVEC;
		return false;
	default:
		return false;
	}
}

static void aff_add(Vec *v, int64_t k, Node *inv)
{
	AffTerm *t = xcalloc(1, sizeof *t);
	t->k = k;
	t->inv = inv;
	vec_push(v, t);
}

/* False if a coefficient overflows: the key is then not treated as affine. */
static bool aff_scale(Vec *v, int64_t k)
{
	for (int i = 0; i < v->n; i++)
		if (__builtin_mul_overflow(((AffTerm *)v->v[i])->k, k, &((AffTerm *)v->v[i])->k))
			return false;
	return true;
}

static bool const_of(Node *e, int64_t *k)
{
	if (e->kind == N_INT) {
		*k = e->ival;
		return true;
	}
	if (e->kind == N_NAME && e->sym && e->sym->has_cval) {
		*k = e->sym->cval;
		return true;
	}
	return false;
}

/* key = sum(a) * i + sum(b), or false if e is not affine. */
static bool affine(Node *e, Vec *a, Vec *b)
{
	if (!ty_is_int(e->ty))
		return false;
	if (e->kind == N_NAME && e->sym == iv) {
		aff_add(a, 1, NULL);
		return true;
	}
	int64_t k;
	if (const_of(e, &k)) {
		aff_add(b, k, NULL);
		return true;
	}
	if (invariant(e)) {
		aff_add(b, 1, e);
		return true;
	}
	if (e->kind == N_CONV)
		return ty_is_int(e->lhs->ty) && affine(e->lhs, a, b);
	if (e->kind == N_UNARY && e->op == TK_MINUS) {
		Vec a1 = {0}, b1 = {0};
		if (!affine(e->lhs, &a1, &b1))
			return false;
		if (!aff_scale(&a1, -1) || !aff_scale(&b1, -1))
			return false;
		for (int i = 0; i < a1.n; i++) vec_push(a, a1.v[i]);
		for (int i = 0; i < b1.n; i++) vec_push(b, b1.v[i]);
		return true;
	}
	if (e->kind != N_BINARY)
		return false;
	if (e->op == TK_PLUS || e->op == TK_MINUS) {
		Vec a2 = {0}, b2 = {0};
		if (!affine(e->lhs, a, b) || !affine(e->rhs, &a2, &b2))
			return false;
		if (e->op == TK_MINUS) {
			if (!aff_scale(&a2, -1) || !aff_scale(&b2, -1))
				return false;
		}
		for (int i = 0; i < a2.n; i++) vec_push(a, a2.v[i]);
		for (int i = 0; i < b2.n; i++) vec_push(b, b2.v[i]);
		return true;
	}
	if (e->op == TK_STAR) {
		Node *c = NULL, *x = NULL;
		if (const_of(e->lhs, &k) || invariant(e->lhs))
			c = e->lhs, x = e->rhs;
		else if (const_of(e->rhs, &k) || invariant(e->rhs))
			c = e->rhs, x = e->lhs;
		else
			return false;
		Vec a1 = {0}, b1 = {0};
		if (!affine(x, &a1, &b1))
			return false;
		if (const_of(c, &k)) {
			if (!aff_scale(&a1, k) || !aff_scale(&b1, k))
				return false;
		} else {
			/* An invariant factor: only over constant terms. */
			for (int i = 0; i < a1.n; i++)
				if (((AffTerm *)a1.v[i])->inv)
					return false;
			for (int i = 0; i < b1.n; i++)
				if (((AffTerm *)b1.v[i])->inv)
					return false;
			for (int i = 0; i < a1.n; i++) ((AffTerm *)a1.v[i])->inv = c;
			for (int i = 0; i < b1.n; i++) ((AffTerm *)b1.v[i])->inv = c;
		}
		for (int i = 0; i < a1.n; i++) vec_push(a, a1.v[i]);
		for (int i = 0; i < b1.n; i++) vec_push(b, b1.v[i]);
		return true;
	}
	return false;
}

/* ---- walking the body ---- */

static void walk_expr(Node *e);

static Access *access(Node *at, Node *base, Node *key, int mode)
{
	Sym *d = dds_of(base);
	Access *a = xcalloc(1, sizeof *a);
	a->at = at;
	a->unit = cur->node;
	a->dds = d;
	a->key = key;
	a->mode = mode;
	a->accumulate = acc_is_accum(li, d);
	a->ddsi = dds_index(d, mode);
	if (!affine(key, &a->aterms, &a->bterms)) {
		a->dynamic = true;
		a->aterms.n = a->bterms.n = 0;
	}
	vec_push(&li->accesses, a);
	if (mode & ACC_READ)
		vec_push(&cur->reads, at);
	if (mode & ACC_WRITE)
		cur->ddswrite = at;
	walk_expr(key);
	return a;
}

/* m[k] with k the key of a loop over m's keys (or over join(m, b)): the
 * key is there, so writing its value inserts nothing. */
static bool has_key(Node *m, Node *k)
{
	if (m->kind != N_NAME || k->kind != N_NAME || !k->sym || !k->sym->keys_of)
		return false;
	Node *over = k->sym->keys_of;
	if (over->kind == N_NAME)
		return over->sym == m->sym;
	for (Node *a = over->args; a; a = a->next)
		if (a->kind == N_NAME && a->sym == m->sym)
			return true;
	return false;
}

/* An assignment target: whole is true when the assignment replaces it. */
static void walk_lvalue(Node *e, bool whole)
{
	switch (e->kind) {
	case N_NAME:
		if (is_local(e->sym)) {
			add_sym(&cur->defs, e->sym);
			if (!whole)
				add_sym(&cur->uses, e->sym);
		} else if (!ty_is_dds(e->sym->ty)) {
			cur->effect = e;
		}
		return;
	case N_FIELD:
		walk_lvalue(e->lhs, false);
		return;
	case N_INDEX:
		if (is_dds(e->lhs)) {
			Access *a = access(e, e->lhs, e->rhs, whole ? ACC_WRITE : ACC_RW);
			if (e->lhs->ty->kind == TY_DMAP && !a->accumulate && !has_key(e->lhs, e->rhs))
				a->structural = true;
			return;
		}
		walk_lvalue(e->lhs, false);
		walk_expr(e->rhs);
		return;
	default:
		walk_expr(e);
		return;
	}
}

static void walk_expr(Node *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case N_NAME:
		if (is_local(e->sym))
			add_sym(&cur->uses, e->sym);
		return;
	case N_INDEX:
		if (is_dds(e->lhs)) {
			access(e, e->lhs, e->rhs, ACC_READ);
			return;
		}
		walk_expr(e->lhs);
		walk_expr(e->rhs);
		return;
	case N_FIELD: case N_UNARY: case N_CONV:
		walk_expr(e->lhs);
		return;
	case N_BINARY:
		walk_expr(e->lhs);
		walk_expr(e->rhs);
		return;
	case N_COND:
		walk_expr(e->cond);
		walk_expr(e->then);
		walk_expr(e->els);
		return;
	case N_ASSIGN:
		walk_lvalue(e->lhs, e->op == TK_ASSIGN);
		walk_expr(e->rhs);
		return;
	case N_INCDEC:
		walk_lvalue(e->lhs, false);
		return;
	case N_CALL: {
		Node *a0 = e->args;
		switch (e->builtin) {
		case B_LEN:
			if (a0 && is_dds(a0))
				return;
			break;
		case B_PUSH:
			walk_lvalue(a0, false);
			walk_expr(a0->next);
			return;
		case B_INSERT: case B_ERASE: {
			Access *a = access(e, a0, a0->next, ACC_WRITE);
			a->structural = true;
			walk_expr(a0->next->next);
			return;
		}
		case B_CONTAINS: case B_COUNT: case B_GET:
			access(e, a0, a0->next, ACC_READ);
			walk_expr(a0->next->next);
			return;
		case B_GEMV:
			dds_index(dds_of(a0->next), ACC_READ);
			add_sym(&li->whole_dds, dds_of(a0->next));
			vec_push(&cur->reads, a0->next);
			walk_lvalue(a0, false);
			walk_expr(a0->next->next);
			return;
		case B_GER:
			dds_index(dds_of(a0), ACC_RW);
			add_sym(&li->whole_dds, dds_of(a0));
			vec_push(&cur->reads, a0);
			cur->ddswrite = e;
			walk_expr(a0->next);
			walk_expr(a0->next->next);
			walk_expr(a0->next->next->next);
			return;
		case B_GEMM:
			/* Its first argument is the one written; dvectors are used
			 * whole. */
			for (Node *a = a0; a; a = a->next) {
				if (ty_is_dds(a->ty)) {
					dds_index(dds_of(a), a == a0 ? ACC_RW : ACC_READ);
					add_sym(&li->whole_dds, dds_of(a));
					vec_push(&cur->reads, a);
					if (a == a0)
						cur->ddswrite = e;
				} else if (a == a0) {
					walk_lvalue(a, false);
				} else {
					walk_expr(a);
				}
			}
			return;
		case B_RAND: case B_RAND_INT: case B_RAND_NORMAL:
			e->rsite = ++li->nrand;
			break;
		case B_NONE:
			if (e->sym && e->sym->uses_rng)
				cur->rngcall = e;
			break;
		default:
			break;
		}
		for (Node *a = e->args; a; a = a->next)
			walk_expr(a);
		return;
	}
	default:
		return;
	}
}

static Unit *new_unit(Node *n, bool is_step)
{
	Unit *u = xcalloc(1, sizeof *u);
	u->node = n;
	u->is_step = is_step;
	for (int i = 0; i < ctrl.n; i++)
		vec_push(&u->ctrl, ctrl.v[i]);
	u->pos = units.n;
	vec_push(&units, u);
	return u;
}

static Unit *expr_unit(Node *n, Node *e, bool is_step)
{
	Unit *saved = cur;
	cur = new_unit(n, is_step);
	walk_expr(e);
	Unit *u = cur;
	cur = saved;
	return u;
}

static Ctl *new_ctl(Node *n, bool is_loop)
{
	Ctl *c = xcalloc(1, sizeof *c);
	c->node = n;
	c->is_loop = is_loop;
	for (int i = 0; i < ctrl.n; i++)
		vec_push(&c->ctrl, ctrl.v[i]);
	n->aux = c;
	vec_push(&ctls, c);
	return c;
}

static void walk_stmt(Node *s)
{
	if (!s)
		return;
	s->slice = SL_NONE;
	switch (s->kind) {
	case N_BLOCK:
		for (Node *n = s->args; n; n = n->next)
			walk_stmt(n);
		return;
	case N_VAR: {
		Unit *saved = cur;
		cur = new_unit(s, false);
		add_sym(&cur->defs, s->sym);
		walk_expr(s->init);
		walk_expr(s->size);
		cur = saved;
		return;
	}
	case N_EXPR:
		expr_unit(s, s->lhs, false);
		return;
	case N_IF: {
		Ctl *c = new_ctl(s, false);
		c->cond = expr_unit(s, s->cond, false);
		vec_push(&ctrl, s);
		walk_stmt(s->then);
		walk_stmt(s->els);
		ctrl.n--;
		return;
	}
	case N_WHILE: case N_DO: case N_FOR: {
		if (s->kind == N_FOR)
			walk_stmt(s->init);
		Ctl *c = new_ctl(s, true);
		vec_push(&ctrl, s);
		if (s->cond)
			c->cond = expr_unit(s, s->cond, false);
		if (s->step) {
			c->step = expr_unit(s, s->step, true);
			s->step->slice = SL_NONE;
		}
		walk_stmt(s->body);
		ctrl.n--;
		return;
	}
	case N_BREAK: case N_CONTINUE: {
		Jump *j = xcalloc(1, sizeof *j);
		j->node = s;
		for (int i = 0; i < ctrl.n; i++)
			vec_push(&j->ctrl, ctrl.v[i]);
		for (int i = ctrl.n - 1; i >= 0; i--) {
			Ctl *c = ((Node *)ctrl.v[i])->aux;
			if (c->is_loop) {
				j->target = c->node;
				break;
			}
		}
		vec_push(&jumps, j);
		return;
	}
	default:
		return;
	}
}

/* ---- taint ---- */

/* The DDS a read names: X[k], get(X, k) and the like, or X itself, which
 * gemv, ger and gemm read whole. */
static Sym *read_dds(Node *r)
{
	return dds_of(r->kind == N_INDEX ? r->lhs : r->kind == N_CALL ? r->args : r);
}

/* Why a body local is tainted: the first cause found, for messages. */
typedef struct Taint {
	Sym *sym;
	Unit *unit;             /* the assignment that tainted it */
	Sym *from;              /* computed from this tainted local, */
	Node *ctl;              /* or assigned under this tainted control node
	                           (or after this continue), */
	Node *root;             /* else this read of a written DDS or call */
} Taint;
static Vec taints;

static bool share_loop(Unit *u, Unit *w);

/* Can the value unit d assigns be the one unit u reads: d comes first,
 * or an inner loop holds both?  (Each iteration of the parallel loop
 * starts afresh.)  Any unit when u is NULL. */
static bool reaches(Unit *d, Unit *u)
{
	return !u || d->pos < u->pos || share_loop(d, u);
}

/* A tainted assignment of s that unit u may read, or NULL: a local
 * assigned an unknowable value only after u is still known in u. */
static Taint *taint_at(Sym *s, Unit *u)
{
	for (int i = 0; i < taints.n; i++) {
		Taint *x = taints.v[i];
		if (x->sym == s && reaches(x->unit, u))
			return x;
	}
	return NULL;
}

static bool tainted_def(Sym *s, Unit *u)
{
	for (int i = 0; i < taints.n; i++) {
		Taint *x = taints.v[i];
		if (x->sym == s && x->unit == u)
			return true;
	}
	return false;
}

static Access *access_at(Node *at)
{
	for (int i = 0; i < li->accesses.n; i++)
		if (((Access *)li->accesses.v[i])->at == at)
			return li->accesses.v[i];
	return NULL;
}

static bool same_terms(Vec *x, Vec *y);
static bool const_nonzero(Vec *a);

/* Does unit u run inside an inner loop that also holds unit w? */
static bool share_loop(Unit *u, Unit *w)
{
	for (int i = 0; i < u->ctrl.n; i++) {
		Node *n = u->ctrl.v[i];
		if (!((Ctl *)n->aux)->is_loop)
			continue;
		for (int k = 0; k < w->ctrl.n; k++)
			if (w->ctrl.v[k] == n)
				return true;
	}
	return false;
}

/* Is r, read in unit ru, a read of the iteration's own element of a
 * dvector the loop writes, before the iteration writes it?  When every
 * access of the vector has one injective affine key, no other iteration
 * touches that element, so the body reads the value it had before the
 * loop, which is what the slice reads too. */
static bool own_read(Node *r, Unit *ru)
{
	Access *a = ru ? access_at(r) : NULL;
	if (!a || a->dynamic || a->dds->ty->kind != TY_DVEC || !const_nonzero(&a->aterms))
		return false;
	for (int i = 0; i < li->whole_dds.n; i++)
		if (li->whole_dds.v[i] == a->dds)
			return false;
	int rp = -1;
	for (int i = 0; i < units.n && rp < 0; i++)
		if (units.v[i] == ru)
			rp = i;
	for (int i = 0; i < li->accesses.n; i++) {
		Access *b = li->accesses.v[i];
		if (b->dds != a->dds)
			continue;
		if (b->dynamic || !same_terms(&b->aterms, &a->aterms) ||
		    !same_terms(&b->bterms, &a->bterms))
			return false;
		if (!(b->mode & ACC_WRITE))
			continue;
		for (int k = 0; k < units.n; k++) {
			Unit *w = units.v[k];
			if (w->node == b->unit && (k < rp || share_loop(ru, w)))
				return false;
		}
	}
	return true;
}

/* Does unit u compute something unknowable: a read of a DDS the loop
 * writes (not its own element, above), random numbers a called function
 * draws, or a tainted local (*from)? */
static Node *unit_taint(Unit *u, Sym **from)
{
	*from = NULL;
	for (int i = 0; i < u->reads.n; i++) {
		Node *r = u->reads.v[i];
		if (changing(r, u))
			return r;
	}
	if (u->rngcall)
		return u->rngcall;
	for (int i = 0; i < u->uses.n; i++) {
		Sym *s = u->uses.v[i];
		Taint *x = taint_at(s, u);
		if (x) {
			*from = s;
			return x->root;
		}
	}
	return NULL;
}

/* Jumps between j and its target whose guards are tainted make the
 * target's trip count unknowable. */
static Node *jump_taint(Jump *j)
{
	bool inside = j->target == NULL;
	for (int i = 0; i < j->ctrl.n; i++) {
		Node *n = j->ctrl.v[i];
		if (n == j->target) {
			inside = true;
			continue;
		}
		if (inside && ((Ctl *)n->aux)->taint)
			return ((Ctl *)n->aux)->taint;
	}
	return NULL;
}

/* The unit declaring body local s, or NULL (the loop variable). */
static Unit *decl_unit(Sym *s)
{
	for (int i = 0; i < units.n; i++) {
		Unit *u = units.v[i];
		if (u->node->kind == N_VAR && u->node->sym == s)
			return u;
	}
	return NULL;
}

/* The tainted control node that makes s's value after unit u unknowable,
 * or NULL.  Whether a tainted condition holds decides whether u runs, so
 * it taints what u assigns, except variables declared inside the region
 * that condition controls: those do not exist outside it, and inside it
 * the slice, which runs the region as if the condition held, computes
 * them exactly as the body would. */
static Node *ctrl_taint(Unit *u, Sym *s)
{
	Unit *d = decl_unit(s);
	for (int k = 0; k < u->ctrl.n; k++) {
		Node *n = u->ctrl.v[k];
		if (!((Ctl *)n->aux)->taint || ((Ctl *)n->aux)->fork)
			continue;
		bool inside = false;
		for (int m = 0; d && m < d->ctrl.n && !inside; m++)
			inside = d->ctrl.v[m] == n;
		if (!inside)
			return n;
	}
	/* A counted loop whose slice may run more iterations than the body:
	 * what it leaves in variables that outlive it is unknowable. */
	for (int k = 0; k < u->ctrl.n; k++) {
		Node *n = u->ctrl.v[k];
		Ctl *c = n->aux;
		if (!c->over || c->taint)
			continue;
		bool inside = false;
		for (int m = 0; d && m < d->ctrl.n && !inside; m++)
			inside = d->ctrl.v[m] == n;
		if (!inside && !(n->init && n->init->kind == N_VAR && n->init->sym == s))
			return n;
	}
	/* A continue under a tainted condition may skip the rest of an
	 * iteration of an inner loop: what that rest assigns to variables
	 * that outlive the iteration is unknowable from then on. */
	for (int i = 0; i < jumps.n; i++) {
		Jump *j = jumps.v[i];
		if (j->node->kind != N_CONTINUE || !j->target || u->node == j->target)
			continue;
		bool in = false;
		for (int k = 0; k < u->ctrl.n && !in; k++)
			in = u->ctrl.v[k] == j->target;
		bool inside = false;
		for (int m = 0; d && m < d->ctrl.n && !inside; m++)
			inside = d->ctrl.v[m] == j->target;
		if (in && !inside && jump_taint(j))
			return j->node;
	}
	return NULL;
}

static bool defined_inside(Node *c, Vec *syms);

/* Can the slice compute e, in unit u, exactly as the body does: no read
 * of a DDS the loop writes (but the iteration's own element), no tainted
 * local, no random numbers, no side effect?  Adds the locals it uses to
 * uses and its DDS reads to reads, when given. */
static bool evaluable(Node *e, Unit *u, Vec *uses, Vec *reads)
{
	if (!e)
		return true;
	switch (e->kind) {
	case N_NAME:
		if (is_local(e->sym)) {
			if (taint_at(e->sym, u))
				return false;
			if (uses)
				add_sym(uses, e->sym);
		}
		return true;
	case N_INDEX:
		if (is_dds(e->lhs)) {
			if (changing(e, u))
				return false;
			if (reads)
				vec_push(reads, e);
			return evaluable(e->rhs, u, uses, reads);
		}
		return evaluable(e->lhs, u, uses, reads) && evaluable(e->rhs, u, uses, reads);
	case N_ASSIGN: case N_INCDEC:
		return false;
	case N_CALL:
		if (e->rsite || (e->builtin == B_NONE && (!e->sym || e->sym->uses_rng)))
			return false;
		switch (e->builtin) {
		case B_PUSH: case B_INSERT: case B_ERASE: case B_GEMV: case B_GER: case B_GEMM:
			return false;
		case B_CONTAINS: case B_COUNT: case B_GET:
			if (written(dds_of(e->args)))
				return false;
			if (reads)
				vec_push(reads, e);
			for (Node *a = e->args->next; a; a = a->next)
				if (!evaluable(a, u, uses, reads))
					return false;
			return true;
		case B_LEN:
			if (e->args && is_dds(e->args))
				return true;
			break;
		default:
			break;
		}
		for (Node *a = e->args; a; a = a->next)
			if (!evaluable(a, u, uses, reads))
				return false;
		return true;
	default:
		return evaluable(e->lhs, u, uses, reads) && evaluable(e->rhs, u, uses, reads) &&
		       evaluable(e->cond, u, uses, reads);
	}
}

/* The leading conjuncts of e the slice can evaluate: e implies them,
 * and the body evaluates them whenever it evaluates e, so evaluating
 * them is safe where e is. */
static Node *then_guard(Node *e, Unit *u)
{
	if (evaluable(e, u, NULL, NULL))
		return e;
	if (e->kind == N_BINARY && e->op == TK_ANDAND)
		return then_guard(e->lhs, u);
	return NULL;
}

/* The leading disjuncts of e the slice can evaluate: when they hold, so
 * does e, and an else branch is not taken. */
static Node *else_skip(Node *e, Unit *u)
{
	if (e->kind != N_BINARY || e->op != TK_OROR)
		return NULL;
	if (evaluable(e->lhs, u, NULL, NULL))
		return e->lhs;
	return else_skip(e->lhs, u);
}

/* Does conjunction g hold a comparison of v with a bound that the loop c
 * does not change, in direction up (v < b, v <= b, b > v, b >= v) or
 * down? */
static bool bounds(Node *g, Sym *v, bool up, Node *c)
{
	if (g->kind == N_BINARY && g->op == TK_ANDAND)
		return bounds(g->lhs, v, up, c) || bounds(g->rhs, v, up, c);
	if (g->kind != N_BINARY)
		return false;
	int op = g->op;
	Node *var = g->lhs, *b = g->rhs;
	if (op == TK_GT || op == TK_GE) {
		var = g->rhs, b = g->lhs;
		op = op == TK_GT ? TK_LT : TK_LE;
	}
	if (op != TK_LT && op != TK_LE)
		return false;
	bool less = true;
	if (!(var->kind == N_NAME && var->sym == v)) {
		/* b < v: v counts down to it */
		Node *t = var;
		var = b, b = t;
		less = false;
		if (!(var->kind == N_NAME && var->sym == v))
			return false;
	}
	if (less != up)
		return false;
	Vec uses = {0};
	evaluable(b, NULL, &uses, NULL);
	for (int i = 0; i < uses.n; i++)
		if (uses.v[i] == v)
			return false;
	return !defined_inside(c, &uses);
}

/* Is loop c a counted loop, for (v = a; guard && ...; v++) with guard
 * bounding v and nothing else in the loop assigning v?  Its slice then
 * runs while guard holds and ends. */
static bool counted(Ctl *c, Node *guard)
{
	Node *n = c->node;
	if (n->kind != N_FOR || !guard || !n->step || !n->init)
		return false;
	Node *st = n->step;
	if (st->kind != N_INCDEC && !(st->kind == N_ASSIGN && (st->op == TK_PLUS || st->op == TK_MINUS)))
		return false;
	if (st->lhs->kind != N_NAME || !is_local(st->lhs->sym))
		return false;
	Sym *v = st->lhs->sym;
	bool up = st->op == TK_INC || st->op == TK_PLUS;
	int64_t k;
	if (st->kind == N_ASSIGN && (!const_of(st->rhs, &k) || k <= 0))
		return false;
	for (int i = 0; i < units.n; i++) {
		Unit *u = units.v[i];
		if (u == c->step)
			continue;
		bool in = u->node == n;
		for (int m = 0; m < u->ctrl.n && !in; m++)
			in = u->ctrl.v[m] == n;
		for (int m = 0; in && m < u->defs.n; m++)
			if (u->defs.v[m] == v)
				return false;
	}
	return bounds(guard, v, up, n);
}

static void compute_taint(void)
{
	taints.n = 0;
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < ctls.n; i++) {
			Ctl *c = ctls.v[i];
			if (c->taint)
				continue;
			Node *t = c->cond ? unit_taint(c->cond, &c->from) : NULL;
			Node *g = t && c->cond ? then_guard(c->node->cond, c->cond) : c->node->cond;
			if (!t && c->is_loop)
				for (int k = 0; !t && k < jumps.n; k++) {
					Jump *j = jumps.v[k];
					if (j->target == c->node && j->node->kind == N_BREAK &&
					    (t = jump_taint(j)))
						c->jump = j->node;
				}
			if (!t)
				continue;
			/* A counted loop runs in the slice while the part of its
			 * condition it can evaluate holds: the body's iterations are
			 * a prefix of the slice's. */
			if (c->is_loop && counted(c, g)) {
				if (c->guard != g || !c->over) {
					c->guard = g;
					c->over = t;
					changed = true;
				}
			} else {
				c->taint = t;
				c->guard = NULL;
				c->over = NULL;
				changed = true;
			}
		}
		for (int i = 0; i < units.n; i++) {
			Unit *u = units.v[i];
			Sym *from;
			Node *t = unit_taint(u, &from);
			for (int k = 0; k < u->defs.n; k++) {
				Sym *s = u->defs.v[k];
				if (s == iv || tainted_def(s, u))
					continue;
				Node *ctl = t ? NULL : ctrl_taint(u, s);
				if (!t && !ctl)
					continue;
				Taint *x = xcalloc(1, sizeof *x);
				x->sym = s;
				x->unit = u;
				x->from = t ? from : NULL;
				x->ctl = ctl;
				x->root = t;
				if (ctl && ctl->kind == N_CONTINUE) {
					Jump *j = NULL;
					for (int m = 0; m < jumps.n && !j; m++)
						if (((Jump *)jumps.v[m])->node == ctl)
							j = jumps.v[m];
					x->root = jump_taint(j);
				} else if (ctl) {
					Ctl *c = ctl->aux;
					x->root = c->taint ? c->taint : c->over;
				}
				vec_push(&taints, x);
				s->taint = x->root;
				changed = true;
			}
		}
	}
}

/* The slice runs an iteration once per combination of the branches of
 * the forked ifs: 2^MAX_FORKS times at most. */
enum { MAX_FORKS = 6 };

static void collect_uses(Node *e, Vec *uses)
{
	if (!e)
		return;
	if (e->kind == N_NAME && is_local(e->sym))
		add_sym(uses, e->sym);
	collect_uses(e->lhs, uses);
	collect_uses(e->rhs, uses);
	collect_uses(e->cond, uses);
	if (e->kind == N_CALL)
		for (Node *a = e->args; a; a = a->next)
			collect_uses(a, uses);
}

/* A local assigned under a tainted if, and used after it, has one of the
 * values its branches leave: the slice can run the iteration once with
 * each branch taken and record the keys of both.  That is exact when the
 * if runs at most once an iteration (in no loop of the body), so fork the
 * ifs whose control taints a local the recorded keys depend on. */
static bool choose_forks(void)
{
	Vec rel = {0};
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (a->dynamic && !a->accumulate && written(a->dds)) {
			Vec u = {0};
			collect_uses(a->key, &u);
			for (int k = 0; k < u.n; k++)
				add_sym(&rel, u.v[k]);
		}
	}
	for (int round = 0, before = -1; rel.n != before && round < 1000; round++) {
		before = rel.n;
		for (int i = 0; i < units.n; i++) {
			Unit *u = units.v[i];
			bool need = false;
			for (int k = 0; k < u->defs.n && !need; k++)
				for (int m = 0; m < rel.n && !need; m++)
					need = u->defs.v[k] == rel.v[m];
			if (!need)
				continue;
			for (int k = 0; k < u->uses.n; k++)
				add_sym(&rel, u->uses.v[k]);
		}
	}
	bool added = false;
	for (int i = 0; i < taints.n; i++) {
		Taint *x = taints.v[i];
		if (!x->ctl || x->ctl->kind != N_IF || x->root != ((Ctl *)x->ctl->aux)->taint)
			continue;
		Ctl *c = x->ctl->aux;
		bool rl = false;
		for (int m = 0; m < rel.n && !rl; m++)
			rl = rel.v[m] == x->sym;
		bool in_loop = false;
		for (int k = 0; k < c->ctrl.n && !in_loop; k++)
			in_loop = ((Ctl *)((Node *)c->ctrl.v[k])->aux)->is_loop;
		if (!rl || in_loop || c->fork || li->nforks == MAX_FORKS)
			continue;
		c->fork = ++li->nforks;
		added = true;
	}
	return added;
}

/* Taint afresh, with the forks chosen. */
static void retaint(void)
{
	for (int i = 0; i < units.n; i++) {
		Unit *u = units.v[i];
		for (int k = 0; k < u->defs.n; k++)
			((Sym *)u->defs.v[k])->taint = NULL;
		for (int k = 0; k < u->uses.n; k++)
			((Sym *)u->uses.v[k])->taint = NULL;
	}
	for (int i = 0; i < ctls.n; i++) {
		Ctl *c = ctls.v[i];
		c->taint = c->over = c->guard = c->skip = c->jump = NULL;
		c->from = NULL;
	}
	compute_taint();
}

int acc_slice_fork(Node *c)
{
	return c->kind == N_IF && c->aux ? ((Ctl *)c->aux)->fork : 0;
}

/* ---- the slice ---- */

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
				c->guard = then_guard(n->cond, c->cond);
				c->skip = n->els ? else_skip(n->cond, c->cond) : NULL;
				Vec uses = {0};
				evaluable(c->guard, c->cond, &uses, NULL);
				evaluable(c->skip, c->cond, &uses, NULL);
				mark_needed(&uses);
			}
		} else if (c->over) {
			n->slice = SL_INCLUDED;
			Vec uses = {0};
			evaluable(c->guard, c->cond, &uses, NULL);
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
static bool soft, soft_failed;

/* Building a sync for's slice: the vectors it records (all their
 * accesses, static ones too, since no key of a sync for is static in its
 * loop variable), and why it cannot, when it cannot. */
static Vec sync_only;
static const char *sync_reject;

static bool sync_records(Sym *d)
{
	for (int i = 0; i < sync_only.n; i++)
		if (sync_only.v[i] == d)
			return true;
	return false;
}

/* The node of e that starts furthest left: where a caret under e goes. */
static Node *leftmost(Node *e)
{
	Node *best = e;
	Node *kids[] = { e->lhs, e->rhs, e->cond };
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (kids[i] && e->kind != N_CALL) {
			Node *k = leftmost(kids[i]);
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
	if (holds(e->lhs, x) || holds(e->rhs, x) || holds(e->cond, x))
		return true;
	if (e->kind == N_CALL)
		for (Node *a = e->args; a; a = a->next)
			if (holds(a, x))
				return true;
	return false;
}

static void reject(Node *at, const char *reason, Node *nat, const char *note)
{
	if (loop->kind == N_SYNC) {
		/* Not an error: the vectors take the dense path. */
		(void)at, (void)nat, (void)note;
		if (!sync_reject)
			sync_reject = reason;
		return;
	}
	if (soft) {
		soft_failed = true;
		return;
	}
	if (li->verdict == VD_REJECTED)
		return;
	li->verdict = VD_REJECTED;
	li->reason = reason;
	li->reason_at = at;
	li->note = note;
	li->note_at = nat;
}

static bool has_rand(Node *e);

/* What unit u computes: its expression. */
static Node *unit_expr(Unit *u)
{
	Node *n = u->node;
	return n->kind == N_VAR ? n->init : n->kind == N_EXPR ? n->lhs :
	       u->is_step ? n->step : n->cond;
}

static void add_name(Vec *v, const char *name)
{
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], name))
			return;
	vec_push(v, (void *)name);
}

/* "a", "a and b", "a, b and c" */
static char *name_list(Vec *v)
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
	for (int i = 0; i < jumps.n; i++) {
		Jump *j = jumps.v[i];
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
	if (!c->draw && e && has_rand(e))
		c->draw = e;
	if (!u)
		return;
	for (int i = 0; i < u->reads.n; i++) {
		Node *r = u->reads.v[i];
		if (changing(r, u)) {
			add_name(&c->dds, read_dds(r)->name);
			if (!c->read || (read_dds(r) == c->dds_of && read_dds(c->read) != c->dds_of))
				c->read = r;
		}
	}
	if (!c->dds.n && u->rngcall)
		c->fn = u->rngcall;
}

static void cause_of(Cause *c, Sym *s, Unit *at)
{
	for (int guard = 0; s && guard < 1000; guard++) {
		Taint *x = taint_at(s, at);
		if (!x)
			return;
		add_name(&c->vars, s->name);
		Sym *next;
		if (!x->ctl) {
			cause_unit(c, x->from ? NULL : x->unit, unit_expr(x->unit));
			next = x->from;
			at = x->unit;
		} else {
			Ctl *g = x->ctl->kind == N_CONTINUE ? jump_guard(x->ctl) : x->ctl->aux;
			if (g && g->jump)
				g = jump_guard(g->jump);
			if (!g)
				return;
			cause_unit(c, g->from ? NULL : g->cond, g->cond ? unit_expr(g->cond) : NULL);
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
static bool adds_only(Access *a)
{
	Node *u = a->unit;
	Node *e = u->kind == N_EXPR ? u->lhs : NULL;
	bool ok = a->mode == ACC_RW && e &&
	          ((e->kind == N_ASSIGN && (e->op == TK_PLUS || e->op == TK_MINUS)) ||
	           e->kind == N_INCDEC);
	if (ok) {
		Node *b = e->lhs;
		while ((b->kind == N_INDEX && !is_dds(b->lhs)) || b->kind == N_FIELD)
			b = b->lhs;
		ok = b == a->at;
	}
	return ok;
}

/* Could d be relaxed(+: d) in this loop: a dvector of numbers it only
 * reads and adds to, doing both? */
static bool could_relax(Sym *d)
{
	if (!d || d->ty->kind != TY_DVEC || !ty_is_numeric(d->ty->elem) || acc_is_accum(li, d))
		return false;
	bool adds = false, reads = false;
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (a->dds != d)
			continue;
		if (a->mode != ACC_READ && !adds_only(a))
			return false;
		adds |= a->mode != ACC_READ;
		reads |= a->mode == ACC_READ;
	}
	return adds && reads;
}

/* Access a's key reads root, a DDS the loop writes or a function that
 * draws random numbers, directly or through the tainted local s. */
static void reject_key(Access *a, Node *root, Sym *s, Unit *u)
{
	const char *acc = format("%s[%s]", a->dds->name, acc_expr_str(a->key));
	const char *when = loop->kind == N_SYNC ? "before each step runs" : "before the loop runs";
	const char *hint = "an async for must know every iteration's keys before it runs; use sync "
	                   "for, whose iterations may read stale values";
	/* The straight port of LDA, a count drawn by weights from counts:
	 * analyse_loop says so if relaxing the count makes the loop run. */
	const char *relax_hint = NULL;
	if (loop->kind == N_ASYNC && could_relax(a->dds)) {
		li->relax_hint = a->dds;
		relax_hint = format("the loop only reads %s and adds to it: declared relaxed(+: %s), "
		                    "it runs in parallel, its reads of %s seeing the values at the start "
		                    "of the round plus this worker's own updates (stale by at most one "
		                    "round); or use sync for, whose iterations may read stale values",
		                    a->dds->name, a->dds->name, a->dds->name);
	}
	Cause c = {0};
	c.dds_of = a->dds;
	if (s)
		cause_of(&c, s, u);
	else
		cause_unit(&c, NULL, a->key);
	if (!c.read && root->kind != N_CALL && read_dds(root) && changing(root, NULL)) {
		c.read = root;
		add_name(&c.dds, read_dds(root)->name);
	}
	if (!c.read && !c.fn && root->kind == N_CALL && root->builtin == B_NONE)
		c.fn = root;
	if (c.fn && !c.read) {
		reject(leftmost(a->key), format("the key of %s is not known %s: %s random numbers "
		                      "drawn inside function '%s', which a reconnaissance slice cannot "
		                      "predict", acc, when, s ? format("%s depends on", s->name) : "it depends on",
		                      c.fn->sym->name),
		       c.fn, "called here; draw with rand(), rand_int(n) or rand_normal() in the loop body "
		             "instead, or use sync for");
		return;
	}
	/* A relaxed read: the slice cannot know the worker's round. */
	if (c.read && acc_is_relaxed(li, read_dds(c.read)) && !could_relax(a->dds))
		hint = format("%s is relaxed, so its reads see this worker's round, which no slice can "
		              "know before the loop runs; only the key of a relaxed or accumulated DDS, "
		              "or an index inside an element, may depend on them",
		              read_dds(c.read)->name);
	if (relax_hint && c.read)
		li->relax_note = format("%s is read here; %s", read_dds(c.read)->name, relax_hint);
	if (!s) {
		reject(leftmost(a->key), format("the key of %s is not known %s: it reads %s, "
		                      "which this loop writes", acc, when, name_list(&c.dds)),
		       c.read, format("%s is read here; %s", read_dds(c.read)->name, hint));
		return;
	}
	Taint *x = taint_at(s, u);
	Vec via = {0};
	for (int i = 1; i < c.vars.n; i++)
		vec_push(&via, c.vars.v[i]);
	const char *through = via.n ? format(", through %s,", name_list(&via)) : "";
	const char *on = c.draw ? format("a random draw (%s) and on %s", line_of(c.draw),
	                                 name_list(&c.dds)) : name_list(&c.dds);
	const char *what = format("%s depends%s on %s", s->name, through, on);
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
		       li->nforks == MAX_FORKS ? format("; the slice takes each branch in turn of at "
		                                        "most %d such conditions", MAX_FORKS) : "";
		what = format("%s is assigned under a condition (%s) that depends%s on %s", s->name,
		              line_of(x->ctl), through, on);
	}
	else if (g && g->jump)
		what = format("%s is set by a loop (%s) whose break (%s) depends%s on %s", s->name,
		              line_of(x->ctl), line_of(g->jump), through, on);
	else if (g)
		what = format("%s is set by a loop (%s) whose condition depends%s on %s", s->name,
		              line_of(x->ctl), through, on);
	reject(leftmost(a->key), format("the key of %s is not known %s: %s, which "
	                                "this loop writes%s", acc, when, what, tail),
	       c.read, format("%s is read here; %s", c.read ? read_dds(c.read)->name : "?", hint));
}

/* Is any of syms assigned inside control node c (its body, condition or
 * step)? */
static bool defined_inside(Node *c, Vec *syms)
{
	for (int i = 0; i < units.n; i++) {
		Unit *u = units.v[i];
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
	if (s == iv)
		return true;
	int n = 0;
	for (int i = 0; i < units.n; i++) {
		Unit *u = units.v[i];
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
	for (int k = 0; k < units.n; k++) {
		Unit *x = units.v[k];
		if (x->node == a->unit && (!x->node->aux || x->node->kind == N_IF ||
		                           holds(x->is_step ? x->node->step : x->node->cond, a->at)))
			return x;
	}
	return NULL;
}

/* Do x and y compute the same value from the same variables?  Keys have
 * no side effects and draw no random numbers (build_slice rejects those). */
static bool same_expr(const Node *x, const Node *y)
{
	if (!x || !y)
		return x == y;
	if (x->kind != y->kind || x->op != y->op || x->postfix != y->postfix || x->sym != y->sym ||
	    x->field_index != y->field_index || x->builtin != y->builtin || x->ival != y->ival ||
	    x->fval != y->fval || x->rsite || y->rsite ||
	    (x->kind == N_CONV && x->ty != y->ty) ||
	    ((x->sval || y->sval) && (!x->sval || !y->sval || strcmp(x->sval, y->sval) != 0)))
		return false;
	if (!same_expr(x->lhs, y->lhs) || !same_expr(x->rhs, y->rhs) ||
	    !same_expr(x->cond, y->cond) || !same_expr(x->then, y->then) || !same_expr(x->els, y->els))
		return false;
	const Node *p = x->args, *q = y->args;
	for (; p && q; p = p->next, q = q->next)
		if (!same_expr(p, q))
			return false;
	return !p && !q;
}

/* An access the slice records anyway, before a, at the body's top level,
 * with the same key (whose variables keep one value in an iteration):
 * every iteration that runs a has run it, so recording a adds no key,
 * only the conditions a is under, which would make the slice read what
 * decides them (a pass counter of the driver, say) and plan again
 * whenever that changes. */
static Access *recorded_before(const Access *a, const Unit *u, const Vec *uses)
{
	if (!u || !u->ctrl.n || u->is_step || u->node->aux)
		return NULL;
	for (int k = 0; k < uses->n; k++)
		if (!assigned_once(uses->v[k]))
			return NULL;
	for (int i = 0; i < li->accesses.n; i++) {
		Access *b = li->accesses.v[i];
		if (b == a || b->dds != a->dds || !b->dynamic || b->accumulate)
			continue;
		const Unit *ub = access_unit(b);
		if (ub && !ub->ctrl.n && !ub->is_step && !ub->node->aux && ub->pos < u->pos &&
		    same_expr(a->key, b->key))
			return b;
	}
	return NULL;
}

static void build_slice(void)
{
	/* Seeds: the keys of recorded accesses and their guards. */
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (loop->kind == N_SYNC)
			a->recorded = sync_records(a->dds);
		else
			a->recorded = a->dynamic && !a->accumulate &&
			              (soft ? a->dds->ty->kind == TY_DVEC : written(a->dds));
		if (!a->recorded)
			continue;
		Unit *u = access_unit(a);
		/* The key's own locals. */
		Unit tmp = {0};
		Unit *saved = cur;
		cur = &tmp;
		int nacc = li->accesses.n;
		walk_expr(a->key);
		li->accesses.n = nacc;
		cur = saved;
		for (int k = 0; k < tmp.reads.n; k++) {
			Node *r = tmp.reads.v[k];
			if (changing(r, u)) {
				reject_key(a, r, NULL, u);
				return;
			}
			/* U[X[i].u]: a new X may move the keys. */
			add_sym(&li->slice_reads, read_dds(r));
		}
		if (tmp.rngcall) {
			reject_key(a, tmp.rngcall, NULL, u);
			return;
		}
		if (tmp.ddswrite || tmp.defs.n || tmp.effect) {
			const char *what = tmp.defs.n ? format("it assigns %s", ((Sym *)tmp.defs.v[0])->name) :
			                   tmp.effect ? format("it assigns %s", acc_expr_str(tmp.effect)) :
			                   format("it writes %s", acc_expr_str(tmp.ddswrite));
			reject(leftmost(a->key), format("the key of %s[%s] has a side effect (%s), which a slice that "
			                      "computes keys in advance cannot repeat: compute it into a "
			                      "variable first", a->dds->name, acc_expr_str(a->key), what),
			       NULL, NULL);
			return;
		}
		for (int k = 0; k < tmp.uses.n; k++) {
			Sym *s = tmp.uses.v[k];
			Taint *x = taint_at(s, u);
			if (x) {
				reject_key(a, x->root, s, u);
				return;
			}
		}
		Access *b = loop->kind == N_SYNC ? NULL : recorded_before(a, u, &tmp.uses);
		if (b) {
			b->folded |= a->mode;
			a->recorded = false;
			continue;
		}
		mark_needed(&tmp.uses);
		li->has_slice = true;
		if (!u)
			continue;
		/* Record it before the outermost enclosing loops that do not
		 * change its key: once per iteration of the async for instead of
		 * once per pass of an inner loop.  Not out of an if, which would
		 * record keys of branches not taken. */
		a->anchor = u->node;
		int depth = u->ctrl.n;
		while (depth > 0) {
			Node *c = u->ctrl.v[depth - 1];
			if (!((Ctl *)c->aux)->is_loop || defined_inside(c, &tmp.uses))
				break;
			a->anchor = c;
			depth--;
		}
		if (depth == u->ctrl.n && u->node->aux && u->node->kind != N_IF) {
			reject(leftmost(a->key), format("the key of %s[%s] in the %s of the loop changes inside that "
			                      "loop, but a slice records the keys of a loop's header once, "
			                      "before it: move the access into the loop body", a->dds->name,
			                      acc_expr_str(a->key), u->is_step ? "step" : "condition"),
			       NULL, NULL);
			return;
		}
		Vec outer = {0};
		for (int k = 0; k < depth; k++)
			vec_push(&outer, u->ctrl.v[k]);
		include_ctrl(&outer);
		a->stable = depth == 0;
		for (int k = 0; k < tmp.uses.n && a->stable; k++)
			a->stable = assigned_once(tmp.uses.v[k]);
	}
	if (!li->has_slice)
		return;
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < units.n; i++) {
			Unit *u = units.v[i];
			if (u->included)
				continue;
			/* Not an assignment of an unknowable value: every use it
			 * reaches is tainted, so no recorded key needs it. */
			bool need = false;
			for (int k = 0; k < u->defs.n && !need; k++)
				need = ((Sym *)u->defs.v[k])->needed && !tainted_def(u->defs.v[k], u);
			if (!need)
				continue;
			u->included = true;
			changed = true;
			if (u->node->kind == N_VAR || u->node->kind == N_EXPR)
				u->node->slice = SL_INCLUDED;
			else if (u->is_step)
				u->node->step->slice = SL_INCLUDED;
			mark_needed(&u->uses);
			include_ctrl(&u->ctrl);
		}
		for (int i = 0; i < ctls.n; i++) {
			Ctl *c = ctls.v[i];
			if (c->included && !c->taint && !c->over && c->cond && !c->cond->included) {
				c->cond->included = true;
				mark_needed(&c->cond->uses);
				changed = true;
			}
		}
		/* Jumps that decide which iterations of an included loop run. */
		for (int i = 0; i < jumps.n; i++) {
			Jump *j = jumps.v[i];
			if (j->node->slice)
				continue;
			bool target_in = !j->target || ((Ctl *)j->target->aux)->included;
			if (!target_in || (j->target && j->target->slice == SL_FLAT) || jump_taint(j))
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
	/* What the slice must not do, and what it reads. */
	for (int i = 0; i < units.n; i++) {
		Unit *u = units.v[i];
		if (!u->included)
			continue;
		if (u->ddswrite || u->effect) {
			Sym *k = NULL;
			for (int m = 0; m < u->defs.n && !k; m++)
				if (((Sym *)u->defs.v[m])->needed)
					k = u->defs.v[m];
			Node *w = u->ddswrite ? u->ddswrite : u->effect;
			reject(leftmost(w), format("this statement computes %s, which a key the loop must know in "
			                 "advance depends on, and also writes %s, which a slice computing "
			                 "that key cannot repeat: split it into two statements",
			                 k ? k->name : "a value",
			                 w->kind == N_CALL ? format("%s(...)", w->sym ? w->sym->name :
			                                            "a DDS") : acc_expr_str(w)),
			       NULL, NULL);
			return;
		}
		if (u->rngcall) {
			reject(u->rngcall, format("an index depends on random numbers drawn inside function "
			                          "'%s', which a reconnaissance slice cannot predict",
			                          u->rngcall->sym->name), NULL, NULL);
			return;
		}
		for (int k = 0; k < u->reads.n; k++) {
			Node *r = u->reads.v[k];
			add_sym(&li->slice_reads, read_dds(r));
		}
	}
	for (int i = 0; i < ctls.n; i++) {
		Ctl *c = ctls.v[i];
		if (!c->included || !c->cond)
			continue;
		Vec reads = {0};
		if (c->taint || c->over) {
			evaluable(c->guard, c->cond, NULL, &reads);
			evaluable(c->skip, c->cond, NULL, &reads);
		} else {
			reads = c->cond->reads;
		}
		for (int k = 0; k < reads.n; k++)
			add_sym(&li->slice_reads, read_dds(reads.v[k]));
	}
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
static Sym *driver_read(Node *e)
{
	if (!e)
		return NULL;
	if (e->kind == N_NAME) {
		Sym *s = e->sym;
		if (s && s->kind == SYM_VAR && !is_local(s) && !ty_is_dds(s->ty) &&
		    s->vclass != V_CONST && s->vclass != V_PARAM)
			return s;
		return NULL;
	}
	Sym *r = NULL;
	if (e->kind == N_CALL) {
		for (Node *a = e->args; a && !r; a = a->next)
			r = driver_read(a);
		return r;
	}
	if (!r) r = driver_read(e->lhs);
	if (!r) r = driver_read(e->rhs);
	if (!r) r = driver_read(e->cond);
	if (!r && e->kind == N_COND) r = driver_read(e->then);
	if (!r && e->kind == N_COND) r = driver_read(e->els);
	if (!r) r = driver_read(e->init);
	if (!r) r = driver_read(e->size);
	return r;
}

static bool is_reduce(Sym *s)
{
	for (int i = 0; i < li->reduce_syms.n; i++)
		if (li->reduce_syms.v[i] == s)
			return true;
	return false;
}

/* Does the slice draw random numbers?  Any rand call in an included unit. */
static bool has_rand(Node *e)
{
	if (!e)
		return false;
	if (e->kind == N_CALL && e->rsite)
		return true;
	if (e->kind == N_CALL) {
		for (Node *a = e->args; a; a = a->next)
			if (has_rand(a))
				return true;
		return false;
	}
	if (e->kind == N_COND && (has_rand(e->then) || has_rand(e->els)))
		return true;
	return has_rand(e->lhs) || has_rand(e->rhs) || has_rand(e->cond) || has_rand(e->init) ||
	       has_rand(e->size);
}

/* ---- verdicts ---- */

static bool same_terms(Vec *x, Vec *y)
{
	if (x->n != y->n)
		return false;
	for (int i = 0; i < x->n; i++) {
		AffTerm *a = x->v[i], *b = y->v[i];
		if (a->k != b->k || (a->inv != b->inv &&
		    (!a->inv || !b->inv || strcmp(acc_expr_str(a->inv), acc_expr_str(b->inv)))))
			return false;
	}
	return true;
}

static bool const_nonzero(Vec *a)
{
	int64_t k = 0;
	for (int i = 0; i < a->n; i++) {
		AffTerm *t = a->v[i];
		if (t->inv || __builtin_add_overflow(k, t->k, &k))
			return false;
	}
	return k != 0;
}

static void decide(void)
{
	if (li->verdict == VD_REJECTED)
		return;
	/* Accumulated DDSs are only added to; relaxed ones also read. */
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (!a->accumulate)
			continue;
		bool relaxed = acc_is_relaxed(li, a->dds);
		if (relaxed && a->mode == ACC_READ)
			continue;
		if (adds_only(a))
			continue;
		const char *d = a->dds->name;
		if (relaxed)
			reject(a->at, format("'%s' is relaxed in this loop, so the body may only read its "
			                     "elements and add to them ('%s[k] += x', '-=', '++', '--'), not "
			                     "assign them", d, d), NULL, NULL);
		else if (a->mode == ACC_READ)
			reject(a->at, format("'%s' is accumulated by this loop, so the body may only add to "
			                     "its elements ('%s[k] += x', '-=', '++', '--'), not read them; to "
			                     "read them as of the start of the round plus this worker's own "
			                     "updates, use relaxed(+: %s)", d, d, d), NULL, NULL);
		else
			reject(a->at, format("'%s' is accumulated by this loop, so the body may only add to its "
			                     "elements ('%s[k] += x', '-=', '++', '--'), not assign them", d, d),
			       NULL, NULL);
		return;
	}
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (a->structural && !a->accumulate) {
			li->verdict = VD_SERIAL;
			li->has_slice = false;
			li->reason = format("the body %s %s, and a map's structure cannot change in parallel",
			                    a->at->kind == N_CALL && a->at->builtin == B_ERASE ? "erases keys of" :
			                    "inserts keys into", a->dds->name);
			li->reason_at = a->at;
			return;
		}
	}
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (!a->dynamic && !a->accumulate && (a->mode & ACC_WRITE) && a->aterms.n == 0) {
			li->verdict = VD_SERIAL;
			li->has_slice = false;
			li->reason = format("every iteration writes %s[%s]", a->dds->name, acc_expr_str(a->key));
			li->reason_at = a->at;
			return;
		}
	}
	bool any_write = false;
	for (int i = 0; i < li->dds.n; i++)
		any_write |= written(li->dds.v[i]);
	if (!any_write) {
		li->verdict = VD_NOWRITE;
		return;
	}
	if (li->has_slice) {
		li->slice_rng = false;
		for (int i = 0; i < units.n; i++) {
			Unit *u = units.v[i];
			Node *e = u->node->kind == N_VAR ? u->node :
			          u->node->kind == N_EXPR ? u->node->lhs : NULL;
			if (u->included && e && has_rand(e->kind == N_VAR ? e->init : e))
				li->slice_rng = true;
			if (u->included && !e && has_rand(u->is_step ? u->node->step : u->node->cond))
				li->slice_rng = true;
		}
		/* Driver variables the slice reads may change between
		 * invocations, which the runtime's cache does not see. */
		li->slice_var = NULL;
		for (int i = 0; i < units.n && !li->slice_var; i++) {
			Unit *u = units.v[i];
			if (!u->included)
				continue;
			Node *n = u->node;
			li->slice_var = n->kind == N_VAR ? driver_read(n->init) :
			                n->kind == N_EXPR ? driver_read(n->lhs) :
			                driver_read(u->is_step ? n->step : n->cond);
		}
		for (int i = 0; i < li->accesses.n && !li->slice_var; i++) {
			Access *a = li->accesses.v[i];
			if (a->recorded)
				li->slice_var = driver_read(a->key);
		}
		for (int i = 0; i < ctls.n && !li->slice_var; i++) {
			Ctl *c = ctls.v[i];
			if (c->included && (c->taint || c->over))
				li->slice_var = driver_read(c->guard) ? driver_read(c->guard) :
				                driver_read(c->skip);
		}
		if (li->slice_var && is_reduce(li->slice_var)) {
			/* At the recorded key that reads it, or else at the first
			 * statement of the slice that does. */
			Node *at = NULL;
			const char *what = "a key the loop must know in advance";
			for (int i = 0; i < li->accesses.n && !at; i++) {
				Access *a = li->accesses.v[i];
				if (a->recorded && driver_read(a->key) == li->slice_var) {
					at = leftmost(a->key);
					what = format("the key of %s[%s]", a->dds->name, acc_expr_str(a->key));
				}
			}
			for (int i = 0; i < units.n && !at; i++) {
				Unit *u = units.v[i];
				if (u->included && driver_read(unit_expr(u)) == li->slice_var)
					at = u->node;
			}
			reject(at ? at : loop, format("%s depends on the reduce variable '%s', whose value "
			                              "differs from worker to worker while the loop runs: a "
			                              "slice cannot know it in advance", what,
			                              li->slice_var->name), NULL, NULL);
			return;
		}
		li->verdict = li->slice_rng || li->slice_var ? VD_EACH : VD_ONCE;
		return;
	}
	/* All static: independent when each written DDS is accessed through
	 * one injective affine key. */
	for (int d = 0; d < li->dds.n; d++) {
		if (!written(li->dds.v[d]))
			continue;
		Access *first = NULL;
		for (int i = 0; i < li->accesses.n; i++) {
			Access *a = li->accesses.v[i];
			if (a->ddsi != d)
				continue;
			if (!first) {
				first = a;
				if (!const_nonzero(&a->aterms)) {
					li->verdict = VD_STATIC;
					return;
				}
			} else if (!same_terms(&a->aterms, &first->aterms) ||
			           !same_terms(&a->bterms, &first->bterms)) {
				li->verdict = VD_STATIC;
				return;
			}
		}
	}
	li->verdict = VD_INDEPENDENT;
}

/* A loop that writes nothing may still read elements of a dvector that
 * an async loop over ranks left where it wrote them (see runtime/dds/hold.c).
 * A slice recording its dynamic reads tells each rank which of those
 * elements to fetch, instead of all.  Only where a slice can compute
 * every such key exactly, from the iteration and data alone. */
static void try_read_slice(void)
{
	soft = true;
	soft_failed = false;
	build_slice();
	soft = false;
	bool ok = li->has_slice && !soft_failed;
	li->reads_why = !li->has_slice ? NULL : ok ? NULL : "a slice cannot compute every key";
	for (int i = 0; ok && i < units.n + li->accesses.n; i++) {
		Node *e = NULL;
		if (i < units.n) {
			Unit *u = units.v[i];
			Node *n = u->node;
			if (u->included)
				e = n->kind == N_VAR ? n->init : n->kind == N_EXPR ? n->lhs :
				    u->is_step ? n->step : n->cond;
		} else {
			Access *a = li->accesses.v[i - units.n];
			if (a->recorded)
				e = a->key;
		}
		Sym *d = e ? driver_read(e) : NULL;
		for (int k = 0; !d && i == 0 && k < ctls.n; k++) {
			Ctl *c = ctls.v[k];
			if (c->included && (c->taint || c->over) && !(d = driver_read(c->guard)))
				d = driver_read(c->skip);
		}
		if (e && has_rand(e)) {
			ok = false;
			li->reads_why = "a key depends on random numbers, which differ from one invocation "
			                "to the next";
		} else if (d) {
			ok = false;
			li->reads_why = format("a key depends on the driver variable %s, which may change "
			                       "between invocations", d->name);
		}
	}
	li->has_slice = false;
	li->has_reads = ok;
	if (!ok) {
		for (int i = 0; i < li->accesses.n; i++)
			((Access *)li->accesses.v[i])->recorded = false;
		li->slice_reads.n = 0;
	}
}

static bool is_recorded(const Access *a)
{
	return a->recorded;
}

static bool every_access(LoopInfo *l, Sym *d, bool (*ok)(const Access *));

bool acc_dv_recorded(LoopInfo *l, Sym *d)
{
	return l->has_reads && d->ty->kind == TY_DVEC && every_access(l, d, is_recorded);
}

static int dds_mode_of(LoopInfo *l, Sym *d)
{
	for (int i = 0; i < l->dds.n; i++)
		if (l->dds.v[i] == d)
			return (int)(intptr_t)l->dds_mode.v[i];
	return 0;
}

/* The body's units, controls, jumps and accesses, afresh. */
static void walk_loop(Node *l)
{
	loop = l;
	li = l->li;
	units.n = ctls.n = jumps.n = ctrl.n = 0;
	li->accesses.n = li->dds.n = li->dds_mode.n = li->slice_reads.n = 0;
	li->whole_dds.n = 0;
	li->nrand = 0;
	li->nforks = 0;
	li->has_slice = li->has_reads = false;
	/* A sync for's variable is an element, not an index: no key of it
	 * is static. */
	iv = l->kind == N_ASYNC ? l->init->sym : NULL;
	Unit top = {0};
	cur = &top;
	walk_stmt(l->body);
	cur = NULL;
	/* A slice built before marked locals it needed, and tainted some. */
	for (int i = 0; i < units.n; i++) {
		Unit *u = units.v[i];
		for (int k = 0; k < u->defs.n; k++) {
			((Sym *)u->defs.v[k])->needed = false;
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

/* Which written vectors of a sync for take the sparse path: those whose
 * every access a slice can record, when recon is on.  Each is tried
 * alone, so that one vector's unknowable keys leave the others sparse;
 * then the slice is built for all of those together. */
static void sync_paths(Node *l)
{
	Vec cand = {0};
	li->sync_why.n = 0;
	for (int i = 0; i < li->dds.n; i++) {
		vec_push(&li->sync_why, NULL);
		Sym *d = li->dds.v[i];
		if (!((intptr_t)li->dds_mode.v[i] & ACC_WRITE))
			continue;
		if (!dv_of_numbers(d))
			return;         /* the loop runs whole */
		vec_push(&cand, d);
	}
	const char *all = !li->recon ? "recon = off" :
	                  li->model == 1 ? "under ssp a rank applies the others' changes as they "
	                                   "arrive, which needs them whole" : NULL;
	for (int c = 0; c < cand.n; c++) {
		int i = 0;
		while (li->dds.v[i] != cand.v[c])
			i++;
		if (all) {
			li->sync_why.v[i] = (void *)all;
			continue;
		}
		bool whole = false;
		for (int k = 0; k < li->whole_dds.n; k++)
			whole |= li->whole_dds.v[k] == cand.v[c];
		if (whole) {
			li->sync_why.v[i] = (void *)"gemv, ger or gemm uses every row of it";
			continue;
		}
		walk_loop(l);
		compute_taint();
		sync_only.n = 0;
		vec_push(&sync_only, cand.v[c]);
		sync_reject = NULL;
		build_slice();
		li->sync_why.v[i] = (void *)sync_reject;
	}
	Vec why = li->sync_why;
	walk_loop(l);
	li->sync_why = why;
	sync_only.n = 0;
	for (int c = 0; c < cand.n; c++) {
		int i = 0;
		while (li->dds.v[i] != cand.v[c])
			i++;
		if (!li->sync_why.v[i])
			vec_push(&sync_only, cand.v[c]);
	}
	if (!sync_only.n)
		return;
	compute_taint();
	sync_reject = NULL;
	build_slice();
	if (sync_reject) {
		fprintf(stderr, "sapc: internal error: a sync for slice fails together: %s\n",
		        sync_reject);
		abort();
	}
}

static void analyse(Node *l)
{
	walk_loop(l);
	li->verdict = 0;
	li->reads_why = NULL;
	li->relax_hint = NULL;
	li->relax_note = NULL;
	if (l->kind == N_SYNC) {
		li->verdict = VD_SYNC;
		for (int i = 0; i < li->merge_dds.n; i++)
			if (!(dds_mode_of(li, li->merge_dds.v[i]) & ACC_WRITE)) {
				Node *w = li->merge_how.v[i];
				li->verdict = VD_REJECTED;
				li->reason_at = w;
				li->reason = format("merge(%s): the loop's body does not write '%s', so "
				                    "there is nothing to merge",
				                    ((Sym *)li->merge_dds.v[i])->name,
				                    ((Sym *)li->merge_dds.v[i])->name);
			}
		if (li->verdict == VD_SYNC)
			sync_paths(l);
		return;
	}
	compute_taint();
	li->nforks = 0;
	while (choose_forks())
		retaint();
	build_slice();
	decide();
	if (li->verdict == VD_NOWRITE)
		try_read_slice();
}

/* analyse, and when a key is rejected for reading a DDS that the loop
 * only reads and adds to, and the loop runs with that DDS relaxed, the
 * note says so. */
static void analyse_loop(Node *l)
{
	analyse(l);
	LoopInfo *L = l->li;
	if (L->verdict != VD_REJECTED || !L->relax_hint || !L->relax_note)
		return;
	const char *note = L->relax_note;
	vec_push(&L->relax_syms, L->relax_hint);
	analyse(l);
	bool runs = L->verdict != VD_REJECTED && L->verdict != VD_SERIAL;
	L->relax_syms.n--;
	analyse(l);
	if (runs)
		L->note = note;
}

/* ---- reads of the iteration's own element ---- */

/* Is a a read of X[i], i the loop variable? */
static bool reads_own(const Access *a)
{
	if (a->dynamic || a->mode != ACC_READ || a->aterms.n != 1)
		return false;
	const AffTerm *t = a->aterms.v[0];
	for (int k = 0; k < a->bterms.n; k++)
		if (((AffTerm *)a->bterms.v[k])->k != 0)
			return false;
	return t->k == 1 && !t->inv;
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
static bool at_loop_key(const Access *a)
{
	const Node *k = a->key;
	return k && k->kind == N_NAME && k->sym && k->sym->keys_of && k->sym->ty &&
	       a->dds->ty->key && k->sym->ty->kind == a->dds->ty->key->kind;
}

bool acc_at_key(LoopInfo *l, Sym *d)
{
	return l->verdict != VD_SYNC && d->ty->kind != TY_DVEC && every_access(l, d, at_loop_key);
}

bool acc_reads_own(LoopInfo *l, Sym *d)
{
	return l->verdict != VD_SYNC && d->ty->kind == TY_DVEC && !acc_is_accum(l, d) &&
	       every_access(l, d, reads_own);
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
	return ty_is_flat(d->ty->elem) && acc_reads_own(l, d);
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

bool acc_program(Program *p, bool explain)
{
	explain_mode = explain;
	/* Zeroed, not just emptied: between two programs in one process
	 * xfree_all() frees what the vectors held. */
	units = ctls = jumps = ctrl = sync_only = taints = (Vec){0};
	for (int i = 0; i < p->loops.n; i++) {
		Node *l = p->loops.v[i];
		analyse_loop(l);
		if (l->li->verdict == VD_REJECTED && !explain) {
			diag_error(l->li->reason_at->file, l->li->reason_at->off, "%s", l->li->reason);
			if (l->li->note)
				diag_note(l->li->note_at->file, l->li->note_at->off, "%s", l->li->note);
			return false;
		}
	}
	partition(p);
	return true;
}

/* The DDSs a driver statement writes. */
static void written_in(Node *e, Vec *out)
{
	if (!e)
		return;
	switch (e->kind) {
	case N_ASSIGN: case N_INCDEC: {
		Node *b = e->lhs;
		while (b->kind == N_INDEX || b->kind == N_FIELD) {
			if (b->kind == N_INDEX && b->lhs->kind == N_NAME && ty_is_dds(b->lhs->ty)) {
				add_sym(out, b->lhs->sym);
				break;
			}
			b = b->lhs;
		}
		break;
	}
	case N_CALL:
		if ((e->builtin == B_INSERT || e->builtin == B_ERASE) && e->args->kind == N_NAME)
			add_sym(out, e->args->sym);
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

void acc_dds_written(Node *s, Vec *out)
{
	if (s->kind == N_EXPR)
		written_in(s->lhs, out);
	else if (s->kind == N_VAR)
		written_in(s->init, out);
}

/* ---- sapc --explain ---- */

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
	if (c->over && c->guard == n->cond)
		return "    (a break on a condition not evaluated is ignored: the keys of iterations "
		       "the body may not reach are recorded too)";
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
		if (n->slice)
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
		put_line(out, n, slice_note(n));
	}
	fprintf(out, "    record");
	Vec rs = {0};
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		if (!a->recorded)
			continue;
		char *text = format("%s[%s]", a->dds->name, acc_expr_str(a->key));
		bool dup = false;
		for (int k = 0; k < rs.n && !dup; k++)
			dup = !strcmp(rs.v[k], text);
		if (!dup) {
			vec_push(&rs, text);
			fprintf(out, "%s %s", rs.n > 1 ? "," : "", text);
		}
	}
	fprintf(out, "\n");
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
	bool whole = false;
	for (int i = 0; i < L->dds.n; i++) {
		Sym *d = L->dds.v[i];
		if (((intptr_t)L->dds_mode.v[i] & ACC_WRITE) &&
		    (d->ty->kind != TY_DVEC || !ty_is_numeric(d->ty->elem)))
			whole = true;
	}
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
		const char *why = i < L->sync_why.n ? L->sync_why.v[i] : "recon = off";
		if (!why)
			fprintf(out, "%s, sparse: only the rows the slice records travel; each step a rank "
			        "fetches them from their owners and sends its changes to the owners\n", how);
		else if (L->model == 1)
			fprintf(out, "%s, dense (%s): elements of fixed size (%s), so a rank sends each "
			        "step's change to every rank whole, no packing\n", how, why,
			        ty_str(d->ty->elem));
		else
			fprintf(out, "%s, dense (%s): elements of fixed size (%s), so each step the "
			        "ranks add their workers' changes on the vector's storage, no packing, "
			        "in a chain: the running sum goes from rank to rank in pieces of at least 256 KiB, "
			        "each rank adding to one while the next adds to the one before, and the "
			        "last broadcasts the sum\n", how, why, ty_str(d->ty->elem));
	}
	if (!whole && L->has_slice) {
		fprintf(out, "  slice (each step, over the step's elements, before they run):\n");
		put_slice(out, l, L);
	}
}

/* Access a adds to its element: 'D[k] += x', '-=', '++' or '--' as a
 * statement of its own (as accumulate requires). */
static bool adds_to(const Access *a)
{
	Node *u = a->unit;
	Node *e = u->kind == N_EXPR ? u->lhs : NULL;
	if (a->mode != ACC_RW || !e ||
	    !((e->kind == N_ASSIGN && (e->op == TK_PLUS || e->op == TK_MINUS)) || e->kind == N_INCDEC))
		return false;
	Node *b = e->lhs;
	while ((b->kind == N_INDEX && !is_dds(b->lhs)) || b->kind == N_FIELD)
		b = b->lhs;
	return b == a->at;
}

static bool at_loop_key(const Access *a);

/* What DDS d, which loop L writes, is to a hint: 0 when it is not only
 * added to (or cannot be accumulated, or each iteration touches elements
 * of its own, so it never conflicts), else 1 when the body never reads
 * it otherwise (accumulate), 2 when it does (relaxed). */
static int additive(LoopInfo *L, Sym *d)
{
	if (!written(d) || !ty_is_numeric(d->ty->elem) ||
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
		if (adds_to(a))
			adds = true;
		else if (a->mode == ACC_READ)
			reads = true;
		else
			return 0;
		if (!first)
			first = a;
		own = own && !a->dynamic && const_nonzero(&a->aterms) &&
		      same_terms(&a->aterms, &first->aterms) && same_terms(&a->bterms, &first->bterms);
		own_key = own_key && at_loop_key(a);
	}
	if (!adds || own || own_key)
		return 0;
	return reads ? 2 : 1;
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
	for (int kind = 1; kind <= 2; kind++) {
		Vec ds = {0};
		for (int i = 0; i < L->dds.n; i++)
			if ((!only || L->dds.v[i] == only) && additive(L, L->dds.v[i]) == kind)
				add_name(&ds, ((Sym *)L->dds.v[i])->name);
		if (!ds.n)
			continue;
		char *names = name_list(&ds);
		Buf clause = {0};
		for (int i = 0; i < ds.n; i++)
			buf_printf(&clause, "%s%s", i ? ", " : "", (const char *)ds.v[i]);
		bool one = ds.n == 1;
		fprintf(out, "  hint: %s %s only added to ('+=', '-=', '++', '--') and %s: ", names,
		        one ? "is" : "are", kind == 1 ? "never read otherwise" : "read");
		if (L->verdict == VD_SERIAL)
			fprintf(out, "with '%s(+: %s)' these updates never conflict",
			        kind == 1 ? "accumulate" : "relaxed", clause.s);
		else
			fprintf(out, "if most iterations write a few of %s elements, which makes the plan "
			        "serial, '%s(+: %s)' takes these updates out of the plan", one ? "its" : "their",
			        kind == 1 ? "accumulate" : "relaxed", clause.s);
		fprintf(out, "%s\n", kind == 1 ? "" : "; a read then sees the value at the start of the "
		        "round plus the worker's own updates");
	}
}

static void explain_loop(FILE *out, Node *l)
{
	LoopInfo *L = l->li;
	int line, col;
	diag_linecol(l->file, l->off, &line, &col);
	if (l->kind == N_ASYNC)
		fprintf(out, "%s:%d:%d: loop %d: async for (%s in [%s, %s))\n", l->file->name, line, col, L->id,
		        l->init->sym->name, acc_expr_str(l->init->init), acc_expr_str(l->cond->rhs));
	else
		fprintf(out, "%s:%d:%d: loop %d: sync for (%s : %s)%s\n", l->file->name, line, col, L->id,
		        l->init->sym->name, acc_expr_str(l->lhs),
		        L->batched ? ", the body once per mini-batch" : "");
	/* Accesses, one line per DDS and key. */
	fprintf(out, "  accesses:\n");
	if (!L->accesses.n && !L->whole_dds.n)
		fprintf(out, "    (none)\n");
	Vec seen = {0};
	for (int i = 0; i < L->accesses.n; i++) {
		Access *a = L->accesses.v[i];
		char *text = format("%s[%s]", a->dds->name, acc_expr_str(a->key));
		bool dup = false;
		for (int k = 0; k < seen.n && !dup; k++)
			dup = !strcmp(seen.v[k], text);
		if (dup)
			continue;
		vec_push(&seen, text);
		int mode = 0;
		bool rec = false;
		for (int k = i; k < L->accesses.n; k++) {
			Access *b = L->accesses.v[k];
			if (b->dds == a->dds && !strcmp(acc_expr_str(b->key), acc_expr_str(a->key))) {
				mode |= b->mode;
				rec |= b->recorded;
			}
		}
		const char *cls;
		bool planned = L->verdict == VD_ONCE || L->verdict == VD_EACH;
		bool sync_rec = L->verdict == VD_SYNC && L->has_slice;
		if (a->accumulate)
			cls = acc_is_relaxed(L, a->dds) ? "relaxed" : "accumulated";
		else if (sync_rec && rec)
			cls = a->dynamic ? "dynamic, recorded by the slice" : "constant, recorded by the slice";
		else if (sync_rec && !written(a->dds))
			cls = "dynamic (read-only DDS: not recorded)";
		else if (!a->dynamic && !a->aterms.n)
			cls = "static (constant key)";
		else if (!a->dynamic)
			cls = format("static (affine in %s)", l->init->sym->name);
		else if (rec && planned)
			cls = "dynamic, recorded by the slice";
		else if (planned && !written(a->dds))
			cls = "dynamic (read-only DDS: not recorded)";
		else
			cls = "dynamic";
		fprintf(out, "    %-20s %-10s  %s\n", text, mode_str(mode), cls);
	}
	for (int i = 0; i < L->whole_dds.n; i++) {
		Sym *d = L->whole_dds.v[i];
		fprintf(out, "    %-20s %-10s  every row (gemv, ger or gemm)\n", format("%s[*]", d->name),
		        mode_str((int)dds_mode_of(L, d)));
	}
	if (L->reduce_syms.n) {
		fprintf(out, "  reduce:");
		for (int i = 0; i < L->reduce_syms.n; i++) {
			Node *r = L->reduce_ops.v[i];
			fprintf(out, " %.*s: %s", r->name.len, r->name.p, ((Sym *)L->reduce_syms.v[i])->name);
		}
		fprintf(out, "\n");
	}
	if (L->accum_syms.n) {
		fprintf(out, "  accumulate:");
		for (int i = 0; i < L->accum_syms.n; i++)
			fprintf(out, "%s %s", i ? "," : "", ((Sym *)L->accum_syms.v[i])->name);
		fprintf(out, " (each worker adds into its own copy; the copies are merged when the loop "
		        "ends, so these updates never conflict)\n");
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
	if (l->kind == N_ASYNC && L->verdict != VD_REJECTED) {
		if (L->verdict == VD_SERIAL) {
			fprintf(out, "  slice: none (the loop is serialized)\n");
		} else if (!L->has_slice) {
			fprintf(out, "  slice: none (no dynamic key of a DDS the loop writes)\n");
			if (L->has_reads) {
				fprintf(out, "  read slice (on several ranks, each rank fetches the elements its "
				        "iterations read):\n");
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
	fprintf(out, "  verdict: ");
	switch (L->verdict) {
	case VD_NOWRITE:
		fprintf(out, "parallel: writes no DDS%s, so the iterations are split into contiguous "
		        "chunks with no reconnaissance\n",
		        L->accum_syms.n && L->relax_syms.n ? " except by accumulation and relaxed updates" :
		        L->accum_syms.n ? " except by accumulation" :
		        L->relax_syms.n ? " except by relaxed updates" : "");
		break;
	case VD_INDEPENDENT:
		fprintf(out, "parallel: every key is static and each iteration writes keys of its own, so "
		        "the iterations are split into contiguous chunks with no reconnaissance\n");
		break;
	case VD_STATIC:
		fprintf(out, "parallel: every key is static, so the plan is built from the affine keys "
		        "with no reconnaissance\n");
		break;
	case VD_ONCE: {
		fprintf(out, "parallel: reconnaissance runs once and the plan is reused while the loop "
		        "bounds");
		for (int i = 0; i < L->slice_reads.n; i++)
			fprintf(out, "%s%s", i == L->slice_reads.n - 1 ? " and " : ", ",
			        ((Sym *)L->slice_reads.v[i])->name);
		fprintf(out, " are unchanged\n");
		break;
	}
	case VD_EACH:
		if (L->slice_rng)
			fprintf(out, "parallel, with the plan rebuilt every invocation: the slice draws random "
			        "numbers, which differ from one invocation to the next\n");
		else
			fprintf(out, "parallel, with the plan rebuilt every invocation: the slice reads the "
			        "driver variable %s, which may change between invocations\n",
			        L->slice_var->name);
		break;
	case VD_SERIAL:
		fprintf(out, "serialized: %s (line %d)\n", L->reason, line_no(L->reason_at));
		break;
	case VD_REJECTED:
		fprintf(out, "rejected: %s (line %d)\n", L->reason, line_no(L->reason_at));
		if (L->note)
			fprintf(out, "    note (line %d): %s\n", line_no(L->note_at), L->note);
		break;
	case VD_SYNC:
		fprintf(out, "data-parallel (sync for): each worker updates its own copy of what the body "
		        "writes, merged at synchronisation points\n");
		explain_sync(out, l, L);
		break;
	}
	explain_additive(out, L);
}

void acc_explain(Program *p, FILE *out)
{
	for (int i = 0; i < p->loops.n; i++) {
		Node *l = p->loops.v[i];
		/* The slice marks on nodes are the last analysis's: redo it. */
		analyse_loop(l);
		if (i)
			fputc('\n', out);
		explain_loop(out, l);
	}
	if (!p->loops.n)
		fprintf(out, "no parallel loops\n");
}
