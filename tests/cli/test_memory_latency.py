#!/usr/bin/env python3
"""test_memory_latency.py - memory_latency through `numalab run --json`
with small params: the local cell and (on one node) the remote cells said
to need two nodes, the size sweep with its cache marks, the loaded curve's
points, where the buffer's pages are, and bad params refused.

Checks what must hold on any machine; no test asserts a time. Stdlib only;
NUMALAB_BIN names the binary.
"""

import json
import os
import re
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 300
EXP = "memory_latency"


def run(*kv):
    p = subprocess.run([BIN, "run", "--json", EXP, *kv], capture_output=True,
                       text=True, timeout=TIMEOUT)
    if p.returncode != 0:
        raise AssertionError("%s: exit %d\nstderr: %s" %
                             (" ".join(kv), p.returncode, p.stderr[-2000:]))
    return json.loads(p.stdout)


def topology():
    p = subprocess.run([BIN, "topology", "--json"], capture_output=True,
                       text=True, timeout=TIMEOUT, check=True)
    return json.loads(p.stdout)


def says(doc, text):
    return any(text in n["text"] for n in doc["notes"]) or text in doc["headline"]


class Nodes(unittest.TestCase):
    def test_local_cell_and_remote_needs_two(self):
        doc = run("size=2M", "loads=4096", "repeat=2", "warmup=0")
        nodes = [n["os"] if isinstance(n, dict) and "os" in n else i
                 for i, n in enumerate(topology()["nodes"])]
        lat = [c for c in doc["cells"] if c["chart"] == "latency"]
        measured = [c for c in lat if c.get("value") is not None
                    and c.get("samples")]
        self.assertTrue(any(c["row"] == c["col"] for c in measured), lat)
        self.assertGreater(doc["summary"]["local_ns"]["value"], 0)
        # every column's buffer is on its node, by move_pages
        for k, v in doc["summary"].items():
            if k.startswith("pages_off_node"):
                self.assertEqual(v["value"], 0, k)
        if len(nodes) < 2:
            # the matrix is the 1x1 measured: no phantom node beside it
            self.assertEqual([(c["row"], c["col"]) for c in lat], [(0, 0)],
                             lat)
            self.assertFalse(any("not on this machine" in c["col_label"]
                                 for c in doc["cells"]), doc["cells"])
            self.assertTrue(says(doc, "needs 2 nodes"), doc["notes"])
            self.assertNotIn("remote_ns", doc["summary"])
        else:
            self.assertIn("remote_over_local", doc["summary"])
        dist = [c for c in doc["cells"] if c["chart"] == "distance"]
        self.assertTrue(all(c["value"] >= 10 for c in dist), dist)
        # a buffer inside the caches is labelled so
        self.assertTrue(says(doc, "from cache"), doc["headline"])

    def test_page_size_said(self):
        doc = run("size=4M", "loads=4096", "repeat=1", "warmup=0",
                  "pages=small")
        self.assertEqual(doc["summary"]["huge_page_share"]["value"], 0)
        self.assertTrue(says(doc, "4 KiB pages as asked"), doc["notes"])


class Sizes(unittest.TestCase):
    def test_sweep_and_marks(self):
        doc = run("mode=sizes", "size=1M", "loads=4096", "repeat=2",
                  "warmup=0")
        pts = [s for s in doc["samples"] if s["chart"] == "sizes"]
        xs = sorted(s["x"] for s in pts if s["series"] == "chase")
        self.assertEqual(xs[0], 8192)
        self.assertEqual(xs[-1], 1 << 20)
        self.assertEqual(len(xs), len(set(xs)))
        caches = [c for c in topology().get("caches", [])
                  if c.get("level") == 1 and 8192 <= c.get("size", 0) <= 1 << 20]
        marks = {s["series"] for s in pts if s["series"] != "chase"}
        self.assertTrue(marks <= {"L1 cache", "L2 cache", "L3 cache"}, marks)
        if caches:
            self.assertIn("L1 cache", marks)
        self.assertIn("largest_over_smallest", doc["summary"])


