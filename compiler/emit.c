/* emit.c: the program, statements and parallel loops to C.
 *
 * Layout of the generated file: includes, types, helpers (generated per
 * type), source sites, loop descriptors, prototypes, driver statics, user
 * functions, loop bodies, main.  Driver variables are file-scope statics, so
 * an outlined loop body reads them directly and the runtime never needs to
 * capture an environment.  #line directives (write_lines) attribute the C
 * of each .sap line to that line, and everything else to the generated
 * file itself. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

Emitter *E;

struct Scope {
	Scope *up;
	Vec drops;              /* char *: statements that free the scope's locals */
	bool loop;              /* break/continue leave through here */
	bool func;              /* return leaves through here */
};

/* ---- output ---- */

char *emit_tmp(const char *prefix)
{
	return format("sap_%s%d", prefix, ++E->tmp);
}

/* The runtime's name for a scalar type. */
static const char *scalar_kind(Type *t)
{
	return t->kind == TY_FLOAT ? "SAP_S_FLOAT" : t->kind == TY_DOUBLE ? "SAP_S_DOUBLE" :
	       t->kind == TY_INT ? "SAP_S_INT" : "SAP_S_LONG";
}

const char *emit_site(Node *n)
{
	int line, col;
	diag_linecol(n->file, n->off, &line, &col);
	buf_printf(&E->sites, "\t{%s, %d, %d},\n", emit_cstr(n->file->name, strlen(n->file->name)),
	           line, col);
	return format("&sap_S[%d]", E->nsites++);
}

/* A line that comes from the .sap source starts with a mark naming its
 * place, "\001FILE:LINE\002", which write_lines() turns into #line
 * directives once the whole file is assembled and its own line numbers
 * are known. */
void emit_line(Node *at, const char *fmt, ...)
{
	Buf *b = E->out;
	char *mark = NULL;
	if (at && E->opts->line_directives) {
		int line, col, f = 0;
		diag_linecol(at->file, at->off, &line, &col);
		while (f < E->prog->files.n && E->prog->files.v[f] != at->file)
			f++;
		if (f < E->prog->files.n)
			mark = format("\001%d:%d\002", f, line);
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	for (char *q = s;;) {
		char *nl = strchr(q, '\n');
		if (mark)
			buf_puts(b, mark);
		if (q == s)
			for (int i = 0; i < E->indent; i++)
				buf_putc(b, '\t');
		if (!nl) {
			buf_puts(b, q);
			buf_putc(b, '\n');
			break;
		}
		*nl = 0;
		buf_puts(b, q);
		buf_putc(b, '\n');
		q = nl + 1;
	}
}

/* Copy the assembled C to out, turning marks into #line directives.  A
 * directive is written only where the place the C compiler assumes
 * differs from the line's own: the C of one .sap line is kept on one
 * line (so gdb never attributes it to the .sap lines after it), and the
 * lines sapc makes up itself return to the generated file under its real
 * line numbers, named cname. */
static void write_lines(const char *text, FILE *out, const char *cname)
{
	if (!E->opts->line_directives) {
		fputs(text, out);
		return;
	}
	const char *qc = emit_cstr(cname, strlen(cname));
	fprintf(out, "#line 2 %s\n", qc);
	long phys = 2;          /* the output line being written */
	int cur = -1, line = 0; /* the .sap file and line cc assumes; -1: the C file */
	bool open = false;      /* the output line has no newline yet */
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int f = -1, l = 0, used = 0;
		if (*p == '\001' && sscanf(p, "\001%d:%d\002%n", &f, &l, &used) == 2 && used > 0) {
			p += used;
			len -= used;
		}
		if (!used || f < 0 || f >= E->prog->files.n)
			f = -1;
		if (f >= 0 && open && f == cur && l == line) {
			/* Same .sap line as the line before: join it on. */
			while (len && (*p == '\t' || *p == ' '))
				p++, len--;
			fputc(' ', out);
			fwrite(p, 1, len, out);
		} else {
			if (open) {
				fputc('\n', out);
				phys++;
				if (cur >= 0)
					line++;
			}
			if (f >= 0 && (f != cur || l != line)) {
				SrcFile *sf = E->prog->files.v[f];
				fprintf(out, "#line %d %s\n", l, emit_cstr(sf->name, strlen(sf->name)));
				phys++;
			} else if (f < 0 && cur >= 0) {
				fprintf(out, "#line %ld %s\n", phys + 1, qc);
				phys++;
			}
			cur = f;
			line = l;
			fwrite(p, 1, len, out);
			open = true;
			/* Only a marked line may have others joined on. */
			if (f < 0)
				line = -1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (open)
		fputc('\n', out);
}

/* ---- scopes and ownership ---- */

static void push_scope(bool loop, bool func)
{
	Scope *s = xcalloc(1, sizeof *s);
	s->up = E->scope;
	s->loop = loop;
	s->func = func;
	E->scope = s;
}

static void emit_drops_of(Node *at, Scope *s)
{
	for (int i = s->drops.n - 1; i >= 0; i--)
		emit_line(at, "%s", (char *)s->drops.v[i]);
}

static void pop_scope(Node *at)
{
	emit_drops_of(at, E->scope);
	E->scope = E->scope->up;
}

/* Drops for every scope a jump leaves, innermost first. */
static void drops_until(Node *at, bool to_func)
{
	for (Scope *s = E->scope; s; s = s->up) {
		emit_drops_of(at, s);
		if (to_func ? s->func : s->loop)
			break;
	}
}

/* Statements run one at a time: each gets its own prelude (already
 * written into E->out, before the statement) and its own temporaries to
 * drop after it. */
typedef struct StmtState {
	Vec drops;
	Vec *saved_drops;
	Buf *saved_pre;
} StmtState;

static void stmt_begin(StmtState *st)
{
	memset(&st->drops, 0, sizeof st->drops);
	st->saved_drops = E->drops;
	st->saved_pre = E->pre;
	E->drops = &st->drops;
	E->pre = E->out;
}

static void stmt_end(StmtState *st, Node *at)
{
	for (int i = st->drops.n - 1; i >= 0; i--)
		emit_line(at, "%s", (char *)st->drops.v[i]);
	E->drops = st->saved_drops;
	E->pre = st->saved_pre;
}

/* A condition or value that must survive the statement's drops. */
static char *settle(Node *e, StmtState *st, const char *ctype)
{
	char *v = emit_expr(e);
	if (!st->drops.n)
		return v;
	char *t = emit_tmp("v");
	emit_line(e, "%s %s = %s;", ctype, t, v);
	for (int i = st->drops.n - 1; i >= 0; i--)
		emit_line(e, "%s", (char *)st->drops.v[i]);
	st->drops.n = 0;
	return t;
}

/* ---- statements ---- */

static void stmt(Node *s);
static void body(Node *s);

/* The body of a sequential loop, then the loop's closing brace. */
static void loop_body(Node *s)
{
	push_scope(true, false);
	body(s->body);
	pop_scope(s);
	E->indent--;
	emit_line(s, "}");
}

/* ---- loop-invariant element addresses ---- */

static bool assigned_in(Node *e, Sym *v);

static bool stmt_assigns(Node *s, Sym *v)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case N_BLOCK:
			if (stmt_assigns(s->args, v))
				return true;
			break;
		case N_VAR:
			if (s->sym == v || assigned_in(s->init, v))
				return true;
			break;
		case N_EXPR:
			if (assigned_in(s->lhs, v))
				return true;
			break;
		case N_IF:
			if (assigned_in(s->cond, v) || stmt_assigns(s->then, v) || stmt_assigns(s->els, v))
				return true;
			break;
		case N_WHILE: case N_DO: case N_FOR:
			if (stmt_assigns(s->init, v) || assigned_in(s->cond, v) || assigned_in(s->step, v) ||
			    stmt_assigns(s->body, v))
				return true;
			break;
		default:
			break;
		}
		if (s->kind != N_BLOCK && s->next == NULL)
			break;
	}
	return false;
}

/* Does expression e assign v (or anything inside v)? */
static bool assigned_in(Node *e, Sym *v)
{
	if (!e)
		return false;
	if (e->kind == N_ASSIGN || e->kind == N_INCDEC ||
	    (e->kind == N_CALL && e->builtin == B_PUSH)) {
		Node *b = e->kind == N_CALL ? e->args : e->lhs;
		while (b->kind == N_FIELD || b->kind == N_INDEX)
			b = b->lhs;
		if (b->kind == N_NAME && b->sym == v)
			return true;
	}
	if (e->kind == N_CALL) {
		for (Node *a = e->args; a; a = a->next)
			if (assigned_in(a, v))
				return true;
		return false;
	}
	if (e->kind == N_COND && (assigned_in(e->then, v) || assigned_in(e->els, v)))
		return true;
	return assigned_in(e->lhs, v) || assigned_in(e->rhs, v) || assigned_in(e->cond, v);
}

