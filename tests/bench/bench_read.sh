#!/usr/bin/env bash
# Benchmark (run by hand): reading every controller's identity and SMART log,
# nvmond vs nvme-cli, inside the QEMU guest with two emulated controllers.
# Under TCG absolute times mean little; the ratio of the two on the same
# emulated machine is the figure. Usage: tests/bench/bench_read.sh [BUILD_DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
export NVMOND_BIN=$build/nvmond NVMOND_BUILD=$build NVMOND_SRC=$here/../..
VM_GUEST_TIMEOUT=600 VM_TIMEOUT=700
. "$here/../vm/lib.sh"
vm_setup
vm_add_bin "$NVMOND_BIN" /usr/bin/nvmond
vm_guest_script "$here/bench_read.guest.sh"
vm_run || vm_fail "guest exited $VM_RC"
python3 - "$VM_OUT/bench.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
runs = int(lines[0].split()[1])
t = {}
for l in lines[1:]:
    if l.strip():
        name, ms = l.split()
        t.setdefault(name, []).append(int(ms))
cli, nv = min(t["nvmecli"]), min(t["nvmond_status"])
print("%-34s %10s %12s" % ("reader (2 controllers, %d runs)" % runs, "total ms", "ms per run"))
print("%-34s %10d %12.1f" % ("nvme list + id-ctrl + smart-log", cli, cli / runs))
print("%-34s %10d %12.1f" % ("nvmond status --json", nv, nv / runs))
print("ratio nvme-cli / nvmond: %.2fx (above 1: nvmond is faster)" % (cli / nv))
PY
