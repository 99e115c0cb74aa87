/* ckpt.c: checkpoint files, written so that a crash or a full disk at any
 * moment leaves the checkpoints there were, or those and one more that is
 * complete; never one that looks complete and is not.
 *
 * Checkpoint SEQ in directory D is the directory D/ckpt-SEQ: a part per
 * rank, part-R, and, once every part is on disk, the file COMPLETE.  Each
 * file is written as its .tmp, fsync'd, renamed, and its directory
 * fsync'd, as SCR and FTI do; so a part or a COMPLETE either is there
 * whole or is not.  A part starts with a header (magic, format version,
 * the program's hash, the operator and its invocation, ranks x threads,
 * the seed, the rank) and a CRC32C of the header and one of the payload, which
 * starts at BLOCK bytes into the file; COMPLETE
 * lists every part's payload CRC, which catches a part of another rank or
 * another checkpoint swapped in.  The newest two complete checkpoints are
 * kept.  Numbers are in the machine's byte order: a checkpoint resumes on
 * the kind of machine that wrote it. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sap-int.h"

static const char magic[8] = "SAPCKPT";
/* BLOCK: where a part's payload starts, so that it can go to the disk
 * from the state's buffer (aligned so) without the page cache. */
enum { VERSION = 6, KEEP = 2, BLOCK = 4096 };

/* ---- CRC32C (Castagnoli), the checksum of iSCSI and ext4 ---- */

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc_table_run(uint32_t crc, const unsigned char *b, size_t n)
{
	if (!crc_table[1])
		crc_init();
	while (n--)
		crc = crc_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>

/* SSE4.2 computes this very CRC, 8 bytes an instruction: a checkpoint's
 * hundreds of megabytes then cost the run milliseconds, where a table
 * took a byte a cycle. */
__attribute__((target("sse4.2")))
static uint32_t crc_sse42(uint32_t crc, const unsigned char *b, size_t n)
{
	uint64_t c = crc;
	for (; n >= 8; n -= 8, b += 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		c = _mm_crc32_u64(c, w);
	}
	crc = (uint32_t)c;
	for (; n; n--)
		crc = _mm_crc32_u8(crc, *b++);
	return crc;
}

static bool have_sse42(void)
{
	static int have = -1;
	if (have < 0)
		have = __builtin_cpu_supports("sse4.2") != 0;
	return have;
}
#endif

uint32_t sap_crc32c(uint32_t crc, const void *p, size_t n)
{
	crc = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
	if (have_sse42())
		return ~crc_sse42(crc, p, n);
#endif
	return ~crc_table_run(crc, p, n);
}

/* ---- files written whole or not at all ---- */

/* The header of a part as it is on disk. */
typedef struct disk_head {
	char magic[8];
	uint32_t version;
	uint32_t rank;
	uint64_t program;
	uint64_t seq;
	uint64_t invocation;
	uint32_t op;
	uint32_t ranks;
	uint32_t threads;
	uint32_t data_crc;
	uint64_t data_len;
	uint32_t seed;          /* --seed */
	uint32_t head_crc;      /* of everything above */
} disk_head;
_Static_assert(sizeof(disk_head) <= BLOCK, "a part's header fits its block");

static char *fail_msg(const char *what, const char *path)
{
	return sap_strf("%s '%s': %s", what, path, strerror(errno ? errno : EIO));
}

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

static bool sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return false;
	bool ok = fsync(fd) == 0;
	return close(fd) == 0 && ok;
}

/* n bytes of p, at fd's offset (BLOCK-aligned), without the page cache
 * where the file system allows it: a write into the page cache costs the
 * CPU the run is using (5 ms for 11 MB here), one by DMA a tenth of that.
 * The whole blocks go direct, the rest buffered; a file system or device
 * that refuses O_DIRECT gets them all buffered. */
static bool write_direct(int fd, const char *p, size_t n)
{
	size_t bulk = (uintptr_t)p % BLOCK == 0 ? n / BLOCK * BLOCK : 0;
	int fl = bulk ? fcntl(fd, F_GETFL) : -1;
	if (fl != -1 && fcntl(fd, F_SETFL, fl | O_DIRECT) == 0) {
		size_t done = 0;
		while (done < bulk) {
			ssize_t w = write(fd, p + done, bulk - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EINVAL)
				break;          /* not here after all: buffered */
			if (w <= 0) {
				fcntl(fd, F_SETFL, fl);
				return false;
			}
			done += (size_t)w;
			if (done % BLOCK)
				break;          /* a short write off a block: buffered */
		}
		if (fcntl(fd, F_SETFL, fl) != 0)
			return false;
		p += done;
		n -= done;
	}
	return write_all(fd, p, n);
}

