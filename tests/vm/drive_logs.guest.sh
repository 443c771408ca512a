# Guest half of test_drive_logs.sh (issue 27), one boot. NVMOND-VM-0000 gets
# from the test shim what QEMU's controller lacks: log C0h with the OCP GUID, a
# Persistent Event Log (LPA bit 4), five power states with APST and HCTM;
# NVMOND-VM-0001 answers C0h with another vendor's GUID and is otherwise QEMU
# (one power state, Get Features 02h answered by QEMU itself, no APST, no HCTM,
# no event log). nvme-cli reads the same answers, for the host to compare.
#  1. QEMU's own answers, without the shim.
#  2. nvme-cli through the shim: ocp smart-add-log, persistent-event-log
#     (establish, read, release), id-ctrl, get-feature 02h/0Ch/10h, id-ns.
#  3. nvmond: C0h, 5 events (all before nvmond ran: late), power state 0.
#  4. nvme-cli leaves a reporting context established; the log grows to 17
#     events (one of each kind, one unknown, a second thermal excursion now),
#     and Media Errors move: nvmond reads only what is new.
#  5. power state 2, APST off, HCTM unset; then again after a restart: no
#     event twice.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
export NVMOND_SHIM_CONF=/tmp/nvme-shim.conf
export NVMOND_SHIM_CMD_LOG=$out/cmd.log
export NVMOND_SHIM_STATUS_LOG=$out/status.log
base=$VM_NVMOND_URL
: >"$NVMOND_SHIM_CONF"

fail() {
	echo "FAIL: $*"
	exit 1
}
get() { # get URL FILE
	wget -qO "$2" "$1" || fail "GET $1"
}
# The shim's configuration from standard input, replaced at once: a reader
# between a truncation and the write would see no configuration (QEMU's own
# answers: refusals the test counts as nvmond's).
setconf() {
	cat >"$NVMOND_SHIM_CONF.new" && mv "$NVMOND_SHIM_CONF.new" "$NVMOND_SHIM_CONF"
}
c0=$(vm_ctrl_by_serial NVMOND-VM-0000)
c1=$(vm_ctrl_by_serial NVMOND-VM-0001)
ns0=$(vm_ctrl_ns "$c0" | cut -d' ' -f1)
echo "controllers: $c0 $c1 ($ns0)"

# --- 1. QEMU's own answers ------------------------------------------------------
{
	nvme id-ctrl "/dev/$c1" | grep -E '^(lpa|npss|apsta|hctma|mntmt|mxtmt) '
	nvme id-ctrl "/dev/$c1" | grep -E '^ps +0'
	for f in 2 0xc 0x10; do
		echo "get-feature $f:"
		nvme get-feature "/dev/$c1" -f $f 2>&1
	done
	for l in 0xc0 0xd; do
		echo "get-log $l:"
		nvme get-log "/dev/$c1" --log-id=$l --log-len=512 2>&1 | head -3
	done
} >"$out/qemu.txt" 2>&1
: >"$out/status.log"

# --- 2. nvme-cli through the shim ---------------------------------------------
now=$(($(date +%s) * 1000))
t0=$((now - 3600 * 1000))
setconf <<CONF
NVMOND-VM-0000 ocp=ocp pel=5 pel_t0=$t0 npss=4 ps=0 apst=on hctm=343,353
NVMOND-VM-0001 ocp=other
CONF
cli() { # F=FILE cli ARGS...: nvme-cli with the shim; output into FILE, rc into FILE.rc
	LD_PRELOAD="$VM_SHIM" nvme "$@" >"$out/$F" 2>&1
	echo "rc=$?" >>"$out/$F.rc"
}
F=ocp0.json cli ocp smart-add-log "/dev/$c0" -o json
F=ocp1.txt cli ocp smart-add-log "/dev/$c1" -o json
F=idctrl0.json cli id-ctrl "/dev/$c0" -o json
F=idns0.json cli id-ns "/dev/$ns0" -o json
F=feat-2.txt cli get-feature "/dev/$c0" -f 2 -H
F=feat-c.txt cli get-feature "/dev/$c0" -f 0xc -H
F=feat-10.txt cli get-feature "/dev/$c0" -f 0x10 -H
F=pel-est.txt cli persistent-event-log "/dev/$c0" -a 1
F=pel1.json cli persistent-event-log "/dev/$c0" -a 0 -o json
F=pel-rel.txt cli persistent-event-log "/dev/$c0" -a 2
F=pel1.txt cli persistent-event-log "/dev/$c0" -a 1 -l 4096
F=pel-rel2.txt cli persistent-event-log "/dev/$c0" -a 2

