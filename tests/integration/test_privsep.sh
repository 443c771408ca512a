#!/usr/bin/env bash
# Privilege separation (issue 15 §1; docs/security.md#privilege-separation):
#  1. the daemon forks one device process (comm nvmond-dev) and keeps no
#     capability itself: CapEff, CapPrm, CapInh, CapAmb and CapBnd all 0, no_new_privs;
#  2. the device process runs under its seccomp filter (Seccomp: 2, no_new_privs),
#     keeps the privileges it started with, and holds no network socket;
#  3. every poll goes through it: samples keep coming;
#  4. the device process killed: the daemon says so and exits 1 (the service
#     manager starts it again), promptly;
#  5. the daemon stopped: the device process goes with it;
#  6. started as root with [daemon] user = nobody: the daemon runs as nobody
#     (every uid and gid, its one group), no capability, no_new_privs; the
#     device process stays root with its capabilities; polls go on; the probe
#     lock directory is handed to nobody; a file only root may open cannot be
#     opened with the daemon's credentials; no /dev/nvme* among its fds (root
#     only, visibly skipped otherwise); the switch refused by the unit's
#     seccomp filter: exit 1 naming the user. Started as root without it: a warning;
#  6b. the probe lock directory changes hands both ways (issue 23 §13): after the
#     daemon as nobody left it nobody's 0700, a root daemon without [daemon] user
#     takes it back and its probe takes the drive's lock (it answered 500), then
#     a daemon as nobody after it; a lock file nobody made 0600 is opened up;
#  7. user = a name no one has: exit 2 with FILE:LINE.
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
if [ "$(id -u)" = 0 ]; then
	grep -q 'warning: the HTTP process keeps uid 0 .*set \[daemon\] user' "$DAEMON_LOG" ||
		fail "started as root without [daemon] user: no warning"
fi

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

echo "6. started as root with [daemon] user = nobody"
if [ "$(id -u)" != 0 ] || ! id nobody > /dev/null 2>&1 || ! command -v setpriv > /dev/null; then
	echo "SKIP (part): needs root, the user nobody and setpriv"
