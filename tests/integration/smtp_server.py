#!/usr/bin/env python3
"""A real SMTP server for test_sink_email.sh (Python's aiosmtpd).

usage: smtp_server.py DIR [USER PASSWORD]
Listens on 127.0.0.1 on a free port, prints "port N" once it accepts mail, and
saves each message as DIR/N.eml (the DATA as received) with DIR/N.env (MAIL
FROM, then one RCPT TO a line), written atomically. With USER and PASSWORD,
AUTH (PLAIN, LOGIN) is offered without TLS and required before MAIL.
"""
import os
import socket
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

out = sys.argv[1]
creds = (sys.argv[2].encode(), sys.argv[3].encode()) if len(sys.argv) > 3 else None


class Handler:
    n = 0

    async def handle_DATA(self, server, session, envelope):
        Handler.n += 1
        base = os.path.join(out, str(Handler.n))
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


kw = {}
if creds:
    kw = dict(authenticator=authenticator, auth_required=True, auth_require_tls=False)
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
