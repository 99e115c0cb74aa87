/* emit_expr.c: expressions to C.  An expression becomes a C expression
 * string; what cannot be one (whole-array arithmetic, list temporaries,
 * multimap lookups) is computed by statements added to E->pre, and the
 * lazy operators move such statements under their own condition. */
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/* ---- member access ---- */

/* The end of the balanced group ( ), [ ] or a literal that starts at s,
 * or NULL if it does not close. */
static const char *group_end(const char *s)
{
	int depth = 0;
	for (; *s; s++) {
		if (*s == '"' || *s == '\'') {
			char q = *s;
			for (s++; *s && *s != q; s++)
				if (*s == '\\' && s[1])
					s++;
			if (!*s)
				return NULL;
			if (!depth)
				return s + 1;
		} else if (*s == '(' || *s == '[') {
			depth++;
		} else if (*s == ')' || *s == ']') {
			if (--depth == 0)
				return s + 1;
		}
	}
	return NULL;
}

static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Whether s is one C postfix expression (a name or a parenthesised group,
 * then calls, subscripts and member accesses), to which .f can be added
 * without parentheses. */
static bool postfix_expr(const char *s)
{
	if (*s == '(') {
		s = group_end(s);
		if (!s)
			return false;
	} else if (ident_char(*s)) {
		while (ident_char(*s))
			s++;
	} else {
		return false;
	}
	for (;;) {
		if (!*s)
			return true;
		if (*s == '(' || *s == '[') {
			s = group_end(s);
			if (!s)
				return false;
		} else if (*s == '.' || (s[0] == '-' && s[1] == '>')) {
			s += *s == '.' ? 1 : 2;
			if (!ident_char(*s))
				return false;
			while (ident_char(*s))
				s++;
		} else {
			return false;
		}
	}
}

/* base.field, written as a person would: p->f for (*p).f, parentheses
 * only where precedence needs them. */
char *emit_member(const char *base, const char *field)
{
	if (base[0] == '*' && postfix_expr(base + 1))
		return format("%s->%s", base + 1, field);
	if (base[0] == '(' && base[1] == '*' && group_end(base) == base + strlen(base)) {
		char *inner = format("%.*s", (int)strlen(base) - 3, base + 2);
		return postfix_expr(inner) ? format("%s->%s", inner, field) : format("(%s)->%s", inner, field);
	}
	return postfix_expr(base) ? format("%s.%s", base, field) : format("(%s).%s", base, field);
}

/* &x, without &(*p) */
char *emit_addr(const char *x)
{
	if (x[0] == '*' && postfix_expr(x + 1))
		return format("%s", x + 1);
	if (x[0] == '(' && x[1] == '*' && group_end(x) == x + strlen(x))
		return format("(%.*s)", (int)strlen(x) - 3, x + 2);
	return postfix_expr(x) ? format("&%s", x) : format("&(%s)", x);
}

bool emit_is_simple(Node *e)
{
	switch (e->kind) {
	case N_INT: case N_FLOAT: case N_BOOL: case N_STR: case N_NAME:
		return true;
	case N_FIELD:
		return emit_is_simple(e->lhs);
	default:
		return false;
	}
}

static bool is_lvalue(Node *e)
{
	return e->kind == N_NAME || e->kind == N_FIELD ||
	       (e->kind == N_INDEX && e->lhs->ty->kind != TY_DMMAP);
}

/* A literal or a scalar variable: reads no container. */
static bool inert(Node *e)
{
	return e->kind == N_INT || e->kind == N_FLOAT || e->kind == N_BOOL || e->kind == N_STR ||
	       (e->kind == N_NAME && ty_is_scalar(e->ty));
}

/* A call whose result is a new value the caller owns. */
static bool fresh_call(Node *e)
{
	return !e->builtin || e->builtin == B_TOKENS || e->builtin == B_SPLIT ||
	       e->builtin == B_FIELDS;
}

/* A value of a list-holding type that nobody owns yet goes to a temporary
 * dropped after the statement. */
static char *borrow_temp(Type *t, const char *value)
{
	char *tmp = emit_tmp("t");
	emit_line(NULL, "%s %s = %s;", emit_ctype(t), tmp, value);
	if (E->drops)
		vec_push(E->drops, format("%s(&%s);", emit_drop_fn(t), tmp));
	return tmp;
}

/* DDS d's index in the spec of the async loop being written, if its plan
 * orders d (the loop writes it, not by accumulate), else -1. */
int emit_planned_dds(Sym *d)
{
	Node *l = E->loop;
	if (!d || !l || l->kind != N_ASYNC || acc_is_accum(l->li, d))
		return -1;
	for (int i = 0; i < l->li->dds.n; i++)
		if (l->li->dds.v[i] == d)
			return ((intptr_t)l->li->dds_mode.v[i] & ACC_WRITE) ? i : -1;
	return -1;
}

/* Map md's key k, in an async body under --check-plan audited as an
 * access in mode (ACC_READ, ACC_WRITE) when the plan orders md: as
 * sap_audit_key for dvectors (emit_audit), the checked version's keys
 * against the iteration's reconnaissance. */
static char *map_key(Sym *md, Node *k, int mode)
{
	char *key = emit_expr(k);
	int i = E->in_body ? emit_planned_dds(md) : -1;
	if (i < 0)
		return key;
	int id = E->loop->li->id;
	const char *L = E->versioned ? format("sap_v == 0 ? &sap_loop%d : NULL", id) :
	                format("&sap_loop%d", id);
	/* An int key back to int from the audit's long (-Wconversion). */
	return format("%ssap_audit_%ck(%s, %d, sap_i, %s, %d, %s)",
	              k->ty->kind == TY_INT ? "(int32_t)" : "", k->ty->kind == TY_STRING ? 's' : 'i',
	              L, i, key, mode & ACC_WRITE ? 2 : 1, emit_site(k));
}

/* &k for the map calls that take a key by address; m the map. */
static char *key_ref(Type *kt, Node *m, Node *k, int mode)
{
	return format("&(%s){%s}", emit_ctype(kt), map_key(m->kind == N_NAME ? m->sym : NULL, k, mode));
}

/* sap_dm_FN(&m, k), through sap.h's inline probe for int and long keys;
 * site, when not NULL, is the last argument.  mn, when not NULL, is the
 * map as a node, whose key an async body audits (map_key) in mode. */
static char *dm_call(const char *fn, Type *kt, Node *mn, const char *m, Node *k, const char *site,
                     int mode)
{
	const char *tail = site ? format(", %s", site) : "";
	char *key = map_key(mn && mn->kind == N_NAME ? mn->sym : NULL, k, mode);
	const Memo *mm = emit_memo(mn, k);
	const char *pre = mm ? "memo" : "dm";
	const char *memo = mm ? format("&%s, %s, ", mm->var, mm->cond) : "";
	if (kt->kind == TY_INT || kt->kind == TY_LONG)
		return format("sap_%s_%s_int(%s&%s, %s, %s%s)", pre, fn, memo, m, key,
		              kt->kind == TY_LONG ? "true" : "false", tail);
	return format("sap_%s_%s(%s&%s, &(%s){%s}%s)", pre, fn, memo, m, emit_ctype(kt), key, tail);
}

static char *lit(Node *e)
{
	switch (e->kind) {
	case N_INT:
		if (e->ty->kind == TY_LONG)
			return format("INT64_C(%lld)", (long long)e->ival);
		return format("%lld", (long long)e->ival);
	case N_FLOAT:
		return format("%s%s", e->sval, e->is_float32 ? "f" : "");
	case N_STR:
		return emit_cstr(e->sval, e->ival);
	case N_BOOL:
		return e->ival ? "true" : "false";
	default:
		return "0";
	}
}

/* ---- storage ---- */

/* In an async body's checked version, --check-plan audits each access
 * of a dvector its plan orders (one the loop writes) against the keys
 * of the iteration's reconnaissance: the arguments of sap_dv_ixa after
 * the check, or NULL where there is nothing to audit. */
const char *emit_audit(Sym *d, bool write)
{
	int i = E->versioned ? emit_planned_dds(d) : -1;
	return i < 0 ? NULL : format(", sap_v == 0 ? &sap_loop%d : NULL, %d, sap_i, %d",
	                             E->loop->li->id, i, write ? 2 : 1);
}

