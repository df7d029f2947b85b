#!/usr/bin/env ruby
# Generates Active Record records as real Active Record dumps them, with the JSON
# Rails gives for them: the postgresql adapter with every PostgreSQL::OID type, and
# under Active Record 7.2 the sqlite3 adapter too, in both marshalling formats.
#
#   ruby test/fidelity/records.rb [OUT_DIR]          Active Record 6.1 (Debian's ruby-activerecord):
#                                                    ar61_records.tsv (postgresql, 6.1 layout)
#   bash test/fidelity/rails72.sh ruby test/fidelity/records.rb [OUT_DIR]
#                                                    ar72_records.tsv (postgresql and sqlite3;
#                                                    marshalling_format_version 6.1 and 7.1)
#
# A PostgreSQL server is needed: without PGPORT in the environment the script runs
# itself again under pg_virtualenv (a throwaway cluster; Debian's postgresql-common).
# With PGPORT set it (re)creates the database rbmarshal_fidelity in that server.
#
# TAG_records.tsv: name  hex  expected_json
#   hex            Marshal.dump(x), x a record, an Array or a Hash of records
#   expected_json  JSON.parse(ActiveSupport::JSON.encode(Marshal.load(hex))) (a record's
#                  as_json is its serializable_hash), computed on a fresh load
# TAG_yaml_records.tsv: name  yaml_hex  expected_json  before_type_cast_json
#   the same values' to_yaml (6.1-format rows only; the format does not change it), the
#   JSON of YAML.unsafe_load of it, and the same with each record's
#   attributes_before_type_cast
# Names: pg_* / sq_* (adapter), then f61_ / f71_ (marshalling format), then the state:
# loaded (nothing read), read (every reader called), materialized (attributes), changed
# (form strings, not read since), changed_read, new (Model.new with form input),
# created, raw_N (rows written with SQL: edge values of each type), null, list (an
# Array of records sharing objects), in_hash; doc_* (serialized columns with a class),
# sti_* (single table inheritance: "type", a column of its own, STI off), store_N
# (store columns: JSON, YAML, texts that are no Hash, NULL), virtual* (a query's own
# columns: select "*, '...'::timestamptz AS seen_at").
#
# Determinism: Time.now is frozen, ids come from a fresh database, TZ=UTC.

unless ENV["PGPORT"]
  exec("pg_virtualenv", "-t", "ruby", __FILE__, *ARGV)
end

ENV["TZ"] = "UTC"

require "active_support/all"
require "active_record"
require "bigdecimal"
require "json"
require "ipaddr"

OUT_DIR = File.expand_path(ARGV[0] || __dir__)
AR7 = ActiveRecord::VERSION::MAJOR >= 7
TAG = "ar#{ActiveRecord::VERSION::MAJOR}#{ActiveRecord::VERSION::MINOR}"

def fail!(msg)
  warn "records.rb: #{msg}"
  exit 1
end

CLOCK = Time.utc(2024, 3, 5, 14, 2, 9.5r)
class << Time
  def now(**kw)
    kw.empty? ? Time.at(CLOCK.to_r) : Time.at(CLOCK.to_r, **kw)
  end
end

# What a Rails app's railtie sets (config.time_zone "UTC")
ActiveRecord::Base.logger = nil
if AR7
  ActiveRecord.default_timezone = :utc
else
  ActiveRecord::Base.default_timezone = :utc
end
ActiveRecord::Base.time_zone_aware_attributes = true
Time.zone_default = Time.find_zone!("UTC")
ActiveRecord::Schema.verbose = false
ActiveSupport::Deprecation.silenced = true if ActiveRecord::VERSION::MAJOR < 7 # 6.1: interval is a String

# A class a YAML column may hold (serialize :x, Prefs)
class Prefs
  attr_accessor :theme, :size

  def initialize(theme = nil, size = nil)
    @theme = theme
    @size = size
  end
end
# A class whose new instance has no ivars (serialize :x, Flags: nil gives Flags.new)
class Flags
  attr_accessor :enabled, :level
end
# The app's permitted classes (yaml_column_permitted_classes) are not in a record's
# bytes: the extension assumes Symbol and HashWithIndifferentAccess, plus the column's
# object class and (7.2) the classes its coder permits, which the bytes hold.  6.1
# has no per-column list: Prefs and Flags are permitted app-wide there.
PERMITTED = [Symbol, ActiveSupport::HashWithIndifferentAccess].freeze
if AR7
  ActiveRecord.yaml_column_permitted_classes = PERMITTED
else
  ActiveRecord::Base.yaml_column_permitted_classes = PERMITTED + [Prefs, Flags]
end

require_relative "../rails/marshal_coder"

