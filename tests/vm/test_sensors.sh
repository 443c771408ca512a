#!/usr/bin/env bash
# Sensors judged as the spec defines them, on emulated controllers with the
# shim (nvmond-test-nvme) faking NVMOND-VM-0000's health log: composite 310 K
# (37 °C) under WCTEMP 343 K, Sensor 2 at 360 K (87 °C). By default a note in
# the API, /metrics and `nvmond status`, and no alert over 20 polls; with
# [device] sensor_alerts = yes (SIGHUP) sensor_temperature fires once (exec
# hook), at WCTEMP since QEMU answers 0 (none) for the sensor's own threshold;
# the shim cools the sensor to 320 K and it resolves. Then (issue 15) the shim
# holds every admin command to NVMOND-VM-0001 (hang=): it turns unresponsive
# (API state, nvmond_device_unresponsive, the unresponsive alert) while
# NVMOND-VM-0000 is still polled every second, /healthz and /metrics answer
# within 0.5 s and the watchdog is fed (WATCHDOG_USEC 6 s: pings at most 5.5 s
# apart, seen through the shim's sd_notify log); exactly one command is held
# (no second one sent); released, it recovers and the alert resolves. One boot.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_setup_nvmond_shim "$here/sensors.guest.sh"
vm_run || true
vm_guest_ok "$VM_OUT/guest.log" "$VM_OUT/hook.log" "$VM_OUT/daemon.log"

vm_judge <<'PY' || { cat "$VM_OUT/daemon.log"; vm_fail "sensor checks"; }
def dev(name, serial="NVMOND-VM-0000"):
    return [d for d in js(name)["devices"] if d["serial"] == serial][0]
def s2(d):
    return ([s for s in d["sensors"] if s["sensor"] == 2] or [None])[0]

tl = {}
for l in rd("timeline").splitlines():
    k, up, polls = l.split()
    tl[k] = (int(up), int(polls))
hook = [l.split(" ", 4) for l in rd("hook.log").splitlines() if l.strip()]
mine = [h for h in hook if h[3] == "NVMOND-VM-0000"]

# 1. by default
d = dev("devices_default.json")
check(d["wctemp_c"] == 70 and d["latest"]["temperature_k"] == 310,
      "composite 310 K (the shim), WCTEMP 343 K: %s K, %s °C" % (d["latest"]["temperature_k"], d["wctemp_c"]))
s = s2(d)
check(s is not None and s["temperature_k"] == 360 and s["over_wctemp"] and not s["implausible"]
      and not s["alerts"] and s["limit_c"] is None and s["drive_limit_c"] is None,
      "Sensor 2: 360 K, over_wctemp, plausible, may not alert, QEMU's threshold 0 = none: %s" % s)
notes = [n for n in d["notes"] if n["kind"] == "sensor_over_wctemp" and n["sensor"] == 2]
check(len(notes) == 1 and "Sensor 2 reads 87 °C, above WCTEMP 70 °C, while the composite is 37 °C" in notes[0]["message"],
      "the note in GET /devices: %s" % d["notes"])
check(dev("devices_default.json", "NVMOND-VM-0001")["notes"] == [], "the other controller has no note")
a = js("alerts_default.json")
check(a["active"] == [] and a["history"] == [], "no alert after %d polls by default: %s"
      % (tl["default_checked"][1], a["active"] + a["history"]))
check(rd("hook_default.log").strip() == "", "the exec hook never ran by default")
m = rd("metrics_default.txt")
check(any(l.startswith("nvmond_sensor_over_wctemp{") and 'serial="NVMOND-VM-0000"' in l
          and l.endswith('sensor="2"} 1') for l in m.splitlines()),
      "/metrics: nvmond_sensor_over_wctemp{…NVMOND-VM-0000…,sensor=\"2\"} 1")
check(any(l.startswith("nvmond_sensor_implausible{") and 'serial="NVMOND-VM-0000"' in l
          and l.endswith('sensor="2"} 0') for l in m.splitlines()), "/metrics: sensor 2 plausible")
