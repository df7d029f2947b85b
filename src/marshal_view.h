/*
 * marshal_view.h
 *		The JSON view: its containers (marshal_view.c), Active Record
 *		attributes in it (marshal_activerecord_view.c) and the walk that writes
 *		it to a sink (marshal_json.c).
 */
#ifndef RBMARSHAL_MARSHAL_VIEW_H
#define RBMARSHAL_MARSHAL_VIEW_H

#include "marshal_ruby.h"

/*
 * The JSON view: what Rails' ActiveSupport::JSON.encode would write for the
 * value, as events to a sink (the walk is marshal_json.c).  PostgreSQL's
 * sink builds a jsonb; marshal_to_json_text() (marshal_json_text.c) writes
 * JSON text.
 */
typedef enum MarshalBinaryMode
{
	MBIN_BASE64 = 0,			/* {"$binary": "<base64>"} */
	MBIN_ERROR,					/* MARSHAL_ERR_ENCODING */
	MBIN_REPLACE				/* invalid bytes become U+FFFD */
} MarshalBinaryMode;

/*
 * Convert bytes in a named Ruby encoding (Shift_JIS, ...) to UTF-8: false if
 * the encoding is unknown or the bytes are invalid in it.  *out must stay
 * valid until the conversion (or the lookup) ends.
 */
typedef struct MarshalTranscoder
{
	bool		(*transcode) (void *ctx, const char *encname,
							  const uint8_t *s, size_t len,
							  char **out, size_t *outlen);
	void	   *ctx;
} MarshalTranscoder;

/*
 * One step of a path into a value: a key (UTF-8 text; in the JSON walk's
 * error paths, the key's bytes) or, when key is NULL, an array index
 * (negative from the end).
 */
typedef struct MarshalPathStep
{
	const char *key;
	size_t		keylen;
	int64_t		index;			/* the walk's path: -1, no step yet */
} MarshalPathStep;

struct MarshalYamlColumn;

typedef struct MarshalJsonSink
{
	void	   *ctx;
	void		(*begin_object) (void *ctx);
	void		(*end_object) (void *ctx);
	void		(*begin_array) (void *ctx);
	void		(*end_array) (void *ctx);
	/*
	 * Keys and strings are valid UTF-8 without NUL.  "stable" text points
	 * into the stream and lives as long as the conversion; other text is
	 * scratch the sink must copy if it keeps it.
	 */
	void		(*key) (void *ctx, const char *s, size_t len, bool stable);
	void		(*string) (void *ctx, const char *s, size_t len, bool stable);
	void		(*null) (void *ctx);
	void		(*boolean) (void *ctx, bool value);
	void		(*integer) (void *ctx, int64_t value);
	/* a JSON number as text (bignums, floats); scratch */
	void		(*number) (void *ctx, const char *text, size_t len);
	/* for text in named encodings; may be NULL (such text is binary) */
	const MarshalTranscoder *transcoder;
	/*
	 * Emit JSON text (a serialized column's) as the value it parses to;
	 * false, having emitted nothing, if it is not valid JSON.  hash_only (a
	 * store's column): a value that is not an object is {}.  May be NULL:
	 * the text is then emitted as a string.
	 */
	bool		(*json) (void *ctx, const char *s, size_t len, bool hash_only);
	/*
	 * The same for a YAML column's text as ActiveRecord's YAMLColumn loads
	 * it (MarshalYamlColumn, below); false, having emitted nothing, for YAML
	 * whose loading is not reproduced or that Rails refuses.
	 */
	bool		(*yaml) (void *ctx, const struct MarshalYamlColumn *col);
} MarshalJsonSink;

typedef struct MarshalJsonOptions
{
	int			time_precision; /* fraction digits of times, 0..9 */
	MarshalBinaryMode binary;
	uint32_t	max_depth;		/* 0: MARSHAL_DEFAULT_MAX_DEPTH */
	uint64_t	max_cost;		/* expansion budget; 0: the default */
} MarshalJsonOptions;

/* as_json's defaults: ActiveSupport's time_precision, binary as Base64 */
#define MARSHAL_DEFAULT_TIME_PRECISION 3
#define MARSHAL_DEFAULT_BINARY MBIN_BASE64
#define MARSHAL_JSON_DEFAULTS \
	{MARSHAL_DEFAULT_TIME_PRECISION, MARSHAL_DEFAULT_BINARY, 0, 0}

/*
 * The containers of the JSON view (marshal_view.c).  Navigation and the
 * JSON walker both use this, so v -> k always agrees with v::jsonb -> k.
 */
