#!/usr/bin/env bash
# GET /metrics end to end: promtool checks the daemon's real output and the shipped
# rules (and their unit tests), then a real Prometheus server on loopback scrapes a
# demo daemon and answers PromQL queries with the values the daemon served; every
# expression of the Grafana dashboard and the rules must evaluate there.
# Env: NVMOND_BIN, NVMOND_SRC (set by ctest).
set -u
. "$(dirname "$0")/lib.sh"

for tool in promtool prometheus curl python3; do
	if ! command -v "$tool" > /dev/null; then
		echo "SKIP: $tool not installed (Debian package prometheus; see .ci/deps)"
		exit 77
	fi
done
: "${NVMOND_SRC:?}"
PROM_DIR=$NVMOND_SRC/systemd/prometheus
PROM_PID=
trap 'cleanup; [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null; true' EXIT

# ---- the shipped rules: syntax, then their unit tests (alerts fire and stay quiet)
promtool check rules "$PROM_DIR/nvmond.rules.yml" > "$TMP/rules.out" 2>&1 ||
	fail "promtool check rules: $(cat "$TMP/rules.out")"
(cd "$NVMOND_SRC/tests/fixtures/prometheus" &&
	promtool test rules rules-test.yml rules-test-wear.yml) > "$TMP/rtest.out" 2>&1 ||
	fail "promtool test rules: $(cat "$TMP/rtest.out")"
sed "s|/usr/local/share/nvmond/prometheus/nvmond.rules.yml|$PROM_DIR/nvmond.rules.yml|" \
	"$PROM_DIR/scrape.yml" > "$TMP/scrape-example.yml"
promtool check config "$TMP/scrape-example.yml" > "$TMP/cfg.out" 2>&1 ||
	fail "promtool check config scrape.yml: $(cat "$TMP/cfg.out")"

# ---- a demo daemon: a configured endurance on one drive, an exec alert hook, short probes
TOKEN=metrics-test-$RANDOM
cat > "$TMP/nvmond.conf" << EOF
[daemon]
poll_interval = 1s
host_name = prom-test-host
host_labels = site=fra1, room="Süd, 2. OG"
public_url = http://127.0.0.1:1/
[http]
token = $TOKEN
[alerts]
exec = /bin/true
[probes]
# The drives' probe locks, apart from any other nvmond on this machine.
lock_dir = $TMP/locks
phase_duration = 500ms
temp_margin = 0
[device "DEMO980PRO00002"]
rated_tbw = 600TB
label = "bay 3 – scratch"
location = rack 12 "U4"
EOF
start_daemon --demo --config "$TMP/nvmond.conf" --db "$TMP/db"
auth=(-H "Authorization: Bearer $TOKEN")
# A real probe run on demo1 and a real alert delivery (the hook), to be exported.
id=$(jq_py "$(http_get /api/v1/devices)" \
	'print([d["id"] for d in j["devices"] if d["serial"] == "DEMO980PRO00002"][0])')
curl -fsS "${auth[@]}" -d '{"preset":"seq1m-q1"}' "http://127.0.0.1:$PORT/api/v1/devices/$id/probes" \
	> /dev/null || fail "POST probe"
curl -fsS "${auth[@]}" -X POST "http://127.0.0.1:$PORT/api/v1/alerts/test" > /dev/null ||
	fail "POST /api/v1/alerts/test"
want_lines=(
	'^nvmond_temperature_celsius{device="demo1"'
	'^nvmond_probe_throughput_bytes_per_second{device="demo1",.*,preset="seq1m-q1",phase="write",direction="write"} [0-9]'
	'^nvmond_probe_written_bytes_total{device="demo1",.*} [1-9]'
	# the demo year's sustained-write runs end stopped at their cliff: still
	# finished runs, exported (issue 28 §8: no sustained series at all)
	'^nvmond_probe_throughput_bytes_per_second{device="demo0",.*,preset="sustained-write",phase="write",direction="write"} [0-9]'
	'^nvmond_probe_throughput_bytes_per_second{device="demo1",.*,preset="sustained-write",phase="write",direction="write"} [0-9]'
	'^nvmond_alert_deliveries_total{sink="exec",result="delivered"} [1-9][0-9]*$'
	# issue 24: who is who, UTF-8 and escaped quotes in label values
	'^nvmond_host_info{host_id="[0-9a-f]\{32\}",host="prom-test-host",public_url="http://127.0.0.1:1/",site="fra1",room="Süd, 2. OG"} 1$'
	'^nvmond_device_info{device="demo1",.*,label="bay 3 – scratch",location="rack 12 \\"U4\\""} 1$'
	'^nvmond_device_health{device="demo1",.*,state="ok"} [01]$'
)
for _ in $(seq 100); do
	curl -fsS "http://127.0.0.1:$PORT/metrics" > "$TMP/metrics.txt" || fail "GET /metrics"
	missing=
	for l in "${want_lines[@]}"; do grep -q "$l" "$TMP/metrics.txt" || missing=$l; done
	[ -z "$missing" ] && break
	sleep 0.2
