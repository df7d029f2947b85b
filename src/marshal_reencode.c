/*
 * marshal_reencode.c
 *		A value of a stream written again as a stream of its own.
 *
 * What MRI's Marshal.dump writes for a value it loaded: symbols and object
 * links renumbered from zero, an object that the original stream wrote
 * outside the value (and links to) written in full where the value first
 * uses it, and MRI's normalisations (packed longs, Float text and flonum
 * links, Bignums that fit a long become Integers, the encoding ivar first).
 * _dump payloads (u) are copied as they are: only their class could say how
 * it would dump them again.
 *
 * A change (marshal_edit.h) is made while writing: one container's entries
 * dropped, replaced or added from another document, class names renamed.
 */
#include "marshal_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Objects written so far, by the offset where their value starts in the
 * source: a link to one of them becomes a link to its new slot.  Filled as
 * objects are written, so extracting a small value costs nothing per
 * object of the whole stream.
 */
typedef struct Written
{
	uint32_t	pos;			/* 0 = empty (no value starts at offset 0) */
	uint32_t	slot;
} Written;

typedef struct Reenc
{
	const MarshalDoc *doc;
	MarshalWriter *w;
	MarshalWalk walk;			/* hooks, error, depth */
	Written    *written;
	size_t		nwritten;
	size_t		cap;			/* power of two */
	/* a change to make while writing (marshal_edit.h), made once */
	const MarshalChange *change;
	bool		applied;
	struct Reenc *other;		/* the change's other document */
	uint8_t    *name;			/* a renamed class name */
	size_t		namecap;
	/* where the document's frozen String keys and zones are (as a table) */
	struct Reenc *fstrings;
	uint64_t	nvalues;		/* values written, for interrupt checks */
} Reenc;

static MarshalStatus re_value(Reenc *r, size_t pos, size_t *next);

static size_t
slot_hash(uint32_t pos, size_t cap)
{
	return (size_t) (pos * 2654435761u) & (cap - 1);
}

/* The new slot of the object whose value starts at pos, or -1. */
static int64_t
written_at(Reenc *r, size_t pos)
{
	if (r->cap == 0)
		return -1;
	for (size_t i = slot_hash((uint32_t) pos, r->cap); r->written[i].pos;
		 i = (i + 1) & (r->cap - 1))
		if (r->written[i].pos == pos)
			return r->written[i].slot;
	return -1;
}

/* Note that the value starting at pos was written as slot. */
static MarshalStatus
remember(Reenc *r, size_t pos, uint32_t slot)
{
	size_t		i;

	if ((r->nwritten + 1) * 2 > r->cap)
	{
		size_t		cap = r->cap ? r->cap * 2 : 64;
		Written    *t = marshal_alloc(r->walk.hooks, cap * sizeof(Written));

		if (t == NULL)
		{
			r->walk.err->status = MARSHAL_ERR_NOMEM;
			snprintf(r->walk.err->detail, sizeof(r->walk.err->detail), "out of memory");
			return MARSHAL_ERR_NOMEM;
		}
		memset(t, 0, cap * sizeof(Written));
		for (size_t k = 0; k < r->cap; k++)
		{
			if (!r->written[k].pos)
				continue;
			for (i = slot_hash(r->written[k].pos, cap); t[i].pos; i = (i + 1) & (cap - 1))
				;
			t[i] = r->written[k];
		}
		marshal_free(r->walk.hooks, r->written);
		r->written = t;
		r->cap = cap;
	}
	for (i = slot_hash((uint32_t) pos, r->cap); r->written[i].pos; i = (i + 1) & (r->cap - 1))
		;
	r->written[i].pos = (uint32_t) pos;
	r->written[i].slot = slot;
	r->nwritten++;
	return MARSHAL_OK;
}

static MarshalStatus
damaged(Reenc *r, size_t pos, const char *what)
{
	r->walk.err->status = MARSHAL_ERR_FORMAT;
	r->walk.err->offset = pos;
	snprintf(r->walk.err->detail, sizeof(r->walk.err->detail), "damaged value: %s", what);
	return MARSHAL_ERR_FORMAT;
}

static MarshalStatus
no_memory(Reenc *r)
{
	r->walk.err->status = MARSHAL_ERR_NOMEM;
	snprintf(r->walk.err->detail, sizeof(r->walk.err->detail), "out of memory");
	return MARSHAL_ERR_NOMEM;
}

/*
 * A class or module name as the change writes it: reported, and renamed if
 * it is the class renamed or a constant nested in it (From::Inner).
 */
static MarshalStatus
class_name(Reenc *r, MarshalBytes *name)
{
	const MarshalChange *c = r->change;
	size_t		fl;
	size_t		need;

	if (c == NULL)
		return MARSHAL_OK;
	if (c->on_class && !c->on_class(c->ctx, name->ptr, name->len))
		return no_memory(r);
	fl = c->from.len;
	if (fl == 0 || name->len < fl || memcmp(name->ptr, c->from.ptr, fl) != 0 ||
		(name->len > fl && (name->len < fl + 2 || memcmp(name->ptr + fl, "::", 2) != 0)))
		return MARSHAL_OK;
	need = c->to.len + name->len - fl;
	if (need > r->namecap)
	{
		uint8_t    *b = marshal_alloc(r->walk.hooks, need);

		if (b == NULL)
			return no_memory(r);
		marshal_free(r->walk.hooks, r->name);
		r->name = b;
		r->namecap = need;
	}
	memcpy(r->name, c->to.ptr, c->to.len);
	memcpy(r->name + c->to.len, name->ptr + fl, name->len - fl);
	name->ptr = r->name;
	name->len = need;
	return MARSHAL_OK;
}

/* Is the pair (name, value at pos) an encoding ivar (MRI's sym2encidx)? */
static MarshalStatus
is_encoding_pair(Reenc *r, MarshalBytes name, size_t pos, bool *yes)
{
	MarshalNode v;

	*yes = false;
	/* only E and encoding can be; a Time's other ivars are not read */
	if (!(name.len == 1 && name.ptr[0] == 'E') &&
		!(name.len == 8 && memcmp(name.ptr, "encoding", 8) == 0))
		return MARSHAL_OK;
	TRY(marshal_node(r->doc, pos, &v, r->walk.err));
	*yes = (name.len == 1 && name.ptr[0] == 'E' &&
			(v.type == MT_TRUE || v.type == MT_FALSE)) ||
		(name.len == 8 && memcmp(name.ptr, "encoding", 8) == 0 &&
		 v.type == MT_STRING);
	return MARSHAL_OK;
}

