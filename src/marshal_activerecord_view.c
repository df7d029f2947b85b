/*
 * marshal_activerecord_view.c
 *		Where an Active Record model keeps its attributes, for the view
 *		(marshal_view.c's MV_RECORD): the 6.1 attribute set's Hashes and
 *		@types, 7.1's attributes Hash, and the attributes in order, each with
 *		how marshal_activerecord.c casts it.
 */
#include "marshal_internal.h"

#include <string.h>

static MarshalStatus concise_view(const MarshalDoc *doc, MarshalView *view,
								  MarshalError *err);

/* The Hash in the attribute set's ivar name: its first pair and count. */
static MarshalStatus
type_hash(const MarshalDoc *doc, const MarshalNode *set, const char *name,
		  size_t *items, uint32_t *count, MarshalError *err)
{
	size_t		v;
	MarshalNode h;
	MarshalStatus st;

	if ((st = marshal_find_ivar(doc, set->items, set->count, name, &v, err)) != MARSHAL_OK)
		return st;
	if (v && (st = marshal_node(doc, v, &h, err)) != MARSHAL_OK)
		return st;
	if (v && (h.type == MT_HASH || h.type == MT_HASH_DEF))
	{
		*items = h.items;
		*count = h.count;
	}
	return MARSHAL_OK;
}

/*
 * serializable_hash leaves out the model's inheritance_column, "type"
 * unless the model names another (which only its class knows).  Under
 * "type", a record's type is nil, empty, or the name its class is stored
 * by (full, or without its modules when store_full_sti_class is off):
 * Rails finds the class by it, and refuses any other.  So a "type" that is
 * one of those is left out; any other text says the model's
 * inheritance_column is not "type" (STI off, or another column): kept.
 */
static MarshalStatus
inheritance_column(const MarshalDoc *doc, MarshalView *view, MarshalError *err)
{
	MarshalViewIter it;
	MarshalEntry e;
	size_t		type = 0;
	MarshalNode v;
	MarshalBytes cls = view->node.cls;
	MarshalStatus st;
	bool		done;

	marshal_view_iter(view, &it);
	for (;;)
	{
		bool		match;

		if ((st = marshal_view_next(doc, &it, &e, &done, err)) != MARSHAL_OK)
			return st;
		if (done)
			break;
		if ((st = marshal_entry_matches(doc, &e, "type", 4, NULL, &match, err)) != MARSHAL_OK)
			return st;
		if (match)
			type = e.value;		/* a later Hash's wins */
	}
	if (type == 0)
		return MARSHAL_OK;
	if ((st = marshal_node(doc, type, &v, err)) != MARSHAL_OK)
		return st;
	if (v.type == MT_NIL)
		view->record.no_type = true;
	else if (v.type == MT_STRING && cls.len > 0)
	{
		size_t		last = cls.len;

		while (last >= 2 && !(cls.ptr[last - 1] == ':' && cls.ptr[last - 2] == ':'))
			last--;
		if (last < 2)
			last = 0;
		view->record.no_type = v.data.len == 0 ||
			(v.data.len == cls.len && memcmp(v.data.ptr, cls.ptr, cls.len) == 0) ||
			(last > 0 && v.data.len == cls.len - last &&
			 memcmp(v.data.ptr, cls.ptr + last, v.data.len) == 0);
	}
	return MARSHAL_OK;
}

/*
 * An Active Record 6.1 model: @attributes is an ActiveModel::AttributeSet
 * (LazyAttributeSet when loaded).  Its attributes, as serializable_hash
 * gives them, are the adapter's @values, overlaid by the values the app has
 * cast (@casted_values), overlaid by the Attribute objects in @attributes.
 */
