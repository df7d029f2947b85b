/*
 * marshal.h
 *		Ruby Marshal 4.8 codec, free of PostgreSQL headers.
 *
 * The codec is built into the extension and, on its own, into the unit
 * tests and fuzzers.  It never allocates except through MarshalHooks, and
 * its hooks may leave by longjmp (PostgreSQL's ereport): all state lives in
 * memory obtained from the hooks, so nothing leaks when they do.
 */
#ifndef RBMARSHAL_MARSHAL_H
#define RBMARSHAL_MARSHAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Stream header MRI writes; a reader accepts major 4 with minor <= 8. */
#define MARSHAL_MAJOR 4
#define MARSHAL_MINOR 8

/* Default nesting limit: each container, wrapper and ivar value is a level. */
#define MARSHAL_DEFAULT_MAX_DEPTH 1000

/*
 * Largest length or count the codec accepts.  MRI's writer cannot emit more
 * (w_long is 32-bit signed), and a PostgreSQL value is under 1 GB anyway.
 */
#define MARSHAL_MAX_LENGTH 0x7FFFFFFF

typedef enum MarshalStatus
{
	MARSHAL_OK = 0,
	MARSHAL_ERR_FORMAT,			/* malformed stream */
	MARSHAL_ERR_LIMIT,			/* a length or count over MARSHAL_MAX_LENGTH */
	MARSHAL_ERR_DEPTH,			/* nesting over the configured maximum */
	MARSHAL_ERR_NOMEM,			/* the allocation hook returned NULL */
	MARSHAL_ERR_UNREPRESENTABLE,	/* valid, but not expressible in the
									 * target (a cycle, an exotic key) */
	MARSHAL_ERR_ENCODING,		/* string bytes invalid in their encoding
								 * (when asked to refuse them) */
	MARSHAL_ERR_SYNTAX,			/* a Ruby literal that is not one */
	MARSHAL_ERR_UNSUPPORTED		/* recognised, but not something we read
								 * (MessagePack, encrypted cache entries) */
} MarshalStatus;

typedef struct MarshalError
{
	MarshalStatus status;
	size_t		offset;			/* byte offset in the stream */
	char		detail[160];	/* "expected X, found Y" style, no offset */
} MarshalError;

/* Type bytes of format 4.8 (MRI marshal.c names in comments). */
#define MT_NIL			'0'
#define MT_TRUE			'T'
#define MT_FALSE		'F'
#define MT_FIXNUM		'i'
#define MT_EXTENDED		'e'
#define MT_UCLASS		'C'
#define MT_OBJECT		'o'
#define MT_DATA			'd'
#define MT_USERDEF		'u'
#define MT_USRMARSHAL	'U'
#define MT_FLOAT		'f'
#define MT_BIGNUM		'l'
#define MT_STRING		'"'
#define MT_REGEXP		'/'
#define MT_ARRAY		'['
#define MT_HASH			'{'
#define MT_HASH_DEF		'}'
#define MT_STRUCT		'S'
#define MT_MODULE_OLD	'M'
#define MT_CLASS		'c'
#define MT_MODULE		'm'
#define MT_SYMBOL		':'
#define MT_SYMLINK		';'
#define MT_IVAR			'I'
#define MT_LINK			'@'

/*
 * What a value is once wrappers (I, e, C) are looked through.  Entries of
 * the object table carry one of these, so a link can be judged by what it
 * points at.
 */
typedef enum MarshalKind
{
	MK_NIL = 1,
	MK_TRUE,
	MK_FALSE,
	MK_FIXNUM,
	MK_SYMBOL,
	MK_FLOAT,
	MK_BIGNUM,
	MK_STRING,
	MK_REGEXP,
	MK_ARRAY,
	MK_HASH,
	MK_STRUCT,
	MK_OBJECT,
	MK_USERDEF,					/* u: whatever _load returned */
	MK_USRMARSHAL,				/* U */
	MK_DATA,					/* d */
	MK_CLASS,
	MK_MODULE
} MarshalKind;

/*
 * Allocation and safety callbacks.  Any member may be NULL: allocation then
 * uses malloc/realloc/free, and the checks are skipped.
 */
