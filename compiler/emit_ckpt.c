/* emit_ckpt.c: what makes a program's checkpoints (sap-run(1)).
 *
 * After each parallel loop of main's own code, sap_ckpt_after takes a
 * checkpoint when one is due, and a label follows it.  With --resume,
 * sap_resume reads the state back at main's start and says after which
 * loop it was taken; a switch jumps to that loop's label, and the program
 * goes on from there as the uninterrupted run did.  The jump lands in
 * the middle of main's loops and blocks, which C allows: every variable
 * of driver code is a static (emit_program), so what the jump passes
 * over holds the values sap_program_state put back, and the C locals main has
 * (a for loop's first-pass flag, a condition settled before its
 * temporaries go) are written before they are read again.  Every
 * parallel loop is in main's code: a function cannot hold one (sap(7)). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sapc.h"

#ifndef PACKAGE_VERSION
#include "config.h"
#endif

void emit_resume_point(Node *s)
{
	int id = s->li->id;
	emit_line(s, "sap_ckpt_after(&sap_loop%d, sap_program_state);", id);
	/* The label needs a statement after it, and a declaration is not
	 * one. */
	buf_printf(E->out, "sap_after_%d: ;\n", id);
	vec_push(&E->resume_points, s);
}

char *emit_resume_switch(void)
{
	Buf b = {0};
	buf_puts(&b, "");
	if (!E->resume_points.n) {
		buf_puts(&b, "\t(void)sap_resume(NULL);\n");
		return b.s;
	}
	buf_puts(&b, "\tswitch (sap_resume(sap_program_state)) {\n");
	for (int i = 0; i < E->resume_points.n; i++) {
		int id = ((Node *)E->resume_points.v[i])->li->id;
		buf_printf(&b, "\tcase %d:\n\t\tgoto sap_after_%d;\n", id, id);
	}
	buf_puts(&b, "\tdefault:\n\t\tbreak;\n\t}\n");
	return b.s;
}

/* FNV-1a, 64 bits, of the sources and the compiler's version: another
 * program, or another build of this one, lays its state out otherwise. */
