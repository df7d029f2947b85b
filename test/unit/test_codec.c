/*
 * test_codec.c
 *		Unit tests of the PostgreSQL-free Marshal codec: the harness and
 *		main; each module's tests are in test_<module>.c.
 *
 * Usage: test_codec FIXTURE_DIR
 * Reads the fixtures written by test/fixtures/generate.rb (MRI's own bytes,
 * object-table and symbol-table sizes), checks the reader agrees with MRI
 * on every one, and that every malformed input is refused cleanly.
 */
#include "unit.h"

static int	passed;
static int	failed;

void
check(int ok, const char *what, const char *name)
{
	if (ok)
		passed++;
	else
	{
		failed++;
		printf("not ok - %s: %s\n", name, what);
	}
}

char *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		n;

	if (!f)
	{
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (fread(buf, 1, n, f) != (size_t) n)
	{
		perror(path);
		exit(2);
	}
	buf[n] = '\0';
	fclose(f);
	*len = n;
	return buf;
}

uint8_t *
unhex(const char *hex, size_t *len)
{
	size_t		n = strlen(hex);
	uint8_t    *out = malloc(n / 2 + 1);
	size_t		errpos;

	if (marshal_hex_decode(hex, n, out, len, &errpos) != MARSHAL_TEXT_OK)
	{
		fprintf(stderr, "bad hex in fixture at %zu\n", errpos);
		exit(2);
	}
	return out;
}

/*
 * valid.tsv: name, objects, symbols, hex.  invalid.tsv: name, hex, MRI's
 * error.  Returns the number of fixtures read into *out.
 */
static int
load_tsv(const char *path, int valid, Fixture **out, char **textp)
{
	size_t		len;
	char	   *text = read_file(path, &len);
	int			cap = 64;
	int			n = 0;
	Fixture    *fx = malloc(cap * sizeof(Fixture));
	char	   *line = strtok(text, "\n");

	for (; line; line = strtok(NULL, "\n"))
	{
		char	   *cols[4] = {0};
		int			ncol = 0;
		char	   *p = line;

		while (ncol < 4)
		{
			cols[ncol++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (n == cap)
			fx = realloc(fx, (cap *= 2) * sizeof(Fixture));
		memset(&fx[n], 0, sizeof(Fixture));
		snprintf(fx[n].name, sizeof(fx[n].name), "%s", cols[0]);
		if (valid)
		{
			if (ncol != 4)
			{
				fprintf(stderr, "%s: bad line for %s\n", path, cols[0]);
				exit(2);
			}
			fx[n].objects = atol(cols[1]);
			fx[n].symbols = atol(cols[2]);
			fx[n].bytes = unhex(cols[3], &fx[n].len);
		}
		else
		{
			fx[n].bytes = unhex(cols[1] ? cols[1] : "", &fx[n].len);
			fx[n].extra = cols[2];
		}
		n++;
	}
	*out = fx;
	*textp = text;				/* the invalid fixtures point into it */
	return n;
}

static void
free_fixtures(Fixture *fx, int n, char *text)
{
	for (int i = 0; i < n; i++)
		free(fx[i].bytes);
	free(fx);
	free(text);
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "test/fixtures";
	char		path[1024];
	Fixture    *valid;
	Fixture    *invalid;
	char	   *vtext;
	char	   *itext;
	int			nvalid;
	int			ninvalid;

	snprintf(path, sizeof(path), "%s/valid.tsv", dir);
	nvalid = load_tsv(path, 1, &valid, &vtext);
	snprintf(path, sizeof(path), "%s/invalid.tsv", dir);
	ninvalid = load_tsv(path, 0, &invalid, &itext);
	printf("# %d valid and %d invalid fixtures\n", nvalid, ninvalid);

	test_valid(valid, nvalid);
	test_prefixes(valid, nvalid);
	test_trailing(valid, nvalid);
	test_invalid(invalid, ninvalid);
	test_rules();
	test_depth();
	test_text();
	test_printable();
	test_json_text(valid, nvalid);
	test_sessions(dir);
	test_big(dir);
	test_mutations(valid, nvalid);
	test_record_casts();
	test_classes(valid, nvalid);
	test_edits(valid, nvalid);

	free_fixtures(valid, nvalid, vtext);
	free_fixtures(invalid, ninvalid, itext);
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
