/* emit_loop.c: a parallel loop to C.
 *
 * Each async or sync for becomes its reduction struct and helpers, the
 * element types the runtime moves (sap_numtype), the functions that run
 * its body over a range of iterations (one copy, specialised by the
 * versions its caller picks), its reconnaissance slice function (from
 * emit_slice.c), its descriptor, and the driver code that runs it and
 * stamps the versions of what it wrote.  Apart from emit.c because a loop
 * is outlined into functions of its own, written aside from the statement
 * that holds it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/* The sap_numtype of element type t (emitted once): the runs of its
 * scalars, as the C compiler lays them out, which a static assertion
 * checks. */
static const char *numtype_of(Type *t)
{
	/* By C name, one per type as the mangled name is. */
	const char *ct = emit_ctype(t);
	const char *name = format("sap_nt_%s", ct);
	for (int i = 0; i < E->numtypes.n; i++)
		if (E->numtypes.v[i] == t)
			return format("&%s", name);
	vec_push(&E->numtypes, t);
	/* Flatten: (offset, kind) of each scalar, merged into runs. */
	typedef struct { int64_t off, n; Type *k; } Run;
	Run *runs = NULL;
	int nr = 0, cap = 0;
	Buf out = {0};
	buf_printf(&out, "static const sap_numfield sap_nf_%s[] = {", ct);
	/* Depth-first in memory order, on a stack: arrays element by
	 * element, structs field by field at their aligned offsets. */
	Type **ts = NULL;
	int64_t *offs = NULL;
	int nts = 0, tcap = 0;
#define PUSH(T_, O_)                                                            \
	do {                                                                    \
		if (nts == tcap) {                                              \
			tcap = tcap ? 2 * tcap : 16;                            \
			ts = xrealloc(ts, (size_t)tcap * sizeof *ts);           \
			offs = xrealloc(offs, (size_t)tcap * sizeof *offs);     \
		}                                                               \
		ts[nts] = (T_);                                                 \
		offs[nts++] = (O_);                                             \
	} while (0)
	PUSH(t, 0);
	while (nts) {
		Type *u = ts[--nts];
		int64_t off = offs[nts];
		if (u->kind == TY_ARRAY) {
			int64_t es = ty_csize(u->elem);
			if (ty_is_num(u->elem)) {
				if (nr && runs[nr - 1].k == u->elem &&
				    runs[nr - 1].off + runs[nr - 1].n * es == off) {
					runs[nr - 1].n += u->len;
				} else {
					if (nr == cap) {
						cap = cap ? 2 * cap : 8;
						runs = xrealloc(runs, (size_t)cap * sizeof *runs);
					}
					runs[nr++] = (Run){ off, u->len, u->elem };
				}
				continue;
			}
			for (int64_t i = u->len; i-- > 0;)
				PUSH(u->elem, off + i * es);
			continue;
		}
		if (u->kind == TY_STRUCT) {
			int nf = 0;
			for (Node *f = u->sdecl->args; f; f = f->next)
				nf++;
			int64_t *fo = xcalloc((size_t)nf, sizeof *fo);
			Type **ft = xcalloc((size_t)nf, sizeof *ft);
			int64_t at = 0;
			int k = 0;
			for (Node *f = u->sdecl->args; f; f = f->next, k++) {
				int64_t fa = ty_field_align(u, f->ty);
				at = (at + fa - 1) / fa * fa;
				fo[k] = at;
				ft[k] = f->ty;
				at += ty_csize(f->ty);
			}
			while (k-- > 0)
				PUSH(ft[k], off + fo[k]);
			xfree(fo);
			xfree(ft);
			continue;
		}
		int64_t es = ty_csize(u);
		if (nr && runs[nr - 1].k == u && runs[nr - 1].off + runs[nr - 1].n * es == off) {
			runs[nr - 1].n++;
		} else {
			if (nr == cap) {
				cap = cap ? 2 * cap : 8;
				runs = xrealloc(runs, (size_t)cap * sizeof *runs);
			}
			runs[nr++] = (Run){ off, 1, u };
		}
	}
#undef PUSH
	for (int i = 0; i < nr; i++)
		buf_printf(&out, "\n\t{.off = %lld, .n = %lld, .kind = %s},", (long long)runs[i].off,
		           (long long)runs[i].n, emit_scalar_kind(runs[i].k));
	buf_printf(&out, "\n};\nstatic const sap_numtype %s = {.size = sizeof(%s), .nf = %d, .f = sap_nf_%s};\n"
	           "_Static_assert(sizeof(%s) == %lld, \"the layout of %s\");\n", name, ct, nr,
	           ct, ct, (long long)ty_csize(t), ct);
	buf_puts(&E->types, out.s);
	xfree(runs);
	xfree(ts);
	xfree(offs);
	return format("&%s", name);
}

static const char *identity(Node *r, Type *t);

/* The sap_numtype of the elements of d, accumulated or relaxed in loop
 * li, or written by it if a sync for: numtype_of's, or, where the body
 * adds longs to their ints, one whose int sums the runtime checks for
 * range (written once). */
static const char *acc_numtype(LoopInfo *li, Sym *d)
{
	Type *e = d->ty->elem;
	const char *nt = numtype_of(e);
	Node *at = sema_narrow_at(li, d);
	if (!at)
		return nt;
	const char *name = format("sap_ntc%d_%s", li->id, d->cname);
	for (int i = 0; i < E->redfns.n; i++)
		if (!strcmp(E->redfns.v[i], name))
			return format("&%s", name);
	vec_push(&E->redfns, (void *)name);
	const char *ct = emit_ctype(e);
	buf_printf(&E->statics, "static const sap_sumcheck sap_chk%d_%s = {.name = %s, .site = %s%s};\n"
	           "static const sap_numtype %s = {\n\t.size = sizeof(%s),\n"
	           "\t.nf = (int)(sizeof sap_nf_%s / sizeof *sap_nf_%s),\n\t.f = sap_nf_%s,\n"
	           "\t.check = &sap_chk%d_%s,\n};\n", li->id, d->cname,
	           emit_cstr(d->name, strlen(d->name)), emit_site(at),
	           li->verdict == VD_SYNC ? ", .sect = \"sync for\"" : "", name, ct, ct, ct, ct, li->id,
	           d->cname);
	return format("&%s", name);
}

/* The arguments of a combination of reduce variable v's partial values
 * in loop li that checks the range of their ints (sap_red_addc_i32), or
 * NULL where they wrap. */
static const char *red_check(LoopInfo *li, Sym *v)
{
	Node *at = sema_narrow_at(li, v);
	return at ? format("%s, %s", emit_site(at), emit_cstr(v->name, strlen(v->name))) : NULL;
}
static char *combine(Node *r, Type *t, const char *a, const char *b, const char *chk);

/* Statements applying reduction r to each scalar of a and b (of type t)
 * into a, or setting each scalar of a to r's identity when b is NULL;
 * chk as combine's. */
static void leafwise(Buf *o, Node *r, Type *t, const char *a, const char *b, const char *chk,
                     int depth)
{
	if (t->kind == TY_ARRAY) {
		buf_printf(o, "%*sfor (int64_t i%d = 0; i%d < %lld; i%d++) {\n", depth * 8, "", depth, depth,
		           (long long)t->len, depth);
		leafwise(o, r, t->elem, format("%s[i%d]", emit_member(a, "v"), depth),
		         b ? format("%s[i%d]", emit_member(b, "v"), depth) : NULL, chk,
		         depth + 1);
		buf_printf(o, "%*s}\n", depth * 8, "");
	} else if (t->kind == TY_STRUCT) {
		for (Node *f = t->sdecl->args; f; f = f->next)
			leafwise(o, r, f->ty, emit_member(a, f->sym->cname),
			         b ? emit_member(b, f->sym->cname) : NULL, chk, depth);
	} else {
		buf_printf(o, "%*s%s = %s;\n", depth * 8, "", a, b ? combine(r, t, a, b, chk) : identity(r, t));
	}
}

/* For an array or struct of numbers under a built-in reduction: the
 * name of the helper that combines two values (ident false; checking
 * the range of their ints' sums where chk) or returns the identity,
 * written once. */
static const char *red_helper(Node *r, Type *t, bool ident, bool chk)
{
	const char *op = format("%.*s", r->name.len, r->name.p);
	const char *opn = r->op == TK_PLUS ? "add" : r->op == TK_STAR ? "mul" : op;
	const char *fn = format("sap_%s_%s_%s", ident ? "id" : chk ? "redc" : "red", opn,
	                        emit_ctype(t));
	for (int i = 0; i < E->redfns.n; i++)
		if (!strcmp(E->redfns.v[i], fn))
			return fn;
	vec_push(&E->redfns, (void *)fn);
	const char *ct = emit_ctype(t);
	Buf o = {0};
	if (ident)
		buf_printf(&o, "static %s %s(void)\n{\n\t%s a;\n\tmemset(&a, 0, sizeof a);\n", ct, fn, ct);
	else if (chk)
		buf_printf(&o, "static %s %s(%s a, %s b, const sap_site *s, const char *v)\n{\n", ct,
		           fn, ct, ct);
	else
		buf_printf(&o, "static %s %s(%s a, %s b)\n{\n", ct, fn, ct, ct);
	leafwise(&o, r, t, "a", ident ? NULL : "b", chk ? "s, v" : NULL, 1);
	buf_printf(&o, "\treturn a;\n}\n");
	buf_puts(&E->types, o.s);
	return fn;
}

static const char *identity(Node *r, Type *t)
{
	if (!ty_is_scalar(t) && !r->sym)
		return format("%s()", red_helper(r, t, true, false));
	const char *op = format("%.*s", r->name.len, r->name.p);
	/* -0.0 adds nothing to any sum, -0.0 included (+0.0 made it +0.0:
	 * double s = -0.0 stayed so serially over no iteration). */
	if (r->op == TK_PLUS && ty_is_float(t))
		return "-0.0";
	switch (r->op) {
	case TK_PLUS: case TK_OR: case TK_XOR: return "0";
	case TK_STAR: return "1";
	case TK_AND: return "-1";
	case TK_ANDAND: return "true";
	case TK_OROR: return "false";
	default: break;
	}
	bool mn = !strcmp(op, "min");
	if (mn || !strcmp(op, "max")) {
		switch (t->kind) {
		case TY_INT: return mn ? "INT32_MAX" : "INT32_MIN";
		case TY_LONG: return mn ? "INT64_MAX" : "INT64_MIN";
		default: return mn ? "INFINITY" : "-INFINITY";
		}
	}
	return NULL;    /* user function: the zero value */
}

/* a and b combined by r; chk, where their ints' sums and products are
 * checked for range, the site and name arguments of sap_red_addc_i32. */
static char *combine(Node *r, Type *t, const char *a, const char *b, const char *chk)
{
	if (!ty_is_scalar(t) && !r->sym)
		return chk ? format("%s(%s, %s, %s)", red_helper(r, t, false, true), a, b, chk) :
		             format("%s(%s, %s)", red_helper(r, t, false, false), a, b);
	if (chk && t->kind == TY_INT && (r->op == TK_PLUS || r->op == TK_STAR))
		return format("sap_red_%sc_i32(%s, %s, %s)", r->op == TK_PLUS ? "add" : "mul", a, b,
		              chk);
	const char *op = format("%.*s", r->name.len, r->name.p);
	const char *sfx = t->kind == TY_INT ? "i32" : t->kind == TY_LONG ? "i64" :
	                  t->kind == TY_FLOAT ? "f" : "d";
	switch (r->op) {
	case TK_PLUS: return format("%s + %s", a, b);
	case TK_STAR: return format("%s * %s", a, b);
	case TK_AND: return format("%s & %s", a, b);
	case TK_OR: return format("%s | %s", a, b);
	case TK_XOR: return format("%s ^ %s", a, b);
	case TK_ANDAND: return format("%s && %s", a, b);
	case TK_OROR: return format("%s || %s", a, b);
	default: break;
	}
	if (!strcmp(op, "min") || !strcmp(op, "max"))
		return format("sap_%s_%s(%s, %s)", op, sfx, a, b);
	return format("%s(%s, %s)", r->sym->cname, a, b);
}

