#!/usr/bin/env bash
# The store under the real daemon (demo drives, 1 s polls):
#  1. kill -9 at random moments: the file stays sound and the daemon starts on it again;
#  2. a database locked by another process for ~5 s: /healthz keeps answering, and
#     the samples of those seconds reach the database afterwards (no gaps);
#  3. a full disk (a tiny tmpfs in a private mount namespace, when permitted): the
#     same, once space is freed.
# Env (from ctest): NVMOND_BIN. Exit 77 = skipped.
set -u

# Phase 3 re-runs this script inside its own mount namespace: see full_disk().
phase=${1:-all}

if [ -z "${NVMOND_BIN:-}" ] || [ ! -x "$NVMOND_BIN" ]; then
	echo "SKIP: NVMOND_BIN is not set to the nvmond binary"
	exit 77
fi
for tool in sqlite3 curl python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is not installed"
		exit 77
	fi
done

POLL_MS=1000
MAX_GAP_MS=2500 # two poll intervals, and some slack for a busy machine

tmp=$(mktemp -d /tmp/nvmond-store-robust.XXXXXX)
pid=
mnt=

cleanup()
{
	if [ -n "$pid" ]; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

fail()
{
	echo "FAIL: $*"
	if [ -f "$tmp/daemon.log" ]; then
		echo "--- daemon log (last 30 lines)"
		tail -n 30 "$tmp/daemon.log"
	fi
	exit 1
}

now_ms()
{
	date +%s%3N
}

free_port()
{
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_daemon DB: run nvmond on DB and wait until /healthz answers.
start_daemon()
{
	local db=$1 i
	port=$(free_port)
	cat >"$tmp/nvmond.conf" <<-EOF
		[daemon]
		listen = 127.0.0.1:$port
		database = $db
		poll_interval = 1s
		demo = yes
		# The disk sizes and sample counts below assume a database without
		# a demo year in it.
		demo_history = no
		log_level = debug

		[store]
		buffer_samples = 10000
		retry_max = 2s
	EOF
	"$NVMOND_BIN" --config "$tmp/nvmond.conf" --demo --db "$db" --listen "127.0.0.1:$port" \
		>>"$tmp/daemon.log" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		if curl -fsS -m 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || fail "nvmond exited while starting on $db"
		sleep 0.1
	done
	fail "nvmond did not answer /healthz within 10 s"
}

stop_daemon()
{
	local rc
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	pid=
	[ "$rc" -eq 0 ] || fail "nvmond exited with $rc on SIGTERM"
}

integrity_ok()
{
	local db=$1 out
	out=$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)
	[ "$out" = "ok" ] || fail "integrity_check of $db: $out"
	out=$(sqlite3 "$db" 'PRAGMA foreign_key_check' 2>&1)
	[ -z "$out" ] || fail "foreign_key_check of $db: $out"
}

count_samples()
{
	sqlite3 "$1" 'SELECT count(*) FROM samples'
}

# check_no_gaps DB FROM_MS TO_MS: every device has samples across [FROM, TO], none
# further apart than MAX_GAP_MS.
check_no_gaps()
{
	local db=$1 from=$2 to=$3 rows
	rows=$(sqlite3 -separator ' ' "$db" "
		SELECT d.id,
		       (SELECT min(ts_ms) FROM samples WHERE device_id = d.id AND ts_ms >= $from),
		       (SELECT max(ts_ms) FROM samples WHERE device_id = d.id AND ts_ms <= $to),
		       (SELECT max(gap) FROM (SELECT ts_ms - lag(ts_ms) OVER (ORDER BY ts_ms) AS gap
		                              FROM samples WHERE device_id = d.id
		                              AND ts_ms BETWEEN $from AND $to))
		FROM devices d ORDER BY d.id") || fail "query failed"
	[ -n "$rows" ] || fail "no devices in $db"
	while read -r id first last gap; do
		if [ -z "$first" ] || [ -z "$last" ] || [ -z "$gap" ]; then
			fail "device $id: no samples between $from and $to"
		fi
		[ $((first - from)) -le $MAX_GAP_MS ] ||
			fail "device $id: first sample $((first - from)) ms after the window opened"
		[ $((to - last)) -le $MAX_GAP_MS ] ||
			fail "device $id: last sample $((to - last)) ms before the window closed"
		[ "$gap" -le $MAX_GAP_MS ] || fail "device $id: a gap of $gap ms in the samples"
		echo "  device $id: samples from +$((first - from)) ms to -$((to - last)) ms, largest gap $gap ms"
	done <<<"$rows"
}

# healthz_for SECONDS: /healthz must answer every 0.5 s meanwhile.
healthz_for()
{
	local end=$(($(now_ms) + $1 * 1000)) n=0
	while [ "$(now_ms)" -lt "$end" ]; do
		curl -fsS -m 2 "http://127.0.0.1:$port/healthz" >/dev/null ||
			fail "/healthz did not answer"
		n=$((n + 1))
		sleep 0.5
	done
	echo "  /healthz answered $n times"
}

# wait_stored DB MS: wait (up to 30 s) until every device has a sample at or after MS.
wait_stored()
{
	local db=$1 ms=$2 i behind
	for i in $(seq 300); do
		behind=$(sqlite3 "$db" "SELECT count(*) FROM devices d WHERE NOT EXISTS
			(SELECT 1 FROM samples WHERE device_id = d.id AND ts_ms >= $ms)" 2>/dev/null)
		[ "$behind" = 0 ] && return 0
		sleep 0.1
	done
	fail "the buffered samples did not reach the database within 30 s"
}

# show_log_line WORD: the daemon's first log line about WORD (for the reader of the test).
show_log_line()
{
	local line
	line=$(grep -i -m1 "$1" "$tmp/daemon.log")
	if [ -n "$line" ]; then
		echo "  daemon: $line"
	else
		echo "  note: the daemon log does not mention \"$1\""
	fi
}

# ---- 1. kill -9 ------------------------------------------------------------

kill9()
{
	local db=$tmp/kill9.db before=0 after i t0
	echo "1. kill -9 at random moments"
	for i in $(seq 10); do
		start_daemon "$db"
		# 0.3 .. 3.3 s: before, during and between the writes of each poll.
		sleep "$(printf '%d.%03d' $((RANDOM % 3)) $((300 + RANDOM % 700)))"
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
		pid=
		integrity_ok "$db"
		after=$(count_samples "$db")
		[ "$after" -ge "$before" ] || fail "samples went from $before to $after"
		echo "  kill $i: integrity ok, $after samples"
		before=$after
	done
	[ "$before" -gt 0 ] || fail "no sample was ever stored"
	t0=$(now_ms)
	start_daemon "$db"
	wait_stored "$db" "$t0"
	stop_daemon
	integrity_ok "$db"
	[ "$(count_samples "$db")" -gt "$before" ] || fail "no samples after the last restart"
}

# ---- 2. a locked database ----------------------------------------------------

locked()
{
	local db=$tmp/locked.db t0 lock_from lock_to locker
	echo "2. database locked by another process for ~5 s"
	start_daemon "$db"
	t0=$(now_ms)
	wait_stored "$db" "$t0"

	rm -f "$tmp/locked"
	# BEGIN EXCLUSIVE, then tell us, then hold it for 5 s.
	sqlite3 "$db" >"$tmp/locker.out" 2>&1 <<-EOF &
		.timeout 5000
		BEGIN EXCLUSIVE;
		.shell touch $tmp/locked
		.shell sleep 5
		COMMIT;
	EOF
	locker=$!
	for _ in $(seq 100); do
		[ -f "$tmp/locked" ] && break
		sleep 0.05
	done
	[ -f "$tmp/locked" ] || fail "could not lock the database: $(cat "$tmp/locker.out")"
	lock_from=$(now_ms)
	healthz_for 4
	wait "$locker" || fail "the locking sqlite3 failed: $(cat "$tmp/locker.out")"
	lock_to=$(now_ms)
	show_log_line "database is locked"

	wait_stored "$db" "$((lock_to + POLL_MS))"
	stop_daemon
	integrity_ok "$db"
	check_no_gaps "$db" "$((lock_from - 2000))" "$((lock_to + POLL_MS))"
}

# ---- 3. a full disk --------------------------------------------------------

full_disk_inside()
{
	local db full_from full_to stuck_at now_at
	echo "3. full disk"
	mnt=$tmp/mnt
	mkdir -p "$mnt"
	if ! mount -t tmpfs -o size=4m tmpfs "$mnt" 2>/dev/null; then
		mnt=
		echo "SKIP: cannot mount a tmpfs (not root?): full-disk part skipped"
		exit 77
	fi
	db=$mnt/full.db
	start_daemon "$db"
	wait_stored "$db" "$(now_ms)"

	# Take all the space that is left.
	dd if=/dev/zero of="$mnt/filler" bs=4k status=none 2>/dev/null
	full_from=$(now_ms)
	stuck_at=$(sqlite3 "$db" 'SELECT max(ts_ms) FROM samples')
	healthz_for 5
	now_at=$(sqlite3 "$db" 'SELECT max(ts_ms) FROM samples')
	# Each write fails while the disk is full: at most the one in flight got through.
	[ $((now_at - stuck_at)) -le $MAX_GAP_MS ] ||
		fail "samples kept being stored on a full disk ($stuck_at -> $now_at): the test did not fill it"
	kill -0 "$pid" || fail "nvmond died on a full disk"
	show_log_line "disk is full"

	rm -f "$mnt/filler"
	full_to=$(now_ms)
	wait_stored "$db" "$((full_to + POLL_MS))"
	stop_daemon
	integrity_ok "$db"
	check_no_gaps "$db" "$((full_from - 2000))" "$((full_to + POLL_MS))"
}

full_disk()
{
	local rc
	# A private mount namespace: the tmpfs cannot outlive the test or leak to the host.
	if ! command -v unshare >/dev/null || ! unshare --mount --propagation private true 2>/dev/null; then
		echo "SKIP: no private mount namespace (unshare): full-disk part skipped"
		return 77
	fi
	unshare --mount --propagation private bash "$0" full-disk
	rc=$?
	return $rc
}

case $phase in
full-disk)
	full_disk_inside
	exit 0
	;;
all)
	kill9
	locked
	full_disk
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || exit $rc
	echo "PASS"
	exit 0
	;;
*)
	echo "usage: $0 [all|full-disk]" >&2
	exit 2
	;;
esac
