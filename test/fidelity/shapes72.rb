#!/usr/bin/env ruby
# shapes.rb under Rails 7.2 from the Rails source (rails72.sh: needs RAILS_GIT_DIR):
#   ruby test/fidelity/shapes72.rb [OUT_DIR]
exec("bash", File.join(__dir__, "rails72.sh"), "ruby", File.join(__dir__, "shapes.rb"), *ARGV)
