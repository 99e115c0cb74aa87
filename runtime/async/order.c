/* order.c: --dump-order and --run-order, the equivalent serial order of
 * every async loop invocation, written and replayed.
 *
 * The file is text: for each invocation a line "loop L invocation I
 * count N", then N lines of one iteration index each.  A run on many
 * workers and the replay of its dumped order on one must compute the same
 * DDSs bit for bit: that is what serializable means, checked.
 *
 * A relaxed loop is not serializable: what its iterations read depends on
 * the rounds and on which worker ran them.  Its invocations on several
 * workers are written as "loop L invocation I count N workers V rounds
 * R", then for each round and worker "round r worker w count c" and c
 * indices; the replay runs those rounds with V workers' views one after
 * another on one thread, and so computes what the run did, bit for bit.
 *
 * A sync for invocation has a line "sync L invocation I ranks P threads
 * T": its workers, which its result depends on.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sap-int.h"

static FILE *dumpf, *runf;
static int64_t runline;         /* lines of runf read so far */

/* The next line without its newline, or NULL at the end of the file. */
static char *next_line(char **buf, size_t *cap);
/* A line read past the file's first lines, for next_line to give again
 * (counted in runline already), or NULL. */
static char *pending;
/* The loop whose order next_line reads, for its errors. */
static const sap_site *run_site;

/* The file starts with what the run was of: the program (its hash, as a
 * checkpoint has it), the seed and every param.  A replay with others
 * runs a valid order of another computation, which it is told: a
 * replay of fewer passes, or of the program with a print added, may be
 * what the user wants. */
static bool dump_head(void)
{
	fprintf(dumpf, "program %016llx seed %lu\n", (unsigned long long)sap_program_hash(),
	        (unsigned long)sap_seed());
	for (int i = 0; i < sap_param_count(); i++) {
		char *v = sap_param_text(i), *e = sap_escape(v, strlen(v));
		fprintf(dumpf, "param %s %s\n", sap_param_name(i), e);
		free(e);
		free(v);
	}
	return fflush(dumpf) != EOF;
}

/* A param's value as the warning shows it: in quotes where blanks at its
 * ends, or inside, or nothing at all would not show. */
static char *shown(const char *v)
{
	return sap_strf(!*v || strchr(v, ' ') || strchr(v, '"') ? "\"%s\"" : "%s", v);
}

/* A file without the program line (written by hand, or by a build
 * before it had one) replays as it is. */
static void run_head(void)
{
	const char *f = sap_cfg.run_order;
	char *buf = NULL, *changed = NULL;
	size_t cap = 0;
	char *line = next_line(&buf, &cap);
	unsigned long long prog;
	unsigned long seed;
	int used = 0;
	if (!line || strncmp(line, "program ", 8)) {
		/* Read again by the first loop: on one rank it may be a pipe,
		 * which cannot seek back. */
		pending = line ? strdup(line) : NULL;
		free(buf);
		return;
	}
	if (sscanf(line, "program %llx seed %lu%n", &prog, &seed, &used) != 2 || line[used])
		sap_fatal(NULL, "--run-order=%s:1: expected \"program HASH seed S\", got \"%s\"", f,
		          sap_token(line, strlen(line)));
	/* A print added to find a bug keeps the order: said, not refused. */
	bool other = prog != sap_program_hash();
	if (seed != sap_seed())
		changed = sap_strf("--seed=%lu (now %lu)", seed, (unsigned long)sap_seed());
	for (;;) {
		if (!(line = next_line(&buf, &cap)) || strncmp(line, "param ", 6))
			break;
		char *name = line + 6, *val = strchr(name, ' ');
		if (!val)
			sap_fatal(NULL, "--run-order=%s:%lld: expected \"param NAME VALUE\", got \"%s\"", f,
			          (long long)runline, sap_token(line, strlen(line)));
		*val++ = '\0';
		for (int i = 0; i < sap_param_count(); i++) {
			if (strcmp(sap_param_name(i), name) || sap_param_out_only(i))
				continue;
			char *v = sap_param_text(i), *e = sap_escape(v, strlen(v));
			if (strcmp(e, val)) {
				char *was = shown(val), *now = shown(e);
				char *add = sap_strf("%s%s--%s=%s (now %s)", changed ? changed : "",
				                     changed ? ", " : "", name, was, now);
				free(was);
				free(now);
				free(changed);
				changed = add;
			}
			free(e);
			free(v);
		}
	}
	pending = line ? strdup(line) : NULL;
	free(buf);
	if ((changed || other) && sap_rank() == 0)
		sap_warn(NULL, "--run-order=%s: the run it records %s%s%s: this replay runs its order "
		         "on what this program, params and seed make, which can differ", f,
		         other ? "was of another source of the program (or another sapc)" : "",
		         other && changed ? ", and had " : changed ? "had " : "", changed ? changed : "");
	free(changed);
}

