/* grammar.y: SAP's syntax, for lemon.  Every action is one call into the
 * AST builder (compiler/ast.c); nothing here checks meaning. */

%name SapParse
%token_prefix TK_
%token_type {Tok}
%extra_argument {Program *p}
%default_type {Node *}
%type type {TypeSpec *}
%type basetype {TypeSpec *}
%start_symbol program

%include {
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
/* lemon's template has parameters some grammars do not use. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#define YYNOERRORRECOVERY 1
/* Roomy enough that the tree's depth limit (AST_MAX_DEPTH), with its
 * clear message, is met first. */
#define YYSTACKDEPTH (16 * AST_MAX_DEPTH)
}

%syntax_error { parse_syntax_error(p, TOKEN); }
%stack_overflow { parse_syntax_error(p, (Tok){0}); }

/* Token codes in a fixed order, so grammar.h is stable. */
%token IDENT TYPENAME INTLIT FLOATLIT STRLIT
       BOOL INT LONG FLOAT DOUBLE STRING VOID STRUCT CONST PARAM EXTERN
       IF ELSE WHILE DO FOR BREAK CONTINUE RETURN ASYNC SYNC REDUCE ACCUMULATE WITH
       TRUE FALSE LIST DVECTOR DMAP DMULTIMAP
       LPAREN RPAREN LBRACE RBRACE LBRACKET RBRACKET SEMI COMMA DOT.
/* Added later, after the rest, so that the codes above stay. */
%token RELAXED.

%nonassoc IFX.
%nonassoc ELSE.
%right ASSIGN PLUSEQ MINUSEQ STAREQ SLASHEQ PERCENTEQ ANDEQ OREQ XOREQ SHLEQ SHREQ.
%right QUESTION COLON.
%left OROR.
%left ANDAND.
%left OR.
%left XOR.
%left AND.
%left EQ NE.
%left LT GT LE GE.
%left SHL SHR.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right NOT TILDE UMINUS INC DEC.
%left LBRACKET DOT.

// program = item*
program ::= items.
items ::= .
items ::= items item.

// item = struct | function | extern | param | statement
item ::= STRUCT IDENT(N) LBRACE fields(F) RBRACE.          { ast_top(p, ast_struct(p, N, F)); }
item ::= type(T) IDENT(N) LPAREN params(P) RPAREN block(B). { ast_top(p, ast_func(p, T, N, P, B)); }
item ::= type(T) IDENT(N) LPAREN params(P) RPAREN SEMI.     { ast_proto(p, T, N, P); }
item ::= EXTERN(K) type(T) IDENT(N) LPAREN params(P) RPAREN SEMI.
                                                            { ast_top(p, ast_extern(p, K, T, N, P)); }
item ::= PARAM(K) type(T) IDENT(N) ASSIGN expr(E) SEMI.     { ast_top(p, ast_param(p, K, T, N, E)); }
item ::= stmt(S).                                           { ast_top(p, S); }

// fields = (type IDENT ("," declr)* ";" | cdecl ("," declr)* ";")*
fields(A) ::= .                                             { A = NULL; }
fields(A) ::= fields(L) fdecls(D) SEMI.                     { A = ast_append(L, D); }
fdecls(A) ::= type(T) IDENT(N).                             { A = ast_field_decl(p, T, N); }
fdecls(A) ::= cdecl(D).                                     { A = D; }
fdecls(A) ::= fdecls(L) COMMA declr(D).                     { A = ast_var_next(p, L, D, NULL); }

// cdecl = type IDENT ("[" expr "]")+    C's way to declare an array: float w[K]
cdecl(A) ::= type(T) IDENT(N) LBRACKET(B) expr(S) RBRACKET. { A = ast_cdecl(p, T, N, B, S); }
cdecl(A) ::= cdecl(D) LBRACKET(B) expr(S) RBRACKET.         { A = ast_cdecl_dim(p, D, B, S); }

