#!/usr/bin/env bash
# The MQTT delivery against a real mosquitto broker (Debian's mosquitto and
# mosquitto-clients), with username/password required:
#  - the publisher starts before the broker and connects once it is up (reconnect);
#  - mosquitto_sub sees the retained states, the Home Assistant discovery configs
#    and "online" on the availability topic;
#  - an alert event arrives, not retained;
#  - after kill -9 of the publisher, the broker publishes the last will: "offline",
#    retained; a clean stop says "offline" too.
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
pass
