# frozen_string_literal: true

# What the fixture generators share (test/fixtures, test/diff, test/rails,
# test/fidelity): stopping with a message, bytes as hex, a TSV field.
def fail!(msg)
  warn "#{File.basename($PROGRAM_NAME)}: #{msg}"
  exit 1
end

def hex(bytes)
  bytes.unpack1("H*")
end

# A TSV field as is: a control character would break the row.
def tsv_field(text)
  text = text.to_s
  fail!("TSV field holds a control character: #{text.inspect[0, 80]}") if text.match?(/[\x00-\x1f\x7f]/)
  text
end
