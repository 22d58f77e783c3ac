#!/usr/bin/env python3
"""test_plans.py - `numalab estimate`'s plan on the captured machines of
tests/data: the plan of the mode asked for, memory only where a node takes
it, threads only on allowed cpus, defaults the machine allows.

Stdlib only; NUMALAB_BIN names the binary.
"""

import json
import os
import subprocess
import unittest

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
