/* diag.c: GNU-style diagnostics with the source line and a caret.
 * Line and column are computed only when something is printed. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"

FILE *diag_out;
static bool failed;

SrcFile *diag_file(const char *name, const char *text, int len)
{
	SrcFile *f = xcalloc(1, sizeof *f);
	f->name = name;
	f->text = text;
	f->len = len;
	return f;
}

static void index_lines(SrcFile *f)
{
	if (f->lines)
		return;
	int n = 1;
	for (int i = 0; i < f->len; i++)
		n += f->text[i] == '\n';
	f->lines = xcalloc(n, sizeof(int));
	f->nlines = 0;
	f->lines[f->nlines++] = 0;
	for (int i = 0; i < f->len; i++)
		if (f->text[i] == '\n' && f->nlines < n)
			f->lines[f->nlines++] = i + 1;
}

int diag_line(SrcFile *f, int off)
{
	index_lines(f);
	int lo = 0, hi = f->nlines - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (f->lines[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo + 1;
}

void diag_linecol(SrcFile *f, int off, int *line, int *col)
{
	int lo = diag_line(f, off) - 1;
	*line = lo + 1;
	/* Columns count characters, not bytes, as GCC does for UTF-8. */
	int c = 1;
	int i0 = f->lines[lo];
	if (i0 == 0 && f->len >= 3 && !memcmp(f->text, "\xEF\xBB\xBF", 3))
		i0 = 3;         /* the byte-order mark is no column */
	for (int i = i0; i < off && i < f->len; i++)
		if (((unsigned char)f->text[i] & 0xC0) != 0x80)
			c++;
	*col = c;
}

