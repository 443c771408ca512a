#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A bad configuration stops the daemon with exit status 2 and "FILE:LINE: message" on
# stderr; the shipped sample config (systemd/nvmond.conf) starts it, and values from a
# config file take effect.
set -u

: "${NVMOND_BIN:?NVMOND_BIN not set}" "${NVMOND_SRC:?NVMOND_SRC not set}"
for tool in curl python3 timeout; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool not installed"
		exit 77
	fi
done

tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# expect_usage_error NAME EXPECTED_STDERR_SUBSTRING ARGS...
expect_usage_error() {
	local name=$1 want=$2 rc=0
	shift 2
	# timeout: a daemon that wrongly starts must not hang the suite.
	timeout 20 "$NVMOND_BIN" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	[ "$rc" -eq 2 ] || fail "$name: exit status $rc, want 2; stderr: $(cat "$tmp/err")"
	grep -qF -- "$want" "$tmp/err" ||
		fail "$name: stderr does not contain '$want'; stderr: $(cat "$tmp/err")"
	echo "ok: $name"
}

port=$(free_port)
common=(--db "$tmp/x.db" --listen "127.0.0.1:$port")

f=$tmp/unknown-key.conf
printf '# typo below\n[daemon]\nlisten = 127.0.0.1:9470\npol_interval = 5s\n' >"$f"
expect_usage_error "unknown key" "$f:4: unknown key 'pol_interval' in section [daemon]" \
	--config "$f" "${common[@]}"

f=$tmp/bad-value.conf
printf '[daemon]\n\npoll_interval = fast\n' >"$f"
expect_usage_error "bad value" "$f:3: poll_interval: invalid duration 'fast'" \
	--config "$f" "${common[@]}"

f=$tmp/bad-value-crlf.conf
printf '[http]\r\n; comment\r\nthreads = 0\r\n' >"$f"
expect_usage_error "bad value, CRLF" "$f:3: threads: 0 is out of range" \
	--config "$f" "${common[@]}"

f=$tmp/unknown-section.conf
printf '[daemon]\n[alarms]\n' >"$f"
expect_usage_error "unknown section" "$f:2: unknown section [alarms]" --config "$f" "${common[@]}"

f=$tmp/outside.conf
printf 'listen = :1\n' >"$f"
expect_usage_error "key outside a section" "$f:1: key 'listen' outside any section" \
	--config "$f" "${common[@]}"

# A NUL byte used to cut its line silently (the rest of "poll_interval = 5s" was lost).
f=$tmp/nul.conf
printf '[daemon]\npoll_interval = 5s\000; junk\n' >"$f"
expect_usage_error "NUL byte" "$f:2: NUL byte in the line" --config "$f" "${common[@]}"

# Schedules are checked as the file is read: FILE:LINE, and `status` refuses them too
# (it used to pass them, and the daemon stopped later without the line).
f=$tmp/bad-schedule.conf
printf '[daemon]\ndemo = yes\n[device "DEMO980PRO00002"]\n\nprobe_schedule = daily 25:00 seq1m-q1\n' >"$f"
expect_usage_error "bad probe_schedule" \
	"$f:5: [device \"DEMO980PRO00002\"] probe_schedule:" --config "$f" "${common[@]}"
expect_usage_error "bad probe_schedule, status" \
	"$f:5: [device \"DEMO980PRO00002\"] probe_schedule:" status --config "$f" "${common[@]}"

# A web_root that does not exist is a mistake in the file (2), not a runtime failure (1).
f=$tmp/web-root.conf
printf '[daemon]\nweb_root = %s\n' "$tmp/no-such-dir" >"$f"
expect_usage_error "missing web_root" "$f:2: [daemon] web_root: $tmp/no-such-dir: No such file" \
	--config "$f" "${common[@]}"

# [http] allowed_hosts and tls_priorities are checked as the file is read (issue 23).
f=$tmp/allowed-hosts.conf
printf '[http]\nallowed_hosts = nvmond.example, [::1]\n' >"$f"
expect_usage_error "bad allowed_hosts" \
	"$f:2: [http] allowed_hosts: '[::1]' is not a host name" --config "$f" "${common[@]}"
f=$tmp/tls-priorities.conf
printf '[http]\n\ntls_priorities = NORMAL:-VERS-ALL:+VERS-TLS1.2:%%NOPE\n' >"$f"
expect_usage_error "bad tls_priorities" \
	"$f:3: [http] tls_priorities: not a GnuTLS priority string: '%NOPE' is not understood" \
	--config "$f" "${common[@]}"

expect_usage_error "missing file" "$tmp/missing.conf" --config "$tmp/missing.conf" "${common[@]}"

