/* loop.c: parallel loops, run by the one worker of the one rank.
 *
 * Both loops cut the iteration space into chunks and hand each chunk to
 * run_chunk; spreading chunks over threads and ranks later changes only
 * this file.
 */
#include "sap-int.h"

/* A body that draws random numbers points sap_rng_cur at its iteration's
 * generator; the driver's must be current again afterwards. */
static void run_chunk(void *env, sap_body_fn body, int64_t lo, int64_t hi, void *red)
{
	sap_rng *driver = sap_rng_cur;
	body(env, lo, hi, red);
	sap_rng_cur = driver;
}

void sap_async_for(sap_loop *L, const sap_async_spec *spec, int64_t lo, int64_t hi,
                   void *env, sap_body_fn body, const sap_reduce *r, void *red)
{
	(void)spec;
	L->invocations++;
	if (r)
		r->init(red);
	if (lo < hi)
		run_chunk(env, body, lo, hi, red);
}

void sap_sync_for(sap_loop *L, int64_t n, const sap_syncspec *spec, void *env,
                  sap_body_fn body, const sap_reduce *r, void *red)
{
	L->invocations++;
	if (spec->batch <= 0)
		sap_fatal(&L->site, "sync for: batch must be positive, got %lld",
		          (long long)spec->batch);
	if (r)
		r->init(red);
	for (int64_t b = 0; b < n; b += spec->batch) {
		int64_t e = n - b < spec->batch ? n : b + spec->batch;
		run_chunk(env, body, b, e, red);
	}
}

sap_rng sap_rng_iter(const sap_loop *L, int64_t i)
{
	return sap_rng_make((uint32_t)L->id, i, L->invocations - 1);
}

/* Placeholders until the engine records accesses. */
void sap_rec_begin(sap_rec *r, int64_t i) { (void)r; (void)i; }
void sap_rec_key(sap_rec *r, int dds, int64_t key, sap_mode mode) { (void)r; (void)dds; (void)key; (void)mode; }
int64_t sap_key_str(sap_str s) { return (int64_t)sap_fnv1a(sap_str_c(s)); }
