#!/usr/bin/env bash
# The regression suite with the server under valgrind (memcheck).
#
#   make installcheck-valgrind            (all tests; slow: ~20x)
#   VALGRIND_TESTS="io errors jsonb" make installcheck-valgrind
#
# pg_virtualenv makes a throwaway cluster; this script restarts its
# postmaster under valgrind (--trace-children, so every backend is checked),
# runs pg_regress against it, and stops it.  Debian's server is not built
# with USE_VALGRIND, so memory inside palloc'd blocks is not tracked chunk by
# chunk; invalid reads and writes outside them, and decisions on
# uninitialised memory, are.  PostgreSQL's own src/tools/valgrind.supp is not
# shipped by Debian: instead every error is reported, and only those with
# rbmarshal.so in their stack fail the run (the rest are listed by count).
# Prints "valgrind: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."

if [[ -z ${VALGRIND_IN_CLUSTER:-} ]]; then
	command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
	make -s && make -s install >/dev/null || exit 1
	VALGRIND_IN_CLUSTER=1 exec pg_virtualenv -v 15 bash "$0" "$@"
fi

logs=$(mktemp -d)
chmod 777 "$logs"
datadir=$(psql -X -At -c 'SHOW data_directory')
conf=$(psql -X -At -c 'SHOW config_file')
bindir=$(pg_config --bindir)
pg_ctlcluster 15 regress stop || exit 1
su postgres -c "valgrind --quiet --trace-children=yes --error-limit=no --num-callers=30 \
	--read-var-info=no --log-file=$logs/vg.%p.log \
	$bindir/postgres -D $datadir -c config_file=$conf" &
vpid=$!
for _ in $(seq 1 120); do
	pg_isready -q && break
	sleep 1
done
tests=${VALGRIND_TESTS:-$(sed -n 's/^REGRESS = //p' Makefile)}
rm -rf results regression.diffs
# (regress.slow: tests that time themselves allow for valgrind's slowness)
PGOPTIONS="-c regress.slow=on" make -s installcheck REGRESS="$tests" >"$logs/regress.out" 2>&1
grep -E '\.\.\. +(ok|FAILED)' "$logs/regress.out"
ok=$(grep -cE '\.\.\. +ok' "$logs/regress.out")
bad=$(grep -cE '\.\.\. +FAILED' "$logs/regress.out")
# stop the postmaster (fast shutdown), then read every process's log
kill -INT "$(head -1 "$datadir/postmaster.pid")" 2>/dev/null
wait "$vpid"
ours=$(awk '
	/^==[0-9]+== *$/ { if (block ~ /rbmarshal\.so/) n++; block = ""; next }
	{ block = block "\n" $0 }
	END { if (block ~ /rbmarshal\.so/) n++; print n + 0 }' "$logs"/vg.*.log)
all=$(grep -hcE '^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall param|Source and destination)' "$logs"/vg.*.log | paste -sd+ | bc)
echo "valgrind: $all error(s) reported in all, $ours with rbmarshal.so in the stack"
if ((ours > 0)); then
	awk '/^==[0-9]+== *$/ { if (block ~ /rbmarshal\.so/) print block; block = ""; next }
		{ block = block "\n" $0 }' "$logs"/vg.*.log | head -n 200
	bad=$((bad + 1))
fi
rm -rf "$logs"
echo "valgrind: $ok passed, $bad failed"
((bad == 0))
