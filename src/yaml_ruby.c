/*
 * yaml_ruby.c
 *		The document tree -> the Ruby object graph Psych 4's ToRuby builds.
 *
 * Nodes are visited in document order with Psych's anchor table (a name
 * maps to the object last registered under it; containers register before
 * their children, scalars after), so shared objects and cycles come out as
 * Ruby has them.  Hashes follow Hash#[]=: String keys are frozen and
 * interned (yr_deduplicate in yaml_hash.c), a repeated key keeps its place and takes the new
 * value; merge keys follow revive_hash.  Objects of named classes get the
 * mapping as instance variables, except the classes whose Ruby code
 * (init_with, ActiveSupport's HashWithIndifferentAccess, the Hash tags
 * ActionController routes to its Parameters' init_with) builds something
 * else: those are built as that code does, keeping or copying what an alias
 * shares as that code does.  In safe mode each class Psych's
 * ClassLoader would look up must be permitted.
 */
#include "yaml_internal.h"

#include <stddef.h>
#include <string.h>

/* ActiveSupport::TimeZone::MAPPING (plain C data, shared with the zones hook) */
#include "rbmarshal_zones.h"

/* --- safe mode ----------------------------------------------------------- */

void
yr_permit(YState *st, const YNode *n, const char *cls)
{
	const YamlOptions *o = st->opts;

	if (!o->safe)
		return;
	for (size_t i = 0; i < o->npermitted; i++)
		if (strcmp(o->permitted[i], cls) == 0)
			return;
	yr_fail_at(st, n, MARSHAL_ERR_UNSUPPORTED,
				 "Tried to load unspecified class: %s", cls);
}

/*
 * The class a tag names, as Psych's ClassLoader finds it: permitted in safe
 * mode by the name as written, then the constant it is (ActiveSupport makes
 * HashWithIndifferentAccess a top-level alias, which Syck-era YAML uses).
 */
const char *
yr_class(YState *st, const YNode *n, const char *name)
{
	yr_permit(st, n, name);
	if (strcmp(name, "HashWithIndifferentAccess") == 0)
		return "ActiveSupport::HashWithIndifferentAccess";
	return name;
}

/*
 * The class of a String, Array or Hash tag: NULL when it names the base
 * class itself (Marshal writes no "C" for a plain Array).
 */
static const char *
base_or_subclass(YState *st, const YNode *n, const char *name, const char *base)
{
	name = yr_class(st, n, name);
	return strcmp(name, base) == 0 ? NULL : name;
}

/* --- the visitor ----------------------------------------------------------- */

static RVal *visit(YState *st, YNode *n);

static RVal *
reg(YState *st, YNode *n, RVal *v)
{
	if (n->anchor >= 0)
		st->anchor_values[n->anchor] = v;
	return v;
}

/* Does tag start with prefix; *rest is what follows it */
static bool
tag_is(const char *tag, const char *prefix, const char **rest)
{
	size_t		n = strlen(prefix);

	if (tag == NULL || strncmp(tag, prefix, n) != 0)
		return false;
	if (rest)
		*rest = tag + n;
	return true;
}

/* A class name from a tag suffix: NULL when empty (Psych's load -> nil) */
static const char *
class_name(const char *s)
{
	return s && *s ? s : NULL;
}

static bool
str_is(const RVal *v, const char *s)
{
	return v && v->kind == RV_STRING && v->len == strlen(s) &&
		memcmp(v->str, s, v->len) == 0;
}

/* unpack('m'): base64, skipping what is not in the alphabet */
static RVal *
base64(YState *st, const char *s, size_t len)
{
	char	   *out = yr_alloc(st, len * 3 / 4 + 4);
	size_t		n = 0;
	uint32_t	acc = 0;
	int			bits = 0;

	for (size_t i = 0; i < len; i++)
	{
		int			c = (uint8_t) s[i];
		int			d;

		if ((i & (YAML_INTERRUPT_BYTES - 1)) == YAML_INTERRUPT_BYTES - 1)
			yr_progress(st, YAML_INTERRUPT_BYTES);
		if (c >= 'A' && c <= 'Z')
			d = c - 'A';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			d = c - '0' + 52;
		else if (c == '+')
			d = 62;
		else if (c == '/')
			d = 63;
		else if (c == '=')
			break;
		else
			continue;
		acc = acc << 6 | (uint32_t) d;
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			out[n++] = (char) (acc >> bits);
		}
	}
	return yr_string(st, out, n, MENC_BINARY);
}

static RVal *
regexp(YState *st, YNode *n)
{
	const char *s = n->value;
	size_t		len = n->len;
	size_t		end;
	int			opts = 0;
	bool		ascii = true;
	RVal	   *v;

	yr_permit(st, n, "Regexp");
	/* /^\/(.*)\/([mixn]*)$/m */
	for (end = len; end > 0 && strchr("mixn", s[end - 1]) && s[end - 1]; end--)
		;
	if (len < 2 || s[0] != '/' || end < 2 || s[end - 1] != '/')
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "not a !ruby/regexp: no /source/");
	for (size_t i = end; i < len; i++)
		opts |= s[i] == 'i' ? 1 : s[i] == 'x' ? 2 : s[i] == 'm' ? 4 : 32;
	v = yr_new(st, RV_REGEXP);
	v->str = s + 1;
	v->len = end - 2;
	for (size_t i = 0; i < v->len; i++)
		ascii &= (uint8_t) v->str[i] < 0x80;
	v->enc = ascii ? MENC_USASCII : MENC_UTF8;
	v->ival = opts | (ascii ? 0 : 16);
	return v;
}

/* Range.new(a, b, excl): ArgumentError unless a <=> b works */
static RVal *
range(YState *st, YNode *n, RVal *a, RVal *b, RVal *excl)
{
	RVal	   *v;
	bool		num_a = a->kind == RV_INT || a->kind == RV_BIGINT || a->kind == RV_FLOAT;
	bool		num_b = b->kind == RV_INT || b->kind == RV_BIGINT || b->kind == RV_FLOAT;

	yr_permit(st, n, "Range");
	if (!(a->kind == RV_NIL || b->kind == RV_NIL || (num_a && num_b) ||
		  (a->kind == b->kind && a->kind != RV_HASH && a->kind != RV_ARRAY &&
		   a->kind != RV_OBJECT && a->kind != RV_TRUE && a->kind != RV_FALSE)))
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "bad value for range");
	v = yr_new(st, RV_OBJECT);
	v->cls = "Range";
	yr_ivar_set(st, v, "excl", 4, excl);
	yr_ivar_set(st, v, "begin", 5, a);
	yr_ivar_set(st, v, "end", 3, b);
	return v;
}