/* path as a, b (NULL for none) one after the other: written to path.tmp,
 * flushed to the disk, renamed, and the rename flushed.  With at_block, a
 * takes the file's first BLOCK bytes (zeros after it) and b goes direct.
 * NULL, or what went wrong; a failed write leaves no path. */
static char *write_file(const char *dir, const char *name, const void *a, size_t an,
                        const void *b, size_t bn, bool at_block)
{
	char *path = sap_strf("%s/%s", dir, name), *tmp = sap_strf("%s.tmp", path);
	char *err = NULL;
	char head[BLOCK];
	if (at_block) {
		memset(head, 0, sizeof head);
		memcpy(head, a, an);
		a = head;
		an = sizeof head;
	}
	errno = 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		err = fail_msg("cannot create", tmp);
	} else {
		if (!write_all(fd, a, an) ||
		    (b && !(at_block ? write_direct(fd, b, bn) : write_all(fd, b, bn))))
			err = fail_msg("cannot write", tmp);
		else if (fsync(fd) != 0)
			err = fail_msg("cannot flush", tmp);
		if (close(fd) != 0 && !err)
			err = fail_msg("cannot close", tmp);
		if (!err && rename(tmp, path) != 0)
			err = fail_msg("cannot rename", tmp);
		if (!err && !sync_dir(dir))
			err = fail_msg("cannot flush the directory", dir);
		if (err)
			unlink(tmp);
	}
	free(path);
	free(tmp);
	return err;
}

static bool read_file(const char *path, char **out, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t cap = 1 << 16, len = 0;
	char *buf = sap_xmalloc(cap);
	size_t got;
	while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap)
			buf = sap_xrealloc(buf, cap *= 2);
	}
	bool ok = !ferror(f);
	fclose(f);
	if (!ok) {
		free(buf);
		return false;
	}
	*out = buf;
	*n = len;
	return true;
}

/* ---- checkpoints ---- */

static char *ckpt_dir(const char *dir, uint64_t seq)
{
	return sap_strf("%s/ckpt-%llu", dir, (unsigned long long)seq);
}

/* Whether name, in dir, is a checkpoint: its number, and whether it is
 * complete.  Only a name ckpt_dir could have made counts: another (a
 * sign, a leading zero, a number past 2^64 - 2, which sscanf's %llu would
 * take and wrap) is not ours, and the next number must not wrap to 0. */
static bool ckpt_entry(const char *dir, const char *name, uint64_t *seq, bool *done)
{
	if (strncmp(name, "ckpt-", 5))
		return false;
	const char *d = name + 5;
	if (!*d || (d[0] == '0' && d[1]))
		return false;
	uint64_t s = 0;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || s > (UINT64_MAX - 1 - (uint64_t)(*d - '0')) / 10)
			return false;
		s = s * 10 + (uint64_t)(*d - '0');
	}
	char *c = sap_strf("%s/%s/COMPLETE", dir, name);
	*done = access(c, F_OK) == 0;
	free(c);
	*seq = s;
	return true;
}

static bool ckpt_program(const char *dir, const char *name, uint64_t *program);

/* ---- runs ---- */

/* A checkpoint's PROGRAM file: the program and the run that made it, and
 * the run's experiment (sap_ckpt_key: its params, seed and workers), so
 * that runs of one program sharing a dir tell theirs apart. */
static const char owner_magic[8] = "SAPOWN3\n";
typedef struct owner_file {
	char magic[8];
	uint64_t program, run;
	uint64_t key;           /* sap_ckpt_key(true) */
	uint64_t pkey;          /* sap_ckpt_key(false): without the workers */
	uint32_t crc;           /* CRC32C of the bytes before it */
	uint32_t pad;
} owner_file;

/* This run (on rank 0), and its lock: a file .run-ID in the dir, made
 * locked (flock) and held while the run lives.  A run prunes another's
 * checkpoints only if that run was dead when this one started and ran
 * the same experiment, or ended: a run killed beside it, started before
 * or after, or one of other params, seed or workers, keeps its own
 * (helpers U23, U24, U25: sweeps, seed replicas and scaling studies
 * sharing a dir lost the killed runs' checkpoints, whose --resume then
 * took another run's). */
static uint64_t my_run, my_first;
static int run_fd = -1;
static char *run_path;

/* Of the runs whose checkpoints the dir held when this one started
 * (runs_scan): those dead then, and those that had ended. */
static bool scanned;
static uint64_t *dead, *ended;
static int ndead, nended;

static char *run_file(const char *dir, uint64_t run)
{
	return sap_strf("%s/.run-%016llx", dir, (unsigned long long)run);
}

