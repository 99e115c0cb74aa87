/* sema.c: name resolution, types, and the rules of parallel loops.
 * The first error ends the pass (longjmp back to sema_program), so a
 * mistake is reported once and never cascades.
 *
 * This file holds the scopes, types as written, declarations, the text
 * form of load and save, statements, functions and the program;
 * sema_expr.c checks expressions and calls of builtins, sema_loop.c the
 * rules of async and sync for.  They share the pass's state (sema_ctx,
 * the failure functions) through sapc.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

Program *sema_prog;
static jmp_buf fail_jmp;
Ctx sema_ctx;
static Vec scope;               /* Sym * visible, innermost last */
static Vec marks;               /* scope starts (int) */
static Vec variables;           /* Sym * of every variable declaration, in order */
Vec sema_funcs;                 /* Sym * of functions */
Vec sema_loop_calls;            /* calls in loop bodies: Node *, checked at the end */
Vec sema_loop_of_call;
Vec sema_same_calls;
Vec sema_draw_exprs;
Node *sema_const_decl;
Vec sema_hooks;                 /* merge and reduction functions' sites, checked at the end */
static Vec driver_names;        /* C names taken by driver statics */
/* For lookups in constant time: the innermost visible symbol of each name
 * (each hides the one before it in Sym.hidden), functions by name, and
 * driver_names as a set. */
static Map names, fnames, driver_set, snames, loop_names;
static Vec driver_syms;
static int uniq;

const char *sema_S(Tok t) { return format("%.*s", t.len, t.p); }

_Noreturn void sema_fail(Node *at, const char *fmt, ...)
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
_Noreturn void sema_fail_note(Node *at, const char *msg, Node *nat, const char *nmsg)
{
	diag_error(at->file, at->off, "%s", msg);
	if (nat)
		diag_note(nat->file, nat->off, "%s", nmsg);
	longjmp(fail_jmp, 1);
}

/* The most bytes of a fixed array or a struct (sema_resolve). */
#define FIXED_MAX (((int64_t)1 << 31) - 1)

/* ---- scopes ---- */

void sema_open_scope(void) { vec_push(&marks, (void *)(intptr_t)scope.n); }

void sema_close_scope(void)
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

Sym *sema_lookup(const char *name)
{
	Sym *s = map_get(&names, name);
	return s ? s : map_get(&fnames, name);
}

Sym *sema_lookup_func(const char *name) { return map_get(&fnames, name); }

void sema_consider(const char *name, const char *cand, const char **best, int *bd)
{
	int d = diag_distance(name, cand);
	if (d < *bd && d < (int)strlen(name)) {
		*bd = d;
		*best = cand;
	}
}

/* A visible variable whose name is close to `name`, for "did you mean". */
const char *sema_suggest(const char *name)
{
	const char *best = NULL;
	int bd = 3;
	for (int i = scope.n - 1; i >= 0; i--) {
		Sym *s = scope.v[i];
		/* Functions see only their parameters, consts and params. */
		if (sema_ctx.func && !s->in_func && s->vclass != V_CONST && s->vclass != V_PARAM)
			continue;
		sema_consider(name, s->name, &best, &bd);
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

Sym *sema_declare(Node *decl, const char *name, SymKind k, Type *ty)
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
	s->loop = sema_ctx.loop;
	s->in_func = sema_ctx.func != NULL;
	s->is_driver = !sema_ctx.func && !sema_ctx.loop;
	s->once = s->is_driver && !sema_ctx.seqloops;
	Sym *outer = sema_lookup(name);
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
	} else if (!made && (outer || (s->loop && map_get(&loop_names, format("%p %s", (void *)s->loop, c))))) {
		c = format("u_%s_%d", name, ++uniq);
	}
	/* The locals of a parallel loop's body get names of their own, also
	 * in sibling blocks: its reconnaissance slice declares them in one
	 * scope. */
	if (s->loop)
		map_put(&loop_names, format("%p %s", (void *)s->loop, c), s);
	s->cname = c;
	scope_push(s);
	decl->sym = s;
	if (decl->kind == N_VAR && k == SYM_VAR && !made)
		vec_push(&variables, s);
	return s;
}

/* ---- types as written ---- */


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

/* The value of an integer constant expression (folded by sema_check_expr). */
bool sema_const_int(Node *e, int64_t *v)
{
	if (!e->has_cval)
		return false;
	*v = e->cval;
	return true;
}

/* A floating constant as written: a literal, maybe with a sign, or a
 * floating const (whose value float f = D must keep as float f = 1e39
 * must). */
static bool const_float(Node *e, double *v)
{
	if (e->kind == N_FLOAT) {
		*v = e->fval;
		return true;
	}
	if (e->kind == N_NAME && e->sym && e->sym->vclass == V_CONST && ty_is_float(e->sym->ty) &&
	    e->sym->decl->init)
		return const_float(e->sym->decl->init, v);
	if (e->kind == N_UNARY && (e->op == TK_MINUS || e->op == TK_PLUS) && const_float(e->lhs, v)) {
		if (e->op == TK_MINUS)
			*v = -*v;
		return true;
	}
	return false;
}

/* The fewest digits that give d back (2.9, not 2.8999999999999999). */
static const char *shortest(double d)
{
	for (int prec = 1; prec < 17; prec++) {
		const char *s = format("%.*g", prec, d);
		if (strtod(s, NULL) == d)
			return s;
	}
	return format("%.17g", d);
}

/* The value of a floating constant expression (is_constant), as C
 * computes it: each float-typed step rounded to float. */
static bool fold_float(Node *e, double *v)
{
	double a, b;
	switch (e->kind) {
	case N_FLOAT:
		*v = e->fval;
		break;
	case N_INT:
		*v = (double)e->ival;
		break;
	case N_NAME:
		if (!e->sym || e->sym->vclass != V_CONST || !e->sym->decl->init)
			return false;
		if (e->sym->has_cval)
			*v = (double)e->sym->cval;
		else if (!fold_float(e->sym->decl->init, v))
			return false;
		break;
	case N_CONV:
		/* To an integer, the value sema_fold found (truncated), or
		 * none: int(2.7) + 0.5 is 2.5, not 3.2. */
		if (e->has_cval)
			*v = (double)e->cval;
		else if ((e->ty && ty_is_int(e->ty)) || !fold_float(e->lhs, v))
			return false;
		break;
	case N_UNARY:
		if ((e->op != TK_MINUS && e->op != TK_PLUS) || !fold_float(e->lhs, v))
			return false;
		if (e->op == TK_MINUS)
			*v = -*v;
		break;
	case N_COND: {
		bool c;
		if (e->has_cval)
			*v = (double)e->cval;
		else if (!sema_const_bool(e->cond, &c) || !fold_float(c ? e->then : e->els, v))
			return false;
		break;
	}
	case N_BINARY:
		if (e->has_cval) {
			*v = (double)e->cval;
			break;
		}
		if (!fold_float(e->lhs, &a) || !fold_float(e->rhs, &b))
			return false;
		switch (e->op) {
		case TK_PLUS: *v = a + b; break;
		case TK_MINUS: *v = a - b; break;
		case TK_STAR: *v = a * b; break;
		case TK_SLASH: *v = a / b; break;
		default: return false;
		}
		break;
	default:
		return false;
	}
	if (e->ty && e->ty->kind == TY_FLOAT)
		*v = (float)*v;
	return true;
}

static int64_t int_min(Type *t) { return t->kind == TY_INT ? INT32_MIN : INT64_MIN; }
static int64_t int_max(Type *t) { return t->kind == TY_INT ? INT32_MAX : INT64_MAX; }

