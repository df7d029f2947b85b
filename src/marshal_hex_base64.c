/*
 * marshal_hex_base64.c
 *		Hex and Base64, the binary-safe text forms of a Marshal stream.
 *
 * Hex follows bytea's rules (whitespace only between byte pairs).  Base64 is
 * what Ruby's Base64.encode64 and pack("m") write: the standard alphabet,
 * '=' padding, a newline every 60 characters; whitespace is skipped anywhere
 * and padding may be omitted, as PostgreSQL's decode(..., 'base64') does.
 * Also here: whether stream bytes are UTF-8 text, and their printable form.
 */
#include "marshal_internal.h"

#include <string.h>

/* Input characters between two calls of a hooks' interrupt check. */
#define TEXT_CHECK_EVERY (1u << 20)

/* The hooks' interrupt check, if any (it may longjmp out). */
static void
text_interrupts(const MarshalHooks *hooks)
{
	if (hooks != NULL && hooks->check_interrupts != NULL)
		hooks->check_interrupts(hooks->ctx);
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		c == '\v';
}

size_t
marshal_hex_decoded_max(size_t len)
{
	return len / 2;
}

MarshalTextStatus
marshal_hex_decode(const char *src, size_t len, uint8_t *out, size_t *outlen,
				   size_t *errpos)
{
	return marshal_hex_decode_checked(src, len, out, outlen, errpos, NULL);
}

MarshalTextStatus
marshal_hex_decode_checked(const char *src, size_t len, uint8_t *out,
						   size_t *outlen, size_t *errpos,
						   const MarshalHooks *hooks)
{
	size_t		i = 0;
	size_t		o = 0;
	uint32_t	until_check = TEXT_CHECK_EVERY;

	while (i < len)
	{
		int			hi;
		int			lo;

		if (--until_check == 0)
		{
			until_check = TEXT_CHECK_EVERY;
			text_interrupts(hooks);
		}
		if (is_space(src[i]))
		{
			i++;
			continue;
		}
		hi = marshal_hex_digit((unsigned char) src[i]);
		if (hi < 0)
		{
			*errpos = i;
			return MARSHAL_TEXT_BAD_DIGIT;
		}
		if (i + 1 >= len)
		{
			*errpos = i;
			return MARSHAL_TEXT_ODD_LENGTH;
		}
		lo = marshal_hex_digit((unsigned char) src[i + 1]);
		if (lo < 0)
		{
			*errpos = i + 1;
			return MARSHAL_TEXT_BAD_DIGIT;
		}
		out[o++] = (uint8_t) (hi << 4 | lo);
		i += 2;
	}
	*outlen = o;
	return MARSHAL_TEXT_OK;
}

void
marshal_hex_encode(const uint8_t *src, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++)
	{
		*out++ = digits[src[i] >> 4];
		*out++ = digits[src[i] & 0xF];
	}
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

size_t
marshal_base64_decoded_max(size_t len)
{
	return (len / 4) * 3 + 3;
}

MarshalTextStatus
marshal_base64_decode(const char *src, size_t len, uint8_t *out,
					  size_t *outlen, size_t *errpos)
{
	return marshal_base64_decode_checked(src, len, out, outlen, errpos, NULL);
}

