# Arrays of N elements of the kinds whose jsonb view is converted (issue 15),
# made by MRI's Marshal.dump, for bench/srf.sh: one COPY text line each
# ("kind<TAB>\\x<hex>") in DIR/<kind>.copy.
#   ruby bench/srf_kinds.rb DIR N [kind ...]
require "date"
require "bigdecimal"
require "active_support"
require "active_support/time"

dir, n = ARGV[0], Integer(ARGV[1] || 1_000_000)
Time.zone = "Eastern Time (US & Canada)"
KINDS = {
  "date" => ->(i) { Date.new(2020, 1, 1) + i % 1000 },
  "datetime" => ->(i) { DateTime.new(2020, 1, 1, 0, 0, 0) + Rational(i % 100_000, 86_400) },
  "twz" => ->(i) { Time.zone.at(1_600_000_000 + i) },
  "latin1" => ->(i) { "caf\u00e9 #{i}".encode("ISO-8859-1") },
  "bigdecimal" => ->(i) { BigDecimal("#{i}.25") },
  "time" => ->(i) { Time.at(1_600_000_000 + i).utc },
  "float" => ->(i) { i / 7.0 },
  "nested" => ->(i) { [i, "x"] },
}.freeze
kinds = ARGV.size > 2 ? ARGV[2..] : KINDS.keys
kinds.each do |k|
  bytes = Marshal.dump(Array.new(n) { |i| KINDS.fetch(k).call(i) })
  File.write(File.join(dir, "#{k}.copy"), "#{k}\t\\\\x#{bytes.unpack1('H*')}\n")
end
