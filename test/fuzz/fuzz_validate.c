/*
 * fuzz_validate.c
 *		libFuzzer target: marshal_validate, marshal_index and the cursor on
 *		arbitrary bytes.
 *
 * Every input is read several ways and the results must agree:
 *
 *   1. marshal_validate, default depth (1000).
 *   2. marshal_index with a small max_depth (1..16, from a hash of the
 *      input), and on success the cursor walk of step 6: success implies 1
 *      succeeded; any result but a depth error is exactly 1's (status,
 *      offset, detail); and the stack used stays within what max_depth
 *      levels can need (STACK_BASE + max_depth * STACK_PER_LEVEL), so any
 *      recursion not counted against max_depth shows up.
 *   3. marshal_index, default depth: exactly 1's result; on success a sane
 *      index (every obj_pos and sym_pos < len, kinds and encodings in range,
 *      the byte before a symbol's position is ':'), then step 6 unless step
 *      2 ran it, then marshal_index_free.
 *   4. marshal_index with the k-th of the allocations step 3 made failing:
 *      MARSHAL_ERR_NOMEM and nothing left allocated.
 *   5. When 1 succeeded: the input less its last byte is refused.
 *   6. Cursor (marshal_cursor.c) over the indexed stream: the whole value
 *      walked node by node as the walkers do (marshal_node, marshal_symbol,
 *      marshal_long), where every value's end by its node and elements must
 *      equal marshal_skip's and the root's must be len; marshal_node on up to
 *      16 object slots gives the type byte the slot's kind calls for; and the
 *      same walk over a lazy document (marshal_doc_lazy, indexing on demand
 *      through the counting hooks, bound 64 * len + 16384) sees the same
 *      nodes and leaves nothing allocated after marshal_index_free.
 *
 * Allocation goes through counting hooks: after each call nothing is left
 * allocated (after marshal_index_free for a successful index), no pointer is
 * freed twice or unknown, and the bytes requested over a call (alloc plus
 * every realloc's new size) never exceed 16 * len + 4096.  A violation
 * aborts, so libFuzzer records the input.
 *
 * FUZZ_SKIP=stack,cursor (either or both) in the environment turns off the
 * stack bound of step 2 or the cursor checks of step 6, to keep fuzzing for
 * other bugs while a known one is open.  FUZZ_STACK_REPORT=1 prints the
 * stack step 2 measures, to calibrate the bound.
 */
#include "marshal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_NAME "fuzz_validate"
#include "fuzz_die.h"

/*
 * Lowest stack address reached by instrumented code: libFuzzer's runtime
 * defines it and -fsanitize=fuzzer on Linux implies
 * -fsanitize-coverage=stack-depth, which updates it at each function entry.
 */
extern __thread uintptr_t __sancov_lowest_stack;

/* Stack one nesting level may use (generous: ASan frames are large) ... */
#define STACK_PER_LEVEL		2048
/* ... plus a constant for the entry points and the hooks. */
#define STACK_BASE			(32 * 1024)

#define MAX_LIVE			16

/* Object slots the cursor checks visit per input. */
#define CURSOR_SLOTS		16

/* from FUZZ_SKIP and FUZZ_STACK_REPORT, see LLVMFuzzerInitialize */
static bool stack_check = true;
static bool stack_report = false;
static bool cursor_check = true;

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
	if (ix->nsymbols > 0 && (ix->sym_pos == NULL || ix->sym_enc == NULL))
		die("index: %u symbols but no tables", ix->nsymbols);
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
		if (ix->sym_enc[i] > MENC_NAMED)
			die("index: symbol %u has encoding %u", i, ix->sym_enc[i]);
	}
}

/* A walk of the whole value through marshal_node, as the walkers do it. */
typedef struct Walk
{
	const MarshalDoc *doc;
	const char *mode;			/* "eager" or "lazy" */
	uint64_t	fold;			/* of every node seen, to compare walks */
	size_t		nodes;
} Walk;

