#!/usr/bin/env python3
"""Host half of test_smart_agrees.sh: compares what the guest collected.

Usage: smart_agrees.py OUT_DIR WRITE_UNITS

Part 1: for each controller (matched by serial), every field nvmond's
`status --json` shares with nvme-cli's smart-log / id-ctrl must agree;
counters that may move between reads (reads, commands, ...) must lie between
nvme-cli's read before and after nvmond's.
Part 2: the daemon's served samples: the written controller's
data_units_written grew by exactly WRITE_UNITS, the other ones by 0.
Exit status 0 when everything agrees, 1 otherwise; prints a summary.
"""
import json
import os
import sys

OUT = sys.argv[1]
WRITE_UNITS = int(sys.argv[2])
failures = []
summary = []


def fail(msg):
    failures.append(msg)


def load(name):
    path = os.path.join(OUT, name)
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        fail(f"{name}: missing (the guest did not produce it)")
    except ValueError as e:
        with open(path, errors="replace") as f:
            head = f.read(200)
        fail(f"{name}: not JSON ({e}): {head!r}")
    return None


def num(v):
    """nvme-cli prints 128-bit counters as strings, nvmond as integers or
    decimal strings beyond int64: compare as Python ints."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def device_list(doc):
    if isinstance(doc, dict):
        doc = doc.get("devices")
    return doc if isinstance(doc, list) else []


def sample_list(doc):
    if isinstance(doc, dict):
        doc = doc.get("samples", doc.get("data"))
    return doc if isinstance(doc, list) else []


def text(v):
    return v.strip() if isinstance(v, str) else v


# Counters nvme-cli and nvmond share: nvmond sample field -> nvme-cli key.
# "moving" ones may change between two reads (anything reading the disk or
# sending commands); the others must be equal to both nvme-cli reads.
SMART_FIELDS = [
    ("critical_warning", "critical_warning", False),
    ("temperature_k", "temperature", False),
    ("avail_spare", "avail_spare", False),
    ("spare_thresh", "spare_thresh", False),
    ("percent_used", "percent_used", False),
    ("data_units_read", "data_units_read", True),
    ("data_units_written", "data_units_written", True),
    ("host_read_commands", "host_read_commands", True),
    ("host_write_commands", "host_write_commands", True),
    ("controller_busy_time", "controller_busy_time", True),
    ("power_cycles", "power_cycles", True),
    ("power_on_hours", "power_on_hours", True),
    ("unsafe_shutdowns", "unsafe_shutdowns", True),
    ("media_errors", "media_errors", True),
    ("num_err_log_entries", "num_err_log_entries", True),
    ("warning_temp_time", "warning_temp_time", True),
    ("critical_temp_time", "critical_comp_time", True),
    ("thm_temp1_trans_count", "thm_temp1_trans_count", True),
    ("thm_temp2_trans_count", "thm_temp2_trans_count", True),
    ("thm_temp1_total_time", "thm_temp1_total_time", True),
    ("thm_temp2_total_time", "thm_temp2_total_time", True),
]


def ctrl_table():
    rows = {}
    try:
        with open(os.path.join(OUT, "ctrls.txt")) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3:
                    rows[parts[1]] = {"ctrl": parts[0], "ns_bytes": int(parts[2]),
                                      "ns": parts[3:]}
    except FileNotFoundError:
        fail("ctrls.txt missing")
    return rows


def compare_status(ctrls):
    status = load("status.json")
    if status is None:
        err = ""
        try:
            with open(os.path.join(OUT, "status.err"), errors="replace") as f:
                err = f.read(300)
        except FileNotFoundError:
            pass
        fail(f"nvmond status --json gave nothing usable; stderr: {err!r}")
        return
    devs = {text(d.get("serial")): d for d in device_list(status) if isinstance(d, dict)}
    for serial, row in sorted(ctrls.items()):
        c = row["ctrl"]
        s1, s2 = load(f"{c}.smart1.json"), load(f"{c}.smart2.json")
        idc = load(f"{c}.idctrl.json")
        d = devs.get(serial)
        if d is None:
            fail(f"{c}: serial {serial!r} not in nvmond status (has {sorted(devs)})")
            continue
        if None in (s1, s2, idc):
            continue
        lat = d.get("latest")
        if not isinstance(lat, dict):
            fail(f"{c}: nvmond status has no latest sample: {lat!r}")
            continue
        checked = []
        # Identity.
        ident = [("serial", text(idc.get("sn"))), ("model", text(idc.get("mn"))),
                 ("firmware", text(idc.get("fr"))), ("wctemp_k", num(idc.get("wctemp"))),
                 ("cctemp_k", num(idc.get("cctemp"))), ("name", c)]
        for field, want in ident:
            got = text(d.get(field)) if field not in ("wctemp_k", "cctemp_k") else num(d.get(field))
            if field not in d:
                fail(f"{c}: nvmond device has no field {field!r}")
            elif got != want:
                fail(f"{c}: {field}: nvmond {got!r} != nvme-cli {want!r}")
            else:
                checked.append(f"{field}={got}")
        # capacity_bytes is id-ctrl's TNVMCAP (0 on QEMU); namespace sizes
        # are compared with the kernel's view of the block devices.
        cap, tnvmcap = num(d.get("capacity_bytes")), num(idc.get("tnvmcap"))
        if cap != tnvmcap:
            fail(f"{c}: capacity_bytes: nvmond {cap!r} != nvme-cli tnvmcap {tnvmcap!r}")
        else:
            checked.append(f"capacity_bytes={cap}")
        nss = d.get("namespaces")
        if isinstance(nss, str):
            try:
                nss = json.loads(nss)
            except ValueError:
                pass
        if not isinstance(nss, list) or not nss:
            fail(f"{c}: namespaces is not a non-empty array: {nss!r}")
        else:
            sizes = [num(n.get("size_bytes")) for n in nss if isinstance(n, dict)]
            if None in sizes or sum(sizes) != row["ns_bytes"]:
                fail(f"{c}: namespace sizes {sizes} != the block devices' {row['ns_bytes']}")
            else:
                checked.append(f"namespaces[].size_bytes={sizes}")
            names = sorted(str(n.get("name")) for n in nss if isinstance(n, dict))
            if names != sorted(row["ns"]):
                fail(f"{c}: namespace names {names} != the kernel's {sorted(row['ns'])}")
            else:
                checked.append(f"namespaces[].name={names}")
        # SMART.
        for field, key, moving in SMART_FIELDS:
            if field not in lat:
                fail(f"{c}: nvmond sample has no field {field!r}")
                continue
            got, a, b = num(lat[field]), num(s1.get(key)), num(s2.get(key))
            if a is None or b is None:
                fail(f"{c}: nvme-cli smart-log has no {key!r}")
                continue
            ok = (a <= got <= b) if moving else (got == a == b)
            if not ok:
                fail(f"{c}: {field}: nvmond {got!r}, nvme-cli {a!r} then {b!r}")
            else:
                checked.append(f"{field}={got}")
        tc = lat.get("temperature_c")
        tk = num(lat.get("temperature_k"))
        if not isinstance(tc, (int, float)) or not isinstance(tk, int) or abs(tc - (tk - 273.15)) > 0.6:
            fail(f"{c}: temperature_c {tc!r} does not match temperature_k {tk!r}")
        else:
            checked.append(f"temperature_c={tc}")
        sens = lat.get("temp_sensors_k")
        if not isinstance(sens, list) or len(sens) != 8:
            fail(f"{c}: temp_sensors_k is not an array of 8: {sens!r}")
        else:
            for i in range(8):
                want = num(s1.get(f"temperature_sensor_{i + 1}", 0))
                got = num(sens[i]) or 0  # nvme-cli omits unreported sensors; nvmond may say null
                if got != want:
                    fail(f"{c}: temp_sensors_k[{i}]: nvmond {sens[i]!r} != nvme-cli {want!r}")
            checked.append(f"temp_sensors_k={sens}")
        summary.append(f"  {c} ({serial}): {len(checked)} fields agree: " + ", ".join(checked))


def served_units(d):
    lat = d.get("latest") if isinstance(d, dict) else None
    return num(lat.get("data_units_written")) if isinstance(lat, dict) else None


def compare_daemon(ctrls):
    try:
        with open(os.path.join(OUT, "written.txt")) as f:
            wctrl, wserial, wns = f.read().split()[:3]
    except (FileNotFoundError, ValueError):
        fail("written.txt missing: the guest did not reach the daemon run")
        return
    summary.append(f"  wrote 64 MiB O_DIRECT to /dev/{wns} (controller {wctrl}, serial {wserial})")
    # The write as nvme-cli sees it, just before and after: checks the
    # harness itself (right namespace, right controller), nvmond aside.
    for serial, row in sorted(ctrls.items()):
        c = row["ctrl"]
        b, a = load(f"{c}.smart2b.json"), load(f"{c}.smart3.json")
        if b is None or a is None:
            continue
        grew = num(a.get("data_units_written")) - num(b.get("data_units_written"))
        want = WRITE_UNITS if serial == wserial else 0
        if grew != want:
            fail(f"{c}: nvme-cli data_units_written grew by {grew} around the write, want {want}")
        summary.append(f"  {c} ({serial}): nvme-cli data_units_written "
                       f"{num(b.get('data_units_written'))} -> {num(a.get('data_units_written'))} "
                       f"(+{grew}, want +{want})")
    try:
        with open(os.path.join(OUT, "daemon.rc")) as f:
            rc = f.read().strip()
    except FileNotFoundError:
        rc = None
    if rc != "0":
        fail(f"nvmond did not exit 0 on SIGTERM (exit status {rc!r})")
    devs1 = load("devices1.json")
    if devs1 is None:
        return
    by_serial = {text(d.get("serial")): d for d in device_list(devs1) if isinstance(d, dict)}
    try:
        with open(os.path.join(OUT, "dd_end_ms")) as f:
            dd_end = int(f.read())
    except (FileNotFoundError, ValueError):
        dd_end = None
    for serial, row in sorted(ctrls.items()):
        c = row["ctrl"]
        d = by_serial.get(serial)
        if d is None:
            fail(f"/api/v1/devices has no device with serial {serial!r} (has {sorted(by_serial)})")
            continue
        samples = load(f"samples-{d.get('id')}.json")
        if samples is None:
            continue
        samples = [s for s in sample_list(samples) if isinstance(s, dict)]
        samples.sort(key=lambda s: num(s.get("ts_ms")) or 0)
        if len(samples) < 2:
            fail(f"{c}: only {len(samples)} samples served")
            continue
        first = num(samples[0].get("data_units_written"))
        last = num(samples[-1].get("data_units_written"))
        base = served_units(d)
        want = WRITE_UNITS if serial == wserial else 0
        if not isinstance(first, int) or not isinstance(last, int):
            fail(f"{c}: samples lack integer data_units_written ({first!r}, {last!r})")
            continue
        if last - first != want:
            fail(f"{c}: data_units_written grew by {last - first} over the samples, want {want}")
        if base is None or last - base != want:
            fail(f"{c}: data_units_written grew by {None if base is None else last - base} "
                 f"since /api/v1/devices before the write, want {want}")
        last_ts = num(samples[-1].get("ts_ms"))
        if dd_end is not None and isinstance(last_ts, int) and last_ts < dd_end:
            fail(f"{c}: last sample (ts_ms {last_ts}) is older than the end of the write ({dd_end})")
        s3 = load(f"{c}.smart3.json")
        if s3 is not None and num(s3.get("data_units_written")) != last:
            fail(f"{c}: last served data_units_written {last} != nvme-cli after the run "
                 f"{num(s3.get('data_units_written'))!r}")
        summary.append(f"  {c} ({serial}): nvmond {len(samples)} samples, data_units_written "
                       f"{first} -> {last} (+{last - first}, want +{want}), "
                       f"before the write {base}")


def main():
    ctrls = ctrl_table()
    summary.append("nvmond status --json vs nvme-cli smart-log/id-ctrl, by serial:")
    compare_status(ctrls)
    summary.append("nvmond daemon (poll 1 s) samples around a write:")
    compare_daemon(ctrls)
    try:
        with open(os.path.join(OUT, "errors.txt")) as f:
            for line in f:
                fail("guest: " + line.strip())
    except FileNotFoundError:
        pass
    print("\n".join(summary))
    for f in failures:
        print("MISMATCH: " + f)
    print("smart_agrees: " + ("PASS" if not failures else f"FAIL ({len(failures)} problems)"))
    return 0 if not failures else 1


sys.exit(main())
