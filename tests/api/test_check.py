#!/usr/bin/env python3
"""test_check.py - POST /api/runs/check: a request's precheck notes and
estimate, judged before it runs, against a real server. Stdlib only."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402


class CheckTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-check-")
        cls.srv = Server(cls.tmp).start()

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if rc != 0:
            raise AssertionError("server exited with %s on SIGTERM" % rc)

    def check(self, experiment, params):
        return self.srv.json("POST", "/api/runs/check",
                             {"experiment": experiment, "params": params})

    def test_stride_past_the_line_cannot_share(self):
        if len(os.sched_getaffinity(0)) < 2:
            print("\nSKIP: 2 threads need 2 cpus; this process may use only "
                  "%s" % sorted(os.sched_getaffinity(0)), flush=True)
            raise unittest.SkipTest("needs 2 cpus")
        status, doc, _ = self.check("false_sharing",
                                    {"threads": "2", "stride": "128"})
        self.assertEqual(status, 200, doc)
        self.assertEqual(doc["experiment"], "false_sharing")
        self.assertTrue(any("128 B apart sit in separate" in n["text"]
                            for n in doc["notes"] if n["level"] == "cannot"),
                        doc["notes"])
        self.assertGreater(doc["estimate_s"], 0)
        self.assertIsInstance(doc["estimate_bytes"], int)
        for n in doc["notes"]:
            self.assertIn(n["level"], ("info", "warn", "cannot"))
            self.assertTrue(n["text"])

    def test_stride_in_one_line_says_nothing_against_it(self):
        status, doc, _ = self.check("false_sharing", {"threads": "1",
                                                      "stride": "4"})
        self.assertEqual(status, 200, doc)
        # one thread: that alone cannot show false sharing, said as such
        self.assertTrue(any("2 or more threads" in n["text"]
                            for n in doc["notes"] if n["level"] == "cannot"))
        self.assertFalse(any("stride" in n["text"] for n in doc["notes"]))

    def test_the_plan_is_given(self):
        # the machine's part: where threads may run and memory may go
        status, doc, _ = self.check("memory_policy", {"size": "8M"})
        self.assertEqual(status, 200, doc)
        self.assertTrue(doc["plan"], doc)
        self.assertTrue(doc["plan"][0].startswith("threads may run on node"),
                        doc["plan"])
        self.assertTrue(any(x.startswith("memory may be bound to node")
                            for x in doc["plan"]), doc["plan"])
        self.assertTrue(any(x.startswith("readers:") for x in doc["plan"]),
                        doc["plan"])

    def test_the_plan_places_threads_and_memory(self):
        # the experiment's part: its threads' cpus and where memory goes
        status, doc, _ = self.check("false_sharing", {"threads": "1"})
        self.assertEqual(status, 200, doc)
        self.assertTrue(any(x.startswith("threads=1: cpu ")
                            for x in doc["plan"]), doc["plan"])
        self.assertTrue(any(x.startswith("memory: not bound")
                            for x in doc["plan"]), doc["plan"])
        status, doc, _ = self.check("core_to_core", {})
        self.assertEqual(status, 200, doc)
        self.assertTrue(any(x.startswith(("cpus measured: ", "pairs: none"))
                            for x in doc["plan"]), doc["plan"])

    def test_nothing_is_queued(self):
        before = self.srv.json("GET", "/api/runs")[1]
        self.check("atomic_increment", {"threads": "1"})
        after = self.srv.json("GET", "/api/runs")[1]
        self.assertEqual(before, after)

    def test_bad_requests(self):
        status, doc, _ = self.check("nope", {})
        self.assertEqual(status, 400)
        self.assertEqual(doc["field"], "experiment")
        self.assertIn("unknown experiment 'nope'", doc["error"])
        status, doc, _ = self.check("false_sharing", {"stride": "6"})
        self.assertEqual(status, 400)
        self.assertEqual(doc["field"], "stride")
        status, doc, _ = self.srv.json("POST", "/api/runs/check",
                                       {"experiment": "false_sharing",
                                        "priority": 1})
        self.assertEqual(status, 400)
        self.assertEqual(doc["field"], "priority")
        status, _, _ = self.srv.request("POST", "/api/runs/check", "{}",
                                        {"Content-Type": "text/plain"})
        self.assertEqual(status, 415)


if __name__ == "__main__":
    unittest.main(verbosity=2)
