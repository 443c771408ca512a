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
# What the API says of each drive's self-tests, for `status` below.
for id in $ids; do http_get "/api/v1/devices/$id/selftests"; echo; done > "$TMP/selftests.jsonl"
stop_daemon

# --- status reads the self-test results the daemon stored (issue 12) ------------
# The capability is the scan's own Identify, as the API said; the last result of
# each type is the database's newest (here a failure inserted as the daemon would).
sqlite3 "$db" "insert into selftest_results (device_id, seen_ms, code, result, segment, valid,
	poh, nsid, lba, sct, sc, vendor, origin) values (1, 1796000000000, 2, 7, 3, 3, 4321, 1,
	4096, 0, 0, 0, NULL)"
"$NVMOND_BIN" status --demo --db "$db" --json > "$TMP/status-db.json" || fail "status --json with --db"
"$NVMOND_BIN" status --demo --db "$db" > "$TMP/status-db.txt" || fail "status with --db"
python3 - "$TMP/status-db.json" "$TMP/selftests.jsonl" "$TMP/status-db.txt" <<'PY' || fail "status: self-tests"
import json, sys
status = json.load(open(sys.argv[1]))["devices"]
api = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
blocks, text = {}, open(sys.argv[3]).read()
for line in text.splitlines()[1:]:          # the table: a row, then its indented lines
    if line and not line.startswith(" "):
        name = line.split()[0]
    if line.startswith(" "):
        blocks.setdefault(name, []).append(line.strip())
assert len(api) == len(status) == 2, (api, status)
for d in status:
    st = d["selftests"]
    assert st["supported"] in (True, False), st      # a demo drive answers Identify
    assert (st["unsupported_reason"] is None) == st["supported"], st
    assert isinstance(st["last"], dict), st          # the database was read
    assert ("self-tests: not supported" in blocks[d["name"]]) == (not st["supported"]), (d["name"], blocks)
# The API and status agree on the capability.
assert sorted(a["supported"] for a in api) == sorted(d["selftests"]["supported"] for d in status), (api, status)
# The inserted failure is the newest extended result of device 1, and named in the table.
ex = [d for d in status if (d["selftests"]["last"]["extended"] or {}).get("seen_ms") == 1796000000000]
assert len(ex) == 1, status
name, ex = ex[0]["name"], ex[0]["selftests"]["last"]["extended"]
assert ex["failed"] and ex["segment"] == 3 and ex["lba"] == 4096 and ex["nsid"] == 1 and ex["poh"] == 4321, ex
assert ex["origin"] is None and ex["seen"] == "2026-11-30T00:53:20.000Z" and ex["valid"] == ["nsid", "lba"], ex
want = ("last extended self-test: completed with one or more failed segments, segment 3, "
        "first failing LBA 4096 in namespace 1 (2026-11-30T00:53:20.000Z)")
assert want in blocks[name], blocks
PY

# --- a database from a newer nvmond is refused, untouched ----------------------
sqlite3 "$db" 'pragma user_version = 999'
before=$(sqlite3 "$db" 'select count(*) from samples')
sum=$(sha256sum < "$db")
# Exit status 3, which the unit does not restart (RestartPreventExitStatus=3).
expect_exit 3 "$NVMOND_BIN" --config "$conf" --db "$db" --listen "127.0.0.1:$(free_port)"
grep -q 'newer' "$LAST_STDERR" || fail "refusal names the newer schema: $(cat "$LAST_STDERR")"
# Refused from the file's bytes (store_peek): SQLite never opened it.
grep -q 'schema version 999 is newer than this nvmond .*the file was not opened' "$LAST_STDERR" ||
	fail "refusal says the file was not opened: $(cat "$LAST_STDERR")"
[ "$(sha256sum < "$db")" = "$sum" ] || fail "the refused database's bytes changed"
[ -e "$db-wal" ] || [ -e "$db-shm" ] && fail "the refusal left a -wal or -shm file"
[ "$(sqlite3 "$db" 'select count(*) from samples')" = "$before" ] || fail "refused db untouched"
[ "$(sqlite3 "$db" 'pragma user_version')" = 999 ] || fail "user_version untouched"
# status still shows the drives, and says why it shows no self-test results.
"$NVMOND_BIN" status --demo --db "$db" > "$TMP/status-newer.txt" 2> "$TMP/status-newer.err" ||
	fail "status with a newer database: $(cat "$TMP/status-newer.err")"
grep -q 'DEMO950PRO00001' "$TMP/status-newer.txt" || fail "status lists the drives with an unreadable database"
grep -q '^nvmond: self-test results not shown: ' "$TMP/status-newer.err" ||
	fail "status says why it shows no self-test results: $(cat "$TMP/status-newer.err")"

pass
