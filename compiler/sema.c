/* sema.c: name resolution, types, and the rules of parallel loops.
 * The first error ends the pass (longjmp back to sema_program), so a
 * mistake is reported once and never cascades. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <ctype.h>
#include <float.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

typedef struct Ctx {
	Node *func;             /* function being checked, or NULL in driver code */
	Node *loop;             /* innermost parallel loop */
	int seqloops;           /* sequential loops open inside func/loop body */
} Ctx;

static Program *prog;
static jmp_buf fail_jmp;
static Ctx ctx;
static Vec scope;               /* Sym * visible, innermost last */
static Vec marks;               /* scope starts (int) */
static Vec funcs;               /* Sym * of functions */
static Vec loop_calls;          /* calls in loop bodies: Node *, checked at the end */
static Vec loop_of_call;
static Vec driver_names;        /* C names taken by driver statics */
/* For lookups in constant time: the innermost visible symbol of each name
 * (each hides the one before it in Sym.hidden), functions by name, and
 * driver_names as a set. */
static Map names, fnames, driver_set, snames;
static Vec driver_syms;
static int uniq;

static const char *S(Tok t) { return format("%.*s", t.len, t.p); }

static _Noreturn void fail(Node *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void fail(Node *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	diag_error(at->file, at->off, "%s", msg);
	longjmp(fail_jmp, 1);
}

static _Noreturn void fail_ts(TypeSpec *ts, const char *fmt, const char *arg)
{
	diag_error(ts->file, ts->off, fmt, arg);
	longjmp(fail_jmp, 1);
}

/* Errors with a note are reported through this: message, then note. */
static _Noreturn void fail_note(Node *at, const char *msg, Node *nat, const char *nmsg)
{
	diag_error(at->file, at->off, "%s", msg);
	if (nat)
		diag_note(nat->file, nat->off, "%s", nmsg);
	longjmp(fail_jmp, 1);
}

/* ---- scopes ---- */

static void open_scope(void) { vec_push(&marks, (void *)(intptr_t)scope.n); }

static void close_scope(void)
{
	int to = (int)(intptr_t)marks.v[--marks.n];
	while (scope.n > to) {
		Sym *s = scope.v[--scope.n];
		map_put(&names, s->name, s->hidden);
	}
}

static void scope_push(Sym *s)
{
	s->scope_at = scope.n;
	s->hidden = map_get(&names, s->name);
	map_put(&names, s->name, s);
	vec_push(&scope, s);
}

/* The symbol of this name declared in the innermost scope, or NULL. */
static Sym *in_this_scope(const char *name)
{
	int start = marks.n ? (int)(intptr_t)marks.v[marks.n - 1] : 0;
	Sym *s = map_get(&names, name);
	return s && s->scope_at >= start ? s : NULL;
}

static Sym *lookup(const char *name)
{
	Sym *s = map_get(&names, name);
	return s ? s : map_get(&fnames, name);
}

static void consider(const char *name, const char *cand, const char **best, int *bd)
{
	int d = diag_distance(name, cand);
	if (d < *bd && d < (int)strlen(name)) {
		*bd = d;
		*best = cand;
	}
}

/* A visible variable whose name is close to `name`, for "did you mean". */
static const char *suggest(const char *name)
{
	const char *best = NULL;
	int bd = 3;
	for (int i = scope.n - 1; i >= 0; i--) {
		Sym *s = scope.v[i];
		/* Functions see only their parameters, consts and params. */
		if (ctx.func && !s->in_func && s->vclass != V_CONST && s->vclass != V_PARAM)
			continue;
		consider(name, s->name, &best, &bd);
	}
	return best;
}

static bool taken_by_driver(const char *c)
{
	return map_get(&driver_set, c) != NULL;
}

/* Names the compiler makes up ("keys(m)", "#") are not identifiers. */
static bool is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static Sym *declare(Node *decl, const char *name, SymKind k, Type *ty)
{
	Sym *s = in_this_scope(name);
	if (s) {
		diag_error(decl->file, decl->off, "redefinition of '%s'%s", name,
		           decl->kind == N_VAR && decl->init ? "; to change its value, assign to it "
		           "without repeating the type" : "");
		diag_note(s->decl->file, s->decl->off, "'%s' was first defined here", name);
		longjmp(fail_jmp, 1);
	}
	s = xcalloc(1, sizeof *s);
	s->kind = k;
	s->name = name;
	s->ty = ty;
	s->decl = decl;
	s->loop = ctx.loop;
	s->in_func = ctx.func != NULL;
	s->is_driver = !ctx.func && !ctx.loop;
	Sym *outer = lookup(name);
	s->shadow = outer;
	char *c = format("u_%s", name);
	bool made = !is_ident(name);
	if (made)
		c = format("sap_h%d", ++uniq);  /* made up by the compiler */
	if (s->is_driver) {
		while (!made && taken_by_driver(c))
			c = format("u_%s_%d", name, ++uniq);
		vec_push(&driver_names, c);
		map_put(&driver_set, c, c);
		vec_push(&driver_syms, s);
	} else if (outer && !made) {
		c = format("u_%s_%d", name, ++uniq);
	}
	s->cname = c;
	scope_push(s);
	decl->sym = s;
	return s;
}

/* ---- types as written ---- */

static Type *check_expr(Node *e);
static void check_stmt(Node *s);
static Type *resolve(TypeSpec *ts);

/* The first part of e that is not a literal or a const, or NULL. */
static Node *non_constant_part(Node *e)
{
	switch (e->kind) {
	case N_INT: case N_FLOAT: case N_STR: case N_BOOL:
		return NULL;
	case N_NAME:
		return e->sym && e->sym->vclass == V_CONST ? NULL : e;
	case N_UNARY:
		return non_constant_part(e->lhs);
	case N_BINARY: {
		Node *n = non_constant_part(e->lhs);
		return n ? n : non_constant_part(e->rhs);
	}
	default:
		return e;
	}
}

/* Why e is not a constant: ", but 'n' is a param" ("" if no name is to blame). */
static const char *why_not_constant(Node *e)
{
	Node *n = non_constant_part(e);
	if (!n || n->kind != N_NAME || !n->sym)
		return "";
	return format(", but '%s' is a %s", n->sym->name,
	              n->sym->vclass == V_PARAM ? "param (set on the command line)" :
	              n->sym->vclass == V_ARG ? "function parameter" : "variable");
}

/* The value of an integer constant expression (folded by check_expr). */
static bool const_int(Node *e, int64_t *v)
{
	if (!e->has_cval)
		return false;
	*v = e->cval;
	return true;
}

/* A floating constant as written: a literal, maybe with a sign. */
static bool const_float(Node *e, double *v)
{
	if (e->kind == N_FLOAT) {
		*v = e->fval;
		return true;
	}
	if (e->kind == N_UNARY && (e->op == TK_MINUS || e->op == TK_PLUS) && const_float(e->lhs, v)) {
		if (e->op == TK_MINUS)
			*v = -*v;
		return true;
	}
	return false;
}

static int64_t int_min(Type *t) { return t->kind == TY_INT ? INT32_MIN : INT64_MIN; }
static int64_t int_max(Type *t) { return t->kind == TY_INT ? INT32_MAX : INT64_MAX; }

/* Fold an integer expression just checked, in the width of its type, as
 * C would compute it.  Where C has no value (overflow, a division by zero,
 * a shift by a negative count or by the width or more), it is an error
 * here rather than a surprise in the generated program; the division and
 * the shift are errors with a constant right operand alone. */
static void fold(Node *e)
{
	Type *t = e->ty;
	e->has_cval = false;
	if (!t || !ty_is_int(t))
		return;
	int64_t lo = int_min(t), hi = int_max(t), a = 0, b = 0, v;
	bool ca = false, cb = false;
	if (e->kind == N_UNARY || e->kind == N_BINARY)
		ca = const_int(e->lhs, &a);
	/* x / 0 and x <<= 40 as well as 1 / 0. */
	if (e->kind == N_BINARY || e->kind == N_ASSIGN) {
		cb = const_int(e->rhs, &b);
		if ((e->op == TK_SLASH || e->op == TK_PERCENT) && cb && b == 0)
			fail(e, "division by zero");
		if ((e->op == TK_SHL || e->op == TK_SHR) && cb && (b < 0 || b >= (t->kind == TY_INT ? 32 : 64)))
			fail(e, "shift count %lld is %s", (long long)b, b < 0 ? "negative" :
			     format("not less than the width of '%s' (%d bits)", ty_str(t),
			            t->kind == TY_INT ? 32 : 64));
	}
	switch (e->kind) {
	case N_INT:
		v = e->ival;
		break;
	case N_NAME:
		if (!e->sym || !e->sym->has_cval)
			return;
		v = e->sym->cval;
		break;
	case N_UNARY:
		if (!ca)
			return;
		if (e->op == TK_MINUS) {
			if (a == lo)
				fail(e, "integer overflow in a constant expression: -(%lld) does not fit in '%s'",
				     (long long)a, ty_str(t));
			v = -a;
		} else if (e->op == TK_PLUS) {
			v = a;
		} else if (e->op == TK_TILDE) {
			v = ~a;
		} else {
			return;
		}
		break;
	case N_BINARY: {
		if (!ca || !cb)
			return;
		bool over = false;
		switch (e->op) {
		case TK_PLUS: over = __builtin_add_overflow(a, b, &v); break;
		case TK_MINUS: over = __builtin_sub_overflow(a, b, &v); break;
		case TK_STAR: over = __builtin_mul_overflow(a, b, &v); break;
		case TK_SLASH:
			over = a == lo && b == -1;
			v = over ? 0 : a / b;
			break;
		case TK_PERCENT:
			over = a == lo && b == -1;
			v = over ? 0 : a % b;
			break;
		case TK_SHL:
			if (a < 0)
				fail(e, "left shift of the negative value %lld", (long long)a);
			over = a > (hi >> b);
			v = over ? 0 : (int64_t)((uint64_t)a << b);
			break;
		case TK_SHR: v = a >> b; break;
		case TK_AND: v = a & b; break;
		case TK_OR: v = a | b; break;
		case TK_XOR: v = a ^ b; break;
		default: return;
		}
		if (over || v < lo || v > hi)
			fail(e, "integer overflow in a constant expression: %lld %s %lld does not fit in '%s'",
			     (long long)a, ast_opname(e->op), (long long)b, ty_str(t));
		break;
	}
	default:
		return;
	}
	e->has_cval = true;
	e->cval = v;
}

static Node *start_of(Node *e);

/* A constant stored where a `to` is expected must keep its value:
 * int x = 2147483648 is an error, as is float f = 1e39. */
static void check_constant_fits(Node *e, Type *to)
{
	int64_t v;
	double d;
	if (ty_is_int(to) && const_int(e, &v) && (v < int_min(to) || v > int_max(to)))
		fail(start_of(e), "the constant %lld does not fit in '%s'", (long long)v, ty_str(to));
	/* Converting a floating value out of the target's range is undefined in C. */
	if (ty_is_int(to) && const_float(e, &d) &&
	    !(d > (double)int_min(to) - 1 && d < -(double)int_min(to)))
		fail(start_of(e), "the constant %g does not fit in '%s'", d, ty_str(to));
	if (to->kind == TY_FLOAT && const_float(e, &d) && (d > FLT_MAX || d < -FLT_MAX))
		fail(start_of(e), "the constant %g is out of the range of 'float'", d);
}


static Type *resolve(TypeSpec *ts)
{
	switch (ts->kind) {
	case TS_VOID: return ty_void;
	case TS_BOOL: return ty_bool;
	case TS_INT: return ty_int;
	case TS_LONG: return ty_long;
	case TS_FLOAT: return ty_float;
	case TS_DOUBLE: return ty_double;
	case TS_STRING: return ty_string;
	case TS_NAMED: {
		Node *sd = map_get(&snames, S(ts->name));
		if (sd)
			return ty_struct(sd);
		fail_ts(ts, "unknown type '%s'", S(ts->name));
	}
	case TS_ARRAY: {
		/* float[3][4] is three float[4], as in C: sizes are written outer first. */
		Vec sizes = {0};
		TypeSpec *b = ts;
		while (b->kind == TS_ARRAY) {
			vec_push(&sizes, b);
			b = b->elem;
		}
		Type *t = resolve(b);
		if (t->kind == TY_VOID)
			fail_ts(b, "array of %s", "void");
		if (ty_is_dds(t))
			fail_ts(b, "an array cannot hold a %s: DDSs are declared only as whole variables",
			        ty_str(t));
		for (int i = 0; i < sizes.n; i++) {
			TypeSpec *a = sizes.v[i];
			check_expr(a->size);
			int64_t n;
			if (!ty_is_int(a->size->ty))
				fail(a->size, "array size must be a constant integer expression, not '%s'",
				     ty_str(a->size->ty));
			if (!const_int(a->size, &n)) {
				Node *bad = non_constant_part(a->size);
				fail(bad ? bad : a->size, "array size must be a constant integer expression%s; "
				     "use a const, or a list or dvector for a size known only at run time",
				     why_not_constant(a->size));
			}
			if (n <= 0)
				fail(a->size, "array size must be positive, not %lld", (long long)n);
			if (n > (1 << 24))
				fail(a->size, "array size %lld is too large for a fixed array; use a dvector",
				     (long long)n);
			t = ty_array(t, n);
		}
		return t;
	}
	case TS_LIST: {
		Type *e = resolve(ts->elem);
		if (e->kind == TY_VOID)
			fail_ts(ts->elem, "list of %s", "void");
		if (ty_is_dds(e))
			fail_ts(ts->elem, "a list cannot hold a %s", ty_str(e));
		return ty_list(e);
	}
	case TS_DVEC: {
		Type *e = resolve(ts->elem);
		if (e->kind == TY_VOID)
			fail_ts(ts->elem, "dvector of %s", "void");
		if (ty_has_dds(e))
			fail_ts(ts->elem, "a dvector cannot hold another DDS ('%s'); its elements can be scalars, "
			        "arrays, structs or lists", ty_str(e));
		return ty_dvec(e);
	}
	case TS_DMAP:
	case TS_DMMAP: {
		Type *k = resolve(ts->key);
		Type *v = resolve(ts->elem);
		if (k->kind != TY_INT && k->kind != TY_LONG && k->kind != TY_STRING)
			fail_ts(ts->key, "%s", format("the keys of a %s must be int, long or string, not '%s'%s",
			        ts->kind == TS_DMAP ? "dmap" : "dmultimap", ty_str(k),
			        ty_is_float(k) ? "; round a float key to an integer first, as in long(x * 10)" : ""));
		if (v->kind == TY_VOID)
			fail_ts(ts->elem, "map of %s", "void");
		if (ty_has_dds(v))
			fail_ts(ts->elem, "%s", format("a %s cannot hold another DDS ('%s'); its values can be "
			        "scalars, arrays, structs or lists", ts->kind == TS_DMAP ? "dmap" : "dmultimap",
			        ty_str(v)));
		return ty_dmap(k, v, ts->kind == TS_DMMAP);
	}
	}
	return ty_void;
}

/* ---- expressions ---- */


/* May a value of type `from` be stored where `to` is expected? */
static bool assignable(Type *to, Type *from)
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
static Node *start_of(Node *e)
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
		              e->kind == N_NAME ? S(e->name) : "x");
	if (ty_is_num(to) && from->kind == TY_BOOL)
		return format("; convert it with %s(...)", ty_str(to));
	if (ty_is_num(to) && from->kind == TY_STRING)
		return format("; read the number it holds with to_%s(...)", ty_str(to));
	if (from->kind == TY_STRUCT) {
		Node *best = NULL;
		for (Node *f = from->sdecl->args; f; f = f->next)
			if (f->ty == to || (!best && assignable(to, f->ty)))
				best = f;
		if (best)
			return format("; use one of its fields, such as '.%s'", S(best->name));
	}
	return "";
}

