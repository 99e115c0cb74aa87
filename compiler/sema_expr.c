/* sema_expr.c: the types of expressions, and the rules of each builtin's
 * calls.  Apart from sema.c because expressions are most of the checking:
 * operators, assignments, subscripts of DDSs, calls of functions and of
 * the builtins (load, save, print, the math and the RNG), and where in
 * parallel loops each may appear.
 */
#include <stdarg.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/* May a value of type `from` be stored where `to` is expected? */
bool sema_assignable(Type *to, Type *from)
{
	if (to == from)
		return !ty_is_dds(to) && to->kind != TY_VOID;
	if (ty_is_num(to) && ty_is_num(from))
		return true;
	if (ty_is_numarray(to) && ty_is_numarray(from) && to->len == from->len)
		return true;
	return false;
}

/* The first token of an expression: a message about all of it points there. */
Node *sema_start_of(Node *e)
{
	for (;;) {
		switch (e->kind) {
		case N_BINARY: case N_ASSIGN: case N_INDEX: case N_FIELD:
			e = e->lhs;
			break;
		case N_COND:
			e = e->cond;
			break;
		case N_INCDEC:
			if (!e->postfix)
				return e;
			e = e->lhs;
			break;
		default:
			return e;
		}
	}
}

/* What to do about a `from` where a `to` is expected ("" if nothing to say). */
static const char *mismatch_hint(Type *to, Node *e)
{
	Type *from = e->ty;
	if (to->kind == TY_BOOL && ty_is_num(from))
		return format("; compare the number to get a bool, as in '%s != 0'",
		              e->kind == N_NAME ? sema_S(e->name) : "x");
	if (ty_is_num(to) && from->kind == TY_BOOL)
		return format("; convert it with %s(...)", ty_str(to));
	if (ty_is_num(to) && from->kind == TY_STRING)
		return format("; read the number it holds with to_%s(...)", ty_str(to));
	if (from->kind == TY_STRUCT) {
		Node *best = NULL;
		for (Node *f = from->sdecl->args; f; f = f->next)
			if (f->ty == to || (!best && sema_assignable(to, f->ty)))
				best = f;
		if (best)
			return format("; use one of its fields, such as '.%s'", sema_S(best->name));
	}
	return "";
}

/* Fail with "msg; hint" at the start of e if its value cannot be stored
 * where a `to` is expected.  msg is built only when it is needed. */
