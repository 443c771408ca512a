#!/usr/bin/env bash
# The fleet (issue 24) against the real engines Debian ships: three demo daemons of 32
# drives each, with their own host_name and host labels, reach one VictoriaMetrics by
# each of the ways docs/fleet.md describes:
#   alpha  is scraped by Prometheus,
#   beta   pushes by remote write to Prometheus,
#   gamma  pushes by remote write to VictoriaMetrics,
#   and Prometheus forwards what it holds (alpha scraped, beta received) to
#   VictoriaMetrics by its own remote_write: VictoriaMetrics holds all three.
# alpha's [fleet] query_url is VictoriaMetrics: its GET /api/v1/fleet lists the 96 drives
# under their 3 hosts as each daemon itself lists them, with their labels and health;
# beta's is Prometheus: it lists alpha and beta (Prometheus's query API). The Fleet page in
# chromium (tests/dashboard/fleet.test.js): the 96 drives under their hosts, labels,
# problems first, filters; beta stopped: shown not reporting within two intervals;
# VictoriaMetrics stopped (SIGSTOP): the message and the last good answer; gamma (no
# query_url): how to set it up.
# Skips (77) without an engine, node or chromium; with CI=true (.ci/deps installs them
# all) those fail instead.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
skip() {
	[ "${CI:-}" = true ] && fail "CI must run this test, but: $*"
	echo "SKIP: $*"
	exit 77
}
for tool in prometheus victoria-metrics node npm; do
	command -v "$tool" > /dev/null || skip "$tool not installed (Debian packages prometheus, victoria-metrics, nodejs, npm; see .ci/deps)"
done
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium not installed (Debian package chromium; see .ci/deps)"
. "$(dirname "$0")/dashboard_env.sh"
mkdir -p "$ARTIFACTS"
rm -f "$ARTIFACTS"/fleet-*.png

# Every host reports each INTERVAL (its poll and push, Prometheus's scrape). A host is not
# reporting once its newest sample is STALE_AFTER old: above INTERVAL plus the path's
# delay (a push through Prometheus arrived up to 5.2 s after the last one here, alpha's
# scrape 4.7 s, gamma's push 4.3 s). alpha takes its view of the fleet every second
# (its poll_interval) and the page asks every second, so a stopped host shows within
# STALE_AFTER + 2 s of its last sample: within two intervals of being stopped.
INTERVAL=5
STALE_AFTER=6500ms
PIDS=()
kill_all() {
	local i
	# The daemons first, then Prometheus (SIGKILL: it would wait a minute to flush its
	# remote write), then VictoriaMetrics (the test's data, nothing to keep).
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
		kill -CONT "${PIDS[i]}" 2> /dev/null || true
		if [ "$i" -le 1 ]; then kill -9 "${PIDS[i]}" 2> /dev/null || true; else kill "${PIDS[i]}" 2> /dev/null || true; fi
	done
	for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null || true; done
	cleanup
}
trap kill_all EXIT

VM_PORT=$(free_port) PROM_PORT=$(free_port)
A_PORT=$(free_port) B_PORT=$(free_port) C_PORT=$(free_port)
VM=http://127.0.0.1:$VM_PORT PROM=http://127.0.0.1:$PROM_PORT

victoria-metrics -storageDataPath="$TMP/vm" -httpListenAddr="127.0.0.1:$VM_PORT" \
	-retentionPeriod=1d > "$TMP/vm.log" 2>&1 &
VM_PID=$!
PIDS+=("$VM_PID")
cat > "$TMP/prometheus.yml" << EOF
global:
  scrape_interval: ${INTERVAL}s
scrape_configs:
  - job_name: nvmond
    static_configs:
      - targets: ['127.0.0.1:$A_PORT']
remote_write:
  - url: $VM/api/v1/write
    queue_config:
      batch_send_deadline: 1s
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-remote-write-receiver \
	> "$TMP/prometheus.log" 2>&1 &
PIDS+=($!)

# daemon NAME PORT ENV RACK POLL EXTRA: a demo daemon of 32 drives, its config in $TMP/NAME.conf.
daemon() {
	local name=$1 port=$2 env=$3 rack=$4 poll=$5 extra=$6
	cat > "$TMP/$name.conf" << EOF
[daemon]
database = $TMP/$name.db
demo = yes
demo_drives = 32
demo_history = no
poll_interval = $poll
web_root = $NVMOND_SRC/web
host_name = $name
host_labels = env=$env, rack=$rack
public_url = http://127.0.0.1:$port/
[probes]
lock_dir = $TMP/locks-$name
[device "DEMO980PRO00002"]
label = scratch
location = bay 2
$extra
EOF
	# Three hosts, three machine ids (NVMOND_MACHINE_ID: the file read for host_id).
	python3 -c 'import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest())' "$name" > "$TMP/$name.machine-id"
	NVMOND_MACHINE_ID=$TMP/$name.machine-id \
		"$NVMOND_BIN" --listen "127.0.0.1:$port" -c "$TMP/$name.conf" >> "$TMP/$name.log" 2>&1 &
	PIDS+=($!)
	eval "${name^^}_PID=$!"
}
daemon alpha "$A_PORT" prod r1 1s "[fleet]
query_url = $VM
stale_after = $STALE_AFTER
timeout = 2s"
daemon beta "$B_PORT" prod r2 "${INTERVAL}s" "[export \"prometheus\"]
type = remote_write
url = $PROM/api/v1/write
interval = ${INTERVAL}s
[fleet]
query_url = $PROM
stale_after = $STALE_AFTER"
daemon gamma "$C_PORT" lab r3 "${INTERVAL}s" "[export \"vm\"]
type = remote_write
url = $VM/api/v1/write
interval = ${INTERVAL}s"
for p in $A_PORT $B_PORT $C_PORT; do
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$p/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
done
for n in alpha beta gamma; do
	if grep -Eq "unknown (section \[export|key 'host_(name|labels)')" "$TMP/$n.log"; then
		skip "this nvmond has no host labels or [export] (remote write: issue 24 parts 1-2)"
	fi
	pid=${n^^}_PID
	kill -0 "${!pid}" 2> /dev/null || { DAEMON_LOG=$TMP/$n.log; fail "$n exited at start"; }
