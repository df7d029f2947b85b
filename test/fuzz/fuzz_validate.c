/*
 * fuzz_validate.c
 *		libFuzzer target: marshal_validate and marshal_index on arbitrary bytes.
 *
 * Every input is read five ways and the results must agree:
 *
 *   1. marshal_validate, default depth (1000)
 *   2. marshal_validate, a small max_depth (1..16, picked from a hash of the
 *      input): success implies 1 succeeded; any result other than a depth
 *      error must be exactly 1's (status, offset, detail); and the stack
 *      the call used must stay within what max_depth levels can need
 *   3. marshal_index, default depth: exactly 1's result; on success a sane
 *      index (every obj_pos and sym_pos < len, kinds in range, the byte at a
 *      symbol's position follows a ':'), released with marshal_index_free
 *   4. marshal_index again with the k-th of the allocations step 3 made
 *      failing: MARSHAL_ERR_NOMEM, nothing left allocated
 *   5. when 1 succeeded: the input less its last byte is refused
 *
 * Allocation goes through counting hooks: after each call nothing is left
 * allocated (after marshal_index_free for a successful index), no pointer is
 * freed twice or unknown, and the bytes requested over a call (alloc plus
 * every realloc's new size) never exceed 16 * len + 4096.  A violation
 * aborts, so libFuzzer records the input.
 *
 * FUZZ_NO_STACK_CHECK=1 in the environment turns off the stack bound of
 * step 2 (to keep fuzzing for other bugs while a known one is open).
 */
#include "marshal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Lowest stack address reached by instrumented code: libFuzzer's runtime
 * defines it and -fsanitize=fuzzer on Linux implies
 * -fsanitize-coverage=stack-depth, which updates it at each function entry.
 */
extern __thread uintptr_t __sancov_lowest_stack;

/* Stack one nesting level may use (generous: ASan frames are large) ... */
#define STACK_PER_LEVEL		4096
/* ... plus a constant for the entry points and the hooks. */
#define STACK_BASE			(64 * 1024)

#define MAX_LIVE			16

typedef struct Alloc
{
	size_t		ncalls;			/* alloc/realloc calls, failed ones too */
	size_t		nalloc;			/* successful alloc calls */
	size_t		nfree;			/* free calls */
	size_t		total;			/* bytes requested by alloc and realloc */
	size_t		limit;			/* bound on total */
	size_t		fail_at;		/* 1-based call that returns NULL; 0: none */
	bool		failed;			/* the injected failure happened */
	size_t		nlive;
	void	   *live[MAX_LIVE];
	size_t		stack_checks;
	size_t		interrupt_checks;
} Alloc;