/* A min or max and the variables kept with it: from's, if from's value
 * beats into's by the body's test (test opens the condition).  Two
 * workers' partials (at NULL) that tie go by the iterations that set
 * them, as serially: the first for < and >, the last for <= and >=;
 * each worker runs its iterations in index order where the loop runs
 * by chunks or by the keys of a map, so that a tie is the serial loop's
 * whichever worker holds which iterations.  The driver's own value comes
 * before every iteration.  One set to values its test compared before
 * rounding them (best = float(d)) goes by those: a later partial's
 * value is the serial loop's if its own tested value beats the earlier
 * value, since from there on both meet the same records (0 and -0, which
 * tie, from d = 0 and d = 1e-50: the serial loop moves from -0 to 0 for
 * the second, not for 0). */
static void emit_won(Node *at, LoopInfo *li, Sym *v, const char *into, const char *from,
                     const char *test)
{
	const char *t = at ? "" : "\t";
	int j = 0;
	while (li->won_syms.v[j] != v)
		j++;
	int op = (int)(intptr_t)li->won_ops.v[j];
	const char *o = ast_opname(op), *n = v->cname;
	bool tv = false;
	for (int i = 0; i < li->tv_syms.n; i++)
		tv |= li->tv_syms.v[i] == v;
	if (at && tv)
		emit_line(at, "if (%s%ssap_tv_%s %s %s%s)) {", test, from, n, o, into, n);
	else if (at)
		emit_line(at, "if (%s%s%s %s %s%s)) {", test, from, n, o, into, n);
	else if (tv)
		emit_line(at, "\tif (%s(%ssap_at_%s > %ssap_at_%s ? %ssap_tv_%s %s %s%s : !(%ssap_tv_%s %s %s%s)))) {",
		          test, from, n, into, n, from, n, o, into, n, into, n, o, from, n);
	else if (op == TK_LT || op == TK_GT)
		emit_line(at, "\tif (%s%s%s %s %s%s || (!(%s%s %s %s%s) && %ssap_at_%s < %ssap_at_%s))) {",
		          test, from, n, o, into, n, into, n, o, from, n, from, n, into, n);
	else
		emit_line(at, "\tif (%s(%s%s %s %s%s && (!(%s%s %s %s%s) || %ssap_at_%s > %ssap_at_%s)))) {",
		          test, from, n, o, into, n, into, n, o, from, n, from, n, into, n);
	emit_line(at, "%s\t%s%s = %s%s;", t, into, n, from, n);
	for (int i = 0; i < li->kept_syms.n; i++)
		if (li->kept_with.v[i] == v) {
			const char *c = ((Sym *)li->kept_syms.v[i])->cname;
			emit_line(at, "%s\t%s%s = %s%s;", t, into, c, from, c);
		}
	if (at == NULL) {
		emit_line(at, "%s\t%ssap_won_%s = true;", t, into, n);
		emit_line(at, "%s\t%ssap_at_%s = %ssap_at_%s;", t, into, n, from, n);
		if (tv)
			emit_line(at, "%s\t%ssap_tv_%s = %ssap_tv_%s;", t, into, n, from, n);
	}
	emit_line(at, "%s}", t);
}

void emit_aside_begin(Aside *a)
{
	memset(&a->buf, 0, sizeof a->buf);
	a->out = E->out;
	a->indent = E->indent;
	a->scope = E->scope;
	E->out = &a->buf;
	E->indent = 0;
	E->scope = NULL;
}

char *emit_aside_end(Aside *a)
{
	E->out = a->out;
	E->indent = a->indent;
	E->scope = a->scope;
	return a->buf.s ? a->buf.s : xstrdup("");
}

/* How a sync for merges written vector d: "SAP_M_AVG, NULL", or a
 * function applying merge(d) = f to each scalar. */
static char *merge_of(Node *s, Sym *d)
{
	LoopInfo *li = s->li;
	for (int i = 0; i < li->merge_dds.n; i++) {
		if (li->merge_dds.v[i] != d)
			continue;
		Node *h = ((Node *)li->merge_how.v[i])->rhs;
		if (!h->sym)
			return format(".merge = SAP_M_%s", h->name.len == 3 && !strncmp(h->name.p, "sum", 3) ? "SUM" : "AVG");
		/* f of each scalar, or of each element (its parameter type). */
		Type *pt = h->sym->decl->args->sym->ty;
		const char *sc = emit_ctype(pt), *et = emit_ctype(d->ty->elem);
		char *fn = format("sap_merge%d_%s", li->id, d->cname);
		buf_printf(&E->protos,
		           "static void %s(void *out, const void *old, const void *total, int64_t n, int64_t workers)\n"
		           "{\n"
		           "\t%s *o = out;\n"
		           "\tconst %s *a = old, *t = total;\n"
		           "\tn *= (int64_t)(sizeof(%s) / sizeof(%s));\n"
		           "\tfor (int64_t i = 0; i < n; i++)\n"
		           "\t\to[i] = %s(a[i], t[i], workers);\n"
		           "}\n", fn, sc, sc, et, sc, h->sym->cname);
		return format(".merge = SAP_M_FN, .fn = %s", fn);
	}
	return ".merge = SAP_M_AVG";
}

/* d's index in the loop's spec of DDSs. */
static int dds_index(LoopInfo *li, Sym *d)
{
	int k = 0;
	while (k < li->dds.n && li->dds.v[k] != d)
		k++;
	return k;
}

/* The reduce struct: reduce variables, then one private buffer per
 * accumulated DDS, with identities and merge. */
static void reduce_struct(Node *s)
{
	LoopInfo *li = s->li;
	int id = li->id;
	Aside as;
	emit_aside_begin(&as);
	emit_line(NULL, "struct sap_red%d {", id);
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Sym *v = li->reduce_syms.v[i];
		emit_line(NULL, "\t%s %s;", emit_ctype(v->ty), v->cname);
	}
	for (int i = 0; i < li->kept_syms.n; i++) {
		Sym *c = li->kept_syms.v[i];
		emit_line(NULL, "\t%s %s;", emit_ctype(c->ty), c->cname);
	}
	for (int i = 0; i < li->won_syms.n; i++) {
		emit_line(NULL, "\tbool sap_won_%s;", ((Sym *)li->won_syms.v[i])->cname);
		emit_line(NULL, "\tint64_t sap_at_%s;", ((Sym *)li->won_syms.v[i])->cname);
	}
	for (int i = 0; i < li->tv_syms.n; i++)
		emit_line(NULL, "\tdouble sap_tv_%s;", ((Sym *)li->tv_syms.v[i])->cname);
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		if (d->ty->kind == TY_DVEC)
			emit_line(NULL, "\tvoid *acc_%s;", d->cname);
		else
			emit_line(NULL, "\tsap_dmap acc_%s;", d->cname);
	}
	/* A relaxed vector's worker view, which the body reads and adds
	 * to as an accumulate buffer (the runtime sets it); a vector of
	 * sums' buffer, or NULL where the plan orders its updates. */
	for (int i = 0; i < li->relax_syms.n; i++)
		emit_line(NULL, "\tvoid *acc_%s;", ((Sym *)li->relax_syms.v[i])->cname);
	for (int i = 0; i < li->sum_syms.n; i++)
		emit_line(NULL, "\tvoid *acc_%s;", ((Sym *)li->sum_syms.v[i])->cname);
	emit_line(NULL, "};\n");
	emit_line(NULL, "static void sap_loop%d_init(void *red)\n{", id);
	emit_line(NULL, "\tstruct sap_red%d *r = red;", id);
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Sym *v = li->reduce_syms.v[i];
		const char *z = identity(li->reduce_ops.v[i], v->ty);
		if (z)
			emit_line(NULL, "\tr->%s = %s;", v->cname, z);
		else
			emit_line(NULL, "\tmemset(&r->%s, 0, sizeof r->%s);", v->cname, v->cname);
	}
	for (int i = 0; i < li->kept_syms.n; i++)
		emit_line(NULL, "\tr->%s = 0;", ((Sym *)li->kept_syms.v[i])->cname);
	for (int i = 0; i < li->won_syms.n; i++)
		emit_line(NULL, "\tr->sap_won_%s = false, r->sap_at_%s = 0;", ((Sym *)li->won_syms.v[i])->cname,
		          ((Sym *)li->won_syms.v[i])->cname);
	for (int i = 0; i < li->tv_syms.n; i++)
		emit_line(NULL, "\tr->sap_tv_%s = NAN;", ((Sym *)li->tv_syms.v[i])->cname);
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		Type *t = d->ty;
		if (t->kind == TY_DVEC) {
			emit_line(NULL, "\tr->acc_%s = sap_acc_alloc(%s.n, sizeof(%s), %s);", d->cname, d->cname,
			          emit_ctype(t->elem), acc_numtype(li, d));
		} else {
			const char *kk = t->key->kind == TY_INT ? "SAP_K_INT" : t->key->kind == TY_LONG ?
			                 "SAP_K_LONG" : "SAP_K_STRING";
			emit_line(NULL, "\tsap_dm_create_buffer(&r->acc_%s, %s, %s, sizeof(%s), %s);", d->cname,
			          emit_cstr(d->name, strlen(d->name)), kk, emit_ctype(t->elem),
			          acc_numtype(li, d));
		}
	}
	for (int i = 0; i < li->relax_syms.n; i++)
		emit_line(NULL, "\tr->acc_%s = NULL;", ((Sym *)li->relax_syms.v[i])->cname);
	for (int i = 0; i < li->sum_syms.n; i++) {
		Sym *d = li->sum_syms.v[i];
		emit_line(NULL, "\tr->acc_%s = sap_acc_opt(&sap_loop%d, %d, %s.n, sizeof(%s), %s);",
		          d->cname, id, dds_index(li, d), d->cname, emit_ctype(d->ty->elem),
		          numtype_of(d->ty->elem));
	}
	emit_line(NULL, "}\n");
	emit_line(NULL, "static void sap_loop%d_combine(void *into, const void *from)\n{", id);
	emit_line(NULL, "\tstruct sap_red%d *r = into;", id);
	emit_line(NULL, "\tstruct sap_red%d *f = (struct sap_red%d *)from;", id, id);
	if (!li->reduce_syms.n && !li->accum_syms.n && !li->sum_syms.n)
		emit_line(NULL, "\t(void)r, (void)f;");
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Sym *v = li->reduce_syms.v[i];
		if (sema_is_won(s, v))
			emit_won(NULL, li, v, "r->", "f->", format("f->sap_won_%s && (!r->sap_won_%s || ", v->cname,
			                                     v->cname));
		else
			emit_line(NULL, "\tr->%s = %s;", v->cname,
			          combine(li->reduce_ops.v[i], v->ty, format("r->%s", v->cname),
			                  format("f->%s", v->cname), red_check(li, v)));
	}
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		Type *t = d->ty;
		const char *nt = acc_numtype(li, d);
		if (t->kind == TY_DVEC) {
			emit_line(NULL, "\tsap_acc_add(%s, r->acc_%s, f->acc_%s, %s.n);", nt, d->cname,
			          d->cname, d->cname);
			emit_line(NULL, "\tsap_acc_free(f->acc_%s);", d->cname);
		} else {
			emit_line(NULL, "\tsap_dm_merge(%s, &r->acc_%s, &f->acc_%s);", nt, d->cname, d->cname);
			emit_line(NULL, "\tsap_dm_free(&f->acc_%s);", d->cname);
		}
	}
	for (int i = 0; i < li->sum_syms.n; i++) {
		Sym *d = li->sum_syms.v[i];
		emit_line(NULL, "\tif (f->acc_%s) {", d->cname);
		emit_line(NULL, "\t\tsap_acc_add(%s, r->acc_%s, f->acc_%s, %s.n);",
		          numtype_of(d->ty->elem), d->cname, d->cname, d->cname);
		emit_line(NULL, "\t\tsap_acc_free(f->acc_%s);", d->cname);
		emit_line(NULL, "\t}");
	}
	emit_line(NULL, "}\n");
	bool flat = true;
	for (int i = 0; i < li->reduce_syms.n; i++)
		flat = flat && ty_is_flat(((Sym *)li->reduce_syms.v[i])->ty);
	const char *acc = "NULL";
	int nacc = li->accum_syms.n + li->sum_syms.n;
	if (nacc) {
		acc = format("sap_loop%d_acc", id);
		emit_line(NULL, "static const sap_accum %s[] = {", acc);
		for (int i = 0; i < nacc; i++) {
			bool sum = i >= li->accum_syms.n;
			Sym *d = sum ? li->sum_syms.v[i - li->accum_syms.n] : li->accum_syms.v[i];
			emit_line(NULL, "\t{.off = offsetof(struct sap_red%d, acc_%s), .dds = %d, .num = %s%s},",
			          id, d->cname, dds_index(li, d), acc_numtype(li, d),
			          sum ? ", .optional = true" : "");
		}
		emit_line(NULL, "};\n");
	}
	const char *rel = "NULL";
	if (li->relax_syms.n) {
		rel = format("sap_loop%d_rel", id);
		emit_line(NULL, "static const sap_relaxed %s[] = {", rel);
		for (int i = 0; i < li->relax_syms.n; i++) {
			Sym *d = li->relax_syms.v[i];
			emit_line(NULL, "\t{.off = offsetof(struct sap_red%d, acc_%s), .dv = &%s, .num = %s},", id, d->cname,
			          d->cname, acc_numtype(li, d));
		}
		emit_line(NULL, "};\n");
	}
	/* Exact: every combination gives the same bits in any grouping.
	 * Relaxed reads see the other workers' updates a round late, so
	 * the result depends on the workers. */
	bool exact = li->relax_syms.n == 0 && li->won_syms.n == 0;
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Node *r = li->reduce_ops.v[i];
		Type *t = ((Sym *)li->reduce_syms.v[i])->ty;
		bool ints = ty_all_of(t, ty_first_scalar(t)) && ty_is_int(ty_first_scalar(t));
		if (r->sym || ((r->op == TK_PLUS || r->op == TK_STAR) && !ints))
			exact = false;
	}
	for (int i = 0; i < li->accum_syms.n; i++) {
		Type *e = ((Sym *)li->accum_syms.v[i])->ty->elem;
		exact = exact && ty_all_of(e, ty_first_scalar(e)) && ty_is_int(ty_first_scalar(e));
	}
	Buf r = {0};
	buf_printf(&r, "static const sap_reduce sap_loop%d_reduce = {\n"
	           "\t.size = sizeof(struct sap_red%d),\n"
	           "\t.init = sap_loop%d_init,\n"
	           "\t.combine = sap_loop%d_combine,\n", id, id, id, id);
	if (flat)
		buf_puts(&r, "\t.flat = true,\n");
	if (nacc)
		buf_printf(&r, "\t.acc = %s,\n\t.nacc = %d,\n", acc, nacc);
	if (exact)
		buf_puts(&r, "\t.exact = true,\n");
	if (li->relax_syms.n)
		buf_printf(&r, "\t.rel = %s,\n\t.nrel = %d,\n", rel, li->relax_syms.n);
	emit_line(NULL, "%s};\n", r.s);
	buf_puts(&E->protos, emit_aside_end(&as));
}

