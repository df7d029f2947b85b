/*
 * marshal_time.c
 *		Ruby's Time, Date, DateTime, ActiveSupport::TimeWithZone and the
 *		Rationals inside them: decoded from their dumps, and written as
 *		as_json writes them (xmlschema).
 *
 * The JSON walk, inspect, the Active Record casts and the typed casts all
 * read times here.  A value that is not what its class dumps gives
 * MARSHAL_ERR_UNREPRESENTABLE with the reason; cursor errors pass through.
 */
#include "marshal_internal.h"
#include "marshal_to_s.h"

#include <stdio.h>
#include <string.h>

/* The Julian Day Number of 1970-01-01. */
#define UNIX_EPOCH_JD 2440588

/* A value that is not what its class dumps. */
#define time_fail(err, offset, ...) \
	marshal_error(err, MARSHAL_ERR_UNREPRESENTABLE, offset, __VA_ARGS__)

/* Read an Integer (fixnum, or bignum that fits) at pos. */
MarshalStatus
marshal_read_int(const MarshalDoc *doc, size_t pos, int64_t *v, bool *ok,
				 MarshalError *err)
{
	MarshalNode n;

	TRY(marshal_node(doc, pos, &n, err));
	*ok = true;
	if (n.type == MT_FIXNUM)
		*v = n.ival;
	else if (n.type == MT_BIGNUM && n.data.len <= 8)
	{
		uint64_t	m = 0;

		for (size_t i = n.data.len; i-- > 0;)
			m = m << 8 | n.data.ptr[i];
		if (m > (uint64_t) INT64_MAX)
			*ok = false;
		*v = n.negative ? -(int64_t) m : (int64_t) m;
	}
	else
		*ok = false;
	return MARSHAL_OK;
}

/* Integer, or Rational num/den floored to an integer (Time offsets, sf). */
MarshalStatus
marshal_read_int_or_rational(const MarshalDoc *doc, size_t pos, int64_t *v,
							 bool *ok, MarshalError *err)
{
	MarshalNode n;

	TRY(marshal_node(doc, pos, &n, err));
	if (marshal_class_is(&n, MC_RATIONAL))
	{
		MarshalNode arr;
		size_t		p;
		int64_t		num;
		int64_t		den;
		bool		ok2;

		TRY(marshal_node(doc, n.items, &arr, err));
		*ok = false;
		if (arr.type != MT_ARRAY || arr.count != 2)
			return MARSHAL_OK;
		p = arr.items;
		TRY(marshal_read_int(doc, p, &num, ok, err));
		TRY(marshal_skip(doc, p, &p, err));
		TRY(marshal_read_int(doc, p, &den, &ok2, err));
		if (!*ok || !ok2 || den <= 0)
		{
			*ok = false;
			return MARSHAL_OK;
		}
		*v = num >= 0 ? num / den : -((-num + den - 1) / den);
		return MARSHAL_OK;
	}
	return marshal_read_int(doc, pos, v, ok, err);
}

/* What a Time's ivars say besides its payload (MarshalTimeIvars). */
typedef struct TimeIvars
{
	MarshalTime *t;
	MarshalTimeIvars iv;
	size_t		num_pos;		/* nano_num and nano_den, for a Bignum */
	size_t		den_pos;
	bool		big;
} TimeIvars;

static MarshalStatus
time_ivar_fn(const MarshalDoc *doc, MarshalBytes name, size_t vpos, void *arg,
			 MarshalError *err)
{
	TimeIvars  *ti = arg;
	bool		ok = true;

	if (marshal_bytes_eq(name, "offset"))
	{
		TRY(marshal_read_int_or_rational(doc, vpos, &ti->t->offset, &ok, err));
		if (ok)
			ti->t->utc = false;
	}
	else if (marshal_bytes_eq(name, "nano_num") || marshal_bytes_eq(name, "nano_den"))
	{
		bool		num = name.ptr[5] == 'n';

		TRY(marshal_read_int(doc, vpos, num ? &ti->iv.nano_num : &ti->iv.nano_den, &ok, err));
		ti->iv.has_nano |= num;
		*(num ? &ti->num_pos : &ti->den_pos) = vpos;
		/* past 64 bits: marshal_time_nano below */
		ti->big |= !ok;
		ok = true;
	}
	else if (marshal_bytes_eq(name, "submicro"))
	{
		MarshalNode n;

		TRY(marshal_node(doc, vpos, &n, err));
		if (n.type == MT_STRING && n.data.len >= 1)
			ti->iv.submicro = marshal_time_submicro(n.data);
	}
	if (!ok)
		ti->iv.bad = true;
	return MARSHAL_OK;
}

