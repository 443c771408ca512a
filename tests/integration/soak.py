#!/usr/bin/env python3
"""A long run at a fast poll: does anything grow? (issue 23 §5, docs/architecture.md#a-long-run)

  soak.py NVMOND WEB_ROOT DIR SECONDS [--drives N] [--poll MS] [--warmup SECONDS]
          [--every SECONDS] [--polls N] [--check] [--max-anon KIB] [--check-cpu]

Runs NVMOND with N demo drives (32) polled every MS ms (100) on a new database in
DIR, with the API under a light load (a dashboard and a Prometheus: every 2 s the
device list, one drive, its last minute of samples and its day of series, in
turn; /metrics every 15 s), for SECONDS, or until N drive-polls (--polls)
if that comes first (a loaded machine polls slower than asked). Every --every seconds it reads, for the
daemon and for its device process: VmRSS and RssAnon (/proc/PID/status), open
descriptors, threads, CPU time (utime + stime) and wakeups (voluntary context
switches of all its threads); the daemon's allocator's figures; the database's size
(with its -wal and -shm); and the drive-polls so far (nvmond_polls_total). After
--warmup seconds (a fifth of the run by default) each figure is fitted with a
least-squares line against the drive-polls, and a table gives it at the
warm-up's end and at the end, with its slope per 100,000 drive-polls; CPU and
wakeups per drive-poll over the first and the last tenth of the measured time.

--check: exit 1 on a clear leak, naming the figure: the daemon's memory allocated and
not freed (its allocator's count, nvmond_malloc_in_use_bytes, read with the
drive-polls) growing by more than --max-malloc KiB (512) per 100,000 drive-polls over
the measured part (512: a leak of 5 bytes per drive-poll); the daemon's or the device
process's private anonymous memory growing by more than --max-anon KiB (512) per
100,000 drive-polls at its lowest (the lowest reading of the measured part's last
third against its first third's: a reading taken while an answer is built, or
while an arena keeps its free top, is higher for a moment), or RSS by twice that;
descriptors (but the database's) or threads
more at the end than at the warm-up's end; the database's descriptors above
what the main handle and a read-only one per HTTP thread take (the pool of
read-only handles grows with the requests served at once); the database growing by more than 1 KiB per drive-poll (a
sample row is about 100 bytes); an API request that failed. --check-cpu: also
CPU per drive-poll at the end above twice that at the start, once the warm-up
is past the rollups' grace (5 min: until then each /metrics and series answer
reads the raw samples not rolled up yet, a few more every second).
"""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.split()
    return out


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        w = f.read().rsplit(")", 1)[1].split()
    return (int(w[11]) + int(w[12])) / os.sysconf("SC_CLK_TCK")


def wakeups(pid):
    """Voluntary context switches summed over @pid's threads: each is a thread going to
    sleep, so one wakeup (docs/architecture.md#idle-wakeups)."""
    n = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            n += int(status(f"{pid}/task/{t}")["voluntary_ctxt_switches"][0])
        except (OSError, KeyError):
            pass  # a thread gone meanwhile
    return n


# The database's descriptors: the main loop's handle (the file, its -wal and -shm) and
# a read-only one (the file and its -wal) for each HTTP thread that has served a
# request while another did: the pool grows to the API's concurrency, 4 threads at most.
DB_FDS_MAX = 3 + 2 * 4


def descriptors(pid, db):
    """(descriptors other than the database's, the database's) of @pid."""
    other = on_db = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if target in (db, db + "-wal", db + "-shm"):
            on_db += 1
        else:
            other += 1
    return other, on_db


def proc_figures(pid, db):
    st = status(pid)
    fds, db_fds = descriptors(pid, db)
    return {
        "fds": fds,
        "db_fds": db_fds,
        "wakeups": wakeups(pid),
        "rss_kib": int(st["VmRSS"][0]),
        "anon_kib": int(st["RssAnon"][0]),
        "threads": int(st["Threads"][0]),
        "cpu_s": cpu_s(pid),
    }


