#!/usr/bin/env python3
"""test_memory_experiments.py - the memory experiments of 6.5 through
`numalab run --json` with small params: the idle-remote copy run of
remote_bandwidth, the size defaults that stream from memory, and
memory_policy_semantics counting only the checks one node allows.

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


def run(name, *kv):
    p = subprocess.run([BIN, "run", "--json", name, *kv], capture_output=True,
                       text=True, timeout=TIMEOUT)
    if p.returncode != 0:
        raise AssertionError("%s %s: exit %d\nstderr: %s" %
                             (name, " ".join(kv), p.returncode, p.stderr[-2000:]))
    return json.loads(p.stdout)


def nodes():
    p = subprocess.run([BIN, "topology", "--json"], capture_output=True,
                       text=True, timeout=TIMEOUT, check=True)
    return len(json.loads(p.stdout)["nodes"])


def help_default(name, param):
    p = subprocess.run([BIN, "run", name, "--help"], capture_output=True,
                       text=True, timeout=TIMEOUT, check=True)
    m = re.search(r"^\s+%s\s+\S+\s+(\S+)" % param, p.stdout, re.M)
    return m.group(1) if m else None


class RemoteIdle(unittest.TestCase):
    def test_idle_run(self):
        doc = run("remote_bandwidth", "size=1M", "ops=read", "mixed=idle",
                  "repeat=2", "warmup=0")
        bars = {s["x_label"] for s in doc["samples"]
                if s["chart"] == "idle_remote"}
        self.assertNotIn("mixed", {s["chart"] for s in doc["samples"]})
        self.assertIn("one node, all local", bars)
        if nodes() < 2:
            self.assertEqual(bars, {"one node, all local"})
            self.assertTrue(any("needs 2 nodes" in n["text"]
                                for n in doc["notes"]), doc["notes"])
        else:
            self.assertIn("read local, write to an idle node", bars)
            self.assertIn("idle_local_gbps", doc["summary"])

    def test_bad_mode(self):
        p = subprocess.run([BIN, "run", "remote_bandwidth", "mixed=maybe"],
                           capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 2)
        self.assertIn("mixed", p.stderr)


class SizeDefaults(unittest.TestCase):
    def test_memory_defaults_agree(self):
        # the defaults are resolved from the same caches: all three agree
        sizes = {n: help_default(n, "size") for n in
                 ("numa_replication", "remote_bandwidth", "bandwidth_scaling")}
        self.assertEqual(len(set(sizes.values())), 1, sizes)
        self.assertNotEqual(sizes["numa_replication"], "16M", sizes)


class PolicySemantics(unittest.TestCase):
    def test_one_node_counts_what_means_something(self):
        doc = run("memory_policy_semantics")
        if doc["summary"].get("node_a", {}).get("value") is None:
            self.skipTest("the memory policy calls are not available here")
        one = doc["summary"]["node_a"]["value"] == doc["summary"]["node_b"]["value"]
        if not one:
            self.skipTest("two memory nodes: every check counts")
        self.assertIn("checks that need two could not be made", doc["headline"])
        self.assertNotIn("65 of 65", json.dumps(doc["notes"]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
