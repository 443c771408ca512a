#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation check of nvmond's pure modules.

Each mutant in mutants.txt is a one-line source patch: a plausible bug (an
off-by-one, a flipped comparison, a wrong offset) in a module that the unit
tests cover. The script copies the source tree into a scratch directory once
(only changed files are copied again on later runs, so the scratch build stays
incremental), builds the needed unit tests there, checks that they pass
unmutated, then applies one mutant at a time, rebuilds only the tests named for
it, runs them, and restores the file. A mutant the tests still pass is a
survivor: a bug of that kind would ship unnoticed.

The real source tree is never written to: the daemon and the other tests of a
concurrent build keep working while this runs.

Exit status: 0 every mutant killed, 1 a mutant survived or did not build,
2 the list or the unmutated baseline is broken, 77 skipped.

Usage: run.py [--source DIR] [--build-dir DIR] [--only ID ...] [--list]
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

# Copied into the scratch tree: what configuring and building the tests needs.
COPY = ["CMakeLists.txt", "cmake", "daemon", "include", "migrations", "systemd", "tests"]
SKIP_DIRS = {"node_modules", "__pycache__", "work"}
TEST_TIMEOUT_S = 60


class ListError(Exception):
    pass


class Mutant:
    def __init__(self, mid, lineno):
        self.id = mid
        self.lineno = lineno
        self.file = None
        self.after = None
        self.orig = None
        self.repl = None
        self.rule = None
        self.tests = None


def parse_list(path):
    """Read mutants.txt: 'tests FILE = T…' defaults and 'mutant ID' blocks."""
    defaults = {}
    mutants = []
    cur = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line[0].isspace():
                words = line.split(None, 1)
                if words[0] == "tests" and len(words) == 2 and "=" in words[1]:
                    fname, targets = words[1].split("=", 1)
                    defaults[fname.strip()] = targets.split()
                    cur = None
                    continue
                if words[0] == "mutant" and len(words) == 2:
                    cur = Mutant(words[1].strip(), n)
                    mutants.append(cur)
                    continue
                raise ListError(f"{path}:{n}: expected 'mutant ID' or 'tests FILE = …'")
            if cur is None:
                raise ListError(f"{path}:{n}: field outside a mutant block")
            m = re.match(r"\s+(file|after|from|to|rule|tests)(?:\s(.*))?$", line)
            if not m:
                raise ListError(f"{path}:{n}: unknown field")
            key, val = m.group(1), (m.group(2) or "").strip()
            if key == "file":
                cur.file = val
            elif key == "after":
                cur.after = val
            elif key == "from":
                cur.orig = val
            elif key == "to":
                cur.repl = val
            elif key == "rule":
                cur.rule = val if cur.rule is None else cur.rule + " " + val
            elif key == "tests":
                cur.tests = val.split()
    seen = set()
    for m in mutants:
        if m.id in seen:
            raise ListError(f"{path}:{m.lineno}: mutant {m.id} listed twice")
        seen.add(m.id)
        for field in ("file", "orig", "repl", "rule"):
            if getattr(m, field) is None:
                name = {"orig": "from", "repl": "to"}.get(field, field)
                raise ListError(f"{path}:{m.lineno}: mutant {m.id} has no '{name}'")
        if m.orig == m.repl:
            raise ListError(f"{path}:{m.lineno}: mutant {m.id} changes nothing")
        if m.tests is None:
            m.tests = defaults.get(m.file)
        if not m.tests:
            raise ListError(f"{path}:{m.lineno}: mutant {m.id}: no tests for {m.file}")
    return mutants


def locate(text, m):
    """Offset of the text to replace: unique in the file, or first after a unique anchor."""
    start = 0
    if m.after is not None:
        if text.count(m.after) != 1:
            raise ListError(f"mutant {m.id}: anchor found {text.count(m.after)} times "
                            f"in {m.file}, need exactly once")
        start = text.index(m.after)
        at = text.find(m.orig, start)
    else:
        if text.count(m.orig) != 1:
            raise ListError(f"mutant {m.id}: text found {text.count(m.orig)} times in "
                            f"{m.file}, need exactly once (or give 'after')")
        at = text.index(m.orig)
    if at < 0:
        raise ListError(f"mutant {m.id}: text not found in {m.file}")
    if "\n" in text[at:at + len(m.orig)]:
        raise ListError(f"mutant {m.id}: a patch is one line")
    return at


def sync_tree(src, dst):
    """Copy COPY from src to dst, writing only files whose content changed."""
    for top in COPY:
        s = os.path.join(src, top)
        d = os.path.join(dst, top)
        if os.path.isfile(s):
            copy_if_changed(s, d)
            continue
        want = set()
        for root, dirs, files in os.walk(s):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
            rel = os.path.relpath(root, s)
            for name in files:
                r = os.path.normpath(os.path.join(rel, name))
                want.add(r)
                copy_if_changed(os.path.join(root, name), os.path.join(d, r))
        # Files gone from the source go from the copy too (the CMake globs see them).
        for root, dirs, files in os.walk(d):
            for name in files:
                r = os.path.normpath(os.path.join(os.path.relpath(root, d), name))
                if r not in want:
                    os.unlink(os.path.join(root, name))


