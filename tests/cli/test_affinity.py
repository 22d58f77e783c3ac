#!/usr/bin/env python3
"""test_affinity.py - affinity, memory_policy_semantics and the cpuset through
`numalab run --json` and `numalab topology --json`.

Runs a run inside a cpuset narrower than this machine (taskset -c with the
first allowed cpu) and checks that no thread was seen outside it and that
a request for a cpu outside it is refused naming the cpuset. Asserts
meaning, never a time. Stdlib only; NUMALAB_BIN names the binary.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 300


def numalab(*args, prefix=(), expect=0):
    p = subprocess.run([*prefix, BIN, *args], capture_output=True, text=True,
                       timeout=TIMEOUT)
    if p.returncode != expect:
        raise AssertionError("%s: exit %d, want %d\nstderr: %s" %
                             (" ".join(args), p.returncode, expect, p.stderr[-2000:]))
    return p


def skip_loudly(test, why):
    print("\nSKIP %s: %s" % (test.id().split(".")[-1], why), flush=True)
    raise unittest.SkipTest(why)


def observed(doc):
    return {t["cpu_observed"] for p in doc.get("placement", []) for t in p["threads"]}


class Cpuset(unittest.TestCase):
    def test_topology_shows_the_cpuset(self):
        d = json.loads(numalab("topology", "--json").stdout)
        cs = d["cpuset"]
        self.assertEqual(cs["cpus"], d["allowed"])
        self.assertTrue(cs["cpus_from"] and cs["mems_from"], cs)
        self.assertTrue(cs["mems"], cs)

    def narrow(self):
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            skip_loudly(self, "a narrower cpuset needs 2 allowed cpus; this process has %s" % cpus)
        if not shutil.which("taskset"):
            skip_loudly(self, "taskset is missing")
        return cpus[0], cpus[1], ("taskset", "-c", str(cpus[0]))

    def test_run_inside_a_narrow_cpuset_stays_in_it(self):
        inside, _, prefix = self.narrow()
        d = json.loads(numalab("topology", "--json", prefix=prefix).stdout)
        self.assertEqual(d["cpuset"]["cpus"], str(inside))
        self.assertIn("sched_getaffinity", d["cpuset"]["cpus_from"])
        doc = json.loads(numalab("run", "--json", "affinity", "threads=1", "size=256K",
                                 "passes=2", prefix=prefix).stdout)
        self.assertEqual(doc["status"], "done")
        self.assertEqual(observed(doc), {inside})
        for mode in ("created_pinned", "pinned_after", "process_mask", "unpinned"):
            self.assertEqual(doc["summary"]["%s_outside_cpus" % mode]["value"], 0, mode)
            self.assertEqual(doc["summary"]["%s_outside_mems" % mode]["value"], 0, mode)
        self.assertEqual(doc["summary"]["allowed_cpus"]["value"], 1)

    def test_cpu_outside_the_cpuset_is_refused(self):
        inside, outside, prefix = self.narrow()
        p = numalab("run", "affinity", "cpus=%d" % outside, "threads=1", prefix=prefix,
                    expect=2)
        self.assertIn("cpu %d is outside this process's cpuset (allowed: %d, from "
                      "sched_getaffinity" % (outside, inside), p.stderr)
        p = numalab("run", "false_sharing", "cpus=%d" % outside, "threads=1",
                    prefix=prefix, expect=2)
        self.assertIn("outside this process's cpuset", p.stderr)


class Affinity(unittest.TestCase):
    def test_modes_place_and_census(self):
        doc = json.loads(numalab("run", "--json", "affinity", "size=256K",
                                 "passes=2", "repeat=1", "warmup=0").stdout)
        self.assertEqual(doc["status"], "done")
        labels = {p["label"] for p in doc["placement"]}
        self.assertTrue({"created_pinned", "pinned_after", "process_mask",
                         "unpinned"} <= labels, labels)
        allowed = os.sched_getaffinity(0)
        self.assertTrue(observed(doc) <= allowed, observed(doc))
        pinned = [t for p in doc["placement"] if p["label"] == "created_pinned"
                  for t in p["threads"]]
        self.assertTrue(all(t["cpu_observed"] == t["cpu"] for t in pinned), pinned)
        self.assertTrue(doc.get("headline"))
        if doc["summary"]["cache_split_level"]["value"] == 0:
            self.assertTrue(any("cache_split" in n["text"] and n["level"] == "cannot"
                                for n in doc["notes"]), doc["notes"])

    def test_repeat_is_honoured(self):
        # every placement runs repeat rounds (after warmup): one sample a round
        doc = json.loads(numalab("run", "--json", "affinity", "threads=1", "size=64K",
                                 "passes=1", "modes=created_pinned,unpinned",
                                 "repeat=3", "warmup=1").stdout)
        self.assertEqual(doc["status"], "done")
        moves = [s for s in doc["samples"] if s["chart"] == "moves"]
        self.assertEqual(len(moves), 2, moves)
        for s in moves:
            self.assertEqual(s["stats"]["n"], 3, s)


class PolicySemantics(unittest.TestCase):
    def test_every_step_judged(self):
        doc = json.loads(numalab("run", "--json", "memory_policy_semantics", "size=256K",
                                 "repeat=2").stdout)
        self.assertEqual(doc["status"], "done")
        s = doc["summary"]
        if "node_a" not in s:
            skip_loudly(self, "no memory policy calls here: %s" % doc["notes"])
        texts = " ".join(n["text"] for n in doc["notes"])
        for step in ("after_touch", "vma_wins", "strict", "get_mempolicy",
                     "migrate_pages", "preferred"):
            self.assertIn(step + ":", texts)
        # get_mempolicy with no flag answers the policy that was set, on any machine
        self.assertEqual(s["get_mempolicy_policy_ok"]["value"], 1)
        if s["node_a"]["value"] == s["node_b"]["value"]:
            self.assertTrue(any(n["level"] == "cannot" for n in doc["notes"]))

    def test_nodes_must_be_two(self):
        p = numalab("run", "memory_policy_semantics", "nodes=0", expect=2)
        self.assertIn("'nodes' names 1 node,", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