/* Does a live run hold run's lock?  (Its file stays: the pruning that
 * removes its last checkpoint removes it.) */
static bool run_alive(const char *dir, uint64_t run)
{
	if (run == my_run)
		return true;
	char *p = run_file(dir, run);
	int fd = open(p, O_RDWR | O_CLOEXEC);
	bool alive = false;
	if (fd >= 0) {
		alive = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
		close(fd);
	}
	free(p);
	return alive;
}

static bool in_set(const uint64_t *set, int n, uint64_t x)
{
	for (int i = 0; i < n; i++)
		if (set[i] == x)
			return true;
	return false;
}

static void set_add(uint64_t **set, int *n, uint64_t x)
{
	if (in_set(*set, *n, x))
		return;
	*set = sap_xrealloc(*set, (size_t)(*n + 1) * sizeof **set);
	(*set)[(*n)++] = x;
}

static int ckpt_owner_key(const char *dir, const char *name, uint64_t *program, uint64_t *run,
                          uint64_t *key);
static int ckpt_owner_keys(const char *dir, const char *name, uint64_t *program, uint64_t *run,
                           uint64_t *key, uint64_t *pkey);

/* The runs of dir's checkpoints as this run starts: dead ones, and
 * ended ones (a checkpoint with ENDED). */
static void runs_scan(const char *dir)
{
	if (scanned)
		return;
	scanned = true;
	uint64_t *live = NULL;
	int nlive = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t s;
	bool done;
	while (d && (e = readdir(d))) {
		uint64_t p, run, key;
		if (!ckpt_entry(dir, e->d_name, &s, &done) ||
		    ckpt_owner_key(dir, e->d_name, &p, &run, &key) != 2 || run == my_run)
			continue;
		char *f = sap_strf("%s/%s/ENDED", dir, e->d_name);
		if (access(f, F_OK) == 0)
			set_add(&ended, &nended, run);
		free(f);
		if (!in_set(dead, ndead, run) && !in_set(live, nlive, run)) {
			if (run_alive(dir, run))
				set_add(&live, &nlive, run);
			else
				set_add(&dead, &ndead, run);
		}
	}
	if (d)
		closedir(d);
	free(live);
}

static void run_start(const char *dir)
{
	if (my_run)
		return;
	runs_scan(dir);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
	             (uint64_t)getpid() << 40;
	x ^= x >> 33;           /* MurmurHash3's fmix64 */
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	my_run = x ? x : 1;
	/* Locked before it has its name: a file of that name is locked by
	 * a live run, or by none. */
	char *tmp = sap_strf("%s/.run-new-%016llx", dir, (unsigned long long)my_run);
	run_path = run_file(dir, my_run);
	run_fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (run_fd >= 0 && (flock(run_fd, LOCK_EX | LOCK_NB) != 0 || rename(tmp, run_path) != 0)) {
		close(run_fd);
		run_fd = -1;
		unlink(tmp);
	}
	free(tmp);
}

void sap_ckpt_run_end(void)
{
	if (run_fd < 0)
		return;
	unlink(run_path);
	close(run_fd);
	run_fd = -1;
}

/* Who wrote checkpoint name of dir: 2 when its PROGRAM file says the
 * program, the run and its key; 1 when only its part-0's header says the
 * program; 0 when neither reads as one. */
static int ckpt_owner(const char *dir, const char *name, uint64_t *program, uint64_t *run)
{
	uint64_t key;
	return ckpt_owner_key(dir, name, program, run, &key);
}

static int ckpt_owner_key(const char *dir, const char *name, uint64_t *program, uint64_t *run,
                          uint64_t *key)
{
	uint64_t pkey;
	return ckpt_owner_keys(dir, name, program, run, key, &pkey);
}

static int ckpt_owner_keys(const char *dir, const char *name, uint64_t *program, uint64_t *run,
                           uint64_t *key, uint64_t *pkey)
{
	*key = *pkey = *run = 0;
	char *owner = sap_strf("%s/%s/PROGRAM", dir, name);
	FILE *o = fopen(owner, "rb");
	free(owner);
	owner_file of;
	if (o) {
		bool got = fread(&of, sizeof of, 1, o) == 1 &&
		           !memcmp(of.magic, owner_magic, sizeof of.magic) &&
		           of.crc == sap_crc32c(0, &of, offsetof(owner_file, crc));
		fclose(o);
		if (got) {
			*program = of.program;
			*run = of.run;
			*key = of.key;
			*pkey = of.pkey;
			return 2;
		}
	}
	return ckpt_program(dir, name, program);
}

/* May this run prune checkpoint name of dir, program's: its own, or of a
 * run dead when this one started that ran the same experiment or ended.
 * Not one whose run cannot be told (a PROGRAM file damaged). */
