#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTTP server under abuse (docs/security.md#http-limits), against the real daemon:
# - 1,000 idle and slow-loris connections from 127.0.0.2: [http] max_connections_per_ip
#   keeps 16 of them, /healthz from 127.0.0.1 still answers within 100 ms, RSS stays put;
# - [http] max_connections: past it 16 connections answer /healthz alone (503 otherwise,
#   closed after the answer); past those a client waits until one closes;
# - [http] request_timeout: headers sent a byte at a time are cut at the deadline;
# - malformed requests (64 KiB header, 100,000-character URL, invalid UTF-8, NUL, every
#   method, pipelining, a body on GET, lying Content-Lengths) get a clean 4xx or a closed
#   connection, and the next request works; 401 comes before 413; "bearer" in any case;
# - issue 23: ambiguous framing (Transfer-Encoding with Content-Length, two
#   Content-Lengths: the smuggled request is not served), unknown codings, chunked
#   bodies, a 40 KB chunk extension, 600 query parameters, two Authorization or Host
#   fields, no Host: a JSON 4xx at once, closed; Host names (DNS rebinding: 421);
#   request bodies of endpoints that read none (empty or JSON);
# - 50 slow readers of /samples do not pin the samples in memory.
# Then, with the default limits (256 connections, 32 per address) and short timeouts
# (issue 23): 8 addresses x 32 clients sending a body a byte at a time, then reading a
# large /samples a byte at a time, hold every connection: /healthz from another address
# answers within 100 ms throughout, the systemd watchdog is fed, and they are closed
# within body_timeout / send_timeout; 24 short-lived clients from one address are never
# refused under its limit of 32.
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
allowed_hosts = nvmond.example
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
python3 "$abuse" framing "$PORT" abuse-test-token "$(hostname)" > "$TMP/framing" ||
	fail "framing, Host and bodies: $(grep FAIL "$TMP/framing")"
echo "ok: $(grep -c '^ok' "$TMP/framing") checks of framing, Host and request bodies"

# 50 clients ask for up to 100,000 samples (about 57,000 here) and read one byte every
# 0.5 s: before the stream read a page at a time, RSS grew by 150 MB.
id=$(demo_id demo0)
path="/api/v1/devices/$id/samples?from=$(( $(date +%s) - 4 * 86400 ))000&limit=100000"
python3 "$abuse" slow "$PORT" "$DAEMON_PID" 50 "$path" 65536 || fail "slow readers of /samples"

kill -0 "$DAEMON_PID" || fail "the daemon died"
stop_daemon

# ---- slow clients that hold every connection (issue 23) --------------------------------
# The default limits, short timeouts (each its own, so that a mix-up shows), and the
# watchdog: a datagram listener as $NOTIFY_SOCKET records each WATCHDOG=1.
cat > "$TMP/slow.conf" <<CONF
[daemon]
demo_drives = 1
poll_interval = 200ms
[http]
threads = 4
request_timeout = 5s
body_timeout = 2s
send_timeout = 3s
CONF
python3 - "$TMP/notify.sock" "$TMP/notify.log" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "w", buffering=1) as f:
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            break
        for line in msg.split("\n"):
            f.write("%.3f %s\n" % (time.monotonic(), line))
        if "STOPPING=1" in msg.split("\n"):
            break
PY
LISTENER=$!
for _ in $(seq 50); do [ -S "$TMP/notify.sock" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$TMP/notify.sock WATCHDOG_USEC=1000000 \
	start_daemon --demo -c "$TMP/slow.conf" --db "$TMP/nvmond.db"
t_begin=$(python3 -c 'import time; print(time.monotonic())')
python3 "$abuse" slowfill "$PORT" "$DAEMON_PID" body /healthz 2 ||
	fail "slow bodies from 8 addresses x 32"
# 500 samples, about 250 KB: several times what the buffers on the way hold (the
# daemon's 32 KiB, the socket's 16 KiB unsent, the client's 4 KiB), and cheap enough
# that 256 of them at once keep a sanitizer build busy for a second only.
path="/api/v1/devices/$id/samples?from=$(( $(date +%s) - 4 * 86400 ))000&limit=500"
python3 "$abuse" slowfill "$PORT" "$DAEMON_PID" read "$path" 3 ||
	fail "slow readers of /samples from 8 addresses x 32"
python3 "$abuse" shortlived "$PORT" 1.5 24 || fail "short-lived clients from one address"
t_end=$(python3 -c 'import time; print(time.monotonic())')
stop_daemon
wait "$LISTENER"
# WatchdogSec=1 s: a ping every 0.5 s from the loop, whatever the HTTP clients did.
python3 - "$TMP/notify.log" "$t_begin" "$t_end" <<'PY' || fail "the watchdog was not fed during the attacks"
import sys
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
t = [float(l.split()[0]) for l in open(sys.argv[1]) if l.split()[1:] == ["WATCHDOG=1"]]
t = [x for x in t if t0 - 1 <= x <= t1 + 1]
gaps = [b - a for a, b in zip(t, t[1:])]
print(f"ok: watchdog: {len(t)} pings over {t1 - t0:.1f} s of attacks, widest gap {max(gaps):.2f} s")
assert len(t) >= 2 * (t1 - t0) - 2 and max(gaps) < 0.9, gaps
PY
pass