# Files nvmond trusts (issue 23 §8; docs/security.md#files-nvmond-trusts): a configuration
# or a hook others can write, a secret others can read, is refused (exit 2) with what to do.
hook=$tmp/hook.sh
printf '#!/bin/sh
exit 0
' >"$hook"
chmod 755 "$hook"
f=$tmp/open.conf
printf '[daemon]
demo = yes
[alerts]
exec = %s
' "$hook" >"$f"
chmod 666 "$f"
expect_usage_error "configuration anyone can write" \
	"$f is writable by anyone (mode 0666): chmod o-w $f" --config "$f" "${common[@]}"
chmod 664 "$f"
expect_usage_error "configuration its group can write" \
	"$f is writable by its group (mode 0664): chmod g-w $f" --config "$f" "${common[@]}"
expect_usage_error "configuration its group can write, status" \
	"$f is writable by its group (mode 0664)" status --config "$f" "${common[@]}"
chmod 644 "$f"
mkdir -m 777 "$tmp/open-dir"
cp "$f" "$tmp/open-dir/nvmond.conf"
expect_usage_error "configuration in a directory anyone can write" \
	"$tmp/open-dir/nvmond.conf: its directory $tmp/open-dir is writable by anyone (mode 0777)" \
	--config "$tmp/open-dir/nvmond.conf" "${common[@]}"
if [ "$(id -u)" = 0 ]; then
	chown 4242 "$f"
	expect_usage_error "configuration of another user" \
		"$f is owned by uid 4242, neither root nor the user nvmond runs as (uid 0)" \
		--config "$f" "${common[@]}"
	chown 0 "$f"
else
	echo "NOTE: not root: a configuration of another user not checked"
fi
chmod 777 "$hook"
expect_usage_error "hook anyone can write" \
	"$f:4: [alerts] exec: $hook is writable by anyone (mode 0777): chmod o-w $hook" \
	--config "$f" "${common[@]}"
chmod 755 "$hook"
printf 'pw\n' >"$tmp/smtp.pw"
chmod 644 "$tmp/smtp.pw"
printf 'https://hooks.slack.com/services/T0/B0/x\n' >"$tmp/slack.url"
chmod 666 "$tmp/slack.url"
f=$tmp/secrets.conf
printf '[daemon]\ndemo = yes\ndemo_history = no\n[sink "mail"]\ntype = email\nurl = smtps://mail.example\nfrom = a@b.example\nto = c@d.example\nusername = u\npassword_file = %s\n' \
	"$tmp/smtp.pw" >"$f"
expect_usage_error "password_file anyone can read" \
	"$f:10: password_file: $tmp/smtp.pw holds a secret and anyone can read it (mode 0644): chmod o-rwx $tmp/smtp.pw" \
	--config "$f" "${common[@]}"
printf '[daemon]\ndemo = yes\ndemo_history = no\n[sink "s"]\ntype = slack\nurl_file = %s\n' "$tmp/slack.url" >"$f"
expect_usage_error "url_file anyone can write" \
	"$f:6: url_file: $tmp/slack.url is writable by anyone (mode 0666)" --config "$f" "${common[@]}"

# Every value error names FILE:LINE, and `status` refuses what the daemon refuses
# (issue 28 §4: these said no line, and status took a bad recovery_intervals).
f=$tmp/recovery.conf
printf '[daemon]\ndemo = yes\n[probes]\nrecovery_intervals = 10m,5m\n' >"$f"
expect_usage_error "recovery_intervals not growing" \
	"$f:4: [probes] recovery_intervals: \"5m\" is not after the interval before it" \
	--config "$f" "${common[@]}"
expect_usage_error "recovery_intervals not growing, status" \
	"$f:4: [probes] recovery_intervals: \"5m\" is not after the interval before it" \
	status --config "$f" "${common[@]}"
printf '[daemon]\ndemo = yes\n[risk]\ndisable = young_drive_errors, bogus\n' >"$f"
expect_usage_error "an unknown risk rule" \
	"$f:4: [risk] disable: no rule 'bogus' (docs/health.md)" --config "$f" "${common[@]}"
printf '#!/bin/sh\nexit 0\n' >"$tmp/not-exec.sh"
chmod 644 "$tmp/not-exec.sh"
printf '[daemon]\ndemo = yes\ndemo_history = no\n[alerts]\n\nexec = %s\n' "$tmp/not-exec.sh" >"$f"
expect_usage_error "exec not executable" "$f:6: [alerts] exec: $tmp/not-exec.sh:" \
	--config "$f" "${common[@]}"