/* Fail with "msg; hint" at the start of e if its value cannot be stored
 * where a `to` is expected.  msg is built only when it is needed. */
static void expect_assignable(Node *e, Type *to, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void expect_assignable(Node *e, Type *to, const char *fmt, ...)
{
	if (assignable(to, e->ty)) {
		check_constant_fits(e, to);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	fail(start_of(e), "%s%s", msg, mismatch_hint(to, e));
}

/* "'x' of type 'int'", "an element of type 'float'": the target of a store. */
static const char *target_desc(Node *lhs)
{
	if (lhs->kind == N_NAME)
		return format("'%s' of type '%s'", S(lhs->name), ty_str(lhs->ty));
	if (lhs->kind == N_FIELD)
		return format("field '%s' of type '%s'", S(lhs->name), ty_str(lhs->ty));
	return format("an element of type '%s'", ty_str(lhs->ty));
}

static bool is_reduce_var(Node *loop, Sym *s)
{
	for (int i = 0; i < loop->li->reduce_syms.n; i++)
		if (loop->li->reduce_syms.v[i] == s)
			return true;
	return false;
}

static const char *loopword(Node *loop)
{
	return loop->kind == N_ASYNC ? "async for" : "sync for";
}

/* "an async for", "a sync for": for messages. */
static const char *a_loop(Node *loop)
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
			fail(b, "a dmultimap element cannot be %s; use insert(m, key, value)", verb);
		if (b->kind == N_INDEX && b->lhs->ty->kind == TY_STRING)
			fail(b, "strings are immutable");
		b = b->lhs;
	}
	if (b->kind != N_NAME)
		fail(e, "expression cannot be %s", verb);
	Sym *s = b->sym;
	if (s->vclass == V_CONST)
		fail_note(e, format("cannot assign to const '%s'", s->name), s->decl, "declared here");
	if (s->vclass == V_PARAM)
		fail_note(e, format("cannot assign to param '%s': params are set on the command line",
		                    s->name), s->decl,
		          format("declared here; to change the value, copy it into a variable: %s x = %s;",
		                 ty_str(s->ty), s->name));
	if (s->readonly && s->keys_of)
		fail_note(e, format("the key '%s' of a loop over a map cannot be %s", s->name, verb), s->decl,
		          format("each iteration has its own key; to change a copy: %s k2 = %s;",
		                 ty_str(s->ty), s->name));
	if (s->readonly)
		fail_note(e, format("'%s' is read-only here", s->name), s->decl,
		          s->vclass == V_ARG ? "parameters holding lists are borrowed; copy into a local to change it"
		          : s->ty->kind == TY_LIST ? "the mini-batch of a sync for shows the DDS's elements; write the DDS instead"
		                             : "the element variable of a sync for is a copy of the DDS element; write the DDS instead");
	Node *loop = ctx.loop;
	if (loop && loop->kind == N_ASYNC && loop->init && loop->init->sym == s)
		fail_note(e, format("the loop variable '%s' of an async for cannot be %s", s->name, verb),
		          loop->init, format("each iteration has its own '%s', and the runtime chooses the "
		                             "worker that runs it; to step by k, loop over the number of "
		                             "steps and use k * %s", s->name, s->name));
	if (loop && !ty_is_dds(s->ty) && s->loop != loop && !s->in_func && !is_reduce_var(loop, s)) {
		const char *op = guess_reduction(how, s);
		fail_note(e, format("%s body cannot assign driver variable '%s'", a_loop(loop), s->name),
		          loop, format("to combine '%s' across iterations, add reduce(%s: %s) to this loop; "
		                       "for a temporary, declare it inside the loop body", s->name,
		                       op ? op : "op", s->name));
	}
}

static void check_args_count(Node *call, int want, const char *name)
{
	int n = 0;
	for (Node *a = call->args; a; a = a->next)
		n++;
	if (n != want)
		fail(call, "%s takes %d argument%s, but %d %s given", name, want, want == 1 ? "" : "s",
		     n, n == 1 ? "was" : "were");
}

/* gemv(y, W, x): y = W x; ger(W, a, y, x): W += a y x^T; W a dvector of
 * rows of n floats or doubles, y and x arrays of them.  They use every
 * row of W, which only a sync for (whose vectors are whole on every
 * rank) can give them. */
