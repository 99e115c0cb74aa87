/* sema_copy.c: changes made to a copy of a DDS element, then lost.
 *
 * C code updates a model through a pointer, float *w = W[u]; a port
 * writes float w[K] = W[u] and updates w, which SAP copies: W keeps its
 * values, and an SGD trains nothing, without a word (a helper's matrix
 * factorisation printed the RMSE of its starting point for ever).  A
 * local declared from an element of a DDS, or a struct parameter, whose
 * last change no code reads afterwards is warned of, at that change
 * (-Wlost-copy): a change that is a statement of its own (not one whose
 * value an expression takes), outside a parallel loop whose reduce
 * clause names the variable.
 *
 * "Reads afterwards" is judged by statements, not by values: any mention
 * of the local after the statement of the last change keeps it, and so
 * does any read within a loop around the change that a later pass of
 * the loop could see -- all but a read of w[k] in the loop over k whose
 * change is of w[k] too (the SGD's wk = w[k] before w[k] += ...).  A
 * local passed to a call is kept: a C function may write an array in
 * place. */

#include <string.h>

#include "sapc.h"
#include "grammar.h"

/* The variable an lvalue or element path starts from. */
static Node *root(Node *e)
{
	while (e && (e->kind == N_INDEX || e->kind == N_FIELD))
		e = e->lhs;
	return e;
}

/* The DDS element a declaration copies: X[k], X[k].f, X[k][j]... */
static Node *dds_element(Node *init)
{
	for (Node *e = init; e && (e->kind == N_INDEX || e->kind == N_FIELD); e = e->lhs)
		if (e->kind == N_INDEX && e->lhs->ty && ty_is_dds(e->lhs->ty))
			return init;
	return NULL;
}

typedef struct Scan {
	Sym *v;
	Node *last;             /* the last change of v, by position */
	bool passed;            /* v is an argument of a call */
} Scan;

static bool is_v(Node *n, Sym *v)
{
	return n && n->kind == N_NAME && n->sym == v;
}

/* Is n a change of v: an assignment to it or a part, ++ or --, or a
 * push to it? */
static bool changes_v(Node *n, Sym *v)
{
	if ((n->kind == N_ASSIGN || n->kind == N_INCDEC) && is_v(root(n->lhs), v))
		return true;
	return n->kind == N_CALL && n->builtin == B_PUSH && n->args && is_v(root(n->args), v);
}

static int find_changes(Node *n, void *arg)
{
	Scan *s = arg;
	if (changes_v(n, s->v) && (!s->last || n->off >= s->last->off))
		s->last = n;
	if (n->kind == N_CALL && !n->builtin)
		for (Node *a = n->args; a; a = a->next)
			if (is_v(root(a), s->v))
				s->passed = true;
	return 0;
}

/* Does n name v other than as the target of a change? */
typedef struct Reads {
	Sym *v;
	Node *skip;             /* the last change, whose own reads are its value */
	Node *loop;             /* reading w[k] of this loop's counter k is no use */
	Node *at;               /* the change's subscript, w[k] */
	bool after;             /* only reads placed after `skip` count */
} Reads;

static int assigns(Node *n, void *k)
{
	return (n->kind == N_ASSIGN || n->kind == N_INCDEC) && is_v(root(n->lhs), k);
}

static bool counter_read(Reads *r, Node *n)
{
	Node *f = r->loop;
	if (!f || f->kind != N_FOR || !r->at || n->kind != N_INDEX || !is_v(n->lhs, r->v) ||
	    !acc_same_expr(n, r->at) || n->rhs->kind != N_NAME)
		return false;
	Sym *k = n->rhs->sym;
	Node *st = f->step;
	bool up = st && ((st->kind == N_INCDEC && is_v(st->lhs, k)) ||
	                 (st->kind == N_ASSIGN && st->op != TK_ASSIGN && is_v(st->lhs, k)));
	/* The body moving k (a retry, k--) reads an element again. */
	return up && f->init && !emit_any_node(f->body, assigns, k) &&
	       (f->init->kind == N_VAR ? f->init->sym == k :
	        f->init->kind == N_EXPR && f->init->lhs->kind == N_ASSIGN &&
	        is_v(f->init->lhs->lhs, k));
}

static int reads_v(Node *n, void *arg)
{
	Reads *r = arg;
	if (n == r->skip)
		return -1;
	/* The target of a change is no read of it... */
	if (changes_v(n, r->v) && n->kind != N_CALL) {
		Node *t = n->lhs;
		/* ...but its subscripts are reads of what they name. */
		for (; t && (t->kind == N_INDEX || t->kind == N_FIELD); t = t->lhs)
			if (t->kind == N_INDEX && emit_any_node(t->rhs, reads_v, r))
				return 1;
		return emit_any_node(n->rhs, reads_v, r) ? 1 : -1;
	}
	if (n->kind == N_INDEX && counter_read(r, n))
		return -1;
	if (n->kind == N_NAME && n->sym == r->v)
		return !r->after || n->off > r->skip->off;
	return 0;
}

static bool is_loop(Node *n)
{
	return n->kind == N_FOR || n->kind == N_WHILE || n->kind == N_DO;
}

static int contains(Node *n, void *x)
{
	return n == x;
}

/* Is the value s->last stores read within stmt, which holds it: after
 * it, or in a later pass of a loop around it? */
