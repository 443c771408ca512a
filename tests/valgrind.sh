#!/usr/bin/env bash
# Run integration tests with the daemon under valgrind's memcheck, by hand (not in
# ctest: about 20 times slower). Every nvmond the tests start (daemon and CLI) runs
# as `valgrind --tool=memcheck --leak-check=full`, one log per process; at the end
# the logs are summed up: invalid reads and writes, other memcheck errors, and
# leaks ("definitely" and "indirectly lost"; "possibly lost" and "still reachable"
# are listed apart: libraries' caches at exit). A process killed with SIGKILL (the
# kill -9 tests) writes no leak summary and is counted apart.
#
# Usage: tests/valgrind.sh [BUILD_DIR] [TEST_NAME...]
#   BUILD_DIR  default build/ (a build without sanitizers: memcheck cannot run ASan)
#   TEST_NAME  tests/integration/test_NAME.sh; default: the representative subset
#              below. `all` runs every one (a few hours).
# Exit: 0 when no invalid access and no definite/indirect leak, 1 otherwise.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
shift || true
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 2; }
[ -x "$BUILD/nvmond" ] || { echo "no $BUILD/nvmond: build first"; exit 2; }

# The subset: the daemon's life cycle and config, the API and its errors, alerts
# and both sinks, probes, self-tests, /metrics, the store's faults.
SUBSET="daemon config_errors api alerts probes selftests prometheus store_robustness sensors"
tests=${*:-$SUBSET}
[ "$tests" = all ] && tests=$(cd "$SRC/tests/integration" && ls test_*.sh | sed 's/^test_//; s/\.sh$//')

OUT=$(mktemp -d /tmp/nvmond-valgrind.XXXXXX)
cat >"$OUT/nvmond" <<WRAP
#!/bin/sh
exec valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all \
	--errors-for-leak-kinds=definite,indirect --num-callers=30 \
	--log-file="$OUT/vg.%p.log" "$BUILD/nvmond" "\$@"
WRAP
chmod +x "$OUT/nvmond"

echo "logs in $OUT"
declare -A result
for t in $tests; do
	script=$SRC/tests/integration/test_$t.sh
	[ -f "$script" ] || { echo "no $script"; exit 2; }
	start=$(date +%s)
	NVMOND_BIN=$OUT/nvmond NVMOND_SRC=$SRC NVMOND_BUILD=$BUILD NVMOND_START_TIMEOUT=120 \
		NVMOND_HISTGEN=$BUILD/tests/nvmond-histgen \
		bash "$script" >"$OUT/test_$t.out" 2>&1
	rc=$?
	result[$t]="exit $rc, $(($(date +%s) - start)) s"
	echo "test_$t: ${result[$t]}"
done

# Sum up the logs.
sum() { # sum 'definitely lost' -> bytes over all logs
	grep -h "$1:" "$OUT"/vg.*.log 2>/dev/null | awk '{gsub(",", "", $4); s += $4} END {print s + 0}'
}
procs=$(ls "$OUT"/vg.*.log 2>/dev/null | wc -l)
killed=$(grep -L 'ERROR SUMMARY' "$OUT"/vg.*.log 2>/dev/null | wc -l)
invalid_r=$(grep -h -c '^==[0-9]*== Invalid read' "$OUT"/vg.*.log 2>/dev/null | awk '{s += $1} END {print s + 0}')
invalid_w=$(grep -h -c '^==[0-9]*== Invalid write' "$OUT"/vg.*.log 2>/dev/null | awk '{s += $1} END {print s + 0}')
other=$(grep -h -c '^==[0-9]*== \(Conditional jump\|Use of uninitialised\|Syscall param\|Invalid free\|Mismatched free\|Source and destination overlap\)' \
	"$OUT"/vg.*.log 2>/dev/null | awk '{s += $1} END {print s + 0}')
definite=$(sum 'definitely lost')
indirect=$(sum 'indirectly lost')
possible=$(sum 'possibly lost')
reachable=$(sum 'still reachable')
echo
echo "processes under memcheck: $procs ($killed ended without a summary: killed)"
echo "invalid reads: $invalid_r; invalid writes: $invalid_w; other memcheck errors: $other"
echo "leaks: definitely lost $definite B, indirectly lost $indirect B;" \
	"possibly lost $possible B, still reachable $reachable B (libraries at exit)"
bad=0
[ $((invalid_r + invalid_w + other + definite + indirect)) -eq 0 ] || bad=1
if [ $bad = 1 ]; then
	echo "logs with findings:"
	grep -l 'Invalid \(read\|write\)\|definitely lost: [1-9]\|indirectly lost: [1-9]\|Conditional jump\|uninitialised' \
		"$OUT"/vg.*.log | head -20
fi
exit $bad
