# Guest half of test_probe.sh (busybox sh, run by the VM's /init). Leaves
# nvme-cli SMART logs, nvmond probe outputs and exit codes in $VM_OUT.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
vm_load_extra_modules

c0=$(vm_ctrl_by_serial NVMOND-VM-0000) || exit 2
c1=$(vm_ctrl_by_serial NVMOND-VM-0001) || exit 2
n0=$(vm_ctrl_ns "$c0" | head -n 1)
n1=$(vm_ctrl_ns "$c1" | head -n 1)
echo "controllers: $c0 ($n0), $c1 ($n1)"
mke2fs -q "/dev/$n0" || exit 3
mkdir -p /mnt/n0 && mount -t ext4 "/dev/$n0" /mnt/n0 || exit 3
mkdir -p /mnt/n0/probe /tmp/probe
sync

smart() { # smart CTRL NAME
	nvme smart-log "/dev/$1" -o json > "$out/$1.$2.json" 2>/dev/null
}
# run NAME CONFIG ARGS...: nvmond probe, stdout+stderr and exit code into $out
run() {
	name=$1 conf=$2
	shift 2
	nvmond -c "$conf" --db /tmp/nvmond.db probe "$@" > "$out/$name.out" 2>&1
	echo $? > "$out/$name.rc"
	echo "$name: rc $(cat "$out/$name.rc")"
}
conf() { # conf FILE LINES... (device sections by serial)
	f=$1
	shift
	printf '[daemon]\ndemo = no\n[probes]\nphase_duration = %s\n' "${PHASE:-1s}" > "$f"
	for l in "$@"; do printf '%s\n' "$l" >> "$f"; done
}
S0='[device "NVMOND-VM-0000"]'
S1='[device "NVMOND-VM-0001"]'

# 1. The probe file on nvme0's filesystem.
conf /tmp/ok.conf "$S0" "probe_dir = /mnt/n0/probe" "probe_file_size = 64MiB"
smart "$c0" before1
smart "$c1" before1
nvmond -c /tmp/ok.conf --db /tmp/nvmond.db probe --device "$c0" --preset seq1m-q8 --json \
	> "$out/probe1.json" 2> "$out/probe1.err"
echo $? > "$out/probe1.rc"
sync
smart "$c0" after1
smart "$c1" after1

# 2. Refusals.
conf /tmp/mounted.conf "$S0" "destructive = yes"
run mounted /tmp/mounted.conf --device "$c0" --preset sustained-write
conf /tmp/tmpfs.conf "$S1" "probe_dir = /tmp/probe"
run tmpfs /tmp/tmpfs.conf --device "$c1" --preset seq1m-q1
conf /tmp/other.conf "$S1" "probe_dir = /mnt/n0/probe"
run otherdrive /tmp/other.conf --device "$c1" --preset seq1m-q1
conf /tmp/raw.conf
run rawcopy /tmp/raw.conf --device "$c1" --preset copy-self
mkdir -p /mnt/n0/sl && ln -s /mnt/n0/probe/nvmond-probe.dat /mnt/n0/sl/nvmond-probe.dat
conf /tmp/sl.conf "$S0" "probe_dir = /mnt/n0/sl" "probe_file_size = 64MiB"
run symlink /tmp/sl.conf --device "$c0" --preset seq1m-q1
sync
smart "$c0" after2
smart "$c1" after2

# 3. A raw namespace, read-only.
nvmond -c /tmp/raw.conf --db /tmp/nvmond.db probe --device "$c1" --preset seq1m-q8 --json \
	> "$out/rawread.json" 2> "$out/rawread.err"
echo $? > "$out/rawread.rc"
smart "$c1" after3

# 4. destructive = yes on the unused namespace.
conf /tmp/destr.conf "$S1" "destructive = yes" "probe_file_size = 32MiB"
nvmond -c /tmp/destr.conf --db /tmp/nvmond.db probe --device "$c1" --preset seq1m-q1 --json \
	> "$out/destructive.json" 2> "$out/destructive.err"
echo $? > "$out/destructive.rc"
smart "$c1" after4
# 5. The sweep (500 ms per point, the shortest phase_duration, to keep the
# boot short): on the probe file (reads, then writes), and read-only on the raw
# namespace raw.conf does not let it write. The run details are the API's
# (GET /api/v1/probes/{id}); the targets' logical block sizes go to facts.
{
	echo "lbs0 $(cat "/sys/block/$n0/queue/logical_block_size")"
	echo "lbs1 $(cat "/sys/block/$n1/queue/logical_block_size")"
	echo "size1 $(($(cat "/sys/block/$n1/size") * 512))"
} > "$out/sweep.facts"
PHASE=500ms conf /tmp/sweep.conf "$S0" "probe_dir = /mnt/n0/probe" "probe_file_size = 64MiB"
PHASE=500ms conf /tmp/sweepraw.conf
smart "$c0" before5
smart "$c1" before5
nvmond -c /tmp/sweep.conf --db /tmp/nvmond.db probe --device "$c0" --preset sweep --json \
	> "$out/sweepfile.json" 2> "$out/sweepfile.err"
echo $? > "$out/sweepfile.rc"
echo "sweepfile: rc $(cat "$out/sweepfile.rc")"
sync
smart "$c0" after5
smart "$c1" after5
nvmond -c /tmp/sweepraw.conf --db /tmp/nvmond.db probe --device "$c1" --preset sweep --json \
	> "$out/sweepraw.json" 2> "$out/sweepraw.err"