void sema_expect_assignable(Node *e, Type *to, const char *fmt, ...)
{
	if (sema_assignable(to, e->ty)) {
		sema_check_constant_fits(e, to, true);
		sema_narrow(e, to);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	sema_fail(sema_start_of(e), "%s%s", msg, mismatch_hint(to, e));
}

/* "'x' of type 'int'", "an element of type 'float'": the target of a store. */
static const char *target_desc(Node *lhs)
{
	if (lhs->kind == N_NAME)
		return format("'%s' of type '%s'", sema_S(lhs->name), ty_str(lhs->ty));
	if (lhs->kind == N_FIELD)
		return format("field '%s' of type '%s'", sema_S(lhs->name), ty_str(lhs->ty));
	return format("an element of type '%s'", ty_str(lhs->ty));
}

bool sema_is_reduce_var(Node *loop, Sym *s)
{
	for (int i = 0; i < loop->li->reduce_syms.n; i++)
		if (loop->li->reduce_syms.v[i] == s)
			return true;
	return false;
}

/* Has the loop a reduce(min: ...) or reduce(max: ...)? */
bool sema_has_extremum(Node *loop)
{
	for (int i = 0; i < loop->li->reduce_ops.n; i++) {
		Node *r = loop->li->reduce_ops.v[i];
		if (!r->sym && r->name.len == 3 && (!strncmp(r->name.p, "min", 3) ||
		                                     !strncmp(r->name.p, "max", 3)))
			return true;
	}
	return false;
}

/* Is s a min or max variable that keeps others with it? */
bool sema_is_won(Node *loop, Sym *s)
{
	for (int i = 0; i < loop->li->won_syms.n; i++)
		if (loop->li->won_syms.v[i] == s)
			return true;
	return false;
}

/* The index of assignment a in loop's tv_sets, or -1. */
int sema_tv_of(Node *loop, Node *a)
{
	for (int i = 0; i < loop->li->tv_sets.n; i++)
		if (loop->li->tv_sets.v[i] == a)
			return i;
	return -1;
}

const char *sema_loopword(Node *loop)
{
	return loop->kind == N_ASYNC ? "async for" : "sync for";
}

/* "an async for", "a sync for": for messages. */
const char *sema_a_loop(Node *loop)
{
	return loop->kind == N_ASYNC ? "an async for" : "a sync for";
}

/* The reduction that would make `how` (an assignment, ++/-- or push to
 * the variable s) legal in a loop body, or NULL if there is no clear one. */
static const char *guess_reduction(Node *how, Sym *s)
{
	if (how->kind == N_INCDEC)
		return "+";
	if (how->kind != N_ASSIGN)
		return NULL;
	switch (how->op) {
	case TK_PLUS: case TK_MINUS: return "+";
	case TK_STAR: return "*";
	case TK_AND: return "&";
	case TK_OR: return "|";
	case TK_XOR: return "^";
	case TK_ASSIGN: break;
	default: return NULL;
	}
	Node *r = how->rhs, *x = NULL, *y = NULL;
	if (r->kind == N_CALL && r->args) {
		x = r->args;
		y = x->next;
	} else if (r->kind == N_BINARY) {
		x = r->lhs;
		y = r->rhs;
	}
	if (!(x && x->kind == N_NAME && x->sym == s) && !(y && y->kind == N_NAME && y->sym == s))
		return NULL;
	if (r->kind == N_CALL && (r->builtin == B_MAX || r->builtin == B_MIN))
		return r->builtin == B_MAX ? "max" : "min";
	if (r->kind == N_BINARY && (r->op == TK_PLUS || r->op == TK_MINUS))
		return "+";
	if (r->kind == N_BINARY && r->op == TK_STAR)
		return "*";
	if (r->kind == N_BINARY && (r->op == TK_OROR || r->op == TK_ANDAND))
		return r->op == TK_OROR ? "||" : "&&";
	return NULL;
}

/* Check that e denotes storage the current context may write; `how` is
 * the assignment, ++/-- or call that writes it. */
static void check_lvalue(Node *e, Node *how, const char *verb)
{
	Node *b = e;
	while (b->kind == N_INDEX || b->kind == N_FIELD) {
		if (b->kind == N_INDEX && b->lhs->ty->kind == TY_DMMAP)
			sema_fail(b, "a dmultimap element cannot be %s; use insert(m, key, value)", verb);
		if (b->kind == N_INDEX && b->lhs->ty->kind == TY_STRING)
			sema_fail(b, "strings are immutable");
		b = b->lhs;
	}
	if (b->kind != N_NAME)
		sema_fail(e, "expression cannot be %s", verb);
	Sym *s = b->sym;
	s->modified = true;
	if (!s->wrote_at)
		s->wrote_at = e;
	if (s->vclass == V_CONST)
		sema_fail_note(e, format("cannot assign to const '%s'", s->name), s->decl, "declared here");
	if (s->vclass == V_PARAM)
		sema_fail_note(e, format("cannot assign to param '%s': params are set on the command line",
		                         s->name), s->decl,
		               format("declared here; to change the value, copy it into a variable: %s x = %s;",
		                      ty_str(s->ty), s->name));
	if (s->readonly && s->keys_of)
		sema_fail_note(e, format("the key '%s' of a loop over a map cannot be %s", s->name, verb), s->decl,
		               format("each iteration has its own key; to change a copy: %s k2 = %s;",
		                      ty_str(s->ty), s->name));
	if (s->readonly)
		sema_fail_note(e, format("'%s' is read-only here", s->name), s->decl,
		               s->vclass == V_ARG ? "parameters holding lists are borrowed; copy into a local to change it"
		               : s->ty->kind == TY_LIST ? "the mini-batch of a sync for shows the DDS's elements; write the DDS instead"
		                                  : "the element variable of a sync for is a copy of the DDS element; write the DDS instead");
	Node *loop = sema_ctx.loop;
	if (loop && loop->kind == N_ASYNC && loop->init && loop->init->sym == s)
		sema_fail_note(e, format("the loop variable '%s' of an async for cannot be %s", s->name, verb),
		               loop->init, format("each iteration has its own '%s', and the runtime chooses the "
		                                  "worker that runs it; to step by k, loop over the number of "
		                                  "steps and use k * %s", s->name, s->name));
	if (loop && !ty_is_dds(s->ty) && s->loop != loop && !s->in_func && !sema_is_reduce_var(loop, s)) {
		/* at = i beside best = d may be kept with best: sema_loop.c
		 * decides once it has seen the body. */
		if (how && how->kind == N_ASSIGN && how->op == TK_ASSIGN && e == how->lhs &&
		    e->kind == N_NAME && sema_has_extremum(loop)) {
			vec_push(&loop->li->pending, how);
			return;
		}
		sema_driver_assign_fail(e, how, s, loop);
	}
}

/* A reduce clause's operator as written: +, max, or a function's name. */
static const char *clause_op(Node *r)
{
	return r->op ? ast_opname(r->op) : sema_S(r->name);
}

typedef struct Others {
	Node *loop;
	const char *op;
	Vec names;              /* char *: the driver variables, the first one's first */
} Others;

static int declares_name(Node *n, void *name)
{
	return n->kind == N_VAR && !strcmp(sema_S(n->name), name);
}

/* x += ..., x++ of another driver variable that no reduce clause names. */
static int other_adds(Node *n, void *arg)
{
	Others *o = arg;
	if (!((n->kind == N_ASSIGN && n->op != TK_ASSIGN) || n->kind == N_INCDEC) ||
	    n->lhs->kind != N_NAME)
		return 0;
	const char *name = sema_S(n->lhs->name);
	Sym *x = sema_lookup(name);
	if (!x || x->kind != SYM_VAR || ty_is_dds(x->ty) || x->in_func || x->loop == o->loop ||
	    x->vclass == V_CONST || x->vclass == V_PARAM || sema_is_reduce_var(o->loop, x) ||
	    emit_any_node(o->loop->body, declares_name, (void *)name))
		return 0;
	const char *op = guess_reduction(n, x);
	if (!op || strcmp(op, o->op))
		return 0;
	for (int i = 0; i < o->names.n; i++)
		if (!strcmp(o->names.v[i], name))
			return 0;
	vec_push(&o->names, (void *)name);
	return 0;
}

void sema_driver_assign_fail(Node *e, Node *how, Sym *s, Node *loop)
{
	/* bi[k] = i beside bc[k] = c[i] under reduce(min: bc). */
	if (e->kind != N_NAME && sema_has_extremum(loop))
		sema_fail_note(e, format("%s body cannot assign driver variable '%s'", sema_a_loop(loop),
		                         s->name), loop,
		               "a variable kept with a min or max is a whole number or bool set beside it, "
		               "as in if (e < best) { best = e; at = i; }; for an index per element, reduce "
		               "an array of structs of value and index by a function of the program "
		               "(sap(7), reduce)");
	/* No reduce combines lists in index order: a dvector the loop
	 * fills at its own index does. */
	if (s->ty->kind == TY_LIST || s->ty->kind == TY_STRING)
		sema_fail_note(e, format("%s body cannot change driver variable '%s'", sema_a_loop(loop),
		                         s->name), loop,
		               format("to collect a value per iteration, write it to a dvector at the "
		                      "loop's index (dvector<int> picked_at(n); picked_at[i] = 1) and build "
		                      "'%s' from it after the loop, in index order; for a temporary, "
		                      "declare it inside the loop body", s->name));
	const char *op = guess_reduction(how, s);
	/* The others the body adds to as well, in one go rather than one
	 * compilation each; into the clause of that op if there is one. */
	Others o = {.loop = loop, .op = op, .names = {0}};
	vec_push(&o.names, (void *)s->name);
	if (op)
		emit_any_node(loop->body, other_adds, &o);
	Buf all = {0}, said = {0};
	for (int i = 0; i < o.names.n; i++) {
		buf_printf(&all, "%s%s", i ? ", " : "", (char *)o.names.v[i]);
		buf_printf(&said, "%s'%s'", !i ? "" : i + 1 < o.names.n ? ", " : " and ",
		           (char *)o.names.v[i]);
	}
	Node *clause = NULL;
	for (Node *r = loop->args; op && r && !clause; r = r->next)
		if (r->kind == N_REDUCE && !strcmp(clause_op(r), op))
			clause = r;
	if (clause) {
		Buf had = {0};
		for (Node *v = clause->lhs; v; v = v->next)
			buf_printf(&had, "%s, ", sema_S(v->name));
		sema_fail_note(e, format("%s body cannot assign driver variable '%s'", sema_a_loop(loop),
		                         s->name), loop,
		               format("to combine %s across iterations, add %s to the loop's clause: "
		                      "reduce(%s: %s%s); for a temporary, declare it inside the loop body",
		                      said.s, o.names.n > 1 ? "them" : "it", op, had.s, all.s));
	}
	sema_fail_note(e, format("%s body cannot assign driver variable '%s'", sema_a_loop(loop), s->name),
	               loop, format("to combine %s across iterations, add reduce(%s: %s) to this loop; "
	                            "for a temporary, declare it inside the loop body", said.s,
	                            op ? op : "op", all.s));
}

void sema_check_args_count(Node *call, int want, const char *name)
{
	int n = 0;
	for (Node *a = call->args; a; a = a->next)
		n++;
	if (n != want)
		sema_fail(call, "%s takes %d argument%s, but %d %s given", name, want, want == 1 ? "" : "s",
		          n, n == 1 ? "was" : "were");
}

/* gemv(y, W, x): y = W x; ger(W, a, y, x): W += a y x^T; W a dvector of
 * rows of n floats or doubles, y and x arrays of them.  They use every
 * row of W, which only a sync for (whose vectors are whole on every
 * rank) can give them. */
static void check_blas(Node *e, const char *name)
{
	bool gemv = e->builtin == B_GEMV;
	sema_check_args_count(e, gemv ? 3 : 4, name);
	Node *w = gemv ? e->args->next : e->args;
	Node *y = gemv ? e->args : e->args->next->next;
	Node *x = gemv ? e->args->next->next : e->args->next->next->next;
	if (!sema_ctx.loop || sema_ctx.loop->kind != N_SYNC)
		sema_fail(e, "%s uses every row of a dvector, which only a sync for body may do", name);
	Type *wt = w->ty;
	if (w->kind != N_NAME || wt->kind != TY_DVEC || wt->elem->kind != TY_ARRAY ||
	    (wt->elem->elem->kind != TY_FLOAT && wt->elem->elem->kind != TY_DOUBLE))
		sema_fail(w, "%s needs a dvector of float or double arrays (its rows), not '%s'", name,
		          ty_str(wt));
	Type *sc = wt->elem->elem;
	if (y->ty->kind != TY_ARRAY || y->ty->elem != sc)
		sema_fail(y, "%s needs y to be an array of %s, as %s's rows are, not '%s'", name, ty_str(sc),
		          sema_S(w->name), ty_str(y->ty));
	if (x->ty != wt->elem)
		sema_fail(x, "%s needs x to be a row of %s, '%s', not '%s'", name, sema_S(w->name),
		          ty_str(wt->elem), ty_str(x->ty));
	if (gemv)
		check_lvalue(y, e, "written");
	else if (!ty_is_num(e->args->next->ty))
		sema_fail(e->args->next, "ger needs a number for a, not '%s'", ty_str(e->args->next->ty));
}

/* A matrix for gemm is rows of floats or doubles: a dvector of them (its
 * every row, so only in a sync for body), a list or an array.  Their
 * scalar type, or NULL. */
static Type *matrix_scalar(Type *t)
{
	if (t->kind != TY_DVEC && t->kind != TY_LIST && t->kind != TY_ARRAY)
		return NULL;
	Type *row = t->elem;
	if (row->kind != TY_ARRAY || (row->elem->kind != TY_FLOAT && row->elem->kind != TY_DOUBLE))
		return NULL;
	return row->elem;
}

static Sym *base_sym(Node *e)
{
	while (e->kind == N_FIELD || e->kind == N_INDEX)
		e = e->lhs;
	return e->kind == N_NAME ? e->sym : NULL;
}

/* gemm(Z, X, W): Z = X W^T, every row of Z the product of W and that row
 * of X (a list Z gets as many rows as X); gemm(W, a, G, X): W += a G^T X,
 * the sum over rows i of a G[i] X[i]^T.  Row lengths are checked here,
 * numbers of rows at run time unless both are arrays. */
static void check_gemm(Node *e)
{
	int n = 0;
	for (Node *a = e->args; a; a = a->next)
		n++;
	if (n != 3 && n != 4)
		sema_fail(e, "gemm takes 3 arguments, gemm(Z, X, W) for Z = X W^T, or 4, gemm(W, a, G, X) for "
		          "W += a G^T X; %d %s given", n, n == 1 ? "was" : "were");
	bool upd = n == 4;
	Node *m[3] = { e->args, upd ? e->args->next->next : e->args->next,
	               upd ? e->args->next->next->next : e->args->next->next };
	const char *mname[2][3] = { { "Z", "X", "W" }, { "W", "G", "X" } };
	Type *sc = NULL;
	for (int i = 0; i < 3; i++) {
		Type *t = m[i]->ty, *s = matrix_scalar(t);
		const char *nm = mname[upd][i];
		if (!s)
			sema_fail(m[i], "gemm needs a matrix for %s: a dvector, list or array of float or double "
			          "arrays (its rows), not '%s'", nm, ty_str(t));
		if (sc && s != sc)
			sema_fail(m[i], "gemm needs %s to hold %s, as %s does, not '%s'", nm, ty_str(sc),
			          mname[upd][0], ty_str(s));
		sc = s;
		if (t->kind == TY_DVEC && m[i]->kind != N_NAME)
			sema_fail(m[i], "gemm needs a dvector by its name");
		if (t->kind == TY_DVEC && (!sema_ctx.loop || sema_ctx.loop->kind != N_SYNC))
			sema_fail(m[i], "gemm uses every row of %s, which only a sync for body may do; "
			          "elsewhere, copy the rows into a list", sema_S(m[i]->name));
		if (m[i]->kind != N_NAME && m[i]->kind != N_FIELD && m[i]->kind != N_INDEX)
			sema_fail(m[i], "gemm needs a variable for %s (or a field or element of one), not a "
			          "computed value", nm);
		if (i > 0 && base_sym(m[i]) == base_sym(m[0]))
			sema_fail(m[i], "gemm writes %s and reads %s from the same variable, '%s'; read a copy",
			          mname[upd][0], nm, base_sym(m[0])->name);
	}
	int64_t cols[3], rows[3];
	for (int i = 0; i < 3; i++) {
		cols[i] = m[i]->ty->elem->len;
		rows[i] = m[i]->ty->kind == TY_ARRAY ? m[i]->ty->len : -1;
	}
	/* Z = X W^T: X and W have rows of the same length, Z one per row of
	 * W; W += a G^T X: W and X the same length, W one row per G column. */
	if (!upd && cols[1] != cols[2])
		sema_fail(m[1], "gemm(Z, X, W) needs rows of X as long as W's: '%s' against '%s'",
		          ty_str(m[1]->ty->elem), ty_str(m[2]->ty->elem));
	if (upd && cols[0] != cols[2])
		sema_fail(m[2], "gemm(W, a, G, X) needs rows of X as long as W's: '%s' against '%s'",
		          ty_str(m[2]->ty->elem), ty_str(m[0]->ty->elem));
	if (!upd && rows[2] >= 0 && cols[0] != rows[2])
		sema_fail(m[0], "gemm(Z, X, W) needs a row of Z per row of W: '%s' rows against %lld",
		          ty_str(m[0]->ty->elem), (long long)rows[2]);
	if (upd && rows[0] >= 0 && cols[1] != rows[0])
		sema_fail(m[1], "gemm(W, a, G, X) needs rows of G as long as W has rows: '%s' against %lld",
		          ty_str(m[1]->ty->elem), (long long)rows[0]);
	if (!upd && rows[0] >= 0 && rows[1] >= 0 && rows[0] != rows[1])
		sema_fail(m[0], "gemm(Z, X, W) needs a row of Z per row of X: %lld against %lld",
		          (long long)rows[0], (long long)rows[1]);
	if (upd && rows[1] >= 0 && rows[2] >= 0 && rows[1] != rows[2])
		sema_fail(m[2], "gemm(W, a, G, X) needs as many rows in X as in G: %lld against %lld",
		          (long long)rows[2], (long long)rows[1]);
	if (upd && !ty_is_num(e->args->next->ty))
		sema_fail(e->args->next, "gemm needs a number for a, not '%s'", ty_str(e->args->next->ty));
	check_lvalue(m[0], e, "written");
}

Node *sema_arg(Node *call, int i)
{
	Node *a = call->args;
	while (i-- > 0)
		a = a->next;
	return a;
}

static void no_io_in_loop(Node *call, const char *what)
{
	if (sema_ctx.loop)
		sema_fail_note(call, format("%s is not allowed in %s body", what, sema_a_loop(sema_ctx.loop)), sema_ctx.loop,
		               "iterations run on many workers in an order the runtime chooses; "
		               "collect values with reduce(...) and use them after the loop");
}

static void check_map_key(Node *m, Node *k)
{
	if (!sema_assignable(m->ty->key, k->ty) || (ty_is_int(m->ty->key) != ty_is_int(k->ty)))
		sema_fail(sema_start_of(k), "the key of a '%s' must be '%s', not '%s'", ty_str(m->ty), ty_str(m->ty->key),
		          ty_str(k->ty));
	/* A long key of an int map converts as a long stored in an int does:
	 * in range, or an error (it kept its low 32 bits, 2^32 + 7 being 7). */
	sema_check_constant_fits(k, m->ty->key, true);
	sema_narrow(k, m->ty->key);
}

bool sema_is_map(Type *t) { return t->kind == TY_DMAP || t->kind == TY_DMMAP; }

/* Where character i of the decoded string literal s is in the source. */
static Node *str_pos(Node *s, int64_t i)
{
	const char *p = s->file->text + s->off + 1;
	for (int64_t k = 0; k < i && *p != '"'; k++)
		p += *p == '\\' ? 2 : 1;
	Node *n = xcalloc(1, sizeof *n);
	n->file = s->file;
	n->off = (int)(p - s->file->text);
	return n;
}

/* n bytes of a string as its literal would write them, for a message:
 * a newline or another control byte taken as is would break the
 * message's line, or hide in it. */
static const char *shown(const char *s, int n)
{
	Buf b = {0};
	buf_puts(&b, "");
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			buf_puts(&b, "\\n");
		else if (c == '\t')
			buf_puts(&b, "\\t");
		else if (c == '\r')
			buf_puts(&b, "\\r");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(&b, "\\x%02x", c);
		else
			buf_putc(&b, (char)c);
	}
	return b.s;
}

