/*
 * test_activerecord.c
 *		Unit tests of the Active Record attribute casts
 *		(marshal_activerecord.c).
 */
#include "unit.h"

/*
 * Active Record 6.1 attribute casts (marshal_activerecord.c): a stream
 * [type object, raw value], the value cast as a FromDatabase (DB) or
 * FromUser (USER) attribute.  Every expected value is what Ruby gave for
 * the same input in test/rails/records.tsv (rec61_cast_*).
 */
static void
cast_result_text(const MarshalCast *c, char *out, size_t size)
{
	switch (c->kind)
	{
		case MCAST_NULL:
			snprintf(out, size, "null");
			break;
		case MCAST_BOOL:
			snprintf(out, size, c->boolean ? "true" : "false");
			break;
		case MCAST_INT:
			snprintf(out, size, "%lld", (long long) c->integer);
			break;
		case MCAST_NUMBER:
			snprintf(out, size, "%.*s", (int) c->len, c->text);
			break;
		case MCAST_STRING:
			snprintf(out, size, "\"%.*s\"", (int) c->len, c->text);
			break;
		case MCAST_TIME:
			{
				int64_t		days = c->time.epoch / 86400;
				int64_t		secs = c->time.epoch % 86400;
				int64_t		y;
				int			m;
				int			d;

				if (secs < 0)
				{
					secs += 86400;
					days--;
				}
				marshal_civil_from_days(days, &y, &m, &d);
				snprintf(out, size, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ",
						 (long long) y, m, d, (int) (secs / 3600),
						 (int) (secs / 60 % 60), (int) (secs % 60),
						 (int) (c->time.nsec / 1000000));
				break;
			}
		default:
			snprintf(out, size, "raw");
			break;
	}
}

static void
cast_case(const char *cls, int precision, int scale, bool tz, int cast,
		  const char *literal, const char *expected)
{
	MarshalWriter *w = marshal_writer_new(NULL);
	MarshalDoc	lit = {0};
	MarshalDoc	doc = {0};
	MarshalError err;
	MarshalNode arr;
	MarshalEntry e = {0};
	MarshalCast c;
	uint8_t    *lbytes;
	uint8_t    *bytes;
	size_t		llen;
	size_t		len;
	char		got[160];
	char		name[200];

	snprintf(name, sizeof(name), "cast %s %s %s", cls, cast == MARSHAL_CAST_DB ? "db" : "user", literal);
	if (marshal_from_literal(literal, strlen(literal), NULL, 0, &lbytes, &llen, &err) != MARSHAL_OK)
	{
		check(0, "literal does not parse", name);
		marshal_writer_free(w);
		return;
	}
	marshal_doc_open(&lit, lbytes, llen, NULL, 0, &err);
	marshal_write_array(w, 2);
	if (tz)
	{
		static const char tzc[] = "ActiveRecord::AttributeMethods::TimeZoneConversion::TimeZoneConverter";

		marshal_write_named(w, MT_USRMARSHAL, (const uint8_t *) tzc, strlen(tzc), 0);
		marshal_write_array(w, 4);
		marshal_write_symbol(w, (const uint8_t *) "__v2__", 6);
		marshal_write_array(w, 0);
		marshal_write_array(w, 0);
	}
	marshal_write_named(w, MT_OBJECT, (const uint8_t *) cls, strlen(cls), 2);
	marshal_write_symbol(w, (const uint8_t *) "@precision", 10);
	if (precision < 0)
		marshal_write_nil(w);
	else
		marshal_write_int(w, precision);
	marshal_write_symbol(w, (const uint8_t *) "@scale", 6);
	if (scale < 0)
		marshal_write_nil(w);
	else
		marshal_write_int(w, scale);
	marshal_reencode_into(w, &lit, MARSHAL_ROOT, NULL, &err);
	if (marshal_writer_finish(w, &bytes, &len) != MARSHAL_OK ||
		marshal_doc_open(&doc, bytes, len, NULL, 0, &err) != MARSHAL_OK)
	{
		check(0, "test stream does not build", name);
		return;
	}
	marshal_node(&doc, MARSHAL_ROOT, &arr, &err);
	e.type = arr.items;
	marshal_skip(&doc, arr.items, &e.value, &err);
	e.cast = cast;
	if (marshal_record_cast(&doc, &e, &c, &err) != MARSHAL_OK)
		snprintf(got, sizeof(got), "error: %.100s", err.detail);
	else
		cast_result_text(&c, got, sizeof(got));
	if (strcmp(got, expected) != 0)
		printf("# %s: got %s, expected %s\n", name, got, expected);
	check(strcmp(got, expected) == 0, "cast differs from Rails", name);
	marshal_index_free(&doc.index, NULL);
	marshal_index_free(&lit.index, NULL);
	free(bytes);
	free(lbytes);
}

