# Guest half of bench_read.sh: the same information read N times by nvme-cli
# (list + smart-log + id-ctrl per controller) and by `nvmond status --json`.
. /etc/vm/guest-lib.sh
N=${BENCH_N:-50}
ctrls=$(vm_ctrls)
t() { # t NAME CMD… : wall ms for N runs, and user+sys ms from /proc/self… via time
	start=$(cut -d' ' -f1 /proc/uptime)
	i=0
	while [ $i -lt $N ]; do "$@" >/dev/null 2>&1; i=$((i + 1)); done
	end=$(cut -d' ' -f1 /proc/uptime)
	echo "$1 $(echo "$start $end" | awk '{printf "%d", ($2 - $1) * 1000}')"
}
nvmecli() {
	nvme list -o json
	for c in $ctrls; do
		nvme id-ctrl "/dev/$c" -o json
		nvme smart-log "/dev/$c" -o json
	done
}
printf '[daemon]\ndemo = no\n' >/tmp/n.conf
nvmond_status() { nvmond --config /tmp/n.conf status --json; }
{
	echo "runs $N controllers $(echo $ctrls | wc -w)"
	t nvmecli
	t nvmond_status
	t nvmecli
	t nvmond_status
} | tee "$VM_OUT/bench.txt"