/* A key that for loop s cannot change: locals and fields it does not
 * assign, constants, + - *. */
static bool invariant_key(Node *e, Node *s)
{
	switch (e->kind) {
	case N_INT:
		return true;
	case N_NAME:
		return e->sym && e->sym->kind == SYM_VAR && !ty_is_dds(e->sym->ty) &&
		       !assigned_in(s->cond, e->sym) && !assigned_in(s->step, e->sym) &&
		       !stmt_assigns(s->body, e->sym);
	case N_FIELD:
		return invariant_key(e->lhs, s);
	case N_BINARY:
		return (e->op == TK_PLUS || e->op == TK_MINUS || e->op == TK_STAR) &&
		       invariant_key(e->lhs, s) && invariant_key(e->rhs, s);
	default:
		return false;
	}
}

static void hoist_in(Node *e, Node *s)
{
	if (!e)
		return;
	/* Not in driver code, whose every access may first have to make
	 * the vector whole (sap_dv_ixd). */
	/* Nor for a static key in a body whose caller checks those (see
	 * body_fn): there, where they are known in range, a pointer taken
	 * with a check would only add one. */
	if (e->kind == N_INDEX && e->lhs->kind == N_NAME && e->lhs->ty->kind == TY_DVEC && E->loop &&
	    !acc_is_accum(E->loop->li, e->lhs->sym) && invariant_key(e->rhs, s) &&
	    !stmt_assigns(s->body, e->lhs->sym) &&
	    !(E->versioned && acc_static_dv(E->loop->li, e))) {
		char *k = acc_expr_str(e->rhs);
		for (int i = 0; i < E->hoisted.n; i++) {
			Hoist *h = E->hoisted.v[i];
			if (h->dds == e->lhs->sym && !strcmp(h->key, k))
				return;
		}
		Hoist *h = xcalloc(1, sizeof *h);
		h->dds = e->lhs->sym;
		h->key = k;
		h->ptr = emit_tmp("el");
		const char *et = emit_ctype(e->lhs->ty->elem);
		h->decl = format("%s *%s = &((%s *)%s)[sap_dv_ix(&%s, %s, %s)];", et, h->ptr,
		                 et, emit_dv_data(e->lhs->sym), e->lhs->sym->cname, emit_expr(e->rhs),
		                 emit_site(e));
		/* Only read, and from the plan-order copy when there is one. */
		int st = E->loop && E->loop->kind == N_ASYNC ? emit_staged(E->loop->li, h->dds) : -1;
		if (st >= 0)
			h->decl = format("const %s *%s = %ssap_st%d ? &sap_st%d[sap_k] : "
			                 "&((%s *)%s.data)[sap_dv_ix(&%s, %s, %s)];", et, h->ptr,
			                 E->versioned ? "sap_v == 2 || " : "", st, st, et,
			                 e->lhs->sym->cname, e->lhs->sym->cname, emit_expr(e->rhs),
			                 emit_site(e));
		vec_push(&E->hoisted, h);
		return;
	}
	hoist_in(e->lhs, s);
	hoist_in(e->rhs, s);
	hoist_in(e->cond, s);
	if (e->kind == N_CALL)
		for (Node *a = e->args; a; a = a->next)
			hoist_in(a, s);
}

static void hoist_stmts(Node *b, Node *s)
{
	for (; b; b = b->next) {
		switch (b->kind) {
		case N_BLOCK: hoist_stmts(b->args, s); break;
		case N_VAR: hoist_in(b->init, s); break;
		case N_EXPR: hoist_in(b->lhs, s); break;
		default: break;         /* nested control keeps its own */
		}
		if (b->kind != N_BLOCK && b->next == NULL)
			break;
	}
}

/* The dvector elements for loop s addresses with keys it cannot change. */
static void hoist(Node *s)
{
	hoist_stmts(s->body, s);
}

static void body(Node *s)
{
	/* Blocks stay blocks; a lone statement gets braces of its own. */
	if (s->kind == N_BLOCK) {
		stmt(s);
		return;
	}
	emit_line(s, "{");
	E->indent++;
	push_scope(false, false);
	stmt(s);
	pop_scope(s);
	E->indent--;
	emit_line(s, "}");
}

/* In a slice with speculative regions, scalar locals are volatile: after
 * a region is dropped (longjmp), each holds the value last stored.  Only
 * a local whose scope holds a region's setjmp needs it (spec_ahead): one
 * declared inside a region, or in a block or loop with none after it,
 * is out of scope or untouched when a longjmp lands, and stays in a
 * register (the loop counters of a slice's key loops). */
static bool slice_volatile;
static bool spec_ahead = true;
/* Writing a slice, which runs only part of the body's statements. */
static bool in_slice;

/* ---- definite assignment of local arrays ----
 *
 * The language zeroes every local; an array that a loop fills before
 * anything reads it need not be, and a body that declares one per
 * iteration (a sampler's weights) then does not clear it every time.
 * The proof is syntactic and conservative: the declaration is followed,
 * in its own block, by statements that never name the array, then by
 *     for (j = 0; j < LEN; j++) { ...; a[j] = e; ... }
 * with LEN the array's length, whose body before the write neither names
 * a nor jumps (break, continue, return), whose write is a statement of
 * the body itself (not under a condition), and which never assigns j,
 * never breaks out of the loop or returns, and after the write names a
 * only as a[j].  Every element is then written before any can be read.
 * Where the proof does not go through, the array is zeroed as before. */

/* Does n, or anything under it, satisfy f?  f says 1 for yes, 0 to look
 * under the node, -1 not to.  Follows statement and argument lists, not
 * the next of n itself. */
static bool any_node(Node *n, int (*f)(Node *, void *), void *arg)
{
	if (!n)
		return false;
	int r = f(n, arg);
	if (r)
		return r > 0;
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body,
	                n->size};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (any_node(kids[i], f, arg))
			return true;
	for (Node *a = n->args; a; a = a->next)
		if (any_node(a, f, arg))
			return true;
	for (Node *a = n->clauses; a; a = a->next)
		if (any_node(a, f, arg))
			return true;
	return false;
}

static int names_sym(Node *n, void *s)
{
	return n->kind == N_NAME && n->sym == s;
}

static int assigns_sym(Node *n, void *s)
{
	return (n->kind == N_ASSIGN || n->kind == N_INCDEC) && n->lhs->kind == N_NAME &&
	       n->lhs->sym == s;
}

static int is_return(Node *n, void *unused)
{
	(void)unused;
	return n->kind == N_RETURN;
}

static int is_jump(Node *n, void *unused)
{
	(void)unused;
	return n->kind == N_BREAK || n->kind == N_CONTINUE || n->kind == N_RETURN;
}

/* A return anywhere, or a break out of the loop whose body n is (one not
 * inside a loop of its own). */
static bool leaves_loop(Node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case N_RETURN:
		return true;
	case N_BREAK:
		return true;
	case N_WHILE: case N_DO: case N_FOR: case N_ASYNC: case N_SYNC:
		return any_node(n->body, is_return, NULL);
	default:
		break;
	}
	Node *kids[] = {n->then, n->els, n->body};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (leaves_loop(kids[i]))
			return true;
	if (n->kind == N_BLOCK)
		for (Node *a = n->args; a; a = a->next)
			if (leaves_loop(a))
				return true;
	return false;
}

typedef struct FillUse {
	Sym *a, *j;
} FillUse;

/* A use of a other than a[j]. */
static int other_use(Node *n, void *arg)
{
	FillUse *u = arg;
	if (n->kind == N_INDEX && n->lhs->kind == N_NAME && n->lhs->sym == u->a &&
	    n->rhs->kind == N_NAME && n->rhs->sym == u->j)
		return -1;
	return n->kind == N_NAME && n->sym == u->a;
}

/* e's integer constant value, through widening conversions. */
static bool const_val(Node *e, int64_t *v)
{
	while (e->kind == N_CONV && ty_is_int(e->ty) && e->lhs->ty && ty_is_int(e->lhs->ty) &&
	       (e->ty == e->lhs->ty || e->ty->kind == TY_LONG))
		e = e->lhs;
	if (!e->has_cval)
		return false;
	*v = e->cval;
	return true;
}

/* Is f a loop that writes every element of the array a (of length len)
 * before it reads any, and ends only after the last write? */
