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
 *
 * The analysis is four files, one stage or consumer each, sharing the
 * loop being analysed through sapc.h: this one prints keys as .sap text,
 * finds affine keys, walks the body into units and computes the taint;
 * slice.c builds the reconnaissance slice; verdict.c decides each loop's
 * verdict and answers the emitter's questions about its accesses;
 * explain.c writes the report of sapc --explain.
 */
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/* The loop being analysed (sapc.h says what each holds). */
Node *acc_loop;
LoopInfo *acc_li;
Sym *acc_iv;
Vec acc_units, acc_ctls, acc_jumps;
Vec acc_ctrl;
Vec acc_branch;
Unit *acc_cur;
bool acc_explain_mode;


/* ---- printing expressions ---- */

static void put_expr(Buf *b, Node *e, int prec);

/* put_expr marks each name with its symbol (acc_key_id). */
static bool put_ids;

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
	case N_NAME:
		buf_printf(b, "%.*s", e->name.len, e->name.p);
		if (put_ids)
			buf_printf(b, "#%p", (void *)e->sym);
		return;
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
		if (!e->ts) {   /* implicit, as written */
			put_expr(b, e->lhs, prec);
			return;
		}
		/* As written: SAP converts as int(x), not as C's (int)x. */
		buf_printf(b, "%s(", ty_str(e->ty));
		put_expr(b, e->lhs, 0);
		buf_puts(b, ")");
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
		if (prec > 0)
			buf_putc(b, '(');
		put_expr(b, e->lhs, 11);
		buf_printf(b, " %s= ", e->op == TK_ASSIGN ? "" : ast_opname(e->op));
		put_expr(b, e->rhs, 0);
		if (prec > 0)
			buf_putc(b, ')');
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

/* The text of e with each name's symbol: two keys are one key if these
 * are equal, where the texts of a j declared in each of two blocks are
 * equal too. */
char *acc_key_id(Node *e)
{
	if (!e->idtext) {
		Buf b = {0};
		put_ids = true;
		put_expr(&b, e, 0);
		put_ids = false;
		e->idtext = b.s ? b.s : xstrdup("");
	}
	return e->idtext;
}

/* ---- small helpers ---- */

bool acc_is_dds(Node *e) { return e->ty && ty_is_dds(e->ty); }

bool acc_is_local(Sym *s)
{
	return s && s->kind == SYM_VAR && (s->loop == acc_loop || s == acc_iv) && !ty_is_dds(s->ty);
}

/* The variable whose storage an array argument of a C function points
 * into when it goes by reference: a name, through fields and array
 * subscripts; NULL for anything else (a list's element, a DDS's, a value),
 * which goes as a copy.  emit_expr.c's extern_array passes it so. */
Sym *acc_array_base(Node *a)
{
	if (a->kind != N_NAME && a->kind != N_FIELD &&
	    !(a->kind == N_INDEX && a->lhs->ty->kind != TY_DMMAP))
		return NULL;
	while (a->kind == N_FIELD || (a->kind == N_INDEX && a->lhs->ty->kind == TY_ARRAY))
		a = a->lhs;
	return a->kind == N_NAME ? a->sym : NULL;
}

void acc_add_sym(Vec *v, Sym *s)
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

/* A store whose key the slice records, itself or in the record it was
 * folded into: the runtime can check in advance that the key is there. */
bool acc_check_insert(const Access *a)
{
	return a->may_insert && (a->recorded || a->folded_into);
}

bool acc_const_write(const Access *a)
{
	return !a->dynamic && !a->accumulate && (a->mode & ACC_WRITE) && a->aterms.n == 0;
}

