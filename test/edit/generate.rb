#!/usr/bin/env ruby
# frozen_string_literal: false
# Expected bytes for changing values in SQL (rbmarshal_set, rbmarshal_insert,
# -, #-, ||, rbmarshal_rename_class, rbmarshal_classes), from Ruby (MRI 3.1)
# itself: each case makes the same change in Ruby to x = Marshal.load(v) and
# writes Marshal.dump(x).
#
#   ruby test/edit/generate.rb [OUTDIR]
#
# Writes edits.tsv: name<TAB>sql<TAB>expected, where sql is an SQL expression
# giving text (the result's hex, or the class names joined by commas) and
# expected is Ruby's answer.  Values are random (seeded): every type the
# jsonb view covers, HashWithIndifferentAccess, objects, Structs, shared
# references and cycles; edits are random too, at random paths.
require "active_support"
require "active_support/core_ext/hash/indifferent_access"
require "bigdecimal"
require "date"
require_relative "../seeded_random"

OUT_DIR = File.expand_path(ARGV[0] || __dir__)
R = SeededRandom.new(18)

# --- the classes values are made of -------------------------------------

Point = Struct.new(:x, :y)
class Account
  def initialize(name = nil, balance = nil)
    @name = name
    @balance = balance
  end
end
module Tagged; end
class Label < String; end
class Bag < Array; end
class Options < Hash; end

# Two namespaces with the same constants, for renames: Old* and New* build
# the same graph, each naming its own classes.  OldBar and OldX stand next
# to them and are never renamed (a name with Old as a prefix, a sibling).
%w[Old New].each do |ns|
  mod = Module.new
  Object.const_set(ns, mod)
  Object.const_set("#{ns}Bar", Class.new { def initialize(v = nil) = @v = v })
  mod.const_set(:Item, Class.new { def initialize(v = nil) = @v = v })
  mod.const_set(:Line, Struct.new(:qty, :note))
  mod.const_set(:Text, Class.new(String))
  mod.const_set(:List, Class.new(Array))
  mod.const_set(:Map, Class.new(Hash))
  mod.const_set(:Mark, Module.new)
  mod.const_set(:Money, Class.new do
    attr_reader :cents
    def initialize(c = 0) = @cents = c
    def _dump(_) = @cents.to_s
    def self._load(s) = new(s.to_i)
  end)
  mod.const_set(:Span, Class.new do
    def initialize(a = 0) = @a = a
    def marshal_dump = [@a]
    def marshal_load(d) = @a = d[0]
  end)
  mod::Item.const_set(:Inner, Class.new { def initialize(v = nil) = @v = v })
end
module OldX; end

# --- random values -------------------------------------------------------

KEYS = %w[a b c id name user roles flash token x y zz café].freeze

def random_text
  R.pick(KEYS) + (R.chance(0.3) ? R.rand(100).to_s : "")
end

def random_scalar
  case R.rand(14)
  when 0 then nil
  when 1 then R.chance(0.5)
  when 2 then R.rand(-1000..1000)
  when 3 then R.pick([2**30, -(2**31), 2**64 + 7])
  when 4 then R.pick([1.5, 0.1, -2.0, 1e20])
  when 5 then random_text
  when 6 then random_text.to_sym
  when 7 then random_text.b
  when 8 then random_text.delete("é").encode("US-ASCII")
  when 9 then Time.at(1_700_000_000 + R.rand(10**6), R.rand(10**6), in: "UTC")
  when 10 then BigDecimal("#{R.rand(1000)}.#{R.rand(100)}")
  when 11 then Date.jd(2_460_000 + R.rand(1000))
  when 12 then Label.new(random_text)
  else R.rand(1..5)..R.rand(6..9)
  end
end

# a Hash whose keys differ by text (paths find one entry per text)
def random_hash(depth, pool, kind = nil)
  kind ||= R.pick(%i[sym str mixed hwia options default])
  h = case kind
      when :hwia then ActiveSupport::HashWithIndifferentAccess.new
      when :options then Options.new
      when :default then Hash.new(R.pick([0, "none", nil]))
      else {}
      end
  used = {}
  R.rand(0..4).times do
    t = random_text
    next if used[t]

    used[t] = true
    key = case kind
          when :sym then t.to_sym
          when :mixed then R.pick([t, t.to_sym, t.length])
          else t
          end
    key = t if kind == :mixed && key.is_a?(Integer) && used[key.to_s]
    # HashWithIndifferentAccess converts what it stores: no cycles, no sharing
    h[key] = kind == :hwia ? acyclic { random_value(depth + 1, []) } : random_value(depth + 1, pool)
  end
  h
end

def acyclic
  saved = $acyclic
  $acyclic = true
  yield
