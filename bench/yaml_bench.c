/*
 * yaml_bench.c
 *		Time the YAML reader (marshal_from_yaml) on one file: the median of
 *		N runs, in milliseconds, and the Marshal bytes written.
 *
 * Usage: yaml_bench FILE [RUNS]   (bench/yaml.sh builds and runs it)
 */
#include "yaml_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	FILE	   *f;
	long		n;
	char	   *buf;
	int			runs = argc > 2 ? atoi(argv[2]) : 9;
	double	   *ms;
	size_t		outlen = 0;
	YamlOptions opts;

	if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL || runs < 1)
	{
		fprintf(stderr, "usage: yaml_bench FILE [RUNS]\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (fread(buf, 1, n, f) != (size_t) n)
		return 2;
	fclose(f);
	ms = malloc(sizeof(double) * runs);
	marshal_yaml_options_init(&opts);
	for (int i = 0; i < runs; i++)
	{
		struct timespec a,
					b;
		uint8_t    *out;
		MarshalError err;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (marshal_from_yaml((const uint8_t *) buf, n, &opts, NULL, &out, &outlen, &err) != MARSHAL_OK)
		{
			fprintf(stderr, "yaml_bench: %s\n", err.detail);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		free(out);
		ms[i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
	}
	qsort(ms, runs, sizeof(double), cmp);
	printf("%.1f ms (median of %d), %zu bytes of Marshal from %ld bytes of YAML\n",
		   ms[runs / 2], runs, outlen, n);
	return 0;
}
