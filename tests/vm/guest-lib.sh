# Helpers for guest scripts (busybox sh); installed as /etc/vm/guest-lib.sh.
# (The newer ones keep their variables local; busybox sh has `local`.)
# Usage in a guest script: . /etc/vm/guest-lib.sh

# Where vm_nvmond_start's daemon listens, and where vm_setup_nvmond_shim (lib.sh)
# puts the test shim for LD_PRELOAD.
VM_NVMOND_URL=http://127.0.0.1:9470
VM_SHIM=/usr/lib/libnvmond-test-nvme.so

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

# vm_uptime_ms - the guest's uptime in milliseconds.
vm_uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# vm_until SECONDS STEP COMMAND... - run COMMAND every STEP seconds until it
# succeeds, SECONDS/STEP times at the most. Return: 1 when it never did.
vm_until() {
	local n t=$2 i=0
	n=$(awk -v s="$1" -v t="$2" 'BEGIN { printf "%d", s / t }')
	shift 2
	while [ $i -lt "$n" ]; do
		"$@" && return 0
		sleep "$t"
		i=$((i + 1))
	done
	return 1
}

# vm_metric BASE NAME - the value of the unlabelled series NAME in BASE/metrics.
vm_metric() {
	wget -qO- "$1/metrics" | sed -n "s/^$2 //p"
}

# vm_metric_ge BASE NAME VALUE - whether NAME in BASE/metrics is at least VALUE.
vm_metric_ge() {
	local v
	v=$(vm_metric "$1" "$2")
	[ -n "$v" ] && [ "$v" -ge "$3" ]
}

# vm_smart_field CTRL FIELD - a number from nvme-cli's smart-log of CTRL
# (e.g. critical_warning, num_err_log_entries), read without nvmond.
vm_smart_field() {
	nvme smart-log "/dev/$1" -o json | sed -n "s/.*\"$2\"[^0-9]*\([0-9]*\).*/\1/p"
}

# vm_hook_install LOG VAR... - an exec hook at /tmp/hook.sh that appends to LOG
# (emptied now) one line per notification: the uptime in ms, the value of each
# VAR (NVMOND_STATE, NVMOND_RULE, ...) and the JSON from stdin, separated by
# blanks. vm_wait_hook waits for a line in it.
vm_hook_install() {
	local v vars=
	VM_HOOK_LOG=$1
	shift
	for v in "$@"; do
		vars="$vars \"\$$v\""
	done
	cat >/tmp/hook.sh <<HOOK
#!/bin/sh
# uptime_ms $*, then the JSON from stdin
{ printf '%s ' "\$(awk '{ printf "%d", \$1 * 1000 }' /proc/uptime)"$vars; cat; echo; } >>$VM_HOOK_LOG
HOOK
	chmod +x /tmp/hook.sh
	: >"$VM_HOOK_LOG"
}

# vm_wait_hook PATTERN SECONDS - wait for a line matching PATTERN in the log of
# vm_hook_install's hook.
vm_wait_hook() {
	vm_until "$2" 0.1 grep -q "$1" "$VM_HOOK_LOG"
}

# vm_nvmond_conf FILE POLL_INTERVAL [LINE...] - an nvmond config: [daemon]
# with POLL_INTERVAL, no demo and the web root vm_setup_nvmond installs, then
# each LINE (more [daemon] keys, then other sections).
vm_nvmond_conf() {
	local f=$1 p=$2
	shift 2
	{
		printf '[daemon]\npoll_interval = %s\ndemo = no\nweb_root = /usr/share/nvmond/web\n' "$p"
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} >"$f"
}

# vm_nvmond_start DB LOG [VAR=VALUE...] - nvmond with /tmp/n.conf on
# 127.0.0.1:9470 in the background (its pid in VM_NVMOND_PID), its output in
# LOG, each VAR=VALUE in its environment; waits until /healthz answers, and
# ends the script (rc 1, with LOG) if it does not within 60 s.
vm_nvmond_start() {
	local db=$1 log=$2
	shift 2
	env "$@" nvmond --db "$db" --listen 127.0.0.1:9470 --config /tmp/n.conf >"$log" 2>&1 &
	VM_NVMOND_PID=$!
	vm_wait_http "$VM_NVMOND_URL/healthz" 60 && return 0
	echo "daemon did not start"
	cat "$log"
	exit 1
}

# vm_stop PID RCFILE - SIGTERM to PID, wait for it, its exit status into RCFILE.
vm_stop() {
	kill -TERM "$1"
	wait "$1"
	echo $? >"$2"
}

# vm_http ID METHOD PATH [BODY] - curl (copied in by the test) to $BASE PATH
# with "Authorization: Bearer $TOKEN" and BODY as JSON when given: the status
# in $out/ID.status, the body in $out/ID.body, and a line on stdout.
vm_http() {
	if [ -n "${4:-}" ]; then
		set -- "$1" "$2" "$3" -H 'Content-Type: application/json' --data "$4"
	fi
	local id=$1 m=$2 p=$3
	shift 3
	curl -s -o "$out/$id.body" -w '%{http_code}' -X "$m" -H "Authorization: Bearer $TOKEN" \
		"$@" "$BASE$p" >"$out/$id.status"
	echo "$id: $m $p -> $(cat "$out/$id.status") $(head -c 300 "$out/$id.body")"
}
