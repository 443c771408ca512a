#!/usr/bin/env bash
# Issue 27 in one boot (drive_logs.guest.sh): log C0h, the Persistent Event
# Log, power states, APST and HCTM as the test shim answers them for what QEMU
# 7.2's controller lacks (built byte by byte from the specifications), and
# QEMU's own Get Features 02h; nvmond against nvme-cli on the same answers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_setup_nvmond_shim "$here/drive_logs.guest.sh"
vm_run || true
vm_guest_ok "$VM_OUT/guest.log" "$VM_OUT"/daemon*.log

vm_judge <"$here/drive_logs.py" || { cat "$VM_OUT"/daemon*.log; vm_fail "drive log checks"; }
echo "PASS: test_drive_logs"