done
[ -z "$missing" ] || fail "no line $missing in /metrics: $(grep -v '^#' "$TMP/metrics.txt" | head -c 3000)"
ctype=$(curl -fsS -o /dev/null -w '%{content_type}' "http://127.0.0.1:$PORT/metrics")
[ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ] || fail "Content-Type: $ctype"
promtool check metrics < "$TMP/metrics.txt" > "$TMP/lint.out" 2>&1 ||
	fail "promtool check metrics: $(cat "$TMP/lint.out")"
[ -s "$TMP/lint.out" ] && fail "promtool check metrics complains: $(cat "$TMP/lint.out")"
echo "ok: promtool check metrics on $(grep -vc '^#' "$TMP/metrics.txt") samples"
grep -q '^nvmond_rated_endurance_bytes{device="demo1",.*} 600000000000000$' "$TMP/metrics.txt" ||
	fail "rated_tbw = 600TB not exported"

# Self-tests (issue 12): /metrics says what GET …/selftests says of each drive (the
# capability, the running test's type, the last result of each type), read between
# two API reads that agree (a test may end in between: then again).
python3 - "http://127.0.0.1:$PORT" << 'EOF' || fail "self-test metrics disagree with GET …/selftests"
import json, re, sys, urllib.request
base = sys.argv[1]
get = lambda p: urllib.request.urlopen(base + p).read().decode()
def stable(st):
    return (st["supported"], st["running"] and st["running"]["type"], json.dumps(st["last"], sort_keys=True))
for attempt in range(20):
    devs = json.loads(get("/api/v1/devices"))["devices"]
    before = {d["name"]: json.loads(get("/api/v1/devices/%d/selftests" % d["id"])) for d in devs}
    text = get("/metrics")
    after = {d["name"]: json.loads(get("/api/v1/devices/%d/selftests" % d["id"])) for d in devs}
    if all(stable(before[n]) == stable(after[n]) for n in before):
        break
else:
    sys.exit("the self-tests kept changing")
def value(metric, name, extra=""):
    m = re.findall(r'^%s\{device="%s",[^}]*serial="[^"]*"%s\} (\S+)$' % (metric, name, extra), text, re.M)
    assert len(m) <= 1, (metric, name, m)
    return m[0] if m else None
n_last = 0
for name, st in before.items():
    want = {True: "1", False: "0", None: None}[st["supported"]]
    assert value("nvmond_selftest_supported", name) == want, (name, st["supported"], value("nvmond_selftest_supported", name))
    for t in ("short", "extended"):
        r = st["last"][t]
        got = [value(m, name, ',type="%s"' % t) for m in
               ("nvmond_selftest_last_result", "nvmond_selftest_last_passed", "nvmond_selftest_last_timestamp_seconds")]
        if r is None:
            assert got == [None] * 3, (name, t, got)
        else:
            n_last += 1
            assert got == [str(r["result_code"]), "1" if r["passed"] else "0",
                           "%d.%03d" % divmod(r["seen_ms"], 1000)], (name, t, got, r)
        running = value("nvmond_selftest_running", name, ',type="%s"' % t)
        if running is not None:  # once the log was read
            assert running == ("1" if st["running"] and st["running"]["type"] == t else "0"), (name, t, running, st["running"])
    if not st["supported"]:
        assert value("nvmond_selftest_running", name, ',type="short"') is None, name
print("ok: self-test metrics of %d drives agree with GET …/selftests (%d last results; supported: %s)" % (
    len(before), n_last, ", ".join("%s %s" % (n, st["supported"]) for n, st in sorted(before.items()))))
EOF

# Every metric the rules and the dashboard use is one the daemon serves.
python3 - "$TMP/metrics.txt" "$PROM_DIR/nvmond.rules.yml" "$PROM_DIR/grafana-dashboard.json" << 'EOF' ||
import json, re, sys
served = set(re.findall(r'^# TYPE (\S+)', open(sys.argv[1]).read(), re.M))
used = set(re.findall(r'\bnvmond_[a-z_]+', open(sys.argv[2]).read()))
dash = json.load(open(sys.argv[3]))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
exprs += [a["expr"] for a in dash["annotations"]["list"]]
exprs += [v["definition"] for v in dash["templating"]["list"] if "definition" in v]
for e in exprs:
    used |= set(re.findall(r'\bnvmond_[a-z_]+', e))
