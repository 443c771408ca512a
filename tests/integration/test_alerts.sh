#!/usr/bin/env bash
# Alerts end to end: the real daemon with its demo drives, a real SQLite file,
# a real exec hook, a real webhook listener (python3 http.server) and curl.
# The demo drives' temperatures follow the wall clock, so the rules are made
# deterministic with margins: warning_margin = 50 puts every drive over
# "WCTEMP - 50"; a restart with margin 0 ends it for the cool drive (demo1).
set -u
for tool in curl python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"

TOKEN="t0k-$RANDOM$RANDOM"
HOOK=$TMP/hook.sh
HOOK_LOG=$TMP/hook.log
HOOK_OUT=$TMP/webhook.log
cat > "$HOOK" <<HOOKEOF
#!/bin/sh
{ printf '%s %s %s %s ' "\$NVMOND_STATE" "\$NVMOND_RULE" "\$NVMOND_DEVICE" "\$NVMOND_ALERT_ID"; cat; echo; } >> "$HOOK_LOG"
HOOKEOF
chmod +x "$HOOK"

# A real webhook receiver: appends each POSTed body as one line.
WH_PORT=$(free_port)
python3 - "$WH_PORT" "$HOOK_OUT" > "$TMP/webhook.stderr" 2>&1 <<'PYEOF' &
import http.server, sys
port, out = int(sys.argv[1]), sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(out, "ab") as f:
            f.write(body + b"\n")
        self.send_response(204)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
PYEOF
WH_PID=$!
trap 'kill $WH_PID 2>/dev/null; cleanup' EXIT

write_conf() { # write_conf MARGIN
	cat > "$TMP/nvmond.conf" <<CONFEOF
[daemon]
database = $TMP/alerts.db
poll_interval = 200ms
demo = yes
[http]
token = $TOKEN
[alerts]
warning_margin = $1
resolve_after = 1s
cooldown = 1s
exec = $HOOK
exec_timeout = 5s
webhook = http://127.0.0.1:$WH_PORT/hook
webhook_timeout = 2s
CONFEOF
}

count() { # count PATTERN FILE
	grep -c -- "$1" "$2" 2>/dev/null || true
}

at_least() { # at_least N PATTERN FILE  (re-read on every call)
	[ "$(count "$2" "$3")" -ge "$1" ]
}

# ---- refusing to listen beyond loopback without a token
printf '[daemon]\ndatabase = %s/x.db\ndemo = yes\n' "$TMP" > "$TMP/open.conf"
expect_exit 2 "$NVMOND_BIN" -c "$TMP/open.conf" --listen "0.0.0.0:$(free_port)"
grep -q "without \[http\] token" "$LAST_STDERR" || fail "no clear message: $(cat "$LAST_STDERR")"
expect_exit 2 "$NVMOND_BIN" -c "$TMP/open.conf" --listen "[::]:$(free_port)"

# ---- a bad hook is a configuration error, not a silent non-alert
printf '[daemon]\ndatabase = %s/y.db\ndemo = yes\n[alerts]\nexec = %s/missing.sh\n' "$TMP" "$TMP" > "$TMP/bad.conf"
expect_exit 2 "$NVMOND_BIN" -c "$TMP/bad.conf" --listen "127.0.0.1:$(free_port)"
grep -q "missing.sh" "$LAST_STDERR" || fail "bad exec not named: $(cat "$LAST_STDERR")"

# ---- every drive "hot" (margin 50): one firing notification each, through every sink
write_conf 50
start_daemon -c "$TMP/nvmond.conf"
wait_for 10 at_least 2 '^firing temperature_warning' "$HOOK_LOG" ||
	fail "exec hook did not run for both drives: $(cat "$HOOK_LOG" 2>/dev/null)"
wait_for 10 at_least 2 '"rule":"temperature_warning"' "$HOOK_OUT" ||
	fail "webhook did not receive both: $(cat "$HOOK_OUT" 2>/dev/null)"
grep -q '"state":"firing"' "$HOOK_OUT" || fail "webhook body"
wait_polls 10 # five more polls of each drive: still one notification per episode
[ "$(count '^firing temperature_warning' "$HOOK_LOG")" = 2 ] || fail "re-sent: $(cat "$HOOK_LOG")"
grep -q "alert [0-9]* firing: warning temperature_warning on demo1" "$DAEMON_LOG" || fail "journal line"

