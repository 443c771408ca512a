#!/usr/bin/env bash
# kill -9 of the daemon, counted (issue 15 §6): N times (default 15 under ctest;
# `bash test_crash_kill9.sh 100` by hand) at a random moment while it polls the
# demo drives every 200 ms, rolls up at start, runs a probe (demo1/demo2, never
# demo0) and delivers alert notifications to a real webhook listener that records
# every request. Alerts are made to fire and resolve on alternate starts
# (warning_margin 50, then 0). After each kill:
#  - PRAGMA integrity_check and foreign_key_check are clean;
#  - every drive's newest stored sample is at most one poll interval (plus the
#    slack of a loaded machine) older than the kill;
#  - after the restart, no probe run of the killed process is left `running`.
# At the end (a clean stop after the last restart): every notification the database
# says was made (one `firing` per alert, one `resolved` per resolved alert) reached
# the listener, counted per alert id + state; one received twice is a failure
# unless the daemon died before it recorded the delivery: a kill after the
# listener got the first request found its outbox row still there (read from the
# database right after that kill), and both carry the same notification_id.
# Env (ctest): NVMOND_BIN. Exit 77 = skipped.
set -u
for tool in curl python3 sqlite3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"

N=${1:-15}
POLL_MS=200
SLACK_MS=${KILL9_SLACK_MS:-300} # a loaded machine may run a poll late by this much
TOKEN=k9-$RANDOM$RANDOM
DB=$TMP/kill9.db
HOOK_OUT=$TMP/webhook.log

# The listener, a slow one (it answers 150 ms after each request, so that kills
# find notifications queued and in flight): one line "ALERT_ID STATE
# NOTIFICATION_ID RECEIVED_MS ANSWER_MS" per request once its 2xx answer is out. A request whose
# sender was killed before the answer does not count as received: the daemon
# sends it again.
WH_PORT=$(free_port)
python3 - "$WH_PORT" "$HOOK_OUT" >"$TMP/webhook.stderr" 2>&1 <<'PYEOF' &
import http.server, json, select, socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        received = time.time() * 1000
        j = json.loads(body)
        time.sleep(0.15)
        # A killed daemon's socket is closed at once; a write to it would still
        # "succeed" (the reset comes later), so look before answering.
        r, _, _ = select.select([self.connection], [], [], 0)
        if r and self.connection.recv(1, socket.MSG_PEEK) == b"":
            return
        try:
            self.send_response(204)
            self.end_headers()
            self.wfile.flush()
        except OSError:
            return
        with open(out, "a") as f:
            f.write("%s %s %s %d %d\n" % (j["alert_id"], j["state"], j.get("notification_id", "-"),
                                           received, time.time() * 1000))
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PYEOF
WH_PID=$!
trap 'kill $WH_PID 2>/dev/null; cleanup' EXIT
: >"$HOOK_OUT"

write_conf() { # write_conf MARGIN
	cat >"$TMP/nvmond.conf" <<-CONFEOF
		[daemon]
		poll_interval = 200ms
		demo_history = no
		demo_drives = 3
		log_level = debug
		[http]
		token = $TOKEN
		[alerts]
		warning_margin = $1
		resolve_after = 0
		cooldown = 0
		webhook = http://127.0.0.1:$WH_PORT/hook
		webhook_timeout = 2s
		[probes]
		lock_dir = $TMP/locks
		phase_duration = 500ms
	CONFEOF
}

start() {
	start_daemon --demo -c "$TMP/nvmond.conf" --db "$DB"
}

integrity_ok() {
	local out
	out=$(sqlite3 "$DB" 'PRAGMA integrity_check' 2>&1)
	[ "$out" = ok ] || fail "integrity_check after kill $1: $out"
	out=$(sqlite3 "$DB" 'PRAGMA foreign_key_check' 2>&1)
	[ -z "$out" ] || fail "foreign_key_check after kill $1: $out"
}

# The oldest of the drives' newest samples, in ms (empty before the first one).
newest_sample() {
	sqlite3 "$DB" 'SELECT min(m) FROM (SELECT max(ts_ms) AS m FROM samples GROUP BY device_id)
		HAVING count(*) > 0' 2>/dev/null
}