ensure
  $acyclic = saved
end

def random_container(depth, pool)
  case R.rand(6)
  when 0, 1 then Array.new(R.rand(0..4)) { random_value(depth + 1, pool) }
  when 2 then random_hash(depth, pool)
  when 3 then random_hash(depth, pool, :sym)
  when 4 then Account.new(random_value(depth + 1, pool), random_value(depth + 1, pool))
  else Point.new(random_value(depth + 1, pool), random_value(depth + 1, pool))
  end
end

# pool: containers made so far, to refer to again (shared references)
def random_value(depth, pool)
  return random_scalar if depth > 3 || R.chance(0.35)
  return R.pick(pool) if !pool.empty? && R.chance(0.12) && !$acyclic

  c = random_container(depth, pool)
  c.extend(Tagged) if c.is_a?(Account) && R.chance(0.2)
  pool << c
  # a cycle: the container inside itself
  if R.chance(0.1) && !$acyclic
    case c
    when Array then c << c
    when Hash then c[:self] = c unless c.is_a?(ActiveSupport::HashWithIndifferentAccess)
    end
  end
  c
end

# --- paths, as navigation reads them ---------------------------------------

def key_text(k)
  k.is_a?(String) || k.is_a?(Symbol) || k.is_a?(Integer) ? k.to_s : nil
end

# the entries of a container, as navigation sees them: [text, value]
def entries(c)
  case c
  when Array then c.each_with_index.map { |v, i| [i.to_s, v] }
  when Hash then c.map { |k, v| [key_text(k), v] }.select(&:first)
  when Struct then c.members.map { |m| [m.to_s, c[m]] }
  when Account then c.instance_variables.map { |iv| [iv.to_s[1..], c.instance_variable_get(iv)] }
  else []
  end
end

def container?(v)
  v.is_a?(Array) || v.is_a?(Hash) || v.is_a?(Struct) || v.is_a?(Account)
end

# a random path from root to a container: [keys, container]
def random_path(root)
  path = []
  c = root
  while R.chance(0.6)
    inner = entries(c).select { |_, v| container?(v) }
    break if inner.empty?

    text, nxt = R.pick(inner)
    # an Array position, sometimes from the end
    text = (Integer(text) - c.size).to_s if c.is_a?(Array) && R.chance(0.3)
    c = nxt
    path << text
  end
  [path, c]
end

def dig(root, path)
  path.reduce(root) do |c, t|
    next c[Integer(t)] if c.is_a?(Array)

    e = entries(c).reverse.find { |text, _| text == t }
    return nil unless e

    e[1]
  end
end

# --- the changes, in Ruby ------------------------------------------------

def new_key(h, text)
  h.empty? || !h.keys.all?(Symbol) ? text.dup.force_encoding("UTF-8") : text.to_sym
end

# The element an Array position names (from the end when negative), nil
# past either end.
def array_index(a, text)
  i = Integer(text)
  i += a.size if i.negative?
  i if i >= 0 && i < a.size
end

# Past either end, as jsonb_set and jsonb_insert: first for a negative
# position, last otherwise.
def array_add(a, text, value)
  Integer(text).negative? ? a.unshift(value) : a.push(value)
end

def ruby_set(c, text, value, create)
  case c
  when Array
    if (i = array_index(c, text)) then c[i] = value
    elsif create then array_add(c, text, value)
    end
  when Hash
    k = c.keys.reverse.find { |key| key_text(key) == text }
    if k.nil? && create then c[new_key(c, text)] = value
    elsif k then c[k] = value
    end
  when Struct
    c[text] = value if c.members.include?(text.to_sym)
  when Account
    c.instance_variable_set("@#{text}", value) if create || c.instance_variable_defined?("@#{text}")
  end
end

def ruby_insert(c, text, value, after)
  case c
  when Array
    if (i = array_index(c, text)) then c.insert(i + (after ? 1 : 0), value)
    else array_add(c, text, value)
    end
  when Hash then c[new_key(c, text)] = value
  when Account then c.instance_variable_set("@#{text}", value)
  end
end

def ruby_delete(c, text)
  case c
  when Array then c.reject! { |e| (e.is_a?(String) || e.is_a?(Symbol)) && e.to_s == text }
  when Hash then c.delete_if { |k, _| key_text(k) == text }
  when Account
    iv = "@#{text}"
    c.remove_instance_variable(iv) if c.instance_variable_defined?(iv)
  end
end

# --- SQL -------------------------------------------------------------------

def lit(obj)
  "'\\x#{Marshal.dump(obj).unpack1('H*')}'::bytea::rbmarshal"
end

def sql_array(keys)
  "ARRAY[#{keys.map { |k| "'#{k.gsub("'", "''")}'" }.join(', ')}]::text[]"
