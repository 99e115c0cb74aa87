/* emit_memo.c: map elements an async body looks up once an iteration.
 *
 * A body that reaches a map at one key, the same all through an
 * iteration (P[a.u] read for a prediction, then updated; bu[a.u] read
 * and then added to), made a lookup at every access: a string's hash,
 * a probe and a strcmp, each time.  Where every write of map m in the
 * body has the same key, and that key's value cannot change during the
 * iteration, the first access at it to run keeps the element's address
 * in a local and the others at it use it; accesses at other keys only
 * read (a label propagation's label[k] beside the neighbours'
 * label[adj[k][t]]), each by its own lookup.  The address stays good:
 * only m[k] can be added to m in the iteration, once, at the first write
 * that finds it missing, and nothing else moves m's values (no erase; no
 * write at another key).
 * An access reading a missing key still stops the program at its own
 * site, as it is the first to run at that key.
 *
 * An accumulate target's accesses go to the worker's buffer, a map of
 * its own, which the same holds for.  Not for relaxed targets, whose
 * reads and writes go to different places, nor where the access is
 * audited against the reconnaissance (--check-plan), which must see
 * every one. */

#include <string.h>

#include "sapc.h"

/* Builtins that neither change their arguments nor draw numbers. */
static bool pure_builtin(int b)
{
	switch (b) {
	case B_LEN: case B_CONTAINS: case B_COUNT: case B_GET: case B_MIN: case B_MAX:
	case B_ABS: case B_DOT: case B_FAST_SIGMOID: case B_TO_INT: case B_TO_LONG:
	case B_TO_FLOAT: case B_TO_DOUBLE: case B_JOIN: case B_SPLIT: case B_FIELDS:
	case B_TOKENS:
		return true;
	default:
		return false;
	}
}

static bool is_store(int b)
{
	return b == B_INSERT || b == B_ERASE || b == B_PUSH;
}

typedef struct Scan {
	Node *loop;
	Vec in_loops;           /* Sym *: locals declared inside loops of the body */
	Vec maps;               /* Sym *: maps reached in the body */
	/* Every access of a map, for the second pass: */
	Vec acc_map, acc_key;   /* Sym *, Node * */
	Vec acc_write;          /* (intptr_t) 1 where it writes, 2 where it may insert or erase */
	Vec targets;            /* Node *: the N_INDEX an assignment or ++ writes */
} Scan;

static bool has(Vec *v, void *x)
{
	for (int i = 0; i < v->n; i++)
		if (v->v[i] == x)
			return true;
	return false;
}

static int decl_in_loop(Node *n, void *sc)
{
	if (n->kind == N_VAR && n->sym && !has(&((Scan *)sc)->in_loops, n->sym))
		vec_push(&((Scan *)sc)->in_loops, n->sym);
	return 0;
}

static int find_loops(Node *n, void *sc)
{
	if (n->kind == N_FOR || n->kind == N_WHILE || n->kind == N_DO) {
		emit_any_node(n, decl_in_loop, sc);
		return -1;
	}
	return 0;
}

/* Does n change v: assign it or its parts, push to it, or pass it to a
 * call that might write it (a C function takes arrays by reference)? */
static int changes(Node *n, void *v)
{
	Node *b = NULL;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC)
		b = n->lhs;
	else if (n->kind == N_CALL && !pure_builtin(n->builtin))
		/* Map and list builtins change their first argument only. */
		for (Node *a = n->args; a; a = is_store(n->builtin) ? NULL : a->next) {
			Node *x = a;
			while (x->kind == N_FIELD || x->kind == N_INDEX)
				x = x->lhs;
			if (x->kind == N_NAME && x->sym == v)
				return 1;
		}
	while (b && (b->kind == N_FIELD || b->kind == N_INDEX))
		b = b->lhs;
	return b && b->kind == N_NAME && b->sym == v;
}

/* A variable keeps its value all through an iteration of the loop. */
static bool steady_var(Scan *sc, Sym *v)
{
	Node *body = sc->loop->body;
	if (v->kind != SYM_VAR || ty_is_dds(v->ty))
		return false;
	if (v->vclass == V_CONST || v->vclass == V_PARAM)
		return true;
	if (v->vclass != V_LOCAL && v->vclass != V_GLOBAL)
		return false;
	/* Declared in an inner loop: another value each pass. */
	if (has(&sc->in_loops, v))
		return false;
	return !emit_any_node(body, changes, v);
}

/* e has one value all through an iteration: no calls, no random draws,
 * only variables (and vectors) the body does not change. */
