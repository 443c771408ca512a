#!/usr/bin/env bash
# A hung drive never stalls the daemon (issue 15 §2): the demo backend's test
# hook ($NVMOND_DEMO_HANG, demo.h) makes every command to demo1 block, as an
# admin command to a hung controller blocks in the kernel. With poll_interval
# 1s and device_timeout 1s:
#  - demo1 turns "unresponsive" (API state, nvmond_device_unresponsive 1, the
#    critical "unresponsive" alert) and is not offline;
#  - demo0 is still polled every interval (its latest sample advances, no gap
#    over 2.5 s), /healthz and /metrics answer within 0.5 s each;
#  - the watchdog is fed ($NOTIFY_SOCKET listener, WATCHDOG_USEC=6 s: pings
#    every 3 s, never 5.5 s apart, the same process throughout; the probe's
#    SMART read waits on the probe's own thread, not on the loop);
#  - a probe running on demo1 stops (its SMART read got no answer: its
#    temperature cannot be watched), a new probe or self-test is refused (409);
#  - once the line is gone the stuck command returns: demo1 is "online" again,
#    polled, the alert resolved, the gauge 0;
#  - the first timeout holds nothing either: reloaded with device_timeout 20s,
#    demo1 hangs for 6 s (released before its deadline). Its poll waits on its
#    worker while demo0 gets a sample every interval (no gap over 2 s),
#    /healthz and /metrics (gathered on the loop, through mainq) answer within
#    0.2 s, the watchdog pings go on (no gap over 4.5 s) and demo1 stays
#    "online"; once released, its read returns and it is polled again;
#  - nor does a self-test on a drive that hangs (the self-test service's log
#    reads and Device Self-test answered on the loop): with device_timeout 4s
#    and a short test running on demo1, demo1 hangs and a POST of a self-test
#    on it waits on its HTTP thread only: demo0's samples (no gap over 2 s),
#    /metrics within 1 s (also during that POST) and the watchdog go on, the
#    POST answers; released, the test is aborted through the API; stopped
#    while such a POST waits (device_timeout 30s), the daemon and the POST
#    end at once.
# Env: NVMOND_BIN (ctest).
set -u
for tool in curl python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"

TOKEN=hung-$RANDOM
cat > "$TMP/nvmond.conf" <<CONF
[daemon]
demo_history = no
poll_interval = 1s
device_timeout = 1s
[alerts]
resolve_after = 1s
[http]
token = $TOKEN
[probes]
lock_dir = $TMP/locks
phase_duration = 3s
CONF
cat > "$TMP/notify.py" << 'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "w", buffering=1) as f:
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            break
        for line in msg.split("\n"):
            f.write("%.3f %s\n" % (time.monotonic(), line))
        if "STOPPING=1" in msg.split("\n"):
            break
PY
python3 "$TMP/notify.py" "$TMP/notify.sock" "$TMP/notify.log" &
LISTENER=$!
trap 'kill "$LISTENER" 2>/dev/null; cleanup' EXIT
for _ in $(seq 50); do [ -S "$TMP/notify.sock" ] && break; sleep 0.1; done
: > "$TMP/hang"
export NVMOND_DEMO_HANG=$TMP/hang
NOTIFY_SOCKET=$TMP/notify.sock WATCHDOG_USEC=6000000 \
	start_daemon --demo -c "$TMP/nvmond.conf" --db "$TMP/nvmond.db"
PID0=$DAEMON_PID
wait_polls 2 10

# state NAME: the device's state in GET /api/v1/devices
state() {
	jq_py "$(http_get /api/v1/devices)" "print([d['state'] for d in j['devices'] if d['name'] == '$1'][0])"
}
is_state() { [ "$(state "$1")" = "$2" ]; }
# gauge NAME: nvmond_device_unresponsive of the drive
gauge() {
	http_get /metrics | grep '^nvmond_device_unresponsive{' | grep -F "device=\"$1\"" | awk '{ print $NF }'
}
# alert_active RULE DEVICE: the severity of the active alert of RULE on DEVICE, else "none"
alert_active() {
	jq_py "$(http_get /api/v1/alerts)" "
a = [x for x in j['active'] if x['rule'] == '$1' and x['device'] == '$2']
print(a[0]['severity'] if a else 'none')"
}

