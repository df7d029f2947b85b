# Navigation in the JSON view of a Ruby value, for test/diff/generate.rb (paths.tsv).
#
# The contract: `v #> path` on an rbmarshal value is `v::jsonb #> path`, the sub-value
# given back as Marshal.dump of the Ruby value found there.  This file walks the Ruby
# value itself (not its JSON) the way its JSON view is built:
#
#   Hash (any: HWIA, compare_by_identity, with a default, subclasses)
#                   the entry whose key's to_s is the step; the LAST such key wins
#   Struct          the member of that name
#   OpenStruct      {"table" => its table}, as ActiveSupport (instance_values)
#   plain object    the instance variable "@" + step (`o` in Marshal, not a class below)
#   Array           the element at the step read as an integer (negative: from the end;
#                   "+1", "01" and " 1" are 1, as for jsonb)
#   Set             the element at that index of set.to_a
#   UserMarshal (U) its marshal_dump data; DataTime (d) its _dump_data data
#   scalars         nothing: String, Symbol, numbers (BigDecimal, Rational, Complex too),
#                   nil/true/false, Time, Date, DateTime, TimeWithZone, Range, Regexp,
#                   Duration, TimeZone, exceptions, classes and modules
#   UserDump (u)    not handled: its JSON view is {"$class", "$dump"}, made from the
#                   bytes, with no Ruby value behind it (raises Unsupported)
#
# Keys other than String/Symbol/Integer/Float/nil/true/false (exact classes) are never
# offered as steps; if the to_s of one equals a step, the step is Unsupported (the
# extension does not read such keys; Ruby's JSON view would).
#
# No side effects beyond defining JsonView.

require "set"
require "ostruct"

