# frozen_string_literal: true

# What the fixture generators share (test/fixtures, test/diff, test/rails,
# test/fidelity): stopping with a message, and bytes as hex.
def fail!(msg)
  warn "#{File.basename($PROGRAM_NAME)}: #{msg}"
  exit 1
end

def hex(bytes)
  bytes.unpack1("H*")
end
