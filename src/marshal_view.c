/*
 * marshal_view.c
 *		The containers of the JSON view, for the JSON walker and navigation.
 *
 * Which Ruby values are JSON objects or arrays, and what their entries are,
 * is decided here once: the jsonb conversion and the path operators both
 * ask, so v -> k always agrees with v::jsonb -> k.
 */
#include "marshal_internal.h"
#include "marshal_to_s.h"

#include <stdio.h>
#include <string.h>

bool
marshal_bytes_eq(MarshalBytes b, const char *s)
{
	size_t		n = strlen(s);

	return b.len == n && memcmp(b.ptr, s, n) == 0;
}

MarshalStatus
marshal_for_each_ivar(const MarshalDoc *doc, size_t pos, uint32_t count,
					  MarshalIvarFn fn, void *arg, size_t *end,
					  MarshalError *err)
{
	for (uint32_t i = 0; i < count; i++)
	{
		MarshalBytes name;

		TRY(marshal_symbol(doc, pos, &name, NULL, NULL, &pos, err));
		if (fn)
			TRY(fn(doc, name, pos, arg, err));
		TRY(marshal_skip(doc, pos, &pos, err));
	}
	*end = pos;
	return MARSHAL_OK;
}

typedef struct FindIvar
{
	const char *name;
	size_t		vpos;
} FindIvar;

static MarshalStatus
find_ivar_fn(const MarshalDoc *doc, MarshalBytes name, size_t vpos, void *arg,
			 MarshalError *err)
{
	FindIvar   *f = arg;

	(void) doc;
	(void) err;
	if (marshal_bytes_eq(name, f->name))
		f->vpos = vpos;
	return MARSHAL_OK;
}

MarshalStatus
marshal_find_ivar(const MarshalDoc *doc, size_t pos, uint32_t count,
				  const char *name, size_t *vpos, MarshalError *err)
{
	FindIvar	f = {name, 0};
	size_t		end;

	*vpos = 0;
	TRY(marshal_for_each_ivar(doc, pos, count, find_ivar_fn, &f, &end, err));
	*vpos = f.vpos;
	return MARSHAL_OK;
}

/*
 * A DelegateClass dumps [:__v2__, [ivar names], [ivar values], obj] and its
 * as_json is obj's: *pos gets obj, else data itself.
 */
static MarshalStatus
delegated(const MarshalDoc *doc, size_t data, size_t *pos, MarshalError *err)
{
	MarshalNode arr;
	MarshalNode tag;
	size_t		p;
	MarshalStatus st;

	*pos = data;
	if ((st = marshal_node(doc, data, &arr, err)) != MARSHAL_OK)
		return st;
	if (arr.type != MT_ARRAY || arr.count != 4)
		return MARSHAL_OK;
	if ((st = marshal_node(doc, arr.items, &tag, err)) != MARSHAL_OK)
		return st;
	if (tag.type != MT_SYMBOL || !marshal_bytes_eq(tag.data, "__v2__"))
		return MARSHAL_OK;
	p = arr.items;
	for (int i = 0; i < 3; i++)
		if ((st = marshal_skip(doc, p, &p, err)) != MARSHAL_OK)
			return st;
	*pos = p;
	return MARSHAL_OK;
}

/*
 * Objects whose as_json is one instance variable's: the postgresql adapter's
 * wrappers of a value for the database (a 7.1-format record holds its
 * attributes in them, and the record Rails loads has their data: the Struct
 * OID::Array::Data's values, OID::Bit::Data's and OID::Xml::Data's @value),
 * ActionController::Parameters (its @parameters), GlobalID (its @uri's
 * to_s) and a loaded ActiveRecord::Relation (its @records; one not loaded
 * would query the database: refused).  *inner: that data, 0 for any other
 * value (or without the ivar).  ActiveModel::Errors is refused: its as_json
 * is its messages, which the app's I18n translations make.
 */
