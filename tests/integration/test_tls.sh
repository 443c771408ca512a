#!/usr/bin/env bash
# HTTPS and read access ([http] tls_cert, tls_key, auth, metrics_token_file), end to
# end: certificates made by openssl under a test CA; curl --cacert; plain HTTP on the
# TLS port; SIGHUP with a new certificate (then a bad one: the served one stays, by
# its fingerprint); auth = all; a real Prometheus scraping /metrics over HTTPS with
# its own bearer token; config errors at start (exit 2, naming the file); the
# warning for a non-loopback address without TLS.
# Env: NVMOND_BIN, NVMOND_SRC (set by ctest).
set -u
. "$(dirname "$0")/lib.sh"
WEB=${NVMOND_SRC:-$(dirname "$0")/../..}/web

for tool in openssl curl prometheus python3; do
	if ! command -v "$tool" > /dev/null; then
		echo "SKIP: $tool not installed (Debian packages openssl, prometheus; see .ci/deps)"
		exit 77
	fi
done
PROM_PID=
trap 'cleanup; [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null; true' EXIT

# ---- a CA, two server certificates it signs (localhost, 127.0.0.1), a stray key
C=$TMP/certs
mkdir -p "$C"
newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2> /dev/null; }
newkey "$C/ca.key" && openssl req -x509 -new -key "$C/ca.key" -out "$C/ca.pem" -days 2 \
	-subj /CN=nvmond-test-ca 2> /dev/null || fail "openssl: CA"
