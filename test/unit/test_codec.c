/*
 * test_codec.c
 *		Unit tests of the PostgreSQL-free Marshal codec.
 *
 * Usage: test_codec FIXTURE_DIR
 * Reads the fixtures written by test/fixtures/generate.rb (MRI's own bytes,
 * object-table and symbol-table sizes), checks the reader agrees with MRI
 * on every one, and that every malformed input is refused cleanly.
 */
#include "marshal.h"
#include "marshal_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	passed;
static int	failed;

static void
check(int ok, const char *what, const char *name)
{
	if (ok)
		passed++;
	else
	{
		failed++;
		printf("not ok - %s: %s\n", name, what);
	}
}

typedef struct Fixture
{
	char		name[128];
	long		objects;
	long		symbols;
	uint8_t    *bytes;
	size_t		len;
	char	   *extra;			/* third column of invalid.tsv */
} Fixture;

static char *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		n;

	if (!f)
	{
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (fread(buf, 1, n, f) != (size_t) n)
	{
		perror(path);
		exit(2);
	}
	buf[n] = '\0';
	fclose(f);
	*len = n;
	return buf;
}

static uint8_t *
unhex(const char *hex, size_t *len)
{
	size_t		n = strlen(hex);
	uint8_t    *out = malloc(n / 2 + 1);
	size_t		errpos;

	if (marshal_hex_decode(hex, n, out, len, &errpos) != MARSHAL_TEXT_OK)
	{
		fprintf(stderr, "bad hex in fixture at %zu\n", errpos);
		exit(2);
	}
	return out;
}

/*
 * valid.tsv: name, objects, symbols, hex.  invalid.tsv: name, hex, MRI's
 * error.  Returns the number of fixtures read into *out.
 */