/* The key of m[k], a multimap's read, in a temporary of its type: its
 * name. */
static char *mm_key(Node *ix)
{
	char *key = emit_tmp("key");
	emit_line(ix, "%s %s = %s;", emit_ctype(ix->lhs->ty->key), key,
	          map_key(ix->lhs->kind == N_NAME ? ix->lhs->sym : NULL, ix->rhs, ACC_READ));
	return key;
}

/* Set by emit_owned: the list m[k] of a dmultimap builds is the
 * receiver's, not a temporary to drop after a copy.  dmm_view: and the
 * receiver never changes it, nor the loop the map, so it may borrow the
 * map's values (emit_view). */
static bool dmm_owned, dmm_view;

/* The list a for loop found m[k]'s values in before its first pass
 * (hoist_in in emit.c), or NULL. */
static const char *hoisted_values(Node *e)
{
	if (e->lhs->kind != N_NAME || e->lhs->ty->kind != TY_DMMAP || !E->hoisted.n)
		return NULL;
	char *k = acc_key_id(e->rhs);
	for (int i = E->hoisted.n - 1; i >= 0; i--) {
		Hoist *h = E->hoisted.v[i];
		if (h->dds == e->lhs->sym && !strcmp(h->key, k))
			return h->ptr;
	}
	return NULL;
}

/* The key of e, x[k], emitted once into *kp: the caller may use it again. */
static char *dv_key(Node *e, char **kp)
{
	if (!*kp)
		*kp = emit_expr(e->rhs);
	return *kp;
}

/* Element e, x[k], of a vector. */
static char *dv_index(Node *e, bool write, char **kp)
{
	Type *bt = e->lhs->ty;
	if (E->loop && acc_is_accum(E->loop->li, e->lhs->sym) && E->acc_locals)
		return format("sap_acc_%s[sap_check_index(%s, sap_accn_%s, %s, %s)]", e->lhs->sym->cname,
		              dv_key(e, kp), e->lhs->sym->cname,
		              emit_cstr(e->lhs->sym->name, strlen(e->lhs->sym->name)), emit_site(e));
	if (E->loop && acc_is_accum(E->loop->li, e->lhs->sym))
		return format("((%s *)sap_red->acc_%s)[sap_check_index(%s, %s.n, %s, %s)]",
		              emit_ctype(bt->elem), e->lhs->sym->cname, dv_key(e, kp),
		              e->lhs->sym->cname, emit_cstr(e->lhs->sym->name, strlen(e->lhs->sym->name)),
		              emit_site(e));
	/* The iteration's own element, from the plan-order copy when
	 * there is one (see emit_staged). */
	int st = E->loop && !write && E->loop->kind == N_ASYNC ?
	         emit_staged(E->loop->li, e->lhs->sym) : -1;
	/* Static keys are in range for sap_v >= 1, recorded ones for
	 * sap_v == 2, where every plan-order copy is there too; sap_v == -1
	 * checks as 0 does, without the audit. */
	const char *au = emit_audit(e->lhs->sym, write);
	if (E->versioned && acc_static_dv(E->loop->li, e)) {
		char *el = format("((%s *)%s)[sap_dv_ix%s(&%s, %s, %s, sap_v < 1%s)]",
		                  emit_ctype(bt->elem), emit_dv_data(e->lhs->sym), au ? "a" : "c",
		                  e->lhs->sym->cname, dv_key(e, kp), emit_site(e), au ? au : "");
		/* Pointers chosen, then dereferenced: an lvalue, whose
		 * address array code may take. */
		return st < 0 ? format("(%s)", el) :
		       format("(*(%ssap_st%d ? &sap_st%d[sap_k] : &%s))",
		              emit_stage_sure(E->loop->li, e->lhs->sym) ? "sap_v == 2 || " : "",
		              st, st, el);
	}
	if (st >= 0) {
		char *v = emit_expr(e->lhs);
		return format("(*(sap_st%d ? &sap_st%d[sap_k] : &((%s *)%s.data)[sap_dv_ix(&%s, %s, %s)]))",
		              st, st, emit_ctype(bt->elem), v, v, dv_key(e, kp), emit_site(e));
	}
	const char *in = E->loop || E->drv_fast ? emit_ranged(e->rhs) : NULL;
	if (E->versioned && acc_recorded_dv(E->loop->li, e))
		return format("(((%s *)%s)[sap_dv_ix%s(&%s, %s, %s, sap_v < 2%s%s%s)])",
		              emit_ctype(bt->elem), emit_dv_data(e->lhs->sym), au ? "a" : "c",
		              e->lhs->sym->cname, dv_key(e, kp), emit_site(e), in ? " && !" : "",
		              in ? in : "", au ? au : "");
	if (e->lhs->kind == N_NAME && E->hoisted.n) {
		char *k = acc_key_id(e->rhs);
		for (int i = E->hoisted.n - 1; i >= 0; i--) {
			Hoist *h = E->hoisted.v[i];
			if (h->dds == e->lhs->sym && !strcmp(h->key, k))
				return format("(*%s)", h->ptr);
		}
	}
	/* A sync for body logs the rows it writes of a vector on the
	 * sparse path (emit_tracked). */
	bool mark = write && E->loop && e->lhs->kind == N_NAME &&
	            emit_tracked(E->loop->li, e->lhs->sym);
	const char *mk = mark ? format("sap_sync_mark(sap_l%s, ", e->lhs->sym->cname) : "";
	const char *mke = mark ? ")" : "";
	/* Driver code runs on every rank: it needs every rank's copy
	 * current (sap_dv_ixd), which a driver loop tests once for the
	 * vectors it indexes (E->drv_fast). */
	if (!E->loop && E->drv_fast && e->lhs->kind == N_NAME) {
		char *v = emit_expr(e->lhs);
		return format("(((%s *)%s)[sap_dv_ixdf(&%s, %s, %s, %s, %s)])", emit_ctype(bt->elem),
		              emit_dv_data(e->lhs->sym), v, dv_key(e, kp), emit_site(e), E->drv_fast,
		              in ? in : "false");
	}
	if (e->lhs->kind == N_NAME && in) {
		char *v = emit_expr(e->lhs);
		return format("(((%s *)%s)[%ssap_dv_ixc(&%s, %s, %s, !%s)%s])", emit_ctype(bt->elem),
		              emit_dv_data(e->lhs->sym), mk, v, dv_key(e, kp), emit_site(e), in,
		              mke);
	}
	if (e->lhs->kind == N_NAME) {
		char *v = emit_expr(e->lhs);
		return format("(((%s *)%s)[%ssap_dv_ix%s(&%s, %s, %s)%s])", emit_ctype(bt->elem),
		              emit_dv_data(e->lhs->sym), mk, E->loop ? "" : "d", v, dv_key(e, kp),
		              emit_site(e), mke);
	}
	return format("(*(%s *)sap_dv_at%s(&%s, %s, %s))", emit_ctype(bt->elem),
	              E->loop ? "" : "d", emit_expr(e->lhs), dv_key(e, kp), emit_site(e));
}