static uint64_t program_hash(void)
{
	uint64_t h = 0xcbf29ce484222325u;
	const char *v = PACKAGE_VERSION;
	for (const char *c = v; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3u;
	for (int i = 0; i < E->prog->files.n; i++) {
		SrcFile *f = E->prog->files.v[i];
		for (int k = 0; k < f->len; k++)
			h = (h ^ (unsigned char)f->text[k]) * 0x100000001b3u;
		h = (h ^ 0xff) * 0x100000001b3u;        /* where one file ends */
	}
	return h;
}

static const char *key_kind(Type *t)
{
	return t->key->kind == TY_INT ? "SAP_K_INT" : t->key->kind == TY_LONG ? "SAP_K_LONG" :
	       "SAP_K_STRING";
}

/* pack, unpack and drop for a value of type t: NULLs for one that is
 * its bytes. */
static char *codec_args(Type *t)
{
	if (ty_is_flat(t))
		return "NULL, NULL, NULL";
	return format("%s, %s, %s", emit_pack_fn(t), emit_unpack_fn(t),
	              ty_needs_drop(t) ? format("(void (*)(void *))%s", emit_drop_fn(t)) : "NULL");
}

/* The map whose keys dvector v is made of (keys(m), or join's first),
 * as C, or NULL. */
static const char *keys_of(Sym *v)
{
	Node *in = v->decl ? v->decl->init : NULL;
	if (!in || in->kind != N_CALL || (in->builtin != B_KEYS && in->builtin != B_JOIN))
		return "NULL";
	return format("&%s", emit_expr(in->args));
}

static Sym *target_root(Node *e)
{
	while (e && (e->kind == N_FIELD || e->kind == N_INDEX))
		e = e->lhs;
	return e && e->kind == N_NAME ? e->sym : NULL;
}

static int writes_sym(Node *n, void *v)
{
	if (n->kind == N_ASSIGN || n->kind == N_INCDEC)
		return target_root(n->lhs) == v;
	if (n->kind == N_CALL && (n->builtin == B_PUSH || n->builtin == B_INSERT ||
	                          n->builtin == B_ERASE))
		return target_root(n->args) == v;
	return 0;
}

static int names_of(Node *n, void *vec)
{
	if (n->kind == N_NAME && n->sym && n->sym->kind == SYM_VAR)
		vec_push(vec, n->sym);
	return 0;
}

/* Does anything write sym after item `from` of main, or in a function? */
static bool written_after(Sym *sym, Node *from)
{
	bool after = false;
	for (Node *n = E->prog->items; n; n = n->next) {
		if ((after || n->kind == N_FUNC) && emit_any_node(n, writes_sym, sym))
			return true;
		after |= n == from;
	}
	return false;
}

/* A dvector that its declaration at the top of main fills (load(),
 * unigram(), vocab(), keys(), join()) from what nothing writes after it,
 * and that nothing writes either: --resume makes it again the same way,
 * where a checkpoint would hold it.  A loaded one is the input file's,
 * which resume checks is the same (sap_state_input). */
static bool remade(Sym *v)
{
	Node *d = v->decl, *in = d ? d->init : NULL;
	if (!in || in->kind != N_CALL || (in->builtin != B_LOAD && in->builtin != B_UNIGRAM &&
	                                  in->builtin != B_VOCAB && in->builtin != B_KEYS &&
	                                  in->builtin != B_JOIN))
		return false;
	bool top = false;
	for (Node *n = E->prog->items; n && !top; n = n->next)
		top = n == d;
	if (!top || written_after(v, NULL))
		return false;
	Vec from = {0};
	emit_any_node(in, names_of, &from);
	if (d->size)
		emit_any_node(d->size, names_of, &from);
	for (int i = 0; i < from.n; i++)
		if (written_after(from.v[i], d))
			return false;
	return true;
}

/* v's declaration again, as main ran it: a function for --resume. */
static char *reload_fn(Sym *v)
{
	char *name = format("sap_reload_%s", v->cname);
	Buf *saved = E->out;
	Buf f = {0};
	buf_puts(&f, "");
	E->out = &f;
	E->indent = 1;
	emit_push_scope(false, true);
	emit_stmt(v->decl);
	emit_pop_scope(NULL);
	E->out = saved;
	buf_printf(&E->funcs, "static void %s(void)\n{\n%s}\n\n", name, f.s);
	return name;
}

/* ---- what the code after a checkpoint may read ----
 *
 * A checkpoint writes the driver variables and DDSs that the program
 * may still read after its loop: a name that no statement reachable
 * from there mentions is dead, and --resume leaves it as it was at the
 * program's start (zero, or never made), which nothing can tell.  The
 * analysis is by reach, not by kills: a name mentioned anywhere after
 * the loop in its blocks, or anywhere in a loop around it (the next
 * pass), counts as read, even if a plain assignment comes first; so
 * does every name a function mentions, since any call might read it. */

/* A set of names being made: a name is in it when its live_at is the
 * set's number, so that a program of many loops (a live set each) takes
 * a mark a mention, not a search. */
typedef struct Live {
	Vec syms;
	int at;
} Live;

static int mention(Node *n, void *arg)
{
	Live *live = arg;
	if (n->kind == N_NAME && n->sym && n->sym->kind == SYM_VAR && n->sym->live_at != live->at) {
		n->sym->live_at = live->at;
		vec_push(&live->syms, n->sym);
	}
	return 0;
}

static void mentions(Node *n, Live *live)
{
	emit_any_node(n, mention, live);
}

static bool reach(Node *n, Node *site, Live *live);

/* The statements from first on: if site is in one, what runs after it
 * there is in live. */
static bool reach_list(Node *first, Node *site, Live *live)
{
	for (Node *s = first; s; s = s->next)
		if (reach(s, site, live)) {
			for (Node *t = s->next; t; t = t->next)
				if (t->kind != N_FUNC && t->kind != N_STRUCT && t->kind != N_EXTERN)
					mentions(t, live);
			return true;
		}
	return false;
}

static bool reach(Node *n, Node *site, Live *live)
{
	if (!n)
		return false;
	if (n == site)
		return true;
	switch (n->kind) {
	case N_BLOCK:
		return reach_list(n->args, site, live);
	case N_IF:
		return reach(n->then, site, live) || reach(n->els, site, live);
	case N_WHILE: case N_DO: case N_FOR:
		if (!reach(n->body, site, live))
			return false;
		mentions(n, live);      /* the passes after this one */
		return true;
	default:
		return false;
	}
}

/* What main may read after site: see above.  What a live vector's
 * making reads when --resume makes it again, and the map a live
 * vector's keys come from, are live too. */
static void live_after(Node *site, Live *live, Vec *in_funcs)
{
	for (int i = 0; i < in_funcs->n; i++) {
		Sym *v = in_funcs->v[i];
		if (v->live_at != live->at) {
			v->live_at = live->at;
			vec_push(&live->syms, v);
		}
	}
	reach_list(E->prog->items, site, live);
	for (int i = 0; i < live->syms.n; i++) {
		Sym *v = live->syms.v[i];
		if (v->ty->kind == TY_DVEC && v->decl && v->decl->init)
			mentions(v->decl->init, live);
		if (v->ty->kind == TY_DVEC && v->decl && v->decl->size)
			mentions(v->decl->size, live);
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

void emit_state_fn(void)
{
	if (!E->resume_points.n)
		return;
	Vec vars = {0};
	sema_driver_vars(&vars);
	int nsite = E->resume_points.n;
	/* gone[i * nsite + k]: driver variable i is not live after site k. */
	bool *gone = xcalloc((size_t)vars.n * (size_t)nsite + 1, sizeof *gone);
	/* What the functions mention, once: every site has it live. */
	Live funcs = { {0}, -1 };
	for (Node *n = E->prog->items; n; n = n->next)
		if (n->kind == N_FUNC)
			mentions(n->body, &funcs);
	for (int i = 0; i < funcs.syms.n; i++)
		((Sym *)funcs.syms.v[i])->live_at = 0;
	for (int k = 0; k < nsite; k++) {
		Live live = { {0}, k + 1 };
		live_after(E->resume_points.v[k], &live, &funcs.syms);
		for (int i = 0; i < vars.n; i++)
			gone[(size_t)i * (size_t)nsite + (size_t)k] = ((Sym *)vars.v[i])->live_at != k + 1;
		for (int i = 0; i < live.syms.n; i++)
			((Sym *)live.syms.v[i])->live_at = 0;
	}
	int *ids = xcalloc((size_t)nsite + 1, sizeof *ids);
	Buf b = {0};
	buf_puts(&b, "/* The driver variables, DDSs and loops the program may read after\n"
	         " * loop `at`, for a checkpoint to write and --resume to read back. */\n"
	         "static void sap_program_state(sap_state *s, int at)\n{\n\t(void)at;\n");
	for (int i = 0; i < vars.n; i++) {
		Sym *v = vars.v[i];
		Type *t = v->ty;
		if (v->vclass == V_CONST || v->vclass == V_PARAM)
			continue;
		/* The sites where v is dead, as runs of loop numbers: a test a
		 * site made the state function quadratic in a long program. */
		int nid = 0;
		for (int k = 0; k < nsite; k++)
			if (gone[(size_t)i * (size_t)nsite + (size_t)k])
				ids[nid++] = ((Node *)E->resume_points.v[k])->li->id;
		qsort(ids, (size_t)nid, sizeof *ids, cmp_int);
		Buf dead = {0};
		buf_puts(&dead, "");
		for (int a = 0, z; a < nid; a = z) {
			for (z = a + 1; z < nid && ids[z] <= ids[z - 1] + 1; z++)
				;
			if (ids[z - 1] == ids[a])
				buf_printf(&dead, "%sat != %d", dead.len ? " && " : "", ids[a]);
			else
				buf_printf(&dead, "%s(at < %d || at > %d)", dead.len ? " && " : "",
				           ids[a], ids[z - 1]);
		}
		if (dead.len)
			buf_printf(&b, "\tif (%s)\n\t", dead.s);
		const char *name = emit_cstr(v->name, strlen(v->name));
		if (t->kind == TY_DVEC && remade(v) && v->decl->init->builtin == B_LOAD)
			buf_printf(&b, "\tsap_state_input(s, &%s, %s, sizeof(%s), %s, %s, %s);\n", v->cname,
			           name, emit_ctype(t->elem), ty_is_flat(t->elem) ? "NULL" :
			           format("&%s", emit_codec(t->elem)), reload_fn(v), emit_site(v->decl));
		else if (t->kind == TY_DVEC && remade(v))
			buf_printf(&b, "\tsap_state_remade(s, &%s, %s);\n", v->cname, reload_fn(v));
		else if (t->kind == TY_DVEC)
			buf_printf(&b, "\tsap_state_dvec(s, &%s, %s, sizeof(%s), %s, %s, %s);\n", v->cname,
			           name, emit_ctype(t->elem), ty_is_flat(t->elem) ? "NULL" :
			           format("&%s", emit_codec(t->elem)), keys_of(v), emit_site(v->decl));
		else if (t->kind == TY_DMAP || t->kind == TY_DMMAP)
			buf_printf(&b, "\tsap_state_dmap(s, &%s, %s, %s, sizeof(%s), %s, %s);\n", v->cname,
			           name, key_kind(t), emit_ctype(t->elem),
			           t->kind == TY_DMMAP ? "true" : "false", codec_args(t->elem));
		else
			buf_printf(&b, "\tsap_state_var(s, &%s, sizeof %s, %s, %s);\n", v->cname, v->cname,
			           codec_args(t), name);
	}
	for (int i = 0; i < E->loops_written.n; i++)
		buf_printf(&b, "\tsap_state_loop(s, &sap_loop%d);\n",
		           (int)(intptr_t)E->loops_written.v[i]);
	buf_puts(&b, "}\n\n");
	buf_puts(&E->funcs, b.s);
}

char *emit_program_hash(void)
{
	return format("UINT64_C(0x%016llx)", (unsigned long long)program_hash());
}
