/*
 * fuzz_text.c
 *		libFuzzer target: marshal_hex_decode and marshal_base64_decode.
 *
 * The input is taken as text and decoded both ways.  For each decoder:
 *
 *   - the output buffer is exactly *_decoded_max(len) bytes (ASan catches a
 *     write past it) and *outlen <= that bound;
 *   - on failure *errpos <= len;
 *   - it agrees with a straightforward reference decoder written here on
 *     whether the text is valid and on the bytes it decodes to;
 *   - on success, marshal_hex_encode of the bytes (2 * n chars, lowercase
 *     hex digits only) decodes back to the same bytes, and so do the bytes'
 *     Base64 written as Ruby's encode64 does (60-char lines, padding) and
 *     written without padding or newlines;
 *   - marshal_base64_encode of the decoded bytes, and of the raw input,
 *     writes exactly MARSHAL_BASE64_LEN(n) chars into a buffer of that size,
 *     the same as the harness's own padded encoder, which decode back.
 *
 * The raw input also goes to marshal_utf8_valid (with and without nul_ok),
 * which must agree with a table-driven reference (Unicode's table of
 * well-formed byte sequences).
 *
 * The text codec takes no MarshalHooks: it writes into the caller's buffer
 * and allocates nothing, so there is nothing to count here; LeakSanitizer
 * still checks the harness's own buffers.
 */
#include "marshal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_NAME "fuzz_text"
#include "fuzz_die.h"

static void *
xmalloc(size_t n)
{
	/* exactly n bytes, so ASan reports a write at out[n] */
	void	   *p = malloc(n);

	if (p == NULL && n != 0)
		die("malloc(%zu) failed", n);
	return p;
}

static bool
ref_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		c == '\v';
}

static int
ref_hex(unsigned char c)
{
	const char *digits = "0123456789abcdef";
	const char *p;

	if (c >= 'A' && c <= 'F')
		c = c - 'A' + 'a';
	p = c ? strchr(digits, c) : NULL;
	return p ? (int) (p - digits) : -1;
}

/*
 * Reference hex: whitespace-separated words, each an even number of hex
 * digits.  Returns true and fills out/outlen if valid.
 */
static bool
ref_hex_decode(const unsigned char *s, size_t len, uint8_t *out, size_t *outlen)
{
	size_t		o = 0;
	size_t		i = 0;

	while (i < len)
	{
		size_t		start;

		if (ref_space(s[i]))
		{
			i++;
			continue;
		}
		start = i;
		while (i < len && !ref_space(s[i]))
			i++;
		if ((i - start) % 2 != 0)
			return false;
		for (size_t k = start; k < i; k += 2)
		{
			int			hi = ref_hex(s[k]);
			int			lo = ref_hex(s[k + 1]);

			if (hi < 0 || lo < 0)
				return false;
			out[o++] = (uint8_t) (hi * 16 + lo);
		}
	}
	*outlen = o;
	return true;
}

static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int
ref_b64(unsigned char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int) (p - b64_alphabet) : -1;
}

/*
 * Reference Base64: with whitespace removed, d alphabet characters then p
 * '=' characters; d % 4 != 1; if p > 0 then d % 4 + p == 4 (so d % 4 is 2
 * or 3).  The bytes are the standard decoding.
 */
static bool
ref_b64_decode(const unsigned char *s, size_t len, uint8_t *out, size_t *outlen)
{
	unsigned char *t = xmalloc(len + 1);
	size_t		n = 0;
	size_t		d;
	size_t		p;
	size_t		o = 0;
	bool		ok = false;

	for (size_t i = 0; i < len; i++)
		if (!ref_space(s[i]))
			t[n++] = s[i];
	for (d = 0; d < n && ref_b64(t[d]) >= 0; d++)
		;
	for (p = 0; d + p < n && t[d + p] == '='; p++)
		;
	if (d + p != n || d % 4 == 1 || (p > 0 && (d % 4 < 2 || d % 4 + p != 4)))
		goto done;
	for (size_t i = 0; i + 1 < d; i += 4)
	{
		uint32_t	acc = 0;
		size_t		k = d - i < 4 ? d - i : 4;

		for (size_t j = 0; j < 4; j++)
			acc = acc << 6 | (uint32_t) (j < k ? ref_b64(t[i + j]) : 0);
		out[o++] = (uint8_t) (acc >> 16);
		if (k > 2)
			out[o++] = (uint8_t) (acc >> 8);
		if (k > 3)
			out[o++] = (uint8_t) acc;
	}
	*outlen = o;
	ok = true;
done:
	free(t);
	return ok;
}

