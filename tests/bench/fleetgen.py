#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""nvmond-shaped series of a fleet, pushed into VictoriaMetrics.

Every host looks as a pushing nvmond looks in the engine (docs/fleet.md, the series
contract): each series carries the export's labels job and instance (= host_name),
host and the host labels; nvmond_host_info{host_id, host, public_url, <host labels>},
and per drive nvmond_device_info{device, model, serial, firmware, label, location},
nvmond_device_health{state} (a StateSet of five states; a few drives unknown: no sample yet), nvmond_alert_firing{rule, severity} while an
alert fires, the composite temperature and sensors, % used, bytes written and the
rating, nvmond_last_sample_timestamp_seconds, nvmond_device_up, and as many more of
nvmond's families (--extra) as a real /metrics has, so that the engine holds what a
real fleet makes it hold.

The samples go to VictoriaMetrics' /api/v1/import/prometheus (text format with
timestamps, gzipped) every --interval seconds; --history H first backfills H hours at
--history-step seconds, so that a query that cost more with history would show it.

Usage: fleetgen.py --vm http://127.0.0.1:8428 --hosts 2000 --drives 4 [--interval 10]
       [--duration SECONDS] [--once] [--history HOURS] [--stop-hosts N] [--seed N]
"""
import argparse
import gzip
import hashlib
import random
import sys
import time
import urllib.request

MODELS = [("Samsung SSD 980 PRO 1TB", "5B2QGXA7", 600e12), ("Samsung SSD 970 EVO Plus 2TB", "2B2QEXM7", 1200e12),
          ("WD_BLACK SN850X 2000GB", "620311WD", 1200e12), ("Samsung SSD 990 PRO 2TB", "4B2QJXD7", 1200e12),
          ("INTEL SSDPEKNW010T8", "002C", 200e12), ("KIOXIA KXG60ZNV1T02", "AGGA4104", 0)]
ENVS = ["prod", "prod", "prod", "staging", "dev"]
EXTRA_FAMILIES = [
    "nvmond_available_spare_ratio", "nvmond_available_spare_threshold_ratio", "nvmond_data_read_bytes_total",
    "nvmond_host_read_commands_total", "nvmond_host_write_commands_total", "nvmond_controller_busy_seconds_total",
    "nvmond_power_cycles_total", "nvmond_power_on_seconds_total", "nvmond_unsafe_shutdowns_total",
    "nvmond_media_errors_total", "nvmond_error_log_entries_total", "nvmond_capacity_bytes",
    "nvmond_warning_temperature_seconds_total", "nvmond_critical_temperature_seconds_total",
    "nvmond_device_asleep", "nvmond_device_unresponsive", "nvmond_health_log_readable",
    "nvmond_pcie_link_degraded", "nvmond_selftest_supported", "nvmond_selftest_progress_ratio",
    "nvmond_probe_written_bytes_total", "nvmond_thermal_management_transitions_total",
]


def esc(v):
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def labels(d):
    return "{" + ",".join('%s="%s"' % (k, esc(str(v))) for k, v in d.items() if v != "") + "}"


class Host:
    def __init__(self, i, drives, rnd, job):
        self.name = "host%04d" % i
        self.env = ENVS[i % len(ENVS)]
        self.ext = {"job": job, "instance": self.name, "host": self.name, "env": self.env,
                    "rack": "r%02d" % (i % 40), "dc": "ams" if i % 3 else "fra"}
        self.host_id = hashlib.md5(self.name.encode()).hexdigest()
        self.drives = []
        for j in range(drives):
            model, fw, rated = MODELS[(i + j) % len(MODELS)]
            r = rnd.random()
            state, alert = "ok", None
            if r < 0.005:
                state, alert = "critical", ("spare_low", "critical")
            elif r < 0.008:
                state, alert = "offline", ("offline", "critical")
            elif r < 0.03:
                state, alert = "warning", ("temperature_warning", "warning")
            elif r < 0.033:
                state = "unknown"  # just found, not read yet: no sample of it
            self.drives.append({
                "device": "nvme%d" % j, "model": model, "serial": "SN%05d%02d" % (i, j), "firmware": fw,
                "label": ["", "boot", "data", "wal"][j % 4], "location": "bay %d" % (j + 1),
                "state": state, "alert": alert, "rated": rated,
                "temp": rnd.randint(30, 55) if state != "warning" else rnd.randint(70, 78),
                "used": rnd.randint(0, 60) / 100, "written": rnd.randint(1, 400) * 1e12,
            })

    def lines(self, extra):
        """(series labels text, value function of t) pairs: built once, valued per push."""
        out = []
        info = dict(self.ext, host_id=self.host_id, public_url="http://%s.example.org:9470/" % self.name)
        out.append(("nvmond_host_info" + labels(info), lambda t: 1))
        out.append(("nvmond_start_time_seconds" + labels(self.ext), lambda t: 1796000000))
        for d in self.drives:
            key = dict(self.ext, device=d["device"], model=d["model"], serial=d["serial"])
            out.append(("nvmond_device_info" + labels(dict(key, firmware=d["firmware"], label=d["label"],
                                                           location=d["location"])), lambda t: 1))
            for st in ("ok", "warning", "critical", "offline", "unknown"):
                out.append(("nvmond_device_health" + labels(dict(key, state=st)),
                            (lambda v: lambda t: v)(1 if st == d["state"] else 0)))
            if d["alert"]:
                out.append(("nvmond_alert_firing" + labels(dict(key, rule=d["alert"][0], severity=d["alert"][1])),
                            lambda t: 1))
            up = 0 if d["state"] == "offline" else 1
            out.append(("nvmond_device_up" + labels(key), (lambda v: lambda t: v)(up)))
            out.append(("nvmond_temperature_warning_threshold_celsius" + labels(key), lambda t: 75))
            out.append(("nvmond_temperature_critical_threshold_celsius" + labels(key), lambda t: 85))
            if d["rated"]:
                out.append(("nvmond_rated_endurance_bytes" + labels(key), (lambda v: lambda t: int(v))(d["rated"])))
            if d["state"] == "unknown":
                continue  # none of the stored families before its first sample
            for sensor, off in (("composite", 0), ("1", 3), ("2", 9)):
                out.append(("nvmond_temperature_celsius" + labels(dict(key, sensor=sensor)),
                            (lambda v: lambda t: v + int(t / 60) % 3)(d["temp"] + off)))
            out.append(("nvmond_endurance_used_ratio" + labels(key), (lambda v: lambda t: v)(d["used"])))
            out.append(("nvmond_data_written_bytes_total" + labels(key),
                        (lambda v: lambda t: int(v + (t % 86400) * 1e6))(d["written"])))
            out.append(("nvmond_last_sample_timestamp_seconds" + labels(key), lambda t: round(t, 3)))
            for fam in EXTRA_FAMILIES[:extra]:
                out.append((fam + labels(key), lambda t: 1))
        return out


def push(vm, series, t, batch=200000):
    ts = int(t * 1000)
    for k in range(0, len(series), batch):
        text = "".join("%s %s %d\n" % (s, f(t), ts) for s, f in series[k:k + batch])
        req = urllib.request.Request(vm.rstrip("/") + "/api/v1/import/prometheus", data=gzip.compress(text.encode(), 1),
                                     headers={"Content-Encoding": "gzip"}, method="POST")
        with urllib.request.urlopen(req, timeout=120) as r:
            r.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vm", required=True)
    ap.add_argument("--hosts", type=int, default=2000)
    ap.add_argument("--drives", type=int, default=4)
    ap.add_argument("--extra", type=int, default=len(EXTRA_FAMILIES), help="more families per drive (realism)")
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--duration", type=float, default=0, help="stop after this many seconds (0: run until killed)")
    ap.add_argument("--once", action="store_true")
    ap.add_argument("--history", type=float, default=0, help="hours of history to backfill first")
    ap.add_argument("--history-step", type=float, default=300)
    ap.add_argument("--stop-hosts", type=int, default=0, help="the last N hosts push once, then stop reporting")
    ap.add_argument("--job", default="nvmond")
    ap.add_argument("--seed", type=int, default=24)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    hosts = [Host(i, a.drives, rnd, a.job) for i in range(a.hosts)]
    series = [s for h in hosts for s in h.lines(a.extra)]
    alive = [s for h in hosts[:a.hosts - a.stop_hosts] for s in h.lines(a.extra)]
    n_drives = a.hosts * a.drives
    print("fleetgen: %d hosts, %d drives, %d series" % (a.hosts, n_drives, len(series)), flush=True)
    now = time.time()
    if a.history:
        t0 = time.monotonic()
        steps = int(a.history * 3600 / a.history_step)
        for k in range(steps, 0, -1):
            push(a.vm, series, now - k * a.history_step)
        print("fleetgen: %d h of history, %d samples, in %.1f s" % (a.history, steps * len(series),
                                                                    time.monotonic() - t0), flush=True)
    push(a.vm, series, time.time())
    print("fleetgen: first push done", flush=True)
    if a.once:
        return
    end = time.monotonic() + a.duration if a.duration else None
    while end is None or time.monotonic() < end:
        t0 = time.monotonic()
        push(a.vm, alive, time.time())
        took = time.monotonic() - t0
        if took > a.interval:
            print("fleetgen: a push took %.1f s, longer than the interval" % took, file=sys.stderr, flush=True)
        time.sleep(max(0, a.interval - took))


if __name__ == "__main__":
    main()
