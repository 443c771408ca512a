#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Raw-socket clients for test_http_abuse.sh: what curl will not send.

  http_abuse.py flood PORT PID N PER_IP N idle and slow-loris connections from 127.0.0.2,
                                        then /healthz from 127.0.0.1 (must take < 100 ms);
                                        prints the figures as key=value
  http_abuse.py total PORT LIMIT PER_IP LIMIT connections from 127.0.0.3, .4, … are
                                        served, the next ones get /healthz only, past
                                        those a client waits until one closes
  http_abuse.py loris PORT SECONDS      headers a byte at a time: closed by the deadline
  http_abuse.py malformed PORT TOKEN    every malformed request gets a clean 4xx or a closed
                                        connection, and the next request works
  http_abuse.py slow PORT PID N PATH MAX_KIB  N clients that read PATH slowly: the
                                        daemon's RSS may grow by less than MAX_KIB
  http_abuse.py slowfill PORT PID MODE PATH TIMEOUT_S  32 clients from each of
                                        127.0.0.2 … .9 (256, max_connections) that send a
                                        body a byte at a time (MODE body) or read PATH a
                                        byte at a time (MODE read): /healthz from 127.0.0.1
                                        answers within 100 ms throughout, the daemon holds
                                        all 256 at once and has closed them TIMEOUT_S after
                                        (body_timeout or send_timeout), not before
  http_abuse.py shortlived PORT SECONDS N  N clients from 127.0.0.10 that each open a
                                        connection, ask /healthz, read the answer, close
                                        and start again for SECONDS: none is refused
  http_abuse.py framing PORT TOKEN HOSTNAME  requests framed ambiguously, Host values,
                                        request bodies: each gets its status at once

