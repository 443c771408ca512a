#!/usr/bin/env bash
# Issue 11, sections 3-5, against emulated controllers in one boot: the PCIe
# link fields agree with the guest's sysfs; the firmware baseline is recorded
# once (QEMU's Identify FR 7.2.22 and its slot log's 1.0 differ: no event, not
# at a restart either), a firmware change (the test shim's fr=) is one
# firmware_changed event and one info alert; nvmond run as an ordinary user
# starts, shows the hwmon temperatures and null counters, raises no alert and
# says once what it lacks; `nvmond status` as that user prints the hint.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_setup_nvmond_shim "$here/facts.guest.sh"
vm_run || true
vm_guest_ok "$VM_OUT/guest.log" "$VM_OUT"/daemon*.log "$VM_OUT/user-daemon.log"

vm_judge <<'PY' || { cat "$VM_OUT"/daemon*.log "$VM_OUT/user-daemon.log"; vm_fail "facts checks"; }

sysfs = {}
hwmon = {}
for l in rd("sysfs.txt").splitlines():
    p = l.split(" ")
    if p[1] == "hwmon":
        hwmon.setdefault(p[0], {})[p[2]] = int(p[3])
    else:
        sysfs.setdefault(p[0], {})[p[1]] = " ".join(p[2:]).replace("_", " ")
print("guest sysfs:", json.dumps(sysfs, indent=1))
def gts(s):  # "2.5 GT/s PCIe" -> 2.5
    m = re.match(r"([0-9.]+) GT/s", s)
    return float(m.group(1)) if m else None

# --- link --------------------------------------------------------------------
devs = {d["serial"]: d for d in js("devices1.json")["devices"]}
metrics = rd("metrics1.txt")
status = rd("status-root.txt")
print(status)
for serial, d in sorted(devs.items()):
    s, l = sysfs[serial], d["link"]
    check(l is not None, "%s: the API shows a link" % serial)
    if l is None:
        continue
    print("  %s: API %s; sysfs current %s x%s, max %s x%s" % (serial, l["text"],
          s["current_link_speed"], s["current_link_width"], s["max_link_speed"], s["max_link_width"]))
    check(l["current_speed_gts"] == gts(s["current_link_speed"]) and l["max_speed_gts"] == gts(s["max_link_speed"]),
          "%s: speeds agree with sysfs" % serial)
    check(l["current_width"] == int(s["current_link_width"]) and l["max_width"] == int(s["max_link_width"]),
          "%s: widths agree with sysfs" % serial)
    check(l["degraded"] is False, "%s: not degraded (QEMU's device runs at its own maximum)" % serial)
    check(l["text"] in status, "%s: status shows '%s'" % (serial, l["text"]))
    lab = 'device="%s",model="%s",serial="%s"' % (d["name"], d["model"], serial)
    for kind, v in (("current", l["current_speed_gts"]), ("max", l["max_speed_gts"])):
        check(("nvmond_pcie_link_speed_gts{%s,kind=\"%s\"} %.1f" % (lab, kind, v)) in metrics,
              "%s: /metrics speed %s" % (serial, kind))
    check(("nvmond_pcie_link_degraded{%s} 0" % lab) in metrics, "%s: /metrics degraded 0" % serial)
    check(d["state"] == "online" and d["asleep"] is False and d["source"] == "smart",
          "%s: online, awake, smart (runtime_status %s)" % (serial, s["power/runtime_status"]))
check(rd("status-root.rc").strip() == "0", "status as root exits 0")

# --- firmware ----------------------------------------------------------------
print(rd("fw-log.txt"))
for i in (1, 2):
    f1, f2, f4 = js("facts1-%d.json" % i), js("facts2-%d.json" % i), js("facts4-%d.json" % i)
    check([h["event"] for h in f1["firmware_history"]] == ["baseline"] and
          f1["firmware_history"][0]["new"] == "7.2.22",
          "device %d: one baseline 7.2.22 at the first start: %s" % (i, f1["firmware_history"]))
    check(f2["firmware_history"] == f1["firmware_history"],
          "device %d: a restart adds nothing (FR 7.2.22 vs slot log 1.0 is no change)" % i)
id0 = int(rd("id0").strip())
f3 = js("facts3.json")
ch = [h for h in f3["firmware_history"] if h["event"] == "firmware_changed"]
check(len(ch) == 1 and ch[0]["old"] == "7.2.22" and ch[0]["new"] == "7.2.23",
      "the shim's FR 7.2.23 is one firmware_changed event 7.2.22 -> 7.2.23: %s" % f3["firmware_history"])
dev3 = js("device3.json")
check(dev3["firmware"] == "7.2.23" and dev3["firmware_changed"] and dev3["firmware_changed"]["from"] == "7.2.22",
      "the device shows firmware 7.2.23, changed from 7.2.22: %s" % dev3["firmware_changed"])
al = js("alerts3.json")
fw = [a for a in al["active"] if a["rule"] == "firmware_changed"]
check(len(fw) == 1 and fw[0]["severity"] == "info" and fw[0]["serial"] == "NVMOND-VM-0000",
      "one info alert firmware_changed on NVMOND-VM-0000: %s" % fw)