// params = (param ("," param)*)? | void (C's empty list), param = type IDENT | cdecl
params(A) ::= .                                             { A = NULL; }
params(A) ::= paramlist(L).                                 { A = L; }
params(A) ::= VOID.                                         { A = NULL; }
paramlist(A) ::= type(T) IDENT(N).                          { A = ast_arg_decl(p, T, N); }
paramlist(A) ::= cdecl(D).                                  { A = ast_arg_cdecl(p, D); }
paramlist(A) ::= paramlist(L) COMMA type(T) IDENT(N).       { A = ast_append(L, ast_arg_decl(p, T, N)); }
paramlist(A) ::= paramlist(L) COMMA cdecl(D).               { A = ast_append(L, ast_arg_cdecl(p, D)); }

// type = basetype | TYPENAME | struct IDENT (C's way) | type "[" expr "]" | list<type> | dvector<type> | dmap<type,type> | dmultimap<type,type>
basetype(A) ::= BOOL(K).                                    { A = ast_basetype(p, K, TS_BOOL); }
basetype(A) ::= INT(K).                                     { A = ast_basetype(p, K, TS_INT); }
basetype(A) ::= LONG(K).                                    { A = ast_basetype(p, K, TS_LONG); }
basetype(A) ::= LONG(K) LONG.                               { A = ast_basetype(p, K, TS_LONG); }
basetype(A) ::= FLOAT(K).                                   { A = ast_basetype(p, K, TS_FLOAT); }
basetype(A) ::= DOUBLE(K).                                  { A = ast_basetype(p, K, TS_DOUBLE); }
basetype(A) ::= STRING(K).                                  { A = ast_basetype(p, K, TS_STRING); }
type(A) ::= basetype(B).                                    { A = B; }
type(A) ::= VOID(K).                                        { A = ast_basetype(p, K, TS_VOID); }
type(A) ::= TYPENAME(N).                                    { A = ast_named_type(p, N); }
type(A) ::= STRUCT IDENT(N).                                { A = ast_named_type(p, N); }
type(A) ::= type(E) LBRACKET(B) expr(S) RBRACKET.           { A = ast_array_type(p, E, B, S); }
type(A) ::= LIST(K) LT type(E) GT.                          { A = ast_generic1(p, K, TS_LIST, E); }
type(A) ::= DVECTOR(K) LT type(E) GT.                       { A = ast_generic1(p, K, TS_DVEC, E); }
type(A) ::= DMAP(K) LT type(KT) COMMA type(V) GT.           { A = ast_generic2(p, K, TS_DMAP, KT, V); }
type(A) ::= DMULTIMAP(K) LT type(KT) COMMA type(V) GT.      { A = ast_generic2(p, K, TS_DMMAP, KT, V); }

// block = "{" stmt* "}"
block(A) ::= LBRACE(B) stmts(S) RBRACE.                     { A = ast_block(p, B, S); }
stmts(A) ::= .                                              { A = NULL; }
stmts(A) ::= stmts(L) stmt(S).                              { A = ast_append(L, S); }

// vardecl = decls ";" | type IDENT "(" expr ")" ("=" expr)? ";"
// decls = "const"? type IDENT ("=" expr)? ("," declr ("=" expr)?)*    as C: int i, j = 0, a[3];
vardecl(A) ::= decls(D) SEMI.                               { A = D; }
vardecl(A) ::= type(T) IDENT(N) LPAREN expr(S) RPAREN SEMI. { A = ast_var(p, T, N, S, NULL, V_LOCAL); }
vardecl(A) ::= type(T) IDENT(N) LPAREN expr(S) RPAREN ASSIGN expr(E) SEMI.
                                                            { A = ast_var(p, T, N, S, E, V_LOCAL); }
