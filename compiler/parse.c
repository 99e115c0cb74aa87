/* parse.c: the driver that feeds the lexer's tokens to the lemon parser,
 * the syntax-error messages it reports, and the depth check every later
 * pass relies on.  Apart from the tree builder (ast.c) so that the builder
 * stays a list of constructors and the parse loop, with the parser-state
 * copies its messages need, reads in one place. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/* ---- syntax errors ---- */

static const char *tokdesc(Tok t)
{
	if (t.kind == 0)
		return "end of file";
	return format("'%.*s'", t.len, t.p);
}

static bool is_word_char(char c)
{
	return c == '_' || isalnum((unsigned char)c);
}

/* Is there a "struct NAME" after offset `from`?  Returns its offset, or -1. */
static int struct_defined_later(SrcFile *f, int from, Tok name)
{
	const char *s = f->text + from;
	while ((s = strstr(s, "struct")) != NULL) {
		const char *q = s + 6;
		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		if (!is_word_char(s[-1]) && q > s + 6 && !strncmp(q, name.p, name.len) &&
		    !is_word_char(q[name.len]))
			return (int)(q - f->text);
		s += 6;
	}
	return -1;
}

static void closest(const char *name, const char *cand, const char **best, int *bd)
{
	int d = diag_distance(name, cand);
	if (d < *bd) {
		*bd = d;
		*best = cand;
	}
}

/* A word of C's integer types that SAP does not have. */
static bool c_int_word(Tok t)
{
	static const char *words[] = {"unsigned", "signed", "short", "char", "size_t", "int8_t",
	                              "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
	                              "uint32_t", "uint64_t"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if ((size_t)t.len == strlen(words[i]) && !strncmp(t.p, words[i], (size_t)t.len))
			return true;
	return false;
}

/* An identifier used as a type: name what it may have meant. */
static void unknown_type(Program *p, Tok t)
{
	const char *name = format("%.*s", t.len, t.p);
	int later = struct_defined_later(p->cur, t.off + t.len, t);
	if (later >= 0) {
		int line, col;
		diag_linecol(p->cur, later, &line, &col);
		diag_error(p->cur, t.off, "unknown type '%s': struct '%s' is defined later, on line %d; "
		           "define a struct before its first use", name, name, line);
		return;
	}
	if (c_int_word(t)) {
		/* C's text is char *: SAP's is string. */
		const char *q = p->cur->text + t.off + t.len;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!strcmp(name, "char") && *q == '*')
			diag_error(p->cur, t.off, "unknown type 'char': text is a 'string' in SAP "
			           "(string s = \"x\";), and there are no pointers");
		else
			diag_error(p->cur, t.off, "unknown type '%s': SAP's integers are int (32 bits) "
			           "and long (64 bits), both signed", name);
		return;
	}
	if (!strcmp(name, "FILE")) {
		diag_error(p->cur, t.off, "unknown type 'FILE': a data file is read whole by load() "
		           "into a dvector, one element a line, and written by save() (sap(7), "
		           "LOADING AND SAVING)");
		return;
	}
	static const char *builtin[] = {"bool", "int", "long", "float", "double", "string"};
	const char *best = NULL;
	int bd = 3;
	for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
		closest(name, builtin[i], &best, &bd);
	for (int i = 0; i < p->lx->typenames.n; i++)
		closest(name, p->lx->typenames.v[i], &best, &bd);
	if (best)
		diag_error(p->cur, t.off, "unknown type '%s'; did you mean '%s'?", name, best);
	else
		diag_error(p->cur, t.off, "unknown type '%s'", name);
}

