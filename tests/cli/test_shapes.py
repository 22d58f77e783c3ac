#!/usr/bin/env python3
"""test_shapes.py - `numalab topology` on the captured machines of tests/data.

What the CLI and its JSON say about machines unlike this one: every PU's
node (none, when its node is offline), every node's kind, initiators and
memory-side caches, memory-only nodes, the file's own architecture and
allowed sets, free memory unknown rather than zero, a clear refusal past
64 nodes, and a file or description hwloc cannot use refused by every
command, never taken for this machine. Stdlib only; NUMALAB_BIN names the
binary.
"""

import json
import os
import re
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
TIMEOUT = 120


def topology(shape, *args, expect=0):
    env = dict(os.environ, HWLOC_XMLFILE=os.path.join(DATA, shape + ".xml"))
    p = subprocess.run([BIN, "topology", *args], capture_output=True,
                       text=True, timeout=TIMEOUT, env=env)
    if p.returncode != expect:
        raise AssertionError("topology on %s: exit %d\nstderr: %s" %
                             (shape, p.returncode, p.stderr[-2000:]))
    return p


def doc(shape):
    return json.loads(topology(shape, "--json").stdout)


def pu_nodes(d):
    return {p["os"]: p["node"] for p in d["pus"]}


def nodes(d):
    return {n["os"]: n for n in d["nodes"]}


