#!/usr/bin/env bash
# Install what building and testing rbmarshal needs on Debian 12 (as root).
# Idempotent: packages already present are skipped by apt.
set -euo pipefail
packages=(
	build-essential
	postgresql-15 # also ships pgbench (test/ops/load.sh)
	postgresql-server-dev-15
	postgresql-common
	zlib1g-dev libyaml-dev
	bc
	clang libclang-rt-14-dev valgrind
	ruby ruby-activesupport ruby-json
	ruby-activerecord ruby-actionpack ruby-globalid ruby-sqlite3 ruby-pg
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