bool acc_checks_keys(LoopInfo *l, Sym *dds)
{
	if (!l->has_slice || (l->verdict != VD_ONCE && l->verdict != VD_EACH))
		return false;
	bool any = false;
	for (int i = 0; i < l->accesses.n; i++) {
		Access *a = l->accesses.v[i];
		if (a->dds != dds || !a->structural)
			continue;
		if (!acc_check_insert(a))
			return false;
		any = true;
	}
	return any;
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

/* An access whose key the slice recorded, itself or as the access it
 * was folded into (whose key it has, so the same range check covers it). */
Access *acc_recorded_dv(LoopInfo *l, Node *e)
{
	for (int i = 0; l->has_slice && i < l->accesses.n; i++) {
		Access *a = l->accesses.v[i];
		if (a->at != e)
			continue;
		Access *r = a->folded_into ? a->folded_into : a;
		return r->recorded && !a->accumulate && a->dds->ty->kind == TY_DVEC ? a : NULL;
	}
	return NULL;
}

static Sym *dds_of(Node *e)
{
	return e->kind == N_NAME ? e->sym : NULL;
}

static int dds_index(Sym *d, int mode)
{
	for (int i = 0; i < acc_li->dds.n; i++)
		if (acc_li->dds.v[i] == d) {
			acc_li->dds_mode.v[i] = (void *)((intptr_t)acc_li->dds_mode.v[i] | mode);
			return i;
		}
	vec_push(&acc_li->dds, d);
	vec_push(&acc_li->dds_mode, (void *)(intptr_t)mode);
	return acc_li->dds.n - 1;
}

bool acc_written(Sym *d)
{
	for (int i = 0; i < acc_li->dds.n; i++)
		if (acc_li->dds.v[i] == d)
			return ((intptr_t)acc_li->dds_mode.v[i] & ACC_WRITE) && !acc_is_accum(acc_li, d);
	return false;
}

/* Does read r (in unit u) see a value that can change while the loop
 * runs: of a DDS the loop writes, other than the iteration's own element,
 * or of a relaxed DDS, whose reads see the worker's round (a slice, which
 * runs before, cannot)? */
static bool own_read(Node *r, Unit *u);
static bool unwritten_field(Node *r);
bool acc_changing(Node *r, Unit *u)
{
	Sym *d = acc_read_dds(r);
	return d && ((acc_written(d) && !(u && own_read(r, u)) && !unwritten_field(r) &&
	              !acc_fixed_keys(r)) ||
	             acc_is_relaxed(acc_li, d));
}

bool acc_read_fixed(Node *r)
{
	return unwritten_field(r) || acc_fixed_keys(r);
}

/* Is r a question about a dmap's keys (contains(m, k), count(m, k)) that
 * the loop cannot change: it erases none, and its stores (m[k] = v,
 * insert) insert only where a key is missing, which the runtime checks
 * for every key the slice records before the loop runs, running an
 * invocation that would insert serially.  So in a parallel run no key
 * comes or goes, and the slice, reading the keys before the loop, sees
 * what every iteration sees ('if (contains(m, k)) m[k] = ...'). */
bool acc_fixed_keys(Node *r)
{
	if (r->kind != N_CALL || (r->builtin != B_CONTAINS && r->builtin != B_COUNT))
		return false;
	return acc_keys_fixed(acc_li, acc_read_dds(r));
}

bool acc_keys_fixed(LoopInfo *L, Sym *d)
{
	if (!d || d->ty->kind != TY_DMAP)
		return false;
	for (int i = 0; i < L->accesses.n; i++) {
		Access *b = L->accesses.v[i];
		if (b->dds == d && b->structural && !b->may_insert)
			return false;
	}
	return true;
}

/* ---- affine keys ---- */

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

static Node *returned_expr(Node *c);
static Node *bound_arg(const Sym *x, int *depth);

/* Calls of functions of the program that only return an expression of
 * their parameters (long at(long r, long c) { return r * n + c; }) whose
 * keys affine() takes through them: the calls it is in, innermost last. */
enum { INLINE_MAX = 8 };
static bool int32_arith(Node *e);
static Node *inl_call[INLINE_MAX];
static int ninl;

/* The calls being inlined, saved across a step into an argument. */
typedef struct InlSave {
	int n;
	Node *call[INLINE_MAX];
} InlSave;

static void inl_restore(const InlSave *sv)
{
	memcpy(inl_call, sv->call, sizeof inl_call);
	ninl = sv->n;
}

/* The argument that parameter name e stands for, with the calls made
 * those of its caller (until inl_restore(sv)), or NULL. */
static Node *arg_of(Node *e, InlSave *sv)
{
	int depth;
	Node *arg = bound_arg(e->sym, &depth);
	if (arg) {
		sv->n = ninl;
		memcpy(sv->call, inl_call, sizeof sv->call);
		ninl = depth;
	}
	return arg;
}

static bool invariant(Node *e)
{
	switch (e->kind) {
	case N_INT: case N_BOOL:
		return true;
	case N_NAME: {
		Sym *s = e->sym;
		if (!s || s->kind != SYM_VAR || acc_is_local(s) || ty_is_dds(s->ty) || s->in_func)
			return false;
		for (int i = 0; i < acc_li->reduce_syms.n; i++)
			if (acc_li->reduce_syms.v[i] == s)
				return false;
		return ty_is_int(s->ty);
	}
	case N_BINARY: {
		/* The runtime computes an invariant of a key or a bound when
		 * the loop starts, even where a condition keeps the body from
		 * it (if (z != 0) x[i * (n / z)]): one that can fail there, a
		 * division by a variable or a shift by one, is not taken. */
		int64_t k;
		if ((e->op == TK_SLASH || e->op == TK_PERCENT) &&
		    (!const_of(e->rhs, &k) || k == 0 || k == -1))
			return false;
		if ((e->op == TK_SHL || e->op == TK_SHR) &&
		    (!const_of(e->rhs, &k) || k < 0 || k >= (e->ty->kind == TY_INT ? 32 : 64)))
			return false;
		return ty_is_int(e->ty) && invariant(e->lhs) && invariant(e->rhs);
	}
	case N_UNARY:
		return ty_is_int(e->ty) && invariant(e->lhs);
	case N_CALL: {
		if (e->builtin == B_LEN)
			return e->args->ty->kind == TY_DVEC;
		/* long d1() { return d + 1; }: the invariant it returns. */
		Node *r = !e->args ? returned_expr(e) : NULL;
		return r && invariant(r);
	}
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


/* The variables of the inner loops whose terms affine() puts in s[m]. */
#define SPAN_MAX 8
static Sym *span_syms[SPAN_MAX];
static int nspan_syms;

static void aff_append(Vec *to, const Vec *from)
{
	for (int i = 0; i < from->n; i++)
		vec_push(to, from->v[i]);
}

/* The product c * inv of two invariants, in int64 as the runtime takes
 * keys: c[(b * F + f) * OH + y], an image of a batch, is b F OH + f OH +
 * y, its factors ordered by their text so that F OH and OH F are one. */
static Node *inv_product(Node *c, Node *inv)
{
	if (strcmp(acc_key_id(c), acc_key_id(inv)) > 0) {
		Node *t = c;
		c = inv;
		inv = t;
	}
	Node *f[2] = {c, inv};
	Node *m = xcalloc(1, sizeof *m);
	m->kind = N_BINARY;
	m->op = TK_STAR;
	m->ty = ty_long;
	m->file = c->file;
	m->off = c->off;
	for (int k = 0; k < 2; k++) {
		Node *x = f[k];
		if (x->ty->kind != TY_LONG) {
			x = xcalloc(1, sizeof *x);
			x->kind = N_CONV;
			x->ty = ty_long;
			x->lhs = f[k];
			x->file = f[k]->file;
			x->off = f[k]->off;
		}
		if (k)
			m->rhs = x;
		else
			m->lhs = x;
	}
	return m;
}

/* The invariants equal to the loop variable where the key affine()
 * takes is computed (Access.eqs), or NULL. */
static const Vec *aff_eqs;

static Node *strip_int_conv(Node *e)
{
	while (e->kind == N_CONV && e->ty && ty_is_int(e->ty) && e->lhs->ty && ty_is_int(e->lhs->ty))
		e = e->lhs;
	return e;
}

/* e without the conversions that keep its value (int to long): not
 * (int)j of a long j, which may wrap where j does not. */
static Node *strip_widening(Node *e)
{
	while (e->kind == N_CONV && e->ty && e->lhs->ty && ty_is_int(e->lhs->ty) &&
	       (e->ty->kind == TY_LONG || (e->ty->kind == TY_INT && e->lhs->ty->kind != TY_LONG)))
		e = e->lhs;
	return e;
}

/* The value of e, through locals set once where they are declared and
 * never again (long kk = k; if (kk == i) ...): the body's copy of an
 * invariant is that invariant. */
static Node *local_value(Node *e)
{
	for (;;) {
		e = strip_widening(e);
		if (e->kind != N_NAME || !acc_is_local(e->sym) || e->sym->modified || !e->sym->decl ||
		    e->sym->decl->kind != N_VAR || !e->sym->decl->init || e->sym->vclass != V_LOCAL)
			return e;
		e = e->sym->decl->init;
	}
}

static bool equals_iv(Node *e)
{
	for (int i = 0; aff_eqs && i < aff_eqs->n; i++)
		if (acc_same_expr(strip_int_conv(e), aff_eqs->v[i]))
			return true;
	return false;
}

/* Whether only the invariants of aff_eqs inside a product are taken for
 * the loop variable (Access.eq_prod): a[k * w + k] is a[i * w + k], the
 * row moving as the other rows' keys do, not a[(w + 1) i] on a stride of
 * its own; and the depth of products affine() is in. */
static bool aff_eq_prod;
static int aff_in_prod;

/* Is e one of aff_eqs taken for the loop variable here? */
static bool eq_here(Node *e)
{
	return equals_iv(e) && (!aff_eq_prod || aff_in_prod > 0);
}

/* Does e hold one of aff_eqs taken for the loop variable (inside a
 * product, if only those, or in one when inprod), through the locals
 * affine() follows? */
static bool has_eq_in(Node *e, bool inprod)
{
	if (!e)
		return false;
	if (e->kind == N_NAME && acc_is_local(e->sym) && !e->sym->modified && e->sym->decl &&
	    e->sym->decl->kind == N_VAR && e->sym->decl->init && e->sym->vclass == V_LOCAL)
		return has_eq_in(e->sym->decl->init, inprod);
	if (equals_iv(e))
		return !aff_eq_prod || inprod;
	/* Through index helpers as affine() goes: K[at(k, j)] under if
	 * (i == k) is K[at(i, j)] (helper NEW: colours for the pivot row
	 * that k * n + j written out ran in chunks). */
	InlSave sv;
	Node *arg = e->kind == N_NAME && e->sym && e->sym->in_func ? arg_of(e, &sv) : NULL;
	if (arg) {
		bool r = has_eq_in(arg, inprod);
		inl_restore(&sv);
		return r;
	}
	if (e->kind == N_NAME && e->sym && e->sym->in_func)
		return false;
	if (e->kind == N_CALL && ninl < INLINE_MAX) {
		Node *r = returned_expr(e);
		if (!r)
			return false;
		inl_call[ninl++] = e;
		bool h = has_eq_in(r, inprod);
		ninl--;
		return h;
	}
	inprod |= e->kind == N_BINARY && e->op == TK_STAR;
	return has_eq_in(e->lhs, inprod) || has_eq_in(e->rhs, inprod);
}

static bool has_eq(Node *e)
{
	return has_eq_in(e, aff_in_prod > 0);
}

/* Does e hold one of aff_eqs inside a product? */
static bool eq_in_product(Node *e)
{
	bool saved = aff_eq_prod;
	aff_eq_prod = true;
	bool r = has_eq_in(e, false);
	aff_eq_prod = saved;
	return r;
}

/* Invariants that condition c (or its negation, when !pos) makes equal
 * to the loop variable where it holds, into out: the pivot row's
 * iteration of Gauss-Jordan, if (i == k) { x[k * w + j] /= p; }, writes
 * row i, which only it does. */
static void iv_equals(Node *c, bool pos, Vec *out)
{
	c = strip_int_conv(c);
	if (c->kind == N_UNARY && c->op == TK_NOT) {
		iv_equals(c->lhs, !pos, out);
		return;
	}
	if (c->kind != N_BINARY)
		return;
	if ((c->op == TK_ANDAND && pos) || (c->op == TK_OROR && !pos)) {
		iv_equals(c->lhs, pos, out);
		iv_equals(c->rhs, pos, out);
		return;
	}
	if (!((c->op == TK_EQ && pos) || (c->op == TK_NE && !pos)))
		return;
	Node *l = local_value(c->lhs), *r = local_value(c->rhs);
	/* i - k == 0, k - i == 0 (or 0 == ...). */
	int64_t z;
	if (const_of(l, &z) && z == 0) {
		Node *t = l;
		l = r;
		r = t;
	}
	if (const_of(r, &z) && z == 0 && l->kind == N_BINARY && l->op == TK_MINUS &&
	    ty_is_int(l->ty)) {
		r = local_value(l->rhs);
		l = local_value(l->lhs);
	}
	if (r->kind == N_NAME && r->sym == acc_iv) {
		Node *t = l;
		l = r;
		r = t;
	}
	if (l->kind == N_NAME && l->sym == acc_iv && ty_is_int(c->lhs->ty) && invariant(r))
		vec_push(out, r);
}


static bool int_or_long(const Type *t)
{
	return t && (t->kind == TY_INT || t->kind == TY_LONG);
}

/* The expression call c's function returns, when it is all its body and
 * c converts nothing narrower on the way (an argument or the result),
 * nor computes in int, whose products wrap at 32 bits where a key's form
 * does not; else NULL. */
static Node *returned_expr(Node *c)
{
	Sym *f = c->sym;
	if (c->builtin != B_NONE || !f || f->kind != SYM_FUNC || f->is_extern || !f->decl ||
	    f->decl->kind != N_FUNC || !f->decl->body)
		return NULL;
	for (int k = 0; k < ninl; k++)
		if (inl_call[k]->sym == f)
			return NULL;
	Node *b = f->decl->body;
	if (b->kind == N_BLOCK)
		b = b->args && !b->args->next ? b->args : NULL;
	if (!b || b->kind != N_RETURN || !b->lhs || !int_or_long(f->ty) ||
	    !int_or_long(b->lhs->ty) || (f->ty->kind == TY_INT && b->lhs->ty->kind == TY_LONG) ||
	    int32_arith(b->lhs))
		return NULL;
	Node *p = f->decl->args, *a = c->args;
	for (; p && a; p = p->next, a = a->next) {
		if (!p->sym || p->sym->modified || p->sym->wrote_at)
			return NULL;
		if (!ty_is_int(p->sym->ty))
			continue;
		Node *x = a;
		while (x->kind == N_CONV && x->lhs->ty && ty_is_int(x->lhs->ty))
			x = x->lhs;
		if (!int_or_long(p->sym->ty) || !int_or_long(x->ty) ||
		    (p->sym->ty->kind == TY_INT && x->ty->kind == TY_LONG) || int32_arith(a))
			return NULL;
	}
	return p || a ? NULL : b->lhs;
}

/* The argument that parameter x of an inlined call stands for, and the
 * depth of calls it is evaluated at; or NULL. */
static Node *bound_arg(const Sym *x, int *depth)
{
	for (int k = ninl - 1; k >= 0; k--) {
		Node *p = inl_call[k]->sym->decl->args, *a = inl_call[k]->args;
		for (; p && a; p = p->next, a = a->next)
			if (p->sym == x) {
				*depth = k;
				return a;
			}
	}
	return NULL;
}

/* e through the body locals affine() follows and the parameters of the
 * calls it inlined, from calls depth d in; into *depth the depth of
 * calls what it stands for is in. */
static Node *resolved(Node *e, int d, int *depth)
{
	InlSave sv = { .n = ninl };
	memcpy(sv.call, inl_call, sizeof sv.call);
	ninl = d;
	for (;;) {
		e = strip_int_conv(e);
		if (e->kind == N_NAME && acc_is_local(e->sym) && !e->sym->modified && e->sym->decl &&
		    e->sym->decl->kind == N_VAR && e->sym->decl->init && e->sym->vclass == V_LOCAL) {
			e = e->sym->decl->init;
			continue;
		}
		int k;
		Node *arg = e->kind == N_NAME && e->sym && e->sym->in_func ? bound_arg(e->sym, &k) :
		            NULL;
		if (!arg)
			break;
		ninl = k;
		e = arg;
	}
	*depth = ninl;
	inl_restore(&sv);
	return e;
}

static int names_param(Node *n, void *arg)
{
	(void)arg;
	return n->kind == N_NAME && n->sym && n->sym->in_func;
}

/* Do a (at depth da) and b (at db) stand for one value? */
static bool same_at(Node *a, int da, Node *b, int db)
{
	return acc_same_expr(a, b) && (da == db || (!emit_any_node(a, names_param, NULL) &&
	                                             !emit_any_node(b, names_param, NULL)));
}

/* x + y as (E / G) * G + E % G, in either order and G either side of
 * the product: E, which C's / and % make it for any G but 0, and the
 * depth of calls E is in (a flat index decoded, b = q / F, f = q % F,
 * and composed again, b * F + f: helper IMG's convolution by (image,
 * filter) ran planned where its rows never meet). */
static Node *div_mod_whole(Node *x, Node *y, int *depth)
{
	for (int sw = 0; sw < 2; sw++) {
		int dp, dm;
		Node *p = resolved(sw ? y : x, ninl, &dp), *m = resolved(sw ? x : y, ninl, &dm);
		if (p->kind != N_BINARY || p->op != TK_STAR || m->kind != N_BINARY || m->op != TK_PERCENT)
			continue;
		for (int side = 0; side < 2; side++) {
			int dq, dg, d1, d2, d3, d4;
			Node *q = resolved(side ? p->rhs : p->lhs, dp, &dq);
			Node *g = resolved(side ? p->lhs : p->rhs, dp, &dg);
			if (q->kind != N_BINARY || q->op != TK_SLASH || !ty_is_int(q->ty))
				continue;
			Node *qe = resolved(q->lhs, dq, &d1), *qg = resolved(q->rhs, dq, &d2);
			Node *me = resolved(m->lhs, dm, &d3), *mg = resolved(m->rhs, dm, &d4);
			/* G one value wherever it is read: an invariant, not a
			 * local assigned between the division and the remainder
			 * (G = G + 1: 2 ranks wrote other elements than 1). */
			int64_t k;
			if (!const_of(qg, &k) && (d2 != 0 || !invariant(qg)))
				continue;
			if (same_at(qe, d1, me, d3) && same_at(qg, d2, mg, d4) && same_at(qg, d2, g, dg)) {
				*depth = d1;
				return qe;
			}
		}
	}
	return NULL;
}

/* key = sum(a) * i + sum(b) (+ sum(s[m]) * span_syms[m] when s is
 * given), or false if e is not affine. */
static bool affine(Node *e, Vec *a, Vec *b, Vec *s)
{
	if (!ty_is_int(e->ty))
		return false;
	if (e->kind == N_NAME && e->sym && e->sym->in_func) {
		/* The argument in its caller's calls, whose slots its own
		 * calls take: the rest are put back after (helper U18: at(at(i,
		 * j), k) read the inner call's arguments for the outer's). */
		InlSave sv;
		Node *arg = arg_of(e, &sv);
		if (!arg)
			return false;
		bool ok = affine(arg, a, b, s);
		inl_restore(&sv);
		return ok;
	}
	if (e->kind == N_CALL && ninl < INLINE_MAX) {
		Node *r = returned_expr(e);
		if (!r)
			return false;
		inl_call[ninl++] = e;
		bool ok = affine(r, a, b, s);
		ninl--;
		return ok;
	}
	if ((e->kind == N_NAME && e->sym == acc_iv) || eq_here(e)) {
		aff_add(a, 1, NULL);
		return true;
	}
	for (int m = 0; s && e->kind == N_NAME && e->sym && m < nspan_syms; m++)
		if (e->sym == span_syms[m]) {
			aff_add(&s[m], 1, NULL);
			return true;
		}
	int64_t k;
	if (const_of(e, &k)) {
		aff_add(b, k, NULL);
		return true;
	}
	/* int j = i + 1; ... x[j]: a body local never written after its
	 * declaration holds its initializer's value wherever it is seen. */
	if (e->kind == N_NAME && acc_is_local(e->sym) && !e->sym->modified && e->sym->decl &&
	    e->sym->decl->kind == N_VAR && e->sym->decl->init && e->sym->vclass == V_LOCAL)
		return affine(e->sym->decl->init, a, b, s);
	if (invariant(e) && !has_eq(e)) {
		aff_add(b, 1, e);
		return true;
	}
	if (e->kind == N_CONV)
		return ty_is_int(e->lhs->ty) && affine(e->lhs, a, b, s);
	int ns = s ? nspan_syms : 0;
	Vec a1 = {0}, b1 = {0}, s1[SPAN_MAX] = {{0}};
	Node *w;
	int wd;
	if (e->kind == N_UNARY && e->op == TK_MINUS) {
		if (!affine(e->lhs, &a1, &b1, s ? s1 : NULL) || !aff_scale(&a1, -1) ||
		    !aff_scale(&b1, -1))
			return false;
		for (int m = 0; m < ns; m++)
			if (!aff_scale(&s1[m], -1))
				return false;
	} else if (e->kind == N_BINARY && e->op == TK_PLUS && !int32_arith(e) &&
	           (w = div_mod_whole(e->lhs, e->rhs, &wd))) {
		InlSave sv = { .n = ninl };
		memcpy(sv.call, inl_call, sizeof sv.call);
		ninl = wd;
		bool ok = affine(w, a, b, s);
		inl_restore(&sv);
		return ok;
	} else if (e->kind == N_BINARY && (e->op == TK_PLUS || e->op == TK_MINUS)) {
		if (!affine(e->lhs, a, b, s) || !affine(e->rhs, &a1, &b1, s ? s1 : NULL))
			return false;
		if (e->op == TK_MINUS) {
			if (!aff_scale(&a1, -1) || !aff_scale(&b1, -1))
				return false;
			for (int m = 0; m < ns; m++)
				if (!aff_scale(&s1[m], -1))
					return false;
		}
	} else if (e->kind == N_BINARY && e->op == TK_STAR) {
		Node *c = NULL, *x = NULL;
		/* A helper's parameter by what its argument in the loop body
		 * stands for, there: at4(b, f, y, x, F, CO, CO)'s row lengths
		 * (helper IMG). */
		int dl, dr;
		Node *rl = resolved(e->lhs, ninl, &dl), *rr = resolved(e->rhs, ninl, &dr);
		if (const_of(e->lhs, &k) || (invariant(e->lhs) && !has_eq_in(e->lhs, true)))
			c = e->lhs, x = e->rhs;
		else if (const_of(e->rhs, &k) || (invariant(e->rhs) && !has_eq_in(e->rhs, true)))
			c = e->rhs, x = e->lhs;
		else if (dl == 0 && (const_of(rl, &k) || (invariant(rl) && !has_eq_in(rl, true))))
			c = rl, x = e->rhs;
		else if (dr == 0 && (const_of(rr, &k) || (invariant(rr) && !has_eq_in(rr, true))))
			c = rr, x = e->lhs;
		else
			return false;
		aff_in_prod++;
		bool ok = affine(x, &a1, &b1, s ? s1 : NULL);
		aff_in_prod--;
		if (!ok)
			return false;
		/* In int, the body's products wrap at 32 bits where the
		 * form's do not (b * F * G with F = G = 65536 is 0 for every
		 * b): the runtime checks that a key computed in int, or each
		 * part computed in int of one computed in long, stays in int's
		 * range (Access.narrow, Access.checks). */
		Vec *all[SPAN_MAX + 2] = {&a1, &b1};
		for (int m = 0; m < ns; m++)
			all[m + 2] = &s1[m];
		if (const_of(c, &k)) {
			if (!aff_scale(&a1, k) || !aff_scale(&b1, k))
				return false;
			for (int m = 0; m < ns; m++)
				if (!aff_scale(&s1[m], k))
					return false;
		} else {
			/* An invariant factor: each term's invariant times it. */
			for (int v = 0; v < ns + 2; v++)
				for (int i = 0; i < all[v]->n; i++) {
					AffTerm *t = all[v]->v[i];
					t->inv = t->inv ? inv_product(c, t->inv) : c;
				}
		}
	} else {
		return false;
	}
	aff_append(a, &a1);
	aff_append(b, &b1);
	for (int m = 0; m < ns; m++)
		aff_append(&s[m], &s1[m]);
	return true;
}

/* Terms over the same invariant (or none) summed into one, and zeros
 * dropped: c[i - i] and c[0 * i + 1] write one element whatever i is,
 * and the verdict must see that.  False if a sum overflows. */
static bool aff_normalize(Vec *v)
{
	int n = 0;
	for (int i = 0; i < v->n; i++) {
		AffTerm *t = v->v[i];
		int j = 0;
		for (; j < n; j++) {
			AffTerm *u = v->v[j];
			if (u->inv == t->inv ||
			    (u->inv && t->inv && !strcmp(acc_key_id(u->inv), acc_key_id(t->inv))))
				break;
		}
		if (j < n) {
			AffTerm *u = v->v[j];
			if (__builtin_add_overflow(u->k, t->k, &u->k))
				return false;
		} else {
			v->v[n++] = t;
		}
	}
	int m = 0;
	for (int i = 0; i < n; i++)
		if (((AffTerm *)v->v[i])->k != 0)
			v->v[m++] = v->v[i];
	v->n = m;
	return true;
}

/* Does e do arithmetic in int, which wraps at 32 bits? */
static bool int32_arith(Node *e)
{
	if (!e)
		return false;
	if ((e->kind == N_BINARY || e->kind == N_UNARY) && e->ty && e->ty->kind == TY_INT)
		return true;
	if (e->kind == N_NAME && acc_is_local(e->sym) && !e->sym->modified && e->sym->decl &&
	    e->sym->decl->kind == N_VAR && e->sym->decl->init && e->sym->vclass == V_LOCAL)
		return int32_arith(e->sym->decl->init);
	return int32_arith(e->lhs) || int32_arith(e->rhs);
}

/* Is key e computed in int (under its conversion to an index)?  Its
 * body's value wraps at 32 bits, which the runtime checks its form for. */
static bool narrow_key(Node *e)
{
	while (e->kind == N_CONV && !e->ts && e->lhs->ty && ty_is_int(e->lhs->ty))
		e = e->lhs;
	return e->ty && e->ty->kind == TY_INT && int32_arith(e);
}

/* The largest parts of key e, computed in long, that are computed in
 * int with arithmetic (y * W + x in long(b) * S + (y * W + x)), through
 * locals as affine() goes. */
static void int_parts(Node *e, Vec *out)
{
	if (!e || !e->ty || !ty_is_int(e->ty))
		return;
	if (e->ty->kind == TY_INT) {
		if (int32_arith(e))
			vec_push(out, e);
		return;
	}
	if (e->kind == N_NAME && acc_is_local(e->sym) && !e->sym->modified && e->sym->decl &&
	    e->sym->decl->kind == N_VAR && e->sym->decl->init && e->sym->vclass == V_LOCAL) {
		int_parts(e->sym->decl->init, out);
		return;
	}
	if (e->kind == N_CONV || e->kind == N_UNARY || e->kind == N_BINARY) {
		int_parts(e->lhs, out);
		int_parts(e->rhs, out);
	}
}

/* Access a's checks (KeyCheck) of the int parts of its key computed in
 * long, by the span syms now set when dims: false if a part is not
 * affine in them, or moves with a loop that is not one of dims'. */
static bool key_checks(Access *a, Vec *dims)
{
	a->checks.n = 0;
	if (a->narrow)
		return true;
	Vec parts = {0};
	int_parts(a->key, &parts);
	for (int p = 0; p < parts.n; p++) {
		KeyCheck *c = xcalloc(1, sizeof *c);
		Vec S[SPAN_MAX] = {{0}};
		if (!affine(parts.v[p], &c->a, &c->b, dims ? S : NULL) || !aff_normalize(&c->a) ||
		    !aff_normalize(&c->b))
			return false;
		for (int m = 0; dims && m < nspan_syms; m++) {
			if (!aff_normalize(&S[m]))
				return false;
			bool found = false;
			for (int q = 0; q < dims->n; q++)
				found |= ((SpanDim *)dims->v[q])->var == span_syms[m];
			if (S[m].n && !found)
				return false;
		}
		for (int q = 0; dims && q < dims->n; q++) {
			Vec *v = xcalloc(1, sizeof *v);
			for (int m = 0; m < nspan_syms; m++)
				if (((SpanDim *)dims->v[q])->var == span_syms[m])
					*v = S[m];
			vec_push(&c->dimc, v);
		}
		vec_push(&a->checks, c);
	}
	return true;
}

/* Terms a key computed in int can have: int arithmetic wraps, so a
 * coefficient past int's range (i * 65536 * 65536 is 0 in int, 2^32 i
 * here) describes another key than the body's.  Such a key is dynamic. */
static bool fits_int32(const Vec *v)
{
	for (int i = 0; i < v->n; i++) {
		int64_t k = ((AffTerm *)v->v[i])->k;
		if (k < INT32_MIN || k > INT32_MAX)
			return false;
	}
	return true;
}

/* ---- spans: keys over an inner loop's range ---- */

/* Does anything in loop c but its step assign v? */
static bool loop_assigns(const Ctl *c, const Sym *v)
{
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		if (u == c->step)
			continue;
		bool in = u->node == c->node;
		for (int m = 0; m < u->ctrl.n && !in; m++)
			in = u->ctrl.v[m] == c->node;
		for (int m = 0; in && m < u->defs.n; m++)
			if (u->defs.v[m] == v)
				return true;
	}
	return false;
}

/* e + 1, for a bound of a loop written downwards. */
static Node *plus_one(Node *e)
{
	Node *one = xcalloc(1, sizeof *one), *n = xcalloc(1, sizeof *n);
	*one = (Node){ .kind = N_INT, .ival = 1, .has_cval = true, .cval = 1, .ty = e->ty,
	               .file = e->file, .off = e->off };
	*n = (Node){ .kind = N_BINARY, .op = TK_PLUS, .lhs = e, .rhs = one, .ty = e->ty,
	             .file = e->file, .off = e->off, .has_cval = e->has_cval,
	             .cval = e->cval + 1 };
	return n;
}

/* Is bound e invariant, or P i + Q with Q invariant and P a number or
 * an invariant times one (into *p, *q; p->n 0 when invariant)? */
static bool span_bound_ok(Node *e, Vec *p, Vec *q)
{
	p->n = q->n = 0;
	if (invariant(e))
		return true;
	/* Not computed in int, which wraps where the form does not. */
	const Vec *saved = aff_eqs;
	aff_eqs = NULL;
	bool ok = !int32_arith(e) && affine(e, p, q, NULL) && aff_normalize(p) && aff_normalize(q) &&
	          p->n;
	aff_eqs = saved;
	return ok;
}

/* for (int v = L; v < H; v++) (or v <= H, or v += 1), or downwards,
 * for (int v = H; v >= L; v--) (or v > L, or v -= 1), with L and H
 * invariant, or moving with the loop variable (span_bound_ok), and
 * nothing in the loop but its step assigning v: v, with its range
 * [*lo, *hi), or [*lo, *hi] when *le; else NULL. */
static Sym *span_loop(Node *f, Node **lo, Node **hi, bool *le)
{
	if (f->kind != N_FOR || !f->init || !f->cond || !f->step || f->init->kind != N_VAR ||
	    !f->init->init || !f->init->sym || !f->aux)
		return NULL;
	Sym *v = f->init->sym;
	Node *st = f->step, *c = f->cond;
	int64_t k;
	bool inc = (st->kind == N_INCDEC && st->op == TK_INC) ||
	           (st->kind == N_ASSIGN && st->op == TK_PLUS && const_of(st->rhs, &k) && k == 1);
	bool dec = (st->kind == N_INCDEC && st->op == TK_DEC) ||
	           (st->kind == N_ASSIGN && st->op == TK_MINUS && const_of(st->rhs, &k) && k == 1);
	if ((!inc && !dec) || !st->lhs || st->lhs->kind != N_NAME || st->lhs->sym != v)
		return NULL;
	Vec p = {0}, q = {0};
	if (c->kind != N_BINARY || c->lhs->kind != N_NAME || c->lhs->sym != v ||
	    !span_bound_ok(f->init->init, &p, &q) || !span_bound_ok(c->rhs, &p, &q) ||
	    (inc && c->op != TK_LT && c->op != TK_LE) || (dec && c->op != TK_GT && c->op != TK_GE))
		return NULL;
	if (loop_assigns(f->aux, v))
		return NULL;
	if (inc) {
		*lo = f->init->init;
		*hi = c->rhs;
		*le = c->op == TK_LE;
	} else {
		*lo = c->op == TK_GE ? c->rhs : plus_one(c->rhs);
		*hi = f->init->init;
		*le = true;
	}
	return v;
}

/* b into bounds, unless it is the loop's own, own + own_add, or one of
 * them already (t < T under for (t = 0; t < T; t++)). */
static void add_bound(Vec *bounds, SpanBound *b, Node *own, int64_t own_add)
{
	if (acc_same_expr(b->e, own) && b->add == own_add)
		return;
	for (int k = 0; k < bounds->n; k++) {
		SpanBound *x = bounds->v[k];
		if (acc_same_expr(x->e, b->e) && x->add == b->add)
			return;
	}
	vec_push(bounds, b);
}

/* Bounds on the variables of dims that condition c (or its negation,
 * when !pos) implies where it holds: t > 0 makes t's range start at 1. */
static void guard_bounds(Node *c, bool pos, Vec *dims)
{
	while (c->kind == N_CONV && c->lhs->ty && ty_is_int(c->lhs->ty) == ty_is_int(c->ty))
		c = c->lhs;
	if (c->kind == N_UNARY && c->op == TK_NOT) {
		guard_bounds(c->lhs, !pos, dims);
		return;
	}
	if (c->kind != N_BINARY)
		return;
	if ((c->op == TK_ANDAND && pos) || (c->op == TK_OROR && !pos)) {
		guard_bounds(c->lhs, pos, dims);
		guard_bounds(c->rhs, pos, dims);
		return;
	}
	int op = c->op;
	if (op != TK_LT && op != TK_LE && op != TK_GT && op != TK_GE && op != TK_EQ && op != TK_NE)
		return;
	for (int side = 0; side < 2; side++) {
		Node *v = side ? c->rhs : c->lhs, *k = local_value(side ? c->lhs : c->rhs);
		/* j + c, c a number, in long: j's bound is k - c (in int,
		 * j + c may wrap where j does not). */
		int64_t shift = 0, z;
		v = local_value(v);
		if (v->kind == N_BINARY && (v->op == TK_PLUS || v->op == TK_MINUS) && v->ty &&
		    v->ty->kind == TY_LONG && const_of(v->rhs, &z) && z > -(1LL << 40) &&
		    z < (1LL << 40)) {
			shift = v->op == TK_PLUS ? z : -z;
			v = local_value(v->lhs);
		}
		if (v->kind != N_NAME || !ty_is_int(k->ty) || !invariant(k))
			continue;
		for (int m = 0; m < dims->n; m++) {
			SpanDim *d = dims->v[m];
			/* Not of t = j - k i, which the guard does not bound. */
			if (d->var != v->sym || d->shifted)
				continue;
			int o = op;
			if (side)       /* k op v: v op' k */
				o = o == TK_LT ? TK_GT : o == TK_LE ? TK_GE : o == TK_GT ? TK_LT :
				    o == TK_GE ? TK_LE : o;
			if (!pos)
				o = o == TK_LT ? TK_GE : o == TK_LE ? TK_GT : o == TK_GT ? TK_LE :
				    o == TK_GE ? TK_LT : o == TK_EQ ? TK_NE : TK_EQ;
			SpanBound *lo = xcalloc(1, sizeof *lo), *hi = xcalloc(1, sizeof *hi);
			*lo = (SpanBound){ k, (o == TK_GT) - shift };
			*hi = (SpanBound){ k, (o == TK_LE || o == TK_EQ) - shift };
			/* if (t == 0) ... else: past the first pass. */
			bool past = o == TK_NE && !shift && acc_same_expr(k, d->lo);
			if (past)
				*lo = (SpanBound){ k, 1 };
			if (o == TK_GT || o == TK_GE || o == TK_EQ || past)
				add_bound(&d->los, lo, d->lo, 0);
			if (o == TK_LT || o == TK_LE || o == TK_EQ)
				add_bound(&d->his, hi, d->hi, d->le);
			return;
		}
	}
}

/* Does the expression e hold the node at?  On the way back, the
 * conditions it is under (the then or else of a ?:, the right of && or
 * ||) narrow the dims' bounds. */
static bool expr_guards(Node *e, Node *at, Vec *dims)
{
	if (!e)
		return false;
	if (e == at)
		return true;
	if (e->kind == N_COND) {
		if (expr_guards(e->then, at, dims)) {
			guard_bounds(e->cond, true, dims);
			return true;
		}
		if (expr_guards(e->els, at, dims)) {
			guard_bounds(e->cond, false, dims);
			return true;
		}
		return expr_guards(e->cond, at, dims);
	}
	if (e->kind == N_BINARY && (e->op == TK_ANDAND || e->op == TK_OROR) &&
	    expr_guards(e->rhs, at, dims)) {
		guard_bounds(e->lhs, e->op == TK_ANDAND, dims);
		return true;
	}
	if (e->kind == N_CALL)
		for (Node *x = e->args; x; x = x->next)
			if (expr_guards(x, at, dims))
				return true;
	return expr_guards(e->lhs, at, dims) || expr_guards(e->rhs, at, dims);
}

/* Is loop c the loop of one of dims, whose condition is its range? */
static bool dim_loop(Node *c, Vec *dims)
{
	for (int m = 0; c->kind == N_FOR && c->init && m < dims->n; m++)
		if (c->init->sym && c->init->sym == ((SpanDim *)dims->v[m])->var)
			return true;
	return false;
}

/* The guards of access a narrow the ranges of dims (its span's loops, or
 * the loop variable): an if or a loop it is under, and a ?:, && or || in
 * its statement. */
static void guards_of(Access *a, Vec *dims)
{
	Unit *u = NULL;
	for (int k = 0; k < acc_units.n && !u; k++) {
		Unit *x = acc_units.v[k];
		if (x->node == a->unit && !x->is_step)
			u = x;
	}
	if (!u)
		return;
	/* A while or for loop's condition holds in its body (not a do's,
	 * whose body runs once first). */
	for (int k = 0; k < u->ctrl.n; k++) {
		Node *c = u->ctrl.v[k];
		if (c->kind == N_IF && c->cond)
			guard_bounds(c->cond, !(intptr_t)u->branch.v[k], dims);
		/* Not in the loop's own condition (its unit lists the loop),
		 * which runs once more, false. */
		else if ((c->kind == N_WHILE || c->kind == N_FOR) && c->cond && c != u->node &&
		         !dim_loop(c, dims))
			guard_bounds(c->cond, true, dims);
	}
	Node *n = u->node;
	if (n->kind == N_VAR)
		expr_guards(n->init, a->at, dims);
	else if (n->kind == N_EXPR)
		expr_guards(n->lhs, a->at, dims);
	else if (n->cond && (n->kind == N_IF || n->kind == N_WHILE || n->kind == N_DO ||
	                     n->kind == N_FOR))
		expr_guards(n->cond, a->at, dims);
}

/* The guards of a static access on the loop variable itself (if (i > 0)
 * x[i - 1]), which the runtime's forms of keys take: a stencil's
 * boundary read, taken in every iteration, meets the first iteration's
 * write, and x[-1] is no key of x. */
static void iv_guards(Access *a)
{
	SpanDim d = { .var = acc_iv, .lo = acc_loop && acc_loop->kind == N_ASYNC ?
	                                  acc_loop->init->init : NULL };
	Vec dims = { .v = (void *[]){ &d }, .n = 1 };
	guards_of(a, &dims);
	a->iv_los = d.los;
	a->iv_his = d.his;
}

/* Each dynamic access of a dvector whose key is A * i + B + sum C_m j_m,
 * j_m the variables of enclosing counted loops (span_loop): a row of a
 * flat matrix, a[i * n + j], or an image of a batch, y[((b * F + f) * H +
 * y) * W + x].  Its keys for iteration i lie in a span the runtime knows
 * before it plans, and when the spans of different iterations cannot
 * meet (rows i of Gaussian elimination's step), the loop needs no
 * reconnaissance nor plan: one was 100 times the body. */
void acc_find_spans(void)
{
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		a->span = false;
		a->span_var = NULL;
		a->span_dims.n = 0;
		a->iv_los.n = a->iv_his.n = 0;
		aff_eqs = &a->eqs;
		aff_eq_prod = a->eq_prod;
		if (!a->dynamic && !a->accumulate && acc_iv)
			iv_guards(a);
		if (!a->dynamic || a->accumulate || a->dds->ty->kind != TY_DVEC)
			continue;
		Node *lo[SPAN_MAX], *hi[SPAN_MAX];
		bool le[SPAN_MAX];
		nspan_syms = 0;
		for (int m = a->ctrl.n - 1; m >= 0 && nspan_syms < SPAN_MAX; m--) {
			int n = nspan_syms;
			span_syms[n] = span_loop(a->ctrl.v[m], &lo[n], &hi[n], &le[n]);
			nspan_syms += span_syms[n] != NULL;
		}
		if (!nspan_syms)
			continue;
		Vec A = {0}, B = {0}, S[SPAN_MAX] = {{0}};
		bool ok = affine(a->key, &A, &B, S) && aff_normalize(&A) && aff_normalize(&B) &&
		          !(int32_arith(a->key) && (!fits_int32(&A) || !fits_int32(&B)));
		for (int m = 0; ok && m < nspan_syms; m++)
			ok = aff_normalize(&S[m]) && !(int32_arith(a->key) && !fits_int32(&S[m]));
		int n = nspan_syms;
		if (!ok) {
			nspan_syms = 0;
			continue;
		}
		for (int m = n - 1; m >= 0; m--) {
			if (!S[m].n)
				continue;
			SpanDim *d = xcalloc(1, sizeof *d);
			*d = (SpanDim){ .var = span_syms[m], .c = S[m], .lo = lo[m], .hi = hi[m], .le = le[m] };
			span_bound_ok(d->lo, &d->lo_p, &d->lo_q);
			span_bound_ok(d->hi, &d->hi_p, &d->hi_q);
			d->lo_iv = d->lo_p.n > 0;
			d->hi_iv = d->hi_p.n > 0;
			vec_push(&a->span_dims, d);
		}
		ok = a->span_dims.n && key_checks(a, &a->span_dims);
		nspan_syms = 0;
		if (!ok) {
			a->span_dims.n = 0;
			a->checks.n = 0;
			continue;
		}
		/* j from i - 2 to i + 2: j = i + t, t over [-2, 2], the
		 * iteration's keys moving by A + C, a stride of its own. */
		for (int m = 0; m < a->span_dims.n && !a->checks.n; m++) {
			SpanDim *d = a->span_dims.v[m];
			AffTerm *p = d->lo_p.n == 1 ? d->lo_p.v[0] : NULL;
			if (!d->lo_iv || !d->hi_iv || !p || p->inv || !acc_same_terms(&d->lo_p, &d->hi_p))
				continue;
			Vec c = {0};
			for (int t = 0; t < d->c.n; t++) {
				AffTerm *u = xcalloc(1, sizeof *u);
				*u = *(AffTerm *)d->c.v[t];
				vec_push(&c, u);
			}
			if (!aff_scale(&c, p->k))
				continue;
			Vec A2 = {0};
			aff_append(&A2, &A);
			aff_append(&A2, &c);
			if (!aff_normalize(&A2) || (int32_arith(a->key) && !fits_int32(&A2)))
				continue;
			A = A2;
			d->shifted = true;
			d->lo_iv = d->hi_iv = false;
		}
		a->span = true;
		a->span_a = A;
		a->span_b = B;
		guards_of(a, &a->span_dims);
		SpanDim *d = a->span_dims.v[0];
		AffTerm *t = d->c.v[0];
		if (a->span_dims.n == 1 && d->c.n == 1 && t->k == 1 && !t->inv && !d->los.n &&
		    !d->his.n && !d->lo_iv && !d->hi_iv && !d->shifted) {
			a->span_var = d->var;
			a->span_le = d->le;
			a->span_lo = d->lo;
			a->span_hi = d->hi;
		}
	}
	aff_eqs = NULL;
}

/* ---- walking the body ---- */


static Access *access(Node *at, Node *base, Node *key, int mode)
{
	Sym *d = dds_of(base);
	Access *a = xcalloc(1, sizeof *a);
	a->at = at;
	a->unit = acc_cur->node;
	a->dds = d;
	a->key = key;
	a->mode = mode;
	a->accumulate = acc_is_accum(acc_li, d);
	a->ddsi = dds_index(d, mode);
	a->narrow = narrow_key(key);
	/* Only of writes: a fixed key read, which the iteration that writes
	 * it runs as a hub before the others read it, keeps its form. */
	Vec eqs = {0};
	for (int i = 0; (mode & ACC_WRITE) && i < acc_ctrl.n; i++) {
		Node *c = acc_ctrl.v[i];
		if (c->kind == N_IF && c->cond)
			iv_equals(c->cond, !(intptr_t)acc_branch.v[i], &eqs);
	}
	for (int i = 0; i < eqs.n; i++) {
		aff_eqs = &(Vec){ .v = &eqs.v[i], .n = 1 };
		aff_eq_prod = false;
		if (has_eq(key))
			vec_push(&a->eqs, eqs.v[i]);
	}
	a->iv = acc_iv;
	aff_eqs = &a->eqs;
	a->eq_prod = aff_eq_prod = eq_in_product(key);
	if (!affine(key, &a->aterms, &a->bterms, NULL) || !aff_normalize(&a->aterms) ||
	    !aff_normalize(&a->bterms) ||
	    (int32_arith(key) && (!fits_int32(&a->aterms) || !fits_int32(&a->bterms))) ||
	    !key_checks(a, NULL)) {
		a->dynamic = true;
		a->aterms.n = a->bterms.n = 0;
		a->checks.n = 0;
	}
	aff_eqs = NULL;
	for (int i = 0; i < acc_ctrl.n; i++)
		vec_push(&a->ctrl, acc_ctrl.v[i]);
	vec_push(&acc_li->accesses, a);
	if (mode & ACC_READ)
		vec_push(&acc_cur->reads, at);
	if (mode & ACC_WRITE)
		acc_cur->ddswrite = at;
	acc_walk_expr(key);
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

/* The length of list local s, a variable of its own: only what replaces
 * the list or pushes to it sets it, so that a key bounded by len(z)
 * does not depend on what the body stores in z's elements (an LDA's
 * topics, drawn from the counts the loop writes). */
static Sym *len_sym(Sym *s)
{
	if (!s->len) {
		s->len = xcalloc(1, sizeof *s->len);
		*s->len = *s;
		s->len->name = format("len(%s)", s->name);
		s->len->len = NULL;
	}
	return s->len;
}

static bool list_local(Node *e)
{
	return e && e->kind == N_NAME && acc_is_local(e->sym) && e->sym->ty->kind == TY_LIST;
}

/* An assignment target: whole is true when the assignment replaces it,
 * elems when only elements of it are written. */
static void walk_target(Node *e, bool whole, bool elems)
{
	switch (e->kind) {
	case N_NAME:
		if (acc_is_local(e->sym)) {
			acc_add_sym(&acc_cur->defs, e->sym);
			if (!whole)
				acc_add_sym(&acc_cur->uses, e->sym);
			if (!elems && list_local(e))
				acc_add_sym(&acc_cur->defs, len_sym(e->sym));
		} else if (!ty_is_dds(e->sym->ty)) {
			acc_cur->effect = e;
		}
		return;
	case N_FIELD:
		walk_target(e->lhs, false, elems);
		return;
	case N_INDEX:
		if (acc_is_dds(e->lhs)) {
			Access *a = access(e, e->lhs, e->rhs, whole ? ACC_WRITE : ACC_RW);
			if (e->lhs->ty->kind == TY_DMAP && !a->accumulate && !has_key(e->lhs, e->rhs))
				a->structural = a->may_insert = true;
			return;
		}
		walk_target(e->lhs, false, elems || e->lhs->ty->kind == TY_LIST);
		acc_walk_expr(e->rhs);
		return;
	default:
		acc_walk_expr(e);
		return;
	}
}

static void walk_lvalue(Node *e, bool whole)
{
	walk_target(e, whole, false);
}

void acc_walk_expr(Node *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case N_NAME:
		if (acc_is_local(e->sym))
			acc_add_sym(&acc_cur->uses, e->sym);
		return;
	case N_INDEX:
		if (acc_is_dds(e->lhs)) {
			access(e, e->lhs, e->rhs, ACC_READ);
			return;
		}
		acc_walk_expr(e->lhs);
		acc_walk_expr(e->rhs);
		return;
	case N_FIELD: case N_UNARY: case N_CONV:
		acc_walk_expr(e->lhs);
		return;
	case N_BINARY:
		acc_walk_expr(e->lhs);
		acc_walk_expr(e->rhs);
		return;
	case N_COND:
		acc_walk_expr(e->cond);
		acc_walk_expr(e->then);
		acc_walk_expr(e->els);
		return;
	case N_ASSIGN:
		walk_lvalue(e->lhs, e->op == TK_ASSIGN);
		acc_walk_expr(e->rhs);
		return;
	case N_INCDEC:
		walk_lvalue(e->lhs, false);
		return;
	case N_CALL: {
		Node *a0 = e->args;
		switch (e->builtin) {
		case B_LEN:
			/* In the spec with no access, so that a plan made from
			 * its length is made again when the length changes. */
			if (a0 && acc_is_dds(a0)) {
				dds_index(dds_of(a0), 0);
				return;
			}
			if (list_local(a0)) {
				acc_add_sym(&acc_cur->uses, len_sym(a0->sym));
				return;
			}
			break;
		case B_PUSH:
			walk_lvalue(a0, false);
			acc_walk_expr(a0->next);
			return;
		case B_INSERT: case B_ERASE: {
			Access *a = access(e, a0, a0->next, ACC_WRITE);
			a->structural = true;
			/* insert() on a dmap sets the value of a key that is there. */
			a->may_insert = e->builtin == B_INSERT && a0->ty->kind == TY_DMAP;
			acc_walk_expr(a0->next->next);
			return;
		}
		case B_CONTAINS: case B_COUNT: case B_GET:
			access(e, a0, a0->next, ACC_READ);
			acc_walk_expr(a0->next->next);
			return;
		case B_GEMV:
			dds_index(dds_of(a0->next), ACC_READ);
			acc_add_sym(&acc_li->whole_dds, dds_of(a0->next));
			vec_push(&acc_cur->reads, a0->next);
			walk_lvalue(a0, false);
			acc_walk_expr(a0->next->next);
			return;
		case B_GER:
			dds_index(dds_of(a0), ACC_RW);
			acc_add_sym(&acc_li->whole_dds, dds_of(a0));
			vec_push(&acc_cur->reads, a0);
			acc_cur->ddswrite = e;
			acc_walk_expr(a0->next);
			acc_walk_expr(a0->next->next);
			acc_walk_expr(a0->next->next->next);
			return;
		case B_GEMM:
			/* Its first argument is the one written; dvectors are used
			 * whole. */
			for (Node *a = a0; a; a = a->next) {
				if (ty_is_dds(a->ty)) {
					dds_index(dds_of(a), a == a0 ? ACC_RW : ACC_READ);
					acc_add_sym(&acc_li->whole_dds, dds_of(a));
					vec_push(&acc_cur->reads, a);
					if (a == a0)
						acc_cur->ddswrite = e;
				} else if (a == a0) {
					walk_lvalue(a, false);
				} else {
					acc_walk_expr(a);
				}
			}
			return;
		case B_RAND: case B_RAND_INT: case B_RAND_NORMAL:
			/* Numbered before the walk (verdict.c), which may meet
			 * a call twice: a written DDS's key is walked as a read
			 * and as a write. */
			break;
		case B_WTIME:
			if (!acc_cur->rngcall)
				acc_cur->rngcall = e;
			break;
		case B_NONE:
			if (e->sym && e->sym->uses_rng)
				acc_cur->rngcall = e;
			else if (e->sym && e->sym->uses_clock && !acc_cur->rngcall)
				acc_cur->rngcall = e;
			if (e->sym && e->sym->is_extern) {
				/* A C function may write the body's own arrays
				 * passed to it, and a reduce variable's partial:
				 * an assignment, of part of them. */
				Node *p = e->sym->decl->args;
				for (Node *a = e->args; a; a = a->next, p = p ? p->next : NULL) {
					Sym *b = p && p->sym->ty->kind == TY_ARRAY ? acc_array_base(a) : NULL;
					if (b && ((acc_is_local(b) && !b->by_ref && !b->readonly) ||
					          (b->is_driver && sema_is_reduce_var(acc_loop, b))))
						walk_lvalue(a, false);
					else
						acc_walk_expr(a);
				}
				return;
			}
			break;
		default:
			break;
		}
		for (Node *a = e->args; a; a = a->next)
			acc_walk_expr(a);
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
	for (int i = 0; i < acc_ctrl.n; i++) {
		vec_push(&u->ctrl, acc_ctrl.v[i]);
		vec_push(&u->branch, acc_branch.v[i]);
	}
	u->pos = acc_units.n;
	vec_push(&acc_units, u);
	return u;
}

static Unit *expr_unit(Node *n, Node *e, bool is_step)
{
	Unit *saved = acc_cur;
	acc_cur = new_unit(n, is_step);
	acc_walk_expr(e);
	Unit *u = acc_cur;
	acc_cur = saved;
	return u;
}

static Ctl *new_ctl(Node *n, bool is_loop)
{
	Ctl *c = xcalloc(1, sizeof *c);
	c->node = n;
	c->is_loop = is_loop;
	for (int i = 0; i < acc_ctrl.n; i++)
		vec_push(&c->ctrl, acc_ctrl.v[i]);
	n->aux = c;
	vec_push(&acc_ctls, c);
	return c;
}

void acc_walk_stmt(Node *s)
{
	if (!s)
		return;
	s->slice = SL_NONE;
	switch (s->kind) {
	case N_BLOCK:
		for (Node *n = s->args; n; n = n->next)
			acc_walk_stmt(n);
		return;
	case N_VAR: {
		Unit *saved = acc_cur;
		acc_cur = new_unit(s, false);
		acc_add_sym(&acc_cur->defs, s->sym);
		if (acc_is_local(s->sym) && s->sym->ty->kind == TY_LIST)
			acc_add_sym(&acc_cur->defs, len_sym(s->sym));
		acc_walk_expr(s->init);
		acc_walk_expr(s->size);
		acc_cur = saved;
		return;
	}
	case N_EXPR:
		expr_unit(s, s->lhs, false);
		return;
	case N_IF: {
		Ctl *c = new_ctl(s, false);
		c->cond = expr_unit(s, s->cond, false);
		vec_push(&acc_ctrl, s);
		vec_push(&acc_branch, (void *)(intptr_t)0);
		acc_walk_stmt(s->then);
		acc_branch.v[acc_branch.n - 1] = (void *)(intptr_t)1;
		acc_walk_stmt(s->els);
		acc_ctrl.n--;
		acc_branch.n--;
		return;
	}
	case N_WHILE: case N_DO: case N_FOR: {
		if (s->kind == N_FOR)
			acc_walk_stmt(s->init);
		Ctl *c = new_ctl(s, true);
		vec_push(&acc_ctrl, s);
		vec_push(&acc_branch, (void *)(intptr_t)0);
		if (s->cond)
			c->cond = expr_unit(s, s->cond, false);
		if (s->step) {
			c->step = expr_unit(s, s->step, true);
			s->step->slice = SL_NONE;
		}
		acc_walk_stmt(s->body);
		acc_ctrl.n--;
		acc_branch.n--;
		return;
	}
	case N_BREAK: case N_CONTINUE: {
		Jump *j = xcalloc(1, sizeof *j);
		j->node = s;
		j->pos = acc_units.n;
		for (int i = 0; i < acc_ctrl.n; i++)
			vec_push(&j->ctrl, acc_ctrl.v[i]);
		for (int i = acc_ctrl.n - 1; i >= 0; i--) {
			Ctl *c = ((Node *)acc_ctrl.v[i])->aux;
			if (c->is_loop) {
				j->target = c->node;
				break;
			}
		}
		vec_push(&acc_jumps, j);
		return;
	}
	default:
		return;
	}
}

/* ---- taint ---- */

/* The DDS a read names: X[k], get(X, k) and the like, or X itself, which
 * gemv, ger and gemm read whole. */
Sym *acc_read_dds(Node *r)
{
	return dds_of(r->kind == N_INDEX ? r->lhs : r->kind == N_CALL ? r->args : r);
}

Vec acc_taints;

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
Taint *acc_taint_at(Sym *s, Unit *u)
{
	for (int i = 0; i < acc_taints.n; i++) {
		Taint *x = acc_taints.v[i];
		if (x->sym != s || !reaches(x->unit, u))
			continue;
		bool in = false;
		for (int k = 0; x->after && u && k < u->ctrl.n && !in; k++)
			in = u->ctrl.v[k] == x->after;
		if (!in)
			return x;
	}
	return NULL;
}

bool acc_tainted_def(Sym *s, Unit *u)
{
	for (int i = 0; i < acc_taints.n; i++) {
		Taint *x = acc_taints.v[i];
		if (x->sym == s && x->unit == u)
			return true;
	}
	return false;
}

/* Whether u assigns s a value no use can know: not a counted loop's
 * step, whose values the loop itself uses. */
bool acc_unknown_def(Sym *s, Unit *u)
{
	for (int i = 0; i < acc_taints.n; i++) {
		Taint *x = acc_taints.v[i];
		if (x->sym == s && x->unit == u && !x->after)
			return true;
	}
	return false;
}

static Access *access_at(Node *at)
{
	for (int i = 0; i < acc_li->accesses.n; i++)
		if (((Access *)acc_li->accesses.v[i])->at == at)
			return acc_li->accesses.v[i];
	return NULL;
}


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

/* Does every access of a's DDS have a's key, one affine form? */
static bool one_affine_key(Access *a)
{
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b->dds == a->dds && (b->dynamic || !acc_same_terms(&b->aterms, &a->aterms) ||
		                         !acc_same_terms(&b->bterms, &a->bterms)))
			return false;
	}
	return true;
}

typedef struct FieldOf {
	Node *at;
	int field;
} FieldOf;

static int find_field(Node *n, void *arg)
{
	FieldOf *f = arg;
	if (n->kind == N_FIELD && n->lhs == f->at) {
		f->field = n->field_index;
		return 1;
	}
	return 0;
}

typedef struct ParamUse {
	Sym *p;
	int field;              /* the one field of p read; -1 none yet */
} ParamUse;

static int param_use(Node *n, void *arg)
{
	ParamUse *u = arg;
	if (n->kind == N_FIELD && n->lhs && n->lhs->kind == N_NAME && n->lhs->sym == u->p) {
		if (u->field >= 0 && u->field != n->field_index)
			return 1;
		u->field = n->field_index;
		return -1;
	}
	return n->kind == N_NAME && n->sym == u->p;
}

typedef struct ArgOf {
	Node *at;
	Node *call;
	int pos;
} ArgOf;

static int find_arg(Node *n, void *arg)
{
	ArgOf *f = arg;
	if (n->kind != N_CALL)
		return 0;
	int k = 0;
	for (Node *a = n->args; a; a = a->next, k++)
		if (a == f->at) {
			f->call = n;
			f->pos = k;
			return 1;
		}
	return 0;
}

/* The one field of struct element at that a call passes it to reads,
 * where the function's parameter is read only as p.f and never assigned
 * nor passed on (int tgt(G g) { return g.to; } called tgt(Gr[i]), the
 * loop writing Gr[t].hits: helper FN), or -1. */
static int field_through_call(Node *unit, Node *at)
{
	ArgOf f = {at, NULL, 0};
	if (!emit_any_node(unit, find_arg, &f) || f.call->builtin != B_NONE || !f.call->sym ||
	    f.call->sym->kind != SYM_FUNC || f.call->sym->is_extern || !f.call->sym->decl ||
	    f.call->sym->decl->kind != N_FUNC)
		return -1;
	Node *fn = f.call->sym->decl, *par = fn->args;
	for (int k = 0; par && k < f.pos; k++)
		par = par->next;
	Sym *p = par ? par->sym : NULL;
	if (!p || !p->ty || p->ty->kind != TY_STRUCT || p->modified || p->wrote_at)
		return -1;
	ParamUse u = {p, -1};
	return emit_any_node(fn->body, param_use, &u) ? -1 : u.field;
}

/* The field of a struct element that access a reaches (D[d].w), or -1
 * for the whole element. */
static int field_of(const Access *a)
{
	FieldOf f = {a->at, -1};
	if (a->unit && a->at && a->at->kind == N_INDEX)
		emit_any_node(a->unit, find_field, &f);
	if (f.field < 0 && a->unit && a->at && a->at->kind == N_INDEX && a->mode == ACC_READ)
		f.field = field_through_call(a->unit, a->at);
	return f.field;
}

/* Is r a read of a field of a dvector's struct elements that no write of
 * the loop reaches (R[t].tags, where the loop writes R[k].n and
 * R[i].w[c]): its value is the one before the loop, which the slice
 * reads too.  A write of the whole element reaches every field. */
static bool unwritten_field(Node *r)
{
	Access *a = access_at(r);
	if (!a || a->dds->ty->kind != TY_DVEC)
		return false;
	int fa = field_of(a);
	if (fa < 0)
		return false;
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b->dds == a->dds && (b->mode & ACC_WRITE)) {
			int fb = field_of(b);
			if (fb < 0 || fb == fa)
				return false;
		}
	}
	return true;
}