class Shapes(unittest.TestCase):
    def test_counts(self):
        # shape: packages, cores, PUs, nodes
        want = {"shared_l3": (1, 2, 2, 1), "l3_per_core": (1, 2, 2, 1),
                "one_cpu": (1, 1, 1, 1), "two_socket_smt": (2, 8, 16, 2),
                "power_smt8": (2, 8, 64, 2), "four_socket": (4, 16, 32, 4),
                "ccx": (1, 8, 16, 1), "hybrid": (1, 6, 8, 1),
                "dram_hbm_nvm": (2, 8, 8, 6), "memory_only_node": (1, 2, 2, 2),
                "cpu_only_node": (2, 4, 4, 2), "node0_offline": (2, 4, 4, 1),
                "cgroup_cpuset": (2, 8, 8, 2), "pus_1024": (4, 256, 1024, 4)}
        for shape, (pk, co, pu, nd) in want.items():
            with self.subTest(shape=shape):
                d = doc(shape)
                self.assertEqual((d["packages"], d["cores"], d["npus"],
                                  d["nnodes"]), (pk, co, pu, nd))
                self.assertEqual(len(d["nodes"]), nd)
                self.assertFalse(d["this_system"])
                # free memory a file cannot give is unknown, not zero
                self.assertTrue(all(n["mem_free"] is None for n in d["nodes"]))
                # the host's flags are not the file's
                self.assertIsNone(d["machine"]["flags"])
                self.assertFalse(d["machine"]["this_system"])

    def test_memory_kinds(self):
        d = doc("dram_hbm_nvm")
        n = nodes(d)
        self.assertEqual({k: v["kind"] for k, v in n.items()},
                         {0: "DRAM", 1: "DRAM", 2: "HBM", 3: "HBM",
                          4: "NVM", 5: "CXL-DRAM"})
        self.assertEqual({k for k, v in n.items() if v["cpuless"]},
                         {2, 3, 4, 5})
        self.assertEqual(n[2]["initiators"], "0-3")
        self.assertEqual(n[3]["initiators"], "4-7")
        self.assertEqual(n[5]["memcaches"], 1)
        self.assertEqual(n[5]["memcache_size"], 4 << 30)
        # every PU's local node is its package's DRAM node
        self.assertEqual(pu_nodes(d), {os_: 0 if os_ < 4 else 1
                                       for os_ in range(8)})
        self.assertEqual(d["machine"]["arch"], "x86_64")
        text = topology("dram_hbm_nvm").stdout
        self.assertIn("node 2: HBM, 16 GiB (free unknown), memory only, "
                      "nearest cpus 0-3", text)
        self.assertIn("1 memory-side cache (4 GiB)", text)

    def test_node0_offline(self):
        d = doc("node0_offline")
        self.assertEqual(pu_nodes(d), {0: -1, 1: -1, 2: 1, 3: 1})
        self.assertEqual([n["os"] for n in d["nodes"]], [1])
        self.assertEqual(d["offline_pus"], 2)
        self.assertEqual(d["arch"], "aarch64")
        self.assertEqual(d["machine"]["arch"], "aarch64")
        text = topology("node0_offline").stdout
        self.assertIn("2 PUs in no NUMA node: 0 1", text)
        self.assertIn("in no NUMA node", text)
        self.assertNotIn("NUMA node 0", text)

    def test_cgroup_from_file(self):
        d = doc("cgroup_cpuset")
        self.assertEqual(d["allowed"], "2-3")
        self.assertEqual(d["cpuset"]["mems"], "1")
        self.assertEqual([p["os"] for p in d["pus"] if p["allowed"]], [2, 3])
        self.assertEqual({n["os"]: n["mem_allowed"] for n in d["nodes"]},
                         {0: False, 1: True})

    def test_past_64_nodes_refused(self):
        p = topology("nodes_72", expect=1)
        self.assertIn("the topology has 72 NUMA nodes; numalab handles at "
                      "most 64", p.stderr)

    def test_past_64_nodes_refused_by_every_reader(self):
        # list --json gave made-up limits where topology refused the file
        env = dict(os.environ,
                   HWLOC_XMLFILE=os.path.join(DATA, "nodes_72.xml"))
        p = subprocess.run([BIN, "list", "--json"], capture_output=True,
                           text=True, timeout=TIMEOUT, env=env)
        self.assertEqual(p.returncode, 1, p.stdout[:200])
        self.assertEqual(p.stdout, "")
        self.assertIn("72 NUMA nodes", p.stderr)

    def test_distances_unknown_not_zero(self):
        # pus_1024.xml holds no distance matrix: unknown, never 0
        text = topology("pus_1024").stdout
        self.assertNotIn("distances: 0", text)
        self.assertEqual(text.count(
            "distances: unknown\n"), 4)
        d = doc("pus_1024")
        for n in d["nodes"]:
            self.assertEqual(n["distances"], [None] * 4)
        self.assertEqual(d["machine"]["distances"], [[None] * 4] * 4)
        d = doc("four_socket")
        self.assertEqual(nodes(d)[0]["distances"], [10, 21, 21, 21])
        self.assertIn("distances: 10 21 21 21", topology("four_socket").stdout)

    def test_plurals(self):
        text = topology("one_cpu").stdout
        self.assertIn("1 package, 1 core, 1 PU (1 allowed: 0), 1 NUMA node",
                      text)
        self.assertNotIn("(s)", text)

    def test_no_package_invented(self):
        env = dict(os.environ, HWLOC_SYNTHETIC="[numa] core:2 pu:1")
        out = subprocess.run([BIN, "topology", "--json"], capture_output=True,
                             text=True, timeout=TIMEOUT, env=env,
                             check=True).stdout
        d = json.loads(out)
        self.assertEqual(d["packages"], 0)
        self.assertTrue(all(p["package"] == -1 for p in d["pus"]))


class Unreadable(unittest.TestCase):
    """A topology the environment names and hwloc cannot use is refused by
    every command that reads one, naming the variable, its value and why:
    hwloc alone would load this machine instead, without a word."""

    COMMANDS = (["topology"], ["topology", "--json"], ["list", "--json"],
                ["estimate", "false_sharing"], ["run", "false_sharing"],
                ["rates"], ["serve", "--listen", "127.0.0.1:0", "--db",
                            ":memory:"])

    def refused(self, var, value, reason):
        env = dict(os.environ, **{var: value})
        env.pop("HWLOC_SYNTHETIC" if var == "HWLOC_XMLFILE"
                else "HWLOC_XMLFILE", None)
        for cmd in self.COMMANDS:
            with self.subTest(var=var, value=value, cmd=cmd):
                p = subprocess.run([BIN, *cmd], capture_output=True,
                                   text=True, timeout=TIMEOUT, env=env)
                self.assertNotEqual(p.returncode, 0, p.stdout[:300])
                self.assertEqual(p.stdout, "")
                self.assertIn("%s=%s: " % (var, value), p.stderr)
                self.assertIn(reason, p.stderr)

    def test_missing_file(self):
        self.refused("HWLOC_XMLFILE", "/nonexistent.xml",
                     "No such file or directory")

    def test_directory(self):
        self.refused("HWLOC_XMLFILE", DATA, "Is a directory")

    def test_not_xml(self):
        self.refused("HWLOC_XMLFILE", os.path.join(DATA, "README.md"),
                     "not an XML file hwloc wrote")

    def test_bad_synthetic(self):
        self.refused("HWLOC_SYNTHETIC", "garbage",
                     "not a synthetic topology hwloc can read")


