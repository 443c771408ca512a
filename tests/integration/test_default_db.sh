#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The default database of a user other than root (docs/configuration.md, [daemon] database):
# $XDG_STATE_HOME/nvmond/nvmond.db when that is an absolute path, else
# $HOME/.local/state/nvmond/nvmond.db when HOME is, else the passwd entry's home. Run as the
# user nobody (setpriv), the path read from the daemon's first log line; as root (the CI's
# user) the unit tests see only root's /var/lib/nvmond (issue 28 §9).
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: not root: cannot start nvmond as another user"; exit 77; }
command -v setpriv > /dev/null || { echo "SKIP: no setpriv"; exit 77; }
NOBODY_HOME=$(getent passwd nobody | cut -d: -f6)
[ -n "$NOBODY_HOME" ] || { echo "SKIP: no user nobody"; exit 77; }
# nobody reads the binary, the configuration and the web root; writes only its own directories.
chmod 755 "$TMP"
for d in "$(dirname "$NVMOND_BIN")" "$NVMOND_SRC"; do
	while [ "$d" != / ]; do
		[ -x "$d" ] && [ "$(stat -c %a "$d" | cut -c3)" -ge 5 ] 2> /dev/null ||
			{ echo "SKIP: nobody cannot reach $NVMOND_BIN ($d)"; exit 77; }
		d=$(dirname "$d")
	done
done
mkdir -m 777 "$TMP/home" "$TMP/state"
printf '[daemon]\ndemo = yes\ndemo_history = no\n' > "$TMP/nvmond.conf"
chmod 644 "$TMP/nvmond.conf"

# database_of ENV…: the database the daemon opens, as nobody, with ENV (env(1) assignments).
database_of() {
	local port log=$TMP/daemon.$RANDOM.log pid line=
	port=$(free_port)
	(cd / && exec env -i PATH=/usr/bin:/bin "$@" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$NVMOND_BIN" -c "$TMP/nvmond.conf" --listen "127.0.0.1:$port" > "$log" 2>&1) &
	pid=$!
	for _ in $(seq 100); do
		line=$(grep -o 'backend, database [^,]*' "$log" | head -n 1) && [ -n "$line" ] && break
		line=$(grep -o 'the directory of [^;]*' "$log" | head -n 1) && [ -n "$line" ] && break
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	[ -n "$line" ] || fail "no database in the log with $*: $(head -c 600 "$log")"
	echo "${line##* }"
}

got=$(database_of HOME="$TMP/home")
[ "$got" = "$TMP/home/.local/state/nvmond/nvmond.db" ] || fail "HOME=$TMP/home: $got"
got=$(database_of HOME="$TMP/home" XDG_STATE_HOME="$TMP/state")
[ "$got" = "$TMP/state/nvmond/nvmond.db" ] || fail "XDG_STATE_HOME=$TMP/state: $got"
got=$(database_of HOME="$TMP/home" XDG_STATE_HOME=relative/state)
[ "$got" = "$TMP/home/.local/state/nvmond/nvmond.db" ] || fail "a relative XDG_STATE_HOME: $got"
# Neither: the passwd entry's home (nobody's, which does not exist: the daemon waits for it).
got=$(database_of HOME=)
[ "$got" = "$NOBODY_HOME/.local/state/nvmond/nvmond.db" ] || fail "HOME empty: $got"
got=$(database_of HOME=relative)
[ "$got" = "$NOBODY_HOME/.local/state/nvmond/nvmond.db" ] || fail "HOME relative: $got"
pass
