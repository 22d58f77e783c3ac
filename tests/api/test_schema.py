"""test_schema.py - experiments, topology and OpenAPI endpoints.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_schema.py
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


class SchemaTest(SharedServerTest):
    """GET /api/experiments, /api/topology and /api/openapi.json."""

    def test_experiments(self):
        status, doc, hdrs = self.srv.json("GET", "/api/experiments")
        self.assertEqual(status, 200)
        self.assertEqual(hdrs["content-type"], "application/json")
        names = [e["name"] for e in doc]
        self.assertIn("false_sharing", names)
        fs = doc[names.index("false_sharing")]
        params = {p["name"]: p for p in fs["params"]}
        for name in ("threads", "increments", "layout", "stride", "cpus",
                     "placement", "repeat", "warmup"):
            self.assertIn(name, params)

    def test_lessons_are_accepted(self):
        """Every classroom lesson starts with its own params: never refused."""
        _, doc, _ = self.srv.json("GET", "/api/experiments")
        seen = 0
        for e in doc:
            self.assertIsInstance(e["lessons"], list)
            for lesson in e["lessons"]:
                for key in ("id", "title", "question", "params", "unit", "answer", "chart"):
                    self.assertIn(key, lesson)
                self.assertIn(lesson["chart"], [c["id"] for c in e["charts"]])
                status, run, _ = self.srv.post_run(lesson["params"], e["name"])
                self.assertEqual(status, 202, "%s lesson %s: %s" % (e["name"], lesson["id"], run))
                self.srv.json("DELETE", "/api/runs/%d" % run["id"])
                seen += 1
        self.assertGreaterEqual(seen, 7)

    def test_topology(self):
        status, doc, _ = self.srv.json("GET", "/api/topology")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(doc["npus"], 1)
        self.assertIn("allowed", doc)
        self.assertIn("nodes", doc)
        # the cpuset every placement honours, and where it was read
        self.assertEqual(doc["cpuset"]["cpus"], doc["allowed"])
        self.assertTrue(doc["cpuset"]["mems"] and doc["cpuset"]["mems_from"])

    def test_openapi(self):
        status, doc, _ = self.srv.json("GET", "/api/openapi.json")
        self.assertEqual(status, 200)
        self.assertTrue(doc["openapi"].startswith("3."))
        paths = doc["paths"]
        want = {
            "/api/experiments": {"get"},
            "/api/topology": {"get"},
            "/api/openapi.json": {"get"},
            "/api/runs": {"get", "post"},
            "/api/runs/import": {"post"},
            "/api/runs/check": {"post"},
            "/api/runs/{id}": {"get", "delete"},
            "/api/runs/{id}/events": {"get"},
            "/api/runs/{id}/export.csv": {"get"},
            "/api/campaigns": {"get", "post"},
            "/api/campaigns/start": {"post"},
            "/api/campaigns/{id}": {"get"},
            "/api/class": {"get"},
            "/api/class/question": {"put"},
            "/api/class/guesses": {"post"},
            "/api/class/reveal": {"post"},
            "/api/class/run": {"post"},
        }
        self.assertEqual(set(paths), set(want))
        for path, methods in want.items():
            self.assertEqual(set(paths[path]) - {"parameters"}, methods, path)
        # every documented operation is a route of the server
        for path, ops in paths.items():
            url = path.replace("{id}", "987654")
            for method in ops:
                status, body, _ = self.srv.json(method.upper(), url,
                                                {} if method == "post" else None)
                self.assertNotEqual(status, 405, (method, path, body))
                if status == 404:
                    self.assertNotIn("unknown route", body["error"], (method, path))
        # every operation names what the trust boundary can answer before
        # any handler runs: framing (400, 501), a head too big (414, 431),
        # token (401), body size
        # (413), Host (421); a change also origin (403) and Content-Type
        # (415); the routes with a quota 429
        for path, ops in paths.items():
            for method, op in ops.items():
                codes = set(op["responses"])
                want = {"400", "401", "413", "414", "421", "431", "501"}
                if method in ("post", "delete"):
                    want |= {"403", "415"}
                if path in ("/api/runs/import", "/api/campaigns") and method == "post":
                    want.add("429")
                self.assertEqual(want - codes, set(), (method, path))
        # DELETE needs Content-Type: a generated client sends it with {}
        body = paths["/api/runs/{id}"]["delete"]["requestBody"]
        self.assertTrue(body["required"])
        self.assertIn("application/json", body["content"])
        # every $ref points at something that exists
        text = json.dumps(doc)
        for ref in set(part.split('"')[0] for part in text.split('"$ref": "')[1:]):
            node = doc
            for key in ref.lstrip("#/").split("/"):
                node = node[key]

if __name__ == "__main__":
    main()
