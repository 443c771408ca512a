#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): every probe preset with nvmond's engine
# and with fio (--ioengine=io_uring --direct=1, same block size, depth and size)
# inside the QEMU test VM (tests/vm), on an emulated NVMe namespace and on
# Linux's null_blk (no device work at all: pure engine overhead). Under TCG the
# absolute numbers mean little; the ratios are what to look at.
#
# Usage: tests/bench/probe-bench-vm.sh BUILD_DIR [SECONDS] [ROUNDS]
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR [SECONDS] [ROUNDS]}" && pwd)
secs=${2:-2}
rounds=${3:-3}
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v fio > /dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 1; }
export NVMOND_BUILD=$build
# Before lib.sh, which defaults them (150 s for the guest: far too short here).
VM_GUEST_TIMEOUT=${VM_GUEST_TIMEOUT:-1500}
VM_TIMEOUT=${VM_TIMEOUT:-1700}
. "$src/tests/vm/lib.sh"

vm_setup
vm_add_bin "$build/tests/nvmond-probe-bench" /usr/bin/nvmond-probe-bench || vm_fail "copy bench"
vm_add_bin "$(command -v fio)" /usr/bin/fio || vm_fail "copy fio"
vm_add_modules null_blk || : # the guest says so when /dev/nullb0 is missing
cat > "$VM_RUN/guest.sh" <<GUEST
. /etc/vm/guest-lib.sh
vm_load_extra_modules
[ -b /dev/nullb0 ] || { echo "no /dev/nullb0"; exit 2; }
ns=\$(vm_ctrl_ns \$(vm_ctrl_by_serial NVMOND-VM-0000) | head -n 1)
size=\$((128 * 1024 * 1024))
cat > /tmp/runs <<RUNS
seq1m-q8 read read 1048576 8
seq1m-q8 write write 1048576 8
seq1m-q1 read read 1048576 1
seq1m-q1 write write 1048576 1
rnd4k-q32 read randread 4096 32
rnd4k-q32 write randwrite 4096 32
rnd4k-q1 read randread 4096 1
rnd4k-q1 write randwrite 4096 1
copy-self copy copy 1048576 8
sustained-write write write 1048576 8 \$((2 * size))
RUNS
n=0
for target in /dev/nullb0 /dev/\$ns; do
	while read -r preset phase rw bs depth bytes; do
		i=0
		while [ \$i -lt $rounds ]; do
			n=\$((n + 1))
			f=\$VM_OUT/\$n
			echo "\$target \$preset \$phase" > \$f.what
			if [ -n "\$bytes" ]; then
				nvmond-probe-bench \$target \$rw \$bs \$depth \$size 0 \$bytes > \$f.nv
				fio --name=p --filename=\$target --ioengine=io_uring --direct=1 --bs=\$bs \\
					--iodepth=\$depth --size=\$size --rw=\$rw --io_size=\$bytes \\
					--output-format=json > \$f.fio
			elif [ \$rw = copy ]; then
				nvmond-probe-bench \$target copy \$bs \$depth \$size $secs > \$f.nv
				h=\$((size / 2))
				fio --ioengine=io_uring --direct=1 --bs=\$bs --iodepth=\$depth \\
					--output-format=json --group_reporting --time_based --runtime=$secs \\
					--name=r --filename=\$target --rw=read --offset=0 --size=\$h \\
					--name=w --filename=\$target --rw=write --offset=\$h --size=\$h > \$f.fio
			else
				nvmond-probe-bench \$target \$rw \$bs \$depth \$size $secs > \$f.nv
				fio --name=p --filename=\$target --ioengine=io_uring --direct=1 --bs=\$bs \\
					--iodepth=\$depth --size=\$size --rw=\$rw --time_based \\
					--runtime=$secs --output-format=json > \$f.fio
			fi
			i=\$((i + 1))
		done
	done < /tmp/runs
done
echo "runs: \$n"
GUEST
vm_guest_script "$VM_RUN/guest.sh"
vm_run || true
cat "$VM_OUT/guest.log" 2> /dev/null | tail -n 5
python3 - "$VM_OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = {}
for w in sorted(glob.glob(os.path.join(out, "*.what")), key=lambda p: int(os.path.basename(p)[:-5])):
    base = w[:-5]
    try:
        nv = json.load(open(base + ".nv"))
        fj = json.load(open(base + ".fio"))
    except Exception as e:
        print("skipped %s: %s" % (open(w).read().strip(), e))
        continue
    jobs = fj["jobs"]
    ios = sum(x["read"]["total_ios"] + x["write"]["total_ios"] for x in jobs)
    rt = max(max(x["read"]["runtime"], x["write"]["runtime"]) for x in jobs) / 1000.0
    by = sum(x["read"]["io_bytes"] + x["write"]["io_bytes"] for x in jobs)
    cpu = sum((x["usr_cpu"] + x["sys_cpu"]) / 100.0 * max(x["read"]["runtime"], x["write"]["runtime"]) / 1000.0 for x in jobs)
    f = {"mb_per_s": by / rt / 1e6, "iops": ios / rt, "cpu_io": cpu / max(ios, 1) * 1e6}
    # CPU of the submitting thread on both sides (fio takes usr/sys_cpu from
    # getrusage(RUSAGE_THREAD), so its io_uring workers are not in it); "nv all":
    # the whole nvmond process, workers included.
    n = {"mb_per_s": nv["mb_per_s"], "iops": nv["iops"], "cpu_io": nv["cpu_s"] / max(nv["ios"], 1) * 1e6,
         "all_io": nv["cpu_all_s"] / max(nv["ios"], 1) * 1e6}
    rows.setdefault(open(w).read().strip(), []).append((n, f))
print("%-12s %-16s %-6s | %9s %9s %8s %8s | %9s %9s %8s | %6s %6s" % ("target", "preset", "phase",
      "nv MB/s", "nv IOPS", "nv µs/IO", "nv all", "fio MB/s", "fio IOPS", "fio µs/IO", "MB/s×", "CPU×"))
med = statistics.median
for k, v in rows.items():
    t, p, ph = k.split()
    nm = med(a["mb_per_s"] for a, b in v); fm = med(b["mb_per_s"] for a, b in v)
    ni = med(a["iops"] for a, b in v); fi = med(b["iops"] for a, b in v)
    nc = med(a["cpu_io"] for a, b in v); fc = med(b["cpu_io"] for a, b in v)
    na = med(a["all_io"] for a, b in v)
    print("%-12s %-16s %-6s | %9.1f %9.0f %8.2f %8.2f | %9.1f %9.0f %8.2f | %6.3f %6.2f" % (t, p, ph,
          nm, ni, nc, na, fm, fi, fc, nm / fm if fm else 0, nc / fc if fc else float("nan")))
PY