Exit status 0 when every check holds; each failure is printed as "FAIL: ...".
"""
import asyncio
import fcntl
import json
import os
import re
import resource
import socket
import struct
import sys
import termios
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
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
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
            w.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
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
    """@limit connections (@per_ip from each of 127.0.0.3, .4, …) are served. Past them
    the reserve (API_RESERVE_CONNECTIONS, 16) answers /healthz alone, once per
    connection; past the reserve too a client waits until a connection closes."""
    socks = []
    reserve = 16
    try:
        for i in range(limit):
            src = f"127.0.0.{3 + i // per_ip}"
            s = socket.create_connection((HOST, port), timeout=5, source_address=(src, 0))
            socks.append(s)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            ok = s.recv(65536).startswith(b"HTTP/1.1 200")
            if not ok:
                check(False, f"connection {i + 1} of {limit} (from {src}) is served")
                return
        check(True, f"{limit} connections are served")
        src = f"127.0.0.{4 + (limit - 1) // per_ip}"
        # Past max_connections: a reserve connection, /healthz only, closed after it.
        data = exchange(port, b"GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                        timeout=2.0, half_close=False)
        check(statuses(data) == [503] and b"only /healthz" in data and
              b"Connection: close" in data,
              f"past max_connections, GET /api/v1/devices: {statuses(data)} (want 503, closed)")
        t = time.monotonic()
        data = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                        timeout=2.0, half_close=False)
        ms = (time.monotonic() - t) * 1000
        check(statuses(data) == [200] and b"Connection: close" in data and ms < 1000,
              f"past max_connections, /healthz: {statuses(data)} and closed in {ms:.0f} ms")
        # The reserve held by idle connections: the next client waits in the backlog
        # until the reserve lets one go (API_RESERVE_MS, 2 s), then it is served.
        idle = [socket.create_connection((HOST, port), timeout=5, source_address=(src, 0))
                for _ in range(reserve)]
        time.sleep(0.3)
        extra = socket.create_connection((HOST, port), timeout=5,
                                         source_address=(f"127.0.0.{5 + limit // per_ip}", 0))
        t = time.monotonic()
        extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        extra.settimeout(1.0)
        try:
            data = extra.recv(65536)
        except socket.timeout:
            data = None
        check(data is None, f"past the reserve too, a client waits (got {data!r:.40})")
        extra.settimeout(5.0)
        data = extra.recv(65536)
        waited = time.monotonic() - t
        check(data.startswith(b"HTTP/1.1 200") and waited < 3.5,
              f"once the idle reserve connections are cut (2 s), it is served after "
              f"{waited:.1f} s ({data[:20]!r})")
        closed = 0
        for s in idle:
            s.settimeout(0.5)
            try:
                closed += s.recv(1) == b""
            except (socket.timeout, ConnectionResetError):
                closed += 1
            s.close()
        check(closed == reserve, f"{closed} of {reserve} idle reserve connections closed")
        extra.close()
        # One ordinary connection closes: the next is ordinary again.
        socks.pop().close()
        data = exchange(port, b"GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Connection: close\r\n\r\n", timeout=5.0)
        check(statuses(data) == [200],
              f"once one closes, a new connection is served: {statuses(data)}")
    finally:
        for s in socks:
            s.close()


def cmd_loris(port, timeout_s):
    """A request whose headers come a byte every 0.3 s is closed soon after the
    request deadline (@timeout_s), though never idle that long."""
    s = socket.create_connection((HOST, port), timeout=timeout_s + 5)
    t0 = time.monotonic()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
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
        ("64 KiB header", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + big_header + b"\r\n"),
        ("100,000-character URL", b"GET " + long_url + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("invalid UTF-8 in a parameter",
         b"GET /api/v1/devices/1/samples?from=%ff%fe%80 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
         b"Connection: close\r\n\r\n"),
        ("raw invalid UTF-8 in the path",
         b"GET /api/v1/devices/\xff\xfe HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("NUL in a parameter",
         b"GET /api/v1/devices/1/samples?from=1%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("NUL in the path", b"GET /index.html%00.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("NUL in a parameter name",
         b"GET /api/v1/devices?a%00b=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("a raw NUL in the request line", b"GET /healthz\x00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("a body on GET",
         b"GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello"),
        ("Content-Length longer than the body",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
         token.encode() + b"\r\nContent-Length: 100\r\n\r\n{}"),
        ("Content-Length shorter than the body",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
         token.encode() + b"\r\nContent-Length: 2\r\n\r\n{}GARBAGE\r\n\r\n"),
        ("a negative Content-Length",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n{}"),
        ("Content-Length beyond 64 bits",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
         b"Content-Length: 99999999999999999999999\r\n\r\n{}"),
        ("two Content-Lengths",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
         b"Content-Length: 3\r\n\r\n{}x"),
        ("no Host on HTTP/1.1", b"GET /healthz HTTP/1.1\r\n\r\n"),
        ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        ("garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(64)),
        ("a bare LF request", b"GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n"),
        ("a bad chunk size",
         b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
         b"\r\nzz\r\n{}\r\n0\r\n\r\n"),
    ]
    for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE",
                   "CONNECT", "FROBNICATE"]:
        for path in ["/api/v1/devices", "/healthz", "/index.html", "/nothing"]:
            target = b"127.0.0.1:1" if method == "CONNECT" else path.encode()
            cases.append((f"{method} {target.decode()}", method.encode() + b" " + target +
                          b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"))
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
    data = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    b"GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    b"HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    b"GET /api/v1/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", half_close=False)
    check(statuses(data) == [200, 200, 200, 404],
          f"pipelined: {statuses(data)} (want 200 200 200 404, then closed)")

    # 401 before 413: a stranger's big upload is refused before it is read.
    body = b"{" + b" " * (70 * 1024) + b"}"
    data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    check(statuses(data)[:1] == [401], f"70 KiB POST without a token: {statuses(data)}")
    data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Authorization: Bearer " + token.encode() + b"\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    check(statuses(data)[:1] == [413], f"70 KiB POST with the token: {statuses(data)}")
    # RFC 7235: the scheme is case-insensitive; one or more spaces follow it.
    for scheme in [b"Bearer ", b"bearer ", b"BEARER ", b"bEaReR  "]:
        data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Authorization: " + scheme + token.encode() + b"\r\n"
                        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        check(statuses(data) and statuses(data)[0] != 401,
              f"Authorization: {scheme.decode()!r}<token>: {statuses(data)} (not 401)")
    for bad in [b"Bearer" + token.encode(), b"Basic " + token.encode(),
                b"Bearer " + token.encode() + b"x"]:
        data = exchange(port, b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Authorization: " + bad + b"\r\n"
                        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        check(statuses(data) == [401], f"Authorization: {bad[:12]!r}…: {statuses(data)}")


# ---- slow readers of a big answer ----------------------------------------------------


async def slow_reader(port, path, src, stop, got):
    r, w = await asyncio.open_connection(HOST, port, local_addr=(src, 0))
    w.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
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


# ---- slow clients that fill every connection ----------------------------------------


def daemon_conns(pid, port):
    """The clients ((address, port)) of the TCP connections to @port the daemon @pid
    still holds a descriptor of (IPv4)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    clients = set()
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            col = line.split()
            if int(col[1].rsplit(":", 1)[1], 16) == port and col[9] in inodes:
                ip, cport = col[2].split(":")
                addr = socket.inet_ntoa(bytes.fromhex(ip)[::-1])  # little-endian hex
                clients.add((addr, int(cport, 16)))
    clients.discard(("0.0.0.0", 0))  # the listener
    return clients