static bool fill_loop(Node *f, Sym *a, int64_t len)
{
	if (f->kind != N_FOR || !f->init || !f->cond || !f->step || !f->body)
		return false;
	Sym *j = NULL;
	int64_t v;
	if (f->init->kind == N_VAR && f->init->init && const_val(f->init->init, &v) && v == 0)
		j = f->init->sym;
	else if (f->init->kind == N_EXPR && f->init->lhs->kind == N_ASSIGN &&
	         f->init->lhs->op == TK_ASSIGN && f->init->lhs->lhs->kind == N_NAME &&
	         const_val(f->init->lhs->rhs, &v) && v == 0)
		j = f->init->lhs->lhs->sym;
	/* A local: no function called in the body can assign it. */
	if (!j || !j->ty || !ty_is_int(j->ty) || j->vclass != V_LOCAL || j->is_driver)
		return false;
	Node *c = f->cond;
	if (c->kind != N_BINARY || c->lhs->kind != N_NAME || c->lhs->sym != j ||
	    !const_val(c->rhs, &v) || !((c->op == TK_LT && v == len) || (c->op == TK_LE && v == len - 1)))
		return false;
	Node *st = f->step;
	if (st->kind != N_INCDEC || st->op != TK_INC || st->lhs->kind != N_NAME || st->lhs->sym != j)
		return false;
	if (any_node(f->body, assigns_sym, j) || leaves_loop(f->body))
		return false;
	Node *list = f->body->kind == N_BLOCK ? f->body->args : f->body;
	FillUse u = {a, j};
	for (Node *s = list; s; s = f->body->kind == N_BLOCK ? s->next : NULL) {
		Node *e = s->kind == N_EXPR ? s->lhs : NULL;
		if (e && e->kind == N_ASSIGN && e->op == TK_ASSIGN && e->lhs->kind == N_INDEX &&
		    e->lhs->lhs->kind == N_NAME && e->lhs->lhs->sym == a &&
		    e->lhs->rhs->kind == N_NAME && e->lhs->rhs->sym == j &&
		    !any_node(e->rhs, names_sym, a)) {
			/* a[j] is written: the rest may read it, and nothing else of a. */
			for (Node *r = s->next; r && f->body->kind == N_BLOCK; r = r->next)
				if (any_node(r, other_use, &u))
					return false;
			return true;
		}
		if (any_node(s, names_sym, a) || any_node(s, is_jump, NULL))
			return false;
	}
	return false;
}

/* Is local array d (declared without an initialiser) written all over
 * before any of it can be read? */
static bool filled_before_read(Node *d)
{
	Sym *a = d->sym;
	Type *t = a->ty;
	if (t->kind != TY_ARRAY || t->len <= 0 || ty_needs_drop(t) || in_slice)
		return false;
	for (Node *s = d->next; s; s = s->next) {
		if (fill_loop(s, a, t->len))
			return true;
		if (any_node(s, names_sym, a))
			return false;
	}
	return false;
}

static void var_decl(Node *d)
{
	Sym *s = d->sym;
	Type *t = s->ty;
	if (s->vclass == V_CONST && s->is_driver)
		return;         /* emitted as a static const */
	const char *ct = emit_ctype(t);
	if (slice_volatile && spec_ahead && !s->is_driver && (ty_is_num(t) || t->kind == TY_BOOL))
		ct = format("volatile %s", ct);
	StmtState st;
	stmt_begin(&st);
	if (t->kind == TY_DVEC) {
		const char *et = emit_ctype(t->elem);
		Node *in = d->init;
		const char *name = emit_cstr(s->name, strlen(s->name));
		if (in && in->kind == N_CALL && in->builtin == B_LOAD && !ty_is_flat(t->elem)) {
			emit_line(d, "sap_load_codec(&%s, %s, %s, sizeof(%s), %s, &%s, %s);", s->cname, name,
			          emit_expr(in->args), et, emit_parse_fn(t->elem), emit_codec(t->elem),
			          emit_site(in));
		} else if (in && in->kind == N_CALL && in->builtin == B_LOAD) {
			emit_line(d, "sap_load(&%s, %s, %s, sizeof(%s), %s, true, %s, %s);", s->cname, name,
			          emit_expr(in->args), et, emit_parse_fn(t->elem),
			          s->parted ? "true" : "false", emit_site(in));
		} else if (in && in->kind == N_CALL && in->builtin == B_VOCAB) {
			emit_line(d, "sap_vocab(&%s, %s, &%s, %s, (double)(%s), %s);", s->cname, name,
			          emit_expr(in->args), scalar_kind(in->args->ty->elem),
			          emit_expr(in->args->next), emit_site(in));
		} else if (in && in->kind == N_CALL && in->builtin == B_UNIGRAM) {
			emit_line(d, "sap_unigram(&%s, %s, &%s, %s, %s, (double)(%s), %s);", s->cname, name,
			          emit_expr(in->args), scalar_kind(in->args->ty->elem),
			          emit_expr(in->args->next), emit_expr(in->args->next->next),
			          emit_site(in));
		} else if (in && in->kind == N_CALL && (in->builtin == B_KEYS || in->builtin == B_JOIN)) {
			const char *a = emit_expr(in->args);
			const char *b = in->builtin == B_JOIN ? format("&%s", emit_expr(in->args->next)) : "NULL";
			emit_line(d, "sap_dm_keys(&%s, %s, &%s, %s, %s);", s->cname, name, a, b, emit_site(in));
		} else {
			emit_line(d, "sap_dv_create(&%s, %s, %s, sizeof(%s), %s);", s->cname, name,
			          d->size ? emit_expr(d->size) : "0", et, emit_site(d));
			if (!ty_is_flat(t->elem))
				emit_line(d, "sap_dv_set_codec(&%s, &%s);", s->cname, emit_codec(t->elem));
			if (in && in->kind == N_CALL && (in->builtin == B_UNIFORM || in->builtin == B_NORMAL)) {
				emit_line(d, "sap_init_%s(&%s, %lld, %s, %s, %s);",
				          in->builtin == B_UNIFORM ? "uniform" : "normal", s->cname,
				          (long long)ty_ncomp(t->elem),
				          ty_scalar_of(t->elem)->kind == TY_DOUBLE ? "true" : "false",
				          emit_expr(in->args), emit_expr(in->args->next));
			} else if (in) {
				char *v = emit_tmp("fill");
				char *i = emit_tmp("i");
				emit_line(d, "%s %s;", et, v);
				emit_store(in, v, t->elem, in, TK_ASSIGN);
				if (ty_needs_drop(t->elem)) {
					emit_line(d, "for (int64_t %s = 0; %s < %s.n; %s++)", i, i,
					          s->cname, i);
					emit_line(d, "\t((%s *)%s.data)[%s] = %s(&%s);", et, s->cname, i,
					          emit_copy_fn(t->elem), v);
					emit_line(d, "%s(&%s);", emit_drop_fn(t->elem), v);
				} else {
					emit_line(d, "sap_dv_fill(&%s, &%s);", s->cname, v);
				}
			}
		}
		stmt_end(&st, d);
		if (E->scope->up || !s->is_driver)
			vec_push(&E->scope->drops, format("sap_dv_free(&%s);", s->cname));
		return;
	}
	if (t->kind == TY_DMAP || t->kind == TY_DMMAP) {
		const char *kk = t->key->kind == TY_INT ? "SAP_K_INT" : t->key->kind == TY_LONG ?
		                 "SAP_K_LONG" : "SAP_K_STRING";
		emit_line(d, "sap_dm_create(&%s, %s, %s, sizeof(%s), %s, %s);", s->cname,
		          emit_cstr(s->name, strlen(s->name)), kk, emit_ctype(t->elem),
		          t->kind == TY_DMMAP ? "true" : "false",
		          ty_needs_drop(t->elem) ? format("(void (*)(void *))%s", emit_drop_fn(t->elem)) : "NULL");
		stmt_end(&st, d);
		if (E->scope->up || !s->is_driver)
			vec_push(&E->scope->drops, format("sap_dm_free(&%s);", s->cname));
		return;
	}
	if (s->is_driver) {
		if (d->init)
			emit_store(d, s->cname, t, d->init, TK_ASSIGN);
		else
			emit_zero(d, s->cname, t);
	} else if (!d->init && filled_before_read(d)) {
		emit_line(d, "%s %s;", ct, s->cname);
	} else if (!d->init) {
		emit_line(d, "%s %s = {0};", ct, s->cname);
	} else if (t->kind == TY_ARRAY && !(d->init->ty == t && emit_is_simple(d->init))) {
		emit_line(d, "%s %s;", ct, s->cname);
		emit_store(d, s->cname, t, d->init, TK_ASSIGN);
	} else {
		emit_line(d, "%s %s = %s;", ct, s->cname, emit_owned(d->init));
	}
	stmt_end(&st, d);
	if (ty_needs_drop(t) && (E->scope->up || !s->is_driver))
		vec_push(&E->scope->drops, format("%s(&%s);", emit_drop_fn(t), s->cname));
}

static void parallel(Node *s);
static void stamp(Node *at, Vec *dds);

/* Does e translate to a single C expression, with no statements before
 * it and nothing to drop after it? */