def serialize_columns(model)
  if AR7
    model.serialize :prefs, type: Hash, coder: YAML
    model.serialize :pobj, type: Prefs, coder: YAML, yaml: { permitted_classes: [Prefs] }
    model.serialize :settings, coder: MarshalCoder
  else
    model.serialize :prefs, Hash
    model.serialize :pobj, Prefs
    model.serialize :settings, MarshalCoder
  end
end

ROWS = {} # name => [bytes, json]
SKIPPED = [] # [name, why]: Rails raises

def row(name, value)
  fail!("duplicate row #{name}") if ROWS.key?(name)
  begin
    bytes = Marshal.dump(value) # the 7.1 format serializes every attribute: that may raise
    json = ActiveSupport::JSON.encode(Marshal.load(bytes))
  rescue StandardError => e
    SKIPPED << [name, "#{e.class}: #{e.message[0, 80]}"]
    return
  end
  again = ActiveSupport::JSON.encode(Marshal.load(bytes))
  fail!("#{name}: JSON differs between two loads") unless json == again
  fail!("#{name}: JSON holds a line break or tab") if json.match?(/[\t\n\r]/)
  ROWS[name] = [bytes, json]
  # to_yaml: the same in both formats; a Relation's is not a record's
  PENDING_YAML << [name, value] unless name.include?("_f71_") || value.is_a?(ActiveRecord::Relation)
end

# record.to_yaml (concise_attributes), as a YAML column or a job's arguments hold it; the
# JSON is that of what YAML.unsafe_load gives in the app that wrote it.  Written once an
# adapter's Marshal rows are (to_yaml reads every attribute, which changes the dump), of the
# records themselves (a copy's types are not the model's, and to_yaml would write them)
YAML_ROWS = {} # name => [yaml, json]
PENDING_YAML = []

def yaml_rows
  PENDING_YAML.each { |name, value| yaml_row(name, value) }
  PENDING_YAML.clear
end

def yaml_row(name, value)
  text = value.to_yaml
  json = ActiveSupport::JSON.encode(YAML.unsafe_load(text))
  raw = ActiveSupport::JSON.encode(before_type_cast(YAML.unsafe_load(text)))
rescue StandardError => e
  SKIPPED << ["yaml_#{name}", "#{e.class}: #{e.message[0, 80]}"]
else
  fail!("yaml_#{name}: JSON holds a line break or tab") if "#{json}#{raw}".match?(/[\t\n\r]/)
  YAML_ROWS[name] = [text, json, raw]
end

# The records in a value as their attributes before type cast (what to_yaml holds where
# it leaves the type out)
def before_type_cast(value)
  case value
  when ActiveRecord::Base then before_type_cast(value.attributes_before_type_cast)
  when Array then value.map { |v| before_type_cast(v) }
  when Hash then value.transform_values { |v| before_type_cast(v) }
  when String
    # bytes that are not UTF-8 (a coder's): as the extension shows them
    value.dup.force_encoding(Encoding::UTF_8).valid_encoding? ? value : { "$binary" => [value].pack("m0") }
  else value
  end
end

def read_all(record)
  record.class.attribute_names.each { |n| record.public_send(n) }
  record
end

# ---------------------------------------------------------------------------
# PostgreSQL: one column per OID type
# ---------------------------------------------------------------------------

# The table: every column type of the adapter (pg: one per OID type)
def things_table(t, pg)
  t.string :name
  t.text :body
  t.integer :small, limit: pg ? 2 : nil
  t.float :ratio
  t.boolean :flag
  t.decimal :amount, precision: 10, scale: 2
  t.decimal :whole, precision: 30, scale: 0
  t.decimal :exact
  t.datetime :at, precision: 6
  t.date :day
  t.time :tm
  t.json :js
  t.binary :data
  t.text :prefs
  t.text :pobj
  t.binary :settings
  t.timestamps null: true
  return unless pg

  t.bigint :large
  t.float :real, limit: 24
  t.column :atz, :timestamptz
  t.column :span, :interval
  t.jsonb :jb
  t.integer :ints, array: true
  t.string :tags, array: true
  t.decimal :decs, array: true
  t.datetime :stamps, array: true
  t.date :days, array: true
  t.jsonb :docs, array: true
  t.json :jsons, array: true
  t.column :hs, :hstore, array: true
  t.column :pts, :point, array: true
  t.column :spans, :interval, array: true
  t.column :ips, :inet, array: true
  t.column :nets, :cidr, array: true
  t.column :uids, :uuid, array: true
  t.binary :bins, array: true
  t.boolean :bools, array: true
  t.column :ip, :inet
  t.column :net, :cidr
  t.column :mac, :macaddr
  t.column :uid, :uuid
  t.column :h, :hstore
  t.column :cash, :money
  t.column :pt, :point
  t.column :ln, :line
  t.column :seg, :lseg
  t.column :bx, :box
  t.column :pth, :path
  t.column :poly, :polygon
  t.column :circ, :circle
  t.column :r4, :int4range
  t.column :r8, :int8range
  t.column :rn, :numrange
  t.column :rd, :daterange
  t.column :rts, :tsrange
  t.column :rtz, :tstzrange
  t.column :mood, :mood
  t.column :bits, "bit(8)"
  t.column :vbits, :varbit
  t.column :doc, :xml
  t.column :oid, :oid
  t.column :ci, :citext
  t.column :tv, :tsvector