check(not [a for a in al["active"] if a["rule"] not in ("firmware_changed",)],
      "no other alert: %s" % al["active"])
f4 = js("facts4-%d.json" % id0)
check(f4["firmware_history"] == f3["firmware_history"],
      "a restart with FR 7.2.23 adds nothing: %s" % f4["firmware_history"])
other = 2 if id0 == 1 else 1
check(len(js("facts4-%d.json" % other)["firmware_history"]) == 1, "the other drive has its baseline only")
for n in (1, 2, 3):
    check(rd("daemon%d.rc" % n).strip() == "0", "root daemon run %d exited 0" % n)

# --- non-root ----------------------------------------------------------------
print(rd("user.txt"))
check("uid=1000" in rd("user.txt") and "CapEff:\t0000000000000000" in rd("user.txt"),
      "the second daemon runs as uid 1000 without capabilities")
nodes = {l.split()[0]: l.split()[2:] for l in rd("sysfs.txt").splitlines() if l.split()[1] == "node"}
print("device nodes:", nodes)
udevs = {d["serial"]: d for d in js("user-devices.json")["devices"]}
before = {l.split()[0]: int(l.split()[1]) for l in rd("hwmon-before.txt").splitlines()}
after = {l.split()[0]: int(l.split()[1]) for l in rd("hwmon-after.txt").splitlines()}
check(sorted(udevs) == sorted(devs), "non-root: both controllers, by their sysfs identity: %s" % sorted(udevs))
umetrics = rd("user-metrics.txt")
for serial, d in sorted(udevs.items()):
    lt = d["latest"] or {}
    want = {round(v / 1000) for v in (before[serial], after[serial])}
    print("  %s: API %s °C (%s K), hwmon %s / %s m°C; source %s" % (serial, lt.get("temperature_c"),
          lt.get("temperature_k"), before[serial], after[serial], lt.get("source")))
    check(d["source"] == "hwmon" and lt.get("source") == "hwmon", "%s: source hwmon" % serial)
    k = lt.get("temperature_k")
    check(k is not None and any(abs((k - 273.15) * 1000 - v) < 1 for v in (before[serial], after[serial])),
          "%s: composite %s K agrees with temp1_input" % (serial, k))
    check(d["model"] == devs[serial]["model"] and d["firmware"] == "7.2.22",
          "%s: model and firmware from sysfs" % serial)
    nulls = [f for f in ("data_units_written", "percent_used", "avail_spare", "critical_warning",
                         "power_on_hours", "media_errors", "num_err_log_entries") if lt.get(f, 0) is not None]
    check(not nulls, "%s: counters null (not null: %s)" % (serial, nulls))
    check(d["wctemp_k"] == 343 and d["cctemp_k"] == 373, "%s: WCTEMP/CCTEMP from hwmon max/crit" % serial)
    check(d["link"] is not None and d["link"]["current_speed_gts"] == gts(sysfs[serial]["current_link_speed"]),
          "%s: the link is readable without privileges too" % serial)
    lab = 'device="%s",model="%s",serial="%s"' % (d["name"], d["model"], serial)
    check(('nvmond_health_log_readable{%s} 0' % lab) in umetrics, "%s: /metrics health_log_readable 0" % serial)
    check(('nvmond_temperature_celsius{%s,sensor="composite"}' % lab) in umetrics, "%s: /metrics temperature" % serial)
    for m in ("nvmond_data_written_bytes_total", "nvmond_available_spare_ratio", "nvmond_critical_warning",
              "nvmond_endurance_used_ratio", "nvmond_power_on_seconds_total"):
        check(("%s{%s" % (m, lab)) not in umetrics, "%s: no %s series" % (serial, m))
ual = js("user-alerts.json")
check(ual["active"] == [] and ual["history"] == [], "non-root: no alert at all (%d active, %d in history)"
      % (len(ual["active"]), len(ual["history"])))
polls = re.search(r"^nvmond_polls_total (\d+)$", umetrics, re.M)
print("  non-root polls:", polls and polls.group(1))
log = rd("user-daemon.log")
lines = [l for l in log.splitlines() if "no permission for NVMe admin commands" in l]
check(len(lines) == 1, "one log line says what is missing and how to grant it (%d)" % len(lines))
if lines:
    print("  " + lines[0])
check(os.path.exists(os.path.join(out, "user-alive")) and rd("user-daemon.rc").strip() == "0",
      "non-root daemon stayed up and exited 0")
ust = rd("user-status.txt")
print(ust)
check(rd("user-status.rc").strip() == "0", "status as non-root exits 0")
check("hint: no permission for NVMe admin commands" in ust and "CAP_SYS_ADMIN" in ust, "status prints the hint")
check("unknown (hwmon only)" in ust, "status marks the counters unknown")
sj = js("user-status.json")
check(all(d["latest"]["source"] == "hwmon" and d["latest"]["percent_used"] is None for d in sj["devices"])
      and "hint" in sj, "status --json: hwmon temperatures, null counters, hint")
sys.exit(1 if bad else 0)
PY
echo "PASS: test_facts"