static void check_blas(Node *e, const char *name)
{
	bool gemv = e->builtin == B_GEMV;
	check_args_count(e, gemv ? 3 : 4, name);
	Node *w = gemv ? e->args->next : e->args;
	Node *y = gemv ? e->args : e->args->next->next;
	Node *x = gemv ? e->args->next->next : e->args->next->next->next;
	if (!ctx.loop || ctx.loop->kind != N_SYNC)
		fail(e, "%s uses every row of a dvector, which only a sync for body may do", name);
	Type *wt = w->ty;
	if (w->kind != N_NAME || wt->kind != TY_DVEC || wt->elem->kind != TY_ARRAY ||
	    (wt->elem->elem->kind != TY_FLOAT && wt->elem->elem->kind != TY_DOUBLE))
		fail(w, "%s needs a dvector of float or double arrays (its rows), not '%s'", name,
		     ty_str(wt));
	Type *sc = wt->elem->elem;
	if (y->ty->kind != TY_ARRAY || y->ty->elem != sc)
		fail(y, "%s needs y to be an array of %s, as %s's rows are, not '%s'", name, ty_str(sc),
		     S(w->name), ty_str(y->ty));
	if (x->ty != wt->elem)
		fail(x, "%s needs x to be a row of %s, '%s', not '%s'", name, S(w->name),
		     ty_str(wt->elem), ty_str(x->ty));
	if (gemv)
		check_lvalue(y, e, "written");
	else if (!ty_is_num(e->args->next->ty))
		fail(e->args->next, "ger needs a number for a, not '%s'", ty_str(e->args->next->ty));
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
		fail(e, "gemm takes 3 arguments, gemm(Z, X, W) for Z = X W^T, or 4, gemm(W, a, G, X) for "
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
			fail(m[i], "gemm needs a matrix for %s: a dvector, list or array of float or double "
			     "arrays (its rows), not '%s'", nm, ty_str(t));
		if (sc && s != sc)
			fail(m[i], "gemm needs %s to hold %s, as %s does, not '%s'", nm, ty_str(sc),
			     mname[upd][0], ty_str(s));
		sc = s;
		if (t->kind == TY_DVEC && m[i]->kind != N_NAME)
			fail(m[i], "gemm needs a dvector by its name");
		if (t->kind == TY_DVEC && (!ctx.loop || ctx.loop->kind != N_SYNC))
			fail(m[i], "gemm uses every row of %s, which only a sync for body may do; "
			     "elsewhere, copy the rows into a list", S(m[i]->name));
		if (m[i]->kind != N_NAME && m[i]->kind != N_FIELD && m[i]->kind != N_INDEX)
			fail(m[i], "gemm needs a variable for %s (or a field or element of one), not a "
			     "computed value", nm);
		if (i > 0 && base_sym(m[i]) == base_sym(m[0]))
			fail(m[i], "gemm writes %s and reads %s from the same variable, '%s'; read a copy",
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
		fail(m[1], "gemm(Z, X, W) needs rows of X as long as W's: '%s' against '%s'",
		     ty_str(m[1]->ty->elem), ty_str(m[2]->ty->elem));
	if (upd && cols[0] != cols[2])
		fail(m[2], "gemm(W, a, G, X) needs rows of X as long as W's: '%s' against '%s'",
		     ty_str(m[2]->ty->elem), ty_str(m[0]->ty->elem));
	if (!upd && rows[2] >= 0 && cols[0] != rows[2])
		fail(m[0], "gemm(Z, X, W) needs a row of Z per row of W: '%s' rows against %lld",
		     ty_str(m[0]->ty->elem), (long long)rows[2]);
	if (upd && rows[0] >= 0 && cols[1] != rows[0])
		fail(m[1], "gemm(W, a, G, X) needs rows of G as long as W has rows: '%s' against %lld",
		     ty_str(m[1]->ty->elem), (long long)rows[0]);
	if (!upd && rows[0] >= 0 && rows[1] >= 0 && rows[0] != rows[1])
		fail(m[0], "gemm(Z, X, W) needs a row of Z per row of X: %lld against %lld",
		     (long long)rows[0], (long long)rows[1]);
	if (upd && rows[1] >= 0 && rows[2] >= 0 && rows[1] != rows[2])
		fail(m[2], "gemm(W, a, G, X) needs as many rows in X as in G: %lld against %lld",
		     (long long)rows[2], (long long)rows[1]);
	if (upd && !ty_is_num(e->args->next->ty))
		fail(e->args->next, "gemm needs a number for a, not '%s'", ty_str(e->args->next->ty));
	check_lvalue(m[0], e, "written");
}

static Node *arg(Node *call, int i)
{
	Node *a = call->args;
	while (i-- > 0)
		a = a->next;
	return a;
}

static void no_io_in_loop(Node *call, const char *what)
{
	if (ctx.loop)
		fail_note(call, format("%s is not allowed in %s body", what, a_loop(ctx.loop)), ctx.loop,
		          "iterations run on many workers in an order the runtime chooses; "
		          "collect values with reduce(...) and use them after the loop");
}

static void check_map_key(Node *m, Node *k)
{
	if (!assignable(m->ty->key, k->ty) || (ty_is_int(m->ty->key) != ty_is_int(k->ty)))
		fail(start_of(k), "the key of a '%s' must be '%s', not '%s'", ty_str(m->ty), ty_str(m->ty->key),
		     ty_str(k->ty));
}

static bool is_map(Type *t) { return t->kind == TY_DMAP || t->kind == TY_DMMAP; }

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

static void check_print(Node *call)
{
	Node *f = call->args;
	if (!f)
		fail(call, "print needs a format string");
	if (f->kind != N_STR)
		fail(f, "the format of print must be a string literal; to print a string value, write "
		     "print(\"%%s\", value)");
	Node *a = f->next;
	int argno = 2;
	const char *fs = f->sval;
	for (int64_t i = 0; i < f->ival; i++) {
		if (fs[i] != '%')
			continue;
		int64_t start = i++;
		if (fs[i] == '%')
			continue;
		while (i < f->ival && strchr("-+ #0", fs[i])) i++;
		while (fs[i] >= '0' && fs[i] <= '9') i++;
		if (fs[i] == '.') {
			i++;
			while (fs[i] >= '0' && fs[i] <= '9') i++;
		}
		if (fs[i] == '*')
			fail(str_pos(f, i), "'*' widths are not supported in print formats");
		char c = fs[i];
		int len = (int)(i - start + (c != 0));
		if (c && strchr("hlLqjzt", c)) {
			int64_t e = i;
			while (fs[e] && strchr("hlLqjzt", fs[e])) e++;
			fail(str_pos(f, i), "'%.*s': print formats take no size modifiers; write '%.*s%c' for "
			     "every integer type", (int)(e - start + (fs[e] != 0)), fs + start, (int)(i - start),
			     fs + start, fs[e] && strchr("diuxXo", fs[e]) ? fs[e] : 'd');
		}
		if (!c || !strchr("diuxXocfeEgGs", c))
			fail(str_pos(f, start), "unknown conversion '%.*s' in print format", len, fs + start);
		if (!a)
			fail(str_pos(f, start), "too few arguments for the format: '%.*s' has no argument", len,
			     fs + start);
		Type *t = a->ty;
		bool ok = strchr("diuxXoc", c) ? ty_is_int(t) || t->kind == TY_BOOL
		        : c == 's' ? t->kind == TY_STRING : ty_is_num(t);
		const char *use = conversion_for(t);
		if (!ok)
			fail(start_of(a), "'%.*s' in the format expects %s, but argument %d has type '%s'%s", len,
			     fs + start, strchr("diuxXoc", c) ? "an integer" : c == 's' ? "a string" : "a number",
			     argno, ty_str(t), use ? format("; use '%s' for a '%s'", use, ty_str(t)) : "");
		a = a->next;
		argno++;
	}
	if (a) {
		int nconv = argno - 2, nargs = nconv;
		for (Node *b = a; b; b = b->next)
			nargs++;
		fail(start_of(a), "too many arguments for the format: it has %d conversion%s, but %d value%s "
		     "follow%s it", nconv, nconv == 1 ? "" : "s", nargs, nargs == 1 ? "" : "s", nargs == 1 ? "s" : "");
	}
}

static void uses_rng(void)
{
	if (ctx.loop)
		ctx.loop->li->uses_rng = true;
	if (ctx.func)
		ctx.func->sym->uses_rng = true;
}

static const struct { const char *name; Builtin b; } builtins[] = {
	{"len", B_LEN}, {"push", B_PUSH}, {"insert", B_INSERT}, {"contains", B_CONTAINS},
	{"count", B_COUNT}, {"erase", B_ERASE}, {"get", B_GET}, {"min", B_MIN}, {"max", B_MAX},
	{"abs", B_ABS}, {"dot", B_DOT}, {"rand", B_RAND}, {"rand_int", B_RAND_INT},
	{"rand_normal", B_RAND_NORMAL}, {"print", B_PRINT}, {"load", B_LOAD}, {"save", B_SAVE},
	{"uniform", B_UNIFORM}, {"normal", B_NORMAL}, {"keys", B_KEYS}, {"join", B_JOIN},
	{"tokens", B_TOKENS}, {"vocab", B_VOCAB}, {"unigram", B_UNIGRAM},
	{"fast_sigmoid", B_FAST_SIGMOID}, {"softmax", B_SOFTMAX}, {"wtime", B_WTIME},
	{"ranks", B_RANKS}, {"threads", B_THREADS}, {"gemv", B_GEMV}, {"ger", B_GER},
	{"gemm", B_GEMM}, {"split", B_SPLIT}, {"fields", B_FIELDS}, {"to_int", B_TO_INT},
	{"to_long", B_TO_LONG}, {"to_float", B_TO_FLOAT}, {"to_double", B_TO_DOUBLE},
};

static Builtin find_builtin(const char *name)
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
	for (int i = 0; i < funcs.n; i++)
		consider(name, ((Sym *)funcs.v[i])->name, &best, &bd);
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		consider(name, builtins[i].name, &best, &bd);
	return best;
}

static void check_text_shape(Node *at, const char *verb, Type *t);

static Type *check_builtin(Node *e, Builtin b, const char *name)
{
	e->builtin = b;
	if (b == B_LOAD || b == B_UNIFORM || b == B_NORMAL || b == B_KEYS || b == B_JOIN ||
	    b == B_VOCAB || b == B_UNIGRAM)
		fail(e, "%s(...) can only be the initialiser of a dvector declaration, as in: "
		     "dvector<T> D%s = %s(...);%s", name, b == B_UNIFORM || b == B_NORMAL ? "(n)" : "",
		     name, b == B_KEYS || b == B_JOIN ? " (or what async for (K k : ...) runs over)" : "");
	for (Node *a = e->args; a; a = a->next)
		check_expr(a);
	switch (b) {
	case B_LEN: {
		check_args_count(e, 1, "len");
		Type *t = e->args->ty;
		if (t->kind != TY_DVEC && t->kind != TY_LIST && !is_map(t) && t->kind != TY_STRING &&
		    t->kind != TY_ARRAY)
			fail(e->args, "len needs a dvector, dmap, list, array or string, not '%s'", ty_str(t));
		return ty_long;
	}
	case B_PUSH: {
		check_args_count(e, 2, "push");
		Node *l = arg(e, 0), *v = arg(e, 1);
		if (l->ty->kind != TY_LIST)
			fail(l, "push needs a list, not '%s'", ty_str(l->ty));
		check_lvalue(l, e, "modified");
		expect_assignable(v, l->ty->elem, "cannot push a value of type '%s' onto a '%s'",
		                  ty_str(v->ty), ty_str(l->ty));
		return ty_void;
	}
	case B_INSERT: {
		check_args_count(e, 3, "insert");
		Node *m = arg(e, 0);
		if (!is_map(m->ty))
			fail(m, "insert needs a dmap or dmultimap, not '%s'", ty_str(m->ty));
		check_map_key(m, arg(e, 1));
		expect_assignable(arg(e, 2), m->ty->elem, "cannot insert a value of type '%s' into a '%s'",
		                  ty_str(arg(e, 2)->ty), ty_str(m->ty));
		return ty_void;
	}
	case B_CONTAINS: case B_COUNT: case B_ERASE: {
		check_args_count(e, 2, name);
		Node *m = arg(e, 0);
		if (!is_map(m->ty))
			fail(m, "%s needs a dmap or dmultimap, not '%s'", name, ty_str(m->ty));
		check_map_key(m, arg(e, 1));
		return b == B_CONTAINS ? ty_bool : ty_long;
	}
	case B_GET: {
		check_args_count(e, 3, "get");
		Node *m = arg(e, 0);
		if (m->ty->kind != TY_DMAP)
			fail(m, "get needs a dmap, not '%s'", ty_str(m->ty));
		check_map_key(m, arg(e, 1));
		expect_assignable(arg(e, 2), m->ty->elem, "the default of get must be a '%s' (a value of "
		                  "the map), not '%s'", ty_str(m->ty->elem), ty_str(arg(e, 2)->ty));
		return m->ty->elem;
	}
	case B_MIN: case B_MAX: {
		check_args_count(e, 2, name);
		Type *a = arg(e, 0)->ty, *c = arg(e, 1)->ty;
		if (!ty_is_num(a) || !ty_is_num(c))
			fail(e, "%s needs two numbers, not '%s' and '%s'", name, ty_str(a), ty_str(c));
		return ty_arith(a, c);
	}
	case B_ABS: {
		check_args_count(e, 1, "abs");
		if (!ty_is_num(e->args->ty))
			fail(e->args, "abs needs a number, not '%s'", ty_str(e->args->ty));
		return e->args->ty;
	}
	case B_DOT: {
		check_args_count(e, 2, "dot");
		Type *a = arg(e, 0)->ty, *c = arg(e, 1)->ty;
		if (!ty_is_numarray(a) || !ty_is_numarray(c) || a != c)
			fail(e, "dot needs two numeric arrays of the same type, not '%s' and '%s'",
			     ty_str(a), ty_str(c));
		return a->elem;
	}
	case B_TOKENS:
		check_args_count(e, 1, "tokens");
		if (e->args->ty->kind != TY_STRING)
			fail(e->args, "tokens needs a string, not '%s'", ty_str(e->args->ty));
		return ty_list(ty_string);
	case B_FIELDS: case B_TO_INT: case B_TO_LONG: case B_TO_FLOAT: case B_TO_DOUBLE:
		check_args_count(e, 1, name);
		if (e->args->ty->kind != TY_STRING)
			fail(e->args, "%s needs a string, not '%s'", name, ty_str(e->args->ty));
		return b == B_FIELDS ? ty_list(ty_string) : b == B_TO_INT ? ty_int : b == B_TO_LONG ?
		       ty_long : b == B_TO_FLOAT ? ty_float : ty_double;
	case B_SPLIT:
		check_args_count(e, 2, "split");
		for (Node *a = e->args; a; a = a->next)
			if (a->ty->kind != TY_STRING)
				fail(a, "split needs two strings, the text and the separator, not '%s'",
				     ty_str(a->ty));
		if (arg(e, 1)->kind == N_STR && arg(e, 1)->ival == 0)
			fail(arg(e, 1), "the separator of split cannot be the empty string");
		return ty_list(ty_string);
	case B_FAST_SIGMOID:
		check_args_count(e, 1, "fast_sigmoid");
		if (!ty_is_num(e->args->ty))
			fail(e->args, "fast_sigmoid needs a number, not '%s'", ty_str(e->args->ty));
		return ty_float;
	case B_SOFTMAX: {
		check_args_count(e, 1, "softmax");
		Type *a = e->args->ty;
		if (a->kind != TY_ARRAY || (a->elem->kind != TY_FLOAT && a->elem->kind != TY_DOUBLE))
			fail(e->args, "softmax needs an array of float or double, not '%s'", ty_str(a));
		return a;
	}
	case B_GEMV: case B_GER:
		check_blas(e, name);
		return ty_void;
	case B_GEMM:
		check_gemm(e);
		return ty_void;
	case B_WTIME:
		check_args_count(e, 0, "wtime");
		return ty_double;
	case B_RANKS: case B_THREADS:
		check_args_count(e, 0, name);
		return ty_int;
	case B_RAND: case B_RAND_NORMAL:
		check_args_count(e, 0, name);
		uses_rng();
		return ty_double;
	case B_RAND_INT:
		check_args_count(e, 1, "rand_int");
		uses_rng();
		if (!ty_is_int(e->args->ty))
			fail(e->args, "rand_int needs an integer bound, not '%s'", ty_str(e->args->ty));
		return ty_long;
	case B_PRINT:
		no_io_in_loop(e, "print");
		if (ctx.func && !ctx.func->sym->does_io) {
			ctx.func->sym->does_io = true;
			ctx.func->sym->io_site = e;
		}
		check_print(e);
		return ty_void;
	case B_SAVE: {
		no_io_in_loop(e, "save");
		if (ctx.func)
			fail(e, "save is only allowed in driver code");
		check_args_count(e, 2, "save");
		if (arg(e, 0)->ty->kind != TY_DVEC)
			fail(arg(e, 0), "save needs a dvector, not '%s'", ty_str(arg(e, 0)->ty));
		if (arg(e, 1)->ty->kind != TY_STRING)
			fail(arg(e, 1), "the file name must be a string, not '%s'", ty_str(arg(e, 1)->ty));
		check_text_shape(e, "save", arg(e, 0)->ty);
		return ty_void;
	}
	default:
		return ty_void;
	}
}

static Type *check_call(Node *e)
{
	const char *name = S(e->name);
	Builtin b = find_builtin(name);
	if (b)
		return check_builtin(e, b, name);
	Sym *s = lookup(name);
	if (!s) {
		const char *sg = suggest_func(name);
		if (sg)
			fail(e, "call to undefined function '%s'; did you mean '%s'?", name, sg);
		fail(e, "call to undefined function '%s'", name);
	}
	if (s->kind != SYM_FUNC)
		fail_note(e, format("'%s' is a variable of type '%s', not a function", name, ty_str(s->ty)),
		          s->decl, "declared here");
	e->sym = s;
	int want = 0, have = 0;
	for (Node *p = s->decl->args; p; p = p->next)
		want++;
	for (Node *a = e->args; a; a = a->next)
		have++;
	if (want != have)
		fail_note(e, format("function '%s' takes %d argument%s, but %d %s given", name, want,
		                    want == 1 ? "" : "s", have, have == 1 ? "was" : "were"),
		          s->decl, "declared here");
	Node *p = s->decl->args;
	int argno = 1;
	for (Node *a = e->args; a; a = a->next, p = p->next, argno++) {
		check_expr(a);
		if (!assignable(p->sym->ty, a->ty) || (p->sym->ty->kind == TY_BOOL) != (a->ty->kind == TY_BOOL))
			fail_note(a, format("argument %d of '%s' must be '%s', not '%s'", argno, name,
			                    ty_str(p->sym->ty), ty_str(a->ty)),
			          p, "parameter declared here");
	}
	if (ctx.loop) {
		vec_push(&loop_calls, e);
		vec_push(&loop_of_call, ctx.loop);
	}
	if (ctx.func)
		vec_push(&ctx.func->sym->calls, e);
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
		fail(e, "%s (a DDS is used through its elements: D[i])", bad);
	switch (op) {
	case TK_PLUS: case TK_MINUS: case TK_STAR: case TK_SLASH:
		if (ty_is_num(a) && ty_is_num(b))
			return ty_arith(a, b);
		if (op == TK_PLUS && a->kind == TY_STRING && b->kind == TY_STRING)
			return ty_string;
		if (ty_is_numarray(a) && ty_is_numarray(b)) {
			if (a->len != b->len)
				fail(e, "%s: arrays of different lengths", bad);
			if (op == TK_SLASH)
				fail(e, "%s: arrays divide only by a scalar", bad);
			return ty_array(ty_arith(a->elem, b->elem), a->len);
		}
		if (ty_is_numarray(a) && ty_is_num(b) && (op == TK_STAR || op == TK_SLASH))
			return ty_array(ty_arith(a->elem, b), a->len);
		if (ty_is_num(a) && ty_is_numarray(b) && op == TK_STAR)
			return ty_array(ty_arith(a, b->elem), b->len);
		if ((ty_is_numarray(a) && ty_is_num(b)) || (ty_is_num(a) && ty_is_numarray(b)))
			fail(e, "%s: an array and a scalar combine only with '*' (and '/' by the scalar)", bad);
		fail(e, "%s", bad);
	case TK_PERCENT: case TK_AND: case TK_OR: case TK_XOR: case TK_SHL: case TK_SHR:
		if ((ty_is_int(a) || a->kind == TY_BOOL) && (ty_is_int(b) || b->kind == TY_BOOL))
			return op == TK_SHL || op == TK_SHR ? ty_arith(a, ty_int) : ty_arith(a, b);
		fail(e, "%s (integers needed)", bad);
	case TK_LT: case TK_GT: case TK_LE: case TK_GE:
		if ((ty_is_num(a) && ty_is_num(b)) || (a->kind == TY_STRING && b->kind == TY_STRING))
			return ty_bool;
		fail(e, "%s", bad);
	case TK_EQ: case TK_NE:
		if ((ty_is_num(a) && ty_is_num(b)) || (a->kind == TY_STRING && b->kind == TY_STRING) ||
		    (a->kind == TY_BOOL && b->kind == TY_BOOL))
			return ty_bool;
		fail(e, "%s", bad);
	case TK_ANDAND: case TK_OROR:
		if (ty_is_scalar(a) && ty_is_scalar(b))
			return ty_bool;
		fail(e, "%s", bad);
	}
	fail(e, "%s", bad);
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
		const char *name = S(e->name);
		Sym *s = lookup(name);
		if (!s) {
			if (find_builtin(name))
				fail(e, "'%s' is a built-in function; call it with %s(...)", name, name);
			const char *sg = suggest(name);
			if (sg)
				fail(e, "undefined name '%s'; did you mean '%s'?", name, sg);
			fail(e, "undefined name '%s'", name);
		}
		if (s->kind == SYM_FUNC)
			fail(e, "'%s' is a function; call it with %s(...)", name, name);
		s->used = true;
		if (ctx.func && !s->in_func && s->vclass != V_CONST && s->vclass != V_PARAM)
			fail_note(e, format("function '%s' cannot use driver variable '%s'", S(ctx.func->name), name),
			          s->decl, "functions see only their parameters, consts and params; pass the value as an argument");
		e->sym = s;
		return s->ty;
	}
	case N_BINARY: {
		Type *a = check_expr(e->lhs), *b = check_expr(e->rhs);
		return binary_type(e, e->op, a, b);
	}
	case N_UNARY: {
		Type *a = check_expr(e->lhs);
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
		fail(e, "invalid operand to '%s': '%s'", ast_opname(e->op), ty_str(a));
	}
	case N_ASSIGN: {
		Type *l = check_expr(e->lhs);
		Type *r = check_expr(e->rhs);
		if (!is_lvalue_expr(e->lhs))
			fail(e, "the left side of an assignment must be a variable or an element");
		if (ty_is_dds(l))
			fail(e, "a '%s' cannot be assigned as a whole; assign its elements", ty_str(l));
		check_lvalue(e->lhs, e, "assigned");
		if (e->op == TK_ASSIGN) {
			expect_assignable(e->rhs, l, "cannot assign a value of type '%s' to %s",
			                  ty_str(r), target_desc(e->lhs));
			return l;
		}
		/* x op= y is x = x op y with x evaluated once. */
		Type *t = binary_type(e, e->op, l, r);
		if (!assignable(l, t))
			fail(e, "cannot assign the result, of type '%s', to %s", ty_str(t), target_desc(e->lhs));
		return l;
	}
	case N_INCDEC: {
		Type *t = check_expr(e->lhs);
		if (!is_lvalue_expr(e->lhs) || !ty_is_num(t))
			fail(e, "'%s' needs a numeric variable or element", ast_opname(e->op));
		check_lvalue(e->lhs, e, "modified");
		return t;
	}
	case N_COND: {
		Type *c = check_expr(e->cond);
		if (!ty_is_scalar(c))
			fail(e->cond, "condition has type '%s'", ty_str(c));
		Type *a = check_expr(e->then), *b = check_expr(e->els);
		if (ty_is_num(a) && ty_is_num(b))
			return ty_arith(a, b);
		if (a == b && !ty_is_dds(a) && a->kind != TY_VOID)
			return a;
		fail(e, "the branches of '?:' have different types: '%s' and '%s'", ty_str(a), ty_str(b));
	}
	case N_CALL:
		return check_call(e);
	case N_CONV: {
		Type *to = resolve(e->ts);
		Type *a = check_expr(e->lhs);
		if (!ty_is_scalar(a))
			fail(e, "cannot convert '%s' to '%s'", ty_str(a), ty_str(to));
		if (ty_is_float(a))
			check_constant_fits(e->lhs, to);
		return to;
	}
	case N_INDEX: {
		Type *b = check_expr(e->lhs);
		Type *i = check_expr(e->rhs);
		if (is_map(b)) {
			check_map_key(e->lhs, e->rhs);
			return b->kind == TY_DMAP ? b->elem : ty_list(b->elem);
		}
		if (b->kind != TY_ARRAY && b->kind != TY_LIST && b->kind != TY_DVEC)
			fail(e, "'%s' cannot be indexed", ty_str(b));
		if (!ty_is_int(i))
			fail(e->rhs, "index must be an integer, not '%s'", ty_str(i));
		int64_t k;
		if (b->kind == TY_ARRAY && const_int(e->rhs, &k) && (k < 0 || k >= b->len))
			fail(e->rhs, "index %lld is out of range for '%s' (valid indices are 0 to %lld)", (long long)k,
			     ty_str(b), (long long)b->len - 1);
		return b->elem;
	}
	case N_FIELD: {
		Type *b = check_expr(e->lhs);
		if (b->kind != TY_STRUCT)
			fail(e, "'%s' has no fields ('.%s' needs a struct)", ty_str(b), S(e->name));
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
			consider(S(e->name), S(f->name), &best, &bd);
		fail_note(e, format("struct %s has no field '%s'%s", ty_str(b), S(e->name),
		                    best ? format("; did you mean '%s'?", best) : ""), b->sdecl,
		          "struct declared here");
	}
	default:
		fail(e, "not an expression");
	}
}