class Loaded(unittest.TestCase):
    def test_curve_points(self):
        cpus = topology().get("allowed", None)
        doc = run("mode=loaded", "size=2M", "loaders=0", "loads=4096",
                  "repeat=2", "warmup=0")
        pts = [s for s in doc["samples"] if s["chart"] == "loaded"]
        self.assertEqual(len(pts), 1)
        self.assertEqual(pts[0]["x"], 0)
        self.assertIn("idle_ns", doc["summary"])
        del cpus

    def test_too_many_loaders_refused(self):
        p = subprocess.run([BIN, "run", EXP, "mode=loaded", "loaders=1023"],
                           capture_output=True, text=True, timeout=TIMEOUT)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("loaders=1023 needs 1024 cpus", p.stderr)


class Table(unittest.TestCase):
    """The closing table a person reads: the cache marks as words beside
    the row they mark, the header with only this mode's parameters."""

    def table(self, *kv):
        p = subprocess.run([BIN, "run", EXP, *kv], capture_output=True,
                           text=True, timeout=TIMEOUT, check=True)
        return p.stdout

    def test_marks_beside_their_row(self):
        # the L1 data cache of this machine: 32 KiB on one, 48 on the next
        l1 = [c["size"] for c in topology().get("caches", []) if c.get("level") == 1]
        if not l1:
            self.skipTest("this machine names no L1 cache")
        out = self.table("mode=sizes", "size=2M", "loads=4096", "repeat=1",
                         "warmup=0", "budget=0")
        rows = [l for l in out.splitlines() if l.startswith("  pointer chase")]
        marked = [l for l in rows if "\u2190 L1" in l]
        self.assertEqual(len(marked), 1, out)
        self.assertIn(" %d KiB " % (min(l1) // 1024), marked[0])
        # no column of dashes for the marks
        self.assertFalse(any(l.split()[-1] == "-" for l in rows), out)
        self.assertNotIn("L1 cache", out.split("summary")[0].splitlines()[4])
        head = out.splitlines()[1]
        self.assertIn("mode=sizes", head)
        for other in ("nodes=", "cells=", "loaders=", "load="):
            self.assertNotIn(" " + other, head, head)

    def test_values_three_digits(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("a loader beside the chase needs 2 cpus; this "
                          "process may use only %s"
                          % sorted(os.sched_getaffinity(0)))
        out = self.table("mode=loaded", "size=16M", "loads=4096", "repeat=1",
                         "warmup=0", "budget=0", "loaders=1")
        rows = [l for l in out.splitlines() if l.startswith("  chase while")]
        self.assertTrue(rows, out)
        for l in rows:
            # "chase while others read  8.96  2.24 ..." : the GB/s column
            x = l.split()[4]
            digits = x.replace(".", "").lstrip("0")
            self.assertLessEqual(len(digits), 3, l)
        # the verdict too: "idle 148 ns per load; ... 14.4 GB/s, 342 ns",
        # a fraction only within three digits (never "148.4 ns")
        verdict = [l for l in out.splitlines() if l.startswith("verdict:")]
        self.assertTrue(verdict, out)
        values = re.findall(r"(\d[\d.]*) (?:ns|GB/s)\b", verdict[0])
        self.assertTrue(values, verdict[0])
        for v in values:
            if "." in v:
                digits = v.replace(".", "").lstrip("0")
                self.assertLessEqual(len(digits), 3, verdict[0])


class BadParams(unittest.TestCase):
    def test_refused(self):
        for kv, text in (("mode=fast", "mode"), ("size=10000", "multiple of 4K"),
                         ("loads=10", "loads"), ("mode=sizes mem_node=63", "node 63"),
                         ("pages=giant", "pages")):
            p = subprocess.run([BIN, "run", EXP, *kv.split()], capture_output=True,
                               text=True, timeout=TIMEOUT)
            self.assertNotEqual(p.returncode, 0, kv)
            self.assertIn(text, p.stderr, kv)


if __name__ == "__main__":
    unittest.main()
