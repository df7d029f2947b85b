#!/usr/bin/env ruby
# Generates the differential test data for rbmarshal, Ruby being the oracle.
#
#   ruby test/diff/generate.rb [OUT_DIR] [--raw]     (OUT_DIR defaults to this folder)
#
# Written into OUT_DIR:
#   to_json.tsv    name<TAB>hex<TAB>expected_json
#                  hex = Marshal.dump(value), expected_json = ActiveSupport::JSON.encode(value)
#                  of the very same value (ActiveSupport 6.1 patched to the contract, below).
#                  Groups: fx_*   every fixture of test/fixtures/valid.tsv that AS can encode
#                          rnd_*  random nested values (seeded)
#                          edge_* hand-picked values
#                          enc_*  strings/symbols in other Ruby encodings
#   from_json.tsv  name<TAB>json_text<TAB>hex<TAB>hex_symbolized
#                  json_text is in PostgreSQL jsonb's own output form (json_text::jsonb::text
#                  is json_text again), hex = Marshal.dump(JSON.parse(json_text)),
#                  hex_symbolized = Marshal.dump(JSON.parse(json_text, symbolize_names: true)).
#                  Groups: rnd_* random documents, edge_* hand-picked ones.
#   from_json_raw.tsv (only with --raw) name<TAB>raw_json: the documents as generated, before
#                  canonicalisation (duplicate keys, exponents, \u escapes...); verify-jsonb.sh
#                  checks that PostgreSQL turns each into exactly the json_text above.
#   paths.tsv      name<TAB>hex<TAB>path<TAB>expected_hex
#                  path is a PostgreSQL text[] literal, expected_hex is Marshal.dump of the
#                  sub-value that jsonb's #> finds there in the JSON view (json_view.rb) of
#                  Marshal.load(hex), or NULL.  Groups: the fx_*, rnd_*, edge_*, enc_* values
#                  above (those without cycles, up to 1000 bytes; a share of rnd_*) and link_*
#                  hand-made values full of links across the cut.  Rows whose bytes a fresh
#                  `ruby` would write otherwise (MRI's process history) are left out.
#   paths_json.tsv (only with --raw) name<TAB>json<TAB>path<TAB>expected_json: the same rows as
#                  JSON; verify-paths.sh checks that jsonb's #> agrees with every one.
#
# Determinism: seeded Random, fixed times and TZ, no clock.  The order of the generic ivars
# MRI writes on a Time's _dump string depends on the order in which the process first used
# them, so keep the order of this script stable.  TimeWithZone values depend on the system's
# tz database; they stay in years 1971..2023 where the rules are settled.
#
# Tested with ruby 3.1 + activesupport 6.1 + json 2.6 (Debian packages).

ENV["TZ"] = "America/New_York" # only for the explicit local-time values

require "active_support/all"
require "bigdecimal"
require "date"
require "json"
require "set"
require "ostruct"
require "base64"
require_relative "../fixtures/classes"
require_relative "../seeded_random"

args = ARGV.reject { |a| a.start_with?("--") }
OUT_DIR = File.expand_path(args[0] || __dir__)
WRITE_RAW = ARGV.include?("--raw")
FIXTURES = File.expand_path("../fixtures/valid.tsv", __dir__)

require_relative "../generator"

# ---------------------------------------------------------------------------
# ActiveSupport 6.1 -> the contract (SPEC section 3: Rails 7 where versions differ)
# ---------------------------------------------------------------------------

# Module and ActiveSupport::TimeZone: as_contract.rb
require_relative "as_contract"

# The fixture classes below are unknown to the extension, which only sees their bytes.
# The contract maps them from what the stream holds, so their JSON follows it:
#   u (unknown _dump class)          {"$class": name, "$dump": base64 of the _dump bytes}
#   U (unknown marshal_dump class)   the marshal_dump data
#   d (T_DATA, _dump_data)           the _dump_data data
class UserDump
  def as_json(_options = nil)
    { "$class" => self.class.name, "$dump" => Base64.strict_encode64(_dump(-1)) }
  end
end

class UserMarshal
  def as_json(options = nil)
    marshal_dump.as_json(options)
  end
end

class DataTime
  def as_json(options = nil)
    _dump_data.as_json(options)
  end
end

# Extra classes for the random values.
Pair = Struct.new(:left, :right)
Record = Struct.new(:id, :name, :tags, :meta)

class Node # plain `o` object whose ivars vary
end

# ---------------------------------------------------------------------------
# A fresh Ruby for paths.tsv (fresh_ruby.rb): forked before any value is built.
# Rows where its answer differs from this process's are left out.
# ---------------------------------------------------------------------------
require_relative "json_view"
require_relative "fresh_ruby"
FRESH = FreshRuby.new(JsonView::MISSING) { |value, steps| JsonView.navigate(value, steps) }

# ---------------------------------------------------------------------------
# to_json rows
# ---------------------------------------------------------------------------

TO_JSON = {}   # name => [stream, json]
ORIGINALS = {} # name => the value dumped (not for fixtures), for paths.tsv's statistics
SKIPPED = []   # [name, reason]

def encode(value)
  ActiveSupport::JSON.encode(value)
end

def check_row_name!(name, table)
  fail!("bad row name #{name.inspect}") unless name.match?(/\A[a-z0-9_]+\z/)
  fail!("duplicate row name #{name}") if table.key?(name)
end

def check_json_text!(name, json)
  fail!("#{name}: JSON text is not UTF-8") unless json.encoding == Encoding::UTF_8 && json.valid_encoding?
  fail!("#{name}: JSON text holds a tab, newline or CR") if json.match?(/[\t\n\r]/)
end

# A value Ruby dumps; its JSON comes from the same object.  Loading the stream
# again must give the same JSON (what the extension sees is only the bytes).
def to_json_row(name, value)
  check_row_name!(name, TO_JSON)
  stream = Marshal.dump(value)
  json = encode(value)
  check_json_text!(name, json)
  again = encode(Marshal.load(stream))
  fail!("#{name}: JSON of the reloaded value differs:\n  #{json}\n  #{again}") unless again == json
  fail!("#{name}: JSON holds \\u0000 (jsonb cannot; the contract gives $binary)") if json.include?("\\u0000")
  TO_JSON[name] = [stream, json]
  ORIGINALS[name] = value
end

# --- a. the fixtures ------------------------------------------------------------

# A Hash key whose to_s is its inspect text (an Array, a Hash, an object): AS
# writes that text, the contract refuses such keys (22023, README).
SCALAR_KEYS = [String, Symbol, Integer, Float, NilClass, TrueClass, FalseClass].freeze
def inspect_text_key(value, seen = {})
  return nil if seen[value.object_id]

  seen[value.object_id] = true
  case value
  when Hash
    key = value.keys.find { |k| SCALAR_KEYS.none? { |c| k.is_a?(c) } }
    return key.class if key

    value.each_value { |v| (c = inspect_text_key(v, seen)) && (return c) }
  when Array
    value.each { |v| (c = inspect_text_key(v, seen)) && (return c) }
  end
  nil
end

File.foreach(FIXTURES) do |line|
  fname, _objects, _symbols, fhex = line.chomp.split("\t")
  name = "fx_#{fname}"
  stream = [fhex].pack("H*")
  begin
    value = Marshal.load(stream)
  rescue Exception => e # rubocop:disable Lint/RescueException
    SKIPPED << [name, "Ruby cannot load it: #{e.class}: #{e.message}"]
    next
  end
  if (cls = inspect_text_key(value))
    SKIPPED << [name, "a Hash key of class #{cls} (AS writes its inspect text; refused, 22023)"]
    next
  end
  begin
    json = encode(value)
  rescue StandardError, SystemStackError => e
    SKIPPED << [name, "ActiveSupport raises #{e.class}: #{e.message[0, 70].tr("\n", ' ')}"]
    next
  end
  if json.include?("\\u0000")
    SKIPPED << [name, "JSON holds \\u0000 (jsonb cannot; the contract gives $binary)"]
    next
  end
  check_row_name!(name, TO_JSON)
  check_json_text!(name, json)
  TO_JSON[name] = [stream, json]
end

# --- b. random values -------------------------------------------------------------

EDGE_INTS = [0, 1, -1, 122, 123, -123, -124, 255, 256, -256, -257, 65_535, 65_536,
             2**30 - 1, 2**30, -2**30, -2**30 - 1, 2**31 - 1, 2**31, -2**31, 2**32 - 1, 2**32,
             2**62 - 1, 2**62, -2**62, -2**62 - 1, 2**63 - 1, 2**63, -2**63, -2**63 - 1,
             2**64 - 1, 2**64, -2**64, 2**64 + 1, 2**100, -(2**100)].freeze

