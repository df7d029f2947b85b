# frozen_string_literal: true

# The YAML reader's oracle data: what MRI (Ruby 3.1, Psych 4, ActiveSupport
# and ActiveRecord 6.1) makes of many YAML texts.
#
#   ruby test/yaml/generate.rb OUTDIR     writes OUTDIR/cases.tsv
#
# The texts: to_yaml of seeded random values of every type Psych reads back
# (nested, with shared references and cycles), what ActiveRecord 6.1's
# YAMLColumn writes for records of several shapes, scalars that probe every
# rule of ScalarScanner#tokenize, YAML in styles Psych reads but does not
# write (flow style, explicit tags, anchors on scalars, merge keys, comments,
# "..."), texts Psych refuses, safe-mode cases, aliases Ruby's classes
# share (aliases.rb) and what real apps store in YAML columns (columns.rb).
#
# Expected values are computed in a separate oracle process that only loads
# the libraries and defines the user classes, forking once per text, so each
# text is loaded and dumped as in a fresh process (MRI orders instance
# variables by their class's history in the process).
#
# cases.tsv: name, yaml, expected, mode, json -- COPY text format (\n, \t, \\
# escaped).  expected is Marshal.dump(YAML.unsafe_load(yaml)) in hex (or of
# YAML.safe_load(yaml, permitted_classes:, aliases:) when mode is
# "safe:Class,...[;noalias]"), or "!" and the failure: syntax (Psych cannot
# parse it), refused:Class (safe mode refuses a class: Psych's
# DisallowedClass and the class it names), refused:alias (BadAlias: an alias
# in safe mode without aliases, or one to an unknown anchor), unrepresentable
# (loading or dumping raises).  json is JSON.parse(ActiveSupport::JSON.encode(value))
# as JSON text, or "-" where ActiveSupport raises.
require "yaml"
require "json"
require "set"
require "date"
require "bigdecimal"
require "rbconfig"
require "ostruct"
require_relative "../seeded_random"

ENV["TZ"] = "UTC"
# UTF-8 default external encoding, as Rails sets it: in a C/POSIX locale Regexp#inspect
# (what YAML.dump writes for a Regexp) escapes é, and the cases would depend on the locale
Encoding.default_external = Encoding::UTF_8

USER_CLASSES = <<~RUBY
  class Money; def initialize(c, cur); @cents = c; @currency = cur; end; end
  class Widget; attr_accessor :name, :parts, :owner; end
  class Point < Struct.new(:x, :y); end
  Pair = Struct.new(:left, :right)
  class Tagged < String; end
  class MyList < Array; end
  class MyHash < Hash; end
  class AppError < StandardError; end
  module Greeting; end
RUBY

def escape(s)
  s.gsub("\\") { "\\\\" }.gsub("\n", "\\n").gsub("\t", "\\t").gsub("\r", "\\r")
end

if ARGV[0] == "--oracle"
  # --- the oracle: a fresh process, forked per text -------------------------
  require "active_support/all"
  # InheritableOptions has no autoload of its own (an app has it loaded:
  # Rails' configuration is made of them); OrderedOptions' file defines it
  require "active_support/ordered_options"
  # ActionController registers its Parameters' Hash tags (YAML.load_tags)
  require "action_controller"
  eval(USER_CLASSES) # rubocop:disable Security/Eval
  Time.zone = "UTC"
  texts = Marshal.load(File.binread(ARGV[1]))
  out = File.open(ARGV[2], "w")
  texts.each do |name, yaml, mode|
    r, w = IO.pipe
    pid = fork do
      r.close
      res =
        begin
          v =
            if mode == "-"
              YAML.unsafe_load(yaml)
            else
              classes, noalias = mode.sub("safe:", "").split(";")
              YAML.safe_load(yaml, permitted_classes: classes.to_s.split(","),
                                   aliases: noalias != "noalias")
            end
          hex = Marshal.dump(v).unpack1("H*")
          json =
            begin
              JSON.generate(JSON.parse(ActiveSupport::JSON.encode(v), quirks_mode: true))
            rescue StandardError, SystemStackError
              "-"
            end
          [hex, json]
        rescue Psych::SyntaxError
          ["!syntax", "-"]
        rescue Psych::DisallowedClass => e
          ["!refused:#{e.message[/class: (.*)\z/, 1]}", "-"]
        rescue Psych::BadAlias
          # aliases not allowed, or an unknown anchor: one class in Psych
          ["!refused:alias", "-"]
        rescue SystemStackError
          ["!depth", "-"]
        rescue StandardError
          ["!unrepresentable", "-"]
        end
      w.write(Marshal.dump(res))
      w.close
      exit!(0)
    end
    w.close
    hex, json = Marshal.load(r.read)
    r.close
    Process.wait(pid)
    out.puts [name, escape(yaml), hex, mode, escape(json)].join("\t")
  end
  out.close
  exit 0
end

# --- the texts (this process may load and dump freely) ---------------------
require "active_support/all"
require "active_record"
eval(USER_CLASSES) # rubocop:disable Security/Eval
Time.zone = "Eastern Time (US & Canada)"

R = SeededRandom.new(1717)
CASES = []

def add(name, yaml, mode = "-")
  CASES << [name, yaml, mode]
end