/* A draw that goes through sap_rng_cur: in a function the body calls (or
 * C code it calls, which may use libsap's generator), or at a call with
 * no site of its own. */
static int draws_through_cur(Node *n, void *unused)
{
	(void)unused;
	if (n->kind != N_CALL)
		return 0;
	if (n->builtin == B_RAND || n->builtin == B_RAND_INT || n->builtin == B_RAND_NORMAL)
		return !n->rsite;
	return !n->builtin && (!n->sym || n->sym->uses_rng || n->sym->is_extern);
}

/* Does loop s's body point sap_rng_cur at its iteration's generator?
 * Only when something draws through it: otherwise the generator stays in
 * registers, not in memory that every int store of the body may alias. */
static bool rng_cur_needed(Node *s)
{
	return s->li->uses_rng && emit_any_node(s, draws_through_cur, NULL);
}

/* Per-iteration random-number state of a body or slice. */
void emit_rng_setup(Node *s, bool slice)
{
	LoopInfo *li = s->li;
	if (!li->uses_rng)
		return;
	if (slice)
		emit_line(s, "sap_rng sap_rng_it = sap_rng_iter(&sap_loop%d, sap_i);", li->id);
	else
		emit_line(s, "sap_rng sap_rng_it = sap_rng_index(sap_rng_base, sap_i);");
	if (!slice && rng_cur_needed(s))
		emit_line(s, "sap_rng_cur = &sap_rng_it;");
	else
		emit_line(s, "(void)sap_rng_it;");
	for (int k = 1; k <= li->nrand; k++)
		/* A body may not draw at every site (a key read from a plan-order
		 * copy is not computed again). */
		emit_line(s, "uint32_t sap_draw%d = 0; (void)sap_draw%d;", k, k);
}

/* In a sync for body, a written vector of numbers: the worker's copy of
 * it, sap_d_NAME, which the body finds on entry (sap_sync_data). */
bool emit_synced(LoopInfo *li, Sym *d)
{
	if (!E->loop || E->loop->kind != N_SYNC || d->ty->kind != TY_DVEC ||
	    !ty_is_numeric(d->ty->elem))
		return false;
	for (int i = 0; i < li->dds.n; i++)
		if (li->dds.v[i] == d)
			return ((intptr_t)li->dds_mode.v[i] & ACC_WRITE) != 0;
	return false;
}

/* In a sync for body, a written vector on the sparse path (every key
 * recorded): the body logs the rows it writes, sap_l_NAME, so that on
 * one rank the runtime needs no reconnaissance pass (sap_sync_mark). */
bool emit_tracked(LoopInfo *li, Sym *d)
{
	if (!emit_synced(li, d) || !li->has_slice)
		return false;
	for (int i = 0; i < li->dds.n && i < li->sync_why.n; i++)
		if (li->dds.v[i] == d)
			return !li->sync_why.v[i];
	return false;
}

/* Where dvector d's elements are: "NAME.data", or the worker's copy. */
/* Does the body function being written hold d's data pointer in the
 * local sap_dX?  A driver vector the loop touches: its buffer stays put
 * while the body runs. */
static bool dv_local(Node *loop, Sym *d)
{
	if (!E->dv_locals || loop->kind != N_ASYNC || d->ty->kind != TY_DVEC || !d->is_driver)
		return false;
	for (int i = 0; i < loop->li->dds.n; i++)
		if (loop->li->dds.v[i] == d)
			return true;
	return false;
}

char *emit_dv_data(Sym *d)
{
	if (E->loop && (emit_synced(E->loop->li, d) || dv_local(E->loop, d)))
		return format("sap_d%s", d->cname);
	return format("%s.data", d->cname);
}

int emit_staged(LoopInfo *li, Sym *d)
{
	if (!acc_by_index(li, d))
		return -1;
	for (int i = 0; i < li->dds.n; i++)
		if (li->dds.v[i] == d)
			return i;
	return -1;
}

bool emit_stage_sure(LoopInfo *li, Sym *d)
{
	return emit_staged(li, d) >= 0 && ty_is_flat(d->ty->elem);
}

/* sap_stN, where a body or slice called with a task group finds the
 * group's elements of the loop's DDS N in plan order, when the runtime
 * made a copy. */
void emit_stage_decls(Node *s)
{
	LoopInfo *li = s->li;
	for (int i = 0; i < li->dds.n; i++) {
		Sym *d = li->dds.v[i];
		if (emit_staged(li, d) < 0)
			continue;
		const char *et = emit_ctype(d->ty->elem);
		emit_line(s, "const %s *sap_st%d = sap_staged(&sap_loop%d, %d, sap_idx, sizeof(%s));",
		          et, i, li->id, i, et);
		emit_line(s, "(void)sap_st%d;", i);
	}
}

/* The loop variable of iteration sap_i: the index, or a sync for's
 * element. */
/* Does the sync for s write the vector it runs over?  Then its element
 * variable holds the element as the iteration started. */
static bool element_written(Node *s)
{
	LoopInfo *li = s->li;
	for (int i = 0; i < li->dds.n; i++)
		if (li->dds.v[i] == s->lhs->sym)
			return ((intptr_t)li->dds_mode.v[i] & ACC_WRITE) != 0;
	return false;
}

void emit_element_var(Node *s)
{
	Sym *iv = s->init->sym;
	if (s->kind == N_ASYNC) {
		emit_line(s->init, "%s %s = (%s)sap_i;", emit_ctype(iv->ty), iv->cname, emit_ctype(iv->ty));
	} else if (s->li->batched) {
		/* A body writing the vector reads its worker's copy of it. */
		Sym *o = s->lhs->sym;
		emit_line(s->init, "sap_list %s = sap_sync_batch(&%s, %s, sap_idx, lo, hi);", iv->cname,
		          o->cname, emit_synced(s->li, o) ? emit_dv_data(o) : "NULL");
		vec_push(&E->scope->drops, format("sap_sync_batch_done(&%s);", iv->cname));
	} else if (element_written(s)) {
		emit_line(s->init, "const %s %s = ((const %s *)%s)[sap_i];", emit_ctype(iv->ty),
		          iv->cname, emit_ctype(iv->ty), emit_dv_data(s->lhs->sym));
	} else {
		/* Nothing changes the element while the body runs: read in
		 * place, as a C loop reads x[i].  A copy of a 2 KB struct per
		 * element was a third of a dense model's step, which gcc
		 * could not drop (the body's stores might reach it). */
		iv->by_ref = true;
		emit_line(s->init, "const %s *const %s_p = &((const %s *)%s)[sap_i];", emit_ctype(iv->ty),
		          iv->cname, emit_ctype(iv->ty), emit_dv_data(s->lhs->sym));
		emit_line(s->init, "(void)%s_p;", iv->cname);
		return;
	}
	emit_line(s->init, "(void)%s;", iv->cname);
}

static char *affine_c(Vec *terms);

/* Iterations ahead whose elements a scattered group prefetches. */
enum { PREFETCH_AHEAD = 8 };

/* In a group of scattered iterations (an index list, not a counted run),
 * the elements at static keys of iteration sap_k + PREFETCH_AHEAD,
 * fetched while this one runs: under a key-level plan each iteration's
 * own element of an 8 MB vector is a cache miss the body would wait for
 * (Lasso's beta[j]: 45 % of the body's time on 10^6 features).  Not from
 * a plan-order copy, which streams, nor accumulated or relaxed vectors,
 * which live elsewhere.  The address is integer arithmetic: a key out
 * of range prefetches nothing harmful. */
