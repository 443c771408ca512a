#!/usr/bin/env bash
# nvmond and nvme-cli must agree on two emulated NVMe controllers in a QEMU
# guest, and the daemon's served samples must show exactly the 64 MiB written
# to one of them (+132 data units of 512,000 bytes) and nothing on the other.
# Env (from ctest): NVMOND_BIN, NVMOND_SRC, NVMOND_BUILD. Exit 77 = skipped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_setup_nvmond "$here/smart_agrees.guest.sh"

vm_run
rc=$?
echo "----- guest script output -----"
cat "$VM_OUT/guest.log" 2>/dev/null
echo "-------------------------------"
if [ -s "$VM_OUT/daemon.log" ]; then
	echo "----- nvmond daemon log (last 30 lines) -----"
	tail -n 30 "$VM_OUT/daemon.log"
	echo "---------------------------------------------"
fi
case $rc in
123 | 124 | 125 | 126 | 127) vm_fail "the VM run failed (rc=$rc), see above" ;;
esac

# 64 MiB in data units of 1000 * 512 bytes, rounded up.
units=$(((64 * 1024 * 1024 + 511999) / 512000))
"$VM_PYTHON" "$here/smart_agrees.py" "$VM_OUT" "$units"
cmp=$?
[ $rc -eq 0 ] || echo "FAIL: the guest script exited $rc"
[ $rc -eq 0 ] && [ $cmp -eq 0 ]
