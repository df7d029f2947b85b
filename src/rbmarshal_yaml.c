/*
 * rbmarshal_yaml.c
 *		YAML text of a serialize'd column as ActiveRecord 6.1 loads it.
 *
 * YAMLColumn#load is YAML.safe_load(text, permitted_classes: [Symbol],
 * aliases: true) (Psych 4).  This reads the text with libyaml's event
 * parser and maps what Psych would make of it: mappings, sequences,
 * quoted and block scalars as Strings, plain scalars by Psych's
 * ScalarScanner (null, booleans, decimal integers, floats, :symbols,
 * strings), aliases, and mappings tagged as HashWithIndifferentAccess.
 * Anything else (other tags, merge keys, times and dates, octal, hex,
 * sexagesimal or underscored numbers, more than one document) returns
 * NULL, and the caller keeps the YAML text: nothing is guessed.
 */
#include "rbmarshal.h"

#include <math.h>
#include <yaml.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

/*
 * Nodes pushed at most, aliases expanded (a billion laughs stays text); the
 * walker charges its budget for this many (marshal_json.c, MCAST_YAML).
 */
#define YAML_MAX_NODES(len) (1000 + 4 * (int64) (len))

typedef enum
{
	Y_SCALAR,
	Y_SEQ,
	Y_MAP
} YKind;

typedef struct YNode
{
	YKind		kind;
	bool		done;			/* complete (an alias to it may expand) */
	JsonbValue	value;			/* Y_SCALAR */
	char	   *keytext;		/* Y_SCALAR: key.to_s as a Hash key */
	int			keylen;
	List	   *items;			/* Y_SEQ: elements; Y_MAP: key, value, ... */
} YNode;

typedef struct YAnchor
{
	char	   *name;
	YNode	   *node;
} YAnchor;

static bool
ci_eq(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && pg_strncasecmp(s, word, len) == 0;
}

static bool
all_digits(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static void
set_string(YNode *n, const char *s, size_t len)
{
	char	   *conv = pg_any_to_server(s, (int) len, PG_UTF8);

	if (conv == s)
		conv = pnstrdup(s, len);
	n->value.type = jbvString;
	n->value.val.string.val = conv;
	n->value.val.string.len = (int) strlen(conv);
	n->keytext = conv;
	n->keylen = n->value.val.string.len;
}

static void
set_number(YNode *n, const char *text)
{
	n->value.type = jbvNumeric;
	n->value.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
															   CStringGetDatum(text),
															   ObjectIdGetDatum(InvalidOid),
															   Int32GetDatum(-1)));
	n->keytext = pstrdup(text);
	n->keylen = strlen(text);
}

/*
 * A plain scalar as Psych's ScalarScanner#tokenize reads it; false for the
 * forms not reproduced.  Every non-String result starts with a sign, a
 * digit, '.' or ':', or is one of the null and boolean words.
 */
