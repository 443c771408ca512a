# Helpers for guest scripts (busybox sh); installed as /etc/vm/guest-lib.sh.
# Usage in a guest script: . /etc/vm/guest-lib.sh

# vm_ctrls - the NVMe controller names (nvme0 nvme1 ...), sorted.
vm_ctrls() {
	ls /sys/class/nvme | grep '^nvme[0-9]*$' | sort
}

# vm_ctrl_serial CTRL - the serial number of controller CTRL, blanks trimmed.
vm_ctrl_serial() {
	sed 's/[[:space:]]*$//; s/^[[:space:]]*//' "/sys/class/nvme/$1/serial"
}

# vm_ctrl_by_serial SERIAL - the controller name with that serial.
vm_ctrl_by_serial() {
	for c in $(vm_ctrls); do
		if [ "$(vm_ctrl_serial "$c")" = "$1" ]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# vm_ctrl_ns CTRL - the namespace block devices (e.g. nvme0n1) reached through
# controller CTRL. Without native multipath they sit under the controller;
# with it the block device is the subsystem's namespace head, whose name
# follows the subsystem instance, not the controller's.
vm_ctrl_ns() {
	found=
	for d in /sys/class/nvme/$1/nvme*; do
		b=${d##*/}
		case "$b" in
		*c*n*) ;;
		*n*) [ -b "/dev/$b" ] && found="$found $b" ;;
		esac
	done
	if [ -z "$found" ]; then
		for s in /sys/class/nvme-subsystem/*; do
			[ -e "$s/$1" ] || continue
			for d in "$s"/nvme*n*; do
				b=${d##*/}
				[ -b "/dev/$b" ] && found="$found $b"
			done
		done
	fi
	[ -n "$found" ] || return 1
	echo $found
}

# vm_wait_http URL SECONDS - wait until URL answers 2xx.
vm_wait_http() {
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		wget -qO /dev/null "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# vm_mark TEXT - a line on the console the host can wait for (vm_wait_console).
vm_mark() {
	echo "VM-MARK: $*" >/dev/console
}

# vm_load_extra_modules - insmod, in order, the modules the host added with
# vm_add_modules (listed in /vm/extra-modules); says which ones failed.
vm_load_extra_modules() {
	[ -f /vm/extra-modules ] || return 0
	while read -r m; do
		insmod "$m" 2>/tmp/insmod.err || grep -q 'File exists' /tmp/insmod.err ||
			echo "insmod $m: $(cat /tmp/insmod.err)"
	done </vm/extra-modules
}
