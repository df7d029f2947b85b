# frozen_string_literal: true

# A Rails app's models on rbmarshal columns, through contrib/rails/rbmarshal.rb
# and Active Record's postgresql adapter (Debian's 6.1 in CI; 7.2 when its
# source is put on the load path, see run.sh).  Run by run.sh inside a
# throwaway cluster: RBM_DATABASE names an empty database, RBM_PREPARED
# (1 or 0) whether statements are prepared (binary parameters) or not (bytea
# \x literals in the SQL).

require "minitest/autorun"
require "base64"
require "stringio"
require_relative "../../contrib/rails/rbmarshal"

CONFIG = {
  adapter: "postgresql", database: ENV.fetch("RBM_DATABASE"),
  prepared_statements: ENV.fetch("RBM_PREPARED", "1") == "1"
}.freeze
ActiveRecord::Base.establish_connection(CONFIG)
ActiveRecord::Migration.verbose = false
AR6 = ActiveRecord::VERSION::MAJOR < 7

def conn
  ActiveRecord::Base.connection
end

class Entry < ActiveRecord::Base; end

class Pref < ActiveRecord::Base
  # Rails 7.1 took the coder as a keyword and 7.2 only so
  AR6 ? serialize(:settings, Rbmarshal::Coder) : serialize(:settings, coder: Rbmarshal::Coder)
end

# The shape of activerecord-session_store's Session model: `data` is read
# lazily through the class's serializer (load/dump) and written back before
# save; the gem's default serializer is Base64.encode64(Marshal.dump(data)).
class AppSession < ActiveRecord::Base
  self.table_name = "sessions"
  cattr_accessor :serializer
  before_save { write_attribute(:data, serializer.dump(@data)) if @data }
  attr_writer :data

  def data
    @data ||= (raw = read_attribute(:data)) && serializer.load(raw) || {}
  end
end

module Base64Marshal
  def self.dump(value) = Base64.encode64(Marshal.dump(value))
  def self.load(text) = Marshal.load(Base64.decode64(text))
end

class CacheEntry < ActiveRecord::Base; end

class CreateTables < ActiveRecord::Migration[6.1]
  def change
    enable_extension "rbmarshal"
    create_table :entries, force: true do |t|
      t.string :key
      t.rbmarshal :value
    end
    create_table :prefs, force: true do |t|
      t.rbmarshal :settings
    end
    # the gem's migration template
    create_table :sessions, force: true do |t|
      t.string :session_id, null: false
      t.text :data
      t.timestamps
    end
    add_index :sessions, :session_id, unique: true
    # a database cache store's table: bytea of Marshal.dump(value)
    create_table :cache_entries, force: true do |t|
      t.string :key, null: false, index: { unique: true }
      t.binary :value
      t.string :version
      t.datetime :expires_at
    end
  end
end

class ConvertCacheValue < ActiveRecord::Migration[6.1]
  def change
    change_column :cache_entries, :value, :rbmarshal, using: "value::rbmarshal"
  end
end

# Live sync while the backfill runs: a trigger fills data_m on every write;
# a value the type refuses leaves NULL rather than failing the app's write.
class AddSessionDataM < ActiveRecord::Migration[6.1]
  def up
    add_column :sessions, :data_m, :rbmarshal
    execute <<~SQL
      CREATE FUNCTION sessions_sync_data_m() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.data_m := CASE WHEN rbmarshal_is_valid(NEW.data) THEN NEW.data::rbmarshal END;
        RETURN NEW;
      END $$;
      CREATE TRIGGER sessions_sync_data_m BEFORE INSERT OR UPDATE OF data ON sessions
        FOR EACH ROW EXECUTE FUNCTION sessions_sync_data_m();
    SQL
  end
end

# rbmarshal_migrate commits after each batch: it cannot run inside the
# transaction Rails wraps a migration in.
class BackfillSessionDataM < ActiveRecord::Migration[6.1]
  disable_ddl_transaction!

  def up
    execute "CALL rbmarshal_migrate('sessions', 'data', 'data_m', batch_size => 2, target_type => 'rbmarshal')"
    bad = select_value("SELECT count(*) FROM rbmarshal_migration_check('sessions', 'data', 'data_m',
                                                                        target_type => 'rbmarshal')")
    raise "#{bad} sessions did not convert: see rbmarshal_migration_errors" unless bad.to_i.zero?
  end
end

class BackfillInTransaction < ActiveRecord::Migration[6.1]
  def up
    execute "CALL rbmarshal_migrate('sessions', 'data', 'data_m', target_type => 'rbmarshal')"
  end
end

