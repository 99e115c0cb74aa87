/* sema_loop.c: the rules of parallel loops.
 *
 * The shape of an async for and a sync for, their reduce, accumulate and
 * relaxed clauses, and what their bodies may not do.  Apart from sema.c
 * so that the rules of the language's parallelism read together.
 */
#include <string.h>
#include "sapc.h"
#include "grammar.h"

#define ASYNC_SHAPE "'async for (long i = start; i < end; i++)'"
static const char *async_form = "an async for has the form " ASYNC_SHAPE;

/* The variable a reduce or accumulate clause names. */
static Sym *clause_var(Node *v, const char *clause, const char *what, const char *hint)
{
	const char *name = sema_S(v->name);
	Sym *s = sema_lookup(name);
	if (!s || s->kind != SYM_VAR) {
		const char *sg = sema_suggest(name);
		if (sg)
			sema_fail(v, "%s names an undefined %s '%s'; did you mean '%s'?", clause, what, name, sg);
		sema_fail(v, "%s names an undefined %s '%s'%s", clause, what, name, hint);
	}
	v->sym = s;
	return s;
}

/* accumulate(+: X, ...): DDSs whose updates commute; relaxed(+: X, ...)
 * the same, and the body may read them, one round stale. */
/* The first field of struct t (in arrays of it too) that is no number,
 * nor an array or struct of numbers; NULL if t is no struct. */
static Node *non_numeric_field(Type *t)
{
	while (t->kind == TY_ARRAY)
		t = t->elem;
	if (t->kind != TY_STRUCT)
		return NULL;
	for (Node *f = t->sdecl->args; f; f = f->next)
		if (!ty_is_numeric(f->ty)) {
			Node *g = non_numeric_field(f->ty);
			return g ? g : f;
		}
	return NULL;
}

static void check_accum(Node *loop, Node *r)
{
	LoopInfo *li = loop->li;
	bool relaxed = r->kind == N_RELAX;
	const char *cl = relaxed ? "relaxed" : "accumulate";
	if (loop->kind != N_ASYNC)
		sema_fail(r, "%s is for async for; a sync for merges its updates already "
		          "(by averaging, or as its DDSs declare)", cl);
	if (r->op != TK_PLUS)
		sema_fail(r, "%s(%s: ...): only '+' is supported; the body adds to the elements with += or -=",
		          cl, sema_S(r->name));
	for (Node *v = r->lhs; v; v = v->next) {
		const char *name = sema_S(v->name);
		Sym *s = clause_var(v, cl, "DDS", "");
		Type *t = s->ty;
		if (t->kind != TY_DVEC && t->kind != TY_DMAP)
			sema_fail_note(v, format("%s needs a dvector%s, and '%s' is a '%s'", cl,
			                         relaxed ? "" : " or dmap", name, ty_str(t)), s->decl,
			               ty_is_dds(t) ? "declared here; a dmultimap keeps every value, so use insert"
			                            : "declared here; for a driver variable, use reduce(+: ...)");
		/* Every worker would read a whole copy of a map, whose keys
		 * the workers' inserts would make differ. */
		if (relaxed && t->kind == TY_DMAP)
			sema_fail_note(v, format("relaxed needs a dvector, and '%s' is a '%s'", name, ty_str(t)),
			               s->decl, "declared here; accumulate(+: ...) takes a dmap, but then the "
			                        "body cannot read it");
		if (!ty_is_numeric(t->elem)) {
			Node *f = non_numeric_field(t->elem);
			sema_fail_note(v, format("%s needs elements that are numbers, or arrays or structs of numbers, and '%s' holds '%s'%s",
			                         cl, name, ty_str(t->elem),
			                         f ? format(", whose field '%s' is a '%s'", sema_S(f->name), ty_str(f->ty)) : ""),
			               f ? f : s->decl, f ? "the field is declared here" : "declared here");
		}
		for (int i = 0; i < li->accum_syms.n; i++)
			if (li->accum_syms.v[i] == s)
				sema_fail(v, "'%s' appears twice in the accumulate%s clauses", name,
				          relaxed ? " and relaxed" : "");
		for (int i = 0; i < li->relax_syms.n; i++)
			if (li->relax_syms.v[i] == s)
				sema_fail(v, "'%s' appears twice in the %srelaxed clauses", name,
				          relaxed ? "" : "accumulate and ");
		vec_push(relaxed ? &li->relax_syms : &li->accum_syms, s);
	}
}

static void check_reduce(Node *loop)
{
	LoopInfo *li = loop->li;
	for (Node *r = loop->args; r; r = r->next) {
		if (r->kind == N_ACCUM || r->kind == N_RELAX) {
			check_accum(loop, r);
			continue;
		}
		for (Node *v = r->lhs; v; v = v->next) {
			const char *name = sema_S(v->name);
			Sym *s = clause_var(v, "reduce", "variable", "; declare it before the loop");
			if (loop->kind == N_ASYNC && loop->init->sym == s)
				sema_fail(v, "cannot reduce into the loop variable '%s'", name);
			if (s->vclass == V_CONST || s->vclass == V_PARAM)
				sema_fail_note(v, format("cannot reduce into %s '%s': it cannot be assigned",
				                         s->vclass == V_CONST ? "const" : "param", name), s->decl,
				               format("declared here; reduce into a variable, as in: %s sum = %s;",
				                      ty_str(s->ty), name));
			Type *t = s->ty;
			const char *op = sema_S(r->name);
			bool ok;
			/* Arrays and structs of numbers combine scalar by scalar. */
			if (r->op == TK_PLUS || r->op == TK_STAR)
				ok = ty_is_numeric(t);
			else if (r->op == TK_ANDAND || r->op == TK_OROR)
				ok = t->kind == TY_BOOL;
			else if (r->op == TK_AND || r->op == TK_OR || r->op == TK_XOR)
				ok = ty_is_int(t);
			else if (!strcmp(op, "min") || !strcmp(op, "max"))
				ok = ty_is_numeric(t);
			else {
				Sym *f = sema_lookup(op);
				if (!f || f->kind != SYM_FUNC) {
					static const char *words[][2] = {
						{"sum", "+"}, {"add", "+"}, {"plus", "+"}, {"prod", "*"}, {"product", "*"},
						{"mul", "*"}, {"times", "*"}, {"and", "&&"}, {"all", "&&"}, {"or", "||"},
						{"any", "||"}, {"maximum", "max"}, {"minimum", "min"},
					};
					Buf names = {0};
					for (Node *x = r->lhs; x; x = x->next)
						buf_printf(&names, "%s%s", x == r->lhs ? "" : ", ", sema_S(x->name));
					for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
						if (!strcmp(op, words[i][0]))
							sema_fail(r, "unknown reduction '%s'; did you mean reduce(%s: %s)?", op,
							          words[i][1], names.s);
					sema_fail(r, "unknown reduction '%s': use +, *, min, max, &&, ||, &, |, ^ or a function", op);
				}
				Node *p1 = f->decl->args, *p2 = p1 ? p1->next : NULL;
				if (!p2 || p2->next || p1->sym->ty != t || p2->sym->ty != t || f->ty != t)
					sema_fail_note(r, format("reduction function '%s' must take two '%s' and return '%s'",
					                         op, ty_str(t), ty_str(t)), f->decl, "declared here");
				r->sym = f;
				f->used = true;
				vec_push(&sema_hooks, r);
				ok = true;
			}
			if (!ok)
				sema_fail(v, "reduce(%s) cannot combine '%s' of type '%s'%s", op, name, ty_str(t),
				          ty_is_numeric(t) && !ty_is_num(t) ? "; arrays and structs of numbers "
				          "combine with +, *, min, max or a function" : "");
			if (sema_is_reduce_var(loop, s))
				sema_fail(v, "'%s' appears twice in the reduce clauses", name);
			vec_push(&li->reduce_syms, s);
			vec_push(&li->reduce_ops, r);
		}
	}
}