static Type *check_expr(Node *e)
{
	e->loop = ctx.loop;
	e->ty = check_expr_inner(e);
	fold(e);
	return e->ty;
}

static void check_cond(Node *c)
{
	Type *t = check_expr(c);
	if (!ty_is_scalar(t))
		fail(c, "condition has type '%s'; it must be bool or a number", ty_str(t));
}

/* ---- declarations ---- */

static bool is_constant(Node *e)
{
	switch (e->kind) {
	case N_INT: case N_FLOAT: case N_STR: case N_BOOL:
		return true;
	case N_NAME:
		return e->sym && e->sym->vclass == V_CONST;
	case N_UNARY:
		return is_constant(e->lhs);
	case N_BINARY:
		return is_constant(e->lhs) && is_constant(e->rhs);
	default:
		return false;
	}
}

/* ---- the text form of load and save ---- */

/* A line is fixed fields, then at most one list, last, which takes the
 * rest of the line; the list's elements are fixed fields themselves.  The
 * walk finds the first part of an element type that breaks this. */
typedef struct TextShape {
	const char *list;       /* the list met so far, if any */
	const char *why;
	Node *at;               /* the field declaration to point at */
} TextShape;

static const char *part_name(const char *path)
{
	return *path ? format("'%s'", path) : "the element";
}