/* The conversion that prints a value of type t, or NULL. */
static const char *conversion_for(Type *t)
{
	if (ty_is_int(t) || t->kind == TY_BOOL)
		return "%d";
	if (ty_is_float(t))
		return "%f";
	if (t->kind == TY_STRING)
		return "%s";
	return NULL;
}

enum { PRINT_WIDTH_MAX = 1000000 };

/* The flags fs[flags .. end) of the conversion at fs[conv] (the whole
 * '%...' at start, len long): one that C ignores or leaves undefined
 * there is an error, as gcc's -Wformat makes it of the C. */
static void check_print_flags(Node *f, int64_t flags, int64_t end, int64_t conv, int64_t start,
                              int len)
{
	const char *fs = f->sval;
	char c = fs[conv];
	bool has_prec = memchr(fs + end, '.', (size_t)(conv - end)) != NULL;
	bool minus = memchr(fs + flags, '-', (size_t)(end - flags)) != NULL;
	bool plus = memchr(fs + flags, '+', (size_t)(end - flags)) != NULL;
	for (int64_t k = flags; k < end; k++) {
		char g = fs[k];
		const char *why = NULL;
		if (g == '#' && !strchr("oxXeEfFgGaA", c))
			why = "has no meaning for";
		else if ((g == '+' || g == ' ') && !strchr("dieEfFgGaA", c))
			why = "has no meaning for";
		else if (g == '0' && strchr("cs", c))
			why = "has no meaning for";
		else if (g == '0' && minus)
			why = "is ignored with '-' for";
		else if (g == '0' && has_prec && strchr("diuxXo", c))
			why = "is ignored with a precision for";
		else if (g == ' ' && plus)
			why = "is ignored with '+' for";
		if (why)
			sema_fail(str_pos(f, k), "the '%c' flag in '%.*s' %s %%%c; drop it", g, len, fs + start,
			          why, c);
	}
	if (c == 'c' && has_prec)
		sema_fail(str_pos(f, start), "a precision in '%.*s' has no meaning for %%c; drop it", len,
		          fs + start);
}

