/*
 * marshal_inspect.c
 *		The value as current Ruby (4.0) shows it with inspect.
 *
 * {"a" => 1, b: [:c, 2.5, nil]}, Set[1, 2], #<struct Point x=1, y=2>,
 * #<Money @cents=500> (objects without their address), and "[...]" where a
 * value contains itself.  marshal_inspect_key: an Array Hash key's to_s, its
 * inspect under Ruby 3.1 and ActiveSupport (key_shown says which values).  A walk over the cursor like the JSON view's; the
 * text is UTF-8, with strings escaped as String#inspect escapes them.
 */
#include "marshal_inspect.h"
#include "marshal_to_s.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MarshalStatus show(Out *o, size_t pos);

/* strftime's %a (from the days since 1970-01-01, a Thursday) and %b */
static const char *const day_names[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
static const char *const month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
"Aug", "Sep", "Oct", "Nov", "Dec"};

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
	char	   *digits = marshal_alloc(o->walk.hooks, size);
	uint32_t   *limbs = marshal_alloc(o->walk.hooks, (n->data.len + 3) / 4 * sizeof(uint32_t) + 4);
	size_t		len;
	MarshalStatus st = MARSHAL_ERR_NOMEM;

	if (digits && limbs)
	{
		marshal_bignum_decimal(n->data.ptr, n->data.len, n->negative, digits, size,
							   &len, limbs);
		st = put(o, digits, len);
	}
	marshal_free(o->walk.hooks, digits);
	marshal_free(o->walk.hooks, limbs);
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

/*
 * #<Date: 2024-03-05 ((2460375j,0s,0n),+0s,2299161j)> and DateTime's
 * (mk_inspect): the civil date (and time), then the UTC Julian Day, the
 * seconds into it, the sub-second (an Integer of nanoseconds or a Rational,
 * as its inspect shows it), the offset and the calendar reform day.
 */