echo $? > "$out/sweepraw.rc"
echo "sweepraw: rc $(cat "$out/sweepraw.rc")"
smart "$c0" after6
smart "$c1" after6

# 7. Several drives at once: an ext4 on nvme1 too (its namespace was written raw
# above), a probe file on each controller, seq1m-q8 on both together.
mke2fs -q "/dev/$n1" || exit 3
mkdir -p /mnt/n1 && mount -t ext4 "/dev/$n1" /mnt/n1 || exit 3
mkdir -p /mnt/n1/probe
conf /tmp/two.conf "$S0" "probe_dir = /mnt/n0/probe" "probe_file_size = 64MiB" \
	"$S1" "probe_dir = /mnt/n1/probe" "probe_file_size = 64MiB"
sync
smart "$c0" before7
smart "$c1" before7
nvmond -c /tmp/two.conf --db /tmp/nvmond.db probe --device "$c0" --device "$c1" \
	--preset seq1m-q8 --json > "$out/group.json" 2> "$out/group.err"
echo $? > "$out/group.rc"
echo "group: rc $(cat "$out/group.rc")"
sync
smart "$c0" after7
smart "$c1" after7
# 8. copy-self on nvme0 (the copy-to's comparison), then copy-to nvme0 → nvme1.
nvmond -c /tmp/two.conf --db /tmp/nvmond.db probe --device "$c0" --preset copy-self --json \
	> "$out/copyself.json" 2> "$out/copyself.err"
echo $? > "$out/copyself.rc"
sync
smart "$c0" after8
smart "$c1" after8
nvmond -c /tmp/two.conf --db /tmp/nvmond.db probe --device "$c0" --preset copy-to --to "$c1" \
	--json > "$out/copyto.json" 2> "$out/copyto.err"
echo $? > "$out/copyto.rc"
echo "copyto: rc $(cat "$out/copyto.rc")"
sync
smart "$c0" after9
smart "$c1" after9
umount /mnt/n1
umount /mnt/n0

# 10. The daemon as an unprivileged user (issue 15 §1): root starts it with
# [daemon] user = nvmond; it serves HTTP as nvmond without a capability, and a
# raw probe's namespace is opened by its device process (root), which sends the
# descriptor back. nvmond itself can open no /dev/nvme*: su reproduces its
# uid, gid and groups without root's capabilities.
echo 'nvmond:x:990:990:nvmond:/nonexistent:/bin/sh' >>/etc/passwd
echo 'nvmond:x:990:' >>/etc/group
# n1's filesystem goes: the namespace is blank again (a signature refuses writes).
dd if=/dev/zero of="/dev/$n1" bs=1M count=8 oflag=direct 2>/dev/null
sync
mkdir -p /tmp/ps && chown 990:990 /tmp/ps
TOKEN=vm-probe-token-0123456789abcdef0123
BASE=http://127.0.0.1:9470
printf '[daemon]\ndemo = no\nuser = nvmond\nlisten = 127.0.0.1:9470\nweb_root = /usr/share/nvmond/web\npoll_interval = 1s\n[http]\ntoken = %s\n[probes]\nphase_duration = 1s\n%s\ndestructive = yes\nprobe_file_size = 32MiB\n' \
	"$TOKEN" "$S1" >/tmp/ps.conf
nvmond -c /tmp/ps.conf --db /tmp/ps/n.db >"$out/ps.log" 2>&1 &
dpid=$!
vm_wait_http "$BASE/healthz" 60 || echo "the daemon as nvmond did not answer"
devpid=
for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = nvmond-dev ] &&
		grep -q "^PPid:[[:space:]]*$dpid\$" "$p/status" && devpid=${p#/proc/}
done
cat "/proc/$dpid/status" >"$out/ps.daemon.status"
cat "/proc/$devpid/status" >"$out/ps.dev.status" 2>/dev/null
su -s /bin/sh nvmond -c "exec 3</dev/$c1" 2>"$out/ps.open_ctrl.err"
echo $? >"$out/ps.open_ctrl.rc"
su -s /bin/sh nvmond -c "exec 3<>/dev/$n1" 2>"$out/ps.open_ns.err"
echo $? >"$out/ps.open_ns.rc"
sh -c "exec 3</dev/$c1 4<>/dev/$n1" 2>"$out/ps.root_open.err"
echo $? >"$out/ps.root_open.rc"
id1=
vm_until 30 0.5 sh -c "curl -s $BASE/api/v1/devices | grep -q NVMOND-VM-0001"
for i in 1 2 3; do
	curl -s "$BASE/api/v1/devices/$i" | grep -q '"NVMOND-VM-0001"' && id1=$i
done
vm_http ps_post POST "/api/v1/devices/$id1/probes" '{"preset":"seq1m-q1"}'
run=$(sed -n 's/.*"id": *\([0-9]*\).*/\1/p' "$out/ps_post.body")
ended() { ! curl -s "$BASE/api/v1/probes/$run" | grep -q '"state": *"running"'; }
[ -n "$run" ] && vm_until 90 0.5 ended
curl -s "$BASE/api/v1/probes/$run" >"$out/ps.run.json"
ls -l "/proc/$dpid/fd/" >"$out/ps.fds" 2>&1
kill -TERM "$dpid"
wait "$dpid"
echo $? >"$out/ps.rc"
echo "daemon as nvmond: run $run, rc $(cat "$out/ps.rc")"
for f in "$out"/*.err "$out"/*.out; do
	[ -s "$f" ] && { echo "--- $f"; head -c 400 "$f"; echo; }
done
exit 0
