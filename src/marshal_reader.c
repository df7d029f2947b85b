/*
 * marshal_reader.c
 *		The Marshal 4.8 reader: validation and the object/symbol index.
 *
 * The structure follows MRI's r_object0/r_object_for (marshal.c) so that the
 * object table is numbered exactly as MRI numbers it while loading: which
 * values take a slot, and when (r_prepare before the class name for o and S,
 * after the source for a Regexp, after the ivars for u).  The "ivp" flag is
 * MRI's: an I wrapper offers its ivar block to the value inside, and String
 * payloads of u, Regexp sources, Symbols and Class names consume it
 * themselves; otherwise the wrapper reads the block after the value.
 *
 * Everything is bounds-checked against the bytes remaining before it is
 * used, and nothing is allocated but the two tables, which grow with the
 * number of values actually read (so stay proportional to the input).
 */
#include "marshal_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Object-table entries of objects whose slot is reserved but not filled. */
#define KIND_PENDING	0x80
/* a String checked as an encoding name (links to it may name encodings) */
#define KIND_ENCNAME	0x40

/* How often (in values read) the interrupt hook runs. */
#define INTERRUPT_EVERY 4096

/* How often (in nesting levels) the stack hook runs. */
#define STACK_EVERY		8

/* Symbols the reader must recognise by name (sym2encidx and friends). */
typedef enum SymTag
{
	SYM_PLAIN = 0,
	SYM_E,						/* "E": the short encoding ivar */
	SYM_ENCODING,				/* "encoding": named encoding ivar */
	SYM_K,						/* "K": ruby2_keywords flag */
	SYM_HASH					/* "Hash": compare_by_identity marker */
} SymTag;

typedef struct Reader
{
	const uint8_t *buf;
	size_t		len;
	size_t		pos;
	MarshalWalk walk;			/* hooks, error, depth */
	uint32_t	steps;
	bool		ivar_open;		/* an I wrapper's value is not read yet */
	uint32_t	link_target;	/* the object the last link referred to */
	bool		keep_positions;

	uint8_t    *obj_kind;
	uint32_t   *obj_pos;
	uint32_t	nobj;
	uint32_t	objcap;

	uint8_t    *sym_tag;
	uint32_t   *sym_pos;
	uint8_t    *sym_enc;
	uint32_t	nsym;
	uint32_t	symcap;

	/* indexing a prefix: stop once both tables reach these sizes */
	uint32_t	stop_sym;
	uint32_t	stop_obj;
} Reader;

/* Not an error: the prefix asked for is indexed (internal to this file). */
#define MARSHAL_STOPPED ((MarshalStatus) 100)

static inline MarshalStatus
maybe_stop(Reader *r)
{
	if ((r->stop_sym || r->stop_obj) && r->nsym >= r->stop_sym &&
		r->nobj >= r->stop_obj)
		return MARSHAL_STOPPED;
	return MARSHAL_OK;
}

/*
 * The reader's cost is mostly calls per value: the small readers are
 * inlined into their callers and the error paths kept out of line.
 */
#if defined(__GNUC__)
#define HOT_INLINE inline __attribute__((always_inline))
#define COLD __attribute__((noinline, cold))
#else
#define HOT_INLINE inline
#define COLD
#endif

static MarshalStatus fail_at(Reader *r, MarshalStatus status, size_t offset,
							 const char *fmt,...)
			COLD __attribute__((format(printf, 4, 5)));
static MarshalStatus read_object(Reader *r, uint8_t *kind);
static MarshalStatus read_object0(Reader *r, size_t start, int *ivp,
								  uint8_t *kind);
static MarshalStatus read_object_for(Reader *r, size_t start, int *ivp,
									 int type, uint8_t *kind);

MarshalStatus
marshal_verror(MarshalError *err, MarshalStatus status, size_t offset,
			   const char *fmt, va_list ap)
{
	err->status = status;
	err->offset = offset;
	vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
	return status;
}

MarshalStatus
marshal_error(MarshalError *err, MarshalStatus status, size_t offset,
			  const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	marshal_verror(err, status, offset, fmt, ap);
	va_end(ap);
	return status;
}

static MarshalStatus
fail_at(Reader *r, MarshalStatus status, size_t offset, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	marshal_verror(r->walk.err, status, offset, fmt, ap);
	va_end(ap);
	return status;
}

/*
 * One level deeper: the depth limit (marshal_walk_deeper's, but failing
 * through the cold fail_at, as every error here) and, now and then, the
 * stack check.
 */
static HOT_INLINE MarshalStatus
descend(Reader *r)
{
	if (++r->walk.depth > r->walk.max_depth)
		return fail_at(r, MARSHAL_ERR_DEPTH, r->pos,
					   "nesting deeper than %u levels", r->walk.max_depth);
	marshal_walk_check_stack(&r->walk, STACK_EVERY);
	return MARSHAL_OK;
}

/* "expected <what>, found <the byte at offset or end of data>" */
static COLD MarshalStatus
fail_expected(Reader *r, size_t offset, const char *what)
{
	if (offset >= r->len)
		return fail_at(r, MARSHAL_ERR_FORMAT, offset,
					   "expected %s, found end of data", what);
	return fail_at(r, MARSHAL_ERR_FORMAT, offset,
				   "expected %s, found byte 0x%02x", what, r->buf[offset]);
}

