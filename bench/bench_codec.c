/*
 * bench_codec.c
 *		Library-level timing of the Marshal codec, no PostgreSQL involved.
 *
 * Usage: bench_codec [-w WARMUP] [-p PASSES] [-t TARGET_MS] LABEL FILE...
 *
 * For every FILE (a raw Marshal stream) it times three operations:
 *
 *	 validate	marshal_validate(), default hooks (malloc/free)
 *	 index		marshal_index() + marshal_index_free()
 *	 skipscan	the "floor": skip_value() below, a minimal allocation-free
 *				recursive descent that knows every type code just well enough
 *				to step over it, with bounds checks and nothing else (no
 *				object or symbol table, no link, depth, encoding or semantic
 *				checks).  It is what any reader of this format must at least
 *				do, so validate/skipscan is the price of the checks and tables.
 *
 * BENCH_JSON adds a fourth, tojson (marshal_to_json_text); BENCH_OPS (a
 * list such as "tojson") runs only the operations it names.
 *
 * Each operation is calibrated so that one pass (the operation repeated
 * `reps` times) takes at least TARGET_MS (20 ms), then runs WARMUP (3)
 * untimed passes (raising `reps` after them if even the fastest fell short
 * of the target) and PASSES (25) timed passes.  Per pass, ns/op =
 * pass time / reps; the best and median over the passes are reported.
 *
 * Output: one tab-separated line per (file, op):
 *	 R <label> <workload> <op> <bytes> <reps> <best_ns> <median_ns>
 * and an "I" line per file with the object/symbol counts of the index.
 * Every number is measured here; nothing is derived from other runs.
 */
#define _POSIX_C_SOURCE 200809L

#include "marshal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------- */
/* The floor: skip one value, bounds checks only.                          */
/* ---------------------------------------------------------------------- */

/* MRI's packed long (r_long); NULL when it runs past the end. */
static inline const uint8_t *
skip_long(const uint8_t *p, const uint8_t *end, long *out)
{
	int			c;
	int			n;
	long		x;

	if (p >= end)
		return NULL;
	c = (int8_t) *p++;
	if (c == 0)
	{
		*out = 0;
		return p;
	}
	if (c > 4)
	{
		*out = c - 5;
		return p;
	}
	if (c < -4)
	{
		*out = c + 5;
		return p;
	}
	n = c > 0 ? c : -c;
	if (end - p < n)
		return NULL;
	x = c > 0 ? 0 : -1;
	for (int i = 0; i < n; i++)
	{
		x &= ~((long) 0xff << (8 * i));
		x |= (long) p[i] << (8 * i);
	}
	*out = x;
	return p + n;
}

/* A length-prefixed byte string. */
static inline const uint8_t *
skip_bytes(const uint8_t *p, const uint8_t *end)
{
	long		n;

	p = skip_long(p, end, &n);
	if (p == NULL || n < 0 || n > end - p)
		return NULL;
	return p + n;
}

static const uint8_t *skip_value(const uint8_t *p, const uint8_t *end);

/* count values, each skipped in turn */
static inline const uint8_t *
skip_values(const uint8_t *p, const uint8_t *end, long count)
{
	while (count-- > 0 && p != NULL)
		p = skip_value(p, end);
	return p;
}

/* a count, then that many values (pairs pass 2 as per) */
static inline const uint8_t *
skip_counted(const uint8_t *p, const uint8_t *end, long per, long extra)
{
	long		n;

	p = skip_long(p, end, &n);
	if (p == NULL)
		return NULL;
	return skip_values(p, end, n * per + extra);
}

/*
 * One value.  Symbols (':' and ';') are values like any other here, so a
 * class name, an ivar name or a struct member is skipped by skip_value too.
 * Meant for trusted input only: there is no depth limit.
 */
