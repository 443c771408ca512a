#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): CPU per drive-poll with N demo drives at a
# 1 s poll (issue 14 §2: at most 20 µs per drive-poll, flat from 2 to 64 drives).
#
# For each N, every variant runs at the same time, each on its own empty database
# (demo_history = no), so that the load of a shared machine weighs on all of them
# alike: this build polling every second (once per [store] commit_interval in
# COMMIT, default "default" = its default), its idle baseline (poll_interval = 1d,
# so only its timers run) and, with BEFORE=/path/to/an/older/nvmond, that binary
# polling and idle too. CPU time is the sum of the first field of
# /proc/PID/task/*/schedstat (nanoseconds on a CPU, every thread) of the daemon
# and of its device process (docs/security.md#privilege-separation) over SECONDS after
# a 5 s warm-up; polls are counted by nvmond_polls_total.
# µs per drive-poll = (busy - idle) / polls.
#
# Usage: [BEFORE=NVMOND] [COMMIT="0 10s"] tests/bench/poll-cost-bench.sh BUILD_DIR [SECONDS=60] [DRIVES="2 4 8 16 32 64"]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS] [DRIVES]}
secs=${2:-60}
counts=${3:-"2 4 8 16 32 64"}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/nvmond-pollcost.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

cpu_ns() { # cpu_ns PID: every thread's time on a CPU, in ns, with the device process's
	local p
	for p in "$1" $(pgrep -P "$1" -x nvmond-dev); do
		cat /proc/"$p"/task/*/schedstat 2> /dev/null
	done | awk '{ s += $1 } END { printf "%d", s }'
}
polls() { # polls PORT
	curl -fsS "http://127.0.0.1:$1/metrics" | awk '$1 == "nvmond_polls_total" { print $2 }'
}

# start NAME NVMOND N INTERVAL [COMMIT_INTERVAL]: a daemon in $tmp/NAME
start() {
	local d=$tmp/$1 port
	mkdir -p "$d"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	printf '[daemon]\ndatabase = %s\ndemo = yes\ndemo_drives = %s\ndemo_history = no\n' \
		"$d/db" "$3" > "$d/nvmond.conf"
	printf 'poll_interval = %s\nweb_root = %s/web\n' "$4" "$src" >> "$d/nvmond.conf"
	[ -n "${5:-}" ] && printf '[store]\ncommit_interval = %s\n' "$5" >> "$d/nvmond.conf"
	"$2" -c "$d/nvmond.conf" --listen "127.0.0.1:$port" > "$d/daemon.log" 2>&1 &
	echo $! > "$d/pid"
	echo "$port" > "$d/port"
	pids+=($!)
}

echo "$secs s per run, all variants of a row group at once; CPU from /proc/PID/task/*/schedstat; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| binary | commit_interval | drives | polls | CPU polling (ms) | CPU idle (ms) | µs per drive-poll |\n|---|---|---|---|---|---|---|\n'
for n in $counts; do
	rm -rf "${tmp:?}"/*
	pids=()
	names=()
	if [ -n "${BEFORE:-}" ]; then
		start before-idle "$BEFORE" "$n" 1d
		start before "$BEFORE" "$n" 1s
		names+=(before)
	fi
	start this-idle "$build/nvmond" "$n" 1d
	for c in ${COMMIT:-default}; do
		k=$c
		[ "$c" = default ] && k=
		start "this-$c" "$build/nvmond" "$n" 1s "$k"
		names+=("this-$c")
	done
	for d in "$tmp"/*/; do
		for _ in $(seq 100); do
			curl -fsS "http://127.0.0.1:$(cat "$d/port")/healthz" > /dev/null 2>&1 && break
			sleep 0.1
		done
	done
	sleep 5
	for d in "$tmp"/*/; do
		echo "$(polls "$(cat "$d/port")") $(cpu_ns "$(cat "$d/pid")")" > "$d/t0"
	done
	sleep "$secs"
	for d in "$tmp"/*/; do
		echo "$(polls "$(cat "$d/port")") $(cpu_ns "$(cat "$d/pid")")" > "$d/t1"
	done
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
	wait 2> /dev/null || true
	delta() { # delta NAME: "polls cpu_ns" over the window
		read -r p0 c0 < "$tmp/$1/t0"
		read -r p1 c1 < "$tmp/$1/t1"
		echo "$((p1 - p0)) $((c1 - c0))"
	}
	for name in "${names[@]}"; do
		idle_name=this-idle
		label=this commit=${name#this-}
		if [ "$name" = before ]; then
			idle_name=before-idle label=before commit="(none)"
		fi
		read -r np busy < <(delta "$name")
		read -r _ idle < <(delta "$idle_name")
		awk -v l="$label" -v c="$commit" -v n="$n" -v np="$np" -v b="$busy" -v i="$idle" 'BEGIN {
			printf "| %s | %s | %d | %d | %.1f | %.1f | %.1f |\n", l, c, n, np, b / 1e6, i / 1e6,
				np ? (b - i) / 1e3 / np : 0 }'
	done
done
