/* error.c: fatal errors, printing, checked sizes and allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "sap-int.h"

_Noreturn void sap_vfatal(const sap_site *s, const char *fmt, va_list ap)
{
	fflush(stdout);
	/* Build the whole message first so that ranks writing to a shared
	 * stderr do not interleave their pieces. */
	char msg[1024];
	size_t n = 0;
	int nr = sap_nranks();
	if (nr > 1)
		n += (size_t)snprintf(msg + n, sizeof msg - n, "[rank %d] ", sap_rank());
	if (s && s->file) {
		if (s->col > 0)
			n += (size_t)snprintf(msg + n, sizeof msg - n, "%s:%d:%d: ",
			                      s->file, s->line, s->col);
		else
			n += (size_t)snprintf(msg + n, sizeof msg - n, "%s:%d: ",
			                      s->file, s->line);
	}
	if (n < sizeof msg)
		n += (size_t)snprintf(msg + n, sizeof msg - n, "error: ");
	if (n < sizeof msg)
		vsnprintf(msg + n, sizeof msg - n, fmt, ap);
	fprintf(stderr, "%s\n", msg);
	fflush(stderr);

	/* The unit tests never start MPI, so its state has to be asked. */
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (init && !fin && nr > 1)
		MPI_Abort(MPI_COMM_WORLD, 1);
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

_Noreturn void sap_oob(const sap_site *s, const char *what, int64_t i, int64_t n)
{
	sap_fatal(s, "index %lld out of range for %s (size %lld)",
	          (long long)i, what, (long long)n);
}

void sap_print(const char *fmt, ...)
{
	if (sap_rank() != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

int64_t sap_mul_size(int64_t a, int64_t b, const sap_site *s)
{
	int64_t r;
	if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
		sap_fatal(s, "size overflow");
	return r;
}

void *sap_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		sap_fatal(NULL, "out of memory");
	return p;
}

void *sap_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		sap_fatal(NULL, "out of memory");
	return p;
}

void *sap_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		sap_fatal(NULL, "out of memory");
	return p;
}
