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
	static const struct
	{
		bool		base64;
		const char *text;
		MarshalTextStatus status;
		const char *want;		/* OK: the bytes as hex; else NULL */
		long		errpos;		/* -1: not checked */
		const char *what;
	}			cases[] = {
		{false, "04 08\n30", MARSHAL_TEXT_OK, "040830", -1, "hex with spaces"},
		{false, "0408 3", MARSHAL_TEXT_ODD_LENGTH, NULL, -1, "odd hex"},
		{false, "04g8", MARSHAL_TEXT_BAD_DIGIT, NULL, 2, "bad hex digit"},
		{false, "0 408", MARSHAL_TEXT_BAD_DIGIT, NULL, -1, "space inside a byte pair"},
		/* "BAgw" = 04 08 30 (nil); "BAhJIgZhBjoGRVQ=" = "a" in UTF-8 */
		{true, "BAgw", MARSHAL_TEXT_OK, "040830", -1, "base64 nil"},
		{true, "BAhJIgZhBjoGRVQ=\n", MARSHAL_TEXT_OK, "040849220661063a064554", -1,
		"base64 with padding and newline"},
		{true, "BAhJIgZh\nBjoGRVQ", MARSHAL_TEXT_OK, "040849220661063a064554", -1,
		"base64 without padding"},
		{true, "BAh=J", MARSHAL_TEXT_BAD_PADDING, NULL, -1, "data after padding"},
		{true, "BAhJI", MARSHAL_TEXT_ODD_LENGTH, NULL, -1, "one stray sextet"},
		{true, "BA*w", MARSHAL_TEXT_BAD_DIGIT, NULL, 2, "bad base64 character"},
		{true, "BA===", MARSHAL_TEXT_BAD_PADDING, NULL, -1, "too much padding"},
	};
	uint8_t		out[64];
	size_t		n;
	size_t		pos;
	char		hex[2 * sizeof(out) + 1];

	for (size_t i = 0; i < lengthof(cases); i++)
	{
		size_t		len = strlen(cases[i].text);
		MarshalTextStatus st = cases[i].base64 ?
			marshal_base64_decode(cases[i].text, len, out, &n, &pos) :
			marshal_hex_decode(cases[i].text, len, out, &n, &pos);
		bool		ok = st == cases[i].status;

		if (ok && cases[i].want)
		{
			marshal_hex_encode(out, n, hex);
			ok = 2 * n == strlen(cases[i].want) && memcmp(hex, cases[i].want, 2 * n) == 0;
		}
		if (ok && cases[i].errpos >= 0)
			ok = pos == (size_t) cases[i].errpos;
		check(ok, cases[i].what, cases[i].base64 ? "base64" : "hex");
	}
	marshal_hex_encode((const uint8_t *) "\x04\x08\xff", 3, hex);
	check(memcmp(hex, "0408ff", 6) == 0, "hex encode", "hex");
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
