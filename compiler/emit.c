/* emit.c: the program and its statements to C (parallel loops: emit_loop.c,
 * their reconnaissance slices: emit_slice.c).
 *
 * Layout of the generated file: includes, types, helpers (generated per
 * type), source sites, loop descriptors, prototypes, driver statics, user
 * functions, loop bodies, main.  Driver variables are file-scope statics, so
 * an outlined loop body reads them directly and the runtime never needs to
 * capture an environment.  #line directives (write_lines) attribute the C
 * of each .sap line to that line, and everything else to the generated
 * file itself. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

Emitter *E;

/* ---- output ---- */

char *emit_tmp(const char *prefix)
{
	return format("sap_%s%d", prefix, ++E->tmp);
}

/* The runtime's name for a scalar type. */
const char *emit_scalar_kind(Type *t)
{
	return t->kind == TY_FLOAT ? "SAP_S_FLOAT" : t->kind == TY_DOUBLE ? "SAP_S_DOUBLE" :
	       t->kind == TY_INT ? "SAP_S_INT" : "SAP_S_LONG";
}

const char *emit_site(Node *n)
{
	int line, col;
	diag_linecol(n->file, n->off, &line, &col);
	buf_printf(&E->sites, "\t{.file = %s, .line = %d, .col = %d},\n",
	           emit_cstr(n->file->name, strlen(n->file->name)),
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

/* The length of the mark "\001FILE:LINE\002" at p, 0 if there is none.
 * Not sscanf: glibc's measures the whole rest of the text at each call,
 * which made a program of 100000 lines take minutes. */
static int mark(const char *p, int *f, int *l)
{
	if (*p != '\001')
		return 0;
	char *end;
	long a = strtol(p + 1, &end, 10);
	if (end == p + 1 || *end != ':' || a < 0 || a > INT_MAX)
		return 0;
	const char *q = end + 1;
	long b = strtol(q, &end, 10);
	if (end == q || *end != '\002' || b < 0 || b > INT_MAX)
		return 0;
	*f = (int)a;
	*l = (int)b;
	return (int)(end + 1 - p);
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
		int f = -1, l = 0, used = mark(p, &f, &l);
		p += used;
		len -= used;
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

void emit_push_scope(bool loop, bool func)
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

void emit_pop_scope(Node *at)
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

void emit_stmt_begin(StmtState *st)
{
	memset(&st->drops, 0, sizeof st->drops);
	st->saved_drops = E->drops;
	st->saved_pre = E->pre;
	E->drops = &st->drops;
	E->pre = E->out;
}

void emit_stmt_end(StmtState *st, Node *at)
{
	for (int i = st->drops.n - 1; i >= 0; i--)
		emit_line(at, "%s", (char *)st->drops.v[i]);
	E->drops = st->saved_drops;
	E->pre = st->saved_pre;
}

/* A condition or value that must survive the statement's drops. */
char *emit_settle(Node *e, StmtState *st, const char *ctype)
{
	/* "bool": a condition (emit_test). */
	char *v = strcmp(ctype, "bool") ? emit_expr(e) : emit_test(e);
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

/* The body of a sequential loop, then the loop's closing brace. */
static void loop_body(Node *s)
{
	emit_push_scope(true, false);
	emit_body(s->body);
	emit_pop_scope(s);
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
	    (e->kind == N_CALL && (e->builtin == B_PUSH || e->builtin == B_INSERT ||
	                           e->builtin == B_ERASE))) {
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

/* Does the parallel loop of li write d? */
static bool loop_writes(LoopInfo *li, Sym *d)
{
	for (int i = 0; i < li->dds.n; i++)
		if (li->dds.v[i] == d)
			return ((intptr_t)li->dds_mode.v[i] & ACC_WRITE) != 0;
	return false;
}

/* A hoist of e, DDS[key], in a temporary named for tmp, for the caller
 * to fill in and push; NULL when e is hoisted already. */
static Hoist *hoist_new(Node *e, const char *tmp)
{
	char *k = acc_key_id(e->rhs);
	for (int i = 0; i < E->hoisted.n; i++) {
		Hoist *h = E->hoisted.v[i];
		if (h->dds == e->lhs->sym && !strcmp(h->key, k))
			return NULL;
	}
	Hoist *h = xcalloc(1, sizeof *h);
	h->dds = e->lhs->sym;
	h->key = k;
	h->ptr = emit_tmp(tmp);
	return h;
}

static void hoist_in(Node *e, Node *s)
{
	if (!e)
		return;
	/* Not in driver code, whose every access may first have to make
	 * the vector whole (sap_dv_ixd). */
	/* Nor for a static key in a body whose caller checks those (see
	 * body_fn in emit_loop.c): there, where they are known in range, a
	 * pointer taken with a check would only add one. */
	if (e->kind == N_INDEX && e->lhs->kind == N_NAME && e->lhs->ty->kind == TY_DVEC && E->loop &&
	    !acc_is_accum(E->loop->li, e->lhs->sym) && invariant_key(e->rhs, s) &&
	    !stmt_assigns(s->body, e->lhs->sym) &&
	    !(E->versioned && acc_static_dv(E->loop->li, e))) {
		Hoist *h = hoist_new(e, "el");
		if (!h)
			return;
		const char *et = emit_ctype(e->lhs->ty->elem);
		const char *au = emit_audit(e->lhs->sym, false);
		h->decl = au ? format("%s *%s = &((%s *)%s)[sap_dv_ixa(&%s, %s, %s, true%s)];", et,
		                      h->ptr, et, emit_dv_data(e->lhs->sym), e->lhs->sym->cname,
		                      emit_expr(e->rhs), emit_site(e), au) :
		          format("%s *%s = &((%s *)%s)[sap_dv_ix(&%s, %s, %s)];", et, h->ptr,
		                 et, emit_dv_data(e->lhs->sym), e->lhs->sym->cname, emit_expr(e->rhs),
		                 emit_site(e));
		/* Only read, and from the plan-order copy when there is one. */
		int st = E->loop && E->loop->kind == N_ASYNC ? emit_staged(E->loop->li, h->dds) : -1;
		if (st >= 0)
			h->decl = format("const %s *%s = %ssap_st%d ? &sap_st%d[sap_k] : "
			                 "&((%s *)%s.data)[sap_dv_ix(&%s, %s, %s)];", et, h->ptr,
			                 E->versioned && emit_stage_sure(E->loop->li, h->dds) ?
			                 "sap_v == 2 || " : "", st, st, et,
			                 e->lhs->sym->cname, e->lhs->sym->cname, emit_expr(e->rhs),
			                 emit_site(e));
		vec_push(&E->hoisted, h);
		return;
	}
	/* m[k] of a multimap the parallel loop does not write, at a key
	 * for loop s cannot change: the key's values, found once, where
	 * m[k][j] looked k up for every j (a PageRank pulling over in-edges
	 * in a dmultimap ran at a sixth of its C twin's speed). */
	if (e->kind == N_INDEX && e->lhs->kind == N_NAME && e->lhs->ty->kind == TY_DMMAP &&
	    E->loop && !ty_needs_drop(e->lhs->ty->elem) && invariant_key(e->rhs, s) &&
	    !stmt_assigns(s->body, e->lhs->sym) && !loop_writes(E->loop->li, e->lhs->sym)) {
		Hoist *h = hoist_new(e, "vals");
		if (!h)
			return;
		char *key = emit_tmp("key");
		bool ik = e->lhs->ty->key->kind != TY_STRING;
		h->decl = format("sap_list %s = {0}; %s %s = %s; sap_dm_view%s(&%s, %s%s, &%s);", h->ptr,
		                 emit_ctype(e->lhs->ty->key), key,
		                 emit_expr(e->rhs), ik ? "_int" : "", e->lhs->sym->cname,
		                 ik ? "(int64_t)" : "&", key, h->ptr);
		h->drop = format("sap_list_free(&%s);", h->ptr);
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

void emit_body(Node *s)
{
	/* Blocks stay blocks; a lone statement gets braces of its own. */
	if (s->kind == N_BLOCK) {
		emit_stmt(s);
		return;
	}
	emit_line(s, "{");
	E->indent++;
	emit_push_scope(false, false);
	emit_stmt(s);
	emit_pop_scope(s);
	E->indent--;
	emit_line(s, "}");
}

/* In a slice with speculative regions, scalar locals are volatile: after
 * a region is dropped (longjmp), each holds the value last stored.  Only
 * a local whose scope holds a region's setjmp needs it (emit_spec_ahead): one
 * declared inside a region, or in a block or loop with none after it,
 * is out of scope or untouched when a longjmp lands, and stays in a
 * register (the loop counters of a slice's key loops). */
bool emit_slice_volatile;
bool emit_spec_ahead = true;
/* Writing a slice, which runs only part of the body's statements. */
bool emit_in_slice;

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
bool emit_any_node(Node *n, int (*f)(Node *, void *), void *arg)
{
	if (!n)
		return false;
	int r = f(n, arg);
	if (r)
		return r > 0;
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body,
	                n->size};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (emit_any_node(kids[i], f, arg))
			return true;
	for (Node *a = n->args; a; a = a->next)
		if (emit_any_node(a, f, arg))
			return true;
	for (Node *a = n->clauses; a; a = a->next)
		if (emit_any_node(a, f, arg))
			return true;
	return false;
}

static int names_sym(Node *n, void *s)
{
	return n->kind == N_NAME && n->sym == s;
}

/* ---- narrowing to float ---- */

/* Is t float, or an array of them? */
static bool float_elems(Type *t)
{
	while (t && t->kind == TY_ARRAY)
		t = t->elem;
	return t && t->kind == TY_FLOAT;
}

/* Is a value of type from wider than a float (double, int, long, or an
 * array of them)? */
static bool wider_elems(Type *from)
{
	while (from && from->kind == TY_ARRAY)
		from = from->elem;
	return from && (from->kind == TY_DOUBLE || from->kind == TY_INT || from->kind == TY_LONG);
}

/* A number written out (0.01, -3, 2 * 0.5): rounded once, by cc. */
static bool literal(Node *e)
{
	switch (e->kind) {
	case N_INT: case N_FLOAT:
		return true;
	case N_UNARY: case N_CONV:
		return literal(e->lhs);
	case N_BINARY:
		return literal(e->lhs) && literal(e->rhs);
	default:
		return e->has_cval;
	}
}

static bool narrows(Type *to, Node *e)
{
	return e && float_elems(to) && wider_elems(e->ty) && !literal(e);
}

/* Does n store a wider value in a float, its enclosing function's result
 * being ret? */
static int narrows_at(Node *n, void *ret)
{
	switch (n->kind) {
	case N_CONV:
		return narrows(n->ty, n->lhs);
	case N_ASSIGN:
		return narrows(n->lhs->ty, n->rhs);
	case N_VAR:
		return n->sym && narrows(n->sym->ty, n->init);
	case N_RETURN:
		return ret && narrows(ret, n->lhs);
	case N_CALL:
		if (n->builtin == B_PUSH && n->args && n->args->next && n->args->ty &&
		    n->args->ty->kind == TY_LIST)
			return narrows(n->args->ty->elem, n->args->next);
		if (!n->builtin && n->sym && n->sym->decl) {
			Node *p = n->sym->decl->args;
			for (Node *a = n->args; a && p; a = a->next, p = p->next)
				if (p->sym && narrows(p->sym->ty, a))
					return 1;
		}
		return 0;
	default:
		return 0;
	}
}

/* In driver code: a parallel loop's body is looked at whole. */
static int narrows_driver(Node *n, void *arg)
{
	int *found = arg;
	if (n->kind == N_ASYNC || n->kind == N_SYNC) {
		if (emit_any_node(n->body, narrows_at, NULL) || emit_any_node(n->cond, narrows_at, NULL) ||
		    emit_any_node(n->init, narrows_at, NULL) || emit_any_node(n->step, narrows_at, NULL))
			*found |= NARROW_HOT;
		return -1;
	}
	if (narrows_at(n, NULL))
		*found |= NARROW_DRIVER;
	return 0;
}

int emit_narrows_float(Program *prog)
{
	int found = 0;
	for (Node *n = prog->items; n; n = n->next) {
		if (n->kind == N_FUNC) {
			if (emit_any_node(n->body, narrows_at, n->sym ? n->sym->ty : NULL))
				found |= NARROW_HOT;
		} else if (n->kind != N_STRUCT && n->kind != N_EXTERN) {
			emit_any_node(n, narrows_driver, &found);
		}
	}
	return found;
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
		return emit_any_node(n->body, is_return, NULL);
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

Node *emit_unwiden(Node *e)
{
	while (e->kind == N_CONV && ty_is_int(e->ty) && e->lhs->ty && ty_is_int(e->lhs->ty) &&
	       (e->ty == e->lhs->ty || e->ty->kind == TY_LONG))
		e = e->lhs;
	return e;
}

bool emit_const_val(Node *e, int64_t *v)
{
	e = emit_unwiden(e);
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
	if (f->init->kind == N_VAR && f->init->init && emit_const_val(f->init->init, &v) && v == 0)
		j = f->init->sym;
	else if (f->init->kind == N_EXPR && f->init->lhs->kind == N_ASSIGN &&
	         f->init->lhs->op == TK_ASSIGN && f->init->lhs->lhs->kind == N_NAME &&
	         emit_const_val(f->init->lhs->rhs, &v) && v == 0)
		j = f->init->lhs->lhs->sym;
	/* A local: no function called in the body can assign it. */
	if (!j || !j->ty || !ty_is_int(j->ty) || j->vclass != V_LOCAL || j->is_driver)
		return false;
	Node *c = f->cond;
	if (c->kind != N_BINARY || c->lhs->kind != N_NAME || c->lhs->sym != j ||
	    !emit_const_val(c->rhs, &v) || !((c->op == TK_LT && v == len) || (c->op == TK_LE && v == len - 1)))
		return false;
	Node *st = f->step;
	if (st->kind != N_INCDEC || st->op != TK_INC || st->lhs->kind != N_NAME || st->lhs->sym != j)
		return false;
	if (emit_any_node(f->body, assigns_sym, j) || leaves_loop(f->body))
		return false;
	Node *list = f->body->kind == N_BLOCK ? f->body->args : f->body;
	FillUse u = {a, j};
	for (Node *s = list; s; s = f->body->kind == N_BLOCK ? s->next : NULL) {
		Node *e = s->kind == N_EXPR ? s->lhs : NULL;
		if (e && e->kind == N_ASSIGN && e->op == TK_ASSIGN && e->lhs->kind == N_INDEX &&
		    e->lhs->lhs->kind == N_NAME && e->lhs->lhs->sym == a &&
		    e->lhs->rhs->kind == N_NAME && e->lhs->rhs->sym == j &&
		    !emit_any_node(e->rhs, names_sym, a)) {
			/* a[j] is written: the rest may read it, and nothing else of a. */
			for (Node *r = s->next; r && f->body->kind == N_BLOCK; r = r->next)
				if (emit_any_node(r, other_use, &u))
					return false;
			return true;
		}
		if (emit_any_node(s, names_sym, a) || emit_any_node(s, is_jump, NULL))
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
	if (t->kind != TY_ARRAY || t->len <= 0 || ty_needs_drop(t) || emit_in_slice)
		return false;
	for (Node *s = d->next; s; s = s->next) {
		if (fill_loop(s, a, t->len))
			return true;
		if (emit_any_node(s, names_sym, a))
			return false;
	}
	return false;
}

/* Arrays of at least this many elements, counting those of nested
 * arrays, are zeroed lazily. */
enum { LAZY_ELEMS = 8192 };

/* Is the local s, an array declared without an initialiser, large enough
 * to zero lazily (sap_lazy_row)?  Only of elements that need no drop. */
static bool zero_lazily(Sym *s)
{
	Type *t = s->ty;
	if (t->kind != TY_ARRAY || t->len <= 0 || ty_needs_drop(t) || s->is_driver || s->by_ref)
		return false;
	double n = 1;
	for (Type *u = t; u->kind == TY_ARRAY; u = u->elem)
		n *= (double)u->len;
	s->lazy = n >= LAZY_ELEMS;
	return s->lazy;
}

/* Declaration d takes m[k] of a dmultimap, which the async loop whose
 * body it is in neither inserts into nor erases from (an insert drops
 * the map's grouped values), into a list of plain elements it never
 * changes: it may borrow the map's values (emit_view). */
static bool borrows(Node *d)
{
	Node *e = d->init;
	if (!E->in_body || !E->loop || E->loop->kind != N_ASYNC || d->sym->modified ||
	    e->kind != N_INDEX || e->lhs->kind != N_NAME || e->lhs->ty->kind != TY_DMMAP ||
	    ty_needs_drop(e->lhs->ty->elem))
		return false;
	return !loop_writes(E->loop->li, e->lhs->sym);
}

/* Declaration d, in a loop body, takes an element of a vector the loop
 * does not write (or a field of one, or an element of a list in one)
 * into a local that holds lists or strings and is never changed: it may
 * share the element's storage, which stays as it is while the body
 * runs, rather than copy it and drop the copy (`Example e = T[i];` cost
 * a list copy an iteration, 3.4x the body that reads T[i] itself). */
static bool borrows_element(Node *d)
{
	Node *e = d->init;
	if (!(E->in_body || emit_in_slice) || !E->loop || d->sym->modified ||
	    !ty_needs_drop(d->sym->ty))
		return false;
	while (e->kind == N_FIELD || (e->kind == N_INDEX && (e->lhs->ty->kind == TY_LIST ||
	                                                     e->lhs->ty->kind == TY_ARRAY)))
		e = e->lhs;
	if (e->kind != N_INDEX || e->lhs->kind != N_NAME || e->lhs->ty->kind != TY_DVEC)
		return false;
	return !loop_writes(E->loop->li, e->lhs->sym);
}

static void var_decl(Node *d)
{
	Sym *s = d->sym;
	Type *t = s->ty;
	if (s->vclass == V_CONST && s->is_driver)
		return;         /* emitted as a static const */
	const char *ct = emit_ctype(t);
	bool vol = emit_slice_volatile && emit_spec_ahead && !s->is_driver &&
	           (ty_is_num(t) || t->kind == TY_BOOL);
	if (vol)
		ct = format("volatile %s", ct);
	/* Set again at each declaration, for the uses that follow it. */
	s->lazy = false;
	s->borrowed = false;
	s->viewed = false;
	StmtState st;
	emit_stmt_begin(&st);
	if (t->kind == TY_DVEC) {
		const char *et = emit_ctype(t->elem);
		Node *in = d->init;
		const char *name = emit_cstr(s->name, strlen(s->name));
		if (in && in->kind == N_CALL && in->builtin == B_LOAD && !ty_is_flat(t->elem)) {
			emit_line(d, "sap_load_codec(&%s, %s, %s, sizeof(%s), %s, &%s, %s, %s);", s->cname,
			          name, emit_expr(in->args), et, emit_parse_fn(t->elem), emit_codec(t->elem),
			          emit_field_names(t->elem), emit_site(in));
		} else if (in && in->kind == N_CALL && in->builtin == B_LOAD) {
			emit_line(d, "sap_load(&%s, %s, %s, sizeof(%s), %s, true, %s, %s, %s);", s->cname,
			          name, emit_expr(in->args), et, emit_parse_fn(t->elem),
			          s->parted ? "true" : "false", emit_field_names(t->elem), emit_site(in));
		} else if (in && in->kind == N_CALL && in->builtin == B_VOCAB) {
			emit_line(d, "sap_vocab(&%s, %s, &%s, %s, (double)(%s), %s);", s->cname, name,
			          emit_expr(in->args), emit_scalar_kind(in->args->ty->elem),
			          emit_expr(in->args->next), emit_site(in));
		} else if (in && in->kind == N_CALL && in->builtin == B_UNIGRAM) {
			emit_line(d, "sap_unigram(&%s, %s, &%s, %s, %s, (double)(%s), %s);", s->cname, name,
			          emit_expr(in->args), emit_scalar_kind(in->args->ty->elem),
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
				/* The store drops what v held: nothing. */
				emit_line(d, ty_needs_drop(t->elem) ? "%s %s = {0};" : "%s %s;", et, v);
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
		emit_stmt_end(&st, d);
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
		if (!ty_is_flat(t->elem))
			emit_line(d, "%s.refs = true;", s->cname);
		emit_stmt_end(&st, d);
		if (E->scope->up || !s->is_driver)
			vec_push(&E->scope->drops, format("sap_dm_free(&%s);", s->cname));
		return;
	}
	if (s->is_driver && E->stamps && (ty_is_num(t) || t->kind == TY_BOOL)) {
		/* In a driver loop of stamps_after, a number it declares (its
		 * counter, most often) is a C local, not the static: nothing
		 * outside the loop sees it (no parallel loop there to
		 * checkpoint or read it), and cc keeps it in a register.  Its
		 * name is apart from the static's (-Wshadow) and from every
		 * user name (u_...), until the loop is written. */
		const char *init = d->init ? emit_expr(d->init) : "0";
		vec_push(&E->renamed, s);
		vec_push(&E->renamed, (void *)s->cname);
		s->cname = format("sap_dl_%s", s->cname);
		emit_line(d, "%s %s = %s;", ct, s->cname, init);
		emit_line(d, "(void)%s;", s->cname);
	} else if (s->is_driver) {
		if (d->init)
			emit_store(d, s->cname, t, d->init, TK_ASSIGN);
		else
			emit_zero(d, s->cname, t);
	} else if (!d->init && filled_before_read(d)) {
		emit_line(d, "%s %s;", ct, s->cname);
	} else if (!d->init && !vol && zero_lazily(s)) {
		emit_line(d, "%s %s; int64_t %s_hw = 0; (void)%s_hw;", ct, s->cname, s->cname, s->cname);
	} else if (!d->init) {
		emit_line(d, "%s %s = {0};", ct, s->cname);
	} else if (t->kind == TY_ARRAY && !(d->init->ty == t && emit_is_simple(d->init))) {
		/* The store drops what the array held: nothing. */
		emit_line(d, ty_needs_drop(t) ? "%s %s = {0};" : "%s %s;", ct, s->cname);
		emit_store(d, s->cname, t, d->init, TK_ASSIGN);
	} else if (borrows_element(d)) {
		s->borrowed = true;
		emit_line(d, "%s %s = %s;", ct, s->cname, emit_expr(d->init));
	} else {
		s->viewed = borrows(d);
		emit_line(d, "%s %s = %s;", ct, s->cname, s->viewed ? emit_view(d->init) :
		          emit_owned(d->init));
	}
	emit_stmt_end(&st, d);
	/* sapc warned of it (sema_warn_unused) if asked to; gcc would again,
	 * with the C's name at the C's column. */
	if (!s->is_driver && s->reads <= 0)
		emit_line(d, "(void)%s;", s->cname);
	if (ty_needs_drop(t) && (E->scope->up || !s->is_driver) && !s->borrowed)
		vec_push(&E->scope->drops, format("%s(&%s);", emit_drop_fn(t), s->cname));
}

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

/* In driver code, the DDSs expression e writes get new versions here, so
 * that the loops after it see them changed (their plans, copies and
 * fetched elements are kept while the versions are). */
static Vec driver_writes(Node *e)
{
	Vec w = {0};
	if (!E->loop && e)
		acc_dds_written_expr(e, &w);
	return w;
}

static void stamp_writes(Node *at, Node *e)
{
	Vec w = driver_writes(e);
	emit_stamp(at, &w);
}

static bool writes_dds(Node *e)
{
	return driver_writes(e).n > 0;
}

void emit_loop_cond(Node *c)
{
	StmtState st;
	emit_stmt_begin(&st);
	char *v = emit_settle(c, &st, "bool");
	emit_line(c, "if (!(%s))", v);
	emit_line(c, "\tbreak;");
	emit_stmt_end(&st, c);
	/* and after the loop, for the pass that broke */
	stamp_writes(c, c);
}

/* An expression statement; in driver code, the versions of the DDSs it
 * writes change. */
static void expr_stmt(Node *s)
{
	StmtState st;
	emit_stmt_begin(&st);
	Node *e = s->lhs;
	if (e->kind == N_ASSIGN) {
		char *dst = emit_lvalue(e->lhs);
		/* best = d where best keeps others: this worker set it. */
		if (E->loop && e->lhs->kind == N_NAME && sema_is_won(E->loop, e->lhs->sym)) {
			char *tv = emit_tv_set(e);
			emit_line(s, "sap_won_%s = true, sap_at_%s = sap_i%s%s;", e->lhs->sym->cname,
			          e->lhs->sym->cname, tv ? ", " : "", tv ? tv : "");
		}
		emit_store(e, dst, e->lhs->ty, emit_store_src(e->lhs, e->rhs), e->op);
	} else if (e->kind == N_INCDEC) {
		emit_line(s, "%s%s;", emit_lvalue(e->lhs), e->op == TK_INC ? "++" : "--");
	} else {
		char *v = emit_expr(e);
		if (strcmp(v, "(void)0"))
			emit_line(s, "%s%s;", e->ty->kind == TY_VOID || e->kind == N_CALL ? "" : "(void)", v);
	}
	emit_stmt_end(&st, s);
	if (!E->loop) {
		Vec w = {0};
		acc_dds_written(s, &w);
		emit_stamp(s, &w);
	}
}

/* A for loop: a C for when its condition and step are plain C, else a
 * loop that runs the step and the condition at the top of every pass but
 * the first, so that continue reaches them. */
/* ---- list elements known in range ----
 *
 * In  for (k = C; k < len(L); k++) body,  with C a constant >= 0, k a
 * long and L a path of names, fields and subscripts by names or
 * constants, L[k] in the body needs no check when the body changes
 * neither k nor anything L's path names: no assignment, ++, --, push,
 * insert or erase through them (but for one to a field or element that
 * holds no list), and no call of a function of the program, which could
 * reach a driver variable or a DDS.  Every value is
 * a copy (sap(7)), so no other path reaches L's list.  k then counts up
 * from C and the condition held, for the same list, just before each
 * pass.  An int k is left out: past INT_MAX it would wrap to a negative
 * index instead of ending the loop.  Slices, which may run a loop's body
 * without its condition, keep every check. */

static bool list_path(Node *e, Vec *syms)
{
	switch (e->kind) {
	case N_NAME:
		if (!e->sym || e->sym->kind != SYM_VAR)
			return false;
		vec_push(syms, e->sym);
		return true;
	case N_FIELD:
		return list_path(e->lhs, syms);
	case N_INDEX:
		if (e->rhs->kind == N_NAME && e->rhs->sym && e->rhs->sym->kind == SYM_VAR)
			vec_push(syms, e->rhs->sym);
		else if (!e->rhs->has_cval)
			return false;
		return list_path(e->lhs, syms);
	default:
		return false;
	}
}

static Sym *path_root(Node *e)
{
	while (e->kind == N_FIELD || e->kind == N_INDEX)
		e = e->lhs;
	return e->kind == N_NAME ? e->sym : NULL;
}

/* Does n change one of syms (a Vec *), or call a function of the program? */
static int changes_path(Node *n, void *arg)
{
	Vec *syms = arg;
	Node *target = NULL;
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC)
		target = n->lhs;
	else if (n->kind == N_CALL && (n->builtin == B_PUSH || n->builtin == B_INSERT ||
	                               n->builtin == B_ERASE))
		target = n->args;
	else if (n->kind == N_CALL && n->builtin == B_NONE)
		return 1;
	else if (n->kind == N_VAR || n->kind == N_ASYNC || n->kind == N_SYNC)
		for (int i = 0; i < syms->n; i++)
			if (n->sym == syms->v[i])
				return 1;
	if (!target)
		return 0;
	Sym *r = path_root(target);
	if (!r)
		return 1;
	/* A field or element that holds no list, as L[k].v = x, leaves
	 * every length and every subscript of the path alone. */
	if (n->kind != N_CALL && target->kind != N_NAME && !ty_needs_drop(target->ty))
		return 0;
	for (int i = 0; i < syms->n; i++)
		if (r == syms->v[i])
			return 1;
	return 0;
}

/* The Counted of for loop s, or NULL. */
static Counted *counted_loop(Node *s)
{
	Node *in = s->init, *c = s->cond, *st = s->step;
	if (!in || !c || !st || !s->body || emit_in_slice)
		return NULL;
	Sym *k = NULL;
	Node *from = NULL;
	if (in->kind == N_VAR) {
		k = in->sym;
		from = in->init;
	} else if (in->kind == N_EXPR && in->lhs->kind == N_ASSIGN && in->lhs->op == TK_ASSIGN &&
	           in->lhs->lhs->kind == N_NAME) {
		k = in->lhs->lhs->sym;
		from = in->lhs->rhs;
	}
	if (!k || k->kind != SYM_VAR || k->ty->kind != TY_LONG || !from || !from->has_cval || from->cval < 0)
		return NULL;
	if (c->kind != N_BINARY || c->op != TK_LT || c->lhs->kind != N_NAME || c->lhs->sym != k)
		return NULL;
	/* k < len(L), or k < n with n a local that holds len(L) (len_local). */
	Node *l = NULL;
	if (c->rhs->kind == N_CALL && c->rhs->builtin == B_LEN && c->rhs->args->ty->kind == TY_LIST)
		l = c->rhs->args;
	for (int i = E->lens.n - 1; i >= 0 && !l && c->rhs->kind == N_NAME; i--) {
		Counted *n = E->lens.v[i];
		if (n->k == c->rhs->sym)
			l = n->list;
	}
	if (!l)
		return NULL;
	bool up = (st->kind == N_INCDEC && st->op == TK_INC) ||
	          (st->kind == N_ASSIGN && st->op == TK_PLUS && st->rhs->has_cval && st->rhs->cval == 1);
	if (!up || st->lhs->kind != N_NAME || st->lhs->sym != k)
		return NULL;
	Vec syms = {0};
	vec_push(&syms, k);
	if (!list_path(l, &syms) || emit_any_node(s->body, changes_path, &syms))
		return NULL;
	Counted *ct = xcalloc(1, sizeof *ct);
	ct->k = k;
	ct->list = l;
	return ct;
}

bool emit_counted(Node *list, Node *index)
{
	if (index->kind != N_NAME || emit_in_slice)
		return false;
	for (int i = E->counted.n - 1; i >= 0; i--) {
		Counted *ct = E->counted.v[i];
		if (ct->k == index->sym && acc_same_expr(ct->list, list))
			return true;
	}
	return false;
}

/* After declaration d, long n = len(L): if no statement after it in its
 * block (function body, program) assigns n or changes L's path (its variables, its lists, or a
 * function of the program that might), n is L's length there, and a loop
 * for (k = 0; k < n; k++) counts over L (E->lens). */
static void len_local(Node *d)
{
	if (d->kind != N_VAR || emit_in_slice || !d->init || !d->sym || d->sym->kind != SYM_VAR ||
	    d->sym->ty->kind != TY_LONG || d->init->kind != N_CALL || d->init->builtin != B_LEN ||
	    d->init->args->ty->kind != TY_LIST)
		return;
	Node *l = d->init->args;
	Vec syms = {0};
	if (!list_path(l, &syms))
		return;
	for (Node *n = d->next; n; n = n->next)
		if (emit_any_node(n, assigns_sym, d->sym) || emit_any_node(n, changes_path, &syms))
			return;
	Counted *ct = xcalloc(1, sizeof *ct);
	ct->k = d->sym;
	ct->list = l;
	vec_push(&E->lens, ct);
}

/* Items of the program that are no statements of its driver code. */
static bool not_code(Node *n)
{
	return n->kind == N_STRUCT || n->kind == N_FUNC || n->kind == N_EXTERN ||
	       (n->kind == N_VAR && (n->vclass == V_PARAM || n->vclass == V_CONST));
}

/* The statements of a block, a function's body or the program from
 * first, those skip says yes to left out. */
static void emit_stmts(Node *first, bool (*skip)(Node *))
{
	int nl = E->lens.n;
	Scope *sc = E->scope;
	Node *was_first = sc->first, *was_cur = sc->cur;
	sc->first = first;
	for (Node *n = first; n; n = n->next) {
		if (skip && skip(n))
			continue;
		sc->cur = n;
		emit_stmt(n);
		len_local(n);
	}
	sc->first = was_first;
	sc->cur = was_cur;
	E->lens.n = nl;
}

static int counts_sym(Node *n, void *arg)
{
	void **a = arg;
	if (n->kind == N_NAME && n->sym == a[0])
		(*(int *)a[1])++;
	return 0;
}

static int is_node(Node *n, void *arg)
{
	return n == arg;
}

/* Does e lie in a part of n that can run more than once: a loop's
 * condition, step or body (a for's init runs once)? */
static bool repeats(Node *n, Node *e)
{
	if (n->kind == N_FOR || n->kind == N_WHILE || n->kind == N_DO || n->kind == N_ASYNC ||
	    n->kind == N_SYNC)
		return emit_any_node(n->cond, is_node, e) || emit_any_node(n->step, is_node, e) ||
		       emit_any_node(n->body, is_node, e) || (n->init && repeats(n->init, e));
	Node *kids[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->step, n->body, n->size};
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (kids[i] && repeats(kids[i], e))
			return true;
	for (Node *a = n->args; a; a = a->next)
		if (repeats(a, e))
			return true;
	for (Node *a = n->clauses; a; a = a->next)
		if (repeats(a, e))
			return true;
	return false;
}

/* Is e, the name of a local that owns lists, used for the last time
 * here: named once in the statement being written, by e, and in no
 * statement after it up to the block that declares it, with no loop
 * between that could run this statement again?  Its value can then move
 * where a copy and a drop of the local would go: a body that builds a
 * neighbour list and stores it in a vector's element spent 11 % of its
 * time copying the list and more on malloc and free. */
bool emit_last_use(Node *e)
{
	Sym *v = e->sym;
	if (e->kind != N_NAME || !v || v->kind != SYM_VAR || v->vclass != V_LOCAL || v->is_driver ||
	    v->by_ref || v->lazy || v->borrowed || v->viewed || v->readonly || !ty_needs_drop(e->ty))
		return false;
	Scope *s = E->scope;
	while (s && !s->cur)
		s = s->up;
	if (!s || !emit_any_node(s->cur, is_node, e) || repeats(s->cur, e))
		return false;
	int n = 0;
	void *arg[2] = {v, &n};
	emit_any_node(s->cur, counts_sym, arg);
	if (n != 1)
		return false;
	for (s = E->scope; s; s = s->up) {
		if (s->cur) {
			for (Node *r = s->cur->next; r; r = r->next)
				if (emit_any_node(r, names_sym, v))
					return false;
			for (Node *d = s->first; d && d != s->cur; d = d->next)
				if (d->kind == N_VAR && d->sym == v)
					return true;
		}
		if (s->loop || s->func)
			return false;
	}
	return false;
}

/* ---- subscripts affine in a for loop's counter ---- */

static int declares_sym(Node *n, void *s)
{
	return n->kind == N_VAR && n->sym == s;
}

/* e, free of the counter j, has the same value before the loop as in
 * every pass of it, and computing it early can stop nothing: numbers,
 * and int or long variables that body neither declares nor assigns,
 * under + - *. */
static bool invariant(Node *e, Node *body, Sym *j)
{
	switch (e->kind) {
	case N_INT:
		return true;
	case N_NAME: {
		Sym *v = e->sym;
		return v != j && v->kind == SYM_VAR && ty_is_int(v->ty) &&
		       !emit_any_node(body, assigns_sym, v) && !emit_any_node(body, declares_sym, v);
	}
	case N_BINARY:
		return (e->op == TK_PLUS || e->op == TK_MINUS || e->op == TK_STAR) && ty_is_int(e->ty) &&
		       invariant(e->lhs, body, j) && invariant(e->rhs, body, j);
	case N_UNARY:
		return e->op == TK_MINUS && ty_is_int(e->ty) && invariant(e->lhs, body, j);
	default:
		return false;
	}
}

/* Key e as a * j + b in C, a and b invariant.  Every operation on j is
 * on longs, so that the key is the line it looks like: an int sum would
 * wrap.  The C of a and b may wrap too; the keys are then what they are
 * modulo 2^64, and sap_affine_in's ends, when they fit, are the keys. */
static bool affine_in(Node *e, Node *body, Sym *j, char **a, char **b)
{
	if (!emit_any_node(e, names_sym, j)) {
		if (!invariant(e, body, j))
			return false;
		*a = "0";
		*b = format("(int64_t)(%s)", emit_expr(e));
		return true;
	}
	if (e->kind == N_NAME) {
		*a = "1";
		*b = "0";
		return true;
	}
	if (e->ty->kind != TY_LONG)
		return false;
	char *a1, *b1, *a2, *b2;
	switch (e->kind) {
	case N_CONV:
		return ty_is_int(e->lhs->ty) && affine_in(e->lhs, body, j, a, b);
	case N_UNARY:
		if (e->op != TK_MINUS || !affine_in(e->lhs, body, j, &a1, &b1))
			return false;
		*a = format("(-%s)", a1);
		*b = format("(-%s)", b1);
		return true;
	case N_BINARY: {
		if (!affine_in(e->lhs, body, j, &a1, &b1) || !affine_in(e->rhs, body, j, &a2, &b2))
			return false;
		if (e->op == TK_PLUS || e->op == TK_MINUS) {
			const char *op = e->op == TK_PLUS ? "+" : "-";
			*a = format("(%s %s %s)", a1, op, a2);
			*b = format("(%s %s %s)", b1, op, b2);
			return true;
		}
		bool left_free = !emit_any_node(e->lhs, names_sym, j);
		if (e->op != TK_STAR || (!left_free && emit_any_node(e->rhs, names_sym, j)))
			return false;
		char *f = left_free ? b1 : b2;
		*a = format("(%s * %s)", f, left_free ? a2 : a1);
		*b = format("(%s * %s)", f, left_free ? b2 : b1);
		return true;
	}
	default:
		return false;
	}
}

typedef struct RangeScan {
	Sym *j;
	Node *body;
	const char *lo, *hi;
	bool fixed;             /* the loop's start and end are constants */
	Buf guard;
	Vec keys;
} RangeScan;

static int names_other(Node *n, void *j)
{
	return n->kind == N_NAME && n->sym != j && !n->has_cval;
}

/* The subscripts of arrays, and in a loop body of dvectors, whose keys
 * are affine in the counter: their range test, and them. */
static int range_scan(Node *n, void *arg)
{
	RangeScan *r = arg;
	/* A parallel loop's body and slice are C functions of their own,
	 * where the flag is not: their subscripts are tested there. */
	if (n->kind == N_ASYNC || n->kind == N_SYNC)
		return -1;
	if (n->kind != N_INDEX)
		return 0;
	Type *bt = n->lhs->ty;
	char *len, *a, *b;
	/* With constant ends and a constant line, cc proves an array key in
	 * range by itself, before it unrolls the loop; the flag, folded only
	 * later, left SGDMF's K = 16 loops half-vectorised and its
	 * two-thread step 1.7x slower. */
	if (bt->kind == TY_ARRAY && r->fixed && !emit_any_node(n->rhs, names_other, r->j))
		return 0;
	if (bt->kind == TY_ARRAY)
		len = format("%lld", (long long)bt->len);
	else if (bt->kind == TY_DVEC && n->lhs->kind == N_NAME && (E->loop || E->drv_fast))
		len = format("%s.n", n->lhs->sym->cname);
	else
		return 0;
	if (!emit_any_node(n->rhs, names_sym, r->j) || !affine_in(n->rhs, r->body, r->j, &a, &b))
		return 0;
	buf_printf(&r->guard, " && sap_affine_in(%s, %s, %s, %s, %s)", a, b, r->lo, r->hi, len);
	vec_push(&r->keys, n->rhs);
	return 0;
}

/* for (j = lo; j < hi; j++ or j += c), j an int or long that only the
 * step changes, hi invariant: the keys affine in j of its body are
 * tested at both ends once, before the first pass (the counter's value
 * then is lo), and pass without a test of their own when they are in
 * range (E->ranged): a stencil's u[i * n + j - 1] was four tests a
 * point, and no vector code. */
static void ranged_loop(Node *s)
{
	Node *c = s->cond, *st = s->step;
	if (emit_in_slice || !c || !st || !s->body || c->kind != N_BINARY || c->op != TK_LT ||
	    c->lhs->kind != N_NAME)
		return;
	Sym *j = c->lhs->sym;
	int64_t step = 1;
	/* The step's kind first: a step such as `k` or `f(k)` has no lhs. */
	if (!ty_is_int(j->ty) ||
	    !((st->kind == N_INCDEC && st->op == TK_INC) ||
	      (st->kind == N_ASSIGN && st->op == TK_PLUS && st->rhs->has_cval && (step = st->rhs->cval) >= 1)) ||
	    st->lhs->kind != N_NAME || st->lhs->sym != j ||
	    emit_any_node(s->body, assigns_sym, j) || !invariant(c->rhs, s->body, j))
		return;
	RangeScan r = {.j = j, .body = s->body, .lo = j->cname};
	int64_t v;
	Node *in = s->init;
	r.fixed = emit_const_val(c->rhs, &v) && in &&
	          ((in->kind == N_VAR && in->sym == j && in->init && emit_const_val(in->init, &v)) ||
	           (in->kind == N_EXPR && in->lhs->kind == N_ASSIGN && in->lhs->op == TK_ASSIGN &&
	            in->lhs->lhs->kind == N_NAME && in->lhs->lhs->sym == j && emit_const_val(in->lhs->rhs, &v)));
	r.hi = format("(int64_t)(%s)", emit_expr(c->rhs));
	buf_puts(&r.guard, "");
	emit_any_node(s->body, range_scan, &r);
	if (!r.keys.n)
		return;
	/* An end below the largest counter less the step keeps the counter
	 * from wrapping round to keys below lo: only a step above 1, or an
	 * int counter under a long end, needs the test. */
	char *flag = emit_tmp("in");
	const char *wrap = step > 1 || (j->ty->kind == TY_INT && c->rhs->ty->kind == TY_LONG) ?
	                   format("%s <= %s - %lld", r.hi, j->ty->kind == TY_INT ? "INT32_MAX" : "INT64_MAX",
	                          (long long)(step - 1)) : "true";
	emit_line(s, "const bool %s = %s%s;", flag, wrap, r.guard.s);
	emit_line(s, "(void)%s;", flag);
	for (int i = 0; i < r.keys.n; i++) {
		Ranged *g = xcalloc(1, sizeof *g);
		g->key = r.keys.v[i];
		g->flag = flag;
		vec_push(&E->ranged, g);
	}
}

const char *emit_ranged(Node *key)
{
	for (int i = E->ranged.n - 1; i >= 0; i--) {
		Ranged *g = E->ranged.v[i];
		if (g->key == key)
			return g->flag;
	}
	return NULL;
}

/* A for loop's body, with its L[k] known in range if it counts over L. */
static void counted_body(Node *s)
{
	Counted *ct = counted_loop(s);
	if (ct)
		vec_push(&E->counted, ct);
	loop_body(s);
	if (ct)
		E->counted.n--;
}

static int is_parallel(Node *n, void *arg)
{
	(void)arg;
	return n->kind == N_ASYNC || n->kind == N_SYNC;
}

/* In loop s's condition, a count(m, k) of a map, or a len(m[k]) of a
 * multimap, with a key s cannot change and a map it does not write: where
 * it is, to be computed once, before the first pass.  A DBSCAN's
 * for (j = 0; j < count(grid, k); j++) ... grid[k][j] looked the key up
 * twice a pass, twice the time of the loop with the count hoisted. */
static Node **hoistable_count(Node *s)
{
	Node *c = s->cond;
	if (!c || c->kind != N_BINARY ||
	    (c->op != TK_LT && c->op != TK_LE && c->op != TK_GT && c->op != TK_GE && c->op != TK_NE))
		return NULL;
	Node **side[2] = { &c->rhs, &c->lhs };
	for (int i = 0; i < 2; i++) {
		Node *e = *side[i], *m = NULL, *k = NULL;
		if (e->kind == N_CALL && e->builtin == B_COUNT && e->args && e->args->next) {
			m = e->args;
			k = e->args->next;
		} else if (e->kind == N_CALL && e->builtin == B_LEN && e->args &&
		           e->args->kind == N_INDEX && e->args->lhs->ty->kind == TY_DMMAP) {
			m = e->args->lhs;
			k = e->args->rhs;
		}
		if (m && m->kind == N_NAME && m->sym && ty_is_dds(m->ty) && invariant_key(k, s) &&
		    !stmt_assigns(s->body, m->sym) && !assigned_in(s->step, m->sym))
			return side[i];
	}
	return NULL;
}

static void for_stmt(Node *s)
{
	/* A resumed run jumps to the checkpoint after a parallel loop in
	 * the body, past what runs before the first pass: no key is tested
	 * or element found there once for all passes. */
	bool resumes = !E->loop && emit_any_node(s->body, is_parallel, NULL);
	emit_line(s, "{");
	E->indent++;
	emit_push_scope(false, false);
	if (s->init)
		emit_stmt(s->init);
	Node **hp = !resumes ? hoistable_count(s) : NULL, *hc = hp ? *hp : NULL;
	if (hp) {
		char *t = emit_tmp("n");
		StmtState hs;
		emit_stmt_begin(&hs);
		emit_line(s, "%s %s = %s;", emit_ctype(hc->ty), t, emit_expr(hc));
		emit_stmt_end(&hs, s);
		*hp = emit_temp_node(hc, t);
	}
	if ((!s->cond || plain_expr(s->cond, NULL)) && (!s->step || plain_expr(s->step, NULL)) &&
	    !writes_dds(s->cond) && !writes_dds(s->step)) {
		/* The common case stays a C for loop, which cc vectorises. */
		char *c = s->cond ? emit_test(s->cond) : "";
		char *st = "";
		if (s->step) {
			Node *x = s->step;
			if (x->kind == N_INCDEC)
				st = format("%s%s", emit_lvalue(x->lhs), x->op == TK_INC ? "++" : "--");
			else if (x->kind == N_ASSIGN || (x->kind == N_CALL && x->ty->kind == TY_VOID))
				st = emit_expr(x);
			else    /* `k` for `k++`: sapc has said so (-Wunused-value) */
				st = format("(void)(%s)", emit_expr(x));
		}
		int nh = E->hoisted.n;
		if (s->cond && !resumes)
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
		int nr = E->ranged.n;
		if (!resumes)
			ranged_loop(s);
		emit_line(s, "for (; %s; %s) {", c, st);
		E->indent++;
		counted_body(s);
		E->ranged.n = nr;
		if (E->hoisted.n > nh) {
			for (int i = nh; i < E->hoisted.n; i++) {
				Hoist *h = E->hoisted.v[i];
				if (h->drop)
					emit_line(s, "%s", h->drop);
			}
			E->hoisted.n = nh;
			E->indent--;
			emit_line(s, "}");
		}
		emit_pop_scope(s);
		E->indent--;
		emit_line(s, "}");
		if (hp)
			*hp = hc;
		return;
	}
	char *first = emit_tmp("first");
	emit_line(s, "for (bool %s = true;; %s = false) {", first, first);
	E->indent++;
	if (s->step) {
		emit_line(s, "if (!%s) {", first);
		E->indent++;
		Node es = {.kind = N_EXPR, .file = s->step->file, .off = s->step->off, .lhs = s->step};
		emit_stmt(&es);
		E->indent--;
		emit_line(s, "}");
	} else {
		emit_line(s, "(void)%s;", first);
	}
	if (s->cond)
		emit_loop_cond(s->cond);
	counted_body(s);
	emit_pop_scope(s);
	E->indent--;
	emit_line(s, "}");
	if (hp)
		*hp = hc;
	stamp_writes(s, s->cond);
}

/* The result type of the function being written, for its returns. */
static Type *ret_type;

/* Does `return e` give the caller a local of the function by name, which
 * nothing uses after: its value moves out, where a copy and a drop of
 * the local cost a merge sort that returns the list it built a copy of
 * every list at every level (3x the C twin's time). */
static bool moved_out(Node *e, Type *rt)
{
	return e->kind == N_NAME && e->sym->vclass == V_LOCAL && !e->sym->is_driver &&
	       !e->sym->by_ref && !e->sym->lazy && !e->sym->borrowed && !e->sym->viewed &&
	       ty_needs_drop(e->ty) &&
	       e->ty == rt;
}

/* Does n keep a driver loop from stamping the DDSs it writes once, after
 * it: a parallel loop, a return past the stamps, or a builtin that works
 * on whole DDSs (save, dot of vectors, keys ...), any of which may go by
 * their versions.  Not a call of the program's functions, which see no
 * DDS nor driver variable and run no parallel loop (sap(7)): min3() in
 * an edit distance's cells kept the loop slow, 3.6 times its C twin. */
static int stamp_blocker(Node *n, void *arg)
{
	(void)arg;
	switch (n->kind) {
	case N_ASYNC: case N_SYNC: case N_RETURN:
		return 1;
	case N_CALL:
		switch (n->builtin) {
		case B_NONE:
			return 0;
		case B_LEN: case B_PUSH: case B_INSERT: case B_CONTAINS: case B_COUNT: case B_ERASE:
		case B_GET: case B_MIN: case B_MAX: case B_ABS: case B_RAND: case B_RAND_INT:
		case B_RAND_NORMAL: case B_PRINT: case B_TOKENS: case B_FAST_SIGMOID: case B_WTIME:
		case B_RANKS: case B_THREADS: case B_SPLIT: case B_FIELDS: case B_TO_INT:
		case B_TO_LONG: case B_TO_FLOAT: case B_TO_DOUBLE:
			return 0;
		default:
			return 1;
		}
	default:
		return 0;
	}
}

/* The dvectors n indexes by name, into the Vec at arg. */
static int indexed_dvec(Node *n, void *arg)
{
	if (n->kind == N_INDEX && n->lhs->kind == N_NAME && n->lhs->ty->kind == TY_DVEC)
		acc_add_sym(arg, n->lhs->sym);
	return 0;
}

/* s written with its stamps collected in w, its vectors indexed as
 * sap_dv_ixdf says for fast (or as sap_dv_ixd for NULL). */
static void stamped_loop(Node *s, Vec *w, const char *fast)
{
	Vec *ow = E->stamps;
	const char *of = E->drv_fast;
	Node *on = E->stamp_loop;
	int nr = E->renamed.n;
	E->stamps = w;
	E->drv_fast = fast;
	E->stamp_loop = s;
	if (s->kind == N_FOR)
		for_stmt(s);
	else
		emit_stmt(s);
	E->stamps = ow;
	E->drv_fast = of;
	E->stamp_loop = on;
	/* Its locals' names back to the statics'. */
	for (int i = E->renamed.n - 2; i >= nr; i -= 2)
		((Sym *)E->renamed.v[i])->cname = E->renamed.v[i + 1];
	E->renamed.n = nr;
}

/* No holder map can appear in such a loop: the vectors it indexes, dv,
 * are tested once, before it, for one, and where there is none (one
 * rank, or vectors made whole) the loop runs a copy where their elements
 * are plain C arrays (sap_dv_ixdf), their keys tested once where the loop
 * counts over them (ranged_loop): a prefix sum ran at 4 times its C
 * twin's time, then at its time.  Two copies: cc would not unswitch the
 * loop on a flag whose other side calls out (sap_dv_fetch_one). */
static void both_copies(Node *s, Vec *w, const Vec *dv)
{
	Buf c = {0};
	buf_puts(&c, "");
	for (int i = 0; i < dv->n; i++)
		buf_printf(&c, "%s!%s.holder", i ? " && " : "", ((Sym *)dv->v[i])->cname);
	emit_line(s, "if (%s) {", c.s);
	E->indent++;
	stamped_loop(s, w, "true");
	E->indent--;
	emit_line(s, "} else {");
	E->indent++;
	stamped_loop(s, w, NULL);
	E->indent--;
	emit_line(s, "}");
}

static int is_seq_loop(Node *n, void *arg)
{
	(void)arg;
	return n->kind == N_FOR || n->kind == N_WHILE || n->kind == N_DO;
}

/* A driver loop s (for, while, do) whose statements write DDS elements
 * stamped each write with a new version: an atomic counter's call that
 * made every global reload, 8 times a prefix sum's C time.  Where
 * nothing in it can look at versions (stamp_blocker), it is written
 * with its stamps collected, then stamped once after it: true when
 * done so.  Inside the copy of such a loop that found a holder map, an
 * innermost loop tests again at each pass of the loops around it: a
 * parallel loop's output, made whole by the first pass's fetches, ran
 * the slow copy for every pass after it too. */
static bool stamps_after(Node *s)
{
	if (E->loop || s == E->stamp_loop)
		return false;
	Vec dv = {0};
	if (E->stamps) {
		if (E->drv_fast || emit_any_node(s->body, is_seq_loop, NULL))
			return false;
		emit_any_node(s, indexed_dvec, &dv);
		if (!dv.n)
			return false;
		both_copies(s, E->stamps, &dv);
		return true;
	}
	if (emit_any_node(s, stamp_blocker, NULL))
		return false;
	Vec w = {0};
	emit_any_node(s, indexed_dvec, &dv);
	if (dv.n)
		both_copies(s, &w, &dv);
	else
		stamped_loop(s, &w, NULL);
	emit_stamp(s, &w);
	return true;
}

void emit_stmt(Node *s)
{
	StmtState st;
	switch (s->kind) {
	case N_BLOCK: {
		emit_line(s, "{");
		E->indent++;
		emit_push_scope(false, false);
		emit_stmts(s->args, NULL);
		emit_pop_scope(s);
		E->indent--;
		emit_line(s, "}");
		return;
	}
	case N_VAR:
		var_decl(s);
		stamp_writes(s, s->size);
		stamp_writes(s, s->init);
		return;
	case N_EXPR:
		expr_stmt(s);
		return;
	case N_EMPTY:
		return;
	case N_IF: {
		emit_stmt_begin(&st);
		char *c = emit_settle(s->cond, &st, "bool");
		emit_stmt_end(&st, s);
		if (writes_dds(s->cond)) {
			char *t = emit_tmp("cond");
			emit_line(s, "bool %s = %s;", t, c);
			stamp_writes(s, s->cond);
			c = t;
		}
		emit_line(s, "if (%s)", c);
		emit_body(s->then);
		if (s->els) {
			emit_line(s, "else");
			emit_body(s->els);
		}
		return;
	}
	case N_WHILE:
		if (stamps_after(s))
			return;
		if (plain_expr(s->cond, NULL) && !writes_dds(s->cond)) {
			emit_line(s, "while (%s) {", emit_test(s->cond));
			E->indent++;
			loop_body(s);
			return;
		}
		emit_line(s, "for (;;) {");
		E->indent++;
		emit_loop_cond(s->cond);
		loop_body(s);
		stamp_writes(s, s->cond);
		return;
	case N_DO: {
		if (stamps_after(s))
			return;
		/* The condition runs at the top of every pass but the first, so
		 * continue reaches it. */
		char *first = emit_tmp("first");
		emit_line(s, "for (bool %s = true;; %s = false) {", first, first);
		E->indent++;
		emit_line(s, "if (!%s) {", first);
		E->indent++;
		emit_loop_cond(s->cond);
		E->indent--;
		emit_line(s, "}");
		loop_body(s);
		stamp_writes(s, s->cond);
		return;
	}
	case N_FOR:
		if (!stamps_after(s))
			for_stmt(s);
		return;
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
		emit_stmt_begin(&st);
		Type *rt = s->lhs->ty;
		char *v;
		Sym *mv = NULL;
		if (rt->kind == TY_ARRAY && ret_type && rt != ret_type) {
			v = emit_converted(s->lhs, ret_type, s->lhs);
			rt = ret_type;
		} else if (moved_out(s->lhs, ret_type)) {
			mv = s->lhs->sym;
			v = emit_expr(s->lhs);
		} else {
			v = emit_owned(s->lhs);
		}
		char *t = emit_tmp("ret");
		emit_line(s, "%s %s = %s;", emit_ctype(rt), t, v);
		/* Moved: the drops below find it empty. */
		if (mv)
			emit_line(s, "memset(&%s, 0, sizeof %s);", mv->cname, mv->cname);
		emit_stmt_end(&st, s);
		drops_until(s, true);
		emit_line(s, "return %s;", t);
		return;
	}
	case N_ASYNC:
	case N_SYNC:
		emit_parallel(s);
		if (E->main_code)
			emit_resume_point(s);
		return;
	default:
		return;
	}
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

static int calls_function(Node *n, void *unused)
{
	(void)unused;
	return n->kind == N_CALL && !n->builtin;
}

/* A function named other than in a call: a reduce's or merge's, which
 * the runtime's glue calls with values. */
static int names_function(Node *n, void *out)
{
	if (n->kind != N_CALL && n->kind != N_FUNC && n->kind != N_EXTERN && n->sym &&
	    n->sym->kind == SYM_FUNC)
		vec_push(out, n->sym);
	return 0;
}

/* A function that calls no other takes the arrays and structs of numbers
 * it never writes by address (by_ref: read as (*name_p)), not as copies:
 * k-means's dist2(P[i].x, C[c]) copied 128 bytes a call, which gcc kept
 * after inlining (a copy indexed by a loop's variable), nearly half of
 * the loop's time.  Only a leaf: a function it passed the address on to
 * could be a C function writing through it. */
static void params_by_address(Program *p)
{
	Vec named = {0};
	for (Node *f = p->items; f; f = f->next)
		emit_any_node(f, names_function, &named);
	for (Node *f = p->items; f; f = f->next) {
		bool escapes = false;
		for (int i = 0; i < named.n && f->kind == N_FUNC; i++)
			escapes |= named.v[i] == f->sym;
		if (f->kind != N_FUNC || escapes || emit_any_node(f->body, calls_function, NULL))
			continue;
		for (Node *a = f->args; a; a = a->next) {
			Type *t = a->sym->ty;
			a->sym->by_ref = !a->sym->modified && !ty_needs_drop(t) &&
			                 (t->kind == TY_ARRAY || t->kind == TY_STRUCT);
		}
	}
}

static char *signature(Node *f)
{
	Sym *s = f->sym;
	Buf b = {0};
	/* (isnan)(...): a C function that a header also defines as a macro
	 * is declared and called as the function. */
	buf_printf(&b, s->is_extern ? "%s (%s)(" : "%s %s(",
	           s->is_extern && s->ty->kind == TY_STRING ? "const char *" : emit_ctype(s->ty), s->cname);
	if (!f->args)
		buf_puts(&b, "void");
	for (Node *p = f->args; p; p = p->next)
		buf_printf(&b, p->sym->by_ref ? "%sconst %s *%s_p" : "%s%s %s",
		           p == f->args ? "" : ", ", param_ctype(s, p->sym->ty), p->sym->cname);
	buf_puts(&b, ")");
	return b.s;
}

/* Is extern f one of C's functions whose result is exact (correctly
 * rounded or no rounding at all), declared by the prelude?  Then gcc's
 * built-in may do it inline: fabs through its asm name was a call that
 * kept a stencil's sum in memory across it, 2.3 times C's time.  Not
 * fmin and fmax, whose arguments gcc's built-ins may swap, which picks
 * the other of -0.0 and 0.0. */
static bool exact_builtin(Node *f)
{
	static const struct { const char *name; int kind, nargs; } exact[] = {
		{"fabs", TY_DOUBLE, 1}, {"floor", TY_DOUBLE, 1}, {"ceil", TY_DOUBLE, 1},
		{"trunc", TY_DOUBLE, 1}, {"round", TY_DOUBLE, 1}, {"sqrt", TY_DOUBLE, 1},
		{"copysign", TY_DOUBLE, 2}, {"fabsf", TY_FLOAT, 1}, {"floorf", TY_FLOAT, 1},
		{"ceilf", TY_FLOAT, 1}, {"roundf", TY_FLOAT, 1}, {"sqrtf", TY_FLOAT, 1},
	};
	/* The prelude's: a program's own declaration may be of its own
	 * C function of that name, which it links to. */
	Sym *s = f->sym;
	if (E->prog->files.n < 2 || f->file != E->prog->files.v[0])
		return false;
	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++) {
		if (strcmp(s->name, exact[i].name) || (int)s->ty->kind != exact[i].kind)
			continue;
		int n = 0;
		for (Node *p = f->args; p; p = p->next, n++)
			if ((int)p->sym->ty->kind != exact[i].kind || p->sym->by_ref)
				return false;
		return n == exact[i].nargs;
	}
	return false;
}

/* The call of C's macro in the wrapper of extern f (sema's c_macro), or
 * of gcc's built-in (exact_builtin). */
static char *macro_call(Node *f)
{
	Buf b = {0};
	buf_printf(&b, "%s%s(", f->sym->c_macro ? "" : "__builtin_", f->sym->name);
	for (Node *p = f->args; p; p = p->next)
		buf_printf(&b, "%s%s", p == f->args ? "" : ", ", p->sym->cname);
	buf_puts(&b, ")");
	return b.s;
}

/* The callee of call c, a function of the program, or NULL. */
static Sym *callee(Node *c)
{
	while (c->kind == N_CONV)
		c = c->lhs;
	return c->sym && c->sym->kind == SYM_FUNC ? c->sym : NULL;
}

/* Mark the functions that reach themselves by their calls: the strongly
 * connected components of the call graph of more than one, or with a
 * call of itself (Tarjan's search, without recursion: a chain of 100000
 * calls).  A search from each function was quadratic there. */
static void find_recursive(Program *p)
{
	int next = 1;
	for (Node *it = p->items; it; it = it->next)
		if (it->kind == N_FUNC && it->sym)
			it->sym->scc_index = it->sym->scc_low = 0;
	Vec stack = {0}, work = {0}, at = {0};
	for (Node *it = p->items; it; it = it->next) {
		Sym *root = it->kind == N_FUNC ? it->sym : NULL;
		if (!root || root->scc_index)
			continue;
		vec_push(&work, root);
		vec_push(&at, (void *)(intptr_t)0);
		root->scc_index = root->scc_low = next++;
		vec_push(&stack, root);
		while (work.n) {
			Sym *f = work.v[work.n - 1];
			intptr_t k = (intptr_t)at.v[at.n - 1];
			if (k < f->calls.n) {
				at.v[at.n - 1] = (void *)(k + 1);
				Sym *g = callee(f->calls.v[k]);
				if (!g)
					continue;
				if (g == f)
					f->recursive = true;
				if (!g->scc_index) {
					g->scc_index = g->scc_low = next++;
					vec_push(&stack, g);
					vec_push(&work, g);
					vec_push(&at, (void *)(intptr_t)0);
				} else if (g->scc_index > 0 && g->scc_index < f->scc_low) {
					f->scc_low = g->scc_index;
				}
				continue;
			}
			work.n--;
			at.n--;
			if (work.n) {
				Sym *up = work.v[work.n - 1];
				if (f->scc_low < up->scc_low)
					up->scc_low = f->scc_low;
			}
			if (f->scc_low != f->scc_index)
				continue;
			/* f roots a component: popped, and marked done (-1). */
			int size = 0;
			Sym *g;
			do {
				g = stack.v[--stack.n];
				g->scc_index = -1;
				size++;
			} while (g != f);
			if (size > 1)
				for (int j = stack.n + size - 1; j >= stack.n; j--)
					((Sym *)stack.v[j])->recursive = true;
		}
	}
}

static void function(Node *f)
{
	ret_type = f->sym->ty;
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
		emit_line(f, a->sym->by_ref ? "(void)%s_p;" : "(void)%s;", a->sym->cname);
	/* A function that calls itself, which a stack overflow names: a
	 * recursion 3 million deep said only "a recursion too deep". */
	if (f->sym->recursive) {
		const char *name = sema_S(f->name);
		emit_line(f, "static const sap_recur sap_rc = {%s, %s};", emit_cstr(name, strlen(name)),
		          emit_site(f));
		emit_line(f, "sap_recur_at = &sap_rc;");
	}
	emit_push_scope(false, true);
	emit_stmts(f->body->args, NULL);
	emit_pop_scope(f);
	/* sema found that every path returns (a do body that returns, say),
	 * which gcc cannot always see through the loop's C. */
	if (f->sym->ty->kind != TY_VOID)
		emit_line(f, "sap_fatal(NULL, \"the end of function '%s' was reached\");", sema_S(f->name));
	E->indent = 0;
	emit_line(f, "}");
	ret_type = NULL;
	buf_puts(&fb, "\n");
	buf_puts(&E->funcs, fb.s);
}

/* Everything else the program needs is in sap.h, the helpers of its
 * arithmetic included (static inline there, where the unit tests reach
 * them).  Driver variables are file-scope statics in the C, whatever
 * block of driver code declares them, and a reduction's private copy
 * takes its variable's name, so -Wshadow (which a user may pass) would
 * find shadows that the SAP program does not have.  A program sapc
 * accepted compiles under -Werror: gcc's judgements of its comparisons
 * ((k & 4) == 3, an int against 2147483647L, 127 <= int(a < b)) and of
 * ~ on a converted bool are about types that SAP does not give those
 * expressions; a function that calls itself on every path is the
 * program's, as it would be in C without -Werror, and runs until it
 * exhausts the stack (gcc 12 and later know the warning).  Every
 * subscript the C makes is checked or proven in range, and gcc 12's
 * -Warray-bounds and -Wstringop-overflow see paths its own inlining
 * made up (subscript -1 of a row of a lazily zeroed local array, after
 * sap_check_index said 0 <= k < 256): only false alarms, at .sap lines.
 * Under -fwrapv an inner loop that never runs (j from i + 1 while
 * j < i) would run from INT64_MIN if i + 1 wrapped, and gcc warns that
 * its subscripts overflow there; i never reaches INT64_MAX (clang knows
 * no such warning and would complain of the pragma). */
static const char *prelude =
	"/* Generated by sapc from %s. */\n"
	"#include \"sap.h\"\n"
	"#pragma GCC diagnostic ignored \"-Wshadow\"\n"
	"#pragma GCC diagnostic ignored \"-Wtype-limits\"\n"
	"#pragma GCC diagnostic ignored \"-Wtautological-compare\"\n"
	"#pragma GCC diagnostic ignored \"-Wbool-operation\"\n"
	"#pragma GCC diagnostic ignored \"-Wbool-compare\"\n"
	"#pragma GCC diagnostic ignored \"-Warray-bounds\"\n"
	"#ifndef __clang__\n"
	"#pragma GCC diagnostic ignored \"-Waggressive-loop-optimizations\"\n"
	"#endif\n"
	"#if __GNUC__ >= 12\n"
	"#pragma GCC diagnostic ignored \"-Winfinite-recursion\"\n"
	"#pragma GCC diagnostic ignored \"-Wstringop-overflow\"\n"
	"#endif\n\n";

/* The source's name as comment text: a "*" "/" in it would end the
 * comment, a newline break it. */
static char *comment_text(const char *s)
{
	Buf b = {0};
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		buf_putc(&b, c < 0x20 || c == 0x7f ? '?' : c);
		if (c == '*' && s[1] == '/')
			buf_putc(&b, '\\');
	}
	return b.s ? b.s : "";
}

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
	emit_stable_done = emit_stable_modes = (Map){0};  /* their memory went with the last program's */
	emit_spec_open = (Vec){0};
	emit_slice_depth = 0;
	emit_slice_volatile = false;
	E->prog = p;
	E->opts = o;
	emit_value_ranges(p);
	params_by_address(p);
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
		else if (n->kind == N_EXTERN && n->sym->used && n->sym->c_macro)
			buf_printf(&E->protos, "static %s { return %s; }\n", signature(n),
			           macro_call(n));
		else if (n->kind == N_EXTERN && n->sym->used && exact_builtin(n))
			buf_printf(&E->protos, "static inline %s { return %s; }\n", signature(n),
			           macro_call(n));
		else if (n->kind == N_EXTERN && n->sym->used)
			buf_printf(&E->protos, "extern %s SAP_LINK_NAME(\"%s\");\n", signature(n),
			           n->sym->name);
	}
	emit_params(p, progname);

	/* Functions. */
	find_recursive(p);
	for (Node *n = p->items; n; n = n->next)
		if (n->kind == N_FUNC && used_function(n))
			function(n);

	/* Driver code: main, with every driver variable a static. */
	E->out = &E->main;
	E->indent = 0;
	E->scope = NULL;
	/* Driver code that stores wider values in floats is built without
	 * SLP (main.c says why); the loops' bodies keep theirs. */
	if (o->driver_no_slp)
		buf_puts(&E->main, "#if defined __GNUC__ && !defined __clang__\n"
		         "__attribute__((optimize(\"no-tree-slp-vectorize\")))\n#endif\n");
	buf_puts(&E->main, "static int sap_main_program(int argc, char **argv)\n{\n");
	E->indent = 1;
	buf_puts(&E->main, "\tsap_init(&argc, &argv, &sap_prog);\n");
	check_outputs(p->items);
	size_t body_at = E->main.len;
	emit_push_scope(false, true);
	E->main_code = true;
	emit_stmts(p->items, not_code);
	E->main_code = false;
	emit_pop_scope(NULL);
	buf_puts(&E->main, "\treturn sap_finalize();\n}\n");
	/* --resume goes to where the checkpoint was taken, past what ran
	 * before it. */
	Buf m = {0};
	buf_printf(&m, "%.*s%s%s", (int)body_at, E->main.s, emit_resume_switch(), E->main.s + body_at);
	E->main = m;
	emit_state_fn();

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
		if (s->vclass == V_PARAM)
			buf_printf(&consts, "static %s %s = %s%s;\n", emit_ctype(s->ty), s->cname,
			           s->ty->kind == TY_FLOAT || s->ty->kind == TY_INT ?
			           format("(%s)", emit_ctype(s->ty)) : "", emit_expr(n->init));
	}
	/* Every const of the driver, also those of its blocks (var_decl
	 * leaves them here). */
	Vec dconsts = {0};
	sema_driver_vars(&dconsts);
	for (int i = 0; i < dconsts.n; i++) {
		Sym *s = dconsts.v[i];
		if (s->vclass == V_CONST && s->used)
			buf_printf(&consts, "static const %s %s __attribute__((unused)) = %s;\n",
			           emit_ctype(s->ty), s->cname, emit_expr(s->decl->init));
	}
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
		/* Unused where a driver loop has a local instead (var_decl). */
		buf_printf(&dv, "static %s %s __attribute__((unused));\n", emit_ctype(s->ty), s->cname);
	}

	SrcFile *mainf = p->files.v[p->files.n - 1];
	Buf all = {0};
	buf_printf(&all, prelude, comment_text(mainf->name));
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
	/* Arrays are values that C copies on the stack: a thread with room
	 * for them runs the program (sap_main).  Every type is known now. */
	buf_printf(&all, "\nint main(int argc, char **argv)\n{\n"
	           "\tstatic const size_t sap_values[] = {\n%s\t\t0\n\t};\n"
	           "\treturn sap_main(argc, argv, sap_main_program, sap_values,\n"
	           "\t                (int)(sizeof sap_values / sizeof *sap_values));\n}\n",
	           E->value_sizes.s ? E->value_sizes.s : "");
	write_lines(all.s, out, o->c_name ? o->c_name : format("%s.c", mainf->name));
	/* em goes with this frame. */
	E = NULL;
}