/* How many of count ivar pairs at pos are not about the encoding. */
/*
 * An ivar MRI reads but never dumps (its to_be_skipped_id): E or K that did
 * not act as the encoding or the ruby2_keywords flag (crafted streams give
 * them an encoding of their own), except K on a Hash, which MRI writes.
 */
static bool
not_dumped(MarshalBytes name, bool hash)
{
	return name.len == 1 && (name.ptr[0] == 'E' || (name.ptr[0] == 'K' && !hash));
}

static MarshalStatus
count_other_ivars(Reenc *r, size_t pos, int64_t count, bool hash,
				  uint32_t *others)
{
	bool		yes;

	*others = 0;
	for (int64_t i = 0; i < count; i++)
	{
		MarshalBytes name;

		TRY(marshal_symbol(r->doc, pos, &name, NULL, NULL, &pos, r->walk.err));
		TRY(is_encoding_pair(r, name, pos, &yes));
		*others += !yes && !not_dumped(name, hash);
		TRY(marshal_skip(r->doc, pos, &pos, r->walk.err));
	}
	return MARSHAL_OK;
}

static MarshalStatus re_fstring_key(Reenc *r, size_t pos, size_t *next,
								   bool *done);

/*
 * An ivar block of count pairs at pos: the encoding pair first (MRI writes
 * it from the object's encoding), then the others in their order.  A Time's
 * zone is a shared frozen String in MRI (time_mload), so repeats link.
 */
static MarshalStatus
re_ivars(Reenc *r, size_t pos, int64_t count, MarshalEncoding enc,
		 MarshalBytes encname, bool time, bool hash, size_t *end)
{
	size_t		p = pos;
	uint32_t	others = 0;
	bool		yes;

	TRY(count_other_ivars(r, pos, count, hash, &others));
	marshal_write_ivar_count(r->w, others + (enc != MENC_BINARY));
	if (enc != MENC_BINARY)
		marshal_write_encoding(r->w, enc, encname.ptr, encname.len);
	p = pos;
	for (int64_t i = 0; i < count; i++)
	{
		MarshalBytes name;
		MarshalEncoding nenc;
		MarshalBytes nencname;

		TRY(marshal_symbol(r->doc, p, &name, &nenc, &nencname, &p, r->walk.err));
		TRY(is_encoding_pair(r, name, p, &yes));
		if (yes || not_dumped(name, hash))
			TRY(marshal_skip(r->doc, p, &p, r->walk.err));
		else
		{
			bool		done = false;

			marshal_write_symbol_enc(r->w, name.ptr, name.len, nenc, nencname);
			if (time && name.len == 4 && memcmp(name.ptr, "zone", 4) == 0)
				TRY(re_fstring_key(r, p, &p, &done));
			if (!done)
				TRY(re_value(r, p, &p));
		}
	}
	*end = p;
	return MARSHAL_OK;
}

/*
 * A Hash key at pos that is a plain String (no class of its own, no ivars
 * but its encoding) written as a shared frozen String; *done tells whether
 * it was.
 */
static MarshalStatus
re_fstring_key(Reenc *r, size_t pos, size_t *next, bool *done)
{
	MarshalNode k;
	int64_t		count = 0;
	size_t		q;

	*done = false;
	if (pos >= r->doc->len || (r->doc->buf[pos] != MT_STRING && r->doc->buf[pos] != MT_IVAR))
		return MARSHAL_OK;
	TRY(marshal_node(r->doc, pos, &k, r->walk.err));
	if (k.type != MT_STRING || k.uclass.len != 0 || k.nextended != 0 ||
		k.encoding == MENC_NAMED)
		return MARSHAL_OK;
	if (k.has_ivars)
	{
		/* only the encoding pair may be there */
		TRY(marshal_long(r->doc, k.ivars, &count, &q, r->walk.err));
		if (count != (k.encoding != MENC_BINARY ? 1 : 0))
			return MARSHAL_OK;
	}
	if (written_at(r, pos) >= 0)
		return MARSHAL_OK;
	TRY(remember(r, pos, marshal_write_fstring(r->w, k.data.ptr, k.data.len,
											   k.encoding)));
	if (r->fstrings && written_at(r->fstrings, pos) < 0)
		TRY(remember(r->fstrings, pos, 0));
	*next = k.next;
	*done = true;
	return MARSHAL_OK;
}


/* A Symbol key as the String a HashWithIndifferentAccess keeps (to_s). */
static MarshalStatus
re_indifferent_key(Reenc *r, size_t pos, size_t *next)
{
	MarshalNode k;
	bool		done = false;
	MarshalEncoding enc = MENC_USASCII;

	TRY(marshal_node(r->doc, pos, &k, r->walk.err));
	if (k.type != MT_SYMBOL)
	{
		TRY(re_fstring_key(r, pos, next, &done));
		return done ? MARSHAL_OK : re_value(r, pos, next);
	}
	for (size_t i = 0; i < k.data.len; i++)
		if (k.data.ptr[i] >= 0x80)
			enc = k.encoding;
	(void) marshal_write_fstring(r->w, k.data.ptr, k.data.len, enc);
	return marshal_skip(r->doc, pos, next, r->walk.err);
}

/*
 * The value at pos as a HashWithIndifferentAccess stores it (its
 * convert_value): a Hash other than one becomes a new one, with String
 * keys and its default if truthy; an Array's elements are converted, the
 * Array kept (assigned) or copied (update).  Other values as they are.
 */