MarshalStatus
marshal_record_view(const MarshalDoc *doc, MarshalView *view,
					MarshalError *err)
{
	static const char *const segs[] = {"@values", "@casted_values", "@attributes"};
	MarshalRecordView *r = &view->record;
	size_t		attrs;
	MarshalNode set;
	MarshalStatus st;

	if ((st = marshal_find_ivar(doc, view->node.items, view->node.count,
								"@attributes", &attrs, err)) != MARSHAL_OK)
		return st;
	if (attrs == 0)
		return concise_view(doc, view, err);
	if ((st = marshal_node(doc, attrs, &set, err)) != MARSHAL_OK)
		return st;
	if (!marshal_class_is(&set, MC_LAZY_ATTRIBUTE_SET) &&
		!marshal_class_is(&set, MC_ATTRIBUTE_SET))
		return MARSHAL_OK;
	r->attr_seg = -1;
	r->values_seg = -1;
	/*
	 * the type objects that cast the raw @values: a query's own columns'
	 * (select "*, now() AS seen_at"), else the model's
	 */
	if ((st = type_hash(doc, &set, "@types", &r->types_items, &r->types_count, err)) != MARSHAL_OK ||
		(st = type_hash(doc, &set, "@additional_types", &r->extra_items, &r->extra_count, err)) != MARSHAL_OK)
		return st;
	for (int i = 0; i < 3; i++)
	{
		size_t		v;
		MarshalNode h;

		if ((st = marshal_find_ivar(doc, set.items, set.count, segs[i], &v, err)) != MARSHAL_OK)
			return st;
		if (v == 0)
			continue;
		if ((st = marshal_node(doc, v, &h, err)) != MARSHAL_OK)
			return st;
		if (h.type != MT_HASH && h.type != MT_HASH_DEF)
			continue;
		if (i == 2)
			r->attr_seg = r->nsegs;
		if (i == 0)
			r->values_seg = r->nsegs;
		r->seg_items[r->nsegs] = h.items;
		r->seg_count[r->nsegs] = h.count;
		r->nsegs++;
	}
	if (r->nsegs == 0)
		return MARSHAL_OK;
	view->kind = MV_RECORD;
	return inheritance_column(doc, view, err);
}

/*
 * Active Record 7.1's marshalling format: U :Model [attributes Hash,
 * new_record (, loaded associations)]; the view is the attributes, values
 * for the database without their types (the model's schema has them).
 */
MarshalStatus
marshal_record71_view(const MarshalDoc *doc, MarshalView *view,
					  MarshalError *err)
{
	MarshalRecordView *r = &view->record;
	MarshalNode arr;
	MarshalNode h;
	MarshalNode n;
	size_t		p;
	MarshalStatus st;

	if ((st = marshal_node(doc, view->node.items, &arr, err)) != MARSHAL_OK)
		return st;
	if (arr.type != MT_ARRAY || arr.count < 2 || arr.count > 3)
		return MARSHAL_OK;
	if ((st = marshal_node(doc, arr.items, &h, err)) != MARSHAL_OK)
		return st;
	if (h.type != MT_HASH)
		return MARSHAL_OK;
	if ((st = marshal_skip(doc, arr.items, &p, err)) != MARSHAL_OK ||
		(st = marshal_node(doc, p, &n, err)) != MARSHAL_OK)
		return st;
	if (n.type != MT_TRUE && n.type != MT_FALSE)
		return MARSHAL_OK;
	r->attr_seg = -1;
	r->values_seg = 0;
	r->untyped = true;
	r->seg_items[0] = h.items;
	r->seg_count[0] = h.count;
	r->nsegs = 1;
	view->kind = MV_RECORD;
	return inheritance_column(doc, view, err);
}

/* The type in the Hash at items for the attribute named k (0 if none). */
static MarshalStatus
type_for(const MarshalDoc *doc, size_t items, uint32_t count,
		 const MarshalKeyText *k, size_t *type, MarshalError *err)
{
	size_t		pos = items;
	MarshalStatus st;

	for (uint32_t i = 0; i < count; i++)
	{
		MarshalEntry te = {.key = pos};
		MarshalKeyText tk;
		char		tbuf[128];

		if ((st = marshal_key_text(doc, &te, tbuf, sizeof(tbuf), &tk, err)) != MARSHAL_OK ||
			(st = marshal_skip(doc, pos, &pos, err)) != MARSHAL_OK)
			return st;
		if (tk.ok && tk.type == MT_STRING && tk.text.len == k->text.len &&
			memcmp(tk.text.ptr, k->text.ptr, k->text.len) == 0)
			*type = pos;
		if ((st = marshal_skip(doc, pos, &pos, err)) != MARSHAL_OK)
			return st;
	}
	return MARSHAL_OK;
}

