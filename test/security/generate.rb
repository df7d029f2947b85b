# Rails 6.1 cache entries (real ActiveSupport 6.1) whose fields a text or a
# timestamptz cannot hold as they are, for sql/security.sql:
#   bad_version_ff    version "\xFF" (not UTF-8)
#   bad_version_nul   version "a\0b" (a NUL byte)
#   far_expiry        expires_at 1e18 s after 1970 (beyond timestamptz)
#   never_expires     expires_in Float::INFINITY (read as no expiry)
#   good              version "v1", expires_at 2024-03-05 14:07:09.5 UTC
# Writes OUTDIR/cache_entries.tsv: name, hex.
#   ruby test/security/generate.rb test/security
require "active_support"
require "active_support/cache"

out = ARGV.fetch(0)
created = Time.utc(2024, 3, 5, 14, 7, 9.5).to_f - 60
# Entry#initialize reads the clock for @created_at: a fixed one, so the
# bytes are the same on every run
Time.singleton_class.prepend(Module.new { define_method(:now) { Time.at(created) } })

rows = {
  "bad_version_ff" => ActiveSupport::Cache::Entry.new("x", version: "\xFF".b),
  "bad_version_nul" => ActiveSupport::Cache::Entry.new("x", version: "a\0b"),
  "far_expiry" => ActiveSupport::Cache::Entry.new("x", expires_in: 1e18 - created),
  "never_expires" => ActiveSupport::Cache::Entry.new("x", expires_in: Float::INFINITY),
  "good" => ActiveSupport::Cache::Entry.new("x", version: "v1", expires_in: 60)
}
File.write(File.join(out, "cache_entries.tsv"),
           rows.map { |name, e| "#{name}\t#{Marshal.dump(e).unpack1('H*')}\n" }.join)