typedef enum MarshalViewKind
{
	MV_SCALAR = 0,				/* a JSON scalar (or an object made of one) */
	MV_ARRAY,					/* Array: its elements */
	MV_SET,						/* Set: the keys of its @hash */
	MV_HASH,					/* Hash of any kind: key.to_s => value */
	MV_STRUCT,					/* Struct: member => value */
	MV_IVARS,					/* plain object: @ivar (without @) => value */
	MV_RECORD,					/* Active Record: its attributes */
	MV_TABLE					/* OpenStruct: "table" => the Hash it dumped */
} MarshalViewKind;

/* The kinds that are JSON objects (keyed entries). */
#define MARSHAL_VIEW_IS_OBJECT(k) \
	((k) == MV_HASH || (k) == MV_STRUCT || (k) == MV_IVARS || (k) == MV_RECORD || \
	 (k) == MV_TABLE)

/*
 * MV_RECORD: where an Active Record model keeps its attributes, as
 * marshal_activerecord_view.c finds them: attribute Hashes, a later one overriding
 * earlier keys (6.1 format), or the one Hash of the 7.1 format.
 */
typedef struct MarshalRecordView
{
	int			nsegs;
	size_t		seg_items[3];
	uint32_t	seg_count[3];
	int			attr_seg;		/* the one holding Attribute objects, or -1 */
	int			values_seg;		/* the adapter's @values, or -1 */
	size_t		types_items;	/* the @types Hash (name => type object) */
	uint32_t	types_count;
	size_t		extra_items;	/* @additional_types: a query's columns' types
								 * (name or index => type), before @types */
	uint32_t	extra_count;
	bool		no_type;		/* "type" is the inheritance column, which
								 * serializable_hash leaves out */
	bool		untyped;		/* 7.1 format: no types, values for the database */
	bool		concise;		/* to_yaml's concise_attributes (an Array) */
} MarshalRecordView;

typedef struct MarshalView
{
	MarshalViewKind kind;
	MarshalNode node;			/* the value itself, through wrappers */
	size_t		items;			/* the first entry */
	uint32_t	count;			/* entries, ivars not starting with @ too */
	MarshalRecordView record;	/* MV_RECORD only */
} MarshalView;

typedef struct MarshalViewIter
{
	const MarshalView *view;
	int			seg;			/* MV_RECORD: the Hash being read */
	uint32_t	i;
	size_t		pos;			/* next entry (once the last value is past) */
	size_t		value;			/* the last value returned, to skip */
} MarshalViewIter;

/* How an MV_RECORD attribute's raw value is cast (marshal_activerecord.c). */
#define MARSHAL_CAST_NONE	0	/* already cast (or nothing to cast with) */
#define MARSHAL_CAST_DB		1	/* type.deserialize: the adapter's value */
#define MARSHAL_CAST_USER	2	/* type.cast: a value assigned by the app */
#define MARSHAL_CAST_UNTYPED 3	/* deserialize by the type the model's schema
								 * has (7.1 format): as far as the value's
								 * own class tells it */

typedef struct MarshalEntry
{
	size_t		key;			/* MV_HASH: offset of the key value */
	MarshalBytes name;			/* MV_STRUCT, MV_IVARS: the name */
	MarshalEncoding name_enc;
	MarshalBytes name_encname;
	size_t		value;			/* offset of the value (or element) */
	size_t		type;			/* MV_RECORD: the attribute's type object */
	int			cast;			/* MV_RECORD: MARSHAL_CAST_* */
} MarshalEntry;

/* A key as text: key.to_s of a Hash key, or a member/ivar name. */
typedef struct MarshalKeyText
{
	bool		ok;				/* false: a key whose to_s is not produced */
	int			type;			/* type byte of a Hash key */
	MarshalBytes text;
	MarshalEncoding encoding;
	MarshalBytes encname;
} MarshalKeyText;

extern MarshalStatus marshal_view(const MarshalDoc *doc, size_t pos,
								  MarshalView *view, MarshalError *err);
extern void marshal_view_iter(const MarshalView *view, MarshalViewIter *it);
/* A walker that went through the last value tells where it ended. */
extern void marshal_view_value_end(MarshalViewIter *it, size_t end);
extern MarshalStatus marshal_view_next(const MarshalDoc *doc,
									   MarshalViewIter *it, MarshalEntry *e,
									   bool *done, MarshalError *err);
/*
 * buf holds the text of non-String keys: MARSHAL_KEY_BUF bytes make room
 * for every to_s the bytes decide (a Range of Rationals, a TimeWithZone)
 */
