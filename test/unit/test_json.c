/*
 * test_json.c
 *		Unit tests of the JSON walk through the JSON text sink.
 */
#include "unit.h"

/* The JSON text writer: escapes and integers, on a value Ruby dumped. */
void
test_json_text(Fixture *fx, int n)
{
	static const char expected[] =
		"[\"q\\\"b\\\\s/\\n\\t\\u000d\\u0001\\u001f\x7f\xc3\xa9 ok\","
		"-42,4611686018427387904,-4611686018427387904,0,{\"k\":null}]";
	MarshalJsonOptions opts = MARSHAL_JSON_DEFAULTS;

	for (int i = 0; i < n; i++)
	{
		char	   *out;
		size_t		len;
		MarshalError err;

		if (strcmp(fx[i].name, "str_json_escapes") != 0)
			continue;
		check(marshal_to_json_text(fx[i].bytes, fx[i].len, &opts, NULL, &out, &len, &err) == MARSHAL_OK &&
			  len == strlen(expected) && memcmp(out, expected, len) == 0,
			  "escapes and integers as JSON text", fx[i].name);
		free(out);
		return;
	}
	check(0, "fixture str_json_escapes missing", "json text");
}