static char *index_expr(Node *e, bool write)
{
	Type *bt = e->lhs->ty;
	/* Sites are registered only where used: sap_S must not hold unused ones. */
	switch (bt->kind) {
	case TY_ARRAY: {
		Node *i = e->rhs;
		Sym *lz = e->lhs->kind == N_NAME && e->lhs->sym->lazy ? e->lhs->sym : NULL;
		char *b = lz ? lz->cname : write ? emit_lvalue(e->lhs) : emit_expr(e->lhs);
		char *k;
		const char *in = i->kind == N_INT ? NULL : emit_ranged(i);
		/* The error names the array as written (a, w[3].h[k]). */
		char *what = format("array '%s'", acc_expr_str(e->lhs));
		const char *wc = emit_cstr(what, strlen(what));
		if (i->kind == N_INT || emit_index_in(i, bt->len)) {
			k = emit_expr(i);
		} else if (in) {
			char *x = emit_expr(i);
			k = format("%s ? %s : sap_check_index(%s, %lld, %s, %s)", in, x, x,
			           (long long)bt->len, wc, emit_site(e));
		} else {
			k = format("sap_check_index(%s, %lld, %s, %s)", emit_expr(i), (long long)bt->len,
			           wc, emit_site(e));
		}
		/* A lazily zeroed array's rows up to k first (emit.c). */
		if (lz)
			k = format("sap_lazy_row(%s.v, sizeof %s.v[0], %lld, &%s_hw, %s)", b, b,
			           (long long)bt->len, b, k);
		return format("%s[%s]", emit_member(b, "v"), k);
	}
	case TY_LIST: {
		/* m[k][i] of a multimap: the value itself, not a copy of all
		 * of k's values for each i (a loop over them was quadratic). */
		Node *mk = e->lhs;
		const char *hv = mk->kind == N_INDEX ? hoisted_values(mk) : NULL;
		if (hv) {
			char *x = emit_expr(e->rhs);
			char *what = format("list '%s'", acc_expr_str(mk));
			return format("((%s *)%s.v)[sap_check_index(%s, %s.n, %s, %s)]",
			              emit_ctype(bt->elem), hv, x, hv, emit_cstr(what, strlen(what)),
			              emit_site(e));
		}
		if (!write && mk->kind == N_INDEX && mk->lhs->ty->kind == TY_DMMAP &&
		    !ty_needs_drop(bt->elem)) {
			char *key = mm_key(mk);
			return format("(*(%s *)sap_dm_value_at(&%s, &%s, %s, %s))", emit_ctype(bt->elem),
			              emit_expr(mk->lhs), key, emit_expr(e->rhs), emit_site(e));
		}
		char *b = write ? emit_lvalue(e->lhs) : emit_expr(e->lhs);
		if (emit_counted(e->lhs, e->rhs))
			return format("((%s *)%s)[%s]", emit_ctype(bt->elem), emit_member(b, "v"),
			              emit_expr(e->rhs));
		/* Named in the message as the source writes it, as a vector is. */
		char *what = format("list '%s'", acc_expr_str(e->lhs));
		return format("(*(%s *)sap_list_atn(&%s, %s, sizeof(%s), %s, %s))", emit_ctype(bt->elem),
		              b, emit_expr(e->rhs), emit_ctype(bt->elem), emit_cstr(what, strlen(what)),
		              emit_site(e));
	}
	case TY_DVEC: {
		char *key = NULL;
		char *el = dv_index(e, write, &key);
		Sym *d = e->lhs->kind == N_NAME ? e->lhs->sym : NULL;
		/* Sums go to the worker's buffer when the runtime made one
		 * (acc_find_sums), else where the plan orders them. */
		if (!d || !E->loop || !E->acc_locals || E->loop->kind != N_ASYNC ||
		    !acc_is_sum(E->loop->li, d))
			return el;
		return format("(*(sap_acc_%s ? &sap_acc_%s[sap_check_index(%s, sap_accn_%s, %s, %s)] : &%s))",
		              d->cname, d->cname, dv_key(e, &key), d->cname,
		              emit_cstr(d->name, strlen(d->name)), emit_site(e), el);
	}
	case TY_DMAP:
		if (E->loop && acc_is_accum(E->loop->li, e->lhs->sym))
			return format("(*(%s *)%s)", emit_ctype(bt->elem),
			              dm_call("upsert", bt->key, e->lhs, format("sap_red->acc_%s", e->lhs->sym->cname),
			                      e->rhs, NULL, 0));
		if (write)
			return format("(*(%s *)%s)", emit_ctype(bt->elem),
			              dm_call("upsert", bt->key, e->lhs, emit_expr(e->lhs), e->rhs, NULL, ACC_WRITE));
		return format("(*(%s *)%s)", emit_ctype(bt->elem),
		              dm_call("get", bt->key, e->lhs, emit_expr(e->lhs), e->rhs, emit_site(e), ACC_READ));
	case TY_DMMAP: {
		/* m[k] is a list of k's values, in insertion order. */
		Type *lt = e->ty;
		const char *vt = emit_ctype(bt->elem);
		const char *hv = hoisted_values(e);
		if (hv) {
			bool owned = dmm_owned;
			dmm_owned = dmm_view = false;
			return owned ? format("%s(&%s)", emit_copy_fn(lt), hv) : (char *)hv;
		}
		char *t = emit_tmp("vals");
		char *pos = emit_tmp("pos");
		char *slot = emit_tmp("v");
		bool owned = dmm_owned, view = dmm_view;
		dmm_owned = dmm_view = false;
		emit_line(e, "sap_list %s = {0};", t);
		char *key = mm_key(e);
		if (!ty_needs_drop(bt->elem)) {
			if (view && e->lhs->ty->key->kind != TY_STRING)
				emit_line(e, "sap_dm_view_int(&%s, (int64_t)%s, &%s);", emit_expr(e->lhs),
				          key, t);
			else
				emit_line(e, "sap_dm_%s(&%s, &%s, &%s);", view ? "view" : "values",
				          emit_expr(e->lhs), key, t);
			if (E->drops && !owned)
				vec_push(E->drops, format("%s(&%s);", emit_drop_fn(lt), t));
			return t;
		}
		emit_line(e, "for (int64_t %s = 0;;) {", pos);
		emit_line(e, "\t%s *%s = sap_dm_next_of(&%s, &%s, &%s);", vt, slot, emit_expr(e->lhs), key, pos);
		emit_line(e, "\tif (!%s)", slot);
		emit_line(e, "\t\tbreak;");
		if (ty_needs_drop(bt->elem))
			emit_line(e, "\t*(%s *)sap_list_push(&%s, sizeof(%s)) = %s(%s);", vt, t, vt,
			          emit_copy_fn(bt->elem), slot);
		else
			emit_line(e, "\t*(%s *)sap_list_push(&%s, sizeof(%s)) = *%s;", vt, t, vt, slot);
		emit_line(e, "}");
		if (E->drops && !owned)
			vec_push(E->drops, format("%s(&%s);", emit_drop_fn(lt), t));
		return t;
	}
	default:
		return "0";
	}
}

/* A lazily zeroed array used whole: all of it zeroed first. */
static char *lazy_whole(Sym *s)
{
	return format("(*(%s *)sap_lazy_all(%s.v, sizeof %s.v[0], %lld, &%s_hw))", emit_ctype(s->ty),
	              s->cname, s->cname, (long long)s->ty->len, s->cname);
}

char *emit_lvalue(Node *e)
{
	switch (e->kind) {
	case N_NAME:
		if (e->sym->lazy)
			return lazy_whole(e->sym);
		return e->sym->by_ref ? format("(*%s_p)", e->sym->cname) : e->sym->cname;
	case N_FIELD:
		return emit_member(emit_lvalue(e->lhs), e->sym->cname);
	case N_INDEX:
		return index_expr(e, true);
	default:
		return emit_expr(e);
	}
}

/* ---- whole arrays ---- */

/* The checked helper for division of integers of type t by divisor
 * (sap_div_i32 and the like, which make a zero divisor an error at the
 * operator and INT_MIN / -1 wrap, as for scalars), or NULL where C's
 * operator is right: no integer division, or a nonzero literal divisor. */
static char *int_division(int op, Type *t, Node *divisor)
{
	if ((op != TK_SLASH && op != TK_PERCENT) || !ty_is_int(t))
		return NULL;
	if (divisor->kind == N_INT && divisor->ival != 0)
		return NULL;
	return format("sap_%s_%s", op == TK_SLASH ? "div" : "mod", t->kind == TY_INT ? "i32" : "i64");
}

/* Element `k` of the numeric array expression e.  Storage is hoisted to a
 * pointer and scalar operands to temporaries, so that the loop body is
 * plain arithmetic that vectorises. */
static char *elem(Node *e, const char *k)
{
	if (ty_is_num(e->ty)) {
		if (emit_is_simple(e))
			return emit_expr(e);
		char *t = emit_tmp("s");
		emit_line(e, "%s %s = %s;", emit_ctype(e->ty), t, emit_expr(e));
		return t;
	}
	switch (e->kind) {
	case N_NAME:
	case N_FIELD:
		if (emit_is_simple(e))
			return format("%s[%s]", emit_member(emit_expr(e), "v"), k);
		/* fall through */
	case N_INDEX: {
		char *p = emit_tmp("p");
		emit_line(e, "const %s *%s = &%s;", emit_ctype(e->ty), p, emit_expr(e));
		return format("%s->v[%s]", p, k);
	}
	case N_BINARY:
		if (e->lhs->ty->kind == TY_ARRAY || e->rhs->ty->kind == TY_ARRAY) {
			char *a = elem(e->lhs, k);
			char *b = elem(e->rhs, k);
			char *fn = int_division(e->op, e->ty->elem, e->rhs);
			if (fn)
				return format("%s(%s, %s, %s)", fn, a, b, emit_site(e));
			return format("(%s %s %s)", a, ast_opname(e->op), b);
		}
		break;
	case N_UNARY:
		return format("(%s%s)", ast_opname(e->op), elem(e->lhs, k));
	default:
		break;
	}
	char *t = emit_tmp("a");
	emit_line(e, "%s %s = %s;", emit_ctype(e->ty), t, emit_expr(e));
	return format("%s.v[%s]", t, k);
}

