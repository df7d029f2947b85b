/*
 * rbmarshal_yaml.c
 *		YAML text of a serialize'd column as Active Record loads it.
 *
 * Rails 7.2's YAMLColumn#load (where 6.1 differs, 7.2 is the contract):
 * nil is serialize's class's new instance; any other text is
 * YAML.safe_load(text, permitted_classes:, aliases: true) (Psych 4), or
 * YAML.unsafe_load when the column's coder says unsafe_load; the value must
 * then be an instance of the class (nil again gives its new instance).  The
 * app's own permitted classes are not in the bytes: Symbol and
 * HashWithIndifferentAccess are assumed, with the classes the column's coder
 * permits (7.1+) and the column's class itself (its values could not load
 * without it).  The codec's YAML reader (src/yaml_reader.c, the one
 * rbmarshal_from_yaml uses) loads the text into Marshal bytes, and the jsonb
 * view of those bytes is the attribute's value.  Anything Rails would refuse
 * (other classes, times and dates, invalid YAML, a value of another class),
 * a cycle, or a value that would expand past a budget returns NULL, and the
 * caller keeps the YAML text: nothing is guessed.
 */
#include "rbmarshal.h"

#include "utils/builtins.h"
#include "yaml_reader.h"

/*
 * Values the JSON view may expand a text to, shared references counted at
 * each use (a billion laughs stays text)
 */
#define YAML_MAX_NODES(len) (1000 + 4 * (uint64_t) (len))

/* Symbol, HashWithIndifferentAccess, the class and the coder's classes */
#define YAML_MAX_PERMITTED (3 + MARSHAL_YAML_PERMITTED)

/*
 * The value YAMLColumn#load gives for this column's text, as jsonb; NULL
 * when it is not YAML Rails would load, or loads to more than the budget.
 */
Jsonb *
rbmarshal_yaml_to_jsonb(const MarshalYamlColumn *col)
{
	const char *permitted[YAML_MAX_PERMITTED] = {
		"Symbol", "ActiveSupport::HashWithIndifferentAccess"
	};
	int			npermitted = 2;
	YamlOptions opts;
	MarshalError err;
	MarshalDoc	doc;
	uint8_t    *bytes;
	size_t		nbytes;
	MarshalStatus st;
	bool		ok;
	bool		is_nil;

	if (col->object_class.len > 0)
		permitted[npermitted++] = pnstrdup((const char *) col->object_class.ptr,
										   col->object_class.len);
	for (int i = 0; i < col->npermitted; i++)
		permitted[npermitted++] = pnstrdup((const char *) col->permitted[i].ptr,
										   col->permitted[i].len);
	marshal_yaml_options_init(&opts);
	opts.safe = !col->unsafe_load;
	opts.permitted = permitted;
	opts.npermitted = (size_t) npermitted;
	opts.aliases = true;
	opts.max_depth = (uint32_t) rbmarshal_max_depth;
	opts.max_expanded = YAML_MAX_NODES(col->text.len);
	/* jsonb's numeric holds 131072 digits; past this the text is kept */
	opts.max_digits = 100000;
	st = rbmarshal_read_yaml(col->text.ptr, col->text.len, &opts, &bytes, &nbytes, &err);
	if (st == MARSHAL_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while reading YAML")));
	if (st != MARSHAL_OK)
		return NULL;
	if (marshal_doc_open(&doc, bytes, nbytes, rbmarshal_hooks(),
						 (uint32_t) rbmarshal_max_depth, &err) != MARSHAL_OK ||
		marshal_yaml_column_check(&doc, col->object_class, &ok, &is_nil, &err) != MARSHAL_OK)
		rbmarshal_report(&err, NULL, "jsonb");
	if (!ok)
		return NULL;
	if (col->store)
	{
		/* IndifferentCoder: a Hash, else a new one */
		MarshalBytes hash = {(const uint8_t *) "Hash", 4};

		if (marshal_yaml_column_check(&doc, hash, &ok, &is_nil, &err) != MARSHAL_OK)
			rbmarshal_report(&err, NULL, "jsonb");
		if (!ok || is_nil)
			return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	}
	if (is_nil)
		return DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
												  CStringGetDatum(marshal_new_instance_json(col->object_class))));
	return JsonbValueToJsonb(rbmarshal_json_value(&doc, MARSHAL_ROOT, MARSHAL_DEFAULT_TIME_PRECISION,
												  MARSHAL_DEFAULT_BINARY));
}
