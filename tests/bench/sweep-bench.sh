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
#   SETTLE=S: seconds of idle before every run, on both sides (default 0).
#   fio takes about 0.3 s to start, nvmond's bench a few ms, so the run after
#   a write run starts sooner on nvmond's side; SETTLE evens that out. (On the
#   VM this was written on, 0 to 3 s of idle made no difference a 6-round
#   median could show.)
#   NVBENCH_OLD=PATH: another nvmond-probe-bench (e.g. a copy of the old build)
#   measured in the same rounds, taking turns with the other two; its columns
#   are added to the table.
#   PER_ROUND=1: every round's MB/s on stderr, in the order they ran.
#   CPU=LIST: every run on every side under `taskset -c LIST` (e.g. CPU=1).
#   Which CPU the submitting thread runs on, against the CPU that takes the
#   disk's completion interrupts, moved a 1 KiB read point by up to 20 % on
#   the VM this was written on, for fio and nvmond alike; the scheduler picks
#   it afresh for every run. Pinning both sides to one CPU takes that out of a
#   comparison of the two.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR DIR [SIZE] [SECONDS]}
dir=${2:?usage: $0 BUILD_DIR DIR [SIZE] [SECONDS]}
size=${3:-1073741824}
secs=${4:-1.5}
depth=${DEPTH:-4}
rounds=${ROUNDS:-2}
bench=${NVBENCH:-$build/tests/nvmond-probe-bench}
old_bench=${NVBENCH_OLD:-}
settle=${SETTLE:-0}
pin=()
[ -n "${CPU:-}" ] && pin=(taskset -c "$CPU")
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
	local out
	out=$("${pin[@]}" fio --name=p --filename="$target" --ioengine=io_uring --direct=1 --rw="$1" \
		--bs="$2" --iodepth="$depth" --size="$size" --io_size="$3" --runtime="${ms}ms" \
		--iomem="$(fio_mem "$2")" --output-format=json --refill_buffers=0 \
		--buffer_compress_percentage=0)
	python3 -c '
import json, sys
x = json.load(sys.stdin)["jobs"][0]
d = x[sys.argv[1]]
secs = d["runtime"] / 1000.0
cpu = (x["usr_cpu"] + x["sys_cpu"]) / 100.0 * secs
print(d["io_bytes"] / secs / 1e6, d["total_ios"] / secs, cpu / max(d["total_ios"], 1) * 1e6)' "$1" \
		<<< "$out"
}
# nv_run RW BS MAX_BYTES [BENCH]: the same with nvmond's engine. Each side's
# output is parsed after its run, never piped: a python3 started beside the
# run competes for the CPUs during its first ~50 ms. fio's 0.3 s start hid that
# from fio, but nvmond's engine lost 15-30 % on its short write points.
nv_run() {
	local out
	out=$("${pin[@]}" "${4:-$bench}" "$target" "$1" "$2" "$depth" "$size" "$secs" "$3")
	python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["mb_per_s"], j["iops"], j["cpu_s"] / max(j["ios"], 1) * 1e6)' <<< "$out"
}

echo "sweep on $target: $size bytes, depth $depth, per point ${secs} s and at most 1 GiB" \
	"(writes: $((write_bytes >> 20)) MiB and the file), median of $rounds alternating rounds," \
	"fio $(fio --version), fio buffers from 64 KiB: $huge_mem, ${settle} s idle before every run"
[ -n "${SIZES:-}${DIRS:-}${WRITE_BYTES:-}" ] &&
	echo "not the sweep: DIRS=${DIRS:-} SIZES=${SIZES:-} WRITE_BYTES=${WRITE_BYTES:-}"
[ -n "$old_bench" ] && echo "old: $old_bench"
[ -n "${CPU:-}" ] && echo "every run pinned: taskset -c $CPU"
printf '%-5s %8s | %10s %10s %7s | %7s %7s' dir size "nvmond MB/s" "fio MB/s" "ratio" \
	"nv µs/IO" "fio µs/IO"
[ -n "$old_bench" ] && printf ' | %8s %7s %7s' "old MB/s" "ratio" "µs/IO"
printf '\n'
# one_run WHO RW BS MAX: one run after the idle pause; prints MB/s IOPS CPU-µs/IO
one_run() {
	sleep "$settle"
	case $1 in
	nv) nv_run "$2" "$3" "$4" ;;
	old) nv_run "$2" "$3" "$4" "$old_bench" ;;
	fio) fio_run "$2" "$3" "$4" ;;
	esac
}
who=(nv fio)
[ -n "$old_bench" ] && who=(nv fio old)
for rw in $dirs; do
	for ((bs = align; bs <= 67108864 && bs <= size; bs *= 2)); do
		[ -n "${SIZES:-}" ] && [[ " $SIZES " != *" $bs "* ]] && continue
		max=$point_bytes
		[ "$rw" = write ] && max=$write_bytes
		[ "$rw" = write ] && [ "$size" -lt "$max" ] && max=$size
		rows=()
		n=${#who[@]}
		for ((i = 0; i < rounds; i++)); do
			# Each goes first in turn: round i starts with who[i mod n].
			declare -A got=()
			order=""
			for ((k = 0; k < n; k++)); do
				w=${who[(i + k) % n]}
				got[$w]=$(one_run "$w" "$rw" "$bs" "$max")
				order+=" $w ${got[$w]%% *}"
			done
			[ "${PER_ROUND:-}" = 1 ] && echo "$rw $bs round $i:$order" >&2
			rows+=("${got[nv]}" "${got[fio]}" "${got[old]:-0 0 0}")
			unset got
		done
		python3 -c '
import statistics, sys
rw, bs, has_old = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
v = [list(map(float, a.split())) for a in sys.argv[4:]]
nv, fi, old = v[0::3], v[1::3], v[2::3]
med = statistics.median
nm, fm, om = (med(r[0] for r in x) for x in (nv, fi, old))
nc, fc, oc = (med(r[2] for r in x) for x in (nv, fi, old))
size = "%d B" % bs if bs < 1024 else "%d KiB" % (bs >> 10) if bs < 1 << 20 else "%d MiB" % (bs >> 20)
line = "%-5s %8s | %10.1f %10.1f %7.3f | %7.2f %7.2f" % (rw, size, nm, fm, nm / fm, nc, fc)
if has_old:
    line += " | %8.1f %7.3f %7.2f" % (om, om / fm, oc)
print(line)' \
			"$rw" "$bs" "$([ -n "$old_bench" ] && echo 1 || echo 0)" "${rows[@]}"
	done
done
