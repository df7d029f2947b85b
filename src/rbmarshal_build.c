/*
 * rbmarshal_build.c
 *		Writing Marshal from SQL: to_rbmarshal, build_array, build_hash and
 *		the aggregates.
 *
 * Each SQL value becomes the Ruby value of the same meaning, written as MRI
 * dumps it: text a UTF-8 String, numeric an Integer (no fraction) or a
 * BigDecimal, timestamptz a UTC Time, date a Date.  rbmarshal arguments are
 * re-encoded into the stream being written (symbols and links renumbered),
 * and hash String keys are shared frozen strings, as in Ruby.
 */
#include "rbmarshal.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(to_rbmarshal_any);
PG_FUNCTION_INFO_V1(rbmarshal_build_array);
PG_FUNCTION_INFO_V1(rbmarshal_build_hash);
PG_FUNCTION_INFO_V1(rbmarshal_agg_transfn);
PG_FUNCTION_INFO_V1(rbmarshal_agg_finalfn);
PG_FUNCTION_INFO_V1(rbmarshal_object_agg_transfn);
PG_FUNCTION_INFO_V1(rbmarshal_object_agg_finalfn);

/* A stored rbmarshal value written again as one value of w's stream. */
static void
write_rbmarshal(MarshalWriter *w, bytea *v, bool as_key)
{
	MarshalDoc	doc;
	MarshalError err;

	rbmarshal_open_lazy(v, &doc);
	if (as_key)
	{
		/* a String key is a frozen, shared string in a Ruby Hash */
		MarshalNode n;

		rbmarshal_check_status(marshal_node(&doc, MARSHAL_ROOT, &n, &err), &err);
		if (n.type == MT_STRING && n.encoding == MENC_UTF8 && n.uclass.len == 0 &&
			n.next == doc.len)
		{
			marshal_write_key(w, n.data.ptr, n.data.len);
			marshal_index_free(&doc.index, rbmarshal_hooks());
			return;
		}
	}
	rbmarshal_check_status(marshal_reencode_into(w, &doc, MARSHAL_ROOT, rbmarshal_hooks(), &err), &err);
	marshal_index_free(&doc.index, rbmarshal_hooks());
}

/* Text in the server encoding as a UTF-8 String (or a shared key). */
static void
write_text(MarshalWriter *w, text *t, bool as_key)
{
	char	   *s = VARDATA_ANY(t);
	int			n = VARSIZE_ANY_EXHDR(t);
	char	   *u = pg_server_to_any(s, n, PG_UTF8);
	size_t		len = u == s ? (size_t) n : strlen(u);

	if (as_key)
		marshal_write_key(w, (const uint8_t *) u, len);
	else
		marshal_write_string(w, (const uint8_t *) u, len, MENC_UTF8);
}

/*
 * One SQL value of type typid as the Ruby value of the same meaning.
 * rbmarshal_oid is the rbmarshal type's OID (the caller's return type).
 */
static void
write_datum(MarshalWriter *w, Datum d, bool isnull, Oid typid,
			Oid rbmarshal_oid, bool as_key)
{
	if (isnull)
	{
		marshal_write_nil(w);
		return;
	}
	if (typid == rbmarshal_oid)
	{
		write_rbmarshal(w, DatumGetRbmarshalPP(d), as_key);
		return;
	}
	switch (typid)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			write_text(w, DatumGetTextPP(d), as_key);
			break;
		case NAMEOID:
			write_text(w, cstring_to_text(NameStr(*DatumGetName(d))), as_key);
			break;
		case INT2OID:
			marshal_write_int(w, DatumGetInt16(d));
			break;
		case INT4OID:
			marshal_write_int(w, DatumGetInt32(d));
			break;
		case INT8OID:
			marshal_write_int(w, DatumGetInt64(d));
			break;
		case FLOAT4OID:
			marshal_write_float(w, (double) DatumGetFloat4(d));
			break;
		case FLOAT8OID:
			marshal_write_float(w, DatumGetFloat8(d));
			break;
		case BOOLOID:
			marshal_write_bool(w, DatumGetBool(d));
			break;
		case NUMERICOID:
			{
				char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, d));

				/* Integer without a fraction; BigDecimal(text) otherwise */
				if (strchr(s, '.') == NULL && strcmp(s, "NaN") != 0 &&
					strcmp(s, "Infinity") != 0 && strcmp(s, "-Infinity") != 0)
					marshal_write_decimal(w, s, strlen(s));
				else if (strchr(s, '.') != NULL)
					marshal_write_bigdecimal(w, s, strlen(s));
				else
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("cannot write numeric %s as Marshal data", s)));
				break;
			}
		case TIMESTAMPTZOID:
		case TIMESTAMPOID:
			{
				/* a UTC Time (a timestamp's wall clock taken as UTC) */
				Timestamp	ts = DatumGetTimestamp(d);
				int64		secs;
				int64		usec;

				if (TIMESTAMP_NOT_FINITE(ts))
					ereport(ERROR,
							(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							 errmsg("cannot write an infinite timestamp as a Ruby Time")));
				secs = ts / USECS_PER_SEC;
				usec = ts % USECS_PER_SEC;
				if (usec < 0)
				{
					secs--;
					usec += USECS_PER_SEC;
				}
				marshal_write_time_utc(w, secs + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY,
									   (int32) usec);
				break;
			}
		case DATEOID:
			{
				DateADT		date = DatumGetDateADT(d);

				if (DATE_NOT_FINITE(date))
					ereport(ERROR,
							(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							 errmsg("cannot write an infinite date as a Ruby Date")));
				/* the same day, by its Julian Day Number */
				marshal_write_date(w, (int64) date + POSTGRES_EPOCH_JDATE);
				break;
			}
		case JSONBOID:
			rbmarshal_write_jsonb(w, DatumGetJsonbP(d), false);
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot write a value of type %s as Marshal data",
							format_type_be(typid)),
					 errhint("Cast it to text, numeric, jsonb or rbmarshal first.")));
	}
}

