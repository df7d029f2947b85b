#!/usr/bin/env ruby
# Writes src/rbmarshal_zones.h: ActiveSupport::TimeZone::MAPPING (Rails zone name ->
# tz database name) as a C table, for TimeWithZone#inspect's abbreviation.
#   bash test/fidelity/rails72.sh ruby src/rails_zones.rb     (ActiveSupport 7.2)
require "active_support"
require "active_support/values/time_zone"
rows = ActiveSupport::TimeZone::MAPPING.map { |rails, tz| "\t{#{rails.dump}, #{tz.dump}}," }
File.write(File.join(__dir__, "rbmarshal_zones.h"), <<~C)
  /*
   * rbmarshal_zones.h
   *		ActiveSupport::TimeZone::MAPPING of ActiveSupport #{ActiveSupport::VERSION::STRING}:
   *		a Rails zone name and its tz database name.  Written by src/rails_zones.rb.
   */
  static const struct
  {
  	const char *rails;
  	const char *tz;
  }			rails_zones[] = {
  #{rows.join("\n")}
  };
C
