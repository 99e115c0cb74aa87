/* main.c: the sapc driver.  Options follow a C compiler's; the generated
 * C is compiled by mpicc (or $SAPC_CC) and linked with libsap. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sapc.h"

#ifndef PACKAGE_VERSION
#include "config.h"
#endif

/* What the generated C means: -ffp-contract=off, no fused multiply-add,
 * so a program gives the same bits as its serial C twin on every machine;
 * -fwrapv, integer overflow wraps around as sap(7) says, rather than
 * being undefined behaviour the C compiler may optimise on.  So gcc's
 * warnings of an overflow or a floating division by zero in the C are of
 * defined arithmetic (sapc itself refuses what C cannot compute). */
static const char *semantic_flags = "-ffp-contract=off -fwrapv -Wno-overflow -Wno-div-by-zero";

static const char *usage =
	"Usage: sapc [OPTION]... FILE.sap [FILE.c|FILE.o]...\n"
	"Compile a SAP program to a native MPI program.\n"
	"\n"
	"  -o FILE           write the output to FILE (default: FILE.sap without .sap)\n"
	"  -c                compile to an object file; do not link\n"
	"  -S                write the generated C (FILE.c) and stop\n"
	"  -fsyntax-only     check the program and stop\n"
	"  --explain         print what the compiler found about each parallel loop\n"
	"                    (accesses, reconnaissance slice, verdict) and stop\n"
	"  -O0 -O1 -O2 -O3   optimisation level of the C compiler (default -O2)\n"
	"  -g                debug information; breakpoints work at .sap lines\n"
	"  -P                no #line directives in the generated C\n"
	"  -save-temps       keep the generated C as FILE.sap.c\n"
	"  -w                no warnings\n"
	"  -Wall -Werror -W* sapc's warnings: -Wunused-variable, -Wunused-but-set-variable,\n"
	"                    -Wliteral-conversion, -Wunused-value, -Warray-parameter-copy,\n"
	"                    -Wparentheses, -Wloop-carried, -Wrelaxed-self, -Wlost-copy,\n"
	"                    -Wdraw-order\n"
	"                    (and -Wno-...);\n"
	"                    all also go to the C compiler for the generated C\n"
	"  -march=CPU -mtune=CPU -m* -f*  passed to the C compiler (code generation)\n"
	"  -I DIR -L DIR -l LIB -D NAME  passed to the C compiler for extra C files\n"
	"  -v                show the C compiler command\n"
	"  --showme:compile  print the flags to compile C that uses sap.h\n"
	"  --showme:link     print the flags to link with libsap\n"
	"  --version         print the version and exit\n"
	"  --help            print this help and exit\n"
	"\n"
	"Environment: SAPC_CC (C compiler, default mpicc), SAPC_CFLAGS (more options\n"
	"for it, after sapc's own), SAPC_STDLIB (the prelude instead of std.sap),\n"
	"TMPDIR.\n";

/* The options of the usage above a mistyped one may have meant. */
static const char *closest_option(const char *a)
{
	static const char *const known[] = {
		"-fsyntax-only", "--explain", "-save-temps", "--showme:compile", "--showme:link",
		"--version", "--help",
	};
	const char *best = NULL;
	int bd = 99;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		int d = diag_distance(a, known[i]);
		if (d < bd) {
			bd = d;
			best = known[i];
		}
	}
	return best;
}

static const char *progname_of(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return dot ? xstrndup(b, dot - b) : xstrdup(b);
}

