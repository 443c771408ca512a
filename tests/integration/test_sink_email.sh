#!/usr/bin/env bash
# The email delivery against a real SMTP server (Python's aiosmtpd, Debian's
# python3-aiosmtpd): the mail that arrives is parsed with Python's email module
# and its headers and body are checked (RFC 5322 fields, a Subject naming
# severity, rule, host and drive, RFC 2047 for non-ASCII, CRLF, no header
# injection); AUTH right and wrong, STARTTLS required against a server without
# it, a server that is down: each a clear error, never the password.
set -u
. "$(dirname "$0")/lib.sh"
DIR=$(dirname "$0")
SINK=${NVMOND_TEST_SINK:-}
[ -x "$SINK" ] || { echo "SKIP: no nvmond-test-sink (set NVMOND_TEST_SINK)"; exit 77; }
PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import aiosmtpd' 2> /dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || { echo "SKIP: python3-aiosmtpd is not installed (.ci/deps)"; exit 77; }

SERVERS=()
stop_servers() {
	for pid in "${SERVERS[@]}"; do kill "$pid" 2> /dev/null; done
	cleanup
}
trap stop_servers EXIT

# start_smtp DIR [USER PASS]: sets SMTP_PORT.
start_smtp() {
	mkdir -p "$1"
	"$PY" "$DIR/smtp_server.py" "$@" > "$1.out" 2> "$1.err" &
	SERVERS+=($!)
	wait_for 10 grep -q '^port ' "$1.out" || fail "SMTP server did not start: $(cat "$1.err")"
	SMTP_PORT=$(awk '/^port /{print $2}' "$1.out")
}

# check_mail FILE.eml 'python using m (EmailMessage), raw (bytes), env (lines)'
check_mail() {
	"$PY" - "$1" "$2" << 'EOF' || fail "mail $1: check failed: $2"
import sys, email, email.policy, email.utils
raw = open(sys.argv[1], "rb").read()
env = open(sys.argv[1][:-4] + ".env").read().split("\n")
m = email.message_from_bytes(raw, policy=email.policy.default)
exec(sys.argv[2])
EOF
}

MAIL=$TMP/mail
start_smtp "$MAIL"
URL=smtp://127.0.0.1:$SMTP_PORT

# 1. A plain notification: every header the issue names, a readable body.
expect_exit 0 "$SINK" email "$URL" nvmond@nas.example ops@example.org,pager@example.net no
wait_for 5 test -f "$MAIL/1.eml" || fail "no mail received"
check_mail "$MAIL/1.eml" '
assert env[0] == "nvmond@nas.example", env
assert env[1:3] == ["ops@example.org", "pager@example.net"], env
for line in raw.split(b"\r\n"):
    assert b"\n" not in line and b"\r" not in line, "bare CR or LF"
    assert len(line) <= 998
d = email.utils.parsedate_to_datetime(m["Date"])
assert d.utcoffset().total_seconds() == 0, m["Date"]
assert m["Message-ID"].startswith("<nvmond.") and m["Message-ID"].endswith("@nas>"), m["Message-ID"]
assert m["From"].addresses[0].addr_spec == "nvmond@nas.example"
assert [a.addr_spec for a in m["To"].addresses] == ["ops@example.org", "pager@example.net"]
s = str(m["Subject"])
for word in ("critical", "temperature_critical", "nas", "nvme0", "S64D/NF0 R12", "firing"):
    assert word in s, (word, s)
assert m["MIME-Version"] == "1.0"
assert m.get_content_type() == "text/plain" and m.get_content_charset() == "utf-8"
b = m.get_content()
assert "composite temperature 85 C" in b and "Samsung SSD 980 1TB" in b, b
assert "Dashboard: http://nas:9841/#/drive/3" in b, b
'

# 2. Non-ASCII: an RFC 2047 Subject and a quoted-printable body, decoded back exactly.
NVMOND_TEST_MODEL='Übersetzer SSD 1 TB ünïcödé' \
	expect_exit 0 "$SINK" email "$URL" nvmond@nas.example ops@example.org try
wait_for 5 test -f "$MAIL/2.eml" || fail "no second mail"
check_mail "$MAIL/2.eml" '
head = raw.split(b"\r\n\r\n", 1)[0]
assert all(c < 0x80 for c in head), "8-bit header"
assert b"=?UTF-8?B?" in head
assert "Übersetzer SSD 1 TB ünïcödé" in str(m["Subject"]), str(m["Subject"])
assert m["Content-Transfer-Encoding"] == "quoted-printable"
assert "Übersetzer SSD 1 TB ünïcödé" in m.get_content()
'

