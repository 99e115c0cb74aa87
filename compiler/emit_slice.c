/* emit_slice.c: the reconnaissance slice of a parallel loop to C.
 *
 * sap_loopN_slice runs the statements that the access analysis marked
 * (Node.slice) over a range of iterations and records the keys the loop
 * will touch.  Where it runs what the body may not (an if's branches it
 * cannot decide, the tainted rest of a loop), it opens a speculative
 * region (sap_spec), so that an error there drops the region instead of
 * stopping the job.  Apart from emit_loop.c because a slice is written by
 * rules of its own: only part of each statement, records where the body
 * has accesses.
 */
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

static void slice_stmt(Node *s);

static bool step_included(Node *s)
{
	return s->step->slice == SL_INCLUDED;
}

/* The slice being written: "ddsi:key" of each stable record already made,
 * and the modes of every stable access by that text, merged.  Maps, not
 * scans, so that a body of n accesses takes O(n), not O(n^2). */
Map emit_stable_done, emit_stable_modes;

static const char *rec_text(Access *a)
{
	/* h[rand_int(n)] twice is two draws, two keys: never one record. */
	if (acc_has_rand(a->key))
		return format("%d:%s@%p", a->ddsi, acc_key_id(a->key), (void *)a);
	return format("%d:%s", a->ddsi, acc_key_id(a->key));
}

/* Speculative regions (sap_spec in sap.h): what the slice runs where the
 * body may not go, so that an error there drops the region instead of
 * stopping the job.  Each open region with the depth of inner loops it
 * was opened at, so that a break or continue leaving it restores the
 * enclosing one. */
typedef struct Spec {
	char *name;
	int depth;
} Spec;
Vec emit_spec_open;
int emit_slice_depth;

static void spec_begin(Node *at)
{
	Spec *sp = xcalloc(1, sizeof *sp);
	sp->name = emit_tmp("sp");
	sp->depth = emit_slice_depth;
	vec_push(&emit_spec_open, sp);
	emit_line(at, "{");
	E->indent++;
	emit_line(at, "sap_spec %s;", sp->name);
	emit_line(at, "%s.up = sap_spec_cur;", sp->name);
	emit_line(at, "if (!setjmp(%s.jb)) {", sp->name);
	E->indent++;
	emit_line(at, "sap_spec_cur = &%s;", sp->name);
}

static void spec_end(Node *at)
{
	Spec *sp = emit_spec_open.v[--emit_spec_open.n];
	E->indent--;
	emit_line(at, "}");
	emit_line(at, "sap_spec_cur = %s.up;", sp->name);
	E->indent--;
	emit_line(at, "}");
}

/* Before a break or continue: leave the regions opened inside the loop
 * it leaves or continues. */
static void spec_leave(Node *at)
{
	for (int i = 0; i < emit_spec_open.n; i++) {
		Spec *sp = emit_spec_open.v[i];
		if (sp->depth == emit_slice_depth) {
			emit_line(at, "sap_spec_cur = %s.up;", sp->name);
			return;
		}
	}
}

/* A break or continue in s that the slice drops (its condition cannot be
 * evaluated), outside inner loops: after it, the slice runs what the body
 * may skip. */
static bool dropped_jump(Node *s)
{
	if (!s)
		return false;
	switch (s->kind) {
	case N_BLOCK:
		for (Node *n = s->args; n; n = n->next)
			if (dropped_jump(n))
				return true;
		return false;
	case N_IF:
		return dropped_jump(s->then) || dropped_jump(s->els);
	case N_BREAK: case N_CONTINUE:
		return s->slice != SL_INCLUDED;
	default:
		return false;
	}
}

/* Where t is in n: 0 not there, 1 where n's evaluation always reaches,
 * 2 in an operand it may skip (the right of && or ||, a branch of ?:). */