static int
load_tsv(const char *path, int valid, Fixture **out, char **textp)
{
	size_t		len;
	char	   *text = read_file(path, &len);
	int			cap = 64;
	int			n = 0;
	Fixture    *fx = malloc(cap * sizeof(Fixture));
	char	   *line = strtok(text, "\n");

	for (; line; line = strtok(NULL, "\n"))
	{
		char	   *cols[4] = {0};
		int			ncol = 0;
		char	   *p = line;

		while (ncol < 4)
		{
			cols[ncol++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (n == cap)
			fx = realloc(fx, (cap *= 2) * sizeof(Fixture));
		memset(&fx[n], 0, sizeof(Fixture));
		snprintf(fx[n].name, sizeof(fx[n].name), "%s", cols[0]);
		if (valid)
		{
			if (ncol != 4)
			{
				fprintf(stderr, "%s: bad line for %s\n", path, cols[0]);
				exit(2);
			}
			fx[n].objects = atol(cols[1]);
			fx[n].symbols = atol(cols[2]);
			fx[n].bytes = unhex(cols[3], &fx[n].len);
		}
		else
		{
			fx[n].bytes = unhex(cols[1] ? cols[1] : "", &fx[n].len);
			fx[n].extra = cols[2];
		}
		n++;
	}
	*out = fx;
	*textp = text;				/* the invalid fixtures point into it */
	return n;
}

static void
free_fixtures(Fixture *fx, int n, char *text)
{
	for (int i = 0; i < n; i++)
		free(fx[i].bytes);
	free(fx);
	free(text);
}

/*
 * Re-encoding the root gives a valid stream that re-encodes to itself
 * (MRI's own dump(load(x)) is a fixed point after one round).
 */
static void
test_reencode(MarshalDoc *doc, const char *name)
{
	uint8_t    *once;
	uint8_t    *twice;
	size_t		n1;
	size_t		n2;
	MarshalError err;
	MarshalDoc	d2;

	if (marshal_reencode(doc, MARSHAL_ROOT, NULL, &once, &n1, &err) != MARSHAL_OK)
	{
		check(0, err.detail, name);
		return;
	}
	if (marshal_doc_open(&d2, once, n1, NULL, 0, &err) != MARSHAL_OK)
	{
		check(0, "re-encoded stream is not valid", name);
		free(once);
		return;
	}
	check(marshal_reencode(&d2, MARSHAL_ROOT, NULL, &twice, &n2, &err) == MARSHAL_OK &&
		  n2 == n1 && memcmp(once, twice, n1) == 0,
		  "re-encoding is not a fixed point", name);
	marshal_index_free(&d2.index, NULL);
	free(twice);
	twice = NULL;

	/* a lazy document (indexed only as links ask) re-encodes the same */
	{
		MarshalDoc	lazy;

		marshal_doc_lazy(&lazy, doc->buf, doc->len, NULL, 0);
		check(marshal_reencode(&lazy, MARSHAL_ROOT, NULL, &twice, &n2, &err) == MARSHAL_OK &&
			  n2 == n1 && memcmp(once, twice, n1) == 0,
			  "lazy re-encoding differs", name);
		marshal_index_free(&lazy.index, NULL);
	}
	free(once);
	free(twice);
}

/* Every fixture is accepted, consumed exactly, and indexed as MRI counts. */
static void
test_valid(Fixture *fx, int n)
{
	for (int i = 0; i < n; i++)
	{
		MarshalIndex idx;
		MarshalError err;
		MarshalStatus st;
		char		msg[300];

		st = marshal_index(fx[i].bytes, fx[i].len, NULL, 0, &idx, &err);
		snprintf(msg, sizeof(msg), "rejected at %zu: %s", err.offset,
				 err.detail);
		check(st == MARSHAL_OK, msg, fx[i].name);
		if (st != MARSHAL_OK)
			continue;
		snprintf(msg, sizeof(msg), "object table %u, MRI %ld",
				 idx.nobjects, fx[i].objects);
		check(idx.nobjects == fx[i].objects, msg, fx[i].name);
		snprintf(msg, sizeof(msg), "symbol table %u, MRI %ld",
				 idx.nsymbols, fx[i].symbols);
		check(idx.nsymbols == fx[i].symbols, msg, fx[i].name);
		/* every slot starts inside the stream, after the header */
		for (uint32_t k = 0; k < idx.nobjects; k++)
			if (idx.obj_pos[k] < 2 || idx.obj_pos[k] >= fx[i].len)
			{
				check(0, "object position out of the stream", fx[i].name);
				break;
			}
		/* the cursor's skip ends exactly where the stream does */
		{
			MarshalDoc	doc = {.buf = fx[i].bytes, .len = fx[i].len, .index = idx};
			size_t		end = 0;

			st = marshal_skip(&doc, MARSHAL_ROOT, &end, &err);
			snprintf(msg, sizeof(msg), "cursor skip gave %d, end %zu of %zu (%s)",
					 st, end, fx[i].len, st ? err.detail : "");
			check(st == MARSHAL_OK && end == fx[i].len, msg, fx[i].name);
			/* and every slot's value can be read and skipped on its own */
			for (uint32_t k = 0; k < idx.nobjects && st == MARSHAL_OK; k++)
				st = marshal_skip(&doc, idx.obj_pos[k], &end, &err);
			check(st == MARSHAL_OK, "a slot's value does not skip", fx[i].name);
			test_reencode(&doc, fx[i].name);
			/* a lazy document finds each symbol as the index numbers it */
			for (uint32_t k = 0; k < idx.nsymbols && k < 20; k++)
			{
				MarshalDoc	lazy;
				MarshalBytes name;
				bool		plain;
				int64_t		len;
				size_t		p = idx.sym_pos[k];

				marshal_doc_lazy(&lazy, fx[i].bytes, fx[i].len, NULL, 0);
				/* look k up first, then (cached or not) k again */
				for (int pass = 0; pass < 2; pass++)
				{
					st = marshal_find_symbol(&lazy, (int64_t) k, &name, &plain, &err);
					p = idx.sym_pos[k];
					check(st == MARSHAL_OK && marshal_long(&doc, p, &len, &p, &err) == MARSHAL_OK &&
						  name.ptr == fx[i].bytes + p && name.len == (size_t) len &&
						  plain == (idx.sym_enc[k] == MENC_BINARY),
						  "lazy symbol lookup differs from the index", fx[i].name);
				}
				marshal_index_free(&lazy.index, NULL);
			}
		}
		marshal_index_free(&idx, NULL);

		/* validation alone agrees with indexing */
		st = marshal_validate(fx[i].bytes, fx[i].len, NULL, 0, &err);
		check(st == MARSHAL_OK, "validate disagrees with index", fx[i].name);
	}
}

/* Every proper prefix is rejected as malformed, at or before its end. */
static void
test_prefixes(Fixture *fx, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			bad = 0;

		for (size_t cut = 0; cut < fx[i].len; cut++)
		{
			MarshalError err;

			if (marshal_validate(fx[i].bytes, cut, NULL, 0, &err) != MARSHAL_ERR_FORMAT ||
				err.offset > cut)
			{
				if (!bad)
					printf("# %s: prefix %zu gave %d at %zu (%s)\n",
						   fx[i].name, cut, err.status, err.offset, err.detail);
				bad++;
			}
		}
		check(bad == 0, "a proper prefix was not rejected", fx[i].name);
	}
}

/* Trailing bytes after the root are refused (MRI ignores them). */
static void
test_trailing(Fixture *fx, int n)
{
	for (int i = 0; i < n; i++)
	{
		uint8_t    *b = malloc(fx[i].len + 1);
		MarshalError err;

		memcpy(b, fx[i].bytes, fx[i].len);
		b[fx[i].len] = '0';
		check(marshal_validate(b, fx[i].len + 1, NULL, 0, &err) == MARSHAL_ERR_FORMAT &&
			  err.offset == fx[i].len,
			  "trailing byte accepted", fx[i].name);
		free(b);
	}
}

/*
 * MRI refuses these, the codec knowingly accepts them: it does not carry
 * encoding tables, so symbol bytes are checked for UTF-8 and US-ASCII only
 * (the README lists this).
 */
static const char *const accepted_on_purpose[] = {
	"symbol_invalid_shift_jis",
};

/* What MRI rejects for structural reasons, we reject too. */
static void
test_invalid(Fixture *fx, int n)
{
	for (int i = 0; i < n; i++)
	{
		MarshalError err;
		MarshalStatus st = marshal_validate(fx[i].bytes, fx[i].len, NULL, 0, &err);
		bool		known = false;
		char		msg[300];

		for (size_t k = 0; k < sizeof(accepted_on_purpose) / sizeof(char *); k++)
			known |= strcmp(fx[i].name, accepted_on_purpose[k]) == 0;
		snprintf(msg, sizeof(msg), "%s, MRI said: %s",
				 known ? "refused, but listed as accepted on purpose" : "accepted",
				 fx[i].extra ? fx[i].extra : "?");
		check(known ? st == MARSHAL_OK : st != MARSHAL_OK, msg, fx[i].name);
	}
}

static MarshalStatus
validate_hex(const char *hex, uint32_t max_depth, MarshalError *err)
{
	size_t		len;
	uint8_t    *b = unhex(hex, &len);
	MarshalStatus st = marshal_validate(b, len, NULL, max_depth, err);

	free(b);
	return st;
}

/* Cases where rbmarshal is deliberately stricter than MRI, or sets limits. */
static void
test_rules(void)
{
	MarshalError err;
	static const struct
	{
		const char *hex;
		MarshalStatus want;
		const char *name;
	}			cases[] = {
		{"0408", MARSHAL_ERR_FORMAT, "header only"},
		{"0308" "30", MARSHAL_ERR_FORMAT, "major 3"},
		{"0409" "30", MARSHAL_ERR_FORMAT, "minor 9"},
		{"0400" "30", MARSHAL_OK, "minor 0"},
		{"0408" "30" "30", MARSHAL_ERR_FORMAT, "trailing byte"},
		{"0408" "6608616263", MARSHAL_ERR_FORMAT, "float text abc (MRI reads 0.0)"},
		{"0408" "6600", MARSHAL_ERR_FORMAT, "empty float text"},
		{"0408" "660a312e3565", MARSHAL_ERR_FORMAT, "float 1.5e without digits"},
		{"0408" "6609312e3500", MARSHAL_OK, "float with NUL, no tail"},
		{"0408" "660b312e3500abcd", MARSHAL_OK, "float with mantissa tail"},
		{"0408" "66082d3065", MARSHAL_ERR_FORMAT, "float -0e"},
		{"0408" "6609312e3565", MARSHAL_ERR_FORMAT, "float 1.5e (no digits)"},
		{"0408" "660b312e35652b33", MARSHAL_OK, "float 1.5e+3"},
		{"0408" "6c2a060100", MARSHAL_ERR_FORMAT, "bignum sign * (MRI: positive)"},
		{"0408" "6c2b00", MARSHAL_OK, "bignum of no shorts"},
		{"0408" "2204ffffff7f", MARSHAL_ERR_FORMAT, "string length 2^31-1 past the end"},
		{"0408" "2204ffffffff", MARSHAL_ERR_LIMIT, "string length 2^32-1"},
		{"0408" "22fa", MARSHAL_ERR_FORMAT, "negative string length"},
		{"0408" "5b04ffffff7f", MARSHAL_ERR_FORMAT, "array count past the end"},
		{"0408" "7b0700", MARSHAL_ERR_FORMAT, "hash count needing more bytes"},
		{"0408" "5b0740", MARSHAL_ERR_FORMAT, "link without index"},
		{"0408" "5b07" "4000" "4006", MARSHAL_ERR_FORMAT, "link past the table"},
		{"0408" "5b06" "3b00", MARSHAL_ERR_FORMAT, "symlink with an empty table"},
		{"0408" "49" "3b00", MARSHAL_ERR_FORMAT, "I; as root"},
		{"0408" "6f" "3a06" "41" "06" "3a07" "4061" "4000", MARSHAL_OK, "object ivar links to itself"},
		{"0408" "6f" "49" "3a06" "41" "06" "3a07" "4061" "4000" "00", MARSHAL_ERR_FORMAT, "link to an object not built yet"},
		{"0408" "5b06" "6903" "0000", MARSHAL_ERR_FORMAT, "truncated long"},
		{"0408" "49" "30" "00", MARSHAL_OK, "I on nil with no ivars"},
		{"0408" "49" "30" "06" "3a07" "4061" "54", MARSHAL_ERR_FORMAT, "ivar on nil"},
		{"0408" "49" "5b00" "06" "3a06" "45" "54", MARSHAL_ERR_FORMAT, "encoding on an Array"},
		{"0408" "49" "22" "06" "61" "06" "3a06" "45" "54", MARSHAL_OK, "UTF-8 string"},
		{"0408" "49" "3a06" "c3" "06" "3a06" "45" "54", MARSHAL_ERR_FORMAT, "invalid UTF-8 symbol"},
		{"0408" "49" "3a07" "c3a9" "06" "3a06" "45" "54", MARSHAL_OK, "UTF-8 symbol"},
		{"0408" "49" "22" "06" "61" "06" "3a0d" "656e636f64696e67" "69" "06", MARSHAL_ERR_FORMAT, "encoding name not a String"},
		{"0408" "43" "3a08" "466f6f" "30", MARSHAL_ERR_FORMAT, "C wrapping nil"},
		{"0408" "43" "3a09" "48617368" "7b00", MARSHAL_OK, "C :Hash {} compare_by_identity"},
		{"0408" "49" "4d" "06" "4d" "00", MARSHAL_ERR_FORMAT, "I on old module"},
		{"0408" "3f", MARSHAL_ERR_FORMAT, "unknown type byte"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		MarshalStatus st = validate_hex(cases[i].hex, 0, &err);
		char		msg[300];

		snprintf(msg, sizeof(msg), "got status %d (%s), want %d", st,
				 st ? err.detail : "ok", cases[i].want);
		check(st == cases[i].want, msg, cases[i].name);
	}
}

/* Nesting is bounded by max_depth, not by the C stack. */
static void
test_depth(void)
{
	size_t		levels = 100000;
	uint8_t    *b = malloc(2 * levels + 3);
	MarshalError err;

	b[0] = 4;
	b[1] = 8;
	for (size_t i = 0; i < levels; i++)
	{
		b[2 + 2 * i] = '[';
		b[3 + 2 * i] = 6;
	}
	b[2 + 2 * levels] = '0';
	check(marshal_validate(b, 2 * levels + 3, NULL, 0, &err) == MARSHAL_ERR_DEPTH,
		  "100k levels not refused", "depth");
	/* the last 999 arrays plus the nil inside are exactly 1000 levels */
	{
		uint8_t    *s = b + 2 * (levels - 999);

		s[0] = 4;
		s[1] = 8;
		check(marshal_validate(s, 2 * 999 + 3, NULL, 0, &err) == MARSHAL_OK,
			  "1000 levels refused", "depth");
		check(marshal_validate(s, 2 * 999 + 3, NULL, 999, &err) == MARSHAL_ERR_DEPTH,
			  "max_depth 999 not applied", "depth");
	}
	/*
	 * The cursor on bytes never validated (a damaged value): skipping stops
	 * at the limit, where validation would have, in frames any stack holds
	 */
	{
		MarshalDoc	doc;
		size_t		end;
		uint8_t    *s = b + 2 * (levels - 1500);

		for (size_t i = 0; i < levels; i++)
		{
			b[2 + 2 * i] = '[';
			b[3 + 2 * i] = 6;
		}
		s[0] = 4;
		s[1] = 8;
		marshal_doc_lazy(&doc, s, 2 * 1500 + 3, NULL, 0);
		check(marshal_skip(&doc, 2, &end, &err) != MARSHAL_OK,
			  "skipped 1500 levels of unvalidated bytes", "depth");
		marshal_index_free(&doc.index, NULL);
		s[0] = '[';
		s[1] = 6;
		marshal_doc_lazy(&doc, b, 2 * levels + 3, NULL, 0);
		check(marshal_skip(&doc, 2, &end, &err) != MARSHAL_OK,
			  "skipped 100k levels of unvalidated bytes", "depth");
		marshal_index_free(&doc.index, NULL);
	}
	free(b);
}

/* The JSON text writer: escapes and integers, on a value Ruby dumped. */
static void
test_json_text(Fixture *fx, int n)
{
	static const char expected[] =
		"[\"q\\\"b\\\\s/\\n\\t\\u000d\\u0001\\u001f\x7f\xc3\xa9 ok\","
		"-42,4611686018427387904,-4611686018427387904,0,{\"k\":null}]";
	MarshalJsonOptions opts = MARSHAL_JSON_DEFAULTS;

	for (int i = 0; i < n; i++)
	{
		char	   *out;
		size_t		len;
		MarshalError err;

		if (strcmp(fx[i].name, "str_json_escapes") != 0)
			continue;
		check(marshal_to_json_text(fx[i].bytes, fx[i].len, &opts, NULL, &out, &len, &err) == MARSHAL_OK &&
			  len == strlen(expected) && memcmp(out, expected, len) == 0,
			  "escapes and integers as JSON text", fx[i].name);
		free(out);
		return;
	}
	check(0, "fixture str_json_escapes missing", "json text");
}

/* Stream bytes shown as text: UTF-8 as is, anything else as \xNN. */
static void
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
static void
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
static void
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

/* big.tsv: name, objects, symbols, file: the 1.8 MB value of 200k entries. */
static void
test_big(const char *dir)
{
	char		path[1024];
	size_t		len;
	char	   *line;
	char		name[64];
	char		file[256];
	long		objects;
	long		symbols;
	char	   *bytes;
	MarshalIndex idx;
	MarshalError err;

	snprintf(path, sizeof(path), "%s/big.tsv", dir);
	line = read_file(path, &len);
	if (sscanf(line, "%63s\t%ld\t%ld\t%255s", name, &objects, &symbols, file) != 4)
	{
		check(0, "unreadable big.tsv", "big");
		free(line);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	bytes = read_file(path, &len);
	check(marshal_index((const uint8_t *) bytes, len, NULL, 0, &idx, &err) == MARSHAL_OK,
		  err.detail, name);
	check(idx.nobjects == objects && idx.nsymbols == symbols,
		  "table sizes differ from MRI's", name);
	marshal_index_free(&idx, NULL);
	free(bytes);
	free(line);
}

/*
 * Single-byte changes of every fixture: any verdict is fine, but the reader
 * must return one (under ASan/UBSan this also proves it stays in bounds).
 */
static void
test_mutations(Fixture *fx, int n)
{
	uint32_t	seed = 12345;
	long		accepted = 0;
	long		total = 0;

	for (int i = 0; i < n; i++)
	{
		uint8_t    *b = malloc(fx[i].len);

		for (int k = 0; k < 200 && fx[i].len > 2; k++)
		{
			MarshalError err;
			size_t		at;

			memcpy(b, fx[i].bytes, fx[i].len);
			seed = seed * 1103515245 + 12345;
			at = 2 + (seed >> 8) % (fx[i].len - 2);
			seed = seed * 1103515245 + 12345;
			b[at] = (uint8_t) (seed >> 16);
			if (marshal_validate(b, fx[i].len, NULL, 0, &err) == MARSHAL_OK)
				accepted++;
			total++;
		}
		free(b);
	}
	printf("# %ld mutations, %ld still valid\n", total, accepted);
	check(total > 0, "no mutations ran", "mutations");
}

/*
 * Active Record 6.1 attribute casts (marshal_activerecord.c): a stream
 * [type object, raw value], the value cast as a FromDatabase (DB) or
 * FromUser (USER) attribute.  Every expected value is what Ruby gave for
 * the same input in test/rails/records.tsv (rec61_cast_*).
 */
static void
cast_result_text(const MarshalCast *c, char *out, size_t size)
{
	switch (c->kind)
	{
		case MCAST_NULL:
			snprintf(out, size, "null");
			break;
		case MCAST_BOOL:
			snprintf(out, size, c->boolean ? "true" : "false");
			break;
		case MCAST_INT:
			snprintf(out, size, "%lld", (long long) c->integer);
			break;
		case MCAST_NUMBER:
			snprintf(out, size, "%.*s", (int) c->len, c->text);
			break;
		case MCAST_STRING:
			snprintf(out, size, "\"%.*s\"", (int) c->len, c->text);
			break;
		case MCAST_TIME:
			{
				int64_t		days = c->time.epoch / 86400;
				int64_t		secs = c->time.epoch % 86400;
				int64_t		y;
				int			m;
				int			d;

				if (secs < 0)
				{
					secs += 86400;
					days--;
				}
				marshal_civil_from_days(days, &y, &m, &d);
				snprintf(out, size, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ",
						 (long long) y, m, d, (int) (secs / 3600),
						 (int) (secs / 60 % 60), (int) (secs % 60),
						 (int) (c->time.nsec / 1000000));
				break;
			}
		default:
			snprintf(out, size, "raw");
			break;
	}
}

static void
cast_case(const char *cls, int precision, int scale, bool tz, int cast,
		  const char *literal, const char *expected)
{
	MarshalWriter *w = marshal_writer_new(NULL);
	MarshalDoc	lit = {0};
	MarshalDoc	doc = {0};
	MarshalError err;
	MarshalNode arr;
	MarshalEntry e = {0};
	MarshalCast c;
	uint8_t    *lbytes;
	uint8_t    *bytes;
	size_t		llen;
	size_t		len;
	char		got[160];
	char		name[200];

	snprintf(name, sizeof(name), "cast %s %s %s", cls, cast == MARSHAL_CAST_DB ? "db" : "user", literal);
	if (marshal_from_literal(literal, strlen(literal), NULL, 0, &lbytes, &llen, &err) != MARSHAL_OK)
	{
		check(0, "literal does not parse", name);
		marshal_writer_free(w);
		return;
	}
	marshal_doc_open(&lit, lbytes, llen, NULL, 0, &err);
	marshal_write_array(w, 2);
	if (tz)
	{
		static const char tzc[] = "ActiveRecord::AttributeMethods::TimeZoneConversion::TimeZoneConverter";

		marshal_write_named(w, MT_USRMARSHAL, (const uint8_t *) tzc, strlen(tzc), 0);
		marshal_write_array(w, 4);
		marshal_write_symbol(w, (const uint8_t *) "__v2__", 6);
		marshal_write_array(w, 0);
		marshal_write_array(w, 0);
	}
	marshal_write_named(w, MT_OBJECT, (const uint8_t *) cls, strlen(cls), 2);
	marshal_write_symbol(w, (const uint8_t *) "@precision", 10);
	if (precision < 0)
		marshal_write_nil(w);
	else
		marshal_write_int(w, precision);
	marshal_write_symbol(w, (const uint8_t *) "@scale", 6);
	if (scale < 0)
		marshal_write_nil(w);
	else
		marshal_write_int(w, scale);
	marshal_reencode_into(w, &lit, MARSHAL_ROOT, NULL, &err);
	if (marshal_writer_finish(w, &bytes, &len) != MARSHAL_OK ||
		marshal_doc_open(&doc, bytes, len, NULL, 0, &err) != MARSHAL_OK)
	{
		check(0, "test stream does not build", name);
		return;
	}
	marshal_node(&doc, MARSHAL_ROOT, &arr, &err);
	e.type = arr.items;
	marshal_skip(&doc, arr.items, &e.value, &err);
	e.cast = cast;
	if (marshal_record_cast(&doc, &e, &c, &err) != MARSHAL_OK)
		snprintf(got, sizeof(got), "error: %.100s", err.detail);
	else
		cast_result_text(&c, got, sizeof(got));
	if (strcmp(got, expected) != 0)
		printf("# %s: got %s, expected %s\n", name, got, expected);
	check(strcmp(got, expected) == 0, "cast differs from Rails", name);
	marshal_index_free(&doc.index, NULL);
	marshal_index_free(&lit.index, NULL);
	free(bytes);
	free(lbytes);
}

static void
test_record_casts(void)
{
	const int	DB = MARSHAL_CAST_DB;
	const int	US = MARSHAL_CAST_USER;
	const char *i = "ActiveModel::Type::Integer";
	const char *dws = "ActiveRecord::Type::DecimalWithoutScale";
	const char *dec = "ActiveModel::Type::Decimal";
	const char *fl = "ActiveModel::Type::Float";
	const char *b = "ActiveModel::Type::Boolean";
	const char *str = "ActiveModel::Type::String";
	const char *date = "ActiveRecord::Type::Date";
	const char *dt = "ActiveRecord::Type::DateTime";

	/* Integer: to_i, blank text is nil (Helpers::Numeric, Integer) */
	cast_case(i, -1, -1, false, US, "\"7\"", "7");
	cast_case(i, -1, -1, false, US, "\" 7 \"", "7");
	cast_case(i, -1, -1, false, US, "\"\"", "null");
	cast_case(i, -1, -1, false, US, "\"  \"", "null");
	cast_case(i, -1, -1, false, US, "\"abc\"", "0");
	cast_case(i, -1, -1, false, US, "\"1e3\"", "1");
	cast_case(i, -1, -1, false, US, "\"-12\"", "-12");
	cast_case(i, -1, -1, false, US, "\"3.99\"", "3");
	cast_case(i, -1, -1, false, US, "\"1_000\"", "1000");
	cast_case(i, -1, -1, false, US, "\"+5\"", "5");
	cast_case(i, -1, -1, false, US, "\"0x1A\"", "0");
	cast_case(i, -1, -1, false, US, "\"12abc\"", "12");
	cast_case(i, -1, -1, false, US, "4.5", "4");
	cast_case(i, -1, -1, false, US, "true", "1");
	cast_case(i, -1, -1, false, DB, "\"abc\"", "0");
	cast_case(i, -1, -1, false, DB, "\"  \"", "null");
	cast_case(i, -1, -1, false, DB, "7", "raw");
	cast_case(dws, 20, -1, false, DB, "12.7", "12");
	cast_case(dws, 20, -1, false, US, "\"-3\"", "-3");

	/* Decimal: BigDecimal, rounded half up to @scale, printed as to_s */
	cast_case(dec, 10, 2, false, US, "\"9.999\"", "\"10.0\"");
	cast_case(dec, 10, 2, false, US, "\"9.994\"", "\"9.99\"");
	cast_case(dec, 10, 2, false, US, "\"-0.005\"", "\"-0.01\"");
	cast_case(dec, 10, 2, false, US, "\"abc\"", "\"0.0\"");
	cast_case(dec, 10, 2, false, US, "\"1e3\"", "\"1000.0\"");
	cast_case(dec, 10, 2, false, US, "\"99999999.999\"", "\"100000000.0\"");
	cast_case(dec, 10, 2, false, US, "\"5e-3\"", "\"0.01\"");
	cast_case(dec, 10, 2, false, US, "\"1_0.5\"", "\"10.5\"");
	cast_case(dec, 10, 2, false, US, "\"\"", "null");
	cast_case(dec, 10, 2, false, US, "12.345", "\"12.35\"");
	cast_case(dec, 10, 2, false, US, "7", "\"7.0\"");
	cast_case(dec, 10, 2, false, DB, "9.995", "\"10.0\"");
	cast_case(dec, 10, 2, false, DB, "-9.995", "\"-10.0\"");
	cast_case(dec, 10, 2, false, DB, "0.005", "\"0.01\"");
	cast_case(dec, 10, 2, false, DB, "12", "\"12.0\"");
	cast_case(dec, -1, -1, false, US, "\"1.50\"", "\"1.5\"");
	cast_case(dec, -1, -1, false, US, "\"-0.000\"", "\"-0.0\"");
	cast_case(dec, -1, -1, false, US, "\" 2.5x\"", "\"2.5\"");
	cast_case(dec, -1, -1, false, US, "\".5\"", "\"0.5\"");
	cast_case(dec, -1, -1, false, US, "0.1", "\"0.1\"");
	cast_case(dec, -1, -1, false, DB, "-1.005", "\"-1.005\"");

	/* Float: to_f; Infinity/NaN are nil in JSON */
	cast_case(fl, -1, -1, false, US, "\"abc\"", "0.0");
	cast_case(fl, -1, -1, false, US, "\"1e3\"", "1000.0");
	cast_case(fl, -1, -1, false, US, "\" 2.5 \"", "2.5");
	cast_case(fl, -1, -1, false, US, "\"Infinity\"", "null");
	cast_case(fl, -1, -1, false, US, "\"1_000.5\"", "1000.5");
	cast_case(fl, -1, -1, false, US, "\"-0.0\"", "-0.0");
	cast_case(fl, -1, -1, false, US, "\".5\"", "0.5");
	cast_case(fl, -1, -1, false, US, "\"7e\"", "7.0");
	cast_case(fl, -1, -1, false, US, "3", "3.0");
	cast_case(fl, -1, -1, false, DB, "2.5", "raw");

	/* Boolean: FALSE_VALUES, "" is nil, anything else true */
	cast_case(b, -1, -1, false, US, "\"f\"", "false");
	cast_case(b, -1, -1, false, US, "\"off\"", "false");
	cast_case(b, -1, -1, false, US, "\"FALSE\"", "false");
	cast_case(b, -1, -1, false, US, "\"yes\"", "true");
	cast_case(b, -1, -1, false, US, "\"no\"", "true");
	cast_case(b, -1, -1, false, US, "\" \"", "true");
	cast_case(b, -1, -1, false, US, "\"\"", "null");
	cast_case(b, -1, -1, false, US, "2", "true");
	cast_case(b, -1, -1, false, DB, "0", "false");
	cast_case(b, -1, -1, false, DB, "1", "true");

	/* String: to_s of numbers */
	cast_case(str, -1, -1, false, US, "12", "\"12\"");
	cast_case(str, -1, -1, false, US, "1e20", "\"1.0e+20\"");
	cast_case(str, -1, -1, false, US, "\"x\"", "raw");

	/* Date: ISO text, impossible dates nil */
	cast_case(date, -1, -1, false, US, "\"2024-02-29\"", "\"2024-02-29\"");
	cast_case(date, -1, -1, false, US, "\"2023-02-29\"", "null");
	cast_case(date, -1, -1, false, US, "\"0000-00-00\"", "null");
	cast_case(date, -1, -1, false, US, "\"abc\"", "null");

	/* DateTime behind a TimeZoneConverter: UTC, offsets applied */
	cast_case(dt, 6, -1, true, US, "\"2024-03-06T23:30:00-05:00\"", "2024-03-07T04:30:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"2024-02-30 10:00:00\"", "2024-03-01T10:00:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"1999-12-31 23:59:59.9999\"", "1999-12-31T23:59:59.999Z");
	cast_case(dt, 6, -1, true, US, "\"2024-03-06 10:00\"", "2024-03-06T10:00:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"2024-03-06\"", "2024-03-06T00:00:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"abc\"", "null");
	cast_case(dt, 6, -1, true, DB, "\"2024-03-06 10:00:00+02:00\"", "2024-03-06T08:00:00.000Z");
	cast_case(dt, 6, -1, true, DB, "\"2024-03-06 10:00:00.123456\"", "2024-03-06T10:00:00.123Z");
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "test/fixtures";
	char		path[1024];
	Fixture    *valid;
	Fixture    *invalid;
	char	   *vtext;
	char	   *itext;
	int			nvalid;
	int			ninvalid;

	snprintf(path, sizeof(path), "%s/valid.tsv", dir);
	nvalid = load_tsv(path, 1, &valid, &vtext);
	snprintf(path, sizeof(path), "%s/invalid.tsv", dir);
	ninvalid = load_tsv(path, 0, &invalid, &itext);
	printf("# %d valid and %d invalid fixtures\n", nvalid, ninvalid);

	test_valid(valid, nvalid);
	test_prefixes(valid, nvalid);
	test_trailing(valid, nvalid);
	test_invalid(invalid, ninvalid);
	test_rules();
	test_depth();
	test_text();
	test_printable();
	test_json_text(valid, nvalid);
	test_sessions(dir);
	test_big(dir);
	test_mutations(valid, nvalid);
	test_record_casts();

	free_fixtures(valid, nvalid, vtext);
	free_fixtures(invalid, ninvalid, itext);
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
