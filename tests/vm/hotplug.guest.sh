# Guest half of test_hotplug.sh: the daemon runs while the host unplugs the
# controller with serial NVMOND-VM-0001 and plugs it back (QMP device_del /
# device_add). Snapshots of /api/v1/devices go to $VM_OUT for the host to judge.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
base=http://127.0.0.1:9470
gone_serial=NVMOND-VM-0001

present() {
	for c in $(vm_ctrls); do
		[ "$(vm_ctrl_serial "$c")" = "$gone_serial" ] && return 0
	done
	return 1
}

wait_for() { # wait_for present|absent SECONDS
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		if [ "$1" = present ]; then present && return 0; else present || return 0; fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

printf '[daemon]\npoll_interval = 1s\nrescan_interval = 2s\ndemo = no\nweb_root = /usr/share/nvmond/web\n' >/tmp/n.conf
nvmond --db /tmp/n.db --listen 127.0.0.1:9470 --config /tmp/n.conf >"$out/daemon.log" 2>&1 &
pid=$!
vm_wait_http "$base/healthz" 60 || { echo "daemon did not start"; exit 1; }
sleep 2
wget -qO "$out/devices0.json" "$base/api/v1/devices"

vm_mark ready
wait_for absent 60 || { echo "controller $gone_serial was not removed"; exit 1; }
echo "controller $gone_serial removed at $(date +%s)"
sleep 4 # several polls and a rescan
wget -qO "$out/devices1.json" "$base/api/v1/devices"

vm_mark removed
wait_for present 60 || { echo "controller $gone_serial did not come back"; exit 1; }
echo "controller $gone_serial back as $(for c in $(vm_ctrls); do [ "$(vm_ctrl_serial "$c")" = "$gone_serial" ] && echo "$c"; done)"
sleep 5 # a rescan finds it, then it is polled again
wget -qO "$out/devices2.json" "$base/api/v1/devices"
kill -TERM "$pid"
wait "$pid"
echo $? >"$out/daemon.rc"

# Gone while the daemon is down: the next run marks it offline and alerts.
vm_mark stopped
wait_for absent 60 || { echo "controller $gone_serial was not removed again"; exit 1; }
nvmond --db /tmp/n.db --listen 127.0.0.1:9470 --config /tmp/n.conf >"$out/daemon2.log" 2>&1 &
pid=$!
vm_wait_http "$base/healthz" 60 || { echo "daemon did not start again"; exit 1; }
sleep 3
wget -qO "$out/devices3.json" "$base/api/v1/devices"
wget -qO "$out/alerts3.json" "$base/api/v1/alerts"
kill -TERM "$pid"
wait "$pid"
exit 0