static int find_lazy(Node *n, Node *t, bool lazy)
{
	if (!n)
		return 0;
	if (n == t)
		return lazy ? 2 : 1;
	bool sc = n->kind == N_BINARY && (n->op == TK_ANDAND || n->op == TK_OROR);
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body,
	                n->size};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++) {
		bool l = lazy || (sc && kids[i] == n->rhs) ||
		         (n->kind == N_COND && (kids[i] == n->then || kids[i] == n->els));
		int r = find_lazy(kids[i], t, l);
		if (r)
			return r;
	}
	for (Node *a = n->args; a; a = a->next) {
		int r = find_lazy(a, t, lazy);
		if (r)
			return r;
	}
	return 0;
}

/* Is a's access in an operand its statement may not evaluate?  The
 * slice records its key unguarded, so it computes it where the body may
 * not (cnt[L[0]] in len(L) > 0 && cnt[L[0]] > 0): in a region of its
 * own, where an error drops the record, which the body, if it gets
 * there, makes its own. */
static bool lazy_access(const Access *a)
{
	return a->unit && find_lazy(a->unit, a->at, false) == 2;
}

/* Might computing e stop the job: an index out of range, a missing key,
 * a division by zero, a checked conversion, a call?  A key that cannot
 * needs no region where the body may not compute it: recording a key the
 * body does not touch only widens the plan, and a region costs a setjmp
 * and makes the slice's locals volatile. */
static bool can_fail(const Node *e)
{
	if (!e || e->has_cval)
		return false;
	if (!e->ty || !(ty_is_num(e->ty) || e->ty->kind == TY_BOOL))
		return true;
	switch (e->kind) {
	case N_INT: case N_FLOAT: case N_BOOL: case N_NAME:
		return false;
	case N_UNARY:
		return can_fail(e->lhs);
	case N_BINARY:
		if (!e->lhs->ty || e->lhs->ty->kind == TY_STRING)
			return true;
		if ((e->op == TK_SHL || e->op == TK_SHR) && ty_is_int(e->ty) &&
		    !(e->rhs->kind == N_INT && e->rhs->ival >= 0 &&
		      e->rhs->ival < (e->ty->kind == TY_INT ? 32 : 64)))
			return true;
		if ((e->op == TK_SLASH || e->op == TK_PERCENT) && ty_is_int(e->ty) &&
		    !(e->rhs->kind == N_INT && e->rhs->ival != 0))
			return true;
		return can_fail(e->lhs) || can_fail(e->rhs);
	case N_COND:
		return can_fail(e->cond) || can_fail(e->then) || can_fail(e->els);
	case N_CONV:
		if (ty_is_int(e->ty) && ty_is_float(e->lhs->ty))
			return true;
		if (e->ty->kind == TY_INT && e->lhs->ty->kind == TY_LONG)
			return true;
		return can_fail(e->lhs);
	default:
		return true;
	}
}

/* Is a's key, recorded at s, recorded in a region of its own: before an
 * inner loop, which may make no pass or none that reaches the access, or
 * in an operand its statement may not evaluate (lazy_access)? */
static bool record_spec(Node *s, const Access *a)
{
	bool maybe = s->kind == N_WHILE || s->kind == N_DO || s->kind == N_FOR ||
	             lazy_access(a);
	return maybe && can_fail(a->key);
}

/* Does s record a key in a region of its own? */
static bool spec_records(Node *s)
{
	LoopInfo *li = E->loop->li;
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (a->recorded && a->anchor == s && record_spec(s, a))
			return true;
	}
	return false;
}