done
for _ in $(seq 100); do curl -fs "$VM/health" > /dev/null 2>&1 && break; sleep 0.1; done

# fleet_has URL HOSTS DRIVES: the daemon's fleet view lists that many, every host reporting.
fleet_has() {
	curl -fs --max-time 10 "$1/api/v1/fleet" 2> /dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
sys.exit(0 if (j["hosts_count"], j["drives_count"], j["not_reporting"]) == (int(sys.argv[1]), int(sys.argv[2]), 0) else 1)
' "$2" "$3"
}
t0=$(date +%s.%N)
wait_for 60 fleet_has "http://127.0.0.1:$A_PORT" 3 96 ||
	fail "alpha's fleet view (VictoriaMetrics) has not 3 hosts and 96 drives after 60 s: $(curl -fs "http://127.0.0.1:$A_PORT/api/v1/fleet" | head -c 600)"
echo "ok: VictoriaMetrics holds the three hosts (scraped, pushed via Prometheus, pushed) after $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
wait_for 30 fleet_has "http://127.0.0.1:$B_PORT" 2 64 ||
	fail "beta's fleet view (Prometheus) has not 2 hosts and 64 drives: $(curl -fs "http://127.0.0.1:$B_PORT/api/v1/fleet" | head -c 600)"
echo "ok: Prometheus's query API: alpha and beta, 64 drives"

# The API against each daemon's own: its drives (serial, label, location), its host
# labels and public_url, each drive's health as its /metrics says (read between two
# fleet answers that agree: a demo drive may change meanwhile).
python3 - "$A_PORT" "alpha:$A_PORT" "beta:$B_PORT" "gamma:$C_PORT" << 'EOF' || fail "the fleet view disagrees with the daemons"
import json, re, sys, time, urllib.request
get = lambda url: urllib.request.urlopen(url, timeout=10).read().decode()
viewer = "http://127.0.0.1:%s" % sys.argv[1]
hosts = [a.split(":") for a in sys.argv[2:]]
labels = {"alpha": {"env": "prod", "rack": "r1"}, "beta": {"env": "prod", "rack": "r2"}, "gamma": {"env": "lab", "rack": "r3"}}
def health(port):
    text = get("http://127.0.0.1:%s/metrics" % port)
    return {m[0]: m[1] for m in re.findall(r'^nvmond_device_health\{device="[^"]*",model="[^"]*",serial="([^"]*)",state="([^"]*)"\} 1$', text, re.M)}
for attempt in range(30):
    f = json.loads(get(viewer + "/api/v1/fleet"))
    served = {name: health(port) for name, port in hosts}
    bad, host_ids = [], set()
    for name, port in hosts:
        h = [x for x in f["hosts"] if x["host"] == name]
        assert len(h) == 1, (name, [x["host"] for x in f["hosts"]])
        h = h[0]
        assert h["labels"] == labels[name], (name, h["labels"])
        assert h["public_url"] == "http://127.0.0.1:%s/" % port, h["public_url"]
        assert len(h["host_id"]) == 32 and h["reporting"], h
        host_ids.add(h["host_id"])
        devs = json.loads(get("http://127.0.0.1:%s/api/v1/devices" % port))["devices"]
        want = sorted((d["name"], d["serial"], d["label"] or "", d["location"] or "") for d in devs)
        got = sorted((d["device"], d["serial"], d["label"], d["location"]) for d in h["drives"])
        assert got == want, (name, got[:3], want[:3])
        for d in h["drives"]:
            if served[name].get(d["serial"]) != d["verdict"]:
                bad.append((name, d["device"], d["verdict"], served[name].get(d["serial"])))
    if not bad:
        break
    time.sleep(1)
else:
    sys.exit("verdicts differ from /metrics: %s" % bad[:5])
assert len(host_ids) == 3, host_ids
order = [x["worst"] for x in f["hosts"]]
print("ok: 3 hosts as configured, 96 drives as the daemons list them, each drive's health as its /metrics; hosts by health: %s" % order)
EOF

# The page in chromium. beta is stopped during it: it must show as not reporting within
# two intervals; then VictoriaMetrics hangs (SIGSTOP) until the page says so.
t_node=$(date +%s)
FLEET_URL="http://127.0.0.1:$A_PORT" HOSTS=3 DRIVES=96 ARTIFACTS="$ARTIFACTS" \
	HOST_LABELS="{\"alpha\": {\"env\": \"prod\", \"rack\": \"r1\"}, \"beta\": {\"env\": \"prod\", \"rack\": \"r2\"}, \"gamma\": {\"env\": \"lab\", \"rack\": \"r3\"}}" \
	STOP_PID="$BETA_PID" STOP_HOST=beta STOP_LIMIT_MS=$((2 * INTERVAL * 1000)) \
	ENGINE_PID="$VM_PID" ENGINE_DOWN_MS=15000 SETUP_URL="http://127.0.0.1:$C_PORT" \
	timeout 180 node "$NODE_DIR/fleet.test.js" || fail "fleet browser test (screenshots in $ARTIFACTS)"
echo "ok: the browser part took $(($(date +%s) - t_node)) s"
pass
