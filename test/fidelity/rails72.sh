#!/usr/bin/env bash
# Runs a command with ActiveSupport, ActiveModel and ActiveRecord 7.2 from the Rails
# source on Ruby's load path (RUBYLIB); Debian's ruby-concurrent, ruby-i18n,
# ruby-tzinfo, ruby-pg and ruby-sqlite3 serve as the rest.  Rails' code is never
# committed: it is extracted into a temporary folder for the run.
#
#   bash test/fidelity/rails72.sh [--git-dir DIR] COMMAND...
#
# DIR (default $RAILS_GIT_DIR) is a git directory of github.com/rails/rails holding
# the tag $RAILS_TAG (default v7.2.2.1), e.g. a bare clone.  Exits 3 without running
# COMMAND when there is none: callers report that the 7.2 checks were skipped.
set -euo pipefail
git_dir=${RAILS_GIT_DIR:-}
if [[ ${1:-} == --git-dir ]]; then
	git_dir=$2
	shift 2
fi
tag=${RAILS_TAG:-v7.2.2.1}
if [[ -z $git_dir ]] || ! git --git-dir="$git_dir" rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
	echo "rails72.sh: no Rails git directory with tag $tag (set RAILS_GIT_DIR)" >&2
	exit 3
fi
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git --git-dir="$git_dir" archive "$tag" activesupport activemodel activerecord | tar -x -C "$src"
export RUBYLIB="$src/activesupport/lib:$src/activemodel/lib:$src/activerecord/lib${RUBYLIB:+:$RUBYLIB}"
"$@"
