/*
 * yaml_reader.c
 *		YAML text -> Marshal bytes: the entry point, the document tree.
 *
 * libyaml's event parser (the one Psych uses) builds the tree of the
 * first document, as Psych.parse does: what follows the first document's
 * end is not read, so errors there do not count, as in Psych.  The tree is
 * then turned into the Ruby object graph Psych's ToRuby builds
 * (yaml_ruby.c) and that graph is dumped through the Marshal writer
 * (yaml_dump.c).  Anchor names are interned while parsing, so an alias
 * costs one array lookup.  Failures leave by longjmp to yr_read_libyaml,
 * which frees everything: the tree and graph live in one arena.
 * marshal_from_yaml first offers the text to the fast path (yaml_fast.c),
 * which reads the block style Psych writes without libyaml or the tree and
 * declines the rest.
 */
#include "yaml_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct YArenaChunk
{
	YArenaChunk *next;
};

/* Chunks of 64 kB; what needs over a quarter of one gets its own. */
#define ARENA_CHUNK (64 * 1024)
/* Values start 16-aligned after the chunk's link */
#define ARENA_HEADER 16

static void *
hook_alloc(const MarshalHooks *h, size_t size)
{
	return h && h->alloc ? h->alloc(h->ctx, size) : malloc(size);
}

static void
hook_free(const MarshalHooks *h, void *p)
{
	if (h && h->free)
		h->free(h->ctx, p);
	else
		free(p);
}

void *
yr_alloc(YState *st, size_t size)
{
	YArena	   *a = &st->arena;
	void	   *p;

	size = (size + 15) & ~(size_t) 15;
	if (size > a->left)
	{
		bool		own = size > ARENA_CHUNK / 4;
		YArenaChunk *c = hook_alloc(a->hooks, ARENA_HEADER + (own ? size : ARENA_CHUNK));

		if (c == NULL)
			yr_fail(st, MARSHAL_ERR_NOMEM, 0, 0, 0, "out of memory");
		c->next = a->chunks;
		a->chunks = c;
		if (own)
			return (char *) c + ARENA_HEADER;
		a->ptr = (char *) c + ARENA_HEADER;
		a->left = ARENA_CHUNK;
	}
	p = a->ptr;
	a->ptr += size;
	a->left -= size;
	return p;
}

char *
yr_strdup(YState *st, const char *s, size_t len)
{
	char	   *p = yr_alloc(st, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static void
arena_free(YArena *a)
{
	while (a->chunks)
	{
		YArenaChunk *next = a->chunks->next;

		hook_free(a->hooks, a->chunks);
		a->chunks = next;
	}
}

void
yr_fail(YState *st, MarshalStatus status, size_t offset, uint32_t line,
		  uint32_t col, const char *fmt,...)
{
	va_list		ap;
	int			n;

	st->err->status = status;
	st->err->offset = offset;
	n = snprintf(st->err->detail, sizeof(st->err->detail),
				 "line %u column %u: ", line, col);
	if (n < 0 || (size_t) n >= sizeof(st->err->detail))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(st->err->detail + n, sizeof(st->err->detail) - n, fmt, ap);
	va_end(ap);
	longjmp(st->fail, 1);
}

void
yr_fail_at(YState *st, const YNode *n, MarshalStatus status,
			 const char *fmt,...)
{
	va_list		ap;
	char		msg[160];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	yr_fail(st, status, n ? n->offset : 0, n ? n->line : 0, n ? n->col : 0,
			  "%s", msg);
}

/* Spend work budget; interrupts are checked every 4096 units or so. */
void
yr_charge(YState *st, const YNode *n, int64_t cost)
{
	const MarshalHooks *h = st->arena.hooks;

	st->budget -= cost;
	if (st->budget < 0)
		yr_fail_at(st, n, MARSHAL_ERR_LIMIT,
					 "the value grows too large for its text (aliases or merge keys expand past the limit)");
	st->tick += (uint32_t) cost;
	if (st->tick >= 4096)
	{
		st->tick = 0;
		if (h && h->check_interrupts)
			h->check_interrupts(h->ctx);
	}
}

/* --- anchors ------------------------------------------------------------ */

typedef struct AnchorMap
{
	uint32_t   *ids;			/* id + 1, 0 empty */
	uint32_t	cap;
	uint32_t	cap_names;
} AnchorMap;

static uint64_t
name_hash(const char *s)
{
	uint64_t	h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t) *s) * 1099511628211ULL;
	return h;
}

