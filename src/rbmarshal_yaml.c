/*
 * rbmarshal_yaml.c
 *		YAML text of a serialize'd column as ActiveRecord 6.1 loads it.
 *
 * YAMLColumn#load is YAML.safe_load(text, permitted_classes: [Symbol],
 * aliases: true) (Psych 4).  This reads the text with libyaml's event
 * parser and maps what Psych would make of it: the first document only,
 * mappings as Ruby Hashes (key identity as eql?, merge keys "<<"),
 * sequences, quoted and block scalars as Strings, plain scalars by every
 * rule of Psych's ScalarScanner#tokenize, aliases, and mappings tagged as
 * HashWithIndifferentAccess.  Anything else (other tags, times and dates,
 * which Rails refuses, and the few forms noted below) returns NULL, and
 * the caller keeps the YAML text: nothing is guessed.
 */
#include "rbmarshal.h"

#include <float.h>
#include <math.h>
#include <yaml.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/float.h"
#include "utils/numeric.h"

/*
 * Nodes pushed at most, aliases expanded (a billion laughs stays text); the
 * walker charges its budget for this many (marshal_json.c, MCAST_YAML).
 * Merge keys copy pairs: they are counted against the same number.
 */
#define YAML_MAX_NODES(len) (1000 + 4 * (int64) (len))

/*
 * Digits of a binary, octal or hex integer converted at most, and of a
 * decimal one (numeric_in takes up to 131072)
 */
#define YAML_MAX_RADIX_DIGITS 4096
#define YAML_MAX_DECIMAL_DIGITS 100000

typedef enum
{
	Y_SCALAR,
	Y_SEQ,
	Y_MAP
} YKind;

/* The class of a scalar's Ruby object, for Hash key identity */
typedef enum
{
	K_NIL,
	K_FALSE,
	K_TRUE,
	K_INT,
	K_FLOAT,
	K_STR,
	K_SYM
} YClass;

typedef struct YNode
{
	YKind		kind;
	bool		done;			/* complete (an alias to it may expand) */
	bool		hwia;			/* Y_MAP: a HashWithIndifferentAccess */
	JsonbValue	value;			/* Y_SCALAR */
	YClass		rclass;			/* Y_SCALAR: its Ruby class */
	char	   *keytext;		/* Y_SCALAR: key.to_s as a Hash key */
	int			keylen;
	char	   *ident;			/* Y_SCALAR: what eql? compares (-0.0 is 0.0) */
	int			identlen;
	List	   *items;			/* Y_SEQ: elements; Y_MAP: key, value, ... */
	List	   *aliased;		/* Y_MAP while open: each value came by alias */
} YNode;

typedef struct YAnchor
{
	char	   *name;
	YNode	   *node;
} YAnchor;

static bool
ci_eq(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && pg_strncasecmp(s, word, len) == 0;
}

static inline bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Ruby's \s */
static inline bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static void
set_key(YNode *n, YClass rclass, char *text, int len)
{
	n->rclass = rclass;
	n->keytext = text;
	n->keylen = len;
	n->ident = text;
	n->identlen = len;
}

static void
set_string(YNode *n, const char *s, size_t len, YClass rclass)
{
	char	   *conv = pg_any_to_server(s, (int) len, PG_UTF8);

	if (conv == s)
		conv = pnstrdup(s, len);
	n->value.type = jbvString;
	n->value.val.string.val = conv;
	n->value.val.string.len = (int) strlen(conv);
	set_key(n, rclass, conv, n->value.val.string.len);
}

static void
set_special(YNode *n, JsonbValue *v, YClass rclass, char *text)
{
	n->value = *v;
	set_key(n, rclass, text, strlen(text));
}

static void
set_null(YNode *n)
{
	JsonbValue	v;

	v.type = jbvNull;
	set_special(n, &v, K_NIL, "");
}

static void
set_bool(YNode *n, bool b)
{
	JsonbValue	v;

	v.type = jbvBool;
	v.val.boolean = b;
	set_special(n, &v, b ? K_TRUE : K_FALSE, b ? "true" : "false");
}

/* An Integer: as_json is itself, to_s its decimal digits */
static void
set_integer(YNode *n, Numeric num)
{
	char	   *text = DatumGetCString(DirectFunctionCall1(numeric_out,
														   NumericGetDatum(num)));

	n->value.type = jbvNumeric;
	n->value.val.numeric = num;
	set_key(n, K_INT, text, strlen(text));
}