static void text_walk(TextShape *st, Type *t, const char *path, Node *decl)
{
	if (st->why)
		return;
	if (ty_nfields(t) >= 0) {
		if (st->list) {
			st->why = format("%s comes after the list '%s', which takes the rest of the line; "
			                 "put the list last", part_name(path), st->list);
			st->at = decl;
		}
		return;
	}
	switch (t->kind) {
	case TY_ARRAY:
		if (t->len > 1) {
			st->why = format("%s is an array of %lld lists ('%s'), but a line holds at most one "
			                 "list, which takes the rest of it", part_name(path), (long long)t->len,
			                 ty_str(t));
			st->at = decl;
			return;
		}
		text_walk(st, t->elem, path, decl);
		return;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			text_walk(st, f->ty, *path ? format("%s.%s", path, f->sym->name) : f->sym->name, f);
		return;
	case TY_LIST:
		if (st->list) {
			st->why = format("the lists '%s' and %s would both take the rest of the line; a line "
			                 "holds at most one list", st->list, part_name(path));
			st->at = decl;
		} else if (ty_nfields(t->elem) < 0) {
			st->why = format("%s is a list of '%s', which holds a list: the elements of a list are "
			                 "read as groups of fields from the rest of the line, so they cannot "
			                 "hold a list themselves", part_name(path), ty_str(t->elem));
			st->at = decl;
		}
		st->list = *path ? path : "element";
		return;
	default:
		return;
	}
}

/* load(...) and save(D, ...) of a dvector<t> must read back what they
 * write: any other element type is an error at `at`. */
static void check_text_shape(Node *at, const char *verb, Type *t)
{
	TextShape st = {0};
	text_walk(&st, t->elem, "", NULL);
	if (st.why)
		fail_note(at, format("cannot %s a '%s' as text: %s", verb, ty_str(t), st.why), st.at,
		          "declared here");
}

static void check_dvec_init(Node *d, Type *t)
{
	Node *in = d->init;
	if (d->size) {
		check_expr(d->size);
		if (!ty_is_int(d->size->ty))
			fail(d->size, "the size of a dvector must be an integer, not '%s'", ty_str(d->size->ty));
	}
	if (!in)
		return;
	if (in->kind == N_CALL) {
		const char *name = S(in->name);
		Builtin b = find_builtin(name);
		if (b == B_LOAD) {
			in->builtin = b;
			if (d->size)
				fail(d->size, "a dvector loaded from a file takes its size from the file");
			check_args_count(in, 1, "load");
			if (check_expr(in->args)->kind != TY_STRING)
				fail(in->args, "load needs a file name (string), not '%s'", ty_str(in->args->ty));
			check_text_shape(in, "load", t);
			in->ty = t;
			return;
		}
		if (b == B_KEYS || b == B_JOIN) {
			in->builtin = b;
			if (d->size)
				fail(d->size, "a dvector of keys takes its size from the map%s",
				     b == B_JOIN ? "s" : "");
			check_args_count(in, b == B_KEYS ? 1 : 2, name);
			Type *kt = NULL;
			for (Node *a = in->args; a; a = a->next) {
				if (!is_map(check_expr(a)) && in->made)
					fail(a, "an async for over keys needs a dmap, a dmultimap or join(a, b), not "
					     "'%s'%s", ty_str(a->ty), a->ty->kind == TY_DVEC ? "; over a dvector's "
					     "indices: async for (long i = 0; i < len(D); i++)" : "");
				if (!is_map(a->ty))
					fail(a, "%s needs a dmap or dmultimap, not '%s'", name, ty_str(a->ty));
				if (kt && kt != a->ty->key)
					fail(a, "join needs maps with one key type, not '%s' and '%s'",
					     ty_str(kt), ty_str(a->ty->key));
				kt = a->ty->key;
			}
			if (t->elem != kt)
				fail(d, "the keys are '%s', not '%s'", ty_str(kt), ty_str(t->elem));
			in->ty = t;
			return;
		}
		if (b == B_VOCAB) {
			in->builtin = b;
			if (d->size)
				fail(d->size, "a vocabulary takes its size from the map");
			check_args_count(in, 2, "vocab");
			Node *m = arg(in, 0), *min = arg(in, 1);
			Type *mt = check_expr(m);
			if (mt->kind != TY_DMAP || mt->key != ty_string || !ty_is_num(mt->elem))
				fail(m, "vocab needs a dmap<string, N> of counts (N a number type), not '%s'",
				     ty_str(mt));
			if (!ty_is_num(check_expr(min)))
				fail(min, "the minimum count must be a number, not '%s'", ty_str(min->ty));
			if (t->elem != ty_string)
				fail(d, "vocab gives the words, a 'dvector<string>', not '%s'", ty_str(t));
			in->ty = t;
			return;
		}
		if (b == B_UNIGRAM) {
			in->builtin = b;
			if (d->size)
				fail(d->size, "the size of a unigram table is its second argument");
			check_args_count(in, 3, "unigram");
			Node *c = arg(in, 0), *n = arg(in, 1), *pw = arg(in, 2);
			Type *ct = check_expr(c);
			if (ct->kind != TY_DVEC || !ty_is_num(ct->elem))
				fail(c, "unigram needs a dvector of counts (numbers), not '%s'", ty_str(ct));
			if (!ty_is_int(check_expr(n)))
				fail(n, "the size of the table must be an integer, not '%s'", ty_str(n->ty));
			if (!ty_is_num(check_expr(pw)))
				fail(pw, "the power must be a number, not '%s'", ty_str(pw->ty));
			if (t->elem != ty_int)
				fail(d, "unigram gives word numbers, a 'dvector<int>', not '%s'", ty_str(t));
			in->ty = t;
			return;
		}
		if (b == B_UNIFORM || b == B_NORMAL) {
			in->builtin = b;
			if (!d->size)
				fail(in, "%s(...) needs the dvector's size: dvector<T> %s(n) = %s(...);", name,
				     S(d->name), name);
			if (!ty_ncomp(t->elem))
				fail(in, "%s(...) fills float or double elements (or arrays of them), not '%s'",
				     name, ty_str(t->elem));
			check_args_count(in, 2, name);
			for (Node *a = in->args; a; a = a->next)
				if (!ty_is_num(check_expr(a)))
					fail(a, "%s needs numbers, not '%s'", name, ty_str(a->ty));
			in->ty = t;
			return;
		}
	}
	check_expr(in);
	if (!d->size)
		fail(in, "a dvector filled with a value needs its size: dvector<T> %s(n) = value;", S(d->name));
	if (!assignable(t->elem, in->ty) && (t->elem->kind == TY_ARRAY || t->elem->kind == TY_STRUCT) &&
	    ((in->kind == N_INT && in->ival == 0) || (in->kind == N_FLOAT && in->fval == 0)))
		fail(in, "cannot fill a '%s' with a number; a dvector created with a size starts "
		     "with all elements zero, so leave out the initialiser", ty_str(t));
	expect_assignable(in, t->elem, "cannot fill a '%s' with a value of type '%s'", ty_str(t),
	                  ty_str(in->ty));
}

