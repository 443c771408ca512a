#!/usr/bin/env bash
# A controller that vanishes (PCIe hot removal through QMP) is marked offline
# while the other keeps being polled; when it comes back it continues under the
# same device id. One that vanishes while the daemon is stopped is marked
# offline, with an alert, at the next start.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_setup_nvmond "$here/hotplug.guest.sh"
vm_start
vm_wait_mark ready 120 "guest never got ready"
vm_qmp '{"execute":"device_del","arguments":{"id":"nvme1"}}' >/dev/null ||
	vm_fail "device_del nvme1 refused"
vm_wait_mark removed 90 "guest did not see the removal"
# The unplugged device took its drive along; attach the same image again.
vm_qmp "{\"execute\":\"blockdev-add\",\"arguments\":{\"driver\":\"raw\",\"node-name\":\"nvm1again\",
	\"file\":{\"driver\":\"file\",\"filename\":\"$VM_RUN/nvme1.img\"}}}" >/dev/null ||
	vm_fail "blockdev-add refused"
vm_qmp '{"execute":"device_add","arguments":{"driver":"nvme","id":"nvme1","bus":"rp1",
	"serial":"NVMOND-VM-0001","drive":"nvm1again"}}' >/dev/null || vm_fail "device_add refused"
# Unplugged again while the daemon is stopped.
vm_wait_mark stopped 90 "guest did not stop the daemon"
vm_qmp '{"execute":"device_del","arguments":{"id":"nvme1"}}' >/dev/null ||
	vm_fail "second device_del nvme1 refused"
vm_wait
rc=$VM_RC
[ "$rc" = 0 ] || { vm_console_tail 80; cat "$VM_OUT/guest.log" 2>/dev/null; vm_fail "guest script exited $rc"; }

python3 - "$VM_OUT" <<'PY' || { cat "$VM_OUT/daemon.log"; vm_fail "hot removal checks"; }
import json, sys, os
out = sys.argv[1]
def load(n):
    return {d["serial"]: d for d in json.load(open(os.path.join(out, n)))["devices"]}
d0, d1, d2 = load("devices0.json"), load("devices1.json"), load("devices2.json")
gone, stay = "NVMOND-VM-0001", "NVMOND-VM-0000"
bad = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok: bad.append(msg)
check(d0[gone]["online"] and d0[stay]["online"], "both online at start")
check(not d1[gone]["online"], "removed controller is offline")
check(d1[stay]["online"], "the other stays online")
check(d1[stay]["latest"]["ts_ms"] > d0[stay]["latest"]["ts_ms"], "the other is still polled")
check(d1[gone]["latest"]["ts_ms"] <= d1[stay]["latest"]["ts_ms"] - 2000,
      "no samples of the removed one while gone")
check(d2[gone]["online"], "back online after re-plug")
check(d2[gone]["id"] == d0[gone]["id"], "same id after it returns (%s)" % d2[gone]["id"])
check(d2[stay]["id"] == d0[stay]["id"], "the other keeps its id")
check(len(d2) == 2, "no duplicate device")
check(d2[gone]["latest"]["ts_ms"] > d1[gone]["latest"]["ts_ms"], "polled again after return")
check(open(os.path.join(out, "daemon.rc")).read().strip() == "0", "daemon exited 0 on SIGTERM")
d3 = load("devices3.json")
alerts = json.load(open(os.path.join(out, "alerts3.json")))["active"]
off = [a for a in alerts if a["rule"] == "offline" and a["device_id"] == d0[gone]["id"]]
check(not d3[gone]["online"] and d3[stay]["online"], "gone while stopped: offline at the next start")
check(len(off) == 1 and off[0]["severity"] == "critical", "one offline alert for it: %s" % off)
check(not [a for a in alerts if a["rule"] == "offline" and a["device_id"] == d0[stay]["id"]],
      "none for the one still there")
check("gone since the last run" in open(os.path.join(out, "daemon2.log")).read(), "logged as gone")
print("hot removal: %s id %s: online→offline→online; %s polled throughout" % (gone, d2[gone]["id"], stay))
sys.exit(1 if bad else 0)
PY
echo "PASS: test_hotplug"