end

ROWS = []

def add(name, sql, expected)
  ROWS << [name, sql, expected]
end

def hex_of(sql)
  "encode((#{sql})::bytea, 'hex')"
end

def fresh(bytes)
  Marshal.load(bytes)
end

# a new value; a HashWithIndifferentAccess converts it (no cycles there)
def plain_new_value(target)
  return acyclic { random_value(1, []) } if target.is_a?(ActiveSupport::HashWithIndifferentAccess)

  random_value(2, [])
end

# set, insert, delete and #- at random paths of random values
400.times do |n|
  root = random_container(0, [])
  bytes = Marshal.dump(root)
  path, target = random_path(Marshal.load(bytes))
  kind = R.pick(%i[set set set set_missing insert delete delete_path delete_index delete_keys])
  x = fresh(bytes)
  t = dig(x, path)
  text = R.chance(0.7) && !entries(t).empty? ? R.pick(entries(t))[0] : random_text
  text = R.pick(["-1", "0", "1", "7", "-9", entries(t).size.to_s]) if t.is_a?(Array) && R.chance(0.5)
  text = R.rand(-3..4).to_s if t.is_a?(Array) && !text.match?(/\A-?\d+\z/)
  case kind
  when :set, :set_missing
    create = kind == :set
    value = plain_new_value(t)
    ruby_set(t, text, value, create)
    sql = "rbmarshal_set(#{lit(root)}, #{sql_array(path + [text])}, #{lit(value)}#{create ? '' : ', false'})"
  when :insert
    next if !t.is_a?(Array) && entries(t).any? { |e, _| e == text }
    next if t.is_a?(Struct)

    after = R.chance(0.5)
    value = plain_new_value(t)
    ruby_insert(t, text, value, after)
    sql = "rbmarshal_insert(#{lit(root)}, #{sql_array(path + [text])}, #{lit(value)}#{after ? ', true' : ''})"
  when :delete_path
    # #- names an Array's element by its position (as jsonb's #-)
    if t.is_a?(Array)
      t.delete_at(Integer(text))
    elsif !t.is_a?(Struct)
      ruby_delete(t, text)
    end
    sql = "#{lit(root)} #- #{sql_array(path + [text])}"
  when :delete, :delete_keys, :delete_index
    # at the root
    x = fresh(bytes)
    if kind == :delete_index
      next unless x.is_a?(Array)

      i = R.rand(-4..4)
      x.delete_at(i)
      sql = "#{lit(root)} - #{i}"
    elsif kind == :delete_keys
      next if x.is_a?(Struct)

      keys = Array.new(R.rand(1..3)) { R.chance(0.7) && !entries(x).empty? ? R.pick(entries(x))[0] : random_text }
      keys.each { |k| ruby_delete(x, k) }
      sql = "#{lit(root)} - #{sql_array(keys)}"
    else
      next if x.is_a?(Struct)

      ruby_delete(x, text = (entries(x).empty? ? random_text : R.pick(entries(x))[0]))
      sql = "#{lit(root)} - '#{text}'::text"
    end
  end
  add("#{kind}_#{n}", hex_of(sql), Marshal.dump(x).unpack1("H*"))
end

# ||: Hash#merge (the receiver's class and default kept), Array#+
150.times do |n|
  if R.chance(0.4)
    a = Array.new(R.rand(0..4)) { random_value(1, []) }
    a = Bag.new(a) if R.chance(0.2)
    b = Array.new(R.rand(0..4)) { random_value(1, []) }
    a << a if R.chance(0.1)
  else
    kind = R.pick(%i[sym str mixed hwia options default])
    a = random_hash(1, [], kind)
    b = random_hash(1, [], R.pick(%i[sym str mixed]))
    b[a.keys.first] = random_value(2, []) if !a.empty? && R.chance(0.5) && !a.is_a?(ActiveSupport::HashWithIndifferentAccess)
    b = acyclic { random_hash(1, [], R.pick(%i[sym str mixed hwia])) } if a.is_a?(ActiveSupport::HashWithIndifferentAccess)
  end
  x = fresh(Marshal.dump(a))
  y = fresh(Marshal.dump(b))
  add("concat_#{n}", hex_of("#{lit(a)} || #{lit(b)}"), Marshal.dump(x.is_a?(Array) ? x + y : x.merge(y)).unpack1("H*"))
end

# --- renames: the same graph built twice, once with each name ----------