static bool plain_expr(Node *e, char **out)
{
	Buf scratch = {0};
	Buf *so = E->out, *sp = E->pre;
	Vec *sd = E->drops;
	Vec drops = {0};
	int tmp = E->tmp, nsites = E->nsites;
	size_t sites = E->sites.len;
	E->out = E->pre = &scratch;
	E->drops = &drops;
	char *v = emit_expr(e);
	if (e->kind == N_ASSIGN && (e->lhs->ty->kind == TY_ARRAY || ty_needs_drop(e->lhs->ty) ||
	                            e->lhs->ty->kind == TY_STRING))
		scratch.len++;
	E->out = so;
	E->pre = sp;
	E->drops = sd;
	/* Undo what the trial added; the real emission adds it again. */
	E->tmp = tmp;
	E->nsites = nsites;
	E->sites.len = sites;
	if (E->sites.s)
		E->sites.s[sites] = 0;
	if (out)
		*out = v;
	return scratch.len == 0 && drops.n == 0;
}

static void loop_cond(Node *c)
{
	StmtState st;
	stmt_begin(&st);
	char *v = settle(c, &st, "bool");
	emit_line(c, "if (!(%s))", v);
	emit_line(c, "\tbreak;");
	stmt_end(&st, c);
}

static void stmt(Node *s)
{
	StmtState st;
	switch (s->kind) {
	case N_BLOCK:
		emit_line(s, "{");
		E->indent++;
		push_scope(false, false);
		for (Node *n = s->args; n; n = n->next)
			stmt(n);
		pop_scope(s);
		E->indent--;
		emit_line(s, "}");
		return;
	case N_VAR:
		var_decl(s);
		return;
	case N_EXPR: {
		stmt_begin(&st);
		Node *e = s->lhs;
		if (e->kind == N_ASSIGN) {
			emit_store(e, emit_lvalue(e->lhs), e->lhs->ty, e->rhs, e->op);
		} else if (e->kind == N_INCDEC) {
			emit_line(s, "%s%s;", emit_lvalue(e->lhs), e->op == TK_INC ? "++" : "--");
		} else {
			char *v = emit_expr(e);
			if (strcmp(v, "(void)0"))
				emit_line(s, "%s%s;", e->ty->kind == TY_VOID || e->kind == N_CALL ? "" : "(void)", v);
		}
		stmt_end(&st, s);
		if (!E->loop) {
			Vec w = {0};
			acc_dds_written(s, &w);
			stamp(s, &w);
		}
		return;
	}
	case N_EMPTY:
		return;
	case N_IF: {
		stmt_begin(&st);
		char *c = settle(s->cond, &st, "bool");
		stmt_end(&st, s);
		emit_line(s, "if (%s)", c);
		body(s->then);
		if (s->els) {
			emit_line(s, "else");
			body(s->els);
		}
		return;
	}
	case N_WHILE:
		if (plain_expr(s->cond, NULL)) {
			emit_line(s, "while (%s) {", emit_expr(s->cond));
			E->indent++;
			loop_body(s);
			return;
		}
		emit_line(s, "for (;;) {");
		E->indent++;
		loop_cond(s->cond);
		loop_body(s);
		return;
	case N_DO: {
		/* The condition runs at the top of every pass but the first, so
		 * continue reaches it. */
		char *first = emit_tmp("first");
		emit_line(s, "for (bool %s = true;; %s = false) {", first, first);
		E->indent++;
		emit_line(s, "if (!%s) {", first);
		E->indent++;
		loop_cond(s->cond);
		E->indent--;
		emit_line(s, "}");
		loop_body(s);
		return;
	}
	case N_FOR: {
		emit_line(s, "{");
		E->indent++;
		push_scope(false, false);
		if (s->init)
			stmt(s->init);
		if ((!s->cond || plain_expr(s->cond, NULL)) && (!s->step || plain_expr(s->step, NULL))) {
			/* The common case stays a C for loop, which cc vectorises. */
			char *c = s->cond ? emit_expr(s->cond) : "";
			char *st = "";
			if (s->step) {
				Node *x = s->step;
				if (x->kind == N_INCDEC)
					st = format("%s%s", emit_lvalue(x->lhs), x->op == TK_INC ? "++" : "--");
				else
					st = emit_expr(x);
			}
			int nh = E->hoisted.n;
			if (s->cond)
				hoist(s);
			if (E->hoisted.n > nh) {
				/* Elements the loop addresses with invariant keys are
				 * checked once, before the first pass, so the pass is
				 * plain arithmetic that cc vectorises. */
				emit_line(s, "if (%s) {", c);
				E->indent++;
				for (int i = nh; i < E->hoisted.n; i++) {
					Hoist *h = E->hoisted.v[i];
					emit_line(s, "%s", h->decl);
					/* The condition, emitted before, may be its
					 * only use. */
					emit_line(s, "(void)%s;", h->ptr);
				}
			}
			emit_line(s, "for (; %s; %s) {", c, st);
			E->indent++;
			loop_body(s);
			if (E->hoisted.n > nh) {
				E->hoisted.n = nh;
				E->indent--;
				emit_line(s, "}");
			}
			pop_scope(s);
			E->indent--;
			emit_line(s, "}");
			return;
		}
		char *first = emit_tmp("first");
		emit_line(s, "for (bool %s = true;; %s = false) {", first, first);
		E->indent++;
		if (s->step) {
			emit_line(s, "if (!%s) {", first);
			E->indent++;
			Node es = {.kind = N_EXPR, .file = s->step->file, .off = s->step->off, .lhs = s->step};
			stmt(&es);
			E->indent--;
			emit_line(s, "}");
		} else {
			emit_line(s, "(void)%s;", first);
		}
		if (s->cond)
			loop_cond(s->cond);
		loop_body(s);
		pop_scope(s);
		E->indent--;
		emit_line(s, "}");
		return;
	}
	case N_BREAK:
	case N_CONTINUE:
		drops_until(s, false);
		emit_line(s, "%s;", s->kind == N_BREAK ? "break" : "continue");
		return;
	case N_RETURN: {
		if (!s->lhs) {
			drops_until(s, true);
			emit_line(s, "return;");
			return;
		}
		stmt_begin(&st);
		Type *rt = s->lhs->ty;
		char *v = emit_owned(s->lhs);
		char *t = emit_tmp("ret");
		emit_line(s, "%s %s = %s;", emit_ctype(rt), t, v);
		stmt_end(&st, s);
		drops_until(s, true);
		emit_line(s, "return %s;", t);
		return;
	}
	case N_ASYNC:
	case N_SYNC:
		parallel(s);
		return;
	default:
		return;
	}
}

/* ---- parallel loops ---- */

/* The sap_numtype of element type t (emitted once): the runs of its
 * scalars, as the C compiler lays them out, which a static assertion
 * checks. */