static bool steady(Scan *sc, Node *e)
{
	switch (e->kind) {
	case N_INT: case N_FLOAT: case N_STR: case N_BOOL:
		return true;
	case N_NAME:
		return e->sym && steady_var(sc, e->sym);
	case N_FIELD:
		return steady(sc, e->lhs);
	case N_UNARY: case N_CONV:
		return steady(sc, e->lhs);
	case N_BINARY:
		return steady(sc, e->lhs) && steady(sc, e->rhs);
	case N_INDEX: {
		Node *b = e->lhs;
		if (b->kind == N_NAME && b->ty->kind == TY_DVEC) {
			LoopInfo *li = sc->loop->li;
			return !acc_is_accum(li, b->sym) && !acc_is_relaxed(li, b->sym) &&
			       !emit_any_node(sc->loop->body, changes, b->sym) && steady(sc, e->rhs);
		}
		if (b->ty->kind == TY_ARRAY || b->ty->kind == TY_LIST)
			return steady(sc, b) && steady(sc, e->rhs);
		return false;
	}
	default:
		return false;
	}
}

static void reach(Scan *sc, Sym *m, Node *key, int write)
{
	vec_push(&sc->acc_map, m);
	vec_push(&sc->acc_key, key);
	vec_push(&sc->acc_write, (void *)(intptr_t)write);
	if (!has(&sc->maps, m))
		vec_push(&sc->maps, m);
}

static void target(Scan *sc, Node *e)
{
	for (Node *t = e; t && (t->kind == N_INDEX || t->kind == N_FIELD); t = t->lhs)
		if (t->kind == N_INDEX && t->lhs->kind == N_NAME && t->lhs->ty->kind == TY_DMAP)
			vec_push(&sc->targets, t);
}

/* The element an assignment, ++ or a call may write, through fields and
 * subscripts of its value: m[k].x[j] = v and push(m[j].nb, v) write m[k]
 * and m[j] (and insert the key if it is missing); a C function may write
 * an array argument in place. */
static int write_targets(Node *n, void *arg)
{
	Scan *sc = arg;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC)
		target(sc, n->lhs);
	else if (n->kind == N_CALL && !pure_builtin(n->builtin))
		for (Node *a = n->args; a; a = is_store(n->builtin) ? NULL : a->next)
			target(sc, a);
	return 0;
}

static int map_uses(Node *n, void *arg)
{
	Scan *sc = arg;
	if (n->kind == N_INDEX && n->lhs->kind == N_NAME && n->lhs->ty->kind == TY_DMAP)
		reach(sc, n->lhs->sym, n->rhs, has(&sc->targets, n) ? 1 : 0);
	else if (n->kind == N_CALL && n->args && n->args->kind == N_NAME &&
	         n->args->ty && n->args->ty->kind == TY_DMAP) {
		Node *k = n->args->next;
		switch (n->builtin) {
		case B_CONTAINS: case B_GET: case B_COUNT:
			reach(sc, n->args->sym, k, 0);
			break;
		case B_INSERT:
			reach(sc, n->args->sym, k, 1);
			break;
		case B_LEN:
			break;
		default:        /* erase, and what else may come */
			reach(sc, n->args->sym, k, 2);
			break;
		}
	}
	return 0;
}

/* The one key of m's element to keep: that of every write (a write at a
 * missing key inserts it, which may move the others' values), or, when
 * the body only reads m, the first key; other keys only read.  NULL if
 * there is none (writes at two keys, an erase, a key that is no
 * expression). */
static Node *memo_key(Scan *sc, Sym *m)
{
	Node *k0 = NULL;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < sc->acc_map.n; i++) {
			if (sc->acc_map.v[i] != m)
				continue;
			Node *k = sc->acc_key.v[i];
			intptr_t w = (intptr_t)sc->acc_write.v[i];
			if (w == 2 || !k)
				return NULL;
			/* The first pass finds the key of the writes. */
			if (pass == 0 && !w)
				continue;
			if (!k0)
				k0 = k;
			else if (strcmp(acc_key_id(k0), acc_key_id(k)) && w)
				return NULL;
		}
	return k0;
}

void emit_memo_maps(Node *s)
{
	Scan sc = { .loop = s };
	LoopInfo *li = s->li;
	emit_any_node(s->body, find_loops, &sc);
	emit_any_node(s->body, write_targets, &sc);
	emit_any_node(s->body, map_uses, &sc);
	for (int i = 0; i < sc.maps.n; i++) {
		Sym *m = sc.maps.v[i];
		Node *k = memo_key(&sc, m);
		if (!k || acc_is_relaxed(li, m) || !steady(&sc, k))
			continue;
		Memo *mm = xcalloc(1, sizeof *mm);
		mm->map = m;
		mm->key = acc_key_id(k);
		mm->var = emit_tmp("mm");
		/* Audited accesses (map_key in emit_expr.c) look up every time. */
		mm->cond = E->versioned ? "sap_v != 0" : emit_planned_dds(m) >= 0 ? "!sap_audit_on" : "1";
		emit_line(s, "void *%s = NULL;", mm->var);
		emit_line(s, "(void)%s;", mm->var);
		vec_push(&E->memo, mm);
	}
}

const Memo *emit_memo(Node *m, Node *k)
{
	if (!m || m->kind != N_NAME)
		return NULL;
	for (int i = 0; i < E->memo.n; i++) {
		Memo *mm = E->memo.v[i];
		if (mm->map == m->sym && !strcmp(mm->key, acc_key_id(k)))
			return mm;
	}
	return NULL;
}
