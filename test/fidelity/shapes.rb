#!/usr/bin/env ruby
# Generates the fidelity data of issue #14: every shape a Rails app leaves, with the
# answer of real Ruby + ActiveSupport.  Runs under ActiveSupport 6.1 (Debian's
# ruby-activesupport) and 7.2 (the Rails source, through rails72.sh); where they
# differ, 7.2 is the contract.
#
#   ruby test/fidelity/shapes.rb [OUT_DIR]                        (ActiveSupport 6.1)
#   bash test/fidelity/rails72.sh ruby test/fidelity/shapes.rb [OUT_DIR]   (7.2)
#
# Written into OUT_DIR (default: this folder), TAG = as61 or as72:
#   TAG_to_json.tsv    name  hex  expected_json
#                      expected_json = ActiveSupport::JSON.encode(Marshal.load(hex))
#   TAG_paths.tsv      name  hex  path  expected_hex
#                      expected_hex = Marshal.dump of the sub-value the JSON view (view.rb)
#                      finds at path, as a fresh `ruby` dumps it; NULL when nothing is there
#   TAG_refused.tsv    name  hex  class
#                      Hash keys whose to_s is an inspect text: the extension refuses them
#                      with an error naming that Ruby class
#   TAG_bigdecimal.tsv name  hex  ruby
#                      u:BigDecimal payloads: ruby is ActiveSupport's JSON of what
#                      BigDecimal._load gives, or "error" when MRI refuses the payload
#   TAG_inspect.tsv    name  hex  inspect
#                      Ruby 3.1's inspect of ActiveSupport values (TimeWithZone, Duration,
#                      OrderedOptions, Complex); \\, TAB, LF, CR escaped as in test/literal
#   as72_cache.tsv     (7.2 only) name  format  hex  value_hex  expires_at  version
#                      entries written by the real 7.0 and 7.1 coders; expires_at is
#                      Time.at(expiry).utc to the microsecond, truncated as Time#usec
#
# Groups: u_* (marshal_dump with every payload), key_* (non-String Hash keys), range_*,
# asj_* (the classes ActiveSupport gives an as_json), enc_* (UTF-16/UTF-32), bd_*, nest_*
# (random values nesting all of these, as keys and values, with shared references).
#
# Contract patches (SPEC section 3 deviations, where Ruby's answer is not in the bytes):
# a user class's marshal_dump data is its JSON; ActiveSupport::TimeZone is its name;
# under 6.1 a Module is its name (7.x behaviour).  OpenStruct is NOT patched: it is
# {"table": {...}} as ActiveSupport writes it.
#
# Determinism: seeded Random, fixed times, TZ=America/New_York, no clock.

ENV["TZ"] = "America/New_York"
# Rails makes UTF-8 the default external encoding when it loads (railties' rails.rb);
# without that, in a C/POSIX locale String#inspect (an Array key's to_s) escapes every
# non-ASCII character and the data would depend on the machine's locale.  (Rails sets
# default_internal too; here that would transcode the binary pipe to fresh_ruby.)
Encoding.default_external = Encoding::UTF_8

require "active_support"
require "active_support/all"
require "active_support/ordered_options" # InheritableOptions: no autoload of its own
require "bigdecimal"
require "bigdecimal/util"
require "date"
require "json"
require "set"
require "ostruct"
require "ipaddr"
require "uri"
require "pathname"
require "base64"
require_relative "../fixtures/classes"
require_relative "../seeded_random"
require_relative "view"
require_relative "../diff/fresh_ruby"

AS_VERSION = ActiveSupport::VERSION
TAG = "as#{AS_VERSION::MAJOR}#{AS_VERSION::MINOR}"
OUT_DIR = File.expand_path(ARGV[0] || __dir__)

require_relative "../generator"

# ---------------------------------------------------------------------------
# The contract's deviations from ActiveSupport (and 6.1 -> 7.x)
# ---------------------------------------------------------------------------

require_relative "../diff/as_contract" # Module (6.1 -> 7.x), ActiveSupport::TimeZone

# A user class with marshal_dump: its JSON is its dump data (the code is not in the bytes).
module UserMarshalled
  def as_json(options = nil)
    marshal_dump.as_json(options)
  end
end

class Currency # the issue's example: a value object dumping one String
  include UserMarshalled
  def initialize(code)
    @code = code
  end

  def marshal_dump
    @code
  end

  def marshal_load(code)
    @code = code
  end
end

class Wrapped # marshal_dump returns any value
  include UserMarshalled
  attr_reader :payload

  def initialize(payload)
    @payload = payload
  end

  def marshal_dump
    @payload
  end

  def marshal_load(payload)
    @payload = payload
  end
end

# marshal_dump may not return an instance of its own class
def wrap(value)
  (value.is_a?(Wrapped) ? Currency : Wrapped).new(value)
end

Pair = Struct.new(:left, :right)

class Node # plain `o` object
  def initialize(**ivars)
    ivars.each { |k, v| instance_variable_set(:"@#{k}", v) }
  end
end

# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------

FRESH = FreshRuby.new(FidelityView::MISSING) { |value, steps| FidelityView.navigate(value, steps) }

TO_JSON = {}   # name => [stream, json]
REFUSED = {}   # name => [stream, class name]
BIGDEC = {}    # name => [stream, ruby]
INSPECT = {}   # name => [stream, text]
SKIPPED = []   # [name, why]

def check_name!(name, table)
  fail!("bad row name #{name.inspect}") unless name.match?(/\A[a-z0-9_]+\z/)
  fail!("duplicate row name #{name}") if table.key?(name)
end

def encode(value)
  ActiveSupport::JSON.encode(value)
end

def first_refused_key(value, seen = {}.compare_by_identity)
  return nil if seen.key?(value)

  seen[value] = true
  kids = case value
         when Hash
           key = value.keys.find { |k| FidelityView.inspect_text_key?(k) }
           return key.class if key

           value.keys + value.values
         when Array, Set then value.to_a
         when Struct then value.to_a
         when UserMarshalled then [value.marshal_dump]
         when OpenStruct then [value.to_h]
         else value.instance_variables.map { |iv| value.instance_variable_get(iv) }
         end
  kids.each { |k| (c = first_refused_key(k, seen)) && (return c) }
  nil
end

