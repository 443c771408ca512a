#!/usr/bin/env bash
# A drive's health is one rule (docs/dashboard.md#health): for every drive of the demo,
# GET /api/v1/devices' health.state (what the dashboard shows) is the state
# /metrics' nvmond_device_health StateSet sets to 1 (what a fleet's engine shows).
# With every alert rule off, so no alert fires, the demo still has drives that are
# not ok (demo5: 97 % used, at WCTEMP, 90 % of its rated TBW; its temperature bit),
# where /metrics' old rule (firing alerts only) said ok; a controller made
# unresponsive (the demo's hang hook) is critical in both; after a reload with the
# rules on, the alerts that fire are among the reasons and the two still agree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

: > "$TMP/hang"
export NVMOND_DEMO_HANG=$TMP/hang
conf() { # conf yes|no: the alert rules on or off
	cat > "$TMP/nvmond.conf" << EOF
[daemon]
database = $TMP/nvmond.db
demo = yes
demo_drives = 6
demo_history = no
poll_interval = 1s
device_timeout = 1s
[alerts]
throttling = $1
temperature = $1
critical_warning = $1
spare = $1
percent_used = $1
media_errors = $1
offline = $1
unresponsive = $1
wear = $1
io_errors = $1
link_degraded = $1
firmware_changed = $1
selftest = $1
below_rated = $1
EOF
}
conf no
start_daemon -c "$TMP/nvmond.conf"

# agree [MIN_NOT_OK]: every drive's API state is its StateSet's 1; prints "name=state …".
# The demo's temperatures move every second: the API is read before and after /metrics
# and only a drive whose two API answers agree is compared (each must agree once in 20 tries).
agree() {
	python3 - "http://127.0.0.1:$PORT" "${1:-0}" << 'EOF'
import json, re, sys, time, urllib.request
base, min_not_ok = sys.argv[1], int(sys.argv[2])
get = lambda p: urllib.request.urlopen(base + p, timeout=10).read().decode()
checked, last = {}, {}
for attempt in range(20):
    before = {d["name"]: d for d in json.loads(get("/api/v1/devices"))["devices"]}
    text = get("/metrics")
    after = {d["name"]: d for d in json.loads(get("/api/v1/devices"))["devices"]}
    for name, d in before.items():
        if name in checked or d["health"]["state"] != after[name]["health"]["state"]:
            continue
        ones = re.findall(r'^nvmond_device_health\{device="%s",[^}]*,state="([a-z]+)"\} 1$' % name, text, re.M)
        series = re.findall(r'^nvmond_device_health\{device="%s",' % name, text, re.M)
        assert len(series) == 5, (name, "a StateSet of five states", len(series))
        assert ones == [d["health"]["state"]], (name, "API", d["health"], "/metrics", ones)
        checked[name] = d["health"]
    if len(checked) == len(before):
        break
    time.sleep(0.2)
else:
    sys.exit("drives never read twice alike: %s" % sorted(set(before) - set(checked)))
not_ok = [n for n, h in checked.items() if h["state"] != "ok"]
assert len(not_ok) >= min_not_ok, ("drives not ok", checked)
print(" ".join("%s=%s" % (n, h["state"]) for n, h in sorted(checked.items())))
EOF
}

# ---- every rule off: no alert fires, the drives' own figures still count
sampled() { jq_py "$(http_get /api/v1/devices)" 'assert all(d["latest"] for d in j["devices"])'; }
wait_for 10 sampled || fail "not every drive has a sample after 10 s"
jq_py "$(http_get /api/v1/alerts)" 'assert j["active"] == [], j["active"]' || fail "an alert fires with every rule off"
out=$(agree 1) || fail "API and /metrics disagree with the alert rules off"
echo "ok: rules off, no alert firing: $out"
jq_py "$(http_get /api/v1/devices)" '
h = [d for d in j["devices"] if d["name"] == "demo5"][0]["health"]
assert h["state"] in ("warning", "critical"), h
assert any(w.endswith(" % used") for w in h["why"]), h
assert "90 % of rated TBW" in h["why"], h' || fail "demo5's reasons: $(http_get /api/v1/devices/6)"

# ---- a controller that stops answering: critical in both, its rule off
echo demo1 > "$TMP/hang"
demo1_critical() { agree 2> /dev/null | grep -q 'demo1=critical'; }
wait_for 15 demo1_critical || fail "demo1 hung: $(agree 2>&1)"
jq_py "$(http_get /api/v1/devices/2)" '
assert j["state"] == "unresponsive" and j["health"]["why"][0].startswith("unresponsive"), j["health"]' ||
	fail "demo1's health while unresponsive"
: > "$TMP/hang"
demo1_back() { agree 2> /dev/null | grep -q 'demo1=ok'; }
wait_for 15 demo1_back || fail "demo1 answers again: $(agree 2>&1)"
echo "ok: an unresponsive controller is critical in the API and /metrics, ok again after"

# ---- the rules on (reload): the alerts firing are reasons too, and the two agree
conf yes
kill -HUP "$DAEMON_PID"
fired() {
	python3 - "http://127.0.0.1:$PORT" << 'EOF' 2> /dev/null
import json, sys, urllib.request
get = lambda p: json.load(urllib.request.urlopen(sys.argv[1] + p, timeout=10))
a = [x for x in get("/api/v1/alerts")["active"] if x["rule"] == "percent_used_90"]
assert a
assert a[0]["message"] in get("/api/v1/devices/%d" % a[0]["device_id"])["health"]["why"]
EOF
}
wait_for 15 fired || fail "no percent_used_90 alert among its drive's reasons: $(http_get /api/v1/alerts | head -c 600)"
out=$(agree 1) || fail "API and /metrics disagree with the alert rules on"
echo "ok: rules on: $out"
stop_daemon
pass