int
marshal_time_submicro(MarshalBytes b)
{
	/* packed BCD: the hundreds, tens and units of the nanoseconds */
	return (b.ptr[0] >> 4) * 100 + (b.ptr[0] & 15) * 10 +
		(b.len > 1 ? b.ptr[1] >> 4 : 0);
}

/* Decode a Time's _dump payload (time.c's time_mdump layout) at pos. */
MarshalStatus
marshal_time_payload(MarshalBytes data, size_t pos, MarshalTime *t,
					 MarshalError *err)
{
	const uint8_t *b = data.ptr;
	uint32_t	p;
	uint32_t	s;

	memset(t, 0, sizeof(*t));
	if (data.len < 8)
		return time_fail(err, pos, "Time payload of %zu bytes is too short",
						 data.len);
	p = (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
	s = (uint32_t) b[4] | (uint32_t) b[5] << 8 | (uint32_t) b[6] << 16 | (uint32_t) b[7] << 24;
	if (!(p & (1u << 31)))
	{
		/* before Ruby 1.9: seconds and microseconds */
		t->epoch = p;
		t->nsec = (int64_t) s * 1000;
		t->utc = true;
	}
	else
	{
		int64_t		year = ((p >> 14) & 0xffff) + 1900;
		int			mon = ((p >> 10) & 0xf) + 1;
		int			mday = (p >> 5) & 0x1f;
		int			hour = p & 0x1f;
		int			min = (s >> 26) & 0x3f;
		int			sec = (s >> 20) & 0x3f;

		if (data.len > 8)
		{
			/* years outside 1900..1900+0xffff carry an extension */
			MarshalDoc	sub = {.buf = b + 8, .len = data.len - 8};
			size_t		e;
			int64_t		ext;

			if (marshal_long(&sub, 0, &ext, &e, err) == MARSHAL_OK && ext > 0 &&
				(size_t) ext <= sub.len - e && ext <= 7)
			{
				int64_t		v = 0;

				/* past 4 bytes of years, seconds since 1970 overflow 64 bits */
				if (ext > 4)
					return time_fail(err, pos,
									 "Time year extension of %d bytes is out of range",
									 (int) ext);
				for (int64_t i = ext; i-- > 0;)
					v = v << 8 | b[8 + e + i];
				year = year == 1900 ? 1900 - v : 1900 + 0xffff + v;
			}
		}
		t->utc = (p >> 30) & 1;
		t->epoch = marshal_days_from_civil(year, mon, mday) * 86400 +
			hour * 3600 + min * 60 + sec;
		t->nsec = (int64_t) (s & 0xfffff) * 1000;
	}
	return MARSHAL_OK;
}

MarshalStatus
marshal_time_finish(MarshalTime *t, const MarshalTimeIvars *iv, size_t pos,
					MarshalError *err)
{
	if (iv->bad || iv->nano_den <= 0)
		return time_fail(err, pos,
						 "Time with an offset or fraction that is not an Integer or Rational");
	if (iv->has_nano)
		t->nsec += iv->nano_num / iv->nano_den;
	else if (iv->submicro >= 0)
		t->nsec += iv->submicro;
	return MARSHAL_OK;
}

/* Decode a Time node (u :Time) per time.c's time_mdump layout. */
MarshalStatus
marshal_time_decode(const MarshalDoc *doc, const MarshalNode *n,
					MarshalTime *t, MarshalError *err)
{
	TimeIvars	ti;

	TRY(marshal_time_payload(n->data, n->pos, t, err));
	memset(&ti, 0, sizeof(ti));
	ti.t = t;
	ti.iv.nano_den = 1;
	ti.iv.submicro = -1;
	t->offset = 0;
	{
		bool		utc_flag = t->utc;

		/* the offset ivar clears utc; keep the payload's flag instead */
		if (n->has_ivars && n->ivars)
		{
			int64_t		count;
			size_t		pos;
			size_t		end;

			TRY(marshal_long(doc, n->ivars, &count, &pos, err));
			TRY(marshal_for_each_ivar(doc, pos, (uint32_t) (count > 0 ? count : 0),
									  time_ivar_fn, &ti, &end, err));
		}
		t->utc = utc_flag;
	}
	if (ti.big)
	{
		/* a Rational with Bignum parts (a Float's exact value): its whole nanoseconds */
		bool		ok = ti.num_pos && ti.den_pos;

		if (ok)
			TRY(marshal_time_nano(doc, ti.num_pos, ti.den_pos, 0, &ti.iv.nano_num,
								  NULL, 0, NULL, &ok, err));
		ti.iv.nano_den = 1;
		ti.iv.bad |= !ok;
	}
	return marshal_time_finish(t, &ti.iv, n->pos, err);
}

/* Date and DateTime's marshal_dump [nth, jd, df, sf, of, sg]: the first five. */
static MarshalStatus
date_fields(const MarshalDoc *doc, const MarshalNode *n, int64_t *v,
			size_t *sg_at, MarshalError *err)
{
	MarshalNode arr;
	size_t		p;
	bool		ok;

	TRY(marshal_node(doc, n->items, &arr, err));
	if (arr.type != MT_ARRAY || arr.count != 6)
		return time_fail(err, n->pos, "Date data is not [nth, jd, df, sf, of, sg]");
	p = arr.items;
	for (int i = 0; i < 5; i++)
	{
		if (p < doc->len && doc->buf[p] == MT_FIXNUM)
		{
			/* the usual field: an Integer, read where it stands */
			TRY(marshal_long(doc, p + 1, &v[i], &p, err));
			continue;
		}
		TRY(i == 3 ? marshal_read_int_or_rational(doc, p, &v[i], &ok, err)
			: marshal_read_int(doc, p, &v[i], &ok, err));
		if (!ok)
			return time_fail(err, n->pos, "Date field %d is not an Integer", i);
		TRY(marshal_skip(doc, p, &p, err));
	}
	if (sg_at)
		*sg_at = p;
	/*
	 * jd counts within a period of nth (Date's CM_PERIOD days): a date at or
	 * before Julian Day 0 has nth -1.  The real Julian Day, kept where its
	 * seconds fit int64 (years within about 290 billion).
	 */
	if (v[0] < -DATE_MAX_NTH || v[0] > DATE_MAX_NTH)
		return time_fail(err, n->pos, "Date beyond the Julian period (nth %lld)",
						 (long long) v[0]);
	v[1] += v[0] * DATE_CM_PERIOD;
	v[0] = 0;
	return MARSHAL_OK;
}

MarshalStatus
marshal_date_fields(const MarshalDoc *doc, const MarshalNode *n, int64_t *v,
					MarshalError *err)
{
	return date_fields(doc, n, v, NULL, err);
}

/* "2024-03-05T14:07:09.123" of a wall clock in epoch-style seconds. */
size_t
marshal_format_wall(int64_t wall, int64_t nsec, int prec, char *out)
{
	MarshalTimeParts c;
	size_t		n;

	marshal_civil_from_epoch(wall, &c);
	/* written digit by digit: this runs once per Time of every row */
	n = marshal_format_year(c.year, out);
	out[n++] = '-';
	n += marshal_put_digits(out + n, c.month, 2);
	out[n++] = '-';
	n += marshal_put_digits(out + n, c.day, 2);
	out[n++] = 'T';
	n += marshal_put_digits(out + n, c.hour, 2);
	out[n++] = ':';
	n += marshal_put_digits(out + n, c.minute, 2);
	out[n++] = ':';
	n += marshal_put_digits(out + n, c.second, 2);
	if (prec > 0)
	{
		char		frac[24];

		if (nsec >= 0 && nsec < 1000000000)
			marshal_put_digits(frac, nsec, 9);
		else
			snprintf(frac, sizeof(frac), "%09lld", (long long) nsec);
		out[n++] = '.';
		memcpy(out + n, frac, (size_t) prec);
		n += (size_t) prec;
	}
	out[n] = '\0';
	return n;
}

/* "+05:30" as strftime("%:z") prints a UTC offset in seconds. */
static size_t
format_offset(int64_t offset, char *out)
{
	int64_t		a = offset < 0 ? -offset : offset;

	size_t		n = 0;

	out[n++] = offset < 0 ? '-' : '+';
	if (a / 3600 >= 100)
		n += (size_t) sprintf(out + n, "%lld", (long long) (a / 3600));
	else
		n += marshal_put_digits(out + n, a / 3600, 2);
	out[n++] = ':';
	n += marshal_put_digits(out + n, a / 60 % 60, 2);
	out[n] = '\0';
	return n;
}

/* A Time as as_json: xmlschema with prec fraction digits. */
MarshalStatus
marshal_time_json(const MarshalDoc *doc, const MarshalNode *n, int prec,
				  char *out, size_t *len, MarshalError *err)
{
	MarshalTime t;

	TRY(marshal_time_decode(doc, n, &t, err));
	*len = marshal_time_xmlschema(&t, prec, out);
	return MARSHAL_OK;
}

size_t
marshal_time_xmlschema(const MarshalTime *t, int prec, char *out)
{
	size_t		len = marshal_format_wall(t->epoch + (t->utc ? 0 : t->offset),
										  t->nsec, prec, out);

	if (t->utc)
		out[len++] = 'Z';
	else
		len += format_offset(t->offset, out + len);
	return len;
}

/* "+0530" as strftime("%z") prints a UTC offset in seconds (no seconds). */
static size_t
format_offset_z(int64_t offset, char *out)
{
	int64_t		a = offset < 0 ? -offset : offset;

	out[0] = offset < 0 ? '-' : '+';
	if (a / 3600 >= 100)
		return 1 + (size_t) sprintf(out + 1, "%lld%02d", (long long) (a / 3600),
									(int) (a / 60 % 60));
	return 1 + marshal_put_digits(out + 1, a / 3600, 2) +
		marshal_put_digits(out + 3, a / 60 % 60, 2);
}

/* Time#to_s: "2024-01-01 00:00:00 UTC", "2024-01-01 00:00:00 +0900". */
static size_t
time_to_s(const MarshalTime *t, char *out)
{
	size_t		len = marshal_format_wall(t->epoch + (t->utc ? 0 : t->offset), 0, 0, out);
	char	   *tee = strchr(out, 'T');

	if (tee)
		*tee = ' ';
	out[len++] = ' ';
	if (t->utc)
	{
		memcpy(out + len, "UTC", 4);
		return len + 3;
	}
	return len + format_offset_z(t->offset, out + len);
}

MarshalStatus
marshal_time_to_s(const MarshalDoc *doc, const MarshalNode *n, char *out,
				  size_t *len, MarshalError *err)
{
	MarshalTime t;

	TRY(marshal_time_decode(doc, n, &t, err));
	*len = time_to_s(&t, out);
	return MARSHAL_OK;
}

/*
 * ActiveSupport::TimeWithZone: [utc_time, zone_name, local_time].  The local
 * Time holds the zone's wall clock in UTC mode: *local gets that wall clock
 * as a Time at the zone's offset.  *utc_zone: the zone prints as "UTC".
 */
static MarshalStatus
time_with_zone_decode(const MarshalDoc *doc, const MarshalNode *n,
					  MarshalTime *local, bool *utc_zone, MarshalError *err)
{
	MarshalBytes zone;

	return marshal_time_with_zone_parts(doc, n, local, &zone, utc_zone, err);
}

MarshalStatus
marshal_time_with_zone_parts(const MarshalDoc *doc, const MarshalNode *n,
							 struct MarshalTime *local, MarshalBytes *zone,
							 bool *utc_zone, MarshalError *err)
{
	MarshalNode arr;
	MarshalNode el[3];
	size_t		p;
	MarshalTime utc;
	MarshalTime wall;

	TRY(marshal_node(doc, n->items, &arr, err));
	if (arr.type != MT_ARRAY || arr.count != 3)
		return time_fail(err, n->pos,
						 "ActiveSupport::TimeWithZone data is not [utc, zone, local]");
	p = arr.items;
	for (int i = 0; i < 3; i++)
	{
		TRY(marshal_node(doc, p, &el[i], err));
		TRY(marshal_skip(doc, p, &p, err));
	}
	if (el[0].type != MT_USERDEF || el[2].type != MT_USERDEF)
		return time_fail(err, n->pos, "ActiveSupport::TimeWithZone without Times");
	TRY(marshal_time_decode(doc, &el[0], &utc, err));
	TRY(marshal_time_decode(doc, &el[2], &wall, err));
	/* epoch is always the UTC instant; the offset is wall minus instant */
	local->epoch = utc.epoch;
	local->nsec = wall.nsec;
	local->utc = false;
	local->offset = wall.epoch + (wall.utc ? 0 : wall.offset) - utc.epoch;
	*utc_zone = el[1].type == MT_STRING &&
		(marshal_bytes_eq(el[1].data, "UTC") || marshal_bytes_eq(el[1].data, "Etc/UTC"));
	if (el[1].type == MT_STRING && doc->lazy.hooks && doc->lazy.hooks->zone_known)
	{
		/*
		 * marshal_load: Time.find_zone(name), nil for a name Rails does not
		 * know; then every method that reads the zone (as_json, inspect) raises
		 */
		char		name[128];
		bool		known = el[1].data.len < sizeof(name) &&
			memchr(el[1].data.ptr, '\0', el[1].data.len) == NULL;

		if (known)
		{
			memcpy(name, el[1].data.ptr, el[1].data.len);
			name[el[1].data.len] = '\0';
			known = doc->lazy.hooks->zone_known(name);
		}
		if (!known)
			return time_fail(err, n->pos,
							 "a value of class ActiveSupport::TimeWithZone in time zone \"%.*s\", "
							 "which Rails does not know (it loads without a zone; as_json raises)",
							 (int) (el[1].data.len > 60 ? 60 : el[1].data.len),
							 (const char *) el[1].data.ptr);
	}
	zone->ptr = el[1].type == MT_STRING ? el[1].data.ptr : NULL;
	zone->len = el[1].type == MT_STRING ? el[1].data.len : 0;
	return MARSHAL_OK;
}

MarshalStatus
marshal_time_with_zone_json(const MarshalDoc *doc, const MarshalNode *n,
							int prec, char *out, size_t *len,
							MarshalError *err)
{
	MarshalTime t;
	bool		utc_zone;

	TRY(time_with_zone_decode(doc, n, &t, &utc_zone, err));
	*len = marshal_format_wall(t.epoch + t.offset, t.nsec, prec, out);
	if (utc_zone)
		out[(*len)++] = 'Z';
	else
		*len += format_offset(t.offset, out + *len);
	return MARSHAL_OK;
}

/* TimeWithZone#to_s: "2024-03-01 00:00:00 -0500", "... UTC" in a UTC zone. */
MarshalStatus
marshal_time_with_zone_to_s(const MarshalDoc *doc, const MarshalNode *n,
							char *out, size_t *len, MarshalError *err)
{
	MarshalTime t;
	bool		utc_zone;

	TRY(time_with_zone_decode(doc, n, &t, &utc_zone, err));
	if (utc_zone)
	{
		t.epoch += t.offset;
		t.utc = true;
	}
	*len = time_to_s(&t, out);
	return MARSHAL_OK;
}

/* Date as "%Y-%m-%d", DateTime as xmlschema. */
MarshalStatus
marshal_date_json(const MarshalDoc *doc, const MarshalNode *n, bool datetime,
				  int prec, char *buf, size_t *outlen, MarshalError *err)
{
	MarshalNode sgn;
	int64_t		v[5];
	size_t		p;
	double		sg = 2299161.0;
	int64_t		jd;
	int64_t		y;
	int			m;
	int			d;
	size_t		len;

	/* and the calendar reform day sg, the sixth element */
	TRY(date_fields(doc, n, v, &p, err));
	TRY(marshal_node(doc, p, &sgn, err));
	if (sgn.type == MT_FLOAT && !marshal_parse_float(sgn.data.ptr, sgn.data.len, &sg))
		sg = 2299161.0;
	jd = v[1];
	if (datetime)
	{
		/* jd and df are UTC; the wall clock is shifted by the offset */
		int64_t		secs = v[2] + v[4];

		jd += marshal_floor_div(secs, 86400);
		secs -= marshal_floor_div(secs, 86400) * 86400;
		v[2] = secs;
	}
	if ((double) jd < sg)
		marshal_julian_from_jd(jd, &y, &m, &d);
	else
		marshal_civil_from_days(jd - UNIX_EPOCH_JD, &y, &m, &d);
	len = marshal_format_year(y, buf);
	buf[len++] = '-';
	len += marshal_put_digits(buf + len, m, 2);
	buf[len++] = '-';
	len += marshal_put_digits(buf + len, d, 2);
	buf[len] = '\0';
	if (datetime)
	{
		len += (size_t) sprintf(buf + len, "T%02d:%02d:%02d",
								(int) (v[2] / 3600), (int) (v[2] / 60 % 60),
								(int) (v[2] % 60));
		if (prec > 0)
		{
			char		frac[24];

			snprintf(frac, sizeof(frac), "%09lld", (long long) (v[3] % 1000000000));
			buf[len++] = '.';
			memcpy(buf + len, frac, (size_t) prec);
			len += (size_t) prec;
		}
		len += format_offset(v[4], buf + len);
	}
	*outlen = len;
	return MARSHAL_OK;
}

MarshalStatus
marshal_time_json_at(const MarshalDoc *doc, size_t pos, int prec, char *buf,
					 size_t *len, bool *ok, MarshalError *err)
{
	MarshalNode n;
	MarshalStatus st;
	MarshalClassId id;

	*ok = false;
	if (pos >= doc->len || (doc->buf[pos] != MT_USRMARSHAL &&
							doc->buf[pos] != MT_USERDEF && doc->buf[pos] != MT_IVAR &&
							doc->buf[pos] != MT_LINK))
		return MARSHAL_OK;
	TRY(marshal_node(doc, pos, &n, err));
	id = marshal_class_id(&n);
	if (n.type == MT_USERDEF && id == MC_TIME)
		st = marshal_time_json(doc, &n, prec, buf, len, err);
	else if (doc->buf[pos] != MT_USRMARSHAL || n.type != MT_USRMARSHAL)
		return MARSHAL_OK;
	else if (id == MC_DATE || id == MC_DATETIME)
		st = marshal_date_json(doc, &n, id == MC_DATETIME, prec, buf, len, err);
	else if (id == MC_TIME_WITH_ZONE)
		st = marshal_time_with_zone_json(doc, &n, prec, buf, len, err);
	else
		return MARSHAL_OK;
	*ok = st == MARSHAL_OK;
	err->status = MARSHAL_OK;
	return MARSHAL_OK;
}

/*
 * The public readers name the value itself as the place of an error, as
 * the JSON view's messages do: "(at $)".
 */
static MarshalStatus
at_root(MarshalStatus st, MarshalError *err)
{
	if (st == MARSHAL_ERR_UNREPRESENTABLE)
		marshal_error_locate(err, NULL, 0);
	return st;
}

MarshalStatus
marshal_instant(const MarshalDoc *doc, size_t pos, MarshalInstant *t,
				bool *ok, MarshalError *err)
{
	MarshalNode n;
	MarshalTime ti;

	*ok = false;
	err->status = MARSHAL_OK;
	TRY(marshal_node(doc, pos, &n, err));
	if (marshal_class_is(&n, MC_TIME))
		TRY(at_root(marshal_time_decode(doc, &n, &ti, err), err));
	else if (marshal_class_is(&n, MC_TIME_WITH_ZONE))
	{
		/* its first element is the UTC Time */
		MarshalNode arr;
		MarshalNode utc;

		TRY(marshal_node(doc, n.items, &arr, err));
		if (arr.type != MT_ARRAY || arr.count < 1)
			return MARSHAL_OK;
		TRY(marshal_node(doc, arr.items, &utc, err));
		if (utc.type != MT_USERDEF)
			return MARSHAL_OK;
		TRY(at_root(marshal_time_decode(doc, &utc, &ti, err), err));
	}
	else if (marshal_class_is(&n, MC_DATETIME))
	{
		int64_t		f[5];

		TRY(at_root(marshal_date_fields(doc, &n, f, err), err));
		ti.epoch = (f[1] - UNIX_EPOCH_JD) * 86400 + f[2];
		ti.nsec = f[3] % 1000000000;
	}
	else
		return MARSHAL_OK;
	t->epoch = ti.epoch;
	t->nsec = ti.nsec;
	*ok = true;
	return MARSHAL_OK;
}

MarshalStatus
marshal_time_parts(const MarshalDoc *doc, size_t pos, MarshalInstant *t,
				   MarshalTimeParts *parts, bool *ok, MarshalError *err)
{
	MarshalNode n;
	MarshalTime ti;

	*ok = false;
	err->status = MARSHAL_OK;
	TRY(marshal_node(doc, pos, &n, err));
	if (!marshal_class_is(&n, MC_TIME))
		return MARSHAL_OK;
	TRY(at_root(marshal_time_decode(doc, &n, &ti, err), err));
	t->epoch = ti.epoch;
	t->nsec = ti.nsec;
	parts->utc = ti.utc;
	parts->offset = ti.utc ? 0 : ti.offset;
	marshal_civil_from_epoch(ti.epoch + parts->offset, parts);
	*ok = true;
	return MARSHAL_OK;
}

MarshalStatus
marshal_date_jd(const MarshalDoc *doc, size_t pos, int64_t *jd, bool *ok,
				MarshalError *err)
{
	MarshalNode n;
	int64_t		f[5];

	*ok = false;
	err->status = MARSHAL_OK;
	TRY(marshal_node(doc, pos, &n, err));
	if (!marshal_class_is(&n, MC_DATE))
		return MARSHAL_OK;
	TRY(at_root(marshal_date_fields(doc, &n, f, err), err));
	*jd = f[1];
	*ok = true;
	return MARSHAL_OK;
}

bool
marshal_parse_ymd(const char *s, size_t len, MarshalYmd *out)
{
	size_t		i = len > 0 && s[0] == '-';
	size_t		start = i;
	int64_t		y = 0;

	/* the year: digits (18 at most: Ruby prints no more for a Date here) */
	while (i < len && i - start < 18 && s[i] >= '0' && s[i] <= '9')
		y = y * 10 + (s[i++] - '0');
	if (i == start || i + 6 > len || s[i] != '-' || s[i + 3] != '-' ||
		(i + 6 < len && s[i + 6] != 'T'))
		return false;
	for (size_t k = i + 1; k < i + 6; k++)
		if (k != i + 3 && (s[k] < '0' || s[k] > '9'))
			return false;
	out->y = s[0] == '-' ? -y : y;
	out->m = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
	out->d = (s[i + 4] - '0') * 10 + (s[i + 5] - '0');
	return true;
}

static bool
ymd_among(const MarshalYmd *days, int n, int64_t y, int m, int d)
{
	for (int i = 0; i < n; i++)
		if (days[i].y == y && days[i].m == m && days[i].d == d)
			return true;
	return false;
}

/* An Integer written as i at *p, read where it stands. */
static bool
fixnum_at(const MarshalDoc *doc, size_t *p, int64_t *v)
{
	size_t		q = *p + 1;

	if (*p >= doc->len || doc->buf[*p] != MT_FIXNUM ||
		!marshal_decode_long(doc->buf, doc->len, &q, v))
		return false;
	*p = q;
	return true;
}

/* A Time's _dump payload (u :Time <payload>, the class read) at *p. */
static bool
time_payload_at(const MarshalDoc *doc, size_t p, MarshalTime *t)
{
	int64_t		n;
	MarshalError ignored;

	return marshal_decode_long(doc->buf, doc->len, &p, &n) && n >= 0 &&
		(uint64_t) n <= doc->len - p &&
		marshal_time_payload((MarshalBytes) {doc->buf + p, (size_t) n}, p, t,
							 &ignored) == MARSHAL_OK;
}

/*
 * The date of a Date's or DateTime's view ([nth, jd, df, sf, of, sg] at
 * p, five Integers): *jd, the wall clock's Julian Day, which the view
 * prints in the Julian or the Gregorian calendar by sg.
 */
static bool
date_wall_jd(const MarshalDoc *doc, size_t p, bool datetime, int64_t *jd,
			 size_t *sg)
{
	int64_t		v[5];
	int64_t		count;

	if (p >= doc->len || doc->buf[p] != MT_ARRAY)
		return false;
	p++;
	if (!marshal_decode_long(doc->buf, doc->len, &p, &count) || count != 6)
		return false;
	for (int i = 0; i < 5; i++)
		if (!fixnum_at(doc, &p, &v[i]))
			return false;
	/* nth 0: jd is the Julian Day (as date_fields adds nth periods) */
	if (v[0] != 0)
		return false;
	*jd = v[1];
	*sg = p;
	if (datetime)
		*jd += marshal_floor_div(v[2] + v[4], 86400);
	return true;
}

/* Where a Date's sg ends (a link, or a Float written there); 0 if not known. */
static size_t
sg_end(const MarshalDoc *doc, size_t p)
{
	int64_t		n;
	int			t;

	if (p >= doc->len)
		return 0;
	t = doc->buf[p++];
	if ((t != MT_LINK && t != MT_FLOAT) ||
		!marshal_decode_long(doc->buf, doc->len, &p, &n) || n < 0)
		return 0;
	if (t == MT_FLOAT)
	{
		if ((uint64_t) n > doc->len - p)
			return 0;
		p += (size_t) n;
	}
	return p;
}

MarshalStatus
marshal_view_date_excludes(const MarshalDoc *doc, size_t pos,
						   const MarshalYmd *days, int ndays, bool *excluded,
						   size_t *end, MarshalError *err)
{
	const uint8_t *b = doc->buf;
	size_t		p = pos + (pos < doc->len && b[pos] == MT_IVAR);
	int			type;
	MarshalBytes name;
	MarshalTime t;
	MarshalTimeParts c;
	int64_t		jd;

	*excluded = false;
	*end = 0;
	if (p + 1 >= doc->len || (b[p] != MT_USERDEF && b[p] != MT_USRMARSHAL) ||
		(b[p] == MT_USRMARSHAL && p != pos))
		return MARSHAL_OK;		/* a wrapped U: the view's own way */
	type = b[p];
	TRY(marshal_symbol(doc, p + 1, &name, NULL, NULL, &p, err));
	if (type == MT_USERDEF)
	{
		/* a Time in UTC prints its payload's wall clock */
		if (!marshal_bytes_eq(name, "Time") || !time_payload_at(doc, p, &t) || !t.utc)
			return MARSHAL_OK;
		marshal_civil_from_epoch(t.epoch, &c);
		*excluded = !ymd_among(days, ndays, c.year, c.month, c.day);
		return MARSHAL_OK;
	}
	if (marshal_bytes_eq(name, "Date") || marshal_bytes_eq(name, "DateTime"))
	{
		int64_t		y[2];
		int			m[2];
		int			d[2];

		size_t		sg;

		if (!date_wall_jd(doc, p, name.len == 8, &jd, &sg) || jd > INT64_MAX / 8 ||
			jd < INT64_MIN / 8)
			return MARSHAL_OK;
		/* whichever calendar sg picks */
		marshal_civil_from_days(jd - UNIX_EPOCH_JD, &y[0], &m[0], &d[0]);
		marshal_julian_from_jd(jd, &y[1], &m[1], &d[1]);
		*excluded = !ymd_among(days, ndays, y[0], m[0], d[0]) &&
			!ymd_among(days, ndays, y[1], m[1], d[1]);
		/* the Date ends with sg: no need to skip it again */
		*end = *excluded ? sg_end(doc, sg) : 0;
		return MARSHAL_OK;
	}
	if (marshal_bytes_eq(name, "ActiveSupport::TimeWithZone"))
	{
		int64_t		count;

		/* [utc, zone, local]: the local Time in UTC mode is the wall clock */
		if (p >= doc->len || b[p++] != MT_ARRAY ||
			!marshal_decode_long(b, doc->len, &p, &count) || count != 3)
			return MARSHAL_OK;
		TRY(marshal_skip(doc, p, &p, err));
		TRY(marshal_skip(doc, p, &p, err));
		p += p < doc->len && b[p] == MT_IVAR;
		if (p + 1 >= doc->len || b[p] != MT_USERDEF)
			return MARSHAL_OK;
		TRY(marshal_symbol(doc, p + 1, &name, NULL, NULL, &p, err));
		if (!marshal_bytes_eq(name, "Time") || !time_payload_at(doc, p, &t) || !t.utc)
			return MARSHAL_OK;
		marshal_civil_from_epoch(t.epoch, &c);
		*excluded = !ymd_among(days, ndays, c.year, c.month, c.day);
	}
	return MARSHAL_OK;
}
