# Guest half of test_alerts.sh: nvmond with an exec hook watches two emulated
# controllers while the host sets and clears smart_critical_warning (QMP
# qom-set) on NVMOND-VM-0000; then the guest lowers the temperature threshold of
# NVMOND-VM-0001 below its 323 K (Set Features 04h), and finally the host
# unplugs NVMOND-VM-0001 (QMP device_del). The hook records each
# notification with the guest's uptime, for the host to judge.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
base=http://127.0.0.1:9470
POLL=1

uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

cat >/tmp/hook.sh <<HOOK
#!/bin/sh
# uptime_ms state rule serial severity, then the JSON from stdin
{ printf '%s %s %s %s %s ' "\$(awk '{ printf "%d", \$1 * 1000 }' /proc/uptime)" "\$NVMOND_STATE" "\$NVMOND_RULE" "\$NVMOND_SERIAL" "\$NVMOND_SEVERITY"; cat; echo; } >>$out/hook.log
HOOK
chmod +x /tmp/hook.sh
: >"$out/hook.log"

cat >/tmp/n.conf <<CONF
[daemon]
poll_interval = ${POLL}s
demo = no
web_root = /usr/share/nvmond/web
[alerts]
exec = /tmp/hook.sh
exec_timeout = 5s
resolve_after = 1s
cooldown = 1s
CONF
echo "$POLL" >"$out/poll_s"
nvmond --db /tmp/n.db --listen 127.0.0.1:9470 --config /tmp/n.conf >"$out/daemon.log" 2>&1 &
pid=$!
vm_wait_http "$base/healthz" 60 || { echo "daemon did not start"; exit 1; }
c0=$(vm_ctrl_by_serial NVMOND-VM-0000)
c1=$(vm_ctrl_by_serial NVMOND-VM-0001)
sleep 3 # a few polls of healthy controllers (spare 0, threshold 0)

crit_warning() { # crit_warning CTRL
	nvme smart-log "/dev/$1" -o json | sed -n 's/.*"critical_warning"[^0-9]*\([0-9]*\).*/\1/p'
}

wait_line() { # wait_line PATTERN SECONDS
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		grep -q "$1" "$out/hook.log" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# 1. The host sets the temperature bit: note when the controller shows it.
vm_mark ready
i=0
while [ $i -lt 1200 ]; do
	v=$(crit_warning "$c0")
	[ -n "$v" ] && [ "$v" != 0 ] && break
	i=$((i + 1))
	sleep 0.05
done
uptime_ms >"$out/bit_set_ms"
echo "critical warning on $c0: $(crit_warning "$c0")"
wait_line ' firing critical_warning_temperature NVMOND-VM-0000 ' 30 || { echo "no firing"; exit 1; }
sleep $((3 * POLL)) # more polls: it must not run again
vm_mark fired

# 2. The host clears it: "resolved".
wait_line ' resolved critical_warning_temperature NVMOND-VM-0000 ' 60 || { echo "no resolved"; exit 1; }
uptime_ms >"$out/resolved_seen_ms"

# 3. Temperature threshold below the current temperature (323 K) on the other one.
nvme get-feature "/dev/$c1" -f 4 >"$out/threshold_before" 2>&1
uptime_ms >"$out/threshold_set_ms"
nvme set-feature "/dev/$c1" -f 4 -v 300 >"$out/set_feature.log" 2>&1 || { echo "set-feature failed"; exit 1; }
wait_line ' firing critical_warning_temperature NVMOND-VM-0001 ' 30 || { echo "no alert for the threshold"; exit 1; }
nvme set-feature "/dev/$c1" -f 4 -v 343 >>"$out/set_feature.log" 2>&1
wait_line ' resolved critical_warning_temperature NVMOND-VM-0001 ' 30 || { echo "threshold alert not resolved"; exit 1; }

# 4. The host unplugs NVMOND-VM-0001: "offline".
vm_mark unplug
wait_line ' firing offline NVMOND-VM-0001 ' 60 || { echo "no offline alert"; exit 1; }
# The bit's events end once it has stayed clear for the settling time (10 s).
i=0
while [ $i -lt 300 ]; do
	wget -qO "$out/events1.json" "$base/api/v1/devices/1/events"
	wget -qO "$out/events2.json" "$base/api/v1/devices/2/events"
	grep -q '"ongoing":true' "$out/events1.json" "$out/events2.json" || break
	sleep 0.1
	i=$((i + 1))
done
wget -qO "$out/alerts.json" "$base/api/v1/alerts"
wget -qO "$out/devices.json" "$base/api/v1/devices"
kill -TERM "$pid"
wait "$pid"
echo $? >"$out/daemon.rc"
exit 0