static void check_print(Node *call, const char *name)
{
	Node *f = call->args;
	if (!f)
		sema_fail(call, "%s needs a format string", name);
	if (f->kind != N_STR)
		sema_fail(f, "the format of %s must be a string literal; to print a string value, write "
		          "%s(\"%%s\", value)", name, name);
	Node *a = f->next;
	int argno = 2;
	const char *fs = f->sval;
	for (int64_t i = 0; i < f->ival; i++) {
		if (fs[i] != '%')
			continue;
		int64_t start = i++;
		if (fs[i] == '%')
			continue;
		int64_t flags = i;
		while (i < f->ival && strchr("-+ #0", fs[i])) i++;
		int64_t flags_end = i;
		/* C's printf fails past INT_MAX characters (EOVERFLOW), and
		 * dropped the width: no format needs a megabyte of padding. */
		for (int part = 0; part < 2; part++) {
			if (part && fs[i] != '.')
				break;
			if (part)
				i++;
			int64_t at = i, w = 0;
			while (fs[i] >= '0' && fs[i] <= '9') {
				if (w <= PRINT_WIDTH_MAX)
					w = w * 10 + (fs[i] - '0');
				i++;
			}
			if (w > PRINT_WIDTH_MAX)
				sema_fail(str_pos(f, at), "the %s '%.*s' in a print format is too large (at most %d)",
				          part ? "precision" : "width", (int)(i - at), fs + at, PRINT_WIDTH_MAX);
		}
		if (fs[i] == '*')
			sema_fail(str_pos(f, i), "'*' widths are not supported in print formats");
		/* C's length modifiers (%ld, %lf, %zu), as code brought over
		 * from C has them: taken and ignored, an integer prints in full
		 * whatever its type (emit_print). */
		int64_t mods = i;
		while (i < f->ival && strchr("hlLqjzt", fs[i]))
			i++;
		char c = fs[i];
		int len = (int)(i - start + (c != 0));
		/* Shown up to the modifiers when there are some: '%q' alone is
		 * no conversion with a modifier. */
		if (!c || !strchr("diuxXocfeEgGaAs", c))
			sema_fail(str_pos(f, start), "unknown conversion '%s' in print format",
			          shown(fs + start, i > mods ? (int)(i - start) : len));
		check_print_flags(f, flags, flags_end, i, start, len);
		if (!a)
			sema_fail(str_pos(f, start), "too few arguments for the format: '%.*s' has no argument", len,
			          fs + start);
		Type *t = a->ty;
		bool ok = strchr("diuxXoc", c) ? ty_is_int(t) || t->kind == TY_BOOL
		        : c == 's' ? t->kind == TY_STRING : ty_is_num(t);
		const char *use = conversion_for(t);
		if (!ok)
			sema_fail(sema_start_of(a), "'%.*s' in the format expects %s, but argument %d has type '%s'%s", len,
			          fs + start, strchr("diuxXoc", c) ? "an integer" : c == 's' ? "a string" : "a number",
			          argno, ty_str(t), use ? format("; use '%s' for %s '%s'", use,
			          strchr("aeiou", ty_str(t)[0]) ? "an" : "a", ty_str(t)) : "");
		a = a->next;
		argno++;
	}
	if (a) {
		int nconv = argno - 2, nargs = nconv;
		for (Node *b = a; b; b = b->next)
			nargs++;
		sema_fail(sema_start_of(a), "too many arguments for the format: it has %d conversion%s, but %d value%s "
		          "follow%s it", nconv, nconv == 1 ? "" : "s", nargs, nargs == 1 ? "" : "s", nargs == 1 ? "s" : "");
	}
}

static void uses_rng(void)
{
	if (sema_ctx.loop)
		sema_ctx.loop->li->uses_rng = true;
	if (sema_ctx.func)
		sema_ctx.func->sym->uses_rng = true;
}

static const struct { const char *name; Builtin b; } builtins[] = {
	{"len", B_LEN}, {"push", B_PUSH}, {"insert", B_INSERT}, {"contains", B_CONTAINS},
	{"count", B_COUNT}, {"erase", B_ERASE}, {"get", B_GET}, {"min", B_MIN}, {"max", B_MAX},
	{"abs", B_ABS}, {"dot", B_DOT}, {"rand", B_RAND}, {"rand_int", B_RAND_INT},
	{"rand_normal", B_RAND_NORMAL}, {"print", B_PRINT}, {"printf", B_PRINT}, {"load", B_LOAD}, {"save", B_SAVE},
	{"uniform", B_UNIFORM}, {"normal", B_NORMAL}, {"keys", B_KEYS}, {"join", B_JOIN},
	{"tokens", B_TOKENS}, {"vocab", B_VOCAB}, {"unigram", B_UNIGRAM},
	{"fast_sigmoid", B_FAST_SIGMOID}, {"softmax", B_SOFTMAX}, {"wtime", B_WTIME},
	{"ranks", B_RANKS}, {"threads", B_THREADS}, {"gemv", B_GEMV}, {"ger", B_GER},
	{"gemm", B_GEMM}, {"split", B_SPLIT}, {"fields", B_FIELDS}, {"to_int", B_TO_INT},
	{"to_long", B_TO_LONG}, {"to_float", B_TO_FLOAT}, {"to_double", B_TO_DOUBLE},
};

Builtin sema_find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (strcmp(builtins[i].name, name) == 0)
			return builtins[i].b;
	return B_NONE;
}

/* A function or built-in whose name is close to `name`. */
static const char *suggest_func(const char *name)
{
	const char *best = NULL;
	int bd = 3;
	for (int i = 0; i < sema_funcs.n; i++)
		sema_consider(name, ((Sym *)sema_funcs.v[i])->name, &best, &bd);
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		sema_consider(name, builtins[i].name, &best, &bd);
	return best;
}


/* What SAP has in place of C's string functions, which a port from C
 * calls first: NULL for other names. */
static const char *c_string_hint(const char *name)
{
	static const struct { const char *names, *hint; } hints[] = {
		{ " strlen strnlen ", "len(s) is a string's length in bytes" },
		{ " strcmp strncmp strcoll strcasecmp ",
		  "strings compare with == != < > <= >=, byte by byte" },
		{ " strcpy strncpy strcat strncat strdup strndup sprintf snprintf ",
		  "strings are values: = copies one, + joins two, and string(x) formats a number" },
		{ " atoi atol atoll atof strtol strtoll strtoul strtod strtof ",
		  "to_int(), to_long(), to_float() and to_double() read a number from a string" },
		{ " strtok strtok_r strsep strchr strrchr strstr strspn strcspn ",
		  "tokens(), split() and fields() cut a string into words (sap(7), Text)" },
		{ " tolower toupper isalpha isdigit isalnum isspace ispunct isupper islower ",
		  "SAP has no characters, and a string cannot be indexed: tokens() gives a line's "
		  "words with ASCII letters lowercased; for a string's bytes, declare a C function "
		  "of your own (sap(7), Extern functions)" },
		{ " append push_back push_front add ", "push(l, v) appends v to the list l" },
		{ " pop pop_back pop_front clear resize remove shrink ",
		  "a list only grows, by push(l, v); to empty one, assign it an empty list, as in "
		  "l = list<int>()" },
		{ " size length ", "len(x) is the number of elements of a list, an array or a DDS, "
		  "or the bytes of a string" },
		{ " fopen fclose fprintf fscanf fgets fputs fread fwrite getline scanf puts ",
		  "a data file is read whole by load() into a dvector, one element a line, and "
		  "written by save(); print() writes to the standard output (sap(7), LOADING AND "
		  "SAVING)" },
		{ " memset memcpy memmove bzero ",
		  "arrays, structs and lists are values: = copies one, and a declared one starts "
		  "zeroed (or empty)" },
		{ " assert exit abort _exit quick_exit ",
		  "SAP has no way to stop a program early; the runtime checks subscripts, map keys, "
		  "conversions and divisions and stops the program at the line of the first that "
		  "fails" },
	};
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
		for (const char *p = hints[i].names; (p = strstr(p, name)); p++)
			if (p[-1] == ' ' && p[n] == ' ')
				return hints[i].hint;
	return NULL;
}

