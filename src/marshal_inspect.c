/*
 * marshal_inspect.c
 *		The value as current Ruby (4.0) shows it with inspect.
 *
 * {"a" => 1, b: [:c, 2.5, nil]}, Set[1, 2], #<struct Point x=1, y=2>,
 * #<Money @cents=500> (objects without their address), and "[...]" where a
 * value contains itself.  A walk over the cursor like the JSON view's; the
 * text is UTF-8, with strings escaped as String#inspect escapes them.
 */
#include "marshal_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Out
{
	const MarshalDoc *doc;
	const MarshalHooks *hooks;
	MarshalError *err;
	char	   *buf;
	size_t		len;
	size_t		cap;
	size_t		limit;			/* output budget in bytes */
	uint32_t	depth;
	uint32_t	max_depth;
	size_t		active[256];	/* containers being shown (recursion) */
	uint32_t	nactive;
	uint32_t	steps;
} Out;

#define TRY(expr) \
	do { MarshalStatus s_ = (expr); if (s_ != MARSHAL_OK) return s_; } while (0)

static MarshalStatus show(Out *o, size_t pos);

static MarshalStatus
fail(Out *o, MarshalStatus st, size_t offset, const char *what)
{
	o->err->status = st;
	o->err->offset = offset;
	snprintf(o->err->detail, sizeof(o->err->detail), "%s", what);
	return st;
}

static void *
o_alloc(Out *o, size_t size)
{
	return o->hooks && o->hooks->alloc ? o->hooks->alloc(o->hooks->ctx, size) : malloc(size);
}

static void
o_free(Out *o, void *p)
{
	if (p == NULL)
		return;
	if (o->hooks && o->hooks->free)
		o->hooks->free(o->hooks->ctx, p);
	else
		free(p);
}

static MarshalStatus
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
		if (o->buf == NULL)
			b = o_alloc(o, cap);
		else
			b = o->hooks && o->hooks->realloc ? o->hooks->realloc(o->hooks->ctx, o->buf, cap)
				: realloc(o->buf, cap);
		if (b == NULL)
			return fail(o, MARSHAL_ERR_NOMEM, 0, "out of memory");
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	return MARSHAL_OK;
}

/* Bytes that should be text (names, sources): invalid bytes as \xNN. */
static MarshalStatus
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

static MarshalStatus
puts_(Out *o, const char *s)
{
	return put(o, s, strlen(s));
}

static MarshalStatus
putf(Out *o, const char *fmt,...) __attribute__((format(printf, 2, 3)));

static MarshalStatus
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

/* Code points String#inspect escapes in a Unicode string (not printable). */
static bool
unicode_unprintable(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xAD ||
		(cp >= 0x600 && cp <= 0x605) || cp == 0x61C || cp == 0x6DD ||
		cp == 0x70F || cp == 0x180E || (cp >= 0x200B && cp <= 0x200F) ||
		(cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) ||
		cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
		(cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000;
}

/* The escape String#inspect writes for a special character, or NULL. */
static const char *
special_escape(uint32_t c)
{
	switch (c)
	{
		case '"':
			return "\\\"";
		case '\\':
			return "\\\\";
		case '\n':
			return "\\n";
		case '\r':
			return "\\r";
		case '\t':
			return "\\t";
		case '\f':
			return "\\f";
		case '\v':
			return "\\v";
		case '\b':
			return "\\b";
		case 7:
			return "\\a";
		case 27:
			return "\\e";
		default:
			return NULL;
	}
}

/*
 * String#inspect of bytes in an encoding: UTF-8 (and US-ASCII) shows
 * printable characters and escapes the rest as \uXXXX; binary shows ASCII
 * and \xNN for other bytes; invalid bytes are \xNN everywhere.
 */
static MarshalStatus
show_string_body(Out *o, const uint8_t *s, size_t n, bool unicode)
{
	size_t		i = 0;

	TRY(put(o, "\"", 1));
	while (i < n)
	{
		uint8_t		c = s[i];
		const char *esc;

		if (c == '#' && i + 1 < n && (s[i + 1] == '{' || s[i + 1] == '$' || s[i + 1] == '@'))
		{
			TRY(put(o, "\\#", 2));
			i++;
			continue;
		}
		if (c < 0x80)
		{
			if ((esc = special_escape(c)) != NULL)
				TRY(puts_(o, esc));
			else if (c < 0x20 || c == 0x7F)
				TRY(unicode ? putf(o, "\\u%04X", c) : putf(o, "\\x%02X", c));
			else
				TRY(put(o, &c, 1));
			i++;
			continue;
		}
		if (unicode)
		{
			/* one UTF-8 character, or an invalid byte */
			size_t		len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;

			if (len <= n - i && marshal_utf8_valid(s + i, len, false))
			{
				uint32_t	cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);

				for (size_t k = 1; k < len; k++)
					cp = cp << 6 | (s[i + k] & 0x3F);
				if (unicode_unprintable(cp))
					TRY(cp > 0xFFFF ? putf(o, "\\u{%X}", cp) : putf(o, "\\u%04X", cp));
				else
					TRY(put(o, s + i, len));
				i += len;
				continue;
			}
		}
		TRY(putf(o, "\\x%02X", c));
		i++;
	}
	return put(o, "\"", 1);
}

