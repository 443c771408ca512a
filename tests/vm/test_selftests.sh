#!/usr/bin/env bash
# Device self-tests (issue 12) against emulated controllers, one boot: QEMU
# 7.2's controller has no Device Self-test (OACS bit 4 is 0), so the "not
# supported" path runs for real on it; the supported path runs on a second
# controller through the test shim (tests/vm/nvme_shim.c, selftest=yes), which
# answers opcode 14h and log 06h with a test whose completion advances with
# time. See selftests.guest.sh for the steps.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${VM_GUEST_TIMEOUT:=300}"
: "${VM_TIMEOUT:=420}"
. "$here/lib.sh"
vm_setup_nvmond_shim "$here/selftests.guest.sh"
# HTTP with a body and a token in the guest (busybox wget has no -X).
curl=$(command -v curl) || vm_skip "curl not installed on the host (copied into the guest)"
vm_add_bin "$curl" /usr/bin/curl || vm_fail "could not copy curl"
vm_run || true
vm_guest_ok "$VM_OUT/guest.log" "$VM_OUT"/daemon*.log "$VM_OUT/hook.log"

vm_judge <<'PY' || { tail -60 "$VM_OUT"/daemon*.log; vm_fail "self-test checks"; }
d0, d1 = (int(x) for x in rd("ids").split())

# 1. The unsupported path, for real.
oacs0 = js("id-ctrl0.json")["oacs"]
oacs1 = js("id-ctrl1.json")["oacs"]
check(not oacs0 & 0x10, "QEMU 7.2's controller has no Device Self-test: nvme-cli's OACS 0x%x, bit 4 clear" % oacs0)
check(oacs1 & 0x10, "through the shim VM-0001 has it: OACS 0x%x" % oacs1)
print("nvme self-test-log on QEMU's own controller:", rd("qemu-self-test-log.txt").strip()[:300])
u = js("unsupported.json")
check(u["supported"] is False and "OACS bit 4 is 0" in (u["unsupported_reason"] or ""),
      "the API says VM-0000 does not support self-tests: %s" % u["unsupported_reason"])
check(u["running"] is None and u["history"] == [] and u["next"] is None, "nothing runs, no history, nothing scheduled")
check(rd("post_unsupported.status").strip() == "409", "POST …/selftests on it: HTTP %s %s"
      % (rd("post_unsupported.status"), rd("post_unsupported.body")))
check(rd("cli_unsupported.rc").strip() == "1" and "does not support device self-tests" in rd("cli_unsupported.err"),
      "nvmond selftest --short on it exits %s: %s" % (rd("cli_unsupported.rc").strip(), rd("cli_unsupported.err").strip()))
sent = [l for l in rd("status.log").splitlines() if "opcode=0x14" in l]
check(not sent, "no Device Self-test (14h) reached a controller and was refused, in the whole run: %s" % sent[:3])
check(rd("post_bad.status").strip() == "400", "type 'long' is a 400: %s" % rd("post_bad.body"))
check(rd("post_notoken.status").strip() == "401", "POST without the token is a 401")

# 2. The CLI's short test, its progress and its result.
check(rd("cli_short.rc").strip() == "0", "nvmond selftest --short --wait exits 0 (%s): %s"
      % (rd("cli_short.rc").strip(), rd("cli_short.err")[-300:]))
r = json.loads(rd("cli_short.json"))
check(r["type"] == "short" and r["passed"] and r["result"] == "no error" and r["origin"] == "cli",
      "its result: %s, %s, origin %s" % (r["type"], r["result"], r["origin"]))
ms = int(rd("cli_short_ms"))
check(7000 <= ms <= 60000, "it waited %d ms for the shim's 8 s test" % ms)
# Sampled every 0.5 s; on a loaded host the guest may catch only a few polls.
pct = [int(x) for x in rd("progress.txt").split()]
check(pct == sorted(pct) and [p for p in pct if 0 < p < 100] and max(pct) < 100,
      "the API's running %% advanced while it ran: %s" % sorted(set(pct)))
log = js("self-test-log1.json")
# nvme-cli 2.4: "Current Device Self-Test Operation", results as "List of Valid Reports"
# (every one of the 20 entries; result Fh = not used)
tests = [t for t in log.get("List of Valid Reports", []) if t.get("Self test result") != 15]
api = js("after_short.json")
check(len(tests) >= 1 and len(api["history"]) == len(tests),
      "the API's history (%d) has as many results as nvme-cli's self-test-log (%d)" % (len(api["history"]), len(tests)))
