# Guest half of test_probe_attacks.sh (busybox sh, run by the VM's /init).
#
# Four controllers (lib.sh knobs set by the host):
#   X  NVMOND-VM-0000  64 MiB  the drive probes may write (destructive = yes)
#   Y  NVMOND-VM-0001  64 MiB  the victim of the renumbering; later a probe file
#   M  NVMOND-VM-0002  NSID 1 and 2, 48 MiB each
#   E  NVMOND-VM-0003  64 MiB behind QEMU's blkdebug: writes at 4 MiB fail (EIO)
# Controllers are always found by serial: attack 1 swaps the names of X and Y.
#
# Each attack leaves in $VM_OUT: ID.rc, ID.json (nvmond probe --json) and
# ID.err (stderr), or ID.status + ID.body for HTTP; facts.txt collects
# "KEY VALUE" lines (md5 sums, SMART data_units_written, states); runs-*.json
# are probe_runs rows from the database. The host's checker judges them.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
DB=/tmp/nvmond.db
TOKEN=attack-token
BASE=http://127.0.0.1:9470
SX=NVMOND-VM-0000
SY=NVMOND-VM-0001
SM=NVMOND-VM-0002
SE=NVMOND-VM-0003
LOCKS=/run/nvmond
export DM_DISABLE_UDEV=1 # no udev here: libdevmapper makes the nodes itself

vm_load_extra_modules
mkdir -p /mnt/y /mnt/x /mnt/ns /mnt/btr /mnt/try /mnt/m12 /mnt/ov /mnt/lp /mnt/dm /mnt/p1

# --- helpers -------------------------------------------------------------

now() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[$(now)] $*"; }
fact() { echo "$*" >>"$out/facts.txt"; }
# attack ID TITLE: a heading in the log, and the title for the checker.
attack() {
	log "===== $1: $2"
	fact "$1.title $2"
}

