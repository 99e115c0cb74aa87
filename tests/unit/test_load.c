/* Unit tests of loading and saving text files (runtime/io/load.c, save.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sap.h"
#include "suites.h"
#include "capture.h"

/* A fresh temporary file holding text; the caller frees the name. */
static char *tmp_with(const char *text)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/sap-load-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	size_t n = strlen(text);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

/* What sapc generates for `struct Rating { int i; int j; float r; }`. */
typedef struct Rating {
	int32_t i;
	int32_t j;
	float r;
} Rating;

static void parse_Rating(sap_fields *f, void *elem)
{
	Rating *e = elem;
	sap_scan_int(f, &e->i, "i");
	sap_scan_int(f, &e->j, "j");
	sap_scan_float(f, &e->r, "r");
	sap_scan_end(f, "Rating");
}

static void format_Rating(sap_out *o, const void *elem)
{
	const Rating *e = elem;
	sap_fmt_int(o, e->i);
	sap_fmt_int(o, e->j);
	sap_fmt_float(o, e->r, "r");
}

static const sap_site site = { "prog.sap", 20, 15 };

/* Error cases exit inside sap_load: their file goes at exit. */
static char *loading;

static void remove_loading(void)
{
	if (loading)
		unlink(loading);
}

static sap_dvec load_text(const char *text)
{
	static bool registered;
	if (!registered)
		registered = atexit(remove_loading) == 0;
	loading = tmp_with(text);
	sap_dvec v;
	sap_load(&v, "A", loading, sizeof(Rating), parse_Rating, true, false, NULL, &site);
	unlink(loading);
	free(loading);
	loading = NULL;
	return v;
}

START_TEST(load_ratings)
{
	sap_dvec v = load_text("0 1 4.5\n2 3 -1\n-7 2147483647 1e-3\n");
	ck_assert_int_eq(v.n, 3);
	ck_assert_uint_eq(v.elsize, sizeof(Rating));
	ck_assert_str_eq(v.name, "A");
	Rating *a = (Rating *)v.data;
	ck_assert(a[0].i == 0 && a[0].j == 1 && a[0].r == 4.5f);
	ck_assert(a[1].i == 2 && a[1].j == 3 && a[1].r == -1.0f);
	ck_assert(a[2].i == -7 && a[2].j == 2147483647 && a[2].r == 1e-3f);
	sap_dv_free(&v);
}
END_TEST

START_TEST(load_skips_blank_and_comments)
{
	sap_dvec v = load_text("# header\n\n   \t\n1 2 3\n  # indented comment\n"
	                       "\t4\t5   6  \r\n\n7 8 9");  /* no final newline */
	ck_assert_int_eq(v.n, 3);
	Rating *a = (Rating *)v.data;
	ck_assert(a[0].i == 1 && a[0].j == 2 && a[0].r == 3);
	ck_assert(a[1].i == 4 && a[1].j == 5 && a[1].r == 6);
	ck_assert(a[2].i == 7 && a[2].j == 8 && a[2].r == 9);
	sap_dv_free(&v);
}
END_TEST

START_TEST(load_empty)
{
	sap_dvec v = load_text("");
	ck_assert_int_eq(v.n, 0);
	sap_dv_free(&v);
	v = load_text("# nothing\n\n");
	ck_assert_int_eq(v.n, 0);
	sap_dv_free(&v);
}
END_TEST

/* ---- every kind of field, and list fields taking the rest ---- */

typedef struct Doc {
	sap_str id;
	bool ok;
	int64_t n;
	double x;
	sap_list words;         /* list<string> */
} Doc;

static void parse_Doc(sap_fields *f, void *elem)
{
	Doc *e = elem;
	sap_scan_str(f, &e->id, "id");
	sap_scan_bool(f, &e->ok, "ok");
	sap_scan_long(f, &e->n, "n");
	sap_scan_double(f, &e->x, "x");
	while (sap_scan_more(f))
		sap_scan_str(f, sap_list_push(&e->words, sizeof(sap_str)), "words");
	sap_scan_end(f, "Doc");
}

static void format_Doc(sap_out *o, const void *elem)
{
	const Doc *e = elem;
	sap_fmt_str(o, e->id, "id");
	sap_fmt_bool(o, e->ok);
	sap_fmt_long(o, e->n);
	sap_fmt_double(o, e->x, "x");
	for (int64_t k = 0; k < e->words.n; k++)
		sap_fmt_str(o, ((const sap_str *)e->words.v)[k], "words");
}