static Type *check_builtin(Node *e, Builtin b, const char *name)
{
	e->builtin = b;
	if (b == B_LOAD || b == B_UNIFORM || b == B_NORMAL || b == B_KEYS || b == B_JOIN ||
	    b == B_VOCAB || b == B_UNIGRAM)
		sema_fail(e, "%s(...) can only be the initialiser of a dvector declaration, as in: "
		          "dvector<T> D%s = %s(...);%s", name, b == B_UNIFORM || b == B_NORMAL ? "(n)" : "",
		          name, b == B_KEYS || b == B_JOIN ? " (or what async for (K k : ...) runs over)" : "");
	for (Node *a = e->args; a; a = a->next)
		sema_check_expr(a);
	switch (b) {
	case B_LEN: {
		sema_check_args_count(e, 1, "len");
		Type *t = e->args->ty;
		if (t->kind != TY_DVEC && t->kind != TY_LIST && !sema_is_map(t) && t->kind != TY_STRING &&
		    t->kind != TY_ARRAY)
			sema_fail(e->args, "len needs a dvector, dmap, list, array or string, not '%s'", ty_str(t));
		return ty_long;
	}
	case B_PUSH: {
		sema_check_args_count(e, 2, "push");
		Node *l = sema_arg(e, 0), *v = sema_arg(e, 1);
		if (l->ty->kind != TY_LIST)
			sema_fail(l, "push needs a list, not '%s'", ty_str(l->ty));
		check_lvalue(l, e, "modified");
		sema_expect_assignable(v, l->ty->elem, "cannot push a value of type '%s' onto a '%s'",
		                       ty_str(v->ty), ty_str(l->ty));
		return ty_void;
	}
	case B_INSERT: {
		sema_check_args_count(e, 3, "insert");
		Node *m = sema_arg(e, 0);
		if (!sema_is_map(m->ty))
			sema_fail(m, "insert needs a dmap or dmultimap, not '%s'", ty_str(m->ty));
		check_map_key(m, sema_arg(e, 1));
		sema_expect_assignable(sema_arg(e, 2), m->ty->elem, "cannot insert a value of type '%s' into a '%s'",
		                       ty_str(sema_arg(e, 2)->ty), ty_str(m->ty));
		return ty_void;
	}
	case B_CONTAINS: case B_COUNT: case B_ERASE: {
		sema_check_args_count(e, 2, name);
		Node *m = sema_arg(e, 0);
		if (!sema_is_map(m->ty))
			sema_fail(m, "%s needs a dmap or dmultimap, not '%s'", name, ty_str(m->ty));
		check_map_key(m, sema_arg(e, 1));
		return b == B_CONTAINS ? ty_bool : ty_long;
	}
	case B_GET: {
		/* A user reaching for get on a multimap, or for a two-argument
		 * lookup, is told what reads a key. */
		Node *m = e->args;
		if (m && m->ty->kind == TY_DMMAP && m->kind == N_NAME)
			sema_fail(e, "get is for a dmap; the values of a key k of dmultimap '%.*s' are %.*s[k], "
			          "a list", m->name.len, m->name.p, m->name.len, m->name.p);
		if (m && m->ty->kind == TY_DMAP && m->kind == N_NAME && m->next && !m->next->next)
			sema_fail(e, "get takes 3 arguments, the map, the key and the value for a missing key, "
			          "but 2 were given (%.*s[k] reads a key that must be there)", m->name.len,
			          m->name.p);
		sema_check_args_count(e, 3, "get");
		if (m->ty->kind != TY_DMAP)
			sema_fail(m, "get needs a dmap, not '%s'", ty_str(m->ty));
		check_map_key(m, sema_arg(e, 1));
		sema_expect_assignable(sema_arg(e, 2), m->ty->elem, "the default of get must be a '%s' (a value of "
		                       "the map), not '%s'", ty_str(m->ty->elem), ty_str(sema_arg(e, 2)->ty));
		return m->ty->elem;
	}
	case B_MIN: case B_MAX: {
		sema_check_args_count(e, 2, name);
		Type *a = sema_arg(e, 0)->ty, *c = sema_arg(e, 1)->ty;
		if (!ty_is_num(a) || !ty_is_num(c))
			sema_fail(e, "%s needs two numbers, not '%s' and '%s'", name, ty_str(a), ty_str(c));
		return ty_arith(a, c);
	}
	case B_ABS: {
		sema_check_args_count(e, 1, "abs");
		if (!ty_is_num(e->args->ty))
			sema_fail(e->args, "abs needs a number, not '%s'", ty_str(e->args->ty));
		return e->args->ty;
	}
	case B_DOT: {
		sema_check_args_count(e, 2, "dot");
		Type *a = sema_arg(e, 0)->ty, *c = sema_arg(e, 1)->ty;
		if (!ty_is_numarray(a) || !ty_is_numarray(c) || a != c)
			sema_fail(e, "dot needs two numeric arrays of the same type, not '%s' and '%s'",
			          ty_str(a), ty_str(c));
		return a->elem;
	}
	case B_TOKENS:
		sema_check_args_count(e, 1, "tokens");
		if (e->args->ty->kind != TY_STRING)
			sema_fail(e->args, "tokens needs a string, not '%s'", ty_str(e->args->ty));
		return ty_list(ty_string);
	case B_FIELDS: case B_TO_INT: case B_TO_LONG: case B_TO_FLOAT: case B_TO_DOUBLE:
		sema_check_args_count(e, 1, name);
		if (e->args->ty->kind != TY_STRING)
			sema_fail(e->args, "%s needs a string, not '%s'", name, ty_str(e->args->ty));
		return b == B_FIELDS ? ty_list(ty_string) : b == B_TO_INT ? ty_int : b == B_TO_LONG ?
		       ty_long : b == B_TO_FLOAT ? ty_float : ty_double;
	case B_SPLIT:
		sema_check_args_count(e, 2, "split");
		for (Node *a = e->args; a; a = a->next)
			if (a->ty->kind != TY_STRING)
				sema_fail(a, "split needs two strings, the text and the separator, not '%s'",
				          ty_str(a->ty));
		if (sema_arg(e, 1)->kind == N_STR && sema_arg(e, 1)->ival == 0)
			sema_fail(sema_arg(e, 1), "the separator of split cannot be the empty string");
		return ty_list(ty_string);
	case B_FAST_SIGMOID:
		sema_check_args_count(e, 1, "fast_sigmoid");
		if (!ty_is_num(e->args->ty))
			sema_fail(e->args, "fast_sigmoid needs a number, not '%s'", ty_str(e->args->ty));
		return ty_float;
	case B_SOFTMAX: {
		sema_check_args_count(e, 1, "softmax");
		Type *a = e->args->ty;
		if (a->kind != TY_ARRAY || (a->elem->kind != TY_FLOAT && a->elem->kind != TY_DOUBLE))
			sema_fail(e->args, "softmax needs an array of float or double, not '%s'", ty_str(a));
		return a;
	}
	case B_GEMV: case B_GER:
		check_blas(e, name);
		return ty_void;
	case B_GEMM:
		check_gemm(e);
		return ty_void;
	case B_WTIME:
		sema_check_args_count(e, 0, "wtime");
		if (sema_ctx.func)
			sema_ctx.func->sym->uses_clock = true;
		return ty_double;
	case B_RANKS: case B_THREADS:
		sema_check_args_count(e, 0, name);
		return ty_int;
	case B_RAND: case B_RAND_NORMAL:
		sema_check_args_count(e, 0, name);
		uses_rng();
		return ty_double;
	case B_RAND_INT:
		sema_check_args_count(e, 1, "rand_int");
		uses_rng();
		if (!ty_is_int(e->args->ty))
			sema_fail(e->args, "rand_int needs an integer bound, not '%s'", ty_str(e->args->ty));
		return ty_long;
	case B_PRINT:
		no_io_in_loop(e, name);
		if (sema_ctx.func && !sema_ctx.func->sym->does_io) {
			sema_ctx.func->sym->does_io = true;
			sema_ctx.func->sym->io_site = e;
		}
		check_print(e, name);
		return ty_void;
	case B_SAVE: {
		no_io_in_loop(e, "save");
		if (sema_ctx.func)
			sema_fail(e, "save is only allowed in driver code");
		sema_check_args_count(e, 2, "save");
		if (sema_arg(e, 0)->ty->kind != TY_DVEC)
			sema_fail(sema_arg(e, 0), "save needs a dvector, not '%s'", ty_str(sema_arg(e, 0)->ty));
		if (sema_arg(e, 1)->ty->kind != TY_STRING)
			sema_fail(sema_arg(e, 1), "the file name must be a string, not '%s'", ty_str(sema_arg(e, 1)->ty));
		sema_check_text_shape(e, "save", sema_arg(e, 0)->ty);
		return ty_void;
	}
	default:
		return ty_void;
	}
}

