/* emit_io.c: C types and the per-type helpers the generated program
 * needs (drop, copy, the text parser behind load, the formatter behind
 * save), the param table, and print's format translation. */
#include <string.h>
#include "sapc.h"

/* ---- C types ---- */

const char *emit_ctype(Type *t)
{
	if (t->emitted)
		return t->cname;
	t->emitted = true;
	switch (t->kind) {
	case TY_ARRAY:
		emit_ctype(t->elem);
		/* A struct, so arrays are values: assignment and returns copy. */
		buf_printf(&E->types, "typedef struct { %s v[%lld]; } %s;\n", emit_ctype(t->elem),
		           (long long)t->len, t->cname);
		buf_printf(&E->value_sizes, "\t\tsizeof(%s),\n", t->cname);
		break;
	case TY_STRUCT: {
		for (Node *f = t->sdecl->args; f; f = f->next)
			emit_ctype(f->ty);
		buf_printf(&E->types, "typedef struct %s {\n", t->cname);
		for (Node *f = t->sdecl->args; f; f = f->next)
			buf_printf(&E->types, "\t%s %s;\n", emit_ctype(f->ty), f->sym->cname);
		buf_printf(&E->types, "} %s%s;\n", ty_packed(t) ? "SAP_PACKED " : "", t->cname);
		break;
	}
	case TY_LIST: case TY_DVEC: case TY_DMAP: case TY_DMMAP:
		emit_ctype(t->elem);
		break;
	default:
		break;
	}
	return t->cname;
}

char *emit_cstr(const char *s, size_t n)
{
	Buf b = {0};
	buf_putc(&b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		switch (c) {
		case '"': buf_puts(&b, "\\\""); break;
		case '\\': buf_puts(&b, "\\\\"); break;
		case '\n': buf_puts(&b, "\\n"); break;
		case '\t': buf_puts(&b, "\\t"); break;
		case '\r': buf_puts(&b, "\\r"); break;
		case '?':
			/* Never two in a row, which C11 reads as the start of a
			 * trigraph (a ?, a ? and a ! are a |). */
			buf_puts(&b, i && s[i - 1] == '?' ? "\\?" : "?");
			break;
		default:
			if (c < 0x20 || c >= 0x7f)
				buf_printf(&b, "\\%03o", c);
			else
				buf_putc(&b, c);
		}
	}
	buf_putc(&b, '"');
	return b.s;
}

/* ---- ownership helpers for list-holding types ---- */

static void drop_body(Buf *b, Type *t, const char *x, int depth);

static void drop_body(Buf *b, Type *t, const char *x, int depth)
{
	switch (t->kind) {
	case TY_LIST:
		if (ty_needs_drop(t->elem))
			buf_printf(b, "\tfor (int64_t i%d = 0; i%d < %s; i%d++)\n\t\t%s(&((%s *)%s)[i%d]);\n",
			           depth, depth, emit_member(x, "n"), depth, emit_drop_fn(t->elem),
			           emit_ctype(t->elem), emit_member(x, "v"), depth);
		buf_printf(b, "\tsap_list_free(%s);\n", emit_addr(x));
		break;
	case TY_ARRAY:
		buf_printf(b, "\tfor (int64_t i%d = 0; i%d < %lld; i%d++)\n\t\t%s(&%s[i%d]);\n", depth,
		           depth, (long long)t->len, depth, emit_drop_fn(t->elem), emit_member(x, "v"), depth);
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (ty_needs_drop(f->ty))
				buf_printf(b, "\t%s(&%s);\n", emit_drop_fn(f->ty), emit_member(x, f->sym->cname));
		break;
	default:
		break;
	}
}

const char *emit_drop_fn(Type *t)
{
	char *name = format("sap_drop_%s", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format("void %s(", name)))
		return name;
	const char *ct = emit_ctype(t);
	Buf b = {0};
	buf_printf(&b, "static void %s(%s *x)\n{\n", name, ct);
	drop_body(&b, t, "*x", 0);
	buf_puts(&b, "}\n\n");
	buf_puts(&E->helpers, b.s);
	return name;
}