static bool ckpt_prunable(const char *dir, const char *name, uint64_t program)
{
	uint64_t p, run, key, seq;
	bool done;
	int own = ckpt_owner_key(dir, name, &p, &run, &key);
	if (!own || p != program)
		return false;
	/* Whose, untold: this run's if numbered as its own (its directory
	 * made without a PROGRAM file, when the rename failed), or any
	 * before a run reserves (a caller that does not). */
	if (own == 1)
		return !my_run || (ckpt_entry(dir, name, &seq, &done) && seq >= my_first);
	runs_scan(dir);
	return run == my_run || (in_set(dead, ndead, run) &&
	                         (key == sap_ckpt_key(true) || in_set(ended, nended, run)));
}

/* Which program wrote checkpoint name of dir: its part-0's header says,
 * if it reads as one (the PROGRAM file, ckpt_owner). */
static bool ckpt_program(const char *dir, const char *name, uint64_t *program)
{
	char *path = sap_strf("%s/%s/part-0", dir, name);
	FILE *f = fopen(path, "rb");
	free(path);
	disk_head dh;
	bool ok = f && fread(&dh, sizeof dh, 1, f) == 1 && !memcmp(dh.magic, magic, sizeof magic) &&
	          dh.version == VERSION &&
	          dh.head_crc == sap_crc32c(0, &dh, offsetof(disk_head, head_crc));
	if (f)
		fclose(f);
	if (ok)
		*program = dh.program;
	return ok;
}

/* Is checkpoint name of dir program's (or any, when program is NULL)? */
static bool ckpt_of(const char *dir, const char *name, const uint64_t *program)
{
	uint64_t p, run;
	return !program || (ckpt_owner(dir, name, &p, &run) && p == *program);
}

/* Is it program's, or is there no telling (a part-0 damaged), so that
 * --resume tries it and says what is wrong with it?  (Not asked whether
 * its run lives: a rank mpiexec killed may still be going when the next
 * run starts.) */
static bool ckpt_maybe_of(const char *dir, const char *name, uint64_t program)
{
	uint64_t p, run;
	return !ckpt_owner(dir, name, &p, &run) || p == program;
}

static int complete_of(const char *dir, const uint64_t *program, bool maybe, uint64_t **seqs);

/* The checkpoints in dir that have a COMPLETE (of program, if not NULL),
 * newest first, into *seqs; how many. */
static int complete_seqs(const char *dir, const uint64_t *program, uint64_t **seqs)
{
	return complete_of(dir, program, false, seqs);
}

/* complete_seqs, but when maybe, of program or of no telling whose
 * (ckpt_maybe_of). */
static int complete_of(const char *dir, const uint64_t *program, bool maybe, uint64_t **seqs)
{
	*seqs = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0, cap = 0;
	struct dirent *e;
	uint64_t s;
	bool done;
	while ((e = readdir(d))) {
		if (!ckpt_entry(dir, e->d_name, &s, &done) || !done ||
		    !(maybe ? ckpt_maybe_of(dir, e->d_name, *program) : ckpt_of(dir, e->d_name, program)))
			continue;
		if (n == cap)
			*seqs = sap_xrealloc(*seqs, (size_t)(cap = cap ? 2 * cap : 8) * sizeof **seqs);
		(*seqs)[n++] = s;
	}
	closedir(d);
	for (int i = 1; i < n; i++)     /* newest first */
		for (int j = i; j > 0 && (*seqs)[j] > (*seqs)[j - 1]; j--) {
			uint64_t t = (*seqs)[j];
			(*seqs)[j] = (*seqs)[j - 1];
			(*seqs)[j - 1] = t;
		}
	return n;
}

static void remove_ckpt(const char *dir, const char *name)
{
	char *path = sap_strf("%s/%s", dir, name);
	/* COMPLETE first: a removal cut short leaves no checkpoint that
	 * says it is complete with parts gone. */
	char *c = sap_strf("%s/COMPLETE", path);
	unlink(c);
	free(c);
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				char *f = sap_strf("%s/%s", path, e->d_name);
				unlink(f);
				free(f);
			}
		closedir(d);
	}
	rmdir(path);
	free(path);
}

/* All but the KEEP newest complete checkpoints of program, and every
 * incomplete one older than its newest complete (but another program's),
 * go.  Another program's in the same dir stay (helper CK: a second
 * program's checkpoints removed a killed one's, which --resume then
 * did not find). */
