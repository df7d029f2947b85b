# frozen_string_literal: true

# YAML texts shaped as real Rails apps store them in columns, for
# test/yaml/generate.rb ("column ..." cases): PaperTrail versions, Devise-
# and Doorkeeper-style serialized attributes, `serialize :prefs` of
# HashWithIndifferentAccess, Durations, Symbols as values, every block style
# Psych writes for multi-line Strings, Strings Psych must quote, non-ASCII
# and binary Strings, empty collections, and texts of Syck (Ruby 1.8/1.9.2)
# and older Rails that old rows still hold.  Everything but the Syck and
# older Rails texts is written by Ruby (Psych 4, ActiveRecord 6.1 with
# sqlite3 in memory).
require "ipaddr"

module ColumnTexts
  # PaperTrail 12's YAML versions, as its code builds them:
  #   object         YAML.dump(attributes before the change), each value
  #                  through type_for_attribute(name).serialize
  #                  (AttributeSerializers::ObjectAttribute; an enum's
  #                  serialize gives its Integer)
  #   object_changes YAML.dump(saved_changes), each side the same way
  # A datetime's serialize keeps a TimeWithZone whose zone is UTC and gives
  # the UTC Time of any other (Helpers::TimeValue#serialize, default_timezone
  # :utc).
  def self.paper_trail(model, before, saved_changes)
    ser = ->(k, v) { model.type_for_attribute(k).serialize(v) }
    object = before.to_h { |k, v| [k, ser.call(k, v)] }
    changes = saved_changes.to_h { |k, (a, b)| [k, [ser.call(k, a), ser.call(k, b)]] }
    [YAML.dump(object), YAML.dump(changes)]
  end

  def self.setup_db
    ActiveRecord::Base.logger = nil
    ActiveRecord::Base.default_timezone = :utc
    ActiveRecord::Base.time_zone_aware_attributes = true
    ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
    ActiveRecord::Schema.verbose = false
    ActiveRecord::Schema.define do
      create_table :orders do |t|
        t.string :number
        t.text :notes
        t.integer :status, default: 0
        t.decimal :total, precision: 10, scale: 2
        t.float :weight
        t.boolean :gift, default: false
        t.date :ship_on
        t.datetime :paid_at
        t.timestamps
      end
      create_table :users do |t|
        t.string :email
        t.text :otp_backup_codes
        t.text :prefs
        t.text :scopes
        t.integer :sign_in_count, default: 0
        t.datetime :current_sign_in_at
        t.string :current_sign_in_ip
      end
    end
  end

  def self.paper_trail_texts
    out = []
    order = Class.new(ActiveRecord::Base) do
      self.table_name = "orders"
      enum status: { pending: 0, paid: 1, shipped: 2, cancelled: 3 }
      def self.name = "Order"
    end
    ["UTC", "Eastern Time (US & Canada)", "Kolkata", "Tokyo"].each_with_index do |zone, zi|
      Time.zone = zone
      travel = Time.utc(2024, 3, 1, 12, 0, 0) + zi * 86_400
      o = order.new(number: "R#{100 + zi}", notes: "leave at door\nring twice", total: BigDecimal("19.99"),
                    weight: 1.25, ship_on: Date.new(2024, 3, 5 + zi))
      o.created_at = o.updated_at = travel.in_time_zone
      o.save!
      create = paper_trail(order, {}, o.saved_changes)
      out << create[1]
      before = o.attributes
      o.status = :paid
      o.paid_at = (travel + 90.5).in_time_zone
      o.total = BigDecimal("24.5")
      o.gift = true
      o.updated_at = (travel + 91).in_time_zone
      o.save!
      out.concat(paper_trail(order, before, o.saved_changes))
      before = o.attributes
      o.status = :shipped
      o.notes = nil
      o.updated_at = (travel + 3_600).in_time_zone
      o.save!
      out.concat(paper_trail(order, before, o.saved_changes))
      out << paper_trail(order, o.attributes, {})[0] # destroy: object only
    end
    Time.zone = "Eastern Time (US & Canada)"
    out
  end

  # serialize :x with the YAML coder (ActiveRecord::Coders::YAMLColumn#dump)
  def self.serialized_texts
    coder = ActiveRecord::Coders::YAMLColumn.new(:x, Object)
    hwia = ActiveSupport::HashWithIndifferentAccess
    values = [
      # Devise: two-factor backup codes, trackable IPs; Doorkeeper: scopes
      %w[7f3a9c21 0be44d1f 93aa10c7 5d2e8b60 c1f0e7a2],
      { "last_sign_in_ip" => "203.0.113.7", "current_sign_in_ip" => "2001:db8::1", "sign_in_count" => 12 },
      { "ip" => IPAddr.new("192.168.1.0/24"), "v6" => IPAddr.new("2001:db8::1") },
      %w[public read write admin:read],
      { "scopes" => %i[read write], "expires_in" => 7_200, "revoked_at" => nil, "resource_owner_id" => 42 },
      # serialize :prefs, with HashWithIndifferentAccess and nested Arrays
      hwia.new("theme" => "dark", "dashboards" => [{ "id" => 1, "widgets" => %w[a b] }, { "id" => 2, "widgets" => [] }],
               "notify" => { "email" => true, "sms" => false, "quiet_hours" => [22, 7] }, "tags" => [], "filters" => {}),
      hwia.new("locale" => "de", "columns" => [["name", 120], ["email", 240]], "sort" => { "by" => "created_at", "dir" => "desc" }),
      { prefs: hwia.new("a" => [1, [2, [3]]]), "list" => [hwia.new("x" => 1)] },
      # Durations and Symbols as values
      { "ttl" => 30.minutes, "grace" => 1.day + 2.hours, "retry" => [5.seconds, 1.week], "none" => 0.seconds },
      { "role" => :admin, "states" => %i[draft published archived], "default" => :"needs review" },
      # Strings in every block style Psych writes, and Strings it must quote
      { "body" => "line one\nline two\n", "chomped" => "a\nb", "kept" => "a\nb\n\n\n", "indented" => "  code\n    more\n",
        "long" => ("word " * 40).strip, "long_lines" => "#{'x' * 90}\n#{'y y ' * 30}\n", "trailing" => "end \n",
        "leading_nl" => "\nstarts blank", "crlf" => "a\r\nb", "tabbed" => "a\tb\nc" },
      { "yes" => "yes", "no" => "No", "on" => "on", "null" => "null", "tilde" => "~", "hex" => "0x1F", "oct" => "0o17",
        "exp" => "1e3", "float" => "1.5", "int" => "42", "neg" => "-7", "sym" => ":sym", "date" => "2024-03-05",
        "time" => "2024-03-05 10:20:30", "sexagesimal" => "12:30", "empty" => "", "space" => " ", "colon" => "a: b",
        "hash" => "# not a comment", "dash" => "- item", "star" => "*ref", "amp" => "&anchor", "bang" => "!tag",
        "pct" => "%x", "at" => "@x", "backtick" => "`x", "quote" => "'q'", "dq" => "\"dq\"", "braces" => "{a}",
        "brackets" => "[a]", "pipe" => "|", "gt" => ">", "comma" => "1,000", "underscore" => "1_000", "inf" => ".inf",
        "nan" => ".NaN", "true_word" => "True", "y" => "y", "n" => "n" },
      # non-ASCII, binary, empty collections
      { "name" => "Zoë Ångström", "city" => "Zürich", "jp" => "東京都", "emoji" => "🎉 done", "rtl" => "שלום",
        "nbsp" => "a\u00a0b", "zero_width" => "a\u200bb", "bom" => "\ufeffx" },
      { "blob" => "\x89PNG\r\n\x1a\n\x00\x00".b, "latin1" => "caf\xe9".b, "ascii_binary" => "plain".b },
      { "a" => [], "h" => {}, "s" => "", "n" => nil, "nested" => [[], {}, [[]], { "x" => {} }] },
      [], {}, ""
    ]
    values.map { |v| coder.dump(v) }
  end

  # Syck (Ruby 1.8 and 1.9.2's YAML) wrote these forms; Psych still reads them
  SYCK = [
    "--- \n:name: Widget\n:count: 3\n",
    "--- !ruby/object:Money \ncents: 500\ncurrency: USD\n",
    "--- !map:HashWithIndifferentAccess \ntheme: dark\nlist: \n- 1\n- 2\n",
    "--- !map:ActiveSupport::HashWithIndifferentAccess \nuser_id: 7\nflash: !map:ActiveSupport::HashWithIndifferentAccess \n  notice: Saved\n",
    "--- \n- !ruby/sym foo\n- !ruby/symbol bar\n- :baz\n",
    "--- !str:Tagged \nstr: abc\n",
    "--- \nat: 2010-05-04 10:20:30.123456 +02:00\non: 2010-05-04\n",
    "--- \nbody: |-\n  first\n  second\n\ntitle: \"Caf\\xC3\\xA9\"\n",
    "--- !binary |\n  aGVsbG8gd29ybGQ=\n\n",
    "--- \n- \n- ~\n- \"\"\n- \" padded \"\n",
    "--- !ruby/object:OpenStruct \ntable: \n  :a: 1\n  :b: two\n",
    "--- !ruby/struct:Point \nx: 1\ny: 2\n",
    "--- !ruby/object:BigDecimal 18:0.1234E2\n",
    "--- !ruby/object:Set \nhash: \n  1: true\n  2: true\n",
    "--- !ruby/hash-with-ivars \nelements: \n  a: 1\nivars: \n  :@flag: true\n",
    "--- !ruby/hash-with-ivars:MyHash\nelements:\n  k: v\nivars:\n  :@meta:\n    source: import\n",
    "--- !ruby/range \nbegin: 1\nend: 10\nexcl: false\n",
    "--- !timestamp 2010-05-04 10:20:30 Z\n",
    "--- !float 1\n",
    "--- !int 3\n",
    "--- !seq:MyList \n- 1\n- 2\n",
    "--- !ruby/object:ActiveSupport::TimeWithZone \nutc: &id001 2010-05-04 10:20:30.123456 Z\nzone: &id002 " \
    "!ruby/object:ActiveSupport::TimeZone \n  name: UTC\n  tzinfo: !ruby/object:TZInfo::TimezoneProxy \n    " \
    "identifier: Etc/UTC\n  utc_offset: \ntime: *id001\n",
    "--- \n- &id001 \n  a: 1\n- *id001\n"
  ].freeze

  # Forms older Rails wrote that rows still hold: a TimeWithZone as a tagged
  # scalar (Rails 3), a Duration's parts as [unit, n] pairs (Rails 5.0/5.1),
  # a TimeWithZone whose time has an offset, BigDecimal without a precision
  OLD_RAILS = [
    "--- !ruby/object:ActiveSupport::TimeWithZone 2010-05-04 10:20:30.123456 Z\n",
    "--- !ruby/object:ActiveSupport::TimeWithZone\nutc: 2024-03-01 12:00:00.123456000 Z\nzone: " \
    "!ruby/object:ActiveSupport::TimeZone\n  name: America/New_York\ntime: 2024-03-01 07:00:00.123456000 -05:00\n",
    "--- !ruby/object:ActiveSupport::TimeWithZone\nutc: 2024-03-01 12:00:00 +05:30\nzone: " \
    "!ruby/object:ActiveSupport::TimeZone\n  name: Asia/Kolkata\ntime: 2024-03-01 17:30:00 Z\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 3600\n  parts:\n  - - :hours\n    - 1\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 90000\n  parts:\n  - - :days\n    - 1\n  - - :hours\n    - 1\n" \
    "  - - :minutes\n    - 0\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 0\n  parts:\n  - - :days\n    - 0\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 0.0\n  parts:\n    :seconds: 0.0\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 5\n  parts:\n    :seconds: five\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 5\n  parts:\n  - :seconds\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 90061.5\n  parts:\n    :days: 1\n    :hours: 1\n" \
    "    :minutes: 1\n    :seconds: 1.5\n",
    "- !ruby/object:ActiveSupport::Duration\n  value: 3600\n  parts:\n    hours: 1\n",
    "--- !ruby/object:BigDecimal 0.1E1\n",
    "--- !ruby/object:BigDecimal 18:-0.0\n",
    "--- !ruby/object:BigDecimal 9:0.1E-20\n",
    "status: !ruby/symbol active\nrole: :admin\nkind: !ruby/sym 'needs review'\n",
    "--- !ruby/object:Set\nhash: {}\n",
    "--- !ruby/object:Set\nhash:\n  :a: true\n  b: true\n  3: true\n",
    "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n:sym: 1\n1: 2\n~: 3\n",
    "--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess {}\n",
    "--- !ruby/object:IPAddr\nfamily: 2\naddr: 3232235776\nmask_addr: 4294967040\n"
  ].freeze

  # ActionController::Parameters stored by mistake (PaperTrail metadata,
  # serialize :params): Rails 4.2's Hash forms, which ActionController's
  # YAML.load_tags send to init_with, and the object form
  PARAMS = [
    "--- !ruby/hash:ActionController::Parameters\nuser: !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n" \
    "  name: x\n  tags: [a]\nid: '5'\nlist:\n- {a: 1}\n",
    "--- !ruby/hash-with-ivars:ActionController::Parameters\nelements:\n  user: !ruby/hash:ActionController::Parameters\n" \
    "    name: x\n  id: '5'\nivars:\n  :@permitted: true\n",
    "- &p !ruby/hash:ActionController::Parameters\n  a: &l [1, {b: 2}]\n- *p\n- *l\n",
    "--- !ruby/object:ActionController::Parameters\nparameters: !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n" \
    "  id: '5'\npermitted: true\nconverted_arrays: !ruby/object:Set\n  hash: {}\n",
    "--- !ruby/object:ActionController::Parameters\npermitted: true\n",
    "--- !ruby/hash-with-ivars:ActionController::Parameters\nelements:\n  a: 1\nivars: {}\n",
    "--- !ruby/hash-with-ivars:ActionController::Parameters\nivars: {}\n"
  ].freeze

  # Strings of the characters that decide Psych's style (plain, quoted,
  # literal with an indentation indicator or chomping, folded), in the
  # containers columns hold
  def self.string_texts
    r = Random.new(7)
    parts = ["a", "word", " ", "  ", "\n", "\n\n", "\t", "é", "日本", ":", ": ", "#", " #", "-", "- ", "'", "\"",
             "\\", "yes", "1", "0x1F", "1e3", "~", "null", "|", ">", "&", "*", "!", "%", "@", "`", "{", "}", "[", "]",
             ",", "?", "\r\n", "\r", "\u2028", "\u0085", "\u00a0", "\x7f", "\x01", "---", "...", "x" * 85]
    Array.new(200) do |i|
      s = Array.new(1 + r.rand(8)) { parts[r.rand(parts.size)] }.join
      [s, { "k" => s, s => 1 }, [s, { "n" => [s + "\n"] }],
       ActiveSupport::HashWithIndifferentAccess.new("body" => s, "list" => [s])][i % 4].to_yaml
    end
  end

  def self.texts
    setup_db
    paper_trail_texts + serialized_texts + SYCK + OLD_RAILS + string_texts + PARAMS
  end
end
