#!/usr/bin/env bash
# A repeated run, the write cache and its recovery on an emulated controller: QEMU throttles
# controller 0's image with a burst bucket (writes run at BURST bytes/s until
# about BURST × BURST_S bytes, then at RATE, and idle time drains the bucket at
# RATE), which is how an SLC cache behaves seen from the host. A
# sustained-write on a probe file must find that cliff and measure the cache at
# the bucket's size; the cache-recovery study must then see slow bursts while
# the bucket is full and a burst at ≥ 95 % of the rate before the cliff once
# idle time has drained it, and everything it reports as written must reach
# the drive (nvme-cli's data_units_written).
# Env (from ctest): NVMOND_BIN, NVMOND_SRC, NVMOND_BUILD. Exit 77 = skipped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ -n "${NVMOND_BIN:-}" ] && [ -x "$NVMOND_BIN" ] || vm_skip "NVMOND_BIN not set or not executable"

BURST=160000000  # bytes/s while the bucket has room
BURST_S=2        # seconds of BURST the bucket holds
RATE=32000000    # bytes/s once it is full, and its drain rate when idle
export VM_NVME_COUNT=1 VM_NVME_SIZE_0=1G
export VM_NVME_DRIVE_OPTS_0=",throttling.bps-write=$RATE,throttling.bps-write-max=$BURST,throttling.bps-write-max-length=$BURST_S"
vm_setup
vm_add_bin "$NVMOND_BIN" /usr/bin/nvmond || vm_fail "could not copy $NVMOND_BIN and its libraries"
vm_add_modules ext4 && grep -q ext4.ko "$VM_OVERLAY/vm/extra-modules" ||
	vm_skip "no ext4 module for $VM_KVER"
vm_guest_script "$here/probe_cache.guest.sh"

VM_GUEST_TIMEOUT=200 VM_TIMEOUT=300 vm_run
rc=$?
echo "----- guest script output -----"
cat "$VM_OUT/guest.log" 2>/dev/null
echo "-------------------------------"
case $rc in
123 | 124 | 125 | 126 | 127) vm_fail "the VM run failed (rc=$rc), see above" ;;
esac
[ $rc -eq 0 ] || vm_fail "the guest script exited $rc"

"$VM_PYTHON" - "$VM_OUT" "$BURST" "$BURST_S" "$RATE" <<'PY'
import json, os, sys
out, burst, burst_s, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
errors = []
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        errors.append(what)
def load(name):
    return json.load(open(os.path.join(out, name)))
def rc(name):
    return int(open(os.path.join(out, name + ".rc")).read())
def units(name):
    return int(load("nvme0." + name + ".json")["data_units_written"])

# 0. A repeated run: one series of three runs with best, median and spread.
rp = load("repeat.json")
ser = rp.get("series") or {}
check(rc("repeat") == 0 and ser.get("of") == 3 and ser.get("measured") == 3 and ser.get("complete"),
      "seq1m-q8 --repeat 3: a complete series of 3: %s" % {k: ser.get(k) for k in ("of", "measured", "complete", "note")})
check(len({x["id"] for x in ser.get("runs", [])}) == 3, "three runs: %s" % ser.get("runs"))
for ph in ser.get("phases", []):
    v = sorted(ph["mb_per_s"])
    check(len(v) == 3 and ph["best_mb_per_s"] == v[-1] and ph["median_mb_per_s"] == v[1] and
          abs(ph["spread"] - (v[-1] - v[0]) / v[1]) < 1e-3,
          "%s: best %.0f, median %.0f, spread %.3f of %s" % (ph["name"], ph["best_mb_per_s"],
          ph["median_mb_per_s"], ph["spread"], [round(x) for x in ph["mb_per_s"]]))

# 1. The sustained-write finds the bucket's edge as a cliff.
s = load("sustained.json")
check(rc("sustained") == 0, "sustained-write exit 0: %s %s" % (s.get("state"), s.get("reason")))
cliffs = [e for p in s["phases"] for e in p.get("events", []) if e["kind"] == "cliff"]
check(len(cliffs) == 1, "one cliff: %s" % cliffs)
if cliffs:
    c = cliffs[0]
    bucket = burst * burst_s
    # The layout and the first intervals are part of the bucket too: between a
    # half and 1.5 times it.
    check(bucket / 2 <= c["bytes_before"] <= bucket * 1.5,
          "cache measured %.0f MB, the bucket holds about %.0f MB" % (c["bytes_before"] / 1e6, bucket / 1e6))
    check(0.7 * burst / 1e6 <= c["mb_per_s_before"] <= 1.1 * burst / 1e6,
          "rate before the cliff %.1f MB/s (throttle %.0f)" % (c["mb_per_s_before"], burst / 1e6))
    check(0.5 * rate / 1e6 <= c["mb_per_s_during"] <= 1.5 * rate / 1e6,
          "rate after the cliff %.1f MB/s (throttle %.0f)" % (c["mb_per_s_during"], rate / 1e6))

# 2. The study: slow bursts first, then one at >= 95 % of the rate before.
r = load("recovery.json")
check(rc("recovery") == 0, "cache-recovery exit 0")
rec = r.get("recovery") or {}
pts = rec.get("points", [])
print("study: %s, %s; points %s" % (rec.get("state"), rec.get("verdict"),
      [(p["idle_s"], p["mb_s"], p["pct"]) for p in pts]))
check(rec.get("state") == "recovered", "the study ends recovered: %s" % rec.get("state"))
check(len(pts) >= 2, "at least one slow burst before the recovered one")
if pts:
    check(pts[-1]["pct"] >= 95 and all(p["pct"] < 95 for p in pts[:-1]),
          "only the last burst is at >= 95 %")
    check(pts[0]["pct"] < 80, "the first burst (bucket still full) is slow: %.0f %%" % pts[0]["pct"])
    check(rec.get("verdict", "").startswith("cache recovered after ") and rec["verdict"].endswith(" idle"),
          "verdict: %s (last burst after %.1f s)" % (rec.get("verdict"), pts[-1]["idle_s"]))
    check(all(b["idle_s"] > a["idle_s"] for a, b in zip(pts, pts[1:])), "idle times grow")

# 3. What they report as written reached the drive (data units of 512,000
# bytes; QEMU rounds its byte count up at each read, so a difference of two
# reads may be one unit short; ext2 metadata adds a few blocks).
written = s["bytes_written"]
d = units("after_sustained") - units("before")
check(written <= (d + 1) * 512000 and d * 512000 <= written + 2 * 1024 * 1024 + 512000,
      "sustained-write: drive counted %d units for %d bytes reported" % (d, written))
area = 64 << 20
d = units("after_recovery") - units("after_sustained")
lo = len(pts) * area
hi = rec.get("fill_bytes", 0) + len(pts) * area + 4 * 1024 * 1024
check(lo <= (d + 1) * 512000 and d * 512000 <= hi,
      "cache-recovery: drive counted %d MB for %d bursts of %d MB and a fill of at most %d MB"
      % (d * 512000 / 1e6, len(pts), area / 1e6, rec.get("fill_bytes", 0) / 1e6))
sys.exit(1 if errors else 0)
PY