# --- 3. nvmond ------------------------------------------------------------------
vm_nvmond_conf /tmp/n.conf 1s 'rescan_interval = 1s' 'log_level = debug' '[logs]' 'pel_interval = 1h'
echo "cli done" >"$out/cmd.mark"
: >"$out/cmd.log"
vm_nvmond_start /tmp/d.db "$out/daemon1.log" LD_PRELOAD="$VM_SHIM"
get "$base/api/v1/devices" "$out/devices.json"
id0=$(grep -o '"id":[0-9]*,"key":"[^"]*NVMOND-VM-0000' "$out/devices.json" | sed 's/"id":\([0-9]*\).*/\1/')
id1=$(grep -o '"id":[0-9]*,"key":"[^"]*NVMOND-VM-0001' "$out/devices.json" | sed 's/"id":\([0-9]*\).*/\1/')
[ -n "$id0" ] && [ -n "$id1" ] || fail "no ids"
echo "$id0 $id1" >"$out/ids"
has() { # has URL FILE PATTERN
	wget -qO "$out/$2" "$1" && grep -q "$3" "$out/$2"
}
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-1.json '"events_stored":5' || fail "5 events"
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-1.json '"physical_written_bytes"' || fail "C0h"
vm_until 30 0.2 has "$base/api/v1/devices/$id1" dev1-1.json '"present":false' || fail "C0h of 1"
vm_until 30 0.2 has "$base/api/v1/devices/$id1" dev1-1.json '"power":{' || fail "power of 1"
get "$base/api/v1/devices/$id0/events?source=pel" "$out/events1.json"
get "$base/metrics" "$out/metrics1.txt"
LD_PRELOAD="$VM_SHIM" nvmond --config /tmp/n.conf status >"$out/status1.txt" 2>&1

# --- 4. growth, with a context someone else left --------------------------------
F=pel-leave.txt cli persistent-event-log "/dev/$c0" -a 1
echo "grow" >>"$out/cmd.log"
t1=$(($(date +%s) * 1000))
setconf <<CONF
NVMOND-VM-0000 ocp=ocp pel=17 pel_t0=$t0 pel_t1=$t1 pel_split=16 npss=4 ps=0 apst=on hctm=343,353
NVMOND-VM-0000 media_errors=1
NVMOND-VM-0001 ocp=other
CONF
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-2.json '"events_stored":17' || fail "17 events"
get "$base/api/v1/devices/$id0/events?source=pel" "$out/events2.json"
get "$base/api/v1/devices/$id0/events?kind=thermal_excursion" "$out/events-thermal.json"
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-2.json '"verdict":"watch"' || true
F=pel-est2.txt cli persistent-event-log "/dev/$c0" -a 1
F=pel2.json cli persistent-event-log "/dev/$c0" -a 0 -o json
F=pel-rel3.txt cli persistent-event-log "/dev/$c0" -a 2
# Each event with the next one after it, for nvme-cli (a configuration of its
# own: nvmond's log stays as it is): nvme-cli 2.3 leaves out a log's last event
# and may fail on one kind, not on the others.
i=0
while [ $i -lt 16 ]; do
	echo "NVMOND-VM-0000 pel=$((i + 2)) pel_from=$i pel_t0=$t0 pel_t1=$t1 pel_split=16" >/tmp/one.conf
	(
		export NVMOND_SHIM_CONF=/tmp/one.conf NVMOND_SHIM_CMD_LOG=
		F=pel-one-$i.est cli persistent-event-log "/dev/$c0" -a 1
		F=pel-one-$i.json cli persistent-event-log "/dev/$c0" -a 0 -o json
		F=pel-one-$i.rel cli persistent-event-log "/dev/$c0" -a 2
	)
	i=$((i + 1))
done

# --- 5. power state 2, APST off, HCTM unset --------------------------------------
echo "power" >>"$out/cmd.log"
setconf <<CONF
NVMOND-VM-0000 ocp=ocp pel=17 pel_t0=$t0 pel_t1=$t1 pel_split=16 npss=4 ps=2 apst=off hctm=0,0
NVMOND-VM-0000 media_errors=1
NVMOND-VM-0001 ocp=other
CONF
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-3.json '"power":{"state":2' || fail "ps 2"
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-3.json '"enabled":false' || fail "apst off"
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-3.json '"tmt1_k":null' || fail "hctm off"
get "$base/api/v1/devices/$id0/power" "$out/power.json"
get "$base/api/v1/devices/$id0/ocp" "$out/ocp-hist.json"
get "$base/metrics" "$out/metrics2.txt"
F=feat-2b.txt cli get-feature "/dev/$c0" -f 2 -H
F=feat-cb.txt cli get-feature "/dev/$c0" -f 0xc -H
F=feat-10b.txt cli get-feature "/dev/$c0" -f 0x10 -H
vm_stop "$VM_NVMOND_PID" "$out/daemon1.rc"

echo "restart" >>"$out/cmd.log"
vm_nvmond_start /tmp/d.db "$out/daemon2.log" LD_PRELOAD="$VM_SHIM"
vm_until 30 0.2 has "$base/api/v1/devices/$id0" dev0-4.json '"power":{"state":2' || fail "after restart"
vm_until 30 0.2 grep -q "restart" "$out/cmd.log"
vm_until 10 0.2 sh -c "sed -n '/^restart/,\$p' '$out/cmd.log' | grep -q 'comm=nvmond.*lsp=2'" || true
get "$base/api/v1/devices/$id0" "$out/dev0-4.json"
get "$base/api/v1/devices/$id0/events?source=pel" "$out/events3.json"
vm_stop "$VM_NVMOND_PID" "$out/daemon2.rc"
echo "guest done"
