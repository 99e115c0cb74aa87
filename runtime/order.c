/* order.c: --dump-order and --run-order, the equivalent serial order of
 * every async loop invocation, written and replayed.
 *
 * The file is text: for each invocation a line "loop L invocation I
 * count N", then N lines of one iteration index each.  A run on many
 * workers and the replay of its dumped order on one must compute the same
 * DDSs bit for bit: that is what serializable means, checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sap-int.h"

static FILE *dumpf, *runf;
static int64_t runline;         /* lines of runf read so far */

void sap_order_dump(const sap_loop *L, const int64_t *idx, int64_t lo, int64_t n)
{
	if (sap_rank() != 0)
		return;
	if (!dumpf) {
		dumpf = fopen(sap_cfg.dump_order, "w");
		if (!dumpf)
			sap_fatal(&L->site, "--dump-order=%s: %s", sap_cfg.dump_order, strerror(errno));
	}
	fprintf(dumpf, "loop %d invocation %u count %lld\n", L->id, L->invocations,
	        (long long)n);
	for (int64_t k = 0; k < n; k++)
		fprintf(dumpf, "%lld\n", (long long)(idx ? idx[k] : lo + k));
	if (ferror(dumpf))
		sap_fatal(&L->site, "--dump-order=%s: write error", sap_cfg.dump_order);
}

/* The next line without its newline, or NULL at the end of the file. */
static char *next_line(char **buf, size_t *cap)
{
	ssize_t len = getline(buf, cap, runf);
	if (len < 0)
		return NULL;
	runline++;
	if (len > 0 && (*buf)[len - 1] == '\n')
		(*buf)[len - 1] = '\0';
	return *buf;
}

int64_t *sap_order_next(const sap_loop *L, int64_t lo, int64_t hi)
{
	const char *f = sap_cfg.run_order;
	if (!runf) {
		runf = fopen(f, "r");
		if (!runf)
			sap_fatal(&L->site, "--run-order=%s: %s", f, strerror(errno));
	}
	long long n = hi > lo ? hi - lo : 0;
	char *buf = NULL;
	size_t cap = 0;
	char *line = next_line(&buf, &cap);
	int id;
	unsigned inv;
	long long cnt;
	char extra;
	if (!line)
		sap_fatal(&L->site, "--run-order=%s: the file ends where invocation %u of "
		          "loop %d (%lld iterations) should start", f, L->invocations, L->id, n);
	if (sscanf(line, "loop %d invocation %u count %lld %c", &id, &inv, &cnt, &extra) != 3)
		sap_fatal(&L->site, "--run-order=%s:%lld: expected \"loop %d invocation %u count "
		          "%lld\", got \"%.60s\"", f, (long long)runline, L->id, L->invocations, n,
		          line);
	if (id != L->id || inv != L->invocations || cnt != n)
		sap_fatal(&L->site, "--run-order=%s:%lld: the program runs loop %d invocation %u "
		          "with %lld iterations here, but the file has loop %d invocation %u count "
		          "%lld: it was written by another program or other inputs", f,
		          (long long)runline, L->id, L->invocations, n, id, inv, cnt);
	int64_t *idx = sap_xmalloc((size_t)(n ? n : 1) * sizeof *idx);
	unsigned char *seen = sap_xcalloc((size_t)(n ? n : 1), 1);
	for (int64_t k = 0; k < n; k++) {
		line = next_line(&buf, &cap);
		if (!line)
			sap_fatal(&L->site, "--run-order=%s: the file ends after %lld of the %lld "
			          "iterations of loop %d invocation %u", f, (long long)k, n, L->id,
			          L->invocations);
		char *end;
		errno = 0;
		long long i = strtoll(line, &end, 10);
		if (end == line || *end || errno)
			sap_fatal(&L->site, "--run-order=%s:%lld: expected an iteration index, "
			          "got \"%.60s\"", f, (long long)runline, line);
		if (i < lo || i >= hi)
			sap_fatal(&L->site, "--run-order=%s:%lld: iteration %lld is out of the "
			          "loop's range [%lld, %lld)", f, (long long)runline, i,
			          (long long)lo, (long long)hi);
		if (seen[i - lo]++)
			sap_fatal(&L->site, "--run-order=%s:%lld: iteration %lld comes twice", f,
			          (long long)runline, i);
		idx[k] = i;
	}
	free(seen);
	free(buf);
	return idx;
}

void sap_order_end(void)
{
	if (dumpf && fclose(dumpf))
		sap_fatal(NULL, "--dump-order=%s: write error", sap_cfg.dump_order);
	if (runf)
		fclose(runf);
	dumpf = runf = NULL;
	runline = 0;
}
