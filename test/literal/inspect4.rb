# Ruby 4.0 side of test/literal/inspect.tsv: run by make_inspect.sh as
#   node --no-warnings test/literal/ruby4.mjs -r test/fixtures/classes.rb test/literal/inspect4.rb < rows
# Reads name<TAB>hex lines (hex = Marshal bytes written by 64-bit MRI 3.1), loads each value
# and writes name<TAB>hex<TAB>inspect_text, the inspect text escaped as in literals.tsv
# (\\ \t \n \r) and with object addresses removed ("#<Money:0x1402b7b0 @cents=1>" ->
# "#<Money @cents=1>").  Rows Ruby 4.0 cannot load are left out and listed on stderr.
require "set"
require "date"
require "json"

# the classes test/diff/generate.rb defines beside test/fixtures/classes.rb
Pair = Struct.new(:left, :right)
Record = Struct.new(:id, :name, :tags, :meta)
class Node; end

ADDRESS = /(#<[^\s<>:]+(?:::[^\s<>:]+)*):0x\h+/

def tsv_escape(text)
  text.gsub(/[\\\t\n\r]/, "\\" => "\\\\", "\t" => "\\t", "\n" => "\\n", "\r" => "\\r")
end

failed = Hash.new { |h, k| h[k] = [] } # reason => names
missing = Hash.new { |h, k| h[k] = [] } # reason => class names in those streams that Ruby 4.0 lacks

# class names the stream uses (after o S u U C e d and a symbol, or c m and a string)
# that this Ruby does not define; a heuristic, only for the report
def undefined_classes(stream)
  stream.b.scan(/(?:[oSuUCed]:|[cm])([\x06-\x7f])([A-Z][A-Za-z0-9_]*(?:::[A-Z][A-Za-z0-9_]*)*)/n).filter_map do |len, name|
    next unless len.ord - 5 == name.bytesize
    begin
      Object.const_get(name)
      nil
    rescue NameError
      name
    end
  end
end
out = +""
$stdin.binmode.each_line do |line|
  name, hex = line.chomp.split("\t")
  begin
    value = Marshal.load([hex].pack("H*"))
    text = value.inspect
  rescue Exception => e # rubocop:disable Lint/RescueException
    reason = "#{e.class}: #{e.message[0, 80].tr("\n", ' ')}"
    failed[reason] << name
    missing[reason].concat(undefined_classes([hex].pack("H*")))
    next
  end
  text = text.dup.force_encoding(Encoding::UTF_8)
  raise "#{name}: inspect text is not valid UTF-8: #{text.b.inspect}" unless text.valid_encoding?
  out << "#{name}\t#{hex}\t#{tsv_escape(text.gsub(ADDRESS, '\1'))}\n"
end
$stdout.binmode.write(out)
failed.sort_by { |reason, _| reason }.each do |reason, names|
  $stderr.puts "not loaded by Ruby #{RUBY_VERSION} (#{names.size}): #{reason}"
  $stderr.puts "  classes: #{missing[reason].uniq.sort.join(' ')}" unless missing[reason].empty?
  $stderr.puts "  rows: #{names.join(' ')}"
end