const char *emit_copy_fn(Type *t)
{
	char *name = format("sap_copy_%s", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format(" %s(", name)))
		return name;
	const char *ct = emit_ctype(t);
	Buf b = {0};
	buf_printf(&b, "static %s %s(const %s *x)\n{\n\t%s r = *x;\n", ct, name, ct, ct);
	switch (t->kind) {
	case TY_LIST: {
		const char *et = emit_ctype(t->elem);
		buf_printf(&b, "\tr.v = NULL;\n\tr.cap = 0;\n\tif (x->n)\n\t\tsap_list_grow(&r, x->n, sizeof(%s));\n", et);
		if (ty_needs_drop(t->elem))
			buf_printf(&b, "\tfor (int64_t i = 0; i < x->n; i++)\n\t\t((%s *)r.v)[i] = %s(&((const %s *)x->v)[i]);\n",
			           et, emit_copy_fn(t->elem), et);
		else
			buf_printf(&b, "\tif (x->n)\n\t\tmemcpy(r.v, x->v, (size_t)x->n * sizeof(%s));\n", et);
		break;
	}
	case TY_ARRAY:
		buf_printf(&b, "\tfor (int64_t i = 0; i < %lld; i++)\n\t\tr.v[i] = %s(&x->v[i]);\n",
		           (long long)t->len, emit_copy_fn(t->elem));
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (ty_needs_drop(f->ty))
				buf_printf(&b, "\tr.%s = %s(&x->%s);\n", f->sym->cname, emit_copy_fn(f->ty),
				           f->sym->cname);
		break;
	default:
		break;
	}
	buf_puts(&b, "\treturn r;\n}\n\n");
	buf_puts(&E->helpers, b.s);
	return name;
}

/* ---- codecs: elements holding strings or lists, as bytes ---- */

/* Bytes are written and read with memcpy: a stream has no alignment.  A
 * string is its length (-1 for none) and its bytes, a list its length
 * and its elements. */
static const char *pack_fn(Type *t);
static const char *unpack_fn(Type *t);

static void pack_part(Buf *b, Type *t, const char *x)
{
	if (ty_is_flat(t))
		buf_printf(b, "\tif (o)\n\t\tmemcpy(o + n, %s, sizeof(%s));\n\tn += sizeof(%s);\n",
		           emit_addr(x), x, x);
	else
		buf_printf(b, "\tn += %s(%s, o ? o + n : NULL);\n", pack_fn(t), emit_addr(x));
}

static void unpack_part(Buf *b, Type *t, const char *x)
{
	if (ty_is_flat(t))
		buf_printf(b, "\tmemcpy(%s, p, sizeof(%s));\n\tp += sizeof(%s);\n", emit_addr(x), x, x);
	else
		buf_printf(b, "\tp = %s(%s, p);\n", unpack_fn(t), emit_addr(x));
}

static const char *pack_fn(Type *t)
{
	char *name = format("sap_pack_%s", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format(" %s(", name)))
		return name;
	const char *ct = emit_ctype(t);
	Buf b = {0};
	buf_printf(&b, "static size_t %s(const void *xv, char *o)\n{\n\tconst %s *x = xv;\n"
	           "\tsize_t n = 0;\n", name, ct);
	switch (t->kind) {
	case TY_STRING:
		buf_puts(&b, "\tint64_t len = *x ? (int64_t)strlen(*x) : -1;\n"
		         "\tif (o)\n\t\tmemcpy(o, &len, 8);\n\tn = 8;\n\tif (len > 0) {\n"
		         "\t\tif (o)\n\t\t\tmemcpy(o + 8, *x, (size_t)len);\n\t\tn += (size_t)len;\n\t}\n");
		break;
	case TY_LIST: {
		const char *et = emit_ctype(t->elem);
		buf_puts(&b, "\tint64_t len = x->n;\n\tif (o)\n\t\tmemcpy(o, &len, 8);\n\tn = 8;\n");
		if (ty_is_flat(t->elem))
			buf_printf(&b, "\tif (o && len)\n\t\tmemcpy(o + 8, x->v, (size_t)len * sizeof(%s));\n"
			           "\tn += (size_t)len * sizeof(%s);\n", et, et);
		else
			buf_printf(&b, "\tfor (int64_t i = 0; i < len; i++)\n"
			           "\t\tn += %s(&((const %s *)x->v)[i], o ? o + n : NULL);\n",
			           pack_fn(t->elem), et);
		break;
	}
	case TY_ARRAY:
		buf_printf(&b, "\tfor (int64_t i = 0; i < %lld; i++)\n\t\tn += %s(&x->v[i], o ? o + n : NULL);\n",
		           (long long)t->len, pack_fn(t->elem));
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			pack_part(&b, f->ty, format("x->%s", f->sym->cname));
		break;
	default:
		pack_part(&b, t, "*x");
		break;
	}
	buf_puts(&b, "\treturn n;\n}\n\n");
	buf_puts(&E->helpers, b.s);
	return name;
}

