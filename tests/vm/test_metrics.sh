#!/usr/bin/env bash
# GET /metrics against emulated controllers: promtool accepts the output, the
# values match what nvme-cli reads from the same controllers (temperature, bytes,
# thresholds, power-on time), and a critical-warning bit set through QMP (qom-set)
# shows up as nvmond_critical_warning{warning="spare"} 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_setup_nvmond "$here/metrics.guest.sh"
vm_start
vm_wait_mark ready 120 "guest never got ready"
vm_qom_crit_warning nvme1 1
vm_wait
if [ "$VM_RC" != 0 ]; then
	vm_console_tail 80
	cat "$VM_OUT/guest.log" "$VM_OUT/daemon.log" 2>/dev/null
	vm_fail "guest script exited $VM_RC"
fi

if command -v promtool >/dev/null; then
	for f in metrics1.txt metrics2.txt; do
		promtool check metrics <"$VM_OUT/$f" >"$VM_OUT/$f.lint" 2>&1 && [ ! -s "$VM_OUT/$f.lint" ] ||
			vm_fail "promtool check metrics $f: $(cat "$VM_OUT/$f.lint")"
	done
	echo "ok   promtool check metrics: real controllers"
else
	echo "SKIP (part): promtool not installed"
fi

python3 - "$VM_OUT" <<'PY' || vm_fail "metrics checks"
import json, os, re, sys
out = sys.argv[1]
def series(name):
    m = {}
    for line in open(os.path.join(out, name)):
        r = re.match(r'^(\w+)\{(.*)\} (\S+)$', line.strip())
        if r:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', r.group(2)))
            m.setdefault(r.group(1), []).append((labels, r.group(3)))
    return m
def get(m, name, serial, **kw):
    v = [val for l, val in m.get(name, []) if l.get("serial") == serial and
         all(l.get(k) == x for k, x in kw.items())]
    return v[0] if len(v) == 1 else None
bad = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok: bad.append(msg)
m1, m2 = series("metrics1.txt"), series("metrics2.txt")
for serial in ("NVMOND-VM-0000", "NVMOND-VM-0001"):
    s = json.load(open(os.path.join(out, "smart-%s.json" % serial)))
    num = lambda k: int(str(s[k]).replace(",", ""))
    check(get(m1, "nvmond_device_up", serial) == "1", serial + ": up")
    check(get(m1, "nvmond_temperature_celsius", serial, sensor="composite") == str(num("temperature") - 273),
          "%s: temperature %s °C = nvme-cli %s K" % (serial, get(m1, "nvmond_temperature_celsius", serial, sensor="composite"), num("temperature")))
    check(get(m1, "nvmond_data_written_bytes_total", serial) == str(num("data_units_written") * 512000),
          "%s: written bytes = %d units x 512000" % (serial, num("data_units_written")))
    check(get(m1, "nvmond_data_read_bytes_total", serial) == str(num("data_units_read") * 512000),
          "%s: read bytes = %d units x 512000" % (serial, num("data_units_read")))
    check(get(m1, "nvmond_power_on_seconds_total", serial) == str(num("power_on_hours") * 3600),
          serial + ": power-on seconds")
    check(get(m1, "nvmond_available_spare_ratio", serial) is not None, serial + ": spare exported")
    check(get(m1, "nvmond_temperature_warning_threshold_celsius", serial) is not None, serial + ": WCTEMP exported")
    check(get(m1, "nvmond_critical_warning", serial, warning="spare") == "0", serial + ": no spare warning at first")
s0 = json.load(open(os.path.join(out, "smart-NVMOND-VM-0000.json")))
check(int(str(s0["data_units_written"]).replace(",", "")) >= 16, "8 MiB written to NVMOND-VM-0000 counted")
check(get(m2, "nvmond_critical_warning", "NVMOND-VM-0001", warning="spare") == "1",
      "qom-set smart_critical_warning=1 -> nvmond_critical_warning{warning=\"spare\"} 1")
check(get(m2, "nvmond_critical_warning", "NVMOND-VM-0000", warning="spare") == "0", "the other controller stays 0")
check(open(os.path.join(out, "daemon.rc")).read().strip() == "0", "daemon exited 0")
sys.exit(1 if bad else 0)
PY
# Clock steps (the end of metrics.guest.sh): back 1 h, forward 1 day.
[ "$(cat "$VM_OUT/clock.rc" 2>/dev/null)" = 0 ] || vm_fail "clock steps: the daemon's exit: $(cat "$VM_OUT/clock.rc" 2>/dev/null)"
python3 - "$VM_OUT/clock.db" "$(cat "$VM_OUT/clock-back.ms")" <<'PY' || vm_fail "clock-step checks"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
back = int(sys.argv[2])  # the wall clock (ms) just before it was set back 1 h
bad = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + "clock steps: " + msg)
    if not ok: bad.append(msg)
day, hour = 86400 * 1000, 3600 * 1000
for dev, in db.execute("SELECT id FROM devices"):
    # The table is keyed by (device, time): a sample stamped back in the hour before
    # the step would sit there, overlapping what was stored then.
    ts = [t for t, in db.execute("SELECT ts_ms FROM samples WHERE device_id = ? ORDER BY ts_ms", (dev,))]
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    check(len(ts) >= 12, "device %d: %d samples" % (dev, len(ts)))
    check(min(ts) > back - 120000,
          "device %d: none stamped in the hour before the step back (first %d ms before it)" % (dev, back - min(ts)))
    after = [t for t in ts if t > back]
    check(len(after) >= 4, "device %d: %d samples after the step back, stamped after the last before it" % (dev, len(after)))
    check(sum(1 for g in gaps if g > hour) == 1 and max(gaps) >= day - hour,
          "device %d: the step forward is one gap of about a day (%d ms)" % (dev, max(gaps)))
    dup = db.execute("SELECT count(*) FROM (SELECT 1 FROM rollups WHERE device_id = ? "
                     "GROUP BY res_s, ts_ms HAVING count(*) > 1)", (dev,)).fetchone()[0]
    check(dup == 0, "device %d: no duplicated rollup bucket" % dev)
n, per = db.execute("SELECT count(*), max(c) FROM (SELECT count(*) AS c FROM alerts GROUP BY device_id, rule)").fetchone()
check(n > 0 and per == 1, "no alert storm: %d alerts, at most %s per drive and rule" % (n, per))
neg = db.execute("SELECT count(*) FROM alerts WHERE updated_ms < started_ms OR resolved_ms < started_ms").fetchone()[0]
check(neg == 0, "no alert with a negative duration")
ev = db.execute("SELECT count(*) FROM throttle_events WHERE end_ms < start_ms").fetchone()[0]
check(ev == 0, "no throttle event with a negative duration")
sys.exit(1 if bad else 0)
PY
echo "PASS: test_metrics"
