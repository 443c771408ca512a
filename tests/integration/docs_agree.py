#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every list the docs repeat, compared with its one source; every example run.

Run by test_docs_agree.sh (issue 28). Each check prints "checked …" and one
"FAIL: where: what" line per mismatch, naming the file, the list and the item:

  keys      the key table (nvmond-docs-tables: cfg_key_describe()) against the
            tables of docs/configuration.md (type, default, range), the sample
            systemd/nvmond.conf and nvmond.conf(5) (defaults), the keys that wait
            for the next start, and the spellings of a bool
  help      nvmond --help: its commands against nvmond(8) and installing.md, its
            options against nvmond(8) and installing.md, the commands its exit
            statuses name against nvmond(8)'s
  presets   GET …/probes "presets" (the preset table) against --help, nvmond(8),
            docs/probes.md's table and api.md's example
  routes    the router's table (the daemon's debug log) against docs/api.md's
            table and nvmond(8)'s HTTP list, with each endpoint's token and its
            query parameters (each endpoint asked with an unknown parameter: its
            400 names the ones it knows)
  metrics   the families of /metrics (# TYPE) against docs/metrics.md, with types
  json      every ```json block (and the JSON a ```console block shows) parses;
            the examples of api.md's GET endpoints have the daemon's keys, and a
            key the daemon sends is in the example or the section's field table
  claims    statements about the demo: alerts.md's error log of the 950 PRO,
            `nvmond status --json` against /devices as api.md and installing.md
            describe it
  examples  each `$ nvmond …` line of docs/*.md's code blocks runs (with the
            test's configuration added: -c FILE), with its exit status 0 and
            each line of the output shown (numbers and ids may differ; "…" skips)

A code block is configured or skipped by an HTML comment on the line before it:
  <!-- docs-test: conf [probes] phase_duration = 1s -->
  <!-- docs-test: skip REASON -->
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

FAILS = []


def fail(where, what):
    FAILS.append(f"{where}: {what}")
    print(f"FAIL: {where}: {what}", flush=True)


def note(msg):
    print(f"NOTE: {msg}", flush=True)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---- Markdown --------------------------------------------------------------------


def cells(row):
    """The cells of a table row, split at | not escaped as \\|."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)]


def tables_under(md, heading_re):
    """{heading: [rows (lists of cells)]} for the tables under headings matching heading_re."""
    out, cur, in_code = {}, None, False
    for line in md.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if re.match(r"#+ ", line):
            m = re.search(heading_re, line)
            cur = m.group(1) if m else None
            continue
        if cur and line.startswith("|") and not re.match(r"\|\s*-", line):
            out.setdefault(cur, []).append(cells(line))
    return out


def code_blocks(md):
    """(lang, first line number, text, directives) of every fenced block."""
    blocks, lines, i = [], md.splitlines(), 0
    while i < len(lines):
        m = re.match(r"```(\S*)", lines[i])
        if not m:
            i += 1
            continue
        lang, start, body = m.group(1), i + 1, []
        directives = []
        j = i - 1
        while j >= 0 and lines[j].startswith("<!-- docs-test:"):
            directives.append(lines[j][len("<!-- docs-test:"):].rstrip(" ->").strip())
            j -= 1
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        blocks.append((lang, start, "\n".join(body), directives))
        i += 1
    return blocks


def unbacktick(s):
    return s.replace("`", "").strip()


# ---- JSON examples -----------------------------------------------------------------

ELIDED = "__elided__"
FRAGMENT = "__fragment__"  # a block of "key": value, a member of an answer


def json_normalise(text):
    """The docs' JSON with its placeholders made JSON: "…" elides members and values."""
    t = re.sub(r"(?m)\s+//[^\n]*$", "", text)  # // comments at the end of a line
    t = re.sub(r"\{\s*…\s*\}", '{"%s": true}' % ELIDED, t)
    t = re.sub(r"\[\s*…\s*\]", "[]", t)
    t = re.sub(r",\s*…\s*(?=\})", ', "%s": true' % ELIDED, t)
    t = re.sub(r",\s*…\s*(?=\])", "", t)
    t = re.sub(r"(?<=\{)\s*…\s*,", '"%s": true,' % ELIDED, t)
    t = re.sub(r"(?<=\[)\s*…\s*,", "", t)
    t = re.sub(r":\s*…", ": null", t)
    return t


def json_values(text):
    """Every JSON value of a block (one or several, or "key": value fragments)."""
    t = json_normalise(text).strip()
    if re.match(r'"[^"]+"\s*:', t):
        t = '{"%s": true, ' % FRAGMENT + t + "}"
    dec, out, i = json.JSONDecoder(), [], 0
    while i < len(t):
        while i < len(t) and t[i].isspace():
            i += 1
        if i == len(t):
            break
        v, i = dec.raw_decode(t, i)
        out.append(v)
    return out


# ---- the daemon ---------------------------------------------------------------------


class Daemon:
    def __init__(self, args):
        self.args, self.port, self.proc = args, None, None
        self.token = "docs-t0ken"

    def start(self):
        import socket

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        tmp = self.args.tmp
        self.conf = os.path.join(tmp, "daemon.conf")
        with open(self.conf, "w") as f:
            f.write(
                f"[daemon]\ndatabase = {tmp}/daemon.db\ndemo = yes\nlog_level = debug\n"
                f"[http]\ntoken = {self.token}\n[probes]\nlock_dir = {tmp}/daemon-locks\n"
                # the sinks of api.md's /alerts example, delivering nowhere
                '[sink "phone"]\ntype = ntfy\nurl = http://127.0.0.1:9/x\n'
                '[sink "am"]\ntype = alertmanager\nurl = http://127.0.0.1:9\n'
            )
        os.chmod(self.conf, 0o600)
        self.log = os.path.join(tmp, "daemon.log")
        self.proc = subprocess.Popen(
            [self.args.bin, "-c", self.conf, "--listen", f"127.0.0.1:{self.port}"],
            stdout=open(self.log, "w"),
            stderr=subprocess.STDOUT,
        )

    def wait(self):
        for _ in range(300):
            if self.proc.poll() is not None:
                sys.exit(f"FAIL: the demo daemon exited: {read(self.log)[-2000:]}")
            try:
                if self.get("/healthz")[0] == 200 and "is online" in read(self.log):
                    return
            except OSError:
                pass
            time.sleep(0.1)
        sys.exit("FAIL: the demo daemon did not answer /healthz within 30 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def request(self, method, path, token=False, body=None):
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", method=method, data=body
        )
        if token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def get(self, path):
        return self.request("GET", path)

    def get_json(self, path):
        st, body = self.get(path)
        if st != 200:
            raise RuntimeError(f"GET {path}: {st} {body[:200]}")
        return json.loads(body)


# ---- keys ---------------------------------------------------------------------------------


def conf_doc_keys(md):
    """{(section, key): (type, default, range)} of configuration.md's key tables."""
    out = {}
    for sect, rows in tables_under(md, r"^###+ `\[([a-z]+)(?:\]| \"X\"\])`").items():
        for r in rows:
            if len(r) < 5 or not re.match(r"^`[a-z0-9_]+`$", r[0]):
                continue
            out[(sect, r[0].strip("`"))] = (r[1], r[2], r[3])
    return out


def ini_defaults(text):
    """{(section, key): value} of the "#key = value" lines of the sample (sink sections apart)."""
    out, sect = {}, None
    for line in text.splitlines():
        m = re.match(r'^#?\[device "', line)
        if m:
            sect = "device"
            continue
        m = re.match(r"^#?\[([a-z]+)\]", line)
        if m:
            sect = m.group(1)
            continue
        if re.match(r'^#?\[[a-z]+ "', line):
            sect = None  # [sink "NAME"], [export "NAME"]: examples, not key defaults
            continue
        m = re.match(r"^#?([a-z][a-z0-9_]*) =(?: (.*))?$", line)
        if m and sect:
            out.setdefault((sect, m.group(1)), (m.group(2) or "").strip())
    return out


def man_unescape(s):
    s = re.sub(r"\\f[BIRP]", "", s)
    return s.replace("\\-", "-").replace("\\(dq", '"').replace("\\(de", "°").replace("\\e", "\\")


def man_defaults(text):
    """{(section, key): value} of nvmond.conf(5)'s ".TP/.TQ \\fBkey\\fR = \\fIvalue\\fR" items."""
    out, sect = {}, None
    for line in text.splitlines():
        if line.startswith(".SH"):
            sect = None
        m = re.match(r'^\.SS "(.*)"', line)
        if m:
            name = man_unescape(m.group(1))
            mm = re.match(r"^\[device ", name) and ["device"] or re.findall(r"^\[([a-z]+)\]$", name)
            sect = mm[0] if mm else None
            continue
        m = re.match(r"^\\fB([a-z0-9_]+)\\fR = (.*)$", line)
        if m and sect:
            v = man_unescape(m.group(2))
            out[(sect, m.group(1))] = "" if v == "(empty)" else v
    return out


def norm_range(s):
    s = re.sub(r"(?<=\d),(?=\d{3})", "", unbacktick(s)).replace("..", "…")
    return re.sub(r"\s+", " ", s).strip()


def check_keys(src, tables, man_path):
    conf_md = read(f"{src}/docs/configuration.md")
    doc = conf_doc_keys(conf_md)
    sample = ini_defaults(read(f"{src}/systemd/nvmond.conf"))
    man = man_defaults(read(man_path))
    keys = tables["keys"]
    n_bad = 0
    for k in keys:
        sk = (k["section"], k["key"])
        name = f'[{k["section"]}] {k["key"]}' if k["section"] != "device" else f'[device "X"] {k["key"]}'
        if sk not in doc:
            fail("docs/configuration.md", f"{name} is not in the table of its section")
            n_bad += 1
            continue
        dtype, ddef, drange = doc[sk]
        want_types = {k["type"], "boolean" if k["type"] == "bool" else k["type"]}
        if dtype not in want_types:
            fail("docs/configuration.md", f"{name}: type '{dtype}', the code's is '{k['type']}'")
            n_bad += 1
        d = k.get("default")
        cell = ddef.strip()
        if d is not None:
            if d == "":
                ok = cell.startswith("*(empty")
            elif cell.startswith("*(") and cell.endswith(")*"):
                ok = f"`{d}`" in cell or "the `[" in cell
            else:
                ok = cell == f"`{d}`"
            if not ok:
                fail("docs/configuration.md", f"{name}: default {cell!r}, the code's is {d!r}")
                n_bad += 1
        if k["range_known"]:
            got, want = norm_range(drange), k["range"]
            if k["type"] == "text" and want in ("", "not empty"):
                # "1 … 63 bytes", "up to 255 bytes", "not empty" or nothing: the lengths in bytes.
                m1 = re.match(r"^(\d+) … (\d+) bytes\b", got)
                m2 = re.match(r"^up to (\d+) bytes\b", got)
                if m1:
                    ok = int(m1.group(1)) == max(k["len_min"], 1) and int(m1.group(2)) == k["len_max"]
                elif m2:
                    ok = int(m2.group(1)) == k["len_max"] and k["len_min"] == 0
                else:
                    ok = got == want or (want and got.startswith(want + " "))
                    ok = ok or (not want and not re.search(r"\d", got) and got in ("", "a user that exists"))
            elif k["type"] == "bool":
                ok = got == ""
            else:
                ok = got == want or (want and got.startswith(want + " ")) or (
                    want and got.startswith(want + ","))
            if not ok:
                fail("docs/configuration.md", f"{name}: range {drange!r}, the code's is {want!r}")
                n_bad += 1
        for label, where, table in (
            ("systemd/nvmond.conf", "#key = default", sample),
            ("nvmond.conf(5)", "its KEYS", man),
        ):
            if sk not in table:
                fail(label, f"{name} is not in {where}")
                n_bad += 1
            elif d is not None and table[sk] != d:
                fail(label, f"{name} = {table[sk]!r} is shown as its default, the code's is {d!r}")
                n_bad += 1
    known = {(k["section"], k["key"]) for k in keys}
    for label, table in (
        ("docs/configuration.md", doc),
        ("systemd/nvmond.conf", sample),
        ("nvmond.conf(5)", man),
    ):
        for sk in sorted(set(table) - known):
            fail(label, f"[{sk[0]}] {sk[1]} is shown as a key, and the code has no such key")
            n_bad += 1

    # The keys that wait for the next start: configuration.md's "At the next start only" item.
    m = re.search(r"\*\*At the next start only:\*\*(.*?)(?:\n- |\n\n)", conf_md, re.S)
    listed = set()
    if not m:
        fail("docs/configuration.md", "no '**At the next start only:**' item")
    else:
        text, sect = m.group(1).split(". ")[0], None
        for tok in re.findall(r"every `\[([a-z]+)\]` key|`\[([a-z]+)\]`|`([a-z_]+)`", text):
            if tok[0]:
                listed |= {(x["section"], x["key"]) for x in keys if x["section"] == tok[0]}
            elif tok[1]:
                sect = tok[1]
            elif sect:
                listed.add((sect, tok[2]))
    restart = {(k["section"], k["key"]) for k in keys if k["restart"]}
    for sk in sorted(restart - listed):
        fail("docs/configuration.md", f"[{sk[0]}] {sk[1]} waits for the next start, and 'At the next start only' does not list it")
    for sk in sorted(listed - restart):
        fail("docs/configuration.md", f"'At the next start only' lists [{sk[0]}] {sk[1]}, which a reload applies")
    man_text = man_unescape(read(man_path))
    m = re.search(r"At the next start only:(.*?)\.\n", man_text, re.S)
    man_listed = set()
    if not m:
        fail("nvmond.conf(5)", "no 'At the next start only:' sentence")
    else:
        sect = None
        for tok in re.findall(r"every \[([a-z]+)\] key|\[([a-z]+)\]|([a-z_]+)", m.group(1)):
            if tok[0]:
                man_listed |= {(x["section"], x["key"]) for x in keys if x["section"] == tok[0]}
            elif tok[1]:
                sect = tok[1]
            elif sect and (sect, tok[2]) in known:
                man_listed.add((sect, tok[2]))
        for sk in sorted(restart ^ man_listed):
            fail("nvmond.conf(5)", f"'At the next start only': [{sk[0]}] {sk[1]} " + (
                "is missing" if sk in restart else "is listed, and a reload applies it"))

    # The spellings of a bool.
    bools = tables["bools"]
    m = re.search(r"Booleans: (.*)", conf_md)
    doc_b = re.findall(r"`([a-z0-9]+)`", m.group(1)) if m else []
    if sorted(doc_b) != sorted(bools):
        fail("docs/configuration.md", f"Booleans: {doc_b}, the code takes {bools}")
    m = re.search(r"Booleans are(.*?)\.\n", man_text, re.S)
    man_b = re.findall(r"\b([a-z0-9]+)\b", m.group(1)) if m else []
    man_b = [b for b in man_b if b != "or"]
    if sorted(man_b) != sorted(bools):
        fail("nvmond.conf(5)", f"Booleans are {man_b}, the code takes {bools}")
    print(f"checked {len(keys)} keys (type, default, range) against docs/configuration.md, "
          f"systemd/nvmond.conf and nvmond.conf(5); {len(restart)} that wait for a restart; "
          f"{len(bools)} bool spellings", flush=True)


# ---- --help, nvmond(8), installing.md -------------------------------------------------------


def check_help(src, nvmond, man8_path, presets):
    helptext = subprocess.run([nvmond, "--help"], capture_output=True, text=True, check=True).stdout
    man8 = man_unescape(read(man8_path))
    installing = read(f"{src}/docs/installing.md")
    probes_md = read(f"{src}/docs/probes.md")

    cmds = sorted(set(re.findall(r"^(?:Usage:)?\s+nvmond ([a-z]+)\b", helptext, re.M)))
    man_cmds = re.search(r"\.SH COMMANDS\n(.*?)\n\.SH", man8, re.S).group(1)
    man_cmds = sorted(set(re.findall(r"^\.B ([a-z]+)$", man_cmds, re.M)))
    man_syn = sorted(set(re.findall(r"^\.B nvmond ([a-z]+)$", man8, re.M)))
    inst = sorted(set(re.findall(r"^nvmond ([a-z]+) ", installing, re.M)))
    for label, got in (("nvmond(8) COMMANDS", man_cmds), ("nvmond(8) SYNOPSIS", man_syn),
                       ("docs/installing.md", inst)):
        for c in sorted(set(cmds) - set(got)):
            fail(label, f"the command {c} of --help is missing")
        for c in sorted(set(got) - set(cmds)):
            fail(label, f"names a command {c} that --help does not")

    opts = sorted(set(o for head in re.findall(r"^\s{2,}(-\S.*?)(?:\s{2,}|$)", helptext, re.M)
                      for o in re.findall(r"(--[a-z][a-z-]*[a-z])", head)))
    man_opts = re.search(r"\.SH OPTIONS\n(.*?)\n\.SH", man8, re.S).group(1)
    man_opts = sorted(set(o for item in re.findall(r"^\.TP\n(.*)$", man_opts, re.M)
                          for o in re.findall(r"(--[a-z][a-z-]*[a-z])", item)))
    inst_opts = sorted(set(o for row in re.findall(r"^\| (`-.*?) \|", installing, re.M)
                           for o in re.findall(r"(--[a-z][a-z-]*[a-z])", row)))
    for label, got in (("nvmond(8) OPTIONS", man_opts), ("docs/installing.md", inst_opts)):
        for o in sorted(set(opts) - set(got)):
            fail(label, f"the option {o} of --help is missing")
        for o in sorted(set(got) - set(opts)):
            fail(label, f"names an option {o} that --help does not")

    # Which commands an option goes with: "(status, probe, selftest)" in --help and nvmond(8).
    def goes_with(text, opt):
        m = re.search(re.escape(opt) + r"[^\n(]*\n?\s*\(([a-z, ]+)\)", text)
        return sorted(m.group(1).replace(" ", "").split(",")) if m else None

    for o in opts:
        h, m8 = goes_with(helptext, o), goes_with(re.sub(r"\n\.[A-Z]+ ?", "\n", man8), o)
        if h and m8 and h != m8:
            fail("nvmond(8) OPTIONS", f"{o} goes with {m8}, --help says {h}")

    # The exit statuses: every command with statuses of its own is named in both.
    help_exit = re.search(r"Exit status:(.*?)\n(?:Signals|Environment|See)", helptext, re.S).group(1)
    man_exit = re.search(r"\.SH EXIT STATUS\n(.*?)\n\.SH", man8, re.S).group(1)
    codes = {
        "nvmond --help": set(re.findall(r"(?:^|;)\s*(\d+) ", help_exit.replace("\n", " ").strip())),
        "nvmond(8) EXIT STATUS": set(re.findall(r"^\.B (\d+)$", man_exit, re.M)),
        "docs/installing.md": set(re.findall(r"\*\*(\d+)\*\*", (re.search(
            r"Exit status: (.*?)\n\n", installing, re.S) or re.match("", "")).group(0))),
    }
    every = set().union(*codes.values())
    for label, got in codes.items():
        for c in sorted(every - got):
            fail(label, f"does not list the exit status {c} (another page does)")
    h = set(c for c in cmds if re.search(r"\b%s\b" % c, help_exit))
    m8 = set(c for c in cmds if re.search(r"nvmond %s\b" % c, man_exit))
    for c in sorted(m8 - h):
        fail("nvmond --help", f"Exit status does not say what {c} exits with (nvmond(8) does)")
    for c in sorted(h - m8):
        fail("nvmond(8) EXIT STATUS", f"does not say what {c} exits with (--help does)")

    # Presets.
    hp = re.search(r"--preset PRESET\s+\(probe\)(.*?)\n\s+--", helptext, re.S)
    hp = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)+|sweep", hp.group(1)) if hp else []
    mp = re.search(r"\n\.IR PRESET :\n(.*)\n", man8)
    mp = re.findall(r"[a-z0-9-]+", re.sub(r'"[^"]*"', " ", mp.group(1).split(" ", 1)[1])) if mp else []
    pm = tables_under(probes_md, r"^## (Presets)")
    pm = [unbacktick(r[0]) for r in pm.get("Presets", []) if re.match(r"^`[a-z0-9-]+`$", r[0])]
    for label, got in (("nvmond --help --preset", hp), ("nvmond(8) probe", mp),
                       ("docs/probes.md Presets", pm)):
        for p in [p for p in presets if p not in got]:
            fail(label, f"the preset {p} is missing")
        for p in [p for p in got if p not in presets]:
            fail(label, f"names a preset {p} that the code does not have")
    print(f"checked {len(cmds)} commands, {len(opts)} options, the exit statuses and "
          f"{len(presets)} presets of --help against nvmond(8), installing.md and probes.md",
          flush=True)
    return helptext


# ---- routes and their parameters ----------------------------------------------------------


def router_table(daemon):
    eps = []
    for line in read(daemon.log).splitlines():
        m = re.search(r"HTTP endpoint: ([A-Z]+) (\S+)((?: \([a-z]+\))*)$", line)
        if m:
            eps.append((m.group(1), m.group(2), "(token)" in m.group(3), "(query)" in m.group(3)))
    return eps


def api_doc_table(md):
    """[(method, path, params, token)] of api.md's first table."""
    out, on = [], False
    for line in md.splitlines():
        if line.startswith("| Method and path |"):
            on = True
            continue
        if on and not line.startswith("|"):
            break
        m = re.match(r"^\| `([A-Z]+) (/[^`]*)` \|(.*)$", line)
        if not on or not m:
            continue
        c = cells(line)
        path, params = m.group(2).replace("\\|", "|"), []
        if "?" in path:
            path, q = path.split("?", 1)
            params = sorted(set(re.findall(r"([a-z_]+)=", q)))
        out.append((m.group(1), path, params, c[-1].strip() == "yes"))
    return out


def api_param_table(md):
    """{endpoint path suffix (+ method): [params]} of api.md's "Endpoint | Parameters" table."""
    out, rest_none = {}, False
    in_table = False
    for line in md.splitlines():
        if line.startswith("| Endpoint | Parameters"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            break
        if not in_table or re.match(r"\|\s*-", line):
            continue
        c = cells(line)
        if "every other endpoint" in c[0]:
            rest_none = True
            continue
        m = re.match(r"^`([^`]+)`(?: \(([A-Z]+)\))?$", c[0])
        if m:
            out[(m.group(2) or "GET", m.group(1))] = sorted(set(re.findall(r"`([a-z_]+)`", c[1])))
    return out, rest_none


def known_params(daemon, method, pattern):
    """The query parameters an endpoint knows, from its 400 to an unknown one."""
    path = pattern.replace("{id}", "1") + "?zzdocs=1"
    st, body = daemon.request(method, path, token=True, body=b"{}" if method == "POST" else None)
    m = re.search(r"known: ([a-z_, ]+)\)", body)
    if st != 400 or not m:
        return None, f"{method} {path}: {st} {body[:120]}"
    return sorted([] if m.group(1) == "none" else m.group(1).replace(" ", "").split(",")), None


def check_routes(src, daemon, man8_path):
    md = read(f"{src}/docs/api.md")
    eps = router_table(daemon)
    if len(eps) < 10:
        fail("daemon log", f"only {len(eps)} 'HTTP endpoint:' lines: is log_level = debug?")
        return
    doc = {(m, p): (params, tok) for m, p, params, tok in api_doc_table(md)}
    ptable, rest_none = api_param_table(md)
    for method, pat, token, _ in eps:
        if (method, pat) not in doc:
            fail("docs/api.md", f"the endpoint {method} {pat} is not in the table")
            continue
        dparams, dtok = doc[(method, pat)]
        if dtok != token and not pat.startswith("/metrics"):
            fail("docs/api.md", f"{method} {pat}: Token column says {'yes' if dtok else 'nothing'}, "
                 f"the endpoint {'needs' if token else 'does not need'} the token")
        known, err = known_params(daemon, method, pat)
        if known is None:
            fail("daemon", f"{method} {pat}: no 'known: …' in the 400 to an unknown parameter: {err}")
            continue
        if dparams != known:
            fail("docs/api.md", f"{method} {pat}: the table shows the parameters {dparams or 'none'}, "
                 f"the endpoint takes {known or 'none'}")
        short = re.sub(r"^/api/v1", "", pat)
        key = next((k for k in ptable if k[1] in (short, pat) and k[0] == method), None)
        if known and key is None:
            fail("docs/api.md", f"{method} {pat} takes {known}, and the table of parameters has no row for it "
                 "(it says: every other endpoint takes none)")
        elif key is not None and ptable[key] != known:
            fail("docs/api.md", f"the table of parameters gives {method} {short} {ptable[key]}, "
                 f"the endpoint takes {known}")
    have = {(m, p) for m, p, _, _ in eps}
    for m, p in sorted(set(doc) - have):
        if p.endswith("/…"):
            continue  # GET /…: the dashboard's static files
        fail("docs/api.md", f"the table lists {m} {p}, which the daemon does not serve")
    # nvmond(8)'s HTTP list names every resource of the API.
    man8 = man_unescape(read(man8_path))
    http = re.search(r"\.SH HTTP\n(.*?)\n\.SH", man8, re.S).group(1)
    api_line = re.search(r"The JSON API \(([^)]*)\)", http)
    listed = set(re.findall(r"[a-z]+", api_line.group(1))) if api_line else set()
    for m, p, _, _ in eps:
        if not p.startswith("/api/v1/"):
            continue
        res = [x for x in p.split("/")[3:] if x != "{id}"][-1]
        if res in ("ack", "cancel", "abort", "test"):
            continue
        if res not in listed and res.rstrip("s") + "s" not in listed:
            fail("nvmond(8) HTTP", f"the JSON API's list ({', '.join(sorted(listed))}) lacks {res} ({m} {p})")
    print(f"checked {len(eps)} endpoints of the router (token, query parameters) against "
          "docs/api.md and nvmond(8)", flush=True)


# ---- metric families ---------------------------------------------------------------------


def check_metrics(src, daemon):
    md = read(f"{src}/docs/metrics.md")
    st, text = daemon.get("/metrics")
    if st != 200:
        fail("daemon", f"GET /metrics: {st}")
        return
    live = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    doc = {}
    for r in tables_under(md, r"^## (Metrics)").get("Metrics", []):
        if len(r) < 3 or r[1] not in ("gauge", "counter", "histogram", "summary", "info", "stateset"):
            continue
        for name in re.findall(r"`(nvmond_[a-z0-9_]+)", r[0]):
            doc[name] = r[1]
    src_names = set()
    for root, _, files in os.walk(f"{src}/daemon"):
        for f in files:
            if f.endswith(".c"):
                src_names |= set(re.findall(r'"(nvmond_[a-z0-9_]+)', read(os.path.join(root, f))))
    for name, typ in sorted(live.items()):
        if name not in doc:
            fail("docs/metrics.md", f"the family {name} ({typ}) of /metrics is not in the table")
        elif doc[name] != typ:
            fail("docs/metrics.md", f"{name} is a {doc[name]} in the table, a {typ} in /metrics")
    for name in sorted(set(doc) - set(live)):
        if name in src_names:
            note(f"docs/metrics.md: {name} is not in the demo daemon's /metrics now (a family "
                 "that appears only when it has a series)")
        else:
            fail("docs/metrics.md", f"lists {name}, which nvmond does not export")
    print(f"checked {len(live)} metric families of /metrics against docs/metrics.md", flush=True)


# ---- JSON examples ------------------------------------------------------------------------


def doc_json_blocks(src):
    """(file, line, section heading, [values]) of every JSON example."""
    out = []
    for name in sorted(os.listdir(f"{src}/docs")) + ["../README.md"]:
        if not name.endswith(".md"):
            continue
        path = f"{src}/docs/{name}"
        md = read(path)
        headings = [(i + 1, l) for i, l in enumerate(md.splitlines()) if re.match(r"#+ ", l)]
        for lang, line, text, directives in code_blocks(md):
            rel = os.path.normpath(f"docs/{name}")
            if any(d.startswith("skip") for d in directives):
                continue
            head = ([h for n, h in headings if n < line] or [""])[-1]
            if lang == "json":
                chunks = [text]
            elif lang == "console":
                chunks, cur = [], []
                for l in text.splitlines():
                    if l.startswith("$ "):
                        if cur:
                            chunks.append("\n".join(cur))
                        cur = []
                    else:
                        cur.append(l)
                if cur:
                    chunks.append("\n".join(cur))
                chunks = [c for c in chunks if c.strip()[:1] in ("{", "[")]
            else:
                continue
            for c in chunks:
                try:
                    out.append((rel, line, head, json_values(c)))
                except ValueError as e:
                    fail(f"{rel}:{line}", f"a JSON example does not parse: {e}")
    return out


def field_table_keys(md, heading):
    """Keys named in the first column of the tables of the section under @heading."""
    keys, on = set(), False
    for l in md.splitlines():
        if re.match(r"#+ ", l):
            on = l == heading
            continue
        if on and l.startswith("|"):
            for k in re.findall(r"`([a-z_][a-z0-9_.]*)`", cells(l)[0]):
                keys.add(k.split(".")[-1])
    return keys


def compare_shape(where, ex, live, documented, path="", out=None):
    """Keys of the example @ex against the live answer @live (recursively)."""
    if isinstance(ex, dict) and isinstance(live, dict):
        elided = ex.get(ELIDED) is True
        for k in ex:
            if k == ELIDED:
                continue
            if k not in live:
                fail(where, f"the example has {path}{k}, which the daemon's answer does not")
            else:
                compare_shape(where, ex[k], live[k], documented, f"{path}{k}.", out)
        if not elided:
            for k in live:
                if k not in ex and k not in documented:
                    fail(where, f"the daemon's answer has {path}{k}, which neither the example "
                         "nor a table of the section shows")
    elif isinstance(ex, list) and isinstance(live, list) and ex and live:
        compare_shape(where, ex[0], live[0], documented, path.rstrip(".") + "[0].", out)


def live_with(daemon, path, key):
    """GET @path's answer that has @key: for /probes/{id}, a run that has it."""
    if "/probes/" not in path:
        live = daemon.get_json(path)
        return live if key is None or key in live else None
    for dev in (1, 2):
        for run in daemon.get_json(f"/api/v1/devices/{dev}/probes?limit=1000")["probes"][:80]:
            live = daemon.get_json(f"/api/v1/probes/{run['id']}")
            if key is None or live.get(key) not in (None, [], {}):
                return live
    return None


def check_json(src, daemon):
    blocks = doc_json_blocks(src)
    api = read(f"{src}/docs/api.md")
    by_section = {}
    for rel, line, head, values in blocks:
        m = re.match(r"^### `GET (/api/v1/[^`?]+)`$", head)
        if rel == "docs/api.md" and m and values and isinstance(values[0], dict):
            by_section.setdefault(head, []).append((line, values[0]))
    n_shapes = 0
    for head, examples in by_section.items():
        path = re.match(r"^### `GET (/api/v1/[^`?]+)`$", head).group(1)
        path = path.replace("{id}", "1")
        if "selftests" in path or "errors" in path:
            path += "?limit=1"
        documented = field_table_keys(api, head)
        documented |= {k for _, ex in examples if ex.get(FRAGMENT) for k in ex if k != FRAGMENT}
        for line, ex in examples:
            where = f"docs/api.md:{line} ({head.strip('# ')})"
            if ex.get(FRAGMENT):
                for key, val in ex.items():
                    if key == FRAGMENT:
                        continue
                    live = live_with(daemon, path, key)
                    if live is None:
                        note(f"{where}: no answer of the demo daemon has {key} now: not compared")
                        continue
                    compare_shape(where, val, live[key], set(), f"{key}.")
                    n_shapes += 1
                continue
            try:
                live = live_with(daemon, path, None)
            except RuntimeError as e:
                fail(where, str(e))
                continue
            compare_shape(where, ex, live, documented)
            n_shapes += 1
    print(f"checked {len(blocks)} JSON examples parse, {n_shapes} of api.md against the daemon's answers",
          flush=True)


# ---- statements about the demo --------------------------------------------------------------


def check_claims(src, args, daemon):
    alerts = read(f"{src}/docs/alerts.md")
    e = daemon.get_json("/api/v1/devices/1/errors?limit=100000")
    before = sum(1 for x in e["entries"] if x["before_watch"])
    m = re.search(r"the 950 PRO's error\s+log holds (\d+) entries: (\d+) were there before nvmond\s+"
                  r"first read it.*?(\d+) are `benign`.*?(\d+) are\s+unrecovered reads", alerts,
                  re.S | re.I)
    if not m:
        fail("docs/alerts.md", "Demo drives: no 'The 950 PRO's error log holds N entries: N were there "
             "before nvmond first read it … N `benign` … N unrecovered reads' to check")
    else:
        got = tuple(int(x) for x in m.groups())
        want = (e["counts"]["total"], before, e["counts"]["benign"], e["counts"]["media"])
        if got != want:
            fail("docs/alerts.md", f"the 950 PRO's demo error log: the page says {got} "
                 f"(entries, before nvmond, benign, unrecovered), the daemon has {want}")
    # status --json: each drive is the object of /devices with the differences the docs name.
    st = subprocess.run([args.bin, "-c", daemon.conf, "status", "--json"], capture_output=True,
                        text=True)
    if st.returncode != 0:
        fail("nvmond status --json", f"exit {st.returncode}: {st.stderr[:300]}")
        return
    sj = json.loads(st.stdout)
    s_keys = set(sj["devices"][0])
    d_keys = set(daemon.get_json("/api/v1/devices")["devices"][0])
    for rel in ("docs/installing.md",):
        md = read(f"{src}/{rel}")
        flat = md.replace("\n", " ")
        lead = "each drive is the object of `GET /api/v1/devices` (without "
        i = flat.find(lead)
        if i < 0:
            fail(rel, "no 'each drive is the object of `GET /api/v1/devices` (without …)' to check")
            continue
        without_part, rest = flat[i + len(lead):].split(")", 1)
        with_part = ""
        if rest.startswith(" with "):
            with_part = re.sub(r"\([^)]*\)", "", rest[len(" with "):]).split(":", 1)[0]
        without = set(re.findall(r"`([a-z_]+)`", without_part))
        with_ = set(re.findall(r"`([a-z_]+)`", with_part))
        if d_keys - s_keys != without:
            fail(rel, f"nvmond status --json: the page says without {sorted(without)}, it lacks "
                 f"{sorted(d_keys - s_keys)}")
        if s_keys - d_keys != with_:
            fail(rel, f"nvmond status --json: the page says with {sorted(with_)}, it adds "
                 f"{sorted(s_keys - d_keys)}")
    print("checked the demo's error log (alerts.md) and status --json (installing.md)",
          flush=True)


def raw_http(port, head):
    """Send @head (bytes, a whole request without a body) and read the answer until the
    server closes or 2 s pass. Return: (status, {lowercase header: value}, body bytes)."""
    import socket

    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(head)
    data = b""
    s.settimeout(2)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
            h, sep, body = data.partition(b"\r\n\r\n")
            if sep:
                m = re.search(rb"(?im)^content-length:\s*(\d+)", h)
                if m and len(body) >= int(m.group(1)):
                    break
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    h, _, body = data.partition(b"\r\n\r\n")
    lines = h.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers.setdefault(k.strip().lower(), v.strip())
    return status, headers, body


def check_http(src, daemon):
    """api.md's Conventions: which answers are gzipped and say Vary, and what the 414 and 431
    of an over-long request are (issue 28 §6, §7)."""
    api = read(f"{src}/docs/api.md")
    flat = re.sub(r"\s+", " ", api)
    port = daemon.port
    ok = 0

    def get(path, *hdrs, method="GET"):
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "".join(h + "\r\n" for h in hdrs) + "\r\n"
        return raw_http(port, head.encode())

    if "Every answer nvmond makes says `Vary: Accept-Encoding`" not in flat:
        fail("docs/api.md", "no 'Every answer nvmond makes says `Vary: Accept-Encoding`' to check")
    else:
        _, h, _ = get("/index.html")
        tag = h.get("etag", "")
        for what, args in (("a JSON answer", ("/api/v1/devices",)),
                           ("an error", ("/api/v1/devices/999999",)),
                           ("a 405", ("/api/v1/devices", "Content-Length: 0"), ),
                           ("a file", ("/",)),
                           ("a 304 of a file", ("/index.html", f"If-None-Match: {tag}")),
                           ("the streamed /samples", ("/api/v1/devices/1/samples",)),
                           ("/metrics", ("/metrics", f"Authorization: Bearer {daemon.token}"))):
            method = "DELETE" if what == "a 405" else "GET"
            st, h, _ = get(*args, method=method)
            if h.get("vary") != "Accept-Encoding":
                fail("docs/api.md", f"every answer says Vary: Accept-Encoding, but {what} "
                     f"({method} {args[0]}: {st}) has Vary {h.get('vary')!r}")
            ok += 1
    m = re.search(r"Answers of 1 KB and more go gzipped.*?: JSON, the dashboard's files.*?and "
                  r"the streamed `/samples` whatever its length", flat)
    if not m:
        fail("docs/api.md", "no 'Answers of 1 KB and more go gzipped …: JSON, the dashboard's "
             "files … and the streamed `/samples` whatever its length' to check")
    else:
        web = f"{src}/web"
        files = sorted((os.path.getsize(f"{web}/{n}"), n) for n in os.listdir(web)
                       if n.endswith((".js", ".css", ".html")))
        small = [n for size, n in files if size < 1024]
        big = [n for size, n in files if size >= 1024]
        for path, gz in ([("/", True), ("/api/v1/devices", True), ("/healthz", False),
                          ("/api/v1/devices/1/samples?limit=1", True)]
                         + [("/" + n, True) for n in big[:3]] + [("/" + n, False) for n in small[:2]]):
            st, h, body = get(path, "Accept-Encoding: gzip")
            got = h.get("content-encoding") == "gzip"
            if st != 200 or got != gz:
                fail("docs/api.md", f"GET {path} with Accept-Encoding: gzip: {st}, "
                     f"{'gzipped' if got else 'plain'}; the page says {'gzipped' if gz else 'plain'}")
            ok += 1
    # 414 and 431: the page names whose they are and what the body is.
    html = "its own short HTML page" in flat
    if not html and "414 or 431" not in flat:
        fail("docs/api.md", "no sentence on the 414 and 431 of an over-long request to check")
    for st_want, args in ((414, ("/api/v1/devices?x=" + "a" * 33000,)),
                          (431, ("/healthz", "X-Big: " + "a" * 33000))):
        st, h, body = get(*args)
        is_html = body.startswith(b"<html>")
        is_json = body.startswith(b'{"error"') and h.get("content-type") == "application/json"
        if st != st_want or (is_html != html) or (not html and not is_json):
            fail("docs/api.md", f"a 33 KB {'URL' if st_want == 414 else 'header'}: {st} "
                 f"{h.get('content-type')!r} {body[:60]!r}; the page says {st_want} "
                 f"{'as libmicrohttpd HTML page' if html else 'as JSON'}")
        ok += 1
    print(f"checked {ok} answers against api.md's caching, compression and limits", flush=True)


# ---- examples that run ---------------------------------------------------------------------


def out_regex(line):
    """A documented output line as a pattern; blanks vary. Measured figures may differ: every
    number of a line of measurements (one with a decimal figure, as a table row), else a
    number with a thousands separator or of 3 digits and more. The other small integers (an
    id in a fresh database, a count, a queue depth) are as shown."""
    measured = re.search(r"\d\.\d", line)
    words = []
    for w in line.split():
        parts = re.split(r"(\d[\d,.]*)", w)
        words.append("".join(
            (r"\d[\d,.]*" if measured or re.search(r"[.,]|\d{3}", p.rstrip(".,")) else re.escape(p))
            if i % 2 else re.escape(p) for i, p in enumerate(parts)))
    return re.compile(r"^\s*" + r"\s+".join(words) + r"\s*$")


def run_example_block(args, name, line, text, directives, n):
    tmp = f"{args.tmp}/example-{n}"
    os.makedirs(tmp, exist_ok=True)
    conf = f"{tmp}/nvmond.conf"
    extra = [d[5:].strip() for d in directives if d.startswith("conf ")]
    sections = {}
    for e in ["[daemon] demo_history = no", f"[probes] lock_dir = {tmp}/locks",
              "[probes] phase_duration = 500ms"] + extra:
        m = re.match(r"\[([a-z]+)\] (\S+) = (.*)", e)
        sections.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
    with open(conf, "w") as f:
        f.write(f"[daemon]\ndatabase = {tmp}/nvmond.db\n")
        for s, kv in sections.items():
            f.write(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()))
    os.chmod(conf, 0o600)
    msgs, cmds = [], []
    for l in text.splitlines():
        if l.startswith("$ nvmond"):
            cmds.append([l[2:], []])
        elif l.startswith("$ "):
            cmds.append([None, []])
        elif cmds:
            cmds[-1][1].append(l)
    for cmd, want in cmds:
        if cmd is None:
            continue
        argv = cmd.split()
        argv[0] = args.bin
        argv[1:1] = ["-c", conf]
        t0 = time.monotonic()
        r = subprocess.run(argv, capture_output=True, text=True, timeout=240)
        where = f"{name}:{line}: `{cmd}`"
        if r.returncode != 0:
            msgs.append((where, f"exits {r.returncode}: {r.stderr.strip()[-300:]}"))
            continue
        got, k = r.stdout.splitlines(), 0
        for w in want:
            if not w.strip() or w.strip() in ("…", "..."):
                continue
            rx = out_regex(w)
            while k < len(got) and not rx.match(got[k]):
                k += 1
            if k == len(got):
                msgs.append((where, f"the output has no line like {w.strip()!r} (in that order):\n"
                             + "\n".join("    " + g for g in got)))
                break
            k += 1
        msgs.append((None, f"ran {where} in {time.monotonic() - t0:.1f} s"))
    return msgs


def check_examples(args):
    blocks = []
    for name in sorted(os.listdir(f"{args.src}/docs")):
        if not name.endswith(".md"):
            continue
        for lang, line, text, directives in code_blocks(read(f"{args.src}/docs/{name}")):
            if not re.search(r"(?m)^\$ nvmond", text):
                continue
            skip = [d for d in directives if d.startswith("skip")]
            if skip:
                note(f"docs/{name}:{line}: not run: {skip[0][4:].strip()}")
                continue
            blocks.append((f"docs/{name}", line, text, directives))
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        futs = [ex.submit(run_example_block, args, *b, n) for n, b in enumerate(blocks)]
        for f in futs:
            for where, msg in f.result():
                if where:
                    fail(where, msg)
                else:
                    print(msg, flush=True)
    print(f"checked {len(blocks)} example blocks that run nvmond", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--man5", required=True)
    ap.add_argument("--man8", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    only = set(args.only or [])
    want = lambda c: not only or c in only

    daemon = Daemon(args)
    needs_daemon = not only or only & {"presets", "help", "routes", "metrics", "json", "claims",
                                        "http"}
    if needs_daemon:
        daemon.start()
    try:
        tables = json.loads(subprocess.run([args.tables], capture_output=True, check=True).stdout)
        if want("keys"):
            check_keys(args.src, tables, args.man5)
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as ex:
            examples = ex.submit(check_examples, args) if want("examples") else None
            if needs_daemon:
                daemon.wait()
                presets = daemon.get_json("/api/v1/devices/1/probes")["presets"]
                if want("help") or want("presets"):
                    check_help(args.src, args.bin, args.man8, presets)
                    ex_presets = [v for rel, _, head, vals in doc_json_blocks(args.src)
                                  if rel == "docs/api.md" and "probes`" in head
                                  for v in vals if isinstance(v, dict) and "presets" in v]
                    for v in ex_presets:
                        if v["presets"] != presets:
                            fail("docs/api.md", f"the /probes example's presets {v['presets']}, "
                                 f"the daemon's are {presets}")
                if want("routes"):
                    check_routes(args.src, daemon, args.man8)
                if want("metrics"):
                    check_metrics(args.src, daemon)
                if want("json"):
                    check_json(args.src, daemon)
                if want("claims"):
                    check_claims(args.src, args, daemon)
                if want("http"):
                    check_http(args.src, daemon)
            if examples:
                examples.result()
    finally:
        daemon.stop()
    if FAILS:
        print(f"FAIL: {len(FAILS)} places where the docs and nvmond disagree")
        return 1
    print("PASS: docs_agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
