/* type.c: interned types, so that equal types are the same pointer, and
 * their C names. */
#include <string.h>
#include "sapc.h"

static Type t_void = {.kind = TY_VOID, .cname = "void", .mangle = "void"};
static Type t_bool = {.kind = TY_BOOL, .cname = "bool", .mangle = "bool"};
static Type t_int = {.kind = TY_INT, .cname = "int32_t", .mangle = "int"};
static Type t_long = {.kind = TY_LONG, .cname = "int64_t", .mangle = "long"};
static Type t_float = {.kind = TY_FLOAT, .cname = "float", .mangle = "float"};
static Type t_double = {.kind = TY_DOUBLE, .cname = "double", .mangle = "double"};
static Type t_string = {.kind = TY_STRING, .cname = "sap_str", .mangle = "string"};

Type *ty_void = &t_void, *ty_bool = &t_bool, *ty_int = &t_int, *ty_long = &t_long,
     *ty_float = &t_float, *ty_double = &t_double, *ty_string = &t_string;

/* Interned types in a hash table, so a program with thousands of types
 * does not take quadratic time. */
static Type **table;
static int ntypes, cap;

void ty_reset(void)
{
	table = NULL;
	ntypes = cap = 0;
}

static unsigned type_hash(TypeKind k, Type *elem, Type *key, int64_t len, Node *sdecl)
{
	uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15u;
	h = (h ^ (uintptr_t)elem) * 0x9E3779B97F4A7C15u;
	h = (h ^ (uintptr_t)key) * 0x9E3779B97F4A7C15u;
	h = (h ^ (uint64_t)len) * 0x9E3779B97F4A7C15u;
	h = (h ^ (uintptr_t)sdecl) * 0x9E3779B97F4A7C15u;
	return (unsigned)(h >> 32);
}

static void table_add(Type *t)
{
	unsigned m = (unsigned)cap - 1;
	unsigned i = type_hash(t->kind, t->elem, t->key, t->len, t->sdecl) & m;
	while (table[i])
		i = (i + 1) & m;
	table[i] = t;
}

static Type *intern(TypeKind k, Type *elem, Type *key, int64_t len, Node *sdecl)
{
	if (cap) {
		unsigned m = (unsigned)cap - 1;
		for (unsigned i = type_hash(k, elem, key, len, sdecl) & m; table[i]; i = (i + 1) & m) {
			Type *t = table[i];
			if (t->kind == k && t->elem == elem && t->key == key && t->len == len &&
			    t->sdecl == sdecl)
				return t;
		}
	}
	if (2 * (ntypes + 1) > cap) {
		Type **old = table;
		int ocap = cap;
		cap = cap ? 2 * cap : 64;
		table = xcalloc((size_t)cap, sizeof *table);
		for (int i = 0; i < ocap; i++)
			if (old[i])
				table_add(old[i]);
		xfree(old);
	}
	Type *t = xcalloc(1, sizeof *t);
	t->kind = k;
	t->elem = elem;
	t->key = key;
	t->len = len;
	t->sdecl = sdecl;
	table_add(t);
	ntypes++;
	/* Mangled names, in helpers' C names, are one per type: reverse
	 * Polish, arrays and lists after their elements (list<int>[3] is
	 * int_list_3, list<int[3]> int_3_list), and a struct's name behind
	 * its length, so that no struct (list_int, int_3) spells another
	 * type.  A DDS, never an element, may come first. */
	switch (k) {
	case TY_ARRAY:
		t->mangle = format("%s_%lld", elem->mangle, (long long)len);
		t->cname = format("sap_%s", t->mangle);
		break;
	case TY_LIST:
		t->mangle = format("%s_list", elem->mangle);
		t->cname = "sap_list";
		break;
	case TY_STRUCT:
		t->mangle = format("s%d%.*s", sdecl->name.len, sdecl->name.len, sdecl->name.p);
		t->cname = format("u_%.*s", sdecl->name.len, sdecl->name.p);
		break;
	case TY_DVEC:
		t->mangle = format("dvec_%s", elem->mangle);
		t->cname = "sap_dvec";
		break;
	case TY_DMAP:
	case TY_DMMAP:
		t->mangle = format("%s_%s_%s", k == TY_DMAP ? "dmap" : "dmmap", key->mangle,
		                   elem->mangle);
		t->cname = "sap_dmap";
		break;
	default:
		break;
	}
	return t;
}

