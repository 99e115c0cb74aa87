/* init.c: starting and ending a program, and its command line. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sap-int.h"

/* Defaults hold for code that never calls sap_init, like the unit tests. */
static int rank = 0;
static int nranks = 1;
uint32_t sap_seed_value = 1;
static sap_rng driver_rng;
static uint64_t program_hash;
static const sap_program *program;
/* --checkpoint-dir alone: a checkpoint at most every ten minutes. */
enum { DEFAULT_CKPT_SECONDS = 600 };
sap_config sap_cfg;

int sap_rank(void) { return rank; }
int sap_nranks(void) { return nranks; }
uint32_t sap_seed(void) { return sap_seed_value; }

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int sap_threads(void)
{
	if (sap_cfg.threads <= 0)
		sap_cfg.threads = online_cpus();
	return sap_cfg.threads;
}

static const char *const type_names[] = {
	[SAP_P_BOOL] = "BOOL", [SAP_P_INT] = "INT", [SAP_P_LONG] = "LONG",
	[SAP_P_FLOAT] = "FLOAT", [SAP_P_DOUBLE] = "DOUBLE", [SAP_P_STRING] = "STRING",
};

/* Every rank parses the same argv and reaches the same verdict, so each
 * can leave on its own after a clean end: nothing to abort. */
static const char *progname;

static _Noreturn void leave(int status)
{
	/* --help on a full disk must not look like success. */
	if ((fflush(stdout) == EOF || ferror(stdout)) && status == 0) {
		fprintf(stderr, "%s: error: cannot write standard output: %s\n", progname,
		        strerror(errno ? errno : EIO));
		status = 1;
	}
	fflush(stderr);
	sap_comm_end();
	exit(status);
}

void sap_option_fail(int first, const char *msg)
{
	if (rank == first)
		fprintf(stderr, "%s: error: %s%s\n", progname, msg,
		        nranks > 1 && first > 0 ? sap_strf(" (on rank %d)", first) : "");
	leave(2);
}

static _Noreturn __attribute__((format(printf, 1, 2)))
void usage_error(const char *fmt, ...)
{
	if (rank == 0) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "%s: error: ", progname);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	leave(2);
}

/* ---- --help ---- */

enum { HELP_WIDTH = 79 };

/* Print text from column col (the cursor is already there), wrapping words
 * at HELP_WIDTH onto lines indented to col; explicit newlines in a doc
 * comment are kept.  tail, if any, is kept whole on one line. */
static void print_wrapped(const char *text, const char *tail, int col)
{
	int x = col;
	bool fresh = true;      /* nothing printed on this line yet */
	const char *p = text ? text : "";
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n') {
			p++;
			if (!fresh) {
				printf("\n%*s", col, "");
				x = col;
				fresh = true;
			}
			continue;
		}
		const char *w = p;
		size_t n;
		if (*p) {
			while (*p && *p != ' ' && *p != '\t' && *p != '\n')
				p++;
			n = (size_t)(p - w);
		} else if (tail) {
			w = tail;
			n = strlen(tail);
			tail = NULL;
		} else {
			break;
		}
		if (!fresh && x + 1 + (int)n > HELP_WIDTH) {
			printf("\n%*s", col, "");
			x = col;
			fresh = true;
		}
		if (!fresh) {
			putchar(' ');
			x++;
		}
		printf("%.*s", (int)n, w);
		x += (int)n;
		fresh = false;
	}
	putchar('\n');
}

/* The runtime's options, after the program's parameters. */
static const struct {
	const char *name, *value, *doc;
} options[] = {
#define SAP_OPTION(name, value, doc) { name, value, doc },
#include "options.def"
#undef SAP_OPTION
};
enum { NOPTIONS = sizeof options / sizeof options[0] };

static char *option_left(int i)
{
	return options[i].value ? sap_strf("--%s=%s", options[i].name, options[i].value)
	                        : sap_strf("--%s", options[i].name);
}

