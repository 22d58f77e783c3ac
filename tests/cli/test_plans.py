#!/usr/bin/env python3
"""test_plans.py - `numalab estimate`'s plan on the captured machines of
tests/data: the plan of the mode asked for, memory only where a node takes
it, threads only on allowed cpus, defaults the machine allows.

Stdlib only; NUMALAB_BIN names the binary.
"""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_shapes  # noqa: E402

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
TIMEOUT = 120


def numalab(shape, *args):
    env = dict(os.environ, HWLOC_XMLFILE=os.path.join(DATA, shape + ".xml"))
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env)


def plan(shape, name, *kv):
    p = numalab(shape, "estimate", "--json", name, *kv)
    if p.returncode != 0:
        raise AssertionError("estimate %s %s on %s: exit %d\nstderr: %s" %
                             (name, " ".join(kv), shape, p.returncode,
                              p.stderr[-2000:]))
    return json.loads(p.stdout)["plan"]


class MemoryLatencyModes(unittest.TestCase):
    """Each mode's plan is its own, never mode=nodes' cells."""

    def test_sizes(self):
        got = plan("two_socket_smt", "memory_latency", "mode=sizes",
                   "cpu_node=1", "mem_node=0")
        self.assertFalse(any(x.startswith("cells") for x in got), got)
        self.assertIn("chase: cpu 4 on node 1", got)
        self.assertIn("memory: the chased buffer bound to node 0", got)

    def test_loaded(self):
        got = plan("two_socket_smt", "memory_latency", "mode=loaded",
                   "cpu_node=1", "mem_node=0", "loaders=2")
        self.assertFalse(any(x.startswith("cells") for x in got), got)
        self.assertIn("chase: cpu 4 on node 1", got)
        self.assertIn("loaders=1-2, each on a cpu of its own: cpus 12 5 on "
                      "node 1", got)
        self.assertIn("memory: the chased buffer and the loaders' buffer "
                      "bound to node 0", got)
        got = plan("two_socket_smt", "memory_latency", "mode=loaded",
                   "loaders=0")
        self.assertIn("loaders: none (loaders=0): the idle chase only", got)


def cells(got):
    """{row node: {memory nodes}} of the plan's cells line, read as
    test_shapes.py reads it."""
    return test_shapes.Plans.cells(None, got)


class MemoryWhereAllowed(unittest.TestCase):
    """Memory only on nodes that take it, threads only on allowed cpus,
    and every default one the machine allows."""

    def test_cpu_only_node(self):
        for name in ("remote_bandwidth", "memory_latency"):
            with self.subTest(name=name):
                got = plan("cpu_only_node", name)
                self.assertIn("memory may be bound to node 0", got)
                rows, line = cells(got)
                self.assertEqual(rows, {0: {0}, 1: {0}}, line)
                self.assertTrue(line.endswith(
                    "node 1 takes no memory (it has none)"), line)
        got = plan("cpu_only_node", "memory_latency", "mode=sizes",
                   "cpu_node=1")
        self.assertIn("memory: the chased buffer bound to node 0", got)

    def test_cgroup_cpuset(self):
        for name in ("remote_bandwidth", "memory_latency"):
            with self.subTest(name=name):
                rows, line = cells(plan("cgroup_cpuset", name))
                self.assertEqual(rows, {0: {1}}, line)
                self.assertIn("node 1 runs no thread (no cpu of it allowed)",
                              line)
                self.assertIn("node 0 takes no memory (not allowed)", line)
        # the defaults of cpu_node and mem_node are nodes the file allows
        for mode in ("sizes", "loaded"):
            got = plan("cgroup_cpuset", "memory_latency", "mode=" + mode)
            self.assertIn("chase: cpu 2 on node 0", got)
            self.assertTrue(any(x.startswith("memory: the chased buffer")
                                and x.endswith("bound to node 1")
                                for x in got), got)
        # no node both takes memory and runs threads: no copy is planned
        p = numalab("cgroup_cpuset", "estimate", "numa_replication")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("no node has both memory this process may bind and 1 "
                      "cpu it may use", p.stderr)


class RunUnderFile(unittest.TestCase):
    """A run measures this machine: under a file whose cpus or nodes are
    not this process's, it is refused before it starts, and estimate still
    plans on the file."""

    def test_refused_up_front(self):
        mine = os.sched_getaffinity(0)
        # the files' cpus: refused wherever this process lacks one of them
        for shape, cpus in (("four_socket", range(32)),
                            ("cgroup_cpuset", (2, 3))):
            with self.subTest(shape=shape):
                if set(cpus) <= mine:
                    self.skipTest("this process may use cpus %s" % cpus)
                p = numalab(shape, "run", "false_sharing", "threads=1-2",
                            "increments=1000", "repeat=1", "warmup=0")
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertIn("a run measures this machine, and "
                              "HWLOC_XMLFILE=", p.stderr)
                self.assertIn("only describes one: its cpus", p.stderr)
                self.assertIn("`numalab estimate` shows the plan on the "
                              "file", p.stderr)
                self.assertNotIn("Invalid argument", p.stderr)
                self.assertTrue(plan(shape, "false_sharing", "threads=1-2"))
        if set(range(32)) <= mine:
            return
        p = numalab("four_socket", "run", "--ndjson", "false_sharing")
        self.assertEqual(p.returncode, 2, p.stderr)
        end = json.loads(p.stdout.splitlines()[-1])
        self.assertEqual(end.get("field"), "topology", end)


if __name__ == "__main__":
    unittest.main(verbosity=2)
