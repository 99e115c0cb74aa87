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
	if (c->kind == N_BINARY && c->op == TK_LE && is_var(c->lhs, iv) && c->rhs->kind == N_BINARY &&
	    c->rhs->op == TK_MINUS && c->rhs->rhs->kind == N_INT && c->rhs->rhs->ival == 1)
		sema_fail(c, "the condition of an async for must be '%s < end'; for '%s <= %s', write '%s < %s'",
		          iv->name, iv->name, acc_expr_str(c->rhs), iv->name, acc_expr_str(c->rhs->lhs));
	/* n > i and i != n: the same loop, in the one form. */
	if (c->kind == N_BINARY && ((c->op == TK_GT && is_var(c->rhs, iv)) ||
	                            (c->op == TK_NE && is_var(c->lhs, iv))))
		sema_fail(c, "the condition of an async for must be '%s < end'; write '%s < %s'", iv->name,
		          iv->name, acc_expr_str(c->op == TK_GT ? c->lhs : c->rhs));
	if (c->kind == N_BINARY && c->op == TK_LE && is_var(c->lhs, iv)) {
		/* In the user's words: (n) only where the bound needs it. */
		const char *b = acc_expr_str(c->rhs);
		bool tight = c->rhs->kind == N_NAME || c->rhs->kind == N_INT || c->rhs->kind == N_CALL ||
		             c->rhs->kind == N_INDEX || c->rhs->kind == N_FIELD;
		sema_fail(c, "the condition of an async for must be '%s < end'; for '%s <= %s', write '%s < %s%s%s + 1'",
		          iv->name, iv->name, b, iv->name, tight ? "" : "(", b, tight ? "" : ")");
	}
	if (c->kind != N_BINARY || c->op != TK_LT || !is_var(c->lhs, iv))
		sema_fail(c, "the condition of an async for must be '%s < end'", iv->name);
	Node *s = loop->step;
	if (!s)
		sema_fail(loop, "%s: the step is missing", async_form);
	sema_check_expr(s);
	int64_t one;
	bool ok = (s->kind == N_INCDEC && s->op == TK_INC && is_var(s->lhs, iv)) ||
	          (s->kind == N_ASSIGN && s->op == TK_PLUS && is_var(s->lhs, iv) &&
	           sema_const_int(s->rhs, &one) && one == 1);
	int64_t k;
	if (!ok && s->kind == N_ASSIGN && s->op == TK_PLUS && is_var(s->lhs, iv) && sema_const_int(s->rhs, &k) &&
	    k > 1)
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
	sema_ctx = saved;
	sema_close_scope();
}