static const char *numtype_of(Type *t)
{
	/* By C name: mangled names of a struct and an array may meet. */
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
			int64_t *fo = xcalloc((size_t)(nf ? nf : 1), sizeof *fo);
			Type **ft = xcalloc((size_t)(nf ? nf : 1), sizeof *ft);
			int64_t at = 0;
			int k = 0;
			for (Node *f = u->sdecl->args; f; f = f->next, k++) {
				int64_t fa = ty_calign(f->ty);
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
		           (long long)runs[i].n, scalar_kind(runs[i].k));
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
static char *combine(Node *r, Type *t, const char *a, const char *b);

/* Statements applying reduction r to each scalar of a and b (of type t)
 * into a, or setting each scalar of a to r's identity when b is NULL. */
static void leafwise(Buf *o, Node *r, Type *t, const char *a, const char *b, int depth)
{
	if (t->kind == TY_ARRAY) {
		buf_printf(o, "%*sfor (int64_t i%d = 0; i%d < %lld; i%d++) {\n", depth * 8, "", depth, depth,
		           (long long)t->len, depth);
		leafwise(o, r, t->elem, format("%s[i%d]", emit_member(a, "v"), depth),
		         b ? format("%s[i%d]", emit_member(b, "v"), depth) : NULL,
		         depth + 1);
		buf_printf(o, "%*s}\n", depth * 8, "");
	} else if (t->kind == TY_STRUCT) {
		for (Node *f = t->sdecl->args; f; f = f->next)
			leafwise(o, r, f->ty, emit_member(a, f->sym->cname),
			         b ? emit_member(b, f->sym->cname) : NULL, depth);
	} else {
		buf_printf(o, "%*s%s = %s;\n", depth * 8, "", a, b ? combine(r, t, a, b) : identity(r, t));
	}
}

/* For an array or struct of numbers under a built-in reduction: the
 * name of the helper that combines two values (ident false) or returns
 * the identity, written once. */
static const char *red_helper(Node *r, Type *t, bool ident)
{
	const char *op = format("%.*s", r->name.len, r->name.p);
	const char *opn = r->op == TK_PLUS ? "add" : r->op == TK_STAR ? "mul" : op;
	const char *fn = format("sap_%s_%s_%s", ident ? "id" : "red", opn, emit_ctype(t));
	for (int i = 0; i < E->redfns.n; i++)
		if (!strcmp(E->redfns.v[i], fn))
			return fn;
	vec_push(&E->redfns, (void *)fn);
	const char *ct = emit_ctype(t);
	Buf o = {0};
	if (ident)
		buf_printf(&o, "static %s %s(void)\n{\n\t%s a;\n\tmemset(&a, 0, sizeof a);\n", ct, fn, ct);
	else
		buf_printf(&o, "static %s %s(%s a, %s b)\n{\n", ct, fn, ct, ct);
	leafwise(&o, r, t, "a", ident ? NULL : "b", 1);
	buf_printf(&o, "\treturn a;\n}\n");
	buf_puts(&E->types, o.s);
	return fn;
}

static const char *identity(Node *r, Type *t)
{
	if (!ty_is_scalar(t) && !r->sym)
		return format("%s()", red_helper(r, t, true));
	const char *op = format("%.*s", r->name.len, r->name.p);
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

static char *combine(Node *r, Type *t, const char *a, const char *b)
{
	if (!ty_is_scalar(t) && !r->sym)
		return format("%s(%s, %s)", red_helper(r, t, false), a, b);
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

/* Write into a buffer of the protos section, outside any function. */
typedef struct Aside {
	Buf buf;
	Buf *out;
	int indent;
	Scope *scope;
} Aside;

static void aside_begin(Aside *a)
{
	memset(&a->buf, 0, sizeof a->buf);
	a->out = E->out;
	a->indent = E->indent;
	a->scope = E->scope;
	E->out = &a->buf;
	E->indent = 0;
	E->scope = NULL;
}

static char *aside_end(Aside *a)
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

/* The reduce struct: reduce variables, then one private buffer per
 * accumulated DDS, with identities and merge. */
static void reduce_struct(Node *s)
{
	LoopInfo *li = s->li;
	int id = li->id;
	Aside as;
	aside_begin(&as);
	emit_line(NULL, "struct sap_red%d {", id);
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Sym *v = li->reduce_syms.v[i];
		emit_line(NULL, "\t%s %s;", emit_ctype(v->ty), v->cname);
	}
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		if (d->ty->kind == TY_DVEC)
			emit_line(NULL, "\tvoid *acc_%s;", d->cname);
		else
			emit_line(NULL, "\tsap_dmap acc_%s;", d->cname);
	}
	/* A relaxed vector's worker view, which the body reads and adds
	 * to as an accumulate buffer (the runtime sets it). */
	for (int i = 0; i < li->relax_syms.n; i++)
		emit_line(NULL, "\tvoid *acc_%s;", ((Sym *)li->relax_syms.v[i])->cname);
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
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		Type *t = d->ty;
		if (t->kind == TY_DVEC) {
			emit_line(NULL, "\tr->acc_%s = sap_acc_alloc(%s.n, sizeof(%s));", d->cname, d->cname,
			          emit_ctype(t->elem));
		} else {
			const char *kk = t->key->kind == TY_INT ? "SAP_K_INT" : t->key->kind == TY_LONG ?
			                 "SAP_K_LONG" : "SAP_K_STRING";
			emit_line(NULL, "\tsap_dm_create_buffer(&r->acc_%s, %s, %s, sizeof(%s));", d->cname,
			          emit_cstr(d->name, strlen(d->name)), kk, emit_ctype(t->elem));
		}
	}
	for (int i = 0; i < li->relax_syms.n; i++)
		emit_line(NULL, "\tr->acc_%s = NULL;", ((Sym *)li->relax_syms.v[i])->cname);
	emit_line(NULL, "}\n");
	emit_line(NULL, "static void sap_loop%d_combine(void *into, const void *from)\n{", id);
	emit_line(NULL, "\tstruct sap_red%d *r = into;", id);
	emit_line(NULL, "\tstruct sap_red%d *f = (struct sap_red%d *)from;", id, id);
	if (!li->reduce_syms.n && !li->accum_syms.n)
		emit_line(NULL, "\t(void)r, (void)f;");
	for (int i = 0; i < li->reduce_syms.n; i++) {
		Sym *v = li->reduce_syms.v[i];
		emit_line(NULL, "\tr->%s = %s;", v->cname,
		          combine(li->reduce_ops.v[i], v->ty, format("r->%s", v->cname),
		                  format("f->%s", v->cname)));
	}
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		Type *t = d->ty;
		const char *nt = numtype_of(t->elem);
		if (t->kind == TY_DVEC) {
			emit_line(NULL, "\tsap_acc_add(%s, r->acc_%s, f->acc_%s, %s.n);", nt, d->cname,
			          d->cname, d->cname);
			emit_line(NULL, "\tsap_acc_free(f->acc_%s);", d->cname);
		} else {
			emit_line(NULL, "\tsap_dm_merge(%s, &r->acc_%s, &f->acc_%s);", nt, d->cname, d->cname);
			emit_line(NULL, "\tsap_dm_free(&f->acc_%s);", d->cname);
		}
	}
	emit_line(NULL, "}\n");
	bool flat = true;
	for (int i = 0; i < li->reduce_syms.n; i++)
		flat = flat && ty_is_flat(((Sym *)li->reduce_syms.v[i])->ty);
	const char *acc = "NULL";
	if (li->accum_syms.n) {
		acc = format("sap_loop%d_acc", id);
		emit_line(NULL, "static const sap_accum %s[] = {", acc);
		for (int i = 0; i < li->accum_syms.n; i++) {
			Sym *d = li->accum_syms.v[i];
			int k = 0;
			while (k < li->dds.n && li->dds.v[k] != d)
				k++;
			emit_line(NULL, "\t{.off = offsetof(struct sap_red%d, acc_%s), .dds = %d, .num = %s},", id, d->cname, k,
			          numtype_of(d->ty->elem));
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
			          d->cname, numtype_of(d->ty->elem));
		}
		emit_line(NULL, "};\n");
	}
	/* Exact: every combination gives the same bits in any grouping.
	 * Relaxed reads see the other workers' updates a round late, so
	 * the result depends on the workers. */
	bool exact = li->relax_syms.n == 0;
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
	if (li->accum_syms.n)
		buf_printf(&r, "\t.acc = %s,\n\t.nacc = %d,\n", acc, li->accum_syms.n);
	if (exact)
		buf_puts(&r, "\t.exact = true,\n");
	if (li->relax_syms.n)
		buf_printf(&r, "\t.rel = %s,\n\t.nrel = %d,\n", rel, li->relax_syms.n);
	emit_line(NULL, "%s};\n", r.s);
	buf_puts(&E->protos, aside_end(&as));
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
	return s->li->uses_rng && any_node(s, draws_through_cur, NULL);
}

/* Per-iteration random-number state of a body or slice. */
static void rng_setup(Node *s, bool slice)
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

/* ---- reconnaissance slices ---- */

static void slice_stmt(Node *s);

static bool step_included(Node *s)
{
	return s->step->slice == SL_INCLUDED;
}

/* The slice being written: "ddsi:key" of each stable record already made,
 * and the modes of every stable access by that text, merged.  Maps, not
 * scans, so that a body of n accesses takes O(n), not O(n^2). */
static Map stable_done, stable_modes;

