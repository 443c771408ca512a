#!/usr/bin/env bash
# The dashboard in a real browser: the daemon in demo mode, Debian's chromium
# headless driven by playwright-core (pinned in tests/dashboard/package.json).
# Screenshots stay in $NVMOND_BUILD/artifacts/dashboard/: overview (the default layout),
# overview-table and drive, each wide (1400 px) and at 390 px, light and dark.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/dashboard_env.sh"
mkdir -p "$ARTIFACTS"
find "$ARTIFACTS" -name '*.png' ! -name 'many-*' -delete # many-*: test_dashboard_many's

TOKEN=dash-$RANDOM
cat > "$TMP/nvmond.conf" << CONF
[daemon]
database = $TMP/nvmond.db
demo = yes
# The browser test counts the probe runs it makes: no demo year of past ones.
demo_history = no
# A third drive, cool, for a copy-to run from demo1 (the 950 PRO runs hot).
demo_drives = 3
poll_interval = 1s
web_root = $NVMOND_SRC/web
[http]
token = $TOKEN
[probes]
# The drives' probe locks, apart from any other nvmond on this machine.
lock_dir = $TMP/locks
phase_duration = 3s
# What the operator calls the hot 950 PRO: on its card, its table row, its page's title.
[device "DEMO950PRO00001"]
label = "bay 3 – scratch"
location = rack 12 U4
CONF
start_daemon -c "$TMP/nvmond.conf"

# Two probes on the cool 980 PRO (demo1): a plain one, and sustained-write, which
# finds its write cache (a cliff) — the drive page charts both.
D1=$(jq_py "$(http_get /api/v1/devices)" "print([d['id'] for d in j['devices'] if d['serial'] == 'DEMO980PRO00002'][0])")
for preset in seq1m-q8 sustained-write; do
	out=$(curl -fsS -H "Authorization: Bearer $TOKEN" -d "{\"preset\":\"$preset\"}" \
		"http://127.0.0.1:$PORT/api/v1/devices/$D1/probes") || fail "POST $preset"
	id=$(jq_py "$out" "print(j['id'])")
	for _ in $(seq 600); do
		state=$(jq_py "$(http_get "/api/v1/devices/$D1/probes")" "print([r['state'] for r in j['probes'] if r['id'] == $id][0])")
		[ "$state" != running ] && break
		sleep 0.1
	done
	[ "$state" != running ] || fail "probe $preset still running after 60 s"
done
# Wear counts the probes' writes apart.
jq_py "$(http_get "/api/v1/devices/$D1/wear")" "
import urllib.request
runs = json.load(urllib.request.urlopen('http://127.0.0.1:$PORT/api/v1/devices/$D1/probes?limit=1000'))['probes']
assert j['probe_bytes_written'] == sum(r['bytes_written'] for r in runs) > 0, (j['probe_bytes_written'], runs)
assert j['host_bytes_written'] == j['bytes_written'] - j['probe_bytes_written']
" || fail "wear does not count the probe writes apart"

NVMOND_URL="http://127.0.0.1:$PORT" PROBED_DEVICE=$D1 ARTIFACTS="$ARTIFACTS" NVMOND_TOKEN=$TOKEN \
	timeout 180 node "$NODE_DIR/dashboard.test.js" || fail "browser test (screenshots in $ARTIFACTS)"
for shot in overview overview-table drive; do
	for v in light dark 390-light 390-dark; do
		[ -s "$ARTIFACTS/$shot-$v.png" ] || fail "no screenshot $shot-$v.png"
	done
done
stop_daemon
pass
