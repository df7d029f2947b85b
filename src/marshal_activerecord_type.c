/*
 * marshal_activerecord_type.c
 *		What an Active Record type object in the stream casts to: its class
 *		(ActiveModel's, ActiveRecord's, the postgresql adapter's OID types),
 *		@precision/@scale, an array's or range's @subtype, a
 *		TimeZoneConverter around it, serialize's coder and class.
 *
 * A record's attributes carry the type objects of the model's schema (6.1
 * format: @types or each Attribute's @type; 7.1 format only in to_yaml).
 * marshal_activerecord.c casts a value by what marshal_record_type reads
 * here.  A type this file does not know is TK_NONE: the value stays as it
 * was.
 */
#include "marshal_activerecord_type.h"

#include <string.h>

#define TZ_CONVERTER "ActiveRecord::AttributeMethods::TimeZoneConversion::TimeZoneConverter"

/* the type classes whose cast marshal_activerecord.c reproduces */
static const struct
{
	const char *name;
	TypeKind	kind;
}			type_classes[] = {
	{"ActiveModel::Type::Integer", TK_INTEGER},
	{"ActiveModel::Type::BigInteger", TK_INTEGER},
	{"ActiveRecord::Type::DecimalWithoutScale", TK_INTEGER},
	{"ActiveRecord::ConnectionAdapters::SQLite3Adapter::SQLite3Integer", TK_INTEGER},
	{"ActiveModel::Type::Float", TK_FLOAT},
	{"ActiveModel::Type::Decimal", TK_DECIMAL},
	{"ActiveModel::Type::Boolean", TK_BOOLEAN},
	{"ActiveModel::Type::String", TK_STRING},
	{"ActiveModel::Type::ImmutableString", TK_STRING},
	{"ActiveRecord::Type::Text", TK_STRING},
	{"ActiveModel::Type::Date", TK_DATE},
	{"ActiveRecord::Type::Date", TK_DATE},
	{"ActiveModel::Type::DateTime", TK_DATETIME},
	{"ActiveRecord::Type::DateTime", TK_DATETIME},
	{"ActiveModel::Type::Binary", TK_BINARY},
	{"ActiveRecord::Type::Json", TK_JSON},
	/* the postgresql adapter's types whose casts are those above */
	{PG_OID "Jsonb", TK_JSON},
	{PG_OID "Decimal", TK_DECIMAL},
	{PG_OID "DateTime", TK_DATETIME},
	{PG_OID "Timestamp", TK_DATETIME},
	{PG_OID "TimestampWithTimeZone", TK_DATETIME_UTC},
	{PG_OID "Date", TK_DATE},
	{PG_OID "Oid", TK_INTEGER},
	{PG_OID "Uuid", TK_UUID},
	{PG_OID "Inet", TK_INET},
	{PG_OID "Array", TK_ARRAY},
	{PG_OID "Hstore", TK_HSTORE},
	{PG_OID "Money", TK_MONEY},
	{PG_OID "Point", TK_POINT},
	{PG_OID "Range", TK_RANGE},
	{PG_OID "Bytea", TK_BINARY},
	{PG_OID "Interval", TK_INTERVAL},
	{PG_OID "Cidr", TK_INET},
	{PG_OID "Enum", TK_STRING},
	{PG_OID "Xml", TK_STRING},
	{PG_OID "Bit", TK_STRING},
	{PG_OID "BitVarying", TK_STRING},
	{PG_OID "SpecializedString", TK_STRING},
	{"ActiveModel::Type::Time", TK_TIME},
	{"ActiveRecord::Type::Time", TK_TIME},
};

static MarshalStatus
ivar_int(const MarshalDoc *doc, const MarshalNode *n, const char *name,
		 bool *has, int64_t *v, MarshalError *err)
{
	size_t		pos;
	MarshalNode x;

	*has = false;
	TRY(marshal_find_ivar(doc, n->items, n->count, name, &pos, err));
	if (pos == 0)
		return MARSHAL_OK;
	TRY(marshal_node(doc, pos, &x, err));
	if (x.type == MT_FIXNUM)
	{
		*has = true;
		*v = x.ival;
	}
	return MARSHAL_OK;
}

