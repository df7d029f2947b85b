/*
 * fuzz_yaml.c
 *		libFuzzer target of the YAML reader (src/yaml_*.c).
 *
 * The input is YAML text; its first byte picks the mode (unsafe, or safe
 * with a few permitted classes, aliases on or off) and a small depth limit
 * now and then.  Whatever the text, the reader must return cleanly, stay
 * within its limits, and whatever it writes must be one valid Marshal
 * stream (marshal_validate).  Where the fast path (yaml_fast.c) answers,
 * the general path (libyaml) must write the same bytes.
 */
#include "marshal.h"
#include "yaml_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const permitted[] = {"Symbol", "Date", "Time", "Set"};
	YamlOptions opts;
	MarshalError err;
	uint8_t    *out = NULL;
	size_t		outlen = 0;
	uint8_t		mode = size > 0 ? data[0] : 0;

	marshal_yaml_options_init(&opts);
	if (mode & 1)
	{
		opts.safe = true;
		opts.permitted = permitted;
		opts.npermitted = (mode >> 1) & 3;
		opts.aliases = (mode & 8) != 0;
	}
	if (mode & 16)
		opts.max_depth = 8;
	if (mode & 32)
		opts.max_expanded = 64;
	{
		uint8_t    *fast = NULL,
				   *general = NULL;
		size_t		flen = 0,
					glen = 0;
		MarshalStatus fst,
					gst;

		if (yr_read_fast(data, size, &opts, NULL, &fast, &flen, &err, &fst))
		{
			gst = yr_read_libyaml(data, size, &opts, NULL, &general, &glen, &err);
			if (gst != fst || flen != glen || memcmp(fast, general, flen) != 0)
			{
				fprintf(stderr, "fuzz_yaml: the fast path wrote %zu bytes (status %d), libyaml %zu (status %d: %s)\n",
						flen, fst, glen, gst, gst == MARSHAL_OK ? "" : err.detail);
				abort();
			}
			free(fast);
			free(general);
		}
	}
	if (marshal_from_yaml(data, size, &opts, NULL, &out, &outlen, &err) == MARSHAL_OK)
	{
		MarshalError verr;

		if (marshal_validate(out, outlen, NULL, MARSHAL_DEFAULT_MAX_DEPTH + 16, &verr) != MARSHAL_OK)
		{
			fprintf(stderr, "fuzz_yaml: wrote an invalid stream: %s at %zu\n",
					verr.detail, verr.offset);
			abort();
		}
		free(out);
	}
	else if (err.detail[0] == '\0')
	{
		fprintf(stderr, "fuzz_yaml: an error without a message (status %d)\n", err.status);
		abort();
	}
	return 0;
}
