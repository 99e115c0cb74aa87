/* The lemon grammar through the AST builder: shapes of trees, precedence,
 * and one precise message per syntax error. */
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "sapc.h"
#include "grammar.h"

static char errbuf[4096];

static Program *parse(const char *src)
{
	diag_reset();
	memset(errbuf, 0, sizeof errbuf);
	diag_out = fmemopen(errbuf, sizeof errbuf, "w");
	Program *p = calloc(1, sizeof *p);
	bool ok = parse_file(p, diag_file("t.sap", src, (int)strlen(src)));
	fclose(diag_out);
	diag_out = NULL;
	return ok ? p : NULL;
}

START_TEST(items_in_order)
{
	Program *p = parse("struct R { int i; float r; }\n"
	                   "param int n = 3;\n"
	                   "double f(double x) { return x * 2; }\n"
	                   "extern double g(double y);\n"
	                   "dvector<R> A = load(\"a.txt\");\n"
	                   "for (int i = 0; i < n; i++) print(\"%d\\n\", i);\n");
	ck_assert_ptr_nonnull(p);
	NodeKind want[] = {N_STRUCT, N_VAR, N_FUNC, N_EXTERN, N_VAR, N_FOR};
	Node *n = p->items;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++, n = n->next) {
		ck_assert_ptr_nonnull(n);
		ck_assert_int_eq(n->kind, want[i]);
	}
	ck_assert_ptr_null(n);
	ck_assert_int_eq(p->items->next->vclass, V_PARAM);
}
END_TEST

START_TEST(precedence)
{
	Program *p = parse("x = a + b * c - -d;");
	ck_assert_ptr_nonnull(p);
	Node *e = p->items->lhs;                /* x = ((a + (b * c)) - (-d)) */
	ck_assert_int_eq(e->kind, N_ASSIGN);
	Node *r = e->rhs;
	ck_assert_int_eq(r->op, TK_MINUS);
	ck_assert_int_eq(r->lhs->op, TK_PLUS);
	ck_assert_int_eq(r->lhs->rhs->op, TK_STAR);
	ck_assert_int_eq(r->rhs->kind, N_UNARY);
}
END_TEST

START_TEST(parallel_loops)
{
	Program *p = parse("async for (long n = 0; n < len(A); n++) reduce(+: se, k) reduce(max: m) { se += 1; }\n"
	                   "sync for (int a : A) with (ssp(2), batch = 64, recon = off) { }\n");
	ck_assert_ptr_nonnull(p);
	Node *a = p->items;
	ck_assert_int_eq(a->kind, N_ASYNC);
	ck_assert_int_eq(a->args->op, TK_PLUS);
	ck_assert_ptr_nonnull(a->args->lhs->next);
	ck_assert_ptr_nonnull(a->args->next);
	Node *s = a->next;
	ck_assert_int_eq(s->kind, N_SYNC);
	int nwith = 0;
	for (Node *w = s->clauses; w; w = w->next)
		nwith++;
	ck_assert_int_eq(nwith, 3);
}
END_TEST

START_TEST(dangling_else_binds_inner)
{
	Program *p = parse("if (a) if (b) x = 1; else x = 2;");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(p->items->els);
	ck_assert_ptr_nonnull(p->items->then->els);
}
END_TEST

START_TEST(missing_semicolon_is_named)
{
	ck_assert_ptr_null(parse("int x = 1\nint y = 2;\n"));
	ck_assert_ptr_nonnull(strstr(errbuf, "t.sap:1:10: error: expected ';' after '1'"));
	ck_assert_ptr_null(parse("f(1, 2;\n"));
	ck_assert_ptr_nonnull(strstr(errbuf, "error: expected ')' before ';'"));
	ck_assert_ptr_null(parse("void f() {\n  x = 1;\n"));
	ck_assert_ptr_nonnull(strstr(errbuf, "unexpected end of file: expected '}'"));
	/* Exactly one error. */
	ck_assert_ptr_null(strstr(strstr(errbuf, "error:") + 1, "error:"));
}
END_TEST

Suite *parser_suite(void)
{
	Suite *s = suite_create("parser");
	TCase *tc = tcase_create("grammar");
	tcase_add_test(tc, items_in_order);
	tcase_add_test(tc, precedence);
	tcase_add_test(tc, parallel_loops);
	tcase_add_test(tc, dangling_else_binds_inner);
	tcase_add_test(tc, missing_semicolon_is_named);
	suite_add_tcase(s, tc);
	return s;
}