/*
 * A DelegateClass's U data [:__v2__, [ivar names], [ivar values], obj]: the
 * wrapped object, and the value of one ivar (0 if absent).
 */
static MarshalStatus
delegate_parts(const MarshalDoc *doc, size_t data, const char *ivar,
			   size_t *obj, size_t *ivar_value, MarshalError *err)
{
	MarshalNode arr;
	MarshalNode names;
	MarshalNode values;
	size_t		p;

	*obj = *ivar_value = 0;
	TRY(marshal_node(doc, data, &arr, err));
	if (arr.type != MT_ARRAY || arr.count != 4)
		return MARSHAL_OK;
	TRY(marshal_skip(doc, arr.items, &p, err));
	TRY(marshal_node(doc, p, &names, err));
	TRY(marshal_skip(doc, p, &p, err));
	TRY(marshal_node(doc, p, &values, err));
	TRY(marshal_skip(doc, p, obj, err));
	if (names.type != MT_ARRAY || values.type != MT_ARRAY ||
		names.count != values.count)
		return MARSHAL_OK;
	{
		size_t		np = names.items;
		size_t		vp = values.items;

		for (uint32_t i = 0; i < names.count; i++)
		{
			MarshalNode nm;

			TRY(marshal_node(doc, np, &nm, err));
			if (nm.type == MT_SYMBOL && ivar && marshal_bytes_eq(nm.data, ivar))
				*ivar_value = vp;
			TRY(marshal_skip(doc, np, &np, err));
			TRY(marshal_skip(doc, vp, &vp, err));
		}
	}
	return MARSHAL_OK;
}

/*
 * serialize's coder: Coders::JSON, a YAMLColumn, a ColumnSerializer (7.1+:
 * serialize type: C with any other coder) around either, or a coder of the
 * app's (a Marshal stream); store's IndifferentCoder around one of them.  A YAMLColumn or ColumnSerializer names the
 * @object_class; 7.1's YAMLColumn has a SafeCoder with the classes it
 * permits and its unsafe_load.
 */
