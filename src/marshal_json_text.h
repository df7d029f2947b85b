/*
 * marshal_json_text.h
 *		The growing buffer JSON text is written into, shared by the JSON text
 *		sink and the one-pass emitter (marshal_json_text.c, marshal_json_fast.c).
 */
#ifndef RBMARSHAL_MARSHAL_JSON_TEXT_H
#define RBMARSHAL_MARSHAL_JSON_TEXT_H

#include "marshal_internal.h"

#include <string.h>

typedef struct JsonBuf
{
	char	   *buf;
	size_t		len;
	size_t		cap;
	bool		failed;			/* out of memory: later writes do nothing */
	const MarshalHooks *hooks;
} JsonBuf;

/* Room for n more bytes and a final NUL; false once out of memory. */
extern bool jbuf_grow(JsonBuf *t, size_t n);

static inline bool
jbuf_reserve(JsonBuf *t, size_t n)
{
	return t->len + n + 1 <= t->cap || jbuf_grow(t, n);
}

static inline void
jbuf_put(JsonBuf *t, const char *s, size_t n)
{
	if (!jbuf_reserve(t, n))
		return;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
}

static inline void
jbuf_putc(JsonBuf *t, char c)
{
	if (!jbuf_reserve(t, 1))
		return;
	t->buf[t->len++] = c;
}

/* Whether any of the 8 bytes in x needs a look: < 0x20, '"', '\\' or >= 0x80. */
static inline bool
needs_look8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t high = 0x8080808080808080ULL;
	uint64_t	q = x ^ (ones * '"');
	uint64_t	b = x ^ (ones * '\\');

	/* exact for the word as a whole */
	return (x | (x - ones * 0x20) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high;
}

/* "00" "01" ... "99": two decimal digits at a time */
extern const char jbuf_digit_pairs[201];

/* An Integer's digits. */
extern void jbuf_integer(JsonBuf *t, int64_t v);

/*
 * s as a JSON string: quotes, and \" \\ \n \t \u00XX escapes (pg: also \b
 * \f \r, as PostgreSQL's escape_json).  With check_utf8, false (and t->len
 * as it was) if s is not valid UTF-8 without NUL, as marshal_utf8_valid(s,
 * n, false) decides.
 */
extern bool jbuf_quoted(JsonBuf *t, const uint8_t *s, size_t n, bool check_utf8,
						bool pg);

/*
 * The one-pass emitter (marshal_json_fast.c): the JSON text of a stream
 * (bounds-checked, but valid only if the reader says so) appended to t, or false where the indexed walk must do it (a value
 * it does not read, an error, a limit); t->len is then to be reset.
 * jsonb_text: the text jsonb's output function prints for it instead
 * (marshal_to_jsonb_text).
 */
extern bool marshal_json_fast(const uint8_t *buf, size_t len,
							  const MarshalJsonOptions *opts,
							  const MarshalHooks *hooks, bool jsonb_text,
							  JsonBuf *t);

#endif
