#!/bin/sh
# /init of the test VM (busybox sh). Mounts the pseudo file systems, loads the
# NVMe and virtio modules, waits for the controllers, runs /vm/guest.sh with a
# hard timeout, sends $VM_OUT back as a tar stream on the "nvmond.results"
# virtio port and the exit status on "nvmond.status", then powers off.
# Part of the cached base initramfs (see lib.sh); the overlay adds /vm/guest.sh
# and /vm/env.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root

mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs run /run
hostname nvmond-vm
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

VM_OUT=/tmp/out
VM_GUEST_TIMEOUT=150
VM_NVME_COUNT=2
VM_NVME_NS_TOTAL=
[ -r /vm/env ] && . /vm/env
: "${VM_NVME_NS_TOTAL:=$VM_NVME_COUNT}"
export VM_OUT VM_NVME_COUNT VM_NVME_NS_TOTAL
mkdir -p "$VM_OUT"

log() { echo "vm-init: $*"; }

# Writes the results and the status (one line: "<rc> <reason>") and powers off.
finish() {
	rc=$1
	shift
	log "guest finished: rc=$rc $*"
	res=$(port_dev nvmond.results)
	st=$(port_dev nvmond.status)
	if [ -n "$res" ]; then
		(cd "$VM_OUT" && tar -cf - .) >"$res"
	else
		log "no results port"
	fi
	if [ -n "$st" ]; then
		echo "$rc $*" >"$st"
	else
		log "no status port"
	fi
	sync
	# virtio-console writes return once queued; give the host a moment to
	# drain the queue before the machine disappears.
	sleep 1
	echo "VM-POWEROFF"
	poweroff -f
	sleep 10
}

# port_dev NAME - the /dev node of the virtio-serial port called NAME.
port_dev() {
	for n in /sys/class/virtio-ports/vport*/name; do
		[ -r "$n" ] || continue
		if [ "$(cat "$n")" = "$1" ]; then
			p=${n%/name}
			echo "/dev/${p##*/}"
			return 0
		fi
	done
	return 1
}

while read -r m; do
	[ -n "$m" ] || continue
	# "File exists" is fine: a dependency shared by two modules.
	insmod "$m" 2>/tmp/insmod.err || grep -q 'File exists' /tmp/insmod.err ||
		log "insmod $m: $(cat /tmp/insmod.err)"
done </etc/vm/modules

# Wait for the controllers and their namespaces (and the virtio ports).
i=0
while :; do
	ok=1
	# Controllers (char devices) and namespace heads (block devices); the
	# hidden per-path disks nvmeXcYnZ have no /dev node.
	nc=$(ls /sys/class/nvme 2>/dev/null | grep -c '^nvme[0-9]*$')
	nn=$(ls /sys/block 2>/dev/null | grep '^nvme[0-9]*n[0-9]*$' |
		while read -r b; do [ -b "/dev/$b" ] && echo "$b"; done | grep -c .)
	[ "$nc" -ge "$VM_NVME_COUNT" ] && [ "$nn" -ge "$VM_NVME_NS_TOTAL" ] || ok=0
	[ -n "$(port_dev nvmond.status)" ] || ok=0
	[ $ok -eq 1 ] && break
	i=$((i + 1))
	if [ $i -gt 300 ]; then
		ls -l /dev/nvme* /sys/class/virtio-ports 2>&1
		finish 125 "init: timed out waiting for $VM_NVME_COUNT nvme controllers"
	fi
	sleep 0.1
done
log "controllers ready after $((i * 100)) ms: $(cd /dev && echo nvme*)"

if [ ! -r /vm/guest.sh ]; then
	finish 126 "init: no /vm/guest.sh"
fi

echo "VM-GUEST-START"
cd /tmp || exit 1
timeout -s KILL "$VM_GUEST_TIMEOUT" sh /vm/guest.sh >"$VM_OUT/guest.log" 2>&1
rc=$?
echo "----- guest.log -----"
cat "$VM_OUT/guest.log"
echo "---------------------"
if [ $rc -eq 137 ]; then
	finish $rc "guest script killed after ${VM_GUEST_TIMEOUT}s"
fi
finish $rc "guest script exited"