static Numeric
numeric_from_text(const char *text)
{
	return DatumGetNumeric(DirectFunctionCall3(numeric_in,
											   CStringGetDatum(text),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

/* A Float: as_json is nil unless finite, to_s is Float#to_s */
static void
set_float(YNode *n, double d)
{
	char		buf[40];

	marshal_format_float(d, buf);
	if (isfinite(d))
	{
		n->value.type = jbvNumeric;
		n->value.val.numeric = numeric_from_text(buf);
	}
	else
		n->value.type = jbvNull;
	set_key(n, K_FLOAT, pstrdup(buf), strlen(buf));
	/* a Hash holds 0.0 and -0.0 as one key */
	if (d == 0)
	{
		n->ident = "0.0";
		n->identlen = 3;
	}
}

/*
 * Whether every line starts with one of "ytonf~" (^[^ytonf~]/i does not
 * match): Ruby's ^ is at each line's start, and matches an empty line too.
 */
static bool
lines_start_ytonf(const char *s, size_t len)
{
	for (size_t i = 0; i <= len; i++)
		if ((i == 0 || s[i - 1] == '\n') &&
			(i == len || s[i] == '\0' || strchr("ytonfYTONF~", s[i]) == NULL))
			return false;
	return true;
}

/* String#length of UTF-8 text: bytes that do not continue a character */
static size_t
utf8_chars(const char *s, size_t len)
{
	size_t		n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char) s[i] & 0xC0) != 0x80;
	return n;
}

/*
 * Whether the text is the word under Ruby's /i, which folds by Unicode:
 * U+017F (long s) matches "s" and U+FB00 (the ligature ff) matches "ff";
 * no other character folds to letters of the null and boolean words.
 */
static bool
word_eq(const char *s, size_t len, const char *word)
{
	size_t		i = 0;

	for (; *word != '\0'; word++)
	{
		if (i < len && pg_ascii_tolower((unsigned char) s[i]) == *word)
			i++;
		else if (*word == 's' && i + 1 < len && memcmp(s + i, "\xC5\xBF", 2) == 0)
			i += 2;
		else if (*word == 'f' && word[1] == 'f' && i + 2 < len &&
				 memcmp(s + i, "\xEF\xAC\x80", 3) == 0)
			i += 3, word++;
		else
			return false;
	}
	return i == len;
}

/*
 * A null or boolean word, as tokenize's first branch finds them in text of
 * at most 5 characters whose lines all start with one of "ytonf~".  Its
 * regexps are anchored by line: with a line break, any line that is a
 * word counts.
 */
static bool
null_or_bool(YNode *n, const char *s, size_t len)
{
	static const char *const words[3][3] = {{"null"}, {"yes", "true", "on"}, {"no", "false", "off"}};

	if (len == 1 && s[0] == '~')
	{
		set_null(n);
		return true;
	}
	for (int w = 0; w < 3; w++)
	{
		const char *line = s;

		while (line <= s + len)
		{
			const char *eol = memchr(line, '\n', s + len - line);
			size_t		l = eol ? eol - line : s + len - line;

			for (int k = 0; k < 3 && words[w][k]; k++)
				if (word_eq(line, l, words[w][k]))
				{
					if (w == 0)
						set_null(n);
					else
						set_bool(n, w == 1);
					return true;
				}
			if (eol == NULL)
				break;
			line = eol + 1;
		}
	}
	return false;
}

/* Psych's TIME regexp (the text then needs Time: not permitted) */
static bool
match_time(const char *s, size_t len)
{
	size_t		i = 0;
	size_t		d;

#define RUN(min, max) \
	do { \
		for (d = 0; i < len && is_digit(s[i]) && d < (max); i++, d++) \
			; \
		if (d < (min)) \
			return false; \
	} while (0)
#define EXPECT(c) \
	do { \
		if (i >= len || s[i] != (c)) \
			return false; \
		i++; \
	} while (0)

	if (i < len && s[i] == '-')
		i++;
	RUN(4, 4);
	EXPECT('-');
	RUN(1, 2);
	EXPECT('-');
	RUN(1, 2);
	if (i < len && (s[i] == 'T' || s[i] == 't'))
		i++;
	else
	{
		if (i >= len || !is_space(s[i]))
			return false;
		while (i < len && is_space(s[i]))
			i++;
	}
	RUN(1, 2);
	EXPECT(':');
	RUN(2, 2);
	EXPECT(':');
	RUN(2, 2);
	if (i < len && s[i] == '.')
		for (i++; i < len && is_digit(s[i]); i++)
			;
	if (i == len)
		return true;
	while (i < len && is_space(s[i]))
		i++;
	if (i < len && s[i] == 'Z')
		return i + 1 == len;
	if (i >= len || (s[i] != '+' && s[i] != '-'))
		return false;
	i++;
	for (d = 0; i + d < len && is_digit(s[i + d]); d++)
		;
	if (d == 0)
		return false;
	if (i + d < len && s[i + d] == ':')
	{
		/* [-+]\d{1,2}:(\d\d)? */
		if (d > 2)
			return false;
		i += d + 1;
		return i == len || (i + 2 == len && is_digit(s[i]) && is_digit(s[i + 1]));
	}
	/* [-+]\d{1,2}(\d\d)? */
	return d <= 4 && i + d == len;
#undef RUN
#undef EXPECT
}

/* ^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$ (needs Date: refused) */
static bool
match_date(const char *s, size_t len)
{
	size_t		i;
	size_t		m;

	for (i = 0; i < 4; i++)
		if (i >= len || !is_digit(s[i]))
			return false;
	if (i >= len || s[i++] != '-')
		return false;
	for (m = 0; i + m < len && is_digit(s[i + m]); m++)
		;
	if (m == 0 || m > 2 || (m == 2 && !(s[i] == '0' || (s[i] == '1' && s[i + 1] <= '2'))))
		return false;
	i += m;
	if (i >= len || s[i++] != '-')
		return false;
	m = len - i;
	if (m == 1)
		return is_digit(s[i]);
	return m == 2 && is_digit(s[i + 1]) &&
		(s[i] == '0' || s[i] == '1' || s[i] == '2' || (s[i] == '3' && s[i + 1] <= '1'));
}

/* 1 if the text starts with a sign */
static inline size_t
sign_len(const char *s)
{
	return s[0] == '+' || s[0] == '-';
}

/* num * mul + add */
static Numeric
mul_add(Numeric num, int64 mul, int64 add)
{
	num = DatumGetNumeric(DirectFunctionCall2(numeric_mul, NumericGetDatum(num),
											  NumericGetDatum(int64_to_numeric(mul))));
	return DatumGetNumeric(DirectFunctionCall2(numeric_add, NumericGetDatum(num),
											   NumericGetDatum(int64_to_numeric(add))));
}

static int
digit_value(char c)
{
	if (is_digit(c))
		return c - '0';
	return (c | 0x20) - 'a' + 10;
}

/*
 * The digits String#to_i and #to_f read: a '_' continues a number only
 * between two digits.  Returns the end of what was read.
 */
static size_t
read_digits(const char *s, size_t len, size_t i, StringInfo out)
{
	while (i < len)
	{
		if (is_digit(s[i]))
			appendStringInfoChar(out, s[i++]);
		else if (s[i] == '_' && out->len > 0 && is_digit(out->data[out->len - 1]) &&
				 i + 1 < len && is_digit(s[i + 1]))
			i++;
		else
			break;
	}
	return i;
}

/*
 * String#to_f of a sign, digits with '_' and an optional fraction.  Where
 * its strtod stops early (at a '_'), Ruby copies the text into a buffer of
 * DBL_DIG * 4 characters without the '_'s and reads that: digits past it
 * are dropped.
 */
static double
ruby_to_f(const char *s, size_t len)
{
	StringInfoData buf;
	size_t		i = sign_len(s);

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, s, i);
	i = read_digits(s, len, i, &buf);
	if (i + 1 < len && s[i] == '.' && is_digit(s[i + 1]))
	{
		appendStringInfoChar(&buf, '.');
		(void) read_digits(s, len, i + 1, &buf);
	}
	if (memchr(s, '_', len) != NULL && buf.len > DBL_DIG * 4)
		buf.data[DBL_DIG * 4] = '\0';
	return strtod(buf.data, NULL);
}