static void check_var(Node *d)
{
	Type *t = resolve(d->ts);
	const char *name = S(d->name);
	if (t->kind == TY_VOID)
		fail(d, "variable '%s' declared void", name);
	if (d->vclass == V_PARAM) {
		if (!ty_is_scalar(t) && t->kind != TY_STRING)
			fail_ts(d->ts, "a param must be bool, int, long, float, double or string, not '%s'", ty_str(t));
		static const char *options[] = {"help", "seed", "threads", "stats", "locks"};
		static const char *reserved[] = {"resume", "record", "replay", "trace", "progress"};
		for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
			if (!strcmp(name, options[i]))
				fail(d, "'%s' cannot be a param: --%s is an option of every program", name, name);
		for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
			if (!strcmp(name, reserved[i]))
				fail(d, "'%s' cannot be a param: --%s is kept for an option of every program",
				     name, name);
		check_expr(d->init);
		if (!is_constant(d->init)) {
			Node *bad = non_constant_part(d->init);
			fail(bad ? bad : d->init, "the default of param '%s' must be a constant%s", name,
			     why_not_constant(d->init));
		}
		if (t->kind == TY_STRING ? d->init->ty->kind != TY_STRING : !assignable(t, d->init->ty) ||
		    (t->kind == TY_BOOL) != (d->init->ty->kind == TY_BOOL))
			fail(d->init, "cannot initialise param '%s' of type '%s' with a value of type '%s'", name,
			     ty_str(t), ty_str(d->init->ty));
		Sym *s = declare(d, name, SYM_VAR, t);
		s->vclass = V_PARAM;
		return;
	}
	if (ty_is_dds(t)) {
		if (ctx.func)
			fail(d, "%s '%s' declared in function '%s': DDSs live in driver code", ty_str(t), name,
			     S(ctx.func->name));
		if (ctx.loop)
			fail_note(d, format("%s '%s' declared in a loop body: DDSs live in driver code; declare it "
			                           "before the loop", ty_str(t), name),
			          ctx.loop, "the loop starts here");
		if (d->vclass == V_CONST)
			fail(d, "a DDS cannot be const");
		if (t->kind == TY_DVEC) {
			check_dvec_init(d, t);
		} else {
			if (d->size)
				fail(d->size, "only a dvector takes a size");
			if (d->init)
				fail(d->init, "a %s starts empty and takes no initialiser", ty_str(t));
		}
		declare(d, name, SYM_VAR, t);
		return;
	}
	if (d->size)
		fail(d->size, "only a dvector takes a size in parentheses");
	if (d->init) {
		check_expr(d->init);
		expect_assignable(d->init, t, "cannot initialise '%s' of type '%s' with a value of type '%s'",
		                  name, ty_str(t), ty_str(d->init->ty));
		if (t->kind == TY_BOOL && d->init->ty->kind != TY_BOOL)
			fail(d->init, "cannot initialise '%s' of type 'bool' with '%s'", name, ty_str(d->init->ty));
	}
	if (d->vclass == V_CONST) {
		if (!ty_is_scalar(t) && t->kind != TY_STRING)
			fail_ts(d->ts, "a const must be a scalar or a string, not '%s'", ty_str(t));
		if (!d->init)
			fail(d, "const '%s' needs a value", name);
		if (!is_constant(d->init)) {
			Node *bad = non_constant_part(d->init);
			fail(bad ? bad : d->init, "the value of const '%s' must be a constant expression%s", name,
			     why_not_constant(d->init));
		}
	}
	Sym *s = declare(d, name, SYM_VAR, t);
	s->vclass = d->vclass;
	if (d->keys_of) {
		s->keys_of = d->keys_of;
		s->readonly = true;
	}
	if (d->vclass == V_CONST && ty_is_int(t) && const_int(d->init, &s->cval))
		s->has_cval = true;
}

static void check_assign_bool(Node *at, Type *to, Node *e)
{
	if ((to->kind == TY_BOOL) != (e->ty->kind == TY_BOOL) && ty_is_scalar(to))
		fail(at, "cannot assign '%s' to '%s'", ty_str(e->ty), ty_str(to));
}

/* ---- parallel loops ---- */

#define ASYNC_SHAPE "'async for (long i = start; i < end; i++)'"
static const char *async_form = "an async for has the form " ASYNC_SHAPE;

/* The variable a reduce or accumulate clause names. */
static Sym *clause_var(Node *v, const char *clause, const char *what, const char *hint)
{
	const char *name = S(v->name);
	Sym *s = lookup(name);
	if (!s || s->kind != SYM_VAR) {
		const char *sg = suggest(name);
		if (sg)
			fail(v, "%s names an undefined %s '%s'; did you mean '%s'?", clause, what, name, sg);
		fail(v, "%s names an undefined %s '%s'%s", clause, what, name, hint);
	}
	v->sym = s;
	return s;
}

/* accumulate(+: X, ...): DDSs whose updates commute; relaxed(+: X, ...)
 * the same, and the body may read them, one round stale. */
static void check_accum(Node *loop, Node *r)
{
	LoopInfo *li = loop->li;
	bool relaxed = r->kind == N_RELAX;
	const char *cl = relaxed ? "relaxed" : "accumulate";
	if (loop->kind != N_ASYNC)
		fail(r, "%s is for async for; a sync for merges its updates already "
		     "(by averaging, or as its DDSs declare)", cl);
	if (r->op != TK_PLUS)
		fail(r, "%s(%s: ...): only '+' is supported; the body adds to the elements with += or -=",
		     cl, S(r->name));
	for (Node *v = r->lhs; v; v = v->next) {
		const char *name = S(v->name);
		Sym *s = clause_var(v, cl, "DDS", "");
		Type *t = s->ty;
		if (t->kind != TY_DVEC && t->kind != TY_DMAP)
			fail_note(v, format("%s needs a dvector%s, and '%s' is a '%s'", cl,
			                    relaxed ? "" : " or dmap", name, ty_str(t)), s->decl,
			          ty_is_dds(t) ? "declared here; a dmultimap keeps every value, so use insert"
			                       : "declared here; for a driver variable, use reduce(+: ...)");
		/* Every worker would read a whole copy of a map, whose keys
		 * the workers' inserts would make differ. */
		if (relaxed && t->kind == TY_DMAP)
			fail_note(v, format("relaxed needs a dvector, and '%s' is a '%s'", name, ty_str(t)),
			          s->decl, "declared here; accumulate(+: ...) takes a dmap, but then the "
			                   "body cannot read it");
		if (!ty_is_numeric(t->elem))
			fail_note(v, format("%s needs elements that are numbers, or arrays or structs of numbers, and '%s' holds '%s'",
			                    cl, name, ty_str(t->elem)), s->decl, "declared here");
		for (int i = 0; i < li->accum_syms.n; i++)
			if (li->accum_syms.v[i] == s)
				fail(v, "'%s' appears twice in the accumulate%s clauses", name,
				     relaxed ? " and relaxed" : "");
		for (int i = 0; i < li->relax_syms.n; i++)
			if (li->relax_syms.v[i] == s)
				fail(v, "'%s' appears twice in the %srelaxed clauses", name,
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
			const char *name = S(v->name);
			Sym *s = clause_var(v, "reduce", "variable", "; declare it before the loop");
			if (loop->kind == N_ASYNC && loop->init->sym == s)
				fail(v, "cannot reduce into the loop variable '%s'", name);
			if (s->vclass == V_CONST || s->vclass == V_PARAM)
				fail_note(v, format("cannot reduce into %s '%s': it cannot be assigned",
				                    s->vclass == V_CONST ? "const" : "param", name), s->decl,
				          format("declared here; reduce into a variable, as in: %s sum = %s;",
				                 ty_str(s->ty), name));
			Type *t = s->ty;
			const char *op = S(r->name);
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
				Sym *f = lookup(op);
				if (!f || f->kind != SYM_FUNC) {
					static const char *words[][2] = {
						{"sum", "+"}, {"add", "+"}, {"plus", "+"}, {"prod", "*"}, {"product", "*"},
						{"mul", "*"}, {"times", "*"}, {"and", "&&"}, {"all", "&&"}, {"or", "||"},
						{"any", "||"}, {"maximum", "max"}, {"minimum", "min"},
					};
					Buf names = {0};
					for (Node *x = r->lhs; x; x = x->next)
						buf_printf(&names, "%s%s", x == r->lhs ? "" : ", ", S(x->name));
					for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
						if (!strcmp(op, words[i][0]))
							fail(r, "unknown reduction '%s'; did you mean reduce(%s: %s)?", op,
							     words[i][1], names.s);
					fail(r, "unknown reduction '%s': use +, *, min, max, &&, ||, &, |, ^ or a function", op);
				}
				Node *p1 = f->decl->args, *p2 = p1 ? p1->next : NULL;
				if (!p2 || p2->next || p1->sym->ty != t || p2->sym->ty != t || f->ty != t)
					fail_note(r, format("reduction function '%s' must take two '%s' and return '%s'",
					                    op, ty_str(t), ty_str(t)), f->decl, "declared here");
				r->sym = f;
				f->used = true;
				ok = true;
			}
			if (!ok)
				fail(v, "reduce(%s) cannot combine '%s' of type '%s'%s", op, name, ty_str(t),
				     ty_is_numeric(t) && !ty_is_num(t) ? "; arrays and structs of numbers "
				     "combine with +, *, min, max or a function" : "");
			if (is_reduce_var(loop, s))
				fail(v, "'%s' appears twice in the reduce clauses", name);
			vec_push(&li->reduce_syms, s);
			vec_push(&li->reduce_ops, r);
		}
	}
}