Type *ty_array(Type *elem, int64_t len) { return intern(TY_ARRAY, elem, NULL, len, NULL); }
Type *ty_list(Type *elem) { return intern(TY_LIST, elem, NULL, 0, NULL); }
Type *ty_dvec(Type *elem) { return intern(TY_DVEC, elem, NULL, 0, NULL); }
Type *ty_dmap(Type *key, Type *val, bool multi)
{
	return intern(multi ? TY_DMMAP : TY_DMAP, val, key, 0, NULL);
}
Type *ty_struct(Node *sdecl) { return intern(TY_STRUCT, NULL, NULL, 0, sdecl); }

bool ty_is_int(Type *t) { return t->kind == TY_INT || t->kind == TY_LONG; }
bool ty_is_float(Type *t) { return t->kind == TY_FLOAT || t->kind == TY_DOUBLE; }
bool ty_is_num(Type *t) { return ty_is_int(t) || ty_is_float(t); }
bool ty_is_scalar(Type *t) { return ty_is_num(t) || t->kind == TY_BOOL; }
bool ty_is_dds(Type *t)
{
	return t->kind == TY_DVEC || t->kind == TY_DMAP || t->kind == TY_DMMAP;
}
bool ty_is_numarray(Type *t) { return t->kind == TY_ARRAY && ty_is_num(t->elem); }

bool ty_has_dds(Type *t)
{
	switch (t->kind) {
	case TY_DVEC: case TY_DMAP: case TY_DMMAP:
		return true;
	case TY_ARRAY: case TY_LIST:
		return ty_has_dds(t->elem);
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (f->ty && ty_has_dds(f->ty))
				return true;
		return false;
	default:
		return false;
	}
}

bool ty_needs_drop(Type *t)
{
	switch (t->kind) {
	case TY_LIST:
		return true;
	case TY_ARRAY:
		return ty_needs_drop(t->elem);
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (f->ty && ty_needs_drop(f->ty))
				return true;
		return false;
	default:
		return false;
	}
}

bool ty_is_flat(Type *t)
{
	switch (t->kind) {
	case TY_STRING: case TY_LIST: case TY_DVEC: case TY_DMAP: case TY_DMMAP:
		return false;
	case TY_ARRAY:
		return ty_is_flat(t->elem);
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (f->ty && !ty_is_flat(f->ty))
				return false;
		return true;
	default:
		return true;
	}
}

bool ty_has_flat_list(Type *t)
{
	switch (t->kind) {
	case TY_LIST:
		return ty_is_flat(t->elem);
	case TY_ARRAY:
		return ty_has_flat_list(t->elem);
	case TY_STRUCT:
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (f->ty && ty_has_flat_list(f->ty))
				return true;
		return false;
	default:
		return false;
	}
}

static int rank(Type *t)
{
	switch (t->kind) {
	case TY_BOOL: return 0;
	case TY_INT: return 1;
	case TY_LONG: return 2;
	case TY_FLOAT: return 3;
	case TY_DOUBLE: return 4;
	default: return -1;
	}
}

Type *ty_arith(Type *a, Type *b)
{
	Type *t = rank(a) >= rank(b) ? a : b;
	return t->kind == TY_BOOL ? ty_int : t;
}

const char *ty_str(Type *t)
{
	switch (t->kind) {
	case TY_VOID: return "void";
	case TY_BOOL: return "bool";
	case TY_INT: return "int";
	case TY_LONG: return "long";
	case TY_FLOAT: return "float";
	case TY_DOUBLE: return "double";
	case TY_STRING: return "string";
	case TY_ARRAY: {
		/* float[3][4]: the outer length comes first, as in C. */
		Type *e = t;
		Buf dims = {0};
		buf_puts(&dims, "");
		while (e->kind == TY_ARRAY) {
			buf_printf(&dims, "[%lld]", (long long)e->len);
			e = e->elem;
		}
		return format("%s%s", ty_str(e), dims.s);
	}
	case TY_STRUCT: return format("%.*s", t->sdecl->name.len, t->sdecl->name.p);
	case TY_LIST: return format("list<%s>", ty_str(t->elem));
	case TY_DVEC: return format("dvector<%s>", ty_str(t->elem));
	case TY_DMAP: return format("dmap<%s, %s>", ty_str(t->key), ty_str(t->elem));
	case TY_DMMAP: return format("dmultimap<%s, %s>", ty_str(t->key), ty_str(t->elem));
	}
	return "?";
}

