#!/usr/bin/env bash
# An idle daemon sleeps (issue 23 §5; docs/architecture.md#idle-wakeups says what is
# measured and the target): besides the work a poll needs (the poll timer, its device
# commands and their answers), no thread of the daemon or of its device process wakes
# on a period of its own.
#  1. Each thread's own deadline: with a poll every hour, under a service manager
#     with a 3-hour watchdog, after the first poll every thread of both processes
#     sleeps without a deadline or with one no sooner than the next poll
#     (/proc/PID/task/TID/syscall: the main loop's poll(2) timeout, a timed
#     condition's deadline). A loop timer of a fixed period (the database check,
#     the systemd tick, the probe or self-test schedule's tick, the rollup step, a
#     command's deadline left armed) or the HTTP reaper's 250 ms wait shows as a
#     deadline within seconds, named by its thread. Root (or ptrace rights) and
#     x86_64 only: else skipped, visibly.
#  1b. A probe schedule added by a reload (SIGHUP) at that 1 h poll: the main loop
#     then sleeps until its start, minutes away, not until the next poll (the
#     scheduler reads it at once, not at its next look in a poll's wakeup).
#  Both parts run with every kind of thread the daemon has at idle: a remote-write
#  export (to a receiver here that answers 204), a webhook sink and, with mosquitto
#  installed, an MQTT sink (its publisher and libmosquitto's network thread).
#  2. Wakeups counted: at a 2 s poll, over 4 intervals, each thread goes to sleep
#     (voluntary context switches, which the machine's load does not add) at most
#     as often as its share of a poll's work allows (idle-wakeups.budget); a thread
#     that polls, or one that should not wake at all, fails the test by its name.
#  2b. Over 2 polls the main loop reads nothing from mainq's eventfd (strace): no
#     thread asks it for anything at idle; an export's round takes what it needs
#     from the loop in a poll's wakeup. Skipped without strace or ptrace rights.
# Env (ctest): NVMOND_BIN.
set -u
for tool in curl python3 sqlite3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"
W=$(dirname "$0")/wakeups.py

PIDS=()
trap 'for p in "${PIDS[@]}"; do { kill -9 "$p" && wait "$p"; } 2> /dev/null; done; cleanup' EXIT
# A remote-write receiver (every push answered 204), also the webhook's.
RW_PORT=$(free_port)
python3 - "$RW_PORT" > /dev/null 2>&1 << 'EOF' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
PIDS+=($!)
wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$RW_PORT/" || fail "the receiver did not start"
BPORT=
if command -v mosquitto > /dev/null; then
	BPORT=$(free_port)
	printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$BPORT" > "$TMP/mosq.conf"
	mosquitto -c "$TMP/mosq.conf" > "$TMP/mosq.log" 2>&1 &
	PIDS+=($!)
	wait_for 10 python3 -c "import socket; socket.create_connection(('127.0.0.1', $BPORT), 1)" ||
		fail "mosquitto did not start: $(cat "$TMP/mosq.log")"
else
	echo "SKIP (part): mosquitto not installed: no MQTT sink"
fi
# extras KEEPALIVE: the sections of every kind of thread: an export, a webhook sink, an
# MQTT sink (with the broker). The rules the demo drives' swinging temperatures fire are
# off: a notification is work, not idle, and must not fall in a window (the first poll's
# wear alerts go before it).
extras() {
	printf '[alerts]\nwebhook = http://127.0.0.1:%s/hook\n' "$RW_PORT"
	printf 'throttling = no\ntemperature = no\ncritical_warning = no\n'
	printf '[export "rw"]\ntype = remote_write\nurl = http://127.0.0.1:%s/api/v1/write\n' "$RW_PORT"
	[ -z "$BPORT" ] ||
		printf '[sink "ha"]\ntype = mqtt\nhost = 127.0.0.1\nport = %s\nkeepalive = %s\n' "$BPORT" "$1"
}

samples() { sqlite3 "$1" 'SELECT count(*) FROM samples' 2>/dev/null || echo 0; }
has_samples() { [ "$(samples "$1")" -ge "$2" ]; }

echo "1. every thread's own deadline, at idle with a poll every hour"
cat > "$TMP/hour.conf" <<CONF
[daemon]
poll_interval = 1h
demo_history = no
CONF
extras 1h >> "$TMP/hour.conf"
# A service manager that is not there (sends fail), with a watchdog of 3 hours:
# it is fed at a poll, no sooner than every 45 min, by 90 min at the latest.
NOTIFY_SOCKET=$TMP/no-manager WATCHDOG_USEC=10800000000 \
	start_daemon --demo -c "$TMP/hour.conf" --db "$TMP/hour.db"
wait_for 10 has_samples "$TMP/hour.db" 2 || fail "the first poll's samples were not stored"
# The first poll's self-test log reads are answered too.
wait_log_for "DEMO950PRO00001: 20 results from the drive's log stored" 10
wait_log_for "DEMO980PRO00002: 20 results from the drive's log stored" 10
# The HTTP reaper checks each 250 ms while a connection is listed: /healthz's of
# start_daemon until it goes, one that never started within 5 s (api_conn.c).
for _ in $(seq 20); do
	rc=0
	python3 "$W" sleeps "$DAEMON_PID" 3000 > "$TMP/sleeps.out" || rc=$?
	[ "$rc" = 1 ] && grep -q 'wakes early: thread http-reaper' "$TMP/sleeps.out" &&
		[ "$(grep -c 'wakes early' "$TMP/sleeps.out")" = 1 ] || break
	sleep 0.5
