# Guest half of test_alerts.sh: nvmond with an exec hook watches two emulated
# controllers while the host sets and clears smart_critical_warning (QMP
# qom-set) on NVMOND-VM-0000; then the guest lowers the temperature threshold of
# NVMOND-VM-0001 below its 323 K (Set Features 04h), and finally the host
# unplugs NVMOND-VM-0001 (QMP device_del). The hook records each
# notification with the guest's uptime, for the host to judge.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
base=$VM_NVMOND_URL
POLL=1

vm_hook_install "$out/hook.log" NVMOND_STATE NVMOND_RULE NVMOND_SERIAL NVMOND_SEVERITY
vm_nvmond_conf /tmp/n.conf "${POLL}s" '[alerts]' 'exec = /tmp/hook.sh' 'exec_timeout = 5s' \
	'resolve_after = 1s' 'cooldown = 1s'
echo "$POLL" >"$out/poll_s"
vm_nvmond_start /tmp/n.db "$out/daemon.log"
c0=$(vm_ctrl_by_serial NVMOND-VM-0000)
c1=$(vm_ctrl_by_serial NVMOND-VM-0001)
sleep 3 # a few polls of healthy controllers (spare 0, threshold 0)

bit_set() { # bit_set CTRL: a critical warning bit shows on CTRL
	v=$(vm_smart_field "$1" critical_warning)
	[ -n "$v" ] && [ "$v" != 0 ]
}

events_closed() { # no event of either drive is ongoing
	wget -qO "$out/events1.json" "$base/api/v1/devices/1/events"
	wget -qO "$out/events2.json" "$base/api/v1/devices/2/events"
	! grep -q '"ongoing":true' "$out/events1.json" "$out/events2.json"
}

# 1. The host sets the temperature bit: note when the controller shows it.
vm_mark ready
vm_until 60 0.05 bit_set "$c0"
vm_uptime_ms >"$out/bit_set_ms"
echo "critical warning on $c0: $(vm_smart_field "$c0" critical_warning)"
vm_wait_hook ' firing critical_warning_temperature NVMOND-VM-0000 ' 30 || { echo "no firing"; exit 1; }
sleep $((3 * POLL)) # more polls: it must not run again
vm_mark fired

# 2. The host clears it: "resolved".
vm_wait_hook ' resolved critical_warning_temperature NVMOND-VM-0000 ' 60 || { echo "no resolved"; exit 1; }
vm_uptime_ms >"$out/resolved_seen_ms"

# 3. Temperature threshold below the current temperature (323 K) on the other one.
nvme get-feature "/dev/$c1" -f 4 >"$out/threshold_before" 2>&1
vm_uptime_ms >"$out/threshold_set_ms"
nvme set-feature "/dev/$c1" -f 4 -v 300 >"$out/set_feature.log" 2>&1 || { echo "set-feature failed"; exit 1; }
vm_wait_hook ' firing critical_warning_temperature NVMOND-VM-0001 ' 30 || { echo "no alert for the threshold"; exit 1; }
nvme set-feature "/dev/$c1" -f 4 -v 343 >>"$out/set_feature.log" 2>&1
vm_wait_hook ' resolved critical_warning_temperature NVMOND-VM-0001 ' 30 || { echo "threshold alert not resolved"; exit 1; }

# 4. The host unplugs NVMOND-VM-0001: "offline".
vm_mark unplug
vm_wait_hook ' firing offline NVMOND-VM-0001 ' 60 || { echo "no offline alert"; exit 1; }
# The bit's events end once it has stayed clear for the settling time (10 s).
vm_until 30 0.1 events_closed
wget -qO "$out/alerts.json" "$base/api/v1/alerts"
wget -qO "$out/devices.json" "$base/api/v1/devices"
vm_stop "$VM_NVMOND_PID" "$out/daemon.rc"
exit 0
