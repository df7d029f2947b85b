/*
 * marshal_json_scalar.c
 *		The JSON view of values that are JSON scalars in Rails' as_json:
 *		BigDecimal, Regexp, Range, Rational and Complex, Duration, TimeZone
 *		and Exception, IPAddr/URI/Pathname, Process::Status, and the Date and
 *		TimeWithZone a U dumps (the walk: marshal_json.c).
 */
#include "marshal_internal.h"
#include "marshal_json_walk.h"
#include "marshal_to_s.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BigDecimal's _dump "18:0.12345e3", read as BigDecimal._load, as to_s("F"). */
MarshalStatus
jw_emit_bigdecimal(Walk *w, const MarshalNode *n)
{
	MarshalDecimal d;
	char	   *digits = marshal_alloc(w->hooks, n->data.len + 1);
	char	   *out;
	size_t		len;
	MarshalStatus st;

	if (digits == NULL)
		return jw_fail(w, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
	if (!marshal_decimal_load(n->data.ptr, n->data.len, digits, &d))
	{
		marshal_free(w->hooks, digits);
		return jw_fail(w, MARSHAL_ERR_FORMAT, n->pos,
					"a BigDecimal payload that BigDecimal._load refuses");
	}
	if (d.kind != MDEC_FINITE)
	{
		marshal_free(w->hooks, digits);
		w->sink->null(w->sink->ctx);
		return MARSHAL_OK;
	}
	if ((st = jw_charge(w, n->pos, marshal_decimal_text_size(&d))) != MARSHAL_OK)
	{
		marshal_free(w->hooks, digits);
		return st;
	}
	out = marshal_alloc(w->hooks, marshal_decimal_text_size(&d));
	if (out == NULL)
	{
		marshal_free(w->hooks, digits);
		return jw_fail(w, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
	}
	len = marshal_decimal_to_s(&d, true, out);
	w->sink->string(w->sink->ctx, out, len, false);
	marshal_free(w->hooks, out);
	marshal_free(w->hooks, digits);
	return MARSHAL_OK;
}

/* Regexp#to_s (marshal_regexp_to_s). */
MarshalStatus
jw_emit_regexp(Walk *w, const MarshalNode *n)
{
	char	   *out = marshal_alloc(w->hooks, marshal_regexp_to_s(n, NULL) + 1);
	size_t		o;
	MarshalStatus st = MARSHAL_OK;

	if (out == NULL)
		return jw_fail(w, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
	o = marshal_regexp_to_s(n, out);
	if (marshal_utf8_valid((const uint8_t *) out, o, false))
		w->sink->string(w->sink->ctx, out, o, false);
	else
	{
		MarshalBytes none = {NULL, 0};

		st = jw_emit_text(w, n->pos, (const uint8_t *) out, o, MENC_BINARY, none, false);
	}
	marshal_free(w->hooks, out);
	return st;
}

/* Range#to_s: its ends' to_s (marshal_to_s). */
static OWN_FRAME MarshalStatus
emit_range(Walk *w, const MarshalNode *n)
{
	char		out[400];
	size_t		len;
	bool		ok;
	size_t		end;
	MarshalNode e;

	TRY(jw_located(w, marshal_to_s(w->doc, n->pos, out, sizeof(out), &len, &ok, w->err)));
	if (ok)
	{
		w->sink->string(w->sink->ctx, out, len, false);
		return MARSHAL_OK;
	}
	/* name the class of the end whose to_s is not in the bytes */
	TRY(marshal_find_ivar(w->doc, n->items, n->count, "begin", &end, w->err));
	if (end)
	{
		TRY(marshal_node(w->doc, end, &e, w->err));
		TRY(marshal_to_s(w->doc, end, out, sizeof(out) / 2, &len, &ok, w->err));
	}
	if (!end || ok)
	{
		TRY(marshal_find_ivar(w->doc, n->items, n->count, "end", &end, w->err));
		if (end)
			TRY(marshal_node(w->doc, end, &e, w->err));
	}
	if (!end)
		return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos, "Range without begin, end and excl");
	{
		char		name[CLASS_SHOWN];

		return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos,
					"a Range of %s cannot be converted", jw_class_text(&e, name));
	}
}

/* Rational "3/4" and Complex "1+2i": their to_s (marshal_to_s). */
static OWN_FRAME MarshalStatus
emit_numeric_pair(Walk *w, const MarshalNode *n, bool complex)
{
	char		out[400];
	size_t		len;
	bool		ok;

	TRY(jw_located(w, marshal_to_s(w->doc, n->pos, out, sizeof(out), &len, &ok, w->err)));
	if (!ok)
		return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos, "%s of unsupported parts",
					complex ? "Complex" : "Rational");
	w->sink->string(w->sink->ctx, out, len, false);
	return MARSHAL_OK;
}

/* ActiveSupport::Duration: its @value; as_json of a Float one is to_i. */
static OWN_FRAME MarshalStatus
emit_duration(Walk *w, const MarshalNode *n)
{
	size_t		vpos;
	size_t		ignored;
	MarshalNode v;

	TRY(marshal_find_ivar(w->doc, n->items, n->count, "@value", &vpos, w->err));
	if (!vpos)
		return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos, "Duration without @value");
	TRY(marshal_node(w->doc, vpos, &v, w->err));
	if (v.type == MT_FLOAT)
	{
		double		d;

		if (!marshal_parse_float(v.data.ptr, v.data.len, &d) || !isfinite(d) ||
			fabs(d) > 9.2e18)
			return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos,
						"Duration of a non-finite number of seconds");
		w->sink->integer(w->sink->ctx, (int64_t) d);
		return MARSHAL_OK;
	}
	return jw_emit_value(w, vpos, &ignored);
}

