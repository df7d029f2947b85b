/*
 * marshal_cursor.c
 *		Reading a validated, indexed stream: node headers, skipping, symbols.
 *
 * The walkers (jsonb, navigation, inspect) pull values through here instead
 * of parsing bytes themselves.  Input has been through marshal_index(), but
 * every read is still bounds-checked: a stored value damaged on disk gives
 * an error, never a read outside the buffer.
 */
#include "marshal_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static MarshalStatus
damaged(MarshalError *err, size_t offset, const char *what)
{
	err->status = MARSHAL_ERR_FORMAT;
	err->offset = offset;
	snprintf(err->detail, sizeof(err->detail), "damaged value: %s", what);
	return MARSHAL_ERR_FORMAT;
}

MarshalStatus
marshal_long(const MarshalDoc *doc, size_t pos, int64_t *value, size_t *end,
			 MarshalError *err)
{
	if (!marshal_decode_long(doc->buf, doc->len, &pos, value))
		return damaged(err, pos, "truncated long");
	*end = pos;
	return MARSHAL_OK;
}

/* A length-prefixed byte string at pos. */
static MarshalStatus
read_bytes(const MarshalDoc *doc, size_t pos, MarshalBytes *b, size_t *end,
		   MarshalError *err)
{
	int64_t		n;

	if (!marshal_decode_long(doc->buf, doc->len, &pos, &n) ||
		n < 0 || (uint64_t) n > doc->len - pos)
		return damaged(err, pos, "bad length");
	b->ptr = doc->buf + pos;
	b->len = (size_t) n;
	*end = pos + (size_t) n;
	return MARSHAL_OK;
}

/*
 * The bytes of the String naming an encoding, at pos or through a link.
 * Only the name is read, never its own ivars: a name whose ivars name an
 * encoding by linking back would otherwise recurse without end.
 */
static MarshalStatus
encoding_name(const MarshalDoc *doc, size_t pos, MarshalBytes *name,
			  bool *found, MarshalError *err)
{
	MarshalStatus st;
	int64_t		n;

	*found = false;
	if (pos < doc->len && doc->buf[pos] == MT_LINK)
	{
		if ((st = marshal_long(doc, pos + 1, &n, &pos, err)) != MARSHAL_OK ||
			(n >= 0 && (st = marshal_doc_need(doc, 0, n + 1, err)) != MARSHAL_OK))
			return st;
		if (n < 0 || n >= doc->index.nobjects)
			return damaged(err, pos, "object link out of range");
		pos = doc->index.obj_pos[n];
	}
	if (pos < doc->len && doc->buf[pos] == MT_IVAR)
		pos++;
	if (pos >= doc->len || doc->buf[pos] != MT_STRING)
		return MARSHAL_OK;
	if ((st = read_bytes(doc, pos + 1, name, &pos, err)) != MARSHAL_OK)
		return st;
	*found = true;
	return MARSHAL_OK;
}

/* Encoding ivars (MRI's sym2encidx) in a block of count pairs at pos. */
static MarshalStatus
read_encoding_ivars(const MarshalDoc *doc, size_t pos, int64_t count,
					MarshalNode *node, size_t *end, MarshalError *err)
{
	MarshalStatus st;

	while (count-- > 0)
	{
		MarshalBytes name;
		int			c;

		if ((st = marshal_symbol(doc, pos, &name, NULL, NULL, &pos, err)) != MARSHAL_OK)
			return st;
		if (pos >= doc->len)
			return damaged(err, pos, "missing ivar value");
		c = doc->buf[pos];
		/* the usual pair, :E true/false, without building a node */
		if (c == MT_TRUE || c == MT_FALSE)
		{
			if (name.len == 1 && name.ptr[0] == 'E')
				node->encoding = c == MT_TRUE ? MENC_UTF8 : MENC_USASCII;
			pos++;
			continue;
		}
		if (name.len == 8 && memcmp(name.ptr, "encoding", 8) == 0)
		{
			MarshalBytes ename;
			bool		found;

			if ((st = encoding_name(doc, pos, &ename, &found, err)) != MARSHAL_OK)
				return st;
			if (found)
			{
				node->encoding = MENC_NAMED;
				node->encname = ename;
			}
		}
		if ((st = marshal_skip(doc, pos, &pos, err)) != MARSHAL_OK)
			return st;
	}
	*end = pos;
	return MARSHAL_OK;
}