static void
fold(Walk *w, uint64_t v)
{
	w->fold = (w->fold ^ v) * 1099511628211u;
}

static size_t walk_value(Walk *w, size_t pos);

static size_t
walk_symbol(Walk *w, size_t pos)
{
	MarshalBytes name;
	MarshalBytes encname;
	MarshalEncoding enc;
	MarshalError err;
	size_t		end;

	if (marshal_symbol(w->doc, pos, &name, &enc, &encname, &end, &err) !=
		MARSHAL_OK)
		die("cursor (%s): symbol at %zu of a valid stream: %s", w->mode, pos,
			err.detail);
	if (end <= pos || end > w->doc->len)
		die("cursor (%s): symbol at %zu ends at %zu", w->mode, pos, end);
	fold(w, pos);
	fold(w, name.len);
	fold(w, enc);
	return end;
}

/* n pairs of (symbol, value) from pos */
static size_t
walk_pairs(Walk *w, size_t pos, int64_t n)
{
	while (n-- > 0)
		pos = walk_value(w, walk_symbol(w, pos));
	return pos;
}

static size_t
walk_value(Walk *w, size_t pos)
{
	const MarshalDoc *doc = w->doc;
	MarshalNode node;
	MarshalError err;
	size_t		end;
	size_t		skipped;
	int64_t		n;

	if (marshal_node(doc, pos, &node, &err) != MARSHAL_OK)
		die("cursor (%s): node at %zu of a valid stream failed at %zu: %s",
			w->mode, pos, err.offset, err.detail);
	w->nodes++;
	fold(w, pos);
	fold(w, (uint64_t) node.type);
	fold(w, (uint64_t) node.slot);
	fold(w, node.next);
	fold(w, node.count);
	fold(w, node.items);
	fold(w, (uint64_t) node.has_ivars);
	fold(w, node.encoding);
	fold(w, node.data.len);
	if (node.next > doc->len || node.items > doc->len ||
		node.ivars > doc->len)
		die("cursor (%s): node at %zu: offsets past the end", w->mode, pos);
	if (node.slot >= 0 && (uint64_t) node.slot >= doc->index.nobjects)
		die("cursor (%s): node at %zu: slot %lld of %u", w->mode, pos,
			(long long) node.slot, doc->index.nobjects);

	if (node.next)
		end = node.next;		/* flat value or link: read whole */
	else
	{
		end = node.items;
		switch (node.type)
		{
			case MT_ARRAY:
				for (uint32_t i = 0; i < node.count; i++)
					end = walk_value(w, end);
				break;
			case MT_HASH:
			case MT_HASH_DEF:
				for (uint32_t i = 0; i < node.count; i++)
					end = walk_value(w, walk_value(w, end));
				if (node.type == MT_HASH_DEF)
					end = walk_value(w, end);
				break;
			case MT_STRUCT:
			case MT_OBJECT:
				end = walk_pairs(w, end, node.count);
				break;
			case MT_USRMARSHAL:
			case MT_DATA:
				end = walk_value(w, end);
				break;
			default:
				die("cursor (%s): node at %zu: type 0x%02x without next",
					w->mode, pos, node.type);
		}
		/* an I wrapper's ivar block follows the elements */
		if (node.has_ivars)
		{
			if (marshal_long(doc, end, &n, &end, &err) != MARSHAL_OK)
				die("cursor (%s): ivar count at %zu: %s", w->mode, end,
					err.detail);
			end = walk_pairs(w, end, n);
		}
	}
	if (marshal_skip(doc, pos, &skipped, &err) != MARSHAL_OK)
		die("cursor (%s): skip at %zu of a valid stream failed at %zu: %s",
			w->mode, pos, err.offset, err.detail);
	if (skipped != end)
		die("cursor (%s): value at %zu (type 0x%02x): marshal_skip ends at "
			"%zu, its node and elements at %zu", w->mode, pos, node.type,
			skipped, end);
	return end;
}

