/* Unit tests of checkpoint files (runtime/io/ckpt.c) on one rank: the
 * CRC32C, the newest two complete checkpoints kept, an incomplete one
 * never taken, and each kind of damage to the newest (a bit flipped, a
 * part truncated or deleted, a part of another checkpoint swapped in,
 * another program's checkpoint) found before use, with a message that
 * names the file, and the older checkpoint taken instead. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sap-int.h"
#include "suites.h"

static char warned[4096];

static void warn(const char *why)
{
	snprintf(warned + strlen(warned), sizeof warned - strlen(warned), "%s\n", why);
}

static char *fresh_dir(void)
{
	char *d = strdup("/tmp/sap-ckpt-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void rm_rf(const char *d)
{
	char *cmd = sap_strf("rm -rf '%s'", d);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static void save(const char *dir, uint64_t seq, uint64_t program, const char *text)
{
	sap_ckpt_head h = { .program = program, .seq = seq, .invocation = seq * 10, .op = 3,
	                    .threads = 2 };
	char *err = sap_ckpt_save(dir, &h, text, strlen(text));
	ck_assert_msg(err == NULL, "%s", err ? err : "");
}

/* The data of the checkpoint load takes, or NULL. */
static char *load(const char *dir, uint64_t program, uint64_t *seq)
{
	warned[0] = 0;
	sap_ckpt_head h;
	sap_ckpt_parts pt;
	if (!sap_ckpt_load(dir, program, &h, &pt, warn))
		return NULL;
	*seq = h.seq;
	ck_assert(h.op == 3 && h.invocation == h.seq * 10 && h.threads == 2);
	ck_assert(pt.n == 1 && pt.ranks == 1);
	char *s = sap_xmalloc(pt.len[0] + 1);
	memcpy(s, pt.data[0], pt.len[0]);
	s[pt.len[0]] = 0;
	sap_ckpt_parts_free(&pt);
	return s;
}

static bool exists(const char *dir, const char *name)
{
	char *p = sap_strf("%s/%s", dir, name);
	bool e = access(p, F_OK) == 0;
	free(p);
	return e;
}

START_TEST(crc32c)
{
	/* The check value of CRC-32C (RFC 3720, B.4). */
	ck_assert_uint_eq(sap_crc32c(0, "123456789", 9), 0xe3069283u);
	ck_assert_uint_eq(sap_crc32c(sap_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	ck_assert_uint_eq(sap_crc32c(0, "", 0), 0);
}
END_TEST

START_TEST(newest_two_kept)
{
	char *dir = fresh_dir();
	uint64_t seq = 0;
	ck_assert_ptr_null(load(dir, 7, &seq));
	save(dir, 1, 7, "one");
	save(dir, 2, 7, "two");
	save(dir, 3, 7, "three");
	ck_assert(!exists(dir, "ckpt-1") && exists(dir, "ckpt-2") && exists(dir, "ckpt-3"));
	ck_assert(!exists(dir, "ckpt-3/part-0.tmp"));
	char *s = load(dir, 7, &seq);
	ck_assert_str_eq(s, "three");
	ck_assert_int_eq(seq, 3);
	ck_assert_str_eq(warned, "");
	free(s);
	/* A checkpoint without COMPLETE, as a run killed while writing it
	 * leaves, is not one. */
	char *part = sap_strf("%s/ckpt-4", dir);
	ck_assert_int_eq(mkdir(part, 0755), 0);
	free(part);
	part = sap_strf("cp '%s/ckpt-3/part-0' '%s/ckpt-4/part-0'", dir, dir);
	ck_assert_int_eq(system(part), 0);
	free(part);
	s = load(dir, 7, &seq);
	ck_assert_int_eq(seq, 3);
	free(s);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* Damage done to checkpoint 3's part by cmd (%s: the directory), and the
 * words the warning must have. */
static const struct {
	const char *cmd, *words;
} damage[] = {
	{ "printf '\\377' | dd of=%s/ckpt-3/part-0 bs=1 seek=4099 conv=notrunc 2>/dev/null",
	  "part-0: its data are corrupt" },
	{ "printf '\\377' | dd of=%s/ckpt-3/part-0 bs=1 seek=20 conv=notrunc 2>/dev/null",
	  "part-0: its header is corrupt" },
	/* Between the header and the data, at 4096. */
	{ "printf '\\001' | dd of=%s/ckpt-3/part-0 bs=1 seek=1000 conv=notrunc 2>/dev/null",
	  "part-0: its header is corrupt" },
	{ "truncate -s 4098 %s/ckpt-3/part-0", "part-0: truncated" },
	{ "truncate -s 100 %s/ckpt-3/part-0", "part-0: truncated" },
	{ "truncate -s 20 %s/ckpt-3/part-0", "part-0: missing or truncated" },
	{ "rm %s/ckpt-3/part-0", "part-0: missing or truncated" },
	{ "cp %s/ckpt-2/part-0 %s/ckpt-3/part-0", "part-0: the part of another rank or checkpoint" },
	{ "rm %s/ckpt-3/COMPLETE", NULL },      /* no longer a checkpoint: no warning */
};

START_TEST(damage_found)
{
	char *dir = fresh_dir();
	save(dir, 2, 7, "two");
	save(dir, 3, 7, "three");
	char *cmd = sap_strf(damage[_i].cmd, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	uint64_t seq = 0;
	char *s = load(dir, 7, &seq);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "two");
	ck_assert_int_eq(seq, 2);
	if (damage[_i].words) {
		ck_assert_msg(strstr(warned, damage[_i].words) && strstr(warned, "ckpt-3/"),
		              "warned: %s", warned);
	} else {
		ck_assert_str_eq(warned, "");
	}
	free(s);
	rm_rf(dir);
	free(dir);
}
END_TEST

START_TEST(another_program)
{
	char *dir = fresh_dir();
	save(dir, 1, 7, "seven");
	uint64_t seq = 0;
	ck_assert_ptr_null(load(dir, 8, &seq));
	ck_assert_msg(strstr(warned, "1 newer checkpoint in") &&
	              strstr(warned, "of another program (or of another build of this one)"),
	              "%s", warned);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* A checkpoint that cannot be written says why, and leaves nothing that
 * load would take. */
START_TEST(write_fails)
{
	char *dir = fresh_dir();
	char *file = sap_strf("%s/file", dir);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	sap_ckpt_head h = { .program = 7, .seq = 1 };
	char *err = sap_ckpt_save(file, &h, "x", 1);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "cannot create") && strstr(err, file), "%s", err);
	free(err);
	uint64_t seq;
	ck_assert_ptr_null(load(file, 7, &seq));
	free(file);
	rm_rf(dir);
	free(dir);
}
END_TEST

Suite *ckpt_suite(void)
{
	Suite *s = suite_create("ckpt");
	TCase *tc = tcase_create("files");
	tcase_add_test(tc, crc32c);
	tcase_add_test(tc, newest_two_kept);
	tcase_add_loop_test(tc, damage_found, 0, (int)(sizeof damage / sizeof damage[0]));
	tcase_add_test(tc, another_program);
	tcase_add_test(tc, write_fails);
	suite_add_tcase(s, tc);
	return s;
}
