/*
 * rbmarshal.c
 *		Module set-up, the codec's hooks into PostgreSQL, and error reporting.
 */
#include "rbmarshal.h"

#include <math.h>

#include "common/shortest_dec.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"

PG_MODULE_MAGIC;

/*
 * Maximum nesting of a Marshal value, shown as rbmarshal.max_depth.  It is
 * fixed: the type's input and the IMMUTABLE functions give one answer
 * whatever anyone sets (an expression index agrees with a scan), and what
 * one session stored any other, a restore included, reads back.
 */
int			rbmarshal_max_depth = MARSHAL_DEFAULT_MAX_DEPTH;

void		_PG_init(void);

/*
 * The codec's shortest Float digits by PostgreSQL's Ryu (float8out's):
 * its text ("0.14285714285714285", "1e+22") read back into digits and the
 * point's place.  Both are the shortest digits that read back as d,
 * closest to it; the codec's own snprintf/strtod trials cost several
 * times more (floats are most of the time of an Array of them).  0 (the
 * codec's trials) where Ryu's text is not its shortest digits.
 */
static int
ryu_digits(double d, char *digits, int *decpt)
{
	char		buf[DOUBLE_SHORTEST_DECIMAL_LEN];
	int			len;
	int			nd = 0;
	int			point = 0;
	bool		after = false;
	int			i;

	/*
	 * Integers from 2^53 on (about 9e15) come out longer than their
	 * shortest digits in some cases (1.348871511675216e18 as 17 digits):
	 * left to the codec, all of them.
	 */
	if (fabs(d) >= 1e15)
		return 0;
	len = double_to_shortest_decimal_buf(fabs(d), buf);

	for (i = 0; i < len && buf[i] != 'e'; i++)
	{
		if (buf[i] == '.')
			after = true;
		else if (buf[i] == '0' && nd == 0)
			point -= after;		/* a leading zero after the point */
		else
		{
			digits[nd++] = buf[i];
			point += !after;
		}
	}
	if (i < len)
		point += atoi(buf + i + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	*decpt = point;
	return nd;
}

void
_PG_init(void)
{
	marshal_set_shortest_digits(ryu_digits);
	DefineCustomIntVariable("rbmarshal.max_depth",
							"Maximum nesting depth of Marshal values (fixed).",
							"Each container, wrapper and instance variable value is one level.",
							&rbmarshal_max_depth,
							MARSHAL_DEFAULT_MAX_DEPTH,
							MARSHAL_DEFAULT_MAX_DEPTH, MARSHAL_DEFAULT_MAX_DEPTH,
							PGC_INTERNAL, GUC_NOT_IN_SAMPLE | GUC_DISALLOW_IN_FILE,
							NULL, NULL, NULL);
	/*
	 * Superuser-only: rbmarshal_cache_entry is IMMUTABLE, so an ordinary
	 * user must not be able to change its answer (an index would disagree
	 * with a scan).
	 */
	DefineCustomIntVariable("rbmarshal.max_inflated_size",
							"Largest size a compressed cache entry may inflate to.",
							"Compressed Rails cache entries bigger than this once inflated are refused.",
							&rbmarshal_max_inflated_kb,
							256 * 1024,
							1, 1024 * 1024,
							PGC_SUSET, GUC_UNIT_KB,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("rbmarshal");
}

/*
 * The codec allocates in the current memory context; its tables can exceed
 * MaxAllocSize for a large value, hence the huge variants.
 */
static void *
pg_alloc(void *ctx, size_t size)
{
	return MemoryContextAllocHuge(CurrentMemoryContext, size);
}

static void *
pg_realloc(void *ctx, void *ptr, size_t size)
{
	return repalloc_huge(ptr, size);
}

static void
pg_free(void *ctx, void *ptr)
{
	pfree(ptr);
}

static void
pg_check_stack(void *ctx)
{
	check_stack_depth();
}

static void
pg_check_interrupts(void *ctx)
{
	CHECK_FOR_INTERRUPTS();
}

const MarshalHooks *
rbmarshal_hooks(void)
{
	static const MarshalHooks hooks = {
		pg_alloc, pg_realloc, pg_free, pg_check_stack, pg_check_interrupts, NULL,
		rbmarshal_zone_abbrev,
		rbmarshal_zone_known
	};

	return &hooks;
}

/* The primary message for each kind of codec failure. */
static const char *
status_message(MarshalStatus status)
{
	switch (status)
	{
		case MARSHAL_ERR_LIMIT:
			return "Marshal data exceeds a limit";
		case MARSHAL_ERR_DEPTH:
			return "Marshal data nested too deeply";
		case MARSHAL_ERR_NOMEM:
			return "out of memory while reading Marshal data";
		default:
			return "invalid Marshal data";
	}
}

/* The HINT of every depth error, Marshal's and YAML's: the setting that is the limit. */
char *
rbmarshal_depth_hint(void)
{
	return psprintf("Values nest at most %d levels (\"rbmarshal.max_depth\", fixed).",
					rbmarshal_max_depth);
}

/*
 * An error's one-line form for rbmarshal_error(): text, then its HINT in
 * brackets (without the final period) when it has one.
 */
char *
rbmarshal_with_hint(char *text, const char *hint)
{
	size_t		len;

	if (hint == NULL || hint[0] == '\0')
		return text;
	len = strlen(hint);
	if (hint[len - 1] == '.')
		len--;
	return psprintf("%s (hint: %.*s)", text, (int) len, hint);
}

/* One line describing a codec error, for rbmarshal_error(). */
char *
rbmarshal_error_text(const MarshalError *err)
{
	return rbmarshal_with_hint(psprintf("%s at byte offset %zu: %s",
										status_message(err->status), err->offset,
										err->detail),
							   err->status == MARSHAL_ERR_DEPTH ?
							   rbmarshal_depth_hint() : NULL);
}

/*
 * Report a codec failure as an error, soft where the caller passed an
 * ErrorSaveContext.  "target" names what was being made ("rbmarshal" for
 * validation, "jsonb", ...).
 */
void
rbmarshal_report(const MarshalError *err, Node *escontext, const char *target)
{
	int			code;
	const char *msg = status_message(err->status);
	char	   *buf = NULL;

	switch (err->status)
	{
		case MARSHAL_ERR_LIMIT:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case MARSHAL_ERR_DEPTH:
			code = ERRCODE_STATEMENT_TOO_COMPLEX;
			break;
		case MARSHAL_ERR_NOMEM:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case MARSHAL_ERR_UNREPRESENTABLE:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			msg = buf = psprintf("cannot convert Marshal value to %s", target);
			break;
		case MARSHAL_ERR_ENCODING:
			code = ERRCODE_CHARACTER_NOT_IN_REPERTOIRE;
			msg = buf = psprintf("cannot convert Marshal string to %s", target);
			break;
		default:
			code = ERRCODE_INVALID_BINARY_REPRESENTATION;
			break;
	}
	errsave(escontext,
			(errcode(code),
			 errmsg_internal("%s", msg),
			 errdetail("At byte offset %zu: %s.", err->offset, err->detail),
			 err->status == MARSHAL_ERR_DEPTH ?
			 errhint("%s", rbmarshal_depth_hint()) : 0));
	if (buf)
		pfree(buf);
}

#if PG_VERSION_NUM < 160000
/* The end of errsave on 15: throw, or keep the report in the context. */
void
rbmarshal_errsave_finish(Node *context, const char *filename, int lineno,
						 const char *funcname)
{
	ErrorSaveContext *escontext = (ErrorSaveContext *) context;

	if (escontext == NULL)
		errfinish(filename, lineno, funcname);
	escontext->error_data = CopyErrorData();
	escontext->error_occurred = true;
	FlushErrorState();
}
#endif

/* A codec call's status: anything but MARSHAL_OK is reported as an error. */
void
rbmarshal_check_status(MarshalStatus st, const MarshalError *err)
{
	if (st != MARSHAL_OK)
		rbmarshal_report(err, NULL, "rbmarshal");
}

/* Validate a stream; report a failure (see rbmarshal_report) and return false. */
bool
rbmarshal_check(const char *data, size_t len, Node *escontext)
{
	MarshalError err;

	if (marshal_validate((const uint8_t *) data, len, rbmarshal_hooks(),
						 (uint32_t) rbmarshal_max_depth, &err) == MARSHAL_OK)
		return true;
	rbmarshal_report(&err, escontext, "rbmarshal");
	return false;
}

/*
 * A value in a shared buffer is usually not in the CPU's caches, and unlike
 * jsonb's binary search, walking Marshal reads every byte up to its target:
 * ask for the first lines at once rather than wait for each in turn (on
 * 20k sessions, v -> 'k' took 1.3x less time).
 */
static void
prefetch(const MarshalDoc *doc)
{
#if defined(__GNUC__)
	for (size_t off = 0; off < doc->len && off < 4096; off += 64)
		__builtin_prefetch(doc->buf + off);
#endif
}

/*
 * A value the extension wrote (a builder's, a conversion's, a sub-value
 * re-encoded with linked objects written out in full): checked as input
 * is, so that nothing it makes is refused when read back (COPY, restore).
 */
bytea *
rbmarshal_written(const uint8_t *bytes, size_t len)
{
	rbmarshal_check((const char *) bytes, len, NULL);
	return rbmarshal_value(bytes, len);
}

/* A new rbmarshal value holding a copy of the stream bytes[0..len). */
bytea *
rbmarshal_value(const uint8_t *bytes, size_t len)
{
	bytea	   *v = palloc(VARHDRSZ + len);

	SET_VARSIZE(v, VARHDRSZ + len);
	memcpy(VARDATA(v), bytes, len);
	return v;
}

/* Index a stored value for the walkers; a damaged value is an error. */
void
rbmarshal_open(bytea *v, MarshalDoc *doc)
{
	MarshalError err;

	if (marshal_doc_open(doc, (const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
						 rbmarshal_hooks(), (uint32_t) rbmarshal_max_depth,
						 &err) != MARSHAL_OK)
		rbmarshal_report(&err, NULL, "rbmarshal");
}

/*
 * A stored value for navigation: indexed only as far as the walk needs
 * (the value was validated when it was stored; the cursor stays
 * bounds-checked whatever the bytes).
 */
void
rbmarshal_open_lazy(bytea *v, MarshalDoc *doc)
{
	marshal_doc_lazy(doc, (const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
					 rbmarshal_hooks(), (uint32_t) rbmarshal_max_depth);
	prefetch(doc);
}