/*
 * Sexagesimal: ^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$ is an Integer, with
 * \.[0-9_]* before the end a Float.  Each ':'-part is read by to_i (to_f)
 * and weighs 60 ** (index - 2).abs: "12:30" is 12 * 3600 + 30 * 60.  Only
 * the first part has a sign.  Returns false when the text does not match.
 */
static bool
sexagesimal(YNode *n, const char *s, size_t len, bool *refused)
{
	size_t		i = sign_len(s);
	size_t		first_end;
	size_t		last_start = 0;
	int			parts[2];
	int			nparts = 0;
	bool		fraction = false;

	if (i >= len || !is_digit(s[i]))
		return false;
	while (i < len && (is_digit(s[i]) || s[i] == '_'))
		i++;
	first_end = i;
	while (nparts < 2 && i < len && s[i] == ':')
	{
		last_start = ++i;
		if (i + 1 < len && s[i] >= '0' && s[i] <= '5' && is_digit(s[i + 1]))
		{
			parts[nparts++] = (s[i] - '0') * 10 + (s[i + 1] - '0');
			i += 2;
		}
		else if (i < len && is_digit(s[i]))
			parts[nparts++] = s[i++] - '0';
		else
			return false;
	}
	if (nparts == 0)
		return false;
	if (i < len)
	{
		if (s[i] != '.')
			return false;
		fraction = true;
		for (i++; i < len && (is_digit(s[i]) || s[i] == '_'); i++)
			;
		if (i < len)
			return false;
	}

	if (!fraction)
	{
		/* to_i of the first part: a sign, then digits */
		StringInfoData buf;

		if (first_end > YAML_MAX_DECIMAL_DIGITS)
		{
			*refused = true;
			return true;
		}
		initStringInfo(&buf);
		if (s[0] == '-')
			appendStringInfoChar(&buf, '-');
		(void) read_digits(s, first_end, sign_len(s), &buf);
		set_integer(n, mul_add(numeric_from_text(buf.data), 3600,
							   (int64) parts[0] * 60 + (nparts == 2 ? parts[1] : 0)));
	}
	else
	{
		/* Integer 0 plus each part's Float times its weight, in order */
		double		d = 0.0;

		d += ruby_to_f(s, first_end) * 3600.0;
		if (nparts == 2)
			d += (double) parts[0] * 60.0;
		d += ruby_to_f(s + last_start, len - last_start) * (nparts == 2 ? 1.0 : 60.0);
		set_float(n, d);
	}
	return true;
}

