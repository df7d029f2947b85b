/*
 * rbmarshal_transcode.c
 *		Strings in Ruby's other encodings as UTF-8, with PostgreSQL's
 *		conversion procedures: used by the jsonb view and by navigation
 *		(keys in other encodings compare as the text they convert to).
 */
#include "rbmarshal.h"

#include "catalog/pg_conversion.h"
#include "catalog/pg_namespace.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"

/* Ruby's names for encodings PostgreSQL spells differently. */
static int
ruby_encoding_to_pg(const char *name)
{
	static const struct
	{
		const char *ruby;
		int			pg;
	}			map[] = {
		{"Windows-31J", PG_SJIS},
		{"CP932", PG_SJIS},
		{"SJIS", PG_SJIS},
		{"MacJapanese", PG_SJIS},
		{"CP51932", PG_EUC_JP},
		{"eucJP-ms", PG_EUC_JP},
		{"EUC-JIS-2004", PG_EUC_JIS_2004},
		{"IBM866", PG_WIN866},
		{"CP866", PG_WIN866},
		{"CP949", PG_UHC},
		{"CP936", PG_GBK},
		{"GB2312", PG_EUC_CN},
		{"ISO-8859-9", PG_LATIN5},
		{"ISO-8859-10", PG_LATIN6},
		{"ISO-8859-13", PG_LATIN7},
		{"ISO-8859-14", PG_LATIN8},
		{"ISO-8859-15", PG_LATIN9},
		{"ISO-8859-16", PG_LATIN10},
	};

	for (size_t i = 0; i < lengthof(map); i++)
		if (pg_strcasecmp(name, map[i].ruby) == 0)
			return map[i].pg;
	/* PostgreSQL's own aliases cover Shift_JIS, EUC-JP, ISO-8859-1, ... */
	return pg_char_to_encoding(name);
}

/*
 * UTF-16 and UTF-32, which PostgreSQL has no encodings for.  Ruby's dummy
 * "UTF-16" and "UTF-32" take their byte order from the BOM, which stays in
 * the text as U+FEFF (as Ruby's JSON has it); without a BOM: not text.
 */
static bool
decode_utf16_32(const char *name, const uint8_t *s, size_t len,
				char **out, size_t *outlen)
{
	int			width;
	bool		big;
	StringInfoData buf;

	if (pg_strcasecmp(name, "UTF-16") == 0 || pg_strcasecmp(name, "UTF-32") == 0)
	{
		width = name[4] == '1' ? 2 : 4;
		if (len == 0)
		{
			*out = pstrdup("");
			*outlen = 0;
			return true;
		}
		if (width == 2 && len >= 2 && s[0] == 0xFE && s[1] == 0xFF)
			big = true;
		else if (width == 2 && len >= 2 && s[0] == 0xFF && s[1] == 0xFE)
			big = false;
		else if (width == 4 && len >= 4 && memcmp(s, "\0\0\xFE\xFF", 4) == 0)
			big = true;
		else if (width == 4 && len >= 4 && memcmp(s, "\xFF\xFE\0\0", 4) == 0)
			big = false;
		else
			return false;
	}
	else if (pg_strcasecmp(name, "UTF-16LE") == 0)
		width = 2, big = false;
	else if (pg_strcasecmp(name, "UTF-16BE") == 0)
		width = 2, big = true;
	else if (pg_strcasecmp(name, "UTF-32LE") == 0)
		width = 4, big = false;
	else if (pg_strcasecmp(name, "UTF-32BE") == 0)
		width = 4, big = true;
	else
		return false;
	if (len % width != 0)
		return false;
	initStringInfo(&buf);
	for (size_t i = 0; i < len; i += width)
	{
		uint32		cp = 0;
		unsigned char utf8[8];

		for (int k = 0; k < width; k++)
			cp |= (uint32) s[i + (big ? width - 1 - k : k)] << (8 * k);
		if (width == 2 && cp >= 0xD800 && cp <= 0xDBFF)
		{
			uint32		lo = 0;

			if (i + 3 >= len)
				return false;
			for (int k = 0; k < 2; k++)
				lo |= (uint32) s[i + 2 + (big ? 1 - k : k)] << (8 * k);
			if (lo < 0xDC00 || lo > 0xDFFF)
				return false;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			i += 2;
		}
		else if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			return false;
		unicode_to_utf8((pg_wchar) cp, utf8);
		appendBinaryStringInfo(&buf, (char *) utf8, pg_utf_mblen(utf8));
	}
	*out = buf.data;
	*outlen = buf.len;
	return true;
}