static MarshalStatus
adapter_data(const MarshalDoc *doc, const MarshalNode *n, const MarshalClass *cls,
			 size_t *inner, MarshalError *err)
{
#define PG_OID "ActiveRecord::ConnectionAdapters::PostgreSQL::OID::"
	*inner = 0;
	if (n->type == MT_STRUCT && marshal_bytes_eq(n->cls, PG_OID "Array::Data"))
		return marshal_find_ivar(doc, n->items, n->count, "values", inner, err);
	if (n->type != MT_OBJECT)
		return MARSHAL_OK;
	switch (cls ? cls->id : MC_NONE)
	{
		case MC_PARAMETERS:
			return marshal_find_ivar(doc, n->items, n->count, "@parameters", inner, err);
		case MC_GLOBALID:
			return marshal_find_ivar(doc, n->items, n->count, "@uri", inner, err);
		case MC_ERRORS:
			return marshal_error(err, MARSHAL_ERR_UNREPRESENTABLE, n->pos,
								 "the messages of class ActiveModel::Errors (its as_json) come "
								 "from the app's I18n translations, not the bytes");
		case MC_NONE:
			break;
		default:
			return MARSHAL_OK;
	}
	if (marshal_bytes_eq(n->cls, PG_OID "Bit::Data") || marshal_bytes_eq(n->cls, PG_OID "Xml::Data"))
		return marshal_find_ivar(doc, n->items, n->count, "@value", inner, err);
	if (marshal_class_is_relation(n))
	{
		size_t		loaded;
		MarshalNode l;
		MarshalStatus st;

		if ((st = marshal_find_ivar(doc, n->items, n->count, "@loaded", &loaded, err)) != MARSHAL_OK ||
			(loaded && (st = marshal_node(doc, loaded, &l, err)) != MARSHAL_OK) ||
			(loaded && l.type == MT_TRUE &&
			 (st = marshal_find_ivar(doc, n->items, n->count, "@records", inner, err)) != MARSHAL_OK))
			return st;
		if (*inner == 0)
			return marshal_error(err, MARSHAL_ERR_UNREPRESENTABLE, n->pos,
								 "an ActiveRecord::Relation that was not loaded (its as_json "
								 "queries the database; the records are not in the bytes)");
	}
	return MARSHAL_OK;
#undef PG_OID
}

MarshalStatus
marshal_view(const MarshalDoc *doc, size_t pos, MarshalView *view,
			 MarshalError *err)
{
	MarshalStatus st;
	uint32_t	hops = 0;

	/* not a memset: the node is most of the view and marshal_node fills it */
	view->kind = MV_SCALAR;
	memset(&view->record, 0, sizeof(view->record));
	for (;;)
	{
		MarshalNode *n = &view->node;
		const MarshalClass *cls;

		if ((st = marshal_node(doc, pos, n, err)) != MARSHAL_OK)
			return st;
		cls = n->type == MT_OBJECT || n->type == MT_USRMARSHAL ? marshal_class_of(n) : NULL;
		view->items = n->items;
		view->count = n->count;
		switch (n->type)
		{
			case MT_ARRAY:
				view->kind = MV_ARRAY;
				return MARSHAL_OK;
			case MT_HASH:
			case MT_HASH_DEF:
				view->kind = MV_HASH;
				return MARSHAL_OK;
			case MT_STRUCT:
				{
					size_t		inner;

					if ((st = adapter_data(doc, n, NULL, &inner, err)) != MARSHAL_OK)
						return st;
					if (inner == 0)
					{
						view->kind = MV_STRUCT;
						return MARSHAL_OK;
					}
					pos = inner;
				}
				break;
			case MT_OBJECT:
				{
					size_t		v;

					if (cls && cls->view == MCV_SET)
					{
						MarshalNode h;

						if ((st = marshal_find_ivar(doc, n->items, n->count, "@hash", &v, err)) != MARSHAL_OK)
							return st;
						if (v == 0 || (st = marshal_node(doc, v, &h, err)) != MARSHAL_OK ||
							(h.type != MT_HASH && h.type != MT_HASH_DEF))
							return st != MARSHAL_OK ? st : MARSHAL_OK;	/* a scalar */
						view->kind = MV_SET;
						view->items = h.items;
						view->count = h.count;
						return MARSHAL_OK;
					}
					if (cls && cls->view == MCV_SCALAR)
						return MARSHAL_OK;	/* MV_SCALAR */
					if ((st = adapter_data(doc, n, cls, &v, err)) != MARSHAL_OK)
						return st;
					if (v)
					{
						pos = v;
						break;
					}
					if ((st = marshal_record_view(doc, view, err)) != MARSHAL_OK ||
						view->kind == MV_RECORD)
						return st;
					/* an Exception is its message */
					if ((st = marshal_find_ivar(doc, n->items, n->count, "mesg", &v, err)) != MARSHAL_OK)
						return st;
					if (v)
						return MARSHAL_OK;
					view->kind = MV_IVARS;
					return MARSHAL_OK;
				}
			case MT_USRMARSHAL:
				/* the classes whose data is not the JSON value */
				if (cls && cls->view == MCV_SCALAR)
					return MARSHAL_OK;
				if (cls && (cls->view == MCV_TABLE || cls->view == MCV_EMPTY))
				{
					view->kind = cls->view == MCV_TABLE ? MV_TABLE : MV_HASH;
					view->count = cls->view == MCV_TABLE ? 1 : 0;
					return MARSHAL_OK;
				}
				/* a 7.1-format record, or another class: the data it dumped */
				if ((st = marshal_record71_view(doc, view, err)) != MARSHAL_OK ||
					view->kind == MV_RECORD ||
					(st = delegated(doc, n->items, &pos, err)) != MARSHAL_OK)
					return st;
				break;
			case MT_DATA:
				pos = n->items;
				break;
			default:
				return MARSHAL_OK;	/* MV_SCALAR */
		}
		if (++hops > doc->len)
			return MARSHAL_OK;	/* a chain of U through links: give up */
	}
}