/* Both files are opened before the program starts its work, so that a
 * path that cannot be written or read fails at once, not after the
 * first loop.  Collective. */
void sap_order_start(void)
{
	int err = 0, P = sap_nranks();
	if (sap_cfg.dump_order && sap_rank() == 0 && !(dumpf = fopen(sap_cfg.dump_order, "w")))
		err = errno;
	bool wrote = true;
	if (dumpf && !dump_head()) {
		err = errno;
		wrote = false;
	}
	if (P > 1)
		sap_comm_bcast(&err, 1, sizeof err, 0);
	if (err)
		sap_option_fail(0, sap_strf("--dump-order=%s: %s%s", sap_cfg.dump_order,
		                            wrote ? "" : "cannot write: ", strerror(err)));
	/* Every rank replays the order it reads itself: from a pipe or a
	 * FIFO, the ranks would each get a different part, or nothing. */
	const char *f = sap_cfg.run_order;
	if (!f)
		return;
	struct stat st;
	/* fopen opens a directory for reading; its first read fails, which
	 * would look like an order file that ends too soon. */
	if (!(runf = fopen(f, "r")))
		/* A shell's <(...) is a pipe of the rank mpiexec started
		 * from it: the others have no /dev/fd/63. */
		err = P > 1 && errno == ENOENT && !strncmp(f, "/dev/fd/", 8) ? ESPIPE : errno;
	else if (fstat(fileno(runf), &st) < 0)
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR;
	else if (P > 1 && !S_ISREG(st.st_mode))
		err = ESPIPE;
	int first = err ? sap_rank() : P;
	if (P > 1)
		sap_comm_allreduce(&first, 1, SAP_COMM_INT, SAP_COMM_MIN);
	if (first == P) {
		run_head();
		return;
	}
	if (P > 1)
		sap_comm_bcast(&err, 1, sizeof err, first);
	if (err == ESPIPE)
		sap_option_fail(first, sap_strf("--run-order=%s: not a regular file; on several "
		                                "ranks every rank reads it, so it cannot be a pipe "
		                                "or a device", f));
	sap_option_fail(first, sap_strf("--run-order=%s: %s", f, strerror(err)));
}

static _Noreturn void dump_error(const sap_loop *L)
{
	sap_fatal(L ? &L->site : NULL, "--dump-order=%s: cannot write: %s", sap_cfg.dump_order,
	          strerror(errno));
}

/* After each loop run: a rank that stops with an error aborts the job,
 * which kills rank 0 before exit() would flush, and the failed run is
 * the one a user most wants to replay. */
static void dump_flush(const sap_loop *L)
{
	if (fflush(dumpf) == EOF)
		dump_error(L);
}

void sap_order_dump(const sap_loop *L, const int64_t *idx, int64_t lo, int64_t n)
{
	if (sap_rank() != 0)
		return;
	/* Code that never called sap_init (the unit tests) opens it here. */
	if (!dumpf && !(dumpf = fopen(sap_cfg.dump_order, "w")))
		sap_fatal(&L->site, "--dump-order=%s: %s", sap_cfg.dump_order, strerror(errno));
	if (fprintf(dumpf, "loop %d invocation %u count %lld\n", L->id, L->invocations,
	            (long long)n) < 0)
		dump_error(L);
	for (int64_t k = 0; k < n; k++)
		if (fprintf(dumpf, "%lld\n", (long long)(idx ? idx[k] : lo + k)) < 0)
			dump_error(L);
	dump_flush(L);
}