static bool
tokenize(YNode *n, const char *s, size_t len)
{
	size_t		i = 0;
	bool		numeric_start;

	n->kind = Y_SCALAR;
	if (len == 0 || (len == 1 && s[0] == '~') || ci_eq(s, len, "null"))
	{
		n->value.type = jbvNull;
		n->keytext = "";
		n->keylen = 0;
		return true;
	}
	if (ci_eq(s, len, "yes") || ci_eq(s, len, "true") || ci_eq(s, len, "on") ||
		ci_eq(s, len, "no") || ci_eq(s, len, "false") || ci_eq(s, len, "off"))
	{
		bool		t = s[0] == 'y' || s[0] == 'Y' || s[0] == 't' || s[0] == 'T' ||
			((s[0] == 'o' || s[0] == 'O') && len == 2);

		n->value.type = jbvBool;
		n->value.val.boolean = t;
		n->keytext = t ? "true" : "false";
		n->keylen = strlen(n->keytext);
		return true;
	}
	if (s[0] == '+' || s[0] == '-')
		i = 1;
	numeric_start = i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.');
	if (s[0] == ':' && len > 1)
	{
		/* a Symbol; as_json is its name */
		if (s[1] == '"' || s[1] == '\'')
			return false;
		set_string(n, s + 1, len - 1);
		return true;
	}
	if (!numeric_start)
	{
		set_string(n, s, len);
		return true;
	}
	/* decimal integers: [-+]?(0|[1-9][0-9]*) */
	if (all_digits(s + i, len - i) && (s[i] != '0' || len - i == 1))
	{
		char	   *text = pnstrdup(s, len);

		set_number(n, text);
		/* the key text is Integer#to_s: no plus sign, no -0 */
		n->keytext = DatumGetCString(DirectFunctionCall1(numeric_out,
														 NumericGetDatum(n->value.val.numeric)));
		n->keylen = strlen(n->keytext);
		return true;
	}
	/* .inf, -.inf, .nan: Floats that as_json makes nil */
	if (ci_eq(s + i, len - i, ".inf") || (i == 0 && ci_eq(s, len, ".nan")))
	{
		if (s[0] == '-' || s[0] == '+' || s[0] == '.')
		{
			n->value.type = jbvNull;
			n->keytext = s[0] == '-' ? "-Infinity" : s[1] == 'n' || s[1] == 'N' ? "NaN" : "Infinity";
			n->keylen = strlen(n->keytext);
			return true;
		}
		return false;
	}
	/* floats: [-+]?[0-9]*\.[0-9]*([eE][-+][0-9]+)? */
	{
		size_t		j = i;
		size_t		digits = 0;
		char	   *text;
		char	   *end;
		double		d;
		char		buf[40];

		while (j < len && s[j] >= '0' && s[j] <= '9')
			j++, digits++;
		if (j >= len || s[j] != '.')
			return false;
		j++;
		while (j < len && s[j] >= '0' && s[j] <= '9')
			j++, digits++;
		if (j < len && (s[j] == 'e' || s[j] == 'E'))
		{
			j++;
			if (j >= len || (s[j] != '+' && s[j] != '-') || !all_digits(s + j + 1, len - j - 1))
				return false;
			j = len;
		}
		if (j != len)
			return false;
		if (digits == 0)
		{
			set_string(n, s, len);	/* "." and "-." are Strings */
			return true;
		}
		text = pnstrdup(s, len);
		d = strtod(text, &end);
		if (*end != '\0' || !isfinite(d))
			return false;
		marshal_format_float(d, buf);
		set_number(n, buf);
		return true;
	}
}

typedef struct YParse
{
	List	   *stack;			/* open containers */
	List	   *anchors;
	YNode	   *root;
	int			documents;
} YParse;

static YNode *
find_anchor(YParse *p, const char *name)
{
	ListCell   *lc;
	YNode	   *found = NULL;

	/* a later anchor of the same name replaces an earlier one */
	foreach(lc, p->anchors)
	{
		YAnchor    *a = lfirst(lc);

		if (strcmp(a->name, name) == 0)
			found = a->node;
	}
	return found;
}

static void
add_anchor(YParse *p, const yaml_char_t *name, YNode *n)
{
	YAnchor    *a;

	if (name == NULL)
		return;
	a = palloc(sizeof(YAnchor));
	a->name = pstrdup((const char *) name);
	a->node = n;
	p->anchors = lappend(p->anchors, a);
}

/* Add a finished node to the open container (or make it the root). */
static bool
add_node(YParse *p, YNode *n)
{
	YNode	   *parent;

	if (p->stack == NIL)
	{
		if (p->root != NULL)
			return false;
		p->root = n;
		return true;
	}
	parent = llast(p->stack);
	if (parent->kind == Y_MAP && list_length(parent->items) % 2 == 0)
	{
		/* a key: a scalar whose to_s is known; "<<" would merge */
		if (n->kind != Y_SCALAR || n->keytext == NULL)
			return false;
		if (n->value.type == jbvString && n->keylen == 2 &&
			memcmp(n->keytext, "<<", 2) == 0)
			return false;
	}
	parent->items = lappend(parent->items, n);
	return true;
}