int64_t ty_ncomp(Type *t)
{
	if (ty_is_float(t))
		return 1;
	if (t->kind == TY_ARRAY) {
		int64_t n = ty_ncomp(t->elem);
		return n ? n * t->len : 0;
	}
	return 0;
}

bool ty_is_numeric(Type *t)
{
	if (ty_is_num(t))
		return true;
	if (t->kind == TY_ARRAY)
		return ty_is_numeric(t->elem);
	if (t->kind != TY_STRUCT)
		return false;
	for (Node *f = t->sdecl->args; f; f = f->next)
		if (!ty_is_numeric(f->ty))
			return false;
	return t->sdecl->args != NULL;
}

Type *ty_first_scalar(Type *t)
{
	while (t->kind == TY_ARRAY || (t->kind == TY_STRUCT && t->sdecl->args))
		t = t->kind == TY_ARRAY ? t->elem : t->sdecl->args->ty;
	return t;
}

bool ty_all_of(Type *t, Type *s)
{
	if (t->kind == TY_ARRAY)
		return ty_all_of(t->elem, s);
	if (t->kind == TY_STRUCT) {
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (!ty_all_of(f->ty, s))
				return false;
		return true;
	}
	return t == s;
}

/* A struct of scalars only, whose natural layout has padding, is laid out
 * packed: {int row; double v;} takes 12 bytes, not 16.  Sparse entries
 * (index, value) are the bulk of many programs' data, so a quarter less
 * memory is a quarter less to stream through the cache every sweep.  Only
 * scalars, so no code needs the address of a member (strings, lists,
 * arrays and structs are passed by address); the runtime reads packed
 * scalars with memcpy (merge.c, relaxed.c). */
bool ty_packed(Type *t)
{
	if (t->kind != TY_STRUCT)
		return false;
	int64_t at = 0, a = 1, sum = 0;
	for (Node *f = t->sdecl->args; f; f = f->next) {
		if (!ty_is_scalar(f->ty))
			return false;
		int64_t fa = ty_calign(f->ty);
		at = (at + fa - 1) / fa * fa + ty_calign(f->ty);
		sum += ty_calign(f->ty);
		if (fa > a)
			a = fa;
	}
	return (at + a - 1) / a * a > sum;
}

int64_t ty_calign(Type *t)
{
	if (t->kind == TY_ARRAY)
		return ty_calign(t->elem);
	if (t->kind == TY_STRUCT) {
		if (ty_packed(t))
			return 1;
		int64_t a = 1;
		for (Node *f = t->sdecl->args; f; f = f->next)
			if (ty_calign(f->ty) > a)
				a = ty_calign(f->ty);
		return a;
	}
	return t->kind == TY_INT || t->kind == TY_FLOAT ? 4 : t->kind == TY_BOOL ? 1 : 8;
}

int64_t ty_field_align(Type *s, Type *f)
{
	return ty_packed(s) ? 1 : ty_calign(f);
}

int64_t ty_csize(Type *t)
{
	if (t->kind == TY_ARRAY)
		return t->len * ty_csize(t->elem);
	if (t->kind == TY_STRUCT) {
		int64_t at = 0, a = ty_calign(t);
		for (Node *f = t->sdecl->args; f; f = f->next) {
			int64_t fa = ty_field_align(t, f->ty);
			at = (at + fa - 1) / fa * fa + ty_csize(f->ty);
		}
		return (at + a - 1) / a * a;
	}
	return ty_calign(t);
}

Type *ty_scalar_of(Type *t)
{
	while (t->kind == TY_ARRAY)
		t = t->elem;
	return t;
}

/* Text fields an element writes: -1 if it holds a list, whose length
 * the type does not fix. */
int64_t ty_nfields(Type *t)
{
	switch (t->kind) {
	case TY_ARRAY: {
		int64_t n = ty_nfields(t->elem), r;
		if (n < 0)
			return -1;
		return __builtin_mul_overflow(n, t->len, &r) ? INT64_MAX : r;
	}
	case TY_STRUCT: {
		int64_t n = 0;
		for (Node *f = t->sdecl->args; f; f = f->next) {
			int64_t k = ty_nfields(f->ty);
			if (k < 0)
				return -1;
			if (__builtin_add_overflow(n, k, &n))
				return INT64_MAX;
		}
		return n;
	}
	case TY_LIST: case TY_DVEC: case TY_DMAP: case TY_DMMAP:
		return -1;
	default:
		return 1;
	}
}
