# Guest half of test_errors.sh (busybox sh). nvmond runs with the nvme shim
# preloaded and NVMOND_SHIM_STATUS_LOG set, so every admin command it sends
# that the controller refuses leaves a line there.
#  1. 1,000 polls of each controller (poll_interval 100ms, the minimum), the
#     start-up scan and the rescans included: the status log must hold no line
#     of nvmond's, and num_err_log_entries (nvme-cli, without the shim) must
#     not move. A refused command sent through the shim by nvme-cli shows the
#     log works.
#  2. The shim adds error log entries to NVMOND-VM-0000 one at a time: a
#     benign one (SQID 0, Invalid Field in Command), then two media ones (SQID
#     1, SCT 2h SC 81h Unrecovered Read Error). The exec hook records each
#     notification with the guest's uptime; the API, /metrics and nvme-cli's
#     error-log (through the shim) are saved for the host to judge.
#  3. A restart on the same database: the entries are not stored again and
#     io_errors does not fire again.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
base=http://127.0.0.1:9470
shim=/usr/lib/libnvmond-test-nvme.so
export NVMOND_SHIM_CONF=/tmp/nvme-shim.conf
status=/tmp/status.log
POLLS=2000 # nvmond_polls_total counts each controller's read: 1,000 each

uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
err_count() { # the controller's own num_err_log_entries, without the shim
	nvme smart-log "/dev/$1" -o json | sed -n 's/.*"num_err_log_entries"[^0-9]*\([0-9]*\).*/\1/p'
}
metric() { # metric NAME: its value in /metrics (no labels)
	wget -qO- "$base/metrics" | sed -n "s/^$1 //p"
}
wait_metric_ge() { # wait_metric_ge NAME VALUE SECONDS
	i=0
	while [ $i -lt "$3" ]; do
		v=$(metric "$1")
		[ -n "$v" ] && [ "$v" -ge "$2" ] && return 0
		sleep 1
		i=$((i + 1))
	done
	return 1
}
wait_grep() { # wait_grep PATTERN URL SECONDS FILE
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		wget -qO "$4" "$2" && grep -qE "$1" "$4" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
wait_hook() { # wait_hook PATTERN SECONDS
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		grep -q "$1" "$out/hook.log" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
start_nvmond() { # start_nvmond LOG
	LD_PRELOAD=$shim NVMOND_SHIM_STATUS_LOG=$status \
		nvmond --db /tmp/n.db --listen 127.0.0.1:9470 --config /tmp/n.conf >"$1" 2>&1 &
	pid=$!
	vm_wait_http "$base/healthz" 60 || { echo "daemon did not start"; cat "$1"; exit 1; }
}
more_polls() { # more_polls N: wait until N more health logs were read
	p0=$(metric nvmond_polls_total)
	wait_metric_ge nvmond_polls_total $((p0 + $1)) 60 || { echo "polling stopped"; exit 1; }
}

cat >/tmp/hook.sh <<HOOK
#!/bin/sh
{ printf '%s %s %s %s %s ' "\$(awk '{ printf "%d", \$1 * 1000 }' /proc/uptime)" "\$NVMOND_STATE" "\$NVMOND_RULE" "\$NVMOND_SERIAL" "\$NVMOND_SEVERITY"; cat; echo; } >>$out/hook.log
HOOK
chmod +x /tmp/hook.sh
: >"$out/hook.log"
: >"$status"
cat >/tmp/n.conf <<CONF
[daemon]
poll_interval = 100ms
demo = no
web_root = /usr/share/nvmond/web
[alerts]
exec = /tmp/hook.sh
exec_timeout = 5s
CONF
# ELPE 3: the controller keeps four entries (QEMU's own ELPE is 0).
echo "NVMOND-VM-0000 elpe=3" >"$NVMOND_SHIM_CONF"

c0=$(vm_ctrl_by_serial NVMOND-VM-0000)
c1=$(vm_ctrl_by_serial NVMOND-VM-0001)
echo "$c0 $(err_count "$c0") $c1 $(err_count "$c1")" >"$out/errcount_before"

# 1. A thousand polls of each controller.
t0=$(uptime_ms)
start_nvmond "$out/daemon.log"
wait_metric_ge nvmond_polls_total $POLLS 400 || { echo "fewer than $POLLS polls"; exit 1; }
echo $(($(uptime_ms) - t0)) >"$out/polls_ms"
wget -qO "$out/metrics1.txt" "$base/metrics"
cp "$status" "$out/status1.log"
echo "$c0 $(err_count "$c0") $c1 $(err_count "$c1")" >"$out/errcount_after"
# The status log works: a log page the controller does not have, asked through the shim.
LD_PRELOAD=$shim NVMOND_SHIM_STATUS_LOG=$status nvme get-log "/dev/$c1" --log-id=0xc0 --log-len=512 \
	>"$out/control.txt" 2>&1
echo "control rc=$?" >>"$out/control.txt"
wget -qO "$out/devices.json" "$base/api/v1/devices"
id0=
for i in 1 2 3 4; do
	wget -qO- "$base/api/v1/devices/$i" 2>/dev/null | grep -q '"serial": *"NVMOND-VM-0000"' && id0=$i && break
done
[ -n "$id0" ] || { echo "no id for NVMOND-VM-0000"; exit 1; }
echo "$id0" >"$out/id0"
errors=$base/api/v1/devices/$id0/errors

# 2. A benign entry: shown, no alert.
uptime_ms >"$out/benign_ms"
echo "NVMOND-VM-0000 error=1,0,0,0x02,0,0" >>"$NVMOND_SHIM_CONF"
wait_grep '"error_count": *1,' "$errors" 30 "$out/errors_benign.json" || { echo "benign entry not shown"; exit 1; }
more_polls 20 # the sample that showed it, and more, went through the alert rules
wget -qO "$out/alerts_benign.json" "$base/api/v1/alerts"
cp "$out/hook.log" "$out/hook_benign.log"

# A media entry: io_errors fires (once).
uptime_ms >"$out/media_ms"
echo "NVMOND-VM-0000 error=2,1,2,0x81,4096,1" >>"$NVMOND_SHIM_CONF"
wait_hook ' firing io_errors NVMOND-VM-0000 ' 30 || { echo "io_errors did not fire"; exit 1; }
uptime_ms >"$out/media2_ms"
echo "NVMOND-VM-0000 error=3,1,2,0x81,8192,1" >>"$NVMOND_SHIM_CONF"
wait_grep '"error_count": *3,' "$errors" 30 "$out/errors.json" || { echo "second media entry not shown"; exit 1; }
more_polls 20
wget -qO "$out/errors.json" "$errors"
wget -qO "$out/device0.json" "$base/api/v1/devices/$id0"
wget -qO "$out/alerts.json" "$base/api/v1/alerts"
wget -qO "$out/metrics2.txt" "$base/metrics"
LD_PRELOAD=$shim nvme error-log "/dev/$c0" -o json >"$out/nvme_error_log.json" 2>"$out/nvme_error_log.err"
LD_PRELOAD=$shim nvme smart-log "/dev/$c0" -o json >"$out/nvme_smart_shim.json" 2>&1

# 3. A restart: nothing stored twice, nothing fired twice.
kill -TERM "$pid"
wait "$pid"
echo $? >"$out/daemon.rc"
start_nvmond "$out/daemon2.log"
more_polls 40
wget -qO "$out/errors_restart.json" "$errors"
wget -qO "$out/metrics3.txt" "$base/metrics"
kill -TERM "$pid"
wait "$pid"
echo $? >"$out/daemon2.rc"
cp "$status" "$out/status.log"
echo "$c0 $(err_count "$c0") $c1 $(err_count "$c1")" >"$out/errcount_end"
exit 0