/* The id of an anchor name; new names get the next id when create is set. */
static int32_t
anchor_id(YState *st, AnchorMap *m, const char *name, bool create)
{
	uint64_t	h = name_hash(name);
	uint32_t	j;

	if (m->cap == 0 || (st->nanchors + 1) * 2 > m->cap)
	{
		uint32_t	cap = m->cap ? m->cap * 2 : 64;
		uint32_t   *ids = yr_alloc(st, cap * sizeof(uint32_t));

		memset(ids, 0, cap * sizeof(uint32_t));
		for (uint32_t i = 0; i < m->cap; i++)
			if (m->ids[i])
			{
				uint32_t	k = name_hash(st->anchor_names[m->ids[i] - 1]) & (cap - 1);

				while (ids[k])
					k = (k + 1) & (cap - 1);
				ids[k] = m->ids[i];
			}
		m->ids = ids;
		m->cap = cap;
	}
	for (j = h & (m->cap - 1); m->ids[j]; j = (j + 1) & (m->cap - 1))
		if (strcmp(st->anchor_names[m->ids[j] - 1], name) == 0)
			return (int32_t) m->ids[j] - 1;
	if (!create)
		return -1;
	if (st->nanchors == m->cap_names)
	{
		uint32_t	cap = m->cap_names ? m->cap_names * 2 : 32;
		char	  **names = yr_alloc(st, cap * sizeof(char *));

		if (st->nanchors)
			memcpy(names, st->anchor_names, st->nanchors * sizeof(char *));
		st->anchor_names = names;
		m->cap_names = cap;
	}
	st->anchor_names[st->nanchors] = yr_strdup(st, name, strlen(name));
	m->ids[j] = ++st->nanchors;
	return (int32_t) st->nanchors - 1;
}

/* --- the tree ------------------------------------------------------------ */

typedef struct Builder
{
	YNode	  **stack;			/* children of the open containers */
	size_t		n;
	size_t		cap;
	size_t	   *opens;			/* for each open container: where its
								 * children start in stack */
	YNode	  **open_nodes;
	uint32_t	nopen;
	uint32_t	cap_open;
	YNode	   *root;
} Builder;

static void
push_child(YState *st, Builder *b, YNode *n)
{
	if (b->nopen == 0)
	{
		b->root = n;
		return;
	}
	if (b->n == b->cap)
	{
		size_t		cap = b->cap ? b->cap * 2 : 256;
		YNode	  **s = yr_alloc(st, cap * sizeof(YNode *));

		if (b->n)
			memcpy(s, b->stack, b->n * sizeof(YNode *));
		b->stack = s;
		b->cap = cap;
	}
	b->stack[b->n++] = n;
}

static YNode *
new_node(YState *st, YNodeKind kind, const yaml_event_t *ev)
{
	YNode	   *n = yr_alloc(st, sizeof(YNode));

	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->anchor = -1;
	n->line = (uint32_t) ev->start_mark.line + 1;
	n->col = (uint32_t) ev->start_mark.column + 1;
	n->offset = ev->start_mark.index;
	return n;
}

static const char *
copy_tag(YState *st, const yaml_char_t *tag)
{
	return tag ? yr_strdup(st, (const char *) tag, strlen((const char *) tag)) : NULL;
}

static void
open_container(YState *st, Builder *b, YNode *n)
{
	if (b->nopen >= st->opts->max_depth)
		yr_fail_at(st, n, MARSHAL_ERR_DEPTH, "nesting deeper than %u",
					 st->opts->max_depth);
	push_child(st, b, n);
	if (b->nopen == b->cap_open)
	{
		uint32_t	cap = b->cap_open ? b->cap_open * 2 : 32;
		size_t	   *o = yr_alloc(st, cap * sizeof(size_t));
		YNode	  **on = yr_alloc(st, cap * sizeof(YNode *));

		if (b->nopen)
		{
			memcpy(o, b->opens, b->nopen * sizeof(size_t));
			memcpy(on, b->open_nodes, b->nopen * sizeof(YNode *));
		}
		b->opens = o;
		b->open_nodes = on;
		b->cap_open = cap;
	}
	b->opens[b->nopen] = b->n;
	b->open_nodes[b->nopen++] = n;
}

static void
close_container(YState *st, Builder *b)
{
	YNode	   *n = b->open_nodes[--b->nopen];
	size_t		start = b->opens[b->nopen];

	n->nkids = (uint32_t) (b->n - start);
	n->kids = yr_alloc(st, (n->nkids ? n->nkids : 1) * sizeof(YNode *));
	if (n->nkids)
		memcpy(n->kids, b->stack + start, n->nkids * sizeof(YNode *));
	b->n = start;
}