static void vreport(SrcFile *f, int off, const char *kind, const char *fmt, va_list ap)
{
	FILE *out = diag_out ? diag_out : stderr;
	if (!f) {
		fprintf(out, "sapc: %s: ", kind);
		vfprintf(out, fmt, ap);
		fputc('\n', out);
		return;
	}
	if (off > f->len)
		off = f->len;
	int line, col;
	diag_linecol(f, off, &line, &col);
	fprintf(out, "%s:%d:%d: %s: ", f->name, line, col, kind);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	const char *s = f->text + f->lines[line - 1];
	if (s == f->text && f->len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	const char *e = s;
	while (e < f->text + f->len && *e != '\n' && *e != '\r')
		e++;
	fprintf(out, " %5d | ", line);
	/* The line as it is, but a NUL byte would end it early. */
	for (const char *q = s, *z; q < e; q = z + 1) {
		z = memchr(q, 0, (size_t)(e - q));
		if (!z)
			z = e;
		fwrite(q, 1, (size_t)(z - q), out);
		if (z < e)
			fputc(' ', out);
	}
	fputs("\n       | ", out);
	/* Built first: stderr is unbuffered, and a line may be a megabyte. */
	Buf caret = {0};
	for (const char *q = s; q < f->text + off && q < e; q++)
		if (((unsigned char)*q & 0xC0) != 0x80)     /* one per character */
			buf_putc(&caret, *q == '\t' ? '\t' : ' ');
	buf_puts(&caret, "^\n");
	fputs(caret.s, out);
	xfree(caret.s);
}

static void report(SrcFile *f, int off, const char *kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(f, off, kind, fmt, ap);
	va_end(ap);
}

void diag_error(SrcFile *f, int off, const char *fmt, ...)
{
	if (failed)
		return;
	failed = true;
	va_list ap;
	va_start(ap, fmt);
	vreport(f, off, "error", fmt, ap);
	va_end(ap);
}

/* The warnings sapc gives itself, for the names of the program; gcc
 * would name the C's (u_x) at the C's columns, so the C tells it nothing
 * to warn of there.  The unused ones are off until -Wall or -Wunused
 * turns them on, as in gcc; a constant that a conversion changes is on,
 * as in clang. */
static struct {
	const char *name;
	bool on, error;
	bool not_error;         /* -Wno-error=x: a warning under -Werror, as gcc's */
	bool own;               /* sapc's alone: gcc refuses -Wx, -Werror=x */
} warnings[] = {
	{"unused-variable", false, false, false, false},
	{"unused-but-set-variable", false, false, false, false},
	{"literal-conversion", true, false, false, true},
	{"unused-value", true, false, false, false},
	{"array-parameter-copy", true, false, false, true},
	{"parentheses", true, false, false, false},
	{"loop-carried", true, false, false, true},
	{"relaxed-self", true, false, false, true},
	{"lost-copy", true, false, false, true},
	{"draw-order", true, false, false, true},
};
static bool werror;

static int warning_index(const char *name)
{
	for (int i = 0; i < (int)(sizeof warnings / sizeof warnings[0]); i++)
		if (!strcmp(warnings[i].name, name))
			return i;
	return -1;
}

const char *diag_near_warning(const char *arg)
{
	const char *name = arg + (!strncmp(arg, "-Wno-", 5) ? 5 : 2);
	if (!strncmp(name, "error=", 6))
		name += 6;
	if (warning_index(name) >= 0)
		return NULL;
	const char *best = NULL;
	int bd = strlen(name) >= 8 ? 4 : 3;     /* lost-copies is 3 from lost-copy */
	for (int i = 0; i < (int)(sizeof warnings / sizeof warnings[0]); i++) {
		int d = diag_distance(name, warnings[i].name);
		if (d < bd) {
			bd = d;
			best = warnings[i].name;
		}
	}
	return best;
}

bool diag_own_option(const char *arg)
{
	if (strncmp(arg, "-W", 2))
		return false;
	const char *name = arg + (!strncmp(arg, "-Wno-", 5) ? 5 : 2);
	if (!strncmp(name, "error=", 6))
		name += 6;
	int i = warning_index(name);
	return i >= 0 && warnings[i].own;
}

bool diag_option(const char *arg)
{
	int n = (int)(sizeof warnings / sizeof warnings[0]);
	/* -w, as gcc's: no warning at all. */
	if (!strcmp(arg, "-w")) {
		for (int i = 0; i < n; i++)
			warnings[i].on = false;
		return true;
	}
	if (!strcmp(arg, "-Wall")) {
		for (int i = 0; i < n; i++)
			warnings[i].on = true;
		return true;
	}
	if (!strcmp(arg, "-Wunused") || !strcmp(arg, "-Wno-unused")) {
		for (int i = 0; i < n; i++)
			if (!strncmp(warnings[i].name, "unused-", 7))
				warnings[i].on = arg[2] != 'n';
		return true;
	}
	if (!strcmp(arg, "-Werror") || !strcmp(arg, "-Wno-error")) {
		werror = arg[2] == 'e';
		return true;
	}
	bool no = !strncmp(arg, "-Wno-", 5);
	const char *name = arg + (no ? 5 : 2);
	bool error = !strncmp(name, "error=", 6);
	int i = warning_index(error ? name + 6 : name);
	if (i < 0)
		return false;
	if (error) {
		warnings[i].error = !no;
		warnings[i].not_error = no;
	}
	/* -Werror=x turns x on as well, -Wno-error=x leaves it on. */
	if (!error || !no)
		warnings[i].on = !no;
	return true;
}

void diag_warning(SrcFile *f, int off, const char *opt, const char *fmt, ...)
{
	int i = warning_index(opt);
	if (failed || i < 0 || !warnings[i].on)
		return;
	bool error = (werror && !warnings[i].not_error) || warnings[i].error;
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	if (error)
		diag_error(f, off, "%s [-Werror=%s]", msg, opt);
	else
		report(f, off, "warning", "%s [-W%s]", msg, opt);
}

void diag_note(SrcFile *f, int off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(f, off, "note", fmt, ap);
	va_end(ap);
}

int diag_distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b);
	/* Nobody mistypes a name that long; and the table is on the stack. */
	enum { LONGEST = 64 };
	if (abs(la - lb) * 3 > la || la > LONGEST || lb > LONGEST)
		return 99;
	int d[LONGEST + 1][LONGEST + 1];
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
			d[i][j] = c;
		}
	/* One edit in three characters at most: "totl" may be "total", but
	 * "Foo" is not "bool". */
	return d[la][lb] * 3 > la ? 99 : d[la][lb];
}

bool diag_failed(void)
{
	return failed;
}

void diag_reset(void)
{
	failed = false;
}
