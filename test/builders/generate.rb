#!/usr/bin/env ruby
# Expected bytes for the SQL builders, from Ruby (MRI 3.1, 64-bit) itself.
#
#   ruby test/builders/generate.rb [OUTDIR]
#
# Writes builders.tsv: name<TAB>sql<TAB>hex, where sql is an SQL expression
# returning rbmarshal and hex is Marshal.dump of the Ruby value that means
# the same thing (the SQL and the Ruby side by side below).  The regression
# test evaluates each expression and compares the bytes.
require "bigdecimal"
require "date"
require "json"
require "pstore"
require "tmpdir"

OUT_DIR = File.expand_path(ARGV[0] || __dir__)

CASES = [
  # name, SQL expression, Ruby value
  ["text_utf8", "to_rbmarshal('héllo'::text)", "héllo"],
  ["text_empty", "to_rbmarshal(''::text)", ""],
  ["int_small", "to_rbmarshal(42)", 42],
  ["int_neg", "to_rbmarshal(-123)", -123],
  ["int_2_30", "to_rbmarshal(1073741824)", 2**30],
  ["bigint_max", "to_rbmarshal(9223372036854775807::bigint)", 2**63 - 1],
  ["bigint_min", "to_rbmarshal((-9223372036854775807 - 1)::bigint)", -2**63],
  ["numeric_integral", "to_rbmarshal(12::numeric)", 12],
  ["numeric_huge", "to_rbmarshal(123456789012345678901234567890::numeric)", 123456789012345678901234567890],
  ["numeric_fraction", "to_rbmarshal(123.4500)", BigDecimal("123.4500")],
  ["numeric_small", "to_rbmarshal(-0.000001234)", BigDecimal("-0.000001234")],
  ["numeric_long", "to_rbmarshal(1234567890.123456789::numeric)", BigDecimal("1234567890.123456789")],
  ["numeric_zero_frac", "to_rbmarshal(0.00)", BigDecimal("0.00")],
  ["float", "to_rbmarshal(1.5::float8)", 1.5],
  ["float_repeat", "rbmarshal_build_array(to_rbmarshal(1.5::float8), to_rbmarshal(1.5::float8))", [1.5, 1.5]],
  ["float_big", "to_rbmarshal(1e300::float8)", 1e300],
  ["bool_true", "to_rbmarshal(true)", true],
  ["bool_false", "to_rbmarshal(false)", false],
  ["timestamptz", "to_rbmarshal('2024-03-05 14:07:09.123456+00'::timestamptz)", Time.at(1709647629, 123456, :usec).utc],
  ["timestamptz_epoch", "to_rbmarshal('1970-01-01 00:00:00+00'::timestamptz)", Time.at(0).utc],
  ["timestamptz_before_1900", "to_rbmarshal('1800-06-01 12:00:00+00'::timestamptz)", Time.utc(1800, 6, 1, 12)],
  ["timestamptz_negative_usec", "to_rbmarshal('1969-12-31 23:59:59.5+00'::timestamptz)", Time.at(-1, 500000, :usec).utc],
  ["timestamptz_pair", "rbmarshal_build_array(to_rbmarshal('2024-03-05 14:07:09+00'::timestamptz), to_rbmarshal('2024-03-06 00:00:00+00'::timestamptz))",
   [Time.utc(2024, 3, 5, 14, 7, 9), Time.utc(2024, 3, 6)]],
  ["date", "to_rbmarshal('2024-03-05'::date)", Date.new(2024, 3, 5)],
  ["date_pair", "rbmarshal_build_array(to_rbmarshal('2024-03-05'::date), to_rbmarshal('2024-03-06'::date))", [Date.new(2024, 3, 5), Date.new(2024, 3, 6)]],
  ["jsonb", "to_rbmarshal('{\"a\": [1, 2.5, \"x\"], \"b\": null}'::jsonb)", JSON.parse('{"a": [1, 2.5, "x"], "b": null}')],
  ["array", "rbmarshal_build_array('1', '\"x\"', ':sym', 'nil')", [1, "x", :sym, nil]],
  ["array_nested", "rbmarshal_build_array('[1, :a]', '{a: 1}', ':a')", [[1, :a], { a: 1 }, :a]],
  ["hash", "rbmarshal_build_hash('a', 1, ':b'::rbmarshal, 'x'::text, 'c', NULL, 'd', 1.5::float8)",
   { "a" => 1, :b => "x", "c" => nil, "d" => 1.5 }],
  ["hash_keys_shared", "rbmarshal_build_array(rbmarshal_build_hash('k', 1), rbmarshal_build_hash('k', 2))", [{ "k" => 1 }, { "k" => 2 }]],
  ["agg", "(SELECT rbmarshal_agg(to_rbmarshal(i)) FROM generate_series(1, 3) i)", [1, 2, 3]],
  ["agg_strings", "(SELECT rbmarshal_agg(to_rbmarshal(s)) FROM unnest(ARRAY['a', 'b', 'a']) s)", ["a", "b", "a"]],
  ["object_agg", "(SELECT rbmarshal_object_agg(k, to_rbmarshal(v)) FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) t(k, v))",
   { "a" => 3, "b" => 2 }],
  ["object_agg_symbols", "(SELECT rbmarshal_object_agg(k::rbmarshal, to_rbmarshal(v)) FROM (VALUES (':x', 1), (':y', 2)) t(k, v))",
   { x: 1, y: 2 }],
]

def hex(v) = Marshal.dump(v).unpack1("H*")

rows = CASES.map { |name, sql, value| "#{name}\t#{sql}\t#{hex(value)}\n" }

# A PStore file is Marshal.dump of its table (a Hash of roots): build one in
# SQL and compare with the file Ruby's PStore writes for the same data.
pstore_sql = "(SELECT rbmarshal_object_agg(k, v) FROM (VALUES " \
             "('users', '[{\"name\" => \"Ann\", \"admin\" => true}, {\"name\" => \"Bob\", \"admin\" => false}]'::rbmarshal), " \
             "('count', to_rbmarshal(2)), ('updated', to_rbmarshal('2024-03-05'::date))) t(k, v))"
Dir.mktmpdir do |dir|
  path = File.join(dir, "data.pstore")
  store = PStore.new(path)
  store.transaction do
    store["users"] = [{ "name" => "Ann", "admin" => true }, { "name" => "Bob", "admin" => false }]
    store["count"] = 2
    store["updated"] = Date.new(2024, 3, 5)
  end
  rows << "pstore\t#{pstore_sql}\t#{File.binread(path).unpack1("H*")}\n"
end

File.write(File.join(OUT_DIR, "builders.tsv"), rows.join)
puts "builders.tsv: #{rows.size} rows"