static const char *
kind_name(uint8_t kind)
{
	static const char *const names[] = {
		"?", "nil", "true", "false", "Integer", "Symbol", "Float",
		"Integer (bignum)", "String", "Regexp", "Array", "Hash", "Struct",
		"Object", "_dump object", "marshal_dump object", "_dump_data object",
		"Class", "Module"
	};

	kind &= ~(KIND_PENDING | KIND_ENCNAME);
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/* Frozen in MRI: setting any instance variable on them raises. */
static bool
kind_is_frozen(uint8_t kind)
{
	switch (kind)
	{
		case MK_NIL:
		case MK_TRUE:
		case MK_FALSE:
		case MK_FIXNUM:
		case MK_SYMBOL:
		case MK_FLOAT:
		case MK_BIGNUM:
			return true;
		default:
			return false;
	}
}

/* Values whose class we cannot know (u, U, d): MRI's verdict depends on it. */
static bool
kind_is_opaque(uint8_t kind)
{
	return kind == MK_USERDEF || kind == MK_USRMARSHAL || kind == MK_DATA;
}

/*
 * Grow a table to hold one more entry.  Every entry stands for at least one
 * byte of input, so the count never exceeds r->len and the doubling stays
 * within a small multiple of the input size.
 */
static COLD MarshalStatus
grow(Reader *r, uint8_t **kinds, uint32_t **positions, uint8_t **extra,
	 uint32_t *cap)
{
	/* start near the size the input suggests: fewer reallocs of big tables */
	uint32_t	newcap = *cap ? *cap * 2 : (uint32_t) (r->len / 16 > 32 ? r->len / 16 : 32);
	void	   *p;

	if (newcap > r->len + 1)
		newcap = (uint32_t) r->len + 1;
	p = marshal_realloc(r->walk.hooks, *kinds, newcap);
	if (p == NULL)
		return fail_at(r, MARSHAL_ERR_NOMEM, r->pos, "out of memory");
	*kinds = p;
	if (r->keep_positions)
	{
		p = marshal_realloc(r->walk.hooks, *positions, (size_t) newcap * sizeof(uint32_t));
		if (p == NULL)
			return fail_at(r, MARSHAL_ERR_NOMEM, r->pos, "out of memory");
		*positions = p;
		if (extra)
		{
			p = marshal_realloc(r->walk.hooks, *extra, newcap);
			if (p == NULL)
				return fail_at(r, MARSHAL_ERR_NOMEM, r->pos, "out of memory");
			*extra = p;
		}
	}
	*cap = newcap;
	return MARSHAL_OK;
}

/* Register an object slot (MRI's r_entry / r_prepare). */
static HOT_INLINE MarshalStatus
add_object(Reader *r, uint8_t kind, size_t start, uint32_t *slot)
{
	if (r->nobj == r->objcap)
		TRY(grow(r, &r->obj_kind, &r->obj_pos, NULL, &r->objcap));
	r->obj_kind[r->nobj] = kind;
	if (r->keep_positions)
		r->obj_pos[r->nobj] = (uint32_t) start;
	if (slot)
		*slot = r->nobj;
	r->nobj++;
	return maybe_stop(r);
}

static HOT_INLINE MarshalStatus
read_byte(Reader *r, const char *what, int *c)
{
	if (r->pos >= r->len)
	{
		*c = -1;
		return fail_expected(r, r->pos, what);
	}
	*c = r->buf[r->pos++];
	return MARSHAL_OK;
}

/* One packed long (MRI's r_long, see marshal_decode_long). */
static HOT_INLINE MarshalStatus
read_long(Reader *r, const char *what, int64_t *out)
{
	size_t		start = r->pos;

	if (!marshal_decode_long(r->buf, r->len, &r->pos, out))
	{
		*out = 0;
		if (start >= r->len)
			return fail_expected(r, start, what);
		return fail_at(r, MARSHAL_ERR_FORMAT, start,
					   "expected %d more bytes of %s, found end of data",
					   abs((int8_t) r->buf[start]), what);
	}
	return MARSHAL_OK;
}

/*
 * A length or count of items of at least "unit" bytes each: never negative,
 * within the codec's limit, and within the bytes left.
 */
static HOT_INLINE MarshalStatus
read_length(Reader *r, const char *what, size_t unit, size_t *out)
{
	size_t		start = r->pos;
	int64_t		v;

	*out = 0;
	TRY(read_long(r, what, &v));
	if (v < 0)
		return fail_at(r, MARSHAL_ERR_FORMAT, start,
					   "negative %s %lld", what, (long long) v);
	if (v > MARSHAL_MAX_LENGTH)
		return fail_at(r, MARSHAL_ERR_LIMIT, start,
					   "%s %lld exceeds the limit of %d",
					   what, (long long) v, MARSHAL_MAX_LENGTH);
	if ((uint64_t) v * unit > r->len - r->pos)
		return fail_at(r, MARSHAL_ERR_FORMAT, start,
					   "%s %lld needs at least %llu bytes, found only %zu",
					   what, (long long) v,
					   (unsigned long long) ((uint64_t) v * unit),
					   r->len - r->pos);
	*out = (size_t) v;
	return MARSHAL_OK;
}

/* Read a length-prefixed byte string; *p points into the buffer. */
static HOT_INLINE MarshalStatus
read_bytes(Reader *r, const char *what, const uint8_t **p, size_t *n)
{
	TRY(read_length(r, what, 1, n));
	*p = r->buf + r->pos;
	r->pos += *n;
	return MARSHAL_OK;
}

bool
marshal_all_ascii(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] & 0x80)
			return false;
	return true;
}

