#!/usr/bin/env bash
# Wear alerts end to end. The demo 950 PRO writes about 173 GB a day (224 TB on
# 2026-12-01), so the test reads what it has written in a first run with wear
# alerts off (which fire nothing), then rates it so that this is about 85 %: the
# hourly wear check (its first run 10 s after the start) fires tbw_80 through the
# alert service, and not tbw_90; the 980 PRO (about 104 of its built-in 600 TB)
# fires nothing. [alerts] wear = no turns them off.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

run() { # WEAR(yes|no) RATED_TB -> the alerts JSON after the first wear check
	cat > "$TMP/nvmond.conf" << CONF
[daemon]
database = $TMP/nvmond-$1.db
demo = yes
poll_interval = 1s
[alerts]
wear = $1
[device "DEMO950PRO00001"]
rated_tbw = ${2}TB
CONF
	start_daemon -c "$TMP/nvmond.conf" --log-level debug
	# The first wear check runs 10 s after the start. With wear alerts on, its
	# tbw_80 alert (journal sink) is the event to wait for; with them off it fires
	# nothing, and its debug line says it has fed the drives' wear to the alerts.
	if [ "$1" = yes ]; then
		wait_log_for 'firing: info tbw_80' 30
	else
		wait_log_for 'wear: checked [1-9][0-9]* drive' 30
	fi
	http_get /api/v1/alerts > "$TMP/alerts.json"
	http_get /api/v1/devices > "$TMP/devices.json"
	stop_daemon
}

run no 250
jq_py "$(cat "$TMP/alerts.json")" "
assert not [a for a in j['active'] if a['rule'].startswith('tbw')], j['active']
" || fail "[alerts] wear = no still alerts: $(cat "$TMP/alerts.json")"
# Rated so that what the 950 PRO has written is 84-85 % of it (README: tbw_80
# fires past 80 % of the rated TBW, tbw_90 past 90 %).
RATED=$(jq_py "$(cat "$TMP/devices.json")" "
import math
d = [d for d in j['devices'] if d['serial'] == 'DEMO950PRO00001'][0]
print(math.ceil(d['latest']['data_written_bytes'] / 0.85 / 1e12))")

run yes "$RATED"
D0=$(jq_py "$(cat "$TMP/devices.json")" "print([d['id'] for d in j['devices'] if d['serial'] == 'DEMO950PRO00001'][0])")
jq_py "$(cat "$TMP/alerts.json")" "
import re
wear = [a for a in j['active'] if a['rule'] in ('tbw_80', 'tbw_90', 'tbw_100', 'write_rate')]
assert [(a['rule'], a['device_id'], a['severity']) for a in wear] == [('tbw_80', $D0, 'info')], wear
m = re.fullmatch(r'(\d+\.\d) TB written: (\d+\.\d)% of the rated (\d+) TB \(configuration\), past 80%', wear[0]['message'])
assert m, wear[0]['message']
tb, pct, rated = float(m[1]), float(m[2]), int(m[3])
assert rated == $RATED, (rated, $RATED)
assert 80 <= pct < 90 and abs(tb / rated * 100 - pct) <= 0.1, wear[0]['message']
" || fail "wear alerts: $(cat "$TMP/alerts.json")"
grep -q "tbw_80" "$DAEMON_LOG" || fail "the tbw_80 alert was not logged (journal sink)"
pass