# The switch, in one transaction: the rbmarshal column takes the name.
class SwapSessionData < ActiveRecord::Migration[6.1]
  def up
    execute "DROP TRIGGER sessions_sync_data_m ON sessions"
    execute "DROP FUNCTION sessions_sync_data_m()"
    rename_column :sessions, :data, :data_base64
    rename_column :sessions, :data_m, :data
    change_column_null :sessions, :data_base64, true
  end
end

# Migrations run as `rails db:migrate` runs them: through the Migrator,
# each in a transaction unless it disables that.
MIGRATION_VERSIONS = (1..).each

def migrate(*classes)
  migrations = classes.map { |k| k.new(k.name, MIGRATION_VERSIONS.next) }
  pool = ActiveRecord::Base.connection_pool
  books = AR6 ? [conn.schema_migration] : [pool.schema_migration, pool.internal_metadata]
  ActiveRecord::Migrator.new(:up, migrations, *books).migrate
end

class RbmarshalAppTest < Minitest::Test
  i_suck_and_my_tests_are_order_dependent!

  VALUE = { "user_id" => 42, "name" => "Ann\u00e9", roles: [:admin], "score" => 1.5 }.freeze

  def self.test_order = :sorted

  def test_00_migration_creates_rbmarshal_columns
    migrate(CreateTables)
    columns = conn.select_rows("SELECT table_name || '.' || column_name FROM information_schema.columns
                                  WHERE udt_name = 'rbmarshal' ORDER BY 1").flatten
    assert_equal %w[entries.value prefs.settings], columns
    assert_equal :rbmarshal, Entry.columns_hash["value"].type
  end

  def test_01_create_and_read_give_marshal_bytes
    bytes = Marshal.dump(VALUE)
    e = Entry.create!(key: "a", value: bytes)
    got = Entry.find(e.id).value
    assert_equal Encoding::BINARY, got.encoding
    assert_equal bytes.b, got
    assert_equal VALUE, Marshal.load(got)
    # the database holds the same bytes
    assert_equal bytes.unpack1("H*"), conn.select_value("SELECT encode(value::bytea, 'hex') FROM entries WHERE id = #{e.id}")
  end

  def test_02_sql_navigation_and_where_on_arrow
    Entry.create!(key: "b", value: Marshal.dump({ "user_id" => 7, "name" => "Bo", roles: [] }))
    assert_equal %w[a], Entry.where("value ->> 'user_id' = ?", "42").pluck(:key)
    assert_equal %w[a b], Entry.where("(value -> 'user_id')::int > ?", 1).order(:key).pluck(:key)
    assert_equal %w[b], Entry.where("value ->> 'name' = ?", "Bo").pluck(:key)
    assert_equal ["Ann\u00e9"], Entry.where(key: "a").pluck(Arel.sql("value ->> 'name'"))
    assert_equal [{ "user_id" => 42, "name" => "Ann\u00e9", "roles" => ["admin"], "score" => 1.5 }],
                 Entry.where(key: "a").pluck(Arel.sql("value::jsonb AS j"))
  end

  def test_03_computed_rbmarshal_columns_are_bytes_too
    row = Entry.select("key, value -> 'roles' AS roles").find_by(key: "a")
    assert_equal [:admin], Marshal.load(row.roles)
  end

  def test_04_where_by_value_and_update
    bytes = Marshal.dump(VALUE)
    assert_equal %w[a], Entry.where(value: bytes).pluck(:key)
    e = Entry.find_by(key: "a")
    e.update!(value: Marshal.dump(VALUE.merge("user_id" => 43)))
    assert_equal 43, Marshal.load(e.reload.value)["user_id"]
    assert_equal "43", Entry.where(key: "a").pick(Arel.sql("value ->> 'user_id'"))
    assert_empty Entry.where(value: bytes)
  end

  def test_05_nil_is_null
    e = Entry.create!(key: "nil", value: nil)
    assert_nil e.reload.value
    assert conn.select_value("SELECT value IS NULL FROM entries WHERE id = #{e.id}")
    assert_equal %w[nil], Entry.where(value: nil).pluck(:key)
    # Ruby's nil as a value is Marshal bytes, not NULL
    e.update!(value: Marshal.dump(nil))
    assert_equal "\x04\x080".b, e.reload.value
  end

  def test_06_bad_bytes_are_refused_by_the_database
    err = assert_raises(ActiveRecord::StatementInvalid) { Entry.create!(key: "bad", value: "not marshal") }
    assert_match(/invalid Marshal data/, err.message)
    err = assert_raises(ActiveRecord::StatementInvalid) { Entry.create!(key: "bad", value: "\x04\x08[\x07i\x06".b) }
    assert_match(/invalid Marshal data/, err.message)
    assert_raises(TypeError) { Entry.create!(key: "bad", value: { "a" => 1 }) }
    assert_nil Entry.find_by(key: "bad")
  end

  def test_07_insert_all_and_dirty_tracking
    rows = (1..3).map { |i| { key: "bulk#{i}", value: Marshal.dump({ "i" => i }) } }
    Entry.insert_all(rows)
    assert_equal [1, 2, 3], Entry.where("key LIKE 'bulk%'").order(:key).map { |e| Marshal.load(e.value)["i"] }
    e = Entry.find_by(key: "bulk1")
    e.value = e.value.dup
    refute e.changed?, "the same bytes are no change"
    e.value = Marshal.dump({ "i" => 10 })
    assert e.changed?
  end

  def test_08_virtual_attribute_of_type_rbmarshal
    klass = Class.new(ActiveRecord::Base) do
      self.table_name = "entries"
      attribute :first_role, :rbmarshal
    end
    row = klass.select("id, value -> 'roles' -> 0 AS first_role").find_by(key: "a")
    assert_equal :admin, Marshal.load(row.first_role)
  end

  def test_10_serialize_with_a_marshal_coder
    settings = { theme: "dark", "langs" => %w[en fr], "since" => Time.utc(2024, 3, 5, 14, 7, 9) }
    pref = Pref.create!(settings: settings)
    assert_equal settings, pref.reload.settings
    assert_equal "dark", Pref.where(id: pref.id).pick(Arel.sql("settings ->> 'theme'"))
    assert_equal "2024-03-05 14:07:09+00",
                 conn.select_value("SELECT (settings -> 'since')::timestamptz AT TIME ZONE 'UTC' || '+00' FROM prefs")
    # a change in place is seen and saved
    pref.settings["langs"] << "de"
    pref.save!
    assert_equal %w[en fr de], Pref.find(pref.id).settings["langs"]
    assert_equal 1, Pref.where("settings -> 'langs' ->> 2 = 'de'").count
    # nil stays NULL (Marshal itself cannot be the coder: Rails 6.1 and 7.2
    # both call coder.load(nil), and Marshal.load(nil) raises)
    empty = Pref.create!(settings: nil)
    assert_nil empty.reload.settings
    assert conn.select_value("SELECT settings IS NULL FROM prefs WHERE id = #{empty.id}")
  end

  def sessions_with_base64_serializer
    AppSession.serializer = Base64Marshal
    { "s1" => 1, "s2" => 2, "s3" => 3 }.each do |sid, uid|
      AppSession.create!(session_id: sid,
                         data: { "session_id" => sid, "warden.user.user.key" => [[uid], "$2a$12$salt"],
                                 "flash" => { "discard" => [], "flashes" => { "notice" => "hi #{uid}" } } })
    end
  end

  def test_20_session_store_legacy_text_column_queried_in_place
    sessions_with_base64_serializer
    assert_match(/\ABAh7/, conn.select_value("SELECT data FROM sessions WHERE session_id = 's1'"))
    assert_equal %w[s2], AppSession.where("(data::rbmarshal #>> '{warden.user.user.key,0,0}')::int = ?", 2)
                                    .pluck(:session_id)
    assert_equal "hi 3", AppSession.where(session_id: "s3")
                                   .pick(Arel.sql("data::rbmarshal #>> '{flash,flashes,notice}'"))
  end

  def test_21_session_store_live_sync_backfill_and_switch
    migrate(AddSessionDataM)
    AppSession.reset_column_information
    # backfill inside a migration's transaction: refused (the procedure commits)
    err = assert_raises(StandardError) { migrate(BackfillInTransaction) }
    assert_match(/invalid transaction termination/, err.message)
    assert_equal 0, AppSession.where.not(data_m: nil).count
    # the app keeps writing while the backfill has not run: the trigger syncs
    AppSession.serializer = Base64Marshal
    s = AppSession.find_by(session_id: "s1")
    s.data["flash"] = { "discard" => [], "flashes" => { "notice" => "updated" } }
    s.save!
    AppSession.create!(session_id: "s4", data: { "session_id" => "s4", "warden.user.user.key" => [[4], "x"] })
    assert_equal 2, AppSession.where.not(data_m: nil).count
    migrate(BackfillSessionDataM)
    assert_equal 4, AppSession.where.not(data_m: nil).count
    assert_empty conn.select_rows("SELECT * FROM rbmarshal_migration_check('sessions', 'data', 'data_m',
                                     target_type => 'rbmarshal')")
    assert_equal "updated", AppSession.where(session_id: "s1").pick(Arel.sql("data_m #>> '{flash,flashes,notice}'"))
    # the switch: the app reads and writes Marshal bytes through Rbmarshal::Coder
    migrate(SwapSessionData)
    AppSession.reset_column_information
    AppSession.serializer = Rbmarshal::Coder
    assert_equal :rbmarshal, AppSession.columns_hash["data"].type
    s4 = AppSession.find_by(session_id: "s4")
    assert_equal [[4], "x"], s4.data["warden.user.user.key"]
    s4.data["user_return_to"] = "/orders"
    s4.save!
    AppSession.create!(session_id: "s5", data: { "session_id" => "s5", "warden.user.user.key" => [[5], "y"] })
    assert_equal %w[s4], AppSession.where("data ->> 'user_return_to' = ?", "/orders").pluck(:session_id)
    assert_equal [1, 2, 3, 4, 5], AppSession.order(:session_id).pluck(Arel.sql("(data #>> '{warden.user.user.key,0,0}')::int"))
  end

  def test_22_generated_column_keeps_a_text_column_in_sync
    conn.create_table(:legacy_sessions, force: true) { |t| t.text :data }
    conn.execute("ALTER TABLE legacy_sessions ADD COLUMN data_m rbmarshal GENERATED ALWAYS AS (data::rbmarshal) STORED")
    klass = Class.new(ActiveRecord::Base) { self.table_name = "legacy_sessions" }
    row = klass.create!(data: Base64Marshal.dump({ "user_id" => 9 }))
    assert_equal({ "user_id" => 9 }, Marshal.load(row.reload.data_m))
    row.update!(data: Base64Marshal.dump({ "user_id" => 10 }))
    assert_equal "10", klass.where(id: row.id).pick(Arel.sql("data_m ->> 'user_id'"))
    # Rails 6.1's schema.rb writes a generated column as a DEFAULT, which cannot load
    conn.drop_table(:legacy_sessions)
  end

  def test_30_cache_table_converted_in_place
    CacheEntry.create!(key: "views/products/1", value: Marshal.dump({ "title" => "Mug", "price" => 12 }),
                       version: "1", expires_at: Time.now + 3600)
    CacheEntry.create!(key: "old", value: Marshal.dump("gone"), expires_at: Time.now - 60)
    migrate(ConvertCacheValue)
    CacheEntry.reset_column_information
    assert_equal :rbmarshal, CacheEntry.columns_hash["value"].type
    live = CacheEntry.where("expires_at IS NULL OR expires_at > now()").pluck(:key)
    assert_equal %w[views/products/1], live
    assert_equal({ "title" => "Mug", "price" => 12 }, Marshal.load(CacheEntry.find_by(key: live.first).value))
    assert_equal %w[views/products/1], CacheEntry.where("value ->> 'title' = ?", "Mug").pluck(:key)
    CacheEntry.create!(key: "new", value: Marshal.dump([1, 2]))
    assert_equal [1, 2], Marshal.load(CacheEntry.find_by(key: "new").value)
  end

  # Rails 6.1's cache format: Marshal of ActiveSupport::Cache::Entry
  if AR6
    def test_31_cache_entry_objects_of_rails_6_1
      entry = ActiveSupport::Cache::Entry.new({ "title" => "Mug" }, expires_in: 3600, version: "v2")
      CacheEntry.create!(key: "entry", value: Marshal.dump(entry))
      value, version, fmt = conn.select_rows("SELECT (e).value ->> 'title', (e).version, (e).format
                                                FROM (SELECT rbmarshal_cache_entry(value::bytea) e
                                                        FROM cache_entries WHERE key = 'entry') t").first
      assert_equal ["Mug", "v2"], [value, version]
      assert_equal "6.1", fmt
      assert Marshal.load(CacheEntry.find_by(key: "entry").value).is_a?(ActiveSupport::Cache::Entry)
    end
  end

  def schema_dump
    io = StringIO.new
    ActiveRecord::SchemaDumper.dump(AR6 ? conn : ActiveRecord::Base.connection_pool, io)
    io.string
  end

  def test_40_schema_rb_dumps_and_loads
    schema = schema_dump
    assert_includes schema, 'enable_extension "rbmarshal"'
    assert_includes schema, 't.rbmarshal "value"'
    refute_includes schema, "rbmarshal_migration_"
    refute_includes schema, "Could not dump"
    conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    eval(schema) # rubocop:disable Security/Eval -- the dump just made
    Entry.reset_column_information
    assert_equal :rbmarshal, Entry.columns_hash["value"].type
    Entry.create!(key: "after load", value: Marshal.dump([1]))
    assert_equal [1], Marshal.load(Entry.find_by(key: "after load").value)
  end
end