static const char *unpack_fn(Type *t)
{
	char *name = format("sap_unpack_%s", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format("*%s(", name)))
		return name;
	const char *ct = emit_ctype(t);
	Buf b = {0};
	buf_printf(&b, "static const char *%s(void *xv, const char *p)\n{\n\t%s *x = xv;\n", name, ct);
	switch (t->kind) {
	case TY_STRING:
		buf_puts(&b, "\tint64_t len;\n\tmemcpy(&len, p, 8);\n\tp += 8;\n"
		         "\t*x = len < 0 ? NULL : sap_str_dup(p, (size_t)len);\n"
		         "\tif (len > 0)\n\t\tp += len;\n");
		break;
	case TY_LIST: {
		const char *et = emit_ctype(t->elem);
		buf_printf(&b, "\tint64_t len;\n\tmemcpy(&len, p, 8);\n\tp += 8;\n"
		           "\tx->v = NULL;\n\tx->n = x->cap = 0;\n\tif (len)\n"
		           "\t\tsap_list_grow(x, len, sizeof(%s));\n\tx->n = len;\n", et);
		if (ty_is_flat(t->elem))
			buf_printf(&b, "\tif (len)\n\t\tmemcpy(x->v, p, (size_t)len * sizeof(%s));\n"
			           "\tp += (size_t)len * sizeof(%s);\n", et, et);
		else
			buf_printf(&b, "\tfor (int64_t i = 0; i < len; i++)\n\t\tp = %s(&((%s *)x->v)[i], p);\n",
			           unpack_fn(t->elem), et);
		break;
	}
	case TY_ARRAY:
		buf_printf(&b, "\tfor (int64_t i = 0; i < %lld; i++)\n\t\tp = %s(&x->v[i], p);\n",
		           (long long)t->len, unpack_fn(t->elem));
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			unpack_part(&b, f->ty, format("x->%s", f->sym->cname));
		break;
	default:
		unpack_part(&b, t, "*x");
		break;
	}
	buf_puts(&b, "\treturn p;\n}\n\n");
	buf_puts(&E->helpers, b.s);
	return name;
}

static const char *tabs(int n);

/* fn: sap_list_settle or sap_list_lend. */
static void settle_body(Buf *b, Type *t, const char *x, int depth, const char *fn)
{
	switch (t->kind) {
	case TY_LIST:
		if (ty_is_flat(t->elem))
			buf_printf(b, "%sused += %s(%s, sizeof(%s), at ? at + used : NULL);\n",
			           tabs(depth + 1), fn, emit_addr(x), emit_ctype(t->elem));
		break;
	case TY_ARRAY:
		buf_printf(b, "%sfor (int64_t i%d = 0; i%d < %lld; i%d++) {\n", tabs(depth + 1), depth,
		           depth, (long long)t->len, depth);
		settle_body(b, t->elem, format("%s[i%d]", emit_member(x, "v"), depth), depth + 1, fn);
		buf_printf(b, "%s}\n", tabs(depth + 1));
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (ty_has_flat_list(f->ty))
				settle_body(b, f->ty, emit_member(x, f->sym->cname), depth, fn);
		break;
	default:
		break;
	}
}

/* sap_settle_T, or with lend, sap_lend_T (see sap_codec). */
static const char *settle_fn(Type *t, bool lend)
{
	char *name = format("sap_%s_%s", lend ? "lend" : "settle", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format(" %s(", name)))
		return name;
	Buf b = {0};
	buf_printf(&b, "static size_t %s(void *xv, char *at)\n{\n\t%s *x = xv;\n\tsize_t used = 0;\n",
	           name, emit_ctype(t));
	settle_body(&b, t, "*x", 0, lend ? "sap_list_lend" : "sap_list_settle");
	buf_puts(&b, "\treturn used;\n}\n\n");
	buf_puts(&E->helpers, b.s);
	return name;
}

