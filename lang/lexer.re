/* lexer.re: SAP's tokens, as a re2c table.  A token points into the
 * source; the text ends in a NUL sentinel; line and column are computed
 * only when a diagnostic is printed. */
#include <string.h>
#include "sapc.h"
#include "grammar.h"

/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:yyfill:enable = 0;
	re2c:flags:utf-8 = 0;

	digit  = [0-9];
	hex    = [0-9a-fA-F];
	ident  = [a-zA-Z_][a-zA-Z_0-9]*;
	exp    = [eE] [+-]? digit+;
	float  = (digit+ "." digit* | "." digit+) exp? | digit+ exp;
	int    = digit+ | "0" [xX] hex+;
	ws     = [ \t\r\v\f]+;
*/

void lex_init(Lexer *lx, SrcFile *f)
{
	memset(lx, 0, sizeof *lx);
	lx->file = f;
	lx->cur = f->text;
	/* A UTF-8 byte-order mark, as some editors write: not part of the program. */
	if (f->len >= 3 && !memcmp(f->text, "\xEF\xBB\xBF", 3))
		lx->cur += 3;
	lx->lim = f->text + f->len;
}

static int lineno(Lexer *lx, const char *p)
{
	return diag_line(lx->file, (int)(p - lx->file->text));
}

/* A "///" comment documents the declaration on the line below it, or,
 * written after code, the declaration on its own line. */
static void add_doc(Lexer *lx, const char *s, const char *e)
{
	const char *bol = s - 3;
	while (bol > lx->file->text && bol[-1] != '\n')
		bol--;
	if (bol == lx->file->text && lx->file->len >= 3 && !memcmp(bol, "\xEF\xBB\xBF", 3))
		bol += 3;       /* the byte-order mark is no code before the comment */
	bool trailing = false;
	for (const char *q = bol; q < s - 3; q++)
		if (*q != ' ' && *q != '\t')
			trailing = true;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	int line = lineno(lx, s);
	DocComment *d = lx->docs.n ? lx->docs.v[lx->docs.n - 1] : NULL;
	if (!trailing && d && !d->trailing && d->line == line - 1) {
		d->text = format("%s %.*s", d->text, (int)(e - s), s);
		d->line = line;
		return;
	}
	d = xcalloc(1, sizeof *d);
	d->line = d->first_line = line;
	d->trailing = trailing;
	d->text = xstrndup(s, e - s);
	vec_push(&lx->docs, d);
}

const char *lex_doc_for(Lexer *lx, int line)
{
	for (int i = lx->docs.n - 1; i >= 0; i--) {
		DocComment *d = lx->docs.v[i];
		if (d->trailing ? d->line == line : d->line == line - 1)
			return d->text;
		if (d->line < line - 1)         /* in line order: none before it fits */
			break;
	}
	return NULL;
}

static int is_typename(Lexer *lx, const char *p, int len)
{
	return map_getn(&lx->typeset, p, (size_t)len) != NULL;
}

static int error_at(Lexer *lx, const char *p, const char *msg)
{
	diag_error(lx->file, (int)(p - lx->file->text), "%s", msg);
	return -1;
}

