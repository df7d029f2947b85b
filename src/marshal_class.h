/*
 * marshal_class.h
 *		The Ruby and Rails classes the codec knows by name (marshal_class.c).
 *
 * A value is recognised once, by the type byte it is dumped with and its
 * class name, against one table; the view, the JSON walk, inspect, the
 * casts and navigation ask it instead of comparing names themselves.
 *
 * Adding a class: a MarshalClassId and a row in marshal_class.c's table
 * (its name, how it is dumped, how the JSON view sees it).  Only a class
 * with output of its own then needs a case where that output is written
 * (marshal_json.c's as_json, marshal_inspect.c's inspect).
 */
#ifndef RBMARSHAL_MARSHAL_CLASS_H
#define RBMARSHAL_MARSHAL_CLASS_H

#include "marshal_cursor.h"

typedef enum MarshalClassId
{
	MC_NONE = 0,				/* not a class of the table */
	/* Ruby's core and standard library */
	MC_TIME,
	MC_BIGDECIMAL,
	MC_DATE,
	MC_DATETIME,
	MC_RATIONAL,
	MC_COMPLEX,
	MC_RANGE,
	MC_SET,
	MC_OPENSTRUCT,
	MC_ORDERED_OPTIONS,
	MC_ENCODING,
	MC_IPADDR,
	MC_URI,
	MC_PATHNAME,
	MC_PROCESS_STATUS,
	MC_CHARS,
	/* ActiveSupport */
	MC_TIME_WITH_ZONE,
	MC_DURATION,
	MC_TIME_ZONE,
	MC_CACHE_ENTRY,
	/* as_json is one instance variable's (marshal_view.c's adapter_data) */
	MC_PARAMETERS,
	MC_GLOBALID,
	MC_ERRORS,					/* ActiveModel::Errors: refused (marshal_view.c) */
	/* ActiveModel and ActiveRecord: a model's attributes and their types */
	MC_ATTRIBUTE_SET,
	MC_LAZY_ATTRIBUTE_SET,
	MC_ATTRIBUTE_FROM_DATABASE,
	MC_ATTRIBUTE_FROM_USER,
	MC_ATTRIBUTE_UNINITIALIZED,
	MC_ATTRIBUTE_NULL,
	MC_BINARY_DATA,
	MC_TIME_ZONE_CONVERTER,
	MC_SERIALIZED_TYPE,
	MC_YAML_COLUMN
} MarshalClassId;

/* How the JSON view (marshal_view.c) sees an instance. */
typedef enum MarshalClassView
{
	MCV_DEFAULT = 0,			/* as any value of its type byte */
	MCV_SCALAR,					/* as_json is a scalar (a string, a number) */
	MCV_SET,					/* an array: the keys of its @hash */
	MCV_TABLE,					/* {"table" => its data} (instance_values) */
	MCV_EMPTY					/* an empty object, whatever it dumped */
} MarshalClassView;

typedef struct MarshalClass
{
	const char *name;
	size_t		len;
	int			type;			/* MT_USERDEF (_dump), MT_USRMARSHAL
								 * (marshal_dump) or MT_OBJECT */
	MarshalClassId id;
	MarshalClassView view;
} MarshalClass;

/* The table's row for the value (an object, u or U), or NULL. */
extern const MarshalClass *marshal_class_of(const MarshalNode *n);

static inline MarshalClassId
marshal_class_id(const MarshalNode *n)
{
	const MarshalClass *c = marshal_class_of(n);

	return c ? c->id : MC_NONE;
}

static inline bool
marshal_class_is(const MarshalNode *n, MarshalClassId id)
{
	return marshal_class_id(n) == id;
}

/*
 * An ActiveRecord::Relation (or AssociationRelation): the class itself or a
 * model's own subclass ("User::ActiveRecord_Relation").
 */
extern bool marshal_class_is_relation(const MarshalNode *n);

/*
 * The Ruby class of a value as Ruby names it: a C wrapper's subclass, the
 * class an object, Struct, u, U or d names, else the built-in class of its
 * type.  The bytes come from the stream: not necessarily text.
 */
extern MarshalBytes marshal_class_name(const MarshalNode *n);

/*
 * The built-in class of a type byte ("Integer" for i and l); "Object" for
 * the types whose class the stream names.
 */
extern const char *marshal_type_name(int type);

#endif							/* RBMARSHAL_MARSHAL_CLASS_H */