def cmd_probe(port, seconds):
    """/healthz from 127.0.0.1 every 50 ms on a fresh connection for @seconds, in a
    process of its own (the slow clients' event loop must not delay the timing), from
    a line on stdin on: one line "t status ms" per probe, t on the monotonic clock.
    It says "ready" first: a Python started on a loaded machine may take seconds."""
    print("ready", flush=True)
    sys.stdin.readline()
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        t = time.monotonic()
        try:
            status, ms = healthz_ms(port)
        except OSError:
            status, ms = 0, 5000.0
        print(f"{t:.3f} {status} {ms:.1f}", flush=True)
        time.sleep(0.05)


async def trickler(port, src, stop, began, mine):
    """Headers at once, then a body of 100,000 bytes, one byte every 0.5 s. @began
    gets its address: the time the headers were sent (the body's deadline runs from it)."""
    loop = asyncio.get_running_loop()
    s = socket.socket()
    s.bind((src, 0))
    s.setblocking(False)
    try:
        await loop.sock_connect(s, (HOST, port))
        mine.add(s.getsockname())
        await loop.sock_sendall(s, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                b"Content-Length: 100000\r\n\r\n")
        began[s.getsockname()] = time.monotonic()
        while not stop.is_set():
            await loop.sock_sendall(s, b"a")
            try:
                if await asyncio.wait_for(loop.sock_recv(s, 65536), 0.5) == b"":
                    break
            except asyncio.TimeoutError:
                pass
    except OSError:
        pass
    finally:
        s.close()


async def slow_taker(port, src, path, stop, began, mine):
    """Asks for @path and takes its answer one byte every 0.5 s, through a 4 KiB
    buffer. @began gets its address: the last time more of the answer came (what is
    taken plus what waits in the buffer, FIONREAD, looked at every 50 ms): from then
    on the answer waits for the client, and send_timeout runs."""
    loop = asyncio.get_running_loop()
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind((src, 0))
    s.setblocking(False)
    taken, came, tick = 0, 0, 0
    try:
        await loop.sock_connect(s, (HOST, port))
        mine.add(s.getsockname())
        await loop.sock_sendall(s, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        while not stop.is_set():
            waiting = struct.unpack("i", fcntl.ioctl(s.fileno(), termios.FIONREAD, b"\0" * 4))[0]
            if taken + waiting > came:
                came = taken + waiting
                began[s.getsockname()] = time.monotonic()
            if tick % 10 == 0 and waiting:
                if await loop.sock_recv(s, 1) == b"":
                    break
                taken += 1
            tick += 1
            await asyncio.sleep(0.05)
    except OSError:
        pass
    finally:
        s.close()


async def slowfill(port, pid, mode, path, timeout_s):
    n = 8 * 32
    stop = asyncio.Event()
    began, closed, mine = {}, {}, set()
    prober = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "probe", str(port), str(timeout_s + 15),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    await prober.stdout.readline()  # "ready"
    t0 = time.monotonic()
    tasks = [asyncio.create_task(trickler(port, f"127.0.0.{2 + i // 32}", stop, began, mine)
                                 if mode == "body" else
                                 slow_taker(port, f"127.0.0.{2 + i // 32}", path, stop, began,
                                            mine))
             for i in range(n)]
    # /healthz once all are connected: a probe among them could take the last ordinary
    # connection and leave one of them to the reserve.
    while len(mine) < n and time.monotonic() - t0 < 5:
        await asyncio.sleep(0.01)
    prober.stdin.write(b"go\n")
    await prober.stdin.drain()
    # Which of them the daemon holds, every 20 ms, until it holds none of them: the
    # window in which it held all of them, and when each went.
    seen, peak, t_full, t_first_gone = set(), 0, None, None
    while time.monotonic() - t0 < timeout_s + 12:
        held = daemon_conns(pid, port)
        now = time.monotonic()
        ours = held & mine
        peak = max(peak, len(ours))
        if t_full is None and len(ours) == n:
            t_full = now
        seen |= ours
        for p in seen - held:
            closed.setdefault(p, now)
        if closed and t_first_gone is None:
            t_first_gone = now
        if len(mine) == n and len(closed) == n:
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)  # /healthz once more after they are gone
    t_end = time.monotonic()
    prober.terminate()
    out, _ = await prober.communicate()
    probes = []
    for line in out.decode().splitlines():
        t, status, ms = line.split()
        if t0 - 0.2 <= float(t) <= t_end:
            probes.append((float(t), int(status), float(ms)))
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    held_for = sorted(closed[p] - began[p] for p in closed if p in began)
    return t0, peak, t_full, t_first_gone, len(began), held_for, probes


