/*
 * test_reader.c
 *		Unit tests of the reader: validation against MRI's fixtures, the
 *		index, the rules stricter than MRI, depth, mutations.
 */
#include "unit.h"

/* Every fixture is accepted, consumed exactly, and indexed as MRI counts. */
void
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
void
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
void
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
void
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
void
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
void
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
		check(marshal_skip(&doc, MARSHAL_ROOT, &end, &err) != MARSHAL_OK,
			  "skipped 1500 levels of unvalidated bytes", "depth");
		marshal_index_free(&doc.index, NULL);
		s[0] = '[';
		s[1] = 6;
		marshal_doc_lazy(&doc, b, 2 * levels + 3, NULL, 0);
		check(marshal_skip(&doc, MARSHAL_ROOT, &end, &err) != MARSHAL_OK,
			  "skipped 100k levels of unvalidated bytes", "depth");
		marshal_index_free(&doc.index, NULL);
	}
	/*
	 * The same through symbols with ivars: an object whose class symbol
	 * carries an ivar whose value is the next object, 100k times.  Each
	 * level counts, as any other nesting does.
	 */
	{
		static const uint8_t level[] = {'o', 'I', ':', 6, 'a', 6, ':', 6, 'b'};
		size_t		n = 100000;
		size_t		blen = 2 + n * sizeof(level) + 1 + n;
		uint8_t    *sb = malloc(blen);
		uint8_t    *q = sb;
		MarshalDoc	doc;
		size_t		end;

		*q++ = 4;
		*q++ = 8;
		for (size_t i = 0; i < n; i++, q += sizeof(level))
			memcpy(q, level, sizeof(level));
		*q++ = '0';
		memset(q, 0, n);		/* each object's ivar count */
		marshal_doc_lazy(&doc, sb, blen, NULL, 0);
		check(marshal_skip(&doc, MARSHAL_ROOT, &end, &err) != MARSHAL_OK,
			  "skipped 100k levels of symbol ivars", "depth");
		marshal_index_free(&doc.index, NULL);
		free(sb);
	}
	free(b);
}


/* big.tsv: name, objects, symbols, file: the 1.8 MB value of 200k entries. */
void
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
void
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
