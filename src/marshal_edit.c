/*
 * marshal_edit.c
 *		Changing a value as Ruby would change the loaded object: the class
 *		names it references, renaming a class, deleting, setting, inserting,
 *		merging.
 *
 * Each edit finds the container to change (a path walked as navigation
 * walks it, keys matched as -> matches them) and says what happens to its
 * entries; the re-encoder writes the result (marshal_reencode_changed), so
 * the bytes are Marshal.dump's of the changed object: symbols and links
 * renumbered, a value dropped here but referenced elsewhere written in full
 * where it is next used.
 */
#include "marshal_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MarshalStatus
no_memory(MarshalError *err)
{
	err->status = MARSHAL_ERR_NOMEM;
	snprintf(err->detail, sizeof(err->detail), "out of memory");
	return MARSHAL_ERR_NOMEM;
}

/* --- class names --------------------------------------------------------- */

/*
 * The names seen, in order, and a hash set of them (indexes + 1; cap a
 * power of two, at least twice the count).
 */
typedef struct NameSet
{
	MarshalNames *names;
	uint32_t   *slots;
	uint32_t	cap;
} NameSet;

static uint32_t
name_hash(const uint8_t *s, size_t len)
{
	uint32_t	h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

static bool
grow_names(NameSet *set)
{
	MarshalNames *n = set->names;
	uint32_t	cap = set->cap ? set->cap * 2 : 64;
	uint32_t   *slots = marshal_alloc(n->hooks, cap * sizeof(uint32_t));
	MarshalBytes *names = marshal_alloc(n->hooks, (cap / 2) * sizeof(MarshalBytes));

	if (slots == NULL || names == NULL)
		return false;
	memset(slots, 0, cap * sizeof(uint32_t));
	for (uint32_t i = 0; i < n->count; i++)
	{
		uint32_t	j = name_hash(n->names[i].ptr, n->names[i].len) & (cap - 1);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = i + 1;
		names[i] = n->names[i];
	}
	marshal_free(n->hooks, set->slots);
	marshal_free(n->hooks, n->names);
	set->slots = slots;
	set->cap = cap;
	n->names = names;
	n->cap = cap / 2;
	return true;
}

static bool
add_name(void *ctx, const uint8_t *name, size_t len)
{
	NameSet    *set = ctx;
	MarshalNames *n = set->names;
	uint32_t	j;

	if (n->count + 1 > n->cap && !grow_names(set))
		return false;
	for (j = name_hash(name, len) & (set->cap - 1); set->slots[j]; j = (j + 1) & (set->cap - 1))
	{
		MarshalBytes *b = &n->names[set->slots[j] - 1];

		if (b->len == len && memcmp(b->ptr, name, len) == 0)
			return true;
	}
	set->slots[j] = n->count + 1;
	n->names[n->count].ptr = name;
	n->names[n->count].len = len;
	n->count++;
	return true;
}

MarshalStatus
marshal_class_names(const MarshalDoc *doc, const MarshalHooks *hooks,
					uint32_t max_depth, MarshalNames *names, MarshalError *err)
{
	MarshalChange change;
	NameSet		set;
	uint8_t    *out = NULL;
	size_t		len;
	MarshalStatus st;

	memset(names, 0, sizeof(*names));
	names->hooks = hooks;
	memset(&set, 0, sizeof(set));
	set.names = names;
	memset(&change, 0, sizeof(change));
	change.other = doc;
	change.on_class = add_name;
	change.ctx = &set;
	/* the walk that writes every name is the re-encoder's */
	st = marshal_reencode_changed(doc, &change, hooks, max_depth, &out, &len, err);
	marshal_free(hooks, out);
	marshal_free(hooks, set.slots);
	return st;
}

void
marshal_names_free(MarshalNames *names)
{
	marshal_free(names->hooks, names->names);
	names->names = NULL;
	names->count = 0;
}

MarshalStatus
marshal_rename_class(const MarshalDoc *doc, MarshalBytes from, MarshalBytes to,
					 const MarshalHooks *hooks, uint32_t max_depth,
					 uint8_t **out, size_t *len, MarshalError *err)
{
	MarshalChange change;

	memset(&change, 0, sizeof(change));
	change.other = doc;
	change.from = from;
	change.to = to;
	return marshal_reencode_changed(doc, &change, hooks, max_depth, out, len, err);
}

/* --- paths --------------------------------------------------------------- */

/* A path element that names an array position by its digits. */
static bool
parse_index(const MarshalPathStep *key, int64_t *index)
{
	char		buf[32];
	char	   *end;

	if (key->key == NULL)
	{
		*index = key->index;
		return true;
	}
	if (key->keylen == 0 || key->keylen >= sizeof(buf))
		return false;
	memcpy(buf, key->key, key->keylen);
	buf[key->keylen] = '\0';
	*index = strtoll(buf, &end, 10);
	return *end == '\0' && buf[0] != ' ';
}

/* The kinds of container an edit changes in place. */
static bool
editable(MarshalViewKind kind)
{
	return kind == MV_ARRAY || kind == MV_HASH || kind == MV_STRUCT ||
		kind == MV_IVARS;
}

/*
 * Walk path from the root as navigation does; *found false when a step
 * leads nowhere, *bad_index the element that should have been an index.
 */
static MarshalStatus
walk(const MarshalDoc *doc, const MarshalEditArgs *args, MarshalView *view,
	 bool *found, int *bad_index, MarshalError *err)
{
	size_t		pos = MARSHAL_ROOT;

	*found = false;
	*bad_index = -1;
	for (int i = 0; i < args->path.n; i++)
	{
		MarshalPathStep k = args->path.steps[i];
		size_t		next;

		TRY(marshal_view(doc, pos, view, err));
		if (view->kind == MV_SCALAR)
			return MARSHAL_OK;
		if (view->kind == MV_ARRAY || view->kind == MV_SET)
		{
			if (!parse_index(&k, &k.index))
			{
				*bad_index = i;
				return MARSHAL_OK;
			}
			k.key = NULL;
		}
		TRY(marshal_view_find(doc, view, &k, args->transcoder, &next, err));
		if (next == 0)
			return MARSHAL_OK;
		pos = next;
	}
	TRY(marshal_view(doc, pos, view, err));
	*found = true;
	return MARSHAL_OK;
}

/* The change being built for one container, its arrays from the hooks. */
typedef struct Edit
{
	const MarshalDoc *doc;
	const MarshalHooks *hooks;
	MarshalChange change;
	MarshalAddition add;
	uint8_t    *name;			/* an added ivar's @name */
} Edit;

static MarshalStatus
edit_start(Edit *e, const MarshalView *view, MarshalError *err)
{
	uint32_t	n = view->node.count;

	e->change.target = view->node.pos;
	e->change.nentries = n;
	e->change.drop = marshal_alloc(e->hooks, n + 1);
	e->change.replace = marshal_alloc(e->hooks, (n + 1) * sizeof(size_t));
	if (e->change.drop == NULL || e->change.replace == NULL)
		return no_memory(err);
	memset(e->change.drop, 0, n + 1);
	memset(e->change.replace, 0, (n + 1) * sizeof(size_t));
	return MARSHAL_OK;
}

static void
edit_end(Edit *e)
{
	marshal_free(e->hooks, e->change.drop);
	marshal_free(e->hooks, e->change.replace);
	marshal_free(e->hooks, e->name);
}

/*
 * The entries of a keyed container whose key (as text) is key: each marked
 * in marks (if not NULL); *last the raw index of the last one (the one
 * navigation finds), -1 if none; *all_symbols whether every key is a Symbol.
 */
static MarshalStatus
match_keys(const MarshalDoc *doc, const MarshalView *view,
		   const MarshalPathStep *key, const MarshalTranscoder *transcoder,
		   uint8_t *marks, int64_t *last,
		   bool *all_symbols, MarshalError *err)
{
	MarshalViewIter it;
	MarshalEntry e;
	bool		done;

	*last = -1;
	*all_symbols = view->kind == MV_HASH && view->node.count > 0;
	marshal_view_iter(view, &it);
	for (;;)
	{
		bool		match;

		TRY(marshal_view_next(doc, &it, &e, &done, err));
		if (done)
			break;
		marshal_doc_interrupts(doc, it.i);
		if (view->kind == MV_HASH && *all_symbols)
		{
			MarshalNode k;

			TRY(marshal_node(doc, e.key, &k, err));
			*all_symbols = k.type == MT_SYMBOL;
		}
		TRY(marshal_entry_matches(doc, &e, key->key, key->keylen, transcoder,
								  &match, err));
		if (!match)
			continue;
		/* the raw entry: it.i counts ivars without @ too */
		*last = it.i - 1;
		if (marks)
			marks[it.i - 1] = 1;
	}
	return MARSHAL_OK;
}

/* The text of an Array element if it is a String or Symbol in UTF-8 terms. */
static MarshalStatus
element_is_text(const MarshalDoc *doc, size_t pos, const MarshalPathStep *key,
				bool *yes, MarshalError *err)
{
	MarshalNode n;

	TRY(marshal_node(doc, pos, &n, err));
	*yes = (n.type == MT_STRING || n.type == MT_SYMBOL) &&
		n.encoding != MENC_NAMED && n.data.len == key->keylen &&
		memcmp(n.data.ptr, key->key, key->keylen) == 0;
	return MARSHAL_OK;
}

/* v - key (each of the keys): Hash#delete, ivars, Array elements equal. */
static MarshalStatus
edit_delete(Edit *e, const MarshalView *view, const MarshalEditArgs *args,
			bool *any, MarshalError *err)
{
	*any = false;
	for (int k = 0; k < args->nkeys; k++)
	{
		const MarshalPathStep *key = &args->keys[k];

		if (view->kind == MV_ARRAY)
		{
			size_t		p = view->node.items;

			for (uint32_t i = 0; i < view->node.count; i++)
			{
				bool		yes;

				marshal_doc_interrupts(e->doc, i);
				TRY(element_is_text(e->doc, p, key, &yes, err));
				if (yes)
					e->change.drop[i] = 1;
				TRY(marshal_skip(e->doc, p, &p, err));
			}
		}
		else
		{
			int64_t		last;
			bool		all_symbols;

			TRY(match_keys(e->doc, view, key, args->transcoder, e->change.drop,
						   &last, &all_symbols, err));
		}
	}
	for (uint32_t i = 0; i < view->node.count; i++)
		*any |= e->change.drop[i] != 0;
	return MARSHAL_OK;
}

/* An Array position (negative from the end) as an entry, or -1 if none. */
static int64_t
array_entry(int64_t index, uint32_t count)
{
	if (index < 0)
		index += count;
	return index >= 0 && index < count ? index : -1;
}

/*
 * rbmarshal_set and rbmarshal_insert on an Array: replace, or add (after
 * the end for a position past it, before the start before it).
 */
static void
edit_array_put(Edit *e, const MarshalView *view, MarshalEditKind kind,
			   int64_t index, size_t value, bool *any)
{
	uint32_t	count = view->node.count;
	int64_t		i = array_entry(index, count);

	*any = true;
	e->add.key_kind = MKEY_NONE;
	e->add.value = value;
	if (kind == MEDIT_SET || kind == MEDIT_SET_EXISTING)
	{
		if (i >= 0)
		{
			e->change.replace[i] = value;
			return;
		}
		if (kind == MEDIT_SET_EXISTING)
		{
			*any = false;
			return;
		}
		e->add.before = index < 0 ? 0 : count;
	}
	else if (i >= 0)
		e->add.before = (uint32_t) i + (kind == MEDIT_INSERT_AFTER);
	else
		e->add.before = index < 0 ? 0 : count;
	e->change.adds = &e->add;
	e->change.nadds = 1;
}

/* rbmarshal_set and rbmarshal_insert on a Hash, Struct or object. */
static MarshalStatus
edit_keyed_put(Edit *e, const MarshalView *view, const MarshalEditArgs *args,
			   size_t value, bool *any, MarshalEditRefusal *refusal,
			   MarshalError *err)
{
	const MarshalPathStep *key = &args->keys[0];
	int64_t		last;
	bool		all_symbols;

	*any = false;
	TRY(match_keys(e->doc, view, key, args->transcoder, NULL, &last,
				   &all_symbols, err));
	if (last >= 0)
	{
		if (args->kind == MEDIT_INSERT || args->kind == MEDIT_INSERT_AFTER)
		{
			*refusal = MEDIT_KEY_EXISTS;
			return MARSHAL_OK;
		}
		e->change.replace[last] = value;
		*any = true;
		return MARSHAL_OK;
	}
	/* a Struct's members are its class's: none can be added */
	if (args->kind == MEDIT_SET_EXISTING || view->kind == MV_STRUCT)
		return MARSHAL_OK;
	e->add.before = view->node.count;
	e->add.value = value;
	e->add.key.ptr = (const uint8_t *) key->key;
	e->add.key.len = key->keylen;
	if (view->kind == MV_IVARS)
	{
		e->name = marshal_alloc(e->hooks, key->keylen + 1);
		if (e->name == NULL)
			return no_memory(err);
		e->name[0] = '@';
		memcpy(e->name + 1, key->key, key->keylen);
		e->add.key.ptr = e->name;
		e->add.key.len = key->keylen + 1;
		e->add.key_kind = MKEY_SYMBOL;
	}
	else
	{
		e->add.key_kind = all_symbols ? MKEY_SYMBOL : MKEY_STRING;
		e->add.key_enc = MENC_UTF8;
	}
	e->change.adds = &e->add;
	e->change.nadds = 1;
	*any = true;
	return MARSHAL_OK;
}

MarshalStatus
marshal_edit_path(const MarshalDoc *doc, const MarshalEditArgs *args,
				  const MarshalHooks *hooks, uint32_t max_depth,
				  uint8_t **out, size_t *len, MarshalEditRefusal *refusal,
				  int *at, MarshalError *err)
{
	MarshalView view;
	Edit		e;
	bool		found;
	bool		any = false;
	MarshalStatus st;

	*out = NULL;
	*len = 0;
	*refusal = MEDIT_UNCHANGED;
	*at = -1;
	err->status = MARSHAL_OK;
	TRY(walk(doc, args, &view, &found, at, err));
	if (*at >= 0)
	{
		*refusal = MEDIT_NOT_INDEX;
		return MARSHAL_OK;
	}
	if (!found)
		return MARSHAL_OK;
	if (!editable(view.kind))
	{
		/* deleting from the value itself, which has no entries: refused */
		if (args->path.n == 0 && (args->kind == MEDIT_DELETE ||
								  args->kind == MEDIT_DELETE_AT ||
								  args->kind == MEDIT_DELETE_INDEX))
			*refusal = args->kind == MEDIT_DELETE_INDEX ? MEDIT_NOT_ARRAY : MEDIT_SCALAR;
		return MARSHAL_OK;
	}
	/* a Struct's members are its class's: none can be removed */
	if ((args->kind == MEDIT_DELETE || args->kind == MEDIT_DELETE_AT) &&
		view.kind == MV_STRUCT)
		return MARSHAL_OK;
	if (args->kind == MEDIT_DELETE_INDEX && view.kind != MV_ARRAY)
	{
		*refusal = MEDIT_NOT_ARRAY;
		return MARSHAL_OK;
	}

	memset(&e, 0, sizeof(e));
	e.doc = doc;
	e.hooks = hooks;
	e.change.other = args->value ? args->value : doc;
	/* a HashWithIndifferentAccess converts what []= stores */
	if (marshal_bytes_eq(view.node.uclass, MARSHAL_HWIA))
		e.change.convert = MCONV_ASSIGN;
	if ((st = edit_start(&e, &view, err)) != MARSHAL_OK)
		goto done;
	switch (args->kind)
	{
		case MEDIT_DELETE_AT:
			if (view.kind == MV_ARRAY)
			{
				int64_t		index;

				if (!parse_index(&args->keys[0], &index))
				{
					*refusal = MEDIT_NOT_INDEX;
					*at = args->path.n;
					break;
				}
				index = array_entry(index, view.node.count);
				if (index >= 0)
					e.change.drop[index] = any = 1;
				break;
			}
			/* FALLTHROUGH */
		case MEDIT_DELETE:
			st = edit_delete(&e, &view, args, &any, err);
			break;
		case MEDIT_DELETE_INDEX:
			{
				int64_t		i = array_entry(args->index, view.node.count);

				if (i >= 0)
					e.change.drop[i] = any = 1;
				break;
			}
		default:
			if (view.kind == MV_ARRAY)
			{
				int64_t		index;

				if (!parse_index(&args->keys[0], &index))
				{
					*refusal = MEDIT_NOT_INDEX;
					*at = args->path.n;
					break;
				}
				edit_array_put(&e, &view, args->kind, index, MARSHAL_ROOT, &any);
			}
			else
				st = edit_keyed_put(&e, &view, args, MARSHAL_ROOT, &any, refusal, err);
			break;
	}
	if (st == MARSHAL_OK && any)
	{
		*refusal = MEDIT_OK;
		st = marshal_reencode_changed(doc, &e.change, hooks, max_depth, out, len, err);
	}
done:
	edit_end(&e);
	return st;
}

/* --- v || w -------------------------------------------------------------- */

/*
 * Whether two Hash keys are one key to Ruby (eql?): Strings and Symbols of
 * the same bytes (in compatible encodings), Integers of the same value,
 * nil, true, false.  Other keys never are (their equality is their
 * class's).
 */
static MarshalStatus
same_key(const MarshalDoc *a, size_t pa, const MarshalDoc *b, size_t pb,
		 bool indifferent, bool *same, MarshalError *err)
{
	MarshalNode x;
	MarshalNode y;

	*same = false;
	TRY(marshal_node(a, pa, &x, err));
	TRY(marshal_node(b, pb, &y, err));
	/* a HashWithIndifferentAccess stores a Symbol key as its String */
	if (indifferent && y.type == MT_SYMBOL)
		y.type = MT_STRING;
	if (x.type != y.type || x.uclass.len != 0 || y.uclass.len != 0)
		return MARSHAL_OK;
	switch (x.type)
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			*same = true;
			break;
		case MT_FIXNUM:
			*same = x.ival == y.ival;
			break;
		case MT_STRING:
		case MT_SYMBOL:
			if (x.data.len != y.data.len || memcmp(x.data.ptr, y.data.ptr, x.data.len) != 0)
				break;
			/* equal bytes: one key if ASCII or in the same encoding */
			*same = x.encoding == y.encoding || marshal_utf8_valid(x.data.ptr, x.data.len, true);
			for (size_t i = 0; *same && x.encoding != y.encoding && i < x.data.len; i++)
				*same = x.data.ptr[i] < 0x80;
			if (x.encoding == MENC_NAMED && y.encoding == MENC_NAMED)
				*same = x.encname.len == y.encname.len &&
					memcmp(x.encname.ptr, y.encname.ptr, x.encname.len) == 0;
			break;
		default:
			break;
	}
	return MARSHAL_OK;
}