D1=$(demo_id demo1)
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q8"}')
[ "${out%% *}" = 202 ] || fail "probe on demo1: $out"
P=$(jq_py "${out#* }" "print(j['id'])")
wait_probe "$P" "j['state'] == 'running'" 10 > /dev/null

echo demo1 > "$TMP/hang"
T_HANG=$(date +%s.%N)
wait_for 10 is_state demo1 unresponsive || fail "demo1 not unresponsive within 10 s: $(state demo1)"
echo "ok: demo1 unresponsive after $(python3 -c "import time; print(round(time.time() - $T_HANG, 2))") s"
wait_log_for "\(demo1\) is unresponsive: an admin command got no answer within 1000 ms" 5
[ "$(gauge demo1)" = 1 ] || fail "nvmond_device_unresponsive of demo1: '$(gauge demo1)'"
[ "$(gauge demo0)" = 0 ] || fail "nvmond_device_unresponsive of demo0: '$(gauge demo0)'"
wait_for 5 eval '[ "$(alert_active unresponsive demo1)" = critical ]' ||
	fail "no critical unresponsive alert on demo1: $(http_get /api/v1/alerts)"
[ "$(state demo0)" = online ] || fail "demo0: $(state demo0)"
j=$(wait_probe "$P" "j['state'] != 'running'" 10)
jq_py "$j" "
assert j['state'] != 'done', j['state']
assert 'did not answer a SMART read in time' in j['reason'], j['reason']" ||
	fail "the probe on demo1 went on: $j"
echo "ok: the probe on demo1 stopped: $(jq_py "$j" "print(j['state'], '-', j['reason'])")"
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q8"}')
[ "${out%% *}" = 409 ] && [[ "$out" == *unresponsive* ]] || fail "probe on a hung drive: $out"
out=$(api_post "/api/v1/devices/$D1/selftests" '{"type":"short"}')
[ "${out%% *}" = 409 ] && [[ "$out" == *unresponsive* ]] || fail "self-test on a hung drive: $out"

# While demo1 hangs: demo0's latest sample every interval, /healthz and
# /metrics within 0.5 s, for 6 s.
python3 - "$PORT" << 'PY' || fail "the daemon stalled while demo1 hung"
import json, sys, time, urllib.request
port = sys.argv[1]
def get(path):
    t = time.monotonic()
    with urllib.request.urlopen("http://127.0.0.1:%s%s" % (port, path), timeout=5) as r:
        body = r.read()
    return body, time.monotonic() - t
seen, worst = [], {"/healthz": 0, "/metrics": 0}
end = time.monotonic() + 6
while time.monotonic() < end:
    for p in worst:
        worst[p] = max(worst[p], get(p)[1])
    devs = json.loads(get("/api/v1/devices")[0])["devices"]
    d0 = [d for d in devs if d["name"] == "demo0"][0]
    d1 = [d for d in devs if d["name"] == "demo1"][0]
    assert d1["state"] == "unresponsive" and d1["unresponsive"] and d1["online"], d1["state"]
    ts = d0["latest"]["ts_ms"]
    if not seen or seen[-1] != ts:
        seen.append(ts)
    time.sleep(0.1)
gaps = [(b - a) / 1000 for a, b in zip(seen, seen[1:])]
print("demo0 samples while demo1 hung: %d in 6 s, largest gap %.2f s; slowest /healthz %.3f s, /metrics %.3f s"
      % (len(seen), max(gaps), worst["/healthz"], worst["/metrics"]))
assert len(seen) >= 5, seen
assert max(gaps) <= 2.5, gaps
assert worst["/healthz"] < 0.5 and worst["/metrics"] < 0.5, worst
PY