static MarshalStatus
show_string(Out *o, const MarshalNode *n)
{
	/* other encodings: shown as bytes, as Ruby shows a non-Unicode string */
	return show_string_body(o, n->data.ptr, n->data.len,
							n->encoding == MENC_UTF8 || n->encoding == MENC_USASCII);
}

static bool
ident_start(uint8_t c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool
ident_char(uint8_t c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/*
 * Is this symbol written bare (:name, and name: as a key)?  Identifiers
 * with an optional ? ! or = (=: only as :name=), @ivars, @@cvars, $globals
 * and operator names.
 */
static bool
symbol_is_plain(const uint8_t *s, size_t n, bool as_key)
{
	static const char *const operators[] = {
		"[]=", "[]", "<=>", "===", "==", "=~", "!=", "!~", "**", "+@", "-@",
		"<<", ">>", "<=", ">=", "+", "-", "*", "/", "%", "<", ">", "!", "&",
		"|", "^", "~", "`"
	};
	size_t		i = 0;

	if (n == 0 || !marshal_utf8_valid(s, n, false))
		return false;
	if (!as_key)
		for (size_t k = 0; k < sizeof(operators) / sizeof(operators[0]); k++)
			if (strlen(operators[k]) == n && memcmp(operators[k], s, n) == 0)
				return true;
	if (!as_key)
	{
		if (n >= 2 && s[0] == '@' && s[1] == '@')
			i = 2;
		else if (s[0] == '@' || s[0] == '$')
			i = 1;
	}
	if (i >= n || !ident_start(s[i]))
		return false;
	for (i++; i < n; i++)
		if (!ident_char(s[i]))
			break;
	if (i == n)
		return true;
	/* a trailing ? or ! (or = for a setter, not as a key) */
	return i == n - 1 && (s[i] == '?' || s[i] == '!' || (s[i] == '=' && !as_key && s[0] != '@' && s[0] != '$'));
}

static MarshalStatus
show_symbol(Out *o, const MarshalNode *n)
{
	TRY(put(o, ":", 1));
	if (symbol_is_plain(n->data.ptr, n->data.len, false))
		return put_text(o, n->data.ptr, n->data.len);
	return show_string_body(o, n->data.ptr, n->data.len, n->encoding != MENC_BINARY ||
							marshal_utf8_valid(n->data.ptr, n->data.len, true));
}

static MarshalStatus
show_float_value(Out *o, double d)
{
	char		buf[40];

	return put(o, buf, marshal_format_float(d, buf));
}

static MarshalStatus
show_bignum(Out *o, const MarshalNode *n)
{
	size_t		size = n->data.len * 3 + 3;
	char	   *digits = o_alloc(o, size);
	uint32_t   *limbs = o_alloc(o, (n->data.len + 3) / 4 * sizeof(uint32_t) + 4);
	size_t		len;
	MarshalStatus st = MARSHAL_ERR_NOMEM;

	if (digits && limbs)
	{
		marshal_bignum_decimal(n->data.ptr, n->data.len, n->negative, digits, size,
							   &len, limbs);
		st = put(o, digits, len);
	}
	o_free(o, digits);
	o_free(o, limbs);
	return st == MARSHAL_ERR_NOMEM ? fail(o, st, n->pos, "out of memory") : st;
}

/* Regexp#inspect: /source/ (unescaped / escaped) with the flags Ruby shows. */
static MarshalStatus
show_regexp(Out *o, const MarshalNode *n)
{
	bool		escaped = false;
	size_t		from = 0;

	TRY(put(o, "/", 1));
	for (size_t i = 0; i < n->data.len; i++)
	{
		uint8_t		c = n->data.ptr[i];

		if (c == '/' && !escaped)
		{
			TRY(put_text(o, n->data.ptr + from, i - from));
			TRY(put(o, "\\", 1));
			from = i;
		}
		escaped = c == '\\' && !escaped;
	}
	TRY(put_text(o, n->data.ptr + from, n->data.len - from));
	TRY(put(o, "/", 1));
	if (n->regexp_options & 4)
		TRY(put(o, "m", 1));
	if (n->regexp_options & 1)
		TRY(put(o, "i", 1));
	if (n->regexp_options & 2)
		TRY(put(o, "x", 1));
	if (n->regexp_options & 32)
		TRY(put(o, "n", 1));
	return MARSHAL_OK;
}

/* #<Date: 2024-03-05 ((2460375j,0s,0n),+0s,2299161j)> and DateTime's. */
static MarshalStatus
show_date(Out *o, const MarshalNode *n, bool datetime)
{
	MarshalNode arr;
	MarshalNode f[6];
	size_t		p;
	int64_t		jd;
	int64_t		df;
	int64_t		of;
	int64_t		y;
	int			m;
	int			d;
	double		sg = 2299161.0;
	char		buf[160];
	size_t		len;

	TRY(marshal_node(o->doc, n->items, &arr, o->err));
	if (arr.type != MT_ARRAY || arr.count != 6)
		return puts_(o, datetime ? "#<DateTime>" : "#<Date>");
	p = arr.items;
	for (int i = 0; i < 6; i++)
	{
		TRY(marshal_node(o->doc, p, &f[i], o->err));
		TRY(marshal_skip(o->doc, p, &p, o->err));
	}
	if (f[0].type != MT_FIXNUM || f[0].ival != 0 || f[1].type != MT_FIXNUM ||
		f[2].type != MT_FIXNUM || f[3].type != MT_FIXNUM || f[4].type != MT_FIXNUM)
		return puts_(o, datetime ? "#<DateTime>" : "#<Date>");
	jd = f[1].ival;
	df = f[2].ival;
	of = f[4].ival;
	if (f[5].type == MT_FLOAT)
		(void) marshal_parse_float(f[5].data.ptr, f[5].data.len, &sg);
	{
		/* the local civil date (DateTime: shifted by the offset) */
		int64_t		local = df + (datetime ? of : 0);
		int64_t		ljd = jd + (local >= 0 ? local / 86400 : -((-local + 86399) / 86400));

		local -= (ljd - jd) * 86400;
		if ((double) ljd < sg)
			marshal_julian_from_jd(ljd, &y, &m, &d);
		else
			marshal_civil_from_days(ljd - 2440588, &y, &m, &d);
		len = (size_t) snprintf(buf, sizeof(buf), "#<%s: ", datetime ? "DateTime" : "Date");
		len += marshal_format_year(y, buf + len);
		len += (size_t) snprintf(buf + len, sizeof(buf) - len, "-%02d-%02d", m, d);
		if (datetime)
		{
			int64_t		a = of < 0 ? -of : of;

			len += (size_t) snprintf(buf + len, sizeof(buf) - len, "T%02d:%02d:%02d%c%02lld:%02lld",
									 (int) (local / 3600), (int) (local / 60 % 60),
									 (int) (local % 60), of < 0 ? '-' : '+',
									 (long long) (a / 3600), (long long) (a / 60 % 60));
		}
	}
	TRY(put(o, buf, len));
	TRY(putf(o, " ((%lldj,%llds,%lldn),%+llds,", (long long) jd, (long long) df,
			 (long long) f[3].ival, (long long) of));
	if (isinf(sg))
		TRY(puts_(o, sg < 0 ? "-Infj" : "Infj"));
	else
		TRY(putf(o, "%.0fj", sg));
	return puts_(o, ")>");
}

/* Entries of a container, separated by ", ". */
static MarshalStatus
show_entries(Out *o, const MarshalView *view, bool hash_style, bool ivars,
			 bool members)
{
	MarshalViewIter it;
	MarshalEntry e;
	bool		done;
	bool		first = true;

	marshal_view_iter(view, &it);
	for (;;)
	{
		TRY(marshal_view_next(o->doc, &it, &e, &done, o->err));
		if (done)
			return MARSHAL_OK;
		if (!first)
			TRY(put(o, ", ", 2));
		first = false;
		if (hash_style)
		{
			MarshalNode k;

			TRY(marshal_node(o->doc, e.key, &k, o->err));
			if (k.type == MT_SYMBOL && symbol_is_plain(k.data.ptr, k.data.len, true))
			{
				TRY(put_text(o, k.data.ptr, k.data.len));
				TRY(put(o, ": ", 2));
			}
			else if (k.type == MT_SYMBOL)
			{
				TRY(show_string_body(o, k.data.ptr, k.data.len, true));
				TRY(put(o, ": ", 2));
			}
			else
			{
				TRY(show(o, e.key));
				TRY(put(o, " => ", 4));
			}
		}
		else if (ivars || members)
		{
			/* @name=value (the view strips the @) or member=value */
			if (ivars)
				TRY(put(o, "@", 1));
			TRY(put_text(o, e.name.ptr, e.name.len));
			TRY(put(o, "=", 1));
		}
		TRY(show(o, e.value));
	}
}

/* Time#inspect: "2024-03-05 14:07:09.123456789 UTC" or "... -0400". */
static MarshalStatus
show_time(Out *o, size_t pos)
{
	MarshalInstant t;
	MarshalTimeParts parts;
	bool		ok;
	char		buf[96];
	size_t		len;

	TRY(marshal_time_parts(o->doc, pos, &t, &parts, &ok, o->err));
	if (!ok)
		return puts_(o, "#<Time>");
	len = marshal_format_year(parts.year, buf);
	len += (size_t) snprintf(buf + len, sizeof(buf) - len, "-%02d-%02d %02d:%02d:%02d",
							 parts.month, parts.day, parts.hour, parts.minute, parts.second);
	if (t.nsec)
	{
		/* the fraction without trailing zeros */
		char		frac[16];
		int			k;

		snprintf(frac, sizeof(frac), "%09lld", (long long) t.nsec);
		for (k = 8; k > 0 && frac[k] == '0'; k--)
			frac[k] = '\0';
		len += (size_t) snprintf(buf + len, sizeof(buf) - len, ".%s", frac);
	}
	if (parts.utc)
		len += (size_t) snprintf(buf + len, sizeof(buf) - len, " UTC");
	else
	{
		int64_t		a = parts.offset < 0 ? -parts.offset : parts.offset;

		len += (size_t) snprintf(buf + len, sizeof(buf) - len, " %c%02lld%02lld",
								 parts.offset < 0 ? '-' : '+',
								 (long long) (a / 3600), (long long) (a / 60 % 60));
	}
	return put(o, buf, len);
}

/* Objects and U classes that Ruby shows in a form of their own. */
static MarshalStatus
show_special(Out *o, const MarshalView *view, bool *handled)
{
	const MarshalNode *n = &view->node;
	size_t		v;

	*handled = true;
	if (n->type == MT_USERDEF && marshal_bytes_eq(n->cls, "Time"))
		return show_time(o, n->pos);
	if (n->type == MT_USERDEF && marshal_bytes_eq(n->cls, "BigDecimal"))
	{
		const uint8_t *colon = memchr(n->data.ptr, ':', n->data.len);

		if (colon)
			return put_text(o, colon + 1, n->data.len - (size_t) (colon + 1 - n->data.ptr));
	}
	if (n->type == MT_USRMARSHAL && marshal_bytes_eq(n->cls, "Date"))
		return show_date(o, n, false);
	if (n->type == MT_USRMARSHAL && marshal_bytes_eq(n->cls, "DateTime"))
		return show_date(o, n, true);
	if (n->type == MT_USRMARSHAL && marshal_bytes_eq(n->cls, "OpenStruct"))
	{
		/* #<OpenStruct a=1, b="x">: its table's symbol keys as names */
		MarshalView t;
		MarshalViewIter it;
		MarshalEntry e;
		bool		done;
		bool		first = true;

		TRY(marshal_view(o->doc, n->items, &t, o->err));
		if (t.kind == MV_HASH)
		{
			TRY(puts_(o, "#<OpenStruct"));
			marshal_view_iter(&t, &it);
			for (;;)
			{
				MarshalNode k;

				TRY(marshal_view_next(o->doc, &it, &e, &done, o->err));
				if (done)
					break;
				TRY(marshal_node(o->doc, e.key, &k, o->err));
				TRY(put(o, first ? " " : ", ", first ? 1 : 2));
				first = false;
				TRY(put_text(o, k.data.ptr, k.data.len));
				TRY(put(o, "=", 1));
				TRY(show(o, e.value));
			}
			return put(o, ">", 1);
		}
	}
	if (n->type == MT_USRMARSHAL &&
		(marshal_bytes_eq(n->cls, "Rational") || marshal_bytes_eq(n->cls, "Complex")))
	{
		/* (3/4) and (1+2i) */
		MarshalNode arr;
		size_t		p;
		bool		complex = marshal_bytes_eq(n->cls, "Complex");

		TRY(marshal_node(o->doc, n->items, &arr, o->err));
		if (arr.type == MT_ARRAY && arr.count == 2)
		{
			MarshalNode b;

			p = arr.items;
			TRY(put(o, "(", 1));
			TRY(show(o, p));
			TRY(marshal_skip(o->doc, p, &p, o->err));
			TRY(marshal_node(o->doc, p, &b, o->err));
			if (!complex)
				TRY(put(o, "/", 1));
			else if (!(b.type == MT_FIXNUM && b.ival < 0) && !(b.type == MT_BIGNUM && b.negative))
				TRY(put(o, "+", 1));
			TRY(show(o, p));
			if (complex)
				TRY(put(o, "i", 1));
			return put(o, ")", 1);
		}
	}
	if (n->type == MT_OBJECT && marshal_bytes_eq(n->cls, "Range"))
	{
		size_t		b;
		size_t		e;
		size_t		x;
		MarshalNode excl;
		MarshalNode bn;
		MarshalNode en;

		TRY(marshal_find_ivar(o->doc, n->items, n->count, "begin", &b, o->err));
		TRY(marshal_find_ivar(o->doc, n->items, n->count, "end", &e, o->err));
		TRY(marshal_find_ivar(o->doc, n->items, n->count, "excl", &x, o->err));
		if (b && e && x)
		{
			TRY(marshal_node(o->doc, x, &excl, o->err));
			TRY(marshal_node(o->doc, b, &bn, o->err));
			TRY(marshal_node(o->doc, e, &en, o->err));
			/* nil..nil shows as nil..nil; a missing end is left out */
			if (bn.type != MT_NIL || en.type == MT_NIL)
				TRY(show(o, b));
			TRY(puts_(o, excl.type == MT_TRUE ? "..." : ".."));
			if (en.type != MT_NIL || bn.type == MT_NIL)
				TRY(show(o, e));
			return MARSHAL_OK;
		}
	}
	if (n->type == MT_OBJECT &&
		marshal_find_ivar(o->doc, n->items, n->count, "mesg", &v, o->err) == MARSHAL_OK && v)
	{
		/* #<RuntimeError: boom> */
		MarshalNode m;

		TRY(marshal_node(o->doc, v, &m, o->err));
		TRY(puts_(o, "#<"));
		TRY(put_text(o, n->cls.ptr, n->cls.len));
		if (m.type == MT_STRING)
		{
			TRY(put(o, ": ", 2));
			TRY(put_text(o, m.data.ptr, m.data.len));
		}
		return put(o, ">", 1);
	}
	*handled = false;
	return MARSHAL_OK;
}

static bool
on_stack(Out *o, size_t pos)
{
	for (uint32_t i = 0; i < o->nactive; i++)
		if (o->active[i] == pos)
			return true;
	return false;
}

static MarshalStatus
show_container(Out *o, size_t pos)
{
	MarshalView view;
	const MarshalNode *n;
	bool		handled;
	MarshalStatus st = MARSHAL_OK;

	/* the value as written (a U OpenStruct, not the Hash its view is) */
	memset(&view, 0, sizeof(view));
	TRY(marshal_node(o->doc, pos, &view.node, o->err));
	TRY(show_special(o, &view, &handled));
	if (handled)
		return MARSHAL_OK;
	TRY(marshal_view(o->doc, pos, &view, o->err));
	if (view.kind == MV_RECORD)
		view.kind = MV_IVARS;	/* Ruby shows the object, not its attributes */
	n = &view.node;
	if (on_stack(o, n->pos))
	{
		/* recursion, as Ruby shows it */
		switch (view.kind)
		{
			case MV_ARRAY:
				return puts_(o, "[...]");
			case MV_HASH:
				return puts_(o, "{...}");
			case MV_SET:
				return puts_(o, "Set[...]");
			case MV_STRUCT:
				TRY(puts_(o, "#<struct "));
				TRY(put_text(o, n->cls.ptr, n->cls.len));
				return puts_(o, ":...>");
			default:
				TRY(puts_(o, "#<"));
				TRY(put_text(o, n->cls.ptr, n->cls.len));
				return puts_(o, " ...>");
		}
	}
	if (o->nactive >= sizeof(o->active) / sizeof(o->active[0]) || ++o->depth > o->max_depth)
		return fail(o, MARSHAL_ERR_DEPTH, pos, "nesting too deep to inspect");
	if (o->hooks && o->hooks->check_stack)
		o->hooks->check_stack(o->hooks->ctx);
	o->active[o->nactive++] = n->pos;
	switch (view.kind)
	{
		case MV_ARRAY:
			st = put(o, "[", 1);
			if (st == MARSHAL_OK)
				st = show_entries(o, &view, false, false, false);
			if (st == MARSHAL_OK)
				st = put(o, "]", 1);
			break;
		case MV_SET:
			st = puts_(o, "Set[");
			if (st == MARSHAL_OK)
				st = show_entries(o, &view, false, false, false);
			if (st == MARSHAL_OK)
				st = put(o, "]", 1);
			break;
		case MV_HASH:
			st = put(o, "{", 1);
			if (st == MARSHAL_OK)
				st = show_entries(o, &view, true, false, false);
			if (st == MARSHAL_OK)
				st = put(o, "}", 1);
			break;
		case MV_STRUCT:
			st = puts_(o, "#<struct ");
			if (st == MARSHAL_OK)
				st = put_text(o, n->cls.ptr, n->cls.len);
			if (st == MARSHAL_OK && view.count > 0)
				st = put(o, " ", 1);
			if (st == MARSHAL_OK)
				st = show_entries(o, &view, false, false, true);
			if (st == MARSHAL_OK)
				st = put(o, ">", 1);
			break;
		case MV_IVARS:
			{
				/* #<Money @cents=500> (without Ruby's address) */
				bool		any = false;
				MarshalViewIter it;
				MarshalEntry e;
				bool		done;

				if (n->type == MT_USRMARSHAL)
				{
					/* an unknown marshal_dump class: its data */
					st = puts_(o, "#<");
					if (st == MARSHAL_OK)
						st = put_text(o, n->cls.ptr, n->cls.len);
					break;
				}
				marshal_view_iter(&view, &it);
				st = marshal_view_next(o->doc, &it, &e, &done, o->err);
				any = st == MARSHAL_OK && !done;
				if (st == MARSHAL_OK)
					st = puts_(o, "#<");
				if (st == MARSHAL_OK)
					st = put_text(o, n->cls.ptr, n->cls.len);
				if (st == MARSHAL_OK && any)
					st = put(o, " ", 1);
				if (st == MARSHAL_OK)
					st = show_entries(o, &view, false, true, false);
				if (st == MARSHAL_OK)
					st = put(o, ">", 1);
				break;
			}
		default:
			{
				/* a JSON-scalar object Ruby shows by class: #<Name> */
				st = puts_(o, "#<");
				if (st == MARSHAL_OK)
					st = put_text(o, n->cls.ptr, n->cls.len);
				if (st == MARSHAL_OK)
					st = put(o, ">", 1);
				break;
			}
	}
	o->nactive--;
	o->depth--;
	return st;
}

static MarshalStatus
show(Out *o, size_t pos)
{
	MarshalNode n;

	if (++o->steps % 4096 == 0 && o->hooks && o->hooks->check_interrupts)
		o->hooks->check_interrupts(o->hooks->ctx);
	TRY(marshal_node(o->doc, pos, &n, o->err));
	switch (n.type)
	{
		case MT_NIL:
			return puts_(o, "nil");
		case MT_TRUE:
			return puts_(o, "true");
		case MT_FALSE:
			return puts_(o, "false");
		case MT_FIXNUM:
			return putf(o, "%lld", (long long) n.ival);
		case MT_BIGNUM:
			return show_bignum(o, &n);
		case MT_FLOAT:
			{
				double		d;

				if (!marshal_parse_float(n.data.ptr, n.data.len, &d))
					return fail(o, MARSHAL_ERR_FORMAT, pos, "unreadable float");
				return show_float_value(o, d);
			}
		case MT_STRING:
			return show_string(o, &n);
		case MT_SYMBOL:
			return show_symbol(o, &n);
		case MT_REGEXP:
			return show_regexp(o, &n);
		case MT_CLASS:
		case MT_MODULE:
		case MT_MODULE_OLD:
			return put_text(o, n.data.ptr, n.data.len);
		case MT_USERDEF:
			{
				MarshalView v;
				bool		handled;

				memset(&v, 0, sizeof(v));
				v.node = n;
				TRY(show_special(o, &v, &handled));
				if (handled)
					return MARSHAL_OK;
				TRY(puts_(o, "#<"));
				TRY(put_text(o, n.cls.ptr, n.cls.len));
				return put(o, ">", 1);
			}
		default:
			return show_container(o, n.pos);
	}
}

MarshalStatus
marshal_inspect(const MarshalDoc *doc, const MarshalHooks *hooks,
				uint32_t max_depth, size_t limit, char **out, size_t *outlen,
				MarshalError *err)
{
	Out			o;
	MarshalStatus st;

	memset(&o, 0, sizeof(o));
	o.doc = doc;
	o.hooks = hooks;
	o.err = err;
	o.limit = limit ? limit : 16 * doc->len + 1000000;
	o.max_depth = max_depth ? max_depth : MARSHAL_DEFAULT_MAX_DEPTH;
	err->status = MARSHAL_OK;
	st = show(&o, 2);
	if (st == MARSHAL_OK)
		st = put(&o, "", 0);
	if (st != MARSHAL_OK)
	{
		o_free(&o, o.buf);
		return st;
	}
	o.buf[o.len] = '\0';
	*out = o.buf;
	*outlen = o.len;
	return MARSHAL_OK;
}