def cmd_slowfill(port, pid, mode, path, timeout_s):
    raise_nofile(400)
    t0, peak, t_full, t_gone, n, held_for, probes = asyncio.run(
        slowfill(port, pid, mode, path, timeout_s))
    rel = lambda t: None if t is None else round(t - t0, 2)  # noqa: E731
    # While they hold every ordinary connection, /healthz is served by the reserve.
    held = [(t, st, ms) for t, st, ms in probes
            if t_full is not None and t_full <= t and (t_gone is None or t + ms / 1000 <= t_gone)]
    bad = [(round(t - t0, 2), st, round(ms)) for t, st, ms in held if st != 200 or ms >= 100]
    worst_held = max((ms for _, _, ms in held), default=0)
    unanswered = [(round(t - t0, 2), st) for t, st, _ in probes if st != 200]
    worst = max((ms for _, _, ms in probes), default=0)
    since = "headers" if mode == "body" else "answer's last byte"
    print(f"slowfill mode={mode} clients={n} held_at_once={peak} all_held_s=[{rel(t_full)} .. "
          f"{rel(t_gone)}] closed={len(held_for)} held_s=[{held_for[0] if held_for else 0:.2f} .. "
          f"{held_for[-1] if held_for else 0:.2f}] healthz: {len(held)} probes while all held, "
          f"slowest {worst_held:.1f} ms; {len(probes)} in all, slowest {worst:.1f} ms, "
          f"unanswered {unanswered[:5]}")
    check(peak == 256 and t_full is not None,
          f"{mode}: the daemon held all 256 slow connections at once ({peak}): every "
          "ordinary connection taken")
    check(len(held) >= 5 and not bad,
          f"{mode}: /healthz from 127.0.0.1 answered 200 within 100 ms while they held every "
          f"connection ({len(held)} probes, slowest {worst_held:.1f} ms, failures {bad[:5]})")
    check(not unanswered, f"{mode}: /healthz answered 200 all along ({len(probes)} probes, "
          f"slowest {worst:.1f} ms, failures {unanswered[:5]})")
    # Documented: closed within the timeout of the moment it became late (and the
    # reaper's quarter second; 0.75 s of slack for a loaded machine). Not before it
    # (0.5 s of slack: the client sees the last byte come a little late): the
    # timeout, not another one, cut them.
    check(len(held_for) == 256 and held_for[-1] <= timeout_s + 1.0,
          f"{mode}: all {len(held_for)} closed at most {held_for[-1] if held_for else 0:.2f} s "
          f"after their {since} (timeout {timeout_s} s)")
    check(held_for and held_for[0] >= timeout_s - 0.5,
          f"{mode}: none closed before the timeout (the first {held_for[0] if held_for else 0:.2f} "
          f"s after its {since})")


# ---- short-lived clients at the per-address limit -------------------------------------


