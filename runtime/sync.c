/* sync.c: sync for loops, run in mini-batches by the one worker of the
 * one rank; and the per-iteration random numbers of every loop. */
#include "sap-int.h"

void sap_sync_for(sap_loop *L, int64_t n, const sap_syncspec *spec, void *env,
                  sap_body_fn body, const sap_reduce *r, void *red)
{
	L->invocations++;
	if (spec->batch <= 0)
		sap_fatal(&L->site, "sync for: batch must be positive, got %lld",
		          (long long)spec->batch);
	/* Every rank runs all of it. */
	sap_whole_all();
	if (r)
		r->init(red);
	sap_run x = { L, env, body, r, NULL, 1 };
	for (int64_t b = 0; b < n; b += spec->batch) {
		int64_t e = n - b < spec->batch ? n : b + spec->batch;
		sap_exec_range(&x, b, e, red);
	}
}

sap_rng sap_rng_iter(const sap_loop *L, int64_t i)
{
	return sap_rng_make((uint32_t)L->id, i, L->invocations - 1);
}

int64_t sap_key_str(sap_str s) { return (int64_t)sap_fnv1a(sap_str_c(s)); }