/* The type bytes marshal_node reports for an object slot of this kind. */
static bool
type_fits_kind(int type, uint8_t kind)
{
	/* immediates and symbols take no slot: no type fits them */
	static const uint8_t types[][2] = {
		[MK_FLOAT] = {MT_FLOAT}, [MK_BIGNUM] = {MT_BIGNUM},
		[MK_STRING] = {MT_STRING}, [MK_REGEXP] = {MT_REGEXP},
		[MK_ARRAY] = {MT_ARRAY}, [MK_HASH] = {MT_HASH, MT_HASH_DEF},
		[MK_STRUCT] = {MT_STRUCT}, [MK_OBJECT] = {MT_OBJECT},
		[MK_USERDEF] = {MT_USERDEF}, [MK_USRMARSHAL] = {MT_USRMARSHAL},
		[MK_DATA] = {MT_DATA}, [MK_CLASS] = {MT_CLASS},
		[MK_MODULE] = {MT_MODULE, MT_MODULE_OLD},
	};

	return kind < sizeof(types) / sizeof(types[0]) && type != 0 &&
		(type == types[kind][0] || type == types[kind][1]);
}

/*
 * The cursor over a valid stream: the whole value walked node by node (each
 * value's end by its node and elements equal to marshal_skip's, the root's
 * equal to len), up to CURSOR_SLOTS object slots read directly, and the
 * same walk over a lazy document giving the same nodes.
 */
static void
check_cursor(const uint8_t *buf, size_t len, const MarshalIndex *ix)
{
	MarshalDoc	doc;
	MarshalDoc	lazy;
	MarshalError err;
	MarshalNode node;
	MarshalHooks hooks;
	Alloc		a;
	Walk		w;
	Walk		wl;
	size_t		end;
	uint32_t	step;

	memset(&doc, 0, sizeof(doc));
	doc.buf = buf;
	doc.len = len;
	doc.index = *ix;

	memset(&w, 0, sizeof(w));
	w.doc = &doc;
	w.mode = "eager";
	if (walk_value(&w, MARSHAL_ROOT) != len)
		die("cursor: the root's walk does not end at %zu", len);

	step = ix->nobjects > CURSOR_SLOTS ? ix->nobjects / CURSOR_SLOTS : 1;
	for (uint32_t i = 0; i < ix->nobjects; i += step)
	{
		size_t		pos = ix->obj_pos[i];

		if (marshal_node(&doc, pos, &node, &err) != MARSHAL_OK)
			die("cursor: node of object %u at %zu failed at %zu: %s",
				i, pos, err.offset, err.detail);
		if (!type_fits_kind(node.type, ix->obj_kind[i]))
			die("cursor: object %u at %zu is kind %u, node says type 0x%02x",
				i, pos, ix->obj_kind[i], node.type);
		if (marshal_skip(&doc, pos, &end, &err) != MARSHAL_OK)
			die("cursor: skip from object %u at %zu failed at %zu: %s",
				i, pos, err.offset, err.detail);
		if (end <= pos || end > len)
			die("cursor: skip from object %u at %zu ends at %zu (len %zu)",
				i, pos, end, len);
	}

	/* lazy: indexes on demand through the hooks, same nodes */
	alloc_init(&a, len, 0);
	a.limit = 64 * len + 16384;
	hooks_init(&hooks, &a);
	marshal_doc_lazy(&lazy, buf, len, &hooks, 0);
	memset(&wl, 0, sizeof(wl));
	wl.doc = &lazy;
	wl.mode = "lazy";
	if (walk_value(&wl, MARSHAL_ROOT) != len)
		die("cursor: the root's lazy walk does not end at %zu", len);
	if (wl.fold != w.fold || wl.nodes != w.nodes)
		die("cursor: lazy and eager walks differ (%zu and %zu nodes)",
			wl.nodes, w.nodes);
	marshal_index_free(&lazy.index, &hooks);
	expect_nothing_live(&a, "lazy cursor");
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *skip = getenv("FUZZ_SKIP");

	(void) argc;
	(void) argv;
	if (skip && strstr(skip, "stack"))
		stack_check = false;
	if (skip && strstr(skip, "cursor"))
		cursor_check = false;
	/* print the stack each measured call used (to calibrate the bound) */
	if (getenv("FUZZ_STACK_REPORT"))
		stack_report = true;
	return 0;
}