static MarshalStatus
re_converted(Reenc *r, size_t pos, MarshalConvert mode, size_t *next)
{
	MarshalNode n;
	size_t		p;
	bool		hwia;

	TRY(marshal_node(r->doc, pos, &n, r->walk.err));
	hwia = n.uclass.len == strlen(MARSHAL_HWIA) &&
		memcmp(n.uclass.ptr, MARSHAL_HWIA, n.uclass.len) == 0;
	if (mode == MCONV_NONE || (n.type != MT_ARRAY && n.type != MT_HASH &&
							   n.type != MT_HASH_DEF) || hwia ||
		(mode == MCONV_ASSIGN && n.type == MT_ARRAY && written_at(r, n.pos) >= 0))
		return re_value(r, pos, next);
	TRY(marshal_walk_deeper(&r->walk, pos));
	marshal_walk_check_stack(&r->walk, 1);
	p = n.items;
	if (n.type == MT_ARRAY)
	{
		if (n.uclass.len)
			marshal_write_uclass(r->w, n.uclass.ptr, n.uclass.len);
		if (mode == MCONV_ASSIGN)
			TRY(remember(r, n.pos, marshal_writer_objects(r->w)));
		marshal_write_array(r->w, n.count);
		for (uint32_t i = 0; i < n.count; i++)
			TRY(re_converted(r, p, MCONV_UPDATE, &p));
	}
	else
	{
		/* HashWithIndifferentAccess.new(hash): default kept if truthy */
		bool		with_default = false;
		size_t		q = p;

		if (n.type == MT_HASH_DEF)
		{
			for (uint32_t i = 0; i < 2 * n.count; i++)
				TRY(marshal_skip(r->doc, q, &q, r->walk.err));
			with_default = q < r->doc->len && r->doc->buf[q] != MT_NIL &&
				r->doc->buf[q] != MT_FALSE;
		}
		marshal_write_uclass(r->w, (const uint8_t *) MARSHAL_HWIA, strlen(MARSHAL_HWIA));
		if (with_default)
			marshal_write_hash_with_default(r->w, n.count);
		else
			marshal_write_hash(r->w, n.count);
		for (uint32_t i = 0; i < n.count; i++)
		{
			TRY(re_indifferent_key(r, p, &p));
			TRY(re_converted(r, p, MCONV_UPDATE, &p));
		}
		if (with_default)
			TRY(re_value(r, p, &p));
	}
	r->walk.depth--;
	/* where the value ends, past any ivars of its own */
	return marshal_skip(r->doc, pos, next, r->walk.err);
}

/*
 * A key or value of the change's other document, written where the changed
 * container has it; a plain Hash's String key as the frozen key Ruby keeps,
 * a value as the container stores it.
 */
static MarshalStatus
re_other(Reenc *r, size_t pos, bool fstring_key)
{
	Reenc	   *o = r->other;
	size_t		next;
	bool		done = false;

	o->walk.depth = r->walk.depth;
	if (fstring_key && r->change->convert)
		return re_indifferent_key(o, pos, &next);
	if (fstring_key)
		TRY(re_fstring_key(o, pos, &next, &done));
	if (!done && !fstring_key)
		return re_converted(o, pos, r->change->convert, &next);
	if (!done)
		TRY(re_value(o, pos, &next));
	return MARSHAL_OK;
}

/*
 * Loading stores a Hash's String keys as frozen, deduplicated strings
 * (rb_hash_key_str), a subclass's too, so MRI dumps equal keys as one
 * object; an identity Hash (C :Hash, innermost) keeps its own.
 */
static bool
identity_hash(const MarshalNode *n)
{
	return n->uclass.len == 4 && memcmp(n->uclass.ptr, "Hash", 4) == 0;
}

/* The entries added before entry i of the changed container n. */
static MarshalStatus
re_additions(Reenc *r, const MarshalNode *n, uint32_t i, uint32_t *k)
{
	const MarshalChange *c = r->change;
	bool		fstring_keys = !identity_hash(n);

	for (; *k < c->nadds && c->adds[*k].before == i; (*k)++)
	{
		const MarshalAddition *a = &c->adds[*k];

		switch (a->key_kind)
		{
			case MKEY_NONE:
				break;
			case MKEY_SYMBOL:
				marshal_write_symbol(r->w, a->key.ptr, a->key.len);
				break;
			case MKEY_STRING:
				if (fstring_keys)
					(void) marshal_write_fstring(r->w, a->key.ptr, a->key.len, a->key_enc);
				else
					marshal_write_string(r->w, a->key.ptr, a->key.len, a->key_enc);
				break;
			case MKEY_VALUE:
				TRY(re_other(r, a->key_pos, fstring_keys));
				break;
		}
		TRY(re_other(r, a->value, false));
	}
	return MARSHAL_OK;
}

static void reenc_free(Reenc *r);

/*
 * A value the change drops, read through without keeping what is written:
 * the frozen Strings in it are noted, as links from elsewhere to them are
 * links to the one frozen String of their text.
 */
static MarshalStatus
note_dropped(Reenc *r, size_t pos)
{
	Reenc		s = *r;
	size_t		next;
	MarshalStatus st;

	if (r->fstrings == NULL)
		return MARSHAL_OK;
	s.w = marshal_writer_new(r->walk.hooks);
	if (s.w == NULL)
		return no_memory(r);
	s.written = NULL;
	s.nwritten = s.cap = 0;
	s.name = NULL;
	s.namecap = 0;
	s.change = NULL;
	st = re_value(&s, pos, &next);
	reenc_free(&s);
	marshal_writer_free(s.w);
	return st;
}

/*
 * Entry i of the container being written, if the change drops or replaces
 * it: the key (or name) at p, if any, is written or skipped, and the value
 * skipped; *done when so.
 */
static MarshalStatus
re_changed_entry(Reenc *r, const MarshalChange *c, uint32_t i, size_t *p,
				 bool keyed, bool *done)
{
	*done = false;
	if (c == NULL || i >= c->nentries)
		return MARSHAL_OK;
	if (c->drop && c->drop[i])
	{
		if (keyed)
		{
			TRY(note_dropped(r, *p));
			TRY(marshal_skip(r->doc, *p, p, r->walk.err));
		}
		TRY(note_dropped(r, *p));
		TRY(marshal_skip(r->doc, *p, p, r->walk.err));
		*done = true;
	}
	else if (c->replace && c->replace[i])
	{
		/* the caller wrote the key */
		TRY(note_dropped(r, *p));
		TRY(marshal_skip(r->doc, *p, p, r->walk.err));
		TRY(re_other(r, c->replace[i], false));
		*done = true;
	}
	return MARSHAL_OK;
}

static bool
dropped(const MarshalChange *c, uint32_t i)
{
	return c && c->drop && i < c->nentries && c->drop[i];
}

