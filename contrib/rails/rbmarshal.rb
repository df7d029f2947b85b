# frozen_string_literal: true

# rbmarshal columns in Active Record's postgresql adapter (Rails 6.1 to 7.2).
#
# Load it from an initializer, config/initializers/rbmarshal.rb:
#
#   require Rails.root.join("vendor/rbmarshal/rbmarshal.rb").to_s
#
# Without it Active Record does not know the rbmarshal OID: reads give the
# type's text form (\x hex) and writes send Ruby's bytes as text, which the
# type's input refuses.  With it an rbmarshal column is read and written as
# Marshal bytes (a binary String), the way bytea is: the type's text form is
# bytea's hex form, so bytea's decoder reads it, and values are sent as binary
# parameters (or bytea's \x literal when statements are not prepared), which
# the type's receive (input) function validates.
#
# What it adds:
#   - the rbmarshal type in every postgresql connection's type map (by name,
#     so the OID is found whenever the extension was created);
#   - t.rbmarshal / add_column ..., :rbmarshal in migrations, and schema.rb
#     dumping and loading such columns;
#   - attribute :name, :rbmarshal for virtual attributes;
#   - Rbmarshal::Coder, a Marshal coder that keeps nil as SQL NULL, for
#     serialize and for activerecord-session_store's serializer option;
#   - schema.rb leaves out the extension's own tables (rbmarshal_migration_*):
#     CREATE EXTENSION makes them, and create_table ... force: :cascade on
#     them would fail when the schema is loaded.

require "active_record"
require "active_record/connection_adapters/postgresql_adapter"

module Rbmarshal
  # Marshal bytes, read and written as bytea is.
  class Type < ActiveRecord::ConnectionAdapters::PostgreSQL::OID::Bytea
    # schema.rb writes t.rbmarshal for the column
    def type
      :rbmarshal
    end

    # Only bytes go in: a Ruby object would be sent as its to_s and refused
    # by the database with a message about Marshal data, far from its cause.
    def serialize(value)
      case value
      when nil, ::String, ActiveModel::Type::Binary::Data
        super
      else
        raise TypeError, "an rbmarshal attribute takes Marshal bytes (a String from Marshal.dump), " \
          "not #{value.class}; for Ruby objects use serialize with Rbmarshal::Coder"
      end
    end
  end

  # Marshal.dump / Marshal.load, with nil kept as SQL NULL (Marshal.load(nil)
  # raises, which Rails 6.1's serialize calls to find the default value).
  module Coder
    def self.dump(value)
      Marshal.dump(value) unless value.nil?
    end

    def self.load(bytes)
      Marshal.load(bytes) unless bytes.nil?
    end
  end

  module Adapter
    def native_database_types
      @rbmarshal_native_database_types ||= super.merge(rbmarshal: { name: "rbmarshal" }).freeze
    end

    private

    # Registered by name before the adapter's own types: its pg_type query
    # (at connect, or for an OID first seen in a result) then maps the
    # extension's OID, and _rbmarshal's, to this type.
    def initialize_type_map(m = type_map)
      m.register_type "rbmarshal", Rbmarshal::Type.new
      super
    end
  end

  module ColumnMethods
    def rbmarshal(*names, **options)
      names.each { |name| column(name, :rbmarshal, **options) }
    end
  end
end

ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.prepend Rbmarshal::Adapter
ActiveRecord::ConnectionAdapters::PostgreSQL::TableDefinition.include Rbmarshal::ColumnMethods
ActiveRecord::ConnectionAdapters::PostgreSQL::Table.include Rbmarshal::ColumnMethods
ActiveRecord::Type.register(:rbmarshal, Rbmarshal::Type, adapter: :postgresql)
ActiveRecord::SchemaDumper.ignore_tables |= %w[rbmarshal_migration_progress rbmarshal_migration_errors]
