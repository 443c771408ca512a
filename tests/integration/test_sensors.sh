#!/usr/bin/env bash
# Sensors judged as the spec defines them, with the real daemon and its demo
# drives: the demo 980 PRO's Sensor 2 reads 83.85 °C (357 K) forever, above its
# WCTEMP of 81.85 °C (355 K), while its composite stays near 36-45 °C.
#  - by default: a note on the drive (API, status, /metrics), no alert at all,
#    no over_wctemp event;
#  - sensor_limit_2 = 83 (SIGHUP): sensor_temperature fires once through the
#    exec hook; sensor_limit_2 = 90 (SIGHUP): it resolves;
#  - sensor_alerts = yes: the drive's threshold for Sensor 2 is FFFFh (none), so
#    WCTEMP is the limit and the alert fires again.
set -u
for tool in curl python3; do
	command -v "$tool" > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"

HOOK=$TMP/hook.sh
HOOK_LOG=$TMP/hook.log
cat > "$HOOK" << HOOKEOF
#!/bin/sh
printf '%s %s %s\n' "\$NVMOND_STATE" "\$NVMOND_RULE" "\$NVMOND_SERIAL" >> "$HOOK_LOG"
HOOKEOF
chmod +x "$HOOK"
touch "$HOOK_LOG"

write_conf() { # write_conf [DEVICE-SECTION-LINES]
	cat > "$TMP/nvmond.conf" << CONFEOF
[daemon]
database = $TMP/sensors.db
poll_interval = 200ms
demo = yes
demo_history = no
[alerts]
resolve_after = 1s
cooldown = 0
exec = $HOOK
[device "DEMO980PRO00002"]
$1
CONFEOF
}
count() { grep -c -- "$1" "$HOOK_LOG" 2> /dev/null || true; }

write_conf ""
start_daemon -c "$TMP/nvmond.conf"
wait_polls 10
D=$(jq_py "$(http_get /api/v1/devices)" "print([d['id'] for d in j['devices'] if d['serial'] == 'DEMO980PRO00002'][0])")

# ---- by default: a note, no alert, no event
jq_py "$(http_get "/api/v1/devices/$D")" '
assert j["wctemp_k"] == 355 and j["latest"]["temperature_c"] < j["wctemp_c"], j["latest"]
s2 = [s for s in j["sensors"] if s["sensor"] == 2][0]
assert s2["temperature_k"] == 357 and s2["over_wctemp"] and not s2["implausible"], s2
assert s2["implausible_reason"] is None and not s2["alerts"] and not s2["over_limit"], s2
assert s2["limit_c"] is None and s2["limit_source"] is None and s2["drive_limit_c"] is None, s2
n = [n for n in j["notes"] if n["kind"] == "sensor_over_wctemp" and n["sensor"] == 2]
assert len(n) == 1 and "Sensor 2 reads 84 °C, above WCTEMP 82 °C" in n[0]["message"], j["notes"]
assert "a note, not an alert" in n[0]["message"], n
' || fail "the 980 PRO's Sensor 2 note in GET /devices/$D"
# The 950 PRO's Sensor 1 has a threshold of its own (80 °C): shown, not used by default.
jq_py "$(http_get /api/v1/devices)" '
d = [d for d in j["devices"] if d["serial"] == "DEMO950PRO00001"][0]
s1 = [s for s in d["sensors"] if s["sensor"] == 1][0]
assert s1["drive_limit_c"] == 80 and s1["limit_c"] == 80 and s1["limit_source"] == "drive", s1
assert not s1["alerts"], s1
' || fail "the 950 PRO's Sensor 1 threshold"
M=$(curl -fsS "http://127.0.0.1:$PORT/metrics")
grep -q '^nvmond_sensor_over_wctemp{device="demo1",.*serial="DEMO980PRO00002",sensor="2"} 1$' <<< "$M" ||
	fail "/metrics: no over_wctemp flag: $(grep sensor_ <<< "$M")"