WORDS = %w[alpha beta gamma delta yes no on off true false null ~ Null NULL y n
           1 0 -1 1_000 0x1F 0b101 017 08 1.5 -2.5e+3 .5 1. .inf -.inf .nan
           1:30 1:30:15 2024-03-05 2024-03-05T10:20:30Z :sym :"q q" héllo 日本
           a\ b with\ space] + ["", " ", "line1\nline2", "tab\there", "#hash", "a: b",
                                "- dash", "[x]", "{y}", "'q'", "\"dq\"", "|", ">", "&a", "*a", "!tag", "%p",
                                "@at", "`bt", "trailing ", " leading", "3e2", "1,000", "0o17", "+1", "-0",
                                "12:30:45.5", "é" * 3, "\u00e9\n\u00e9", "x" * 80]

def rstring
  case R.rand(4)
  when 0 then R.pick(WORDS).dup
  when 1 then (0...R.rand(12)).map { R.pick(("a".."z").to_a + ["_", " ", "-", ".", "1"]) }.join
  when 2 then R.pick(WORDS) + R.pick(WORDS)
  else R.rand(10**R.rand(20)).to_s
  end
end

def rscalar(depth)
  case R.rand(24)
  when 0 then nil
  when 1 then R.chance(0.5)
  when 2 then R.rand(2**R.rand(70)) * (R.chance(0.3) ? -1 : 1)
  when 3 then R.pick([0.0, -0.0, 1.5, 0.1, 1e100, 1e-7, 2.5e-300, 1e300, 123456.789, Float::NAN,
                      Float::INFINITY, -Float::INFINITY, 3.0, -1.25, R.rand * 1000])
  when 4, 5, 6 then rstring
  when 7 then R.pick(%i[a name héllo q\ q admin created_at])
  when 8 then Time.utc(2000 + R.rand(30), 1 + R.rand(12), 1 + R.rand(28), R.rand(24), R.rand(60),
                       R.rand(60), R.pick([0, 500000, 123456, R.rand(1_000_000)]))
  when 9 then Time.new(2024, 1 + R.rand(12), 1 + R.rand(28), R.rand(24), R.rand(60), R.rand(60),
                       R.pick(["+01:00", "-05:00", "+05:30", "+00:00", "-00:30"]))
  when 10 then Time.at(1_700_000_000 + R.rand(10**8), R.rand(10**9), :nsec).utc
  when 11 then Date.new(1500 + R.rand(600), 1 + R.rand(12), 1 + R.rand(28))
  when 12 then DateTime.new(2024, 1 + R.rand(12), 1 + R.rand(28), R.rand(24), R.rand(60), R.rand(60),
                            R.pick(["+00:00", "+02:00", "-07:00"]))
  when 13 then BigDecimal(R.pick(%w[1.5 0 -0.000001234 123456789012345678901234567890.5 1e20 NaN Infinity
                                    -Infinity 3.14159 100]))
  when 14 then Rational(R.rand(100) - 50, 1 + R.rand(20))
  when 15 then Complex(R.rand(10) - 5, R.pick([R.rand(10), 1.5]))
  when 16 then R.pick([(1..10), (1...10), ("a".."z"), (1..), (..5), (1.5..2.5)])
  when 17 then R.pick([/ab+c/ix, /é/, /a.b/m, /x/])
  when 18 then "\xff\x00ab".b
  when 19 then R.pick([String, Integer, Comparable, Greeting])
  when 20 then Time.zone.local(2024, 1 + R.rand(12), 1 + R.rand(28), R.rand(24), R.rand(60), R.rand(60))
  when 21 then R.pick([3.days, 1.month + 2.hours, 45.seconds, 2.years])
  when 22 then Tagged.new(rstring)
  else "#{rstring}\n#{rstring}"
  end
end

def rvalue(depth, pool)
  if depth > 0 && !pool.empty? && R.chance(0.12)
    return R.pick(pool)
  end
  v =
    case depth >= 4 ? 99 : R.rand(15)
    when 0, 1
      a = Array.new(R.rand(5)) { rvalue(depth + 1, pool) }
      a << a if R.chance(0.05)
      a
    when 2, 3
      h = {}
      R.rand(5).times { h[R.pick([rstring, rstring, R.pick(%i[a b id name]), R.rand(100)])] = rvalue(depth + 1, pool) }
      h
    when 4
      h = ActiveSupport::HashWithIndifferentAccess.new
      R.rand(4).times { h[rstring] = rvalue(depth + 1, pool) }
      h
    when 5
      Set.new(Array.new(R.rand(4)) { R.rand(100) })
    when 6
      m = Money.new(R.rand(10_000), R.pick(%w[USD EUR]))
      m
    when 7
      w = Widget.new
      w.name = rstring
      w.parts = Array.new(R.rand(3)) { rvalue(depth + 1, pool) }
      w.owner = w if R.chance(0.2)
      w
    when 8
      R.chance(0.5) ? Point.new(R.rand(10), rvalue(depth + 1, pool)) : Pair.new(rstring, R.rand(5))
    when 9
      e = AppError.new(rstring)
      e.set_backtrace(["app.rb:1:in `x'", "app.rb:2"]) if R.chance(0.5)
      e
    when 10
      MyList.new(Array.new(R.rand(3)) { rvalue(depth + 1, pool) })
    when 11
      h = MyHash.new
      h[rstring] = rvalue(depth + 1, pool)
      h
    when 12
      OpenStruct.new(R.pick(%i[a name id]) => rvalue(depth + 1, pool), "b" => R.rand(9))
    else
      rscalar(depth)
    end
  pool << v unless v.nil? || v == true || v == false || v.is_a?(Integer) || v.is_a?(Symbol)
  v