/*
 * The parser parse() is running, for marshal_yaml_abort: libyaml allocates
 * with malloc, so a hook that longjmps out (a cancel) would leave its
 * buffers, a huge scalar's included, behind.  A backend runs one reader
 * at a time.
 */
static yaml_parser_t *live_parser;

/* Psych::SyntaxError's words: the problem, its place, and the context. */
static void
syntax_error(YState *st, yaml_parser_t *p)
{
	yaml_mark_t m = p->problem_mark;
	char		msg[160];

	if (p->context)
		snprintf(msg, sizeof(msg), "%s %s at line %zu column %zu",
				 p->problem ? p->problem : "error", p->context,
				 p->context_mark.line + 1, p->context_mark.column + 1);
	else
		snprintf(msg, sizeof(msg), "%s", p->problem ? p->problem : "error");
	live_parser = NULL;
	yaml_parser_delete(p);
	yr_fail(st, p->error == YAML_MEMORY_ERROR ? MARSHAL_ERR_NOMEM : MARSHAL_ERR_SYNTAX,
			  m.index, (uint32_t) m.line + 1, (uint32_t) m.column + 1,
			  "%s", msg);
}

void
marshal_yaml_abort(void)
{
	if (live_parser)
		yaml_parser_delete(live_parser);
	live_parser = NULL;
}

/* Bytes read or scanned since the last interrupt check */
void
yr_progress(YState *st, size_t bytes)
{
	const MarshalHooks *h = st->arena.hooks;

	st->progress += bytes;
	if (st->progress >= YAML_INTERRUPT_BYTES)
	{
		st->progress = 0;
		if (h && h->check_interrupts)
			h->check_interrupts(h->ctx);
	}
}

/*
 * libyaml's input, a chunk (its raw buffer, 16 kB) at a time as its
 * scanner asks: a scalar of any length is scanned within a few chunks of
 * an interrupt check.
 */
static int
read_text(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
	YState	   *st = data;
	size_t		n = st->textlen - st->read;

	if (n > size)
		n = size;
	memcpy(buffer, st->text + st->read, n);
	st->read += n;
	*size_read = n;
	yr_progress(st, n);
	return 1;
}

/*
 * The first document's tree, or NULL when the stream has none (Psych.parse
 * returns nil then).  The parser is deleted before any failure leaves (a
 * hook's longjmp aside: marshal_yaml_abort).
 */
static YNode *
parse(YState *st)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	Builder		b;
	AnchorMap	anchors;
	bool		done = false;
	bool		in_doc = false;

	memset(&b, 0, sizeof(b));
	memset(&anchors, 0, sizeof(anchors));
	if (!yaml_parser_initialize(&parser))
		yr_fail(st, MARSHAL_ERR_NOMEM, 0, 0, 0, "out of memory");
	st->read = 0;
	yaml_parser_set_input(&parser, read_text, st);
	live_parser = &parser;

	/*
	 * Psych names the String's encoding (UTF-8) to libyaml, which then takes
	 * a BOM as a character in column 0: "\uFEFF--- 1" is the String "--- 1"
	 */
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (!done)
	{
		YNode	   *n = NULL;

		if (!yaml_parser_parse(&parser, &ev))
			syntax_error(st, &parser);
		switch (ev.type)
		{
			case YAML_DOCUMENT_START_EVENT:
				in_doc = true;
				break;
			case YAML_DOCUMENT_END_EVENT:
			case YAML_STREAM_END_EVENT:
				done = true;
				break;
			case YAML_SCALAR_EVENT:
				n = new_node(st, YN_SCALAR, &ev);
				n->tag = copy_tag(st, ev.data.scalar.tag);
				n->quoted = ev.data.scalar.quoted_implicit;
				n->len = ev.data.scalar.length;
				n->value = yr_strdup(st, (const char *) ev.data.scalar.value, n->len);
				if (ev.data.scalar.anchor)
					n->anchor = anchor_id(st, &anchors, (const char *) ev.data.scalar.anchor, true);
				push_child(st, &b, n);
				break;
			case YAML_ALIAS_EVENT:
				/* an unknown one fails when visited, as in Psych's ToRuby */
				n = new_node(st, YN_ALIAS, &ev);
				n->anchor = anchor_id(st, &anchors, (const char *) ev.data.alias.anchor, false);
				n->len = strlen((const char *) ev.data.alias.anchor);
				n->value = yr_strdup(st, (const char *) ev.data.alias.anchor, n->len);
				push_child(st, &b, n);
				break;
			case YAML_SEQUENCE_START_EVENT:
			case YAML_MAPPING_START_EVENT:
				{
					bool		seq = ev.type == YAML_SEQUENCE_START_EVENT;
					const yaml_char_t *anchor = seq ? ev.data.sequence_start.anchor :
						ev.data.mapping_start.anchor;

					n = new_node(st, seq ? YN_SEQ : YN_MAP, &ev);
					n->tag = copy_tag(st, seq ? ev.data.sequence_start.tag :
									  ev.data.mapping_start.tag);
					n->flow = seq ? ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE :
						ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
					if (anchor)
						n->anchor = anchor_id(st, &anchors, (const char *) anchor, true);
					if (b.nopen >= st->opts->max_depth)
					{
						yaml_event_delete(&ev);
						live_parser = NULL;
						yaml_parser_delete(&parser);
					}
					open_container(st, &b, n);
					break;
				}
			case YAML_SEQUENCE_END_EVENT:
			case YAML_MAPPING_END_EVENT:
				close_container(st, &b);
				break;
			default:
				break;
		}
		yaml_event_delete(&ev);
		if (n && ++st->tick >= 4096)
		{
			const MarshalHooks *h = st->arena.hooks;

			st->tick = 0;
			if (h && h->check_interrupts)
				h->check_interrupts(h->ctx);
		}
	}
	live_parser = NULL;
	yaml_parser_delete(&parser);
	return in_doc ? b.root : NULL;
}