grep -q '^nvmond_sensor_implausible{device="demo1",.*sensor="2"} 0$' <<< "$M" || fail "/metrics: implausible flag"
grep -q '^nvmond_temperature_celsius{device="demo1",.*sensor="2"} 84$' <<< "$M" || fail "/metrics: sensor 2 temperature"
wait_polls 20 # a hundred polls of each drive, and still:
jq_py "$(http_get /api/v1/alerts)" '
bad = [a for a in j["active"] + j["history"] if a["serial"] == "DEMO980PRO00002"]
assert not bad, bad
' || fail "an alert on the 980 PRO by default: $(http_get /api/v1/alerts)"
jq_py "$(http_get "/api/v1/devices/$D/events")" '
assert not [e for e in j["events"] if e["kind"] in ("over_wctemp", "over_cctemp")], j["events"]
' || fail "a temperature event from a sensor"
[ "$(count DEMO980PRO00002)" = 0 ] || fail "the hook ran: $(cat "$HOOK_LOG")"

# ---- nvmond status: the same note, from one sample
"$NVMOND_BIN" status --demo -c "$TMP/nvmond.conf" > "$TMP/status.txt" || fail "nvmond status"
grep -q '^note: demo1: Sensor 2 reads 84 °C, above WCTEMP 82 °C, while the composite is [0-9]* °C' "$TMP/status.txt" ||
	fail "status text: $(cat "$TMP/status.txt")"
"$NVMOND_BIN" status --demo --json -c "$TMP/nvmond.conf" > "$TMP/status.json" || fail "nvmond status --json"
python3 - "$TMP/status.json" << 'PYEOF' || fail "status JSON: $(cat "$TMP/status.json")"
import json, sys
d = [d for d in json.load(open(sys.argv[1]))["devices"] if d["serial"] == "DEMO980PRO00002"][0]
assert [n["sensor"] for n in d["notes"] if n["kind"] == "sensor_over_wctemp"] == [2], d["notes"]
assert [s for s in d["sensors"] if s["sensor"] == 2][0]["over_wctemp"], d["sensors"]
PYEOF

# ---- a limit of its own: sensor_limit_2 = 83 °C fires sensor_temperature, once
write_conf "sensor_limit_2 = 83"
kill -HUP "$DAEMON_PID"
wait_for 10 grep -q '^firing sensor_temperature DEMO980PRO00002$' "$HOOK_LOG" ||
	fail "no sensor_temperature firing: $(cat "$HOOK_LOG"; tail -5 "$DAEMON_LOG")"
jq_py "$(http_get /api/v1/alerts)" '
a = [a for a in j["active"] if a["rule"] == "sensor_temperature"]
assert len(a) == 1 and a[0]["serial"] == "DEMO980PRO00002" and a[0]["severity"] == "warning", a
assert "sensor 2 at 84 °C reached its limit 83 °C (config)" in a[0]["message"], a[0]
assert not [a for a in j["active"] if a["rule"].startswith("temperature_")
            and a["serial"] == "DEMO980PRO00002"], j["active"]
' || fail "the sensor_temperature alert: $(http_get /api/v1/alerts)"
jq_py "$(http_get "/api/v1/devices/$D")" '
s2 = [s for s in j["sensors"] if s["sensor"] == 2][0]
assert s2["alerts"] and s2["over_limit"] and s2["limit_c"] == 83 and s2["limit_source"] == "config", s2
' || fail "sensor 2 with its limit"
wait_polls 10
[ "$(count '^firing sensor_temperature')" = 1 ] || fail "fired more than once: $(cat "$HOOK_LOG")"

# ---- the limit raised above the reading: it resolves
write_conf "sensor_limit_2 = 90"
kill -HUP "$DAEMON_PID"
wait_for 10 grep -q '^resolved sensor_temperature DEMO980PRO00002$' "$HOOK_LOG" ||
	fail "sensor_temperature did not resolve: $(cat "$HOOK_LOG")"

# ---- sensor_alerts = yes: no threshold from the drive (FFFFh), so WCTEMP (82 °C) is the limit
write_conf "sensor_alerts = yes"
kill -HUP "$DAEMON_PID"
at_least_two() { [ "$(count '^firing sensor_temperature DEMO980PRO00002$')" -ge 2 ]; }
wait_for 10 at_least_two || fail "sensor_alerts = yes did not fire: $(cat "$HOOK_LOG")"
jq_py "$(http_get /api/v1/alerts)" '
a = [a for a in j["active"] if a["rule"] == "sensor_temperature"]
assert len(a) == 1 and "reached its limit 82 °C (wctemp)" in a[0]["message"], a
' || fail "sensor_alerts = yes: $(http_get /api/v1/alerts)"
stop_daemon
pass