static MarshalStatus
read_coder(const MarshalDoc *doc, const MarshalNode *c, RecordType *t,
		   MarshalError *err)
{
	size_t		p;
	MarshalNode x;
	bool		wrapper = c->type == MT_OBJECT &&
		marshal_bytes_eq(c->cls, "ActiveRecord::Coders::ColumnSerializer");

	if (c->type == MT_OBJECT && !t->serial.store &&
		marshal_bytes_eq(c->cls, "ActiveRecord::Store::IndifferentCoder"))
	{
		/* store: the coder it wraps, whose value it makes a Hash */
		t->serial.store = true;
		TRY(marshal_find_ivar(doc, c->items, c->count, "@coder", &p, err));
		if (p == 0)
			return MARSHAL_OK;
		TRY(marshal_node(doc, p, &x, err));
		return read_coder(doc, &x, t, err);
	}

	if ((c->type == MT_MODULE || c->type == MT_CLASS) &&
		(marshal_bytes_eq(c->data, "ActiveRecord::Coders::JSON") ||
		 (t->serial.store && marshal_bytes_eq(c->data, "JSON"))))
	{
		/* 6.1's store keeps ::JSON itself (JSON.load: blank is nil too) */
		t->kind = TK_SERIAL_JSON;
		return MARSHAL_OK;
	}
	if (!wrapper && !marshal_class_is(c, MC_YAML_COLUMN))
	{
		t->kind = TK_SERIAL_CODER;
		return MARSHAL_OK;
	}
	TRY(marshal_find_ivar(doc, c->items, c->count, "@object_class", &p, err));
	if (p == 0)
		return MARSHAL_OK;
	TRY(marshal_node(doc, p, &x, err));
	if (x.type != MT_CLASS)
		return MARSHAL_OK;
	if (!marshal_bytes_eq(x.data, "Object"))
		t->serial.object_class = x.data;
	TRY(marshal_find_ivar(doc, c->items, c->count, "@coder", &p, err));
	if (wrapper)
	{
		/* the coder it wraps: the object class applies to its value */
		if (p == 0)
			return MARSHAL_OK;
		TRY(marshal_node(doc, p, &x, err));
		t->kind = (x.type == MT_MODULE || x.type == MT_CLASS) &&
			marshal_bytes_eq(x.data, "ActiveRecord::Coders::JSON") ? TK_SERIAL_JSON :
			TK_SERIAL_CODER;
		return MARSHAL_OK;
	}
	t->kind = TK_SERIAL_YAML;
	if (p == 0)
		return MARSHAL_OK;		/* 6.1: no coder of its own */
	TRY(marshal_node(doc, p, &x, err));
	if (x.type != MT_OBJECT)
		return MARSHAL_OK;
	{
		size_t		list;
		size_t		unsafe;
		MarshalNode a;

		TRY(marshal_find_ivar(doc, x.items, x.count, "@unsafe_load", &unsafe, err));
		if (unsafe)
		{
			TRY(marshal_node(doc, unsafe, &a, err));
			t->serial.unsafe_load = a.type == MT_TRUE;
		}
		TRY(marshal_find_ivar(doc, x.items, x.count, "@permitted_classes", &list, err));
		if (list == 0)
			return MARSHAL_OK;
		TRY(marshal_node(doc, list, &a, err));
		if (a.type != MT_ARRAY)
			return MARSHAL_OK;
		p = a.items;
		for (uint32_t i = 0; i < a.count && t->serial.npermitted < MARSHAL_YAML_PERMITTED; i++)
		{
			TRY(marshal_node(doc, p, &x, err));
			if (x.type == MT_CLASS)
				t->serial.permitted[t->serial.npermitted++] = x.data;
			TRY(marshal_skip(doc, p, &p, err));
		}
	}
	return MARSHAL_OK;
}

/*
 * The elements' type of a 7.1-format array: OID::Array's PG::TextEncoder::Array
 * is named "#{subtype.type}[]", and its marshal_dump is Marshal.dump(to_h)
 * ({oid:, format:, flags:, name: "jsonb[]", ...}).  The name is found after
 * the Symbol :name's definition; the types whose values for the database
 * are text the element's cast reads again.
 */
static MarshalStatus
encoder_type(const MarshalDoc *doc, const MarshalNode *n, RecordType *t,
			 MarshalError *err)
{
	static const struct
	{
		const char *name;
		TypeKind	kind;
	}			types[] = {
		{"json", TK_JSON}, {"jsonb", TK_JSON}, {"hstore", TK_HSTORE},
		{"point", TK_POINT}, {"interval", TK_INTERVAL}, {"inet", TK_INET},
		{"cidr", TK_INET}, {"binary", TK_BINARY},
	};
	static const uint8_t key[] = {':', 5 + 4, 'n', 'a', 'm', 'e', 'I', '"'};
	MarshalNode data;
	const uint8_t *b;
	size_t		len;

	TRY(marshal_node(doc, n->items, &data, err));
	if (data.type != MT_STRING)
		return MARSHAL_OK;
	b = data.data.ptr;
	len = data.data.len;
	for (size_t i = 0; i + sizeof(key) + 1 < len; i++)
	{
		size_t		nlen;

		if (memcmp(b + i, key, sizeof(key)) != 0)
			continue;
		/* a short String: its length byte is len + 5 */
		if (b[i + sizeof(key)] < 6 || b[i + sizeof(key)] > 0x7f)
			return MARSHAL_OK;
		nlen = b[i + sizeof(key)] - 5;
		if (i + sizeof(key) + 1 + nlen > len || nlen < 3 ||
			memcmp(b + i + sizeof(key) + 1 + nlen - 2, "[]", 2) != 0)
			return MARSHAL_OK;
		for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
			if (strlen(types[k].name) == nlen - 2 &&
				memcmp(types[k].name, b + i + sizeof(key) + 1, nlen - 2) == 0)
				t->kind = types[k].kind;
		return MARSHAL_OK;
	}
	return MARSHAL_OK;
}

