/*
 * test_edit.c
 *		Unit tests of changing values (marshal_edit.c and the change the
 *		re-encoder makes): a few cases with the bytes Ruby 3.1 wrote, and
 *		properties over every valid fixture.  test/edit/ checks 600 more
 *		cases against Ruby through SQL.
 */
#include "unit.h"

static MarshalPathStep
key(const char *k)
{
	MarshalPathStep s = {k, strlen(k), 0};

	return s;
}

static MarshalBytes
bytes(const char *s)
{
	MarshalBytes b = {(const uint8_t *) s, strlen(s)};

	return b;
}

/* out (freed) equals the hex Ruby wrote */
static void
check_hex(uint8_t *out, size_t len, const char *hex, const char *what)
{
	size_t		n;
	uint8_t    *want = unhex(hex, &n);

	check(out != NULL && len == n && memcmp(out, want, n) == 0, what, "ruby");
	free(want);
	free(out);
}

/* v edited as args say, compared with Ruby's bytes */
static void
check_edit(const char *v_hex, MarshalEditArgs *args, const char *value_hex,
		   const char *ruby_hex, const char *what)
{
	size_t		vn;
	size_t		wn = 0;
	uint8_t    *v = unhex(v_hex, &vn);
	uint8_t    *w = value_hex ? unhex(value_hex, &wn) : NULL;
	MarshalDoc	doc;
	MarshalDoc	value;
	MarshalError err;
	MarshalEditRefusal refusal;
	uint8_t    *out = NULL;
	size_t		len = 0;
	int			at;

	check(marshal_doc_open(&doc, v, vn, NULL, 0, &err) == MARSHAL_OK, "open", what);
	if (w)
	{
		check(marshal_doc_open(&value, w, wn, NULL, 0, &err) == MARSHAL_OK, "open value", what);
		args->value = &value;
	}
	check(marshal_edit_path(&doc, args, NULL, 0, &out, &len, &refusal, &at, &err) == MARSHAL_OK &&
		  refusal == MEDIT_OK, "edit refused", what);
	check_hex(out, len, ruby_hex, what);
	marshal_index_free(&doc.index, NULL);
	if (w)
		marshal_index_free(&value.index, NULL);
	free(v);
	free(w);
}

/* Cases whose bytes Ruby 3.1 wrote (the Ruby is in each comment). */
static void
test_edit_cases(void)
{
	MarshalPathStep path[2] = {key("0"), key("a")};
	MarshalPathStep zero = key("0");
	MarshalPathStep a = key("a");

	/* h = {a: 1}; x = [h, h]; x[0][:a] = 2: both places change */
	{
		MarshalEditArgs args = {.kind = MEDIT_SET, .path = {1, path}, .keys = &path[1], .nkeys = 1};

		check_edit("04085b077b063a066169064006", &args, "04086907",
				   "04085b077b063a066169074006", "shared hash set");
	}
	/* h = {a: 1}; x = [h, h]; x[0] = 2: the other reference keeps h */
	{
		MarshalEditArgs args = {.kind = MEDIT_SET, .path = {0, NULL}, .keys = &zero, .nkeys = 1};

		check_edit("04085b077b063a066169064006", &args, "04086907",
				   "04085b0769077b063a06616906", "shared hash replaced");
	}
	/* s = {"a" => 1, "b" => [1, 2]}; s.delete("a") */
	{
		MarshalEditArgs args = {.kind = MEDIT_DELETE, .path = {0, NULL}, .keys = &a, .nkeys = 1};

		check_edit("04087b0749220661063a064554690649220662063b00545b0769066907", &args, NULL,
				   "04087b0649220662063a0645545b0769066907", "hash delete");
	}
	/* [Foo.new, Foo::Bar.new, FooBar.new, Foo] renamed Foo -> Baz: FooBar stays */
	{
		size_t		n;
		uint8_t    *v = unhex("04085b096f3a08466f6f006f3a0d466f6f3a3a426172006f3a0b466f6f426172006308466f6f", &n);
		MarshalDoc	doc;
		MarshalError err;
		uint8_t    *out = NULL;
		size_t		len = 0;
		MarshalNames names;

		check(marshal_doc_open(&doc, v, n, NULL, 0, &err) == MARSHAL_OK, "open", "rename");
		check(marshal_rename_class(&doc, bytes("Foo"), bytes("Baz"), NULL, 0, &out, &len, &err) == MARSHAL_OK,
			  "rename failed", "rename");
		check_hex(out, len, "04085b096f3a0842617a006f3a0d42617a3a3a426172006f3a0b466f6f42617200630842617a",
				  "rename Foo, not FooBar");
		/* the names in stream order, each once */
		check(marshal_class_names(&doc, NULL, 0, &names, &err) == MARSHAL_OK && names.count == 3 &&
			  names.names[0].len == 3 && memcmp(names.names[0].ptr, "Foo", 3) == 0 &&
			  names.names[1].len == 8 && memcmp(names.names[1].ptr, "Foo::Bar", 8) == 0 &&
			  names.names[2].len == 6 && memcmp(names.names[2].ptr, "FooBar", 6) == 0,
			  "class names", "rename");
		marshal_names_free(&names);
		marshal_index_free(&doc.index, NULL);
		free(v);
	}
}

