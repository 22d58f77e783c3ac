"""test_checks.py - the format lane's own checks fail on a tree made to break them, naming the offender.

Builds a small tree in a temporary folder with one file over 600 lines, one
function over 100, and two headers that include each other, and runs
lengths.py and cycles.py on it: each must exit 1 and name what broke it. The
same scripts pass on the project itself (format.mk runs them there).
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def run(script, root):
    p = subprocess.run([sys.executable, os.path.join(HERE, script), root],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    failed = 0

    def check(ok, what, out):
        nonlocal failed
        print("%s %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            print(out)
            failed += 1

    with tempfile.TemporaryDirectory(prefix="numalab-format-") as root:
        write(root, "server/big.c", "int x;\n" * 650)
        body = "".join("\tn += %d;\n" % i for i in range(120))
        write(root, "cli/long.c", "int long_one(int n)\n{\n%s\treturn n;\n}\n" % body)
        write(root, "kernels/experiments/huge.c", "int y;\n" * 900)
        rc, out = run("lengths.py", root)
        check(rc == 1 and "server/big.c: 650 lines" in out, "a file over 600 lines is named", out)
        check("long_one is 124 lines" in out and "cli/long.c:1" in out,
              "a function over 100 lines is named with its place", out)
        check("huge.c" not in out, "an experiment's own file may be longer", out)

    with tempfile.TemporaryDirectory(prefix="numalab-format-") as root:
        write(root, "lib/a.h", '#include "b.h"\n')
        write(root, "lib/b.h", '#include "a.h"\n')
        write(root, "lib/c.c", '#include "a.h"\nint c;\n')
        rc, out = run("cycles.py", root)
        check(rc == 1 and "a.h" in out and "b.h" in out, "a circle of includes is named", out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
