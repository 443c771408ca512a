#!/usr/bin/env bash
# Probes against emulated NVMe controllers in a QEMU guest: `nvmond probe` on a
# probe file on a filesystem of nvme0 writes exactly what it reports (the
# drive's data_units_written agrees), and every unsafe target is refused
# without a byte written: a mounted namespace, a directory on another
# filesystem or another drive, a raw namespace without destructive = yes.
# Then the sweep preset: read and write points on the probe file, only read
# points (from 512 B) on a raw namespace that may not be written. Then a group
# run (seq1m-q8 on a probe file on each controller, together) and a copy-to
# from nvme0 to nvme1: each drive counted what its run reported.
# Env (from ctest): NVMOND_BIN, NVMOND_SRC, NVMOND_BUILD. Exit 77 = skipped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ -n "${NVMOND_BIN:-}" ] && [ -x "$NVMOND_BIN" ] || vm_skip "NVMOND_BIN not set or not executable"

vm_setup
vm_add_bin "$NVMOND_BIN" /usr/bin/nvmond || vm_fail "could not copy $NVMOND_BIN and its libraries"
# Part 10 runs the daemon (its web root, and curl for a POST with a token).
curl_bin=$(command -v curl) || vm_skip "curl not installed on the host (copied into the guest)"
vm_add_bin "$curl_bin" /usr/bin/curl || vm_fail "could not copy $curl_bin"
mkdir -p "$VM_OVERLAY/usr/share/nvmond/web"
echo '<!doctype html><title>nvmond</title>' >"$VM_OVERLAY/usr/share/nvmond/web/index.html"
# ext4 (busybox mke2fs makes ext2; the ext4 driver mounts it), loaded by the guest script.
vm_add_modules ext4 && grep -q ext4.ko "$VM_OVERLAY/vm/extra-modules" ||
	vm_skip "no ext4 module for $VM_KVER"
vm_guest_script "$here/probe.guest.sh"

VM_GUEST_TIMEOUT=240 VM_TIMEOUT=340 vm_run
rc=$?
echo "----- guest script output -----"
cat "$VM_OUT/guest.log" 2>/dev/null
echo "-------------------------------"
case $rc in
123 | 124 | 125 | 126 | 127) vm_fail "the VM run failed (rc=$rc), see above" ;;
esac
[ $rc -eq 0 ] || vm_fail "the guest script exited $rc"

"$VM_PYTHON" - "$VM_OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
def units(name):
    return int(json.load(open(os.path.join(out, name)))["data_units_written"])
def rc(name):
    return int(open(os.path.join(out, name + ".rc")).read())
def text(name):
    return open(os.path.join(out, name)).read()
errors = []
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        errors.append(what)

# 1. A real probe on the probe file: what it reports reached the drive.
r = json.load(open(os.path.join(out, "probe1.json")))
check(rc("probe1") == 0 and r["state"] == "done", "seq1m-q8 on the probe file: " + r["state"] + " " + r["reason"])
check(r["engine"] == "io_uring", "engine io_uring: " + r["engine"])
w = r["bytes_written"]
layout = 64 << 20
check(w == layout + r["phases"][1]["write"]["bytes"], "bytes written = layout + write phase")
d = units("nvme0.after1.json") - units("nvme0.before1.json")
# Data units are 512,000 bytes, rounded up; ext2 metadata adds a few blocks.
check(w <= d * 512000 <= w + 2 * 1024 * 1024 + 512000,
      "drive counted %d units (%d bytes) for %d bytes reported" % (d, d * 512000, w))
check(units("nvme1.after1.json") == units("nvme1.before1.json"), "nothing written to nvme1")

# 2. Refusals: nothing written anywhere.
for name, want in [("mounted", "mounted"), ("tmpfs", "not on a block device"),
                   ("otherdrive", "not on nvme1"), ("rawcopy", "only read"),
                   ("symlink", "symlink")]:
    t = text(name + ".out")
    check(rc(name) != 0 and want in t, "%s refused (%s): %s" % (name, want, t.strip()[:200]))
check(units("nvme0.after2.json") == units("nvme0.after1.json"), "refusals wrote nothing to nvme0")
check(units("nvme1.after2.json") == units("nvme1.after1.json"), "refusals wrote nothing to nvme1")