/* The file ended where the parser wanted more: say what it wanted. */
static void eof_error(Program *p, Tok t)
{
	int at = p->prev.p ? p->prev.off + p->prev.len : t.off;
	/* '}' first: after a complete statement, ';' would always do. */
	static const struct { int kind; const char *text; } wants[] = {
		{TK_RBRACE, "'}'"}, {TK_SEMI, "';'"}, {TK_RPAREN, "')'"}, {TK_RBRACKET, "']'"},
		{TK_GT, "'>'"}, {TK_INTLIT, "an expression"}, {TK_IDENT, "a name"},
	};
	for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
		if (!parse_would_shift(p->before_tok, wants[i].kind, t))
			continue;
		if (wants[i].kind == TK_SEMI && p->prev.p) {
			diag_error(p->cur, at, "expected ';' after %s at the end of the file", tokdesc(p->prev));
			return;
		}
		if (wants[i].kind == TK_RBRACE && p->open_braces.n > 0) {
			int off = (int)(intptr_t)p->open_braces.v[p->open_braces.n - 1];
			diag_error(p->cur, at, "unexpected end of file: expected '}'");
			diag_note(p->cur, off, "to close this '{'");
			if (p->brace_close >= 0) {
				int line, col;
				diag_linecol(p->cur, p->brace_close, &line, &col);
				diag_note(p->cur, p->brace_open, "the '}' on line %d closes this '{', but is "
				          "indented differently; is this the '{' without a '}'?", line);
			}
			return;
		}
		if (p->prev.p)
			diag_error(p->cur, at, "unexpected end of file: expected %s after %s", wants[i].text,
			           tokdesc(p->prev));
		else
			diag_error(p->cur, at, "unexpected end of file: expected %s", wants[i].text);
		return;
	}
	diag_error(p->cur, at, "unexpected end of file");
}

/* A C statement SAP has no form of, by the first word of the line the
 * error is on (a porter's switch, goto label, static), as a message
 * about the word at *at; or NULL. */
static const char *c_statement(Program *p, Tok t, int *at)
{
	const char *text = p->cur->text, *q = text + t.off;
	while (q > text && q[-1] != '\n')
		q--;
	while (*q == ' ' || *q == '\t')
		q++;
	static const struct { const char *word, *say; } forms[] = {
		{"switch", "SAP has no switch: write it as if / else if"},
		{"case", "SAP has no switch or case: write it as if / else if"},
		{"default", "SAP has no switch or default: write it as if / else if"},
		{"goto", "SAP has no goto or labels: use a loop with break or continue, or a flag"},
		{"static", "SAP has no static: a variable declared outside functions lives as long "
		           "as the program, and one inside lives for its call"},
		{"typedef", "SAP has no typedef: name the type itself (struct S ...; then S x;)"},
		{"enum", "SAP has no enum: use const int names"},
		{"union", "SAP has no union: use a struct"},
		{"inline", "SAP has no inline: the C compiler inlines small functions by itself"},
	};
	*at = (int)(q - text);
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		size_t n = strlen(forms[i].word);
		if (!strncmp(q, forms[i].word, n) && (q[n] == ' ' || q[n] == '\t' || q[n] == '(' ||
		                                      q[n] == ':' || q[n] == '\n' || q[n] == 0))
			return forms[i].say;
	}
	/* ... or where the statement starts within the line (if (k) goto
	 * done;): the word is the token met or the one before it. */
	Tok w[2] = {p->prev, t};
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; w[k].p && w[k].kind == TK_IDENT && i < sizeof forms / sizeof forms[0]; i++)
			if ((size_t)w[k].len == strlen(forms[i].word) &&
			    !strncmp(w[k].p, forms[i].word, (size_t)w[k].len) &&
			    strcmp(forms[i].word, "default") && strcmp(forms[i].word, "case")) {
				*at = w[k].off;
				return forms[i].say;
			}
	/* ... or a switch after another statement on the line (int k = 2;
	 * switch (k) {), which parses as a call up to its '{'. */
	for (const char *x = q; x + 6 <= text + t.off; x++)
		if (!strncmp(x, "switch", 6) && (x == q || !is_word_char(x[-1]))) {
			const char *y = x + 6;
			while (*y == ' ' || *y == '\t')
				y++;
			if (*y == '(') {
				*at = (int)(x - text);
				return forms[0].say;
			}
		}
	/* A label: a name and ':' opening the line. */
	const char *e = q;
	while (*e == '_' || (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') ||
	       (e > q && *e >= '0' && *e <= '9'))
		e++;
	if (e > q && t.kind == TK_COLON && text + t.off == e) {
		*at = t.off;
		return "SAP has no goto or labels: use a loop with break or continue, or a flag";
	}
	return NULL;
}

/* q moved back over the blanks and tabs before it, not past text. */
static const char *back_blanks(const char *text, const char *q)
{
	while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	return q;
}

/* The first word of the statement that offset off is in, or "for" in a
 * for's parentheses; "" if none. */
/* Whether the '[' just read follows a type (int[) or a name after one
 * (int a[, Point p[), as in a declaration, not an expression (l[). */