end

PG_SCHEMA = proc do
  enable_extension "hstore"
  enable_extension "citext"
  execute "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')"
  create_table(:things) { |t| things_table(t, true) }
end

# Ruby values for create!
PG_VALUES = {
  name: "thing", body: "text\twith <b>tags</b>", small: -7, large: 2**40, ratio: 0.1, real: 1.5, flag: true,
  amount: BigDecimal("12.34"), whole: 2**70, exact: BigDecimal("-0.000001234"),
  at: Time.utc(2024, 3, 5, 14, 7, 9.123456r), atz: Time.utc(2024, 3, 5, 9, 7, 9.5r), day: Date.new(2024, 3, 1),
  tm: Time.utc(2000, 1, 1, 12, 30, 15.25r), span: 1.day + 2.hours, jb: { "a" => 1, "b" => [true, nil, "x"] },
  js: [1, { "k" => "v" }], data: "bytes \xc3\xa9\x01".b, ints: [1, nil, 3], tags: ["a", "b c", "", "\"q\""],
  decs: [BigDecimal("1.50"), BigDecimal("-2")], stamps: [Time.utc(2024, 1, 1), Time.utc(2024, 1, 2, 3, 4, 5)],
  days: [Date.new(2024, 1, 1)], docs: [{ "x" => 1 }, { "y" => [2] }], jsons: [{ "a" => [1, "x"] }, nil, "s", 2.5, { "k" => {} }],
  hs: [{ "a" => "1", "b" => nil }, {}], pts: ["(1,2)", "(-1.5,0)"], spans: [1.day, 3.hours + 2.minutes, -1.second],
  ips: [IPAddr.new("10.0.0.1"), IPAddr.new("10.1.0.0/16"), IPAddr.new("::1")], nets: [IPAddr.new("192.168.0.0/24")],
  uids: ["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"], bools: [true, false, nil], ip: IPAddr.new("192.168.1.7"),
  net: IPAddr.new("10.0.0.0/8"), mac: "08:00:2b:01:02:03", uid: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
  h: { "k" => "v", "n" => nil }, cash: BigDecimal("1234.56"), pt: "(1.5,-2)",
  ln: "{1,-1,0}", seg: "[(0,0),(1,1)]", bx: "(1,1),(0,0)", pth: "((0,0),(1,1),(2,0))", poly: "((0,0),(1,1),(1,0))",
  circ: "<(1,2),3>", r4: 1...10, r8: 2**40..2**41, rn: BigDecimal("1.5")..BigDecimal("2.5"),
  rd: Date.new(2024, 1, 1)...Date.new(2024, 2, 1), rts: Time.utc(2024, 1, 1)...Time.utc(2024, 1, 2),
  rtz: Time.utc(2024, 1, 1, 5)..Time.utc(2024, 1, 1, 6), mood: "happy", bits: "10101010", vbits: "101",
  doc: "<a>x</a>", oid: 12_345, ci: "MiXeD", tv: "'a' 'b'", prefs: { "theme" => "dark", "n" => [1, 2] },
  pobj: Prefs.new("light", 3), settings: { "limits" => [1, 2], "since" => Date.new(2024, 1, 1) },
  created_at: Time.utc(2024, 3, 5, 14, 0, 0), updated_at: Time.utc(2024, 3, 5, 14, 1, 0.5r)
}.freeze

