"""cycles.py - no two files of C code reach each other through their includes.

Two ways to use another file, each checked:
- includes: a module is a file's name without .c or .h (kernels/harness/
  rules.c and rules.h are one); module a uses b when a file of a includes
  b's header;
- calls: a .c file uses another when it names a function that the other
  defines (not static), whichever header declares it.
Files that use each other, directly or through others, are a circle:
neither can be read, tested or moved without the other. Prints each circle
as the path that closes it, naming the include or the function of each
step, and exits 1 when there is one, as tests/format/layers.py does for an
include that points up the folders.
"""

import os
import re
import sys

TOPS = ("lib", "kernels", "server", "cli")
OUTSIDE = ("kernels/experiments/dso", "kernels/experiments/template")


def sources(root):
    for top in TOPS:
        for d, _, files in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(d, root)
            if rel.startswith(OUTSIDE):
                continue
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(rel, f)


def graph(root):
    files = list(sources(root))
    home = {os.path.basename(f): f for f in files if f.endswith(".h")}
    uses = {}  # module -> {module: "file includes header"}
    for f in files:
        mod = f[:-2]
        uses.setdefault(mod, {})
        text = open(os.path.join(root, f), encoding="utf-8").read()
        for h in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            t = home.get(os.path.basename(h))
            if t and t[:-2] != mod:
                uses[mod].setdefault(t[:-2], "%s includes %s" % (f, t))
    return uses


DEFINITION = re.compile(
    r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*?\)\s*\{",
    re.M | re.S)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"", re.S)


def calls(root):
    """.c file -> {.c file: "a names b's function f"}, by the names each
    file's text holds of the functions the others define."""
    text, defined = {}, {}
    for f in sources(root):
        if not f.endswith(".c"):
            continue
        t = COMMENT.sub(" ", open(os.path.join(root, f), encoding="utf-8").read())
        text[f] = t
        for name in DEFINITION.findall(t):
            defined.setdefault(name, f)
    uses = {}
    for f, t in text.items():
        uses[f] = {}
        for name in sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", t))):
            g = defined.get(name)
            if g and g != f:
                uses[f].setdefault(g, "%s calls %s of %s" % (f, name, g))
    return uses


def circles(uses):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(uses.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(uses):
        if v not in index:
            visit(v)
    return out


def closing_path(uses, comp):
    """A shortest path of includes from comp's first module back to itself."""
    start, inside = comp[0], set(comp)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(uses.get(v, ())):
                if w not in inside:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path.reverse()
                    return [uses[a][b] for a, b in zip(path, path[1:] + [start])]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return []


def main(root):
    bad = 0
    for what, uses in (("includes", graph(root)), ("calls", calls(root))):
        found = circles(uses)
        for comp in found:
            print("cycles: a circle of %d files by %s: %s"
                  % (len(comp), what, ", ".join(comp)), file=sys.stderr)
            for step in closing_path(uses, comp):
                print("cycles:   " + step, file=sys.stderr)
        if not found:
            print("  no circle of %s among %d files" % (what, len(uses)))
        bad += len(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