/* A value of type from stored in an integer of type to: checked. */
static bool narrows(Type *to, Type *from)
{
	return ty_is_int(to) && (ty_is_float(from) || (to->kind == TY_INT && from->kind == TY_LONG));
}

static const char *narrow_fn(Type *to, Type *from)
{
	if (ty_is_int(from))
		return "sap_lto_i32";
	return to->kind == TY_INT ? "sap_to_i32" : "sap_to_i64";
}

/* dst op= src over whole numeric arrays, in one fused loop. */
static void array_store(Node *at, const char *dst, Type *dt, Node *src, int op)
{
	char *d = emit_tmp("d");
	emit_line(at, "%s *%s = &%s;", emit_ctype(dt), d, dst);
	char *k = emit_tmp("k");
	char *x = elem(src, k);
	const char *o = op == TK_ASSIGN ? "=" : format("%s=", ast_opname(op));
	Type *st = ty_is_num(src->ty) ? src->ty : src->ty->elem;
	emit_line(at, "for (int64_t %s = 0; %s < %lld; %s++)", k, k, (long long)dt->len, k);
	if (narrows(dt->elem, st)) {
		/* float[4] into int[4]: each element checked as sema_narrow's are */
		const char *fn = narrow_fn(dt->elem, st);
		if (op != TK_ASSIGN)
			x = format("%s->v[%s] %s %s", d, k, ast_opname(op), x);
		emit_line(at, "\t%s->v[%s] = %s(%s, %s);", d, k, fn, x, emit_site(at));
		return;
	}
	/* a /= n computes in the wider of the two, as a = a / n would. */
	Type *wt = op == TK_ASSIGN ? NULL : ty_arith(dt->elem, st);
	char *div = wt ? int_division(op, wt, src) : NULL;
	if (div) {
		emit_line(at, "\t%s->v[%s] = %s%s(%s->v[%s], %s, %s);", d, k,
		          wt == dt->elem ? "" : format("(%s)", emit_ctype(dt->elem)), div, d, k, x,
		          emit_site(at));
		return;
	}
	emit_line(at, "\t%s->v[%s] %s %s;", d, k, o, x);
}

static char *array_value(Node *e)
{
	char *t = emit_tmp("a");
	emit_line(e, "%s %s;", emit_ctype(e->ty), t);
	array_store(e, t, e->ty, e, TK_ASSIGN);
	return t;
}

/* ---- stores ---- */

void emit_zero(Node *at, const char *dst, Type *t)
{
	if (ty_is_scalar(t))
		emit_line(at, "%s = 0;", dst);
	else if (t->kind == TY_STRING)
		emit_line(at, "%s = \"\";", dst);
	else
		emit_line(at, "memset(&%s, 0, sizeof %s);", dst, dst);
}

/* k op= x, k an integer and x floating: k = k op x computes in floating
 * point, and the result goes back into k checked as sema_narrow's are. */
static char *narrow_compound(Node *at, Type *lt, Node *rhs, int op, const char *dst)
{
	const char *fn = narrow_fn(lt, rhs->ty);
	const char *o = ast_opname(op);
	char *r = emit_expr(rhs);
	/* A reduce variable in its loop holds one worker's partial value,
	 * which may leave the range where the serial running value stays:
	 * the error says so, and names it. */
	Sym *rv = at->kind == N_ASSIGN && at->lhs->kind == N_NAME ? at->lhs->sym : NULL;
	if (rv && rv->is_driver && E->loop && sema_is_reduce_var(E->loop, rv)) {
		char *name = emit_cstr(rv->name, strlen(rv->name));
		return format("(%s = sap_red_%s(%s %s (%s), %s, %s))", dst, fn + 4, dst, o, r,
		              emit_site(at), name);
	}
	if (at->kind != N_ASSIGN || at->lhs->kind == N_FIELD)
		return format("(%s = %s(%s %s (%s), %s))", dst, fn, dst, o, r, emit_site(at));
	int t = E->tmp++;
	/* __typeof__: a slice's locals may be volatile (emit_slice_volatile). */
	return format("({ __typeof__(%s) *sap_p%d = &%s; *sap_p%d = %s(*sap_p%d %s (%s), %s); })", dst, t,
	              dst, t, fn, t, o, r, emit_site(at));
}

/* dst op= src as statements; dst is storage of type dt. */
/* x /= y, x %= y, x <<= y, x >>= y on integers: the checks of / % << >>
 * (a zero divisor, a count outside the width), x's address taken once;
 * NULL where plain C does.  A field, which may be packed, is named twice
 * instead, as is a target not known to be a name or an element. */
static char *checked_compound(Node *at, Type *lt, Node *rhs, int op, const char *dst)
{
	Type *rt = rhs->ty;
	bool shift = op == TK_SHL || op == TK_SHR;
	bool intdiv = (op == TK_SLASH || op == TK_PERCENT || shift) && ty_is_int(rt);
	if (op != TK_ASSIGN && narrows(lt, rt) && !intdiv)
		return narrow_compound(at, lt, rhs, op, dst);
	if (!(op == TK_SLASH || op == TK_PERCENT || shift) || !ty_is_int(lt) || !ty_is_int(rt))
		return NULL;
	bool wide = lt->kind == TY_LONG || (!shift && rt->kind == TY_LONG);
	int64_t width = wide ? 64 : 32;
	if (rhs->kind == N_INT && (shift ? rhs->ival >= 0 && rhs->ival < width : rhs->ival != 0))
		return NULL;
	const char *fn = format("sap_%s_%s", op == TK_SLASH ? "div" : op == TK_PERCENT ? "mod" :
	                        op == TK_SHL ? "shl" : "shr", wide ? "i64" : "i32");
	const char *ct = emit_ctype(lt);
	char *r = emit_expr(rhs);
	/* An int divided by a long fits an int but for INT_MIN / -1L. */
	bool chk = op == TK_SLASH && narrows(lt, rt);
	const char *to = chk ? "sap_lto_i32(" : format("(%s)", ct);
	const char *end = chk ? format(", %s)", emit_site(at)) : "";
	if (at->kind != N_ASSIGN || at->lhs->kind == N_FIELD)
		return format("(%s = %s%s(%s, %s, %s)%s)", dst, to, fn, dst, r, emit_site(at), end);
	int t = E->tmp++;
	return format("({ __typeof__(%s) *sap_p%d = &%s; *sap_p%d = %s%s(*sap_p%d, %s, %s)%s; })", dst, t,
	              dst, t, to, fn, t, r, emit_site(at), end);
}

/* A name for the temporary t, which holds the value of e: the store
 * functions take nodes. */
Node *emit_temp_node(Node *e, const char *t)
{
	Sym *s = xcalloc(1, sizeof *s);
	s->kind = SYM_VAR;
	s->name = t;
	s->ty = e->ty;
	s->vclass = V_LOCAL;
	s->cname = xstrdup(t);
	Node *n = xcalloc(1, sizeof *n);
	n->kind = N_NAME;
	n->file = e->file;
	n->off = e->off;
	n->ty = e->ty;
	n->sym = s;
	n->made = true;
	return n;
}

/* src, or a name for its value computed now, before a store that inserts
 * a key into a dmap: the insertion may move the map's storage, src may
 * read it (m[k] = m[k - 1]), and C leaves unsequenced the two sides of
 * the assignment.  A value the map will own is computed first anyway
 * (emit_store). */