/* to_rbmarshal(value): every overload shares this, by argument type. */
Datum
to_rbmarshal_any(PG_FUNCTION_ARGS)
{
	MarshalWriter *w = marshal_writer_new(rbmarshal_hooks());

	write_datum(w, PG_GETARG_DATUM(0), false,
				get_fn_expr_argtype(fcinfo->flinfo, 0),
				get_fn_expr_rettype(fcinfo->flinfo), false);
	PG_RETURN_BYTEA_P(rbmarshal_finish(w));
}

/* rbmarshal_build_array(VARIADIC rbmarshal[]) */
Datum
rbmarshal_build_array(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	Oid			elem = ARR_ELEMTYPE(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *items;
	bool	   *nulls;
	int			n;
	MarshalWriter *w;

	get_typlenbyvalalign(elem, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elem, typlen, typbyval, typalign, &items, &nulls, &n);
	w = marshal_writer_new(rbmarshal_hooks());
	marshal_write_array(w, (uint32_t) n);
	for (int i = 0; i < n; i++)
		write_datum(w, items[i], nulls[i], elem, elem, false);
	PG_RETURN_BYTEA_P(rbmarshal_finish(w));
}

/* rbmarshal_build_hash(VARIADIC "any"): key, value, key, value... */
Datum
rbmarshal_build_hash(PG_FUNCTION_ARGS)
{
	Datum	   *args;
	bool	   *nulls;
	Oid		   *types;
	int			n = extract_variadic_args(fcinfo, 0, true, &args, &types, &nulls);
	Oid			rbmarshal_oid = get_fn_expr_rettype(fcinfo->flinfo);
	MarshalWriter *w;

	if (n < 0)
		PG_RETURN_NULL();
	if (n % 2 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument list must have even number of elements"),
				 errhint("The arguments of rbmarshal_build_hash() must consist of alternating keys and values.")));
	w = marshal_writer_new(rbmarshal_hooks());
	marshal_write_hash(w, (uint32_t) (n / 2));
	for (int i = 0; i < n; i++)
		write_datum(w, args[i], nulls[i], types[i], rbmarshal_oid, i % 2 == 0);
	PG_RETURN_BYTEA_P(rbmarshal_finish(w));
}

/*
 * The aggregates keep their inputs (copied into the aggregate context) and
 * write the stream at the end, when the count is known: Marshal puts an
 * Array's length before its elements.
 */
typedef struct BuildState
{
	List	   *keys;			/* object_agg: Datum copies, or NULL */
	List	   *values;
	Oid			keytype;
	Oid			rbmarshal_oid;
} BuildState;

static BuildState *
agg_state(FunctionCallInfo fcinfo, MemoryContext *aggctx)
{
	BuildState   *st;

	if (!AggCheckCallContext(fcinfo, aggctx))
		elog(ERROR, "aggregate function called in non-aggregate context");
	if (!PG_ARGISNULL(0))
		return (BuildState *) PG_GETARG_POINTER(0);
	st = MemoryContextAllocZero(*aggctx, sizeof(BuildState));
	return st;
}

/*
 * A copy of an rbmarshal (or key) datum, or NULL, in the aggregate context.
 * A varlena is kept detoasted: no TOAST pointer outlives the input row, the
 * final function reads it without another copy, and a key compressed or
 * stored out of line compares by the same bytes as its plain twin.
 */
static Datum *
keep(MemoryContext aggctx, Datum d, bool isnull, Oid typid)
{
	Datum	   *slot = MemoryContextAlloc(aggctx, sizeof(Datum) + sizeof(bool));
	int16		typlen;
	bool		typbyval;
	MemoryContext old = MemoryContextSwitchTo(aggctx);

	get_typlenbyval(typid, &typlen, &typbyval);
	*(bool *) (slot + 1) = isnull;
	if (isnull)
		*slot = (Datum) 0;
	else if (typlen == -1)
		*slot = PointerGetDatum(PG_DETOAST_DATUM_COPY(d));
	else
		*slot = datumCopy(d, typbyval, typlen);
	MemoryContextSwitchTo(old);
	return slot;
}