def anon_by_mapping(pid):
    """The daemon's private anonymous memory by where it lies (KiB): [heap] (the main
    thread's malloc), the other malloc arenas (the threads', 64 MiB reservations),
    thread stacks and the rest."""
    out = {"[heap]": 0, "thread arenas": 0, "stacks": 0, "other": 0}
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            w = line.split()
            if "-" in w[0] and len(w) >= 5 and not line.startswith(("Size", "Rss")):
                lo, hi = (int(x, 16) for x in w[0].split("-"))
                path = w[5] if len(w) > 5 else ""
                size = hi - lo
                if path == "[heap]":
                    cur = "[heap]"
                elif path == "[stack]":
                    cur = "stacks"
                elif path:
                    cur = None
                elif size in (8 << 20, 256 << 10) or size == (8 << 20) - 4096:
                    cur = "stacks"
                elif lo % (64 << 20) == 0:
                    # glibc's heaps of the other arenas: aligned to their 64 MiB
                    # reservation, whatever part of it is mapped read-write yet
                    cur = "thread arenas"
                else:
                    cur = "other"
            elif w[0] == "Anonymous:" and cur:
                out[cur] += int(w[1])
    return out


class Api:
    def __init__(self, port):
        self.port = port
        self.errors = []
        self.requests = 0
        self.conn = None
        self.times = {}  # kind -> [(monotonic, seconds)]
        self.lock = threading.Lock()

    def get(self, path, fresh=False, kind=None):
        """GET @path on a kept connection (a new one when @fresh): the body, or None."""
        with self.lock:
            for attempt in (0, 1):
                t = time.monotonic()
                try:
                    if fresh or self.conn is None:
                        if self.conn:
                            self.conn.close()
                        self.conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                               timeout=30)
                    self.conn.request("GET", path)
                    r = self.conn.getresponse()
                    body = r.read()
                    self.requests += 1
                    if kind:
                        self.times.setdefault(kind, []).append((t, time.monotonic() - t))
                    if r.status != 200:
                        self.errors.append(f"GET {path}: {r.status} {body[:200]!r}")
                        return None
                    return body
                except (OSError, http.client.HTTPException) as e:
                    # A kept connection the server closed (its idle timeout): once more.
                    self.conn = None
                    if attempt or fresh:
                        self.errors.append(f"GET {path}: {e!r}")
                        return None
        return None

    def figures(self):
        """From /metrics: the drive-polls so far and the daemon's allocator's figures."""
        body = self.get("/metrics", kind="metrics")
        out = {}
        names = {"nvmond_polls_total": "polls", "nvmond_malloc_in_use_bytes": "in_use",
                 "nvmond_malloc_kept_free_bytes": "kept_free"}
        for line in (body or b"").decode().splitlines():
            k, _, v = line.partition(" ")
            if k in names:
                out[names[k]] = int(float(v))
        return out


def load(api, stop, ids):
    """A dashboard and a Prometheus, lightly."""
    i = 0
    next_metrics = time.monotonic()
    while not stop.wait(2.0):
        dev = ids[i % len(ids)]
        now_ms = int(time.time() * 1000)
        api.get("/api/v1/devices", fresh=(i % 10 == 0), kind="devices")
        api.get(f"/api/v1/devices/{dev}", kind="device")
        api.get(f"/api/v1/devices/{dev}/samples?from={now_ms - 60000}", kind="samples, 1 min")
        api.get(f"/api/v1/devices/{dev}/series?from={now_ms - 86400000}&points=300",
                kind="series, 1 day")
        if time.monotonic() >= next_metrics:
            api.get("/metrics", fresh=True, kind="metrics")
            next_metrics += 15
        i += 1


