#!/usr/bin/env bash
# The dashboard's issue-13 views on a demo year (tests/dashboard/year.test.js): the
# cache-recovery chart, the group runs and the group view, each against the API,
# and a copy-to started from the probe picker. Screenshots in build/artifacts/dashboard.
# Env: NVMOND_BIN, NVMOND_SRC, NVMOND_BUILD (ctest).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dashboard_env.sh"
mkdir -p "$ARTIFACTS"
rm -f "$ARTIFACTS"/year-*.png

TOKEN=year-$RANDOM
# Three drives: the copy-to runs demo1 → demo2, clear of demo0's warm spells.
cat > "$TMP/nvmond.conf" << CONF
[daemon]
database = $TMP/nvmond.db
demo = yes
demo_drives = 3
web_root = $NVMOND_SRC/web
[http]
token = $TOKEN
[probes]
lock_dir = $TMP/locks
CONF
start_daemon -c "$TMP/nvmond.conf"
# Ready: every drive listed with a sample (the first start backfills the year).
with_samples() {
	[ "$(jq_py "$(http_get /api/v1/devices)" 'print(sum(1 for d in j["devices"] if d["latest"]))')" = 3 ]
}
wait_for 30 with_samples || fail "three drives with samples"

NVMOND_URL="http://127.0.0.1:$PORT" ARTIFACTS="$ARTIFACTS" NVMOND_TOKEN=$TOKEN \
	timeout 180 node "$NODE_DIR/year.test.js" || fail "browser test (screenshots in $ARTIFACTS)"
for shot in recovery group copy-to; do
	[ -s "$ARTIFACTS/year-$shot-light.png" ] || fail "no screenshot year-$shot-light.png"
done
stop_daemon
pass