/* The YAML as a tree of nodes; NULL if Psych's reading is not reproduced. */
static YNode *
parse(const char *s, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t event;
	YParse		p = {NIL, NIL, NULL, 0};
	volatile bool ok = true;
	bool		done = false;
	volatile bool have_event = false;

	if (!yaml_parser_initialize(&parser))
		return NULL;
	yaml_parser_set_input_string(&parser, (const unsigned char *) s, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	/*
	 * libyaml allocates with malloc: an error or a cancel raised in here
	 * (palloc, CHECK_FOR_INTERRUPTS) must not leave its memory behind.
	 */
	PG_TRY();
	{
		while (ok && !done)
		{
			YNode	   *n = NULL;

			CHECK_FOR_INTERRUPTS();
			if (!yaml_parser_parse(&parser, &event))
			{
				ok = false;
				break;
			}
			have_event = true;
			switch (event.type)
			{
				case YAML_STREAM_END_EVENT:
					done = true;
					break;
				case YAML_DOCUMENT_START_EVENT:
					/* only the first document: more is not reproduced */
					ok = ++p.documents == 1;
					break;
				case YAML_SCALAR_EVENT:
					n = palloc0(sizeof(YNode));
					n->kind = Y_SCALAR;
					n->done = true;
					if (event.data.scalar.tag != NULL)
						ok = false;
					else if (event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
						ok = tokenize(n, (const char *) event.data.scalar.value,
									  event.data.scalar.length);
					else
						set_string(n, (const char *) event.data.scalar.value,
								   event.data.scalar.length);
					if (ok)
					{
						add_anchor(&p, event.data.scalar.anchor, n);
						ok = add_node(&p, n);
					}
					break;
				case YAML_SEQUENCE_START_EVENT:
				case YAML_MAPPING_START_EVENT:
					{
						yaml_char_t *tag = event.type == YAML_SEQUENCE_START_EVENT ?
						event.data.sequence_start.tag : event.data.mapping_start.tag;
						yaml_char_t *anchor = event.type == YAML_SEQUENCE_START_EVENT ?
						event.data.sequence_start.anchor : event.data.mapping_start.anchor;

						n = palloc0(sizeof(YNode));
						n->kind = event.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP;
						/* a HashWithIndifferentAccess, if the app permits it, is its Hash */
						if (tag != NULL &&
							!(n->kind == Y_MAP &&
							  strcmp((const char *) tag, "!ruby/hash:ActiveSupport::HashWithIndifferentAccess") == 0))
							ok = false;
						/* as deep as rbmarshal.max_depth allows a Marshal value */
						if (list_length(p.stack) >= rbmarshal_max_depth)
							ok = false;
						if (ok)
						{
							add_anchor(&p, anchor, n);
							ok = add_node(&p, n);
							p.stack = lappend(p.stack, n);
						}
						break;
					}
				case YAML_SEQUENCE_END_EVENT:
				case YAML_MAPPING_END_EVENT:
					n = llast(p.stack);
					n->done = true;
					p.stack = list_delete_last(p.stack);
					break;
				case YAML_ALIAS_EVENT:
					n = find_anchor(&p, (const char *) event.data.alias.anchor);
					/* unknown, or an alias inside its own anchor (a cycle) */
					ok = n != NULL && n->done && add_node(&p, n);
					break;
				default:
					break;
			}
			yaml_event_delete(&event);
			have_event = false;
		}
	}
	PG_FINALLY();
	{
		if (have_event)
			yaml_event_delete(&event);
		yaml_parser_delete(&parser);
	}
	PG_END_TRY();
	return ok ? p.root : NULL;
}

/* Push the tree into state; false past the node budget. */
static bool
push_node(JsonbParseState **state, YNode *n, bool elem, int64 *budget,
		  JsonbValue **result)
{
	ListCell   *lc;
	bool		key = true;

	if (--*budget < 0)
		return false;
	check_stack_depth();
	if (n->kind == Y_SCALAR)
	{
		if (*state == NULL)
			*result = &n->value;
		else
			(void) pushJsonbValue(state, elem ? WJB_ELEM : WJB_VALUE, &n->value);
		return true;
	}
	(void) pushJsonbValue(state, n->kind == Y_MAP ? WJB_BEGIN_OBJECT : WJB_BEGIN_ARRAY, NULL);
	foreach(lc, n->items)
	{
		YNode	   *c = lfirst(lc);

		if (n->kind == Y_MAP && key)
		{
			JsonbValue	k;

			k.type = jbvString;
			k.val.string.val = c->keytext;
			k.val.string.len = c->keylen;
			(void) pushJsonbValue(state, WJB_KEY, &k);
		}
		else if (!push_node(state, c, n->kind == Y_SEQ, budget, result))
			return false;
		key = !key;
	}
	*result = pushJsonbValue(state, n->kind == Y_MAP ? WJB_END_OBJECT : WJB_END_ARRAY, NULL);
	return true;
}

/*
 * The value YAMLColumn#load gives for this text, as jsonb; NULL when the
 * text is not YAML Psych would load the same way here.
 */
Jsonb *
rbmarshal_yaml_to_jsonb(const char *s, size_t len)
{
	YNode	   *root = parse(s, len);
	JsonbParseState *state = NULL;
	JsonbValue *result = NULL;
	int64		budget = YAML_MAX_NODES(len);

	if (root == NULL || !push_node(&state, root, false, &budget, &result))
		return NULL;
	return JsonbValueToJsonb(result);
}
