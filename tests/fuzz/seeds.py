#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ (run from anywhere; idempotent).

Log pages and identify data are laid out as the NVMe 2.0 base specification
writes them (the same offsets as tests/unit/dev/test_*.c): a drive's SMART
page, a 950 PRO's identify data, error-log, self-test and firmware-slot pages.
Text seeds come from docs/ (api.md's URLs and bodies, configuration.md's
schedules) and the repository's real configuration files. Crash regression
cases are added by hand (corpus/<name>/regress-*), never by this script.
"""
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")


def put(name, fname, data):
    d = os.path.join(CORPUS, name)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, fname), "wb") as f:
        f.write(data)


def le(v, n):
    return (v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def smart_page(crit, temp_k, spare, used, written, poh, media, errors, sensors):
    p = bytearray(512)
    p[0] = crit
    p[1:3] = le(temp_k, 2)
    p[3], p[4], p[5] = spare, 10, used
    p[32:48] = le(written // 2, 16)  # data units read
    p[48:64] = le(written, 16)
    p[64:80] = le(written * 40, 16)
    p[80:96] = le(written * 60, 16)
    p[96:112] = le(poh * 3, 16)
    p[112:128] = le(120, 16)  # power cycles
    p[128:144] = le(poh, 16)
    p[144:160] = le(7, 16)  # unsafe shutdowns
    p[160:176] = le(media, 16)
    p[176:192] = le(errors, 16)
    p[192:196] = le(12, 4)
    p[196:200] = le(1, 4)
    for i, k in enumerate(sensors):
        p[200 + 2 * i:202 + 2 * i] = le(k, 2)
    p[216:232] = struct.pack("<IIII", 3, 1, 40, 2)
    return bytes(p)


def idctl_page(vid, sn, mn, fr, wctemp, cctemp, cap, elpe, oacs, lpa, edstt):
    p = bytearray(4096)
    p[0:2] = le(vid, 2)
    p[4:24] = sn.ljust(20).encode()
    p[24:64] = mn.ljust(40).encode()
    p[64:72] = fr.ljust(8).encode()
    p[256:258] = le(oacs, 2)
    p[262] = elpe
    p[261] = lpa
    p[266:268] = le(wctemp, 2)
    p[268:270] = le(cctemp, 2)
    p[280:296] = le(cap, 16)
    p[316:318] = le(edstt, 2)
    p[516:520] = le(1, 4)
    return bytes(p)


def errlog_entry(count, sqid, cid, sct, sc, lba, nsid, dnr=True):
    e = bytearray(64)
    e[0:8] = le(count, 8)
    e[8:10] = le(sqid, 2)
    e[10:12] = le(cid, 2)
    status = (sc << 1) | (sct << 9) | ((1 << 15) if dnr else 0)
    e[12:14] = le(status, 2)
    e[14:16] = le(0xFFFF, 2)
    e[16:24] = le(lba, 8)
    e[24:28] = le(nsid, 4)
    return bytes(e)


def selftest_page(current, percent, results):
    p = bytearray(564)
    p[0], p[1] = current, percent
    for i in range(20):
        e = bytearray(28)
        e[0] = 0x0F  # unused
        if i < len(results):
            code, res, seg, poh, nsid, lba, sct, sc = results[i]
            e[0] = (code << 4) | res
            e[1] = seg
            e[2] = 0x0F if nsid else 0
            e[4:12] = le(poh, 8)
            e[12:16] = le(nsid, 4)
            e[16:24] = le(lba, 8)
            e[24], e[25] = sct, sc
        p[4 + 28 * i:4 + 28 * (i + 1)] = e
    return bytes(p)


def fwlog_page(afi, revs):
    p = bytearray(512)
    p[0] = afi
    for i, r in enumerate(revs):
        p[8 + 8 * i:16 + 8 * i] = r.ljust(8).encode() if r else bytes(8)
    return bytes(p)


OCP_GUID = bytes([0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
                  0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF])


def ocp_page(pmuw, pmur, bad_user, bad_sys, urec, version, guid=OCP_GUID):
    """OCP Datacenter NVMe SSD 2.0, SMART / Health Information Extended (C0h)."""
    p = bytearray(512)
    p[0:16] = le(pmuw, 16)
    p[16:32] = le(pmur, 16)
    p[32:38] = le(bad_user, 6)
    p[38:40] = le(100, 2)
    p[40:46] = le(bad_sys, 6)
    p[46:48] = le(100, 2)
    p[56:64] = le(urec, 8)
    p[72:76] = le(1, 4)   # end to end: detected
    p[76:80] = le(1, 4)   # and corrected
    p[96], p[97] = 3, 0   # thermal throttling count, status
    p[103] = 2            # DSSD version 2.0
    p[494:496] = le(version, 2)
    p[496:512] = guid
    return bytes(p)


def pel_event(etype, ts_ms, data, vsil=0):
    """NVMe Base 2.0 §5.16.1.14: a revision 0 event header (EHL 21), VSI, data."""
    h = bytearray(24)
    h[0], h[2] = etype, 21
    h[4:6] = le(1, 2)
    h[6:14] = le(ts_ms | 1 << 49, 8)
    h[20:22] = le(vsil, 2)
    h[22:24] = le(vsil + len(data), 2)
    return bytes(h) + b"\x5a" * vsil + bytes(data)


def pel_log(events, cursor=0):
    body = b"".join(events)
    h = bytearray(512)
    h[0] = 0x0D
    h[4:8] = le(len(events), 4)
    h[8:16] = le(512 + len(body), 8)
    h[18:20] = le(512, 2)
    h[372:374] = le(1, 2)  # Generation Number
    return le(cursor, 8) + bytes(h) + body


def main():
    # ---- log pages and identify data
    put("smart", "healthy-980pro", smart_page(0, 311, 100, 3, 42_000_000, 8123, 0, 12,
                                               [311, 325] + [0] * 6))
    put("smart", "worn-950pro", smart_page(0x05, 347, 9, 118, 1_500_000_000, 41_234, 17, 63,
                                            [347, 360, 339] + [0] * 5))
    put("smart", "all-ones", b"\xff" * 512)
    put("smart", "short", smart_page(0, 300, 100, 0, 1, 1, 0, 0, [0] * 8)[:40])

    put("idctl", "950pro", idctl_page(0x144D, "S2GMNX0H600001D", "Samsung SSD 950 PRO 512GB",
                                      "2B0QBXX7", 343, 353, 512110190592, 63, 0x17, 0x0E, 0))
    put("idctl", "qemu", idctl_page(0x1B36, "deadbeef", "QEMU NVMe Ctrl", "8.0.0", 343, 373,
                                    0, 3, 0x1E, 0x06, 10))
    raw = bytearray(idctl_page(0x8086, "BTxx\x01\x7f", "INTEL\x00SSDPEKNW", "\xff\xfe", 0, 0,
                               (1 << 64) + 5, 255, 0xFFFF, 0xFF, 0xFFFF))
    put("idctl", "garbage-strings", bytes(raw))

    page = b"".join(errlog_entry(c, 0 if c < 60 else 2, c, 0 if c < 42 else 2,
                                 0x09 if c < 42 else 0x81, 0x1000 + c, 1) for c in range(63, 59, -1))
    put("errlog", "four-entries", le(59, 8) + le(63, 8) + page)
    put("errlog", "empty-entries", le(0, 8) + le(0, 8) + bytes(64 * 4))
    put("errlog", "wrapped", le(0xFFFFFFFFFFFFFFFE, 8) + le(2, 8) +
        errlog_entry(2, 0, 1, 0, 2, 0, 0) + errlog_entry(1, 0, 1, 0, 2, 0, 0) +
        errlog_entry(0xFFFFFFFFFFFFFFFF, 1, 3, 1, 4, 5, 1) + b"torn")

    put("selftest_log", "idle-two-results", bytes(8) + selftest_page(
        0, 0, [(1, 0, 0, 8100, 0xFFFFFFFF, 0, 0, 0), (2, 7, 3, 8000, 1, 0x123456789, 2, 0x81)]))
    put("selftest_log", "running-extended", b"\x01" + bytes(7) + selftest_page(
        2, 37, [(1, 0, 0, 5, 0xFFFFFFFF, 0, 0, 0)] * 20))
    put("selftest_log", "short-page", bytes(8) + bytes(100))

    put("fwlog", "two-slots", b"2B0QBXX6" + b"2B0QBXX7" + fwlog_page(0x21, ["2B0QBXX7", "2B0QBXX8"]))
    put("fwlog", "pending", b"GXA7801Q" + bytes(8) + fwlog_page(0x12, ["GXA7801Q", "GXA7802Q"]))
    put("fwlog", "invalid-slot", bytes(16) + fwlog_page(0x77, ["\x01\x02", "", "", "", "", "", "ZZZZZZZZ"]))

    # ---- the configuration file: the repository's own, whole
    for src, dst in [("systemd/nvmond.conf", "nvmond.conf"),
                     ("tests/fixtures/cfg/all-keys.conf", "all-keys.conf"),
                     ("tests/fixtures/cfg/bad-value.conf", "bad-value.conf"),
                     ("tests/fixtures/cfg/unknown-key.conf", "unknown-key.conf")]:
        os.makedirs(os.path.join(CORPUS, "cfg"), exist_ok=True)
        shutil.copy(os.path.join(SRC, src), os.path.join(CORPUS, "cfg", dst))
    put("cfg", "devices.conf", """[daemon]
