/*
 * yaml_check.c
 *		The YAML reader against MRI, without PostgreSQL.
 *
 * Usage: yaml_check FILE.tsv   each line "name<TAB>yaml<TAB>expected" where
 *                              yaml is the text with \\, \t, \n escaped and
 *                              expected is MRI's Marshal bytes in hex, or
 *                              "!" + the SQLSTATE class of an error
 *                              (syntax, limit, depth, unrepresentable, and
 *                              refused:Class or refused:alias, naming what
 *                              Psych's DisallowedClass or BadAlias names);
 *                              a fourth column "safe:<classes>[;noalias]" reads
 *                              in safe mode.  Last line "yaml-unit: N passed,
 *                              N failed".
 *        yaml_check -          read one text on stdin, print the hex or error.
 *
 * Each case is read twice: by marshal_from_yaml (the fast path where it
 * answers, yaml_fast.c) and by the general path alone (libyaml), and both
 * must give MRI's answer; the summary counts the cases the fast path took.
 */
#include "yaml_internal.h"
#include "rbmarshal_zones.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
status_name(MarshalStatus s)
{
	switch (s)
	{
		case MARSHAL_ERR_SYNTAX:
			return "syntax";
		case MARSHAL_ERR_LIMIT:
			return "limit";
		case MARSHAL_ERR_DEPTH:
			return "depth";
		case MARSHAL_ERR_UNSUPPORTED:
			return "refused";
		case MARSHAL_ERR_UNREPRESENTABLE:
			return "unrepresentable";
		case MARSHAL_ERR_NOMEM:
			return "nomem";
		default:
			return "other";
	}
}

/*
 * MarshalHooks.zone_known as TZInfo's zoneinfo source answers it: a key of
 * ActiveSupport::TimeZone::MAPPING or a TZif file under /usr/share/zoneinfo
 * (the database PostgreSQL's hook reads).
 */
static bool
zone_known(const char *zone)
{
	char		path[512];
	char		magic[4] = {0};
	FILE	   *f;

	for (size_t i = 0; i < sizeof(rails_zones) / sizeof(rails_zones[0]); i++)
		if (strcmp(zone, rails_zones[i].rails) == 0)
			return true;
	if (zone[0] == '\0' || zone[0] == '/' || strstr(zone, "..") ||
		snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", zone) >= (int) sizeof(path) ||
		(f = fopen(path, "rb")) == NULL)
		return false;
	if (fread(magic, 1, 4, f) != 4)
		magic[0] = '\0';
	fclose(f);
	return memcmp(magic, "TZif", 4) == 0;
}

static const MarshalHooks hooks = {.zone_known = zone_known};

/* hex of the bytes, or "!" and the error class; caller frees */
static char *
convert(const char *text, size_t len, const YamlOptions *opts, bool general,
		MarshalError *err)
{
	uint8_t    *out = NULL;
	size_t		outlen = 0;
	MarshalStatus st = general ?
		yr_read_libyaml((const uint8_t *) text, len, opts, &hooks, &out, &outlen, err) :
		marshal_from_yaml((const uint8_t *) text, len, opts, &hooks, &out, &outlen, err);
	char	   *res;

	if (st != MARSHAL_OK)
	{
		const char *cls = strstr(err->detail, "unspecified class: ");

		/* a refusal names what Psych names: the class, or an alias */
		res = malloc(256);
		if (st == MARSHAL_ERR_UNSUPPORTED)
			snprintf(res, 256, "!refused:%s", cls ? cls + 19 : "alias");
		else
			snprintf(res, 256, "!%s", status_name(st));
		return res;
	}
	res = malloc(outlen * 2 + 1);
	for (size_t i = 0; i < outlen; i++)
		sprintf(res + 2 * i, "%02x", out[i]);
	res[outlen * 2] = '\0';
	free(out);
	return res;
}

static size_t
unescape(char *s)
{
	char	   *r = s,
			   *w = s;

	while (*r)
	{
		if (*r == '\\' && r[1])
		{
			r++;
			*w++ = *r == 'n' ? '\n' : *r == 't' ? '\t' : *r == 'r' ? '\r' : *r;
			r++;
		}
		else
			*w++ = *r++;
	}
	*w = '\0';
	return (size_t) (w - s);
}

/* "safe:A,B[;noalias]" */
static void
parse_mode(char *mode, YamlOptions *opts, const char **names)
{
	char	   *p;

	if (mode == NULL || strncmp(mode, "safe:", 5) != 0)
		return;
	opts->safe = true;
	p = strstr(mode, ";noalias");
	if (p)
	{
		opts->aliases = false;
		*p = '\0';
	}
	opts->permitted = names;
	for (p = strtok(mode + 5, ","); p; p = strtok(NULL, ","))
		names[opts->npermitted++] = p;
}

int
main(int argc, char **argv)
{
	static char line[1 << 22];
	FILE	   *f;
	int			passed = 0;
	int			failed = 0;
	int			fast = 0;
	MarshalError err;
	YamlOptions opts;

	marshal_yaml_options_init(&opts);
	if (argc == 2 && strcmp(argv[1], "-") == 0)
	{
		size_t		n = fread(line, 1, sizeof(line) - 1, stdin);
		char	   *res = convert(line, n, &opts, false, &err);

		printf("%s%s%s\n", res, res[0] == '!' ? " " : "", res[0] == '!' ? err.detail : "");
		free(res);
		return 0;
	}
	if (argc != 2 || (f = fopen(argv[1], "r")) == NULL)
	{
		fprintf(stderr, "usage: yaml_check FILE.tsv | -\n");
		return 2;
	}
	while (fgets(line, sizeof(line), f))
	{
		char	   *col[5] = {NULL};
		const char *names[64];
		char	   *res;
		char	   *p = line;
		size_t		len;
		int			ncol = 0;

		line[strcspn(line, "\n")] = '\0';
		while (ncol < 5)
		{
			col[ncol++] = p;
			p = strchr(p, '\t');
			if (p == NULL)
				break;
			*p++ = '\0';
		}
		if (ncol < 4 || col[0][0] == '#')
			continue;
		marshal_yaml_options_init(&opts);
		parse_mode(col[3], &opts, names);
		len = unescape(col[1]);
		for (int general = 0; general <= 1; general++)
		{
			res = convert(col[1], len, &opts, general, &err);
			/* an expected error matches on its class: "!refused" */
			if (strcmp(res, col[2]) == 0)
				passed++;
			else
			{
				failed++;
				printf("not ok - %s%s: got %s%s%s, expected %s\n", col[0],
					   general ? " (libyaml)" : "", res, res[0] == '!' ? " " : "",
					   res[0] == '!' ? err.detail : "", col[2]);
			}
			free(res);
		}
		{
			uint8_t    *out = NULL;
			size_t		outlen;
			MarshalStatus st;

			if (yr_read_fast((const uint8_t *) col[1], len, &opts, NULL, &out,
							 &outlen, &err, &st))
			{
				fast++;
				free(out);
			}
		}
	}
	fclose(f);
	printf("%d of %d cases read by the fast path\n", fast, (passed + failed) / 2);
	printf("yaml-unit: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