void sap_order_dump_rounds(const sap_loop *L, const int64_t *idx, const int64_t *cnt, int V,
                           int64_t R)
{
	if (sap_rank() != 0)
		return;
	if (!dumpf && !(dumpf = fopen(sap_cfg.dump_order, "w")))
		sap_fatal(&L->site, "--dump-order=%s: %s", sap_cfg.dump_order, strerror(errno));
	int64_t n = 0;
	for (int64_t k = 0; k < R * V; k++)
		n += cnt[k];
	if (fprintf(dumpf, "loop %d invocation %u count %lld workers %d rounds %lld\n", L->id,
	            L->invocations, (long long)n, V, (long long)R) < 0)
		dump_error(L);
	for (int64_t r = 0, at = 0; r < R; r++)
		for (int w = 0; w < V; w++) {
			int64_t c = cnt[r * V + w];
			if (fprintf(dumpf, "round %lld worker %d count %lld\n", (long long)r, w,
			            (long long)c) < 0)
				dump_error(L);
			for (int64_t k = 0; k < c; k++)
				if (fprintf(dumpf, "%lld\n", (long long)idx[at++]) < 0)
					dump_error(L);
		}
	dump_flush(L);
}


/* A sync for's result depends on its workers, not on an order: the dump
 * says how many there were, and a replay with others is told that its
 * result is not the recorded one's (that, and what follows from it). */
void sap_order_sync(const sap_loop *L, int P, int T, int timed, bool sparse)
{
	if (sap_cfg.dump_order && sap_rank() == 0) {
		if (!dumpf && !(dumpf = fopen(sap_cfg.dump_order, "w")))
			sap_fatal(&L->site, "--dump-order=%s: %s", sap_cfg.dump_order, strerror(errno));
		if (fprintf(dumpf, "sync %d invocation %u ranks %d threads %d\n", L->id, L->invocations,
		            P, T) < 0)
			dump_error(L);
		dump_flush(L);
	}
	const char *f = sap_cfg.run_order;
	if (!f)
		return;
	if (!runf && !(runf = fopen(f, "r")))
		sap_fatal(&L->site, "--run-order=%s: %s", f, strerror(errno));
	run_site = &L->site;
	char *buf = NULL;
	size_t cap = 0;
	char *line = next_line(&buf, &cap);
	int id, rp, rt, used = 0;
	unsigned inv;
	if (!line)
		sap_fatal(&L->site, "--run-order=%s: the file ends where invocation %u of sync loop "
		          "%d should be", f, L->invocations, L->id);
	if (sscanf(line, "sync %d invocation %u ranks %d threads %d%n", &id, &inv, &rp, &rt,
	           &used) != 4 || line[used])
		sap_fatal(&L->site, "--run-order=%s:%lld: expected \"sync %d invocation %u ranks R "
		          "threads T\", got \"%s\"", f, (long long)runline, L->id, L->invocations,
		          sap_token(line, strlen(line)));
	if (id != L->id || inv != L->invocations)
		sap_fatal(&L->site, "--run-order=%s:%lld: the program runs sync loop %d invocation "
		          "%u here, but the file has sync %d invocation %u: it was written by another "
		          "program or other inputs", f, (long long)runline, L->id, L->invocations, id,
		          inv);
	free(buf);
	static unsigned char warned[4096];
	bool once = L->id < 0 || L->id >= (int)sizeof warned || !warned[L->id]++;
	/* On the sparse path a rank sums its threads' changes before the
	 * rows' owners sum the ranks': 2 x 2 groups them otherwise than
	 * 1 x 4, but one rank of T threads as T ranks of one. */
	bool grouped = sparse && rp != P && !((rp == 1 || rt == 1) && (P == 1 || T == 1));
	/* ssp's ranks, and hybrid's threads, run as fast as they go: a
	 * result of the recorded run's timing, or of this run's. */
	bool was_timed = (timed == 1 && rp > 1) || (timed == 2 && rt > 1);
	bool is_timed = (timed == 1 && P > 1) || (timed == 2 && T > 1);
	if (!once)
		return;
	if (was_timed)
		sap_warn(&L->site, "--run-order: this sync for is not under bsp, and its result in "
		         "the recorded run (%d rank%s of %d thread%s) depended on the timing of its "
		         "workers: no replay computes it for sure, and what follows from it can differ",
		         rp, rp == 1 ? "" : "s", rt, rt == 1 ? "" : "s");
	else if (rp * rt != P * T || grouped || is_timed)
		sap_warn(&L->site, "--run-order: this sync for ran on %d worker%s (%d rank%s of %d "
		         "thread%s) in the recorded run and on %d (%d of %d) here%s: its result, and "
		         "what follows from it, can differ from the recorded run's; replay under "
		         "mpiexec -n %d with --threads=%d", rp * rt, rp * rt == 1 ? "" : "s", rp,
		         rp == 1 ? "" : "s", rt, rt == 1 ? "" : "s", P * T, P, T,
		         is_timed ? ", where it is not under bsp and depends on their timing" : "",
		         rp, rt);
}