static Type *check_call(Node *e)
{
	const char *name = sema_S(e->name);
	Builtin b = sema_find_builtin(name);
	if (b)
		return check_builtin(e, b, name);
	Sym *s = sema_lookup(name);
	/* A driver variable is no name in a function, so it hides nothing there. */
	if (s && s->kind != SYM_FUNC && sema_ctx.func && !s->in_func && s->vclass != V_CONST &&
	    s->vclass != V_PARAM)
		s = sema_lookup_func(name);
	if (!s) {
		/* Consts are checked before functions are declared. */
		for (Node *n = sema_const_decl ? sema_prog->items : NULL; n; n = n->next)
			if ((n->kind == N_FUNC || n->kind == N_EXTERN) && !strcmp(sema_S(n->name), name))
				sema_fail(e, "the value of const '%s' must be a constant expression, but it "
				          "calls function '%s'", sema_S(sema_const_decl->name), name);
		if (!strcmp(name, "to_string") || !strcmp(name, "str") || !strcmp(name, "itoa") ||
		    !strcmp(name, "tostring"))
			sema_fail(e, "call to undefined function '%s'; a number becomes a string by "
			          "string(...), as in \"doc\" + string(id)", name);
		if (!strcmp(name, "sizeof"))
			sema_fail(e, "SAP has no sizeof: len(x) is the number of elements of a list, an array, "
			          "a string or a DDS");
		if (!strcmp(name, "free") || !strcmp(name, "realloc") || !strcmp(name, "calloc"))
			sema_fail(e, "call to undefined function '%s': SAP has no pointers; lists and DDSs "
			          "grow and free themselves", name);
		if (!strcmp(name, "srand") || !strcmp(name, "srandom") || !strcmp(name, "srand48") ||
		    !strcmp(name, "seed"))
			sema_fail(e, "call to undefined function '%s': the random numbers are seeded by "
			          "the option --seed=N of the program (sap-run(1)), the same on every "
			          "layout; rand() and rand_int() need no seeding", name);
		const char *cs = c_string_hint(name);
		if (cs)
			sema_fail(e, "call to undefined function '%s': %s", name, cs);
		const char *sg = suggest_func(name);
		if (sg)
			sema_fail(e, "call to undefined function '%s'; did you mean '%s'?", name, sg);
		sema_fail(e, "call to undefined function '%s'", name);
	}
	if (s->kind != SYM_FUNC)
		sema_fail_note(e, format("'%s' is a variable of type '%s', not a function", name, ty_str(s->ty)),
		               s->decl, "declared here");
	e->sym = s;
	int want = 0, have = 0;
	for (Node *p = s->decl->args; p; p = p->next)
		want++;
	for (Node *a = e->args; a; a = a->next)
		have++;
	if (want != have)
		sema_fail_note(e, format("function '%s' takes %d argument%s, but %d %s given", name, want,
		                         want == 1 ? "" : "s", have, have == 1 ? "was" : "were"),
		               s->decl, "declared here");
	Node *p = s->decl->args;
	int argno = 1;
	for (Node *a = e->args; a; a = a->next, p = p->next, argno++) {
		sema_check_expr(a);
		if (!sema_assignable(p->sym->ty, a->ty) || (p->sym->ty->kind == TY_BOOL) != (a->ty->kind == TY_BOOL))
			sema_fail_note(a, format("argument %d of '%s' must be '%s', not '%s'", argno, name,
			                         ty_str(p->sym->ty), ty_str(a->ty)),
			               p, "parameter declared here");
		sema_check_constant_fits(a, p->sym->ty, true);
		sema_narrow(a, p->sym->ty);
	}
	if (sema_ctx.loop) {
		vec_push(&sema_loop_calls, e);
		vec_push(&sema_loop_of_call, sema_ctx.loop);
	}
	if (sema_ctx.func)
		vec_push(&sema_ctx.func->sym->calls, e);
	else
		s->used = true;
	return s->ty;
}

static bool is_lvalue_expr(Node *e)
{
	return e->kind == N_NAME || e->kind == N_INDEX || e->kind == N_FIELD;
}

static Type *binary_type(Node *e, int op, Type *a, Type *b)
{
	const char *bad = format("invalid operands to '%s': '%s' and '%s'", ast_opname(op), ty_str(a), ty_str(b));
	if (ty_is_dds(a) || ty_is_dds(b))
		sema_fail(e, "%s (a DDS is used through its elements: D[i])", bad);
	switch (op) {
	case TK_PLUS: case TK_MINUS: case TK_STAR: case TK_SLASH:
		if (ty_is_num(a) && ty_is_num(b))
			return ty_arith(a, b);
		if (op == TK_PLUS && a->kind == TY_STRING && b->kind == TY_STRING)
			return ty_string;
		/* (x > 0) + (y > 0): C counts with comparisons. */
		if ((a->kind == TY_BOOL && ty_is_scalar(b)) || (b->kind == TY_BOOL && ty_is_scalar(a)))
			sema_fail(e, "%s; a bool is not a number in SAP: write int(...) around the "
			          "comparison to count it as 0 or 1", bad);
		if (op == TK_PLUS && (a->kind == TY_STRING) != (b->kind == TY_STRING) &&
		    ty_is_scalar(a->kind == TY_STRING ? b : a))
			sema_fail(e, "%s; a string joins only a string: write string(...) around the %s",
			          bad, ty_is_num(a->kind == TY_STRING ? b : a) ? "number" : "bool");
		if (ty_is_numarray(a) && ty_is_numarray(b)) {
			if (a->len != b->len)
				sema_fail(e, "%s: arrays of different lengths", bad);
			if (op == TK_SLASH)
				sema_fail(e, "%s: arrays divide only by a scalar", bad);
			return ty_array(ty_arith(a->elem, b->elem), a->len);
		}
		if (ty_is_numarray(a) && ty_is_num(b) && (op == TK_STAR || op == TK_SLASH))
			return ty_array(ty_arith(a->elem, b), a->len);
		if (ty_is_num(a) && ty_is_numarray(b) && op == TK_STAR)
			return ty_array(ty_arith(a, b->elem), b->len);
		if ((ty_is_numarray(a) && ty_is_num(b)) || (ty_is_num(a) && ty_is_numarray(b)))
			sema_fail(e, "%s: an array and a scalar combine only with '*' (and '/' by the scalar)", bad);
		if ((a->kind == TY_ARRAY && a->elem->kind == TY_ARRAY) ||
		    (b->kind == TY_ARRAY && b->elem->kind == TY_ARRAY))
			sema_fail(e, "%s: only arrays of numbers combine as whole arrays; combine the rows "
			          "(a[k] + b[k]) in a loop", bad);
		sema_fail(e, "%s", bad);
	case TK_PERCENT: case TK_AND: case TK_OR: case TK_XOR: case TK_SHL: case TK_SHR:
		if ((ty_is_int(a) || a->kind == TY_BOOL) && (ty_is_int(b) || b->kind == TY_BOOL))
			return op == TK_SHL || op == TK_SHR ? ty_arith(a, ty_int) : ty_arith(a, b);
		if (a->kind == TY_ARRAY || b->kind == TY_ARRAY)
			sema_fail(e, "%s: arrays combine element by element only with '+', '-' and '*' "
			          "(and '*', '/' by a scalar); write a loop over the elements", bad);
		/* C's rand() % n: SAP's rand() is a double. */
		if (op == TK_PERCENT && e->lhs->kind == N_CALL && !strcmp(sema_S(e->lhs->name), "rand"))
			sema_fail(e, "%s: SAP's rand() draws a double in [0, 1), not C's integer; rand_int(n) "
			          "draws an integer from 0 to n - 1", bad);
		sema_fail(e, "%s (integers needed)", bad);
	case TK_LT: case TK_GT: case TK_LE: case TK_GE:
		if ((ty_is_num(a) && ty_is_num(b)) || (a->kind == TY_STRING && b->kind == TY_STRING))
			return ty_bool;
		sema_fail(e, "%s", bad);
	case TK_EQ: case TK_NE:
		if ((ty_is_num(a) && ty_is_num(b)) || (a->kind == TY_STRING && b->kind == TY_STRING) ||
		    (a->kind == TY_BOOL && b->kind == TY_BOOL))
			return ty_bool;
		sema_fail(e, "%s", bad);
	case TK_ANDAND: case TK_OROR:
		if (ty_is_scalar(a) && ty_is_scalar(b))
			return ty_bool;
		sema_fail(e, "%s", bad);
	}
	sema_fail(e, "%s", bad);
}