# 3. A raw namespace without destructive: only its read phase runs.
r = json.load(open(os.path.join(out, "rawread.json")))
check(rc("rawread") == 0 and [p["name"] for p in r["phases"]] == ["read"] and r["bytes_written"] == 0,
      "raw nvme1n1 read-only: phases %s, reason %s" % ([p["name"] for p in r["phases"]], r["reason"]))
check(units("nvme1.after3.json") == units("nvme1.after2.json"), "raw read wrote nothing")

# 4. destructive = yes on an unused namespace: allowed, and counted by the drive.
r = json.load(open(os.path.join(out, "destructive.json")))
w = r["bytes_written"]
d = units("nvme1.after4.json") - units("nvme1.after3.json")
check(rc("destructive") == 0 and w > 0 and w <= d * 512000 < w + 512000,
      "destructive raw write: %d bytes reported, %d units counted" % (w, d))

# 5. The sweep: one point per power of two from the target's logical block size
# (the file's: its filesystem's device's, the O_DIRECT alignment) up to 64 MiB
# and the probe area, each with a rate; on a raw namespace that may not be
# written, only the read points (docs/probes.md, Sweep).
facts = dict(l.split() for l in open(os.path.join(out, "sweep.facts")))
lbs0, lbs1, size1 = int(facts["lbs0"]), int(facts["lbs1"]), int(facts["size1"])
check(lbs1 == 512, "the raw namespace has 512-byte LBAs: %d" % lbs1)
def sizes(lo, hi):
    v = []
    while lo <= min(hi, 64 << 20):
        v.append(lo)
        lo *= 2
    return v
def points(r, d):
    return [p["block_size"] for p in r["sweep"][d]]
def rates_ok(r, d):
    return all(p["mb_s"] > 0 and p["bytes"] > 0 for p in r["sweep"][d])
r = json.load(open(os.path.join(out, "sweepfile.json")))
want = sizes(lbs0, 64 << 20)
check(rc("sweepfile") == 0 and r["state"] == "done",
      "sweep on the probe file: %s %s (last point %s B %s: %s)"
      % (r["state"], r["reason"], r["phases"][-1]["block_size"], r["phases"][-1]["op"],
         r["phases"][-1]["stop"]))
check(r["sweep"]["depth"] == 4, "depth 4 (sweep_depth's default): %s" % r["sweep"]["depth"])
for d in ("read", "write"):
    check(points(r, d) == want, "file %s points %s, want %d from %d B to 64 MiB"
          % (d, points(r, d), len(want), lbs0))
    check(rates_ok(r, d), "file %s: MB/s > 0 at every point: %s"
          % (d, [round(p["mb_s"], 1) for p in r["sweep"][d]]))
w = r["bytes_written"]
check(w == sum(p["bytes"] for p in r["sweep"]["write"]), "bytes written = the write points' bytes")
d = units("nvme0.after5.json") - units("nvme0.before5.json")
# Both readings round up to whole units (the first one's did not start on a
# unit boundary), so the difference is within one unit of what was written.
check(w - 512000 < d * 512000 <= w + 2 * 1024 * 1024 + 512000,
      "drive counted %d units (%d bytes) for %d bytes reported" % (d, d * 512000, w))
check(units("nvme1.after5.json") == units("nvme1.before5.json"), "file sweep wrote nothing to nvme1")
r = json.load(open(os.path.join(out, "sweepraw.json")))
want = sizes(512, size1)
check(rc("sweepraw") == 0 and r["state"] == "done",
      "read-only sweep on raw nvme1n1: %s %s (last point %s B: %s)"
      % (r["state"], r["reason"], r["phases"][-1]["block_size"], r["phases"][-1]["stop"]))
check(points(r, "read") == want, "raw read points %s, want %d from 512 B to 64 MiB"
      % (points(r, "read"), len(want)))
check(rates_ok(r, "read"), "raw read: MB/s > 0 at every point: %s"
      % [round(p["mb_s"], 1) for p in r["sweep"]["read"]])
check(r["sweep"]["write"] == [] and r["bytes_written"] == 0, "raw: no write point, nothing written")
check(all(p.get("op") != "write" for p in r["phases"]), "raw: no write phase")
check(units("nvme1.after6.json") == units("nvme1.after5.json"), "the drive counted no write on nvme1")