# Rows written with SQL: the text PostgreSQL returns for each type, edge values
PG_RAW = [
  { name: "'raw'", small: "32767", large: "-9223372036854775808", ratio: "'NaN'", real: "'-Infinity'", flag: "false",
    amount: "'-0.5'", whole: "123456789012345678901234567890", exact: "'NaN'", at: "'infinity'",
    atz: "'2024-03-05 09:07:09.999999+05:30'", day: "'-infinity'", tm: "'23:59:59.999999'",
    span: "'1 year 2 mons 3 days 04:05:06.789'", jb: "'[1, 2.50, {\"\": null}]'", js: "'{\"a\" : 1, \"a\": 2}'",
    data: "'\\x'", ints: "'{{1,2},{3,4}}'", tags: "'{NULL,\"NULL\",\"a,b\",\"{}\"}'", decs: "'{NaN,1e3}'",
    stamps: "'{infinity,\"2024-01-01 00:00:00.5\"}'", days: "'{}'", docs: "ARRAY['{\"a\": [1]}'::jsonb, 'null'::jsonb]",
    jsons: "ARRAY['[1, 2.50]'::json, NULL, '\"x\"']", hs: "ARRAY['\"k\"=>\"v\"'::hstore, '']",
    pts: "'{\"(1e300,-0)\",NULL}'", spans: "'{\"1 year 2 mons\",\"-3 days\"}'", ips: "'{2001:db8::1/64,10.0.0.1/8}'",
    nets: "'{2001:db8::/32}'", uids: "'{}'", bins: "ARRAY['\\x6869'::bytea, '']", bools: "'{t,f,NULL}'",
    ip: "'2001:db8::1/64'", net: "'2001:db8::/32'", mac: "'08:00:2b:01:02:03'", uid: "'00000000-0000-0000-0000-000000000000'",
    h: "'\"a b\"=>\"c\\\"d\", \"e\"=>NULL, \"\"=>\"\"'", cash: "'-0.01'", pt: "'(1e300,-0)'", r4: "'empty'",
    r8: "'(,5]'", rn: "'[1.5,)'", rd: "'[2024-01-01,infinity)'", rts: "'(,)'", rtz: "'[2024-01-01 00:00+02,2024-01-02)'",
    mood: "'sad'", bits: "B'00000000'", vbits: "B''", doc: "'<?xml version=\"1.0\"?><a/>'", oid: "4294967295",
    ci: "''", tv: "''", prefs: "'--- {}\n'", pobj: "NULL", settings: "NULL" },
  { name: "'second'", small: "-32768", ratio: "'Infinity'", real: "'1e-45'", amount: "'99999999.99'", exact: "'1e-30'",
    at: "'2024-02-29 23:59:59.5'", atz: "'-infinity'", day: "'1999-12-31'", tm: "'00:00'", span: "'-00:00:00.000001'",
    jb: "'\"string\"'", js: "'null'", data: "'\\x6162'", ints: "'{}'", tags: "'{\"日本\",é}'", stamps: "'{NULL}'",
    ip: "'::ffff:1.2.3.4'", net: "'192.168.0.0/16'", h: "''", cash: "'0'", r4: "'[-5,-1]'", rn: "'[0,1)'",
    rd: "'empty'", mood: "'ok'", bits: "B'11111111'", vbits: "B'1'", doc: "'plain text'", oid: "0",
    prefs: "NULL", pobj: "'--- !ruby/object:Prefs\ntheme: blue\nsize: 7\n'" }
].freeze

# Form input (Strings) for Model.new and assignment
PG_FORM = {
  name: "form", small: " 12 ", ratio: "1e3", flag: "0", amount: "9.999", whole: "1e5", exact: "abc",
  at: "2024-03-06 10:00:00", atz: "2024-03-06T10:00:00+05:30", day: "2024-02-30", tm: "10:11:12.5",
  span: "P1DT2H", jb: "{\"a\": [1, 2]}", js: "[1,2", ints: %w[1 2 x], tags: %w[a b], decs: ["1.5", ""],
  ip: "10.1.2.3", uid: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", h: "\"a\"=>\"b\"", cash: "$1,234.50",
  r4: "[1,5)", mood: "ok", bits: "1100", oid: "77", ips: ["10.0.0.1/8", "::1"], spans: ["P1D", "PT1.5S"], pts: ["(3,4)"],
  jsons: ["[1]", "{\"a\": 2}"]
}.freeze

# ---------------------------------------------------------------------------
# SQLite (7.2 only; 6.1 sqlite records are test/rails/records.tsv)
# ---------------------------------------------------------------------------

SQ_SCHEMA = proc do
  create_table(:things) { |t| things_table(t, false) }
end

SQ_VALUES = PG_VALUES.slice(:name, :body, :small, :ratio, :flag, :amount, :whole, :exact, :at, :day, :tm, :js, :data,
                            :prefs, :pobj, :settings, :created_at, :updated_at)
SQ_RAW = [{ name: "'raw'", small: "'  7'", ratio: "'abc'", flag: "'t'", amount: "9.995", whole: "'1e5'", exact: "'1/3'",
            at: "'2024-03-05T14:07:09Z'", day: "'2024-03-05 10:00'", tm: "'2000-01-01 10:11:12.5'", js: "'{\"a\":[1,2]}'",
            data: "X'6162'", prefs: "'--- {}\n'", pobj: "NULL" }].freeze
SQ_FORM = PG_FORM.slice(:name, :small, :ratio, :flag, :amount, :whole, :exact, :at, :day, :tm, :js)