static RVal *
range_scalar(YState *st, YNode *n)
{
	const char *s = n->value;
	size_t		len = n->len;
	size_t		i;
	size_t		dots;
	YNode		side;

	yr_permit(st, n, "Range");
	for (i = 0; i + 1 < len && !(s[i] == '.' && s[i + 1] == '.'); i++)
		;
	if (i + 1 >= len)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "bad value for range");
	dots = i + 2 < len && s[i + 2] == '.' ? 3 : 2;
	side = *n;
	side.anchor = -1;
	side.tag = NULL;
	{
		RVal	   *a = yr_tokenize(st, &side, yr_strdup(st, s, i), i);
		RVal	   *b = yr_tokenize(st, &side, yr_strdup(st, s + i + dots, len - i - dots),
									  len - i - dots);

		return range(st, n, a, b, dots == 3 ? st->rtrue : st->rfalse);
	}
}

/*
 * Rational("3/4") of [+-]digits[/digits]: num and den.  Ruby's String
 * conversion also reads "1.5", "1e3", "1_0" and spaces: refused here (a
 * text of only digits, signs and slashes that is not of this form Ruby
 * refuses too).
 */
static void
rational_text(YState *st, YNode *n, const char *s, size_t len, RVal **num, RVal **den)
{
	size_t		i = len > 0 && (s[0] == '-' || s[0] == '+');
	size_t		start = i;
	size_t		slash = 0;
	bool		ok;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	ok = i > start;
	if (ok && i < len && s[i] == '/')
	{
		slash = i++;
		start = i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		ok = i > start;
	}
	if (!ok || i != len)
	{
		for (i = 0; i < len; i++)
			if (!(s[i] == '/' || s[i] == '-' || s[i] == '+' || (s[i] >= '0' && s[i] <= '9')))
				yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						   "a !ruby/object:Rational other than num/den");
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
				   "invalid value for convert(): \"%.*s\"", (int) (len < 60 ? len : 60), s);
	}
	*num = yr_int_from_text(st, s, slash ? slash : len);
	if (slash)
		*den = yr_int_from_text(st, s + slash + 1, len - slash - 1);
	else
	{
		*den = yr_new(st, RV_INT);
		(*den)->ival = 1;
	}
}

/* Rational("3/4"), Rational("-7"): Integer parts only here */
static RVal *
rational_scalar(YState *st, YNode *n)
{
	RVal	   *num;
	RVal	   *den;

	yr_permit(st, n, "Rational");
	rational_text(st, n, n->value, n->len, &num, &den);
	return yr_rational(st, n, num, den);
}

/*
 * A part of the mapping form Rational(h["numerator"], h["denominator"]): a
 * String of an Integer's digits is that Integer (Rational() converts it);
 * another value as it is (yr_rational takes Integers only)
 */
static RVal *
rational_part(YState *st, YNode *n, RVal *v)
{
	RVal	   *num;
	RVal	   *den;

	if (v == NULL || v->kind != RV_STRING)
		return v;
	rational_text(st, n, v->str, v->len, &num, &den);
	if (den->kind != RV_INT || den->ival != 1 || memchr(v->str, '/', v->len))
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "a Rational part \"a/b\"");
	return num;
}

/* A number of Complex("a+bi"): an Integer or a Float */
static RVal *
number_of(YState *st, YNode *n, const char *s, size_t len)
{
	double		d;
	bool		isint = len > 0;

	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (i == 0 && (s[i] == '-' || s[i] == '+'))))
			isint = false;
	if (isint && !(len == 1 && (s[0] == '-' || s[0] == '+')))
		return yr_int_from_text(st, s, len);
	if (yr_ruby_float(s, len, &d))
		return yr_float(st, d);
	yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "a !ruby/object:Complex other than a+bi");
}

static RVal *
complex_of(YState *st, RVal *re, RVal *im)
{
	RVal	   *v = yr_new(st, RV_USRMARSHAL);

	v->cls = "Complex";
	v->data = yr_new(st, RV_ARRAY);
	yr_push(st, &v->data->items, re);
	yr_push(st, &v->data->items, im);
	return v;
}

static RVal *
complex_scalar(YState *st, YNode *n)
{
	const char *s = n->value;
	size_t		len = n->len;
	size_t		split = 0;
	RVal	   *zero = yr_new(st, RV_INT);

	yr_permit(st, n, "Complex");
	if (len == 0)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "an empty !ruby/object:Complex");
	if (s[len - 1] != 'i')
		return complex_of(st, number_of(st, n, s, len), zero);
	/* the sign that starts the imaginary part (not one after an e) */
	for (size_t i = 1; i < len; i++)
		if ((s[i] == '+' || s[i] == '-') && s[i - 1] != 'e' && s[i - 1] != 'E')
			split = i;
	{
		size_t		il = len - 1 - split;
		RVal	   *im;

		if (il == 0 || (il == 1 && (s[split] == '+' || s[split] == '-')))
		{
			im = yr_new(st, RV_INT);
			im->ival = il == 1 && s[split] == '-' ? -1 : 1;
		}
		else
			im = number_of(st, n, s + split, il);
		return complex_of(st, split ? number_of(st, n, s, split) : zero, im);
	}
}

/*
 * A part of the mapping form Complex(h["real"], h["image"]): a String is read
 * as Kernel#Complex reads it, here an Integer, a Float or "a/b" (YAML.dump of
 * a Rational part); another value as it is.
 */
static RVal *
complex_part(YState *st, YNode *n, RVal *v)
{
	const char *slash;

	if (v == NULL)
		return st->nil;
	if (v->kind != RV_STRING)
		return v;
	slash = memchr(v->str, '/', v->len);
	if (slash == NULL)
		return number_of(st, n, v->str, v->len);
	{
		RVal	   *num = number_of(st, n, v->str, (size_t) (slash - v->str));
		RVal	   *den = number_of(st, n, slash + 1, v->len - (size_t) (slash + 1 - v->str));

		if (num->kind == RV_FLOAT || den->kind == RV_FLOAT)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "a !ruby/object:Complex other than a+bi");
		return yr_rational(st, n, num, den);
	}
}

/* Classes, modules and encodings are one object each: a repeat links */
static RVal *
singleton(YState *st, RKind kind, const char *name, size_t len)
{
	RVal	   *v;

	for (uint32_t i = 0; i < st->singletons.n; i++)
	{
		v = st->singletons.v[i];
		if (v->kind == kind && v->len == len && memcmp(v->str, name, len) == 0)
			return v;
	}
	v = yr_new(st, kind);
	v->str = name;
	v->len = len;
	yr_push(st, &st->singletons, v);
	return v;
}