static const char *rec_text(Access *a)
{
	return format("%d:%s", a->ddsi, acc_expr_str(a->key));
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
static Vec spec_open;
static int slice_depth;

static void spec_begin(Node *at)
{
	Spec *sp = xcalloc(1, sizeof *sp);
	sp->name = emit_tmp("sp");
	sp->depth = slice_depth;
	vec_push(&spec_open, sp);
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
	Spec *sp = spec_open.v[--spec_open.n];
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
	for (int i = 0; i < spec_open.n; i++) {
		Spec *sp = spec_open.v[i];
		if (sp->depth == slice_depth) {
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

static void records(Node *at)
{
	LoopInfo *li = E->loop->li;
	/* One record per DDS and key at this point, with the modes merged:
	 * keys have no side effects, so equal texts are equal values. */
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
			if (map_get(&stable_done, t))
				continue;
			map_put(&stable_done, t, (void *)t);
			mode |= (int)(intptr_t)map_get(&stable_modes, t);
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
		/* Recorded before an inner loop, which may make no pass or
		 * none that reaches the access: its own region. */
		bool spec = at->kind == N_WHILE || at->kind == N_DO || at->kind == N_FOR;
		if (spec)
			spec_begin(E->loop);
		StmtState st;
		stmt_begin(&st);
		char *k = emit_expr(a->key);
		if (a->key->ty->kind == TY_STRING)
			k = format("sap_key_str(%s)", k);
		else
			k = format("(int64_t)(%s)", k);
		static const char *mname[] = {"", "SAP_READ", "SAP_WRITE", "SAP_RW"};
		/* At the loop's line: a breakpoint on the body's line should
		 * stop in the body, not in its reconnaissance. */
		emit_line(E->loop, "sap_rec_key(rec, %d, %s, %s);", a->ddsi, k,
		          mname[(intptr_t)modes.v[i]]);
		stmt_end(&st, E->loop);
		if (spec)
			spec_end(E->loop);
	}
}

static void slice_guard(Node *s, Node *g, const char *neg)
{
	StmtState st;
	stmt_begin(&st);
	char *c = settle(g, &st, "bool");
	stmt_end(&st, s);
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
		return s->slice == SL_FLAT || has_spec(s->then) || has_spec(s->els);
	case N_WHILE: case N_DO: case N_FOR:
		return true;    /* keys recorded before it, each in a region */
	default:
		return false;
	}
}

static void slice_block(Node *s)
{
	emit_line(s, "{");
	E->indent++;
	push_scope(false, false);
	slice_stmt(s);
	pop_scope(s);
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
	push_scope(false, false);
	if (s->kind == N_FOR && s->init) {
		spec_ahead = s->slice == SL_FLAT ||
		             (s->slice == SL_INCLUDED && (acc_slice_over(s) || dropped_jump(s->body))) ||
		             has_spec(s->body);
		slice_stmt(s->init);
		spec_ahead = true;
	}
	records(s);
	slice_depth++;
	if (s->slice == SL_FLAT) {
		/* The trip count is unknowable: record the body's keys once. */
		spec_block(s->body);
	} else if (s->slice == SL_INCLUDED) {
		char *first = emit_tmp("first");
		emit_line(s, "for (bool %s = true;; %s = false) {", first, first);
		E->indent++;
		push_scope(true, false);
		if (s->kind == N_FOR && s->step && step_included(s)) {
			emit_line(s, "if (!%s) {", first);
			E->indent++;
			Node es = {.kind = N_EXPR, .file = s->step->file, .off = s->step->off, .lhs = s->step};
			stmt(&es);
			E->indent--;
			emit_line(s, "}");
		}
		if (s->kind == N_DO) {
			emit_line(s, "if (!%s) {", first);
			E->indent++;
			loop_cond(acc_slice_guard(s, false));
			E->indent--;
			emit_line(s, "}");
		} else {
			emit_line(s, "(void)%s;", first);
			if (s->cond)
				loop_cond(acc_slice_guard(s, false));
		}
		/* Passes past a condition or break the slice cannot evaluate,
		 * or past a continue it drops. */
		if (acc_slice_over(s) || dropped_jump(s->body))
			spec_block(s->body);
		else
			slice_block(s->body);
		pop_scope(s);
		E->indent--;
		emit_line(s, "}");
	}
	slice_depth--;
	pop_scope(s);
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
				spec_ahead = false;
				for (Node *m = n->next; m && !spec_ahead; m = m->next)
					spec_ahead = has_spec(m);
			}
			slice_stmt(n);
			spec_ahead = true;
		}
		return;
	case N_VAR: case N_EXPR:
		records(s);
		if (s->slice == SL_INCLUDED)
			stmt(s);
		return;
	case N_IF:
		records(s);
		if (s->slice == SL_INCLUDED) {
			StmtState st;
			stmt_begin(&st);
			char *c = settle(s->cond, &st, "bool");
			stmt_end(&st, s);
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
		if (s->slice || (s->kind == N_FOR && s->init && s->init->slice))
			slice_loop(s);
		else
			records(s);
		return;
	case N_BREAK: case N_CONTINUE:
		if (s->slice == SL_INCLUDED) {
			spec_leave(s);
			stmt(s);
		}
		return;
	default:
		return;
	}
}

/* void sap_loopN_slice(env, lo, hi, rec): the statements the recorded
 * keys depend on, and the records. */
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

/* sap_stN, where a body or slice called with a task group finds the
 * group's elements of the loop's DDS N in plan order, when the runtime
 * made a copy. */
static void stage_decls(Node *s)
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
static void element_var(Node *s)
{
	Sym *iv = s->init->sym;
	if (s->kind == N_ASYNC) {
		emit_line(s->init, "%s %s = (%s)sap_i;", emit_ctype(iv->ty), iv->cname, emit_ctype(iv->ty));
	} else if (s->li->batched) {
		emit_line(s->init, "sap_list %s = sap_sync_batch(&%s, sap_idx, lo, hi);", iv->cname,
		          s->lhs->sym->cname);
		vec_push(&E->scope->drops, format("sap_sync_batch_done(&%s);", iv->cname));
	} else {
		emit_line(s->init, "const %s %s = ((const %s *)%s.data)[sap_i];", emit_ctype(iv->ty),
		          iv->cname, emit_ctype(iv->ty), s->lhs->sym->cname);
	}
	emit_line(s->init, "(void)%s;", iv->cname);
}

/* The iterations [lo, hi) of a body or slice function, sap_i each; or,
 * for a sync for over list<T> b, one run with all of them, which the
 * do-while lets continue end. */
static void iterations_begin(Node *s)
{
	if (s->kind == N_SYNC && s->li->batched) {
		emit_line(s, "int64_t sap_i = sap_idx ? sap_idx[lo] : lo;");
		emit_line(s, "(void)sap_i;");
		emit_line(s, "do {");
	} else {
		emit_line(s, "for (int64_t sap_k = lo; sap_k < hi; sap_k++) {");
		E->indent++;
		emit_line(s, "int64_t sap_i = sap_idx ? sap_idx[sap_k] : sap_k;");
		E->indent--;
	}
	E->indent++;
	push_scope(true, true);
}

static void iterations_end(Node *s)
{
	bool batched = s->kind == N_SYNC && s->li->batched;
	pop_scope(s);
	E->indent--;
	emit_line(s, batched ? "} while (0);" : "}");
}

static void slice_fn(Node *s)
{
	LoopInfo *li = s->li;
	Aside as;
	aside_begin(&as);
	emit_line(s, "static void sap_loop%d_slice(void *env, const int64_t *sap_idx, int64_t lo, int64_t hi, sap_rec *rec)", li->id);
	emit_line(s, "{");
	E->indent = 1;
	emit_line(s, "(void)env;");
	if (s->kind == N_ASYNC)
		stage_decls(s);
	iterations_begin(s);
	emit_line(s, "sap_rec_begin(rec, sap_i);");
	/* Once per combination of the forked ifs' branches. */
	if (li->nforks) {
		emit_line(s, "for (int sap_path = 0; sap_path < %d; sap_path++) {", 1 << li->nforks);
		E->indent++;
		push_scope(true, false);
	}
	rng_setup(s, true);
	element_var(s);
	Node *saved = E->loop;
	E->loop = s;
	stable_done = stable_modes = (Map){0};
	for (int i = 0; i < s->li->accesses.n; i++) {
		Access *a = s->li->accesses.v[i];
		if (a->recorded && a->stable) {
			const char *t = rec_text(a);
			map_put(&stable_modes, t,
			        (void *)((intptr_t)map_get(&stable_modes, t) | a->mode | a->folded));
		}
	}
	slice_depth = 0;
	spec_open.n = 0;
	/* A path of forked ifs, or the rest of an iteration after a continue
	 * the slice drops, may be one the body does not take.  Before the
	 * first of them the body runs what the slice runs, and stops at the
	 * same error. */
	bool spec = li->nforks || dropped_jump(s->body);
	slice_volatile = spec || has_spec(s->body);
	if (spec)
		spec_begin(s);
	in_slice = true;
	slice_stmt(s->body);
	in_slice = false;
	if (spec)
		spec_end(s);
	bool clobber = slice_volatile;
	slice_volatile = false;
	E->loop = saved;
	if (li->nforks) {
		pop_scope(s);
		E->indent--;
		emit_line(s, "}");
	}
	iterations_end(s);
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
	buf_puts(&E->funcs, aside_end(&as));
	if (clobber)
		buf_puts(&E->funcs, "#if defined __GNUC__ && !defined __clang__\n"
		         "#pragma GCC diagnostic pop\n"
		         "#endif\n");
	buf_puts(&E->funcs, "\n");
}

/* After driver code or a loop writes DDSs, their version changes, so that
 * cached reconnaissance reading them runs again. */
