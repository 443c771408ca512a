#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): start-up with a year of history for 4 drives
# (issue 14 §2: READY within 500 ms; rollups catch up in the background).
#
# The database is a year of 10-second samples for 4 drives (nvmond-histgen DB 365 4 10,
# or an existing one). Each run starts the daemon on a fresh copy of it (4 demo drives,
# demo_history = no), and measures
# from the exec to READY=1 (sd_notify, read on a NOTIFY_SOCKET the script binds) and to
# the first 200 answer of GET /healthz (tried every 2 ms).
#
# Usage: tests/bench/startup-bench.sh BUILD_DIR [EXISTING_YEAR_DB] [RUNS=5]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [YEAR_DB] [RUNS]}
runs=${3:-5}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/nvmond-startup.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ -n "${2:-}" ]; then
	cp "$2" "$tmp/year.db"
else
	"$build/tests/nvmond-histgen" "$tmp/year.db" 365 4 10 > /dev/null
fi
echo "database: $(du -h "$tmp/year.db" | cut -f1), $runs runs"

python3 - "$build/nvmond" "$tmp" "$src/web" "$runs" << 'EOF'
import http.client, os, shutil, socket, statistics, subprocess, sys, time

nvmond, tmp, web, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ready, health = [], []
for i in range(runs):
    db = f"{tmp}/run.db"
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(db + ext):
            os.remove(db + ext)
    shutil.copy(f"{tmp}/year.db", db)
    sock_path = f"{tmp}/notify"
    if os.path.exists(sock_path):
        os.remove(sock_path)
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(sock_path)
    ns.setblocking(False)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with open(f"{tmp}/nvmond.conf", "w") as f:
        f.write(f"[daemon]\ndatabase = {db}\ndemo = yes\ndemo_drives = 4\n"
                f"demo_history = no\nweb_root = {web}\n")
    env = dict(os.environ, NOTIFY_SOCKET=sock_path)
    t0 = time.monotonic()
    p = subprocess.Popen([nvmond, "-c", f"{tmp}/nvmond.conf", "--listen", f"127.0.0.1:{port}"],
                         env=env, stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/log", "w"))
    t_ready = t_health = None
    while (t_ready is None or t_health is None) and time.monotonic() - t0 < 30:
        try:
            while True:
                msg = ns.recv(4096).decode()
                if "READY=1" in msg.split("\n") and t_ready is None:
                    t_ready = time.monotonic() - t0
        except BlockingIOError:
            pass
        if t_health is None:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    t_health = time.monotonic() - t0
                c.close()
            except OSError:
                pass
        time.sleep(0.002)
    p.terminate()
    p.wait()
    ns.close()
    if t_ready is None or t_health is None:
        sys.exit(f"run {i}: no READY=1 or /healthz within 30 s; log: {open(tmp + '/log').read()}")
    ready.append(t_ready * 1000)
    health.append(t_health * 1000)
print("| to | median (ms) | max (ms) | runs (ms) |\n|---|---|---|---|")
for name, v in (("READY=1", ready), ("first /healthz 200", health)):
    print(f"| {name} | {statistics.median(v):.0f} | {max(v):.0f} | "
          + ", ".join(f"{x:.0f}" for x in v) + " |")
EOF