missing = sorted(used - served)
if missing:
    sys.exit("used but not served: %s" % ", ".join(missing))
json.dump([e for e in exprs if not e.startswith("label_values")], open(sys.argv[1] + ".exprs", "w"))
EOF
	fail "rules or dashboard use a metric the daemon does not serve"

# ---- a real Prometheus on loopback scraping the daemon every second
PROM_PORT=$(free_port)
cat > "$TMP/prometheus.yml" << EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $PROM_DIR/nvmond.rules.yml
scrape_configs:
  - job_name: nvmond
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" > "$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
PROM=http://127.0.0.1:$PROM_PORT
for _ in $(seq 150); do
	curl -fsS "$PROM/-/ready" > /dev/null 2>&1 && break
	kill -0 "$PROM_PID" 2>/dev/null || fail "prometheus exited: $(tail -5 "$TMP/prometheus.log")"
	sleep 0.2
done
curl -fsS "$PROM/-/ready" > /dev/null || fail "prometheus not ready in 30 s"

# promql QUERY: the single value of an instant query ("" while there is none).
promql() {
	curl -fsS --max-time 10 -G "$PROM/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if len(r)==1 else "")'
}
served() { # the value the daemon served for a metric line prefix
	curl -fsS "http://127.0.0.1:$PORT/metrics" | awk -v p="$1" 'index($0, p) == 1 { print $NF }'
}

Q='nvmond_capacity_bytes{job="nvmond",serial="DEMO980PRO00002"}'
got=
for _ in $(seq 100); do
	got=$(promql "$Q")
	[ -n "$got" ] && break
	sleep 0.3
done
want=$(served 'nvmond_capacity_bytes{device="demo1",')
[ -n "$got" ] || fail "Prometheus has no answer for $Q: $(tail -5 "$TMP/prometheus.log")"
[ "$got" = "$want" ] || fail "Prometheus says $Q = $got, the daemon served $want"
echo "ok: PromQL $Q = $got (served: $want)"

# The drive's label went through Prometheus's parser and storage as UTF-8, and a join
# with the host's labels works as metrics.md shows it.
Q='nvmond_device_info{label="bay 3 – scratch"} * on(job, instance) group_left(host, site) nvmond_host_info'
got=$(curl -fsS -G "$PROM/api/v1/query" --data-urlencode "query=$Q" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(" ".join("%s/%s/%s=%s" % (x["metric"]["serial"], x["metric"]["host"], x["metric"]["site"], x["value"][1]) for x in r))')
[ "$got" = "DEMO980PRO00002/prom-test-host/fra1=1" ] || fail "PromQL $Q = '$got'"
echo "ok: PromQL join of the drive's label and the host's labels: $got"

Q='nvmond_probe_written_bytes_total{serial="DEMO980PRO00002"}'
got=$(promql "$Q")
want=$(served 'nvmond_probe_written_bytes_total{device="demo1",')
[ -n "$got" ] && [ "$got" = "$want" ] || fail "PromQL $Q = '$got', served $want"
echo "ok: PromQL $Q = $got"
Q='sum by (sink) (nvmond_alert_deliveries_total{result="delivered"})'
got=$(curl -fsS -G "$PROM/api/v1/query" --data-urlencode "query=$Q" | python3 -c '
import json, sys
r = sorted(json.load(sys.stdin)["data"]["result"], key=lambda r: r["metric"]["sink"])
print(" ".join("%s=%s" % (x["metric"]["sink"], x["value"][1]) for x in r))')
# The test notification, and any real alert of the hot demo drive: at least one.
[[ "$got" =~ ^exec=[1-9][0-9]*\ webhook=0$ ]] || fail "PromQL $Q = '$got'"
echo "ok: PromQL $Q = $got"

Q='nvmond_temperature_warning_threshold_celsius{serial="DEMO950PRO00001"}'
got=$(promql "$Q")
[ "$got" = 70 ] || fail "PromQL $Q = '$got', want 70 (demo0 WCTEMP)"
echo "ok: PromQL $Q = $got"
Q='nvmond_data_written_bytes_total{serial="DEMO980PRO00002"} / nvmond_rated_endurance_bytes'
got=$(promql "$Q")
want=$(python3 -c "print(int('$(served 'nvmond_data_written_bytes_total{device="demo1",')') / 600e12)")
python3 -c "import sys; g,w=map(float,sys.argv[1:]); sys.exit(0 if 0 < g and abs(g-w) <= 1e-3*w else 1)" \
	"$got" "$want" || fail "PromQL $Q = '$got', want about $want"
echo "ok: PromQL $Q = $got"

# A counter: Prometheus' latest scrape is within the daemon's polls seen before/after.
# Wait for a scrape newer than "before" (scrape_interval 1s) rather than a fixed time.
before=$(served 'nvmond_polls_total')
for _ in $(seq 100); do
	got=$(promql 'nvmond_polls_total{job="nvmond"}')
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1] or 0) > float(sys.argv[2]) else 1)" \
		"$got" "$before" && break
	sleep 0.2
