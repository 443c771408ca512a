#!/usr/bin/env bash
# The database file under the running daemon, and a read-only file system at start
# (issue 15 §6; docs/reliability.md says what happens on each):
#  1. the file deleted: the daemon logs it, restarts itself in place (same pid),
#     answers HTTP again and stores new samples in a new, migrated file;
#  2. the file replaced by another database (a restored backup moved over it): the
#     same, and the new samples go to that file;
#  3. a read-only file system at start (a tmpfs mounted ro in a private mount
#     namespace; needs root, else skipped with the reason): the daemon logs why and
#     waits, /healthz answers 503 with the reason, SIGTERM stops it at once (exit 0);
#     once the file system is remounted rw it opens the database and runs;
#  4. the disk full during rollups (a tmpfs filled by a file to the last 96 KiB,
#     and 6 hours of samples to roll up): the failed rollup and sample writes are
#     logged, polling goes on (samples held in memory); once the file is removed
#     the held samples are stored without gaps and the rollups catch up;
#     integrity_check ok.
# Env (ctest): NVMOND_BIN. Exit 77 = skipped.
set -u
phase=${1:-all}
for tool in curl python3 sqlite3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"

cat >"$TMP/nvmond.conf" <<CONF
[daemon]
poll_interval = 200ms
demo_history = no
CONF

