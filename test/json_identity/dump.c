/*
 * dump.c
 *		marshal_to_json_text() of every input, one line each, to compare the
 *		JSON text of two builds byte for byte (check.sh).
 *
 * Usage: dump [indexed] < HEX_LINES	(one Marshal stream in hex a line)
 * ("indexed": always by the indexed walk, marshal_to_json_text_indexed)
 * Each input is converted under three option sets (the defaults; time
 * precision 0 with invalid bytes replaced; precision 9 with them refused);
 * each result is "OK <text>" or "ERR <status> <offset> <detail>".
 */
#include "marshal_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	bool		indexed = argc > 1 && strcmp(argv[1], "indexed") == 0;
	static const MarshalJsonOptions sets[] = {
		MARSHAL_JSON_DEFAULTS,
		{0, MBIN_REPLACE, 0, 0},
		{9, MBIN_ERROR, 0, 0},
	};
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		n;

	while ((n = getline(&line, &cap, stdin)) >= 0)
	{
		uint8_t    *buf = malloc((size_t) n / 2 + 1);
		size_t		len = 0;

		for (ssize_t i = 0; i + 1 < n; i += 2)
		{
			int			hi = marshal_hex_digit(line[i]);
			int			lo = marshal_hex_digit(line[i + 1]);

			if (hi < 0 || lo < 0)
				break;
			buf[len++] = (uint8_t) (hi << 4 | lo);
		}
		for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++)
		{
			MarshalError err;
			char	   *out = NULL;
			size_t		outlen = 0;
			MarshalStatus st = indexed ?
				marshal_to_json_text_indexed(buf, len, &sets[s], NULL, &out, &outlen, &err) :
				marshal_to_json_text(buf, len, &sets[s], NULL, &out, &outlen, &err);

			if (st == MARSHAL_OK)
			{
				fputs("OK ", stdout);
				fwrite(out, 1, outlen, stdout);
				putchar('\n');
			}
			else
				printf("ERR %d %zu %s\n", (int) st, err.offset, err.detail);
			free(out);
		}
		free(buf);
	}
	free(line);
	return 0;
}