done
after=$(served 'nvmond_polls_total')
python3 -c "import sys; b,g,a=map(float,sys.argv[1:]); sys.exit(0 if b<=g<=a and g>b else 1)" \
	"$before" "$got" "$after" || fail "nvmond_polls_total: served $before..$after, Prometheus $got"
echo "ok: PromQL nvmond_polls_total = $got (served $before .. $after)"
[ "$(promql 'up{job="nvmond"}')" = 1 ] || fail "up{job=nvmond} != 1"

# Every dashboard expression evaluates without error on real data.
python3 - "$PROM" "$TMP/metrics.txt.exprs" << 'EOF' || fail "a dashboard expression fails in Prometheus"
import json, sys, urllib.parse, urllib.request
prom, exprs = sys.argv[1], json.load(open(sys.argv[2]))
bad = 0
for e in exprs:
    q = e.replace("$instance", ".*").replace("$serial", ".*").replace("$__rate_interval", "1m")
    url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    try:
        r = json.load(urllib.request.urlopen(url, timeout=10))
        ok = r["status"] == "success"
    except Exception as ex:
        ok, r = False, ex
    if not ok:
        print("dashboard expression failed: %s: %s" % (q, r))
        bad += 1
print("ok: %d dashboard expressions evaluate" % len(exprs))
sys.exit(1 if bad else 0)
EOF

# The rules loaded, and evaluate without error on real data.
curl -fsS "$PROM/api/v1/rules" | python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
bad = [r["name"] + ": " + r.get("lastError", "") for r in rules if r.get("health") == "err"]
assert len(rules) >= 15 and not bad, (len(rules), bad)
print("ok: %d rules loaded in Prometheus, none failing" % len(rules))
' || fail "rules not healthy in Prometheus"

kill "$PROM_PID"
wait "$PROM_PID" 2> /dev/null
PROM_PID=
stop_daemon

# ---- wear projections: 40 days of synthetic history, /metrics agrees with GET …/wear
if [ -n "${NVMOND_HISTGEN:-}" ]; then
	"$NVMOND_HISTGEN" "$TMP/hist.db" 40 1 600 7 > "$TMP/histgen.log" 2>&1 ||
		fail "histgen: $(cat "$TMP/histgen.log")"
	printf '[daemon]\ndatabase = %s\ndemo = yes\n' "$TMP/hist.db" > "$TMP/hist.conf"
	start_daemon -c "$TMP/hist.conf"
	curl -fsS "http://127.0.0.1:$PORT/metrics" > "$TMP/hist-metrics.txt" || fail "GET /metrics"
	http_get /api/v1/devices/1/wear > "$TMP/wear.json"
	python3 - "$TMP/hist-metrics.txt" "$TMP/wear.json" << 'EOF' || fail "wear projection in /metrics"
import datetime, json, re, sys
text, wear = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
m = re.search(r'^nvmond_wear_projected_end_timestamp_seconds\{device="nvme0",.*serial="HISTGEN0000",basis="rated_tbw"\} (\S+)$', text, re.M)
assert m, "no rated_tbw projection for HISTGEN0000"
api = datetime.datetime.fromisoformat(wear["tbw_date"].replace("Z", "+00:00")).timestamp()
assert abs(float(m.group(1)) - api) < 86400, (m.group(1), wear["tbw_date"])
r = re.search(r'^nvmond_rated_endurance_bytes\{device="nvme0",.*serial="HISTGEN0000"\} (\d+)$', text, re.M)
assert r and int(r.group(1)) == wear["rating"]["rated_bytes"], (r, wear["rating"])
print("ok: projected end %s (GET …/wear: %s), rated %s bytes (%s)" % (
    datetime.datetime.utcfromtimestamp(float(m.group(1))).isoformat(), wear["tbw_date"],
    r.group(1), wear["rating"]["source"]))
EOF
	stop_daemon
else
	echo "SKIP (part): NVMOND_HISTGEN not set (run through ctest)"
fi
pass