# Released: the stuck command returns, demo1 answers again.
: > "$TMP/hang"
wait_for 10 is_state demo1 online || fail "demo1 did not recover within 10 s: $(state demo1)"
wait_log_for "\(demo1\) answers again" 5
wait_for 5 eval '[ "$(alert_active unresponsive demo1)" = none ]' ||
	fail "the unresponsive alert did not resolve: $(http_get /api/v1/alerts)"
[ "$(gauge demo1)" = 0 ] || fail "nvmond_device_unresponsive of demo1 after recovery: '$(gauge demo1)'"
T1=$(jq_py "$(http_get /api/v1/devices)" "print([d['latest']['ts_ms'] for d in j['devices'] if d['name'] == 'demo1'][0])")
wait_polls 4 10
T2=$(jq_py "$(http_get /api/v1/devices)" "print([d['latest']['ts_ms'] for d in j['devices'] if d['name'] == 'demo1'][0])")
[ "$T2" -gt "$T1" ] || fail "demo1 not polled after recovery ($T1 → $T2)"

# The first timeout: the poller never waits for a command (issue 15 §2).
sed -i 's/^device_timeout = 1s$/device_timeout = 20s/' "$TMP/nvmond.conf"
kill -HUP "$DAEMON_PID"
wait_log_for "configuration reloaded" 5
echo demo1 > "$TMP/hang"
python3 - "$PORT" "$TMP/notify.log" << 'PY' || fail "the daemon stalled during demo1's first timeout"
import json, sys, time, urllib.request
port, notify_log = sys.argv[1], sys.argv[2]
def get(path):
    t = time.monotonic()
    try:
        with urllib.request.urlopen("http://127.0.0.1:%s%s" % (port, path), timeout=3) as r:
            body = r.read()
    except OSError:
        body = None  # no answer within 3 s
    return body, time.monotonic() - t
start = time.monotonic()
seen, states, worst = [], set(), {"/healthz": 0, "/metrics": 0}
while time.monotonic() < start + 6:
    for p in worst:
        worst[p] = max(worst[p], get(p)[1])
    body = get("/api/v1/devices")[0]
    if body:
        devs = {d["name"]: d for d in json.loads(body)["devices"]}
        states.add(devs["demo1"]["state"])
        ts = devs["demo0"]["latest"]["ts_ms"]
        if not seen or seen[-1] != ts:
            seen.append(ts)
    time.sleep(0.1)
end = time.monotonic()
# Between demo0's samples, and from the last one to the end of the window.
gaps = [(b - a) / 1000 for a, b in zip(seen, seen[1:] + [time.time() * 1000])]
gaps = gaps or [float("inf")]
pings = [float(l.split()[0]) for l in open(notify_log) if l.split()[1:] == ["WATCHDOG=1"]]
pings = [t for t in pings if start - 4 <= t <= end]
wd = [b - a for a, b in zip(pings, pings[1:])] + [end - pings[-1] if pings else float("inf")]
print("during demo1's first 6 s of device_timeout 20 s: demo0 %d samples, largest gap %.2f s; "
      "slowest /healthz %.3f s, /metrics %.3f s; watchdog largest gap %.2f s; demo1 %s"
      % (len(seen), max(gaps), worst["/healthz"], worst["/metrics"], max(wd), sorted(states)))
assert len(seen) >= 5 and max(gaps) <= 2.0, (seen, gaps)
assert worst["/healthz"] <= 0.2 and worst["/metrics"] <= 0.2, worst
assert max(wd) <= 4.5, pings
assert states == {"online"}, states
PY
T1=$(jq_py "$(http_get /api/v1/devices)" "print([d['latest']['ts_ms'] for d in j['devices'] if d['name'] == 'demo1'][0])")
: > "$TMP/hang"
demo1_after() {
	[ "$(jq_py "$(http_get /api/v1/devices)" "print([d['latest']['ts_ms'] for d in j['devices'] if d['name'] == 'demo1'][0])")" -gt "$T1" ]
}
wait_for 10 demo1_after || fail "demo1 not polled once released"
[ "$(state demo1)" = online ] || fail "demo1 after its slow read: $(state demo1)"

