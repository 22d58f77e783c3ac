#!/usr/bin/env python3
"""test_unread_params.py - a param the run would not read is refused,
never silently dropped: one of another mode (memory_latency's loaders in
mode=nodes), placement beside cpus, a param every experiment takes that
one never reads (core_to_core's repeat). `numalab run`, `numalab
estimate` and `numalab fleet run` answer alike, naming the param and
when it is read, with exit 2; the same params where they are read are
taken. Stdlib only; NUMALAB_BIN names the binary (default build/numalab).
"""

import json
import os
import subprocess
import tempfile
import unittest

BIN = os.path.abspath(os.environ.get("NUMALAB_BIN", "build/numalab"))
TIMEOUT = 120

# (experiment, params, what the refusal says): each param given where the
# run would not read it
REFUSED = [
    ("memory_latency", ["mode=nodes", "loaders=2"],
     "'loaders' is read only in mode=loaded (mode is nodes)"),
    ("memory_latency", ["loaders=2"],
     "'loaders' is read only in mode=loaded (mode is nodes)"),
    ("memory_latency", ["mode=sizes", "load=write"],
     "'load' is read only in mode=loaded (mode is sizes)"),
    ("memory_latency", ["mode=nodes", "cpu_node=0"],
     "'cpu_node' is read only in mode=sizes or loaded (mode is nodes)"),
    ("memory_latency", ["mode=loaded", "mem_node=0", "nodes=0"],
     "'nodes' is read only in mode=nodes (mode is loaded)"),
    ("memory_latency", ["mode=sizes", "cells=full"],
     "'cells' is read only in mode=nodes (mode is sizes)"),
    ("atomic_increment", ["cpus=0", "placement=compact"],
     "'placement' is read only while 'cpus' is empty (cpus is 0)"),
    ("false_sharing", ["placement=spread", "cpus=0"],
     "'placement' is read only while 'cpus' is empty (cpus is 0)"),
    ("core_to_core", ["repeat=3"],
     "'repeat' is not read by core_to_core: the timed rounds of each pair "
     "are 'samples'"),
    ("core_to_core", ["budget=0"], "'budget' is not read by core_to_core"),
    ("memory_policy_semantics", ["warmup=0"],
     "'warmup' is not read by memory_policy_semantics"),
    ("memory_policy_semantics", ["budget=0"],
     "'budget' is not read by memory_policy_semantics"),
    ("false_sharing", ["layout=separate", "stride=8"],
     "'stride' is read only in layout=shared or both (layout is separate)"),
    ("remote_bandwidth", ["ops=read", "kinds=regular"],
     "'kinds' is read only when 'ops' has write (ops is read)"),
    ("variable_layout", ["parts=layouts,readers", "starts=5"],
     "'starts' is read only when 'parts' has thread_start "
     "(parts is layouts,readers)"),
    ("variable_layout", ["parts=thread_start", "ops=1000"],
     "'ops' is read only when 'parts' has one of layouts, readers or "
     "tls_access (parts is thread_start)"),
    ("variable_layout", ["parts=tls_access,thread_start", "threads=1"],
     "'threads' is read only when 'parts' has one of layouts or readers "
     "(parts is tls_access,thread_start)"),
    ("memory_policy", ["migrate_with=none", "migrate_to=0"],
     "'migrate_to' is read only in migrate_with=both, mbind, mbind_strict, "
     "move_pages or move_all (migrate_with is none)"),
    ("affinity", ["modes=unpinned", "cpus=0"],
     "'cpus' is read only when 'modes' has one of created_pinned, "
     "pinned_after or process_mask (modes is unpinned)"),
    ("affinity", ["modes=cache_split", "threads=2"],
     "'threads' is read only when 'modes' has one of created_pinned, "
     "pinned_after, process_mask or unpinned (modes is cache_split)"),
    ("affinity", ["modes=cache_split", "size=1M"],
     "'size' is read only when 'modes' has one of created_pinned, "
     "pinned_after, process_mask or unpinned (modes is cache_split)"),
]