decls(A) ::= type(T) IDENT(N).                              { A = ast_var(p, T, N, NULL, NULL, V_LOCAL); }
decls(A) ::= type(T) IDENT(N) ASSIGN expr(E).               { A = ast_var(p, T, N, NULL, E, V_LOCAL); }
decls(A) ::= CONST type(T) IDENT(N) ASSIGN expr(E).         { A = ast_var(p, T, N, NULL, E, V_CONST); }
decls(A) ::= cdecl(D).                                      { A = D; }
decls(A) ::= cdecl(D) ASSIGN expr(E).                       { A = ast_var_init(p, D, E); }
decls(A) ::= decls(L) COMMA declr(D).                       { A = ast_var_next(p, L, D, NULL); }
decls(A) ::= decls(L) COMMA declr(D) ASSIGN expr(E).        { A = ast_var_next(p, L, D, E); }
// declr = IDENT ("[" expr "]")*
declr(A) ::= IDENT(N).                                      { A = ast_var(p, NULL, N, NULL, NULL, V_LOCAL); }
declr(A) ::= declr(D) LBRACKET(B) expr(S) RBRACKET.         { A = ast_cdecl_dim(p, D, B, S); }

// stmt = vardecl | block | expr ";" | ";" | if | while | do | for | break | continue | return | async for | sync for
stmt(A) ::= vardecl(D).                                     { A = D; }
stmt(A) ::= block(B).                                       { A = B; }
stmt(A) ::= expr(E) SEMI.                                   { A = ast_expr_stmt(p, E); }
stmt(A) ::= SEMI(S).                                        { A = ast_empty(p, S); }
stmt(A) ::= IF(K) LPAREN expr(C) RPAREN stmt(T). [IFX]      { A = ast_if(p, K, C, T, NULL); }
stmt(A) ::= IF(K) LPAREN expr(C) RPAREN stmt(T) ELSE stmt(E).
                                                            { A = ast_if(p, K, C, T, E); }
stmt(A) ::= WHILE(K) LPAREN expr(C) RPAREN stmt(B).         { A = ast_while(p, K, C, B); }
stmt(A) ::= DO(K) stmt(B) WHILE LPAREN expr(C) RPAREN SEMI. { A = ast_do(p, K, B, C); }
stmt(A) ::= FOR(K) LPAREN forinit(I) SEMI optexpr(C) SEMI optexpr(S) RPAREN stmt(B).
                                                            { A = ast_for(p, K, I, C, S, B); }
stmt(A) ::= FOR(K) LPAREN type(T) IDENT(V) COLON(C) expr(D) RPAREN stmt(B).
                                                            { A = ast_for_range(p, K, T, V, C, D, B); }
stmt(A) ::= BREAK(K) SEMI.                                  { A = ast_jump(p, N_BREAK, K); }
stmt(A) ::= CONTINUE(K) SEMI.                               { A = ast_jump(p, N_CONTINUE, K); }
stmt(A) ::= RETURN(K) SEMI.                                 { A = ast_return(p, K, NULL); }
stmt(A) ::= RETURN(K) expr(E) SEMI.                         { A = ast_return(p, K, E); }
stmt(A) ::= ASYNC(K) FOR LPAREN forinit(I) SEMI optexpr(C) SEMI optexpr(S) RPAREN reduces(R) stmt(B).
                                                            { A = ast_async(p, K, I, C, S, R, B); }
stmt(A) ::= ASYNC(K) FOR LPAREN type(T) IDENT(V) COLON expr(D) RPAREN reduces(R) stmt(B).
                                                            { A = ast_async_over(p, K, T, V, D, R, B); }
stmt(A) ::= SYNC(K) FOR LPAREN type(T) IDENT(V) COLON expr(D) RPAREN WITH LPAREN withs(W) RPAREN reduces(R) stmt(B).
                                                            { A = ast_sync(p, K, T, V, D, W, R, B); }

forinit(A) ::= .                                            { A = NULL; }
forinit(A) ::= expr(E).                                     { A = ast_expr_stmt(p, E); }
forinit(A) ::= type(T) IDENT(N) ASSIGN expr(E).             { A = ast_var(p, T, N, NULL, E, V_LOCAL); }
optexpr(A) ::= .                                            { A = NULL; }
optexpr(A) ::= expr(E).                                     { A = E; }

