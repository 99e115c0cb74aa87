/* error.c: fatal errors, printing, checked sizes and allocation. */
#include <errno.h>
#include <signal.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sap-int.h"

_Noreturn void sap_vfatal(const sap_site *s, const char *fmt, va_list ap)
{
	/* The first error of the process ends it: two workers that meet
	 * errors at once print one message, and the other waits for the
	 * end rather than race it. */
	static atomic_flag ending = ATOMIC_FLAG_INIT;
	if (atomic_flag_test_and_set(&ending))
		for (;;)
			pause();
	fflush(stdout);
	/* Driver code runs on every rank alike, so an error at a line of
	 * the program outside its loops is every rank's: the others give
	 * rank 0 a second to report it and end the job (Open MPI took more
	 * than 0.3 s), rather than print it once each (three copies on 3
	 * ranks).  One that only this rank meets is printed after the wait;
	 * a data file's line, which the ranks agreed this one reports, and a
	 * machine error (no site) at once. */
	size_t fl = s && s->file ? strlen(s->file) : 0;
	if (sap_nranks() > 1 && sap_rank() != 0 && !sap_in_loop() && sap_comm_live() && fl > 4 &&
	    !strcmp(s->file + fl - 4, ".sap"))
		sleep(1);
	/* Build the whole message first so that ranks writing to a shared
	 * stderr do not interleave their pieces; sized to fit, since a message
	 * cut short (a long path, a long token) hides what went wrong. */
	char head[64] = "", *where = NULL;
	int nr = sap_nranks();
	if (nr > 1)
		snprintf(head, sizeof head, "[rank %d] ", sap_rank());
	/* Without a place, the program's name, as GNU tools and the
	 * usage errors put it: among the lines of several jobs' ranks. */
	if (s && s->file)
		where = s->col > 0 ? sap_strf("%s:%d:%d: ", s->file, s->line, s->col)
		                   : sap_strf("%s:%d: ", s->file, s->line);
	else
		where = sap_strf("%s: ", sap_progname());
	char *text = sap_vstrf(fmt, ap);
	fprintf(stderr, "%s%serror: %s\n", head, where, text);
	fflush(stderr);

	/* Whether the others can still be reached: the unit tests never
	 * start communicating, and sap_finalize may have ended it. */
	if (sap_comm_live() && nr > 1)
		sap_comm_abort(1);
	exit(1);
}

_Thread_local sap_spec *sap_spec_cur;

_Noreturn void sap_fatal(const sap_site *s, const char *fmt, ...)
{
	/* Errors without a position are the machine's (memory, limits),
	 * not the data's: they stop a slice's speculative region too. */
	if (s && sap_spec_cur)
		longjmp(sap_spec_cur->jb, 1);
	va_list ap;
	va_start(ap, fmt);
	sap_vfatal(s, fmt, ap);
}

