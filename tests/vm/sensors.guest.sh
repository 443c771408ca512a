# Guest half of test_sensors.sh: nvmond, with nvmond-test-nvme preloaded, watches
# two emulated controllers. The shim makes NVMOND-VM-0000's composite cool
# (310 K, WCTEMP 343 K) and its Sensor 2 hot (360 K): a note on the drive, no
# alert by default. Then [device] sensor_alerts = yes (SIGHUP): QEMU answers 0
# for the sensor's threshold (Get Features 04h), so WCTEMP is the limit and
# sensor_temperature fires; the shim cools the sensor (320 K): it resolves.
# 4. (issue 15) The shim holds every admin command to NVMOND-VM-0001 while
# /tmp/hang1 exists: it turns unresponsive while NVMOND-VM-0000 is still
# polled, /healthz and /metrics answer and the watchdog is fed (the shim logs
# sd_notify); removing the file lets the held command through: it recovers.
# Every step waits on what the daemon shows (its poll counter, the hook's log).
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
base=$VM_NVMOND_URL
export NVMOND_SHIM_CONF=/tmp/nvme-shim.conf
POLL=1

polls() { vm_metric "$base" nvmond_polls_total; }
# wait_polls N: N more successful health-log reads (both drives count)
wait_polls() {
	want=$(($(polls) + $1))
	vm_until 60 0.1 vm_metric_ge "$base" nvmond_polls_total "$want" && return 0
	echo "no $1 more polls within 60 s (at $(polls), want $want)"
	return 1
}
stamp() { echo "$1 $(vm_uptime_ms) $(polls)" >>"$out/timeline"; }

echo "NVMOND-VM-0000 composite=310 sensor2=360" >"$NVMOND_SHIM_CONF"
vm_hook_install "$out/hook.log" NVMOND_STATE NVMOND_RULE NVMOND_SERIAL
: >"$out/timeline"
conf() { # conf [DEVICE-LINE]
	vm_nvmond_conf /tmp/n.conf "${POLL}s" 'device_timeout = 2s' '[alerts]' 'exec = /tmp/hook.sh' 'exec_timeout = 5s' \
		'resolve_after = 1s' 'cooldown = 1s' '[device "NVMOND-VM-0000"]' "$1"
}
conf ""
echo "$POLL" >"$out/poll_s"

# A service manager's socket that no one reads: the daemon feeds the watchdog only under
# one ($NOTIFY_SOCKET set), and the shim logs each sd_notify() before it fails (ENOENT).
vm_nvmond_start /tmp/n.db "$out/daemon.log" LD_PRELOAD="$VM_SHIM" WATCHDOG_USEC=6000000 \
	NOTIFY_SOCKET=/run/nvmond-test-no-manager NVMOND_SHIM_NOTIFY_LOG="$out/notify.log"
stamp started

# 1. Default: a note, and over 20 polls (10 of each drive) no alert.
wait_polls 20 || exit 1
stamp default_checked
wget -qO "$out/devices_default.json" "$base/api/v1/devices"
wget -qO "$out/alerts_default.json" "$base/api/v1/alerts"
wget -qO "$out/metrics_default.txt" "$base/metrics"
cp "$out/hook.log" "$out/hook_default.log"
LD_PRELOAD="$VM_SHIM" nvmond --config /tmp/n.conf status >"$out/status.txt" 2>"$out/status.err"
echo $? >"$out/status.rc"
LD_PRELOAD="$VM_SHIM" nvmond --config /tmp/n.conf status --json >"$out/status.json" 2>>"$out/status.err"
nvme smart-log "/dev/$(vm_ctrl_by_serial NVMOND-VM-0000)" -o json >"$out/smart_noshim.json"

# 2. sensor_alerts = yes for the drive: the alert fires, once.
conf "sensor_alerts = yes"
stamp sighup
kill -HUP "$VM_NVMOND_PID"
vm_wait_hook ' firing sensor_temperature NVMOND-VM-0000 ' 30 || { echo "no sensor_temperature firing"; exit 1; }
stamp fired
wait_polls 10 || exit 1
wget -qO "$out/alerts_firing.json" "$base/api/v1/alerts"
wget -qO "$out/devices_firing.json" "$base/api/v1/devices"

# 3. The shim cools the sensor: it resolves.
echo "NVMOND-VM-0000 composite=310 sensor2=320" >"$NVMOND_SHIM_CONF"
stamp cooled
vm_wait_hook ' resolved sensor_temperature NVMOND-VM-0000 ' 30 || { echo "no resolved"; exit 1; }
stamp resolved
wait_polls 10 || exit 1
stamp end
wget -qO "$out/alerts_end.json" "$base/api/v1/alerts"
wget -qO "$out/devices_end.json" "$base/api/v1/devices"

# 4. NVMOND-VM-0001 stops answering, then answers again.
touch /tmp/hang1
printf '%s\n' "NVMOND-VM-0000 composite=310 sensor2=320" "NVMOND-VM-0001 hang=/tmp/hang1" >"$NVMOND_SHIM_CONF"
stamp hang
vm_wait_hook ' firing unresponsive NVMOND-VM-0001 ' 30 || { echo "no unresponsive firing"; exit 1; }
stamp hung
# Six rounds, a second apart: how long /healthz and /metrics take, the devices.
: >"$out/hung_timing"
for i in 1 2 3 4 5 6; do
	t0=$(vm_uptime_ms)
	wget -qO /dev/null "$base/healthz" || echo "healthz failed" >>"$out/hung_timing"
	t1=$(vm_uptime_ms)
	wget -qO "$out/metrics_hung_$i.txt" "$base/metrics" || echo "metrics failed" >>"$out/hung_timing"
	t2=$(vm_uptime_ms)
	wget -qO "$out/devices_hung_$i.json" "$base/api/v1/devices"
	echo "$i $t0 $t1 $t2" >>"$out/hung_timing"
	sleep 1
done
cp /tmp/hang1.held "$out/held_while_hung" 2>/dev/null || : >"$out/held_while_hung"
rm /tmp/hang1
stamp released
vm_wait_hook ' resolved unresponsive NVMOND-VM-0001 ' 30 || { echo "no resolved unresponsive"; exit 1; }
stamp recovered
wait_polls 4 || exit 1
wget -qO "$out/devices_recovered.json" "$base/api/v1/devices"
wget -qO "$out/metrics_recovered.txt" "$base/metrics"
cp /tmp/hang1.held "$out/held" 2>/dev/null || : >"$out/held"
vm_stop "$VM_NVMOND_PID" "$out/daemon.rc"
exit 0