static uint32_t
hash_input(const uint8_t *data, size_t size)
{
	uint32_t	h = 2166136261u;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h ^ (uint32_t) size;
}

/*
 * Measure the stack a call uses: libFuzzer's own depth feature reads the
 * same variable after the run, so it gets back the lowest value seen.
 */
static void
stack_begin(void)
{
	__sancov_lowest_stack = UINTPTR_MAX;
}

static void
stack_end(uintptr_t top, uintptr_t lowest, uint32_t max_depth,
		  const char *what)
{
	uintptr_t	used;
	size_t		bound = STACK_BASE + (size_t) max_depth * STACK_PER_LEVEL;

	used = __sancov_lowest_stack < top ? top - __sancov_lowest_stack : 0;
	if (__sancov_lowest_stack > lowest)
		__sancov_lowest_stack = lowest;
	if (stack_report)
		fprintf(stderr, "stack: max_depth %u, %s: %zu bytes (bound %zu)\n",
				max_depth, what, (size_t) used, bound);
	if (stack_check && used > bound)
		die("max_depth %u: %s used %zu bytes of stack, over the bound of "
			"%zu: recursion not counted against max_depth", max_depth, what,
			(size_t) used, bound);
}

static bool
index_is_empty(const MarshalIndex *ix)
{
	return ix->nobjects == 0 && ix->nsymbols == 0 && ix->obj_kind == NULL &&
		ix->obj_pos == NULL && ix->sym_pos == NULL && ix->sym_enc == NULL;
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
	MarshalError err;
	MarshalIndex ix;
	MarshalStatus st_def;
	MarshalStatus st;
	size_t		allocs;
	bool		cursor_done = false;

	/* 1. validate, default depth */
	alloc_init(&a, size, 0);
	hooks_init(&hooks, &a);
	st_def = marshal_validate(data, size, &hooks, 0, &err_def);
	check_error(&err_def, st_def, size, "validate");
	expect_nothing_live(&a, "validate");
	if (st_def == MARSHAL_ERR_NOMEM)
		die("validate: out of memory without an injected failure");

	/* 2. index with a small depth, and the cursor, under a stack bound */
	alloc_init(&a, size, 0);
	hooks_init(&hooks, &a);
	stack_begin();
	st = marshal_index(data, size, &hooks, small, &ix, &err);
	stack_end(top, lowest, small, "marshal_index");
	if (st == MARSHAL_OK && cursor_check)
	{
		stack_begin();
		check_cursor(data, size, &ix);
		stack_end(top, lowest, small, "the cursor");
		cursor_done = true;
	}
	check_error(&err, st, size, "index (small depth)");
	if (st == MARSHAL_OK)
	{
		if (st_def != MARSHAL_OK)
			die("max_depth %u accepts what the default depth refuses", small);
		marshal_index_free(&ix, &hooks);
	}
	else if (!index_is_empty(&ix))
		die("failed marshal_index left the index set");
	expect_nothing_live(&a, "index (small depth)");
	if (st != MARSHAL_ERR_DEPTH)
		same_error(&err, &err_def, "index with a small max_depth");

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
			(ix.sym_pos != NULL) + (ix.sym_enc != NULL);

		check_index(&ix, data, size);
		if (a.nlive != tables)
			die("index: %zu blocks live, the index holds %zu", a.nlive, tables);
		/* the same index as step 2's when that one succeeded */
		if (cursor_check && !cursor_done)
			check_cursor(data, size, &ix);
		marshal_index_free(&ix, &hooks);
		if (!index_is_empty(&ix))
			die("marshal_index_free left the index set");
	}
	else if (!index_is_empty(&ix))
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
		if (!index_is_empty(&ix))
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