void
marshal_view_iter(const MarshalView *view, MarshalViewIter *it)
{
	it->view = view;
	it->seg = 0;
	it->i = 0;
	it->pos = view->kind == MV_RECORD ? view->record.seg_items[0] : view->items;
	it->value = 0;
}

void
marshal_view_value_end(MarshalViewIter *it, size_t end)
{
	/* an attribute's value lies inside its Attribute object: pos is set */
	if (it->value)
		it->pos = end;
	it->value = 0;
}

MarshalStatus
marshal_view_next(const MarshalDoc *doc, MarshalViewIter *it,
				  MarshalEntry *e, bool *done, MarshalError *err)
{
	const MarshalView *v = it->view;
	MarshalStatus st;

	memset(e, 0, sizeof(*e));
	/* past the previous value, unless the caller said where it ended */
	if (it->value && (st = marshal_skip(doc, it->value, &it->pos, err)) != MARSHAL_OK)
		return st;
	it->value = 0;
	if (v->kind == MV_RECORD)
		return marshal_record_next(doc, it, e, done, err);
	for (;;)
	{
		if (v->kind == MV_SCALAR || it->i >= v->count)
		{
			*done = true;
			return MARSHAL_OK;
		}
		*done = false;
		it->i++;
		switch (v->kind)
		{
			case MV_ARRAY:
				break;
			case MV_HASH:
			case MV_SET:
				/* a Set's elements are the keys of its @hash */
				e->key = it->pos;
				if ((st = marshal_skip(doc, it->pos, &it->pos, err)) != MARSHAL_OK)
					return st;
				if (v->kind == MV_SET)
				{
					e->value = e->key;
					e->key = 0;
					if ((st = marshal_skip(doc, it->pos, &it->pos, err)) != MARSHAL_OK)
						return st;
					return MARSHAL_OK;
				}
				break;
			case MV_TABLE:
				e->name.ptr = (const uint8_t *) "table";
				e->name.len = 5;
				e->name_enc = MENC_UTF8;
				break;
			case MV_STRUCT:
			case MV_IVARS:
				if ((st = marshal_symbol(doc, it->pos, &e->name, &e->name_enc,
										 &e->name_encname, &it->pos, err)) != MARSHAL_OK)
					return st;
				/* instance_values: only @ivars, named without the @ */
				if (v->kind == MV_IVARS && (e->name.len < 2 || e->name.ptr[0] != '@'))
				{
					if ((st = marshal_skip(doc, it->pos, &it->pos, err)) != MARSHAL_OK)
						return st;
					continue;
				}
				if (v->kind == MV_IVARS)
				{
					e->name.ptr++;
					e->name.len--;
				}
				break;
			default:
				*done = true;
				return MARSHAL_OK;
		}
		e->value = it->value = it->pos;
		return MARSHAL_OK;
	}
}

