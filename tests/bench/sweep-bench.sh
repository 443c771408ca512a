#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): the sweep preset's points with nvmond's
# engine and with fio side by side, on one file in DIR: sequential read, then
# write, at every power of two from the file's O_DIRECT alignment to 64 MiB,
# at the same depth, with the sweep's per-point limits (SECONDS, and 1 GiB for
# a read, 256 MiB for a write, at most the file) on both sides; the same buffer
# memory: depth × size in one region, on 2 MiB huge pages from 64 KiB transfers
# up (nvmond: transparent huge pages; fio: --iomem=shmhuge, for which the script
# raises /proc/sys/vm/nr_hugepages while it runs and puts it back after, when
# run as root), page-aligned malloc below (fio --iomem=malloc). Each tool goes
# first every other round; the table has the medians and the ratio nvmond / fio.
#
# Usage: tests/bench/sweep-bench.sh BUILD_DIR DIR [SIZE] [SECONDS]
#   DIR:     a directory on a filesystem with O_DIRECT (not tmpfs); the file
#            DIR/nvmond-sweep-bench.dat (SIZE bytes, default 1 GiB) is made there
#            and removed after. Never a block device.
#   SECONDS: per point (default 1.5, the sweep's); DEPTH=N in the environment
#            (default 4, [probes] sweep_depth); ROUNDS=N (default 2).
#            Without enough huge pages (not root) fio uses malloc throughout,
#            and the header says so.
#   To look closer at some points (not the sweep's limits then, and the header
#   says so): DIRS="write" (read, write: only these directions), SIZES="131072
#   1048576" (only these transfer sizes, in bytes), WRITE_BYTES=N (a write
#   point's limit instead of 256 MiB; a longer point measures more than the
#   start of the queue).
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR DIR [SIZE] [SECONDS]}
dir=${2:?usage: $0 BUILD_DIR DIR [SIZE] [SECONDS]}
size=${3:-1073741824}
secs=${4:-1.5}
depth=${DEPTH:-4}
rounds=${ROUNDS:-2}
bench=${NVBENCH:-$build/tests/nvmond-probe-bench}
[ -x "$bench" ] || { echo "$bench missing: build the tests first" >&2; exit 1; }
[ -d "$dir" ] || { echo "$dir is not a directory" >&2; exit 1; }
command -v fio > /dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 1; }
target=$dir/nvmond-sweep-bench.dat
tmp=$(mktemp -d)
# fio's huge-page buffers come from the hugetlb pool: depth × 64 MiB at the
# largest point, in 2 MiB pages, and two spare.
# shellcheck source=tests/bench/huge-lib.sh
. "$(dirname "$0")/huge-lib.sh"
huge_init "$(((depth * 67108864 / 1024 + huge_kb - 1) / huge_kb + 2))"
trap 'huge_restore; rm -rf "$tmp" "$target"' EXIT
huge_mem=shmhuge
if ! huge_raise; then
	huge_mem=malloc
	echo "fewer than $huge_need free huge pages: fio uses malloc at every size" >&2