static void print_help(const sap_program *prog)
{
	int width = 0;
	for (int i = 0; i < NOPTIONS; i++) {
		char *left = option_left(i);
		if ((int)strlen(left) > width)
			width = (int)strlen(left);
		free(left);
	}
	for (int i = 0; i < prog->nparams; i++) {
		const sap_param *p = &prog->params[i];
		int n = (int)(strlen(p->name) + strlen(type_names[p->type])) + 3;
		if (n > width)
			width = n;
	}
	/* A very long name would push every doc off the screen: let that one
	 * overflow instead. */
	if (width > 30)
		width = 30;
	int col = 2 + width + 4;

	printf("Usage: %s [OPTION]...\n", progname);
	printf("Program compiled by sapc from %s.\n\n", prog->source);
	if (prog->nparams > 0)
		printf("Parameters:\n");
	for (int i = 0; i < prog->nparams; i++) {
		const sap_param *p = &prog->params[i];
		/* Whole, however long the name. */
		char *left = sap_strf("--%s=%s", p->name, type_names[p->type]);
		if ((int)strlen(left) > width) {
			printf("  %s\n%*s", left, col, "");
		} else {
			printf("  %-*s    ", width, left);
		}
		free(left);
		size_t dn = strlen(p->defval ? p->defval : "") + sizeof "(default: )";
		char *def = sap_xmalloc(dn);
		snprintf(def, dn, "(default: %s)", p->defval ? p->defval : "");
		print_wrapped(p->doc, def, col);
		free(def);
	}
	printf("Options:\n");
	for (int i = 0; i < NOPTIONS; i++) {
		char *left = option_left(i);
		printf("  %-*s    ", width, left);
		free(left);
		print_wrapped(options[i].doc, NULL, col);
	}
}

/* ---- values ---- */

static const char *a_or_an(sap_ptype t)
{
	return t == SAP_P_INT ? "an" : "a";
}

/* A decimal integer filling the whole of s, without leading blanks. */
static bool parse_integer(const char *s, long long *out, bool *range)
{
	const char *d = s + (*s == '+' || *s == '-');
	if (*d < '0' || *d > '9')
		return false;
	char *end;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*end)
		return false;
	*range = errno != ERANGE;
	return true;
}

static void set_param(const sap_param *p, const char *val)
{
	const char *tn = type_names[p->type];
	long long ll = 0;
	bool inrange = true;
	char *end;

	switch (p->type) {
	case SAP_P_BOOL:
		if (!strcmp(val, "true") || !strcmp(val, "1"))
			*(bool *)p->addr = true;
		else if (!strcmp(val, "false") || !strcmp(val, "0"))
			*(bool *)p->addr = false;
		else
			goto bad;
		return;
	case SAP_P_INT:
	case SAP_P_LONG:
		if (!parse_integer(val, &ll, &inrange))
			goto bad;
		if (!inrange || (p->type == SAP_P_INT && (ll < INT32_MIN || ll > INT32_MAX)))
			goto range;
		if (p->type == SAP_P_INT)
			*(int32_t *)p->addr = (int32_t)ll;
		else
			*(int64_t *)p->addr = (int64_t)ll;
		return;
	case SAP_P_FLOAT:
	case SAP_P_DOUBLE:
		/* strtod would skip leading blanks: a value must be the number alone. */
		if (!*val || sap_is_blank(*val) || *val == '\n')
			goto bad;
		errno = 0;
		if (p->type == SAP_P_FLOAT) {
			/* Read as a double and narrowed, as the default is (C's
			 * float x = 0.1, and a twin's (float)atof(argv[i])). */
			double d = strtod(val, &end);
			float f = (float)d;
			if (*end)
				goto bad;
			if (!isfinite(d))
				goto nonfinite;
			if ((errno == ERANGE && (d > 1 || d < -1)) || !isfinite(f))
				goto range;
			if ((errno == ERANGE && d == 0) || (f == 0 && d != 0))
				goto tiny;
			*(float *)p->addr = f;
		} else {
			double d = strtod(val, &end);
			if (*end)
				goto bad;
			if (errno == ERANGE && (d > 1 || d < -1))
				goto range;
			if (errno == ERANGE && d == 0)
				goto tiny;
			if (!isfinite(d))
				goto nonfinite;
			*(double *)p->addr = d;
		}
		return;
	case SAP_P_STRING:
		*(sap_str *)p->addr = sap_str_dup(val, strlen(val));
		return;
	}
bad:
	usage_error("--%s: expected %s %s, got '%s'", p->name, a_or_an(p->type), tn,
	            sap_token(val, strlen(val)));
range:
	usage_error("--%s: %s is out of range for %s", p->name, sap_token(val, strlen(val)), tn);
tiny:
	usage_error("--%s: %s is too small for %s: it would be 0", p->name,
	            sap_token(val, strlen(val)), tn);
nonfinite:
	usage_error("--%s: expected a finite %s, got '%s' (nan and inf are not accepted)",
	            p->name, tn, sap_token(val, strlen(val)));
}