/*
 * The type for the attribute whose key is at key (0 if none): as
 * LazyAttributeSet's additional_types.fetch(name, types[name]).
 */
static MarshalStatus
attribute_type(const MarshalDoc *doc, const MarshalRecordView *v, size_t key,
			   size_t *type, MarshalError *err)
{
	MarshalEntry e = {.key = key};
	MarshalKeyText k;
	char		buf[128];
	MarshalStatus st;

	*type = 0;
	if (v->types_count == 0 && v->extra_count == 0)
		return MARSHAL_OK;
	if ((st = marshal_key_text(doc, &e, buf, sizeof(buf), &k, err)) != MARSHAL_OK)
		return st;
	if (!k.ok || k.type != MT_STRING)
		return MARSHAL_OK;
	if ((st = type_for(doc, v->extra_items, v->extra_count, &k, type, err)) != MARSHAL_OK ||
		*type != 0)
		return st;
	return type_for(doc, v->types_items, v->types_count, &k, type, err);
}

/* The @type of a FromUser Attribute's @original_attribute (0 if none). */
static MarshalStatus
original_type(const MarshalDoc *doc, const MarshalNode *a, size_t *type,
			  MarshalError *err)
{
	size_t		orig;
	MarshalNode o;
	MarshalStatus st;

	*type = 0;
	if (!marshal_class_is(a, MC_ATTRIBUTE_FROM_USER))
		return MARSHAL_OK;
	if ((st = marshal_find_ivar(doc, a->items, a->count, "@original_attribute", &orig, err)) != MARSHAL_OK ||
		orig == 0 || (st = marshal_node(doc, orig, &o, err)) != MARSHAL_OK || o.type != MT_OBJECT)
		return st;
	return marshal_find_ivar(doc, o.items, o.count, "@type", type, err);
}

/*
 * A model as record.to_yaml writes it and YAML.unsafe_load reads it (the
 * YAML reader makes a plain object of it): @concise_attributes, an Array of
 * ActiveModel::Attribute objects with @name.
 */
static MarshalStatus
concise_view(const MarshalDoc *doc, MarshalView *view, MarshalError *err)
{
	MarshalRecordView *r = &view->record;
	size_t		p;
	MarshalNode arr;
	MarshalNode first;
	MarshalStatus st;

	if ((st = marshal_find_ivar(doc, view->node.items, view->node.count,
								"@concise_attributes", &p, err)) != MARSHAL_OK ||
		p == 0 || (st = marshal_node(doc, p, &arr, err)) != MARSHAL_OK ||
		arr.type != MT_ARRAY || arr.count == 0 ||
		(st = marshal_node(doc, arr.items, &first, err)) != MARSHAL_OK)
		return st;
	if (first.type != MT_OBJECT || first.cls.len < 22 ||
		memcmp(first.cls.ptr, "ActiveModel::Attribute", 22) != 0)
		return MARSHAL_OK;
	r->attr_seg = 0;
	r->values_seg = -1;
	r->concise = true;
	r->seg_items[0] = arr.items;
	r->seg_count[0] = arr.count;
	r->nsegs = 1;
	view->kind = MV_RECORD;
	return inheritance_column(doc, view, err);
}

/* Whether serializable_hash leaves out the attribute of e (the inheritance column). */
static MarshalStatus
left_out(const MarshalDoc *doc, const MarshalRecordView *v, const MarshalEntry *e,
		 bool *out, MarshalError *err)
{
	*out = false;
	if (!v->no_type)
		return MARSHAL_OK;
	return marshal_entry_matches(doc, e, "type", 4, NULL, out, err);
}