# ---------------------------------------------------------------------------
# Serialized columns with an object class (YAMLColumn's object_class, 7.2's
# ColumnSerializer): nil loads as the class's new instance
# ---------------------------------------------------------------------------

DOC_SCHEMA = proc do
  create_table(:docs) do |t|
    t.text :prefs # serialize Hash
    t.text :list # serialize Array
    t.text :pobj # serialize Prefs (initialize sets @theme and @size)
    t.text :flags # serialize Flags (no ivars until set)
    t.text :hw # serialize HashWithIndifferentAccess
    t.text :obj # serialize (Object: YAML as it loads)
    t.text :jh # 7.2: serialize type: Hash, coder: JSON
    t.binary :mh # 7.2: serialize type: Hash, coder: MarshalCoder
  end
end

def serialize_docs(model)
  if AR7
    model.serialize :prefs, type: Hash, coder: YAML
    model.serialize :list, type: Array, coder: YAML
    model.serialize :pobj, type: Prefs, coder: YAML, yaml: { permitted_classes: [Prefs] }
    model.serialize :flags, type: Flags, coder: YAML, yaml: { permitted_classes: [Flags] }
    model.serialize :hw, type: ActiveSupport::HashWithIndifferentAccess, coder: YAML
    model.serialize :obj, coder: YAML, yaml: { permitted_classes: [Prefs, Flags, Date] }
    model.serialize :jh, type: Hash, coder: JSON
    model.serialize :mh, type: Hash, coder: MarshalCoder
  else
    model.serialize :prefs, Hash
    model.serialize :list, Array
    model.serialize :pobj, Prefs
    model.serialize :flags, Flags
    model.serialize :hw, ActiveSupport::HashWithIndifferentAccess
    model.serialize :obj
  end
end

def sql_text(text)
  text.nil? ? "NULL" : "'#{text.gsub("'", "''")}'"
end

# Texts as the column holds them (NULL: the class's new instance), one row each
# column-by-column: texts Rails loads, and some it refuses (SerializationTypeMismatch,
# a class not permitted), which the generator lists as left out
DOC_TEXTS = {
  prefs: ["--- {}\n", "---\na: 1\nb:\n- x\n- 2.5\n- ~\n", "---\n:sym: 1\n'1': true\n2: [a, {b: c}]\n", "--- \n", "",
          "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: 1\nb: !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  c: 2\n",
          "{a: [1, 2], 'b': x}", "---\nx: &a\n  k: v\ny: *a\n", "--- []\n", "--- text\n", "---\n...\n",
          "---\nd: 2024-01-01\n", "---\nn: !ruby/object:Flags\n  on: true\n", "--- !ruby/object:Prefs\ntheme: x\n"],
  list: ["--- []\n", "---\n- 1\n- two\n- :three\n- {k: v}\n- [1.5, ~]\n", "--- \n", "[a, b]", "--- {}\n",
         "--- !ruby/array:Array\n- 1\n", "---\n- &a [x, {k: v}]\n- *a\n"],
  pobj: ["--- !ruby/object:Prefs\ntheme: blue\nsize: 7\n", "--- !ruby/object:Prefs {}\n", "--- \n",
         "--- !ruby/object:Prefs\ntheme: !ruby/object:Prefs\n  size: 1\n", "--- {}\n", "--- !ruby/object:Flags\non: 1\n"],
  flags: ["--- !ruby/object:Flags\non: true\nlevel: 3\n", "--- !ruby/object:Flags {}\n", "--- \n", "",
          "--- !ruby/object:Flags\nlevel: [1, {a: b}]\n"],
  hw: ["--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: 1\n:b: 2\n", "--- \n",
       "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess {}\n", "---\na: 1\n"],
  obj: ["--- \n", "", "plain text", "{a: 1}", "--- 1.5\n", "--- :sym\n", "--- !ruby/object:Flags\non: false\n",
        "---\n- !ruby/object:Prefs\n  theme: t\n- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  k: v\n"],
  jh: ["{}", "{\"a\": [1, null]}", "", "null", "[1]"],
  mh: []
}.freeze

DOC_VALUES = [
  { prefs: { "theme" => "dark", :size => 3, "n" => [1, { "d" => nil }] }, list: [1, "two", :three, { "k" => [] }],
    pobj: Prefs.new("light", 3), flags: Flags.new.tap { |f| f.enabled = true }, hw: { "a" => { "b" => 1 } }.with_indifferent_access,
    obj: { "free" => [Prefs.new("x", 1)] }, jh: { "j" => [1, 2.5, nil] }, mh: { "m" => Date.new(2024, 1, 1) } },
  { prefs: {}, list: [], pobj: Prefs.new, flags: Flags.new, hw: ActiveSupport::HashWithIndifferentAccess.new, obj: nil,
    jh: {}, mh: {} }
].freeze