def named_graph(ns, seed)
  rng = SeededRandom.new(seed)
  m = Object.const_get(ns)
  bar = OldBar # a name with Old as a prefix: never renamed
  pool = []
  make = lambda do |depth|
    v = case depth > 2 ? rng.rand(11) : rng.rand(15)
        when 0 then m::Item.new(rng.rand(10))
        when 1 then m::Line.new(rng.rand(10), "n")
        when 2 then m::Text.new("t")
        when 3 then m::Money.new(rng.rand(100))
        when 4 then m::Span.new(rng.rand(100))
        when 5 then m
        when 6 then m::Item
        when 7 then bar.new(1)
        when 8 then m::Item::Inner.new(:x)
        when 9 then rng.pick([OldX, :Old, "Old::Item", Options.new.merge(a: 1)])
        when 10 then Account.new(1, 2).extend(m::Mark)
        when 11 then m::List.new(Array.new(rng.rand(0..3)) { make.call(depth + 1) })
        when 12
          h = m::Map.new
          rng.rand(0..3).times { |i| h["k#{i}"] = make.call(depth + 1) }
          h
        when 13 then Array.new(rng.rand(1..4)) { make.call(depth + 1) }
        else pool.empty? ? nil : rng.pick(pool)
        end
    pool << v unless v.nil? || v.is_a?(Symbol) || v.is_a?(Module)
    v
  end
  Array.new(rng.rand(2..5)) { make.call(0) }
end

60.times do |n|
  before = named_graph("Old", 1000 + n)
  after = named_graph("New", 1000 + n)
  add("rename_#{n}", hex_of("rbmarshal_rename_class(#{lit(before)}, 'Old', 'New')"),
      Marshal.dump(after).unpack1("H*"))
end
# a nested name only: Old::Item and Old::Item::Inner, not Old or OldBar
item_old = [Old::Item.new(1), Old::Item::Inner.new(2), Old::Line.new(1, 2), Old, OldBar.new(3), Old::Item]
item_new = Old.const_get(:Item) && [New::Item.new(1), New::Item::Inner.new(2), Old::Line.new(1, 2), Old,
                                    OldBar.new(3), New::Item]
add("rename_nested", hex_of("rbmarshal_rename_class(#{lit(item_old)}, 'Old::Item', 'New::Item')"),
    Marshal.dump(item_new).unpack1("H*"))
# a module in an e chain
chain_old = [Account.new(1, 2).extend(Old::Mark).extend(Tagged), Old::Mark]
chain_new = [Account.new(1, 2).extend(New::Mark).extend(Tagged), New::Mark]
add("rename_extended", hex_of("rbmarshal_rename_class(#{lit(chain_old)}, 'Old::Mark', 'New::Mark')"),
    Marshal.dump(chain_new).unpack1("H*"))

# --- the classes a value references --------------------------------------

# What Marshal.dump names, walking the graph: o, S, u, U classes, C
# subclasses (and C Hash for an identity Hash), e modules, c and m objects.
def class_names(v, seen = {}, out = [])
  return out if seen[v.__id__]

  seen[v.__id__] = true unless v.is_a?(Integer) || v.is_a?(Float) || v.nil? || v == true || v == false
  return out if v.nil? || v == true || v == false || v.is_a?(Integer) || v.is_a?(Float) || v.is_a?(Symbol)

  if v.is_a?(Module)
    out << v.name
    return out
  end
  extended = v.singleton_class.ancestors - v.class.ancestors rescue []
  extended.each { |mod| out << mod.name if mod.instance_of?(Module) }
  base = [String, Array, Hash, Regexp].find { |b| v.is_a?(b) }
  out << v.class.name if base.nil? || v.class != base
  case v
  when Hash
    out << "Hash" if v.compare_by_identity?
    v.each { |k, val| class_names(k, seen, out) && class_names(val, seen, out) }
    class_names(v.default, seen, out)
  when Array then v.each { |e| class_names(e, seen, out) }
  when Struct then v.each { |e| class_names(e, seen, out) }
  when Range then [v.begin, v.end].each { |e| class_names(e, seen, out) }
  when Time, BigDecimal, Date then nil
  when String, Regexp then nil
  else
    (v.respond_to?(:marshal_dump) ? v.marshal_dump : v.instance_variables.map { |iv| v.instance_variable_get(iv) })
      .then { |d| d.is_a?(Array) ? d : [d] }.each { |e| class_names(e, seen, out) }
  end
  out
end

60.times do |n|
  v = n < 30 ? named_graph("Old", 2000 + n) : random_value(0, [])
  add("classes_#{n}", "(SELECT coalesce(string_agg(c, ',' ORDER BY c COLLATE \"C\"), '') FROM rbmarshal_classes(#{lit(v)}) c)",
      class_names(v).uniq.sort.join(","))
end

File.write(File.join(OUT_DIR, "edits.tsv"), ROWS.map { |r| r.join("\t") + "\n" }.join)