START_TEST(load_all_kinds)
{
	char *path = tmp_with("d1 true -9223372036854775808 0.1 the cat sat\n"
	                      "d2 0 9223372036854775807 -2.5e300\n"
	                      "d3 1 +12 1e-320 x\n");
	sap_dvec v;
	sap_load(&v, "D", path, sizeof(Doc), parse_Doc, false, false, NULL, &site);
	ck_assert_int_eq(v.n, 3);
	Doc *d = (Doc *)v.data;
	ck_assert_str_eq(d[0].id, "d1");
	ck_assert(d[0].ok && d[0].n == INT64_MIN && d[0].x == 0.1);
	ck_assert_int_eq(d[0].words.n, 3);
	ck_assert_str_eq(((sap_str *)d[0].words.v)[2], "sat");
	ck_assert(!d[1].ok && d[1].n == INT64_MAX && d[1].x == -2.5e300);
	ck_assert_int_eq(d[1].words.n, 0);
	ck_assert(d[2].ok && d[2].n == 12 && d[2].x == 1e-320);
	ck_assert_int_eq(d[2].words.n, 1);

	/* Save and load again: every value comes back exactly. */
	sap_save(&v, path, format_Doc, NULL, &site);
	sap_dvec w;
	sap_load(&w, "D", path, sizeof(Doc), parse_Doc, false, false, NULL, &site);
	ck_assert_int_eq(w.n, 3);
	Doc *e = (Doc *)w.data;
	for (int i = 0; i < 3; i++) {
		ck_assert_str_eq(e[i].id, d[i].id);
		ck_assert(e[i].ok == d[i].ok && e[i].n == d[i].n && e[i].x == d[i].x);
		ck_assert_int_eq(e[i].words.n, d[i].words.n);
		for (int64_t k = 0; k < d[i].words.n; k++)
			ck_assert_str_eq(((sap_str *)e[i].words.v)[k], ((sap_str *)d[i].words.v)[k]);
	}
	FILE *fp = fopen(path, "r");
	char line[256];
	ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
	ck_assert_str_eq(line, "d1 true -9223372036854775808 0.10000000000000001 the cat sat\n");
	ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
	ck_assert_str_eq(line, "d2 false 9223372036854775807 -2.5000000000000001e+300\n");
	fclose(fp);
	unlink(path);
	free(path);
	for (int i = 0; i < 3; i++) {
		sap_list_free(&d[i].words);
		sap_list_free(&e[i].words);
	}
	sap_dv_free(&v);
	sap_dv_free(&w);
}
END_TEST

START_TEST(save_round_trip)
{
	enum { N = 20000 };
	sap_dvec v;
	sap_dv_create(&v, "A", N, sizeof(Rating), NULL);
	Rating *a = (Rating *)v.data;
	sap_rng r = sap_rng_make(1, 2, 3);
	for (int i = 0; i < N; i++) {
		a[i].i = (int32_t)sap_rand_int(&r, 1 << 30, NULL) - (1 << 29);
		a[i].j = i == 0 ? INT32_MIN : i == 1 ? INT32_MAX : i;
		/* Random bit patterns cover every exponent; skip NaNs. */
		uint32_t bits = (uint32_t)sap_rand_int(&r, (int64_t)1 << 32, NULL);
		memcpy(&a[i].r, &bits, sizeof bits);
		if (a[i].r != a[i].r)
			a[i].r = (float)i / 7;
	}
	char *path = tmp_with("");
	sap_save(&v, path, format_Rating, NULL, &site);
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	ck_assert_int_ne(access(tmp, F_OK), 0);        /* renamed away */
	sap_dvec w;
	sap_load(&w, "A", path, sizeof(Rating), parse_Rating, true, false, NULL, &site);
	ck_assert_int_eq(w.n, N);
	ck_assert(memcmp(v.data, w.data, (size_t)N * sizeof(Rating)) == 0);
	sap_dv_free(&v);
	sap_dv_free(&w);

	/* The exact text, %.9g for floats. */
	Rating one = { 3, -4, 0.1f };
	v = (sap_dvec){ .data = (char *)&one, .n = 1, .elsize = sizeof one, .name = "one" };
	sap_save(&v, path, format_Rating, NULL, &site);
	FILE *fp = fopen(path, "r");
	char line[64];
	ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
	ck_assert_str_eq(line, "3 -4 0.100000001\n");
	ck_assert_ptr_null(fgets(line, sizeof line, fp));
	fclose(fp);
	unlink(path);
	free(path);
}
END_TEST

/* The scanners take a shortcut for short decimals: it must agree with
 * strtof/strtod to the bit. */