static Node *before_insert(Node *src)
{
	if (inert(src) || ty_needs_drop(src->ty))
		return src;
	if (src->ty->kind == TY_ARRAY && !is_lvalue(src))
		return emit_temp_node(src, array_value(src));
	char *t = emit_tmp("v");
	emit_line(src, "%s %s = %s;", emit_ctype(src->ty), t, emit_expr(src));
	return emit_temp_node(src, t);
}

Node *emit_store_src(Node *lhs, Node *src)
{
	for (Node *e = lhs; e->kind == N_INDEX || e->kind == N_FIELD; e = e->lhs)
		if (e->kind == N_INDEX && e->lhs->ty->kind == TY_DMAP)
			return before_insert(src);
	return src;
}

void emit_store(Node *at, const char *dst, Type *dt, Node *src, int op)
{
	if (dt->kind == TY_ARRAY && ty_is_numarray(dt) &&
	    (op != TK_ASSIGN || src->ty != dt || !is_lvalue(src))) {
		array_store(at, dst, dt, src, op);
		return;
	}
	if (op != TK_ASSIGN) {
		char *checked = checked_compound(at, dt, src, op, dst);
		if (dt->kind == TY_STRING)
			emit_line(at, "%s = sap_str_cat(%s, %s);", dst, dst, emit_expr(src));
		else if (checked)
			emit_line(at, "%s;", checked);
		else
			emit_line(at, "%s %s= %s;", dst, ast_opname(op), emit_expr(src));
		return;
	}
	if (ty_needs_drop(dt)) {
		char *t = emit_tmp("o");
		emit_line(at, "%s %s = %s;", emit_ctype(dt), t, emit_owned(src));
		emit_line(at, "%s(&%s);", emit_drop_fn(dt), dst);
		emit_line(at, "%s = %s;", dst, t);
		return;
	}
	emit_line(at, "%s = %s;", dst, emit_expr(src));
}

/* ---- calls ---- */

static char *min_max(Node *e, const char *which)
{
	Type *t = e->ty;
	const char *suffix = t->kind == TY_INT ? "i32" : t->kind == TY_LONG ? "i64" :
	                     t->kind == TY_FLOAT ? "f" : "d";
	return format("sap_%s_%s(%s, %s)", which, suffix, emit_expr(e->args), emit_expr(e->args->next));
}

/* A gemm operand as a sap_mat: a dvector (the worker's copy in a sync for
 * body), a list or an array of rows. */
static char *gemm_mat(Node *e, bool written)
{
	Type *t = e->ty;
	char *name = acc_expr_str(e);
	name = emit_cstr(name, strlen(name));
	long long cols = (long long)t->elem->len;
	if (t->kind == TY_DVEC)
		return format("(sap_mat){%s, %s.n, %lld, %s}", emit_dv_data(e->sym), e->sym->cname, cols,
		              name);
	char *v = written ? emit_lvalue(e) : emit_expr(e);
	if (t->kind == TY_LIST)
		return format("(sap_mat){%s, %s, %lld, %s}", emit_member(v, "v"), emit_member(v, "n"), cols, name);
	return format("(sap_mat){%s, %lld, %lld, %s}", emit_member(v, "v"), (long long)t->len, cols, name);
}

static char *arr_ptr(Node *e)
{
	if (is_lvalue(e))
		return emit_member(emit_expr(e), "v");
	return emit_member(array_value(e), "v");
}

/* value, the C expression of e, computed into a temporary before a
 * container grows: C leaves unsequenced the two sides of
 * `*sap_list_push(&l, ...) = value`, and value may read the container (an
 * element that the growth frees, or its length that the push already
 * counts).  Literals and scalar names cannot. */
static char *settled(Node *e, char *value)
{
	if (inert(e))
		return value;
	char *t = emit_tmp("v");
	emit_line(e, "%s %s = %s;", emit_ctype(e->ty), t, value);
	return t;
}

/* The value of src for a slot of type dt that a container makes: an
 * array of other numbers converted element by element first, into a
 * temporary, as an assignment converts it (C has no such conversion). */
char *emit_converted(Node *at, Type *dt, Node *src)
{
	if (dt->kind == TY_ARRAY && ty_is_numarray(dt) && src->ty != dt) {
		char *t = emit_tmp("cv");
		emit_line(at, "%s %s;", emit_ctype(dt), t);
		emit_store(at, t, dt, src, TK_ASSIGN);
		return t;
	}
	return settled(src, emit_owned(src));
}