static void emit_prefetch(Node *s)
{
	LoopInfo *li = s->li;
	Vec seen = {0}, rw = {0};
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (!acc_static_dv(li, a->at) || acc_is_accum(li, a->dds) || acc_is_relaxed(li, a->dds))
			continue;
		char *t = format("%s[%s]", a->dds->name, acc_expr_str(a->key));
		int k = 0;
		while (k < seen.n && strcmp(seen.v[k], t))
			k++;
		if (k == seen.n) {
			vec_push(&seen, t);
			vec_push(&rw, a);
			vec_push(&rw, (void *)(intptr_t)0);
		}
		if (a->mode & ACC_WRITE)
			rw.v[2 * k + 1] = (void *)(intptr_t)1;
	}
	if (!seen.n)
		return;
	emit_line(s, "if (sap_idx && !sap_seq && sap_k + %d < hi) {", PREFETCH_AHEAD);
	E->indent++;
	emit_line(s, "int64_t sap_pf = sap_idx[sap_k + %d];", PREFETCH_AHEAD);
	for (int k = 0; k < seen.n; k++) {
		Access *a = rw.v[2 * k];
		int st = emit_staged(li, a->dds);
		if (st >= 0)
			emit_line(s, "if (!sap_st%d)", st);
		emit_line(s, "%s__builtin_prefetch((const void *)((uintptr_t)%s + (uintptr_t)(%s * sap_pf "
		          "+ %s) * sizeof(%s)), %d);", st >= 0 ? "\t" : "", emit_dv_data(a->dds),
		          affine_c(&a->aterms), affine_c(&a->bterms), emit_ctype(a->dds->ty->elem),
		          (int)(intptr_t)rw.v[2 * k + 1]);
	}
	E->indent--;
	emit_line(s, "}");
}

/* The iterations [lo, hi) of a body or slice function, sap_i each; or,
 * for a sync for over list<T> b, one run with all of them, which the
 * do-while lets continue end. */
void emit_iterations_begin(Node *s)
{
	if (s->kind == N_SYNC && s->li->batched) {
		emit_line(s, "int64_t sap_i = sap_idx ? sap_idx[lo] : lo;");
		emit_line(s, "(void)sap_i;");
		emit_line(s, "do {");
	} else {
		emit_line(s, "for (int64_t sap_k = lo; sap_k < hi; sap_k++) {");
		E->indent++;
		/* A versioned (async) body, sap_loopN_run, counts a run of
		 * consecutive iterations (sap_seq) from sap_off. */
		if (E->versioned) {
			emit_line(s, "int64_t sap_i = sap_seq ? sap_off + sap_k : "
			          "sap_idx ? sap_idx[sap_k] : sap_k;");
			if (s->kind == N_ASYNC)
				emit_prefetch(s);
		} else
			emit_line(s, "int64_t sap_i = sap_idx ? sap_idx[sap_k] : sap_k;");
		E->indent--;
	}
	E->indent++;
	emit_push_scope(true, true);
}

void emit_iterations_end(Node *s)
{
	bool batched = s->kind == N_SYNC && s->li->batched;
	emit_pop_scope(s);
	E->indent--;
	emit_line(s, batched ? "} while (0);" : "}");
}

/* After driver code or a loop writes DDSs, their version changes, so that
 * cached reconnaissance reading them runs again; inside a driver loop
 * that nothing in reads versions, once the loop ends (E->stamps). */
void emit_stamp(Node *at, Vec *dds)
{
	for (int i = 0; i < dds->n; i++) {
		Sym *d = dds->v[i];
		if (E->stamps) {
			acc_add_sym(E->stamps, d);
			continue;
		}
		emit_line(at, "%s.version = sap_new_version();", d->cname);
	}
}

/* key = a * i + b as C, from affine terms. */
static bool is_identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return !*s;
}

/* sum of k * inv as C: 0, 3, 2 * (int64_t)u_n - 1, ... */
static char *affine_c(Vec *terms)
{
	Buf b = {0};
	for (int k = 0; k < terms->n; k++) {
		AffTerm *t = terms->v[k];
		bool neg = t->k < 0 && t->k != INT64_MIN;
		uint64_t m = neg ? (uint64_t)-t->k : (uint64_t)t->k;
		buf_puts(&b, b.len ? neg ? " - " : " + " : neg ? "-" : "");
		const char *x = NULL;
		if (t->inv) {
			const char *e = emit_expr(t->inv);
			x = t->inv->ty && t->inv->ty->kind == TY_LONG && is_identifier(e) ? e
			    : is_identifier(e) ? format("(int64_t)%s", e) : format("(int64_t)(%s)", e);
		}
		const char *c = t->k == INT64_MIN ? "INT64_MIN" :
		                m > INT32_MAX ? format("INT64_C(%llu)", (unsigned long long)m) :
		                format("%llu", (unsigned long long)m);
		if (!x)
			buf_puts(&b, c);
		else if (m == 1)
			buf_puts(&b, x);
		else
			buf_printf(&b, "%s * %s", c, x);
	}
	return b.len ? b.s : "0";
}

/* The first iteration and the end of the async loop whose spans hull_c
 * writes, in C: those of a span's bound that moves with the loop
 * variable. */
static const char *hull_lo, *hull_hi;

/* Bound P i + Q at the loop's first or last iteration (last), in C. */
static const char *bound_at(Vec *p, Vec *q, bool last)
{
	const char *i = last ? format("(%s - 1)", hull_hi) : hull_lo;
	return format("(%s) * %s + (%s)", affine_c(p), i, affine_c(q));
}

/* v narrowed by each of bounds (SpanBound *): the greatest, if lo, else
 * the least of v and every e + add. */
static const char *narrowed_c(const char *v, Vec *bounds, bool lo)
{
	for (int k = 0; k < bounds->n; k++) {
		SpanBound *b = bounds->v[k];
		v = format("sap_%s_i64(%s, sap_bound_at((int64_t)(%s), %lld))", lo ? "max" : "min", v,
		           emit_expr(b->e), (long long)b->add);
	}
	return v;
}

/* The sap_span_hull call of the form A i + B + sum c[m] j_m over access
 * a's span dims (c NULL: the dims' own coefficients); a bound that
 * moves with the loop variable as its extreme over the invocation. */
static const char *hull_c(Access *a, const char *mode, Vec *A, Vec *B, Vec *c, bool narrow)
{
	Buf dims = {0};
	for (int m = 0; m < a->span_dims.n; m++) {
		SpanDim *d = a->span_dims.v[m];
		if (d->shifted) {
			buf_printf(&dims, "%s%s, %s, %s%s", m ? ", " : "", affine_c(c ? c->v[m] : &d->c),
			           affine_c(&d->lo_q), affine_c(&d->hi_q), d->le ? " + 1" : "");
			continue;
		}
		const char *lo = d->lo_iv ? format("sap_min_i64(%s, %s)", bound_at(&d->lo_p, &d->lo_q, false),
		                                   bound_at(&d->lo_p, &d->lo_q, true)) :
		                 format("(int64_t)(%s)", emit_expr(d->lo));
		const char *hi = d->hi_iv ? format("sap_max_i64(%s, %s)%s",
		                                   bound_at(&d->hi_p, &d->hi_q, false),
		                                   bound_at(&d->hi_p, &d->hi_q, true), d->le ? " + 1" : "") :
		                 format("(int64_t)(%s)%s", emit_expr(d->hi), d->le ? " + 1" : "");
		lo = narrowed_c(lo, &d->los, true);
		hi = narrowed_c(hi, &d->his, false);
		buf_printf(&dims, "%s%s, %s, %s", m ? ", " : "", affine_c(c ? c->v[m] : &d->c), lo, hi);
	}
	return format("sap_span_hull(%d, %s, %s, %s, %d, (const int64_t[]){%s}, %s)", a->ddsi, mode,
	              affine_c(A), affine_c(B), a->span_dims.n, dims.s, narrow ? "true" : "false");
}

/* The sap_span of access a's span as an initializer: over one loop
 * [A i + B + L, A i + B + H), else the hull sap_span_hull finds when the
 * loop starts from each loop's coefficient and range. */
static const char *span_c(Access *a, const char *mode)
{
	if (a->span_var) {
		const char *lo = format("(int64_t)(%s)", emit_expr(a->span_lo));
		const char *hi = format("(int64_t)(%s)%s", emit_expr(a->span_hi), a->span_le ? " + 1" : "");
		return format("{.dds = %d, .mode = %s, .a = %s, .b = %s + %s, .w = %s - %s%s}", a->ddsi,
		              mode, affine_c(&a->span_a), affine_c(&a->span_b), lo, hi, lo,
		              a->narrow ? ", .narrow = true" : "");
	}
	const char *h = hull_c(a, mode, &a->span_a, &a->span_b, NULL, a->narrow);
	SpanDim *d = a->span_dims.n == 1 ? a->span_dims.v[0] : NULL;
	if (!d || (!d->lo_iv && !d->hi_iv && !d->shifted) || d->los.n || d->his.n)
		return h;
	/* A triangle's row or column, or a band's (shifted, over t = j -
	 * k i): its keys as well as their hull, for the grid check (helper
	 * U20: a mirrored band had lost it). */
	bool ql_q = d->lo_iv || d->shifted, qh_q = d->hi_iv || d->shifted;
	const char *pl = d->lo_iv ? affine_c(&d->lo_p) : "0";
	const char *ql = ql_q ? affine_c(&d->lo_q) : format("(int64_t)(%s)", emit_expr(d->lo));
	const char *ph = d->hi_iv ? affine_c(&d->hi_p) : "0";
	const char *qh = qh_q ? format("%s%s", affine_c(&d->hi_q), d->le ? " + 1" : "") :
	                 format("(int64_t)(%s)%s", emit_expr(d->hi), d->le ? " + 1" : "");
	return format("sap_span_exact(%s, %s, %s, %s, %s, %s, %s, %s)", h, affine_c(&a->span_a),
	              affine_c(&a->span_b), affine_c(&d->c), pl, ql, ph, qh);
}

static bool ranged(LoopInfo *li, Sym *d);

/* The iterations where a static access runs, as sap_affine's fields
 * (Access.iv_los, iv_his), or "". */
static const char *iv_guard_c(Access *a)
{
	if (!a->iv_los.n && !a->iv_his.n)
		return "";
	return format(", .guarded = true, .glo = %s, .ghi = %s",
	              narrowed_c("INT64_MIN", &a->iv_los, true),
	              narrowed_c("INT64_MAX", &a->iv_his, false));
}

/* The forms of the int parts of keys computed in long (Access.checks),
 * as sap_span initializers, into b; how many.  Of the keys whose forms
 * the runtime takes: of the DDSs the loop writes (not accumulates), and
 * of the vectors it reads at ranges. */
static int checks_c(LoopInfo *li, Buf *b)
{
	int n = 0;
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if ((a->dynamic && !a->span) || a->accumulate ||
		    (!(((intptr_t)li->dds_mode.v[a->ddsi]) & ACC_WRITE) && !ranged(li, a->dds)))
			continue;
		for (int k = 0; k < a->checks.n; k++, n++) {
			KeyCheck *c = a->checks.v[k];
			if (a->dynamic)
				buf_printf(b, "\t\t%s,\n", hull_c(a, "SAP_READ", &c->a, &c->b, &c->dimc, true));
			else
				buf_printf(b, "\t\t{.dds = %d, .mode = SAP_READ, .a = %s, .b = %s, .w = 1, "
				           ".narrow = true},\n", a->ddsi, affine_c(&c->a), affine_c(&c->b));
		}
	}
	return n;
}

/* Conditions joined as " && c1 && c2", as C without the leading &&. */
static const char *conjunction(const char *conds)
{
	while (*conds == ' ' || *conds == '&' || *conds == '\n' || *conds == '\t')
		conds++;
	return conds;
}

