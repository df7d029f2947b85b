/*
 * marshal_literal.c
 *		Ruby literals in, MRI's Marshal.dump(eval(literal)) bytes out.
 *
 * A parser for the literal subset of Ruby (nil, booleans, numbers, strings,
 * symbols, arrays, hashes in both inspect styles) that evaluates nothing:
 * interpolation, method calls, variables and any other constant than
 * Float::INFINITY and Float::NAN are syntax errors.  The text is parsed into
 * a flat pre-order tree first (containers need their sizes before their
 * elements are written), then written with the codec's one writer, which
 * applies MRI's object rules: each string literal its own object, equal
 * hash-literal String keys one frozen object, equal flonums one object.
 */
#include "marshal_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum LitType
{
	L_NIL,
	L_TRUE,
	L_FALSE,
	L_INT,						/* digits in buf, base, sign */
	L_FLOAT,
	L_NAN,						/* Float::NAN (one object) */
	L_INF,						/* Float::INFINITY (one object) */
	L_NEG_INF,					/* -Float::INFINITY (a new object each time) */
	L_STRING,					/* decoded bytes in buf */
	L_SYMBOL,
	L_ARRAY,
	L_HASH
} LitType;

typedef struct LitNode
{
	LitType		type;
	uint32_t	size;			/* nodes in this subtree, itself included */
	uint32_t	count;			/* elements, or pairs for a hash */
	size_t		off;			/* into the byte buffer */
	size_t		len;
	int			base;
	bool		negative;
	double		d;
} LitNode;

typedef struct Parser
{
	MarshalWalk walk;			/* hooks, error, depth */
	const char *s;
	size_t		len;
	size_t		pos;
	LitNode    *nodes;
	size_t		nnodes;
	size_t		nodecap;
	uint8_t    *bytes;			/* decoded strings, symbol names, digits */
	size_t		nbytes;
	size_t		bytecap;
} Parser;

/* A node's decoded bytes (the buffer is not allocated until first used). */
static inline const uint8_t *
node_bytes(const Parser *p, const LitNode *n)
{
	return p->bytes ? p->bytes + n->off : (const uint8_t *) "";
}

static MarshalStatus parse_value(Parser *p);