static void prune(const char *dir, uint64_t program)
{
	uint64_t *seqs;
	int n = complete_of(dir, &program, true, &seqs), k = 0;
	/* Not those of another live run of program: the newest KEEP of
	 * this run's and the dead runs'. */
	for (int i = 0; i < n; i++) {
		char *name = sap_strf("ckpt-%llu", (unsigned long long)seqs[i]);
		if (ckpt_prunable(dir, name, program))
			seqs[k++] = seqs[i];
		free(name);
	}
	n = k;
	if (n == 0) {
		free(seqs);
		return;
	}
	uint64_t oldest_kept = seqs[n < KEEP ? n - 1 : KEEP - 1], newest = seqs[0];
	free(seqs);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char **gone = NULL;
	int ngone = 0;
	uint64_t s;
	bool done;
	while ((e = readdir(d))) {
		if (!ckpt_entry(dir, e->d_name, &s, &done))
			continue;
		uint64_t p, run;
		int known = ckpt_owner(dir, e->d_name, &p, &run);
		bool ours = known && ckpt_prunable(dir, e->d_name, program);
		if ((done && s < oldest_kept && ours) || (!done && s < newest && (!known || ours))) {
			gone = sap_xrealloc(gone, (size_t)(ngone + 1) * sizeof *gone);
			gone[ngone++] = sap_strf("%s", e->d_name);
		}
	}
	closedir(d);
	for (int i = 0; i < ngone; i++) {
		remove_ckpt(dir, gone[i]);
		free(gone[i]);
	}
	free(gone);
	/* The lock files of dead runs none of whose checkpoints are left. */
	uint64_t *left = NULL;
	int nleft = 0;
	d = ndead ? opendir(dir) : NULL;
	while (d && (e = readdir(d))) {
		uint64_t p, run;
		if (ckpt_entry(dir, e->d_name, &s, &done) && ckpt_owner(dir, e->d_name, &p, &run) == 2)
			set_add(&left, &nleft, run);
	}
	if (d)
		closedir(d);
	for (int i = 0; i < ndead; i++)
		if (!in_set(left, nleft, dead[i]) && !run_alive(dir, dead[i])) {
			char *f = run_file(dir, dead[i]);
			unlink(f);
			free(f);
		}
	free(left);
	sync_dir(dir);
}

void sap_ckpt_ended(const char *dir, uint64_t seq)
{
	char *path = sap_strf("%s/ckpt-%llu/ENDED", dir, (unsigned long long)seq);
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
	free(path);
}

bool sap_ckpt_is_ended(const char *dir, uint64_t seq)
{
	char *path = sap_strf("%s/ckpt-%llu/ENDED", dir, (unsigned long long)seq);
	bool e = access(path, F_OK) == 0;
	free(path);
	return e;
}

uint64_t sap_ckpt_newest(const char *dir, uint64_t program)
{
	/* Once this run has checkpoints, its own; before, one its
	 * checkpoints would replace (ckpt_prunable). */
	uint64_t *seqs, s = 0;
	int n = complete_of(dir, &program, true, &seqs);
	for (int i = 0; i < n && !s; i++) {
		char *name = sap_strf("ckpt-%llu", (unsigned long long)seqs[i]);
		uint64_t p, run;
		int own = ckpt_owner(dir, name, &p, &run);
		if (my_run ? own == 2 && p == program && run == my_run :
		             own == 2 && ckpt_prunable(dir, name, program))
			s = seqs[i];
		free(name);
	}
	free(seqs);
	return s;
}

/* Remove the directory path and the PROGRAM file in it. */
static void remove_reserved(const char *path)
{
	char *f = sap_strf("%s/PROGRAM", path);
	unlink(f);
	free(f);
	rmdir(path);
}

uint64_t sap_ckpt_reserve(const char *dir, uint64_t seq, uint64_t program)
{
	/* Two runs sharing dir pick the same next number: each would write
	 * into the other's checkpoint, and prune it as a killed run's
	 * leftover (helper U21).  A checkpoint comes into being whole, its
	 * PROGRAM file in it, by renaming a directory of this run's onto its
	 * name, which fails where that name holds another's. */
	if (sap_comm_rank() == 0) {
		mkdir(dir, 0755);
		run_start(dir);
		owner_file of = { .program = program, .run = my_run, .key = sap_ckpt_key(true),
		                  .pkey = sap_ckpt_key(false) };
		memcpy(of.magic, owner_magic, sizeof of.magic);
		of.crc = sap_crc32c(0, &of, offsetof(owner_file, crc));
		char *tmp = sap_strf("%s/.ckpt-new-%016llx", dir, (unsigned long long)my_run);
		for (int tries = 0; tries < 4096; tries++, seq++) {
			remove_reserved(tmp);
			char *owner = sap_strf("%s/PROGRAM", tmp);
			FILE *f = mkdir(tmp, 0755) == 0 ? fopen(owner, "wb") : NULL;
			free(owner);
			bool ok = f && fwrite(&of, sizeof of, 1, f) == 1;
			if (f && fclose(f) != 0)
				ok = false;
			if (!ok)
				break;  /* writing the parts says what fails */
			char *c = ckpt_dir(dir, seq);
			errno = 0;
			int r = rename(tmp, c);
			free(c);
			if (r == 0)
				break;
			if (errno != EEXIST && errno != ENOTEMPTY)
				break;
		}
		remove_reserved(tmp);
		free(tmp);
		my_first = my_first ? my_first : seq;
	}
	sap_comm_bcast(&seq, 1, sizeof seq, 0);
	return seq;
}

