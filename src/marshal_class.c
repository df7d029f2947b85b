/*
 * marshal_class.c
 *		The table of Ruby and Rails classes the codec knows by name, and the
 *		names of a value's class.
 */
#include "marshal_internal.h"

#include <string.h>

#define ROW(name, type, id, view) {name, sizeof(name) - 1, type, id, view}

static const MarshalClass classes[] = {
	ROW("Time", MT_USERDEF, MC_TIME, MCV_SCALAR),
	ROW("BigDecimal", MT_USERDEF, MC_BIGDECIMAL, MCV_SCALAR),
	ROW("Date", MT_USRMARSHAL, MC_DATE, MCV_SCALAR),
	ROW("DateTime", MT_USRMARSHAL, MC_DATETIME, MCV_SCALAR),
	ROW("Rational", MT_USRMARSHAL, MC_RATIONAL, MCV_SCALAR),
	ROW("Complex", MT_USRMARSHAL, MC_COMPLEX, MCV_SCALAR),
	ROW("Range", MT_OBJECT, MC_RANGE, MCV_SCALAR),
	ROW("Set", MT_OBJECT, MC_SET, MCV_SET),
	/* instance_values: {"table" => the Hash it dumps} */
	ROW("OpenStruct", MT_USRMARSHAL, MC_OPENSTRUCT, MCV_TABLE),
	/* method_missing answers marshal_dump (nil) and marshal_load: loads empty */
	ROW("ActiveSupport::OrderedOptions", MT_USRMARSHAL, MC_ORDERED_OPTIONS, MCV_EMPTY),
	/* its subclass: the parent is a default proc, not dumped either */
	ROW("ActiveSupport::InheritableOptions", MT_USRMARSHAL, MC_ORDERED_OPTIONS, MCV_EMPTY),
	/* Object#as_json is instance_values: an Encoding has none */
	ROW("Encoding", MT_USERDEF, MC_ENCODING, MCV_EMPTY),
	/* the as_json of active_support/core_ext/object/json.rb: to_s */
	ROW("IPAddr", MT_OBJECT, MC_IPADDR, MCV_SCALAR),
	ROW("URI::Generic", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::HTTP", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::HTTPS", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::FTP", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::File", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::LDAP", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::LDAPS", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::MailTo", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::WS", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("URI::WSS", MT_OBJECT, MC_URI, MCV_SCALAR),
	/* globalid's URI::GID: a URI::Generic, its to_s the generic one's */
	ROW("URI::GID", MT_OBJECT, MC_URI, MCV_SCALAR),
	ROW("Pathname", MT_OBJECT, MC_PATHNAME, MCV_SCALAR),
	ROW("ActiveSupport::Multibyte::Chars", MT_OBJECT, MC_CHARS, MCV_SCALAR),
	/* {"exitstatus": ..., "pid": ...}, made from its status and pid */
	ROW("Process::Status", MT_OBJECT, MC_PROCESS_STATUS, MCV_SCALAR),
	ROW("ActiveSupport::TimeWithZone", MT_USRMARSHAL, MC_TIME_WITH_ZONE, MCV_SCALAR),
	ROW("ActiveSupport::Duration", MT_OBJECT, MC_DURATION, MCV_SCALAR),
	ROW("ActiveSupport::TimeZone", MT_OBJECT, MC_TIME_ZONE, MCV_SCALAR),
	ROW("ActiveSupport::Cache::Entry", MT_OBJECT, MC_CACHE_ENTRY, MCV_DEFAULT),
	/* as_json delegated to @parameters (a HashWithIndifferentAccess) */
	ROW("ActionController::Parameters", MT_OBJECT, MC_PARAMETERS, MCV_DEFAULT),
	/* globalid 1.x: as_json is to_s, its @uri's */
	ROW("GlobalID", MT_OBJECT, MC_GLOBALID, MCV_DEFAULT),
	ROW("ActiveModel::Errors", MT_OBJECT, MC_ERRORS, MCV_DEFAULT),
	ROW("ActiveModel::AttributeSet", MT_OBJECT, MC_ATTRIBUTE_SET, MCV_DEFAULT),
	ROW("ActiveModel::LazyAttributeSet", MT_OBJECT, MC_LAZY_ATTRIBUTE_SET, MCV_DEFAULT),
	ROW("ActiveModel::Attribute::FromDatabase", MT_OBJECT,
		MC_ATTRIBUTE_FROM_DATABASE, MCV_DEFAULT),
	ROW("ActiveModel::Attribute::FromUser", MT_OBJECT, MC_ATTRIBUTE_FROM_USER,
		MCV_DEFAULT),
	ROW("ActiveModel::Attribute::Uninitialized", MT_OBJECT,
		MC_ATTRIBUTE_UNINITIALIZED, MCV_DEFAULT),
	ROW("ActiveModel::Attribute::Null", MT_OBJECT, MC_ATTRIBUTE_NULL, MCV_DEFAULT),
	ROW("ActiveModel::Type::Binary::Data", MT_OBJECT, MC_BINARY_DATA, MCV_DEFAULT),
	ROW("ActiveRecord::AttributeMethods::TimeZoneConversion::TimeZoneConverter",
		MT_USRMARSHAL, MC_TIME_ZONE_CONVERTER, MCV_DEFAULT),
	ROW("ActiveRecord::Type::Serialized", MT_USRMARSHAL, MC_SERIALIZED_TYPE,
		MCV_DEFAULT),
	ROW("ActiveRecord::Coders::YAMLColumn", MT_OBJECT, MC_YAML_COLUMN, MCV_DEFAULT),
};

const MarshalClass *
marshal_class_of(const MarshalNode *n)
{
	size_t		len = n->cls.len;

	if (len == 0)
		return NULL;
	for (size_t i = 0; i < lengthof(classes); i++)
		if (classes[i].len == len && classes[i].type == n->type &&
			memcmp(classes[i].name, n->cls.ptr, len) == 0)
			return &classes[i];
	return NULL;
}

bool
marshal_class_is_relation(const MarshalNode *n)
{
	static const char *const names[] = {"ActiveRecord::Relation", "ActiveRecord::AssociationRelation"};
	static const char *const suffixes[] = {"::ActiveRecord_Relation", "::ActiveRecord_AssociationRelation"};

	if (n->type != MT_OBJECT)
		return false;
	for (size_t i = 0; i < lengthof(names); i++)
	{
		size_t		sl = strlen(suffixes[i]);

		if (marshal_bytes_eq(n->cls, names[i]) ||
			(n->cls.len > sl && memcmp(n->cls.ptr + n->cls.len - sl, suffixes[i], sl) == 0))
			return true;
	}
	return false;
}

const char *
marshal_type_name(int type)
{
	switch (type)
	{
		case MT_NIL:
			return "NilClass";
		case MT_TRUE:
			return "TrueClass";
		case MT_FALSE:
			return "FalseClass";
		case MT_FIXNUM:
		case MT_BIGNUM:
			return "Integer";
		case MT_FLOAT:
			return "Float";
		case MT_STRING:
			return "String";
		case MT_SYMBOL:
			return "Symbol";
		case MT_REGEXP:
			return "Regexp";
		case MT_ARRAY:
			return "Array";
		case MT_HASH:
		case MT_HASH_DEF:
			return "Hash";
		case MT_CLASS:
			return "Class";
		case MT_MODULE:
		case MT_MODULE_OLD:
			return "Module";
		case MT_STRUCT:
			return "Struct";
		default:
			return "Object";
	}
}

MarshalBytes
marshal_class_name(const MarshalNode *n)
{
	const char *name;

	/* "C :Hash {" marks an identity Hash, not a subclass */
	if (n->uclass.len > 0 && !marshal_bytes_eq(n->uclass, "Hash"))
		return n->uclass;
	switch (n->type)
	{
		case MT_OBJECT:
		case MT_STRUCT:
		case MT_USERDEF:
		case MT_USRMARSHAL:
		case MT_DATA:
			return n->cls;
		default:
			name = marshal_type_name(n->type);
			return (MarshalBytes) {(const uint8_t *) name, strlen(name)};
	}
}