/*
 * FLOAT: ^[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?$, read by
 * Float() once ',' and '_' and a '.' before an exponent or the end are
 * gone; "." and "-." are Strings.  Returns false when it does not match;
 * *refused when Float() raises (no digit before the exponent).
 */
static bool
float_form(YNode *n, const char *s, size_t len, bool *refused)
{
	size_t		i = sign_len(s);
	size_t		mantissa = 0;
	StringInfoData buf;

	if (i < len && is_digit(s[i]))
		while (i < len && (is_digit(s[i]) || s[i] == '_' || s[i] == ','))
			i++;
	if (i >= len || s[i] != '.')
		return false;
	for (i++; i < len && is_digit(s[i]); i++)
		;
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		i++;
		if (i >= len || (s[i] != '+' && s[i] != '-'))
			return false;
		i++;
		if (i >= len)
			return false;
		for (; i < len; i++)
			if (!is_digit(s[i]))
				return false;
	}
	if (i != len)
		return false;

	initStringInfo(&buf);
	for (i = 0; i < len; i++)
	{
		if (s[i] == '_' || s[i] == ',')
			continue;
		if (s[i] == '.' && (i + 1 == len || s[i + 1] == 'e' || s[i + 1] == 'E'))
			continue;
		if (s[i] == 'e' || s[i] == 'E')
			break;
		if (is_digit(s[i]))
			mantissa++;
		appendStringInfoChar(&buf, s[i]);
	}
	if (mantissa == 0)
	{
		/* "." and "-.": Strings; ".e+1": Float("e+1") raises */
		if (i == len)
		{
			set_string(n, s, len, K_STR);
			return true;
		}
		*refused = true;
		return true;
	}
	appendBinaryStringInfo(&buf, s + i, len - i);
	set_float(n, strtod(buf.data, NULL));
	return true;
}

/*
 * INTEGER: base 2 ([-+]?0b[0-1_,]+), 8 ([-+]?0[0-7_,]+), 10
 * ([-+]?(0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)) or 16 ([-+]?0x[0-9a-fA-F_,]+),
 * read by Integer() once ',' and '_' are gone ("0x_" raises: *refused).
 * Returns false when it does not match.
 */