void sap_warn(const sap_site *s, const char *fmt, ...)
{
	if (sap_rank() != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *text = sap_vstrf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (s && s->file && s->col > 0)
		fprintf(stderr, "%s:%d:%d: warning: %s\n", s->file, s->line, s->col, text);
	else if (s && s->file)
		fprintf(stderr, "%s:%d: warning: %s\n", s->file, s->line, text);
	else
		fprintf(stderr, "%s: warning: %s\n", sap_progname(), text);
	fflush(stderr);
	free(text);
}

/* A whole number as its digits: 2^63 as %.17g, 9.2233720368547758e+18,
 * reads as less than a long's largest, which it is not. */
static char *exact_text(double x)
{
	return sap_strf(x == floor(x) && fabs(x) < 1e21 ? "%.0f" : "%.17g", x);
}

_Noreturn void sap_conv_range(const sap_site *s, double x, bool stored, bool to_long)
{
	const char *t = to_long ? "long" : "int";
	if (x != x)
		sap_fatal(s, stored ? "NaN stored in a%s %s: NaN is no number" :
		          "%.0s%s(NaN): NaN is no number", to_long ? "" : "n", t);
	char *v = exact_text(x);
	if (stored)
		sap_fatal(s, "%s stored in a%s %s: out of its range", v, to_long ? "" : "n", t);
	sap_fatal(s, "%s(%s): out of the range of a%s %s", t, v, to_long ? "" : "n", t);
}

static bool not_below(int64_t k, double x, bool is_float)
{
	return is_float ? (double)(float)k >= x : (double)k >= x;
}

int64_t sap_for_end_round(int64_t m, double x, bool is_float)
{
	/* Below m by less than the spacing of floats there (2^40 at most):
	 * a search between a k below x and m. */
	int64_t lo = m > INT64_MIN + ((int64_t)1 << 41) ? m - ((int64_t)1 << 41) : INT64_MIN;
	if (not_below(lo, x, is_float))
		return lo;
	while (m - lo > 1) {
		int64_t mid = lo + (m - lo) / 2;
		if (not_below(mid, x, is_float))
			m = mid;
		else
			lo = mid;
	}
	return m;
}

_Noreturn void sap_for_end_range(const sap_site *s, double x)
{
	sap_fatal(s, "the end of an async for, %s, is past the range of a long", exact_text(x));
}

_Noreturn void sap_red_range(const sap_site *s, const char *var, const char *type, double x)
{
	sap_fatal(s, "%s stored in %s: out of the range of %s %s; %s holds one worker's partial "
	          "value of its reduce clause, which the serial loop's running value may not reach "
	          "(sap(7), reduce): make %s a wider type", exact_text(x), var,
	          type[0] == 'i' ? "an" : "a", type,
	          var, var);
}

_Noreturn void sap_red_sum_range(const sap_site *s, const char *var, int64_t x)
{
	sap_fatal(s, "the workers' partial values of %s combine to %lld: out of the range of an int "
	          "(%s is updated by longs, so it is checked, not wrapped; sap(7), reduce): make %s "
	          "hold longs", var, (long long)x, var, var);
}

_Noreturn void sap_sum_range(const sap_sumcheck *c, int64_t x)
{
	sap_fatal(c->site, "the workers' copies of an element of '%s' add up to %lld: out of the "
	          "range of an int ('%s' is updated by longs, so its sums are checked, not wrapped; "
	          "sap(7), %s): make its elements long", c->name, (long long)x, c->name,
	          c->sect ? c->sect : "accumulate");
}

_Noreturn void sap_oob(const sap_site *s, const char *what, int64_t i, int64_t n)
{
	sap_fatal(s, "index %lld out of range for %s (size %lld)",
	          (long long)i, what, (long long)n);
}

/* Prints since the ranks last met: the same count on every rank, as
 * every rank runs the driver code. */
static int64_t print_pending;
/* Rank 0's stdout is a terminal: each line goes out as printed
 * (sap_print_start). */
static bool print_tty;
/* Within vprintf: stdout's buffer is being written. */
static volatile sig_atomic_t printing;

enum { PRINT_BATCH = 1024 };

static void print_flush(void)
{
	if (sap_rank() == 0 && (fflush(stdout) == EOF || ferror(stdout)))
		sap_fatal(NULL, "cannot write standard output: %s", strerror(errno));
}

void sap_print_start(void)
{
	/* Open MPI gives its ranks a pseudo-terminal, which C's stdout
	 * writes out a line at a time (200000 lines took 0.9 s under
	 * mpiexec -n 1, 0.05 s without): the lines wait in a buffer for the
	 * ranks to meet, and only a terminal of the user's own sees each
	 * line as printed.  Before anything is written to stdout. */
	bool mpiexec = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
	print_tty = sap_rank() == 0 && isatty(STDOUT_FILENO) && !mpiexec;
	if (!print_tty)
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
}

void sap_print_settle(void)
{
	if (!print_pending)
		return;
	print_pending = 0;
	if (sap_nranks() > 1 && sap_comm_live())
		sap_comm_barrier();
	print_flush();
}

void sap_print(const char *fmt, ...)
{
	/* Every rank runs the driver code and so every print; rank 0 lets
	 * its lines out only once every rank has got past them: at the next
	 * point where the ranks meet anyway (a parallel loop, a load or a
	 * save, the end; sap_print_settle), or with a barrier of their own
	 * every PRINT_BATCH lines.  A rank that failed before never
	 * arrives, and its abort ends rank 0 with those lines unwritten:
	 * nothing is printed after an error, whichever rank had it, and a
	 * line costs no barrier. */
	bool meet = ++print_pending >= PRINT_BATCH;
	if (meet) {
		print_pending = 0;
		if (sap_nranks() > 1 && sap_comm_live())
			sap_comm_barrier();
	}
	if (sap_rank() != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	printing = 1;
	vprintf(fmt, ap);
	printing = 0;
	va_end(ap);
	if (meet || (print_tty && sap_nranks() == 1))
		print_flush();
}

void sap_print_crash(void)
{
	/* A stack overflow ends the process at once: the lines this rank
	 * printed before it go out first, as sap_fatal lets them, unless
	 * the overflow came within the printing. */
	if (!printing && sap_rank() == 0)
		fflush(stdout);
}

char *sap_escape(const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *out = sap_xmalloc(4 * n + 1), *q = out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c == 0x7f) {
			*q++ = '\\';
			*q++ = 'x';
			*q++ = hex[c >> 4];
			*q++ = hex[c & 15];
		} else {
			*q++ = (char)c;
		}
	}
	*q = '\0';
	return out;
}

char *sap_token(const char *p, size_t n)
{
	char *e = sap_escape(p, n > SAP_TOKEN_SHOW ? SAP_TOKEN_SHOW : n);
	if (n <= SAP_TOKEN_SHOW)
		return e;
	char *q = sap_strf("%s...", e);
	free(e);
	return q;
}