/*
 * An object that is its @name (ActiveSupport::TimeZone) or, an Exception,
 * its message (internal ivar "mesg"), else its class name.
 */
static MarshalStatus
emit_named_object(Walk *w, const MarshalNode *n)
{
	size_t		vpos;
	size_t		ignored;
	MarshalNode m;
	MarshalBytes none = {NULL, 0};

	if (marshal_class_is(n, MC_TIME_ZONE))
	{
		TRY(marshal_find_ivar(w->doc, n->items, n->count, "@name", &vpos, w->err));
		if (vpos)
			return jw_emit_value(w, vpos, &ignored);
		w->sink->null(w->sink->ctx);
		return MARSHAL_OK;
	}
	TRY(marshal_find_ivar(w->doc, n->items, n->count, "mesg", &vpos, w->err));
	TRY(marshal_node(w->doc, vpos, &m, w->err));
	if (m.type == MT_NIL)
		return jw_emit_text(w, n->pos, n->cls.ptr, n->cls.len, MENC_UTF8, none, false);
	return jw_emit_value(w, vpos, &ignored);
}

/* IPAddr, URI, Pathname, Multibyte::Chars: as_json is to_s (marshal_to_s). */
static MarshalStatus
emit_to_s(Walk *w, const MarshalNode *n)
{
	size_t		end;
	size_t		size;
	char	   *out;
	size_t		len;
	bool		ok;
	MarshalStatus st;

	/* the text is made of the object's own strings */
	TRY(marshal_skip(w->doc, n->pos, &end, w->err));
	size = end - n->pos + 80;
	TRY(jw_charge(w, n->pos, size));
	if ((out = marshal_alloc(w->hooks, size)) == NULL)
		return jw_fail(w, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
	st = jw_located(w, marshal_to_s(w->doc, n->pos, out, size, &len, &ok, w->err));
	if (st == MARSHAL_OK && ok)
		w->sink->string(w->sink->ctx, out, len, false);
	marshal_free(w->hooks, out);
	if (st == MARSHAL_OK && !ok)
	{
		char		name[CLASS_SHOWN];

		return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos,
					"%s without the instance variables its to_s reads", jw_class_text(n, name));
	}
	return st;
}

/* Process::Status: {"exitstatus": status >> 8 if it exited, else nil, "pid": pid} */
static MarshalStatus
emit_process_status(Walk *w, const MarshalNode *n)
{
	size_t		sv;
	size_t		pv;
	MarshalNode status;
	size_t		ignored;

	TRY(marshal_find_ivar(w->doc, n->items, n->count, "status", &sv, w->err));
	TRY(marshal_find_ivar(w->doc, n->items, n->count, "pid", &pv, w->err));
	if (!sv || !pv)
		return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos,
					"Process::Status without status and pid");
	TRY(marshal_node(w->doc, sv, &status, w->err));
	if (status.type != MT_FIXNUM)
		return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, n->pos,
					"Process::Status whose status is not an Integer");
	w->sink->begin_object(w->sink->ctx);
	w->sink->key(w->sink->ctx, "exitstatus", 10, true);
	if ((status.ival & 0x7f) == 0)
		w->sink->integer(w->sink->ctx, (status.ival >> 8) & 0xff);
	else
		w->sink->null(w->sink->ctx);
	w->sink->key(w->sink->ctx, "pid", 3, true);
	TRY(jw_emit_value(w, pv, &ignored));
	w->sink->end_object(w->sink->ctx);
	return MARSHAL_OK;
}

/* Objects and U classes that are JSON scalars (MV_SCALAR containers). */
MarshalStatus
jw_emit_scalar_object(Walk *w, const MarshalNode *n)
{
	MarshalClassId id = marshal_class_id(n);
	char		buf[80];
	size_t		len;
	MarshalStatus st;

	if (n->type == MT_USRMARSHAL)
	{
		switch (id)
		{
			case MC_DATE:
			case MC_DATETIME:
				st = marshal_date_json(w->doc, n, id == MC_DATETIME,
									   w->opts.time_precision, buf, &len, w->err);
				return jw_emit_time_text(w, st, buf, len);
			case MC_TIME_WITH_ZONE:
				st = marshal_time_with_zone_json(w->doc, n, w->opts.time_precision,
												 buf, &len, w->err);
				return jw_emit_time_text(w, st, buf, len);
			default:
				/* Rational, Complex (and a U whose data leads back to it) */
				return emit_numeric_pair(w, n, id == MC_COMPLEX);
		}
	}
	if (n->type != MT_OBJECT)
	{
		/* the flat data a U dumped (nil, a number, a String, a Time...) */
		return jw_emit_flat(w, n);
	}
	switch (id)
	{
		case MC_RANGE:
			return emit_range(w, n);
		case MC_DURATION:
			return emit_duration(w, n);
		case MC_IPADDR:
		case MC_URI:
		case MC_PATHNAME:
		case MC_CHARS:
			return emit_to_s(w, n);
		case MC_PROCESS_STATUS:
			return emit_process_status(w, n);
		default:
			return emit_named_object(w, n);
	}
}