def estimate(shape, name, *kv):
    env = dict(os.environ, HWLOC_XMLFILE=os.path.join(DATA, shape + ".xml"))
    p = subprocess.run([BIN, "estimate", "--json", name, *kv],
                       capture_output=True, text=True, timeout=TIMEOUT,
                       env=env, check=True)
    return json.loads(p.stdout)["plan"]


class Plans(unittest.TestCase):
    """The plan, visible before a run, on machines with memory-only nodes."""

    def cells(self, plan):
        line = next(x for x in plan if x.startswith("cells"))
        rows = {}
        for part in line.split(":", 1)[1].split(";"):
            part = part.strip()
            if part.startswith("threads on"):
                head, mem = part.split(", memory on")
                rows[int(head.split()[-1])] = {int(x) for x in mem.split()}
        return rows, line

    def test_matrix_experiments_never_run_threads_on_memory_only_nodes(self):
        for name in ("remote_bandwidth", "memory_latency"):
            for cells in ("full", "by_distance"):
                with self.subTest(name=name, cells=cells):
                    plan = estimate("dram_hbm_nvm", name, "cells=" + cells)
                    self.assertIn("memory only (never a thread): nodes 2-5",
                                  plan)
                    rows, line = self.cells(plan)
                    self.assertTrue(set(rows) <= {0, 1}, line)
                    # memory-only nodes are memory targets
                    targets = set().union(*rows.values())
                    self.assertTrue({2, 3, 4, 5} & targets, line)
                    if cells == "full":
                        self.assertEqual(rows, {0: set(range(6)),
                                                1: set(range(6))})

    def test_memory_policy_readers_on_nodes_with_cpus(self):
        plan = estimate("memory_only_node", "memory_policy")
        self.assertIn("readers: 1 thread on node 0", plan)
        self.assertIn("first touch: cpu 0 on node 0", plan)

    def test_cache_sharing_pairs(self):
        plan = estimate("two_socket_smt", "cache_sharing")
        self.assertIn("shared (L3): pair 0 on cpus 0 and 1; pair 1 on "
                      "cpus 4 and 5", plan)
        self.assertTrue(any(x.startswith("split (L3): pair 0 on cpus 0 and 4")
                            for x in plan), plan)
        plan = estimate("shared_l3", "cache_sharing")
        self.assertTrue(any(x.startswith("split: not placed") for x in plan),
                        plan)

    def test_numa_replication_copies_on_nodes_with_cpus(self):
        plan = estimate("dram_hbm_nvm", "numa_replication")
        self.assertIn("nodes taking part: 0-1; a copy and a region on each",
                      plan)
        self.assertIn("threads of node 1: cpu 4 on node 1", plan)
        self.assertIn("migration: a region on node 1, moved to node 0, "
                      "where it is read", plan)

    def test_thread_experiments_never_on_memory_only_nodes(self):
        plan = estimate("dram_hbm_nvm", "atomic_increment", "threads=1-8",
                        "placement=compact")
        self.assertIn("memory only (never a thread): nodes 2-5", plan)
        self.assertIn("threads=1-8, each on the first of: cpus 0 1 2 3 4 5 "
                      "6 7 on nodes 0-1", plan)
        self.assertTrue(any(x.startswith("memory: not bound: ")
                            for x in plan), plan)
        plan = estimate("dram_hbm_nvm", "variable_layout", "threads=4")
        for line in plan:
            if ": cpu" in line:
                nodes = line.rsplit(" on node", 1)[1].lstrip("s ")
                self.assertIn(nodes, ("0", "1", "0-1"), line)
        self.assertIn("writer: cpu 5 on node 1", plan)
        plan = estimate("two_socket_smt", "variable_layout", "parts=layouts")
        self.assertIn("layouts: cpus 0 4 on nodes 0-1", plan)
        self.assertFalse(any(x.startswith("writer") for x in plan), plan)

    def test_cpus_in_no_node_said(self):
        plan = estimate("node0_offline", "memory_policy")
        self.assertIn("threads may run on node 1 (cpus 0-3)", plan)
        self.assertIn("2 allowed cpus in no NUMA node: a plan by node never "
                      "uses them", plan)