# A self-test on a drive that hangs: the self-test service never waits for a
# drive on the loop either (its log 06h reads and Device Self-test go to the
# controller's worker, answered on the loop). Reloaded with device_timeout 4s,
# demo1 runs a short self-test (read at every poll), then hangs; a POST of a
# self-test on demo1 half a second later waits for demo1's worker on its HTTP
# thread only: for 7 s demo0 gets a sample every interval (no gap over 2 s),
# /metrics answers within 1 s (also while that POST waits), the watchdog pings
# go on (no gap over 4.5 s), and the POST answers (no answer within
# device_timeout, or unresponsive). Released, demo1's test is aborted
# through the API.
sed -i 's/^device_timeout = 20s$/device_timeout = 4s/' "$TMP/nvmond.conf"
kill -HUP "$DAEMON_PID"
wait_for 5 eval '[ "$(grep -c "configuration reloaded" "$DAEMON_LOG")" -ge 2 ]' ||
	fail "the second reload was not logged"
out=$(api_post "/api/v1/devices/$D1/selftests" '{"type":"short"}')
[ "${out%% *}" = 202 ] || [[ "$out" == "409 "*"already running"* ]] ||
	fail "self-test on demo1: $out"
st_running() {
	jq_py "$(http_get "/api/v1/devices/$D1/selftests")" "assert j['running'] is not None" 2> /dev/null
}
wait_for 10 st_running || fail "no self-test running on demo1: $(http_get "/api/v1/devices/$D1/selftests")"
echo "ok: a self-test runs on demo1: $(jq_py "$(http_get "/api/v1/devices/$D1/selftests")" "print(j['running']['type'])")"
echo demo1 > "$TMP/hang"
python3 - "$PORT" "$TMP/notify.log" "$TOKEN" "$D1" << 'PY' || fail "the daemon stalled during a self-test on a hung drive"
import json, sys, threading, time, urllib.error, urllib.request
port, notify_log, token, d1 = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
base = "http://127.0.0.1:%s" % port
def get(path):
    t = time.monotonic()
    try:
        with urllib.request.urlopen(base + path, timeout=10) as r:
            body = r.read()
    except OSError:
        body = None  # no answer within 10 s
    return body, time.monotonic() - t
post = {}
def do_post():
    time.sleep(0.5)
    req = urllib.request.Request(base + "/api/v1/devices/%s/selftests" % d1,
                                 data=b'{"type":"short"}', method="POST",
                                 headers={"Authorization": "Bearer " + token,
                                          "Content-Type": "application/json"})
    t = time.monotonic()
    post["start"] = t
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            post["status"], post["body"] = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        post["status"], post["body"] = e.code, e.read().decode()
    except OSError as e:
        post["status"], post["body"] = None, str(e)
    post["end"] = time.monotonic()
    post["took"] = post["end"] - t
th = threading.Thread(target=do_post)
start = time.monotonic()
th.start()
seen, metrics = [], []  # metrics: (sent, took) of each GET /metrics
while time.monotonic() < start + 7:
    t = time.monotonic()
    body, took = get("/metrics")
    metrics.append((t, took if body else float("inf")))
    body = get("/api/v1/devices")[0]
    if body:
        devs = {d["name"]: d for d in json.loads(body)["devices"]}
        ts = devs["demo0"]["latest"]["ts_ms"]
        if not seen or seen[-1] != ts:
            seen.append(ts)
    time.sleep(0.1)
end = time.monotonic()
th.join(30)
worst = max(took for _, took in metrics)
# The GETs that overlapped the POST (from another client, meanwhile).
worst_during = max([took for t, took in metrics
                    if t < post.get("end", end) and t + took > post.get("start", end)] or [0])