# The JSON is taken from Marshal.load(stream): the extension sees only the bytes.
def row(name, value)
  stream = Marshal.dump(value)
  begin
    loaded = Marshal.load(stream)
  rescue ArgumentError, TypeError => e
    SKIPPED << [name, "Marshal.load raises #{e.class}: #{e.message[0, 60]}"]
    return
  end
  if (cls = first_refused_key(loaded))
    check_name!(name, REFUSED)
    REFUSED[name] = [stream, cls.name]
    return
  end
  begin
    json = encode(loaded)
  rescue StandardError, SystemStackError => e
    SKIPPED << [name, "ActiveSupport raises #{e.class}: #{e.message[0, 60].tr("\n\t", '  ')}"]
    return
  end
  if json.include?("\\u0000")
    SKIPPED << [name, "the JSON holds \\u0000 (jsonb cannot; the contract gives $binary)"]
    return
  end
  fail!("#{name}: JSON text is not UTF-8") unless json.encoding == Encoding::UTF_8 && json.valid_encoding?
  check_name!(name, TO_JSON)
  TO_JSON[name] = [stream, json]
end

# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------

ZONES = ["UTC", "Eastern Time (US & Canada)", "Asia/Kolkata", "Kathmandu", "Tokyo", "London",
         "Pacific Time (US & Canada)", "Chatham Is.", "Etc/UTC", "America/St_Johns"].freeze

def twz(zone, *utc)
  Time.utc(*utc).in_time_zone(zone)
end

# One of each kind of scalar a key or a Range end can be, by kind
SCALARS = {
  "date" => [Date.new(2024, 3, 1), Date.new(1999, 12, 31), Date.new(1500, 3, 1), Date.new(1, 1, 1),
             Date.new(10_000, 1, 1), Date.new(2024, 2, 29, Date::GREGORIAN)],
  "time_utc" => [Time.utc(2024, 1, 1), Time.utc(2024, 3, 5, 14, 7, 9.5r), Time.utc(1969, 12, 31, 23, 59, 59),
                 Time.utc(999, 1, 1), Time.utc(12_345, 6, 7), Time.utc(2024, 1, 1, 0, 0, Rational(1, 3))],
  "time_offset" => [Time.new(2024, 1, 1, 0, 0, 0, "+09:00"), Time.new(2024, 1, 1, 0, 0, 0, "-05:30"),
                    Time.new(2000, 1, 1, 0, 0, 0, 3723), Time.new(2024, 1, 1, 0, 0, 0, "+00:00")],
  "time_local" => [Time.local(2024, 1, 15, 12), Time.local(2024, 7, 15, 12, 30, 15.25r)],
  "twz" => [twz("Eastern Time (US & Canada)", 2024, 3, 1, 5), twz("Asia/Kolkata", 2024, 3, 5, 14, 7, 9),
            twz("London", 2020, 1, 1, 12), twz("UTC", 2024, 1, 1), twz("Chatham Is.", 2020, 1, 1, 12, 0, 0.123456789r),
            twz("Kathmandu", 2023, 12, 31, 23, 59, 59)],
  "datetime" => [DateTime.new(2024, 1, 1, 12), DateTime.new(2024, 3, 5, 14, 7, 9.5r, "+02:00"),
                 DateTime.new(1500, 1, 1, 12, 0, 0, "-04:00")],
  "bigdecimal" => [BigDecimal("1.5"), BigDecimal("1e20"), BigDecimal("-0.000001234"), BigDecimal("0"),
                   BigDecimal("-0"), BigDecimal("123456789012345678901234567890.5"), BigDecimal("NaN"),
                   BigDecimal("Infinity"), BigDecimal("-Infinity"), BigDecimal("1e-30")],
  "rational" => [Rational(1, 3), Rational(-7, 2), Rational(5, 1), Rational(2**70, 3), Rational(0)],
  "complex" => [Complex(1, 2), Complex(1.5, -0.0), Complex(-0.0, -0.0), Complex(0, 1), Complex(Rational(1, 2), 3),
                Complex(2**70, -1), Complex(1.0, Float::INFINITY), Complex(Float::NAN, 1)],
  "float" => [1.0e20, 1.5, -0.0, 0.0, 1e-5, 123456789.123, Float::INFINITY, -Float::INFINITY, Float::NAN, 1e100, 100.0],
  "integer" => [0, -1, 2**30, 2**64, -(2**70)],
  "nil" => [nil],
  "bool" => [true, false],
  "symbol" => [:a, :"with space", :é, :""],
  "string_subclass" => [ActiveSupport::SafeBuffer.new("safe <b>"), MyString.new("mine"), "plain"],
  "duration" => [3.days, 1.month + 2.hours, 90.seconds]
}.freeze

RANGE_ENDS = {
  "integer" => [[1, 10], [-5, 2**70], [0, nil], [nil, 5]],
  "float" => [[1.5, 2.0], [-0.0, 1e20], [0.1, nil]],
  "string" => [%w[a z], ["2024-03-01", "2024-03-08"], ["é", "ü"]],
  "date" => [[Date.new(2024, 3, 1), Date.new(2024, 3, 8)], [nil, Date.new(2024, 1, 1)], [Date.new(2024, 1, 1), nil]],
  "time" => [[Time.utc(2024, 1, 1), Time.utc(2024, 2, 1)], [Time.new(2024, 1, 1, 0, 0, 0, "+09:00"), nil],
             [Time.local(2024, 1, 1), Time.local(2024, 7, 1)]],
  "twz" => [[twz("Eastern Time (US & Canada)", 2024, 3, 1), twz("Eastern Time (US & Canada)", 2024, 3, 8)],
            [twz("UTC", 2024, 1, 1), twz("Tokyo", 2024, 1, 2)]],
  "datetime" => [[DateTime.new(2024, 1, 1, 12), DateTime.new(2024, 1, 2, 12, 30, 0, "+05:30")]],
  "bigdecimal" => [[BigDecimal("1.5"), BigDecimal("2")], [BigDecimal("-1e-10"), BigDecimal("1e20")]],
  "rational" => [[Rational(1, 3), Rational(1, 2)], [Rational(-1, 2), nil]],
  "symbol" => [%i[a z]],
  "nil" => [[nil, nil]],
  "mixed" => [[1, 2.5], [Rational(1, 2), 1], [BigDecimal("1"), 2]]
}.freeze

def ranges_of(kind)
  RANGE_ENDS.fetch(kind).flat_map { |b, e| [Range.new(b, e), Range.new(b, e, true)] }
end

ALL_RANGES = RANGE_ENDS.keys.flat_map { |k| ranges_of(k) }.freeze

