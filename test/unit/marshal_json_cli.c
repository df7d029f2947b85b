/*
 * marshal_json_cli.c
 *		Read "name<TAB>hex" lines, print "name<TAB>json" (or "name<TAB>!error").
 *		Used by the differential tests to compare the codec's JSON view with
 *		Ruby's, without a database.
 */
#include "marshal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	static char line[1 << 22];

	while (fgets(line, sizeof(line), stdin))
	{
		char	   *tab = strchr(line, '\t');
		char	   *hex;
		size_t		n;
		size_t		len;
		size_t		errpos;
		uint8_t    *bytes;
		char	   *json;
		size_t		jlen;
		MarshalError err;
		MarshalJsonOptions opts = {3, MBIN_BASE64, 0, 0};

		if (!tab)
			continue;
		*tab = '\0';
		hex = tab + 1;
		n = strcspn(hex, "\r\n\t");
		hex[n] = '\0';
		bytes = malloc(n / 2 + 1);
		if (marshal_hex_decode(hex, n, bytes, &len, &errpos) != MARSHAL_TEXT_OK)
		{
			printf("%s\t!bad hex\n", line);
			free(bytes);
			continue;
		}
		if (marshal_to_json_text(bytes, len, &opts, NULL, &json, &jlen, &err) == MARSHAL_OK)
		{
			printf("%s\t%s\n", line, json);
			free(json);
		}
		else
			printf("%s\t!%d at %zu: %s\n", line, err.status, err.offset, err.detail);
		free(bytes);
	}
	return 0;
}