Datum
rbmarshal_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx;
	BuildState   *st = agg_state(fcinfo, &aggctx);
	MemoryContext old;
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 1);

	st->rbmarshal_oid = typid;
	old = MemoryContextSwitchTo(aggctx);
	st->values = lappend(st->values, keep(aggctx, PG_GETARG_DATUM(1), PG_ARGISNULL(1), typid));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
rbmarshal_agg_finalfn(PG_FUNCTION_ARGS)
{
	BuildState   *st;
	MarshalWriter *w;
	ListCell   *lc;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (BuildState *) PG_GETARG_POINTER(0);
	w = marshal_writer_new(rbmarshal_hooks());
	marshal_write_array(w, (uint32_t) list_length(st->values));
	foreach(lc, st->values)
	{
		Datum	   *slot = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		write_datum(w, *slot, *(bool *) (slot + 1), st->rbmarshal_oid,
					st->rbmarshal_oid, false);
	}
	PG_RETURN_BYTEA_P(rbmarshal_finish(w));
}

Datum
rbmarshal_object_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx;
	BuildState   *st = agg_state(fcinfo, &aggctx);
	MemoryContext old;
	Oid			keytype = get_fn_expr_argtype(fcinfo->flinfo, 1);
	Oid			valtype = get_fn_expr_argtype(fcinfo->flinfo, 2);

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rbmarshal_object_agg key must not be null")));
	st->keytype = keytype;
	st->rbmarshal_oid = valtype;
	old = MemoryContextSwitchTo(aggctx);
	st->keys = lappend(st->keys, keep(aggctx, PG_GETARG_DATUM(1), false, keytype));
	st->values = lappend(st->values, keep(aggctx, PG_GETARG_DATUM(2), PG_ARGISNULL(2), valtype));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/*
 * A Ruby Hash keeps one entry per key: h[k] = v on a key already there
 * replaces the value in its first position.  Keys compare by their bytes
 * (kept detoasted).
 */
static int
find_first(Datum **keys, int n, uint32 *hashes, int *table, int cap, int i)
{
	struct varlena *ki = (struct varlena *) DatumGetPointer(*keys[i]);

	for (int h = hashes[i] & (cap - 1);; h = (h + 1) & (cap - 1))
	{
		int			j = table[h];
		struct varlena *kj;

		if (j < 0)
		{
			table[h] = i;
			return i;
		}
		kj = (struct varlena *) DatumGetPointer(*keys[j]);
		if (hashes[j] == hashes[i] && VARSIZE_ANY_EXHDR(ki) == VARSIZE_ANY_EXHDR(kj) &&
			memcmp(VARDATA_ANY(ki), VARDATA_ANY(kj), VARSIZE_ANY_EXHDR(ki)) == 0)
			return j;
	}
}

Datum
rbmarshal_object_agg_finalfn(PG_FUNCTION_ARGS)
{
	BuildState   *st;
	MarshalWriter *w;
	int			n;
	int			cap = 16;
	Datum	  **keys;
	Datum	  **values;
	uint32	   *hashes;
	int		   *table;
	int		   *first;
	int			distinct = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (BuildState *) PG_GETARG_POINTER(0);
	n = list_length(st->keys);
	while (cap < 2 * n)
		cap *= 2;
	keys = palloc(n * sizeof(Datum *));
	values = palloc(n * sizeof(Datum *));
	hashes = palloc(n * sizeof(uint32));
	first = palloc(n * sizeof(int));
	table = palloc(cap * sizeof(int));
	memset(table, -1, cap * sizeof(int));
	for (int i = 0; i < n; i++)
	{
		struct varlena *k;

		keys[i] = list_nth(st->keys, i);
		values[i] = list_nth(st->values, i);
		k = (struct varlena *) DatumGetPointer(*keys[i]);
		hashes[i] = DatumGetUInt32(hash_any((unsigned char *) VARDATA_ANY(k),
										   VARSIZE_ANY_EXHDR(k)));
		first[i] = find_first(keys, n, hashes, table, cap, i);
		if (first[i] != i)
			values[first[i]] = values[i];	/* the later value wins */
		else
			distinct++;
	}
	w = marshal_writer_new(rbmarshal_hooks());
	marshal_write_hash(w, (uint32_t) distinct);
	for (int i = 0; i < n; i++)
	{
		if (first[i] != i)
			continue;
		CHECK_FOR_INTERRUPTS();
		write_datum(w, *keys[i], false, st->keytype, st->rbmarshal_oid, true);
		write_datum(w, *values[i], *(bool *) (values[i] + 1), st->rbmarshal_oid,
					st->rbmarshal_oid, false);
	}
	PG_RETURN_BYTEA_P(rbmarshal_finish(w));
}