check(any(l.startswith("nvmond_temperature_celsius{") and 'serial="NVMOND-VM-0000"' in l
          and l.endswith('sensor="2"} 87') for l in m.splitlines()), "/metrics: sensor 2 at 87 °C")
st = rd("status.txt")
check(rd("status.rc").strip() == "0" and
      any(l.startswith("note: ") and "Sensor 2 reads 87 °C, above WCTEMP 70 °C" in l for l in st.splitlines()),
      "nvmond status prints the note:\n" + st)
sj = [x for x in js("status.json")["devices"] if x["serial"] == "NVMOND-VM-0000"][0]
check([n["sensor"] for n in sj["notes"] if n["kind"] == "sensor_over_wctemp"] == [2], "nvmond status --json: the note")
raw = js("smart_noshim.json")
check(raw.get("temperature_sensor_2", 0) in (0, None), "without the shim QEMU reports no Sensor 2 (%s)"
      % raw.get("temperature_sensor_2"))

# 2. sensor_alerts = yes
f = [h for h in mine if h[1] == "firing" and h[2] == "sensor_temperature"]
check(len(f) == 1, "sensor_temperature fired once after the reload (%d)" % len(f))
if f:
    msg = json.loads(f[0][4])["message"]
    check("sensor 2 at 87 °C reached its limit 70 °C (wctemp)" in msg, "its message: " + msg)
    check(int(f[0][0]) - tl["sighup"][0] <= 3000, "within 3 s of SIGHUP: %d ms" % (int(f[0][0]) - tl["sighup"][0]))
af = js("alerts_firing.json")["active"]
check([(x["rule"], x["serial"], x["severity"]) for x in af] == [("sensor_temperature", "NVMOND-VM-0000", "warning")],
      "the only active alert is sensor_temperature (warning): %s" % af)
s = s2(dev("devices_firing.json"))
check(s["alerts"] and s["over_limit"] and s["limit_c"] == 70 and s["limit_source"] == "wctemp",
      "Sensor 2 judged against WCTEMP: %s" % s)
check(not [h for h in hook if h[2].startswith("temperature_")], "no temperature_warning/critical (composite 37 °C)")

# 3. cooled
r = [h for h in mine if h[1] == "resolved" and h[2] == "sensor_temperature"]
check(len(r) == 1, "resolved once after the shim cooled the sensor (%d)" % len(r))
if r:
    check(int(r[0][0]) - tl["cooled"][0] <= 5000, "within 5 s of cooling: %d ms" % (int(r[0][0]) - tl["cooled"][0]))
check(js("alerts_end.json")["active"] == [], "nothing active at the end")
d = dev("devices_end.json")
check(not s2(d)["over_wctemp"] and d["notes"] == [], "no note at 320 K")
check(len([h for h in hook if h[2] == "sensor_temperature"]) == 2,
      "two sensor_temperature notifications in all (%d)" % len(hook))
log = rd("daemon.log")
check("cannot read the sensors' temperature thresholds" not in log,
      "QEMU answered Get Features 04h for Sensor 2 without an error")
check(rd("daemon.rc").strip() == "0", "daemon exited 0 on SIGTERM")

# 4. NVMOND-VM-0001 hung (the shim holds its admin commands), then released
u = [h for h in hook if h[2] == "unresponsive"]
check([(h[1], h[3]) for h in u] == [("firing", "NVMOND-VM-0001"), ("resolved", "NVMOND-VM-0001")],
      "unresponsive fired and resolved once, on NVMOND-VM-0001 only: %s" % [h[:4] for h in u])
if u:
    check(json.loads(u[0][4])["severity"] == "critical", "unresponsive is critical")
    check(int(u[0][0]) - tl["hang"][0] <= 8000, "fired within 8 s of the hang (2 s deadline, 1 s polls): %d ms"
          % (int(u[0][0]) - tl["hang"][0]))