static RVal *
class_value(YState *st, YNode *n, bool module)
{
	yr_permit(st, n, n->value);
	return singleton(st, module ? RV_MODULE : RV_CLASS, n->value, n->len);
}

static RVal *
scalar(YState *st, YNode *n)
{
	const char *tag = n->tag;
	const char *rest;

	if (n->quoted)
		return yr_string(st, n->value, n->len, MENC_UTF8);
	if (tag == NULL)
		return yr_tokenize(st, n, n->value, n->len);
	if (strcmp(tag, "!binary") == 0 || strcmp(tag, "tag:yaml.org,2002:binary") == 0)
		return base64(st, n->value, n->len);
	if (strcmp(tag, "tag:yaml.org,2002:str") == 0 || strcmp(tag, "!str") == 0 ||
		strcmp(tag, "!ruby/string") == 0 ||
		((tag_is(tag, "!str:", &rest) || tag_is(tag, "!ruby/string:", &rest))))
	{
		RVal	   *v = yr_string(st, n->value, n->len, MENC_UTF8);

		if (tag_is(tag, "!str:", &rest) || tag_is(tag, "!ruby/string:", &rest))
		{
			v->cls = class_name(rest);
			if (v->cls)
				v->cls = base_or_subclass(st, n, v->cls, "String");
		}
		return v;
	}
	if (strcmp(tag, "!ruby/object:BigDecimal") == 0)
	{
		yr_permit(st, n, "BigDecimal");
		return yr_bigdecimal(st, n, n->value, n->len);
	}
	if (strcmp(tag, "!ruby/object:DateTime") == 0)
	{
		RVal	   *t;

		yr_permit(st, n, "DateTime");
		yr_permit(st, n, "Time");
		t = yr_parse_time(st, n, n->value, n->len);
		if (t == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "argument out of range");
		return yr_datetime(st, t);
	}
	if (strcmp(tag, "!ruby/encoding") == 0)
	{
		/* Encoding.find: Encoding#_dump is the found encoding's name */
		size_t		len;
		const char *name = yr_encoding_name(n->value, n->len, &len);
		RVal	   *v;

		if (name && len == 0)
			return st->nil;
		if (name == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "unknown encoding name - %.60s",
					   n->value);
		v = singleton(st, RV_USERDEF, name, len);
		v->cls = "Encoding";
		v->enc = MENC_USASCII;
		return v;
	}
	if (strcmp(tag, "!ruby/object:Complex") == 0)
		return complex_scalar(st, n);
	if (strcmp(tag, "!ruby/object:Rational") == 0)
		return rational_scalar(st, n);
	if (strcmp(tag, "!ruby/class") == 0 || strcmp(tag, "!ruby/module") == 0)
		return class_value(st, n, tag[6] == 'm');
	if (strcmp(tag, "tag:yaml.org,2002:float") == 0 || strcmp(tag, "!float") == 0)
	{
		RVal	   *v = yr_tokenize(st, n, n->value, n->len);
		double		d;

		if (v->kind == RV_INT)
			return yr_float(st, (double) v->ival);
		if (v->kind == RV_FLOAT)
			return v;
		if (v->kind == RV_STRING && yr_ruby_float(v->str, v->len, &d))
			return yr_float(st, d);
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "can't convert to Float");
	}
	if (strcmp(tag, "!ruby/regexp") == 0)
		return regexp(st, n);
	if (strcmp(tag, "!ruby/range") == 0)
		return range_scalar(st, n);
	if (tag_is(tag, "!ruby/sym", &rest) &&
		(*rest == '\0' || *rest == ':' || strncmp(rest, "bol", 3) == 0))
		return yr_symbol(st, n, n->value, n->len);
	return yr_tokenize(st, n, n->value, n->len);
}

static RVal *
seq(YState *st, YNode *n)
{
	const char *rest;
	RVal	   *v;

	if (n->tag && (strcmp(n->tag, "!omap") == 0 ||
				   strcmp(n->tag, "tag:yaml.org,2002:omap") == 0))
	{
		/* Psych::Omap.new: no class lookup, allowed in safe mode */
		v = reg(st, n, yr_new(st, RV_HASH));
		v->cls = "Psych::Omap";
		for (uint32_t i = 0; i < n->nkids; i++)
		{
			YNode	   *a = n->kids[i];
			RVal	   *k;

			if ((a->kind != YN_SEQ && a->kind != YN_MAP) || a->nkids == 0)
				yr_fail_at(st, a, MARSHAL_ERR_UNREPRESENTABLE,
							 "an !omap entry that is not a one-pair mapping");
			k = yr_deduplicate(st, visit(st, a->kids[0]));
			yr_hash_set(st, v, k, visit(st, a->kids[a->nkids - 1]));
		}
		return v;
	}
	v = yr_new(st, RV_ARRAY);
	if (n->tag && (tag_is(n->tag, "!seq:", &rest) || tag_is(n->tag, "!ruby/array:", &rest)))
	{
		v->cls = class_name(rest);
		if (v->cls == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "no class in %s", n->tag);
		v->cls = base_or_subclass(st, n, v->cls, "Array");
	}
	reg(st, n, v);
	yr_reserve(st, &v->items, n->nkids);
	for (uint32_t i = 0; i < n->nkids; i++)
		yr_push(st, &v->items, visit(st, n->kids[i]));
	return v;
}

/* --- HashWithIndifferentAccess's conversions ------------------------------ */

static bool is_hwia(const RVal *v);
static RVal *hwia_convert(YState *st, const YNode *n, RVal *value, bool assignment);
static RVal *convert_nested(YState *st, const YNode *n, RVal *value, bool assignment);

static bool
is_hwia(const RVal *v)
{
	return v->kind == RV_HASH && v->cls &&
		strcmp(v->cls, "ActiveSupport::HashWithIndifferentAccess") == 0;
}

/* convert_key: a Symbol becomes its name, a frozen String */
static RVal *
hwia_key(YState *st, RVal *key)
{
	RVal	   *k;
	bool		ascii = true;

	if (key->kind != RV_SYMBOL)
		return yr_deduplicate(st, key);
	for (size_t i = 0; i < key->len; i++)
		ascii &= (uint8_t) key->str[i] < 0x80;
	k = yr_string(st, key->str, key->len, ascii ? MENC_USASCII : MENC_UTF8);
	k->frozen = true;
	return k;
}