end

600.times do |i|
  add("random #{i}", rvalue(0, []).to_yaml)
rescue StandardError, SystemStackError
  next
end

# Every scalar rule: one plain scalar per line
SCALARS = %w[~ null Null NULL nULL yes Yes YES no No on On ON off Off true True TRUE false FALSE y n Y N
             0 -0 +0 00 007 08 09 0o17 0x1F 0X1F 0x_1F 0b1010 0b_1 -0b11 +0x10 1_000 1,000 1__0 1_ _1 12,345,678
             123456789012345678901234567890 -99999999999999999999 0x123456789abcdef0123 0b1111111111111111111111111111111111111111111111111111111111111111111
             1.5 -1.5 +1.5 .5 -.5 1. -1. 1.e+5 1.5e+3 1.5E-3 1.5e3 1_000.5 1,0.5 . -. +. .e+5 1e5
             .inf .Inf .INF -.inf +.inf .nan .NaN .NAN inf nan
             1:30 -1:30 1:30:15 1:60 1:59 1:5 190:20:30 1:30.5 1:30:15.25 1_0:30 1__0:30
             2024-03-05 2024-3-5 2024-02-29 2023-02-29 2024-02-30 2024-13-01 2024-00-01 1582-10-04 1582-10-10
             1582-10-15 0000-01-01 9999-12-31 2024-03-05T10:20:30Z 2024-03-05t10:20:30z
             :sym :Sym :"quoted" :'single' :"a"b :: :1 :héllo :a: ::a
             abc héllo 日本語 a1 1a -a -1a +a .a :a:b %a @a `a
             true1 yes! on_ Off~ ~~ ~a n\\nno yeſ falſe oﬀ ﬀ ſ ｙｅｓ] +
          ["2024-03-05 10:20:30", "2024-03-05 10:20:30.5", "2024-03-05 10:20:30.123456789",
           "2024-03-05 10:20:30.1234567891 Z", "2024-03-05 10:20:30 +01:00", "2024-03-05 10:20:30 -0500",
           "2024-03-05 10:20:30 +5", "2024-03-05 10:20:30 -0:30", "2024-03-05 10:20:30 +25:00",
           "2024-03-05  10:20:30 Z", "2024-02-30 10:20:30 Z", "2024-01-01 24:00:00 Z",
           "2024-01-01 23:59:60 Z", "2024-01-01 10:00:00. Z", "-2024-01-01 10:00:00 Z",
           "1800-01-01 00:00:00 Z", "1969-12-31 23:59:59.999999 Z", "2024-03-05 1:02:03 Z",
           "2024-03-05 10:20:30.5+01:00", "2024-03-05T10:20:30.000000001-07:00",
           "2024-03-05 10:20:30.123456789123456000 Z", "2024-03-05 10:20:30.100000000000000000000000000000 Z"]
SCALARS.each_with_index do |s, i|
  add("scalar #{i} #{s[0, 30]}", "- #{s}\n")
end
# multi-line plain scalars and the line rules of the word branch
["a\n\n  b", "o\n\n  no", "n\n\n  yes", "null\n\n  x", "y\n\n  true", "x\n\n  ~"].each_with_index do |s, i|
  add("multiline #{i}", "--- #{s}\n")
end

# Styles Psych reads but does not write
STYLES = [
  "{a: 1, b: [2, 3], c: {d: e}}",
  "[1, [2, [3, []]], {}]",
  "--- !!str 123",
  "--- !!int '42'",
  "--- !!float 1",
  "--- !!float '2.5'",
  "--- !!float .nan",
  "--- !!float ~",
  "--- !!binary aGVsbG8gd29ybGQ=",
  "--- !binary |\n  aGVs\n  bG8=\n",
  "--- !!null ''",
  "--- !!bool yes",
  "--- ! '12'",
  "--- ! 12",
  "- &x 1\n- *x\n- &s str\n- *s\n- *s\n",
  "- &f 1.5e300\n- *f\n- 1.5e300\n",
  "- &b 99999999999999999999\n- *b\n- 99999999999999999999\n",
  "- &t 2024-03-05 10:20:30 Z\n- *t\n",
  "- &d 2024-03-05\n- *d\n",
  "- &a [1, 2]\n- *a\n- {k: *a}\n",
  "a: &h {x: 1}\nb: *h\n",
  "base: &base\n  a: 1\n  b: 2\nderived:\n  <<: *base\n  b: 3\n  c: 4\n",
  "a: &a {x: 1, y: 2}\nb: &b {y: 3, z: 4}\nc:\n  <<: [*a, *b]\n  w: 0\n",
  "a: &a {x: 1}\nc:\n  w: 0\n  <<: *a\n  x: 2\n",
  "c:\n  <<: {x: 1, y: 2}\n",
  "c:\n  <<: 5\n",
  "c:\n  <<: [1, 2]\n",
  "c:\n  !!str <<: 5\n",
  "c:\n  '<<': {x: 1}\n",
  "# a comment\na: 1 # another\n# end\n",
  "--- 1\n...\n--- 2\n",
  "--- a\n...\n",
  "---\n...",
  "--- |\n  literal\n  text\n",
  "--- >\n  folded\n  text\n\n  para\n",
  "--- |-\n  keep\n",
  "--- |+\n  keep\n\n",
  "--- 'single ''quoted'''",
  "--- \"double\\tescaped\\u00e9\\n\"",
  "--- \"multi\n  line\"",
  "--- plain\n  continued\n",
  "? complex key\n: value\n",
  "? [a, b]\n: value\n",
  "? {a: 1}\n: v\n",
  "a: 1\na: 2\n",
  "1: a\n'1': b\n1.0: c\n:x: d\nx: e\n",
  "%YAML 1.1\n---\na: 1\n",
  "%TAG !e! tag:example.com,2000:\n---\n- !e!foo bar\n",
  "--- !<tag:yaml.org,2002:str> verbatim",
  "--- !ruby/object:Money\ncents: 500\ncurrency: USD\n",
  "--- !ruby/object:Money {cents: 1, currency: X}",
  "- !ruby/object:Money\n  b: 1\n  a: 2\n- !ruby/object:Money\n  a: 3\n  c: 4\n",
  "--- !ruby/object\nx: 1\n",
  "--- !ruby/object:Hash\na: 1\n",
  "--- !ruby/struct:Point\nx: 1\ny: 2\n",
  "--- !ruby/struct:Pair {left: a, right: b}",
  "--- !ruby/sym foo",
  "--- !ruby/symbol bar",
  "--- !ruby/sym 'with space'",
  "--- !ruby/regexp /a\\/b/mix",
  "--- !ruby/regexp /a/n",
  "--- !ruby/range 1..5",
  "--- !ruby/range a...z",
  "--- !ruby/range 1..",
  "--- !ruby/range 1..a",
  "--- !ruby/range\nbegin: 1\nend: 3\nexcl: true\n",
  "--- !ruby/class String",
  "--- !ruby/module Comparable",
  "- !ruby/class String\n- !ruby/class String\n",
  "--- !ruby/encoding UTF-8",
  "--- !ruby/object:BigDecimal 18:0.15e1",
  "--- !ruby/object:BigDecimal 27:-0.1234e-5",
  "--- !ruby/object:BigDecimal 9:NaN",
  "--- !ruby/object:BigDecimal 9:Infinity",
  "--- !ruby/object:BigDecimal 0.15e1",
  "--- !ruby/object:Rational 3/4",
  "--- !ruby/object:Rational -6/8",
  "--- !ruby/object:Rational\ndenominator: 4\nnumerator: 2\n",
  "--- !ruby/object:Complex 1+2i",
  "--- !ruby/object:Complex 3",
  "--- !ruby/object:Complex -1.5-2i",
  "--- !ruby/object:Complex\nreal: 1\nimage: 2\n",
  "--- !ruby/object:DateTime 2024-03-05 10:20:30.5 +02:00",
  "--- !ruby/object:Set\nhash:\n  1: true\n  2: true\n",
  "--- !set\na: \nb: \n",
  "--- !!set\n? a\n? b\n",
  "--- !omap\n- a: 1\n- b: 2\n",
  "--- !!omap\n- a: 1\n- a: 2\n",
  "--- !!pairs\n- a: 1\n- b: 2\n",
  "--- !ruby/array:MyList\n- 1\n- 2\n",
  "--- !ruby/array:MyList\ninternal: [1, 2]\nivars:\n  :@tag: x\n",
  "--- !ruby/hash:MyHash\na: 1\n",
  "--- !ruby/hash-with-ivars\nelements:\n  a: 1\nivars:\n  :@meta: m\n",
  "--- !ruby/hash-with-ivars:MyHash\nelements:\n  a: 1\nivars:\n  :@meta: m\n",
  "--- !ruby/string:Tagged abc",
  "--- !ruby/string:Tagged\nstr: abc\n'@note': n\n",
  "--- !str\nstr: plain\n",
  "--- !ruby/exception:AppError\nmessage: boom\nbacktrace:\n- a.rb:1\n",
  "--- !ruby/exception\nmessage: plain\n",
  "--- !ruby/exception:RuntimeError\nmessage: boom\nextra: 1\n",
  "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n:sym: 1\nstr: 2\nnested: {a: 1}\nlist:\n- {b: 2}\n",
  "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\nbase: &b {x: 1}\nother: *b\n",
  "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n<<: {x: 1}\ny: 2\n",
  "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: &a 5\n<<: *a\n",
  "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n<<: [{x: 1}, {y: [1, {z: 2}]}]\n",
  "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n<<: [1]\n",
  "a: &a 5\n<<: *a\n",
  "--- !ruby/object:ActiveSupport::TimeWithZone\nutc: 2024-03-05 14:07:09.250000000 Z\nzone: !ruby/object:ActiveSupport::TimeZone\n  name: America/New_York\ntime: 2024-03-05 09:07:09.250000000 Z\n",
  "--- !ruby/object:ActiveSupport::Duration\nvalue: 259200\nparts:\n  :days: 3\n",
  "--- !ruby/object:ActiveSupport::Duration\nvalue: 0\nparts:\n  :days: 0\n",
  "--- !ruby/object:OpenStruct\ntable:\n  :a: 1\nmodifiable: true\n",
  "--- !ruby/object:OpenStruct\ntable:\n  :a: 1\n",
  "--- !ruby/object:OpenStruct\na: 1\nb: [x]\n",
  "--- !map:ActiveSupport::HashWithIndifferentAccess\na: 1\n",
  "--- !map:HashWithIndifferentAccess\na: 1\nb: {c: 2}\nl: [{d: 3}]\n",
  "--- !ruby/hash:HashWithIndifferentAccess\n:a: 1\n",
  "--- !ruby/object:ActiveSupport::HashWithIndifferentAccess\na: 1\n",
  "- 1_22222222222222222222222222222222222222222222222222222222222222222222222222222222:30.5\n" \
  "- -1_22222222222222222222222222222222222222222222222222222222222222222222222222222222:30.5\n" \
  "- 3333333333333333333333333333333333333333333333333333333333333333333333_5:00.0\n" \
  "- 1_0.5_5:30.5\n- 00_1:0.5\n- 1.5.5:1\n",
  "- - 99999999999999999999:59:59\n  - -11111111111111111111:30\n  - -0:30\n  - 1_0.5:30.5\n",
  "--- !ruby/object:BigDecimal 99:0.15e1",
  "--- !ruby/object:BigDecimal 36:0.1234567890123456789012345678901234e34",
  "--- !ruby/object:BigDecimal 18:1.5",
  "--- !ruby/object:BigDecimal 9:0.0",
  "--- !ruby/object:BigDecimal 9:-Infinity",
  "--- !unknown/tag 5",
  "--- !unknown/tag [1]",
  "--- !unknown/tag {a: 1}",
  "&a [*a]",
  "&a {self: *a}",
  "- &a x\n- &a y\n- *a\n",
  "[.nan, .nan, .inf, -.inf, .inf, 1.5, 1.5]",
  "",
  "# only a comment\n",
  "---\n",
  "--- ''",
  "\ufeffa: 1",
  "a: 1\r\nb: 2\r\n",
  "- 1\n- - 2\n  - 3\n- a: 4\n  b: 5\n",
  # Psych names UTF-8 to libyaml: a BOM is then a character in column 0
  "\ufeff--- 1\n",
  "\ufeff- 1\n",
  # instance_variable_set refuses a name that is not "@" and an identifier
  "--- !ruby/object:Money\n'@cents': 1\n",
  "--- !ruby/object:Money {'1': 1, a?: 2}\n",
  "--- !ruby/object:Money {_x: 1, A: 2, \u00e9: 3}\n",
  "--- !ruby/hash-with-ivars\nelements: {}\nivars: {x: 1}\n",
  "--- !ruby/array:MyList\ninternal: []\nivars: {'@1': 1}\n",
  "--- !ruby/exception:AppError\nmessage: m\n'a b': 1\n",
  "--- !ruby/string:Tagged\nstr: a\n'e-': 1\n",
  "--- !ruby/object:Money {true: 1, false: 2, ? !ruby/class String : 3}\n",
  "--- !ruby/object:Money {~: 1}\n",
  # a tag naming the base class itself: no "C" in Marshal
  "--- !ruby/array:Array [1]\n",
  "--- !ruby/array:Array\ninternal: [1]\nivars: {'@a': 1}\n",
  "--- !ruby/hash:Hash {a: 1}\n",
  "--- !ruby/hash-with-ivars:Hash\nelements: {a: 1}\nivars: {}\n",
  "--- !ruby/string:String abc\n",
  "--- !ruby/string:String\nstr: a\n'@x': 1\n",
  "- &a !ruby/string:String x\n- *a\n- !ruby/hash:Hash {? *a : 1}\n"
].freeze
STYLES.each_with_index { |y, i| add("style #{i}", y) }

# What Psych refuses
BAD = ["a: [", "a: {b: 1", "- a\nb: c", "a: 'x", "\"x", "{a: 1}}", "*unknown", "[*nope]", "a: b: c",
       "- &a 1\n- *b\n", "\t- tab", "key: - x", "!<> x", "--- !ruby/object:BigDecimal bad",
       "--- !ruby/range nodots", "--- !ruby/regexp noslash", "- 0b_\n", "- 0x_\n", "- .e+5\n",
       "--- !!float ~", "--- !ruby/struct\na: 1\n", "2024-03-05\t10:20:30"].freeze
BAD.each_with_index { |y, i| add("bad #{i}", y) }

# ActiveRecord 6.1 serialize columns (YAMLColumn#dump)
coder = ActiveRecord::Coders::YAMLColumn.new(:prefs, Object)
hcoder = ActiveRecord::Coders::YAMLColumn.new(:prefs, Hash)
records = [
  { "theme" => "dark", "limits" => [1, 2, 3], "since" => Date.new(2024, 3, 5) },
  { theme: "light", font_size: 14, tags: %i[a b] },
  ActiveSupport::HashWithIndifferentAccess.new("a" => 1, "b" => { "c" => [1, { "d" => 2 }] }),
  { "amount" => BigDecimal("12.34"), "at" => Time.utc(2024, 3, 5, 14, 7, 9, 123456) },
  { "at" => Time.zone.local(2024, 3, 5, 9, 7, 9), "zone" => "Eastern Time (US & Canada)" },
  [1, "two", :three, 4.0, nil, true],
  Money.new(500, "USD"),
  { "money" => Money.new(1, "EUR"), "list" => [Money.new(2, "EUR")] },
  "just a string",
  { "nested" => { "deep" => { "deeper" => { "deepest" => [[[]]] } } } },
  { "shared" => (s = { "x" => 1 }), "again" => s },
  { "duration" => 3.days, "set" => Set[1, 2] },
  { "utf8" => "héllo wörld", "jp" => "日本語", "emoji" => "😀" }
]
records.each_with_index do |v, i|
  add("activerecord #{i}", coder.dump(v))
  add("activerecord hash #{i}", hcoder.dump(v)) if v.is_a?(Hash)
end
100.times do |i|
  h = {}
  R.rand(6).times { h[rstring] = rscalar(0) }
  add("activerecord random #{i}", coder.dump(R.chance(0.3) ? h.with_indifferent_access : h))
end

# !ruby/encoding: Encoding.find of every name and alias (case aside), dumped
# by its own name; "internal" is Encoding.default_internal (nil here); the
# oracle runs in a UTF-8 locale, so "locale", "external" and "filesystem"
# are UTF-8
(Encoding.name_list.sort + %w[utf-8 binary Binary ascii UTF8 cp932 INTERNAL Locale bogus] + [""]).each do |n|
  add("encoding #{n}", "--- !ruby/encoding #{n}\n")
end
add("encoding repeated", "- !ruby/encoding UTF-8\n- !ruby/encoding utf-8\n- !ruby/encoding CP65001\n" \
                         "- !ruby/encoding BINARY\n- !ruby/encoding ASCII-8BIT\n")

# ScalarScanner#parse_time on what !ruby/object:DateTime hands it (no TIME check)
["44442024-03-05 10:20:30 +01:00", "12024-03-05 10:20:30", "202-03-05 10:20:30", "2024-3-5 1:2:3",
 "99999999999999999999-03-05 10:20:30", "2024-03-05x 10:20:30", "2024-03-05", "2024-03-05 x",
 "2024-03-05 10:20", "2024-03-05 at 10:20:30 Z", "2024-03-05 10:20:30x", "2024-03-05 10:20:30 x",
 "2024-03-05 10:20:30 +05:30x", "2024-03-05 10:20:30 +123", "2024-03-05 10:20:30 +12345",
 "2024-03-05 10:20:30 +123:45", "2024-03-05 10:20:30 +05:3", "2024-03-05 10:20:30 -00:30",
 "2024-03-05 10:20:301", "2024-03-05 10:20:30.5 Z", "-2024-03-05 10:20:30", "1000-01-01 00:20:30 +01:00",
 "1582-10-10 10:20:30", "1582-10-15 00:20:30 +01:00", "1582-10-04 23:59:59 -01:00"].each do |t|
  add("datetime #{t}", "--- !ruby/object:DateTime #{t}\n")
end

# Safe mode: YAML.safe_load(text, permitted_classes:, aliases:)
SAFE_MODES = ["safe:", "safe:Symbol", "safe:Symbol,Time,Date", "safe:Symbol;noalias",
              "safe:Symbol,HashWithIndifferentAccess,ActiveSupport::HashWithIndifferentAccess,BigDecimal,Date,Time,ActiveSupport::TimeWithZone,ActiveSupport::TimeZone,Money",
              "safe:Set,Range,Regexp,Rational,Complex,Psych::Set,Psych::Omap,Point,Pair,MyList,MyHash,Tagged,AppError,Exception,RuntimeError,Symbol,String,Integer,Comparable,Greeting,DateTime,Object,Encoding,ActiveSupport::Duration,Widget"].freeze
base = CASES.dup
base.each_with_index do |(name, yaml, _), i|
  next unless i % 3 == 0 || name.start_with?("style", "activerecord")

  SAFE_MODES.each_with_index do |mode, j|
    next unless (i + j) % 2 == 0 || name.start_with?("style")

    add("#{name} #{mode[0, 40]}", yaml, mode)
  end
end

# Aliases that Ruby's classes turn into shared objects, and what real apps
# store in YAML columns (after the safe-mode loop, so the cases above keep
# their modes); the columns also as Rails' safe_load with the classes an app
# permits
require_relative "aliases"
require_relative "columns"
AliasTexts.texts.each_with_index { |y, i| add("alias #{i}", y) }
ColumnTexts.texts.each_with_index do |y, i|
  add("column #{i}", y)
  add("column #{i} #{SAFE_MODES[4][0, 40]}", y, SAFE_MODES[4]) if i.even?
end

# Rationals, Complexes and BigDecimals with Bignum parts, as YAML.dump writes them
# and in the other spellings Psych reads (after the columns, so no case above moves)
BIG_NUMBERS = [Rational(10**20, 3), Rational(10**20, 4), Rational(-10**20, 6), Rational(3, 10**20), Rational(-2, 3 * 10**20),
               Rational(10**30, 10**15 + 1), Rational(2**64, 2**62 + 6), Rational(-(2**64), 2**63), Rational(10**20, 1),
               Complex(10**20, 2**70), Complex(-(2**80), Rational(1, 3)), BigDecimal("1" * 40), BigDecimal("-12345678901234567890.5")].freeze
BIG_NUMBERS.each_with_index { |v, i| add("big number #{i}", YAML.dump(v)) }
add("big number list", YAML.dump([BIG_NUMBERS, { "r" => BIG_NUMBERS.first }]))
["--- !ruby/object:Rational\ndenominator: 6\nnumerator: 0x1_0000_0000_0000_0000_0\n",
 "--- !ruby/object:Rational\ndenominator: -4\nnumerator: 0b#{'1' * 70}0\n",
 "--- !ruby/object:Rational\ndenominator: 0\nnumerator: 100000000000000000000\n",
 "--- !ruby/object:Rational\ndenominator: 100000000000000000000\nnumerator: 0\n",
 "--- !ruby/object:Rational 100000000000000000000/6",
 "--- !ruby/object:Rational -7/300000000000000000000"].each_with_index { |y, i| add("big number text #{i}", y) }

# Time zone names Rails does not know (TZInfo raises InvalidTimezoneIdentifier), beside
# known ones; Astana and Canberra, whose MAPPING 7.2 changed, are the contract's (7.2)
# and not here (this oracle is 6.1).  In a TimeWithZone: the unknown ones
["Nowhere/Land", "Kyev", "asia/tokyo", "Asia/Tokyo", "Tokyo", "", "UTC", "Etc/GMT+5"].each_with_index do |z, i|
  add("zone name #{i}", "--- !ruby/object:ActiveSupport::TimeZone\nname: #{z.to_json}\n")
  next if ActiveSupport::TimeZone[z]

  add("zone name #{i} in time", "--- !ruby/object:ActiveSupport::TimeWithZone\nutc: 2024-03-05 14:07:09.250000000 Z\n" \
                                "zone: !ruby/object:ActiveSupport::TimeZone\n  name: #{z.to_json}\ntime: 2024-03-05 09:07:09.250000000 Z\n")
end

# Which Floats are one object: .inf and .nan are Float::INFINITY and
# Float::NAN (repeated, a link), -.inf is -Float::INFINITY and a Float() that
# overflows is a new Float each time (written again, as any Float outside
# the flonum range: -0.0, 1.0e+300)
FLOATS = ["--- [-.inf, -.inf, -.Inf, .inf, .Inf, +.inf, .INF, .nan, .NaN, .nan]\n",
          "--- {a: -.inf, b: -.inf, c: .inf, d: .inf}\n",
          "- !!float -.inf\n- !!float -.inf\n- !!float .inf\n- !!float .inf\n- !!float .nan\n- .nan\n" \
          "- !!float 1e400\n- !!float 1e400\n- !!float -1e400\n- !!float -1e400\n- !!float '-.inf'\n",
          "- 1.0e+400\n- 1.0e+400\n- -1.0e+400\n- -1.0e+400\n- 1.0e+300\n- 1.0e+300\n- -0.0\n- -0.0\n" \
          "- 0.0\n- 0.0\n- 1.5\n- 1.5\n",
          "- 1#{"0" * 400}:30.5\n- 1#{"0" * 400}:30.5\n- -1#{"0" * 400}:30.5\n",
          "- &a -.inf\n- *a\n- -.inf\n"].freeze
FLOATS.each_with_index { |y, i| add("floats #{i}", y) }
# ActiveSupport::OrderedOptions answers marshal_dump by method_missing (nil);
# InheritableOptions too (its cases after the integers, so none above moves)
ORDERED = ["--- !ruby/object:ActiveSupport::OrderedOptions {}\n",
           "--- !ruby/object:ActiveSupport::OrderedOptions\na: 1\n",
           "--- !ruby/hash:ActiveSupport::OrderedOptions\na: 1\nb: [x]\n",
           "--- !ruby/hash:ActiveSupport::OrderedOptions {}\n",
           "--- !ruby/hash-with-ivars:ActiveSupport::OrderedOptions\nelements: {a: 1}\nivars: {'@x': 1}\n",
           "--- !map:ActiveSupport::OrderedOptions\na: 1\n",
           "- &a !ruby/hash:ActiveSupport::OrderedOptions\n  a: &b [1]\n  self: *a\n- *a\n- *b\n",
           "--- !ruby/hash:MyHash\nopts: !ruby/hash:ActiveSupport::OrderedOptions {x: 1}\n"].freeze
ORDERED.each_with_index do |y, i|
  add("ordered options #{i}", y)
  add("ordered options #{i} safe", y, "safe:ActiveSupport::OrderedOptions,ActiveSupport::InheritableOptions,MyHash")
  add("ordered options #{i} safe, no class", y, "safe:Symbol")
end
# OpenStruct's own to_sym needs no Symbol permitted; a Symbol in the text does
["--- !ruby/object:OpenStruct\na: 1\nb: [x]\n", "--- !ruby/object:OpenStruct {}\n",
 "--- !ruby/object:OpenStruct\ntable:\n  :a: 1\n", "--- !ruby/object:OpenStruct\ntable:\n  a: 1\nmodifiable: true\n",
 "--- !ruby/object:OpenStruct\n:a: 1\n"].each_with_index do |y, i|
  add("openstruct #{i} safe", y, "safe:OpenStruct")
  add("openstruct #{i} safe, noalias", y, "safe:OpenStruct;noalias")
end
# Which refusal Psych reports first: in document order, a tag's class before
# its children where ToRuby loads the class first (Range, Complex, Rational,
# a named Struct and its members' Symbols), after them where it loads it
# last (an exception); an anonymous Struct is refused first; an unknown
# alias is BadAlias
PRECEDENCE = [
  ["--- !ruby/range\nbegin: 2024-01-01\nend: 2024-02-01\nexcl: false\n", ["safe:", "safe:Range", "safe:Date"]],
  ["--- !ruby/range\nbegin: :a\nend: :b\nexcl: false\n", ["safe:", "safe:Range"]],
  ["--- !ruby/range :a..:b\n", ["safe:", "safe:Range"]],
  ["--- !ruby/object:Rational\ndenominator: !ruby/object:Money {}\nnumerator: 1\n", ["safe:", "safe:Rational"]],
  ["--- !ruby/object:Complex\nreal: !ruby/object:Money {}\nimage: 1\n", ["safe:", "safe:Complex"]],
  ["--- !ruby/struct:Point\nx: !ruby/object:Money {}\ny: 1\n", ["safe:", "safe:Point", "safe:Point,Symbol"]],
  ["--- !ruby/struct\na: !ruby/object:Money {}\n", ["safe:", "safe:Money"]],
  ["--- !ruby/exception:AppError\nmessage: !ruby/object:Money {}\n", ["safe:", "safe:Money"]],
  ["- &a x\n- *a\n- 0x_\n", ["-", "safe:", "safe:;noalias"]],
  ["- 0x_\n- &a x\n- *a\n", ["-", "safe:", "safe:;noalias"]],
  ["- !ruby/object:Money {}\n- 0x_\n", ["-", "safe:"]],
  ["- 0x_\n- !ruby/object:Money {}\n", ["-", "safe:"]],
  ["--- *unknown\n", ["-", "safe:", "safe:;noalias"]],
  ["- &a 1\n- *b\n", ["-", "safe:Symbol", "safe:Symbol;noalias"]]
].freeze
PRECEDENCE.each_with_index do |(y, modes), i|
  modes.each { |m| add("precedence #{i} #{m}", y, m) }
end
# Integers of any length (Ruby 3.1 reads a million digits in about a second)
add("integer 100001 digits", "--- #{"9" * 100_001}\n")
add("integer 150000 digits", "- -#{"1234567890" * 15_000}\n- 1_#{"0" * 120_000}\n- 0x#{"f" * 100_001}\n")
# ActiveSupport::InheritableOptions, as OrderedOptions above (the oracle
# requires active_support/ordered_options: the constant has no autoload)
ORDERED.map { |y| y.gsub("OrderedOptions", "InheritableOptions") }.each_with_index do |y, i|
  add("inheritable options #{i}", y)
  add("inheritable options #{i} safe", y, "safe:ActiveSupport::InheritableOptions,MyHash")
  add("inheritable options #{i} safe, no class", y, "safe:Symbol")
  add("inheritable options #{i} safe, ordered only", y, "safe:ActiveSupport::OrderedOptions,MyHash")
end
# Rationals of two Bignums (Rational(n, d) reduces by the gcd, the sign on
# the numerator), in each spelling Psych reads; and num/den texts Rational()
# refuses
RN = 1_208_925_819_614_629_174_706_177
RD = 1_208_925_819_614_629_174_706_179
[[RN, RD], [-RN * 6, RD * 4], [RN * 6, -RD * 4], [-RN * 10**30, -RD * 10**30], [RN * RD, RD],
 [RD * 2**70, RN * 2**70], [7**300 * 11**200, 7**250 * 13**150], [-(3**2000) * 2**500, 3**1900 * 5**40]].each_with_index do |(n, d), i|
  add("two bignums #{i}", "--- !ruby/object:Rational\ndenominator: #{d}\nnumerator: #{n}\n")
  add("two bignums #{i} numerator first", "--- !ruby/object:Rational\nnumerator: #{n}\ndenominator: #{d}\n")
  add("two bignums #{i} scalar", "--- !ruby/object:Rational #{n}/#{d}\n") if d.positive?
  add("two bignums #{i} dump", YAML.dump(Rational(n, d)))
  add("two bignums #{i} safe", YAML.dump([Rational(n, d)] * 2), "safe:Rational")
end
["--- !ruby/object:Rational\nnumerator: 0x#{(RN * 2**70).to_s(16)}\ndenominator: 0b#{(2**80 * 3).to_s(2)}\n",
 "--- !ruby/object:Rational\nnumerator: 0#{(RN * 8**30).to_s(8)}\ndenominator: -0x#{(RD * 16**20).to_s(16)}\n",
 "--- !ruby/object:Rational\nnumerator: 0\ndenominator: #{RD}\n",
 "--- !ruby/object:Rational\nnumerator: #{RN}\ndenominator: 0\n",
 "--- !ruby/object:Rational\nnumerator: \"#{RN}\"\ndenominator: #{RD}\n",
 "--- !ruby/object:Rational\nnumerator: #{RN}\n",
 "- !ruby/object:Rational #{RN}/-#{RD}\n- !ruby/object:Rational 3/-4\n",
 "--- !ruby/object:Rational 3/+4\n", "--- !ruby/object:Rational --3/4\n", "--- !ruby/object:Rational 3/4/5\n",
 "--- !ruby/object:Rational 3/\n", "--- !ruby/object:Rational /4\n", "--- !ruby/object:Rational +3/4\n",
 "--- !ruby/object:Rational -0/#{RD}\n", "--- !ruby/object:Rational #{RN}/0\n"].each_with_index do |y, i|
  add("two bignums text #{i}", y)
end

require "tempfile"
texts = Tempfile.new("yaml-texts")
texts.binmode
texts.write(Marshal.dump(CASES))
texts.close
outdir = ARGV[0] || "."
ok = system({ "LANG" => "C.UTF-8", "LC_ALL" => "C.UTF-8" }, RbConfig.ruby, __FILE__, "--oracle", texts.path,
            File.join(outdir, "cases.tsv"))
exit(ok ? 0 : 1)