static void records(Node *at)
{
	LoopInfo *li = E->loop->li;
	/* One record per DDS and key at this point, with the modes merged:
	 * keys have no side effects, so equal texts over the same symbols
	 * are equal values (but for random draws, which rec_text keeps
	 * apart). */
	Vec recs = {0}, modes = {0};
	Map here = {0};
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (!a->recorded || a->anchor != at)
			continue;
		const char *t = rec_text(a);
		int mode = a->mode | a->folded;
		if (a->stable) {
			/* Recorded once, at the first place, with every mode the
			 * iteration uses it in. */
			if (map_get(&emit_stable_done, t))
				continue;
			map_put(&emit_stable_done, t, (void *)t);
			mode |= (int)(intptr_t)map_get(&emit_stable_modes, t);
		}
		/* Index + 1 of its record here, so that 0 is none. */
		int k = (int)(intptr_t)map_get(&here, t) - 1;
		if (k < 0) {
			vec_push(&recs, a);
			vec_push(&modes, (void *)(intptr_t)mode);
			map_put(&here, t, (void *)(intptr_t)recs.n);
		} else {
			modes.v[k] = (void *)((intptr_t)modes.v[k] | mode);
		}
	}
	for (int i = 0; i < recs.n; i++) {
		Access *a = recs.v[i];
		bool spec = record_spec(at, a);
		if (spec)
			spec_begin(E->loop);
		StmtState st;
		emit_stmt_begin(&st);
		char *k = emit_expr(a->key);
		bool str = a->key->ty->kind == TY_STRING;
		/* A write of a map that may insert: is the key there? */
		bool check = ((intptr_t)modes.v[i] & ACC_WRITE) && acc_checks_keys(li, a->dds);
		if (check) {
			emit_line(E->loop, "{ %s sap_kc = %s;", emit_ctype(a->key->ty), k);
			k = "sap_kc";
		}
		char *rk = str ? format("sap_key_str(%s)", k) : format("(int64_t)(%s)", k);
		static const char *mname[] = {"", "SAP_READ", "SAP_WRITE", "SAP_RW"};
		/* At the loop's line: a breakpoint on the body's line should
		 * stop in the body, not in its reconnaissance. */
		emit_line(E->loop, "sap_rec_key(rec, %d, %s, %s);", a->ddsi, rk,
		          mname[(intptr_t)modes.v[i]]);
		Node *mn = a->at->kind == N_INDEX ? a->at->lhs : a->at->args;
		if (check && str)
			emit_line(E->loop, "sap_rec_has(rec, %d, sap_dm_find(&%s, &sap_kc)); }", a->ddsi,
			          emit_expr(mn));
		else if (check)
			emit_line(E->loop, "sap_rec_has(rec, %d, sap_dm_find_int(&%s, sap_kc, %s)); }", a->ddsi,
			          emit_expr(mn), a->dds->ty->key->kind == TY_LONG ? "true" : "false");
		emit_stmt_end(&st, E->loop);
		if (spec)
			spec_end(E->loop);
	}
}

static void slice_guard(Node *s, Node *g, const char *neg)
{
	StmtState st;
	emit_stmt_begin(&st);
	char *c = emit_settle(g, &st, "bool");
	emit_stmt_end(&st, s);
	emit_line(s, "if (%s(%s))", neg, c);
}

/* Might the slice of s open a speculative region? */
static bool has_spec(Node *s)
{
	if (!s)
		return false;
	switch (s->kind) {
	case N_BLOCK:
		for (Node *n = s->args; n; n = n->next)
			if (has_spec(n))
				return true;
		return false;
	case N_IF:
		return s->slice == SL_FLAT || spec_records(s) || has_spec(s->then) ||
		       has_spec(s->els);
	case N_WHILE: case N_DO: case N_FOR:
		return spec_records(s) || s->slice == SL_FLAT ||
		       (s->slice == SL_INCLUDED && (acc_slice_over(s) || dropped_jump(s->body))) ||
		       has_spec(s->init) || has_spec(s->body);
	default:
		return spec_records(s);
	}
}

static void slice_block(Node *s)
{
	emit_line(s, "{");
	E->indent++;
	emit_push_scope(false, false);
	slice_stmt(s);
	emit_pop_scope(s);
	E->indent--;
	emit_line(s, "}");
}

/* A block the body may not run. */
static void spec_block(Node *s)
{
	emit_line(s, "{");
	E->indent++;
	spec_begin(s);
	slice_block(s);
	spec_end(s);
	E->indent--;
	emit_line(s, "}");
}

