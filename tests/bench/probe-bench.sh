#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): every probe preset with nvmond's engine
# and with fio (--ioengine=io_uring --direct=1, same block size, depth and size)
# on the same target, one after the other; prints MB/s, IOPS and CPU per I/O
# for both and the ratio nvmond / fio.
# NVBENCH=PATH in the environment: another nvmond-probe-bench binary (A/B).
#
# Usage: tests/bench/probe-bench.sh BUILD_DIR TARGET [SIZE] [SECONDS]
#   TARGET: a file (made and filled if missing; on a filesystem with O_DIRECT,
#           not tmpfs) or a block device (its first SIZE bytes are overwritten!)
#   SIZE:   bytes of the target used (default 1 GiB); SECONDS per run (default 5)
#   ROUNDS=N in the environment: rounds per preset (default 4, keep it even);
#   PRESETS="rnd4k-q32 rnd4k-q1": only these presets.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR TARGET [SIZE] [SECONDS]}
target=${2:?usage: $0 BUILD_DIR TARGET [SIZE] [SECONDS]}
size=${3:-1073741824}
secs=${4:-5}
bench=${NVBENCH:-$build/tests/nvmond-probe-bench}
[ -x "$bench" ] || { echo "$bench missing: build the tests first" >&2; exit 1; }
command -v fio > /dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "python3 is needed" >&2; exit 1; }

if [ ! -e "$target" ]; then
	echo "laying out $target ($size bytes)" >&2
	dd if=/dev/urandom of="$target" bs=1M count=$((size / 1048576)) oflag=direct status=none
fi

# fio_run RW BS DEPTH [IO_SIZE] -> the same JSON fields as nvmond-probe-bench
fio_run() {
	local rw=$1 bs=$2 depth=$3 io_size=${4:-} out
	local args=(--name=p --filename="$target" --ioengine=io_uring --direct=1 --bs="$bs"
		--iodepth="$depth" --size="$size" --output-format=json --randrepeat=0
		--refill_buffers=0 --buffer_compress_percentage=0)
	if [ "$rw" = copy ]; then
		# Two jobs at once in one group: read the first half, write the second.
		local half=$((size / 2))
		args=(--ioengine=io_uring --direct=1 --bs="$bs" --iodepth="$depth"
			--output-format=json --group_reporting --time_based --runtime="$secs"
			--name=r --filename="$target" --rw=read --offset=0 --size="$half"
			--name=w --filename="$target" --rw=write --offset="$half" --size="$half")
	elif [ -n "$io_size" ]; then
		args+=(--rw="$rw" --io_size="$io_size")
	else
		args+=(--rw="$rw" --time_based --runtime="$secs")
	fi
	out=$(fio "${args[@]}")
	python3 -c '
import json, sys
j = json.loads(sys.argv[1])
jobs = j["jobs"]
rd = sum(x["read"]["io_bytes"] for x in jobs); wr = sum(x["write"]["io_bytes"] for x in jobs)
ios = sum(x["read"]["total_ios"] + x["write"]["total_ios"] for x in jobs)
secs = max(max(x["read"]["runtime"], x["write"]["runtime"]) for x in jobs) / 1000.0
cpu = sum((x["usr_cpu"] + x["sys_cpu"]) / 100.0 * max(x["read"]["runtime"], x["write"]["runtime"]) / 1000.0 for x in jobs)
print(json.dumps({"engine": "fio", "secs": secs, "mb_per_s": (rd + wr) / secs / 1e6,
  "iops": ios / secs, "cpu_s": cpu, "ios": ios, "rd_mb_per_s": rd / secs / 1e6,
  "wr_mb_per_s": wr / secs / 1e6}))' "$out"
}