def doc_states(prefix, model)
  fmt = ->(name) { "#{prefix}_doc_#{name}" }
  cols = model.column_names - ["id"]
  rows = DOC_TEXTS.flat_map { |col, texts| cols.include?(col.to_s) ? texts.map { |t| [col, t] } : [] }
  rows.each do |col, text|
    model.connection.execute("INSERT INTO docs (#{col}) VALUES (#{sql_text(text)})")
  end
  model.connection.execute("INSERT INTO docs (prefs) VALUES (NULL)")
  ids = model.order(:id).pluck(:id)
  ids.each_with_index do |id, i|
    row(fmt.("raw_#{i + 1}"), model.find(id))
    begin
      row(fmt.("raw_#{i + 1}_read"), read_all(model.find(id)))
    rescue StandardError => e
      SKIPPED << [fmt.("raw_#{i + 1}_read"), "#{e.class}: #{e.message[0, 80]}"]
    end
  end
  keep = DOC_VALUES.map { |v| v.slice(*cols.map(&:to_sym)) }
  created = keep.map { |v| model.create!(v) }
  created.each_with_index do |r, i|
    row(fmt.("created_#{i + 1}"), r)
    row(fmt.("loaded_#{i + 1}"), model.find(r.id))
    row(fmt.("read_#{i + 1}"), read_all(model.find(r.id)))
  end
  changed = model.find(created.first.id)
  changed.prefs = { "changed" => [true] }
  changed.pobj = nil
  changed.list = nil
  changed.flags = Flags.new.tap { |f| f.level = 2 }
  row(fmt.("changed"), changed)
  row(fmt.("changed_read"), read_all(changed))
  row(fmt.("new"), model.new(keep.first))
  row(fmt.("new_empty"), model.new)
  row(fmt.("new_empty_read"), read_all(model.new))
  list = model.where(id: created.map(&:id) + ids.first(2)).order(:id).to_a
  row(fmt.("list"), list)
  row(fmt.("in_hash"), { "docs" => list, "first" => list.first, "by_id" => list.to_h { |r| [r.id.to_s, r] } })
end

# ---------------------------------------------------------------------------
# Single table inheritance, stores, a query's own columns
# ---------------------------------------------------------------------------

MORE_SCHEMA = proc do
  create_table(:animals) { |t| t.string :name; t.string :type; t.integer :legs }
  create_table(:vehicles) { |t| t.string :name; t.string :kind; t.string :type }
  create_table(:notes) { |t| t.string :body; t.string :type }
  create_table(:accounts) do |t|
    t.string :name
    t.text :options # store, coder: JSON
    t.text :profile # store (YAML) with accessors
    t.text :extras # store (YAML), no accessors
  end
end

# The models: an STI tree under the default inheritance column "type" (a namespaced
# subclass too), one under a column of its own ("kind", beside a plain "type"), and
# a model whose "type" is no inheritance column at all (STI turned off)
def more_models
  Object.send(:remove_const, :Zoo) if Object.const_defined?(:Zoo)
  %i[Animal Dog Puppy Vehicle Car Note Account].each { |c| Object.send(:remove_const, c) if Object.const_defined?(c) }
  Object.const_set(:Animal, Class.new(ActiveRecord::Base))
  Object.const_set(:Dog, Class.new(Animal))
  Object.const_set(:Puppy, Class.new(Dog))
  Object.const_set(:Zoo, Module.new)
  Zoo.const_set(:Cat, Class.new(Animal))
  Object.const_set(:Vehicle, Class.new(ActiveRecord::Base) { self.inheritance_column = "kind" })
  Object.const_set(:Car, Class.new(Vehicle))
  Object.const_set(:Note, Class.new(ActiveRecord::Base) { self.inheritance_column = :_type_disabled })
  Object.const_set(:Account, Class.new(ActiveRecord::Base))
  Account.store :options, accessors: %i[color size], coder: JSON
  Account.store :profile, accessors: %i[lang]
  Account.store :extras
end

# Texts a store's column may hold: IndifferentCoder makes anything but a Hash {}
STORE_TEXTS = {
  options: ["{}", "{\"color\":\"red\",\"size\":3,\"nested\":{\"a\":[1,null]}}", "", "null", "[1,2]", "\"text\"", "3"],
  profile: ["--- {}\n", "---\nlang: en\n:sym: 1\n", "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\nlang: fr\n",
            "", "--- \n", "--- []\n", "--- text\n", "---\n- 1\n"],
  extras: ["---\nk: [1, 2]\n"]
}.freeze