static bool declares_array(const Program *p)
{
	const char *text = p->cur->text, *q = back_blanks(text, text + p->prev.off);
	for (int words = 0; words < 2 && q > text; words++) {
		const char *e = q;
		while (q > text && is_word_char(q[-1]))
			q--;
		if (q == e)
			return q > text && q[-1] == '>';
		size_t n = (size_t)(e - q);
		static const char *const types[] = { "int", "long", "float", "double", "bool",
		                                     "string", "short", "char", "unsigned" };
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
			if (strlen(types[i]) == n && !strncmp(q, types[i], n))
				return true;
		if (map_getn(&p->lx->typeset, q, n))
			return true;
		q = back_blanks(text, q);
	}
	return false;
}

static const char *stmt_word(const char *text, int off)
{
	static char word[16];
	const char *q = text + off;
	int depth = 0;
	for (; q > text; q--) {
		char c = q[-1];
		if (c == ')')
			depth++;
		else if (c == '(' && depth-- == 0) {
			const char *w = back_blanks(text, q - 1);
			if (w - text >= 3 && !strncmp(w - 3, "for", 3) && (w - 3 == text || !is_word_char(w[-4])))
				return "for";
			break;
		} else if (depth == 0 && (c == ';' || c == '{' || c == '}'))
			break;
	}
	while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
		q++;
	size_t n = 0;
	while (n + 1 < sizeof word && is_word_char(q[n]))
		n++;
	memcpy(word, q, n);
	word[n] = 0;
	return word;
}

/* Whether the name at off in text stands in the list of a reduce,
 * accumulate or relaxed clause: after "reduce (op:" and names and
 * commas only. */
static bool in_clause_names(const char *text, int off)
{
	const char *q = text + off;
	while (q > text && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == ',' ||
	                    is_word_char(q[-1])))
		q--;
	if (q == text || q[-1] != ':')
		return false;
	/* The operator, then "(" and the clause's word. */
	const char *o = q - 1;
	while (o > text && o[-1] != '(' && o[-1] != ';' && o[-1] != '{' && o[-1] != ')')
		o--;
	if (o == text || o[-1] != '(')
		return false;
	const char *w = back_blanks(text, o - 1);
	const char *a = w;
	while (a > text && is_word_char(a[-1]))
		a--;
	static const char *const words[] = { "reduce", "accumulate", "relaxed" };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if ((size_t)(w - a) == strlen(words[i]) && !strncmp(a, words[i], (size_t)(w - a)))
			return true;
	return false;
}