MarshalStatus
marshal_symbol(const MarshalDoc *doc, size_t pos, MarshalBytes *name,
			   MarshalEncoding *enc, MarshalBytes *encname, size_t *end,
			   MarshalError *err)
{
	int			ivar = 0;
	int64_t		n;
	MarshalStatus st;
	MarshalNode info;			/* only its encoding fields are used */

	info.encoding = MENC_BINARY;
	info.encname.ptr = NULL;
	info.encname.len = 0;
	while (pos < doc->len && doc->buf[pos] == MT_IVAR)
	{
		ivar = 1;
		pos++;
	}
	if (pos >= doc->len)
		return damaged(err, pos, "missing symbol");
	if (doc->buf[pos] == MT_SYMLINK)
	{
		size_t		p;
		bool		plain;

		if ((st = marshal_long(doc, pos + 1, &n, &pos, err)) != MARSHAL_OK ||
			(st = marshal_find_symbol(doc, n, name, &plain, err)) != MARSHAL_OK)
			return st;

		/*
		 * One defined with ivars: its encoding is in the ivar block after
		 * its name, read as for a symbol in place.  (Not from the index: a
		 * lazy index that has reached symbol n may not have finished its
		 * ivars, which can define further symbols.)  Only when asked for,
		 * so the ivar names read here cannot lead back to n.
		 */
		if (!plain && (enc || encname))
		{
			p = (size_t) (name->ptr - doc->buf) + name->len;
			if ((st = marshal_long(doc, p, &n, &p, err)) != MARSHAL_OK ||
				(st = read_encoding_ivars(doc, p, n, &info, &p, err)) != MARSHAL_OK)
				return st;
		}
	}
	else if (doc->buf[pos] == MT_SYMBOL)
	{
		if ((st = read_bytes(doc, pos + 1, name, &pos, err)) != MARSHAL_OK)
			return st;
	}
	else
		return damaged(err, pos, "expected a symbol");
	/* the ivar block of I: holds the encoding (MRI's r_symreal) */
	if (ivar)
	{
		if ((st = marshal_long(doc, pos, &n, &pos, err)) != MARSHAL_OK ||
			(st = read_encoding_ivars(doc, pos, n, &info, &pos, err)) != MARSHAL_OK)
			return st;
	}
	if (enc)
		*enc = info.encoding;
	if (encname)
		*encname = info.encname;
	*end = pos;
	return MARSHAL_OK;
}