static Type *check_expr_inner(Node *e)
{
	switch (e->kind) {
	case N_INT:
		return e->op ? ty_long : ty_int;
	case N_FLOAT:
		return e->is_float32 ? ty_float : ty_double;
	case N_STR:
		return ty_string;
	case N_BOOL:
		return ty_bool;
	case N_NAME: {
		const char *name = sema_S(e->name);
		Sym *s = sema_lookup(name);
		if (!s) {
			if (sema_find_builtin(name))
				sema_fail(e, "'%s' is a built-in function; call it with %s(...)", name, name);
			/* Consts are checked before the rest of the program. */
			for (Node *n = sema_const_decl ? sema_prog->items : NULL; n; n = n->next)
				if (n->kind == N_VAR && n->vclass != V_CONST && !strcmp(sema_S(n->name), name))
					sema_fail(e, "the value of const '%s' must be a constant expression, but '%s' is "
					          "a %s", sema_S(sema_const_decl->name), name,
					          n->vclass == V_PARAM ? "param (set on the command line)" : "variable");
			/* char *s = ...; at a statement's start reads as a product. */
			static const char *ctypes[] = {"char", "unsigned", "signed", "short", "size_t",
			                               "uint32_t", "uint64_t", "int32_t", "int64_t"};
			for (size_t i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++)
				if (!strcmp(name, ctypes[i]))
					sema_fail(e, "unknown type '%s': SAP's text is a 'string' (string s = "
					          "\"x\";), its integers are int (32 bits) and long (64 bits), "
					          "and it has no pointers", name);
			if (!strcmp(name, "RAND_MAX"))
				sema_fail(e, "undefined name 'RAND_MAX': SAP's rand() draws a double in [0, 1) "
				          "already, and rand_int(n) an integer from 0 to n - 1");
			if (!strcmp(name, "NULL") || !strcmp(name, "nullptr"))
				sema_fail(e, "undefined name '%s': SAP has no pointers; a list, a string and "
				          "a map start empty, and len() says how many elements they hold", name);
			if (!strcmp(name, "FILE") || !strcmp(name, "stdin") || !strcmp(name, "stdout") ||
			    !strcmp(name, "stderr"))
				sema_fail(e, "undefined name '%s': %s", name, c_string_hint("fopen"));
			/* A function using a param declared below it: names are
			 * visible from their declaration on, unlike functions. */
			for (Node *n = sema_prog->items; n; n = n->next)
				if (n->kind == N_VAR && !strcmp(sema_S(n->name), name) && n->file == e->file &&
				    n->off > e->off)
					sema_fail_note(e, format("'%s' is used before its declaration", name), n,
					               format("declared here: a %s is visible from its declaration "
					                      "on (functions are not); move it above the use",
					                      n->vclass == V_PARAM ? "param" :
					                      n->vclass == V_CONST ? "const" : "variable"));
			const char *sg = sema_suggest(name);
			if (sg)
				sema_fail(e, "undefined name '%s'; did you mean '%s'?", name, sg);
			sema_fail(e, "undefined name '%s'", name);
		}
		if (s->kind == SYM_FUNC)
			sema_fail(e, "'%s' is a function; call it with %s(...)", name, name);
		s->used = true;
		s->reads++;
		if (sema_ctx.func && !s->in_func && s->vclass != V_CONST && s->vclass != V_PARAM)
			sema_fail_note(e, format("function '%s' cannot use driver variable '%s'", sema_S(sema_ctx.func->name), name),
			               s->decl, ty_is_dds(s->ty) ?
			               format("functions see only their parameters, consts and params, and a "
			                      "%s cannot be passed: pass the elements the function needs "
			                      "(f(%s[i]) rather than f(i))", ty_str(s->ty), name) :
			               "functions see only their parameters, consts and params; pass the value as an argument");
		e->sym = s;
		return s->ty;
	}
	case N_BINARY: {
		Type *a = sema_check_expr(e->lhs);
		/* D != 0 && 100 / D > 3: the right side of a constant && that
		 * is false (|| true) never runs. */
		bool lv, skip = (e->op == TK_ANDAND || e->op == TK_OROR) && a->kind == TY_BOOL &&
		                sema_const_bool(e->lhs, &lv) && lv == (e->op == TK_OROR);
		sema_dead += skip;
		Type *b = sema_check_expr(e->rhs);
		sema_dead -= skip;
		return binary_type(e, e->op, a, b);
	}
	case N_UNARY: {
		Type *a = sema_check_expr(e->lhs);
		switch (e->op) {
		case TK_MINUS: case TK_PLUS:
			if (ty_is_num(a) || ty_is_numarray(a))
				return a;
			break;
		case TK_NOT:
			if (ty_is_scalar(a))
				return ty_bool;
			break;
		case TK_TILDE:
			if (ty_is_int(a))
				return a;
			break;
		}
		sema_fail(e, "invalid operand to '%s': '%s'", ast_opname(e->op), ty_str(a));
	}
	case N_ASSIGN: {
		Type *l = sema_check_expr(e->lhs);
		Type *r = sema_check_expr(e->rhs);
		if (!is_lvalue_expr(e->lhs))
			sema_fail(e, "the left side of an assignment must be a variable or an element");
		if (ty_is_dds(l))
			sema_fail(e, "a '%s' cannot be assigned as a whole; assign its elements", ty_str(l));
		check_lvalue(e->lhs, e, "assigned");
		if (e->op == TK_ASSIGN && e->lhs->kind == N_NAME) {
			e->lhs->sym->reads--;
			e->lhs->sym->set = true;
		}
		if (e->op == TK_ASSIGN) {
			sema_expect_assignable(e->rhs, l, "cannot assign a value of type '%s' to %s",
			                       ty_str(r), target_desc(e->lhs));
			return l;
		}
		/* x op= y is x = x op y with x evaluated once. */
		Type *t = binary_type(e, e->op, l, r);
		if (!sema_assignable(l, t))
			sema_fail(e, "cannot assign the result, of type '%s', to %s", ty_str(t), target_desc(e->lhs));
		return l;
	}
	case N_INCDEC: {
		Type *t = sema_check_expr(e->lhs);
		if (!is_lvalue_expr(e->lhs) || !ty_is_num(t))
			sema_fail(e, "'%s' needs a numeric variable or element", ast_opname(e->op));
		check_lvalue(e->lhs, e, "modified");
		return t;
	}
	case N_COND: {
		Type *c = sema_check_expr(e->cond);
		if (!ty_is_scalar(c))
			sema_fail(e->cond, "condition has type '%s'", ty_str(c));
		bool cv, known = c->kind == TY_BOOL && sema_const_bool(e->cond, &cv);
		sema_dead += known && !cv;
		Type *a = sema_check_expr(e->then);
		sema_dead -= known && !cv;
		sema_dead += known && cv;
		Type *b = sema_check_expr(e->els);
		sema_dead -= known && cv;
		if (ty_is_num(a) && ty_is_num(b))
			return ty_arith(a, b);
		if (a == b && !ty_is_dds(a) && a->kind != TY_VOID)
			return a;
		if (a->kind == TY_VOID && b->kind == TY_VOID)
			sema_fail(e, "the branches of '?:' have no value (calls of void functions): choose "
			          "between them with an if statement");
		if (a == b)
			sema_fail(e, "'?:' cannot choose between two DDSs ('%s'): use an if statement",
			          ty_str(a));
		sema_fail(e, "the branches of '?:' have different types: '%s' and '%s'", ty_str(a), ty_str(b));
	}
	case N_CALL:
		return check_call(e);
	case N_CONV: {
		if (!e->ts)
			return e->ty;   /* sema_narrow's, checked */
		Type *to = sema_resolve(e->ts);
		Type *a = sema_check_expr(e->lhs);
		if (to->kind == TY_STRING && (ty_is_scalar(a) || a->kind == TY_STRING))
			return to;
		if (a->kind == TY_STRING && ty_is_num(to))
			sema_fail(e, "cannot convert 'string' to '%s'; read the number it holds with to_%s(...)",
			          ty_str(to), ty_str(to));
		if (!ty_is_scalar(a))
			sema_fail(e, "cannot convert '%s' to '%s'", ty_str(a), ty_str(to));
		if (ty_is_num(a))
			sema_check_constant_fits(e->lhs, to, false);
		return to;
	}
	case N_INDEX: {
		Type *b = sema_check_expr(e->lhs);
		Type *i = sema_check_expr(e->rhs);
		if (sema_is_map(b)) {
			check_map_key(e->lhs, e->rhs);
			return b->kind == TY_DMAP ? b->elem : ty_list(b->elem);
		}
		if (b->kind != TY_ARRAY && b->kind != TY_LIST && b->kind != TY_DVEC)
			sema_fail(e, "'%s' cannot be indexed%s", ty_str(b), b->kind != TY_STRING ? "" :
			          ": SAP has no characters; tokens(), split() and fields() cut a string "
			          "into words, and for its bytes a C function of your own can take it "
			          "(sap(7), Extern functions)");
		if (!ty_is_int(i))
			sema_fail(e->rhs, "index must be an integer, not '%s'", ty_str(i));
		int64_t k;
		if (b->kind == TY_ARRAY && sema_const_int(e->rhs, &k) && (k < 0 || k >= b->len))
			sema_fail(e->rhs, "index %lld is out of range for '%s' (valid indices are 0 to %lld)", (long long)k,
			          ty_str(b), (long long)b->len - 1);
		return b->elem;
	}
	case N_FIELD: {
		Type *b = sema_check_expr(e->lhs);
		if (b->kind != TY_STRUCT)
			sema_fail(e, "'%s' has no fields ('.%s' needs a struct)", ty_str(b), sema_S(e->name));
		int i = 0;
		for (Node *f = b->sdecl->args; f; f = f->next, i++)
			if (f->name.len == e->name.len && !memcmp(f->name.p, e->name.p, f->name.len)) {
				e->field_index = i;
				e->sym = f->sym;
				return f->ty;
			}
		const char *best = NULL;
		int bd = 3;
		for (Node *f = b->sdecl->args; f; f = f->next)
			sema_consider(sema_S(e->name), sema_S(f->name), &best, &bd);
		sema_fail_note(e, format("struct %s has no field '%s'%s", ty_str(b), sema_S(e->name),
		                         best ? format("; did you mean '%s'?", best) : ""), b->sdecl,
		               "struct declared here");
	}
	default:
		sema_fail(e, "not an expression");
	}
}