/* A count from 1 to max, from option or environment variable what. */
static int set_count(const char *what, const char *val, int max)
{
	long long ll;
	bool inrange;
	if (!parse_integer(val, &ll, &inrange) || ll < 1)
		usage_error("%s: expected a positive integer, got '%s'", what,
		            sap_token(val, strlen(val)));
	if (!inrange || ll > max)
		usage_error("%s: %s is out of range (1 to %d)", what, sap_token(val, strlen(val)),
		            max);
	return (int)ll;
}

/* Seconds > 0, finite. */
static double set_seconds(const char *what, const char *val)
{
	char *end;
	errno = 0;
	double d = *val && !isspace((unsigned char)*val) ? strtod(val, &end) : 0;
	if (!*val || isspace((unsigned char)*val) || *end || isnan(d) || d <= 0)
		usage_error("%s: expected a number of seconds above 0, got '%s'", what,
		            sap_token(val, strlen(val)));
	if (!isfinite(d) || d > 1e9)
		usage_error("%s: %s is out of range (at most 1e9 seconds)", what,
		            sap_token(val, strlen(val)));
	return d;
}

static void set_seed(const char *val)
{
	long long ll;
	bool inrange;
	if (!parse_integer(val, &ll, &inrange) || *val == '-')
		usage_error("--seed: expected an unsigned integer, got '%s'",
		            sap_token(val, strlen(val)));
	if (!inrange || ll > UINT32_MAX)
		usage_error("--seed: %s is out of range (0 to %lu)", sap_token(val, strlen(val)),
		            (unsigned long)UINT32_MAX);
	sap_seed_value = (uint32_t)ll;
}

/* ---- the command line ---- */

static const sap_param *find_param(const sap_program *prog, const char *name, size_t n)
{
	for (int i = 0; i < prog->nparams; i++) {
		const char *pn = prog->params[i].name;
		if (strlen(pn) == n && !memcmp(pn, name, n))
			return &prog->params[i];
	}
	return NULL;
}

/* The name matches an option that takes a value, or one that takes
 * none. */
static bool opt_is(const char *name, size_t n, const char *want, const char *eq, bool value)
{
	if (strlen(want) != n || memcmp(name, want, n))
		return false;
	if (value && !eq)
		usage_error("--%s needs a value: --%s=VALUE", want, want);
	if (!value && eq)
		usage_error("--%s takes no value", want);
	return true;
}

enum { MAX_THREADS = 1024 };

/* A path an option names.  Empty, as from an unset shell variable, it is
 * refused: taken as "none" it would quietly run without checkpoints, or
 * without the replay asked for. */
static const char *set_path(const char *opt, const char *val, const char *meta)
{
	if (!*val)
		usage_error("--%s needs a value: --%s=%s", opt, opt, meta);
	return val;
}

