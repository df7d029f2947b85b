/*
 * marshal_inspect.h
 *		What marshal_inspect.c and marshal_inspect_text.c share: the text
 *		being written and its writers, and how Strings and Symbols show in
 *		their encodings.  Private to those two files.
 */
#ifndef RBMARSHAL_MARSHAL_INSPECT_H
#define RBMARSHAL_MARSHAL_INSPECT_H

#include "marshal_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct Out
{
	const MarshalDoc *doc;
	MarshalWalk walk;			/* hooks, error, depth */
	char	   *buf;
	size_t		len;
	size_t		cap;
	size_t		limit;			/* output budget in bytes */
	size_t	   *active;			/* containers being shown (recursion) */
	uint32_t	nactive;
	uint32_t	activecap;
	uint32_t	steps;
	/*
	 * A Hash key's to_s as Ruby 3.1 with ActiveSupport writes an Array's
	 * (marshal_inspect_key): Date and DateTime as readable_inspect, and any
	 * value whose inspect the bytes do not decide sets refused
	 */
	bool		as_key;
	bool		refused;
} Out;

static inline MarshalStatus
fail(Out *o, MarshalStatus st, size_t offset, const char *what)
{
	o->walk.err->status = st;
	o->walk.err->offset = offset;
	snprintf(o->walk.err->detail, sizeof(o->walk.err->detail), "%s", what);
	return st;
}

static inline MarshalStatus
put(Out *o, const void *s, size_t n)
{
	if (o->len + n > o->limit)
		return fail(o, MARSHAL_ERR_LIMIT, 0, "inspect text exceeds the budget");
	if (o->len + n + 1 > o->cap)
	{
		size_t		cap = o->cap ? o->cap : 256;
		char	   *b;

		while (cap < o->len + n + 1)
			cap *= 2;
		b = marshal_realloc(o->walk.hooks, o->buf, cap);
		if (b == NULL)
			return fail(o, MARSHAL_ERR_NOMEM, 0, "out of memory");
		o->buf = b;
		o->cap = cap;
	}
	/* an empty piece may come with no pointer (a zero-length name) */
	if (n > 0)
		memcpy(o->buf + o->len, s, n);
	o->len += n;
	return MARSHAL_OK;
}

/* Bytes that should be text (names, sources): invalid bytes as \xNN. */
static inline MarshalStatus
put_text(Out *o, const uint8_t *s, size_t n)
{
	size_t		i = 0;

	if (marshal_utf8_valid(s, n, true))
		return put(o, s, n);
	while (i < n)
	{
		uint8_t		c = s[i];
		size_t		len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		char		esc[8];

		if (len <= n - i && marshal_utf8_valid(s + i, len, true))
		{
			TRY(put(o, s + i, len));
			i += len;
			continue;
		}
		snprintf(esc, sizeof(esc), "\\x%02X", c);
		TRY(put(o, esc, 4));
		i++;
	}
	return MARSHAL_OK;
}

static inline MarshalStatus
puts_(Out *o, const char *s)
{
	return put(o, s, strlen(s));
}

static inline MarshalStatus
putf(Out *o, const char *fmt,...) __attribute__((format(printf, 2, 3)));

static inline MarshalStatus
putf(Out *o, const char *fmt,...)
{
	char		buf[128];
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put(o, buf, (size_t) (n < (int) sizeof(buf) ? n : (int) sizeof(buf) - 1));
}

/*
 * How String#inspect reads the bytes of an encoding.  Ruby walks the
 * string character by character (rb_enc_precise_mbclen), shows printable
 * characters raw only in the encoding of the text it makes (UTF-8) or when
 * they are printable ASCII in an ASCII-compatible encoding, and escapes the
 * rest as \uXXXX in Unicode encodings and \xNN or \x{NNNN} (the character's
 * bytes as one number) in the others.
 */
typedef enum Charset
{
	CS_UTF8,					/* the text's own encoding */
	CS_UTF8_OTHER,				/* UTF8-MAC, UTF8-DoCoMo...: Unicode too */
	CS_SINGLE,					/* ASCII-8BIT, US-ASCII, ISO-8859-*... */
	CS_DUMMY,					/* UTF-16, UTF-7, ISO-2022-JP: bytes only */
	CS_UTF16LE,
	CS_UTF16BE,
	CS_UTF32LE,
	CS_UTF32BE,
	CS_SJIS,					/* Shift_JIS, Windows-31J and relatives */
	CS_EUCJP,					/* EUC-JP: 2 bytes, 8E + kana, 8F + 2 */
	CS_EUCKR,					/* EUC-KR, GB2312: A1-FE pairs */
	CS_EUCTW,					/* EUC-TW: A1-FE pairs, 8E + 3 */
	CS_BIG5,					/* Big5 and relatives */
	CS_GBK,						/* GBK, CP936 */
	CS_CP949,
	CS_GB18030					/* GBK's pairs and 4-byte sequences */
} Charset;

/* marshal_inspect_text.c: Strings and Symbols as inspect shows them */
extern Charset marshal_inspect_charset(MarshalEncoding enc, MarshalBytes encname);
extern MarshalStatus marshal_inspect_string_body(Out *o, const uint8_t *s,
												 size_t n, Charset cs);
extern MarshalStatus marshal_inspect_string(Out *o, const MarshalNode *n);
extern MarshalStatus marshal_inspect_symbol(Out *o, const MarshalNode *n);
/* whether a Symbol's text stands bare (:name; as a Hash key, name:) */
extern bool marshal_inspect_symbol_plain(const uint8_t *s, size_t n,
										 Charset cs, bool as_key);

#endif							/* RBMARSHAL_MARSHAL_INSPECT_H */