def more_states(prefix, pg)
  fmt = ->(name) { "#{prefix}_#{name}" }
  ActiveRecord::Base.connection.execute("DELETE FROM #{%w[animals vehicles notes accounts].join('; DELETE FROM ')}")
  dog = Dog.create!(name: "rex", legs: 4)
  Animal.create!(name: "generic")
  Animal.create!(name: "named", type: "Animal")
  Puppy.create!(name: "bit")
  cat = Zoo::Cat.create!(name: "tom")
  row(fmt.("sti_created"), dog)
  row(fmt.("sti_loaded"), Animal.find(dog.id))
  row(fmt.("sti_read"), read_all(Animal.find(dog.id)))
  row(fmt.("sti_namespaced"), Animal.find(cat.id))
  row(fmt.("sti_new"), Dog.new(name: "new"))
  row(fmt.("sti_new_base"), Animal.new(name: "base"))
  row(fmt.("sti_changed"), Animal.find(dog.id).tap { |a| a.name = "renamed"; a.legs = "3" })
  row(fmt.("sti_list"), Animal.order(:id).to_a)
  row(fmt.("sti_in_hash"), { "pets" => Animal.order(:id).to_a, "first" => Dog.first })
  car = Car.create!(name: "c", type: "sedan")
  Vehicle.create!(name: "v")
  row(fmt.("sti_custom_list"), Vehicle.order(:id).to_a)
  row(fmt.("sti_custom_read"), read_all(Vehicle.find(car.id)))
  Note.create!(body: "a", type: "reminder")
  Note.create!(body: "b", type: "Note")
  Note.create!(body: "c")
  row(fmt.("sti_off_list"), Note.order(:id).to_a)

  Account.create!(name: "a", color: "red", size: 3, lang: "en", extras: { "k" => [1, { "d" => nil, :s => 2.5 }] })
  Account.create!(name: "empty")
  STORE_TEXTS.each do |col, texts|
    texts.each { |t| ActiveRecord::Base.connection.execute("INSERT INTO accounts (name, #{col}) VALUES ('raw', #{sql_text(t)})") }
  end
  ActiveRecord::Base.connection.execute("INSERT INTO accounts (name) VALUES (NULL)")
  Account.order(:id).pluck(:id).each_with_index do |id, i|
    row(fmt.("store_#{i + 1}"), Account.find(id))
    row(fmt.("store_#{i + 1}_read"), read_all(Account.find(id)).tap { |a| a.color; a.lang })
  end
  row(fmt.("store_new"), Account.new(color: "blue", lang: "de"))
  row(fmt.("store_new_empty"), Account.new)
  row(fmt.("store_changed"), Account.order(:id).first.tap { |a| a.size = 4; a.extras = { "x" => 1 } })
  row(fmt.("store_list"), Account.order(:id).to_a)

  # a query's own columns: types the result gives (LazyAttributeSet's additional_types)
  cols = if pg
           "'2024-03-05 14:02:09.5+05:30'::timestamptz AS seen_at, '2024-03-05 14:02:09.123456'::timestamp AS seen_local, " \
             "'-infinity'::timestamptz AS seen_never, '12.50'::numeric AS total, '1 day 02:00:00'::interval AS span, " \
             "ARRAY[1, 2] AS nums, '2024-03-01'::date AS day, 't'::boolean AS yes, '{\"a\": 1}'::jsonb AS doc, " \
             "'10.0.0.1/8'::inet AS addr, count(*) OVER () AS total_count"
         else
           "'2024-03-05 14:02:09.5' AS seen_at, 12.5 AS total, 1 AS yes, count(*) OVER () AS total_count"
         end
  row(fmt.("virtual"), Account.select("*, #{cols}").order(:id).first)
  row(fmt.("virtual_read"), Account.select("*, #{cols}").order(:id).first.tap(&:attributes))
  row(fmt.("virtual_sti"), Animal.select("animals.*, #{cols}").order(:id).to_a)
end

# ---------------------------------------------------------------------------
# The records
# ---------------------------------------------------------------------------