/* HashWithIndifferentAccess.new(hash): update with each converted pair */
static RVal *
hwia_new(YState *st, const YNode *n, RVal *from)
{
	RVal	   *h = yr_new(st, RV_HASH);

	h->cls = "ActiveSupport::HashWithIndifferentAccess";
	yr_charge(st, n, from->items.n);
	for (uint32_t p = 0; p + 1 < from->items.n; p += 2)
		yr_hash_set(st, h, hwia_key(st, from->items.v[p]),
					  hwia_convert(st, n, from->items.v[p + 1], false));
	if (from->dflt)
		h->dflt = from->dflt;
	return h;
}

static RVal *
hwia_convert(YState *st, const YNode *n, RVal *value, bool assignment)
{
	RVal	   *res;

	if (value->kind != RV_HASH && value->kind != RV_ARRAY)
		return value;
	/* a cycle recurses until Ruby's stack runs out: here, the depth limit */
	if (++st->depth > st->opts->max_depth)
		yr_fail_at(st, n, MARSHAL_ERR_DEPTH, "nesting deeper than %u", st->opts->max_depth);
	if (st->arena.hooks && st->arena.hooks->check_stack)
		st->arena.hooks->check_stack(st->arena.hooks->ctx);
	res = convert_nested(st, n, value, assignment);
	st->depth--;
	return res;
}

static RVal *
convert_nested(YState *st, const YNode *n, RVal *value, bool assignment)
{
	if (value->kind == RV_HASH)
		return is_hwia(value) ? value : hwia_new(st, n, value);
	if (value->kind == RV_ARRAY)
	{
		RVal	   *a = value;

		if (!assignment)
		{
			a = yr_new(st, RV_ARRAY);
			*a = *value;
			a->slot = 0;
			a->items.v = NULL;
			a->items.n = a->items.cap = 0;
			for (uint32_t i = 0; i < value->items.n; i++)
				yr_push(st, &a->items, value->items.v[i]);
		}
		yr_charge(st, n, a->items.n);
		for (uint32_t i = 0; i < a->items.n; i++)
			a->items.v[i] = hwia_convert(st, n, a->items.v[i], assignment);
		return a;
	}
	return value;
}

/* hash[key] = val, through HashWithIndifferentAccess#[]= where it is one */
static void
hash_store(YState *st, const YNode *n, RVal *h, RVal *key, RVal *val)
{
	if (is_hwia(h))
		yr_hash_set(st, h, hwia_key(st, key), hwia_convert(st, n, val, true));
	else
		yr_hash_set(st, h, key, val);
}

/* hash.merge!(other) */
static void
merge(YState *st, const YNode *n, RVal *h, RVal *other)
{
	yr_charge(st, n, other->items.n);
	if (is_hwia(h) && !is_hwia(other))
	{
		for (uint32_t p = 0; p + 1 < other->items.n; p += 2)
			yr_hash_set(st, h, hwia_key(st, other->items.v[p]),
						  hwia_convert(st, n, other->items.v[p + 1], false));
		return;
	}
	for (uint32_t p = 0; p + 1 < other->items.n; p += 2)
		yr_hash_set(st, h, other->items.v[p], other->items.v[p + 1]);
}

/* ToRuby#revive_hash */
static RVal *
revive_hash(YState *st, RVal *h, YNode *n)
{
	yr_reserve(st, &h->items, n->nkids);
	for (uint32_t i = 0; i + 1 < n->nkids; i += 2)
	{
		YNode	   *kn = n->kids[i];
		YNode	   *vn = n->kids[i + 1];
		RVal	   *key = visit(st, kn);
		RVal	   *val = visit(st, vn);

		if (str_is(key, "<<") && !(kn->tag && strcmp(kn->tag, "tag:yaml.org,2002:str") == 0))
		{
			if (vn->kind == YN_ALIAS || vn->kind == YN_MAP)
			{
				if (val->kind == RV_HASH)
				{
					merge(st, vn, h, val);
					continue;
				}
				/* HWIA#update calls to_hash: NoMethodError, not rescued */
				if (is_hwia(h))
					yr_fail_at(st, vn, MARSHAL_ERR_UNREPRESENTABLE,
							   "undefined method `to_hash' (a HashWithIndifferentAccess merging a non-Hash)");
			}
			else if (vn->kind == YN_SEQ)
			{
				bool		all = true;

				for (uint32_t j = 0; j < val->items.n && all; j++)
					all = val->items.v[j]->kind == RV_HASH;
				if (all && val->kind == RV_ARRAY)
				{
					RVal	   *m = yr_new(st, RV_HASH);

					for (uint32_t j = val->items.n; j-- > 0;)
						merge(st, vn, m, val->items.v[j]);
					merge(st, vn, h, m);
					continue;
				}
			}
			hash_store(st, kn, h, yr_deduplicate(st, key), val);
			continue;
		}
		/* a key no alias can reach is frozen where it is: no copy */
		if (kn->kind == YN_SCALAR && kn->anchor < 0 && key->kind == RV_STRING &&
			key->cls == NULL && key->ivars.n == 0)
			key->frozen = true;
		hash_store(st, kn, h, yr_deduplicate(st, key), val);
	}
	return h;
}

/*
 * Whether instance_variable_set accepts the name: "@" and an identifier
 * (letters, digits, "_" or non-ASCII bytes, not starting with a digit).
 * Ruby raises NameError for any other, so Psych cannot load the text.
 */
static bool
ivar_name_ok(const char *name, size_t len)
{
	if (len < 2 || name[0] != '@' || (name[1] >= '0' && name[1] <= '9'))
		return false;
	for (size_t i = 1; i < len; i++)
	{
		unsigned char c = (unsigned char) name[i];

		if (!(c >= 0x80 || c == '_' || (c >= '0' && c <= '9') ||
			  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return false;
	}
	return true;
}

/* init_with without one: each pair an instance variable "@key" */
static RVal *
set_ivars(YState *st, YNode *n, RVal *obj, RVal *h, bool at)
{
	for (uint32_t p = 0; p + 1 < h->items.n; p += 2)
	{
		RVal	   *k = h->items.v[p];
		const char *text = k->str;
		size_t		len = k->len;
		char	   *name;

		/* :"@#{key}": only these keys' to_s can make a name */
		if (k->kind == RV_TRUE || k->kind == RV_FALSE)
		{
			text = k->kind == RV_TRUE ? "true" : "false";
			len = strlen(text);
		}
		else if (k->kind != RV_STRING && k->kind != RV_SYMBOL &&
				 k->kind != RV_CLASS && k->kind != RV_MODULE)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						 "an instance variable name that is not a name");
		name = yr_alloc(st, len + 2);
		name[0] = '@';
		memcpy(name + 1, text, len);
		name[len + 1] = '\0';
		if (!ivar_name_ok(name, len + 1))
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						 "an instance variable name that is not a name");
		if (!at)
			yr_ivar_set(st, obj, name + 1, len, h->items.v[p + 1]);
		else
			yr_ivar_set(st, obj, name, len + 1, h->items.v[p + 1]);
	}
	return obj;
}