static char *builtin_call(Node *e)
{
	Node *a0 = e->args, *a1 = a0 ? a0->next : NULL, *a2 = a1 ? a1->next : NULL;
	switch ((Builtin)e->builtin) {
	case B_LEN:
		switch (a0->ty->kind) {
		case TY_DVEC: return format("%s.n", emit_expr(a0));
		case TY_LIST:
			/* len(m[k]) of a multimap counts k's values, without
			 * copying them. */
			if (a0->kind == N_INDEX && a0->lhs->ty->kind == TY_DMMAP) {
				char *key = mm_key(a0);
				if (a0->lhs->ty->key->kind != TY_STRING)
					return format("sap_dm_count_int(&%s, (int64_t)%s)", emit_expr(a0->lhs),
					              key);
				return format("sap_dm_count(&%s, &%s)", emit_expr(a0->lhs), key);
			}
			return format("%s.n", emit_expr(a0));
		case TY_DMAP: case TY_DMMAP: return format("sap_dm_size(&%s)", emit_expr(a0));
		case TY_STRING: return format("sap_str_len(%s)", emit_expr(a0));
		default: return format("INT64_C(%lld)", (long long)a0->ty->len);
		}
	case B_PUSH: {
		Type *et = a0->ty->elem;
		char *v = emit_converted(e, et, a1);
		char *l = emit_lvalue(a0);
		emit_line(e, "*(%s *)sap_list_push(&%s, sizeof(%s)) = %s;", emit_ctype(et), l,
		          emit_ctype(et), v);
		return "(void)0";
	}
	case B_INSERT: {
		Type *mt = a0->ty, *vt = mt->elem;
		char *m = emit_expr(a0);
		if (mt->kind == TY_DMMAP) {
			char *k = key_ref(mt->key, a0, a1, ACC_WRITE);
			char *v = emit_converted(e, vt, a2);
			emit_line(e, "*(%s *)sap_dm_add(&%s, %s) = %s;", emit_ctype(vt), m, k, v);
		} else {
			char *slot = format("(*(%s *)%s)", emit_ctype(vt), dm_call("upsert", mt->key, a0, m, a1, NULL, ACC_WRITE));
			emit_store(e, slot, vt, before_insert(a2), TK_ASSIGN);
		}
		return "(void)0";
	}
	case B_CONTAINS: case B_COUNT: {
		/* A question about keys that the loop cannot change conflicts
		 * with no iteration, and the slice records none
		 * (acc_fixed_keys): --check-plan leaves it be. */
		Node *au = a0;
		if (E->in_body && E->loop && a0->kind == N_NAME && acc_keys_fixed(E->loop->li, a0->sym))
			au = NULL;
		if (e->builtin == B_CONTAINS)
			return format("(%s != NULL)", dm_call("find", a0->ty->key, au, emit_expr(a0), a1, NULL,
			                                      ACC_READ));
		return format("sap_dm_count(&%s, %s)", emit_expr(a0),
		              au ? key_ref(a0->ty->key, a0, a1, ACC_READ) :
		              format("&(%s){%s}", emit_ctype(a0->ty->key), emit_expr(a1)));
	}
	case B_ERASE:
		return format("sap_dm_erase(&%s, %s)", emit_expr(a0), key_ref(a0->ty->key, a0, a1, ACC_WRITE));
	case B_GET: {
		Type *vt = a0->ty->elem;
		char *slot = emit_tmp("slot");
		char *t = emit_tmp("got");
		emit_line(e, "%s *%s = %s;", emit_ctype(vt), slot, dm_call("find", a0->ty->key, a0, emit_expr(a0), a1, NULL, ACC_READ));
		/* The default's store drops what t held: nothing. */
		emit_line(e, ty_needs_drop(vt) ? "%s %s = {0};" : "%s %s;", emit_ctype(vt), t);
		emit_line(e, "if (%s) {", slot);
		if (ty_needs_drop(vt))
			emit_line(e, "\t%s = %s(%s);", t, emit_copy_fn(vt), slot);
		else
			emit_line(e, "\t%s = *%s;", t, slot);
		emit_line(e, "} else {");
		E->indent++;
		emit_store(e, t, vt, a2, TK_ASSIGN);
		E->indent--;
		emit_line(e, "}");
		if (ty_needs_drop(vt) && E->drops)
			vec_push(E->drops, format("%s(&%s);", emit_drop_fn(vt), t));
		return t;
	}
	case B_MIN: return min_max(e, "min");
	case B_MAX: return min_max(e, "max");
	case B_ABS: {
		Type *t = e->ty;
		const char *suffix = t->kind == TY_INT ? "i32" : t->kind == TY_LONG ? "i64" :
		                     t->kind == TY_FLOAT ? "f" : "d";
		return format("sap_abs_%s(%s)", suffix, emit_expr(a0));
	}
	case B_DOT: {
		Type *t = a0->ty;
		const char *fn = t->elem->kind == TY_FLOAT ? "sap_dot_f" : t->elem->kind == TY_DOUBLE ?
		                 "sap_dot_d" : t->elem->kind == TY_INT ? "sap_dot_i32" : "sap_dot_i64";
		char *x = arr_ptr(a0);
		char *y = arr_ptr(a1);
		return format("%s(%s, %s, %lld)", fn, x, y, (long long)t->len);
	}
	case B_RAND:
		if (e->rsite && E->loop)
			return format("sap_rand_at(&sap_rng_it, %d, &sap_draw%d)", e->rsite, e->rsite);
		return "sap_rand(sap_rng_cur)";
	case B_RAND_NORMAL:
		if (e->rsite && E->loop)
			return format("sap_rand_normal_at(&sap_rng_it, %d, &sap_draw%d)", e->rsite, e->rsite);
		return "sap_rand_normal(sap_rng_cur)";
	case B_RAND_INT:
		if (e->rsite && E->loop)
			return format("sap_rand_int_at(&sap_rng_it, %d, &sap_draw%d, %s, %s)", e->rsite, e->rsite,
			              emit_expr(a0), emit_site(e));
		return format("sap_rand_int(sap_rng_cur, %s, %s)", emit_expr(a0), emit_site(e));
	case B_TOKENS:
		return format("sap_tokens(%s)", emit_expr(a0));
	case B_SPLIT:
		return format("sap_split(%s, %s, %s)", emit_expr(a0), emit_expr(a1), emit_site(e));
	case B_FIELDS:
		return format("sap_fields_of(%s)", emit_expr(a0));
	case B_TO_INT: case B_TO_LONG: case B_TO_FLOAT: case B_TO_DOUBLE: {
		const char *fn = e->builtin == B_TO_INT ? "int" : e->builtin == B_TO_LONG ? "long" :
		                 e->builtin == B_TO_FLOAT ? "float" : "double";
		return format("sap_to_%s(%s, %s)", fn, emit_expr(a0), emit_site(e));
	}
	case B_FAST_SIGMOID:
		return format("sap_fast_sigmoid(%s)", emit_expr(a0));
	case B_WTIME:
		return "sap_wtime_prog()";
	case B_RANKS:
		return "sap_nranks()";
	case B_THREADS:
		return "sap_threads()";
	case B_SOFTMAX: {
		const char *ct = emit_ctype(a0->ty);
		char *fn = format("sap_softmax_%s", a0->ty->mangle);
		if (!strstr(E->helpers.s ? E->helpers.s : "", format(" %s(", fn)))
			buf_printf(&E->helpers, "static %s %s(%s a)\n{\n\tsap_softmax_%c(a.v, %lld);\n"
			           "\treturn a;\n}\n\n", ct, fn, ct,
			           a0->ty->elem->kind == TY_FLOAT ? 'f' : 'd', (long long)a0->ty->len);
		return format("%s(%s)", fn, emit_expr(a0));
	}
	case B_GEMV: case B_GER: {
		bool gemv = e->builtin == B_GEMV;
		Node *w = gemv ? a1 : a0, *y = gemv ? a0 : a1->next, *x = gemv ? a2 : y->next;
		char c = w->ty->elem->elem->kind == TY_FLOAT ? 'f' : 'd';
		if (gemv)
			return format("sap_gemv_%c(%s, %lld, &%s, %s, %s, %lld, %s)", c,
			              emit_member(emit_lvalue(y), "v"), (long long)y->ty->len, w->sym->cname, emit_dv_data(w->sym),
			              emit_member(emit_expr(x), "v"), (long long)x->ty->len, emit_site(e));
		return format("sap_ger_%c(&%s, %s, %s, %s, %lld, %s, %lld, %s)", c, w->sym->cname,
		              emit_dv_data(w->sym), emit_expr(a1), emit_member(emit_expr(y), "v"),
		              (long long)y->ty->len, emit_member(emit_expr(x), "v"), (long long)x->ty->len,
		              emit_site(e));
	}
	case B_GEMM: {
		Node *a3 = a2 ? a2->next : NULL;
		bool upd = a3 != NULL;
		Node *m[3] = { a0, upd ? a2 : a1, upd ? a3 : a2 };
		char c = a0->ty->elem->elem->kind == TY_FLOAT ? 'f' : 'd';
		char *mat[3];
		for (int i = 0; i < 3; i++)
			mat[i] = gemm_mat(m[i], i == 0);
		if (upd)
			return format("sap_gemm_upd_%c(%s, %s, %s, %s, %s)", c, mat[0], emit_expr(a1), mat[1],
			              mat[2], emit_site(e));
		return format("sap_gemm_%c(%s, %s, %s, %s, %s)", c, mat[0],
		              a0->ty->kind == TY_LIST ? format("&%s", emit_lvalue(a0)) : "NULL", mat[1],
		              mat[2], emit_site(e));
	}
	case B_PRINT: return emit_print(e);
	case B_SAVE:
		return format("sap_save(&%s, %s, %s, %s, %s)", emit_expr(a0), emit_expr(a1),
		              emit_format_fn(a0->ty->elem), emit_field_names(a0->ty->elem), emit_site(e));
	default:
		return "0";
	}
}

/* An array lvalue a C function gets in a loop body: the body's own
 * array, or its partial of a reduce variable, by reference, as in driver
 * code (the C may fill it); a DDS element or a driver variable as a
 * copy.  The body writes those only by assignment, where the runtime
 * sees it: the C writing them changed one rank's copy (W[i] on 2 ranks),
 * or a driver variable from every thread at once. */
static char *extern_array(Node *a)
{
	if (!is_lvalue(a))
		return arr_ptr(a);
	/* In driver code, storage the C may write: a map's element as an
	 * assignment would find it (on the rank that holds it), not a copy
	 * fetched for reading. */
	if (!E->loop)
		return emit_member(emit_lvalue(a), "v");
	/* access.c's walk takes the call as an assignment of these. */
	Sym *s = acc_array_base(a);
	if (!E->loop || (s && (s->is_driver ? sema_is_reduce_var(E->loop, s) :
	                       !s->by_ref && !s->readonly && !ty_is_dds(s->ty))))
		return arr_ptr(a);
	char *t = emit_tmp("arg");
	emit_line(a, "%s %s = %s;", emit_ctype(a->ty), t, emit_expr(a));
	return emit_member(t, "v");
}

/* Whether the C of e, a read of an array or struct, is an lvalue whose
 * address a by_ref parameter may take: a variable's (not one zeroed
 * lazily, read through a call), or an element or field of one, or of a
 * dvector's element. */
static bool addressable(Node *e)
{
	Node *b = e;
	while (b->kind == N_FIELD || (b->kind == N_INDEX && b->lhs->ty->kind == TY_ARRAY))
		b = b->lhs;
	if (b->kind == N_INDEX)
		return b->lhs->ty->kind == TY_DVEC;
	return b->kind == N_NAME && b->sym && !b->sym->lazy && b->sym->vclass != V_CONST;
}

