/*
 * test_class.c
 *		Unit tests of the class table and class names (marshal_class.c).
 */
#include "unit.h"

static MarshalNode
node(int type, const char *cls, const char *uclass)
{
	MarshalNode n;

	memset(&n, 0, sizeof(n));
	n.type = type;
	n.cls.ptr = (const uint8_t *) cls;
	n.cls.len = cls ? strlen(cls) : 0;
	n.uclass.ptr = (const uint8_t *) uclass;
	n.uclass.len = uclass ? strlen(uclass) : 0;
	return n;
}

static void
name_is(MarshalNode n, const char *want, const char *what)
{
	MarshalBytes b = marshal_class_name(&n);

	check(b.len == strlen(want) && memcmp(b.ptr, want, b.len) == 0,
		  "class name", what);
}

void
test_classes(Fixture *fx, int n)
{
	static const struct
	{
		int			type;
		const char *cls;
		MarshalClassId id;
		MarshalClassView view;
	}			cases[] = {
		{MT_USERDEF, "Time", MC_TIME, MCV_SCALAR},
		{MT_USERDEF, "BigDecimal", MC_BIGDECIMAL, MCV_SCALAR},
		{MT_USRMARSHAL, "Date", MC_DATE, MCV_SCALAR},
		{MT_USRMARSHAL, "DateTime", MC_DATETIME, MCV_SCALAR},
		{MT_USRMARSHAL, "Rational", MC_RATIONAL, MCV_SCALAR},
		{MT_USRMARSHAL, "Complex", MC_COMPLEX, MCV_SCALAR},
		{MT_USRMARSHAL, "ActiveSupport::TimeWithZone", MC_TIME_WITH_ZONE, MCV_SCALAR},
		{MT_USRMARSHAL, "OpenStruct", MC_OPENSTRUCT, MCV_TABLE},
		{MT_OBJECT, "IPAddr", MC_IPADDR, MCV_SCALAR},
		{MT_OBJECT, "Range", MC_RANGE, MCV_SCALAR},
		{MT_OBJECT, "Set", MC_SET, MCV_SET},
		{MT_OBJECT, "ActiveSupport::Duration", MC_DURATION, MCV_SCALAR},
		{MT_OBJECT, "ActiveSupport::TimeZone", MC_TIME_ZONE, MCV_SCALAR},
		{MT_OBJECT, "ActiveModel::LazyAttributeSet", MC_LAZY_ATTRIBUTE_SET, MCV_DEFAULT},
		/* the name with another type byte, or a near name, is not the class */
		{MT_OBJECT, "Time", MC_NONE, MCV_DEFAULT},
		{MT_USERDEF, "Date", MC_NONE, MCV_DEFAULT},
		{MT_USRMARSHAL, "Range", MC_NONE, MCV_DEFAULT},
		{MT_USERDEF, "Tim", MC_NONE, MCV_DEFAULT},
		{MT_USERDEF, "Times", MC_NONE, MCV_DEFAULT},
		{MT_OBJECT, "set", MC_NONE, MCV_DEFAULT},
	};

	for (size_t i = 0; i < lengthof(cases); i++)
	{
		MarshalNode nd = node(cases[i].type, cases[i].cls, NULL);
		const MarshalClass *c = marshal_class_of(&nd);

		check(marshal_class_id(&nd) == cases[i].id, "class id", cases[i].cls);
		check(cases[i].id == MC_NONE ? c == NULL :
			  c != NULL && c->view == cases[i].view && c->type == cases[i].type &&
			  strcmp(c->name, cases[i].cls) == 0,
			  "class row", cases[i].cls);
	}

	/* one name for a value's class: built-in, named by the stream, C */
	name_is(node(MT_FIXNUM, NULL, NULL), "Integer", "fixnum");
	name_is(node(MT_BIGNUM, NULL, NULL), "Integer", "bignum");
	name_is(node(MT_HASH_DEF, NULL, NULL), "Hash", "hash with default");
	name_is(node(MT_MODULE_OLD, NULL, NULL), "Module", "old module");
	name_is(node(MT_OBJECT, "Money", NULL), "Money", "object");
	name_is(node(MT_STRUCT, "Point", NULL), "Point", "struct");
	name_is(node(MT_DATA, "Blob", NULL), "Blob", "data");
	name_is(node(MT_ARRAY, NULL, "Tags"), "Tags", "array subclass");
	name_is(node(MT_HASH, NULL, "Hash"), "Hash", "identity hash");
	check(strcmp(marshal_type_name(MT_OBJECT), "Object") == 0 &&
		  strcmp(marshal_type_name(MT_STRUCT), "Struct") == 0 &&
		  strcmp(marshal_type_name(MT_SYMBOL), "Symbol") == 0,
		  "type names", "marshal_type_name");

	/* every fixture's root: the row found has the root's own name */
	for (int i = 0; i < n; i++)
	{
		MarshalDoc	doc;
		MarshalNode root;
		MarshalError err;
		const MarshalClass *c;

		if (marshal_doc_open(&doc, fx[i].bytes, fx[i].len, NULL, 0, &err) != MARSHAL_OK)
			continue;
		if (marshal_node(&doc, MARSHAL_ROOT, &root, &err) == MARSHAL_OK &&
			(c = marshal_class_of(&root)) != NULL)
			check(c->len == root.cls.len && memcmp(c->name, root.cls.ptr, c->len) == 0 &&
				  c->type == root.type, "fixture class", fx[i].name);
		marshal_index_free(&doc.index, NULL);
	}
}
