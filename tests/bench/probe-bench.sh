#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): every probe preset with nvmond's engine
# and with fio (--ioengine=io_uring --direct=1, same block size, depth and size)
# twice, once with fio's default buffers (--iomem=malloc: 4 KiB pages) and once
# with huge-page buffers (--iomem=shmhuge, as nvmond's engine has its 1 MiB
# buffers on huge pages), on the same target, one after the other, the three
# taking turns to go first; prints MB/s, IOPS and CPU per I/O of each and the
# ratio of nvmond to the better fio (by MB/s). For shmhuge the script raises
# /proc/sys/vm/nr_hugepages while it runs (again before each fio run: other
# benches may shrink the pool) and puts it back after, when run as root;
# without the huge pages the shmhuge column says n/a.
# NVBENCH=PATH in the environment: another nvmond-probe-bench binary (A/B).
#
# Usage: tests/bench/probe-bench.sh BUILD_DIR TARGET [SIZE] [SECONDS]
#   TARGET: a file (made and filled if missing; on a filesystem with O_DIRECT,
#           not tmpfs) or a block device (its first SIZE bytes are overwritten!)
#   SIZE:   bytes of the target used (default 1 GiB); SECONDS per run (default 5)
#   ROUNDS=N in the environment: rounds per preset (default 3, a multiple of 3:
#           each of the three runs goes first equally often);
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

# fio's huge-page buffers come from the hugetlb pool: at most 2 jobs (copy) ×
# depth 32 × 1 MiB would be 32 pages of 2 MiB; the presets need at most 10.
# shellcheck source=tests/bench/huge-lib.sh
. "$(dirname "$0")/huge-lib.sh"
huge_init 24

# fio_run MEM RW BS DEPTH [IO_SIZE] -> the same JSON fields as nvmond-probe-bench;
# {"engine": "n/a"} when MEM is shmhuge and the huge pages are missing
fio_run() {
	local mem=$1 rw=$2 bs=$3 depth=$4 io_size=${5:-} out
	if [ "$mem" = shmhuge ] && ! huge_raise; then
		echo '{"engine": "n/a"}'
		return
	fi
	local args=(--name=p --filename="$target" --ioengine=io_uring --direct=1 --bs="$bs"
		--iodepth="$depth" --size="$size" --output-format=json --randrepeat=0
		--refill_buffers=0 --buffer_compress_percentage=0 --iomem="$mem")
	if [ "$rw" = copy ]; then
		# Two jobs at once in one group: read the first half, write the second.
		local half=$((size / 2))
		args=(--ioengine=io_uring --direct=1 --bs="$bs" --iodepth="$depth" --iomem="$mem"
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
print(json.dumps({"engine": "fio " + sys.argv[2], "secs": secs, "mb_per_s": (rd + wr) / secs / 1e6,
  "iops": ios / secs, "cpu_s": cpu, "ios": ios, "rd_mb_per_s": rd / secs / 1e6,
  "wr_mb_per_s": wr / secs / 1e6}))' "$out" "$mem"
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
trap 'huge_restore; rm -rf "$tmp"' EXIT

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
rounds=${ROUNDS:-3} # a multiple of 3: nvmond, fio malloc, fio shmhuge each go first equally often
echo "target $target, $size bytes, ${secs} s per run, median of $rounds rotating rounds," \
	"PLAIN_RING=${PLAIN_RING:-0}, fio $(fio --version); fio = the better of malloc and shmhuge by MB/s"
printf '%-16s %-6s | %9s %9s %8s %8s | %9s %9s | %9s %9s %8s | %6s %6s\n' preset phase \
	"nv MB/s" "nv IOPS" "nv µs/IO" "nv all" "malloc" "shmhuge" "fio MB/s" "fio IOPS" \
	"fio µs/IO" "MB/s×" "CPU×"
for r in "${runs[@]}"; do
	read -r preset phase rw bs depth bytes <<< "$r"
	if [ -n "${PRESETS:-}" ] && [[ " $PRESETS " != *" $preset "* ]]; then
		bytes=
		continue
	fi
	results=()
	for ((i = 0; i < rounds; i++)); do
		nv_args=("$bench" "$target" "$rw" "$bs" "$depth" "$size" "$secs")
		fm_args=(fio_run malloc "$rw" "$bs" "$depth")
		fh_args=(fio_run shmhuge "$rw" "$bs" "$depth")
		if [ -n "${bytes:-}" ]; then
			nv_args=("$bench" "$target" "$rw" "$bs" "$depth" "$size" 0 "$bytes")
			fm_args+=("$bytes")
			fh_args+=("$bytes")
		fi
		case $((i % 3)) in
		0)
			timed nv "${nv_args[@]}"
			timed fm "${fm_args[@]}"
			timed fh "${fh_args[@]}"
			;;
		1)
			timed fm "${fm_args[@]}"
			timed fh "${fh_args[@]}"
			timed nv "${nv_args[@]}"
			;;
		2)
			timed fh "${fh_args[@]}"
			timed nv "${nv_args[@]}"
			timed fm "${fm_args[@]}"
			;;
		esac
		results+=("$nv" "$fm" "$fh")
	done
	python3 -c '
import json, statistics, sys
a = sys.argv[3:]
rows = [(json.loads(a[i]), json.loads(a[i+1]), json.loads(a[i+2])) for i in range(0, len(a), 3)]
med = statistics.median
# CPU without process start-up, counted the same way on both sides: the thread
# that submits and reaps (fio: usr_cpu + sys_cpu of its job, which fio takes
# from getrusage(RUSAGE_THREAD); nvmond: RUSAGE_THREAD too). io_uring worker
# threads (io-wq) are in neither; "nv all" is the whole nvmond process
# (RUSAGE_SELF: workers included), for which fio reports nothing comparable.
def stats(col, key="cpu_s"):
    runs = [r[col] for r in rows if r[col]["engine"] != "n/a"]
    if not runs:
        return None
    return (med(x["mb_per_s"] for x in runs), med(x["iops"] for x in runs),
            med(x[key] / max(x["ios"], 1) * 1e6 for x in runs))
nv, fm, fh = stats(0), stats(1), stats(2)
na = stats(0, "cpu_all_s")[2]
best = fh if fh and fh[0] > fm[0] else fm
print("%-16s %-6s | %9.1f %9.0f %8.2f %8.2f | %9.1f %9s | %9.1f %9.0f %8.2f | %6.3f %6.2f" % (
  sys.argv[1], sys.argv[2], nv[0], nv[1], nv[2], na, fm[0], "%.1f" % fh[0] if fh else "n/a",
  best[0], best[1], best[2], nv[0] / best[0], nv[2] / best[2] if best[2] else float("nan")))' \
		"$preset" "$phase" "${results[@]}"
	bytes=
done
