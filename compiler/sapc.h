/* sapc.h: the compiler's one internal header, fenced into a section per
 * source file.  Prefixes: lex_ (lang/lexer.re), parse_ (lang/grammar.y, parse.c),
 * ast_ (ast.c), ty_ (type.c), sema_ (sema*.c), acc_ (access.c, slice.c,
 * verdict.c, explain.c), emit_ (emit*.c), diag_ (diag.c); util.c has no
 * prefix. */
#ifndef SAPC_H
#define SAPC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct SrcFile SrcFile;
typedef struct Tok Tok;
typedef struct Type Type;
typedef struct TypeSpec TypeSpec;
typedef struct Node Node;
typedef struct Sym Sym;
typedef struct Program Program;

/* ==== util.c ========================================================== */

void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
void xfree(void *p);
/* Free every block the x* functions gave out (between compilations in
 * one process; every pass starts from zeroed state). */
void xfree_all(void);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *vformat(const char *fmt, va_list ap);

/* A growable string buffer. */
typedef struct Buf {
	char *s;
	size_t len, cap;
} Buf;
void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growable array of pointers. */
typedef struct Vec {
	void **v;
	int n, cap;
} Vec;
void vec_push(Vec *v, void *p);

/* A hash map from strings (not copied) to pointers; NULL is no value. */
typedef struct Map {
	const char **keys;
	void **vals;
	int n, cap;
} Map;
void *map_get(const Map *m, const char *key);
/* The same for the n bytes at key. */
void *map_getn(const Map *m, const char *key, size_t n);
void map_put(Map *m, const char *key, void *val);

char *read_file(const char *path, size_t *len);

/* ==== diag.c ========================================================== */

struct SrcFile {
	const char *name;       /* as given on the command line */
	const char *text;       /* NUL-terminated */
	int len;
	int *lines;             /* offsets of line starts, built on demand */
	int nlines;
};

SrcFile *diag_file(const char *name, const char *text, int len);
void diag_linecol(SrcFile *f, int off, int *line, int *col);
/* Only the line: no scan of a long line for the column. */
int diag_line(SrcFile *f, int off);
/* GNU style: "file:line:col: error: msg", the source line and a caret.
 * The first error is fatal for the compilation (no cascades): it prints
 * and returns; callers check diag_failed() and stop. */