Type *sema_check_expr(Node *e)
{
	e->loop = sema_ctx.loop;
	e->ty = check_expr_inner(e);
	sema_fold(e);
	return e->ty;
}

void sema_check_cond(Node *c)
{
	Type *t = sema_check_expr(c);
	if (c->kind == N_ASSIGN && c->op == TK_ASSIGN && !c->parens)
		diag_warning(c->file, c->off, "parentheses", "assignment used as a condition: for a "
		             "comparison write '==', or put the assignment in parentheses");
	if (!ty_is_scalar(t))
		sema_fail(c, "condition has type '%s'; it must be bool or a number", ty_str(t));
}

/* ---- changes of a variable unsequenced with its other uses ---- */

/* A variable's name in a full expression: by is the assignment or ++/--
 * that changes it there, or NULL for a read; path, the nodes from the
 * root down to it. */
typedef struct Occ {
	Node *n, *by;
	Node **path;
	int depth;
} Occ;

static bool draws(const Node *e, bool known);

/* The names of variables in e (NAMES), or its calls that draw (DRAWS, or
 * MAYBE_DRAWS before the program's functions' draws are known), with
 * their paths from e, into out. */
enum { NAMES, DRAWS, MAYBE_DRAWS };

static void collect(Node *e, Node *by, int what, Vec *path, Vec *out)
{
	if (!e)
		return;
	vec_push(path, e);
	if (what == NAMES ? e->kind == N_NAME && e->sym : draws(e, what == DRAWS)) {
		Occ *o = xcalloc(1, sizeof *o);
		o->n = e;
		o->by = by;
		o->depth = path->n;
		o->path = xcalloc((size_t)path->n, sizeof *o->path);
		memcpy(o->path, path->v, (size_t)path->n * sizeof *o->path);
		vec_push(out, o);
	}
	bool sets = (e->kind == N_ASSIGN || e->kind == N_INCDEC) && e->lhs && e->lhs->kind == N_NAME;
	collect(e->lhs, sets ? e : NULL, what, path, out);
	collect(e->rhs, NULL, what, path, out);
	collect(e->cond, NULL, what, path, out);
	collect(e->then, NULL, what, path, out);
	collect(e->els, NULL, what, path, out);
	for (Node *a = e->kind == N_CALL ? e->args : NULL; a; a = a->next)
		collect(a, NULL, what, path, out);
	path->n--;
}

static void collect_occs(Node *e, Node *by, Vec *path, Vec *out)
{
	collect(e, by, NAMES, path, out);
}

/* Does e change a variable by its name (x = ..., x++)? */
static bool changes_name(Node *e)
{
	if (!e)
		return false;
	if ((e->kind == N_ASSIGN || e->kind == N_INCDEC) && e->lhs && e->lhs->kind == N_NAME)
		return true;
	if (changes_name(e->lhs) || changes_name(e->rhs) || changes_name(e->cond) ||
	    changes_name(e->then) || changes_name(e->els))
		return true;
	for (Node *a = e->kind == N_CALL ? e->args : NULL; a; a = a->next)
		if (changes_name(a))
			return true;
	return false;
}

/* C leaves undefined a change of a variable unsequenced with another
 * change or a use of it in the same full expression (e += e -= 3,
 * h[i] = i++, f(i, i++)): what the program printed would be whatever
 * the C compiler chose.  Sequenced are: the operands of &&, || and ?:,
 * and an assignment's own change after the values of its operands
 * (x = x + 1, x += x). */
/* Is e a call that draws random numbers (maybe, of the program's
 * functions, when !known: their draws are known at the end)? */
static bool draws(const Node *e, bool known)
{
	if (e->kind != N_CALL)
		return false;
	switch (e->builtin) {
	case B_RAND: case B_RAND_INT: case B_RAND_NORMAL: case B_UNIFORM: case B_NORMAL:
		return true;
	case B_NONE:
		return e->sym && (!known || e->sym->uses_rng);
	default:
		return false;
	}
}

/* The calls of e that draw, with their paths from e, into out (Occ). */
static void collect_draws(Node *e, bool known, Vec *path, Vec *out)
{
	collect(e, NULL, known ? DRAWS : MAYBE_DRAWS, path, out);
}

/* Two draws in one expression (rand() - rand(), f(rand(), rand())) take
 * their numbers in the order the C compiler evaluates them, which C
 * leaves open: another compiler, or other options, give each the
 * other's number (helper MC).  Not of the operands of &&, || and ?:, nor
 * of a draw inside another's argument, which are sequenced. */
void sema_check_draws(void)
{
	for (int x = 0; x < sema_draw_exprs.n; x++) {
		Vec path = {0}, occ = {0};
		collect_draws(sema_draw_exprs.v[x], true, &path, &occ);
		bool said = false;
		for (int i = 0; i < occ.n && !said; i++)
			for (int j = i + 1; j < occ.n && !said; j++) {
				Occ *a = occ.v[i], *b = occ.v[j];
				int k = 0;
				while (k + 1 < a->depth && k + 1 < b->depth && a->path[k + 1] == b->path[k + 1])
					k++;
				Node *l = a->path[k];
				if (k + 1 == a->depth || k + 1 == b->depth || l->kind == N_COND ||
				    (l->kind == N_BINARY && (l->op == TK_ANDAND || l->op == TK_OROR)))
					continue;
				/* rand() + rand(), rand() * rand(): the same either
				 * way (not f() + rand(), f drawing 2 * rand()). */
				if (l->kind == N_BINARY && (l->op == TK_PLUS || l->op == TK_STAR) &&
				    k + 2 == a->depth && k + 2 == b->depth && a->n->builtin != B_NONE &&
				    acc_same_expr(a->n, b->n))
					continue;
				diag_warning(b->n->file, b->n->off, "draw-order",
				             "two random draws in one expression: C leaves their order open, "
				             "so which takes which number may change with the C compiler or "
				             "its options; draw each in a statement of its own, in the order "
				             "wanted");
				said = true;
			}
	}
}

void sema_check_sequenced(Node *e)
{
	/* Draws: checked when every function's are known. */
	Vec dpath = {0}, docc = {0};
	collect_draws(e, false, &dpath, &docc);
	if (docc.n >= 2)
		vec_push(&sema_draw_exprs, e);
	if (!changes_name(e))
		return;
	Vec path = {0}, occ = {0};
	collect_occs(e, NULL, &path, &occ);
	/* Each change against every other name of its variable: linear in
	 * the names for a change or two (print(x, x, ..., x++)). */
	for (int i = 0; i < occ.n; i++) {
		Occ *a = occ.v[i];
		if (!a->by)
			continue;
		for (int j = 0; j < occ.n; j++) {
			Occ *b = occ.v[j];
			if (j == i || a->n->sym != b->n->sym || (b->by && j < i))
				continue;
			int k = 0;
			while (k + 1 < a->depth && k + 1 < b->depth && a->path[k + 1] == b->path[k + 1])
				k++;
			Node *l = a->path[k];
			if (l->kind == N_COND ||
			    (l->kind == N_BINARY && (l->op == TK_ANDAND || l->op == TK_OROR)))
				continue;
			if ((l->kind == N_ASSIGN || l->kind == N_INCDEC) &&
			    ((a->by == l && !b->by) || (b->by == l && !a->by)))
				continue;
			Occ *w = a->by ? a : b, *o = w == a ? b : a;
			const char *name = w->n->sym->name;
			sema_fail_note(w->n, format("'%s' is changed here and %s elsewhere in the same "
			                             "expression, in an order C leaves undefined: change "
			                             "it in a statement of its own", name,
			                             o->by ? "changed again" : "used"),
			               o->n, format("'%s' is %s here", name, o->by ? "changed" : "used"));
		}
	}
}