static int scan(Lexer *lx, Tok *t)
{
	const unsigned char *YYCURSOR, *YYMARKER, *start;
loop:
	YYCURSOR = (const unsigned char *)lx->cur;
	start = YYCURSOR;
	t->p = (const char *)start;
	t->off = (int)((const char *)start - lx->file->text);
#define TOK(k) do { lx->cur = (const char *)YYCURSOR; t->len = (int)(YYCURSOR - start); return (k); } while (0)
	/*!re2c
	"\x00" {
		if ((const char *)start >= lx->lim) {
			lx->cur = (const char *)start;
			t->len = 0;
			return 0;
		}
		return error_at(lx, (const char *)start, "stray NUL byte in the source");
	}
	ws | "\n" { lx->cur = (const char *)YYCURSOR; goto loop; }
	"///" [^\n\x00]* {
		add_doc(lx, (const char *)start + 3, (const char *)YYCURSOR);
		lx->cur = (const char *)YYCURSOR;
		goto loop;
	}
	"//" [^\n\x00]* { lx->cur = (const char *)YYCURSOR; goto loop; }
	"/*" {
		/* memmem, not strstr: a NUL byte inside is an error of its own. */
		const char *b = (const char *)YYCURSOR;
		const char *e = memmem(b, (size_t)(lx->lim - b), "*/", 2);
		if (!e)
			return error_at(lx, (const char *)start, "unterminated comment: '/*' has no matching '*/'");
		const char *nul = memchr(b, 0, (size_t)(e - b));
		if (nul)
			return error_at(lx, nul, "stray NUL byte in the source");
		lx->cur = e + 2;
		goto loop;
	}

	"bool"      { TOK(TK_BOOL); }
	"int"       { TOK(TK_INT); }
	"long"      { TOK(TK_LONG); }
	"float"     { TOK(TK_FLOAT); }
	"double"    { TOK(TK_DOUBLE); }
	"string"    { TOK(TK_STRING); }
	"void"      { TOK(TK_VOID); }
	"struct"    { TOK(TK_STRUCT); }
	"const"     { TOK(TK_CONST); }
	"param"     { TOK(TK_PARAM); }
	"extern"    { TOK(TK_EXTERN); }
	"if"        { TOK(TK_IF); }
	"else"      { TOK(TK_ELSE); }
	"while"     { TOK(TK_WHILE); }
	"do"        { TOK(TK_DO); }
	"for"       { TOK(TK_FOR); }
	"break"     { TOK(TK_BREAK); }
	"continue"  { TOK(TK_CONTINUE); }
	"return"    { TOK(TK_RETURN); }
	"async"     { TOK(TK_ASYNC); }
	"sync"      { TOK(TK_SYNC); }
	"reduce"    { TOK(TK_REDUCE); }
	"accumulate" { TOK(TK_ACCUMULATE); }
	"relaxed"   { TOK(TK_RELAXED); }
	"with"      { TOK(TK_WITH); }
	"true"      { TOK(TK_TRUE); }
	"false"     { TOK(TK_FALSE); }
	"list"      { TOK(TK_LIST); }
	"dvector"   { TOK(TK_DVECTOR); }
	"dmap"      { TOK(TK_DMAP); }
	"dmultimap" { TOK(TK_DMULTIMAP); }

	ident {
		if (lx->prev != TK_STRUCT && is_typename(lx, (const char *)start, (int)(YYCURSOR - start)))
			TOK(TK_TYPENAME);
		if (lx->prev == TK_STRUCT) {
			char *name = xstrndup((const char *)start, YYCURSOR - start);
			vec_push(&lx->typenames, name);
			map_put(&lx->typeset, name, name);
		}
		TOK(TK_IDENT);
	}
	float [fF]? { TOK(TK_FLOATLIT); }
	int [lL]? { TOK(TK_INTLIT); }
	(digit+ | "0" [xX] hex*) [a-zA-Z_0-9.]+ {
		/* C's suffixes SAP does not have: 1LL, 10u, 10UL. */
		const char *q = (const char *)YYCURSOR;
		while (q > (const char *)start && strchr("lLuU", q[-1]))
			q--;
		const char *d = (const char *)start;
		bool hex = d[0] == '0' && (d[1] == 'x' || d[1] == 'X');
		d += hex ? 2 : 0;
		bool csuffix = q < (const char *)YYCURSOR && q > d;
		for (; csuffix && d < q; d++)
			csuffix = hex ? strchr("0123456789abcdefABCDEF", *d) != NULL : *d >= '0' && *d <= '9';
		/* 1f, as C++ allows: digits and an f. */
		bool fsuffix = !hex && YYCURSOR - start >= 2 && (YYCURSOR[-1] == 'f' || YYCURSOR[-1] == 'F');
		for (const char *c = (const char *)start; fsuffix && c < (const char *)YYCURSOR - 1; c++)
			fsuffix = *c >= '0' && *c <= '9';
		diag_error(lx->file, t->off, "invalid number '%.*s'%s%.*s%s", (int)(YYCURSOR - start),
		           (const char *)start, csuffix ? ": SAP's integer suffix is L alone (a long), and "
		           "there are no unsigned types" : fsuffix ? ": a float constant has a point or an "
		           "exponent before its f, as in '" : "", fsuffix ? (int)(YYCURSOR - start - 1) : 0,
		           (const char *)start, fsuffix ? ".0f'" : "");
		return -1;
	}
	"\"" ([^"\\\n\x00] | "\\" [^\n\x00])* "\"" { TOK(TK_STRLIT); }
	"\"" ([^"\\\n\x00] | "\\" [^\n\x00])* "\\"? "\x00" {
		if ((const char *)YYCURSOR - 1 < lx->lim)
			return error_at(lx, (const char *)YYCURSOR - 1, "NUL byte in a string: a string cannot hold one");
		return error_at(lx, (const char *)start, "unterminated string: '\"' has no closing '\"' on this line");
	}
	"\"" {
		return error_at(lx, (const char *)start, "unterminated string: '\"' has no closing '\"' on this line");
	}

	"("   { TOK(TK_LPAREN); }
	")"   { TOK(TK_RPAREN); }
	"{"   { TOK(TK_LBRACE); }
	"}"   { TOK(TK_RBRACE); }
	"["   { TOK(TK_LBRACKET); }
	"]"   { TOK(TK_RBRACKET); }
	";"   { TOK(TK_SEMI); }
	","   { TOK(TK_COMMA); }
	"."   { TOK(TK_DOT); }
	"?"   { TOK(TK_QUESTION); }
	":"   { TOK(TK_COLON); }
	"="   { TOK(TK_ASSIGN); }
	"+="  { TOK(TK_PLUSEQ); }
	"-="  { TOK(TK_MINUSEQ); }
	"*="  { TOK(TK_STAREQ); }
	"/="  { TOK(TK_SLASHEQ); }
	"%="  { TOK(TK_PERCENTEQ); }
	"&="  { TOK(TK_ANDEQ); }
	"|="  { TOK(TK_OREQ); }
	"^="  { TOK(TK_XOREQ); }
	"<<=" { TOK(TK_SHLEQ); }
	">>=" { TOK(TK_SHREQ); }
	"||"  { TOK(TK_OROR); }
	"&&"  { TOK(TK_ANDAND); }
	"|"   { TOK(TK_OR); }
	"^"   { TOK(TK_XOR); }
	"&"   { TOK(TK_AND); }
	"=="  { TOK(TK_EQ); }
	"!="  { TOK(TK_NE); }
	"<"   { TOK(TK_LT); }
	">"   { TOK(TK_GT); }
	"<="  { TOK(TK_LE); }
	">="  { TOK(TK_GE); }
	"<<"  { TOK(TK_SHL); }
	">>"  { TOK(TK_SHR); }
	"+"   { TOK(TK_PLUS); }
	"-"   { TOK(TK_MINUS); }
	"*"   { TOK(TK_STAR); }
	"/"   { TOK(TK_SLASH); }
	"%"   { TOK(TK_PERCENT); }
	"!"   { TOK(TK_NOT); }
	"~"   { TOK(TK_TILDE); }
	"++"  { TOK(TK_INC); }
	"--"  { TOK(TK_DEC); }

	[\x80-\xff] {
		return error_at(lx, (const char *)start, "non-ASCII character outside a string or comment");
	}
	* {
		static const char *hints[128] = {
			['#'] = "; comments start with //",
			['@'] = "; for the dot product of two arrays, use dot(a, b)",
			['\''] = "; strings are written in double quotes",
		};
		const char *s = (const char *)start;
		/* 'a': C's character constant, an int in C. */
		if (*start == '\'' && s + 2 < (const char *)lx->lim && s[1] >= 0x20 && s[1] < 0x7f &&
		    s[1] != '\\' && s[2] == '\'') {
			diag_error(lx->file, t->off, "SAP has no character constants: write the code, %d for "
			           "'%c', or the one-character string \"%s%c\"", s[1], s[1],
			           s[1] == '"' ? "\\" : "", s[1]);
			return -1;
		}
		if (*start == '#' && (!strncmp(s, "#include", 8) || !strncmp(s, "#define", 7)))
			diag_error(lx->file, t->off, "SAP has no preprocessor: C helpers go in a .c file "
			           "given to sapc and are declared in the program with extern, and a "
			           "constant is written const T NAME = value;");
		else if (*start >= 0x20 && *start < 0x7f)
			diag_error(lx->file, t->off, "unexpected character '%c'%s", *start,
			           hints[*start] ? hints[*start] : "");
		else
			diag_error(lx->file, t->off, "unexpected control character 0x%02x", *start);
		return -1;
	}
	*/
#undef TOK
}

/* Generic types close with '>' even when two close at once ('>>'). */
int lex_next(Lexer *lx, Tok *t)
{
	int k = scan(lx, t);
	if (lx->angle > 0 && k == TK_SHR) {
		t->len = 1;
		lx->cur = t->p + 1;
		k = TK_GT;
	}
	if (lx->angle > 0 && k == TK_GT)
		lx->angle--;
	if (k == TK_LT && (lx->prev == TK_LIST || lx->prev == TK_DVECTOR ||
	                   lx->prev == TK_DMAP || lx->prev == TK_DMULTIMAP))
		lx->angle++;
	t->kind = k;
	lx->prev = k;
	return k;
}

const char *lex_token_name(int kind)
{
	switch (kind) {
	case 0: return "end of file";
	case TK_IDENT: return "identifier";
	case TK_TYPENAME: return "type name";
	case TK_INTLIT: return "integer";
	case TK_FLOATLIT: return "number";
	case TK_STRLIT: return "string";
	default: return "token";
	}
}