// reduces = (("reduce" | "accumulate" | "relaxed") "(" op ":" IDENT ("," IDENT)* ")")*
reduces(A) ::= .                                            { A = NULL; }
reduces(A) ::= reduces(L) REDUCE LPAREN redop(O) COLON names(N) RPAREN.
                                                            { A = ast_append(L, ast_reduce(p, O, N)); }
reduces(A) ::= reduces(L) ACCUMULATE(K) LPAREN redop(O) COLON names(N) RPAREN.
                                                            { A = ast_append(L, ast_accumulate(p, K, O, N)); }
reduces(A) ::= reduces(L) RELAXED(K) LPAREN redop(O) COLON names(N) RPAREN.
                                                            { A = ast_append(L, ast_relaxed(p, K, O, N)); }
redop(A) ::= PLUS(O).                                       { A = O; }
redop(A) ::= STAR(O).                                       { A = O; }
redop(A) ::= ANDAND(O).                                     { A = O; }
redop(A) ::= OROR(O).                                       { A = O; }
redop(A) ::= AND(O).                                        { A = O; }
redop(A) ::= OR(O).                                         { A = O; }
redop(A) ::= XOR(O).                                        { A = O; }
redop(A) ::= IDENT(O).                                      { A = O; }
%type redop {Tok}
names(A) ::= IDENT(N).                                      { A = ast_name(p, N); }
names(A) ::= names(L) COMMA IDENT(N).                       { A = ast_append(L, ast_name(p, N)); }

// withs = with ("," with)*;  with = IDENT | IDENT "(" expr ")" | IDENT "=" expr
//   | IDENT "(" expr ")" "=" expr
withs(A) ::= with(W).                                       { A = W; }
withs(A) ::= withs(L) COMMA with(W).                        { A = ast_append(L, W); }
with(A) ::= IDENT(N).                                       { A = ast_with(p, N, NULL, false); }
with(A) ::= IDENT(N) LPAREN expr(E) RPAREN.                 { A = ast_with(p, N, E, false); }
with(A) ::= IDENT(N) ASSIGN expr(E).                        { A = ast_with(p, N, E, true); }
with(A) ::= IDENT(N) LPAREN expr(E) RPAREN ASSIGN expr(F).  { A = ast_with_merge(p, N, E, F); }

