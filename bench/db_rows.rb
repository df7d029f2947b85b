#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Rows for the database benchmark (bench/db.sh): N Rails sessions (~500 B)
# and N settings hashes with Symbol keys (~2 KB), each a different value,
# written as "id<TAB>hex of Marshal.dump" to DIR/sessions.tsv and
# DIR/settings.tsv.  Deterministic: seeded Random, no clock.
#
#   ruby bench/db_rows.rb DIR N

ENV["TZ"] = "UTC"
dir = ARGV[0] or abort "usage: db_rows.rb DIR N"
n = Integer(ARGV[1] || 20_000)
rng = Random.new(20_241_130)

ALPHA = ("a".."z").to_a.freeze
def hexstr(rng, len) = Array.new(len) { "0123456789abcdef"[rng.rand(16)] }.join
def word(rng, len) = Array.new(len) { ALPHA[rng.rand(26)] }.join

session = lambda do |i|
  {
    "session_id" => hexstr(rng, 32),
    "_csrf_token" => [hexstr(rng, 32)].pack("m0"),
    "warden.user.user.key" => [[1000 + i], "$2a$12$" + word(rng, 22)],
    "warden.user.user.session" => { "last_request_at" => 1_709_600_000 + rng.rand(100_000) },
    "flash" => { "discard" => [], "flashes" => { "notice" => "Signed in successfully." } },
    "cart_ids" => Array.new(rng.rand(1..6)) { rng.rand(1..100_000) },
    "return_to" => "/orders/#{rng.rand(1..99_999)}?page=#{rng.rand(1..9)}",
    "locale" => %w[en fr de ja pt-BR][rng.rand(5)],
    "remember_me" => rng.rand(2) == 1,
    "ab_tests" => { "checkout_v2" => %w[a b][rng.rand(2)], "new_nav" => rng.rand(2) == 1 }
  }
end

settings = lambda do |i|
  {
    theme: %i[dark light auto][rng.rand(3)],
    locale: %w[en fr de ja][rng.rand(4)],
    per_page: [10, 25, 50, 100][rng.rand(4)],
    ratio: rng.rand.round(4),
    notifications: {
      email: { digest: %i[daily weekly never][rng.rand(3)], mentions: true, replies: rng.rand(2) == 1,
               marketing: false, product_updates: rng.rand(2) == 1 },
      push: { mentions: true, replies: false, reminders: rng.rand(2) == 1, quiet_hours: [22, 7] },
      sms: { enabled: false, number: nil }
    },
    dashboard: {
      widgets: Array.new(16) { |k| { id: k, kind: %i[chart table list kpi][rng.rand(4)], title: word(rng, 12),
                                    w: rng.rand(1..4), h: rng.rand(1..4), pinned: rng.rand(2) == 1 } },
      default_range: :last_30_days, compare: true
    },
    shortcuts: Array.new(24) { "/" + word(rng, 6) + "/" + word(rng, 5) },
    labels: Array.new(20) { word(rng, 9).to_sym },
    signature: "Best regards,\n" + word(rng, 10).capitalize + " " + word(rng, 8).capitalize,
    user_id: 1000 + i,
    beta_features: %i[new_editor bulk_actions ai_summaries].select { rng.rand(2) == 1 }
  }
end

{ "sessions.tsv" => session, "settings.tsv" => settings }.each do |file, make|
  File.open(File.join(dir, file), "w") do |f|
    n.times do |i|
      v = make.call(i)
      bytes = Marshal.dump(v)
      abort "#{file}: row #{i} does not load back" unless Marshal.load(bytes) == v
      f.write(i, "\t", bytes.unpack1("H*"), "\n")
    end
  end
end