static RVal *
pairs_of(YState *st, YNode *n)
{
	RVal	   *h = yr_new(st, RV_HASH);

	return revive_hash(st, h, n);
}

/*
 * Numeric#zero? of a Duration part: Integers and Floats are decided; other
 * numbers (BigDecimal, Rational) are taken as not zero; anything else has
 * no zero? and Ruby raises.
 */
static bool
duration_part_zero(YState *st, YNode *n, const RVal *x)
{
	switch (x->kind)
	{
		case RV_INT:
			return x->ival == 0;
		case RV_FLOAT:
			return x->dval == 0;
		case RV_BIGINT:
		case RV_USERDEF:
		case RV_USRMARSHAL:
			return false;
		default:
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
					   "a Duration part that is not a number");
	}
}

/* Hash#with_indifferent_access: a new HashWithIndifferentAccess (one's dup) */
static RVal *
with_indifferent_access(YState *st, YNode *n, RVal *h)
{
	RVal	   *copy;

	if (h == NULL || h->kind != RV_HASH)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
				   "with_indifferent_access of what is not a Hash");
	if (!is_hwia(h))
		return hwia_new(st, n, h);
	copy = yr_new(st, RV_HASH);
	copy->cls = h->cls;
	copy->dflt = h->dflt;
	yr_charge(st, n, h->items.n);
	for (uint32_t p = 0; p + 1 < h->items.n; p += 2)
		yr_hash_set(st, copy, h->items.v[p], h->items.v[p + 1]);
	return copy;
}

/*
 * ActionController::Parameters#init_with (Rails 5 to 7.2), which
 * ActionController registers for its Hash tags too (YAML.load_tags): the
 * Rails 4.2 !ruby/hash: form is the mapping with indifferent access, not
 * permitted; the !ruby/hash-with-ivars: form its elements so and
 * ivars[:@permitted]; the object form its parameters and permitted as they
 * are, any other key left out.
 */
static RVal *
action_params(YState *st, YNode *n, RVal *obj)
{
	RVal	   *h = pairs_of(st, n);
	RVal	   *params;
	RVal	   *permitted = NULL;

	if (strncmp(n->tag, "!ruby/hash:", 11) == 0)
	{
		params = with_indifferent_access(st, n, h);
		permitted = st->rfalse;
	}
	else if (strncmp(n->tag, "!ruby/hash-with-ivars:", 22) == 0)
	{
		RVal	   *iv = yr_hash_get(h, "ivars");

		params = with_indifferent_access(st, n, yr_hash_get(h, "elements"));
		if (iv == NULL || iv->kind != RV_HASH)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "Parameters without ivars");
		for (uint32_t p = 0; p + 1 < iv->items.n; p += 2)
			if (iv->items.v[p]->kind == RV_SYMBOL && iv->items.v[p]->len == 10 &&
				memcmp(iv->items.v[p]->str, "@permitted", 10) == 0)
				permitted = iv->items.v[p + 1];
	}
	else
	{
		params = yr_hash_get(h, "parameters");
		permitted = yr_hash_get(h, "permitted");
	}
	obj->kind = RV_OBJECT;
	yr_ivar_set(st, obj, "@parameters", 11, params ? params : st->nil);
	yr_ivar_set(st, obj, "@permitted", 10, permitted ? permitted : st->nil);
	return obj;
}

