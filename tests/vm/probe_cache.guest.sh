# Guest half of test_probe_cache.sh (busybox sh, run by the VM's /init): a
# repeated seq1m-q8, a sustained-write, then the cache-recovery study, on a probe file of a
# controller whose image QEMU throttles like a drive's write cache (a burst
# bucket, then a much lower rate, refilled by idle time). Leaves nvme-cli SMART
# logs, the two results and exit codes in $VM_OUT.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
vm_load_extra_modules

c0=$(vm_ctrl_by_serial NVMOND-VM-0000) || exit 2
n0=$(vm_ctrl_ns "$c0" | head -n 1)
echo "controller: $c0 ($n0)"
mke2fs -q "/dev/$n0" || exit 3
mkdir -p /mnt/n0 && mount -t ext4 "/dev/$n0" /mnt/n0 || exit 3
mkdir -p /mnt/n0/probe
sync

smart() { # smart NAME
	nvme smart-log "/dev/$c0" -o json > "$out/nvme0.$1.json" 2>/dev/null
}
# The study's bursts are the whole probe area (the 1 GiB minimum is more than it
# holds); the intervals are seconds here: the throttle's bucket leaks at its sustained
# rate, so the cache "refills" in seconds, not the minutes of a real drive.
cat > /tmp/cache.conf <<CONF
[daemon]
demo = no
[probes]
phase_duration = 500ms
sustained_every = 0
recovery_intervals = 1s,2s,4s,8s,16s,32s
[device "NVMOND-VM-0000"]
probe_dir = /mnt/n0/probe
probe_file_size = 64MiB
probe_sustained_limit = 700MiB
CONF
# run NAME ARGS...: nvmond probe --json, result, stderr and exit code into $out
run() {
	name=$1
	shift
	nvmond -c /tmp/cache.conf --db /tmp/nvmond.db probe --device "$c0" --json "$@" \
		> "$out/$name.json" 2> "$out/$name.err"
	echo $? > "$out/$name.rc"
	echo "$name: rc $(cat "$out/$name.rc")"
	sync
}
# A repeated run first (three, with a cooldown), well inside the bucket; then
# the bucket drains (32 MB/s) before the sustained-write measures it.
run repeat --preset seq1m-q8 --repeat 3 --cooldown 1s
sleep 10
smart before
run sustained --preset sustained-write
smart after_sustained
run recovery --preset cache-recovery
smart after_recovery
cat "$out/recovery.err"
exit 0