const char *emit_pack_fn(Type *t)
{
	return pack_fn(t);
}

const char *emit_unpack_fn(Type *t)
{
	return unpack_fn(t);
}

const char *emit_codec(Type *t)
{
	char *name = format("sap_codec_%s", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format(" %s =", name)))
		return name;
	const char *pk = pack_fn(t), *up = unpack_fn(t);
	const char *drop = ty_needs_drop(t) ? format("(void (*)(void *))%s", emit_drop_fn(t)) : "NULL";
	const char *settle = ty_has_flat_list(t) ? settle_fn(t, false) : "NULL";
	const char *lend = ty_has_flat_list(t) ? settle_fn(t, true) : "NULL";
	buf_printf(&E->helpers, "static const sap_codec %s = {.pack = %s, .unpack = %s", name, pk, up);
	if (ty_needs_drop(t))
		buf_printf(&E->helpers, ", .drop = %s", drop);
	if (ty_has_flat_list(t))
		buf_printf(&E->helpers, ", .settle = %s, .lend = %s", settle, lend);
	if (t->kind == TY_STRING)
		buf_puts(&E->helpers, ", .lines = true");
	buf_puts(&E->helpers, "};\n\n");
	return name;
}

/* ---- load: one generated parser per element type ---- */

static const char *scan_fn(Type *t)
{
	switch (t->kind) {
	case TY_BOOL: return "sap_scan_bool";
	case TY_INT: return "sap_scan_int";
	case TY_LONG: return "sap_scan_long";
	case TY_FLOAT: return "sap_scan_float";
	case TY_DOUBLE: return "sap_scan_double";
	default: return "sap_scan_str";
	}
}

static const char *fmt_fn(Type *t)
{
	switch (t->kind) {
	case TY_BOOL: return "sap_fmt_bool";
	case TY_INT: return "sap_fmt_int";
	case TY_LONG: return "sap_fmt_long";
	case TY_FLOAT: return "sap_fmt_float";
	default: return "sap_fmt_double";
	}
}

