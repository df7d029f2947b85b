#!/usr/bin/env ruby
# frozen_string_literal: true
# Generates the oracle data for the extension's Ruby *literal* text input.
#
#   ruby test/literal/generate.rb [OUT_DIR]        (OUT_DIR defaults to this folder)
#
# Written into OUT_DIR:
#   literals.tsv      name<TAB>literal<TAB>hex
#                     literal = Ruby source text in the supported grammar (README.md),
#                     hex = Marshal.dump(eval(literal)).unpack1("H*") by this Ruby (64-bit MRI:
#                     Debian's ruby 3.1 is the oracle).
#   bad_literals.tsv  name<TAB>literal
#                     text the extension must refuse.  The name says what Ruby does with it:
#                       eval_*    Ruby evaluates it without error (outside the grammar all the same)
#                       error_*   Ruby parses it, evaluating raises (NameError, NoMethodError...)
#                       syntax_*  Ruby does not compile it (SyntaxError, or EncodingError at compile)
#                     The generator checks every row against this Ruby.
#
# The literal column is escaped: backslash -> \\, TAB -> \t, newline -> \n, CR -> \r (two
# characters each); no other character is escaped.  Unescape: "\\" -> "\", "\t" -> TAB,
# "\n" -> LF, "\r" -> CR, scanning left to right.
#
# Determinism: a seeded Random, no clock, no environment.  Every random literal is built
# together with the value it should mean; the generator fails if eval(literal) is not that
# value (floats bitwise, strings bytewise with their encoding).

$VERBOSE = nil # duplicate hash keys in a literal make Ruby warn; they are meant

require_relative "../seeded_random"

OUT_DIR = File.expand_path(ARGV[0] || __dir__)

def fail!(msg)
  $stderr.puts "generate.rb: #{msg}"
  exit 1
end

def tsv_escape(text)
  text.gsub(/[\\\t\n\r]/, "\\" => "\\\\", "\t" => "\\t", "\n" => "\\n", "\r" => "\\r")
end

# eval with no local variables in scope
BLANK = Object.new
def BLANK.fresh_binding
  binding
end

def ruby_eval(src)
  eval(src, BLANK.fresh_binding, "(literal)", 1) # rubocop:disable Security/Eval
end

# Deep equality that sees what Marshal sees: classes, float bits (any NaN equals any NaN),
# string bytes and encodings, hash pairs in order.
def same_value?(a, b)
  return false unless a.instance_of?(b.class)
  case a
  when Float then (a.nan? && b.nan?) || [a].pack("G") == [b].pack("G")
  when String then a.b == b.b && a.encoding == b.encoding
  when Array then a.size == b.size && a.zip(b).all? { |x, y| same_value?(x, y) }
  when Hash
    a.size == b.size && a.to_a.zip(b.to_a).all? { |(k1, v1), (k2, v2)| same_value?(k1, k2) && same_value?(v1, v2) }
  else a == b
  end
end

LITERALS = {} # name => [source, stream]

# [true, value, Marshal.dump(value)], or [false, nil, error text].  With the GC off: MRI 3.1 now and then
# (depending on when the GC runs, not reproducible with GC.stress) gives two distinct objects
# for equal String keys of one literal, so the stream lacks the @ link it normally has.  The
# data holds the normal behaviour; keys_shared? checks it.
def eval_and_dump(src)
  GC.disable
  value = ruby_eval(src)
  [true, value, Marshal.dump(value)]
rescue Exception => e # rubocop:disable Lint/RescueException
  [false, nil, "#{e.class}: #{e.message}"]
ensure
  GC.enable
end

# every String hash key of the value (nested anywhere) is one object per content
def keys_shared?(value, seen = {})
  case value
  when Array then value.all? { |v| keys_shared?(v, seen) }
  when Hash
    value.all? do |k, v|
      ok = !k.is_a?(String) || seen.fetch([k.b, k.encoding]) { seen[[k.b, k.encoding]] = k }.equal?(k)
      ok && keys_shared?(k, seen) && keys_shared?(v, seen)
    end
  else true
  end
end

def lit(name, src, expect = :none)
  fail!("bad row name #{name.inspect}") unless name.match?(/\A[a-z0-9_]+\z/)
  fail!("duplicate row name #{name}") if LITERALS.key?(name)
  src = src.dup.force_encoding(Encoding::UTF_8)
  fail!("#{name}: source is not valid UTF-8") unless src.valid_encoding?
  ok, value, stream = eval_and_dump(src)
  fail!("#{name}: Ruby rejects #{src.inspect}: #{stream}") unless ok
  if expect != :none && !same_value?(value, expect)
    fail!("#{name}: #{src.inspect} gives #{value.inspect}, expected #{expect.inspect}")
  end
  fail!("#{name}: equal String hash keys are distinct objects") unless keys_shared?(value)
  fail!("#{name}: the stream does not load back to the value") unless same_value?(Marshal.load(stream), value)
  LITERALS[name] = [src, stream]
end

# ---------------------------------------------------------------------------
# Renderers: each returns [source_text, value]
# ---------------------------------------------------------------------------