/* The loop over a chunk's iterations, or a group's, in a body function. */

static void body_loop(Node *s)
{
	emit_iterations_begin(s);
	emit_rng_setup(s, false);
	Node *saved_loop = E->loop;
	E->loop = s;    /* before the element: a sync for's worker copy */
	emit_element_var(s);
	int nm = E->memo.n;
	if (s->kind == N_ASYNC)
		emit_memo_maps(s);
	emit_body(s->body);
	E->memo.n = nm;
	E->loop = saved_loop;
	emit_iterations_end(s);
}

/* The start of a body function: its reduce variables, buffers and
 * generator in locals. */
static void body_open(Node *s)
{
	LoopInfo *li = s->li;
	bool async = s->kind == N_ASYNC;
	int nred = li->reduce_syms.n;
	emit_line(s, "(void)env;");
	if (nred || li->accum_syms.n || li->relax_syms.n || li->sum_syms.n) {
		emit_line(s, "struct sap_red%d *sap_red = red;", li->id);
		for (int i = 0; i < nred; i++) {
			Sym *v = li->reduce_syms.v[i];
			emit_line(s, "%s %s = sap_red->%s;", emit_ctype(v->ty), v->cname, v->cname);
		}
		for (int i = 0; i < li->kept_syms.n; i++) {
			Sym *c = li->kept_syms.v[i];
			emit_line(s, "%s %s = sap_red->%s;", emit_ctype(c->ty), c->cname, c->cname);
		}
		for (int i = 0; i < li->won_syms.n; i++) {
			const char *n = ((Sym *)li->won_syms.v[i])->cname;
			emit_line(s, "bool sap_won_%s = sap_red->sap_won_%s;", n, n);
			emit_line(s, "int64_t sap_at_%s = sap_red->sap_at_%s;", n, n);
		}
		for (int i = 0; i < li->tv_syms.n; i++) {
			const char *n = ((Sym *)li->tv_syms.v[i])->cname;
			emit_line(s, "double sap_tv_%s = sap_red->sap_tv_%s;", n, n);
		}
		/* The buffers stay put for the call.  Held in locals, they are
		 * not loaded again through sap_red after every store the body
		 * makes, which cc cannot tell apart from a store to *sap_red. */
		for (int k = 0; k < 3; k++) {
			Vec *v = k == 2 ? &li->sum_syms : k ? &li->relax_syms : &li->accum_syms;
			for (int i = 0; i < v->n; i++) {
				Sym *d = v->v[i];
				if (d->ty->kind != TY_DVEC)
					continue;
				emit_line(s, "%s *const sap_acc_%s = sap_red->acc_%s;", emit_ctype(d->ty->elem),
				          d->cname, d->cname);
				emit_line(s, "(void)sap_acc_%s;", d->cname);
				/* And its length: a store to a buffer of longs might
				 * be to the vector's n, for all cc knows, which a
				 * histogram's check then loaded every element. */
				emit_line(s, "const int64_t sap_accn_%s = %s.n;", d->cname, d->cname);
				emit_line(s, "(void)sap_accn_%s;", d->cname);
			}
		}
		E->acc_locals = true;
	} else {
		emit_line(s, "(void)red;");
	}
	/* Vectors' buffers in locals too: a call to a function, in C as much
	 * as in the program, may store to any global for all cc knows, and
	 * u_X.data would be loaded again after every one. */
	E->dv_locals = true;
	for (int i = 0; async && i < li->dds.n; i++) {
		Sym *d = li->dds.v[i];
		if (dv_local(s, d))
			emit_line(s, "char *const sap_d%s = %s.data;\n\t(void)sap_d%s;", d->cname, d->cname,
			          d->cname);
	}
	for (int i = 0; !async && i < li->dds.n; i++) {
		Sym *d = li->dds.v[i];
		Node *saved = E->loop;
		E->loop = s;
		if (emit_synced(li, d))
			emit_line(s, "void *sap_d%s = sap_sync_data(&%s);\n\t(void)sap_d%s;", d->cname,
			          d->cname, d->cname);
		if (emit_tracked(li, d))
			emit_line(s, "sap_wlog *sap_l%s = sap_mk ? sap_sync_log(&%s) : NULL;\n\t(void)sap_l%s;",
			          d->cname, d->cname, d->cname);
		E->loop = saved;
	}
	if (li->uses_rng)
		emit_line(s, "const sap_rng sap_rng_base = sap_rng_iter(&sap_loop%d, 0);", li->id);
	if (rng_cur_needed(s))
		emit_line(s, "sap_rng *sap_saved_rng = sap_rng_cur;");
	if (async)
		emit_stage_decls(s);
}

/* The end of a body function: the generator and reduce variables back. */
static void body_close(Node *s)
{
	LoopInfo *li = s->li;
	E->acc_locals = E->dv_locals = false;
	if (rng_cur_needed(s))
		emit_line(s, "sap_rng_cur = sap_saved_rng;");
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Sym *v = li->reduce_syms.v[i];
		emit_line(s, "sap_red->%s = %s;", v->cname, v->cname);
	}
	for (int i = 0; i < li->kept_syms.n; i++) {
		Sym *c = li->kept_syms.v[i];
		emit_line(s, "sap_red->%s = %s;", c->cname, c->cname);
	}
	for (int i = 0; i < li->won_syms.n; i++) {
		const char *n = ((Sym *)li->won_syms.v[i])->cname;
		emit_line(s, "sap_red->sap_won_%s = sap_won_%s;", n, n);
		emit_line(s, "sap_red->sap_at_%s = sap_at_%s;", n, n);
	}
	for (int i = 0; i < li->tv_syms.n; i++) {
		const char *n = ((Sym *)li->tv_syms.v[i])->cname;
		emit_line(s, "sap_red->sap_tv_%s = sap_tv_%s;", n, n);
	}
}

/* What an async body's caller tests to know its keys in range: "&& c"
 * for each.  guard: its static keys a * i + b are in range for the whole
 * chunk (or group, whose iterations ascend) when they are at its two
 * ends.  recorded: over a plan made from its own slice, the keys the
 * slice recorded are the body's, and the runtime knows whether they are
 * in range.  staged: every plan-order copy is there. */
static void body_guards(Node *s, Buf *guard, Buf *recorded, Buf *staged, Buf *clip)
{
	LoopInfo *li = s->li;
	Vec seen = {0};
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (!acc_static_dv(li, a->at))
			continue;
		char *t = format("%s[%s]", a->dds->name, acc_expr_str(a->key));
		bool dup = false;
		for (int k = 0; k < seen.n && !dup; k++)
			dup = !strcmp(seen.v[k], t);
		if (dup)
			continue;
		vec_push(&seen, t);
		char *ac = affine_c(&a->aterms), *bc = affine_c(&a->bterms);
		buf_printf(guard, " &&\n\t    sap_keys_in(%s, %s, sap_first, sap_end, %s.n)", ac, bc,
		           a->dds->cname);
		buf_printf(clip, "\t\tsap_keys_clip(%s, %s, %s.n, &sap_mlo, &sap_mhi);\n", ac, bc,
		           a->dds->cname);
	}
	for (int i = 0; i < li->dds.n; i++) {
		Sym *d = li->dds.v[i];
		bool any = false;
		for (int k = 0; k < li->accesses.n && !any; k++) {
			Access *a = li->accesses.v[k];
			any = a->dds == d && acc_recorded_dv(li, a->at);
		}
		if (any)
			buf_printf(recorded, " &&\n\t    sap_recorded_below(&sap_loop%d, %d, %s.n)", li->id,
			           i, d->cname);
		if (emit_stage_sure(li, d))
			buf_printf(staged, " && sap_st%d", i);
	}
}

/* Version v of loop id's body: sap_loop<id>_run with idx and the
 * arguments args, in a function of its own. */
static void emit_version(Node *s, int id, const char *v, const char *idx, const char *args)
{
	/* The audited version runs under --check-plan only: cold, cc
	 * compiles it for size, and the build spends less on it. */
	emit_line(s, "static __attribute__((noinline%s)) void sap_loop%d_v%s(void *env, "
	          "const int64_t *sap_idx, int64_t lo, int64_t hi, void *red)",
	          !strcmp(v, "0") ? ", cold" : "", id, v);
	emit_line(s, "{\n\t(void)sap_idx;\n\tsap_loop%d_run(env, %s, lo, hi, red, %s);\n}", id, idx,
	          args);
}

/* The body, outlined: iterations [lo, hi) in sap_loopN_body.  An async
 * body whose keys the caller can know in range is written once, as
 * sap_loopN_run with a constant sap_v that says what is known; the body
 * function calls it with the best sap_v that holds, and cc specialises
 * each inlined call, leaving out the checks that cannot fail (and then
 * vectorising). */
