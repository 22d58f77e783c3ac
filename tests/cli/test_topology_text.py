#!/usr/bin/env python3
"""test_topology_text.py - `numalab topology` draws the machine in ASCII
boxes nested as lstopo nests them (packages, NUMA nodes, caches, cores,
PUs with their L# and P#) no wider than 100 columns, then prints its
table; `--json` stays JSON.

Stdlib only; NUMALAB_BIN names the binary (default build/numalab).
"""

import json
import os
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")


def topology(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([BIN, "topology", *args], capture_output=True,
                       text=True, timeout=60, env=e)
    if p.returncode != 0:
        raise AssertionError("topology %s: exit %d\nstderr: %s" %
                             (" ".join(args), p.returncode, p.stderr))
    return p.stdout


class Drawing(unittest.TestCase):
    def check(self, out, packages, nodes):
        lines = out.splitlines()
        for l in lines:
            self.assertLessEqual(len(l), 100, l)
        for p in range(packages):
            self.assertIn("+- Package %d -" % p, out)
        for n in range(nodes):
            self.assertIn("NUMA node %d: " % n, out)
        # the drawing comes first, the table after it
        box = next(i for i, l in enumerate(lines) if l.startswith("+- Package"))
        table = next(i for i, l in enumerate(lines)
                     if l.split()[:3] == ["cpu", "core", "pkg"])
        self.assertLess(box, table)
        self.assertTrue(any(l.startswith("| | |") for l in lines), out)

    def test_this_machine(self):
        out = topology()
        t = json.loads(topology("--json"))
        self.check(out, 1, 1)
        self.assertIsInstance(t, dict)
        # a VM may pass no cache on: then the text says so
        if t["caches"]:
            self.assertIn("L%d" % t["caches"][0]["level"], out)
        else:
            self.assertIn("caches: none given by the topology", out)

    def test_synthetic_two_sockets(self):
        out = topology(env={"HWLOC_SYNTHETIC":
                            "pack:2 numa:1 l3:1 core:4 pu:2"})
        self.check(out, 2, 2)
        self.assertIn("PU L#0 P#0", out)
        self.assertIn("L# is hwloc's logical index, P# the OS's number", out)
        self.assertEqual(out.count("L3 (16 MiB)"), 2)
        # the cache's box holds the cores', which hold the PUs
        self.assertIn("| | | +- Core 0 -", out)

    def test_no_caches(self):
        # hwloc gives some machines no cache: said, never drawn as -1
        out = topology(env={"HWLOC_SYNTHETIC": "pack:1 core:2 pu:1"})
        self.check(out, 1, 1)
        self.assertIn("caches: none given by the topology", out)
        rows = [l.split() for l in out.splitlines()
                if l.split()[:1] in (["0"], ["1"]) and len(l.split()) == 7]
        self.assertEqual([r[4:6] for r in rows], [["-", "-"], ["-", "-"]])

    def test_1024_pus_fold(self):
        out = topology(env={"HWLOC_SYNTHETIC":
                            "pack:2 numa:2 l3:4 l2:16 core:2 pu:2"})
        self.check(out, 2, 4)
        self.assertEqual(out.count("... 14 more"), 16)

    def test_unknown_option(self):
        p = subprocess.run([BIN, "topology", "--graph"], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option '--graph'", p.stderr)


if __name__ == "__main__":
    unittest.main()
