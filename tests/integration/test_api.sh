#!/usr/bin/env bash
# The HTTP API end to end: the real daemon with its demo drives, a real SQLite
# file and curl. Env: NVMOND_BIN, NVMOND_SRC (set by ctest).
set -u

for tool in curl python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool not installed"
		exit 77
	fi
done
: "${NVMOND_BIN:?}" "${NVMOND_SRC:?}"

TMP=$(mktemp -d /tmp/nvmond-test-api.XXXXXX) || exit 1
PID=
SLOW_PID=
cleanup() {
	[ -n "$SLOW_PID" ] && kill "$SLOW_PID" 2>/dev/null
	if [ -n "$PID" ]; then
		kill "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

failures=0
pass() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# ---- a web root of our own: a copy of web/ plus things that must never leak
SECRET="nvmond-secret-$RANDOM$RANDOM"
cp -r "$NVMOND_SRC/web" "$TMP/web"
echo "$SECRET" >"$TMP/secret.txt"
ln -s "$TMP/secret.txt" "$TMP/web/leak.txt"
ln -s "$TMP" "$TMP/web/up"
ln -s /etc "$TMP/web/etc"
mkdir "$TMP/web/emptydir"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
cat >"$TMP/c.conf" <<EOF
[daemon]
poll_interval = 1s
web_root = $TMP/web
EOF

"$NVMOND_BIN" --demo --config "$TMP/c.conf" --db "$TMP/db" --listen "127.0.0.1:$PORT" \
	>"$TMP/log" 2>&1 &
PID=$!
up=
for _ in $(seq $((${NVMOND_START_TIMEOUT:-10} * 5))); do
	if curl -s -o /dev/null "$BASE/healthz"; then
		up=1
		break
	fi
	sleep 0.2
done
if [ -z "$up" ]; then
	echo "FAIL: the daemon did not answer on $BASE"
	cat "$TMP/log"
	exit 1
fi

# req [curl options...] URL: sets CODE, BODY (file $TMP/body) and HDRS (file $TMP/hdrs)
req() {
	: > "$TMP/body" # curl leaves the file alone when there is no body (a 304)
	CODE=$(curl -s --path-as-is --max-time 10 -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' "$@")
	BODY=$(cat "$TMP/body")
}
header() { # header NAME: the value of a response header of the last req
	grep -i "^$1:" "$TMP/hdrs" | head -n1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'
}
# py EXPR: evaluate a Python expression with `d` = the last JSON body
py() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$TMP/body" "$1"
}
is_json_error() { # the last body is {"error": "..."} and Content-Type is JSON
	[ "$(header Content-Type)" = application/json ] &&
		[ "$(py 'sorted(d) == ["error"] and isinstance(d["error"], str) and len(d["error"]) > 0')" = True ]
}
expect_error() { # expect_error STATUS [NEEDLE] URL [curl options]
	local status=$1 needle=$2
	shift 2
	req "$@"
	if [ "$CODE" != "$status" ] || ! is_json_error; then
		fail "$* → $CODE (want $status with a JSON error): $BODY"
		return
	fi
	if [ -n "$needle" ] && [ "$(py "'$needle' in d['error']")" != True ]; then
		fail "$* → error does not name $needle: $BODY"
		return
	fi
	pass "$* → $status"
}

# ---- health
req "$BASE/healthz"
check "/healthz 200" [ "$CODE" = 200 ]
check "/healthz body" [ "$(py 'd == {"status": "ok"}')" = True ]
check "/healthz is JSON" [ "$(header Content-Type)" = application/json ]
# A GET answer may be kept but is checked again each time (no-cache), by its
# entity tag (RFC 9110 13.1.2); errors and POST answers are never stored.
check "/healthz no-cache with an ETag" [ "$(header Cache-Control):$(header ETag | cut -c1-3)" = 'no-cache:W/"' ]
# Keep-alive clients learn when an idle connection closes ([http] timeout, 30 s
# by default), so that they never reuse one as it closes (a Node client's
# "socket hang up" in the dashboard test).
check "/healthz Keep-Alive: timeout=30" [ "$(header Keep-Alive)" = timeout=30 ]

# ---- devices
req "$BASE/api/v1/devices"
check "devices 200" [ "$CODE" = 200 ]
check "two demo drives with integer ids" \
	[ "$(py 'len(d["devices"]) == 2 and all(type(x["id"]) is int for x in d["devices"]) and len({x["id"] for x in d["devices"]}) == 2')" = True ]
check "device fields" [ "$(py 'all(k in x for x in d["devices"] for k in ("key", "model", "serial", "firmware", "wctemp_c", "cctemp_c", "capacity_bytes", "namespaces", "first_seen", "last_seen", "online", "latest"))')" = True ]
IDS=$(py '" ".join(str(x["id"]) for x in d["devices"])')
ID=${IDS%% *}

req "$BASE/api/v1/devices/$ID"
check "one device 200" [ "$CODE" = 200 ]
check "one device has its id and a latest sample" \
	[ "$(py "d['id'] == $ID and d['online'] is True and isinstance(d['latest'], dict)")" = True ]

# ---- samples grow
# sample_stats ID: the count of samples in the default range, and data_units_written
# and ts_ms of the newest (the range slides: its count stops growing once it is full)
sample_stats() {
	req "$BASE/api/v1/devices/$1/samples"
	[ "$CODE" = 200 ] || {
		echo "0 0 0"
		return
	}
	py '"%d %d %d" % ((len(d["samples"]), int(d["samples"][-1]["data_units_written"]), d["samples"][-1]["ts_ms"]) if d["samples"] else (0, 0, 0))'
}
declare -A N1 W1 T1
for id in $IDS; do read -r "N1[$id]" "W1[$id]" "T1[$id]" <<<"$(sample_stats "$id")"; done
# Wait for the polls rather than a fixed time: every device has more samples
# and more data written than at the start, and the four samples the range
# checks below need.
grown() {
	local id n2 w2 t2
	for id in $IDS; do
		read -r n2 w2 t2 <<<"$(sample_stats "$id")"
		[ "$t2" -gt "${T1[$id]}" ] && [ "$n2" -ge 4 ] && [ "$w2" -gt "${W1[$id]}" ] || return 1
	done
}
for _ in $(seq 150); do grown && break; sleep 0.1; done
for id in $IDS; do
	read -r n2 w2 t2 <<<"$(sample_stats "$id")"
	check "device $id: a newer sample (${T1[$id]} → $t2), $n2 in the range" [ "$t2" -gt "${T1[$id]}" -a "$n2" -ge 4 ]
	check "device $id: data_units_written grows (${W1[$id]} → $w2)" [ "$w2" -gt "${W1[$id]}" ]
done
req "$BASE/api/v1/devices/$ID/samples"
check "samples envelope" [ "$(py "d['device_id'] == $ID and d['from'].endswith('Z') and d['to'].endswith('Z')")" = True ]
check "samples oldest first" [ "$(py 'all(a["ts_ms"] < b["ts_ms"] for a, b in zip(d["samples"], d["samples"][1:]))')" = True ]
check "samples are JSON, not cached" [ "$(header Content-Type):$(header Cache-Control)" = application/json:no-store ]


# ---- from/to in RFC 3339 and in ms select exactly the closed range
check "at least 4 samples" [ "$(py 'len(d["samples"]) >= 4')" = True ]
FROM_RFC=$(py 'd["samples"][1]["ts"]')
TO_MS=$(py 'd["samples"][-2]["ts_ms"]')
WANT=$(py 'len(d["samples"]) - 2')
FIRST_MS=$(py 'd["samples"][1]["ts_ms"]')
req "$BASE/api/v1/devices/$ID/samples?from=$FROM_RFC&to=$TO_MS"
check "from=RFC 3339, to=ms → 200" [ "$CODE" = 200 ]
check "from/to select $WANT samples" [ "$(py "len(d['samples']) == $WANT and d['samples'][0]['ts_ms'] == $FIRST_MS and d['samples'][-1]['ts_ms'] == $TO_MS")" = True ]
check "from/to echoed" [ "$(py "d['from'] == '$FROM_RFC'")" = True ]
req "$BASE/api/v1/devices/$ID/samples?from=$FIRST_MS&to=$TO_MS&limit=1"
check "limit=1 gives the oldest of the range" [ "$(py "len(d['samples']) == 1 and d['samples'][0]['ts_ms'] == $FIRST_MS")" = True ]
req -G "$BASE/api/v1/devices/$ID/samples" --data-urlencode "from=1970-01-01T00:00:00+01:00" --data-urlencode "to=1970-01-01T00:00:01Z"
check "an empty range → 200 with no samples" [ "$CODE:$(py 'd["samples"]')" = "200:[]" ]

# ---- bad requests
S="$BASE/api/v1/devices/$ID/samples"
expect_error 400 from "$S?from=yesterday"
expect_error 400 to "$S?to=2026-13-40T00:00:00Z"
expect_error 400 from "$S?from=2000&to=1000"
expect_error 400 limit "$S?limit=0"
expect_error 400 limit "$S?limit=100001"
expect_error 400 limit "$S?limit=ten"
expect_error 400 bogus "$S?bogus=1"
expect_error 400 from "$S?from=1&from=2"
expect_error 400 from "$S?from=1000%00"
expect_error 400 "" "$BASE/api/v1/devices/abc"
expect_error 400 "" "$BASE/api/v1/devices/1.5/samples"
expect_error 404 "" "$BASE/api/v1/devices/999999"
expect_error 404 "" "$BASE/api/v1/devices/999999/samples"
expect_error 404 "" "$BASE/api/v1/nothing"
expect_error 404 "" "$BASE/api/v1/devices/$ID/other"

# ---- issue 15: three GETs that overflowed int64 (an abort under UBSan, a negative
# step in release) and a time past year 9999 written as year 0000: each a 400 that
# says why, and the daemon still answers the next request
YEARS="RFC 3339 time or unix milliseconds, years 0000 to 9999"
for q in "series?step=9223372036854775s|step|from 1s to 3650d" \
	"samples?from=-9223372036854775808|from|$YEARS" \
	"events?to=-9223372036854775000|to|$YEARS" \
	"samples?to=253402300800000|to|$YEARS" \
	"events?from=10000-01-01T00:00:00Z|from|$YEARS"; do
	IFS='|' read -r url name msg <<<"$q"
	expect_error 400 "$msg" "$BASE/api/v1/devices/$ID/$url"
	check "$url names '$name'" [ "$(py "d['error'].startswith(\"parameter '$name'\")")" = True ]
	req "$BASE/healthz"
	check "after $url the next request works" [ "$CODE" = 200 ]
done
# from=0 is 1970 in every answer that echoes its range (issue 23: /events said null).
for ep in samples events errors; do
	req "$BASE/api/v1/devices/$ID/$ep?from=0&to=1000&limit=1"
	check "$ep?from=0 echoes from 1970" \
		[ "$CODE:$(py "d['from'] + ' ' + d['to']")" = "200:1970-01-01T00:00:00.000Z 1970-01-01T00:00:01.000Z" ]
done
req "$BASE/api/v1/devices/$ID/samples?from=0000-01-01T00:00:00Z&to=253402300799999&limit=1"
check "years 0000 and 9999 themselves are taken and echoed" \
	[ "$CODE:$(py "d['from'] + ' ' + d['to']")" = "200:0000-01-01T00:00:00.000Z 9999-12-31T23:59:59.999Z" ]

# ---- the error log: the demo 950 PRO counts 63 errors, as its demo year read them:
# 14 admin commands its controller refused there before nvmond first read it, a
# burst of more such each month, and two Unrecovered Read Errors (errors 42, 43)
req "$BASE/api/v1/devices"
HOT=$(py '[x["id"] for x in d["devices"] if x["serial"] == "DEMO950PRO00001"][0]')
COOL=$(py '[x["id"] for x in d["devices"] if x["serial"] == "DEMO980PRO00002"][0]')
check "the device objects count error log entries by class" \
	[ "$(py "[x['errors'] for x in d['devices'] if x['id'] == $HOT] == [{'benign': 61, 'media': 2, 'io': 0, 'other': 0, 'total': 63}]")" = True ]
E="$BASE/api/v1/devices/$HOT/errors"
req "$E"
check "errors 200, read, 61 benign, 2 media" [ "$CODE:$(py 'd["read"] and d["counts"] == {"benign": 61, "media": 2, "io": 0, "other": 0, "total": 63}')" = 200:True ]
check "errors newest first, one per error count 63 .. 1" [ "$(py '[e["error_count"] for e in d["entries"]] == list(range(63, 0, -1))')" = True ]
check "errors: the first 14 from before nvmond watched, never alerting" \
	[ "$(py '[e["error_count"] for e in d["entries"] if e["before_watch"]] == list(range(14, 0, -1)) and not any(e["alerts"] for e in d["entries"] if e["before_watch"])')" = True ]
check "errors: benign ones on the admin queue, status named, never alerting" \
	[ "$(py 'all(e["sqid"] == 0 and not e["alerts"] and e["status_name"] in ("Invalid Log Page", "Invalid Field in Command") for e in d["entries"] if e["class"] == "benign")')" = True ]
check "errors: 42 and 43 are unrecovered reads on an I/O queue, read together, alerting" \
	[ "$(py '(lambda m: [e["error_count"] for e in m] == [43, 42] and all(e["alerts"] and e["sqid"] == 2 and e["nsid"] == 1 and e["status_name"] == "Unrecovered Read Error" for e in m) and m[0]["seen_ms"] == m[1]["seen_ms"] and m[0]["lba"] == m[1]["lba"] + 8)([e for e in d["entries"] if e["class"] == "media"])')" = True ]
req "$E?limit=3"
check "errors limit=3 keeps the newest, counts the whole range" [ "$(py '[e["error_count"] for e in d["entries"]] == [63, 62, 61] and d["counts"]["total"] == 63')" = True ]
req "$E?from=0&to=1000"
check "errors of a range before any read: none" [ "$CODE:$(py 'd["entries"] == [] and d["counts"]["total"] == 0')" = 200:True ]
req "$BASE/api/v1/devices/$COOL/errors"
check "the cool drive's log was read and holds nothing" [ "$(py 'd["read"] and d["entries"] == [] and d["counts"]["total"] == 0')" = True ]
expect_error 400 bogus "$E?bogus=1"
expect_error 400 limit "$E?limit=0"
expect_error 400 from "$E?from=2000&to=1000"
expect_error 404 "" "$BASE/api/v1/devices/999999/errors"

# ---- methods
expect_error 405 "" "$BASE/api/v1/devices" -X POST -d x=1
check "405 has Allow: GET, HEAD" [ "$(header Allow)" = "GET, HEAD" ]
expect_error 405 "" "$BASE/healthz" -X DELETE
expect_error 405 "" "$BASE/index.html" -X PUT -d x
expect_error 404 "" "$BASE/no-such-file" -X POST -d x
# curl -I prints the headers as its output, so read the raw reply to see there is no body.
head_reply() { # head_reply PATH: status line and the byte count after the headers
	python3 - "$PORT" "$1" <<'EOF'
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
c.sendall(b"HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % sys.argv[2].encode())
data = b""
while chunk := c.recv(65536):
    data += chunk
head, _, body = data.partition(b"\r\n\r\n")
print(head.split(b"\r\n")[0].decode(), len(body))
EOF
}
check "HEAD devices: 200 without a body" [ "$(head_reply /api/v1/devices)" = "HTTP/1.1 200 OK 0" ]
check "HEAD /: 200 without a body" [ "$(head_reply /)" = "HTTP/1.1 200 OK 0" ]
req -I "$BASE/api/v1/devices"
check "HEAD is JSON" [ "$CODE:$(header Content-Type)" = 200:application/json ]
# HEAD of the streamed /samples (issue 23): no byte after its headers, so the next
# answer on the connection is whole. libmicrohttpd 0.9.75 sent the last chunk
# "0\r\n\r\n" there: 13 of 20 HEAD-then-GET pairs on one connection broke.
head_then_get() { # the status of both, and what followed the HEAD's headers
	python3 - "$PORT" "$1" <<'EOF'
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
c.sendall(b"HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % sys.argv[2].encode() +
          b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
data = b""
try:
    while chunk := c.recv(65536):
        data += chunk
except ConnectionResetError:
    pass
head, _, rest = data.partition(b"\r\n\r\n")
# After the HEAD's headers: nothing (it closed the connection) or the next answer.
ok = rest == b"" or rest.startswith(b"HTTP/1.1 200")
print(head.split(b"\r\n")[0].decode(), "clean" if ok else "stray %r" % rest[:12])
EOF
}
check "HEAD samples: 200, nothing after its headers" \
	[ "$(head_then_get "/api/v1/devices/$ID/samples")" = "HTTP/1.1 200 OK clean" ]
bad=0
for _ in $(seq 20); do
	out=$(curl -s --max-time 5 -o /dev/null -w '%{http_code} ' -I "$BASE/api/v1/devices/$ID/samples" \
		--next -s --max-time 5 -w '%{http_code}' "$BASE/healthz")
	[ "$out" = "200 {\"status\":\"ok\"}200" ] || bad=$((bad + 1))
done
check "20 pairs of HEAD samples then GET /healthz (curl --next): $bad broken" [ "$bad" = 0 ]

# ---- entity tags and gzip (issue 14): a client that holds the answer gets 304
# without a body; one that changed gets 200 and the new tag; answers of 1 KB and
# more go gzipped when the client accepts it, and decode to the same bytes.
req "$BASE/healthz"
TAG=$(header ETag)
req -H "If-None-Match: $TAG" "$BASE/healthz"
check "If-None-Match with the tag → 304, no body ($CODE)" [ "$CODE:$(wc -c < "$TMP/body"):$(header ETag)" = "304:0:$TAG" ]
req -H 'If-None-Match: "other", '"$TAG" "$BASE/healthz"
check "the tag in a list → 304 ($CODE)" [ "$CODE" = 304 ]
req -H 'If-None-Match: W/"0-0000000000000000"' "$BASE/healthz"
check "another tag → 200 with the body" [ "$CODE:$BODY" = '200:{"status":"ok"}' ]
# A poll changes the device (its samples count and time): the old tag no longer matches.
req "$BASE/api/v1/devices/$ID"
TAG=$(header ETag)
wait_tag_changes() {
	for _ in $(seq 50); do
		req -H "If-None-Match: $TAG" "$BASE/api/v1/devices/$ID"
		[ "$CODE" = 200 ] && return 0
		sleep 0.1
	done
	return 1
}
check "after a poll the device is new: 200 and another tag" wait_tag_changes
check "... whose tag differs" [ "$(header ETag)" != "$TAG" ]
expect_error 404 "" -H 'If-None-Match: *' "$BASE/api/v1/devices/999999"
# A closed range: the same bytes twice.
NOW_MS=$(($(date +%s) * 1000))
SERIES="$BASE/api/v1/devices/$ID/series?points=500&from=$((NOW_MS - 86400000))&to=$NOW_MS"
req "$SERIES"
PLAIN_LEN=$(wc -c < "$TMP/body")
cp "$TMP/body" "$TMP/series.plain"
req -H 'Accept-Encoding: gzip' "$SERIES"
check "series ($PLAIN_LEN bytes) gzipped when accepted" [ "$(header Content-Encoding):$(header Vary)" = gzip:Accept-Encoding ]
check "... smaller ($(wc -c < "$TMP/body") bytes) and the same JSON" sh -c \
	"[ \$(wc -c < '$TMP/body') -lt $PLAIN_LEN ] && gzip -dc < '$TMP/body' | cmp -s - '$TMP/series.plain'"
req -H 'Accept-Encoding: gzip;q=0, br' "$SERIES"
check "gzip;q=0: plain" [ "$(header Content-Encoding)" = "" ]
req -H 'Accept-Encoding: gzip' "$BASE/healthz"
check "a short answer (/healthz) stays plain" [ "$(header Content-Encoding):$BODY" = ':{"status":"ok"}' ]
# api.md: "every answer says Vary: Accept-Encoding", and answers of 1 KB and more go
# gzipped: a streamed /samples (its length unknown) and the dashboard's files too (issue 28 §6).
SAMPLES="$BASE/api/v1/devices/$ID/samples?from=$FIRST_MS&to=$TO_MS"
req "$SAMPLES"
cp "$TMP/body" "$TMP/samples.plain"
check "a plain /samples says Vary" [ "$(header Vary):$(header Content-Encoding)" = Accept-Encoding: ]
req -H 'Accept-Encoding: gzip' "$SAMPLES"
check "/samples gzipped when accepted, still chunked" [ "$(header Content-Encoding):$(header Vary):$(header Transfer-Encoding)" = gzip:Accept-Encoding:chunked ]
check "... the same JSON ($(wc -c < "$TMP/samples.plain") bytes plain, $(wc -c < "$TMP/body") gzipped)" sh -c \
	"gzip -dc < '$TMP/body' | cmp -s - '$TMP/samples.plain'"
req -H 'Accept-Encoding: gzip' "$BASE/"
check "/ (index.html, $(wc -c < "$NVMOND_SRC/web/index.html") bytes) gzipped, with Vary" [ "$CODE:$(header Content-Encoding):$(header Vary)" = 200:gzip:Accept-Encoding ]
check "... and is index.html" sh -c "gzip -dc < '$TMP/body' | cmp -s - '$NVMOND_SRC/web/index.html'"
GZTAG=$(header ETag)
req -H 'Accept-Encoding: gzip' "$BASE/app.js"
check "/app.js gzipped" sh -c "[ '$(header Content-Encoding)' = gzip ] && gzip -dc < '$TMP/body' | cmp -s - '$NVMOND_SRC/web/app.js'"
req -H 'Accept-Encoding: gzip' -H "If-None-Match: $GZTAG" "$BASE/index.html"
check "the gzip form's tag ($GZTAG) → 304 with Vary" [ "$CODE:$(header Vary):${GZTAG:0:2}" = 304:Accept-Encoding:W/ ]
req "$BASE/index.html"
check "a plain file says Vary" [ "$CODE:$(header Vary):$(header Content-Encoding)" = 200:Accept-Encoding: ]
# docs/security.md#static-files: the page runs only its own scripts and styles, talks
# only to this daemon and is framed by no other site (the browser test fails on any
# violation the dashboard itself would cause).
CSP=$(header Content-Security-Policy)
csp_strict() {
	case "$CSP" in *unsafe*) return 1 ;; esac
	for d in "script-src 'self';" "style-src 'self';" "connect-src 'self';" "frame-ancestors 'none'"; do
		case "$CSP" in *"$d"*) ;; *) return 1 ;; esac
	done
}
check "the dashboard's files carry a Content-Security-Policy ($CSP)" csp_strict
check "... and Referrer-Policy: no-referrer" [ "$(header Referrer-Policy)" = no-referrer ]
req "$BASE/missing.html"
check "an error says Vary" [ "$CODE:$(header Vary)" = 404:Accept-Encoding ]

# ---- static files
req "$BASE/"
check "/ → 200" [ "$CODE" = 200 ]
check "/ serves index.html" cmp -s "$TMP/body" "$NVMOND_SRC/web/index.html"
check "index.html is text/html" [ "$(header Content-Type)" = "text/html; charset=utf-8" ]
# The dashboard's scripts are ES modules: a browser runs one only with a JavaScript type.
for js in "$NVMOND_SRC"/web/*.js; do
	req "$BASE/${js##*/}"
	check "${js##*/} is JavaScript" [ "$CODE:$(header Content-Type)" = "200:text/javascript; charset=utf-8" ]
