# frozen_string_literal: true

# The generators' source of choices (test/diff, test/literal): seeded, so the
# same seed makes the same data on every machine.  Each call draws from the
# one Random, in the order the generator asks, so the committed data depends
# on that order: change a generator's calls, regenerate its data.
class SeededRandom
  def initialize(seed)
    @rng = Random.new(seed)
  end

  def rand(*args)
    @rng.rand(*args)
  end

  def pick(list)
    list[@rng.rand(list.size)]
  end

  def chance(prob)
    @rng.rand < prob
  end

  # a finite Float of 64 random bits (NaN and Infinity are drawn again)
  def random_finite_float
    loop do
      f = [@rng.rand(2**64)].pack("Q<").unpack1("E")
      return f if f.finite?
    end
  end

  # a key of [[key, weight], ...], with probability weight / total
  def weighted(table)
    x = @rng.rand * table.sum { |_, w| w }
    table.each do |kind, w|
      return kind if x < w
      x -= w
    end
    table.last[0]
  end
end