/* A result is a valid stream; out is freed. */
static void
check_valid(MarshalStatus st, uint8_t *out, size_t len, const MarshalError *err,
			const char *what, const char *name)
{
	MarshalError verr;

	check(st == MARSHAL_OK, st == MARSHAL_OK ? what : err->detail, name);
	if (st == MARSHAL_OK && out)
		check(marshal_validate(out, len, NULL, 0, &verr) == MARSHAL_OK, what, name);
	free(out);
}

/*
 * Every valid fixture: renaming an absent class is re-encoding; renaming
 * each class there and back again is too; deleting, setting and merging
 * give valid streams.
 */
void
test_edits(Fixture *fx, int n)
{
	test_edit_cases();
	for (int i = 0; i < n; i++)
	{
		MarshalDoc	doc;
		MarshalError err;
		MarshalNames names;
		uint8_t    *plain = NULL;
		uint8_t    *out = NULL;
		size_t		plen = 0;
		size_t		len = 0;
		MarshalStatus st;

		if (marshal_doc_open(&doc, fx[i].bytes, fx[i].len, NULL, 0, &err) != MARSHAL_OK)
			continue;
		if (marshal_reencode(&doc, MARSHAL_ROOT, NULL, &plain, &plen, &err) != MARSHAL_OK)
		{
			marshal_index_free(&doc.index, NULL);
			continue;
		}
		st = marshal_rename_class(&doc, bytes("Absent9"), bytes("Other"), NULL, 0, &out, &len, &err);
		check(st == MARSHAL_OK && len == plen && memcmp(out, plain, len) == 0,
			  "renaming an absent class changes the value", fx[i].name);
		free(out);

		st = marshal_class_names(&doc, NULL, 0, &names, &err);
		check(st == MARSHAL_OK, "class names", fx[i].name);
		for (uint32_t k = 0; st == MARSHAL_OK && k < names.count && k < 3; k++)
		{
			MarshalDoc	renamed;
			MarshalBytes from = names.names[k];
			uint8_t    *back = NULL;
			size_t		blen = 0;

			if (marshal_rename_class(&doc, from, bytes("Zq9"), NULL, 0, &out, &len, &err) != MARSHAL_OK)
			{
				check(0, err.detail, fx[i].name);
				continue;
			}
			check(marshal_doc_open(&renamed, out, len, NULL, 0, &err) == MARSHAL_OK &&
				  marshal_rename_class(&renamed, bytes("Zq9"), from, NULL, 0, &back, &blen, &err) == MARSHAL_OK &&
				  blen == plen && memcmp(back, plain, plen) == 0,
				  "a class renamed and back is not the value", fx[i].name);
			marshal_index_free(&renamed.index, NULL);
			free(back);
			free(out);
		}
		if (st == MARSHAL_OK)
			marshal_names_free(&names);

		/* entry 0 (or key "a") deleted, replaced by the value itself, merged */
		{
			MarshalPathStep k0 = key("0");
			MarshalEditArgs del = {.kind = MEDIT_DELETE_INDEX, .index = 0};
			MarshalEditArgs set = {.kind = MEDIT_SET, .keys = &k0, .nkeys = 1, .value = &doc};
			MarshalEditRefusal refusal;
			int			at;
			bool		mismatch;

			st = marshal_edit_path(&doc, &del, NULL, 0, &out, &len, &refusal, &at, &err);
			check_valid(st, out, len, &err, "delete_at", fx[i].name);
			st = marshal_edit_path(&doc, &set, NULL, 0, &out, &len, &refusal, &at, &err);
			check_valid(st, out, len, &err, "set", fx[i].name);
			st = marshal_concat(&doc, &doc, NULL, 0, &out, &len, &mismatch, &err);
			check_valid(st, out, len, &err, "concat", fx[i].name);
		}
		free(plain);
		marshal_index_free(&doc.index, NULL);
	}
}