done
req "$BASE/style.css"
check "style.css is CSS" [ "$CODE:$(header Content-Type)" = "200:text/css; charset=utf-8" ]
req -I "$BASE/index.html"
check "HEAD of a file" [ "$CODE:$(header Content-Length)" = "200:$(wc -c <"$NVMOND_SRC/web/index.html")" ]
req "$BASE/index.html"
FTAG=$(header ETag)
check "a file: no-cache, a strong tag" [ "$(header Cache-Control):${FTAG:0:1}" = 'no-cache:"' ]
req -H "If-None-Match: $FTAG" "$BASE/index.html"
check "an unchanged file → 304, no body ($CODE)" [ "$CODE:$(wc -c < "$TMP/body")" = "304:0" ]
expect_error 404 "" "$BASE/missing.html"
expect_error 404 "" "$BASE/emptydir/"
expect_error 404 "" "$BASE/index.html/"

# ---- only the dashboard's own files: not the npm files of the source tree's web/
mkdir -p "$TMP/web/node_modules/uplot" "$TMP/web/vendor"
echo '{"secret": "'"$SECRET"'"}' >"$TMP/web/package.json"
echo "$SECRET" >"$TMP/web/node_modules/uplot/index.js"
echo "$SECRET" >"$TMP/web/notes.txt"
echo "/* uPlot */" >"$TMP/web/vendor/uPlot.iife.min.js"
for path in /package.json /node_modules/uplot/index.js /notes.txt; do
	req "$BASE$path"
	if [ "$CODE" = 404 ] && ! grep -q "$SECRET" "$TMP/body"; then
		pass "$path → 404"
	else
		fail "$path → $CODE: $(head -c 200 "$TMP/body")"
	fi