static SymTag
symbol_tag(const uint8_t *s, size_t n)
{
	if (n == 1 && s[0] == 'E')
		return SYM_E;
	if (n == 1 && s[0] == 'K')
		return SYM_K;
	if (n == 8 && memcmp(s, "encoding", 8) == 0)
		return SYM_ENCODING;
	if (n == 4 && memcmp(s, "Hash", 4) == 0)
		return SYM_HASH;
	return SYM_PLAIN;
}

/*
 * What an ivar (name, value) pair means for encodings, as sym2encidx:
 * 0 = an ordinary ivar, 'U' = UTF-8, 'A' = US-ASCII, 'N' = a named one.
 * A non-String value for :encoding is an error (StringValueCStr raises).
 */
static MarshalStatus
encoding_of_ivar(Reader *r, SymTag tag, uint8_t vkind, size_t vpos,
				 uint32_t vslot, int *enc)
{
	*enc = 0;
	if (tag == SYM_E)
	{
		if (vkind == MK_TRUE)
			*enc = 'U';
		else if (vkind == MK_FALSE)
			*enc = 'A';
		/* any other value is "bogus" and ignored by MRI */
	}
	else if (tag == SYM_ENCODING)
	{
		if ((vkind & ~KIND_PENDING) != MK_STRING)
			return fail_at(r, MARSHAL_ERR_FORMAT, vpos,
						   "expected a String naming an encoding, found %s",
						   kind_name(vkind));
		/* MRI reads the name as a C string; a NUL in it is an error */
		if (r->buf[vpos] == MT_STRING ||
			(r->buf[vpos] == MT_IVAR && r->buf[vpos + 1] == MT_STRING))
		{
			size_t		after = r->pos;
			int64_t		n;

			/* re-read the length of the string just validated */
			r->pos = vpos + (r->buf[vpos] == MT_IVAR ? 2 : 1);
			TRY(read_long(r, "string length", &n));
			if (memchr(r->buf + r->pos, 0, (size_t) n) != NULL)
				return fail_at(r, MARSHAL_ERR_FORMAT, vpos,
							   "encoding name contains a NUL byte");
			r->pos = after;
			r->obj_kind[vslot] |= KIND_ENCNAME;
		}
		else if (r->buf[vpos] == MT_LINK &&
				 !(r->obj_kind[r->link_target] & KIND_ENCNAME))
		{
			/*
			 * MRI links only to a name it wrote before; a link to any other
			 * String could hide a NUL the check above never saw.
			 */
			return fail_at(r, MARSHAL_ERR_FORMAT, vpos,
						   "an encoding name linked from a String that named no encoding");
		}
		*enc = 'N';
	}
	return MARSHAL_OK;
}

static MarshalStatus read_symbol(Reader *r, uint32_t *index);

/* One ivar pair: its name's tag and what it means for the encoding. */
static MarshalStatus
read_ivar(Reader *r, SymTag *tag, int *enc)
{
	uint32_t	name;
	size_t		vpos;
	uint32_t	vslot;
	uint8_t		vkind;

	TRY(read_symbol(r, &name));
	*tag = (SymTag) r->sym_tag[name];
	vpos = r->pos;
	vslot = r->nobj;
	TRY(read_object(r, &vkind));
	return encoding_of_ivar(r, *tag, vkind, vpos, vslot, enc);
}

/* A symbol's name, numbered: all of r_symreal for one without ivars. */
static HOT_INLINE MarshalStatus
add_symbol(Reader *r, const uint8_t **s, size_t *n, uint32_t *idx)
{
	size_t		lenpos = r->pos;

	TRY(read_bytes(r, "symbol length", s, n));
	if (r->nsym == r->symcap)
		TRY(grow(r, &r->sym_tag, &r->sym_pos, &r->sym_enc, &r->symcap));
	*idx = r->nsym++;
	r->sym_tag[*idx] = (uint8_t) symbol_tag(*s, *n);
	if (r->keep_positions)
	{
		r->sym_pos[*idx] = (uint32_t) lenpos;
		/* provisional until its ivars are read (read_symreal) */
		r->sym_enc[*idx] = MENC_BINARY;
	}
	return MARSHAL_OK;
}