#define MARSHAL_KEY_BUF 400
extern MarshalStatus marshal_key_text(const MarshalDoc *doc,
									  const MarshalEntry *e, char *buf,
									  size_t size, MarshalKeyText *key,
									  MarshalError *err);
/*
 * The value one path step leads to in a view, as jsonb's -> finds it;
 * *found = 0 when there is none.  Keys in named encodings compare as the
 * UTF-8 the transcoder (may be NULL) converts them to.
 */
extern MarshalStatus marshal_view_find(const MarshalDoc *doc,
									   const MarshalView *view,
									   const MarshalPathStep *step,
									   const MarshalTranscoder *transcoder,
									   size_t *found, MarshalError *err);

/* Whether an entry's key, read as text (to_s), is key, as find matches. */
extern MarshalStatus marshal_entry_matches(const MarshalDoc *doc,
										   const MarshalEntry *e,
										   const char *key, size_t keylen,
										   const MarshalTranscoder *transcoder,
										   bool *match, MarshalError *err);

/* As marshal_view_find for a key, giving the whole entry (value 0: none). */
extern MarshalStatus marshal_view_find_entry(const MarshalDoc *doc,
											 const MarshalView *view,
											 const MarshalPathStep *step,
											 const MarshalTranscoder *transcoder,
											 MarshalEntry *found,
											 MarshalError *err);

/* transcoder's conversion of text in the encoding named encname, if any */
extern bool marshal_transcode(const MarshalTranscoder *transcoder,
							  MarshalBytes encname, const uint8_t *s,
							  size_t len, char **out, size_t *outlen);

/*
 * An Active Record attribute's value cast as serializable_hash would
 * (marshal_activerecord.c): what to emit instead of the raw value.
 */
typedef enum MarshalCastKind
{
	MCAST_RAW = 0,				/* the raw value, as it is */
	MCAST_VALUE,				/* the value at pos instead */
	MCAST_NULL,
	MCAST_BOOL,
	MCAST_INT,
	MCAST_NUMBER,				/* text: a JSON number */
	MCAST_STRING,				/* text: a JSON string */
	MCAST_TIME,					/* an instant, as ISO 8601 UTC ("...Z") */
	MCAST_MARSHAL,				/* bytes: a nested Marshal stream's view */
	MCAST_JSON,					/* bytes: JSON text, parsed */
	MCAST_YAML,					/* yaml: a YAML column's text, loaded */
	MCAST_PG_ARRAY,				/* bytes: PostgreSQL array text (or pos: a Ruby
								 * Array), each element cast by the type at
								 * subtype (marshal_record_cast_element) */
	MCAST_HSTORE,				/* bytes: hstore text, as a Hash of Strings */
	MCAST_POINT,				/* bytes: "(x,y)", {"x": x.to_f, "y": y.to_f} */
	MCAST_PG_RANGE,				/* bytes: range text, as OID::Range makes a
								 * Range of ends cast by subtype: its to_s */
	MCAST_BYTEA					/* bytes: the hex digits of PostgreSQL's bytea
								 * text ("\\x..."), decoded: a binary String,
								 * or (nested) a Marshal stream's view */
} MarshalCastKind;

/*
 * A YAML-coded attribute (serialize with YAMLColumn): its text and what
 * Rails 7.2's YAMLColumn#load checks the loaded value against.  Only the
 * first MARSHAL_YAML_PERMITTED classes a coder permits are kept (a later
 * one is then refused, as a class nobody permitted is).
 */
#define MARSHAL_YAML_PERMITTED 8

typedef struct MarshalYamlColumn
{
	MarshalBytes text;
	MarshalBytes object_class;	/* serialize's class; len 0: Object */
	MarshalBytes permitted[MARSHAL_YAML_PERMITTED]; /* the coder's (7.1+) */
	int			npermitted;
	bool		unsafe_load;	/* the coder's unsafe_load is true */
	bool		store;			/* a store's IndifferentCoder around the
								 * coder: what is not a Hash loads as {} */
} MarshalYamlColumn;

typedef struct MarshalCast
{
	MarshalCastKind kind;
	bool		boolean;
	int64_t		integer;
	size_t		pos;
	MarshalInstant time;
	MarshalBytes bytes;
	bool		json_invalid_null;	/* bad JSON is null (else left raw) */
	size_t		subtype;		/* MCAST_PG_ARRAY: the elements' type */
	char		delim;			/* MCAST_PG_ARRAY: between elements */
	bool		user;			/* MCAST_PG_ARRAY: cast, not deserialized */
	bool		nested;			/* MCAST_BYTEA: a Marshal coder's bytes */
	MarshalYamlColumn yaml;		/* MCAST_YAML; MCAST_JSON: its store */
	char		text[128];
	size_t		len;
} MarshalCast;

