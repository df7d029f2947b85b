/*
 * rbmarshal.h
 *		The PostgreSQL layer over the Marshal codec.
 */
#ifndef RBMARSHAL_H
#define RBMARSHAL_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/nodes.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#include "varatt.h"
#endif

#include "marshal.h"

/*
 * Soft errors: the text input reports through an ErrorSaveContext, so that
 * rbmarshal_error(text) gets its message without a subtransaction (which a
 * parallel worker cannot start).  PG 16+ has them.  On 15 only this module
 * passes one (RBMARSHAL_INPUT_CONTEXT ignores fcinfo->context), and errsave
 * takes PG 16's steps with 15's calls: the report is built as ereport
 * builds it, then thrown, or copied into the context and cleared.
 */
#if PG_VERSION_NUM >= 160000
#define RBMARSHAL_INPUT_CONTEXT(fcinfo) ((fcinfo)->context)
#else
typedef struct ErrorSaveContext
{
	NodeTag		type;
	bool		error_occurred;
	bool		details_wanted;
	ErrorData  *error_data;
} ErrorSaveContext;

#define T_ErrorSaveContext T_Invalid
#define RBMARSHAL_INPUT_CONTEXT(fcinfo) ((Node *) NULL)
#define SOFT_ERROR_OCCURRED(escontext) \
	((escontext) != NULL && ((ErrorSaveContext *) (escontext))->error_occurred)
#define errsave(context, ...) \
	do { \
		Node	   *errsave_ctx_ = (context); \
		\
		if (errstart(ERROR, TEXTDOMAIN)) \
			__VA_ARGS__, rbmarshal_errsave_finish(errsave_ctx_, __FILE__, __LINE__, __func__); \
	} while (0)
#define ereturn(context, dummy_value, ...) \
	do { errsave(context, __VA_ARGS__); return (dummy_value); } while (0)
extern void rbmarshal_errsave_finish(Node *context, const char *filename,
									 int lineno, const char *funcname);
#endif

/* The type is a varlena of the exact stream bytes, like bytea. */
#define DatumGetRbmarshalPP(X)		((bytea *) PG_DETOAST_DATUM_PACKED(X))
#define PG_GETARG_RBMARSHAL_PP(n)	DatumGetRbmarshalPP(PG_GETARG_DATUM(n))

/* rbmarshal.c */
extern int	rbmarshal_max_depth;
extern int	rbmarshal_max_inflated_kb;
extern const MarshalHooks *rbmarshal_hooks(void);
extern bool rbmarshal_check(const char *data, size_t len, Node *escontext);
extern void rbmarshal_report(const MarshalError *err, Node *escontext,
							 const char *target);
extern void rbmarshal_check_status(MarshalStatus st, const MarshalError *err);
extern char *rbmarshal_error_text(const MarshalError *err);
extern char *rbmarshal_depth_hint(void);
extern char *rbmarshal_with_hint(char *text, const char *hint);

extern void rbmarshal_open(bytea *v, MarshalDoc *doc);
extern bytea *rbmarshal_value(const uint8_t *bytes, size_t len);
extern bytea *rbmarshal_written(const uint8_t *bytes, size_t len);
extern void rbmarshal_open_lazy(bytea *v, MarshalDoc *doc);

/* rbmarshal_transcode.c */
extern bool rbmarshal_transcode(void *ctx, const char *encname,
								const uint8_t *s, size_t len,
								char **out, size_t *outlen);

/* rbmarshal_to_jsonb.c */
extern JsonbValue *rbmarshal_json_value(const MarshalDoc *doc,
											   size_t pos, int time_precision,
											   MarshalBinaryMode binary);
extern JsonbValue *rbmarshal_json_entry(const MarshalDoc *doc,
										const MarshalEntry *e,
										int time_precision,
										MarshalBinaryMode binary);

/* rbmarshal_jsonb_binary.c */
extern Jsonb *rbmarshal_jsonb_binary(bytea *v, const MarshalJsonOptions *opts);

/* rbmarshal_yaml.c */
extern Jsonb *rbmarshal_yaml_to_jsonb(const MarshalYamlColumn *col);

