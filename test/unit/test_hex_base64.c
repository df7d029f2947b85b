/*
 * test_hex_base64.c
 *		Unit tests of the text forms (marshal_hex_base64.c): hex, Base64,
 *		printable bytes, session-store Base64.
 */
#include "unit.h"

/* Stream bytes shown as text: UTF-8 as is, anything else as \xNN. */
void
test_printable(void)
{
	char		out[64];
	const uint8_t mixed[] = {'A', 0xc3, 0xa9, 0xff, 0x00, '\\', 0x7f, 'z'};
	const uint8_t cut[] = {'a', 'b', 0xc3, 0xa9};

	check(marshal_printable(mixed, sizeof(mixed), 64, out, sizeof(out)) == 20 &&
		  strcmp(out, "A\xc3\xa9\\xff\\x00\\x5c\\x7fz") == 0,
		  "UTF-8 kept, other bytes escaped", "printable");
	/* never a split character, never past size - 1 */
	check(marshal_printable(cut, sizeof(cut), 3, out, sizeof(out)) == 2 &&
		  strcmp(out, "ab") == 0, "cut at a character", "printable");
	check(marshal_printable(mixed, sizeof(mixed), 64, out, 6) == 3 &&
		  strcmp(out, "A\xc3\xa9") == 0, "bounded by the buffer", "printable");
	check(marshal_printable(mixed, sizeof(mixed), 64, out, 1) == 0 && out[0] == '\0',
		  "room for the NUL only", "printable");
}

/* Hex and Base64 decoding, including what PostgreSQL users paste in. */
void
test_text(void)
{
	uint8_t		out[64];
	size_t		n;
	size_t		pos;
	char		hex[16];

	check(marshal_hex_decode("04 08\n30", 8, out, &n, &pos) == MARSHAL_TEXT_OK &&
		  n == 3 && out[0] == 4 && out[2] == 0x30, "hex with spaces", "hex");
	check(marshal_hex_decode("0408 3", 6, out, &n, &pos) == MARSHAL_TEXT_ODD_LENGTH,
		  "odd hex", "hex");
	check(marshal_hex_decode("04g8", 4, out, &n, &pos) == MARSHAL_TEXT_BAD_DIGIT &&
		  pos == 2, "bad hex digit", "hex");
	check(marshal_hex_decode("0 408", 5, out, &n, &pos) == MARSHAL_TEXT_BAD_DIGIT,
		  "space inside a byte pair", "hex");
	marshal_hex_encode((const uint8_t *) "\x04\x08\xff", 3, hex);
	check(memcmp(hex, "0408ff", 6) == 0, "hex encode", "hex");

	/* "BAgw" = 04 08 30 (nil); "BAhJIgZhBjoGRVQ=" = "a" in UTF-8 */
	check(marshal_base64_decode("BAgw", 4, out, &n, &pos) == MARSHAL_TEXT_OK &&
		  n == 3 && out[2] == 0x30, "base64 nil", "base64");
	check(marshal_base64_decode("BAhJIgZhBjoGRVQ=\n", 17, out, &n, &pos) == MARSHAL_TEXT_OK &&
		  n == 11 && out[10] == 'T', "base64 with padding and newline", "base64");
	check(marshal_base64_decode("BAhJIgZh\nBjoGRVQ", 16, out, &n, &pos) == MARSHAL_TEXT_OK &&
		  n == 11, "base64 without padding", "base64");
	check(marshal_base64_decode("BAh=J", 5, out, &n, &pos) == MARSHAL_TEXT_BAD_PADDING,
		  "data after padding", "base64");
	check(marshal_base64_decode("BAhJI", 5, out, &n, &pos) == MARSHAL_TEXT_ODD_LENGTH,
		  "one stray sextet", "base64");
	check(marshal_base64_decode("BA*w", 4, out, &n, &pos) == MARSHAL_TEXT_BAD_DIGIT &&
		  pos == 2, "bad base64 character", "base64");
	check(marshal_base64_decode("BA===", 5, out, &n, &pos) == MARSHAL_TEXT_BAD_PADDING,
		  "too much padding", "base64");
}

/* sessions.tsv holds Base64 text exactly as activerecord-session_store. */
void
test_sessions(const char *dir)
{
	char		path[1024];
	size_t		len;
	char	   *text;
	char	   *line;
	int			rows = 0;

	snprintf(path, sizeof(path), "%s/sessions.tsv", dir);
	text = read_file(path, &len);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
	{
		char	   *data = strchr(line, '\t');
		char	   *w;
		uint8_t    *out;
		size_t		n;
		size_t		pos;
		MarshalError err;

		if (!data)
			continue;
		data++;
		/* COPY text format writes each newline as the two characters \n */
		for (char *r = w = data; *r; r++)
		{
			if (r[0] == '\\' && r[1] == 'n')
			{
				*w++ = '\n';
				r++;
			}
			else
				*w++ = *r;
		}
		*w = '\0';
		out = malloc(marshal_base64_decoded_max(strlen(data)));
		check(marshal_base64_decode(data, strlen(data), out, &n, &pos) == MARSHAL_TEXT_OK &&
			  marshal_validate(out, n, NULL, 0, &err) == MARSHAL_OK,
			  "session row does not decode", "sessions");
		free(out);
		rows++;
	}
	check(rows >= 10, "too few session rows", "sessions");
	free(text);
}
