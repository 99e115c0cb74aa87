/* ast.c: the nodes and the builder the grammar calls.  The driver that
 * feeds tokens from the lexer to the lemon parser is in parse.c. */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

Node *ast_node(Program *p, NodeKind k, int off)
{
	Node *n = xcalloc(1, sizeof *n);
	n->kind = k;
	n->file = p->cur;
	n->off = off;
	return n;
}

TypeSpec *ast_typespec(Program *p, TypeSpecKind k, int off)
{
	TypeSpec *t = xcalloc(1, sizeof *t);
	t->kind = k;
	t->file = p->cur;
	t->off = off;
	return t;
}

/* The head of a list remembers its last node, so that building a list of
 * n statements takes O(n), not O(n^2). */
Node *ast_append(Node *list, Node *item)
{
	if (!list) {
		list = item;
	} else {
		Node *n = list->last ? list->last : list;
		while (n->next)
			n = n->next;
		n->next = item;
	}
	Node *n = item;
	while (n->next)
		n = n->next;
	list->last = n;
	return list;
}

void ast_top(Program *p, Node *item)
{
	*p->tail = item;
	while (item->next)
		item = item->next;
	p->tail = &item->next;
}

/* ---- expressions ---- */

static void number_error(Program *p, Tok t, const char *what)
{
	diag_error(p->cur, t.off, "%s '%.*s'", what, t.len, t.p);
	p->failed = true;
}

Node *ast_int(Program *p, Tok t)
{
	Node *n = ast_node(p, N_INT, t.off);
	char *s = xstrndup(t.p, t.len);
	bool is_long = false;
	if (t.len && (s[t.len - 1] == 'l' || s[t.len - 1] == 'L')) {
		s[t.len - 1] = 0;
		is_long = true;
	}
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end && s[0] == '0' && !errno)
		number_error(p, t, format("invalid digit '%c' in octal constant", *end));
	else if (!errno && !*end && v == (unsigned long long)INT64_MAX + 1)
		/* 1 << 63, the sign bit: -9223372036854775808L would be the
		 * same error again, its digits being this constant. */
		number_error(p, t, "integer constant is too large for a long (at most "
		             "9223372036854775807; there is no unsigned type): for the same 64 bits, "
		             "the sign bit alone, write LONG_MIN; got");
	else if (!errno && !*end && v > INT64_MAX)
		/* C's unsigned 64-bit constants (hashes' primes and mixers):
		 * the long with the same bits is what a port wants. */
		number_error(p, t, format("integer constant is too large for a long (at most "
		                          "9223372036854775807; there is no unsigned type): for the "
		                          "same 64 bits write %lldL, which >> shifts with its sign and "
		                          "/ and < take as negative; got",
		                          (long long)(int64_t)v));
	else if (errno || *end || v > INT64_MAX)
		number_error(p, t, "integer constant is too large:");
	n->ival = (int64_t)v;
	/* Like C: int if it fits, else long. */
	n->is_float32 = false;
	n->ty = NULL;
	n->op = is_long || v > INT32_MAX;
	xfree(s);
	return n;
}

Node *ast_float(Program *p, Tok t)
{
	Node *n = ast_node(p, N_FLOAT, t.off);
	char *s = xstrndup(t.p, t.len);
	if (s[t.len - 1] == 'f' || s[t.len - 1] == 'F') {
		s[t.len - 1] = 0;
		n->is_float32 = true;
	}
	/* A float literal is rounded once, from its digits, by the C compiler
	 * as by strtof: not through a double, and not compared with FLT_MAX,
	 * which 3.40282347e38f (FLT_MAX as %.9g prints it) exceeds. */
	float f = n->is_float32 ? strtof(s, NULL) : 0;
	errno = 0;
	n->fval = strtod(s, NULL);
	if (errno == ERANGE && (n->fval > 1 || n->fval < -1))
		number_error(p, t, "floating constant is out of range:");
	else if (errno == ERANGE && n->fval == 0)
		number_error(p, t, "floating constant is too small, it would be 0:");
	else if (n->is_float32 && (f > FLT_MAX || f < -FLT_MAX))
		number_error(p, t, "floating constant is out of the range of float:");
	else if (n->is_float32 && n->fval != 0 && f == 0)
		number_error(p, t, "floating constant is too small for float, it would be 0:");
	n->sval = s;
	return n;
}

