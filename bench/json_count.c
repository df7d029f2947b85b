/*
 * json_count.c
 *		marshal_to_json_text REPS times on each FILE, for counting instructions
 *		(bench/json_instructions.sh runs it under cachegrind): a count that a
 *		shared machine's load does not move, unlike bench/run.sh's times.
 *
 * Usage: json_count REPS FILE...
 */
#include "marshal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	unsigned long acc = 0;
	int			reps;

	if (argc < 3)
	{
		fprintf(stderr, "usage: %s REPS FILE...\n", argv[0]);
		return 2;
	}
	reps = atoi(argv[1]);
	for (int a = 2; a < argc; a++)
	{
		FILE	   *fp = fopen(argv[a], "rb");
		static uint8_t buf[8 << 20];
		size_t		len;

		if (fp == NULL)
		{
			perror(argv[a]);
			return 2;
		}
		len = fread(buf, 1, sizeof(buf), fp);
		fclose(fp);
		for (int i = 0; i < reps; i++)
		{
			MarshalError err;
			MarshalJsonOptions opts;
			char	   *out = NULL;
			size_t		outlen = 0;

			/* as bench_codec.c's tojson op */
			memset(&opts, 0, sizeof(opts));
			opts.time_precision = 3;
			acc += marshal_to_json_text(buf, len, &opts, NULL, &out, &outlen, &err);
			acc += outlen;
			free(out);
		}
	}
	printf("%lu\n", acc);
	return 0;
}