/* ---- what a body does with its reduce variables ----
 *
 * Within the body a reduce variable is a worker's partial value, which
 * starts at the operator's identity.  A body that replaces it (last =
 * x[i]) or reads it (if (s < 10) s += x) computes what no serial order of
 * the iterations would, and differently on every number of workers: the
 * loop would not be serializable.  With an operator, then, the variable
 * may only be updated by that operator; min and max may also test it
 * (if (x > best) best = x), && and || test it and set their absorbing
 * value.  A function's partial value is the user's to read.  A sync
 * for, whose mini-batches are not serializable anyway, is left as its
 * reduce semantics say. */

typedef struct RedUse {
	Node *loop;
	bool in_cond;           /* in a condition, where min, max, && and ||
	                           may test their variables */
	Node *guards[16];       /* the comparisons of enclosing ifs' conditions
	                           (a conjunct each) under whose then-branch
	                           the body runs */
	int nguards;
} RedUse;

static Node *lvalue_base(Node *e)
{
	while (e && (e->kind == N_INDEX || e->kind == N_FIELD))
		e = e->lhs;
	return e;
}

static bool same_place(Node *a, Node *b);

/* Two calls that give the same value in one iteration: of the same
 * function, on the same arguments, drawing no random number and not
 * reading the clock.  A program's function is told so after its body's
 * calls are known (sema_same_calls); a C function is taken to be pure, as
 * for keys. */
static bool same_call(Node *a, Node *b)
{
	switch (a->builtin) {
	case B_NONE:
		if (!a->sym || a->sym != b->sym)
			return false;
		break;
	case B_LEN: case B_CONTAINS: case B_COUNT: case B_GET: case B_MIN: case B_MAX:
	case B_ABS: case B_DOT: case B_FAST_SIGMOID: case B_TO_INT: case B_TO_LONG:
	case B_TO_FLOAT: case B_TO_DOUBLE:
		if (a->builtin != b->builtin)
			return false;
		break;
	case B_RAND: case B_RAND_INT: case B_RAND_NORMAL: case B_WTIME: {
		/* if (rand() > b) b = rand(): said so, not that it replaces
		 * b (helper U16). */
		Node *x = a->args, *y = b->args;
		for (; x && y && same_place(x, y); x = x->next, y = y->next)
			;
		if (a->builtin == b->builtin && !x && !y)
			sema_fail(b, "'%s' %s at every call, so its two calls here differ: assign its "
			          "result to a local and use that in the test and the update",
			          sema_S(a->name), a->builtin == B_WTIME ? "reads the clock" :
			          "draws a new random number");
		return false;
	}
	default:
		return false;
	}
	Node *x = a->args, *y = b->args;
	for (; x && y; x = x->next, y = y->next)
		if (!same_place(x, y))
			return false;
	if (x || y)
		return false;
	if (a->builtin == B_NONE && !a->sym->is_extern)
		vec_push(&sema_same_calls, a);
	return true;
}

/* The same place, written the same way (hist[b], acc.sum[2]). */
static bool same_place(Node *a, Node *b)
{
	if (!a || !b || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case N_NAME:
		return a->sym == b->sym;
	case N_INT:
		return a->ival == b->ival;
	case N_FLOAT:
		return a->fval == b->fval && a->is_float32 == b->is_float32;
	case N_FIELD:
		return a->field_index == b->field_index && same_place(a->lhs, b->lhs);
	case N_INDEX:
		return same_place(a->lhs, b->lhs) && same_place(a->rhs, b->rhs);
	case N_BINARY:
		return a->op == b->op && same_place(a->lhs, b->lhs) && same_place(a->rhs, b->rhs);
	case N_CONV: case N_UNARY:
		return a->op == b->op && a->ty == b->ty && same_place(a->lhs, b->lhs);
	case N_CALL:
		return same_call(a, b);
	case N_COND:
		return same_place(a->cond, b->cond) && same_place(a->then, b->then) &&
		       same_place(a->els, b->els);
	default:
		return false;
	}
}

static int names_red(Node *n, void *arg)
{
	Node *loop = arg;
	return n->kind == N_NAME && n->sym && sema_is_reduce_var(loop, n->sym) ? 1 : 0;
}

static int names_sym(Node *n, void *arg)
{
	return n->kind == N_NAME && n->sym == arg ? 1 : 0;
}

static bool mentions_red(Node *e, Node *loop)
{
	return emit_any_node(e, names_red, loop);
}

typedef struct RedFind {
	Node *loop, *found;
} RedFind;

static int find_red(Node *n, void *arg)
{
	RedFind *f = arg;
	if (names_red(n, f->loop)) {
		f->found = n;
		return 1;
	}
	return 0;
}

/* The first name of a reduce variable in e, or NULL. */
static Node *first_red(Node *e, Node *loop)
{
	RedFind f = { loop, NULL };
	emit_any_node(e, find_red, &f);
	return f.found;
}

/* The reduce clause of s in loop, and its operator ("+", "min", or a
 * function's name). */
static Node *clause_of(Node *loop, Sym *s)
{
	for (int i = 0; i < loop->li->reduce_syms.n; i++)
		if (loop->li->reduce_syms.v[i] == s)
			return loop->li->reduce_ops.v[i];
	return NULL;
}

static bool by_function(Node *cl)
{
	return cl->sym != NULL;
}

static _Noreturn void red_misuse(Node *at, Node *cl, Sym *s, bool reads)
{
	const char *op = sema_S(cl->name), *v = s->name;
	const char *how =
		cl->op == TK_PLUS ? format("%s += e, %s -= e, %s++ or %s = %s + e", v, v, v, v, v) :
		cl->op == TK_STAR ? format("%s *= e or %s = %s * e", v, v, v) :
		cl->op == TK_AND ? format("%s &= e", v) :
		cl->op == TK_OR ? format("%s |= e", v) :
		cl->op == TK_XOR ? format("%s ^= e", v) :
		cl->op == TK_ANDAND ? format("%s = %s && e, or %s = false", v, v, v) :
		cl->op == TK_OROR ? format("%s = %s || e, or %s = true", v, v, v) :
		format("%s = %s(%s, e), or tested: if (e %s %s) %s = e", v, op, v,
		       !strcmp(op, "min") ? "<" : ">", v, v);
	sema_fail_note(at, format(reads ? "the body reads reduce variable '%s', which within it is a "
	                                  "worker's partial value, not the running result"
	                                : "this replaces reduce variable '%s', a worker's partial value "
	                                  "(which starts at the reduction's identity), so the result "
	                                  "would match no serial order of the iterations", v),
	               cl, format("reduce(%s: %s) is here; in the body, update '%s' only as %s", op, v, v,
	                          how));
}

/* The operator that undoes op in an update (s = s + x - y): none for the
 * others. */
static int inverse_of(int op)
{
	return op == TK_PLUS ? TK_MINUS : op == TK_STAR ? TK_SLASH : 0;
}

/* How many times place is a term of e, a tree of op and its inverse (a
 * sum and difference); *bad if it is one under the inverse (s = x - s)
 * or another term mentions a reduce variable. */
static int place_terms(Node *e, Node *place, int op, bool inv, Node *loop, bool *bad)
{
	int iop = inverse_of(op);
	if (e->kind == N_BINARY && (e->op == op || (iop && e->op == iop)))
		return place_terms(e->lhs, place, op, inv, loop, bad) +
		       place_terms(e->rhs, place, op, inv != (e->op == iop), loop, bad);
	if (same_place(e, place)) {
		*bad |= inv;
		return 1;
	}
	*bad |= mentions_red(e, loop);
	return 0;
}

/* The e of a comparison c that says e is above place (for max; below
 * for min), e > place or place < e (>= and <= too), e not mentioning a
 * reduce variable; else NULL.  A min that tests the wrong way round
 * would keep no serial order's result. */
static Node *beats(Node *c, Node *place, bool mx, Node *loop)
{
	if (!c || c->kind != N_BINARY)
		return NULL;
	bool gt = c->op == TK_GT || c->op == TK_GE, lt = c->op == TK_LT || c->op == TK_LE;
	Node *e = NULL;
	if (same_place(c->rhs, place) && (mx ? gt : lt))
		e = c->lhs;
	else if (same_place(c->lhs, place) && (mx ? lt : gt))
		e = c->rhs;
	return e && !mentions_red(e, loop) ? e : NULL;
}