static void body_fn(Node *s)
{
	LoopInfo *li = s->li;
	int id = li->id;
	Buf guard = {0}, recorded = {0}, staged = {0}, clip = {0};
	if (s->kind == N_ASYNC)
		body_guards(s, &guard, &recorded, &staged, &clip);
	bool all = (guard.len && staged.len) || recorded.len;  /* a version with sap_v 2 */
	E->versioned = all || guard.len;
	/* A sync for body that logs its writes (emit_tracked), in a version
	 * that does and one that does not. */
	Buf logs = {0};
	for (int i = 0; s->kind == N_SYNC && i < li->dds.n; i++) {
		Node *saved = E->loop;
		E->loop = s;
		if (emit_tracked(li, li->dds.v[i]))
			buf_printf(&logs, "%ssap_sync_log(&%s)", logs.len ? " || " : "",
			           ((Sym *)li->dds.v[i])->cname);
		E->loop = saved;
	}
	bool marks = logs.len > 0;
	Aside as;
	emit_aside_begin(&as);
	if (E->versioned) {
		emit_line(NULL, "/* The body of loop %d, written once.  sap_loop%d_body runs it with sap_v", id, id);
		if (all)
			emit_line(NULL, " * 2 when every key it indexes is known in range (static keys at the\n"
			          " * ends of the iterations, the keys its slice recorded, the plan-order\n"
			          " * copies there), 1 when its static keys are, -1 otherwise, 0 when\n"
			          " * --check-plan audits the keys.  Inlined, it is compiled for each,\n"
			          " * without the checks that cannot fail. */");
		else
			emit_line(NULL, " * 1 when its static keys are known in range (at the two ends of the\n"
			          " * iterations), -1 otherwise, 0 when --check-plan audits the keys.\n"
			          " * Inlined, it is compiled for each, without the checks that cannot\n"
			          " * fail. */");
		emit_line(s, "static inline __attribute__((always_inline)) void sap_loop%d_run(void *env, "
		          "const int64_t *sap_idx, int64_t lo, int64_t hi, void *red, const int sap_v, "
		          "const bool sap_seq, const int64_t sap_off)", id);
	} else if (marks) {
		emit_line(NULL, "/* The body of loop %d, written once.  sap_loop%d_body runs it with sap_mk\n"
		          " * true where it logs the rows it writes (sap_sync_mark), compiled\n"
		          " * apart: the log's stores could reach what the body reads. */", id, id);
		emit_line(s, "static inline __attribute__((always_inline)) void sap_loop%d_run(void *env, "
		          "const int64_t *sap_idx, int64_t lo, int64_t hi, void *red, const bool sap_mk)", id);
	} else {
		emit_line(s, "static void sap_loop%d_body(void *env, const int64_t *sap_idx, int64_t lo, "
		          "int64_t hi, void *red)", id);
	}
	emit_line(s, "{");
	E->indent = 1;
	if (E->versioned)
		emit_line(s, "(void)sap_v;\n\t(void)sap_seq;\n\t(void)sap_off;");
	else
		emit_line(s, "if (lo >= hi)\n\t\treturn;");
	if (marks)
		emit_line(s, "(void)sap_mk;");
	E->in_body = true;
	body_open(s);
	body_loop(s);
	body_close(s);
	E->in_body = false;
	E->versioned = false;
	E->indent = 0;
	emit_line(s, "}");
	/* Each version the body runs in, compiled once, out of line: inlined
	 * at every call, a body was compiled ten times (gcc took 45 s over a
	 * 300-line body). */
	/* The audited version apart from the checked one: a test of
	 * sap_audit_on and a call at every key of an inner loop kept cc from
	 * vectorising it (a matrix product over rows in chunks, 2.3 times
	 * its C twin's time). */
	if (all || guard.len) {
		buf_putc(E->out, '\n');
		emit_version(s, id, "0", "sap_idx", "0, false, 0");
		emit_version(s, id, "n", "sap_idx", "-1, false, 0");
		if (guard.len) {
			emit_version(s, id, "1", "sap_idx", "1, false, 0");
			/* With no index list, a NULL that cc sees: the
			 * iterations are contiguous, no plan-order copy is there
			 * (sap_staged), and the loop is one cc can vectorise. */
			emit_version(s, id, "1c", "NULL", "1, false, 0");
		}
		if (all)
			emit_version(s, id, "2", "sap_idx", "2, false, 0");
	}
	/* A group with few holes goes as stretches (sap_seq_next), its runs
	 * of consecutive iterations counted rather than read; out of line,
	 * since inlined in that loop the body compiles worse for groups
	 * that go whole. */
	if (all) {
		buf_putc(E->out, '\n');
		emit_line(s, "static __attribute__((noinline)) void sap_loop%d_runs(void *env, "
		          "const int64_t *sap_idx, int64_t lo, int64_t hi, void *red)", id);
		emit_line(s, "{\n\tfor (int64_t sap_a = lo, sap_b; sap_a < hi; sap_a = sap_b) {\n"
		          "\t\tif (sap_seq_next(sap_idx, sap_a, hi, &sap_b))\n"
		          "\t\t\tsap_loop%d_run(env, sap_idx, sap_a, sap_b, red, 2, true, "
		          "sap_idx[sap_a] - sap_a);\n"
		          "\t\telse\n"
		          "\t\t\tsap_loop%d_v2(env, sap_idx, sap_a, sap_b, red);\n"
		          "\t}\n}", id, id);
	}
	if (guard.len || all) {
		buf_putc(E->out, '\n');
		emit_line(s, "static void sap_loop%d_body(void *env, const int64_t *sap_idx, int64_t lo, "
		          "int64_t hi, void *red)", id);
		emit_line(s, "{");
		E->indent = 1;
		emit_line(s, "if (lo >= hi)\n\t\treturn;");
		if (staged.len)
			emit_stage_decls(s);
		if (guard.len) {
			emit_line(s, "int64_t sap_first = sap_idx ? sap_idx[lo] : lo;");
			emit_line(s, "int64_t sap_end = sap_idx ? sap_idx[hi - 1] + 1 : hi;");
		}
		/* --check-plan: the checked version audits the keys. */
		emit_line(s, "if (sap_audit_on)\n\t\tsap_loop%d_v0(env, sap_idx, lo, hi, red);", id);
		if (all)
			emit_line(s, "else if (%s) {\n"
			          "\t\tif (sap_seq_dense(sap_idx, lo, hi))\n"
			          "\t\t\tsap_loop%d_runs(env, sap_idx, lo, hi, red);\n"
			          "\t\telse\n\t\t\tsap_loop%d_v2(env, sap_idx, lo, hi, red);\n\t}",
			          conjunction(format("%s%s%s", staged.len ? staged.s : "",
			          guard.len ? guard.s : "", recorded.len ? recorded.s : "")), id, id);
		if (guard.len)
			emit_line(s, "else if (%s) {\n\t\tif (sap_idx)\n\t\t\tsap_loop%d_v1(env, sap_idx, "
			          "lo, hi, red);\n\t\telse\n\t\t\tsap_loop%d_v1c(env, sap_idx, lo, hi, "
			          "red);\n\t}", conjunction(guard.s), id, id);
		/* Contiguous iterations some of whose keys leave the vectors at
		 * the ends (u[i - 1] at i = 0, under an if): the checked
		 * version at the ends, the other in between, in order. */
		if (guard.len)
			emit_line(s, "else if (!sap_idx) {\n"
			          "\t\tint64_t sap_mlo = lo, sap_mhi = hi;\n"
			          "%s"
			          "\t\tsap_loop%d_vn(env, NULL, lo, sap_mlo, red);\n"
			          "\t\tsap_loop%d_v1c(env, NULL, sap_mlo, sap_mhi, red);\n"
			          "\t\tsap_loop%d_vn(env, NULL, sap_mhi, hi, red);\n\t}",
			          clip.s, id, id, id);
		emit_line(s, "else\n\t\tsap_loop%d_vn(env, sap_idx, lo, hi, red);", id);
		E->indent = 0;
		emit_line(s, "}");
	}
	if (marks) {
		buf_putc(E->out, '\n');
		emit_line(s, "static void sap_loop%d_body(void *env, const int64_t *sap_idx, int64_t lo, "
		          "int64_t hi, void *red)", id);
		emit_line(s, "{\n\tif (%s)\n\t\tsap_loop%d_run(env, sap_idx, lo, hi, red, true);\n"
		          "\telse\n\t\tsap_loop%d_run(env, sap_idx, lo, hi, red, false);\n}", logs.s, id, id);
	}
	buf_puts(&E->funcs, emit_aside_end(&as));
	buf_puts(&E->funcs, "\n");
}

/* Is d a dvector li only reads at ranges of keys (acc_reads_ranged)
 * that neither by_index nor near describes: on several ranks a run of
 * iterations fetches those keys (spec.rspan), not the whole vector. */
static bool ranged(LoopInfo *li, Sym *d)
{
	int64_t lo, hi;
	return acc_reads_ranged(li, d) && !acc_reads_own(li, d) && !acc_reads_near(li, d, &lo, &hi);
}

/* How deep n nests loops, through the functions it calls (one that
 * calls itself counts as deep): the runtime plans even a few iterations
 * of a body that nests them two deep (sap_async_spec.heavy). */
static int body_depth(Node *n);

static int fn_depth(Sym *f)
{
	Vec *fns = &E->depth_fns, *of = &E->depth_of;
	for (int i = 0; i < fns->n; i++)
		if (fns->v[i] == f)
			return (int)(intptr_t)of->v[i] < 0 ? 2 : (int)(intptr_t)of->v[i];
	int at = fns->n;
	vec_push(fns, f);
	vec_push(of, (void *)(intptr_t)-1);
	int d = body_depth(f->decl->body);
	of->v[at] = (void *)(intptr_t)d;
	return d;
}

static int body_depth(Node *n)
{
	if (!n)
		return 0;
	int d = 0, in;
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body, n->size};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if ((in = body_depth(kids[i])) > d)
			d = in;
	for (Node *a = n->args; a; a = a->next)
		if ((in = body_depth(a)) > d)
			d = in;
	if (n->kind == N_CALL && !n->builtin && n->sym && n->sym->kind == SYM_FUNC && n->sym->decl &&
	    n->sym->decl->body && (in = fn_depth(n->sym)) > d)
		d = in;
	if (n->kind == N_FOR || n->kind == N_WHILE || n->kind == N_DO)
		d++;
	return d;
}

/* ---- what an iteration costs ----
 *
 * A body whose inner loops run a number of times that depends on the
 * iteration (row i of an all-pairs table fills n - i - 1 cells) splits
 * evenly by count into uneven work: the first of 2 workers of a
 * similarity join over j > i had three quarters of the pairs.  Where the
 * inner loops' bounds are sums and products of the loop variable,
 * constants, params, driver numbers and vector lengths, their trip
 * counts give each iteration's work, sap_loopN_cost(i), and the runtime
 * cuts the iterations into runs of even work (sap_async_spec.cost),
 * alike on every layout.  Nothing that could fail or change in the loop
 * is computed: no division, no element, no call. */

static bool holds(const Vec *v, const void *x)
{
	for (int i = 0; i < v->n; i++)
		if (v->v[i] == x)
			return true;
	return false;
}

static bool cost_value(Node *e, LoopInfo *li, Sym *iv, Buf *b)
{
	switch (e->kind) {
	case N_INT:
		buf_printf(b, "%lld.0", (long long)e->ival);
		return true;
	case N_FLOAT:
		buf_printf(b, "%.17g", e->fval);
		return true;
	case N_NAME: {
		Sym *v = e->sym;
		if (v == iv) {
			buf_puts(b, "(double)sap_i");
			return true;
		}
		if (!v || v->kind != SYM_VAR || !ty_is_num(v->ty) ||
		    !(v->vclass == V_CONST || v->vclass == V_PARAM || v->is_driver) ||
		    holds(&li->reduce_syms, v) || holds(&li->kept_syms, v))
			return false;
		v->used = true;
		buf_printf(b, "(double)%s", v->cname);
		return true;
	}
	case N_BINARY:
		if (e->op != TK_PLUS && e->op != TK_MINUS && e->op != TK_STAR)
			return false;
		buf_putc(b, '(');
		if (!cost_value(e->lhs, li, iv, b))
			return false;
		buf_printf(b, " %s ", e->op == TK_PLUS ? "+" : e->op == TK_MINUS ? "-" : "*");
		if (!cost_value(e->rhs, li, iv, b))
			return false;
		buf_putc(b, ')');
		return true;
	case N_UNARY:
		if (e->op != TK_MINUS)
			return false;
		buf_puts(b, "(-");
		if (!cost_value(e->lhs, li, iv, b))
			return false;
		buf_putc(b, ')');
		return true;
	case N_CONV:
		return ty_is_num(e->ty) && ty_is_num(e->lhs->ty) && cost_value(e->lhs, li, iv, b);
	case N_CALL:
		if (e->builtin == B_LEN && e->args && !e->args->next && e->args->kind == N_NAME &&
		    e->args->sym && e->args->sym->ty->kind == TY_DVEC) {
			buf_printf(b, "(double)%s.n", e->args->sym->cname);
			return true;
		}
		return false;
	default:
		return false;
	}
}

/* The variable a step adds to (dir 1) or takes from (-1), by what (into
 * k, at least 1): v++, v += k, v = v + k, v = k + v; v--, v -= k,
 * v = v - k.  0 for any other step. */
static int cost_step(Node *st, Sym *v, LoopInfo *li, Sym *iv, Buf *k)
{
	buf_puts(k, "1.0");
	if (st->kind == N_INCDEC)
		return st->lhs->kind == N_NAME && st->lhs->sym == v ? (st->op == TK_INC ? 1 : -1) : 0;
	if (st->kind != N_ASSIGN || st->lhs->kind != N_NAME || st->lhs->sym != v)
		return 0;
	Node *by = NULL;
	int dir = 0;
	if (st->op == TK_PLUS || st->op == TK_MINUS) {
		by = st->rhs;
		dir = st->op == TK_PLUS ? 1 : -1;
	} else if (st->op == TK_ASSIGN && st->rhs->kind == N_BINARY) {
		Node *e = st->rhs;
		bool left = e->lhs->kind == N_NAME && e->lhs->sym == v;
		if (e->op == TK_PLUS && (left || (e->rhs->kind == N_NAME && e->rhs->sym == v))) {
			by = left ? e->rhs : e->lhs;
			dir = 1;
		} else if (e->op == TK_MINUS && left) {
			by = e->rhs;
			dir = -1;
		}
	}
	if (!dir)
		return 0;
	/* A step of a param or a driver number too: under 1 it is 1 here
	 * (the loop's own business where it runs). */
	k->len = 0;
	buf_puts(k, "fmax(1.0, ");
	if (!cost_value(by, li, iv, k))
		return 0;
	buf_putc(k, ')');
	return dir;
}