# timed VAR CMD...: run CMD, its stdout into VAR (and the CPU time of the whole
# command, start-up included, into VAR_cpu: not used for the table).
timed() {
	local var=$1 out t
	shift
	t=$({ TIMEFORMAT='%U %S'; time "$@" > "$tmp/out"; } 2>&1 | tail -n 1)
	out=$(cat "$tmp/out")
	printf -v "$var" '%s' "$out"
	printf -v "${var}_cpu" '%s' "$(echo "$t" | awk '{print $1 + $2}')"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# preset phase rw bs depth [bytes]
runs=(
	"seq1m-q8 read read 1048576 8"
	"seq1m-q8 write write 1048576 8"
	"seq1m-q1 read read 1048576 1"
	"seq1m-q1 write write 1048576 1"
	"rnd4k-q32 read randread 4096 32"
	"rnd4k-q32 write randwrite 4096 32"
	"rnd4k-q1 read randread 4096 1"
	"rnd4k-q1 write randwrite 4096 1"
	"copy-self copy copy 1048576 8"
	"sustained-write write write 1048576 8 $((2 * size))"
)
rounds=${ROUNDS:-4} # even: each tool goes first equally often
echo "target $target, $size bytes, ${secs} s per run, median of $rounds alternating rounds, PLAIN_RING=${PLAIN_RING:-0}"
printf '%-16s %-6s | %9s %9s %8s %8s | %9s %9s %8s | %6s %6s\n' preset phase \
	"nv MB/s" "nv IOPS" "nv µs/IO" "nv all" "fio MB/s" "fio IOPS" "fio µs/IO" "MB/s×" "CPU×"
for r in "${runs[@]}"; do
	read -r preset phase rw bs depth bytes <<< "$r"
	if [ -n "${PRESETS:-}" ] && [[ " $PRESETS " != *" $preset "* ]]; then
		bytes=
		continue
	fi
	results=()
	for ((i = 0; i < rounds; i++)); do
		nv_args=("$bench" "$target" "$rw" "$bs" "$depth" "$size" "$secs")
		fio_args=(fio_run "$rw" "$bs" "$depth")
		if [ -n "${bytes:-}" ]; then
			nv_args=("$bench" "$target" "$rw" "$bs" "$depth" "$size" 0 "$bytes")
			fio_args=(fio_run "$rw" "$bs" "$depth" "$bytes")
		fi
		if ((i % 2 == 0)); then
			timed nv "${nv_args[@]}"
			timed fi "${fio_args[@]}"
		else
			timed fi "${fio_args[@]}"
			timed nv "${nv_args[@]}"
		fi
		results+=("$nv" "$nv_cpu" "$fi" "$fi_cpu")
	done
	python3 -c '
import json, statistics, sys
a = sys.argv[3:]
rows = [(json.loads(a[i]), float(a[i+1]), json.loads(a[i+2]), float(a[i+3])) for i in range(0, len(a), 4)]
med = statistics.median
nm = med(r[0]["mb_per_s"] for r in rows); fm = med(r[2]["mb_per_s"] for r in rows)
ni = med(r[0]["iops"] for r in rows); fi = med(r[2]["iops"] for r in rows)
# CPU without process start-up, counted the same way on both sides: the thread
# that submits and reaps (fio: usr_cpu + sys_cpu of its job, which fio takes
# from getrusage(RUSAGE_THREAD); nvmond: RUSAGE_THREAD too). io_uring worker
# threads (io-wq) are in neither; "nv all" is the whole nvmond process
# (RUSAGE_SELF: workers included), for which fio reports nothing comparable.
nc = med(r[0]["cpu_s"] / max(r[0]["ios"], 1) * 1e6 for r in rows)
na = med(r[0]["cpu_all_s"] / max(r[0]["ios"], 1) * 1e6 for r in rows)
fc = med(r[2]["cpu_s"] / max(r[2]["ios"], 1) * 1e6 for r in rows)
print("%-16s %-6s | %9.1f %9.0f %8.2f %8.2f | %9.1f %9.0f %8.2f | %6.3f %6.2f" % (sys.argv[1],
  sys.argv[2], nm, ni, nc, na, fm, fi, fc, nm / fm, nc / fc if fc else float("nan")))' "$preset" "$phase" "${results[@]}"
	bytes=
done