void diag_error(SrcFile *f, int off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(SrcFile *f, int off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* sapc's own warnings, named as gcc names them (opt is "unused-variable"
 * for -Wunused-variable); -Werror or -Werror=opt makes the first an
 * error.  diag_option() takes a -W option of the command line and tells
 * whether it was one of these. */
void diag_warning(SrcFile *f, int off, const char *opt, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool diag_option(const char *arg);
/* Does -W arg name a warning of sapc's alone, which the C compiler must not get? */
bool diag_own_option(const char *arg);
/* The name of a warning of sapc's a -W option nearly spells, or NULL. */
const char *diag_near_warning(const char *arg);
/* Edit distance of two names, for "did you mean"; 99 if too far apart to
 * suggest one for the other. */
int diag_distance(const char *a, const char *b);
bool diag_failed(void);
void diag_reset(void);
/* Where diagnostics go (stderr unless a test redirects them). */
extern FILE *diag_out;

/* ==== lang/lexer.re ==================================================== */

struct Tok {
	int kind;               /* a TK_ code from grammar.h */
	const char *p;          /* into the source, never copied */
	int len;
	int off;                /* byte offset in the file */
};

typedef struct Lexer {
	SrcFile *file;
	const char *cur, *lim;
	int prev;               /* kind of the previous token */
	int angle;              /* open '<' of generic types */
	Vec typenames;          /* struct names seen so far (the lexer hack) */
	Map typeset;            /* the same, for lookups */
	Vec docs;               /* doc comments: DocComment * */
} Lexer;

typedef struct DocComment {
	int line;               /* line of the last /// line */
	int first_line;
	bool trailing;          /* written after code on its line */
	char *text;
} DocComment;

void lex_init(Lexer *lx, SrcFile *f);
/* Next token; TK_EOF (0) at the end; -1 after reporting a lexical error. */
int lex_next(Lexer *lx, Tok *t);
const char *lex_token_name(int kind);
/* The doc comment ending on the line before (or on) `line`, or NULL. */
const char *lex_doc_for(Lexer *lx, int line);

/* ==== lang/grammar.y and parse.c: the parser and its driver ============= */

/* Parse one file, appending its top-level items to prog. */
bool parse_file(Program *prog, SrcFile *f);
int parse_would_accept(void *parser, int extra, Tok t);
/* Would the parser accept a token of this kind (instead of the one in error)? */
int parse_would_shift(void *parser, int kind, Tok t);
/* Copy a parser's state into another (for trial parses from an earlier point). */
void parse_copy(void *dst, void *src, Program *p);
void *SapParseAlloc(void *(*malloc)(size_t));
void SapParse(void *parser, int kind, Tok t, Program *p);
void SapParseFree(void *parser, void (*free)(void *));
/* The one message of a syntax error (the grammar's %syntax_error). */
void parse_syntax_error(Program *p, Tok t);

/* ==== ast.c: nodes and the builder the grammar calls =================== */

typedef enum TypeSpecKind {
	TS_VOID, TS_BOOL, TS_INT, TS_LONG, TS_FLOAT, TS_DOUBLE, TS_STRING,
	TS_NAMED, TS_ARRAY, TS_LIST, TS_DVEC, TS_DMAP, TS_DMMAP
} TypeSpecKind;

/* A type as written; sema resolves it to a Type. */
struct TypeSpec {
	TypeSpecKind kind;
	SrcFile *file;
	int off;
	Tok name;               /* TS_NAMED */
	TypeSpec *elem;         /* array/list/dvector elem, map value */
	TypeSpec *key;          /* map key */
	Node *size;             /* array size expression */
};

typedef enum NodeKind {
	/* expressions */
	N_INT, N_FLOAT, N_STR, N_BOOL, N_NAME, N_BINARY, N_UNARY, N_ASSIGN,
	N_INCDEC, N_COND, N_CALL, N_CONV, N_INDEX, N_FIELD,
	/* statements */
	N_BLOCK, N_VAR, N_EXPR, N_IF, N_WHILE, N_DO, N_FOR, N_BREAK, N_CONTINUE,
	N_RETURN, N_ASYNC, N_SYNC, N_EMPTY,
	/* top level */
	N_STRUCT, N_FUNC, N_EXTERN,
	/* clause items */
	N_REDUCE, N_ACCUM, N_RELAX, N_WITH
} NodeKind;

typedef enum VarClass { V_LOCAL, V_GLOBAL, V_CONST, V_PARAM, V_ARG } VarClass;

/* Analysis results for one parallel loop. */
typedef struct LoopInfo {
	int id;                 /* 1-based, source order */
	Vec reduce_syms;        /* Sym * of reduce variables */
	Vec reduce_ops;         /* Node * N_REDUCE per variable */
	Vec kept_syms;          /* Sym * of driver variables set with a min or
	                           max variable (if (d < best) { best = d; at = i; }) */
	Vec kept_with;          /* the reduce variable's Sym * for each */
	Vec won_syms;           /* Sym * of the min and max variables with some */
	Vec won_ops;            /* how a new value beats the old: TK_GT, TK_GE,
	                           TK_LT or TK_LE, as new OP old (intptr_t) */
	Vec tv_syms;            /* Sym * of those also carrying, as a double,
	                           the value their test compared when it set
	                           them: set to a value it rounds (best =
	                           float(d), d a double) */
	Vec tv_sets;            /* Node * every assignment of one of them, */
	Vec tv_vals;            /* the value it tests, before conversion, */
	Vec tv_conds;           /* and for best = test ? e : best the test */
	Vec narrow_syms;        /* Sym * of reduce variables and accumulated or
	                           relaxed DDSs holding ints the body adds longs
	                           to (or multiplies by them): checked for
	                           range at every step, and so where the
	                           workers' values combine (sap_sumcheck) */
	Vec narrow_at;          /* the first such update of each */
	Vec pending;            /* sema: N_ASSIGN of driver variables, which
	                           only min and max may keep */
	bool uses_rng;
	/* sync for */
	int model;              /* SAP_BSP... */
	Node *staleness, *batch;
	Vec merge_dds;          /* sync for: Sym * of the vectors merge(D) = f names */
	Vec merge_how;          /* their Node * f: avg, sum or a function */
	bool recon;
	bool batched;           /* the body runs once per mini-batch */
	Vec whole_dds;          /* Sym * of vectors gemv or ger use every row of */
	Vec sync_why;           /* per DDS: why a written vector takes the dense
	                           path, or NULL (sparse, recorded by the slice) */
	/* the access analysis (access.c, slice.c, verdict.c) */
	Vec accum_syms;         /* Sym * of accumulate(+: X) DDSs */
	Vec relax_syms;         /* Sym * of relaxed(+: X) DDSs (not in accum_syms) */
	Vec sum_syms;           /* Sym * of vectors of whole numbers an async
	                           loop only adds whole numbers to, at keys its
	                           slice records (acc_find_sums) */
	bool sums_found;
	Vec accesses;           /* Access * in source order */
	Vec dds;                /* Sym * of the DDSs the body touches */
	Vec dds_mode;           /* their modes (AccMode, as intptr_t) */
	int verdict;            /* a Verdict */
	const char *reason;     /* serialized or rejected: why */
	Node *reason_at;
	const char *note;       /* rejected: a note, at note_at */
	Sym *relax_hint;        /* rejected for a key of it: a DDS the loop only
	                           reads and adds to, with relax_note the note
	                           that suggests relaxed(+: it) */
	const char *relax_note;
	const char *rows_hint;  /* the key is a flat matrix's, r * K + s: as rows
	                           of K, its key is r (rows_hint in slice.c) */
	bool relax_ternary;     /* the key is chosen by a ?: on such a read
	                           (TERNARY_IF),
	                           which written as an if would be known */
	Node *note_at;
	bool has_slice, slice_rng;
	bool has_reads;         /* writes nothing; the slice records its reads */
	const char *reads_why;  /* writes nothing, reads dynamically, has no
	                           read slice: why */
	Sym *slice_var;         /* a driver variable the slice reads (it may change) */
	Vec slice_vars;         /* Sym *: all of them, when they are scalars, whose
	                           values the runtime compares (else empty) */
	Vec slice_reads;        /* Sym * of DDSs the slice reads */
	Vec slice_moving;       /* those of them the loop writes where the slice
	                           reads them (not only other fields, or a
	                           map's keys it cannot change): re-planned
	                           after the loop's own writes */
	int nrand;              /* rand call sites in the body */
	int nforks;             /* ifs whose branches the slice runs each of */
} LoopInfo;

struct Node {
	NodeKind kind;
	SrcFile *file;
	int off;
	Type *ty;               /* sema: the expression's type */
	Node *next;             /* next in a list (statements, args, fields) */
	Node *last;             /* the head of a list: its last node (ast_append) */

	int op;                 /* operator token (binary, unary, assign, incdec) */
	bool postfix;           /* N_INCDEC */
	Node *lhs, *rhs;        /* operands; N_INDEX base/index; N_FIELD base */
	Node *cond, *then, *els;
	Node *init, *step, *body;
	Node *args;             /* call args, block statements, struct fields,
	                           function params, reduce/with clause items */
	Node *clauses;          /* loops: with items; N_REDUCE list in args */
	Node *size;             /* N_VAR: dvector size argument */
	TypeSpec *ts;           /* N_VAR, N_FUNC result, N_CONV target, N_FOR var */
	TypeSpec *base_ts;      /* N_VAR: ts without C's declarator dims, which
	                           the next names of int a[3], b; share */
	Tok name;               /* identifier: variable, field, function, clause */
	Sym *sym;               /* sema: what a name or declaration denotes */

	int64_t ival;
	bool le_end;            /* sema: an async for's i <= last, as last + 1:
	                           emitted checked (last may be a long's largest) */
	bool has_cval;          /* sema: an integer constant expression, */
	int64_t cval;           /* of this value */
	double fval;
	bool is_float32;        /* float literal with an f suffix */
	char *sval;             /* decoded string literal */
	int vclass;             /* N_VAR: VarClass */
	const char *doc;        /* N_VAR param: its doc comment */
	Node *loop;             /* sema: the parallel loop a statement is in */
	LoopInfo *li;           /* N_ASYNC, N_SYNC */
	int field_index;        /* N_FIELD: resolved field */
	int builtin;            /* N_CALL: a Builtin, or 0 */
	int rsite;              /* N_CALL of rand in a loop body: its site, 1-based */
	Node *keys_of;          /* N_VAR: the key of a loop over this map (or join) */
	bool made;              /* written by the compiler, not the user */
	bool parens;            /* written in parentheses: if ((x = f())) */
	int slice;              /* slice.c: the node's part in its loop's slice */
	void *aux;              /* access.c: scratch */
	char *text;             /* access.c: acc_expr_str's text, once made */
	char *idtext;           /* access.c: acc_key_id's text, once made */
};

struct Program {
	Node *items;            /* top-level items in order */
	Node **tail;
	Vec files;              /* SrcFile * */
	Vec structs;            /* Node * N_STRUCT */
	Vec funcs;              /* Node * N_FUNC and N_EXTERN */
	Vec protos;             /* Node * N_EXTERN of C prototypes (ast_proto) */
	Vec loops;              /* Node * N_ASYNC / N_SYNC */
	Vec globals;            /* Sym * of driver variables, params, consts */
	Lexer *lx;              /* while parsing */
	SrcFile *cur;
	bool failed;
	int nloops;
	/* parser driver state */
	void *parser;
	Tok prev;               /* the token before the current one */
	Vec open_braces;        /* offsets of unclosed '{', for EOF errors */
	void *before_tok;       /* the parser before the current token */
	void *before_prev;      /* ... and before the previous one, */
	int before_prev_off;    /* which is at this offset */
	int brace_open, brace_close; /* a '{' and its '}' indented differently, or -1 */
};

/* The deepest syntax tree the compiler takes (parse_file checks it). */
#define AST_MAX_DEPTH 1000

Node *ast_node(Program *p, NodeKind k, int off);
TypeSpec *ast_typespec(Program *p, TypeSpecKind k, int off);
void ast_item(Program *p, Node *n);
Node *ast_append(Node *list, Node *item);

/* Builder: one call per grammar action. */
Node *ast_int(Program *p, Tok t);
Node *ast_float(Program *p, Tok t);
Node *ast_str(Program *p, Tok t);
Node *ast_bool(Program *p, Tok t, bool v);
Node *ast_name(Program *p, Tok t);
Node *ast_binary(Program *p, int op, Tok optok, Node *l, Node *r);
Node *ast_unary(Program *p, int op, Tok optok, Node *e);
Node *ast_assign(Program *p, int op, Tok optok, Node *l, Node *r);
Node *ast_incdec(Program *p, int op, Tok optok, Node *e, bool postfix);
Node *ast_cond(Program *p, Tok q, Node *c, Node *a, Node *b);
Node *ast_call(Program *p, Tok name, Node *args);
Node *ast_conv(Program *p, TypeSpec *ts, Node *e);
Node *ast_index(Program *p, Tok lb, Node *base, Node *idx);
Node *ast_field(Program *p, Tok dot, Node *base, Tok name);

Node *ast_block(Program *p, Tok lb, Node *stmts);
Node *ast_var(Program *p, TypeSpec *ts, Tok name, Node *size, Node *init, int vclass);
Node *ast_cdecl(Program *p, TypeSpec *ts, Tok name, Tok lb, Node *size);
Node *ast_cdecl_dim(Program *p, Node *decl, Tok lb, Node *size);
Node *ast_var_init(Program *p, Node *decl, Node *init);
Node *ast_paren(Program *p, Node *e);
Node *ast_var_next(Program *p, Node *decls, Node *decl, Node *init);
Node *ast_param(Program *p, Tok kw, TypeSpec *ts, Tok name, Node *init);
Node *ast_expr_stmt(Program *p, Node *e);
Node *ast_if(Program *p, Tok kw, Node *c, Node *then, Node *els);
Node *ast_while(Program *p, Tok kw, Node *c, Node *body);
Node *ast_do(Program *p, Tok kw, Node *body, Node *c);
Node *ast_for(Program *p, Tok kw, Node *init, Node *c, Node *step, Node *body);
Node *ast_for_range(Program *p, Tok kw, TypeSpec *ts, Tok var, Tok colon, Node *over, Node *body);
Node *ast_jump(Program *p, NodeKind k, Tok kw);
Node *ast_return(Program *p, Tok kw, Node *e);
Node *ast_empty(Program *p, Tok semi);
Node *ast_async(Program *p, Tok kw, Node *init, Node *cond, Node *step,
                Node *reduce, Node *body);
Node *ast_async_over(Program *p, Tok kw, TypeSpec *ts, Tok var, Node *over, Node *reduce,
                     Node *body);
Node *ast_sync(Program *p, Tok kw, TypeSpec *ts, Tok var, Node *dds, Node *with,
               Node *reduce, Node *body);
Node *ast_reduce(Program *p, Tok op, Node *vars);
Node *ast_accumulate(Program *p, Tok kw, Tok op, Node *vars);
Node *ast_relaxed(Program *p, Tok kw, Tok op, Node *vars);
Node *ast_with(Program *p, Tok name, Node *arg, bool has_eq);
/* merge(D) = how */
Node *ast_with_merge(Program *p, Tok name, Node *arg, Node *how);

Node *ast_struct(Program *p, Tok name, Node *fields);
Node *ast_field_decl(Program *p, TypeSpec *ts, Tok name);
Node *ast_func(Program *p, TypeSpec *ret, Tok name, Node *params, Node *body);
Node *ast_extern(Program *p, Tok kw, TypeSpec *ret, Tok name, Node *params);
/* C's prototype, double f(double x);: noted, for sema to check that the
 * program defines f. */
void ast_proto(Program *p, TypeSpec *ret, Tok name, Node *params);
Node *ast_arg_decl(Program *p, TypeSpec *ts, Tok name);
Node *ast_arg_cdecl(Program *p, Node *decl);
void ast_top(Program *p, Node *item);

TypeSpec *ast_basetype(Program *p, Tok kw, TypeSpecKind k);
TypeSpec *ast_named_type(Program *p, Tok name);
TypeSpec *ast_array_type(Program *p, TypeSpec *elem, Tok lb, Node *size);
TypeSpec *ast_generic1(Program *p, Tok kw, TypeSpecKind k, TypeSpec *elem);
TypeSpec *ast_generic2(Program *p, Tok kw, TypeSpecKind k, TypeSpec *key, TypeSpec *val);

const char *ast_opname(int op);

/* ==== type.c =========================================================== */

typedef enum TypeKind {
	TY_VOID, TY_BOOL, TY_INT, TY_LONG, TY_FLOAT, TY_DOUBLE, TY_STRING,
	TY_ARRAY, TY_STRUCT, TY_LIST, TY_DVEC, TY_DMAP, TY_DMMAP
} TypeKind;

struct Type {
	TypeKind kind;
	Type *elem;             /* array, list, dvector element; map value */
	Type *key;              /* map key */
	int64_t len;            /* array length */
	Node *sdecl;            /* TY_STRUCT: its N_STRUCT */
	char *cname;            /* C type name */
	char *mangle;           /* for helper names */
	bool emitted;           /* emit: helpers written */
};

extern Type *ty_void, *ty_bool, *ty_int, *ty_long, *ty_float, *ty_double, *ty_string;

Type *ty_array(Type *elem, int64_t len);
Type *ty_list(Type *elem);
Type *ty_dvec(Type *elem);
Type *ty_dmap(Type *key, Type *val, bool multi);
Type *ty_struct(Node *sdecl);
bool ty_is_int(Type *t);
bool ty_is_float(Type *t);
bool ty_is_num(Type *t);        /* int, long, float, double */
bool ty_is_scalar(Type *t);     /* num or bool */
bool ty_is_dds(Type *t);
bool ty_is_numarray(Type *t);   /* T[N] of a numeric T */
bool ty_has_dds(Type *t);       /* t is or contains a DDS */
bool ty_needs_drop(Type *t);    /* owns memory: lists, or holds them */
bool ty_is_flat(Type *t);       /* no pointer inside: no string or list */
/* Holds, through structs and arrays, a list of flat elements: what load
 * settles into its vector's arena, and a plan-order copy lends. */
bool ty_has_flat_list(Type *t);
/* The usual arithmetic conversions of C. */
Type *ty_arith(Type *a, Type *b);
/* "float[16]", "dvector<Rating>": for messages. */
const char *ty_str(Type *t);
/* Floating scalars inside one element (float[16] -> 16), 0 if not all
 * floating (what uniform() and normal() fill). */
int64_t ty_ncomp(Type *t);
int64_t ty_nfields(Type *t);
/* A number, or an array or struct of them, nested in any way: what
 * accumulate, reduce(+ ...) and sync for merges combine scalar by
 * scalar. */
bool ty_is_numeric(Type *t);
/* Its size and alignment as the C compiler lays out the emitted type. */
int64_t ty_csize(Type *t);
int64_t ty_calign(Type *t);
int64_t ty_field_align(Type *s, Type *f);  /* of member type f in struct s */
bool ty_packed(Type *t);        /* a struct of scalars laid out without padding */
/* Whether every scalar inside t has type s; the first scalar inside t. */
bool ty_all_of(Type *t, Type *s);
Type *ty_first_scalar(Type *t);
Type *ty_scalar_of(Type *t);
void ty_reset(void);

/* ==== sema.c, sema_expr.c, sema_loop.c ================================ */

typedef enum SymKind { SYM_VAR, SYM_FUNC, SYM_STRUCT } SymKind;

typedef enum Builtin {
	B_NONE, B_LEN, B_PUSH, B_INSERT, B_CONTAINS, B_COUNT, B_ERASE, B_GET,
	B_MIN, B_MAX, B_ABS, B_DOT, B_RAND, B_RAND_INT, B_RAND_NORMAL, B_PRINT,
	B_LOAD, B_SAVE, B_UNIFORM, B_NORMAL, B_KEYS, B_JOIN,
	B_TOKENS, B_VOCAB, B_UNIGRAM, B_FAST_SIGMOID, B_SOFTMAX, B_WTIME, B_RANKS, B_THREADS, B_GEMV, B_GER,
	B_GEMM, B_SPLIT, B_FIELDS, B_TO_INT, B_TO_LONG, B_TO_FLOAT, B_TO_DOUBLE
} Builtin;

struct Sym {
	SymKind kind;
	const char *name;
	Type *ty;               /* variables: type; functions: result */
	Node *decl;
	int vclass;             /* VarClass */
	Node *loop;             /* parallel loop the variable is declared in */
	bool in_func;           /* declared inside a function */
	bool is_driver;         /* a driver variable (emitted as a static) */
	bool once;              /* ... declared outside every loop: with
	                           !modified, the same in every invocation */
	bool readonly;          /* sync-for element, borrowed list params */
	bool by_ref;            /* emit: a sync-for element read through its
	                           pointer, cname_p, not copied */
	bool lazy;              /* emit: a large local array zeroed row by row
	                           as used (sap_lazy_row), rows cname_hw */
	bool borrowed;          /* emit: a loop body's unchanged copy of an
	                           element of a vector the loop does not
	                           write: its lists shared, not copied */
	bool viewed;            /* emit: a loop body's unchanged list of a
	                           multimap's values, maybe the map's own
	                           (sap_dm_view): never moved */
	bool is_extern;
	bool c_macro;           /* an extern of one of C's type-generic macros */
	bool does_io, uses_rng; /* functions, transitively */
	bool recursive;         /* functions: reach themselves by their calls (emit.c) */
	int scc_index, scc_low; /* emit.c's search for them */
	bool uses_clock;        /* functions, transitively: wtime() */
	Node *io_site;          /* where the I/O happens */
	Vec calls;              /* functions: the calls in the body */
	bool used;              /* functions: reachable from driver code */
	int reads;              /* variables: uses other than as the target of = */
	bool set;               /* variables: assigned with = after the declaration */
	bool modified;          /* variables: written in any way after the
	                           declaration (=, op=, ++, elements, push) */
	Node *wrote_at;         /* parameters: the first write */
	bool returned;          /* parameters: returned whole by name */
	char *cname;            /* the name in C */
	int64_t cval;           /* consts: folded integer value */
	bool has_cval;
	Sym *shadow;            /* outer symbol with the same name */
	Sym *len;               /* access.c: a list local's length, as a variable */
	Sym *hidden;            /* sema: the symbol of this name it hides while in scope */
	int scope_at;           /* sema: its index in the scope stack */
	Node *taint;            /* access.c: why a body local is unpredictable */
	bool needed;            /* slice.c: the slice computes it */
	bool slice_decl;        /* slice.c: a statement the slice runs assigns it
	                           (k = j = ...), so the slice declares it */
	Node *keys_of;          /* read-only key of a loop over this map (or join) */
	int uses, saved_as;     /* emit_io.c, params: its names; those as save()'s file */
	int live_at;            /* emit_ckpt.c: the last live set it joined, + 1 */
	/* emit_range.c: an integer local holds only values in [vr_lo, vr_hi] */
	bool vr_seen, vr_known;
	int64_t vr_lo, vr_hi;
	bool parted;            /* a loaded dvector read only as X[i] in async
	                           loops over i that run spread over ranks: on
	                           several ranks each keeps only its part
	                           (verdict.c) */
};

/* Resolve names, check types and the parallel-loop rules.  Returns false
 * after reporting the first error. */
bool sema_program(Program *p);
/* Every variable of driver code, for the emitter's statics. */
void sema_driver_vars(Vec *out);
/* -Wunused-variable and -Wunused-but-set-variable, for the variables
 * declared in file f. */
void sema_warn_unused(SrcFile *f);
/* -Wlost-copy: changes of a copy of a DDS element that nothing reads (sema_copy.c). */
void sema_warn_lost_copies(Program *p, SrcFile *f);

/* Shared by sema.c, sema_expr.c and sema_loop.c: the state of the pass
 * and the functions one file calls in another. */
typedef struct Ctx {
	Node *func;             /* function being checked, or NULL in driver code */
	Node *loop;             /* innermost parallel loop */
	int seqloops;           /* sequential loops open inside func/loop body */
} Ctx;
extern Program *sema_prog;
extern Ctx sema_ctx;
extern Vec sema_funcs;          /* Sym * of functions */
extern Vec sema_loop_calls;     /* calls in loop bodies: Node *, checked at the end */
extern Vec sema_draw_exprs;     /* full expressions with two calls that may draw */
extern Vec sema_same_calls;     /* calls of the program's functions taken as giving one
                                   value twice in an iteration (sema_loop.c) */
extern Vec sema_loop_of_call;
extern Node *sema_const_decl;   /* the const whose value is being checked */
extern Vec sema_hooks;          /* merge and reduction function sites (Node *, ->sym) */

/* sema.c: failures, scopes, constants, types as written, statements. */
const char *sema_S(Tok t);
_Noreturn void sema_fail(Node *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void sema_fail_note(Node *at, const char *msg, Node *nat, const char *nmsg);
void sema_open_scope(void);
void sema_close_scope(void);
Sym *sema_lookup(const char *name);
Sym *sema_lookup_func(const char *name);   /* a function alone, or NULL */
void sema_consider(const char *name, const char *cand, const char **best, int *bd);
const char *sema_suggest(const char *name);
Sym *sema_declare(Node *decl, const char *name, SymKind k, Type *ty);
bool sema_const_int(Node *e, int64_t *v);
void sema_fold(Node *e);
/* Above 0 while checking code a constant condition leaves out. */
extern int sema_dead;
bool sema_const_bool(Node *e, bool *v);
void sema_check_constant_fits(Node *e, Type *to, bool implicit);
/* The value of a string constant expression (literals, string consts,
 * + of them, string() of constants) appended to b; false if e is no such
 * expression. */
bool sema_const_str(Node *e, Buf *b);
void sema_narrow(Node *e, Type *to);
/* e without the conversion sema_narrow wrapped it in, if any: the value
 * as the program wrote it. */
Node *sema_as_written(Node *e);
Type *sema_resolve(TypeSpec *ts);
void sema_check_text_shape(Node *at, const char *verb, Type *t);
void sema_check_var(Node *d);
void sema_check_stmt(Node *s);

/* sema_expr.c: expressions, and the builtins. */
bool sema_assignable(Type *to, Type *from);
Node *sema_start_of(Node *e);
void sema_expect_assignable(Node *e, Type *to, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool sema_is_reduce_var(Node *loop, Sym *s);
/* An update of s that adds a long to its ints (or multiplies them by
 * one) in loop li, and the first such update of s, or NULL. */
void sema_note_narrow(LoopInfo *li, Node *update, Sym *s);
Node *sema_narrow_at(LoopInfo *li, Sym *s);
bool sema_has_extremum(Node *loop);
bool sema_is_won(Node *loop, Sym *s);
int sema_tv_of(Node *loop, Node *assign);
_Noreturn void sema_driver_assign_fail(Node *e, Node *how, Sym *s, Node *loop);
const char *sema_loopword(Node *loop);
const char *sema_a_loop(Node *loop);
void sema_check_args_count(Node *call, int want, const char *name);
Node *sema_arg(Node *call, int i);
bool sema_is_map(Type *t);
Builtin sema_find_builtin(const char *name);
Type *sema_check_expr(Node *e);
void sema_check_cond(Node *c);
/* A full expression that changes a variable where C leaves the order of
 * that change and another use of the variable undefined is an error. */
void sema_check_sequenced(Node *e);
/* Once every function's draws are known: warn of two draws in one of
 * sema_draw_exprs whose order C leaves open (-Wdraw-order). */
void sema_check_draws(void);

/* sema_loop.c: async for and sync for. */
void sema_check_async(Node *loop);
void sema_check_sync(Node *loop);

/* ==== access.c, slice.c, verdict.c, explain.c: access sets of loops ==== */

typedef enum AccMode { ACC_READ = 1, ACC_WRITE = 2, ACC_RW = 3 } AccMode;

typedef enum Verdict {
	VD_NOWRITE = 1,         /* writes no DDS: contiguous chunks */
	VD_INDEPENDENT,         /* static, each iteration its own keys: chunks */
	VD_STATIC,              /* static keys: planned without reconnaissance */
	VD_ONCE,                /* reconnaissance once, plan cached */
	VD_EACH,                /* reconnaissance every invocation (RNG) */
	VD_SERIAL,              /* serialized, for `reason` */
	VD_REJECTED,            /* compile error, for `reason` */
	VD_SYNC                 /* sync for: data-parallel */
} Verdict;

/* One term of an affine key: k * inv (inv NULL means 1), times the loop
 * variable when in Access.aterms. */
typedef struct AffTerm {
	int64_t k;
	Node *inv;
} AffTerm;

/* A bound of a span's loop that a guard adds: e + add. */
typedef struct SpanBound {
	Node *e;
	int64_t add;
} SpanBound;

/* One loop of a span: its variable's coefficient, terms of AffTerm *,
 * and its range [lo, hi), or [lo, hi] when le, narrowed by the guards
 * around the access (if (t > 0) ... h[(b * T + t - 1) * D + k]): the
 * greatest of lo and los, the least of hi (+ 1 when le) and his. */
typedef struct SpanDim {
	Sym *var;
	Vec c;
	Node *lo, *hi;
	bool le;
	Vec los, his;           /* SpanBound * */
	/* A bound that moves with the loop variable, P i + Q (j from i + 1,
	 * a triangle's row): its hull over the invocation stands for it. */
	bool lo_iv, hi_iv;
	Vec lo_p, lo_q, hi_p, hi_q;     /* AffTerm * */
	/* Both bounds move by k i: the span takes t = j - k i over [lo_q,
	 * hi_q), k c in its A (a band's row, j from i - 2 to i + 2). */
	bool shifted;
} SpanDim;

/* A part computed in int of a key computed in long, (y * W + x) in
 * long(b) * S + (y * W + x): its form, a * i + b (+ dimc[m] * the
 * variable of the key's span_dims[m]), which the runtime checks stays in
 * int's range, where the body's part, which wraps, is the form's. */
typedef struct KeyCheck {
	Vec a, b;
	Vec dimc;               /* Vec * of AffTerm *, one per span dim */
} KeyCheck;

typedef struct Access {
	Node *at;               /* the N_INDEX, or the N_CALL of a map builtin */
	Node *unit;             /* the statement (or loop header) holding it */
	Node *anchor;           /* the slice records it just before this node */
	bool stable;            /* recorded at the body's top level with a key that
	                           keeps its value for the rest of the iteration */
	Sym *dds;
	Node *key;
	int mode;               /* AccMode */
	int folded;             /* modes of later accesses of the same key whose
	                           record this one's stands for (recorded_before) */
	struct Access *folded_into;     /* the access whose record stands for this one's */
	bool rekeyed;           /* recorded after another record of the same key
	                           expression, a local of it assigned between
	                           them (k = w[i]; y[k] ...; k = z[i]; y[k]
	                           ...): keys that print alike differ */
	int ddsi;               /* index into LoopInfo.dds */
	bool dynamic;           /* not affine: the slice computes it */
	bool narrow;            /* computed in int: the runtime checks that its
	                           affine form stays in int's range, where the
	                           body's key, which wraps, is the form's */
	bool recorded;          /* a dynamic access of a DDS the loop writes */
	bool accumulate;
	bool structural;        /* inserts into or erases from a map */
	bool may_insert;        /* structural by m[k] = v or m[k] op= v: inserts
	                           only when k is missing, which the runtime can
	                           check in advance when the slice records k */
	Vec aterms, bterms;     /* static: key = a * i + b, of AffTerm * */
	/* A dynamic key A * i + B + sum C_m j_m, j_m the variables of
	 * enclosing loops for (int j = L; j < H; j++) with L and H invariant
	 * (span_dims): the keys of an iteration lie in a span, the hull of
	 * those of the j_m's ranges, which the runtime checks for overlaps
	 * between iterations before it plans (acc_find_spans).  Over one loop
	 * with C 1, span_var is j: the span is [A i + B + L, A i + B + H) (H + 1
	 * when span_le), each key in it. */
	bool span, span_le;
	Sym *span_var;
	Vec span_a, span_b;
	Node *span_lo, *span_hi;
	Vec span_dims;          /* SpanDim *, outermost first */
	Vec checks;             /* KeyCheck *: of a key computed in long, its
	                           parts computed in int */
	Vec ctrl;               /* enclosing control nodes */
	Vec eqs;                /* invariants equal to the loop variable where
	                           the access runs (if (i == k) x[k]): its key
	                           is taken with i for them, which is iv */
	Sym *iv;
	/* A static key's guards on the loop variable itself (if (i < n - 1)
	 * x[i + 1]): the iterations where it runs lie in [the greatest of
	 * iv_los, the least of iv_his), SpanBound * as SpanDim's. */
	Vec iv_los, iv_his;
	bool eq_prod;           /* of eqs, only those inside a product (a row's
	                           k in k * w + k) */
} Access;

/* Slice roles of nodes (Node.slice). */
enum { SL_NONE, SL_INCLUDED, SL_FLAT };

/* Analyse every parallel loop of a checked program.  A loop whose access
 * sets cannot be known is a compile error (reported, false returned),
 * unless `explain`, which records the verdict for acc_explain instead. */
bool acc_program(Program *p, bool explain);
/* The report of sapc --explain. */
void acc_explain(Program *p, FILE *out);
/* The key's expression as .sap text. */
char *acc_expr_str(Node *e);
char *acc_key_id(Node *e);
/* The DDSs statement s writes (driver code stamps their versions). */
void acc_dds_written(Node *s, Vec *out);
void acc_dds_written_expr(Node *e, Vec *out);
/* Is dds accumulated or relaxed: only added to (and, when relaxed, read
 * as of its round), so never a conflict? */
bool acc_is_accum(LoopInfo *li, Sym *dds);
bool acc_is_relaxed(LoopInfo *li, Sym *dds);
/* Is access a the target of an additive update, X[k] += v (or -=, ++,
 * --), and no other write? */
bool acc_adds_to(const Access *a);
/* The body inserts into (or erases from) map dds. */
bool acc_inserts(LoopInfo *li, Sym *dds);
/* The body writes map dds at keys that may be missing, which its slice
 * records: the runtime runs it planned when every one is there. */
bool acc_checks_keys(LoopInfo *li, Sym *dds);
/* Is a such a write, whose key the slice records? */
bool acc_check_insert(const Access *a);
/* Is a a write at a key that does not change with the loop variable,
 * which serializes the loop? */
bool acc_const_write(const Access *a);
/* The static access of a dvector at e (an N_INDEX), or NULL. */
Access *acc_static_dv(LoopInfo *li, Node *e);
/* The access of a dvector at e whose key the slice records, itself or as
 * the access it was folded into, or NULL. */
Access *acc_recorded_dv(LoopInfo *li, Node *e);
/* Does the loop only read DDS d, and only as d[i], i the loop variable,
 * d's elements flat or holding lists of flat elements?  Then the runtime
 * may give the body d's elements in plan order (for flat ones always,
 * when the body runs with sap_v 2: see emit_stage_sure). */
bool acc_by_index(LoopInfo *li, Sym *d);
/* Does loop li only read dvector d, at its loop variable (acc_by_index
 * without the copy, so also for elements holding strings or lists)? */
bool acc_reads_own(LoopInfo *li, Sym *d);
Node *acc_own_write_before(Node *r);
/* Every access of d, read or write, is at the loop variable itself. */
bool acc_at_own(LoopInfo *li, Sym *d);
/* Does li only read dvector d, and only at i + c for constants c, all in
 * [*lo, *hi] (a stencil's neighbours, u[i - 1] and u[i + 1])? */
bool acc_reads_near(LoopInfo *li, Sym *d, int64_t *lo, int64_t *hi);
/* Does li only read dvector d, each time at a key affine in the loop
 * variable or in a span (a row of a flat matrix, X[i * F + f])?  Then
 * the keys of a run of iterations are known when the loop starts. */
bool acc_reads_ranged(LoopInfo *li, Sym *d);
/* Does loop li touch map d only at the key of its loop over a map's keys
 * (so on several ranks the rank holding that key can run it)? */
bool acc_at_key(LoopInfo *li, Sym *d);
/* Does the read slice of li record every access of d? */
bool acc_dv_recorded(LoopInfo *li, Sym *d);
/* Every access of d in li is static: its slice records none. */
bool acc_no_slice(LoopInfo *li, Sym *d);
/* What the slice of an included control node c evaluates: a loop's
 * condition (or the part of it that implies the rest), an if's then
 * guard (NULL: always), or with skip, when an if's else branch is not
 * taken (NULL: never). */
Node *acc_slice_guard(Node *c, bool skip);
/* Does the slice run control node c's region (an if's branches, a loop's
 * iterations) where the body may not go? */
bool acc_slice_over(Node *c);
/* An if whose branches the slice takes one per path, sap_path: its bit
 * + 1, or 0. */
int acc_slice_fork(Node *c);

/* ==== access.c, slice.c, verdict.c: inside the analysis =============== */

/* What the stages of the analysis share: the units, controls and jumps of
 * the loop being analysed, and the helpers one stage takes from another.
 * Only the four files of the analysis use them. */

/* A statement, or the condition or step of a control statement, with what
 * it reads and writes. */
typedef struct Unit {
	Node *node;             /* N_VAR, N_EXPR; a control node for its cond/step */
	bool is_step;
	Vec ctrl;               /* enclosing control nodes in the body, outermost first */
	Vec branch;             /* per ctrl node, 1 (intptr_t) in an if's else branch */
	Vec defs, uses;         /* Sym * of body locals */
	Vec reads;              /* N_INDEX / N_CALL nodes reading a DDS */
	Node *rngcall;          /* a call no slice can repeat: of a function that draws random
	                         * numbers or reads the clock, or wtime() */
	Node *ddswrite;         /* a DDS write in it */
	Node *effect;           /* an assignment to a driver variable (reduce) */
	int pos;                /* in units: source order, loop headers first */
	bool included;
} Unit;

typedef struct Ctl {
	Node *node;
	Unit *cond, *step;      /* step: N_FOR */
	Vec ctrl;               /* enclosing control nodes */
	Node *taint;            /* why the condition cannot be evaluated: the
	                           read or call at the root, */
	Sym *from;              /* through this tainted local, */
	Node *jump;             /* or a break under a tainted condition */
	/* What the slice evaluates instead of a tainted condition, implied by
	 * it: an if's then branch runs when guard holds (always when NULL),
	 * its else branch unless skip holds; a counted loop runs while guard
	 * holds, ignoring the tainted rest (over) of its condition and breaks
	 * on tainted conditions. */
	Node *guard, *skip;
	Node *over;
	int fork;               /* an if whose branches the slice runs both of,
	                           one per path: its bit in the path number + 1 */
	bool included;
	bool is_loop;
} Ctl;

typedef struct Jump {
	Node *node;
	Vec ctrl;               /* enclosing control nodes */
	Node *target;           /* the loop it leaves or continues; NULL: the body */
	int pos;                /* units before it in source order */
} Jump;


/* Why a body local is tainted: the first cause found, for messages. */
typedef struct Taint {
	Sym *sym;
	Unit *unit;             /* the assignment that tainted it */
	Sym *from;              /* computed from this tainted local, */
	Node *ctl;              /* or assigned under this tainted control node
	                           (or after this continue), */
	Node *root;             /* else this read of a written DDS or call */
	Node *after;            /* a counted loop's counter: unknowable only
	                           after that loop (inside, the body's trips
	                           are a prefix of the slice's) */
} Taint;

/* The slice runs an iteration once per combination of the branches of
 * the forked ifs: 2^MAX_FORKS times at most. */
enum { MAX_FORKS = 6 };

/* The loop being analysed (access.c). */
extern Node *acc_loop;
extern LoopInfo *acc_li;
extern Sym *acc_iv;
extern Vec acc_units, acc_ctls, acc_jumps;
extern Vec acc_ctrl;            /* the current control stack */
extern Vec acc_branch;          /* and per node, 1 in an if's else branch */
extern Unit *acc_cur;           /* unit being walked */
extern bool acc_explain_mode;   /* acc_program's `explain`; nothing reads it */
extern Vec acc_taints;          /* Taint * of the loop's tainted locals */
/* How the slice is being built (slice.c): for a read slice, where a
 * failure only means there is none; for a sync for, the vectors it
 * records and why it cannot. */
extern bool acc_soft, acc_soft_failed;
extern Vec acc_sync_only;
extern const char *acc_sync_reject;

/* access.c: helpers, affine keys, the walk of the body, the taint. */
bool acc_is_dds(Node *e);
bool acc_is_local(Sym *s);
Sym *acc_array_base(Node *a);
void acc_add_sym(Vec *v, Sym *s);
bool acc_written(Sym *d);
bool acc_changing(Node *r, Unit *u);
/* Is r contains(m, k) or count(m, k) of a dmap whose keys the loop cannot
 * change while it runs in parallel (access.c)? */
bool acc_fixed_keys(Node *r);
/* Are the keys of dmap d fixed while loop L runs in parallel (the same
 * rule, for the emitter, which leaves its contains() unaudited)? */
bool acc_keys_fixed(LoopInfo *L, Sym *d);
/* Is r a read of a part of a DDS the loop writes that the loop never
 * changes: a field no write reaches, or such a map's keys? */
bool acc_read_fixed(Node *r);
/* Does loop L's slice read DDS d, which L writes, only where L never
 * changes it, so that L's own writes keep its plan (explain.c)? */
bool acc_slice_fixed(LoopInfo *L, Sym *d);
void acc_walk_expr(Node *e);
void acc_walk_stmt(Node *s);
Sym *acc_read_dds(Node *r);
Taint *acc_taint_at(Sym *s, Unit *u);
bool acc_tainted_def(Sym *s, Unit *u);
bool acc_unknown_def(Sym *s, Unit *u);
Node *acc_jump_taint(Jump *j);
bool acc_evaluable(Node *e, Unit *u, Vec *uses, Vec *reads);
Node *acc_then_guard(Node *e, Unit *u);
Node *acc_else_skip(Node *e, Unit *u);
void acc_compute_taint(void);
bool acc_choose_forks(void);
void acc_retaint(void);

/* slice.c: the reconnaissance slice and the messages of its failures. */
Node *acc_leftmost(Node *e);
void acc_reject(Node *at, const char *reason, Node *nat, const char *note);
/* The advice for a key chosen by a ?: on a value the loop writes. */
#define TERNARY_IF "the slice cannot take each branch of a conditional expression (?:) in " \
	"turn, as it does an if statement's: write it as an if"
Node *acc_unit_expr(Unit *u);
void acc_add_name(Vec *v, const char *name);
char *acc_name_list(Vec *v);
bool acc_adds_only(Access *a);
bool acc_defined_inside(Node *c, Vec *syms);
void acc_build_slice(void);
void acc_find_spans(void);
/* Do x and y compute the same value from the same variables (neither
 * with side effects nor random draws)? */
bool acc_same_expr(const Node *x, const Node *y);
Sym *acc_driver_read(Node *e);
/* What DDS d, which loop L writes, is to a hint that takes its updates
 * out of the plan: 0 none, 1 accumulate (only added to), 2 relaxed (added
 * to and read). */
int acc_additive(LoopInfo *L, Sym *d);
bool acc_shadowed_adds(LoopInfo *L, Sym *d);
bool acc_iter_gap(const Access *a, const Access *b, int64_t *d);
/* Is b's key a's of iteration i + e, e an invariant times a number plus a
 * number (x[i - off])? */
bool acc_iter_gap_inv(const Access *a, const Access *b);
/* Fill l's LoopInfo.sum_syms, once: sums in any order come out the same,
 * so the runtime may accumulate them per worker instead of planning. */
void acc_find_sums(Node *l);
bool acc_is_sum(LoopInfo *L, Sym *d);
bool acc_assigned_only(LoopInfo *L, Sym *d);
/* Every such variable e reads, added to out once. */
void acc_driver_reads(Node *e, Vec *out);
bool acc_is_reduce(Sym *s);
bool acc_has_rand(Node *e);

/* verdict.c: affine terms compared, and one loop analysed afresh. */
bool acc_same_terms(Vec *x, Vec *y);
bool acc_const_nonzero(Vec *a);
int acc_dds_mode_of(LoopInfo *l, Sym *d);
void acc_analyse_loop(Node *l);
bool acc_at_loop_key(const Access *a);

/* ==== emit*.c ========================================================== */

typedef struct EmitOpts {
	bool line_directives;
	/* What #line directives call the generated C (default: the main
	 * .sap file's name with ".c" appended). */
	const char *c_name;
	bool driver_no_slp;     /* main.c: driver code built without SLP */
} EmitOpts;

/* emit_ckpt.c: checkpoints.  After parallel loop s in main, a checkpoint
 * if one is due and the label that --resume jumps to; the jump itself,
 * at main's start; sap_program_state, which names the state the two
 * write and read; the program's hash, which a checkpoint carries. */
void emit_resume_point(Node *s);
char *emit_resume_switch(void);
void emit_state_fn(void);
char *emit_program_hash(void);

/* Write the C translation of a checked program. */
void emit_program(Program *p, FILE *out, const EmitOpts *o, const char *progname);
/* e through the conversions that widen an integer; its value, if those
 * leave a constant. */
Node *emit_unwiden(Node *e);
bool emit_const_val(Node *e, int64_t *v);
/* emit_range.c: the intervals of integer locals' values (Sym.vr_*), and
 * whether index i is one held inside [0, len). */
void emit_value_ranges(Program *p);
bool emit_index_in(Node *i, int64_t len);

/* Shared by emit.c (program, statements), emit_loop.c and emit_slice.c
 * (parallel loops, their slices), emit_expr.c (expressions, whole-array
 * arithmetic) and emit_io.c (types, helpers, load/save, params, print). */
typedef struct Scope Scope;
typedef struct Emitter {
	Program *prog;
	const EmitOpts *opts;
	Buf types, helpers, sites, protos, statics, funcs, main;
	Buf value_sizes;        /* "sizeof(T),\n" per array type: the stack */
	Buf *out;               /* the function being written */
	Buf *pre;               /* statements that must run before the current one */
	Vec *drops;             /* temporaries to drop after the current statement */
	int indent;
	int tmp;                /* counter for temporaries */
	int nsites;
	Scope *scope;
	bool in_const;          /* expanding a const/param initialiser */
	Node *loop;             /* the parallel loop whose body or slice is being written */
	Vec hoisted;            /* Hoist *: dvector elements addressed once per for loop */
	Vec memo;               /* Memo *: map elements looked up once an iteration */
	Vec counted;            /* Counted *: the for loops around, k < len(L), whose L[k] is in range */
	Vec lens;               /* Counted *: locals n = len(L) of the blocks around, still L's length */
	Vec ranged;             /* Ranged *: subscripts of the for loops around known in range */
	Vec depth_fns, depth_of;        /* emit_loop.c's body_depth: functions measured, and
	                                   their depths (intptr_t; -1 while measured) */
	/* Writing the one copy of an async body that its caller runs with
	 * sap_v 2 (every key known in range, every plan-order copy sap_stN
	 * there), 1 (the static keys known in range) or 0 (see emit_parallel
	 * in emit_loop.c). */
	bool versioned;
	bool in_body;           /* writing a parallel loop's body (not its slice) */
	bool acc_locals;        /* ... which holds its accumulate buffers in sap_acc_X */
	bool dv_locals;         /* ... and its driver vectors' data in sap_dX */
	Vec numtypes;           /* Type *: element types whose sap_numtype is written */
	bool main_code;         /* writing main's own statements (not a function's) */
	Vec loops_written;      /* ids (intptr_t) of the loops whose sap_loopN is there */
	Vec resume_points;      /* Node * N_ASYNC, N_SYNC: the loops main resumes after */
	Vec redfns;             /* char *: reduction helpers and checked numtypes written */
	Vec *stamps;            /* Sym *: DDSs a driver loop writes, stamped once it
	                           ends (emit_stamp), or NULL */
	Node *stamp_loop;       /* the driver loop stamps_after is writing */
	Vec renamed;            /* Sym *, then its own cname: the driver numbers such
	                           a loop holds in C locals, named apart */
	const char *drv_fast;   /* in such a loop, the flag that every vector it
	                           indexes is current on every rank (no holder
	                           map): sap_dv_ixdf, or NULL */
} Emitter;

/* Shared by emit.c, emit_loop.c and emit_slice.c: scopes, statements,
 * functions written aside, and the state of the slice being written. */
struct Scope {
	Scope *up;
	Vec drops;              /* char *: statements that free the scope's locals */
	bool loop;              /* break/continue leave through here */
	bool func;              /* return leaves through here */
	Node *first, *cur;      /* the block's statements, and the one being
	                           written (emit_stmts), else NULL */
};

/* Statements run one at a time: each gets its own prelude (already
 * written into E->out, before the statement) and its own temporaries to
 * drop after it. */
typedef struct StmtState {
	Vec drops;
	Vec *saved_drops;
	Buf *saved_pre;
} StmtState;


/* Write into a buffer of the protos section, outside any function. */
typedef struct Aside {
	Buf buf;
	Buf *out;
	int indent;
	Scope *scope;
} Aside;

/* emit.c: scopes, statements, for loops' conditions and bodies. */
const char *emit_scalar_kind(Type *t);
void emit_push_scope(bool loop, bool func);
void emit_pop_scope(Node *at);
void emit_stmt_begin(StmtState *st);
void emit_stmt_end(StmtState *st, Node *at);
char *emit_settle(Node *e, StmtState *st, const char *ctype);
void emit_body(Node *s);
bool emit_any_node(Node *n, int (*f)(Node *, void *), void *arg);
bool emit_last_use(Node *e);
/* Does the program store a wider value (double, int, long) in a float:
 * NARROW_HOT in a function or a parallel loop, NARROW_DRIVER in driver
 * code? */
enum { NARROW_HOT = 1, NARROW_DRIVER = 2 };
int emit_narrows_float(Program *prog);
void emit_loop_cond(Node *c);
void emit_stmt(Node *s);
/* Set while writing a slice (emit_slice.c), read by the declarations of
 * its locals (emit.c). */
extern bool emit_slice_volatile;
extern bool emit_spec_ahead;
extern bool emit_in_slice;

/* emit_loop.c: a parallel loop's helpers, functions and descriptor. */
void emit_aside_begin(Aside *a);
char *emit_aside_end(Aside *a);
void emit_rng_setup(Node *s, bool slice);
void emit_stage_decls(Node *s);
void emit_element_var(Node *s);
void emit_iterations_begin(Node *s);
void emit_iterations_end(Node *s);
void emit_stamp(Node *at, Vec *dds);
/* Does async loop s run in chunks of even work (sap_loopN_cost): its
 * inner loops' passes counted, and depending on the iteration?  For
 * --explain, which runs without an emitter. */
bool emit_cost_varies(Node *s);
void emit_parallel(Node *s);

/* emit_slice.c: the slice function, and what it has recorded so far. */
extern Map emit_stable_done, emit_stable_modes;
extern Vec emit_spec_open;
extern int emit_slice_depth;
void emit_slice_fn(Node *s);

/* A dvector element whose address a for loop computes (and checks) once. */
typedef struct Hoist {
	Sym *dds;
	char *key;              /* acc_expr_str of the subscript */
	char *ptr;              /* the C pointer variable; for a multimap,
	                           the sap_list of the key's values */
	char *decl;             /* its declaration, before the loop */
	char *drop;             /* after the loop, or NULL */
} Hoist;

/* A map an async body reaches at one key, the same all the iteration
 * (emit_memo.c): its element's address, once looked up. */
typedef struct Memo {
	Sym *map;
	char *key;              /* acc_key_id of the key */
	char *var;              /* the C pointer, NULL until the first access */
	const char *cond;       /* C: whether to use it (not when audited) */
} Memo;

typedef struct Counted {
	Sym *k;                 /* the counter */
	Node *list;             /* L of its condition k < len(L) */
} Counted;
/* Is L[k] in range, L and k those of a for loop around (emit.c)? */
bool emit_counted(Node *list, Node *index);
/* A subscript affine in the counter of a for loop around it, with the
 * flag (a C bool) that is true when every key the loop can give it is in
 * range: checked once, before the loop; or NULL. */
typedef struct Ranged {
	Node *key;
	char *flag;
} Ranged;
const char *emit_ranged(Node *key);
const char *emit_audit(Sym *d, bool write);
/* The async loop's index of a DDS its plan orders, or -1. */
int emit_planned_dds(Sym *d);
/* Declare the map elements loop s's body looks up once an iteration, in
 * E->memo; emit_memo finds the one of map m at key k, if any. */
void emit_memo_maps(Node *s);
const Memo *emit_memo(Node *m, Node *k);

extern Emitter *E;
const char *emit_ctype(Type *t);        /* ensures the typedef exists */
const char *emit_site(Node *n);         /* "&sap_S[12]" */
char *emit_tmp(const char *prefix);
void emit_line(Node *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *emit_expr(Node *e);               /* a C expression; may add to E->pre */
char *emit_tv_set(Node *assign);
char *emit_owned(Node *e);              /* a value the receiver owns */
char *emit_view(Node *e);               /* the same, borrowing a dmultimap's values */
/* A name for t, a C local holding e's value, to stand for e. */
Node *emit_temp_node(Node *e, const char *t);
char *emit_lvalue(Node *e);
char *emit_test(Node *e);
char *emit_converted(Node *at, Type *dt, Node *src);             /* storage that may be written */
char *emit_member(const char *base, const char *field); /* base.field, or p->field */
char *emit_addr(const char *x);         /* &x, or p for *p */
void emit_store(Node *at, const char *dst, Type *dt, Node *src, int op);
/* The source to store to lhs: src, or its value already computed where
 * the store may move storage src reads. */
Node *emit_store_src(Node *lhs, Node *src);
void emit_zero(Node *at, const char *dst, Type *t);
bool emit_is_simple(Node *e);
const char *emit_drop_fn(Type *t);      /* "sap_drop_list_int" */
const char *emit_copy_fn(Type *t);
/* "sap_codec_T": how elements of a type holding strings or lists travel
 * between ranks (sap_codec). */
const char *emit_codec(Type *t);
/* The packing of a value of type t as bytes, and back (emit_io.c). */
const char *emit_pack_fn(Type *t);
const char *emit_unpack_fn(Type *t);
const char *emit_parse_fn(Type *t);
const char *emit_field_names(Type *t);
const char *emit_format_fn(Type *t);
char *emit_print(Node *call);
void emit_params(Program *p, const char *progname);
char *emit_cstr(const char *s, size_t n);
/* The index of d among loop li's DDSs when the body may read it from a
 * plan-order copy (sap_stN), else -1. */
int emit_staged(LoopInfo *li, Sym *d);
/* Is that copy there whenever the body runs with sap_v 2?  For flat
 * elements; one holding lists is copied only where it gains. */
bool emit_stage_sure(LoopInfo *li, Sym *d);
bool emit_synced(LoopInfo *li, Sym *d);
bool emit_tracked(LoopInfo *li, Sym *d);
char *emit_dv_data(Sym *d);

#endif
