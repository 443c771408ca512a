#!/usr/bin/env bash
# Named notification sinks end to end: the real daemon (demo drives, real
# SQLite), every HTTP format against a local listener that records each request
# (python3 http.server: method, path, headers, body), and a REAL Alertmanager
# (Debian's prometheus-alertmanager) that receives the alerts, keeps them while
# nvmond re-sends them, and resolves one. Also: filters, secrets from files
# (never in the log, the API or /metrics), POST /alerts/test?sink=, reload on
# SIGHUP (a sink added, one removed), and no duplicates across a restart.
# warning_margin = 50 puts both demo drives over "WCTEMP - 50"; margin 0 ends it
# for the cool one (demo1), as in test_alerts.sh.
set -u
AM_BIN=$(command -v prometheus-alertmanager || command -v alertmanager || true)
for tool in curl python3 amtool; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -n "$AM_BIN" ] || { echo "SKIP: prometheus-alertmanager not installed"; exit 77; }
. "$(dirname "$0")/lib.sh"

TOKEN="t0k-$RANDOM$RANDOM"
REQ=$TMP/requests.jsonl
LP=$(free_port)
python3 - "$LP" "$REQ" > "$TMP/listener.stderr" 2>&1 <<'PYEOF' &
import http.server, json, sys
port, out = int(sys.argv[1]), sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        rec = {"method": self.command, "path": self.path,
               "headers": {k.lower(): v for k, v in self.headers.items()},
               "body": body.decode("utf-8")}
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        reply = b'{"ok":true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PYEOF
LPID=$!

# A real Alertmanager: one receiver that sends nowhere, no cluster.
AMP=$(free_port)
mkdir -p "$TMP/am"
cat > "$TMP/am/am.yml" <<'EOF'
route:
  receiver: none
receivers:
  - name: none
EOF
"$AM_BIN" --config.file="$TMP/am/am.yml" --storage.path="$TMP/am" \
	--web.listen-address="127.0.0.1:$AMP" --cluster.listen-address= \
	> "$TMP/am/log" 2>&1 &
AMPID=$!
trap 'kill $LPID $AMPID 2>/dev/null; cleanup' EXIT
wait_for 20 curl -fsS "http://127.0.0.1:$AMP/-/ready" -o /dev/null ||
	fail "alertmanager did not start: $(tail -5 "$TMP/am/log")"

# Userinfo with a raw '#', '/' or '?' in its password (issue 23 §6): the usual parse ends the
# host early, and libcurl takes a piece of the userinfo for a host or a port.
LEAK_USER="usr$RANDOM$RANDOM"
LEAK_PW="S3cr$RANDOM"