/* Is r, read in unit ru, a read of the iteration's own element of a
 * dvector the loop writes, before the iteration writes it?  When every
 * access of the vector has one injective affine key, no other iteration
 * touches that element, so the body reads the value it had before the
 * loop, which is what the slice reads too. */
static bool own_read(Node *r, Unit *ru)
{
	Access *a = ru ? access_at(r) : NULL;
	if (!a || a->dynamic || a->dds->ty->kind != TY_DVEC || !acc_const_nonzero(&a->aterms))
		return false;
	for (int i = 0; i < acc_li->whole_dds.n; i++)
		if (acc_li->whole_dds.v[i] == a->dds)
			return false;
	int rp = -1;
	for (int i = 0; i < acc_units.n && rp < 0; i++)
		if (acc_units.v[i] == ru)
			rp = i;
	if (!one_affine_key(a))
		return false;
	/* A write of another field of the element leaves this one be
	 * (D[d].z[i] = ..., the key from D[d].w[i]). */
	int fa = field_of(a);
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b->dds != a->dds || !(b->mode & ACC_WRITE))
			continue;
		int fb = fa < 0 ? -1 : field_of(b);
		if (fa >= 0 && fb >= 0 && fb != fa)
			continue;
		for (int k = 0; k < acc_units.n; k++) {
			Unit *w = acc_units.v[k];
			if (w->node == b->unit && (k < rp || share_loop(ru, w)))
				return false;
		}
	}
	return true;
}

