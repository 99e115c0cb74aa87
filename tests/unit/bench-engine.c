/* bench-engine: the cost of reconnaissance and planning against one
 * epoch of SGDMF, on synthetic ratings (not a test: it prints numbers).
 *
 *   tests/unit/bench-engine [RATINGS [USERS ITEMS [THREADS [REPEATS]]]]
 *
 * Defaults: 5M ratings of 480189 users and 17770 items (Netflix's shape),
 * the CPUs of the machine, 7 repeats.  Shared machines are noisy, so each
 * number is the minimum and the median of the repeats. */
#include <stdio.h>
#include <stdlib.h>
#include "synth.h"

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static void report(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	printf("  %-28s min %.4f s, median %.4f s\n", what, v[0], v[n / 2]);
}

int main(int argc, char **argv)
{
	int64_t nr = argc > 1 ? atoll(argv[1]) : 5000000;
	int64_t nu = argc > 3 ? atoll(argv[2]) : 480189;
	int64_t nv = argc > 3 ? atoll(argv[3]) : 17770;
	sap_cfg.threads = argc > 4 ? atoi(argv[4]) : 0;
	int reps = argc > 5 ? atoi(argv[5]) : 7;
	int T = sap_threads();
	sgd m;
	sgd_make(&m, nr, nu, nv, 1);
	printf("%lld ratings, %lld users, %lld items, K = %d, %d workers, %d repeats\n",
	       (long long)nr, (long long)nu, (long long)nv, SYNTH_K, T, reps);

	sap_loop L = { .id = 1, .kind = SAP_ASYNC, .site = { "bench", 1, 1 } };
	double *recon = calloc((size_t)reps, sizeof(double));
	double *plan = calloc((size_t)reps, sizeof(double));
	double *both = calloc((size_t)reps, sizeof(double));
	double *epoch = calloc((size_t)reps, sizeof(double));
	double *serial = calloc((size_t)reps, sizeof(double));
	for (int k = 0; k < reps; k++) {
		/* A new version of A: the slice reads it, so the next
		 * invocation plans again. */
		m.A.version = sap_new_version();
		struct sap_loop_state *st = L.state;
		double r0 = st ? st->recon_s : 0, p0 = st ? st->plan_s : 0;
		double c0 = st ? st->compute_s : 0;
		sap_async_for(&L, &m.spec, 0, m.A.n, &m, sgd_body, NULL, NULL);
		st = L.state;
		recon[k] = st->recon_s - r0;
		plan[k] = st->plan_s - p0;
		both[k] = recon[k] + plan[k];
		c0 = st->compute_s;
		sap_async_for(&L, &m.spec, 0, m.A.n, &m, sgd_body, NULL, NULL);
		epoch[k] = st->compute_s - c0;
		if (k == 0)
			printf("plan: %lld groups, %lld rounds, balance %.3f; first recon %.4f s, "
			       "plan %.4f s\n", (long long)st->groups, (long long)st->rounds,
			       st->balance, recon[0], plan[0]);
	}
	sap_cfg.threads = 1;
	sap_loop L1 = { .id = 2, .kind = SAP_ASYNC, .site = { "bench", 2, 1 } };
	for (int k = 0; k < reps; k++) {
		double c0 = L1.state ? L1.state->compute_s : 0;
		sap_async_for(&L1, &m.spec, 0, m.A.n, &m, sgd_body, NULL, NULL);
		serial[k] = L1.state->compute_s - c0;
	}
	report("recon", recon, reps);
	report("plan", plan, reps);
	report("recon + plan", both, reps);
	report("planned epoch", epoch, reps);
	report("index-order epoch, 1 worker", serial, reps);
	printf("recon + plan / planned epoch: %.1f%% (medians), %.1f%% (minimums)\n",
	       100 * both[reps / 2] / epoch[reps / 2], 100 * both[0] / epoch[0]);
	sgd_free(&m);
	return 0;
}
