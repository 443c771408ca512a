#!/usr/bin/env bash
# The database file under the running daemon, and a read-only file system at start
# (issue 15 §6; docs/reliability.md says what happens on each):
#  1. the file deleted: the daemon logs it, restarts itself in place (same pid),
#     answers HTTP again and stores new samples in a new, migrated file;
#  2. the file replaced by another database (a restored backup moved over it): the
#     same, and the new samples go to that file;
#  3. a read-only file system at start (a tmpfs remounted ro in a private mount
#     namespace; needs root, else skipped with the reason): exit 1 with an error
#     that says so; once it is writable again the daemon starts (systemd's
#     Restart=on-failure does that every RestartSec).
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

read_only_inside() {
	local mnt=$TMP/ro rc
	echo "3. a read-only file system at start"
	mkdir -p "$mnt"
	mount -t tmpfs -o size=8m tmpfs "$mnt" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
	trap "kill -9 \$DAEMON_PID 2>/dev/null; umount '$mnt' 2>/dev/null; cleanup" EXIT
	mount -o remount,ro "$mnt" || { echo "SKIP: cannot remount ro"; exit 77; }
	rc=0
	timeout 10 "$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$mnt/nvmond.db" \
		--listen "127.0.0.1:$(free_port)" >"$TMP/ro.out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "exit $rc on a read-only file system, expected 1: $(cat "$TMP/ro.out")"
	grep -q 'read-only' "$TMP/ro.out" || fail "the error does not say read-only: $(cat "$TMP/ro.out")"
	echo "  exit 1: $(grep -m1 'read-only' "$TMP/ro.out")"
	mount -o remount,rw "$mnt" || fail "remount rw"
	start_daemon --demo -c "$TMP/nvmond.conf" --db "$mnt/nvmond.db"
	wait_for 10 has_samples_over "$mnt/nvmond.db" 0 || fail "no samples once writable"
	stop_daemon
	umount "$mnt"
	echo "  writable again: started and stored samples"
}

case $phase in
read-only)
	read_only_inside
	exit 0
	;;
all)
	file_faults
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: part 3 (read-only file system) needs root to mount a tmpfs"
	elif ! unshare --mount --propagation private true 2>/dev/null; then
		echo "SKIP: part 3 (read-only file system): no private mount namespace (unshare)"
	else
		unshare --mount --propagation private bash "$0" read-only
		rc=$?
		[ $rc = 0 ] || [ $rc = 77 ] || exit $rc
	fi
	pass
	;;
esac
