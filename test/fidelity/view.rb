# The JSON view of a Ruby value as ActiveSupport builds it, for navigation: the
# contract of issue #14 (SPEC section 3), which test/fidelity/shapes.rb checks.
# It is test/diff/json_view.rb's (steps, navigation, JSON digging, path literals)
# with these differences:
#
#   Hash keys         every key whose to_s ActiveSupport writes is a step (Date, Time,
#                     TimeWithZone, DateTime, BigDecimal, Rational, Complex, Range,
#                     Duration, String subclasses, Regexp, Exception, Class/Module...),
#                     by the text ActiveSupport writes
#                     (UTF-16/32 keep their BOM as U+FEFF), Arrays of Strings, Symbols,
#                     numbers, nil, booleans, times, dates, BigDecimals and such Arrays by
#                     their inspect.  Keys whose to_s is another inspect text (Hash, Set,
#                     Struct, plain objects, Arrays holding one) are never steps: the
#                     extension refuses them.
#   a user class's U  its marshal_dump data (UserMarshalled, shapes.rb)
#   ActionController::Parameters: its @parameters; GlobalID: a scalar (its to_s)
#   IPAddr, URI, Pathname, Multibyte::Chars: scalars (strings); Process::Status is a
#                     computed object with no sub-value behind it (Unsupported)
#
# No side effects beyond defining FidelityView (and JsonView).

require "json"
require_relative "../diff/json_view"

module FidelityView
  include JsonView
  extend self
  public :step, :navigate, :steps, :hash_pairs

  def scalar_classes
    @scalar_classes ||= (JsonView.scalar_classes + [IPAddr, URI::Generic, Pathname,
                                                    ActiveSupport::Multibyte::Chars]).freeze
  end

  def view(value)
    case value
    when Process::Status then raise Unsupported, "Process::Status is a computed object"
    when UserMarshalled then view(value.marshal_dump)
    else
      return view(value.instance_variable_get(:@parameters)) if defined?(ActionController::Parameters) &&
                                                                  value.is_a?(ActionController::Parameters)
      return [:scalar] if defined?(GlobalID) && value.is_a?(GlobalID)

      super
    end
  end

  # Keys whose to_s is an inspect text the bytes do not decide: refused by the extension.
  # An Array's to_s is its inspect, which the bytes decide for these elements.
  def inspect_text_key?(key)
    case key
    when Range then inspect_text_key?(key.begin) || inspect_text_key?(key.end)
    when Array then !inspected_element?(key)
    when String, Symbol, Numeric, NilClass, TrueClass, FalseClass, Time, Date,
         ActiveSupport::TimeWithZone, ActiveSupport::Duration, Regexp, Module
      false
    when Exception then !(key.message.nil? || key.message.is_a?(String)) # to_s: its message
    else true
    end
  end

  def inspected_element?(value)
    case value
    when Array then value.all? { |e| inspected_element?(e) }
    when String, Symbol, Integer, Float, BigDecimal, NilClass, TrueClass, FalseClass, Time, Date,
         ActiveSupport::TimeWithZone
      true
    else false
    end
  end

  # [the key's JSON text as ActiveSupport writes it (String#encode would drop a BOM), steppable]
  def key_text(key)
    text = begin
      JSON.parse(ActiveSupport::JSON.encode({ key => nil })).keys.first
    rescue StandardError
      nil
    end
    [text, !text.nil? && !inspect_text_key?(key) && !text.match?(STEP_UNSAFE)]
  end
end