static bool
integer_form(YNode *n, const char *s, size_t len, bool *refused)
{
	size_t		i = sign_len(s);
	int			base = 10;
	size_t		start;
	size_t		ndigits = 0;
	Numeric		num;

	if (i >= len || !is_digit(s[i]))
		return false;
	if (s[i] == '0' && i + 1 < len)
	{
		if (s[i + 1] == 'b')
			base = 2;
		else if (s[i + 1] == 'x')
			base = 16;
		else
			base = 8;
		start = base == 8 ? i + 1 : i + 2;
		if (start >= len)
			return false;
		for (size_t j = start; j < len; j++)
		{
			int			c = s[j];

			if (c == '_' || c == ',')
				continue;
			if (!(base == 2 ? (c == '0' || c == '1') :
				  base == 8 ? (c >= '0' && c <= '7') :
				  isxdigit((unsigned char) c)))
				return false;
			ndigits++;
		}
		if (ndigits == 0 && base != 8)
		{
			*refused = true;	/* Integer("0x") */
			return true;
		}
		if (ndigits > YAML_MAX_RADIX_DIGITS)
		{
			*refused = true;	/* not converted here: kept as text */
			return true;
		}
		/* chunks of up to 60 bits, then value * base ** k + chunk */
		num = int64_to_numeric(0);
		{
			int			bits = base == 2 ? 1 : base == 8 ? 3 : 4;
			int64		chunk = 0;
			int			k = 0;

			for (size_t j = start; j <= len; j++)
			{
				if (j < len && (s[j] == '_' || s[j] == ','))
					continue;
				if (j < len)
				{
					chunk = (chunk << bits) | digit_value(s[j]);
					k++;
				}
				if ((j == len || k * bits >= 60) && k > 0)
				{
					num = mul_add(num, (int64) 1 << (k * bits), chunk);
					chunk = 0;
					k = 0;
				}
			}
		}
		if (s[0] == '-')
			num = DatumGetNumeric(DirectFunctionCall1(numeric_uminus, NumericGetDatum(num)));
		set_integer(n, num);
		return true;
	}
	/* base 10: single separators between digits */
	{
		StringInfoData buf;

		initStringInfo(&buf);
		if (s[0] == '-')
			appendStringInfoChar(&buf, '-');
		for (size_t j = i; j < len; j++)
		{
			if (is_digit(s[j]))
				appendStringInfoChar(&buf, s[j]);
			else if ((s[j] == '_' || s[j] == ',') && j > i && is_digit(s[j - 1]) &&
					 j + 1 < len && is_digit(s[j + 1]))
				continue;
			else
				return false;
		}
		if (s[i] == '0' && len - i > 1)
			return false;
		if (buf.len > YAML_MAX_DECIMAL_DIGITS)
		{
			*refused = true;
			return true;
		}
		set_integer(n, numeric_from_text(buf.data));
		return true;
	}
}

/*
 * A plain scalar as Psych's ScalarScanner#tokenize reads it, its rules in
 * its order.  False when Psych raises (a date or time needs a class that
 * is not permitted; Float("e+1"), Integer("0x")) or the value is not
 * reproduced: the caller keeps the text.
 */