/* r, a min or max variable's new value under a test of e against it, is
 * e, or e converted to the variable's type t by a conversion written out
 * (float(x), (int)x): conversions never decrease, so keeping converted
 * values tested unconverted keeps the largest (smallest) converted one,
 * whatever the order, as max (min) of them does.  Not with variables
 * kept with it (argmax), which take the iteration of the last value that
 * beat the converted one: a tie among values converted alike goes to
 * the first iteration when partials combine, to the last serially. */
static bool tested_value(Node *r, Node *e, Type *t)
{
	/* e first: same_place notes e's calls, which a message about
	 * calls that draw points at. */
	if (same_place(e, r))
		return true;
	if (r->ty != t || !ty_is_num(t))
		return false;
	if (r->kind == N_CONV && r->ts)
		return same_place(e, r->lhs);
	return r->kind == N_CALL && (r->builtin == B_TO_INT || r->builtin == B_TO_LONG ||
	                             r->builtin == B_TO_FLOAT || r->builtin == B_TO_DOUBLE) &&
	       r->args && !r->args->next && same_place(e, r->args);
}

/* x of float(x) or (float)x, which tested_value accepted. */
static Node *converted_arg(Node *r)
{
	return r->kind == N_CONV ? r->lhs : r->kind == N_CALL ? r->args : r;
}

/* Whether rhs, assigned to place (of reduce variable s, clause cl), is
 * an update by cl's operator: place op e (op e ...), or the extremum. */
static bool is_update(Node *place, Node *rhs, Node *cl, const RedUse *u)
{
	const char *op = sema_S(cl->name);
	bool mn = !strcmp(op, "min"), mx = !strcmp(op, "max");
	Node *loop = u->loop;
	if (rhs->kind == N_BINARY && (rhs->op == cl->op || (inverse_of(cl->op) &&
	                                                    rhs->op == inverse_of(cl->op)))) {
		bool bad = false;
		return place_terms(rhs, place, cl->op, false, loop, &bad) == 1 && !bad;
	}
	/* C's fmax too: a partial never holds the NaN fmax passes over,
	 * so combining partials by max gives what fmax would. */
	bool cmax = rhs->kind == N_CALL && rhs->sym && rhs->sym->is_extern &&
	            !strcmp(rhs->sym->name, mx ? "fmax" : "fmin");
	if (rhs->kind == N_CALL && ((mn && rhs->builtin == B_MIN) || (mx && rhs->builtin == B_MAX) ||
	                            ((mn || mx) && cmax)) &&
	    rhs->args && rhs->args->next) {
		Node *a = rhs->args, *b = a->next;
		if ((same_place(a, place) && !mentions_red(b, loop)) ||
		    (same_place(b, place) && !mentions_red(a, loop)))
			return true;
	}
	/* best = x > best ? x : best, or best = best < x ? x : best */
	if ((mn || mx) && rhs->kind == N_COND) {
		Node *e = beats(rhs->cond, place, mx, loop);
		if (e && tested_value(rhs->then, e, place->ty) && same_place(rhs->els, place))
			return true;
		e = beats(rhs->cond, place, !mx, loop);
		if (e && same_place(rhs->then, place) && same_place(rhs->els, e))
			return true;
		/* Else a ?: kept under a test of it (below): if ((c ? 1 :
		 * 0) > best) best = (c ? 1 : 0) was refused. */
	}
	if (cl->op == TK_ANDAND && rhs->kind == N_BOOL && !rhs->ival)
		return true;
	if (cl->op == TK_OROR && rhs->kind == N_BOOL && rhs->ival)
		return true;
	/* best = x under if (x > best): the value tested is the one kept. */
	if (mn || mx)
		for (int i = 0; i < u->nguards; i++) {
			Node *e = beats(u->guards[i], place, mx, loop);
			if (e && tested_value(rhs, e, place->ty))
				return true;
		}
	return false;
}

void sema_note_narrow(LoopInfo *li, Node *update, Sym *s)
{
	if (update->kind != N_ASSIGN || ty_first_scalar(update->lhs->ty)->kind != TY_INT ||
	    ty_first_scalar(sema_as_written(update->rhs)->ty)->kind != TY_LONG ||
	    sema_narrow_at(li, s))
		return;
	vec_push(&li->narrow_syms, s);
	vec_push(&li->narrow_at, update);
}

Node *sema_narrow_at(LoopInfo *li, Sym *s)
{
	for (int i = 0; i < li->narrow_syms.n; i++)
		if (li->narrow_syms.v[i] == s)
			return li->narrow_at.v[i];
	return NULL;
}

static void check_red_uses(Node *n, RedUse *u);

/* The terms of an update's tree of op but the place updated. */
static void check_red_terms(Node *e, Node *place, int op, RedUse *u)
{
	int iop = inverse_of(op);
	if (e->kind == N_BINARY && (e->op == op || (iop && e->op == iop))) {
		check_red_terms(e->lhs, place, op, u);
		check_red_terms(e->rhs, place, op, u);
	} else if (!same_place(e, place)) {
		check_red_uses(e, u);
	}
}

static void check_red_list(Node *n, RedUse *u)
{
	for (; n; n = n->next)
		check_red_uses(n, u);
}

/* A condition: min, max, && and || may test their variables there. */
static bool check_red_cond(Node *c, RedUse *u)
{
	if (!c || !mentions_red(c, u->loop))
		return false;
	RedUse t = *u;
	t.in_cond = true;
	check_red_uses(c, &t);
	return true;
}

/* A search for the first name of a reduce variable of loop (of v, if
 * set). */
typedef struct RedName {
	Node *loop;
	Sym *v;
	Node *found;
} RedName;

static int red_name(Node *n, void *arg)
{
	RedName *r = arg;
	if (n->kind == N_NAME && n->sym && sema_is_reduce_var(r->loop, n->sym) &&
	    (!r->v || n->sym == r->v)) {
		r->found = n;
		return 1;
	}
	return 0;
}

static int assigns(Node *n, void *arg)
{
	(void)arg;
	return n->kind == N_ASSIGN || n->kind == N_INCDEC;
}

static int names_this(Node *n, void *s)
{
	return n->kind == N_NAME && n->sym == s;
}

/* The statements of an if's branch: a block's, or the one. */
static Node *branch_stmts(Node *then)
{
	return then && then->kind == N_BLOCK ? then->args : then;
}

/* The plain assignment statement st is, or NULL. */
static Node *assign_of(Node *st)
{
	return st && st->kind == N_EXPR && st->lhs->kind == N_ASSIGN && st->lhs->op == TK_ASSIGN ?
	       st->lhs : NULL;
}

/* An assignment or ++/-- of v (a Sym). */
static int updates_of(Node *n, void *v)
{
	if (n->kind != N_ASSIGN && n->kind != N_INCDEC)
		return 0;
	Node *b = lvalue_base(n->lhs);
	return b && b->kind == N_NAME && b->sym == v;
}

/* Whether statement s, in a branch of an if whose condition c tests
 * reduce variables, does nothing but update those (and set driver
 * variables, which may be kept with them): whatever else it did would
 * follow a worker's partial value, not the loop's (if (x > best) {
 * best = x; W[i] = 1; } marked elements below the value before the
 * loop). */
static bool only_updates(Node *s, Node *c, Node *loop)
{
	if (!s)
		return true;
	switch (s->kind) {
	case N_EMPTY:
		return true;
	case N_BLOCK:
		for (Node *a = s->args; a; a = a->next)
			if (!only_updates(a, c, loop))
				return false;
		return true;
	case N_IF:
		return !emit_any_node(s->cond, assigns, NULL) && only_updates(s->then, c, loop) &&
		       only_updates(s->els, c, loop);
	case N_EXPR: {
		Node *e = s->lhs;
		if (e->kind != N_ASSIGN && e->kind != N_INCDEC)
			return false;
		Node *b = lvalue_base(e->lhs);
		if (!b || b->kind != N_NAME || !b->sym)
			return false;
		if (sema_is_reduce_var(loop, b->sym))
			return emit_any_node(c, names_this, b->sym);
		return b == e->lhs && b->sym->is_driver;
	}
	default:
		return false;
	}
}

