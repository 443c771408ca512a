#!/usr/bin/env bash
# The demo year: a fresh daemon on the demo drives fills a year of history at
# its first start (samples, throttle events, resolved alerts, probe runs of
# every preset, the error log, firmware and link history of issue 11), and
# every chart's endpoint has it within 5 s. The drives say
# they are demo drives; demo_drives serves many of mixed models; a second start
# or demo_history = no adds nothing. Env: NVMOND_BIN (ctest).
set -u
for tool in curl python3 sqlite3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"

# jf FILE 'python using j': jq_py on a file (a year of series is too long for argv).
jf() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); $2" "$1"
}

conf() { # conf DB [EXTRA LINE...]
	local db=$1
	shift
	{
		printf '[daemon]\ndemo = yes\ndatabase = %s\n' "$db"
		for l in "$@"; do printf '%s\n' "$l"; done
		printf '[probes]\nlock_dir = %s/locks\n' "$TMP"
	} > "$TMP/nvmond.conf"
}

# ---- a fresh start: a year within 5 s -------------------------------------------
conf "$TMP/year.db"
T0=$(date +%s%N)
start_daemon -c "$TMP/nvmond.conf"
FROM=$(python3 -c 'import time; print(int(time.time() * 1000) - 365 * 86400 * 1000)')
D=$(http_get /api/v1/devices)
ID0=$(jq_py "$D" "print([d['id'] for d in j['devices'] if d['name'] == 'demo0'][0])")
http_get "/api/v1/devices/$ID0/series?from=$FROM&points=2000" > "$TMP/series.json"
ELAPSED_MS=$((($(date +%s%N) - T0) / 1000000))
[ "$ELAPSED_MS" -le 5000 ] || fail "a year of history took ${ELAPSED_MS} ms to be served (> 5 s)"
jf "$TMP/series.json" '
t = j["t"]
assert j["points"] > 300, j["points"]
assert (t[-1] - t[0]) >= 360 * 86400, "the series spans %.1f days" % ((t[-1] - t[0]) / 86400)
assert max(x for x in j["temp_c"]["max"] if x is not None) >= 70, "hot spells reach WCTEMP"
used = j["percent_used"]
assert used[-1] > used[0] and all(a <= b for a, b in zip(used, used[1:])), "% used steps up"
' || fail "series of demo0: $(head -c 300 "$TMP/series.json")"
grep -q "demo history: a year for 2 drives" "$DAEMON_LOG" || fail "no demo history log line"
echo "backfill: $(grep -o 'in [0-9]* ms' "$DAEMON_LOG" | head -1); served after ${ELAPSED_MS} ms"

# The devices say they are demo drives, everywhere.
jq_py "$D" 'assert len(j["devices"]) == 2 and all(d["demo"] is True for d in j["devices"]), j' ||
	fail "devices not marked demo: $D"
jq_py "$(http_get "/api/v1/devices/$ID0")" 'assert j["demo"] is True' || fail "device not demo"
"$NVMOND_BIN" status --demo --json > "$TMP/status.json" || fail "status --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; assert d and all(x["demo"] is True for x in d)' \
	"$TMP/status.json" || fail "status --json: $(head -c 300 "$TMP/status.json")"

# Wear: 1-, 7- and 30-day rates, and the unusual day among the last 30.
W=$(http_get "/api/v1/devices/$ID0/wear")
jq_py "$W" '
r = j["rates"]
assert all(r[w]["known"] and r[w]["complete"] for w in ("1d", "7d", "30d")), r
avg = j["unusual_write_rate"]["avg_30d_bytes_per_day"]
assert avg > 0 and max(d["bytes"] for d in j["daily"]) >= 5 * avg, j["daily"]
assert j["percent_used_per_day"] > 0
' || fail "wear of demo0: $(echo "$W" | head -c 400)"

# Throttle events of the hot spells, all ended; their alerts resolved.
E=$(http_get "/api/v1/devices/$ID0/events?from=$FROM")
jq_py "$E" '
old = [e for e in j["events"] if not e["ongoing"] and e["start"] < "'"$(date -u -d '-2 days' +%FT%TZ)"'"]
kinds = {e["kind"] for e in old}
assert len(old) >= 10 and {"light", "heavy", "over_wctemp"} <= kinds, kinds
' || fail "events of demo0: $(echo "$E" | head -c 300)"
A=$(http_get /api/v1/alerts)
jq_py "$A" '
rules = {a["rule"] for a in j["history"] if a["state"] == "resolved"}
assert {"throttling", "temperature_warning", "write_rate"} <= rules, rules
' || fail "resolved alerts: $(echo "$A" | head -c 300)"