static void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fputs("fuzz_validate: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static void
live_add(Alloc *a, void *p)
{
	if (a->nlive == MAX_LIVE)
		die("more than %d blocks allocated at once", MAX_LIVE);
	a->live[a->nlive++] = p;
}

static void
live_remove(Alloc *a, void *p, const char *who)
{
	for (size_t i = 0; i < a->nlive; i++)
		if (a->live[i] == p)
		{
			a->live[i] = a->live[--a->nlive];
			return;
		}
	die("%s of a pointer the hooks did not hand out (or freed twice)", who);
}

/* Count a request; true if it is the one to fail. */
static bool
account(Alloc *a, size_t size, const char *who)
{
	a->ncalls++;
	if (a->fail_at && a->ncalls == a->fail_at)
	{
		a->failed = true;
		return true;
	}
	if (size == 0)
		die("%s of 0 bytes", who);
	a->total += size;
	if (a->total > a->limit)
		die("%s: %zu bytes requested in total, over the bound of %zu",
			who, a->total, a->limit);
	return false;
}

static void *
h_alloc(void *ctx, size_t size)
{
	Alloc	   *a = ctx;
	void	   *p;

	if (account(a, size, "alloc"))
		return NULL;
	p = malloc(size);
	if (p == NULL)
		die("malloc(%zu) failed", size);
	a->nalloc++;
	live_add(a, p);
	return p;
}

static void *
h_realloc(void *ctx, void *ptr, size_t size)
{
	Alloc	   *a = ctx;
	void	   *p;

	if (ptr == NULL)
		die("realloc hook called with NULL (the alloc hook is for that)");
	live_remove(a, ptr, "realloc");
	if (account(a, size, "realloc"))
	{
		live_add(a, ptr);		/* still the caller's */
		return NULL;
	}
	p = realloc(ptr, size);
	if (p == NULL)
		die("realloc(%zu) failed", size);
	live_add(a, p);
	return p;
}

static void
h_free(void *ctx, void *ptr)
{
	Alloc	   *a = ctx;

	if (ptr == NULL)
		die("free hook called with NULL");
	live_remove(a, ptr, "free");
	a->nfree++;
	free(ptr);
}

static void
h_check_stack(void *ctx)
{
	((Alloc *) ctx)->stack_checks++;
}

static void
h_check_interrupts(void *ctx)
{
	((Alloc *) ctx)->interrupt_checks++;
}

static void
alloc_init(Alloc *a, size_t len, size_t fail_at)
{
	memset(a, 0, sizeof(*a));
	a->limit = 16 * len + 4096;
	a->fail_at = fail_at;
}

static void
hooks_init(MarshalHooks *h, Alloc *a)
{
	h->alloc = h_alloc;
	h->realloc = h_realloc;
	h->free = h_free;
	h->check_stack = h_check_stack;
	h->check_interrupts = h_check_interrupts;
	h->ctx = a;
}

static void
expect_nothing_live(const Alloc *a, const char *after)
{
	if (a->nalloc != a->nfree || a->nlive != 0)
		die("after %s: %zu allocated, %zu freed, %zu still live",
			after, a->nalloc, a->nfree, a->nlive);
}

static void
check_error(const MarshalError *err, MarshalStatus st, size_t len,
			const char *what)
{
	if (err->status != st)
		die("%s: returned %d but err->status is %d", what, st, err->status);
	if ((int) st < MARSHAL_OK || st > MARSHAL_ERR_NOMEM)
		die("%s: status %d out of range", what, st);
	if (memchr(err->detail, '\0', sizeof(err->detail)) == NULL)
		die("%s: detail not terminated", what);
	if (st == MARSHAL_OK)
		return;
	if (err->detail[0] == '\0')
		die("%s: error %d without detail", what, st);
	/* an offset may point at the end (truncation), never past it */
	if (err->offset > len)
		die("%s: error offset %zu past the end (%zu)", what, err->offset, len);
}

static void
same_error(const MarshalError *a, const MarshalError *b, const char *what)
{
	if (a->status != b->status || a->offset != b->offset ||
		strcmp(a->detail, b->detail) != 0)
		die("%s: result differs: %d at %zu \"%s\" vs %d at %zu \"%s\"", what,
			a->status, a->offset, a->detail, b->status, b->offset, b->detail);
}

static void
check_index(const MarshalIndex *ix, const uint8_t *buf, size_t len)
{
	if (ix->nobjects > len || ix->nsymbols > len)
		die("index: %u objects, %u symbols in %zu bytes",
			ix->nobjects, ix->nsymbols, len);
	if (ix->nobjects > 0 && (ix->obj_kind == NULL || ix->obj_pos == NULL))
		die("index: %u objects but no tables", ix->nobjects);
	if (ix->nsymbols > 0 && ix->sym_pos == NULL)
		die("index: %u symbols but no table", ix->nsymbols);
	for (uint32_t i = 0; i < ix->nobjects; i++)
	{
		if (ix->obj_kind[i] < MK_NIL || ix->obj_kind[i] > MK_MODULE)
			die("index: object %u has kind %u", i, ix->obj_kind[i]);
		if (ix->obj_pos[i] < 2 || ix->obj_pos[i] >= len)
			die("index: object %u at %u, outside 2..%zu", i, ix->obj_pos[i],
				len - 1);
	}
	for (uint32_t i = 0; i < ix->nsymbols; i++)
	{
		if (ix->sym_pos[i] < 3 || ix->sym_pos[i] >= len)
			die("index: symbol %u at %u, outside 3..%zu", i, ix->sym_pos[i],
				len - 1);
		if (buf[ix->sym_pos[i] - 1] != MT_SYMBOL)
			die("index: symbol %u at %u does not follow a ':'", i,
				ix->sym_pos[i]);
	}
}

static uint32_t
hash_input(const uint8_t *data, size_t size)
{
	uint32_t	h = 2166136261u;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h ^ (uint32_t) size;
}

static bool stack_check = true;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *e = getenv("FUZZ_NO_STACK_CHECK");

	(void) argc;
	(void) argv;
	if (e && *e && strcmp(e, "0") != 0)
		stack_check = false;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t	h = hash_input(data, size);
	uint32_t	small = 1 + h % 16;
	uintptr_t	lowest = __sancov_lowest_stack;
	uintptr_t	top = (uintptr_t) __builtin_frame_address(0);
	MarshalHooks hooks;
	Alloc		a;
	MarshalError err_def;
	MarshalError err_small;
	MarshalError err;
	MarshalIndex ix;
	MarshalStatus st_def;
	MarshalStatus st;
	size_t		allocs;

	/* 1. validate, default depth */
	alloc_init(&a, size, 0);
	hooks_init(&hooks, &a);
	st_def = marshal_validate(data, size, &hooks, 0, &err_def);
	check_error(&err_def, st_def, size, "validate");
	expect_nothing_live(&a, "validate");
	if (st_def == MARSHAL_ERR_NOMEM)
		die("validate: out of memory without an injected failure");

	/* 2. validate, small depth, with the stack it uses measured */
	alloc_init(&a, size, 0);
	hooks_init(&hooks, &a);
	if (__sancov_lowest_stack < lowest)
		lowest = __sancov_lowest_stack;
	__sancov_lowest_stack = UINTPTR_MAX;
	st = marshal_validate(data, size, &hooks, small, &err_small);
	if (stack_check && __sancov_lowest_stack < top &&
		top - __sancov_lowest_stack > STACK_BASE + (size_t) small * STACK_PER_LEVEL)
		die("validate with max_depth %u used %zu bytes of stack "
			"(bound %zu): nesting not counted against max_depth",
			small, (size_t) (top - __sancov_lowest_stack),
			(size_t) (STACK_BASE + (size_t) small * STACK_PER_LEVEL));
	if (__sancov_lowest_stack > lowest)
		__sancov_lowest_stack = lowest;
	check_error(&err_small, st, size, "validate (small depth)");
	expect_nothing_live(&a, "validate (small depth)");
	if (st == MARSHAL_OK && st_def != MARSHAL_OK)
		die("max_depth %u accepts what the default depth refuses", small);
	if (st != MARSHAL_ERR_DEPTH)
		same_error(&err_small, &err_def, "validate with a small max_depth");

	/* 3. index, default depth */
	alloc_init(&a, size, 0);
	hooks_init(&hooks, &a);
	st = marshal_index(data, size, &hooks, 0, &ix, &err);
	check_error(&err, st, size, "index");
	same_error(&err, &err_def, "index against validate");
	allocs = a.ncalls;
	if (st == MARSHAL_OK)
	{
		size_t		tables = (ix.obj_kind != NULL) + (ix.obj_pos != NULL) +
			(ix.sym_pos != NULL);

		check_index(&ix, data, size);
		if (a.nlive != tables)
			die("index: %zu blocks live, the index holds %zu", a.nlive, tables);
		marshal_index_free(&ix, &hooks);
		if (ix.obj_kind || ix.obj_pos || ix.sym_pos || ix.nobjects ||
			ix.nsymbols)
			die("marshal_index_free left the index set");
	}
	else if (ix.obj_kind || ix.obj_pos || ix.sym_pos || ix.nobjects ||
			 ix.nsymbols)
		die("failed marshal_index left the index set");
	expect_nothing_live(&a, "index");

	/* 4. index with one allocation failing */
	if (allocs > 0)
	{
		alloc_init(&a, size, 1 + (h >> 8) % allocs);
		hooks_init(&hooks, &a);
		st = marshal_index(data, size, &hooks, 0, &ix, &err);
		check_error(&err, st, size, "index (failing allocation)");
		if (!a.failed)
			die("index made fewer allocations the second time");
		/* the same input makes the same calls, so the k-th one happens */
		if (st != MARSHAL_ERR_NOMEM)
			die("index returned %d (\"%s\") after allocation %zu failed",
				st, err.detail, a.fail_at);
		if (ix.obj_kind || ix.obj_pos || ix.sym_pos)
			die("failed marshal_index left the index set");
		expect_nothing_live(&a, "index (failing allocation)");
	}

	/* 5. a valid stream has no valid proper prefix */
	if (st_def == MARSHAL_OK)
	{
		alloc_init(&a, size - 1, 0);
		hooks_init(&hooks, &a);
		st = marshal_validate(data, size - 1, &hooks, 0, &err);
		check_error(&err, st, size - 1, "validate (prefix)");
		expect_nothing_live(&a, "validate (prefix)");
		if (st == MARSHAL_OK)
			die("both the stream and it less its last byte are valid");
	}
	return 0;
}
