#!/usr/bin/env bash
# Drive-to-drive copy (issue 13 §5, copy-to) on two demo drives through the API:
# validation, the run on both drives (each shows it running, another probe on
# either is refused), its result on both drives' probe lists, the written
# drive's budget, and cancel; then `nvmond probe --preset copy-to --to`.
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

probe_conf copyto <<CONF
phase_duration = 3s
# Large enough that a copy runs its whole phase (not its byte limit).
# demo1 and demo2 run many copies of up to their whole area: a budget that the
# runs here cannot use up (only demo0's is the one under test).
[device "DEMO980PRO00002"]
probe_file_size = 64GiB
probe_budget_day = 4TB
probe_budget_month = 16TB
[device "DEMO970EVO00003"]
probe_file_size = 64GiB
probe_budget_day = 4TB
probe_budget_month = 16TB
# demo0 has no write budget left: a copy onto it is refused.
[device "DEMO950PRO00001"]
probe_budget_day = 1B
probe_budget_month = 1B
[daemon]
demo_history = no
demo_drives = 3
CONF
probe_start --log-level info

# demo1 is copied onto demo2 (demo0 runs hot in the demo: it is the one over budget).
OVER=$(demo_id demo0)
D0=$(demo_id demo1)
D1=$(demo_id demo2)


# Validation: copy-to needs "to", another drive, and runs once.
for body in '{"preset":"copy-to"}' "{\"preset\":\"copy-to\",\"to\":$D0}" \
	"{\"preset\":\"copy-self\",\"to\":$D1}" '{"preset":"copy-to","to":"demo1"}' \
	"{\"preset\":\"copy-to\",\"to\":$D1,\"repeat\":2}"; do
	out=$(api_post "/api/v1/devices/$D0/probes" "$body")
	[ "${out%% *}" = 400 ] || fail "$body: $out"
done
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"copy-to","to":99999}')
[ "${out%% *}" = 400 ] || fail "to an unknown drive: $out"
# The written drive's budget applies.
out=$(api_post "/api/v1/devices/$D0/probes" "{\"preset\":\"copy-to\",\"to\":$OVER}")
[ "${out%% *}" = 429 ] || fail "onto a drive over budget: $out"

# A copy from copy-self's drive: first each drive's copy-self, for the comparison.
for d in $D0 $D1; do
	out=$(api_post "/api/v1/devices/$d/probes" '{"preset":"copy-self"}')
	[ "${out%% *}" = 202 ] || fail "copy-self on $d: $out"
	id=$(jq_py "${out#* }" "print(j['id'])")
	wait_probe "$id" "j['state']=='done'" 30 >/dev/null
done

out=$(api_post "/api/v1/devices/$D0/probes" "{\"preset\":\"copy-to\",\"to\":$D1}")
[ "${out%% *}" = 202 ] || fail "copy-to: $out"
ID=$(jq_py "${out#* }" "print(j['id'])")
# Both drives show it running, and take no other probe.
for d in $D0 $D1; do
	jq_py "$(http_get "/api/v1/devices/$d/probes")" "sys.exit(0 if j['running']==$ID else 1)" ||
		fail "drive $d does not show probe $ID running"
	out=$(api_post "/api/v1/devices/$d/probes" '{"preset":"seq1m-q8"}')
	[ "${out%% *}" = 409 ] || fail "a second probe on $d during the copy: $out"
done
# A copy from a drive busy with a probe is refused.
out=$(api_post "/api/v1/devices/$OVER/probes" "{\"preset\":\"copy-to\",\"to\":$D0}")
[ "${out%% *}" = 409 ] || fail "copy-to onto a drive running a probe: $out"
out=$(api_post "/api/v1/devices/$D1/probes" "{\"preset\":\"copy-to\",\"to\":$OVER}")
[ "${out%% *}" = 409 ] || fail "copy-to from a drive running a probe: $out"

