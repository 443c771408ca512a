#!/usr/bin/env bash
# Issue 24 §1, who is who, end to end: [daemon] host_name / host_labels / public_url and
# [device] label / location reach the API, `nvmond status`, /metrics and a real alert's
# notification (demo0 made unresponsive through the demo's hang hook: a critical alert
# at once, and nvmond_device_health says critical); a bad label name exits 2 with FILE:LINE at start and a reload with one
# keeps the running set; the host id is the machine id's app-specific id.
# Env: NVMOND_BIN (set by ctest).
set -u
. "$(dirname "$0")/lib.sh"

printf '0123456789abcdef0123456789abcdef\n' > "$TMP/machine-id"
export NVMOND_MACHINE_ID=$TMP/machine-id
# A sure alert of demo0, whatever its modelled temperature does now: the demo backend's
# test hook makes its commands hang (demo.h), which raises the critical "unresponsive".
: > "$TMP/hang"
export NVMOND_DEMO_HANG=$TMP/hang

# ---- a bad label name: exit 2, FILE:LINE
cat > "$TMP/bad.conf" << EOF
[daemon]
host_name = h1
host_labels = site=fra1, 9rack=r12
EOF
expect_exit 2 "$NVMOND_BIN" --demo --config "$TMP/bad.conf" --db "$TMP/bad.db" --listen 127.0.0.1:1
grep -q "^nvmond: $TMP/bad.conf:3: host_labels: '9rack' is not a label name" "$LAST_STDERR" ||
	fail "no FILE:LINE for the bad label: $(cat "$LAST_STDERR")"
expect_exit 2 "$NVMOND_BIN" status --demo --config "$TMP/bad.conf"
echo "ok: a bad host label exits 2: $(head -c 120 "$LAST_STDERR")"

# ---- the daemon: a label on demo0, whose hot drive fires an alert with its exec hook
cat > "$TMP/hook.sh" << EOF
#!/bin/sh
echo "\$NVMOND_RULE|\$NVMOND_DEVICE|\$NVMOND_LABEL|\$NVMOND_LOCATION|\$NVMOND_HOST" >> $TMP/hook.out
EOF
chmod +x "$TMP/hook.sh"
conf() { # conf HOST_LABELS LABEL
	cat > "$TMP/nvmond.conf" << EOF
[daemon]
poll_interval = 500ms
device_timeout = 1s
demo_history = no
host_name = db-fra1-07
host_labels = $1
public_url = https://db7.example:9470/
[alerts]
exec = $TMP/hook.sh
[probes]
lock_dir = $TMP/locks
[device "DEMO950PRO00001"]
label = "$2"
location = rack 12 U4 slot 3
EOF
}
conf "site=fra1, rack=r12, role=db" "bay 3 – scratch"
"$NVMOND_BIN" status --demo --config "$TMP/nvmond.conf" > "$TMP/status.txt" 2>&1 ||
	fail "nvmond status: $(cat "$TMP/status.txt")"
grep -q "^ *label: bay 3 – scratch · location: rack 12 U4 slot 3$" "$TMP/status.txt" ||
	fail "nvmond status does not name the label: $(cat "$TMP/status.txt")"
start_daemon --demo --config "$TMP/nvmond.conf" --db "$TMP/db"
echo "ok: nvmond status names the label"

jq_py "$(http_get /api/v1/devices)" '
d = {x["name"]: x for x in j["devices"]}
assert d["demo0"]["label"] == "bay 3 – scratch", d["demo0"]
assert d["demo0"]["location"] == "rack 12 U4 slot 3", d["demo0"]
assert d["demo1"]["label"] is None and d["demo1"]["location"] is None, d["demo1"]' ||
	fail "GET /api/v1/devices: label and location"

# The machine id's app-specific id (python: HMAC-SHA256 keyed with the machine id over
# nvmond's app id, the first 16 bytes made a v4 UUID): the same as the unit test's vector.
metric_line() { http_get /metrics | grep "^$1" || true; }
want='nvmond_host_info{host_id="e1bad763ccec40fb86cf965290b5ea9e",host="db-fra1-07",public_url="https://db7.example:9470/",site="fra1",rack="r12",role="db"} 1'
[ "$(metric_line nvmond_host_info)" = "$want" ] || fail "host_info: $(metric_line nvmond_host_info)"
metric_line 'nvmond_device_info{device="demo0"' | grep -q 'label="bay 3 – scratch",location="rack 12 U4 slot 3"} 1$' ||
	fail "device_info: $(metric_line nvmond_device_info)"
metric_line 'nvmond_temperature_celsius{device="demo0"' | grep -q 'site=' &&
	fail "a host label on a drive's series"
echo "ok: /metrics: $want"

# ---- a real alert of demo0 (unresponsive): the hook gets the label and location
echo demo0 > "$TMP/hang"
wait_for 30 grep -q '^unresponsive|demo0|' "$TMP/hook.out" 2> /dev/null ||
	fail "the unresponsive alert of demo0 did not reach the hook: $(cat "$TMP/hook.out" 2> /dev/null)"
grep -m1 '^unresponsive|demo0|' "$TMP/hook.out" | grep -q '|demo0|bay 3 – scratch|rack 12 U4 slot 3|db-fra1-07$' ||
	fail "the hook's environment: $(head -3 "$TMP/hook.out")"
grep -q 'on demo0 "bay 3 – scratch" at rack 12 U4 slot 3 (Samsung' "$DAEMON_LOG" ||
	fail "the journal line does not name the label"
alerts=$(metric_line 'nvmond_alert_firing{device="demo0"' | wc -l)
[ "$alerts" -ge 1 ] || fail "no nvmond_alert_firing for demo0"
health_critical() { metric_line 'nvmond_device_health{device="demo0"' | grep -q 'state="critical"} 1$'; }
wait_for 10 health_critical || fail "demo0's health: $(metric_line 'nvmond_device_health{device="demo0"')"
: > "$TMP/hang"
echo "ok: the alert's hook, the journal and /metrics ($alerts firing, health critical) name the drive"

# ---- a reload with a bad label keeps the running set; a good one applies at once
conf "site=fra1, __x=1" "bay 4"
kill -HUP "$DAEMON_PID"
line=$(grep -n '^host_labels' "$TMP/nvmond.conf" | cut -d: -f1)
wait_log_for "nvmond.conf:$line: host_labels: '__x' is not a label name"
wait_log_for "configuration not reloaded; keeping the running one"
[ "$(metric_line nvmond_host_info)" = "$want" ] || fail "a refused reload changed host_info"
conf "site=ber2" "bay 4"
kill -HUP "$DAEMON_PID"
wait_for 10 sh -c "curl -fsS http://127.0.0.1:$PORT/metrics | grep -q '^nvmond_host_info{.*,site=\"ber2\"} 1$'" ||
	fail "host_labels not reloaded: $(metric_line nvmond_host_info)"
jq_py "$(http_get /api/v1/devices)" '
assert [x for x in j["devices"] if x["name"] == "demo0"][0]["label"] == "bay 4"' ||
	fail "the label was not reloaded"
echo "ok: a bad reload keeps the running labels, a good one applies them"
stop_daemon
pass