MarshalStatus
marshal_key_text(const MarshalDoc *doc, const MarshalEntry *e, char *buf,
				 size_t size, MarshalKeyText *key, MarshalError *err)
{
	MarshalNode n;
	MarshalLeaf leaf;
	bool		found;
	MarshalStatus st;

	memset(key, 0, sizeof(*key));
	key->ok = true;
	if (e->key == 0)
	{
		/* a struct member or ivar name: a symbol */
		key->text = e->name;
		key->encoding = e->name_enc == MENC_BINARY ? MENC_UTF8 : e->name_enc;
		key->encname = e->name_encname;
		return MARSHAL_OK;
	}
	/* the usual String key, from its bytes alone */
	if ((st = marshal_leaf(doc, e->key, &leaf, &found, err)) != MARSHAL_OK)
		return st;
	if (found && leaf.type == MT_STRING)
	{
		key->type = MT_STRING;
		key->text = leaf.data;
		key->encoding = leaf.encoding;
		return MARSHAL_OK;
	}
	if ((st = marshal_node(doc, e->key, &n, err)) != MARSHAL_OK)
		return st;
	key->type = n.type;
	key->text.ptr = (const uint8_t *) buf;
	switch (n.type)
	{
		case MT_STRING:
		case MT_SYMBOL:
			key->text = n.data;
			key->encoding = n.encoding;
			key->encname = n.encname;
			return MARSHAL_OK;
		case MT_NIL:
			key->text.len = 0;
			break;
		case MT_TRUE:
		case MT_FALSE:
			key->text.len = (size_t) snprintf(buf, size, n.type == MT_TRUE ? "true" : "false");
			break;
		case MT_FIXNUM:
			key->text.len = (size_t) snprintf(buf, size, "%lld", (long long) n.ival);
			break;
		case MT_FLOAT:
			{
				double		d;

				if (size < 32 || !marshal_parse_float(n.data.ptr, n.data.len, &d))
				{
					key->ok = false;
					return MARSHAL_OK;
				}
				key->text.len = marshal_format_float(d, buf);
				break;
			}
		case MT_BIGNUM:
			{
				uint32_t	limbs[32];

				key->ok = n.data.len <= 4 * 32 &&
					marshal_bignum_decimal(n.data.ptr, n.data.len, n.negative,
										   buf, size, &key->text.len, limbs);
				break;
			}
		default:
			{
				/* Time, Date, BigDecimal, Range...: their to_s; inspect texts not */
				size_t		len;

				if ((st = marshal_to_s(doc, e->key, buf, size, &len, &key->ok, err)) != MARSHAL_OK)
					return st;
				key->text.len = len;
				key->encoding = MENC_UTF8;
				return MARSHAL_OK;
			}
	}
	key->encoding = MENC_USASCII;
	return MARSHAL_OK;
}

/* Printable ASCII without NUL: text every ASCII-based encoding reads alike. */
static bool
ascii_text(const uint8_t *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == 0 || s[i] >= 0x80)
			return false;
	return true;
}

/* What a Hash key's bytes alone say about it and the key sought. */
typedef enum
{
	KEY_UNSURE,
	KEY_OTHER,
	KEY_SAME
} KeyByBytes;

/*
 * A String or Symbol written in place with no ivars, or with one ivar
 * whose value is true or false (E; any other name is no encoding, and
 * validation refuses :encoding without a String), is UTF-8, US-ASCII or
 * binary: the key sought is its bytes or not.  One in another encoding is
 * certainly not an ASCII key sought if its bytes differ and are NUL-free
 * ASCII (UTF-16/32 text of ASCII has NULs).  Symbols (often links, which
 * need the symbol table) are not looked up.  *end is where the key ends
 * when it was read to its end, else 0.
 */
