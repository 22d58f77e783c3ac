"""test_schema.py - experiments, topology and OpenAPI endpoints.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_schema.py
(make test-api runs every tests/api/test_*.py).
"""

import http.client
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

    def test_labels(self):
        """Every experiment says its summary keys and series in words, the
        way the page and the CLI show them; a greedy "(.*)" per '*'."""
        import re
        _, doc, _ = self.srv.json("GET", "/api/experiments")
        for e in doc:
            rows = e["summary_labels"]
            self.assertTrue(rows, e["name"])
            for r in rows:
                self.assertEqual(set(r), {"key", "label", "unit"})
                self.assertTrue(r["label"] and r["unit"], r)
            self.assertIsInstance(e["series_labels"], list)
            if e["headline_chart"] is not None:
                self.assertIn(e["headline_chart"],
                              [c["id"] for c in e["charts"]])
            keys = [r["key"] for r in rows]
            self.assertIn("rounds_kept", keys)
        fs = [e for e in doc if e["name"] == "false_sharing"][0]
        key = "slowdown_2_threads_stride_64"
        for r in fs["summary_labels"]:
            m = re.fullmatch(re.escape(r["key"]).replace(r"\*", "(.*)"), key)
            if m:
                label = r["label"]
                for g in m.groups():
                    label = label.replace("%s", g, 1)
                break
        self.assertEqual(label, "slowdown with 2 threads, stride 64 B")
        self.assertEqual(r["unit"], "×")

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
            "/api/campaigns/plan": {"post"},
            "/api/campaigns/{id}": {"get", "delete"},
            "/api/campaigns/{id}/events": {"get"},
            "/api/campaigns/{id}/nodes/{node}": {"post"},
            "/api/session": {"get", "post", "delete", "patch"},
            "/api/class": {"get"},
            "/api/class/events": {"get"},
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
            url = path.replace("{id}", "987654").replace("{node}", "n1")
            for method in ops:
                if method == "parameters":
                    continue
                if url == "/api/class/events":
                    # a stream open to all that never ends: its head is
                    # enough to know the route is there
                    status, hdrs = self.stream_head(url)
                    self.assertEqual(status, 200, hdrs)
                    continue
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
                if path == "/api/session" and method != "post":
                    want.discard("401")  # open to all: no token asked
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

    def stream_head(self, path):
        """The status and headers of a stream, read without waiting for
        its end."""
        conn = http.client.HTTPConnection(self.srv.host, self.srv.port,
                                          timeout=30)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders())
        finally:
            conn.close()


if __name__ == "__main__":
    main()
