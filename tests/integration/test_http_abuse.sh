#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTTP server under abuse (docs/security.md#http-limits), against the real daemon:
# - 1,000 idle and slow-loris connections from 127.0.0.2: [http] max_connections_per_ip
#   keeps 16 of them, /healthz from 127.0.0.1 still answers within 100 ms, RSS stays put;
# - [http] max_connections: the connection past it waits until one closes;
# - [http] request_timeout: headers sent a byte at a time are cut at the deadline;
# - malformed requests (64 KiB header, 100,000-character URL, invalid UTF-8, NUL, every
#   method, pipelining, a body on GET, lying Content-Lengths) get a clean 4xx or a closed
#   connection, and the next request works; 401 comes before 413; "bearer" in any case;
# - 50 slow readers of /samples do not pin the samples in memory.
# The raw clients are in http_abuse.py.
set -u
for tool in curl python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"
abuse="$(dirname "$0")/http_abuse.py"

cat > "$TMP/nvmond.conf" <<CONF
[daemon]
demo_drives = 1
poll_interval = 200ms
[http]
threads = 4
token = abuse-test-token
max_connections = 64
max_connections_per_ip = 16
request_timeout = 2s
CONF
# /samples below needs many raw samples: the demo year leaves one in 2 min of the last
# week; fill the gaps of the last 3 days, 5 s apart (copies of the newest sample).
start_daemon --demo -c "$TMP/nvmond.conf" --db "$TMP/nvmond.db"
stop_daemon
python3 - "$TMP/nvmond.db" <<'PY' || fail "filling the samples"
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(samples)")]
dev, ts = db.execute("SELECT device_id, ts_ms FROM samples ORDER BY ts_ms DESC LIMIT 1").fetchone()
now = int(time.time() * 1000)
sel = ", ".join("?1 - s.n * 5000 + 3" if c == "ts_ms" else "x." + c for c in cols)
db.execute(f"""INSERT OR IGNORE INTO samples ({", ".join(cols)})
  WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 52000)
  SELECT {sel} FROM s, samples x WHERE x.device_id = ?2 AND x.ts_ms = ?3""", (now, dev, ts))
db.commit()
n = db.execute("SELECT count(*) FROM samples WHERE device_id = ? AND ts_ms >= ?",
               (dev, now - 4 * 86400 * 1000)).fetchone()[0]
if n < 50000:
    sys.exit(f"FAIL: {n} samples in the last 4 days, want >= 50,000 for a fair test")
PY
# Under AddressSanitizer freed memory waits in a quarantine (256 MB): the RSS bounds
# below would measure that. Without the quarantine they measure the daemon.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
start_daemon --demo -c "$TMP/nvmond.conf" --db "$TMP/nvmond.db"

python3 "$abuse" flood "$PORT" "$DAEMON_PID" 1000 16 || fail "flood"
python3 "$abuse" total "$PORT" 64 16 || fail "total connection limit"
python3 "$abuse" loris "$PORT" 2 || fail "request deadline"
python3 "$abuse" malformed "$PORT" abuse-test-token > "$TMP/malformed" ||
	fail "malformed requests: $(grep FAIL "$TMP/malformed")"
echo "ok: $(grep -c '^ok' "$TMP/malformed") checks of malformed requests"

# 50 clients ask for up to 100,000 samples (about 57,000 here) and read one byte every
# 0.5 s: before the stream read a page at a time, RSS grew by 150 MB.
id=$(demo_id demo0)
path="/api/v1/devices/$id/samples?from=$(( $(date +%s) - 4 * 86400 ))000&limit=100000"
python3 "$abuse" slow "$PORT" "$DAEMON_PID" 50 "$path" 65536 || fail "slow readers of /samples"

kill -0 "$DAEMON_PID" || fail "the daemon died"
stop_daemon
pass