samples() { sqlite3 "$1" 'SELECT count(*) FROM samples' 2>/dev/null || echo 0; }
has_samples_over() { [ "$(samples "$1")" -gt "$2" ]; }
healthz() { curl -fsS -m 1 "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; }

file_faults() {
	local db=$TMP/f.db pid n0
	start_daemon --demo -c "$TMP/nvmond.conf" --db "$db"
	pid=$DAEMON_PID
	wait_for 10 has_samples_over "$db" 0 || fail "no samples stored"

	echo "1. the database file deleted"
	rm -f "$db"
	wait_log_for 'database .* was deleted underneath the daemon' 10
	wait_for 10 healthz || fail "/healthz did not answer after the restart"
	[ -d "/proc/$pid" ] || fail "the daemon's pid $pid is gone"
	wait_for 10 has_samples_over "$db" 0 || fail "no samples in the new database file"
	echo "  restarted in place (pid $pid), $(samples "$db") samples in a new file"

	echo "2. the database file replaced by another one"
	sqlite3 "$db" ".backup $TMP/restored.db" || fail "sqlite3 .backup"
	n0=$(samples "$TMP/restored.db")
	: >"$DAEMON_LOG"
	mv "$TMP/restored.db" "$db"
	wait_log_for 'database .* was replaced underneath the daemon' 10
	wait_for 10 healthz || fail "/healthz did not answer after the restart"
	[ -d "/proc/$pid" ] || fail "the daemon's pid $pid is gone"
	wait_for 10 has_samples_over "$db" "$n0" || fail "no new samples in the file moved in"
	echo "  restarted in place, the file moved in grows ($n0 -> $(samples "$db") samples)"
	stop_daemon
	[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
}

# The answer of /healthz: its status code (the body in $TMP/healthz.out).
healthz_code() {
	curl -s -m 1 -o "$TMP/healthz.out" -w '%{http_code}' "http://127.0.0.1:$PORT/healthz" 2>/dev/null
}
healthz_503() { [ "$(healthz_code)" = 503 ]; }
now_ms() { date +%s%3N; }

# start_waiting DB: start the daemon (on a database it cannot open yet) on a free port.
start_waiting() {
	PORT=$(free_port)
	"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$1" --listen "127.0.0.1:$PORT" \
		>>"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
}

read_only_inside() {
	local mnt=$TMP/ro rc t0
	echo "3. a read-only file system at start"
	mkdir -p "$mnt"
	mount -t tmpfs -o ro,size=4m tmpfs "$mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
	MOUNTS="$MOUNTS $mnt"
	start_waiting "$mnt/nvmond.db"
	wait_log_for 'cannot open the database \(Read-only file system\): .*/nvmond.db: the file system is read-only' 10
	echo "  $(grep -m1 -o 'cannot open the database.*' "$DAEMON_LOG")"
	wait_for 10 healthz_503 || fail "/healthz did not answer 503 while waiting ($(healthz_code))"
	grep -q 'read-only' "$TMP/healthz.out" || fail "/healthz does not say why: $(cat "$TMP/healthz.out")"
	echo "  /healthz: 503 $(cat "$TMP/healthz.out")"
	t0=$(now_ms)
	kill -TERM "$DAEMON_PID"
	rc=0
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=
	[ "$rc" = 0 ] || fail "exit $rc on SIGTERM while waiting for the database"
	echo "  SIGTERM while waiting: exit 0 after $(($(now_ms) - t0)) ms"

	start_waiting "$mnt/nvmond.db"
	wait_for 10 healthz_503 || fail "/healthz did not answer 503 while waiting ($(healthz_code))"
	[ -d "/proc/$DAEMON_PID" ] || fail "the daemon is gone"
	t0=$(now_ms)
	mount -o remount,rw "$mnt" || fail "remount rw"
	wait_log_for "database $mnt/nvmond.db open after waiting" 20
	wait_for 10 healthz || fail "/healthz did not answer once the database opened"
	wait_for 10 has_samples_over "$mnt/nvmond.db" 0 || fail "no samples once writable"
	echo "  writable again: open and storing samples $(($(now_ms) - t0)) ms later (retry after 5 s)"
	stop_daemon
}

# The buffered samples of every drive reach the database: no gap over 2 s in [FROM, TO].
samples_without_gaps() {
	local rows id n gap
	rows=$(sqlite3 -separator ' ' "$1" "SELECT d.id,
		(SELECT count(*) FROM samples WHERE device_id = d.id AND ts_ms BETWEEN $2 AND $3),
		(SELECT max(gap) FROM (SELECT ts_ms - lag(ts_ms) OVER (ORDER BY ts_ms) AS gap
		 FROM samples WHERE device_id = d.id AND ts_ms BETWEEN $2 AND $3))
		FROM devices d") || fail "query failed"
	while read -r id n gap; do
		[ "$n" -gt 0 ] && [ "${gap:-0}" -le 2000 ] ||
			fail "device $id: $n samples, largest gap ${gap:-?} ms while the disk was full"
		echo "  device $id: $n samples stored from while the disk was full, largest gap $gap ms"
	done <<<"$rows"
}

rollups_1m() { sqlite3 "$1" 'SELECT count(*) FROM rollups WHERE res_s = 60' 2>/dev/null || echo 0; }
rollups_caught_up() {
	[ "$(sqlite3 "$1" 'SELECT done_ms FROM rollup_state WHERE res_s = 60' 2>/dev/null || echo 0)" \
		-ge "$2" ]
}

rollup_full_inside() {
	local mnt=$TMP/full db avail t_full t_free n
	echo "4. the disk full during rollups"
	mkdir -p "$mnt"
	mount -t tmpfs -o size=8m tmpfs "$mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
	MOUNTS="$MOUNTS $mnt"
	db=$mnt/r.db
	cat >"$TMP/full.conf" <<-CONF
		[daemon]
		poll_interval = 200ms
		demo_history = no
		[store]
		retry_max = 1s
	CONF
	start_daemon --demo -c "$TMP/full.conf" --db "$db"
	wait_for 10 has_samples_over "$db" 0 || fail "no samples stored"
	stop_daemon
	# Work for the rollups: 6 hours of samples every 10 s, ending an hour ago, none rolled up.
	python3 - "$db" <<-'PY' || fail "cannot add the backlog"
		import sqlite3, sys, time
		db = sqlite3.connect(sys.argv[1])
		cols = [r[1] for r in db.execute("PRAGMA table_info(samples)")]
		end = int(time.time() * 1000) - 3600 * 1000
		for (dev,) in db.execute("SELECT id FROM devices").fetchall():
		    row = db.execute("SELECT * FROM samples WHERE device_id = ? ORDER BY ts_ms DESC"
		                     " LIMIT 1", (dev,)).fetchone()
		    i = cols.index("ts_ms")
		    rows = [row[:i] + (end - k * 10000,) + row[i + 1:] for k in range(6 * 360)]
		    db.executemany("INSERT INTO samples VALUES (%s)" % ",".join("?" * len(cols)), rows)
		db.execute("DELETE FROM rollup_state")
		db.commit()
	PY
	# All the space but 96 KiB: enough to open the database, not for a rollup step.
	avail=$(df --output=avail -B1 "$mnt" | tail -n 1)
	head -c $((avail - 96 * 1024)) /dev/zero >"$mnt/filler" 2>/dev/null
	: >"$DAEMON_LOG"
	start_daemon --demo -c "$TMP/full.conf" --db "$db"
	wait_log_for 'rollups: .*retrying in 5 s' 10
	echo "  $(grep -m1 -o 'rollups: .*' "$DAEMON_LOG")"
	wait_log_for 'storing samples failed' 10
	t_full=$(now_ms)
	echo "  $(grep -m1 -o 'storing samples failed.*' "$DAEMON_LOG")"
	wait_polls 20 10
	healthz || fail "/healthz did not answer on a full disk"
	[ "$(rollups_1m "$db")" = 0 ] || fail "rollups were stored on a full disk: the test did not fill it"
	t_free=$(now_ms)
	rm -f "$mnt/filler"
	wait_log_for 'storing samples works again' 10
	wait_log_for 'rollups: building again' 15
	wait_for 10 rollups_caught_up "$db" $((t_free - 6 * 60 * 1000)) ||
		fail "the rollups did not catch up once space was freed"
	echo "  space freed: samples and rollups stored again within $(($(now_ms) - t_free)) ms," \
		"$(rollups_1m "$db") 1-minute rollups"
	stop_daemon
	samples_without_gaps "$db" "$t_full" "$t_free"
	n=$(sqlite3 "$db" 'SELECT count(*) FROM devices')
	[ "$(rollups_1m "$db")" -ge $((n * 360)) ] ||
		fail "$(rollups_1m "$db") 1-minute rollups, expected 6 hours of $n drives"
	[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
}

case $phase in
mounts)
	MOUNTS=
	trap 'kill -9 $DAEMON_PID 2>/dev/null; for m in $MOUNTS; do umount "$m" 2>/dev/null; done; cleanup' EXIT
	read_only_inside
	rollup_full_inside
	exit 0
	;;
all)
	file_faults
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: parts 3 and 4 (read-only, full file system) need root to mount a tmpfs"
	elif ! unshare --mount --propagation private true 2>/dev/null; then
		echo "SKIP: parts 3 and 4 (read-only, full file system): no private mount namespace (unshare)"
	else
		unshare --mount --propagation private bash "$0" mounts
		rc=$?
		[ $rc = 0 ] || [ $rc = 77 ] || exit $rc
	fi
	pass
	;;
esac
