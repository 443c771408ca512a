#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): a long run at a fast poll (issue 23 §5;
# docs/architecture.md#a-long-run). DRIVES demo drives (32) polled every POLL_MS (100)
# until 1,056,000 drive-polls (POLLS; 55 min at full pace: 32 × 10 × 3300) or for
# SECONDS (5400) if that comes first (a loaded machine polls slower) on a new database,
# with the API under a light load: every 2 s the device list, one drive, its last minute
# of samples and its day of series, in turn; /metrics every 15 s and at each reading.
# Every EVERY seconds (60) it reads, for the daemon and its device process, RSS and
# private anonymous memory (VmRSS, RssAnon), open descriptors (the database's apart),
# threads, CPU time and wakeups (voluntary switches), the daemon's allocator's count
# (nvmond_malloc_in_use_bytes, nvmond_malloc_kept_free_bytes), and
# the database's size with its WAL. After WARMUP seconds (600: past the rollups' 5-minute
# grace, until which the raw samples not rolled up yet grow) it fits each figure with a
# least-squares line against the drive-polls and prints a table at the warm-up's end and
# at the end, with the slope per 100,000 drive-polls and per hour, CPU per drive-poll
# over the first and last tenth, and each request's median time; "grows:" lines for
# what fails the checks of tests/integration/soak.py --check --check-cpu.
#
# CPU-heavy: run it with nice. The readings are kept in OUT/rows.json (OUT: a new
# directory under /tmp, printed first).
#
# Usage: nice -n 19 tests/bench/soak-bench.sh BUILD_DIR [SECONDS=5400] [DRIVES=32] [POLL_MS=100]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS] [DRIVES] [POLL_MS]}
secs=${2:-5400}
drives=${3:-32}
poll=${4:-100}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d /tmp/nvmond-soak.XXXXXX)
echo "readings and the daemon's log in $out"
warm=${WARMUP:-600}
[ "$warm" -lt "$secs" ] || warm=$((secs / 5))
python3 "$src/tests/integration/soak.py" "$build/nvmond" "$src/web" "$out" "$secs" \
	--drives "$drives" --poll "$poll" --warmup "$warm" --every "${EVERY:-60}" \
	--polls "${POLLS:-1056000}" --check --check-cpu
