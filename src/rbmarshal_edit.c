/*
 * rbmarshal_edit.c
 *		Changing values: rbmarshal_set, rbmarshal_insert, - and #-, ||,
 *		rbmarshal_rename_class, rbmarshal_classes.
 *
 * Each result is what Marshal.dump writes after the same change is made in
 * Ruby to Marshal.load(v) (marshal_edit.c).  A change with nothing to do
 * returns the value as it is, as jsonb_set does; every result is validated
 * as any stored value is, so it stays within rbmarshal.max_depth.
 */
#include "rbmarshal.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(rbmarshal_classes);
PG_FUNCTION_INFO_V1(rbmarshal_rename_class);
PG_FUNCTION_INFO_V1(rbmarshal_delete);
PG_FUNCTION_INFO_V1(rbmarshal_delete_keys);
PG_FUNCTION_INFO_V1(rbmarshal_delete_index);
PG_FUNCTION_INFO_V1(rbmarshal_delete_path);
PG_FUNCTION_INFO_V1(rbmarshal_set);
PG_FUNCTION_INFO_V1(rbmarshal_insert);
PG_FUNCTION_INFO_V1(rbmarshal_concat);

/* Keys in other Ruby encodings compare as the text they convert to. */
static const MarshalTranscoder transcoder = {rbmarshal_transcode, NULL};

/* SQL text (server encoding) as the UTF-8 the stream's names are in. */
static MarshalBytes
utf8_bytes(text *t)
{
	char	   *s = VARDATA_ANY(t);
	int			n = VARSIZE_ANY_EXHDR(t);
	char	   *u = pg_server_to_any(s, n, PG_UTF8);
	MarshalBytes b;

	b.ptr = (const uint8_t *) u;
	b.len = u == s ? (size_t) n : strlen(u);
	return b;
}

/* SQL text as a path step's key. */
static MarshalPathStep
utf8_step(text *t)
{
	MarshalBytes b = utf8_bytes(t);
	MarshalPathStep s = {(const char *) b.ptr, b.len, 0};

	return s;
}

/* A text[]'s elements as UTF-8 keys; a NULL element is an error. */
static MarshalPathStep *
utf8_array(ArrayType *arr, int *n, const char *what)
{
	Datum	   *items;
	bool	   *nulls;
	MarshalPathStep *keys;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, n);
	keys = palloc((*n + 1) * sizeof(MarshalPathStep));
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s element at position %d is null", what, i + 1)));
		keys[i] = utf8_step(DatumGetTextPP(items[i]));
	}
	return keys;
}

/* A codec result as an rbmarshal value, validated as a stored one is. */
static bytea *
result_value(uint8_t *out, size_t len)
{
	bytea	   *r = rbmarshal_value(out, len);

	pfree(out);
	(void) rbmarshal_check(VARDATA(r), len, NULL);
	return r;
}

/* A class name from the stream as text: bytes that are not UTF-8 as \xNN. */
static text *
class_name_text(MarshalBytes name)
{
	char	   *out = palloc(4 * name.len + 1);
	char	   *conv;

	marshal_printable(name.ptr, name.len, name.len, out, 4 * name.len + 1);
	conv = pg_any_to_server(out, (int) strlen(out), PG_UTF8);
	return cstring_to_text(conv);
}

Datum
rbmarshal_classes(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MarshalDoc	doc;
	MarshalNames names;
	MarshalError err;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	rbmarshal_open(v, &doc);
	rbmarshal_check_status(marshal_class_names(&doc, rbmarshal_hooks(), 0, &names, &err), &err);
	for (uint32 i = 0; i < names.count; i++)
	{
		Datum		d = PointerGetDatum(class_name_text(names.names[i]));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &d, &isnull);
	}
	marshal_names_free(&names);
	marshal_index_free(&doc.index, rbmarshal_hooks());
	return (Datum) 0;
}

/* A class name as Ruby writes constants: Name or Outer::Name, no blanks. */
static void
check_class_name(MarshalBytes name, const char *arg)
{
	bool		ok = name.len > 0;

	for (size_t i = 0; ok && i < name.len; i++)
	{
		uint8_t		c = name.ptr[i];

		if (c == ':')
		{
			/* "::" between two names */
			ok = i + 2 < name.len && name.ptr[i + 1] == ':' && i > 0 &&
				name.ptr[i + 2] != ':';
			i++;
		}
		else
			ok = c >= 0x80 || c == '_' || (c >= '0' && c <= '9') ||
				(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	}
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%.*s\" is not a Ruby class or module name", (int) name.len, name.ptr),
				 errdetail("Argument \"%s\" must be a constant path such as Billing::Invoice.", arg)));
}

Datum
rbmarshal_rename_class(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalBytes from = utf8_bytes(PG_GETARG_TEXT_PP(1));
	MarshalBytes to = utf8_bytes(PG_GETARG_TEXT_PP(2));
	MarshalDoc	doc;
	MarshalError err;
	uint8_t    *out;
	size_t		len;

	check_class_name(from, "from");
	check_class_name(to, "to");
	rbmarshal_open(v, &doc);
	rbmarshal_check_status(marshal_rename_class(&doc, from, to, rbmarshal_hooks(), 0,
												&out, &len, &err), &err);
	marshal_index_free(&doc.index, rbmarshal_hooks());
	PG_RETURN_BYTEA_P(result_value(out, len));
}

/* The Ruby class of a value's root, for messages. */
static char *
root_class(MarshalDoc *doc)
{
	MarshalNode n;
	MarshalError err;

	rbmarshal_check_status(marshal_node(doc, MARSHAL_ROOT, &n, &err), &err);
	return rbmarshal_class_name(&n);
}