static MarshalStatus
syntax(Parser *p, size_t at, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

static MarshalStatus
syntax(Parser *p, size_t at, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	marshal_verror(p->walk.err, MARSHAL_ERR_SYNTAX, at, fmt, ap);
	va_end(ap);
	return MARSHAL_ERR_SYNTAX;
}

static MarshalStatus
oom(Parser *p)
{
	p->walk.err->status = MARSHAL_ERR_NOMEM;
	p->walk.err->offset = p->pos;
	snprintf(p->walk.err->detail, sizeof(p->walk.err->detail), "out of memory");
	return MARSHAL_ERR_NOMEM;
}

static MarshalStatus
new_node(Parser *p, LitType type, size_t *index)
{
	if (p->nnodes == p->nodecap)
	{
		size_t		cap = p->nodecap ? p->nodecap * 2 : 64;
		LitNode    *n = marshal_realloc(p->walk.hooks, p->nodes, cap * sizeof(LitNode));

		if (n == NULL)
			return oom(p);
		p->nodes = n;
		p->nodecap = cap;
	}
	memset(&p->nodes[p->nnodes], 0, sizeof(LitNode));
	p->nodes[p->nnodes].type = type;
	p->nodes[p->nnodes].size = 1;
	p->nodes[p->nnodes].off = p->nbytes;
	*index = p->nnodes++;
	return MARSHAL_OK;
}

static MarshalStatus
put_bytes(Parser *p, const void *b, size_t n)
{
	if (n == 0)
		return MARSHAL_OK;		/* the buffer may not exist yet */
	if (p->nbytes + n > p->bytecap)
	{
		size_t		cap = p->bytecap ? p->bytecap : 256;
		uint8_t    *nb;

		while (cap < p->nbytes + n)
			cap *= 2;
		nb = marshal_realloc(p->walk.hooks, p->bytes, cap);
		if (nb == NULL)
			return oom(p);
		p->bytes = nb;
		p->bytecap = cap;
	}
	memcpy(p->bytes + p->nbytes, b, n);
	p->nbytes += n;
	return MARSHAL_OK;
}

static MarshalStatus
put_utf8(Parser *p, uint32_t cp)
{
	uint8_t		u[4];
	size_t		n;

	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return syntax(p, p->pos, "invalid Unicode escape");
	if (cp < 0x80)
		u[0] = (uint8_t) cp, n = 1;
	else if (cp < 0x800)
		u[0] = 0xC0 | (cp >> 6), u[1] = 0x80 | (cp & 63), n = 2;
	else if (cp < 0x10000)
		u[0] = 0xE0 | (cp >> 12), u[1] = 0x80 | ((cp >> 6) & 63),
			u[2] = 0x80 | (cp & 63), n = 3;
	else
		u[0] = 0xF0 | (cp >> 18), u[1] = 0x80 | ((cp >> 12) & 63),
			u[2] = 0x80 | ((cp >> 6) & 63), u[3] = 0x80 | (cp & 63), n = 4;
	return put_bytes(p, u, n);
}

static void
skip_space(Parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
							   p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

/* Spaces and tabs only: Ruby ends a statement at a newline before , and => */
static void
skip_hspace(Parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
		p->pos++;
}

static bool
at(Parser *p, const char *lit)
{
	size_t		n = strlen(lit);

	return p->len - p->pos >= n && memcmp(p->s + p->pos, lit, n) == 0;
}

static bool
ident_start(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool
ident_char(unsigned char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static MarshalStatus escape_byte(Parser *p, unsigned char c, uint8_t *b);

/*
 * \cx, \C-x (control) and \M-x (meta), the letter after the backslash
 * already read: x may itself be an escape, \M-\C-x; ? is DEL.
 */
static MarshalStatus
ctrl_meta(Parser *p, unsigned char c, uint8_t *out)
{
	size_t		at = p->pos - 2;
	bool		meta = c == 'M';
	unsigned char d;
	uint8_t		v;

	if (c != 'c')
	{
		if (p->pos >= p->len || p->s[p->pos] != '-')
			return syntax(p, at, "invalid escape: expected '-' after \\%c", c);
		p->pos++;
	}
	if (p->pos >= p->len)
		return syntax(p, at, "unterminated string");
	d = (unsigned char) p->s[p->pos++];
	if (d == '\\')
	{
		unsigned char e;

		if (p->pos >= p->len)
			return syntax(p, at, "unterminated string");
		e = (unsigned char) p->s[p->pos++];
		if (e == 'c' || ((e == 'C' || e == 'M') && p->pos < p->len && p->s[p->pos] == '-'))
		{
			if (meta && e == 'M')
				return syntax(p, at, "invalid escape: duplicate meta");
			TRY(ctrl_meta(p, e, &v));
		}
		else if (e == 'u' || e >= 0x80)
			return syntax(p, at, "invalid escape after \\%c", c);
		else
			TRY(escape_byte(p, e, &v));
	}
	else if (d >= 0x80)
		return syntax(p, at, "invalid escape: a multibyte character after \\%c", c);
	else
		v = d;
	if (meta)
		v |= 0x80;
	else
		v = v == '?' ? 0x7F : (uint8_t) (v & 0x9F);
	*out = v;
	return MARSHAL_OK;
}

/* One escape of a double-quoted string, the backslash already read. */
static MarshalStatus
parse_escape(Parser *p)
{
	unsigned char c;
	uint8_t		b;

	if (p->pos >= p->len)
		return syntax(p, p->pos, "unterminated string");
	c = (unsigned char) p->s[p->pos++];
	switch (c)
	{
		case '\n':
			return MARSHAL_OK;	/* a line continuation */
		case 'c':
			TRY(ctrl_meta(p, c, &b));
			return put_bytes(p, &b, 1);
		case 'C':
		case 'M':
			if (p->pos < p->len && p->s[p->pos] == '-')
			{
				TRY(ctrl_meta(p, c, &b));
				return put_bytes(p, &b, 1);
			}
			break;
		case 'u':
			{
				uint32_t	cp = 0;

				if (p->pos < p->len && p->s[p->pos] == '{')
				{
					/* \u{41 1F600}: code points of 1 to 6 digits, maybe none */
					p->pos++;
					for (;;)
					{
						int			digits = 0;

						while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
							p->pos++;
						if (p->pos < p->len && p->s[p->pos] == '}')
							break;
						cp = 0;
						while (p->pos < p->len && marshal_hex_digit(p->s[p->pos]) >= 0)
						{
							if (++digits > 6)
								return syntax(p, p->pos, "invalid Unicode escape: more than 6 digits");
							cp = cp * 16 + (uint32_t) marshal_hex_digit(p->s[p->pos++]);
						}
						if (digits == 0)
							return syntax(p, p->pos, "invalid Unicode escape");
						TRY(put_utf8(p, cp));
					}
					p->pos++;
					return MARSHAL_OK;
				}
				for (int i = 0; i < 4; i++)
				{
					if (p->pos >= p->len || marshal_hex_digit(p->s[p->pos]) < 0)
						return syntax(p, p->pos, "invalid Unicode escape");
					cp = cp * 16 + (uint32_t) marshal_hex_digit(p->s[p->pos++]);
				}
				return put_utf8(p, cp);
			}
		default:
			if (c >= 0x80)
			{
				/* a multibyte character after a backslash stands for itself */
				p->pos--;
				return MARSHAL_OK;
			}
			break;
	}
	TRY(escape_byte(p, c, &b));
	return put_bytes(p, &b, 1);
}

/* The byte of a one-byte escape \n \t \x41 \101 \" ..., c already read. */
static MarshalStatus
escape_byte(Parser *p, unsigned char c, uint8_t *out)
{
	uint8_t		b;

	switch (c)
	{
		case 'n':
			b = '\n';
			break;
		case 't':
			b = '\t';
			break;
		case 'r':
			b = '\r';
			break;
		case 's':
			b = ' ';
			break;
		case 'a':
			b = 7;
			break;
		case 'b':
			b = 8;
			break;
		case 'e':
			b = 27;
			break;
		case 'f':
			b = 12;
			break;
		case 'v':
			b = 11;
			break;
		case 'x':
			{
				int			v = 0;
				int			digits = 0;

				while (digits < 2 && p->pos < p->len && marshal_hex_digit(p->s[p->pos]) >= 0)
					v = v * 16 + marshal_hex_digit(p->s[p->pos++]), digits++;
				if (digits == 0)
					return syntax(p, p->pos, "invalid hex escape");
				b = (uint8_t) v;
				break;
			}
		case '0':
		case '1':
		case '2':
		case '3':
		case '4':
		case '5':
		case '6':
		case '7':
			{
				int			v = c - '0';

				for (int i = 0; i < 2 && p->pos < p->len &&
					 p->s[p->pos] >= '0' && p->s[p->pos] <= '7'; i++)
					v = v * 8 + (p->s[p->pos++] - '0');
				b = (uint8_t) v;
				break;
			}
		default:
			/* \" \\ \# and any other character stand for themselves */
			b = c;
			break;
	}
	*out = b;
	return MARSHAL_OK;
}

/*
 * Whether "#" (just read) starts an interpolation Ruby would evaluate: #{,
 * #@ivar, #@@cvar, #$gvar ($1, $~, $-w, ...); otherwise it is text.
 */
static bool
interpolation_at(Parser *p)
{
	size_t		q = p->pos;
	unsigned char c;

	if (q >= p->len)
		return false;
	c = (unsigned char) p->s[q];
	if (c == '{')
		return true;
	if (c == '@')
	{
		q++;
		if (q < p->len && p->s[q] == '@')
			q++;
		return q < p->len && ident_start((unsigned char) p->s[q]);
	}
	if (c == '$')
	{
		q++;
		if (q >= p->len)
			return false;
		c = (unsigned char) p->s[q];
		if (ident_start(c) || (c >= '0' && c <= '9') ||
			strchr("~*$?!@/\\;,.=:<>\"&'`+", c) != NULL)
			return c != '\0';
		return c == '-' && q + 1 < p->len && ident_char((unsigned char) p->s[q + 1]);
	}
	return false;
}

/* A quoted string (double or single), the quote already read. */
static MarshalStatus
parse_quoted(Parser *p, char quote)
{
	for (;;)
	{
		char		c;

		if (p->pos >= p->len)
			return syntax(p, p->pos, "unterminated string");
		c = p->s[p->pos++];
		if (c == quote)
			return MARSHAL_OK;
		if (c == '\\')
		{
			if (quote == '"')
				TRY(parse_escape(p));
			else if (p->pos < p->len && (p->s[p->pos] == '\\' || p->s[p->pos] == '\''))
				TRY(put_bytes(p, &p->s[p->pos++], 1));
			else
				TRY(put_bytes(p, &c, 1));
			continue;
		}
		if (quote == '"' && c == '#' && interpolation_at(p))
			return syntax(p, p->pos - 1, "string interpolation is not evaluated");
		/* Ruby reads a source line ending CR LF as LF */
		if (c == '\r' && p->pos < p->len && p->s[p->pos] == '\n')
			continue;
		TRY(put_bytes(p, &c, 1));
	}
}

static MarshalStatus
parse_string(Parser *p, LitType type)
{
	size_t		i;
	char		quote = p->s[p->pos++];

	TRY(new_node(p, type, &i));
	TRY(parse_quoted(p, quote));
	p->nodes[i].len = p->nbytes - p->nodes[i].off;
	/* Ruby refuses a Symbol that is not valid in its encoding */
	if (type == L_SYMBOL &&
		!marshal_utf8_valid(node_bytes(p, &p->nodes[i]), p->nodes[i].len, true))
		return syntax(p, p->pos, "symbol is not valid UTF-8");
	return MARSHAL_OK;
}

/* The name of :name, :name?, :@ivar, :+, ... (the colon already read). */
static MarshalStatus
parse_symbol_name(Parser *p, size_t start)
{
	static const char *const operators[] = {
		"[]=", "[]", "<=>", "===", "==", "=~", "!=", "!~", "**", "+@", "-@",
		"<<", ">>", "<=", ">=", "+", "-", "*", "/", "%", "<", ">", "!", "&",
		"|", "^", "~", "`"
	};
	size_t		i;
	size_t		from;

	if (p->pos < p->len && (p->s[p->pos] == '"' || p->s[p->pos] == '\''))
		return parse_string(p, L_SYMBOL);
	TRY(new_node(p, L_SYMBOL, &i));
	from = p->pos;
	for (size_t k = 0; k < sizeof(operators) / sizeof(operators[0]); k++)
		if (at(p, operators[k]))
		{
			p->pos += strlen(operators[k]);
			goto done;
		}
	if (at(p, "@@"))
		p->pos += 2;
	else if (p->pos < p->len && (p->s[p->pos] == '@' || p->s[p->pos] == '$'))
		p->pos++;
	if (p->pos >= p->len || !ident_start((unsigned char) p->s[p->pos]))
		return syntax(p, start, "expected a symbol name after ':'");
	while (p->pos < p->len && ident_char((unsigned char) p->s[p->pos]))
		p->pos++;
	/* a method-name suffix: ? ! or = (but not => or ==) */
	if (p->pos < p->len && (p->s[p->pos] == '?' || p->s[p->pos] == '!'))
		p->pos++;
	else if (p->pos < p->len && p->s[p->pos] == '=' && !at(p, "=>") && !at(p, "=="))
		p->pos++;
done:
	TRY(put_bytes(p, p->s + from, p->pos - from));
	p->nodes[i].len = p->nbytes - p->nodes[i].off;
	if (!marshal_utf8_valid(node_bytes(p, &p->nodes[i]), p->nodes[i].len, false))
		return syntax(p, start, "symbol is not valid UTF-8");
	return MARSHAL_OK;
}

/*
 * Decimal digits with single underscores between them (a fraction, an
 * exponent), copied without the underscores.
 */
static MarshalStatus
put_decimal_run(Parser *p)
{
	while (p->pos < p->len && ((p->s[p->pos] >= '0' && p->s[p->pos] <= '9') ||
							   (p->s[p->pos] == '_' && p->pos + 1 < p->len &&
								p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9')))
	{
		if (p->s[p->pos] != '_')
			TRY(put_bytes(p, &p->s[p->pos], 1));
		p->pos++;
	}
	return MARSHAL_OK;
}

/* An Integer or a Float, with its optional sign already in *negative. */
static MarshalStatus
parse_number(Parser *p, bool negative)
{
	size_t		i;
	int			base = 10;
	bool		is_float = false;
	char		buf[512];
	size_t		n = 0;

	TRY(new_node(p, L_INT, &i));
	if (p->s[p->pos] == '0' && p->pos + 1 < p->len)
	{
		char		c = p->s[p->pos + 1];

		if (c == 'x' || c == 'X')
			base = 16, p->pos += 2;
		else if (c == 'b' || c == 'B')
			base = 2, p->pos += 2;
		else if (c == 'o' || c == 'O' || c == '_')
			base = 8, p->pos += 2;
		else if (c == 'd' || c == 'D')
			base = 10, p->pos += 2;
		else if (c >= '0' && c <= '7')
			base = 8, p->pos += 1;
		else if (c == '8' || c == '9')
			return syntax(p, p->pos + 1, "invalid octal digit");
	}
	/* digits with single underscores between them */
	for (;;)
	{
		size_t		from = p->pos;

		while (p->pos < p->len)
		{
			int			v = marshal_hex_digit(p->s[p->pos]);

			if (v < 0 || v >= base)
				break;
			p->pos++;
		}
		if (p->pos == from)
			return syntax(p, p->pos, "expected a digit");
		TRY(put_bytes(p, p->s + from, p->pos - from));
		if (p->pos + 1 < p->len && p->s[p->pos] == '_' && marshal_hex_digit(p->s[p->pos + 1]) >= 0 &&
			marshal_hex_digit(p->s[p->pos + 1]) < base)
		{
			p->pos++;
			continue;
		}
		break;
	}
	p->nodes[i].len = p->nbytes - p->nodes[i].off;
	p->nodes[i].base = base;
	p->nodes[i].negative = negative;
	if (base != 10)
		goto done;
	/* a fraction needs a digit after the dot (1.foo is a method call) */
	if (p->pos + 1 < p->len && p->s[p->pos] == '.' &&
		p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9')
	{
		is_float = true;
		TRY(put_bytes(p, ".", 1));
		p->pos++;
		TRY(put_decimal_run(p));
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E'))
	{
		size_t		save = p->pos;

		is_float = true;
		TRY(put_bytes(p, "e", 1));
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			TRY(put_bytes(p, &p->s[p->pos++], 1));
		if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
			return syntax(p, save, "expected exponent digits");
		TRY(put_decimal_run(p));
	}
	if (is_float)
	{
		size_t		off = p->nodes[i].off;

		char	   *t = buf;

		/* sign, digits and NUL; a long literal (Ruby takes any) on the heap */
		n = p->nbytes - off;
		if (n + 2 > sizeof(buf) && (t = marshal_realloc(p->walk.hooks, NULL, n + 2)) == NULL)
			return oom(p);
		t[0] = negative ? '-' : '+';
		for (size_t k = 0; k < n; k++)
			t[k + 1] = p->bytes[off + k] == '_' ? '0' : (char) p->bytes[off + k];
		t[n + 1] = '\0';
		p->nodes[i].type = L_FLOAT;
		p->nodes[i].d = strtod(t, NULL);
		if (t != buf)
			marshal_free(p->walk.hooks, t);
	}
done:
	if (p->pos < p->len && (ident_char((unsigned char) p->s[p->pos]) || p->s[p->pos] == '.'))
		return syntax(p, p->pos, "unexpected character after a number");
	return MARSHAL_OK;
}

static MarshalStatus
parse_container(Parser *p, char close, LitType type)
{
	size_t		i;
	size_t		start = p->pos;

	TRY(marshal_walk_deeper(&p->walk, p->pos));
	marshal_walk_check_stack(&p->walk, 8);
	TRY(new_node(p, type, &i));
	p->pos++;
	for (;;)
	{
		skip_space(p);
		if (p->pos < p->len && p->s[p->pos] == close)
			break;
		if (type == L_HASH)
		{
			/* key => value, key: value, or "str": value */
			size_t		keystart = p->pos;
			size_t		k = p->nnodes;

			if (p->pos < p->len && ident_start((unsigned char) p->s[p->pos]))
			{
				/* b: 2, but not true/false/nil used as keys */
				size_t		q = p->pos;

				while (q < p->len && ident_char((unsigned char) p->s[q]))
					q++;
				if (q < p->len && (p->s[q] == '?' || p->s[q] == '!'))
					q++;
				if (q < p->len && p->s[q] == ':' && !(q + 1 < p->len && p->s[q + 1] == ':'))
				{
					TRY(new_node(p, L_SYMBOL, &k));
					TRY(put_bytes(p, p->s + p->pos, q - p->pos));
					p->nodes[k].len = q - p->pos;
					p->pos = q + 1;
					goto value;
				}
			}
			TRY(parse_value(p));
			skip_hspace(p);
			if (p->nodes[k].type == L_STRING && p->pos < p->len && p->s[p->pos] == ':' &&
				(p->s[keystart] == '"' || p->s[keystart] == '\''))
			{
				/* "a b": 1 makes a Symbol */
				p->nodes[k].type = L_SYMBOL;
				p->pos++;
				if (!marshal_utf8_valid(node_bytes(p, &p->nodes[k]), p->nodes[k].len, true))
					return syntax(p, keystart, "symbol is not valid UTF-8");
				goto value;
			}
			if (!at(p, "=>"))
				return syntax(p, p->pos, "expected '=>' or ':' after a hash key");
			p->pos += 2;
	value:
			skip_space(p);
			TRY(parse_value(p));
		}
		else
			TRY(parse_value(p));
		p->nodes[i].count++;
		skip_hspace(p);
		if (p->pos < p->len && p->s[p->pos] == ',')
		{
			p->pos++;
			continue;
		}
		/* after a newline only the closing bracket may follow */
		skip_space(p);
		if (p->pos < p->len && p->s[p->pos] == close)
			break;
		return syntax(p, p->pos, "expected ',' or '%c'", close);
	}
	p->pos++;
	p->nodes[i].size = (uint32_t) (p->nnodes - i);
	p->walk.depth--;
	(void) start;
	return MARSHAL_OK;
}

/* Whether an identifier goes on n bytes past pos (Infinityx is no value). */
static bool
word_continues(Parser *p, size_t n)
{
	return p->pos + n < p->len && ident_char((unsigned char) p->s[p->pos + n]);
}

static MarshalStatus
parse_value(Parser *p)
{
	size_t		i;
	size_t		start;
	bool		negative = false;

	skip_space(p);
	start = p->pos;
	if (p->pos >= p->len)
		return syntax(p, p->pos, "expected a value");
	switch (p->s[p->pos])
	{
		case '[':
			return parse_container(p, ']', L_ARRAY);
		case '{':
			return parse_container(p, '}', L_HASH);
		case '"':
		case '\'':
			return parse_string(p, L_STRING);
		case ':':
			p->pos++;
			return parse_symbol_name(p, start);
		case '-':
		case '+':
			negative = p->s[p->pos] == '-';
			p->pos++;
			if (negative && at(p, "Float::INFINITY"))
			{
				p->pos += 15;
				return new_node(p, L_NEG_INF, &i);
			}
			if (negative && at(p, "Infinity") && !word_continues(p, 8))
			{
				p->pos += 8;
				return new_node(p, L_NEG_INF, &i);
			}
			if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
				return syntax(p, start, "expected a number after the sign");
			return parse_number(p, negative);
		default:
			break;
	}
	if (p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		return parse_number(p, false);
	if (at(p, "Float::INFINITY"))
	{
		p->pos += 15;
		return new_node(p, L_INF, &i);
	}
	if (at(p, "Float::NAN"))
	{
		p->pos += 10;
		return new_node(p, L_NAN, &i);
	}
	/* inspect's spelling of the constants, so inspect text reads back */
	if (at(p, "Infinity") && !word_continues(p, 8))
	{
		p->pos += 8;
		return new_node(p, L_INF, &i);
	}
	if (at(p, "NaN") && !word_continues(p, 3))
	{
		p->pos += 3;
		return new_node(p, L_NAN, &i);
	}
	{
		/* a word: only nil, true and false are values */
		size_t		q = p->pos;

		while (q < p->len && ident_char((unsigned char) p->s[q]))
			q++;
		if (q - p->pos == 3 && memcmp(p->s + p->pos, "nil", 3) == 0)
		{
			p->pos = q;
			return new_node(p, L_NIL, &i);
		}
		if (q - p->pos == 4 && memcmp(p->s + p->pos, "true", 4) == 0)
		{
			p->pos = q;
			return new_node(p, L_TRUE, &i);
		}
		if (q - p->pos == 5 && memcmp(p->s + p->pos, "false", 5) == 0)
		{
			p->pos = q;
			return new_node(p, L_FALSE, &i);
		}
	}
	return syntax(p, start, "expected a Ruby literal (nothing is evaluated)");
}

/* What writing the parsed tree needs. */
typedef struct Emit
{
	Parser	   *p;
	MarshalWriter *w;
	uint32_t   *limbs;			/* scratch for the longest Integer, twice */
	uint32_t   *limbs2;
	int64_t		nan_slot;		/* Float::NAN and Float::INFINITY: one object */
	int64_t		inf_slot;
} Emit;

/* Digits in base 2, 8, 10 or 16 (underscores removed) to 32-bit limbs. */
static size_t
int_limbs(const uint8_t *digits, size_t len, int base, uint32_t *limbs)
{
	size_t		nlimbs = 0;

	for (size_t k = 0; k < len; k++)
	{
		uint64_t	carry = (uint64_t) marshal_hex_digit(digits[k]);

		for (size_t j = 0; j < nlimbs; j++)
		{
			uint64_t	t = (uint64_t) limbs[j] * (uint64_t) base + carry;

			limbs[j] = (uint32_t) t;
			carry = t >> 32;
		}
		if (carry)
			limbs[nlimbs++] = (uint32_t) carry;
	}
	return nlimbs;
}

static void
write_integer(MarshalWriter *w, const uint8_t *digits, size_t len, int base,
			  bool negative, uint32_t *limbs)
{
	size_t		nlimbs = int_limbs(digits, len, base, limbs);

	/* little-endian bytes of the magnitude, in place, word by word */
	for (size_t j = 0; j < nlimbs; j++)
	{
		uint32_t	v = limbs[j];
		uint8_t    *b = (uint8_t *) &limbs[j];

		b[0] = (uint8_t) v;
		b[1] = (uint8_t) (v >> 8);
		b[2] = (uint8_t) (v >> 16);
		b[3] = (uint8_t) (v >> 24);
	}
	marshal_write_bignum(w, negative, (const uint8_t *) limbs, nlimbs * 4);
}

/*
 * Hash keys as Ruby merges them.  The parser first drops an earlier pair
 * whose key is the same literal as a later one (strings, symbols, integers,
 * floats of the same bits): the later pair keeps its place.  Evaluating
 * the rest is Hash#[]=: a key eql? to an earlier one (nil, -0.0 and 0.0,
 * Float::NAN twice, equal arrays) keeps the first key's place and takes
 * the last value.
 */
static bool
is_float_node(const LitNode *n)
{
	return n->type == L_FLOAT || n->type == L_NAN || n->type == L_INF ||
		n->type == L_NEG_INF;
}

static double
float_of(const LitNode *n)
{
	return n->type == L_FLOAT ? n->d : n->type == L_INF ? INFINITY :
		n->type == L_NEG_INF ? -INFINITY : NAN;
}

static bool
is_literal_key(const LitNode *n)
{
	return n->type == L_STRING || n->type == L_SYMBOL || n->type == L_INT ||
		n->type == L_FLOAT;
}

static uint64_t
mix(uint64_t h, const void *data, size_t len)
{
	const uint8_t *b = data;

	for (size_t k = 0; k < len; k++)
		h = (h ^ b[k]) * 0x100000001b3ULL;	/* FNV-1a */
	return h;
}

/* A hash of node i consistent with key_eql (and so with literal_eq). */
static uint64_t
key_hash(Emit *e, size_t i)
{
	const LitNode *n = &e->p->nodes[i];
	uint64_t	h = 0xcbf29ce484222325ULL;
	int			cls = is_float_node(n) ? L_FLOAT : n->type;

	h = mix(h, &cls, sizeof(cls));
	switch (n->type)
	{
		case L_INT:
			{
				size_t		nl = int_limbs(node_bytes(e->p, n), n->len, n->base, e->limbs);
				bool		neg = n->negative && nl > 0;

				h = mix(h, &neg, sizeof(neg));
				return mix(h, e->limbs, nl * sizeof(uint32_t));
			}
		case L_FLOAT:
		case L_NAN:
		case L_INF:
		case L_NEG_INF:
			{
				double		d = float_of(n);

				if (d == 0.0)
					d = 0.0;	/* -0.0 eql? 0.0 */
				return isnan(d) ? h : mix(h, &d, sizeof(d));
			}
		case L_STRING:
		case L_SYMBOL:
			return mix(h, node_bytes(e->p, n), n->len);
		case L_ARRAY:
		case L_HASH:
			{
				size_t		c = i + 1;
				uint32_t	items = n->count * (n->type == L_HASH ? 2 : 1);

				h = mix(h, &n->count, sizeof(n->count));
				for (uint32_t k = 0; k < items; k++)
				{
					uint64_t	sub = key_hash(e, c);

					h = mix(h, &sub, sizeof(sub));
					c += e->p->nodes[c].size;
				}
				return h;
			}
		default:
			return h;
	}
}

static bool
int_eq(Emit *e, const LitNode *a, const LitNode *b)
{
	size_t		na = int_limbs(node_bytes(e->p, a), a->len, a->base, e->limbs);
	size_t		nb = int_limbs(node_bytes(e->p, b), b->len, b->base, e->limbs2);

	return na == nb && (na == 0 || a->negative == b->negative) &&
		memcmp(e->limbs, e->limbs2, na * sizeof(uint32_t)) == 0;
}

/* The same literal key, as the parser compares them. */
static bool
literal_eq(Emit *e, size_t i, size_t j)
{
	const LitNode *a = &e->p->nodes[i];
	const LitNode *b = &e->p->nodes[j];

	if (!is_literal_key(a) || a->type != b->type)
		return false;
	if (a->type == L_INT)
		return int_eq(e, a, b);
	if (a->type == L_FLOAT)
		return memcmp(&a->d, &b->d, sizeof(double)) == 0;
	return a->len == b->len &&
		memcmp(node_bytes(e->p, a), node_bytes(e->p, b), a->len) == 0;
}

/* Ruby's eql? between two evaluated keys. */
static bool
key_eql(Emit *e, size_t i, size_t j)
{
	const LitNode *a = &e->p->nodes[i];
	const LitNode *b = &e->p->nodes[j];

	if (is_float_node(a) || is_float_node(b))
	{
		if (!is_float_node(a) || !is_float_node(b))
			return false;
		/* NaN is only the Float::NAN constant here: one object */
		if (a->type == L_NAN || b->type == L_NAN)
			return a->type == b->type;
		return float_of(a) == float_of(b);
	}
	if (a->type != b->type || a->count != b->count)
		return false;
	switch (a->type)
	{
		case L_INT:
			return int_eq(e, a, b);
		case L_STRING:
		case L_SYMBOL:
			return a->len == b->len &&
				memcmp(node_bytes(e->p, a), node_bytes(e->p, b), a->len) == 0;
		case L_ARRAY:
		case L_HASH:
			{
				size_t		ca = i + 1;
				size_t		cb = j + 1;
				uint32_t	items = a->count * (a->type == L_HASH ? 2 : 1);

				for (uint32_t k = 0; k < items; k++)
				{
					if (!key_eql(e, ca, cb))
						return false;
					ca += e->p->nodes[ca].size;
					cb += e->p->nodes[cb].size;
				}
				return true;
			}
		default:
			return true;		/* nil, true, false */
	}
}

typedef struct KeyRef
{
	uint64_t	hash;
	uint32_t	pair;
} KeyRef;

static int
cmp_keyref(const void *x, const void *y)
{
	const KeyRef *a = x;
	const KeyRef *b = y;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->pair < b->pair ? -1 : a->pair > b->pair;
}

static MarshalStatus write_tree(Emit *e, size_t i, bool key);

/* A Hash literal: its pairs merged as Ruby merges them, then written. */
static MarshalStatus
write_hash(Emit *e, size_t i)
{
	Parser	   *p = e->p;
	uint32_t	n = p->nodes[i].count;
	size_t	   *keyat = marshal_realloc(p->walk.hooks, NULL, (n + 1) * sizeof(size_t));
	size_t	   *valat = marshal_realloc(p->walk.hooks, NULL, (n + 1) * sizeof(size_t));
	KeyRef	   *refs = marshal_realloc(p->walk.hooks, NULL, (n + 1) * sizeof(KeyRef));
	bool	   *alive = marshal_realloc(p->walk.hooks, NULL, (n + 1) * sizeof(bool));
	size_t		c = i + 1;
	uint32_t	live = 0;
	MarshalStatus st = MARSHAL_OK;

	if (!keyat || !valat || !refs || !alive)
	{
		st = oom(p);
		goto out;
	}
	for (uint32_t k = 0; k < n; k++)
	{
		keyat[k] = c;
		c += p->nodes[c].size;
		valat[k] = c;
		c += p->nodes[c].size;
		alive[k] = true;
		refs[k].hash = key_hash(e, keyat[k]);
		refs[k].pair = k;
	}
	/* equal keys have equal hashes: compare only within a run */
	qsort(refs, n, sizeof(KeyRef), cmp_keyref);
	for (uint32_t a = 0; a < n;)
	{
		uint32_t	b = a;

		while (b < n && refs[b].hash == refs[a].hash)
			b++;
		/* the parser's pass: an earlier same literal is dropped */
		for (uint32_t x = a; x < b; x++)
			for (uint32_t y = x + 1; y < b; y++)
				if (literal_eq(e, keyat[refs[x].pair], keyat[refs[y].pair]))
				{
					alive[refs[x].pair] = false;
					break;
				}
		/* Hash#[]=: a later eql? key gives its value to the first */
		for (uint32_t x = a; x < b; x++)
		{
			uint32_t	px = refs[x].pair;

			if (!alive[px])
				continue;
			for (uint32_t y = x + 1; y < b; y++)
			{
				uint32_t	py = refs[y].pair;

				if (alive[py] && key_eql(e, keyat[px], keyat[py]))
				{
					valat[px] = valat[py];
					alive[py] = false;
				}
			}
		}
		a = b;
	}
	for (uint32_t k = 0; k < n; k++)
		live += alive[k];
	marshal_write_hash(e->w, live);
	for (uint32_t k = 0; k < n && st == MARSHAL_OK; k++)
	{
		if (!alive[k])
			continue;
		/* hash literal String keys are frozen, deduplicated */
		st = write_tree(e, keyat[k], true);
		if (st == MARSHAL_OK)
			st = write_tree(e, valat[k], false);
	}
out:
	marshal_free(p->walk.hooks, keyat);
	marshal_free(p->walk.hooks, valat);
	marshal_free(p->walk.hooks, refs);
	marshal_free(p->walk.hooks, alive);
	return st;
}

static MarshalStatus
write_tree(Emit *e, size_t i, bool key)
{
	Parser	   *p = e->p;
	MarshalWriter *w = e->w;
	LitNode    *n = &p->nodes[i];
	const uint8_t *b = node_bytes(p, n);

	switch (n->type)
	{
		case L_NIL:
			marshal_write_nil(w);
			break;
		case L_TRUE:
		case L_FALSE:
			marshal_write_bool(w, n->type == L_TRUE);
			break;
		case L_INT:
			write_integer(w, b, n->len, n->base, n->negative, e->limbs);
			break;
		case L_FLOAT:
		case L_NEG_INF:
			marshal_write_float(w, n->type == L_FLOAT ? n->d : -INFINITY);
			break;
		case L_NAN:
		case L_INF:
			{
				/* a constant: one object, linked where it repeats */
				int64_t    *slot = n->type == L_NAN ? &e->nan_slot : &e->inf_slot;

				if (*slot >= 0)
					marshal_write_link(w, (uint32_t) *slot);
				else
				{
					*slot = marshal_writer_objects(w);
					marshal_write_float(w, n->type == L_NAN ? NAN : INFINITY);
				}
				break;
			}
		case L_STRING:
			if (key)
				marshal_write_key(w, b, n->len);
			else
				marshal_write_string(w, b, n->len, MENC_UTF8);
			break;
		case L_SYMBOL:
			marshal_write_symbol(w, b, n->len);
			break;
		case L_HASH:
			return write_hash(e, i);
		case L_ARRAY:
			{
				size_t		c = i + 1;

				marshal_write_array(w, n->count);
				for (uint32_t k = 0; k < n->count; k++)
				{
					TRY(write_tree(e, c, false));
					c += p->nodes[c].size;
				}
				break;
			}
	}
	return MARSHAL_OK;
}

MarshalStatus
marshal_from_literal(const char *text, size_t len, const MarshalHooks *hooks,
					 uint32_t max_depth, uint8_t **out, size_t *outlen,
					 MarshalError *err)
{
	Parser		p;
	MarshalStatus st;
	uint32_t   *limbs = NULL;
	size_t		maxdigits = 0;

	memset(&p, 0, sizeof(p));
	marshal_walk_start(&p.walk, hooks, max_depth, err);
	p.s = text;
	p.len = len;

	st = parse_value(&p);
	if (st == MARSHAL_OK)
	{
		skip_space(&p);
		if (p.pos != p.len)
			st = syntax(&p, p.pos, "unexpected text after the value");
	}
	if (st == MARSHAL_OK)
	{
		MarshalWriter *w = marshal_writer_new(hooks);
		Emit		e;

		/* scratch for the longest Integer's limbs, twice (to compare two) */
		for (size_t k = 0; k < p.nnodes; k++)
			if (p.nodes[k].type == L_INT && p.nodes[k].len > maxdigits)
				maxdigits = p.nodes[k].len;
		limbs = marshal_realloc(p.walk.hooks, NULL, 2 * (maxdigits / 2 + 2) * sizeof(uint32_t));
		if (w == NULL || limbs == NULL)
		{
			marshal_writer_free(w);
			st = oom(&p);
		}
		else
		{
			e.p = &p;
			e.w = w;
			e.limbs = limbs;
			e.limbs2 = limbs + maxdigits / 2 + 2;
			e.nan_slot = -1;
			e.inf_slot = -1;
			st = write_tree(&e, 0, false);
			if (st == MARSHAL_OK)
			{
				st = marshal_writer_finish(w, out, outlen);
				if (st != MARSHAL_OK)
					st = oom(&p);
			}
			else
				marshal_writer_free(w);
		}
	}
	marshal_free(p.walk.hooks, limbs);
	marshal_free(p.walk.hooks, p.nodes);
	marshal_free(p.walk.hooks, p.bytes);
	return st;
}
