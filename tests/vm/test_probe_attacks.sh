#!/usr/bin/env bash
# Attacks on the probes' safety, in one QEMU boot: every target that is not
# the drive's own probe file or its own blank raw namespace must be refused,
# or left untouched, byte for byte. The guest (probe_attacks.guest.sh) swaps
# controller names by re-binding the driver under a running daemon, mounts,
# formats and partitions namespaces while probes run, swaps the probe file's
# name for a hard link at the moment nvmond opens it (the LD_PRELOAD shim
# swap_shim.c), bind-mounts, links and loops other drives' data into
# probe_dir, runs the daemon and `nvmond probe` on one drive at once, kills
# them mid-run, injects a write error (blkdebug) and fills a filesystem that
# has no fallocate. The checker below prints one ok/FAIL line per check and
# a table of each attack with the message nvmond gave.
# Env (from ctest): NVMOND_BIN, NVMOND_BUILD, NVMOND_TEST_SWAP_LIB. Exit 77 = skipped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

shim=${NVMOND_TEST_SWAP_LIB:-${NVMOND_BUILD:-}/tests/libnvmond-test-swap.so}
[ -f "$shim" ] || vm_skip "the LD_PRELOAD shim nvmond-test-swap is not built ($shim)"
chan=${NVMOND_TEST_CHAN:-${NVMOND_BUILD:-}/tests/nvmond-test-chan}
[ -x "$chan" ] || vm_skip "the channel attacker nvmond-test-chan is not built ($chan)"
# host_tool NAME - the path of a host program (sbin included), or skip.
host_tool() {
	local d
	for d in /usr/sbin /sbin /usr/bin /bin; do
		[ -x "$d/$1" ] && echo "$d/$1" && return 0
	done
	vm_skip "$1 not installed on the host (copied into the guest)"
}
# Host tools the guest uses: query the database, speak HTTP with a body on
# errors, and be the attacker's tools.
sqlite3=$(host_tool sqlite3)
curl=$(host_tool curl)
btrfs=$(host_tool mkfs.btrfs)
mke2fs=$(host_tool mke2fs)
e2fsck=$(host_tool e2fsck)
sfdisk=$(host_tool sfdisk)
dmsetup=$(host_tool dmsetup)
blkid=$(host_tool blkid)
fallocate=$(host_tool fallocate)

vm_setup_nvmond "$here/probe_attacks.guest.sh"
vm_add_file "$shim" /usr/lib/nvmond-test-swap.so || vm_fail "could not copy $shim"
vm_add_bin "$chan" /usr/bin/nvmond-test-chan || vm_fail "could not copy $chan"
vm_add_bin "$sqlite3" /usr/bin/sqlite3 && vm_add_bin "$curl" /usr/bin/curl &&
	vm_add_bin "$btrfs" /usr/sbin/mkfs.btrfs && vm_add_bin "$mke2fs" /usr/sbin/mkfs.ext4 &&
	vm_add_bin "$e2fsck" /usr/sbin/e2fsck && vm_add_bin "$sfdisk" /usr/sbin/sfdisk &&
	vm_add_bin "$dmsetup" /usr/sbin/dmsetup && vm_add_bin "$blkid" /usr/sbin/blkid &&
	vm_add_bin "$fallocate" /usr/sbin/fallocate || vm_fail "could not copy the guest's tools"
for m in ext4 btrfs dm-mod loop overlay; do
	vm_add_modules "$m" || vm_skip "no $m module for $VM_KVER"
done
# Writes that touch 4 MiB into controller 3's namespace fail with EIO.
cat >"$VM_RUN/blkdebug.cfg" <<'EOF'
[inject-error]
event = "write_aio"
errno = "5"
sector = "8192"
iotype = "write"
once = "off"
EOF

VM_NVME_COUNT=4 VM_NVME_SIZE=64M VM_NVME_NS_2=2 VM_NVME_SIZE_2=48M \
	VM_NVME_BLKDEBUG_3=$VM_RUN/blkdebug.cfg VM_GUEST_TIMEOUT=420 VM_TIMEOUT=480 vm_run
rc=$?
echo "----- guest script output -----"
cat "$VM_OUT/guest.log" 2>/dev/null
echo "-------------------------------"
case $rc in
123 | 124 | 125 | 126 | 127) vm_fail "the VM run failed (rc=$rc), see above" ;;
esac
[ $rc -eq 0 ] || vm_fail "the guest script exited $rc"

"$VM_PYTHON" "$here/probe_attacks.py" "$VM_OUT" || {
	for f in "$VM_OUT"/daemon*.log; do
		echo "----- $(basename "$f")"
		tail -n 40 "$f"
	done
	vm_fail "attack checks failed"
}
echo "VM run: ${VM_SECONDS}s"