/* An if testing reduce variables whose branches do more than update
 * them, or a loop's condition testing one, or a ?: outside an update. */
static _Noreturn void red_cond_misuse(Node *c, Node *loop, Sym *v, const char *what)
{
	RedName r = {loop, v, NULL};
	emit_any_node(c, red_name, &r);
	const char *name = r.found->sym->name;
	Node *cl = clause_of(loop, r.found->sym);
	sema_fail_note(r.found, format("the body tests reduce variable '%s', a worker's partial value "
	                               "(which starts at the reduction's identity), %s: what it does "
	                               "would follow the partial, not the loop's running value",
	                               name, what),
	               cl, format("reduce(%s: %s) is here; a condition may test '%s' only where its "
	                          "branches do nothing but update it (if (e %s %s) %s = e)",
	                          sema_S(cl->name), name, name,
	                          !strcmp(sema_S(cl->name), "min") ? "<" : ">", name, name));
}

/* The comparisons among the conjuncts of an if's condition, which hold
 * in its then-branch. */
static void add_guards(Node *c, RedUse *u)
{
	if (c->kind == N_BINARY && c->op == TK_ANDAND) {
		add_guards(c->lhs, u);
		add_guards(c->rhs, u);
	} else if (c->kind == N_BINARY && u->nguards < 16) {
		u->guards[u->nguards++] = c;
	}
}

static void check_red_uses(Node *n, RedUse *u)
{
	if (!n)
		return;
	Node *loop = u->loop;
	switch (n->kind) {
	case N_NAME:
		if (n->sym && sema_is_reduce_var(loop, n->sym)) {
			Node *cl = clause_of(loop, n->sym);
			const char *op = sema_S(cl->name);
			bool tests = !strcmp(op, "min") || !strcmp(op, "max") || cl->op == TK_ANDAND ||
			             cl->op == TK_OROR;
			if (!by_function(cl) && !(tests && u->in_cond))
				red_misuse(n, cl, n->sym, true);
		}
		return;
	case N_ASSIGN: case N_INCDEC: {
		Node *b = lvalue_base(n->lhs);
		Node *cl = b && b->kind == N_NAME && b->sym && sema_is_reduce_var(loop, b->sym) ?
		           clause_of(loop, b->sym) : NULL;
		if (!cl || by_function(cl))
			break;
		/* The place's subscripts are the body's own. */
		for (Node *p = n->lhs; p != b; p = p->lhs)
			if (p->kind == N_INDEX)
				check_red_uses(p->rhs, u);
		/* An integer updated by a fraction, or divided, truncates at
		 * every step, which the workers' partials do not repeat (p *= 1.5
		 * from a partial of 1 stays 1; v /= 2 makes it 0). */
		/* (sema_narrow wraps a float stored in an integer in a
		 * conversion without a type written) */
		Node *val = n->kind == N_ASSIGN ? sema_as_written(n->rhs) : n->rhs;
		if (n->kind == N_ASSIGN && ty_is_int(n->lhs->ty) && ty_is_float(val->ty))
			sema_fail_note(n, format("'%s' is an integer, and this update by a fractional value "
			                         "truncates at every step, so the workers' partial values "
			                         "would not combine into what the serial loop computes",
			                         b->sym->name), cl,
			               format("make '%s' a double, or convert the value: int(...)",
			                      b->sym->name));
		if (n->kind == N_ASSIGN && ty_is_int(n->lhs->ty) && cl->op == TK_STAR &&
		    (n->op == TK_SLASH || (n->op == TK_ASSIGN && n->rhs->kind == N_BINARY &&
		                           n->rhs->op == TK_SLASH)))
			sema_fail_note(n, format("'%s' is an integer, and integer division truncates at every "
			                         "step, which no product of the workers' partial values "
			                         "repeats", b->sym->name), cl,
			               format("make '%s' a double", b->sym->name));
		if (cl->op == TK_PLUS || cl->op == TK_STAR)
			sema_note_narrow(loop->li, n, b->sym);
		bool ok, op_ok = false;
		if (n->kind == N_INCDEC) {
			ok = cl->op == TK_PLUS;
		} else if (n->op == TK_ASSIGN) {
			ok = is_update(n->lhs, n->rhs, cl, u);
		} else {
			op_ok = (n->op == cl->op && (cl->op == TK_PLUS || cl->op == TK_STAR ||
			                             cl->op == TK_AND || cl->op == TK_OR ||
			                             cl->op == TK_XOR)) ||
			        (inverse_of(cl->op) && n->op == inverse_of(cl->op)) ||
			        (cl->op == TK_ANDAND && n->op == TK_AND) ||
			        (cl->op == TK_OROR && n->op == TK_OR);
			ok = op_ok && !mentions_red(n->rhs, loop);
		}
		/* s += cnt reads cnt's partial: that is the read to name. */
		Node *r = op_ok && !ok ? first_red(n->rhs, loop) : NULL;
		if (r)
			red_misuse(r, clause_of(loop, r->sym), r->sym, true);
		/* best = e under if (e > best), e a long and best an int:
		 * the form is right, the value does not fit (helper U15). */
		const char *op = sema_S(cl->name);
		for (int i = 0; !ok && n->kind == N_ASSIGN && n->op == TK_ASSIGN &&
		                (!strcmp(op, "max") || !strcmp(op, "min")) &&
		                n->lhs->ty->kind == TY_INT && val->ty->kind == TY_LONG && i < u->nguards; i++) {
			Node *e = beats(u->guards[i], n->lhs, !strcmp(op, "max"), loop);
			if (e && same_place(val, e))
				sema_fail_note(n, format("'%s' is an int, and this sets it to the long value it "
				                         "tested, which it may not hold", b->sym->name), cl,
				               format("declare '%s' long, or test an int: if (int(e) %s %s) %s = "
				                      "int(e)", b->sym->name, !strcmp(op, "max") ? ">" : "<",
				                      b->sym->name, b->sym->name));
		}
		/* s += s * x reads the partial; s = x replaces it. */
		if (!ok)
			red_misuse(n, cl, b->sym, n->kind == N_ASSIGN && mentions_red(n->rhs, loop) &&
			                          !(n->op == TK_ASSIGN && (n->rhs->kind == N_CALL ||
			                                                   n->rhs->kind == N_COND)));
		/* What the update adds is checked as any expression; the
		 * place itself is not a read. */
		if (n->kind == N_ASSIGN && n->op == TK_ASSIGN) {
			Node *r = n->rhs;
			if (r->kind == N_COND) {
				check_red_cond(r->cond, u);
				if (!same_place(r->then, n->lhs))
					check_red_uses(r->then, u);
				if (!same_place(r->els, n->lhs))
					check_red_uses(r->els, u);
			} else if (r->kind == N_CALL) {
				for (Node *a = r->args; a; a = a->next)
					if (!same_place(a, n->lhs))
						check_red_uses(a, u);
			} else if (r->kind == N_BINARY) {
				check_red_terms(r, n->lhs, cl->op, u);
			} else {
				check_red_uses(r, u);
			}
		} else if (n->kind == N_ASSIGN) {
			check_red_uses(n->rhs, u);
		}
		return;
	}
	case N_IF: case N_WHILE: case N_DO: case N_FOR: {
		RedUse t = *u;
		if (n->kind == N_FOR)
			check_red_uses(n->init, u);
		if (check_red_cond(n->cond, u)) {
			if (n->kind != N_IF)
				red_cond_misuse(n->cond, loop, NULL, "in a loop's condition");
			if (emit_any_node(n->cond, assigns, NULL))
				red_cond_misuse(n->cond, loop, NULL, "in a condition that assigns");
			/* reduce(max: best, bi) with bi = i beside best = x: bi
			 * is to be kept, not reduced. */
			for (Node *st = branch_stmts(n->then); st;
			     st = n->then->kind == N_BLOCK ? st->next : NULL) {
				Node *a = assign_of(st);
				Sym *x = a && a->lhs->kind == N_NAME ? a->lhs->sym : NULL;
				if (x && sema_is_reduce_var(loop, x) && !emit_any_node(n->cond, names_this, x))
					sema_fail_note(a->lhs, format("'%s' is reduced by its own clause, so this "
					                              "sets a worker's partial of it, not the value "
					                              "beside the one the condition tests", x->name),
					               clause_of(loop, x),
					               format("to keep '%s' with what the condition tests, take "
					                      "it out of the reduce clause", x->name));
			}
			if (!only_updates(n->then, n->cond, loop) || !only_updates(n->els, n->cond, loop) ||
			    (n->els && n->els->kind != N_EMPTY))
				red_cond_misuse(n->cond, loop, NULL, "in an if whose branches do more than update it");
			/* if (x < best && x > lo) best = x: lo's partial would
			 * filter best's updates. */
			for (int i = 0; i < loop->li->reduce_syms.n; i++) {
				Sym *v = loop->li->reduce_syms.v[i];
				if (emit_any_node(n->cond, names_this, v) && !emit_any_node(n->then, updates_of, v))
					red_cond_misuse(n->cond, loop, v, format("in an if whose branch does not update "
					                                      "'%s'", v->name));
			}
			/* if (x > hi && y > lo) { hi = x; lo = y; }: the partials
			 * combine each on its own, into a pair no serial order
			 * sets. */
			Sym *first = NULL;
			for (int i = 0; i < loop->li->reduce_syms.n; i++) {
				Sym *v = loop->li->reduce_syms.v[i];
				if (!emit_any_node(n->cond, names_this, v))
					continue;
				if (first)
					red_cond_misuse(n->cond, loop, v, format("in an if that tests '%s' too (the "
					                "two partials combine each on its own, apart, where the "
					                "serial loop sets them together)", first->name));
				first = v;
			}
			add_guards(n->cond, &t);
		}
		check_red_uses(n->then, &t);
		check_red_uses(n->els, u);
		check_red_uses(n->step, u);
		check_red_uses(n->body, u);
		return;
	}
	case N_COND:
		/* Not an update's (those are checked there). */
		if (check_red_cond(n->cond, u))
			red_cond_misuse(n->cond, loop, NULL, "in a ?: that is not an update of it");
		check_red_uses(n->then, u);
		check_red_uses(n->els, u);
		return;
	case N_CALL:
		/* C may update a partial in place (tally(hist, k)): the user's
		 * word that it adds. */
		if (n->sym && n->sym->is_extern) {
			for (Node *a = n->args; a; a = a->next)
				if (!(a->kind == N_NAME && a->sym && sema_is_reduce_var(loop, a->sym)))
					check_red_uses(a, u);
			return;
		}
		break;
	default:
		break;
	}
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body, n->size};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		check_red_uses(kids[i], u);
	check_red_list(n->args, u);
}