static bool
tokenize(YNode *n, const char *s, size_t len)
{
	bool		refused = false;

	n->kind = Y_SCALAR;
	if (len == 0)
	{
		set_null(n);
		return true;
	}

	/*
	 * "Looks like a string": with a line break, or not starting like a
	 * number, time or symbol (any of "+-.:" or a digit), only null and
	 * boolean words of at most 5 characters are not Strings.  The rules
	 * below cannot match text that starts with '+' and a letter, which
	 * that regexp also sends here.
	 */
	if (memchr(s, '\n', len) != NULL ||
		!(is_digit(s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '.' || s[0] == ':'))
	{
		if (utf8_chars(s, len) <= 5 && lines_start_ytonf(s, len) &&
			null_or_bool(n, s, len))
			return true;
		set_string(n, s, len, K_STR);
		return true;
	}
	if (match_time(s, len) || match_date(s, len))
		return false;
	if (ci_eq(s, len, ".inf") || ci_eq(s, len, "+.inf"))
	{
		set_float(n, get_float8_infinity());
		return true;
	}
	if (ci_eq(s, len, "-.inf"))
	{
		set_float(n, -get_float8_infinity());
		return true;
	}
	if (ci_eq(s, len, ".nan"))
	{
		set_float(n, get_float8_nan());
		return true;
	}
	if (s[0] == ':' && len > 1)
	{
		/* a Symbol (as_json is its name): ^:(["'])(.*)\1 takes the quoted part */
		const char *name = s + 1;
		size_t		namelen = len - 1;

		if (s[1] == '"' || s[1] == '\'')
		{
			for (size_t j = len; j > 2; j--)
				if (s[j - 1] == s[1])
				{
					name = s + 2;
					namelen = j - 3;
					/* then $2.sub(/^:/, '') */
					if (namelen > 0 && name[0] == ':')
						name++, namelen--;
					break;
				}
		}
		set_string(n, name, namelen, K_SYM);
		return true;
	}
	if (sexagesimal(n, s, len, &refused))
		return !refused;
	if (float_form(n, s, len, &refused))
		return !refused;
	if (integer_form(n, s, len, &refused))
		return !refused;
	set_string(n, s, len, K_STR);
	return true;
}

typedef struct YParse
{
	List	   *stack;			/* open containers */
	List	   *anchors;
	YNode	   *root;
	int64		assigned;		/* Hash pairs assigned, merges included */
	int64		max_assigned;
} YParse;

static YNode *
find_anchor(YParse *p, const char *name)
{
	ListCell   *lc;
	YNode	   *found = NULL;

	/* a later anchor of the same name replaces an earlier one */
	foreach(lc, p->anchors)
	{
		YAnchor    *a = lfirst(lc);

		if (strcmp(a->name, name) == 0)
			found = a->node;
	}
	return found;
}

static void
add_anchor(YParse *p, const yaml_char_t *name, YNode *n)
{
	YAnchor    *a;

	if (name == NULL)
		return;
	a = palloc(sizeof(YAnchor));
	a->name = pstrdup((const char *) name);
	a->node = n;
	p->anchors = lappend(p->anchors, a);
}

/* Add a finished node to the open container (or make it the root). */
static bool
add_node(YParse *p, YNode *n, bool alias)
{
	YNode	   *parent;

	if (p->stack == NIL)
	{
		if (p->root != NULL)
			return false;
		p->root = n;
		return true;
	}
	parent = llast(p->stack);
	if (parent->kind == Y_MAP)
	{
		/* a key must be a scalar, whose to_s is known */
		if (list_length(parent->items) % 2 == 0 && n->kind != Y_SCALAR)
			return false;
		if (list_length(parent->items) % 2 == 1)
			parent->aliased = lappend_int(parent->aliased, alias);
	}
	parent->items = lappend(parent->items, n);
	return true;
}

static bool
is_merge_key(const YNode *k)
{
	return k->kind == Y_SCALAR && k->rclass == K_STR && k->keylen == 2 &&
		memcmp(k->keytext, "<<", 2) == 0;
}

/* An alias to the open mapping it is the "<<" value of */
static bool
self_merge(YParse *p, YNode *n)
{
	return p->stack != NIL && llast(p->stack) == n && n->kind == Y_MAP &&
		list_length(n->items) % 2 == 1 && is_merge_key(llast(n->items));
}

/* One Hash assignment, hash[key] = value, in order */
typedef struct YPair
{
	YNode	   *key;
	YNode	   *value;
	int			order;
	int			first;			/* after grouping: where the key was first set */
} YPair;

typedef struct YPairs
{
	YPair	   *pairs;
	int			n;
	int			cap;
	bool		hwia;
} YPairs;

static bool
assign(YParse *p, YPairs *ps, YNode *key, YNode *value)
{
	if (++p->assigned > p->max_assigned)
		return false;
	if (ps->n == ps->cap)
	{
		ps->cap = ps->cap * 2 + 8;
		ps->pairs = ps->pairs ? repalloc(ps->pairs, ps->cap * sizeof(YPair)) :
			palloc(ps->cap * sizeof(YPair));
	}
	ps->pairs[ps->n].key = key;
	ps->pairs[ps->n].value = value;
	ps->pairs[ps->n].order = ps->n;
	ps->n++;
	return true;
}

/* Every pair of a finished Hash, as merge! assigns them */
static bool
assign_all(YParse *p, YPairs *ps, YNode *map)
{
	ListCell   *lc;

	for (lc = list_head(map->items); lc != NULL; lc = lnext(map->items, lnext(map->items, lc)))
		if (!assign(p, ps, lfirst(lc), lfirst(lnext(map->items, lc))))
			return false;
	return true;
}

static int
key_class(const YNode *k, bool hwia)
{
	/* HashWithIndifferentAccess stores a Symbol key as its String */
	return hwia && k->rclass == K_SYM ? K_STR : k->rclass;
}

/* Hash key order: eql? keys compare equal */
static int
key_cmp(const YNode *a, const YNode *b, bool hwia)
{
	int			ca = key_class(a, hwia);
	int			cb = key_class(b, hwia);

	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == K_NIL || ca == K_FALSE || ca == K_TRUE)
		return 0;
	if (a->identlen != b->identlen)
		return a->identlen < b->identlen ? -1 : 1;
	return memcmp(a->ident, b->ident, a->identlen);
}

/* by key, then in assignment order */
static int
pair_cmp(const void *a, const void *b, void *arg)
{
	const YPair *pa = a;
	const YPair *pb = b;
	int			c = key_cmp(pa->key, pb->key, *(bool *) arg);

	if (c != 0)
		return c;
	return pa->order < pb->order ? -1 : pa->order > pb->order;
}

static int
first_cmp(const void *a, const void *b)
{
	const YPair *pa = a;
	const YPair *pb = b;

	return pa->first < pb->first ? -1 : pa->first > pb->first;
}

/*
 * The Hash the assignments leave: one entry per key, the first pair
 * giving its key object and place, the last its value.
 */
