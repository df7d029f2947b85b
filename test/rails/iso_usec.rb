# An expiry Float as the extension's timestamptz shows it: Time.at(f).utc truncated to
# the microsecond as Time#usec (ISO 8601 UTC), or "NULL".  For test/rails and test/fidelity.
def iso_usec(f)
  return "NULL" if f.nil?

  t = Time.at(f).utc
  t.strftime("%Y-%m-%dT%H:%M:%S") + format(".%06dZ", t.usec)
end