for n in 1 2; do
	newkey "$C/s$n.key" &&
		openssl req -new -key "$C/s$n.key" -subj /CN=localhost -out "$C/s$n.csr" 2> /dev/null &&
		openssl x509 -req -in "$C/s$n.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
			-days 2 -out "$C/s$n.pem" \
			-extfile <(printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n') 2> /dev/null ||
		fail "openssl: server certificate $n"
done
newkey "$C/stray.key" || fail "openssl: key"
fingerprint_of() { openssl x509 -in "$1" -noout -fingerprint -sha256 | cut -d= -f2; }
FP1=$(fingerprint_of "$C/s1.pem")
FP2=$(fingerprint_of "$C/s2.pem")

# ---- configuration errors at start: exit 2, the message names the key or the file
TOKEN=api-$RANDOM$RANDOM
MTOKEN=scrape-$RANDOM$RANDOM
printf '%s\n' "$MTOKEN" > "$TMP/metrics.token"
chmod 600 "$TMP/metrics.token"
conf() { # conf NAME LINES…: a config file with [http] LINES
	local f=$TMP/$1.conf
	shift
	printf '[daemon]\npoll_interval = 1s\ndemo_history = no\n[http]\n' > "$f"
	printf '%s\n' "$@" >> "$f"
	echo "$f"
}
run() { "$NVMOND_BIN" --demo --db "$TMP/db" --listen 127.0.0.1:1 "$@"; }
expect_exit 2 run -c "$(conf nocert "tls_cert = $C/missing.pem" "tls_key = $C/s1.key")"
grep -q "tls_cert $C/missing.pem: No such file" "$LAST_STDERR" || fail "missing cert: $(cat "$LAST_STDERR")"
expect_exit 2 run -c "$(conf badcert "tls_cert = $C/s1.csr" "tls_key = $C/s1.key")"
grep -q "tls_cert $C/s1.csr: not a PEM certificate" "$LAST_STDERR" || fail "bad cert: $(cat "$LAST_STDERR")"
expect_exit 2 run -c "$(conf mismatch "tls_cert = $C/s1.pem" "tls_key = $C/stray.key")"
grep -q "tls_key $C/stray.key does not fit tls_cert $C/s1.pem" "$LAST_STDERR" ||
	fail "mismatched key: $(cat "$LAST_STDERR")"
expect_exit 2 run -c "$(conf halfpair "tls_cert = $C/s1.pem")"
grep -q "tls_cert and tls_key go together: tls_key is not set" "$LAST_STDERR" ||
	fail "cert without key: $(cat "$LAST_STDERR")"
expect_exit 2 run -c "$(conf notoken "auth = all")"
grep -q "auth = all needs \[http\] token" "$LAST_STDERR" || fail "auth=all: $(cat "$LAST_STDERR")"
expect_exit 2 run -c "$(conf nofile "metrics_token_file = $TMP/none")"
grep -qF "$TMP/nofile.conf:5: [http] metrics_token_file: $TMP/none: No such file" "$LAST_STDERR" ||
	fail "metrics_token_file: $(cat "$LAST_STDERR")"
# Secrets others can read or write (issue 23 §8): refused at FILE:LINE, with what to do.
chmod 644 "$TMP/metrics.token"
expect_exit 2 run -c "$(conf opentoken "metrics_token_file = $TMP/metrics.token")"
grep -qF "$TMP/opentoken.conf:5: [http] metrics_token_file: $TMP/metrics.token holds a secret and anyone can read it (mode 0644): chmod o-rwx $TMP/metrics.token" "$LAST_STDERR" ||
	fail "a metrics_token_file anyone can read: $(cat "$LAST_STDERR")"
chmod 600 "$TMP/metrics.token"
cp "$C/s1.key" "$C/open.key"
chmod 666 "$C/open.key"
expect_exit 2 run -c "$(conf openkey "tls_cert = $C/s1.pem" "tls_key = $C/open.key")"
grep -qF "$TMP/openkey.conf:6: [http] tls_key: $C/open.key is writable by anyone (mode 0666): chmod o-w $C/open.key" "$LAST_STDERR" ||
	fail "a tls_key anyone can write: $(cat "$LAST_STDERR")"
f=$(conf badprio "tls_priorities = NORMAL:+VERS-TLS9.9")
expect_exit 2 run -c "$f"
grep -qF "$f:5: [http] tls_priorities: not a GnuTLS priority string: '+VERS-TLS9.9' is not understood" \
	"$LAST_STDERR" || fail "bad tls_priorities: $(cat "$LAST_STDERR")"
echo "ok: bad certificate, key, pairing, tokens and priority string refused at start (exit 2," \
	"naming the file)"

# ---- HTTP on a non-loopback address: a warning that names the risk
PORT=$(free_port)
"$NVMOND_BIN" --demo --db "$TMP/db0" --listen "0.0.0.0:$PORT" -c "$(conf open "token = $TOKEN")" \
	>> "$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
wait_log_for "listening on '0.0.0.0' without TLS: the bearer token and the data travel in clear" 10
wait_log_for "http://0.0.0.0:$PORT/" 10
stop_daemon
echo "ok: the warning for HTTP on 0.0.0.0"

# ---- the TLS daemon: auth = all, /metrics with its own token from a file
cp "$C/s1.pem" "$C/cert.pem"
cp "$C/s1.key" "$C/key.pem"
PORT=$(free_port)
URL=https://localhost:$PORT
"$NVMOND_BIN" --demo --db "$TMP/db" --listen "127.0.0.1:$PORT" -c "$(conf tls \
	"tls_cert = $C/cert.pem" "tls_key = $C/key.pem" "token = $TOKEN" "auth = all" \
	"metrics_token_file = $TMP/metrics.token")" >> "$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
tls_curl() { curl -sS --max-time 10 --cacert "$C/ca.pem" "$@"; }
wait_for 10 tls_curl -f -o /dev/null "$URL/healthz" || fail "no answer over HTTPS within 10 s"
wait_log_for "https://127.0.0.1:$PORT/" 10

# The served certificate, by its SHA-256 fingerprint (what curl verified against the CA).
served_fp() {
	openssl s_client -connect "127.0.0.1:$PORT" -servername localhost < /dev/null 2> /dev/null |
		openssl x509 -noout -fingerprint -sha256 | cut -d= -f2
}
[ "$(served_fp)" = "$FP1" ] || fail "served $(served_fp), want $FP1"

# TLS versions (issue 23; [http] tls_priorities, RFC 8996): 1.0 and 1.1 refused, 1.2 and 1.3
# served. The client is told to allow them all (no system policy, security level 0), so
# a refusal is the server's; "Cipher is (NONE)" is openssl's word for no handshake.
tls_cipher() { # tls_cipher -tls1_N: the cipher a handshake of that version agreed on
	OPENSSL_CONF=/dev/null openssl s_client -connect "127.0.0.1:$PORT" -servername localhost \
		"$1" -cipher 'DEFAULT:@SECLEVEL=0' < /dev/null 2> /dev/null |
		sed -n 's/^New, [^,]*, Cipher is \(.*\)$/\1/p' | head -1
}
for v in -tls1 -tls1_1; do
	[ "$(tls_cipher $v)" = "(NONE)" ] || fail "openssl s_client $v: handshake with $(tls_cipher $v)"
done
for v in -tls1_2 -tls1_3; do
	c=$(tls_cipher $v)
	[ -n "$c" ] && [ "$c" != "(NONE)" ] || fail "openssl s_client $v: no handshake ($c)"
done
echo "ok: TLS 1.0 and 1.1 refused, 1.2 ($(tls_cipher -tls1_2)) and 1.3 ($(tls_cipher -tls1_3)) served"

# Plain HTTP on the TLS port gets no HTTP answer.
code=$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz" 2> /dev/null)
[ "$code" = 000 ] || fail "plain HTTP on the TLS port answered $code"
echo "ok: HTTPS with certificate 1 ($FP1), plain HTTP not served"

# auth = all: who gets what (status codes).
status() { tls_curl -o /dev/null -w '%{http_code}' "$@"; }
check() { # check WANT ARGS…
	local want=$1 got
	shift
	got=$(status "$@")
	[ "$got" = "$want" ] || fail "curl $* answered $got, want $want"
}
check 200 "$URL/healthz"
check 401 "$URL/api/v1/devices"
check 401 -H "Authorization: Bearer wrong" "$URL/api/v1/devices"
check 200 -H "Authorization: Bearer $TOKEN" "$URL/api/v1/devices"
check 200 -H "Authorization: bEARER $TOKEN" "$URL/api/v1/devices" # RFC 7235: any case
check 401 -H "Authorization: Bearer $MTOKEN" "$URL/api/v1/devices"
check 401 "$URL/metrics"
check 200 -H "Authorization: Bearer $MTOKEN" "$URL/metrics"
check 200 -H "Authorization: Bearer $TOKEN" "$URL/metrics"
check 401 -H "Authorization: Bearer $MTOKEN" -X POST "$URL/api/v1/alerts/test"
check 200 -H "Authorization: Bearer $TOKEN" -X POST "$URL/api/v1/alerts/test"
# The dashboard's files hold no data: they load without a token (the data needs it).
for f in / /index.html /api.js /app.js /style.css; do check 200 "$URL$f"; done
echo "ok: auth = all: reads need the token, /healthz and the dashboard's files open," \
	"/metrics takes its own token"

# The dashboard's own request code (web/api.js) against this daemon, with Node's fetch:
# with auth = all the first 401 asks for the token once for the requests waiting on it,
# keeps it, and every later request carries it. (prompt and localStorage are the
# browser's; the rest is real. The page in a browser: test_dashboard.)
if command -v node > /dev/null && node -e 'process.exit(typeof fetch === "function" ? 0 : 1)'; then
	NODE_EXTRA_CA_CERTS=$C/ca.pem node - "$URL" "$TOKEN" "$WEB/api.js" << 'EOF' ||
const fs = require("fs");
const [base, token, file] = process.argv.slice(2);
const store = new Map();
let prompts = 0;
// api.js is an ES module that imports nothing: the browser's globals it uses, then the
// module itself (a data: URL, so that Node 20 reads it as a module whatever its name).
const nodeFetch = globalThis.fetch;
Object.assign(globalThis, {
  fetch: (p, o) => nodeFetch(base + p, o),
  localStorage: { getItem: (k) => (store.has(k) ? store.get(k) : null), setItem: (k, v) => store.set(k, String(v)),
    removeItem: (k) => store.delete(k) },
  prompt: () => { prompts++; return token; },
});
const check = (c, msg) => { if (!c) { console.error("FAIL: web/api.js: " + msg); process.exit(1); } };
(async () => {
  const { api, optional, authPost } = await import("data:text/javascript;base64," + fs.readFileSync(file).toString("base64"));
  const rs = await Promise.all([api("/api/v1/devices"), api("/api/v1/alerts"), optional("/api/v1/alerts")]);
  check(rs[0].ok && rs[1].ok && rs[2] !== null, "reads after the prompt: " + rs.map((r) => r && r.status));
  check(prompts === 1, "asked " + prompts + " times for three reads");
  check(store.get("nvmond.token") === token, "token not kept");
  const again = await api("/api/v1/devices");
  check(again.ok && prompts === 1, "a later read asked again or failed: " + again.status);
  store.set("nvmond.token", "stale");
  const stale = await api("/api/v1/devices");
  check(stale.ok && prompts === 2 && store.get("nvmond.token") === token, "a stale token was not replaced");
  const post = await authPost("/api/v1/alerts/test", undefined, "test");
  check(post && post.ok && prompts === 2, "authPost with the kept token: " + (post && post.status));
  console.log("ok: web/api.js with auth = all: one prompt for three reads, the token kept and sent");
})().catch((e) => check(false, String(e && e.message) + " " + e.stack));
EOF
		fail "the dashboard's request code with auth = all"
else
	echo "SKIP (part): no node with fetch"
fi

# ---- SIGHUP: a new certificate is served; a bad one leaves the served one
cp "$C/s2.pem" "$C/cert.pem"
cp "$C/s2.key" "$C/key.pem"
kill -HUP "$DAEMON_PID"
wait_log_for "TLS certificate reloaded: .*SHA-256 $FP2" 10
[ "$(served_fp)" = "$FP2" ] || fail "after SIGHUP served $(served_fp), want $FP2"
cp "$C/stray.key" "$C/key.pem"
kill -HUP "$DAEMON_PID"
wait_log_for "TLS certificate not reloaded, still serving .*SHA-256 $FP2: tls_key $C/key.pem does not fit" 10
[ "$(served_fp)" = "$FP2" ] || fail "after a bad SIGHUP served $(served_fp), want $FP2"
cp "$C/s2.pem" "$C/cert.pem" # the pair served, its key now readable by anyone
cp "$C/s2.key" "$C/key.pem"
chmod 644 "$C/key.pem"
kill -HUP "$DAEMON_PID"
wait_log_for "TLS certificate not reloaded, still serving .*SHA-256 $FP2: tls_key $C/key.pem holds a secret and anyone can read it \(mode 0644\)" 10
[ "$(served_fp)" = "$FP2" ] || fail "after a SIGHUP with a key anyone can read served $(served_fp), want $FP2"
chmod 600 "$C/key.pem"
check 200 "$URL/healthz"
echo "ok: SIGHUP: certificate 2 served ($FP2); a mismatched key and one anyone can read refused, certificate 2 kept"

# nvmond selftest talks to the daemon over HTTPS, trusting the key of the configured
# certificate (pinned: "localhost" or not), with the token (auth = all).
"$NVMOND_BIN" -c "$TMP/tls.conf" --listen "127.0.0.1:$PORT" selftest --device demo0 --short \
	> "$TMP/cli.out" 2> "$TMP/cli.err" || fail "nvmond selftest over HTTPS: $(cat "$TMP/cli.err")"
cp "$C/s1.pem" "$C/cert.pem" # not the certificate served: its key is not the pinned one
rc=0
"$NVMOND_BIN" -c "$TMP/tls.conf" --listen "127.0.0.1:$PORT" selftest --device demo0 --abort \
	> "$TMP/cli.out" 2> "$TMP/cli.err" || rc=$?
[ "$rc" != 0 ] && grep -qi 'pinned\|public key' "$TMP/cli.err" ||
	fail "nvmond selftest trusted another key (exit $rc): $(cat "$TMP/cli.err")"
echo "ok: nvmond selftest over HTTPS with the pinned key (another key refused: $(head -c 160 "$TMP/cli.err"))"

# ---- a real Prometheus scraping over HTTPS with the metrics token
PROM_PORT=$(free_port)
cat > "$TMP/prometheus.yml" << EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: nvmond
    scheme: https
    tls_config:
      ca_file: $C/ca.pem
    authorization:
      credentials_file: $TMP/metrics.token
    static_configs:
      - targets: ['localhost:$PORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" > "$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
PROM=http://127.0.0.1:$PROM_PORT
promql() { # the single value of an instant query ("" while there is none)
	curl -fsS --max-time 5 -G "$PROM/api/v1/query" --data-urlencode "query=$1" 2> /dev/null |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if len(r)==1 else "")' 2> /dev/null
}
scraped() { [ "$(promql 'up{job="nvmond"}')" = 1 ] && [ -n "$(promql "$1")" ]; }
Q='nvmond_polls_total{job="nvmond"}'
wait_for 20 scraped "$Q" || fail "Prometheus: up=$(promql 'up{job="nvmond"}'), $Q='$(promql "$Q")':" \
	"$(curl -fsS "$PROM/api/v1/targets" 2> /dev/null | head -c 600)"
echo "ok: Prometheus scrapes over HTTPS with a bearer token: up = 1, $Q = $(promql "$Q")"

stop_daemon

# [http] tls_priorities is what is served: with TLS 1.1 added, the same client gets it.
PORT=$(free_port)
"$NVMOND_BIN" --demo --db "$TMP/db" --listen "127.0.0.1:$PORT" -c "$(conf tls11 \
	"tls_cert = $C/s2.pem" "tls_key = $C/s2.key" \
	"tls_priorities = NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1")" \
	>> "$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
wait_for 10 tls_curl -f -o /dev/null "https://localhost:$PORT/healthz" || fail "no HTTPS with TLS 1.1 allowed"
c=$(tls_cipher -tls1_1)
[ -n "$c" ] && [ "$c" != "(NONE)" ] || fail "tls_priorities with +VERS-TLS1.1: no TLS 1.1 handshake ($c)"
stop_daemon
echo "ok: tls_priorities with +VERS-TLS1.1: a TLS 1.1 handshake ($c)"
pass