/* The write of the iteration's own element of a dvector that r, reading
 * that element, follows in the body (z[i] = ...; int k = z[i];), or NULL:
 * the slice knows the value before the loop, not the new one, and a key
 * taken from the value read before the write would be knowable. */
Node *acc_own_write_before(Node *r)
{
	Access *a = access_at(r);
	if (!a || a->dynamic || a->dds->ty->kind != TY_DVEC || !acc_const_nonzero(&a->aterms) ||
	    !one_affine_key(a))
		return NULL;
	int rp = -1;
	for (int i = 0; i < acc_units.n && rp < 0; i++)
		if (((Unit *)acc_units.v[i])->node == a->unit)
			rp = i;
	Node *w = NULL;
	for (int i = 0; rp >= 0 && i < acc_li->accesses.n; i++) {
		Access *b = acc_li->accesses.v[i];
		if (b->dds != a->dds)
			continue;
		for (int k = 0; !w && (b->mode & ACC_WRITE) && k < rp; k++)
			if (((Unit *)acc_units.v[k])->node == b->unit)
				w = b->at;
	}
	return w;
}

/* Does unit u compute something unknowable: a read of a DDS the loop
 * writes (not its own element, above), random numbers a called function
 * draws, or a tainted local (*from)? */
static Node *unit_taint(Unit *u, Sym **from)
{
	*from = NULL;
	for (int i = 0; i < u->reads.n; i++) {
		Node *r = u->reads.v[i];
		if (acc_changing(r, u))
			return r;
	}
	if (u->rngcall)
		return u->rngcall;
	for (int i = 0; i < u->uses.n; i++) {
		Sym *s = u->uses.v[i];
		Taint *x = acc_taint_at(s, u);
		if (x) {
			*from = s;
			return x->root;
		}
	}
	return NULL;
}