/* The next attribute of an MV_RECORD view. */
MarshalStatus
marshal_record_next(const MarshalDoc *doc, MarshalViewIter *it,
					MarshalEntry *e, bool *done, MarshalError *err)
{
	const MarshalRecordView *v = &it->view->record;
	MarshalStatus st;

	for (;;)
	{
		size_t		attr;
		size_t		value;
		MarshalNode a;
		bool		out;

		if (it->seg >= v->nsegs)
		{
			*done = true;
			return MARSHAL_OK;
		}
		if (it->i >= v->seg_count[it->seg])
		{
			if (++it->seg < v->nsegs)
				it->pos = v->seg_items[it->seg];
			it->i = 0;
			continue;
		}
		*done = false;
		it->i++;
		e->type = 0;			/* not a skipped attribute's */
		e->cast = MARSHAL_CAST_NONE;
		if (v->concise)
		{
			/* to_yaml's concise_attributes: an Array of Attributes with @name */
			attr = it->pos;
			if ((st = marshal_skip(doc, attr, &it->pos, err)) != MARSHAL_OK ||
				(st = marshal_node(doc, attr, &a, err)) != MARSHAL_OK)
				return st;
			if (a.type != MT_OBJECT)
				continue;
			if ((st = marshal_find_ivar(doc, a.items, a.count, "@name", &e->key, err)) != MARSHAL_OK)
				return st;
			if (e->key == 0)
				continue;
			if ((st = left_out(doc, v, e, &out, err)) != MARSHAL_OK)
				return st;
			if (out)
				continue;
			goto attribute;
		}
		e->key = it->pos;
		if ((st = marshal_skip(doc, it->pos, &it->pos, err)) != MARSHAL_OK)
			return st;
		if ((st = left_out(doc, v, e, &out, err)) != MARSHAL_OK)
			return st;
		if (out)
		{
			/* past its value */
			if ((st = marshal_skip(doc, it->pos, &it->pos, err)) != MARSHAL_OK)
				return st;
			continue;
		}
		if (it->seg != v->attr_seg)
		{
			e->value = it->value = it->pos;
			/* a raw value from the adapter: deserialized by its type */
			if (it->seg == v->values_seg && v->untyped)
			{
				e->type = 0;
				e->cast = MARSHAL_CAST_UNTYPED;
			}
			else if (it->seg == v->values_seg)
			{
				if ((st = attribute_type(doc, v, e->key, &e->type, err)) != MARSHAL_OK)
					return st;
				e->cast = e->type ? MARSHAL_CAST_DB : MARSHAL_CAST_NONE;
			}
			return MARSHAL_OK;
		}
		/* an Attribute: its cast @value, else the value before type cast */
		attr = it->pos;
		if ((st = marshal_skip(doc, attr, &it->pos, err)) != MARSHAL_OK ||
			(st = marshal_node(doc, attr, &a, err)) != MARSHAL_OK)
			return st;
attribute:
		if (a.type != MT_OBJECT ||
			marshal_class_is(&a, MC_ATTRIBUTE_UNINITIALIZED) ||
			marshal_class_is(&a, MC_ATTRIBUTE_NULL))
			continue;
		if ((st = marshal_find_ivar(doc, a.items, a.count, "@value", &value, err)) != MARSHAL_OK)
			return st;
		if (value == 0)
		{
			/* not cast yet: FromDatabase deserializes, FromUser casts */
			if ((st = marshal_find_ivar(doc, a.items, a.count, "@value_before_type_cast",
										&value, err)) != MARSHAL_OK ||
				(st = marshal_find_ivar(doc, a.items, a.count, "@type",
										&e->type, err)) != MARSHAL_OK)
				return st;
			if (marshal_class_is(&a, MC_ATTRIBUTE_FROM_DATABASE))
				e->cast = MARSHAL_CAST_DB;
			else if (marshal_class_is(&a, MC_ATTRIBUTE_FROM_USER))
				e->cast = MARSHAL_CAST_USER;
			if (v->concise && e->type == 0)
			{
				/*
				 * to_yaml leaves out the model's own types: a FromUser
				 * casts as the @original_attribute it replaced, whose
				 * type is written; the rest is untyped, as in 7.1's format
				 */
				if ((st = original_type(doc, &a, &e->type, err)) != MARSHAL_OK)
					return st;
				if (e->type == 0 || e->cast != MARSHAL_CAST_USER)
					e->cast = MARSHAL_CAST_UNTYPED;
			}
			if (v->concise && value == 0)
			{
				/* to_yaml leaves out a nil value_before_type_cast */
				value = attr;
				e->cast = MARSHAL_CAST_UNTYPED;
				e->type = 0;
			}
			if (e->type == 0 && e->cast != MARSHAL_CAST_UNTYPED)
				e->cast = MARSHAL_CAST_NONE;
		}
		if (value == 0)
			continue;
		e->value = value;
		return MARSHAL_OK;
	}
}