/* MRI's r_symreal: the symbol is numbered before its own ivars are read. */
static MarshalStatus
read_symreal(Reader *r, int ivar, uint32_t *index)
{
	size_t		lenpos = r->pos;
	const uint8_t *s;
	size_t		n;
	uint32_t	idx;
	int			enc = 0;

	TRY(add_symbol(r, &s, &n, &idx));
	/*
	 * Until its ivars are read, what a prefix index says of a symbol with
	 * an ivar block is "not plain: read the block" (marshal_find_symbol).
	 */
	if (ivar && r->keep_positions)
		r->sym_enc[idx] = MENC_NAMED;
	if (ivar)
	{
		int64_t		count;

		/* a symbol's ivar names are symbols with ivars of their own: bound */
		TRY(descend(r));
		TRY(read_long(r, "ivar count", &count));
		while (count-- > 0)
		{
			SymTag		tag;
			int			e;

			TRY(read_ivar(r, &tag, &e));
			enc = e;			/* the last pair decides, as in MRI */
		}
		r->walk.depth--;
	}
	if (enc == 'U' && !marshal_utf8_valid(s, n, true))
		return fail_at(r, MARSHAL_ERR_FORMAT, lenpos,
					   "invalid byte sequence in UTF-8 symbol");
	if (enc == 'A' && !marshal_all_ascii(s, n))
		return fail_at(r, MARSHAL_ERR_FORMAT, lenpos,
					   "invalid byte sequence in US-ASCII symbol");
	/* sym2encidx only recognises names that stayed US-ASCII */
	if (enc == 'U' || enc == 'N')
		r->sym_tag[idx] = SYM_PLAIN;
	if (r->keep_positions)
		r->sym_enc[idx] = enc == 'U' ? MENC_UTF8 : enc == 'A' ? MENC_USASCII :
			enc == 'N' ? MENC_NAMED : MENC_BINARY;
	*index = idx;
	return MARSHAL_OK;
}

/* MRI's r_symbol: a class, ivar or member name. */
/* The number of a symbol link whose ';' is at at: one already defined. */
static HOT_INLINE MarshalStatus
read_symlink(Reader *r, size_t at, int64_t *n)
{
	TRY(read_long(r, "symbol link", n));
	if (*n < 0 || *n >= r->nsym)
		return fail_at(r, MARSHAL_ERR_FORMAT, at,
					   "symbol link %lld is out of range (%u symbols so far)",
					   (long long) *n, r->nsym);
	return MARSHAL_OK;
}

static MarshalStatus
read_symbol(Reader *r, uint32_t *index)
{
	int			ivar = 0;

	for (;;)
	{
		size_t		at = r->pos;
		int			c;

		TRY(read_byte(r, "a symbol", &c));
		if (c == MT_IVAR)
		{
			ivar = 1;
			continue;
		}
		if (c == MT_SYMBOL)
			return read_symreal(r, ivar, index);
		if (c == MT_SYMLINK)
		{
			int64_t		n;

			if (ivar)
				return fail_at(r, MARSHAL_ERR_FORMAT, at,
							   "expected a symbol, found a symbol link with encoding");
			TRY(read_symlink(r, at, &n));
			*index = (uint32_t) n;
			return MARSHAL_OK;
		}
		return fail_expected(r, at, "a symbol (':' or ';')");
	}
}

/*
 * MRI's r_ivar: an ivar block applied to a value of the given kind.  Reports
 * through *has_encoding whether an encoding ivar was among them.
 */
static MarshalStatus
read_ivars(Reader *r, uint8_t target, bool *has_encoding)
{
	size_t		at = r->pos;
	int64_t		count;

	target &= ~KIND_PENDING;
	TRY(read_long(r, "ivar count", &count));
	if (count <= 0)
		return MARSHAL_OK;		/* MRI ignores a negative count */
	if (target == MK_CLASS || target == MK_MODULE)
		return fail_at(r, MARSHAL_ERR_FORMAT, at,
					   "a %s cannot carry instance variables",
					   kind_name(target));
	while (count-- > 0)
	{
		int			enc;
		SymTag		tag;
		size_t		q;
		int64_t		link;

		at = r->pos;
		/* the usual ";<E> T|F" (a link to :E, then true or false), directly */
		q = at + 1;
		if (at < r->len && r->buf[at] == MT_SYMLINK &&
			marshal_decode_long(r->buf, r->len, &q, &link) &&
			link >= 0 && link < r->nsym && r->sym_tag[link] == SYM_E &&
			q < r->len && (r->buf[q] == MT_TRUE || r->buf[q] == MT_FALSE))
		{
			tag = SYM_E;
			enc = r->buf[q] == MT_TRUE ? 'U' : 'A';
			r->pos = q + 1;
		}
		else
			TRY(read_ivar(r, &tag, &enc));
		if (enc)
		{
			if (target != MK_STRING && target != MK_REGEXP &&
				!kind_is_opaque(target))
				return fail_at(r, MARSHAL_ERR_FORMAT, at,
							   "a %s cannot carry an encoding",
							   kind_name(target));
			if (has_encoding)
				*has_encoding = true;
		}
		else if (tag == SYM_K && target != MK_HASH && !kind_is_opaque(target))
			return fail_at(r, MARSHAL_ERR_FORMAT, at,
						   "ruby2_keywords flag on a %s, not a Hash",
						   kind_name(target));
		if (kind_is_frozen(target))
			return fail_at(r, MARSHAL_ERR_FORMAT, at,
						   "instance variables on a frozen %s",
						   kind_name(target));
	}
	return MARSHAL_OK;
}

/* Step *i over decimal digits; false if there were none. */
static bool
skip_digits(const uint8_t *p, size_t n, size_t *i)
{
	size_t		start = *i;

	while (*i < n && p[*i] >= '0' && p[*i] <= '9')
		(*i)++;
	return *i > start;
}

/*
 * Float text as MRI writes it ("1.5", "1e-5", "-0", "nan", "inf", "-inf")
 * or as Ruby 1.8 wrote it (%.17g, optionally followed by NUL and binary
 * mantissa bytes).  MRI's loader hands anything to strtod and so reads
 * garbage as 0.0; we refuse it rather than invent a value.
 */