/* Jumps between j and its target whose guards are tainted make the
 * target's trip count unknowable. */
Node *acc_jump_taint(Jump *j)
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
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
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
	/* A draw in a loop the slice runs once for all its trips: the
	 * body's later trips draw numbers the slice never sees. */
	bool draws = acc_has_rand(acc_unit_expr(u));
	for (int k = 0; k < u->ctrl.n; k++) {
		Node *n = u->ctrl.v[k];
		if (!((Ctl *)n->aux)->taint || ((Ctl *)n->aux)->fork)
			continue;
		bool inside = false;
		for (int m = 0; d && m < d->ctrl.n && !inside; m++)
			inside = d->ctrl.v[m] == n;
		if (!inside || (draws && ((Ctl *)n->aux)->is_loop))
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
	 * that outlive the iteration is unknowable from then on.  What comes
	 * before it in the iteration, or in the loop's step, always runs. */
	for (int i = 0; i < acc_jumps.n; i++) {
		Jump *j = acc_jumps.v[i];
		if (j->node->kind != N_CONTINUE || !j->target || u->node == j->target ||
		    u->pos < j->pos)
			continue;
		bool in = false;
		for (int k = 0; k < u->ctrl.n && !in; k++)
			in = u->ctrl.v[k] == j->target;
		bool inside = false;
		for (int m = 0; d && m < d->ctrl.n && !inside; m++)
			inside = d->ctrl.v[m] == j->target;
		if (in && !inside && acc_jump_taint(j))
			return j->node;
	}
	return NULL;
}