static const char *tabs(int n)
{
	static const char t[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	return t + (n < 16 ? 16 - n : 0);
}

/* The leaf names of an element of a list, as "i:v", for messages. */
static void leaf_names(Buf *b, Type *t, const char *name)
{
	switch (t->kind) {
	case TY_ARRAY:
		for (int64_t i = 0; i < t->len; i++)
			leaf_names(b, t->elem, format("%s[%lld]", name, (long long)i));
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			leaf_names(b, f->ty, *name ? format("%s.%s", name, f->sym->name) : f->sym->name);
		break;
	default:
		buf_printf(b, "%s%s", b->len ? ":" : "", name);
	}
}

/* "'P' of 2 fields (i:v)": what an element of a list of structs or
 * arrays is, for the loader's messages. */
static char *elem_shape(Type *t)
{
	int64_t nf = ty_nfields(t);
	char *s = format("'%s' of %lld fields", ty_str(t), (long long)nf);
	if (nf > 8)
		return s;
	Buf b = {0};
	buf_puts(&b, "");
	leaf_names(&b, t, "");
	return format("%s (%s)", s, b.s);
}

/* Fields in declaration order, arrays element by element, a list taking
 * the rest of the line (sema has checked that it comes last), in groups
 * of fields when its elements are structs or arrays. */
static void parse_fields(Buf *b, Type *t, const char *x, const char *name, int depth)
{
	static int tables;
	switch (t->kind) {
	case TY_ARRAY:
		/* A bad number in an array field names its element, "a[1]":
		 * the names of a short array of scalars, in a table. */
		if (*name && t->len <= 64 && (ty_is_scalar(t->elem) || t->elem->kind == TY_STRING)) {
			int id = ++tables;
			buf_printf(b, "%sstatic const char *const sap_nm%d[] = {", tabs(depth + 1), id);
			for (int64_t i = 0; i < t->len; i++)
				buf_printf(b, "%s\"%s[%lld]\"", i ? ", " : "", name, (long long)i);
			buf_puts(b, "};\n");
			buf_printf(b, "%sfor (int64_t i%d = 0; i%d < %lld; i%d++)\n", tabs(depth + 1), depth,
			           depth, (long long)t->len, depth);
			buf_printf(b, "%s%s(f, &%s[i%d], sap_nm%d[i%d]);\n", tabs(depth + 2), scan_fn(t->elem),
			           emit_member(x, "v"), depth, id, depth);
			break;
		}
		buf_printf(b, "%sfor (int64_t i%d = 0; i%d < %lld; i%d++) {\n", tabs(depth + 1), depth,
		           depth, (long long)t->len, depth);
		parse_fields(b, t->elem, format("%s[i%d]", emit_member(x, "v"), depth), name, depth + 1);
		buf_printf(b, "%s}\n", tabs(depth + 1));
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next) {
			const char *m = emit_member(x, f->sym->cname);
			const char *fname = *name ? format("%s.%s", name, f->sym->name) : f->sym->name;
			/* A packed member has no address to scan into. */
			if (ty_packed(t))
				buf_printf(b, "%s{ %s v; %s(f, &v, \"%s\"); %s = v; }\n", tabs(depth + 1),
				           emit_ctype(f->ty), scan_fn(f->ty), fname, m);
			else
				parse_fields(b, f->ty, m, fname, depth);
		}
		break;
	case TY_LIST: {
		const char *et = emit_ctype(t->elem);
		const char *list = *name ? name : "element";
		bool group = ty_nfields(t->elem) > 1;
		buf_printf(b, "%swhile (sap_scan_more(f)) {\n", tabs(depth + 1));
		buf_printf(b, "%s%s *e%d = sap_scan_push(f, %s, sizeof(%s));\n", tabs(depth + 2), et, depth,
		           emit_addr(x), et);
		if (group) {
			char *shape = elem_shape(t->elem);
			buf_printf(b, "%ssap_scan_elem(f, \"%s\", %s, %lld);\n", tabs(depth + 2), list,
			           emit_cstr(shape, strlen(shape)), (long long)ty_nfields(t->elem));
		}
		parse_fields(b, t->elem, format("*e%d", depth), list, depth + 1);
		if (group)
			buf_printf(b, "%ssap_scan_elem_end(f);\n", tabs(depth + 2));
		buf_printf(b, "%s}\n", tabs(depth + 1));
		break;
	}
	default:
		buf_printf(b, "%s%s(f, %s, \"%s\");\n", tabs(depth + 1), scan_fn(t), emit_addr(x),
		           *name ? name : "value");
	}
}

/* A struct's field names as a C string "a,b", which a .csv or .tsv file's
 * header may be (sap_load); "NULL" for other elements, and for a struct
 * of arrays or structs, whose columns are not its fields (a list last
 * is one column, the rest of the line). */
const char *emit_field_names(Type *t)
{
	if (t->kind != TY_STRUCT || !t->sdecl->args)
		return "NULL";
	Buf b = {0};
	for (Node *f = t->sdecl->args; f; f = f->next) {
		if (!ty_is_scalar(f->ty) && f->ty->kind != TY_STRING &&
		    (f->ty->kind != TY_LIST || f->next))
			return "NULL";
		buf_printf(&b, "%s%s", f == t->sdecl->args ? "" : ",", f->sym->name);
	}
	return emit_cstr(b.s, b.len);
}

const char *emit_parse_fn(Type *t)
{
	char *name = format("sap_parse_%s", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format("void %s(", name)))
		return name;
	Buf b = {0};
	buf_printf(&b, "static void %s(sap_fields *f, void *elem)\n{\n", name);
	buf_printf(&b, "\t%s *x = elem;\n", emit_ctype(t));
	/* A line of text is one string: blanks and all. */
	if (t->kind == TY_STRING)
		buf_puts(&b, "\tsap_scan_line(f, x);\n");
	else
		parse_fields(&b, t, "*x", "", 0);
	buf_printf(&b, "\tsap_scan_end(f, \"%s\");\n}\n\n", ty_str(t));
	buf_puts(&E->helpers, b.s);
	return name;
}