uint64_t sap_ckpt_last_seq(const char *dir)
{
	uint64_t last = 0;
	if (sap_comm_rank() == 0) {
		DIR *d = opendir(dir);
		struct dirent *e;
		uint64_t s;
		bool done;
		while (d && (e = readdir(d)))
			if (ckpt_entry(dir, e->d_name, &s, &done) && s > last)
				last = s;
		if (d)
			closedir(d);
	}
	sap_comm_bcast(&last, 1, sizeof last, 0);
	return last;
}

char *sap_ckpt_write_part(const char *dir, const sap_ckpt_head *h, const void *data, size_t n,
                          uint32_t *crc)
{
	int P = sap_comm_size(), me = sap_comm_rank();
	char *cdir = ckpt_dir(dir, h->seq), *err = NULL;
	errno = 0;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		err = fail_msg("cannot create", dir);
	errno = 0;
	if (!err && mkdir(cdir, 0755) != 0 && errno != EEXIST)
		err = fail_msg("cannot create", cdir);
	disk_head dh;
	memset(&dh, 0, sizeof dh);
	memcpy(dh.magic, magic, sizeof dh.magic);
	dh.version = VERSION;
	dh.rank = (uint32_t)me;
	dh.program = h->program;
	dh.seq = h->seq;
	dh.invocation = h->invocation;
	dh.op = h->op;
	dh.ranks = (uint32_t)P;
	dh.threads = h->threads;
	dh.seed = h->seed;
	dh.data_crc = sap_crc32c(0, data, n);
	dh.data_len = n;
	dh.head_crc = sap_crc32c(0, &dh, offsetof(disk_head, head_crc));
	*crc = dh.data_crc;
	if (!err) {
		char *name = sap_strf("part-%d", me);
		err = write_file(cdir, name, &dh, sizeof dh, data, n, true);
		free(name);
	}
	free(cdir);
	return err;
}

bool sap_ckpt_agree(bool ok, uint32_t crc, uint32_t *crcs, int *flag)
{
	int v[2] = { !ok, *flag };
	sap_comm_allreduce(v, 2, SAP_COMM_INT, SAP_COMM_MAX);
	*flag = v[1];
	sap_comm_allgather(&crc, crcs, 1, sizeof *crcs);
	return v[0] == 0;
}

char *sap_ckpt_mark(const char *dir, const sap_ckpt_head *h, const uint32_t *crcs, int P)
{
	char *cdir = ckpt_dir(dir, h->seq);
	uint64_t top[2] = { h->seq, (uint64_t)P };
	char *err = write_file(cdir, "COMPLETE", top, sizeof top, crcs, (size_t)P * sizeof *crcs,
	                       false);
	if (!err)
		prune(dir, h->program);
	free(cdir);
	return err;
}

void sap_ckpt_discard(const char *dir, uint64_t seq)
{
	char *cdir = ckpt_dir(dir, seq);
	char *part = sap_strf("%s/part-%d", cdir, sap_comm_rank());
	unlink(part);
	if (sap_comm_rank() == 0) {
		char *owner = sap_strf("%s/PROGRAM", cdir);
		unlink(owner);
		free(owner);
	}
	/* Another rank's part still there keeps it, until that rank's turn. */
	rmdir(cdir);
	free(part);
	free(cdir);
}

char *sap_ckpt_commit(const char *dir, const sap_ckpt_head *h, char *err, uint32_t crc)
{
	int P = sap_comm_size(), me = sap_comm_rank();
	/* COMPLETE only when every part is on disk; every rank learns of a
	 * failure, so that all return it. */
	uint32_t *crcs = sap_xmalloc((size_t)P * sizeof *crcs);
	int unused = 0;
	int bad = !sap_ckpt_agree(err == NULL, crc, crcs, &unused);
	if (!bad && me == 0) {
		err = sap_ckpt_mark(dir, h, crcs, P);
		bad = err != NULL;
	}
	sap_comm_bcast(&bad, 1, sizeof bad, 0);
	if (bad)
		sap_ckpt_discard(dir, h->seq);
	if (bad && !err)
		err = sap_strf("checkpoint %llu in '%s' not written: another rank failed",
		               (unsigned long long)h->seq, dir);
	free(crcs);
	return err;
}

