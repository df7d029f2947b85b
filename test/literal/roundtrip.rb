#!/usr/bin/env ruby
# frozen_string_literal: true
# Checks the round trip of test/literal/inspect.tsv's lit_* rows with this Ruby (64-bit MRI 3.1):
# the Ruby 4.0 inspect text of a literal's value, evaluated as a Ruby literal, must give a value
# with exactly the literal's Marshal bytes.  Ruby 4.0 prints NaN, Infinity and -Infinity for
# the non-finite floats, which are not literals (the grammar spells them Float::NAN,
# Float::INFINITY, -Float::INFINITY): they are evaluated as those.
#
#   ruby test/literal/roundtrip.rb [DIR]      (DIR holds literals.tsv and inspect.tsv; default: this folder)
# Prints "literal-roundtrip: N passed, N failed" and exits 1 on a failure.

$VERBOSE = nil
DIR = File.expand_path(ARGV[0] || __dir__)

def tsv_unescape(text)
  text.gsub(/\\[\\tnr]/, "\\\\" => "\\", "\\t" => "\t", "\\n" => "\n", "\\r" => "\r")
end

# Ruby 4.0's names for the non-finite floats, as what the grammar spells
class RoundTrip < BasicObject
  NaN = ::Float::NAN
  Infinity = ::Float::INFINITY

  def self.evaluate(src)
    class_eval(src, "(inspect)", 1)
  end
end

literals = {}
File.foreach(File.join(DIR, "literals.tsv"), chomp: true, encoding: "UTF-8") do |line|
  name, _src, hex = line.split("\t", -1)
  literals[name] = hex
end

passed = 0
failed = 0
File.foreach(File.join(DIR, "inspect.tsv"), chomp: true, encoding: "UTF-8") do |line|
  name, hex, text = line.split("\t", -1)
  next unless name.start_with?("lit_")
  want = literals.fetch(name.delete_prefix("lit_")) { abort "#{name}: not in literals.tsv" }
  abort "#{name}: hex differs from literals.tsv" unless want == hex
  src = tsv_unescape(text)
  # GC off while evaluating and dumping: see eval_and_dump in generate.rb (MRI 3.1 now and
  # then gives distinct objects for equal String keys of one literal, depending on the GC)
  GC.disable
  begin
    got = Marshal.dump(RoundTrip.evaluate(src)).unpack1("H*")
  rescue ::Exception => e # rubocop:disable Lint/RescueException
    got = "#{e.class}: #{e.message}"
  ensure
    GC.enable
  end
  if got == hex
    passed += 1
  else
    failed += 1
    puts "#{name}: #{src[0, 200].inspect}\n  want #{hex[0, 200]}\n  got  #{got[0, 200]}"
  end
end
puts "literal-roundtrip: #{passed} passed, #{failed} failed"
exit(failed.zero? ? 0 : 1)