/*
 * Run an edit on v: the changed value, v itself when there is nothing to
 * change, or the error a refusal is.
 */
static Datum
edit(FunctionCallInfo fcinfo, bytea *v, MarshalEditArgs *args,
	 const char *fname)
{
	MarshalDoc	doc;
	MarshalDoc	value;
	MarshalError err;
	MarshalEditRefusal refusal;
	uint8_t    *out;
	size_t		len;
	int			at;

	rbmarshal_open(v, &doc);
	if (args->value)
	{
		rbmarshal_open(PG_GETARG_RBMARSHAL_PP(2), &value);
		args->value = &value;
	}
	args->transcoder = &transcoder;
	rbmarshal_check_status(marshal_edit_path(&doc, args, rbmarshal_hooks(), 0, &out,
											 &len, &refusal, &at, &err), &err);
	switch (refusal)
	{
		case MEDIT_OK:
			PG_RETURN_BYTEA_P(result_value(out, len));
		case MEDIT_UNCHANGED:
			PG_RETURN_BYTEA_P(v);
		case MEDIT_SCALAR:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot delete from a value of class %s", root_class(&doc)),
					 errhint("Only a Hash, an Array, a Struct or an object's instance variables have entries to delete.")));
			break;
		case MEDIT_NOT_ARRAY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot delete by position from a value of class %s", root_class(&doc)),
					 errhint("Only an Array has positions; use - with a text key for a Hash.")));
			break;
		case MEDIT_NOT_INDEX:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("path element at position %d is not an integer", at + 1),
					 errdetail("%s reached an Array there.", fname)));
			break;
		case MEDIT_KEY_EXISTS:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot replace existing key"),
					 errhint("Use rbmarshal_set to replace a value.")));
			break;
	}
	PG_RETURN_NULL();
}

Datum
rbmarshal_delete(PG_FUNCTION_ARGS)
{
	MarshalEditArgs args = {.kind = MEDIT_DELETE, .nkeys = 1};
	MarshalPathStep key = utf8_step(PG_GETARG_TEXT_PP(1));

	args.keys = &key;
	return edit(fcinfo, PG_GETARG_RBMARSHAL_PP(0), &args, "-");
}

Datum
rbmarshal_delete_keys(PG_FUNCTION_ARGS)
{
	MarshalEditArgs args = {.kind = MEDIT_DELETE};

	args.keys = utf8_array(PG_GETARG_ARRAYTYPE_P(1), &args.nkeys, "key array");
	if (args.nkeys == 0)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	return edit(fcinfo, PG_GETARG_RBMARSHAL_PP(0), &args, "-");
}

Datum
rbmarshal_delete_index(PG_FUNCTION_ARGS)
{
	MarshalEditArgs args = {.kind = MEDIT_DELETE_INDEX};

	args.index = PG_GETARG_INT32(1);
	return edit(fcinfo, PG_GETARG_RBMARSHAL_PP(0), &args, "-");
}

/* path[0..-2] leads to the container; path[-1] is the entry. */
static bool
split_path(FunctionCallInfo fcinfo, int argno, MarshalEditArgs *args)
{
	int			n;
	MarshalPathStep *keys = utf8_array(PG_GETARG_ARRAYTYPE_P(argno), &n, "path");

	if (n == 0)
		return false;
	args->path.steps = keys;
	args->path.n = n - 1;
	args->keys = &keys[n - 1];
	args->nkeys = 1;
	return true;
}

Datum
rbmarshal_delete_path(PG_FUNCTION_ARGS)
{
	MarshalEditArgs args = {.kind = MEDIT_DELETE_AT};

	if (!split_path(fcinfo, 1, &args))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	return edit(fcinfo, PG_GETARG_RBMARSHAL_PP(0), &args, "#-");
}

/* rbmarshal_set and rbmarshal_insert: the new value is argument 2. */
static Datum
put(FunctionCallInfo fcinfo, MarshalEditKind kind, const char *fname)
{
	MarshalEditArgs args;
	MarshalDoc	placeholder;

	memset(&args, 0, sizeof(args));
	args.kind = kind;
	args.value = &placeholder;
	if (!split_path(fcinfo, 1, &args))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	return edit(fcinfo, PG_GETARG_RBMARSHAL_PP(0), &args, fname);
}

Datum
rbmarshal_set(PG_FUNCTION_ARGS)
{
	return put(fcinfo, PG_GETARG_BOOL(3) ? MEDIT_SET : MEDIT_SET_EXISTING,
			   "rbmarshal_set");
}

Datum
rbmarshal_insert(PG_FUNCTION_ARGS)
{
	return put(fcinfo, PG_GETARG_BOOL(3) ? MEDIT_INSERT_AFTER : MEDIT_INSERT,
			   "rbmarshal_insert");
}

Datum
rbmarshal_concat(PG_FUNCTION_ARGS)
{
	MarshalDoc	v;
	MarshalDoc	w;
	MarshalError err;
	uint8_t    *out;
	size_t		len;
	bool		mismatch;

	rbmarshal_open(PG_GETARG_RBMARSHAL_PP(0), &v);
	rbmarshal_open(PG_GETARG_RBMARSHAL_PP(1), &w);
	rbmarshal_check_status(marshal_concat(&v, &w, rbmarshal_hooks(), 0, &out, &len,
										  &mismatch, &err), &err);
	if (mismatch)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot concatenate %s and %s", root_class(&v), root_class(&w)),
				 errhint("|| merges two Hashes (Hash#merge) or joins two Arrays (Array#+).")));
	PG_RETURN_BYTEA_P(result_value(out, len));
}