static char *next_line(char **buf, size_t *cap)
{
	if (pending) {
		size_t n = strlen(pending) + 1;
		if (*cap < n) {
			*buf = sap_xrealloc(*buf, n);
			*cap = n;
		}
		memcpy(*buf, pending, n);
		free(pending);
		pending = NULL;
		return *buf;
	}
	ssize_t len = getline(buf, cap, runf);
	if (len < 0)
		return NULL;
	runline++;
	/* Every line written ends in one: a file cut short (a full disk, a
	 * copy killed) would otherwise show as a bad or repeated index. */
	if ((*buf)[len - 1] != '\n')
		sap_fatal(run_site, "--run-order=%s:%lld: the file ends inside this line (\"%s\"): "
		          "it was cut short", sap_cfg.run_order, (long long)runline,
		          sap_token(*buf, (size_t)len));
	(*buf)[len - 1] = '\0';
	return *buf;
}

int64_t *sap_order_next(const sap_loop *L, int64_t lo, int64_t hi, int *V, int64_t *R,
                        int64_t **cnt)
{
	const char *f = sap_cfg.run_order;
	if (!runf && !(runf = fopen(f, "r")))
		sap_fatal(&L->site, "--run-order=%s: %s", f, strerror(errno));
	long long n = hi > lo ? hi - lo : 0;
	run_site = &L->site;
	char *buf = NULL;
	size_t cap = 0;
	char *line = next_line(&buf, &cap);
	int id, nw = 1, used = 0;
	unsigned inv;
	long long count, nr = 1;
	if (!line)
		sap_fatal(&L->site, "--run-order=%s: the file ends where invocation %u of "
		          "loop %d (%lld iterations) should start", f, L->invocations, L->id, n);
	bool ok = sscanf(line, "loop %d invocation %u count %lld%n", &id, &inv, &count, &used) == 3;
	const char *rest = ok ? line + used : "";
	if (ok && *rest) {
		int u = 0;
		ok = sscanf(rest, " workers %d rounds %lld%n", &nw, &nr, &u) == 2 && !rest[u] &&
		     nw >= 1 && nw <= 65535 && nr >= 1 && nr <= count + 1 &&
		     (int64_t)nr * nw <= (int64_t)1 << 28;
	}
	/* The line escaped: a CR from a file with CRLF line ends would
	 * otherwise print as nothing, and show "got" as what was expected. */
	if (!ok)
		sap_fatal(&L->site, "--run-order=%s:%lld: expected \"loop %d invocation %u count "
		          "%lld\", got \"%s\"", f, (long long)runline, L->id, L->invocations, n,
		          sap_token(line, strlen(line)));
	if (id != L->id || inv != L->invocations || count != n)
		sap_fatal(&L->site, "--run-order=%s:%lld: the program runs loop %d invocation %u "
		          "with %lld iterations here, but the file has loop %d invocation %u count "
		          "%lld: it was written by another program or other inputs", f,
		          (long long)runline, L->id, L->invocations, n, id, inv, count);
	*V = nw;
	*R = nr;
	*cnt = NULL;
	int64_t *idx = sap_xmalloc((size_t)n * sizeof *idx);
	unsigned char *seen = sap_xcalloc((size_t)n, 1);
	int64_t *c = nw > 1 || nr > 1 ? sap_xcalloc((size_t)(nr * nw), sizeof *c) : NULL;
	int64_t cell = -1, left = 0;
	for (int64_t k = 0; k < n; k++) {
		/* Each round and worker's list opens with its line. */
		while (c && left == 0) {
			line = next_line(&buf, &cap);
			long long r, cc;
			int w, u = 0;
			if (!line || sscanf(line, "round %lld worker %d count %lld%n", &r, &w, &cc, &u) != 3 ||
			    line[u] || r * nw + w != cell + 1 || cc < 0 || cc > n - k)
				sap_fatal(&L->site, "--run-order=%s:%lld: expected \"round %lld worker %d "
				          "count C\" of loop %d invocation %u", f, (long long)runline,
				          (long long)((cell + 1) / nw), (int)((cell + 1) % nw), L->id,
				          L->invocations);
			cell++;
			c[cell] = left = cc;
		}
		left--;
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
			          "got \"%s\"", f, (long long)runline, sap_token(line, strlen(line)));
		if (i < lo || i >= hi)
			sap_fatal(&L->site, "--run-order=%s:%lld: iteration %lld is out of the "
			          "loop's range [%lld, %lld)", f, (long long)runline, i,
			          (long long)lo, (long long)hi);
		if (seen[i - lo]++)
			sap_fatal(&L->site, "--run-order=%s:%lld: iteration %lld comes twice", f,
			          (long long)runline, i);
		idx[k] = i;
	}
	/* Empty lists at the end have their lines too. */
	while (c && cell + 1 < nr * nw) {
		line = next_line(&buf, &cap);
		long long r, cc;
		int w, u = 0;
		if (!line || sscanf(line, "round %lld worker %d count %lld%n", &r, &w, &cc, &u) != 3 ||
		    line[u] || r * nw + w != cell + 1 || cc != 0)
			sap_fatal(&L->site, "--run-order=%s:%lld: expected \"round %lld worker %d count "
			          "0\" of loop %d invocation %u", f, (long long)runline,
			          (long long)((cell + 1) / nw), (int)((cell + 1) % nw), L->id,
			          L->invocations);
		cell++;
	}
	free(seen);
	free(buf);
	*cnt = c;
	return idx;
}