/* Running from the build tree (tests, make demo) or installed? */
static bool in_build_tree(void)
{
	char exe[PATH_MAX], want[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	if (!realpath(SAPC_BUILDDIR "/sapc", want))
		return false;
	return strcmp(exe, want) == 0;
}

/* An installed directory, where this sapc is.  Installed elsewhere than
 * configured (a staged install under DESTDIR, a tree moved or copied
 * whole), sapc still finds its header, library and prelude: where its
 * bin directory is PREFIX'/bin, a directory configured as PREFIX/sub is
 * PREFIX'/sub. */
static const char *installed(const char *dir)
{
	static char *prefix;    /* PREFIX', computed once */
	static bool done;
	size_t pn = strlen(SAPC_PREFIX);
	if (strncmp(dir, SAPC_PREFIX, pn) || (dir[pn] && dir[pn] != '/') ||
	    strncmp(SAPC_BINDIR, SAPC_PREFIX, pn))
		return dir;
	if (!done) {
		done = true;
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			exe[n] = 0;
			*strrchr(exe, '/') = 0;                     /* sapc's directory */
			const char *bin = SAPC_BINDIR + pn;         /* "/bin" */
			size_t en = strlen(exe), bn = strlen(bin);
			if (en >= bn && !strcmp(exe + en - bn, bin))
				prefix = xstrndup(exe, en - bn);
		}
	}
	return prefix ? format("%s%s", prefix, dir + pn) : dir;
}

static const char *include_dir(void)
{
	return in_build_tree() ? SAPC_SRCDIR "/runtime" : installed(SAPC_INCLUDEDIR);
}

static const char *stdlib_path(void)
{
	const char *env = getenv("SAPC_STDLIB");
	if (env && *env)
		return env;
	if (in_build_tree())
		return SAPC_SRCDIR "/stdlib/std.sap";
	return format("%s/std.sap", installed(SAPC_DATADIR));
}

static const char *cc(void)
{
	const char *env = getenv("SAPC_CC");
	return env && *env ? env : SAPC_MPICC;
}

static char *mpicc_showme(const char *what)
{
	char *cmd = format("%s --showme:%s 2>/dev/null", SAPC_MPICC, what);
	FILE *p = popen(cmd, "r");
	if (!p)
		return "";
	Buf b = {0};
	buf_puts(&b, "");
	int c;
	while ((c = fgetc(p)) != EOF)
		if (c != '\n')
			buf_putc(&b, (char)c);
	pclose(p);
	return b.s;
}

/* A libsap built with sanitizers (configure --enable-asan/--enable-ubsan)
 * needs their runtimes, and the programs are checked with them too. */
static const char *link_flags(void)
{
	if (in_build_tree())
		return format("%s/.libs/libsap.a %s -lpthread%s%s", SAPC_BUILDDIR, SAPC_EXTRA_LIBS,
		              *SAPC_SAN_CFLAGS ? " " : "", SAPC_SAN_CFLAGS);
	return format("-L%s -lsap %s -lpthread%s%s", installed(SAPC_LIBDIR), SAPC_EXTRA_LIBS,
	              *SAPC_SAN_CFLAGS ? " " : "", SAPC_SAN_CFLAGS);
}

static char *shell_quote(const char *s)
{
	Buf b = {0};
	buf_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_putc(&b, *s);
	}
	buf_putc(&b, '\'');
	return b.s;
}