// expr = C's expressions without comma, pointers; conversions are written float(x) or (float) x
expr(A) ::= expr(L) ASSIGN(O) expr(R).                      { A = ast_assign(p, TK_ASSIGN, O, L, R); }
expr(A) ::= expr(L) PLUSEQ(O) expr(R).                      { A = ast_assign(p, TK_PLUS, O, L, R); }
expr(A) ::= expr(L) MINUSEQ(O) expr(R).                     { A = ast_assign(p, TK_MINUS, O, L, R); }
expr(A) ::= expr(L) STAREQ(O) expr(R).                      { A = ast_assign(p, TK_STAR, O, L, R); }
expr(A) ::= expr(L) SLASHEQ(O) expr(R).                     { A = ast_assign(p, TK_SLASH, O, L, R); }
expr(A) ::= expr(L) PERCENTEQ(O) expr(R).                   { A = ast_assign(p, TK_PERCENT, O, L, R); }
expr(A) ::= expr(L) ANDEQ(O) expr(R).                       { A = ast_assign(p, TK_AND, O, L, R); }
expr(A) ::= expr(L) OREQ(O) expr(R).                        { A = ast_assign(p, TK_OR, O, L, R); }
expr(A) ::= expr(L) XOREQ(O) expr(R).                       { A = ast_assign(p, TK_XOR, O, L, R); }
expr(A) ::= expr(L) SHLEQ(O) expr(R).                       { A = ast_assign(p, TK_SHL, O, L, R); }
expr(A) ::= expr(L) SHREQ(O) expr(R).                       { A = ast_assign(p, TK_SHR, O, L, R); }
expr(A) ::= expr(C) QUESTION(Q) expr(X) COLON expr(Y).      { A = ast_cond(p, Q, C, X, Y); }
expr(A) ::= expr(L) OROR(O) expr(R).                        { A = ast_binary(p, TK_OROR, O, L, R); }
expr(A) ::= expr(L) ANDAND(O) expr(R).                      { A = ast_binary(p, TK_ANDAND, O, L, R); }
expr(A) ::= expr(L) OR(O) expr(R).                          { A = ast_binary(p, TK_OR, O, L, R); }
expr(A) ::= expr(L) XOR(O) expr(R).                         { A = ast_binary(p, TK_XOR, O, L, R); }
expr(A) ::= expr(L) AND(O) expr(R).                         { A = ast_binary(p, TK_AND, O, L, R); }
expr(A) ::= expr(L) EQ(O) expr(R).                          { A = ast_binary(p, TK_EQ, O, L, R); }
expr(A) ::= expr(L) NE(O) expr(R).                          { A = ast_binary(p, TK_NE, O, L, R); }
expr(A) ::= expr(L) LT(O) expr(R).                          { A = ast_binary(p, TK_LT, O, L, R); }
expr(A) ::= expr(L) GT(O) expr(R).                          { A = ast_binary(p, TK_GT, O, L, R); }
expr(A) ::= expr(L) LE(O) expr(R).                          { A = ast_binary(p, TK_LE, O, L, R); }
expr(A) ::= expr(L) GE(O) expr(R).                          { A = ast_binary(p, TK_GE, O, L, R); }
expr(A) ::= expr(L) SHL(O) expr(R).                         { A = ast_binary(p, TK_SHL, O, L, R); }
expr(A) ::= expr(L) SHR(O) expr(R).                         { A = ast_binary(p, TK_SHR, O, L, R); }
expr(A) ::= expr(L) PLUS(O) expr(R).                        { A = ast_binary(p, TK_PLUS, O, L, R); }
expr(A) ::= expr(L) MINUS(O) expr(R).                       { A = ast_binary(p, TK_MINUS, O, L, R); }
expr(A) ::= expr(L) STAR(O) expr(R).                        { A = ast_binary(p, TK_STAR, O, L, R); }
expr(A) ::= expr(L) SLASH(O) expr(R).                       { A = ast_binary(p, TK_SLASH, O, L, R); }
expr(A) ::= expr(L) PERCENT(O) expr(R).                     { A = ast_binary(p, TK_PERCENT, O, L, R); }
expr(A) ::= MINUS(O) expr(E). [UMINUS]                      { A = ast_unary(p, TK_MINUS, O, E); }
expr(A) ::= PLUS(O) expr(E). [UMINUS]                       { A = ast_unary(p, TK_PLUS, O, E); }
expr(A) ::= NOT(O) expr(E).                                 { A = ast_unary(p, TK_NOT, O, E); }
expr(A) ::= TILDE(O) expr(E).                               { A = ast_unary(p, TK_TILDE, O, E); }
expr(A) ::= INC(O) expr(E).                                 { A = ast_incdec(p, TK_INC, O, E, false); }
expr(A) ::= DEC(O) expr(E).                                 { A = ast_incdec(p, TK_DEC, O, E, false); }
expr(A) ::= expr(E) INC(O).                                 { A = ast_incdec(p, TK_INC, O, E, true); }
expr(A) ::= expr(E) DEC(O).                                 { A = ast_incdec(p, TK_DEC, O, E, true); }
expr(A) ::= expr(B) LBRACKET(O) expr(I) RBRACKET.           { A = ast_index(p, O, B, I); }
expr(A) ::= expr(B) DOT(O) IDENT(N).                        { A = ast_field(p, O, B, N); }
expr(A) ::= IDENT(N) LPAREN args(L) RPAREN.                 { A = ast_call(p, N, L); }
expr(A) ::= basetype(T) LPAREN expr(E) RPAREN.              { A = ast_conv(p, T, E); }
expr(A) ::= LPAREN basetype(T) RPAREN expr(E). [UMINUS]      { A = ast_conv(p, T, E); }
expr(A) ::= LPAREN expr(E) RPAREN.                          { A = ast_paren(p, E); }
expr(A) ::= INTLIT(T).                                      { A = ast_int(p, T); }
expr(A) ::= FLOATLIT(T).                                    { A = ast_float(p, T); }
expr(A) ::= STRLIT(T).                                      { A = ast_str(p, T); }
expr(A) ::= TRUE(T).                                        { A = ast_bool(p, T, true); }
expr(A) ::= FALSE(T).                                       { A = ast_bool(p, T, false); }
expr(A) ::= IDENT(N).                                       { A = ast_name(p, N); }