/* Containers: the elements follow node->items. */
static MarshalStatus
re_container(Reenc *r, const MarshalNode *n, int64_t orig, size_t *end)
{
	size_t		p = n->items;
	uint32_t	slot = marshal_writer_objects(r->w);
	const MarshalChange *c = NULL;
	uint32_t	count = n->count;
	uint32_t	k = 0;
	bool		done;

	if (r->change && !r->applied && r->change->target == (size_t) orig)
	{
		c = r->change;
		r->applied = true;
		count += c->nadds;
		for (uint32_t i = 0; i < n->count; i++)
			count -= dropped(c, i);
	}
	switch (n->type)
	{
		case MT_ARRAY:
			marshal_write_array(r->w, count);
			if (c == NULL || c->fresh == MFRESH_NONE)
				TRY(remember(r, (size_t) orig, slot));
			for (uint32_t i = 0; i < n->count; i++)
			{
				if (c)
					TRY(re_additions(r, n, i, &k));
				TRY(re_changed_entry(r, c, i, &p, false, &done));
				if (!done)
					TRY(re_value(r, p, &p));
			}
			break;
		case MT_HASH:
		case MT_HASH_DEF:
			if (n->type == MT_HASH)
				marshal_write_hash(r->w, count);
			else
				marshal_write_hash_with_default(r->w, count);
			if (c == NULL || c->fresh == MFRESH_NONE)
				TRY(remember(r, (size_t) orig, slot));
			for (uint32_t i = 0; i < 2 * n->count + (n->type == MT_HASH_DEF); i++)
			{
				if (c && i % 2 == 0 && i < 2 * n->count)
				{
					TRY(re_additions(r, n, i / 2, &k));
					if (dropped(c, i / 2))
					{
						TRY(re_changed_entry(r, c, i / 2, &p, true, &done));
						i++;
						continue;
					}
				}
				if (c && i % 2 == 1)
				{
					TRY(re_changed_entry(r, c, i / 2, &p, false, &done));
					if (done)
						continue;
				}
				/* the default value follows the pairs and additions */
				if (c && i == 2 * n->count)
					TRY(re_additions(r, n, n->count, &k));

				if (i % 2 == 0 && i < 2 * n->count && !identity_hash(n))
				{
					TRY(re_fstring_key(r, p, &p, &done));
					if (done)
						continue;
				}
				TRY(re_value(r, p, &p));
			}
			break;
		case MT_STRUCT:
		case MT_OBJECT:
			{
				MarshalBytes cls = n->cls;

				TRY(class_name(r, &cls));
				marshal_write_named(r->w, n->type, cls.ptr, cls.len, count);
			}
			TRY(remember(r, (size_t) orig, slot));
			for (uint32_t i = 0; i < n->count; i++)
			{
				MarshalBytes name;
				MarshalEncoding enc;
				MarshalBytes encname;

				if (c)
					TRY(re_additions(r, n, i, &k));
				if (dropped(c, i))
				{
					TRY(re_changed_entry(r, c, i, &p, true, &done));
					continue;
				}
				TRY(marshal_symbol(r->doc, p, &name, &enc, &encname, &p, r->walk.err));
				marshal_write_symbol_enc(r->w, name.ptr, name.len, enc, encname);
				TRY(re_changed_entry(r, c, i, &p, false, &done));
				if (!done)
					TRY(re_value(r, p, &p));
			}
			break;
		case MT_USRMARSHAL:
		case MT_DATA:
			{
				MarshalBytes cls = n->cls;

				TRY(class_name(r, &cls));
				marshal_write_named(r->w, n->type, cls.ptr, cls.len, 0);
			}
			TRY(remember(r, (size_t) orig, slot));
			TRY(re_value(r, p, &p));
			break;
		default:
			return damaged(r, n->pos, "unexpected container");
	}
	/* additions at the end (a Hash's come before its default) */
	if (c && (n->type == MT_ARRAY || n->type == MT_HASH || n->type == MT_STRUCT ||
			  n->type == MT_OBJECT))
		TRY(re_additions(r, n, n->count, &k));
	*end = p;
	return MARSHAL_OK;
}

