/*
 * rbmarshal_yaml.c
 *		YAML text of a serialize'd column as ActiveRecord 6.1 loads it.
 *
 * YAMLColumn#load is YAML.safe_load(text, permitted_classes:, aliases:
 * true) (Psych 4); the apps these records come from permit Symbol and
 * HashWithIndifferentAccess.  The codec's YAML reader (src/yaml_reader.c,
 * the one rbmarshal_from_yaml uses) loads it in that safe mode into Marshal
 * bytes, and the jsonb view of those bytes is the attribute's value.
 * Anything Rails would refuse (other classes, times and dates, invalid
 * YAML), a cycle, or a value that would expand past a budget returns NULL,
 * and the caller keeps the YAML text: nothing is guessed.
 */
#include "rbmarshal.h"

#include "yaml_reader.h"

/*
 * Values the JSON view may expand a text to, shared references counted at
 * each use (a billion laughs stays text)
 */
#define YAML_MAX_NODES(len) (1000 + 4 * (uint64_t) (len))

/*
 * The value YAMLColumn#load gives for this text, as jsonb; NULL when the
 * text is not YAML Rails would load, or loads to more than the budget.
 */
Jsonb *
rbmarshal_yaml_to_jsonb(const char *s, size_t len)
{
	static const char *const permitted[] = {
		"Symbol", "ActiveSupport::HashWithIndifferentAccess"
	};
	YamlOptions opts;
	MarshalError err;
	MarshalDoc	doc;
	uint8_t    *bytes;
	size_t		nbytes;
	MarshalStatus st;

	marshal_yaml_options_init(&opts);
	opts.safe = true;
	opts.permitted = permitted;
	opts.npermitted = lengthof(permitted);
	opts.aliases = true;
	opts.max_depth = (uint32_t) rbmarshal_max_depth;
	opts.max_expanded = YAML_MAX_NODES(len);
	st = marshal_from_yaml((const uint8_t *) s, len, &opts, rbmarshal_hooks(),
						   &bytes, &nbytes, &err);
	if (st == MARSHAL_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while reading YAML")));
	if (st != MARSHAL_OK)
		return NULL;
	if (marshal_doc_open(&doc, bytes, nbytes, rbmarshal_hooks(),
						 (uint32_t) rbmarshal_max_depth, &err) != MARSHAL_OK)
		rbmarshal_report(&err, NULL, "jsonb");
	return JsonbValueToJsonb(rbmarshal_json_value(&doc, MARSHAL_ROOT, MARSHAL_DEFAULT_TIME_PRECISION,
											 MARSHAL_DEFAULT_BINARY));
}
