#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): copy-to (issue 13 §5) with nvmond's
# engine and with fio side by side, on two files in DIR: read file A while
# writing file B, 1 MiB transfers, 8 in flight each way, SECONDS long. fio runs
# two jobs in one run (one reads A, one writes B; io_uring, O_DIRECT). The same
# buffer memory: nvmond's copy has 2 × 8 buffers of 1 MiB in one region on 2 MiB
# huge pages (transparent huge pages), fio 8 per job with --iomem=shmhuge, for
# which the script raises /proc/sys/vm/nr_hugepages while it runs and puts it
# back after, when run as root (as sweep-bench.sh does). Each tool goes first
# every other round; the table has the medians and the ratio nvmond / fio.
#
# Usage: tests/bench/copyto-bench.sh BUILD_DIR DIR [SIZE] [SECONDS]
#   DIR:     a directory on a filesystem with O_DIRECT (not tmpfs); the files
#            DIR/nvmond-copyto-a.dat and -b.dat (SIZE bytes each, default 1 GiB)
#            are made there and removed after. Never a block device.
#   SECONDS: per run (default 5); ROUNDS=N in the environment (default 4, even).
#            Without enough huge pages (not root) fio uses malloc, and the
#            header says so.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR DIR [SIZE] [SECONDS]}
dir=${2:?usage: $0 BUILD_DIR DIR [SIZE] [SECONDS]}
size=${3:-1073741824}
secs=${4:-5}
rounds=${ROUNDS:-4}
bs=1048576
depth=8
bench=${NVBENCH:-$build/tests/nvmond-probe-bench}
[ -x "$bench" ] || { echo "$bench missing: build the tests first" >&2; exit 1; }
[ -d "$dir" ] || { echo "$dir is not a directory" >&2; exit 1; }
command -v fio > /dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 1; }
a=$dir/nvmond-copyto-a.dat
b=$dir/nvmond-copyto-b.dat
tmp=$(mktemp -d)
# fio's huge-page buffers: depth × 1 MiB per job, two jobs (huge-lib.sh).
# shellcheck source=tests/bench/huge-lib.sh
. "$(dirname "$0")/huge-lib.sh"
huge_init "$(huge_pages_for $((depth * bs)) 2)"
trap 'huge_restore; rm -rf "$tmp" "$a" "$b"' EXIT
mem=shmhuge
if ! huge_raise; then
	mem=malloc
	echo "fewer than $huge_need free huge pages: fio uses malloc" >&2
fi
echo "laying out $a and $b ($size bytes each)" >&2
for f in "$a" "$b"; do
	dd if=/dev/urandom of="$f" bs=1M count=$((size / 1048576)) oflag=direct status=none
done

# fio_run: prints read MB/s, write MB/s, CPU µs per I/O. Each side's output is
# parsed after its run, never piped: a python3 started beside the run competes
# for the CPUs during its first ~50 ms (sweep-bench.sh, README).
fio_run() {
	[ "$mem" = malloc ] || huge_raise || true
	local out
	out=$(fio --ioengine=io_uring --direct=1 --bs=$bs --iodepth=$depth --iomem=$mem \
		--time_based --runtime="$secs" --output-format=json --refill_buffers=0 \
		--buffer_compress_percentage=0 \
		--name=r --filename="$a" --rw=read --size="$size" \
		--name=w --filename="$b" --rw=write --size="$size")
	python3 -c '
import json, sys
jobs = json.load(sys.stdin)["jobs"]
rd = sum(x["read"]["io_bytes"] for x in jobs); wr = sum(x["write"]["io_bytes"] for x in jobs)
ios = sum(x["read"]["total_ios"] + x["write"]["total_ios"] for x in jobs)
secs = max(max(x["read"]["runtime"], x["write"]["runtime"]) for x in jobs) / 1000.0
cpu = sum((x["usr_cpu"] + x["sys_cpu"]) / 100.0 * max(x["read"]["runtime"], x["write"]["runtime"]) / 1000.0 for x in jobs)
print(rd / secs / 1e6, wr / secs / 1e6, cpu / max(ios, 1) * 1e6)' <<< "$out"
}
# nv_run: the same with nvmond's engine (probe_engine_run_copy, as copy-to runs it)
nv_run() {
	local out
	out=$("$bench" "$a,$b" copy-to $bs $depth "$size" "$secs")
	python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["rd_mb_per_s"], j["wr_mb_per_s"], j["cpu_s"] / max(j["ios"], 1) * 1e6)' <<< "$out"
}

: > "$tmp/nv"
: > "$tmp/fio"
for ((i = 0; i < rounds; i++)); do
	if ((i % 2 == 0)); then
		nv_run >> "$tmp/nv"
		fio_run >> "$tmp/fio"
	else
		fio_run >> "$tmp/fio"
		nv_run >> "$tmp/nv"
	fi
done
echo "copy-to on $a → $b: $size bytes each, 1 MiB, QD $depth each way, ${secs} s per run," \
	"median of $rounds alternating rounds, $(fio --version), fio buffers: $mem"
python3 - "$tmp/nv" "$tmp/fio" << 'PY'
import statistics, sys
nv = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
fio = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
med = lambda rows, k: statistics.median(r[k] for r in rows)
print("%-10s %12s %12s %10s" % ("", "read MB/s", "write MB/s", "CPU µs/IO"))
for name, rows in (("nvmond", nv), ("fio", fio)):
    print("%-10s %12.1f %12.1f %10.2f" % (name, med(rows, 0), med(rows, 1), med(rows, 2)))
print("%-10s %12.3f %12.3f %10.3f" % ("nv / fio", med(nv, 0) / med(fio, 0), med(nv, 1) / med(fio, 1),
      med(nv, 2) / med(fio, 2)))
PY