static void check_real(const char *tok)
{
	size_t n = strlen(tok);
	sap_fields f = { .file = "t", .line = 1, .p = tok, .end = tok + n };
	float x;
	sap_scan_float(&f, &x, "x");
	float wantf = strtof(tok, NULL);
	ck_assert_msg(memcmp(&x, &wantf, sizeof x) == 0, "float %s: %a != %a",
	              tok, (double)x, (double)wantf);
	f = (sap_fields){ .file = "t", .line = 1, .p = tok, .end = tok + n };
	double y;
	sap_scan_double(&f, &y, "y");
	double want = strtod(tok, NULL);
	ck_assert_msg(memcmp(&y, &want, sizeof y) == 0, "double %s: %a != %a",
	              tok, y, want);
}

START_TEST(reals_match_strtod)
{
	static const char *edges[] = {
		"-0", "0.1", "16777216", "16777217", "1e10", "1e-10", "1e11", "3.4028235e38",
		"9007199254740993", "1e22", "1e23", ".5", "5.", "0x1p-3",
	};
	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
		check_real(edges[i]);
	sap_rng r = sap_rng_make(77, 0, 0);
	char tok[64];
	for (int i = 0; i < 200000; i++) {
		int nd = 1 + (int)sap_rand_int(&r, 19, NULL);
		int dot = (int)sap_rand_int(&r, nd + 2, NULL);    /* > nd: none */
		size_t n = 0;
		if (sap_rand_int(&r, 2, NULL))
			tok[n++] = '-';
		for (int d = 0; d < nd; d++) {
			if (d == dot)
				tok[n++] = '.';
			tok[n++] = (char)('0' + sap_rand_int(&r, 10, NULL));
		}
		/* Exponents keep floats in range: below 1e34. */
		if (sap_rand_int(&r, 3, NULL) == 0)
			n += (size_t)sprintf(tok + n, "e%d", (int)sap_rand_int(&r, 46, NULL) - 30);
		tok[n] = '\0';
		check_real(tok);
	}
}
END_TEST

/* Integers too: plain digits take a shortcut, '+' and long runs of
 * leading zeros the full parser; both must agree with strtoll. */
START_TEST(integers_match_strtoll)
{
	static const char *edges[] = {
		"0", "-0", "+7", "007", "2147483647", "-2147483648", "9223372036854775807",
		"-9223372036854775808", "000000000000000000000000000042", "123456789012345678",
		"-123456789012345678", "1234567890123456789",
	};
	sap_rng r = sap_rng_make(78, 0, 0);
	char tok[64];
	for (int i = 0; i < 200000 + (int)(sizeof edges / sizeof *edges); i++) {
		if (i < (int)(sizeof edges / sizeof *edges)) {
			strcpy(tok, edges[i]);
		} else {
			int nd = 1 + (int)sap_rand_int(&r, 19, NULL);
			size_t n = 0;
			int64_t sign = sap_rand_int(&r, 4, NULL);
			if (sign == 0)
				tok[n++] = '-';
			else if (sign == 1)
				tok[n++] = '+';
			for (int d = 0; d < nd; d++)
				tok[n++] = (char)('0' + sap_rand_int(&r, d == 0 ? 3 : 10, NULL));
			tok[n] = '\0';
		}
		size_t n = strlen(tok);
		long long want = strtoll(tok, NULL, 10);
		sap_fields f = { .file = "t", .line = 1, .p = tok, .end = tok + n };
		int64_t l;
		sap_scan_long(&f, &l, "l");
		ck_assert_msg(l == want, "long %s: %lld != %lld", tok, (long long)l, want);
		ck_assert_msg(f.p == tok + n, "long %s: not all read", tok);
		if (want >= INT32_MIN && want <= INT32_MAX) {
			f = (sap_fields){ .file = "t", .line = 1, .p = tok, .end = tok + n };
			int32_t x;
			sap_scan_int(&f, &x, "x");
			ck_assert_msg(x == want, "int %s: %d != %lld", tok, x, want);
		}
	}
}
END_TEST

/* ---- errors ---- */

static void load_missing_field(void) { load_text("1 2 3\n4 5\n"); }
static void load_extra_field(void) { load_text("1 2 3 x\n"); }
static void load_bad_float(void) { load_text("1 2 3\n\n# c\n4 5 abc\n"); }
static void load_bad_int(void) { load_text("3x 1 2\n"); }
static void load_int_range(void) { load_text("99999999999 1 2\n"); }
static void load_int_range_neg(void) { load_text("-2147483649 1 2\n"); }
static void load_float_range(void) { load_text("1 2 1e39\n"); }
static void load_empty_sign(void) { load_text("- 1 2\n"); }
static void load_newline_float(void) { load_text("1 2\n3\n"); }
static void load_nan(void) { load_text("1 2 3\n1 2 -nan\n"); }
static void load_inf(void) { load_text("1 2 inf\n"); }
static void load_control(void) { load_text("1 2 \x01\x1b[2J\n"); }