static bool runtime_option(const char *name, size_t n, const char *eq)
{
	if (opt_is(name, n, "threads", eq, true))
		sap_cfg.threads = set_count("--threads", eq + 1, MAX_THREADS);
	else if (opt_is(name, n, "stats", eq, false))
		sap_cfg.stats = true;
	else if (opt_is(name, n, "dump-order", eq, true))
		sap_cfg.dump_order = set_path("dump-order", eq + 1, "FILE");
	else if (opt_is(name, n, "run-order", eq, true))
		sap_cfg.run_order = set_path("run-order", eq + 1, "FILE");
	else if (opt_is(name, n, "check-plan", eq, false))
		sap_cfg.check_plan = true;
	else if (opt_is(name, n, "locks", eq, false))
		sap_cfg.locks = true;
	else if (opt_is(name, n, "no-locks", eq, false))
		sap_cfg.locks = false;
	else if (opt_is(name, n, "quiet-plans", eq, false))
		sap_cfg.quiet_plans = true;
	else if (opt_is(name, n, "checkpoint-dir", eq, true))
		sap_cfg.ckpt_dir = set_path("checkpoint-dir", eq + 1, "DIR");
	else if (opt_is(name, n, "checkpoint-every", eq, true))
		sap_cfg.ckpt_every = set_count("--checkpoint-every", eq + 1, INT_MAX);
	else if (opt_is(name, n, "checkpoint-seconds", eq, true))
		sap_cfg.ckpt_seconds = set_seconds("--checkpoint-seconds", eq + 1);
	else if (opt_is(name, n, "resume", eq, false))
		sap_cfg.resume = true;
	else
		return false;
	return true;
}

/* The environment sets what options may override. */
static void read_env(void)
{
	const char *v;
	if ((v = getenv("SAP_THREADS")) && *v)
		sap_cfg.threads = set_count("SAP_THREADS", v, MAX_THREADS);
	if ((v = getenv("SAP_BLOCKS")) && *v)
		sap_cfg.blocks = set_count("SAP_BLOCKS", v, 64);
	if ((v = getenv("SAP_FINE_ORDER")) && *v)
		sap_cfg.groups_in_index_order = strcmp(v, "0") == 0;
	if ((v = getenv("SAP_LOCKS")) && *v)
		sap_cfg.locks = strcmp(v, "0") != 0;
	if ((v = getenv("SAP_CHECK_PLAN")) && *v)
		sap_cfg.check_plan = strcmp(v, "0") != 0;
	if ((v = getenv("SAP_PLAN_SMALL")) && *v)
		sap_cfg.plan_small = strcmp(v, "0") != 0;
	/* Another value was taken as unset, silently (helper U21). */
	if ((v = getenv("SAP_SHORT_LOOPS")) && *v) {
		if (strcmp(v, "whole") && strcmp(v, "spread") && strcmp(v, "timed"))
			usage_error("SAP_SHORT_LOOPS: expected whole, spread or timed, got '%s'",
			            sap_token(v, strlen(v)));
		sap_cfg.short_loops = strcmp(v, "whole") == 0 ? 1 : strcmp(v, "spread") == 0 ? -1 : 0;
	}
}

/* The node's CPUs shared by its ranks, so that ranks x threads does not
 * oversubscribe it; but no more than the CPUs the rank may run on, since
 * threads bound to fewer CPUs only take turns (mpiexec binds each rank to
 * one core unless told --bind-to none). */
static int default_threads(void)
{
	int local = sap_comm_node_size();
	int t = online_cpus() / (local > 0 ? local : 1);
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < t)
		t = CPU_COUNT(&set);
	return t < 1 ? 1 : t;
}

/* --threads=T asked for, on a rank Open MPI's default policy bound to
 * fewer CPUs (one core a rank when there are at most two): its threads
 * would take turns there, no faster than one, and nothing would say so.
 * A binding the user chose (--bind-to, which mpiexec passes on as
 * OMPI_MCA_hwloc_base_binding_policy) stays; otherwise the rank takes
 * its even share of the node's CPUs, which its threads then inherit. */
static void widen_default_binding(void)
{
	const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	const char *ls = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	cpu_set_t set;
	if (!lr || !ls || getenv("OMPI_MCA_hwloc_base_binding_policy") ||
	    sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) >= sap_cfg.threads)
		return;
	int l = atoi(lr), L = atoi(ls), N = online_cpus();
	if (L < 1 || l < 0 || l >= L || N > CPU_SETSIZE)
		return;
	int lo = (int)((long)l * N / L), hi = (int)((long)(l + 1) * N / L);
	if (hi - lo <= CPU_COUNT(&set))
		return;
	cpu_set_t share;
	CPU_ZERO(&share);
	for (int c = lo; c < hi; c++)
		CPU_SET(c, &share);
	(void)sched_setaffinity(0, sizeof share, &share);
}

