#!/usr/bin/env bash
# The MQTT delivery against a real mosquitto broker (Debian's mosquitto and
# mosquitto-clients), with username/password required:
#  - the publisher starts before the broker and connects once it is up (reconnect);
#  - mosquitto_sub sees the retained states, the Home Assistant discovery configs
#    and "online" on the availability topic;
#  - an alert event arrives, not retained;
#  - after kill -9 of the publisher, the broker publishes the last will: "offline",
#    retained; a clean stop says "offline" too.
# Then the daemon itself (demo drives) with a [sink] of type mqtt: alert events (its
# rules filter applied), a test event, the discovery configs of each drive, the retained
# states (agreeing with GET /api/v1/devices), a new publisher on SIGHUP, the last will
# after kill -9, the password (password_file) nowhere in the log, the API or /metrics.
set -u
. "$(dirname "$0")/lib.sh"
SINK=${NVMOND_TEST_SINK:-}
[ -x "$SINK" ] || { echo "SKIP: no nvmond-test-sink (set NVMOND_TEST_SINK)"; exit 77; }
MOSQUITTO=$(command -v mosquitto || ls /usr/sbin/mosquitto 2> /dev/null)
for t in "$MOSQUITTO" mosquitto_sub mosquitto_passwd; do
	command -v "$t" > /dev/null || { echo "SKIP: ${t:-mosquitto} is not installed (mosquitto, mosquitto-clients in .ci/deps)"; exit 77; }
done

PIDS=()
stop_all() {
	for pid in "${PIDS[@]}"; do kill -9 "$pid" 2> /dev/null; done
	cleanup
}
trap stop_all EXIT

BPORT=$(free_port)
USER=nvmond
PASS='br0ker pass'
mosquitto_passwd -b -c "$TMP/passwd" "$USER" "$PASS" 2> /dev/null || fail "mosquitto_passwd"
cat > "$TMP/mosquitto.conf" << EOF
listener $BPORT 127.0.0.1
allow_anonymous false
password_file $TMP/passwd
persistence false
log_dest stdout
# Started as root, mosquitto drops to user "mosquitto", who cannot read $TMP.
user $(id -un)
EOF
# A second listener with TLS, certificates from a CA of the test's own.
. "$(dirname "$0")/certs.sh"
TLS_PORT=
if command -v openssl > /dev/null && make_certs "$TMP/certs"; then
	TLS_PORT=$(free_port)
	cat >> "$TMP/mosquitto.conf" <<- EOF
		listener $TLS_PORT 127.0.0.1
		cafile $TMP/certs/ca.pem
		certfile $TMP/certs/server.pem
		keyfile $TMP/certs/server.key
	EOF
fi
SUB=(mosquitto_sub -h 127.0.0.1 -p "$BPORT" -u "$USER" -P "$PASS")

# start_pub NAME PASSWORD: the test driver in the background, its output in $TMP/NAME.out.
start_pub() {
	"$SINK" mqtt 127.0.0.1 "$BPORT" nas.local "$USER" "$2" > "$TMP/$1.out" 2> "$TMP/$1.err" &
	PUB=$!
	PIDS+=("$PUB")
}

# The publisher first: nothing listens yet, so it must retry.
start_pub pub1 "$PASS"
P1=$PUB
"$MOSQUITTO" -c "$TMP/mosquitto.conf" > "$TMP/mosquitto.log" 2>&1 &
PIDS+=($!)
wait_for 20 grep -q '^ready' "$TMP/pub1.out" ||
	fail "publisher not ready within 20 s: $(cat "$TMP/pub1.err"; tail -5 "$TMP/mosquitto.log" 2> /dev/null)"

# Retained: 1 status + 2 drives × (7 discovery + 6 states) = 27 messages.
"${SUB[@]}" -v -C 27 -W 10 --retained-only -t 'nvmond/#' -t 'homeassistant/#' > "$TMP/retained" ||
	fail "fewer than 27 retained messages: $(cat "$TMP/retained")"
