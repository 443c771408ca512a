# Guest half of test_facts.sh (issue 11, sections 3-5), one boot:
#  1. nvmond as root (with the test shim preloaded): the PCIe link of each
#     controller as the API, /metrics and `status` show it, next to the
#     guest's sysfs files; the firmware baseline (QEMU's FR 7.2.22, whose slot
#     log says 1.0) recorded once, not again after a restart; then the shim
#     makes NVMOND-VM-0000 answer FR 7.2.23: one firmware_changed event and
#     an info alert, and no other one after a second restart.
#  2. nvmond as an ordinary user (uid 1000, no capabilities, /dev/nvme* root
#     0600): it starts, identity from sysfs, temperatures from hwmon (compared
#     with the hwmon files), counters null, the one log line, no alert; and
#     `nvmond status` as that user prints the temperatures and the hint.
# Everything goes to $VM_OUT for the host to judge (facts.py-like checks in
# test_facts.sh).
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
export NVMOND_SHIM_CONF=/tmp/nvme-shim.conf
base=$VM_NVMOND_URL
: >"$NVMOND_SHIM_CONF"

fail() {
	echo "FAIL: $*"
	exit 1
}

get() { # get URL FILE
	wget -qO "$2" "$1" || fail "GET $1"
}

# sysfs as the guest's kernel shows it, for the host to compare
for c in $(vm_ctrls); do
	s=$(vm_ctrl_serial "$c")
	d=/sys/class/nvme/$c/device
	for f in current_link_speed current_link_width max_link_speed max_link_width \
		power/runtime_status; do
		printf '%s %s %s\n' "$s" "$f" "$(cat "$d/$f" 2>/dev/null | tr ' ' '_')"
	done
	printf '%s firmware_rev %s\n' "$s" "$(tr -d ' ' <"/sys/class/nvme/$c/firmware_rev")"
	for h in /sys/class/nvme/$c/hwmon*; do
		for t in "$h"/temp*_input; do
			[ -e "$t" ] || continue
			n=${t##*/}
			printf '%s %s %s %s\n' "$s" hwmon "$(cat "${t%_input}_label" 2>/dev/null | tr ' ' '_')" \
				"$(cat "$t")"
		done
	done
	ls -l "/dev/$c" | awk -v s="$s" '{ print s, "node", $1, $3 }'
done >"$out/sysfs.txt"
nvme fw-log "/dev/$(vm_ctrl_by_serial NVMOND-VM-0000)" >"$out/fw-log.txt" 2>&1

vm_nvmond_conf /tmp/n.conf 1s 'rescan_interval = 1s' '[alerts]' 'resolve_after = 1s'

start_root() { # start_root N: the root daemon, run N
	vm_nvmond_start /tmp/root.db "$out/daemon$1.log" LD_PRELOAD="$VM_SHIM"
}

stop_root() { # stop_root N
	vm_stop "$VM_NVMOND_PID" "$out/daemon$1.rc"
}

# The first scan runs before the HTTP server starts: once /healthz answers,
# each controller's link and firmware have been read and recorded.
start_root 1
get "$base/api/v1/devices" "$out/devices1.json"
for id in 1 2; do get "$base/api/v1/devices/$id/facts" "$out/facts1-$id.json"; done
get "$base/metrics" "$out/metrics1.txt"
LD_PRELOAD="$VM_SHIM" nvmond --config /tmp/n.conf status >"$out/status-root.txt" 2>&1
echo $? >"$out/status-root.rc"
stop_root 1

# Restart: QEMU's FR (7.2.22) and its slot log (1.0) still differ; no event.
start_root 2
for id in 1 2; do get "$base/api/v1/devices/$id/facts" "$out/facts2-$id.json"; done

# A firmware update, as the shim tells it: NVMOND-VM-0000 now answers FR
# 7.2.23. Wait for the rescan to record it.
echo "NVMOND-VM-0000 fr=7.2.23" >"$NVMOND_SHIM_CONF"
get "$base/api/v1/devices" "$out/devices2.json"
id0=$(grep -o '"id":[0-9]*,"key":"[^"]*NVMOND-VM-0000' "$out/devices2.json" | sed 's/"id":\([0-9]*\).*/\1/')
[ -n "$id0" ] || fail "no id for NVMOND-VM-0000"
echo "$id0" >"$out/id0"
fw_changed() { # the event and the alert are both there
	wget -qO "$out/facts3.json" "$base/api/v1/devices/$id0/facts" &&
		grep -q '"event":"firmware_changed"' "$out/facts3.json" &&
		wget -qO "$out/alerts3.json" "$base/api/v1/alerts" &&
		grep -q '"rule":"firmware_changed"' "$out/alerts3.json"
}
vm_until 30 0.1 fw_changed
get "$base/api/v1/devices/$id0" "$out/device3.json"
stop_root 2

# Restart with the new firmware: no second event.
start_root 3
for id in 1 2; do get "$base/api/v1/devices/$id/facts" "$out/facts4-$id.json"; done
stop_root 3
: >"$NVMOND_SHIM_CONF"

# --- 2. an ordinary user ------------------------------------------------------
echo 'nvmuser:x:1000:1000:nvmond test:/home/nvmuser:/bin/sh' >>/etc/passwd
echo 'nvmuser:x:1000:' >>/etc/group
mkdir -p /home/nvmuser/db
chown -R 1000:1000 /home/nvmuser
asuser() { # asuser 'COMMAND': run it as nvmuser (busybox su; root needs no password)
	su -s /bin/sh nvmuser -c "$1"
}
asuser 'id; grep Cap /proc/self/status' >"$out/user.txt" 2>&1
vm_nvmond_conf /tmp/u.conf 1s 'rescan_interval = 5s'
# Not through asuser: a function in the background is a subshell, and $! its
# pid; su itself execs the shell, which execs nvmond, so $! is nvmond.
su -s /bin/sh nvmuser -c "exec nvmond --db /home/nvmuser/db/n.db --listen 127.0.0.1:9471 --config /tmp/u.conf" \
	>"$out/user-daemon.log" 2>&1 &
upid=$!
vm_wait_http http://127.0.0.1:9471/healthz 60 || fail "non-root daemon did not start"
# Wait for 20 hwmon polls (observable in /metrics), then look.
vm_until 60 0.1 vm_metric_ge http://127.0.0.1:9471 nvmond_polls_total 20
# the hwmon files right before and after the API, for the host to compare
hwmon_temps() { # each controller's serial and hwmon temp1_input
	for c in $(vm_ctrls); do
		printf '%s %s\n' "$(vm_ctrl_serial "$c")" "$(cat /sys/class/nvme/$c/hwmon*/temp1_input)"
	done
}
hwmon_temps >"$out/hwmon-before.txt"
get http://127.0.0.1:9471/api/v1/devices "$out/user-devices.json"
hwmon_temps >"$out/hwmon-after.txt"
get http://127.0.0.1:9471/metrics "$out/user-metrics.txt"
get http://127.0.0.1:9471/api/v1/alerts "$out/user-alerts.json"
kill -0 $upid 2>/dev/null && echo alive >"$out/user-alive"
tr '\0' ' ' </proc/$upid/cmdline >"$out/user-pid-cmdline"
vm_stop "$upid" "$out/user-daemon.rc"
asuser "nvmond --config /tmp/u.conf status" >"$out/user-status.txt" 2>&1
echo $? >"$out/user-status.rc"
asuser "nvmond --config /tmp/u.conf status --json" >"$out/user-status.json" 2>"$out/user-status.err"
echo $? >"$out/user-status-json.rc"
exit 0