static int run(const char *cmd, bool verbose)
{
	if (verbose)
		fprintf(stderr, "%s\n", cmd);
	int st = system(cmd);
	if (st == -1)
		return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 1;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static SrcFile *load_source(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text) {
		fprintf(stderr, "sapc: error: cannot read '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	if (len > INT_MAX / 2) {
		fprintf(stderr, "sapc: error: '%s' is too large\n", path);
		return NULL;
	}
	SrcFile *f = diag_file(path, text, (int)len);
	/* Old Mac line ends would make a // comment run to the end of the
	 * file: the rest of the program gone without a word. */
	const char *cr = memchr(text, '\r', len);
	while (cr && cr + 1 < text + len && cr[1] == '\n')
		cr = memchr(cr + 2, '\r', len - (size_t)(cr + 2 - text));
	if (cr) {
		diag_error(f, (int)(cr - text), "a carriage return that ends no line: lines end with "
		           "\\n or \\r\\n, not a lone \\r (old Mac line ends); convert the file");
		return NULL;
	}
	return f;
}

/* The command line, as parse_args reads it. */
typedef struct Options {
	const char *src, *out, *opt;
	bool compile_only, c_only, syntax_only, debug;
	bool verbose, lines, explain, keep;
	Buf ccflags, extra;
	Vec inputs;             /* every input file, the .sap and the C, .o, .a */
} Options;

/* Reads the command line into o.  Returns the exit status when sapc
 * is done (--help, --version, --showme, an error), else -1. */
static int parse_args(int argc, char **argv, Options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("sapc %s\n", PACKAGE_VERSION);
			return 0;
		} else if (!strcmp(a, "--showme:compile")) {
			printf("%s -I%s %s%s%s\n", semantic_flags, include_dir(), mpicc_showme("compile"),
			       *SAPC_SAN_CFLAGS ? " " : "", SAPC_SAN_CFLAGS);
			return 0;
		} else if (!strcmp(a, "--showme:link")) {
			printf("%s %s\n", link_flags(), mpicc_showme("link"));
			return 0;
		} else if (!strcmp(a, "-o")) {
			if (++i >= argc) {
				fprintf(stderr, "sapc: error: missing file name after '-o'\n");
				return 1;
			}
			o->out = argv[i];
		} else if (!strcmp(a, "-c")) {
			o->compile_only = true;
		} else if (!strcmp(a, "-S")) {
			o->c_only = true;
		} else if (!strcmp(a, "-fsyntax-only")) {
			o->syntax_only = true;
		} else if (!strcmp(a, "--explain")) {
			o->explain = true;
		} else if (!strcmp(a, "-g")) {
			o->debug = true;
		} else if (!strcmp(a, "-P")) {
			o->lines = false;
		} else if (!strcmp(a, "-save-temps")) {
			o->keep = true;
		} else if (!strcmp(a, "-v")) {
			o->verbose = true;
		} else if (a[0] == '-' && a[1] == 'O' && (!a[2] || (strchr("0123s", a[2]) && !a[3]))) {
			o->opt = a;
		} else if (a[0] == '-' && (a[1] == 'm' || a[1] == 'f') && a[2]) {
			/* Code generation: -march=, -mtune=, -mavx2, -fno-tree-vectorize...
			 * After sapc's own flags, so they win: -ffp-contract=fast or
			 * -ffast-math is the user's to ask for (sapc(1) says what it
			 * costs). */
			buf_printf(&o->ccflags, " %s", shell_quote(a));
		} else if (!strcmp(a, "-w")) {
			diag_option(a);
			buf_printf(&o->ccflags, " -w");
		} else if (a[0] == '-' && strchr("WIDLl", a[1]) && a[1]) {
			/* sapc's own warnings take them too; gcc gets all but the
			 * names it does not know (-Wloop-carried failed the build). */
			if (a[1] == 'W')
				diag_option(a);
			if (diag_own_option(a))
				continue;
			/* gcc ignores an unknown -Wno-x: a typo of one of
			 * sapc's names would do nothing, silently; and says of
			 * -Wlost-copies only that it knows no such option, once
			 * sapc's work is done. */
			const char *near = a[1] == 'W' && !strchr(a, ',') ? diag_near_warning(a) : NULL;
			if (near) {
				const char *pre = !strncmp(a, "-Wno-error=", 11) ? "-Wno-error=" :
				                  !strncmp(a, "-Wno-", 5) ? "-Wno-" :
				                  !strncmp(a, "-Werror=", 8) ? "-Werror=" : "-W";
				fprintf(stderr, "sapc: warning: unknown warning option '%s'; did you mean "
				        "'%s%s'?\n", a, pre, near);
			}
			Buf *b = a[1] == 'L' || a[1] == 'l' ? &o->extra : &o->ccflags;
			if (!a[2] && a[1] != 'W') {
				if (++i >= argc) {
					fprintf(stderr, "sapc: error: missing argument after '%s'\n", a);
					return 1;
				}
				buf_printf(b, " %s%s", a, shell_quote(argv[i]));
			} else {
				buf_printf(b, " %s", shell_quote(a));
			}
		} else if (a[0] == '-') {
			const char *best = closest_option(a);
			if (best)
				fprintf(stderr, "sapc: error: unknown option '%s'; did you mean '%s'?\n", a,
				        best);
			else
				fprintf(stderr, "sapc: error: unknown option '%s' (try --help)\n", a);
			return 1;
		} else if (has_suffix(a, ".sap")) {
			if (o->src) {
				fprintf(stderr, "sapc: error: more than one .sap file ('%s' and '%s')\n", o->src, a);
				return 1;
			}
			o->src = a;
			vec_push(&o->inputs, (void *)a);
		} else if (has_suffix(a, ".c") || has_suffix(a, ".o") || has_suffix(a, ".a")) {
			buf_printf(&o->extra, " %s", shell_quote(a));
			vec_push(&o->inputs, (void *)a);
		} else {
			fprintf(stderr, "sapc: error: '%s': expected a .sap, .c, .o or .a file\n", a);
			return 1;
		}
	}
	if (!o->src) {
		fprintf(stderr, "sapc: error: no .sap input file (try --help)\n");
		return 1;
	}
	return -1;
}

