#!/usr/bin/env bash
# The email delivery against a real SMTP server (Python's aiosmtpd, Debian's
# python3-aiosmtpd): the mail that arrives is parsed with Python's email module
# and its headers and body are checked (RFC 5322 fields, a Subject naming
# severity, rule, host and drive, RFC 2047 for non-ASCII, CRLF, no header
# injection); the password only under TLS (refused with starttls try or no, STARTTLS
# required against a server without it: no AUTH in what the server received), AUTH
# right and wrong with the explicit opt-out, a server that is down: each a clear error,
# never the password. Then the daemon itself with a [sink] of type email: alert mails,
# a test mail, counters, no secrets.
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

# 5. The password goes out only under TLS (issue 23 §3). This server offers AUTH but no
# STARTTLS, as one would whose offer someone on the path stripped. starttls = try or no
# with a username is refused before connecting; required fails at the missing STARTTLS,
# before AUTH; the transcript of what the server received has no AUTH line either way.
AUTH=$TMP/auth
start_smtp "$AUTH" --auth alice 's3cret pass'
for st in try no; do
	OUT=$("$SINK" email "smtp://127.0.0.1:$SMTP_PORT" nvmond@nas.example ops@example.org $st alice 's3cret pass') &&
		fail "starttls = $st with a password was sent"
	echo "$OUT" | grep -q "starttls = $st would send the password in clear text.*allow_plaintext_password = yes" ||
		fail "starttls = $st with a password refused unclearly: $OUT"
done
OUT=$("$SINK" email "smtp://alice:pw@127.0.0.1:$SMTP_PORT" nvmond@nas.example ops@example.org try) &&
	fail "starttls = try with a user in the URL was sent"
echo "$OUT" | grep -q "would send the password in clear text" || fail "a user in the URL: $OUT"
[ ! -s "$AUTH/transcript" ] || fail "a refused setting connected: $(cat "$AUTH/transcript")"
OUT=$("$SINK" email "smtp://127.0.0.1:$SMTP_PORT" nvmond@nas.example ops@example.org required alice 's3cret pass') &&
	fail "starttls = required passed without STARTTLS"
echo "$OUT" | grep -qi 'starttls\|ssl\|tls' || fail "no STARTTLS, unclear: $OUT"
wait_for 5 grep -q EHLO "$AUTH/transcript" || fail "no EHLO in the transcript: $(cat "$AUTH/transcript" 2> /dev/null)"
! grep -q AUTH "$AUTH/transcript" || fail "AUTH sent without TLS: $(cat "$AUTH/transcript")"
echo "refused: $OUT; the server received: $(tr '\n' ' ' < "$AUTH/transcript")"
# The explicit opt-out: the right password delivers (AUTH in clear, in the transcript); a
# wrong one fails clearly, without the password.
NVMOND_TEST_ALLOW_PLAINTEXT=1 expect_exit 0 "$SINK" email "smtp://127.0.0.1:$SMTP_PORT" \
	nvmond@nas.example ops@example.org try alice 's3cret pass'
wait_for 5 test -f "$AUTH/1.eml" || fail "no mail through AUTH"
grep -q "AUTH PLAIN" "$AUTH/transcript" || fail "the transcript misses the AUTH: $(cat "$AUTH/transcript")"
OUT=$(NVMOND_TEST_ALLOW_PLAINTEXT=1 "$SINK" email "smtp://127.0.0.1:$SMTP_PORT" nvmond@nas.example ops@example.org no alice 'wr0ng-Pw') &&
	fail "a wrong password was accepted"
echo "$OUT" | grep -qi 'login denied\|auth' || fail "AUTH failure unclear: $OUT"
case $OUT in *wr0ng-Pw*) fail "the password is in the error: $OUT" ;; esac
# A raw '#' in the URL's password (issue 23 §6): libcurl's parse splits it early; the error
# holds neither the user nor the password.
OUT=$("$SINK" email "smtps://usr$$:S3cr#et@127.0.0.1:$SMTP_PORT" nvmond@nas.example ops@example.org no) &&
	fail "a URL with a raw '#' in its password was sent"
case $OUT in *usr$$* | *S3cr*) fail "userinfo in the error: $OUT" ;; esac
echo "$OUT" | grep -q "percent-encode" || fail "no hint to percent-encode: $OUT"

# 6. TLS, with a CA of the test's own: STARTTLS required (with AUTH after it), smtps://;
# without the CA the server's certificate is refused.
. "$DIR/certs.sh"
if command -v openssl > /dev/null && make_certs "$TMP/certs"; then
	STLS=$TMP/starttls
	start_smtp "$STLS" --auth alice pw --starttls "$TMP/certs/server.pem" "$TMP/certs/server.key"
	NVMOND_TEST_CA=$TMP/certs/ca.pem expect_exit 0 "$SINK" email "smtp://localhost:$SMTP_PORT" \
		nvmond@nas.example ops@example.org required alice pw
	wait_for 5 test -f "$STLS/1.eml" || fail "no mail through STARTTLS"
	# AUTH only after the TLS handshake: "tls" (the EHLO under TLS) comes first.
	python3 -c 'import sys; t = open(sys.argv[1]).read().split("\n"); a = [i for i, l in enumerate(t) if "AUTH" in l]; assert a and "tls" in t[:a[0]], t' \
		"$STLS/transcript" || fail "AUTH before TLS: $(cat "$STLS/transcript")"
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

