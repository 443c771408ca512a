#!/usr/bin/env bash
# The overview with 32 demo drives ([daemon] demo_drives) in a real browser: the
# table by default, sorting and the problem filter, and the load time (navigation
# start → table drawn), which must stay under 2 s. Screenshots: $NVMOND_BUILD/artifacts/dashboard/many-*.png.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dashboard_env.sh"
mkdir -p "$ARTIFACTS"
rm -f "$ARTIFACTS"/many-*.png
DRIVES=32

cat > "$TMP/nvmond.conf" << CONF
[daemon]
database = $TMP/nvmond.db
demo = yes
demo_drives = $DRIVES
web_root = $NVMOND_SRC/web
[probes]
lock_dir = $TMP/locks
CONF
PORT=$(free_port)
"$NVMOND_BIN" --listen "127.0.0.1:$PORT" -c "$TMP/nvmond.conf" >> "$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 300); do
	kill -0 "$DAEMON_PID" 2> /dev/null || fail "daemon exited at start"
	# Ready: every drive listed with a sample (the first start may backfill a demo year).
	n=$(curl -fsS --max-time 5 "http://127.0.0.1:$PORT/api/v1/devices" 2> /dev/null |
		python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin)["devices"] if d["latest"]))' 2> /dev/null) || n=0
	[ "$n" = "$DRIVES" ] && break
	sleep 0.1
done
[ "$n" = "$DRIVES" ] || fail "the daemon does not list $DRIVES drives with samples after 30 s (has $n)"

NVMOND_URL="http://127.0.0.1:$PORT" ARTIFACTS="$ARTIFACTS" MODE=many DRIVES=$DRIVES \
	timeout 180 node "$NODE_DIR/dashboard.test.js" || fail "browser test (screenshots in $ARTIFACTS)"
stop_daemon
pass
