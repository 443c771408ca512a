#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Size limits of daemon/ (issue 26): no function over 120 lines, no file over 800.

A function is counted from the line of its name to its closing brace: the house
style (.clang-format, BreakBeforeBraces: Linux) opens a function's body with a
'{' alone in column 0 and closes it with a '}' in column 0, so no parser is needed.

Exit status: 0 within the limits (or listed below as a known exception),
1 an offender, printed as FILE:FUNCTION:LINES (or FILE:LINES for a file).

Usage: check_sizes.py [--root DIR] [--list]   (--list: every function and file over
the limits, exceptions included, and exit 0)
"""

import argparse
import os
import re
import sys

MAX_FUNC_LINES = 120
MAX_FILE_LINES = 800

# Known offenders: none since the probe service's part of issue 26 split its
# five; nothing may be added to it (an entry that fits fails the check).
EXCEPTIONS = set()

NAME_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    """Yield (name, lines) for each function definition of the C file @path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{") and start is None and i > 0:
            # The signature: back up to the first line of it (a line in column 0
            # that is neither blank, a comment, nor a preprocessor line).
            j = i - 1
            while j > 0 and lines[j - 1][:1] not in ("", "}", "#", "/", " ", "*") \
                    and not lines[j - 1].rstrip().endswith((";", "*/")):
                j -= 1
            sig = " ".join(lines[j:i])
            if "=" in sig.split("(")[0] or "(" not in sig:
                continue  # an initializer or a struct, not a function
            m = None
            for m in NAME_RE.finditer(sig.split(")")[0] + ")"):
                if m.group(1) not in ("__attribute__", "_cleanup_"):
                    break
            start = (j, m.group(1) if m else "?")
        elif line.startswith("}") and start is not None:
            yield start[1], i - start[0] + 1
            start = None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--root", default=os.path.join(here, "..", ".."))
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    daemon = os.path.join(args.root, "daemon")
    bad = []
    for dirpath, _, files in sorted(os.walk(daemon)):
        for fn in sorted(files):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, args.root)
            with open(path, encoding="utf-8", errors="replace") as f:
                n = sum(1 for _ in f)
            if n > MAX_FILE_LINES:
                bad.append((rel, None, n))
            for name, lines in functions(path):
                if lines > MAX_FUNC_LINES:
                    bad.append((rel, name, lines))
    failed = 0
    for rel, name, n in sorted(bad, key=lambda b: -b[2]):
        key = f"{rel}:{name}" if name else rel
        known = key in EXCEPTIONS
        if known and not args.list:
            continue
        print(f"{key}:{n}" + (" (known exception)" if known else ""))
        failed += not known
    for key in sorted(EXCEPTIONS):
        if not any((f"{r}:{nm}" if nm else r) == key for r, nm, _ in bad):
            print(f"{key}: in the exception list but within the limits now: "
                  "take it out of the list", file=sys.stderr)
            failed += 1
    if failed and not args.list:
        print(f"{failed} over the limits (functions {MAX_FUNC_LINES} lines, "
              f"files {MAX_FILE_LINES})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