void
marshal_yaml_options_init(YamlOptions *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->max_depth = MARSHAL_DEFAULT_MAX_DEPTH;
	opts->aliases = true;
}

/* A reader's state over text: its arena empty; NULL when out of memory */
YState *
yr_state_new(const uint8_t *text, size_t len, const YamlOptions *opts,
			 const MarshalHooks *hooks, MarshalError *err)
{
	YState	   *st = hook_alloc(hooks, sizeof(YState));

	memset(err, 0, sizeof(*err));
	if (st == NULL)
	{
		err->status = MARSHAL_ERR_NOMEM;
		snprintf(err->detail, sizeof(err->detail), "out of memory");
		return NULL;
	}
	memset(st, 0, sizeof(YState));
	st->arena.hooks = hooks;
	st->opts = opts;
	st->text = text;
	st->textlen = len;
	st->err = err;
	/* what the text can reasonably make, aliases and merges included */
	st->budget = 10000 + 8 * (int64_t) len;
	return st;
}

void
yr_state_free(YState *st)
{
	const MarshalHooks *hooks = st->arena.hooks;

	arena_free(&st->arena);
	hook_free(hooks, st);
}

/* The general path: libyaml's events, the tree, the graph, its dump. */
MarshalStatus
yr_read_libyaml(const uint8_t *text, size_t len, const YamlOptions *opts,
				const MarshalHooks *hooks, uint8_t **out, size_t *outlen,
				MarshalError *err)
{
	/* volatile: read after longjmp */
	YState	   *volatile st;
	MarshalWriter *volatile w = NULL;
	MarshalStatus status;

	st = yr_state_new(text, len, opts, hooks, err);
	if (st == NULL)
		return MARSHAL_ERR_NOMEM;
	if (setjmp(st->fail) == 0)
	{
		YNode	   *root = parse(st);
		RVal	   *value;

		value = yr_to_ruby(st, root);
		if (opts->max_expanded)
			yr_check_expansion(st, value, opts->max_expanded);
		w = marshal_writer_new(hooks);
		if (w == NULL)
			yr_fail(st, MARSHAL_ERR_NOMEM, 0, 0, 0, "out of memory");
		yr_dump(st, w, value);
		status = marshal_writer_finish(w, out, outlen);
		w = NULL;
		if (status != MARSHAL_OK)
		{
			err->status = status;
			snprintf(err->detail, sizeof(err->detail), "line 1 column 1: %s",
					 status == MARSHAL_ERR_NOMEM ? "out of memory" :
					 "a value Marshal cannot write");
		}
	}
	else
	{
		status = err->status;
		if (w)
			marshal_writer_free(w);
	}
	yr_state_free(st);
	return status;
}

/*
 * The block-style texts Psych writes take the fast path (yaml_fast.c);
 * whatever it declines, libyaml reads.
 */
MarshalStatus
marshal_from_yaml(const uint8_t *text, size_t len, const YamlOptions *opts,
				  const MarshalHooks *hooks, uint8_t **out, size_t *outlen,
				  MarshalError *err)
{
	MarshalStatus status;

	if (yr_read_fast(text, len, opts, hooks, out, outlen, err, &status))
		return status;
	return yr_read_libyaml(text, len, opts, hooks, out, outlen, err);
}