MarshalStatus
marshal_node(const MarshalDoc *doc, size_t pos, MarshalNode *node,
			 MarshalError *err)
{
	MarshalStatus st;
	MarshalBytes ignored;
	int64_t		n;

	/* every field a reader may look at, without clearing the whole node */
	node->type = 0;
	node->slot = -1;
	node->pos = pos;
	node->cls.ptr = NULL;
	node->cls.len = 0;
	node->uclass.ptr = NULL;
	node->uclass.len = 0;
	node->nextended = 0;
	node->ival = 0;
	node->data.ptr = NULL;
	node->data.len = 0;
	node->negative = 0;
	node->regexp_options = 0;
	node->count = 0;
	node->items = 0;
	node->encoding = MENC_BINARY;
	node->encname.ptr = NULL;
	node->encname.len = 0;
	node->has_ivars = 0;
	node->ivars = 0;
	node->next = 0;
	for (;;)
	{
		size_t		at = pos;
		int			t;

		if (pos >= doc->len)
			return damaged(err, pos, "missing value");
		t = doc->buf[pos++];
		switch (t)
		{
			case MT_IVAR:
				node->has_ivars = 1;
				continue;
			case MT_EXTENDED:
				if ((st = marshal_symbol(doc, pos, &ignored, NULL, NULL, &pos, err)) != MARSHAL_OK)
					return st;
				node->nextended++;
				continue;
			case MT_UCLASS:
				if ((st = marshal_symbol(doc, pos, &node->uclass, NULL, NULL, &pos, err)) != MARSHAL_OK)
					return st;
				continue;
			case MT_LINK:
				{
					int			has_ivars = node->has_ivars;
					size_t		after;

					if ((st = marshal_long(doc, pos, &n, &after, err)) != MARSHAL_OK ||
						(n >= 0 && (st = marshal_doc_need(doc, 0, n + 1, err)) != MARSHAL_OK))
						return st;
					if (n < 0 || n >= doc->index.nobjects)
						return damaged(err, at, "object link out of range");
					if ((st = marshal_node(doc, doc->index.obj_pos[n], node, err)) != MARSHAL_OK)
						return st;
					node->slot = n;
					/* ivars given to a linked object: skip them */
					if (has_ivars)
					{
						MarshalNode dummy;

						memset(&dummy, 0, sizeof(dummy));
						if ((st = marshal_long(doc, after, &n, &after, err)) != MARSHAL_OK ||
							(st = read_encoding_ivars(doc, after, n, &dummy, &after, err)) != MARSHAL_OK)
							return st;
					}
					node->next = after;
					return MARSHAL_OK;
				}
			default:
				break;
		}
		node->type = t;
		switch (t)
		{
			case MT_NIL:
			case MT_TRUE:
			case MT_FALSE:
				node->next = pos;
				break;
			case MT_FIXNUM:
				if ((st = marshal_long(doc, pos, &node->ival, &node->next, err)) != MARSHAL_OK)
					return st;
				break;
			case MT_SYMBOL:
			case MT_SYMLINK:
				/* only I can wrap a symbol: read it again from the start */
				node->type = MT_SYMBOL;
				node->has_ivars = 0;
				return marshal_symbol(doc, node->pos, &node->data,
									  &node->encoding, &node->encname,
									  &node->next, err);
			case MT_FLOAT:
			case MT_STRING:
			case MT_CLASS:
			case MT_MODULE:
			case MT_MODULE_OLD:
				if ((st = read_bytes(doc, pos, &node->data, &node->next, err)) != MARSHAL_OK)
					return st;
				break;
			case MT_BIGNUM:
				if (pos >= doc->len)
					return damaged(err, pos, "missing sign");
				node->negative = doc->buf[pos] == '-';
				if ((st = marshal_long(doc, pos + 1, &n, &pos, err)) != MARSHAL_OK)
					return st;
				if (n < 0 || (uint64_t) n * 2 > doc->len - pos)
					return damaged(err, pos, "bad bignum length");
				node->data.ptr = doc->buf + pos;
				node->data.len = (size_t) n * 2;
				node->next = pos + (size_t) n * 2;
				break;
			case MT_REGEXP:
				if ((st = read_bytes(doc, pos, &node->data, &pos, err)) != MARSHAL_OK)
					return st;
				if (pos >= doc->len)
					return damaged(err, pos, "missing regexp options");
				node->regexp_options = doc->buf[pos];
				node->next = pos + 1;
				break;
			case MT_USERDEF:
				if ((st = marshal_symbol(doc, pos, &node->cls, NULL, NULL, &pos, err)) != MARSHAL_OK ||
					(st = read_bytes(doc, pos, &node->data, &node->next, err)) != MARSHAL_OK)
					return st;
				break;
			case MT_ARRAY:
			case MT_HASH:
			case MT_HASH_DEF:
				if ((st = marshal_long(doc, pos, &n, &node->items, err)) != MARSHAL_OK)
					return st;
				if (n < 0 || (uint64_t) n > doc->len)
					return damaged(err, pos, "bad count");
				node->count = (uint32_t) n;
				return MARSHAL_OK;
			case MT_STRUCT:
			case MT_OBJECT:
				if ((st = marshal_symbol(doc, pos, &node->cls, NULL, NULL, &pos, err)) != MARSHAL_OK ||
					(st = marshal_long(doc, pos, &n, &node->items, err)) != MARSHAL_OK)
					return st;
				/* a negative ivar count means none, as in MRI */
				if (n < 0)
					n = 0;
				if ((uint64_t) n > doc->len)
					return damaged(err, pos, "bad count");
				node->count = (uint32_t) n;
				return MARSHAL_OK;
			case MT_USRMARSHAL:
			case MT_DATA:
				/* the wrapped value follows; items points at it */
				if ((st = marshal_symbol(doc, pos, &node->cls, NULL, NULL, &node->items, err)) != MARSHAL_OK)
					return st;
				return MARSHAL_OK;
			default:
				return damaged(err, at, "unknown type byte");
		}
		break;
	}

	/* a flat value: its ivar block (if any) follows at once */
	if (node->has_ivars)
	{
		node->ivars = node->next;
		if ((st = marshal_long(doc, node->ivars, &n, &pos, err)) != MARSHAL_OK ||
			(st = read_encoding_ivars(doc, pos, n, node, &node->next, err)) != MARSHAL_OK)
			return st;
	}
	return MARSHAL_OK;
}