# Probe runs of every preset, a sustained-write cliff and a throttle dip.
for id in $(jq_py "$D" "print(' '.join(str(d['id']) for d in j['devices']))"); do
	P=$(http_get "/api/v1/devices/$id/probes?limit=1000")
	jq_py "$P" '
want = {"seq1m-q8", "seq1m-q1", "rnd4k-q32", "rnd4k-q1", "copy-self", "sustained-write", "sweep", "copy-to"}
# and on the 980 PRO (demo1) a cache-recovery study
assert {r["preset"] for r in j["probes"]} - {"cache-recovery"} == want, {r["preset"] for r in j["probes"]}
assert all(r["state"] in ("done", "stopped") and r["engine"] == "demo" for r in j["probes"])
' || fail "probe runs of device $id"
done
# A copy-to from demo0 onto demo1, on both drives' lists as their newest run (the
# last-probe panel shows it), with both rates and each drive's copy-self beside them.
ID1=$(jq_py "$D" "print([d['id'] for d in j['devices'] if d['name'] == 'demo1'][0])")
for id in $ID0 $ID1; do
	jq_py "$(http_get "/api/v1/devices/$id/probes?limit=5")" "
r = j['probes'][0]
assert r['preset'] == 'copy-to' and r['source_device_id'] == $ID0 and r['device_id'] == $ID1, r
" || fail "the demo year's copy-to is not drive $id's newest run"
done
CT=$(jq_py "$(http_get "/api/v1/devices/$ID1/probes?limit=5")" "print(j['probes'][0]['id'])")
jq_py "$(http_get "/api/v1/probes/$CT")" '
c = j["copy_to"]
assert 500 < c["write_mb_s"] < 3000 and abs(c["read_mb_s"] - c["write_mb_s"]) < 1, c
assert c["from"]["name"] == "demo0" and c["to"]["name"] == "demo1", c
assert c["from"]["copy_self_mb_s"] > 0 and c["to"]["copy_self_mb_s"] > 0, c
assert c["text"].startswith("copy-to demo1 (from demo0): "), c["text"]
' || fail "the demo year's copy-to run $CT: $(http_get "/api/v1/probes/$CT" | head -c 600)"
# The 980 PRO's cache-recovery study (demo_year.h): its fill stopped at the cliff,
# bursts slower at 5, 10, 20, 40 min idle, the full rate back after 60 min (the
# seed's 40 ... 60), so the dashboard's recovery chart has a curve.
ST=$(jq_py "$(http_get "/api/v1/devices/$ID1/probes?limit=1000")" "
print(min(r['id'] for r in j['probes'] if r['preset'] == 'cache-recovery'))")
jq_py "$(http_get "/api/v1/probes/$ST")" '
r = j["recovery"]
assert r["series_id"] == j["id"] and r["state"] == "recovered", r
assert r["verdict"] == "cache recovered after 60 min idle", r["verdict"]
assert [round(p["idle_min"]) for p in r["points"]] == [5, 10, 20, 40, 60], r["points"]
pct = [p["pct"] for p in r["points"]]
assert all(p < 95 for p in pct[:-1]) and pct[-1] >= 95 and pct[0] < pct[3], pct
assert 20e9 < r["cache_bytes"] < 28e9 and r["pre_cliff_mb_s"] > 4000, r
' || fail "the demo year's cache-recovery study $ST: $(http_get "/api/v1/probes/$ST" | head -c 900)"
# The group run: seq1m-q8 on demo0 and demo1 at once, each at about 75 % of solo.
G=$(jq_py "$(http_get "/api/v1/devices/$ID1/probes?limit=1000")" "
print([r['id'] for r in j['probes'] if r['preset'] == 'seq1m-q8'][0])")
jq_py "$(http_get "/api/v1/probes/$G")" '
g = j["group"]
assert g and sorted(m["device"] for m in g["members"]) == ["demo0", "demo1"], g
for m in g["members"]:
    assert m["state"] == "done" and m["solo_run_id"], m
    for p in m["phases"]:
        assert 0.68 < p["ratio"] < 0.82, m
assert [a["drives"] for a in g["aggregate"]] == [2, 2], g["aggregate"]
assert g["text"].startswith("read: each at 7"), g["text"]
' || fail "the demo year's group run $G: $(http_get "/api/v1/probes/$G" | head -c 900)"
# Past sweeps, a month apart, so the chart draws the previous one; every point
# each way (18 sizes from 512 B on a 512 B-LBA demo drive), MB/s rising with size.
P=$(http_get "/api/v1/devices/$ID0/probes?limit=1000")
SWEEPS=$(jq_py "$P" "print(' '.join(str(r['id']) for r in j['probes'] if r['preset'] == 'sweep'))")
[ "$(echo "$SWEEPS" | wc -w)" -ge 11 ] || fail "a sweep a month: $SWEEPS"
jq_py "$(http_get "/api/v1/probes/${SWEEPS%% *}")" '
s = j["sweep"]
assert s["depth"] == 4 and len(s["read"]) == 18 and len(s["write"]) == 18, s
rd = [p["mb_s"] for p in s["read"]]
assert [p["block_size"] for p in s["read"]] == [512 << i for i in range(18)], s["read"]
assert rd[0] < rd[-1] and rd[-1] > 2000, rd
assert all(p["bytes"] <= 256 << 20 for p in s["write"]), s["write"]
' || fail "sweep run ${SWEEPS%% *}: $(http_get "/api/v1/probes/${SWEEPS%% *}" | head -c 400)"
# The 950 PRO's best of 3: 2,598 MB/s read = 104 % of 2,500 rated, 1,576 write.
SER=$(sqlite3 "$TMP/year.db" "SELECT max(series_id) FROM probe_runs WHERE device_id = $ID0")
jq_py "$(http_get "/api/v1/probes/$SER")" '
s, spec = j["series"], j["spec"]
assert s["of"] == 3 and s["measured"] == 3 and s["complete"] and len(s["runs"]) == 3, s
assert spec["basis"] == "best of the series" and not spec["below"], spec
assert 2580 < spec["read"]["measured_mb_per_s"] < 2616, spec
assert spec["read"]["rated_mb_per_s"] == 2500 and round(spec["read"]["percent"]) == 104, spec
assert 1560 < spec["write"]["measured_mb_per_s"] < 1592, spec
print(spec["read"]["text"], "/", spec["write"]["text"])
' || fail "the newest series of demo0 (run $SER): $(http_get "/api/v1/probes/$SER" | head -c 600)"
SERIES=$(sqlite3 "$TMP/year.db" 'SELECT count(DISTINCT series_id) FROM probe_runs WHERE series_id > 0')
[ "$SERIES" -ge 4 ] || fail "$SERIES series in the demo year (want 2 a drive)"
CLIFF=$(jq_py "$P" "print([r['id'] for r in j['probes'] if r['preset'] == 'sustained-write'][0])")
jq_py "$(http_get "/api/v1/probes/$CLIFF")" '
assert j["state"] == "stopped" and any(e["kind"] == "cliff" for e in j["phases"][0]["events"])
' || fail "sustained-write run $CLIFF has no cliff"
found=
for id in $(jq_py "$P" "print(' '.join(str(r['id']) for r in j['probes'] if r['preset'] == 'seq1m-q8'))"); do
	if jq_py "$(http_get "/api/v1/probes/$id")" '
assert any(e["kind"] == "dip" and e["cause"] == "throttling" for p in j["phases"] for e in p["events"])
' 2> /dev/null; then
		found=$id
		break
	fi
done
[ -n "$found" ] || fail "no seq1m-q8 run of demo0 dips while throttling"

# ---- issue 11's facts in the year -------------------------------------------------
# demo0's error log: the 14 entries from before, a benign burst a month that never
# alerted, and two unrecovered reads in one read about day 200, which its
# media_errors counts in the same moment; the live poller took nothing in again.
http_get "/api/v1/devices/$ID0/errors?from=0&limit=1000" > "$TMP/errors.json"
jf "$TMP/errors.json" '
e = j["entries"]
assert j["read"] and j["counts"] == {"benign": 61, "media": 2, "io": 0, "other": 0, "total": 63}, j["counts"]
assert [x["error_count"] for x in e] == list(range(63, 0, -1)), "newest first, no gaps"
assert {x["error_count"] for x in e if x["before_watch"]} == set(range(1, 15))
benign = [x for x in e if x["class"] == "benign" and not x["before_watch"]]
reads = {}
for x in benign:
    reads.setdefault(x["seen_ms"], []).append(x)
assert len(reads) == 12 and all(2 <= len(v) <= 6 for v in reads.values()), {k: len(v) for k, v in reads.items()}
assert all(x["sqid"] == 0 and not x["alerts"] and x["status_name"] in ("Invalid Log Page", "Invalid Field in Command") for x in benign)
media = [x for x in e if x["class"] == "media"]
assert len(media) == 2 and media[0]["seen_ms"] == media[1]["seen_ms"], media
assert all(x["alerts"] and x["sqid"] == 2 and x["status_name"] == "Unrecovered Read Error" for x in media)
first = min(x["seen_ms"] for x in e)
day = (media[0]["seen_ms"] - first) / 86400000
assert 195 <= day <= 207, "the bad read on day %.1f" % day
open(sys.argv[1] + ".media", "w").write(str(media[0]["seen_ms"] // 1000))
' || fail "errors of demo0: $(head -c 400 "$TMP/errors.json")"
jf "$TMP/series.json" '
bad = int(open(sys.argv[1].replace("series.json", "errors.json.media")).read())
m = [(t, int(x)) for t, x in zip(j["t"], j["media_errors"]) if x is not None]
rises = [(t, b - a) for (_, a), (t, b) in zip(m, m[1:]) if b != a]
assert m[-1][1] == 2 and len(rises) == 1 and rises[0][1] == 2, rises
assert abs(rises[0][0] - bad) <= 2 * j["step_s"], (rises, bad, j["step_s"])
' || fail "media_errors of demo0 do not rise by 2 at the bad read"
grep -E "(new|earlier) error log entries" "$DAEMON_LOG" && fail "the live poller read the log again"

# demo1: 5B2QGXA7 until about day 200, then 5B2QGXA8 (what the live drive runs:
# no change at start); three weeks at 8.0 GT/s x2, back to 16.0 GT/s x4.
ID1=$(jq_py "$D" "print([d['id'] for d in j['devices'] if d['name'] == 'demo1'][0])")
F=$(http_get "/api/v1/devices/$ID1/facts")
jq_py "$F" '
fw = j["firmware_history"]
assert [(x["event"], x["old"], x["new"]) for x in fw] == [("firmware_changed", "5B2QGXA7", "5B2QGXA8"), ("baseline", None, "5B2QGXA7")], fw
day = (fw[0]["ts_ms"] - fw[1]["ts_ms"]) / 86400000
assert 195 <= day <= 207, "the update on day %.1f" % day
links = [x["link"]["text"] for x in j["link_history"]]
assert links == ["PCIe 16.0 GT/s x4 (max 16.0 GT/s x4)", "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)", "PCIe 16.0 GT/s x4 (max 16.0 GT/s x4)"], links
lh = j["link_history"]
assert 19 <= (lh[0]["ts_ms"] - lh[1]["ts_ms"]) / 86400000 <= 23, "about three weeks"
assert not j["link"]["degraded"]
' || fail "facts of demo1: $(echo "$F" | head -c 600)"
jq_py "$(http_get "/api/v1/devices/$ID1")" 'assert j["firmware"] == "5B2QGXA8", j["firmware"]' ||
	fail "demo1 does not run 5B2QGXA8"
grep -q "firmware_changed" "$DAEMON_LOG" && fail "the live poller saw a firmware change"
# Its Sensor 2 stuck at 83.85 °C (357 K) the whole year, as on the live drive.
http_get "/api/v1/devices/$ID1/series?from=$FROM&points=500" > "$TMP/series1.json"
jf "$TMP/series1.json" '
s2 = [s for s in j["sensors"] if s["sensor"] == 2][0]
v = {x for x in s2["min"] + s2["max"] if x is not None}
assert len(v) == 1 and abs(min(v) - 83.85) < 0.2, v # 357 K, the rollups in whole °C
' || fail "Sensor 2 of demo1 not stuck all year"
# The probe runs on the narrow link say so, and measured less.
P1=$(http_get "/api/v1/devices/$ID1/probes?limit=1000")
narrow=0
for id in $(jq_py "$P1" "print(' '.join(str(r['id']) for r in j['probes'] if r['started_ms'] >= $(jq_py "$F" 'print(j["link_history"][1]["ts_ms"])') and r['started_ms'] < $(jq_py "$F" 'print(j["link_history"][0]["ts_ms"])')))"); do
	jq_py "$(http_get "/api/v1/probes/$id")" '
assert j["link"]["degraded"] and any("link degraded" in n for n in j["notes"]), j.get("notes")
' || fail "probe run $id on the narrow link has no note"
	narrow=$((narrow + 1))
done
[ "$narrow" -ge 1 ] || fail "no probe run of demo1 on the narrow link"
# The alerts all of it raised, resolved; none of them fires now.
jq_py "$(http_get /api/v1/alerts)" '
res = {(a["rule"], a["severity"]) for a in j["history"] if a["state"] == "resolved"}
want = {("io_errors", "critical"), ("media_errors", "critical"), ("firmware_changed", "info"), ("link_degraded", "warning")}
assert want <= res, res
n = [a["rule"] for a in j["history"] if a["rule"] in ("io_errors", "media_errors", "firmware_changed", "link_degraded")]
assert sorted(n) == sorted(r for r, _ in want), n
assert not [a for a in j["active"] if a["rule"] in ("io_errors", "media_errors", "firmware_changed", "link_degraded")], j["active"]
' || fail "alerts of the facts: $(http_get /api/v1/alerts | head -c 400)"

# ---- issue 27: what the drive knows beyond its health log ----------------------------
# demo0 carries the OCP C0h log, HCTM at 68/73 °C and APST off; demo1 answers C0h with
# another vendor's page and rests by APST. The year holds C0h rows daily (bad blocks
# and uncorrectable reads stepping up), a power-state timeline, and demo0 moves to
# `watch` after its first unrecovered reads and stays there.
for _ in $(seq 100); do
	[ "$(sqlite3 "$TMP/year.db" 'SELECT count(*) FROM pel_cursors')" = 2 ] && break
	sleep 0.1
done
jq_py "$(http_get "/api/v1/devices/$ID0")" '
o, p, t = j["ocp"], j["power"], j["thermal_management"]
assert o["present"] and o["spec_version"] and 1 < o["write_amplification"] < 3, o
assert p["states"] and p["apst"]["supported"] and not p["apst"]["enabled"], p
assert (t["tmt1_c"], t["tmt2_c"]) == (68, 73), t
assert j["namespace_usage"][0]["used_bytes"] > 0 and j["event_log"]["supported"], j
h = j["risk"]
assert h["verdict"] == "watch" and h["reasons"][0]["rule"] == "recent_errors", h
assert "uncorrectable" in h["reasons"][0]["reason"] and "FAST" in h["reasons"][0]["source"], h
' || fail "issue 27 fields of demo0: $(http_get "/api/v1/devices/$ID0" | head -c 600)"
jq_py "$(http_get "/api/v1/devices/$ID1")" '
assert j["ocp"] == {"present": False, "why": "another vendor'"'"'s C0h page"}, j["ocp"]
assert j["power"]["apst"]["enabled"] and j["thermal_management"]["tmt1_k"] is None, j["power"]
assert j["risk"]["verdict"] == "ok", j["risk"]
' || fail "issue 27 fields of demo1"
http_get "/api/v1/devices/$ID0/ocp?from=$FROM" > "$TMP/ocp.json"
jf "$TMP/ocp.json" '
h = j["history"]
assert len(h) >= 360 and (h[-1]["ts_ms"] - h[0]["ts_ms"]) >= 360 * 86400000, len(h)
bad = [x["bad_user_blocks"] for x in h]
unc = [x["uncorrectable_reads"] for x in h]
assert all(a <= b for a, b in zip(bad, bad[1:])) and bad[-1] > bad[0], bad[::30]
assert all(a <= b for a, b in zip(unc, unc[1:])) and unc[-1] > unc[0], unc[::30]
' || fail "C0h history of demo0: $(head -c 400 "$TMP/ocp.json")"
http_get "/api/v1/devices/$ID1/power?from=$FROM" > "$TMP/power.json"
jf "$TMP/power.json" '
t = j["timeline"]
assert len(t) > 300 and {0, 3} <= {x["state"] for x in t}, len(t)
assert all(x["apst_enabled"] for x in t)
' || fail "power timeline of demo1"
jq_py "$(http_get "/api/v1/devices/$ID0/risk")" '
v = [x["verdict"] for x in j["history"]]
assert v == ["watch", "ok"], v
assert len(j["rules"]) >= 9 and all(r["source"] for r in j["rules"]), j["rules"]
' || fail "verdict history of demo0"
# The Persistent Event Log: demo0's excursions, demo1's sanitize and format; the
# entries from before the demo year late; ?kind and ?source filter them.
http_get "/api/v1/devices/$ID0/events?from=0&source=pel" > "$TMP/pel.json"
jf "$TMP/pel.json" '
e = j["events"]
kinds = {x["kind"] for x in e}
assert {"thermal_excursion", "power_on_reset", "firmware_commit", "hardware_error", "health_snapshot"} <= kinds, kinds
assert all(x["source"] == "pel" for x in e)
old = [x for x in e if x["start"] < "2025-01-01"]
assert old and all(x["late"] for x in old), "entries before the year are late"
' || fail "event log of demo0"
jq_py "$(http_get "/api/v1/devices/$ID1/events?from=0&kind=sanitize_start,sanitize_done,format_start,format_done,namespace_change")" '
assert sorted(x["kind"] for x in j["events"]) == ["format_done", "format_start", "namespace_change", "sanitize_done", "sanitize_start"], j
' || fail "event log of demo1"
PEL_N=$(sqlite3 "$TMP/year.db" 'SELECT count(*) FROM pel_events WHERE ts_ms < strftime("%s", "now") * 1000 - 86400000')
[ "$PEL_N" -gt 500 ] || fail "$PEL_N event log entries stored"
stop_daemon

# ---- a second start adds nothing ------------------------------------------------
n1=$(sqlite3 "$TMP/year.db" 'SELECT count(*) FROM probe_runs')
T1=$(($(date +%s%N) / 1000000))
start_daemon -c "$TMP/nvmond.conf"
for _ in $(seq 100); do # the event logs read again
	[ "$(sqlite3 "$TMP/year.db" "SELECT count(*) FROM pel_cursors WHERE read_ms >= $T1")" = 2 ] && break
	sleep 0.1
done
stop_daemon
[ "$(grep -c 'demo history: a year' "$DAEMON_LOG")" = 1 ] || fail "the year was filled twice"
[ "$(sqlite3 "$TMP/year.db" 'SELECT count(*) FROM probe_runs')" = "$n1" ] || fail "runs added"
# The drive's event log read again: each entry is stored once across restarts.
[ "$(sqlite3 "$TMP/year.db" 'SELECT count(*) FROM pel_events WHERE ts_ms < strftime("%s", "now") * 1000 - 86400000')" = "$PEL_N" ] ||
	fail "event log entries stored twice after a restart"

# ---- demo_history = no: a fresh database stays fresh ----------------------------
conf "$TMP/fresh.db" "demo_history = no"
start_daemon -c "$TMP/nvmond.conf"
# The live log holds what the year stores: its first read takes in all 63 entries.
for _ in $(seq 50); do
	grep -q "earlier error log entries" "$DAEMON_LOG" && break
	sleep 0.1
done
stop_daemon
[ "$(sqlite3 "$TMP/fresh.db" "SELECT count(*), sum(before_watch), sum(class = 'media') FROM errors")" = "63|63|2" ] ||
	fail "the live error log of demo0: $(sqlite3 "$TMP/fresh.db" 'SELECT count(*) FROM errors')"
[ "$(sqlite3 "$TMP/fresh.db" 'SELECT count(*) FROM probe_runs')" = 0 ] || fail "runs with demo_history = no"
[ "$(sqlite3 "$TMP/fresh.db" 'SELECT count(*) FROM samples')" -lt 100 ] || fail "history with demo_history = no"

# ---- 32 drives of mixed models ---------------------------------------------------
conf "$TMP/many.db" "demo_drives = 32"
PORT=$(free_port)
"$NVMOND_BIN" --listen "127.0.0.1:$PORT" -c "$TMP/nvmond.conf" >> "$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 600); do # its year takes longer than the usual start
	curl -fsS "http://127.0.0.1:$PORT/healthz" > /dev/null 2>&1 && break
	kill -0 "$DAEMON_PID" 2> /dev/null || fail "daemon with 32 drives exited at start"
	sleep 0.1
done
D=$(http_get /api/v1/devices)
jq_py "$D" '
d = j["devices"]
assert len(d) == 32, len(d)
assert all(x["demo"] is True for x in d)
assert len({x["model"] for x in d}) >= 8, {x["model"] for x in d}
assert len({x["serial"] for x in d}) == 32
' || fail "32 demo drives: $(echo "$D" | head -c 300)"
echo "backfill of 32 drives: $(grep -o 'a year for 32 drives.* in [0-9]* ms' "$DAEMON_LOG" | grep -o 'in [0-9]* ms')"
stop_daemon
pass
