#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Raw-socket clients for test_http_abuse.sh: what curl will not send.

  http_abuse.py flood PORT PID N PER_IP N idle and slow-loris connections from 127.0.0.2,
                                        then /healthz from 127.0.0.1 (must take < 100 ms);
                                        prints the figures as key=value
  http_abuse.py total PORT LIMIT PER_IP LIMIT connections from 127.0.0.3, .4, … are
                                        served, the next waits until one closes
  http_abuse.py loris PORT SECONDS      headers a byte at a time: closed by the deadline
  http_abuse.py malformed PORT TOKEN    every malformed request gets a clean 4xx or a closed
                                        connection, and the next request works
  http_abuse.py slow PORT PID N PATH MAX_KIB  N clients that read PATH slowly: the
                                        daemon's RSS may grow by less than MAX_KIB

Exit status 0 when every check holds; each failure is printed as "FAIL: ...".
"""
import asyncio
import os
import re
import resource
import socket
import sys
import time

HOST = "127.0.0.1"
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def raise_nofile(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, n + 64)) if hard != resource.RLIM_INFINITY else n + 64
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def healthz_ms(port, src=HOST):
    """GET /healthz on a fresh connection from @src: (status, milliseconds)."""
    t0 = time.monotonic()
    s = socket.create_connection((HOST, port), timeout=5, source_address=(src, 0))
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    ms = (time.monotonic() - t0) * 1000
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.") else 0
    return status, ms


def exchange(port, raw, timeout=5.0, half_close=True):
    """Send @raw on a new connection; all that comes back until close or @timeout."""
    s = socket.create_connection((HOST, port), timeout=timeout)
    data = b""
    try:
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        if half_close:
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # already closed by the server
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        pass
    finally:
        s.close()
    return data


def statuses(data):
    """The status codes of every response in @data (pipelining gives several; a body
    without a final newline runs into the next status line)."""
    return [int(m) for m in re.findall(rb"HTTP/1\.[01] (\d\d\d) ", data)]


# ---- flood: 1,000 idle or slow-loris connections from one address ------------------


async def loris(port, src, i, stop, kept):
    """One connection: idle (even i) or a request that never ends (odd i)."""
    try:
        r, w = await asyncio.wait_for(
            asyncio.open_connection(HOST, port, local_addr=(src, 0)), 10)
    except (OSError, asyncio.TimeoutError):
        return
    try:
        if i % 2:
            w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        while not stop.is_set():
            if i % 2:
                w.write(b"X-Slow: a\r\n")
            await w.drain()
            try:
                # A closed connection reads EOF at once; an open one times out.
                if await asyncio.wait_for(r.read(1), 1.0) == b"":
                    return
            except asyncio.TimeoutError:
                pass
            kept[i] = True
    except (OSError, ConnectionError):
        return
    finally:
        w.close()


async def flood(port, pid, n, per_ip):
    stop = asyncio.Event()
    kept = {}
    rss0 = rss_kib(pid)
    tasks = [asyncio.create_task(loris(port, "127.0.0.2", i, stop, kept)) for i in range(n)]
    await asyncio.sleep(2)  # every connection made, each had a second or more to be closed
    # On a loaded machine the client may need longer to see every close: wait
    # (up to 10 s more) until at most the per-IP limit is left open.
    deadline = time.monotonic() + 10
    while sum(1 for t in tasks if not t.done()) > per_ip and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    still = sum(1 for t in tasks if not t.done())
    worst = 0.0
    for _ in range(10):
        try:
            status, ms = await asyncio.to_thread(healthz_ms, port)
        except OSError as e:  # every slot taken: no answer within 5 s
            status, ms = f"no answer ({e})", 5000.0
        check(status == 200, f"/healthz from 127.0.0.1 during the flood: {status}")
        worst = max(worst, ms)
    rss1 = rss_kib(pid)
    fds = open_fds(pid)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(f"connections={n} still_open={still} healthz_worst_ms={worst:.1f} "
          f"rss_before_kib={rss0} rss_during_kib={rss1} daemon_fds={fds}")
    return still, worst, rss0, rss1


def cmd_flood(port, pid, n, per_ip):
    raise_nofile(n)
    t0 = time.monotonic()
    still, worst, rss0, rss1 = asyncio.run(flood(port, pid, n, per_ip))
    check(still <= per_ip, f"{still} of {n} connections from 127.0.0.2 stay open "
          f"(per-IP limit {per_ip})")
    check(worst < 100, f"slowest /healthz from 127.0.0.1: {worst:.1f} ms (< 100)")
    check(rss1 - rss0 < 32 * 1024, f"RSS grew by {rss1 - rss0} KiB (< 32 MiB)")
    print(f"flood_seconds={time.monotonic() - t0:.1f}")


def cmd_total(port, limit, per_ip):
    """@limit connections (@per_ip from each of 127.0.0.3, .4, …) are served; the next,
    from yet another address, waits until one of them closes."""
    socks = []
    try:
        for i in range(limit):
            src = f"127.0.0.{3 + i // per_ip}"
            s = socket.create_connection((HOST, port), timeout=5, source_address=(src, 0))
            socks.append(s)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            ok = s.recv(65536).startswith(b"HTTP/1.1 200")
            if not ok:
                check(False, f"connection {i + 1} of {limit} (from {src}) is served")
                return
        check(True, f"{limit} connections are served")
        # Past the limit MHD stops accepting: the next client waits in the listen
        # backlog, unanswered, until a connection closes; then it is served.
        src = f"127.0.0.{4 + (limit - 1) // per_ip}"
        extra = socket.create_connection((HOST, port), timeout=5, source_address=(src, 0))
        extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        extra.settimeout(1.0)
        try:
            data = extra.recv(65536)
        except socket.timeout:
            data = None
        check(data is None, f"connection {limit + 1} (from {src}) waits (got {data!r:.40})")
        socks.pop().close()
        extra.settimeout(5.0)
        data = extra.recv(65536)
        check(data.startswith(b"HTTP/1.1 200"),
              f"once one closes, connection {limit + 1} is served ({data[:20]!r})")
        extra.close()
    finally:
        for s in socks:
            s.close()


def cmd_loris(port, timeout_s):
    """A request whose headers come a byte every 0.3 s is closed soon after the
    request deadline (@timeout_s), though never idle that long."""
    s = socket.create_connection((HOST, port), timeout=timeout_s + 5)
    t0 = time.monotonic()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    closed = None
    s.settimeout(0.3)
    while time.monotonic() - t0 < timeout_s + 5:
        try:
            s.sendall(b"a")
            if s.recv(65536) == b"":
                closed = time.monotonic() - t0
                break
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            closed = time.monotonic() - t0
            break
    s.close()
    print(f"loris_closed_after_s={closed}")
    check(closed is not None and closed < timeout_s + 1.5,
          f"slow-loris headers closed after {closed} s (deadline {timeout_s} s)")
    status, _ = healthz_ms(port)
    check(status == 200, f"a prompt request is still served ({status})")


# ---- malformed requests -------------------------------------------------------------


def cmd_malformed(port, token):
    big_header = b"X-Big: " + b"a" * 65536 + b"\r\n"
    long_url = b"/api/v1/devices?" + b"x" * 100000
    cases = [
        ("64 KiB header", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + big_header + b"\r\n"),
        ("100,000-character URL", b"GET " + long_url + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("invalid UTF-8 in a parameter",
         b"GET /api/v1/devices/1/samples?from=%ff%fe%80 HTTP/1.1\r\nHost: x\r\n"
         b"Connection: close\r\n\r\n"),
        ("raw invalid UTF-8 in the path",
         b"GET /api/v1/devices/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("NUL in a parameter",
         b"GET /api/v1/devices/1/samples?from=1%00 HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("NUL in the path", b"GET /index.html%00.js HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("NUL in a parameter name",
         b"GET /api/v1/devices?a%00b=1 HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a raw NUL in the request line", b"GET /healthz\x00 HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a body on GET",
         b"GET /api/v1/devices HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"),
        ("Content-Length longer than the body",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
         token.encode() + b"\r\nContent-Length: 100\r\n\r\n{}"),
        ("Content-Length shorter than the body",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
         token.encode() + b"\r\nContent-Length: 2\r\n\r\n{}GARBAGE\r\n\r\n"),
        ("a negative Content-Length",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}"),
        ("Content-Length beyond 64 bits",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\n"
         b"Content-Length: 99999999999999999999999\r\n\r\n{}"),
        ("two Content-Lengths",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
         b"Content-Length: 3\r\n\r\n{}x"),
        ("no Host on HTTP/1.1", b"GET /healthz HTTP/1.1\r\n\r\n"),
        ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        ("garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(64)),
        ("a bare LF request", b"GET /healthz HTTP/1.1\nHost: x\n\n"),
        ("a bad chunk size",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
         b"\r\nzz\r\n{}\r\n0\r\n\r\n"),
    ]
    for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE",
                   "CONNECT", "FROBNICATE"]:
        for path in ["/api/v1/devices", "/healthz", "/index.html", "/nothing"]:
            target = b"127.0.0.1:1" if method == "CONNECT" else path.encode()
            cases.append((f"{method} {target.decode()}", method.encode() + b" " + target +
                          b" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
    for name, raw in cases:
        # 2 s: after an answer MHD may keep a half-closed connection until its idle
        # timeout (seen after a 400 for "%ff" in a parameter); the answer is what counts.
        data = exchange(port, raw, timeout=2.0)
        codes = statuses(data)
        # A read of an existing resource may be 200 (GET /healthz with a body, etc.):
        # clean means no 5xx and a well-formed answer or a closed connection.
        # 505: an HTTP version it does not speak is the one clean 5xx.
        check(all(100 <= c < 500 or c == 505 for c in codes), f"{name}: {codes or 'closed'}")
        status, _ = healthz_ms(port)
        check(status == 200, f"{name}: the next request works ({status})")

    # Pipelined: three requests in one write, three answers in order; an error answered
    # before the request is read (a 404 here) closes the connection after it.
    data = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                    b"GET /api/v1/devices HTTP/1.1\r\nHost: x\r\n\r\n"
                    b"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                    b"GET /api/v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n"
                    b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", half_close=False)
    check(statuses(data) == [200, 200, 200, 404],
          f"pipelined: {statuses(data)} (want 200 200 200 404, then closed)")

    # 401 before 413: a stranger's big upload is refused before it is read.
    body = b"{" + b" " * (70 * 1024) + b"}"
    data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    check(statuses(data)[:1] == [401], f"70 KiB POST without a token: {statuses(data)}")
    data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\n"
                    b"Authorization: Bearer " + token.encode() + b"\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    check(statuses(data)[:1] == [413], f"70 KiB POST with the token: {statuses(data)}")
    # RFC 7235: the scheme is case-insensitive; one or more spaces follow it.
    for scheme in [b"Bearer ", b"bearer ", b"BEARER ", b"bEaReR  "]:
        data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\n"
                        b"Authorization: " + scheme + token.encode() + b"\r\n"
                        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        check(statuses(data) and statuses(data)[0] != 401,
              f"Authorization: {scheme.decode()!r}<token>: {statuses(data)} (not 401)")
    for bad in [b"Bearer" + token.encode(), b"Basic " + token.encode(),
                b"Bearer " + token.encode() + b"x"]:
        data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: x\r\n"
                        b"Authorization: " + bad + b"\r\n"
                        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        check(statuses(data) == [401], f"Authorization: {bad[:12]!r}…: {statuses(data)}")


# ---- slow readers of a big answer ----------------------------------------------------


async def slow_reader(port, path, src, stop, got):
    r, w = await asyncio.open_connection(HOST, port, local_addr=(src, 0))
    w.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await w.drain()
    n = 0
    while not stop.is_set():
        b = await r.read(1)
        if not b:
            break
        n += 1
        await asyncio.sleep(0.5)
    got.append(n)
    w.close()


async def slow(port, pid, n, path):
    stop = asyncio.Event()
    got = []
    rss0 = rss_kib(pid)
    # Each from its own address (127.0.1.1, .2, …): the per-address limit is not tested here.
    tasks = [asyncio.create_task(slow_reader(port, path, f"127.0.1.{i + 1}", stop, got))
             for i in range(n)]
    peak = rss0
    for _ in range(6):
        await asyncio.sleep(0.5)
        peak = max(peak, rss_kib(pid))
    status, ms = await asyncio.to_thread(healthz_ms, port)
    check(status == 200, f"/healthz while {n} clients read {path} slowly ({ms:.0f} ms)")
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(f"slow_clients={n} rss_before_kib={rss0} rss_peak_kib={peak} "
          f"rss_growth_kib={peak - rss0}")
    return peak - rss0


def cmd_slow(port, pid, n, path, max_growth_kib):
    raise_nofile(n)
    growth = asyncio.run(slow(port, pid, n, path))
    check(growth < max_growth_kib, f"RSS grew by {growth} KiB (< {max_growth_kib})")


def main(argv):
    cmd = argv[1]
    if cmd == "flood":
        cmd_flood(int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5]))
    elif cmd == "loris":
        cmd_loris(int(argv[2]), float(argv[3]))
    elif cmd == "total":
        cmd_total(int(argv[2]), int(argv[3]), int(argv[4]))
    elif cmd == "malformed":
        cmd_malformed(int(argv[2]), argv[3])
    elif cmd == "slow":
        cmd_slow(int(argv[2]), int(argv[3]), int(argv[4]), argv[5], int(argv[6]))
    else:
        sys.exit(f"unknown command {cmd}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv)