/*
 * Skipping is the walkers' inner loop, so it reads bytes directly instead
 * of building nodes: type byte, lengths, and recursion into containers.
 */
/*
 * Looking for the symbol numbered want while skipping: symbols are
 * numbered in the order their definitions appear in the bytes, so the
 * skip counts them and stops at that one (marshal_find_symbol).
 */
typedef struct SymScan
{
	int64_t		want;
	int64_t		seen;
	MarshalDoc *cache;			/* records the first symbols met */
	bool		done;
} SymScan;

/*
 * The skip functions take the buffer and a position and return where the
 * value ends, 0 if it does not skip (no value ends at offset 0).  Passing
 * positions by value keeps them in registers: through a pointer, each
 * store would make the compiler reload the buffer's length.
 */
static size_t skip_value(const uint8_t *b, size_t len, size_t p, int depth,
						 SymScan *scan);

/* A symbol is defined at p (its length prefix): false stops the skip. */
static inline bool
symbol_defined(SymScan *scan, size_t p, bool ivar)
{
	MarshalDoc *doc;

	if (scan == NULL)
		return true;
	doc = scan->cache;
	if (scan->seen == doc->lazy.nscanned && doc->lazy.nscanned < lengthof(doc->lazy.scanned))
		doc->lazy.scanned[doc->lazy.nscanned++] = (uint32_t) p | (ivar ? MARSHAL_SCANNED_IVAR : 0);
	if (scan->seen++ != scan->want)
		return true;
	scan->done = true;
	return false;
}

static inline size_t
skip_long(const uint8_t *b, size_t len, size_t p, int64_t *v)
{
	return marshal_decode_long(b, len, &p, v) ? p : 0;
}

static size_t
skip_symbol(const uint8_t *b, size_t len, size_t p, int depth, SymScan *scan)
{
	int64_t		n;
	bool		ivar = false;

	if (depth > MARSHAL_DEFAULT_MAX_DEPTH)
		return 0;
	while (p < len && b[p] == MT_IVAR)
	{
		ivar = true;
		p++;
	}
	if (p >= len)
		return 0;
	if (b[p++] == MT_SYMLINK)
		p = skip_long(b, len, p, &n);
	else if (!symbol_defined(scan, p, ivar))
		return 0;
	else
		p = marshal_skip_bytes(b, len, p);
	if (p == 0 || !ivar)
		return p;
	if ((p = skip_long(b, len, p, &n)) == 0)
		return 0;
	/* a symbol's ivars nest one level down, not from the top again */
	while (n-- > 0)
		if ((p = skip_symbol(b, len, p, depth + 1, scan)) == 0 ||
			(p = skip_value(b, len, p, depth + 1, scan)) == 0)
			return 0;
	return p;
}

