/*
 * marshal_activerecord_type.h
 *		What an Active Record type object casts to (marshal_activerecord_type.c),
 *		for the casts of marshal_activerecord.c.
 */
#ifndef RBMARSHAL_MARSHAL_ACTIVERECORD_TYPE_H
#define RBMARSHAL_MARSHAL_ACTIVERECORD_TYPE_H

#include "marshal_internal.h"

/* the postgresql adapter's type classes */
#define PG_OID "ActiveRecord::ConnectionAdapters::PostgreSQL::OID::"

typedef enum TypeKind
{
	TK_NONE = 0,
	TK_INTEGER,
	TK_FLOAT,
	TK_DECIMAL,
	TK_BOOLEAN,
	TK_STRING,
	TK_DATE,
	TK_DATETIME,
	TK_DATETIME_UTC,			/* timestamptz: a Time too is made UTC */
	TK_TIME,					/* time of day, on 2000-01-01 UTC */
	TK_UUID,
	TK_INET,
	TK_ARRAY,					/* PostgreSQL array: elements by @subtype */
	TK_HSTORE,
	TK_MONEY,
	TK_POINT,
	TK_RANGE,					/* a range type: ends by @subtype */
	TK_INTERVAL,				/* ISO 8601 text: Duration, as_json its seconds */
	TK_BINARY,
	TK_JSON,
	TK_SERIAL_JSON,
	TK_SERIAL_YAML,
	TK_SERIAL_CODER				/* a custom coder: a nested Marshal stream */
} TypeKind;

typedef struct RecordType
{
	TypeKind	kind;
	bool		tz;				/* behind a TimeZoneConverter */
	bool		has_precision;
	int64_t		precision;
	bool		has_scale;
	int64_t		scale;
	size_t		true_text;		/* ImmutableString's @true/@false */
	size_t		false_text;
	size_t		subtype;		/* TK_ARRAY: @subtype */
	bool		bytea;			/* TK_BINARY, TK_SERIAL_CODER: over OID::Bytea */
	char		delim;			/* TK_ARRAY: @delimiter */
	MarshalYamlColumn serial;	/* TK_SERIAL_*: the object class (and YAML's
								 * permitted classes); no text */
} RecordType;

/*
 * What the type object at pos casts to (TK_NONE: not one the casts
 * reproduce); a 7.1-format array's encoder names its elements' type.
 */
extern MarshalStatus marshal_record_type(const MarshalDoc *doc, size_t pos,
										 RecordType *t, MarshalError *err);

#endif