static void slice_loop(Node *s)
{
	emit_line(s, "{");
	E->indent++;
	emit_push_scope(false, false);
	if (s->kind == N_FOR && s->init) {
		emit_spec_ahead = s->slice == SL_FLAT ||
		                  (s->slice == SL_INCLUDED && (acc_slice_over(s) || dropped_jump(s->body))) ||
		                  has_spec(s->body);
		slice_stmt(s->init);
		emit_spec_ahead = true;
	}
	records(s);
	emit_slice_depth++;
	if (s->slice == SL_FLAT) {
		/* The trip count is unknowable: record the body's keys once. */
		spec_block(s->body);
	} else if (s->slice == SL_INCLUDED) {
		char *first = emit_tmp("first");
		emit_line(s, "for (bool %s = true;; %s = false) {", first, first);
		E->indent++;
		emit_push_scope(true, false);
		if (s->kind == N_FOR && s->step && step_included(s)) {
			emit_line(s, "if (!%s) {", first);
			E->indent++;
			Node es = {.kind = N_EXPR, .file = s->step->file, .off = s->step->off, .lhs = s->step};
			emit_stmt(&es);
			E->indent--;
			emit_line(s, "}");
		}
		if (s->kind == N_DO) {
			emit_line(s, "if (!%s) {", first);
			E->indent++;
			emit_loop_cond(acc_slice_guard(s, false));
			E->indent--;
			emit_line(s, "}");
		} else {
			emit_line(s, "(void)%s;", first);
			if (s->cond)
				emit_loop_cond(acc_slice_guard(s, false));
		}
		/* Passes past a condition or break the slice cannot evaluate,
		 * or past a continue it drops. */
		if (acc_slice_over(s) || dropped_jump(s->body))
			spec_block(s->body);
		else
			slice_block(s->body);
		emit_pop_scope(s);
		E->indent--;
		emit_line(s, "}");
	}
	emit_slice_depth--;
	emit_pop_scope(s);
	E->indent--;
	emit_line(s, "}");
}

static void slice_stmt(Node *s)
{
	if (!s)
		return;
	switch (s->kind) {
	case N_BLOCK:
		for (Node *n = s->args; n; n = n->next) {
			if (n->kind == N_VAR) {
				emit_spec_ahead = false;
				for (Node *m = n->next; m && !emit_spec_ahead; m = m->next)
					emit_spec_ahead = has_spec(m);
			}
			slice_stmt(n);
			emit_spec_ahead = true;
		}
		return;
	case N_VAR: case N_EXPR:
		records(s);
		if (s->slice == SL_INCLUDED) {
			emit_stmt(s);
		} else if (s->kind == N_VAR && s->sym->slice_decl) {
			Node d = *s;
			d.init = NULL;
			emit_stmt(&d);
		}
		/* Declared for its initialiser's side effect (int t = (k =
		 * 5)), a local the slice never reads is unused in its C. */
		if (s->kind == N_VAR && (s->slice == SL_INCLUDED || s->sym->slice_decl))
			emit_line(s, "(void)%s;", s->sym->cname);
		return;
	case N_IF:
		records(s);
		if (s->slice == SL_INCLUDED) {
			StmtState st;
			emit_stmt_begin(&st);
			char *c = emit_settle(s->cond, &st, "bool");
			emit_stmt_end(&st, s);
			emit_line(s, "if (%s)", c);
			slice_block(s->then);
			if (s->els) {
				emit_line(s, "else");
				slice_block(s->els);
			}
		} else if (s->slice == SL_FLAT) {
			/* Over-approximated: each branch runs unless what the slice
			 * can evaluate of the condition rules it out; a forked if
			 * runs one branch per path. */
			Node *g = acc_slice_guard(s, false), *k = acc_slice_guard(s, true);
			int fork = acc_slice_fork(s);
			if (fork)
				emit_line(s, "if (sap_path >> %d & 1) {", fork - 1);
			/* An error in a forked branch drops the rest of the path
			 * (the region of the whole path), in another branch the
			 * rest of the branch. */
			if (g)
				slice_guard(s, g, "");
			if (fork)
				slice_block(s->then);
			else
				spec_block(s->then);
			if (fork)
				emit_line(s, "} else {");
			if (s->els) {
				if (k)
					slice_guard(s, k, "!");
				if (fork)
					slice_block(s->els);
				else
					spec_block(s->els);
			}
			if (fork)
				emit_line(s, "}");
		}
		return;
	case N_WHILE: case N_DO: case N_FOR:
		if (s->slice || (s->kind == N_FOR && s->init && s->init->slice)) {
			slice_loop(s);
			return;
		}
		/* A loop the slice need not run still has the records of its
		 * init, which runs once: for (s = v[k]; ...) read v[k] where
		 * only the body's keys were recorded, and the plan ran
		 * iterations writing v[k] beside it. */
		if (s->kind == N_FOR && s->init)
			records(s->init);
		records(s);
		return;
	case N_BREAK: case N_CONTINUE:
		if (s->slice == SL_INCLUDED) {
			spec_leave(s);
			emit_stmt(s);
		}
		return;
	default:
		return;
	}
}

