#!/usr/bin/env bash
# Alerts against emulated controllers: smart_critical_warning set through QMP
# (qom-set) runs the exec hook once, with the temperature bit, within two poll
# intervals; clearing it sends "resolved"; a temperature threshold lowered below
# the current temperature (Set Features 04h) fires the alert; QEMU's spare 0 /
# threshold 0 fires nothing; a controller unplugged (QMP device_del) is "offline".
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_setup_nvmond "$here/alerts.guest.sh"
vm_start
vm_wait_mark ready 120 "guest never got ready"
vm_qom_crit_warning nvme0 2
vm_wait_mark fired 120 "the guest saw no alert"
vm_qom_crit_warning nvme0 0
vm_wait_mark unplug 120 "the guest never asked for the unplug"
vm_qmp '{"execute":"device_del","arguments":{"id":"nvme1"}}' >/dev/null || vm_fail "device_del nvme1 refused"
vm_wait
vm_guest_ok "$VM_OUT/guest.log" "$VM_OUT/hook.log" "$VM_OUT/daemon.log"

vm_judge <<'PY' || { cat "$VM_OUT/daemon.log"; vm_fail "alert checks"; }
poll_ms = int(rd("poll_s")) * 1000
lines = [l for l in rd("hook.log").splitlines() if l.strip()]
notes = []
for l in lines:
    up, state, rule, serial, sev, js = l.split(" ", 5)
    notes.append(dict(up=int(up), state=state, rule=rule, serial=serial, sev=sev, json=json.loads(js)))
def pick(state, rule, serial):
    return [n for n in notes if (n["state"], n["rule"], n["serial"]) == (state, rule, serial)]

f0 = pick("firing", "critical_warning_temperature", "NVMOND-VM-0000")
check(len(f0) == 1, "exec hook ran once for the temperature bit (%d)" % len(f0))
delay = f0[0]["up"] - int(rd("bit_set_ms")) if f0 else None
check(delay is not None and delay <= 2 * poll_ms,
      "within two poll intervals of the bit showing: %s ms (poll %d ms)" % (delay, poll_ms))
check(bool(f0) and f0[0]["json"]["message"].startswith("critical warning: temperature"), "message")
r0 = pick("resolved", "critical_warning_temperature", "NVMOND-VM-0000")
check(len(r0) == 1, "clearing it sent resolved once (%d)" % len(r0))
f1 = pick("firing", "critical_warning_temperature", "NVMOND-VM-0001")
check(len(f1) == 1, "threshold below 323 K fired the alert (%d)" % len(f1))
check(len(pick("resolved", "critical_warning_temperature", "NVMOND-VM-0001")) == 1,
      "threshold back at 343 K resolved it")
check(not [n for n in notes if n["rule"] in ("spare_low", "critical_warning_failed")],
      "no spare / failed alert at spare 0, threshold 0")
alerts = json.loads(rd("alerts.json"))
off = pick("firing", "offline", "NVMOND-VM-0001")
check(len(off) == 1 and off[0]["sev"] == "critical", "unplugging sent one offline alert (%d)" % len(off))
check([(a["rule"], a["serial"]) for a in alerts["active"]] == [("offline", "NVMOND-VM-0001")],
      "only the offline alert is active at the end: %s" % alerts["active"])
check(not [a for a in alerts["history"] if a["rule"] == "spare_low"], "no spare alert in history")
check(alerts["sinks"]["exec"]["delivered"] == len(notes) and alerts["sinks"]["exec"]["failed"] == 0,
      "every notification delivered by the hook: %s" % alerts["sinks"]["exec"])
ids = {d["serial"]: d["id"] for d in json.loads(rd("devices.json"))["devices"]}
for serial in ("NVMOND-VM-0000", "NVMOND-VM-0001"):
    ev = json.loads(rd("events%d.json" % ids[serial]))["events"]
    bit = [e for e in ev if e["kind"] == "critical_warning_temperature"]
    check(len(bit) == 1 and not bit[0]["ongoing"],
          "%s: one closed critical_warning_temperature event: %s" % (serial, bit))
    check(len(ev) == len(bit), "%s: no other event (QEMU's counters stay 0): %s" % (serial, ev))
check(rd("daemon.rc").strip() == "0", "daemon exited 0 on SIGTERM")
print("exec hook output:")
for l in lines:
    print("  " + l)
sys.exit(1 if bad else 0)
PY
echo "PASS: test_alerts"