/* Base64 as Ruby's Base64.encode64 (wrap = 60) or strict without padding. */
static size_t
b64_encode(const uint8_t *s, size_t n, char *out, bool ruby)
{
	size_t		o = 0;
	size_t		line = 0;

	for (size_t i = 0; i < n; i += 3)
	{
		uint32_t	acc = (uint32_t) s[i] << 16;
		size_t		k = n - i < 3 ? n - i : 3;

		if (k > 1)
			acc |= (uint32_t) s[i + 1] << 8;
		if (k > 2)
			acc |= s[i + 2];
		out[o++] = b64_alphabet[acc >> 18 & 63];
		out[o++] = b64_alphabet[acc >> 12 & 63];
		if (k > 1)
			out[o++] = b64_alphabet[acc >> 6 & 63];
		else if (ruby)
			out[o++] = '=';
		if (k > 2)
			out[o++] = b64_alphabet[acc & 63];
		else if (ruby)
			out[o++] = '=';
		if (ruby && (line += 4) == 60)
		{
			out[o++] = '\n';
			line = 0;
		}
	}
	if (ruby && line > 0)
		out[o++] = '\n';
	return o;
}

static void
check_same(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
		   const char *what)
{
	if (alen != blen || (alen > 0 && memcmp(a, b, alen) != 0))
		die("%s: %zu bytes vs %zu bytes, or different bytes", what, alen,
			blen);
}

/* Decode text that must be valid and yield bytes[0..n). */
static void
redecode(bool hex, const char *text, size_t tlen, const uint8_t *bytes,
		 size_t n, const char *what)
{
	size_t		max = hex ? marshal_hex_decoded_max(tlen) :
		marshal_base64_decoded_max(tlen);
	uint8_t    *out = xmalloc(max);
	size_t		outlen = (size_t) -1;
	size_t		errpos = (size_t) -1;
	MarshalTextStatus st;

	st = hex ? marshal_hex_decode(text, tlen, out, &outlen, &errpos) :
		marshal_base64_decode(text, tlen, out, &outlen, &errpos);
	if (st != MARSHAL_TEXT_OK)
		die("%s: refused (status %d at %zu)", what, st, errpos);
	if (outlen > max)
		die("%s: outlen %zu over the bound %zu", what, outlen, max);
	check_same(out, outlen, bytes, n, what);
	free(out);
}

/* marshal_base64_encode against the padded, unwrapped reference. */
static void
check_base64_encode(const uint8_t *bytes, size_t n)
{
	size_t		want = MARSHAL_BASE64_LEN(n);
	char	   *out = xmalloc(want);	/* exactly: ASan catches more */
	char	   *ref = xmalloc(want + n / 45 + 2);
	size_t		got;
	size_t		reflen;

	got = marshal_base64_encode(bytes, n, out);
	if (got != want)
		die("base64_encode of %zu bytes wrote %zu chars, not %zu", n, got,
			want);
	/* the reference with padding but no newlines */
	reflen = 0;
	{
		size_t		k = b64_encode(bytes, n, ref, true);

		for (size_t i = 0; i < k; i++)
			if (ref[i] != '\n')
				ref[reflen++] = ref[i];
	}
	if (reflen != got || (got > 0 && memcmp(out, ref, got) != 0))
		die("base64_encode of %zu bytes differs from the reference", n);
	redecode(false, out, got, bytes, n, "base64_decode(base64_encode(x))");
	free(out);
	free(ref);
}