/* Pairs of (symbol, value): ivar blocks, object ivars, struct members. */
static size_t
skip_named(const uint8_t *b, size_t len, size_t p, int64_t n, int depth,
		   SymScan *scan)
{
	while (n-- > 0)
		if ((p = skip_symbol(b, len, p, depth, scan)) == 0 ||
			(p = skip_value(b, len, p, depth, scan)) == 0)
			return 0;
	return p;
}

static size_t
skip_value(const uint8_t *b, size_t len, size_t p, int depth, SymScan *scan)
{
	int			ivars = 0;
	int64_t		n;
	size_t		q;

	/*
	 * A validated stream nests no deeper than the limit (which counts every
	 * level this counts, and wrappers too): deeper bytes are damaged, and
	 * the recursion stays within 1000 small frames, under any stack.
	 */
	if (depth > MARSHAL_DEFAULT_MAX_DEPTH)
		return 0;
	for (;;)
	{
		int			t;

		if (p >= len)
			return 0;
		t = b[p++];
		switch (t)
		{
			case MT_IVAR:
				/* the usual text String, I " <bytes> 06 ;<n> T|F, at once */
				if (ivars == 0 && (q = marshal_skip_text_string(b, len, p)) != 0)
					return q;
				ivars++;
				continue;
			case MT_EXTENDED:
			case MT_UCLASS:
				if ((p = skip_symbol(b, len, p, depth, scan)) == 0)
					return 0;
				continue;
			case MT_NIL:
			case MT_TRUE:
			case MT_FALSE:
				break;
			case MT_FIXNUM:
			case MT_LINK:
			case MT_SYMLINK:
				p = skip_long(b, len, p, &n);
				break;
			case MT_SYMBOL:
				p = symbol_defined(scan, p, ivars > 0) ? marshal_skip_bytes(b, len, p) : 0;
				break;
			case MT_FLOAT:
			case MT_STRING:
			case MT_CLASS:
			case MT_MODULE:
			case MT_MODULE_OLD:
				p = marshal_skip_bytes(b, len, p);
				break;
			case MT_REGEXP:
				if ((p = marshal_skip_bytes(b, len, p)) == 0 || p >= len)
					return 0;
				p++;
				break;
			case MT_BIGNUM:
				if (p >= len)
					return 0;
				if ((p = skip_long(b, len, p + 1, &n)) == 0 || n < 0 ||
					(uint64_t) n * 2 > len - p)
					return 0;
				p += (size_t) n * 2;
				break;
			case MT_USERDEF:
				if ((p = skip_symbol(b, len, p, depth, scan)) != 0)
					p = marshal_skip_bytes(b, len, p);
				break;
			case MT_ARRAY:
			case MT_HASH:
			case MT_HASH_DEF:
				if ((p = skip_long(b, len, p, &n)) == 0 || n < 0 || (uint64_t) n > len)
					return 0;
				if (t != MT_ARRAY)
					n = 2 * n + (t == MT_HASH_DEF);
				while (n-- > 0)
				{
					if ((q = marshal_skip_leaf(b, len, p)) == 0 &&
						(q = skip_value(b, len, p, depth + 1, scan)) == 0)
						return 0;
					p = q;
				}
				break;
			case MT_STRUCT:
			case MT_OBJECT:
				if ((p = skip_symbol(b, len, p, depth, scan)) == 0 ||
					(p = skip_long(b, len, p, &n)) == 0)
					return 0;
				p = skip_named(b, len, p, n, depth + 1, scan);
				break;
			case MT_USRMARSHAL:
			case MT_DATA:
				if ((p = skip_symbol(b, len, p, depth, scan)) != 0)
					p = skip_value(b, len, p, depth + 1, scan);
				break;
			default:
				return 0;
		}
		break;
	}
	/* each I wrapper's ivar block follows the value */
	while (p != 0 && ivars-- > 0)
	{
		if ((p = skip_long(b, len, p, &n)) != 0)
			p = skip_named(b, len, p, n, depth + 1, scan);
	}
	return p;
}