module JsonView
  MISSING = Object.new
  def MISSING.inspect
    "MISSING"
  end
  MISSING.freeze

  class Unsupported < StandardError; end

  KEY_CLASSES = [String, Symbol, Integer, Float, NilClass, TrueClass, FalseClass].freeze
  # characters Ruby's Shift_JIS / EUC-JP converters map differently from PostgreSQL's
  CONVERSION_DIFFERS = "〜−‖￥～¥‾—―∥－￠￡￢"
  # steps are written in a TSV loaded as CSV with QUOTE E'\x01': no control characters
  STEP_UNSAFE = /[\x00-\x1f\x7f]/.freeze
  # an array index as jsonb reads it (strtoint: leading white space, a sign, decimal digits)
  INTEGER_STEP = /\A[ \t\n\v\f\r]*[+-]?[0-9]+\z/.freeze

  module_function

  def scalar_classes
    @scalar_classes ||= [String, Symbol, Numeric, NilClass, TrueClass, FalseClass, Time, Date,
                         Range, Regexp, Exception, Module, ActiveSupport::Duration,
                         ActiveSupport::TimeZone, ActiveSupport::TimeWithZone].freeze
  end

  # [:object, [[key_text, value, steppable], ...]] | [:array, values] | [:scalar]
  def view(value)
    case value
    when UserDump then raise Unsupported, "UserDump (u) is {\"$class\", \"$dump\"} in JSON"
    when UserMarshal then view(value.marshal_dump)
    when DataTime then view(value._dump_data)
    when OpenStruct then [:object, [["table", value.instance_variable_get(:@table), true]]]
    when Hash then [:object, hash_pairs(value)]
    when Array then [:array, value]
    when Set then [:array, value.to_a]
    when Struct then [:object, value.each_pair.map { |m, x| [m.to_s, x, true] }]
    when *scalar_classes then [:scalar]
    else
      [:object, value.instance_variables.map { |iv| [iv.to_s[1..], value.instance_variable_get(iv), true] }]
    end
  end

  # kind name for statistics: what a step goes through
  def kind(value)
    case value
    when UserMarshal then "usermarshal"
    when DataTime then "data"
    when OpenStruct then "openstruct"
    when ActiveSupport::HashWithIndifferentAccess then "hwia"
    when Hash then value.compare_by_identity? ? "hash_identity" : (value.default.nil? ? "hash" : "hash_default")
    when Array then "array"
    when Set then "set"
    when Struct then "struct"
    when *scalar_classes then "scalar"
    else "object"
    end
  end

  def hash_pairs(hash)
    hash.map do |k, x|
      text, steppable = key_text(k)
      [text, x, steppable]
    end
  end

  # The JSON text of a key (UTF-8) and whether a path may step through it.
  # text is nil when there is none (not a String, not convertible).
  def key_text(key)
    unless KEY_CLASSES.include?(key.class)
      s = key.to_s rescue nil
      return [s.is_a?(String) ? utf8(s) : nil, false]
    end
    case key
    when String, Symbol
      s = key.to_s
      text = utf8(s)
      ok = !text.nil? && !text.match?(STEP_UNSAFE) &&
           (s.encoding == Encoding::UTF_8 || s.encoding == Encoding::US_ASCII ||
            s.encoding == Encoding::BINARY || !text.each_char.any? { |c| CONVERSION_DIFFERS.include?(c) })
      [text, ok]
    else [key.to_s, true] # nil -> "", true, false, Integer, Float (NaN, Infinity, -0.0...)
    end
  end

  def utf8(str)
    case str.encoding
    when Encoding::UTF_8, Encoding::US_ASCII, Encoding::BINARY
      s = str.dup.force_encoding(Encoding::UTF_8)
      s.valid_encoding? ? s : nil
    else
      str.encode(Encoding::UTF_8)
    end
  rescue EncodingError
    nil
  end

  # One step from value; MISSING if it leads nowhere.
  def step(value, step)
    return MISSING if step.nil? # a NULL path element
    kind, items = view(value)
    case kind
    when :object
      found = MISSING
      items.each do |text, x, steppable|
        next unless text == step
        raise Unsupported, "a key of class other than #{KEY_CLASSES.join('/')} has to_s #{step.inspect}" unless steppable
        found = x
      end
      found
    when :array
      return MISSING unless step.match?(INTEGER_STEP)
      i = Integer(step, 10)
      i += items.size if i.negative?
      i >= 0 && i < items.size ? items[i] : MISSING
    else MISSING
    end
  end

  def navigate(value, steps)
    steps.each do |s|
      value = step(value, s)
      return MISSING if value.equal?(MISSING)
    end
    value
  end

  # jsonb's #> on a parsed JSON document (an independent check of navigate)
  def json_dig(doc, steps)
    steps.each do |s|
      return MISSING if s.nil?
      case doc
      when Hash
        return MISSING unless doc.key?(s)
        doc = doc[s]
      when Array
        return MISSING unless s.match?(INTEGER_STEP)
        i = Integer(s, 10)
        i += doc.size if i.negative?
        return MISSING unless i >= 0 && i < doc.size
        doc = doc[i]
      else return MISSING
      end
    end
    doc
  end

  # The steps one may take from value: [[step_text, sub_value], ...] (distinct texts,
  # last key wins), array indexes as "0", "1"...
  def steps(value)
    kind, items = view(value)
    case kind
    when :object
      last = {}
      items.each { |text, x, _| last[text] = x unless text.nil? }
      items.select { |text, _, ok| ok && !text.nil? }.map(&:first).uniq.map { |t| [t, last[t]] }
    when :array then items.each_with_index.map { |x, i| [i.to_s, x] }
    else []
    end
  end

  # Children in Marshal's sense, for the cycle check.
  def children(value)
    out = []
    case value
    when Hash then value.each { |k, x| out << k << x }
    when Array then out.concat(value)
    when Struct then out.concat(value.to_a)
    end
    out << value.default if value.is_a?(Hash)
    unless value.is_a?(Integer) || value.is_a?(Float) || value.is_a?(Symbol) || value.nil? ||
           value == true || value == false
      value.instance_variables.each { |iv| out << value.instance_variable_get(iv) }
    end
    out
  end

  def cyclic?(value, path = {}.compare_by_identity, done = {}.compare_by_identity)
    return false if done.key?(value)
    return true if path.key?(value)
    path[value] = true
    cyc = children(value).any? { |c| cyclic?(c, path, done) }
    path.delete(value)
    done[value] = true unless cyc
    cyc
  end

  # A PostgreSQL text[] literal; nil elements are NULL.
  def pg_array(steps)
    "{#{steps.map { |s| pg_array_element(s) }.join(',')}}"
  end

  def pg_array_element(step)
    return "NULL" if step.nil?
    if step.empty? || step.casecmp?("NULL") || step.match?(/[",\\{}\s]/)
      "\"#{step.gsub(/["\\]/) { |c| "\\#{c}" }}\""
    else
      step
    end
  end
end
