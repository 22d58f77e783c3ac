"""lengths.py - files of one purpose, functions of one step: the long ones, named.

A C file of the program (lib, kernels, server, cli) that is not one
experiment or one part of one may hold at most FILE_MOST lines; a function
anywhere in the program at most FUNCTION_MOST lines, from the line of its
name to its closing brace. Prints each file and function over its limit,
longest first, with its length and where it is, and exits 1 when there is
one. --top N prints the N longest of each instead, over the limit or not.
"""

import os
import re
import sys

# the same files as the cycle check reads
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cycles import sources  # noqa: E402

FILE_MOST = 600
FUNCTION_MOST = 100
# one experiment a file, or one part of one a file in its folder
EXPERIMENTS = "kernels/experiments"

# a definition: a name and its parameters at the start of a line, then a
# line that opens the body
START = re.compile(r"^(?:static\s+|inline\s+)*[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(")


def is_experiment(path):
    return path.startswith(EXPERIMENTS + "/") and path.endswith(".c") \
        and not path.endswith("/registry.c")


def functions(text):
    """(name, first line, lines) of each function defined in text."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        if m and not lines[i].rstrip().endswith(";"):
            # the body opens on a line of its own ("{") within a few lines
            j = i
            while j < len(lines) and j < i + 8 and lines[j] != "{":
                if lines[j].rstrip().endswith(";"):
                    break
                j += 1
            if j < len(lines) and lines[j] == "{":
                k = j + 1
                while k < len(lines) and lines[k] != "}":
                    k += 1
                out.append((m.group(1), i + 1, k - i + 1))
                i = k + 1
                continue
        i += 1
    return out


def measure(root):
    files, funcs = [], []
    for f in sources(root):
        text = open(os.path.join(root, f), encoding="utf-8").read()
        n = text.count("\n")
        files.append((n, f))
        if f.endswith(".c"):
            for name, line, length in functions(text):
                funcs.append((length, "%s:%d" % (f, line), name))
    return sorted(files, reverse=True), sorted(funcs, reverse=True)


def main(argv):
    root = "."
    top = 0
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--top":
            top = int(args.pop(0))
        else:
            root = a
    files, funcs = measure(root)
    if top:
        print("the %d longest files:" % top)
        for n, f in files[:top]:
            print("  %5d  %s" % (n, f))
        print("the %d longest functions:" % top)
        for n, where, name in funcs[:top]:
            print("  %5d  %s  %s" % (n, name, where))
        return 0
    bad = 0
    for n, f in files:
        if n > FILE_MOST and not is_experiment(f):
            print("lengths: %s: %d lines, over %d: split it by purpose"
                  % (f, n, FILE_MOST), file=sys.stderr)
            bad += 1
    for n, where, name in funcs:
        if n > FUNCTION_MOST:
            print("lengths: %s: %s is %d lines, over %d: one step a function"
                  % (where, name, n, FUNCTION_MOST), file=sys.stderr)
            bad += 1
    if not bad:
        print("  no file over %d lines, no function over %d"
              % (FILE_MOST, FUNCTION_MOST))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