python3 - "$TMP/retained" << 'EOF' || fail "retained messages wrong: $(cat "$TMP/retained")"
import json, sys
msgs = {}
for line in open(sys.argv[1], encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    msgs[topic] = payload
# Availability and states (serials made topic-safe: "/", " ", "+", "#" become "_").
assert msgs["nvmond/nas_local/status"] == "online"
want = {"temperature": "41", "percentage_used": "3", "data_written": "12.000",
        "available_spare": "100", "throttling": "OFF", "problem": "OFF"}
for k, v in want.items():
    assert msgs["nvmond/nas_local/S64D_NF0_R12/" + k] == v, k
assert msgs["nvmond/nas_local/PHBT1234__/temperature"] == "85"
assert msgs["nvmond/nas_local/PHBT1234__/throttling"] == "ON"
# Home Assistant discovery, per https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery
t = json.loads(msgs["homeassistant/sensor/nvmond_S64D_NF0_R12/temperature/config"])
assert t["state_topic"] == "nvmond/nas_local/S64D_NF0_R12/temperature"
assert t["availability_topic"] == "nvmond/nas_local/status"
assert t["device_class"] == "temperature" and t["unit_of_measurement"] == "°C"
assert t["state_class"] == "measurement" and t["unique_id"] == "nvmond_S64D_NF0_R12_temperature"
d = t["device"]
assert d["identifiers"] == ["nvmond_S64D_NF0_R12"] and d["model"] == "Samsung SSD 980 1TB"
assert d["manufacturer"] == "Samsung" and d["sw_version"] == "3B4QFXO7"
b = json.loads(msgs["homeassistant/binary_sensor/nvmond_PHBT1234__/problem/config"])
assert b["device_class"] == "problem" and b["state_topic"] == "nvmond/nas_local/PHBT1234__/problem"
w = json.loads(msgs["homeassistant/sensor/nvmond_PHBT1234__/data_written/config"])
assert w["device_class"] == "data_size" and w["unit_of_measurement"] == "TB"
ev = json.loads(msgs["homeassistant/event/nvmond_S64D_NF0_R12/event/config"])
assert ev["state_topic"] == "nvmond/nas_local/S64D_NF0_R12/event" and "firing" in ev["event_types"]
assert sum(1 for k in msgs if k.startswith("homeassistant/")) == 14
EOF

# An event: subscribe, then ask for one; it arrives once, not retained.
"${SUB[@]}" -v -C 1 -W 10 -F '%r %t %p' -t 'nvmond/nas_local/+/event' > "$TMP/event" &
EV_SUB=$!
PIDS+=("$EV_SUB")
# mosquitto_sub has no "subscribed" signal: ask again until it has got one (each
# request is answered by one event, printed by the driver once sent).
for _ in $(seq 40); do
	kill -USR1 "$P1"
	[ -s "$TMP/event" ] && break
	sleep 0.25
done
wait "$EV_SUB" || fail "no event within 10 s"
python3 - "$TMP/event" << 'EOF' || fail "event wrong: $(cat "$TMP/event")"
import json, sys
retain, topic, payload = open(sys.argv[1]).read().rstrip("\n").split(" ", 2)
assert retain == "0" and topic == "nvmond/nas_local/S64D_NF0_R12/event", (retain, topic)
e = json.loads(payload)
assert e["rule"] == "temperature_critical" and e["state"] == "firing" and e["host"] == "nas.local", e
assert e["event_type"] == "firing", e
EOF
wait_for 5 grep -q '^events [1-9]' "$TMP/pub1.out" || fail "events sent not counted: $(cat "$TMP/pub1.out")"
"${SUB[@]}" -C 1 -W 1 --retained-only -t 'nvmond/nas_local/+/event' > "$TMP/ev_ret" 2> /dev/null
[ ! -s "$TMP/ev_ret" ] || fail "an event was retained: $(cat "$TMP/ev_ret")"

# A new snapshot: the states again (retained, the new value), the discovery configs not
# (once per connection): 12 messages more, not 26.
BEFORE=$(awk '/^published/{n=$2} END{print n}' "$TMP/pub1.out")
kill -USR2 "$P1"
wait_for 10 sh -c "[ \"\$(mosquitto_sub -h 127.0.0.1 -p $BPORT -u $USER -P '$PASS' -C 1 -W 2 -t nvmond/nas_local/S64D_NF0_R12/temperature)\" = 42 ]" ||
	fail "the new temperature was not published"
wait_for 5 grep -q "^published $((BEFORE + 12))\$" "$TMP/pub1.out" ||
	fail "a new snapshot: $(tail -1 "$TMP/pub1.out"), expected published $((BEFORE + 12))"

# kill -9: the broker publishes the will, "offline", retained.
"${SUB[@]}" -C 2 -W 15 -t nvmond/nas_local/status > "$TMP/status" &
ST_SUB=$!
PIDS+=("$ST_SUB")
wait_for 5 test -s "$TMP/status" || fail "no retained status"
kill -9 "$P1"
wait "$ST_SUB" || fail "no last will within 15 s: $(cat "$TMP/status")"
[ "$(cat "$TMP/status")" = $'online\noffline' ] || fail "status: $(cat "$TMP/status")"
[ "$("${SUB[@]}" -C 1 -W 5 -t nvmond/nas_local/status)" = offline ] || fail "will not retained"

# A clean stop: "offline" from the publisher itself (a clean DISCONNECT sends no will).
start_pub pub2 "$PASS"
wait_for 10 grep -q '^ready' "$TMP/pub2.out" || fail "second publisher not ready"
[ "$("${SUB[@]}" -C 1 -W 5 -t nvmond/nas_local/status)" = online ] || fail "not online again"
kill -TERM "$PUB"
wait "$PUB" || fail "publisher exited $? on SIGTERM"
[ "$("${SUB[@]}" -C 1 -W 5 -t nvmond/nas_local/status)" = offline ] || fail "no offline after a clean stop"

# TLS: the publisher checks the broker's certificate against the CA file.
if [ -n "$TLS_PORT" ]; then
	NVMOND_TEST_CA=$TMP/certs/ca.pem "$SINK" mqtt 127.0.0.1 "$TLS_PORT" nas.local "$USER" "$PASS" \
		> "$TMP/tls.out" 2> "$TMP/tls.err" &
	PIDS+=($!)
	wait_for 10 grep -q '^ready' "$TMP/tls.out" || fail "no TLS connection: $(cat "$TMP/tls.out" "$TMP/tls.err")"
	kill -TERM $!
else
	echo "NOTE: no openssl: TLS not checked"
fi

# Wrong password: the broker refuses it, the publisher retries (a second refusal), never ready.
start_pub pub3 wrong
wait_for 10 grep -q '^lost 2 .*not authorised' "$TMP/pub3.out" ||
	fail "no second refused attempt: $(cat "$TMP/pub3.out")"
! grep -q '^ready' "$TMP/pub3.out" || fail "connected with a wrong password"

# ---- The daemon itself (demo drives) with a [sink] of type mqtt, its password from a
# file. warning_margin = 50 makes both demo drives fire temperature_warning (as in
# test_sinks.sh); demo0 also throttles, which the sink's rules filter out of the events.
command -v mosquitto_pub > /dev/null || fail "mosquitto_pub missing (mosquitto-clients)"
H=$(python3 -c 'import re, socket; print(re.sub("[^A-Za-z0-9_-]", "_", socket.gethostname()) or "unknown")')
printf '%s\n' "$PASS" > "$TMP/broker.pw"
chmod 600 "$TMP/broker.pw"
TOKEN="t0k-$RANDOM$RANDOM"
# Beside the broker's connection, an exec hook and a webhook (issue 23 §5: a hook inherited
# libmosquitto's socket pair and the broker connection, and wrote a PUBLISH to one). The
# hook execs ls on its own descriptors; the webhook's receiver answers after 2 s, so that
# its connection is open while the hooks run.
cat > "$TMP/fdhook.sh" << EOF
#!/bin/sh
exec ls -l /proc/self/fd > "$TMP/hookfds.\$\$"
EOF
chmod 755 "$TMP/fdhook.sh"
WH_PORT=$(free_port)
python3 - "$WH_PORT" > /dev/null 2>&1 << 'PYEOF2' &
import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(2)
        self.send_response(204)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PYEOF2
PIDS+=($!)
cat > "$TMP/nvmond.conf" << EOF
[daemon]
database = $TMP/mqtt.db
poll_interval = 1s
demo = yes
[http]
token = $TOKEN
[alerts]
warning_margin = 50
exec = $TMP/fdhook.sh
webhook = http://127.0.0.1:$WH_PORT/hook
[sink "ha"]
type = mqtt
host = 127.0.0.1
port = $BPORT
username = $USER
password_file = $TMP/broker.pw
keepalive = 10s
rules = temperature_warning
EOF
# Events are not retained: a subscriber first, known to be subscribed once it sees a
# message of its own on a sync topic.
"${SUB[@]}" -v -R -t "nvmond/$H/+/event" -t "nvmond/$H/event" -t "nvmond-test/sync" > "$TMP/devents" &
PIDS+=($!)
for _ in $(seq 50); do
	mosquitto_pub -h 127.0.0.1 -p "$BPORT" -u "$USER" -P "$PASS" -t nvmond-test/sync -m x
	grep -q '^nvmond-test/sync' "$TMP/devents" && break
	sleep 0.1
done
grep -q '^nvmond-test/sync' "$TMP/devents" || fail "the event subscriber did not subscribe"
start_daemon -c "$TMP/nvmond.conf"
wait_log_for "sink ha: connected to the mqtt broker" 10
wait_for 15 sh -c "[ \$(grep -c '\"temperature_warning\"' '$TMP/devents') -ge 2 ]" ||
	fail "no temperature_warning events from the daemon: $(cat "$TMP/devents")"
code=$(curl -s -o "$TMP/t.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	"http://127.0.0.1:$PORT/api/v1/alerts/test?sink=ha")
[ "$code" = 200 ] || fail "test?sink=ha: $code $(cat "$TMP/t.json")"
wait_for 10 grep -q "^nvmond/$H/event " "$TMP/devents" || fail "no test event: $(cat "$TMP/devents")"
http_get /api/v1/devices > "$TMP/devices.json"
python3 - "$TMP/devents" "$TMP/devices.json" "$H" << 'PYEOF' || fail "daemon events: $(cat "$TMP/devents")"
import json, sys
devs = {d["serial"].strip(): d for d in json.load(open(sys.argv[2]))["devices"]}
h = sys.argv[3]
seen = set()
for line in open(sys.argv[1]):
    topic, _, payload = line.rstrip("\n").partition(" ")
    if topic.startswith("nvmond-test/"):
        continue
    e = json.loads(payload)
    assert e["rule"] != "throttling", "the rules filter let an event through: %s" % e
    if topic == "nvmond/%s/event" % h:
        assert e["state"] == "test", e
        continue
    serial = topic.split("/")[2]
    assert serial in devs and e["serial"].strip() == serial, (topic, e)
    assert e["rule"] == "temperature_warning" and e["event_type"] == "firing", e
    seen.add(serial)
assert seen == set(devs), (seen, list(devs))
PYEOF

# Retained: the discovery configs of each demo drive, its states, "online".
# states_agree: one retained snapshot against GET /api/v1/devices read before and after
# it (two new polls in between make it inconclusive: try again).
states_agree() {
	http_get /api/v1/devices > "$TMP/dev1.json"
	"${SUB[@]}" -v -W 3 --retained-only -t "nvmond/$H/#" -t 'homeassistant/+/+/+/config' > "$TMP/dret" 2> /dev/null
	http_get /api/v1/devices > "$TMP/dev2.json"
	python3 - "$TMP/dret" "$TMP/dev1.json" "$TMP/dev2.json" "$H" "$PORT" << 'PYEOF'
import json, sys
msgs = {}
for line in open(sys.argv[1], encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    msgs[topic] = payload
d1 = {d["serial"].strip(): d for d in json.load(open(sys.argv[2]))["devices"]}
d2 = {d["serial"].strip(): d for d in json.load(open(sys.argv[3]))["devices"]}
h = sys.argv[4]
assert msgs["nvmond/%s/status" % h] == "online", msgs.get("nvmond/%s/status" % h)
assert len(d1) == 2 and set(d1) == set(d2), list(d1)
def want(l):
    tb = (l["data_units_written"] * 512000 + 500000000) // 1000000000
    return {"temperature": str(l["temperature_c"]), "percentage_used": str(l["percent_used"]),
            "available_spare": str(l["avail_spare"]),
            "data_written": "%d.%03d" % (tb // 1000, tb % 1000),
            "problem": "ON" if l["critical_warning"] or l["endurance_grp_crit_warn"] else "OFF"}
for s, d in d1.items():
    disc = [t for t in msgs if t.startswith("homeassistant/") and "/nvmond_%s/" % s in t]
    assert len(disc) == 7, disc
    t = json.loads(msgs["homeassistant/sensor/nvmond_%s/temperature/config" % s])
    assert t["state_topic"] == "nvmond/%s/%s/temperature" % (h, s), t
    assert t["availability_topic"] == "nvmond/%s/status" % h, t
    assert t["device"]["model"] == d["model"] and t["device"]["identifiers"] == ["nvmond_" + s], t
    p = "nvmond/%s/%s/" % (h, s)
    got = {k: msgs.get(p + k) for k in want(d["latest"])}
    # the snapshot was taken between the two reads: it is the sample of one of them
    if got not in (want(d["latest"]), want(d2[s]["latest"])):
        print("%s: %s; the API says %s, then %s" % (s, got, want(d["latest"]), want(d2[s]["latest"])))
        sys.exit(4)
    # throttling: an ongoing thermal management episode (light or heavy), not a hot spell
    import urllib.request
    url = "http://127.0.0.1:%s/api/v1/devices/%d/events?limit=1000" % (sys.argv[5], d["id"])
    ev = json.load(urllib.request.urlopen(url, timeout=5))["events"]
    th = any(e["ongoing"] and e["kind"] in ("light", "heavy") for e in ev)
    if msgs[p + "throttling"] != ("ON" if th else "OFF"):
        print("%sthrottling: %s, ongoing episodes %s" % (p, msgs[p + "throttling"], [e["kind"] for e in ev if e["ongoing"]]))
        sys.exit(4)
    assert p + "event" not in msgs, "an event was retained"
PYEOF
}
ok=
for _ in $(seq 8); do
	rc=0
	states_agree > "$TMP/why" 2>&1 || rc=$?
	[ "$rc" = 0 ] && ok=1 && break
	[ "$rc" = 4 ] || fail "retained messages of the daemon: $(cat "$TMP/why" "$TMP/dret")"
done
[ -n "$ok" ] || fail "the retained states never agreed with the API: $(cat "$TMP/why")"

# Each hook saw descriptors 0, 1 and 2 only (and the one ls reads /proc/self/fd through).
wait_for 10 sh -c "ls '$TMP'/hookfds.* > /dev/null 2>&1" || fail "the exec hook did not run"
wait_for 10 sh -c "[ \$(curl -fsS http://127.0.0.1:$PORT/api/v1/alerts | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"sinks\"][\"exec\"][\"delivered\"])') -ge 2 ]" ||
	fail "the exec hook did not run for both drives"
python3 - "$TMP" << 'PYEOF2' || fail "the exec hook inherited descriptors: $(cat "$TMP"/hookfds.*)"
import glob, re, sys
files = glob.glob(sys.argv[1] + "/hookfds.*")
assert len(files) >= 2, files
for f in files:
    fds = {}
    for line in open(f):
        m = re.search(r" (\d+) -> (.*)$", line.rstrip("\n"))
        if m:
            fds[int(m.group(1))] = m.group(2)
    extra = {k: v for k, v in fds.items() if k > 2 and not re.match(r"/proc/\d+/fd$", v)}
    assert set(range(3)) <= set(fds) and not extra, (f, fds)
print("hook descriptors:", sorted(fds.items()))
PYEOF2

# Counters by name; the password nowhere.
J=$(http_get /api/v1/alerts)
M=$(http_get /metrics)
jq_py "$J" '
s = j["sinks"]["ha"]
assert s["type"] == "mqtt" and s["delivered"] >= 3 and s["failed"] == 0, s
' || fail "sink counters: $J"
for where in "$J" "$M" "$(cat "$DAEMON_LOG")"; do
	case $where in *"$PASS"*) fail "the broker password leaked" ;; esac
done

# SIGHUP makes a new publisher: "offline" from the old one, "online" from the new (over
# TLS to the second listener, its CA from ca_file, when openssl made certificates).
"${SUB[@]}" -C 3 -W 15 -t "nvmond/$H/status" > "$TMP/dstatus" &
ST_SUB=$!
PIDS+=("$ST_SUB")
wait_for 5 test -s "$TMP/dstatus" || fail "no retained status from the daemon"
if [ -n "$TLS_PORT" ]; then
	sed -i -e "s/^port = $BPORT\$/port = $TLS_PORT/" "$TMP/nvmond.conf"
	printf 'tls = yes\nca_file = %s\n' "$TMP/certs/ca.pem" >> "$TMP/nvmond.conf"
fi
kill -HUP "$DAEMON_PID"
wait "$ST_SUB" || fail "no new publisher after SIGHUP: $(cat "$TMP/dstatus")"
[ "$(cat "$TMP/dstatus")" = $'online\noffline\nonline' ] || fail "status over a reload: $(cat "$TMP/dstatus")"
wait_log_for "configuration reloaded" 10

# kill -9: the broker publishes the daemon's last will, "offline", retained.
"${SUB[@]}" -C 2 -W 15 -t "nvmond/$H/status" > "$TMP/dstatus" &
ST_SUB=$!
PIDS+=("$ST_SUB")
wait_for 5 test -s "$TMP/dstatus" || fail "no retained status after the reload"
kill -9 "$DAEMON_PID"
DAEMON_PID=
wait "$ST_SUB" || fail "no last will within 15 s: $(cat "$TMP/dstatus")"
[ "$(cat "$TMP/dstatus")" = $'online\noffline' ] || fail "status: $(cat "$TMP/dstatus")"
[ "$("${SUB[@]}" -C 1 -W 5 -t "nvmond/$H/status")" = offline ] || fail "the will is not retained"

# A wrong password: the daemon runs, says why once in the log and in the sink's last_error.
printf 'wr0ng-%s\n' "$RANDOM" > "$TMP/broker.pw"
WRONG=$(cat "$TMP/broker.pw")
start_daemon -c "$TMP/nvmond.conf"
wait_log_for "sink ha: mqtt: connection refused: .*not authori[sz]ed" 15
wait_for 5 sh -c "curl -fsS http://127.0.0.1:$PORT/api/v1/alerts | grep -q 'connection refused'" ||
	fail "no last_error: $(http_get /api/v1/alerts)"
case "$(cat "$DAEMON_LOG") $(http_get /api/v1/alerts)" in *"$WRONG"*) fail "the wrong password leaked" ;; esac
stop_daemon
pass
