#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Writes the benchmark workloads as raw Marshal 4.8 files into bench/out/
# (or the folder given as the first argument):
#
#   mixed_214.bin      ~214 B   nested Hash/Array, String, fixnums, a 2**70
#                               bignum, Float, Symbol, a shared String and a
#                               shared Array (each used twice), a repeated Symbol
#   session_500.bin    ~500 B   a Rails/Devise session hash (session_id,
#                               _csrf_token, warden key, flash, a Time)
#   settings_2k.bin    ~2 KB    a settings hash with Symbol keys
#   as_values_1k.bin   ~1 KB    ActiveSupport values: HashWithIndifferentAccess,
#                               Time, Date, BigDecimal, TimeWithZone, Duration, Set
#   big_200k.bin       ~1.8 MB  200k short binary-String keys => small Integers,
#                               as 8 Hashes of 25k entries (the same value as
#                               test/fixtures/big_200k.bin)
#
# Deterministic: seeded Random, no clock, fixed TZ.  The small workloads are
# padded (one filler String) to the exact target size where possible.
# Every file is loaded back and compared with the value it was dumped from.
#
# Tested with ruby 3.1 + activesupport 6.1 (Debian packages).

ENV["TZ"] = "UTC"

require "active_support"
require "active_support/core_ext/hash/indifferent_access"
require "active_support/core_ext/numeric/time"
require "active_support/time"
require "bigdecimal"
require "date"
require "set"
require "fileutils"

OUT_DIR = File.expand_path(ARGV[0] || File.join(__dir__, "out"))
FileUtils.mkdir_p(OUT_DIR)
REPO = File.expand_path("..", __dir__)

def fail!(msg)
  warn "workloads.rb: #{msg}"
  exit 1
end

# Dump builder.call(pad) for pad = 0, 1, ... and keep the first stream of
# exactly `target` bytes (or else the closest one seen).
def padded(name, target, max_pad: 400)
  best = nil
  (0..max_pad).each do |pad|
    value = yield(pad)
    bytes = Marshal.dump(value)
    best = [bytes, value] if best.nil? || (bytes.bytesize - target).abs < (best[0].bytesize - target).abs
    break if bytes.bytesize >= target
  end
  fail!("#{name}: no padding reaches #{target} bytes") if best.nil?
  best
end

def filler(rng_seed, n)
  rng = Random.new(rng_seed)
  alphabet = [*"a".."z", " "]
  Array.new(n) { alphabet[rng.rand(alphabet.size)] }.join
end

def write_workload(name, bytes, value)
  loaded = Marshal.load(bytes)
  fail!("#{name}: does not load back to the value it was dumped from") unless loaded == value
  File.binwrite(File.join(OUT_DIR, name), bytes)
  printf("%-18s %9d bytes\n", name, bytes.bytesize)
end

# --- (a) mixed graph -------------------------------------------------------

mixed_bytes, mixed_value = padded("mixed_214.bin", 214) do |pad|
  shared_s = "shared"               # used twice: the 2nd use is an @ link
  shared_a = [7, 8, 9]              # used twice: the 2nd use is an @ link
  {
    "name" => "widget#{filler(1, pad)}",
    :status => :active,             # :active repeats below as a ; symlink
    "tags" => [:active, "blue", shared_s],
    "ints" => [0, -1, 122, -123, 65_536, -2**30],
    "big" => 2**70,                 # 'l' bignum
    "ratio" => 0.75,                # 'f'
    "nested" => { "a" => shared_a, "b" => [shared_a, nil, true, false], "s" => shared_s }
  }
end
write_workload("mixed_214.bin", mixed_bytes, mixed_value)

# --- (b) Rails session -----------------------------------------------------

BCRYPT_ALPHABET = [*"a".."z", *"A".."Z", *"0".."9", ".", "/"].freeze