static bool read_in(Node *stmt, Scan *s)
{
	Reads r = {.v = s->v, .skip = s->last, .after = true};
	if (emit_any_node(stmt, reads_v, &r))
		return true;
	Node *t = s->last->kind == N_CALL ? NULL : s->last->lhs;
	/* Every loop around the change, from stmt inwards. */
	for (Node *n = stmt; n && n != s->last;) {
		if (is_loop(n)) {
			Reads lr = {.v = s->v, .skip = s->last, .loop = n,
			            .at = t && t->kind == N_INDEX ? t : NULL};
			if (emit_any_node(n->body, reads_v, &lr) || emit_any_node(n->cond, reads_v, &lr) ||
			    emit_any_node(n->step, reads_v, &lr))
				return true;
		}
		Node *kids[] = {n->then, n->els, n->body, n->init, n->lhs, n->rhs, n->cond, n->step};
		Node *next = NULL;
		for (size_t i = 0; i < sizeof kids / sizeof *kids && !next; i++)
			if (kids[i] && emit_any_node(kids[i], contains, s->last))
				next = kids[i];
		for (Node *a = n->args; a && !next; a = a->next)
			if (emit_any_node(a, contains, s->last))
				next = a;
		if (!next)
			break;
		/* A block's statements: the one holding the change. */
		if (next == n->body && next->kind == N_BLOCK) {
			for (Node *a = next->args; a; a = a->next)
				if (emit_any_node(a, contains, s->last)) {
					next = a;
					break;
				}
		}
		n = next;
	}
	return false;
}

static void check_block(Node *first);

/* The node whose child x is, under n, or NULL. */
static Node *parent_of(Node *n, Node *x)
{
	if (!n)
		return NULL;
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body, n->size};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++) {
		if (kids[i] == x)
			return n;
		Node *p = parent_of(kids[i], x);
		if (p)
			return p;
	}
	for (Node *a = n->args; a; a = a->next) {
		if (a == x)
			return n;
		Node *p = parent_of(a, x);
		if (p)
			return p;
	}
	return NULL;
}

typedef struct Reduced {
	Sym *v;
	Node *change;
	bool found;
} Reduced;

/* A parallel loop around the change whose reduce clause names v: a
 * reduction's value, not a copy's (long u = P[1]; ... reduce(+: u)). */
static int reduces_v(Node *n, void *arg)
{
	Reduced *r = arg;
	if ((n->kind != N_ASYNC && n->kind != N_SYNC) || !emit_any_node(n->body, contains, r->change))
		return 0;
	for (Node *c = n->args; c; c = c->next)
		for (Node *x = c->kind == N_REDUCE ? c->lhs : NULL; x; x = x->next)
			if (x->sym == r->v)
				r->found = true;
	return 0;
}

/* Is change c a statement of its own (or a for's step), whose value
 * nothing takes: not while ((w[1] *= 0.5) > 0.01), s += (w[k] = ...)? */
static bool stands_alone(Node *holder, Node *c)
{
	if (holder == c)
		return true;
	Node *p = parent_of(holder, c);
	return p && ((p->kind == N_EXPR && p->lhs == c) || (p->kind == N_FOR && p->step == c));
}

/* v, a copy of what src names (NULL: a struct parameter, the caller's
 * argument), changed by the statements from first on. */
static void check_copy(Sym *v, Node *src, Node *first)
{
	Scan s = {.v = v};
	Node *holder = NULL;
	for (Node *n = first; n; n = n->next) {
		Node *was = s.last;
		emit_any_node(n, find_changes, &s);
		if (s.last != was)
			holder = n;
	}
	if (!s.last || s.passed || !stands_alone(holder, s.last))
		return;
	Reduced red = {.v = v, .change = s.last};
	emit_any_node(holder, reduces_v, &red);
	if (red.found)
		return;
	for (Node *n = holder->next; n; n = n->next)
		if (emit_any_node(n, reads_v, &(Reads){.v = s.v, .skip = s.last}))
			return;
	if (read_in(holder, &s))
		return;
	Node *at = s.last->kind == N_CALL ? s.last : s.last->lhs;
	if (!src) {
		diag_warning(at->file, sema_start_of(at)->off, "lost-copy",
		             "'%s' is a copy of the caller's struct (SAP passes structs by value, not "
		             "as C's pointers), and this change of it is never read: return the struct, "
		             "or change the caller's variable or dvector element", v->name);
		return;
	}
	const char *e = acc_expr_str(src);
	diag_warning(at->file, sema_start_of(at)->off, "lost-copy",
	             "'%s' is a copy of %s (SAP copies values; it has no references), and this "
	             "change of it is never read: %s keeps its value; write the copy back "
	             "(%s = %s;) or change %s itself", v->name, e, e, e, v->name, e);
}

static void check_decl(Node *d)
{
	Node *src = d->init ? dds_element(d->init) : NULL;
	if (src && d->sym)
		check_copy(d->sym, src, d->next);
}

static int visit(Node *n, void *arg)
{
	(void)arg;
	if (n->kind == N_BLOCK)
		check_block(n->args);
	return 0;
}

static void check_block(Node *first)
{
	for (Node *n = first; n; n = n->next)
		if (n->kind == N_VAR)
			check_decl(n);
}

void sema_warn_lost_copies(Program *p, SrcFile *f)
{
	for (Node *n = p->items; n; n = n->next) {
		if (n->file != f)
			continue;
		if (n->kind == N_VAR)
			check_decl(n);
		/* A struct parameter changed as C changes *p; an array one
		 * is -Warray-parameter-copy's. */
		if (n->kind == N_FUNC && n->body)
			for (Node *a = n->args; a; a = a->next)
				if (a->sym && a->sym->ty->kind == TY_STRUCT)
					check_copy(a->sym, NULL, n->body->args);
		emit_any_node(n, visit, NULL);
	}
}