bool
marshal_float_text_ok(const uint8_t *p, size_t n)
{
	size_t		i = 0;

	if ((n == 3 && (memcmp(p, "nan", 3) == 0 || memcmp(p, "inf", 3) == 0)) ||
		(n == 4 && memcmp(p, "-inf", 4) == 0))
		return true;
	if (i < n && p[i] == '-')
		i++;
	if (!skip_digits(p, n, &i))
		return false;
	if (i < n && p[i] == '.')
	{
		i++;
		if (!skip_digits(p, n, &i))
			return false;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E'))
	{
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		if (!skip_digits(p, n, &i))
			return false;
	}
	/* the end, or the legacy NUL + mantissa tail */
	return i == n || p[i] == '\0';
}

/* A plain r_object: a value with no I wrapper around it. */
static MarshalStatus
read_object(Reader *r, uint8_t *kind)
{
	return read_object0(r, r->pos, NULL, kind);
}

/* MRI's r_object0: read the type byte, with depth and interrupt checks. */
/*
 * Flat values a level below the limit, in line: nothing in them can fail
 * that the long way would report differently (a String's length over the
 * limit or the bytes goes the long way).  *done is false, nothing read,
 * for anything else.
 */
static HOT_INLINE MarshalStatus
read_flat(Reader *r, size_t start, int *ivp, uint8_t *kind, bool *done)
{
	const uint8_t *b = r->buf;
	size_t		p = r->pos + 1;
	int64_t		v;

	*done = false;
	if (r->walk.depth >= r->walk.max_depth || r->pos >= r->len)
		return MARSHAL_OK;
	switch (b[r->pos])
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			*kind = b[p - 1] == MT_NIL ? MK_NIL : b[p - 1] == MT_TRUE ? MK_TRUE : MK_FALSE;
			break;
		case MT_FIXNUM:
			if (!marshal_decode_long(b, r->len, &p, &v))
				return MARSHAL_OK;
			*kind = MK_FIXNUM;
			break;
		case MT_STRING:
			if (!marshal_decode_long(b, r->len, &p, &v) ||
				v < 0 || v > MARSHAL_MAX_LENGTH || (uint64_t) v > r->len - p)
				return MARSHAL_OK;
			r->ivar_open = false;
			r->pos = p + (size_t) v;
			*kind = MK_STRING;
			*done = true;
			return add_object(r, MK_STRING, start, NULL);
		case MT_SYMLINK:
			if (!marshal_decode_long(b, r->len, &p, &v) || v < 0 || v >= r->nsym)
				return MARSHAL_OK;
			*kind = MK_SYMBOL;
			break;
		case MT_IVAR:
			{
				int64_t		e;

				/*
				 * The commonest value of all, a text String: I " <bytes> 06
				 * ;<E> T|F, in one step when its two levels are allowed.
				 */
				if (r->ivar_open || r->walk.depth + 1 >= r->walk.max_depth ||
					p >= r->len || b[p] != MT_STRING)
					return MARSHAL_OK;
				p++;
				if (!marshal_decode_long(b, r->len, &p, &v) || v < 0 ||
					v > MARSHAL_MAX_LENGTH || (uint64_t) v > r->len - p)
					return MARSHAL_OK;
				p += (size_t) v;
				if (p + 3 >= r->len || b[p] != 0x06 || b[p + 1] != MT_SYMLINK)
					return MARSHAL_OK;
				p += 2;
				if (!marshal_decode_long(b, r->len, &p, &e) ||
					e < 0 || e >= r->nsym || r->sym_tag[e] != SYM_E ||
					p >= r->len || (b[p] != MT_TRUE && b[p] != MT_FALSE))
					return MARSHAL_OK;
				r->ivar_open = false;
				r->pos = p + 1;
				*kind = MK_STRING;
				*done = true;
				return add_object(r, MK_STRING, start, NULL);
			}
		case MT_SYMBOL:
			{
				uint32_t	sym;
				const uint8_t *name;
				size_t		len;

				if (ivp && *ivp)
					return MARSHAL_OK;	/* I:sym: the symbol reads the ivars */
				r->ivar_open = false;
				r->pos = p;
				*kind = MK_SYMBOL;
				*done = true;
				return add_symbol(r, &name, &len, &sym);
			}
		default:
			return MARSHAL_OK;
	}
	r->ivar_open = false;
	r->pos = p;
	*done = true;
	return MARSHAL_OK;
}

/* An element of a container: read_object, flat values without a call. */
static HOT_INLINE MarshalStatus
read_element(Reader *r, uint8_t *kind)
{
	bool		done;

	/* counted here; on an interrupt check's turn, read_object0 does both */
	if (++r->steps % INTERRUPT_EVERY != 0)
	{
		TRY(read_flat(r, r->pos, NULL, kind, &done));
		if (done)
			return MARSHAL_OK;
	}
	r->steps--;
	return read_object0(r, r->pos, NULL, kind);
}

static MarshalStatus
read_object0(Reader *r, size_t start, int *ivp, uint8_t *kind)
{
	int			type;
	MarshalStatus st;
	bool		done;

	if (++r->steps % INTERRUPT_EVERY == 0 && r->walk.hooks &&
		r->walk.hooks->check_interrupts)
		r->walk.hooks->check_interrupts(r->walk.hooks->ctx);
	TRY(read_flat(r, start, ivp, kind, &done));
	if (done)
		return MARSHAL_OK;

	TRY(descend(r));

	TRY(read_byte(r, "a type byte", &type));
	st = read_object_for(r, start, ivp, type, kind);
	r->walk.depth--;
	return st;
}

