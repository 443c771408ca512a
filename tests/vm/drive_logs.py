# Host half of test_drive_logs.sh (issue 27): read by vm_judge (rd, js, check,
# out, bad are given). nvmond against nvme-cli 2.3 on the same answers, and
# both against the values the shim built from the specifications.
MASK48 = (1 << 48) - 1
ids = rd("ids").split()
print(rd("qemu.txt"))

# --- what QEMU 7.2's controller has, without the shim ---------------------------
q = rd("qemu.txt")
lpa = int(re.search(r"^lpa\s*:\s*(\S+)", q, re.M).group(1), 0)
check(lpa & 0x10 == 0, "QEMU: LPA bit 4 clear (no Persistent Event Log): 0x%x" % lpa)
check(re.search(r"^npss\s*:\s*0$", q, re.M) and re.search(r"^apsta\s*:\s*0$", q, re.M)
      and re.search(r"^hctma\s*:\s*0$", q, re.M), "QEMU: NPSS 0, no APST, no HCTM")
check("(Power Management), Current value:00000000" in q, "QEMU answers Get Features 02h itself (PS 0)")
check(q.count("Invalid Field in Command") == 4, "QEMU refuses features 0Ch and 10h and logs C0h and 0Dh")

def dev(n):
    return js(n)

# --- log C0h ----------------------------------------------------------------------
cli = js("ocp0.json")
d1 = dev("dev0-1.json")
o = d1["ocp"]
print("nvmond C0h:", json.dumps(o))
u128 = lambda v: int(v)
pw = cli["Physical media units written"]
pr = cli["Physical media units read"]
check(u128(o["physical_written_bytes"]) == (pw["hi"] << 64) + pw["lo"] == (1 << 64) + 0x12345000,
      "C0h physical media units written, past 2^64, exact: nvmond %s, nvme-cli hi %d lo %d"
      % (o["physical_written_bytes"], pw["hi"], pw["lo"]))
check(u128(o["physical_read_bytes"]) == (pr["hi"] << 64) + pr["lo"] == 0x987654321000, "C0h physical read")
pairs = [("bad_user_blocks", "Bad user nand blocks - Raw", 29),
         ("bad_user_blocks_normalized", "Bad user nand blocks - Normalized", 98),
         ("bad_system_blocks", "Bad system nand blocks - Raw", 1),
         ("bad_system_blocks_normalized", "Bad system nand blocks - Normalized", 100),
         ("xor_recoveries", "XOR recovery count", 51),
         ("uncorrectable_reads", "Uncorrectable read error count", 7),
         ("soft_ecc_errors", "Soft ecc error count", 1234),
         ("system_data_used_percent", "System data percent used", 4),
         ("thermal_throttling_events", "Number of Thermal throttling events", 12),
         ("thermal_throttling_status", "Current throttling status", 0),
         ("pcie_correctable_errors", "PCIe correctable error count", 355),
         ("incomplete_shutdowns", "Incomplete shutdowns", 9),
         ("free_blocks_percent", "Percent free blocks", 87),
         ("capacitor_health", "Capacitor health", 100),
         ("log_version", "Log page version", 3)]
for k, ck, want in pairs:
    check(u128(o[k]) == int(cli[ck]) == want, "C0h %s: nvmond %s, nvme-cli %s, shim %s" % (k, o[k], cli[ck], want))
# OCP 2.0 C0h: End to End Correction Counts, detected in bytes 75:72, corrected in
# 79:76. nvme-cli 2.3 prints them under each other's names: the spec decides.
check(o["end_to_end_detected"] == 3 and o["end_to_end_corrected"] == 2,
      "C0h end to end: detected 3 (bytes 75:72), corrected 2 (79:76) as the spec lays them out")
check(cli["End to end corrected errors"] == 3 and cli["End to end detected errors"] == 2,
      "nvme-cli 2.3 labels bytes 75:72 'corrected' (its known swap; the spec decides)")
check(str(o["spec_version"]).startswith("2.0"), "C0h spec version 2.0: %s" % o["spec_version"])
d1b = dev("dev1-1.json")
check(d1b["ocp"] == {"present": False, "why": "another vendor's C0h page"},
      "NVMOND-VM-0001: another vendor's C0h is ignored: %s" % d1b["ocp"])
check("Unknown GUID" in rd("ocp1.txt"), "nvme-cli also refuses that page")
dl = rd("daemon1.log")
check(len(re.findall(r"log C0h is another vendor's page", dl)) == 1, "one debug line for it")
cmd = rd("cmd.log").splitlines()
c0_1 = [l for l in cmd if "serial=NVMOND-VM-0001" in l and "lid=0xc0" in l and "comm=nvmond" in l]
check(len(c0_1) == 1, "nvmond asked NVMOND-VM-0001 for C0h once (%d)" % len(c0_1))
m1 = rd("metrics1.txt")
check(re.search(r'^nvmond_ocp_physical_written_bytes_total\{[^}]*NVMOND-VM-0000[^}]*\} 18446744074014969856$', m1, re.M),
      "/metrics: nvmond_ocp_physical_written_bytes_total exact past 2^64")

