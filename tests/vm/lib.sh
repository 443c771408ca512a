# shellcheck shell=bash
# Host side of the QEMU test harness; source it from tests/vm/test_*.sh.
#
#   . "$(dirname "$0")/lib.sh"
#   vm_setup                       # checks (SKIP + exit 77), kernel, base initramfs
#   vm_add_bin "$NVMOND_BIN"       # + its ldd closure, into the overlay
#   vm_add_file SRC /guest/path    # any other file
#   vm_guest_script FILE           # becomes /vm/guest.sh
#   vm_run                         # boot, wait, collect; returns the guest's rc
#   ... "$VM_OUT"/*                # what the guest left in $VM_OUT
#
# Or vm_start; ... vm_qmp '{"execute":...}' ...; vm_wait  for tests that poke
# the running machine (fault injection). Everything generated lives in a
# mktemp dir (removed on exit unless VM_KEEP=1) and in the cache
# $NVMOND_BUILD/vm-cache (kernel ELF + base initramfs, keyed by kernel version
# and the harness files).
#
# Knobs (environment): VM_TIMEOUT (host, default 240 s), VM_GUEST_TIMEOUT
# (guest script, default 150 s), VM_NVME_COUNT (default 2), VM_NVME_OPTS_<n>
# (extra ",k=v" for controller n, e.g. ",smart_critical_warning=4"),
# VM_NVME_SIZE (image size, default 256M) and VM_NVME_SIZE_<n> (controller n's),
# VM_NVME_NS_<n> (namespaces of controller n, NSID 1..N, one image each;
# default 1), VM_NVME_BLKDEBUG_<n> (a QEMU blkdebug config file: controller
# n's images are reached through the blkdebug driver with it, for injected
# I/O errors), VM_NVME_DRIVE_OPTS_<n> (extra ",k=v" for controller n's -drive,
# e.g. QEMU's throttling.* limits), VM_QEMU_EXTRA (array of extra qemu arguments), VM_KEEP=1 (keep
# the run dir).

VM_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${VM_TIMEOUT:=240}"
: "${VM_GUEST_TIMEOUT:=150}"
: "${VM_NVME_COUNT:=2}"
: "${VM_NVME_SIZE:=256M}"
VM_PID=
VM_RUN=
# A guest command timeout on an emulated NVMe controller (see vm_run).
VM_HANG_RE='nvme nvme[0-9]+: I/O [0-9]+ (\(I/O Cmd\) )?QID [0-9]+ timeout'
VM_OUT=
VM_RC=

vm_log() { echo "vm: $*" >&2; }

vm_skip() {
	echo "SKIP: $*"
	exit 77
}

vm_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# vm_serial N - the serial number given to controller N (0-based).
vm_serial() {
	printf 'NVMOND-VM-%04d' "$1"
}

# --- environment checks ---------------------------------------------------

