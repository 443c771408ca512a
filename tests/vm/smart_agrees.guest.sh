# Guest half of test_smart_agrees.sh (busybox sh, run by the VM's /init).
# Collects nvme-cli's and nvmond's view of every controller into $VM_OUT; the
# host compares them. A failed step is recorded in $VM_OUT/errors.txt and the
# script goes on, so the host sees as much as possible.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
port=9470
base=http://127.0.0.1:$port

err() {
	echo "ERROR: $*"
	echo "$*" >>"$out/errors.txt"
}

now_ms() {
	# busybox date has no %N; /proc/uptime is not wall clock. Seconds suffice.
	echo $(($(date +%s) * 1000))
}

# --- 1. nvme-cli, nvmond status, nvme-cli again ---------------------------
: >"$out/ctrls.txt"
for c in $(vm_ctrls); do
	ns=$(vm_ctrl_ns "$c") || err "$c: no namespace block device"
	size=0
	for b in $ns; do
		size=$((size + $(cat "/sys/block/$b/size") * 512))
	done
	echo "$c $(vm_ctrl_serial "$c") $size $ns" >>"$out/ctrls.txt"
	nvme smart-log "/dev/$c" -o json >"$out/$c.smart1.json" || err "nvme smart-log $c failed"
	nvme id-ctrl "/dev/$c" -o json >"$out/$c.idctrl.json" || err "nvme id-ctrl $c failed"
done
cat "$out/ctrls.txt"

# web_root: the dashboard files the host put there (the built-in default is
# the source tree, which the guest does not have).
printf '[daemon]\npoll_interval = 1s\ndemo = no\nweb_root = /usr/share/nvmond/web\n' >/tmp/n.conf
nvmond --config /tmp/n.conf status --json >"$out/status.json" 2>"$out/status.err"
echo $? >"$out/status.rc"
[ "$(cat "$out/status.rc")" = 0 ] || err "nvmond status --json exited $(cat "$out/status.rc"): $(head -c 300 "$out/status.err")"

for c in $(vm_ctrls); do
	nvme smart-log "/dev/$c" -o json >"$out/$c.smart2.json" || err "nvme smart-log $c failed"
done

# --- 2. the daemon, a 64 MiB write, the served samples --------------------
# The controller whose namespace gets written: the first one.
wc=$(vm_ctrls | head -n 1)
wns=$(vm_ctrl_ns "$wc" | cut -d' ' -f1)
echo "$wc $(vm_ctrl_serial "$wc") $wns" >"$out/written.txt"

nvmond --db /tmp/n.db --listen 127.0.0.1:$port --config /tmp/n.conf >"$out/daemon.log" 2>&1 &
pid=$!
echo "nvmond pid $pid"
# Up when /healthz answers; give up early if the daemon is gone.
up=0
i=0
while [ $i -lt 300 ]; do
	if wget -qO "$out/healthz.txt" "$base/healthz" 2>/dev/null; then
		up=1
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
if [ $up -eq 0 ]; then
	if kill -0 $pid 2>/dev/null; then
		err "nvmond: /healthz did not answer within 30 s"
		kill -KILL $pid
	else
		err "nvmond exited before serving /healthz"
	fi
	wait $pid
	echo "nvmond exited $?"
fi

# Wait until every controller has a sample, then keep that as the baseline.
i=0
while [ $up -eq 1 ]; do
	wget -qO "$out/devices1.json" "$base/api/v1/devices" || err "GET /api/v1/devices failed"
	n=$(grep -o '"data_units_written"' "$out/devices1.json" | grep -c .)
	[ "$n" -ge "$VM_NVME_COUNT" ] && break
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		err "nvmond: no sample for every device after 10 s (have $n)"
		break
	fi
	sleep 0.1
done

# nvme-cli's view just before the write (the daemon only reads logs).
for c in $(vm_ctrls); do
	nvme smart-log "/dev/$c" -o json >"$out/$c.smart2b.json" || err "nvme smart-log $c failed"
done

# Random data first (tmpfs), so dd's time is the write alone.
head -c $((64 * 1024 * 1024)) /dev/urandom >/tmp/rand.bin || err "urandom"
now_ms >"$out/dd_start_ms"
dd if=/tmp/rand.bin of="/dev/$wns" bs=1M count=64 oflag=direct >"$out/dd.log" 2>&1 ||
	err "dd to /dev/$wns failed: $(cat "$out/dd.log")"
now_ms >"$out/dd_end_ms"
rm -f /tmp/rand.bin
cat "$out/dd.log"

if [ $up -eq 1 ]; then
	# At least three poll intervals (1 s) after the write.
	sleep 4
	# Samples of every device id the API listed (the host matches ids to
	# serials; a number that is no device id just gets a 404).
	for id in $(grep -o '"id": *[0-9]*' "$out/devices1.json" | grep -o '[0-9]*$' | sort -u); do
		wget -qO "$out/samples-$id.json" "$base/api/v1/devices/$id/samples" ||
			rm -f "$out/samples-$id.json"
	done
	wget -qO "$out/devices2.json" "$base/api/v1/devices" || err "GET /api/v1/devices failed"

	kill -TERM $pid
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		err "nvmond did not exit within 10 s of SIGTERM"
		kill -KILL $pid
	fi
	wait $pid
	echo $? >"$out/daemon.rc"
	echo "nvmond exited $(cat "$out/daemon.rc") after SIGTERM"
fi

# Nothing wrote since: the controllers' final view.
for c in $(vm_ctrls); do
	nvme smart-log "/dev/$c" -o json >"$out/$c.smart3.json" || err "nvme smart-log $c failed"
done
ls -l "$out"
[ ! -s "$out/errors.txt" ]
