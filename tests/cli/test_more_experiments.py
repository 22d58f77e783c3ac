#!/usr/bin/env python3
"""test_more_experiments.py - variable_layout and numa_replication through
`numalab run --json`, with small params.

Checks what must hold on any machine: every layout measured with the
footprint it declares, the read-mostly word placed where its label says,
the shared objects found beside the binary (and a "cannot" note when they
are not), every copy and region of numa_replication on its node, equal
totals, and on one node a verdict that says what it cannot show. No test
asserts a time. Stdlib only; NUMALAB_BIN names the binary.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 300
PAGE = 4096


def run(name, *kv, expect=0, binary=BIN):
    p = subprocess.run([binary, "run", "--json", name, *kv], capture_output=True,
                       text=True, timeout=TIMEOUT)
    if p.returncode != expect:
        raise AssertionError("%s %s: exit %d, want %d\nstderr: %s" %
                             (name, " ".join(kv), p.returncode, expect, p.stderr[-2000:]))
    return json.loads(p.stdout) if expect == 0 else p


def points(doc, chart):
    return {s["x_label"] if s.get("x_label") else s["x"]: s
            for s in doc["samples"] if s["chart"] == chart}


def summary(doc, key):
    s = doc.get("summary", {}).get(key)
    return None if s is None else s["value"]


def notes(doc, level):
    return [n["text"] for n in doc["notes"] if n["level"] == level]


def skip_loudly(test, why):
    print("\nSKIP %s: %s" % (test.id().split(".")[-1], why), flush=True)
    raise unittest.SkipTest(why)


TINY = ("ops=20000", "starts=5", "repeat=2", "warmup=0")


class VariableLayout(unittest.TestCase):
    def test_every_part_measured(self):
        if len(os.sched_getaffinity(0)) < 2:
            skip_loudly(self, "the layouts and readers need 2 cpus")
        doc = run("variable_layout", "threads=2", *TINY)
        self.assertEqual(doc["status"], "done")
        lay = points(doc, "layouts")
        self.assertEqual(set(lay), {"global array", "__thread", "padded, one line each",
                                    "grouped in one padded line"})
        foot = {k: v["y"] for k, v in points(doc, "footprint").items()}
        self.assertEqual(foot["global array"], 16)
        self.assertEqual(foot["__thread"], 16)
        self.assertEqual(foot["padded, one line each"], 2 * foot["grouped in one padded line"])
        readers = points(doc, "readers")
        dist = {k: v["extra"]["bytes_from_written"] for k, v in readers.items()}
        self.assertLess(dist["same line as the written word"], 64)
        self.assertGreaterEqual(dist["own section (numalab_read_mostly)"], 128)
        # every point of the layouts and readers says how long its threads ran together
        for k, v in list(lay.items()) + list(readers.items()):
            self.assertIn("overlap", v["extra"], k)
        self.assertGreaterEqual(dist[".rodata (const)"], 128)
        # make builds the shared objects next to the binary
        self.assertEqual(summary(doc, "dso_found"), 1)
        self.assertEqual(len(points(doc, "tls_access")), 3)
        blocks = sorted(s["extra"]["tls_block_bytes"] for s in doc["samples"]
                        if s["chart"] == "thread_start")
        self.assertEqual(blocks, [0, 8, 8 + 2**20])
        self.assertTrue(doc.get("headline"))
        # the placement of each layout's team is recorded
        labels = {p["label"] for p in doc["placement"]}
        self.assertIn("layouts: global array", labels)

    def test_read_mostly_section_is_its_own(self):
        # the label says "own section": the linker must not have folded it into .data
        readelf = shutil.which("readelf")
        if not readelf:
            skip_loudly(self, "readelf (binutils) is not installed")
        out = subprocess.run([readelf, "-SW", BIN], capture_output=True, text=True,
                             check=True).stdout
        rows = [line.split() for line in out.splitlines() if "numalab_read_mostly" in line]
        self.assertEqual(len(rows), 1, out)
        row = rows[0][rows[0].index("numalab_read_mostly"):]
        # name, type, address, offset, size: the one padded word, 128 bytes
        self.assertEqual(int(row[4], 16), 128, row)

    def test_without_the_shared_objects(self):
        with tempfile.TemporaryDirectory() as d:
            lone = os.path.join(d, "numalab")
            shutil.copy(BIN, lone)
            doc = run("variable_layout", "parts=tls_access,thread_start",
                      *TINY, binary=lone)
        self.assertEqual(doc["status"], "done")
        self.assertEqual(summary(doc, "dso_found"), 0)
        self.assertEqual(set(points(doc, "tls_access")),
                         {"global variable", "__thread in the program"})
        self.assertTrue(any("libnumalab_tls.so" in t for t in notes(doc, "cannot")),
                        doc["notes"])

    def test_one_thread_says_what_it_cannot_show(self):
        # starts is thread_start's alone: these parts would refuse it
        doc = run("variable_layout", "threads=1", "parts=layouts,readers",
                  *[kv for kv in TINY if not kv.startswith("starts=")])
        self.assertEqual(doc["status"], "done")
        self.assertNotIn("readers", {s["chart"] for s in doc["samples"]})
        self.assertTrue(notes(doc, "cannot"), doc["notes"])

    def test_bad_params(self):
        p = run("variable_layout", "parts=layout", expect=2)
        self.assertIn("parts", p.stderr)
        p = run("variable_layout", "ops=0", expect=2)
        self.assertIn("ops", p.stderr)


class NumaReplication(unittest.TestCase):
    def test_copies_on_their_nodes(self):
        doc = run("numa_replication", "size=256K", "passes=1", "updates=2000",
                  "buckets=512", "repeat=2", "warmup=0")
        self.assertEqual(doc["status"], "done")
        nodes = int(summary(doc, "nodes_used"))
        pages = 256 * 1024 // PAGE
        self.assertEqual(summary(doc, "replicas"), nodes)
        self.assertEqual(summary(doc, "replica_bytes"), nodes * 256 * 1024)
        self.assertEqual(summary(doc, "single_pages_home"), pages)
        self.assertEqual(summary(doc, "single_pages_elsewhere"), 0)
        for k, v in doc["summary"].items():
            if k.endswith("_pages_elsewhere"):
                self.assertEqual(v["value"], 0, k)
        self.assertEqual(summary(doc, "accumulate_equal"), 1)
        self.assertIn("combine", {s["series"] for s in doc["samples"]
                                  if s["chart"] == "accumulate"})
        if nodes < 2:
            self.assertEqual(summary(doc, "migration_possible"), 0)
            # three of its own, and the rulebook's two: a buffer from
            # cache, and one node
            self.assertEqual(len(notes(doc, "cannot")), 5, doc["notes"])
            self.assertIn("one node", doc["headline"])
        else:
            self.assertEqual(summary(doc, "migration_moved"), pages)
            self.assertEqual(summary(doc, "migration_pages_after_local"), pages)
            # a break-even only where a remote pass was told slower
            self.assertTrue(summary(doc, "break_even_passes") is not None or
                            any("no break-even can be claimed" in n["text"]
                                for n in doc["notes"]), doc["notes"])

    def test_bad_params(self):
        p = run("numa_replication", "home=63", expect=2)
        self.assertIn("node 63 does not exist", p.stderr)
        p = run("numa_replication", "home=0,1", expect=2)
        self.assertIn("'home' names one node", p.stderr)
        p = run("numa_replication", "size=1K", expect=2)
        self.assertIn("size", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