/* The passes of for (T v = from; cond; step), counting up to a bound
 * (v < to, v <= to, v != to, or to > v ...) or down (v > to, v >= to),
 * or false. */
static bool cost_trips(Node *f, LoopInfo *li, Sym *iv, Buf *b)
{
	Node *init = f->init, *c = f->cond, *st = f->step;
	if (!init || init->kind != N_VAR || !init->sym || !init->init || !c || !st ||
	    c->kind != N_BINARY)
		return false;
	Sym *v = init->sym;
	int op = c->op;
	Node *to;
	if (c->lhs->kind == N_NAME && c->lhs->sym == v) {
		to = c->rhs;
	} else if (c->rhs->kind == N_NAME && c->rhs->sym == v) {
		to = c->lhs;
		op = op == TK_LT ? TK_GT : op == TK_GT ? TK_LT : op == TK_LE ? TK_GE :
		     op == TK_GE ? TK_LE : op;
	} else {
		return false;
	}
	Buf k = {0};
	int dir = cost_step(st, v, li, iv, &k);
	bool up = dir > 0 && (op == TK_LT || op == TK_LE || op == TK_NE);
	bool down = dir < 0 && (op == TK_GT || op == TK_GE);
	if (!up && !down)
		return false;
	buf_puts(b, "fmax(0.0, (");
	if (!cost_value(up ? to : init->init, li, iv, b))
		return false;
	buf_puts(b, " - ");
	if (!cost_value(up ? init->init : to, li, iv, b))
		return false;
	buf_printf(b, "%s) / %s)", op == TK_LE || op == TK_GE ? " + 1.0" : "", k.s);
	return true;
}

/* The work of statement n, 1 a statement, as a C expression, or false. */
static bool cost_stmt(Node *n, LoopInfo *li, Sym *iv, Buf *b)
{
	if (!n) {
		buf_puts(b, "0.0");
		return true;
	}
	switch (n->kind) {
	case N_BLOCK:
		buf_puts(b, "(0.0");
		for (Node *a = n->args; a; a = a->next) {
			buf_puts(b, " + ");
			if (!cost_stmt(a, li, iv, b))
				return false;
		}
		buf_putc(b, ')');
		return true;
	case N_FOR:
		buf_puts(b, "(1.0 + ");
		if (!cost_trips(n, li, iv, b))
			return false;
		buf_puts(b, " * (1.0 + ");
		if (!cost_stmt(n->body, li, iv, b))
			return false;
		buf_puts(b, "))");
		return true;
	case N_IF:
		if (body_depth(n->cond))
			return false;
		buf_puts(b, "(1.0 + fmax(");
		if (!cost_stmt(n->then, li, iv, b))
			return false;
		buf_puts(b, ", ");
		if (!cost_stmt(n->els, li, iv, b))
			return false;
		buf_puts(b, "))");
		return true;
	case N_VAR: case N_EXPR: case N_RETURN: case N_BREAK: case N_CONTINUE: case N_EMPTY:
		if (body_depth(n))
			return false;
		buf_puts(b, "1.0");
		return true;
	default:
		return false;
	}
}

/* The work of an iteration of async loop s as above, a C expression of
 * sap_i, into b: false where it is not known. */
static bool cost_expr(Node *s, Buf *b)
{
	Sym *iv = s->kind == N_ASYNC && s->init ? s->init->sym : NULL;
	buf_puts(b, "");
	return iv && body_depth(s->body) && cost_stmt(s->body, s->li, iv, b);
}

/* sap_loopN_cost, when the body's inner loops' work is known: its name,
 * or NULL; *varies when it depends on the iteration. */
static const char *cost_fn(Node *s, bool *varies)
{
	Buf b = {0};
	*varies = false;
	if (!cost_expr(s, &b))
		return NULL;
	*varies = strstr(b.s, "sap_i") != NULL;
	buf_printf(&E->funcs, "static double sap_loop%d_cost(int64_t sap_i)\n{\n\t(void)sap_i;\n"
	           "\treturn %s;\n}\n\n", s->li->id, b.s);
	return format("sap_loop%d_cost", s->li->id);
}

bool emit_cost_varies(Node *s)
{
	/* An emitter of its own: E may still point at a finished
	 * emit_program's (a compile before this one, in one process). */
	Emitter em = {0}, *saved = E;
	E = &em;
	Buf b = {0};
	bool varies = cost_expr(s, &b) && strstr(b.s, "sap_i");
	E = saved;
	return varies;
}

/* The call of an async for: its DDSs with their flags, the static keys
 * of the written ones, and the spec that holds them. */
static void async_call(Node *s, const char *redargs, Vec *wr)
{
	LoopInfo *li = s->li;
	int id = li->id;
	char *lo = emit_expr(s->init->init);
	char *hi = emit_expr(s->cond->rhs);
	/* C's i < 0.8 * n: the iterations below it, not below its
	 * truncation (163 of 203, where the long parameter made 162). */
	if (ty_is_float(s->cond->rhs->ty))
		hi = format("sap_for_end%s(%s, %s)", s->cond->rhs->ty->kind == TY_FLOAT ? "f" : "", hi,
		            emit_site(s->cond->rhs));
	else if (s->cond->rhs->le_end && !s->cond->rhs->has_cval)
		hi = format("sap_le_end(%s, %s)", emit_expr(s->cond->rhs->lhs), emit_site(s->cond));
	Vec hw = {0};
	acc_dds_written_expr(s->init->init, &hw);
	acc_dds_written_expr(s->cond->rhs, &hw);
	if (hw.n) {
		/* Driver code that the loop runs on: what it writes is new
		 * before the loop plans. */
		emit_line(s, "int64_t sap_from%d = %s, sap_to%d = %s;", id, lo, id, hi);
		emit_stamp(s, &hw);
		lo = format("sap_from%d", id);
		hi = format("sap_to%d", id);
	}
	if (s->init->sym->ty->kind == TY_INT) {
		/* An int variable cannot count past INT_MAX: the iterations
		 * there would run with negative values. */
		emit_line(s, "int64_t sap_lo%d = %s, sap_hi%d = %s;", id, lo, id, hi);
		emit_line(s, "sap_int_bounds(sap_lo%d, sap_hi%d, \"%s\", %s);", id, id,
		          s->init->sym->name, emit_site(s->init));
		lo = format("sap_lo%d", id);
		hi = format("sap_hi%d", id);
	}
	/* Once, and the same for the spans whose bounds move with the loop
	 * variable (hull_c): of i < 1.5 the last is 1, not 1.5 truncated
	 * less one (helper U19). */
	emit_line(s, "const int64_t sap_first%d = %s, sap_end%d = %s;", id, lo, id, hi);
	lo = format("sap_first%d", id);
	hi = format("sap_end%d", id);
	hull_lo = lo;
	hull_hi = hi;
	/* The DDSs the body touches, and the static keys of the written ones. */
	static const char *modes[] = {"0", "SAP_READ", "SAP_WRITE", "SAP_RW"};
	emit_line(s, "static const sap_dds sap_ddss[] = {");
	for (int i = 0; i < li->dds.n; i++) {
		Sym *d = li->dds.v[i];
		int m = (int)(intptr_t)li->dds_mode.v[i];
		bool reads = false;
		for (int k = 0; k < li->slice_reads.n; k++)
			reads |= li->slice_reads.v[k] == d;
		bool dv = d->ty->kind == TY_DVEC;
		/* The flags that hold, by name; the others are false. */
		struct { bool on; const char *name; } flag[] = {
			{ acc_is_accum(li, d), "accumulate" },
			{ reads, "slice_reads" },
			{ acc_slice_fixed(li, d), "slice_fixed" },
			{ !dv && !acc_inserts(li, d), "keeps_keys" },
			{ !dv && acc_checks_keys(li, d), "check_keys" },
			{ ty_is_flat(d->ty->elem), "flat" },
			{ d->parted, "parted" },
			{ acc_reads_own(li, d), "by_index" },
			{ !acc_reads_own(li, d) && acc_at_own(li, d), "at_own" },
			{ acc_dv_recorded(li, d), "recorded" },
			{ acc_at_key(li, d), "at_key" },
			{ acc_no_slice(li, d), "no_slice" },
			{ ranged(li, d), "ranged" },
		};
		Buf row = {0};
		buf_printf(&row, "{.name = %s, .%s = &%s, .mode = %s",
		           emit_cstr(d->name, strlen(d->name)), dv ? "dv" : "dm", d->cname, modes[m]);
		int64_t nlo, nhi;
		if (!acc_reads_own(li, d) && acc_reads_near(li, d, &nlo, &nhi))
			buf_printf(&row, ", .near = true, .near_lo = %lld, .near_hi = %lld", (long long)nlo,
			           (long long)nhi);
		if (!acc_is_accum(li, d) && acc_additive(li, d))
			buf_printf(&row, ", .additive = %d", acc_additive(li, d));
		else if (li->verdict == VD_SERIAL && acc_assigned_only(li, d))
			buf_printf(&row, ", .additive = 3");
		else if (!acc_is_accum(li, d) && acc_shadowed_adds(li, d))
			buf_printf(&row, ", .additive = 5");
		for (size_t f = 0; f < sizeof flag / sizeof flag[0]; f++)
			if (flag[f].on)
				buf_printf(&row, ", .%s = true", flag[f].name);
		emit_line(s, "\t%s},", row.s);
		if (m & ACC_WRITE)
			vec_push(wr, d);
	}
	if (!li->dds.n)
		emit_line(s, "\t{.mode = SAP_READ, .flat = true},  /* none: C has no empty array */");
	emit_line(s, "};");
	int naff = 0;
	Buf aff = {0};
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (a->dynamic || a->accumulate || !(((intptr_t)li->dds_mode.v[a->ddsi]) & ACC_WRITE))
			continue;
		buf_printf(&aff, "\t\t{.dds = %d, .mode = %s, .a = %s, .b = %s%s%s},\n", a->ddsi,
		           modes[a->mode], affine_c(&a->aterms), affine_c(&a->bterms),
		           a->narrow ? ", .narrow = true" : "", iv_guard_c(a));
		naff++;
	}
	if (naff)
		emit_line(s, "sap_affine sap_aff[] = {\n%s\t};", aff.s);
	/* Spans, when they are every dynamic access of the written DDSs:
	 * then the runtime may find the iterations apart before it plans. */
	int nspan = 0;
	bool spans_all = true;
	Buf spn = {0};
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (!a->dynamic || a->accumulate || !(((intptr_t)li->dds_mode.v[a->ddsi]) & ACC_WRITE))
			continue;
		if (!a->span) {
			spans_all = false;
			continue;
		}
		buf_printf(&spn, "\t\t%s,\n", span_c(a, modes[a->mode]));
		nspan++;
	}
	if (nspan && spans_all)
		emit_line(s, "sap_span sap_spn[] = {\n%s\t};", spn.s);
	/* The keys of the vectors it only reads at ranges. */
	int nrspan = 0;
	Buf rspn = {0};
	for (int i = 0; i < li->accesses.n; i++) {
		Access *a = li->accesses.v[i];
		if (!ranged(li, a->dds))
			continue;
		if (!a->dynamic) {
			buf_printf(&rspn, "\t\t{.dds = %d, .mode = SAP_READ, .a = %s, .b = %s, .w = 1%s},\n",
			           a->ddsi, affine_c(&a->aterms), affine_c(&a->bterms),
			           a->narrow ? ", .narrow = true" : "");
		} else {
			buf_printf(&rspn, "\t\t%s,\n", span_c(a, "SAP_READ"));
		}
		nrspan++;
	}
	if (nrspan)
		emit_line(s, "sap_span sap_rspn[] = {\n%s\t};", rspn.s);
	Buf chk = {0};
	int nchk = checks_c(li, &chk);
	if (nchk)
		emit_line(s, "sap_span sap_chk[] = {\n%s\t};", chk.s);
	int ndrv = 0;
	if (li->slice_vars.n) {
		Buf dv = {0};
		for (int i = 0; i < li->slice_vars.n; i++, ndrv++) {
			Sym *v = li->slice_vars.v[i];
			/* A list of flat elements: its length, then its bytes. */
			if (v->ty->kind == TY_LIST) {
				buf_printf(&dv, "\t\t{&%s.n, sizeof %s.n, \"%s\"},\n", v->cname, v->cname,
				           v->name);
				buf_printf(&dv, "\t\t{%s.v ? %s.v : (void *)&%s, (size_t)%s.n * sizeof(%s), "
				           "\"%s\"},\n", v->cname, v->cname, v->cname, v->cname,
				           emit_ctype(v->ty->elem), v->name);
				ndrv++;
				continue;
			}
			buf_printf(&dv, "\t\t{&%s, sizeof %s, \"%s\"},\n", v->cname, v->cname,
			           v->name);
		}
		emit_line(s, "const sap_drvvar sap_drv[] = {\n%s\t};", dv.s);
	}
	const char *serial = li->verdict == VD_SERIAL ? emit_cstr(li->reason, strlen(li->reason))
	                                               : "NULL";
	Buf sp = {0};
	buf_printf(&sp, "sap_async_spec sap_aspec = {.dds = sap_ddss, .ndds = %d", li->dds.n);
	if (naff)
		buf_printf(&sp, ", .affine = sap_aff, .naffine = %d", naff);
	if (li->has_slice)
		buf_printf(&sp, ", .slice = sap_loop%d_slice", id);
	if (nspan && spans_all)
		buf_printf(&sp, ", .span = sap_spn, .nspan = %d", nspan);
	if (nrspan)
		buf_printf(&sp, ", .rspan = sap_rspn, .nrspan = %d", nrspan);
	if (nchk)
		buf_printf(&sp, ", .checks = sap_chk, .nchecks = %d", nchk);
	if (li->slice_rng || (li->slice_var && !li->slice_vars.n))
		buf_puts(&sp, ", .slice_rng = true");
	if (li->slice_vars.n)
		buf_printf(&sp, ", .drv = sap_drv, .ndrv = %d", ndrv);
	if (body_depth(s->body) >= 2)
		buf_puts(&sp, ", .heavy = true");
	bool varies;
	const char *cost = cost_fn(s, &varies);
	if (cost)
		buf_printf(&sp, ", .cost = %s%s", cost, varies ? ", .cost_varies = true" : "");
	if (li->verdict == VD_SERIAL) {
		buf_printf(&sp, ",\n\t.serial = %s", serial);
		unsigned long long mask = 0;
		for (int i = 0; i < li->accesses.n; i++) {
			Access *a = li->accesses.v[i];
			if (a->at == li->reason_at && !a->structural && !mask)
				buf_printf(&sp, ", .serial_dds = %d", a->ddsi + 1);
			if (a->at == li->reason_at && !a->structural)
				mask |= a->ddsi < 64 ? 1ull << a->ddsi : 0;
		}
		for (int i = 0; mask && i < li->accesses.n; i++) {
			Access *a = li->accesses.v[i];
			if (acc_const_write(a) && !a->structural && a->ddsi < 64)
				mask |= 1ull << a->ddsi;
		}
		if (mask & (mask - 1))
			buf_printf(&sp, ", .serial_mask = %#llxull", mask);
	}
	if (li->has_reads)
		buf_printf(&sp, ", .reads = sap_loop%d_slice", id);
	emit_line(s, "%s};", sp.s);
	emit_line(s, "sap_async_for(&sap_loop%d, &sap_aspec, %s, %s, NULL, sap_loop%d_body, %s);", id,
	          lo, hi, id, redargs);
}

