/* emit_range.c: the values a local integer can hold, for index checks.
 *
 * An argmax, `if (s[j] > s[best]) best = j`, tested best against the
 * array's length at every pass.  cc drops the test on s[j], whose loop
 * has constant ends, but not the one on s[best], whose value comes round
 * the loop, and the test kept it from turning the branch into a
 * conditional move: the loop ran 3x slower than its C twin.
 *
 * A local whose every write is a plain `=` (its declaration included, or
 * its zero value without an initialiser) of a value in a known interval
 * holds only values in the union of those intervals, wherever it is read:
 * the argument is the same with or without flow.  Known values are
 * integer constants, the counter of an enclosing for loop with constant
 * ends that only its step changes, those plus or minus a constant, and
 * conditionals of them.  A subscript of such a local inside the array
 * needs no test.  Locals of functions and of loop bodies only: a driver
 * variable is also set by reduce clauses and by --resume.
 */

#include <stdint.h>

#include "sapc.h"
#include "grammar.h"

typedef struct Counter {
	Sym *j;
	int64_t lo, hi;
} Counter;

typedef struct Walk {
	Vec counters;           /* Counter *: the for loops around */
} Walk;

/* Far from int64_t's ends, so that sums of a few cannot wrap. */
static const int64_t big = (int64_t)1 << 40;

static int assigns(Node *n, void *s)
{
	return (n->kind == N_ASSIGN || n->kind == N_INCDEC) && n->lhs->kind == N_NAME &&
	       n->lhs->sym == s;
}

/* The interval of e's values at this point of the walk, if known. */
static bool interval(Walk *w, Node *e, int64_t *lo, int64_t *hi)
{
	int64_t v;
	if (emit_const_val(e, &v)) {
		*lo = *hi = v;
		return v > -big && v < big;
	}
	e = emit_unwiden(e);
	if (e->kind == N_NAME) {
		for (int i = w->counters.n - 1; i >= 0; i--) {
			Counter *c = w->counters.v[i];
			if (c->j == e->sym) {
				*lo = c->lo;
				*hi = c->hi;
				return true;
			}
		}
		return false;
	}
	int64_t l2, h2;
	if (e->kind == N_COND)
		return interval(w, e->then, lo, hi) && interval(w, e->els, &l2, &h2) &&
		       ((*lo = *lo < l2 ? *lo : l2), (*hi = *hi > h2 ? *hi : h2), true);
	if (e->kind == N_BINARY && (e->op == TK_PLUS || e->op == TK_MINUS) && ty_is_int(e->ty) &&
	    emit_const_val(e->rhs, &v) && v > -big && v < big && interval(w, e->lhs, lo, hi)) {
		*lo += e->op == TK_PLUS ? v : -v;
		*hi += e->op == TK_PLUS ? v : -v;
		/* An int sum out of int's range wraps. */
		return e->ty->kind != TY_INT || (*lo >= INT32_MIN && *hi <= INT32_MAX);
	}
	return false;
}

static bool candidate(Sym *s)
{
	return s && s->kind == SYM_VAR && s->vclass == V_LOCAL && !s->is_driver && s->ty &&
	       ty_is_int(s->ty);
}

/* s takes values in [lo, hi] too; or any value (known false).  An int
 * stores a value outside its range as another. */
static void join(Sym *s, bool known, int64_t lo, int64_t hi)
{
	if (s->ty->kind == TY_INT && (lo < INT32_MIN || hi > INT32_MAX))
		known = false;
	if (!s->vr_seen) {
		s->vr_seen = true;
		s->vr_known = known;
		s->vr_lo = lo;
		s->vr_hi = hi;
		return;
	}
	s->vr_known &= known;
	s->vr_lo = lo < s->vr_lo ? lo : s->vr_lo;
	s->vr_hi = hi > s->vr_hi ? hi : s->vr_hi;
}