static void
group_pairs(YPairs *ps)
{
	int			out = 0;

	if (ps->n < 2)
		return;
	qsort_arg(ps->pairs, ps->n, sizeof(YPair), pair_cmp, &ps->hwia);
	for (int i = 0; i < ps->n; i++)
	{
		if (out > 0 && key_cmp(ps->pairs[out - 1].key, ps->pairs[i].key, ps->hwia) == 0)
		{
			ps->pairs[out - 1].value = ps->pairs[i].value;
			continue;
		}
		ps->pairs[out] = ps->pairs[i];
		ps->pairs[out].first = ps->pairs[i].order;
		out++;
	}
	ps->n = out;
	qsort(ps->pairs, ps->n, sizeof(YPair), first_cmp);
}

/*
 * A finished mapping as Psych's revive_hash builds its Hash: pairs in
 * order, a "<<" key (a String, quoted or not) merging a mapping or an
 * alias to one, or each mapping of a sequence (later ones first, so the
 * first wins); any other "<<" value is an ordinary pair, as merge!'s
 * TypeError leaves it.  Then one entry per eql? key: first key, first
 * place, last value.  items becomes the entries.
 */
static bool
resolve_map(YParse *p, YNode *map)
{
	YPairs		ps = {NULL, 0, 0, map->hwia};
	ListCell   *lc;
	int			i = 0;

	for (lc = list_head(map->items); lc != NULL; lc = lnext(map->items, lnext(map->items, lc)), i++)
	{
		YNode	   *k = lfirst(lc);
		YNode	   *v = lfirst(lnext(map->items, lc));
		bool		via_alias = list_nth_int(map->aliased, i);

		if (is_merge_key(k))
		{
			if (v == map)
				continue;
			if (v->kind == Y_MAP)
			{
				if (!assign_all(p, &ps, v))
					return false;
				continue;
			}
			if (v->kind == Y_SEQ && !via_alias)
			{
				ListCell   *e;
				bool		all_maps = true;

				foreach(e, v->items)
					all_maps &= ((YNode *) lfirst(e))->kind == Y_MAP;
				if (all_maps)
				{
					/* h = {}; later mappings first into h; then merge! h */
					YPairs		h = {NULL, 0, 0, false};

					for (int j = list_length(v->items) - 1; j >= 0; j--)
						if (!assign_all(p, &h, list_nth(v->items, j)))
							return false;
					group_pairs(&h);
					for (int j = 0; j < h.n; j++)
						if (!assign(p, &ps, h.pairs[j].key, h.pairs[j].value))
							return false;
					continue;
				}
			}
			/* HashWithIndifferentAccess#update calls to_hash: NoMethodError */
			else if (map->hwia && via_alias)
				return false;
		}
		if (!assign(p, &ps, k, v))
			return false;
	}

	group_pairs(&ps);
	map->items = NIL;
	for (i = 0; i < ps.n; i++)
	{
		YNode	   *k = ps.pairs[i].key;

		if (map->hwia && k->rclass == K_SYM)
		{
			/* the key is now a String, wherever this Hash is merged */
			YNode	   *copy = palloc(sizeof(YNode));

			*copy = *k;
			copy->rclass = K_STR;
			k = copy;
		}
		map->items = lappend(lappend(map->items, k), ps.pairs[i].value);
	}
	list_free(map->aliased);
	map->aliased = NIL;
	return true;
}

/*
 * The first document as a tree of nodes; NULL if Psych's reading is not
 * reproduced.  Psych.safe_load stops at the end of the first document:
 * so does this, and what follows is not even parsed.
 */