static const uint8_t *
skip_value(const uint8_t *p, const uint8_t *end)
{
	if (p >= end)
		return NULL;
	switch (*p++)
	{
		case '0':
		case 'T':
		case 'F':
			return p;
		case 'i':
		case ';':
		case '@':
			{
				long		v;

				return skip_long(p, end, &v);
			}
		case '"':
		case ':':
		case 'f':
		case 'c':
		case 'm':
		case 'M':
			return skip_bytes(p, end);
		case '/':				/* source, options byte */
			p = skip_bytes(p, end);
			return p == NULL || p >= end ? NULL : p + 1;
		case 'l':				/* sign, count of 16-bit words */
			{
				long		n;

				if (p >= end)
					return NULL;
				p = skip_long(p + 1, end, &n);
				if (p == NULL || n < 0 || 2 * n > end - p)
					return NULL;
				return p + 2 * n;
			}
		case '[':
			return skip_counted(p, end, 1, 0);
		case '{':
			return skip_counted(p, end, 2, 0);
		case '}':				/* pairs, then the default */
			return skip_counted(p, end, 2, 1);
		case 'I':				/* value, then ivar pairs */
			p = skip_value(p, end);
			return p == NULL ? NULL : skip_counted(p, end, 2, 0);
		case 'o':				/* class symbol, ivar pairs */
		case 'S':				/* class symbol, member pairs */
			p = skip_value(p, end);
			return p == NULL ? NULL : skip_counted(p, end, 2, 0);
		case 'u':				/* class symbol, _dump bytes */
			p = skip_value(p, end);
			return p == NULL ? NULL : skip_bytes(p, end);
		case 'U':				/* class symbol, marshal_dump value */
		case 'd':				/* class symbol, _dump_data value */
		case 'e':				/* module symbol, value */
		case 'C':				/* class symbol, value */
			p = skip_value(p, end);
			return p == NULL ? NULL : skip_value(p, end);
		default:
			return NULL;
	}
}

/* The whole stream: header, one value, nothing after it. */
static int
skip_stream(const uint8_t *buf, size_t len)
{
	const uint8_t *end = buf + len;
	const uint8_t *p;

	if (len < 2 || buf[0] != 4 || buf[1] > 8)
		return 0;
	p = skip_value(buf + 2, end);
	return p == end;
}

/* ---------------------------------------------------------------------- */
/* Harness                                                                 */
/* ---------------------------------------------------------------------- */

typedef enum Op
{
	OP_VALIDATE,
	OP_INDEX,
	OP_SKIPSCAN,
	OP_JSON						/* Marshal -> JSON text (validate, index, walk) */
} Op;

static const char *const op_names[] = {"validate", "index", "skipscan", "tojson"};

/* results feed this so the compiler cannot drop any call */
static volatile unsigned long sink;

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* One pass: the operation `reps` times; returns the elapsed nanoseconds. */
static uint64_t
run_pass(Op op, const uint8_t *buf, size_t len, long reps)
{
	unsigned long acc = 0;
	uint64_t	t0 = now_ns();

	switch (op)
	{
		case OP_VALIDATE:
			for (long i = 0; i < reps; i++)
			{
				MarshalError err;

				acc += marshal_validate(buf, len, NULL, 0, &err);
			}
			break;
		case OP_INDEX:
			for (long i = 0; i < reps; i++)
			{
				MarshalError err;
				MarshalIndex idx;

				acc += marshal_index(buf, len, NULL, 0, &idx, &err);
				acc += idx.nobjects;
				marshal_index_free(&idx, NULL);
			}
			break;
		case OP_SKIPSCAN:
			for (long i = 0; i < reps; i++)
				acc += skip_stream(buf, len);
			break;
		case OP_JSON:
			for (long i = 0; i < reps; i++)
			{
				MarshalError err;
				MarshalJsonOptions opts;
				char	   *out = NULL;
				size_t		outlen = 0;

				memset(&opts, 0, sizeof(opts));
				opts.time_precision = 3;
				acc += marshal_to_json_text(buf, len, &opts, NULL, &out, &outlen, &err);
				acc += outlen;
				free(out);
			}
			break;
	}
	sink += acc;
	return now_ns() - t0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static void
bench_op(const char *label, const char *workload, Op op, const uint8_t *buf,
		 size_t len, int warmup, int passes, double target_ms)
{
	uint64_t	target = (uint64_t) (target_ms * 1e6);
	uint64_t   *ns = malloc(sizeof(uint64_t) * passes);
	double	   *per = malloc(sizeof(double) * passes);
	long		reps = 1;
	uint64_t	t;

	/* calibrate: grow reps until one pass takes at least the target */
	for (;;)
	{
		t = run_pass(op, buf, len, reps);
		if (t >= target)
			break;
		if (t < target / 64)
			reps *= 16;
		else
			reps = (long) ((double) reps * 1.15 * (double) target / (double) t) + 1;
	}
	/* warm up; if even the fastest warm-up pass fell short, scale up */
	if (warmup > 0)
	{
		uint64_t	fastest = UINT64_MAX;

		for (int i = 0; i < warmup; i++)
		{
			t = run_pass(op, buf, len, reps);
			if (t < fastest)
				fastest = t;
		}
		if (fastest < target)
			reps = (long) ((double) reps * 1.1 * (double) target / (double) fastest) + 1;
	}
	for (int i = 0; i < passes; i++)
		ns[i] = run_pass(op, buf, len, reps);
	qsort(ns, passes, sizeof(uint64_t), cmp_u64);
	for (int i = 0; i < passes; i++)
		per[i] = (double) ns[i] / (double) reps;
	printf("R\t%s\t%s\t%s\t%zu\t%ld\t%.1f\t%.1f\n", label, workload,
		   op_names[op], len, reps, per[0],
		   passes % 2 ? per[passes / 2] : (per[passes / 2 - 1] + per[passes / 2]) / 2);
	fflush(stdout);
	free(ns);
	free(per);
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *buf;
	long		n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
		fseek(f, 0, SEEK_SET) != 0)
	{
		perror(path);
		exit(2);
	}
	buf = malloc(n ? n : 1);
	if (fread(buf, 1, n, f) != (size_t) n)
	{
		perror(path);
		exit(2);
	}
	fclose(f);
	*len = (size_t) n;
	return buf;
}