/* The call of a sync for: the written vectors of numbers the ranks
 * merge, the vectors it uses, and its model. */
static void sync_call(Node *s, const char *redargs, Vec *wr)
{
	LoopInfo *li = s->li;
	int id = li->id;
	const char *model = li->model == 0 ? "SAP_BSP" : li->model == 1 ? "SAP_SSP" : "SAP_HYBRID";
	char *stal = li->staleness ? emit_expr(li->staleness) : "0";
	char *batch = emit_expr(li->batch);
	Vec hw = {0};
	acc_dds_written_expr(li->staleness, &hw);
	acc_dds_written_expr(li->batch, &hw);
	if (hw.n) {
		/* Driver code that the loop runs on: what it writes is new
		 * before the loop plans. */
		emit_line(s, "int64_t sap_stale%d = %s, sap_batch%d = %s;", li->id, stal, li->id, batch);
		emit_line(s, "(void)sap_stale%d;", li->id);
		emit_stamp(s, &hw);
		stal = format("sap_stale%d", li->id);
		batch = format("sap_batch%d", li->id);
	}
	/* The written vectors of numbers, for the ranks to average. */
	Buf wrs = {0};
	int nwr = 0;
	bool dense = true;
	for (int i = 0; i < li->dds.n; i++) {
		Sym *d = li->dds.v[i];
		if (!((intptr_t)li->dds_mode.v[i] & ACC_WRITE))
			continue;
		Type *e = d->ty->kind == TY_DVEC ? d->ty->elem : NULL;
		if (!e || !ty_is_numeric(e)) {
			dense = false;
			continue;
		}
		/* As emit_tracked: the body logs the rows it writes. */
		bool sparse = li->has_slice && i < li->sync_why.n && !li->sync_why.v[i];
		buf_printf(&wrs, "\t\t{.dv = &%s, .num = %s, %s, .rec = %d%s},\n", d->cname,
		           acc_numtype(li, d), merge_of(s, d), i, sparse ? ", .sparse = true" : "");
		nwr++;
	}
	if (nwr)
		emit_line(s, "static const sap_syncdds sap_wr[] = {\n%s\t};", wrs.s);
	Buf uses = {0};
	int nuses = 1;
	buf_printf(&uses, "&%s", s->lhs->sym->cname);
	for (int i = 0; i < li->dds.n; i++) {
		Sym *d = li->dds.v[i];
		if (d->ty->kind == TY_DVEC && d != s->lhs->sym) {
			buf_printf(&uses, ", &%s", d->cname);
			nuses++;
		}
	}
	emit_line(s, "sap_dvec *const sap_uses[] = {%s};", uses.s);
	Buf sp = {0};
	buf_printf(&sp, "sap_syncspec sap_sspec = {.model = %s", model);
	if (li->staleness)
		buf_printf(&sp, ", .staleness = %s", stal);
	buf_printf(&sp, ", .batch = %s", batch);
	if (li->recon)
		buf_puts(&sp, ", .recon = true");
	if (nwr)
		buf_printf(&sp, ",\n\t.wr = sap_wr, .nwr = %d", nwr);
	if (dense)
		buf_puts(&sp, ", .dense = true");
	buf_printf(&sp, ",\n\t.over = &%s", s->lhs->sym->cname);
	for (int i = 0; i < li->dds.n; i++)
		if (li->dds.v[i] == s->lhs->sym)
			buf_puts(&sp, ", .over_indexed = true");
	if (li->has_slice)
		buf_printf(&sp, ", .slice = sap_loop%d_slice", id);
	buf_printf(&sp, ", .uses = sap_uses, .nuses = %d", nuses);
	if (li->batched)
		buf_puts(&sp, ", .batched = true");
	emit_line(s, "%s};", sp.s);
	emit_line(s, "sap_sync_for(&sap_loop%d, %s.n, &sap_sspec, NULL, sap_loop%d_body, %s);", id,
	          s->lhs->sym->cname, id, redargs);
	for (int i = 0; i < li->dds.n; i++)
		if ((intptr_t)li->dds_mode.v[i] & ACC_WRITE)
			vec_push(wr, li->dds.v[i]);
}

/* After the call: the reduced values and the accumulated updates back
 * in the driver's variables and DDSs. */
static void reductions_back(Node *s)
{
	LoopInfo *li = s->li;
	int nred = li->reduce_syms.n;
	for (int i = 0; i < nred; i++) {
		Sym *v = li->reduce_syms.v[i];
		if (sema_is_won(s, v))
			emit_won(s, li, v, "", "sap_r.", format("sap_r.sap_won_%s && (", v->cname));
		else
			emit_line(s, "%s = %s;", v->cname,
			          combine(li->reduce_ops.v[i], v->ty, v->cname, format("sap_r.%s", v->cname),
			                  red_check(li, v)));
	}
	/* Accumulated updates land in the DDSs. */
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		Type *t = d->ty;
		const char *nt = acc_numtype(li, d);
		if (t->kind == TY_DVEC) {
			emit_line(s, "sap_acc_done(&sap_loop%d, %s, &%s, sap_r.acc_%s);", li->id, nt,
			          d->cname, d->cname);
		} else {
			emit_line(s, "sap_acc_merge(&sap_loop%d, %s, &%s, &sap_r.acc_%s);", li->id, nt,
			          d->cname, d->cname);
		}
	}
	for (int i = 0; i < li->sum_syms.n; i++) {
		Sym *d = li->sum_syms.v[i];
		emit_line(s, "if (sap_r.acc_%s)", d->cname);
		emit_line(s, "\tsap_acc_done(&sap_loop%d, %s, &%s, sap_r.acc_%s);", li->id,
		          numtype_of(d->ty->elem), d->cname, d->cname);
	}
}

void emit_parallel(Node *s)
{
	LoopInfo *li = s->li;
	int id = li->id;
	bool async = s->kind == N_ASYNC;
	int nred = li->reduce_syms.n;
	acc_find_sums(s);
	bool has_red = nred || li->accum_syms.n || li->relax_syms.n || li->sum_syms.n;
	int line, col;
	diag_linecol(s->file, s->off, &line, &col);
	vec_push(&E->loops_written, (void *)(intptr_t)id);
	buf_printf(&E->protos, "static sap_loop sap_loop%d = {.id = %d, .kind = %s,\n"
	           "\t.site = {.file = %s, .line = %d, .col = %d}};\n", id, id,
	           async ? "SAP_ASYNC" : "SAP_SYNC", emit_cstr(s->file->name, strlen(s->file->name)),
	           line, col);
	if (has_red)
		reduce_struct(s);

	body_fn(s);
	if (li->has_slice || li->has_reads)
		emit_slice_fn(s);

	/* The call, in the driver. */
	emit_line(s, "{");
	E->indent++;
	StmtState st;
	emit_stmt_begin(&st);
	if (has_red)
		emit_line(s, "struct sap_red%d sap_r;", id);
	const char *redargs = has_red ? format("&sap_loop%d_reduce, &sap_r", id) : "NULL, NULL";
	Vec wr = {0};
	if (async)
		async_call(s, redargs, &wr);
	else
		sync_call(s, redargs, &wr);
	reductions_back(s);
	emit_stamp(s, &wr);
	bool kept = false;
	for (int i = 0; async && i < li->dds.n; i++)
		kept |= acc_slice_fixed(li, li->dds.v[i]);
	if (kept)
		emit_line(s, "sap_async_kept(&sap_loop%d, &sap_aspec);", id);
	emit_stmt_end(&st, s);
	E->indent--;
	emit_line(s, "}");
}