args(A) ::= .                                               { A = NULL; }
args(A) ::= arglist(L).                                     { A = L; }
arglist(A) ::= expr(E).                                     { A = E; }
arglist(A) ::= arglist(L) COMMA expr(E).                    { A = ast_append(L, E); }

%code {
/* Feed tokens of the given kinds to a simulation of the parser from its
 * current state: does it take them all without a syntax error?  For the
 * messages of syntax errors, which suggest the token that would let the
 * parse go on.  Only the automaton's states move: no action runs, so a
 * trial cannot touch the syntax tree (a trial reduction through
 * `arglist ::= arglist COMMA expr` once linked a node to itself). */
static int trial_parse(void *parser, const int *kinds, int n)
{
	yyParser *orig = parser;
	YYACTIONTYPE st[YYSTACKDEPTH];
	int top = (int)(orig->yytos - orig->yystack);
	for (int i = 0; i <= top; i++)
		st[i] = orig->yystack[i].stateno;
	for (int i = 0; i < n; i++) {
		YYACTIONTYPE act = st[top];
		for (;;) {
			act = yy_find_shift_action((YYCODETYPE)kinds[i], act);
			if (act >= YY_MIN_REDUCE) {
				unsigned rule = act - YY_MIN_REDUCE;
				int size = yyRuleInfoNRhs[rule];
				if (size == 0 && top >= YYSTACKDEPTH - 1)
					return 0;
				top += size;
				act = yy_find_reduce_action(st[top], (YYCODETYPE)yyRuleInfoLhs[rule]);
				st[++top] = act;
			} else if (act <= YY_MAX_SHIFTREDUCE) {
				if (top >= YYSTACKDEPTH - 1)
					return 0;
				if (act > YY_MAX_SHIFT)
					act += YY_MIN_REDUCE - YY_MIN_SHIFTREDUCE;
				st[++top] = act;
				break;
			} else {
				return act == YY_ACCEPT_ACTION;
			}
		}
	}
	return 1;
}

/* Would the parser accept `extra` and then `t` in its current state? */
int parse_would_accept(void *parser, int extra, Tok t)
{
	int kinds[] = {extra, t.kind};
	return trial_parse(parser, kinds, 2);
}

/* Copy the state of parser src, parsing for p, into dst (both from
 * SapParseAlloc): the live part of the stack only, so it is cheap enough
 * for every name. */
void parse_copy(void *dst, void *src, Program *p)
{
	yyParser *d = dst, *s = src;
	size_t live = (size_t)(s->yytos - s->yystack) + 1;
	memcpy(d, s, offsetof(yyParser, yystack));
	d->p = p;
	memcpy(d->yystack, s->yystack, live * sizeof s->yystack[0]);
	d->yytos = d->yystack + (live - 1);
	d->yystackEnd = &d->yystack[YYSTACKDEPTH - 1];
}

/* Would the parser accept a token of this kind in its current state? */
int parse_would_shift(void *parser, int kind, Tok t)
{
	(void)t;
	return trial_parse(parser, &kind, 1);
}
}