static void enter_parallel(Node *loop)
{
	if (ctx.func)
		fail(loop, "%s in function '%s': parallel loops may appear only in driver code; use a plain "
		     "for loop here", loopword(loop), S(ctx.func->name));
	if (ctx.loop)
		fail_note(loop, format("%s inside %s body: parallel loops cannot be nested", loopword(loop),
		                       a_loop(ctx.loop)),
		          ctx.loop, "the enclosing parallel loop is here; make one of the two a plain for loop");
	loop->li = xcalloc(1, sizeof *loop->li);
	loop->li->id = ++prog->nloops;
	vec_push(&prog->loops, loop);
}

static bool is_var(Node *e, Sym *s)
{
	return e && e->kind == N_NAME && e->sym == s;
}

static void check_async(Node *loop)
{
	enter_parallel(loop);
	Node *init = loop->init;
	if (!init || init->kind != N_VAR)
		fail(init ? start_of(init->lhs) : loop, "an async for must declare its loop variable: "
		     ASYNC_SHAPE);
	open_scope();
	check_var(init);
	Sym *iv = init->sym;
	if (!ty_is_int(iv->ty))
		fail(init, "the variable of an async for must be int or long, not '%s'", ty_str(iv->ty));
	if (!init->init)
		fail(init, "%s", async_form);
	Node *c = loop->cond;
	if (!c)
		fail(loop, "%s: the condition is missing", async_form);
	check_expr(c);
	if (c->kind == N_BINARY && c->op == TK_LE && is_var(c->lhs, iv))
		fail(c, "the condition of an async for must be '%s < end'; for '%s <= n', write '%s < n + 1'",
		     iv->name, iv->name, iv->name);
	if (c->kind != N_BINARY || c->op != TK_LT || !is_var(c->lhs, iv))
		fail(c, "the condition of an async for must be '%s < end'", iv->name);
	Node *s = loop->step;
	if (!s)
		fail(loop, "%s: the step is missing", async_form);
	check_expr(s);
	int64_t one;
	bool ok = (s->kind == N_INCDEC && s->op == TK_INC && is_var(s->lhs, iv)) ||
	          (s->kind == N_ASSIGN && s->op == TK_PLUS && is_var(s->lhs, iv) &&
	           const_int(s->rhs, &one) && one == 1);
	int64_t k;
	if (!ok && s->kind == N_ASSIGN && s->op == TK_PLUS && is_var(s->lhs, iv) && const_int(s->rhs, &k) &&
	    k > 1)
		fail(s, "the step of an async for must be '%s++'; to step by %lld, loop over the steps, "
		     "'k < (end - start + %lld) / %lld', and use 'start + %lld * k' as the index", iv->name,
		     (long long)k, (long long)k - 1, (long long)k, (long long)k);
	if (!ok)
		fail(s, "the step of an async for must be '%s++': iterations are the integers from start to end",
		     iv->name);
	check_reduce(loop);
	Ctx saved = ctx;
	ctx.loop = loop;
	ctx.seqloops = 0;
	iv->loop = loop;
	iv->is_driver = false;
	check_stmt(loop->body);
	ctx = saved;
	close_scope();
}

/* merge(D) = avg | sum | f, f taking (S old, S total, long workers) to
 * S for D's scalar type S. */