static MarshalStatus
re_value(Reenc *r, size_t pos, size_t *next)
{
	const MarshalDoc *doc = r->doc;
	MarshalNode n;
	size_t		p = pos;
	int64_t		orig;			/* where the value starts: its identity */
	MarshalStatus st = MARSHAL_OK;
	bool		seen_ivar = false;
	bool		between = false;	/* an e or C between the I and the value */
	MarshalFresh fresh = MFRESH_NONE;	/* the changed container, copied */

	if (pos >= doc->len)
		return damaged(r, pos, "missing value");
	if (doc->buf[pos] == MT_LINK)
	{
		int64_t		k;
		int64_t		slot;

		TRY(marshal_long(doc, pos + 1, &k, next, r->walk.err));
		if (k >= 0)
			TRY(marshal_doc_need(doc, 0, k + 1, r->walk.err));
		if (k < 0 || k >= doc->index.nobjects)
			return damaged(r, pos, "link out of range");
		slot = written_at(r, doc->index.obj_pos[k]);
		if (slot >= 0)
		{
			marshal_write_link(r->w, (uint32_t) slot);
			return MARSHAL_OK;
		}
		/* first use inside the value of an object written outside it */
		{
			size_t		ignored;
			bool		done = false;

			/* a frozen key or zone is one object with its equals */
			if (r->fstrings && written_at(r->fstrings, doc->index.obj_pos[k]) >= 0)
				TRY(re_fstring_key(r, doc->index.obj_pos[k], &ignored, &done));
			if (done)
				return MARSHAL_OK;
			return re_value(r, doc->index.obj_pos[k], &ignored);
		}
	}
	TRY(marshal_walk_deeper(&r->walk, pos));
	if ((++r->nvalues & 4095) == 0 && r->walk.hooks && r->walk.hooks->check_interrupts)
		r->walk.hooks->check_interrupts(r->walk.hooks->ctx);
	marshal_walk_check_stack(&r->walk, 8);

	/*
	 * An object written already because a link reached it first (from
	 * inside an object expanded out of order): link to it again.
	 */
	if ((orig = written_at(r, pos)) >= 0)
	{
		marshal_write_link(r->w, (uint32_t) orig);
		r->walk.depth--;
		return marshal_skip(doc, pos, next, r->walk.err);
	}
	TRY(marshal_node(doc, pos, &n, r->walk.err));
	orig = (int64_t) pos;
	if (r->change && !r->applied && r->change->target == pos)
		fresh = r->change->fresh;

	/* the wrappers, in MRI's order: I, e..., C */
	if (n.type != MT_SYMBOL)
	{
		/*
		 * Wrappers around a link (C :S @1, only in crafted streams): the link
		 * stays a link, so ivars given to it have no value of their own to
		 * follow and are left out.
		 */
		bool		to_link = false;

		{
			size_t		q = p;
			MarshalBytes ignored;

			while (q < doc->len && (doc->buf[q] == MT_IVAR || doc->buf[q] == MT_EXTENDED ||
									doc->buf[q] == MT_UCLASS))
			{
				if (doc->buf[q++] != MT_IVAR)
					TRY(marshal_symbol(doc, q, &ignored, NULL, NULL, &q, r->walk.err));
			}
			to_link = q < doc->len && doc->buf[q] == MT_LINK;
		}
		while (p < doc->len && (doc->buf[p] == MT_IVAR || doc->buf[p] == MT_EXTENDED ||
								doc->buf[p] == MT_UCLASS))
		{
			MarshalBytes name;
			int			c = doc->buf[p++];

			if (c == MT_IVAR)
				seen_ivar = true;
			else if (seen_ivar)
				between = true;
			if (c == MT_IVAR && to_link)
				continue;
			/* a dup has no extended modules; a new Array or Hash, nothing */
			if (fresh == MFRESH_PLAIN || (fresh == MFRESH_DUP && c == MT_EXTENDED))
			{
				if (c != MT_IVAR)
					TRY(marshal_symbol(doc, p, &name, NULL, NULL, &p, r->walk.err));
				continue;
			}
			if (c == MT_IVAR)
			{
				/* MRI writes no I for a flat value left without ivars */
				if (n.next && n.encoding == MENC_BINARY)
				{
					int64_t		count;
					size_t		q;
					uint32_t	others;

					TRY(marshal_long(doc, n.ivars, &count, &q, r->walk.err));
					TRY(count_other_ivars(r, q, count, false, &others));
					if (others == 0)
					{
						n.has_ivars = 0;
						continue;
					}
				}
				marshal_write_ivar_wrapper(r->w);
				continue;
			}
			TRY(marshal_symbol(doc, p, &name, NULL, NULL, &p, r->walk.err));
			TRY(class_name(r, &name));
			if (c == MT_EXTENDED)
				marshal_write_extended(r->w, name.ptr, name.len);
			else
				marshal_write_uclass(r->w, name.ptr, name.len);
		}
		if (to_link)
		{
			size_t		ignored;

			TRY(re_value(r, p, &ignored));
			r->walk.depth--;
			return marshal_skip(doc, pos, next, r->walk.err);
		}
	}

	switch (n.type)
	{
		case MT_NIL:
			marshal_write_nil(r->w);
			break;
		case MT_TRUE:
		case MT_FALSE:
			marshal_write_bool(r->w, n.type == MT_TRUE);
			break;
		case MT_FIXNUM:
			marshal_write_int(r->w, n.ival);
			break;
		case MT_SYMBOL:
			marshal_write_symbol_enc(r->w, n.data.ptr, n.data.len, n.encoding, n.encname);
			break;
		case MT_FLOAT:
			{
				double		d;
				uint32_t	before = marshal_writer_objects(r->w);

				if (!marshal_parse_float(n.data.ptr, n.data.len, &d))
					return damaged(r, pos, "unreadable float");
				marshal_write_float(r->w, d);
				if (marshal_writer_objects(r->w) != before)
					TRY(remember(r, (size_t) orig, before));
				break;
			}
		case MT_BIGNUM:
			{
				/*
				 * A real Bignum (beyond a 64-bit Fixnum) is an object that
				 * links can share; what fits a Fixnum never is.
				 */
				uint32_t	before = marshal_writer_objects(r->w);
				size_t		sig = n.data.len;

				while (sig > 0 && n.data.ptr[sig - 1] == 0)
					sig--;
				marshal_write_bignum(r->w, n.negative, n.data.ptr, n.data.len);
				if (sig > 8 || (sig == 8 && (n.data.ptr[7] & 0xC0) != 0))
					TRY(remember(r, (size_t) orig, before));
				break;
			}
		case MT_STRING:
			TRY(remember(r, (size_t) orig, marshal_writer_objects(r->w)));
			marshal_write_string_bytes(r->w, n.data.ptr, n.data.len);
			break;
		case MT_REGEXP:
			TRY(remember(r, (size_t) orig, marshal_writer_objects(r->w)));
			marshal_write_regexp(r->w, n.data.ptr, n.data.len, n.regexp_options);
			break;
		case MT_CLASS:
		case MT_MODULE:
		case MT_MODULE_OLD:
			/* the old-style M named a module; MRI writes modules as m */
			TRY(remember(r, (size_t) orig, marshal_writer_objects(r->w)));
			{
				MarshalBytes cls = n.data;

				TRY(class_name(r, &cls));
				marshal_write_class(r->w, n.type == MT_MODULE_OLD ? MT_MODULE : n.type,
									cls.ptr, cls.len);
			}
			break;
		case MT_USERDEF:
			{
				MarshalBytes cls = n.cls;

				TRY(class_name(r, &cls));
				marshal_write_userdef(r->w, cls.ptr, cls.len, n.data.ptr, n.data.len);
			}
			/*
			 * MRI numbers a u after its own ivars, unless a C or an e stands
			 * between the I and the u (I C :S u ..., I e :M u ...; r_object0
			 * passes no ivp through them): then the ivars come after it.  One
			 * outside the I (e :M I u ...) changes nothing.
			 */
			if (between)
				TRY(remember(r, (size_t) orig, marshal_write_remember(r->w)));
			break;
		default:
			st = re_container(r, &n, orig, next);
			break;
	}
	TRY(st);

	/* flat values: their ivar block (if wrapped) follows at once */
	if (n.next)
	{
		if (n.has_ivars && n.type != MT_SYMBOL)
		{
			int64_t		count;
			size_t		q;

			TRY(marshal_long(doc, n.ivars, &count, &q, r->walk.err));
			TRY(re_ivars(r, q, count, n.encoding, n.encname,
						 marshal_class_is(&n, MC_TIME), false, next));
		}
		else
			*next = n.next;
		if (n.type == MT_USERDEF && !between)
			TRY(remember(r, (size_t) orig, marshal_write_remember(r->w)));
	}
	else if (n.has_ivars)
	{
		/* a container's ivars follow its elements */
		int64_t		count;
			MarshalBytes none = {NULL, 0};

		TRY(marshal_long(doc, *next, &count, &p, r->walk.err));
		if (fresh == MFRESH_PLAIN)
			TRY(marshal_for_each_ivar(doc, p, (uint32_t) count, NULL, NULL, next, r->walk.err));
		else
			TRY(re_ivars(r, p, count, MENC_BINARY, none, false,
						 n.type == MT_HASH || n.type == MT_HASH_DEF, next));
	}
	r->walk.depth--;
	return MARSHAL_OK;
}