static KeyByBytes
key_by_any_bytes(const MarshalDoc *doc, size_t pos, const char *key,
				 size_t keylen, bool key_ascii, size_t *end)
{
	const uint8_t *b = doc->buf;
	int64_t		n;
	bool		ivar = false;
	bool		same;
	size_t		text;
	size_t		textlen;

	*end = 0;
	if (pos < doc->len && b[pos] == MT_IVAR)
	{
		ivar = true;
		pos++;
	}
	if (pos >= doc->len || (b[pos] != MT_STRING && b[pos] != MT_SYMBOL))
		return KEY_UNSURE;
	pos++;
	if (!marshal_decode_long(b, doc->len, &pos, &n) ||
		n < 0 || (uint64_t) n > doc->len - pos)
		return KEY_UNSURE;
	text = pos;
	textlen = (size_t) n;
	same = textlen == keylen && memcmp(b + pos, key, keylen) == 0;
	pos += textlen;
	if (ivar)
	{
		/* one ivar: a symbol (link or in place), then true or false */
		if (pos + 2 >= doc->len || b[pos] != 0x06)
			goto other_encoding;
		pos++;
		if (b[pos] == MT_SYMLINK)
		{
			pos++;
			if (!marshal_decode_long(b, doc->len, &pos, &n))
				goto other_encoding;
		}
		else if (b[pos] == MT_SYMBOL)
		{
			pos++;
			if (!marshal_decode_long(b, doc->len, &pos, &n) ||
				n < 0 || (uint64_t) n > doc->len - pos)
				goto other_encoding;
			pos += (size_t) n;
		}
		else
			goto other_encoding;
		if (pos >= doc->len || (b[pos] != MT_TRUE && b[pos] != MT_FALSE))
			goto other_encoding;
		pos++;
	}
	*end = pos;
	return same ? KEY_SAME : KEY_OTHER;

other_encoding:
	if (!same && key_ascii && ascii_text(b + text, textlen))
		return KEY_OTHER;
	return KEY_UNSURE;
}

/* The usual key, a short text String with its E linked, decided in line. */
static inline KeyByBytes
key_by_bytes(const MarshalDoc *doc, size_t pos, const char *key,
			 size_t keylen, bool key_ascii, size_t *end)
{
	const uint8_t *b = doc->buf;

	if (pos + 2 < doc->len && b[pos] == MT_IVAR && b[pos + 2] > 5 &&
		b[pos + 2] < 128 && (*end = marshal_skip_text_string(b, doc->len, pos + 1)) != 0)
		return (size_t) b[pos + 2] - 5 == keylen &&
			memcmp(b + pos + 3, key, keylen) == 0 ? KEY_SAME : KEY_OTHER;
	return key_by_any_bytes(doc, pos, key, keylen, key_ascii, end);
}

/*
 * Whether the entry's key, read as text (to_s), is the key sought: a key in
 * another encoding compares as the UTF-8 it converts to.
 */
MarshalStatus
marshal_entry_matches(const MarshalDoc *doc, const MarshalEntry *e, const char *key,
			  size_t keylen, const MarshalTranscoder *transcoder, bool *match,
			  MarshalError *err)
{
	MarshalKeyText k;
	MarshalStatus st;
	char		buf[MARSHAL_KEY_BUF];

	*match = false;
	if ((st = marshal_key_text(doc, e, buf, sizeof(buf), &k, err)) != MARSHAL_OK)
		return st;
	if (k.ok && k.encoding == MENC_NAMED)
	{
		char	   *conv;
		size_t		convlen;

		*match = marshal_transcode(transcoder, k.encname, k.text.ptr, k.text.len,
								   &conv, &convlen) &&
			convlen == keylen && memcmp(conv, key, keylen) == 0;
		return MARSHAL_OK;
	}
	*match = k.ok && k.text.len == keylen && memcmp(k.text.ptr, key, keylen) == 0;
	return MARSHAL_OK;
}

bool
marshal_transcode(const MarshalTranscoder *transcoder, MarshalBytes encname,
				  const uint8_t *s, size_t len, char **out, size_t *outlen)
{
	char		name[64];

	if (transcoder == NULL || transcoder->transcode == NULL ||
		encname.len >= sizeof(name))
		return false;
	memcpy(name, encname.ptr, encname.len);
	name[encname.len] = '\0';
	return transcoder->transcode(transcoder->ctx, name, s, len, out, outlen);
}

/*
 * A plain Hash, the usual target: one pass over its pairs, each key judged
 * by its bytes where it can be (the last matching key wins, as in a Ruby
 * Hash built in order).
 */