typedef struct MarshalHooks
{
	void	   *(*alloc) (void *ctx, size_t size);
	void	   *(*realloc) (void *ctx, void *ptr, size_t size);
	void		(*free) (void *ctx, void *ptr);
	/* called as nesting grows; may longjmp out (check_stack_depth) */
	void		(*check_stack) (void *ctx);
	/* called every few thousand values; may longjmp out */
	void		(*check_interrupts) (void *ctx);
	void	   *ctx;
} MarshalHooks;

/* The encoding a String, Symbol or Regexp carries in its ivars. */
typedef enum MarshalEncoding
{
	MENC_BINARY = 0,			/* no encoding ivar: ASCII-8BIT */
	MENC_UTF8,					/* E true */
	MENC_USASCII,				/* E false */
	MENC_NAMED					/* :encoding "<name>" (MarshalNode.encname) */
} MarshalEncoding;

/*
 * The object and symbol tables of one stream, as MRI numbers them while
 * loading.  Built by marshal_index(); the later walkers (jsonb, navigation,
 * inspect) resolve "@n" and ";n" through it instead of re-reading.
 */
typedef struct MarshalIndex
{
	uint32_t	nobjects;
	uint32_t	nsymbols;
	uint8_t    *obj_kind;		/* MarshalKind per object slot */
	uint32_t   *obj_pos;		/* offset where the slot's value starts,
								 * wrappers included */
	uint32_t   *sym_pos;		/* offset of each symbol's length prefix */
	uint8_t    *sym_enc;		/* MarshalEncoding of each symbol */
} MarshalIndex;

/*
 * Check that buf[0..len) is exactly one Marshal 4.8 stream as MRI's loader
 * reads it (plus the stricter rules documented in the README), with nothing
 * after the root value.  Returns MARSHAL_OK or fills *err.
 */
extern MarshalStatus marshal_validate(const uint8_t *buf, size_t len,
									  const MarshalHooks *hooks,
									  uint32_t max_depth, MarshalError *err);

/* As marshal_validate, and also fill *index (release with marshal_index_free). */
extern MarshalStatus marshal_index(const uint8_t *buf, size_t len,
								   const MarshalHooks *hooks,
								   uint32_t max_depth, MarshalIndex *index,
								   MarshalError *err);
extern void marshal_index_free(MarshalIndex *index, const MarshalHooks *hooks);

/* Decoding of the text input forms (marshal_hex_base64.c). */

/* Outcome of a text decode; on failure *errpos is the offending position. */
typedef enum MarshalTextStatus
{
	MARSHAL_TEXT_OK = 0,
	MARSHAL_TEXT_BAD_DIGIT,		/* a character outside the alphabet */
	MARSHAL_TEXT_ODD_LENGTH,	/* hex: half a byte; base64: stray symbol */
	MARSHAL_TEXT_BAD_PADDING	/* base64: '=' misplaced */
} MarshalTextStatus;

/* Upper bound of the decoded size, to size the output buffer. */
extern size_t marshal_hex_decoded_max(size_t len);
extern size_t marshal_base64_decoded_max(size_t len);

/*
 * Decode hex digits (no "\x" prefix; whitespace allowed between byte pairs)
 * or Base64 (whitespace ignored anywhere, padding optional) into out, which
 * holds at least the *_decoded_max bytes.  *outlen receives the size.
 */
extern MarshalTextStatus marshal_hex_decode(const char *src, size_t len,
											uint8_t *out, size_t *outlen,
											size_t *errpos);
extern MarshalTextStatus marshal_base64_decode(const char *src, size_t len,
											   uint8_t *out, size_t *outlen,
											   size_t *errpos);

/* Whether s is valid UTF-8 (and, unless nul_ok, free of NUL). */
extern bool marshal_utf8_valid(const uint8_t *s, size_t n, bool nul_ok);

/*
 * Bytes from a stream (a key, a class name) as text a message or a SQL
 * value can hold: UTF-8 characters from U+0020 on as they are, any other
 * byte (and the backslash) as \xNN.  Reads at most max_in bytes, never
 * splitting a character; writes at most size - 1 bytes and a NUL; returns
 * the bytes written.  4 * len + 1 bytes always hold the whole of s.
 */
extern size_t marshal_printable(const uint8_t *s, size_t len, size_t max_in,
								char *out, size_t size);

/* Lowercase hex of len bytes into out (2 * len chars, not terminated). */
extern void marshal_hex_encode(const uint8_t *src, size_t len, char *out);

