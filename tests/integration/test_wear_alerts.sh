#!/usr/bin/env bash
# Wear alerts end to end: the demo 950 PRO has written 224 TB; with rated_tbw =
# 250TB that is 89.6 %, so the hourly wear check (its first run 10 s after the
# start) fires tbw_80 through the alert service, and not tbw_90; the 980 PRO
# (104 of its built-in 600 TB) fires nothing. [alerts] wear = no turns them off.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

run() { # WEAR(yes|no) -> the alerts JSON after the first wear check
	cat > "$TMP/nvmond.conf" << CONF
[daemon]
database = $TMP/nvmond-$1.db
demo = yes
poll_interval = 1s
[alerts]
wear = $1
[device "DEMO950PRO00001"]
rated_tbw = 250TB
CONF
	start_daemon -c "$TMP/nvmond.conf"
	# The first wear check runs 10 s after the start. With wear alerts on, its
	# tbw_80 alert (journal sink) is the event to wait for; with them off nothing
	# observable happens, so that run waits out the check.
	if [ "$1" = yes ]; then
		wait_log_for 'firing: info tbw_80' 30
	else
		sleep 12
	fi
	http_get /api/v1/alerts > "$TMP/alerts.json"
	http_get /api/v1/devices > "$TMP/devices.json"
	stop_daemon
}

run yes
D0=$(jq_py "$(cat "$TMP/devices.json")" "print([d['id'] for d in j['devices'] if d['serial'] == 'DEMO950PRO00001'][0])")
jq_py "$(cat "$TMP/alerts.json")" "
wear = [a for a in j['active'] if a['rule'] in ('tbw_80', 'tbw_90', 'tbw_100', 'write_rate')]
assert [(a['rule'], a['device_id'], a['severity']) for a in wear] == [('tbw_80', $D0, 'info')], wear
assert '89.6% of the rated 250 TB (configuration)' in wear[0]['message'], wear[0]['message']
" || fail "wear alerts: $(cat "$TMP/alerts.json")"
grep -q "tbw_80" "$DAEMON_LOG" || fail "the tbw_80 alert was not logged (journal sink)"

run no
jq_py "$(cat "$TMP/alerts.json")" "
assert not [a for a in j['active'] if a['rule'].startswith('tbw')], j['active']
" || fail "[alerts] wear = no still alerts: $(cat "$TMP/alerts.json")"
pass