static MarshalStatus
read_hash_body(Reader *r, size_t start, int type)
{
	size_t		n;
	uint8_t		k;

	r->ivar_open = false;		/* the wrapped value has begun */
	TRY(read_length(r, "hash size", 2, &n));
	TRY(add_object(r, MK_HASH, start, NULL));
	for (size_t i = 0; i < 2 * n; i++)
		TRY(read_element(r, &k));
	if (type == MT_HASH_DEF)
		TRY(read_object(r, &k));
	return MARSHAL_OK;
}

/* c and m: raw name bytes; an I wrapper may give them one encoding ivar. */
static MarshalStatus
read_class_name(Reader *r, int *ivp)
{
	const uint8_t *s;
	size_t		n;

	TRY(read_bytes(r, "class name length", &s, &n));
	if (ivp && *ivp)
	{
		size_t		at = r->pos;
		int64_t		count;

		TRY(read_long(r, "ivar count", &count));
		if (count > 0)
		{
			SymTag		tag;
			int			enc;

			TRY(read_ivar(r, &tag, &enc));
			if (enc)
				count--;
		}
		if (count > 0)
			return fail_at(r, MARSHAL_ERR_FORMAT, at,
						   "a class or module name can carry only its encoding");
		*ivp = 0;
	}
	return MARSHAL_OK;
}