/* Base64 with padding, no line breaks, into out (returns chars written). */
#define MARSHAL_BASE64_LEN(n) (((n) + 2) / 3 * 4)
extern size_t marshal_base64_encode(const uint8_t *src, size_t len, char *out);



/*
 * The cursor: reading a stream already validated and indexed, for the walkers
 * built on it (jsonb, navigation, inspect).  It sees through I, e and C
 * wrappers and resolves "@n" and ";n" through the index.  Reads stay bounds-
 * checked, so a damaged value gives MARSHAL_ERR_FORMAT, never a wild read.
 */
typedef struct MarshalDoc
{
	const uint8_t *buf;
	size_t		len;
	MarshalIndex index;
	/*
	 * A lazy document indexes only as far as a link or symbol link asks
	 * (navigation reads a few keys of a large value); the cursor extends it
	 * with these hooks.  Start one with marshal_doc_lazy().
	 */
	bool		lazy;
	const MarshalHooks *lazy_hooks;
	uint32_t	lazy_depth;
	/*
	 * The first symbols, as marshal_find_symbol's skip met them: offset of
	 * the length prefix, MARSHAL_SCANNED_IVAR set if defined with an I.
	 */
	uint32_t	nscanned;
	uint32_t	scanned[16];
} MarshalDoc;

#define MARSHAL_SCANNED_IVAR 0x80000000u

extern void marshal_doc_lazy(MarshalDoc *doc, const uint8_t *buf, size_t len,
							 const MarshalHooks *hooks, uint32_t max_depth);
/* A document indexed whole at once (marshal_index); every field set. */
extern MarshalStatus marshal_doc_open(MarshalDoc *doc, const uint8_t *buf,
									  size_t len, const MarshalHooks *hooks,
									  uint32_t max_depth, MarshalError *err);
/* Make sure symbol nsym - 1 and object nobj - 1 are indexed, if they exist. */
extern MarshalStatus marshal_doc_need(const MarshalDoc *doc, int64_t nsym,
									  int64_t nobj, MarshalError *err);

/* A byte string inside the stream (names, payloads). */
typedef struct MarshalBytes
{
	const uint8_t *ptr;
	size_t		len;
} MarshalBytes;

typedef struct MarshalNode
{
	int			type;			/* body type byte; links and wrappers resolved */
	size_t		pos;			/* first byte of the value (after resolving) */
	int64_t		slot;			/* object-table slot, -1 for immediates */
	MarshalBytes cls;			/* class name of o S u U d; path of c m M */
	MarshalBytes uclass;		/* the C wrapper's class, len 0 if none */
	int			nextended;		/* number of e wrappers */
	int64_t		ival;			/* i */
	MarshalBytes data;			/* bytes of " : / u f c m M; magnitude of l */
	int			negative;		/* l: sign */
	int			regexp_options; /* /: the options byte */
	uint32_t	count;			/* [ { } S: elements, pairs, members; o: ivars */
	size_t		items;			/* offset of the first element/pair/member/ivar */
	MarshalEncoding encoding;	/* " : / u: from the ivars */
	MarshalBytes encname;		/* MENC_NAMED: the encoding's name */
	int			has_ivars;		/* an I wrapper's ivar block follows the body */
	size_t		ivars;			/* offset of that block's count, when known */
	size_t		next;			/* offset after the bytes read at the given
								 * position (after "@n" for a link), or 0 for
								 * a container, whose end needs a walk */
} MarshalNode;

/*
 * Read the value at pos.  For an I-wrapped String, Regexp, Symbol or u
 * object the ivar block is read too (it holds the encoding); for an
 * I-wrapped container it follows the elements, at the offset the walker
 * reaches after them.
 */
extern MarshalStatus marshal_node(const MarshalDoc *doc, size_t pos,
								  MarshalNode *node, MarshalError *err);

/* Offset just after the value at pos (walks containers). */
extern MarshalStatus marshal_skip(const MarshalDoc *doc, size_t pos,
								  size_t *end, MarshalError *err);

/*
 * Name of the symbol at pos (":" or ";n", optionally I-wrapped) and, where
 * enc and encname are not NULL, its encoding; *end after it.
 */
extern MarshalStatus marshal_symbol(const MarshalDoc *doc, size_t pos,
									MarshalBytes *name, MarshalEncoding *enc,
									MarshalBytes *encname, size_t *end,
									MarshalError *err);