/* printf into a string just long enough. */
char *sap_vstrf(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	char *s = sap_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *sap_strf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = sap_vstrf(fmt, ap);
	va_end(ap);
	return s;
}

int64_t sap_mul_size(int64_t a, int64_t b, const sap_site *s)
{
	int64_t r;
	if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
		sap_fatal(s, "size overflow");
	return r;
}

/* A buffer of megabytes (a plan's order, an exchange) is written whole
 * soon after it is taken: its first touch costs a page fault every 4 KB,
 * on a VM ten microseconds each, a third of the first plan of a loop of a
 * million iterations over two ranks.  Huge pages halved that there
 * (sap_advise_huge).  So for one grown by realloc (the key log of a
 * key-level plan, three copies of 24 MiB), whose new pages fault alike. */
enum { BIG = 2 << 20 };

/* A block glibc maps by itself (32 MiB and up, steady_malloc in init.c)
 * asked for 32 bytes short of a multiple of 2 MiB: its mapping is then
 * that multiple, which Linux places on a 2 MiB boundary, and realloc
 * grows it by mremap to another such place, moving its huge pages whole
 * rather than copying it (a map of millions of entries doubled in a
 * tenth of the time) or splitting them (random reads of the moved block
 * twice as slow). */
static size_t whole_huge(size_t n)
{
#if defined(__GLIBC__) && UINTPTR_MAX == UINT64_MAX
	enum { MAPPED = 32 << 20, HEAD = 32 };
	if (n >= MAPPED - HEAD && n <= SIZE_MAX / 2)
		return (n + HEAD + BIG - 1) / BIG * BIG - HEAD;
#endif
	return n;
}

_Thread_local const char *sap_oom_doing;

/* On 2 ranks a vector gathered whole for driver code ran out with no
 * word of which, where one rank had room for it. */
static _Noreturn void out_of_memory(size_t n)
{
	sap_fatal(NULL, "out of memory (%.1f MB more)%s%s", (double)n / 1e6,
	          sap_oom_doing ? " " : "", sap_oom_doing ? sap_oom_doing : "");
}

void *sap_xmalloc(size_t n)
{
	n = whole_huge(n);
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	if (n >= BIG)
		sap_advise_huge(p, n);
	return p;
}

void *sap_xrealloc(void *p, size_t n)
{
	n = whole_huge(n);
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory(n);
	if (n >= BIG)
		sap_advise_huge(p, n);
	return p;
}

/* Where the system gives transparent huge pages only on request (Linux's
 * enabled=madvise, Debian's default), a DDS of megabytes asks for them:
 * with 4 KB pages a loop that scatters over an 8 MB vector misses the
 * TLB on most accesses.  NULL if there is no memory. */
void *sap_alloc_dds(size_t n)
{
	enum { HUGE = 2 << 20 };
	if (n < 2 * HUGE)
		return aligned_alloc(64, (n + 63) / 64 * 64);
	size_t whole = (n + HUGE - 1) / HUGE * HUGE;
	void *p = aligned_alloc(HUGE, whole);
#ifdef MADV_HUGEPAGE
	if (p)
		madvise(p, whole, MADV_HUGEPAGE);
#endif
	return p;
}

/* The advice covers every page of the block, not only its aligned 2 MiB
 * stretches: advice on part of a mapping splits it, and glibc grows a
 * block it mapped by mremap, which fails on a range over several
 * mappings; realloc then copies the whole block into fresh pages (every
 * doubling of a map of millions of entries, a third of building it). */
void sap_advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	enum { HUGE = 2 << 20 };
	if (!p || n < HUGE)
		return;
#ifdef __GLIBC__
	/* To the mapping's last page, which the block's own last byte may
	 * fall short of. */
	n = malloc_usable_size(p);
#endif
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p / pg * pg, b = ((uintptr_t)p + n + pg - 1) / pg * pg;
	madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

void *sap_xcalloc(size_t n, size_t size)
{
	size_t b;
	if (__builtin_mul_overflow(n ? n : 1, size ? size : 1, &b))
		sap_fatal(NULL, "out of memory");
	/* A block written over soon after (key tables, a tally, a dmap's
	 * slots) is zeroed here, a big one in huge pages where the system
	 * gives them: calloc's fresh pages are read first as the shared zero
	 * page and then faulted again, copied on write, at every first store,
	 * with a flush of the other threads' TLBs each time.  64 bytes a key
	 * over a vector of a million made that a plan's time, 25 times the
	 * loop's; the slots of two threads' word counts (50,000 words, 1 MB
	 * each) took a third of their loop. */
	void *p = sap_xmalloc(b);
	memset(p, 0, b);
	return p;
}
