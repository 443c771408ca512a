# Shared helpers for the integration tests (sourced).
: "${NVMOND_BIN:?run through ctest, or set NVMOND_BIN}"
TMP=$(mktemp -d /tmp/nvmond-test.XXXXXX)
DAEMON_PID=
DAEMON_LOG=$TMP/daemon.log
LAST_STDERR=$TMP/last.stderr
cleanup() {
	[ -n "$DAEMON_PID" ] && kill -9 "$DAEMON_PID" 2>/dev/null || true
	# NVMOND_TEST_KEEP=DIR: keep what the test made (logs, what listeners received) there.
	[ -n "${NVMOND_TEST_KEEP:-}" ] && mkdir -p "$NVMOND_TEST_KEEP" &&
		cp -r "$TMP" "$NVMOND_TEST_KEEP/$(basename "$0" .sh)" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	[ -f "$DAEMON_LOG" ] && { echo "--- daemon log (tail):" >&2; tail -n 30 "$DAEMON_LOG" >&2; }
	exit 1
}
pass() { echo "PASS: $(basename "$0")"; exit 0; }

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# expect_exit CODE CMD...: run, keep stderr in $LAST_STDERR, check the exit status.
expect_exit() {
	local want=$1 rc=0
	shift
	"$@" > /dev/null 2> "$LAST_STDERR" || rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want: $(head -c 400 "$LAST_STDERR")"
}

# start_daemon ARGS...: start on a free port, wait until /healthz answers
# (NVMOND_START_TIMEOUT seconds, 10 by default; tests/valgrind.sh needs more).
start_daemon() {
	local limit=${NVMOND_START_TIMEOUT:-10}
	PORT=$(free_port)
	"$NVMOND_BIN" --listen "127.0.0.1:$PORT" "$@" >> "$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq $((limit * 10))); do
		curl -fsS "http://127.0.0.1:$PORT/healthz" > /dev/null 2>&1 && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || fail "daemon exited at start"
		sleep 0.1
	done
	fail "daemon did not answer /healthz within $limit s"
}

stop_daemon() {
	local rc=0
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=
	[ "$rc" = 0 ] || fail "daemon exited $rc on SIGTERM"
}

http_get() {
	curl -fsS --max-time 10 "http://127.0.0.1:$PORT$1" || fail "GET $1"
}

# jq_py JSON 'python using j': a tiny jq with python3.
jq_py() {
	python3 -c "import json,sys; j=json.loads(sys.argv[1]); $2" "$1"
}

# wait_for SECONDS CMD...: run CMD every 0.1 s until it succeeds (0) or the time is up (1).
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# polls_total: health logs the daemon has read so far, over all drives (GET
# /metrics, which needs no token).
polls_total() {
	curl -fsS --max-time 10 "http://127.0.0.1:$PORT/metrics" |
		awk '$1 == "nvmond_polls_total" { print $2; found = 1 } END { exit !found }'
}

# wait_polls N [SECONDS]: wait until the daemon has read N more health logs
# (counted over all drives; each is evaluated by the detectors and alert rules
# before the next poll). Use it instead of a sleep before asserting that more
# polls changed nothing.
wait_polls() {
	local want limit=${2:-30} i now
	want=$(($(polls_total || fail "no nvmond_polls_total in /metrics") + $1))
	for i in $(seq $((limit * 10))); do
		now=$(polls_total) && [ "$now" -ge "$want" ] && return 0
		sleep 0.1
	done
	fail "the daemon did not poll $1 more times within ${limit}s (at ${now:-?}, want $want)"
}

# wait_log_for PATTERN [SECONDS]: wait until a daemon log line matches PATTERN
# (grep -E), by default up to 30 s.
wait_log_for() {
	local limit=${2:-30} i
	for i in $(seq $((limit * 10))); do
		grep -Eq -- "$1" "$DAEMON_LOG" && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || fail "daemon exited while waiting for '$1'"
		sleep 0.1
	done
	fail "log line '$1' did not appear within ${limit}s"
}