/*
 * Name of symbol number n, found by skipping from the start when the index
 * has not reached it (no tables built); *plain when it has no I wrapper.
 */
extern MarshalStatus marshal_find_symbol(const MarshalDoc *doc, int64_t n,
										 MarshalBytes *name, bool *plain,
										 MarshalError *err);

/* Read one packed long at pos (lengths, counts, Integers). */
extern MarshalStatus marshal_long(const MarshalDoc *doc, size_t pos,
								  int64_t *value, size_t *end,
								  MarshalError *err);

/*
 * The JSON view (marshal_json.c): what Rails' ActiveSupport::JSON.encode
 * would write for the value, as events to a sink.  PostgreSQL's sink builds
 * a jsonb; marshal_to_json_text() (marshal_json_text.c) writes JSON text.
 */
typedef enum MarshalBinaryMode
{
	MBIN_BASE64 = 0,			/* {"$binary": "<base64>"} */
	MBIN_ERROR,					/* MARSHAL_ERR_ENCODING */
	MBIN_REPLACE				/* invalid bytes become U+FFFD */
} MarshalBinaryMode;

typedef struct MarshalJsonSink
{
	void	   *ctx;
	void		(*begin_object) (void *ctx);
	void		(*end_object) (void *ctx);
	void		(*begin_array) (void *ctx);
	void		(*end_array) (void *ctx);
	/*
	 * Keys and strings are valid UTF-8 without NUL.  "stable" text points
	 * into the stream and lives as long as the conversion; other text is
	 * scratch the sink must copy if it keeps it.
	 */
	void		(*key) (void *ctx, const char *s, size_t len, bool stable);
	void		(*string) (void *ctx, const char *s, size_t len, bool stable);
	void		(*null) (void *ctx);
	void		(*boolean) (void *ctx, bool value);
	void		(*integer) (void *ctx, int64_t value);
	/* a JSON number as text (bignums, floats); scratch */
	void		(*number) (void *ctx, const char *text, size_t len);
	/*
	 * Convert bytes in a named Ruby encoding (Shift_JIS, ...) to UTF-8.
	 * Return false if the encoding is unknown or the bytes are invalid in
	 * it.  *out must stay valid until the conversion ends.  May be NULL.
	 */
	bool		(*transcode) (void *ctx, const char *encname,
							  const uint8_t *s, size_t len,
							  char **out, size_t *outlen);
	/*
	 * Emit JSON text (a serialized column's) as the value it parses to;
	 * false, having emitted nothing, if it is not valid JSON.  May be NULL:
	 * the text is then emitted as a string.
	 */
	bool		(*json) (void *ctx, const char *s, size_t len);
	/*
	 * The same for YAML text as ActiveRecord's YAMLColumn loads it; false,
	 * having emitted nothing, for YAML whose loading is not reproduced.
	 */
	bool		(*yaml) (void *ctx, const char *s, size_t len);
} MarshalJsonSink;

typedef struct MarshalJsonOptions
{
	int			time_precision; /* fraction digits of times, 0..9 */
	MarshalBinaryMode binary;
	uint32_t	max_depth;		/* 0: MARSHAL_DEFAULT_MAX_DEPTH */
	uint64_t	max_cost;		/* expansion budget; 0: the default */
} MarshalJsonOptions;

/*
 * Default expansion budget: about one unit per value or 16 string bytes
 * emitted, so an input of len bytes never needs more than its own size;
 * shared references may expand up to this many before it is refused.
 */
#define MARSHAL_DEFAULT_COST(len) (1000000 + 16 * (uint64_t) (len))

extern MarshalStatus marshal_to_json(const MarshalDoc *doc,
									 const MarshalJsonSink *sink,
									 const MarshalJsonOptions *opts,
									 const MarshalHooks *hooks,
									 MarshalError *err);

/* Validate, index and write JSON text (malloc'd or from hooks) into *out. */
extern MarshalStatus marshal_to_json_text(const uint8_t *buf, size_t len,
										  const MarshalJsonOptions *opts,
										  const MarshalHooks *hooks,
										  char **out, size_t *outlen,
										  MarshalError *err);

/*
 * The writer (marshal_writer.c): Marshal.dump's bytes, one value at a time
 * in stream order.  Containers announce their size, then their elements
 * (hash: key, value, key, value...) follow.  Errors are sticky and
 * reported by marshal_writer_finish, which hands over the buffer.
 */