void
test_record_casts(void)
{
	const int	DB = MARSHAL_CAST_DB;
	const int	US = MARSHAL_CAST_USER;
	const char *i = "ActiveModel::Type::Integer";
	const char *dws = "ActiveRecord::Type::DecimalWithoutScale";
	const char *dec = "ActiveModel::Type::Decimal";
	const char *fl = "ActiveModel::Type::Float";
	const char *b = "ActiveModel::Type::Boolean";
	const char *str = "ActiveModel::Type::String";
	const char *date = "ActiveRecord::Type::Date";
	const char *dt = "ActiveRecord::Type::DateTime";

	/* Integer: to_i, blank text is nil (Helpers::Numeric, Integer) */
	cast_case(i, -1, -1, false, US, "\"7\"", "7");
	cast_case(i, -1, -1, false, US, "\" 7 \"", "7");
	cast_case(i, -1, -1, false, US, "\"\"", "null");
	cast_case(i, -1, -1, false, US, "\"  \"", "null");
	cast_case(i, -1, -1, false, US, "\"abc\"", "0");
	cast_case(i, -1, -1, false, US, "\"1e3\"", "1");
	cast_case(i, -1, -1, false, US, "\"-12\"", "-12");
	cast_case(i, -1, -1, false, US, "\"3.99\"", "3");
	cast_case(i, -1, -1, false, US, "\"1_000\"", "1000");
	cast_case(i, -1, -1, false, US, "\"+5\"", "5");
	cast_case(i, -1, -1, false, US, "\"0x1A\"", "0");
	cast_case(i, -1, -1, false, US, "\"12abc\"", "12");
	cast_case(i, -1, -1, false, US, "4.5", "4");
	cast_case(i, -1, -1, false, US, "true", "1");
	cast_case(i, -1, -1, false, DB, "\"abc\"", "0");
	cast_case(i, -1, -1, false, DB, "\"  \"", "null");
	cast_case(i, -1, -1, false, DB, "7", "raw");
	cast_case(dws, 20, -1, false, DB, "12.7", "12");
	cast_case(dws, 20, -1, false, US, "\"-3\"", "-3");

	/* Decimal: BigDecimal, rounded half up to @scale, printed as to_s */
	cast_case(dec, 10, 2, false, US, "\"9.999\"", "\"10.0\"");
	cast_case(dec, 10, 2, false, US, "\"9.994\"", "\"9.99\"");
	cast_case(dec, 10, 2, false, US, "\"-0.005\"", "\"-0.01\"");
	cast_case(dec, 10, 2, false, US, "\"abc\"", "\"0.0\"");
	cast_case(dec, 10, 2, false, US, "\"1e3\"", "\"1000.0\"");
	cast_case(dec, 10, 2, false, US, "\"99999999.999\"", "\"100000000.0\"");
	cast_case(dec, 10, 2, false, US, "\"5e-3\"", "\"0.01\"");
	cast_case(dec, 10, 2, false, US, "\"1_0.5\"", "\"10.5\"");
	cast_case(dec, 10, 2, false, US, "\"\"", "null");
	cast_case(dec, 10, 2, false, US, "12.345", "\"12.35\"");
	cast_case(dec, 10, 2, false, US, "7", "\"7.0\"");
	cast_case(dec, 10, 2, false, DB, "9.995", "\"10.0\"");
	cast_case(dec, 10, 2, false, DB, "-9.995", "\"-10.0\"");
	cast_case(dec, 10, 2, false, DB, "0.005", "\"0.01\"");
	cast_case(dec, 10, 2, false, DB, "12", "\"12.0\"");
	cast_case(dec, -1, -1, false, US, "\"1.50\"", "\"1.5\"");
	cast_case(dec, -1, -1, false, US, "\"-0.000\"", "\"-0.0\"");
	cast_case(dec, -1, -1, false, US, "\" 2.5x\"", "\"2.5\"");
	cast_case(dec, -1, -1, false, US, "\".5\"", "\"0.5\"");
	cast_case(dec, -1, -1, false, US, "0.1", "\"0.1\"");
	cast_case(dec, -1, -1, false, DB, "-1.005", "\"-1.005\"");

	/* Float: to_f; Infinity/NaN are nil in JSON */
	cast_case(fl, -1, -1, false, US, "\"abc\"", "0.0");
	cast_case(fl, -1, -1, false, US, "\"1e3\"", "1000.0");
	cast_case(fl, -1, -1, false, US, "\" 2.5 \"", "2.5");
	cast_case(fl, -1, -1, false, US, "\"Infinity\"", "null");
	cast_case(fl, -1, -1, false, US, "\"1_000.5\"", "1000.5");
	cast_case(fl, -1, -1, false, US, "\"-0.0\"", "-0.0");
	cast_case(fl, -1, -1, false, US, "\".5\"", "0.5");
	cast_case(fl, -1, -1, false, US, "\"7e\"", "7.0");
	cast_case(fl, -1, -1, false, US, "3", "3.0");
	cast_case(fl, -1, -1, false, DB, "2.5", "raw");

	/* Boolean: FALSE_VALUES, "" is nil, anything else true */
	cast_case(b, -1, -1, false, US, "\"f\"", "false");
	cast_case(b, -1, -1, false, US, "\"off\"", "false");
	cast_case(b, -1, -1, false, US, "\"FALSE\"", "false");
	cast_case(b, -1, -1, false, US, "\"yes\"", "true");
	cast_case(b, -1, -1, false, US, "\"no\"", "true");
	cast_case(b, -1, -1, false, US, "\" \"", "true");
	cast_case(b, -1, -1, false, US, "\"\"", "null");
	cast_case(b, -1, -1, false, US, "2", "true");
	cast_case(b, -1, -1, false, DB, "0", "false");
	cast_case(b, -1, -1, false, DB, "1", "true");

	/* String: to_s of numbers */
	cast_case(str, -1, -1, false, US, "12", "\"12\"");
	cast_case(str, -1, -1, false, US, "1e20", "\"1.0e+20\"");
	cast_case(str, -1, -1, false, US, "\"x\"", "raw");

	/* Date: ISO text, impossible dates nil */
	cast_case(date, -1, -1, false, US, "\"2024-02-29\"", "\"2024-02-29\"");
	cast_case(date, -1, -1, false, US, "\"2023-02-29\"", "null");
	cast_case(date, -1, -1, false, US, "\"0000-00-00\"", "null");
	cast_case(date, -1, -1, false, US, "\"abc\"", "null");

	/* DateTime behind a TimeZoneConverter: UTC, offsets applied */
	cast_case(dt, 6, -1, true, US, "\"2024-03-06T23:30:00-05:00\"", "2024-03-07T04:30:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"2024-02-30 10:00:00\"", "2024-03-01T10:00:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"1999-12-31 23:59:59.9999\"", "1999-12-31T23:59:59.999Z");
	cast_case(dt, 6, -1, true, US, "\"2024-03-06 10:00\"", "2024-03-06T10:00:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"2024-03-06\"", "2024-03-06T00:00:00.000Z");
	cast_case(dt, 6, -1, true, US, "\"abc\"", "null");
	cast_case(dt, 6, -1, true, DB, "\"2024-03-06 10:00:00+02:00\"", "2024-03-06T08:00:00.000Z");
	cast_case(dt, 6, -1, true, DB, "\"2024-03-06 10:00:00.123456\"", "2024-03-06T10:00:00.123Z");
}