# the same params where the run reads them: taken
TAKEN = [
    ("memory_latency", ["mode=loaded", "loaders=1", "load=write",
                        "cpu_node=0", "mem_node=0"]),
    ("memory_latency", ["mode=sizes", "cpu_node=0", "mem_node=0"]),
    ("memory_latency", ["mode=nodes", "nodes=0", "cells=full"]),
    ("atomic_increment", ["cpus=0", "threads=1"]),
    ("atomic_increment", ["cpus=", "placement=compact", "threads=1"]),
    ("core_to_core", ["samples=2", "warmup=0"]),
    ("memory_policy_semantics", ["repeat=1"]),
    ("false_sharing", ["layout=both", "stride=8"]),
    ("false_sharing", ["layout=shared", "stride=8"]),
    ("remote_bandwidth", ["ops=read,write", "kinds=regular"]),
    ("remote_bandwidth", ["ops=read", "mixed=no"]),
    ("variable_layout", ["parts=layouts,thread_start", "starts=5",
                         "ops=1000"]),
    ("variable_layout", ["parts=all", "starts=5", "ops=1000"]),
    ("variable_layout", ["parts=readers,tls_access", "threads=1"]),
    ("memory_policy", ["migrate_with=move_pages", "migrate_to=0"]),
    ("affinity", ["modes=unpinned,cache_split", "size=1M"]),
    ("affinity", ["modes=created_pinned", "cpus=0", "threads=1"]),
]


def numalab(*args, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=cwd)


class Refused(unittest.TestCase):
    def test_run_and_estimate_refuse_it(self):
        for name, kv, said in REFUSED:
            for cmd in ("run", "estimate"):
                with self.subTest(cmd=cmd, name=name, kv=kv):
                    p = numalab(cmd, name, *kv)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn(said, p.stderr)
                    self.assertEqual(p.stdout, "")

    def test_a_json_run_refuses_it_before_it_starts(self):
        p = numalab("run", "--json", "memory_latency", "mode=nodes",
                    "loaders=2")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("'loaders' is read only in mode=loaded", p.stderr)

    def test_a_campaign_refuses_it_before_any_job(self):
        with tempfile.TemporaryDirectory() as d:
            p = numalab("fleet", "run", "false_sharing", "layout=separate",
                        "stride=8", "--engine", "clush", "--clush-worker",
                        "exec", "--nodes", "a", "--numalab", BIN, "--plan",
                        cwd=d)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("'stride' is read only in layout=shared or both",
                          p.stderr)
            self.assertEqual(os.listdir(d), [])


class Taken(unittest.TestCase):
    def test_estimate_takes_what_the_run_reads(self):
        for name, kv in TAKEN:
            with self.subTest(name=name, kv=kv):
                p = numalab("estimate", name, *kv)
                # a machine may lack what the run needs (nodes, calls):
                # never because a param is not read
                self.assertNotIn("is read only", p.stderr)
                self.assertNotIn("is not read by", p.stderr)
                if p.returncode:
                    print("\n  note: %s %s: %s" % (name, " ".join(kv),
                                                  p.stderr.strip()))

    def test_a_tiny_run_of_another_mode(self):
        doc = json.loads(numalab(
            "run", "--json", "memory_latency", "mode=sizes", "size=64K",
            "loads=4096", "cpu_node=0", "repeat=1", "warmup=0",
            "budget=0").stdout)
        self.assertIn(doc["status"], ("done", "failed"), doc.get("error"))
        # the run records the values it read, which run again as they are
        self.assertEqual(doc["params"]["loads"], 4096)
        self.assertNotIn("loaders", doc["params"])
        again = numalab("estimate", "memory_latency",
                        *("%s=%s" % kv for kv in doc["params"].items()))
        self.assertEqual(again.returncode, 0, again.stderr)
        # its header too says only those it read
        out = numalab("run", "memory_latency", "mode=sizes", "size=64K",
                      "loads=4096", "repeat=1", "warmup=0", "budget=0").stdout
        head = out.splitlines()[1]
        self.assertIn("mode=sizes", head)
        self.assertNotIn("loaders=", head)
        self.assertNotIn("cells=", head)

    def test_help_says_what_is_not_read(self):
        out = numalab("run", "core_to_core", "--help").stdout
        self.assertIn("not read here: 'repeat' (the timed rounds of each "
                      "pair are 'samples')", " ".join(out.split()))
        common = out[out.index("parameters every experiment takes"):]
        self.assertNotIn("\n  repeat ", common)
        self.assertIn("\n  warmup ", common)


if __name__ == "__main__":
    unittest.main(verbosity=2)