# 8. The daemon itself (demo drives): a [sink] of type email, AUTH with the password from
# a file. warning_margin = 50 makes both demo drives fire temperature_warning (as in
# test_sinks.sh; demo0 also throttles, which the sink's rules filter out): one mail each;
# then POST /alerts/test?sink=mail, one more. The password
# never shows in the log, the API or /metrics.
DMAIL=$TMP/dmail
SMTP_PW="pw-$RANDOM$RANDOM"
start_smtp "$DMAIL" --auth alice "$SMTP_PW"
printf '%s\n' "$SMTP_PW" > "$TMP/smtp.pw"
chmod 600 "$TMP/smtp.pw"
TOKEN="t0k-$RANDOM$RANDOM"
cat > "$TMP/nvmond.conf" << EOF
[daemon]
database = $TMP/mail.db
poll_interval = 200ms
demo = yes
[http]
token = $TOKEN
[alerts]
warning_margin = 50
[sink "mail"]
type = email
url = smtp://127.0.0.1:$SMTP_PORT
from = nvmond@nas.example
to = ops@example.org, pager@example.net
username = alice
password_file = $TMP/smtp.pw
starttls = no
allow_plaintext_password = yes
rules = temperature_warning
EOF
# Without allow_plaintext_password, or with starttls = try, the configuration is refused.
grep -v '^allow_plaintext_password' "$TMP/nvmond.conf" > "$TMP/clear.conf"
expect_exit 2 "$NVMOND_BIN" -c "$TMP/clear.conf" --listen "127.0.0.1:$(free_port)"
grep -q "clear.conf:16: starttls = no would send the password in clear text" "$LAST_STDERR" ||
	fail "starttls = no with a password_file: $(cat "$LAST_STDERR")"
sed -i -e 's/^starttls = no/starttls = try/' "$TMP/clear.conf"
expect_exit 2 "$NVMOND_BIN" -c "$TMP/clear.conf" --listen "127.0.0.1:$(free_port)"
grep -q "clear.conf:16: starttls = try would send the password in clear text" "$LAST_STDERR" ||
	fail "starttls = try with a password_file: $(cat "$LAST_STDERR")"
start_daemon -c "$TMP/nvmond.conf"
wait_for 15 test -f "$DMAIL/2.eml" || fail "the daemon sent no alert mails: $(ls "$DMAIL")"
http_get /api/v1/devices > "$TMP/devices.json"
for i in 1 2; do
	check_mail "$DMAIL/$i.eml" '
import json
devs = {d["name"]: d for d in json.load(open(sys.argv[1].rsplit("/", 2)[0] + "/devices.json"))["devices"]}
assert env[0] == "nvmond@nas.example" and env[1:3] == ["ops@example.org", "pager@example.net"], env
s = str(m["Subject"])
name = [n for n in devs if n in s]
assert len(name) == 1, (s, list(devs))
d = devs[name[0]]
for word in ("warning", "temperature_warning", "firing", d["serial"].strip()):
    assert word in s, (word, s)
assert "WCTEMP" in m.get_content(), m.get_content()
assert email.utils.parsedate_to_datetime(m["Date"]) and m["Message-ID"]
'
done
code=$(curl -s -o "$TMP/t.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	"http://127.0.0.1:$PORT/api/v1/alerts/test?sink=mail")
[ "$code" = 200 ] || fail "test?sink=mail: $code $(cat "$TMP/t.json")"
wait_for 10 test -f "$DMAIL/3.eml" || fail "no test mail"
check_mail "$DMAIL/3.eml" '
s = str(m["Subject"])
assert "test" in s and "info" in s, s
assert "POST /api/v1/alerts/test" in m.get_content(), m.get_content()
'
J=$(http_get /api/v1/alerts)
jq_py "$J" '
s = j["sinks"]["mail"]
assert s["type"] == "email" and s["delivered"] == 3 and s["failed"] == 0, s
' || fail "sink counters: $J"
M=$(http_get /metrics)
echo "$M" | grep -Eq '^nvmond_alert_deliveries_total\{sink="mail",result="delivered"\} 3$' ||
	fail "metrics: $(echo "$M" | grep alert_deliveries)"
for where in "$J" "$M" "$(cat "$DAEMON_LOG")"; do
	case $where in *"$SMTP_PW"*) fail "the SMTP password leaked" ;; esac
done
stop_daemon
pass