/* ---- driver variables kept with a min or max ----
 *
 * if (d < best) { best = d; at = i; } keeps at with best: after the loop
 * at holds what the iteration that set the final best gave it, as in the
 * serial loop.  Each worker keeps its own best and at; they combine in
 * worker order by the same test, a tie by the iterations that set them,
 * so that it goes as serially (the first for <, the last for <=) where
 * each worker runs its iterations in index order, and only the workers
 * that set best take part.  A site is an if whose condition has such a test and whose
 * branch sets best (to the value tested) and the kept variables, each a
 * statement of the branch itself. */

typedef struct Site {
	Node *ifn;
	Sym *v;
	int op;                 /* new OP old */
	Node *vset;             /* best = d */
	Node *tested;           /* d of best = float(d), converted sites */
	Node *cond;             /* the test of best = test ? d : best */
} Site;

typedef struct Kept {
	Node *loop;
	Vec sites;              /* Site * */
	Vec converted;          /* Site * whose branch sets a converted value */
	Sym *sym;               /* the variable a visit looks for, */
	bool reads;             /* its reads too, not only its updates, */
	Vec skip;               /* but for these assignments */
	Node *found;
} Kept;

static int mirror(int op)
{
	return op == TK_LT ? TK_GT : op == TK_LE ? TK_GE : op == TK_GT ? TK_LT : TK_LE;
}

static void site_of_guard(Node *ifn, Node *g, Kept *k)
{
	if (g->kind == N_BINARY && g->op == TK_ANDAND) {
		site_of_guard(ifn, g->lhs, k);
		site_of_guard(ifn, g->rhs, k);
		return;
	}
	LoopInfo *li = k->loop->li;
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Node *cl = li->reduce_ops.v[i];
		Sym *v = li->reduce_syms.v[i];
		const char *op = sema_S(cl->name);
		bool mx = !strcmp(op, "max");
		if (by_function(cl) || (!mx && strcmp(op, "min")) || !ty_is_scalar(v->ty))
			continue;
		Node place = {.kind = N_NAME, .sym = v};
		Node *e = beats(g, &place, mx, k->loop);
		if (!e)
			continue;
		for (Node *st = branch_stmts(ifn->then); st; st = ifn->then->kind == N_BLOCK ? st->next : NULL) {
			Node *a = assign_of(st);
			/* best = x for an int best and a double x is narrowed:
			 * a site still, for check_red_uses to refuse. */
			Node *r = a ? sema_as_written(a->rhs) : NULL;
			/* float best = x, x a double: the test compares in
			 * double what the store rounds, so doubles that round
			 * alike each beat the rounded best serially but tie as
			 * partials, as for best = float(x) below (helper U15: an
			 * argmax over doubles that all round to 1.0f kept the
			 * first worker's iteration, the serial loop the last).
			 * An integer into a float or a double converts alike in
			 * the test, which C makes in the floating type: its ties
			 * are the serial loop's too (helper U16). */
			bool rounds = r && v->ty->kind == TY_FLOAT && r->ty->kind == TY_DOUBLE;
			int o = same_place(g->rhs, &place) ? g->op : mirror(g->op);
			if (a && a->lhs->kind == N_NAME && a->lhs->sym == v && same_place(r, e) && rounds) {
				Site *t = xcalloc(1, sizeof *t);
				*t = (Site){ifn, v, o, a, r, NULL};
				vec_push(&k->converted, t);
				break;
			}
			if (a && a->lhs->kind == N_NAME && a->lhs->sym == v && same_place(r, e)) {
				Site *t = xcalloc(1, sizeof *t);
				*t = (Site){ifn, v, o, a, NULL, NULL};
				vec_push(&k->sites, t);
				break;
			}
			/* best = float(d): no site, but said if a variable is
			 * kept there (check_kept). */
			if (a && a->lhs->kind == N_NAME && a->lhs->sym == v && tested_value(a->rhs, e, v->ty)) {
				Site *t = xcalloc(1, sizeof *t);
				*t = (Site){ifn, v, o, a, converted_arg(a->rhs), NULL};
				vec_push(&k->converted, t);
				break;
			}
		}
	}
}

static int find_sites(Node *n, void *arg)
{
	if (n->kind == N_IF)
		site_of_guard(n, n->cond, arg);
	return 0;
}

static bool skipped(Kept *k, Node *n)
{
	for (int i = 0; i < k->skip.n; i++)
		if (k->skip.v[i] == n)
			return true;
	return false;
}

/* An update of k->sym (or a read) but the assignments k->skip. */
static int other_use(Node *n, void *arg)
{
	Kept *k = arg;
	if ((n->kind == N_ASSIGN || n->kind == N_INCDEC) && lvalue_base(n->lhs) &&
	    lvalue_base(n->lhs)->kind == N_NAME && lvalue_base(n->lhs)->sym == k->sym) {
		if (!skipped(k, n)) {
			k->found = n;
			return 1;
		}
		if (k->reads && emit_any_node(n->rhs, other_use, k))
			return 1;
		return -1;
	}
	if (k->reads && n->kind == N_NAME && n->sym == k->sym) {
		k->found = n;
		return 1;
	}
	return 0;
}

/* The site among k's whose branch has statement a. */
static Site *site_with(Kept *k, Node *a)
{
	for (int i = 0; i < k->sites.n; i++) {
		Site *t = k->sites.v[i];
		for (Node *st = branch_stmts(t->ifn->then); st;
		     st = t->ifn->then->kind == N_BLOCK ? st->next : NULL)
			if (assign_of(st) == a)
				return t;
	}
	return NULL;
}