/* MRI's r_object_for: one value, its type byte already read. */
static MarshalStatus
read_object_for(Reader *r, size_t start, int *ivp, int type, uint8_t *kind)
{
	size_t		at = r->pos - 1;
	const uint8_t *s;
	size_t		n;
	uint32_t	slot;
	uint32_t	sym;
	uint8_t		k;
	int64_t		v;

	/*
	 * MRI writes one I wrapper per value; a second one around the same
	 * value (I I, I e I, ...) would carry two ivar blocks, which no writer
	 * makes and the walkers do not expect.
	 */
	if (type == MT_IVAR)
	{
		if (r->ivar_open)
			return fail_at(r, MARSHAL_ERR_FORMAT, at,
						   "a second I wrapper around the same value");
		r->ivar_open = true;
	}
	else if (type != MT_EXTENDED && type != MT_UCLASS)
		r->ivar_open = false;

	switch (type)
	{
		case MT_NIL:
			*kind = MK_NIL;
			return MARSHAL_OK;
		case MT_TRUE:
			*kind = MK_TRUE;
			return MARSHAL_OK;
		case MT_FALSE:
			*kind = MK_FALSE;
			return MARSHAL_OK;

		case MT_FIXNUM:
			*kind = MK_FIXNUM;
			return read_long(r, "integer", &v);

		case MT_FLOAT:
			TRY(read_bytes(r, "float length", &s, &n));
			if (!marshal_float_text_ok(s, n))
				return fail_at(r, MARSHAL_ERR_FORMAT, at,
							   "expected float text (digits, \"nan\", \"inf\" or \"-inf\")");
			*kind = MK_FLOAT;
			return add_object(r, MK_FLOAT, start, NULL);

		case MT_BIGNUM:
			{
				int			sign;

				TRY(read_byte(r, "a bignum sign", &sign));
				if (sign != '+' && sign != '-')
					return fail_expected(r, r->pos - 1,
										 "a bignum sign ('+' or '-')");
				TRY(read_length(r, "bignum length", 2, &n));
				r->pos += 2 * n;
				*kind = MK_BIGNUM;
				return add_object(r, MK_BIGNUM, start, NULL);
			}

		case MT_STRING:
			TRY(read_bytes(r, "string length", &s, &n));
			*kind = MK_STRING;
			return add_object(r, MK_STRING, start, NULL);

		case MT_REGEXP:
			{
				int			options;
				bool		has_enc = false;

				TRY(read_bytes(r, "regexp length", &s, &n));
				TRY(read_byte(r, "regexp options", &options));
				/* reserved now, filled once the source's ivars are read */
				TRY(add_object(r, MK_REGEXP | KIND_PENDING, start, &slot));
				if (ivp)
				{
					TRY(read_ivars(r, MK_STRING, &has_enc));
					*ivp = 0;
				}
				r->obj_kind[slot] = MK_REGEXP;
				*kind = MK_REGEXP;
				return MARSHAL_OK;
			}

		case MT_ARRAY:
			TRY(read_length(r, "array length", 1, &n));
			TRY(add_object(r, MK_ARRAY, start, NULL));
			for (size_t i = 0; i < n; i++)
				TRY(read_element(r, &k));
			*kind = MK_ARRAY;
			return MARSHAL_OK;

		case MT_HASH:
		case MT_HASH_DEF:
			*kind = MK_HASH;
			return read_hash_body(r, start, type);

		case MT_STRUCT:
			TRY(add_object(r, MK_STRUCT | KIND_PENDING, start, &slot));
			TRY(read_symbol(r, &sym));
			TRY(read_length(r, "struct size", 2, &n));
			r->obj_kind[slot] = MK_STRUCT;
			for (size_t i = 0; i < n; i++)
			{
				TRY(read_symbol(r, &sym));
				TRY(read_object(r, &k));
			}
			*kind = MK_STRUCT;
			return MARSHAL_OK;

		case MT_OBJECT:
			TRY(add_object(r, MK_OBJECT | KIND_PENDING, start, &slot));
			TRY(read_symbol(r, &sym));
			r->obj_kind[slot] = MK_OBJECT;
			*kind = MK_OBJECT;
			return read_ivars(r, MK_OBJECT, NULL);

		case MT_USERDEF:
			TRY(read_symbol(r, &sym));
			TRY(read_bytes(r, "_dump data length", &s, &n));
			if (ivp)
			{
				TRY(read_ivars(r, MK_STRING, NULL));
				*ivp = 0;
			}
			*kind = MK_USERDEF;
			return add_object(r, MK_USERDEF, start, NULL);

		case MT_USRMARSHAL:
			TRY(read_symbol(r, &sym));
			TRY(add_object(r, MK_USRMARSHAL, start, NULL));
			*kind = MK_USRMARSHAL;
			return read_object(r, &k);

		case MT_DATA:
			TRY(read_symbol(r, &sym));
			TRY(add_object(r, MK_DATA, start, NULL));
			*kind = MK_DATA;
			return read_object0(r, r->pos, NULL, &k);

		case MT_MODULE_OLD:
			TRY(read_bytes(r, "module name length", &s, &n));
			if (ivp && *ivp)
				return fail_at(r, MARSHAL_ERR_FORMAT, at,
							   "an old-style module cannot carry instance variables");
			*kind = MK_MODULE;
			return add_object(r, MK_MODULE, start, NULL);

		case MT_CLASS:
		case MT_MODULE:
			TRY(read_class_name(r, ivp));
			*kind = type == MT_CLASS ? MK_CLASS : MK_MODULE;
			return add_object(r, *kind, start, NULL);

		case MT_SYMBOL:
			*kind = MK_SYMBOL;
			if (ivp)
			{
				int			ivar = *ivp;

				*ivp = 0;
				return read_symreal(r, ivar, &sym);
			}
			return read_symreal(r, 0, &sym);

		case MT_SYMLINK:
			TRY(read_symlink(r, at, &v));
			*kind = MK_SYMBOL;
			return MARSHAL_OK;

		case MT_LINK:
			TRY(read_long(r, "object link", &v));
			if (v < 0 || v >= r->nobj)
				return fail_at(r, MARSHAL_ERR_FORMAT, at,
							   "object link %lld is out of range (%u objects so far)",
							   (long long) v, r->nobj);
			if (r->obj_kind[v] & KIND_PENDING)
				return fail_at(r, MARSHAL_ERR_FORMAT, at,
							   "object link %lld refers to a %s that is not built yet",
							   (long long) v, kind_name(r->obj_kind[v]));
			r->link_target = (uint32_t) v;
			*kind = r->obj_kind[v] & ~KIND_ENCNAME;
			return MARSHAL_OK;

		case MT_IVAR:
			{
				int			ivar = 1;

				TRY(read_object0(r, start, &ivar, &k));
				if (ivar)
					TRY(read_ivars(r, k, NULL));
				*kind = k;
				return MARSHAL_OK;
			}

		case MT_EXTENDED:
			TRY(read_symbol(r, &sym));
			TRY(read_object0(r, start, NULL, kind));
			/* MRI: "can't define singleton" on immediates and frozen values */
			if (kind_is_frozen(*kind))
				return fail_at(r, MARSHAL_ERR_FORMAT, at,
							   "a %s cannot be extended with a module",
							   kind_name(*kind));
			return MARSHAL_OK;

		case MT_UCLASS:
			{
				int			inner;

				TRY(read_symbol(r, &sym));
				TRY(read_byte(r, "a type byte", &inner));

				/* MRI's "hack for compare_by_identity": C :Hash { ... } */
				if (r->sym_tag[sym] == SYM_HASH &&
					(inner == MT_HASH || inner == MT_HASH_DEF))
				{
					*kind = MK_HASH;
					return read_hash_body(r, start, inner);
				}
				/* C :Sub C :Hash {..} is MRI's; longer chains count as depth */
				TRY(descend(r));
				TRY(read_object_for(r, start, NULL, inner, &k));
				r->walk.depth--;
				switch (k)
				{
					case MK_NIL:
					case MK_TRUE:
					case MK_FALSE:
					case MK_FIXNUM:
					case MK_BIGNUM:	/* no Integer subclass has instances */
					case MK_SYMBOL:
					case MK_FLOAT:
					case MK_OBJECT:
					case MK_CLASS:
					case MK_MODULE:
						return fail_at(r, MARSHAL_ERR_FORMAT, at,
									   "a user class wrapper cannot wrap a %s",
									   kind_name(k));
					default:
						break;
				}
				*kind = k;
				return MARSHAL_OK;
			}

		default:
			return fail_expected(r, at, "a type byte");
	}
}

static MarshalStatus
read_stream(Reader *r)
{
	int			major;
	int			minor;
	uint8_t		kind;

	TRY(read_byte(r, "the major version 4", &major));
	if (major != MARSHAL_MAJOR)
		return fail_expected(r, 0, "the major version 4");
	TRY(read_byte(r, "a minor version", &minor));
	if (minor > MARSHAL_MINOR)
		return fail_expected(r, 1, "a minor version of at most 8");
	TRY(read_object(r, &kind));
	if (r->pos != r->len)
		return fail_at(r, MARSHAL_ERR_FORMAT, r->pos,
					   "expected end of data after the root value, found %zu trailing byte%s",
					   r->len - r->pos, r->len - r->pos == 1 ? "" : "s");
	return MARSHAL_OK;
}