static YNode *
parse(const char *s, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t event;
	YParse		p = {NIL, NIL, NULL, 0, YAML_MAX_NODES(len)};
	volatile bool ok = true;
	bool		done = false;
	volatile bool have_event = false;

	if (!yaml_parser_initialize(&parser))
		return NULL;
	yaml_parser_set_input_string(&parser, (const unsigned char *) s, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);

	/*
	 * libyaml allocates with malloc: an error or a cancel raised in here
	 * (palloc, CHECK_FOR_INTERRUPTS) must not leave its memory behind.
	 */
	PG_TRY();
	{
		while (ok && !done)
		{
			YNode	   *n = NULL;

			CHECK_FOR_INTERRUPTS();
			if (!yaml_parser_parse(&parser, &event))
			{
				ok = false;
				break;
			}
			have_event = true;
			switch (event.type)
			{
				case YAML_STREAM_END_EVENT:
				case YAML_DOCUMENT_END_EVENT:
					done = true;
					break;
				case YAML_SCALAR_EVENT:
					n = palloc0(sizeof(YNode));
					n->kind = Y_SCALAR;
					n->done = true;
					if (event.data.scalar.tag != NULL)
						ok = false;
					else if (event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
						ok = tokenize(n, (const char *) event.data.scalar.value,
									  event.data.scalar.length);
					else
						set_string(n, (const char *) event.data.scalar.value,
								   event.data.scalar.length, K_STR);
					if (ok)
					{
						add_anchor(&p, event.data.scalar.anchor, n);
						ok = add_node(&p, n, false);
					}
					break;
				case YAML_SEQUENCE_START_EVENT:
				case YAML_MAPPING_START_EVENT:
					{
						yaml_char_t *tag = event.type == YAML_SEQUENCE_START_EVENT ?
						event.data.sequence_start.tag : event.data.mapping_start.tag;
						yaml_char_t *anchor = event.type == YAML_SEQUENCE_START_EVENT ?
						event.data.sequence_start.anchor : event.data.mapping_start.anchor;

						n = palloc0(sizeof(YNode));
						n->kind = event.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP;
						/* a HashWithIndifferentAccess, if the app permits it, is its Hash */
						if (tag != NULL)
						{
							if (n->kind == Y_MAP &&
								strcmp((const char *) tag, "!ruby/hash:ActiveSupport::HashWithIndifferentAccess") == 0)
								n->hwia = true;
							else
								ok = false;
						}
						/* as deep as rbmarshal.max_depth allows a Marshal value */
						if (list_length(p.stack) >= rbmarshal_max_depth)
							ok = false;
						if (ok)
						{
							add_anchor(&p, anchor, n);
							ok = add_node(&p, n, false);
							p.stack = lappend(p.stack, n);
						}
						break;
					}
				case YAML_SEQUENCE_END_EVENT:
				case YAML_MAPPING_END_EVENT:
					n = llast(p.stack);
					if (n->kind == Y_MAP)
						ok = resolve_map(&p, n);
					n->done = true;
					p.stack = list_delete_last(p.stack);
					break;
				case YAML_ALIAS_EVENT:
					n = find_anchor(&p, (const char *) event.data.alias.anchor);
					/*
					 * Unknown, or an alias inside its own anchor (a cycle);
					 * but "<<: *self" merges the Hash into itself: nothing.
					 */
					ok = n != NULL && (n->done || self_merge(&p, n)) &&
						add_node(&p, n, true);
					break;
				default:
					break;
			}
			yaml_event_delete(&event);
			have_event = false;
		}
	}
	PG_FINALLY();
	{
		if (have_event)
			yaml_event_delete(&event);
		yaml_parser_delete(&parser);
	}
	PG_END_TRY();
	return ok ? p.root : NULL;
}

/* Push the tree into state; false past the node budget. */
static bool
push_node(JsonbParseState **state, YNode *n, bool elem, int64 *budget,
		  JsonbValue **result)
{
	ListCell   *lc;
	bool		key = true;

	if (--*budget < 0)
		return false;
	check_stack_depth();
	if (n->kind == Y_SCALAR)
	{
		if (*state == NULL)
			*result = &n->value;
		else
			(void) pushJsonbValue(state, elem ? WJB_ELEM : WJB_VALUE, &n->value);
		return true;
	}
	(void) pushJsonbValue(state, n->kind == Y_MAP ? WJB_BEGIN_OBJECT : WJB_BEGIN_ARRAY, NULL);
	foreach(lc, n->items)
	{
		YNode	   *c = lfirst(lc);

		if (n->kind == Y_MAP && key)
		{
			JsonbValue	k;

			k.type = jbvString;
			k.val.string.val = c->keytext;
			k.val.string.len = c->keylen;
			(void) pushJsonbValue(state, WJB_KEY, &k);
		}
		else if (!push_node(state, c, n->kind == Y_SEQ, budget, result))
			return false;
		key = !key;
	}
	*result = pushJsonbValue(state, n->kind == Y_MAP ? WJB_END_OBJECT : WJB_END_ARRAY, NULL);
	return true;
}

/*
 * The value YAMLColumn#load gives for this text, as jsonb; NULL when the
 * text is not YAML Psych would load the same way here.
 */
Jsonb *
rbmarshal_yaml_to_jsonb(const char *s, size_t len)
{
	YNode	   *root = parse(s, len);
	JsonbParseState *state = NULL;
	JsonbValue *result = NULL;
	int64		budget = YAML_MAX_NODES(len);

	if (root == NULL || !push_node(&state, root, false, &budget, &result))
		return NULL;
	return JsonbValueToJsonb(result);
}