static bool site_sets(Site *t, Sym *c)
{
	for (Node *st = branch_stmts(t->ifn->then); st; st = t->ifn->then->kind == N_BLOCK ? st->next : NULL) {
		Node *a = assign_of(st);
		if (a && a->lhs->kind == N_NAME && a->lhs->sym == c)
			return true;
	}
	return false;
}

/* The type of the value a converted site tests: x of float(x), (float)x
 * or, converted by the assignment alone, x. */
static Type *tested_type(Node *rhs)
{
	if (rhs->kind == N_CONV)
		return rhs->lhs->ty;
	if (rhs->kind == N_CALL && rhs->args)
		return rhs->args->ty;
	return rhs->ty;
}

static void check_kept(Node *loop)
{
	LoopInfo *li = loop->li;
	if (!li->pending.n)
		return;
	Kept k = {.loop = loop};
	emit_any_node(loop->body, find_sites, &k);
	for (int i = 0; i < li->pending.n; i++) {
		Node *a = li->pending.v[i];
		Sym *c = a->lhs->sym;
		Site *t = site_with(&k, a);
		for (int j = 0; !t && j < k.converted.n; j++) {
			Site *u = k.converted.v[j];
			if (site_sets(u, c))
				sema_fail_note(a->lhs, format("'%s' cannot be kept with '%s', which this branch "
				                              "sets to a converted value: values converted alike "
				                              "tie, and a tie would keep another iteration's '%s' "
				                              "than the serial loop", c->name, u->v->name,
				                              c->name),
				               u->vset, format("set '%s' to the value tested, with no conversion: "
				                               "declare it %s, the tested value's type",
				                               u->v->name, ty_str(tested_type(u->vset->rhs))));
		}
		if (!t) {
			Sym *v = NULL;
			for (int j = 0; j < li->reduce_syms.n && !v; j++) {
				const char *op = sema_S(((Node *)li->reduce_ops.v[j])->name);
				if (!strcmp(op, "min") || !strcmp(op, "max"))
					v = li->reduce_syms.v[j];
			}
			bool mx = !strcmp(sema_S(clause_of(loop, v)->name), "max");
			sema_fail_note(a->lhs, format("%s body cannot assign driver variable '%s'",
			                              sema_a_loop(loop), c->name), loop,
			               format("to keep '%s' with '%s', set both in one branch: if (e %s %s) "
			                      "{ %s = e; %s = ...; }; to combine '%s' across iterations, add "
			                      "reduce(op: %s)", c->name, v->name, mx ? ">" : "<", v->name,
			                      v->name, c->name, c->name, c->name));
		}
		if (!ty_is_scalar(c->ty))
			sema_fail(a->lhs, "'%s' cannot be kept with '%s': a variable kept with a reduce(%s) "
			          "variable is a number or a bool, not '%s'", c->name, t->v->name,
			          t->op == TK_GT || t->op == TK_GE ? "max" : "min", ty_str(c->ty));
		int j = 0;
		while (j < li->kept_syms.n && li->kept_syms.v[j] != c)
			j++;
		if (j == li->kept_syms.n) {
			vec_push(&li->kept_syms, c);
			vec_push(&li->kept_with, t->v);
		} else if (li->kept_with.v[j] != t->v) {
			sema_fail(a->lhs, "'%s' is set both where '%s' and where '%s' change; it can be kept "
			          "with one of them", c->name, ((Sym *)li->kept_with.v[j])->name, t->v->name);
		}
	}
	/* Each min or max with kept variables: one test, and every place
	 * that sets it sets them all. */
	for (int i = 0; i < li->kept_syms.n; i++) {
		Sym *c = li->kept_syms.v[i], *v = li->kept_with.v[i];
		if (sema_is_won(loop, v))
			continue;
		Site *first = NULL;
		Kept u = {.sym = v};
		for (int m = 0; m < k.sites.n; m++) {
			Site *t = k.sites.v[m];
			if (t->v != v)
				continue;
			if (!first)
				first = t;
			if (t->op != first->op)
				sema_fail_note(t->ifn->cond, format("'%s' is tested here with %s and elsewhere with "
				               "%s; keeping '%s' with it needs one test, which decides ties",
				               v->name, ast_opname(t->op), ast_opname(first->op), c->name),
				               first->ifn->cond, "the other test");
			for (int q = 0; q < li->kept_syms.n; q++)
				if (li->kept_with.v[q] == v && !site_sets(t, li->kept_syms.v[q]))
					sema_fail(t->vset, "this sets '%s' but not '%s', which the loop keeps with "
					          "'%s': set it here too", v->name,
					          ((Sym *)li->kept_syms.v[q])->name, v->name);
			vec_push(&u.skip, t->vset);
		}
		if (emit_any_node(loop->body, other_use, &u))
			sema_fail(u.found, "'%s' keeps '%s' with it, so the body changes '%s' only as "
			          "'if (e %s %s) { %s = e; %s = ...; }'", v->name, c->name, v->name,
			          ast_opname(first->op), v->name, v->name, c->name);
		vec_push(&li->won_syms, v);
		vec_push(&li->won_ops, (void *)(intptr_t)first->op);
	}
	/* Kept variables are set, not read: within the body each is a
	 * worker's own. */
	for (int i = 0; i < li->kept_syms.n; i++) {
		Sym *c = li->kept_syms.v[i];
		Kept u = {.sym = c, .reads = true};
		for (int m = 0; m < li->pending.n; m++)
			if (((Node *)li->pending.v[m])->lhs->sym == c)
				vec_push(&u.skip, li->pending.v[m]);
		if (emit_any_node(loop->body, other_use, &u))
			sema_fail(u.found, "the body reads '%s', which it keeps with '%s': within the body it "
			          "is a worker's own value, not the loop's", c->name,
			          ((Sym *)li->kept_with.v[i])->name);
	}
}

/* best = e > best ? e : best, the new value in the ?:'s then-branch, is
 * a site as if (e > best) best = e is: its test (not its negation, which
 * a NaN would pass) decides.  It assigns best every iteration, so the
 * iteration it keeps is its worker's last: the same order of workers. */
static int find_cond_sites(Node *n, void *arg)
{
	Kept *k = arg;
	if (n->kind != N_ASSIGN || n->op != TK_ASSIGN || !n->lhs || n->lhs->kind != N_NAME ||
	    !n->rhs || n->rhs->kind != N_COND)
		return 0;
	Sym *v = n->lhs->sym;
	LoopInfo *li = k->loop->li;
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Node *cl = li->reduce_ops.v[i];
		if (li->reduce_syms.v[i] != v || by_function(cl))
			continue;
		bool mx = !strcmp(sema_S(cl->name), "max");
		if (!mx && strcmp(sema_S(cl->name), "min"))
			continue;
		Node place = {.kind = N_NAME, .sym = v}, *g = n->rhs->cond;
		Node *e = beats(g, &place, mx, k->loop);
		if (!e || !same_place(n->rhs->els, &place))
			continue;
		int o = same_place(g->rhs, &place) ? g->op : mirror(g->op);
		Site *t = xcalloc(1, sizeof *t);
		if (same_place(n->rhs->then, e)) {
			*t = (Site){NULL, v, o, n, NULL, g};
			vec_push(&k->sites, t);
		} else if (tested_value(n->rhs->then, e, v->ty)) {
			*t = (Site){NULL, v, o, n, converted_arg(n->rhs->then), g};
			vec_push(&k->converted, t);
		}
	}
	return 0;
}

/* A float min or max the body changes only as if (e > best) best = e,
 * by one test, and keeps nothing with: its partials combine by that
 * test, a tie by the iterations that set them, as those of one that
 * keeps variables do, not by max(), which of 0 and -0 gives 0 where the
 * serial loop keeps the one it met first (for >; the last for >=).  Set
 * to converted values as well (best = float(d)): only a double rounded
 * to a float makes ties of values its test told apart (d = 0 and
 * 1e-50 after -0), and such a variable carries its tested value
 * (tv_syms, emit_won); other conversions keep 0's sign or make none. */
