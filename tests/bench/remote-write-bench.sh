#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): the cost of remote write (issue 24 §2), against
# Debian's VictoriaMetrics and vmagent, on loopback.
#
# 1. Steady state, SECONDS side by side (so a shared machine's load weighs on all alike),
#    each daemon with DRIVES demo drives polled every second on its own empty database:
#      base   — no export, nothing scrapes it;
#      push   — [export "vm"] to VictoriaMetrics every second;
#      scrape — no export; vmagent scrapes its /metrics every second and remote-writes
#               to the same VictoriaMetrics (the same data, the way one would without
#               nvmond's push).
#    CPU is every thread's time on a CPU (/proc/PID/task/*/schedstat, with the device
#    process); memory is VmRSS and RssAnon at the end. Push cost = push − base, and the
#    export thread alone; vmagent's = scrape − base (the scrapes nvmond answers) plus
#    vmagent itself. Per series sample sent: nvmond_export_samples_total, and vmagent's
#    vmagent_remotewrite_global_rows_pushed_before_relabel_total.
# 2. A one-day catch-up: nvmond-histgen makes a day of 10-second samples for DRIVES
#    drives; the export's first start is set a day back, and the daemon sends it all to an
#    empty VictoriaMetrics while polling its own demo drives: the time to an empty backlog,
#    stored samples/s and series samples/s, the CPU it took, and the daemon's RSS every
#    0.2 s (peak, and its private anonymous part) beside the same daemon without the export.
#
# Usage: tests/bench/remote-write-bench.sh BUILD_DIR [SECONDS=60] [DRIVES=32]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SECONDS] [DRIVES]}
secs=${2:-60}
drives=${3:-32}
for tool in victoria-metrics vmagent sqlite3 curl python3; do
	command -v "$tool" > /dev/null || { echo "$tool is missing (Debian: victoria-metrics, sqlite3)"; exit 1; }
