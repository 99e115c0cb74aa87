/* The re2c lexer: token kinds, the generic '>>' split, the struct-name
 * lexer hack, doc comments, and errors that never crash. */
#include <string.h>
#include "suites.h"
#include "sapc.h"
#include "grammar.h"

static int kinds(const char *src, int *out, int max)
{
	static char errbuf[4096];
	diag_reset();
	diag_out = fmemopen(errbuf, sizeof errbuf, "w");
	Lexer lx;
	lex_init(&lx, diag_file("t.sap", src, (int)strlen(src)));
	int n = 0;
	for (;;) {
		Tok t;
		int k = lex_next(&lx, &t);
		if (n < max)
			out[n++] = k;
		if (k <= 0)
			break;
	}
	fclose(diag_out);
	diag_out = NULL;
	return n;
}

START_TEST(keywords_and_operators)
{
	int k[32];
	int n = kinds("async for (long i = 0; i < n; i++) x += 1.5e3f;", k, 32);
	int want[] = {TK_ASYNC, TK_FOR, TK_LPAREN, TK_LONG, TK_IDENT, TK_ASSIGN, TK_INTLIT, TK_SEMI,
	              TK_IDENT, TK_LT, TK_IDENT, TK_SEMI, TK_IDENT, TK_INC, TK_RPAREN, TK_IDENT,
	              TK_PLUSEQ, TK_FLOATLIT, TK_SEMI, 0};
	ck_assert_int_eq(n, (int)(sizeof want / sizeof want[0]));
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(k[i], want[i]);
}
END_TEST

START_TEST(generic_close_splits_shift)
{
	int k[16];
	int n = kinds("dvector<list<int>> x; a >> b;", k, 16);
	int want[] = {TK_DVECTOR, TK_LT, TK_LIST, TK_LT, TK_INT, TK_GT, TK_GT, TK_IDENT, TK_SEMI,
	              TK_IDENT, TK_SHR, TK_IDENT, TK_SEMI, 0};
	ck_assert_int_eq(n, (int)(sizeof want / sizeof want[0]));
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(k[i], want[i]);
}
END_TEST

START_TEST(struct_names_become_type_names)
{
	int k[16];
	int n = kinds("struct P { int x; } P p;", k, 16);
	ck_assert_int_ge(n, 10);
	ck_assert_int_eq(k[1], TK_IDENT);       /* the declaration itself */
	ck_assert_int_eq(k[7], TK_TYPENAME);    /* a later use */
	ck_assert_int_eq(k[8], TK_IDENT);
}
END_TEST

/* Lex all of src into lx; returns the number of tokens. */
static int lex_all(Lexer *lx, const char *src)
{
	diag_reset();
	lex_init(lx, diag_file("t.sap", src, (int)strlen(src)));
	Tok t;
	int n = 0;
	while (lex_next(lx, &t) > 0)
		n++;
	return n;
}

START_TEST(comments_and_docs)
{
	Lexer lx;
	int n = lex_all(&lx, "/// first line\n/// second\nparam int n = 1; // not a doc\n/* block */");
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(lex_doc_for(&lx, 3), "first line second");
	ck_assert_ptr_null(lex_doc_for(&lx, 5));
}
END_TEST

START_TEST(trailing_docs_stay_on_their_line)
{
	Lexer lx;
	lex_all(&lx, "param int a = 1; /// About a.\nparam int b = 2;\n/// About c.\nparam int c = 3;");
	ck_assert_str_eq(lex_doc_for(&lx, 1), "About a.");
	ck_assert_ptr_null(lex_doc_for(&lx, 2));
	ck_assert_str_eq(lex_doc_for(&lx, 4), "About c.");
}
END_TEST

START_TEST(errors_are_reported_once)
{
	int k[8];
	const char *bad[] = {"x = \"open", "/* never closed", "a @ b", "12abc", "s = \"\xc3\xa9\";",
	                     "\xc3\xa9", "a\x01"};
	int want[] = {-1, -1, -1, -1, TK_IDENT, -1, -1};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int n = kinds(bad[i], k, 8);
		if (want[i] == -1)
			ck_assert_int_eq(k[n - 1], -1);
		else
			ck_assert_int_eq(k[n - 1], 0);
	}
}
END_TEST

Suite *lexer_suite(void)
{
	Suite *s = suite_create("lexer");
	TCase *tc = tcase_create("tokens");
	tcase_add_test(tc, keywords_and_operators);
	tcase_add_test(tc, generic_close_splits_shift);
	tcase_add_test(tc, struct_names_become_type_names);
	tcase_add_test(tc, comments_and_docs);
	tcase_add_test(tc, trailing_docs_stay_on_their_line);
	tcase_add_test(tc, errors_are_reported_once);
	suite_add_tcase(s, tc);
	return s;
}