static void check_tested(Node *loop)
{
	LoopInfo *li = loop->li;
	Vec vs = {0};
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Node *cl = li->reduce_ops.v[i];
		Sym *v = li->reduce_syms.v[i];
		const char *op = sema_S(cl->name);
		if (!by_function(cl) && (!strcmp(op, "max") || !strcmp(op, "min")) &&
		    (v->ty->kind == TY_FLOAT || v->ty->kind == TY_DOUBLE) && !sema_is_won(loop, v))
			vec_push(&vs, v);
	}
	if (!vs.n)
		return;
	Kept k = {.loop = loop};
	emit_any_node(loop->body, find_sites, &k);
	emit_any_node(loop->body, find_cond_sites, &k);
	for (int i = 0; i < vs.n; i++) {
		Sym *v = vs.v[i];
		Site *first = NULL;
		bool one = true, rounds = false;
		Kept u = {.sym = v};
		for (int m = 0; m < k.sites.n + k.converted.n; m++) {
			Site *t = m < k.sites.n ? k.sites.v[m] : k.converted.v[m - k.sites.n];
			if (t->v != v)
				continue;
			if (!first)
				first = t;
			one &= t->op == first->op;
			rounds |= t->tested && v->ty->kind == TY_FLOAT && t->tested->ty->kind == TY_DOUBLE;
			vec_push(&u.skip, t->vset);
		}
		if (!first || !one || emit_any_node(loop->body, other_use, &u))
			continue;
		vec_push(&li->won_syms, v);
		vec_push(&li->won_ops, (void *)(intptr_t)first->op);
		if (!rounds)
			continue;
		vec_push(&li->tv_syms, v);
		for (int m = 0; m < k.sites.n + k.converted.n; m++) {
			Site *t = m < k.sites.n ? k.sites.v[m] : k.converted.v[m - k.sites.n];
			if (t->v != v)
				continue;
			Node *a = t->vset;
			vec_push(&li->tv_sets, a);
			vec_push(&li->tv_vals, t->tested ? t->tested : t->cond ? a->rhs->then : a->rhs);
			vec_push(&li->tv_conds, t->cond);
		}
	}
}

static void check_reduce_uses(Node *loop)
{
	if (!loop->li->reduce_syms.n)
		return;
	RedUse u = { .loop = loop };
	check_red_uses(loop->body, &u);
}

static void enter_parallel(Node *loop)
{
	if (sema_ctx.func)
		sema_fail(loop, "%s in function '%s': parallel loops may appear only in driver code; use a plain "
		          "for loop here", sema_loopword(loop), sema_S(sema_ctx.func->name));
	if (sema_ctx.loop)
		sema_fail_note(loop, format("%s inside %s body: parallel loops cannot be nested", sema_loopword(loop),
		                            sema_a_loop(sema_ctx.loop)),
		               sema_ctx.loop, "the enclosing parallel loop is here; make one of the two a plain for loop");
	loop->li = xcalloc(1, sizeof *loop->li);
	loop->li->id = ++sema_prog->nloops;
	vec_push(&sema_prog->loops, loop);
}

static bool is_var(Node *e, Sym *s)
{
	return e && e->kind == N_NAME && e->sym == s;
}

void sema_check_async(Node *loop)
{
	enter_parallel(loop);
	Node *init = loop->init;
	if (!init || init->kind != N_VAR)
		sema_fail(init ? sema_start_of(init->lhs) : loop, "an async for must declare its loop variable: "
		          ASYNC_SHAPE);
	sema_open_scope();
	sema_check_var(init);
	Sym *iv = init->sym;
	if (!ty_is_int(iv->ty))
		sema_fail(init, "the variable of an async for must be int or long, not '%s'", ty_str(iv->ty));
	if (!init->init)
		sema_fail(init, "%s", async_form);
	Node *c = loop->cond;
	if (!c)
		sema_fail(loop, "%s: the condition is missing", async_form);
	sema_check_expr(c);
	sema_check_sequenced(init->init);
	sema_check_sequenced(c);
	/* i <= last, as C programs write it: i < last + 1, the sum a long
	 * (last may be INT_MAX).  A floating last would need its floor. */
	if (c->kind == N_BINARY && c->op == TK_LE && is_var(c->lhs, iv) && ty_is_int(c->rhs->ty)) {
		Node *one = xcalloc(1, sizeof *one), *end = xcalloc(1, sizeof *end);
		*one = (Node){.kind = N_INT, .file = c->rhs->file, .off = c->rhs->off, .ival = 1,
		              .op = 1, .ty = ty_long, .has_cval = true, .cval = 1};
		*end = (Node){.kind = N_BINARY, .op = TK_PLUS, .file = c->rhs->file, .off = c->rhs->off,
		              .lhs = c->rhs, .rhs = one, .ty = ty_long, .le_end = true};
		if (c->rhs->has_cval && c->rhs->cval == INT64_MAX)
			sema_fail(c, "'%s <= %s' would never end in C: a long cannot pass its largest value; "
			          "write '%s < %s'", iv->name, acc_expr_str(c->rhs), iv->name,
			          acc_expr_str(c->rhs));
		if (c->rhs->has_cval) {
			end->has_cval = true;
			end->cval = c->rhs->cval + 1;
		}
		c->op = TK_LT;
		c->rhs = end;
	}
	/* n > i and i != n: the same loop, in the one form. */
	if (c->kind == N_BINARY && ((c->op == TK_GT && is_var(c->rhs, iv)) ||
	                            (c->op == TK_NE && is_var(c->lhs, iv))))
		sema_fail(c, "the condition of an async for must be '%s < end'; write '%s < %s'", iv->name,
		          iv->name, acc_expr_str(c->op == TK_GT ? c->lhs : c->rhs));
	if (c->kind == N_BINARY && c->op == TK_LE && is_var(c->lhs, iv))
		sema_fail(c, "the end of an async for is an integer with '<=': for '%s <= %s', write "
		          "'%s < floor(%s) + 1'", iv->name, acc_expr_str(c->rhs), iv->name,
		          acc_expr_str(c->rhs));
	/* for (i = n - 1; i >= 0; i--), C's walk down: the same iterations
	 * counted up, as the order is the runtime's in any case. */
	Node *st = loop->step;
	if (c->kind == N_BINARY && (c->op == TK_GE || c->op == TK_GT) && is_var(c->lhs, iv) && st &&
	    ((st->kind == N_INCDEC && st->op == TK_DEC) ||
	     (st->kind == N_ASSIGN && st->op == TK_MINUS)) && st->lhs && st->lhs->kind == N_NAME &&
	    !strcmp(sema_S(st->lhs->name), iv->name))
	{
		/* n - 1 down: i < n up. */
		Node *from = init->init;
		bool minus1 = from->kind == N_BINARY && from->op == TK_MINUS &&
		              from->rhs->kind == N_INT && from->rhs->ival == 1;
		/* Not the same loop where iterations depend on each other:
		 * a 0/1 knapsack walked up counts items again (helper DP). */
		sema_fail(c, "an async for counts up, and runs its iterations in an order of its own "
		          "anyway: write 'async for (%s %s = %s%s; %s %s %s; %s++)', or, where "
		          "iterations read what others write and the walk down matters (a 0/1 "
		          "knapsack's table), a plain 'for'",
		          ty_str(iv->ty), iv->name, acc_expr_str(c->rhs), c->op == TK_GT ? " + 1" : "",
		          iv->name, minus1 ? "<" : "<=", acc_expr_str(minus1 ? from->lhs : from),
		          iv->name);
	}
	if (c->kind != N_BINARY || c->op != TK_LT || !is_var(c->lhs, iv))
		sema_fail(c, "the condition of an async for must be '%s < end'", iv->name);
	if (emit_any_node(c->rhs, names_sym, iv))
		sema_fail(c->rhs, "the end of an async for is computed once, before the first "
		          "iteration, so it cannot use the loop variable '%s'", iv->name);
	Node *s = loop->step;
	if (!s)
		sema_fail(loop, "%s: the step is missing", async_form);
	sema_check_expr(s);
	/* What i += k, i = i + k and i = k + i add. */
	Node *amt = NULL;
	if (s->kind == N_ASSIGN && s->op == TK_PLUS && is_var(s->lhs, iv))
		amt = s->rhs;
	else if (s->kind == N_ASSIGN && s->op == TK_ASSIGN && is_var(s->lhs, iv) &&
	         s->rhs->kind == N_BINARY && s->rhs->op == TK_PLUS)
		amt = is_var(s->rhs->lhs, iv) ? s->rhs->rhs : is_var(s->rhs->rhs, iv) ? s->rhs->lhs : NULL;
	int64_t k = 0;
	bool known = amt && sema_const_int(amt, &k);
	bool ok = (s->kind == N_INCDEC && s->op == TK_INC && is_var(s->lhs, iv)) || (known && k == 1);
	if (!ok && known && k > 1)
		sema_fail(s, "the step of an async for must be '%s++'; to step by %lld, loop over the steps, "
		          "'k < (end - start + %lld) / %lld', and use 'start + %lld * k' as the index", iv->name,
		          (long long)k, (long long)k - 1, (long long)k, (long long)k);
	if (!ok)
		sema_fail(s, "the step of an async for must be '%s++': iterations are the integers from start to end",
		          iv->name);
	check_reduce(loop);
	Ctx saved = sema_ctx;
	sema_ctx.loop = loop;
	sema_ctx.seqloops = 0;
	iv->loop = loop;
	iv->is_driver = false;
	sema_check_stmt(loop->body);
	check_kept(loop);
	check_reduce_uses(loop);
	check_tested(loop);
	sema_ctx = saved;
	sema_close_scope();
}