Node *ast_str(Program *p, Tok t)
{
	Node *n = ast_node(p, N_STR, t.off);
	Buf b = {0};
	buf_puts(&b, "");
	for (int i = 1; i < t.len - 1; i++) {
		char c = t.p[i];
		if (c != '\\') {
			buf_putc(&b, c);
			continue;
		}
		c = t.p[++i];
		switch (c) {
		case 'n': buf_putc(&b, '\n'); break;
		case 't': buf_putc(&b, '\t'); break;
		case 'r': buf_putc(&b, '\r'); break;
		case '0':
			/* Strings end at a NUL (sap_str): "a\0b" would be "a",
			 * equal to it, and a map's keys "x\0y", "x\0z" one. */
			diag_error(p->cur, t.off + i - 1, "'\\0' in a string: a string cannot hold a NUL "
			           "byte, which would end it there");
			p->failed = true;
			break;
		case '\\': case '"': case '\'': buf_putc(&b, c); break;
		default:
			diag_error(p->cur, t.off + i - 1, "unknown escape sequence '\\%c' in string", c);
			p->failed = true;
		}
	}
	n->sval = b.s;
	n->ival = (int64_t)b.len;
	return n;
}

Node *ast_bool(Program *p, Tok t, bool v)
{
	Node *n = ast_node(p, N_BOOL, t.off);
	n->ival = v;
	return n;
}

Node *ast_name(Program *p, Tok t)
{
	Node *n = ast_node(p, N_NAME, t.off);
	n->name = t;
	return n;
}

Node *ast_binary(Program *p, int op, Tok optok, Node *l, Node *r)
{
	Node *n = ast_node(p, N_BINARY, optok.off);
	n->op = op;
	n->lhs = l;
	n->rhs = r;
	return n;
}

Node *ast_unary(Program *p, int op, Tok optok, Node *e)
{
	Node *n = ast_node(p, N_UNARY, optok.off);
	n->op = op;
	n->lhs = e;
	return n;
}

Node *ast_assign(Program *p, int op, Tok optok, Node *l, Node *r)
{
	Node *n = ast_node(p, N_ASSIGN, optok.off);
	n->op = op;
	n->lhs = l;
	n->rhs = r;
	return n;
}

Node *ast_incdec(Program *p, int op, Tok optok, Node *e, bool postfix)
{
	Node *n = ast_node(p, N_INCDEC, optok.off);
	n->op = op;
	n->lhs = e;
	n->postfix = postfix;
	return n;
}

Node *ast_cond(Program *p, Tok q, Node *c, Node *a, Node *b)
{
	Node *n = ast_node(p, N_COND, q.off);
	n->cond = c;
	n->then = a;
	n->els = b;
	return n;
}

Node *ast_call(Program *p, Tok name, Node *args)
{
	Node *n = ast_node(p, N_CALL, name.off);
	n->name = name;
	n->args = args;
	return n;
}

Node *ast_conv(Program *p, TypeSpec *ts, Node *e)
{
	Node *n = ast_node(p, N_CONV, ts->off);
	n->ts = ts;
	n->lhs = e;
	return n;
}

Node *ast_index(Program *p, Tok lb, Node *base, Node *idx)
{
	Node *n = ast_node(p, N_INDEX, lb.off);
	n->lhs = base;
	n->rhs = idx;
	return n;
}

Node *ast_field(Program *p, Tok dot, Node *base, Tok name)
{
	Node *n = ast_node(p, N_FIELD, name.off);
	(void)dot;
	n->lhs = base;
	n->name = name;
	return n;
}

/* ---- statements ---- */

Node *ast_block(Program *p, Tok lb, Node *stmts)
{
	Node *n = ast_node(p, N_BLOCK, lb.off);
	n->args = stmts;
	return n;
}

Node *ast_var(Program *p, TypeSpec *ts, Tok name, Node *size, Node *init, int vclass)
{
	Node *n = ast_node(p, N_VAR, name.off);
	n->ts = ts;
	n->base_ts = ts;
	n->name = name;
	n->size = size;
	n->init = init;
	n->vclass = vclass;
	return n;
}