# --- the Persistent Event Log -------------------------------------------------------
e1 = js("events1.json")["events"]
e2 = js("events2.json")["events"]
e3 = js("events3.json")["events"]
check(len(e1) == 5 and all(e["late"] for e in e1), "5 events at the first read, all late (before nvmond ran)")
check(len(e2) == 17 and len(e3) == 17, "17 after the log grew, 17 after a restart (%d, %d)" % (len(e2), len(e3)))
# nvme-cli 2.3 on the whole log, then on each event followed by the next (it
# leaves out a log's last event: 4 of the first read's 5): where it fails on a
# kind, the others are still compared. Event 16 (a second thermal excursion)
# is the last one, so nvme-cli never shows it.
p1 = js("pel1.json")
check(p1["total_num_of_events"] == 5 and len(p1["list_of_event_entries"]) == 4,
      "nvme-cli 2.3 shows 4 of the 5 events it reads (it leaves out the last)")
whole = rd("pel2.json")
print("nvme-cli on all 17 events:", whole[:200].strip() if not whole.lstrip().startswith("{") else "read")
ce, cli_fail = [], []
for i in range(16):
    t = rd("pel-one-%d.json" % i)
    try:
        one = json.loads(t)["list_of_event_entries"]
        ce.append(one[0] if len(one) >= 1 else None)
        if len(one) < 1:
            cli_fail.append((i, "%d entries" % len(one)))
    except (ValueError, KeyError, IndexError):
        ce.append(None)
        cli_fail.append((i, t.strip()[:80] or rd("pel-one-%d.json.rc" % i).strip()))
print("nvme-cli could not decode these events alone:", cli_fail)
check(len(cli_fail) <= 3, "nvme-cli decodes all but a few kinds alone: %s" % cli_fail)
mine = sorted(e2, key=lambda e: (e["start"], e["id"]))
def cli_type(e):
    return int(re.search(r"\(0x([0-9a-f]+)\)", e["event_type"]).group(1), 16) if "(0x" in str(e["event_type"]) else int(e["event_type"])
kinds = {e["kind"] for e in mine}
for k in ("power_on_reset", "health_snapshot", "firmware_commit", "timestamp_change", "thermal_excursion",
          "hardware_error", "namespace_change", "format_start", "format_done", "sanitize_start",
          "sanitize_done", "set_feature", "telemetry_log", "vendor", "tcg", "unknown"):
    check(k in kinds, "kind %s decoded" % k)
from datetime import datetime, timezone
def ms(iso):
    return int(datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp() * 1000 + 0.5)
rev = lambda s: re.search(r"\(([^)]*)\)", s).group(1).rstrip(".") if "(" in s else s.strip()
fields = {  # nvmond detail key -> nvme-cli key, per type
    0x04: [("fw_rev", "fw_rev", rev), ("ctrl_power_cycle", "ctrl_power_cycle", int), ("power_on_ms", "power_on_ml_secs", int),
           ("fw_activation", "fw_act", int)],
    0x01: [("critical_warning", "critical_warning", int), ("avail_spare", "avail_spare", int),
           ("percent_used", "percent_used", int), ("temperature_k", "temperature", int), ("media_errors", "media_errors", str)],
    0x02: [("old_rev", "old_fw_rev", rev), ("new_rev", "new_fw_rev", rev), ("action", "fw_commit_action", int),
           ("slot", "fw_slot", int), ("sct", "sct_fw", int), ("sc", "sc_fw", int)],
    0x03: [("ms_since_reset", "ml_secs_since_reset", int), ("previous_ms", "prev_ts", lambda v: int(v) & MASK48)],
    0x05: [("code", "nss_hw_err_code", int)],
    0x06: [("nsid", "nsid", int), ("nsze", "nsze", int), ("ncap", "nscap", int)],
    0x07: [("nsid", "nsid", int), ("fna", "fna", int)],
    0x08: [("nsid", "nsid", int), ("status", "format_nvm_status", int)],
    0x0A: [("sprog", "sani_prog", int), ("sstat", "sani_status", int)],
    0x0B: [("fid", "fid", int)],
    0x0D: [("over_temp", "over_temp", int), ("threshold", "threshold", int)],
}
compared = skipped = 0
for i, (m, c) in enumerate(zip(mine, ce)):
    t = m["detail"]["type"]
    if c is None:
        print("  event %d (0x%02x, %s): nvme-cli 2.3 fails on it: nvmond's decoding stands on the spec alone"
              % (i, t, m["kind"]))
        continue
    check(t == cli_type(c), "event %d: type 0x%02x both" % (i, t))
    check(ms(m["start"]) == int(c["event_time_stamp"]) & MASK48, "event %d: timestamp %s = %d" % (i, m["start"], int(c["event_time_stamp"]) & MASK48))
    check(m["detail"]["size"] == 24 + int(c["event_len"]), "event %d: size %d = 24 + EL %s" % (i, m["detail"]["size"], c["event_len"]))
    for mk, ck, conv in fields.get(t, []):
        if ck not in c:
            print("  event %d (0x%02x): nvme-cli does not show %s; nvmond %s" % (i, t, ck, m["detail"].get(mk)))
            skipped += 1
            continue
        compared += 1
        check(str(m["detail"].get(mk)) == str(conv(c[ck])), "event %d (0x%02x) %s: nvmond %s, nvme-cli %s"
              % (i, t, mk, m["detail"].get(mk), c[ck]))