static MarshalStatus
show_date(Out *o, const MarshalNode *n, bool datetime)
{
	MarshalNode arr;
	MarshalNode f[6];
	size_t		fpos[6];
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
	bool		sf_ok;

	TRY(marshal_node(o->doc, n->items, &arr, o->walk.err));
	if (arr.type != MT_ARRAY || arr.count != 6)
		return puts_(o, datetime ? "#<DateTime>" : "#<Date>");
	p = arr.items;
	for (int i = 0; i < 6; i++)
	{
		fpos[i] = p;
		TRY(marshal_node(o->doc, p, &f[i], o->walk.err));
		TRY(marshal_skip(o->doc, p, &p, o->walk.err));
	}
	sf_ok = f[3].type == MT_FIXNUM || f[3].type == MT_BIGNUM ||
		marshal_class_is(&f[3], MC_RATIONAL);
	/* nth within bounds that keep the real Julian Day well inside int64 */
	if (f[0].type != MT_FIXNUM || f[0].ival < -(INT64_C(1) << 31) ||
		f[0].ival > (INT64_C(1) << 31) || f[1].type != MT_FIXNUM ||
		f[2].type != MT_FIXNUM || !sf_ok || f[4].type != MT_FIXNUM)
		return puts_(o, datetime ? "#<DateTime>" : "#<Date>");
	jd = f[0].ival * DATE_CM_PERIOD + f[1].ival;
	df = f[2].ival;
	of = f[4].ival;
	if (f[5].type == MT_FLOAT)
		(void) marshal_parse_float(f[5].data.ptr, f[5].data.len, &sg);
	{
		/* the local civil date (DateTime: shifted by the offset) */
		int64_t		local = df + (datetime ? of : 0);
		int64_t		ljd = jd + marshal_floor_div(local, 86400);

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
	if (o->as_key)
	{
		/*
		 * ActiveSupport's readable_inspect: "Fri, 01 Mar 2024"; DateTime's
		 * to_fs(:rfc822), "Mon, 01 Jan 2024 12:00:00 +0000"
		 */
		int64_t		local = df + (datetime ? of : 0);
		int64_t		ljd = jd + marshal_floor_div(local, 86400);
		int64_t		a = of < 0 ? -of : of;

		local -= (ljd - jd) * 86400;
		len = (size_t) snprintf(buf, sizeof(buf), "%s, %02d %s ",
								day_names[(((ljd - 2440588) % 7) + 7) % 7], d, month_names[m - 1]);
		len += marshal_format_year(y, buf + len);
		if (datetime)
			len += (size_t) snprintf(buf + len, sizeof(buf) - len, " %02d:%02d:%02d %c%02lld%02lld",
									 (int) (local / 3600), (int) (local / 60 % 60),
									 (int) (local % 60), of < 0 ? '-' : '+',
									 (long long) (a / 3600), (long long) (a / 60 % 60));
		return put(o, buf, len < sizeof(buf) ? len : sizeof(buf) - 1);
	}
	TRY(put(o, buf, len < sizeof(buf) ? len : sizeof(buf) - 1));
	TRY(putf(o, " ((%lldj,%llds,", (long long) jd, (long long) df));
	TRY(show(o, fpos[3]));
	TRY(putf(o, "n),%+llds,", (long long) of));
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
		TRY(marshal_view_next(o->doc, &it, &e, &done, o->walk.err));
		if (done)
			return MARSHAL_OK;
		if (!first)
			TRY(put(o, ", ", 2));
		first = false;
		if (hash_style)
		{
			MarshalNode k;

			TRY(marshal_node(o->doc, e.key, &k, o->walk.err));
			if (k.type == MT_SYMBOL)
			{
				/* Ruby 4.0: key: value, or "key": value where :key needs quotes */
				Charset		cs = marshal_inspect_charset(k.encoding, k.encname);

				if (marshal_inspect_symbol_plain(k.data.ptr, k.data.len, cs, true))
					TRY(put(o, k.data.ptr, k.data.len));
				else
					TRY(marshal_inspect_string_body(o, k.data.ptr, k.data.len, cs));
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

/* open, the entries (in show_entries' style), close: [1, 2], {"a" => 1} */
static MarshalStatus
show_enclosed(Out *o, const MarshalView *view, const char *open,
			  bool hash_style, bool ivars, bool members, const char *close)
{
	TRY(puts_(o, open));
	TRY(show_entries(o, view, hash_style, ivars, members));
	return puts_(o, close);
}

/* open and the object's class name: "#<Money", "#<struct Point" */
static MarshalStatus
show_class(Out *o, const char *open, const MarshalNode *n)
{
	TRY(puts_(o, open));
	return put_text(o, n->cls.ptr, n->cls.len);
}

/* An Integer (fixnum, or a bignum that fits) at pos; *ok false otherwise. */
/*
 * The sub-second of a Time as inspect shows it when it is no whole number
 * of nanoseconds ("1/3000000", marshal_time_nano); *len 0 otherwise.
 */
static MarshalStatus
time_subsec_fraction(Out *o, size_t pos, char *frac, size_t cap, size_t *len)
{
	MarshalNode n;
	int64_t		count;
	size_t		ivars;
	size_t		vnum;
	size_t		vden;
	int64_t		usec;
	int64_t		nsec;
	bool		ok;

	*len = 0;
	TRY(marshal_node(o->doc, pos, &n, o->walk.err));
	/* the format before Ruby 1.9 has no nanoseconds */
	if (n.data.len < 8 || !n.has_ivars || !n.ivars || !(n.data.ptr[3] & 0x80))
		return MARSHAL_OK;
	usec = (int64_t) ((uint32_t) n.data.ptr[4] | (uint32_t) n.data.ptr[5] << 8 |
					  (uint32_t) (n.data.ptr[6] & 0x0f) << 16);
	TRY(marshal_long(o->doc, n.ivars, &count, &ivars, o->walk.err));
	if (count <= 0)
		return MARSHAL_OK;
	TRY(marshal_find_ivar(o->doc, ivars, (uint32_t) count, "nano_num", &vnum, o->walk.err));
	TRY(marshal_find_ivar(o->doc, ivars, (uint32_t) count, "nano_den", &vden, o->walk.err));
	if (!vnum || !vden)
		return MARSHAL_OK;
	TRY(marshal_time_nano(o->doc, vnum, vden, usec, &nsec, frac, cap, len, &ok, o->walk.err));
	if (!ok)
		*len = 0;
	return MARSHAL_OK;
}

/*
 * Time#inspect: "2024-03-05 14:07:09.123456789 UTC", "... -0400" (with
 * seconds, "+010203", when the offset has them), and a sub-second that is
 * no whole number of nanoseconds as a fraction: "14:07:00 1/3 UTC".
 */
static MarshalStatus
show_time(Out *o, size_t pos)
{
	MarshalInstant t;
	MarshalTimeParts parts;
	bool		ok;
	char		buf[160];
	size_t		len;
	char		frac[1400];		/* two numbers of up to 2100 bits */
	size_t		fraclen;

	TRY(marshal_time_parts(o->doc, pos, &t, &parts, &ok, o->walk.err));
	if (!ok)
		return puts_(o, "#<Time>");
	TRY(time_subsec_fraction(o, pos, frac, sizeof(frac), &fraclen));
	len = marshal_format_year(parts.year, buf);
	len += (size_t) snprintf(buf + len, sizeof(buf) - len, "-%02d-%02d %02d:%02d:%02d",
							 parts.month, parts.day, parts.hour, parts.minute, parts.second);
	if (fraclen)
	{
		TRY(put(o, buf, len));
		TRY(put(o, " ", 1));
		TRY(put(o, frac, fraclen));
		len = 0;
	}
	else if (t.nsec)
	{
		/* the fraction without trailing zeros */
		char		frac[24];
		int			k;

		snprintf(frac, sizeof(frac), "%09lld", (long long) t.nsec);
		for (k = (int) strlen(frac) - 1; k > 0 && frac[k] == '0'; k--)
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
		if (a % 60)
			len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%02lld",
									 (long long) (a % 60));
	}
	return put(o, buf, len < sizeof(buf) ? len : sizeof(buf) - 1);
}

/* #<OpenStruct a=1, b="x">: its table's symbol keys as names */
static MarshalStatus
show_openstruct(Out *o, const MarshalNode *n, bool *handled)
{
	MarshalView t;
	MarshalViewIter it;
	MarshalEntry e;
	bool		done;
	bool		first = true;

	TRY(marshal_view(o->doc, n->items, &t, o->walk.err));
	if (t.kind == MV_HASH)
	{
		TRY(puts_(o, "#<OpenStruct"));
		marshal_view_iter(&t, &it);
		for (;;)
		{
			MarshalNode k;

			TRY(marshal_view_next(o->doc, &it, &e, &done, o->walk.err));
			if (done)
				break;
			TRY(marshal_node(o->doc, e.key, &k, o->walk.err));
			TRY(put(o, first ? " " : ", ", first ? 1 : 2));
			first = false;
			TRY(put_text(o, k.data.ptr, k.data.len));
			TRY(put(o, "=", 1));
			TRY(show(o, e.value));
		}
		return put(o, ">", 1);
	}
	*handled = false;
	return MARSHAL_OK;
}

/* (3/4) and (1+2i) */
static MarshalStatus
show_numeric_pair(Out *o, const MarshalNode *n, bool complex, bool *handled)
{
	MarshalNode arr;
	size_t		p;

	TRY(marshal_node(o->doc, n->items, &arr, o->walk.err));
	if (arr.type == MT_ARRAY && arr.count == 2)
	{
		MarshalNode b;

		p = arr.items;
		TRY(put(o, "(", 1));
		TRY(show(o, p));
		TRY(marshal_skip(o->doc, p, &p, o->walk.err));
		TRY(marshal_node(o->doc, p, &b, o->walk.err));
		if (complex && b.type == MT_FLOAT)
		{
			/* Complex#inspect: the imaginary part's sign (-0.0's too), its magnitude */
			double		d;

			if (!marshal_parse_float(b.data.ptr, b.data.len, &d))
				return fail(o, MARSHAL_ERR_FORMAT, p, "unreadable float");
			TRY(put(o, signbit(d) ? "-" : "+", 1));
			TRY(show_float_value(o, fabs(d)));
			return puts_(o, isfinite(d) ? "i)" : "*i)");
		}
		if (!complex)
			TRY(put(o, "/", 1));
		else if (!(b.type == MT_FIXNUM && b.ival < 0) && !(b.type == MT_BIGNUM && b.negative))
			TRY(put(o, "+", 1));
		TRY(show(o, p));
		if (complex)
			TRY(put(o, "i", 1));
		return put(o, ")", 1);
	}
	*handled = false;
	return MARSHAL_OK;
}

/*
 * TimeWithZone#inspect: "Tue, 05 Mar 2024 19:37:09.000000000 IST +05:30",
 * the zone's abbreviation from tzinfo's tables (the zone_abbrev hook; a
 * numeric "+0530" where there is none, as tzinfo has for many zones).
 */
static MarshalStatus
show_time_with_zone(Out *o, const MarshalNode *n)
{
	MarshalTime t;
	MarshalBytes zone;
	bool		utc_zone;
	int64_t		wall;
	int64_t		day;
	int64_t		secs;
	int64_t		y;
	int			m;
	int			d;
	char		abbrev[64];
	char		name[128];
	int64_t		a;
	char		buf[200];
	size_t		len;

	TRY(marshal_time_with_zone_parts(o->doc, n, &t, &zone, &utc_zone, o->walk.err));
	wall = t.epoch + t.offset;
	day = wall >= 0 ? wall / 86400 : -((-wall + 86399) / 86400);
	secs = wall - day * 86400;
	marshal_civil_from_days(day, &y, &m, &d);
	a = t.offset < 0 ? -t.offset : t.offset;
	abbrev[0] = '\0';
	if (utc_zone)
		snprintf(abbrev, sizeof(abbrev), "UTC");
	else if (o->walk.hooks && o->walk.hooks->zone_abbrev && zone.len > 0 && zone.len < sizeof(name))
	{
		memcpy(name, zone.ptr, zone.len);
		name[zone.len] = '\0';
		if (!o->walk.hooks->zone_abbrev(name, t.epoch, t.offset, abbrev, sizeof(abbrev)))
			abbrev[0] = '\0';
	}
	if (abbrev[0] == '\0')
		snprintf(abbrev, sizeof(abbrev), "%c%02lld%02lld", t.offset < 0 ? '-' : '+',
				 (long long) (a / 3600), (long long) (a / 60 % 60));
	len = (size_t) snprintf(buf, sizeof(buf), "%s, %02d %s ", day_names[((day % 7) + 7) % 7], d,
							month_names[m - 1]);
	len += marshal_format_year(y, buf + len);
	len += (size_t) snprintf(buf + len, sizeof(buf) - len,
							 " %02d:%02d:%02d.%09lld %s %c%02lld:%02lld",
							 (int) (secs / 3600), (int) (secs / 60 % 60), (int) (secs % 60),
							 (long long) t.nsec, abbrev, t.offset < 0 ? '-' : '+',
							 (long long) (a / 3600), (long long) (a / 60 % 60));
	return put(o, buf, len);
}

/*
 * ActiveSupport::Duration#inspect: its @parts by size of unit, "1 day" or
 * "2 days", joined as to_sentence joins them; "N seconds" without parts.
 */
static MarshalStatus
show_duration(Out *o, const MarshalNode *n, bool *handled)
{
	static const char *const units[] = {"years", "months", "weeks", "days", "hours",
	"minutes", "seconds"};
	size_t		at[7] = {0};
	size_t		pv;
	size_t		vv;
	MarshalNode parts;
	size_t		p;
	int			count = 0;
	int			shown = 0;

	TRY(marshal_find_ivar(o->doc, n->items, n->count, "@parts", &pv, o->walk.err));
	TRY(marshal_find_ivar(o->doc, n->items, n->count, "@value", &vv, o->walk.err));
	if (!pv || !vv)
	{
		*handled = false;
		return MARSHAL_OK;
	}
	TRY(marshal_node(o->doc, pv, &parts, o->walk.err));
	if (parts.type != MT_HASH)
	{
		*handled = false;
		return MARSHAL_OK;
	}
	p = parts.items;
	for (uint32_t i = 0; i < parts.count; i++)
	{
		MarshalNode k;

		TRY(marshal_node(o->doc, p, &k, o->walk.err));
		TRY(marshal_skip(o->doc, p, &p, o->walk.err));
		for (int u = 0; u < 7; u++)
			if (k.type == MT_SYMBOL && marshal_bytes_eq(k.data, units[u]) && !at[u])
				at[u] = p, count++;
		TRY(marshal_skip(o->doc, p, &p, o->walk.err));
	}
	if (count == 0)
	{
		TRY(show(o, vv));
		return puts_(o, " seconds");
	}
	for (int u = 0; u < 7; u++)
	{
		MarshalNode v;
		double		d = 0;
		bool		one;

		if (!at[u])
			continue;
		if (shown > 0)
			TRY(puts_(o, count == 2 ? " and " : shown == count - 1 ? ", and " : ", "));
		TRY(marshal_node(o->doc, at[u], &v, o->walk.err));
		if (v.type == MT_FLOAT && !marshal_parse_float(v.data.ptr, v.data.len, &d))
			return fail(o, MARSHAL_ERR_FORMAT, at[u], "unreadable float");
		one = (v.type == MT_FIXNUM && v.ival == 1) || (v.type == MT_FLOAT && d == 1.0);
		TRY(show(o, at[u]));
		TRY(put(o, " ", 1));
		TRY(put(o, units[u], strlen(units[u]) - (one ? 1 : 0)));
		shown++;
	}
	return MARSHAL_OK;
}

/* 1..2 and 1...3 */
static MarshalStatus
show_range(Out *o, const MarshalNode *n, bool *handled)
{
	size_t		b;
	size_t		e;
	size_t		x;
	MarshalNode excl;
	MarshalNode bn;
	MarshalNode en;

	TRY(marshal_find_ivar(o->doc, n->items, n->count, "begin", &b, o->walk.err));
	TRY(marshal_find_ivar(o->doc, n->items, n->count, "end", &e, o->walk.err));
	TRY(marshal_find_ivar(o->doc, n->items, n->count, "excl", &x, o->walk.err));
	if (b && e && x)
	{
		TRY(marshal_node(o->doc, x, &excl, o->walk.err));
		TRY(marshal_node(o->doc, b, &bn, o->walk.err));
		TRY(marshal_node(o->doc, e, &en, o->walk.err));
		/* nil..nil shows as nil..nil; a missing end is left out */
		if (bn.type != MT_NIL || en.type == MT_NIL)
			TRY(show(o, b));
		TRY(puts_(o, excl.type == MT_TRUE ? "..." : ".."));
		if (en.type != MT_NIL || bn.type == MT_NIL)
			TRY(show(o, e));
		return MARSHAL_OK;
	}
	*handled = false;
	return MARSHAL_OK;
}

/* An object with a "mesg" ivar: an Exception. */
static MarshalStatus
show_exception(Out *o, const MarshalNode *n, bool *handled)
{
	size_t		v;

	*handled = true;
	if (n->type == MT_OBJECT &&
		marshal_find_ivar(o->doc, n->items, n->count, "mesg", &v, o->walk.err) == MARSHAL_OK && v)
	{
		/*
		 * exc_inspect: the message is to_s, the class name when it is nil;
		 * an empty one shows the class name alone, one with a newline is
		 * quoted: #<RuntimeError: boom>, #<RuntimeError:"a\nb">.
		 */
		MarshalNode m;

		TRY(marshal_node(o->doc, v, &m, o->walk.err));
		if (m.type == MT_STRING && m.data.len == 0)
			return put_text(o, n->cls.ptr, n->cls.len);
		TRY(show_class(o, "#<", n));
		if (m.type == MT_STRING && memchr(m.data.ptr, '\n', m.data.len) != NULL)
		{
			TRY(put(o, ":", 1));
			TRY(marshal_inspect_string(o, &m));
		}
		else
		{
			TRY(put(o, ": ", 2));
			if (m.type == MT_NIL)
				TRY(put_text(o, n->cls.ptr, n->cls.len));
			else if (m.type == MT_STRING || m.type == MT_SYMBOL)
				TRY(put_text(o, m.data.ptr, m.data.len));
			else
				TRY(show(o, v));	/* to_s of numbers is their inspect */
		}
		return put(o, ">", 1);
	}
	*handled = false;
	return MARSHAL_OK;
}

/*
 * URI#inspect "#<URI::HTTPS https://example.com/a>" and Pathname#inspect
 * "#<Pathname:/a/b>": the class and to_s (marshal_to_s); without the ivars
 * to_s reads, the class alone.
 */
static MarshalStatus
show_with_to_s(Out *o, const MarshalNode *n, const char *sep)
{
	size_t		end;
	size_t		size;
	char	   *text;
	size_t		len;
	bool		ok;
	MarshalStatus st;

	TRY(marshal_skip(o->doc, n->pos, &end, o->walk.err));
	size = end - n->pos + 80;
	if ((text = marshal_alloc(o->walk.hooks, size)) == NULL)
		return fail(o, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
	st = marshal_to_s(o->doc, n->pos, text, size, &len, &ok, o->walk.err);
	if (st == MARSHAL_OK)
		st = show_class(o, "#<", n);
	if (st == MARSHAL_OK && ok)
		st = puts_(o, sep);
	if (st == MARSHAL_OK && ok)
		st = put(o, text, len);
	marshal_free(o->walk.hooks, text);
	TRY(st);
	return put(o, ">", 1);
}

/* Objects and U classes that Ruby shows in a form of their own. */
static MarshalStatus
show_special(Out *o, const MarshalView *view, bool *handled)
{
	const MarshalNode *n = &view->node;
	MarshalClassId id = marshal_class_id(n);

	*handled = true;
	switch (id)
	{
		case MC_TIME:
			return show_time(o, n->pos);
		case MC_BIGDECIMAL:
			{
				/* BigDecimal#inspect: "0.12345e3", as BigDecimal._load reads it */
				MarshalDecimal d;
				char	   *digits = marshal_alloc(o->walk.hooks, n->data.len + 1);
				char	   *text;
				MarshalStatus st;

				if (digits == NULL)
					return fail(o, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
				if (!marshal_decimal_load(n->data.ptr, n->data.len, digits, &d))
				{
					marshal_free(o->walk.hooks, digits);
					return fail(o, MARSHAL_ERR_FORMAT, n->pos,
								"a BigDecimal payload that BigDecimal._load refuses");
				}
				text = marshal_alloc(o->walk.hooks, marshal_decimal_text_size(&d));
				if (text == NULL)
				{
					marshal_free(o->walk.hooks, digits);
					return fail(o, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
				}
				st = put(o, text, marshal_decimal_to_s(&d, false, text));
				marshal_free(o->walk.hooks, text);
				marshal_free(o->walk.hooks, digits);
				return st;
			}
		case MC_DATE:
		case MC_DATETIME:
			return show_date(o, n, id == MC_DATETIME);
		case MC_OPENSTRUCT:
			TRY(show_openstruct(o, n, handled));
			break;
		case MC_RATIONAL:
		case MC_COMPLEX:
			TRY(show_numeric_pair(o, n, id == MC_COMPLEX, handled));
			break;
		case MC_RANGE:
			TRY(show_range(o, n, handled));
			break;
		case MC_DURATION:
			TRY(show_duration(o, n, handled));
			break;
		case MC_TIME_WITH_ZONE:
			return show_time_with_zone(o, n);
		case MC_URI:
			return show_with_to_s(o, n, " ");
		case MC_PATHNAME:
			return show_with_to_s(o, n, ":");
		case MC_ORDERED_OPTIONS:
			/* its marshal_load is method_missing: it always loads empty */
			TRY(show_class(o, "#<", n));
			return puts_(o, " {}>");
		default:
			*handled = false;
			break;
	}
	if (*handled)
		return MARSHAL_OK;
	return show_exception(o, n, handled);
}

static bool
on_stack(Out *o, size_t pos)
{
	for (uint32_t i = 0; i < o->nactive; i++)
		if (o->active[i] == pos)
			return true;
	return false;
}

/* One level deeper: the depth limit (the reader's), and the stack check. */
static MarshalStatus
deeper(Out *o, size_t pos)
{
	TRY(marshal_walk_deeper(&o->walk, pos));
	marshal_walk_check_stack(&o->walk, 1);
	return MARSHAL_OK;
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
	TRY(marshal_node(o->doc, pos, &view.node, o->walk.err));
	/*
	 * The special forms show values inside them too (a Rational's parts, an
	 * exception's message), and a stream may nest them in themselves: they
	 * count as a level, so a cycle through them ends at the depth limit.
	 */
	TRY(deeper(o, pos));
	st = show_special(o, &view, &handled);
	if (st == MARSHAL_OK && !handled && view.node.type == MT_USRMARSHAL &&
		marshal_class_id(&view.node) == MC_NONE)
	{
		/* a marshal_dump class: Ruby's inspect is in its code; show its data */
		handled = true;
		st = show_class(o, "#<", &view.node);
		if (st == MARSHAL_OK)
			st = put(o, " ", 1);
		if (st == MARSHAL_OK)
			st = show(o, view.node.items);
		if (st == MARSHAL_OK)
			st = put(o, ">", 1);
	}
	o->walk.depth--;
	if (st != MARSHAL_OK || handled)
		return st;
	if (view.node.type == MT_OBJECT && (marshal_class_is(&view.node, MC_PARAMETERS) ||
										marshal_class_is(&view.node, MC_GLOBALID) ||
										marshal_class_is(&view.node, MC_ERRORS) ||
										marshal_class_is_relation(&view.node)))
	{
		/* as_json is an ivar's (the JSON view), inspect shows the object */
		view.kind = MV_IVARS;
		view.items = view.node.items;
		view.count = view.node.count;
	}
	else
		TRY(marshal_view(o->doc, pos, &view, o->walk.err));
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
				TRY(show_class(o, "#<struct ", n));
				return puts_(o, ":...>");
			default:
				TRY(show_class(o, "#<", n));
				return puts_(o, " ...>");
		}
	}
	TRY(deeper(o, pos));
	if (o->nactive == o->activecap)
	{
		/* as deep as the limit allows: the stack of containers grows */
		uint32_t	cap = o->activecap ? 2 * o->activecap : 64;
		size_t	   *bigger = marshal_alloc(o->walk.hooks, cap * sizeof(size_t));

		if (bigger == NULL)
			return fail(o, MARSHAL_ERR_NOMEM, pos, "out of memory");
		if (o->nactive)
			memcpy(bigger, o->active, o->nactive * sizeof(size_t));
		marshal_free(o->walk.hooks, o->active);
		o->active = bigger;
		o->activecap = cap;
	}
	o->active[o->nactive++] = n->pos;
	switch (view.kind)
	{
		case MV_ARRAY:
			st = show_enclosed(o, &view, "[", false, false, false, "]");
			break;
		case MV_SET:
			st = show_enclosed(o, &view, "Set[", false, false, false, "]");
			break;
		case MV_HASH:
			st = show_enclosed(o, &view, "{", true, false, false, "}");
			break;
		case MV_STRUCT:
			st = show_class(o, "#<struct ", n);
			if (st == MARSHAL_OK)
				st = show_enclosed(o, &view, view.count > 0 ? " " : "",
								   false, false, true, ">");
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
					st = show_class(o, "#<", n);
					break;
				}
				marshal_view_iter(&view, &it);
				st = marshal_view_next(o->doc, &it, &e, &done, o->walk.err);
				any = st == MARSHAL_OK && !done;
				if (st == MARSHAL_OK)
					st = show_class(o, "#<", n);
				if (st == MARSHAL_OK)
					st = show_enclosed(o, &view, any ? " " : "", false, true, false, ">");
				break;
			}
		default:
			{
				/* a JSON-scalar object Ruby shows by class: #<Name> */
				st = show_class(o, "#<", n);
				if (st == MARSHAL_OK)
					st = put(o, ">", 1);
				break;
			}
	}
	o->nactive--;
	o->walk.depth--;
	return st;
}

/*
 * Whether Ruby 3.1 with ActiveSupport shows the value by its bytes alone:
 * nil, booleans, numbers, Strings, Symbols, Arrays of these, Time,
 * TimeWithZone, Date, DateTime, BigDecimal.  Anything else shows an object
 * address, or an inspect of its own (Hash, Set, Struct, Range...) that
 * Ruby 3.1 writes otherwise than 4.0.
 */
static bool
key_shown(const MarshalNode *n)
{
	switch (n->type)
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
		case MT_FIXNUM:
		case MT_BIGNUM:
		case MT_FLOAT:
		case MT_STRING:
		case MT_SYMBOL:
		case MT_ARRAY:
			return true;
		case MT_OBJECT:
		case MT_USERDEF:
		case MT_USRMARSHAL:
			switch (marshal_class_id(n))
			{
				case MC_TIME:
				case MC_TIME_WITH_ZONE:
				case MC_DATE:
				case MC_DATETIME:
				case MC_BIGDECIMAL:
					return true;
				default:
					return false;
			}
		default:
			return false;
	}
}

static MarshalStatus
show(Out *o, size_t pos)
{
	MarshalNode n;

	if (++o->steps % 4096 == 0 && o->walk.hooks && o->walk.hooks->check_interrupts)
		o->walk.hooks->check_interrupts(o->walk.hooks->ctx);
	TRY(marshal_node(o->doc, pos, &n, o->walk.err));
	if (o->as_key && !key_shown(&n))
	{
		o->refused = true;
		return fail(o, MARSHAL_ERR_LIMIT, pos, "an inspect text the bytes do not decide");
	}
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
			return marshal_inspect_string(o, &n);
		case MT_SYMBOL:
			return marshal_inspect_symbol(o, &n);
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
				/* a _dump class: Ruby's inspect is in its code; show the dump */
				TRY(show_class(o, "#<", &n));
				TRY(put(o, " ", 1));
				n.type = MT_STRING;
				TRY(marshal_inspect_string(o, &n));
				return put(o, ">", 1);
			}
		default:
			return show_container(o, n.pos);
	}
}