wait_log() {
	for _ in $(seq 50); do
		grep -q "$1" "$DAEMON_LOG" && return 0
		sleep 0.1
	done
	fail "log line '$1' did not appear"
}

# demo_id NAME: the id GET /api/v1/devices gives the drive named NAME ("demo1").
demo_id() {
	jq_py "$(http_get /api/v1/devices)" "print([d['id'] for d in j['devices'] if d['name']=='$1'][0])"
}

# api_post PATH BODY: POST BODY (JSON) with "Authorization: Bearer $TOKEN";
# prints "STATUS BODY".
api_post() {
	curl -sS --max-time 10 -o "$TMP/post.out" -w '%{http_code}' \
		-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
		-d "$2" "http://127.0.0.1:$PORT$1"
	echo " $(cat "$TMP/post.out")"
}

# wait_probe ID 'python condition on j' SECONDS: GET /api/v1/probes/ID every
# 0.1 s until the condition holds on its detail (printed), else fail.
wait_probe() {
	local j
	for _ in $(seq $(($3 * 10))); do
		j=$(http_get "/api/v1/probes/$1")
		jq_py "$j" "sys.exit(0 if ($2) else 1)" && { echo "$j"; return 0; }
		sleep 0.1
	done
	fail "probe $1: '$2' not seen within $3 s: $j"
}

# minute_soon LEAD: schedules name whole minutes of local time, and the daemon
# looks at them every 15 s from a second after its start. Rather than wait up
# to 80 s for the next whole minute, the daemon runs in a time zone a few
# seconds off UTC (POSIX TZ allows seconds, tm_gmtoff has them), chosen so that
# a local minute begins LEAD s from now (14: after the first look, the daemon
# being up within 10 s, before the second). Exports TZ; sets AT to that minute
# (HH:MM in that zone).
minute_soon() {
	local off
	off=$(python3 -c "import time; print(int((60 - $1 - time.time() % 60) // 1) % 60)")
	export TZ="NVT-0:00:$(printf %02d "$off")"
	AT=$(python3 -c "import time; t = time.time() + $1 + 1; print(time.strftime('%H:%M', time.gmtime(t + time.localtime(t).tm_gmtoff)))")
}


# need_tools TOOL...: skip the test (77) unless each TOOL is installed.
need_tools() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
	done
}

# probe_conf NAME: write $TMP/nvmond.conf for a probe test: [http] token =
# $TOKEN (set here, NAME-token-RANDOM, for api_post), [probes] lock_dir in $TMP
# (the drives' probe locks apart from any other nvmond on this machine), then
# standard input, whose first lines are more [probes] keys.
probe_conf() {
	TOKEN=$1-token-$RANDOM
	{
		printf '[http]\ntoken = %s\n[probes]\nlock_dir = %s/locks\n' "$TOKEN" "$TMP"
		cat
	} > "$TMP/nvmond.conf"
}

# wait_cool ID: until drive ID's latest sample is 10 °C or more under its WCTEMP.
# For a run that must not meet the probe's temperature gate: demo0 (the 950 PRO)
# peaks at its WCTEMP once every five minutes, and from 10 °C under it takes more
# than 30 s to get there, where a short run takes a few. At most one cycle (300 s).
wait_cool() {
	local ok
	for _ in $(seq 150); do
		ok=$(jq_py "$(http_get "/api/v1/devices/$1")" "
l = j.get('latest') or {}
print(int('temperature_c' in l and l['temperature_c'] <= j['wctemp_c'] - 10))")
		[ "$ok" = 1 ] && return 0
		sleep 2
	done
	fail "drive $1 never came 10 °C under its WCTEMP in 300 s"
}

# probe_start [ARG...]: (re)start the demo daemon on $TMP/nvmond.conf and
# DB=$TMP/nvmond.db with ARGs; sets DB and URL.
probe_start() {
	DB=$TMP/nvmond.db
	start_daemon --demo -c "$TMP/nvmond.conf" --db "$DB" "$@"
	URL=http://127.0.0.1:$PORT
}