typedef struct MarshalWriter MarshalWriter;

extern MarshalWriter *marshal_writer_new(const MarshalHooks *hooks);
extern MarshalStatus marshal_writer_finish(MarshalWriter *w, uint8_t **out,
										   size_t *len);
extern void marshal_writer_free(MarshalWriter *w);
extern void marshal_write_nil(MarshalWriter *w);
extern void marshal_write_bool(MarshalWriter *w, bool v);
extern void marshal_write_int(MarshalWriter *w, int64_t v);
/* An Integer from decimal digits with an optional sign, of any size. */
extern void marshal_write_decimal(MarshalWriter *w, const char *digits,
								  size_t len);
/* A Float; a value equal to an earlier flonum becomes a link, as in MRI. */
extern void marshal_write_float(MarshalWriter *w, double d);
extern void marshal_write_string(MarshalWriter *w, const uint8_t *s,
								 size_t len, MarshalEncoding enc);
/* A UTF-8 hash key as Ruby stores it: equal keys are one frozen object. */
extern void marshal_write_key(MarshalWriter *w, const uint8_t *s, size_t len);
/* A frozen, deduplicated String (MRI's fstring): repeats become links. */
extern uint32_t marshal_write_fstring(MarshalWriter *w, const uint8_t *s,
								  size_t len, MarshalEncoding enc);
/* Time.at(epoch, usec).utc, Date.jd(jd), BigDecimal(text) as MRI dumps them */
extern void marshal_write_time_utc(MarshalWriter *w, int64_t epoch,
								   int32_t usec);
extern void marshal_write_date(MarshalWriter *w, int64_t jd);
extern void marshal_write_bigdecimal(MarshalWriter *w, const char *text,
									 size_t len);
extern void marshal_write_symbol(MarshalWriter *w, const uint8_t *name,
								 size_t len);
extern void marshal_write_array(MarshalWriter *w, uint32_t count);
extern void marshal_write_hash(MarshalWriter *w, uint32_t count);

/* Every other case of MRI's w_object, for re-encoding any value. */
extern uint32_t marshal_writer_objects(const MarshalWriter *w);
extern uint32_t marshal_write_remember(MarshalWriter *w);
extern void marshal_write_link(MarshalWriter *w, uint32_t slot);
extern void marshal_write_ivar_wrapper(MarshalWriter *w);
extern void marshal_write_ivar_count(MarshalWriter *w, uint32_t count);
extern void marshal_write_extended(MarshalWriter *w, const uint8_t *module,
								   size_t len);
extern void marshal_write_uclass(MarshalWriter *w, const uint8_t *cls,
								 size_t len);
extern void marshal_write_hash_with_default(MarshalWriter *w, uint32_t count);
extern void marshal_write_string_bytes(MarshalWriter *w, const uint8_t *s,
									   size_t len);
extern void marshal_write_regexp(MarshalWriter *w, const uint8_t *src,
								 size_t len, int options);
extern void marshal_write_class(MarshalWriter *w, int type,
								const uint8_t *name, size_t len);
/* o and S (with their ivar/member count), U and d (data follows) */
extern void marshal_write_named(MarshalWriter *w, int type,
								const uint8_t *cls, size_t len,
								uint32_t count);
extern void marshal_write_userdef(MarshalWriter *w, const uint8_t *cls,
								  size_t clen, const uint8_t *data,
								  size_t len);
extern void marshal_write_bignum(MarshalWriter *w, bool negative,
								 const uint8_t *mag, size_t len);
extern void marshal_write_symbol_enc(MarshalWriter *w, const uint8_t *name,
									 size_t len, MarshalEncoding enc,
									 MarshalBytes encname);
/* an encoding ivar pair: :E true/false, or :encoding and the cached name */
extern void marshal_write_encoding(MarshalWriter *w, MarshalEncoding enc,
								   const uint8_t *name, size_t len);

/*
 * Re-encode the value at pos as MRI's Marshal.dump of the loaded value
 * would: a standalone stream, symbols and links renumbered, objects linked
 * from outside written in full at first use (marshal_reencode.c).
 * marshal_reencode_into writes it as one value of a stream being written.
 */
extern MarshalStatus marshal_reencode_into(MarshalWriter *w,
										   const MarshalDoc *doc, size_t pos,
										   const MarshalHooks *hooks,
										   MarshalError *err);