/* Can the slice compute e, in unit u, exactly as the body does: no read
 * of a DDS the loop writes (but the iteration's own element), no tainted
 * local, no random numbers, no side effect?  Adds the locals it uses to
 * uses and its DDS reads to reads, when given. */
bool acc_evaluable(Node *e, Unit *u, Vec *uses, Vec *reads)
{
	if (!e)
		return true;
	switch (e->kind) {
	case N_NAME:
		if (acc_is_local(e->sym)) {
			if (acc_taint_at(e->sym, u))
				return false;
			if (uses)
				acc_add_sym(uses, e->sym);
		}
		return true;
	case N_INDEX:
		if (acc_is_dds(e->lhs)) {
			if (acc_changing(e, u))
				return false;
			if (reads)
				vec_push(reads, e);
			return acc_evaluable(e->rhs, u, uses, reads);
		}
		return acc_evaluable(e->lhs, u, uses, reads) && acc_evaluable(e->rhs, u, uses, reads);
	case N_ASSIGN: case N_INCDEC:
		return false;
	case N_CALL:
		if (e->rsite || e->builtin == B_WTIME ||
		    (e->builtin == B_NONE && (!e->sym || e->sym->uses_rng || e->sym->uses_clock)))
			return false;
		switch (e->builtin) {
		case B_PUSH: case B_INSERT: case B_ERASE: case B_GEMV: case B_GER: case B_GEMM:
			return false;
		case B_CONTAINS: case B_COUNT: case B_GET:
			if (acc_written(dds_of(e->args)))
				return false;
			if (reads)
				vec_push(reads, e);
			for (Node *a = e->args->next; a; a = a->next)
				if (!acc_evaluable(a, u, uses, reads))
					return false;
			return true;
		case B_LEN:
			/* A dvector's length is fixed; a map's changes with
			 * the keys the loop inserts. */
			if (e->args && acc_is_dds(e->args)) {
				Sym *d = dds_of(e->args);
				return d->ty->kind == TY_DVEC || !acc_written(d) || !acc_inserts(acc_li, d);
			}
			break;
		default:
			break;
		}
		for (Node *a = e->args; a; a = a->next)
			if (!acc_evaluable(a, u, uses, reads))
				return false;
		return true;
	default:
		/* A ?:'s branches too: the slice evaluates what it holds. */
		return acc_evaluable(e->lhs, u, uses, reads) && acc_evaluable(e->rhs, u, uses, reads) &&
		       acc_evaluable(e->cond, u, uses, reads) && acc_evaluable(e->then, u, uses, reads) &&
		       acc_evaluable(e->els, u, uses, reads);
	}
}

