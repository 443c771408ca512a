# Guest half of test_metrics.sh: nvmond watches two emulated controllers; the
# guest saves GET /metrics and nvme-cli's view of each controller, then waits for
# the host's qom-set of the spare bit on NVMOND-VM-0001 to show in /metrics.
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
exit 0