J=$(http_get /api/v1/alerts)
jq_py "$J" '
act = [a for a in j["active"] if a["rule"] == "temperature_warning"]
assert len(act) == 2, act
assert all(a["state"] == "firing" and a["resolved"] is None for a in act)
assert j["sinks"]["exec"]["delivered"] >= 2, j["sinks"]
assert j["sinks"]["webhook"]["delivered"] >= 2, j["sinks"]
assert not [a for a in j["active"] if a["rule"] == "spare_low"], "spare 100 > threshold 10"
' || fail "GET /api/v1/alerts: $J"
DEMO1_ALERT=$(jq_py "$J" 'print([a["id"] for a in j["active"] if a["device"] == "demo1" and a["rule"] == "temperature_warning"][0])')
E=$(http_get /api/v1/devices/2/events)
jq_py "$E" '
ev = [e for e in j["events"] if e["kind"] == "over_wctemp"]
assert len(ev) == 1 and ev[0]["ongoing"] and ev[0]["end"] is None, ev
assert 36 <= ev[0]["peak_c"] <= 60, ev
' || fail "events of demo1: $E"
curl -fsS "http://127.0.0.1:$PORT/api/v1/devices/2/events?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z" |
	python3 -c 'import json,sys; assert json.load(sys.stdin)["events"] == []' || fail "events range"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/devices/99/events")
[ "$code" = 404 ] || fail "unknown device: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/devices/2/events?from=nope")
[ "$code" = 400 ] || fail "bad from: $code"

# ---- mutations need the token
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/api/v1/alerts/test")
[ "$code" = 401 ] || fail "test without token: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer wrong" \
	"http://127.0.0.1:$PORT/api/v1/alerts/$DEMO1_ALERT/ack")
[ "$code" = 401 ] || fail "ack with a wrong token: $code"
T=$(curl -fsS -X POST -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/alerts/test") ||
	fail "POST /api/v1/alerts/test"
jq_py "$T" 'assert j["queued_sinks"] == 2, j' || fail "test: $T"
wait_for 10 grep -q '^test test' "$HOOK_LOG" || fail "test notification did not reach the hook"
wait_for 10 grep -q '"state":"test"' "$HOOK_OUT" || fail "test notification did not reach the webhook"
A=$(curl -fsS -X POST -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/alerts/$DEMO1_ALERT/ack") ||
	fail "ack"
jq_py "$A" 'assert j["acked"] is not None and j["state"] == "firing", j' || fail "ack reply: $A"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	"http://127.0.0.1:$PORT/api/v1/alerts/999999/ack")
[ "$code" = 404 ] || fail "ack of an unknown alert: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/alerts/1/ack")
[ "$code" = 405 ] || fail "GET on ack: $code"
stop_daemon

# ---- a message that is not valid UTF-8 in the database (as an older nvmond cut one inside
# "°C", issue 23 §7): the alert stays in the API, its ack answers with it. The tail
# byte goes; the rest of the message is as stored.
command -v sqlite3 > /dev/null || fail "sqlite3 missing (.ci/deps)"
MSG=$(sqlite3 "$TMP/alerts.db" "SELECT message FROM alerts WHERE id = $DEMO1_ALERT")
sqlite3 "$TMP/alerts.db" "UPDATE alerts SET message = message || CAST(X'C2' AS TEXT) WHERE id = $DEMO1_ALERT"
[ "$(sqlite3 "$TMP/alerts.db" "SELECT hex(substr(CAST(message AS BLOB), -1)) FROM alerts WHERE id = $DEMO1_ALERT")" = C2 ] ||
	fail "the invalid message was not stored"

