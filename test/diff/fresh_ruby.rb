# A Ruby process that answers as a new `ruby` would, for the generators of
# test/diff and test/fidelity.
#
# What Marshal.dump writes for a loaded value can depend on the process's history: the
# order of a plain object's ivars and of a Time's _dump ivars, the TimeZone registry
# (whose name strings a TimeWithZone dumps), where MRI puts an exception's bt_locations.
# FreshRuby.new forks a server; call it before the generator builds any value.  For each
# question it forks again and answers Marshal.dump(navigate(Marshal.load(stream), steps)),
# navigate being the block given to new (it returns missing when the path leads nowhere).
class FreshRuby
  def initialize(missing, &navigate)
    @in_r, @in_w = IO.pipe
    @out_r, @out_w = IO.pipe
    @pid = fork do
      @in_w.close
      @out_r.close
      serve(missing, navigate)
    end
    @in_r.close
    @out_w.close
  end

  # Marshal.dump(navigate(Marshal.load(stream), steps)) in a fresh process (nil: not found)
  def dump(stream, steps)
    put_msg(@in_w, [stream] + steps.map { |x| x.nil? ? "n" : "s#{x}" })
    reply = get_msg(@out_r) or raise "the fresh Ruby process died"
    reply.first
  end

  def close
    @in_w.close
    Process.wait(@pid)
  end

  private

  def serve(missing, navigate)
    while (msg = get_msg(@in_r))
      child = fork do
        stream, *steps = msg
        steps = steps.map { |x| x == "n" ? nil : x[1..].force_encoding(Encoding::UTF_8) }
        sub = navigate.call(Marshal.load(stream), steps)
        put_msg(@out_w, sub.equal?(missing) ? [] : [Marshal.dump(sub)])
        exit!(0)
      end
      Process.wait(child)
      exit!(1) unless $?.success?
    end
    exit!(0)
  end

  def put_msg(io, parts)
    io.write([parts.size].pack("N"), *parts.flat_map { |x| [[x.bytesize].pack("N"), x.b] })
    io.flush
  end

  def get_msg(io)
    n = io.read(4) or return nil
    Array.new(n.unpack1("N")) { io.read(io.read(4).unpack1("N")) }
  end
end
