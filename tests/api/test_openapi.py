"""test_openapi.py - every operation of server/openapi.json answers, for
real, with a body its document describes: a JSON-Schema validator checks
each response (success and 4xx error bodies) against the schema the
document gives for that path, method, status and content type.

OpenAPI 3.0 schemas are JSON Schema plus 'nullable'; the helper turns
'nullable: true' into a type list so a stock validator reads them.
Needs Python's jsonschema (Debian: python3-jsonschema; scripts/deps.sh
test installs it); without it the tests say SKIP, loudly.
Run: NUMALAB_BIN=build/numalab python3 tests/api/test_openapi.py  (or make test-api)
"""

import copy
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import LONG, SMALL, SharedServerTest  # noqa: E402

try:
    import jsonschema
except ImportError:  # pragma: no cover - said loudly below
    jsonschema = None

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "server", "openapi.json")


def from_openapi(s):
    """An OpenAPI 3.0 schema as plain JSON Schema: nullable -> a type list."""
    if isinstance(s, list):
        return [from_openapi(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {k: from_openapi(v) for k, v in s.items() if k != "nullable"}
    if s.get("nullable") and "type" in s:
        t = s["type"]
        out["type"] = (t if isinstance(t, list) else [t]) + ["null"]
        if "enum" in out:
            out["enum"] = out["enum"] + [None]
    return out


class OpenApiTest(SharedServerTest):
    done_run = True

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(DOC) as f:
            cls.doc = json.load(f)
        cls.components = from_openapi(cls.doc["components"])
        cls.seen = set()

    def setUp(self):
        if jsonschema is None:
            print("\nSKIP %s: Python's jsonschema is missing (Debian: "
                  "python3-jsonschema, installed by scripts/deps.sh test)" %
                  self.id(), flush=True)
            self.skipTest("no jsonschema")

    def schema_for(self, path, method, status, ctype="application/json"):
        op = self.doc["paths"][path][method]
        resp = op["responses"].get(str(status))
        self.assertIsNotNone(resp, "%s %s: status %s is not in the document"
                             % (method.upper(), path, status))
        if "$ref" in resp:
            resp = self.doc["components"]["responses"][resp["$ref"].split("/")[-1]]
        content = resp.get("content") or {}
        self.assertIn(ctype, content, "%s %s %s: no %s described" %
                      (method.upper(), path, status, ctype))
        return from_openapi(content[ctype]["schema"])

    def check(self, path, method, status, body, ctype="application/json"):
        """Validates body (parsed) against the document; records the operation."""
        schema = {"allOf": [self.schema_for(path, method, status, ctype)],
                  "components": self.components}
        try:
            jsonschema.validate(body, schema)
        except jsonschema.ValidationError as e:
            raise AssertionError("%s %s %s does not match the document: %s at %s"
                                 % (method.upper(), path, status, e.message,
                                    "/".join(str(p) for p in e.absolute_path)))
        type(self).seen.add((method, path))

    def call(self, path, method, real, body=None, headers=None, want=None):
        status, doc, hdrs = self.srv.json(method.upper(), real, body, headers)
        if want is not None:
            self.assertEqual(status, want, doc)
        self.check(path, method, status, doc)
        return status, doc

    def test_experiments_and_topology(self):
        _, exps = self.call("/api/experiments", "get", "/api/experiments", want=200)
        self.assertTrue(any(p.get("unit") is None
                            for e in exps for p in e["params"]),
                        "no parameter without a unit: nullable unit untested")
        self.call("/api/topology", "get", "/api/topology", want=200)
        status, _, data = self.srv.request("GET", "/api/openapi.json")
        self.assertEqual(status, 200)
        self.check("/api/openapi.json", "get", 200, json.loads(data))

    def test_runs_list(self):
        self.call("/api/runs", "get", "/api/runs", want=200)
        self.call("/api/runs", "get", "/api/runs?experiment=false_sharing&limit=1",
                  want=200)
        self.call("/api/runs", "get", "/api/runs?limit=abc", want=400)

    def test_run_document_and_errors(self):
        _, doc = self.call("/api/runs/{id}", "get", "/api/runs/%d" % self.done_id,
                           want=200)
        self.assertTrue(doc["samples"])
        self.call("/api/runs/{id}", "get", "/api/runs/999999", want=404)
        self.call("/api/runs/{id}", "get", "/api/runs/abc", want=400)

    def test_heatmap_cells(self):
        rid = self.srv.start_run({"samples": 5, "round_trips": 20, "repeat": 1,
                                  "warmup": 0}, experiment="core_to_core")
        self.srv.wait_final(rid)
        _, doc = self.call("/api/runs/{id}", "get", "/api/runs/%d" % rid,
                           want=200)
        self.assertTrue(doc["cells"])

    def test_start_and_bad_requests(self):
        self.call("/api/runs", "post", "/api/runs",
                  {"experiment": "false_sharing", "params": SMALL}, want=202)
        self.call("/api/runs", "post", "/api/runs",
                  {"experiment": "false_sharing", "params": {"strid": 4}},
                  want=400)
        self.call("/api/runs", "post", "/api/runs", "{}",
                  headers={"Content-Type": "text/plain"}, want=415)
        self.call("/api/runs", "post", "/api/runs",
                  {"experiment": "x" * 70000}, want=413)

    def test_cancel(self):
        rid = self.srv.start_run(LONG)
        self.call("/api/runs/{id}", "delete", "/api/runs/%d" % rid, want=200)
        self.srv.wait_final(rid)
        self.call("/api/runs/{id}", "delete", "/api/runs/%d" % rid, want=409)
        self.call("/api/runs/{id}", "delete", "/api/runs/999999", want=404)

    def test_events_and_export(self):
        status, ctype, events = self.srv.ndjson(self.done_id)
        self.assertEqual(status, 200)
        for ev in events:
            self.check("/api/runs/{id}/events", "get", 200, ev,
                       "application/x-ndjson")
        self.call("/api/runs/{id}/events", "get",
                  "/api/runs/999999/events?format=ndjson", want=404)
        status, hdrs, data = self.srv.request(
            "GET", "/api/runs/%d/export.csv" % self.done_id)
        self.assertEqual(status, 200)
        self.check("/api/runs/{id}/export.csv", "get", 200, data.decode(),
                   "text/csv")
        self.call("/api/runs/{id}/export.csv", "get",
                  "/api/runs/999999/export.csv", want=404)

    def test_import(self):
        _, doc, _ = self.srv.json("GET", "/api/runs/%d" % self.done_id)
        self.call("/api/runs/import", "post", "/api/runs/import",
                  copy.deepcopy(doc), want=201)
        self.call("/api/runs/import", "post", "/api/runs/import",
                  {"experiment": "false_sharing"}, want=400)

    def test_check(self):
        _, doc = self.call("/api/runs/check", "post", "/api/runs/check",
                           {"experiment": "false_sharing", "params": SMALL},
                           want=200)
        self.assertIn("notes", doc)
        self.call("/api/runs/check", "post", "/api/runs/check",
                  {"experiment": "false_sharing", "params": {"strid": 4}},
                  want=400)

    def test_campaigns(self):
        campaign = {"id": "openapi-test", "engine": "clush",
                    "experiment": "false_sharing", "params": {"threads": "2"},
                    "created_at": "2026-12-03T12:00:00Z",
                    "nodes": [{"node": "lab01", "state": "failed",
                               "reason": "ssh: connection refused"}]}
        self.call("/api/campaigns", "post", "/api/campaigns", campaign,
                  want=201)
        self.call("/api/campaigns", "post", "/api/campaigns",
                  {"id": "x"}, want=400)
        _, doc = self.call("/api/campaigns", "get", "/api/campaigns", want=200)
        self.call("/api/campaigns/{id}", "get", "/api/campaigns/openapi-test",
                  want=200)
        self.call("/api/campaigns/{id}", "get", "/api/campaigns/nope",
                  want=404)
        # started without --fleet: the page cannot start campaigns here
        _, err = self.call("/api/campaigns/start", "post", "/api/campaigns/start",
                           {"experiment": "false_sharing", "all": True}, want=404)
        self.assertIn("--fleet slurm", err["error"])

    def test_zz_every_operation_answered(self):
        # runs last (unittest sorts by name): each operation got a real response
        ops = {(m, p) for p, v in self.doc["paths"].items() for m in v}
        self.assertEqual(ops - type(self).seen, set())


if __name__ == "__main__":
    unittest.main(verbosity=2)