extern MarshalStatus marshal_reencode(const MarshalDoc *doc, size_t pos,
									  const MarshalHooks *hooks,
									  uint8_t **out, size_t *len,
									  MarshalError *err);

/*
 * The commonest values (nil, true, false, an Integer of 31 bits, a String
 * with no ivars or only E), read from their bytes alone: walkers take them
 * without building a node, and they re-encode to their own bytes:
 * leaf->body, copied as it is, after 04 08 and before leaf->tail (an E ivar
 * whose symbol link is written out).  *found is false for any other value,
 * and for bytes MRI would not write back as they are (non-canonical longs).
 */
typedef struct MarshalLeaf
{
	int			type;			/* MT_NIL, MT_TRUE, MT_FALSE, MT_FIXNUM,
								 * MT_STRING */
	int64_t		ival;			/* MT_FIXNUM */
	MarshalBytes data;			/* MT_STRING: its bytes */
	MarshalEncoding encoding;	/* MT_STRING: binary, UTF-8 or US-ASCII */
	size_t		end;			/* offset after the value */
	MarshalBytes body;
	uint8_t		tail[5];
	size_t		ntail;
} MarshalLeaf;

extern MarshalStatus marshal_leaf(const MarshalDoc *doc, size_t pos,
								  MarshalLeaf *leaf, bool *found,
								  MarshalError *err);
/* The leaf's stream (04 08, body, tail) into out; returns its length. */
extern size_t marshal_leaf_write(const MarshalLeaf *leaf, uint8_t *out);

#define MARSHAL_LEAF_SIZE(leaf) (2 + (leaf)->body.len + (leaf)->ntail)

/* Numbers as Ruby reads and prints them (marshal_numbers_dates.c). */

/* Float text of a stream (validated) to a double, legacy tail included. */
extern bool marshal_parse_float(const uint8_t *text, size_t len, double *out);

/* Float#to_s ("1.0", "1.0e+20", "NaN"); out holds at least 32 bytes. */
extern size_t marshal_format_float(double d, char *out);

/*
 * Decimal text of a bignum magnitude (little-endian bytes); false if it
 * does not fit out (3 * len + 3 bytes always do).  limbs is scratch for
 * (len + 3) / 4 words.
 */
extern bool marshal_bignum_decimal(const uint8_t *mag, size_t len,
								   bool negative, char *out, size_t size,
								   size_t *outlen, uint32_t *limbs);

/*
 * A Ruby literal (nil, true, false, numbers, strings, symbols, arrays and
 * hashes) to MRI's Marshal.dump(eval(text)) bytes, evaluating nothing
 * (marshal_literal.c).  Errors are MARSHAL_ERR_SYNTAX at a character offset.
 */
extern MarshalStatus marshal_from_literal(const char *text, size_t len,
										  const MarshalHooks *hooks,
										  uint32_t max_depth, uint8_t **out,
										  size_t *outlen, MarshalError *err);

/*
 * The value as Ruby 4.0's inspect shows it, objects without addresses
 * (marshal_inspect.c).  limit bounds the text (0: a default budget).
 */
extern MarshalStatus marshal_inspect(const MarshalDoc *doc,
									 const MarshalHooks *hooks,
									 uint32_t max_depth, size_t limit,
									 char **out, size_t *outlen,
									 MarshalError *err);

/* The float text w_float writes ("1", "1.5", "1e-5", "-0", "inf"). */
extern size_t marshal_float_text(double d, char *out);

/*
 * The containers of the JSON view (marshal_view.c).  Navigation and the
 * JSON walker both use this, so v -> k always agrees with v::jsonb -> k.
 */
typedef enum MarshalViewKind
{
	MV_SCALAR = 0,				/* a JSON scalar (or an object made of one) */
	MV_ARRAY,					/* Array: its elements */
	MV_SET,						/* Set: the keys of its @hash */
	MV_HASH,					/* Hash of any kind: key.to_s => value */
	MV_STRUCT,					/* Struct: member => value */
	MV_IVARS,					/* plain object: @ivar (without @) => value */
	MV_RECORD					/* Active Record 6.1: its attributes */
} MarshalViewKind;

/* The kinds that are JSON objects (keyed entries). */
#define MARSHAL_VIEW_IS_OBJECT(k) \
	((k) == MV_HASH || (k) == MV_STRUCT || (k) == MV_IVARS || (k) == MV_RECORD)