static void
round_trip(const uint8_t *bytes, size_t n)
{
	char	   *hex = xmalloc(2 * n);
	/* 4 chars per 3 bytes, a newline per 15 groups, one more at the end */
	char	   *b64 = xmalloc(4 * (n / 3 + 1) + n / 45 + 2);
	size_t		blen;

	marshal_hex_encode(bytes, n, hex);
	for (size_t i = 0; i < 2 * n; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
			die("hex_encode wrote 0x%02x", (unsigned char) hex[i]);
	redecode(true, hex, 2 * n, bytes, n, "hex_decode(hex_encode(x))");

	blen = b64_encode(bytes, n, b64, true);
	redecode(false, b64, blen, bytes, n, "base64_decode(encode64(x))");
	blen = b64_encode(bytes, n, b64, false);
	redecode(false, b64, blen, bytes, n, "base64_decode(unpadded(x))");
	free(hex);
	free(b64);
	check_base64_encode(bytes, n);
}

static void
one(bool hex, const uint8_t *data, size_t size)
{
	const char *src = (const char *) data;
	const char *name = hex ? "hex" : "base64";
	size_t		max = hex ? marshal_hex_decoded_max(size) :
		marshal_base64_decoded_max(size);
	uint8_t    *out = xmalloc(max);
	uint8_t    *ref = xmalloc(size);	/* either decodes to at most len bytes */
	size_t		outlen = (size_t) -1;
	size_t		reflen = 0;
	size_t		errpos = (size_t) -1;
	MarshalTextStatus st;
	bool		ref_ok;

	st = hex ? marshal_hex_decode(src, size, out, &outlen, &errpos) :
		marshal_base64_decode(src, size, out, &outlen, &errpos);
	ref_ok = hex ? ref_hex_decode(data, size, ref, &reflen) :
		ref_b64_decode(data, size, ref, &reflen);

	if (st == MARSHAL_TEXT_OK)
	{
		if (outlen > max)
			die("%s: outlen %zu over %s_decoded_max(%zu) = %zu", name, outlen,
				name, size, max);
		if (!ref_ok)
			die("%s: accepted what the reference refuses", name);
		check_same(out, outlen, ref, reflen, "decode against the reference");
		round_trip(out, outlen);
	}
	else
	{
		if (st != MARSHAL_TEXT_BAD_DIGIT && st != MARSHAL_TEXT_ODD_LENGTH &&
			st != MARSHAL_TEXT_BAD_PADDING)
			die("%s: status %d out of range", name, st);
		if (errpos > size)
			die("%s: errpos %zu past the end (%zu)", name, errpos, size);
		if (hex && st == MARSHAL_TEXT_BAD_PADDING)
			die("hex: reported bad padding");
		if (ref_ok)
			die("%s: refused (status %d at %zu) what the reference accepts",
				name, st, errpos);
	}
	free(out);
	free(ref);
}

/*
 * Reference UTF-8 check after the Unicode standard's table 3-7 of
 * well-formed byte sequences (a different formulation from the codec's).
 */
static bool
ref_utf8_valid(const uint8_t *s, size_t n, bool nul_ok)
{
	size_t		i = 0;

	while (i < n)
	{
		uint8_t		c = s[i];
		uint8_t		lo = 0x80;
		uint8_t		hi = 0xBF;
		size_t		more;

		if (c < 0x80)
		{
			if (c == 0 && !nul_ok)
				return false;
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			more = 1;
		else if (c == 0xE0)
			more = 2, lo = 0xA0;
		else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
			more = 2;
		else if (c == 0xED)
			more = 2, hi = 0x9F;
		else if (c == 0xF0)
			more = 3, lo = 0x90;
		else if (c >= 0xF1 && c <= 0xF3)
			more = 3;
		else if (c == 0xF4)
			more = 3, hi = 0x8F;
		else
			return false;
		if (n - i - 1 < more)
			return false;
		if (s[i + 1] < lo || s[i + 1] > hi)
			return false;
		for (size_t k = 2; k <= more; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xBF)
				return false;
		i += more + 1;
	}
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(true, data, size);
	one(false, data, size);
	check_base64_encode(data, size);
	for (int nul_ok = 0; nul_ok <= 1; nul_ok++)
		if (marshal_utf8_valid(data, size, nul_ok) !=
			ref_utf8_valid(data, size, nul_ok))
			die("utf8_valid(nul_ok=%d) says %d, the reference %d", nul_ok,
				marshal_utf8_valid(data, size, nul_ok),
				ref_utf8_valid(data, size, nul_ok));
	return 0;
}
