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
echo "PASS: test_metrics"