else
	uid=$(id -u nobody) gid=$(id -g nobody)
	# nobody's: the database directory (open to all: a daemon wrongly left at
	# uid 0 without capabilities fails the checks below, not waits for its
	# database); root's: the rest ($TMP is 0700 by mktemp).
	chmod 711 "$TMP"
	mkdir "$TMP/u" "$TMP/ulocks" && chown nobody "$TMP/u" && chmod 777 "$TMP/u" || fail "setup"
	# A lock file a root `nvmond probe` made before this code (0600): opened up to nobody.
	install -m 600 /dev/null "$TMP/ulocks/probe-OLD.lock"
	printf '[daemon]\nuser = nobody\npoll_interval = 200ms\ndemo_history = no\n[probes]\nlock_dir = %s\n' \
		"$TMP/ulocks" > "$TMP/user.conf"
	echo secret > "$TMP/root-only" && chmod 600 "$TMP/root-only"
	: > "$DAEMON_LOG"
	start_daemon --demo -c "$TMP/user.conf" --db "$TMP/u/u.db"
	[ "$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "/proc/$DAEMON_PID/status")" = "$uid $uid $uid $uid" ] ||
		fail "daemon $(grep '^Uid:' "/proc/$DAEMON_PID/status"), want $uid everywhere"
	[ "$(awk '$1 == "Gid:" { print $2, $3, $4, $5 }' "/proc/$DAEMON_PID/status")" = "$gid $gid $gid $gid" ] ||
		fail "daemon $(grep '^Gid:' "/proc/$DAEMON_PID/status"), want $gid everywhere"
	groups=$(awk '$1 == "Groups:" { $1 = ""; print }' "/proc/$DAEMON_PID/status" | xargs)
	[ "$groups" = "$gid" ] || fail "daemon Groups: '$groups', want only $gid"
	for f in CapPrm CapEff CapAmb CapInh; do
		v=$(status_field "$DAEMON_PID" "$f")
		[ "$v" = 0000000000000000 ] || fail "daemon as nobody: $f = $v, want 0"
	done
	[ "$(status_field "$DAEMON_PID" NoNewPrivs)" = 1 ] || fail "daemon as nobody without no_new_privs"
	grep -q "this process runs as user nobody (uid $uid) without capabilities" "$DAEMON_LOG" ||
		fail "no log line naming the user"
	grep -q 'keeps uid 0' "$DAEMON_LOG" && fail "warned about uid 0 with [daemon] user set"
	dev=$(device_pid) || fail "no device process under [daemon] user"
	[ "$(status_field "$dev" Uid)" = 0 ] || fail "device process uid $(status_field "$dev" Uid), want 0"
	[ "$(status_field "$dev" CapEff)" = "$(status_field self CapEff)" ] ||
		fail "device process CapEff $(status_field "$dev" CapEff), want the test's own"
	wait_polls 4 20
	[ "$(stat -c %u "$TMP/ulocks")" = "$uid" ] || fail "the probe lock directory was not handed to nobody"
	[ "$(stat -c %a "$TMP/ulocks/probe-OLD.lock")" = 644 ] || fail "root's 0600 lock file not opened up"
	# The daemon's credentials, as /proc shows them, on a file only root may open.
	cat "$TMP/root-only" > /dev/null || fail "root cannot read $TMP/root-only"
	rc=0
	setpriv --reuid="$(status_field "$DAEMON_PID" Uid)" --regid="$(status_field "$DAEMON_PID" Gid)" \
		--groups="$(echo "$groups" | tr ' ' ,)" --inh-caps=-all --bounding-set=-all \
		cat "$TMP/root-only" > "$TMP/cat.out" 2>&1 || rc=$?
	[ "$rc" != 0 ] && grep -q 'Permission denied' "$TMP/cat.out" ||
		fail "the daemon's credentials open a root-only file (rc $rc): $(cat "$TMP/cat.out")"
	nvme=$(find "/proc/$DAEMON_PID/fd" -lname '/dev/nvme*' -o -lname '/dev/ng*' 2>/dev/null)
	[ -z "$nvme" ] || fail "the daemon holds NVMe devices: $nvme"
	stop_daemon
	echo "ok: the daemon ran as nobody ($uid:$gid), its device process as root"

	echo "6b. the probe lock directory changes hands both ways (issue 23 §13)"
	# nobody's now, 0700 as the daemon makes /run/nvmond: a root daemon without
	# [daemon] user (uid 0, no capability) could not open it, and every probe answered 500.
	[ "$(stat -c %u "$TMP/ulocks")" = "$uid" ] || fail "the lock directory is not nobody's"
	chmod 700 "$TMP/ulocks"
	install -m 600 -o nobody /dev/null "$TMP/ulocks/probe-NOBODY.lock"
	TOKEN=lock-token-$RANDOM
	for who in root nobody; do
		user=; db=$TMP/r.db
		[ "$who" = nobody ] && user='user = nobody' db=$TMP/u/u.db
		printf '[daemon]\n%s\npoll_interval = 200ms\ndemo_history = no\n[http]\ntoken = %s\n[probes]\nlock_dir = %s\nphase_duration = 1s\n' \
			"$user" "$TOKEN" "$TMP/ulocks" > "$TMP/hand.conf"
		start_daemon --demo -c "$TMP/hand.conf" --db "$db"
		out=$(api_post "/api/v1/devices/$(demo_id demo1)/probes" '{"preset":"seq1m-q8"}')
		[ "${out%% *}" = 202 ] || fail "a daemon as $who after the other: POST probe: $out"
		# 202: the run holds the drive's lock (taken before it starts); the stop cancels it.
		want=0
		[ "$who" = nobody ] && want=$uid
		[ "$(stat -c %u "$TMP/ulocks")" = "$want" ] ||
			fail "a daemon as $who: the lock directory is uid $(stat -c %u "$TMP/ulocks")'s, want $want's"
		stop_daemon
		echo "ok: a daemon as $who took the lock directory and its probe the lock"
	done
	[ "$(stat -c %a "$TMP/ulocks/probe-NOBODY.lock")" = 644 ] ||
		fail "nobody's 0600 lock file not opened up to root"
	# Under the unit's filter (~@privileged: setgroups, setresuid… EPERM) the switch
	# is refused: an error naming the user, status 1, never a root HTTP process.
	if [ "$(uname -m)" = x86_64 ]; then
		expect_exit 1 timeout 20 python3 "$(dirname "$0")/unit_sandbox.py" "$NVMOND_BIN" --demo \
			-c "$TMP/user.conf" --db "$TMP/u/u.db" --listen "127.0.0.1:$(free_port)"
		grep -q 'error: cannot become user nobody (uid [0-9]*): Operation not permitted' "$LAST_STDERR" ||
			fail "a refused switch: $(cat "$LAST_STDERR")"
		echo "ok: a refused switch stops the daemon with status 1"
	fi
fi

echo "7. user = a name no one has: a configuration error"
printf '[daemon]\n\nuser = no-such-user-xyz\n' > "$TMP/nouser.conf"
expect_exit 2 "$NVMOND_BIN" --demo -c "$TMP/nouser.conf" --db "$TMP/n.db" --listen 127.0.0.1:1
grep -q "$TMP/nouser.conf:3: user: no user 'no-such-user-xyz'" "$LAST_STDERR" ||
	fail "no FILE:LINE error: $(cat "$LAST_STDERR")"
pass