def copy_if_changed(s, d):
    with open(s, "rb") as f:
        data = f.read()
    try:
        with open(d, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        os.makedirs(os.path.dirname(d), exist_ok=True)
    with open(d, "wb") as f:
        f.write(data)
    shutil.copymode(s, d)


def run(cmd, timeout=None, cwd=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", timeout=timeout)


def configure(src, bld, jobs):
    if os.path.exists(os.path.join(bld, "CMakeCache.txt")):
        return
    cmd = ["cmake", "-S", src, "-B", bld, "-DNVMOND_SANITIZE=OFF", "-DNVMOND_WERROR=OFF",
           "-DCMAKE_BUILD_TYPE=None"]  # no -O2, no -g: the quickest rebuilds
    if shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    p = run(cmd)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit("mutate: configuring the scratch build failed")


def build(bld, targets, jobs):
    return run(["cmake", "--build", bld, "-j", str(jobs), "--target", *targets])


def test_exe(bld, target):
    return os.path.join(bld, "tests", target)


def run_tests(bld, targets):
    """First target that fails, with the failing test names; None if all pass."""
    for t in targets:
        try:
            p = run([test_exe(bld, t), "--verbose=0", "--ascii", "-j1"], timeout=TEST_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return t, ["(timed out)"], ""
        if p.returncode != 0:
            names = re.findall(r"^\[FAIL\] (.+?): \(", p.stdout, re.M)
            return t, names or [f"(exit {p.returncode})"], p.stdout
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--build-dir", help="scratch directory (default: SOURCE/build-mutate)")
    ap.add_argument("--list-file", default=os.path.join(here, "mutants.txt"))
    ap.add_argument("--only", nargs="+", metavar="ID", help="run only these mutants")
    ap.add_argument("--list", action="store_true", help="print the mutants and exit")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sanitize", default="OFF", help="NVMOND_SANITIZE of the calling build")
    ap.add_argument("-v", "--verbose", action="store_true", help="show a survivor's test output")
    args = ap.parse_args()

    if args.sanitize.upper() in ("ON", "1", "TRUE", "YES", "Y"):
        print("SKIP: the mutation check runs in a plain build; with NVMOND_SANITIZE on it "
              "would rebuild everything sanitized, too slowly")
        return 77

    src = os.path.abspath(args.source)
    work = os.path.abspath(args.build_dir or os.path.join(src, "build-mutate"))
    tree, bld = os.path.join(work, "src"), os.path.join(work, "build")
    try:
        mutants = parse_list(args.list_file)
        if args.only:
            unknown = set(args.only) - {m.id for m in mutants}
            if unknown:
                raise ListError("unknown mutants: " + " ".join(sorted(unknown)))
            mutants = [m for m in mutants if m.id in args.only]
        originals = {}
        for m in mutants:
            if m.file not in originals:
                with open(os.path.join(src, m.file), encoding="utf-8") as f:
                    originals[m.file] = f.read()
            locate(originals[m.file], m)
    except (ListError, OSError) as e:
        print(f"mutate: {e}", file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            print(f"{m.id}\t{m.file}\t{' '.join(m.tests)}\n\t{m.rule}")
        return 0

    t0 = time.monotonic()
    os.makedirs(work, exist_ok=True)
    sync_tree(src, tree)
    configure(tree, bld, args.jobs)
    targets = sorted({t for m in mutants for t in m.tests})
    p = build(bld, targets, args.jobs)
    if p.returncode != 0:
        sys.stdout.write(p.stdout[-4000:])
        print("mutate: the unmutated tests do not build", file=sys.stderr)
        return 2
    bad = run_tests(bld, targets)
    if bad:
        sys.stdout.write(bad[2][-4000:])
        print(f"mutate: {bad[0]} fails without any mutant: {' '.join(bad[1])}", file=sys.stderr)
        return 2
    print(f"mutate: baseline of {len(targets)} test executables passes "
          f"({time.monotonic() - t0:.0f} s); {len(mutants)} mutants", flush=True)

    # Restore the patched file however the run ends (Ctrl-C, ctest's timeout).
    current = {}

    def restore():
        for rel, text in list(current.items()):
            with open(os.path.join(tree, rel), "w", encoding="utf-8") as f:
                f.write(text)
            del current[rel]

    def on_signal(signum, frame):
        restore()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    rows = []
    width = max(len(m.id) for m in mutants)
    for m in mutants:
        text = originals[m.file]
        at = locate(text, m)
        mutated = text[:at] + m.repl + text[at + len(m.orig):]
        path = os.path.join(tree, m.file)
        current[m.file] = text
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(mutated)
            t1 = time.monotonic()
            p = build(bld, m.tests, args.jobs)
            if p.returncode != 0:
                verdict, by, out = "BROKEN", "does not build", p.stdout
            else:
                hit = run_tests(bld, m.tests)
                if hit:
                    verdict, by, out = "killed", f"{hit[0]}: {', '.join(hit[1][:3])}", ""
                else:
                    verdict, by, out = "SURVIVED", "passes " + " ".join(m.tests), ""
        finally:
            restore()
        rows.append((m, verdict, by))
        print(f"{m.id:<{width}}  {verdict:<8}  {by}  ({time.monotonic() - t1:.1f} s)", flush=True)
        if verdict != "killed":
            print(f"{'':<{width}}  rule: {m.rule}")
            if verdict == "BROKEN" or args.verbose:
                sys.stdout.write(out[-3000:])

    killed = sum(1 for r in rows if r[1] == "killed")
    lost = [r for r in rows if r[1] != "killed"]
    print()
    print(f"| {'mutant':<{width}} | result   | killed by")
    print(f"|-{'-' * width}-|----------|----------")
    for m, verdict, by in rows:
        print(f"| {m.id:<{width}} | {verdict:<8} | {by}")
    print()
    print(f"mutate: {killed} of {len(rows)} mutants killed, {len(lost)} not, "
          f"in {time.monotonic() - t0:.0f} s")
    for m, verdict, _ in lost:
        print(f"  {verdict}: {m.id} ({m.file}): {m.rule}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