/* Edits from a[0 .. an) to b: letters inserted, deleted, replaced, or
 * two neighbours swapped (--idnex for --index is one typo, not two). */
static size_t distance(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b), w = bn + 1;
	/* Rows i - 2, i - 1 and i of the table, in turn. */
	size_t *t = sap_xmalloc(3 * w * sizeof *t);
	for (size_t j = 0; j <= bn; j++)
		t[j] = j;
	for (size_t i = 1; i <= an; i++) {
		size_t *r = t + (i % 3) * w, *p = t + ((i - 1) % 3) * w, *pp = t + ((i + 1) % 3) * w;
		r[0] = i;
		for (size_t j = 1; j <= bn; j++) {
			size_t best = p[j - 1] + (a[i - 1] != b[j - 1]);
			if (p[j] + 1 < best)
				best = p[j] + 1;
			if (r[j - 1] + 1 < best)
				best = r[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			r[j] = best;
		}
	}
	size_t d = t[(an % 3) * w + bn];
	free(t);
	return d;
}

static void consider(const char *name, size_t n, const char *prefix, const char *cand,
                     char **best, size_t *bd)
{
	char *c = sap_strf("%s%s", prefix, cand);
	size_t d = distance(name, n, c);
	if (d < *bd && d <= (n < 6 ? 1 : 2)) {
		*bd = d;
		free(*best);
		*best = c;
	} else {
		free(c);
	}
}

/* The option or parameter closest to a mistyped one: one edit away, or
 * two for a name of six letters or more (--xyz is not a typo of --y). */
static char *closest_option(const sap_program *prog, const char *name, size_t n)
{
	char *best = NULL;
	size_t bd = 3;
	for (int i = 0; i < NOPTIONS; i++)
		consider(name, n, "", options[i].name, &best, &bd);
	for (int i = 0; i < prog->nparams; i++) {
		consider(name, n, "", prog->params[i].name, &best, &bd);
		if (prog->params[i].type == SAP_P_BOOL)
			consider(name, n, "no-", prog->params[i].name, &best, &bd);
	}
	return best;
}

static void parse_arg(const sap_program *prog, const char *arg)
{
	if (arg[0] != '-' || arg[1] != '-' || arg[2] == '\0')
		usage_error("unexpected argument '%s' (try --help)", sap_escape(arg, strlen(arg)));
	const char *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);

	if (n == 4 && !memcmp(name, "help", 4)) {
		if (eq)
			usage_error("--help takes no value");
		if (rank == 0)
			print_help(prog);
		leave(0);
	}
	if (n == 7 && !memcmp(name, "version", 7)) {
		if (eq)
			usage_error("--version takes no value");
		if (rank == 0)
			printf("%s (sapc %s)\nCompiled by sapc from %s.\n", progname, SAP_VERSION,
			       prog->source);
		leave(0);
	}
	if (n == 4 && !memcmp(name, "seed", 4)) {
		if (!eq)
			usage_error("--seed needs a value: --seed=S");
		set_seed(eq + 1);
		return;
	}
	if (runtime_option(name, n, eq))
		return;
	const sap_param *p = find_param(prog, name, n);
	if (p) {
		if (eq)
			set_param(p, eq + 1);
		else if (p->type == SAP_P_BOOL)
			*(bool *)p->addr = true;
		else
			usage_error("--%s needs a value: --%s=%s", p->name, p->name,
			            type_names[p->type]);
		return;
	}
	if (!eq && !strncmp(name, "no-", 3)) {
		p = find_param(prog, name + 3, n - 3);
		if (p && p->type == SAP_P_BOOL) {
			*(bool *)p->addr = false;
			return;
		}
	}
	char *best = closest_option(prog, name, n);
	if (best)
		usage_error("unknown option '--%s'; did you mean '--%s%s'?", sap_escape(name, n),
		            best, eq ? sap_escape(eq, strlen(eq)) : "");
	usage_error("unknown option '--%s' (try --help)", sap_escape(name, n));
}