MarshalStatus
marshal_inspect_key(const MarshalDoc *doc, size_t pos, char *buf, size_t size,
					size_t *len, bool *ok, MarshalError *err)
{
	Out			o;
	MarshalStatus st;

	memset(&o, 0, sizeof(o));
	marshal_walk_start(&o.walk, doc->lazy.hooks, doc->lazy.depth, err);
	o.doc = doc;
	o.limit = size - 1;
	o.as_key = true;
	st = show(&o, pos);
	marshal_free(o.walk.hooks, o.active);
	*ok = st == MARSHAL_OK;
	if (*ok)
	{
		memcpy(buf, o.buf, o.len);
		buf[o.len] = '\0';
		*len = o.len;
	}
	else if (st == MARSHAL_ERR_LIMIT)
		st = MARSHAL_OK;		/* refused, too long or too deep: no text */
	marshal_free(o.walk.hooks, o.buf);
	return st;
}

MarshalStatus
marshal_inspect(const MarshalDoc *doc, const MarshalHooks *hooks,
				uint32_t max_depth, size_t limit, char **out, size_t *outlen,
				MarshalError *err)
{
	Out			o;
	MarshalStatus st;

	memset(&o, 0, sizeof(o));
	marshal_walk_start(&o.walk, hooks, max_depth, err);
	o.doc = doc;
	o.limit = limit ? limit : 16 * doc->len + 1000000;
	st = show(&o, MARSHAL_ROOT);
	marshal_free(o.walk.hooks, o.active);
	if (st == MARSHAL_OK)
		st = put(&o, "", 0);
	if (st != MARSHAL_OK)
	{
		marshal_free(o.walk.hooks, o.buf);
		return st;
	}
	o.buf[o.len] = '\0';
	*out = o.buf;
	*outlen = o.len;
	return MARSHAL_OK;
}