static void check_merge(Node *loop, Node *w)
{
	LoopInfo *li = loop->li;
	if (!w->rhs || !w->lhs || w->lhs->kind != N_NAME)
		fail(w, "write merge(D) = avg, merge(D) = sum or merge(D) = f, D a dvector the body writes");
	Type *t = check_expr(w->lhs);
	Sym *d = w->lhs->sym;
	if (t->kind != TY_DVEC || !ty_is_numeric(t->elem))
		fail(w->lhs, "merge() takes a dvector of numbers, or of arrays or structs of numbers, not '%s'", ty_str(t));
	for (int i = 0; i < li->merge_dds.n; i++)
		if (li->merge_dds.v[i] == d)
			fail(w, "the merge of '%s' is given twice", d->name);
	Node *h = w->rhs;
	if (h->kind != N_NAME)
		fail(h, "a merge is avg, sum or the name of a function");
	const char *f = S(h->name);
	if (strcmp(f, "avg") && strcmp(f, "sum")) {
		Sym *fn = lookup(f);
		if (!fn || fn->kind != SYM_FUNC) {
			if (!strcmp(f, "mean") || !strcmp(f, "average") || !strcmp(f, "add") || !strcmp(f, "plus"))
				fail(h, "unknown merge '%s'; did you mean merge(%s) = %s?", f, d->name,
				     f[0] == 'm' || f[1] == 'v' ? "avg" : "sum");
			fail(h, "unknown merge '%s': use avg, sum or a function", f);
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
			fail_note(h, format("merge function '%s' must take '%s old, %s total, long workers' "
			                    "and return '%s'%s", f, ty_str(sc), ty_str(sc), ty_str(sc),
			                    sc != et && et->kind == TY_STRUCT ?
			                    format(" (or '%s' for each element)", ty_str(et)) : ""),
			          fn->decl, "declared here");
		if (fn->does_io)
			fail(h, "merge function '%s' does I/O", f);
		h->sym = fn;
		fn->used = true;
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
		const char *n = S(w->name);
		if (!strcmp(n, "bsp") || !strcmp(n, "hybrid") || !strcmp(n, "ssp")) {
			if (have_model)
				fail(w, "the sync model is given twice (choose one of bsp, ssp(s), hybrid)");
			have_model = true;
			if (!strcmp(n, "ssp")) {
				if (!w->lhs || w->postfix)
					fail(w, "ssp needs its staleness bound: ssp(s)");
				if (!ty_is_int(check_expr(w->lhs)))
					fail(w->lhs, "the staleness of ssp must be an integer");
				li->model = 1;
				li->staleness = w->lhs;
			} else {
				if (w->lhs)
					fail(w, "%s takes no argument", n);
				li->model = !strcmp(n, "bsp") ? 0 : 2;
			}
		} else if (!strcmp(n, "batch")) {
			if (!w->postfix)
				fail(w, "write the mini-batch size as batch = M");
			if (have_batch)
				fail(w, "batch is given twice");
			have_batch = true;
			if (!ty_is_int(check_expr(w->lhs)))
				fail(w->lhs, "batch must be an integer, not '%s'", ty_str(w->lhs->ty));
			li->batch = w->lhs;
		} else if (!strcmp(n, "recon")) {
			if (!w->postfix || w->lhs->kind != N_NAME)
				fail(w, "write recon = on or recon = off");
			const char *v = S(w->lhs->name);
			if (strcmp(v, "on") && strcmp(v, "off"))
				fail(w->lhs, "recon is on or off, not '%s'", v);
			if (have_recon)
				fail(w, "recon is given twice");
			have_recon = true;
			li->recon = !strcmp(v, "on");
		} else if (!strcmp(n, "merge")) {
			check_merge(loop, w);
		} else {
			fail(w, "unknown sync for option '%s' (expected bsp, ssp(s), hybrid, batch = M, recon = on|off, "
			     "merge(D) = avg|sum|f)", n);
		}
	}
	/* The with clause always has an item: the grammar requires one. */
	if (!have_model)
		fail(loop->clauses, "sync for needs a model in its with clause: bsp, ssp(s) or hybrid");
	if (!have_batch)
		fail(loop->clauses, "sync for needs a mini-batch size in its with clause: batch = M");
}

static void check_sync(Node *loop)
{
	enter_parallel(loop);
	Type *d = check_expr(loop->lhs);
	if (d->kind != TY_DVEC)
		fail(loop->lhs, "sync for iterates over a dvector, not '%s'%s", ty_str(d),
		     d->kind == TY_LIST || d->kind == TY_ARRAY ? "; use a plain for loop" : "");
	check_with(loop);
	open_scope();
	Node *v = loop->init;
	Type *t = resolve(v->ts);
	/* list<T> b: the body runs once per mini-batch, with its elements. */
	loop->li->batched = t->kind == TY_LIST && t->elem == d->elem;
	if (t != d->elem && !loop->li->batched)
		fail(v, "the element variable has type '%s', but the dvector holds '%s'; declare it as "
		     "'%s %s', or as 'list<%s> %s' to run the body once per mini-batch", ty_str(t),
		     ty_str(d->elem), ty_str(d->elem), S(v->name), ty_str(d->elem), S(v->name));
	check_reduce(loop);
	Ctx saved = ctx;
	ctx.loop = loop;
	ctx.seqloops = 0;
	Sym *s = declare(v, S(v->name), SYM_VAR, t);
	s->readonly = true;
	check_stmt(loop->body);
	ctx = saved;
	close_scope();
}

/* ---- statements ---- */

static void check_stmt(Node *s)
{
	s->loop = ctx.loop;
	switch (s->kind) {
	case N_BLOCK:
		open_scope();
		for (Node *n = s->args; n; n = n->next)
			check_stmt(n);
		close_scope();
		return;
	case N_VAR:
		check_var(s);
		if (s->init && s->vclass != V_PARAM && !ty_is_dds(s->sym->ty))
			check_assign_bool(s->init, s->sym->ty, s->init);
		return;
	case N_EXPR:
		check_expr(s->lhs);
		if (s->lhs->kind == N_ASSIGN && s->lhs->op == TK_ASSIGN)
			check_assign_bool(s->lhs, s->lhs->lhs->ty, s->lhs->rhs);
		return;
	case N_EMPTY:
		return;
	case N_IF:
		check_cond(s->cond);
		check_stmt(s->then);
		if (s->els)
			check_stmt(s->els);
		return;
	case N_WHILE:
	case N_DO:
		check_cond(s->cond);
		ctx.seqloops++;
		check_stmt(s->body);
		ctx.seqloops--;
		return;
	case N_FOR:
		open_scope();
		if (s->init)
			check_stmt(s->init);
		if (s->cond)
			check_cond(s->cond);
		if (s->step)
			check_expr(s->step);
		ctx.seqloops++;
		check_stmt(s->body);
		ctx.seqloops--;
		close_scope();
		return;
	case N_BREAK:
	case N_CONTINUE: {
		const char *w = s->kind == N_BREAK ? "break" : "continue";
		if (ctx.seqloops == 0) {
			if (ctx.loop && s->kind == N_BREAK)
				fail_note(s, format("break cannot leave %s body", a_loop(ctx.loop)), ctx.loop,
				          "every iteration of a parallel loop runs; use continue to skip the rest of one");
			if (!ctx.loop)
				fail(s, "%s is not inside a loop", w);
		}
		return;
	}
	case N_RETURN:
		if (ctx.loop)
			fail_note(s, format("return is not allowed in %s body; use continue to end an iteration",
			                    a_loop(ctx.loop)), ctx.loop, "the loop starts here");
		if (!ctx.func)
			fail(s, "return outside a function");
		{
			Type *rt = ctx.func->sym->ty;
			if (!s->lhs) {
				if (rt->kind != TY_VOID)
					fail(s, "function '%s' must return a '%s'", S(ctx.func->name), ty_str(rt));
				return;
			}
			check_expr(s->lhs);
			if (rt->kind == TY_VOID)
				fail(s->lhs, "function '%s' returns void; it cannot return a value", S(ctx.func->name));
			expect_assignable(s->lhs, rt, "function '%s' returns '%s', not '%s'", S(ctx.func->name),
			                  ty_str(rt), ty_str(s->lhs->ty));
			check_assign_bool(s->lhs, rt, s->lhs);
		}
		return;
	case N_ASYNC:
		check_async(s);
		return;
	case N_SYNC:
		check_sync(s);
		return;
	default:
		fail(s, "not a statement");
	}
}

/* ---- functions and the program ---- */

static bool always_returns(Node *s)
{
	if (!s)
		return false;
	switch (s->kind) {
	case N_RETURN:
		return true;
	case N_BLOCK:
		for (Node *n = s->args; n; n = n->next)
			if (always_returns(n))
				return true;
		return false;
	case N_IF:
		return s->els && always_returns(s->then) && always_returns(s->els);
	default:
		return false;
	}
}

static void declare_func(Node *f)
{
	const char *name = S(f->name);
	if (find_builtin(name))
		fail(f, "'%s' is a built-in function and cannot be redefined", name);
	Sym *o = map_get(&fnames, name);
	if (o)
		fail_note(f, format("redefinition of function '%s'", name), o->decl, "first defined here");
	Type *rt = resolve(f->ts);
	if (ty_is_dds(rt) || (f->kind == N_EXTERN && !ty_is_scalar(rt) && rt->kind != TY_VOID &&
	                      rt->kind != TY_STRING))
		fail_ts(f->ts, "a function cannot return '%s'", ty_str(rt));
	Sym *s = xcalloc(1, sizeof *s);
	s->kind = SYM_FUNC;
	s->name = name;
	s->ty = rt;
	s->decl = f;
	s->is_extern = f->kind == N_EXTERN;
	s->cname = s->is_extern ? xstrdup(name) : format("u_%s", name);
	f->sym = s;
	vec_push(&funcs, s);
	map_put(&fnames, name, s);
	/* Parameter types, so calls before the definition can be checked. */
	for (Node *p = f->args; p; p = p->next) {
		Type *t = resolve(p->ts);
		if (t->kind == TY_VOID)
			fail(p, "parameter '%s' declared void", S(p->name));
		if (ty_is_dds(t))
			fail(p, "a function cannot take a %s; DDSs are used in driver code and loop bodies",
			     ty_str(t));
		if (s->is_extern && !ty_is_scalar(t) && t->kind != TY_STRING && !ty_is_numarray(t))
			fail(p, "an extern function takes scalars, strings and numeric arrays, not '%s'", ty_str(t));
		Sym *ps = xcalloc(1, sizeof *ps);
		ps->kind = SYM_VAR;
		ps->name = S(p->name);
		ps->ty = t;
		ps->decl = p;
		ps->vclass = V_ARG;
		ps->in_func = true;
		ps->readonly = ty_needs_drop(t);
		ps->cname = format("u_%s", ps->name);
		p->sym = ps;
	}
}

static void check_func(Node *f)
{
	if (f->kind == N_EXTERN)
		return;
	Ctx saved = ctx;
	ctx.func = f;
	ctx.loop = NULL;
	ctx.seqloops = 0;
	open_scope();
	for (Node *p = f->args; p; p = p->next) {
		if (in_this_scope(p->sym->name))
			fail(p, "duplicate parameter '%s'", p->sym->name);
		scope_push(p->sym);
	}
	check_stmt(f->body);
	if (f->sym->ty->kind != TY_VOID && !always_returns(f->body))
		fail(f, "function '%s' can end without returning a value", S(f->name));
	close_scope();
	ctx = saved;
}

/* How deeply structs nest in a type: a struct's fields' types are
 * walked recursively by every later pass. */
static int64_t struct_depth(Type *t)
{
	switch (t->kind) {
	case TY_STRUCT:
		return t->sdecl->ival;
	case TY_ARRAY: case TY_LIST: case TY_DVEC:
		return struct_depth(t->elem);
	case TY_DMAP: case TY_DMMAP: {
		int64_t a = struct_depth(t->key), b = struct_depth(t->elem);
		return a > b ? a : b;
	}
	default:
		return 0;
	}
}

static void check_struct(Node *sd)
{
	const char *name = S(sd->name);
	Node *o = map_get(&snames, name);
	if (o)
		fail_note(sd, format("redefinition of struct '%s'", name), o, "first defined here");
	if (!sd->args)
		fail(sd, "struct '%s' has no fields", name);
	sd->ival = 1;           /* N_STRUCT: how deeply structs nest in it */
	Map fields = {0};
	for (Node *f = sd->args; f; f = f->next) {
		Type *t = resolve(f->ts);
		if (t->kind == TY_VOID)
			fail(f, "field '%s' declared void", S(f->name));
		if (ty_is_dds(t))
			fail(f, "a struct cannot hold a '%s': a DDS cannot be inside another data structure; "
			     "declare it as a variable of its own", ty_str(t));
		Sym *s = xcalloc(1, sizeof *s);
		s->name = S(f->name);
		Node *g = map_get(&fields, s->name);
		if (g)
			fail_note(f, format("duplicate field '%s'", s->name), g, "first declared here");
		map_put(&fields, s->name, f);
		if (struct_depth(t) >= sd->ival)
			sd->ival = struct_depth(t) + 1;
		if (sd->ival > AST_MAX_DEPTH)
			fail(f, "structs nested too deeply: more than %d levels", AST_MAX_DEPTH);
		f->ty = t;
		s->ty = t;
		s->cname = format("u_%s", s->name);
		f->sym = s;
	}
	vec_push(&prog->structs, sd);
	map_put(&snames, name, sd);
}

/* Functions inherit I/O and randomness from the functions they call. */
static void propagate(void)
{
	/* Worklists over the call graph, not passes until nothing changes:
	 * a chain of n calls took n passes over every call. */
	int n = funcs.n;
	Map index = {0};
	for (int i = 0; i < n; i++)
		map_put(&index, ((Sym *)funcs.v[i])->name, (void *)(intptr_t)(i + 1));
	Vec *callers = xcalloc((size_t)n + 1, sizeof *callers);   /* by callee: caller, call */
	Vec work = {0};
	for (int i = 0; i < n; i++) {
		Sym *f = funcs.v[i];
		for (int j = 0; j < f->calls.n; j++) {
			Node *c = f->calls.v[j];
			int g = (int)(intptr_t)map_get(&index, c->sym->name) - 1;
			if (g < 0)
				continue;
			vec_push(&callers[g], f);
			vec_push(&callers[g], c);
		}
	}
	/* I/O and randomness go from callee to caller. */
	for (int what = 0; what < 2; what++) {
		work.n = 0;
		for (int i = 0; i < n; i++) {
			Sym *f = funcs.v[i];
			if (what ? f->uses_rng : f->does_io)
				vec_push(&work, (void *)(intptr_t)i);
		}
		while (work.n > 0) {
			int g = (int)(intptr_t)work.v[--work.n];
			for (int j = 0; j < callers[g].n; j += 2) {
				Sym *f = callers[g].v[j];
				if (what ? f->uses_rng : f->does_io)
					continue;
				if (what) {
					f->uses_rng = true;
				} else {
					f->does_io = true;
					f->io_site = callers[g].v[j + 1];
				}
				vec_push(&work, (void *)((intptr_t)map_get(&index, f->name) - 1));
			}
		}
	}
	/* Use goes from caller to callee. */
	work.n = 0;
	for (int i = 0; i < n; i++)
		if (((Sym *)funcs.v[i])->used)
			vec_push(&work, funcs.v[i]);
	while (work.n > 0) {
		Sym *f = work.v[--work.n];
		for (int j = 0; j < f->calls.n; j++) {
			Sym *g = ((Node *)f->calls.v[j])->sym;
			if (!g->used) {
				g->used = true;
				vec_push(&work, g);
			}
		}
	}
	for (int i = 0; i < loop_calls.n; i++) {
		Node *c = loop_calls.v[i], *loop = loop_of_call.v[i];
		Sym *g = c->sym;
		if (g->does_io)
			fail_note(c, format("'%s' does I/O, which is not allowed in %s body", g->name,
			                    a_loop(loop)), g->io_site, "the I/O happens here");
		if (g->uses_rng)
			loop->li->uses_rng = true;
	}
}

void sema_driver_vars(Vec *out)
{
	for (int i = 0; i < driver_syms.n; i++) {
		Sym *s = driver_syms.v[i];
		if (s->is_driver)
			vec_push(out, s);
	}
}

bool sema_program(Program *p)
{
	prog = p;
	memset(&ctx, 0, sizeof ctx);
	/* Zeroed, not just emptied: between two programs in one process
	 * xfree_all() frees what the vectors held. */
	Vec *vecs[] = {&scope, &marks, &funcs, &loop_calls, &loop_of_call, &driver_names, &driver_syms};
	for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
		*vecs[i] = (Vec){0};
	names = fnames = driver_set = snames = (Map){0};
	uniq = 0;
	if (setjmp(fail_jmp))
		return false;
	/* Consts and structs first, in source order (a struct's array sizes may
	 * name consts), then function signatures, so any function can call any
	 * other. */
	for (Node *n = p->items; n; n = n->next) {
		if (n->kind == N_STRUCT)
			check_struct(n);
		else if (n->kind == N_VAR && n->vclass == V_CONST)
			check_stmt(n);
	}
	for (Node *n = p->items; n; n = n->next)
		if (n->kind == N_FUNC || n->kind == N_EXTERN)
			declare_func(n);
	for (Node *n = p->items; n; n = n->next) {
		if (n->kind == N_STRUCT)
			continue;
		if (n->kind == N_FUNC || n->kind == N_EXTERN) {
			check_func(n);
			continue;
		}
		if (!(n->kind == N_VAR && n->vclass == V_CONST))
			check_stmt(n);
		if (n->kind == N_VAR)
			vec_push(&p->globals, n->sym);
	}
	propagate();
	return true;
}