def fit(xs, ys):
    """Slope of the least-squares line of ys against xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0


def floor_slope(m, key):
    """The slope per 100,000 drive-polls of @key's lowest reading from the first third of
    @m to the last one's (between the thirds' mean drive-polls), and those two lows.
    Memory mapped for a moment (an answer being built, a thread's arena keeping up to
    1 MiB free at its top: api.c's malloc_tune()) lifts a reading, never the lows; a leak
    lifts them all."""
    n = max(1, len(m) // 3)
    first, last = m[:n], m[-n:]
    lo_a, lo_z = min(r[key] for r in first), min(r[key] for r in last)
    span = (sum(r["polls"] for r in last) - sum(r["polls"] for r in first)) / n
    return ((lo_z - lo_a) / span * 1e5 if span else 0.0), lo_a, lo_z


def main():
    args = sys.argv[1:]
    opt = {"--drives": 32, "--poll": 100, "--warmup": None, "--every": None, "--polls": None}
    check = "--check" in args
    if check:
        args.remove("--check")
    check_cpu = "--check-cpu" in args
    if check_cpu:
        args.remove("--check-cpu")
    max_anon, max_malloc = 512.0, 512.0
    for name in ("--max-anon", "--max-malloc"):
        if name in args:
            i = args.index(name)
            if name == "--max-anon":
                max_anon = float(args[i + 1])
            else:
                max_malloc = float(args[i + 1])
            del args[i : i + 2]
    for k in list(opt):
        if k in args:
            i = args.index(k)
            opt[k] = float(args[i + 1])
            del args[i : i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    nvmond, web, d, secs = args[0], args[1], args[2], float(args[3])
    warm = opt["--warmup"] if opt["--warmup"] is not None else secs / 5
    every = opt["--every"] or max(2.0, secs / 60)
    db = os.path.join(d, "soak.db")
    port = free_port()
    conf = os.path.join(d, "soak.conf")
    with open(conf, "w") as f:
        f.write(f"[daemon]\ndatabase = {db}\ndemo = yes\ndemo_drives = {int(opt['--drives'])}\n"
                f"demo_history = no\npoll_interval = {int(opt['--poll'])}ms\n"
                f"web_root = {web}\n")
    log = open(os.path.join(d, "daemon.log"), "w")
    p = subprocess.Popen([nvmond, "-c", conf, "--listen", f"127.0.0.1:{port}"],
                         stdout=log, stderr=subprocess.STDOUT)
    api = Api(port)
    anon_map = {}
    try:
        for _ in range(100):
            if api.get("/healthz") is not None:
                break
            time.sleep(0.1)
        else:
            sys.exit("the daemon did not answer /healthz")
        api.errors = []  # refused while it started
        with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
            dev_pid = int(f.read().split()[0])
        devs = json.loads(api.get("/api/v1/devices"))["devices"]
        stop = threading.Event()
        t = threading.Thread(target=load, args=(api, stop, [x["id"] for x in devs]), daemon=True)
        t.start()
        rows = []
        t0 = time.monotonic()
        while True:
            fig = api.figures()
            polls = fig.get("polls")
            row = {"t": time.monotonic() - t0, "polls": polls,
                   "daemon.malloc_kib": fig.get("in_use", 0) // 1024,
                   "daemon.kept_kib": fig.get("kept_free", 0) // 1024}
            for name, pid in (("daemon", p.pid), ("device", dev_pid)):
                for k, v in proc_figures(pid, db).items():
                    row[f"{name}.{k}"] = v
            # Where the daemon's grows: the main loop's heap or the threads' arenas.
            am = anon_by_mapping(p.pid)
            row["daemon.heap_kib"] = am["[heap]"]
            row["daemon.arenas_kib"] = am["thread arenas"]
            row["db_kib"] = sum(os.path.getsize(db + s) for s in ("", "-wal", "-shm")
                                if os.path.exists(db + s)) / 1024
            if polls is not None:
                rows.append(row)
            if row["t"] >= secs or (opt["--polls"] and (polls or 0) >= opt["--polls"]):
                break
            time.sleep(min(every, secs - row["t"] + 0.01))
        stop.set()
        t.join()
        anon_map = anon_by_mapping(p.pid)
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
    with open(os.path.join(d, "rows.json"), "w") as f:
        json.dump(rows, f)
    m = [r for r in rows if r["t"] >= warm]
    if len(m) < 3:
        sys.exit(f"only {len(m)} readings after the warm-up")
    a, z = m[0], m[-1]
    xs = [r["polls"] for r in m]
    tenth = max(1, len(m) // 10)

    def cpu_per_poll(name, lo, hi):
        dp = hi["polls"] - lo["polls"]
        return (hi[f"{name}.cpu_s"] - lo[f"{name}.cpu_s"]) / dp * 1e6 if dp else 0.0

    print(f"{int(opt['--drives'])} demo drives at a {int(opt['--poll'])} ms poll for "
          f"{rows[-1]['t']:.0f} s, {rows[-1]['polls']:,} drive-polls in all; measured from "
          f"{a['t']:.0f} s ({a['polls']:,} drive-polls) to {z['t']:.0f} s "
          f"({z['polls']:,}), {len(m)} readings; {api.requests:,} API requests, "
          f"{len(api.errors)} failed")
    print()
    print("| figure | at the warm-up's end | at the end | slope per 100,000 drive-polls | per hour |")
    print("|---|---|---|---|---|")
    hours = (z["t"] - a["t"]) / 3600
    bad = []
    lines = []
    for name in ("daemon", "device"):
        keys = [("rss_kib", "KiB"), ("anon_kib", "KiB"), ("fds", ""), ("threads", "")]
        if name == "daemon":
            keys[2:2] = [("heap_kib", "KiB"), ("arenas_kib", "KiB"), ("malloc_kib", "KiB"),
                         ("kept_kib", "KiB")]
            keys[7:7] = [("db_fds", "")]
        for k, unit in keys:
            key = f"{name}.{k}"
            s = fit(xs, [r[key] for r in m]) * 1e5
            per_h = s * (z["polls"] - a["polls"]) / 1e5 / hours if hours else 0
            label = {"rss_kib": "RSS", "anon_kib": "private anonymous",
                     "fds": "descriptors but the database's",
                     "db_fds": f"the database's descriptors (at most {DB_FDS_MAX})",
                     "threads": "threads",
                     "heap_kib": "of which the main heap (main loop)",
                     "arenas_kib": "of which the threads' malloc arenas",
                     "malloc_kib": "allocated and not freed (its allocator's count)",
                     "kept_kib": "freed, kept by its allocator"}[k]
            lines.append((f"{name}: {label}" + (f" ({unit})" if unit else ""), a[key], z[key],
                          s, per_h))
            if check and k == "malloc_kib" and s > max_malloc:
                bad.append(f"{name}: memory allocated and not freed grows {s:.0f} KiB per "
                           f"100,000 drive-polls ({a[key]} -> {z[key]} KiB)")
            if check and k in ("anon_kib", "rss_kib"):
                f_s, f_a, f_z = floor_slope(m, key)
                most = max_anon if k == "anon_kib" else 2 * max_anon
                if f_s > most:
                    bad.append(f"{name}: {label} grows {f_s:.0f} KiB per 100,000 drive-polls "
                               f"at its lowest (the first third's {f_a} KiB, the last "
                               f"third's {f_z} KiB)")
            if check and k in ("fds", "threads") and z[key] > a[key]:
                bad.append(f"{name}: {label} {a[key]} -> {z[key]}")
            if check and k == "db_fds" and max(r[key] for r in m) > DB_FDS_MAX:
                bad.append(f"{name}: {label}: {max(r[key] for r in m)}")
        c0 = cpu_per_poll(name, m[0], m[tenth])
        c1 = cpu_per_poll(name, m[-1 - tenth], m[-1])
        lines.append((f"{name}: CPU per drive-poll (µs; first and last tenth)", f"{c0:.1f}",
                      f"{c1:.1f}", None, None))
        def woke(lo, hi):
            n = hi[f"{name}.wakeups"] - lo[f"{name}.wakeups"]
            return (f"{n / max(1, hi['polls'] - lo['polls']):.2f}, "
                    f"{n / max(1e-9, hi['t'] - lo['t']):.0f}/s")
        lines.append((f"{name}: wakeups per drive-poll, per second (first and last tenth)",
                      woke(m[0], m[tenth]), woke(m[-1 - tenth], m[-1]), None, None))
        if check_cpu and c0 > 0 and c1 > 2 * c0 + 5:
            bad.append(f"{name}: CPU per drive-poll {c0:.1f} -> {c1:.1f} µs")
    s = fit(xs, [r["db_kib"] for r in m]) * 1e5
    lines.append(("database with its WAL (KiB)", f"{a['db_kib']:.0f}", f"{z['db_kib']:.0f}", s,
                  s * (z["polls"] - a["polls"]) / 1e5 / hours if hours else 0))
    if check and s > 1e5:  # KiB per 100,000 drive-polls: 1 KiB each
        bad.append(f"the database grows {s:.0f} KiB per 100,000 drive-polls")
    for label, x, y, s, h in lines:
        print(f"| {label} | {x} | {y} | " + ("" if s is None else f"{s:+.1f}") + " | "
              + ("" if h is None else f"{h:+.1f}") + " |")
    print()
    print("The daemon's private anonymous memory at the end, by where it lies (KiB): "
          + ", ".join(f"{k} {v}" for k, v in anon_map.items()))
    print()
    print("| request | ms at the warm-up's end (median of 10) | ms at the end |")
    print("|---|---|---|")
    for kind, v in sorted(api.times.items()):
        after = [d for t, d in v if t - t0 >= warm]
        med = lambda x: sorted(x)[len(x) // 2] * 1000 if x else 0
        print(f"| {kind} | {med(after[:10]):.1f} | {med(after[-10:]):.1f} |")
    for e in api.errors[:5]:
        print("failed: " + e)
    if check and api.errors:
        bad.append(f"{len(api.errors)} API requests failed")
    for b in bad:
        print("grows: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