IPADDRS = ["10.0.0.0", "192.168.1.0/24", "0.0.0.0", "255.255.255.255", "::1", "::", "2001:db8::1",
           "2001:0db8:0000:0000:0008:0800:200c:417a", "fe80::1%eth0", "::ffff:192.0.2.1", "2001:db8::/32",
           "1:2:3:4:5:6:7:8", "1:0:0:2::3"].map { |s| IPAddr.new(s) }.freeze

URIS = ["https://example.com/a?b=c", "http://example.com", "http://user:pw@example.com:8080/p#frag",
        "https://example.com:443/x", "ftp://ftp.example.com/pub/file.txt", "mailto:a@b.c",
        "file:///etc/hosts", "ldap://ldap.example.com/dc=example,dc=com?cn?sub", "ws://h/s", "wss://h:444/s",
        "urn:isbn:0451450523", "foo:bar", "/relative/path?q=1", "//host.only/p", "http://[::1]:3000/",
        "https://example.com/%E6%97%A5?q=%20"].map { |s| URI(s) }.freeze

def process_status(code)
  Process.wait(fork { exit!(code) })
  st = $?
  # the pid is not the generator's to choose: load the dump with a fixed pid
  dumped = Marshal.dump(st)
  fixed = Marshal.dump(12_345)[2..]
  pid_at = dumped.index(":\bpid".b) or fail!("Process::Status dump has no pid")
  loaded = Marshal.load(dumped[0, pid_at + 5] + fixed)
  fail!("Process::Status pid not set") unless loaded.pid == 12_345 && loaded.exitstatus == code

  loaded
end

def exception(klass, msg, backtrace: nil)
  e = msg.nil? ? klass.new : klass.new(msg)
  e.set_backtrace(backtrace) if backtrace
  e
end