static void stamp(Node *at, Vec *dds)
{
	for (int i = 0; i < dds->n; i++) {
		Sym *d = dds->v[i];
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
	iterations_begin(s);
	rng_setup(s, false);
	element_var(s);
	Node *saved_loop = E->loop;
	E->loop = s;
	body(s->body);
	E->loop = saved_loop;
	iterations_end(s);
}

/* The start of a body function: its reduce variables, buffers and
 * generator in locals. */
static void body_open(Node *s)
{
	LoopInfo *li = s->li;
	bool async = s->kind == N_ASYNC;
	int nred = li->reduce_syms.n;
	emit_line(s, "(void)env;");
	if (nred || li->accum_syms.n || li->relax_syms.n) {
		emit_line(s, "struct sap_red%d *sap_red = red;", li->id);
		for (int i = 0; i < nred; i++) {
			Sym *v = li->reduce_syms.v[i];
			emit_line(s, "%s %s = sap_red->%s;", emit_ctype(v->ty), v->cname, v->cname);
		}
		/* The buffers stay put for the call.  Held in locals, they are
		 * not loaded again through sap_red after every store the body
		 * makes, which cc cannot tell apart from a store to *sap_red. */
		for (int k = 0; k < 2; k++) {
			Vec *v = k ? &li->relax_syms : &li->accum_syms;
			for (int i = 0; i < v->n; i++) {
				Sym *d = v->v[i];
				if (d->ty->kind != TY_DVEC)
					continue;
				emit_line(s, "%s *const sap_acc_%s = sap_red->acc_%s;", emit_ctype(d->ty->elem),
				          d->cname, d->cname);
				emit_line(s, "(void)sap_acc_%s;", d->cname);
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
		E->loop = saved;
	}
	if (li->uses_rng)
		emit_line(s, "const sap_rng sap_rng_base = sap_rng_iter(&sap_loop%d, 0);", li->id);
	if (rng_cur_needed(s))
		emit_line(s, "sap_rng *sap_saved_rng = sap_rng_cur;");
	if (async)
		stage_decls(s);
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
}

/* What an async body's caller tests to know its keys in range: "&& c"
 * for each.  guard: its static keys a * i + b are in range for the whole
 * chunk (or group, whose iterations ascend) when they are at its two
 * ends.  recorded: over a plan made from its own slice, the keys the
 * slice recorded are the body's, and the runtime knows whether they are
 * in range.  staged: every plan-order copy is there. */
static void body_guards(Node *s, Buf *guard, Buf *recorded, Buf *staged)
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
		if (emit_staged(li, d) >= 0)
			buf_printf(staged, " && sap_st%d", i);
	}
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
	Buf guard = {0}, recorded = {0}, staged = {0};
	if (s->kind == N_ASYNC)
		body_guards(s, &guard, &recorded, &staged);
	bool all = (guard.len && staged.len) || recorded.len;  /* a version with sap_v 2 */
	E->versioned = all || guard.len;
	Aside as;
	aside_begin(&as);
	if (E->versioned)
		emit_line(s, "static inline __attribute__((always_inline)) void sap_loop%d_run(void *env, "
		          "const int64_t *sap_idx, int64_t lo, int64_t hi, void *red, const int sap_v)", id);
	else
		emit_line(s, "static void sap_loop%d_body(void *env, const int64_t *sap_idx, int64_t lo, "
		          "int64_t hi, void *red)", id);
	emit_line(s, "{");
	E->indent = 1;
	if (E->versioned)
		emit_line(s, "(void)sap_v;");
	else
		emit_line(s, "if (lo >= hi)\n\t\treturn;");
	body_open(s);
	body_loop(s);
	body_close(s);
	E->versioned = false;
	E->indent = 0;
	emit_line(s, "}");
	if (guard.len || all) {
		buf_putc(E->out, '\n');
		emit_line(s, "static void sap_loop%d_body(void *env, const int64_t *sap_idx, int64_t lo, "
		          "int64_t hi, void *red)", id);
		emit_line(s, "{");
		E->indent = 1;
		emit_line(s, "if (lo >= hi)\n\t\treturn;");
		if (staged.len)
			stage_decls(s);
		if (guard.len) {
			emit_line(s, "int64_t sap_first = sap_idx ? sap_idx[lo] : lo;");
			emit_line(s, "int64_t sap_end = sap_idx ? sap_idx[hi - 1] + 1 : hi;");
		}
		const char *run = format("sap_loop%d_run(env, sap_idx, lo, hi, red", id);
		if (all)
			emit_line(s, "if (%s)\n\t\t%s, 2);", conjunction(format("%s%s%s",
			          staged.len ? staged.s : "", guard.len ? guard.s : "",
			          recorded.len ? recorded.s : "")), run);
		if (guard.len)
			emit_line(s, "%sif (%s)\n\t\t%s, 1);", all ? "else " : "", conjunction(guard.s), run);
		emit_line(s, "else\n\t\t%s, 0);", run);
		E->indent = 0;
		emit_line(s, "}");
	}
	buf_puts(&E->funcs, aside_end(&as));
	buf_puts(&E->funcs, "\n");
}

static void parallel(Node *s)
{
	LoopInfo *li = s->li;
	int id = li->id;
	bool async = s->kind == N_ASYNC;
	int nred = li->reduce_syms.n;
	bool has_red = nred || li->accum_syms.n || li->relax_syms.n;
	int line, col;
	diag_linecol(s->file, s->off, &line, &col);
	buf_printf(&E->protos, "static sap_loop sap_loop%d = {.id = %d, .kind = %s, .site = {%s, %d, %d}};\n", id, id,
	           async ? "SAP_ASYNC" : "SAP_SYNC", emit_cstr(s->file->name, strlen(s->file->name)),
	           line, col);
	if (has_red)
		reduce_struct(s);

	body_fn(s);
	if (li->has_slice || li->has_reads)
		slice_fn(s);

	/* The call, in the driver. */
	emit_line(s, "{");
	E->indent++;
	StmtState st;
	stmt_begin(&st);
	if (has_red)
		emit_line(s, "struct sap_red%d sap_r;", id);
	const char *redargs = has_red ? format("&sap_loop%d_reduce, &sap_r", id) : "NULL, NULL";
	Vec wr = {0};
	if (async) {
		/* The DDSs the body touches, and the static keys of the written ones. */
		static const char *modes[] = {"", "SAP_READ", "SAP_WRITE", "SAP_RW"};
		emit_line(s, "static const sap_dds sap_dds[] = {");
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
				{ !dv && !acc_inserts(li, d), "keeps_keys" },
				{ ty_is_flat(d->ty->elem), "flat" },
				{ d->parted, "parted" },
				{ acc_reads_own(li, d), "by_index" },
				{ acc_dv_recorded(li, d), "recorded" },
				{ acc_at_key(li, d), "at_key" },
				{ acc_no_slice(li, d), "no_slice" },
			};
			Buf row = {0};
			buf_printf(&row, "{.name = %s, .%s = &%s, .mode = %s",
			           emit_cstr(d->name, strlen(d->name)), dv ? "dv" : "dm", d->cname, modes[m]);
			for (size_t f = 0; f < sizeof flag / sizeof flag[0]; f++)
				if (flag[f].on)
					buf_printf(&row, ", .%s = true", flag[f].name);
			emit_line(s, "\t%s},", row.s);
			if (m & ACC_WRITE)
				vec_push(&wr, d);
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
			buf_printf(&aff, "\t\t{.dds = %d, .mode = %s, .a = %s, .b = %s},\n", a->ddsi,
			           modes[a->mode], affine_c(&a->aterms), affine_c(&a->bterms));
			naff++;
		}
		if (naff)
			emit_line(s, "sap_affine sap_aff[] = {\n%s\t};", aff.s);
		const char *serial = li->verdict == VD_SERIAL ? emit_cstr(li->reason, strlen(li->reason))
		                                               : "NULL";
		Buf sp = {0};
		buf_printf(&sp, "sap_async_spec sap_spec = {.dds = sap_dds, .ndds = %d", li->dds.n);
		if (naff)
			buf_printf(&sp, ", .affine = sap_aff, .naffine = %d", naff);
		if (li->has_slice)
			buf_printf(&sp, ", .slice = sap_loop%d_slice", id);
		if (li->slice_rng || li->slice_var)
			buf_puts(&sp, ", .slice_rng = true");
		if (li->verdict == VD_SERIAL)
			buf_printf(&sp, ",\n\t.serial = %s", serial);
		if (li->has_reads)
			buf_printf(&sp, ", .reads = sap_loop%d_slice", id);
		emit_line(s, "%s};", sp.s);
		char *lo = emit_expr(s->init->init);
		char *hi = emit_expr(s->cond->rhs);
		emit_line(s, "sap_async_for(&sap_loop%d, &sap_spec, %s, %s, NULL, sap_loop%d_body, %s);", id,
		          lo, hi, id, redargs);
	} else {
		const char *model = li->model == 0 ? "SAP_BSP" : li->model == 1 ? "SAP_SSP" : "SAP_HYBRID";
		char *stal = li->staleness ? emit_expr(li->staleness) : "0";
		char *batch = emit_expr(li->batch);
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
			bool sparse = li->has_slice && i < li->sync_why.n && !li->sync_why.v[i];
			buf_printf(&wrs, "\t\t{.dv = &%s, .num = %s, %s, .rec = %d%s},\n", d->cname,
			           numtype_of(e), merge_of(s, d), i, sparse ? ", .sparse = true" : "");
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
		buf_printf(&sp, "sap_syncspec sap_spec = {.model = %s", model);
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
		if (li->has_slice)
			buf_printf(&sp, ", .slice = sap_loop%d_slice", id);
		buf_printf(&sp, ", .uses = sap_uses, .nuses = %d", nuses);
		if (li->batched)
			buf_puts(&sp, ", .batched = true");
		emit_line(s, "%s};", sp.s);
		emit_line(s, "sap_sync_for(&sap_loop%d, %s.n, &sap_spec, NULL, sap_loop%d_body, %s);", id,
		          s->lhs->sym->cname, id, redargs);
		for (int i = 0; i < li->dds.n; i++)
			if ((intptr_t)li->dds_mode.v[i] & ACC_WRITE)
				vec_push(&wr, li->dds.v[i]);
	}
	for (int i = 0; i < nred; i++) {
		Sym *v = li->reduce_syms.v[i];
		emit_line(s, "%s = %s;", v->cname,
		          combine(li->reduce_ops.v[i], v->ty, v->cname, format("sap_r.%s", v->cname)));
	}
	/* Accumulated updates land in the DDSs. */
	for (int i = 0; i < li->accum_syms.n; i++) {
		Sym *d = li->accum_syms.v[i];
		Type *t = d->ty;
		const char *nt = numtype_of(t->elem);
		if (t->kind == TY_DVEC) {
			emit_line(s, "sap_acc_apply(%s, &%s, sap_r.acc_%s);", nt, d->cname, d->cname);
		} else {
			emit_line(s, "sap_dm_merge(%s, &%s, &sap_r.acc_%s);", nt, d->cname, d->cname);
			emit_line(s, "sap_dm_free(&sap_r.acc_%s);", d->cname);
		}
	}
	stamp(s, &wr);
	stmt_end(&st, s);
	E->indent--;
	emit_line(s, "}");
}