MarshalTextStatus
marshal_base64_decode_checked(const char *src, size_t len, uint8_t *out,
							  size_t *outlen, size_t *errpos,
							  const MarshalHooks *hooks)
{
	uint32_t	acc = 0;
	int			nacc = 0;		/* sextets in acc */
	int			npad = 0;
	size_t		o = 0;

	for (size_t i = 0; i < len; i++)
	{
		char		c = src[i];
		int			v;

		if ((i & (TEXT_CHECK_EVERY - 1)) == TEXT_CHECK_EVERY - 1)
			text_interrupts(hooks);

		if (is_space(c))
			continue;
		if (c == '=')
		{
			/* padding completes a group of 2 or 3 sextets, then only '=' */
			if (nacc < 2 || nacc + npad >= 4)
			{
				*errpos = i;
				return MARSHAL_TEXT_BAD_PADDING;
			}
			npad++;
			continue;
		}
		v = b64_value(c);
		if (v < 0)
		{
			*errpos = i;
			return MARSHAL_TEXT_BAD_DIGIT;
		}
		if (npad > 0)
		{
			*errpos = i;
			return MARSHAL_TEXT_BAD_PADDING;
		}
		acc = acc << 6 | (uint32_t) v;
		if (++nacc == 4)
		{
			out[o++] = (uint8_t) (acc >> 16);
			out[o++] = (uint8_t) (acc >> 8);
			out[o++] = (uint8_t) acc;
			acc = 0;
			nacc = 0;
		}
	}
	if (npad > 0 && nacc + npad != 4)
	{
		*errpos = len;
		return MARSHAL_TEXT_BAD_PADDING;
	}
	if (nacc == 1)
	{
		*errpos = len;
		return MARSHAL_TEXT_ODD_LENGTH;
	}
	if (nacc == 2)
		out[o++] = (uint8_t) (acc >> 4);
	else if (nacc == 3)
	{
		out[o++] = (uint8_t) (acc >> 10);
		out[o++] = (uint8_t) (acc >> 2);
	}
	*outlen = o;
	return MARSHAL_TEXT_OK;
}

size_t
marshal_base64_encode(const uint8_t *src, size_t len, char *out)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char	   *p = out;
	size_t		i = 0;

	for (; i + 2 < len; i += 3)
	{
		uint32_t	v = (uint32_t) src[i] << 16 | (uint32_t) src[i + 1] << 8 | src[i + 2];

		*p++ = alphabet[v >> 18];
		*p++ = alphabet[(v >> 12) & 63];
		*p++ = alphabet[(v >> 6) & 63];
		*p++ = alphabet[v & 63];
	}
	if (i < len)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t) src[i + 1] << 8;
		*p++ = alphabet[v >> 18];
		*p++ = alphabet[(v >> 12) & 63];
		*p++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		*p++ = '=';
	}
	return (size_t) (p - out);
}

bool
marshal_utf8_valid(const uint8_t *s, size_t n, bool nul_ok)
{
	size_t		i = 0;

	while (i < n)
	{
		uint8_t		c;
		size_t		need;
		uint32_t	cp;

		/* ASCII eight bytes at a time: no high bit, and no NUL unless allowed */
		while (n - i >= 8)
		{
			uint64_t	x;

			memcpy(&x, s + i, 8);
			if ((x & UINT64_C(0x8080808080808080)) != 0 ||
				(!nul_ok && ((x - UINT64_C(0x0101010101010101)) & ~x &
							 UINT64_C(0x8080808080808080)) != 0))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		c = s[i];
		if (c < 0x80)
		{
			if (c == 0 && !nul_ok)
				return false;
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			need = 1, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			need = 2, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			need = 3, cp = c & 0x07;
		else
			return false;
		if (n - i <= need)
			return false;
		for (size_t k = 1; k <= need; k++)
		{
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		/* overlong, surrogate or beyond U+10FFFF */
		if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
			(cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			return false;
		i += need + 1;
	}
	return true;
}

size_t
marshal_printable(const uint8_t *s, size_t len, size_t max_in, char *out,
				  size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t		n = 0;

	if (size == 0)
		return 0;
	for (size_t i = 0; i < len && i < max_in;)
	{
		size_t		seq = s[i] >= 0x20 && s[i] != 0x7f && s[i] != '\\' ?
			marshal_utf8_seq(s + i, len - i) : 0;

		if (seq > 0)
		{
			if (i + seq > max_in || n + seq >= size)
				break;
			memcpy(out + n, s + i, seq);
			n += seq;
			i += seq;
			continue;
		}
		if (n + 4 >= size)
			break;
		out[n++] = '\\';
		out[n++] = 'x';
		out[n++] = hex[s[i] >> 4];
		out[n++] = hex[s[i] & 0xf];
		i++;
	}
	out[n] = '\0';
	return n;
}
