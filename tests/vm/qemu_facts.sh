#!/usr/bin/env bash
# Not a test: boots the lab VM once and prints what QEMU's emulated NVMe
# controller shows (identify fields, error log, firmware slot log, Get Features
# 04h, runtime PM, PCIe link and hwmon files), then the same nvme-cli commands
# with nvmond-test-nvme preloaded. The facts in README.md come from it.
#   NVMOND_TEST_NVME_LIB=build/tests/libnvmond-test-nvme.so [NVMOND_BIN=build/nvmond] \
#   NVMOND_BUILD=build bash tests/vm/qemu_facts.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ -r "${NVMOND_TEST_NVME_LIB:-}" ] || vm_skip "NVMOND_TEST_NVME_LIB not set"
vm_setup
vm_add_bin "$NVMOND_TEST_NVME_LIB" /usr/lib/libnvmond-test-nvme.so || vm_fail "copy the shim"
if [ -x "${NVMOND_BIN:-}" ]; then
	vm_add_bin "$NVMOND_BIN" /usr/bin/nvmond || vm_fail "copy nvmond"
fi
vm_guest_script "$here/qemu_facts.guest.sh"
vm_run
rc=$?
cat "$VM_OUT/guest.log" 2>/dev/null
exit $rc