/* float w[K][M] declares w as float[K][M], as in C. */
Node *ast_cdecl(Program *p, TypeSpec *ts, Tok name, Tok lb, Node *size)
{
	Node *n = ast_var(p, ast_array_type(p, ts, lb, size), name, NULL, NULL, V_LOCAL);
	n->base_ts = ts;
	return n;
}

Node *ast_cdecl_dim(Program *p, Node *decl, Tok lb, Node *size)
{
	decl->ts = ast_array_type(p, decl->ts, lb, size);
	return decl;
}

Node *ast_paren(Program *p, Node *e)
{
	(void)p;
	e->parens = true;
	return e;
}

Node *ast_var_init(Program *p, Node *decl, Node *init)
{
	(void)p;
	decl->init = init;
	return decl;
}

/* The next name of a C declaration, int i, a[3], n = 0;: decl has no
 * type yet, or dims around none; it takes the first name's. */
Node *ast_var_next(Program *p, Node *decls, Node *decl, Node *init)
{
	(void)p;
	TypeSpec **t = &decl->ts;
	while (*t)
		t = &(*t)->elem;
	*t = decls->base_ts;
	decl->base_ts = decls->base_ts;
	decl->vclass = decls->vclass;
	decl->init = init;
	return ast_append(decls, decl);
}

Node *ast_param(Program *p, Tok kw, TypeSpec *ts, Tok name, Node *init)
{
	Node *n = ast_var(p, ts, name, NULL, init, V_PARAM);
	n->doc = lex_doc_for(p->lx, diag_line(p->cur, kw.off));
	return n;
}

Node *ast_expr_stmt(Program *p, Node *e)
{
	Node *n = ast_node(p, N_EXPR, e->off);
	n->lhs = e;
	return n;
}

Node *ast_if(Program *p, Tok kw, Node *c, Node *then, Node *els)
{
	Node *n = ast_node(p, N_IF, kw.off);
	n->cond = c;
	n->then = then;
	n->els = els;
	return n;
}

Node *ast_while(Program *p, Tok kw, Node *c, Node *body)
{
	Node *n = ast_node(p, N_WHILE, kw.off);
	n->cond = c;
	n->body = body;
	return n;
}

Node *ast_do(Program *p, Tok kw, Node *body, Node *c)
{
	Node *n = ast_node(p, N_DO, kw.off);
	n->cond = c;
	n->body = body;
	return n;
}

Node *ast_for(Program *p, Tok kw, Node *init, Node *c, Node *step, Node *body)
{
	Node *n = ast_node(p, N_FOR, kw.off);
	n->init = init;
	n->cond = c;
	n->step = step;
	n->body = body;
	return n;
}

/* for (T x : D) is only the parallel loops' form: said, rather than a
 * syntax error at the colon. */
Node *ast_for_range(Program *p, Tok kw, TypeSpec *ts, Tok var, Tok colon, Node *over, Node *body)
{
	(void)ts, (void)var, (void)over, (void)body;
	diag_error(p->cur, colon.off, "a for over the elements of a collection is written 'sync for "
	           "(T x : D) with (...)' (a dvector) or 'async for (T x : M)' (the keys of a map); "
	           "a plain for counts: for (long i = 0; i < len(D); i++) { ... D[i] ... }");
	p->failed = true;
	return ast_node(p, N_FOR, kw.off);
}

Node *ast_jump(Program *p, NodeKind k, Tok kw)
{
	return ast_node(p, k, kw.off);
}

Node *ast_return(Program *p, Tok kw, Node *e)
{
	Node *n = ast_node(p, N_RETURN, kw.off);
	n->lhs = e;
	return n;
}

Node *ast_empty(Program *p, Tok semi)
{
	return ast_node(p, N_EMPTY, semi.off);
}

Node *ast_async(Program *p, Tok kw, Node *init, Node *cond, Node *step,
                Node *reduce, Node *body)
{
	Node *n = ast_node(p, N_ASYNC, kw.off);
	n->init = init;
	n->cond = cond;
	n->step = step;
	n->args = reduce;
	n->body = body;
	return n;
}

