/* pool.c: the persistent worker threads of a rank.
 *
 * Worker 0 is the main thread, so MPI (funneled) stays on it and a job
 * of one worker costs nothing; the other T - 1 threads start with the
 * first job and wait for the next one between jobs, because an async
 * loop runs a few jobs per invocation and thread creation would cost
 * more than a short loop.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "sap-int.h"

/* A thread that waits for the next job, for a barrier or for the end of
 * a job spins this long before it sleeps: a loop's rounds and its
 * invocations follow each other within microseconds, and waking a
 * sleeping thread costs tens of them.  Spinning yields the core when
 * another thread wants it (more ranks and threads than cores). */
#define SPIN_NS 50000

/* Every wait here is "until *word != old": spin, then sleep on the
 * pool's one condition variable; whoever changes a word another thread
 * may sleep on broadcasts if anyone sleeps.  sleepers and the words are
 * sequentially consistent, so a waiter that counts itself in before its
 * last look and a waker that changes the word before it looks at
 * sleepers cannot both miss each other. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic int sleepers;
	pthread_t *tid;
	int n;                  /* workers, the main thread included; 0: none */
	_Atomic uint64_t gen;   /* jobs started */
	uint64_t gen0;          /* jobs started before these threads */
	_Atomic int pending;    /* threads still in the current job */
	_Atomic uint64_t done;  /* jobs finished */
	_Atomic int arrived;    /* threads at the barrier */
	_Atomic uint64_t bgen;  /* barriers passed */
	_Atomic bool quit;
	sap_job_fn fn;
	void *arg;
} P = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
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

static inline void relax(void)
{
#if defined __x86_64__ || defined __i386__
	__builtin_ia32_pause();
#endif
}

static void wait_change(_Atomic uint64_t *word, uint64_t old)
{
	double end = 0;
	for (unsigned k = 0;; k++) {
		if (atomic_load(word) != old || atomic_load(&P.quit))
			return;
		relax();
		if (k % 64 == 63) {
			double now = sap_now();
			if (!end)
				end = now + SPIN_NS * 1e-9;
			else if (now > end)
				break;
			sched_yield();
		}
	}
	pthread_mutex_lock(&P.mu);
	atomic_fetch_add(&P.sleepers, 1);
	while (atomic_load(word) == old && !atomic_load(&P.quit))
		pthread_cond_wait(&P.cv, &P.mu);
	atomic_fetch_sub(&P.sleepers, 1);
	pthread_mutex_unlock(&P.mu);
}

static void bump(_Atomic uint64_t *word)
{
	atomic_fetch_add(word, 1);
	if (atomic_load(&P.sleepers)) {
		pthread_mutex_lock(&P.mu);
		pthread_cond_broadcast(&P.cv);
		pthread_mutex_unlock(&P.mu);
	}
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t seen = P.gen0;
	sap_stack_alt();
	for (;;) {
		wait_change(&P.gen, seen);
		if (atomic_load(&P.quit))
			break;
		seen = atomic_load(&P.gen);
		job_workers = P.n;
		P.fn(P.arg, w);
		if (atomic_fetch_sub(&P.pending, 1) == 1)
			bump(&P.done);
	}
	return NULL;
}

static void start(int n)
{
	P.n = n;
	atomic_store(&P.quit, false);
	P.gen0 = atomic_load(&P.gen);
	atomic_store(&P.arrived, 0);
	P.tid = sap_xcalloc((size_t)n, sizeof *P.tid);
	pthread_attr_t a;
	pthread_attr_init(&a);
	if (sap_stack_bytes)
		pthread_attr_setstacksize(&a, sap_stack_bytes);
	for (int w = 1; w < n; w++)
		if (pthread_create(&P.tid[w], &a, worker, (void *)(intptr_t)w))
			sap_fatal(NULL, "cannot start worker thread %d of %d%s", w, n,
			          sap_stack_bytes ? " with the stack its arrays need" : "");
	pthread_attr_destroy(&a);
}

void sap_pool_end(void)
{
	if (!P.n)
		return;
	atomic_store(&P.quit, true);
	pthread_mutex_lock(&P.mu);
	pthread_cond_broadcast(&P.cv);
	pthread_mutex_unlock(&P.mu);
	for (int w = 1; w < P.n; w++)
		pthread_join(P.tid[w], NULL);
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
	P.fn = fn;
	P.arg = arg;
	atomic_store(&P.pending, nworkers - 1);
	uint64_t done = atomic_load(&P.done);
	bump(&P.gen);

	job_workers = nworkers;
	fn(arg, 0);
	job_workers = 1;

	wait_change(&P.done, done);
}

bool sap_pool_free(void)
{
	return job_workers <= 1;
}

void sap_pool_barrier(void)
{
	if (job_workers <= 1)
		return;
	uint64_t g = atomic_load(&P.bgen);
	if (atomic_fetch_add(&P.arrived, 1) == job_workers - 1) {
		atomic_store(&P.arrived, 0);
		bump(&P.bgen);
	} else {
		wait_change(&P.bgen, g);
	}
}