# 7. A group run on a probe file on each controller (docs/probes.md, Several
# drives at once): both members done, the phases started together, and each
# member's bytes written reached its own controller.
def delta(ctrl, a, b):
    return units("%s.%s.json" % (ctrl, b)) - units("%s.%s.json" % (ctrl, a))
def agrees(w, d):
    # as in 1.: units of 512,000 bytes rounded up, ext2 metadata a few blocks
    return w - 512000 < d * 512000 <= w + 2 * 1024 * 1024 + 512000
g = json.load(open(os.path.join(out, "group.json")))
grp, runs = g["group"], g["runs"]
check(rc("group") == 0 and [m["state"] for m in grp["members"]] == ["done", "done"],
      "group seq1m-q8 on both: rc %d, %s" % (rc("group"), grp["text"]))
# "the phases start within a few milliseconds of each other": TCG on one
# shared vCPU, so 25 ms here (the issue's 10 ms is the demo's and real drives')
check(grp["skew_ms"] is not None and 0 <= grp["skew_ms"] <= 25,
      "group start skew %s ms (<= 25)" % grp["skew_ms"])
agg = {a["name"]: a for a in grp["aggregate"]}
check(sorted(agg) == ["read", "write"] and all(a["drives"] == 2 for a in agg.values()),
      "aggregate read and write over 2 drives: %s" % [(a["name"], a["drives"]) for a in grp["aggregate"]])
for name in ("read", "write"):
    per = [p["mb_s"] for m in grp["members"] for p in m["phases"] if p["name"] == name]
    check(len(per) == 2 and all(x > 0 for x in per) and
          abs(agg.get(name, {}).get("mb_s", 0) - sum(per)) < 0.01 * sum(per) + 0.1,
          "%s: members %s MB/s, aggregate %s" % (name, per, agg.get(name, {}).get("mb_s")))
# each drive beside its own latest solo run of the preset: nvme0's is step 1's
p1 = json.load(open(os.path.join(out, "probe1.json")))
m0 = [m for m in grp["members"] if m["run_id"] in
      [r["id"] for r in runs if r["target"].startswith("/mnt/n0/")]]
ph0 = {p["name"]: p for p in m0[0]["phases"]} if m0 else {}
check(m0 and m0[0]["solo_run_id"] == p1["id"] and ph0["read"]["solo_mb_s"] and
      abs(ph0["read"]["ratio"] - ph0["read"]["mb_s"] / ph0["read"]["solo_mb_s"]) < 1e-6,
      "nvme0 beside its solo run %s: %s" % (p1["id"], ph0.get("read")))
# nvme1's only solo seq1m-q8 runs were on its raw namespace (read only): not
# its probe file, so no solo to compare (not a file run against a raw one)
m1 = [m for m in grp["members"] if m["run_id"] in
      [r["id"] for r in runs if r["target"].startswith("/mnt/n1/")]]
check(m1 and m1[0]["solo_run_id"] is None and
      all(p["solo_mb_s"] is None and p["ratio"] is None for p in m1[0]["phases"]),
      "nvme1 has no solo run on its probe file: %s" % (m1[0] if m1 else None))
by_ctrl = {}
for run in runs:
    ctrl = "nvme0" if run["target"].startswith("/mnt/n0/") else \
        "nvme1" if run["target"].startswith("/mnt/n1/") else None
    by_ctrl[ctrl] = run
check(sorted(k for k in by_ctrl if k) == ["nvme0", "nvme1"],
      "one member per controller: %s" % [r["target"] for r in runs])
for ctrl, run in sorted((k, v) for k, v in by_ctrl.items() if k):
    w, d = run["bytes_written"], delta(ctrl, "before7", "after7")
    check(w > 0 and agrees(w, d), "group member on %s: %d bytes reported, drive counted %d units (%d bytes)"
          % (ctrl, w, d, d * 512000))

# 8. copy-to nvme0 -> nvme1: the writes land on nvme1 only, both rates reported,
# beside nvme0's copy-self (just run) and none on nvme1.
s = json.load(open(os.path.join(out, "copyself.json")))
check(rc("copyself") == 0 and s["state"] == "done", "copy-self on nvme0: %s %s" % (s["state"], s["reason"]))
c = json.load(open(os.path.join(out, "copyto.json")))
ct = c.get("copy_to") or {}
check(rc("copyto") == 0 and c["state"] == "done", "copy-to nvme0 -> nvme1: %s %s" % (c["state"], c["reason"]))
check(c["target"].startswith("/mnt/n1/") and (c["source_target"] or "").startswith("/mnt/n0/"),
      "copy-to reads %s, writes %s" % (c["source_target"], c["target"]))