/* ActiveSupport's classes whose init_with builds another shape */
static RVal *
revive_special(YState *st, YNode *n, const char *name, RVal *obj)
{
	RVal	   *h;

	if (strcmp(name, "ActiveSupport::TimeWithZone") == 0)
	{
		RVal	   *utc,
				   *zone,
				   *time,
				   *zname,
				   *arr;

		h = pairs_of(st, n);
		utc = yr_hash_get(h, "utc");
		zone = yr_hash_get(h, "zone");
		time = yr_hash_get(h, "time");
		if (!utc || utc->kind != RV_TIME || !time || time->kind != RV_TIME ||
			!zone || zone->kind != RV_OBJECT)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						 "a TimeWithZone without utc, zone and time");
		zname = NULL;
		for (uint32_t i = 0; i < zone->ivars.n; i++)
			if (zone->ivars.v[i].len == 5 && memcmp(zone->ivars.v[i].name, "@name", 5) == 0)
				zname = zone->ivars.v[i].value;
		if (zname == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "a TimeZone without a name");
		/*
		 * transfer_time_values_to_utc_constructor: a Time in UTC mode is
		 * kept (the same object, so an alias of it is a link), any other
		 * is Time.utc(utc.year, ..., utc.sec + utc.subsec); @time is
		 * coder['time'] as it is.
		 */
		if (!utc->time->utc)
		{
			RVal	   *u = yr_new(st, RV_TIME);

			u->time = yr_alloc(st, sizeof(RTime));
			*u->time = *utc->time;
			if (!utc->time->utc)
				u->time->epoch += utc->time->offset;
			u->time->utc = true;
			u->time->offset = 0;
			u->time->zone = NULL;
			utc = u;
		}
		arr = yr_new(st, RV_ARRAY);
		yr_push(st, &arr->items, utc);
		yr_push(st, &arr->items, zname);
		yr_push(st, &arr->items, time);
		obj->kind = RV_USRMARSHAL;
		obj->data = arr;
		return obj;
	}
	if (strcmp(name, "ActionController::Parameters") == 0)
		return action_params(st, n, obj);
	if (strcmp(name, "OpenStruct") == 0)
	{
		RVal	   *table = yr_new(st, RV_HASH);

		/* init_with: update_to_values!(h), h = h["table"] in the legacy form */
		h = pairs_of(st, n);
		if (h->items.n == 2 && str_is(h->items.v[0], "table"))
			h = h->items.v[1];
		if (h->kind != RV_HASH)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "an OpenStruct table that is not a Hash");
		for (uint32_t i = 0; i + 1 < h->items.n; i += 2)
		{
			RVal	   *k = h->items.v[i];

			/* to_sym in OpenStruct's code: no permit needed */
			if (k->kind == RV_STRING)
				k = yr_symbol_of(st, k->str, k->len);
			else if (k->kind != RV_SYMBOL)
				yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "an OpenStruct member that is not a name");
			yr_hash_set(st, table, k, h->items.v[i + 1]);
		}
		/* marshal_dump is @table */
		obj->kind = RV_USRMARSHAL;
		obj->data = table;
		return obj;
	}
	if (strcmp(name, "ActiveSupport::TimeZone") == 0)
	{
		RVal	   *zname;
		RVal	   *tz = yr_new(st, RV_USERDEF);

		/*
		 * init_with: initialize(coder["name"]): @name, @utc_offset = nil,
		 * @tzinfo = TZInfo::Timezone.get(MAPPING[name] || name), whose
		 * _dump is its identifier (the zoneinfo source has no links).
		 */
		h = pairs_of(st, n);
		zname = yr_hash_get(h, "name");
		if (!zname || zname->kind != RV_STRING)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "a TimeZone without a name");
		if (st->arena.hooks && st->arena.hooks->zone_known &&
			(memchr(zname->str, '\0', zname->len) != NULL ||
			 !st->arena.hooks->zone_known(yr_strdup(st, zname->str, zname->len))))
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "Invalid identifier: %.*s",
					   (int) (zname->len > 60 ? 60 : zname->len), zname->str);
		tz->cls = "TZInfo::DataTimezone";
		tz->str = zname->str;
		tz->len = zname->len;
		tz->enc = MENC_UTF8;
		for (size_t i = 0; i < sizeof(rails_zones) / sizeof(rails_zones[0]); i++)
			if (strlen(rails_zones[i].rails) == zname->len &&
				memcmp(rails_zones[i].rails, zname->str, zname->len) == 0)
			{
				tz->str = rails_zones[i].tz;
				tz->len = strlen(tz->str);
			}
		yr_ivar_set(st, obj, "@name", 5, zname);
		yr_ivar_set(st, obj, "@utc_offset", 11, st->nil);
		yr_ivar_set(st, obj, "@tzinfo", 7, tz);
		return obj;
	}
	if (strcmp(name, "ActiveSupport::Duration") == 0)
	{
		RVal	   *value,
				   *parts;
		bool		is_array;

		h = pairs_of(st, n);
		value = yr_hash_get(h, "value");
		parts = yr_hash_get(h, "parts");
		if (!value || !parts || (parts->kind != RV_HASH && parts->kind != RV_ARRAY))
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						 "a Duration without value and parts");
		/*
		 * @value, @parts = value, parts; parts.reject! { |k, v| v.zero? }
		 * unless value == 0.  Rails 5.0 and 5.1 kept parts as an Array of
		 * [unit, n] pairs, which the block takes apart the same way.
		 */
		is_array = parts->kind == RV_ARRAY;
		if (!((value->kind == RV_INT && value->ival == 0) ||
			  (value->kind == RV_FLOAT && value->dval == 0)))
		{
			uint32_t	step = is_array ? 1 : 2;
			uint32_t	k = 0;

			for (uint32_t i = 0; i + step - 1 < parts->items.n; i += step)
			{
				RVal	   *pair = parts->items.v[i];
				RVal	   *x = is_array ?
					(pair->kind == RV_ARRAY && pair->items.n > 1 ? pair->items.v[1] : st->nil) :
					parts->items.v[i + 1];

				if (duration_part_zero(st, n, x))
					continue;
				for (uint32_t j = 0; j < step; j++)
					parts->items.v[k++] = parts->items.v[i + j];
			}
			parts->items.n = k;
			if (!is_array)
				parts->index = NULL;
		}
		yr_ivar_set(st, obj, "@value", 6, value);
		yr_ivar_set(st, obj, "@parts", 6, parts);
		return obj;
	}
	return NULL;
}

static RVal *
revive(YState *st, YNode *n, const char *name)
{
	RVal	   *obj;
	RVal	   *special;

	name = yr_class(st, n, name);
	obj = reg(st, n, yr_new(st, RV_OBJECT));
	obj->cls = name;
	special = revive_special(st, n, name, obj);
	if (special)
		return special;
	if (strcmp(name, "ActiveSupport::HashWithIndifferentAccess") == 0)
	{
		/* a Hash subclass: revive sets the pairs as ivars of an empty one */
		obj->kind = RV_HASH;
	}
	return set_ivars(st, n, obj, pairs_of(st, n), true);
}

static RVal *
exception(YState *st, YNode *n, const char *name)
{
	RVal	   *h = pairs_of(st, n);
	RVal	   *e = yr_new(st, RV_OBJECT);
	RVal	   *msg = NULL;
	RVal	   *bt = NULL;
	RVal	   *rest = yr_new(st, RV_HASH);

	yr_permit(st, n, name ? name : "Exception");
	e->cls = name ? name : "Exception";
	for (uint32_t p = 0; p + 1 < h->items.n; p += 2)
	{
		RVal	   *k = h->items.v[p];

		if (str_is(k, "message"))
			msg = h->items.v[p + 1];
		else if (str_is(k, "backtrace"))
			bt = h->items.v[p + 1];
		else
			yr_hash_set(st, rest, k, h->items.v[p + 1]);
	}
	yr_ivar_set(st, e, "mesg", 4, msg ? msg : st->nil);
	if (bt)
		yr_ivar_set(st, e, "bt", 2, bt);
	return set_ivars(st, n, e, rest, true);
}

/* Psych::Set, Psych::Omap (Hash subclasses): each pair through []= */
static RVal *
psych_hash(YState *st, YNode *n, const char *cls)
{
	RVal	   *v;

	yr_permit(st, n, cls);
	v = reg(st, n, yr_new(st, RV_HASH));
	v->cls = cls;
	for (uint32_t i = 0; i + 1 < n->nkids; i += 2)
	{
		RVal	   *k = visit(st, n->kids[i]);

		yr_hash_set(st, v, yr_deduplicate(st, k), visit(st, n->kids[i + 1]));
	}
	return v;
}

