"""layers.py - the folders of C code and the one way their includes may point.

Each folder may include headers of the folders listed before it in LAYERS
(and its own), never of one after it: no arrow runs up and no two folders
include each other. A folder of C code that is not listed fails the check,
so a new one is placed on purpose. Prints the folder graph and each arrow
that breaks the order; exit status 1 when there is one.
"""

import os
import re
import sys

# lowest first; beside each other means neither includes the other
LAYERS = [
    "lib",                  # strings, vectors, errors, bounded JSON parsing
    "kernels/harness",      # planning, teams, stats, sinks, verdict rules, memory
    "kernels/experiments",  # one file an experiment, and the registry
    "server/rundoc",           # the run document: events, schemas, import checks, export
    "server/http",          # the HTTP edge and who is trusted
    "server/store",         # SQLite: runs, events, campaigns, imports kept
    "server/runs",          # the queue and the worker processes
    "server/stream",        # event streams and the documents served
    "server/api",           # the routes
    "cli",                  # numalab's commands (serve, run, list, ...)
    "cli/fleet",            # numalab fleet: the campaign client and its engines
]
# folders of C code that are not code of the program
OUTSIDE = {"kernels/experiments/dso", "kernels/experiments/template"}
# an experiment of several parts is a folder of the experiments' layer
PARTS_OF = "kernels/experiments"


def layer_of(d):
    """The layer a folder of C code belongs to, or None."""
    if d in LAYERS:
        return d
    if d not in OUTSIDE and os.path.dirname(d) == PARTS_OF:
        return PARTS_OF
    return None


def files_of(root, layer):
    """The C files of a layer: its folder's, and its parts' folders'."""
    dirs = [layer]
    if layer == PARTS_OF:
        base = os.path.join(root, layer)
        dirs += sorted(os.path.join(layer, x) for x in os.listdir(base)
                       if os.path.isdir(os.path.join(base, x))
                       and os.path.join(layer, x) not in OUTSIDE)
    for d in dirs:
        for f in sorted(os.listdir(os.path.join(root, d))):
            if f.endswith((".c", ".h")):
                yield d, f


def c_folders(root):
    for top in ("lib", "kernels", "server", "cli"):
        for d, _, files in os.walk(os.path.join(root, top)):
            if any(f.endswith((".c", ".h")) for f in files):
                yield os.path.relpath(d, root)


def main(root):
    bad = []
    rank = {d: i for i, d in enumerate(LAYERS)}
    for d in c_folders(root):
        if layer_of(d) is None and d not in OUTSIDE:
            bad.append("%s: a folder of C code not placed in tests/format/layers.py" % d)
    home = {}
    for d in LAYERS:
        for _, f in files_of(root, d):
            if f.endswith(".h"):
                if f in home:
                    bad.append("%s: in both %s and %s" % (f, home[f], d))
                home[f] = d
    edges = {}
    for d in LAYERS:
        for sub, f in files_of(root, d):
            text = open(os.path.join(root, sub, f), encoding="utf-8").read()
            for h in re.findall(r'#include "([^"]+)"', text):
                t = home.get(h)
                if t is None or t == d:
                    continue
                edges.setdefault(d, set()).add(t)
                if rank[t] > rank[d]:
                    bad.append("%s/%s includes %s of %s, a folder above it" % (sub, f, h, t))
    for d in LAYERS:
        print("  %-20s -> %s" % (d, ", ".join(sorted(edges.get(d, ()))) or "-"))
    for b in bad:
        print("layers: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