static MarshalStatus
hash_find(const MarshalDoc *doc, const MarshalView *view, const char *key,
		  size_t keylen, bool key_ascii, const MarshalTranscoder *transcoder,
		  size_t *found, MarshalError *err)
{
	size_t		pos = view->items;
	MarshalStatus st;

	for (int64_t i = 0; i < view->count; i++)
	{
		size_t		vpos;
		KeyByBytes kb;

		marshal_doc_interrupts(doc, i);
		kb = key_by_bytes(doc, pos, key, keylen, key_ascii, &vpos);

		if (vpos == 0 && (st = marshal_skip(doc, pos, &vpos, err)) != MARSHAL_OK)
			return st;
		if (kb == KEY_SAME)
			*found = vpos;
		else if (kb == KEY_UNSURE)
		{
			MarshalEntry e = {.key = pos, .value = vpos};
			bool		match;

			if ((st = marshal_entry_matches(doc, &e, key, keylen, transcoder, &match, err)) != MARSHAL_OK)
				return st;
			if (match)
				*found = vpos;
		}
		if ((pos = marshal_skip_leaf(doc->buf, doc->len, vpos)) == 0 &&
			(st = marshal_skip(doc, vpos, &pos, err)) != MARSHAL_OK)
			return st;
	}
	return MARSHAL_OK;
}

static MarshalStatus view_find(const MarshalDoc *doc, const MarshalView *view,
							   const MarshalPathStep *step,
							   const MarshalTranscoder *transcoder,
							   size_t *found, MarshalEntry *entry,
							   MarshalError *err);

MarshalStatus
marshal_view_find(const MarshalDoc *doc, const MarshalView *view,
				  const MarshalPathStep *step,
				  const MarshalTranscoder *transcoder, size_t *found,
				  MarshalError *err)
{
	MarshalEntry e;

	return view_find(doc, view, step, transcoder, found, &e, err);
}

MarshalStatus
marshal_view_find_entry(const MarshalDoc *doc, const MarshalView *view,
						const MarshalPathStep *step,
						const MarshalTranscoder *transcoder,
						MarshalEntry *found, MarshalError *err)
{
	size_t		pos;
	MarshalStatus st;

	memset(found, 0, sizeof(*found));
	st = view_find(doc, view, step, transcoder, &pos, found, err);
	if (st == MARSHAL_OK && pos != found->value)
	{
		/* found in a plain Hash: no cast */
		memset(found, 0, sizeof(*found));
		found->value = pos;
	}
	return st;
}

static MarshalStatus
view_find(const MarshalDoc *doc, const MarshalView *view,
		  const MarshalPathStep *step, const MarshalTranscoder *transcoder,
		  size_t *found, MarshalEntry *entry, MarshalError *err)
{
	const char *key = step->key;
	size_t		keylen = step->keylen;
	int64_t		index = step->index;
	MarshalViewIter it;
	MarshalEntry e;
	bool		done;
	MarshalStatus st;
	bool		key_ascii;

	*found = 0;
	if (key == NULL)
	{
		int64_t		n = view->count;

		if (view->kind != MV_ARRAY && view->kind != MV_SET)
			return MARSHAL_OK;
		if (index < 0)
			index += n;
		if (index < 0 || index >= n)
			return MARSHAL_OK;
		marshal_view_iter(view, &it);
		for (int64_t i = 0; i <= index; i++)
		{
			marshal_doc_interrupts(doc, i);
			if ((st = marshal_view_next(doc, &it, &e, &done, err)) != MARSHAL_OK || done)
				return st;
		}
		*found = e.value;
		return MARSHAL_OK;
	}
	if (!MARSHAL_VIEW_IS_OBJECT(view->kind))
		return MARSHAL_OK;
	key_ascii = ascii_text((const uint8_t *) key, keylen);
	if (view->kind == MV_HASH)
		return hash_find(doc, view, key, keylen, key_ascii, transcoder, found, err);
	/* the last matching key wins, as in a Ruby Hash built in order */
	marshal_view_iter(view, &it);
	for (int64_t i = 0;; i++)
	{
		bool		match;

		marshal_doc_interrupts(doc, i);
		if ((st = marshal_view_next(doc, &it, &e, &done, err)) != MARSHAL_OK)
			return st;
		if (done)
			return MARSHAL_OK;
		if (e.key)
		{
			size_t		end;
			KeyByBytes	kb = key_by_bytes(doc, e.key, key, keylen, key_ascii, &end);

			if (kb == KEY_SAME)
			{
				*found = e.value;
				*entry = e;
			}
			if (kb != KEY_UNSURE)
				continue;
		}
		if ((st = marshal_entry_matches(doc, &e, key, keylen, transcoder, &match, err)) != MARSHAL_OK)
			return st;
		if (match)
		{
			*found = e.value;
			*entry = e;
		}
	}
}