static RVal *
map(YState *st, YNode *n)
{
	const char *tag = n->tag;
	const char *rest;
	RVal	   *v;

	if (tag == NULL)
		return revive_hash(st, reg(st, n, yr_new(st, RV_HASH)), n);
	if (tag_is(tag, "!ruby/struct", &rest) && (*rest == '\0' || *rest == ':'))
	{
		const char *cls = class_name(*rest ? rest + 1 : NULL);

		if (cls == NULL)
		{
			/* ToRuby's resolve_class("") refuses Struct before any member */
			yr_permit(st, n, "Struct");
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
					   "can't dump anonymous class (a !ruby/struct without a name)");
		}
		yr_permit(st, n, cls);
		v = reg(st, n, yr_new(st, RV_STRUCT));
		v->cls = cls;
		/* s.members.map { class_loader.symbolize }: before any member is read */
		if (n->nkids)
			yr_permit(st, n, "Symbol");
		for (uint32_t i = 0; i + 1 < n->nkids; i += 2)
		{
			RVal	   *k = visit(st, n->kids[i]);
			RVal	   *val = visit(st, n->kids[i + 1]);

			if (k->kind != RV_STRING && k->kind != RV_SYMBOL)
				yr_fail_at(st, n->kids[i], MARSHAL_ERR_UNREPRESENTABLE,
							 "a Struct member that is not a name");
			yr_permit(st, n->kids[i], "Symbol");
			yr_ivar_set(st, v, k->str, k->len, val);
		}
		return v;
	}
	if (tag_is(tag, "!ruby/object", &rest) && (*rest == '\0' || *rest == ':'))
	{
		const char *name = *rest ? rest + 1 : "Object";

		if (strcmp(name, "Complex") == 0 || strcmp(name, "Rational") == 0)
		{
			RVal	   *h;

			/* ToRuby loads the class, then the children */
			yr_permit(st, n, name);
			h = pairs_of(st, n);
			if (name[0] == 'C')
				v = complex_of(st, complex_part(st, n, yr_hash_get(h, "real")),
							   complex_part(st, n, yr_hash_get(h, "image")));
			else
			{
				RVal	   *num = rational_part(st, n, yr_hash_get(h, "numerator"));
				RVal	   *den = rational_part(st, n, yr_hash_get(h, "denominator"));

				if (!num || !den)
					yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
								 "a Rational without numerator and denominator");
				v = yr_rational(st, n, num, den);
			}
			return reg(st, n, v);
		}
		if (strcmp(name, "Hash") == 0)
			return revive_hash(st, reg(st, n, yr_new(st, RV_HASH)), n);
		return revive(st, n, name);
	}
	if (strcmp(tag, "tag:yaml.org,2002:str") == 0 || strcmp(tag, "!str") == 0 ||
		strcmp(tag, "!ruby/string") == 0 || tag_is(tag, "!str:", &rest) ||
		tag_is(tag, "!ruby/string:", &rest))
	{
		const char *cls = NULL;
		RVal	   *str = NULL;
		RVal	   *ivars = yr_new(st, RV_HASH);

		if (tag_is(tag, "!str:", &rest) || tag_is(tag, "!ruby/string:", &rest))
			cls = class_name(rest);
		if (cls)
			yr_permit(st, n, cls);
		for (uint32_t i = 0; i + 1 < n->nkids; i += 2)
		{
			RVal	   *k = visit(st, n->kids[i]);
			RVal	   *val = visit(st, n->kids[i + 1]);

			if (str_is(k, "str"))
			{
				if (val->kind != RV_STRING)
					yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "a !str whose str is not a String");
				str = val;
				if (cls)
				{
					str = yr_string(st, val->str, val->len, val->enc);
					str->cls = strcmp(cls, "String") == 0 ? NULL : cls;
				}
				reg(st, n, str);
			}
			else
				yr_hash_set(st, ivars, k, val);
		}
		if (str == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "a !str mapping without str");
		/* ivar names: k.to_s.sub(/^@/, '') then "@" again */
		for (uint32_t p = 0; p + 1 < ivars->items.n; p += 2)
		{
			RVal	   *k = ivars->items.v[p];

			if (k->kind == RV_STRING && k->len > 0 && k->str[0] == '@')
			{
				RVal	   *k2 = yr_string(st, k->str + 1, k->len - 1, k->enc);

				ivars->items.v[p] = k2;
			}
		}
		return set_ivars(st, n, str, ivars, true);
	}
	if (tag_is(tag, "!ruby/array:", &rest))
	{
		RVal	   *h;
		RVal	   *internal;
		RVal	   *iv;

		v = yr_new(st, RV_ARRAY);
		v->cls = class_name(rest);
		if (v->cls == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "no class in %s", tag);
		v->cls = base_or_subclass(st, n, v->cls, "Array");
		reg(st, n, v);
		h = pairs_of(st, n);
		internal = yr_hash_get(h, "internal");
		iv = yr_hash_get(h, "ivars");
		if (!internal || internal->kind != RV_ARRAY || !iv || iv->kind != RV_HASH)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						 "a !ruby/array mapping without internal and ivars");
		v->items = internal->items;
		for (uint32_t p = 0; p + 1 < iv->items.n; p += 2)
		{
			RVal	   *k = iv->items.v[p];

			if ((k->kind != RV_STRING && k->kind != RV_SYMBOL) || !ivar_name_ok(k->str, k->len))
				yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "an ivar name that is not a name");
			yr_ivar_set(st, v, k->str, k->len, iv->items.v[p + 1]);
		}
		return v;
	}
	if (strcmp(tag, "!ruby/range") == 0)
	{
		RVal	   *h;
		RVal	   *b;
		RVal	   *e;
		RVal	   *x;
		bool		excl;

		/* ToRuby loads Range, then the children */
		yr_permit(st, n, "Range");
		h = pairs_of(st, n);
		b = yr_hash_get(h, "begin");
		e = yr_hash_get(h, "end");
		x = yr_hash_get(h, "excl");
		excl = x && x->kind != RV_NIL && x->kind != RV_FALSE;
		return reg(st, n, range(st, n, b ? b : st->nil, e ? e : st->nil,
								excl ? st->rtrue : st->rfalse));
	}
	/* Psych never registers an exception: an alias of its anchor is unknown */
	if (tag_is(tag, "!ruby/exception", &rest) && (*rest == '\0' || *rest == ':'))
		return exception(st, n, class_name(*rest ? rest + 1 : NULL));
	if (strcmp(tag, "!set") == 0 || strcmp(tag, "tag:yaml.org,2002:set") == 0)
		return psych_hash(st, n, "Psych::Set");
	/* YAML.load_tags of ActionController: revived by init_with */
	if (strcmp(tag, "!ruby/hash:ActionController::Parameters") == 0 ||
		strcmp(tag, "!ruby/hash-with-ivars:ActionController::Parameters") == 0)
		return revive(st, n, "ActionController::Parameters");
	if (tag_is(tag, "!ruby/hash-with-ivars", &rest) && (*rest == '\0' || *rest == ':'))
	{
		v = yr_new(st, RV_HASH);
		if (*rest)
		{
			v->cls = class_name(rest + 1);
			if (v->cls)
				v->cls = base_or_subclass(st, n, v->cls, "Hash");
		}
		reg(st, n, v);
		for (uint32_t i = 0; i + 1 < n->nkids; i += 2)
		{
			YNode	   *kn = n->kids[i];
			YNode	   *vn = n->kids[i + 1];

			if (kn->kind == YN_SCALAR && strcmp(kn->value, "elements") == 0)
				revive_hash(st, v, vn);
			else if (kn->kind == YN_SCALAR && strcmp(kn->value, "ivars") == 0)
				for (uint32_t j = 0; j + 1 < vn->nkids; j += 2)
				{
					RVal	   *k = visit(st, vn->kids[j]);
					RVal	   *val = visit(st, vn->kids[j + 1]);

					if ((k->kind != RV_STRING && k->kind != RV_SYMBOL) ||
						!ivar_name_ok(k->str, k->len))
						yr_fail_at(st, vn, MARSHAL_ERR_UNREPRESENTABLE,
									 "an ivar name that is not a name");
					yr_ivar_set(st, v, k->str, k->len, val);
				}
		}
		return v;
	}
	if (tag_is(tag, "!map:", &rest) || tag_is(tag, "!ruby/hash:", &rest))
	{
		v = yr_new(st, RV_HASH);
		v->cls = class_name(rest);
		if (v->cls == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "no class in %s", tag);
		v->cls = base_or_subclass(st, n, v->cls, "Hash");
		return revive_hash(st, reg(st, n, v), n);
	}
	if (strcmp(tag, "!omap") == 0 || strcmp(tag, "tag:yaml.org,2002:omap") == 0)
		return psych_hash(st, n, "Psych::Omap");
	if (tag_is(tag, "!ruby/marshalable:", &rest))
	{
		RVal	   *data = yr_new(st, RV_ARRAY);

		v = yr_new(st, RV_USRMARSHAL);
		v->cls = class_name(rest);
		if (v->cls == NULL)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "no class in %s", tag);
		v->cls = yr_class(st, n, v->cls);
		reg(st, n, v);
		/* marshal_load(children): marshal_dump taken to give them back */
		for (uint32_t i = 0; i < n->nkids; i++)
			yr_push(st, &data->items, visit(st, n->kids[i]));
		v->data = data;
		return v;
	}
	return revive_hash(st, reg(st, n, yr_new(st, RV_HASH)), n);
}

