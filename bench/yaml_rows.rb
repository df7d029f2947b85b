# frozen_string_literal: true

# The workloads of bench/yaml.sh, seeded (no clock), into DIR:
#   NAME.bin   Marshal.dump of the Array of YAML texts (Ruby's side)
#   NAME.tsv   the texts one a line, COPY text format (the server's side)
#   NAME.raw   the texts one after another (the C library reads report.raw)
# Workloads: report (one 3.5 MB text), prefs (20,000 YAMLColumn rows of a
# Hash of String keys to Strings), papertrail (10,000 PaperTrail `object`
# rows as PaperTrail 12 writes them with Time.zone UTC: TimeWithZones that
# share the zone object, BigDecimal, a Date, an enum's Integer).
#
#   ruby bench/yaml_rows.rb DIR
require "yaml"
require "bigdecimal"
require "active_support/all"

dir = ARGV[0] or abort "usage: yaml_rows.rb DIR"
rng = Random.new(2024)

def write(dir, name, texts)
  File.binwrite(File.join(dir, "#{name}.bin"), Marshal.dump(texts))
  File.binwrite(File.join(dir, "#{name}.raw"), texts.join)
  File.open(File.join(dir, "#{name}.tsv"), "wb") do |f|
    texts.each do |t|
      f.write(t.gsub("\\") { "\\\\" }.gsub("\n", "\\n").gsub("\t", "\\t").gsub("\r", "\\r"), "\n")
    end
  end
end

report = Array.new(10) { |i| Array.new(20_000) { |j| ["k#{i}_#{j}", j * 7 + i] }.to_h }
write(dir, "report", [report.to_yaml])

PREF_VALUES = {
  "theme" => %w[dark light system], "locale" => %w[en de fr pt-BR ja], "time_zone" => ["UTC", "Berlin", "Eastern Time (US & Canada)"],
  "currency" => %w[USD EUR JPY], "date_format" => ["%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y"], "email_frequency" => %w[daily weekly never],
  "landing_page" => %w[/dashboard /inbox /reports], "density" => %w[compact comfortable], "font_size" => %w[12 14 16],
  "sidebar" => %w[yes no], "signature" => ["Best regards, Ana", "— Jörg", "Cheers"], "notify_sms" => %w[on off],
  "default_view" => %w[list grid calendar], "week_start" => %w[monday sunday], "editor" => %w[markdown rich plain]
}.freeze
prefs = Array.new(20_000) do
  PREF_VALUES.to_h { |k, vs| [k, vs[rng.rand(vs.size)].dup] }.merge("api_label" => "key-#{rng.rand(10**8)}").to_yaml
end
write(dir, "prefs", prefs)

Time.zone = "UTC"
papertrail = Array.new(10_000) do |i|
  at = Time.zone.at(1_700_000_000 + rng.rand(10**7))
  {
    "id" => i + 1, "number" => "R#{100_000 + i}", "email" => "user#{rng.rand(10**6)}@example.com",
    "notes" => rng.rand(3).zero? ? nil : "leave at door #{rng.rand(100)}", "status" => rng.rand(4),
    "total" => BigDecimal("#{rng.rand(10_000)}.#{rng.rand(100)}"), "weight" => rng.rand(100) / 4.0,
    "gift" => rng.rand(2).zero?, "ship_on" => Date.new(2024, 1 + rng.rand(12), 1 + rng.rand(28)),
    "paid_at" => rng.rand(2).zero? ? nil : at + 90, "created_at" => at, "updated_at" => at + rng.rand(86_400)
  }.to_yaml
end
write(dir, "papertrail", papertrail)