def states(prefix, model, values, raw, form)
  fmt = ->(name) { "#{prefix}_#{name}" }
  first = model.create!(values)
  raw.each { |cols| model.connection.execute("INSERT INTO things (#{cols.keys.join(', ')}) VALUES (#{cols.values.join(', ')})") }
  model.connection.execute("INSERT INTO things (name) VALUES (NULL)")
  ids = model.order(:id).pluck(:id)

  row(fmt.("loaded"), model.find(first.id))
  row(fmt.("read"), read_all(model.find(first.id)))
  row(fmt.("materialized"), model.find(first.id).tap(&:attributes))
  ids[1..-2].each_with_index do |id, i|
    row(fmt.("raw_#{i + 1}"), model.find(id))
    row(fmt.("raw_#{i + 1}_read"), read_all(model.find(id)))
  end
  row(fmt.("null"), model.find(ids.last))
  changed = model.find(first.id)
  form.each { |k, v| changed.public_send("#{k}=", v) }
  row(fmt.("changed"), changed)
  row(fmt.("changed_read"), read_all(changed))
  row(fmt.("new"), model.new(form))
  row(fmt.("new_empty"), model.new)
  if model.column_names.include?("cash")
    # OID::Money#cast_value keeps what is not a String: a Float assigned stays a Float
    [-3.5, 7, BigDecimal("2.25"), 2**70, "-3.5", "(1,234.50)"].each_with_index do |v, i|
      row(fmt.("new_money_#{i + 1}"), model.new(cash: v))
    end
  end
  created = model.create!(values.merge(name: "created"))
  row(fmt.("created"), created)
  list = model.order(:id).to_a
  row(fmt.("list"), list)
  row(fmt.("in_hash"), { "thing" => list.first, "count" => list.size, "again" => [list.first] })
  # a loaded Relation (a cached query): its as_json is its records'
  relation = model.where(id: list.first(2).map(&:id)).order(:id).load
  row(fmt.("relation"), relation)
  row(fmt.("relation_in_hash"), { "rows" => relation, "count" => 2 })
end

def run_adapter(prefix, config, schema, values, raw, form)
  ActiveRecord::Base.establish_connection(config)
  ActiveRecord::Schema.define(&schema)
  ActiveRecord::Schema.define(&DOC_SCHEMA)
  ActiveRecord::Schema.define(&MORE_SCHEMA)
  more_models
  model = Class.new(ActiveRecord::Base) { self.table_name = "things" }
  Object.send(:remove_const, :Thing) if Object.const_defined?(:Thing)
  Object.const_set(:Thing, model)
  serialize_columns(model)
  docs = Class.new(ActiveRecord::Base) { self.table_name = "docs" }
  Object.send(:remove_const, :Doc) if Object.const_defined?(:Doc)
  Object.const_set(:Doc, docs)
  docs.ignored_columns = %w[jh mh] unless AR7
  serialize_docs(docs)
  formats = AR7 ? [6.1, 7.1] : [nil]
  formats.each do |f|
    ActiveRecord.marshalling_format_version = f if f
    model.connection.execute("DELETE FROM things")
    model.connection.execute("DELETE FROM docs")
    name = "#{prefix}#{f ? "_f#{f.to_s.delete('.')}" : ''}"
    states(name, model, values, raw, form)
    doc_states(name, docs)
    more_states(name, config[:adapter] == "postgresql")
  end
  yaml_rows
  ActiveRecord::Base.remove_connection
end

# a fresh database of our own in the server PG* names
pg = { adapter: "postgresql", host: ENV["PGHOST"], port: ENV["PGPORT"], username: ENV["PGUSER"],
       password: ENV["PGPASSWORD"], database: ENV["PGDATABASE"] || "postgres" }
ActiveRecord::Base.establish_connection(pg)
ActiveRecord::Base.connection.execute("DROP DATABASE IF EXISTS rbmarshal_fidelity")
# UTF-8 as a Rails app's database is (the adapter's default encoding, unicode): a
# cluster made in a C locale is SQL_ASCII, where the pg gem reads Strings as binary
ActiveRecord::Base.connection.execute("CREATE DATABASE rbmarshal_fidelity ENCODING 'UTF8' " \
                                      "LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
ActiveRecord::Base.remove_connection
pg[:database] = "rbmarshal_fidelity"
run_adapter("pg", pg, PG_SCHEMA, PG_VALUES, PG_RAW, PG_FORM)
run_adapter("sq", { adapter: "sqlite3", database: ":memory:" }, SQ_SCHEMA, SQ_VALUES, SQ_RAW, SQ_FORM) if AR7

File.binwrite(File.join(OUT_DIR, "#{TAG}_records.tsv"),
              ROWS.map { |n, (b, j)| "#{n}\t#{b.unpack1('H*')}\t#{j}\n" }.join)
File.binwrite(File.join(OUT_DIR, "#{TAG}_yaml_records.tsv"),
              YAML_ROWS.map { |n, (y, j, r)| "#{n}\t#{y.unpack1('H*')}\t#{j}\t#{r}\n" }.join)
puts "#{TAG}_records.tsv (Active Record #{ActiveRecord::VERSION::STRING}): #{ROWS.size} rows"
puts "#{TAG}_yaml_records.tsv: #{YAML_ROWS.size} rows"
puts "left out, as Rails raises (#{SKIPPED.size}):"
SKIPPED.each { |n, why| puts "  #{n}: #{why}" }