/* for (j = a; j < b; j++ or j += c), a and b constants, j changed only
 * by the step: j is in [a, b - 1] in the body. */
static bool counter(Node *f, Counter *c)
{
	Node *in = f->init, *cd = f->cond, *st = f->step;
	int64_t a, b, step;
	Sym *j = NULL;
	if (!in || !cd || !st || !f->body)
		return false;
	if (in->kind == N_VAR && in->init && emit_const_val(in->init, &a))
		j = in->sym;
	else if (in->kind == N_EXPR && in->lhs->kind == N_ASSIGN && in->lhs->op == TK_ASSIGN &&
	         in->lhs->lhs->kind == N_NAME && emit_const_val(in->lhs->rhs, &a))
		j = in->lhs->lhs->sym;
	if (!j || !j->ty || !ty_is_int(j->ty) || cd->kind != N_BINARY || cd->lhs->kind != N_NAME ||
	    cd->lhs->sym != j || !emit_const_val(cd->rhs, &b) || (cd->op != TK_LT && cd->op != TK_LE))
		return false;
	if (!((st->kind == N_INCDEC && st->op == TK_INC) ||
	      (st->kind == N_ASSIGN && st->op == TK_PLUS && emit_const_val(st->rhs, &step) && step >= 1)) ||
	    st->lhs->kind != N_NAME || st->lhs->sym != j)
		return false;
	if (emit_any_node(f->body, assigns, j))
		return false;
	*c = (Counter){ .j = j, .lo = a, .hi = cd->op == TK_LT ? b - 1 : b };
	return c->lo <= c->hi && c->lo > -big && c->hi < big;
}

static void walk(Walk *w, Node *n);

static void walk_list(Walk *w, Node *n)
{
	for (; n; n = n->next)
		walk(w, n);
}

static int bound_var(Node *n, void *unused)
{
	(void)unused;
	if (n->kind == N_VAR && candidate(n->sym))
		join(n->sym, false, 0, 0);
	return 0;
}

static void walk(Walk *w, Node *n)
{
	if (!n)
		return;
	int64_t lo = 0, hi = 0;
	switch (n->kind) {
	case N_VAR:
		if (candidate(n->sym) && n->sym->decl == n) {
			bool known = !n->init || interval(w, n->init, &lo, &hi);
			join(n->sym, known, lo, hi);
		}
		break;
	case N_ASSIGN:
		if (n->lhs->kind == N_NAME && candidate(n->lhs->sym)) {
			bool known = n->op == TK_ASSIGN && interval(w, n->rhs, &lo, &hi);
			join(n->lhs->sym, known, lo, hi);
		}
		break;
	case N_INCDEC:
		if (n->lhs->kind == N_NAME && candidate(n->lhs->sym))
			join(n->lhs->sym, false, 0, 0);
		break;
	case N_ASYNC: case N_SYNC: case N_FUNC:
		/* Variables the loop or the call binds: any value. */
		emit_any_node(n->init, bound_var, w);
		for (Node *a = n->args; a; a = a->next)
			emit_any_node(a, bound_var, w);
		for (Node *a = n->clauses; a; a = a->next)
			emit_any_node(a, bound_var, w);
		break;
	default:
		break;
	}
	Node *kids[] = { n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->size };
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		walk(w, kids[i]);
	walk_list(w, n->args);
	walk_list(w, n->clauses);
	Counter c;
	bool counts = n->kind == N_FOR && counter(n, &c);
	if (counts)
		vec_push(&w->counters, &c);
	walk(w, n->body);
	if (counts)
		w->counters.n--;
}

void emit_value_ranges(Program *p)
{
	Walk w = {0};
	walk_list(&w, p->items);
}

bool emit_index_in(Node *i, int64_t len)
{
	i = emit_unwiden(i);
	return i->kind == N_NAME && candidate(i->sym) && i->sym->vr_known && i->sym->vr_lo >= 0 &&
	       i->sym->vr_hi < len;
}