done
cat "$TMP/sleeps.out"
case $rc in
0) echo "ok: no thread wakes before the next poll, an hour on" ;;
77) echo "SKIP (part): $(grep SKIP "$TMP/sleeps.out")" ;;
*) fail "$(grep 'wakes early' "$TMP/sleeps.out" | head -5)" ;;
esac
if [ "$rc" = 0 ]; then
	echo "1b. a probe schedule added by a reload: the loop wakes for its start"
	# A whole minute 2 to 3 minutes on (UTC: the daemon's zone here).
	read -r at secs < <(python3 -c 'import time; t = (int(time.time()) // 60 + 3) * 60
print(time.strftime("%H:%M", time.gmtime(t)), t - time.time())')
	printf '[probes]\nlock_dir = %s\njitter = 0\n[device "DEMO980PRO00002"]\nprobe_schedule = daily %s rnd4k-q1\n' \
		"$TMP/locks" "$at" >> "$TMP/hour.conf"
	kill -HUP "$DAEMON_PID"
	wait_log_for "configuration reloaded" 10
	python3 "$W" sleeps "$DAEMON_PID" 3000 --main-by $((${secs%.*} + 2)) > "$TMP/sleeps.out" ||
		fail "$(grep 'wakes early' "$TMP/sleeps.out" | head -3)"
	echo "ok: the main loop wakes by $at ($(grep '| nvmond | nvmond |' "$TMP/sleeps.out" | cut -d'|' -f6))"
fi
stop_daemon

echo "2. wakeups per thread at a 2 s poll, over 4 intervals"
cat > "$TMP/fast.conf" <<CONF
[daemon]
poll_interval = 2s
demo_history = no
CONF
extras 1m >> "$TMP/fast.conf"
start_daemon --demo -c "$TMP/fast.conf" --db "$TMP/fast.db"
wait_log_for "DEMO950PRO00001: 20 results from the drive's log stored" 10
wait_log_for "DEMO980PRO00002: 20 results from the drive's log stored" 10
wait_for 10 has_samples "$TMP/fast.db" 4 || fail "no second poll"
# A new connection's burst (status, 7 retained discovery configs per drive, then the
# states) is not idle work: the window opens once the broker holds all of it (under
# load the connect may come a poll or two late; CI once counted it: 45 wakeups).
discovered() {
	[ "$(mosquitto_sub -h 127.0.0.1 -p "$BPORT" -t 'homeassistant/#' -C 14 -W 2 2> /dev/null |
		wc -l)" -ge 14 ]
}
if [ -n "$BPORT" ]; then
	if command -v mosquitto_sub > /dev/null; then
		wait_for 20 discovered || fail "the broker never got both drives' discovery configs"
	else
		echo "SKIP (part): mosquitto_sub not installed: the window may hold the connect's burst"
	fi
fi
rc=0
python3 "$W" count "$DAEMON_PID" 8 --poll 2 --budget "$(dirname "$0")/idle-wakeups.budget" \
	> "$TMP/count.out" || rc=$?
cat "$TMP/count.out"
[ "$rc" = 0 ] || fail "$(grep 'over budget' "$TMP/count.out" | head -5)"
echo "ok: every thread within its share of the polls' work"
echo "2b. the main loop takes no call from another thread at idle"
# Each round of the export follows a poll and is handed what it needs from the main loop
# in that poll's wakeup (docs/architecture.md#idle-wakeups): no mainq_call() wakes the loop.
# mainq's eventfd is the daemon's first (mainq_new() follows loop_new() in run_daemon()).
mq=$(for f in /proc/$DAEMON_PID/fd/*; do
	[ "$(readlink "$f")" = "anon_inode:[eventfd]" ] && basename "$f"
done | sort -n | head -1)
rc=0
command -v strace > /dev/null || rc=77
[ $rc = 0 ] && { timeout -s INT 4 strace -p "$DAEMON_PID" -e trace=read -o "$TMP/strace.out" \
	2> "$TMP/strace.err"; grep -q "^read(" "$TMP/strace.out" 2> /dev/null || rc=77; }
if [ $rc = 77 ]; then
	echo "SKIP (part): no strace, or it cannot trace here: $(head -c 200 "$TMP/strace.err" 2> /dev/null)"
else
	n=$(grep -c "^read($mq," "$TMP/strace.out")
	echo "the main loop's reads in 4 s: $(grep -o '^read([0-9]*' "$TMP/strace.out" | sort | uniq -c |
		tr -s ' \n' ' ') (mainq: fd $mq)"
	[ "$n" = 0 ] || fail "the main loop took $n calls from other threads (mainq, fd $mq) in 4 s at idle"
	# That it is mainq's: a GET /metrics gathers the counters through it.
	timeout -s INT 2 strace -p "$DAEMON_PID" -e trace=read -o "$TMP/strace2.out" 2> "$TMP/strace2.err" &
	spid=$!
	wait_for 2 grep -q attached "$TMP/strace2.err" || fail "strace did not attach: $(cat "$TMP/strace2.err")"
	http_get /metrics > /dev/null
	wait "$spid"
	grep -q "^read($mq," "$TMP/strace2.out" || fail "fd $mq is not mainq's: a GET /metrics read only $(
		grep -o '^read([0-9]*' "$TMP/strace2.out" | sort | uniq -c | tr -s ' \n' ' ')"
	echo "ok: no call through mainq in 2 polls (and one for a GET /metrics)"
fi
stop_daemon
pass