extern MarshalStatus marshal_record_cast(const MarshalDoc *doc,
										 const MarshalEntry *e,
										 MarshalCast *c, MarshalError *err);
/*
 * serialize's object class (YAMLColumn, 7.1+ ColumnSerializer): the JSON of
 * cls.new, what Rails loads for nil ("null" for Object).
 */
extern const char *marshal_new_instance_json(MarshalBytes cls);

/*
 * Whether the value YAML gave (the root of doc) passes YAMLColumn#load's
 * object_class check: *ok false where Rails raises or the bytes cannot
 * tell (a class that may be a subclass); *is_nil when it loaded nil (Rails
 * then gives the class's new instance).
 */
extern MarshalStatus marshal_yaml_column_check(const MarshalDoc *doc,
											   MarshalBytes object_class,
											   bool *ok, bool *is_nil,
											   MarshalError *err);

/*
 * One element of an MCAST_PG_ARRAY cast by the type object at subtype; v
 * may be a node made for the element's text (type MT_STRING, pos 0).
 */
extern MarshalStatus marshal_record_cast_element(const MarshalDoc *doc,
												 size_t subtype, bool user,
												 const MarshalNode *v,
												 MarshalCast *c,
												 MarshalError *err);

/*
 * Default expansion budget: about one unit per value or 16 string bytes
 * emitted, so an input of len bytes never needs more than its own size;
 * shared references may expand up to this many before it is refused.
 */
#define MARSHAL_DEFAULT_COST(len) (100000 + 16 * (uint64_t) (len))

/*
 * Digits of the longest Integer a JSON view writes (jsonb's numeric holds
 * 131072 before the point): a longer one is MARSHAL_ERR_LIMIT, found before
 * the quadratic conversion to decimal.
 */
#define MARSHAL_JSON_MAX_DIGITS 131072

extern MarshalStatus marshal_to_json(const MarshalDoc *doc,
									 const MarshalJsonSink *sink,
									 const MarshalJsonOptions *opts,
									 const MarshalHooks *hooks,
									 MarshalError *err);

/*
 * Validate and write JSON text (malloc'd or from hooks) into *out: in one
 * pass where marshal_json_fast.c can, else by indexing and walking.
 */
extern MarshalStatus marshal_to_json_text(const uint8_t *buf, size_t len,
										  const MarshalJsonOptions *opts,
										  const MarshalHooks *hooks,
										  char **out, size_t *outlen,
										  MarshalError *err);
/* The same text, always by the indexed walk (to compare the two: fuzz_walk). */
extern MarshalStatus marshal_to_json_text_indexed(const uint8_t *buf, size_t len,
												  const MarshalJsonOptions *opts,
												  const MarshalHooks *hooks,
												  char **out, size_t *outlen,
												  MarshalError *err);
/*
 * The text jsonb's output function prints for the JSON view of a validated
 * stream (keys sorted, the last of equal keys, ", " and ": ", numbers as
 * numeric prints them), written in one pass: false where that pass gives up
 * (then build the jsonb).  For the rbmarshal -> json cast.
 */
extern bool marshal_to_jsonb_text(const uint8_t *buf, size_t len,
								  const MarshalJsonOptions *opts,
								  const MarshalHooks *hooks,
								  char **out, size_t *outlen);
/*
 * The JSON view of a validated stream to a sink (no transcoder, JSON or YAML
 * hooks needed) in one pass, without an index, where the one-pass emitter
 * reads every value (marshal_json_fast.c): false where it gives up, having
 * sent the sink part of the value; then start again with marshal_to_json.
 */
extern bool marshal_to_json_fast(const uint8_t *buf, size_t len,
								 const MarshalJsonOptions *opts,
								 const MarshalJsonSink *sink,
								 const MarshalHooks *hooks);

/* The JSON view of one view entry's value (cast, for record attributes). */
extern MarshalStatus marshal_to_json_entry(const MarshalDoc *doc,
										   const MarshalEntry *e,
										   const MarshalJsonSink *sink,
										   const MarshalJsonOptions *opts,
										   const MarshalHooks *hooks,
										   MarshalError *err);

/* The JSON view of the value at pos only (navigation results). */
extern MarshalStatus marshal_to_json_at(const MarshalDoc *doc, size_t pos,
										const MarshalJsonSink *sink,
										const MarshalJsonOptions *opts,
										const MarshalHooks *hooks,
										MarshalError *err);

#endif							/* RBMARSHAL_MARSHAL_VIEW_H */
