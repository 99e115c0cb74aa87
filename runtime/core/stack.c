/* stack.c: the stacks the program and its workers run on, and a message
 * rather than a bare segfault when one overflows.
 *
 * Arrays are values that C copies on the stack, and a function may call
 * itself: a large array, or a deep recursion, needs more than the 8 MB a
 * thread gets by default.  sap_main gives the program a thread with room
 * for its largest arrays; past that, a fault at the end of a stack is
 * reported as what it is, naming the program and the rank. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "sap-int.h"

size_t sap_stack_bytes;

typedef struct main_job {
	int argc;
	char **argv;
	int (*program)(int, char **);
	int status;
} main_job;

static void *run_program(void *arg)
{
	main_job *j = arg;
	sap_stack_alt();
	j->status = j->program(j->argc, j->argv);
	return NULL;
}

/* A function that takes an array as a value, a reduce over one (the
 * body's copy, the buffers, the sum's operands and result) or an
 * expression's temporaries hold copies of it on the stack: 16 of the
 * largest make room for them, unoptimised or sanitized code included,
 * beside the 8 MB a thread has anyway.  Only the pages touched are
 * memory; the rest is address space. */
int sap_main(int argc, char **argv, int (*program)(int, char **), const size_t *sizes, int n)
{
	size_t big = 0;
	for (int k = 0; k < n; k++)
		big = sizes[k] > big ? sizes[k] : big;
	size_t need = 16 * big, have = (size_t)8 << 20;
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) == 0)
		have = rl.rlim_cur == RLIM_INFINITY ? SIZE_MAX : (size_t)rl.rlim_cur;
	if (need <= have / 2) {
		sap_stack_alt();
		return program(argc, argv);
	}
	size_t stack = (need + ((size_t)8 << 20) + 4095) & ~(size_t)4095;
	sap_stack_bytes = stack;
	pthread_attr_t a;
	pthread_attr_init(&a);
	main_job j = { argc, argv, program, 1 };
	pthread_t t;
	int err = pthread_attr_setstacksize(&a, stack);
	if (!err)
		err = pthread_create(&t, &a, run_program, &j);
	pthread_attr_destroy(&a);
	if (err) {
		fprintf(stderr, "%s: error: cannot start the program on a stack of %zu MB, the room "
		        "its arrays of %zu bytes need: %s\n", argv[0], stack >> 20, big, strerror(err));
		return 1;
	}
	pthread_join(t, NULL);
	return j.status;
}

/* ---- overflow ---- */

enum { ALT = 64 << 10, NEAR = 1 << 20 };

static struct sigaction before;         /* the handler there was (Open MPI's) */
static char overflow_msg[512];
static size_t overflow_len;

_Thread_local const sap_recur *sap_recur_at;

/* s, then the decimal digits of v, to fd: no printf in a handler. */
static void put(const char *s)
{
	ssize_t w = write(2, s, strlen(s));
	(void)w;
}

static void put_int(long v)
{
	char d[24], *p = d + sizeof d;
	*--p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	put(p);
}

/* The message, naming the function that calls itself entered last, if
 * any: it is the likely cause (and it may be arrays too large). */
static void say_overflow(void)
{
	const sap_recur *r = sap_recur_at;
	if (!r || !r->site || !r->site->file) {
		ssize_t w = write(2, overflow_msg, overflow_len);
		(void)w;
		return;
	}
	if (sap_nranks() > 1) {
		put("[rank ");
		put_int(sap_rank());
		put("] ");
	}
	put(r->site->file);
	put(":");
	put_int(r->site->line);
	put(":");
	put_int(r->site->col);
	put(": error: stack overflow: a recursion too deep, in function '");
	put(r->name);
	put("' (which calls itself) or below it, or arrays too large for the stack (a dvector "
	    "holds large data)\n");
}

/* Where the calling thread's stack ends (its lowest address), found when
 * the thread starts: the handler must not look it up (the lookup reads a
 * file and allocates, which a fault inside malloc would deadlock). */
static _Thread_local char *stack_lo;

/* A fault within a megabyte below or just above the end of the faulting
 * thread's stack is its overflow; any other goes to the handler there was
 * before (Open MPI prints a backtrace) or the default, by faulting again. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	char *end = stack_lo, *at = si->si_addr;
	if (end && at < end + 65536 && at + NEAR >= end) {
		sap_print_crash();
		/* In driver code every rank overflows alike: the others give
		 * rank 0 a second to report it and end the job, as sap_vfatal
		 * does, rather than print it once each. */
		bool driver = sap_nranks() > 1 && sap_rank() != 0 && !sap_in_loop();
		if (driver) {
			struct timespec pause = { 1, 0 };
			nanosleep(&pause, NULL);
		}
		say_overflow();
		/* Rank 0 lets out the lines it holds when it meets the same
		 * overflow (sap_print_crash): the other ranks give it the
		 * moment sap_comm_abort gives it before an error. */
		if (sap_rank() != 0 && !driver) {
			struct timespec pause = { 0, 300 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
		_exit(1);
	}
	sigaction(SIGSEGV, &before, NULL);
}

void sap_stack_alt(void)
{
	pthread_attr_t a;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		void *lo = NULL;
		size_t size = 0;
		if (pthread_attr_getstack(&a, &lo, &size) == 0)
			stack_lo = lo;
		pthread_attr_destroy(&a);
	}
	/* One there already stays: AddressSanitizer gives each thread its
	 * own, and unmaps whatever the thread has when it ends. */
	stack_t old;
	if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE) && old.ss_size >= ALT / 2)
		return;
	stack_t ss = { .ss_sp = malloc(ALT), .ss_size = ALT, .ss_flags = 0 };
	if (ss.ss_sp && sigaltstack(&ss, NULL) != 0)
		free(ss.ss_sp);
}

void sap_stack_handler(void)
{
	/* As sap_fatal tags its messages, with the program for a place. */
	char tag[32] = "";
	if (sap_nranks() > 1)
		snprintf(tag, sizeof tag, "[rank %d] ", sap_rank());
	snprintf(overflow_msg, sizeof overflow_msg, "%s%s: error: stack overflow: a recursion too "
	         "deep, or arrays too large for the stack (a dvector holds large data)\n", tag,
	         sap_progname());
	overflow_len = strlen(overflow_msg);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &before);
}
