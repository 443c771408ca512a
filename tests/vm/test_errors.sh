#!/usr/bin/env bash
# The error log against emulated controllers (issue 11, section 2), one boot:
#  - nvmond polls each controller 1,000 times (and scans at start and every 30 s)
#    with the nvme shim logging every admin command the controller refuses: none
#    is nvmond's, and num_err_log_entries stays as it was. (QEMU 7.2 never fills
#    its error log, so the count alone would prove nothing: the statuses do.)
#  - the shim adds entries: a benign one (SQID 0, Invalid Field in Command) is
#    shown and alerts nothing; a media one (SQID 1, Unrecovered Read Error) fires
#    io_errors once through the exec hook, and a second one does not fire again;
#    the API's entries agree with `nvme error-log -o json` through the shim.
#  - a restart stores nothing twice and fires nothing again.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# A thousand polls of each controller take about 100 s of guest time: more
# than lib.sh's defaults leave, so set before it is read.
: "${VM_GUEST_TIMEOUT:=480}"
: "${VM_TIMEOUT:=600}"
. "$here/lib.sh"
vm_setup_nvmond_shim "$here/errors.guest.sh"
vm_run
vm_guest_ok "$VM_OUT/guest.log" "$VM_OUT/daemon.log" "$VM_OUT/hook.log"

vm_judge <<'PY' || { tail -40 "$VM_OUT/daemon.log"; vm_fail "error log checks"; }
def metric(name, text, labels=None):
    for line in text.splitlines():
        m = re.match(r'^(\w+)(\{.*\})? (\S+)$', line)
        if m and m.group(1) == name and all('%s="%s"' % kv in (m.group(2) or "") for kv in (labels or {}).items()):
            return float(m.group(3))
    return None

# 1. A thousand polls.
m1 = rd("metrics1.txt")
polls = metric("nvmond_polls_total", m1)
check(polls is not None and polls >= 2000, "nvmond read the health logs %s times (1,000 per controller) in %s ms"
      % (polls, rd("polls_ms").strip()))
check(metric("nvmond_poll_errors_total", m1) == 0, "no failed poll")
check(metric("nvmond_error_log_reads_total", m1) == 0,
      "the error log was never read while num_err_log_entries stayed 0 (not on every poll)")
status = [l for l in rd("status.log").splitlines() if l.strip()]
mine = [l for l in status if l.startswith("comm=nvmond ")]
check(not mine, "no admin command of nvmond's failed, in the whole run (%d): %s" % (len(mine), mine[:5]))
control = [l for l in status if l.startswith("comm=nvme ") and "opcode=0x02" in l and "status=0x4002" in l]
check(len(control) >= 1, "the status log works: nvme-cli's Get Log Page C0h logged Invalid Field (0x4002): %s"
      % control[:1])
before, after, end = (rd(n).split() for n in ("errcount_before", "errcount_after", "errcount_end"))
check(before == after == end, "num_err_log_entries per nvme-cli unchanged: before %s, after the polls %s, at the end %s"
      % (before, after, end))

# 2. Injected entries.
hook = []
for l in rd("hook.log").splitlines():
    if l.strip():
        up, state, rule, serial, sev, j = l.split(" ", 5)
        hook.append(dict(up=int(up), state=state, rule=rule, serial=serial, sev=sev, json=json.loads(j)))
benign_ms, media_ms = int(rd("benign_ms")), int(rd("media_ms"))
eb = js("errors_benign.json")
check([(e["error_count"], e["class"], e["sqid"], e["status_name"], e["alerts"]) for e in eb["entries"]]
      == [(1, "benign", 0, "Invalid Field in Command", False)], "the benign entry is shown: %s" % eb["entries"])
hb = [l for l in rd("hook_benign.log").splitlines() if l.strip()]
check(not hb, "no notification after the benign entry (20 more polls): %s" % hb)
ab = js("alerts_benign.json")
check(not [a for a in ab["active"] + ab["history"] if a["rule"] == "io_errors"], "no io_errors alert for it")
io = [n for n in hook if n["rule"] == "io_errors"]
check(len(io) == 1 and io[0]["state"] == "firing" and io[0]["serial"] == "NVMOND-VM-0000" and io[0]["sev"] == "critical",
      "io_errors fired once, critical, on NVMOND-VM-0000 (two media entries): %s" % [(n["state"], n["serial"]) for n in io])
if io:
    check(io[0]["up"] > media_ms, "it fired after the media entry appeared, not before")
    check(io[0]["up"] - media_ms < 5000, "within %d ms of the media entry (poll 100 ms)" % (io[0]["up"] - media_ms))
    check("Unrecovered Read Error" in io[0]["json"]["message"] and "LBA 4096" in io[0]["json"]["message"],
          "its message names the entry: %s" % io[0]["json"]["message"])