print("PEL fields compared with nvme-cli: %d; not shown by nvme-cli: %d" % (compared, skipped))
# What nvme-cli does not show, against what the shim built.
byk = {}
for m in mine:
    byk.setdefault(m["kind"], []).append(m)
check(byk["set_feature"][0]["detail"].get("fid") == 0x0C and byk["set_feature"][0]["detail"].get("cdw11") == 1,
      "Set Feature event: FID 0Ch, CDW11 1 as the shim logged them")
check(byk["unknown"][0]["detail"]["type"] == 0x20 and all(byk[k][0]["detail"]["size"] == 28 for k in ("vendor", "tcg", "unknown")),
      "vendor, TCG and a reserved type: kept with their header (28 bytes each)")
last = mine[-1]
check(last["kind"] == "thermal_excursion" and not last["late"] and last["detail"]["over_temp"] == 5,
      "the thermal excursion while nvmond watched is not late")
check(sum(1 for e in mine if e["late"]) == 16, "the 16 from before nvmond ran are late")
th = js("events-thermal.json")["events"]
check(len(th) == 2 and all(e["kind"] == "thermal_excursion" for e in th), "?kind=thermal_excursion: 2")

# reads: context established and released; incremental; nvme-cli's context taken over
nv = [l for l in cmd if "comm=nvmond" in l and "lid=0x0d" in l]
kv = lambda l: dict(x.split("=", 1) for x in l.split())
seq = [(kv(l)["lsp"], kv(l)["rc"], int(kv(l)["lpo"]), l) for l in nv]
print("\n".join(l for *_, l in seq))
open_ctx = False
ok = True
for lsp, rc, lpo, l in seq:
    if lsp == "1" and rc == "0x0":
        ok &= not open_ctx
        open_ctx = True
    elif lsp == "2":
        open_ctx = False
    elif lsp == "0":
        ok &= open_ctx
check(ok and not open_ctx, "every context nvmond established it released, and it read only inside one")
grow = cmd.index("grow")
after = [kv(l) for l in cmd[grow:] if "comm=nvmond" in l and "lid=0x0d" in l]
check(after and after[0]["lsp"] == "1" and after[0]["rc"] == "0xc",
      "nvme-cli left a context: nvmond's establish got Command Sequence Error")
check(len(after) > 2 and after[1]["lsp"] == "2" and after[2]["lsp"] == "1" and after[2]["rc"] == "0x0",
      "and it released and established again")
reads = [int(a["lpo"]) for a in after if a["lsp"] == "0"]
first_sizes = [m["detail"]["size"] for m in mine[:4]]
anchor = 512 + sum(first_sizes)
check(reads and reads[0] == anchor & ~3,
      "the read after growth starts at the 5th event (%d, its dword %d: LPO is dword aligned), not at 512: %s"
      % (anchor, anchor & ~3, reads))
rs = cmd.index("restart")
after_rs = [int(kv(l)["lpo"]) for l in cmd[rs:] if "comm=nvmond" in l and "lid=0x0d" in l and "lsp=0" in l]
check(after_rs and after_rs[0] == (512 + sum(m["detail"]["size"] for m in mine[:16])) & ~3,
      "after a restart it goes on from the stored anchor (the 17th event): %s" % after_rs)
st = [l for l in rd("status.log").splitlines() if "comm=nvmond" in l]
check(not st, "no command of nvmond's was refused (none for what a drive does not have): %s" % st)

