/*
 * yaml_values.c
 *		The Ruby values the YAML reader builds: allocation, Array growth,
 *		instance variables, and MRI's per-class order of instance variables.
 *
 * MRI numbers a class's ivars in the order they are first set on any object
 * of that class and dumps an object's ivars in that order, so every ivar set
 * is noted in its class's index (yr_class_note) as it happens.
 */
#include "yaml_internal.h"

#include <string.h>

/* --- values ------------------------------------------------------------- */

RVal *
yr_new(YState *st, RKind kind)
{
	/* numbers, nil, true, false and Symbols stop before cls (see RVal) */
	size_t		size = kind <= RV_FLOAT || kind == RV_SYMBOL ?
		offsetof(RVal, cls) : sizeof(RVal);
	RVal	   *v = yr_alloc(st, size);

	memset(v, 0, size);
	v->kind = kind;
	return v;
}

RVal *
yr_string(YState *st, const char *s, size_t len, int enc)
{
	RVal	   *v = yr_new(st, RV_STRING);

	v->str = s;
	v->len = len;
	v->enc = (uint8_t) enc;
	return v;
}

RVal *
yr_symbol(YState *st, const YNode *n, const char *s, size_t len)
{
	yr_permit(st, n, "Symbol");
	return yr_symbol_of(st, s, len);
}

/* A Symbol Ruby code makes (to_sym), which safe mode does not check */
RVal *
yr_symbol_of(YState *st, const char *s, size_t len)
{
	RVal	   *v = yr_new(st, RV_SYMBOL);

	v->str = s;
	v->len = len;
	return v;
}

/* Room for n more items without growing */
void
yr_reserve(YState *st, RList *l, uint32_t n)
{
	RVal	  **a;

	if (l->cap - l->n >= n)
		return;
	a = yr_alloc(st, (size_t) (l->n + n) * sizeof(RVal *));
	if (l->n)
		memcpy(a, l->v, l->n * sizeof(RVal *));
	l->v = a;
	l->cap = l->n + n;
}

void
yr_push(YState *st, RList *l, RVal *v)
{
	if (l->n == l->cap)
	{
		uint32_t	cap = l->cap ? l->cap * 2 : 4;
		RVal	  **a = yr_alloc(st, cap * sizeof(RVal *));

		if (l->n)
			memcpy(a, l->v, l->n * sizeof(RVal *));
		l->v = a;
		l->cap = cap;
	}
	l->v[l->n++] = v;
}

/* --- the order of instance variables (MRI's per-class index) ------------ */

struct YClassIvars
{
	YClassIvars *next;
	const char *cls;
	const char **names;
	size_t	   *lens;
	uint32_t	n;
	uint32_t	cap;
};

const YClassIvars *
yr_class_ivars(YState *st, const char *cls)
{
	YClassIvars *c;

	for (c = st->classes; c; c = c->next)
		if (strcmp(c->cls, cls) == 0)
			return c;
	c = yr_alloc(st, sizeof(YClassIvars));
	memset(c, 0, sizeof(*c));
	c->cls = cls;
	c->next = st->classes;
	st->classes = c;
	return c;
}

int
yr_ivar_rank(const YClassIvars *c, const char *name, size_t len)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (c->lens[i] == len && memcmp(c->names[i], name, len) == 0)
			return (int) i;
	return -1;
}

/* Note the name in its class's index, as setting an ivar does in MRI. */
void
yr_class_note(YState *st, const char *cls, const char *name, size_t len)
{
	YClassIvars *c = (YClassIvars *) yr_class_ivars(st, cls);

	if (yr_ivar_rank(c, name, len) >= 0)
		return;
	if (c->n == c->cap)
	{
		uint32_t	cap = c->cap ? c->cap * 2 : 8;
		const char **names = yr_alloc(st, cap * sizeof(char *));
		size_t	   *lens = yr_alloc(st, cap * sizeof(size_t));

		if (c->n)
		{
			memcpy(names, c->names, c->n * sizeof(char *));
			memcpy(lens, c->lens, c->n * sizeof(size_t));
		}
		c->names = names;
		c->lens = lens;
		c->cap = cap;
	}
	c->names[c->n] = name;
	c->lens[c->n++] = len;
}

static const char *
class_of(const RVal *v)
{
	if (v->cls)
		return v->cls;
	switch (v->kind)
	{
		case RV_STRING:
			return "String";
		case RV_ARRAY:
			return "Array";
		case RV_HASH:
			return "Hash";
		case RV_REGEXP:
			return "Regexp";
		default:
			return "Object";
	}
}

void
yr_ivar_set(YState *st, RVal *obj, const char *name, size_t len, RVal *value)
{
	RIvars	   *iv = &obj->ivars;

	for (uint32_t i = 0; i < iv->n; i++)
		if (iv->v[i].len == len && memcmp(iv->v[i].name, name, len) == 0)
		{
			iv->v[i].value = value;
			return;
		}
	if (iv->n == iv->cap)
	{
		uint32_t	cap = iv->cap ? iv->cap * 2 : 4;
		RIvar	   *a = yr_alloc(st, cap * sizeof(RIvar));

		if (iv->n)
			memcpy(a, iv->v, iv->n * sizeof(RIvar));
		iv->v = a;
		iv->cap = cap;
	}
	iv->v[iv->n].name = name;
	iv->v[iv->n].len = len;
	iv->v[iv->n++].value = value;
	if (obj->kind != RV_STRUCT)
		yr_class_note(st, class_of(obj), name, len);
}