char *sap_ckpt_save(const char *dir, const sap_ckpt_head *h, const void *data, size_t n)
{
	uint32_t crc;
	char *err = sap_ckpt_write_part(dir, h, data, n, &crc);
	return sap_ckpt_commit(dir, h, err, crc);
}

/* The ranks that wrote checkpoint seq, from its COMPLETE, and the CRC
 * list after them; 0 if it cannot be read. */
static int complete_ranks(const char *cpath, char **comp, size_t *cn)
{
	uint64_t top[2];
	if (!read_file(cpath, comp, cn) || *cn < sizeof top)
		return 0;
	memcpy(top, *comp, sizeof top);
	if (top[1] < 1 || top[1] > 1 << 20 || *cn != sizeof top + top[1] * sizeof(uint32_t))
		return 0;
	return (int)top[1];
}

static bool zeros(const char *p, size_t n)
{
	while (n && !*p)
		p++, n--;
	return n == 0;
}

/* Part r of checkpoint seq, written by P ranks, if whole and of this
 * program and run; else why not, in *why. */
static bool load_part(const char *dir, uint64_t seq, uint64_t program, int r, int P,
                      sap_ckpt_head *h, char **data, size_t *n, char **why)
{
	char *cdir = ckpt_dir(dir, seq);
	char *cpath = sap_strf("%s/COMPLETE", cdir), *ppath = sap_strf("%s/part-%d", cdir, r);
	char *comp = NULL, *part = NULL;
	size_t cn = 0, pn = 0;
	disk_head dh;
	bool ok = false;
	if (complete_ranks(cpath, &comp, &cn) != P) {
		*why = sap_strf("%s: unreadable", cpath);
	} else if (!read_file(ppath, &part, &pn) || pn < sizeof dh) {
		*why = sap_strf("%s: missing or truncated", ppath);
	} else {
		memcpy(&dh, part, sizeof dh);
		uint32_t want;
		memcpy(&want, comp + 2 * sizeof(uint64_t) + (size_t)r * sizeof want, sizeof want);
		if (memcmp(dh.magic, magic, sizeof magic))
			*why = sap_strf("%s: not a checkpoint part (it does not start with %s): "
			                "overwritten or corrupt", ppath, magic);
		else if (dh.version != VERSION)
			*why = sap_strf("%s: a checkpoint of another version of sapc (format %u, this "
			                "one reads %u)", ppath, (unsigned)dh.version, (unsigned)VERSION);
		else if (dh.head_crc != sap_crc32c(0, &dh, offsetof(disk_head, head_crc)) ||
		         !zeros(part + sizeof dh, (pn < BLOCK ? pn : BLOCK) - sizeof dh))
			*why = sap_strf("%s: its header is corrupt (CRC32C)", ppath);
		else if (dh.program != program)
			*why = sap_strf("%s: written by another program (or another build of it)", ppath);
		else if (dh.rank != (uint32_t)r || dh.ranks != (uint32_t)P || dh.seq != seq)
			*why = sap_strf("%s: the part of another rank or checkpoint", ppath);
		else if (pn < BLOCK || dh.data_len != pn - BLOCK)
			*why = sap_strf("%s: truncated", ppath);
		else if (dh.data_crc != sap_crc32c(0, part + BLOCK, pn - BLOCK))
			*why = sap_strf("%s: its data are corrupt (CRC32C)", ppath);
		else if (dh.data_crc != want)
			*why = sap_strf("%s: not the part %s lists", ppath, cpath);
		else
			ok = true;
	}
	if (ok) {
		h->program = dh.program;
		h->seq = dh.seq;
		h->op = dh.op;
		h->invocation = dh.invocation;
		h->threads = dh.threads;
		h->seed = dh.seed;
		*n = pn - BLOCK;
		*data = sap_xmalloc(*n ? *n : 1);
		memcpy(*data, part + BLOCK, *n);
	}
	free(comp);
	free(part);
	free(cpath);
	free(ppath);
	free(cdir);
	return ok;
}

/* The parts this rank reads of checkpoint seq: its own when it was
 * written by as many ranks as there are now, else every one. */