/*
 * MV_RECORD: where an Active Record 6.1 model keeps its attributes, as
 * marshal_activerecord.c finds them: attribute Hashes, a later one overriding
 * earlier keys.
 */
typedef struct MarshalRecordView
{
	int			nsegs;
	size_t		seg_items[3];
	uint32_t	seg_count[3];
	int			attr_seg;		/* the one holding Attribute objects, or -1 */
	int			values_seg;		/* the adapter's @values, or -1 */
	size_t		types_items;	/* the @types Hash (name => type object) */
	uint32_t	types_count;
} MarshalRecordView;

typedef struct MarshalView
{
	MarshalViewKind kind;
	MarshalNode node;			/* the value itself, through wrappers */
	size_t		items;			/* the first entry */
	uint32_t	count;			/* entries, ivars not starting with @ too */
	MarshalRecordView record;	/* MV_RECORD only */
} MarshalView;

typedef struct MarshalViewIter
{
	const MarshalView *view;
	int			seg;			/* MV_RECORD: the Hash being read */
	uint32_t	i;
	size_t		pos;			/* next entry (once the last value is past) */
	size_t		value;			/* the last value returned, to skip */
} MarshalViewIter;

/* How an MV_RECORD attribute's raw value is cast (marshal_activerecord.c). */
#define MARSHAL_CAST_NONE	0	/* already cast (or nothing to cast with) */
#define MARSHAL_CAST_DB		1	/* type.deserialize: the adapter's value */
#define MARSHAL_CAST_USER	2	/* type.cast: a value assigned by the app */

typedef struct MarshalEntry
{
	size_t		key;			/* MV_HASH: offset of the key value */
	MarshalBytes name;			/* MV_STRUCT, MV_IVARS: the name */
	MarshalEncoding name_enc;
	MarshalBytes name_encname;
	size_t		value;			/* offset of the value (or element) */
	size_t		type;			/* MV_RECORD: the attribute's type object */
	int			cast;			/* MV_RECORD: MARSHAL_CAST_* */
} MarshalEntry;

/* A key as text: key.to_s of a Hash key, or a member/ivar name. */
typedef struct MarshalKeyText
{
	bool		ok;				/* false: a key whose to_s is not produced */
	int			type;			/* type byte of a Hash key */
	MarshalBytes text;
	MarshalEncoding encoding;
	MarshalBytes encname;
} MarshalKeyText;

extern MarshalStatus marshal_view(const MarshalDoc *doc, size_t pos,
								  MarshalView *view, MarshalError *err);
extern void marshal_view_iter(const MarshalView *view, MarshalViewIter *it);
/* A walker that went through the last value tells where it ended. */
extern void marshal_view_value_end(MarshalViewIter *it, size_t end);
extern MarshalStatus marshal_view_next(const MarshalDoc *doc,
									   MarshalViewIter *it, MarshalEntry *e,
									   bool *done, MarshalError *err);
/* buf (at least 64 bytes) holds the text of non-String keys */
extern MarshalStatus marshal_key_text(const MarshalDoc *doc,
									  const MarshalEntry *e, char *buf,
									  size_t size, MarshalKeyText *key,
									  MarshalError *err);
/*
 * The value under a key (UTF-8 text) or at an index (negative from the end)
 * of a view, as jsonb's -> finds it; *found = 0 when there is none.  Keys
 * in named encodings are converted with transcoder's transcode (if any).
 */
extern MarshalStatus marshal_view_find(const MarshalDoc *doc,
									   const MarshalView *view,
									   const char *key, size_t keylen,
									   int64_t index, bool by_index,
									   const MarshalJsonSink *transcoder,
									   size_t *found, MarshalError *err);

/*
 * Instants and dates for the typed casts and inspect (marshal_time.c):
 * Time, TimeWithZone, DateTime and Date.
 */
typedef struct MarshalInstant
{
	int64_t		epoch;			/* seconds since 1970-01-01 UTC */
	int64_t		nsec;
} MarshalInstant;

/* *ok is false when the value at pos is none of those classes. */
extern MarshalStatus marshal_instant(const MarshalDoc *doc, size_t pos,
									 MarshalInstant *t, bool *ok,
									 MarshalError *err);