/* A token for a name the compiler makes up: not an identifier, so no
 * user name can hide it or be hidden by it. */
static Tok made_tok(int kind, const char *text, int off)
{
	return (Tok){ .kind = kind, .p = text, .len = (int)strlen(text), .off = off };
}

/* "keys(m)", "join(a, b)": the name --explain shows for the keys a loop
 * over a map runs through. */
static const char *keys_name(Node *over)
{
	if (over->kind == N_NAME)
		return format("keys(%.*s)", over->name.len, over->name.p);
	if (over->kind == N_CALL && over->args && over->args->kind == N_NAME && over->args->next &&
	    over->args->next->kind == N_NAME && !over->args->next->next)
		return format("%.*s(%.*s, %.*s)", over->name.len, over->name.p, over->args->name.len,
		              over->args->name.p, over->args->next->name.len, over->args->next->name.p);
	return "keys";
}

/* async for (K k : m) body, over the keys of a map (or of join(a, b),
 * the keys of both), is the counted loop over a snapshot of them:
 *
 *     { dvector<K> keys(m) = keys(m);
 *       async for (long # = 0; # < len(keys(m)); #++) { K k = keys(m)[#]; body } }
 *
 * so that access analysis and the engines see nothing new. */
Node *ast_async_over(Program *p, Tok kw, TypeSpec *ts, Tok var, Node *over, Node *reduce,
                     Node *body)
{
	int off = kw.off;
	/* Errors about the keys' type point at the loop variable's. */
	Tok ks = made_tok(TK_IDENT, keys_name(over), ts->off);
	Tok idx = made_tok(TK_IDENT, "#", off);
	Node *init = over;
	if (over->kind != N_CALL || over->name.len != 4 || memcmp(over->name.p, "join", 4)) {
		init = ast_call(p, made_tok(TK_IDENT, "keys", over->off), over);
		init->made = true;
	}
	init->off = over->off;
	Node *decl = ast_var(p, ast_generic1(p, kw, TS_DVEC, ts), ks, NULL, init, V_LOCAL);

	Tok lt = made_tok(TK_LT, "<", off), inc = made_tok(TK_INC, "++", off);
	Node *i0 = ast_var(p, ast_basetype(p, made_tok(TK_LONG, "long", off), TS_LONG), idx, NULL,
	                   ast_int(p, made_tok(TK_INTLIT, "0", off)), V_LOCAL);
	Node *len = ast_call(p, made_tok(TK_IDENT, "len", off), ast_name(p, ks));
	Node *cond = ast_binary(p, TK_LT, lt, ast_name(p, idx), len);
	Node *step = ast_incdec(p, TK_INC, inc, ast_name(p, idx), true);
	Node *k = ast_var(p, ts, var, NULL,
	                  ast_index(p, made_tok(TK_LBRACKET, "[", var.off), ast_name(p, ks),
	                            ast_name(p, idx)), V_LOCAL);
	k->keys_of = over;
	Node *inner = ast_block(p, made_tok(TK_LBRACE, "{", body->off), ast_append(k, body));
	Node *loop = ast_async(p, kw, i0, cond, step, reduce, inner);
	return ast_block(p, made_tok(TK_LBRACE, "{", off), ast_append(decl, loop));
}

Node *ast_sync(Program *p, Tok kw, TypeSpec *ts, Tok var, Node *dds, Node *with,
               Node *reduce, Node *body)
{
	Node *n = ast_node(p, N_SYNC, kw.off);
	n->init = ast_var(p, ts, var, NULL, NULL, V_LOCAL);
	n->lhs = dds;
	n->clauses = with;
	n->args = reduce;
	n->body = body;
	return n;
}

Node *ast_reduce(Program *p, Tok op, Node *vars)
{
	Node *n = ast_node(p, N_REDUCE, op.off);
	n->op = op.kind;
	n->name = op;
	n->lhs = vars;
	return n;
}

Node *ast_accumulate(Program *p, Tok kw, Tok op, Node *vars)
{
	Node *n = ast_node(p, N_ACCUM, kw.off);
	n->op = op.kind;
	n->name = op;
	n->lhs = vars;
	return n;
}