printf '[daemon]\ndemo = yes\ndemo_history = no\n[alerts]\nwebhook = ftp://example.org/x\n' >"$f"
expect_usage_error "webhook not http" "$f:5: [alerts] webhook: not an http:// or https:// URL" \
	--config "$f" "${common[@]}"
printf '[daemon]\ndemo = yes\n[http]\nmetrics_token_file = %s\n' "$tmp/no-such.token" >"$f"
expect_usage_error "metrics_token_file missing" \
	"$f:4: [http] metrics_token_file: $tmp/no-such.token: No such file or directory" \
	--config "$f" "${common[@]}"
expect_usage_error "metrics_token_file missing, status" \
	"$f:4: [http] metrics_token_file: $tmp/no-such.token: No such file or directory" \
	status --config "$f" "${common[@]}"
: >"$tmp/empty.token"
chmod 600 "$tmp/empty.token"
printf '[daemon]\ndemo = yes\n[http]\nmetrics_token_file = %s\n' "$tmp/empty.token" >"$f"
expect_usage_error "metrics_token_file empty" \
	"$f:4: [http] metrics_token_file: $tmp/empty.token: no token in its first line" \
	--config "$f" "${common[@]}"
printf '[daemon]\ndemo = yes\n[http]\n\nauth = all\n' >"$f"
expect_usage_error "auth = all without a token" "$f:5: [http] auth = all needs [http] token" \
	--config "$f" "${common[@]}"
expect_usage_error "auth = all without a token, status" \
	"$f:5: [http] auth = all needs [http] token" status --config "$f" "${common[@]}"

# A key set twice: the last one wins, also over a bad value (issue 28 §3: "poll_interval =
# 50ms" then "= 10s" stopped at the first line); a bad value nothing replaces still stops it.
f=$tmp/twice.conf
printf '[daemon]\ndemo = yes\npoll_interval = 50ms\npoll_interval = 10s\n' >"$f"
rc=0
timeout 20 "$NVMOND_BIN" status --json --config "$f" "${common[@]}" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 0 ] || fail "a bad value set again later: exit $rc: $(cat "$tmp/err")"
echo "ok: a key set twice, the bad value first: the last one wins"
printf '[daemon]\ndemo = yes\npoll_interval = 10s\npoll_interval = 50ms\n' >"$f"
expect_usage_error "a key set twice, the bad value last" \
	"$f:4: poll_interval: 50ms is out of range (100ms .. 1d)" --config "$f" "${common[@]}"

# Lines of 199 characters are read whole; 200 are too long (issue 28 §5: 198 and 199 were
# taken while the docs said 197).
f=$tmp/long.conf
line199=$(printf 'lock_dir = /%0187d' 0)
[ "${#line199}" = 199 ] || fail "test: the line has ${#line199} characters"
printf '[daemon]\ndemo = yes\n[probes]\n%s\n' "$line199" >"$f"
rc=0
timeout 20 "$NVMOND_BIN" status --json --config "$f" "${common[@]}" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 0 ] || fail "a line of 199 characters: exit $rc: $(cat "$tmp/err")"
printf '[daemon]\ndemo = yes\n[probes]\n%s0\n' "$line199" >"$f"
expect_usage_error "a line of 200 characters" "$f:4: line too long (max 199 characters)" \
	--config "$f" "${common[@]}"

# [fleet] (docs/fleet.md): a query_url that is no base URL is FILE:LINE; a secret that
# cannot be read, or keys that go together alone, stop the start with the key named.
f=$tmp/fleet-url.conf
printf '[fleet]\n\nquery_url = vm:8428/api/v1/query?x=1\n' >"$f"
expect_usage_error "[fleet] query_url without a scheme" "$f:3: [fleet] query_url: 'vm:8428/api/v1/query?x=1': use http://HOST:PORT" \
	--config "$f" "${common[@]}"
printf '[fleet]\nquery_url = http://vm:8428/api/v1/query?x=1\n' >"$f"
expect_usage_error "[fleet] query_url with a query" "$f:2: [fleet] query_url: 'http://vm:8428/api/v1/query?x=1': the base URL of the query API only" \
	--config "$f" "${common[@]}"
printf '[fleet]\nquery_url = http://127.0.0.1:1\nbearer_token_file = %s\n' "$tmp/no-token" >"$f"
expect_usage_error "[fleet] bearer_token_file missing" "[fleet] bearer_token_file $tmp/no-token: No such file" \
	--config "$f" "${common[@]}"
# A secret of the fleet view is judged as every other secret (secret_file.h, security.md).
printf 'fleet-token\n' >"$tmp/fleet.token"
chmod 644 "$tmp/fleet.token"
printf '[fleet]\nquery_url = http://127.0.0.1:1\nbearer_token_file = %s\n' "$tmp/fleet.token" >"$f"
expect_usage_error "[fleet] bearer_token_file anyone can read" \
	"[fleet] bearer_token_file $tmp/fleet.token holds a secret and anyone can read it (mode 0644): chmod o-rwx $tmp/fleet.token" \
	--config "$f" "${common[@]}"