MarshalStatus
marshal_reencode_into(MarshalWriter *w, const MarshalDoc *doc, size_t pos,
					  const MarshalHooks *hooks, MarshalError *err)
{
	Reenc		r;
	size_t		next;
	MarshalStatus st;

	memset(&r, 0, sizeof(r));
	marshal_walk_start(&r.walk, hooks, MARSHAL_DEFAULT_MAX_DEPTH * 100, err);
	r.doc = doc;
	r.w = w;
	st = re_value(&r, pos, &next);
	marshal_free(hooks, r.written);
	return st;
}

static void
reenc_free(Reenc *r)
{
	marshal_free(r->walk.hooks, r->written);
	marshal_free(r->walk.hooks, r->name);
}

MarshalStatus
marshal_reencode_changed(const MarshalDoc *doc, const MarshalChange *change,
						 const MarshalHooks *hooks, uint32_t max_depth,
						 uint8_t **out, size_t *len, MarshalError *err)
{
	Reenc		r;
	Reenc		o;
	Reenc		f;
	Reenc		of;
	size_t		next;
	MarshalStatus st = MARSHAL_OK;

	memset(&r, 0, sizeof(r));
	marshal_walk_start(&r.walk, hooks, max_depth, err);
	/* the tables of frozen keys: hooks and error only */
	memset(&f, 0, sizeof(f));
	f.walk = r.walk;
	of = f;
	r.fstrings = &f;
	r.doc = doc;
	r.change = change;
	r.w = marshal_writer_new(hooks);
	if (r.w == NULL)
		return no_memory(&r);
	o = r;
	o.change = NULL;
	o.fstrings = &of;
	o.doc = change->other;
	r.other = &o;
	for (uint32_t i = 0; i < change->nfrozen && st == MARSHAL_OK; i++)
		st = remember(&of, change->frozen[i], 0);
	if (st == MARSHAL_OK)
		st = re_value(&r, MARSHAL_ROOT, &next);
	reenc_free(&r);
	reenc_free(&o);
	reenc_free(&f);
	reenc_free(&of);
	if (st == MARSHAL_OK)
		return marshal_writer_finish(r.w, out, len);
	marshal_writer_free(r.w);
	return st;
}

/* A packed long at *pos in MRI's own (shortest) form; false if not. */
static bool
canonical_long(const MarshalDoc *doc, size_t *pos, int64_t *x)
{
	size_t		start = *pos;
	uint8_t		buf[9];
	int8_t		c;

	if (!marshal_decode_long(doc->buf, doc->len, pos, x))
		return false;
	/* a one-byte form is the only form of its value, but 05 and fb: 0 */
	c = (int8_t) doc->buf[start];
	if (c == 5 || c == -5)
		return false;
	if (c == 0 || c > 4 || c < -4)
		return true;
	return marshal_encode_long(*x, buf) == *pos - start &&
		memcmp(buf, doc->buf + start, *pos - start) == 0;
}

MarshalStatus
marshal_leaf(const MarshalDoc *doc, size_t pos, MarshalLeaf *leaf,
			 bool *found, MarshalError *err)
{
	const uint8_t *b = doc->buf;
	size_t		p = pos;
	bool		ivar = false;
	int64_t		x;

	*found = false;
	leaf->ntail = 0;
	leaf->ival = 0;
	leaf->data.ptr = NULL;
	leaf->data.len = 0;
	leaf->encoding = MENC_BINARY;
	if (p < doc->len && b[p] == MT_IVAR)
	{
		ivar = true;
		p++;
	}
	if (p >= doc->len)
		return MARSHAL_OK;
	leaf->type = b[p++];
	switch (leaf->type)
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			break;
		case MT_FIXNUM:
			/* wider ones MRI (64-bit) may write back as a Bignum */
			if (!canonical_long(doc, &p, &x) || x >= (1 << 30) || x < -(1 << 30))
				return MARSHAL_OK;
			leaf->ival = x;
			break;
		case MT_STRING:
			if (!canonical_long(doc, &p, &x) || x < 0 || (uint64_t) x > doc->len - p)
				return MARSHAL_OK;
			leaf->data.ptr = b + p;
			leaf->data.len = (size_t) x;
			p += (size_t) x;
			break;
		default:
			return MARSHAL_OK;
	}
	leaf->body.ptr = b + pos;
	leaf->body.len = p - pos;
	if (ivar)
	{
		/* String only, exactly one ivar, E, true or false */
		if (leaf->type != MT_STRING || p + 2 >= doc->len || b[p] != 0x06)
			return MARSHAL_OK;
		if (b[p + 1] == MT_SYMLINK)
		{
			int64_t		k;
			MarshalBytes name;
			bool		plain;
			MarshalStatus st;

			p += 2;
			if (!marshal_decode_long(b, doc->len, &p, &k) || p >= doc->len)
				return MARSHAL_OK;
			if ((st = marshal_find_symbol(doc, k, &name, &plain, err)) != MARSHAL_OK)
				return st;
			if (!plain || name.len != 1 || name.ptr[0] != 'E')
				return MARSHAL_OK;
		}
		else if (b[p + 1] == MT_SYMBOL && p + 4 < doc->len &&
				 b[p + 2] == 0x06 && b[p + 3] == 'E')
			p += 4;
		else
			return MARSHAL_OK;
		if (b[p] != MT_TRUE && b[p] != MT_FALSE)
			return MARSHAL_OK;
		leaf->encoding = b[p] == MT_TRUE ? MENC_UTF8 : MENC_USASCII;
		memcpy(leaf->tail, "\x06:\x06" "E", 4);
		leaf->tail[4] = b[p++];
		leaf->ntail = 5;
	}
	leaf->end = p;
	*found = true;
	return MARSHAL_OK;
}

size_t
marshal_leaf_write(const MarshalLeaf *leaf, uint8_t *out)
{
	out[0] = 4;
	out[1] = 8;
	memcpy(out + 2, leaf->body.ptr, leaf->body.len);
	memcpy(out + 2 + leaf->body.len, leaf->tail, leaf->ntail);
	return MARSHAL_LEAF_SIZE(leaf);
}