/* Refuses to write out over an input, as gcc does: sapc -o prog.sap
 * prog.sap would replace the source by the program.  By device and
 * inode, so that ./prog.sap, a second path or a link to it are caught
 * too; an output that does not exist yet can be no input. */
static bool clobbers_input(const Options *o, const char *out)
{
	struct stat so, si;
	if (stat(out, &so) != 0)
		return false;
	for (int i = 0; i < o->inputs.n; i++) {
		const char *in = o->inputs.v[i];
		if (stat(in, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			fprintf(stderr, "sapc: error: input file '%s' is the same as output file\n", in);
			return true;
		}
	}
	return false;
}

/* A C file sapc did not write, at a name the user did not give (-S's
 * default prog.c beside prog.sap is where a C twin lives). */
static bool clobbers_c(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char head[512];
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = 0;
	if (n == 0 || strstr(head, "Generated by sapc from"))
		return false;
	fprintf(stderr, "sapc: error: '%s' exists and sapc did not write it; name the generated C "
	        "with -o\n", path);
	return true;
}

int main(int argc, char **argv)
{
	Options o = {.opt = "-O2", .lines = true};
	buf_puts(&o.ccflags, "");
	buf_puts(&o.extra, "");
	int status = parse_args(argc, argv, &o);
	if (status >= 0)
		return status;
	char *base = xstrndup(o.src, strlen(o.src) - 4);
	/* 'dir/.sap' names no program: its output would be 'dir/'. */
	const char *slash = strrchr(base, '/');
	if (!o.out && !o.syntax_only && !o.explain && !*(slash ? slash + 1 : base)) {
		fprintf(stderr, "sapc: error: '%s' gives no name to the output: name it with -o FILE\n",
		        o.src);
		return 1;
	}
	const char *target = o.c_only ? (o.out ? o.out : format("%s.c", base)) :
	                     o.out ? o.out : o.compile_only ? format("%s.o", base) : base;
	/* Before any work: nothing is written over an input, not even the
	 * C that -save-temps keeps. */
	if (!o.syntax_only && !o.explain &&
	    (clobbers_input(&o, target) || (o.keep && !o.c_only && clobbers_input(&o, format("%s.c", o.src)))))
		return 1;
	if (!o.syntax_only && !o.explain && ((o.c_only && !o.out && clobbers_c(target)) ||
	                                     (o.keep && !o.c_only && clobbers_c(format("%s.c", o.src)))))
		return 1;

	Program *prog = xcalloc(1, sizeof *prog);
	SrcFile *std = load_source(stdlib_path());
	SrcFile *user = load_source(o.src);
	if (!std || !user)
		return 1;
	if (!parse_file(prog, std) || !parse_file(prog, user) || !sema_program(prog))
		return 1;
	sema_warn_unused(user);
	sema_warn_lost_copies(prog, user);
	if (diag_failed())
		return 1;
	if (o.explain) {
		acc_program(prog, true);
		acc_explain(prog, stdout);
		for (int i = 0; i < prog->loops.n; i++)
			if (((Node *)prog->loops.v[i])->li->verdict == VD_REJECTED)
				return 1;
		return 0;
	}
	/* -Werror made a warning of the loops' analysis an error (it said
	 * so, and went on to build the program). */
	if (!acc_program(prog, false) || diag_failed())
		return 1;
	if (o.syntax_only)
		return 0;

	const char *name = progname_of(o.src);
	/* The generated C is called FILE.sap.c in the debug information (and
	 * kept under that name with -save-temps); otherwise it is written
	 * into a private directory that the C compiler's file names are
	 * mapped out of, so no deleted path is left in the program. */
	char *cpath, *cname, *tmpdir = NULL;
	if (o.c_only) {
		cpath = cname = xstrdup(target);
	} else if (o.keep) {
		cpath = cname = format("%s.c", o.src);
	} else {
		const char *tmp = getenv("TMPDIR");
		tmpdir = format("%s/sapc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmpdir)) {
			fprintf(stderr, "sapc: error: cannot create a temporary directory: %s\n", strerror(errno));
			return 1;
		}
		cname = format("%s.c", o.src);
		const char *slash = strrchr(cname, '/');
		cpath = format("%s/%s", tmpdir, slash ? slash + 1 : cname);
		char *dir = slash ? xstrndup(cname, slash - cname) : xstrdup(".");
		buf_printf(&o.ccflags, " %s", shell_quote(format("-ffile-prefix-map=%s=%s", tmpdir,
		                                                  *dir ? dir : "/")));
	}
	FILE *f = fopen(cpath, "w");
	if (!f) {
		fprintf(stderr, "sapc: error: cannot write '%s': %s\n", cpath, strerror(errno));
		if (tmpdir)
			rmdir(tmpdir);
		return 1;
	}
	int narrows = emit_narrows_float(prog);
	EmitOpts eo = {.line_directives = o.lines, .c_name = cname,
	               .driver_no_slp = (narrows & NARROW_DRIVER) && !(narrows & NARROW_HOT)};
	emit_program(prog, f, &eo, name);
	if (fclose(f) != 0) {
		fprintf(stderr, "sapc: error: cannot write '%s': %s\n", cpath, strerror(errno));
		unlink(cpath);
		if (tmpdir)
			rmdir(tmpdir);
		return 1;
	}
	if (o.c_only)
		return 0;

	/* SAPC_CFLAGS goes through the shell as it is, like CFLAGS in make. */
	const char *envflags = getenv("SAPC_CFLAGS");
	if (envflags && *envflags)
		buf_printf(&o.ccflags, " %s", envflags);
	/* GCC 12 folds (double)(float)x to x where SLP made vectors of them
	 * (w[k] += g * e, float w and double g, then w[k] read as a
	 * double): the last bits of a float's value before its rounding.
	 * At -O3 one random loop nest of twelve such came out wrong, and
	 * straight-line code at -O2.  So a program that stores a wider value
	 * in a float in a function or a loop body is built without SLP, one
	 * that does so only in driver code has its main without (emit.c);
	 * others keep it (SGDMF's loop at K = 100, all floats, ran 1.2x
	 * slower without).  Before the user's -f options, so that
	 * -ftree-slp-vectorize is theirs. */
	const char *opt = narrows & NARROW_HOT ? format("%s -fno-tree-slp-vectorize", o.opt) : o.opt;
	/* A body checks its keys where a test before an inner loop cannot
	 * show them in range (sap_in), a flag that does not change in the
	 * loop: unswitched, the loop that needs no check vectorises, as in
	 * the C twin (a matrix product over rows, 1.8 times the twin's
	 * time without, the twin's with).  On at -O3 already. */
	if (!strcmp(o.opt, "-O2"))
		opt = format("%s -funswitch-loops", opt);
	char *cmd = format("%s -std=c11 %s %s%s%s%s -I%s%s %s%s -o %s%s%s", cc(), semantic_flags, opt,
	                   o.debug ? " -g" : "", *SAPC_SAN_CFLAGS ? " " : "", SAPC_SAN_CFLAGS,
	                   shell_quote(include_dir()), o.ccflags.s,
	                   o.compile_only ? "-c " : "", shell_quote(cpath), shell_quote(target),
	                   o.compile_only ? "" : o.extra.s, o.compile_only ? "" : format(" %s", link_flags()));
	int rc = run(cmd, o.verbose);
	if (tmpdir) {
		unlink(cpath);
		rmdir(tmpdir);
	}
	return rc;
}