MarshalStatus
marshal_record_type(const MarshalDoc *doc, size_t pos, RecordType *t,
					MarshalError *err)
{
	MarshalNode n;

	memset(t, 0, sizeof(*t));
	TRY(marshal_node(doc, pos, &n, err));
	if (n.type == MT_USRMARSHAL && marshal_bytes_eq(n.cls, "PG::TextEncoder::Array"))
		return encoder_type(doc, &n, t, err);
	if (marshal_class_is(&n, MC_TIME_ZONE_CONVERTER) ||
		(n.type == MT_OBJECT && marshal_bytes_eq(n.cls, TZ_CONVERTER)))
	{
		size_t		obj;
		size_t		unused;

		/* a DelegateClass: marshal_dump's data, or to_yaml's @delegate_dc_obj */
		if (n.type == MT_OBJECT)
			TRY(marshal_find_ivar(doc, n.items, n.count, "@delegate_dc_obj", &obj, err));
		else
			TRY(delegate_parts(doc, n.items, NULL, &obj, &unused, err));
		if (obj == 0)
			return MARSHAL_OK;
		TRY(marshal_node(doc, obj, &n, err));
		t->tz = true;
	}
	else if (marshal_class_is(&n, MC_SERIALIZED_TYPE))
	{
		size_t		obj;
		size_t		coder;
		MarshalNode c;

		TRY(delegate_parts(doc, n.items, "@coder", &obj, &coder, err));
		if (coder == 0)
			return MARSHAL_OK;
		TRY(marshal_node(doc, coder, &c, err));
		TRY(read_coder(doc, &c, t, err));
		if (t->kind == TK_SERIAL_CODER && obj)
		{
			MarshalNode sub;

			TRY(marshal_node(doc, obj, &sub, err));
			t->bytea = sub.type == MT_OBJECT && marshal_bytes_eq(sub.cls, PG_OID "Bytea");
		}
		return MARSHAL_OK;
	}
	if (n.type != MT_OBJECT)
		return MARSHAL_OK;
	for (size_t i = 0; i < sizeof(type_classes) / sizeof(type_classes[0]); i++)
		if (marshal_bytes_eq(n.cls, type_classes[i].name))
			t->kind = type_classes[i].kind;
	t->bytea = marshal_bytes_eq(n.cls, PG_OID "Bytea");
	if (t->tz && t->kind != TK_DATETIME && t->kind != TK_DATETIME_UTC && t->kind != TK_TIME &&
		t->kind != TK_ARRAY)
		t->kind = TK_NONE;
	TRY(ivar_int(doc, &n, "@precision", &t->has_precision, &t->precision, err));
	TRY(ivar_int(doc, &n, "@scale", &t->has_scale, &t->scale, err));
	if (t->kind == TK_STRING)
	{
		TRY(marshal_find_ivar(doc, n.items, n.count, "@true", &t->true_text, err));
		TRY(marshal_find_ivar(doc, n.items, n.count, "@false", &t->false_text, err));
	}
	if (t->kind == TK_RANGE)
	{
		TRY(marshal_find_ivar(doc, n.items, n.count, "@subtype", &t->subtype, err));
		if (t->subtype == 0)
			t->kind = TK_NONE;
	}
	if (t->kind == TK_ARRAY)
	{
		size_t		d;
		MarshalNode dn;

		TRY(marshal_find_ivar(doc, n.items, n.count, "@subtype", &t->subtype, err));
		TRY(marshal_find_ivar(doc, n.items, n.count, "@delimiter", &d, err));
		t->delim = ',';
		if (d)
		{
			TRY(marshal_node(doc, d, &dn, err));
			if (dn.type == MT_STRING && dn.data.len == 1)
				t->delim = (char) dn.data.ptr[0];
		}
		if (t->subtype == 0)
			t->kind = TK_NONE;
	}
	return MARSHAL_OK;
}