fi
echo "laying out $target ($size bytes)" >&2
dd if=/dev/urandom of="$target" bs=1M count=$((size / 1048576)) oflag=direct status=none
# The smallest transfer the file takes with O_DIRECT (statx DIO alignment).
align=$(python3 -c '
import os, sys
for bs in (512, 1024, 2048, 4096):
    try:
        fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
        import mmap
        m = mmap.mmap(-1, 4096)
        os.preadv(fd, [memoryview(m)[:bs]], 0)
        print(bs); break
    except OSError:
        pass
    finally:
        os.close(fd)
' "$target")
point_bytes=1073741824
write_bytes=${WRITE_BYTES:-268435456}
dirs=${DIRS:-read write}
ms=$(python3 -c "print(int($secs * 1000))")

# fio_mem BS: fio's buffer memory for transfers of BS bytes, as nvmond's engine
# has it (huge pages from 64 KiB, HUGE_MIN_BLOCK in probe_engine.c)
fio_mem() {
	if [ "$1" -ge 65536 ]; then echo "$huge_mem"; else echo malloc; fi
}
# fio_run RW BS MAX_BYTES: the point with fio; prints MB/s IOPS CPU-µs/IO
fio_run() {
	[ "$huge_mem" = shmhuge ] && [ "$2" -ge 65536 ] && ! huge_raise &&
		echo "fewer than $huge_need free huge pages: fio's shmhuge may fail" >&2
	fio --name=p --filename="$target" --ioengine=io_uring --direct=1 --rw="$1" --bs="$2" \
		--iodepth="$depth" --size="$size" --io_size="$3" --runtime="${ms}ms" \
		--iomem="$(fio_mem "$2")" --output-format=json --refill_buffers=0 \
		--buffer_compress_percentage=0 | python3 -c '
import json, sys
x = json.load(sys.stdin)["jobs"][0]
d = x[sys.argv[1]]
secs = d["runtime"] / 1000.0
cpu = (x["usr_cpu"] + x["sys_cpu"]) / 100.0 * secs
print(d["io_bytes"] / secs / 1e6, d["total_ios"] / secs, cpu / max(d["total_ios"], 1) * 1e6)' "$1"
}
# nv_run RW BS MAX_BYTES: the same with nvmond's engine
nv_run() {
	"$bench" "$target" "$1" "$2" "$depth" "$size" "$secs" "$3" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["mb_per_s"], j["iops"], j["cpu_s"] / max(j["ios"], 1) * 1e6)'
}

echo "sweep on $target: $size bytes, depth $depth, per point ${secs} s and at most 1 GiB" \
	"(writes: $((write_bytes >> 20)) MiB and the file), median of $rounds alternating rounds," \
	"fio $(fio --version), fio buffers from 64 KiB: $huge_mem"
[ -n "${SIZES:-}${DIRS:-}${WRITE_BYTES:-}" ] &&
	echo "not the sweep: DIRS=${DIRS:-} SIZES=${SIZES:-} WRITE_BYTES=${WRITE_BYTES:-}"
printf '%-5s %8s | %10s %10s %7s | %7s %7s\n' dir size "nvmond MB/s" "fio MB/s" "ratio" \
	"nv µs/IO" "fio µs/IO"
for rw in $dirs; do
	for ((bs = align; bs <= 67108864 && bs <= size; bs *= 2)); do
		[ -n "${SIZES:-}" ] && [[ " $SIZES " != *" $bs "* ]] && continue
		max=$point_bytes
		[ "$rw" = write ] && max=$write_bytes
		[ "$rw" = write ] && [ "$size" -lt "$max" ] && max=$size
		rows=()
		for ((i = 0; i < rounds; i++)); do
			if ((i % 2 == 0)); then
				nv=$(nv_run "$rw" "$bs" "$max")
				fi=$(fio_run "$rw" "$bs" "$max")
			else
				fi=$(fio_run "$rw" "$bs" "$max")
				nv=$(nv_run "$rw" "$bs" "$max")
			fi
			rows+=("$nv" "$fi")
		done
		python3 -c '
import statistics, sys
rw, bs = sys.argv[1], int(sys.argv[2])
v = [list(map(float, a.split())) for a in sys.argv[3:]]
nv, fi = v[0::2], v[1::2]
med = statistics.median
nm, fm = med(r[0] for r in nv), med(r[0] for r in fi)
nc, fc = med(r[2] for r in nv), med(r[2] for r in fi)
size = "%d B" % bs if bs < 1024 else "%d KiB" % (bs >> 10) if bs < 1 << 20 else "%d MiB" % (bs >> 20)
print("%-5s %8s | %10.1f %10.1f %7.3f | %7.2f %7.2f" % (rw, size, nm, fm, nm / fm, nc, fc))' \
			"$rw" "$bs" "${rows[@]}"
	done
done