/* A Time's wall clock as Time#inspect shows it. */
typedef struct MarshalTimeParts
{
	int64_t		year;
	int			month;
	int			day;
	int			hour;
	int			minute;
	int			second;
	bool		utc;
	int64_t		offset;			/* seconds east of UTC, when !utc */
} MarshalTimeParts;

extern MarshalStatus marshal_time_parts(const MarshalDoc *doc, size_t pos,
										MarshalInstant *t,
										MarshalTimeParts *parts, bool *ok,
										MarshalError *err);

/* The Julian Day Number of a Date. */
extern MarshalStatus marshal_date_jd(const MarshalDoc *doc, size_t pos,
									 int64_t *jd, bool *ok, MarshalError *err);

/*
 * An Active Record attribute's value cast as serializable_hash would
 * (marshal_activerecord.c): what to emit instead of the raw value.
 */
typedef enum MarshalCastKind
{
	MCAST_RAW = 0,				/* the raw value, as it is */
	MCAST_VALUE,				/* the value at pos instead */
	MCAST_NULL,
	MCAST_BOOL,
	MCAST_INT,
	MCAST_NUMBER,				/* text: a JSON number */
	MCAST_STRING,				/* text: a JSON string */
	MCAST_TIME,					/* an instant, as ISO 8601 UTC ("...Z") */
	MCAST_MARSHAL,				/* bytes: a nested Marshal stream's view */
	MCAST_JSON,					/* bytes: JSON text, parsed */
	MCAST_YAML					/* bytes: YAML text (YAMLColumn), loaded */
} MarshalCastKind;

typedef struct MarshalCast
{
	MarshalCastKind kind;
	bool		boolean;
	int64_t		integer;
	size_t		pos;
	MarshalInstant time;
	MarshalBytes bytes;
	bool		json_invalid_null;	/* bad JSON is null (else left raw) */
	char		text[128];
	size_t		len;
} MarshalCast;

extern MarshalStatus marshal_record_cast(const MarshalDoc *doc,
										 const MarshalEntry *e,
										 MarshalCast *c, MarshalError *err);

/* The JSON view of one view entry's value (cast, for record attributes). */
extern MarshalStatus marshal_to_json_entry(const MarshalDoc *doc,
										   const MarshalEntry *e,
										   const MarshalJsonSink *sink,
										   const MarshalJsonOptions *opts,
										   const MarshalHooks *hooks,
										   MarshalError *err);

/* As marshal_view_find for a key, giving the whole entry (value 0: none). */
extern MarshalStatus marshal_view_find_entry(const MarshalDoc *doc,
											 const MarshalView *view,
											 const char *key, size_t keylen,
											 const MarshalJsonSink *transcoder,
											 MarshalEntry *found,
											 MarshalError *err);

/* The JSON view of the value at pos only (navigation results). */
extern MarshalStatus marshal_to_json_at(const MarshalDoc *doc, size_t pos,
										const MarshalJsonSink *sink,
										const MarshalJsonOptions *opts,
										const MarshalHooks *hooks,
										MarshalError *err);

/*
 * Rails cache entries (marshal_rails_cache.c): the formats ActiveSupport::Cache
 * writes (6.1 Entry objects, 7.0 and 7.1 envelopes), plain Marshal and gzip.
 * The value comes out as a Marshal stream of its own.
 */
typedef struct MarshalCacheEntry
{
	const char *format;			/* "6.1", "7.0", "7.1", "marshal", "gzip" */
	uint8_t    *value;			/* a Marshal stream (from the hooks) */
	size_t		value_len;
	bool		has_expires;
	double		expires_at;		/* seconds since 1970 */
	bool		has_version;
	const uint8_t *version;		/* its bytes (into the input, or owned) */
	size_t		version_len;
	bool		version_owned;
	bool		version_marshaled;	/* 7.1 wrote Marshal.dump(version) */
} MarshalCacheEntry;

extern MarshalStatus marshal_cache_entry(const uint8_t *buf, size_t len,
										 const MarshalHooks *hooks,
										 uint32_t max_depth,
										 size_t max_inflated,
										 MarshalCacheEntry *e,
										 MarshalError *err);
extern void marshal_cache_entry_free(MarshalCacheEntry *e,
									 const MarshalHooks *hooks);

/* The Ruby and Rails classes the codec knows (marshal_class.c). */
#include "marshal_class.h"

#endif							/* RBMARSHAL_MARSHAL_H */