w = c["bytes_written"]
d1, d0 = delta("nvme1", "after8", "after9"), delta("nvme0", "after8", "after9")
check(w > 0 and agrees(w, d1), "copy-to wrote %d bytes, nvme1 counted %d units (%d bytes)" % (w, d1, d1 * 512000))
# the source's probe file was laid out before (step 7): reading it writes at
# most an inode's time stamps
check(d0 * 512000 <= 1024 * 1024, "nothing written to the source nvme0: %d units" % d0)
check(c["bytes_read"] > 0 and ct.get("read_mb_s", 0) > 0 and ct.get("write_mb_s", 0) > 0,
      "both rates: read %s MB/s, write %s MB/s" % (ct.get("read_mb_s"), ct.get("write_mb_s")))
fr, to = ct.get("from") or {}, ct.get("to") or {}
check(fr.get("copy_self_id") == s["id"] and fr.get("copy_self_mb_s") and to.get("copy_self_mb_s") is None,
      "beside copy-self: from %s, to %s" % (fr.get("copy_self_mb_s"), to.get("copy_self_mb_s")))
check("copy-self on" in ct.get("text", "") and "none" in ct.get("text", ""), "text: %s" % ct.get("text"))

# 10. The daemon as user nvmond: no capability, no /dev/nvme*, and still a raw
# probe, through the namespace its device process opened.
def status(name):
    f = {}
    for line in text(name).splitlines():
        k, _, v = line.partition(":")
        f[k] = v.split()
    return f
ds, dv = status("ps.daemon.status"), status("ps.dev.status")
check(ds.get("Uid") == ["990"] * 4 and ds.get("Gid") == ["990"] * 4 and ds.get("Groups") == ["990"],
      "the daemon runs as nvmond: Uid %s Gid %s Groups %s" % (ds.get("Uid"), ds.get("Gid"), ds.get("Groups")))
check(ds.get("CapEff") == ["0000000000000000"] and ds.get("CapPrm") == ["0000000000000000"]
      and ds.get("NoNewPrivs") == ["1"], "the daemon holds no capability: CapEff %s CapPrm %s NoNewPrivs %s"
      % (ds.get("CapEff"), ds.get("CapPrm"), ds.get("NoNewPrivs")))
check(dv.get("Uid") == ["0"] * 4 and int((dv.get("CapEff") or ["0"])[0], 16) & (1 << 21),
      "its device process is root with CAP_SYS_ADMIN: Uid %s CapEff %s" % (dv.get("Uid"), dv.get("CapEff")))
for what in ("open_ctrl", "open_ns"):
    check(rc("ps." + what) != 0 and "denied" in text("ps.%s.err" % what),
          "nvmond's credentials cannot open the %s: rc %d, %s" % (
              "controller" if what == "open_ctrl" else "namespace", rc("ps." + what),
              text("ps.%s.err" % what).strip()[:120]))
check(rc("ps.root_open") == 0, "root can (the device nodes exist): rc %d %s" % (rc("ps.root_open"), text("ps.root_open.err")[:120]))
pr = json.load(open(os.path.join(out, "ps.run.json")))
pr = pr.get("run", pr)
check(pr.get("state") == "done" and pr.get("target", "").startswith("/dev/nvme") and pr.get("bytes_written", 0) > 0,
      "a raw probe by the daemon as nvmond: %s %s on %s, %s bytes written" % (
          pr.get("state"), pr.get("reason"), pr.get("target"), pr.get("bytes_written")))
log = text("ps.log")
check("runs as user nvmond" in log, "the daemon logged its user")
check("opened for writing" in log, "the device process opened the namespace to write (log)")
check("/dev/nvme" not in text("ps.fds"), "the daemon holds no /dev/nvme* after the run")
check(rc("ps") == 0, "the daemon as nvmond stopped cleanly: rc %d" % rc("ps"))
sys.exit(1 if errors else 0)
PY