gaps = [(b - a) / 1000 for a, b in zip(seen, seen[1:] + [time.time() * 1000])]
gaps = gaps or [float("inf")]
pings = [float(l.split()[0]) for l in open(notify_log) if l.split()[1:] == ["WATCHDOG=1"]]
pings = [t for t in pings if start - 4 <= t <= end]
wd = [b - a for a, b in zip(pings, pings[1:])] + [end - pings[-1] if pings else float("inf")]
print("self-test on demo1, hung for 7 s (device_timeout 4 s): demo0 %d samples, largest gap "
      "%.2f s; slowest /metrics %.3f s (%.3f s while the POST waited); watchdog largest gap "
      "%.2f s; POST …/selftests on demo1: %s after %.2f s: %s"
      % (len(seen), max(gaps), worst, worst_during, max(wd), post.get("status"),
         post.get("took", -1), post.get("body", "")[:160]))
assert len(seen) >= 5 and max(gaps) <= 2.0, (seen, gaps)
assert worst < 1.0 and worst_during < 1.0, (worst, worst_during)
assert max(wd) <= 4.5, pings
assert post.get("status") in (409, 500, 503), post
assert "device_timeout" in post["body"] or "timed out" in post["body"] or \
    "unresponsive" in post["body"], post
PY
: > "$TMP/hang"
wait_for 15 is_state demo1 online || fail "demo1 did not recover within 15 s: $(state demo1)"
out=$(api_post "/api/v1/devices/$D1/selftests/abort" '{}')
[ "${out%% *}" = 200 ] || fail "abort on demo1 once released: $out"
echo "ok: demo1's self-test aborted once released: $out"

[ "$DAEMON_PID" = "$PID0" ] && kill -0 "$DAEMON_PID" || fail "the daemon is not the one started"
# Stopped while a self-test POST waits for hung demo1 (device_timeout 30s):
# the daemon exits at once, the POST ends (503 "shutting down", or its
# connection closed when the HTTP server stops first), never waits on.
sed -i 's/^device_timeout = 4s$/device_timeout = 30s/' "$TMP/nvmond.conf"
kill -HUP "$DAEMON_PID"
wait_for 5 eval '[ "$(grep -c "configuration reloaded" "$DAEMON_LOG")" -ge 3 ]' ||
	fail "the third reload was not logged"
echo demo1 > "$TMP/hang"
rm -f "$TMP/post.out"
api_post "/api/v1/devices/$D1/selftests" '{"type":"short"}' > "$TMP/late.out" 2> /dev/null &
POSTER=$!
sleep 1 # the POST reaches the daemon and waits for demo1
T_STOP=$(date +%s.%N)
stop_daemon
wait "$POSTER"
T_STOP=$(python3 -c "import time; print(round(time.time() - $T_STOP, 2))")
out=$(cat "$TMP/late.out")
echo "ok: stopped while a self-test POST waited for demo1: the daemon and the POST ended after $T_STOP s, the POST: $out"
python3 -c "assert $T_STOP < 10" || fail "stopping took $T_STOP s"
[[ "$out" == "503 "*"shutting down"* || "$out" == "000 "* ]] || fail "the POST waiting at shutdown: $out"
: > "$TMP/hang"
wait "$LISTENER" || fail "notify listener failed"
python3 - "$TMP/notify.log" << 'PY' || fail "watchdog pings too far apart: $(cat "$TMP/notify.log")"
import sys
t = [float(l.split()[0]) for l in open(sys.argv[1]) if l.split()[1:] == ["WATCHDOG=1"]]
gaps = [b - a for a, b in zip(t, t[1:])]
print("watchdog: %d pings, largest gap %.2f s (WATCHDOG_USEC 6 s)" % (len(t), max(gaps)))
assert len(t) >= 4 and max(gaps) < 5.5, gaps
PY
pass
