# Guest half of test_selftests.sh (issue 12), one boot (busybox sh + curl).
# NVMOND-VM-0000 is QEMU 7.2's own controller (no Device Self-test: OACS bit
# 4 is 0); NVMOND-VM-0001 gets self-tests from the test shim (selftest=yes: a
# short test of 8 s, an extended one of 20 s, progress advancing with time).
# Every admin command a controller refuses is logged by the shim
# (NVMOND_SHIM_STATUS_LOG): nvmond must send no Device Self-test to VM-0000.
#  1. The unsupported path: nvme-cli's id-ctrl OACS; the API says so; POST
#     gets 409, `nvmond selftest --short` exits 1; nothing was sent.
#  2. The CLI: `nvmond selftest --device SERIAL --short --wait --json`, the
#     API's running % sampled meanwhile; the result, origin "cli", and nvme-cli's
#     self-test-log (through the shim) to compare with the API's history.
#  3. A failure: the shim's selftest_result=7,3,123456; an extended test
#     through the API; the selftest_failed alert through the exec hook, once.
#  4. Aborts: by the API (no alert), then a test started and aborted by
#     nvme-cli (nvmond shows it running, then selftest_aborted, info).
#  5. A restart: no result stored twice, no alert sent again.
# Everything goes to $VM_OUT for the host to judge.
. /etc/vm/guest-lib.sh
set -u
out=$VM_OUT
base=$VM_NVMOND_URL
export NVMOND_SHIM_CONF=/tmp/nvme-shim.conf
status=/tmp/status.log
TOKEN=vm-selftest-token

fail() {
	echo "FAIL: $*"
	exit 1
}
log() { echo "selftests: $*"; }
BASE=$base
http() { vm_http "$@"; }
get() { curl -s "$base$1"; }
start_nvmond() { # start_nvmond LOG
	vm_nvmond_start /tmp/n.db "$1" LD_PRELOAD="$VM_SHIM" NVMOND_SHIM_STATUS_LOG="$status"
}
stop_nvmond() { # stop_nvmond N
	vm_stop "$VM_NVMOND_PID" "$out/daemon$1.rc"
}
dev_id() { # dev_id SERIAL - nvmond's id of the drive
	get /api/v1/devices | tr '{' '\n' | grep "\"serial\": *\"$1\"" | sed -n 's/.*"id": *\([0-9]*\).*/\1/p' |
		head -n 1
}
running() { get "/api/v1/devices/$1/selftests" | grep -q '"running": *{'; }
not_running() { ! running "$1"; }
history_has() { # history_has ID N - at least N results in the history
	[ "$(get "/api/v1/devices/$1/selftests?limit=1000" | grep -o '"result_code"' | wc -l)" -ge "$2" ]
}

vm_hook_install "$out/hook.log" NVMOND_STATE NVMOND_RULE NVMOND_SERIAL NVMOND_SEVERITY
: >"$status"
cat >"$NVMOND_SHIM_CONF" <<EOF
NVMOND-VM-0001 selftest=yes selftest_short_s=8 selftest_extended_s=20
EOF
vm_nvmond_conf /tmp/n.conf 1s '[http]' "token = $TOKEN" '[alerts]' 'exec = /tmp/hook.sh' \
	'exec_timeout = 5s' 'resolve_after = 1s'
c0=$(vm_ctrl_by_serial NVMOND-VM-0000)
c1=$(vm_ctrl_by_serial NVMOND-VM-0001)

# 1. The unsupported path.
nvme id-ctrl "/dev/$c0" -o json >"$out/id-ctrl0.json" 2>&1
LD_PRELOAD="$VM_SHIM" nvme id-ctrl "/dev/$c1" -o json >"$out/id-ctrl1.json" 2>&1
nvme self-test-log "/dev/$c0" -o json >"$out/qemu-self-test-log.txt" 2>&1
echo "rc=$?" >>"$out/qemu-self-test-log.txt"
start_nvmond "$out/daemon1.log"
d0=$(dev_id NVMOND-VM-0000)
d1=$(dev_id NVMOND-VM-0001)
[ -n "$d0" ] && [ -n "$d1" ] || fail "devices not found"
echo "$d0 $d1" >"$out/ids"
# Both were scanned (Identify read) once the first samples are in.
vm_until 30 0.5 sh -c "curl -s $base/api/v1/devices/$d1/selftests | grep -q '\"supported\": *true'" ||
	fail "VM-0001 never showed as supporting self-tests"