# --- power, APST, HCTM ---------------------------------------------------------------
idc = js("idctrl0.json")
p1 = d1["power"]
check(p1["state"] == 0 and "Power State   (PS): 0" in rd("feat-2.txt"), "power state 0, as nvme-cli")
for s, psd in zip(p1["states"], idc["psds"]):
    scale = 0.0001 if psd["flags"] & 1 else 0.01
    check(abs(s["max_watts"] - psd["max_power"] * scale) < 1e-9 and s["entry_latency_us"] == psd["entry_lat"]
          and s["exit_latency_us"] == psd["exit_lat"] and s["non_operational"] == bool(psd["flags"] & 2),
          "PS%d: %s W, %s/%s us, non-op %s as id-ctrl" % (s["state"], s["max_watts"], s["entry_latency_us"],
                                                     s["exit_latency_us"], s["non_operational"]))
check(len(p1["states"]) == idc["npss"] + 1 == 5, "5 power states")
fc = rd("feat-c.txt")
a = p1["apst"]
check(a["supported"] and a["enabled"] and "(APSTE): Enabled" in fc, "APST on, as nvme-cli")
e0 = re.search(r"Entry\[ 0\].*?\(ITPT\): (\d+) ms.*?\(ITPS\): (\d+)", fc, re.S)
check(e0 and a["idle_before_non_operational_ms"] == int(e0.group(1)) and a["to_state"] == int(e0.group(2)),
      "APST from PS0: %s ms to PS%s, as nvme-cli's entry 0" % (a["idle_before_non_operational_ms"], a["to_state"]))
h = d1["thermal_management"]
f10 = rd("feat-10.txt")
check(h["tmt1_k"] == 343 and h["tmt2_k"] == 353 and "(TMT1) : 343 Kelvin" in f10 and "(TMT2) : 353 Kelvin" in f10,
      "HCTM TMT1 343 K, TMT2 353 K, as nvme-cli")
check(h["min_k"] == idc["mntmt"] and h["max_k"] == idc["mxtmt"], "MNTMT/MXTMT as id-ctrl")
d3 = dev("dev0-3.json")
p3 = d3["power"]
check(p3["state"] == 2 and "Power State   (PS): 2" in rd("feat-2b.txt"), "power state 2, as nvme-cli")
check(p3["apst"]["enabled"] is False and "(APSTE): Disabled" in rd("feat-cb.txt"), "APST off, as nvme-cli")
h3 = d3["thermal_management"]
check(h3["tmt1_k"] is None and h3["tmt2_k"] is None and "(TMT1) : 0 Kelvin" in rd("feat-10b.txt"),
      "HCTM unset (0: off), as nvme-cli")
tl = js("power.json")["timeline"]
print("power timeline:", [(r["state"], r["apst_enabled"], r["tmt1_k"]) for r in tl])
check(tl[0]["state"] == 0 and tl[0]["apst_enabled"] and tl[0]["tmt1_k"] == 343 and
      tl[-1]["state"] == 2 and tl[-1]["apst_enabled"] is False and tl[-1]["tmt1_k"] is None,
      "the timeline: PS0, APST on, TMT1 343 K ... PS2, APST off, HCTM off")
m2 = rd("metrics2.txt")
check(re.search(r'^nvmond_power_state\{[^}]*NVMOND-VM-0000[^}]*\} 2$', m2, re.M), "/metrics nvmond_power_state 2")
check(re.search(r'^nvmond_power_state\{[^}]*NVMOND-VM-0000[^}]*\} 0$', m1, re.M), "/metrics nvmond_power_state 0 before")
pq = d1b["power"]
check(pq["state"] == 0 and len(pq["states"]) == 1 and pq["states"][0]["max_watts"] == 25.0
      and pq["apst"]["supported"] is False and d1b["thermal_management"] is None,
      "NVMOND-VM-0001 (QEMU): PS0 of one state, 25 W, no APST, no HCTM")
check(not [l for l in cmd if "serial=NVMOND-VM-0001" in l and "fid=" in l],
      "the shim answered no feature for NVMOND-VM-0001 (QEMU answered 02h)")

# --- namespaces ------------------------------------------------------------------------
ns = js("idns0.json")
lbads = ns["lbafs"][ns["flbas"] & 0xf]["ds"]
u = d1["namespace_usage"][0]
check(u["size_bytes"] == ns["nsze"] << lbads and u["capacity_bytes"] == ns["ncap"] << lbads
      and u["used_bytes"] == ns["nuse"] << lbads, "namespace 1: NSZE/NCAP/NUSE as id-ns: %s" % u)

# --- the verdict ---------------------------------------------------------------------------
hv = dev("dev0-2.json")["risk"]
print("verdict:", json.dumps(hv, indent=1))
check(hv["verdict"] == "watch" and any(r["rule"] == "recent_errors" and "Schroeder" in r["source"] for r in hv["reasons"]),
      "one media error: watch, with its reason and source (not more)")
sys.exit(1 if bad else 0)
