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
base=$VM_NVMOND_URL
export NVMOND_SHIM_CONF=/tmp/nvme-shim.conf
status=/tmp/status.log
POLLS=2000 # nvmond_polls_total counts each controller's read: 1,000 each

err_count() { # the controller's own num_err_log_entries, without the shim
	vm_smart_field "$1" num_err_log_entries
}
get_grep() { # get_grep PATTERN URL FILE: FILE, fetched from URL, matches PATTERN
	wget -qO "$3" "$2" && grep -qE "$1" "$3"
}
start_nvmond() { # start_nvmond LOG
	vm_nvmond_start /tmp/n.db "$1" LD_PRELOAD="$VM_SHIM" NVMOND_SHIM_STATUS_LOG="$status"
}
more_polls() { # more_polls N: wait until N more health logs were read
	p0=$(vm_metric "$base" nvmond_polls_total)
	vm_until 60 1 vm_metric_ge "$base" nvmond_polls_total $((p0 + $1)) || { echo "polling stopped"; exit 1; }
}

vm_hook_install "$out/hook.log" NVMOND_STATE NVMOND_RULE NVMOND_SERIAL NVMOND_SEVERITY
: >"$status"
vm_nvmond_conf /tmp/n.conf 100ms '[alerts]' 'exec = /tmp/hook.sh' 'exec_timeout = 5s'
# ELPE 3: the controller keeps four entries (QEMU's own ELPE is 0).
echo "NVMOND-VM-0000 elpe=3" >"$NVMOND_SHIM_CONF"

c0=$(vm_ctrl_by_serial NVMOND-VM-0000)
c1=$(vm_ctrl_by_serial NVMOND-VM-0001)
echo "$c0 $(err_count "$c0") $c1 $(err_count "$c1")" >"$out/errcount_before"

# 1. A thousand polls of each controller.
t0=$(vm_uptime_ms)
start_nvmond "$out/daemon.log"
vm_until 400 1 vm_metric_ge "$base" nvmond_polls_total $POLLS || { echo "fewer than $POLLS polls"; exit 1; }
echo $(($(vm_uptime_ms) - t0)) >"$out/polls_ms"
wget -qO "$out/metrics1.txt" "$base/metrics"
cp "$status" "$out/status1.log"
echo "$c0 $(err_count "$c0") $c1 $(err_count "$c1")" >"$out/errcount_after"
# The status log works: a log page the controller does not have, asked through the shim.
LD_PRELOAD="$VM_SHIM" NVMOND_SHIM_STATUS_LOG="$status" nvme get-log "/dev/$c1" --log-id=0xc0 --log-len=512 \
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
vm_uptime_ms >"$out/benign_ms"
echo "NVMOND-VM-0000 error=1,0,0,0x02,0,0" >>"$NVMOND_SHIM_CONF"
vm_until 30 0.1 get_grep '"error_count": *1,' "$errors" "$out/errors_benign.json" || { echo "benign entry not shown"; exit 1; }
more_polls 20 # the sample that showed it, and more, went through the alert rules
wget -qO "$out/alerts_benign.json" "$base/api/v1/alerts"
cp "$out/hook.log" "$out/hook_benign.log"

# A media entry: io_errors fires (once).
vm_uptime_ms >"$out/media_ms"
echo "NVMOND-VM-0000 error=2,1,2,0x81,4096,1" >>"$NVMOND_SHIM_CONF"
vm_wait_hook ' firing io_errors NVMOND-VM-0000 ' 30 || { echo "io_errors did not fire"; exit 1; }
vm_uptime_ms >"$out/media2_ms"
echo "NVMOND-VM-0000 error=3,1,2,0x81,8192,1" >>"$NVMOND_SHIM_CONF"
vm_until 30 0.1 get_grep '"error_count": *3,' "$errors" "$out/errors.json" || { echo "second media entry not shown"; exit 1; }
more_polls 20
wget -qO "$out/errors.json" "$errors"
wget -qO "$out/device0.json" "$base/api/v1/devices/$id0"
wget -qO "$out/alerts.json" "$base/api/v1/alerts"
wget -qO "$out/metrics2.txt" "$base/metrics"
LD_PRELOAD="$VM_SHIM" nvme error-log "/dev/$c0" -o json >"$out/nvme_error_log.json" 2>"$out/nvme_error_log.err"
LD_PRELOAD="$VM_SHIM" nvme smart-log "/dev/$c0" -o json >"$out/nvme_smart_shim.json" 2>&1

# 3. A restart: nothing stored twice, nothing fired twice.
vm_stop "$VM_NVMOND_PID" "$out/daemon.rc"
start_nvmond "$out/daemon2.log"
more_polls 40
wget -qO "$out/errors_restart.json" "$errors"
wget -qO "$out/metrics3.txt" "$base/metrics"
vm_stop "$VM_NVMOND_PID" "$out/daemon2.rc"
cp "$status" "$out/status.log"
echo "$c0 $(err_count "$c0") $c1 $(err_count "$c1")" >"$out/errcount_end"
exit 0