static bool load_parts(const char *dir, uint64_t seq, uint64_t program, sap_ckpt_head *h,
                       sap_ckpt_parts *pt, void (*warn)(const char *why))
{
	int P = sap_comm_size(), me = sap_comm_rank();
	/* Empty first: the caller frees *pt whatever becomes of it. */
	*pt = (sap_ckpt_parts){ 0 };
	char *cdir = ckpt_dir(dir, seq), *cpath = sap_strf("%s/COMPLETE", cdir), *comp = NULL;
	size_t cn = 0;
	int was = complete_ranks(cpath, &comp, &cn);
	free(comp);
	free(cdir);
	if (!was) {
		char *why = sap_strf("%s: unreadable", cpath);
		if (warn)
			warn(why);
		free(why);
		free(cpath);
		return false;
	}
	free(cpath);
	pt->ranks = was;
	pt->n = was == P ? 1 : was;
	pt->data = sap_xcalloc((size_t)pt->n, sizeof *pt->data);
	pt->len = sap_xcalloc((size_t)pt->n, sizeof *pt->len);
	bool ok = true;
	for (int i = 0; i < pt->n && ok; i++) {
		char *why = NULL;
		ok = load_part(dir, seq, program, was == P ? me : i, was, h, &pt->data[i], &pt->len[i],
		               &why);
		if (!ok && warn)
			warn(why);
		free(why);
	}
	return ok;
}

void sap_ckpt_parts_free(sap_ckpt_parts *pt)
{
	for (int i = 0; i < pt->n; i++)
		free(pt->data[i]);
	free(pt->data);
	free(pt->len);
	*pt = (sap_ckpt_parts){ 0 };
}

bool sap_ckpt_load(const char *dir, uint64_t program, sap_ckpt_head *h, sap_ckpt_parts *pt,
                   void (*warn)(const char *why))
{
	uint64_t *seqs, top = 0;
	int k = complete_of(dir, &program, true, &seqs);
	if (k > 0)
		top = seqs[0];
	/* Those of this run's experiment first (its params, seed and
	 * workers), newest first; then those whose run cannot be told (to
	 * say what is damaged) and other experiments' that did not end,
	 * which a run resumed with new params (more passes) continues.
	 * Never another experiment's that ended: a sweep's finished run
	 * was resumed as a killed one with other params (helpers U23, U25). */
	if (sap_comm_rank() == 0 && k > 0) {
		runs_scan(dir);
		uint64_t want = sap_ckpt_key(true), pwant = sap_ckpt_key(false);
		uint64_t *order = sap_xmalloc((size_t)k * sizeof *order);
		int m = 0;
		/* 0: this experiment; 1: its params and seed on other
		 * workers (resumed on another layout); 2: the rest. */
		for (int pass = 0; pass < 3; pass++)
			for (int i = 0; i < k; i++) {
				char *name = sap_strf("ckpt-%llu", (unsigned long long)seqs[i]);
				uint64_t p, run, key, pkey;
				int own = ckpt_owner_keys(dir, name, &p, &run, &key, &pkey);
				free(name);
				int cls = own == 2 && key == want ? 0 : own == 2 && pkey == pwant ? 1 : 2;
				if (cls == pass && (cls == 0 || own != 2 || !in_set(ended, nended, run)))
					order[m++] = seqs[i];
			}
		free(seqs);
		seqs = order;
		k = m;
	}
	/* Those of other programs sharing dir, or of this one built anew,
	 * newer than this one's: one line (helper U21: a line each of every
	 * --resume in a shared dir). */
	if (sap_comm_rank() == 0 && warn) {
		uint64_t *all;
		int na = complete_seqs(dir, NULL, &all), newer = 0;
		for (int i = 0; i < na; i++) {
			char *name = sap_strf("ckpt-%llu", (unsigned long long)all[i]);
			newer += all[i] > top && !ckpt_maybe_of(dir, name, program);
			free(name);
		}
		free(all);
		if (newer) {
			char *why = sap_strf("%d newer checkpoint%s in '%s' of another program (or of "
			                     "another build of this one)", newer, newer == 1 ? "" : "s",
			                     dir);
			warn(why);
			free(why);
		}
	}
	/* Every rank takes the same checkpoint: the newest whose parts are
	 * all good. */
	sap_comm_bcast(&k, 1, sizeof k, 0);
	if (k > 0 && sap_comm_rank() != 0)
		seqs = sap_xrealloc(seqs, (size_t)k * sizeof *seqs);
	if (k > 0)
		sap_comm_bcast(seqs, k, sizeof *seqs, 0);
	bool found = false;
	for (int i = 0; i < k && !found; i++) {
		int good = load_parts(dir, seqs[i], program, h, pt, warn);
		sap_comm_allreduce(&good, 1, SAP_COMM_INT, SAP_COMM_MIN);
		if (good)
			found = true;
		else
			sap_ckpt_parts_free(pt);
	}
	free(seqs);
	return found;
}