/* An integer constant, or a bool one, which % & | ^ << >> count as 0
 * or 1 (1 << true). */
static bool const_operand(Node *e, int64_t *v)
{
	if (sema_const_int(e, v))
		return true;
	if (!e->ty || e->ty->kind != TY_BOOL)
		return false;
	if (e->kind == N_BOOL) {
		*v = e->ival != 0;
		return true;
	}
	if (e->kind == N_NAME && e->sym && e->sym->vclass == V_CONST && e->sym->decl &&
	    e->sym->decl->init)
		return const_operand(e->sym->decl->init, v);
	return false;
}

/* Fold an integer expression just checked, in the width of its type, as
 * C would compute it.  Where C has no value (overflow, a division by zero,
 * a shift by a negative count or by the width or more), it is an error
 * here rather than a surprise in the generated program; the division and
 * the shift are errors with a constant right operand alone. */
int sema_dead;

/* Is e, a checked bool, a constant: true, false, a const bool, a
 * comparison of integer constants, or !, && and || of those? */
/* Comparison op of two values whose order is lt, eq or gt (none of the
 * three for a NaN: then only != holds). */
static bool compared(int op, bool lt, bool eq, bool gt, bool *v)
{
	switch (op) {
	case TK_LT: *v = lt; return true;
	case TK_LE: *v = lt || eq; return true;
	case TK_GT: *v = gt; return true;
	case TK_GE: *v = gt || eq; return true;
	case TK_EQ: *v = eq; return true;
	case TK_NE: *v = !eq; return true;
	default: return false;
	}
}

bool sema_const_bool(Node *e, bool *v)
{
	bool a, b;
	switch (e->kind) {
	case N_BOOL:
		*v = e->ival != 0;
		return true;
	case N_NAME:
		return e->sym && e->sym->vclass == V_CONST && e->sym->decl && e->sym->decl->init &&
		       e->sym->ty && e->sym->ty->kind == TY_BOOL && sema_const_bool(e->sym->decl->init, v);
	case N_UNARY:
		if (e->op != TK_NOT || !sema_const_bool(e->lhs, &a))
			return false;
		*v = !a;
		return true;
	case N_COND:
		if (!sema_const_bool(e->cond, &a))
			return false;
		return sema_const_bool(a ? e->then : e->els, v);
	case N_BINARY:
		if (e->op == TK_ANDAND || e->op == TK_OROR) {
			if (!sema_const_bool(e->lhs, &a))
				return false;
			if (a == (e->op == TK_OROR)) {
				*v = a;
				return true;
			}
			return sema_const_bool(e->rhs, v);
		}
		/* (D == 0) == false */
		if ((e->op == TK_EQ || e->op == TK_NE) && e->lhs->ty && e->lhs->ty->kind == TY_BOOL &&
		    sema_const_bool(e->lhs, &a) && sema_const_bool(e->rhs, &b)) {
			*v = (a == b) == (e->op == TK_EQ);
			return true;
		}
		if (!e->lhs->has_cval || !e->rhs->has_cval) {
			/* 1.5 > 1, in doubles as C compares them. */
			double f, g;
			if (!e->lhs->ty || !e->rhs->ty ||
			    !(ty_is_float(e->lhs->ty) || ty_is_float(e->rhs->ty)) ||
			    !fold_float(e->lhs, &f) || !fold_float(e->rhs, &g))
				return false;
			return compared(e->op, f < g, f == g, f > g, v);
		}
		int64_t x = e->lhs->cval, y = e->rhs->cval;
		return compared(e->op, x < y, x == y, x > y, v);
	default:
		return false;
	}
}