/* ---- every rank the same ---- */

/* What a rank was started with: the program, the runtime's environment
 * variables (those that shape plans, and SAP_THREADS, whose bad value on
 * one rank alone would end that rank but not the others), then its
 * arguments; each item "label\0value\0". */
static const char *const plan_env[] = { "SAP_THREADS", "SAP_BLOCKS", "SAP_LOCKS",
                                        "SAP_CHECK_PLAN", "SAP_FINE_ORDER", "SAP_PLAN_SMALL" };

static void item(char **buf, size_t *n, const char *label, const char *val)
{
	size_t ln = strlen(label) + 1, vn = strlen(val) + 1;
	*buf = sap_xrealloc(*buf, *n + ln + vn);
	memcpy(*buf + *n, label, ln);
	memcpy(*buf + *n + ln, val, vn);
	*n += ln + vn;
}

static char *started_with(int argc, char **argv, const sap_program *prog, size_t *n)
{
	char *buf = NULL, label[64];
	*n = 0;
	item(&buf, n, "the program", prog->source ? prog->source : "?");
	for (int i = 0; i < prog->nparams; i++)
		item(&buf, n, "a parameter", prog->params[i].name);
	item(&buf, n, "the end of the parameters", "");
	for (size_t k = 0; k < sizeof plan_env / sizeof *plan_env; k++) {
		const char *v = getenv(plan_env[k]);
		if (v) {
			item(&buf, n, plan_env[k], v);
		} else {
			snprintf(label, sizeof label, "%s unset", plan_env[k]);
			item(&buf, n, label, "");
		}
	}
	for (int i = 1; i < argc; i++) {
		snprintf(label, sizeof label, "argument %d", i);
		item(&buf, n, label, argv[i]);
	}
	item(&buf, n, "the end of the arguments", "");
	return buf;
}

/* An item for a message: its label and value, control bytes escaped. */
static char *shown(const char *label, const char *val)
{
	if (!strcmp(label, "the end of the arguments"))
		return sap_strf("no more arguments");
	if (!strcmp(label, "the end of the parameters"))
		return sap_strf("no more parameters");
	size_t ln = strlen(label);
	if (ln > 6 && !strcmp(label + ln - 6, " unset"))
		return sap_strf("%s", label);
	char *esc = sap_escape(val, strlen(val));
	char *out = sap_strf("%s '%s'", label, esc);
	free(esc);
	return out;
}

/* The ranks of one run must all run the same program on the same command
 * line: a rank that takes other params or sizes goes its own way through
 * the collectives and hangs or crashes the run.  mpiexec's "A : B" form
 * starts such runs; each rank compares what it was given with rank 0's,
 * and the lowest that differs says where. */
