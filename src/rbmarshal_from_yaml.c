/*
 * rbmarshal_from_yaml.c
 *		YAML text -> rbmarshal: MRI's Marshal.dump(YAML.unsafe_load(text)),
 *		or of YAML.safe_load(text, permitted_classes:, aliases:).
 *
 * The codec's YAML reader (src/yaml_reader.c) does the work; this file
 * hands it the text as UTF-8 and turns its failures into errors: YAML that
 * Psych cannot parse or load 22P02, a safe-mode refusal 22023 (naming the
 * tag and its line), the expansion budget 54000, nesting 54001.
 */
#include "rbmarshal.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "yaml_reader.h"

PG_FUNCTION_INFO_V1(rbmarshal_from_yaml);
PG_FUNCTION_INFO_V1(rbmarshal_from_yaml_safe);

static void
report(const MarshalError *err)
{
	switch (err->status)
	{
		case MARSHAL_ERR_UNSUPPORTED:
			/* Psych's DisallowedClass, or BadAlias (refused, or unknown) */
			if (strstr(err->detail, "unspecified class: "))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("YAML refused by safe mode"),
						 errdetail("At %s.", err->detail),
						 errhint("Permit the class in permitted_classes (as YAML.safe_load's permitted_classes).")));
			else if (strstr(err->detail, "aliases are not allowed"))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("YAML refused by safe mode"),
						 errdetail("At %s.", err->detail),
						 errhint("Allow aliases (aliases => true, as YAML.safe_load's aliases: true).")));
			else
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("YAML alias to an unknown anchor"),
						 errdetail("At %s.", err->detail)));
			break;
		case MARSHAL_ERR_LIMIT:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("YAML value exceeds a limit"),
					 errdetail("At %s.", err->detail)));
			break;
		case MARSHAL_ERR_DEPTH:
			ereport(ERROR,
					(errcode(ERRCODE_STATEMENT_TOO_COMPLEX),
					 errmsg("YAML value nested too deeply"),
					 errdetail("At %s.", err->detail),
					 errhint("%s", rbmarshal_depth_hint())));
			break;
		case MARSHAL_ERR_NOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory while reading YAML")));
			break;
		case MARSHAL_ERR_UNREPRESENTABLE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("YAML that Ruby cannot load"),
					 errdetail("At %s.", err->detail)));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid YAML"),
					 errdetail("At %s.", err->detail)));
	}
}

/*
 * marshal_from_yaml with the server's hooks; a cancel or timeout caught
 * inside frees what libyaml holds before it goes on.
 */
MarshalStatus
rbmarshal_read_yaml(const uint8_t *text, size_t len, const YamlOptions *opts,
					uint8_t **out, size_t *outlen, MarshalError *err)
{
	MarshalStatus st = MARSHAL_OK;

	PG_TRY();
	{
		st = marshal_from_yaml(text, len, opts, rbmarshal_hooks(), out, outlen, err);
	}
	PG_CATCH();
	{
		marshal_yaml_abort();
		PG_RE_THROW();
	}
	PG_END_TRY();
	return st;
}

static Datum
from_yaml(text *t, YamlOptions *opts)
{
	char	   *s = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);
	char	   *utf8 = pg_server_to_any(s, len, PG_UTF8);
	uint8_t    *out;
	size_t		outlen;
	MarshalError err;
	bytea	   *v;

	if (utf8 != s)
		len = strlen(utf8);
	opts->max_depth = (uint32_t) rbmarshal_max_depth;
	if (rbmarshal_read_yaml((const uint8_t *) utf8, (size_t) len, opts,
							&out, &outlen, &err) != MARSHAL_OK)
		report(&err);
	/* the reader counts containers; the stream's levels also count leaves and wrappers */
	v = rbmarshal_written(out, outlen);
	pfree(out);
	PG_RETURN_BYTEA_P(v);
}

Datum
rbmarshal_from_yaml(PG_FUNCTION_ARGS)
{
	YamlOptions opts;

	marshal_yaml_options_init(&opts);
	return from_yaml(PG_GETARG_TEXT_PP(0), &opts);
}

/* rbmarshal_from_yaml(yaml, permitted_classes text[], aliases boolean) */
Datum
rbmarshal_from_yaml_safe(PG_FUNCTION_ARGS)
{
	YamlOptions opts;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	const char **names;

	marshal_yaml_options_init(&opts);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &n);
	names = palloc(sizeof(char *) * (n + 1));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("permitted_classes must not contain NULL")));
		names[opts.npermitted++] = TextDatumGetCString(elems[i]);
	}
	opts.safe = true;
	opts.permitted = names;
	opts.aliases = PG_GETARG_BOOL(2);
	return from_yaml(PG_GETARG_TEXT_PP(0), &opts);
}