/*
 * Hash keys by a hash of what same_key compares, so merging is linear:
 * slots hold who + 1 (v's key i, or a.count + the addition).
 */
typedef struct KeySlot
{
	uint64_t	h;
	uint32_t	who;
} KeySlot;

typedef struct KeyTable
{
	KeySlot    *slots;
	size_t		cap;			/* a power of two, over twice the keys */
} KeyTable;

/* A key's hash; *hashable false for keys same_key never matches. */
static MarshalStatus
key_hash(const MarshalDoc *doc, size_t pos, bool indifferent, bool *hashable,
		 uint64_t *h, MarshalError *err)
{
	MarshalNode n;

	TRY(marshal_node(doc, pos, &n, err));
	*hashable = true;
	switch (n.type)
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			*h = (uint64_t) n.type;
			break;
		case MT_FIXNUM:
			*h = ((uint64_t) n.ival ^ MT_FIXNUM) * 0x9E3779B97F4A7C15ull;
			break;
		case MT_STRING:
		case MT_SYMBOL:
			*hashable = n.uclass.len == 0;
			*h = indifferent || n.type == MT_STRING ? MT_STRING : MT_SYMBOL;
			for (size_t i = 0; i < n.data.len; i++)
				*h = (*h ^ n.data.ptr[i]) * 1099511628211ull;
			break;
		default:
			*hashable = false;
			break;
	}
	return MARSHAL_OK;
}