if len(u) == 2:
    check(int(u[1][0]) - tl["released"][0] <= 8000, "resolved within 8 s of the release (resolve_after 1 s): %d ms"
          % (int(u[1][0]) - tl["released"][0]))
timing = [l.split() for l in rd("hung_timing").splitlines()]
check(all(len(t) == 4 for t in timing) and len(timing) == 6, "six rounds of requests while hung: %s" % timing)
hz = [int(t[2]) - int(t[1]) for t in timing if len(t) == 4]
mx = [int(t[3]) - int(t[2]) for t in timing if len(t) == 4]
check(hz and max(hz) < 500 and max(mx) < 500, "/healthz (max %s ms) and /metrics (max %s ms) within 0.5 s while hung"
      % (max(hz or [0]), max(mx or [0])))
seen = []
for i in range(1, 7):
    devs = js("devices_hung_%d.json" % i)["devices"]
    d0 = [d for d in devs if d["serial"] == "NVMOND-VM-0000"][0]
    d1 = [d for d in devs if d["serial"] == "NVMOND-VM-0001"][0]
    check(d1["state"] == "unresponsive" and d1["unresponsive"] and d1["online"],
          "round %d: NVMOND-VM-0001 unresponsive, still online: %s" % (i, d1["state"]))
    check(d0["state"] == "online", "round %d: NVMOND-VM-0000 online" % i)
    seen.append(d0["latest"]["ts_ms"])
    g = [l for l in rd("metrics_hung_%d.txt" % i).splitlines() if l.startswith("nvmond_device_unresponsive{")]
    check(any('serial="NVMOND-VM-0001"' in l and l.endswith(" 1") for l in g)
          and any('serial="NVMOND-VM-0000"' in l and l.endswith(" 0") for l in g),
          "round %d: nvmond_device_unresponsive 1 for NVMOND-VM-0001, 0 for the other: %s" % (i, g))
check(len(set(seen)) >= 4, "NVMOND-VM-0000 polled while the other hung: %d new samples in 6 rounds" % len(set(seen)))
held = rd("held").splitlines()
check(len(held) == 1 and rd("held_while_hung").splitlines() == held,
      "one admin command held, no second one sent while it was stuck: %s" % held)
d1 = [d for d in js("devices_recovered.json")["devices"] if d["serial"] == "NVMOND-VM-0001"][0]
check(d1["state"] == "online" and not d1["unresponsive"] and d1["latest"]["ts_ms"] > max(seen),
      "NVMOND-VM-0001 online and polled again after the release: %s" % d1["state"])
check(any('serial="NVMOND-VM-0001"' in l and l.endswith(" 0") for l in rd("metrics_recovered.txt").splitlines()
          if l.startswith("nvmond_device_unresponsive{")), "the gauge back to 0")
wd = [int(l.split()[0]) for l in rd("notify.log").splitlines() if l.split()[1:] == ["WATCHDOG=1"]]
gaps = [b - a for a, b in zip(wd, wd[1:])]
check(len(wd) >= 5 and max(gaps or [0]) < 5500 and wd[0] <= tl["hang"][0] and wd[-1] >= tl["released"][0],
      "the watchdog fed throughout (WATCHDOG_USEC 6 s): %d pings, largest gap %s ms" % (len(wd), max(gaps or [0])))
check("(nvme" in log and "is unresponsive: an admin command got no answer within 2000 ms" in log
      and "answers again" in log, "the journal lines of the hang and the recovery")

print("timeline (guest uptime ms, nvmond_polls_total):")
for k in ("started", "default_checked", "sighup", "fired", "cooled", "resolved", "end", "hang", "hung",
          "released", "recovered"):
    print("  %-16s %8d ms  %4d polls" % (k, tl[k][0], tl[k][1]))
print("exec hook:")
for h in hook:
    print("  " + " ".join(h[:4]))
sys.exit(1 if bad else 0)
PY
echo "PASS: test_sensors"