/* The leading conjuncts of e the slice can evaluate: e implies them,
 * and the body evaluates them whenever it evaluates e, so evaluating
 * them is safe where e is. */
Node *acc_then_guard(Node *e, Unit *u)
{
	if (acc_evaluable(e, u, NULL, NULL))
		return e;
	if (e->kind == N_BINARY && e->op == TK_ANDAND)
		return acc_then_guard(e->lhs, u);
	return NULL;
}

/* The leading disjuncts of e the slice can evaluate: when they hold, so
 * does e, and an else branch is not taken. */
Node *acc_else_skip(Node *e, Unit *u)
{
	if (e->kind != N_BINARY || e->op != TK_OROR)
		return NULL;
	if (acc_evaluable(e->lhs, u, NULL, NULL))
		return e->lhs;
	return acc_else_skip(e->lhs, u);
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
	acc_evaluable(b, NULL, &uses, NULL);
	for (int i = 0; i < uses.n; i++)
		if (uses.v[i] == v)
			return false;
	return !acc_defined_inside(c, &uses);
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
	if (st->lhs->kind != N_NAME || !acc_is_local(st->lhs->sym))
		return false;
	Sym *v = st->lhs->sym;
	bool up = st->op == TK_INC || st->op == TK_PLUS;
	int64_t k;
	if (st->kind == N_ASSIGN && (!const_of(st->rhs, &k) || k <= 0))
		return false;
	return !loop_assigns(c, v) && bounds(guard, v, up, n);
}