static void
key_slot(KeyTable *t, uint64_t h, uint32_t who)
{
	size_t		s = h & (t->cap - 1);

	while (t->slots[s].who)
		s = (s + 1) & (t->cap - 1);
	t->slots[s].h = h;
	t->slots[s].who = who;
}

static MarshalStatus
key_put(KeyTable *t, const MarshalDoc *doc, size_t pos, bool indifferent,
		uint32_t who, MarshalError *err)
{
	uint64_t	h;
	bool		hashable;

	TRY(key_hash(doc, pos, indifferent, &hashable, &h, err));
	if (hashable)
		key_slot(t, h, who);
	return MARSHAL_OK;
}

/* Offsets of the keys and values of a Hash's pairs. */
static MarshalStatus
hash_pairs(const MarshalDoc *doc, const MarshalNode *n, size_t *keys,
		   size_t *values, MarshalError *err)
{
	size_t		p = n->items;

	for (uint32_t i = 0; i < n->count; i++)
	{
		keys[i] = p;
		TRY(marshal_skip(doc, p, &p, err));
		values[i] = p;
		TRY(marshal_skip(doc, p, &p, err));
	}
	return MARSHAL_OK;
}

MarshalStatus
marshal_concat(const MarshalDoc *v, const MarshalDoc *w,
			   const MarshalHooks *hooks, uint32_t max_depth,
			   uint8_t **out, size_t *len, bool *mismatch, MarshalError *err)
{
	MarshalNode a;
	MarshalNode b;
	Edit		e;
	MarshalAddition *adds = NULL;
	size_t	   *buf = NULL;
	KeyTable	keys = {NULL, 0};
	MarshalStatus st = MARSHAL_OK;

	*out = NULL;
	*mismatch = false;
	err->status = MARSHAL_OK;
	TRY(marshal_node(v, MARSHAL_ROOT, &a, err));
	TRY(marshal_node(w, MARSHAL_ROOT, &b, err));
	if ((a.type == MT_ARRAY) != (b.type == MT_ARRAY) ||
		(a.type != MT_ARRAY && a.type != MT_HASH && a.type != MT_HASH_DEF) ||
		(b.type != MT_ARRAY && b.type != MT_HASH && b.type != MT_HASH_DEF))
	{
		*mismatch = true;
		return MARSHAL_OK;
	}
	memset(&e, 0, sizeof(e));
	e.doc = v;
	e.hooks = hooks;
	e.change.target = MARSHAL_ROOT;
	e.change.other = w;
	/* Array#+ is a new plain Array; Hash#merge a dup of v */
	e.change.fresh = a.type == MT_ARRAY ? MFRESH_PLAIN : MFRESH_DUP;
	e.change.nentries = a.count;
	adds = marshal_alloc(hooks, (b.count + 1) * sizeof(MarshalAddition));
	if (adds == NULL)
		return no_memory(err);
	memset(adds, 0, (b.count + 1) * sizeof(MarshalAddition));
	e.change.adds = adds;
	if (a.type == MT_ARRAY)
	{
		size_t		p = b.items;

		for (uint32_t i = 0; i < b.count; i++)
		{
			adds[i].before = a.count;
			adds[i].key_kind = MKEY_NONE;
			adds[i].value = p;
			if ((st = marshal_skip(w, p, &p, err)) != MARSHAL_OK)
				goto done;
		}
		e.change.nadds = b.count;
	}
	else
	{
		/* w's pairs replace v's values under the same key, or are added */
		size_t	   *vk;
		size_t	   *vv;
		size_t	   *wk;
		size_t	   *wv;
		bool		indifferent;

		buf = marshal_alloc(hooks, (2 * (size_t) a.count + 2 * (size_t) b.count + 1) * sizeof(size_t));
		e.change.replace = marshal_alloc(hooks, (a.count + 1) * sizeof(size_t));
		if (buf == NULL || e.change.replace == NULL)
		{
			st = no_memory(err);
			goto done;
		}
		memset(e.change.replace, 0, (a.count + 1) * sizeof(size_t));
		indifferent = marshal_bytes_eq(a.uclass, MARSHAL_HWIA);
		/* update converts what it stores, unless from another one */
		if (indifferent && !marshal_bytes_eq(b.uclass, MARSHAL_HWIA))
			e.change.convert = MCONV_UPDATE;
		vk = buf;
		vv = vk + a.count;
		wk = vv + a.count;
		wv = wk + b.count;
		e.change.frozen = wk;
		if ((st = hash_pairs(v, &a, vk, vv, err)) != MARSHAL_OK ||
			(st = hash_pairs(w, &b, wk, wv, err)) != MARSHAL_OK)
			goto done;
		keys.cap = 4;
		while (keys.cap < 2 * ((size_t) a.count + b.count) + 2)
			keys.cap *= 2;
		keys.slots = marshal_alloc(hooks, keys.cap * sizeof(KeySlot));
		if (keys.slots == NULL)
		{
			st = no_memory(err);
			goto done;
		}
		memset(keys.slots, 0, keys.cap * sizeof(KeySlot));
		for (uint32_t i = 0; i < a.count; i++)
			if ((st = key_put(&keys, v, vk[i], indifferent, i + 1, err)) != MARSHAL_OK)
				goto done;
		for (uint32_t j = 0; j < b.count; j++)
		{
			int64_t		hit = -1;
			uint64_t	h;
			bool		hashable;

			if ((st = key_hash(w, wk[j], indifferent, &hashable, &h, err)) != MARSHAL_OK)
				goto done;
			for (size_t s = h & (keys.cap - 1); hashable && keys.slots[s].who && hit < 0;
				 s = (s + 1) & (keys.cap - 1))
			{
				uint32_t	who = keys.slots[s].who;
				bool		same;

				if (keys.slots[s].h != h)
					continue;
				/* one of v's keys, or one added earlier from w itself */
				if (who <= a.count)
					st = same_key(v, vk[who - 1], w, wk[j], indifferent, &same, err);
				else
					st = same_key(w, adds[who - a.count - 1].key_pos, w, wk[j], false, &same, err);
				if (st != MARSHAL_OK)
					goto done;
				if (same && who <= a.count)
					hit = who - 1;
				else if (same)
				{
					/* the later value wins */
					adds[who - a.count - 1].value = wv[j];
					hit = a.count;
				}
			}
			if (hit >= 0 && hit < a.count)
			{
				/* v's key stays; w's, a frozen String, is that one */
				e.change.replace[hit] = wv[j];
				if (b.uclass.len != 4 || memcmp(b.uclass.ptr, "Hash", 4) != 0)
					wk[e.change.nfrozen++] = wk[j];
			}
			else if (hit < 0)
			{
				MarshalAddition *ad = &adds[e.change.nadds++];
				MarshalNode k;

				ad->before = a.count;
				ad->key_kind = MKEY_VALUE;
				ad->key_pos = wk[j];
				ad->value = wv[j];
				if (hashable)
					key_slot(&keys, h, a.count + e.change.nadds);
				if (indifferent &&
					(st = marshal_node(w, wk[j], &k, err)) != MARSHAL_OK)
					goto done;
				if (indifferent && k.type == MT_SYMBOL)
				{
					/* Symbol#to_s: US-ASCII when it can be */
					ad->key_kind = MKEY_STRING;
					ad->key = k.data;
					ad->key_enc = MENC_USASCII;
					for (size_t c = 0; c < k.data.len; c++)
						if (k.data.ptr[c] >= 0x80)
							ad->key_enc = k.encoding;
				}
			}
			if (j % 1024 == 1023 && hooks && hooks->check_interrupts)
				hooks->check_interrupts(hooks->ctx);
		}
	}
	st = marshal_reencode_changed(v, &e.change, hooks, max_depth, out, len, err);
done:
	marshal_free(hooks, adds);
	marshal_free(hooks, keys.slots);
	marshal_free(hooks, buf);
	marshal_free(hooks, e.change.replace);
	return st;
}