/* One message, suggesting the token that would let the parse go on. */
void parse_syntax_error(Program *p, Tok t)
{
	if (p->failed)
		return;
	p->failed = true;
	if (!t.p) {
		diag_error(p->cur, p->prev.off, "nested too deeply; split it up");
		return;
	}
	if (t.kind == 0) {
		eof_error(p, t);
		return;
	}
	int at;
	const char *c = c_statement(p, t, &at);
	if (c) {
		diag_error(p->cur, at, "%s", c);
		return;
	}
	/* An identifier where a type must be ("dvector<Ratings>"), or one
	 * that would parse as a type before the next ("Ratings r"): the lexer
	 * knows only the structs defined so far. */
	if (t.kind == TK_IDENT && parse_would_shift(p->before_tok, TK_TYPENAME, t)) {
		unknown_type(p, t);
		return;
	}
	if (t.kind == TK_IDENT && p->prev.kind == TK_IDENT && p->before_prev_off == p->prev.off &&
	    parse_would_accept(p->before_prev, TK_TYPENAME, t)) {
		unknown_type(p, p->prev);
		return;
	}
	/* unsigned int x: C's words before a type. */
	if (t.kind >= TK_BOOL && t.kind <= TK_STRING && p->prev.kind == TK_IDENT && c_int_word(p->prev)) {
		unknown_type(p, p->prev);
		return;
	}
	/* sync for (long i = 0; ...): the counted header of an async for. */
	if (t.kind == TK_ASSIGN && p->prev.kind == TK_IDENT) {
		const char *txt0 = p->cur->text, *q = txt0 + p->prev.off;
		int parens = 0;
		while (q > txt0 && !strchr(";{}", q[-1]) && parens <= 0) {
			q--;
			parens += *q == '(';
		}
		q = back_blanks(txt0, q);
		if (parens == 1 && q - txt0 >= 3 && !strncmp(q - 3, "for", 3)) {
			const char *f = back_blanks(txt0, q - 3);
			if (f - txt0 >= 4 && !strncmp(f - 4, "sync", 4)) {
				diag_error(p->cur, t.off, "a sync for runs over the elements of a dvector, "
				           "'sync for (T x : D) with (...)' (or its mini-batches, "
				           "'sync for (list<T> b : D)'); a counted loop is an async for");
				return;
			}
		}
	}
	/* (double[3]) a: a cast to an array type. */
	if (t.kind == TK_LBRACKET && p->prev.kind >= TK_BOOL && p->prev.kind <= TK_STRING) {
		const char *txt0 = p->cur->text, *o = back_blanks(txt0, txt0 + p->prev.off);
		if (o > txt0 && o[-1] == '(') {
			diag_error(p->cur, (int)(o - 1 - txt0), "SAP has no casts to array types: an "
			           "array converts element by element in an assignment, as in "
			           "double[3] b = a;");
			return;
		}
	}
	/* (unsigned) x, (uint32_t) n: a cast to one of C's integer words. */
	if (p->prev.kind == TK_RPAREN) {
		const char *txt0 = p->cur->text, *e = back_blanks(txt0, txt0 + p->prev.off), *b;
		for (b = e; b > txt0 && is_word_char(b[-1]); b--)
			;
		const char *o = back_blanks(txt0, b);
		Tok w = { TK_IDENT, b, (int)(e - b), (int)(b - txt0) };
		if (e > b && o > txt0 && o[-1] == '(' && c_int_word(w)) {
			diag_error(p->cur, w.off, "no type '%.*s' in SAP: its integers are int (32 bits) and "
			           "long (64 bits), both signed; cast with (int)x or (long)x", w.len, w.p);
			return;
		}
	}
	/* order = list<int>();: a constructor, as in C++. */
	if (t.kind == TK_LIST && parse_would_shift(p->before_tok, TK_IDENT, t) &&
	    t.p[t.len] == '<') {
		diag_error(p->cur, t.off, "SAP has no list constructor: a list declared without a "
		           "value starts empty ('list<int> l;'); to empty one, declare it where it "
		           "should start again, or assign it an empty list ('list<int> none; l = none;')");
		return;
	}
	/* for (...) reduce(+: s) {: a clause on a loop that takes none, or
	 * after the body. */
	if ((t.kind == TK_REDUCE || t.kind == TK_ACCUMULATE || t.kind == TK_RELAXED) &&
	    (p->prev.kind == TK_RPAREN || p->prev.kind == TK_RBRACE)) {
		const char *w = p->prev.kind == TK_RPAREN ? stmt_word(p->cur->text, t.off) : "";
		if (!strcmp(w, "for") || !strcmp(w, "while")) {
			diag_error(p->cur, t.off, "a plain %s runs its passes in order and takes no "
			           "clauses: reduce, accumulate and relaxed go on an async for, between its "
			           "parentheses and its body (and reduce on a sync for, after its with "
			           "clause)", w);
			return;
		}
		if (!strcmp(w, "sync")) {
			diag_error(p->cur, t.off, t.kind == TK_REDUCE ?
			           "a sync for's reduce clause comes after its with (...) clause" :
			           "a sync for takes a with (...) clause and reduce, not accumulate or "
			           "relaxed: its merge(V) = sum adds the workers' changes");
			return;
		}
		if (p->prev.kind == TK_RBRACE) {
			diag_error(p->cur, t.off, "a loop's clauses go between its parentheses and its "
			           "body: async for (...) %.*s(...) { ... }", t.len, t.p);
			return;
		}
	}
	/* int relaxed = 0;: C names that are SAP's words. */
	static const int words[] = { TK_PARAM, TK_ASYNC, TK_SYNC, TK_REDUCE, TK_ACCUMULATE, TK_WITH,
	                             TK_LIST, TK_DVECTOR, TK_DMAP, TK_DMULTIMAP, TK_RELAXED,
	                             TK_STRING };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (t.kind == words[i] && parse_would_shift(p->before_tok, TK_IDENT, t)) {
			diag_error(p->cur, t.off, "'%.*s' is a word of SAP's (not of C's), which cannot name "
			           "a variable or a function: rename it", t.len, t.p);
			return;
		}
	/* sync for (Rating a : A) { ... }: the with clause left out. */
	if (p->prev.kind == TK_RPAREN && parse_would_shift(p->before_tok, TK_WITH, t)) {
		diag_error(p->cur, t.off, "a sync for needs a with clause after its parentheses: "
		           "with (bsp, batch = M), ssp(s) or hybrid instead of bsp (sap(7), sync for)");
		return;
	}
	/* sizeof(double), sizeof n: a type or a name after it (sizeof(x) is
	 * a call, which sema explains). */
	const char *txt = p->cur->text, *q = txt + t.off;
	while (q > txt && (q[-1] == ' ' || q[-1] == '(' || q[-1] == '\t' || is_word_char(q[-1])) &&
	       !(q - txt >= 6 && !strncmp(q - 6, "sizeof", 6)))
		q--;
	if (q - txt >= 6 && !strncmp(q - 6, "sizeof", 6) && (q - 6 == txt || !is_word_char(q[-7]))) {
		diag_error(p->cur, (int)(q - 6 - txt), "SAP has no sizeof: len(x) is the number of "
		           "elements of a list, an array, a string or a DDS");
		return;
	}
	/* &x where a value goes: an address. */
	if (t.kind == TK_AND && parse_would_shift(p->before_tok, TK_IDENT, t)) {
		diag_error(p->cur, t.off, "SAP has no pointers, so '&' takes no address: pass or "
		           "assign the value itself (a function returns what it changes)");
		return;
	}
	/* double *p; and s->f: pointers. */
	if (t.kind == TK_STAR && p->prev.p &&
	    ((p->prev.kind >= TK_BOOL && p->prev.kind <= TK_VOID) || p->prev.kind == TK_TYPENAME)) {
		diag_error(p->cur, t.off, "SAP has no pointers: what a pointer would point to is a "
		           "dvector, a list or an array, passed and returned by value");
		return;
	}
	if (t.kind == TK_GT && p->prev.p && p->prev.kind == TK_MINUS && p->prev.off + 1 == t.off) {
		diag_error(p->cur, p->prev.off, "SAP has no pointers and no '->': a struct's field is "
		           "s.f");
		return;
	}
	if (t.kind == TK_RBRACE && p->open_braces.n == 0) {
		diag_error(p->cur, t.off, "unexpected '}': there is no open '{' for it to close");
		return;
	}
	if (t.kind == TK_ELSE) {
		diag_error(p->cur, t.off, "'else' without an 'if' before it");
		return;
	}
	/* reduce(-: x): where an operator of reduce, accumulate or relaxed
	 * goes (+ would do), one it has not. */
	if (t.kind != TK_PLUS && t.kind != TK_IDENT && p->prev.kind == TK_LPAREN &&
	    parse_would_shift(p->before_tok, TK_PLUS, t) && parse_would_shift(p->before_tok, TK_OROR, t)) {
		diag_error(p->cur, t.off, "'%.*s' is no operator of a reduction: use +, *, &&, ||, &, |, ^ "
		           "or a function's name (min, max, or one of the program's); a difference is "
		           "reduce(+: x) with x -= ... in the body", t.len, t.p);
		return;
	}
	/* reduce(min: s.lo): a clause names whole variables. */
	if ((t.kind == TK_DOT || t.kind == TK_LBRACKET) && p->prev.kind == TK_IDENT && p->prev.p &&
	    in_clause_names(p->cur->text, p->prev.off)) {
		diag_error(p->cur, t.off, "a reduce, accumulate or relaxed clause names variables "
		           "(or DDSs), not parts of them: name '%.*s' whole (a struct or array of "
		           "numbers reduces field by field, element by element)", p->prev.len, p->prev.p);
		return;
	}
	/* int a = 1, b = 2; and C's comma operator, i = 0, j = 1. */
	if (t.kind == TK_COMMA && parse_would_shift(p->before_tok, TK_SEMI, t)) {
		const char *w = stmt_word(p->cur->text, t.off);
		diag_error(p->cur, t.off, "expected ';' before ','; %s",
		           !strcmp(w, "for") ? "a for loop declares one variable and has no comma "
		                               "operator: declare the others before the loop" :
		           !strcmp(w, "param") ? "a param declares one name: write each as a "
		                                 "declaration of its own" :
		           !strcmp(w, "dvector") || !strcmp(w, "dmap") || !strcmp(w, "dmultimap") ?
		                                 "a DDS is declared one to a declaration" :
		           "SAP has no comma operator: write each as a statement of its own");
		return;
	}
	/* C habits: = {1, 2, 3}. */
	if (t.kind == TK_LBRACE && (p->prev.kind == TK_COMMA || p->prev.kind == TK_LPAREN)) {
		diag_error(p->cur, t.off, "SAP has no array or struct literals: declare a local, set "
		           "its elements (a variable declared without a value is all zeros) and pass it");
		return;
	}
	if (t.kind == TK_LBRACE && p->prev.kind == TK_ASSIGN) {
		/* int v[4] = {0}; only says what a declaration does anyway. */
		const char *b = p->cur->text + t.off + 1;
		while (*b == ' ' || *b == '\t')
			b++;
		if (*b == '0' && !is_word_char(b[1]) && b[1] != '.') {
			for (b++; *b == ' ' || *b == '\t'; b++)
				;
		}
		if (*b == '}') {
			diag_error(p->cur, t.off, "SAP has no brace initialisers, and needs none here: a "
			           "variable declared without a value is all zeros; drop the '= {...}'");
			return;
		}
		diag_error(p->cur, t.off, "SAP has no brace initialisers: assign the elements one by one "
		           "(a[0] = 1; ...) or in a loop");
		return;
	}
	/* const long A[4] = {...};: a const is one number, bool or string. */
	if (t.kind == TK_LBRACKET && p->prev.kind == TK_IDENT &&
	    !strcmp(stmt_word(p->cur->text, t.off), "const")) {
		diag_error(p->cur, t.off, "a const is a number, a bool or a string, not an array: declare "
		           "the array without const and assign its elements");
		return;
	}
	/* (void) f(x);: a call's result may go unused as it is. */
	if (t.kind == TK_VOID && p->prev.kind == TK_LPAREN &&
	    parse_would_shift(p->before_tok, TK_IDENT, t)) {
		diag_error(p->cur, t.off, "SAP has no casts to void: a call whose result goes unused is "
		           "a statement as it is, f(x);");
		return;
	}
	/* int S = 1; S S;: a name a struct has taken, where a declaration
	 * names its variable (or field). */
	if (t.kind == TK_TYPENAME && parse_would_shift(p->before_tok, TK_IDENT, t) &&
	    (p->prev.kind == TK_BOOL || p->prev.kind == TK_INT || p->prev.kind == TK_LONG ||
	     p->prev.kind == TK_FLOAT || p->prev.kind == TK_DOUBLE || p->prev.kind == TK_STRING ||
	     p->prev.kind == TK_VOID || p->prev.kind == TK_TYPENAME || p->prev.kind == TK_GT ||
	     p->prev.kind == TK_RBRACKET)) {
		diag_error(p->cur, t.off, "'%.*s' is the name of a struct, which no variable, field, "
		           "parameter or function can also have", t.len, t.p);
		return;
	}
	/* S s = S(0, 1); or (S){0, 1}: a struct value written out. */
	if (t.kind == TK_TYPENAME && parse_would_shift(p->before_tok, TK_IDENT, t)) {
		diag_error(p->cur, t.off, "SAP has no struct literals or constructors: declare a "
		           "variable of type '%.*s' (all zeros when declared without a value) and set "
		           "its fields, s.f = ...", t.len, t.p);
		return;
	}
	/* merge(W, b) = sum: one vector a merge. */
	if (t.kind == TK_COMMA && p->prev.kind == TK_IDENT && p->prev.p) {
		const char *text = p->cur->text, *q = back_blanks(text, text + p->prev.off);
		if (q > text && q[-1] == '(') {
			q = back_blanks(text, q - 1);
			if (q - text >= 5 && !strncmp(q - 5, "merge", 5) &&
			    (q - 5 == text || !is_word_char(q[-6]))) {
				diag_error(p->cur, t.off, "a merge names one vector: write one for each, "
				           "merge(%.*s) = f, merge(...) = f", p->prev.len, p->prev.p);
				return;
			}
		}
	}
	/* L.push(3): C++'s and Python's method calls. */
	if (t.kind == TK_LPAREN && p->prev.kind == TK_IDENT && p->prev.p) {
		const char *text = p->cur->text, *q = back_blanks(text, text + p->prev.off);
		if (q > text && q[-1] == '.') {
			const char *b = back_blanks(text, q - 1);
			const char *a = b;
			while (a > text && (a[-1] == '_' || a[-1] == ']' || a[-1] == '[' ||
			                    (a[-1] >= 'a' && a[-1] <= 'z') || (a[-1] >= 'A' && a[-1] <= 'Z') ||
			                    (a[-1] >= '0' && a[-1] <= '9') || a[-1] == '.'))
				a--;
			static const struct { const char *m, *f, *rest; } as[] = {
				{"size", "len", ""}, {"length", "len", ""}, {"len", "len", ""},
				{"push_back", "push", ", x"}, {"append", "push", ", x"}, {"push", "push", ", x"},
				{"add", "push", ", x"}, {"insert", "insert", ", k, v"},
				{"erase", "erase", ", k"}, {"remove", "erase", ", k"},
				{"count", "count", ", k"}, {"contains", "contains", ", k"},
				{"get", "get", ", k, default"}, {"keys", "keys", ""},
			};
			for (size_t i = 0; i < sizeof as / sizeof as[0]; i++)
				if ((size_t)p->prev.len == strlen(as[i].m) &&
				    !strncmp(p->prev.p, as[i].m, (size_t)p->prev.len)) {
					diag_error(p->cur, p->prev.off, "SAP has no methods: write %s(%.*s%s)",
					           as[i].f, (int)(b - a), a, as[i].rest);
					return;
				}
			diag_error(p->cur, p->prev.off, "SAP has no methods: a function takes the value "
			           "as an argument, %.*s(%.*s, ...)", p->prev.len, p->prev.p,
			           (int)(b - a), a);
			return;
		}
	}
	/* int a[] and int[] a: C's arrays of a size given elsewhere; the
	 * word before the '[' (or before its name) is a type's. */
	if (t.kind == TK_RBRACKET && p->prev.kind == TK_LBRACKET && declares_array(p)) {
		diag_error(p->cur, t.off, "an array's size is part of its type, a constant, as in "
		           "int a[4] or int[4] a (a parameter too); for a number of elements known only "
		           "at run time, use a list, list<int> a");
		return;
	}
	static const struct { int kind; const char *text; } fixes[] = {
		{TK_SEMI, ";"}, {TK_RPAREN, ")"}, {TK_RBRACKET, "]"}, {TK_RBRACE, "}"},
		{TK_GT, ">"}, {TK_COMMA, ","}, {TK_COLON, ":"}, {TK_LPAREN, "("},
		{TK_INTLIT, "an expression"}, {TK_IDENT, "a name"},
	};
	for (size_t i = 0; i < sizeof fixes / sizeof fixes[0]; i++) {
		Tok x = t;
		/* '>' closes generic types; inside expressions it would always fit. */
		if (fixes[i].kind == TK_GT && p->lx->angle == 0)
			continue;
		if (!parse_would_accept(p->before_tok, fixes[i].kind, x))
			continue;
		const char *q = fixes[i].kind == TK_IDENT || fixes[i].kind == TK_INTLIT ? "" : "'";
		/* A missing ';' belongs at the end of the previous line. */
		int line1, line2, col;
		diag_linecol(p->cur, p->prev.off, &line1, &col);
		diag_linecol(p->cur, t.off, &line2, &col);
		if (fixes[i].kind == TK_SEMI && p->prev.p && line1 < line2)
			diag_error(p->cur, p->prev.off + p->prev.len, "expected ';' after %s",
			           tokdesc(p->prev));
		else
			diag_error(p->cur, t.off, "expected %s%s%s before %s", q, fixes[i].text, q,
			           tokdesc(t));
		return;
	}
	if (t.kind == TK_SEMI && parse_would_shift(p->before_tok, TK_ASSIGN, t))
		diag_error(p->cur, t.off, "expected '=' and a value before ';'");
	else
		diag_error(p->cur, t.off, "syntax error: unexpected %s", tokdesc(t));
}