vm_find_kernel() {
	local k
	if [ -n "${VM_KVER:-}" ]; then
		VM_VMLINUZ=/boot/vmlinuz-$VM_KVER
	else
		k=$(printf '%s\n' /boot/vmlinuz-* | grep -v '\*' | sort -V | tail -n 1)
		[ -n "$k" ] || return 1
		VM_VMLINUZ=$k
		VM_KVER=${k#/boot/vmlinuz-}
	fi
	[ -r "$VM_VMLINUZ" ] || return 1
	[ -d "/lib/modules/$VM_KVER/kernel" ] || return 1
}

vm_check() {
	local t
	command -v qemu-system-x86_64 >/dev/null || vm_skip "qemu-system-x86_64 not installed"
	vm_find_kernel || vm_skip "no readable /boot/vmlinuz-* with /lib/modules/<version>"
	for t in cpio xz modprobe ldd flock; do
		command -v "$t" >/dev/null || vm_skip "$t not installed"
	done
	VM_BUSYBOX=$(command -v busybox || true)
	[ -n "$VM_BUSYBOX" ] || vm_skip "busybox(-static) not installed"
	if ldd "$VM_BUSYBOX" >/dev/null 2>&1; then
		vm_skip "$VM_BUSYBOX is not static (install busybox-static)"
	fi
	VM_NVME_CLI=$(command -v nvme || true)
	[ -n "$VM_NVME_CLI" ] || vm_skip "nvme-cli not installed"
	VM_PYTHON=$(command -v /usr/bin/python3 || command -v python3 || true)
	[ -n "$VM_PYTHON" ] || vm_skip "python3 not installed"
	modprobe -S "$VM_KVER" --show-depends nvme >/dev/null 2>&1 ||
		vm_skip "kernel $VM_KVER has no nvme module"
}

# --- cache: kernel ELF and base initramfs ---------------------------------

vm_cache_dir() {
	local b=${NVMOND_BUILD:-$VM_LIB_DIR/work}
	echo "$b/vm-cache/$VM_KVER"
}

# Uncompressed kernel: QEMU boots the ELF directly (PVH) and skips the slow
# in-guest decompression under TCG.
vm_extract_kernel() {
	local out=$1 off
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$VM_VMLINUZ" | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || return 1
	tail -c +$((off + 1)) "$VM_VMLINUZ" | xz -dc --single-stream >"$out.tmp" 2>/dev/null
	# xz complains about trailing data after the stream; check the result.
	[ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ] || return 1
	mv "$out.tmp" "$out"
}

# vm_root_path P - where host path P goes in the usrmerged guest root.
vm_root_path() {
	case "$1" in
	/usr/*) echo "$1" ;;
	/lib/* | /lib64/* | /bin/* | /sbin/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}

# vm_copy_closure ROOT FILE... - copy each file and its ldd closure.
vm_copy_closure() {
	local root=$1 f lib dst
	shift
	for f in "$@"; do
		if ldd "$f" 2>/dev/null | grep -q 'not found'; then
			vm_log "$f: $(ldd "$f" | grep 'not found' | tr -s '\t\n' '  ')"
			return 1
		fi
		for lib in $(ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p'); do
			dst=$root$(vm_root_path "$lib")
			[ -e "$dst" ] && continue
			mkdir -p "$(dirname "$dst")"
			cp -L "$lib" "$dst" || return 1
		done
	done
}

vm_modules() {
	local m
	for m in virtio_pci virtio_console crc64_rocksoft_generic crct10dif_pclmul crct10dif_generic nvme; do
		modprobe -S "$VM_KVER" --show-depends "$m" 2>/dev/null
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

vm_build_base() {
	local out=$1 root m dst uuid
	root=$(mktemp -d "${out}.root.XXXXXX") || return 1
	(
		set -e
		cd "$root"
		mkdir -p usr/bin usr/sbin usr/lib usr/lib64 proc sys dev tmp run root \
			etc/nvme etc/vm vm
		ln -s usr/bin bin
		ln -s usr/sbin sbin
		ln -s usr/lib lib
		ln -s usr/lib64 lib64
		cp "$VM_BUSYBOX" usr/bin/busybox
		for a in $("$VM_BUSYBOX" --list); do
			[ "$a" = busybox ] || [ -e "usr/bin/$a" ] || ln -s busybox "usr/bin/$a"
		done
		cp -L "$VM_NVME_CLI" usr/sbin/nvme
		vm_copy_closure "$root" "$VM_NVME_CLI"
		: >etc/vm/modules
		for m in $(vm_modules); do
			dst=$(vm_root_path "$m")
			mkdir -p ".$(dirname "$dst")"
			cp "$m" ".$dst"
			echo "$dst" >>etc/vm/modules
		done
		grep -q '/nvme\.ko' etc/vm/modules
		uuid=6e766d6f-6e64-4000-8000-000000000001
		echo "$uuid" >etc/nvme/hostid
		echo "nqn.2014-08.org.nvmexpress:uuid:$uuid" >etc/nvme/hostnqn
		echo 'root:x:0:0:root:/root:/bin/sh' >etc/passwd
		echo 'root:x:0:' >etc/group
		cp "$VM_LIB_DIR/guest-init.sh" init
		chmod 755 init
		cp "$VM_LIB_DIR/guest-lib.sh" etc/vm/guest-lib.sh
		find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet >"$out.tmp"
	)
	local rc=$?
	rm -rf "$root"
	[ $rc -eq 0 ] || return 1
	mv "$out.tmp" "$out"
}

# vm_prepare_cache - sets VM_KERNEL and VM_BASE_INITRD, building them once.
vm_prepare_cache() {
	local dir key
	dir=$(vm_cache_dir)
	mkdir -p "$dir" || return 1
	key=$(cat "$VM_LIB_DIR/lib.sh" "$VM_LIB_DIR/guest-init.sh" "$VM_LIB_DIR/guest-lib.sh" \
		"$VM_NVME_CLI" "$VM_BUSYBOX" | sha256sum | cut -c1-12)
	VM_KERNEL=$dir/vmlinux
	VM_BASE_INITRD=$dir/base-$key.cpio
	(
		flock 9
		if [ ! -s "$VM_KERNEL" ]; then
			vm_log "extracting kernel $VM_KVER"
			vm_extract_kernel "$VM_KERNEL" || exit 1
		fi
		if [ ! -s "$VM_BASE_INITRD" ]; then
			vm_log "building base initramfs ($key)"
			rm -f "$dir"/base-*.cpio
			vm_build_base "$VM_BASE_INITRD" || exit 1
		fi
	) 9>"$dir/.lock"
}

# --- per-run overlay ------------------------------------------------------

vm_cleanup() {
	if [ -n "$VM_PID" ] && kill -0 "$VM_PID" 2>/dev/null; then
		kill "$VM_PID" 2>/dev/null
		sleep 0.5
		kill -9 "$VM_PID" 2>/dev/null
	fi
	if [ -n "$VM_RUN" ] && [ -d "$VM_RUN" ]; then
		if [ "${VM_KEEP:-0}" = 1 ]; then
			vm_log "kept $VM_RUN"
		else
			rm -rf "$VM_RUN"
		fi
	fi
}

# vm_setup - check the host, prepare the cache and a fresh run directory.
vm_setup() {
	local base fs
	vm_check
	vm_prepare_cache || vm_fail "could not prepare kernel/initramfs cache in $(vm_cache_dir)"
	# Disk images on a real file system, not tmpfs.
	base=${TMPDIR:-/tmp}
	fs=$(stat -f -c %T "$base" 2>/dev/null)
	if [ "$fs" = tmpfs ] || [ "$fs" = ramfs ]; then
		base=$(dirname "$(vm_cache_dir)")
	fi
	VM_RUN=$(mktemp -d "$base/nvmond-vm.XXXXXX") || vm_fail "mktemp"
	trap vm_cleanup EXIT
	trap 'exit 130' INT TERM
	VM_OVERLAY=$VM_RUN/overlay
	VM_OUT=$VM_RUN/out
	mkdir -p "$VM_OVERLAY/vm" "$VM_OUT"
}

# vm_add_file SRC DST - put host file SRC at DST in the guest.
vm_add_file() {
	local dst
	dst=$VM_OVERLAY$(vm_root_path "$2")
	mkdir -p "$(dirname "$dst")" && cp -L "$1" "$dst"
}

# vm_add_bin BIN [DST] - a binary plus its ldd closure (default /usr/bin/NAME).
vm_add_bin() {
	local dst=${2:-/usr/bin/$(basename "$1")}
	vm_add_file "$1" "$dst" && chmod 755 "$VM_OVERLAY$(vm_root_path "$dst")" &&
		vm_copy_closure "$VM_OVERLAY" "$1"
}

# vm_add_modules MODULE - MODULE and the modules it needs, from the kernel under
# test, into the guest, listed in load order in /vm/extra-modules (the guest
# script loads them with vm_load_extra_modules). Return: 1 when there is none.
vm_add_modules() {
	local m n=0
	for m in $(modprobe -S "$VM_KVER" --show-depends "$1" 2>/dev/null | awk '$1 == "insmod" {print $2}'); do
		vm_add_file "$m" "$m" || vm_fail "copy $m"
		echo "$m" >>"$VM_OVERLAY/vm/extra-modules"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# vm_guest_script FILE - the script init runs (as /vm/guest.sh).
vm_guest_script() {
	vm_add_file "$1" /vm/guest.sh
}

# vm_nvme_ns N - the number of namespaces of controller N (VM_NVME_NS_<N>, 1).
vm_nvme_ns() {
	local v=VM_NVME_NS_$1
	echo "${!v:-1}"
}

vm_build_initrd() {
	local n total=0
	for ((n = 0; n < VM_NVME_COUNT; n++)); do
		total=$((total + $(vm_nvme_ns "$n")))
	done
	{
		echo "VM_GUEST_TIMEOUT=$VM_GUEST_TIMEOUT"
		echo "VM_NVME_COUNT=$VM_NVME_COUNT"
		echo "VM_NVME_NS_TOTAL=$total"
	} >"$VM_OVERLAY/vm/env"
	# The kernel unpacks concatenated newc archives in order, later files
	# replacing earlier ones; cpio pads each archive to 512 bytes.
	cp "$VM_BASE_INITRD" "$VM_RUN/initrd.cpio" &&
		(cd "$VM_OVERLAY" && find . -mindepth 1 | LC_ALL=C sort |
			cpio -o -H newc -R 0:0 --quiet) >>"$VM_RUN/initrd.cpio"
}

vm_accel() {
	if { [ -e /sys/module/kvm_intel ] || [ -e /sys/module/kvm_amd ]; } && [ -w /dev/kvm ]; then
		echo "-accel kvm -cpu host"
	else
		# /dev/kvm may be a software-only hypervisor (kvm_pvm) that a stock
		# kernel does not boot under; TCG always works.
		echo "-accel tcg -cpu max"
	fi
}

# vm_setup_nvmond GUEST_SCRIPT - vm_setup, plus the nvmond binary under test at
# /usr/bin/nvmond, a web_root at /usr/share/nvmond/web (the guest configs name
# it; the page itself is not under test in the guest) and the guest script.
vm_setup_nvmond() {
	[ -n "${NVMOND_BIN:-}" ] && [ -x "$NVMOND_BIN" ] || vm_skip "NVMOND_BIN not set or not executable"
	vm_setup
	vm_add_bin "$NVMOND_BIN" /usr/bin/nvmond || vm_fail "could not copy $NVMOND_BIN and its libraries"
	mkdir -p "$VM_OVERLAY/usr/share/nvmond/web"
	echo '<!doctype html><title>nvmond</title>' >"$VM_OVERLAY/usr/share/nvmond/web/index.html"
	vm_guest_script "$1"
}

# vm_setup_nvmond_shim GUEST_SCRIPT - vm_setup_nvmond, plus the test shim
# (NVMOND_TEST_NVME_LIB; SKIP without it) at /usr/lib/libnvmond-test-nvme.so
# for the guest script to LD_PRELOAD.
vm_setup_nvmond_shim() {
	[ -r "${NVMOND_TEST_NVME_LIB:-}" ] || vm_skip "NVMOND_TEST_NVME_LIB not set"
	vm_setup_nvmond "$1"
	vm_add_bin "$NVMOND_TEST_NVME_LIB" /usr/lib/libnvmond-test-nvme.so || vm_fail "copy the shim"
}

# vm_pin - the command prefix that keeps QEMU on one host CPU. QEMU 7.2's
# emulated NVMe controller loses a doorbell now and then when the guest submits
# one command at a time with shadow doorbells on (as fio and nvmond do at queue
# depth 32): its trace shows the guest's last doorbell and every command before
# it completed, and the guest's next commands never seen, so they time out
# ("I/O N QID 1 timeout") and a controller reset does not bring them back. It
# is a race between the vCPU thread, which writes the shadow tail and reads
# the EventIdx, and the device's thread, which writes the EventIdx, and it only
# shows when the two run on different host CPUs. Measured here (fio randwrite
# + randread, 4 KiB, QD32, 3 s each, on nvme0n1): unpinned, hung in the first
# of 10 loops; pinned, 10 of 10 passed (nvmond's engine: 20 of 20).
# Two VM tests may run at once (ctest -j2 in tests/run-all): each takes a host
# CPU of its own through vm_cpu, so each QEMU still runs on one CPU only.
vm_pin() {
	command -v taskset >/dev/null || return 0
	[ -n "${VM_CPU:-}" ] || return 0
	echo "taskset -c $VM_CPU"
}

# vm_cpu - choose this test's host CPU (VM_CPU) and hold it for the test's life:
# an flock on a file per CPU (fd VM_CPU_FD, inherited by QEMU, so a QEMU left
# behind still holds it). The first free CPU of the test's affinity; with every
# one taken, wait for the first. Runs in the test's shell, not a subshell.
vm_cpu() {
	local cpus c lock=${TMPDIR:-/tmp}/nvmond-vm-cpu
	[ -n "${VM_CPU:-}" ] && return 0
	command -v taskset >/dev/null || return 0
	cpus=$("$VM_PYTHON" -c 'import os; print(*sorted(os.sched_getaffinity(0)))' 2>/dev/null) ||
		return 0
	for c in $cpus; do
		exec {VM_CPU_FD}>>"$lock$c.lock" || continue
		if flock -n "$VM_CPU_FD"; then
			VM_CPU=$c
			return 0
		fi
		exec {VM_CPU_FD}>&-
	done
	c=${cpus%% *}
	exec {VM_CPU_FD}>>"$lock$c.lock" && flock "$VM_CPU_FD" && VM_CPU=$c
}

# vm_nvme_drive N IMAGE ID - a sparse image (VM_NVME_SIZE_<N> or VM_NVME_SIZE)
# and the -drive option string for it: raw, through blkdebug when
# VM_NVME_BLKDEBUG_<N> names a config file.
vm_nvme_drive() {
	local szv=VM_NVME_SIZE_$1 dbg=VM_NVME_BLKDEBUG_$1 dopts=VM_NVME_DRIVE_OPTS_$1
	truncate -s "${!szv:-$VM_NVME_SIZE}" "$2" || vm_fail "truncate $2"
	if [ -n "${!dbg:-}" ]; then
		[ -r "${!dbg}" ] || vm_fail "VM_NVME_BLKDEBUG_$1: no file ${!dbg}"
		echo "if=none,id=$3,format=raw,file.driver=blkdebug,file.config=${!dbg},file.image.filename=$2${!dopts:-}"
	else
		echo "file=$2,if=none,id=$3,format=raw${!dopts:-}"
	fi
}

# vm_start - boot in the background (VM_PID); QMP is at $VM_RUN/qmp.sock.
vm_start() {
	local n k nns opts accel args=()
	read -ra accel <<<"$(vm_accel)"
	vm_build_initrd || vm_fail "could not build the initramfs"
	args+=(-machine q35 "${accel[@]}" -m 512 -smp 1 -nodefaults -nographic -no-reboot
		-kernel "$VM_KERNEL" -initrd "$VM_RUN/initrd.cpio"
		-append "console=ttyS0 rdinit=/init panic=-1 cryptomgr.notests=1 loglevel=5 nvme_core.multipath=Y"
		-serial "file:$VM_RUN/console.log" -monitor none
		-qmp "unix:$VM_RUN/qmp.sock,server=on,wait=off")
	for ((n = 0; n < VM_NVME_COUNT; n++)); do
		opts=VM_NVME_OPTS_$n
		args+=(-device "pcie-root-port,id=rp$n,bus=pcie.0,chassis=$((n + 1)),slot=$((n + 1))")
		nns=$(vm_nvme_ns "$n")
		if [ "$nns" -eq 1 ]; then
			args+=(-drive "$(vm_nvme_drive "$n" "$VM_RUN/nvme$n.img" "nvm$n")"
				-device "nvme,id=nvme$n,serial=$(vm_serial "$n"),drive=nvm$n,bus=rp$n${!opts:-}")
		else
			# The controller alone, and one nvme-ns device per namespace.
			args+=(-device "nvme,id=nvme$n,serial=$(vm_serial "$n"),bus=rp$n${!opts:-}")
			for ((k = 1; k <= nns; k++)); do
				args+=(-drive "$(vm_nvme_drive "$n" "$VM_RUN/nvme${n}n$k.img" "nvm${n}n$k")"
					-device "nvme-ns,id=nvme${n}ns$k,drive=nvm${n}n$k,nsid=$k,bus=nvme$n")
			done
		fi
	done
	: >"$VM_RUN/results.tar"
	: >"$VM_RUN/status"
	# shellcheck disable=SC2054 # commas belong to qemu's option syntax
	args+=(-device virtio-serial-pci,id=vser
		-chardev "file,id=results,path=$VM_RUN/results.tar"
		-device virtserialport,bus=vser.0,chardev=results,name=nvmond.results
		-chardev "file,id=status,path=$VM_RUN/status"
		-device virtserialport,bus=vser.0,chardev=status,name=nvmond.status)
	if [ -n "${VM_QEMU_EXTRA+x}" ]; then
		args+=("${VM_QEMU_EXTRA[@]}")
	fi
	printf '%q ' qemu-system-x86_64 "${args[@]}" >"$VM_RUN/qemu.cmd"
	VM_T0=$(date +%s.%N)
	# One host CPU for all of QEMU's threads, this test's own: see vm_pin.
	vm_cpu
	$(vm_pin) qemu-system-x86_64 "${args[@]}" </dev/null >"$VM_RUN/qemu.log" 2>&1 &
	VM_PID=$!
}

vm_console_tail() {
	echo "----- guest console (last ${1:-60} lines) -----" >&2
	tail -n "${1:-60}" "$VM_RUN/console.log" >&2 2>/dev/null
	if [ -s "$VM_RUN/qemu.log" ]; then
		echo "----- qemu stderr -----" >&2
		cat "$VM_RUN/qemu.log" >&2
	fi
	echo "-----------------------------------------------" >&2
}

# vm_kill RC LINES WHY - stop the VM now, say why, show the console's last LINES.
vm_kill() {
	vm_log "$3, killing the VM"
	kill "$VM_PID" 2>/dev/null
	sleep 1
	kill -9 "$VM_PID" 2>/dev/null
	wait "$VM_PID" 2>/dev/null
	VM_PID=
	VM_RC=$1
	vm_console_tail "$2"
}

# vm_wait - wait for the guest to power off (at most VM_TIMEOUT s since
# vm_start), unpack its results into $VM_OUT. Sets and returns VM_RC (the guest
# script's exit status; 123 controller hung, 124 host timeout, 125/126 init failures, 127 no status).
vm_wait() {
	local deadline status
	deadline=$(($(date +%s) + VM_TIMEOUT))
	while kill -0 "$VM_PID" 2>/dev/null; do
		if grep -qE "$VM_HANG_RE" "$VM_RUN/console.log" 2>/dev/null; then
			vm_kill 123 30 "the emulated NVMe controller stopped completing I/O (guest: command timeout)"
			return $VM_RC
		fi
		if [ "$(date +%s)" -ge "$deadline" ]; then
			vm_kill 124 60 "timeout: the VM ran longer than ${VM_TIMEOUT}s"
			return $VM_RC
		fi
		sleep 0.2
	done
	wait "$VM_PID" 2>/dev/null
	VM_PID=
	VM_SECONDS=$(awk -v a="$VM_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ -s "$VM_RUN/results.tar" ]; then
		tar -xf "$VM_RUN/results.tar" -C "$VM_OUT" 2>/dev/null ||
			vm_log "results tar stream incomplete"
	fi
	status=$(head -n 1 "$VM_RUN/status" 2>/dev/null)
	if [ -z "$status" ]; then
		vm_log "the guest wrote no exit status"
		VM_RC=127
	else
		VM_RC=${status%% *}
		vm_log "guest: ${status#* } (rc=$VM_RC) after ${VM_SECONDS}s"
	fi
	[ "$VM_RC" -eq 0 ] 2>/dev/null || vm_console_tail 60
	return "$VM_RC"
}

# vm_run - vm_start + vm_wait. Should the emulated controller still stop
# completing I/O (see vm_pin; the guest logs "I/O N QID 1 timeout" and resets
# it to no avail), vm_wait stops the VM at the first timeout (rc 123) and
# vm_run boots it once more from clean images, saying so. Any other failure is
# reported as it is.
vm_run() {
	local try
	for try in 1 2; do
		vm_start
		vm_wait && return 0
		[ "$VM_RC" -eq 123 ] && [ "$try" -eq 1 ] || return "$VM_RC"
		vm_log "retrying the whole VM run once on fresh disk images"
		mv "$VM_RUN/console.log" "$VM_RUN/console.hung.log" 2>/dev/null
		rm -rf "$VM_OUT" "$VM_RUN"/nvme*.img
		mkdir -p "$VM_OUT"
	done
}

# vm_qmp JSON - send one QMP command to the running VM, print the reply line.
# Return: 0 on {"return":…}, 1 on {"error":…} or no connection.
vm_qmp() {
	"$VM_PYTHON" - "$VM_RUN/qmp.sock" "$1" <<'EOF'
import json, socket, sys, time

path, cmd = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
for _ in range(50):
    try:
        s.connect(path)
        break
    except OSError:
        time.sleep(0.1)
else:
    print("vm_qmp: cannot connect to " + path, file=sys.stderr)
    sys.exit(1)
f = s.makefile("rw")


def reply():
    while True:
        line = f.readline()
        if not line:
            print("vm_qmp: connection closed", file=sys.stderr)
            sys.exit(1)
        msg = json.loads(line)
        if "return" in msg or "error" in msg:
            return msg


json.loads(f.readline())  # greeting
f.write('{"execute": "qmp_capabilities"}\n')
f.flush()
reply()
f.write(json.dumps(json.loads(cmd)) + "\n")
f.flush()
msg = reply()
print(json.dumps(msg))
sys.exit(0 if "return" in msg else 1)
EOF
}

# vm_wait_console PATTERN SECONDS - wait for a line matching PATTERN (grep -E)
# on the guest console, e.g. one printed by vm_mark in the guest.
vm_wait_console() {
	local i=0
	while [ $i -lt $(($2 * 10)) ]; do
		grep -qE "$1" "$VM_RUN/console.log" 2>/dev/null && return 0
		kill -0 "$VM_PID" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# vm_wait_mark MARK SECONDS WHY - wait for the guest's vm_mark MARK; if it
# does not come, the console's tail and FAIL with WHY.
vm_wait_mark() {
	vm_wait_console "VM-MARK: $1" "$2" && return 0
	vm_console_tail
	vm_fail "$3"
}

# vm_qom_crit_warning DEVICE VALUE - set the emulated controller DEVICE's
# (nvme0, ...) smart_critical_warning to VALUE through QMP; FAIL if refused.
vm_qom_crit_warning() {
	vm_qmp '{"execute":"qom-set","arguments":{"path":"/machine/peripheral/'"$1"'",
		"property":"smart_critical_warning","value":'"$2"'}}' >/dev/null ||
		vm_fail "qom-set $1 smart_critical_warning=$2 refused"
}

# vm_guest_ok [FILE...] - after vm_run or vm_wait: nothing when the guest
# script exited 0; else the console's last 80 lines and each FILE that exists
# (guest.log, daemon logs, ...), and FAIL.
vm_guest_ok() {
	[ "$VM_RC" = 0 ] && return 0
	vm_console_tail 80
	cat "$@" 2>/dev/null
	vm_fail "guest script exited $VM_RC"
}

# vm_judge - run the Python checks on stdin (a heredoc) against $VM_OUT, after
# a preamble that gives them json, os, re and sys; out ($VM_OUT); rd(NAME), a
# file's text; js(NAME), its JSON; check(OK, MSG), which prints "ok" or "FAIL"
# and keeps each failure in bad. The checks end with
# sys.exit(1 if bad else 0); vm_judge returns their exit status.
vm_judge() {
	{
		cat <<'PY'
import json, os, re, sys
out = sys.argv[1]
rd = lambda n: open(os.path.join(out, n)).read()
js = lambda n: json.loads(rd(n))
bad = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        bad.append(msg)
PY
		cat
	} | python3 - "$VM_OUT"
}