/*
 * PostgreSQL's SJIS and EUC_JP tables follow Microsoft's CP932, where Ruby's
 * Shift_JIS and EUC-JP follow JIS X 0208: seven characters differ (checked
 * over every double-byte code).  Ruby's mapping, by source bytes.
 */
static const struct
{
	uint16		sjis;
	uint16		eucjp;
	const char *utf8;
}			jis_differences[] = {
	{0x815C, 0xA1BD, "\xE2\x80\x94"},	/* U+2014 EM DASH */
	{0x8160, 0xA1C1, "\xE3\x80\x9C"},	/* U+301C WAVE DASH */
	{0x8161, 0xA1C2, "\xE2\x80\x96"},	/* U+2016 DOUBLE VERTICAL LINE */
	{0x817C, 0xA1DD, "\xE2\x88\x92"},	/* U+2212 MINUS SIGN */
	{0x8191, 0xA1F1, "\xC2\xA2"},	/* U+00A2 CENT SIGN */
	{0x8192, 0xA1F2, "\xC2\xA3"},	/* U+00A3 POUND SIGN */
	{0x81CA, 0xA2CC, "\xC2\xAC"},	/* U+00AC NOT SIGN */
};

static bool
convert_run(Oid proc, int enc, const uint8_t *s, size_t len, StringInfo out)
{
	unsigned char *dest;
	int			converted;

	if (len == 0)
		return true;
	dest = palloc(len * MAX_CONVERSION_GROWTH + 1);
	converted = pg_do_encoding_conversion_buf(proc, enc, PG_UTF8,
											  (unsigned char *) s, (int) len,
											  dest, (int) (len * MAX_CONVERSION_GROWTH + 1),
											  true);
	if (converted != (int) len)
		return false;
	appendStringInfoString(out, (char *) dest);
	pfree(dest);
	return true;
}

/* Convert with PostgreSQL, swapping in Ruby's mapping where JIS asks. */
static bool
convert_text(Oid proc, int enc, bool jis, const uint8_t *s, size_t len,
			 StringInfo out)
{
	size_t		run = 0;
	size_t		i = 0;

	while (jis && i < len)
	{
		int			n = pg_encoding_mblen(enc, (const char *) s + i);
		const char *ruby = NULL;

		if (n == 2 && i + 2 <= len)
		{
			uint16		code = (uint16) (s[i] << 8 | s[i + 1]);

			for (size_t k = 0; k < lengthof(jis_differences); k++)
				if (code == (enc == PG_SJIS ? jis_differences[k].sjis : jis_differences[k].eucjp))
					ruby = jis_differences[k].utf8;
		}
		if (ruby)
		{
			if (!convert_run(proc, enc, s + run, i - run, out))
				return false;
			appendStringInfoString(out, ruby);
			run = i + 2;
		}
		i += n;
	}
	return convert_run(proc, enc, s + run, len - run, out);
}

/*
 * A string in a named Ruby encoding to UTF-8 with PostgreSQL's conversion
 * procedures; false (so the codec applies the binary policy) when the
 * encoding is unknown here or the bytes are not valid in it.
 */
bool
rbmarshal_transcode(void *ctx, const char *encname, const uint8_t *s, size_t len,
					char **out, size_t *outlen)
{
	int			enc = ruby_encoding_to_pg(encname);
	Oid			proc;
	StringInfoData buf;

	if (enc < 0)
		return decode_utf16_32(encname, s, len, out, outlen);
	if (len > MaxAllocSize / MAX_CONVERSION_GROWTH - 1)
		return false;
	if (!pg_verify_mbstr(enc, (const char *) s, (int) len, true))
		return false;
	if (enc == PG_UTF8 || enc == PG_SQL_ASCII)
	{
		*out = (char *) s;
		*outlen = len;
		return true;
	}
	/*
	 * PostgreSQL's own conversion, from pg_catalog only: a DEFAULT
	 * CONVERSION someone created in a schema on the search_path must not
	 * change what these IMMUTABLE functions answer.
	 */
	proc = FindDefaultConversion(PG_CATALOG_NAMESPACE, enc, PG_UTF8);
	if (!OidIsValid(proc))
		return false;
	initStringInfo(&buf);
	if (!convert_text(proc, enc,
					  pg_strcasecmp(encname, "Shift_JIS") == 0 ||
					  pg_strcasecmp(encname, "EUC-JP") == 0 ||
					  pg_strcasecmp(encname, "eucJP") == 0,
					  s, len, &buf))
		return false;
	*out = buf.data;
	*outlen = buf.len;
	return true;
}