get "/api/v1/devices/$d0/selftests" >"$out/unsupported.json"
http post_unsupported POST "/api/v1/devices/$d0/selftests" '{"type": "short"}'
nvmond -c /tmp/n.conf --listen 127.0.0.1:9470 selftest --device NVMOND-VM-0000 --short \
	>"$out/cli_unsupported.out" 2>"$out/cli_unsupported.err"
echo $? >"$out/cli_unsupported.rc"
http post_bad POST "/api/v1/devices/$d1/selftests" '{"type": "long"}'
curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	--data '{"type": "short"}' "$base/api/v1/devices/$d1/selftests" >"$out/post_notoken.status"

# 2. A short test through the CLI, its progress sampled from the API.
(
	while :; do
		get "/api/v1/devices/$d1/selftests" | grep -o '"percent": *[0-9]*' | grep -o '[0-9]*$'
		sleep 0.5
	done
) >"$out/progress.txt" &
sampler=$!
t0=$(vm_uptime_ms)
nvmond -c /tmp/n.conf --listen 127.0.0.1:9470 selftest --device NVMOND-VM-0001 --short --wait --json \
	>"$out/cli_short.json" 2>"$out/cli_short.err"
echo $? >"$out/cli_short.rc"
echo $(($(vm_uptime_ms) - t0)) >"$out/cli_short_ms"
kill "$sampler"
LD_PRELOAD="$VM_SHIM" nvme self-test-log "/dev/$c1" -o json >"$out/self-test-log1.json" 2>&1
get "/api/v1/devices/$d1/selftests" >"$out/after_short.json"
wget -qO "$out/metrics_short.txt" "$base/metrics"
# A probe is refused while a test runs (and a second test too).
http start_ext0 POST "/api/v1/devices/$d1/selftests" '{"type": "extended"}'
http second POST "/api/v1/devices/$d1/selftests" '{"type": "short"}'
http probe_during POST "/api/v1/devices/$d1/probes" '{"preset": "seq1m-q1"}'
http abort_ext0 POST "/api/v1/devices/$d1/selftests/abort"
vm_until 20 0.5 not_running "$d1" || fail "the aborted test still runs"

# 3. A failure: segment 3, first failing LBA 123456.
cat >"$NVMOND_SHIM_CONF" <<EOF
NVMOND-VM-0001 selftest=yes selftest_short_s=8 selftest_extended_s=20 selftest_result=7,3,123456
EOF
http start_fail POST "/api/v1/devices/$d1/selftests" '{"type": "extended"}'
vm_wait_hook "firing selftest_failed" 60 || fail "no selftest_failed notification"
get "/api/v1/devices/$d1/selftests" >"$out/after_fail.json"
wget -qO "$out/metrics_fail.txt" "$base/metrics"
# nvmond reads the log once a minute while no test runs: nvme-cli's test
# lasts long enough to be seen running.
cat >"$NVMOND_SHIM_CONF" <<EOF
NVMOND-VM-0001 selftest=yes selftest_short_s=120 selftest_extended_s=20
EOF

# 4. Another tool starts and aborts a test: nvmond follows it and alerts (info).
LD_PRELOAD="$VM_SHIM" nvme device-self-test "/dev/$c1" --self-test-code=1 >"$out/nvme_start.txt" 2>&1
vm_until 90 0.5 running "$d1" || fail "nvmond did not see nvme-cli's test"
get "/api/v1/devices/$d1/selftests" >"$out/external_running.json"
LD_PRELOAD="$VM_SHIM" nvme device-self-test "/dev/$c1" --self-test-code=0xf >"$out/nvme_abort.txt" 2>&1
vm_wait_hook "firing selftest_aborted" 60 || fail "no selftest_aborted notification"
get "/api/v1/devices/$d1/selftests?limit=1000" >"$out/before_restart.json"
stop_nvmond 1

# 5. A restart: nothing stored twice, nothing sent again.
start_nvmond "$out/daemon2.log"
vm_until 30 0.5 sh -c "curl -s $base/api/v1/devices/$d1/selftests | grep -q '\"supported\": *true'" ||
	fail "VM-0001 not back"
# The log is read at the first poll after the start: wait for two polls' worth.
p0=$(vm_metric "$base" nvmond_polls_total)
vm_until 30 0.5 vm_metric_ge "$base" nvmond_polls_total $((p0 + 6)) || fail "polling stopped"
get "/api/v1/devices/$d1/selftests?limit=1000" >"$out/after_restart.json"
get /api/v1/alerts >"$out/alerts.json"
stop_nvmond 2
cp "$status" "$out/status.log"
echo done >"$out/guest.done"