/* void sap_loopN_slice(env, lo, hi, rec): the statements the recorded
 * keys depend on, and the records. */
void emit_slice_fn(Node *s)
{
	LoopInfo *li = s->li;
	Aside as;
	emit_aside_begin(&as);
	emit_line(s, "static void sap_loop%d_slice(void *env, const int64_t *sap_idx, int64_t lo, int64_t hi, sap_rec *rec)", li->id);
	emit_line(s, "{");
	E->indent = 1;
	emit_line(s, "(void)env;");
	if (s->kind == N_ASYNC)
		emit_stage_decls(s);
	emit_iterations_begin(s);
	emit_line(s, "sap_rec_begin(rec, sap_i);");
	/* Once per combination of the forked ifs' branches. */
	if (li->nforks) {
		emit_line(s, "for (int sap_path = 0; sap_path < %d; sap_path++) {", 1 << li->nforks);
		E->indent++;
		emit_push_scope(true, false);
	}
	emit_rng_setup(s, true);
	emit_element_var(s);
	Node *saved = E->loop;
	E->loop = s;
	emit_stable_done = emit_stable_modes = (Map){0};
	for (int i = 0; i < s->li->accesses.n; i++) {
		Access *a = s->li->accesses.v[i];
		if (a->recorded && a->stable) {
			const char *t = rec_text(a);
			map_put(&emit_stable_modes, t,
			        (void *)((intptr_t)map_get(&emit_stable_modes, t) | a->mode | a->folded));
		}
	}
	emit_slice_depth = 0;
	emit_spec_open.n = 0;
	/* A path of forked ifs, or the rest of an iteration after a continue
	 * the slice drops, may be one the body does not take.  Before the
	 * first of them the body runs what the slice runs, and stops at the
	 * same error. */
	bool spec = li->nforks || dropped_jump(s->body);
	emit_slice_volatile = spec || has_spec(s->body);
	/* The region is a block: the body's locals are declared inside it
	 * and dropped there. */
	if (spec) {
		spec_begin(s);
		emit_push_scope(false, false);
	}
	emit_in_slice = true;
	slice_stmt(s->body);
	emit_in_slice = false;
	if (spec) {
		emit_pop_scope(s);
		spec_end(s);
	}
	bool clobber = emit_slice_volatile;
	emit_slice_volatile = false;
	E->loop = saved;
	if (li->nforks) {
		emit_pop_scope(s);
		E->indent--;
		emit_line(s, "}");
	}
	emit_iterations_end(s);
	E->indent = 0;
	emit_line(s, "}");
	/* GCC warns of every variable live across a setjmp, and setjmp
	 * blurs its view of what is initialised; the variables the slice
	 * reads after a longjmp are volatile, and the body, compiled from
	 * the same statements, gets the warnings about the program. */
	if (clobber)
		buf_puts(&E->funcs, "#if defined __GNUC__ && !defined __clang__\n"
		         "#pragma GCC diagnostic push\n"
		         "#pragma GCC diagnostic ignored \"-Wclobbered\"\n"
		         "#pragma GCC diagnostic ignored \"-Wmaybe-uninitialized\"\n"
		         "#endif\n");
	buf_puts(&E->funcs, emit_aside_end(&as));
	if (clobber)
		buf_puts(&E->funcs, "#if defined __GNUC__ && !defined __clang__\n"
		         "#pragma GCC diagnostic pop\n"
		         "#endif\n");
	buf_puts(&E->funcs, "\n");
}