MarshalStatus
marshal_reencode(const MarshalDoc *doc, size_t pos, const MarshalHooks *hooks,
				 uint8_t **out, size_t *len, MarshalError *err)
{
	MarshalWriter *w;
	MarshalLeaf leaf;
	bool		found;
	MarshalStatus st;

	if ((st = marshal_leaf(doc, pos, &leaf, &found, err)) != MARSHAL_OK)
		return st;
	if (found)
	{
		size_t		n = MARSHAL_LEAF_SIZE(&leaf);
		uint8_t    *buf = marshal_alloc(hooks, n);

		if (buf == NULL)
		{
			err->status = MARSHAL_ERR_NOMEM;
			snprintf(err->detail, sizeof(err->detail), "out of memory");
			return MARSHAL_ERR_NOMEM;
		}
		*len = marshal_leaf_write(&leaf, buf);
		*out = buf;
		return MARSHAL_OK;
	}
	w = marshal_writer_new(hooks);
	if (w == NULL)
		st = MARSHAL_ERR_NOMEM;
	else if ((st = marshal_reencode_into(w, doc, pos, hooks, err)) == MARSHAL_OK)
		return marshal_writer_finish(w, out, len);
	else
		marshal_writer_free(w);
	if (st == MARSHAL_ERR_NOMEM)
	{
		err->status = st;
		snprintf(err->detail, sizeof(err->detail), "out of memory");
	}
	return st;
}

/*
 * A small value re-encoded by copying (marshal_reencode_small): the bytes
 * written so far, the objects written (by where their value starts in the
 * source; a link to one is a link to its place here) and the symbols, by
 * name, as the writer numbers them.  Anything it does not know is left to
 * marshal_reencode.
 */
#define SMALL_OBJECTS 32
#define SMALL_SYMBOLS 16
#define SMALL_DEPTH 16
#define SMALL_NOT_SOURCE UINT32_MAX	/* an object no link reaches */

typedef struct Small
{
	const MarshalDoc *doc;
	uint8_t    *out;
	size_t		cap;
	size_t		len;
	uint32_t	objects[SMALL_OBJECTS];
	uint32_t	nobjects;
	MarshalBytes symbols[SMALL_SYMBOLS];
	uint32_t	nsymbols;
	int			floats;			/* one at most: no flonum links to make */
	int			encodings;		/* one at most: no name String to share */
	int			zones;			/* one written in place at most */
	int			depth;
} Small;

static bool
small_put(Small *s, const void *p, size_t n)
{
	if (n > s->cap - s->len)
		return false;
	memcpy(s->out + s->len, p, n);
	s->len += n;
	return true;
}

static bool
small_byte(Small *s, uint8_t b)
{
	return small_put(s, &b, 1);
}

static bool
small_long(Small *s, int64_t x)
{
	uint8_t		buf[9];

	return small_put(s, buf, marshal_encode_long(x, buf));
}

/* A length-prefixed byte string, as the writer's put_bytes. */
static bool
small_bytes(Small *s, const uint8_t *p, size_t n)
{
	return small_long(s, (int64_t) n) && small_put(s, p, n);
}

static bool
small_object(Small *s, size_t pos)
{
	if (s->nobjects == SMALL_OBJECTS)
		return false;
	s->objects[s->nobjects++] = (uint32_t) pos;
	return true;
}

/* A symbol written by name: an ASCII one without a wrapper only. */
static bool
small_name(Small *s, MarshalBytes name)
{
	for (size_t i = 0; i < name.len; i++)
		if (name.ptr[i] >= 0x80)
			return false;
	for (uint32_t i = 0; i < s->nsymbols; i++)
		if (s->symbols[i].len == name.len &&
			memcmp(s->symbols[i].ptr, name.ptr, name.len) == 0)
			return small_byte(s, MT_SYMLINK) && small_long(s, i);
	if (s->nsymbols == SMALL_SYMBOLS)
		return false;
	s->symbols[s->nsymbols++] = name;
	return small_byte(s, MT_SYMBOL) && small_bytes(s, name.ptr, name.len);
}

/* The symbol (: or ;) at pos; *name, *next. */
static bool
small_symbol(Small *s, size_t pos, MarshalBytes *name, size_t *next)
{
	const MarshalDoc *doc = s->doc;
	size_t		p = pos + 1;
	int64_t		k;
	bool		plain;
	MarshalError err;

	if (pos >= doc->len || !marshal_decode_long(doc->buf, doc->len, &p, &k))
		return false;
	if (doc->buf[pos] == MT_SYMBOL)
	{
		if (k < 0 || (uint64_t) k > doc->len - p)
			return false;
		name->ptr = doc->buf + p;
		name->len = (size_t) k;
		*next = p + (size_t) k;
	}
	else if (doc->buf[pos] != MT_SYMLINK ||
			 marshal_find_symbol(doc, k, name, &plain, &err) != MARSHAL_OK || !plain)
		return false;
	else
		*next = p;
	return small_name(s, *name);
}

/*
 * A String with one ivar, its encoding (I " ... E true|false, or encoding
 * "name"): as re_ivars writes it, the encoding from the String's own.
 */
static bool
small_string_ivar(Small *s, size_t pos, size_t *next)
{
	const MarshalDoc *doc = s->doc;
	MarshalNode n;
	MarshalError err;
	MarshalBytes name;
	int64_t		count;
	size_t		p;
	bool		yes;
	Reenc		r;

	if (marshal_node(doc, pos, &n, &err) != MARSHAL_OK || n.type != MT_STRING ||
		n.uclass.len != 0 || n.nextended != 0 || !n.has_ivars ||
		n.encoding == MENC_BINARY ||
		marshal_long(doc, n.ivars, &count, &p, &err) != MARSHAL_OK || count != 1 ||
		marshal_symbol(doc, p, &name, NULL, NULL, &p, &err) != MARSHAL_OK)
		return false;
	memset(&r, 0, sizeof(r));
	r.doc = doc;
	r.walk.err = &err;
	if (is_encoding_pair(&r, name, p, &yes) != MARSHAL_OK || !yes ||
		marshal_skip(doc, p, next, &err) != MARSHAL_OK ||
		!small_byte(s, MT_IVAR) || !small_object(s, pos) ||
		!small_byte(s, MT_STRING) || !small_bytes(s, n.data.ptr, n.data.len) ||
		!small_long(s, 1))
		return false;
	if (n.encoding == MENC_UTF8 || n.encoding == MENC_USASCII)
		return small_name(s, (MarshalBytes) {(const uint8_t *) "E", 1}) &&
			small_byte(s, n.encoding == MENC_UTF8 ? MT_TRUE : MT_FALSE);
	return s->encodings++ == 0 &&
		small_name(s, (MarshalBytes) {(const uint8_t *) "encoding", 8}) &&
		small_object(s, SMALL_NOT_SOURCE) && small_byte(s, MT_STRING) &&
		small_bytes(s, n.encname.ptr, n.encname.len);
}