static MarshalStatus
run(const uint8_t *buf, size_t len, const MarshalHooks *hooks,
	uint32_t max_depth, bool keep, MarshalIndex *index, MarshalError *err,
	uint32_t stop_sym, uint32_t stop_obj)
{
	Reader		r;
	MarshalStatus st;

	memset(&r, 0, sizeof(r));
	marshal_walk_start(&r.walk, hooks, max_depth, err);
	r.buf = buf;
	r.len = len;
	r.keep_positions = keep;
	r.stop_sym = stop_sym;
	r.stop_obj = stop_obj;

	if (len > UINT32_MAX - 1)
		st = fail_at(&r, MARSHAL_ERR_LIMIT, 0,
					 "stream of %zu bytes exceeds the 4 GB limit", len);
	else
		st = read_stream(&r);
	if (st == MARSHAL_STOPPED)
		st = MARSHAL_OK;

	if (st == MARSHAL_OK && index != NULL)
	{
		/* the index holds plain kinds */
		for (uint32_t i = 0; i < r.nobj; i++)
			r.obj_kind[i] &= ~KIND_ENCNAME;
		index->nobjects = r.nobj;
		index->nsymbols = r.nsym;
		index->obj_kind = r.obj_kind;
		index->obj_pos = r.obj_pos;
		index->sym_pos = r.sym_pos;
		index->sym_enc = r.sym_enc;
		marshal_free(hooks, r.sym_tag);
		return st;
	}
	marshal_free(hooks, r.obj_kind);
	marshal_free(hooks, r.obj_pos);
	marshal_free(hooks, r.sym_tag);
	marshal_free(hooks, r.sym_pos);
	marshal_free(hooks, r.sym_enc);
	return st;
}

MarshalStatus
marshal_validate(const uint8_t *buf, size_t len, const MarshalHooks *hooks,
				 uint32_t max_depth, MarshalError *err)
{
	return run(buf, len, hooks, max_depth, false, NULL, err, 0, 0);
}

MarshalStatus
marshal_index(const uint8_t *buf, size_t len, const MarshalHooks *hooks,
			  uint32_t max_depth, MarshalIndex *index, MarshalError *err)
{
	memset(index, 0, sizeof(*index));
	return run(buf, len, hooks, max_depth, true, index, err, 0, 0);
}

void
marshal_index_free(MarshalIndex *index, const MarshalHooks *hooks)
{
	marshal_free(hooks, index->obj_kind);
	marshal_free(hooks, index->obj_pos);
	marshal_free(hooks, index->sym_pos);
	marshal_free(hooks, index->sym_enc);
	memset(index, 0, sizeof(*index));
}

void
marshal_doc_lazy(MarshalDoc *doc, const uint8_t *buf, size_t len,
				 const MarshalHooks *hooks, uint32_t max_depth)
{
	memset(doc, 0, sizeof(*doc));
	doc->buf = buf;
	doc->len = len;
	doc->lazy.on = true;
	doc->lazy.hooks = hooks;
	doc->lazy.depth = max_depth;
}

MarshalStatus
marshal_doc_open(MarshalDoc *doc, const uint8_t *buf, size_t len,
				 const MarshalHooks *hooks, uint32_t max_depth, MarshalError *err)
{
	memset(doc, 0, sizeof(*doc));
	doc->buf = buf;
	doc->len = len;
	doc->lazy.hooks = hooks;	/* not lazy: for the interrupt check only */
	return marshal_index(buf, len, hooks, max_depth, &doc->index, err);
}

MarshalStatus
marshal_doc_need(const MarshalDoc *doc, int64_t nsym, int64_t nobj,
				 MarshalError *err)
{
	/* the index is the document's cache: extending it is not a change */
	MarshalDoc *d = (MarshalDoc *) doc;
	MarshalIndex *ix = &d->index;
	uint32_t	want_sym;
	uint32_t	want_obj;
	MarshalStatus st;

	if (!doc->lazy.on || (nsym <= ix->nsymbols && nobj <= ix->nobjects))
		return MARSHAL_OK;
	/*
	 * At least double what is asked for, so re-reading the prefix stays
	 * linear overall; the other table only as far as it was read (doubling
	 * it too read a whole stream of few symbols to find one more, for a
	 * link: every Date's calendar-reform Float is one)
	 */
	want_sym = (uint32_t) (nsym <= ix->nsymbols ? ix->nsymbols :
						   nsym > 2 * (int64_t) ix->nsymbols ? nsym : 2 * ix->nsymbols);
	want_obj = (uint32_t) (nobj <= ix->nobjects ? ix->nobjects :
						   nobj > 2 * (int64_t) ix->nobjects ? nobj : 2 * ix->nobjects);
	marshal_index_free(ix, doc->lazy.hooks);
	st = run(doc->buf, doc->len, doc->lazy.hooks, doc->lazy.depth, true, ix,
			 err, want_sym, want_obj);
	if (st == MARSHAL_OK && ix->nsymbols >= nsym && ix->nobjects >= nobj)
	{
		/* whole stream read: nothing more to ask for */
		return MARSHAL_OK;
	}
	return st;
}
