# Guest half of qemu_facts.sh (busybox sh): what QEMU's emulated controller
# shows, then the same commands with and without nvmond-test-nvme preloaded.
# Everything goes to stdout (guest.log) and to files in $VM_OUT.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
shim=/usr/lib/libnvmond-test-nvme.so
export NVMOND_SHIM_CONF=/tmp/nvme-shim.conf
c0=$(vm_ctrl_by_serial NVMOND-VM-0000)
c1=$(vm_ctrl_by_serial NVMOND-VM-0001)
ns0=$(vm_ctrl_ns "$c0" | cut -d' ' -f1)
echo "controllers: $c0 (NVMOND-VM-0000, $ns0) $c1 (NVMOND-VM-0001)"

run() {
	echo "\$ $*"
	"$@" 2>&1
	echo "[rc=$?]"
}
shimrun() {
	echo "\$ LD_PRELOAD=… $*"
	LD_PRELOAD=$shim "$@" 2>&1
	echo "[rc=$?]"
}

echo "=== identify controller ==="
nvme id-ctrl "/dev/$c0" -o json >"$out/idctrl.json"
nvme id-ctrl "/dev/$c0" | grep -E '^(oacs|elpe|lpa|frmw|edstt|dsto|wctemp|cctemp|npss|apsta|hctma|mntmt|mxtmt|sanicap|fr|ver|ctratt|oaes) '

echo "=== error log, SMART num_err_log_entries, before anything ==="
run nvme smart-log "/dev/$c0"
run nvme error-log "/dev/$c0"

echo "=== provoke errors: unsupported log page C0h, unsupported opcode C1h, Get Features 7Fh ==="
run nvme get-log "/dev/$c0" --log-id=0xc0 --log-len=512
run nvme admin-passthru "/dev/$c0" --opcode=0xc1
run nvme get-feature "/dev/$c0" -f 0x7f
run nvme device-self-test "/dev/$c0" -s 1
run nvme self-test-log "/dev/$c0"
echo "--- after:"
nvme smart-log "/dev/$c0" | grep -i err
run nvme error-log "/dev/$c0"

echo "=== firmware slot log (03h) ==="
run nvme fw-log "/dev/$c0"

echo "=== Get Features 04h: THSEL 0 over / 1 under, TMPSEL 0 composite, 1-8 sensors ==="
for thsel in 0 1; do
	for tmpsel in 0 1 2 3 8 9 15; do
		printf 'thsel=%s tmpsel=%s: ' $thsel $tmpsel
		nvme get-feature "/dev/$c0" -f 4 --cdw11=$(((thsel << 20) | (tmpsel << 16))) 2>&1 | tr '\n' ' '
		echo
	done
done

echo "=== runtime PM ==="
d=/sys/class/nvme/$c0/device
for f in "$d"/power/*; do
	printf '%s: %s\n' "${f#"$d"/}" "$(cat "$f" 2>&1)"
done

echo "=== PCIe link files of the controller and its root port ==="
for f in current_link_speed current_link_width max_link_speed max_link_width; do
	printf '%s: %s | port: %s\n' "$f" "$(cat "$d/$f" 2>&1)" "$(cat "$d/../$f" 2>&1)"
done
readlink -f "$d"
ls "$d" | tr '\n' ' '
echo

echo "=== hwmon ==="
for h in /sys/class/nvme/"$c0"/hwmon*; do
	echo "$h (name $(cat "$h/name"))"
	for f in "$h"/temp*; do
		printf '  %s: %s\n' "${f##*/}" "$(cat "$f" 2>&1)"
	done
done

echo "=== with the shim ==="
cat >"$NVMOND_SHIM_CONF" <<CONF
# composite cool, sensor 2 stuck hot (the Crucial case), a benign and a media error
NVMOND-VM-0000 composite=307 sensor1=309 sensor2=355 poh=12345
NVMOND-VM-0000 error=1,0,1,0x09,0,0 error=2,1,2,0x81,4096,1
NVMOND-VM-0001 selftest=yes selftest_short_s=4 selftest_extended_s=90 selftest_result=7,2,123456
CONF
echo "--- smart-log $c0 without / with"
nvme smart-log "/dev/$c0" -o json >"$out/smart.plain.json"
LD_PRELOAD=$shim nvme smart-log "/dev/$c0" -o json >"$out/smart.shim.json"
run nvme smart-log "/dev/$c0"
shimrun nvme smart-log "/dev/$c0"
echo "--- through the namespace $ns0 (serial via /sys/dev/block/…/device/serial)"
LD_PRELOAD=$shim nvme smart-log "/dev/$ns0" | grep -iE 'temperature|power_on|num_err'
echo "--- the other controller is untouched"
LD_PRELOAD=$shim nvme smart-log "/dev/$c1" | grep -iE 'temperature|num_err'
echo "--- error-log $c0 with"
shimrun nvme error-log "/dev/$c0"
echo "--- the hwmon file still shows the controller's own value"
cat /sys/class/nvme/"$c0"/hwmon*/temp1_input
echo "--- the conf changes under a running reader: composite 330"
sed -i 's/composite=307/composite=330/' "$NVMOND_SHIM_CONF"
LD_PRELOAD=$shim nvme smart-log "/dev/$c0" | grep -i '^temperature'

echo "--- self-test on $c1: without / with"
nvme id-ctrl "/dev/$c1" | grep -E '^(oacs|edstt) '
LD_PRELOAD=$shim nvme id-ctrl "/dev/$c1" | grep -E '^(oacs|edstt) '
run nvme device-self-test "/dev/$c1" -s 1
shimrun nvme device-self-test "/dev/$c1" -s 1
sleep 1
shimrun nvme self-test-log "/dev/$c1"
shimrun nvme device-self-test "/dev/$c1" -s 2
sleep 4
shimrun nvme self-test-log "/dev/$c1"
shimrun nvme device-self-test "/dev/$c1" -s 2
sleep 1
shimrun nvme device-self-test "/dev/$c1" -s 0xf
shimrun nvme self-test-log "/dev/$c1"
cat "$NVMOND_SHIM_CONF.state"

echo "--- the controller's own counts after all that (no shim)"
nvme smart-log "/dev/$c0" | grep -i err
nvme smart-log "/dev/$c1" | grep -i err

if command -v nvmond >/dev/null; then
	echo "--- nvmond status with the shim"
	printf '[daemon]\ndemo = no\nweb_root = /tmp\n' >/tmp/n.conf
	LD_PRELOAD=$shim nvmond --config /tmp/n.conf status 2>&1 | head -30
fi
exit 0
