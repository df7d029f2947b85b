/*
 * marshal_stream.h
 *		The Marshal 4.8 stream: limits, errors, type bytes, hooks, validation
 *		and the object index, and the text forms (hex, Base64) of a stream.
 */
#ifndef RBMARSHAL_MARSHAL_STREAM_H
#define RBMARSHAL_MARSHAL_STREAM_H

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
	/*
	 * The abbreviation tzinfo gives a Rails zone (zone: NUL-terminated, "Tokyo"
	 * or "Asia/Tokyo") at epoch where its UTC offset is offset (the value's),
	 * for inspect; false when unknown.  NULL: none.
	 */
	bool		(*zone_abbrev) (const char *zone, int64_t epoch, int64_t offset,
								char *out, size_t size);
	/*
	 * Whether Rails finds a zone by this name (NUL-terminated; a key of
	 * ActiveSupport::TimeZone::MAPPING or a tz identifier): a TimeWithZone in
	 * another cannot load, nor a TimeZone read from YAML.  NULL: any name.
	 */
	bool		(*zone_known) (const char *zone);
} MarshalHooks;

/* The encoding a String, Symbol or Regexp carries in its ivars. */
typedef enum MarshalEncoding
{
	MENC_BINARY = 0,			/* no encoding ivar: ASCII-8BIT */
	MENC_UTF8,					/* E true */
	MENC_USASCII,				/* E false */
	MENC_NAMED					/* :encoding "<name>" (MarshalNode.encname) */
} MarshalEncoding;

/* A byte string inside the stream (names, payloads). */
typedef struct MarshalBytes
{
	const uint8_t *ptr;
	size_t		len;
} MarshalBytes;

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
/* The same, calling hooks' interrupt check every megabyte of input (hooks may be NULL). */
extern MarshalTextStatus marshal_hex_decode_checked(const char *src, size_t len,
													uint8_t *out, size_t *outlen,
													size_t *errpos,
													const MarshalHooks *hooks);
extern MarshalTextStatus marshal_base64_decode_checked(const char *src, size_t len,
													   uint8_t *out, size_t *outlen,
													   size_t *errpos,
													   const MarshalHooks *hooks);

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

#endif							/* RBMARSHAL_MARSHAL_STREAM_H */