/* ---- functions and the program ---- */

static const char *param_ctype(Sym *f, Type *t)
{
	if (f->is_extern && t->kind == TY_ARRAY)
		return format("%s *", emit_ctype(ty_scalar_of(t)));
	if (f->is_extern && t->kind == TY_STRING)
		return "const char *";
	return emit_ctype(t);
}

static char *signature(Node *f)
{
	Sym *s = f->sym;
	Buf b = {0};
	buf_printf(&b, "%s %s(", s->is_extern && s->ty->kind == TY_STRING ? "const char *" :
	           emit_ctype(s->ty), s->cname);
	if (!f->args)
		buf_puts(&b, "void");
	for (Node *p = f->args; p; p = p->next)
		buf_printf(&b, "%s%s %s", p == f->args ? "" : ", ", param_ctype(s, p->sym->ty),
		           p->sym->cname);
	buf_puts(&b, ")");
	return b.s;
}

static void function(Node *f)
{
	Buf fb = {0};
	E->out = &fb;
	E->indent = 0;
	E->scope = NULL;
	emit_line(f, "static %s", signature(f));
	emit_line(f, "{");
	E->indent = 1;
	/* SAP has no unused-parameter warning (a merge function takes three
	 * whether it needs them or not); neither has its C. */
	for (Node *a = f->args; a; a = a->next)
		emit_line(f, "(void)%s;", a->sym->cname);
	push_scope(false, true);
	for (Node *s = f->body->args; s; s = s->next)
		stmt(s);
	pop_scope(f);
	E->indent = 0;
	emit_line(f, "}");
	buf_puts(&fb, "\n");
	buf_puts(&E->funcs, fb.s);
}

/* Everything else the program needs is in sap.h, the helpers of its
 * arithmetic included (static inline there, where the unit tests reach
 * them). */
static const char *prelude =
	"/* Generated by sapc from %s. */\n"
	"#include \"sap.h\"\n\n";

/* Functions nobody calls (most of the prelude) are left out of the C. */
static bool used_function(Node *f)
{
	return f->sym->used;
}

/* A string made of literals, params and consts only: its value is known
 * when main starts. */
static bool known_at_start(Node *e)
{
	switch (e->kind) {
	case N_STR:
		return true;
	case N_NAME:
		return e->sym && (e->sym->vclass == V_PARAM || e->sym->vclass == V_CONST);
	case N_BINARY:
		return e->op == TK_PLUS && known_at_start(e->lhs) && known_at_start(e->rhs);
	default:
		return false;
	}
}

/* A save that cannot create its file should fail before the training
 * whose result it writes, not after: check, at the start of main, the
 * file of each save in driver code that runs whenever the loops around it
 * do (not under an if), when its name is known then. */
static void check_outputs(Node *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case N_EXPR: {
			Node *c = s->lhs;
			if (c->kind == N_CALL && c->builtin == B_SAVE && c->args && c->args->next &&
			    known_at_start(c->args->next))
				emit_line(NULL, "sap_check_output(%s, %s);", emit_expr(c->args->next),
				          emit_site(c));
			break;
		}
		case N_BLOCK:
			check_outputs(s->args);
			break;
		case N_FOR:
		case N_WHILE:
		case N_DO:
			check_outputs(s->body);
			break;
		default:
			break;
		}
	}
}

void emit_program(Program *p, FILE *out, const EmitOpts *o, const char *progname)
{
	Emitter em = {0};
	E = &em;
	stable_done = stable_modes = (Map){0};  /* their memory went with the last program's */
	spec_open = (Vec){0};
	slice_depth = 0;
	slice_volatile = false;
	E->prog = p;
	E->opts = o;
	buf_puts(&E->types, "");
	buf_puts(&E->helpers, "");
	buf_puts(&E->sites, "");
	buf_puts(&E->protos, "");
	buf_puts(&E->statics, "");
	buf_puts(&E->funcs, "");
	buf_puts(&E->main, "");

	/* Prototypes, statics for driver variables, consts and params. */
	for (Node *n = p->items; n; n = n->next) {
		if (n->kind == N_FUNC && used_function(n))
			buf_printf(&E->protos, "static %s;\n", signature(n));
		else if (n->kind == N_EXTERN && n->sym->used)
			buf_printf(&E->protos, "extern %s;\n", signature(n));
	}
	emit_params(p, progname);

	/* Functions. */
	for (Node *n = p->items; n; n = n->next)
		if (n->kind == N_FUNC && used_function(n))
			function(n);

	/* Driver code: main, with every driver variable a static. */
	E->out = &E->main;
	E->indent = 0;
	E->scope = NULL;
	buf_puts(&E->main, "int main(int argc, char **argv)\n{\n");
	E->indent = 1;
	buf_puts(&E->main, "\tsap_init(&argc, &argv, &sap_prog);\n");
	check_outputs(p->items);
	push_scope(false, true);
	for (Node *n = p->items; n; n = n->next) {
		if (n->kind == N_STRUCT || n->kind == N_FUNC || n->kind == N_EXTERN)
			continue;
		if (n->kind == N_VAR && (n->vclass == V_PARAM || n->vclass == V_CONST))
			continue;
		stmt(n);
	}
	pop_scope(NULL);
	buf_puts(&E->main, "\treturn sap_finalize();\n}\n");

	/* Consts last: one that only sized arrays or fed other consts is not
	 * needed in the C at all. */
	Buf consts = {0};
	buf_puts(&consts, "");
	E->in_const = true;
	E->out = &consts;
	for (Node *n = p->items; n; n = n->next) {
		if (n->kind != N_VAR)
			continue;
		Sym *s = n->sym;
		if (s->vclass == V_CONST && s->used)
			buf_printf(&consts, "static const %s %s __attribute__((unused)) = %s;\n", emit_ctype(s->ty), s->cname,
			           emit_expr(n->init));
		else if (s->vclass == V_PARAM)
			buf_printf(&consts, "static %s %s = %s%s;\n", emit_ctype(s->ty), s->cname,
			           s->ty->kind == TY_FLOAT || s->ty->kind == TY_INT ?
			           format("(%s)", emit_ctype(s->ty)) : "", emit_expr(n->init));
	}
	E->in_const = false;
	E->in_const = false;

	/* Driver statics: every variable declared outside functions and loop bodies. */
	Buf dv = {0};
	buf_puts(&dv, "");
	Vec vars = {0};
	sema_driver_vars(&vars);
	for (int i = 0; i < vars.n; i++) {
		Sym *s = vars.v[i];
		if (s->vclass == V_CONST || s->vclass == V_PARAM)
			continue;
		buf_printf(&dv, "static %s %s;\n", emit_ctype(s->ty), s->cname);
	}

	SrcFile *mainf = p->files.v[p->files.n - 1];
	Buf all = {0};
	buf_printf(&all, prelude, mainf->name);
	buf_puts(&all, E->types.s);
	if (E->types.len)
		buf_putc(&all, '\n');
	if (E->nsites)
		buf_printf(&all, "static const sap_site sap_S[] = {\n%s};\n\n", E->sites.s);
	buf_puts(&all, consts.s);
	buf_puts(&all, E->statics.s);
	buf_puts(&all, dv.s);
	if (dv.len)
		buf_putc(&all, '\n');
	buf_puts(&all, E->protos.s);
	if (E->protos.len)
		buf_putc(&all, '\n');
	buf_puts(&all, E->helpers.s);
	buf_puts(&all, E->funcs.s);
	buf_puts(&all, E->main.s);
	write_lines(all.s, out, o->c_name ? o->c_name : format("%s.c", mainf->name));
}
