"""test_validation.py - what POST /api/runs refuses, and why.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_validation.py
(make test-api runs every tests/api/test_*.py).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    SharedServerTest,
    main,
)


class ValidationTest(SharedServerTest):
    """Bad experiments, parameters, bodies and content types."""

    def test_unknown_experiment(self):
        status, doc, _ = self.srv.json("POST", "/api/runs", {"experiment": "nope"})
        self.assertError(status, doc, 400, "experiment", "unknown experiment 'nope'")
        self.assertIn("false_sharing", doc["error"])

    def test_missing_experiment(self):
        status, doc, _ = self.srv.json("POST", "/api/runs", {"params": {}})
        self.assertError(status, doc, 400, "experiment")
        status, doc, _ = self.srv.json("POST", "/api/runs", {"experiment": 3})
        self.assertError(status, doc, 400, "experiment")

    def test_unknown_parameter(self):
        status, doc, _ = self.srv.post_run({"strid": 4})
        self.assertError(status, doc, 400, "strid", "unknown parameter 'strid'")

    def test_wrong_type(self):
        status, doc, _ = self.srv.post_run({"increments": 1.5})
        self.assertError(status, doc, 400, "increments")
        status, doc, _ = self.srv.post_run({"increments": "many"})
        self.assertError(status, doc, 400, "increments", "'many'")
        status, doc, _ = self.srv.post_run({"layout": {"a": 1}})
        self.assertError(status, doc, 400, "layout")
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", {"experiment": "false_sharing", "params": [1]})
        self.assertError(status, doc, 400, "params")

    def test_out_of_range(self):
        status, doc, _ = self.srv.post_run({"increments": 0})
        self.assertError(status, doc, 400, "increments", "out of range")
        status, doc, _ = self.srv.post_run({"repeat": 100000})
        self.assertError(status, doc, 400, "repeat", "out of range")
        status, doc, _ = self.srv.post_run({"layout": "diagonal"})
        self.assertError(status, doc, 400, "layout", "'diagonal'")

    def test_cpu_not_allowed(self):
        _, topo, _ = self.srv.json("GET", "/api/topology")
        status, doc, _ = self.srv.post_run({"threads": "1", "cpus": "999"})
        self.assertError(status, doc, 400, "cpus", "999")
        self.assertIn(topo["allowed"], doc["error"])

    def test_unknown_field(self):
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", {"experiment": "false_sharing", "priority": 1})
        self.assertError(status, doc, 400, "priority", "unknown field 'priority'")

    def test_malformed_json(self):
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", '{"experiment": ',
            {"Content-Type": "application/json"})
        self.assertError(status, doc, 400, None, "malformed JSON")
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", '["false_sharing"]',
            {"Content-Type": "application/json"})
        self.assertError(status, doc, 400, None, "object")
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", "", {"Content-Type": "application/json"})
        self.assertError(status, doc, 400, None, "empty")

    def test_content_type(self):
        body = json.dumps({"experiment": "false_sharing"})
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", body, {"Content-Type": "text/plain"})
        self.assertError(status, doc, 415, None, "'text/plain'")
        status, doc, _ = self.srv.json("POST", "/api/runs", body)
        self.assertError(status, doc, 415, None, "Content-Type")
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", {"experiment": "nope"},
            {"Content-Type": "application/json; charset=utf-8"})
        self.assertError(status, doc, 400, "experiment")

if __name__ == "__main__":
    main()
