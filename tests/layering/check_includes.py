#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layering of daemon/, held at every #include.

daemon/layers.txt lists the folders of daemon/ layer by layer, from the ground
up (daemon/CMakeLists.txt reads the same file for the libraries' links). Every
.c and .h under daemon/ and include/nvmond/ belongs to a folder (daemon/F/… and
include/nvmond/F/… to F) and may include only the headers of its own folder and
of the folders on lower layers: never a folder beside it on its own line, never
one above it. The link check of the build sees calls; this sees what a header
alone brings in (a type, an inline function, a macro), which no link shows.

A violation is printed as
    FILE:LINE: FOLDER may not include HEADER (OTHER is above FOLDER)
and the check exits 1. A folder on no line of layers.txt is a violation too.

--self-test runs the check on a small tree made in a temporary directory, with
violations planted in it, and fails unless each is found with its message and
a clean tree passes: the check cannot pass by finding nothing.

Usage: check_includes.py [--source DIR] [--self-test]
"""

import argparse
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def read_layers(path):
    """Return {folder: layer number} from a layers.txt (0 = the ground)."""
    layers = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            n = len(set(layers.values()))
            for folder in line.split():
                if folder in layers:
                    raise ValueError(f"{path}: {folder} is on two lines")
                layers[folder] = n
    return layers


def folder_of(rel):
    """The folder a path of the tree belongs to, or None (daemon/CMakeLists.txt, say)."""
    p = rel.split(os.sep)
    if p[0] == "daemon" and len(p) > 2:
        return p[1]
    if p[:2] == ["include", "nvmond"] and len(p) > 3:
        return p[2]
    return None


def header_folder(src_dir, root, quote, name):
    """The folder of the header an #include names, or None when it is none of
    the tree's folders (libc, a library, a generated header such as
    nvmond/config.h)."""
    if quote == '"':
        near = os.path.normpath(os.path.join(src_dir, name))
        if os.path.exists(near):
            return folder_of(os.path.relpath(near, root))
    p = name.split("/")
    if p[0] == "nvmond" and len(p) > 2:
        return p[1]
    return None


def check(root):
    """Return the violations of the tree at root, one message each."""
    layers = read_layers(os.path.join(root, "daemon", "layers.txt"))
    out = []
    unknown = set()
    for top in ("daemon", os.path.join("include", "nvmond")):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, name)
                rel = os.path.relpath(path, root)
                me = folder_of(rel)
                if me is None:
                    continue
                if me not in layers:
                    if me not in unknown:
                        out.append(f"{rel}:1: {me} is on no line of daemon/layers.txt")
                        unknown.add(me)
                    continue
                with open(path, errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        other = header_folder(d, root, m.group(1), m.group(2))
                        if other is None or other == me:
                            continue
                        if other not in layers:
                            out.append(f"{rel}:{n}: {me} may not include {m.group(2)} "
                                       f"({other} is on no line of daemon/layers.txt)")
                        elif layers[other] > layers[me]:
                            out.append(f"{rel}:{n}: {me} may not include {m.group(2)} "
                                       f"({other} is above {me})")
                        elif layers[other] == layers[me]:
                            out.append(f"{rel}:{n}: {me} may not include {m.group(2)} "
                                       f"({other} is beside {me}, on its layer)")
    return out


def self_test():
    """Plant violations in a small tree and fail unless the check finds each."""
    files = {
        "daemon/layers.txt": "# a comment\nutil\ncore decode\nstore\nprobe\n",
        "include/nvmond/util/u.h": "#pragma once\n#include <stdint.h>\n",
        "include/nvmond/decode/d.h": '#pragma once\n#include "nvmond/util/u.h"\n',
        "include/nvmond/probe/p.h": '#pragma once\n#include "nvmond/store/s.h"\n',
        # today's store_probe.h: store took its row types from probe
        "include/nvmond/store/s.h": '#pragma once\n#include "nvmond/decode/d.h"\n'
                                    '#include "nvmond/probe/p.h"\n',
        "daemon/store/s.c": '#include "nvmond/store/s.h"\n#include "s_internal.h"\n'
                            '#include "nvmond/config.h"\n',
        "daemon/store/s_internal.h": "#pragma once\n",
        # a sibling on the same layer, and a relative path into a folder above
        "daemon/core/c.c": '#include "nvmond/decode/d.h"\n#include <nvmond/util/u.h>\n',
        "daemon/util/u.c": '#include "../store/s_internal.h"\n',
        # a folder the table does not name
        "daemon/extra/x.c": '#include "nvmond/util/u.h"\n',
    }
    want = [
        "daemon/core/c.c:1: core may not include nvmond/decode/d.h (decode is beside core, on its layer)",
        "daemon/extra/x.c:1: extra is on no line of daemon/layers.txt",
        "daemon/util/u.c:1: util may not include ../store/s_internal.h (store is above util)",
        "include/nvmond/store/s.h:3: store may not include nvmond/probe/p.h (probe is above store)",
    ]
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        got = sorted(check(root))
        if got != want:
            print("self-test: the planted violations were not found as expected")
            print("want:\n  " + "\n  ".join(want))
            print("got:\n  " + "\n  ".join(got))
            return 1
        # Mended, the same tree passes: the check does not refuse everything.
        os.remove(os.path.join(root, "include/nvmond/store/s.h"))
        with open(os.path.join(root, "include/nvmond/store/s.h"), "w") as f:
            f.write('#pragma once\n#include "nvmond/decode/d.h"\n')
        with open(os.path.join(root, "daemon/core/c.c"), "w") as f:
            f.write('#include "nvmond/util/u.h"\n')
        with open(os.path.join(root, "daemon/util/u.c"), "w") as f:
            f.write('#include "nvmond/util/u.h"\n')
        os.remove(os.path.join(root, "daemon/extra/x.c"))
        got = check(root)
        if got:
            print("self-test: a clean tree was refused:\n  " + "\n  ".join(got))
            return 1
    print(f"self-test: {len(want)} planted violations found, the mended tree passes")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    try:
        bad = check(os.path.abspath(a.source))
    except (OSError, ValueError) as e:
        print(f"check_includes: {e}")
        return 2
    for line in bad:
        print(line)
    if bad:
        print(f"{len(bad)} include(s) against daemon/layers.txt "
              "(docs/architecture.md#layers)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