kills=0 probes_killed=0 max_lost=0 in_rollup=0 notes_made=0
write_conf 50
start
D1=$(demo_id demo1)
D2=$(demo_id demo2)
for i in $(seq "$N"); do
	# Every third start a probe of demo1 or demo2 (never demo0), killed mid-run.
	if [ $((i % 3)) = 0 ]; then
		dev=$D1
		[ $((i % 2)) = 0 ] && dev=$D2
		out=$(api_post "/api/v1/devices/$dev/probes" '{"preset":"seq1m-q1"}')
		[ "${out%% *}" = 202 ] && probes_killed=$((probes_killed + 1))
	fi
	# 0.05 .. 1.05 s after /healthz: starting, rolling up, polling, delivering.
	sleep "0.$(printf %02d $((5 + RANDOM % 95)))"
	[ $((RANDOM % 4)) = 0 ] && sleep 0.$((RANDOM % 10))
	grep -q 'rollup' "$DAEMON_LOG" 2>/dev/null && in_rollup=$((in_rollup + 1))
	kill_ms=$(date +%s%3N)
	kill -9 "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
	kills=$((kills + 1))
	integrity_ok "$i"
	# What the killed daemon had not yet recorded as delivered.
	echo "$kill_ms $(sqlite3 "$DB" 'SELECT group_concat(id) FROM notify_outbox' 2>/dev/null)" \
		>>"$TMP/outbox"
	newest=$(newest_sample)
	if [ -n "$newest" ]; then
		lost=$((kill_ms - newest))
		[ "$lost" -gt "$max_lost" ] && max_lost=$lost
		[ "$lost" -le $((POLL_MS + SLACK_MS)) ] ||
			fail "kill $i: the newest sample is $lost ms older than the kill (poll interval $POLL_MS ms)"
	fi
	: >"$DAEMON_LOG"
	write_conf $(((i % 2) ? 0 : 50))
	restart_ms=$(date +%s%3N)
	start
	left=$(sqlite3 "$DB" "SELECT count(*) FROM probe_runs WHERE state = 'running' AND started_ms < $restart_ms")
	[ "$left" = 0 ] || fail "kill $i: $left probe run(s) of the killed daemon still running"
done

# The end: let the last start deliver, stop cleanly, compare.
wait_polls 6
expect_from_db() {
	sqlite3 "$DB" "SELECT id || ' firing' FROM alerts
		UNION ALL SELECT id || ' resolved' FROM alerts WHERE state = 'resolved'" | sort
}
delivered_all() {
	[ -z "$(comm -23 <(expect_from_db) <(cut -d' ' -f1,2 "$HOOK_OUT" | sort -u))" ]
}
wait_for 20 delivered_all || true
stop_daemon
integrity_ok final
# Every delivery recorded: a row left behind would be sent again at each start.
left_rows=$(sqlite3 "$DB" 'SELECT count(*) FROM notify_outbox')
notes_made=$(expect_from_db | wc -l)
received=$(wc -l <"$HOOK_OUT")
lost=$(comm -23 <(expect_from_db) <(cut -d' ' -f1,2 "$HOOK_OUT" | sort -u) | wc -l)
# Sent twice: the same alert id + state received again. At-least-once is all a
# crash allows: a duplicate is explained only when both requests carry the same
# notification_id and a kill between the listener's receipt of the first and the
# second found that notification still in the outbox (the daemon died before it
# recorded the delivery, so its next start sent it again). This reads what the
# database held at the kill, not how soon after the answer the kill came: under
# ASan on a loaded machine recording the delivery took more than a second.
: >>"$TMP/outbox"
dups=$(python3 - "$HOOK_OUT" "$TMP/outbox" <<'PYEOF'
import sys
seen = {}
kills = []
for line in open(sys.argv[2]):
    f = line.split()
    kills.append((int(f[0]), set(f[1].split(",")) if len(f) > 1 else set()))
explained = unexplained = 0
for line in open(sys.argv[1]):
    aid, state, nid, recv, t = line.split()
    key = (aid, state)
    if key not in seen:
        seen[key] = (nid, int(recv))
        continue
    nid0, recv0 = seen[key]
    held = [k for k, ids in kills if recv0 <= k <= int(recv) and nid0 in ids]
    if nid == nid0 and held:
        explained += 1
    else:
        unexplained += 1
        between = [(k, sorted(ids)) for k, ids in kills if recv0 <= k <= int(recv)]
        print("unexplained: alert %s %s (notification %s, then %s; kills between the two"
              " and the outbox each found: %s)" % (aid, state, nid0, nid, between or "none"),
              file=sys.stderr)
print(explained, unexplained)
PYEOF
)
read -r twice_ok twice_bad <<<"$dups"
runs=$(sqlite3 "$DB" "SELECT group_concat(state || ':' || n, ' ') FROM
	(SELECT state, count(*) AS n FROM probe_runs GROUP BY state)")
echo "kills: $kills; probes started then killed: $probes_killed (runs by state: $runs)"
echo "largest sample loss at a kill: $max_lost ms (poll interval $POLL_MS ms)"
echo "notifications the database made: $notes_made; requests received: $received; lost: $lost;" \
	"sent twice: $((twice_ok + twice_bad)) ($twice_ok with the same notification_id," \
	"still in the outbox at a kill after the first was received)"
[ "$notes_made" -gt 0 ] || fail "no alert was ever made: the test did not exercise delivery"
[ "$lost" = 0 ] || fail "$lost notification(s) lost: $(comm -23 <(expect_from_db) <(cut -d' ' -f1,2 "$HOOK_OUT" | sort -u) | head -5 | tr '\n' ';')"
[ "$left_rows" = 0 ] || fail "$left_rows notification(s) still in the outbox after a clean stop with every one received"
[ "$twice_bad" = 0 ] || fail "$twice_bad notification(s) sent twice though the outbox had recorded the first delivery"
pass