static bool small_value(Small *s, size_t pos, size_t *next);

/* A u's class and bytes at p (past the u), copied; *next past them. */
static bool
small_userdef_data(Small *s, size_t p, MarshalBytes *cls, size_t *next)
{
	const MarshalDoc *doc = s->doc;
	int64_t		x;

	if (!small_byte(s, MT_USERDEF) || !small_symbol(s, p, cls, &p) ||
		!marshal_decode_long(doc->buf, doc->len, &p, &x) || x < 0 ||
		(uint64_t) x > doc->len - p || !small_bytes(s, doc->buf + p, (size_t) x))
		return false;
	*next = p + (size_t) x;
	return true;
}

/*
 * A u with ivars (a Time's zone, offset, nano_num...) as re_value writes
 * one: its ivars in their order (no encoding or flag among them), its slot
 * after them, as MRI numbers it.  A Time's zone String is a shared frozen
 * String to the re-encoder: one written in place at most, so that none
 * would have linked to another of its text.
 */
static bool
small_userdef_ivars(Small *s, size_t pos, size_t *next)
{
	const MarshalDoc *doc = s->doc;
	const uint8_t *b = doc->buf;
	size_t		p;
	MarshalBytes cls;
	MarshalBytes name;
	int64_t		count;
	bool		time;

	if (!small_byte(s, MT_IVAR) || !small_userdef_data(s, pos + 2, &cls, &p))
		return false;
	if (!marshal_decode_long(b, doc->len, &p, &count) || count <= 0 ||
		count > SMALL_SYMBOLS || !small_long(s, count))
		return false;
	time = marshal_bytes_eq(cls, "Time");
	for (int64_t i = 0; i < count; i++)
	{
		if (!small_symbol(s, p, &name, &p) ||
			(name.len == 1 && (name.ptr[0] == 'E' || name.ptr[0] == 'K')) ||
			marshal_bytes_eq(name, "encoding"))
			return false;
		if (time && marshal_bytes_eq(name, "zone") && p < doc->len &&
			(b[p] == MT_STRING || b[p] == MT_IVAR) && s->zones++ > 0)
			return false;
		if (!small_value(s, p, &p))
			return false;
	}
	*next = p;
	return small_object(s, pos);
}

static bool
small_value(Small *s, size_t pos, size_t *next)
{
	const MarshalDoc *doc = s->doc;
	const uint8_t *b = doc->buf;
	size_t		p = pos + 1;
	int64_t		x;
	MarshalBytes name;
	MarshalError err;
	bool		ok = false;

	if (pos >= doc->len || ++s->depth > SMALL_DEPTH)
		return false;
	/* written already, a link having reached it first: linked again */
	for (uint32_t i = 0; i < s->nobjects; i++)
		if (s->objects[i] == pos)
		{
			ok = small_byte(s, MT_LINK) && small_long(s, i) &&
				marshal_skip(doc, pos, next, &err) == MARSHAL_OK;
			goto out;
		}
	switch (b[pos])
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			*next = p;
			ok = small_byte(s, b[pos]);
			break;
		case MT_FIXNUM:
			/* what MRI (64-bit) writes as an Integer; the writer's form */
			ok = marshal_decode_long(b, doc->len, &p, &x) &&
				x >= -(INT64_C(1) << 30) && x < (INT64_C(1) << 30) &&
				small_byte(s, MT_FIXNUM) && small_long(s, x);
			*next = p;
			break;
		case MT_LINK:
			if (!marshal_decode_long(b, doc->len, &p, &x) || x < 0 ||
				marshal_doc_need(doc, 0, x + 1, &err) != MARSHAL_OK ||
				x >= doc->index.nobjects)
				break;
			*next = p;
			for (uint32_t i = 0; i < s->nobjects; i++)
				if (s->objects[i] == doc->index.obj_pos[x])
				{
					ok = small_byte(s, MT_LINK) && small_long(s, i);
					goto out;
				}
			/* first use of an object written outside the value: in full */
			ok = small_value(s, doc->index.obj_pos[x], &p);
			break;
		case MT_ARRAY:
			if (!marshal_decode_long(b, doc->len, &p, &x) || x < 0 ||
				!small_object(s, pos) || !small_byte(s, MT_ARRAY) || !small_long(s, x))
				break;
			ok = true;
			for (int64_t i = 0; i < x && ok; i++)
				ok = small_value(s, p, &p);
			*next = p;
			break;
		case MT_STRING:
			if (!marshal_decode_long(b, doc->len, &p, &x) || x < 0 ||
				(uint64_t) x > doc->len - p)
				break;
			*next = p + (size_t) x;
			ok = small_object(s, pos) && small_byte(s, MT_STRING) &&
				small_bytes(s, b + p, (size_t) x);
			break;
		case MT_IVAR:
			ok = p < doc->len &&
				(b[p] == MT_STRING ? small_string_ivar(s, pos, next) :
				 b[p] == MT_USERDEF && small_userdef_ivars(s, pos, next));
			break;
		case MT_FLOAT:
			{
				double		d;
				char		text[40];

				/* as marshal_write_float writes it, the first Float of a stream */
				if (!marshal_decode_long(b, doc->len, &p, &x) || x < 0 ||
					(uint64_t) x > doc->len - p || s->floats++ > 0 ||
					!marshal_parse_float(b + p, (size_t) x, &d))
					break;
				*next = p + (size_t) x;
				ok = small_object(s, pos) && small_byte(s, MT_FLOAT) &&
					small_bytes(s, (const uint8_t *) text, marshal_float_text(d, text));
				break;
			}
		case MT_USRMARSHAL:
			/* its slot first, then its class and data */
			ok = small_object(s, pos) && small_byte(s, MT_USRMARSHAL) &&
				small_symbol(s, p, &name, &p) && small_value(s, p, next);
			break;
		case MT_USERDEF:
			/* a bare u: its slot after its bytes (no ivars to come first) */
			ok = small_userdef_data(s, p, &name, next) && small_object(s, pos);
			break;
		default:
			break;
	}
out:
	s->depth--;
	return ok;
}

bool
marshal_reencode_small(const MarshalDoc *doc, size_t pos, uint8_t *out,
					   size_t cap, size_t *len)
{
	Small		s;
	size_t		next;

	memset(&s, 0, sizeof(s));
	s.doc = doc;
	s.out = out;
	s.cap = cap;
	if (!small_byte(&s, 4) || !small_byte(&s, 8) || !small_value(&s, pos, &next))
		return false;
	*len = s.len;
	return true;
}
