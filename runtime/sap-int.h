/* sap-int.h: what the components of libsap share and generated code
 * never sees, in sections by component (one folder of runtime/ each,
 * README.md "Layout of the tree") and file.  The communication layer has
 * a header of its own, comm/comm.h; sap.h is the interface to generated
 * code.  GLOSSARY.md defines the words these comments use. */
#ifndef SAP_INT_H
#define SAP_INT_H

#include <stdarg.h>
#include <stdatomic.h>
#include "comm/comm.h"
#include "sap.h"

/* Defined with their components below, used by earlier ones. */
typedef struct sap_plan sap_plan;
typedef struct sap_dist_stats sap_dist_stats;

/* ======== core/: start-up, options, errors, threads, numbers, strings ==== */

/* core/error.c */
_Noreturn void sap_vfatal(const sap_site *s, const char *fmt, va_list ap);
/* A warning on stderr, from rank 0 only (every rank calls it). */
void sap_warn(const sap_site *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Let out the lines print() held: collective, where every rank is at the
 * same point of the driver code (loops, loads, saves, the end). */
void sap_print_settle(void);
/* How stdout is buffered, once the rank is known. */
void sap_print_start(void);
/* The lines print() holds, out before a stack overflow ends the process. */
void sap_print_crash(void);
/* printf into a fresh string of the length it takes (sap_xmalloc). */
char *sap_vstrf(const char *fmt, va_list ap);
char *sap_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* p[0 .. n) for a message: control bytes (NUL, tab, ESC ...) as \xHH, so
 * that bytes from a data file or a command line cannot garble or cut it. */
char *sap_escape(const char *p, size_t n);
/* The same for a token (a field, a value): past SAP_TOKEN_SHOW bytes cut
 * short with "...", so that a 200 kB number does not make a 200 kB
 * message. */
enum { SAP_TOKEN_SHOW = 60 };
char *sap_token(const char *p, size_t n);
/* Whether a data file is a .csv (by its name, in any case): load and
 * save separate its fields by commas. */
bool sap_is_csv(const char *path);
/* Whether the line [p, eol) of the file path is the header load takes
 * it for: of a .csv or .tsv, the names fields ("a,b") in order. */
bool sap_header_names(const char *path, const char *p, const char *eol, const char *fields);
/* Allocation that cannot fail: running out of memory is a fatal error, so
 * callers need no NULL checks.  Its message says what the thread was
 * doing, if sap_oom_doing says so. */
extern _Thread_local const char *sap_oom_doing;
void *sap_xmalloc(size_t n);
void *sap_xrealloc(void *p, size_t n);
/* n * size with the product checked, like calloc. */
void *sap_xcalloc(size_t n, size_t size);
/* Storage for a DDS's elements or lists, aligned to a cache line, on
 * huge pages if large (error.c); freed with free.  NULL if none. */
void *sap_alloc_dds(size_t n);
/* A large array fresh from calloc or malloc (a map's index; sap_xmalloc
 * of 2 MiB or more) faulted in a 4 KiB page at a time, at about 10 us
 * each on a VM: ask for huge pages, for every page of the block, where
 * the kernel gives them on request.  p from malloc, calloc or realloc. */
void sap_advise_huge(void *p, size_t n);

/* core/sort.c: ascending radix sorts, the keys compared as unsigned
 * 64-bit numbers.  Keys v[0 .. n), each in [0, 2^bits) (bits < 0: found
 * from the keys); records of size bytes that start with a uint64_t key
 * (any: a string's first 8 bytes too), stably (equal keys keep their
 * order). */
void sap_sort_keys(int64_t *v, int64_t n, int bits);
void sap_sort_recs(void *base, int64_t n, size_t size);

/* core/ptrs.c: a set of pointers, in no order. */
typedef struct sap_ptrs {
	void **v;
	int n, cap;
} sap_ptrs;
void sap_ptrs_add(sap_ptrs *s, void *p);        /* once */
void sap_ptrs_del(sap_ptrs *s, void *p);

/* core/number.c: the whole of t[0 .. n) as a decimal integer in [lo, hi], or
 * as a float (rounded to float when is_float) in any form strtod reads.
 * nan and inf are SAP_NUM_NOTFINITE: no sensible value for training data,
 * and most often a failed run's output read back by mistake.  On anything
 * but SAP_NUM_OK *out is left alone. */
enum { SAP_NUM_OK, SAP_NUM_BAD, SAP_NUM_RANGE, SAP_NUM_NOTFINITE, SAP_NUM_TINY };
int sap_parse_integer(const char *t, size_t n, int64_t lo, int64_t hi, int64_t *out);
int sap_parse_real(const char *t, size_t n, bool is_float, double *out);
/* The number at the start of [p, end) by the fast path: where it ends, or
 * NULL when it needs sap_parse_real (or is none). */
const char *sap_quick_real(const char *p, const char *end, bool is_float, double *out);

/* core/str.c: n bytes from the string arena; they are never freed. */
char *sap_arena_alloc(size_t n);
/* s for a message, in buf: at most 40 bytes of it, quotes, backslashes and
 * control bytes escaped, "..." if cut. */
const char *sap_shown(const char *s, char *buf, size_t size);
/* The sigmoid table; BLAS on one thread. */
void sap_vmath_init(void);

/* Blanks separate fields of a data file; a newline ends the line. */
static inline bool sap_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* ==== core/init.c: runtime options ======================================= */

/* Set from the command line and the environment by sap_init; the unit
 * tests, which never call it, set the fields directly. */
typedef struct sap_config {
	int threads;            /* workers per rank; 0: not decided yet */
	int blocks;             /* blocks per written DDS; 0: one per worker */
	/* Run each group in index order, not by small block (SAP_FINE_ORDER=0,
	 * to compare). */
	bool groups_in_index_order;
	/* Split an oversized group over every worker under locks, which
	 * makes the order depend on timing: only when the user asks. */
	bool locks;
	bool quiet_plans;       /* no warning of serial or locked plans */
	bool check_plan;        /* verify every plan against the keys */
	bool plan_small;        /* plan loops too small to pay for it */
	int short_loops;        /* short chunks loops over ranks: 1 whole on
	                           every rank, -1 spread, 0 timed (async.c) */
	bool stats;             /* print the per-loop table at the end */
	const char *dump_order; /* write each async invocation's order here */
	const char *run_order;  /* replay the orders of this file */
	const char *ckpt_dir;   /* checkpoints go here, or NULL for none */
	int64_t ckpt_every;     /* after every N-th parallel operator, or 0 */
	double ckpt_seconds;    /* after the first one S seconds on, or 0 */
	bool resume;            /* start from the newest complete checkpoint */
} sap_config;
extern sap_config sap_cfg;
/* The generator of driver code (rand() outside loop bodies). */
sap_rng *sap_driver_rng(void);
/* The hash of the program (sap_program.hash), which a checkpoint carries. */
uint64_t sap_program_hash(void);
/* The program's params: how many, the i-th's name, and its value as
 * text (malloc'd), for a checkpoint to compare a resumed run's with. */
int sap_param_count(void);
const char *sap_param_name(int i);
char *sap_param_text(int i);
/* Is param i only ever the file name of a save()?  Then a replay or a
 * resume with another value computes the same: not said to differ. */
bool sap_param_out_only(int i);
/* An option that cannot be used, found at start-up by rank `first`, the
 * same on every rank: msg from that rank (naming it on several ranks),
 * then exit status 2 everywhere.  Collective. */
_Noreturn void sap_option_fail(int first, const char *msg);
/* sap_wtime() reads `then` now, and goes on from there. */
void sap_wtime_continue(double then);
/* Parallel loops running: sap_async_for and sap_sync_for count
 * themselves in on the driver, so that wtime() tells driver code from a
 * body (sap_wtime_prog). */
extern _Atomic int sap_loops_running;
static inline bool sap_in_loop(void)
{
	return atomic_load_explicit(&sap_loops_running, memory_order_relaxed) != 0;
}
/* The stack sap_main gave the program's thread, which the workers get
 * too; 0: the default (stack.c). */
extern size_t sap_stack_bytes;
/* An alternate signal stack for the calling thread, on which a stack
 * overflow can still be reported. */
void sap_stack_alt(void);
/* Once MPI has its handlers: a SIGSEGV at the end of a thread's stack is
 * reported as a stack overflow, exit status 1; any other goes on to the
 * handler there was. */
void sap_stack_handler(void);
/* The program's name, for messages. */
const char *sap_progname(void);

/* The number of workers: sap_cfg.threads once decided, otherwise the
 * online CPUs (code that never called sap_init). */

/* ==== core/pool.c: the thread pool ======================================= */

/* fn(arg, w) runs on workers w = 0 .. nworkers - 1, worker 0 being the
 * calling thread; returns when all are done.  Only the main thread calls
 * it, and a job never starts another. */
typedef void (*sap_job_fn)(void *arg, int w);
void sap_pool_run(int nworkers, sap_job_fn fn, void *arg);
/* Inside a job: wait until every worker of the job got here. */
void sap_pool_barrier(void);
/* Is this thread in no job of several workers, so that it may start one
 * (a large elementwise operation split over the threads)? */
bool sap_pool_free(void);
/* Elementwise operations on at least this many bytes go to the pool. */
#define SAP_PAR_BYTES ((size_t)1 << 20)
/* Join the threads (sap_finalize); the next job starts them again. */
void sap_pool_end(void);
/* [lo, hi) cut into n near-equal contiguous chunks: chunk w's start. */
static inline int64_t sap_chunk(int64_t lo, int64_t hi, int n, int w)
{
	return lo + (int64_t)((__int128)(hi - lo) * w / n);
}

/* core/stats.c: bytes the DDSs of this rank hold, changed by delta (any
 * thread), and what they hold now. */
void sap_mem_dds(int64_t delta);
int64_t sap_mem_dds_held(void);
/* Bytes of plan-order copies (stage.c), changed by delta. */
void sap_mem_copies(int64_t delta);

/* core/pool.c: seconds on the monotonic clock. */
double sap_now(void);

/* ======== dds/: dvectors, lists, maps, holders, parts ==================== */

/* ==== dds/dvec.c: dvectors =============================================== */

/* v now holds `held` bytes, counted in the DDS memory of --stats. */
void sap_dv_account(sap_dvec *v, size_t held);
/* sap_dv_create for a vector every rank holds whole (a map's keys,
 * pooled from all ranks): its pages are never given back, so they come
 * from the heap, reused from call to call, not from a fresh mapping
 * whose every page faults (a loop over a map's keys on 2 ranks spent
 * 1.4 of its 1.6 ms a call there). */
void sap_dv_create_whole(sap_dvec *v, const char *name, int64_t n, size_t elsize,
                         const sap_site *s);
/* A sparse vector's pages that this rank has touched counted as what it
 * holds; sap_dv_trim first gives back those of elements that only other
 * ranks hold.  Neither does anything to other vectors. */
void sap_dv_recount(sap_dvec *v);
void sap_dv_trim(sap_dvec *v);
/* Move the lists of elements [lo, hi) into one new arena, in element
 * order, freeing the old one: every element whose lists the old arena
 * held must be in [lo, hi). */
void sap_dv_pack_lists(sap_dvec *v, int64_t lo, int64_t hi);
/* An arena is a chain of blocks from sap_alloc_dds: each starts with the
 * next one's address, then the bytes of lists it holds; the lists start
 * SAP_ARENA_HEAD bytes in. */
enum { SAP_ARENA_HEAD = 64 };
/* The same when the lists of the elements load parsed lie already in
 * element order in the blocks from arena on, bytes of them (load.c):
 * they become v's arena. */
void sap_dv_adopt_lists(sap_dvec *v, char *arena, size_t bytes);
/* Of a sparse vector, give back the pages on which lies no key that
 * keep keeps: keep(v, k0, k1, arg) says whether it keeps any of keys
 * [k0, k1).  Their contents read as zero afterwards. */
typedef bool (*sap_keep_fn)(const sap_dvec *v, int64_t k0, int64_t k1, void *arg);
void sap_dv_release(sap_dvec *v, sap_keep_fn keep, void *arg);
/* Element key of v as bytes that mean the same on every rank, at out
 * when not NULL (its storage, or what its codec packs); their number.
 * sap_dv_take stores such bytes as element key (freeing what the old
 * value owned) and returns what follows them. */
size_t sap_dv_put(const sap_dvec *v, int64_t key, char *out);
const char *sap_dv_take(sap_dvec *v, int64_t key, const char *in);

/* The live dvectors and maps. */
extern sap_ptrs sap_live_dvecs, sap_live_maps;
/* Before filling v from an initializer: [*lo, *hi), the elements this
 * rank fills.  On a sparse vector, its index part, the rest being held
 * by the other ranks' parts; otherwise all of them. */
void sap_dv_fill_range(sap_dvec *v, int64_t *lo, int64_t *hi);

/* The partition a load found (P + 1 offsets, taken over). */
void sap_dv_set_cuts(sap_dvec *v, int64_t *cuts);
/* A dvector of n elements of which this rank holds [lo, hi) (zero);
 * the rest is never to be touched. */
void sap_dv_create_part(sap_dvec *v, const char *name, int64_t n, size_t elsize, int64_t lo,
                        int64_t hi, const sap_site *s);

/* dds/part.c, collective.  A vector held in parts: move elements so that
 * rank r holds the even share sap_chunk(0, n, P, r); or give every rank
 * the whole vector (nothing when it has it). */
void sap_dv_even_parts(sap_dvec *v);
void sap_dv_unpart(sap_dvec *v);
/* dds/hold.c, collective: every element current on every rank, whether v
 * is held in parts (which keeps no holder map, all sap_dv_whole goes by)
 * or where its elements were written. */
void sap_dv_every(sap_dvec *v, struct sap_dist_stats *stats);
/* Collective, for v held in parts (part_only): each rank's copies of the
 * elements [a, b) it names (its own a and b), from the ranks whose parts
 * hold them; the parts stay as they are. */
void sap_dv_part_span(sap_dvec *v, int64_t a, int64_t b);

/* ==== dds/hold.c: holders of elements ==================================== */

/* v's holder map, made (every element held by all) if it has none. */
sap_holders *sap_hold_map(sap_dvec *v);
/* Key k of v (which has a map) held by r; keys [a, b) held by r.  After
 * many, sap_hold_tidy gives back the arrays of blocks held by one rank. */
void sap_hold_set(sap_dvec *v, int64_t k, uint16_t r);
void sap_hold_range(sap_dvec *v, int64_t a, int64_t b, uint16_t r);
/* The n keys k, k + s, k + 2 s ... (s >= 1, all in v) held by r: a block
 * at a time, where a key at a time cost a strided loop's body time again. */
void sap_hold_stride(sap_dvec *v, int64_t k, int64_t s, int64_t n, uint16_t r);
/* Key k's holder lw[k] for each k of v where that is not SAP_HOLD_ALL. */
void sap_hold_from(sap_dvec *v, const uint16_t *lw);
/* The end of the run of keys from k (< end) held as k is, at most end;
 * *who gets their holder.  A block with one holder is one step. */
int64_t sap_hold_run(const sap_dvec *v, int64_t k, int64_t end, uint16_t *who);
void sap_hold_tidy(sap_dvec *v);
/* The bytes v's holder map takes. */
size_t sap_hold_bytes(const sap_dvec *v);
/* Forget v's holder map without moving anything (v is being freed or
 * overwritten everywhere). */
void sap_hold_drop(sap_dvec *v);
/* Collective: the vectors v whole, except those in keep; every map. */
void sap_whole_these(sap_dvec *const *v, int n, const sap_dvec *const *keep, int nkeep);
/* Collective: every scattered vector of spec whole, except where skip[k]. */
void sap_whole_spec(const sap_async_spec *spec, const bool *skip, sap_dist_stats *stats);
/* Collective, before this rank runs its iterations of a loop that
 * writes nothing: the vectors whose reads spec->reads records fetched
 * from their holders where this rank reads them, every other one whole.
 * The iterations are the groups of workers w0 .. w0 + threads - 1 in p
 * (whose copies the loop's stage shows), or [a, b) when p is NULL;
 * key1 and key2 name them for the cache.  spans: the loop's spans keep
 * its iterations apart (async.c): the vectors it writes are fetched at
 * the keys of [a, b), which the loop then leaves where they ran. */
void sap_reads_fetch(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                     const sap_plan *p, int w0, int threads, const void *key1, int64_t key2,
                     int64_t a, int64_t b, bool spans);
/* Collective, before this rank runs the runs [ab[2r], ab[2r + 1]) of
 * iterations of an owner-computes loop: the elements of the vectors
 * `which` says (spec->reads records every read of them) that those
 * iterations read, from their holders.  Cached as sap_reads_fetch's. */
void sap_reads_fetch_runs(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                          const bool *which, const int64_t *ab, int64_t nruns);
/* Collective: of the vectors span says, the elements the iterations of
 * the nruns runs [ab[2r], ab[2r + 1]) read (sap_dds.near: neighbours
 * too) from their holders. */
void sap_span_fetch(struct sap_loop_state *st, const sap_async_spec *spec, const bool *span,
                    const int64_t *ab, int64_t nruns);
/* Collective: is the ranged vector spec->dds[k] (sap_dds.ranged) to be
 * fetched at the keys of this rank's runs [ab[2r], ab[2r + 1]), rather
 * than made whole?  Not when some rank's runs reach a sixteenth of it or
 * more held elsewhere: a kNN's queries each read every training point,
 * and fetched key by key that moved twice the bytes of the whole vector
 * in 140 times the time. */
bool sap_ranged_fetch(const sap_async_spec *spec, int k, const int64_t *ab, int64_t nruns);
/* Collective, for a planned loop over ranks: of the vectors the loop
 * only reads, and only at the loop variable (sap_index_inputs), the
 * elements at [a, b) (the iterations this rank slices) when p is NULL,
 * else at the iterations of this rank's groups in p (st's plan), from
 * their holders. */
bool sap_index_inputs(const sap_async_spec *spec, int64_t lo, int64_t hi, bool *which);
void sap_index_fetch(struct sap_loop_state *st, const sap_async_spec *spec, const bool *which,
                     const sap_plan *p, int64_t a, int64_t b);
/* Collective: each rank's part of v (sap_dv_part) current there, as
 * save writes it. */
void sap_dv_own_parts(sap_dvec *v);
/* Bytes that making vectors whole moved outside of loops. */
void sap_hold_moved(int64_t *sent, int64_t *received);

/* Bytes moved outside of loops, counted in "Moved for driver code". */
void sap_moved_add(int64_t sent, int64_t received);

/* ==== dds/dmap.c, mapparts.c: maps ======================================= */

/* No entries, no memory: the values are not dropped. */
void sap_dm_clear(sap_dmap *m);
uint64_t sap_dm_hash(const sap_dmap *m, const void *key);
/* The same for two maps of the same keys, whatever their order. */
uint64_t sap_dm_keyset(const sap_dmap *m);
/* A new zeroed entry for key, numbered seq (which orders iteration),
 * after every existing one; its value slot. */
void *sap_dm_put(sap_dmap *m, const void *key, int64_t seq);
/* The next live entry from *pos (start at 0), in order, with its number;
 * false at the end. */
bool sap_dm_entry(const sap_dmap *m, int64_t *pos, const void **key, void **val, int64_t *seq);
/* Drop every entry whose key keep() refuses, and the room it took. */
void sap_dm_keep(sap_dmap *m, bool (*keep)(const sap_dmap *m, const void *key, void *arg),
                 void *arg);
/* On this rank: how many values key has, *val the first (or NULL). */
int64_t sap_dm_here(sap_dmap *m, const void *key, void **val);

/* The rank that holds key when m is parted; the one of W workers whose
 * keys key is among (rank r's keys: those of workers r * T .. r * T + T
 * - 1, for W = P x T). */
int sap_dm_owner(const sap_dmap *m, const void *key);
int sap_dm_key_worker(const sap_dmap *m, const void *key, int W);
/* m parted over the ranks, each keeping the keys it owns (nothing
 * moves); false, and m untouched, on one rank or when its values hold
 * strings or lists. */
bool sap_dm_part(sap_dmap *m);
/* m, put back by --resume, is parted, with total entries on all ranks. */
void sap_dm_set_parted(sap_dmap *m, int64_t total);
/* Forget that m is parted (it is being freed, or is whole). */
void sap_dm_unpart(sap_dmap *m);
/* Collective: a parted m whole on every rank, in insertion order. */
void sap_dm_whole(sap_dmap *m);
/* A multimap's values listed key by key, for a loop that reads it and
 * does not change its keys: if it has many values a key (dmap.c). */
void sap_dm_group(sap_dmap *m);
void sap_dm_whole_all(void);
/* Collective, for driver code on a parted m: sap_dm_here asked of
 * key's owner.  *val is a copy of the value, every rank's own, which
 * stays until m is parted again or freed. */
int64_t sap_dm_ask(sap_dmap *m, const void *key, void **val);
/* Frees the values sap_dm_ask gave out, and starts counting asks anew. */
void sap_dm_forget_asked(sap_dmap *m);
/* Collective, before listing the keys of m (and b): whether the maps
 * are parted (both made so if either was), so that each rank lists its
 * own and sap_dm_pool_keys pools them. */
bool sap_dm_spread(sap_dmap *m, sap_dmap *b);
/* Collective: every rank's n keys of kind kk (from malloc, taken over)
 * pooled into a new buffer; *n gets their number. */
char *sap_dm_pool_keys(sap_keykind kk, char *keys, int64_t *n);
/* m's live entries as bytes that mean the same on every rank, at out if
 * not NULL; their size (a multiple of 8).  sap_dm_unpack adds them to a
 * map of the same kinds (values holding no strings or lists), returning
 * what follows. */
size_t sap_dm_pack(const sap_dmap *m, char *out);
const char *sap_dm_unpack(sap_dmap *m, const char *in);
/* Collective: the T accumulate buffers of this rank's workers (in
 * order) into total, a new buffer holding the sums of the keys this rank
 * owns, each added up worker by worker over every rank's workers in
 * order, as a chain through them all would (total->owned, ->span); the
 * workers' buffers are left empty.  False, and nothing changed, when the
 * buffers hold fewer than min entries over all ranks, or some rank
 * cannot (can false, or a buffer shadows its target). */
bool sap_dm_owner_sums(sap_dmap *const *bufs, int T, bool can, sap_dmap *total, int64_t min,
                       int64_t *sent, int64_t *received);
/* A parted m's entries on all ranks, once keys were added on some. */
void sap_dm_recount(sap_dmap *m);

/* dds/merge.c: n elements of type t, scalar by scalar: v += a; v -= a;
 * v += a - old; v /= A. */
size_t sap_scalar_size(sap_scalar s);
/* One kind of scalar and no padding: the elements are an array of it. */
bool sap_nt_flat(const sap_numtype *t);
bool sap_nt_has_int(const sap_numtype *t);
bool sap_nt_has_float(const sap_numtype *t);
/* Whether every scalar of the element at p is zero (floats: +0 or -0). */
bool sap_nt_zero(const sap_numtype *t, const void *p);
/* n elements of type t set to the identity of +: -0.0 in floating
 * scalars (-0.0 + x is x for every x, +0.0 + -0.0 is not), 0 in others;
 * and whether one is that. */
void sap_nt_identity(const sap_numtype *t, void *p, int64_t n);
bool sap_nt_is_identity(const sap_numtype *t, const void *p);
/* Make buf, an empty accumulate buffer of map m's values, keep the sums
 * of m's keys densely by m's entry, if that pays for a loop of n
 * iterations. */
void sap_acc_shadow(sap_dmap *buf, const sap_dmap *m, int64_t n);
void sap_acc_shadows(const sap_reduce *r, const sap_async_spec *spec, void *red, int64_t n);
/* Entry i of m (i < m->nents): its key and value, or NULL where it is
 * dead. */
const void *sap_dm_key_at(const sap_dmap *m, int64_t i);
/* A hash of m's entries in order, dead ones included: maps that agree
 * on it hold the same keys at the same entries (as far as 64 bits of
 * hash tell). */
uint64_t sap_dm_order_hash(const sap_dmap *m);
/* If m is empty (and not parted), m takes buf's entries, sums of type t
 * as m + buf would hold them, leaving buf empty; else false. */
bool sap_dm_take(const sap_numtype *t, sap_dmap *m, sap_dmap *buf);
/* Add dense[i], of type t, to the value of each live entry i of m. */
void sap_dm_add_dense(const sap_numtype *t, sap_dmap *m, const char *dense);
void sap_sc_add(const sap_numtype *t, void *v, const void *a, int64_t n);
void sap_sc_sub(const sap_numtype *t, void *v, const void *a, int64_t n);
void sap_sc_delta(const sap_numtype *t, void *v, const void *a, const void *old, int64_t n);
void sap_sc_div(const sap_numtype *t, void *v, int64_t n, int64_t A);
/* out = w's merge of old and the workers' total change of n elements,
 * from A workers (out may be old or total). */
void sap_sc_merge(const sap_syncdds *w, void *out, const void *old, const void *total,
                  int64_t n, int64_t A);

/* ======== io/: files ==================================================== */

/* ==== io/ckpt.c: checkpoint files ======================================== */

/* CRC32C of p[0 .. n), continuing crc (0 to start). */
uint32_t sap_crc32c(uint32_t crc, const void *p, size_t n);

/* What a checkpoint says of itself besides its data. */
typedef struct sap_ckpt_head {
	uint64_t program;       /* a hash of the program that wrote it */
	uint64_t seq;           /* its number, increasing through a run */
	uint64_t invocation;    /* of op */
	uint32_t op;            /* the parallel operator it was taken after */
	uint32_t threads;       /* per rank */
	uint32_t seed;          /* --seed */
} sap_ckpt_head;

/* Collective: checkpoint h->seq in dir, this rank's part data[0 .. n).
 * NULL once it is complete on disk (and all but the newest two complete
 * checkpoints removed), else why not, on every rank; a failed checkpoint
 * is never taken for complete. */
char *sap_ckpt_save(const char *dir, const sap_ckpt_head *h, const void *data, size_t n);
/* sap_ckpt_save in two steps: this rank's part written (no
 * communication, so another thread may do it while the run goes on),
 * with its CRC in *crc, NULL or why not; then, collective, COMPLETE
 * written if every part is, given this rank's err (taken over). */
char *sap_ckpt_write_part(const char *dir, const sap_ckpt_head *h, const void *data, size_t n,
                          uint32_t *crc);
char *sap_ckpt_commit(const char *dir, const sap_ckpt_head *h, char *err, uint32_t crc);
/* sap_ckpt_commit in two steps, so that the second is off the run's
 * path.  Collective: whether every rank's part is on disk (ok is this
 * rank's), every rank's CRC into crcs[0 .. ranks), and *flag the largest
 * of the ranks' *flag.  Then, on one rank only and without
 * communication: COMPLETE written from crcs and older checkpoints
 * pruned; NULL or why not. */
bool sap_ckpt_agree(bool ok, uint32_t crc, uint32_t *crcs, int *flag);
char *sap_ckpt_mark(const char *dir, const sap_ckpt_head *h, const uint32_t *crcs, int ranks);
/* This rank's part of checkpoint seq removed, and its directory if that
 * leaves it empty: one that will never be complete (a full disk left one
 * empty directory per checkpoint). */
void sap_ckpt_discard(const char *dir, uint64_t seq);
/* Collective: the checkpoint being written, if any, completed (at the end
 * of the run). */
void sap_ckpt_finish(void);
/* io/state.c: v was just loaded from path, which a checkpoint names
 * (with its size and time) rather than holding v, while v stays as it
 * was loaded (sap_state_input). */
void sap_input_note(const sap_dvec *v, const char *path);
/* After --resume: the file path saved by this run, which a later load
 * of it may read; and a load of path, an error if the stopped run changed
 * the file after the checkpoint this run resumed from. */
void sap_resume_saved(const char *path);
void sap_resume_check_load(const char *path, const sap_site *site);
/* Checkpoints taken, their bytes on this rank and its largest part, the
 * seconds they took on the run's path and those their parts took to
 * write beside it, for --stats. */
void sap_ckpt_stats(double *seconds, double *writing, int64_t *bytes, int64_t *count,
                    int64_t *largest);

/* Collective: the largest number of a checkpoint in dir, complete or
 * not, or 0: a run's checkpoints are numbered after those already there,
 * so that they are the newest. */
uint64_t sap_ckpt_last_seq(const char *dir);
/* Collective: the number of a new checkpoint of program in dir, seq or
 * the first after it that no other run holds, its directory made. */
uint64_t sap_ckpt_reserve(const char *dir, uint64_t seq, uint64_t program);
/* What makes a run one experiment, which a checkpoint's PROGRAM file
 * keeps: a hash of the params' values (not those only written), the seed
 * and, if workers, the workers (ranks x threads, which a float sum's
 * result follows).  --resume prefers its own experiment's checkpoints,
 * then those of its params and seed on other workers. */
uint64_t sap_ckpt_key(bool workers);
/* The end of this run's checkpoints: others sharing its dir may prune
 * them now (its lock file goes). */
void sap_ckpt_run_end(void);
/* The newest complete checkpoint of program in dir, or 0. */
uint64_t sap_ckpt_newest(const char *dir, uint64_t program);
/* Checkpoint seq of dir is the newest of a run that ended (a file ENDED
 * in it), or is it? */
void sap_ckpt_ended(const char *dir, uint64_t seq);
bool sap_ckpt_is_ended(const char *dir, uint64_t seq);
/* The parts of a checkpoint a rank reads: its own (n = 1) when as many
 * ranks wrote it as there are now, else every one (n = ranks). */
typedef struct sap_ckpt_parts {
	int ranks;              /* that wrote it */
	int n;
	char **data;
	size_t *len;
} sap_ckpt_parts;
void sap_ckpt_parts_free(sap_ckpt_parts *pt);
/* Collective: the newest complete checkpoint in dir of this program whose
 * every part is whole, on every rank the same; each one passed over is
 * told to warn (the file and what is wrong).  False if there is none. */
bool sap_ckpt_load(const char *dir, uint64_t program, sap_ckpt_head *h, sap_ckpt_parts *pt,
                   void (*warn)(const char *why));

/* ======== plan/: reconnaissance and plans ================================ */

/* ==== plan/recon.c: reconnaissance ======================================= */

/* How the keys of each DDS of a spec map to mask bits: every written DDS
 * that is not accumulate, and not only written at the iteration's own
 * key, takes part with F >= B fine blocks, part k's at bits k * F ..: a
 * dvector's are contiguous ranges of keys cut by weight, a dmap's are
 * hashed.  Planning then tries the fine blocks as they are, and merged
 * into B blocks per DDS in two ways (dealt out by weight; contiguous
 * runs), and keeps the plan with the shortest critical path. */
/* The choices of a plan's search (choose_map's map of fine blocks to
 * blocks, whether a key-level plan won) kept for the next plan made with
 * the same layout: a loop whose slice draws random numbers plans again
 * every invocation, on keys whose statistics do not change, and the
 * search costs many times one packing. */
typedef struct sap_plan_memo {
	bool mapped;            /* map, nb and level hold choose_map's choice */
	int nb;
	int map[64];
	bool level;
	bool keys_tried;        /* sap_plan_keys ran, */
	bool keys_won;          /* and its plan replaced the blocks' */
} sap_plan_memo;

typedef struct sap_layout {
	sap_plan_memo *memo;    /* NULL: search every time */
	sap_rec_dds *d;         /* per spec DDS */
	int ndds;
	int nparts;             /* DDSs that take part */
	int B;                  /* blocks per taking part DDS */
	int F;                  /* fine blocks per taking part DDS */
	double bytes[64];       /* per taking part DDS: what it holds */
	int part[64];           /* per taking part DDS: its index in the spec */
	uint8_t **tabs;         /* per spec DDS: its granule table, or NULL */
	int64_t **cuts;         /* and its cuts */
	/* Set by the reconnaissance when a key the body writes into a map
	 * is missing (sap_rec_has): the loop inserts it.  Bit min(dds, 63)
	 * names the map. */
	uint64_t *missing;
} sap_layout;

/* B = blocks (or T when 0), reduced so that every part fits in 64 bits.
 * Returns false when more than 64 DDSs take part. */
bool sap_layout_make(sap_layout *ly, const sap_async_spec *spec, int T, int blocks);
/* Cut each dvector's blocks where a sample of the iterations' keys,
 * sliced on `threads` threads, makes them equally busy; over ranks when
 * ranks (collective: each rank slices the sample in its share of
 * [lo, hi)). */
void sap_layout_weigh(sap_layout *ly, const sap_async_spec *spec, void *env, int64_t lo,
                      int64_t hi, int threads, bool ranks);
void sap_layout_free(sap_layout *ly);
/* Does a sample of the iterations of [lo, hi) write a key missing from a
 * check_keys map?  Then the loop inserts (a loop filling a map), which
 * the sample tells before the whole reconnaissance and plan are made. */
uint64_t sap_recon_missing(const sap_async_spec *spec, const sap_layout *ly, void *env,
                           int64_t lo, int64_t hi);
/* The check_keys map of spec a missing mask (sap_layout.missing) names. */
int sap_missing_dds(const sap_async_spec *spec, uint64_t missing);

/* Reconnaissance of [lo, hi) on T workers over contiguous chunks: the
 * slice and the affine forms give each iteration a block mask, and the
 * masks of iterations first .. first + n - 1 (ascending, within worker
 * w's chunk) go to sink while they are in cache.  Returns the seconds the
 * slowest worker spent slicing.  kmax, if not NULL, gets per spec DDS a
 * bound (as unsigned) of the keys the slice recorded: the largest of them
 * beyond the layout's largest key ly->d[k].max, else that largest key
 * (sap_recorded_below). */
typedef void (*sap_mask_sink)(void *arg, int w, int64_t first, const uint64_t *masks,
                              int64_t n);
double sap_recon(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                 int64_t hi, int T, sap_mask_sink sink, void *arg, uint64_t *kmax);
/* The masks of [lo, hi) into masks[0 .. hi - lo). */
void sap_recon_masks(const sap_async_spec *spec, const sap_layout *ly, void *env,
                     int64_t lo, int64_t hi, uint64_t *masks, int T);

/* One access of a written DDS, as the slice or an affine form says. */
typedef struct sap_access {
	int64_t i;              /* the iteration */
	int64_t key;
	int32_t dds;
	int32_t mode;
} sap_access;

typedef struct sap_keylog {
	sap_access *v;
	int64_t n, cap;
	/* sap_recon_log's buffers, two per worker, kept for its next call
	 * with this log (a log read in pieces fills them again and again). */
	struct sap_keylog *work;
	int nwork;
} sap_keylog;

/* Every access of the DDSs that take part, for the iterations idx[0 ..
 * n) (ascending), in that order, appended to log; run on T workers.
 * sap_keylog_free frees the log and its buffers. */
void sap_recon_log(const sap_async_spec *spec, const sap_layout *ly, void *env,
                   const int64_t *idx, int64_t n, sap_keylog *log, int T);
void sap_keylog_free(sap_keylog *log);
/* Empty log, with room in it and its buffers for about n accesses sliced
 * on T threads. */
void sap_keylog_reserve(sap_keylog *log, int T, int64_t n);
struct sap_loop_state;
/* --check-plan: keep log (of every iteration of the plan) for the body's
 * accesses to be checked against (sap_audit_key); free it with the plan. */
void sap_audit_keep(struct sap_loop_state *st, const sap_keylog *log);
void sap_audit_free(struct sap_loop_state *st);
/* The keys that iterations idx[0 .. n) (ascending) write, as bits set in
 * bits[dds] (those not NULL), and, when touched is not NULL, those they
 * read or write in touched[dds]; on the calling thread. */
void sap_recon_mark(const sap_async_spec *spec, const sap_layout *ly, void *env,
                    const int64_t *idx, int64_t n, uint64_t **bits, uint64_t **touched);
/* The same for iterations [a, b) on T threads, in index order, iteration
 * i's keys into the maps at slot[i - a] * words, DDS k's from word base[k]
 * (those with base[k + 1] > base[k]). */
void sap_recon_mark_slots(const sap_async_spec *spec, const sap_layout *ly, void *env,
                          int64_t a, int64_t b, int T, const uint32_t *slot,
                          const int64_t *base, int64_t words, uint64_t *wr, uint64_t *tc);

/* ==== plan/plan.c, group.c, rounds.c, keys.c, check.c, ranks.c: plans ==== */

/* Over ranks, a vector held in parts whose elements travel with the
 * iterations to the ranks that run them, into the plan-order copy s
 * (sap_stage, below); each rank slices only iterations of its part. */
struct sap_ship {
	const sap_dvec *v;
	struct sap_stage *s;
	int64_t sent, received;         /* bytes, added */
	double seconds;                 /* added */
};

/* Iterations grouped by block mask, groups packed into rounds of groups
 * that share no block, each group on one worker.  Round r's groups are
 * rg[ro[r * T + w] .. ro[r * T + w + 1]) for worker w = 0 .. T - 1, in
 * the order that worker runs them; a locked round has one group, which
 * every worker takes iterations of under key locks. */
typedef struct sap_plan {
	int64_t n;              /* iterations */
	int64_t *order;         /* group g: order[goff[g] .. goff[g + 1]) */
	bool owns_order;        /* else the caller's buffer */
	int64_t ngroups;        /* sorted by size, largest first (block plans) */
	int64_t *goff;
	uint64_t *gmask;
	uint8_t bit[64];        /* the gmask bit of each reconnaissance bit */
	uint8_t home[64];       /* per gmask bit: the worker whose even share
	                           of the DDS's keys holds the block's middle
	                           (where loops in chunks use those keys), or
	                           255 when keys are hashed */
	double bitw[64];        /* per gmask bit: the bytes of its block, so
	                           that a worker keeps the heaviest blocks */
	int nworkers;
	int64_t nrounds;
	int64_t *ro;            /* nrounds * T + 1 */
	int64_t *rg;
	bool *rlocked;          /* per round */
	int64_t nlocked;        /* locked rounds, which come first */
	double balance;         /* sum of max worker loads / sum of mean loads */
	bool level;             /* rounds packed to their largest group's size
	                           (see sap_plan_pack) */
	bool keys;              /* key level: a wavefront of iterations (see
	                           sap_plan_wave) or strips, groups in round and
	                           worker order rather than by size, gmask all
	                           ones */
	bool strips;            /* key level by strips (sap_plan_strips):
	                           conflicting iterations in different rounds,
	                           not always in index order */
	bool colour;            /* key level by colouring (sap_plan_colour) */
	int *mine;              /* over ranks: the rank running each group, whose
	                           lists alone are in order until sap_plan_share */
	bool fine;              /* each group's iterations sorted by their key
	                           (sap_plan_fine_key with fine_first, fine_F),
	                           in index order within a key; else in index
	                           order */
	int fine_first, fine_F;
	/* Over ranks, from the ranks that sliced the iterations: the keys of
	 * the written dvectors that rank d's groups write in round r, at
	 * dist_wr[(d * nrounds + r) * words + base[k]] for DDS k as in
	 * sap_dist_premark, and those they touch in dist_tc; NULL: none. */
	uint64_t *dist_wr, *dist_tc;
	double mark_s;          /* seconds spent making them */
} sap_plan;

/* Plan iterations lo .. lo + n - 1 from their masks.  A group of more
 * than 1.5 n / T iterations gets a locked round of its own when locks is
 * true. */
void sap_plan_build(sap_plan *p, const uint64_t *masks, int64_t lo, int64_t n, int T,
                    bool locks);
/* The same from the reconnaissance of [lo, hi) on `threads` threads, for
 * T workers, grouping masks as the slice makes them; ids is scratch space
 * for hi - lo ids and order, for hi - lo indices, becomes the plan's
 * order (kept across plans, since first touching fresh pages costs as
 * much as the planning).  *recon_s gets the slicing part of the time;
 * kmax, if not NULL, the recorded keys' maxima (sap_recon). */
void sap_plan_recon(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly, void *env,
                    int64_t lo, int64_t hi, int T, int threads, bool locks, uint32_t *ids,
                    int64_t *order, double *recon_s, uint64_t *kmax);
/* sap_plan_recon and sap_plan_recon_ranks build the block plan, and when
 * that leaves the workers idle a fifth of the time or more, the
 * key-level plans too, the wavefront, strips and the colouring (within
 * bounds on their memory: keys.c; over ranks every rank slices every
 * iteration for them, unless vectors held in parts travel with the
 * iterations), keeping the cheapest. */

/* The key-level (wavefront) plan of iterations lo .. lo + n - 1 from
 * their accesses log[0 .. nlog) (each iteration's together, ascending):
 * an iteration goes in round 1 + the latest round of an earlier one that
 * touches a key it touches, one of them writing it; each round in index
 * order cut into T contiguous groups, one per worker.  Running it equals
 * the serial loop.  order: n places for the plan's order, or NULL (the
 * plan allocates it).  False past the bounds on keys held. */
bool sap_plan_wave(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                   int T, int64_t *order);
/* The key-level plan by strips of the same: the iterations cut into T m
 * contiguous runs, run s in round s mod m (worker w runs run j + w m in
 * round j), m the fewest rounds up to 64 such that no written key is
 * touched by iterations of two runs of one round.  Conflicting
 * iterations run in different rounds, but a later one may run first:
 * the result depends on T, as a block plan's does.  False when no m
 * fits (a written key's iterations span n / T or more). */
bool sap_plan_strips(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                     int T, int64_t *order);
/* The key-level plan by colouring of the same: each iteration, in index
 * order, goes in the first round where no earlier one it conflicts with
 * is; each round cut as the wavefront's.  Rounds are fewer than the
 * wavefront's where conflicts chain (random keys: Lasso's columns over
 * uniformly random rows), and conflicting iterations run in different
 * rounds, a later one maybe first: the result is the same for every T,
 * but not the serial loop's.  False past 256 rounds (a key written by
 * more than 256 iterations, say) or the bounds on keys. */
bool sap_plan_colour(sap_plan *p, const sap_access *log, int64_t nlog, int64_t lo, int64_t n,
                     int T, int64_t *order);
/* keys.c: a hash table from keys to values of vsize bytes, zeroed when
 * made (sap_keytab_make: NULL when the key is new and *count, the keys
 * made in this and any tables sharing it, has reached max). */
typedef struct sap_keytab {
	char *slot;             /* nslot slots of stride bytes: key, value */
	uint8_t *used;
	int64_t nslot, n;
	size_t stride;
} sap_keytab;
void *sap_keytab_find(const sap_keytab *t, int64_t key);
void *sap_keytab_make(sap_keytab *t, size_t vsize, int64_t key, int64_t *count, int64_t max);
void sap_keytab_free(sap_keytab *t);
/* keys.c: plans whose rounds are given per iteration, round[k] for
 * iteration lo + k, 1 .. top (0: conflicts with none, made 1): the
 * iterations per round, size[1 .. top] (top made 1 if 0); what the plan
 * costs (as sap_plan_cost); the plan, each round in index order cut into
 * T contiguous groups, of even weight when weight[k] (iteration lo + k's
 * accesses in the key log, sap_log_weigh) is given, else of even
 * counts. */
int64_t *sap_rounds_sizes(uint32_t *round, int64_t n, uint32_t *top);
double sap_rounds_cost(const int64_t *size, uint32_t top, int64_t n, int T);
void sap_rounds_plan(sap_plan *p, int64_t lo, int64_t n, const uint32_t *round, uint32_t top,
                     const int64_t *size, const uint32_t *weight, int T, int64_t *order);
void sap_log_weigh(uint32_t *weight, const sap_access *log, int64_t nlog, int64_t lo, int64_t n);
/* colour.c: the colouring of iterations [lo, lo + n), fed their key log
 * in pieces, its rounds into round; the tables of the DDSs of spec and
 * ly, dense as sap_dense_keys says for acc[k] accesses expected of DDS k
 * (with spec NULL, ndds DDSs of hashed keys).  It dies past its
 * bounds (256 rounds; keys held), or when killed. */
typedef struct sap_colouring sap_colouring;
sap_colouring *sap_colour_new(const sap_async_spec *spec, const sap_layout *ly, int ndds,
                              int64_t lo, int64_t n, uint32_t *round, const int64_t *acc);
void sap_colour_feed(sap_colouring *c, const sap_access *a, int64_t na);
bool sap_colour_alive(const sap_colouring *c);
void sap_colour_kill(sap_colouring *c);
uint32_t sap_colour_top(const sap_colouring *c);
void sap_colour_free(sap_colouring *c);
/* Over ranks: each rank slices its share of [lo, hi) (the iterations of
 * its workers' chunks), the ranks pool their masks into one plan for T =
 * P x threads workers, and each rank receives the iterations of its
 * workers' groups, with their elements of the ship[0 .. nship) vectors
 * (whose parts must be the shares); no locked rounds.  With premark, the
 * keys for sap_dist_build too (sap_dist_premark).  What a key-level
 * plan makes whole for its slices counts in traffic.  Collective. */
void sap_plan_recon_ranks(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly,
                          void *env, int64_t lo, int64_t hi, int T, int threads,
                          uint32_t *ids, int64_t *order, double *recon_s,
                          struct sap_ship *ship, int nship, uint64_t *kmax,
                          sap_dist_stats *traffic, bool premark);
/* Collective: every group's list in every rank's order. */
void sap_plan_share(sap_plan *p);
void sap_plan_free(sap_plan *p);

/* Two groups of one round that touch one key, at least one writing it. */
typedef struct sap_conflict {
	int64_t round, g1, g2;
	int dds;                /* -1: iteration `key` runs `times` times */
	int64_t key;
	int64_t times;
} sap_conflict;

/* Check the plan of iterations lo .. lo + n - 1: that it runs each once
 * (each in one group, each group in one round), and that no two groups
 * of a round touch a key, one writing it, by their accesses.  Locked
 * rounds are exempt from the second: their locks serialize shared keys.
 * Returns false and fills *c at the first fault. */
bool sap_plan_check(const sap_plan *p, int64_t lo, const sap_access *log, int64_t nlog,
                    sap_conflict *c);

/* ---- Between the files of plan/ ---- */

/* MurmurHash3's fmix64, for hash tables of masks and keys. */
static inline uint64_t sap_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* plan/group.c: grouping, a parallel counting sort by mask. */
enum { SAP_MASK_CACHE_BITS = 10, SAP_MASK_CACHE = 1 << SAP_MASK_CACHE_BITS };

/* Distinct masks in the order first seen, with an open-addressing index. */
typedef struct sap_mask_set {
	uint64_t *mask;
	int64_t *count;
	int64_t n, cap;
	int64_t *slot;          /* id + 1, 0 when empty */
	int64_t nslot;          /* a power of two */
	/* Direct-mapped in front of the index: a loop has few distinct
	 * masks (SGDMF on T workers: (8T)^2), looked up millions of times. */
	uint64_t cmask[SAP_MASK_CACHE];
	int64_t cid[SAP_MASK_CACHE];    /* -1 when empty */
} sap_mask_set;

void sap_mask_set_init(sap_mask_set *s);
/* The id of m, added with count 0 when new. */
int64_t sap_mask_set_id(sap_mask_set *s, uint64_t m);
void sap_mask_set_free(sap_mask_set *s);

typedef struct sap_group_job {
	uint32_t *ids;          /* per iteration: its mask's id in its worker's set */
	int64_t lo, n;
	int T;
	const sap_layout *ly;   /* fine masks to deal out, or NULL */
	sap_mask_set *local;    /* per worker */
	const uint64_t *masks;  /* given masks, or NULL under reconnaissance */
	int64_t **grp;          /* per worker, per local id: its group */
	int64_t **pos;          /* per worker, per group: next order slot */
	int64_t *order;
} sap_group_job;

/* Grouping of n iterations from lo on T workers into p, emptied; ids has
 * room for n ids. */
void sap_plan_group_begin(sap_group_job *j, sap_plan *p, uint32_t *ids, int64_t lo, int64_t n,
                          int T);
/* Worker w counts masks: the reconnaissance's sink (sap_mask_sink, arg
 * the job), and for the pool, the job's given masks in w's chunk. */
void sap_plan_count_sink(void *arg, int w, int64_t first, const uint64_t *m, int64_t n);
void sap_plan_count_worker(void *arg, int w);
/* Number the groups of all_in largest first, after mapping fine blocks
 * to blocks, turning gid[w][k] (worker w's local id k) into its group. */
void sap_plan_number_groups(sap_group_job *j, sap_plan *p, sap_mask_set *all_in, int64_t **gid);
/* The workers' sets counted: number the groups and sort the iterations
 * into them, into order (which becomes p's); frees the job's sets. */
void sap_plan_group_end(sap_group_job *j, sap_plan *p, int64_t *order);
/* What running p costs, in iterations of one worker. */
double sap_plan_cost(const sap_plan *p);
/* Does p keep about one of its workers busy at a time: its balance above
 * 0.8 workers, no locked round (then the loop runs in index order on one
 * worker, async.c, and hot.c warns)? */
static inline bool sap_plan_serial(const sap_plan *p)
{
	return p->nworkers > 1 && !p->nlocked && p->balance > 0.8 * p->nworkers;
}
/* Inside a group of a block plan with ngroups groups, the iterations run
 * sorted by the small block of the heaviest DDS they write (key), stable:
 * the first bit of that DDS's small blocks in a mask, or -1 when groups
 * run in index order.  The same on every rank for the same plan. */
int sap_plan_fine_first(const sap_layout *ly, int64_t ngroups);
/* Of consecutive iterations ids[0 .. n) of one worker's set: per taking
 * part DDS q, the pairs that both touch it (pairs[q]) and those of them
 * in one small block of it (same[q]), added. */
void sap_plan_fine_pairs(const sap_layout *ly, const sap_mask_set *set, const uint32_t *ids,
                         int64_t n, int64_t *pairs, int64_t *same);
/* Whether index order already walks some DDS small block by small block
 * (half the pairs or more): then groups keep it. */
bool sap_plan_index_local(const sap_layout *ly, const int64_t *pairs, const int64_t *same);
static inline int sap_plan_fine_key(uint64_t m, int first, int F)
{
	if (first < 0)
		return 0;
	uint64_t f = (m >> first) & (F >= 64 ? ~0ULL : (1ULL << F) - 1);
	return f ? __builtin_ctzll(f) : F;
}

/* plan/rounds.c: p's groups packed into rounds (false, the plan unfinished,
 * past max_rounds rounds when not 0); with locks, oversized groups get
 * locked rounds. */
bool sap_plan_pack(sap_plan *p, bool locks, int64_t max_rounds);

/* plan/keys.c.  A block plan whose critical path and barriers take longer than
 * this share of the workers' even share leaves them idle a fifth of the
 * time or more: only then is a key-level plan tried. */
#define SAP_KEYS_WORTH 1.25
/* Nor when an element is written by this share of the iterations
 * (sap_hot_share): a key-level plan would be serial too, and finding
 * that out reads the whole key log (a bias feature in every example). */
#define SAP_KEYS_FUTILE 0.95
/* Did the last plan made with this layout try a key-level plan and keep
 * the blocks'?  sap_plan_keys_tried records what the try did. */
bool sap_plan_keys_lost(const sap_layout *ly, const sap_plan *p);
void sap_plan_keys_tried(const sap_layout *ly, bool won);
/* The key-level plan of [lo, hi), into p when cheaper than max_cost. */
bool sap_plan_keys(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly, void *env,
                   int64_t lo, int64_t hi, int T, int threads, uint32_t *round, int64_t *order,
                   double max_cost);

/* plan/hot.c: after st's plan of [lo, hi) was built on `threads` threads (and
 * the ranks, when ranks: then collective), a warning at the loop if the
 * plan keeps one worker busy at a time (sap_plan_serial: it then runs
 * in index order on one) or has locked rounds, naming the element most
 * iterations write and what to do; once per loop, and again only when
 * its plans change from serial to locked or back. */
void sap_hot_warn(struct sap_loop_state *st, const sap_async_spec *spec, void *env,
                  int64_t lo, int64_t hi, int threads, bool ranks);
/* The share of the iterations of [lo, hi) that write the element most
 * of them write, from an evenly spaced sample, less its sampling error:
 * every key-level plan runs that share one iteration at a time.  This
 * rank slices the sample's iterations in [a, b): with ranks, its share
 * of them (collective: every rank gets rank 0's figure, whatever its
 * share, even none).  0 for fewer iterations than could show a share of
 * SAP_KEYS_FUTILE, the only use of the figure. */
double sap_hot_share(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                     int64_t hi, int64_t a, int64_t b, int threads, bool ranks);
/* Whether no key-level plan of T workers can cost less than max_cost,
 * from the same sample: an element is written by SAP_KEYS_FUTILE of
 * the iterations, or by enough of them for the rounds of the wavefront
 * and the colouring, while its writers lie too far apart for strips.
 * Collective as sap_hot_share. */
bool sap_keys_futile(const sap_async_spec *spec, const sap_layout *ly, void *env, int64_t lo,
                     int64_t hi, int64_t a, int64_t b, int threads, bool ranks, int T,
                     double max_cost);
/* The same for a loop the compiler serialized (spec->serial) because
 * every iteration writes one element, run on n iterations with more
 * workers than one: once per loop. */
void sap_serial_warn(const sap_loop *L, const sap_async_spec *spec, int workers, int64_t n);
/* Once per loop, for a loop run serially because a key it writes into a
 * map is missing (the maps of the bits of missing), when accumulate would
 * insert it in parallel. */
void sap_insert_warn(const sap_loop *L, const sap_async_spec *spec, uint64_t missing, int workers,
                     int64_t n);
/* After an invocation: a loop that keeps planning (its plan is made
 * again nearly every invocation) for longer than its body runs says so,
 * once. */
void sap_plan_cost_warn(struct sap_loop_state *st, const sap_async_spec *spec);
void sap_plan_cost_final(void);

/* ==== plan/stage.c: plan-order copies ==================================== */

/* A copy of a dvector's elements in a plan's order: place k holds the
 * element of iteration p->order[k] (sap_loop.stage). */
typedef struct sap_stage {
	const sap_dvec *src;    /* NULL: nothing copied */
	uint64_t version;       /* src's, and its length, when copied */
	int64_t n;
	char *data;
	size_t cap;             /* bytes */
	size_t held;            /* bytes filled, counted in --stats */
	/* The elements' lists, lent in plan order (codec->lend). */
	char *lists;
	size_t lists_cap;
} sap_stage;

/* Room for need bytes (the old contents are lost). */
void sap_stage_reserve(sap_stage *s, size_t need);
/* A buffer of n bytes (from malloc) whose contents are no longer needed:
 * freed, or kept for a plan-order copy or another big buffer. */
void sap_spare_give(void *p, size_t n);
/* That buffer, when it holds need bytes (*got gets its size), else NULL;
 * free it, or give it back, when done. */
void *sap_spare_take(size_t need, size_t *got);
/* s now holds v as it is, filled bytes of it. */
void sap_stage_done(sap_stage *s, const sap_dvec *v, size_t filled);

/* Does s hold v as it is now? */
bool sap_stage_valid(const sap_stage *s, const sap_dvec *v);
/* Copy v's elements at the iterations of plan p that its workers w0 ..
 * w0 + nw - 1 run (every iteration when they are all of them), on
 * `threads` threads.  Every iteration of the plan must be an index of v. */
void sap_stage_fill(sap_stage *s, const sap_dvec *v, const sap_plan *p, int w0, int nw,
                    int threads);
void sap_stage_free(sap_stage *s);

/* The loop state's copy and pointer per spec DDS (stage.c). */
void sap_stage_slots(struct sap_loop_state *st, const sap_async_spec *spec);

/* ======== async/: the async engine ======================================= */

/* ==== async/dist.c: async loops over several ranks ======================= */

/* The elements of written dvectors that this rank's groups write, sorted
 * by DDS and key.  After round r it sends rank d keys[off[r * P + d] ..
 * off[r * P + d + 1]), those d touches in a later round, so an element
 * goes straight to the rank that needs it next.  After the last round
 * each element stays where it was last written (hold.c): over the key
 * maps' bits, DDS k's keys from bit 64 * base[k], lastw names that rank,
 * and need[d] the keys rank d touches before any rank writes them in the
 * invocation, which it fetches from their holders first. */
/* A record of elements that one rank sends another (dist.c): n keys of
 * DDS dds from key on, or if mask, the n keys key + i whose bit i is set. */
typedef struct sap_send_rec {
	int64_t key;
	uint64_t mask;
	int32_t dds, n;
} sap_send_rec;

typedef struct sap_send_log {
	sap_send_rec *v;
	int64_t n, cap;
	int64_t from;           /* where the list being made starts */
} sap_send_log;

typedef struct sap_dist {
	int64_t nrounds;
	/* What this rank sends rank d after round r: the records
	 * recs[off[r * P + d] .. off[r * P + d + 1]). */
	int64_t *off;           /* nrounds * P + 1 */
	sap_send_rec *recs;
	int64_t *base, words;   /* base: ndds + 1 */
	uint64_t *need;         /* per rank, words each */
	uint16_t *lastw;        /* per key bit: a rank, or SAP_HOLD_ALL */
	/* nrounds + 1 maps: at r, the keys this rank touches in round r or
	 * later, so that it can give back the pages of the others. */
	uint64_t *later;
	/* Per round: the keys other ranks send this rank after it; and per
	 * round and thread of this rank, whether the thread may start the
	 * next round before they arrive (it touches none of them). */
	uint64_t *incoming;
	bool *early;
	/* Per DDS: its holder map's stamp after the last settle, which a
	 * map nothing changed since still has: it is settled already. */
	uint64_t *stamp;
	/* sap_dist_fetch's lists, for rank d frecs[foff[d] .. foff[d + 1]),
	 * made from the holder maps of stamps fstamp (per DDS). */
	sap_send_rec *frecs;
	int64_t *foff;
	uint64_t *fstamp;
} sap_dist;

typedef struct sap_dist_stats {
	int64_t sent, received;         /* bytes */
} sap_dist_stats;

/* Whether a loop can be spread over ranks; if not, *why says why and
 * every rank runs all of it. */
bool sap_dist_ok(const sap_async_spec *spec, const sap_reduce *r, const char **why);
/* The write lists of rank `rank`, whose workers are rank * threads ..,
 * for plan p (which has no locked round). */
void sap_dist_build(sap_dist *d, const sap_plan *p, const sap_async_spec *spec,
                    const sap_layout *ly, void *env, int rank, int threads);
/* For sap_dist_build, from the ranks that sliced the iterations, [a, b)
 * on this rank, whose groups are grp[i - a]: the keys each rank's groups
 * write and touch in each round (p->dist_wr, p->dist_tc).  Collective. */
void sap_dist_premark(sap_plan *p, const sap_async_spec *spec, const sap_layout *ly, void *env,
                      int64_t a, int64_t b, int threads, const int64_t *grp);
void sap_dist_free(sap_dist *d);
/* Collective: the elements of recs[off[d] .. off[d + 1]) to rank d, for
 * every rank d. */
void sap_dist_send_each(const sap_send_rec *recs, const int64_t *off, const sap_async_spec *spec,
                        sap_dist_stats *stats, void (*packed)(void *), void *arg);
/* Of the written sparse vectors, give back the pages of elements that
 * this rank neither touches from round `from` on nor holds at the end;
 * sap_dist_release_cb takes a sap_dist_at, for sap_dist_send_each to
 * call once it has packed what it sends. */
void sap_dist_release(const sap_dist *d, const sap_async_spec *spec, int64_t from);
typedef struct sap_dist_at {
	const sap_dist *d;
	const sap_async_spec *spec;
	int64_t from;
} sap_dist_at;
void sap_dist_release_cb(void *arg);
/* Collective: the sum over ranks, in rank order, of n elements of es
 * bytes in buf, pipelined in pieces along the ranks (a chain): for each
 * piece [e0, e1) of elements, add(arg, e0, e1, pre) sets buf's elements
 * to pre's (the sum of the ranks before this one; NULL on rank 0 or when
 * none of them had a term), followed by this rank's terms in order, if
 * mine (this rank has some).  Then the last rank's buf goes to every
 * rank.  False, buf zeroed, when no rank had a term.  With one rank,
 * add runs piece by piece and nothing is sent. */
typedef void (*sap_chain_fn)(void *arg, int64_t e0, int64_t e1, const void *pre);
bool sap_chain_sum(char *buf, int64_t n, size_t es, bool mine, sap_chain_fn add, void *arg,
                   sap_dist_stats *stats);
/* The same, but the last rank's buf goes to each rank only where it
 * holds to's elements (those every rank holds to every rank): the rest
 * of buf is left undefined there.  to's holder map is the same on every
 * rank, so each knows what comes. */
bool sap_chain_sum_to(char *buf, int64_t n, size_t es, bool mine, sap_chain_fn add, void *arg,
                      const sap_dvec *to, sap_dist_stats *stats);
/* Whether a loop over ranks that accumulates into v leaves v where it is
 * held, each holder adding the sums of its elements, rather than making
 * it whole first: v has a holder map and is not held in parts. */
bool sap_acc_in_place(const sap_dvec *v);
/* An invocation's choice for the optional accumulate buffers of a loop
 * (sap_accum.optional): the reduce struct without those it plans, and
 * the spec with those it makes accumulated. */
typedef struct sap_sums {
	sap_async_spec spec;
	sap_reduce r;
	sap_dds *dds;
	sap_accum *acc;
	sap_affine *affine;
	sap_span *span;
} sap_sums;
/* Choose for loop L's invocation over [lo, hi), setting L->sums, and
 * point *spec and *r at s's copies; false, s untouched, if r has no
 * optional buffer.  sap_sums_free after the invocation. */
bool sap_sums_choose(sap_sums *s, sap_loop *L, const sap_async_spec **spec,
                     const sap_reduce **r, int64_t lo, int64_t hi);
void sap_sums_free(sap_sums *s, sap_loop *L);
/* The driver's reduce struct initialized, a vector accumulate buffer
 * being the vector itself where that gives the same sums. */
void sap_acc_driver_init(const sap_reduce *r, const sap_async_spec *spec, void *red);
/* Collective: the partial reductions of this rank's T workers, reds
 * (taken over), and those of every other rank combined into red in
 * worker order, rank after rank, on every rank: what one rank running
 * all the workers computes. */
void sap_dist_reduce(const sap_reduce *r, const sap_async_spec *spec, char *reds, int T,
                     void *red, sap_dist_stats *stats);
/* Collective, before rank `me` runs its groups of the plan d was built
 * for: the elements each rank needs first, from their holders. */
void sap_dist_fetch(sap_dist *d, const sap_async_spec *spec, sap_dist_stats *stats);
/* After the invocation: each written element is held by its last writer. */
void sap_dist_settle(sap_dist *d, const sap_async_spec *spec);

/* ==== async/async.c, exec.c, lock.c, relaxed.c, order.c: running a loop ==== */

typedef enum sap_verdict {
	SAP_V_NONE, SAP_V_INDEX, SAP_V_CHUNKS, SAP_V_PLANNED, SAP_V_SERIAL, SAP_V_LOCKED,
	SAP_V_REPLAY, SAP_V_SHARED, SAP_V_OWNER,
} sap_verdict;

/* What the runtime keeps per loop: the cached reconnaissance and plan,
 * and the numbers --stats prints. */
/* A loop's two ways to run over ranks, spread or whole on every rank:
 * how many invocations were timed, each way's seconds, and the choice
 * made (1 whole, -1 spread, 0 not yet). */
typedef struct sap_two_ways {
	int n, way;
	double spread_s, whole_s;
} sap_two_ways;

/* Plans an async loop keeps beside its current one (sap_loop_state.spare). */
enum { SAP_SPARES = 8 };

struct sap_loop_state {
	struct sap_loop_state *next;    /* every loop that ran, newest first */
	const sap_loop *loop;

	/* The cache is valid for these inputs. */
	bool cached;
	bool own_kept;          /* a planned invocation ran on the cached plan:
	                           sap_async_kept may take its own writes of
	                           slice_fixed DDSs in */
	/* The invocation whose keys the layout was cut from (make_plan). */
	uint32_t layout_inv;
	/* Put back by --resume (sap_async_resume): the inputs are those of
	 * the checkpoint while no version is above `restored`, and the
	 * layout is to be cut again from invocation layout_inv's keys, with
	 * these choices of its plans. */
	bool resumed;
	uint64_t restored;
	sap_plan_memo *resume_memo;
	int64_t lo, hi;
	int T, blocks, ndds;            /* blocks: sap_cfg.blocks */
	int64_t *sizes;                 /* per spec DDS */
	uint64_t *versions;             /* per spec DDS, when slice_reads */
	/* Per spec DDS that lists a map's keys (keys_of), or that is
	 * written between invocations (churn): its elements in a row
	 * (strings with their NULs), kbytes[k] bytes; a new version of the
	 * same bytes is the same input. */
	char **kcopy;
	size_t *kbytes;
	int nkcopy;
	/* Per spec DDS, its version when the loop last ran (pack_lists). */
	uint64_t *seen;
	int nseen;
	const void **ptrs;              /* per spec DDS: the dvec or dmap */
	sap_affine *affine;
	int naffine;
	unsigned char *drv;             /* the values of spec->drv, in a row */
	size_t ndrv;                    /* bytes */

	sap_layout layout;
	uint32_t *ids;                  /* buffers for planning, bufcap entries */
	int64_t *order;
	int64_t bufcap;
	sap_plan plan;
	/* Per spec DDS, the largest key the plan's slice recorded: what
	 * sap_loop.key_max shows while the body runs over the plan. */
	uint64_t *key_max;
	bool keys_known;                /* key_max is the plan's */
	/* --check-plan: the plan's log of keys, sorted (audit.c), and
	 * whether this invocation runs by that plan (not in chunks, with
	 * the plan kept for later ones). */
	sap_access *audit;
	int64_t naudit;
	bool audit_live;
	struct sap_locked *locked;      /* per locked round */
	sap_dist dist;                  /* several ranks: what this one writes */
	/* Several ranks, a loop that writes nothing: what each rank reads
	 * (need), for these iterations and inputs (sap_reads_fetch). */
	sap_dist rdist;
	const void *rd_key1;
	int64_t rd_key2, rd_a, rd_b;
	int rd_ndds;
	uint64_t *rd_versions;
	int64_t *rd_sizes;
	bool *rd_which;
	int64_t *rd_forms, rd_nforms;   /* values of key forms, driver variables */
	/* Per DDS, the version a chunk fetched much of (sap_reads_fetch). */
	uint64_t *span_ver;
	int nspan;
	/* Per DDS, whether its read slice's last fetch needed a sixteenth
	 * or more of it from other ranks (whole_if_refetched). */
	bool *read_much;
	/* Planned loops over ranks: which inputs read at the loop variable
	 * this rank's groups need, for plan id_builds (sap_index_fetch). */
	sap_dist idist;
	int64_t id_builds;
	bool *id_which;                 /* per spec DDS: in idist */
	bool *id_whole;                 /* per spec DDS: made whole instead */
	sap_dist_stats traffic;
	sap_stage *stage;               /* per spec DDS (nstage) */
	void **stage_ptr;               /* per spec DDS: what sap_loop.stage shows */
	int nstage;
	/* Whether plan scatter_of (plan_builds) visits its iterations
	 * scattered: then inputs holding lists are copied too. */
	int64_t scatter_of;
	bool scattered;

	/* Over ranks, what sap_dist_build's keys cost the slowest rank:
	 * marked by the ranks that sliced the iterations (premark_s), and
	 * sliced again in plan order (reslice_s); 0 until tried.  The
	 * cheaper way makes the loop's later plans. */
	double premark_s, reslice_s;

	/* Which build the current plan is (plan_builds then): what the
	 * index fetch's and the stage's choices, made for a plan, are of,
	 * and a shared plan's reads; it travels with the plan to the
	 * spare and back. */
	int64_t plan_no;
	/* --stats */
	int64_t recon_runs, plan_builds;
	double recon_s, plan_s, compute_s;
	double fetch_s;                 /* of plan_s: inputs moving to their groups */
	double send_s;                  /* of compute_s: written elements to the ranks */
	/* Of the threads other than the one exchanging between rounds, how
	 * many times one could start the next round during the exchange,
	 * and how many times one might have. */
	int64_t early_starts, thread_rounds;
	/* On several ranks, why every rank ran all of the last invocation,
	 * or NULL. */
	const char *whole_why;
	char why_buf[160];              /* whole_why's text, when made */
	sap_verdict verdict;
	int shared_with;                /* SAP_V_SHARED: the loop whose plan it ran */
	bool key_level;                 /* SAP_V_PLANNED: a key-level plan */
	bool strips;                    /* which is by strips */
	bool colour;                    /* or by colouring */
	const char *reason;             /* spec->serial */
	bool inserts;                   /* the plan's keys include missing ones
	                                   of a check_keys map */
	uint64_t missing;               /* which (sap_layout.missing) */
	uint64_t *kvers;                /* per spec DDS: a check_keys map's keyset */
	char insert_why[96];
	int64_t last_lo, last_hi;       /* the bounds of the last invocation */
	/* A loop over a map's keys on several ranks (run_map_owner): its
	 * last parted run's times, parting and body (map_whole_run). */
	double mk_part_s, mk_body_s;
	bool mk_timed;
	/* Short invocations over ranks (async.c, brief_whole), and a loop run
	 * in chunks between hubs over ranks (hubs_timed): the same result
	 * spread over the ranks or whole on each, timed both ways; and a
	 * planned loop over ranks, run by its plan spread or whole on each
	 * rank as one rank of all the workers (planned_whole), or, its
	 * iterations apart pair by pair, whole in chunks (pairs_fit). */
	sap_two_ways brief, hubs, planned, pairs;
	bool warned_cost;               /* sap_plan_cost_warn said it */
	/* Per spec DDS the slice reads: a new version made the cached plan
	 * invalid before, so the plans keep a copy of it (kcopy). */
	bool *churn;
	int nchurn;
	/* What made plans invalid: spec DDS k's new version (bit k, 63 for
	 * the rest), driver variable k's new value (bit k of drv_new). */
	uint64_t dds_new, drv_new;
	char *cause;                    /* said of them, for plan cost_warn's */
	int64_t cause_at;               /* plan_builds when cause was made */
	bool cost_fixed;                /* cost_fix is known */
	char *cost_fix;                 /* its additive_fix, for the end */
	bool ever_locked;
	uint32_t coloured;      /* invocations planned by colours (--stats) */
	int64_t groups, rounds;
	int workers;
	double balance;
	/* The plans made before the current one, for inputs that may come
	 * back (a checkerboard's colours, a loop inside a for over a few
	 * blocks): their PLAN_FIELDS (async.c), or NULL, with when each was
	 * last current.  Over ranks too, but for a loop whose inputs held in
	 * parts travel with its plan. */
	struct sap_loop_state *spare[SAP_SPARES];
	uint64_t spare_stamp[SAP_SPARES], spare_clock;
	int64_t spare_hits;             /* invocations that ran one */
};

/* What an async loop's next plan depends on besides its inputs, when
 * they stay as they are: the layout, cut from the keys of invocation
 * layout_inv, and the choices its plans made (memo).  A checkpoint
 * carries it (io/state.c), so that a resumed run plans as the
 * uninterrupted one would. */
/* The most bytes of driver variables a checkpoint's plan history holds
 * (async.c keeps no more). */
#define SAP_HISTORY_DRV_MAX ((int64_t)4 << 20)

typedef struct sap_plan_history {
	uint32_t layout_inv;
	int64_t lo, hi;
	int32_t T, blocks, ndds, naffine;
	const int64_t *sizes;           /* ndds */
	const sap_affine *affine;       /* naffine */
	int64_t ndrv;                   /* bytes */
	const unsigned char *drv;       /* the slice's driver variables' values */
	bool has_memo;
	sap_plan_memo memo;
} sap_plan_history;
/* L's history, pointing into its state; false if it has none. */
bool sap_async_history(const sap_loop *L, sap_plan_history *h);
/* The bounds of L's last invocation (plan_unpaid in async.c), which a
 * resumed run must know to choose as the run it continues did. */
void sap_async_bounds(const sap_loop *L, int64_t b[2]);
void sap_async_set_bounds(sap_loop *L, const int64_t b[2]);
/* After --resume: L plans from h (copied) while the inputs are those of
 * the checkpoint, which no version above `restored` changed. */
void sap_async_resume(sap_loop *L, const sap_plan_history *h, uint64_t restored);

/* Everything a worker needs to run iterations. */
typedef struct sap_run {
	sap_loop *L;
	void *env;
	sap_body_fn body;
	const sap_reduce *r;
	char *reds;                     /* per worker r->size bytes, or NULL */
	int T;                          /* threads */
	/* Workers, each with its partial result (reds), a multiple of T:
	 * thread t runs workers t * V/T .. (t + 1) * V/T - 1 in turn.  A
	 * loop every rank runs whole as one rank of P x T workers would has
	 * V = P x T on its T threads, rather than P x T threads. */
	int V;
	/* For the accumulate buffers of the workers (sap_acc_shadows): the
	 * loop's spec and its iterations in this invocation, if known. */
	const struct sap_async_spec *spec;
	int64_t n;
	/* Chunks of even work of [wlo, whi) for wW workers (spec->cost):
	 * worker w's from wcut[w]; NULL for even counts.  See sap_run_cut. */
	int64_t *wcut;
	int64_t wlo, whi;
	int wW;
} sap_run;

/* Where worker w of W's chunk of [lo, hi) starts: x's chunks of even
 * work when it has them for these bounds, else sap_chunk's even counts. */
static inline int64_t sap_run_cut(const sap_run *x, int64_t lo, int64_t hi, int W, int w)
{
	if (x && x->wcut && x->wlo == lo && x->whi == hi && x->wW == W)
		return x->wcut[w];
	return sap_chunk(lo, hi, W, w);
}

/* Thread t's first worker, of x->V. */
static inline int sap_run_first(const sap_run *x, int t)
{
	return t * (x->V / x->T);
}

static inline void *sap_run_red(const sap_run *x, int w)
{
	return x->reds ? x->reds + (size_t)w * x->r->size : NULL;
}

/* async/lock.c: for each iteration of a locked group, the lock stripes of its
 * keys, ascending. */
typedef struct sap_locked {
	int64_t n;
	int64_t *koff;          /* iteration k's: stripe[koff[k] .. koff[k + 1]) */
	uint32_t *stripe;
} sap_locked;
/* The stripes of iterations idx[0 .. n) (a group, in its order). */
void sap_locks_prepare(sap_locked *lk, const sap_async_spec *spec, const sap_layout *ly,
                       void *env, const int64_t *idx, int64_t n, int T);
void sap_locks_free(sap_locked *lk);
void sap_locks_take(const sap_locked *lk, int64_t k);
void sap_locks_give(const sap_locked *lk, int64_t k);
/* The stripe a key of the spec's DDS dds locks. */
uint32_t sap_stripe(int dds, int64_t key);

/* plan/stage.c: copy the dvectors the body reads at its own index in the
 * order of st's plan (this rank runs its workers w0 .. w0 + nw - 1),
 * unless copied already, and show them to the body. */
void sap_stage_inputs(struct sap_loop_state *st, const sap_async_spec *spec, const sap_run *x,
                      int w0, int nw);
/* plan/stage.c: for a loop writing no DDS whose reductions (r) are exact,
 * a loop over the same iterations on T workers whose plan it can run on,
 * with that loop's copies; or NULL. */
struct sap_loop_state *sap_plan_to_share(struct sap_loop_state *st, const sap_async_spec *spec,
                                         const sap_reduce *r, int64_t lo, int64_t hi, int T);

/* async/relaxed.c: the views of the relaxed vectors of reduce r (see
 * sap_relaxed).  direct: red's are the vectors' own elements, made
 * whole on every rank (collective).  open: each worker of x gets a copy.
 * fold: at the end of a round, thread t of nt adds its share of the
 * elements of every worker's view into the vector, and renews the views;
 * fold_ranks: the same over the ranks (collective, on one thread), x's
 * workers being this rank's, in order.  close: the last fold (over the
 * ranks or not), and the copies go.  The copies' buffers are accum.c's,
 * kept from one invocation to the next; open and close spread their
 * passes over the pool's threads. */
void sap_rel_direct(const sap_reduce *r, void *red);
void sap_rel_open(const sap_run *x);
void sap_rel_fold(const sap_run *x, int t, int nt);
void sap_rel_fold_ranks(const sap_run *x, sap_dist_stats *stats);
void sap_rel_close(const sap_run *x, bool ranks, sap_dist_stats *stats);
/* async/accum.c: sap_acc_alloc's buffer, not zeroed, for a copy to fill;
 * back with sap_acc_free. */
void *sap_acc_take(int64_t n, size_t elsize);
/* plan/keys.c: whether the key-level plans of a loop that makes about
 * acc accesses of a vector of len keys keep them in a dense array (they
 * touch a fair share of it) rather than a hash table: a fresh array per
 * plan costs its pages, 800 iterations over the rows of an 800 x 800
 * matrix planned in 26 ms, and 5000 examples of 20 features over a
 * million weights in 10 times a hash table's time. */
static inline bool sap_dense_keys(int64_t len, int64_t acc)
{
	return len <= 4 * acc + 4096;
}
/* Whether the n bytes at p are all zero. */
bool sap_all_zero(const char *p, size_t n);
/* Are n elements of type t at p all the identity of its sums (0, -0.0
 * for floats), as an accumulate buffer no update reached is? */
bool sap_acc_idle(const sap_numtype *t, const char *p, int64_t n);

/* async/exec.c: run a plan on its workers (x->reds set); order, when not NULL,
 * gets the equivalent serial order (p->n indices). */
/* Plan p's workers w0 .. w0 + x->T - 1 on this rank's threads (no locked
 * rounds); between(arg, r) runs on thread 0 after round r, when every
 * thread has finished it and before any starts the next, except thread t
 * when early[r * T + t] (early may be NULL; none when the loop has relaxed
 * vectors), and then folds the relaxed vectors along the ranks, counting
 * their bytes in moved.  Returns how many times a thread started a round
 * while between ran. */
int64_t sap_exec_plan_part(const sap_run *x, const sap_plan *p, int w0,
                           void (*between)(void *arg, int64_t round), void *arg,
                           const bool *early, sap_dist_stats *moved);
/* The same with no wait between rounds, for a body that writes no DDS:
 * each thread runs its worker's groups of every round in turn. */
void sap_exec_plan_loose(const sap_run *x, const sap_plan *p, int w0);
void sap_exec_plan(const sap_run *x, const sap_plan *p, const sap_locked *lk, int64_t *order);
/* async/exec.c: [lo, hi) in x->T contiguous chunks, chunk w on worker w. */
void sap_exec_chunks(const sap_run *x, int64_t lo, int64_t hi);
/* A rank's part [a, b) of [lo, hi), its threads being workers w0 ..
 * w0 + x->T - 1 of W: each thread the iterations of its worker's chunk
 * of [lo, hi) in W even chunks, as on one rank of W threads (the first
 * and last threads also those of [a, b) outside the rank's chunks). */
void sap_exec_chunks_of(const sap_run *x, int64_t a, int64_t b, int64_t lo, int64_t hi, int W,
                        int w0);
void sap_exec_owned(const sap_run *x, int64_t a, int64_t b, int64_t lo, int64_t hi, int W,
                    int w0);
/* Iterations idx[0 .. n), ascending, split into x->T runs of the list:
 * even runs, or, _of, at the boundaries of those chunks. */
void sap_exec_list_chunks(const sap_run *x, const int64_t *idx, int64_t n);
void sap_exec_list_chunks_of(const sap_run *x, const int64_t *idx, int64_t n, int64_t lo,
                             int64_t hi, int W, int w0);
/* Thread t the iterations idx[cut[t] .. cut[t + 1]), in that order. */
void sap_exec_lists(const sap_run *x, const int64_t *idx, int64_t *cut);
/* async/exec.c: on the calling thread: [lo, hi), or idx[0 .. n) in that order. */
void sap_exec_range(const sap_run *x, int64_t lo, int64_t hi, void *red);
void sap_exec_list(const sap_run *x, const int64_t *idx, int64_t n, void *red);
/* Iterations idx[0 .. n) in one body call, which a body over mini-batches
 * needs. */
void sap_exec_group(const sap_run *x, const int64_t *idx, int64_t n, void *red);

/* async/order.c: --dump-order and --run-order. */
void sap_order_dump(const sap_loop *L, const int64_t *idx, int64_t lo, int64_t n);
/* A relaxed loop's invocation on V workers in R rounds: round r's
 * worker w ran cnt[r * V + w] iterations, listed in idx round by round
 * and worker by worker. */
void sap_order_dump_rounds(const sap_loop *L, const int64_t *idx, const int64_t *cnt, int V,
                           int64_t R);
/* The order of the next invocation in the --run-order file, checked
 * against L, its invocation and [lo, hi); the caller frees it.  *V and
 * *R get its workers and rounds, and *cnt (to free, or NULL when one
 * worker ran it in one round) the counts as sap_order_dump_rounds takes
 * them. */
int64_t *sap_order_next(const sap_loop *L, int64_t lo, int64_t hi, int *V, int64_t *R,
                        int64_t **cnt);
/* A sync for invocation on P ranks of T threads (1 and 1 when it runs
 * serially): written to the dump, checked against the replayed file.
 * timed: 1 if its result depends on timing with several ranks (ssp), 2
 * with several workers (hybrid), else 0.  Its result depends on the
 * number of workers, and if sparse (rounding) on that of ranks. */
void sap_order_sync(const sap_loop *L, int P, int T, int timed, bool sparse);
void sap_order_end(void);
/* Open the --dump-order and --run-order files (sap_init; collective). */
void sap_order_start(void);

/* core/stats.c: every loop state registers when created; printed at the end
 * with --stats. */
void sap_stats_register(struct sap_loop_state *st);
/* The registered loops, newest first (linked by next). */
struct sap_loop_state *sap_stats_loops(void);
void sap_stats_print(void);

/* ======== sync/: the sync engine ========================================= */

/* ==== sync/sync.c: mini-batches ========================================== */

/* --stats of a sync for loop on this rank, over its invocations. */
typedef struct sap_sync_stats {
	struct sap_sync_stats *next;    /* every sync loop that ran */
	const sap_loop *loop;
	sap_syncmodel model;
	int64_t staleness;
	int workers;                    /* of the last invocation */
	int64_t steps;
	double compute_s, sync_s, sync_bytes;
	int64_t waits, max_stale;       /* ssp: clocks it waited at; the most it ran ahead */
	double wait_s;
	/* ssp: lead[d], the clocks this rank reached d clocks ahead of the
	 * slowest rank (before any wait), d < nlead. */
	int64_t *lead;
	int nlead;
	const char *whole_why;          /* the last invocation ran whole: why */
	double recon_s;                 /* sparse path: in the slice */
	int64_t rows;                   /* sparse path: rows sent to other ranks */
	/* sparse path: rows the rank's steps touched, of the rows there were
	 * (summed over steps); whether it said the slice only adds work. */
	int64_t touched, offered;
	bool warned;
	bool warned_steps;              /* said its steps cost more than their work */
} sap_sync_stats;
/* Each sync loop's, oldest first, after the last. */
sap_sync_stats *sap_sync_stats_all(void);

/* sync/sparse.c: the written vectors whose rows travel only where a step
 * touches them.  The rank that holds element k of v between steps (its
 * holder, or the rank of its even chunk). */
int sap_sync_owner(const sap_dvec *v, int64_t k);
typedef struct sap_sparse sap_sparse;
/* NULL when no written vector of spec is sparse. */
sap_sparse *sap_sparse_open(const sap_syncspec *spec, int T);
bool sap_sparse_has(const sap_sparse *sp, int k);
/* Thread t: the keys of the elements idx[0 .. n) of its mini-batch. */
void sap_sparse_recon(sap_sparse *sp, int t, const int64_t *idx, int64_t n);
/* Collective: the recorded rows current from their owners, their old
 * values kept. */
void sap_sparse_fetch(sap_sparse *sp, sap_sync_stats *st);
/* Thread t's recorded rows of written vector k into its copy. */
void sap_sparse_copy_in(const sap_sparse *sp, int t, int k, char *copy);
/* Collective: the step's changes (in the storage, and in copies[t * nwr
 * + k] for threads t >= 1 when copies is not NULL) merged at the owners,
 * from A workers; the storage of other rows back to the old values. */
void sap_sparse_merge(sap_sparse *sp, char **copies, int64_t A, sap_sync_stats *st);
/* One rank: thread t's part of the step's merge, the rows of its 1/T of
 * every sparse vector's keys, from every thread's copy (copies[u * nwr +
 * k], thread 0's too) against the storage, which kept the old values;
 * returns the distinct rows of its part the step touched.  The same
 * sums as sap_sparse_merge, with no fetch before the step and every
 * thread merging at once.  spread: the merged rows into every thread's
 * copy too, which so stay the storage's values. */
int64_t sap_sparse_local_merge(sap_sparse *sp, char **copies, int t, int64_t A, bool spread);
/* One rank: thread t's log of the rows it writes of written vector k
 * (NULL for one not sparse), which the body fills (sap_sync_mark) ... */
sap_wlog *sap_sparse_log(sap_sparse *sp, int t, int k);
/* ... and thread t's keys for the step's merge taken from its logs, which
 * are left empty; returns how many.  want false: the logs emptied only
 * (a merge of whole vectors follows). */
int64_t sap_sparse_logged(sap_sparse *sp, int t, bool want);
/* Collective: the owners hold the rows; other ranks give back pages. */
void sap_sparse_close(sap_sparse *sp);

/* sync/delta.c: collective.  Written vectors w[0 .. nv)'s step merged
 * into their storage from the rows the workers' terms changed against
 * the old values old[k], vector k's terms at term[k * T .. k * T + T)
 * (NULL for a worker without one), for each vector where sending those
 * rows moves fewer bytes than the whole vector: done[k] says where, the
 * others left as they were.  Every rank passes the same vectors and T. */
void sap_sync_delta(const sap_syncdds *const *w, char *const *term, const char *const *old, int nv,
                    int T, int64_t A, bool *done, sap_sync_stats *st);

/* sync/ssp.c: stale synchronous steps over ranks.  Each rank sends its change
 * of each clock (step) to every other rank and goes on; it waits before
 * clock c while some rank has not finished clock c - s - 1.  A rank's
 * vectors take the changes as they come; at the end every rank holds the
 * clocks merged in order, the same on every rank.  A[c]: the workers
 * that ran a batch in clock c. */
typedef struct sap_ssp sap_ssp;
/* Collective. */
sap_ssp *sap_ssp_open(const sap_syncspec *spec, int64_t steps, const int64_t *A);
void sap_ssp_wait(sap_ssp *q, int64_t clock);
/* This rank's change to written vector k in clock c (q frees it). */
void sap_ssp_push(sap_ssp *q, int64_t clock, int k, void *delta);
/* Collective: the vectors synchronized; q freed. */
void sap_ssp_close(sap_ssp *q, sap_sync_stats *st);

#endif