static char *call(Node *e)
{
	if (e->builtin)
		return builtin_call(e);
	Sym *f = e->sym;
	Buf b = {0};
	buf_printf(&b, f->is_extern ? "(%s)(" : "%s(", f->cname);
	Node *p = f->decl->args;
	for (Node *a = e->args; a; a = a->next, p = p->next) {
		Type *pt = p->sym->ty;
		char *v;
		if (f->is_extern && pt->kind == TY_ARRAY && a->ty != pt)
			v = emit_member(emit_converted(a, pt, a), "v");
		else if (f->is_extern && pt->kind == TY_ARRAY)
			v = extern_array(a);
		else if (f->is_extern && pt->kind == TY_STRING)
			v = format("sap_str_c(%s)", emit_expr(a));
		else if (p->sym->by_ref && a->ty == pt && addressable(a))
			v = format("&%s", emit_expr(a));
		else if (p->sym->by_ref)
			v = format("(%s[1]){%s}", emit_ctype(pt),
			           pt->kind == TY_ARRAY && a->ty != pt ? emit_converted(a, pt, a) :
			           emit_expr(a));
		else if (pt->kind == TY_ARRAY && a->ty != pt)
			v = emit_converted(a, pt, a);
		else
			v = emit_expr(a);
		if (ty_is_num(pt) && pt != a->ty)
			v = format("(%s)%s", emit_ctype(pt), v);
		buf_printf(&b, "%s%s", a == e->args ? "" : ", ", v);
	}
	buf_puts(&b, ")");
	return b.s;
}

/* ---- lazy operators ---- */

/* Emit e into a fresh prelude; returns the expression.  For an operand
 * evaluated only sometimes (?:, &&, ||): its statements go to
 * pre, which the caller puts in the operand's block, and so do the drops
 * of its temporaries (*drops, emitted by end_operand), because they are
 * declared in that block and hold something only when it ran.  owned:
 * the value is the caller's, not a temporary's. */
static char *with_pre(Node *e, Buf *pre, Vec *drops, bool owned)
{
	Buf *saved = E->pre;
	Buf *savedout = E->out;
	Vec *saveddrops = E->drops;
	int savedindent = E->indent;
	E->pre = pre;
	E->out = pre;
	E->drops = drops;
	E->indent = savedindent + 1;
	char *s = owned ? emit_owned(e) : emit_expr(e);
	E->pre = saved;
	E->out = savedout;
	E->drops = saveddrops;
	E->indent = savedindent;
	return s;
}

/* Inside the operand's block, after its value was taken. */
static void end_operand(Node *e, Vec *drops)
{
	for (int i = drops->n - 1; i >= 0; i--)
		emit_line(e, "%s", (char *)drops->v[i]);
}

static void splice(Buf *pre)
{
	/* Lines in pre carry one extra level of indent and their own marks. */
	buf_puts(E->out, pre->s ? pre->s : "");
}

static bool is_comparison(int op)
{
	return op == TK_LT || op == TK_LE || op == TK_GT || op == TK_GE || op == TK_EQ || op == TK_NE;
}

/* The value v through a temporary of C type ct, where gcc's warnings
 * that a comparison is constant cannot see what it was.  The value is
 * the same. */
static char *through_temp(const char *ct, const char *v)
{
	int t = E->tmp++;
	return format("({ %s sap_w%d = %s; sap_w%d; })", ct, t, v, t);
}

/* v, the C of side e of a comparison: an int compared with a constant
 * past an int's range (x < 3000000000, always true) goes through a long
 * of its own (-Wtype-limits). */
static char *widened(Node *e, Node *other, char *v)
{
	if (e->ty->kind != TY_INT || !other->has_cval || !ty_is_int(other->ty) ||
	    (other->cval >= INT32_MIN && other->cval <= INT32_MAX))
		return v;
	return through_temp("int64_t", v);
}

/* v, the C of a value of type t, as a test: a number compared with 0, as
 * C tests it, so that gcc finds no arithmetic in a boolean context
 * (-Wint-in-bool-context on `if (x * y)`, a multiplication SAP allows
 * there). */
static char *tested(Type *t, char *v)
{
	return t->kind == TY_BOOL ? v : format("(%s != 0)", v);
}

char *emit_test(Node *e)
{
	return tested(e->ty, emit_expr(e));
}

static char *lazy(Node *e)
{
	Buf pb = {0};
	Vec db = {0};
	char *rhs;
	if (e->kind == N_COND) {
		char *c = emit_test(e->cond);
		Buf pa = {0};
		Vec da = {0};
		/* A list-holding result is t's own, dropped after the statement. */
		bool own = ty_needs_drop(e->ty);
		char *x = with_pre(e->then, &pa, &da, own);
		char *y = with_pre(e->els, &pb, &db, own);
		if (!pa.len && !pb.len && !da.n && !db.n && e->ty->kind != TY_ARRAY && !own)
			return format("(%s ? %s : %s)", c, x, y);
		char *t = emit_tmp("c");
		emit_line(e, "%s %s;", emit_ctype(e->ty), t);
		emit_line(e, "if (%s) {", c);
		splice(&pa);
		E->indent++;
		emit_line(e, "%s = %s;", t, x);
		end_operand(e, &da);
		E->indent--;
		emit_line(e, "} else {");
		splice(&pb);
		E->indent++;
		emit_line(e, "%s = %s;", t, y);
		end_operand(e, &db);
		E->indent--;
		emit_line(e, "}");
		if (ty_needs_drop(e->ty) && E->drops)
			vec_push(E->drops, format("%s(&%s);", emit_drop_fn(e->ty), t));
		return t;
	}
	char *l = emit_test(e->lhs);
	rhs = tested(e->rhs->ty, with_pre(e->rhs, &pb, &db, false));
	if (!pb.len && !db.n)
		return format("(%s %s %s)", l, ast_opname(e->op), rhs);
	char *t = emit_tmp("b");
	emit_line(e, "bool %s = %s;", t, l);
	emit_line(e, "if (%s%s) {", e->op == TK_ANDAND ? "" : "!", t);
	splice(&pb);
	E->indent++;
	emit_line(e, "%s = %s;", t, rhs);
	end_operand(e, &db);
	E->indent--;
	emit_line(e, "}");
	return t;
}

/* ---- expressions ---- */

/* A string operation in a const's or param's initialiser, done here: a C
 * static initialiser cannot call sap_str_cat or strcmp.  As the runtime
 * does it (sap_str_cat, strcmp), or NULL if an operand is not constant. */
static char *fold_str_op(Node *e)
{
	Buf a = {0}, b = {0};
	buf_puts(&a, "");
	buf_puts(&b, "");
	if (!sema_const_str(e->lhs, &a) || !sema_const_str(e->rhs, &b))
		return NULL;
	if (e->op == TK_PLUS) {
		buf_puts(&a, b.s);
		return emit_cstr(a.s, a.len);
	}
	int c = strcmp(a.s, b.s);
	bool v;
	switch (e->op) {
	case TK_EQ: v = c == 0; break;
	case TK_NE: v = c != 0; break;
	case TK_LT: v = c < 0; break;
	case TK_LE: v = c <= 0; break;
	case TK_GT: v = c > 0; break;
	case TK_GE: v = c >= 0; break;
	default: return NULL;
	}
	return v ? "true" : "false";
}

/* The integer v of type t as a C constant: INT64_MIN has no literal. */
static char *int_const(int64_t v, Type *t)
{
	if (t->kind != TY_INT && v == INT64_MIN)
		return "(-9223372036854775807LL - 1)";
	if (t->kind == TY_INT)
		return format("((int32_t)%lldLL)", (long long)v);
	return format("((int64_t)%lldLL)", (long long)v);
}

/* What a min or max's assignment a (best = float(d), best = test ? d :
 * best) tells the partial of the value it tested (LoopInfo.tv_syms), or
 * NULL: d, before it is stored. */
char *emit_tv_set(Node *a)
{
	int k = E->loop ? sema_tv_of(E->loop, a) : -1;
	if (k < 0)
		return NULL;
	LoopInfo *li = E->loop->li;
	const char *n = a->lhs->sym->cname;
	char *d = format("(double)(%s)", emit_expr(li->tv_vals.v[k]));
	Node *c = li->tv_conds.v[k];
	return c ? format("sap_tv_%s = %s ? %s : sap_tv_%s", n, emit_test(c), d, n) :
	           format("sap_tv_%s = %s", n, d);
}