/* Collective, as the program ends: rank 0 alone writes the dump, and a
 * failed last write is its error; the other ranks wait for the abort in
 * a barrier rather than while MPI finalizes, where under load Open MPI was
 * once seen not to take them down (tests/run/bad-input.sh). */
void sap_order_end(void)
{
	int bad = 0, err = 0;
	if (dumpf) {
		bad = fflush(dumpf) != 0 || ferror(dumpf);
		err = errno;
		/* Pipes and terminals cannot sync (EINVAL): nothing to lose. */
		if (!bad && fsync(fileno(dumpf)) < 0 && errno != EINVAL && errno != EROFS)
			bad = 1, err = errno;
		if (fclose(dumpf) != 0 && !bad)
			bad = 1, err = errno;
		dumpf = NULL;
	}
	bool world = sap_comm_live() && sap_nranks() > 1;
	if (world && sap_cfg.dump_order)
		sap_comm_bcast(&bad, 1, sizeof bad, 0);
	if (bad) {
		if (sap_rank() == 0) {
			errno = err;
			dump_error(NULL);
		}
		sap_comm_barrier();
	}
	if (runf) {
		/* A file recorded by a run that went further (more passes, other
		 * parameters): the replay matched it only this far. */
		char *buf = NULL;
		size_t cap = 0;
		const char *l;
		while ((l = next_line(&buf, &cap)) && !*l)
			;
		if (l && sap_rank() == 0)
			sap_warn(NULL, "--run-order=%s: the program ended before the file did (line %lld: "
			         "\"%s\"): it was recorded by a run that went further, with other "
			         "parameters or input, and this run replayed it only up to there",
			         sap_cfg.run_order, (long long)runline, l);
		free(buf);
		fclose(runf);
	}
	dumpf = runf = NULL;
	runline = 0;
}
