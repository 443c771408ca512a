#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): CPU per drive-poll with N demo drives at a
# 1 s poll (issue 14 §2: at most 20 µs per drive-poll, flat from 2 to 64 drives).
#
# For each N the daemon runs twice on an empty database (demo_history = no): once
# polling every second, once as the idle baseline (poll_interval = 1d, so only its
# timers run). CPU time is the sum of the first field of /proc/PID/task/*/schedstat
# (nanoseconds on a CPU, every thread) over SECONDS after a warm-up; polls are
# counted by nvmond_polls_total. µs per drive-poll = (busy - idle) / polls.
# With BEFORE=/path/to/an/older/nvmond, each N runs that binary too, side by side.
#
# Usage: [BEFORE=NVMOND] tests/bench/poll-cost-bench.sh BUILD_DIR [SECONDS=60] [DRIVES="2 4 8 16 32 64"]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS] [DRIVES]}
secs=${2:-60}
counts=${3:-"2 4 8 16 32 64"}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/nvmond-pollcost.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT

cpu_ns() { # every thread's time on a CPU, in ns
	cat /proc/"$pid"/task/*/schedstat 2> /dev/null | awk '{ s += $1 } END { printf "%d", s }'
}
polls() {
	curl -fsS "http://127.0.0.1:$port/metrics" | awk '$1 == "nvmond_polls_total" { print $2 }'
}

# run NVMOND N INTERVAL: prints "cpu_ns polls" over $secs after a 5 s warm-up
run() {
	rm -f "$tmp/db"*
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	printf '[daemon]\ndatabase = %s\ndemo = yes\ndemo_drives = %s\ndemo_history = no\n' \
		"$tmp/db" "$2" > "$tmp/nvmond.conf"
	printf 'poll_interval = %s\nweb_root = %s/web\n' "$3" "$src" >> "$tmp/nvmond.conf"
	"$1" -c "$tmp/nvmond.conf" --listen "127.0.0.1:$port" > "$tmp/daemon.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
	sleep 5
	local p0 c0 c1 p1
	p0=$(polls)
	c0=$(cpu_ns)
	sleep "$secs"
	c1=$(cpu_ns)
	p1=$(polls)
	kill "$pid"
	wait "$pid" 2> /dev/null || true
	pid=
	echo "$((c1 - c0)) $((p1 - p0))"
}

echo "$secs s per run; CPU from /proc/PID/task/*/schedstat; the machine is shared, so compare rows of one run"
printf '| binary | drives | polls | CPU polling (ms) | CPU idle (ms) | µs per drive-poll |\n|---|---|---|---|---|---|\n'
for n in $counts; do
	for bin in ${BEFORE:+"$BEFORE"} "$build/nvmond"; do
		read -r busy np < <(run "$bin" "$n" 1s)
		read -r idle _ < <(run "$bin" "$n" 1d)
		label=this
		[ "$bin" = "${BEFORE:-}" ] && label=before
		awk -v l="$label" -v n="$n" -v np="$np" -v b="$busy" -v i="$idle" 'BEGIN {
			printf "| %s | %d | %d | %.1f | %.1f | %.1f |\n", l, n, np, b / 1e6, i / 1e6,
				np ? (b - i) / 1e3 / np : 0 }'
	done
done