done
tmp=$(mktemp -d /tmp/nvmond-rwbench.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; sleep 0.5; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ns() { # every thread's time on a CPU, in ns, with the device process's
	local p
	for p in "$@" $(pgrep -P "$1" -x nvmond-dev || true); do
		cat /proc/"$p"/task/*/schedstat 2> /dev/null
	done | awk '{ s += $1 } END { printf "%d", s }'
}
thread_ns() { # thread_ns PID NAME: the time of the threads named NAME
	local t
	for t in /proc/"$1"/task/*; do
		if [ "$(cat "$t/comm" 2> /dev/null)" = "$2" ]; then cat "$t/schedstat"; fi
	done | awk '{ s += $1 } END { printf "%d", s }'
}
mem_kb() { awk '$1 == "VmRSS:" { r = $2 } $1 == "RssAnon:" { a = $2 } END { print r, a }' /proc/"$1"/status; }
metric() { curl -fsS "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
wait_http() { for _ in $(seq 200); do curl -fsS "$1" > /dev/null 2>&1 && return 0; sleep 0.1; done; echo "no answer from $1"; exit 1; }

start_vm() { # start_vm NAME: VictoriaMetrics in $tmp/NAME, its port in $tmp/NAME.port
	local p
	p=$(port)
	victoria-metrics -storageDataPath="$tmp/$1" -httpListenAddr="127.0.0.1:$p" -loggerLevel=ERROR \
		> "$tmp/$1.log" 2>&1 &
	pids+=($!)
	echo "$p" > "$tmp/$1.port"
	wait_http "http://127.0.0.1:$p/health"
}
# start_nvmond NAME [DB] [EXPORT_URL]: a daemon with $drives demo drives at a 1 s poll
start_nvmond() {
	local d=$tmp/$1 p
	mkdir -p "$d"
	p=$(port)
	cat > "$d/nvmond.conf" << EOF
[daemon]
database = ${2:-$d/db}
demo = yes
demo_drives = $drives
demo_history = no
poll_interval = 1s
host_name = $1
[probes]
lock_dir = $d/locks
EOF
	[ -n "${3:-}" ] && printf '[export "vm"]\ntype = remote_write\nurl = %s\ninterval = 1s\n' "$3" >> "$d/nvmond.conf"
	"$build/nvmond" -c "$d/nvmond.conf" --listen "127.0.0.1:$p" > "$d/daemon.log" 2>&1 &
	pids+=($!)
	echo $! > "$d/pid"
	echo "$p" > "$d/port"
	wait_http "http://127.0.0.1:$p/healthz"
}

echo "# remote-write-bench: $drives drives at a 1 s poll, $secs s; load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
start_vm vm
vm=http://127.0.0.1:$(cat "$tmp/vm.port")
start_nvmond base
start_nvmond push "" "$vm/api/v1/write"
start_nvmond scrape
ap=$(port)
cat > "$tmp/vmagent.yml" << EOF
scrape_configs:
  - job_name: nvmond
    scrape_interval: 1s
    static_configs:
      - targets: ['127.0.0.1:$(cat "$tmp/scrape/port")']
EOF
vmagent -promscrape.config="$tmp/vmagent.yml" -remoteWrite.url="$vm/api/v1/write" \
	-remoteWrite.tmpDataPath="$tmp/vmagent-data" -httpListenAddr="127.0.0.1:$ap" -loggerLevel=ERROR \
	> "$tmp/vmagent.log" 2>&1 &
vmagent_pid=$!
pids+=("$vmagent_pid")
wait_http "http://127.0.0.1:$ap/metrics"
sleep 5
for n in base push scrape; do echo "$(cpu_ns "$(cat "$tmp/$n/pid")")" > "$tmp/$n.t0"; done
push_pid=$(cat "$tmp/push/pid")
exp0=$(thread_ns "$push_pid" exp-vm)
sent0=$(metric "$(cat "$tmp/push/port")" 'nvmond_export_samples_total{export="vm"}')
va0=$(cpu_ns "$vmagent_pid")
rows0=$(metric "$ap" vmagent_remotewrite_global_rows_pushed_before_relabel_total)
sleep "$secs"
sent1=$(metric "$(cat "$tmp/push/port")" 'nvmond_export_samples_total{export="vm"}')
rows1=$(metric "$ap" vmagent_remotewrite_global_rows_pushed_before_relabel_total)
exp1=$(thread_ns "$push_pid" exp-vm)
va1=$(cpu_ns "$vmagent_pid")
for n in base push scrape; do
	echo "$(( $(cpu_ns "$(cat "$tmp/$n/pid")") - $(cat "$tmp/$n.t0") )) $(mem_kb "$(cat "$tmp/$n/pid")")" > "$tmp/$n.res"
done
read -r base_ns base_rss base_anon < "$tmp/base.res"
read -r push_ns push_rss push_anon < "$tmp/push.res"
read -r scr_ns scr_rss scr_anon < "$tmp/scrape.res"
read -r va_rss va_anon < <(mem_kb "$vmagent_pid")
python3 - "$secs" "$base_ns" "$push_ns" "$scr_ns" "$((exp1 - exp0))" "$((va1 - va0))" \
	"$((sent1 - sent0))" "$((rows1 - rows0))" "$base_rss" "$push_rss" "$scr_rss" "$va_rss" \
	"$base_anon" "$push_anon" "$scr_anon" "$va_anon" << 'EOF'
import sys
a = sys.argv[1:]
secs = float(a[0]); base, push, scr, exp, va = (int(x) / 1e6 for x in a[1:6])
sent, rows = int(a[6]), int(a[7])
base_rss, push_rss, scr_rss, va_rss, base_anon, push_anon, scr_anon, va_anon = (int(x) / 1024 for x in a[8:16])
print("\n## Steady state: push vs. vmagent scraping the same daemon (%d s)\n" % secs)
print("| | series samples sent | samples/s | CPU ms | CPU % of one core | µs CPU per sample | RSS MiB (anon) |")
print("|---|---|---|---|---|---|---|")
print("| nvmond, no export (base) | – | – | %.0f | %.2f | – | %.1f (%.1f) |" % (base, base / secs / 10, base_rss, base_anon))
print("| nvmond push: whole daemon − base | %d | %.0f | %.0f | %.2f | %.2f | +%.1f (+%.1f) |" % (
    sent, sent / secs, push - base, (push - base) / secs / 10, (push - base) * 1000 / max(sent, 1),
    push_rss - base_rss, push_anon - base_anon))
print("| nvmond push: the export thread alone | | | %.0f | %.2f | %.2f | |" % (exp, exp / secs / 10, exp * 1000 / max(sent, 1)))
print("| vmagent: scrapes answered (scrape − base) | | | %.0f | %.2f | | +%.1f (+%.1f) |" % (
    scr - base, (scr - base) / secs / 10, scr_rss - base_rss, scr_anon - base_anon))
print("| vmagent itself | %d | %.0f | %.0f | %.2f | %.2f | %.1f (%.1f) |" % (
    rows, rows / secs, va, va / secs / 10, va * 1000 / max(rows, 1), va_rss, va_anon))
tot = scr - base + va
print("| vmagent, in all | %d | %.0f | %.0f | %.2f | %.2f | +%.1f |" % (
    rows, rows / secs, tot, tot / secs / 10, tot * 1000 / max(rows, 1), scr_rss - base_rss + va_rss))
EOF
for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
wait 2> /dev/null || true
pids=()

# ---- 2. a one-day catch-up
echo
echo "Making a day of 10 s samples for $drives drives (nvmond-histgen) ..."
t0=$(date +%s)
"$build/tests/nvmond-histgen" "$tmp/day.db" 1 "$drives" 10 > "$tmp/histgen.log" 2>&1
echo "... in $(( $(date +%s) - t0 )) s: $(sqlite3 "$tmp/day.db" 'SELECT count(*) FROM samples') stored samples"
cp "$tmp/day.db" "$tmp/day-base.db"
now=$(date +%s%3N)
sqlite3 "$tmp/day.db" "INSERT INTO exports (name, created_ms) VALUES ('vm', $now - 86400000 - 60000)"
start_vm vm2
vm2=http://127.0.0.1:$(cat "$tmp/vm2.port")
start_nvmond cbase "$tmp/day-base.db"
start_nvmond catchup "$tmp/day.db" "$vm2/api/v1/write"
cpid=$(cat "$tmp/catchup/pid") bpid=$(cat "$tmp/cbase/pid") cport=$(cat "$tmp/catchup/port")
c0=$(cpu_ns "$cpid") b0=$(cpu_ns "$bpid") t0=$(date +%s%3N)
peak=0 peak_anon=0 bpeak=0
while :; do
	read -r r a < <(mem_kb "$cpid")
	read -r br _ < <(mem_kb "$bpid")
	[ "$r" -gt "$peak" ] && peak=$r && peak_anon=$a
	[ "$br" -gt "$bpeak" ] && bpeak=$br
	done_=$(curl -fsS "http://127.0.0.1:$cport/api/v1/exports" | python3 -c '
import json, sys
e = json.load(sys.stdin)["exports"][0]
print(1 if e["requests"] > 0 and e["backlog_samples"] == 0 and not e["catching_up"] else 0)')
	[ "$done_" = 1 ] && break
	[ $(( $(date +%s%3N) - t0 )) -gt 1800000 ] && { echo "no catch-up within 30 min"; exit 1; }
	sleep 0.2
done
t=$(( $(date +%s%3N) - t0 ))
c=$(( $(cpu_ns "$cpid") - c0 )) b=$(( $(cpu_ns "$bpid") - b0 ))
sent=$(metric "$cport" 'nvmond_export_samples_total{export="vm"}')
stored=$(sqlite3 "$tmp/day.db" "SELECT count(*) FROM samples WHERE ts_ms > $now - 86400000 - 60000 AND ts_ms <= $now")
curl -fsS "$vm2/internal/force_flush" > /dev/null
live=$(curl -fsS -G "$vm2/api/v1/export" --data-urlencode 'match[]=nvmond_host_info{host="catchup"}' \
	--data-urlencode "start=$((t0 / 1000))" --data-urlencode "end=$(((t0 + t) / 1000))" |
	python3 -c 'import json,sys; ts=[t for l in sys.stdin for t in json.loads(l)["timestamps"]]; ts.sort(); print(len(ts), max([b-a for a,b in zip(ts,ts[1:])] or [0]))')
python3 - "$t" "$c" "$b" "$sent" "$stored" "$peak" "$peak_anon" "$bpeak" $live << 'EOF'
import sys
t, c, b, sent, stored, peak, anon, bpeak, live, gap = (int(x) for x in sys.argv[1:])
print("\n## A one-day catch-up (%d stored samples before the start, %d series samples sent in all)\n" % (stored, sent))
print("| time | stored samples/s | series samples/s | CPU s (− the same daemon without export) | µs CPU per series sample | peak RSS MiB (anon) | without export |")
print("|---|---|---|---|---|---|---|")
print("| %.1f s | %.0f | %.0f | %.2f (%.2f) | %.2f | %.1f (%.1f) | %.1f |" % (
    t / 1000, stored / (t / 1000), sent / (t / 1000), c / 1e9, (c - b) / 1e9, (c - b) / 1e3 / max(sent, 1),
    peak / 1024, anon / 1024, bpeak / 1024))
print("\nThe live part during the catch-up: %d pushes in %.1f s (interval 1 s), the longest gap %.1f s." % (
    live, t / 1000, gap / 1000))
EOF