/* ---- the parse driver ---- */

/* Every pass after the parser walks the tree recursively; a tree deeper
 * than this is an error here, before any of them could overflow the
 * stack.  Left-associative chains (a + b + c ...) are as deep as they are
 * long, which the parser's own stack does not bound. */
typedef struct DepthItem {
	Node *n;
	TypeSpec *ts;
	Node *stmt;             /* the innermost statement around it */
	int depth;
} DepthItem;

static bool is_stmt(Node *n)
{
	return n->kind >= N_BLOCK && n->kind <= N_EMPTY;
}

static bool check_depth(Node *items)
{
	DepthItem *st = NULL;
	int n = 0, cap = 0;
#define PUSH(N, TS, STMT, D)                                                        \
	do {                                                                         \
		if ((N) || (TS)) {                                                   \
			if (n == cap) {                                              \
				cap = cap ? cap * 2 : 256;                           \
				st = xrealloc(st, (size_t)cap * sizeof *st);         \
			}                                                            \
			st[n++] = (DepthItem){(N), (TS), (STMT), (D)};               \
		}                                                                    \
	} while (0)
	PUSH(items, NULL, NULL, 1);
	bool ok = true;
	while (n > 0 && ok) {
		DepthItem it = st[--n];
		int d = it.depth;
		if (it.ts) {
			TypeSpec *t = it.ts;
			if (d > AST_MAX_DEPTH) {
				diag_error(t->file, t->off, "type nested too deeply: more than %d levels",
				           AST_MAX_DEPTH);
				ok = false;
				break;
			}
			PUSH(NULL, t->elem, it.stmt, d + 1);
			PUSH(NULL, t->key, it.stmt, d + 1);
			PUSH(t->size, NULL, it.stmt, d + 1);
			continue;
		}
		Node *x = it.n;
		PUSH(x->next, NULL, it.stmt, d);
		Node *stmt = is_stmt(x) ? x : it.stmt;
		if (d > AST_MAX_DEPTH) {
			Node *at = stmt ? stmt : x;
			diag_error(at->file, at->off, "%s nested too deeply: more than %d levels; split it "
			           "up", stmt == x || !stmt ? "statements" : "expression", AST_MAX_DEPTH);
			ok = false;
			break;
		}
		Node *kids[] = {x->lhs, x->rhs, x->cond, x->then, x->els, x->init, x->step, x->body,
		                x->args, x->clauses, x->size};
		for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
			PUSH(kids[i], NULL, stmt, d + 1);
		PUSH(NULL, x->ts, stmt, d + 1);
	}
#undef PUSH
	xfree(st);
	return ok;
}

