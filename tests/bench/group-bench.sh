#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): a group run (issue 13 §4, several
# drives at once) of seq1m-q8 with nvmond's engine and with fio side by side,
# on two files in two directories under DIR (standing in for two drives' probe
# files; never a block device). Both phases as the preset runs them: reads of
# 1 MiB, 8 in flight per file, for SECONDS; then writes, the same, for SECONDS
# or one pass of the file, whichever comes first. nvmond: one thread per file,
# started together at the group runs' barrier (nvmond-probe-bench A,B
# group-read / group-write). fio: ONE run, two jobs per phase (one per file),
# the write pair after a stonewall. The same buffer memory: depth × 1 MiB per
# file on 2 MiB huge pages (nvmond: transparent huge pages; fio: --iomem=shmhuge,
# for which the script raises /proc/sys/vm/nr_hugepages while it runs and puts
# it back after, when run as root). Each tool goes first every other round; the
# table has the medians per file and the total, and the ratio nvmond / fio.
#
# Usage: tests/bench/group-bench.sh BUILD_DIR DIR [SIZE] [SECONDS]
#   DIR:     a directory on a filesystem with O_DIRECT (not tmpfs); the files
#            DIR/nvmond-group-a/probe.dat and DIR/nvmond-group-b/probe.dat (SIZE
#            bytes each, default 1 GiB) are made there and removed after.
#   SECONDS: per phase (default 5, [probes] phase_duration's); ROUNDS=N in the
#            environment (default 4, even). Without enough huge pages (not
#            root) fio uses malloc, and the header says so.
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
da=$dir/nvmond-group-a
db=$dir/nvmond-group-b
a=$da/probe.dat
b=$db/probe.dat
tmp=$(mktemp -d)
# fio's huge-page buffers: depth × 1 MiB per job, four jobs (huge-lib.sh).
# shellcheck source=tests/bench/huge-lib.sh
. "$(dirname "$0")/huge-lib.sh"
huge_init "$(huge_pages_for $((depth * bs)) 4)"
trap 'huge_restore; rm -rf "$tmp" "$da" "$db"' EXIT
mem=shmhuge
if ! huge_raise; then
	mem=malloc
	echo "fewer than $huge_need free huge pages: fio uses malloc" >&2
fi
mkdir -p "$da" "$db"
echo "laying out $a and $b ($size bytes each)" >&2
for f in "$a" "$b"; do
	dd if=/dev/urandom of="$f" bs=1M count=$((size / 1048576)) oflag=direct status=none
done

# fio_run: one run, reads of both files together, then writes of both; prints
# "readA readB writeA writeB" MB/s. Each side's output is parsed after its run,
# never piped: a python3 started beside the run competes for the CPUs during its
# first ~50 ms (sweep-bench.sh, README).
fio_run() {
	[ "$mem" = malloc ] || huge_raise || true
	local out
	out=$(fio --ioengine=io_uring --direct=1 --bs=$bs --iodepth=$depth --iomem=$mem \
		--output-format=json --refill_buffers=0 --buffer_compress_percentage=0 \
		--size="$size" --runtime="$secs" \
		--name=rA --filename="$a" --rw=read --time_based \
		--name=rB --filename="$b" --rw=read --time_based \
		--name=wA --stonewall --filename="$a" --rw=write \
		--name=wB --filename="$b" --rw=write)
	python3 -c '
import json, sys
jobs = {x["jobname"]: x for x in json.load(sys.stdin)["jobs"]}
def rate(name, d):
    x = jobs[name][d]
    return x["io_bytes"] / (x["runtime"] / 1000.0) / 1e6
print(rate("rA", "read"), rate("rB", "read"), rate("wA", "write"), rate("wB", "write"))' \
		<<< "$out"
}
# nv_run: the same with nvmond's engine, a phase at a time (as the group run
# meets at the barrier before each phase); the write phase stops after one
# pass (probe_preset_job: max_bytes = the probe area)
nv_run() {
	local rd wr
	rd=$("$bench" "$a,$b" group-read $bs $depth "$size" "$secs")
	wr=$("$bench" "$a,$b" group-write $bs $depth "$size" "$secs" "$size")
	python3 -c '
import json, sys
v = [json.loads(l) for l in sys.stdin if l.strip()]
print(*[m["mb_per_s"] for j in v for m in j["members"]])' <<< "$rd
$wr"
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
echo "group seq1m-q8 on $a and $b: $size bytes each, 1 MiB, QD $depth per file," \
	"${secs} s per phase (writes: one pass at most), median of $rounds alternating rounds," \
	"$(fio --version), fio buffers: $mem"
python3 - "$tmp/nv" "$tmp/fio" << 'PY'
import statistics, sys
nv = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
fio = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
med = statistics.median
print("%-6s %-9s %12s %12s %8s" % ("phase", "drive", "nvmond MB/s", "fio MB/s", "ratio"))
for p, phase in enumerate(("read", "write")):
    cols = (2 * p, 2 * p + 1)
    for name, k in zip(("file A", "file B"), cols):
        n, f = med(r[k] for r in nv), med(r[k] for r in fio)
        print("%-6s %-9s %12.1f %12.1f %8.3f" % (phase, name, n, f, n / f))
    # the aggregate of each round, then its median
    n = med(sum(r[k] for k in cols) for r in nv)
    f = med(sum(r[k] for k in cols) for r in fio)
    print("%-6s %-9s %12.1f %12.1f %8.3f" % (phase, "together", n, f, n / f))
PY
