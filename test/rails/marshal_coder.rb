# The custom coder real apps write for Marshal columns (a bare `Marshal` fails, see
# rails/rails#30856): nil stays nil.  For test/rails and test/fidelity.
module MarshalCoder
  def self.dump(value)
    value.nil? ? nil : Marshal.dump(value)
  end

  def self.load(bytes)
    bytes.nil? ? nil : Marshal.load(bytes)
  end
end
