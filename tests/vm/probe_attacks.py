#!/usr/bin/env python3
"""Checker of test_probe_attacks.sh: judges what probe_attacks.guest.sh left in
its output directory. One "ok:" or "FAIL:" line per check, then a table of
every attack with the message nvmond gave; exit status 1 on any FAIL."""
import json
import os
import sys

OUT = sys.argv[1]
UNIT = 512000  # one SMART data unit
META = 2 << 20  # what filesystem metadata may add to a drive's count
SERIALS = {"X": "NVMOND-VM-0000", "Y": "NVMOND-VM-0001", "M": "NVMOND-VM-0002",
           "E": "NVMOND-VM-0003"}

errors = []
table = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        errors.append(what)
    return cond


def text(name):
    try:
        with open(os.path.join(OUT, name), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def load(name, default=None):
    t = text(name).strip()
    if not t:
        return default
    try:
        return json.loads(t)
    except ValueError:
        return default


facts = {}
for line in text("facts.txt").splitlines():
    k, _, v = line.partition(" ")
    facts[k] = v.strip()


def fact(k, default=""):
    return facts.get(k, default)


def ifact(k):
    try:
        return int(fact(k))
    except ValueError:
        return None


runs = {r["id"]: r for r in load("runs-final.json", [])}


def rc(name):
    t = text(name + ".rc").strip()
    return int(t) if t.lstrip("-").isdigit() else None


def result(name):
    r = load(name + ".json")
    return r if isinstance(r, dict) else None


def message(name):
    """What nvmond said: the run's state and reason, else its stderr."""
    r = result(name)
    err = " ".join(line for line in text(name + ".err").splitlines()
                   if not line.startswith("nvmond-test-swap:")).strip()
    if r is not None:
        return "%s: %s" % (r.get("state"), r.get("reason") or "(no reason)")
    if text(name + ".status"):
        return "HTTP %s %s" % (text(name + ".status").strip(), text(name + ".body").strip())
    return err or "(nothing)"


def note(attack, msg, title=None):
    table.append((attack, title or fact(attack + ".title", attack), msg))


def duw_delta(key, serial):
    a, b = ifact("%s.before.%s" % (key, serial)), ifact("%s.after.%s" % (key, serial))
    return None if a is None or b is None else b - a


def wrote_nothing(name, meta=0):
    """No drive's data_units_written moved (beyond @meta bytes of metadata)."""
    for k, s in SERIALS.items():
        d = duw_delta(name, s)
        check(d is not None and 0 <= d * UNIT <= meta,
              "%s: drive %s counted %s units around it" % (name, k, d))
    r = result(name)
    if r is not None:
        check(r.get("bytes_written") == 0 and r.get("bytes_charged") == 0,
              "%s: the run wrote and was charged nothing (%s, %s)" %
              (name, r.get("bytes_written"), r.get("bytes_charged")))


def refused(name, want, code=1):
    msg = message(name)
    note(name, msg)
    check(rc(name) == code and all(w in msg for w in want),
          "%s refused, exit %s (want %s, %s): %s" % (name, rc(name), code, want, msg[:300]))
    return msg


def same(a, b, what):
    va, vb = fact(a), fact(b)
    check(va != "" and va == vb, "%s: %s = %s" % (what, va[:12], vb[:12]))


def covered(charged, d_units, what, slack=0):
    """bytes_charged covers what the drive counted (one unit of rounding)."""
    if charged is None or d_units is None:
        return check(False, what + ": no figures")
    counted = d_units * UNIT
    return check(charged >= counted - UNIT - slack,
                 "%s: %d bytes charged, drive counted %d units (%d bytes)" %
                 (what, charged, d_units, counted))


def delta(a, b):
    va, vb = ifact(a), ifact(b)
    return None if va is None or vb is None else vb - va


def run_of(name):
    r = result(name)
    return runs.get(r["id"]) if r and "id" in r else None


def http_status(name):
    t = text(name + ".status").strip()
    return int(t) if t.isdigit() else None


canary = fact("canary.md5")

# ---- 1. renumbering ------------------------------------------------------
# ---- 0. a daemon taken over (issue 23 §1) ------------------------------------------
print("--- c00: a daemon taken over asks its device process")


def c00(key, want):
    """The device process's answer to one request is @want (a part of it)."""
    got = fact("c00." + key)
    note("c00." + key, got, key)
    return check(want in got, "c00 %s: %r in %r" % (key, want, got))


check(fact("c00.ids") == "uid 990 euid 990",
      "c00: the attacker holds the daemon's user, without capability: %s" % fact("c00.ids"))
check(fact("c00.m2_blkid") == "none", "c00: M2 holds data without a signature libblkid knows")
# Rule: the device process refuses every write open the configuration does not allow,
# with a reason, before it opens anything.
c00("w_m2", "refused: namespace 2 of drive NVMOND-VM-0002 is not its probe_namespace (1)")
c00("w_m2_as_nsid1", "not configured to be written")
c00("w_m2_as_x", "is not namespace 1 of drive NVMOND-VM-0000: refused")
c00("w_m2_no_model", "only for a drive named by model and serial")
c00("r_m2", "not its probe_namespace")
c00("w_m1", "namespace 1 of drive NVMOND-VM-0002 is not configured to be written")
# The namespace the configuration names is granted: the refusals are the policy's.
c00("w_x", "granted: O_RDWR")
c00("w_x_nsid2", "not its probe_namespace (1)")
# Rule: the configuration read between two requests decides: a write taken out of the
# file is refused at once, before and after a reload; one added is granted only after
# a reload, which the daemon cannot fake (it carries nothing).
c00("w_x_off_now", "/tmp/c00.conf as it is now: namespace 1 of drive NVMOND-VM-0000 is not "
    "configured to be written")
c00("reload_off", "reloaded")
c00("w_x_off", "refused: namespace 1 of drive NVMOND-VM-0000 is not configured to be written")
c00("r_x_off", "granted: O_RDONLY")
c00("w_x_on_now", "not configured to be written")
c00("w_m2_on_now", "not its probe_namespace (1)")
c00("reload_on", "reloaded")
c00("w_x_on", "granted: O_RDWR")
c00("w_x_broken", "/tmp/c00.conf cannot be read now")
check(fact("c00.rc") == "0", "c00: the attacker ran to its end (%s)" % fact("c00.rc"))
same("c00.m2_md5_before", "c00.m2_md5_after", "c00: M2 (data, no signature) byte-identical")
same("c00.x_md5_before", "c00.x_md5_after", "c00: X byte-identical (granted, never written)")

print("--- a01: renumbering")
nb, na = fact("a01.names_before").split(), fact("a01.names_after").split()
check(len(nb) == 2 and len(na) == 2 and nb == na[::-1],
      "the rebind swapped the controllers' names: X,Y %s -> %s" % (nb, na))
nsx, nsy = (fact("a01.ns_after").split() + ["?", "?"])[:2]
table.append(("a01", fact("a01.title"), "X,Y were %s, are %s" % (",".join(nb), ",".join(na))))
x0, x1 = ifact("a01.x_duw_before"), ifact("a01.x_duw_after")
y0, y1 = ifact("a01.y_duw_before"), ifact("a01.y_duw_after")
check(None not in (x1, y0) and x1 < y0,
      "X's count stays below Y's (%s < %s): a sample of one under the other shows" % (x1, y0))
a01_runs = []
for name in ("a01_api1", "a01_api2"):
    st = http_status(name)
    note(name, message(name), "POST a probe of X %s" %
         ("at once after the rebind" if name == "a01_api1" else "once the names settled"))
    check(st in (202, 409), "%s: POST answered %s %s" % (name, st, text(name + ".body")[:200]))
    if st == 202:
        rid = load(name + ".body", {}).get("id")
        r = runs.get(rid)
        check(r is not None and r["state"] != "running",
              "%s: run %s ended: %s" % (name, rid, r and (r["state"] + " " + r["reason"])))
        if r:
            a01_runs.append(r)
            table.append(("", "  its run", "%s: %s, target %s (X), %d bytes written" %
                          (r["state"], r["reason"] or "-", r["target"], r["bytes_written"])))
r = run_of("a01_cli")
note("a01_cli", "%s, target %s" % (message("a01_cli"), r and r["target"]),
     "nvmond probe --device %s after the rebind" % SERIALS["X"])
check(rc("a01_cli") == 0 and r and r["state"] == "done" and r["bytes_written"] > 0,
      "a01_cli: nvmond probe --device %s wrote X: %s" % (SERIALS["X"], message("a01_cli")))
if r:
    a01_runs.append(r)
for r in a01_runs:
    if r["target"]:
        check(r["target"] == "/dev/" + nsx,
              "run %d (%s) targeted X's namespace /dev/%s, not Y's /dev/%s: %s" %
              (r["id"], r["trigger"], nsx, nsy, r["target"]))
wrote = sum(r["bytes_written"] for r in a01_runs)
charged = sum(r["bytes_charged"] for r in a01_runs)
if None not in (x0, x1):
    check(wrote - UNIT <= (x1 - x0) * UNIT <= charged + UNIT,
          "X counted %d units for %d bytes written, %d charged" % (x1 - x0, wrote, charged))
check(y0 is not None and y0 == y1, "Y counted no write: %s -> %s units" % (y0, y1))
named = {d["serial"]: d["name"] for d in (load("a01.devices.json", {}) or {}).get("devices", [])}
check(bool(na) and named.get(SERIALS["X"]) == na[0],
      "the daemon knows X under its new name: %s" % named.get(SERIALS["X"]))
same("a01.y_md5_before", "a01.y_md5_after", "Y byte-identical (whole namespace)")
check(fact("a01.y_fsck_rc") == "0", "e2fsck -fn of Y: clean (rc %s)" % fact("a01.y_fsck_rc"))
check(fact("a01.y_canary") == canary, "the canary file on Y intact")
t_swap = ifact("a01.t_swap_ms") or 0
for who, fname, lo, hi in (("X", "a01.samples_x.json", 0, x1), ("Y", "a01.samples_y.json", y0, y1)):
    samples = (load(fname, {}) or {}).get("samples", [])
    after = [s for s in samples if s["ts_ms"] > t_swap]
    check(len(after) > 0, "%s polled after the swap: %d of %d samples" % (who, len(after), len(samples)))
    bad = [s["data_units_written"] for s in samples
           if lo is None or hi is None or not lo <= int(s["data_units_written"]) <= hi]
    check(not bad, "every sample stored under %s's id shows %s's own count (%s..%s units): bad %s" %
          (who, who, lo, hi, bad[:5]))

# ---- 4. an unmounted filesystem -----------------------------------------
print("--- a04: signature")
refused("a04", ["ext4 filesystem is on", "never written"])
wrote_nothing("a04")
same("a01.y_md5_before", "a04.md5_after", "Y byte-identical after a04")

# ---- 9. two processes, one drive -----------------------------------------
print("--- a09: one probe per drive across processes")
table.append(("a09", fact("a09.title"), ""))
check(http_status("a09_api") == 202, "a09: the daemon's probe started: %s" % text("a09_api.body"))
check(fact("a09.daemon_running_before") == "running" and fact("a09.daemon_running_after") == "running",
      "a09: the daemon's run was running while nvmond probe asked")
refused("a09_cli", ["a probe is running on this drive in another nvmond process", "the daemon"])
table[-1] = ("a09_cli", "  nvmond probe while the daemon probes the drive", table[-1][2])
table.append(("a09b", fact("a09b.title"), ""))
check(http_status("a09b_api") == 409 and "another nvmond process" in text("a09b_api.body")
      and "nvmond probe" in text("a09b_api.body"),
      "a09b: the daemon refused with 409 while nvmond probe ran: %s" % text("a09b_api.body"))
note("a09b_api", message("a09b_api"), "  POST a probe while nvmond probe runs on the drive")
check(fact("a09b.cli_alive") == "yes", "a09b: nvmond probe still ran when the daemon refused")
r = run_of("a09b_cli")
check(r is not None and r["state"] == "aborted" and r["reason"] == "interrupted (a signal)",
      "a09b: SIGINT ended nvmond probe's run: %s" % message("a09b_cli"))
note("a09b_cli", message("a09b_cli"), "  nvmond probe, then SIGINT")
# The budget while each holder ran (its reservation is charged up front), and
# at the end: the runs of the holders only.
lb = load("a09.list_before.json", {}) or {}
for when, fname, want in (("while the daemon ran", "a09.list_mid.json", [("api", "running")]),
                          ("while nvmond probe ran", "a09b.list_mid.json",
                           [("api", "aborted"), ("cli", "running")]),
                          ("at the end", "a09.list_after.json", [("api", "aborted"), ("cli", "aborted")])):
    la = load(fname, {}) or {}
    new = sorted((p for p in la.get("probes", []) if p["id"] not in {q["id"] for q in lb.get("probes", [])}),
                 key=lambda p: p["id"])
    check([(p["trigger"], p["state"]) for p in new] == want,
          "a09 %s: one run per holder: %s" % (when, [(p["id"], p["trigger"], p["state"]) for p in new]))
    used = la.get("budget", {}).get("used_day_bytes", -1) - lb.get("budget", {}).get("used_day_bytes", 0)
    check(used == sum(p["bytes_charged"] for p in new) and (when == "at the end" or used > 0),
          "a09 %s: the budget used grew by those runs' charges only: %d = %s" %
          (when, used, [p["bytes_charged"] for p in new]))

# ---- 10. killed mid-run ---------------------------------------------------
print("--- a10: killed mid-run")
r = runs.get(ifact("a10c.run"))
check(fact("a10c.state_after_kill") == "running" and fact("a10c.state_after_restart") == "failed",
      "a10c: daemon SIGKILLed mid-run: the run stayed running (%s), the restart failed it (%s)" %
      (fact("a10c.state_after_kill"), fact("a10c.state_after_restart")))
if r:
    table.append(("a10c", fact("a10c.title"), "%s: %s" % (r["state"], r["reason"])))
    covered(r["bytes_charged"], delta("a10c.duw_before", "a10c.duw_after"),
            "a10c: the daemon's killed run")
for name, sig in (("a10t", "SIGTERM"), ("a10h", "SIGHUP")):
    r = run_of(name)
    note(name, message(name))
    check(rc(name) == 1 and r and r["state"] == "aborted" and r["reason"] == "interrupted (a signal)",
          "%s: %s aborted nvmond probe: %s" % (name, sig, message(name)))
    if r:
        covered(r["bytes_charged"], delta(name + ".duw_before", name + ".duw_after"), name)
r = runs.get(ifact("a10k.run"))
check(fact("a10k.state_after_kill") == "running" and fact("a10k.state_after_next") == "failed",
      "a10k: nvmond probe SIGKILLed: running (%s) until the next process settled it (%s)" %
      (fact("a10k.state_after_kill"), fact("a10k.state_after_next")))
if r:
    table.append(("a10k", fact("a10k.title"), "%s: %s" % (r["state"], r["reason"])))
    covered(r["bytes_charged"], delta("a10k.duw_before", "a10k.duw_after"), "a10k")
note("a10k_next", message("a10k_next"), "  the next nvmond probe of X (settles the dead run)")

# ---- 5, 6. signatures made while the probe reads ---------------------------
for a, what, want in (("a05", "mke2fs", "ext2 filesystem is on"),
                      ("a06", "sfdisk", "dos partition table is on")):
    print("--- %s: %s during the read phase" % (a, what))
    r = result(a)
    note(a, message(a))
    if a == "a05":
        table.append(("", "  mount of that filesystem meanwhile", text("a05.mount").strip()))
    check(fact(a + (".alive_at_mkfs" if a == "a05" else ".alive_at_sfdisk")) == "yes",
          "%s: the probe was reading when %s ran" % (a, what))
    check(r is not None and r["state"] == "aborted" and want in r["reason"]
          and "before the write phase" in r["reason"] and r["bytes_written"] == 0
          and r["bytes_charged"] == 0,
          "%s: aborted before its write phase, nothing written: %s" % (a, message(a)))
    same(a + (".md5_mkfs" if a == "a05" else ".md5_table"), a + ".md5_after",
         "%s: the namespace as %s left it" % (a, what))
check(fact("a05.mkfs_rc") == "0", "a05: mke2fs wrote its filesystem")
check(fact("a05.mount_rc") != "0" and "busy" in text("a05.mount").lower(),
      "a05: mount refused while the probe held the namespace: %s" % text("a05.mount").strip())
check("ext2" in text("a05.blkid"), "a05: the filesystem is there after the run: %s" % text("a05.blkid").strip())
made, after = text("a06.table_made"), text("a06.table_after")
check("type=83" in made and made == after, "a06: the partition table intact after the run")

# ---- 2, 3. mounted ---------------------------------------------------------
print("--- a02/a03: mounted")
msg = refused("a02", [])
check("mounted" in msg or "in use" in msg, "a02: btrfs mounted: %s" % msg)
# seq1m-q1 may read a mounted namespace, or be refused outright; never write it.
r = result("a02_seq")
note("a02_seq", message("a02_seq"), "  the same with seq1m-q1 (read, then write)")
check(r is not None and r["bytes_written"] == 0 and r["bytes_charged"] == 0
      and ("in use" in r["reason"] or [p["name"] for p in r.get("phases", [])] == ["read"]),
      "a02_seq: seq1m-q1 did not write the mounted namespace: %s" % message("a02_seq"))
check(ifact("a02.duw_before") == ifact("a02.duw_after"), "a02: X counted no write")
same("a02.md5_before", "a02.md5_after", "a02: the mounted btrfs byte-identical")
check(fact("a02.canary") == canary, "a02: the canary on btrfs intact")
check(fact("a03.in_our_mountinfo") == "0", "a03: the mount is not in nvmond's mount namespace")
refused("a03", ["is in use", "another mount namespace"])
check(ifact("a03.duw_before") == ifact("a03.duw_after"), "a03: X counted no write")
same("a03.md5_before", "a03.md5_after", "a03: the ext4 mounted elsewhere byte-identical")

# ---- 11. write errors --------------------------------------------------------
print("--- a11: I/O errors")
BUDGET11 = 96 << 20
n11 = ifact("a11.n") or 0
table.append(("a11", fact("a11.title"), ""))
a11, used, failed = [], 0, 0
for k in range(1, n11):
    name = "a11_%d" % k
    r = run_of(name)
    note(name, "%s (charged %s)" % (message(name), r and r["bytes_charged"]),
         "  sustained-write, run %d" % k)
    if r is None:
        check(False, "%s: no run recorded: %s" % (name, message(name)))
        continue
    a11.append(r)
    left = BUDGET11 - used
    if r["state"] == "failed":
        failed += 1
        check("write phase" in r["reason"] and r["bytes_charged"] > 0
              and r["bytes_charged"] >= r["bytes_written"],
              "%s: failed on the write error, charged %d (written %d): %s" %
              (name, r["bytes_charged"], r["bytes_written"], message(name)))
    else:
        check(r["bytes_charged"] <= left,
              "%s: cut short by the budget: %s, charged %d of %d left" %
              (name, message(name), r["bytes_charged"], left))
    used += r["bytes_charged"]
last = "a11_%d" % n11
note(last, message(last), "  sustained-write, run %d" % n11)
check(n11 >= 2 and rc(last) == 1 and result(last) is None and "write budget used" in message(last),
      "a11: the day budget refused run %d: %s" % (n11, message(last)))
check(failed >= 3, "a11: %d runs failed on the write error" % failed)
covered(used, delta("a11.duw_before", "a11.duw_after"), "a11: the runs together")
check(used <= BUDGET11, "a11: the charges (%d bytes) stay within the 96 MiB day budget" % used)
r = result("a11e_1")  # its own database
table.append(("a11e", fact("a11e.title"), ""))
note("a11e_1", message("a11e_1"), "  sustained-write, run 1")
check(r is not None and r["state"] == "failed" and r["bytes_charged"] > 0,
      "a11e_1: failed after writing: %s" % message("a11e_1"))
refused("a11e_2", ["sustained_every"])
table[-1] = ("a11e_2", "  sustained-write, run 2", table[-1][2])

# ---- 14. namespaces ------------------------------------------------------------
print("--- a14: namespaces")
table.append(("a14", fact("a14.title"), ""))
for name, nsid, written, kept in (("a14_ns1", 1, "n1", "n2"), ("a14_ns2", 2, "n2", "n1")):
    r = result(name)
    step = "1" if nsid == 1 else "2"
    prev = str(int(step) - 1)
    note(name, "%s, nsid %s, target %s" % (message(name), r and r.get("nsid"), r and r.get("target")),
         "  destructive = yes, probe_namespace %s" % ("unset (1)" if nsid == 1 else "= 2"))
    check(rc(name) == 0 and r and r.get("nsid") == nsid and r["bytes_written"] > 0,
          "%s: wrote NSID %d (%s)" % (name, nsid, r and r.get("target")))
    check(fact("a14.%s_md5_%s" % (written, prev)) != fact("a14.%s_md5_%s" % (written, step)),
          "%s: NSID %s changed" % (name, written[1]))
    same("a14.%s_md5_%s" % (kept, prev), "a14.%s_md5_%s" % (kept, step),
         "%s: NSID %s byte-identical" % (name, kept[1]))

# ---- 12. no room ----------------------------------------------------------------
print("--- a12: no fallocate, no room")
check(fact("a12.fallocate_rc") != "0", "a12: fallocate fails there: %s" % text("a12.fallocate").strip())
refused("a12", ["no room for the"])
d = delta("a12.duw_before", "a12.duw_after")
check(d is not None and 0 <= d * UNIT <= META, "a12: M counted %d units (metadata only)" % d)
check(fact("a12.left") == "0", "a12: no file left in probe_dir")

# ---- the probe file ---------------------------------------------------------------
print("--- probe file attacks")
for name in ("f_ok0", "f_ok1", "f_ok2"):
    r = result(name)
    check(rc(name) == 0 and r and r["state"] == "done" and r["bytes_written"] > 0,
          "%s: %s" % (fact(name + ".title"), message(name)))
    note(name, message(name))
refused("a07", ["is not the file nvmond made there"])
check("is now a hard link to /mnt/y/victim7" in text("a07.err") and "one link" in text("a07.err"),
      "a07: the shim swapped the name at the open: %s" %
      " | ".join(line for line in text("a07.err").splitlines() if "nvmond-test-swap" in line))
check(fact("a07.ino_after") == fact("a07.victim_ino") and fact("a07.links_after") == "1"
      and fact("a07.victim_name_left") == "0",
      "a07: nvmond-probe.dat was the victim's inode %s with one link" % fact("a07.victim_ino"))
check(fact("a07.md5_after") == canary, "a07: the victim's data unchanged")
wrote_nothing("a07", META)
for name, want, md5key in (
        ("a08", ["is a mount point"], "a08.md5_after"),
        ("r_symlink", ["is a symlink"], "r_symlink.md5_after"),
        ("r_fifo", ["not a regular file (a FIFO)"], None),
        ("r_devnode", ["not a regular file (a block device node)"], None),
        ("r_hardlink", ["has 2 links"], "r_hardlink.md5_after"),
        ("r_unknown", ["exists, but nvmond has no record of making it"], None),
        ("r_dirlink", ["a symlink is on its path"], None),
        ("r_dirmode", ["is writable by others"], None),
        ("e_size", ["whole MiB"], None),
        ("e_nons", ["has no namespace 7"], None),
        ("e_huge", ["write budget"], None),
        ("e_room", ["no room for the"], None),
        ("e_max", [], None),
        ("r_binddir", ["the filesystem is on", "not on nvme"], None),
        ("r_tmpfs", ["not on a block device"], None),
        ("r_overlay", ["not on a block device"], None),
        ("r_loop", ["the filesystem is on loop", "not on nvme"], None),
        ("r_swapped", ["the filesystem is on nvme", "not on nvme"], None),
        ("r_dm", ["the filesystem is on dm-", "not on nvme"], None)):
    refused(name, want)
    wrote_nothing(name, META)
    if md5key:
        check(fact(md5key) == canary, "%s: the victim's data unchanged" % name)
refused("e_nsid", ["probe_namespace", "out of range"], code=2)
same("r_devnode.md5_before", "r_devnode.md5_after", "r_devnode: the namespace behind the node byte-identical")
same("r_unknown.md5_before", "r_unknown.md5_after", "r_unknown: the file nvmond did not make unchanged")
same("r_loop.md5_before", "r_loop.md5_after", "r_loop: the loop device byte-identical")
same("r_swapped.md5_before", "r_swapped.md5_after", "r_swapped: Y's probe file unchanged")
for k in ("r_dirlink.left", "r_dirmode.left", "e_max.left", "r_overlay.left", "r_dm.left"):
    check(fact(k) == "0", "%s: nothing made there (%s entries)" % (k.split(".")[0], fact(k)))
check(fact("r_binddir.left") == "1", "r_binddir: only the canary in Y's directory")
check(fact("r_dm.canary") == canary, "r_dm: the canary on the spanning filesystem intact")
check(fact("y.canary_end") == canary, "Y's canary intact after the probe file attacks")

# ---- 13. foreground I/O -----------------------------------------------------------
print("--- a13: foreground I/O on a sibling partition")
r = result("a13")
note("a13", message("a13"))
check(fact("a13.alive_at_dd") == "yes", "a13: the probe ran when the reads began")
check(r is not None and r["state"] == "aborted" and "foreground I/O started" in r["reason"],
      "a13: aborted by reads of partition 2: %s" % message("a13"))
same("a13.p2_md5_before", "a13.p2_md5_after", "a13: partition 2 byte-identical")

# ---- every run -----------------------------------------------------------------------
print("--- every run")
ns_of = {s: fact("ns." + s).split() for s in SERIALS.values()}
for r in runs.values():
    if r["target"].startswith("/dev/"):
        check(r["target"][5:] in ns_of.get(r["serial"], []),
              "run %d (%s on %s) wrote nothing but its own drive: %s" %
              (r["id"], r["preset"], r["serial"], r["target"]))
    if r["state"] != "running":
        check(r["bytes_charged"] >= r["bytes_written"],
              "run %d: charged %d >= written %d" % (r["id"], r["bytes_charged"], r["bytes_written"]))
check(not [r for r in runs.values() if r["state"] == "running"], "no run left running")

print()
print("%-10s %-62s %s" % ("attack", "what", "nvmond's answer"))
for a, title, msg in table:
    print("%-10s %-62s %s" % (a, title[:62], " ".join(msg.split())[:400]))
print()
print("%d checks failed" % len(errors) if errors else "all checks passed")
sys.exit(1 if errors else 0)
