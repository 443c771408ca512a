#!/usr/bin/env bash
# Sensors judged as the spec defines them, on emulated controllers with the
# shim (nvmond-test-nvme) faking NVMOND-VM-0000's health log: composite 310 K
# (37 °C) under WCTEMP 343 K, Sensor 2 at 360 K (87 °C). By default a note in
# the API, /metrics and `nvmond status`, and no alert over 20 polls; with
# [device] sensor_alerts = yes (SIGHUP) sensor_temperature fires once (exec
# hook), at WCTEMP since QEMU answers 0 (none) for the sensor's own threshold;
# the shim cools the sensor to 320 K and it resolves. One boot.
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
check(len(hook) == 2, "two notifications in all (%d)" % len(hook))
log = rd("daemon.log")
check("cannot read the sensors' temperature thresholds" not in log,
      "QEMU answered Get Features 04h for Sensor 2 without an error")
check(rd("daemon.rc").strip() == "0", "daemon exited 0 on SIGTERM")

print("timeline (guest uptime ms, nvmond_polls_total):")
for k in ("started", "default_checked", "sighup", "fired", "cooled", "resolved", "end"):
    print("  %-16s %8d ms  %4d polls" % (k, tl[k][0], tl[k][1]))
print("exec hook:")
for h in hook:
    print("  " + " ".join(h[:4]))
sys.exit(1 if bad else 0)
PY
echo "PASS: test_sensors"