static void check_same_start(int argc, char **argv, const sap_program *prog)
{
	size_t mn, n0;
	char *mine = started_with(argc, argv, prog, &mn);
	int64_t len = (int64_t)mn;
	sap_comm_bcast(&len, 1, sizeof len, 0);
	n0 = (size_t)len;
	char *zero = rank == 0 ? mine : sap_xmalloc(n0);
	sap_comm_bcast(zero, (int64_t)n0, 1, 0);
	/* The first item that differs, in both lists. */
	const char *a = mine, *b = zero;
	bool differ = false;
	while (a < mine + mn && b < zero + n0) {
		const char *av = a + strlen(a) + 1, *bv = b + strlen(b) + 1;
		if (strcmp(a, b) || strcmp(av, bv)) {
			differ = true;
			break;
		}
		a = av + strlen(av) + 1;
		b = bv + strlen(bv) + 1;
	}
	int first = differ ? rank : nranks;
	sap_comm_allreduce(&first, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (first == nranks) {
		if (zero != mine)
			free(zero);
		free(mine);
		return;
	}
	if (rank == first) {
		const char *av = a + strlen(a) + 1, *bv = b + strlen(b) + 1;
		char *x = shown(a, av), *y = shown(b, bv);
		fprintf(stderr, "%s: error: the ranks were started differently: rank %d has %s "
		        "where rank 0 has %s; every rank must run the same program with the same "
		        "arguments\n", progname, rank, x, y);
		free(x);
		free(y);
	}
	leave(2);
}

/* A checkpoint directory that cannot be made or written in is an error
 * at the start, not a warning at every checkpoint (which writes none),
 * with --resume too: a job script that always passes it must not run
 * on without checkpoints. */
static void check_ckpt_dir(void)
{
	static const char *const what[] = { "", "cannot create it", "cannot look at it", "",
	                                     "cannot write in it" };
	const char *d = sap_cfg.ckpt_dir;
	struct stat st;
	int e[2] = { 0, 0 };
	if (mkdir(d, 0755) != 0 && errno != EEXIST)
		e[0] = errno, e[1] = 1;
	else if (stat(d, &st) != 0)
		e[0] = errno, e[1] = 2;
	else if (!S_ISDIR(st.st_mode))
		e[0] = ENOTDIR, e[1] = 3;
	else if (access(d, W_OK | X_OK) != 0)
		e[0] = errno, e[1] = 4;
	int first = e[0] ? rank : nranks;
	if (nranks > 1)
		sap_comm_allreduce(&first, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (first == nranks)
		return;
	if (nranks > 1)
		sap_comm_bcast(e, 2, sizeof *e, first);
	sap_option_fail(first, sap_strf("--checkpoint-dir=%s: %s%s%s", d, what[e[1]],
	                                *what[e[1]] ? ": " : "", strerror(e[0])));
}

/* glibc maps each malloc of 128 KiB or more and unmaps it when freed,
 * until a free of such a block moves the threshold up to its size: so
 * whether a buffer taken and freed every loop invocation (a rank's share
 * of an exchange, a worker's partial sums) costs a page fault and a
 * zeroed page every 4 KiB of it, every time, depended on what happened to
 * be freed first.  PageRank on 2 ranks ran its iterations 2.6x slower
 * once loading stopped freeing a large buffer.  The thresholds glibc
 * would reach by itself after one 32 MiB free are set from the start,
 * unless the user set them. */
static void steady_malloc(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	if (getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_") ||
	    getenv("GLIBC_TUNABLES"))
		return;
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

void sap_init(int *argc, char ***argv, const sap_program *prog)
{
	steady_malloc();
	sap_comm_start(argc, argv);
	rank = sap_comm_rank();
	nranks = sap_comm_size();
	sap_print_start();

	progname = prog->name;
	if (*argc > 0 && (*argv)[0] && (*argv)[0][0]) {
		const char *slash = strrchr((*argv)[0], '/');
		progname = slash ? slash + 1 : (*argv)[0];
	}
	sap_stack_handler();
	if (nranks > 1)
		check_same_start(*argc, *argv, prog);
	read_env();
	for (int i = 1; i < *argc; i++)
		parse_arg(prog, (*argv)[i]);
	if (sap_cfg.threads > 1)
		widen_default_binding();
	if (sap_cfg.threads <= 0)
		sap_cfg.threads = default_threads();
	sap_audit_on = sap_cfg.check_plan;
	if (sap_cfg.resume && !sap_cfg.ckpt_dir)
		usage_error("--resume needs --checkpoint-dir=DIR, the directory of the checkpoints");
	/* Taken alone, they would quietly write no checkpoint at all. */
	if ((sap_cfg.ckpt_every || sap_cfg.ckpt_seconds) && !sap_cfg.ckpt_dir)
		usage_error("--checkpoint-%s needs --checkpoint-dir=DIR, where the checkpoints go",
		            sap_cfg.ckpt_every ? "every" : "seconds");
	/* A checkpoint does not hold where the order file was: a resumed
	 * recording would hold only the loops after it, a resumed replay
	 * would read the file from its first loop. */
	if (sap_cfg.resume && sap_cfg.dump_order)
		usage_error("--resume cannot be used with --dump-order: the file would hold "
		            "only the loops after the checkpoint, which no replay can run");
	if (sap_cfg.resume && sap_cfg.run_order)
		usage_error("--resume cannot be used with --run-order: a replay starts at the "
		            "file's first loop, not at the checkpoint");
	/* --dump-order empties its file at the start: the recording the
	 * replay was to read would be lost. */
	if (sap_cfg.dump_order && sap_cfg.run_order) {
		struct stat a, b;
		if (strcmp(sap_cfg.dump_order, sap_cfg.run_order) == 0 ||
		    (stat(sap_cfg.dump_order, &a) == 0 && stat(sap_cfg.run_order, &b) == 0 &&
		     a.st_dev == b.st_dev && a.st_ino == b.st_ino))
			usage_error("--dump-order and --run-order name the same file, %s: recording "
			            "would empty the order the replay reads; record into another file",
			            sap_cfg.run_order);
	}
	if (sap_cfg.ckpt_dir && !sap_cfg.ckpt_every && !sap_cfg.ckpt_seconds)
		sap_cfg.ckpt_seconds = DEFAULT_CKPT_SECONDS;
	if (sap_cfg.ckpt_dir)
		check_ckpt_dir();
	program_hash = prog->hash;
	program = prog;
	/* Loops spread over ranks plan for ranks x threads workers, the same
	 * plan on every rank: the ranks must agree on their threads. */
	if (nranks > 1) {
		sap_comm_allreduce(&sap_cfg.threads, 1, SAP_COMM_INT, SAP_COMM_MIN);
	}
	if (*argc > 1) {
		*argc = 1;
		(*argv)[1] = NULL;
	}

	sap_order_start();
	driver_rng = sap_rng_make(0, 0, 0);
	sap_rng_cur = &driver_rng;
	sap_vmath_init();
}

sap_rng *sap_driver_rng(void)
{
	return &driver_rng;
}

uint64_t sap_program_hash(void)
{
	return program_hash;
}

int sap_param_count(void)
{
	return program ? program->nparams : 0;
}

const char *sap_param_name(int i)
{
	return program->params[i].name;
}

bool sap_param_out_only(int i)
{
	return program->params[i].out_only;
}

char *sap_param_text(int i)
{
	const sap_param *p = &program->params[i];
	switch (p->type) {
	case SAP_P_BOOL: return sap_strf("%s", *(bool *)p->addr ? "true" : "false");
	case SAP_P_INT: return sap_strf("%d", (int)*(int32_t *)p->addr);
	case SAP_P_LONG: return sap_strf("%lld", (long long)*(int64_t *)p->addr);
	case SAP_P_FLOAT: return sap_strf("%.9g", (double)*(float *)p->addr);
	case SAP_P_DOUBLE: return sap_strf("%.17g", *(double *)p->addr);
	case SAP_P_STRING: return sap_strf("%s", sap_str_c(*(sap_str *)p->addr));
	}
	return sap_strf("?");
}

/* After --resume, what the clock read in the run that took the
 * checkpoint (sap_wtime_continue): a program's own timing goes on. */
static double wtime_offset;

double sap_wtime(void)
{
	return sap_comm_wtime() + wtime_offset;
}

_Atomic int sap_loops_running;

/* Driver code runs on every rank with the same values, so that it takes
 * the same branches: a program that trains for as long as
 * wtime() - t0 < budget would otherwise run a different number of
 * passes on each rank, or wait forever in one another's collectives. */
double sap_wtime_prog(void)
{
	double t = sap_wtime();
	if (sap_nranks() > 1 && atomic_load_explicit(&sap_loops_running, memory_order_relaxed) == 0)
		sap_comm_bcast(&t, 1, sizeof t, 0);
	return t;
}

void sap_wtime_continue(double then)
{
	wtime_offset = 0;
	wtime_offset = then - sap_wtime();
}

const char *sap_progname(void)
{
	return progname ? progname : "sap";
}

int sap_finalize(void)
{
	sap_print_settle();
	fflush(stdout);
	sap_ckpt_finish();
	sap_plan_cost_final();
	sap_stats_print();
	sap_pool_end();
	sap_order_end();
	sap_comm_end();
	return 0;
}
