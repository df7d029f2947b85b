#!/usr/bin/env ruby
# frozen_string_literal: true
#
# The Ruby side of the UPDATE comparison in bench/db.sh: what a team does
# today without rbmarshal.  Reads a bytea Marshal column with the pg gem in
# batches, Marshal.load + ActiveSupport::JSON.encode each row, and writes the
# jsonb back with one UPDATE per batch.  Connects with the libpq environment
# (PGHOST, PGPORT, PGDATABASE, ...).
#
#   ruby bench/db_ruby_convert.rb TABLE [BATCH]

require "pg"
require "active_support"
require "active_support/json"
require "active_support/core_ext/object/json"

table = ARGV[0] or abort "usage: db_ruby_convert.rb TABLE [BATCH]"
batch = Integer(ARGV[1] || 1000)
conn = PG.connect
conn.type_map_for_results = PG::BasicTypeMapForResults.new(conn)
last = -1
loop do
  rows = conn.exec_params("SELECT id, data FROM #{table} WHERE id > $1 ORDER BY id LIMIT $2",
                          [last, batch]).to_a
  break if rows.empty?

  ids = []
  docs = []
  rows.each do |r|
    ids << r["id"]
    docs << ActiveSupport::JSON.encode(Marshal.load(r["data"]))
  end
  conn.exec_params("UPDATE #{table} t SET j_ruby = x.j::jsonb " \
                   "FROM unnest($1::bigint[], $2::text[]) AS x(id, j) WHERE t.id = x.id",
                   [PG::TextEncoder::Array.new.encode(ids), PG::TextEncoder::Array.new.encode(docs)])
  last = ids.last
end
