/*
 * inspect_check.c
 *		Compare marshal_inspect() with Ruby 4.0's inspect (inspect.tsv).
 *
 * Reads name<TAB>hex<TAB>inspect_text rows (the text escaped as the README
 * says: \\ \t \n \r), indexes each stream, inspects it and prints every row
 * whose text differs, then "inspect: N matched, M differ".  PostgreSQL-free:
 *
 *	cc -std=c11 -O1 -g -Isrc -o /tmp/inspect_check test/literal/inspect_check.c \
 *		$(sed -n 's/^CODEC_SRC = //p' Makefile) -lm -lz
 *
 * Usage: inspect_check [-q] [-p PREFIX]... [FILE]
 *	-q			print the summary only
 *	-p PREFIX	check only rows whose name starts with PREFIX (repeatable)
 *	FILE		default test/literal/inspect.tsv
 * The exit status is 1 when a row differs.
 */
#include "marshal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PREFIXES 32

/* The whole file, NUL-terminated; exits on failure. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf = NULL;
	size_t		cap = 0;
	size_t		n = 0;

	if (f == NULL)
	{
		perror(path);
		exit(2);
	}
	for (;;)
	{
		size_t		got;

		if (n + 65536 + 1 > cap)
		{
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (buf == NULL)
			{
				fprintf(stderr, "out of memory\n");
				exit(2);
			}
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		if (got == 0)
			break;
		n += got;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Undo the column escaping in place (\\ \t \n \r); returns the new length. */
static size_t
unescape(char *s, size_t n)
{
	size_t		w = 0;

	for (size_t r = 0; r < n; r++)
	{
		if (s[r] == '\\' && r + 1 < n)
		{
			char		c = s[r + 1];

			if (c == '\\' || c == 't' || c == 'n' || c == 'r')
			{
				s[w++] = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : '\\';
				r++;
				continue;
			}
		}
		s[w++] = s[r];
	}
	return w;
}

static bool
wanted(const char *name, char **prefixes, int nprefixes)
{
	if (nprefixes == 0)
		return true;
	for (int i = 0; i < nprefixes; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

int
main(int argc, char **argv)
{
	const char *path = "test/literal/inspect.tsv";
	char	   *prefixes[MAX_PREFIXES];
	int			nprefixes = 0;
	bool		quiet = false;
	char	   *text;
	size_t		len;
	char	   *line;
	long		matched = 0;
	long		differ = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-q") == 0)
			quiet = true;
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && nprefixes < MAX_PREFIXES)
			prefixes[nprefixes++] = argv[++i];
		else if (argv[i][0] == '-')
		{
			fprintf(stderr, "usage: %s [-q] [-p PREFIX]... [FILE]\n", argv[0]);
			return 2;
		}
		else
			path = argv[i];
	}
	text = slurp(path, &len);
	line = text;
	while (line < text + len)
	{
		char	   *eol = memchr(line, '\n', (size_t) (text + len - line));
		char	   *name = line;
		char	   *hex;
		char	   *want;
		size_t		wantlen;
		uint8_t    *bytes;
		size_t		nbytes;
		size_t		errpos;
		MarshalDoc	doc;
		MarshalError err;
		char	   *got = NULL;
		size_t		gotlen = 0;
		char		errbuf[256];

		if (eol == NULL)
			eol = text + len;
		*eol = '\0';
		line = eol + 1;
		if (name[0] == '\0')
			continue;
		hex = strchr(name, '\t');
		if (hex == NULL || (want = strchr(hex + 1, '\t')) == NULL)
		{
			fprintf(stderr, "malformed row: %.60s\n", name);
			return 2;
		}
		*hex++ = '\0';
		*want++ = '\0';
		if (!wanted(name, prefixes, nprefixes))
			continue;
		wantlen = unescape(want, strlen(want));

		bytes = malloc(marshal_hex_decoded_max(strlen(hex)) + 1);
		if (bytes == NULL ||
			marshal_hex_decode(hex, strlen(hex), bytes, &nbytes, &errpos) != MARSHAL_TEXT_OK)
		{
			fprintf(stderr, "%s: bad hex\n", name);
			return 2;
		}
		if (marshal_doc_open(&doc, bytes, nbytes, NULL, 0, &err) != MARSHAL_OK)
		{
			snprintf(errbuf, sizeof(errbuf), "<index error at %zu: %s>", err.offset, err.detail);
			got = errbuf;
			gotlen = strlen(errbuf);
		}
		else
		{
			if (marshal_inspect(&doc, NULL, 0, 0, &got, &gotlen, &err) != MARSHAL_OK)
			{
				snprintf(errbuf, sizeof(errbuf), "<inspect error %d at %zu: %s>",
						 (int) err.status, err.offset, err.detail);
				got = errbuf;
				gotlen = strlen(errbuf);
			}
			marshal_index_free(&doc.index, NULL);
		}
		if (gotlen == wantlen && memcmp(got, want, wantlen) == 0)
			matched++;
		else
		{
			differ++;
			if (!quiet)
				printf("%s\n  ruby: %.*s\n  ours: %.*s\n", name, (int) wantlen, want,
					   (int) gotlen, got);
		}
		if (got != errbuf)
			free(got);
		free(bytes);
	}
	printf("inspect: %ld matched, %ld differ\n", matched, differ);
	free(text);
	return differ ? 1 : 0;
}
