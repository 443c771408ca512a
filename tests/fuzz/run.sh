#!/usr/bin/env bash
# Fuzz every harness for SECONDS each, one after another, from its corpus
# (tests/fuzz/README.md). Builds build-fuzz/ (clang, NVMOND_FUZZ=ON) first if
# needed. New inputs go to build-fuzz/tests/fuzz/work/<name>/, crashes to
# build-fuzz/tests/fuzz/crashes/<name>/; the source corpus is only read.
# Prints a table: harness, executions, exec/s, crashes.
# Usage: tests/fuzz/run.sh SECONDS [NAME …]    (from anywhere)
# Env: NVMOND_FUZZ_BUILD (default <repo>/build-fuzz), NVMOND_FUZZ_JOBS (default 1:
#      libFuzzer processes per harness, each its own core), NVMOND_FUZZ_RUNS (stop a
#      harness after this many executions, if before SECONDS).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
secs=${1:?usage: tests/fuzz/run.sh SECONDS [NAME …]}
shift
build=${NVMOND_FUZZ_BUILD:-$src/build-fuzz}
jobs=${NVMOND_FUZZ_JOBS:-1}
runs=${NVMOND_FUZZ_RUNS:--1}

if [ $# -eq 0 ]; then
	names=()
	for f in "$here"/fuzz_*.c; do
		n=$(basename "$f" .c)
		n=${n#fuzz_}
		[ "$n" = common ] || names+=("$n")
	done
	set -- "${names[@]}"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
	cmake -S "$src" -B "$build" -DNVMOND_FUZZ=ON -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target fuzz_all >/dev/null

printf '%-16s %14s %10s %8s\n' harness executions exec/s crashes
status=0
for name in "$@"; do
	bin=$build/tests/fuzz/fuzz_$name
	work=$build/tests/fuzz/work/$name
	crashes=$build/tests/fuzz/crashes/$name
	log=$build/tests/fuzz/$name.log
	mkdir -p "$work" "$crashes"
	par=()
	[ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
	set +e
	# In its own directory: with -jobs, libFuzzer writes fuzz-N.log to the current one.
	(cd "$work/.." && "$bin" -max_total_time="$secs" -runs="$runs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 "${par[@]}" -artifact_prefix="$crashes/" \
		"$work" "$here/corpus/$name") >"$log" 2>&1
	rc=$?
	set -e
	# Every job's final stats (copied into the log), summed.
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | awk '{s += $1} END {print s + 0}')
	n_crash=$(find "$crashes" -type f | wc -l)
	printf '%-16s %14s %10s %8s\n' "$name" "$execs" "$rate" "$n_crash"
	if [ "$n_crash" -gt 0 ] || [ "$rc" -ne 0 ]; then
		status=1
		echo "  see $log and $crashes/" >&2
	fi
done
exit $status