void
marshal_doc_interrupts(const MarshalDoc *doc, int64_t i)
{
	const MarshalHooks *h = doc->lazy.hooks;

	if ((i & 4095) == 4095 && h && h->check_interrupts)
		h->check_interrupts(h->ctx);
}

MarshalStatus
marshal_skip(const MarshalDoc *doc, size_t pos, size_t *end,
			 MarshalError *err)
{
	size_t		p = skip_value(doc->buf, doc->len, pos, 0, NULL);

	if (p == 0)
		return damaged(err, pos, "value does not skip");
	*end = p;
	return MARSHAL_OK;
}

/*
 * A lazily opened stream often needs one early symbol (the E of a String
 * it extracts): skip the first bytes for it rather than start the index.
 * Bounded, so that looking up many symbols stays linear.
 */
#define SYMBOL_SCAN_BYTES 512

/*
 * Where symbol 0, the first one defined, is read (its length prefix) when
 * the root is a plain Hash or Array whose first entry is a text String
 * with its E, a Symbol or an object (its class name): nothing before it
 * defines one, so no skip is needed.  0 for other shapes.
 */
static size_t
first_symbol(const MarshalDoc *doc)
{
	const uint8_t *b = doc->buf;
	size_t		p = MARSHAL_ROOT;
	int64_t		n;

	if (p < doc->len && (b[p] == MT_HASH || b[p] == MT_ARRAY))
	{
		p++;
		if (!marshal_decode_long(b, doc->len, &p, &n) || n <= 0)
			return 0;
	}
	if (p + 2 >= doc->len)
		return 0;
	if (b[p] == MT_SYMBOL)
		return p + 1;
	if (b[p] == MT_OBJECT && b[p + 1] == MT_SYMBOL)
		return p + 2;
	if (b[p] == MT_IVAR && b[p + 1] == MT_STRING &&
		(p = marshal_skip_bytes(b, doc->len, p + 2)) != 0 &&
		p + 2 < doc->len && b[p] == 0x06 && b[p + 1] == MT_SYMBOL)
		return p + 2;
	return 0;
}

MarshalStatus
marshal_find_symbol(const MarshalDoc *doc, int64_t n, MarshalBytes *name,
					bool *plain, MarshalError *err)
{
	/* the scan's record is the document's cache, as the lazy index is */
	MarshalDoc *d = (MarshalDoc *) doc;
	SymScan		scan = {0};
	size_t		p;				/* where the name ends (unused) */
	size_t		first;
	MarshalStatus st;

	if (n < 0)
		return damaged(err, 0, "symbol link out of range");
	if (n >= doc->index.nsymbols && n < (int64_t) lengthof(doc->lazy.scanned) && doc->len > 2)
	{
		if (n == 0 && doc->lazy.nscanned == 0 && (first = first_symbol(doc)) != 0 &&
			first < MARSHAL_SCANNED_IVAR)
			d->lazy.scanned[d->lazy.nscanned++] = (uint32_t) first;
		if (n >= doc->lazy.nscanned)
		{
			scan.want = n;
			scan.cache = d;
			(void) skip_value(doc->buf, doc->len < SYMBOL_SCAN_BYTES ? doc->len : SYMBOL_SCAN_BYTES,
							  2, 0, &scan);
		}
		if (n < doc->lazy.nscanned)
		{
			*plain = !(doc->lazy.scanned[n] & MARSHAL_SCANNED_IVAR);
			return read_bytes(doc, doc->lazy.scanned[n] & ~MARSHAL_SCANNED_IVAR, name, &p, err);
		}
	}
	if (n >= doc->index.nsymbols)
	{
		if ((st = marshal_doc_need(doc, n + 1, 0, err)) != MARSHAL_OK)
			return st;
		if (n >= doc->index.nsymbols)
			return damaged(err, 0, "symbol link out of range");
	}
	/* not plain: an ivar block follows the name (marshal_symbol reads it) */
	*plain = doc->index.sym_enc[n] == MENC_BINARY;
	return read_bytes(doc, doc->index.sym_pos[n], name, &p, err);
}