# Secrets, each only in a file.
NTFY_TOKEN="tk_ntfy$RANDOM$RANDOM"
GOTIFY_TOKEN="AgotifY$RANDOM$RANDOM"
TG_TOKEN="123456:TgSecret$RANDOM$RANDOM"
SLACK_SECRET="slackSecret$RANDOM$RANDOM"
printf '%s\n' "$NTFY_TOKEN" > "$TMP/ntfy.token"
printf '%s\n' "$GOTIFY_TOKEN" > "$TMP/gotify.token"
printf '%s\n' "$TG_TOKEN" > "$TMP/tg.token"
printf 'http://127.0.0.1:%s/services/T0/B0/%s\n' "$LP" "$SLACK_SECRET" > "$TMP/slack.url"
chmod 600 "$TMP"/*.token "$TMP/slack.url"

write_conf() { # write_conf MARGIN
	cat > "$TMP/nvmond.conf" <<EOF
[daemon]
database = $TMP/sinks.db
poll_interval = 200ms
demo = yes
[http]
token = $TOKEN
[alerts]
warning_margin = $1
resolve_after = 1s
cooldown = 1s

[sink "phone"]
type = ntfy
url = http://127.0.0.1:$LP/disks
token_file = $TMP/ntfy.token
tags = home

[sink "gotify"]
type = gotify
url = http://127.0.0.1:$LP/
token_file = $TMP/gotify.token

[sink "slack"]
type = slack
url_file = $TMP/slack.url

[sink "discord"]
type = discord
url = http://127.0.0.1:$LP/api/webhooks/1/d

[sink "tg"]
type = telegram
token_file = $TMP/tg.token
chat_id = -10042
api_url = http://127.0.0.1:$LP/tg

[sink "am"]
type = alertmanager
url = http://127.0.0.1:$AMP
resend_interval = 2s

[sink "critical-only"]
type = webhook
url = http://127.0.0.1:$LP/critical
min_severity = critical

[sink "media-only"]
type = webhook
url = http://127.0.0.1:$LP/media
rules = media_errors

[sink "demo1-only"]
type = webhook
url = http://127.0.0.1:$LP/demo1
devices = DEMO980PRO00002
resolved = no

[sink "leak-hash"]
type = webhook
url = http://$LEAK_USER:$LEAK_PW#x@127.0.0.1:$LP/leak
rules = media_errors
attempts = 1

[sink "leak-slash"]
type = ntfy
url = http://$LEAK_USER:12/$LEAK_PW@127.0.0.1:$LP/leak
rules = media_errors
attempts = 1

[sink "leak-query"]
type = webhook
url = http://$LEAK_USER:$LEAK_PW?x@127.0.0.1:$LP/leak
rules = media_errors
attempts = 1
EOF
}

# reqs 'python condition on r' : how many recorded requests match.
reqs() {
	python3 - "$REQ" "$1" <<'PYEOF'
import json, sys
n = 0
try:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if eval(sys.argv[2]):
            n += 1
except FileNotFoundError:
    pass
print(n)
PYEOF
}
at_least() { [ "$(reqs "$2")" -ge "$1" ]; }
firing='"temperature_warning" in json.dumps(r) and "RESOLVED" not in json.dumps(r)'

am_alerts() { # am_alerts: the active temperature_warning alerts in Alertmanager, as "device serial"
	amtool --alertmanager.url="http://127.0.0.1:$AMP" alert query alertname=temperature_warning \
		-o json | python3 -c 'import json,sys; print(" ".join(sorted(a["labels"]["device"] for a in json.load(sys.stdin))))'
}

# ---- a mistake in a [sink] section: refused with FILE:LINE
printf '[daemon]\ndatabase = %s/x.db\ndemo = yes\n[sink "x"]\ntype = ntfy\nurl = ftp://x\n' "$TMP" > "$TMP/bad.conf"
expect_exit 2 "$NVMOND_BIN" -c "$TMP/bad.conf" --listen "127.0.0.1:$(free_port)"
grep -q "bad.conf:6: url: not an http:// or https:// URL" "$LAST_STDERR" ||
	fail "no FILE:LINE: $(cat "$LAST_STDERR")"

# ---- both drives fire: every sink gets its own format
write_conf 50
start_daemon -c "$TMP/nvmond.conf"
for path in /disks /message /services/T0/B0/ /api/webhooks/1/d /tg/bot; do
	wait_for 10 at_least 2 "r['path'].startswith('$path') and $firing" ||
		fail "$path: not 2 firing requests: $(cat "$REQ" 2>/dev/null | tail -3)"
done
python3 - "$REQ" "$NTFY_TOKEN" "$GOTIFY_TOKEN" "$TG_TOKEN" "$SLACK_SECRET" <<'PYEOF' || fail "formats"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
ntfy_tok, gotify_tok, tg_tok, slack_secret = sys.argv[2:6]
def one(prefix):
    rs = [r for r in reqs if r["path"].startswith(prefix) and "temperature_warning" in json.dumps(r)]
    assert rs, prefix
    r = rs[0]
    assert r["method"] == "POST", r
    return r
# ntfy: POST to the topic, the message as body, Title / Priority / Tags, Bearer token
r = one("/disks")
h = r["headers"]
assert r["path"] == "/disks", r
assert h["title"].startswith("[WARNING] temperature_warning on demo"), h
assert h["priority"] == "4", h
assert h["tags"] == "warning,nvmond,temperature_warning,home", h
assert h["authorization"] == "Bearer " + ntfy_tok, h
assert h["content-type"].startswith("text/plain"), h
assert "WCTEMP" in r["body"], r
# Gotify: POST /message, X-Gotify-Key, JSON title / message / priority
r = one("/message")
assert r["headers"]["x-gotify-key"] == gotify_tok and r["headers"]["content-type"] == "application/json", r
b = json.loads(r["body"])
assert set(b) == {"title", "message", "priority"} and b["priority"] == 5, b
# Slack: the secret URL, JSON text + blocks (header, mrkdwn section, context)
r = one("/services/T0/B0/")
assert r["path"] == "/services/T0/B0/" + slack_secret, r
b = json.loads(r["body"])
assert b["text"].startswith("[WARNING] temperature_warning"), b
assert [x["type"] for x in b["blocks"]] == ["header", "section", "context"], b
assert b["blocks"][1]["text"]["type"] == "mrkdwn", b
# Discord: content + one embed, orange for a warning
r = one("/api/webhooks/1/d")
b = json.loads(r["body"])
assert b["content"].startswith("[WARNING]") and len(b["embeds"]) == 1, b
assert b["embeds"][0]["color"] == 0xE67E22 and "WCTEMP" in b["embeds"][0]["description"], b
assert b["allowed_mentions"] == {"parse": []}, b
# Telegram: POST <api_url>/bot<token>/sendMessage, chat_id, text
r = one("/tg/bot")
assert r["path"] == "/tg/bot%s/sendMessage" % tg_tok, r["path"]
b = json.loads(r["body"])
assert b["chat_id"] == -10042 and "temperature_warning" in b["text"], b
PYEOF

# Filters: the warnings went to the critical-only and media_errors-only sinks
# not at all (what a loaded machine may add, e.g. a critical "unresponsive" of a
# demo drive at start, may reach them: only what their filter lets through); the
# one for the serial of demo1 got demo1's only.
wait_for 10 at_least 1 "r['path'] == '/demo1'" || fail "demo1-only got nothing"
[ "$(reqs "r['path'] == '/critical' and json.loads(r['body'])['severity'] != 'critical'")" = 0 ] ||
	fail "min_severity = critical let a lesser one through: $(grep /critical "$REQ" | head -3)"
[ "$(reqs "r['path'] == '/media' and json.loads(r['body'])['rule'] != 'media_errors'")" = 0 ] ||
	fail "rules = media_errors let another rule through: $(grep /media "$REQ" | head -3)"
[ "$(reqs "r['path'] in ('/critical', '/media') and 'temperature_warning' in r['body']")" = 0 ] ||
	fail "a filter let a warning through"
[ "$(reqs "r['path'] == '/demo1' and '\"serial\":\"DEMO980PRO00002\"' not in r['body']")" = 0 ] ||
	fail "devices filter: $(grep /demo1 "$REQ")"

# The real Alertmanager has both, with their labels.
wait_for 10 sh -c "[ \"\$(amtool --alertmanager.url=http://127.0.0.1:$AMP alert query alertname=temperature_warning -o json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')\" = 2 ]" ||
	fail "Alertmanager has not both alerts: $(am_alerts)"
curl -fsS "http://127.0.0.1:$AMP/api/v2/alerts?filter=alertname%3D%22temperature_warning%22" |
	tee "$TMP/am-alerts.json" | python3 -c '
import datetime, json, socket, sys
a = json.load(sys.stdin)
for x in a:
    l = x["labels"]
    assert l["severity"] == "warning" and l["instance"] == socket.gethostname(), l
    assert l["device"] in ("demo0", "demo1") and l["serial"] and l["model"], l
    assert "WCTEMP" in x["annotations"]["message"], x
    assert x["status"]["state"] == "active", x
    # endsAt = now + 4 x 2 s: it would not expire within the 3 s the resolve check allows
    ends = datetime.datetime.fromisoformat(x["endsAt"].replace("Z", "+00:00"))
    assert (ends - datetime.datetime.now(datetime.timezone.utc)).total_seconds() > 4, x
' || fail "Alertmanager labels"
# Re-sent while active (resend_interval = 2s).
wait_for 10 sh -c "curl -fsS http://127.0.0.1:$PORT/api/v1/alerts | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)[\"sinks\"][\"am\"][\"resent\"] >= 2 else 1)'" ||
	fail "the am sink does not re-send"

# ---- one sink tested by name; an unknown name is a 404
code=$(curl -s -o "$TMP/t.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	"http://127.0.0.1:$PORT/api/v1/alerts/test?sink=tg")
[ "$code" = 200 ] || fail "test?sink=tg: $code $(cat "$TMP/t.json")"
wait_for 10 at_least 1 "r['path'].startswith('/tg/') and '[TEST]' in r['body']" || fail "the test did not reach tg"
[ "$(reqs "'[TEST]' in r['body'] and not r['path'].startswith('/tg/')")" = 0 ] ||
	fail "the test of one sink reached others"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	"http://127.0.0.1:$PORT/api/v1/alerts/test?sink=nope")
[ "$code" = 404 ] || fail "test?sink=nope: $code"

# ---- counters by name; secrets nowhere
J=$(http_get /api/v1/alerts)
M=$(http_get /metrics)
jq_py "$J" '
s = j["sinks"]
for name, t in (("phone", "ntfy"), ("gotify", "gotify"), ("slack", "slack"), ("discord", "discord"), ("tg", "telegram"), ("am", "alertmanager")):
    assert s[name]["type"] == t and s[name]["delivered"] >= 2 and s[name]["failed"] == 0, (name, s[name])
# min_severity = critical: fewer through than the unfiltered sink got (the warnings stayed out;
# a critical alert of a demo drive at start, heavy throttling, may rightly go through).
assert s["critical-only"]["queued"] < s["phone"]["queued"], s
assert not s["exec"]["enabled"] and not s["webhook"]["enabled"], s
' || fail "GET /api/v1/alerts sinks: $J"
echo "$M" | grep -Eq '^nvmond_alert_deliveries_total\{sink="phone",result="delivered"\} [2-9]' ||
	fail "metrics by sink: $(echo "$M" | grep alert_deliveries)"
echo "$M" | grep -Eq '^nvmond_alert_resent_total\{sink="am"\} [1-9]' || fail "resent metric"
for secret in "$NTFY_TOKEN" "$GOTIFY_TOKEN" "$TG_TOKEN" "$SLACK_SECRET"; do
	for where in "$J" "$M" "$(cat "$DAEMON_LOG")"; do
		case $where in *"$secret"*) fail "a secret leaked: $secret" ;; esac
	done
done

# ---- userinfo never shown: each leak-* sink fails, and its last_error and the log say why
# without a byte of the user or the password
for k in hash slash query; do
	curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" \
		"http://127.0.0.1:$PORT/api/v1/alerts/test?sink=leak-$k" || fail "test?sink=leak-$k"
done
leaks_failed() {
	jq_py "$(http_get /api/v1/alerts)" '
s = j["sinks"]
assert all(s["leak-" + k]["failed"] == 1 for k in ("hash", "slash", "query")), s'
}
wait_for 10 leaks_failed || fail "the leak-* sinks did not fail: $(http_get /api/v1/alerts)"
J=$(http_get /api/v1/alerts)
jq_py "$J" '
s = j["sinks"]
print("\n".join("leak-%s: %s" % (k, s["leak-" + k]["last_error"]) for k in ("hash", "slash", "query")))
for k in ("hash", "slash", "query"):
    e = s["leak-" + k]["last_error"]
    assert e.startswith("http://127.0.0.1:"), (k, e)
' || fail "leak-* last_error (above)"
for where in "$J" "$(cat "$DAEMON_LOG")"; do
	case $where in *"$LEAK_USER"* | *"$LEAK_PW"*) fail "userinfo shown: $(echo "$where" | grep -o ".\{40\}$LEAK_USER.\{30\}" | head -3)" ;; esac
done

# ---- a restart sends nothing twice; Alertmanager's alerts are kept alive
stop_daemon
before=$(reqs "$firing")
start_daemon -c "$TMP/nvmond.conf"
wait_polls 10
[ "$(reqs "$firing")" = "$before" ] || fail "notifications re-sent after a restart"
wait_for 10 sh -c "curl -fsS http://127.0.0.1:$PORT/api/v1/alerts | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)[\"sinks\"][\"am\"][\"resent\"] >= 1 else 1)'" ||
	fail "the am sink does not re-send after a restart"
[ "$(am_alerts)" = "demo0 demo1" ] || fail "Alertmanager lost an alert: $(am_alerts)"
stop_daemon

# ---- margin 0: both resolve; every sink is told, and Alertmanager resolves them
# (sooner than their endsAt: nvmond sent the resolve)
write_conf 0
start_daemon -c "$TMP/nvmond.conf"
# demo1 (the 980 PRO, ~44 °C against WCTEMP 82) resolves at margin 0; demo0 (the
# 950 PRO) runs a heat cycle that may keep it above its WCTEMP (70 °C) and its
# warning rightly firing, so only demo1's resolve is asked of every receiver.
wait_for 10 at_least 1 "r['path'] == '/disks' and r['headers']['title'].startswith('[RESOLVED] temperature_warning on demo1')" ||
	fail "ntfy got no resolved for demo1"
am_demo1_resolved() { case " $(am_alerts) " in *" demo1 "*) return 1 ;; esac; }
wait_for 3 am_demo1_resolved || fail "Alertmanager did not resolve demo1: $(am_alerts)"
[ "$(reqs "r['path'] == '/demo1' and 'resolved' in r['body']")" = 0 ] || fail "resolved = no was not kept"

# ---- SIGHUP: a sink added, one removed
sed -i -e '/^\[sink "discord"\]/,/^$/d' "$TMP/nvmond.conf"
printf '\n[sink "late"]\ntype = ntfy\nurl = http://127.0.0.1:%s/late\n' "$LP" >> "$TMP/nvmond.conf"
kill -HUP "$DAEMON_PID"
wait_for 10 grep -q "configuration reloaded" "$DAEMON_LOG" || fail "no reload"
discord_before=$(reqs "r['path'].startswith('/api/webhooks/')")
T=$(curl -fsS -X POST -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/alerts/test") || fail "test after reload"
jq_py "$T" 'assert "discord" not in j["sinks"] and j["sinks"]["late"]["enabled"], j["sinks"]' || fail "sinks after reload: $T"
wait_for 10 at_least 1 "r['path'] == '/late' and 'TEST' in r['headers'].get('title', '')" || fail "the new sink got nothing"
wait_for 10 at_least 1 "r['path'].startswith('/tg/') and r['body'].count('[TEST]') and 'POST /api/v1/alerts/test' in r['body']" || fail "tg"
[ "$(reqs "r['path'].startswith('/api/webhooks/')")" = "$discord_before" ] || fail "the removed sink still posts"
stop_daemon
pass