static void format_fields(Buf *b, Type *t, const char *x, const char *name, int depth)
{
	switch (t->kind) {
	case TY_ARRAY:
		buf_printf(b, "%sfor (int64_t i%d = 0; i%d < %lld; i%d++) {\n", tabs(depth + 1), depth,
		           depth, (long long)t->len, depth);
		format_fields(b, t->elem, format("%s[i%d]", emit_member(x, "v"), depth), name, depth + 1);
		buf_printf(b, "%s}\n", tabs(depth + 1));
		break;
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			format_fields(b, f->ty, emit_member(x, f->sym->cname),
			              *name ? format("%s.%s", name, f->sym->name) : f->sym->name, depth);
		break;
	case TY_LIST: {
		bool group = ty_nfields(t->elem) > 1;
		buf_printf(b, "%sfor (int64_t i%d = 0; i%d < %s; i%d++) {\n", tabs(depth + 1), depth,
		           depth, emit_member(x, "n"), depth);
		if (group)
			buf_printf(b, "%ssap_fmt_elem(o);\n", tabs(depth + 2));
		format_fields(b, t->elem, format("((const %s *)%s)[i%d]", emit_ctype(t->elem), emit_member(x, "v"), depth),
		              *name ? name : "element", depth + 1);
		if (group)
			buf_printf(b, "%ssap_fmt_elem_end(o);\n", tabs(depth + 2));
		buf_printf(b, "%s}\n", tabs(depth + 1));
		break;
	}
	case TY_STRING:
		buf_printf(b, "%ssap_fmt_str(o, %s, \"%s\");\n", tabs(depth + 1), x, *name ? name : "value");
		break;
	case TY_FLOAT: case TY_DOUBLE:
		buf_printf(b, "%s%s(o, %s, \"%s\");\n", tabs(depth + 1), fmt_fn(t), x, name);
		break;
	default:
		buf_printf(b, "%s%s(o, %s);\n", tabs(depth + 1), fmt_fn(t), x);
	}
}

const char *emit_format_fn(Type *t)
{
	char *name = format("sap_format_%s", t->mangle);
	if (strstr(E->helpers.s ? E->helpers.s : "", format("void %s(", name)))
		return name;
	Buf b = {0};
	buf_printf(&b, "static void %s(sap_out *o, const void *elem)\n{\n", name);
	buf_printf(&b, "\tconst %s *x = elem;\n", emit_ctype(t));
	/* The whole line, as load reads a dvector<string>. */
	if (t->kind == TY_STRING)
		buf_puts(&b, "\tsap_fmt_line(o, *x);\n");
	else
		format_fields(&b, t, "*x", "", 0);
	buf_puts(&b, "}\n\n");
	buf_puts(&E->helpers, b.s);
	return name;
}

/* ---- params ---- */

static const char *ptype(Type *t)
{
	switch (t->kind) {
	case TY_BOOL: return "SAP_P_BOOL";
	case TY_INT: return "SAP_P_INT";
	case TY_LONG: return "SAP_P_LONG";
	case TY_FLOAT: return "SAP_P_FLOAT";
	case TY_DOUBLE: return "SAP_P_DOUBLE";
	default: return "SAP_P_STRING";
	}
}

/* Counts, in each param's Sym, its names and those that are the file
 * name of a save() (Sym.uses, saved_as). */
static int param_use(Node *n, void *arg)
{
	(void)arg;
	if (n->kind == N_NAME && n->sym && n->sym->vclass == V_PARAM)
		n->sym->uses++;
	if (n->kind == N_CALL && n->builtin == B_SAVE && n->args && n->args->next &&
	    n->args->next->kind == N_NAME && n->args->next->sym)
		n->args->next->sym->saved_as++;
	return 0;
}