void sema_fold(Node *e)
{
	Type *t = e->ty;
	e->has_cval = false;
	/* Code a constant condition leaves out (SHIFT > 0 ? 1 << (SHIFT - 1)
	 * : 0 with SHIFT 0, generic code over a const) is no error, as in
	 * C: it stays unfolded, and the runtime's checks would catch it if
	 * it ran. */
	if (sema_dead && (e->kind == N_BINARY || e->kind == N_ASSIGN)) {
		int64_t b;
		if ((e->op == TK_SLASH || e->op == TK_PERCENT || e->op == TK_SHL || e->op == TK_SHR) &&
		    const_operand(e->rhs, &b))
			return;
		if (e->op == TK_SHL && e->kind == N_BINARY && const_operand(e->lhs, &b) && b < 0)
			return;
	}
	/* Whole integer arrays divide element by element as integers do. */
	if (t && t->kind == TY_ARRAY && ty_is_int(t->elem) &&
	    (e->kind == N_BINARY || e->kind == N_ASSIGN) &&
	    (e->op == TK_SLASH || e->op == TK_PERCENT)) {
		int64_t b;
		if (sema_const_int(e->rhs, &b) && b == 0)
			sema_fail(e, "division by zero");
		return;
	}
	if (!t || !ty_is_int(t))
		return;
	int64_t lo = int_min(t), hi = int_max(t), a = 0, b = 0, v;
	bool ca = false, cb = false;
	if (e->kind == N_UNARY || e->kind == N_BINARY)
		ca = const_operand(e->lhs, &a);
	/* x / 0 and x <<= 40 as well as 1 / 0. */
	if (e->kind == N_BINARY || e->kind == N_ASSIGN) {
		cb = const_operand(e->rhs, &b);
		if ((e->op == TK_SLASH || e->op == TK_PERCENT) && cb && b == 0)
			sema_fail(e, "division by zero");
		if ((e->op == TK_SHL || e->op == TK_SHR) && cb && (b < 0 || b >= (t->kind == TY_INT ? 32 : 64)))
			sema_fail(e, "shift count %lld is %s", (long long)b, b < 0 ? "negative" :
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
	case N_COND: {
		bool c;
		Node *x = sema_const_bool(e->cond, &c) ? c ? e->then : e->els : NULL;
		if (!x || !x->has_cval)
			return;
		v = x->cval;
		break;
	}
	case N_CONV: {
		/* int(2.7) + 1 in a const is C's constant expression only
		 * folded: the checked conversion is a call.  Out of range it
		 * stays the call, which the runtime checks where it runs. */
		double f;
		if (const_operand(e->lhs, &v)) {
			if (v < lo || v > hi)
				return;
		} else if (e->lhs->ty && ty_is_float(e->lhs->ty) && fold_float(e->lhs, &f)) {
			if (!(f > (double)lo - 1 && f < (double)hi + 1.0))
				return;
			v = (int64_t)f;
		} else {
			return;
		}
		break;
	}
	case N_UNARY:
		if (!ca)
			return;
		if (e->op == TK_MINUS) {
			if (a == lo)
				sema_fail(e, "integer overflow in a constant expression: -(%lld) does not fit in '%s'",
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
				sema_fail(e, "left shift of the negative value %lld", (long long)a);
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
			sema_fail(e, "integer overflow in a constant expression: %lld %s %lld does not fit in '%s'%s",
			          (long long)a, ast_opname(e->op), (long long)b, ty_str(t),
			          e->op == TK_SHL && a == 1 && b == 63 && t->kind == TY_LONG ?
			          "; the sign bit alone is LONG_MIN" : "");
		break;
	}
	default:
		return;
	}
	e->has_cval = true;
	e->cval = v;
}


/* A whole number as its digits: 2^63 as %g, 9.22337e+18, reads as less
 * than a long's largest, which it is not. */
static char *exact_text(double x)
{
	return format(x == floor(x) && fabs(x) < 1e21 ? "%.0f" : "%.17g", x);
}

/* A constant stored where a `to` is expected must keep its value:
 * int x = 2147483648 is an error, as is float f = 1e39. */
void sema_check_constant_fits(Node *e, Type *to, bool implicit)
{
	int64_t v;
	double d;
	if (ty_is_int(to) && sema_const_int(e, &v) && (v < int_min(to) || v > int_max(to)))
		sema_fail(sema_start_of(e), "the constant %lld does not fit in '%s'", (long long)v, ty_str(to));
	/* Converting a floating value out of the target's range is undefined
	 * in C.  The conversion truncates, so the range is (min - 1, max + 1),
	 * as sap_f2i32 and sap_f2i64 test it at run time: for a long, with
	 * -2^63 itself, as -2^63 - 1 is no double (it rounds to -2^63). */
	if (ty_is_int(to) && const_float(e, &d) &&
	    !(to->kind == TY_INT ? d > -2147483649.0 && d < 2147483648.0 :
	      d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		sema_fail(sema_start_of(e), "the constant %s does not fit in '%s'", exact_text(d),
		          ty_str(to));
	/* Valid, and C's, but `int p = 1.5` is seldom meant as 1. */
	if (implicit && ty_is_int(to) && const_float(e, &d) && (double)(int64_t)d != d) {
		Node *at = sema_start_of(e);
		diag_warning(at->file, at->off, "literal-conversion",
		             "the constant %s converted to '%s' becomes %lld; write %s(...) if that "
		             "is meant", shortest(d), ty_str(to), (long long)(int64_t)d, ty_str(to));
	}
	/* Not d > FLT_MAX: a double up to half a float ulp above FLT_MAX
	 * still rounds to it; from there (a tie too, FLT_MAX's significand
	 * being odd) it is inf. */
	if (to->kind == TY_FLOAT && const_float(e, &d) && (d >= 0x1.ffffffp127 || d <= -0x1.ffffffp127))
		sema_fail(sema_start_of(e), "the constant %g is out of the range of 'float'", d);
	if (to->kind == TY_FLOAT && const_float(e, &d) && d != 0 && (float)d == 0)
		sema_fail(sema_start_of(e), "the constant %g is too small for 'float': it would be 0", d);
}

/* A floating value stored in an integer: C leaves one out of the
 * integer's range undefined (saturated when gcc folds it, the most
 * negative value when the CPU converts it), and a long stored in an int
 * would silently keep its low 32 bits, so the conversion becomes a node
 * of its own, checked at run time as int() and long() are.  No type spec
 * tells it from a written one.  e keeps its place in a list. */
void sema_narrow(Node *e, Type *to)
{
	double d;
	int64_t v;
	if (!ty_is_int(to) || !e->ty)
		return;
	if (ty_is_float(e->ty) ? const_float(e, &d) :
	    !(to->kind == TY_INT && e->ty->kind == TY_LONG) || sema_const_int(e, &v))
		return;
	Node *in = xcalloc(1, sizeof *in);
	*in = *e;
	in->next = in->last = NULL;
	Node *next = e->next, *last = e->last;
	memset(e, 0, sizeof *e);
	e->kind = N_CONV;
	e->file = in->file;
	e->off = in->off;
	e->ty = to;
	e->lhs = in;
	e->next = next;
	e->last = last;
}

Node *sema_as_written(Node *e)
{
	return e && e->kind == N_CONV && !e->ts ? e->lhs : e;
}


/* The struct whose field's type is being resolved. */
static Node *defining;

Type *sema_resolve(TypeSpec *ts)
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
		Node *sd = map_get(&snames, sema_S(ts->name));
		if (sd)
			return ty_struct(sd);
		if (defining && !strcmp(sema_S(defining->name), sema_S(ts->name)))
			fail_ts(ts, "%s", format("struct '%s' cannot hold itself, nor a list of itself: "
			                         "keep the elements in a dvector<%s> and hold their "
			                         "indices (long)", sema_S(ts->name), sema_S(ts->name)));
		fail_ts(ts, "unknown type '%s'", sema_S(ts->name));
	}
	case TS_ARRAY: {
		/* float[3][4] is three float[4], as in C: sizes are written outer first. */
		Vec sizes = {0};
		TypeSpec *b = ts;
		while (b->kind == TS_ARRAY) {
			vec_push(&sizes, b);
			b = b->elem;
		}
		Type *t = sema_resolve(b);
		if (t->kind == TY_VOID)
			fail_ts(b, "array of %s", "void");
		if (ty_is_dds(t))
			fail_ts(b, "an array cannot hold a %s: DDSs are declared only as whole variables",
			        ty_str(t));
		for (int i = 0; i < sizes.n; i++) {
			TypeSpec *a = sizes.v[i];
			sema_check_expr(a->size);
			int64_t n;
			if (!ty_is_int(a->size->ty))
				sema_fail(a->size, "array size must be a constant integer expression, not '%s'",
				          ty_str(a->size->ty));
			if (!sema_const_int(a->size, &n)) {
				Node *bad = non_constant_part(a->size);
				sema_fail(bad ? bad : a->size, "array size must be a constant integer expression%s; "
				          "use a const, or a list or dvector for a size known only at run time",
				          why_not_constant(a->size));
			}
			if (n <= 0)
				sema_fail(a->size, "array size must be positive, not %lld", (long long)n);
			if (n > (1 << 24))
				sema_fail(a->size, "array size %lld is too large for a fixed array; use a dvector",
				          (long long)n);
			t = ty_array(t, n);
			/* As a driver variable it is static data, which the C
			 * compiler's code model holds to 2 GiB (a link error past
			 * it), and a local or element of that size is no better. */
			if (ty_csize(t) > FIXED_MAX)
				sema_fail(a->size, "an array of %lld bytes is too large for a fixed array "
				          "(at most 2 GiB); use a dvector or a list", (long long)ty_csize(t));
		}
		return t;
	}
	case TS_LIST: {
		Type *e = sema_resolve(ts->elem);
		if (e->kind == TY_VOID)
			fail_ts(ts->elem, "list of %s", "void");
		if (ty_is_dds(e))
			fail_ts(ts->elem, "a list cannot hold a %s", ty_str(e));
		return ty_list(e);
	}
	case TS_DVEC: {
		Type *e = sema_resolve(ts->elem);
		if (e->kind == TY_VOID)
			fail_ts(ts->elem, "dvector of %s", "void");
		if (ty_has_dds(e))
			fail_ts(ts->elem, "a dvector cannot hold another DDS ('%s'); its elements can be scalars, "
			        "arrays, structs or lists", ty_str(e));
		return ty_dvec(e);
	}
	case TS_DMAP:
	case TS_DMMAP: {
		Type *k = sema_resolve(ts->key);
		Type *v = sema_resolve(ts->elem);
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

/* ---- declarations ---- */

bool sema_const_str(Node *e, Buf *b)
{
	double v;
	char num[40];
	switch (e->kind) {
	case N_STR:
		buf_puts(b, e->sval);
		return true;
	case N_BOOL:
		buf_puts(b, e->ival ? "true" : "false");
		return true;
	case N_NAME:
		return e->sym && e->sym->vclass == V_CONST && sema_const_str(e->sym->decl->init, b);
	case N_BINARY:
		return e->op == TK_PLUS && sema_const_str(e->lhs, b) && sema_const_str(e->rhs, b);
	case N_COND: {
		bool c;
		return sema_const_bool(e->cond, &c) && sema_const_str(c ? e->then : e->els, b);
	}
	case N_CONV:
		/* string(x) as the runtime writes it (sap_str_of_*). */
		if (!e->ty || e->ty->kind != TY_STRING)
			return false;
		if (e->lhs->ty->kind == TY_STRING || e->lhs->ty->kind == TY_BOOL)
			return sema_const_str(e->lhs, b);
		if (ty_is_int(e->lhs->ty) && e->lhs->has_cval) {
			snprintf(num, sizeof num, "%lld", (long long)e->lhs->cval);
		} else if (ty_is_float(e->lhs->ty) && fold_float(e->lhs, &v)) {
			bool f = e->lhs->ty->kind == TY_FLOAT;
			/* A subnormal from one digit on, as sap_str_of_double. */
			bool sub = v != 0 && fabs(v) < (f ? FLT_MIN : DBL_MIN);
			for (int digits = sub ? 1 : f ? 6 : 15; digits <= (f ? 9 : 17); digits++) {
				snprintf(num, sizeof num, "%.*g", digits, v);
				if (v != v || (f ? strtof(num, NULL) == (float)v : strtod(num, NULL) == v))
					break;
			}
		} else {
			return false;
		}
		buf_puts(b, num);
		return true;
	default:
		return false;
	}
}

static bool is_constant(Node *e)
{
	switch (e->kind) {
	case N_INT: case N_FLOAT: case N_STR: case N_BOOL:
		return true;
	case N_NAME:
		return e->sym && e->sym->vclass == V_CONST;
	case N_UNARY:
	case N_CONV:
		return is_constant(e->lhs);
	case N_BINARY:
		return is_constant(e->lhs) && is_constant(e->rhs);
	case N_COND:
		return is_constant(e->cond) && is_constant(e->then) && is_constant(e->els);
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
void sema_check_text_shape(Node *at, const char *verb, Type *t)
{
	TextShape st = {0};
	text_walk(&st, t->elem, "", NULL);
	if (st.why)
		sema_fail_note(at, format("cannot %s a '%s' as text: %s", verb, ty_str(t), st.why), st.at,
		               "declared here");
}

static void check_dvec_init(Node *d, Type *t)
{
	Node *in = d->init;
	if (d->size) {
		sema_check_expr(d->size);
		if (!ty_is_int(d->size->ty))
			sema_fail(d->size, "the size of a dvector must be an integer, not '%s'", ty_str(d->size->ty));
	}
	if (!in)
		return;
	if (in->kind == N_CALL) {
		const char *name = sema_S(in->name);
		Builtin b = sema_find_builtin(name);
		if (b == B_LOAD) {
			in->builtin = b;
			if (d->size)
				sema_fail(d->size, "a dvector loaded from a file takes its size from the file");
			sema_check_args_count(in, 1, "load");
			if (sema_check_expr(in->args)->kind != TY_STRING)
				sema_fail(in->args, "load needs a file name (string), not '%s'", ty_str(in->args->ty));
			sema_check_text_shape(in, "load", t);
			in->ty = t;
			return;
		}
		if (b == B_KEYS || b == B_JOIN) {
			in->builtin = b;
			if (d->size)
				sema_fail(d->size, "a dvector of keys takes its size from the map%s",
				          b == B_JOIN ? "s" : "");
			sema_check_args_count(in, b == B_KEYS ? 1 : 2, name);
			Type *kt = NULL;
			for (Node *a = in->args; a; a = a->next) {
				if (!sema_is_map(sema_check_expr(a)) && in->made)
					sema_fail(a, "an async for over keys needs a dmap, a dmultimap or join(a, b), not "
					          "'%s'%s", ty_str(a->ty), a->ty->kind == TY_DVEC ? "; over a dvector's "
					          "indices: async for (long i = 0; i < len(D); i++)" : "");
				if (!sema_is_map(a->ty))
					sema_fail(a, "%s needs a dmap or dmultimap, not '%s'", name, ty_str(a->ty));
				if (kt && kt != a->ty->key)
					sema_fail(a, "join needs maps with one key type, not '%s' and '%s'",
					          ty_str(kt), ty_str(a->ty->key));
				kt = a->ty->key;
			}
			if (t->elem != kt)
				sema_fail(d, "the keys are '%s', not '%s'", ty_str(kt), ty_str(t->elem));
			in->ty = t;
			return;
		}
		if (b == B_VOCAB) {
			in->builtin = b;
			if (d->size)
				sema_fail(d->size, "a vocabulary takes its size from the map");
			sema_check_args_count(in, 2, "vocab");
			Node *m = sema_arg(in, 0), *min = sema_arg(in, 1);
			Type *mt = sema_check_expr(m);
			if (mt->kind != TY_DMAP || mt->key != ty_string || !ty_is_num(mt->elem))
				sema_fail(m, "vocab needs a dmap<string, N> of counts (N a number type), not '%s'",
				          ty_str(mt));
			if (!ty_is_num(sema_check_expr(min)))
				sema_fail(min, "the minimum count must be a number, not '%s'", ty_str(min->ty));
			if (t->elem != ty_string)
				sema_fail(d, "vocab gives the words, a 'dvector<string>', not '%s'", ty_str(t));
			in->ty = t;
			return;
		}
		if (b == B_UNIGRAM) {
			in->builtin = b;
			if (d->size)
				sema_fail(d->size, "the size of a unigram table is its second argument");
			sema_check_args_count(in, 3, "unigram");
			Node *c = sema_arg(in, 0), *n = sema_arg(in, 1), *pw = sema_arg(in, 2);
			Type *ct = sema_check_expr(c);
			if (ct->kind != TY_DVEC || !ty_is_num(ct->elem))
				sema_fail(c, "unigram needs a dvector of counts (numbers), not '%s'", ty_str(ct));
			if (!ty_is_int(sema_check_expr(n)))
				sema_fail(n, "the size of the table must be an integer, not '%s'", ty_str(n->ty));
			if (!ty_is_num(sema_check_expr(pw)))
				sema_fail(pw, "the power must be a number, not '%s'", ty_str(pw->ty));
			if (t->elem != ty_int)
				sema_fail(d, "unigram gives word numbers, a 'dvector<int>', not '%s'", ty_str(t));
			in->ty = t;
			return;
		}
		if (b == B_UNIFORM || b == B_NORMAL) {
			in->builtin = b;
			if (!d->size)
				sema_fail(in, "%s(...) needs the dvector's size: dvector<T> %s(n) = %s(...);", name,
				          sema_S(d->name), name);
			if (!ty_ncomp(t->elem))
				sema_fail(in, "%s(...) fills float or double elements (or arrays of them), not '%s'",
				          name, ty_str(t->elem));
			sema_check_args_count(in, 2, name);
			for (Node *a = in->args; a; a = a->next)
				if (!ty_is_num(sema_check_expr(a)))
					sema_fail(a, "%s needs numbers, not '%s'", name, ty_str(a->ty));
			in->ty = t;
			return;
		}
	}
	sema_check_expr(in);
	if (ty_is_dds(in->ty)) {
		const char *v = in->kind == N_NAME ? in->sym->name : "v";
		sema_fail(in, "a dvector cannot be made a copy of a '%s' as a whole: declare it with "
		          "its size and copy the elements (%s %s(len(%s)); async for (long i = 0; i < "
		          "len(%s); i++) %s[i] = %s[i];)", ty_str(in->ty), ty_str(t), sema_S(d->name), v,
		          v, sema_S(d->name), v);
	}
	if (!d->size)
		sema_fail(in, "a dvector filled with a value needs its size: dvector<T> %s(n) = value;", sema_S(d->name));
	if (!sema_assignable(t->elem, in->ty) && (t->elem->kind == TY_ARRAY || t->elem->kind == TY_STRUCT) &&
	    ((in->kind == N_INT && in->ival == 0) || (in->kind == N_FLOAT && in->fval == 0)))
		sema_fail(in, "cannot fill a '%s' with a number; a dvector created with a size starts "
		          "with all elements zero, so leave out the initialiser", ty_str(t));
	if (!sema_assignable(t->elem, in->ty) && t->elem->kind == TY_ARRAY && ty_is_num(in->ty))
		sema_fail(in, "cannot fill a '%s' with a number: the value is a whole element, so give "
		          "it a '%s' (a driver array set to the number in every place)", ty_str(t),
		          ty_str(t->elem));
	sema_expect_assignable(in, t->elem, "cannot fill a '%s' with a value of type '%s'", ty_str(t),
	                       ty_str(in->ty));
}

void sema_check_var(Node *d)
{
	/* double x[100] ported as dvector<double> x[100] */
	int64_t len;
	if (d->ts->kind == TS_ARRAY && d->ts->elem->kind == TS_DVEC) {
		sema_check_expr(d->ts->size);
		if (sema_const_int(d->ts->size, &len))
			fail_ts(d->ts->elem, "%s", format("a dvector is not declared as an array: its length "
			        "goes in parentheses, 'dvector<%s> %s(%lld)'",
			        ty_str(sema_resolve(d->ts->elem->elem)), sema_S(d->name), (long long)len));
	}
	Type *t = sema_resolve(d->ts);
	const char *name = sema_S(d->name);
	int64_t cval = 0;
	bool has_cval = false;
	if (t->kind == TY_VOID)
		sema_fail(d, "variable '%s' declared void", name);
	if (d->vclass == V_PARAM) {
		if (!ty_is_scalar(t) && t->kind != TY_STRING)
			fail_ts(d->ts, "a param must be bool, int, long, float, double or string, not '%s'", ty_str(t));
		/* The runtime's options, from its one list: a param of that name
		 * could never be set (the runtime takes --NAME first). */
		static const char *options[] = {
#define SAP_OPTION(name, value, doc) name,
#include "options.def"
#undef SAP_OPTION
		};
		static const char *reserved[] = {"record", "replay", "trace", "progress"};
		for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
			if (!strcmp(name, options[i]))
				sema_fail(d, "'%s' cannot be a param: --%s is an option of every program", name, name);
		for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
			if (!strcmp(name, reserved[i]))
				sema_fail(d, "'%s' cannot be a param: --%s is kept for an option of every program",
				          name, name);
		sema_check_expr(d->init);
		Buf sb = {0};
		if (!is_constant(d->init) ||
		    (d->init->ty->kind == TY_STRING && !sema_const_str(d->init, &sb))) {
			Node *bad = non_constant_part(d->init);
			sema_fail(bad ? bad : d->init, "the default of param '%s' must be a constant%s", name,
			          why_not_constant(d->init));
		}
		if (t->kind == TY_STRING ? d->init->ty->kind != TY_STRING : !sema_assignable(t, d->init->ty) ||
		    (t->kind == TY_BOOL) != (d->init->ty->kind == TY_BOOL))
			sema_fail(d->init, "cannot initialise param '%s' of type '%s' with a value of type '%s'", name,
			          ty_str(t), ty_str(d->init->ty));
		/* As for any variable: the default is what --help shows, so it
		 * must be the value the program starts with. */
		sema_check_constant_fits(d->init, t, true);
		Sym *s = sema_declare(d, name, SYM_VAR, t);
		s->vclass = V_PARAM;
		return;
	}
	if (ty_is_dds(t)) {
		if (sema_ctx.func)
			sema_fail(d, "%s '%s' declared in function '%s': DDSs live in driver code", ty_str(t), name,
			          sema_S(sema_ctx.func->name));
		if (sema_ctx.loop)
			sema_fail_note(d, format("%s '%s' declared in a loop body: DDSs live in driver code; declare it "
			                                "before the loop", ty_str(t), name),
			               sema_ctx.loop, "the loop starts here");
		if (d->vclass == V_CONST)
			sema_fail(d, "a DDS cannot be const");
		if (t->kind == TY_DVEC) {
			check_dvec_init(d, t);
		} else {
			if (d->size)
				sema_fail(d->size, "only a dvector takes a size");
			if (d->init)
				sema_fail(d->init, "a %s starts empty and takes no initialiser", ty_str(t));
		}
		sema_declare(d, name, SYM_VAR, t);
		return;
	}
	if (d->size)
		sema_fail(d->size, "only a dvector takes a size in parentheses");
	if (d->init) {
		sema_check_expr(d->init);
		sema_expect_assignable(d->init, t, "cannot initialise '%s' of type '%s' with a value of type '%s'",
		                       name, ty_str(t), ty_str(d->init->ty));
		if (t->kind == TY_BOOL && d->init->ty->kind != TY_BOOL)
			sema_fail(d->init, "cannot initialise '%s' of type 'bool' with '%s'", name, ty_str(d->init->ty));
	}
	if (d->vclass == V_CONST) {
		if (!ty_is_scalar(t) && t->kind != TY_STRING)
			fail_ts(d->ts, "a const must be a scalar or a string, not '%s'", ty_str(t));
		if (!d->init)
			sema_fail(d, "const '%s' needs a value", name);
		Buf sb = {0};
		if (!is_constant(d->init) ||
		    (d->init->ty->kind == TY_STRING && !sema_const_str(d->init, &sb))) {
			Node *bad = non_constant_part(d->init);
			sema_fail(bad ? bad : d->init, "the value of const '%s' must be a constant expression%s", name,
			          why_not_constant(d->init));
		}
		/* const int K = 10 * 0.5: the conversion's value, now, as C's
		 * static initialiser needs it (and as the checked conversion
		 * would find it, in range or an error). */
		Node *c = d->init;
		double fv;
		if (ty_is_int(t) && !c->has_cval && c->kind == N_CONV && ty_is_float(c->lhs->ty)) {
			if (!fold_float(c->lhs, &fv))
				sema_fail(c, "the value of const '%s' must be a constant expression", name);
			if (!(fv > (double)int_min(t) - 1 && fv < (double)int_max(t) + 1.0))
				sema_fail(c, "the constant %s does not fit in '%s'", exact_text(fv),
				          ty_str(t));
			c->cval = (int64_t)fv;
			c->has_cval = true;
		}
		/* const int D = 1e3: a floating literal C converts itself (no
		 * N_CONV, sema_narrow), checked in range above; its value
		 * sizes arrays as any integer const's. */
		if (ty_is_int(t) && !c->has_cval && ty_is_float(c->ty) && fold_float(c, &fv)) {
			cval = (int64_t)fv;
			has_cval = true;
		}
	}
	Sym *s = sema_declare(d, name, SYM_VAR, t);
	s->vclass = d->vclass;
	if (d->keys_of) {
		s->keys_of = d->keys_of;
		s->readonly = true;
	}
	if (d->vclass == V_CONST && ty_is_int(t) && sema_const_int(d->init, &s->cval))
		s->has_cval = true;
	else if (has_cval) {
		s->cval = cval;
		s->has_cval = true;
	}
}

static void check_assign_bool(Node *at, Type *to, Node *e)
{
	if ((to->kind == TY_BOOL) != (e->ty->kind == TY_BOOL) && ty_is_scalar(to))
		sema_fail(at, "cannot assign '%s' to '%s'", ty_str(e->ty), ty_str(to));
}

/* ---- statements ---- */

/* Does e assign, count or call anything? */
static bool has_effect(Node *e)
{
	if (!e)
		return false;
	if (e->kind == N_ASSIGN || e->kind == N_INCDEC || e->kind == N_CALL)
		return true;
	return has_effect(e->lhs) || has_effect(e->rhs) || has_effect(e->cond) ||
	       has_effect(e->then) || has_effect(e->els);
}

/* `k` where `k++` was meant: a for loop that never ends.  gcc would say
 * so of the C, at the C's columns. */
static void warn_no_effect(Node *e)
{
	if (!has_effect(e)) {
		Node *at = sema_start_of(e);
		diag_warning(at->file, at->off, "unused-value", "statement with no effect");
	}
}

/* The body of an if, else, while or do: a declaration there is in a scope
 * of its own, as if braced (as the C has it), so that nothing after the
 * statement sees it. */
static void check_body(Node *s)
{
	if (s->kind != N_VAR) {
		sema_check_stmt(s);
		return;
	}
	sema_open_scope();
	sema_check_stmt(s);
	sema_close_scope();
}

void sema_check_stmt(Node *s)
{
	s->loop = sema_ctx.loop;
	switch (s->kind) {
	case N_BLOCK:
		sema_open_scope();
		for (Node *n = s->args; n; n = n->next)
			sema_check_stmt(n);
		sema_close_scope();
		return;
	case N_VAR:
		sema_check_var(s);
		if (s->init && s->vclass != V_PARAM && !ty_is_dds(s->sym->ty))
			check_assign_bool(s->init, s->sym->ty, s->init);
		if (s->init)
			sema_check_sequenced(s->init);
		if (s->size)
			sema_check_sequenced(s->size);
		return;
	case N_EXPR:
		sema_check_expr(s->lhs);
		warn_no_effect(s->lhs);
		if (s->lhs->kind == N_ASSIGN && s->lhs->op == TK_ASSIGN)
			check_assign_bool(s->lhs, s->lhs->lhs->ty, s->lhs->rhs);
		sema_check_sequenced(s->lhs);
		return;
	case N_EMPTY:
		return;
	case N_IF: {
		sema_check_cond(s->cond);
		sema_check_sequenced(s->cond);
		bool c, known = sema_const_bool(s->cond, &c);
		sema_dead += known && !c;
		check_body(s->then);
		sema_dead -= known && !c;
		if (s->els) {
			sema_dead += known && c;
			check_body(s->els);
			sema_dead -= known && c;
		}
		return;
	}
	case N_WHILE:
	case N_DO: {
		sema_check_cond(s->cond);
		sema_check_sequenced(s->cond);
		sema_ctx.seqloops++;
		/* while (D != 0) with D 0 never runs its body (a do's runs once). */
		bool c, never = s->kind == N_WHILE && sema_const_bool(s->cond, &c) && !c;
		sema_dead += never;
		check_body(s->body);
		sema_dead -= never;
		sema_ctx.seqloops--;
		return;
	}
	case N_FOR:
		sema_open_scope();
		if (s->init)
			sema_check_stmt(s->init);
		if (s->cond) {
			sema_check_cond(s->cond);
			sema_check_sequenced(s->cond);
		}
		if (s->step) {
			sema_check_expr(s->step);
			sema_check_sequenced(s->step);
			warn_no_effect(s->step);
		}
		sema_ctx.seqloops++;
		sema_check_stmt(s->body);
		sema_ctx.seqloops--;
		sema_close_scope();
		return;
	case N_BREAK:
	case N_CONTINUE: {
		const char *w = s->kind == N_BREAK ? "break" : "continue";
		if (sema_ctx.seqloops == 0) {
			if (sema_ctx.loop && s->kind == N_BREAK)
				sema_fail_note(s, format("break cannot leave %s body", sema_a_loop(sema_ctx.loop)), sema_ctx.loop,
				               "every iteration of a parallel loop runs; use continue to skip the rest of one");
			if (!sema_ctx.loop)
				sema_fail(s, "%s is not inside a loop", w);
		}
		return;
	}
	case N_RETURN:
		if (sema_ctx.loop)
			sema_fail_note(s, format("return is not allowed in %s body; use continue to end an iteration",
			                         sema_a_loop(sema_ctx.loop)), sema_ctx.loop, "the loop starts here");
		if (!sema_ctx.func)
			sema_fail(s, "return outside a function: the driver (the statements outside "
			          "functions) ends after its last statement");
		{
			Type *rt = sema_ctx.func->sym->ty;
			if (!s->lhs) {
				if (rt->kind != TY_VOID)
					sema_fail(s, "function '%s' must return a '%s'", sema_S(sema_ctx.func->name), ty_str(rt));
				return;
			}
			sema_check_expr(s->lhs);
			sema_check_sequenced(s->lhs);
			if (s->lhs->kind == N_NAME && s->lhs->sym && s->lhs->sym->vclass == V_ARG)
				s->lhs->sym->returned = true;
			if (rt->kind == TY_VOID)
				sema_fail(s->lhs, "function '%s' returns void; it cannot return a value", sema_S(sema_ctx.func->name));
			sema_expect_assignable(s->lhs, rt, "function '%s' returns '%s', not '%s'", sema_S(sema_ctx.func->name),
			                       ty_str(rt), ty_str(s->lhs->ty));
			check_assign_bool(s->lhs, rt, s->lhs);
		}
		return;
	case N_ASYNC:
		sema_check_async(s);
		return;
	case N_SYNC:
		sema_check_sync(s);
		return;
	default:
		sema_fail(s, "not a statement");
	}
}

/* ---- functions and the program ---- */

/* Whether s, a loop's body, holds a break of that loop; one in a nested
 * loop is that loop's. */
static bool breaks_out(Node *s)
{
	if (!s)
		return false;
	switch (s->kind) {
	case N_BREAK:
		return true;
	case N_BLOCK:
		for (Node *n = s->args; n; n = n->next)
			if (breaks_out(n))
				return true;
		return false;
	case N_IF:
		return breaks_out(s->then) || breaks_out(s->els);
	default:
		return false;
	}
}

/* The value of a condition that is the same whatever runs: true, 1 or a
 * nonzero int const, !false, a bool const (while (1) loops for ever). */
static bool const_cond(Node *c, bool *v)
{
	int64_t i;
	if (c->kind == N_BOOL) {
		*v = c->ival != 0;
		return true;
	}
	if (c->ty && ty_is_int(c->ty) && sema_const_int(c, &i)) {
		*v = i != 0;
		return true;
	}
	if (c->kind == N_UNARY && c->op == TK_NOT && const_cond(c->lhs, v)) {
		*v = !*v;
		return true;
	}
	if (c->kind == N_NAME && c->sym && c->sym->vclass == V_CONST && c->sym->ty->kind == TY_BOOL &&
	    c->sym->decl->init)
		return const_cond(c->sym->decl->init, v);
	return false;
}

static bool is_true(Node *cond)
{
	bool v;
	return const_cond(cond, &v) && v;
}

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
	/* A loop that only a break ends, when it has none, ends by a return
	 * or never, as for C: while (true), for (;;), do ... while (true). */
	case N_WHILE:
		return is_true(s->cond) && !breaks_out(s->body);
	/* A do body runs once: one that returns, breaking nowhere, returns. */
	case N_DO:
		return (is_true(s->cond) || always_returns(s->body)) && !breaks_out(s->body);
	case N_FOR:
		return (!s->cond || is_true(s->cond)) && !breaks_out(s->body);
	default:
		return false;
	}
}

static void declare_func(Node *f)
{
	const char *name = sema_S(f->name);
	if (sema_find_builtin(name))
		sema_fail(f, "'%s' is a built-in function and cannot be redefined", name);
	Sym *o = map_get(&fnames, name);
	if (o)
		sema_fail_note(f, format("redefinition of function '%s'", name), o->decl, "first defined here");
	Type *rt = sema_resolve(f->ts);
	if (ty_is_dds(rt) || (f->kind == N_EXTERN && !ty_is_scalar(rt) && rt->kind != TY_VOID &&
	                      rt->kind != TY_STRING))
		fail_ts(f->ts, "a function cannot return '%s'", ty_str(rt));
	Sym *s = xcalloc(1, sizeof *s);
	s->kind = SYM_FUNC;
	s->name = name;
	s->ty = rt;
	s->decl = f;
	s->is_extern = f->kind == N_EXTERN;
	/* Not u_ as variables: a driver variable may share a function's
	 * name (functions cannot see it), and both are file-scope C names. */
	s->cname = s->is_extern ? format("sap_x_%s", name) : format("f_%s", name);
	/* Names no C function can have, or that would be the program's own
	 * main: the C that calls them would not compile, or recurse. */
	static const char *c_words[] = {"auto", "case", "char", "default", "enum", "goto",
		"inline", "register", "restrict", "short", "signed", "sizeof", "static", "switch",
		"typedef", "union", "unsigned", "volatile", "_Alignas", "_Alignof", "_Atomic",
		"_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
		"_Thread_local", "asm", "typeof"};
	if (s->is_extern && !strcmp(name, "main"))
		sema_fail(f, "an extern function cannot be named 'main': that is the C name of the "
		          "program itself");
	for (size_t i = 0; s->is_extern && i < sizeof c_words / sizeof *c_words; i++)
		if (!strcmp(name, c_words[i]))
			sema_fail(f, "an extern function cannot be named '%s', a keyword of C: no C "
			          "function has that name", name);
	/* C's type-generic macros have no function to declare (gcc's
	 * built-ins take any type): a wrapper of the declared types calls
	 * the macro (emit.c). */
	static const char *generic[] = {"isnan", "isinf", "isfinite", "isnormal", "signbit",
		"fpclassify", "isgreater", "isgreaterequal", "isless", "islessequal",
		"islessgreater", "isunordered"};
	for (size_t i = 0; s->is_extern && i < sizeof generic / sizeof *generic; i++)
		if (!strcmp(name, generic[i]))
			s->cname = format("sap_c_%s", name), s->c_macro = true;
	f->sym = s;
	vec_push(&sema_funcs, s);
	map_put(&fnames, name, s);
	/* Parameter types, so calls before the definition can be checked. */
	for (Node *p = f->args; p; p = p->next) {
		Type *t = sema_resolve(p->ts);
		if (t->kind == TY_VOID)
			sema_fail(p, "parameter '%s' declared void", sema_S(p->name));
		if (ty_is_dds(t))
			sema_fail(p, "a function cannot take a %s; DDSs are used in driver code and loop bodies",
			          ty_str(t));
		if (s->is_extern && !ty_is_scalar(t) && t->kind != TY_STRING && !ty_is_numarray(t))
			sema_fail(p, "an extern function takes scalars, strings and numeric arrays, not '%s'", ty_str(t));
		Sym *ps = xcalloc(1, sizeof *ps);
		ps->kind = SYM_VAR;
		ps->name = sema_S(p->name);
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
	Ctx saved = sema_ctx;
	sema_ctx.func = f;
	sema_ctx.loop = NULL;
	sema_ctx.seqloops = 0;
	sema_open_scope();
	for (Node *p = f->args; p; p = p->next) {
		if (in_this_scope(p->sym->name))
			sema_fail(p, "duplicate parameter '%s'", p->sym->name);
		scope_push(p->sym);
	}
	sema_check_stmt(f->body);
	if (f->sym->ty->kind != TY_VOID && !always_returns(f->body))
		sema_fail(f, "function '%s' can end without returning a value", sema_S(f->name));
	/* C passes an array as a pointer, so C code updates the caller's
	 * array through a parameter; here the parameter is a copy, and
	 * writes that are not returned never reach the caller. */
	for (Node *p = f->args; p; p = p->next) {
		Sym *a = p->sym;
		if (a->ty->kind == TY_ARRAY && a->wrote_at && !a->returned)
			diag_warning(a->wrote_at->file, sema_start_of(a->wrote_at)->off, "array-parameter-copy",
			             "'%s' is a copy of the caller's array (SAP passes arrays by value, "
			             "not as C's pointers): this write does not reach the caller; return the "
			             "array, or write the caller's variable or dvector element", a->name);
	}
	sema_close_scope();
	sema_ctx = saved;
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
	const char *name = sema_S(sd->name);
	Node *o = map_get(&snames, name);
	if (o)
		sema_fail_note(sd, format("redefinition of struct '%s'", name), o, "first defined here");
	if (!sd->args)
		sema_fail(sd, "struct '%s' has no fields", name);
	sd->ival = 1;           /* N_STRUCT: how deeply structs nest in it */
	Map fields = {0};
	int64_t bytes = 0;
	for (Node *f = sd->args; f; f = f->next) {
		defining = sd;
		Type *t = sema_resolve(f->ts);
		defining = NULL;
		if (t->kind == TY_VOID)
			sema_fail(f, "field '%s' declared void", sema_S(f->name));
		if (ty_is_dds(t))
			sema_fail(f, "a struct cannot hold a '%s': a DDS cannot be inside another data structure; "
			          "declare it as a variable of its own", ty_str(t));
		Sym *s = xcalloc(1, sizeof *s);
		s->name = sema_S(f->name);
		Node *g = map_get(&fields, s->name);
		if (g)
			sema_fail_note(f, format("duplicate field '%s'", s->name), g, "first declared here");
		map_put(&fields, s->name, f);
		if (struct_depth(t) >= sd->ival)
			sd->ival = struct_depth(t) + 1;
		if (sd->ival > AST_MAX_DEPTH)
			sema_fail(f, "structs nested too deeply: more than %d levels", AST_MAX_DEPTH);
		f->ty = t;
		s->ty = t;
		s->cname = format("u_%s", s->name);
		f->sym = s;
		bytes += ty_csize(t);
		if (bytes > FIXED_MAX)
			sema_fail(f, "struct '%s' takes over 2 GiB with field '%s'; keep large data in a "
			          "dvector or a list", name, s->name);
	}
	vec_push(&sema_prog->structs, sd);
	map_put(&snames, name, sd);
}

/* Functions inherit I/O and randomness from the functions they call. */
/* A call recorded as it was checked: sema_narrow may since have made its
 * node the conversion of its result (int k = floor(x)), the call moved
 * under it. */
static Node *call_of(Node *c)
{
	while (c->kind == N_CONV)
		c = c->lhs;
	return c;
}

static void propagate(void)
{
	/* Worklists over the call graph, not passes until nothing changes:
	 * a chain of n calls took n passes over every call. */
	int n = sema_funcs.n;
	Map index = {0};
	for (int i = 0; i < n; i++)
		map_put(&index, ((Sym *)sema_funcs.v[i])->name, (void *)(intptr_t)(i + 1));
	Vec *callers = xcalloc((size_t)n + 1, sizeof *callers);   /* by callee: caller, call */
	Vec work = {0};
	for (int i = 0; i < n; i++) {
		Sym *f = sema_funcs.v[i];
		for (int j = 0; j < f->calls.n; j++) {
			Node *c = call_of(f->calls.v[j]);
			int g = (int)(intptr_t)map_get(&index, c->sym->name) - 1;
			if (g < 0)
				continue;
			vec_push(&callers[g], f);
			vec_push(&callers[g], c);
		}
	}
	/* I/O, randomness and the clock go from callee to caller. */
	for (int what = 0; what < 3; what++) {
		work.n = 0;
		for (int i = 0; i < n; i++) {
			Sym *f = sema_funcs.v[i];
			if (what == 2 ? f->uses_clock : what ? f->uses_rng : f->does_io)
				vec_push(&work, (void *)(intptr_t)i);
		}
		while (work.n > 0) {
			int g = (int)(intptr_t)work.v[--work.n];
			for (int j = 0; j < callers[g].n; j += 2) {
				Sym *f = callers[g].v[j];
				if (what == 2 ? f->uses_clock : what ? f->uses_rng : f->does_io)
					continue;
				if (what == 2) {
					f->uses_clock = true;
				} else if (what) {
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
		if (((Sym *)sema_funcs.v[i])->used)
			vec_push(&work, sema_funcs.v[i]);
	while (work.n > 0) {
		Sym *f = work.v[--work.n];
		for (int j = 0; j < f->calls.n; j++) {
			Sym *g = call_of(f->calls.v[j])->sym;
			if (!g->used) {
				g->used = true;
				vec_push(&work, g);
			}
		}
	}
	for (int i = 0; i < sema_loop_calls.n; i++) {
		Node *c = call_of(sema_loop_calls.v[i]), *loop = sema_loop_of_call.v[i];
		Sym *g = c->sym;
		if (g->does_io)
			sema_fail_note(c, format("'%s' does I/O, which is not allowed in %s body", g->name,
			                         sema_a_loop(loop)), g->io_site, "the I/O happens here");
		if (g->uses_rng)
			loop->li->uses_rng = true;
	}
	sema_check_draws();
	for (int i = 0; i < sema_same_calls.n; i++) {
		Node *c = sema_same_calls.v[i];
		if (c->sym->uses_rng || c->sym->uses_clock)
			sema_fail(c, "'%s' %s, so its two calls here may differ: assign its result to a "
			          "local and use that in the test and the update", c->sym->name,
			          c->sym->uses_rng ? "draws random numbers" : "reads the clock");
	}
	/* The runtime calls these as often as the workers' copies or partial
	 * results need combining, so a draw in one would move every later
	 * draw of the driver with the number of workers. */
	for (int i = 0; i < sema_hooks.n; i++) {
		Node *h = sema_hooks.v[i];
		Sym *g = h->sym;
		const char *what = h->kind == N_REDUCE ? "reduction function" : "merge function";
		if (g->does_io)
			sema_fail_note(h, format("%s '%s' does I/O", what, g->name), g->io_site,
			               "the I/O happens here");
		if (g->uses_rng)
			sema_fail(h, "%s '%s' draws random numbers: it runs as often as the workers' results "
			          "are combined, which would make every later draw depend on the number of "
			          "workers", what, g->name);
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

void sema_warn_unused(SrcFile *f)
{
	for (int i = 0; i < variables.n; i++) {
		Sym *s = variables.v[i];
		Node *d = s->decl;
		/* A param is an option of the command line, a const a name to
		 * have; an element variable (readonly) is the loop's to declare. */
		if (d->file != f || s->reads > 0 || s->vclass == V_PARAM || s->vclass == V_CONST ||
		    s->readonly)
			continue;
		if (s->set)
			diag_warning(f, d->off, "unused-but-set-variable", "variable '%s' set but not used",
			             s->name);
		else
			diag_warning(f, d->off, "unused-variable", "unused variable '%s'", s->name);
	}
}

/* A program may define a function or a constant the prelude has (its
 * own sigmoid, an extern of the C library declared again, M_PI): the
 * program's replaces the prelude's, as a C program's own function does a
 * library's, for the prelude's callers too.  The prelude is the first
 * file parsed. */
static void drop_shadowed(Program *p)
{
	if (p->files.n < 2)
		return;
	SrcFile *std = p->files.v[0];
	/* Functions replace functions, variables constants: a driver
	 * variable may share a function's name (func-var-names.sap). */
	Map funcs = {0}, vars = {0};
	for (Node *n = p->items; n; n = n->next)
		if (n->file != std && (n->kind == N_FUNC || n->kind == N_EXTERN))
			map_put(&funcs, sema_S(n->name), n);
		else if (n->file != std && n->kind == N_VAR)
			map_put(&vars, sema_S(n->name), n);
	for (Node **pp = &p->items; *pp;) {
		Node *n = *pp;
		bool fn = n->kind == N_FUNC || n->kind == N_EXTERN;
		if (n->file == std && (fn || n->kind == N_VAR) &&
		    map_get(fn ? &funcs : &vars, sema_S(n->name)))
			*pp = n->next;
		else
			pp = &n->next;
	}
}

/* C's prototypes: each must name a function the program defines (or
 * declares extern); being C's, they repeat its signature, which the
 * definition's checks cover. */
static void check_protos(Program *p)
{
	for (int i = 0; i < p->protos.n; i++) {
		Node *d = p->protos.v[i];
		const char *name = sema_S(d->name);
		bool found = false;
		for (Node *n = p->items; n && !found; n = n->next)
			found = (n->kind == N_FUNC || n->kind == N_EXTERN) && !strcmp(sema_S(n->name), name);
		if (!found)
			sema_fail(d, "function '%s' is declared but not defined; a C function compiled with "
			          "the program (sapc prog.sap helpers.c) is declared with 'extern' in front",
			          name);
	}
}

bool sema_program(Program *p)
{
	sema_prog = p;
	memset(&sema_ctx, 0, sizeof sema_ctx);
	/* Zeroed, not just emptied: between two programs in one process
	 * xfree_all() frees what the vectors held. */
	Vec *vecs[] = {&scope, &marks, &variables, &sema_funcs, &sema_loop_calls, &sema_loop_of_call, &sema_same_calls, &sema_draw_exprs, &sema_hooks, &driver_names, &driver_syms};
	for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
		*vecs[i] = (Vec){0};
	names = fnames = driver_set = snames = loop_names = (Map){0};
	uniq = 0;
	sema_dead = 0;
	if (setjmp(fail_jmp))
		return false;
	drop_shadowed(p);
	check_protos(p);
	/* Consts and structs first, in source order (a struct's array sizes may
	 * name consts), then function signatures, so any function can call any
	 * other. */
	for (Node *n = p->items; n; n = n->next) {
		if (n->kind == N_STRUCT)
			check_struct(n);
		else if (n->kind == N_VAR && n->vclass == V_CONST) {
			sema_const_decl = n;
			sema_check_stmt(n);
			sema_const_decl = NULL;
		}
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
			sema_check_stmt(n);
		if (n->kind == N_VAR)
			vec_push(&p->globals, n->sym);
	}
	propagate();
	/* A C habit that would otherwise compile to a program that does
	 * nothing: a function main that driver code never calls. */
	Sym *m = map_get(&fnames, "main");
	if (m && !m->is_extern && !m->used)
		sema_fail(m->decl, "a SAP program has no function 'main': its statements at file "
		          "scope are the program, run from the top; write the body there");
	return true;
}