j=$(wait_probe "$ID" "j['state']=='done'" 30)
jq_py "$j" "
c = j['copy_to']
assert j['device_id'] == $D1 and j['source_device_id'] == $D0, j
assert c['read_mb_s'] > 100 and c['write_mb_s'] > 100, c
assert c['from']['copy_self_mb_s'] > 0 and c['to']['copy_self_mb_s'] > 0, c
assert 'copy-to demo2 (from demo1):' in c['text'] and 'copy-self on demo1' in c['text'], c['text']
" || fail "copy-to result: $j"
# On both drives' lists; the budget of the drive written only.
for d in $D0 $D1; do
	jq_py "$(http_get "/api/v1/devices/$d/probes")" \
		"sys.exit(0 if any(r['id']==$ID for r in j['probes']) else 1)" ||
		fail "probe $ID not on drive $d's list"
done
jq_py "$(http_get "/api/v1/devices/$D0/probes")" "
r = [r for r in j['probes'] if r['id']==$ID][0]
assert r['source_device_id'] == $D0 and r['device_id'] == $D1, r
" || fail "the list entry"

# Cancel: the run ends aborted, and both drives are free again.
out=$(api_post "/api/v1/devices/$D1/probes" "{\"preset\":\"copy-to\",\"to\":$D0}")
[ "${out%% *}" = 202 ] || fail "copy-to back: $out"
ID2=$(jq_py "${out#* }" "print(j['id'])")
out=$(api_post "/api/v1/probes/$ID2/cancel" '{}')
[ "${out%% *}" = 202 ] || [ "${out%% *}" = 200 ] || fail "cancel: $out"
wait_probe "$ID2" "j['state']=='aborted'" 30 >/dev/null
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q1"}')
[ "${out%% *}" = 202 ] || fail "drive read free after the cancel: $out"
wait_probe "$(jq_py "${out#* }" "print(j['id'])")" "j['state']=='done'" 30 >/dev/null

# nvmond probe --preset copy-to --to, on the same database while the daemon runs.
cli() { "$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe "$@"; }
expect_exit 2 cli --device demo1 --preset copy-to            # no --to
expect_exit 2 cli --device demo1 --preset seq1m-q8 --to demo2 # --to with another preset
expect_exit 2 cli --device demo1 --preset copy-to --to demo1 # onto itself
expect_exit 2 cli --device demo1 --preset copy-to --to demo2 --repeat 2
expect_exit 2 cli --device demo1 --preset copy-to --to nosuchdrive
cli --device demo1 --preset copy-to --to demo2 --json > "$TMP/cli.json" 2> "$TMP/cli.err" ||
	fail "nvmond probe --preset copy-to: $(cat "$TMP/cli.err")"
CID=$(jq_py "$(cat "$TMP/cli.json")" "
assert j['state'] == 'done' and j['trigger'] == 'cli', j
assert j['device_id'] == $D1 and j['source_device_id'] == $D0, j
assert j['copy_to']['write_mb_s'] > 100, j['copy_to']
print(j['id'])") || fail "CLI copy-to JSON: $(cat "$TMP/cli.json")"
jq_py "$(http_get "/api/v1/devices/$D0/probes")" \
	"sys.exit(0 if any(r['id']==$CID for r in j['probes']) else 1)" ||
	fail "CLI probe $CID not on the drive read's list"
cli --device demo1 --preset copy-to --to demo2 > "$TMP/cli.txt" 2> "$TMP/cli.err" ||
	fail "nvmond probe --preset copy-to (table): $(cat "$TMP/cli.err")"
grep -q '^copy-to demo2 (from demo1): [0-9,]* MB/s; copy-self on demo1 [0-9,]* MB/s' \
	"$TMP/cli.txt" || fail "CLI table: $(cat "$TMP/cli.txt")"
# Either drive taken by the daemon's probe: the CLI's copy is refused (the drive
# read's lock as much as the one written's).
for d in $D0 $D1; do
	out=$(api_post "/api/v1/devices/$d/probes" '{"preset":"seq1m-q1"}')
	[ "${out%% *}" = 202 ] || fail "seq1m-q1 on $d: $out"
	id=$(jq_py "${out#* }" "print(j['id'])")
	expect_exit 1 cli --device demo1 --preset copy-to --to demo2
	[ "$d" != "$D0" ] || grep -q 'drive copied from' "$LAST_STDERR" ||
		fail "refused without naming the drive read: $(cat "$LAST_STDERR")"
	api_post "/api/v1/probes/$id/cancel" '{}' >/dev/null
	wait_probe "$id" "j['state']!='running'" 30 >/dev/null
done

stop_daemon
pass