SPECIAL_FLOATS = [0.1, 1.0, -0.0, 0.0, 1e20, 1e-5, 1e16, 1e15, 123456789.123, 5e-324, 1e-320,
                  Float::MAX, -Float::MAX, Float::MIN, (2**53 + 1).to_f, 0.1 + 0.2, 1e22, 1e21,
                  1e23, 1.5, -2.5, 100.0, 1e100, 1e-100, 1e-4, 1e-7, 0.5, 12345678912345.678,
                  9_007_199_254_740_993.0, 4.35, 2.0**62, 2.0**64, -1e300].freeze

ASCII_CHARS = [*"a".."z", *"A".."Z", *"0".."9", " ", "-", "_", ".", ",", ":", "!", "?", "(", ")"].freeze
UTF8_CHARS = %W[é ü ß ñ Ω ж 日 本 語 ｱ € ™ 🎉 😀 👍🏽 \u0301 \u00a0 \u2028 \u2029 \ufeff 𝄞 한 ع].freeze
ESCAPE_CHARS = %W[" \\ / \n \t \r \b \f \u0001 \u001f \u007f < > & ' \u2028].freeze
WORDS = %w[id name value user admin email created_at updated_at tags a b c x y
           status active data items count 1 2 true null é 日本].freeze
REGEXP_SOURCES = ["ab+c", "\\d{3}-\\d{4}", "^[a-z]+$", "é+", "a/b", "\\A\\/path\\/(\\d+)\\z",
                  "(?<name>\\w+)", "a.b", "x y # comment", "[ぁ-ん]", "", "\\\\", "<tag>&amp;",
                  "\"quoted\"", "\\n\\t"].freeze
OFFSETS = ["+05:30", "-04:00", "+00:00", "+14:00", "-12:00", "+05:45", "-09:30", "+01:00",
           "-03:00", "+09:00", "-07:00"].freeze
ZONES = ["UTC", "Eastern Time (US & Canada)", "Asia/Kolkata", "Kathmandu", "Tokyo",
         "Pacific Time (US & Canada)"].freeze
TIME_YEARS = [1969, 1970, 2000, 2038, 9999, 1899, 1850, 1800, 1000, 1, 2024, 2012, 1900, 2100].freeze
DURATIONS = [3.days, 1.month + 2.hours, 5.minutes, 2.weeks, 1.year, -3.seconds, 1.5.hours,
             0.seconds, 10.years, 1.day + 30.minutes, 45.seconds, 2.months - 1.day].freeze
CLASSES = [String, Integer, Comparable, Kernel, ActiveSupport::HashWithIndifferentAccess,
           Point, Money, Tagged, Math, Float, ActiveSupport::TimeWithZone].freeze
EXCEPTIONS = [RuntimeError, ArgumentError, AppError, StandardError, KeyError].freeze
IVAR_NAMES = %i[@name @value @children @meta @count @données].freeze

# Seeded generator of nested Ruby values.
class ValueGen < SeededRandom
  MAX_DEPTH = 5
  CONTAINER_PROB = [0.75, 0.5, 0.35, 0.25, 0.15].freeze

  # one top-level value; objects may be shared within it (Marshal writes @ links)
  def top
    @pool = []
    value(0)
  end

  def value(depth)
    return pick(@pool) if !@pool.empty? && chance(0.07)
    if depth < MAX_DEPTH && chance(CONTAINER_PROB[depth])
      container(depth)
    else
      scalar
    end
  end

  def share(obj)
    @pool << obj
    obj
  end

  def size
    chance(0.1) ? rand(5..9) : rand(0..4)
  end

  SCALARS = [[:nil, 1], [:true, 1], [:false, 1], [:int, 4], [:float, 4], [:string, 6], [:symbol, 2],
             [:time, 2], [:date, 0.7], [:datetime, 0.7], [:bigdecimal, 1], [:rational, 0.5],
             [:complex, 0.5], [:range, 0.7], [:regexp, 0.7], [:duration, 0.7], [:twz, 1.2],
             [:safe_buffer, 0.5], [:exception, 0.5], [:module, 0.3], [:time_zone, 0.2]].freeze

  def scalar
    case weighted(SCALARS)
    when :nil then nil
    when :true then true
    when :false then false
    when :int then int
    when :float then float
    when :string then share(string)
    when :symbol then symbol
    when :time then time
    when :date then date
    when :datetime then datetime
    when :bigdecimal then bigdecimal
    when :rational then Rational(int_small(10_000) * (chance(0.1) ? 2**70 : 1), rand(1..1000))
    when :complex then Complex(int_small(1000), int_small(1000))
    when :range then range
    when :regexp then Regexp.new(pick(REGEXP_SOURCES), rand(0..7))
    when :duration then chance(0.5) ? pick(DURATIONS) : rand(1..100_000).seconds
    when :twz then twz
    when :safe_buffer then share(string.html_safe)
    when :exception then exception
    when :module then pick(CLASSES)
    when :time_zone then ActiveSupport::TimeZone[pick(ZONES)]
    end
  end

  def int_small(n)
    rand(-n..n)
  end

  def int
    case rand(3)
    when 0 then pick(EDGE_INTS) + rand(-2..2)
    when 1 then int_small(1000)
    else
      v = rand(2**rand(1..256))
      chance(0.5) ? -v : v
    end
  end

  def finite_float
    case rand(4)
    when 0 then pick(SPECIAL_FLOATS)
    when 1 then random_finite_float
    when 2 then int_small(100_000) / pick([1.0, 2.0, 4.0, 8.0, 10.0, 100.0, 3.0, 7.0])
    else (rand * 2 - 1) * 10.0**rand(-30..30)
    end
  end
  alias float finite_float

  def word
    pick(WORDS).dup
  end

  def chars_from(set, range)
    Array.new(rand(range)) { pick(set) }.join
  end

  def string
    case rand(9)
    when 0 then chars_from(ASCII_CHARS, 0..20)
    when 1 then chars_from(UTF8_CHARS + ASCII_CHARS, 1..15)
    when 2 then chars_from(ESCAPE_CHARS + ASCII_CHARS, 1..15)
    when 3 then chars_from(ASCII_CHARS, 0..12).force_encoding("US-ASCII")
    when 4 then +""
    when 5 then chars_from(ASCII_CHARS + %w[é 日 🎉], 0..8).b # binary, valid UTF-8 bytes
    when 6 then chars_from(ASCII_CHARS * 4 + UTF8_CHARS + ESCAPE_CHARS, 40..300)
    when 7
      s = word
      s.instance_variable_set(:@note, rand(100)) if chance(0.15) # I " ... :E, @note
      s
    else word
    end
  end

  def symbol
    case rand(4)
    when 0 then chars_from(ASCII_CHARS, 0..10).to_sym
    when 1 then chars_from(UTF8_CHARS + ASCII_CHARS, 1..6).to_sym
    else word.to_sym
    end
  end

  def hash_key
    case rand(10)
    when 0..3 then string
    when 4, 5 then symbol
    when 6 then int
    when 7 then chance(0.5) ? nil : pick([true, false])
    when 8 then pick(SPECIAL_FLOATS)
    else word
    end
  end

  def seconds_with_fraction
    s = rand(0..59)
    case rand(6)
    when 0, 1 then s
    when 2 then s + Rational(rand(1_000_000), 1_000_000)        # usec
    when 3 then s + Rational(rand(1_000_000_000), 1_000_000_000) # nsec
    when 4 then s + Rational(rand(1..999), 1000)                # msec
    else s + Rational(rand(1..10**12), 10**12)                  # below a nanosecond
    end
  end

  def time
    year = chance(0.6) ? pick(TIME_YEARS) : rand(1900..2100)
    mon = rand(1..12)
    day = rand(1..28)
    hour = rand(0..23)
    min = rand(0..59)
    sec = seconds_with_fraction
    case rand(5)
    when 0, 1 then Time.utc(year, mon, day, hour, min, sec)
    when 2, 3 then Time.new(year, mon, day, hour, min, sec, pick(OFFSETS))
    else
      # local time (TZ=America/New_York): zone "EST"/"EDT"; no DST-gap hour
      Time.local(rand(2000..2030), mon, day, [hour, 3].max, min, sec)
    end
  end

  def date
    Date.new(chance(0.5) ? pick(TIME_YEARS - [1, 1000]) : rand(1600..2200), rand(1..12), rand(1..28))
  end

  def datetime
    year = chance(0.5) ? pick(TIME_YEARS - [1, 1000]) : rand(1600..2200)
    DateTime.new(year, rand(1..12), rand(1..28), rand(0..23), rand(0..59), seconds_with_fraction,
                 pick(OFFSETS))
  end

  def digits(range)
    Array.new(rand(range)) { rand(10) }.join.sub(/\A0+(?=.)/, "")
  end

  def bigdecimal
    case rand(5)
    when 0
      BigDecimal(pick(["0", "-0", "1", "-1", "123.45", "-0.000001234", "1e400", "-1e-400", "1e20", "0.1",
                       "3.14159265358979323846264338327950288", "100", "12345678901234567890.123456789"]))
    when 1 then BigDecimal("#{pick(['', '-'])}#{digits(1..30)}e#{rand(-50..50)}")
    when 2 then BigDecimal("#{pick(['', '-'])}1.#{digits(1..5)}e#{pick([rand(100..600), -rand(100..600)])}")
    else BigDecimal(format("%.2f", rand(-100_000..100_000) / 100.0))
    end
  end

  def range
    case rand(6)
    when 0 then Range.new(int_small(100), int_small(1000), chance(0.5))
    when 1 then Range.new(pick(%w[a aa A 0 é]), pick(%w[z zz Z 9 ü]), chance(0.5))
    when 2 then Range.new(int_small(100), nil, chance(0.5))
    when 3 then Range.new(nil, int_small(100), chance(0.5))
    when 4 then Range.new(int, int)
    else Range.new(pick([1.5, -2.0, 0.1]), pick([2.5, 1e20, 3.0]))
    end
  end

  def twz
    utc = Time.utc(rand(1971..2023), rand(1..12), rand(1..28), rand(0..23), rand(0..59),
                   seconds_with_fraction)
    utc.in_time_zone(pick(ZONES))
  end

  def exception
    klass = pick(EXCEPTIONS)
    e = chance(0.15) ? klass.new : klass.new(chance(0.5) ? word : chars_from(UTF8_CHARS + ESCAPE_CHARS, 1..10))
    e.set_backtrace(["app/models/user.rb:#{rand(1..99)}:in `save'"]) if chance(0.3)
    e.instance_variable_set(:@code, rand(100)) if chance(0.2)
    e
  end

  CONTAINERS = [[:array, 4], [:hash, 4], [:hwia, 1], [:set, 1], [:struct, 1], [:object, 1],
                [:open_struct, 0.4], [:uclass, 0.3], [:hash_default, 0.3], [:identity, 0.3],
                [:extended, 0.2]].freeze

  def container(depth)
    d = depth + 1
    case weighted(CONTAINERS)
    when :array then share(Array.new(size) { value(d) })
    when :hash then share(make_hash(d))
    when :hwia then share(ActiveSupport::HashWithIndifferentAccess.new(make_hash(d)))
    when :set then Set.new(Array.new(size) { value(d) })
    when :struct
      case rand(4)
      when 0 then Point.new(value(d), value(d))
      when 1 then KwPoint.new(x: value(d), y: value(d))
      when 2 then Pair.new(value(d), value(d))
      else Record.new(int, string, Array.new(rand(0..3)) { word }, value(d))
      end
    when :object
      if chance(0.3)
        Money.new(rand(0..100_000), pick(%w[USD EUR JPY]))
      else
        node = Node.new
        IVAR_NAMES.sample(rand(0..4), random: @rng).each { |iv| node.instance_variable_set(iv, value(d)) }
        node
      end
    when :open_struct then OpenStruct.new(Array.new(size) { [word.to_sym, value(d)] }.to_h)
    when :uclass
      case rand(3)
      when 0 then MyArray.new(Array.new(size) { value(d) })
      when 1 then MyHash[make_hash(d)]
      else MyString.new(string)
      end
    when :hash_default
      h = Hash.new(pick([0, "dflt", nil, [1]]))
      h.merge!(make_hash(d))
    when :identity
      h = {}.compare_by_identity
      size.times { h[pick([+"k", +"k", word])] = value(d) } # equal keys may be kept twice
      h
    when :extended
      chance(0.5) ? Money.new(rand(100), "EUR").extend(Tagged) : Array.new(size) { value(d) }.extend(Flagged)
    end
  end

  def make_hash(depth)
    h = {}
    size.times { h[hash_key] = value(depth) }
    h
  end
end

gen = ValueGen.new(20_240_601)
RANDOM_VALUES = 2200
RANDOM_VALUES.times do |i|
  to_json_row(format("rnd_%04d", i + 1), gen.top)
end

# --- c. hand-picked values ------------------------------------------------------------
def edge(name, value)
  to_json_row("edge_#{name}", value)
end

edge "float_nan", Float::NAN
edge "float_infinity", Float::INFINITY
edge "float_neg_infinity", -Float::INFINITY
edge "float_array_with_nonfinite", [1.0, Float::NAN, Float::INFINITY, -Float::INFINITY, 2.5]
edge "float_keys_nonfinite", { Float::NAN => 1, Float::INFINITY => 2, -Float::INFINITY => 3, -0.0 => 4, 1e20 => 5 }
edge "float_specials", SPECIAL_FLOATS
edge "float_repeated_flonums", [1.5, 1.5, 0.1, 0.1, 0.0, 0.0]
edge "bigdecimal_nan", BigDecimal("NaN")
edge "bigdecimal_infinity", BigDecimal("Infinity")
edge "bigdecimal_neg_infinity", BigDecimal("-Infinity")
edge "bigdecimal_neg_zero", BigDecimal("-0")
edge "bigdecimal_huge", BigDecimal("1.5e1000")
edge "bigdecimal_tiny", BigDecimal("-1.5e-1000")
edge "int_2_1000", 2**1000
edge "int_neg_2_1000", -(2**1000)
edge "ints_edges", EDGE_INTS
edge "hash_key_collisions", { "a" => 1, a: 2, 1 => 3, "1" => 4, nil => 5, "" => 6, true => 7, "true" => 8 }
edge "hash_key_to_s", { 1.5 => 1, 2**70 => 2, -0.0 => 3, :"with space" => 4, :"é" => 5 }
edge "strings_control", [(1..31).map(&:chr).join + "\x7f", "\u2028\u2029", "</script><!--", "\\\"/"]
edge "string_long_utf8", "日本語テキスト🎉" * 150
edge "string_binary_ascii", "plain".b
edge "string_binary_utf8_bytes", "h\xc3\xa9llo \xf0\x9f\x8e\x89".b
edge "string_us_ascii_empty", "".encode("US-ASCII")
edge "symbols", [:"", :"with space", :héllo, :"🎉", :a, :a, :héllo]
edge "array_300", (1..300).to_a
edge "hash_200", (1..200).to_h { |i| ["key#{i}", i] }
deep = 1
40.times { deep = [deep] }
edge "array_deep_40", deep
deep_hash = { "leaf" => true }
30.times { |i| deep_hash = { "k#{i % 3}" => deep_hash } }
edge "hash_deep_30", deep_hash
shared_s = +"shared"
shared_a = [1, shared_s]
shared_h = { "x" => shared_a }
edge "shared_refs", [shared_s, shared_a, shared_h, shared_s, shared_a, shared_h, { "again" => shared_h }]
bottom = { "v" => "leaf" }
left = [bottom]
right = [bottom, bottom]
edge "shared_diamond", [[left, right], [left, right], bottom]
edge "time_year_neg_1", Time.utc(-1, 1, 1)
edge "time_year_0", Time.utc(0, 6, 15, 12)
edge "time_year_10000", Time.utc(10_000, 1, 1)
edge "time_year_70000", Time.utc(70_000, 12, 31, 23, 59, 59)
edge "time_offset_seconds", Time.new(2000, 1, 1, 0, 0, 0, 3723)
edge "time_offset_negative_seconds", Time.new(2000, 1, 1, 0, 0, 0, -3723)
edge "time_before_epoch_usec", Time.utc(1969, 12, 31, 23, 59, Rational(59_999_999, 1_000_000))
edge "time_epoch", Time.utc(1970, 1, 1)
edge "time_2038", Time.utc(2038, 1, 19, 3, 14, 8)
edge "time_9999_end", Time.new(9999, 12, 31, 23, 59, Rational(59_999_999_999, 1_000_000_000), "-12:00")
edge "time_1_offset", Time.new(1, 1, 1, 0, 0, 0, "+05:30")
edge "time_local_pair", [Time.local(2024, 1, 15, 12), Time.local(2024, 7, 15, 12)]
edge "date_julian_1500", Date.new(1500, 3, 1)
edge "date_reform_last_julian", Date.new(1582, 10, 4)
edge "date_reform_first_gregorian", Date.new(1582, 10, 15)
edge "date_proleptic_gregorian_1500", Date.new(1500, 3, 1, Date::GREGORIAN)
edge "date_england", Date.new(1700, 3, 1, Date::ENGLAND)
edge "date_year_1", Date.new(1, 1, 1)
edge "date_year_neg_1", Date.new(-1, 1, 1)
edge "date_year_10000", Date.new(10_000, 1, 1)
edge "datetime_third_second", DateTime.new(2000, 1, 1, 0, 0, Rational(1, 3), "+00:00")
edge "datetime_year_1", DateTime.new(1, 1, 1, 12, 0, 0, "-04:00")
edge "datetime_julian", DateTime.new(1500, 1, 1, 12, 0, 0, "+01:00")
edge "datetime_day_rollover", DateTime.new(2024, 3, 5, 1, 0, 0, "+02:00")
london = ActiveSupport::TimeZone["London"]
edge "twz_london_winter", Time.utc(2020, 1, 1, 12).in_time_zone(london)
edge "twz_london_summer", Time.utc(2020, 7, 1, 12).in_time_zone(london)
edge "twz_etc_utc", Time.utc(2020, 1, 1, 12).in_time_zone(ActiveSupport::TimeZone["Etc/UTC"])
edge "twz_etc_gmt", Time.utc(2020, 1, 1, 12).in_time_zone(ActiveSupport::TimeZone["Etc/GMT"])
edge "twz_chatham", Time.utc(2020, 1, 1, 12).in_time_zone(ActiveSupport::TimeZone["Chatham Is."])
edge "twz_kolkata_nsec", Time.utc(2020, 2, 29, 23, 59, Rational(59_999_999_999, 10**9)).in_time_zone("Asia/Kolkata")
edge "time_zones", ZONES.map { |z| ActiveSupport::TimeZone[z] }
edge "durations", DURATIONS
edge "ranges", [1..10, 1...10, "a".."z", (1..), (..5), (nil..nil), 1.5..2.5, -(2**70)..2**70]
edge "regexps", [/ab+c/ix, /é/, /a\/b/m, /\A\z/, //]
edge "complex_rational", [Complex(1, 2), Complex(1, -2), Complex(0, 0), Complex(-2**70, 2**70), Rational(3, 4), Rational(-1, 3), Rational(5, 1)]
edge "classes_modules", [String, Comparable, ActiveSupport::TimeWithZone, Point, String]
edge "exceptions", [RuntimeError.new("boom"), StandardError.new, ArgumentError.new("é <&>")]
edge "open_struct", OpenStruct.new(name: "x", nested: OpenStruct.new(a: [1, 2]), "é": nil)
edge "set_of_containers", Set[[1, 2], { "a" => 1 }, "s", nil]
edge "safe_buffers", ["<b>x</b>".html_safe, "".html_safe, "a & b".html_safe]
edge "hwia_nested", ActiveSupport::HashWithIndifferentAccess.new("a" => { "b" => [{ "c" => 1 }] }, d: 2)
edge "empty_containers", [[], {}, Set.new, OpenStruct.new, Node.new, "", :""]
# Times whose sub-second is a Rational: nano_num/nano_den (Bignums too: a Float's exact
# value, Time.at(0, Rational(1, 2**70))), which inspect shows as a reduced fraction
edge "time_fractions", begin
  r = Random.new(7)
  [Time.at(1, Rational(1, 3)).utc, Time.at(0, 123_456_789_123, :nsec).utc, Time.at(0, Rational(1, 2**70)).utc,
   Time.at(0, Rational(2**70 + 1, 2**70)).utc, Time.at(Rational(2**64 + 1, 2**64)).utc, Time.at(1.1).utc, Time.at(1e-10).utc,
   Time.at(Rational(1, 10**12)).utc, Time.at(0, Rational(1, 7), :nsec).utc, Time.at(Rational(-1, 3)).utc, Time.at(-1.1).utc,
   Time.at(2**40, Rational(1, 3)).utc, Time.at(Rational(1, 9_000_000_001)).utc, Time.at(0.123456789123).utc,
   Time.at(1, Rational(1, 3)).getlocal("+09:00"), Time.at(Rational(7, 2**40)).getlocal("-05:30"),
   Time.at(1_700_000_000, Rational(5, 11), :millisecond).utc, Time.at(Rational(2**80 + 1, 2**79)).utc] +
    Array.new(24) do |i|
      den = [3, 7, 2**33, 10**12, 2**62, 2**64 + 13, 3**45, 10**20][i % 8]
      Time.at(Rational(r.rand(2**31), 1) + Rational(r.rand(den * 5), den)).utc
    end
end

# --- d. strings in other encodings -------------------------------------------------------
ENC_CHARS = {
  "ISO-8859-1" => %w[c a f é ñ ü ß Æ ø ¿ ¡ © ® ± µ ÿ À],
  "Windows-1252" => %w[€ “ ” ‘ ’ – — … ™ Š š Ž ž Ÿ é à],
  "Shift_JIS" => %w[日 本 語 テ キ ス ト ｱ ｲ ｳ 漢 字 ひ ら が な カ タ],
  "EUC-JP" => %w[日 本 語 テ キ ス ト ｱ ｲ 漢 字 ひ ら が な カ タ]
}.freeze
enc_rng = Random.new(8_859)
enc_count = 0
ENC_CHARS.each do |enc, chars|
  tag = enc.downcase.delete("-_")
  pool = chars + %w[a b c 1 2 3] + [" "]
  text = -> { Array.new(enc_rng.rand(1..12)) { pool[enc_rng.rand(pool.size)] }.join.encode(enc) }
  20.times do |i|
    value = case i % 5
            when 0 then text.()
            when 1 then [text.(), text.(), "utf8 é"]
            when 2 then { text.() => text.(), "k" => text.().to_sym }
            when 3 then text.().to_sym
            else Point.new(text.(), [text.()])
            end
    to_json_row("enc_#{tag}_#{format('%02d', i + 1)}", value)
    enc_count += 1
  end
  to_json_row("enc_#{tag}_ascii_only", "plain ascii".encode(enc))
  to_json_row("enc_#{tag}_empty", "".encode(enc))
  enc_count += 2
end
to_json_row("enc_utf16le", "hi é 🎉".encode("UTF-16LE"))
to_json_row("enc_utf16be", "hi é 🎉".encode("UTF-16BE"))
to_json_row("enc_mixed_array", ["é".encode("ISO-8859-1"), "日".encode("EUC-JP"), "è".encode("ISO-8859-1"), "本".encode("Shift_JIS")])
# Characters whose mapping differs between Ruby and other converters (e.g. PostgreSQL's
# SJIS/EUC_JP tables map 0x8160 / 0xA1C1 to U+FF5E, Ruby to U+301C WAVE DASH).
to_json_row("enc_shiftjis_wave_dash_minus", "〜−‖".encode("Shift_JIS"))
to_json_row("enc_eucjp_wave_dash_minus", "〜−‖".encode("EUC-JP"))
to_json_row("enc_shiftjis_yen_backslash", "a\\b ￥".encode("Shift_JIS"))
enc_count += 6

# ---------------------------------------------------------------------------
# from_json rows
# ---------------------------------------------------------------------------
#
# A document is generated as a tree with the number lexemes kept as text:
#   [:obj, [[key, node], ...]] (keys may repeat)   [:arr, [node, ...]]
#   [:str, "utf-8 text"]   [:num, "lexeme"]   [:lit, "true" | "false" | "null"]
# raw_json renders it as any JSON writer might (exponents, \u escapes, duplicate keys,
# original key order); jsonb_text renders what PostgreSQL's jsonb prints for it.

# jsonb's escape_json: only ", \ and control characters are escaped; non-ASCII stays UTF-8.
def jsonb_string(str)
  out = +'"'
  str.each_char do |c|
    out << case c
           when '"' then '\\"'
           when "\\" then "\\\\"
           when "\b" then "\\b"
           when "\f" then "\\f"
           when "\n" then "\\n"
           when "\r" then "\\r"
           when "\t" then "\\t"
           else c.ord < 0x20 ? format("\\u%04x", c.ord) : c
           end
  end
  out << '"'
end

JSON_NUMBER = /\A(-)?(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?\z/.freeze

# numeric_in + numeric_out: the value keeps the input's decimal places minus the exponent
# (never below 0), printed in plain notation; zero has no sign.
def jsonb_number(lexeme)
  m = JSON_NUMBER.match(lexeme) or fail!("not a JSON number: #{lexeme.inspect}")
  frac = m[3] || ""
  exp = (m[4] || "0").to_i
  scale = frac.size - exp # value = (int digits + frac digits) * 10**-scale
  dscale = [scale, 0].max
  n = (m[2] + frac).to_i * 10**(dscale - scale) # value * 10**dscale, exactly
  s = n.to_s.rjust(dscale + 1, "0")
  text = dscale.positive? ? "#{s[0...-dscale]}.#{s[-dscale..]}" : s
  m[1] && n != 0 ? "-#{text}" : text
end

# jsonb object keys: unique (the last duplicate wins), shorter keys first, then bytewise.
def jsonb_text(node)
  case node[0]
  when :obj
    pairs = {}
    node[1].each { |k, v| pairs[k] = v }
    keys = pairs.keys.sort_by { |k| [k.bytesize, k.b] }
    "{#{keys.map { |k| "#{jsonb_string(k)}: #{jsonb_text(pairs[k])}" }.join(', ')}}"
  when :arr then "[#{node[1].map { |v| jsonb_text(v) }.join(', ')}]"
  when :str then jsonb_string(node[1])
  when :num then jsonb_number(node[1])
  when :lit then node[1]
  end
end

# Seeded generator of JSON documents (as trees, see above).
class JsonGen < SeededRandom
  MAX_DEPTH = 5
  CONTAINER_PROB = [0.8, 0.5, 0.35, 0.25, 0.15].freeze
  KEYS = ["id", "name", "a", "b", "", "é", "日本", "ab", "ba", "aa", "zz", "key with space",
          "Z", "_", "10", "2", "value", "items", "🎉", "a\"b", "tab\there", "json_class"].freeze
  STRINGS = ["x", "hello", "", "é", "日本語", "🎉", "a\"b\\c", "line\nbreak", "id", "name",
             "\u2028", "\u007f", "\u0001", "</script>", "1.5", "true"].freeze
  SPECIAL_NUMBERS = %w[0 -0 1 -1 0.0 -0.0 1.0 1.50 1E+2 1e22 1.5e300 1e-320 5e-324
                       9007199254740993.0 9007199254740993 0.30000000000000004 0.1 123456789.123
                       1.7976931348623157e308 2.5 100e-2 12.50e1 1e-5 1e16 18446744073709551616
                       18446744073709551617 -9223372036854775809 4611686018427387904
                       1073741824 -1073741825 1e0 0e5 0.000 -0.00e5].freeze

  def doc
    @numbers = [] # lexemes used in this document, for repeats
    @strings = []
    node(0)
  end

  def node(depth)
    if depth < MAX_DEPTH && chance(CONTAINER_PROB[depth])
      n = chance(0.1) ? rand(5..8) : rand(0..4)
      if chance(0.5)
        pairs = Array.new(n) { [key, node(depth + 1)] }
        pairs << [pairs[rand(pairs.size)][0], node(depth + 1)] if !pairs.empty? && chance(0.15) # duplicate
        [:obj, pairs]
      else
        [:arr, Array.new(n) { node(depth + 1) }]
      end
    else
      case rand(10)
      when 0 then [:lit, pick(%w[true false null])]
      when 1..3 then [:str, string]
      else [:num, number]
      end
    end
  end

  def key
    case rand(6)
    when 0 then random_text(0..6)
    else pick(KEYS)
    end
  end

  def random_text(range)
    pool = [*"a".."f", " ", "é", "日", "🎉", "\"", "\\", "/", "\n", "\t", "\u0001", "\u001f", "\u2028", "\u00a0"]
    Array.new(rand(range)) { pick(pool) }.join
  end

  def string
    return pick(@strings) if !@strings.empty? && chance(0.25) # repeated equal strings
    s = chance(0.5) ? pick(STRINGS) : random_text(0..12)
    @strings << s
    s
  end

  def digits(range)
    Array.new(rand(range)) { rand(10) }.join
  end

  def number
    return pick(@numbers) if !@numbers.empty? && chance(0.25) # repeated equal values
    lex = case rand(9)
          when 0 then pick(SPECIAL_NUMBERS)
          when 1 then rand(-1000..1000).to_s
          when 2 then (pick(EDGE_INTS) + rand(-2..2)).to_s
          when 3 then (rand(10**rand(1..45)) * pick([1, -1])).to_s
          when 4 then random_finite_float.to_s # a double as Ruby prints it (a valid JSON number)
          when 5 then pick(SPECIAL_FLOATS).to_s
          when 6 then "#{pick(['', '-'])}#{rand(0..999)}.#{digits(1..6)}" # may keep trailing zeros
          when 7 # exponent forms
            mant = chance(0.5) ? rand(1..99).to_s : "#{rand(0..9)}.#{digits(1..4)}"
            exp = chance(0.9) ? rand(-25..25) : rand(-330..330)
            "#{pick(['', '-'])}#{mant}#{pick(%w[e E])}#{pick(['', '+', '-']) if exp >= 0}#{exp}"
          else "#{rand(0..99)}.#{'0' * rand(0..3)}#{rand(1..9)}"
          end
    @numbers << lex
    lex
  end
end

# The same tree as some other JSON writer might print it.
class RawWriter < SeededRandom
  def ws
    @rng.rand(4).zero? ? " " * @rng.rand(1..2) : ""
  end

  def string(str)
    out = +'"'
    str.each_char do |c|
      code = c.ord
      out << if code < 0x20 || c == '"' || c == "\\"
               { "\b" => "\\b", "\f" => "\\f", "\n" => "\\n", "\r" => "\\r", "\t" => "\\t",
                 '"' => '\\"', "\\" => "\\\\" }[c] || format("\\u%04X", code)
             elsif @rng.rand(5).zero? && code > 0x7f && code < 0x10000
               format("\\u%04x", code)
             elsif @rng.rand(3).zero? && code >= 0x10000
               hi = 0xD800 + ((code - 0x10000) >> 10)
               lo = 0xDC00 + ((code - 0x10000) & 0x3ff)
               format("\\u%04X\\u%04x", hi, lo)
             elsif c == "/" && @rng.rand(2).zero?
               "\\/"
             else
               c
             end
    end
    out << '"'
  end

  def text(node)
    case node[0]
    when :obj then "{#{ws}#{node[1].map { |k, v| "#{string(k)}#{ws}:#{ws}#{text(v)}" }.join(",#{ws}")}#{ws}}"
    when :arr then "[#{ws}#{node[1].map { |v| text(v) }.join(",#{ws}")}#{ws}]"
    when :str then string(node[1])
    when :num, :lit then node[1]
    end
  end
end

FROM_JSON = {} # name => [jsonb_text, raw_text, stream, stream_symbolized]

def from_json_row(name, tree)
  check_row_name!(name, FROM_JSON)
  raw = RAW_WRITER.text(tree)
  text = jsonb_text(tree)
  fail!("#{name}: document text holds a tab or line break") if text.match?(/[\t\n\r]/) || raw.match?(/[\t\n\r]/)
  value = JSON.parse(text)
  # the canonical text and the raw text are the same JSON value as far as jsonb goes
  fail!("#{name}: canonical text does not re-render to itself") unless jsonb_text(tree_of(text)) == text
  FROM_JSON[name] = [text, raw, Marshal.dump(value), Marshal.dump(JSON.parse(text, symbolize_names: true))]
end

# Parse canonical text back into a tree (numbers keep their lexemes) to check that
# jsonb_text is a fixed point.  The lexemes come from a scan of the text, in order.
def tree_of(text)
  numbers = text.scan(/"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/).flatten.compact
  to_tree(JSON.parse(text, decimal_class: BigDecimal), numbers)
end

def to_tree(v, numbers)
  case v
  when Hash then [:obj, v.map { |k, x| [k, to_tree(x, numbers)] }]
  when Array then [:arr, v.map { |x| to_tree(x, numbers) }]
  when String then [:str, v]
  when Numeric then [:num, numbers.shift]
  else [:lit, v.nil? ? "null" : v.to_s]
  end
end

RAW_WRITER = RawWriter.new(7_001)

# Build a tree from a Ruby literal: Hash (or an Array of pairs under :pairs for duplicate
# keys), Array, String, numbers given as lexeme Strings wrapped in N[], true/false/nil.
N = ->(lexeme) { [:num, lexeme] }
def tree(v)
  case v
  when Hash then [:obj, v.map { |k, x| [k, tree(x)] }]
  when Array
    return v if v.first == :num
    return [:obj, v[1].map { |k, x| [k, tree(x)] }] if v.first == :pairs
    [:arr, v.map { |x| tree(x) }]
  when String then [:str, v]
  when true, false then [:lit, v.to_s]
  when nil then [:lit, "null"]
  else fail!("tree: #{v.inspect}")
  end
end

def edge_doc(name, literal)
  from_json_row("edge_#{name}", tree(literal))
end

edge_doc "num_1e_minus_320", N["1e-320"]
edge_doc "num_5e_minus_324", N["5e-324"]
edge_doc "num_below_denormal", N["1e-400"]
edge_doc "num_below_denormal_decimal", N["0.#{'0' * 400}1"]
edge_doc "num_2_53_plus_1_float", N["9007199254740993.0"]
edge_doc "num_2_53_plus_1_int", N["9007199254740993"]
edge_doc "num_1e22", N["1e22"]
edge_doc "num_1e22_float", N["10000000000000000000000.0"]
edge_doc "num_0_1_plus_0_2", N["0.30000000000000004"]
edge_doc "num_1_0", N["1.0"]
edge_doc "num_neg_0_0", N["-0.0"]
edge_doc "num_neg_0", N["-0"]
edge_doc "num_1e_plus_2", N["1E+2"]
edge_doc "num_1_5e300", N["1.5e300"]
edge_doc "num_1_50", N["1.50"]
edge_doc "num_100e_minus_2", N["100e-2"]
edge_doc "num_float_max", N["1.7976931348623157e308"]
edge_doc "num_float_max_decimal", N["#{(2**1024 - 2**971)}.0"]
edge_doc "num_float_overflow_decimal", N["1#{'0' * 309}.0"]
edge_doc "num_exact_0_1", N["0.1000000000000000055511151231257827021181583404541015625"]
edge_doc "num_halfway_round_even", N["9007199254740993.0000000000000000000"]
edge_doc "num_just_above_halfway", N["9007199254740993.0000000000000000001"]
edge_doc "num_long_mantissa", N["3.14159265358979323846264338327950288419716939937510582097494459"]
edge_doc "num_2_64", N["18446744073709551616"]
edge_doc "num_2_64_plus_1", N["18446744073709551617"]
edge_doc "num_neg_2_64", N["-18446744073709551616"]
edge_doc "num_2_100", N[(2**100).to_s]
edge_doc "num_fixnum_edges", [N["1073741823"], N["1073741824"], N["-1073741824"], N["-1073741825"],
                              N["4611686018427387903"], N["4611686018427387904"],
                              N["-4611686018427387904"], N["-4611686018427387905"],
                              N["9223372036854775807"], N["9223372036854775808"], N["-9223372036854775809"]]
edge_doc "num_int_small_edges", [N["0"], N["122"], N["123"], N["-123"], N["-124"], N["255"], N["256"], N["-256"], N["-257"]]
edge_doc "floats_repeated_flonum", [N["1.5"], N["1.5"], N["0.1"], { "a" => N["0.1"], "b" => N["1.5"] }, N["1.5"]]
edge_doc "floats_repeated_zero", [N["0.0"], N["0.0"], N["-0.0"], N["0.00"]]
edge_doc "floats_repeated_heap", [N["1e-320"], N["1e-320"], N["1.0e300"], N["1#{'0' * 300}.0"], N["1#{'0' * 300}.0"]]
edge_doc "floats_repeated_mixed", [N["2.5"], N["2.50"], N["25e-1"], N["2.5"], N["3"], N["3.0"]]
edge_doc "strings_repeated", ["a", "a", { "a" => "a", "b" => ["a", "b"] }, "b"]
edge_doc "keys_repeated_across_objects", [{ "id" => N["1"], "name" => "x" }, { "id" => N["2"], "name" => "y" }, { "name" => { "id" => N["3"] } }]
edge_doc "key_equals_value", { "k" => "k", "v" => ["k", "v"] }
edge_doc "strings_escapes", ["\"\\/\b\f\n\r\t", "\u0001\u001f\u007f", "\u2028\u2029", "é日本🎉", "\u00a0\ufeff", "</script>"]
edge_doc "string_surrogate_pair", "𝄞🎉"
edge_doc "string_empty", ""
edge_doc "empty_object", {}
edge_doc "empty_array", []
edge_doc "empty_nested", [[], {}, [[]], { "" => {} }, ""]
edge_doc "top_true", true
edge_doc "top_false", false
edge_doc "top_null", nil
edge_doc "top_string", "x"
edge_doc "top_int", N["42"]
edge_doc "top_float", N["1.5"]
edge_doc "duplicate_keys", [:pairs, [["a", N["1"]], ["b", N["2"]], ["a", N["3"]]]]
edge_doc "duplicate_keys_nested", [:pairs, [["a", { "x" => N["1"] }], ["a", [:pairs, [["y", N["2"]], ["y", N["2.0"]]]]]]]
edge_doc "key_order", { "bb" => N["1"], "a" => N["2"], "ab" => N["3"], "é" => N["4"], "z" => N["5"], "" => N["6"],
                        "aaa" => N["7"], "B" => N["8"], "日" => N["9"], "🎉" => N["10"], "è" => N["11"], "10" => N["12"], "9" => N["13"] }
edge_doc "symbolize_keys", { "" => N["1"], "with space" => N["2"], "日本" => N["3"], "a" => { "a" => N["4"] }, "@iv" => N["5"], "1" => N["6"] }
edge_doc "json_class_is_plain", { "json_class" => "String", "data" => [N["1"]] }
deep_doc = N["1"]
50.times { deep_doc = [deep_doc] }
edge_doc "deep_array_50", deep_doc
deep_obj = "leaf"
50.times { |i| deep_obj = { "k#{i % 2}" => deep_obj } }
edge_doc "deep_object_50", deep_obj
edge_doc "array_300", (1..300).map { |i| N[i.to_s] }
edge_doc "object_200", (1..200).to_h { |i| ["key#{i}", N[(i * 1.5).to_s]] }
edge_doc "string_long", "日本語テキスト🎉 " * 100

jgen = JsonGen.new(19_700_101)
RANDOM_DOCS = 1200
RANDOM_DOCS.times { |i| from_json_row(format("rnd_%04d", i + 1), jgen.doc) }

# ---------------------------------------------------------------------------
# paths rows
# ---------------------------------------------------------------------------
#
# name<TAB>hex<TAB>path<TAB>expected_hex: path is a PostgreSQL text[] literal and
# expected_hex is Marshal.dump of what jsonb's #> finds in the JSON view (json_view.rb),
# taken from Marshal.load(hex): the extension only sees the bytes, and a loaded value can
# dump differently from the one first built (see README.md).  NULL when the path leads
# nowhere.  Every row is checked three ways: the JSON of the sub-value is what #> finds in
# the parsed JSON of the whole value; Marshal.load(expected_hex) is the sub-value (deep
# equality, NaN and objects without == included); Marshal.dump of that is expected_hex.

PATHS = {}                 # name => [stream, steps, expected stream or nil, json, expected json or nil]
PATH_STATS = Hash.new(0)   # counters printed at the end
PATH_KINDS = Hash.new { |h, k| h[k] = [0, 0] } # kind of path => [found, NULL]
PATH_DROPPED = []          # [name, why]: a fresh Ruby writes the sub-value otherwise
PATH_NOT_EQ = Hash.new(0)  # class => rows where Marshal.load(expected) == sub is false
PATH_RELOADED = Hash.new { |h, k| h[k] = [] } # class => rows whose sub-value, as first built, dumps otherwise

# Deep equality of two values, including what == leaves out: encodings, ivars, NaN,
# -0.0, offsets, objects without ==.
def same_value?(a, b, seen = {}.compare_by_identity)
  return false unless a.class == b.class
  return seen[a].equal?(b) if seen.key?(a)
  seen[a] = b unless a.is_a?(Integer) || a.is_a?(Symbol) || a.nil? || a == true || a == false
  same = case a
         when Float then a.nan? ? b.nan? : [a].pack("G") == [b].pack("G")
         when BigDecimal then a.nan? ? b.nan? : a == b && a.sign == b.sign && a.precs == b.precs
         when Hash
           a.size == b.size && a.compare_by_identity? == b.compare_by_identity? &&
             same_value?(a.default, b.default, seen) &&
             a.to_a.zip(b.to_a).all? { |(k1, v1), (k2, v2)| same_value?(k1, k2, seen) && same_value?(v1, v2, seen) }
         when Array then a.size == b.size && a.zip(b).all? { |x, y| same_value?(x, y, seen) }
         when Struct, Set then same_value?(a.to_a, b.to_a, seen)
         when OpenStruct then same_value?(a.to_h, b.to_h, seen)
         when String then a == b && a.encoding == b.encoding
         when Exception then a.message == b.message && a.backtrace == b.backtrace
         # their ivars are caches filled on use (and AS's Time.=== takes a TimeWithZone)
         when ActiveSupport::TimeWithZone
           return a == b && a.utc_offset == b.utc_offset && a.time_zone.name == b.time_zone.name
         when ActiveSupport::TimeZone then return a.name == b.name && a.utc_offset == b.utc_offset
         when Time then a == b && a.utc_offset == b.utc_offset && a.zone == b.zone
         when Range
           a.exclude_end? == b.exclude_end? && same_value?(a.begin, b.begin, seen) && same_value?(a.end, b.end, seen)
         else [BasicObject, Kernel].include?(a.method(:==).owner) || a == b
         end
  same && a.instance_variables == b.instance_variables &&
    a.instance_variables.all? { |iv| same_value?(a.instance_variable_get(iv), b.instance_variable_get(iv), seen) }
end

# the classes inside a value (for the statistics)
def classes_in(value, out = Set.new, seen = {}.compare_by_identity)
  return out if seen.key?(value)
  seen[value] = true
  out << value.class
  JsonView.children(value).each { |c| classes_in(c, out, seen) }
  value.each { |x| classes_in(x, out, seen) } if value.is_a?(Set)
  out
end

# Why a fresh process dumps otherwise: the classes of the sub-value concerned.
def fresh_difference(expected, fresh, sub)
  return "not found in a fresh process" if fresh.nil?
  at = (0...[expected.size, fresh.size].min).find { |i| expected[i] != fresh[i] } || 0
  culprits = classes_in(sub).map { |c| MODULE_NAME.bind_call(c) }.select do |c|
    c.match?(/Error|Exception|\AActiveSupport::Time|\ATime\z|\ANode\z|\AMoney\z/)
  end
  "differs at byte #{at} of #{expected.size}/#{fresh.size}; holds #{culprits.sort.join(', ')}"
end

def path_row(name, stream, steps, json_text, original, kind)
  check_row_name!(name, PATHS)
  fail!("#{name}: a path element holds a control character") if steps.any? { |s| s&.match?(JsonView::STEP_UNSAFE) }
  loaded = Marshal.load(stream)
  sub = JsonView.navigate(loaded, steps)
  found = !sub.equal?(JsonView::MISSING)
  dug = JsonView.json_dig(JSON.parse(json_text), steps)
  if found
    fail!("#{name}: #{steps.inspect} finds a value, jsonb's #> would not") if dug.equal?(JsonView::MISSING)
    mine = JSON.parse(encode(sub))
    fail!("#{name}: #{steps.inspect} finds #{mine.inspect} in Ruby, #{dug.inspect} in JSON") unless mine == dug
    expected = Marshal.dump(sub)
    back = Marshal.load(expected)
    fail!("#{name}: Marshal.load(expected) is not the sub-value") unless same_value?(back, sub)
    fail!("#{name}: Marshal.dump(Marshal.load(expected)) differs from expected") unless Marshal.dump(back) == expected
    fresh = FRESH.dump(stream, steps)
    if fresh != expected
      PATH_DROPPED << [name, fresh_difference(expected, fresh, sub)]
      return
    end
    PATH_NOT_EQ[back.class] += 1 unless (back == sub rescue false)
    if original
      osub = JsonView.navigate(original, steps)
      if !osub.equal?(JsonView::MISSING) && Marshal.dump(osub) != expected
        classes_in(sub).select { |c| c <= Exception || c <= BigDecimal }.each { |c| PATH_RELOADED[c] << name }
        PATH_RELOADED[:other] << name unless classes_in(sub).any? { |c| c <= Exception || c <= BigDecimal }
      end
    end
  else
    fail!("#{name}: #{steps.inspect} finds nothing, jsonb's #> finds #{dug.inspect}") unless dug.equal?(JsonView::MISSING)
    expected = nil
  end
  # statistics: what the steps went through
  v = loaded
  steps.each do |s|
    break if v.equal?(JsonView::MISSING)
    PATH_STATS["through_#{JsonView.kind(v)}"] += 1
    v = JsonView.step(v, s)
  end
  PATH_STATS[found ? :found : :null] += 1
  PATH_KINDS[kind][found ? 0 : 1] += 1
  PATH_STATS[:negative_index] += 1 if steps.any? { |s| s&.match?(/\A-[0-9]+\z/) }
  PATHS[name] = [stream, steps, expected, json_text, found ? encode(sub) : nil]
end

# Seeded generator of paths into a value.
class PathGen < SeededRandom
  KINDS = [[:exists, 78], [:missing, 9], [:wrong_kind, 8], [:past_scalar, 9], [:null, 1.5], [:root, 0.7]].freeze
  FOREIGN_KEYS = ["nope", "missing", "Name", "ID", "a b", "", "é", "10", "null", "NULL", "x,y", "{}",
                  "\"", "\\", "key with space", "日本", "@name", "-1", "a\"b\\c", " id"].freeze
  NOT_INDEXES = ["a", "x", "id", "first", "1.0", "0x1", "1a", "", "-", "NaN", "name", "1 2", "NULL"].freeze
  INDEX_LIKE = ["0", "1", "-1", "2", "00", "+0"].freeze
  PAST_SCALAR = ["0", "a", "-1", "x", "length", "size", "name", "1"].freeze

  def options(value)
    JsonView.steps(value)
  rescue JsonView::Unsupported
    []
  end

  def container?(value)
    !options(value).empty?
  end

  # A path that exists: up to depth steps, preferring containers (through=:container
  # keeps to containers, :scalar heads for a scalar).  [steps, value reached]
  def walk(value, depth, through = nil)
    steps = []
    depth.times do
      opts = options(value)
      opts = opts.select { |_, x| container?(x) } if through == :container
      break if opts.empty?
      if through == :scalar
        leaves = opts.reject { |_, x| container?(x) }
        text, sub = leaves.empty? || chance(0.3) ? pick(opts) : pick(leaves)
      else
        inner = opts.select { |_, x| container?(x) }
        text, sub = !inner.empty? && chance(0.7) ? pick(inner) : pick(opts)
      end
      if JsonView.view(value)[0] == :array
        # the same element from the end (-1, -2, ...), or written as jsonb also reads it
        text = (text.to_i - opts.size).to_s if chance(0.25)
        text = pick(["+#{text}", "0#{text}", " #{text}"]) if chance(0.03) && !text.start_with?("-")
      end
      steps << text
      value = sub
    end
    [steps, value]
  end

  # [steps, kind]
  def path(value)
    kind = weighted(KINDS)
    kind = :past_scalar if kind == :exists && !container?(value)
    [path_of_kind(value, kind), kind]
  end

  def path_of_kind(value, kind)
    case kind
    when :exists then walk(value, rand(1..4))[0]
    when :missing
      steps, at = walk(value, rand(0..3), :container)
      case JsonView.view(at)[0]
      when :object
        have = options(at).map(&:first)
        steps << (FOREIGN_KEYS - have).then { |l| pick(l) }
      when :array
        n = options(at).size
        steps << pick([n, n + 1, -(n + 1), 99, 2**31 - 1]).to_s
      else steps << pick(PAST_SCALAR)
      end
    when :wrong_kind
      steps, at = walk(value, rand(0..3), :container)
      steps << (JsonView.view(at)[0] == :array ? pick(NOT_INDEXES) : pick(INDEX_LIKE))
    when :past_scalar
      steps, = walk(value, rand(1..6), :scalar)
      steps << pick(PAST_SCALAR)
    when :null
      steps, = walk(value, rand(0..3))
      steps.insert(rand(0..steps.size), nil)
    else []
    end
  end

  # n distinct paths into value ([steps, kind] pairs), each kept if JsonView can answer it
  def paths(value, n, avoid = [])
    out = []
    (n * 6).times do
      break if out.size >= n
      p, kind = path(value)
      next if avoid.include?(p) || out.any? { |q, _| q == p }
      begin
        JsonView.navigate(value, p)
      rescue JsonView::Unsupported
        next
      end
      out << [p, kind]
    end
    out
  end
end

MAX_PATH_STREAM = 1000 # bytes of a value given paths (keeps paths.tsv small)
pgen = PathGen.new(31_415)
TO_JSON.each do |name, (stream, json)|
  next if stream.bytesize > MAX_PATH_STREAM
  loaded = Marshal.load(stream)
  if JsonView.cyclic?(loaded)
    PATH_STATS[:cyclic_skipped] += 1
    next
  end
  group = name[/\A[a-z]+/]
  # paths per value: all fixtures and hand-picked values, a share of the random ones;
  # few scalars (every path into one is NULL)
  n = if pgen.container?(loaded)
        { "rnd" => pgen.chance(0.22) ? 3 : 0, "enc" => 2 }.fetch(group, 4)
      else
        pgen.chance(group == "rnd" ? 0.01 : 0.3) ? 1 : 0
      end
  pgen.paths(loaded, n).each_with_index do |(steps, kind), i|
    path_row("#{name}_p#{i + 1}", stream, steps, json, ORIGINALS[name], kind)
  end
end

# Hand-made values where the extracted sub-value must be written again with its own
# object and symbol tables: objects first met before the cut are written in full at
# their first use inside it, later uses link to that.
def link_paths(name, value, paths, random: 3)
  stream = Marshal.dump(value)
  fail!("link_#{name}: cyclic") if JsonView.cyclic?(value)
  json = encode(Marshal.load(stream))
  rows = paths.map { |p| [p, :hand] } + LINK_GEN.paths(Marshal.load(stream), random, paths)
  rows.each_with_index do |(steps, kind), i|
    path_row("link_#{name}_p#{i + 1}", stream, steps, json, value, kind)
  end
end

LINK_GEN = PathGen.new(27_182)
HWIA = ActiveSupport::HashWithIndifferentAccess

s = +"shared"
link_paths "shared_string", { "a" => s, "b" => { "c" => s, "d" => [s] } },
           [%w[b], %w[b c], %w[b d], %w[b d 0], %w[b d -1], %w[a], [], %w[b e]]
link_paths "symbol_before_cut", { x: 1, "b" => { x: 2, y: [:x, :y] } },
           [%w[b], %w[b x], %w[x], %w[b y], %w[b y 0], %w[b z]]
t = Time.new(2021, 3, 4, 5, 6, Rational(7_123_456_789, 1_000_000_000), "+05:30")
tu = Time.utc(2020, 1, 2, 3, 4, 5)
hwia = HWIA.new("t" => t, "list" => [t, "x", tu], sym: { "deep" => t, "u" => tu })
link_paths "time_hwia", { "t" => t, "u" => tu, "h" => hwia, "arr" => [hwia, t, { "t" => t }] },
           [%w[h], %w[h t], %w[h list], %w[arr], %w[arr 0], %w[arr 1], %w[arr 2], %w[arr 0 sym deep],
            %w[h sym], %w[arr -1 t], %w[h list 2], %w[h t x]]
link_paths "flonums", { "a" => 1.5, "b" => [1.5, 1.5], "c" => { "x" => 1.5, "y" => [0.1, 1.5, 0.1, -0.0, -0.0] } },
           [%w[b], %w[b 1], %w[c], %w[c y], %w[a], %w[c y -1]]
big = 2**70
link_paths "bignum_shared", { "a" => big, "b" => [big, big, -big], "c" => { "d" => big } },
           [%w[b], %w[c], %w[b 0]]
inner = [1, [2, +"two"], +"s"]
link_paths "nested_array_shared", { "x" => inner, "y" => [inner, inner], "z" => { "w" => inner, "v" => [inner[1], inner] } },
           [%w[y], %w[y 1], %w[z], %w[z v], %w[y 0 1], %w[x 1], %w[z w 1 1], %w[z v 0]]
sj = ->(text) { text.encode("Shift_JIS") }
sj_a = sj.("日本")
sj_b = sj.("テキスト")
link_paths "shift_jis_encoding_name",
           { "first" => sj.("漢字"), "b" => [sj_a, sj.("ひらがな"), sj_a], "c" => { sj.("カタ") => sj_b, "k" => [sj_b, sj.("字").to_sym] } },
           [%w[b], %w[c], %w[c カタ], %w[c k], %w[b 1], %w[c k 1], %w[b 2], %w[first]]
link_paths "encodings_mixed",
           { "pre" => ["é".encode("ISO-8859-1"), "日".encode("EUC-JP"), sj.("本")],
             "cut" => ["è".encode("ISO-8859-1"), "語".encode("EUC-JP"), sj.("字"), "€".encode("Windows-1252"), "utf8 é"] },
           [%w[cut], %w[cut 1], %w[cut 3], %w[pre]]
link_paths "struct_class_before_cut", [Point.new(1, 2), { "p" => Point.new(Point.new(3, 4), "x"), "r" => Pair.new(:left, [Point.new(5, 6)]) }],
           [%w[1], %w[1 p], %w[1 p x], %w[1 p x y], %w[1 r], %w[1 r right 0], %w[1 r left], %w[0 z]]
# the first Node has the ivars of the second: a fresh Ruby orders a class's ivars as it
# first meets them, this one as the random values first used them
n1 = Node.new
n1.instance_variable_set(:@children, [])
n1.instance_variable_set(:@name, +"first")
n2 = Node.new
n2.instance_variable_set(:@name, +"second")
n2.instance_variable_set(:@children, [n1, Money.new(5, +"EUR")])
link_paths "object_ivars_before_cut", [n1, { "n" => n2 }],
           [%w[1 n], %w[1 n name], %w[1 n children], %w[1 n children 0], %w[1 n children 1 currency], %w[1 n @name], %w[0 name]]
s2 = +"member"
link_paths "set_openstruct", { "s" => s2, "set" => Set[s2, [1, 2], { "k" => s2 }, nil],
                               "os" => OpenStruct.new(a: s2, b: Set[s2, 3], "c d": nil) },
           [%w[set], %w[set 0], %w[set 2 k], %w[set -1], %w[os], %w[os table], %w[os table a], %w[os table b],
            %w[os table b 1], %w[os table c\ d], %w[os a], %w[set k]]
link_paths "key_collisions", { "a" => 1, a: [2], 1 => "int", "1" => "str", nil => "nil", "" => "empty", true => "t",
                               "true" => "ts", 1.5 => "f", "NULL" => "upper", "null" => "lower", -0.0 => "negzero",
                               2**70 => "big", Float::INFINITY => "inf" },
           [%w[a], %w[a 0], %w[1], [""], %w[true], %w[1.5], [nil], %w[NULL], %w[null], %w[-0.0], [(2**70).to_s], %w[Infinity], %w[b]]
idh = {}.compare_by_identity
idh[+"k"] = "first"
idh[+"k"] = "second"
dh = Hash.new("dflt")
dh["x"] = 1
link_paths "identity_and_default", { "id" => idh, "d" => dh }, [%w[id k], %w[id], %w[d x], %w[d y], %w[d]]
link_paths "quoting", { "a,b" => 1, "{x}" => 2, "q\"uote" => 3, "back\\slash" => 4, " lead" => 5, "trail " => 6,
                        "日本 語" => 7, "\u00a0nbsp" => 8, "'" => 9, "a b c" => 10, "]" => 11, "[1]" => 12 },
           [["a,b"], ["{x}"], ["q\"uote"], ["back\\slash"], [" lead"], ["trail "], ["日本 語"], ["\u00a0nbsp"], ["'"], ["a b c"], ["]"], ["[1]"]]
r = /x+y/i
str_iv = +"ivar string"
str_iv.instance_variable_set(:@note, 7)
link_paths "regexp_and_ivar_string", { "r" => r, "s" => str_iv, "b" => [r, str_iv, { "r" => r }] }, [%w[b], %w[b 2], %w[b 1]]
link_paths "uclass_extended", { "a" => MyArray[1, MyString.new("m")], "b" => [MyHash["k" => 1], Money.new(1, +"EUR").extend(Tagged), [1].extend(Flagged)] },
           [%w[a], %w[a 1], %w[b], %w[b 0 k], %w[b 1], %w[b 1 cents], %w[b 2], %w[b 2 0]]
deep_t = Time.at(1_600_000_000, 123_456_789, :nsec).utc
link_paths "deep_mix", HWIA.new("l1" => [Record.new(1, +"n", %w[a b], OpenStruct.new(t: deep_t, s: Set[deep_t, KwPoint.new(x: 1, y: [deep_t])]))]),
           [%w[l1 0 meta], %w[l1 0 meta table s], %w[l1 0 meta table s 1], %w[l1 0 meta table s 1 y], %w[l1 0 tags -2],
            %w[l1 -1 name]]

# ---------------------------------------------------------------------------
# Write
# ---------------------------------------------------------------------------

def write_file(name, lines)
  File.binwrite(File.join(OUT_DIR, name), lines.join)
end

write_file("to_json.tsv", TO_JSON.map { |name, (stream, json)| "#{name}\t#{hex(stream)}\t#{json}\n" })
write_file("from_json.tsv", FROM_JSON.map do |name, (text, _raw, s1, s2)|
  "#{name}\t#{text}\t#{hex(s1)}\t#{hex(s2)}\n"
end)
write_file("from_json_raw.tsv", FROM_JSON.map { |name, (_t, raw, _s1, _s2)| "#{name}\t#{raw}\n" }) if WRITE_RAW
FRESH.close
write_file("paths.tsv", PATHS.map do |name, (stream, steps, expected)|
  "#{name}\t#{hex(stream)}\t#{JsonView.pg_array(steps)}\t#{expected ? hex(expected) : 'NULL'}\n"
end)
if WRITE_RAW
  write_file("paths_json.tsv", PATHS.map do |name, (_s, steps, _e, json, expected_json)|
    "#{name}\t#{json}\t#{JsonView.pg_array(steps)}\t#{expected_json || 'NULL'}\n"
  end)
end

groups = ->(names) { names.group_by { |n| n[/\A[a-z]+/] }.map { |g, l| "#{g}_*=#{l.size}" }.join(" ") }
puts "to_json.tsv:   #{TO_JSON.size} rows (#{groups.(TO_JSON.keys)}), " \
     "#{File.size(File.join(OUT_DIR, 'to_json.tsv'))} bytes"
puts "from_json.tsv: #{FROM_JSON.size} rows (#{groups.(FROM_JSON.keys)}), " \
     "#{File.size(File.join(OUT_DIR, 'from_json.tsv'))} bytes"
puts "paths.tsv:     #{PATHS.size} rows (#{groups.(PATHS.keys)}), " \
     "#{File.size(File.join(OUT_DIR, 'paths.tsv'))} bytes"
puts "  found #{PATH_STATS[:found]}, NULL #{PATH_STATS[:null]}, with a negative index #{PATH_STATS[:negative_index]}; " \
     "steps through: #{PATH_STATS.select { |k, _| k.to_s.start_with?('through_') }.sort.map { |k, c| "#{k.to_s.delete_prefix('through_')}=#{c}" }.join(' ')}"
puts "  by kind (found/NULL): #{PATH_KINDS.map { |k, (f, n)| "#{k}=#{f}/#{n}" }.join(' ')}"
puts "  Marshal.load(expected) == sub-value is false (the rows compare equal deeply): " \
     "#{PATH_NOT_EQ.sort_by { |c, _| c.to_s }.map { |c, n| "#{c}=#{n}" }.join(' ')}"
puts "  the sub-value as first built dumps otherwise than once loaded (#{PATH_RELOADED.values.flatten.uniq.size}):"
PATH_RELOADED.sort_by { |c, _| c.to_s }.each { |c, l| puts "    #{c}: #{l.join(' ')}" }
puts "  left out, as a fresh Ruby dumps the sub-value otherwise (#{PATH_DROPPED.size}):"
PATH_DROPPED.each { |name, why| puts "    #{name}: #{why}" }
puts "fixtures skipped (#{SKIPPED.size}):"
SKIPPED.each { |name, reason| puts "  #{name}: #{reason}" }