# 3. Header injection through a note field: one Subject, no Bcc, the envelope unchanged.
NVMOND_TEST_RULE=$'x\r\nBcc: evil@example.com\r\n\r\nfake body' \
	expect_exit 0 "$SINK" email "$URL" nvmond@nas.example ops@example.org no
wait_for 5 test -f "$MAIL/3.eml" || fail "no third mail"
check_mail "$MAIL/3.eml" '
assert m["Bcc"] is None, m["Bcc"]
assert len(m.get_all("Subject")) == 1
assert "Bcc: evil@example.com" in str(m["Subject"])
assert env[1:] == ["ops@example.org", ""], env
assert m.get_content().startswith("nvmond on nas: x  Bcc: evil"), m.get_content()[:80]
'
# … and through the settings: refused before any connection.
OUT=$("$SINK" email "$URL" nvmond@nas.example $'ops@example.org\r\nBcc: evil@example.com' no) &&
	fail "an address with CR/LF was accepted"
echo "$OUT" | grep -q "invalid from/to address" || fail "a bad address refused unclearly: $OUT"
[ ! -f "$MAIL/4.eml" ] || fail "a mail was sent with an injected address"

# 4. STARTTLS required, the server offers none: a clear failure, nothing sent.
OUT=$("$SINK" email "$URL" nvmond@nas.example ops@example.org required) && fail "STARTTLS required passed without TLS"
echo "$OUT" | grep -qiE 'ssl|tls' || fail "STARTTLS failure unclear: $OUT"

# 5. AUTH: the right password delivers; a wrong one fails clearly, without the password.
AUTH=$TMP/auth
start_smtp "$AUTH" --auth alice 's3cret pass'
expect_exit 0 "$SINK" email "smtp://127.0.0.1:$SMTP_PORT" nvmond@nas.example ops@example.org no alice 's3cret pass'
wait_for 5 test -f "$AUTH/1.eml" || fail "no mail through AUTH"
OUT=$("$SINK" email "smtp://127.0.0.1:$SMTP_PORT" nvmond@nas.example ops@example.org no alice 'wr0ng-Pw') &&
	fail "a wrong password was accepted"
echo "$OUT" | grep -qi 'login denied\|auth' || fail "AUTH failure unclear: $OUT"
case $OUT in *wr0ng-Pw*) fail "the password is in the error: $OUT" ;; esac

# 6. TLS, with a CA of the test's own: STARTTLS required (with AUTH after it), smtps://;
# without the CA the server's certificate is refused.
. "$DIR/certs.sh"
if command -v openssl > /dev/null && make_certs "$TMP/certs"; then
	STLS=$TMP/starttls
	start_smtp "$STLS" --auth alice pw --starttls "$TMP/certs/server.pem" "$TMP/certs/server.key"
	NVMOND_TEST_CA=$TMP/certs/ca.pem expect_exit 0 "$SINK" email "smtp://localhost:$SMTP_PORT" \
		nvmond@nas.example ops@example.org required alice pw
	wait_for 5 test -f "$STLS/1.eml" || fail "no mail through STARTTLS"
	OUT=$("$SINK" email "smtp://localhost:$SMTP_PORT" nvmond@nas.example ops@example.org required alice pw) &&
		fail "STARTTLS passed with an unknown CA"
	echo "$OUT" | grep -qi 'certificate' || fail "certificate failure unclear: $OUT"
	SMTPS=$TMP/smtps
	start_smtp "$SMTPS" --smtps "$TMP/certs/server.pem" "$TMP/certs/server.key"
	NVMOND_TEST_CA=$TMP/certs/ca.pem expect_exit 0 "$SINK" email "smtps://localhost:$SMTP_PORT" \
		nvmond@nas.example ops@example.org no
	wait_for 5 test -f "$SMTPS/1.eml" || fail "no mail through smtps"
	check_mail "$SMTPS/1.eml" 'assert "temperature_critical" in str(m["Subject"])'
else
	echo "NOTE: no openssl: TLS not checked"
fi

# 7. No server: a clear error.
DOWN=$(free_port)
OUT=$("$SINK" email "smtp://127.0.0.1:$DOWN" nvmond@nas.example ops@example.org no) && fail "sent to a closed port"
echo "$OUT" | grep -qi "connect" || fail "connection failure unclear: $OUT"
echo "errors as reported: $OUT"
pass