done
req "$BASE/vendor/uPlot.iife.min.js"
check "vendor/uPlot.iife.min.js → 200 ($CODE)" [ "$CODE" = 200 ]

# ---- no way out of the web root
for path in '/../' '/../secret.txt' '/../../../../../../etc/passwd' \
	'/%2e%2e/%2e%2e/etc/passwd' '/%2E%2E/secret.txt' '/..%2f..%2fetc/passwd' \
	'/..%2fsecret.txt' '/emptydir/..%2f..%2fsecret.txt' '/leak.txt' '/up/secret.txt' \
	'/etc/passwd' '/etc/hostname' '/index.html%00.txt' '/%00'; do
	req "$BASE$path"
	if [ "$CODE" = 404 ] && is_json_error && ! grep -q -e "$SECRET" -e 'root:' "$TMP/body"; then
		pass "traversal $path → 404"
	else
		fail "traversal $path → $CODE: $(head -c 200 "$TMP/body")"
	fi
done

# ---- a slow client holds connections open and stalls mid-request; nothing waits for it
python3 - "$PORT" "$TMP/slow.ready" <<'EOF' &
import socket, sys, time
conns = []
for _ in range(12):  # more than the worker threads
    c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    c.sendall(b"GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
    conns.append(c)
open(sys.argv[2], "w").close()
time.sleep(20)
EOF
SLOW_PID=$!
for _ in $(seq 50); do
	[ -e "$TMP/slow.ready" ] && break
	sleep 0.1
done
check "slow clients connected" [ -e "$TMP/slow.ready" ]
read -r n1 _ <<<"$(sample_stats "$ID")"
slow_ok=1
for _ in 1 2 3; do
	t=$(curl -s -o /dev/null --max-time 5 -w '%{http_code} %{time_total}' "$BASE/healthz")
	if [ "${t%% *}" != 200 ] || [ "$(python3 -c "print(float('${t#* }') < 1.0)")" != True ]; then
		slow_ok=
		echo "  /healthz while stalled: $t"
	fi
	sleep 1
done
check "/healthz answers quickly while clients stall" [ -n "$slow_ok" ]
read -r n2 _ <<<"$(sample_stats "$ID")"
check "samples keep growing while clients stall ($n1 → $n2)" [ "$n2" -gt "$n1" ]
kill "$SLOW_PID" 2>/dev/null
wait "$SLOW_PID" 2>/dev/null
SLOW_PID=

check "daemon still running" kill -0 "$PID"
if [ "$failures" -gt 0 ]; then
	echo "--- daemon log"
	cat "$TMP/log"
	echo "$failures check(s) failed"
	exit 1
fi
echo "all API checks passed"