session_bytes, session_value = padded("session_500.bin", 500) do |pad|
  rng = Random.new(500)
  base = Time.utc(2024, 3, 5, 12, 34, 56)
  {
    "session_id" => rng.bytes(16).unpack1("H*"),
    "_csrf_token" => [rng.bytes(32)].pack("m0"),
    "warden.user.user.key" => [[42], "$2a$12$" + Array.new(22) { BCRYPT_ALPHABET[rng.rand(64)] }.join],
    "warden.user.user.session" => { "last_request_at" => base.to_i },
    "flash" => { "discard" => [], "flashes" => { "notice" => "Signed in successfully." } },
    "user_return_to" => "/projects/42/issues?page=2&q=#{filler(2, pad).tr(' ', '+')}",
    "locale" => "en",
    "signed_in_at" => 2.hours.ago(base) + 0.123456r  # a plain ::Time with usec
  }
end
write_workload("session_500.bin", session_bytes, session_value)

# --- (c) settings with Symbol keys -----------------------------------------

settings_bytes, settings_value = padded("settings_2k.bin", 2048) do |pad|
  rng = Random.new(2048)
  {
    theme: { mode: :dark, accent: "#3b82f6", font_size: 14, density: :compact, sidebar: true },
    locale: { language: "en-US", timezone: "America/New_York", date_format: "%Y-%m-%d",
              time_format: "%H:%M", first_day_of_week: 1, currency: :usd },
    notifications: {
      email: { digest: :weekly, mentions: true, comments: true, marketing: false, security: true },
      push: { digest: :never, mentions: true, comments: false, marketing: false, security: true },
      slack: { digest: :daily, mentions: true, comments: true, marketing: false, security: false,
               channel: "#alerts", webhook_id: 918_273 }
    },
    editor: { tab_width: 2, soft_tabs: true, line_numbers: true, word_wrap: false,
              keymap: :vim, rulers: [80, 120], font: "JetBrains Mono", autosave_ms: 1500 },
    features: (1..24).to_h { |i| [:"feature_#{i}", rng.rand < 0.5] },
    limits: { max_projects: 50, max_members: 200, storage_gb: 25.5, api_rate_per_minute: 600,
              max_upload_mb: 100, retention_days: 90 },
    dashboards: (1..6).map do |i|
      { id: 1000 + i, name: "Dashboard #{i}", pinned: i.odd?, refresh_s: 30 * i,
        widgets: Array.new(4) { |w| { kind: %i[chart table counter map][w], span: 1 + rng.rand(3) } } }
    end,
    recent_searches: Array.new(8) { |i| "query #{i} #{filler(100 + i, 6)}" },
    notes: filler(3, pad)
  }
end
write_workload("settings_2k.bin", settings_bytes, settings_value)

# --- (d) ActiveSupport values ---------------------------------------------

as_bytes, as_value = padded("as_values_1k.bin", 1024) do |pad|
  t = Time.utc(2024, 3, 5, 12, 34, 56) + 0.789r
  {
    "params" => { "user" => { "name" => "Ada", "roles" => %w[admin editor] }, "page" => 2 }
                  .with_indifferent_access,
    "created_at" => t,
    "updated_at" => t + 3.days,
    "birthday" => Date.new(1990, 12, 10),
    "due_on" => Date.new(2024, 4, 1),
    "price" => BigDecimal("12345.6789"),
    "tax_rate" => BigDecimal("0.0825"),
    "starts_at" => t.in_time_zone("Eastern Time (US & Canada)"),
    "ends_at" => (t + 90.minutes).in_time_zone("Europe/Berlin"),
    "ttl" => 3.days + 4.hours,
    "grace" => 15.minutes,
    "tags" => Set["ruby", "rails", "postgres"],
    "ids" => Set[1, 2, 3, 5, 8, 13],
    "memo" => filler(4, pad)
  }
end
write_workload("as_values_1k.bin", as_bytes, as_value)

# --- (e) 200k short string keys, as test/fixtures/generate.rb builds it -------

big_rng = Random.new(200_000)
big = (0...8).map do |part|
  (0...25_000).to_h { |i| ["k#{(part * 25_000 + i).to_s(36).rjust(4, '0')}".b, big_rng.rand(100)] }
end
big_bytes = Marshal.dump(big)
write_workload("big_200k.bin", big_bytes, big)
fixture = File.join(REPO, "test/fixtures/big_200k.bin")
if File.exist?(fixture)
  same = File.binread(fixture) == big_bytes
  puts "  big_200k.bin #{same ? 'is identical to' : 'DIFFERS from'} test/fixtures/big_200k.bin"
end
