#!/usr/bin/env ruby
# frozen_string_literal: true
#
# MRI's side of the benchmark: the same workload files through Ruby itself.
#
#   ruby bench/bench_mri.rb [-w WARMUP] [-p PASSES] [-t TARGET_MS] FILE...
#
# For every FILE (a raw Marshal stream) it times
#
#   load   Marshal.load(b)
#   dump   Marshal.dump(Marshal.load(b))
#   json   JSON.generate(Marshal.load(b)), or ActiveSupport::JSON.encode(...)
#          for the ActiveSupport workload (as_values_*)
#
# with the protocol of bench_codec.c: calibrate `reps` so one pass takes at
# least TARGET_MS (20 ms), WARMUP (3) untimed passes (then more reps if even
# the fastest fell short of the target), PASSES (25) timed ones;
# ns/op = pass time / reps (CLOCK_MONOTONIC); best and median over passes.
# GC.start runs before every pass, outside the timed region, so each pass
# starts from the same heap; the GC work an op causes is inside its time.
#
# ActiveSupport is loaded only when a workload needs it (as_values_*), and
# then only the parts that value uses: not active_support/all, whose
# core_ext/marshal would wrap Marshal.load in a Ruby-level retry method.
# Run one process per workload (bench/run.sh does) so that loading
# ActiveSupport for one workload does not change the others.
#
# Output: tab-separated lines as bench_codec.c prints them:
#   R mri <workload> <op> <bytes> <reps> <best_ns> <median_ns>
# plus an "E" line with the measured cost of the empty timing loop.

require "json"

warmup = 3
passes = 25
target_ms = 20.0
while ARGV.size > 1 && ARGV[0].start_with?("-")
  case ARGV.shift
  when "-w" then warmup = Integer(ARGV.shift)
  when "-p" then passes = Integer(ARGV.shift)
  when "-t" then target_ms = Float(ARGV.shift)
  else abort "usage: bench_mri.rb [-w WARMUP] [-p PASSES] [-t TARGET_MS] FILE..."
  end
end
abort "usage: bench_mri.rb [-w WARMUP] [-p PASSES] [-t TARGET_MS] FILE..." if ARGV.empty?

def needs_active_support?(name)
  name.start_with?("as_values")
end

def load_active_support
  require "active_support"
  require "active_support/core_ext/hash/indifferent_access"
  require "active_support/time"
  require "active_support/json"
  require "bigdecimal"
  require "date"
  require "set"
end

def now_ns
  Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
end

# One method per op, each a plain while loop (no block call per iteration).
module Ops
  module_function

  def empty(_b, reps)
    i = 0
    i += 1 while i < reps
    i
  end

  def load(b, reps)
    i = 0
    while i < reps
      Marshal.load(b)
      i += 1
    end
    i
  end

  def dump(b, reps)
    i = 0
    while i < reps
      Marshal.dump(Marshal.load(b))
      i += 1
    end
    i
  end

  def json(b, reps)
    i = 0
    while i < reps
      JSON.generate(Marshal.load(b))
      i += 1
    end
    i
  end

  def as_json(b, reps)
    i = 0
    while i < reps
      ActiveSupport::JSON.encode(Marshal.load(b))
      i += 1
    end
    i
  end
end

def pass(op, bytes, reps)
  GC.start
  t0 = now_ns
  Ops.public_send(op, bytes, reps)
  now_ns - t0
end

def median(sorted)
  n = sorted.size
  n.odd? ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
end

def bench(name, opname, op, bytes, warmup, passes, target_ns)
  reps = 1
  loop do
    t = pass(op, bytes, reps)
    break if t >= target_ns

    reps = t < target_ns / 64 ? reps * 16 : (reps * 1.15 * target_ns / t).to_i + 1
  end
  # warm up; if even the fastest warm-up pass fell short, scale up
  if warmup.positive?
    fastest = Array.new(warmup) { pass(op, bytes, reps) }.min
    reps = (reps * 1.1 * target_ns / fastest).to_i + 1 if fastest < target_ns
  end
  per = Array.new(passes) { pass(op, bytes, reps).to_f / reps }.sort
  printf("R\tmri\t%s\t%s\t%d\t%d\t%.1f\t%.1f\n", name, opname, bytes.bytesize, reps, per[0], median(per))
  $stdout.flush
end

target_ns = (target_ms * 1e6).to_i
ARGV.each do |path|
  name = File.basename(path).sub(/\..*\z/, "")
  bytes = File.binread(path).freeze
  as = needs_active_support?(name)
  load_active_support if as
  json_op = as ? :as_json : :json
  # fail loudly (before timing) if an op cannot handle the workload
  %i[load dump].push(json_op).each { |op| Ops.public_send(op, bytes, 1) }

  reps = 1_000_000
  empty = Array.new(5) { pass(:empty, bytes, reps).to_f / reps }.min
  printf("E\tmri\t%s\t%.2f\t%s\t%s\n", name, empty,
         as ? "activesupport #{ActiveSupport::VERSION::STRING}, #{json_op}" : "no activesupport",
         Marshal.singleton_class.ancestors.first.to_s)
  # BENCH_OPS (say "json"): only the ops it names
  only = ENV["BENCH_OPS"]
  bench(name, "load", :load, bytes, warmup, passes, target_ns) if only.nil? || only.include?("load")
  bench(name, "dump", :dump, bytes, warmup, passes, target_ns) if only.nil? || only.include?("dump")
  bench(name, as ? "json(AS)" : "json", json_op, bytes, warmup, passes, target_ns) if only.nil? || only.include?("json")
end