async def short_client(port, src, until, counts):
    loop = asyncio.get_running_loop()
    while time.monotonic() < until:
        s = socket.socket()
        # The port is picked at connect(), where TIME_WAIT ones can be reused.
        s.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24), 1)
        s.bind((src, 0))
        s.setblocking(False)
        try:
            await loop.sock_connect(s, (HOST, port))
            await loop.sock_sendall(s, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            data = b""
            while b"\r\n\r\n" not in data or not data.endswith(b"}"):
                chunk = await asyncio.wait_for(loop.sock_recv(s, 4096), 5)
                if not chunk:
                    raise ConnectionResetError("closed before the answer")
                data += chunk
            counts["ok" if data.startswith(b"HTTP/1.1 200") else "bad"] += 1
        except (OSError, asyncio.TimeoutError):
            counts["refused"] += 1
        finally:
            s.close()  # at once, before the next connect: a short-lived client


def cmd_shortlived(port, seconds, n):
    counts = {"ok": 0, "bad": 0, "refused": 0}

    async def run():
        until = time.monotonic() + seconds
        await asyncio.gather(*[short_client(port, "127.0.0.10", until, counts)
                               for _ in range(n)])
    asyncio.run(run())
    total = sum(counts.values())
    print(f"shortlived clients={n} requests={total} ok={counts['ok']} "
          f"refused_or_reset={counts['refused']} other_status={counts['bad']}")
    check(total >= 500 and counts["ok"] == total,
          f"{n} short-lived clients from one address: {counts['refused']} of {total} requests "
          f"refused or reset, {counts['bad']} not 200 (want none)")


# ---- framing, Host, bodies --------------------------------------------------------------


def answers(data):
    """[(status, headers dict (lower-case names), body)] of each answer in @data."""
    out = []
    while data.startswith(b"HTTP/1."):
        head, sep, rest = data.partition(b"\r\n\r\n")
        if not sep:
            break
        lines = head.split(b"\r\n")
        hdrs = {}
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            hdrs[k.strip().lower().decode()] = v.strip().decode(errors="replace")
        n = int(hdrs.get("content-length", "0"))
        out.append((int(lines[0].split()[1]), hdrs, rest[:n]))
        data = rest[n:]
    return out


def first_answer(port, raw):
    """Send @raw; read until one answer is in, then up to 1 s more. Returns (all the
    data, ms to the first answer, whether the server closed the connection)."""
    s = socket.create_connection((HOST, port), timeout=3)
    t0 = time.monotonic()
    data, ms, closed = b"", None, False
    try:
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        while True:
            if ms is None and answers(data):
                ms = (time.monotonic() - t0) * 1000
                s.settimeout(1.0)
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
    except socket.timeout:
        pass
    finally:
        s.close()
    if ms is None and answers(data):
        ms = (time.monotonic() - t0) * 1000
    return data, ms, closed


def cmd_framing(port, token, hostname):
    auth = b"Authorization: Bearer " + token.encode() + b"\r\n"
    ack = b"POST /api/v1/alerts/999999/ack HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth
    smuggled = b"GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    many = b"&".join(b"p%d=1" % i for i in range(600))
    H = b"Host: 127.0.0.1\r\n"
    # (name and rule, request, status, closed after it)
    cases = [
        ("Transfer-Encoding with Content-Length: 400, closed (RFC 9112 6.3 p3)",
         ack + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
         400, True),
        ("two different Content-Lengths: 400, closed (RFC 9112 6.3 p5)",
         ack + b"Content-Length: 0\r\nContent-Length: %d\r\n\r\n" % len(smuggled) + smuggled,
         400, True),
        ("Content-Length: 2, 3 in one field: 400, closed (RFC 9112 6.3 p5)",
         ack + b"Content-Length: 2\r\nContent-Length: 2, 3\r\n\r\n{}x", 400, True),
        ("two equal Content-Lengths are one (RFC 9112 6.3 p5): read, answered",
         ack + b"Content-Length: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
         404, True),
        ("an unknown Transfer-Encoding: 400 at once (RFC 9112 6.3 p4)",
         ack + b"Transfer-Encoding: gzip\r\n\r\n", 400, True),
        ("gzip, chunked: 501 (RFC 9112 6.1)",
         ack + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, True),
        ("chunked then gzip: 400 (RFC 9112 6.1: chunked last)",
         ack + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 400, True),
        ("chunked: 411, bodies with Content-Length only (RFC 9110 15.5.12)",
         ack + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 411, True),
        ("a 40 KB chunk extension: a 4xx at once, not 500",
         ack + b"Transfer-Encoding: chunked\r\n\r\n2;" + b"e" * 40000 + b"\r\n{}\r\n0\r\n\r\n",
         411, True),
        ("Transfer-Encoding in HTTP/1.0: 400 (RFC 9112 6.1)",
         b"POST /api/v1/alerts/999999/ack HTTP/1.0\r\n" + H + auth +
         b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, True),
        ("600 query parameters: 400 at once",
         b"GET /api/v1/devices?" + many + b" HTTP/1.1\r\n" + H + b"\r\n", 400, False),
        ("17 query parameters: 400 (at most 16)",
         b"GET /api/v1/devices?" + b"&".join(b"p%d=1" % i for i in range(17)) +
         b" HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n", 400, True),
        ("two Authorization fields: 400",
         ack + auth + b"Content-Length: 0\r\n\r\n", 400, True),
        ("HTTP/1.1 without Host: 400 (RFC 9112 3.2)", b"GET /healthz HTTP/1.1\r\n\r\n", 400, True),
        ("two Host fields: 400 (RFC 9112 3.2)",
         b"GET /healthz HTTP/1.1\r\n" + H + H + b"\r\n", 400, True),
        ("a Host that is not a host: 400 (RFC 9112 3.2)",
         b"GET /healthz HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, True),
        ("HTTP/1.0 without Host: served",
         b"GET /healthz HTTP/1.0\r\n\r\n", 200, True),
        ("Host: attacker.example (DNS rebinding): 421 (RFC 9110 15.5.20)",
         b"GET /api/v1/devices HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n",
         421, True),
        ("Host: attacker.example:80 on /healthz: 421",
         b"GET /healthz HTTP/1.1\r\nHost: attacker.example:80\r\nConnection: close\r\n\r\n",
         421, True),
        ("an empty Host: 421",
         b"GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n", 421, True),
        ("an ack with a body that is not JSON: 400",
         ack + b"Content-Length: 5\r\nConnection: close\r\n\r\nhello", 400, True),
        ("an ack with {}: read (404: no such alert)",
         ack + b"Content-Length: 2\r\nConnection: close\r\n\r\n{}", 404, True),
        ("alerts/test with a body that is not JSON: 400",
         b"POST /api/v1/alerts/test HTTP/1.1\r\n" + H + auth +
         b"Content-Length: 3\r\nConnection: close\r\n\r\nabc", 400, True),
    ]
    for host in [b"127.0.0.1", b"127.0.0.1:9470", b"localhost", b"LocalHost.:8080", b"[::1]:9470",
                 b"10.1.2.3", b"nvmond.example", hostname.encode()]:
        cases.append((f"Host: {host.decode()}: served",
                      b"GET /api/v1/devices HTTP/1.1\r\nHost: " + host +
                      b"\r\nConnection: close\r\n\r\n", 200, True))
    for name, raw, want, closes in cases:
        data, ms, closed = first_answer(port, raw)
        got = answers(data)
        codes = [a[0] for a in got]
        ok = len(codes) == 1 and codes[0] == want and ms is not None and ms < 1000
        if ok and want >= 400:
            try:
                body = json.loads(got[0][2])
                ok = isinstance(body, dict) and isinstance(body.get("error"), str)
            except ValueError:
                ok = False
        if ok and closes:
            ok = closed and got[0][1].get("connection", "").lower() == "close"
        ms_text = "no answer" if ms is None else f"{ms:.0f} ms"
        check(ok, f"{name}: {codes or 'closed'} in {ms_text}{', closed' if closed else ''} "
              f"{got[0][2][:90] if got else data[:60]!r}")
        status, _ = healthz_ms(port)
        check(status == 200, f"{name}: the next request works ({status})")


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
    elif cmd == "slowfill":
        cmd_slowfill(int(argv[2]), int(argv[3]), argv[4], argv[5], float(argv[6]))
    elif cmd == "shortlived":
        cmd_shortlived(int(argv[2]), float(argv[3]), int(argv[4]))
    elif cmd == "probe":
        cmd_probe(int(argv[2]), float(argv[3]))
    elif cmd == "framing":
        cmd_framing(int(argv[2]), argv[3], argv[4])
    else:
        sys.exit(f"unknown command {cmd}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv)