char *emit_expr(Node *e)
{
	/* A const's or a param default's initialiser is C's constant
	 * expression: the value sema folded, not the checked helpers of / %
	 * << >> and of conversions, which are calls. */
	if (E->in_const && e->kind != N_INT && ty_is_int(e->ty) && e->has_cval)
		return int_const(e->cval, e->ty);
	/* And a string's, string(2.5) too, which is sap_str_of_double. */
	if (E->in_const && e->kind != N_STR && e->ty && e->ty->kind == TY_STRING) {
		Buf b = {0};
		buf_puts(&b, "");
		if (sema_const_str(e, &b))
			return emit_cstr(b.s, b.len);
	}
	switch (e->kind) {
	case N_INT: case N_FLOAT: case N_STR: case N_BOOL:
		return lit(e);
	case N_NAME:
		/* In its type: const float f = 0.1 is 0.1f to a double too. */
		if (E->in_const && e->sym->vclass == V_CONST)
			return ty_is_scalar(e->sym->ty) ?
			       format("((%s)(%s))", emit_ctype(e->sym->ty), emit_expr(e->sym->decl->init)) :
			       format("(%s)", emit_expr(e->sym->decl->init));
		e->sym->used = true;
		if (e->sym->lazy)
			return lazy_whole(e->sym);
		return e->sym->by_ref ? format("(*%s_p)", e->sym->cname) : e->sym->cname;
	case N_BINARY:
		if (e->ty->kind == TY_ARRAY)
			return array_value(e);
		if (e->op == TK_ANDAND || e->op == TK_OROR)
			return lazy(e);
		if (e->lhs->ty->kind == TY_STRING) {
			char *folded = E->in_const ? fold_str_op(e) : NULL;
			if (folded)
				return folded;
			char *a = emit_expr(e->lhs), *b = emit_expr(e->rhs);
			switch (e->op) {
			case TK_PLUS: return format("sap_str_cat(%s, %s)", a, b);
			case TK_EQ: return format("sap_str_eq(%s, %s)", a, b);
			case TK_NE: return format("(!sap_str_eq(%s, %s))", a, b);
			default: return format("(sap_str_cmp(%s, %s) %s 0)", a, b, ast_opname(e->op));
			}
		}
		if ((e->op == TK_SHL || e->op == TK_SHR) && ty_is_int(e->ty) &&
		    !(e->rhs->kind == N_INT && e->rhs->ival >= 0 &&
		      e->rhs->ival < (e->ty->kind == TY_INT ? 32 : 64)))
			return format("sap_%s_%s(%s, %s, %s)", e->op == TK_SHL ? "shl" : "shr",
			              e->ty->kind == TY_INT ? "i32" : "i64", emit_expr(e->lhs),
			              emit_expr(e->rhs), emit_site(e));
		if ((e->op == TK_SLASH || e->op == TK_PERCENT) && ty_is_int(e->ty) &&
		    !(e->rhs->kind == N_INT && e->rhs->ival != 0)) {
			/* Integer division by zero is an error at the .sap line, not SIGFPE. */
			const char *suffix = e->ty->kind == TY_INT ? "i32" : "i64";
			return format("sap_%s_%s(%s, %s, %s)", e->op == TK_SLASH ? "div" : "mod", suffix,
			              emit_expr(e->lhs), emit_expr(e->rhs), emit_site(e));
		}
		{
			char *a = emit_expr(e->lhs), *b = emit_expr(e->rhs);
			if (is_comparison(e->op) && !E->in_const) {
				a = widened(e->lhs, e->rhs, a);
				b = widened(e->rhs, e->lhs, b);
				/* x == x, a NaN test for a float: through a
				 * temporary, or gcc calls it always true
				 * (-Wtautological-compare). */
				if (!strcmp(a, b))
					a = through_temp(format("__typeof__(%s)", a), a);
			}
			return format("(%s %s %s)", a, ast_opname(e->op), b);
		}
	case N_UNARY:
		if (e->ty->kind == TY_ARRAY)
			return array_value(e);
		if (e->op == TK_NOT)
			return format("(!%s)", emit_test(e->lhs));
		return format("(%s%s)", ast_opname(e->op), emit_expr(e->lhs));
	case N_ASSIGN: {
		char *dst = emit_lvalue(e->lhs);
		Node *src = emit_store_src(e->lhs, e->rhs);
		char *checked = ty_is_scalar(e->lhs->ty) ? checked_compound(e, e->lhs->ty, src, e->op,
		                                                            dst) : NULL;
		if (checked)
			return checked;
		/* best = d where best keeps others: this worker set it. */
		if (E->loop && e->lhs->kind == N_NAME && sema_is_won(E->loop, e->lhs->sym)) {
			char *tv = emit_tv_set(e);
			return format("(sap_won_%s = true, sap_at_%s = sap_i, %s%s%s = %s)",
			              e->lhs->sym->cname, e->lhs->sym->cname, tv ? tv : "", tv ? ", " : "",
			              dst, emit_expr(src));
		}
		if (ty_is_scalar(e->lhs->ty))
			return format("(%s %s%s %s)", dst, e->op == TK_ASSIGN ? "" : ast_opname(e->op),
			              "=", emit_expr(src));
		emit_store(e, dst, e->lhs->ty, src, e->op);
		return dst;
	}
	case N_INCDEC:
		if (e->postfix)
			return format("(%s%s)", emit_lvalue(e->lhs), ast_opname(e->op));
		return format("(%s%s)", ast_opname(e->op), emit_lvalue(e->lhs));
	case N_COND:
		return lazy(e);
	case N_CALL: {
		char *c = call(e);
		if (fresh_call(e) && ty_needs_drop(e->ty))
			return borrow_temp(e->ty, c);
		return c;
	}
	case N_CONV:
		if (e->ty->kind == TY_STRING) {
			Type *a = e->lhs->ty;
			if (a->kind == TY_STRING)
				return emit_expr(e->lhs);
			if (a->kind == TY_BOOL)
				return format("((%s) ? \"true\" : \"false\")", emit_expr(e->lhs));
			return format("sap_str_of_%s(%s)", ty_is_int(a) ? "long" : a->kind == TY_FLOAT ?
			              "float" : "double", emit_expr(e->lhs));
		}
		if (e->ty->kind == TY_BOOL)
			return emit_test(e->lhs);
		if (ty_is_int(e->ty) && ty_is_float(e->lhs->ty))
			return format("sap_%s%s(%s, %s)", e->ts ? "f2" : "to_", e->ty->kind == TY_INT ? "i32" : "i64",
			              emit_expr(e->lhs), emit_site(e));
		if (e->ty->kind == TY_INT && e->lhs->ty->kind == TY_LONG && !e->lhs->has_cval)
			return format("sap_%s(%s, %s)", e->ts ? "l2i32" : "lto_i32", emit_expr(e->lhs), emit_site(e));
		return format("((%s)%s)", emit_ctype(e->ty), emit_expr(e->lhs));
	case N_INDEX:
		return index_expr(e, false);
	case N_FIELD:
		return emit_member(emit_expr(e->lhs), e->sym->cname);
	default:
		return "0";
	}
}

/* The list m[k] of a dmultimap for a local that never changes it, in an
 * async body that does not change the map: the values where the map
 * keeps them side by side (sap_dm_view), borrowed, not copied; a graph's
 * neighbour lists read for each wedge were a copy each. */
char *emit_view(Node *e)
{
	dmm_view = true;
	char *v = emit_owned(e);
	dmm_view = false;
	return v;
}

/* A value the receiver will own: a deep copy of storage, or a fresh
 * temporary handed over without a copy. */
char *emit_owned(Node *e)
{
	if (!ty_needs_drop(e->ty))
		return e->ty->kind == TY_ARRAY && !is_lvalue(e) ? array_value(e) : emit_expr(e);
	if (e->kind == N_CALL && fresh_call(e))
		return call(e);
	if (e->kind == N_INDEX && e->lhs->ty->kind == TY_DMMAP) {
		dmm_owned = true;
		char *v = emit_expr(e);
		dmm_owned = false;
		return v;
	}
	char *v = emit_expr(e);
	if (emit_last_use(e)) {
		char *t = emit_tmp("mv");
		return format("({ %s %s = %s; memset(&%s, 0, sizeof %s); %s; })", emit_ctype(e->ty), t, v,
		              v, v, t);
	}
	if (is_lvalue(e))
		return format("%s(&%s)", emit_copy_fn(e->ty), v);
	/* A temporary already scheduled for dropping: copy it. */
	return format("%s(&%s)", emit_copy_fn(e->ty), v);
}