/* merge(D) = avg | sum | f, f taking (S old, S total, long workers) to
 * S for D's scalar type S. */
static void check_merge(Node *loop, Node *w)
{
	LoopInfo *li = loop->li;
	if (!w->rhs || !w->lhs || w->lhs->kind != N_NAME)
		sema_fail(w, "write merge(D) = avg, merge(D) = sum or merge(D) = f, D a dvector the body writes");
	Type *t = sema_check_expr(w->lhs);
	Sym *d = w->lhs->sym;
	if (t->kind != TY_DVEC || !ty_is_numeric(t->elem))
		sema_fail(w->lhs, "merge() takes a dvector of numbers, or of arrays or structs of numbers, not '%s'", ty_str(t));
	for (int i = 0; i < li->merge_dds.n; i++)
		if (li->merge_dds.v[i] == d)
			sema_fail(w, "the merge of '%s' is given twice", d->name);
	Node *h = w->rhs;
	if (h->kind != N_NAME)
		sema_fail(h, "a merge is avg, sum or the name of a function");
	const char *f = sema_S(h->name);
	if (strcmp(f, "avg") && strcmp(f, "sum")) {
		Sym *fn = sema_lookup(f);
		if (!fn || fn->kind != SYM_FUNC) {
			if (!strcmp(f, "mean") || !strcmp(f, "average") || !strcmp(f, "add") || !strcmp(f, "plus"))
				sema_fail(h, "unknown merge '%s'; did you mean merge(%s) = %s?", f, d->name,
				          f[0] == 'm' || f[1] == 'v' ? "avg" : "sum");
			sema_fail(h, "unknown merge '%s': use avg, sum or a function", f);
		}
		/* Applied to each scalar, when they all have one type, or to
		 * each element of a struct type. */
		Type *et = t->elem, *sc = ty_first_scalar(et);
		if (!ty_all_of(et, sc))
			sc = et;
		Node *p1 = fn->decl->args, *p2 = p1 ? p1->next : NULL, *p3 = p2 ? p2->next : NULL;
		Type *pt = p1 ? p1->sym->ty : NULL;
		if (pt != sc && pt != et)
			pt = sc;
		if (!p3 || p3->next || p1->sym->ty != pt || p2->sym->ty != pt || !ty_is_int(p3->sym->ty) ||
		    fn->ty != pt)
			sema_fail_note(h, format("merge function '%s' must take '%s old, %s total, long workers' "
			                         "and return '%s'%s", f, ty_str(sc), ty_str(sc), ty_str(sc),
			                         sc != et && et->kind == TY_STRUCT ?
			                         format(" (or '%s' for each element)", ty_str(et)) : ""),
			               fn->decl, "declared here");
		h->sym = fn;
		fn->used = true;
		vec_push(&sema_hooks, h);
	}
	vec_push(&li->merge_dds, d);
	vec_push(&li->merge_how, w);
}

static void check_with(Node *loop)
{
	LoopInfo *li = loop->li;
	bool have_model = false, have_batch = false, have_recon = false;
	li->recon = true;
	for (Node *w = loop->clauses; w; w = w->next) {
		const char *n = sema_S(w->name);
		if (!strcmp(n, "bsp") || !strcmp(n, "hybrid") || !strcmp(n, "ssp")) {
			if (have_model)
				sema_fail(w, "the sync model is given twice (choose one of bsp, ssp(s), hybrid)");
			have_model = true;
			if (!strcmp(n, "ssp")) {
				if (!w->lhs || w->postfix)
					sema_fail(w, "ssp needs its staleness bound: ssp(s)");
				if (!ty_is_int(sema_check_expr(w->lhs)))
					sema_fail(w->lhs, "the staleness of ssp must be an integer");
				li->model = 1;
				li->staleness = w->lhs;
			} else {
				if (w->lhs)
					sema_fail(w, "%s takes no argument", n);
				li->model = !strcmp(n, "bsp") ? 0 : 2;
			}
		} else if (!strcmp(n, "batch")) {
			if (!w->postfix)
				sema_fail(w, "write the mini-batch size as batch = M");
			if (have_batch)
				sema_fail(w, "batch is given twice");
			have_batch = true;
			if (!ty_is_int(sema_check_expr(w->lhs)))
				sema_fail(w->lhs, "batch must be an integer, not '%s'", ty_str(w->lhs->ty));
			li->batch = w->lhs;
		} else if (!strcmp(n, "recon")) {
			if (!w->postfix || w->lhs->kind != N_NAME)
				sema_fail(w, "write recon = on or recon = off");
			const char *v = sema_S(w->lhs->name);
			if (strcmp(v, "on") && strcmp(v, "off"))
				sema_fail(w->lhs, "recon is on or off, not '%s'", v);
			if (have_recon)
				sema_fail(w, "recon is given twice");
			have_recon = true;
			li->recon = !strcmp(v, "on");
		} else if (!strcmp(n, "merge")) {
			check_merge(loop, w);
		} else {
			sema_fail(w, "unknown sync for option '%s' (expected bsp, ssp(s), hybrid, batch = M, recon = on|off, "
			          "merge(D) = avg|sum|f)", n);
		}
	}
	/* The with clause always has an item: the grammar requires one. */
	if (!have_model)
		sema_fail(loop->clauses, "sync for needs a model in its with clause: bsp, ssp(s) or hybrid");
	if (!have_batch)
		sema_fail(loop->clauses, "sync for needs a mini-batch size in its with clause: batch = M");
}

void sema_check_sync(Node *loop)
{
	enter_parallel(loop);
	Type *d = sema_check_expr(loop->lhs);
	if (d->kind != TY_DVEC)
		sema_fail(loop->lhs, "sync for iterates over a dvector, not '%s'%s", ty_str(d),
		          d->kind == TY_LIST || d->kind == TY_ARRAY ? "; use a plain for loop" : "");
	check_with(loop);
	sema_open_scope();
	Node *v = loop->init;
	Type *t = sema_resolve(v->ts);
	/* list<T> b: the body runs once per mini-batch, with its elements. */
	loop->li->batched = t->kind == TY_LIST && t->elem == d->elem;
	if (t != d->elem && !loop->li->batched)
		sema_fail(v, "the element variable has type '%s', but the dvector holds '%s'; declare it as "
		          "'%s %s', or as 'list<%s> %s' to run the body once per mini-batch", ty_str(t),
		          ty_str(d->elem), ty_str(d->elem), sema_S(v->name), ty_str(d->elem), sema_S(v->name));
	check_reduce(loop);
	Ctx saved = sema_ctx;
	sema_ctx.loop = loop;
	sema_ctx.seqloops = 0;
	Sym *s = sema_declare(v, sema_S(v->name), SYM_VAR, t);
	s->readonly = true;
	sema_check_stmt(loop->body);
	check_kept(loop);
	sema_ctx = saved;
	sema_close_scope();
}