# ---- a restart neither re-sends nor loses
start_daemon -c "$TMP/nvmond.conf"
wait_polls 10
[ "$(count '^firing temperature_warning' "$HOOK_LOG")" = 2 ] || fail "re-sent after restart: $(cat "$HOOK_LOG")"
J=$(http_get /api/v1/alerts)
MSG=$MSG jq_py "$J" "
import os
a = [a for a in j['active'] if a['id'] == $DEMO1_ALERT]
assert a and a[0]['acked'] is not None, j['active']
assert a[0]['message'] == os.environ['MSG'], a[0]
" || fail "alert lost across the restart (its message ends in 0xC2): $J"
A=$(curl -fsS -X POST -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/alerts/$DEMO1_ALERT/ack") ||
	fail "ack of the alert with the invalid message"
jq_py "$A" "assert j['id'] == $DEMO1_ALERT and j['rule'] == 'temperature_warning', j" ||
	fail "ack reply of the alert with the invalid message: $A"
stop_daemon

# ---- margin 0: the cool drive (WCTEMP 82 °C) is no longer over: resolved, once
write_conf 0
start_daemon -c "$TMP/nvmond.conf"
wait_for 10 grep -q "^resolved temperature_warning demo1 $DEMO1_ALERT " "$HOOK_LOG" ||
	fail "no resolved notification: $(cat "$HOOK_LOG")"
wait_for 10 grep -q '"state":"resolved"' "$HOOK_OUT" || fail "webhook got no resolved"
grep -q '"state":"resolved".*"message":"resolved after [0-9]*s; last: temperature [0-9]* °C reached 32 °C (WCTEMP 82 °C - margin 50)"' "$HOOK_OUT" ||
	fail "resolved message: $(grep resolved "$HOOK_OUT")"
wait_polls 10
[ "$(count "^resolved temperature_warning demo1" "$HOOK_LOG")" = 1 ] || fail "resolved twice"
J=$(http_get "/api/v1/alerts")
jq_py "$J" "
h = [a for a in j['history'] if a['id'] == $DEMO1_ALERT][0]
assert h['state'] == 'resolved' and h['resolved'] is not None, h
assert not [a for a in j['active'] if a['id'] == $DEMO1_ALERT]
" || fail "history: $J"
E=$(http_get /api/v1/devices/2/events)
jq_py "$E" '
ev = [e for e in j["events"] if e["kind"] == "over_wctemp"]
assert len(ev) == 1 and not ev[0]["ongoing"] and ev[0]["end"] is not None, ev
' || fail "event not closed: $E"

# ---- SIGHUP: the sinks follow the file. A new hook and no webhook take over;
# a hook that cannot run is refused and the running one stays.
HOOK2=$TMP/hook2.sh
HOOK2_LOG=$TMP/hook2.log
printf '#!/bin/sh\necho "$NVMOND_STATE $NVMOND_RULE" >> %s\n' "$HOOK2_LOG" > "$HOOK2"
chmod +x "$HOOK2"
sed -i -e "s|^exec = .*|exec = $HOOK2|" -e '/^webhook = /d' "$TMP/nvmond.conf"
kill -HUP "$DAEMON_PID"
wait_for 10 grep -q "configuration reloaded" "$DAEMON_LOG" || fail "no reload"
hooked=$(count '^test test' "$HOOK_LOG")
posted=$(count '"state":"test"' "$HOOK_OUT")
T=$(curl -fsS -X POST -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/alerts/test") ||
	fail "POST /api/v1/alerts/test after reload"
jq_py "$T" 'assert j["queued_sinks"] == 1 and not j["sinks"]["webhook"]["enabled"], j' ||
	fail "sinks after reload: $T"
wait_for 10 grep -q '^test test$' "$HOOK2_LOG" || fail "the new hook got nothing"
sleep 0.5
[ "$(count '^test test' "$HOOK_LOG")" = "$hooked" ] || fail "the old hook still runs"
[ "$(count '"state":"test"' "$HOOK_OUT")" = "$posted" ] || fail "the removed webhook still posts"
sed -i -e "s|^exec = .*|exec = $TMP/gone.sh|" "$TMP/nvmond.conf"
kill -HUP "$DAEMON_PID"
wait_for 10 grep -q "gone.sh: No such file or directory: configuration not reloaded" "$DAEMON_LOG" ||
	fail "a missing hook on reload: $(tail -5 "$DAEMON_LOG")"
curl -fsS -X POST -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/alerts/test" > /dev/null ||
	fail "POST /api/v1/alerts/test after a refused reload"
wait_for 10 at_least 2 '^test test$' "$HOOK2_LOG" || fail "the running hook did not stay: $(cat "$HOOK2_LOG")"

# ---- a drive's own margin: the cool drive (WCTEMP 82 °C) fires again at
# "WCTEMP - 50" from its [device] section, while [alerts] keeps margin 0.
sed -i -e "s|^exec = .*|exec = $HOOK2|" "$TMP/nvmond.conf"
printf '[device "DEMO980PRO00002"]\nwarning_margin = 50\n' >> "$TMP/nvmond.conf"
# Alerts before the reload may still carry "margin 50" from the first part.
MAXID=$(jq_py "$(http_get /api/v1/alerts)" "print(max([a['id'] for a in j['active'] + j['history']] + [0]))")
kill -HUP "$DAEMON_PID"
margin_alert() { # the cool drive's new alert, from its own margin
	jq_py "$(http_get /api/v1/alerts)" "
a = [a for a in j['active'] if a['rule'] == 'temperature_warning' and a['device_id'] == 2]
assert len(a) == 1 and a[0]['id'] != $DEMO1_ALERT, j['active']
assert 'WCTEMP 82 °C - margin 50' in a[0]['message'], a[0]
assert not [a for a in j['active'] if a['id'] > $MAXID and a['device_id'] != 2
            and 'margin 50' in a['message']], j['active']
"
}
wait_for 10 margin_alert 2> /dev/null || { margin_alert; fail "no alert from the drive's own margin"; }
wait_for 10 at_least 1 '^firing temperature_warning$' "$HOOK2_LOG" ||
	fail "the hook got no firing: $(cat "$HOOK2_LOG")"
stop_daemon
pass
