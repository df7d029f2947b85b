# ActiveSupport -> the contract (SPEC section 3: Rails 7 where versions differ), for the
# generators of test/diff and test/fidelity.  The deviations of the contract where Ruby's
# answer is not in the bytes, and ActiveSupport 6.1's differences from 7.x.

# Rails 7: a class or module is its name (6.1: instance_values, i.e. {}).  The name is
# the constant path the stream holds: Module#name itself, bypassing classes that override
# `name` (AS 6.1/7.0 ActiveSupport::TimeWithZone.name returns "Time").
MODULE_NAME = Module.instance_method(:name)
class Module
  def as_json(_options = nil)
    MODULE_NAME.bind_call(self)
  end
end

# Contract: an ActiveSupport::TimeZone is its name (ActiveSupport: instance_values incl.
# the TZInfo object, whose tables are not in the bytes).
class ActiveSupport::TimeZone
  def as_json(_options = nil)
    name
  end
end