void acc_compute_taint(void)
{
	acc_taints.n = 0;
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < acc_ctls.n; i++) {
			Ctl *c = acc_ctls.v[i];
			if (c->taint)
				continue;
			Node *t = c->cond ? unit_taint(c->cond, &c->from) : NULL;
			Node *g = t && c->cond ? acc_then_guard(c->node->cond, c->cond) : c->node->cond;
			if (!t && c->is_loop)
				for (int k = 0; !t && k < acc_jumps.n; k++) {
					Jump *j = acc_jumps.v[k];
					if (j->target == c->node && j->node->kind == N_BREAK &&
					    (t = acc_jump_taint(j)))
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
		for (int i = 0; i < acc_units.n; i++) {
			Unit *u = acc_units.v[i];
			Sym *from;
			Node *t = unit_taint(u, &from);
			for (int k = 0; k < u->defs.n; k++) {
				Sym *s = u->defs.v[k];
				if (s == acc_iv || acc_tainted_def(s, u))
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
					for (int m = 0; m < acc_jumps.n && !j; m++)
						if (((Jump *)acc_jumps.v[m])->node == ctl)
							j = acc_jumps.v[m];
					x->root = acc_jump_taint(j);
				} else if (ctl) {
					Ctl *c = ctl->aux;
					x->root = c->taint ? c->taint : c->over;
					/* long k; for (k = 0; k < n && tainted; k++):
					 * k is as for (long k = 0; ...) inside. */
					if (!c->taint && c->over && u == c->step)
						x->after = ctl;
				}
				vec_push(&acc_taints, x);
				s->taint = x->root;
				changed = true;
			}
		}
	}
}


static void collect_uses(Node *e, Vec *uses)
{
	if (!e)
		return;
	if (e->kind == N_NAME && acc_is_local(e->sym))
		acc_add_sym(uses, e->sym);
	collect_uses(e->lhs, uses);
	collect_uses(e->rhs, uses);
	collect_uses(e->cond, uses);
	collect_uses(e->then, uses);
	collect_uses(e->els, uses);
	if (e->kind == N_CALL)
		for (Node *a = e->args; a; a = a->next)
			collect_uses(a, uses);
}

/* A local assigned under a tainted if, and used after it, has one of the
 * values its branches leave: the slice can run the iteration once with
 * each branch taken and record the keys of both.  That is exact when the
 * if runs at most once an iteration (in no loop of the body), so fork the
 * ifs whose control taints a local the recorded keys depend on. */
bool acc_choose_forks(void)
{
	Vec rel = {0};
	for (int i = 0; i < acc_li->accesses.n; i++) {
		Access *a = acc_li->accesses.v[i];
		if (a->dynamic && !a->accumulate && acc_written(a->dds)) {
			Vec u = {0};
			collect_uses(a->key, &u);
			for (int k = 0; k < u.n; k++)
				acc_add_sym(&rel, u.v[k]);
		}
	}
	for (int round = 0, before = -1; rel.n != before && round < 1000; round++) {
		before = rel.n;
		for (int i = 0; i < acc_units.n; i++) {
			Unit *u = acc_units.v[i];
			bool need = false;
			for (int k = 0; k < u->defs.n && !need; k++)
				for (int m = 0; m < rel.n && !need; m++)
					need = u->defs.v[k] == rel.v[m];
			if (!need)
				continue;
			for (int k = 0; k < u->uses.n; k++)
				acc_add_sym(&rel, u->uses.v[k]);
		}
	}
	bool added = false;
	for (int i = 0; i < acc_taints.n; i++) {
		Taint *x = acc_taints.v[i];
		if (!x->ctl || x->ctl->kind != N_IF || x->root != ((Ctl *)x->ctl->aux)->taint)
			continue;
		Ctl *c = x->ctl->aux;
		bool rl = false;
		for (int m = 0; m < rel.n && !rl; m++)
			rl = rel.v[m] == x->sym;
		bool in_loop = false;
		for (int k = 0; k < c->ctrl.n && !in_loop; k++)
			in_loop = ((Ctl *)((Node *)c->ctrl.v[k])->aux)->is_loop;
		if (!rl || in_loop || c->fork || acc_li->nforks == MAX_FORKS)
			continue;
		c->fork = ++acc_li->nforks;
		added = true;
	}
	return added;
}

/* Taint afresh, with the forks chosen. */
void acc_retaint(void)
{
	for (int i = 0; i < acc_units.n; i++) {
		Unit *u = acc_units.v[i];
		for (int k = 0; k < u->defs.n; k++)
			((Sym *)u->defs.v[k])->taint = NULL;
		for (int k = 0; k < u->uses.n; k++)
			((Sym *)u->uses.v[k])->taint = NULL;
	}
	for (int i = 0; i < acc_ctls.n; i++) {
		Ctl *c = acc_ctls.v[i];
		c->taint = c->over = c->guard = c->skip = c->jump = NULL;
		c->from = NULL;
	}
	acc_compute_taint();
}

int acc_slice_fork(Node *c)
{
	return c->kind == N_IF && c->aux ? ((Ctl *)c->aux)->fork : 0;
}