Node *ast_relaxed(Program *p, Tok kw, Tok op, Node *vars)
{
	Node *n = ast_accumulate(p, kw, op, vars);
	n->kind = N_RELAX;
	return n;
}

Node *ast_with(Program *p, Tok name, Node *arg, bool has_eq)
{
	Node *n = ast_node(p, N_WITH, name.off);
	n->name = name;
	n->lhs = arg;
	n->postfix = has_eq;
	return n;
}

Node *ast_with_merge(Program *p, Tok name, Node *arg, Node *how)
{
	Node *n = ast_with(p, name, arg, true);
	n->rhs = how;
	return n;
}

/* ---- declarations ---- */

Node *ast_struct(Program *p, Tok name, Node *fields)
{
	Node *n = ast_node(p, N_STRUCT, name.off);
	n->name = name;
	n->args = fields;
	return n;
}

Node *ast_field_decl(Program *p, TypeSpec *ts, Tok name)
{
	return ast_var(p, ts, name, NULL, NULL, V_LOCAL);
}

Node *ast_func(Program *p, TypeSpec *ret, Tok name, Node *params, Node *body)
{
	Node *n = ast_node(p, N_FUNC, name.off);
	n->ts = ret;
	n->name = name;
	n->args = params;
	n->body = body;
	return n;
}

Node *ast_extern(Program *p, Tok kw, TypeSpec *ret, Tok name, Node *params)
{
	Node *n = ast_node(p, N_EXTERN, name.off);
	(void)kw;
	n->ts = ret;
	n->name = name;
	n->args = params;
	return n;
}

void ast_proto(Program *p, TypeSpec *ret, Tok name, Node *params)
{
	vec_push(&p->protos, ast_extern(p, name, ret, name, params));
}

Node *ast_arg_decl(Program *p, TypeSpec *ts, Tok name)
{
	return ast_var(p, ts, name, NULL, NULL, V_ARG);
}

/* float w[3] as a parameter: float[3] w, passed by value as any array. */
Node *ast_arg_cdecl(Program *p, Node *decl)
{
	(void)p;
	decl->vclass = V_ARG;
	return decl;
}

/* ---- types ---- */

TypeSpec *ast_basetype(Program *p, Tok kw, TypeSpecKind k)
{
	return ast_typespec(p, k, kw.off);
}

TypeSpec *ast_named_type(Program *p, Tok name)
{
	TypeSpec *t = ast_typespec(p, TS_NAMED, name.off);
	t->name = name;
	return t;
}

TypeSpec *ast_array_type(Program *p, TypeSpec *elem, Tok lb, Node *size)
{
	TypeSpec *t = ast_typespec(p, TS_ARRAY, lb.off);
	t->elem = elem;
	t->size = size;
	return t;
}

TypeSpec *ast_generic1(Program *p, Tok kw, TypeSpecKind k, TypeSpec *elem)
{
	TypeSpec *t = ast_typespec(p, k, kw.off);
	t->elem = elem;
	return t;
}

TypeSpec *ast_generic2(Program *p, Tok kw, TypeSpecKind k, TypeSpec *key, TypeSpec *val)
{
	TypeSpec *t = ast_typespec(p, k, kw.off);
	t->key = key;
	t->elem = val;
	return t;
}

/* An operator as written, for messages and for C. */
const char *ast_opname(int op)
{
	switch (op) {
	case TK_PLUS: return "+"; case TK_MINUS: return "-"; case TK_STAR: return "*";
	case TK_SLASH: return "/"; case TK_PERCENT: return "%"; case TK_EQ: return "==";
	case TK_NE: return "!="; case TK_LT: return "<"; case TK_GT: return ">";
	case TK_LE: return "<="; case TK_GE: return ">="; case TK_ANDAND: return "&&";
	case TK_OROR: return "||"; case TK_AND: return "&"; case TK_OR: return "|";
	case TK_XOR: return "^"; case TK_SHL: return "<<"; case TK_SHR: return ">>";
	case TK_NOT: return "!"; case TK_TILDE: return "~"; case TK_INC: return "++";
	case TK_DEC: return "--";
	}
	return "?";
}