grep -q fleet-token "$tmp/err" && fail "the fleet token reached a message: $(cat "$tmp/err")"
printf '[fleet]\nquery_url = http://127.0.0.1:1\nbasic_auth_user = nvmond\n' >"$f"
expect_usage_error "[fleet] basic_auth_user alone" "[fleet] basic_auth_user and basic_auth_password_file go together" \
	--config "$f" "${common[@]}"

# wait_healthz PORT: the daemon ($pid) answers /healthz within 15 s.
wait_healthz() {
	local _
	for _ in $(seq 1 150); do
		kill -0 "$pid" 2>/dev/null ||
			fail "daemon exited early; stderr: $(cat "$tmp/daemon.err")"
		if curl -fsS --max-time 2 "http://127.0.0.1:$1/healthz" >"$tmp/healthz" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	fail "no /healthz on port $1 after 15 s; stderr: $(cat "$tmp/daemon.err")"
}

stop_daemon() {
	kill "$pid"
	wait "$pid" 2>/dev/null
	pid=
}

# The shipped sample config parses and the daemon serves with it.
"$NVMOND_BIN" --config "$NVMOND_SRC/systemd/nvmond.conf" --db "$tmp/sample.db" \
	--listen "127.0.0.1:$port" --demo >"$tmp/daemon.out" 2>"$tmp/daemon.err" </dev/null &
pid=$!
wait_healthz "$port"
stop_daemon
echo "ok: shipped systemd/nvmond.conf"

# Values from the file are used: listen and database come only from the config here.
port2=$(free_port)
f=$tmp/custom.conf
cat >"$f" <<EOF
; set by test_config_errors.sh
[daemon]
listen = 127.0.0.1:$port2   ; inline comment
database = $tmp/custom.db
demo = yes
poll_interval = 500ms
log_level = debug
[http]
threads = 2
EOF
"$NVMOND_BIN" --config "$f" >"$tmp/daemon.out" 2>"$tmp/daemon.err" </dev/null &
pid=$!
wait_healthz "$port2"
[ -f "$tmp/custom.db" ] || fail "database from the config file was not created: $tmp/custom.db"
echo "ok: listen and database taken from the config file"

# A reload applies whole or not at all: a configuration anyone can write, then a hook anyone
# can write, are refused with the reason; the daemon runs on with the configuration it had.
# wait_err PATTERN: a line of the daemon's stderr matches PATTERN (grep -F) within 10 s.
wait_err() {
	local _
	for _ in $(seq 1 100); do
		grep -qF -- "$1" "$tmp/daemon.err" && return 0
		sleep 0.1
	done
	fail "no '$1' in the daemon's stderr: $(tail -5 "$tmp/daemon.err")"
}
sed -i -e 's/^poll_interval = 500ms/poll_interval = 2s/' "$f"
chmod 666 "$f"
kill -HUP "$pid"
wait_err "$f is writable by anyone (mode 0666)"
wait_err "configuration not reloaded; keeping the running one"
chmod 644 "$f"
printf '[alerts]\nexec = %s\n' "$hook" >>"$f"
chmod 777 "$hook"
kill -HUP "$pid"
wait_err "[alerts] exec: $hook is writable by anyone (mode 0777): chmod o-w $hook"
n=$(grep -c "configuration not reloaded" "$tmp/daemon.err")
[ "$n" = 2 ] || fail "two reloads refused, the log says $n: $(tail -5 "$tmp/daemon.err")"
! grep -q "configuration reloaded" "$tmp/daemon.err" ||
	fail "a refused reload applied: $(grep "configuration reloaded" "$tmp/daemon.err")"
curl -fsS --max-time 2 "http://127.0.0.1:$port2/healthz" >/dev/null || fail "the daemon stopped after refused reloads"
chmod 755 "$hook"
kill -HUP "$pid"
wait_err "configuration reloaded: poll every 2000 ms"
# A key that waits for the next start is named when a reload changes it (issue 28 §10:
# demo_drives was, under a message naming "demo", and not in the docs' list).
printf '[daemon]\ndemo_drives = 4\n[http]\nthreads = 3\n' >>"$f"
kill -HUP "$pid"
wait_err "[daemon] demo_drives, [http] threads: these changes take effect at the next start"
wait_err "configuration reloaded: poll every 2000 ms"
stop_daemon
echo "ok: reloads with a configuration or a hook anyone can write refused, the running configuration kept"