static void load_missing_file(void)
{
	sap_dvec v;
	sap_load(&v, "A", "/nonexistent/ratings.txt", sizeof(Rating), parse_Rating, true, false, NULL, &site);
}

static void save_bad_path(void)
{
	Rating one = { 1, 2, 3 };
	sap_dvec v = { .data = (char *)&one, .n = 1, .elsize = sizeof one, .name = "one" };
	sap_save(&v, "/nonexistent/out.txt", format_Rating, NULL, &site);
}

START_TEST(exit_missing_field) { load_missing_field(); } END_TEST
START_TEST(exit_extra_field) { load_extra_field(); } END_TEST
START_TEST(exit_bad_float) { load_bad_float(); } END_TEST
START_TEST(exit_bad_int) { load_bad_int(); } END_TEST
START_TEST(exit_int_range) { load_int_range(); } END_TEST
START_TEST(exit_missing_file) { load_missing_file(); } END_TEST
START_TEST(exit_save_bad_path) { save_bad_path(); } END_TEST

/* The messages, without the temporary file's name. */
static const char *after_path(const char *msg)
{
	const char *p = strstr(msg, "sap-load-");
	return p ? p + strlen("sap-load-XXXXXX") : msg;
}

START_TEST(error_messages)
{
	static const struct {
		void (*fn)(void);
		const char *want;
	} cases[] = {
		{ load_missing_field, ":2: error: field 'r': missing (line has too few fields)\n" },
		{ load_extra_field, ":1: error: extra field \"x\" after Rating\n" },
		{ load_bad_float, ":4: error: field 'r': expected a float, got \"abc\"\n" },
		{ load_bad_int, ":1: error: field 'i': expected an int, got \"3x\"\n" },
		{ load_int_range, ":1: error: field 'i': 99999999999 is out of range for int\n" },
		{ load_int_range_neg, ":1: error: field 'i': -2147483649 is out of range for int\n" },
		{ load_float_range, ":1: error: field 'r': 1e39 is out of range for float\n" },
		{ load_empty_sign, ":1: error: field 'i': expected an int, got \"-\"\n" },
		/* The scanner must stop at the line end, not read "3" below. */
		{ load_newline_float, ":1: error: field 'r': missing (line has too few fields)\n" },
		/* Not a number load's files can hold (save refuses to write them). */
		{ load_nan, ":2: error: field 'r': expected a finite float, got \"-nan\" (nan and "
		            "inf are not accepted)\n" },
		{ load_inf, ":1: error: field 'r': expected a finite float, got \"inf\" (nan and "
		            "inf are not accepted)\n" },
		/* A data file's bytes cannot garble the terminal. */
		{ load_control, ":1: error: field 'r': expected a float, got \"\\x01\\x1b[2J\"\n" },
	};
	char msg[1024];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ck_assert_int_eq(run_captured(cases[i].fn, msg, sizeof msg), 1);
		ck_assert_str_eq(after_path(msg), cases[i].want);
	}
	ck_assert_int_eq(run_captured(load_missing_file, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "prog.sap:20:15: error: cannot read '/nonexistent/ratings.txt': "
	                      "No such file or directory\n");
	ck_assert_int_eq(run_captured(save_bad_path, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "prog.sap:20:15: error: cannot write '/nonexistent/out.txt': "
	                      "No such file or directory\n");
}
END_TEST

Suite *load_suite(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("load");
	tcase_add_test(tc, load_ratings);
	tcase_add_test(tc, load_skips_blank_and_comments);
	tcase_add_test(tc, load_empty);
	tcase_add_test(tc, load_all_kinds);
	tcase_add_test(tc, save_round_trip);
	tcase_add_test(tc, reals_match_strtod);
	tcase_add_test(tc, integers_match_strtoll);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_exit_test(tc, exit_missing_field, 1);
	tcase_add_exit_test(tc, exit_extra_field, 1);
	tcase_add_exit_test(tc, exit_bad_float, 1);
	tcase_add_exit_test(tc, exit_bad_int, 1);
	tcase_add_exit_test(tc, exit_int_range, 1);
	tcase_add_exit_test(tc, exit_missing_file, 1);
	tcase_add_exit_test(tc, exit_save_bad_path, 1);
	tcase_add_test(tc, error_messages);
	suite_add_tcase(s, tc);
	return s;
}
