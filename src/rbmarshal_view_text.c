/*
 * rbmarshal_view_text.c
 *		The JSON view of one value as text without a JsonbValue, and the
 *		shapes of the views some classes always have.
 *
 * For the set-returning functions' _text forms and ?, ?|, ?& on Arrays
 * (issue 15): a sink that keeps a scalar's kind and text, or jsonb's text
 * of an Array of scalars and Arrays, where building a JsonbValue per
 * element and printing it cost several times jsonb's own function; and the
 * shapes (a Date's text is digits and '-'...) that let most keys be
 * rejected without converting an element at all.
 */
#include "rbmarshal.h"

#include "utils/builtins.h"
#include "utils/json.h"
#include "mb/pg_wchar.h"

/* Keys in other Ruby encodings compare as the text they convert to. */
static const MarshalTranscoder transcoder = {rbmarshal_transcode, NULL};

/*
 * A number's text as jsonb prints it: through numeric, as jsonb_in reads
 * it.  Plain decimal text (Float#to_s's "0.25", not "1.0e+20") numeric
 * prints as it is, but for a negative zero.
 */
char *
rbmarshal_numeric_text(const char *s, size_t len)
{
	Datum		n;
	bool		neg = len > 0 && s[0] == '-';
	size_t		i = neg;
	size_t		start = i;
	bool		nonzero = false;
	bool		plain;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		nonzero |= s[i++] != '0';
	plain = i > start && (i == start + 1 || s[start] != '0') && i < len && s[i] == '.';
	if (plain)
	{
		start = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			nonzero |= s[i++] != '0';
		plain = i == len && i > start && (nonzero || !neg);
	}
	if (plain)
		return pnstrdup(s, len);
	n = DirectFunctionCall3(numeric_in, CStringGetDatum(pnstrdup(s, len)),
							ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	return DatumGetCString(DirectFunctionCall1(numeric_out, n));
}

/* An Array element's place in the text: ", " before all but the first. */
static bool
vt_element(ViewText *vt)
{
	if (vt->depth == 0)
		return false;
	if (vt->want_text && !vt->redo)
	{
		if (!vt->first)
			appendStringInfoString(&vt->text, ", ");
		vt->first = false;
	}
	return vt->want_text && !vt->redo;
}

static void
vt_begin_object(void *ctx)
{
	ViewText   *vt = ctx;

	vt->redo = true;
	vt->depth++;
}

static void
vt_end(void *ctx)
{
	ViewText   *vt = ctx;

	vt->depth--;
	if (vt->want_text && !vt->redo)
		appendStringInfoChar(&vt->text, ']');
	vt->first = false;
}

static void
vt_begin_array(void *ctx)
{
	ViewText   *vt = ctx;

	if (vt->depth == 0)
		vt->kind = VT_ARRAY;
	if (vt->depth == 0 || vt_element(vt))
	{
		if (vt->want_text)
			appendStringInfoChar(&vt->text, '[');
	}
	vt->first = true;
	vt->depth++;
}

static void
vt_key(void *ctx, const char *s, size_t len, bool stable)
{
	/* only objects have keys, and they redo */
}

static void
vt_string(void *ctx, const char *s, size_t len, bool stable)
{
	ViewText   *vt = ctx;

	if (vt->depth == 0)
	{
		vt->kind = VT_STRING;
		if (!stable)
		{
			/* the walk's scratch: kept until the next value */
			resetStringInfo(&vt->copy);
			appendBinaryStringInfo(&vt->copy, s, (int) len);
			s = vt->copy.data;
		}
		vt->s = s;
		vt->len = len;
	}
	else if (vt_element(vt))
	{
		char	   *conv = pg_any_to_server(s, (int) len, PG_UTF8);

		escape_json(&vt->text, conv == s ? pnstrdup(s, len) : conv);
	}
}

static void
vt_null(void *ctx)
{
	ViewText   *vt = ctx;

	if (vt->depth == 0)
		vt->kind = VT_NULL;
	else if (vt_element(vt))
		appendStringInfoString(&vt->text, "null");
}

static void
vt_boolean(void *ctx, bool value)
{
	ViewText   *vt = ctx;

	if (vt->depth == 0)
	{
		vt->kind = VT_BOOL;
		vt->bval = value;
	}
	else if (vt_element(vt))
		appendStringInfoString(&vt->text, value ? "true" : "false");
}

static void
vt_integer(void *ctx, int64_t value)
{
	ViewText   *vt = ctx;

	if (vt->depth == 0)
	{
		vt->kind = VT_INTEGER;
		vt->ival = value;
	}
	else if (vt_element(vt))
		appendStringInfo(&vt->text, INT64_FORMAT, (int64) value);
}

static void
vt_number(void *ctx, const char *s, size_t len)
{
	ViewText   *vt = ctx;

	if (vt->depth == 0)
	{
		vt->kind = VT_NUMBER;
		resetStringInfo(&vt->copy);
		appendBinaryStringInfo(&vt->copy, s, (int) len);
		vt->s = vt->copy.data;
		vt->len = len;
	}
	else if (vt_element(vt))
		appendStringInfoString(&vt->text, rbmarshal_numeric_text(s, len));
}

static bool
vt_json(void *ctx, const char *s, size_t len, bool hash_only)
{
	((ViewText *) ctx)->column = ((ViewText *) ctx)->redo = true;
	return true;
}

static bool
vt_yaml(void *ctx, const struct MarshalYamlColumn *col)
{
	((ViewText *) ctx)->column = ((ViewText *) ctx)->redo = true;
	return true;
}

/*
 * Walk the JSON view of the value at pos into vt (whose StringInfos are
 * made by the caller), as v::jsonb's defaults make it.
 */
void
rbmarshal_view_text(MarshalDoc *doc, size_t pos, ViewText *vt)
{
	MarshalJsonSink sink = {
		vt, vt_begin_object, vt_end, vt_begin_array, vt_end, vt_key,
		vt_string, vt_null, vt_boolean, vt_integer, vt_number, &transcoder,
		vt_json, vt_yaml
	};
	MarshalJsonOptions opts = MARSHAL_JSON_DEFAULTS;
	MarshalError err;

	vt->kind = VT_NONE;
	vt->redo = false;
	vt->column = false;
	vt->depth = 0;
	vt->first = true;
	if (vt->want_text)
		resetStringInfo(&vt->text);
	opts.max_depth = (uint32_t) rbmarshal_max_depth;
	if (marshal_to_json_at(doc, pos, &sink, &opts, rbmarshal_hooks(), &err) != MARSHAL_OK)
		rbmarshal_report(&err, NULL, "jsonb");
}

/* UTF-8 text (the stream's, or the view's) as text in the server encoding. */
text *
rbmarshal_server_text(const char *s, size_t len)
{
	char	   *conv = pg_any_to_server(s, (int) len, PG_UTF8);

	return conv == s ? cstring_to_text_with_len(s, (int) len) : cstring_to_text(conv);
}


/* The shapes a key could have (SHAPE_BIT of each). */
unsigned
rbmarshal_key_shapes(const char *k, size_t len)
{
	bool		t = false;
	bool		colon = false;
	bool		time_chars = true;
	bool		date_chars = true;
	bool		decimal_chars = true;

	for (size_t i = 0; i < len; i++)
	{
		char		c = k[i];
		bool		digit = c >= '0' && c <= '9';

		t |= c == 'T';
		colon |= c == ':';
		time_chars &= digit || strchr("-+.:TZ", c) != NULL;
		date_chars &= digit || c == '-';
		decimal_chars &= digit || c == '-' || c == '.';
	}
	return SHAPE_BIT(SHAPE_ANY) |
		(t && colon && time_chars ? SHAPE_BIT(SHAPE_TIME) : 0) |
		(len > 0 && date_chars ? SHAPE_BIT(SHAPE_DATE) : 0) |
		(len > 0 && decimal_chars ? SHAPE_BIT(SHAPE_DECIMAL) : 0);
}

/*
 * The shape of the view of a u or U object (I-wrapped or not) at pos, by
 * its class alone.
 */
Shape
rbmarshal_class_shape(MarshalDoc *doc, size_t pos)
{
	size_t		p = pos + (doc->buf[pos] == MT_IVAR);
	int			type = doc->buf[p];
	MarshalBytes name;
	MarshalError err;
	size_t		after;
	static const struct
	{
		int			type;
		const char *name;
		Shape		shape;
	}			shapes[] = {
		{MT_USERDEF, "Time", SHAPE_TIME},
		{MT_USERDEF, "BigDecimal", SHAPE_DECIMAL},
		{MT_USRMARSHAL, "Date", SHAPE_DATE},
		{MT_USRMARSHAL, "DateTime", SHAPE_TIME},
		{MT_USRMARSHAL, "ActiveSupport::TimeWithZone", SHAPE_TIME},
	};

	if (p + 1 >= doc->len || (type != MT_USERDEF && type != MT_USRMARSHAL))
		return SHAPE_ANY;
	rbmarshal_check_status(marshal_symbol(doc, p + 1, &name, NULL, NULL, &after,
										  &err), &err);
	for (int i = 0; i < lengthof(shapes); i++)
		if (shapes[i].type == type && name.len == strlen(shapes[i].name) &&
			memcmp(name.ptr, shapes[i].name, name.len) == 0)
			return shapes[i].shape;
	return SHAPE_ANY;
}

/*
 * Whether an ISO-8859-1 String (no ivars but its encoding) cannot equal any
 * key: its UTF-8 text is one byte per ASCII byte and two per other byte,
 * so only a key of that length could.  A NUL byte is left to the
 * conversion (which refuses it).
 */
bool
rbmarshal_latin1_no_key(const MarshalNode *n, const size_t *keylens, int nkeys,
			  const char *const *keys)
{
	size_t		utf8len = n->data.len;

	if (n->encname.len != 10 || memcmp(n->encname.ptr, "ISO-8859-1", 10) != 0 ||
		n->uclass.len != 0)
		return false;
	for (size_t i = 0; i < n->data.len; i++)
	{
		if (n->data.ptr[i] == 0)
			return false;
		utf8len += n->data.ptr[i] >> 7;
	}
	for (int i = 0; i < nkeys; i++)
		if (keys[i] != NULL && keylens[i] == utf8len)
			return false;
	return true;
}


/*
 * The UTF-8 text of an ISO-8859-1 String whose only ivar is its encoding
 * (as the view's transcoding gives it: each byte from 0x80 on is U+0080 to
 * U+00FF), in scratch (2 * len bytes); false for any other value, and for
 * one with a NUL byte (the conversion refuses it).
 */
bool
rbmarshal_latin1_text(MarshalDoc *doc, const MarshalNode *n, StringInfo scratch)
{
	MarshalError err;
	int64_t		count;
	size_t		after;

	if (n->type != MT_STRING || n->encoding != MENC_NAMED || n->uclass.len != 0 ||
		n->nextended != 0 || !n->has_ivars || n->encname.len != 10 ||
		memcmp(n->encname.ptr, "ISO-8859-1", 10) != 0)
		return false;
	rbmarshal_check_status(marshal_long(doc, n->ivars, &count, &after, &err), &err);
	if (count != 1 || memchr(n->data.ptr, 0, n->data.len) != NULL)
		return false;
	resetStringInfo(scratch);
	enlargeStringInfo(scratch, (int) (2 * n->data.len));
	for (size_t i = 0; i < n->data.len; i++)
	{
		uint8_t		c = n->data.ptr[i];

		if (c < 0x80)
			scratch->data[scratch->len++] = (char) c;
		else
		{
			scratch->data[scratch->len++] = (char) (0xC0 | c >> 6);
			scratch->data[scratch->len++] = (char) (0x80 | (c & 0x3F));
		}
	}
	scratch->data[scratch->len] = '\0';
	return true;
}
