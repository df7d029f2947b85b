#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Formats the raw lines of one bench/run.sh run (bench_codec.c and
# bench_mri.rb output, concatenated) as one table per workload, with the
# ratios computed from numbers of that same file only.
#
#   ruby bench/report.rb bench/out/results.tsv

MB = 1e6 # MB/s here are 10^6 bytes per second
# a median this much above the best pass marks the row as noisy ("!")
NOISY_PCT = 10.0

rows = []   # [side, build, workload, op, bytes, reps, best, median]
info = {}   # workload => [bytes, objects, symbols]
empty = {}  # workload => [ns per empty loop iteration, note]
File.foreach(ARGV.fetch(0)) do |line|
  f = line.chomp.split("\t")
  case f[0]
  when "R"
    side = f[1] == "mri" ? "MRI" : "codec"
    rows << [side, f[1], f[2], f[3], f[4].to_i, f[5].to_i, f[6].to_f, f[7].to_f]
  when "I"
    info[f[2]] ||= [f[3].to_i, f[4].to_i, f[5].to_i]
  when "E"
    empty[f[2]] = [f[3].to_f, f[4]]
  end
end
abort "report.rb: no results in #{ARGV[0]}" if rows.empty?

OP_LABEL = {
  "validate" => "marshal_validate",
  "index" => "marshal_index + free",
  "skipscan" => "skip-scan (floor)",
  "tojson" => "Marshal -> JSON text (codec)",
  "load" => "Marshal.load",
  "dump" => "Marshal.dump(Marshal.load)",
  "json" => "JSON.generate(Marshal.load)",
  "json(AS)" => "AS::JSON.encode(Marshal.load)"
}.freeze

def fmt_ns(ns)
  ns >= 1e6 ? format("%.3f ms", ns / 1e6) : ns >= 1e4 ? format("%.2f us", ns / 1e3) : format("%.1f ns", ns)
end

def mbs(bytes, ns)
  bytes / (ns / 1e9) / MB
end

def ratio(a, b)
  format("%.2fx", a / b)
end

workloads = rows.map { |r| r[2] }.uniq
builds = rows.reject { |r| r[0] == "MRI" }.map { |r| r[1] }.uniq
ruby_label = ENV.fetch("BENCH_RUBY_LABEL", "ruby")
summary = []
any_noisy = false

workloads.each do |w|
  wr = rows.select { |r| r[2] == w }
  bytes = wr.first[4]
  objs = info[w] ? ", #{info[w][1]} objects, #{info[w][2]} symbols" : ""
  puts
  puts "=== #{w}: #{bytes} bytes#{objs}"
  printf("  %-5s %-22s %-30s %9s %12s %12s %11s %11s %7s\n",
         "side", "build", "operation", "reps/pass", "best/op", "median/op", "best MB/s", "median MB/s", "spread")
  wr.each do |side, build, _w, op, b, reps, best, med|
    spread = (med / best - 1) * 100
    noisy = spread > NOISY_PCT
    any_noisy ||= noisy
    printf("  %-5s %-22s %-30s %9d %12s %12s %11.1f %11.1f %6.1f%%%s\n",
           side, side == "MRI" ? ruby_label : build, OP_LABEL.fetch(op, op), reps,
           fmt_ns(best), fmt_ns(med), mbs(b, best), mbs(b, med), spread, noisy ? " !" : "")
  end
  if empty[w]
    printf("  (MRI: %s; the empty timing loop measured %.1f ns/iteration, included above)\n",
           empty[w][1], empty[w][0])
  end

  get = ->(side, build, op) { wr.find { |r| r[0] == side && (side == "MRI" || r[1] == build) && r[3] == op } }
  load = get.("MRI", nil, "load")
  puts "  ratios (median-to-median / best-to-best):"
  builds.each do |bld|
    val = get.("codec", bld, "validate")
    idx = get.("codec", bld, "index")
    skip = get.("codec", bld, "skipscan")
    next unless val && skip

    if load
      printf("    %-52s %8s / %-8s\n", "MRI Marshal.load / validate [#{bld}]",
             ratio(load[7], val[7]), ratio(load[6], val[6]))
    end
    printf("    %-52s %8s / %-8s\n", "validate / skip-scan [#{bld}]", ratio(val[7], skip[7]), ratio(val[6], skip[6]))
    printf("    %-52s %8s / %-8s\n", "index / skip-scan [#{bld}]", ratio(idx[7], skip[7]), ratio(idx[6], skip[6])) if idx
    tj = get.("codec", bld, "tojson")
    mj = get.("MRI", nil, "json") || get.("MRI", nil, "json(AS)")
    if tj && mj
      printf("    %-52s %8s / %-8s\n", "MRI #{OP_LABEL[mj[3]]} / codec JSON text [#{bld}]",
             ratio(mj[7], tj[7]), ratio(mj[6], tj[6]))
    end
    summary << [w, bld, val[7], skip[7], load && load[7], bytes]
  end
end

if any_noisy
  puts
  puts "  ! = median more than #{NOISY_PCT.to_i}% above the best pass: something else was using the machine"
  puts "      during that row; prefer the best-to-best ratio there, or rerun."
end

puts
puts "=== summary (medians)"
printf("  %-14s %-22s %14s %14s %14s %16s %14s\n",
       "workload", "build", "validate MB/s", "floor MB/s", "MRI load MB/s", "load/validate", "validate/floor")
summary.each do |w, bld, val, skip, load, bytes|
  printf("  %-14s %-22s %14.1f %14.1f %14s %16s %14s\n", w, bld, mbs(bytes, val), mbs(bytes, skip),
         load ? format("%.1f", mbs(bytes, load)) : "-", load ? ratio(load, val) : "-", ratio(val, skip))
end