/*
 * ActiveSupport::OrderedOptions and its InheritableOptions answer every
 * method they lack by method_missing, marshal_dump too: self[:marshal_dump],
 * nil.  So Marshal.dump writes "U", the class and nil (6.1 and 7.2 alike).
 */
static bool
is_ordered_options(const char *cls)
{
	return cls && (strcmp(cls, "ActiveSupport::OrderedOptions") == 0 ||
				   strcmp(cls, "ActiveSupport::InheritableOptions") == 0);
}

static RVal *
visit(YState *st, YNode *n)
{
	const MarshalHooks *h = st->arena.hooks;
	RVal	   *v;

	yr_charge(st, n, 1);
	if (n->kind == YN_ALIAS)
	{
		if (st->opts->safe && !st->opts->aliases)
			yr_fail_at(st, n, MARSHAL_ERR_UNSUPPORTED, "Unknown alias: %s (aliases are not allowed)",
					   n->value);
		v = n->anchor >= 0 ? st->anchor_values[n->anchor] : NULL;
		if (v == NULL)
			/* Psych's BadAlias, as for an alias safe mode refuses */
			yr_fail_at(st, n, MARSHAL_ERR_UNSUPPORTED, "Unknown alias: %s", n->value);
		return v;
	}
	if (n->kind == YN_SCALAR)
		return reg(st, n, scalar(st, n));
	if (++st->depth > st->opts->max_depth)
		yr_fail_at(st, n, MARSHAL_ERR_DEPTH, "nesting deeper than %u", st->opts->max_depth);
	if (h && h->check_stack)
		h->check_stack(h->ctx);
	v = n->kind == YN_SEQ ? seq(st, n) : map(st, n);
	st->depth--;
	if (n->kind == YN_MAP && (v->kind == RV_OBJECT || v->kind == RV_HASH) &&
		is_ordered_options(v->cls))
	{
		/* built as Psych builds it; Marshal then asks its marshal_dump */
		v->kind = RV_USRMARSHAL;
		v->items.n = 0;
		v->ivars.n = 0;
		v->data = st->nil;
	}
	return v;
}

/*
 * The value as a JSON view would expand it: fail past limit values or on a
 * cycle.  Each step is counted, so the walk stops within limit steps.
 */
static void
expand(YState *st, RVal *v, uint64_t *left)
{
	const MarshalHooks *h = st->arena.hooks;

	if (*left == 0)
		yr_fail(st, MARSHAL_ERR_LIMIT, 0, 0, 0,
				"the value with its shared references expanded is too large");
	(*left)--;
	if (v->kind < RV_ARRAY)
		return;
	if (v->walking)
		yr_fail(st, MARSHAL_ERR_UNREPRESENTABLE, 0, 0, 0, "the value contains itself (a cycle)");
	if (h && h->check_stack)
		h->check_stack(h->ctx);
	v->walking = true;
	for (uint32_t i = 0; i < v->items.n; i++)
		expand(st, v->items.v[i], left);
	for (uint32_t i = 0; i < v->ivars.n; i++)
		expand(st, v->ivars.v[i].value, left);
	if (v->kind == RV_USRMARSHAL)
		expand(st, v->data, left);
	v->walking = false;
}

void
yr_check_expansion(YState *st, RVal *root, uint64_t limit)
{
	uint64_t	left = limit;

	expand(st, root, &left);
}

/* The values every graph starts with, and MRI's state of a fresh process */
void
yr_graph_init(YState *st)
{
	st->nil = yr_new(st, RV_NIL);
	st->rtrue = yr_new(st, RV_TRUE);
	st->rfalse = yr_new(st, RV_FALSE);
	st->nan = yr_new(st, RV_FLOAT);
	st->nan->dval = __builtin_nan("");
	st->inf = yr_new(st, RV_FLOAT);
	st->inf->dval = __builtin_inf();
	/* a fresh process with ActiveSupport loaded has set these already */
	yr_class_note(st, "ActiveSupport::Duration", "@parts", 6);
	yr_class_note(st, "ActiveSupport::Duration", "@value", 6);
}

RVal *
yr_to_ruby(YState *st, YNode *root)
{
	yr_graph_init(st);
	st->anchor_values = yr_alloc(st, (st->nanchors + 1) * sizeof(RVal *));
	memset(st->anchor_values, 0, (st->nanchors + 1) * sizeof(RVal *));
	/* no document: unsafe_load's fallback is false, safe_load's nil */
	if (root == NULL)
		return st->opts->safe ? st->nil : st->rfalse;
	return visit(st, root);
}
