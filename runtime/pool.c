/* pool.c: the persistent worker threads of a rank.
 *
 * Worker 0 is the main thread, so MPI (funneled) stays on it and a job
 * of one worker costs nothing; the other T - 1 threads start with the
 * first job and wait for the next one between jobs, because an async
 * loop runs a few jobs per invocation and thread creation would cost
 * more than a short loop.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "sap-int.h"

static struct {
	pthread_mutex_t mu;
	pthread_cond_t start, done;
	pthread_barrier_t bar;
	pthread_t *tid;
	int n;                  /* workers, the main thread included; 0: none */
	uint64_t gen;           /* jobs started */
	uint64_t gen0;          /* jobs started before these threads */
	int pending;            /* threads still in the current job */
	bool quit;
	sap_job_fn fn;
	void *arg;
} P = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.start = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/* The workers of the job this thread is running: a job of one worker runs
 * without the pool, so its barriers wait for nobody. */
static _Thread_local int job_workers = 1;

double sap_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	pthread_mutex_lock(&P.mu);
	uint64_t seen = P.gen0;
	for (;;) {
		while (P.gen == seen && !P.quit)
			pthread_cond_wait(&P.start, &P.mu);
		if (P.quit)
			break;
		seen = P.gen;
		sap_job_fn fn = P.fn;
		void *a = P.arg;
		job_workers = P.n;
		pthread_mutex_unlock(&P.mu);
		fn(a, w);
		pthread_mutex_lock(&P.mu);
		if (--P.pending == 0)
			pthread_cond_signal(&P.done);
	}
	pthread_mutex_unlock(&P.mu);
	return NULL;
}

static void start(int n)
{
	P.n = n;
	P.quit = false;
	P.gen0 = P.gen;
	P.tid = sap_xcalloc((size_t)n, sizeof *P.tid);
	pthread_barrier_init(&P.bar, NULL, (unsigned)n);
	for (int w = 1; w < n; w++)
		if (pthread_create(&P.tid[w], NULL, worker, (void *)(intptr_t)w))
			sap_fatal(NULL, "cannot start worker thread %d of %d", w, n);
}

void sap_pool_end(void)
{
	if (!P.n)
		return;
	pthread_mutex_lock(&P.mu);
	P.quit = true;
	pthread_cond_broadcast(&P.start);
	pthread_mutex_unlock(&P.mu);
	for (int w = 1; w < P.n; w++)
		pthread_join(P.tid[w], NULL);
	pthread_barrier_destroy(&P.bar);
	free(P.tid);
	P.tid = NULL;
	P.n = 0;
}

void sap_pool_run(int nworkers, sap_job_fn fn, void *arg)
{
	/* A rank starts no more threads than --threads says: more workers
	 * than that take turns on them (sap_run.V); P x T threads on each
	 * rank would oversubscribe the cores P times. */
	if (nworkers > sap_threads())
		sap_fatal(NULL, "internal error: a job of %d threads, more than the %d of --threads",
		          nworkers, sap_threads());
	if (nworkers <= 1) {
		fn(arg, 0);
		return;
	}
	if (P.n != nworkers) {
		sap_pool_end();
		start(nworkers);
	}
	pthread_mutex_lock(&P.mu);
	P.fn = fn;
	P.arg = arg;
	P.pending = nworkers - 1;
	P.gen++;
	pthread_cond_broadcast(&P.start);
	pthread_mutex_unlock(&P.mu);

	job_workers = nworkers;
	fn(arg, 0);
	job_workers = 1;

	pthread_mutex_lock(&P.mu);
	while (P.pending)
		pthread_cond_wait(&P.done, &P.mu);
	pthread_mutex_unlock(&P.mu);
}

void sap_pool_barrier(void)
{
	if (job_workers > 1)
		pthread_barrier_wait(&P.bar);
}