/* The indentation of the line holding offset off, and whether off is the
 * first thing on it. */
static int indent_of(SrcFile *f, int off, bool *first)
{
	int s = off;
	while (s > 0 && f->text[s - 1] != '\n')
		s--;
	int e = s;
	while (f->text[e] == ' ' || f->text[e] == '\t')
		e++;
	*first = e == off;
	return e - s;
}

bool parse_file(Program *prog, SrcFile *f)
{
	if (!prog->tail)
		prog->tail = &prog->items;
	Node **first = prog->tail;
	Lexer *lx = xcalloc(1, sizeof *lx);
	lex_init(lx, f);
	if (prog->lx)
		lx->typenames = prog->lx->typenames, lx->typeset = prog->lx->typeset;
	prog->lx = lx;
	prog->cur = f;
	prog->prev = (Tok){0};
	prog->before_tok = SapParseAlloc(malloc);
	prog->before_prev = SapParseAlloc(malloc);
	prog->before_prev_off = -1;
	prog->open_braces.n = 0;
	prog->brace_open = prog->brace_close = -1;
	vec_push(&prog->files, f);
	void *parser = SapParseAlloc(malloc);
	prog->parser = parser;
	for (;;) {
		Tok t;
		int k = lex_next(lx, &t);
		if (k < 0) {
			prog->failed = true;
			break;
		}
		if (k == TK_LBRACE)
			vec_push(&prog->open_braces, (void *)(intptr_t)t.off);
		/* The parser's states before this token and the one before, for
		 * the messages of syntax errors: lemon may reduce on a token
		 * before it finds that the token does not fit. */
		parse_copy(prog->before_tok, parser, prog);
		SapParse(parser, k, t, prog);
		if (prog->failed || k == 0)
			break;
		void *x = prog->before_prev;
		prog->before_prev = prog->before_tok;
		prog->before_tok = x;
		prog->before_prev_off = t.off;
		/* Popped after the parse, so a '}' in error knows if it closes anything. */
		if (k == TK_RBRACE && prog->open_braces.n > 0) {
			int open = (int)(intptr_t)prog->open_braces.v[--prog->open_braces.n];
			bool first, ignored;
			int ci = indent_of(f, t.off, &first);
			if (first && prog->brace_open < 0 && ci != indent_of(f, open, &ignored)) {
				prog->brace_open = open;
				prog->brace_close = t.off;
			}
		}
		prog->prev = t;
	}
	SapParseFree(parser, free);
	SapParseFree(prog->before_tok, free);
	SapParseFree(prog->before_prev, free);
	prog->before_tok = prog->before_prev = NULL;
	if (!prog->failed && !check_depth(*first))
		prog->failed = true;
	return !prog->failed;
}