# "...: cpus 0 4 1 5 on nodes 0-1", "cpus measured: cpus 0-15 on node 0"
CPUS = re.compile(r": cpus? ([\d ,-]+) on nodes? ([\d,-]+)")


def int_list(text):
    """{0, 1, 4, 5} from "0-1,4-5"."""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


class ExperimentPlans(unittest.TestCase):
    """Where false_sharing, core_to_core, affinity, bandwidth_scaling and
    memory_policy_semantics put threads and memory, before a run."""

    FIVE = ("false_sharing", "core_to_core", "affinity", "bandwidth_scaling",
            "memory_policy_semantics")
    SHAPES = ("two_socket_smt", "memory_only_node", "cpu_only_node",
              "one_cpu")

    def test_threads_only_on_nodes_with_cpus(self):
        for shape in self.SHAPES:
            d = doc(shape)
            pus = pu_nodes(d)
            with_cpus = {n for n in pus.values() if n >= 0}
            for name in self.FIVE:
                with self.subTest(shape=shape, name=name):
                    plan = estimate(shape, name)
                    # every thread a plan places names its cpus and their
                    # nodes: those are the cpus' own, never a cpu-less one
                    placed = [x for x in plan if CPUS.search(x)]
                    if name not in ("core_to_core",
                                    "memory_policy_semantics"):
                        self.assertTrue(placed, plan)
                    for line in placed:
                        m = CPUS.search(line)
                        cpus = int_list(m.group(1).replace(" ", ","))
                        listed = int_list(m.group(2))
                        self.assertTrue(listed <= with_cpus, line)
                        self.assertEqual(listed, {pus[c] for c in cpus},
                                         line)
                    # and says where memory goes
                    self.assertTrue(any(x.startswith("memory") for x in plan),
                                    plan)

    def test_memory_only_node_gets_memory_not_threads(self):
        plan = estimate("memory_only_node", "memory_policy_semantics")
        self.assertIn("memory: node a 0, node b 1 (memory only)", plan)
        self.assertIn("get_mempolicy: interleave over nodes 0-1", plan)
        self.assertIn("preferred: not placed: node 1 has no cpu this "
                      "process may use", plan)

    def test_cpu_only_node_memory_said(self):
        for name in ("false_sharing", "affinity", "bandwidth_scaling",
                     "core_to_core"):
            with self.subTest(name=name):
                plan = estimate("cpu_only_node", name)
                line = next(x for x in plan if x.startswith("memory: not"))
                self.assertTrue(line.endswith(
                    "(node 1 has no memory: a first touch there takes the "
                    "nearest node with memory)"), line)

    def test_sweeps_and_pairs_on_two_sockets(self):
        plan = estimate("two_socket_smt", "bandwidth_scaling", "threads=2,4")
        self.assertIn("compact, threads=2,4, each on the first of: cpus "
                      "0 8 1 9 on node 0", plan)
        self.assertIn("spread, threads=2,4, each on the first of: cpus "
                      "0 4 1 5 on nodes 0-1", plan)
        plan = estimate("two_socket_smt", "false_sharing", "threads=2",
                        "placement=os")
        self.assertIn("threads=2: not pinned (placement=os): where the "
                      "kernel puts them, on cpus 0-15", plan)
        plan = estimate("two_socket_smt", "core_to_core", "pairs=sample:5")
        self.assertIn("pairs: 5 of the 240 ordered pairs", plan)


if __name__ == "__main__":
    unittest.main(verbosity=2)