# ns SERIAL [NSID] - the namespace block device of that drive, by serial.
ns() {
	local c b
	c=$(vm_ctrl_by_serial "$1") || return 1
	for b in $(vm_ctrl_ns "$c"); do
		if [ "$(cat "/sys/block/$b/nsid" 2>/dev/null)" = "${2:-1}" ]; then
			echo "$b"
			return 0
		fi
	done
	return 1
}
# until_ok SECONDS CMD... - CMD every 0.1 s until it succeeds; 1 after SECONDS.
until_ok() {
	local left=$(($1 * 10))
	shift
	while [ "$left" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		left=$((left - 1))
	done
	return 1
}
has_ns() { ns "$@" >/dev/null; }
# duw SERIAL - the drive's SMART data_units_written (units of 512,000 bytes).
duw() {
	sync
	nvme smart-log "/dev/$(vm_ctrl_by_serial "$1")" -o json 2>/dev/null | tr -d ' \n' |
		sed -n 's/.*"data_units_written":"\{0,1\}\([0-9]*\).*/\1/p'
}
# duws KEY - facts KEY.SERIAL for every drive.
duws() {
	local s
	for s in $SX $SY $SM $SE; do
		fact "$1.$s $(duw $s)"
	done
}
# md5 PATH - of the data now on the medium (clean cached pages dropped first).
md5() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	md5sum "$1" 2>/dev/null | cut -d' ' -f1
}
# stat_field DEV N - field N of /sys/class/block/DEV/stat (3 sectors read, 7 written).
stat_field() {
	awk -v n="$2" '{ print $n }' "/sys/class/block/$1/stat"
}
# grown DEV FIELD BASE BYTES - that counter passed BASE by BYTES.
grown() {
	[ "$(stat_field "$1" "$2")" -gt $(($3 + $4 / 512)) ]
}
alive() { kill -0 "$1" 2>/dev/null; }
# grown_or_gone PID DEV FIELD BASE BYTES - grown, or process PID ended (no use waiting).
grown_or_gone() {
	local pid=$1
	shift
	grown "$@" || ! alive "$pid"
}
# conf FILE LINES... - a configuration file (web_root: the guest has no source tree).
conf() {
	local f=$1 l
	shift
	{
		printf '[daemon]\ndemo = no\nweb_root = /usr/share/nvmond/web\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$f"
}
# probe ID CONF DEVICE PRESET [DB] - nvmond probe --json into ID.json/.err/.rc.
probe() {
	local rc
	nvmond -c "$2" --db "${5:-$DB}" probe --device "$3" --preset "$4" --json \
		>"$out/$1.json" 2>"$out/$1.err"
	rc=$?
	echo $rc >"$out/$1.rc"
	log "$1: rc $rc $(head -c 300 "$out/$1.err") $(grep -m1 '"reason"' "$out/$1.json")"
	return $rc
}
# probe_bg ID CONF DEVICE PRESET [DB] - the same in the background: nvmond's
# pid in $bgpid; bg_end ID waits for it and writes ID.rc.
probe_bg() {
	nvmond -c "$2" --db "${5:-$DB}" probe --device "$3" --preset "$4" --json \
		>"$out/$1.json" 2>"$out/$1.err" &
	bgpid=$!
}
bg_end() {
	wait "$bgpid"
	echo $? >"$out/$1.rc"
	log "$1: rc $(cat "$out/$1.rc" 2>/dev/null) $(head -c 300 "$out/$1.err") $(grep -m1 '"reason"' "$out/$1.json")"
}
q() { sqlite3 -cmd '.timeout 5000' "${QDB:-$DB}" "$@"; }
devid() { q "SELECT id FROM devices WHERE serial = '$1'" 2>/dev/null; }
known() { [ -n "$(devid "$1")" ]; }
# runs NAME [DB] - every probe run, as JSON, into runs-NAME.json.
runs() {
	QDB=${2:-$DB} q -json "SELECT r.id, d.serial, r.preset, r.trigger, r.state, r.reason,
		r.target, r.bytes_written, r.bytes_charged, r.bytes_lease, r.nsid
		FROM probe_runs r JOIN devices d ON d.id = r.device_id ORDER BY r.id" \
		>"$out/runs-$1.json"
}
run_state() { q "SELECT state FROM probe_runs WHERE id = $1"; }
run_ended() { [ "$(run_state "$1")" != running ]; }
# grown_or_ended RUN DEV FIELD BASE BYTES - grown, or the daemon's run RUN ended.
grown_or_ended() {
	local run=$1
	shift
	grown "$@" || run_ended "$run"
}
last_run() { q "SELECT coalesce(max(id), 0) FROM probe_runs"; }
# http ID METHOD PATH [BODY] - vm_http (guest-lib.sh), logged with the time.
http() { log "$(vm_http "$@")"; }
# posted_id ID - the run id from a 202 answer in ID.body.
posted_id() { sed -n 's/.*"id": *\([0-9]*\).*/\1/p' "$out/$1.body"; }
daemon_start() { # daemon_start NAME CONF
	nvmond -c "$2" --db "$DB" >"$out/$1.log" 2>&1 &
	dpid=$!
	vm_wait_http "$BASE/healthz" 60 || log "daemon $1 did not answer"
}
daemon_stop() { # daemon_stop NAME
	kill -TERM "$dpid"
	wait "$dpid"
	echo $? >"$out/$1.rc"
}
latest_ms() { # the latest sample's ts_ms of device ID, as the API serves it
	curl -s "$BASE/api/v1/devices/$1" | grep -o '"ts_ms": *[0-9]*' | head -n 1 | grep -o '[0-9]*$'
}
sampled_since() { [ "$(latest_ms "$1")" -gt "$2" ] 2>/dev/null; }
pci_of() { basename "$(readlink -f "/sys/class/nvme/$(vm_ctrl_by_serial "$1")/device")"; }
# locked_or_gone SERIAL PID - nvmond probe PID holds the drive's lock (it wrote
# its line into the lock file), or it ended.
locked_or_gone() {
	[ "$(cat "$LOCKS/probe-$1.lock" 2>/dev/null)" = "pid $2, nvmond probe" ] || ! alive "$2"
}
# mkext4 DEV - ext4 (e2fsprogs), initialized at once: nothing writes in the background.
mkext4() { mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$1"; }

head -c 4194304 /dev/urandom >/tmp/canary
fact "canary.md5 $(md5sum /tmp/canary | cut -d' ' -f1)"
X=$(ns $SX) && Y=$(ns $SY) && M1=$(ns $SM 1) && M2=$(ns $SM 2) && E=$(ns $SE) || {
	echo "missing a namespace"
	exit 2
}
log "X=$X Y=$Y M=$M1,$M2 E=$E"

# --- 0. a daemon taken over ----------------------------------------------
attack c00 "a daemon taken over asks its device process for namespaces the configuration does not let it write"
# nvmond-test-chan starts the device process as nvmond does (user = nvmond:
# it then holds no capability) and sends DEV_OP_OPEN_NS and DEV_OP_CONFIGURE
# on the channel, as an attacker holding the HTTP process would. M2 holds data
# without any signature (a raw database, a disk image): the prize.
echo 'nvmond:x:990:990:nvmond:/nonexistent:/bin/sh' >>/etc/passwd
echo 'nvmond:x:990:' >>/etc/group
dd if=/tmp/canary of="/dev/$M2" bs=1M oflag=direct 2>/dev/null
fact "c00.m2_md5_before $(md5 /dev/$M2)"
fact "c00.m2_blkid $(blkid -p "/dev/$M2" >/dev/null 2>&1 && echo found || echo none)"
fact "c00.x_md5_before $(md5 /dev/$X)"
MODEL=$(sed 's/ *$//' "/sys/class/nvme/$(vm_ctrl_by_serial $SX)/model")
# c00_conf DESTRUCTIVE_X [LINES...] - the configuration both halves read.
c00_conf() {
	local d=$1
	shift
	conf /tmp/c00.conf 'user = nvmond' '[probes]' 'lock_dir = /tmp/c00-locks' \
		"[device \"$SX\"]" "destructive = $d" "$@"
}
c00_conf yes
rm -f /tmp/c00.in && mkfifo /tmp/c00.in
nvmond-test-chan /tmp/c00.conf </tmp/c00.in >"$out/c00.out" 2>"$out/c00.err" &
cpid=$!
exec 7>/tmp/c00.in
c00_n=0
# ask NAME LINE - send LINE, wait for its answer, keep it as fact c00.NAME.
ask() {
	c00_n=$((c00_n + 1))
	echo "$2" >&7
	until_ok 20 grep -q "^$c00_n " "$out/c00.out" || log "c00: no answer to $2"
	fact "c00.$1 $(grep "^$c00_n " "$out/c00.out" | cut -d' ' -f2-)"
}
until_ok 20 grep -q '^0 ' "$out/c00.out"
fact "c00.ids $(grep '^0 ' "$out/c00.out" | cut -d' ' -f2-)"
ask w_m2 "open|write|$M2|$SM|$MODEL|2"
ask w_m2_as_nsid1 "open|write|$M2|$SM|$MODEL|1"
ask w_m2_as_x "open|write|$M2|$SX|$MODEL|1"
ask w_m2_no_model "open|write|$M2|$SM||2"
ask r_m2 "open|read|$M2|$SM|$MODEL|2"
ask w_m1 "open|write|$M1|$SM|$MODEL|1"
ask w_x "open|write|$X|$SX|$MODEL|1"
ask w_x_nsid2 "open|write|$X|$SX|$MODEL|2"
# The configuration changes between two requests.
c00_conf no
ask w_x_off_now "open|write|$X|$SX|$MODEL|1"
ask reload_off reload
ask w_x_off "open|write|$X|$SX|$MODEL|1"
ask r_x_off "open|read|$X|$SX|$MODEL|1"
c00_conf yes "[device \"$SM\"]" 'destructive = yes' 'probe_namespace = 2'
ask w_x_on_now "open|write|$X|$SX|$MODEL|1"
ask w_m2_on_now "open|write|$M2|$SM|$MODEL|2"
ask reload_on reload
ask w_x_on "open|write|$X|$SX|$MODEL|1"
c00_conf yes "[device \"$SM\"]" 'destructive = yes' 'probe_namespace = 2'
printf 'this is no configuration\n' >>/tmp/c00.conf
ask w_x_broken "open|write|$X|$SX|$MODEL|1"
exec 7>&-
wait $cpid
fact "c00.rc $?"
fact "c00.m2_md5_after $(md5 /dev/$M2)"
fact "c00.x_md5_after $(md5 /dev/$X)"

# --- 1. renumbering ------------------------------------------------------
attack a01 "renumbering by re-binding the driver: Y takes X's old name"
# Y: 128 MiB written (its data_units_written far above anything X reaches
# here), then an ext4 holding the canary, unmounted.
dd if=/dev/zero of="/dev/$Y" bs=1M count=64 oflag=direct 2>/dev/null
dd if=/dev/zero of="/dev/$Y" bs=1M count=64 oflag=direct 2>/dev/null
mkext4 "/dev/$Y"
mount -t ext4 -o noatime "/dev/$Y" /mnt/y && cp /tmp/canary /mnt/y/canary && umount /mnt/y
fact "a01.y_md5_before $(md5 /dev/$Y)"
conf /tmp/d1.conf 'poll_interval = 2s' 'listen = 127.0.0.1:9470' '[http]' "token = $TOKEN" \
	'[probes]' 'phase_duration = 1s' "[device \"$SX\"]" 'destructive = yes' 'probe_file_size = 16MiB'
daemon_start daemon1 /tmp/d1.conf
until_ok 30 known $SX
until_ok 30 known $SY
idx=$(devid $SX)
idy=$(devid $SY)
fact "a01.idx $idx"
fact "a01.idy $idy"
until_ok 30 sampled_since "$idx" 0
until_ok 30 sampled_since "$idy" 0
fact "a01.x_duw_before $(duw $SX)"
fact "a01.y_duw_before $(duw $SY)"
fact "a01.names_before $(vm_ctrl_by_serial $SX) $(vm_ctrl_by_serial $SY)"
ax=$(pci_of $SX)
ay=$(pci_of $SY)
echo "$ax" >/sys/bus/pci/drivers/nvme/unbind
echo "$ay" >/sys/bus/pci/drivers/nvme/unbind
echo "$ay" >/sys/bus/pci/drivers/nvme/bind
echo "$ax" >/sys/bus/pci/drivers/nvme/bind
# Samples stamped from the next whole second on were surely taken after it.
fact "a01.t_swap_ms $((($(date +%s) + 1) * 1000))"
# At once: the daemon still knows X by its old name, now Y's.
http a01_api1 POST "/api/v1/devices/$idx/probes" '{"preset":"seq1m-q1"}'
r=$(posted_id a01_api1)
[ -n "$r" ] && until_ok 60 run_ended "$r"
until_ok 10 has_ns $SX
until_ok 10 has_ns $SY
fact "a01.names_after $(vm_ctrl_by_serial $SX) $(vm_ctrl_by_serial $SY)"
fact "a01.ns_after $(ns $SX) $(ns $SY)"
http a01_api2 POST "/api/v1/devices/$idx/probes" '{"preset":"seq1m-q1"}'
r=$(posted_id a01_api2)
[ -n "$r" ] && until_ok 60 run_ended "$r"
probe a01_cli /tmp/d1.conf $SX seq1m-q1
t=$(($(date +%s) * 1000))
# Both polled again after the swap and the probes (a rescan may take 30 s).
until_ok 45 sampled_since "$idx" "$t"
until_ok 45 sampled_since "$idy" "$t"
curl -s "$BASE/api/v1/devices/$idx/samples?limit=100000" >"$out/a01.samples_x.json"
curl -s "$BASE/api/v1/devices/$idy/samples?limit=100000" >"$out/a01.samples_y.json"
curl -s "$BASE/api/v1/devices" >"$out/a01.devices.json"
fact "a01.x_duw_after $(duw $SX)"
fact "a01.y_duw_after $(duw $SY)"
daemon_stop daemon1
X=$(ns $SX)
Y=$(ns $SY)
fact "a01.y_md5_after $(md5 /dev/$Y)"
e2fsck -fn "/dev/$Y" >"$out/a01.fsck" 2>&1
fact "a01.y_fsck_rc $?"
mount -t ext4 -o ro "/dev/$Y" /mnt/y && fact "a01.y_canary $(md5sum /mnt/y/canary | cut -d' ' -f1)"
umount /mnt/y
runs a01

# --- 4. an unmounted filesystem ------------------------------------------
attack a04 "an unmounted ext4 on a raw namespace with destructive = yes"
conf /tmp/a04.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" 'destructive = yes'
duws a04.before
probe a04 /tmp/a04.conf $SY seq1m-q1
duws a04.after
fact "a04.md5_after $(md5 /dev/$Y)" # a01.y_md5_before

# --- 9. daemon and CLI on one drive --------------------------------------
# From here on X's budget is out of the way (1 PB). The holder of the drive
# runs seq1m-q1 with a 60 s read phase, cancelled once the other has asked;
# sustained-write runs until killed (1000 GB at about 1 GB/s).
P9="[device \"$SX\"]"
XB='probe_budget_day = 1PB'
XM='probe_budget_month = 1PB'
XL='probe_sustained_limit = 1000GB'
conf /tmp/d2.conf 'poll_interval = 2s' 'listen = 127.0.0.1:9470' '[http]' "token = $TOKEN" \
	'[probes]' 'phase_duration = 60s' 'sustained_every = 0' "$P9" 'destructive = yes' \
	'probe_file_size = 16MiB' "$XB" "$XM" "$XL"
cp /tmp/d2.conf /tmp/cli9.conf
attack a09 "the daemon probes, then nvmond probe asks for the same drive"
daemon_start daemon2 /tmp/d2.conf
idx=$(devid $SX)
curl -s "$BASE/api/v1/devices/$idx/probes" >"$out/a09.list_before.json"
r=$(stat_field "$X" 3)
http a09_api POST "/api/v1/devices/$idx/probes" '{"preset":"seq1m-q1"}'
r9=$(posted_id a09_api)
fact "a09.daemon_run $r9"
until_ok 20 grown_or_ended "$r9" "$X" 3 "$r" 1048576
fact "a09.daemon_running_before $(run_state "$r9")"
probe a09_cli /tmp/cli9.conf $SX sustained-write
fact "a09.daemon_running_after $(run_state "$r9")"
curl -s "$BASE/api/v1/devices/$idx/probes" >"$out/a09.list_mid.json"
http a09_cancel POST "/api/v1/probes/$r9/cancel"
until_ok 30 run_ended "$r9"
attack a09b "nvmond probe runs, then the daemon is asked for the same drive"
r=$(stat_field "$X" 3)
probe_bg a09b_cli /tmp/cli9.conf $SX seq1m-q1
cpid=$bgpid
until_ok 20 locked_or_gone $SX "$cpid"
until_ok 20 grown_or_gone "$cpid" "$X" 3 "$r" 1048576
http a09b_api POST "/api/v1/devices/$idx/probes" '{"preset":"seq1m-q1"}'
fact "a09b.cli_alive $(alive "$cpid" && echo yes || echo no)"
curl -s "$BASE/api/v1/devices/$idx/probes" >"$out/a09b.list_mid.json"
kill -INT "$cpid"
bg_end a09b_cli
curl -s "$BASE/api/v1/devices/$idx/probes" >"$out/a09.list_after.json"
runs a09

# --- 10. killed in the middle of a run -----------------------------------
attack a10c "SIGKILL of the daemon during a run, then a restart"
fact "a10c.duw_before $(duw $SX)"
w=$(stat_field "$X" 7)
http a10c_api POST "/api/v1/devices/$idx/probes" '{"preset":"sustained-write"}'
r10=$(posted_id a10c_api)
fact "a10c.run $r10"
until_ok 30 grown_or_ended "$r10" "$X" 7 "$w" 16777216
kill -KILL "$dpid"
wait "$dpid"
fact "a10c.state_after_kill $(run_state "$r10")"
fact "a10c.duw_after $(duw $SX)"
daemon_start daemon3 /tmp/d2.conf
daemon_stop daemon3
fact "a10c.state_after_restart $(run_state "$r10")"

attack a10t "SIGTERM to nvmond probe during its write phase"
fact "a10t.duw_before $(duw $SX)"
w=$(stat_field "$X" 7)
probe_bg a10t /tmp/cli9.conf $SX sustained-write
until_ok 30 grown_or_gone "$bgpid" "$X" 7 "$w" 16777216
kill -TERM "$bgpid"
bg_end a10t
fact "a10t.duw_after $(duw $SX)"

attack a10h "SIGHUP to nvmond probe during its write phase"
fact "a10h.duw_before $(duw $SX)"
w=$(stat_field "$X" 7)
probe_bg a10h /tmp/cli9.conf $SX sustained-write
until_ok 30 grown_or_gone "$bgpid" "$X" 7 "$w" 16777216
kill -HUP "$bgpid"
bg_end a10h
fact "a10h.duw_after $(duw $SX)"

attack a10k "SIGKILL of nvmond probe during its write phase, settled by the next"
fact "a10k.duw_before $(duw $SX)"
w=$(stat_field "$X" 7)
probe_bg a10k /tmp/cli9.conf $SX sustained-write
until_ok 30 grown_or_gone "$bgpid" "$X" 7 "$w" 16777216
r=$(last_run)
fact "a10k.run $r"
kill -KILL "$bgpid"
bg_end a10k
fact "a10k.duw_after $(duw $SX)"
fact "a10k.state_after_kill $(run_state "$r")"
# The next process to take X's lock settles it: here a probe refused right after.
conf /tmp/a10s.conf '[probes]' 'phase_duration = 1s' "$P9" 'destructive = no'
probe a10k_next /tmp/a10s.conf $SX sustained-write
fact "a10k.state_after_next $(run_state "$r")"
runs a10

# --- 5. a filesystem made during the read phase --------------------------
attack a05 "mke2fs + mount on the raw namespace while the probe reads it"
conf /tmp/a05.conf '[probes]' 'phase_duration = 8s' "$P9" 'destructive = yes' \
	'probe_file_size = 32MiB' "$XB" "$XM"
dd if=/dev/zero of="/dev/$X" bs=1M count=4 oflag=direct 2>/dev/null
fact "a05.duw_before $(duw $SX)"
r=$(stat_field "$X" 3)
w=$(stat_field "$X" 7)
probe_bg a05 /tmp/a05.conf $SX seq1m-q1
until_ok 30 grown_or_gone "$bgpid" "$X" 3 "$r" 8388608
fact "a05.alive_at_mkfs $(alive "$bgpid" && echo yes || echo no)"
busybox mke2fs -q "/dev/$X" >/dev/null 2>&1
fact "a05.mkfs_rc $?"
mount -t ext4 "/dev/$X" /mnt/try >"$out/a05.mount" 2>&1
fact "a05.mount_rc $?"
grep -q /mnt/try /proc/mounts && umount /mnt/try
fact "a05.md5_mkfs $(md5 /dev/$X)"
bg_end a05
fact "a05.md5_after $(md5 /dev/$X)"
fact "a05.duw_after $(duw $SX)"
blkid "/dev/$X" >"$out/a05.blkid" 2>&1

# --- 6. a partition table made during the read phase ---------------------
attack a06 "sfdisk on the raw namespace while the probe reads it"
dd if=/dev/zero of="/dev/$X" bs=1M count=4 oflag=direct 2>/dev/null
r=$(stat_field "$X" 3)
w=$(stat_field "$X" 7)
probe_bg a06 /tmp/a05.conf $SX seq1m-q1
until_ok 30 grown_or_gone "$bgpid" "$X" 3 "$r" 8388608
fact "a06.alive_at_sfdisk $(alive "$bgpid" && echo yes || echo no)"
printf 'label: dos\n,24MiB,L\n,,L\n' | sfdisk -q --force --no-reread "/dev/$X" >"$out/a06.sfdisk" 2>&1
fact "a06.sfdisk_rc $?"
sfdisk -d "/dev/$X" >"$out/a06.table_made" 2>&1
fact "a06.md5_table $(md5 /dev/$X)"
bg_end a06
fact "a06.md5_after $(md5 /dev/$X)"
sfdisk -d "/dev/$X" >"$out/a06.table_after" 2>&1
# No table and no partitions for what follows (had one reached the kernel).
dd if=/dev/zero of="/dev/$X" bs=1M count=1 oflag=direct 2>/dev/null
blockdev --rereadpt "/dev/$X" 2>/dev/null

# --- 2. btrfs mounted ----------------------------------------------------
attack a02 "btrfs mounted on the raw namespace (destructive = yes)"
conf /tmp/a02.conf '[probes]' 'phase_duration = 1s' 'sustained_every = 0' "$P9" \
	'destructive = yes' 'probe_file_size = 16MiB' "$XB" "$XM" "$XL"
# Mixed block groups: a btrfs that fits in 64 MiB.
mkfs.btrfs -q -f -M "/dev/$X" >"$out/a02.mkfs" 2>&1
mount -t btrfs "/dev/$X" /mnt/btr && cp /tmp/canary /mnt/btr/canary
fact "a02.md5_before $(md5 /dev/$X)"
fact "a02.duw_before $(duw $SX)"
probe a02 /tmp/a02.conf $SX sustained-write
probe a02_seq /tmp/a02.conf $SX seq1m-q1
fact "a02.duw_after $(duw $SX)"
fact "a02.md5_after $(md5 /dev/$X)"
fact "a02.canary $(md5sum /mnt/btr/canary | cut -d' ' -f1)"
umount /mnt/btr

# --- 3. mounted in another mount namespace only --------------------------
attack a03 "ext4 mounted only in another mount namespace"
mkext4 "/dev/$X"
rm -f /tmp/ns.ready
unshare -m sh -c "mount -t ext4 -o noatime /dev/$X /mnt/ns && cp /tmp/canary /mnt/ns/canary &&
	sync && touch /tmp/ns.ready && exec sleep 600" &
nspid=$!
until_ok 20 test -e /tmp/ns.ready
fact "a03.in_our_mountinfo $(grep -c "^[^ ]* [^ ]* $(cat /sys/block/$X/dev) " /proc/self/mountinfo)"
fact "a03.md5_before $(md5 /dev/$X)"
fact "a03.duw_before $(duw $SX)"
probe a03 /tmp/a02.conf $SX sustained-write
fact "a03.duw_after $(duw $SX)"
fact "a03.md5_after $(md5 /dev/$X)"
kill "$nspid"
wait "$nspid" 2>/dev/null
runs a03

# --- 11. an I/O error in the write phase ---------------------------------
attack a11 "I/O error (blkdebug, 4 MiB into the area) in sustained-write until the budget is used"
# A 96 MiB day budget: runs until the budget refuses one (a run that writes
# past the error's place before it fails, or one cut short by the budget, is
# judged as such).
conf /tmp/a11.conf '[probes]' 'phase_duration = 1s' 'sustained_every = 0' \
	"[device \"$SE\"]" 'destructive = yes' 'probe_file_size = 32MiB' \
	'probe_budget_day = 96MiB' 'probe_budget_month = 1GiB'
fact "a11.duw_before $(duw $SE)"
k=0
while [ $k -lt 12 ]; do
	k=$((k + 1))
	probe "a11_$k" /tmp/a11.conf $SE sustained-write
	[ -s "$out/a11_$k.json" ] || break # refused before it ran
done
fact "a11.n $k"
fact "a11.duw_after $(duw $SE)"
runs a11
attack a11e "the same with sustained_every = 1d: a failed run that wrote counts"
conf /tmp/a11e.conf '[probes]' 'phase_duration = 1s' 'sustained_every = 1d' \
	"[device \"$SE\"]" 'destructive = yes' 'probe_file_size = 32MiB'
probe a11e_1 /tmp/a11e.conf $SE sustained-write /tmp/a11e.db
probe a11e_2 /tmp/a11e.conf $SE sustained-write /tmp/a11e.db
runs a11e /tmp/a11e.db

# --- 14. two namespaces ---------------------------------------------------
attack a14 "two namespaces: probe_namespace picks the one written"
dd if=/tmp/canary of="/dev/$M1" bs=1M oflag=direct 2>/dev/null
dd if=/tmp/canary of="/dev/$M2" bs=1M oflag=direct 2>/dev/null
conf /tmp/a14a.conf '[probes]' 'phase_duration = 1s' "[device \"$SM\"]" 'destructive = yes' \
	'probe_file_size = 16MiB'
conf /tmp/a14b.conf '[probes]' 'phase_duration = 1s' "[device \"$SM\"]" 'destructive = yes' \
	'probe_file_size = 16MiB' 'probe_namespace = 2'
fact "a14.n1_md5_0 $(md5 /dev/$M1)"
fact "a14.n2_md5_0 $(md5 /dev/$M2)"
probe a14_ns1 /tmp/a14a.conf $SM seq1m-q1
fact "a14.n1_md5_1 $(md5 /dev/$M1)"
fact "a14.n2_md5_1 $(md5 /dev/$M2)"
probe a14_ns2 /tmp/a14b.conf $SM seq1m-q1
fact "a14.n1_md5_2 $(md5 /dev/$M1)"
fact "a14.n2_md5_2 $(md5 /dev/$M2)"

# --- 12. no fallocate, too small -----------------------------------------
attack a12 "ext2 (no fallocate) too small for the probe file"
busybox mke2fs -q "/dev/$M2" 8192 >/dev/null 2>&1
mount -t ext4 -o noatime "/dev/$M2" /mnt/m12 && mkdir -p /mnt/m12/probe && chmod 755 /mnt/m12/probe
# util-linux fallocate calls fallocate(2) itself (busybox's writes zeros instead).
/usr/sbin/fallocate -l 1M /mnt/m12/probe/try >"$out/a12.fallocate" 2>&1
fact "a12.fallocate_rc $?"
rm -f /mnt/m12/probe/try
conf /tmp/a12.conf '[probes]' 'phase_duration = 1s' "[device \"$SM\"]" 'probe_dir = /mnt/m12/probe' \
	'probe_file_size = 16MiB'
fact "a12.duw_before $(duw $SM)"
probe a12 /tmp/a12.conf $SM seq1m-q1
fact "a12.duw_after $(duw $SM)"
fact "a12.left $(ls -A /mnt/m12/probe | wc -l)"
umount /mnt/m12

# --- the probe file on Y's ext4 ------------------------------------------
mount -t ext4 -o noatime "/dev/$Y" /mnt/y
mkdir -p /mnt/y/probe && chmod 755 /mnt/y/probe
conf /tmp/fy.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" 'probe_dir = /mnt/y/probe' \
	'probe_file_size = 16MiB'
for v in victim7 victim8 victim_sl victim_hl; do cp /tmp/canary "/mnt/y/$v"; done
attack f_ok0 "control: a probe on Y's probe file"
probe f_ok0 /tmp/fy.conf $SY seq1m-q1

# refuse ID TITLE CONF DEVICE [PRESET [DB]] - a probe expected to write
# nothing: data_units_written of every drive around it.
refuse() {
	attack "$1" "$2"
	duws "$1.before"
	probe "$1" "$3" "$4" "${5:-seq1m-q1}" "${6:-$DB}"
	duws "$1.after"
}

# 7. the hard-link race, won by the attacker at the very open (LD_PRELOAD)
attack a07 "hard-link race: the name swapped for a link to another file as nvmond opens it"
fact "a07.ino_before $(stat -c %i /mnt/y/probe/nvmond-probe.dat)"
fact "a07.victim_ino $(stat -c %i /mnt/y/victim7)"
duws a07.before
env NVMOND_TEST_SWAP=nvmond-probe.dat:/mnt/y/victim7 LD_PRELOAD=/usr/lib/nvmond-test-swap.so \
	nvmond -c /tmp/fy.conf --db "$DB" probe --device $SY --preset seq1m-q1 --json \
	>"$out/a07.json" 2>"$out/a07.err"
echo $? >"$out/a07.rc"
log "a07: rc $(cat "$out/a07.rc") $(cat "$out/a07.err") $(grep -m1 '"reason"' "$out/a07.json")"
duws a07.after
fact "a07.ino_after $(stat -c %i /mnt/y/probe/nvmond-probe.dat)"
fact "a07.links_after $(stat -c %h /mnt/y/probe/nvmond-probe.dat)"
fact "a07.md5_after $(md5 /mnt/y/probe/nvmond-probe.dat)"
fact "a07.victim_name_left $(ls /mnt/y/victim7 2>/dev/null | wc -l)"
rm -f /mnt/y/probe/nvmond-probe.dat
attack f_ok1 "control: a new probe file after the victim's name was removed"
probe f_ok1 /tmp/fy.conf $SY seq1m-q1

# 8. a file bind-mounted onto the probe file's name
mount -o bind /mnt/y/victim8 /mnt/y/probe/nvmond-probe.dat
refuse a08 "a file bind-mounted onto nvmond-probe.dat" /tmp/fy.conf $SY
fact "a08.md5_after $(md5 /mnt/y/victim8)"
umount /mnt/y/probe/nvmond-probe.dat

# The probe file stays aside while its name is something else.
mv /mnt/y/probe/nvmond-probe.dat /mnt/y/probe.keep
ln -s /mnt/y/victim_sl /mnt/y/probe/nvmond-probe.dat
refuse r_symlink "nvmond-probe.dat is a symlink to another file" /tmp/fy.conf $SY
fact "r_symlink.md5_after $(md5 /mnt/y/victim_sl)"
rm /mnt/y/probe/nvmond-probe.dat
mkfifo /mnt/y/probe/nvmond-probe.dat
refuse r_fifo "nvmond-probe.dat is a FIFO" /tmp/fy.conf $SY
rm /mnt/y/probe/nvmond-probe.dat
fact "r_devnode.md5_before $(md5 /dev/$M1)"
mm=$(cat "/sys/block/$M1/dev")
mknod /mnt/y/probe/nvmond-probe.dat b "${mm%:*}" "${mm#*:}"
refuse r_devnode "nvmond-probe.dat is a device node of another drive's namespace" /tmp/fy.conf $SY
fact "r_devnode.md5_after $(md5 /dev/$M1)"
rm /mnt/y/probe/nvmond-probe.dat
ln /mnt/y/victim_hl /mnt/y/probe/nvmond-probe.dat
refuse r_hardlink "nvmond-probe.dat is a hard link to another file (2 links)" /tmp/fy.conf $SY
fact "r_hardlink.md5_after $(md5 /mnt/y/victim_hl)"
rm /mnt/y/probe/nvmond-probe.dat
mv /mnt/y/probe.keep /mnt/y/probe/nvmond-probe.dat
attack f_ok2 "control: nvmond's own file back under its name"
probe f_ok2 /tmp/fy.conf $SY seq1m-q1

mkdir -p /mnt/y/probe2 && chmod 755 /mnt/y/probe2
cat /tmp/canary /tmp/canary /tmp/canary /tmp/canary /tmp/canary /tmp/canary >/mnt/y/probe2/nvmond-probe.dat
fact "r_unknown.md5_before $(md5 /mnt/y/probe2/nvmond-probe.dat)"
conf /tmp/r_unknown.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" \
	'probe_dir = /mnt/y/probe2' 'probe_file_size = 16MiB'
refuse r_unknown "a 24 MiB nvmond-probe.dat nvmond did not make" /tmp/r_unknown.conf $SY
fact "r_unknown.md5_after $(md5 /mnt/y/probe2/nvmond-probe.dat)"

mkdir -p /mnt/y/real/probe && chmod 755 /mnt/y/real/probe && ln -s /mnt/y/real /mnt/y/lnk
conf /tmp/r_dirlink.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" \
	'probe_dir = /mnt/y/lnk/probe' 'probe_file_size = 16MiB'
refuse r_dirlink "a symlink in probe_dir's path" /tmp/r_dirlink.conf $SY
fact "r_dirlink.left $(ls -A /mnt/y/real/probe | wc -l)"
chmod 1777 /mnt/y/probe2
rm /mnt/y/probe2/nvmond-probe.dat
refuse r_dirmode "probe_dir writable by others (1777)" /tmp/r_unknown.conf $SY
fact "r_dirmode.left $(ls -A /mnt/y/probe2 | wc -l)"

# Configuration edge values.
conf /tmp/e_size.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" \
	'probe_dir = /mnt/y/real/probe' 'probe_file_size = 1.5MiB'
refuse e_size "probe_file_size = 1.5MiB (not whole MiB)" /tmp/e_size.conf $SY
conf /tmp/e_nsid.conf '[probes]' 'phase_duration = 1s' "[device \"$SX\"]" 'destructive = yes' \
	'probe_namespace = 0'
refuse e_nsid "probe_namespace = 0" /tmp/e_nsid.conf $SX
conf /tmp/e_nons.conf '[probes]' 'phase_duration = 1s' "[device \"$SX\"]" 'destructive = yes' \
	'probe_namespace = 7'
refuse e_nons "probe_namespace = 7 (no such namespace)" /tmp/e_nons.conf $SX
conf /tmp/e_huge.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" \
	'probe_dir = /mnt/y/real/probe' 'probe_file_size = 1PB'
refuse e_huge "probe_file_size = 1PB (default budget)" /tmp/e_huge.conf $SY
conf /tmp/e_room.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" \
	'probe_dir = /mnt/y/real/probe' 'probe_file_size = 1PiB' 'probe_budget_day = 4PiB' \
	'probe_budget_month = 4PiB'
refuse e_room "probe_file_size = 1PiB with a 4 PiB budget" /tmp/e_room.conf $SY
conf /tmp/e_max.conf '[probes]' 'phase_duration = 1s' "[device \"$SY\"]" \
	'probe_dir = /mnt/y/real/probe' 'probe_file_size = 9223372036854775807' \
	'probe_budget_day = 9223372036854775807' 'probe_budget_month = 9223372036854775807'
refuse e_max "probe_file_size = 2^63-1 bytes, budget the same" /tmp/e_max.conf $SY
fact "e_max.left $(ls -A /mnt/y/real/probe | wc -l)"
fact "y.canary_end $(md5 /mnt/y/canary)"

# --- X's filesystem: targets that are not on X ----------------------------
mount -t ext4 -o noatime "/dev/$X" /mnt/x
mkdir -p /mnt/x/probe /mnt/y/bdir /tmp/tprobe /mnt/x/ovl/lower/probe /mnt/x/ovl/upper /mnt/x/ovl/work
chmod 755 /mnt/x/probe /mnt/y/bdir /tmp/tprobe /mnt/x/ovl/lower/probe
cp /tmp/canary /mnt/y/bdir/canary
PX="[device \"$SX\"]"

mount -o bind /mnt/y/bdir /mnt/x/probe
conf /tmp/r_binddir.conf '[probes]' 'phase_duration = 1s' "$PX" 'probe_dir = /mnt/x/probe' \
	'probe_file_size = 16MiB'
refuse r_binddir "probe_dir of X is a bind mount of a directory on Y" /tmp/r_binddir.conf $SX
fact "r_binddir.left $(ls -A /mnt/y/bdir | wc -l)"
umount /mnt/x/probe

conf /tmp/r_tmpfs.conf '[probes]' 'phase_duration = 1s' "$PX" 'probe_dir = /tmp/tprobe' \
	'probe_file_size = 16MiB'
refuse r_tmpfs "probe_dir on tmpfs" /tmp/r_tmpfs.conf $SX

mount -t overlay overlay -o lowerdir=/mnt/x/ovl/lower,upperdir=/mnt/x/ovl/upper,workdir=/mnt/x/ovl/work /mnt/ov
conf /tmp/r_overlay.conf '[probes]' 'phase_duration = 1s' "$PX" 'probe_dir = /mnt/ov/probe' \
	'probe_file_size = 16MiB'
refuse r_overlay "probe_dir on overlayfs over X's filesystem" /tmp/r_overlay.conf $SX
fact "r_overlay.left $(ls -A /mnt/x/ovl/upper | wc -l)"
umount /mnt/ov

dd if=/dev/zero of=/mnt/y/loop.img bs=1M count=24 2>/dev/null
# Journalled: an idle ext4 without a journal rewrites its superblock at every sync.
losetup /dev/loop0 /mnt/y/loop.img && mkext4 /dev/loop0 &&
	mount -t ext4 -o noatime /dev/loop0 /mnt/lp && mkdir -p /mnt/lp/probe && chmod 755 /mnt/lp/probe
fact "r_loop.md5_before $(md5 /dev/loop0)"
conf /tmp/r_loop.conf '[probes]' 'phase_duration = 1s' "$PX" 'probe_dir = /mnt/lp/probe' \
	'probe_file_size = 16MiB'
refuse r_loop "probe_dir on a loop device whose file is on Y" /tmp/r_loop.conf $SX
fact "r_loop.md5_after $(md5 /dev/loop0)"
umount /mnt/lp
losetup -d /dev/loop0

fact "r_swapped.md5_before $(md5 /mnt/y/probe/nvmond-probe.dat)"
conf /tmp/r_swapped.conf '[probes]' 'phase_duration = 1s' "$PX" 'probe_dir = /mnt/y/probe' \
	'probe_file_size = 16MiB'
refuse r_swapped "probe_dir of X on Y's filesystem (Y's probe file there)" /tmp/r_swapped.conf $SX
fact "r_swapped.md5_after $(md5 /mnt/y/probe/nvmond-probe.dat)"
umount /mnt/x
umount /mnt/y

# --- dm linear over X and M ----------------------------------------------
sx=$(cat "/sys/block/$X/size")
sm=$(cat "/sys/block/$M1/size")
printf '0 %s linear /dev/%s 0\n%s %s linear /dev/%s 0\n' "$sx" "$X" "$sx" "$sm" "$M1" >/tmp/span.table
dmsetup create span /tmp/span.table >"$out/r_dm.dmsetup" 2>&1 &&
	busybox mke2fs -q /dev/mapper/span >/dev/null 2>&1 &&
	mount -t ext4 -o noatime /dev/mapper/span /mnt/dm && mkdir -p /mnt/dm/probe &&
	chmod 755 /mnt/dm/probe && cp /tmp/canary /mnt/dm/canary
fact "r_dm.slaves $(ls /sys/block/dm-0/slaves 2>/dev/null | tr '\n' ' ')"
conf /tmp/r_dm.conf '[probes]' 'phase_duration = 1s' "$PX" 'probe_dir = /mnt/dm/probe' \
	'probe_file_size = 16MiB'
refuse r_dm "probe_dir on dm linear spanning X and M" /tmp/r_dm.conf $SX
fact "r_dm.left $(ls -A /mnt/dm/probe | wc -l)"
fact "r_dm.canary $(md5 /mnt/dm/canary)"
umount /mnt/dm
dmsetup remove span

# --- 13. foreground I/O on a sibling partition ---------------------------
attack a13 "foreground reads from partition 2 while the probe runs on partition 1"
dd if=/dev/zero of="/dev/$X" bs=1M count=4 oflag=direct 2>/dev/null
printf 'label: dos\n,30MiB,L\n,,L\n' | sfdisk -q "/dev/$X" >"$out/a13.sfdisk" 2>&1
until_ok 10 test -b "/dev/${X}p2"
mkext4 "/dev/${X}p1" && mount -t ext4 -o noatime "/dev/${X}p1" /mnt/p1 &&
	mkdir -p /mnt/p1/probe && chmod 755 /mnt/p1/probe
dd if=/tmp/canary of="/dev/${X}p2" bs=1M oflag=direct 2>/dev/null
fact "a13.p2_md5_before $(md5 /dev/${X}p2)"
conf /tmp/a13.conf '[probes]' 'phase_duration = 6s' "$PX" 'probe_dir = /mnt/p1/probe' \
	'probe_file_size = 16MiB'
r=$(stat_field "${X}p1" 3)
probe_bg a13 /tmp/a13.conf $SX seq1m-q1
until_ok 30 grown_or_gone "$bgpid" "${X}p1" 3 "$r" 4194304
fact "a13.alive_at_dd $(alive "$bgpid" && echo yes || echo no)"
n=0
while alive "$bgpid" && [ $n -lt 20 ]; do
	dd if="/dev/${X}p2" of=/dev/null bs=1M iflag=direct 2>/dev/null
	n=$((n + 1))
done
fact "a13.dd_rounds $n"
bg_end a13
fact "a13.p2_md5_after $(md5 /dev/${X}p2)"
umount /mnt/p1

for s in $SX $SY $SM $SE; do
	fact "ns.$s $(vm_ctrl_ns "$(vm_ctrl_by_serial $s)")"
done
runs final
log "done"
exit 0
