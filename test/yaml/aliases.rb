# frozen_string_literal: true

# YAML texts whose aliases Psych and the classes' own code turn into shared
# objects (or copies): test/yaml/generate.rb adds them as "alias ..." cases,
# and the oracle says how Marshal.dump links each.  Written by hand where the
# shape is one Ruby no longer writes (Rails 4/5 with TZInfo 1 wrote a UTC
# TimeWithZone's time as an alias of its utc), else by to_yaml of values that
# share objects, as Rails does (every TimeWithZone of a request holds the
# one Time.zone).
module AliasTexts
  TWZ = "!ruby/object:ActiveSupport::TimeWithZone"
  ZONE = "!ruby/object:ActiveSupport::TimeZone"

  def self.twz(utc, zone, time, ind = "  ")
    "#{TWZ}\n#{ind}utc: #{utc}\n#{ind}zone: #{zone}\n#{ind}time: #{time}\n"
  end

  def self.zone(name, ind = "    ")
    "#{ZONE}\n#{ind}name: #{name}"
  end

  HAND = [
    # TimeWithZone: utc in UTC mode is kept, so time: *utc is a link
    "updated_at:\n- #{twz('&1 2024-03-01 12:00:00.000000000 Z', "&2 #{zone('Etc/UTC')}", '*1')}" \
    "- #{twz('&3 2024-03-02 12:00:00.000000000 Z', '*2', '*3')}",
    "--- #{twz('&1 2024-03-01 12:00:00.000000000 +01:00', zone('Etc/UTC', '  '), '*1', '')}",
    "--- #{twz('&1 2024-03-01 12:00:00.000000000', zone('Etc/UTC', '  '), '*1', '')}",
    "--- #{twz('&1 2024-03-01 12:00:00.000000000 +00:00', zone('Etc/UTC', '  '), '*1', '')}",
    "- &u 2024-03-01 12:00:00.000000000 Z\n- #{twz('*u', zone('Etc/UTC'), '&t 2024-03-01 13:00:00.000000000 Z')}" \
    "- *t\n- *u\n",
    "- &w #{twz('2024-03-01 12:00:00.000000000 Z', zone('America/New_York'), '2024-03-01 07:00:00.000000000 Z')}- *w\n",
    "- &z #{zone('&n Europe/Berlin', '  ')}\n- #{twz('2024-03-01 12:00:00.000000000 Z', '*z', '2024-03-01 13:00:00.000000000 Z')}" \
    "- *n\n- *z\n",
    "- #{twz('&1 2024-03-01 12:00:00.000000000 Z', zone('Etc/UTC'), '*1')}- *1\n",
    "- #{twz('&1 2024-03-01 12:00:00.000000000 Z', "&2 #{zone('Etc/UTC')}", '*1')}" \
    "- #{twz('&3 2024-03-01 12:00:00.000000000 Z', '*2', '*1')}",
    "- #{twz('&1 2024-03-01 12:00:00.000000000 Z', "&2 #{zone('UTC')}", '*1')}" \
    "- #{twz('*1', '*2', '*1')}- *2\n",
    "--- #{zone('Eastern Time (US & Canada)', '')}\n",
    "--- #{zone('US/Eastern', '')}\n",
    "- #{zone('UTC', '  ')}\n- #{zone('Etc/UTC', '  ')}\n",
    # Date, DateTime, Time scalars
    "- &d 2024-03-05\n- *d\n- [*d, *d]\n",
    "- &d !ruby/object:DateTime 2024-03-05 10:20:30.5 +02:00\n- *d\n",
    "- &t 2024-03-05 10:20:30 +01:00\n- *t\n- &u 2024-03-05 10:20:30\n- *u\n- 2024-03-05 10:20:30 Z\n" \
    "- &z 2024-03-05 10:20:31 Z\n- *z\n",
    # HashWithIndifferentAccess: a Hash value becomes a new one each time, an
    # Array is converted in place (so every alias sees the converted Hashes)
    "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: &x\n- b: 1\nb: *x\nc: &h {d: 1}\ne: *h\n",
    "- &x\n  - b: 1\n- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  a: *x\n- *x\n",
    "- &h {d: 1}\n- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  a: *h\n  b: *h\n- *h\n",
    "- &w !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  a: 1\n" \
    "- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  x: *w\n  y: [*w]\n- *w\n",
    "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: &x [1, [2]]\nb: *x\n",
    "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: &x [[{k: 1}]]\nb: *x\n",
    "- &h\n  a: 1\n- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  <<: *h\n  b: *h\n- *h\n",
    "- &h !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  self: *h\n  list: [*h]\n",
    "- &a [1]\n- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n  x: &b [*a, {k: *a}]\n  y: *b\n- *b\n",
    # Set, Range, Struct, exceptions, OpenStruct, Duration, numbers
    "- &h {a: 1}\n- !ruby/object:Set\n  hash: *h\n- *h\n",
    "- !ruby/object:Set\n  hash: &h\n    1: true\n- !ruby/object:Set\n  hash: *h\n",
    "- &s !ruby/object:Set\n  hash:\n    x: true\n- *s\n",
    "- !ruby/range\n  begin: &b 2024-03-05\n  end: *b\n  excl: false\n- *b\n",
    "- &r !ruby/range\n  begin: a\n  end: z\n  excl: true\n- *r\n- &q !ruby/range 1..5\n- *q\n",
    "- !ruby/range\n  begin: &b abc\n  end: &e abd\n  excl: false\n- *b\n- *e\n",
    "- &p !ruby/struct:Point\n  x: &v [1]\n  y: *v\n- *p\n- *v\n",
    "- &p !ruby/struct:Pair\n  left: *p\n  right: 1\n",
    # Psych never registers an exception's anchor
    "- &e !ruby/exception:AppError\n  message: m\n- *e\n",
    "- !ruby/exception:AppError\n  message: &m boom\n  backtrace: &b\n  - a.rb:1\n- *m\n- *b\n",
    "- !ruby/exception:AppError\n  message: m\n  data: &d [1]\n- *d\n",
    "- !ruby/object:OpenStruct\n  a: &x [1]\n  b: *x\n- *x\n",
    "- &o !ruby/object:OpenStruct\n  table: &t\n    :a: 1\n- *o\n- *t\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: &v 259200\n  parts: &p\n    :days: 3\n    :hours: 0\n- *p\n- *v\n",
    "- &d !ruby/object:ActiveSupport::Duration\n  value: 60\n  parts:\n    :minutes: 1\n- *d\n",
    "- !ruby/object:Complex\n  real: &r 1.5\n  image: *r\n- *r\n",
    "- &c !ruby/object:Complex\n  real: 1\n  image: 2\n- *c\n- &q !ruby/object:Rational 1/3\n- *q\n",
    "- !ruby/string:Tagged\n  str: &s abc\n- *s\n",
    "- &t !ruby/string:Tagged\n  str: abc\n  '@x': 1\n- *t\n",
    "- !ruby/array:MyList\n  internal: &i [1, 2]\n  ivars: {}\n- *i\n",
    "- &l !ruby/array:MyList\n  internal: [1, *l]\n  ivars: {'@me': *l}\n",
    "- &h !ruby/hash-with-ivars\n  elements:\n    a: *h\n  ivars:\n    '@x': *h\n- *h\n",
    "- &b !ruby/object:BigDecimal 18:0.15e1\n- *b\n- &x !ruby/regexp /a/i\n- *x\n",
    "- &s !ruby/sym foo\n- *s\n- &y :bar\n- *y\n- &k !ruby/class String\n- *k\n",
    "- &s !set\n  a: &v [1]\n- *s\n- *v\n- &o !omap\n  - x: *v\n- *o\n",
    "- &m !ruby/object:Money\n  cents: &c 12.5\n  currency: &u USD\n- *m\n- *c\n- *u\n" \
    "- !ruby/object:Money\n  cents: *c\n  currency: *u\n",
    "- &w !ruby/object:Widget\n  name: x\n  parts: [*w]\n  owner: *w\n",
    "- &e !ruby/encoding UTF-8\n- *e\n- &f 1.5\n- *f\n- &i 12\n- *i\n- &n .nan\n- *n\n",
    "- !binary &b aGVsbG8=\n- *b\n- &c !binary aGVsbG8=\n- *c\n",
    "- &x !!str 123\n- *x\n- &y !ruby/string:String abc\n- *y\n"
  ].freeze

  # to_yaml of values sharing objects as a Rails app's do
  def self.made
    utc = ActiveSupport::TimeZone["UTC"]
    east = ActiveSupport::TimeZone["Eastern Time (US & Canada)"]
    kolkata = ActiveSupport::TimeZone["Kolkata"]
    u = Time.utc(2024, 3, 1, 12, 0, 0, 250_000)
    out = []
    # Rails 4/5 (TZInfo 1): a UTC TimeWithZone's time was its utc
    out << ActiveSupport::TimeWithZone.new(u, utc, u)
    out << { "created_at" => [nil, ActiveSupport::TimeWithZone.new(u, utc, u)],
             "updated_at" => [ActiveSupport::TimeWithZone.new(u - 60, utc, u - 60),
                              ActiveSupport::TimeWithZone.new(u, utc, u)] }
    # one zone object in many TimeWithZones, in three zones
    [utc, east, kolkata].each do |z|
      out << Array.new(12) { |i| (u + i * 3_600).in_time_zone(z) }
      out << { "history" => Array.new(5) { |i| { "at" => (u + i * 86_400).in_time_zone(z), "by" => i } },
               "zone" => z }
    end
    t = u.in_time_zone(east)
    out << [t, t, { "again" => t }]
    out << [u, u.in_time_zone(utc), u]
    d = Date.new(2024, 3, 5)
    dt = DateTime.new(2024, 3, 5, 10, 20, 30, "+02:00")
    out << { "from" => d, "to" => d, "range" => (d..d), "at" => [dt, dt] }
    list = %w[a b]
    h = { "x" => 1 }
    out << ActiveSupport::HashWithIndifferentAccess.new("list" => list, "again" => list, "h" => h, "h2" => h)
    s = Set[1, 2]
    out << { "s" => s, "t" => s, "r" => (1..s.size) }
    e = AppError.new("boom")
    e.set_backtrace(bt = ["a.rb:1"])
    out << [e, e, bt]
    dur = 3.days
    out << { "ttl" => dur, "again" => dur, "parts" => [dur, 2.hours] }
    big = BigDecimal("12.34")
    out << { "price" => big, "total" => big, "list" => [big] }
    str = +"shared"
    out << { "a" => str, "b" => str, "c" => Pair.new(str, str), "d" => Point.new(str, [str]) }
    out.map(&:to_yaml)
  end

  def self.texts
    HAND + made
  end
end
