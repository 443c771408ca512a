#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): the idle footprint with 4 drives (issue 14 §2,
# issue 23 §5; docs/architecture.md#idle-wakeups: besides a poll's work no thread wakes on
# a period of its own; Pss at most 8 MB and private anonymous memory at most 4 MB).
#
# The database holds a day of 10-second samples for 4 drives (nvmond-histgen DB 1 4 10);
# the daemon runs the 4 demo drives on it (demo_history = no). Two runs:
#  - "10 s poll": the default poll; after a 15 s warm-up, wakeups are counted over
#    SECONDS per thread of the daemon and of its device process, as the growth of
#    voluntary_ctxt_switches in /proc/PID/task/TID/status (each is the thread going to
#    sleep, so one per wakeup; tests/integration/wakeups.py count), and memory read from
#    /proc/PID/smaps_rollup (Pss; Anonymous, all private here; Rss);
#  - "0.1 s poll": FAST_SECONDS at a 0.1 s poll (10 polls a second, a day of 10 s polls
#    in 864 s), memory read every quarter of it, to see whether it grows with the polls.
#    For an hour and a million drive-polls, see soak-bench.sh.
#
# Usage: tests/bench/footprint-bench.sh BUILD_DIR [SECONDS=60] [FAST_SECONDS=180]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS] [FAST_SECONDS]}
secs=${2:-60}
fast=${3:-180}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/nvmond-footprint.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT

"$build/tests/nvmond-histgen" "$tmp/day.db" 1 4 10 > /dev/null

start() { # start INTERVAL
	cp "$tmp/day.db" "$tmp/db"
	rm -f "$tmp/db-wal" "$tmp/db-shm"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	printf '[daemon]\ndatabase = %s\ndemo = yes\ndemo_drives = 4\ndemo_history = no\n' \
		"$tmp/db" > "$tmp/nvmond.conf"
	printf 'poll_interval = %s\nweb_root = %s/web\n' "$1" "$src" >> "$tmp/nvmond.conf"
	"$build/nvmond" -c "$tmp/nvmond.conf" --listen "127.0.0.1:$port" > "$tmp/daemon.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
}
stop() {
	kill "$pid"
	wait "$pid" 2> /dev/null || true
	pid=
}
mem() { # "Pss Anonymous Rss" in MiB
	awk '/^Pss:/ { p = $2 } /^Anonymous:/ { a = $2 } /^Rss:/ { r = $2 }
		END { printf "%.1f %.1f %.1f\n", p / 1024, a / 1024, r / 1024 }' "/proc/$pid/smaps_rollup"
}

start 10s
sleep 15
echo "Wakeups per thread over $secs s at the 10 s poll (voluntary switches; per poll: per 10 s):"
echo
python3 "$src/tests/integration/wakeups.py" count "$pid" "$secs" --poll 10
echo
threads=$(ls "/proc/$pid/task" | wc -l)
read -r pss anon rss < <(mem)
printf '| run | threads | Pss (MiB) | private anonymous (MiB) | RSS (MiB) |\n'
printf '|---|---|---|---|---|\n'
echo "| 10 s poll, $secs s idle | $threads | $pss | $anon | $rss |"
stop

start 100ms
for _ in 1 2 3 4; do # a row every quarter of FAST_SECONDS: does it grow, or level off?
	sleep $((fast / 4))
	threads=$(ls "/proc/$pid/task" | wc -l)
	read -r pss anon rss < <(mem)
	polls=$(curl -fsS "http://127.0.0.1:$port/metrics" | awk '$1 == "nvmond_polls_total" { print $2 }')
	echo "| 0.1 s poll, after $polls drive-polls | $threads | $pss | $anon | $rss |"
done
stop
