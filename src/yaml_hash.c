/*
 * yaml_hash.c
 *		Ruby's Hash semantics for the YAML reader's object graph: keys
 *		compared by eql? and hash, Hash#[]= (a repeated key keeps its place
 *		and takes the new value), and String keys interned as MRI does.
 *		Large Hashes get an index so a key is found in constant time.
 */
#include "yaml_internal.h"

#include <stddef.h>
#include <string.h>

/* --- Hash keys: eql? and hash ------------------------------------------- */

struct RKeyIndex
{
	uint32_t   *slots;			/* pair number + 1, 0 empty */
	uint32_t	cap;
};

static bool
ascii_only(const RVal *v)
{
	for (size_t i = 0; i < v->len; i++)
		if ((uint8_t) v->str[i] >= 0x80)
			return false;
	return true;
}

/* FNV-1a, then a finalizer: table slots come from the low bits */
static uint64_t
bytes_hash(const char *s, size_t len, uint64_t h)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t) s[i]) * 1099511628211ULL;
	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/*
 * Hash#hash of a key: Strings by their bytes (and encoding unless ASCII,
 * as rb_str_hash), Symbols by name, numbers by value (-0.0 is 0.0); other
 * keys (and NaN) by identity.  Strings and Symbols keep theirs.
 */
static uint64_t
key_hash(RVal *k)
{
	uint64_t	h = 1469598103934665603ULL ^ k->kind;

	if (k->hashed)
		return k->hash;
	switch (k->kind)
	{
		case RV_STRING:
			h = bytes_hash(k->str, k->len, 1469598103934665603ULL);
			if (!ascii_only(k))
				h ^= (uint64_t) (k->enc + 1) * 0x9E3779B97F4A7C15ULL;
			k->hash = h;
			k->hashed = true;
			return h;
		case RV_SYMBOL:
			k->hash = bytes_hash(k->str, k->len, h);
			k->hashed = true;
			return k->hash;
		case RV_INT:
			return bytes_hash((const char *) &k->ival, 8, h);
		case RV_FLOAT:
			if (k->dval == k->dval)
			{
				double		d = k->dval == 0 ? 0.0 : k->dval;

				return bytes_hash((const char *) &d, 8, h);
			}
			/* FALLTHROUGH */
		default:
			return bytes_hash((const char *) &k, sizeof(k), h);
	}
}

/* eql? of two keys */
static bool
key_eql(RVal *a, RVal *b)
{
	if (a == b)
		return true;
	if (a->kind != b->kind)
		return false;
	switch (a->kind)
	{
		case RV_STRING:
			return a->len == b->len && key_hash(a) == key_hash(b) &&
				memcmp(a->str, b->str, a->len) == 0 &&
				(a->enc == b->enc || ascii_only(a));
		case RV_SYMBOL:
			return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
		case RV_INT:
			return a->ival == b->ival;
		case RV_FLOAT:
			return a->dval == b->dval;
		default:
			return false;
	}
}

static void
index_put(RKeyIndex *ix, RVal *h, uint32_t pair)
{
	uint32_t	j = (uint32_t) key_hash(h->items.v[pair * 2]) & (ix->cap - 1);

	while (ix->slots[j])
		j = (j + 1) & (ix->cap - 1);
	ix->slots[j] = pair + 1;
}

static void
index_build(YState *st, RVal *h)
{
	RKeyIndex  *ix = h->index;
	uint32_t	pairs = h->items.n / 2;
	uint32_t	cap = 64;

	while (cap < pairs * 4)
		cap *= 2;
	if (ix == NULL)
		ix = h->index = yr_alloc(st, sizeof(RKeyIndex));
	ix->slots = yr_alloc(st, cap * sizeof(uint32_t));
	memset(ix->slots, 0, cap * sizeof(uint32_t));
	ix->cap = cap;
	for (uint32_t p = 0; p < pairs; p++)
		index_put(ix, h, p);
}

/* The pair number of key in h, or -1. */
static int64_t
hash_find(YState *st, RVal *h, RVal *key)
{
	uint32_t	pairs = h->items.n / 2;

	if (pairs < 8)
	{
		for (uint32_t p = 0; p < pairs; p++)
			if (key_eql(h->items.v[p * 2], key))
				return p;
		return -1;
	}
	if (h->index == NULL || pairs * 2 > h->index->cap)
		index_build(st, h);
	for (uint32_t j = (uint32_t) key_hash(key) & (h->index->cap - 1);
		 h->index->slots[j]; j = (j + 1) & (h->index->cap - 1))
		if (key_eql(h->items.v[(h->index->slots[j] - 1) * 2], key))
			return h->index->slots[j] - 1;
	return -1;
}

/* Hash#[]= (key already as the Hash will hold it) */
void
yr_hash_set(YState *st, RVal *h, RVal *key, RVal *value)
{
	int64_t		p = hash_find(st, h, key);

	if (p >= 0)
	{
		h->items.v[p * 2 + 1] = value;
		return;
	}
	yr_push(st, &h->items, key);
	yr_push(st, &h->items, value);
	if (h->index && (h->items.n / 2) * 2 <= h->index->cap)
		index_put(h->index, h, h->items.n / 2 - 1);
	else if (h->index)
		index_build(st, h);
}

/* h[key] for a String key written in C, or NULL */
RVal *
yr_hash_get(RVal *h, const char *key)
{
	size_t		len = strlen(key);

	for (uint32_t p = 0; p < h->items.n / 2; p++)
	{
		RVal	   *k = h->items.v[p * 2];

		if (k->kind == RV_STRING && k->len == len && memcmp(k->str, key, len) == 0)
			return h->items.v[p * 2 + 1];
	}
	return NULL;
}

/*
 * -key: a bare String becomes MRI's interned frozen String (one object per
 * bytes and encoding: the writer's fstring table), others a frozen copy
 */
RVal *
yr_deduplicate(YState *st, RVal *key)
{
	RVal	   *k;

	if (key->kind != RV_STRING || key->frozen)
		return key;
	k = yr_new(st, RV_STRING);
	*k = *key;
	k->slot = 0;
	k->frozen = key->cls == NULL && key->ivars.n == 0;
	return k;
}