/* "dir/name.bin" -> "name" */
static void
workload_name(const char *path, char *out, size_t outsz)
{
	const char *base = strrchr(path, '/');
	size_t		n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, base, n);
	out[n] = '\0';
}

int
main(int argc, char **argv)
{
	int			warmup = 3;
	int			passes = 25;
	double		target_ms = 20.0;
	int			argi = 1;
	const char *label;

	while (argi < argc && argv[argi][0] == '-' && argi + 1 < argc)
	{
		if (strcmp(argv[argi], "-w") == 0)
			warmup = atoi(argv[argi + 1]);
		else if (strcmp(argv[argi], "-p") == 0)
			passes = atoi(argv[argi + 1]);
		else if (strcmp(argv[argi], "-t") == 0)
			target_ms = atof(argv[argi + 1]);
		else
			break;
		argi += 2;
	}
	if (argc - argi < 2 || passes < 1 || warmup < 0 || target_ms <= 0)
	{
		fprintf(stderr, "usage: %s [-w WARMUP] [-p PASSES] [-t TARGET_MS] LABEL FILE...\n",
				argv[0]);
		return 2;
	}
	label = argv[argi++];

	for (; argi < argc; argi++)
	{
		size_t		len;
		uint8_t    *buf = slurp(argv[argi], &len);
		char		name[256];
		MarshalError err;
		MarshalIndex idx;

		workload_name(argv[argi], name, sizeof(name));

		/* every workload must be valid, and the floor must agree */
		if (marshal_index(buf, len, NULL, 0, &idx, &err) != MARSHAL_OK)
		{
			fprintf(stderr, "%s: not valid at offset %zu: %s\n", argv[argi],
					err.offset, err.detail);
			return 1;
		}
		if (!skip_stream(buf, len))
		{
			fprintf(stderr, "%s: the skip-scan does not consume the stream\n",
					argv[argi]);
			return 1;
		}
		printf("I\t%s\t%s\t%zu\t%u\t%u\n", label, name, len, idx.nobjects,
			   idx.nsymbols);
		marshal_index_free(&idx, NULL);

		/* BENCH_OPS (say "tojson"): only the ops it names */
		for (Op op = OP_VALIDATE; op <= OP_JSON; op++)
		{
			const char *only = getenv("BENCH_OPS");

			if (only ? strstr(only, op_names[op]) == NULL :
				op == OP_JSON && !getenv("BENCH_JSON"))
				continue;
			bench_op(label, name, op, buf, len, warmup, passes, target_ms);
		}
		free(buf);
	}
	return 0;
}
