# Guest half of test_metrics.sh: nvmond watches two emulated controllers; the
# guest saves GET /metrics and nvme-cli's view of each controller, then waits for
# the host's qom-set of the spare bit on NVMOND-VM-0001 to show in /metrics.
# Then the wall clock steps back 1 h and forward 1 day under a second daemon.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
base=http://127.0.0.1:9470

cat >/tmp/n.conf <<CONF
[daemon]
poll_interval = 1s
demo = no
web_root = /usr/share/nvmond/web
CONF
nvmond --db /tmp/n.db --listen 127.0.0.1:9470 --config /tmp/n.conf >"$out/daemon.log" 2>&1 &
pid=$!
vm_wait_http "$base/healthz" 60 || { echo "daemon did not start"; exit 1; }
# 8 MiB written to NVMOND-VM-0000 (a disk of the VM), so its write counter is not 0.
c0=$(vm_ctrl_by_serial NVMOND-VM-0000) || { echo "no NVMOND-VM-0000"; exit 1; }
ns=$(vm_ctrl_ns "$c0" | cut -d' ' -f1)
dd if=/dev/zero of="/dev/$ns" bs=1M count=8 oflag=direct >"$out/dd.log" 2>&1 ||
	{ echo "dd failed: $(cat "$out/dd.log")"; exit 1; }
sleep 3 # a few polls after the write: nvme-cli and /metrics see the same counters
for c in $(vm_ctrls); do
	nvme smart-log "/dev/$c" -o json >"$out/smart-$(vm_ctrl_serial "$c").json" || exit 1
done
wget -qO "$out/metrics1.txt" "$base/metrics" || { echo "GET /metrics failed"; exit 1; }
vm_mark ready

# The host sets the spare bit (critical warning bit 0) on NVMOND-VM-0001.
i=0
while [ $i -lt 600 ]; do
	wget -qO "$out/metrics2.txt" "$base/metrics"
	grep -q '^nvmond_critical_warning{.*serial="NVMOND-VM-0001",warning="spare"} 1$' \
		"$out/metrics2.txt" && break
	sleep 0.1
	i=$((i + 1))
done
kill -TERM "$pid"
wait "$pid"
echo $? >"$out/daemon.rc"

# Clock steps (issue 15 §6, docs/reliability.md), last in this script: nothing
# after it cares about the wall time. A second daemon on a new database, 1 s
# polls, alerts that fire at once (margin 50); once it has polled, the wall clock
# is set back 1 h, then forward 1 day, 5 polls of each drive apart. The host
# checks the database it leaves (test_metrics.sh).
cat >/tmp/c.conf <<CONF
[daemon]
poll_interval = 1s
demo = no
web_root = /usr/share/nvmond/web
[alerts]
warning_margin = 50
resolve_after = 0
cooldown = 0
CONF
cbase=http://127.0.0.1:9471
nvmond --db /tmp/c.db --listen 127.0.0.1:9471 --config /tmp/c.conf >"$out/clock-daemon.log" 2>&1 &
cpid=$!
vm_wait_http "$cbase/healthz" 60 || { echo "clock: daemon did not start"; exit 1; }
polls_at() { vm_metric_ge "$cbase" nvmond_polls_total "$1"; }
vm_until 60 0.2 polls_at 10 || { echo "clock: no polls"; exit 1; }
echo "$(date +%s)000" >"$out/clock-back.ms" # busybox date has no %N
date -s "@$(($(date +%s) - 3600))" >/dev/null || { echo "clock: date -s failed"; exit 1; }
vm_until 60 0.2 polls_at 20 || { echo "clock: no polls after the step back"; exit 1; }
date -s "@$(($(date +%s) + 86400))" >/dev/null || { echo "clock: date -s failed"; exit 1; }
vm_until 60 0.2 polls_at 30 || { echo "clock: no polls after the step forward"; exit 1; }
kill -TERM "$cpid"
wait "$cpid"
echo $? >"$out/clock.rc"
cp /tmp/c.db "$out/clock.db"
exit 0
