#!/usr/bin/env bash
# The main job, on Debian 12 as root: build and install rbmarshal, start a
# throwaway PostgreSQL cluster, load sample Rails session rows and query them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash test/setup-debian.sh
make -s
make -s install
pg_virtualenv -t psql -X -v ON_ERROR_STOP=1 -f demo/demo.sql