void emit_params(Program *p, const char *progname)
{
	Buf tab = {0};
	int n = 0;
	/* Once over the program: 200,000 params each walking it took
	 * minutes. */
	for (Node *it = p->items; it; it = it->next)
		emit_any_node(it, param_use, NULL);
	for (Node *it = p->items; it; it = it->next) {
		if (it->kind != N_VAR || it->vclass != V_PARAM)
			continue;
		Node *init = it->init;
		SrcFile *f = init->file;
		/* The default as the user wrote it, for --help. */
		const char *s = f->text + it->off;
		while (*s && *s != '=')
			s++;
		if (*s == '=')
			s++;
		while (*s == ' ' || *s == '\t')
			s++;
		/* Up to the ';' that ends the declaration: not one inside a
		 * string literal; comments dropped, line breaks as one blank. */
		Buf dv = {0};
		for (const char *e = s; *e && *e != ';'; e++) {
			if (*e == '"') {
				const char *q = e++;
				while (*e && *e != '"' && *e != '\n')
					e += (*e == '\\' && e[1]) ? 2 : 1;
				buf_printf(&dv, "%.*s", (int)(e - q + (*e == '"')), q);
				if (!*e)
					break;
			} else if (e[0] == '/' && e[1] == '/') {
				while (e[1] && e[1] != '\n')
					e++;
			} else if (e[0] == '/' && e[1] == '*') {
				const char *c = strstr(e + 2, "*/");
				if (!c)
					break;
				e = c + 1;
			} else if (strchr(" \t\r\n\f", *e)) {
				if (dv.len && dv.s[dv.len - 1] != ' ')
					buf_puts(&dv, " ");
			} else {
				buf_putc(&dv, *e);
			}
		}
		while (dv.len && dv.s[dv.len - 1] == ' ')
			dv.s[--dv.len] = 0;
		buf_printf(&tab, "\t{.name = %s, .type = %s, .addr = &%s, .defval = %s",
		           emit_cstr(it->sym->name, strlen(it->sym->name)), ptype(it->sym->ty),
		           it->sym->cname, emit_cstr(dv.s ? dv.s : "", dv.len));
		xfree(dv.s);
		if (it->doc)
			buf_printf(&tab, ",\n\t .doc = %s", emit_cstr(it->doc, strlen(it->doc)));
		/* Only ever the file name of a save(): it changes nothing a
		 * replay or a resume computes (sap_param.out_only). */
		if (it->sym->uses > 0 && it->sym->uses == it->sym->saved_as)
			buf_puts(&tab, ", .out_only = true");
		buf_puts(&tab, "},\n");
		n++;
	}
	if (n)
		buf_printf(&E->statics, "\nstatic const sap_param sap_params[] = {\n%s};\n", tab.s);
	SrcFile *main = p->files.v[p->files.n - 1];
	buf_printf(&E->statics, "static const sap_program sap_prog = {.name = %s, .source = %s",
	           emit_cstr(progname, strlen(progname)), emit_cstr(main->name, strlen(main->name)));
	if (n)
		buf_printf(&E->statics, ", .params = sap_params, .nparams = %d", n);
	buf_printf(&E->statics, ", .hash = %s};\n\n", emit_program_hash());
}

/* ---- print ---- */

/* Rewrite the format for the C types the arguments have in C: every
 * integer is printed as long long (an int under %u, %x, %X, %o as its 32
 * bits), every number as double. */
char *emit_print(Node *call)
{
	Node *f = call->args;
	Buf fmt = {0}, args = {0};
	buf_puts(&args, "");
	Node *a = f->next;
	const char *s = f->sval;
	for (size_t i = 0; i < (size_t)f->ival; i++) {
		if (s[i] != '%') {
			buf_putc(&fmt, s[i]);
			continue;
		}
		size_t start = i++;
		if (s[i] == '%') {
			buf_puts(&fmt, "%%");
			continue;
		}
		while (s[i] && !strchr("diuxXocfeEgGaAs", s[i]))
			i++;
		char c = s[i];
		Buf spec = {0};
		buf_puts(&spec, "");
		for (size_t j = start; j < i; j++)
			if (!strchr("hlLqjzt", s[j]))
				buf_putc(&spec, s[j]);
		char *v = emit_expr(a);
		if (c == 'c') {
			buf_printf(&fmt, "%sc", spec.s);
			buf_printf(&args, ", (int)%s", v);
		} else if (strchr("uxXo", c) && a->ty->kind != TY_LONG) {
			/* As C prints an int: its 32 bits, not those of its
			 * sign extension. */
			buf_printf(&fmt, "%sll%c", spec.s, c);
			buf_printf(&args, ", (unsigned long long)(uint32_t)%s", v);
		} else if (strchr("diuxXo", c)) {
			buf_printf(&fmt, "%sll%c", spec.s, c);
			buf_printf(&args, ", (long long)%s", v);
		} else if (c == 's') {
			buf_printf(&fmt, "%ss", spec.s);
			buf_printf(&args, ", sap_str_c(%s)", v);
		} else {
			buf_printf(&fmt, "%s%c", spec.s, c);
			buf_printf(&args, ", (double)%s", v);
		}
		a = a->next;
	}
	return format("sap_print(%s%s)", emit_cstr(fmt.s ? fmt.s : "", fmt.len), args.s);
}