if tests:
    t0 = tests[0]
    check((t0.get("Self test result") , t0.get("Self test code"), t0.get("Power on hours"))
          == (api["history"][0]["result_code"], api["history"][0]["code"], api["history"][0]["poh"]),
          "the newest result agrees with nvme-cli: %s vs %s" % (t0, api["history"][0]))
check(api["last"]["short"] and api["last"]["short"]["id"] == api["history"][0]["id"], "last.short is that result")
m = rd("metrics_short.txt")
check(re.search(r'^nvmond_selftest_last_passed\{[^}]*serial="NVMOND-VM-0001"[^}]*type="short"[^}]*\} 1$', m, re.M)
      or re.search(r'^nvmond_selftest_last_passed\{[^}]*type="short"[^}]*serial="NVMOND-VM-0001"[^}]*\} 1$', m, re.M),
      "/metrics: the last short test passed")
check(rd("start_ext0.status").strip() == "202", "an extended test starts: %s" % rd("start_ext0.body"))
check(rd("second.status").strip() == "409" and "already running" in rd("second.body"),
      "a second test is refused while it runs: %s" % rd("second.body"))
check(rd("probe_during.status").strip() == "409" and "self-test is running" in rd("probe_during.body"),
      "a probe is refused while it runs: %s" % rd("probe_during.body"))
check(rd("abort_ext0.status").strip() == "200", "the abort: %s" % rd("abort_ext0.body"))

# 3. The failure.
hook = []
for l in rd("hook.log").splitlines():
    if l.strip():
        up, state, rule, serial, sev, j = l.split(" ", 5)
        hook.append(dict(state=state, rule=rule, serial=serial, sev=sev, json=json.loads(j)))
f = [h for h in hook if h["rule"] == "selftest_failed"]
check(len(f) == 1 and f[0]["state"] == "firing" and f[0]["sev"] == "critical" and f[0]["serial"] == "NVMOND-VM-0001",
      "selftest_failed fired once, critical, on VM-0001: %s" % [(h["state"], h["serial"]) for h in f])
if f:
    msg = f[0]["json"]["message"]
    check("segment 3" in msg and "123456" in msg, "its message names the segment and the LBA: %s" % msg)
af = js("after_fail.json")["history"][0]
check((af["type"], af["result_code"], af["segment"], af["lba"], af["failed"], af["origin"])
      == ("extended", 7, 3, 123456, True, "api"), "the failed result in the API: %s" % af)
check(re.search(r'^nvmond_selftest_last_result\{[^}]*type="extended"[^}]*\} 7$', rd("metrics_fail.txt"), re.M),
      "/metrics: the last extended result is 7")

# 4. Aborts.
ext = js("external_running.json")["running"]
check(ext and ext["type"] == "short", "nvme-cli's test shows as running in the API: %s" % ext)
b = js("before_restart.json")["history"]
aborts = [h for h in b if h["result_code"] == 1]
check(len(aborts) == 2 and aborts[0]["origin"] is None and aborts[1]["origin"] == "api",
      "two aborts: nvme-cli's (origin null) and the API's (origin api): %s" % [(a["type"], a["origin"]) for a in aborts])
a = [h for h in hook if h["rule"] == "selftest_aborted"]
check(len(a) == 1 and a[0]["sev"] == "info", "selftest_aborted fired once (info), for nvme-cli's abort only: %s"
      % [(h["state"], h["sev"]) for h in a])

# 5. The restart.
after = js("after_restart.json")["history"]
check([h["id"] for h in after] == [h["id"] for h in b], "no result stored twice across the restart (%d results)" % len(after))
check(len([h for h in hook if h["state"] == "firing"]) == 2, "no notification sent again after the restart: %s"
      % [(h["state"], h["rule"]) for h in hook])
act = [x["rule"] for x in js("alerts.json")["active"]]
check("selftest_failed" in act, "selftest_failed is still active after the restart: %s" % act)
for n in (1, 2):
    check(rd("daemon%d.rc" % n).strip() == "0", "daemon run %d exited 0" % n)
sys.exit(1 if bad else 0)
PY
echo "PASS: test_selftests"
