#!/usr/bin/env python3
"""A real SMTP server for test_sink_email.sh (Python's aiosmtpd).

usage: smtp_server.py DIR [--auth USER PASSWORD] [--starttls CERT KEY | --smtps CERT KEY]
Listens on 127.0.0.1 on a free port, prints "port N" once it accepts mail, and
saves each message as DIR/N.eml (the DATA as received) with DIR/N.env (MAIL
FROM, then one RCPT TO a line), each written atomically. DIR/transcript gets
each command line a client sends, as aiosmtpd logs it (an AUTH line's
credentials are masked: "AUTH PLAIN ********"), and "tls" once a connection
is under TLS (STARTTLS or smtps).
  --auth      AUTH (PLAIN, LOGIN) offered and required before MAIL
  --starttls  STARTTLS offered and required before anything else
  --smtps     TLS from the first byte (implicit TLS, as on port 465)
"""
import argparse
import logging
import os
import socket
import ssl
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--auth", nargs=2)
ap.add_argument("--starttls", nargs=2)
ap.add_argument("--smtps", nargs=2)
args = ap.parse_args()
creds = (args.auth[0].encode(), args.auth[1].encode()) if args.auth else None


class Transcript(logging.Handler):
    """aiosmtpd's "peer >> b'LINE'" log lines, one LINE a line in DIR/transcript."""

    def emit(self, record):
        msg = record.getMessage()
        if " >> " in msg:
            line = msg.split(" >> ", 1)[1]
            with open(os.path.join(args.dir, "transcript"), "a") as f:
                f.write(line + "\n")


log = logging.getLogger("mail.log")
log.setLevel(logging.INFO)
log.addHandler(Transcript())


class Handler:
    n = 0

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        if session.ssl:
            with open(os.path.join(args.dir, "transcript"), "a") as f:
                f.write("tls\n")
        session.host_name = hostname
        return responses

    async def handle_DATA(self, server, session, envelope):
        Handler.n += 1
        base = os.path.join(args.dir, str(Handler.n))
        with open(base + ".env.tmp", "w") as f:
            f.write(envelope.mail_from + "\n" + "\n".join(envelope.rcpt_tos) + "\n")
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content)
        os.rename(base + ".env.tmp", base + ".env")
        os.rename(base + ".eml.tmp", base + ".eml")
        return "250 OK"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == creds
    return AuthResult(success=ok, handled=False)


def context(pair):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(pair[0], pair[1])
    return ctx


kw = {}
if creds:
    kw.update(authenticator=authenticator, auth_required=True, auth_require_tls=False)
if args.starttls:
    kw.update(tls_context=context(args.starttls), require_starttls=True)
if args.smtps:
    kw.update(ssl_context=context(args.smtps))
for attempt in range(5):  # a free port, which another process may take meanwhile
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = Controller(Handler(), hostname="127.0.0.1", port=port, **kw)
    try:
        c.start()
        break
    except OSError:
        continue
else:
    sys.exit("no free port")
print("port", port, flush=True)
try:
    while True:
        time.sleep(3600)
finally:
    c.stop()