class LiteralGen < SeededRandom
  # --- integers ---------------------------------------------------------------

  INT_EDGES = [0, 1, 122, 123, 124, 255, 256, 65_535, 65_536, 2**30 - 1, 2**30, 2**30 + 1,
               2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**62 - 1, 2**62, 2**62 + 1, 2**63 - 1, 2**63,
               2**64 - 1, 2**64, 2**64 + 1, 2**100, 10**30].freeze

  def int_value
    v = case rand(5)
        when 0 then pick(INT_EDGES) + rand(-2..2)
        when 1 then rand(0..1000)
        when 2 then rand(0..2**32)
        else rand(2**rand(1..300))
        end
    chance(0.45) ? -v : v
  end

  # digits with "_" between some of them
  def underscored(digits, prob)
    return digits if digits.size < 2 || !chance(prob)
    out = +digits[0]
    digits[1..].each_char { |c| out << "_" if chance(0.25); out << c }
    out
  end

  def int_text(v)
    sign = if v.negative? then "-"
           elsif chance(0.05) then "+"
           else ""
           end
    n = v.abs
    body = case weighted([[:dec, 10], [:hex, 2], [:bin, 1], [:oct0, 1], [:oct0o, 1], [:dec0d, 0.5]])
           when :dec then underscored(n.to_s, 0.2)
           when :hex
             d = n.to_s(16)
             d = d.upcase if chance(0.4)
             "#{chance(0.1) ? '0X' : '0x'}#{underscored(d, 0.1)}"
           when :bin then "#{chance(0.1) ? '0B' : '0b'}#{underscored(n.to_s(2), 0.1)}"
           when :oct0 then n.zero? ? "0" : "0#{underscored(n.to_s(8), 0.1)}"
           when :oct0o then "#{chance(0.1) ? '0O' : '0o'}#{underscored(n.to_s(8), 0.1)}"
           else "#{chance(0.1) ? '0D' : '0d'}#{underscored(n.to_s, 0.1)}"
           end
    [sign + body, v]
  end

  def int
    int_text(int_value)
  end

  # --- floats -------------------------------------------------------------------

  FLOAT_EDGES = [0.0, -0.0, 0.1, 1.0, 1.5, -2.5, 100.0, 1e15, 1e16, 1e20, 1e22, 1e23, 1e100,
                 1e-4, 1e-5, 1e-7, 1e-100, 1e300, 5e-324, 1e-320, 2.2250738585072014e-308,
                 1.7976931348623157e308, 0.30000000000000004, 9007199254740993.0,
                 2.0**255, 2.0**256, 2.0**-255, 2.0**-256, 1.5 * 2.0**255, 1.5 * 2.0**-256].freeze

  def finite_double
    case rand(5)
    when 0 then pick(FLOAT_EDGES)
    when 1 then random_finite_float
    when 2 then rand(-100_000..100_000) / pick([1.0, 2.0, 4.0, 8.0, 10.0, 100.0, 1000.0])
    else (rand * 2 - 1) * 10.0**rand(-30..30)
    end
  end

  # a valid Ruby float literal for f (finite), in one of several spellings
  def float_text(f)
    text = case rand(7)
           when 0, 1 then f.to_s                          # 1.0e+20, 0.1, 5.0e-324
           when 2 then format("%.#{rand(1..17)}e", f)     # 1.234e+05 (may round: the value follows the text)
           when 3 then format("%.17g", f)                 # 1e+20, 123.5, 100
           when 4 then format("%.#{rand(1..25)}f", f) if f.abs < 1e22 && f.abs > 1e-6
           when 5 then f.to_s.sub(/\.0e/, "e")            # 1e+20
           else format("%.#{rand(18..30)}e", f)           # more digits than needed: correct rounding
           end
    text ||= f.to_s
    text += ".0" unless text.match?(/[.eE]/)
    text = text.sub("e", "E") if chance(0.1)
    text = text.sub("e+", "e") if chance(0.3)
    # "_" between digits of the integer part, the fraction and the exponent
    text = text.gsub(/\d+/) { |d| underscored(d, 0.15) } if chance(0.3)
    text = "+#{text}" if chance(0.03) && !text.start_with?("-")
    [text, Float(text.delete("_"))]
  end

  def float
    case rand(20)
    when 0 then ["Float::NAN", Float::NAN]
    when 1 then ["Float::INFINITY", Float::INFINITY]
    when 2 then ["-Float::INFINITY", -Float::INFINITY]
    else float_text(finite_double)
    end
  end

  # --- strings ------------------------------------------------------------------

  PLAIN = [*"a".."z", *"A".."Z", *"0".."9", " ", " ", "-", "_", ".", ",", ":", "!", "?", "(", ")",
           "'", "/", "<", ">", "&", "*", "+", "=", "[", "]", "{", "}", "@", "$", "%", "^", "~", "`", "|", ";"].freeze
  UNICODE = %W[é ü ß ñ Ω ж 日 本 語 ｱ € ™ 🎉 😀 👍🏽 \u0301 \u00a0 \u2028 \u2029 \ufeff \u200b 𝄞 한 ع \u0085 \u00ad].freeze
  SIMPLE_ESCAPES = { "n" => 10, "t" => 9, "r" => 13, "s" => 32, "0" => 0, "a" => 7, "b" => 8, "e" => 27,
                     "f" => 12, "v" => 11, "\\" => 92, "\"" => 34, "#" => 35 }.freeze
  CTRL_CHARS = [*"a".."z", *"A".."Z", "@", "[", "]", "^", "_", " ", "?", "0", "9"].freeze

  # A piece is [source, bytes, open_end_alternative]: when the source is a short numeric
  # escape (\x4, \07) the next piece must not start with a digit that would extend it;
  # the alternative is the same escape at full width.
  def utf8(cp)
    [cp].pack("U").b
  end

  def random_codepoint
    case rand(4)
    when 0 then rand(0x80..0x7ff)
    when 1 then [rand(0x800..0xffff)].find { |c| !(0xd800..0xdfff).cover?(c) } || 0xe000
    when 2 then rand(0x10000..0x10ffff)
    else rand(0..0x7f)
    end
  end

  def hex_digits(cp, min)
    d = cp.to_s(16).rjust(min, "0")
    chance(0.5) ? d.upcase : d
  end

  def ctrl_value(c)
    c == "?" ? 0x7f : c.ord & 0x9f
  end

  def dq_piece(binary_ok: true)
    kind = weighted([[:plain, 12], [:unicode, 3], [:simple, 4], [:hash, 0.7], [:u4, 1.5], [:ubrace, 1.5],
                     [:x, binary_ok ? 1.5 : 0.4], [:octal, binary_ok ? 1 : 0.3], [:ctrl, 0.6], [:meta, binary_ok ? 0.4 : 0],
                     [:raw_ws, 0.5], [:continuation, 0.1]])
    case kind
    when :plain then (c = pick(PLAIN)) && [c, c.b]
    when :unicode then (c = pick(UNICODE)) && [c, c.b]
    when :simple
      k = pick(SIMPLE_ESCAPES.keys)
      k == "0" ? ["\\0", "\0", "\\000"] : ["\\#{k}", SIMPLE_ESCAPES[k].chr]
    when :hash then (c = pick([*"a".."z", " ", "!", "1", "-", "}"])) && ["##{c}", "##{c}".b] # '#' not before { @ $
    when :u4
      cp = random_codepoint
      cp = 0x41 if cp > 0xffff || (0xd800..0xdfff).cover?(cp)
      ["\\u#{hex_digits(cp, 4)}", utf8(cp)]
    when :ubrace
      cps = Array.new(chance(0.8) ? 1 : rand(2..4)) { random_codepoint }.reject { |c| (0xd800..0xdfff).cover?(c) }
      cps = [0x1f600] if cps.empty?
      inner = cps.map { |c| hex_digits(c, chance(0.2) ? rand(1..6) : 1) }.join(pick([" ", " ", "  "]))
      ["\\u{#{inner}}", cps.map { |c| utf8(c) }.join.b]
    when :x
      b = binary_ok ? rand(256) : rand(128)
      short = "\\x#{b.to_s(16)}"
      full = "\\x#{hex_digits(b, 2)}"
      b < 16 && chance(0.5) ? [short, b.chr, full] : [full, b.chr]
    when :octal
      b = binary_ok ? rand(256) : rand(128)
      o = b.to_s(8)
      full = "\\#{o.rjust(3, '0')}"
      o.size < 3 && chance(0.5) ? ["\\#{o}", b.chr, full] : [full, b.chr]
    when :ctrl
      c = pick(CTRL_CHARS)
      [pick(["\\c#{c}", "\\C-#{c}"]), ctrl_value(c).chr]
    when :meta
      c = pick(CTRL_CHARS)
      case rand(3)
      when 0 then ["\\M-#{c}", (c.ord | 0x80).chr]
      when 1 then ["\\M-\\C-#{c}", (ctrl_value(c) | 0x80).chr]
      else ["\\M-\\c#{c}", (ctrl_value(c) | 0x80).chr]
      end
    when :raw_ws then (c = pick(["\t", "\n", " "])) && [c, c.b]
    else ["\\\n", "".b]
    end
  end

  def join_pieces(pieces)
    src = +""
    bytes = +"".b
    pieces.each_with_index do |(s, b, alt), i|
      nxt = pieces[i + 1]
      s = alt if alt && nxt && nxt[0].match?(/\A[0-9a-fA-F]/)
      src << s
      bytes << b
    end
    [src, bytes]
  end

  def dq_body(range, binary_ok: true)
    join_pieces(Array.new(rand(range)) { dq_piece(binary_ok: binary_ok) })
  end

  def sq_piece
    case weighted([[:plain, 12], [:unicode, 3], [:backslash, 1], [:quote, 1], [:lone, 1], [:raw_ws, 0.4], [:dq, 0.5]])
    when :plain then (c = pick(PLAIN - ["'"])) && [c, c.b]
    when :unicode then (c = pick(UNICODE)) && [c, c.b]
    when :backslash then ["\\\\", "\\"]
    when :quote then ["\\'", "'"]
    when :lone then (c = pick(%w[n t a u x 0 " #])) && ["\\#{c}", "\\#{c}"] # the backslash stays
    when :raw_ws then (c = pick(["\t", "\n"])) && [c, c.b]
    else ['"', '"'] # " and #{ are plain in single quotes
    end
  end

  def sq_body(range)
    join_pieces(Array.new(rand(range)) { sq_piece })
  end

  def string(range = 0..12)
    if chance(0.25)
      src, bytes = sq_body(range)
      ["'#{src}'", bytes.force_encoding(Encoding::UTF_8)]
    else
      src, bytes = dq_body(range)
      ["\"#{src}\"", bytes.force_encoding(Encoding::UTF_8)]
    end
  end

  # --- symbols --------------------------------------------------------------------

  OPERATORS = %w[+ - * / % ** == === != ! <=> < <= > >= << >> & | ^ ~ +@ -@ [] []= =~ !~ `].freeze
  IDENT_START = [*"a".."z", "_"].freeze
  IDENT_CHARS = [*"a".."z", *"A".."Z", *"0".."9", "_"].freeze
  UNICODE_IDENTS = %w[é café naïve 日本 ж ß Ωmega ünï].freeze

  def ident(first = IDENT_START)
    return pick(UNICODE_IDENTS) if chance(0.1)
    pick(first) + Array.new(rand(0..7)) { pick(IDENT_CHARS) }.join
  end

  def bare_symbol_name
    case weighted([[:ident, 8], [:suffix, 2], [:const, 2], [:ivar, 1], [:cvar, 0.6], [:gvar, 0.6], [:op, 1.5]])
    when :ident then ident
    when :suffix then ident + pick(%w[? ! =])
    when :const then ident([*"A".."Z"])
    when :ivar then "@#{ident}"
    when :cvar then "@@#{ident}"
    when :gvar then "$#{ident}"
    else pick(OPERATORS)
    end
  end

  # symbol content given as a quoted string: must be valid UTF-8
  def quoted_symbol
    if chance(0.3)
      src, bytes = sq_body(0..6)
      q = "'"
    else
      src, bytes = dq_body(0..6, binary_ok: false)
      q = '"'
    end
    [q + src + q, bytes.force_encoding(Encoding::UTF_8).to_sym]
  end

  def symbol
    if chance(0.7)
      name = bare_symbol_name
      [":#{name}", name.to_sym]
    else
      src, sym = quoted_symbol
      [":#{src}", sym]
    end
  end

  # --- whitespace -------------------------------------------------------------------

  # where a newline is allowed (after [ { , => label:, before ] }) and where not (before , =>)
  def ws(newline_ok)
    return "" if @compact
    case rand(12)
    when 0..5 then @spaced ? " " : ""
    when 6, 7 then " "
    when 8 then pick(["  ", "\t", " \t "])
    else newline_ok ? pick(["\n", "\n  ", " \n\t", "\r\n", "\n\n    "]) : " "
    end
  end

  # --- containers -------------------------------------------------------------------

  MAX_DEPTH = 4
  CONTAINER_PROB = [0.9, 0.55, 0.35, 0.2].freeze

  def value(depth)
    if depth < MAX_DEPTH && chance(CONTAINER_PROB[depth])
      chance(0.5) ? array(depth + 1) : hash(depth + 1)
    else
      scalar
    end
  end

  def scalar
    case weighted([[:nil, 1], [:true, 1], [:false, 1], [:int, 4], [:float, 3], [:string, 6], [:symbol, 2], [:pool, 3]])
    when :nil then ["nil", nil]
    when :true then ["true", true]
    when :false then ["false", false]
    when :int then int
    when :float then pooled_float
    when :string then string
    when :symbol then symbol
    else pooled_scalar
    end
  end

  # values that repeat within a literal (flonums and NaN/Infinity link, strings do not)
  FLOAT_POOL = %w[1.5 0.1 -0.0 0.0 1.0e+20 Float::NAN Float::INFINITY -Float::INFINITY 5.0e-324 1e300 2.5].freeze

  def pooled_float
    return float unless chance(0.4)
    text = pick(FLOAT_POOL)
    [text, ruby_eval(text)]
  end

  def pooled_scalar
    case rand(3)
    when 0 then pooled_float
    when 1 then (s = pick(KEY_STRINGS)) && ["\"#{s}\"", s.dup]
    else (i = pick([0, 1, -1, 2**30, 2**64, 123])) && [i.to_s, i]
    end
  end

  def size
    chance(0.1) ? rand(5..10) : rand(0..4)
  end

  def array(depth)
    items = Array.new(size) { value(depth) }
    [render_list("[", "]", items.map(&:first)), items.map(&:last)]
  end

  def render_list(open, close, parts)
    return open + ws(true) + close if parts.empty?
    out = open + ws(true)
    parts.each_with_index do |p, i|
      out << p
      out << ws(false) << "," << ws(true) if i < parts.size - 1
    end
    out << ws(false) << "," if chance(0.08) # trailing comma
    out << ws(true) << close
  end

  # keys repeat across the hashes of one literal; equal String keys are one frozen object
  KEY_STRINGS = ["a", "b", "id", "name", "é", "日本", "a b", "", "x-y", "1", "key", "nil", "@iv", "+", "a?", "a=", "A"].freeze

  def key_string_text(s)
    case rand(5)
    when 0 then "'#{s.gsub(/[\\']/) { |c| "\\#{c}" }}'"
    when 1 then "\"#{dq_escape(s).each_char.map { |c| c.ord > 127 ? "\\u{#{c.ord.to_s(16)}}" : c }.join}\""
    else "\"#{dq_escape(s)}\""
    end
  end

  LABEL_RE = /\A(?:[a-zA-Z_][a-zA-Z0-9_]*[?!]?|[^\x00-\x7f][^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]*)\z/.freeze

  # [key_text, key_value, is_label, parse_literal]; parse_literal: the parser sees a literal
  # key (string, symbol, number) and drops an earlier pair with an equal literal key
  def hash_key(style)
    case weighted([[:str, 5], [:sym, 4], [:int, 1], [:float, 0.6], [:lit, 0.4], [:other, 1]])
    when :str
      s = chance(0.7) ? pick(KEY_STRINGS) : string(0..6)[1].then { |x| x.valid_encoding? ? x : "k" }
      [key_string_text(s), s.dup, false, true]
    when :sym
      name = chance(0.7) ? pick(KEY_STRINGS) : (chance(0.5) ? bare_symbol_name : quoted_symbol[1].to_s)
      sym = name.to_sym
      label = name.match?(LABEL_RE) && !name.start_with?("@", "$")
      if style == :old || (style == :mixed && chance(0.3))
        bare = label || name.match?(/\A(?:[@$]|@@)?[a-zA-Z_][a-zA-Z_0-9]*[?!=]?\z/) || OPERATORS.include?(name)
        [bare ? ":#{name}" : ":\"#{dq_escape(name)}\"", sym, false, true]
      elsif label && chance(0.8)
        ["#{name}:", sym, true, true]
      else
        ["\"#{dq_escape(name)}\":", sym, true, true]
      end
    when :int then int.push(false, true)
    when :float then (f = pooled_float).push(false, !f[0].include?("Float"))
    when :lit then pick([["nil", nil], ["true", true], ["false", false]]).dup.push(false, false)
    else
      text, v = value(MAX_DEPTH - 1)
      [text, v, false, v.is_a?(String) || v.is_a?(Symbol) || v.is_a?(Integer) || (v.is_a?(Float) && !text.include?("Float"))]
    end
  end

  # What MRI 3.1 builds from a hash literal: its parser drops an earlier pair whose key is
  # an equal literal (so the last one stands, at its own place); the rest is Hash#[]= in
  # order (a key equal at run time keeps the first place: -0.0/0.0, Float::NAN twice).
  def self.literal_hash(pairs)
    ident = ->(k) { [k.class, k.is_a?(Float) ? [k].pack("G") : k.is_a?(String) ? k.b : k] }
    kept = []
    pairs.each do |key, val, literal|
      kept.reject! { |k2, _, l2| literal && l2 && ident.(k2) == ident.(key) }
      kept << [key, val, literal]
    end
    h = {}
    kept.each { |k, v, _| h[k] = v }
    h
  end

  def dq_escape(text)
    text.gsub(/[\\"#\n\t\r\x00-\x1f\x7f]/) do |c|
      case c
      when "\\" then "\\\\"
      when '"' then '\\"'
      when "#" then "\\#"
      when "\n" then "\\n"
      when "\t" then "\\t"
      when "\r" then "\\r"
      else format("\\x%02X", c.ord)
      end
    end
  end

  def hash(depth)
    style = @style == :random ? pick(%i[old new mixed]) : @style
    pairs = Array.new(size) do
      ktext, key, label, literal = hash_key(style)
      vtext, val = value(depth)
      text = if label
               sep = @compact ? "" : ws(true)
               sep = " " if sep.empty? && vtext.start_with?(":")
               "#{ktext}#{sep}#{vtext}"
             else
               before = @compact || style == :old ? "" : ws(false)
               after = @compact || style == :old ? "" : ws(true)
               before, after = " ", " " if @spaced && style != :old
               before = " " if before.empty? && ktext.match?(/[^\w"'\])}]\z/) # :a= =>, :+ =>, :a? =>
               "#{ktext}#{before}=>#{after}#{vtext}"
             end
      [text, key, val, literal]
    end
    [render_list("{", "}", pairs.map(&:first)), LiteralGen.literal_hash(pairs.map { |_, k, v, l| [k, v, l] })]
  end

  # one random literal: [source, value]
  def literal
    @style = pick(%i[old new mixed random])
    @compact = @style == :old ? chance(0.7) : chance(0.1)
    @spaced = !@compact && chance(0.6)
    src, val = value(0)
    src = pick(["", " ", "\n", "\t"]) + src + pick(["", "", " ", "\n"]) if chance(0.05)
    [src, val]
  end
end

# ---------------------------------------------------------------------------
# Hand-picked literals
# ---------------------------------------------------------------------------

# -- integers
[
  ["int_zero", "0", 0], ["int_neg_zero", "-0", 0], ["int_plus_zero", "+0", 0], ["int_one", "1", 1],
  ["int_plus_one", "+1", 1], ["int_neg_one", "-1", -1],
  ["int_122", "122", 122], ["int_123", "123", 123], ["int_neg_123", "-123", -123], ["int_neg_124", "-124", -124],
  ["int_2_30_minus_1", "1073741823", 2**30 - 1], ["int_2_30", "1073741824", 2**30],
  ["int_neg_2_30", "-1073741824", -2**30], ["int_neg_2_30_minus_1", "-1073741825", -2**30 - 1],
  ["int_2_31", "2147483648", 2**31], ["int_2_32", "4294967296", 2**32],
  ["int_2_62_minus_1", "4611686018427387903", 2**62 - 1], ["int_2_62", "4611686018427387904", 2**62],
  ["int_neg_2_62", "-4611686018427387904", -2**62], ["int_neg_2_62_minus_1", "-4611686018427387905", -2**62 - 1],
  ["int_2_63", "9223372036854775808", 2**63], ["int_neg_2_63", "-9223372036854775808", -2**63],
  ["int_2_64_minus_1", "18446744073709551615", 2**64 - 1], ["int_2_64", "18446744073709551616", 2**64],
  ["int_neg_2_64", "-18446744073709551616", -2**64], ["int_2_64_plus_1", "18446744073709551617", 2**64 + 1],
  ["int_2_100", (2**100).to_s, 2**100], ["int_neg_10_40", "-1#{'0' * 40}", -10**40],
  ["int_2_1000", (2**1000).to_s, 2**1000], ["int_neg_2_1000", "-#{2**1000}", -(2**1000)],
  ["int_huge_hex_4096_bits", "0x#{(2**4096 - 1).to_s(16)}", 2**4096 - 1],
  ["int_huge_decimal_3000_digits", "9" * 3000, 10**3000 - 1],
  ["int_underscores", "1_000_000", 1_000_000], ["int_underscores_bignum", "18_446_744_073_709_551_616", 2**64],
  ["int_hex_lower", "0xff", 255], ["int_hex_upper_digits", "0xDEADBEEF", 0xdeadbeef], ["int_hex_prefix_upper", "0XfF", 255],
  ["int_hex_underscore", "0xdead_beef", 0xdeadbeef], ["int_hex_neg", "-0x10", -16], ["int_hex_2_64", "0x1_0000_0000_0000_0000", 2**64],
  ["int_bin", "0b1010", 10], ["int_bin_prefix_upper", "0B11", 3], ["int_bin_underscore", "0b1111_0000", 240],
  ["int_bin_neg", "-0b1", -1], ["int_bin_2_62", "0b1#{'0' * 62}", 2**62],
  ["int_oct_0o", "0o17", 15], ["int_oct_prefix_upper", "0O17", 15], ["int_oct_leading_zero", "017", 15],
  ["int_oct_leading_zero_neg", "-017", -15], ["int_oct_double_zero", "00", 0], ["int_oct_underscore", "0_17", 15],
  ["int_oct_0o_underscore", "0o1_7", 15], ["int_oct_2_64", "0#{(2**64).to_s(8)}", 2**64],
  ["int_dec_0d", "0d19", 19], ["int_dec_prefix_upper", "0D19", 19], ["int_dec_0d_neg", "-0d19", -19],
  ["int_dec_0d_underscore", "0d1_9", 19], ["int_leading_zeros_hex", "0x0000ff", 255], ["int_zero_hex", "0x0", 0],
  ["int_zero_bin", "0b0", 0], ["int_zero_oct", "0o0", 0], ["int_zero_0d", "0d0", 0]
].each { |name, src, v| lit(name, src, v) }

# -- floats
[
  ["float_1_5", "1.5", 1.5], ["float_neg_2_5e_3", "-2.5e-3", -2.5e-3], ["float_1e5", "1e5", 1e5],
  ["float_1e5_upper", "1E5", 1e5], ["float_1e_plus_5", "1e+5", 1e5], ["float_1_0e_plus_20", "1.0e+20", 1e20],
  ["float_underscore", "1_000.5", 1000.5], ["float_underscore_fraction", "0.000_1", 0.0001],
  ["float_underscore_exponent", "1e1_0", 1e10], ["float_plus", "+1.5", 1.5],
  ["float_zero", "0.0", 0.0], ["float_neg_zero", "-0.0", -0.0], ["float_zero_exp", "0e0", 0.0], ["float_neg_zero_exp", "-0e5", -0.0],
  ["float_0_1", "0.1", 0.1], ["float_1_0", "1.0", 1.0], ["float_100_0", "100.0", 100.0],
  ["float_1e15", "1e15", 1e15], ["float_1e16", "1e16", 1e16], ["float_1e22", "1e22", 1e22], ["float_1e23", "1e23", 1e23],
  ["float_1e_minus_4", "0.0001", 1e-4], ["float_1e_minus_5", "1e-05", 1e-5],
  ["float_denormal_1e_320", "1e-320", 1e-320], ["float_denormal_min", "5e-324", 5e-324],
  ["float_denormal_min_long", "4.9406564584124654e-324", 5e-324],
  ["float_below_min_rounds_up", "3e-324", 5e-324], ["float_underflow_to_zero", "1e-400", 0.0],
  ["float_normal_min", "2.2250738585072014e-308", 2.2250738585072014e-308],
  ["float_max", "1.7976931348623157e308", Float::MAX], ["float_neg_max", "-1.7976931348623157e+308", -Float::MAX],
  ["float_overflow_1e400", "1e400", Float::INFINITY], ["float_overflow_neg", "-1e400", -Float::INFINITY],
  ["float_2_53_plus_1", "9007199254740993.0", 9007199254740992.0],
  ["float_many_digits_0_1", "0.1000000000000000055511151231257827021181583404541015625", 0.1],
  ["float_halfway_round_even", "9007199254740993.0000000000000000000001", 9007199254740994.0],
  ["float_long_integer_part", "123456789012345678901234567890.0", 1.2345678901234568e29],
  ["float_0_30000000000000004", "0.30000000000000004", 0.30000000000000004],
  ["float_flonum_2_255", (2.0**255).to_s, 2.0**255], ["float_flonum_2_256", (2.0**256).to_s, 2.0**256],
  ["float_flonum_2_m255", (2.0**-255).to_s, 2.0**-255], ["float_flonum_2_m256", (2.0**-256).to_s, 2.0**-256],
  ["float_infinity", "Float::INFINITY", Float::INFINITY], ["float_neg_infinity", "-Float::INFINITY", -Float::INFINITY],
  ["float_nan", "Float::NAN", Float::NAN]
].each { |name, src, v| lit(name, src, v) }

# repeated floats: flonums and the two constants link, other Floats are one object per literal
lit "link_floats_flonum", "[1.5, 1.5, 0.1, 1.5, 0.0, 0.0, 2.5, 1.0e+20, 1e20]"
lit "link_floats_neg_zero", "[-0.0, -0.0, 0.0, -0.0]"
lit "link_floats_denormal", "[5e-324, 5e-324, 1e-320, 1e-320]"
lit "link_floats_big", "[1e300, 1e300, 1.0e+300, -1e300]"
lit "link_floats_flonum_boundary", "[#{[2.0**255, 2.0**256, 2.0**-255, 2.0**-256].flat_map { |f| [f.to_s, f.to_s] }.join(', ')}]"
lit "link_floats_nan", "[Float::NAN, Float::NAN, [Float::NAN], {Float::NAN => Float::NAN}]"
lit "link_floats_infinity", "[Float::INFINITY, Float::INFINITY, {a: Float::INFINITY}]"
lit "link_floats_neg_infinity", "[-Float::INFINITY, -Float::INFINITY, Float::INFINITY, -Float::INFINITY]"
lit "link_floats_mixed_keys", "{1.5 => 1.5, 0.1 => [0.1, 0.1], -0.0 => -0.0, Float::NAN => 1, Float::INFINITY => Float::INFINITY}"
lit "link_ints_big", "[18446744073709551616, 18446744073709551616, 1073741824, 1073741824, 4611686018427387904, 4611686018427387904]"
lit "link_ints_small", "[1, 1, -1, -1, 1073741823, 1073741823]"

# -- strings: every escape
esc = [
  ["n", "\n"], ["t", "\t"], ["r", "\r"], ["s", " "], ["0", "\0"], ["a", "\a"], ["b", "\b"], ["e", "\e"],
  ["f", "\f"], ["v", "\v"], ["backslash", "\\"], ["quote", "\""], ["hash", "#"]
]
esc_src = { "backslash" => "\\\\", "quote" => "\\\"", "hash" => "\\#" }
esc.each do |name, val|
  lit "str_escape_#{name}", "\"<#{esc_src[name] || "\\#{name}"}>\"", "<#{val}>"
end
lit "str_escape_all_simple", "\"\\n\\t\\r\\s\\0\\a\\b\\e\\f\\v\\\\\\\"\\#\"", "\n\t\r \0\a\b\e\f\v\\\"#"
[
  ["str_u4_lower", "\"\\u00e9\"", "é"], ["str_u4_upper", "\"\\u00E9\"", "é"], ["str_u4_cjk", "\"\\u65e5\\u672C\"", "日本"],
  ["str_u4_nul", "\"\\u0000\"", "\0"], ["str_u4_ffff", "\"\\uffff\"", "\uffff"], ["str_u4_then_digits", "\"\\u00411\"", "A1"],
  ["str_ubrace_emoji", "\"\\u{1F600}\"", "😀"], ["str_ubrace_two", "\"\\u{41 42}\"", "AB"],
  ["str_ubrace_many", "\"\\u{48 65 6c 6C 6f 20 1f30d}\"", "Hello 🌍"], ["str_ubrace_one_digit", "\"\\u{9}\"", "\t"],
  ["str_ubrace_leading_zeros", "\"\\u{0000e9}\"", "é"], ["str_ubrace_max", "\"\\u{10FFFF}\"", "\u{10ffff}"],
  ["str_ubrace_spaces_inside", "\"\\u{ 41  42 }\"", "AB"], ["str_ubrace_empty", "\"\\u{}\"", ""],
  ["str_x_one_digit", "\"\\x4\"", "\x04"], ["str_x_two_digits", "\"\\x41\"", "A"], ["str_x_upper", "\"\\xFF\"", "\xFF".dup.force_encoding("UTF-8")],
  ["str_x_then_hexdigit", "\"\\x411\"", "A1"], ["str_x_invalid_utf8", "\"\\xff\\xfe\"", "\xFF\xFE".dup.force_encoding("UTF-8")],
  ["str_x_valid_utf8_bytes", "\"\\xc3\\xa9\"", "é"], ["str_x_and_u_mixed", "\"\\u00e9\\xff\\u{1F600}\\xe9\"", "é\xFF😀\xE9".dup.force_encoding("UTF-8")],
  ["str_octal_one", "\"\\7\"", "\a"], ["str_octal_two", "\"\\12\"", "\n"], ["str_octal_three", "\"\\101\"", "A"],
  ["str_octal_377", "\"\\377\"", "\xFF".dup.force_encoding("UTF-8")], ["str_octal_400_wraps", "\"\\400\"", "\0"],
  ["str_octal_777_wraps", "\"\\777\"", "\xFF".dup.force_encoding("UTF-8")],
  ["str_octal_then_digit", "\"\\0000\"", "\0" + "0"], ["str_octal_then_8", "\"\\18\"", "\x018"],
  ["str_ctrl_c", "\"\\ca\"", "\x01"], ["str_ctrl_c_dash", "\"\\C-a\"", "\x01"], ["str_ctrl_upper", "\"\\cA\"", "\x01"],
  ["str_ctrl_question", "\"\\c?\"", "\x7f"], ["str_ctrl_c_dash_question", "\"\\C-?\"", "\x7f"], ["str_ctrl_at", "\"\\c@\"", "\0"],
  ["str_ctrl_space", "\"\\c \"", "\0"],
  ["str_meta", "\"\\M-a\"", "\xE1".dup.force_encoding("UTF-8")], ["str_meta_ctrl", "\"\\M-\\C-a\"", "\x81".dup.force_encoding("UTF-8")],
  ["str_meta_c", "\"\\M-\\ca\"", "\x81".dup.force_encoding("UTF-8")], ["str_ctrl_meta", "\"\\C-\\M-a\"", "\x81".dup.force_encoding("UTF-8")],
  ["str_c_meta", "\"\\c\\M-a\"", "\x81".dup.force_encoding("UTF-8")], ["str_meta_ctrl_question", "\"\\M-\\C-?\"", "\xFF".dup.force_encoding("UTF-8")],
  ["str_line_continuation", "\"line\\\ncont\"", "linecont"],
  ["str_raw_newline", "\"a\nb\"", "a\nb"], ["str_raw_tab", "\"a\tb\"", "a\tb"], ["str_raw_crlf", "\"a\r\nb\"", "a\nb"],
  ["str_raw_cr", "\"a\rb\"", "a\rb"], ["str_raw_control", "\"a\x01\x1f\x7fb\"", "a\x01\x1f\x7fb"],
  ["str_hash_plain", "\"#x # #1 a#\"", "#x # #1 a#"], ["str_hash_brace_escaped", "\"\\\#{x} \\\#@x \\\#$x\"", "\#{x} \#@x \#$x"],
  ["str_hash_at_alone", "\"#@\"", "#@"], ["str_hash_at_digit", "\"#@1\"", "#@1"], ["str_hash_at_at_digit", "\"#@@1\"", "#@@1"],
  ["str_hash_dollar_space", "\"#$ x\"", "#$ x"], ["str_hash_close_brace", "\"#}\"", "#}"],
  ["str_empty_dq", "\"\"", ""], ["str_empty_sq", "''", ""],
  ["str_unicode_raw", "\"é日本🎉👍🏽\"", "é日本🎉👍🏽"], ["str_unicode_combining", "\"e\u0301\"", "e\u0301"],
  ["str_unicode_separators", "\"\u2028\u2029\u0085\u00a0\u200b\ufeff\u00ad\"", "\u2028\u2029\u0085\u00a0\u200b\ufeff\u00ad"],
  ["str_unicode_astral_raw", "\"𝄞\u{e0001}\u{10ffff}\"", "𝄞\u{e0001}\u{10ffff}"],
  ["str_sq_plain", "'abc'", "abc"], ["str_sq_backslash", "'a\\\\b'", "a\\b"], ["str_sq_quote", "'it\\'s'", "it's"],
  ["str_sq_other_backslash", "'\\n\\t\\u00e9\\x41\\0'", "\\n\\t\\u00e9\\x41\\0"], ["str_sq_dq_and_hash", "'\"\#{x}\"'", "\"\#{x}\""],
  ["str_sq_backslash_end", "'a\\\\'", "a\\"], ["str_sq_raw_newline", "'a\nb'", "a\nb"], ["str_sq_unicode", "'日本é'", "日本é"],
  ["str_long", "\"#{'abcdefghij' * 100}\"", "abcdefghij" * 100], ["str_long_utf8", "\"#{'日本語🎉' * 80}\"", "日本語🎉" * 80],
  ["str_unlisted_escape_q", "\"\\q\\z\\y\"", "qzy"], ["str_unlisted_escape_sq_in_dq", "\"\\'\"", "'"]
].each { |name, src, v| lit(name, src, v.dup.force_encoding("UTF-8")) }
lit "str_values_separate", "[\"s\", \"s\", \"s\"]"
lit "str_key_and_values", "{\"s\" => \"s\", :k => \"s\", \"t\" => [\"s\", \"s\"]}"

# -- symbols
%w[name name? name! name= @ivar @@cvar $global Const CONST _ _x a1 if nil self true class end __FILE__ é 日本 café?
   + - * / % ** == === != ! <=> < <= > >= << >> & | ^ ~ +@ -@ [] []= =~ !~ `].each_with_index do |s, i|
  lit "sym_bare_#{format('%02d', i + 1)}", ":#{s}", s.to_sym
end
[
  ["sym_dq_space", ":\"with space\"", :"with space"], ["sym_sq", ":'x'", :x], ["sym_sq_space", ":'x y'", :"x y"],
  ["sym_sq_quote", ":'it\\'s'", :"it's"], ["sym_dq_empty", ":\"\"", :""], ["sym_sq_empty", ":''", :""],
  ["sym_dq_escapes", ":\"a\\nb\\u00e9\\x41\"", :"a\nbéA"], ["sym_dq_nul", ":\"a\\0b\"", :"a\0b"],
  ["sym_dq_plain_ascii", ":\"abc\"", :abc], ["sym_dq_unicode", ":\"\\u{1F600}\"", :"😀"], ["sym_dq_operator", ":\"+\"", :+],
  ["sym_dq_digit_start", ":\"9lives\"", :"9lives"], ["sym_dq_eq_in_middle", ":\"a=b\"", :"a=b"],
  ["sym_dq_hash", ':"#\#{x}"', :"#\#{x}"], ["sym_repeated", "[:a, :a, :b, :a, :é, :é, :\"a\"]", nil]
].each { |name, src, v| v.nil? ? lit(name, src) : lit(name, src, v) }

# -- arrays
lit "arr_empty", "[]", []
lit "arr_empty_space", "[ ]", []
lit "arr_empty_newline", "[\n]", []
lit "arr_trailing_comma", "[1, 2,]", [1, 2]
lit "arr_trailing_comma_newline", "[\n  1,\n  2,\n]", [1, 2]
lit "arr_one_trailing_comma", "[1,]", [1]
lit "arr_nested_empty", "[[], [[]], [[], []]]", [[], [[]], [[], []]]
lit "arr_deep_40", "#{'[' * 40}1#{']' * 40}"
lit "arr_300", "[#{(1..300).to_a.join(', ')}]", (1..300).to_a
lit "arr_all_scalars", "[nil, true, false, 0, -1, 2**64, 1.5, \"s\", 's', :s]".sub("2**64", (2**64).to_s)

# -- hashes: both styles
lit "hash_empty", "{}", {}
lit "hash_empty_space", "{ }", {}
lit "hash_empty_newline", "{\n}", {}
lit "hash_old_style", "{\"a\"=>1, :b=>2}", { "a" => 1, b: 2 }
lit "hash_new_style", "{\"a\" => 1, b: 2, \"c d\": 3}", { "a" => 1, b: 2, "c d": 3 }
lit "hash_label_compact", "{a:1,b:\"x\",c:[1],d:nil}", { a: 1, b: "x", c: [1], d: nil }
lit "hash_label_dq_compact", "{\"a\":1,\"b c\":2}", { a: 1, "b c": 2 }
lit "hash_label_suffixes", "{a?: 1, b!: 2, A: 3, _x: 4, é: 5, 日本: 6, if: 7, nil: 8, self: 9, true: 10, __FILE__: 11}",
    { a?: 1, b!: 2, A: 3, _x: 4, é: 5, 日本: 6, if: 7, nil: 8, self: 9, true: 10, __FILE__: 11 }
lit "hash_label_dq_needs_quotes", "{\"+\": 1, \"@iv\": 2, \"a=\": 3, \"\": 4, \"[]\": 5, \"$g\": 6, \"9a\": 7, \"a\\nb\": 8}",
    { "+": 1, "@iv": 2, "a=": 3, "": 4, "[]": 5, "$g": 6, "9a": 7, "a\nb": 8 }
lit "hash_label_sq", "{'a': 1, 'b c': 2}", { a: 1, "b c": 2 }
lit "hash_label_then_symbol", "{a: :b, \"c\": :d}", { a: :b, c: :d }
lit "hash_label_newline_value", "{a:\n1, \"b\":\n  2}", { a: 1, b: 2 }
lit "hash_arrow_newline_value", "{\"a\" =>\n1}", { "a" => 1 }
lit "hash_op_symbol_keys", "{:+ => 1, :[]= => 2, :a= => 3, :! => 4, :a? => 5}", { :+ => 1, :[]= => 2, :a= => 3, :! => 4, :a? => 5 }
lit "hash_trailing_comma", "{\"a\" => 1,}", { "a" => 1 }
lit "hash_trailing_comma_label", "{a: 1,\n}", { a: 1 }
lit "hash_key_kinds", "{nil => 0, true => 1, false => 2, 1 => 3, 1.0 => 4, 18446744073709551616 => 5, [1, 2] => 6, {\"k\" => 1} => 7, :s => 8, \"s\" => 9}"
# duplicate literal keys: MRI's parser drops the earlier pair, so the last one stands at its own place
lit "hash_sym_and_str_keys", "{\"a\" => 1, a: 2, :\"a\" => 3, \"a\": 4, 'a' => 5}", { a: 4, "a" => 5 }
lit "hash_duplicate_keys_last_wins", "{\"a\" => 1, \"b\" => 2, \"a\" => 3}", { "b" => 2, "a" => 3 }
lit "hash_duplicate_int_float_keys", "{1 => :int, 1.0 => :float, 1 => :int2}", { 1.0 => :float, 1 => :int2 }
lit "hash_duplicate_escaped_string_keys", "{\"é\" => 1, \"x\" => 2, \"\\u00e9\" => 3}", { "x" => 2, "é" => 3 }
lit "hash_duplicate_float_literal_keys", "{1e20 => 1, 2 => 2, 1.0e+20 => 3}", { 2 => 2, 1e20 => 3 }
lit "hash_duplicate_nil_keys_runtime", "{nil => 1, 2 => 2, nil => 3}", { nil => 3, 2 => 2 }
lit "hash_duplicate_array_keys_runtime", "{[1] => 1, 2 => 2, [1] => 3}", { [1] => 3, 2 => 2 }
lit "hash_neg_zero_key_merges", "{-0.0 => 1, 0.0 => 2}"
lit "hash_nan_key_same_object", "{Float::NAN => 1, Float::NAN => 2}"
lit "hash_neg_infinity_keys", "{-Float::INFINITY => 1, -Float::INFINITY => 2}"
lit "hash_bignum_keys_merge", "{18446744073709551616 => 1, 0x10000000000000000 => 2}"

# equal String keys are one frozen object: across nested hashes they link, values do not
lit "link_keys_nested", "{\"a\" => {\"a\" => {\"a\" => \"a\"}}, \"b\" => [{\"a\" => 1, \"b\" => 2}, {\"b\" => \"b\"}]}"
lit "link_keys_escaped_same", "[{\"é\" => 1}, {\"\\u00e9\" => 2}, {'é' => 3}, {\"\\xc3\\xa9\" => 4}, {\"\\u{e9}\" => 5}]"
lit "link_keys_invalid_bytes", "[{\"\\xff\" => 1}, {\"\\xff\" => 2}, \"\\xff\"]"
lit "link_keys_empty", "[{\"\" => 1}, {\"\" => {\"\" => \"\"}}]"
lit "link_keys_after_values", "[\"k\", \"k\", {\"k\" => \"k\"}, {\"k\" => [\"k\"]}, \"k\"]"
lit "link_keys_with_symbols", "[{\"a\" => 1, a: 2}, {a: 3, \"a\" => 4}, {\"a\": 5}, [:a, \"a\"]]"
lit "link_keys_array_key_strings", "{[\"x\"] => {\"x\" => 1}, \"x\" => [\"x\"]}"
lit "link_keys_hash_key_inner", "{{\"x\" => 1} => 1, {\"x\" => 2} => 2, \"x\" => 3}"
lit "link_mixed_everything", "{\"k\" => [1.5, :k, \"k\", {k: 1.5, \"k\" => Float::NAN}], k: [Float::NAN, 1.5, -0.0, -0.0, \"k\"]}"

# whitespace between tokens
lit "ws_leading_trailing", "  \n\t[1]\n  ", [1]
lit "ws_newlines_everywhere_allowed", "[\n\n1,\n\n{\n\"a\"\t=>\n\n2,\nb:\n3\n}\n,\n4\n]".sub("}\n,", "},"), [1, { "a" => 2, b: 3 }, 4]
lit "ws_tabs", "[\t1\t,\t2\t]", [1, 2]
lit "ws_crlf", "[\r\n1,\r\n2\r\n]", [1, 2]
lit "ws_none", "[1,[2,{\"a\"=>[:b,{c:3}]}]]", [1, [2, { "a" => [:b, { c: 3 }] }]]
lit "ws_space_before_comma", "[1 , 2 ,3]", [1, 2, 3]
lit "ws_space_before_arrow", "{\"a\"   =>   1}", { "a" => 1 }

# scalars at the top level
lit "top_nil", "nil", nil
lit "top_true", "true", true
lit "top_false", "false", false

# ---------------------------------------------------------------------------
# Random literals
# ---------------------------------------------------------------------------

gen = LiteralGen.new(20_250_101)
check = lambda do |name, (src, val)|
  lit(name, src, val)
end
80.times { |i| check.("rnd_int_#{format('%03d', i + 1)}", gen.int) }
80.times { |i| check.("rnd_float_#{format('%03d', i + 1)}", gen.float) }
80.times { |i| check.("rnd_str_#{format('%03d', i + 1)}", gen.string(0..20)) }
50.times { |i| check.("rnd_sym_#{format('%03d', i + 1)}", gen.symbol) }
RANDOM_NESTED = 880
RANDOM_NESTED.times { |i| check.("rnd_#{format('%04d', i + 1)}", gen.literal) }

# ---------------------------------------------------------------------------
# Bad literals
# ---------------------------------------------------------------------------

BAD = {}

def bad(name, src)
  fail!("duplicate bad row #{name}") if BAD.key?(name)
  src = src.dup.force_encoding(Encoding::UTF_8)
  compiles = begin
    RubyVM::InstructionSequence.compile(src)
    true
  rescue SyntaxError, EncodingError
    false
  end
  outcome = if !compiles then "syntax"
            else
              begin
                ruby_eval(src)
                "eval"
              rescue StandardError, ScriptError
                "error"
              end
            end
  fail!("bad literal #{name} #{src.inspect}: Ruby's outcome is #{outcome}") unless name.start_with?("#{outcome}_")
  BAD[name] = src
end

[
  # interpolation and string forms outside the grammar
  ["eval_interp_brace", "\"\#{1}\""], ["eval_interp_ivar", "\"\#@x\""], ["eval_interp_gvar", "\"\#$x\""],
  ["eval_interp_nth_ref", "\"\#$1\""], ["eval_interp_gvar_dash", "\"\#$-w\""], ["eval_interp_empty", "\"\#{}\""],
  ["error_interp_cvar", "\"\#@@x\""], ["eval_interp_symbol", ":\"a\#{1}\""], ["eval_interp_in_key", "{\"\#{1}\" => 1}"],
  ["eval_interp_in_label", "{\"\#{1}\": 1}"],
  ["eval_heredoc", "<<~EOS\n  text\nEOS\n"], ["eval_heredoc_dash", "<<-EOS\ntext\n  EOS\n"], ["eval_heredoc_plain", "[<<EOS]\ntext\nEOS\n"],
  ["eval_percent_w", "%w[a b]"], ["eval_percent_W", "%W[a b]"], ["eval_percent_i", "%i[a b]"], ["eval_percent_q", "%q(x)"],
  ["eval_percent_Q", "%Q(x)"], ["eval_percent_paren", "%(x)"], ["eval_percent_s", "%s(x)"], ["eval_char_literal", "?a"],
  ["eval_char_literal_escape", "?\\n"], ["eval_adjacent_strings", "\"a\" \"b\""], ["eval_adjacent_strings_mixed", "\"a\" 'b'"],
  ["eval_adjacent_strings_continued", "\"a\" \\\n\"b\""], ["eval_adjacent_strings_in_key", "{\"a\" \"b\" => 1}"],
  ["eval_regexp", "/ab+c/i"], ["eval_regexp_percent", "%r{a}"],
  # numbers outside the grammar
  ["eval_power", "2**70"], ["eval_power_neg", "-2**2"], ["eval_arith", "1+2"], ["eval_arith_float", "1.0/0"],
  ["eval_nan_division", "0.0/0.0"], ["eval_rational", "1r"], ["eval_rational_float", "1.5r"], ["eval_imaginary", "2i"],
  ["eval_rational_imaginary", "1ri"], ["eval_unary_minus_space", "- 1"], ["eval_unary_plus_space", "+ 1"],
  ["eval_unary_minus_paren", "-(1)"], ["eval_neg_float_space", "- 1.5"], ["eval_trailing_e", "1e"], ["eval_trailing_dot", "5."],
  ["eval_neg_nan", "-Float::NAN"], ["eval_plus_infinity", "+Float::INFINITY"], ["eval_infinity_space_minus", "- Float::INFINITY"],
  ["eval_toplevel_float", "::Float::INFINITY"], ["eval_float_max", "Float::MAX"], ["eval_float_epsilon", "Float::EPSILON"],
  ["eval_float_dig", "Float::DIG"], ["eval_float_min", "Float::MIN"], ["eval_math_pi", "Math::PI"], ["eval_float_class", "Float"],
  ["eval_object_const", "Object"], ["eval_encoding", "__ENCODING__"], ["eval_line", "__LINE__"], ["eval_file", "__FILE__"],
  ["error_nan_bare", "NaN"], ["error_infinity_bare", "Infinity"], ["error_neg_infinity_bare", "-Infinity"],
  ["error_float_infinity_spaced", "Float :: INFINITY"], ["error_float_infinity_lower", "Float::Infinity"],
  ["error_float_dot_exponent", "1.e3"], ["eval_float_method", "1.5.floor"], ["error_infinity_to_i", "Float::INFINITY.to_i"],
  # calls, variables, expressions
  ["eval_method_call", "[1].first"], ["eval_method_call_str", "\"a\".upcase"], ["eval_kernel_call", "Integer(\"5\")"],
  ["eval_nil_call", "nil.to_a"], ["eval_not", "!true"], ["eval_not_keyword", "not true"], ["eval_and", "true && false"],
  ["eval_or", "nil || 1"], ["eval_ternary", "true ? 1 : 2"], ["eval_modifier_if", "1 if true"], ["eval_parens", "(1)"],
  ["eval_parens_in_array", "[(1)]"], ["eval_begin", "begin 1 end"], ["eval_two_statements", "1; 2"], ["eval_comment", "1 # comment"],
  ["eval_comment_line", "# c\n[1]"], ["eval_embedded_doc", "=begin\nx\n=end\n1"], ["eval_end_marker", "1\n__END__\njunk"],
  ["eval_assignment", "x = 1"], ["eval_assignment_in_array", "[x = 1]"], ["eval_ivar", "@x"], ["eval_gvar", "$x"],
  ["eval_gvar_special", "$0"], ["error_cvar", "@@x"], ["error_local_or_method", "x"], ["error_constant", "FOO"],
  ["error_constant_path", "Foo::Bar"], ["eval_self", "self"], ["eval_lambda", "->{ 1 }"], ["eval_proc", "proc { 1 }"],
  ["eval_range", "1..2"], ["eval_range_exclusive", "1...2"], ["eval_range_endless", "(1..)"], ["eval_range_beginless", "(..1)"],
  ["eval_range_strings", "'a'..'b'"], ["eval_range_in_array", "[1..2]"], ["eval_splat", "[*[1, 2]]"], ["eval_splat_range", "[*1..3]"],
  ["eval_double_splat", "{**{a: 1}}"], ["error_value_omission", "{a:}"], ["eval_array_times", "[1] * 2"], ["eval_hash_method", "{a: 1}.to_a"],
  ["eval_index", "[1, 2][0]"], ["eval_struct", "Struct.new(:a).new(1)"], ["eval_class_new", "Class.new"], ["eval_time", "Time.at(0)"],
  ["eval_defined", "defined?(x)"], ["eval_hash_brace_block_ambiguity", "[1].map { 2 }"], ["eval_safe_nav", "nil&.foo"],
  ["eval_symbol_to_proc", "[:a].map(&:to_s)"], ["eval_frozen_string", "\"a\".freeze"], ["eval_dup", "\"a\".dup"],
  # syntax errors
  ["syntax_unterminated_string", "\"abc"], ["syntax_unterminated_sq", "'abc"], ["syntax_unclosed_array", "[1, 2"],
  ["syntax_unclosed_hash", "{\"a\" => 1"], ["syntax_missing_value", "{\"a\" => }"], ["syntax_missing_arrow", "{\"a\" 1}"],
  ["syntax_missing_comma", "[1 2]"], ["syntax_double_comma", "[1,,2]"], ["syntax_lone_comma", "[,]"], ["syntax_hash_lone_comma", "{,}"],
  ["syntax_leading_comma", "[,1]"], ["syntax_two_trailing_commas", "[1,,]"], ["syntax_newline_before_comma", "[1\n,2]"],
  ["syntax_newline_before_arrow", "{\"a\"\n=> 1}"], ["syntax_newline_before_close_then_comma", "[\n1\n,\n2\n]"],
  ["syntax_label_space", "{a : 1}"], ["syntax_label_space_symbol", "{a :1}"], ["syntax_label_operator", "{+: 1}"],
  ["syntax_label_setter", "{a=: 1}"], ["syntax_ivar_symbol_digit", ":@1"], ["syntax_leading_dot_float", ".5"],
  ["syntax_trailing_underscore", "1_"], ["syntax_double_underscore", "1__2"], ["syntax_prefix_underscore", "0x_1"],
  ["syntax_bad_octal", "08"], ["syntax_bad_octal_9", "0o9"], ["syntax_empty_0o", "0o"], ["syntax_empty_hex", "0x"],
  ["syntax_bad_binary", "0b2"], ["syntax_bad_hex_digit", "0xg"], ["syntax_float_two_dots", "1.2.3"],
  ["syntax_exponent_no_digits", "1e+"], ["syntax_bad_x_escape", "\"\\x\""], ["syntax_bad_x_escape_g", "\"\\xg\""],
  ["syntax_short_u_escape", "\"\\u12\""], ["syntax_surrogate_u_escape", "\"\\uD800\""], ["syntax_surrogate_ubrace", "\"\\u{DFFF}\""],
  ["syntax_u_escape_too_large", "\"\\u{110000}\""], ["syntax_ubrace_unclosed", "\"\\u{41\""], ["syntax_ubrace_7_digits", "\"\\u{0000041}\""],
  ["syntax_invalid_symbol_bytes", ":\"\\xff\""], ["syntax_gvar_hash_end", "\"\#$\""], ["eval_empty_input", ""],
  ["eval_only_space", "  \n "], ["syntax_two_values", "1 2"], ["syntax_unbalanced_close", "[1]]"], ["syntax_hash_arrow_label_mix", "{a: => 1}"],
  ["syntax_meta_unfinished", "\"\\M-\""], ["syntax_ctrl_unfinished", "\"\\c\""], ["syntax_sym_empty_bare", ":"],
  ["syntax_sym_space", ": a"], ["syntax_ruby_1_8_hash", "{1, 2}"]
].each { |name, src| bad(name, src) }

# ---------------------------------------------------------------------------
# Write
# ---------------------------------------------------------------------------

def write_file(name, lines)
  File.binwrite(File.join(OUT_DIR, name), lines.join)
end

write_file("literals.tsv", LITERALS.map { |name, (src, stream)| "#{name}\t#{tsv_escape(src)}\t#{stream.unpack1('H*')}\n" })
write_file("bad_literals.tsv", BAD.map { |name, src| "#{name}\t#{tsv_escape(src)}\n" })

groups = ->(names) { names.group_by { |n| n[/\A[a-z]+/] }.map { |g, l| "#{g}_*=#{l.size}" }.join(" ") }
puts "literals.tsv:     #{LITERALS.size} rows (#{groups.(LITERALS.keys)})"
puts "bad_literals.tsv: #{BAD.size} rows (#{groups.(BAD.keys)})"