/* rbmarshal_from_yaml.c: marshal_from_yaml, cleaning up after a cancel */
struct YamlOptions;
extern MarshalStatus rbmarshal_read_yaml(const uint8_t *text, size_t len,
										 const struct YamlOptions *opts,
										 uint8_t **out, size_t *outlen,
										 MarshalError *err);

/* rbmarshal_from_jsonb.c */
extern bytea *rbmarshal_from_jsonb_value(JsonbValue *v);
extern void rbmarshal_write_jsonb(MarshalWriter *w, Jsonb *j, bool symbolize);
extern bytea *rbmarshal_finish(MarshalWriter *w);

/* rbmarshal_view_text.c: the JSON view as text without a JsonbValue */
/*
 * The JSON view of one value without a JsonbValue: a sink that keeps what
 * the value is at its top level (a scalar's kind and text) and, for text,
 * jsonb's text of an Array of scalars and Arrays (jsonb_out's ", " and
 * escapes, numbers as numeric prints them).  An object, or a serialized
 * column's JSON/YAML text (record attributes), is left to the JsonbValue
 * path (redo).
 */
typedef enum
{
	VT_NONE,
	VT_STRING,
	VT_NULL,
	VT_BOOL,
	VT_INTEGER,
	VT_NUMBER,
	VT_ARRAY
} ViewKind;

typedef struct ViewText
{
	ViewKind	kind;			/* of the top-level value */
	bool		redo;			/* an object: jsonb's text needs the JsonbValue path */
	bool		column;			/* a column's text: only the JsonbValue path */
	bool		want_text;		/* build jsonb's text of an Array */
	int			depth;
	bool		first;			/* no element yet in the current Array */
	bool		bval;
	int64		ival;
	const char *s;				/* VT_STRING, VT_NUMBER: UTF-8 text */
	size_t		len;
	StringInfoData text;		/* want_text: an Array's jsonb text */
	StringInfoData copy;		/* scratch text the sink was lent */
	char		time[80];		/* a time's text (marshal_time_json_at) */
} ViewText;

extern void rbmarshal_view_text(MarshalDoc *doc, size_t pos, ViewText *vt);
extern char *rbmarshal_numeric_text(const char *s, size_t len);
extern text *rbmarshal_server_text(const char *s, size_t len);

/*
 * The text views of some classes have a fixed shape, so most keys cannot
 * equal them: Time, DateTime and TimeWithZone are xmlschema text (a T and a
 * colon, digits, '-', '+', '.', 'Z'), a Date "%Y-%m-%d" (digits and '-'),
 * a BigDecimal to_s("F") (digits, '-' and '.').
 */
typedef enum
{
	SHAPE_ANY,					/* no known shape: convert */
	SHAPE_TIME,
	SHAPE_DATE,
	SHAPE_DECIMAL
} Shape;

#define SHAPE_BIT(s) (1u << (s))
extern unsigned rbmarshal_key_shapes(const char *k, size_t len);
extern Shape rbmarshal_class_shape(MarshalDoc *doc, size_t pos);
extern bool rbmarshal_latin1_no_key(const MarshalNode *n, const size_t *keylens,
									int nkeys, const char *const *keys);
extern bool rbmarshal_latin1_text(MarshalDoc *doc, const MarshalNode *n,
								  StringInfo scratch);

/* rbmarshal_nav.c */
extern char *rbmarshal_class_name(const MarshalNode *n);
extern Datum rbmarshal_subscript_path(FunctionCallInfo fcinfo, bytea *v,
									  int n, Datum *keys, bool *nulls);

/* rbmarshal_zones.c: whether Rails knows a zone name (MarshalHooks) */
extern bool rbmarshal_zone_known(const char *zone);
/* rbmarshal_zones.c: a Rails zone's abbreviation at an instant (MarshalHooks) */
extern bool rbmarshal_zone_abbrev(const char *zone, int64_t epoch, int64_t offset,
								  char *out, size_t size);

#endif							/* RBMARSHAL_H */