AS_CLASSES = {
  "ipaddr" => IPADDRS,
  "uri" => URIS,
  "pathname" => [Pathname.new("/a/b"), Pathname.new("rel/é.txt"), Pathname.new("")],
  "process_status" => [process_status(0), process_status(3)],
  "exception" => [exception(RuntimeError, "boom"), exception(StandardError, nil), exception(AppError, "é <&>"),
                  exception(ArgumentError, "x", backtrace: ["a.rb:1:in `f'"])],
  "regexp" => [/ab+c/ix, /é/, /a\/b/m, //],
  "open_struct" => [OpenStruct.new(a: 1, b: "x"), OpenStruct.new, OpenStruct.new(n: OpenStruct.new(t: Time.utc(2024, 1, 1)))],
  "set" => [Set[1, "a", nil], Set.new],
  "struct" => [Point.new(1, 2), Pair.new(Date.new(2024, 1, 1), [1])],
  "module" => [String, Comparable, ActiveSupport::TimeWithZone, Point],
  "duration" => [3.days, 1.month + 2.hours, 1.5.hours, -3.seconds, 2.weeks, 1.year],
  "safe_buffer" => [ActiveSupport::SafeBuffer.new("<b>x</b>")],
  "chars" => [ActiveSupport::Multibyte::Chars.new(+"chars é")],
  "hwia" => [ActiveSupport::HashWithIndifferentAccess.new("a" => 1, b: [2])],
  "ordered_options" => [ActiveSupport::OrderedOptions.new, ActiveSupport::OrderedOptions.new.tap { |o| o.a = 1 }],
  "time_zone" => [ActiveSupport::TimeZone["Tokyo"]]
}.freeze

# Strings in the encodings PostgreSQL cannot convert (UTF-16/32 and their BOM-marked dummies)
def bom_string(text, enc, order)
  body = text.encode("#{enc}#{order}")
  bom = "\uFEFF".encode("#{enc}#{order}")
  (bom + body).force_encoding(enc)
end

ENC_STRINGS = {
  "utf16_bom_be" => bom_string("hi é 🎉", "UTF-16", "BE"),
  "utf16_bom_le" => bom_string("hi é 🎉", "UTF-16", "LE"),
  "utf32_bom_be" => bom_string("hi é 🎉", "UTF-32", "BE"),
  "utf32_bom_le" => bom_string("hi é 🎉", "UTF-32", "LE"),
  "utf16_ruby_encode" => "日本 text".encode("UTF-16"),
  "utf32_ruby_encode" => "日本 text".encode("UTF-32"),
  "utf16_bom_only" => bom_string("", "UTF-16", "LE"),
  "utf16_empty" => "".force_encoding("UTF-16"),
  "utf16le" => "hi é 🎉".encode("UTF-16LE"),
  "utf16be" => "ｱ 日".encode("UTF-16BE"),
  "utf32le" => "hi é 🎉".encode("UTF-32LE"),
  "utf32be" => "<&>\u2028".encode("UTF-32BE"),
  "utf16le_bom_kept" => "\uFEFFbom".encode("UTF-16LE")
}.freeze

# --- u_*: marshal_dump with every payload ------------------------------------------

U_PAYLOADS = {
  "nil" => nil, "true" => true, "false" => false, "int" => 42, "int_neg" => -70_000, "bignum" => 2**80,
  "float" => 1.5, "float_nan" => Float::NAN, "float_big" => 1e20, "string" => "USD", "string_utf8" => "日本",
"symbol" => :usd, "time" => Time.utc(2024, 3, 5, 14, 7, 9.123r),
  "date" => Date.new(2024, 3, 1), "twz" => twz("Tokyo", 2024, 1, 1), "bigdecimal" => BigDecimal("10.25"),
  "rational" => Rational(1, 3), "range" => (1..5), "regexp" => /x/i, "object" => Money.new(500, "USD"),
  "struct" => Point.new(1, 2), "array" => [1, "a", nil], "hash" => { "a" => 1, b: [2] },
  "hash_date_keys" => { Date.new(2024, 3, 1) => 3 }, "set" => Set[1, 2], "u_in_u" => Currency.new(Wrapped.new("in")),
  "open_struct" => OpenStruct.new(a: 1), "empty_array" => [], "empty_hash" => {}, "empty_string" => "",
  "utf16" => ENC_STRINGS["utf16_bom_le"]
}.freeze

U_PAYLOADS.each do |kind, payload|
  row("u_root_#{kind}", wrap(payload))
  row("u_in_hash_#{kind}", { "price" => 10, "v" => wrap(payload), "after" => [payload] })
end
row("u_currency_example", { "price" => 10, "currency" => Currency.new("USD") })
shared = +"shared"
shared_t = Time.utc(2024, 1, 1)
row("u_shared_payload", [Wrapped.new(shared), shared, Wrapped.new([shared, shared_t]), shared_t, Wrapped.new(shared_t)])
cur = Currency.new("EUR")
row("u_shared_object", { "a" => cur, "b" => [cur, cur], "c" => { "d" => cur } })
row("u_as_hash_key", { Wrapped.new(1) => "v" }) # a U key: its to_s is an inspect text
row("u_nested_deep", Wrapped.new([Wrapped.new({ "k" => Wrapped.new(:s) }), Currency.new("JPY")]))
row("u_ordered_options_in_hash", { "o" => ActiveSupport::OrderedOptions.new, "n" => 1 })
# (not nested at random: HashWithIndifferentAccess.new of one takes a default proc)
row("u_inheritable_options", ActiveSupport::InheritableOptions.new({ a: 1 }).tap { |o| o.b = 2 })
row("u_inheritable_options_in_hash", { "o" => ActiveSupport::InheritableOptions.new({ a: 1 }), "n" => 1 })

# --- key_*: Hash keys that are not Strings ---------------------------------------------

SCALARS.each do |kind, keys|
  keys.each_with_index do |k, i|
    row("key_#{kind}_#{i + 1}", { k => "v#{i}", "other" => 1 })
  end
  row("key_#{kind}_all", keys.each_with_index.to_h { |k, i| [k, i] })
end
ALL_RANGES.each_with_index { |r, i| row(format("key_range_%02d", i + 1), { r => i }) }
row("key_everything", SCALARS.values.flatten(1).each_with_index.to_h { |k, i| [k, i] })
row("key_hwia_mixed", ActiveSupport::HashWithIndifferentAccess.new(Date.new(2024, 3, 1) => 1, sym: 2, 3 => 3, nil => 4))
row("key_groupdate_report", (1..14).to_h { |d| [Date.new(2024, 3, d), d * 7 % 5] })
row("key_groupdate_by_hour", (0..5).to_h { |h| [Time.utc(2024, 3, 1, h), h] })
row("key_groupdate_by_week_twz", (0..3).to_h { |w| [twz("Eastern Time (US & Canada)", 2024, 3, 3 + 7 * w, 5), w] })
row("key_collisions", { 1 => "int", "1" => "str", 1.0 => "float", BigDecimal("1") => "bd", Rational(1) => "rat",
                        Date.new(2024, 1, 1) => "date", "2024-01-01" => "str date", nil => "nil", "" => "empty" })
row("key_nested", { Date.new(2024, 1, 1) => { Time.utc(2024, 1, 1) => { (1..2) => { BigDecimal("1.5") => [nil] } } } })
[[1, { "a" => 1 }], { "a" => 1 }, Set[1], Point.new(1, 2), Money.new(1, "EUR"), [Date.new(2024, 1, 1), Money.new(1, "EUR")],
 [Object.new].then { |a| a..a }, OpenStruct.new(a: 1), [Point.new(1, 2)], [[1, [Set[2]]]], [1..2], [Rational(1, 3)], [3.days],
 [:a, Object.new]].each_with_index do |k, i|
  row("key_refused_#{i + 1}", { "ok" => 1, k => "refused" })
end

# Array keys (groupdate's group(:status).group_by_day(:created_at)): to_s is the Array's
# inspect, its elements' inspect as Ruby 3.1 with ActiveSupport writes them (Date#inspect
# is readable_inspect, "Fri, 01 Mar 2024"; DateTime's is to_fs(:rfc822))
ARRAY_KEY_ELEMENTS = (SCALARS.values_at("date", "time_utc", "time_offset", "time_local", "twz", "datetime", "bigdecimal",
                                        "float", "integer", "nil", "bool", "symbol", "string_subclass").flatten(1) +
                      ["", "quote\"s", "tab\t\n", "é日本", "\e\x7f", "\#{x}", "\xFF\x00ab".b, "ü".encode("ISO-8859-1"),
                       "日本".encode("Shift_JIS"), "é".encode("UTF-16LE"), "x".encode("UTF-32BE"), :"9x", :a?, :[], :+, :@iv,
                       :$g, :A, :"é", Time.at(0, 123_456_789, :nsec).utc, Time.at(1, Rational(1, 3)).utc,
                       Time.new(2024, 1, 1, 0, 0, 0, 3723), Date.new(2024, 2, 29), Date.new(1582, 10, 4), Date.new(-100, 1, 1),
                       DateTime.new(2024, 1, 1, 0, 0, 0, Rational(3723, 86_400)), DateTime.new(-100, 1, 1)] +
                      ENC_STRINGS.values_at("utf16_bom_le", "utf16_bom_be")).freeze
STATUSES = %w[active pending archived].freeze
row("key_array_groupdate", STATUSES.product((1..3).map { |d| Date.new(2024, 3, d) }).each_with_index.to_h { |k, i| [k, i] })
row("key_array_groupdate_date_first",
    (1..3).map { |d| Date.new(2024, 3, d) }.product(%w[x y]).each_with_index.to_h { |k, i| [k, i] })
row("key_array_by_hour_twz", STATUSES.product([twz("Eastern Time (US & Canada)", 2024, 3, 10, 6),
                                               twz("Eastern Time (US & Canada)", 2024, 3, 10, 7)]).to_h { |k| [k, 1] })
row("key_array_by_week_time", [[Time.utc(2024, 3, 4), :a], [Time.local(2024, 3, 11), :b]].to_h { |k| [k, 2] })
ARRAY_KEY_ELEMENTS.each_with_index do |e, i|
  row(format("key_array_%02d", i + 1), { ["g", e] => i, [e] => "alone", "other" => 1 })
end
ARRAY_KEY_ELEMENTS.each_slice(5).with_index do |es, i|
  row(format("key_array_mixed_%02d", i + 1), { es => i, [es.first, [es.last, []]] => "nested" })
end
row("key_array_empty_and_nested", { [] => 0, [[]] => 1, [[[1, [nil]]], "x"] => 2, [1, [2, [3, [4, [5]]]]] => 3 })
row("key_array_collisions", { [1, 2] => "array", "[1, 2]" => "string", [1.0, 2] => "float" })
row("key_array_hwia", ActiveSupport::HashWithIndifferentAccess.new(["a", Date.new(2024, 3, 1)] => 1, "b" => 2))
row("key_array_nested_hash", { "report" => { ["active", Date.new(2024, 3, 1)] => { [:x, 1] => [nil] } } })
row("key_array_range", { (([1])..([2])) => "range of arrays", ([Date.new(2024, 1, 1)]...[Date.new(2024, 2, 1)]) => 2 })
row("key_refused_nested", [1, { "a" => { [1, Set[2]] => 2 } }])

# --- range_*: every endpoint kind ------------------------------------------------------

RANGE_ENDS.each_key do |kind|
  rs = ranges_of(kind)
  rs.each_with_index { |r, i| row("range_#{kind}_#{i + 1}", r) }
  row("range_#{kind}_in_array", rs)
  row("range_#{kind}_in_hash", rs.each_with_index.to_h { |r, i| ["r#{i}", r] })
end

# --- asj_*: the classes ActiveSupport defines as_json for -----------------------------

AS_CLASSES.each do |kind, values|
  values.each_with_index { |v, i| row("asj_#{kind}_#{i + 1}", v) }
  row("asj_#{kind}_all", { "list" => values, "first" => values.first })
end

# --- enc_*: UTF-16 / UTF-32 -------------------------------------------------------------

ENC_STRINGS.each do |kind, s|
  row("enc_#{kind}", s)
  row("enc_#{kind}_nested", { "s" => s, "a" => [s, "utf8"] })
  row("enc_#{kind}_key", { s => 1 })
  sym = begin
    s.to_sym
  rescue EncodingError
    nil
  end
  row("enc_#{kind}_symbol", [sym, { sym => sym }]) if sym
end

# --- bd_*: BigDecimal payloads as BigDecimal._load reads them ---------------------------

def bigdecimal_stream(payload)
  template = Marshal.dump(BigDecimal("1"))
  at = template.index("BigDecimal") + "BigDecimal".size
  len = Marshal.dump(payload.b)[3..] # "\x04\b\"" + packed length + bytes
  template[0, at] + len
end

BD_PAYLOADS = ["18:0.15e1", "27:-0.1234e-5", "9:0.1e9999", "18:0.0", "18:-0.0", "18:NaN", "18:Infinity",
               "18:-Infinity", "18:+Infinity", "18:0.1E+2", "18:0.1e+2", "18: 0.1e1", "18:0.1e1 ", "18:1_000",
               "18:1__0", "18:0x10", "18:.5", "18:5.", "18:1e", "18:e5", "18:--1", "18:+1", "18:0.1e1x",
               "abc:0.1", ":0.1", "0.1", "18:", "", "18:0.#e10\xEB", "0.11?1", "Infinty", "18:Infinty",
               "18:0.000_1", "18:1.5d2", "18:1,5", "18:0.1e-9999", "18:123456789012345678901234567890",
               "18:-0.5e-3", "18:0.1e1\x00", "18:\u00e9", "18:0.1e1:x", "18:nan", "18:infinity",
               "18:1.", "18:-.5", "18:0b1", "18:1e+", "18:0.1e0001"].freeze
BD_PAYLOADS.each_with_index do |payload, i|
  name = format("bd_payload_%02d", i + 1)
  stream = bigdecimal_stream(payload)
  ruby = begin
    v = Marshal.load(stream)
    fail!("#{name}: not a BigDecimal") unless v.is_a?(BigDecimal)
    encode(v)
  rescue ArgumentError, TypeError, FloatDomainError
    "error"
  end
  check_name!(name, BIGDEC)
  BIGDEC[name] = [stream, ruby]
end

# --- inspect of ActiveSupport values -----------------------------------------------------

def inspect_row(name, value)
  check_name!(name, INSPECT)
  INSPECT[name] = [Marshal.dump(value), Marshal.load(Marshal.dump(value)).inspect]
end

SCALARS["twz"].each_with_index { |v, i| inspect_row("twz_#{i + 1}", v) }
ZONES.each_with_index { |z, i| inspect_row("twz_zone_#{i + 1}", twz(z, 2024, 3, 5, 14, 7, 9.000123456r)) }
inspect_row("twz_in_array", [twz("Tokyo", 2024, 1, 1), twz("UTC", 1999, 12, 31, 23, 59, 59.5r)])
[3.days, 1.month + 2.hours, 1.5.hours, -3.seconds, 0.seconds, 2.weeks, 1.year, 10.years, 1.day + 30.minutes,
 45.seconds, 2.months - 1.day, 1.week + 1.day, 3600.seconds, 1.5.days, 0.25.seconds].each_with_index do |d, i|
  inspect_row("duration_#{i + 1}", d)
end
inspect_row("ordered_options_empty", ActiveSupport::OrderedOptions.new)
inspect_row("ordered_options_set", ActiveSupport::OrderedOptions.new.tap { |o| o.a = 1 })
SCALARS["complex"].each_with_index { |v, i| inspect_row("complex_#{i + 1}", v) }
[Complex(-0.0, 0.0), Complex(0.0, -0.0), Complex(-1.5, -0.0), Complex(1, -0.0), Complex(-Float::INFINITY, -Float::NAN),
 Complex(1e20, -1e-5)].each_with_index { |v, i| inspect_row("complex_neg_zero_#{i + 1}", v) }

# --- nest_*: random values nesting all of the above -------------------------------------

# Seeded generator of nested values with shared references.
class NestGen < SeededRandom
  LEAF_KINDS = (SCALARS.keys + %w[range enc u_scalar] + AS_CLASSES.keys - %w[process_status]).freeze

  def top
    @pool = []
    value(0)
  end

  def value(depth)
    return pick(@pool) if !@pool.empty? && chance(0.1)

    depth < 4 && chance([0.8, 0.5, 0.35, 0.2][depth]) ? container(depth + 1) : leaf
  end

  def leaf
    v = case (kind = pick(LEAF_KINDS))
        when "range" then pick(ALL_RANGES)
        when "enc" then pick(ENC_STRINGS.values)
        when "u_scalar" then wrap(pick(U_PAYLOADS.values))
        else pick(SCALARS[kind] || AS_CLASSES[kind])
        end
    chance(0.3) ? share(v) : v
  end

  def key
    case rand(4)
    when 0 then pick(%w[id name a b created_at])
    when 1 then pick(ALL_RANGES)
    else pick(SCALARS[pick(SCALARS.keys)])
    end
  end

  def share(v)
    @pool << v
    v
  end

  def size
    rand(0..4)
  end

  def container(d)
    case rand(10)
    when 0, 1 then share(Array.new(size) { value(d) })
    when 2, 3 then share(Array.new(size) { [key, value(d)] }.to_h)
    when 4 then share(ActiveSupport::HashWithIndifferentAccess.new(Array.new(size) { [key, value(d)] }.to_h))
    when 5 then share(wrap(value(d)))
    when 6 then Pair.new(value(d), value(d))
    when 7 then Node.new(a: value(d), b: value(d))
    when 8 then OpenStruct.new(Array.new(size) { [pick(%i[x y z]), value(d)] }.to_h)
    else Set.new(Array.new(size) { value(d) })
    end
  end
end

gen = NestGen.new(14_014)
NEST_VALUES = 400
NEST_VALUES.times { |i| row(format("nest_%03d", i + 1), gen.top) }

# IPAddr networks (a prefix shorter than the address): IPAddr.new masks the address,
# and as_json (to_s) prints it without the prefix; IPv6 zero runs compressed as to_s
# does, ::a.b.c.d forms included.  After nest_*, so no random draw above moves.
IP_NETWORKS = ["2001:db8::1/64", "2001:db8:1:2:3:4:5:6/48", "::1/0", "ffff::1/1", "fe80::1:2/10",
               "::ffff:192.0.2.1/96", "::ffff:192.0.2.1/120", "2001:db8::8:800:200c:417a/127",
               "1:0:0:1:0:0:0:1/80", "1:0:0:1:0:0:0:1/127", "0:0:0:0:0:1:2:3/112", "::1.2.3.4/104",
               "2001:db8::ff/ffff:ffff:ffff::", "10.1.2.3/8", "10.1.2.3/0", "192.168.255.1/31",
               "172.16.5.4/255.240.0.0", "1:2:3:4:5:6:7:8/128", "10.9.8.7/32"].map { |t| IPAddr.new(t) }.freeze
IP_NETWORKS.each_with_index { |ip, i| row("asj_ipaddr_net_#{i + 1}", ip) }
row("asj_ipaddr_net_all", { "nets" => IP_NETWORKS, "first" => IP_NETWORKS.first, "keyed" => IP_NETWORKS.to_h { |ip| [ip.to_s, ip] } })

# Keys whose to_s the bytes decide though their inspect is another text: an
# Exception's message (its class name without one), Regexp#to_s, a Class's or
# Module's name.  After nest_*, so no random draw above moves.
TO_S_KEYS = [RuntimeError.new("boom"), StandardError.new, AppError.new("é <&>"), ArgumentError.new(""), /ab/i,
             /a\/b/mx, //, /é+/, String, Comparable, ActiveSupport::TimeWithZone, Point, Process::Status].freeze
TO_S_KEYS.each_with_index { |k, i| row("key_to_s_#{i + 1}", { k => "v#{i}", "other" => 1 }) }
row("key_to_s_all", TO_S_KEYS.each_with_index.to_h { |k, i| [k, i] })
row("key_to_s_nested", { "a" => [{ /x/ => { KeyError.new("k") => { Integer => nil } } }] })
row("key_to_s_collisions", { "boom" => 1, RuntimeError.new("boom") => 2, "String" => 3, String => 4 })

# Dates at or before Julian Day 0 (Marshal's nth -1 and beyond) and far ahead:
# proleptic years as Date#to_s prints them, in Date::ITALY's (Julian) and the
# proleptic Gregorian calendar
EARLY_DATES = [Date.new(-4713, 1, 1), Date.new(-4713, 1, 1) - 1, Date.jd(-1), Date.jd(-365_250),
               Date.new(-4713, 11, 24, Date::GREGORIAN), Date.new(-4713, 11, 23, Date::GREGORIAN),
               Date.new(-10_000, 2, 29, Date::GREGORIAN), Date.new(-100_000, 3, 1), Date.jd(-213_447_717),
               Date.jd(-213_447_718), Date.jd(300_000_000), Date.jd(-1_000_000_000),
               DateTime.new(-4714, 12, 31, 23, 59, 59, "+05:00"), DateTime.jd(-1, 12), DateTime.new(-5000, 3, 1, 12, 0, 0.5r, "-04:00"),
               DateTime.new(-4713, 1, 1, 0, 0, 0, "+01:00")].freeze
EARLY_DATES.each_with_index do |d, i|
  row("date_early_#{i + 1}", d)
  row("key_date_early_#{i + 1}", { "before" => 0, d => "v#{i}", "other" => 1 })
end
row("date_early_all", { "list" => EARLY_DATES, "keyed" => EARLY_DATES.each_with_index.to_h { |d, i| [d, i] } })
row("range_date_early", [EARLY_DATES[0]..EARLY_DATES[1], EARLY_DATES[4]...EARLY_DATES[2], { (EARLY_DATES[6]..) => 1 }])

# ActionController::Parameters (as_json: its @parameters, a HashWithIndifferentAccess)
# and globalid's GlobalID / URI::GID (as_json: to_s).  ActionPack and globalid are
# Debian's (6.1): the 7.2 run, whose Rails source has no ActionPack, leaves them out.
# Contract: GlobalID#as_json is globalid 1.x's to_s (Debian's 0.6 has none: {"uri": ...}).
if AS_VERSION::MAJOR == 6
  require "action_controller"
  require "globalid"
  unless GlobalID.method_defined?(:as_json, false)
    class GlobalID
      def as_json(*)
        to_s
      end
    end
  end
  params = ActionController::Parameters.new("page" => "2", "q" => { "a" => [1, { "b" => nil }] }, "n" => 3)
  [params, params.permit(:page, :n), ActionController::Parameters.new, ActionController::Parameters.new("u" => params.to_unsafe_h)]
    .each_with_index { |pr, i| row("ac_params_#{i + 1}", pr) }
  row("ac_params_in_hash", { "params" => params, "list" => [params.permit(:page)], "shared" => params })
  gids = [GlobalID.new("gid://app/User/1"), GlobalID.new("gid://app/Name::Space/x%20y?tenant=a&b=c"), GlobalID.new("gid://my-app/Post/a-b_c")]
  gids.each_with_index { |g, i| row("gid_#{i + 1}", g) }
  gids.each_with_index { |g, i| row("gid_uri_#{i + 1}", g.uri) }
  row("gid_in_hash", { "job" => { "arguments" => [gids.first, { "_aj_globalid" => gids.first.to_s }] }, "other" => gids[1] })
  inspect_row("gid_uri_1", gids.first.uri)
end

# ActiveModel::Errors: as_json is errors.to_hash, messages I18n makes from the error's
# type (:blank -> "can't be blank"); the bytes hold the type, not the app's translations:
# refused, the error naming the class (a custom String message alone would be known)
require "active_model"
class Signup
  include ActiveModel::Model
  attr_accessor :name, :age

  validates :name, presence: true
  validates :age, numericality: { greater_than: 17, message: "must be an adult" }
end
signup = Signup.new(age: 3).tap(&:valid?)
signup.errors.add(:base, "is odd")
[signup.errors, { "form" => { "errors" => signup.errors } }, signup].each_with_index do |v, i|
  check_name!("am_errors_#{i + 1}", REFUSED)
  REFUSED["am_errors_#{i + 1}"] = [Marshal.dump(v), "ActiveModel::Errors"]
end

# A TimeWithZone whose zone Rails does not know (a renamed zone, a typo): Marshal.load
# gives it no zone (Time.find_zone is nil) and as_json raises; refused, naming the class.
# The name is replaced in the bytes.
{ "Nowhr" => "Tokyo", "Asia/Nowhere" => "Asia/Kolkata", "tokyo" => "Tokyo" }.each_with_index do |(bad, good), i|
  stream = Marshal.dump({ "at" => twz(good, 2024, 3, 5, 14) })
  stream = stream.sub([good.size + 5].pack("C") + good, [bad.size + 5].pack("C") + bad) # the String's length and bytes
  begin
    encode(Marshal.load(stream))
    fail!("twz_unknown_zone_#{i + 1}: ActiveSupport writes it")
  rescue NoMethodError
    check_name!("twz_unknown_zone_#{i + 1}", REFUSED)
    REFUSED["twz_unknown_zone_#{i + 1}"] = [stream, "ActiveSupport::TimeWithZone"]
  end
end

# inspect: URI ("#<URI::HTTPS https://...>") and Pathname ("#<Pathname:/a/b>");
# Dates as Ruby's own Date#inspect (default_inspect: ActiveSupport makes inspect
# readable_inspect, rbmarshal_inspect shows Ruby's); TimeWithZone in years
# tzinfo no longer generates transitions for (past the present + 100 years: the
# zone keeps its last offset, while PostgreSQL's tables go on with the rule).
# Years from 2280 keep these rows the same until the generator runs in 2180.
URIS.each_with_index { |u, i| inspect_row("uri_#{i + 1}", u) }
[Pathname.new("/a/b"), Pathname.new("rel/é.txt"), Pathname.new(""), Pathname.new("a b/\"é")].each_with_index do |pa, i|
  inspect_row("pathname_#{i + 1}", pa)
end
inspect_row("uri_pathname_in_array", [URIS.first, Pathname.new("/x"), [URIS[2]]])
EARLY_DATES.each_with_index do |d, i|
  check_name!("date_early_#{i + 1}", INSPECT)
  INSPECT["date_early_#{i + 1}"] = [Marshal.dump(d), Marshal.load(Marshal.dump(d)).default_inspect]
end
FAR_ZONES = ["Eastern Time (US & Canada)", "London", "Pacific Time (US & Canada)", "Sydney", "Chatham Is.", "Santiago",
             "America/St_Johns", "Tokyo", "Asia/Kolkata"].freeze
FAR_TWZ = FAR_ZONES.flat_map do |z|
  [[2280, 7, 1], [2300, 1, 15], [2300, 7, 15], [2500, 4, 1], [3000, 10, 1]].map { |ymd| twz(z, *ymd, 12) }
end.freeze
FAR_TWZ.each_with_index { |t, i| inspect_row("twz_far_#{i + 1}", t) }
FAR_TWZ.each_slice(5).with_index { |ts, i| row("twz_far_#{i + 1}", { "times" => ts, ts.first => ts.last }) }

# ---------------------------------------------------------------------------
# Paths
# ---------------------------------------------------------------------------

PATHS = {} # name => [stream, steps, expected or nil]
PATH_DROPPED = []
PATH_RELOADED = []

# MRI's Marshal.load changes these, so a loaded sub-value dumps otherwise than the
# stream holds it: an exception gains bt_locations, a BigDecimal's _dump its
# allocated precision (test/diff/paths.tsv keeps and lists such rows)
def reloaded_otherwise?(value, seen = {}.compare_by_identity)
  return false if seen.key?(value)

  seen[value] = true
  value.is_a?(Exception) || value.is_a?(BigDecimal) ||
    JsonView.children(value).any? { |c| reloaded_otherwise?(c, seen) } ||
    (value.is_a?(UserMarshalled) && reloaded_otherwise?(value.marshal_dump, seen))
end

def path_row(name, stream, json, steps)
  loaded = Marshal.load(stream)
  sub = FidelityView.navigate(loaded, steps)
  dug = JsonView.json_dig(JSON.parse(json), steps)
  found = !sub.equal?(FidelityView::MISSING)
  if found
    fail!("#{name}: #{steps.inspect}: jsonb's #> finds nothing") if dug.equal?(JsonView::MISSING)
    mine = JSON.parse(encode(sub))
    fail!("#{name}: #{steps.inspect} finds #{mine.inspect} in Ruby, #{dug.inspect} in JSON") unless mine == dug
    if reloaded_otherwise?(sub)
      PATH_RELOADED << name
      return
    end
    expected = Marshal.dump(sub)
    fresh = FRESH.dump(stream, steps)
    if fresh != expected
      PATH_DROPPED << name
      return
    end
  else
    fail!("#{name}: #{steps.inspect} finds nothing, jsonb's #> finds #{dug.inspect}") unless dug.equal?(JsonView::MISSING)
    expected = nil
  end
  check_name!(name, PATHS)
  PATHS[name] = [stream, steps, expected]
end

# Seeded paths: walks that exist, a missing key or index, a step past a scalar.
class PathGen < SeededRandom
  def self.steps(value)
    FidelityView.steps(value)
  rescue FidelityView::Unsupported
    []
  end

  def walk(value, depth)
    steps = []
    depth.times do
      opts = PathGen.steps(value)
      break if opts.empty?

      array = FidelityView.view(value)[0] == :array
      text, value = pick(opts)
      text = (text.to_i - opts.size).to_s if array && chance(0.2)
      steps << text
    end
    [steps, value]
  end

  def path(value)
    steps, at = walk(value, rand(1..5))
    case rand(6)
    when 0 then steps << pick(["nope", "99", "-99", "table", "0", ""])
    when 1 then steps.pop(rand(0..steps.size))
    end
    steps
  end
end

# Encoding: dumped by _dump ("u"); Object#as_json gives instance_values, {}.
# Last among the rows so the path draws of the rows before stay as they were.
[Encoding::UTF_8, Encoding::ISO_8859_1, Encoding::BINARY, Encoding::Shift_JIS].each_with_index do |e, i|
  row("asj_encoding_#{i + 1}", e)
end
row("asj_encoding_nested", { "enc" => Encoding::UTF_8, "list" => [Encoding::US_ASCII, 1] })

pgen = PathGen.new(1_414)
TO_JSON.each do |name, (stream, json)|
  next if stream.bytesize > 2000
  # the fresh Ruby was forked before ActionPack and globalid were loaded
  next if name.start_with?("ac_params", "gid")

  loaded = Marshal.load(stream)
  next if JsonView.cyclic?(loaded)

  n = PathGen.steps(loaded).empty? ? (name.start_with?("u_root") ? 1 : 0) : 3
  seen = []
  (n * 4).times do
    break if seen.size >= n

    steps = pgen.path(loaded)
    next if seen.include?(steps) || steps.any? { |s| s.match?(FidelityView::STEP_UNSAFE) }

    begin
      FidelityView.navigate(loaded, steps)
    rescue FidelityView::Unsupported
      next
    end
    seen << steps
  end
  seen.each_with_index { |steps, i| path_row("#{name}_p#{i + 1}", stream, json, steps) }
end
FRESH.close

# ---------------------------------------------------------------------------
# Cache entries of the real 7.0 and 7.1 coders (7.2 only)
# ---------------------------------------------------------------------------

CACHE = [] # [name, format, bytes, value, expires_at, version]

require_relative "../rails/iso_usec"

if AS_VERSION::MAJOR >= 7
  EXPIRIES = [nil, 1_709_647_629.5, 1_709_647_629.1234567, 1_709_647_629.9999996, 1_709_647_629.0000004,
              1_709_647_629.123456, 1e9 + 0.0000005, 4_102_444_800.999999, 1.0, 0.5e-6].freeze
  CACHE_VALUES = {
    "hash" => { "id" => 1, "name" => "Ann" }, "utf8" => "héllo", "binary" => "\xff\x00bin".b,
    "ascii" => "plain".encode("US-ASCII"), "nil" => nil, "date_keys" => { Date.new(2024, 3, 1) => 3 },
    "big" => { "rows" => (1..300).map { |i| "row #{i}" } }, "big_string" => "x" * 3000,
    "currency" => { "c" => Currency.new("USD") }
  }.freeze
  VERSIONS = [nil, "20240305140709123456", "", "v\u00e9"].freeze
  { "7.0" => 7.0, "7.1" => 7.1 }.each do |fmt, version|
    ActiveSupport.cache_format_version = version
    store = ActiveSupport::Cache::NullStore.new # serialize_entry: the format's coder
    i = 0
    CACHE_VALUES.each do |vname, value|
      EXPIRIES.each_with_index do |exp, j|
        next unless j.zero? || vname == "hash" || (j % 3 == 1)

        version_text = VERSIONS[(i += 1) % VERSIONS.size]
        entry = ActiveSupport::Cache::Entry.new(value, expires_at: exp, version: version_text)
        bytes = store.send(:serialize_entry, entry)
        back = store.send(:deserialize_entry, bytes)
        fail!("cache #{fmt} #{vname}: does not read back") unless Marshal.dump(back.value) == Marshal.dump(value)
        name = "c#{fmt.delete('.')}_#{vname}_#{j + 1}"
        CACHE << [name, fmt, bytes, back.value, exp && iso_usec(exp), version_text]
      end
    end
  end
end

# ---------------------------------------------------------------------------
# Write
# ---------------------------------------------------------------------------

def escape(text)
  text.gsub(/[\\\t\n\r]/, "\\" => "\\\\", "\t" => "\\t", "\n" => "\\n", "\r" => "\\r")
end

def write(name, lines)
  File.binwrite(File.join(OUT_DIR, "#{TAG}_#{name}.tsv"), lines.join)
end

write("to_json", TO_JSON.map { |n, (s, j)| "#{n}\t#{hex(s)}\t#{tsv_field(j)}\n" })
write("paths", PATHS.map { |n, (s, steps, e)| "#{n}\t#{hex(s)}\t#{tsv_field(JsonView.pg_array(steps))}\t#{e ? hex(e) : 'NULL'}\n" })
write("refused", REFUSED.map { |n, (s, c)| "#{n}\t#{hex(s)}\t#{c}\n" })
write("bigdecimal", BIGDEC.map { |n, (s, r)| "#{n}\t#{hex(s)}\t#{tsv_field(r)}\n" })
write("inspect", INSPECT.map { |n, (s, t)| "#{n}\t#{hex(s)}\t#{escape(t)}\n" })
unless CACHE.empty?
  write("cache", CACHE.map do |n, f, b, v, e, ver|
    "#{n}\t#{f}\t#{hex(b)}\t#{hex(Marshal.dump(v))}\t#{e || 'NULL'}\t#{ver.nil? ? 'NULL' : tsv_field(ver)}\n"
  end)
end

groups = ->(names) { names.group_by { |n| n[/\A[a-z]+/] }.map { |g, l| "#{g}_*=#{l.size}" }.join(" ") }
puts "#{TAG} (ActiveSupport #{AS_VERSION::STRING}): to_json #{TO_JSON.size} (#{groups.(TO_JSON.keys)}), " \
     "paths #{PATHS.size} (#{PATHS.count { |_, v| v[2] }} found), refused #{REFUSED.size}, " \
     "bigdecimal #{BIGDEC.size} (#{BIGDEC.count { |_, v| v[1] == 'error' }} refused by MRI), " \
     "inspect #{INSPECT.size}, cache #{CACHE.size}"
puts "paths left out, as a fresh Ruby dumps the sub-value otherwise: #{PATH_DROPPED.join(' ')}" unless PATH_DROPPED.empty?
puts "paths left out, their sub-value holding an exception or a BigDecimal: #{PATH_RELOADED.size}"
puts "rows left out (#{SKIPPED.size}):"
SKIPPED.each { |n, why| puts "  #{n}: #{why}" }