# The risk verdict (docs/health.md recent_errors) may rise to watch on these entries, two reads
# in a row later, and its alert risk (info) follow: issue 27's own alert, not this test's
# subject (vm.test_drive_logs checks the verdict), so it is let through whenever it comes.
check(not [n for n in hook if n["rule"] not in ("io_errors", "risk")],
      "no other notification (media_errors follows the SMART counter): %s"
      % [n["rule"] for n in hook if n["rule"] not in ("io_errors", "risk")])
er = js("errors.json")
ents = {e["error_count"]: e for e in er["entries"]}
check(sorted(ents) == [1, 2, 3], "the API has entries 1, 2, 3: %s" % sorted(ents))
check(er["counts"] == {"benign": 1, "media": 2, "io": 0, "other": 0, "total": 3}, "counts by class: %s" % er["counts"])
for c, cls, sq, lba in ((1, "benign", 0, 0), (2, "media", 1, 4096), (3, "media", 1, 8192)):
    e = ents.get(c, {})
    check(e.get("class") == cls and e.get("sqid") == sq and e.get("lba") == lba and e.get("before_watch") is False
          and e.get("alerts") == (cls == "media"), "entry %d: %s, SQID %s, LBA %s" % (c, e.get("class"), e.get("sqid"), e.get("lba")))
check(ents.get(2, {}).get("status_name") == "Unrecovered Read Error" and ents[2]["sct"] == 2 and ents[2]["sc"] == 0x81
      and ents[2]["dnr"] is True, "entry 2 is SCT 2h SC 81h Unrecovered Read Error, DNR")
dev = js("device0.json")
check(dev["errors"] == er["counts"], "the device object counts the same: %s" % dev["errors"])
al = js("alerts.json")
act = [(a["rule"], a["serial"]) for a in al["active"]]
check([x for x in act if x[0] != "risk"] == [("io_errors", "NVMOND-VM-0000")],
      "the only active alert but risk is io_errors on NVMOND-VM-0000: %s" % act)
nv = js("nvme_error_log.json")
nv_ents = [e for e in nv.get("errors", []) if e.get("error_count")]
check(len(nv_ents) == 3, "nvme error-log (through the shim) lists 3 entries: %s" % [e.get("error_count") for e in nv_ents])
for n in nv_ents:
    e = ents.get(n["error_count"], {})
    st = e.get("status")
    cid = n.get("cmdid", n.get("cid"))
    same = (e.get("sqid") == n.get("sqid") and e.get("cid") == cid and e.get("lba") == n.get("lba")
            and e.get("nsid") == n.get("nsid") and n.get("status_field") in (st, (st or 0) >> 1))
    check(same, "entry %d agrees with nvme-cli: sqid %s/%s cid %s/%s status %s/%s lba %s/%s nsid %s/%s" % (
        n["error_count"], e.get("sqid"), n.get("sqid"), e.get("cid"), cid, st, n.get("status_field"),
        e.get("lba"), n.get("lba"), e.get("nsid"), n.get("nsid")))
m2 = rd("metrics2.txt")
lab = {"serial": "NVMOND-VM-0000"}
check(metric("nvmond_error_entries_total", m2, dict(lab, **{"class": "benign"})) == 1 and
      metric("nvmond_error_entries_total", m2, dict(lab, **{"class": "media"})) == 2,
      "/metrics: nvmond_error_entries_total benign 1, media 2")
check(metric("nvmond_error_log_reads_total", m2) == 3, "three reads of the error log, one per rise of the count (%s)"
      % metric("nvmond_error_log_reads_total", m2))
check(metric("nvmond_error_log_entries_total", m2, lab) == 3, "the drive's own count (through the shim) is 3")

# 3. The restart.
rs = js("errors_restart.json")
check(sorted(e["error_count"] for e in rs["entries"]) == [1, 2, 3] and rs["counts"] == er["counts"],
      "after a restart: the same three entries, none twice")
check(metric("nvmond_error_log_reads_total", rd("metrics3.txt")) == 0, "the restarted daemon did not read the log again")
check(len([n for n in hook if n["rule"] == "io_errors"]) == 1, "io_errors not fired again after the restart")
check(rd("daemon.rc").strip() == "0" and rd("daemon2.rc").strip() == "0", "both runs exited 0 on SIGTERM")

print("figures: %d health-log reads in %s ms; %d status-log lines (%d of nvmond's); io_errors %d ms after the media entry"
      % (polls or 0, rd("polls_ms").strip(), len(status), len(mine), (io[0]["up"] - media_ms) if io else -1))
print("hook:")
for n in hook:
    print("  %d %s %s %s %s: %s" % (n["up"], n["state"], n["rule"], n["serial"], n["sev"], n["json"]["message"]))
print("status log:")
for l in status:
    print("  " + l)
sys.exit(1 if bad else 0)
PY
echo "PASS: test_errors"
