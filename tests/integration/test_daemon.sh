#!/usr/bin/env bash
# The daemon's life cycle against a real SQLite file and a real HTTP client:
# start, poll, reload, stop with everything stored, restart with the same ids,
# refuse a database from the future; plus the command line and `status`.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# --- command line -----------------------------------------------------------
"$NVMOND_BIN" --version | grep -Eq '^nvmond [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version"
"$NVMOND_BIN" --help | grep -q -- '--listen' || fail "--help lists --listen"
expect_exit 2 "$NVMOND_BIN" frobnicate
expect_exit 2 "$NVMOND_BIN" --no-such-option
expect_exit 2 "$NVMOND_BIN" --json
expect_exit 2 "$NVMOND_BIN" --listen 'nonsense' --db "$TMP/x.db"

# --- status ------------------------------------------------------------------
"$NVMOND_BIN" status --demo > "$TMP/status.txt"
grep -q 'Samsung SSD 950 PRO 512GB' "$TMP/status.txt" || fail "status table lists the 950 PRO"
grep -Eq '^DEVICE +MODEL +SERIAL' "$TMP/status.txt" || fail "status table header"
"$NVMOND_BIN" status --demo --json > "$TMP/status.json"
python3 - "$TMP/status.json" <<'PY' || fail "status --json"
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
assert len(d) == 2, d
for dev in d:
    l = dev["latest"]
    assert dev["serial"].startswith("DEMO"), dev
    assert l["data_written_bytes"] == l["data_units_written"] * 512000
    assert l["temperature_c"] == l["temperature_k"] - 273
    assert "id" not in dev, "status has no database, so no id"
PY

# --- run, poll, stop -----------------------------------------------------------
conf="$TMP/nvmond.conf"
printf '[daemon]\npoll_interval = 1s\ndemo = yes\n' > "$conf"
db="$TMP/nvmond.db"
start_daemon --config "$conf" --db "$db"
json=$(http_get /api/v1/devices)
ids=$(jq_py "$json" 'print(" ".join(str(d["id"]) for d in j["devices"]))')
[ "$(echo $ids | wc -w)" = 2 ] || fail "two demo devices, got '$ids'"
first_seen=$(jq_py "$json" 'print(j["devices"][0]["first_seen"])')
stored() { sqlite3 "$db" 'select count(*) from samples'; }
stored_more_than() { [ "$(stored)" -gt "$1" ]; }
wait_for 15 stored_more_than 0 || fail "no sample stored"
n1=$(stored)
wait_for 15 stored_more_than "$n1" || fail "samples are stored while running ($n1 -> $(stored))"
# Six polls of each drive before the restart below, which looks for them.
wait_for 30 stored_more_than 11 || fail "not six samples of each drive in 30 s ($(stored))"

# SIGHUP: a new poll interval takes effect without a restart.
printf '[daemon]\npoll_interval = 500ms\ndemo = yes\n' > "$conf"
kill -HUP "$DAEMON_PID"
wait_log 'configuration reloaded: poll every 500 ms'
# A broken file on reload is refused and the daemon keeps running.
printf '[daemon]\npoll_interval = soon\n' > "$conf"
kill -HUP "$DAEMON_PID"
wait_log 'configuration not reloaded'
http_get /healthz > /dev/null

# The last served sample must be in the database after SIGTERM.
last=$(jq_py "$(http_get /api/v1/devices)" 'print(max(d["latest"]["ts_ms"] for d in j["devices"]))')
stop_daemon
stored=$(sqlite3 "$db" 'select max(ts_ms) from samples')
[ "$stored" -ge "$last" ] || fail "everything served was stored at shutdown ($stored < $last)"
[ "$(sqlite3 "$db" 'pragma integrity_check')" = ok ] || fail "integrity_check"

# --- restart: same ids, first_seen kept, old samples still served ---------------
printf '[daemon]\npoll_interval = 1s\ndemo = yes\n' > "$conf"
start_daemon --config "$conf" --db "$db"
json=$(http_get /api/v1/devices)
ids2=$(jq_py "$json" 'print(" ".join(str(d["id"]) for d in j["devices"]))')
[ "$ids" = "$ids2" ] || fail "ids survive a restart ('$ids' vs '$ids2')"
[ "$first_seen" = "$(jq_py "$json" 'print(j["devices"][0]["first_seen"])')" ] || fail "first_seen kept"
count=$(jq_py "$(http_get "/api/v1/devices/1/samples?limit=100000")" 'print(len(j["samples"]))')
[ "$count" -ge 6 ] || fail "samples from before the restart are served ($count)"
stop_daemon

# --- a database from a newer nvmond is refused, untouched ----------------------
sqlite3 "$db" 'pragma user_version = 999'
before=$(sqlite3 "$db" 'select count(*) from samples')
expect_exit 1 "$NVMOND_BIN" --config "$conf" --db "$db" --listen "127.0.0.1:$(free_port)"
grep -q 'newer' "$LAST_STDERR" || fail "refusal names the newer schema: $(cat "$LAST_STDERR")"
[ "$(sqlite3 "$db" 'select count(*) from samples')" = "$before" ] || fail "refused db untouched"
[ "$(sqlite3 "$db" 'pragma user_version')" = 999 ] || fail "user_version untouched"

pass
