#!/usr/bin/env bash
# Privilege separation (issue 15 §1; docs/security.md#privilege-separation):
#  1. the daemon forks one device process (comm nvmond-dev) and keeps no
#     capability itself: CapEff, CapPrm, CapInh, CapAmb and CapBnd all 0, no_new_privs;
#  2. the device process runs under its seccomp filter (Seccomp: 2, no_new_privs),
#     keeps the privileges it started with, and holds no network socket;
#  3. every poll goes through it: samples keep coming;
#  4. the device process killed: the daemon says so and exits 1 (the service
#     manager starts it again), promptly;
#  5. the daemon stopped: the device process goes with it.
# The seccomp filter's refusals themselves (AF_INET, io_uring, execve) are
# unit.test_dev_sandbox. Env (ctest): NVMOND_BIN.
set -u
for tool in curl python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$(dirname "$0")/lib.sh"

cat >"$TMP/nvmond.conf" <<CONF
[daemon]
poll_interval = 200ms
demo_history = no
CONF

status_field() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
device_pid() { pgrep -P "$DAEMON_PID" -x nvmond-dev; }

# The inodes of every TCP/UDP socket on this machine (v4 and v6).
inet_inodes() { awk 'FNR > 1 { print $10 }' /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6 2>/dev/null; }

start_daemon --demo -c "$TMP/nvmond.conf" --db "$TMP/p.db"
dev=$(device_pid) || fail "no nvmond-dev child of the daemon"
[ "$(echo "$dev" | wc -w)" = 1 ] || fail "more than one device process: $dev"

echo "1. the daemon (pid $DAEMON_PID) holds no capability"
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
	v=$(status_field "$DAEMON_PID" "$f")
	[ "$v" = 0000000000000000 ] || fail "daemon $f = $v, want 0000000000000000"
done
[ "$(status_field "$DAEMON_PID" NoNewPrivs)" = 1 ] || fail "daemon without no_new_privs"
grep -q 'this process holds no capability' "$DAEMON_LOG" || fail "no log line on the separation"

echo "2. the device process (pid $dev): seccomp filter, its privileges, no network socket"
[ "$(status_field "$dev" Seccomp)" = 2 ] || fail "device process Seccomp = $(status_field "$dev" Seccomp), want 2 (filter)"
[ "$(status_field "$dev" NoNewPrivs)" = 1 ] || fail "device process without no_new_privs"
[ "$(status_field "$dev" CapEff)" = "$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)" ] ||
	fail "device process CapEff $(status_field "$dev" CapEff), want the test's own"
inet=$(inet_inodes | sort -u)
for l in /proc/"$dev"/fd/*; do
	t=$(readlink "$l") || continue
	case $t in socket:\[*\]) ino=${t#socket:[}; ino=${ino%]}
		echo "$inet" | grep -qx "$ino" && fail "device process holds a network socket ($l -> $t)" ;;
	esac
done
sockets=$(find /proc/"$DAEMON_PID"/fd -lname 'socket:*' 2>/dev/null | wc -l)
[ "$sockets" -ge 2 ] || fail "the daemon holds $sockets sockets, want the listener and the channel"

echo "3. polls go through the device process"
wait_polls 4 20

echo "4. the device process killed: the daemon stops with status 1"
kill -9 "$dev"
rc=0
timeout 10 tail --pid="$DAEMON_PID" -f /dev/null || fail "the daemon still runs 10 s after its device process died"
wait "$DAEMON_PID" || rc=$?
DAEMON_PID=
[ "$rc" = 1 ] || fail "daemon exited $rc after its device process died, want 1"
grep -Eq "the device process $dev exited" "$DAEMON_LOG" || fail "no log line naming the dead device process"

echo "5. the daemon stopped: its device process goes too"
start_daemon --demo -c "$TMP/nvmond.conf" --db "$TMP/p.db"
dev=$(device_pid) || fail "no device process after the restart"
stop_daemon
wait_for 5 sh -c "! kill -0 $dev 2>/dev/null" || fail "device process $dev outlived the daemon"
pass