poll_interval = 10s
[device "Samsung SSD 950 PRO*"]
probe_schedule = daily 03:00 seq1m-q8 x3 cooldown 30s, weekly Sun 04:00 sustained-write
selftest_schedule = weekly Sun 02:00 short, monthly 1 03:00 extended
[selftests]
default_schedule = daily 02:00 short
""")
    put("cfg", "continuation-bom", "\ufeff[daemon]\nlog_level = debug\n  continued\n; comment\n# comment\n")

    # ---- request lines: docs/api.md's URLs and the ones of issue 15
    urls = [
        "GET /api/v1/devices",
        "GET /api/v1/devices/1",
        "GET /api/v1/devices/1/facts",
        "GET /api/v1/devices/1/samples?from=2026-11-30T00:00:00Z&to=1796005160000&limit=100",
        "GET /api/v1/devices/1/series?from=2025-11-30T00:00:00Z&points=2000",
        "GET /api/v1/devices/1/series?step=9223372036854775s",
        "GET /api/v1/devices/1/samples?from=-9223372036854775808",
        "GET /api/v1/devices/1/events?to=-9223372036854775000",
        "GET /api/v1/devices/1/samples?to=253402300800000",
        "GET /api/v1/devices/1/wear",
        "GET /api/v1/devices/1/events",
        "GET /api/v1/devices/1/errors?limit=1",
        "GET /api/v1/alerts?limit=5",
        "POST /api/v1/alerts/2/ack",
        "POST /api/v1/alerts/test",
        "GET /api/v1/devices/1/probes?limit=3&preset=seq1m-q8",
        "GET /api/v1/probes/8",
        "POST /api/v1/probes/8/cancel",
        "POST /api/v1/devices/1/probes",
        "POST /api/v1/probes",
        "GET /api/v1/devices/1/selftests?limit=1&type=short&all=true",
        "POST /api/v1/devices/1/selftests/abort",
        "HEAD /metrics",
        "GET /healthz?bogus=1",
        "DELETE /api/v1/devices/9223372036854775808",
        "GET /index.html",
        "GET /a//b/./../c%00.png?x=%2",
    ]
    for i, u in enumerate(urls):
        put("url", "docs-%02d" % i, u)

    # ---- times, durations, sizes, listen addresses
    for i, t in enumerate(["2026-11-30T02:19:20Z", "2026-11-30T02:19:20.123456+01:00",
                           "1796005160000", "-62167219200000", "253402300799999",
                           "0000-01-01T00:00:00-00:01", "9999-12-31T23:59:60Z", "250ms",
                           "90s", "5m", "1h", "3650d", "9223372036854775s", "64KiB", "1.5G",
                           "127.0.0.1:9470", "[::1]:9470", "localhost:0"]):
        put("time", "seed-%02d" % i, t)

    # ---- POST bodies: docs/api.md's
    for i, b in enumerate(['{"preset": "seq1m-q8"}',
                           '{"preset": "seq1m-q8", "repeat": 3, "cooldown": "30s"}',
                           '{"preset": "cache-recovery"}', '{"preset": "copy-to", "to": 5}',
                           '{"preset": "sustained-write", "devices": [1, 2]}',
                           '{"type": "short"}', '{"type": "extended", "nsid": 1, "origin": "cli"}',
                           '{"origin": "api"}', '', '[1]', '{"preset": 1e999}']):
        put("body", "docs-%02d" % i, b)

    # ---- schedules: docs/configuration.md's
    for i, s in enumerate(["daily 03:00 seq1m-q8, weekly Sun 04:00 sustained-write",
                           "daily 03:00 seq1m-q8 x3 cooldown 30s", "", "weekly Sat 23:59 copy-self x10 cooldown 1h"]):
        put("probe_sched", "docs-%02d" % i, s)
    put("probe_sched", "times", b"daily 00:00 rnd4k-q1\0" + le(1796005160000, 8) + le(2**63 + 5, 8))
    for i, s in enumerate(["weekly Sun 02:00 short, monthly 1 03:00 extended",
                           "daily 02:00 short, monthly 1 03:00 extended", "none", "NONE", "monthly 28 23:59 short"]):
        put("selftest_sched", "docs-%02d" % i, s)
    put("selftest_sched", "times", b"monthly 28 00:00 extended\0" + le(253402300799999, 8) + le(7, 8))

    # ---- OCP C0h, the Persistent Event Log, power states
    put("ocp", "ocp-2.0", ocp_page(3 * 10**15, 10**15, 12, 1, 0, 3))
    put("ocp", "past-64-bits", ocp_page(2**70 + 5, 2**65, 2**48 - 1, 0, 7, 4))
    put("ocp", "other-vendor", ocp_page(1, 1, 1, 1, 1, 1, guid=bytes(16)))
    fw = b"1.0".ljust(8) + b"1.1".ljust(8) + bytes([1, 2, 0, 0, 0, 0, 0, 0])
    evs = [pel_event(0x0D, 1796005160000, [7, 85, 0, 0]),
           pel_event(0x02, 1796005161000, fw),
           pel_event(0x04, 1796005162000, b"1.1".ljust(8) + bytes(36)),
           pel_event(0x05, 1796005163000, [5, 0, 0, 0], vsil=4),
           pel_event(0x42, 1796005164000, [1, 2, 3])]
    put("pel", "each-kind", pel_log(evs))
    put("pel", "from-anchor", pel_log(evs, cursor=512 + len(evs[0])))
    put("pel", "cut", pel_log(evs)[:-5])
    put("pel", "empty", pel_log([]))
    apst = bytearray(256)
    apst[0:4] = le(100 << 8 | 3 << 3, 4)
    apst[24:28] = le(2000 << 8 | 4 << 3, 4)
    psd = bytearray(32 * 32)
    psd[0:2] = le(825, 2)
    psd[32 * 3 + 3] = 0x2
    psd[32 * 4 + 3] = 0x3
    put("power", "apst-to-ps3", le(1, 4) + bytes(psd) + bytes(apst) + bytes([4, 0]))
    put("power", "apst-off", le(0, 4) + bytes(psd) + bytes(apst) + bytes([4, 1]))

    # ---- the device channel's requests (dev_wire.h: struct dev_wire_req, 176 bytes)
    def wire(op, name=b"nvme0", n=1, stc=1, who=1, model=b"Samsung SSD 980 PRO 1TB",
             serial=b"S5GXNX0R123456", magic=0x4E56444B, nsid=0xFFFFFFFF, offset=0, feats=0):
        r = struct.pack("<IIIIq", magic, op, 7, n, 1796005160000)
        r += name.ljust(64, b"\0") + model.ljust(41, b"\0") + serial.ljust(21, b"\0")
        r += bytes([who, 0, stc, 3, 0]) + b"\0" + struct.pack("<I", nsid)
        r += struct.pack("<QII", offset, feats, 0)
        return r
    for op in range(1, 12):  # scans (2) and options (7) name no controller
        put("dev_wire", "op-%02d" % op, wire(op, name=b"" if op in (2, 7) else b"nvme0"))
    put("dev_wire", "errlog-256", wire(4, n=256))
    put("dev_wire", "selftest-abort", wire(9, stc=15))
    put("dev_wire", "name-path", wire(3, name=b"nvme0/../sda"))
    put("dev_wire", "bad-magic", wire(3, magic=0))
    for mode in (1, 2, 3):  # DEV_OP_OPEN_NS: write, read, signature check
        put("dev_wire", "open-ns-%d" % mode, wire(12, name=b"nvme0n1", n=mode, nsid=1))
    put("dev_wire", "open-ns-partition", wire(12, name=b"nvme0n1p1", n=1, nsid=1))
    put("dev_wire", "op-13-ocp", wire(13))
    put("dev_wire", "op-14-pel", wire(14, n=65536, offset=512))
    put("dev_wire", "op-14-pel-odd", wire(14, n=65536, offset=514))
    put("dev_wire", "op-15-power", wire(15, feats=7))
    put("dev_wire", "op-15-power-no-pm", wire(15, feats=6))

    # ---- a remote-write engine's answers: status (2 bytes), Retry-After, NUL, body;
    # the bodies are what Prometheus 2.42 and VictoriaMetrics 1.79 answer
    def answer(status, retry_after, body):
        return struct.pack(">H", status) + retry_after.encode() + b"\0" + body
    put("rw_answer", "ok-204", answer(204, "", b""))
    put("rw_answer", "prometheus-out-of-bounds", answer(400, "", b"out of bounds\n"))
    put("rw_answer", "prometheus-out-of-order", answer(400, "", b"out of order sample\n"))
    put("rw_answer", "vm-bad-request", answer(400, "", b"remoteAddr: \"127.0.0.1:1\"; requestURI: "
        b"/api/v1/write; cannot decompress snappy-encoded request: snappy: corrupt input\n"))
    put("rw_answer", "too-many-requests", answer(429, "7", b"rate limited"))
    put("rw_answer", "unavailable-http-date",
        answer(503, "Sun, 06 Nov 1994 08:49:37 GMT", b"<html>down</html>"))
    put("rw_answer", "no-answer", answer(0, "", b"Could not resolve host: vm.invalid"))
    put("rw_answer", "utf8-and-garbage", answer(500, "soon", "über \x01".encode() + b"\xff\xfe\r\nsecond"))

    # ---- an engine's answers (GET /api/v1/fleet's service): what VictoriaMetrics 1.79 and
    # Prometheus 2.42 answered to queries of the fleet, an error, /series, every part
    # (tagged __q, as an engine may add labels the view does not know)
    put("promq", "vm-fleet", '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"device":"nvme0","firmware":"F","instance":"h1","job":"nvmond","model":"M","__q":"info","serial":"S1"},"value":[1796292503,"1"]},{"metric":{"device":"nvme0","instance":"h1","job":"nvmond","__q":"temp","serial":"S1"},"value":[1796292503,"41"]},{"metric":{"env":"prod","host":"h1","host_id":"abc","instance":"h1","job":"nvmond","public_url":"http://h1:9470/","__q":"host"},"value":[1796292503,"1796292502.475"]}]}}')
    put("promq", "prometheus-fleet", '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"env":"dev","host":"h2","host_id":"def","instance":"127.0.0.1:18470","job":"nvmond","__q":"host"},"value":[1796292504.016,"1796292503.382"]},{"metric":{"device":"nvme0","firmware":"F","instance":"127.0.0.1:18470","job":"nvmond","label":"boot","location":"slot 1","model":"M","__q":"info","serial":"S2"},"value":[1796292504.016,"1"]},{"metric":{"device":"nvme0","instance":"127.0.0.1:18470","job":"nvmond","__q":"temp","serial":"S2"},"value":[1796292504.016,"39"]}]}}')
    put("promq", "prometheus-error", '{"status":"error","errorType":"bad_data","error":"invalid parameter \\"query\\": 1:9: parse error: unclosed left parenthesis"}')
    put("promq", "series", '{"status":"success","data":[{"__name__":"nvmond_host_info","env":"prod",'
        '"job":"nvmond","instance":"h1","host":"h1","host_id":"abc","public_url":"http://h1:9470/"},'
        '{"__name__":"nvmond_host_info","job":"nvmond","instance":"gone"}]}')
    def part(q, inst, extra, value, ts=1796292503):
        labels = dict(job="nvmond", instance=inst, __q=q, **extra)
        return '{"metric":%s,"value":[%s,"%s"]}' % (json.dumps(labels), ts, value)
    drive = dict(device="nvme0", serial="S1")
    rows = [part("host", "h1", dict(host="h1", host_id="abc", env="prod"), "1796292440"),
            part("host", "h2", dict(host="h2"), "1796292500"),
            part("info", "h1", dict(drive, model="M", firmware="F", label="boot", location="bay 1"), "1"),
            part("health", "h1", dict(drive, state="critical"), "1"),
            part("health", "h1", dict(drive, state="ok"), "1"),
            part("health", "h2", dict(device="nvme1", serial="", state="unknown"), "1"),
            part("alert", "h1", dict(drive, rule="spare_low", severity="critical"), "1"),
            part("temp", "h1", drive, "41"), part("used", "h1", drive, "1.03"),
            part("tbw", "h1", drive, "+Inf"), part("seen", "h1", drive, "1796292440.5"),
            part("up", "h1", drive, "0"), part("up", "h2", dict(device="nvme1", serial=""), "NaN"),
            part("up", "h3", dict(device="nvme10", serial="x"), "1")]
    put("promq", "every-part", '{"status":"success","data":{"resultType":"vector","result":[%s]}}'
        % ",".join(rows))
    put("promq", "warnings", '{"status":"success","warnings":["partial"],"data":{"resultType":"vector","result":[]}}')


if __name__ == "__main__":
    main()
