# shellcheck shell=bash
# Sourced by the shell test runners: "ok - ..." and "not ok - ..." lines,
# counted for the runner's last line "<suite>: N passed, N failed".
passed=0
failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
