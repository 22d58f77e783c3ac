"""test_openapi.py - every operation of server/rundoc/openapi.json answers, for
real, with a body its document describes: a JSON-Schema validator checks
each response (success and 4xx error bodies) against the schema the
document gives for that path, method, status and content type.

OpenAPI 3.0 schemas are JSON Schema plus 'nullable'; the helper turns
'nullable: true' into a type list so a stock validator reads them, and
'date-time' is checked as RFC 3339 says. The schemas come from the served
/api/openapi.json (equal to server/rundoc/openapi.json): the document the server
enforces on imports and campaigns, so the contract tests below prove
both sides agree: a document one refuses the other refuses too.
Needs Python's jsonschema (Debian: python3-jsonschema; scripts/deps.sh
test installs it); without it the tests say SKIP, loudly.
Run: NUMALAB_BIN=build/numalab python3 tests/api/test_openapi.py  (or make test-api)
"""

import copy
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    BIN,
    LONG,
    SMALL,
    Server,
    SharedServerTest,
    TmpMixin,
)

try:
    import jsonschema
except ImportError:  # pragma: no cover - said loudly below
    jsonschema = None

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "server", "rundoc", "openapi.json")


def from_openapi(s):
    """An OpenAPI 3.0 schema as plain JSON Schema: nullable -> a type list,
    and a boolean exclusiveMinimum/Maximum -> the bound it makes exclusive."""
    if isinstance(s, list):
        return [from_openapi(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {k: from_openapi(v) for k, v in s.items() if k != "nullable"}
    for ex, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(s.get(ex), bool):
            del out[ex]
            if s[ex] and bound in s:
                out[ex] = out.pop(bound)
    if s.get("nullable") and "type" in s:
        t = s["type"]
        out["type"] = (t if isinstance(t, list) else [t]) + ["null"]
        if "enum" in out:
            out["enum"] = out["enum"] + [None]
    return out


RFC3339 = re.compile(r"^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?"
                     r"([Zz]|[+-]\d\d:\d\d)$")


def is_date_time(text):
    """RFC 3339 date-time, as JSON Schema's format means it."""
    if not isinstance(text, str):
        return True
    if not RFC3339.match(text):
        return False
    try:
        # a leap second is valid RFC 3339; datetime does not take :60
        datetime.datetime.fromisoformat(text[:10] + "T" + text[11:17] + "00")
    except ValueError:
        return False
    return int(text[11:13]) < 24 and int(text[14:16]) < 60 and int(text[17:19]) <= 60


FORMATS = None
if jsonschema is not None:
    FORMATS = jsonschema.FormatChecker()
    FORMATS.checks("date-time")(is_date_time)


def need_jsonschema(test):
    if jsonschema is None:
        print("\nSKIP %s: Python's jsonschema is missing (Debian: "
              "python3-jsonschema, installed by scripts/deps.sh test)" %
              test.id(), flush=True)
        test.skipTest("no jsonschema")


def served_document(srv):
    """GET /api/openapi.json; the file it is built from must be the same."""
    status, doc, _ = srv.json("GET", "/api/openapi.json")
    assert status == 200, status
    with open(DOC) as f:
        assert json.load(f) == doc, "served document differs from %s" % DOC
    return doc


def schema_errors(doc, name, value):
    """The paths (a.b[3].c) where value breaks components.schemas[name]."""
    schema = {"allOf": [{"$ref": "#/components/schemas/" + name}],
              "components": from_openapi(doc["components"])}
    v = jsonschema.validators.validator_for(schema)(schema, format_checker=FORMATS)
    out = []
    for e in v.iter_errors(value):
        path = ""
        for part in e.absolute_path:
            path += "[%d]" % part if isinstance(part, int) else \
                ("." if path else "") + part
        out.append((path, e.message))
    return out


def tiny(srv):
    """Tiny runs of every experiment, each well under a second: the smoke
    params each descriptor declares, as GET /api/experiments publishes them
    (so a new experiment needs no line here), but its rounds: each test
    sets those."""
    _, exps, _ = srv.json("GET", "/api/experiments")
    return {e["name"]: {k: v for k, v in e["smoke"].items()
                        if k not in ("repeat", "warmup")} for e in exps}


def fewest_rounds(srv):
    """The fewest rounds each experiment takes: repeat=1 warmup=0, but
    for a param its schema row says it never reads (unread), which the
    server would refuse."""
    _, exps, _ = srv.json("GET", "/api/experiments")
    return {e["name"]: {p["name"]: {"repeat": 1, "warmup": 0}[p["name"]]
                        for p in e["params"]
                        if p["name"] in ("repeat", "warmup")
                        and "unread" not in p} for e in exps}


class OpenApiTest(SharedServerTest):
    done_run = True

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.doc = served_document(cls.srv)
        cls.components = from_openapi(cls.doc["components"])
        cls.seen = set()

    def setUp(self):
        need_jsonschema(self)

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
            jsonschema.validate(body, schema, format_checker=FORMATS)
        except jsonschema.ValidationError as e:
            raise AssertionError("%s %s %s does not match the document: %s at %s"
                                 % (method.upper(), path, status, e.message,
                                    "/".join(str(p) for p in e.absolute_path)))
        type(self).seen.add((method, path))

    def call(self, path, method, real, body=None, headers=None, want=None,
             srv=None):
        status, doc, hdrs = (srv or self.srv).json(method.upper(), real, body,
                                                   headers)
        if want is not None:
            self.assertEqual(status, want, doc)
        self.check(path, method, status, doc)
        return status, doc, hdrs

    def raw(self, data, srv=None):
        """Sends bytes as they are; (status, parsed body) of the answer."""
        srv = srv or self.srv
        s = socket.create_connection((srv.host, srv.port), 30)
        try:
            s.sendall(data)
            out = b""
            while b"\r\n\r\n" not in out or not out.rstrip().endswith(b"}"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        finally:
            s.close()
        head, _, body = out.partition(b"\r\n\r\n")
        return int(head.split(b" ")[1]), json.loads(body)

    def test_experiments_and_topology(self):
        _, exps, _ = self.call("/api/experiments", "get", "/api/experiments",
                               want=200)
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
        _, doc, _ = self.call("/api/runs/{id}", "get",
                              "/api/runs/%d" % self.done_id, want=200)
        self.assertTrue(doc["samples"])
        self.call("/api/runs/{id}", "get", "/api/runs/999999", want=404)
        self.call("/api/runs/{id}", "get", "/api/runs/abc", want=400)

    def test_heatmap_cells(self):
        rid = self.srv.start_run({"samples": 5, "round_trips": 20,
                                  "warmup": 0}, experiment="core_to_core")
        self.srv.wait_final(rid)
        _, doc, _ = self.call("/api/runs/{id}", "get", "/api/runs/%d" % rid,
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
        _, doc, _ = self.call("/api/runs/check", "post", "/api/runs/check",
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
        self.call("/api/campaigns", "get", "/api/campaigns", want=200)
        self.call("/api/campaigns/{id}", "get", "/api/campaigns/openapi-test",
                  want=200)
        self.call("/api/campaigns/{id}", "get", "/api/campaigns/nope",
                  want=404)
        live = dict(campaign, id="openapi-live", state="running",
                    nodes=[{"node": "lab01", "state": "running"}])
        self.call("/api/campaigns", "post", "/api/campaigns", live, want=201)
        node = "/api/campaigns/{id}/nodes/{node}"
        self.call(node, "post", "/api/campaigns/openapi-live/nodes/lab01",
                  {"state": "failed", "reason": "ssh: connection refused"},
                  want=200)
        self.call(node, "post", "/api/campaigns/openapi-live/nodes/lab09",
                  {"state": "done"}, want=404)
        self.call(node, "post", "/api/campaigns/openapi-live/nodes/lab01",
                  {"state": "asleep"}, want=400)
        self.call("/api/campaigns/{id}", "delete",
                  "/api/campaigns/openapi-live", {}, want=202)
        ended = dict(campaign, id="openapi-ended", state="failed",
                     error="sinfo lists no node 'n9'", nodes=[])
        self.call("/api/campaigns", "post", "/api/campaigns", ended, want=201)
        self.call("/api/campaigns/{id}", "delete",
                  "/api/campaigns/openapi-ended", {}, want=409)
        st, _, body = self.srv.request(
            "GET", "/api/campaigns/openapi-ended/events?format=ndjson")
        self.assertEqual(st, 200)
        for line in body.decode().splitlines():
            self.check("/api/campaigns/{id}/events", "get", 200,
                       json.loads(line), "application/x-ndjson")
        self.call("/api/campaigns/{id}/events", "get",
                  "/api/campaigns/nope/events", want=404)
        # started without --fleet: the page cannot start campaigns here
        _, err, _ = self.call("/api/campaigns/start", "post",
                              "/api/campaigns/start",
                              {"experiment": "false_sharing", "all": True},
                              want=404)
        self.assertIn("--fleet slurm", err["error"])
        _, err, _ = self.call("/api/campaigns/plan", "post",
                              "/api/campaigns/plan",
                              {"experiment": "false_sharing", "all": True},
                              want=404)
        self.assertIn("--fleet slurm", err["error"])

    def test_class(self):
        _, exps, _ = self.call("/api/experiments", "get", "/api/experiments")
        lesson = [e for e in exps if e["name"] == "false_sharing"][0]["lessons"][0]
        self.call("/api/class/question", "put", "/api/class/question",
                  {"experiment": "false_sharing", "lesson": lesson["id"]}, want=200)
        self.call("/api/class/question", "put", "/api/class/question",
                  {"experiment": "nope", "lesson": "x"}, want=400)
        # no class session here (sign-in gives one): refused
        self.call("/api/class/guesses", "post", "/api/class/guesses",
                  {"value": 2}, want=403)
        self.call("/api/class/run", "post", "/api/class/run", {"run": 999999},
                  want=404)
        self.call("/api/class/reveal", "post", "/api/class/reveal", {}, want=200)
        self.call("/api/class", "get", "/api/class", want=200)
        # the room's stream never ends: its refusal is what is read here
        # (tests/api/test_class_events.py follows it)
        self.call("/api/class/events", "get", "/api/class/events?after=x", want=400)

    def test_error_answers(self):
        """Each refusal the server can give, validated against the
        document's response for that operation and status."""
        run = "/api/runs/%d" % self.done_id
        # 400: an id the path parameter's schema does not allow
        for bad in ("0", "-1", "abc", "9223372036854775808"):
            _, err, _ = self.call("/api/runs/{id}", "get", "/api/runs/" + bad,
                                  want=400)
            self.assertEqual(err["field"], "id")
        self.call("/api/runs/{id}", "get", "/api/runs/9223372036854775807",
                  want=404)
        # 400: a request whose framing cannot be read
        status, err = self.raw(b"GET /api/experiments HTTP/1.1\r\nHost: "
                               b"127.0.0.1\r\nContent-Length: 2\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n")
        self.assertEqual(status, 400)
        self.check("/api/experiments", "get", 400, err)
        # 501: a transfer coding other than chunked
        status, err = self.raw(b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1"
                               b"\r\nTransfer-Encoding: gzip\r\n\r\n")
        self.assertEqual(status, 501)
        self.check("/api/runs", "get", 501, err)
        # 403: a change from another site's page
        evil = {"Origin": "http://evil.example"}
        self.call("/api/runs", "post", "/api/runs",
                  {"experiment": "false_sharing", "params": SMALL},
                  headers=evil, want=403)
        self.call("/api/runs/{id}", "delete", run, headers=evil, want=403)
        self.call("/api/runs/import", "post", "/api/runs/import", {},
                  headers=evil, want=403)
        # 415: a change that does not say JSON, DELETE included
        status, err = self.raw(b"DELETE %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                               b"Content-Length: 0\r\n\r\n" % run.encode())
        self.assertEqual(status, 415)
        self.check("/api/runs/{id}", "delete", 415, err)
        self.call("/api/runs/import", "post", "/api/runs/import", "{}",
                  headers={"Content-Type": "text/plain"}, want=415)
        self.call("/api/campaigns", "post", "/api/campaigns", "{}",
                  headers={"Content-Type": "text/plain"}, want=415)
        # a DELETE with the body the document asks for ({}) is a cancel
        self.call("/api/runs/{id}", "delete", run, {}, want=409)
        # 421: a Host this server was not told it is
        self.call("/api/runs/{id}", "get", run,
                  headers={"Host": "evil.example"}, want=421)
        self.call("/api/openapi.json", "get", "/api/openapi.json",
                  headers={"Host": "evil.example"}, want=421)
        # 413: past the operation's body limit
        self.call("/api/campaigns", "post", "/api/campaigns",
                  {"id": "x" * (1100 * 1024)}, want=413)

    def test_query_arguments_as_documented(self):
        """Every operation takes the query arguments its entry lists (and a
        read access_token), each once; any other is a 400 naming it, so a
        misspelt ?limt= is not answered as if no limit were given."""
        for path, ops in self.doc["paths"].items():
            for method, op in ops.items():
                real = path.replace("{node}", "n1").replace(
                    "{id}", str(self.done_id) if path.startswith("/api/runs/")
                    else "nope")
                body = None if method in ("get", "delete") else {}
                with self.subTest(op="%s %s" % (method.upper(), path)):
                    _, err, _ = self.call(path, method, real + "?limt=5", body,
                                          want=400)
                    self.assertEqual(err.get("field"), "limt", err)
                    self.assertIn("unknown query argument 'limt'", err["error"])
                    # each argument it lists is its own to judge: a bad value
                    # is refused by name, never as unknown
                    names = [q["name"] for q in op.get("parameters", [])
                             if q.get("in") == "query"]
                    # (a stream with a token it does not need stays open)
                    if method == "get" and not path.endswith("/events"):
                        names.append("access_token")
                    for name in names:
                        status, _, data = self.srv.request(
                            method.upper(), "%s?%s=zz" % (real, name), body)
                        self.assertNotIn(b"unknown query argument", data,
                                         (name, status, data[:200]))
        _, err, _ = self.call("/api/runs", "get", "/api/runs?limit=1&limit=2",
                              want=400)
        self.assertEqual(err["field"], "limit")
        self.assertIn("more than once", err["error"])

    def test_session(self):
        """Signing in, who one is, and signing out, on a server with a token."""
        self.call("/api/session", "get", "/api/session", want=200)
        self.call("/api/session", "post", "/api/session", {"token": "x"}, want=409)
        other = Server(self.tmp, name="signin", db=os.path.join(self.tmp, "s.db"),
                       args=["--token", "sesame", "--class-token", "chalk"]).start()
        try:
            _, signed, hdrs = self.call("/api/session", "post", "/api/session",
                                        {"token": "chalk", "name": "Ana"}, want=200, srv=other)
            cookie = {"Cookie": hdrs["set-cookie"].split(";")[0],
                      "X-Numalab-Key": signed["key"]}
            _, doc, _ = self.call("/api/session", "get", "/api/session",
                                  headers=cookie, want=200, srv=other)
            self.assertEqual(doc["role"], "class")
            self.call("/api/runs", "post", "/api/runs",
                      {"experiment": "false_sharing", "params": SMALL},
                      headers=cookie, want=403, srv=other)
            _, doc, _ = self.call("/api/session", "patch", "/api/session", {"name": "Ada"},
                                  headers=cookie, want=200, srv=other)
            self.assertEqual(doc["name"], "Ada")
            self.call("/api/session", "patch", "/api/session", {"name": "a\x07"},
                      headers=cookie, want=400, srv=other)
            self.call("/api/session", "patch", "/api/session", {"name": "Ada"},
                      want=401, srv=other)
            self.call("/api/session", "post", "/api/session", {"token": "nope"},
                      want=401, srv=other)
            self.call("/api/session", "post", "/api/session",
                      {"token": "chalk", "name": "a\nb"}, want=400, srv=other)
            self.call("/api/session", "delete", "/api/session", headers=cookie,
                      want=200, srv=other)
        finally:
            self.assertEqual(other.stop(), 0, other.stderr())

    def test_token_and_quota_answers(self):
        """401 from a server with a token, 429 from one with a quota."""
        other = Server(self.tmp, name="guarded", db=os.path.join(self.tmp, "g.db"),
                       args=["--token", "sesame", "--import-quota", "1"]).start()
        try:
            _, _, hdrs = self.call("/api/runs/{id}", "get", "/api/runs/1",
                                   want=401, srv=other)
            self.assertIn("Bearer", hdrs["www-authenticate"])
            self.call("/api/runs", "get", "/api/runs", want=401, srv=other)
            self.call("/api/openapi.json", "get", "/api/openapi.json",
                      want=401, srv=other)
            self.call("/api/runs/import", "post", "/api/runs/import", {},
                      want=401, srv=other)
            self.call("/api/runs/{id}", "delete", "/api/runs/1", want=401,
                      srv=other)
            auth = {"Authorization": "Bearer sesame"}
            _, doc, _ = self.srv.json("GET", "/api/runs/%d" % self.done_id)
            # the token's requests are not under the anonymous quota
            for _ in range(2):
                self.call("/api/runs/import", "post", "/api/runs/import", doc,
                          headers=auth, want=201, srv=other)
        finally:
            self.assertEqual(other.stop(), 0, other.stderr())
        anon = Server(self.tmp, name="quota", db=os.path.join(self.tmp, "q.db"),
                      args=["--import-quota", "1"]).start()
        try:
            self.call("/api/runs/import", "post", "/api/runs/import", doc,
                      want=201, srv=anon)
            _, _, hdrs = self.call("/api/runs/import", "post",
                                   "/api/runs/import", doc, want=429, srv=anon)
            self.assertGreaterEqual(int(hdrs["retry-after"]), 1)
            _, _, hdrs = self.call("/api/campaigns", "post", "/api/campaigns",
                                   {"id": "q"}, want=429, srv=anon)
            self.assertGreaterEqual(int(hdrs["retry-after"]), 1)
        finally:
            self.assertEqual(anon.stop(), 0, anon.stderr())

    def test_every_operation_may_be_slowed(self):
        """Wrong tokens are counted per address whatever the operation, so
        every operation's answers include 429; one that did not (campaign
        cancel, its events, a node's report) is slowed for real here."""
        for path, ops in self.doc["paths"].items():
            for method, op in ops.items():
                self.assertIn("429", op["responses"],
                              "%s %s does not list 429" % (method.upper(), path))
        other = Server(self.tmp, name="slowed", db=os.path.join(self.tmp, "s.db"),
                       args=["--token", "sesame"]).start()
        try:
            wrong = {"Authorization": "Bearer wrong"}
            for _ in range(40):
                status, _, _ = self.call("/api/campaigns/{id}", "delete",
                                         "/api/campaigns/c1", headers=wrong,
                                         srv=other)
                if status == 429:
                    break
            self.assertEqual(status, 429)
            _, _, hdrs = self.call("/api/campaigns/{id}/events", "get",
                                   "/api/campaigns/c1/events", headers=wrong,
                                   want=429, srv=other)
            self.assertGreaterEqual(int(hdrs["retry-after"]), 1)
        finally:
            self.assertEqual(other.stop(), 0, other.stderr())

    def test_zz_every_operation_answered(self):
        # runs last (unittest sorts by name): each operation got a real response
        ops = {(m, p) for p, v in self.doc["paths"].items() for m in v}
        self.assertEqual(ops - type(self).seen, set())


class RunStatesTest(TmpMixin, unittest.TestCase):
    """A run as it is served in every state it passes through: queued,
    running, cancelled while queued, interrupted, done and imported; each
    validated against the Run schema of the document."""

    def setUp(self):
        need_jsonschema(self)
        self.make_tmp()
        self.srv = Server(self.tmp).start()
        self.doc = served_document(self.srv)

    def tearDown(self):
        if self.srv.proc:
            self.srv.kill9()
        self.drop_tmp()

    def served(self, rid, status):
        code, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(code, 200, run)
        self.assertEqual(run["status"], status, run)
        self.assertEqual(schema_errors(self.doc, "Run", run), [], status)
        code, lst, _ = self.srv.json("GET", "/api/runs?limit=1000")
        self.assertEqual(schema_errors(self.doc, "RunList", lst), [], status)
        return run

    def test_every_state_is_served_as_documented(self):
        long_ = self.srv.start_run(LONG)
        queued = self.srv.start_run(SMALL)
        dropped = self.srv.start_run(SMALL)
        self.served(queued, "queued")
        code, ans, _ = self.srv.json("DELETE", "/api/runs/%d" % dropped, {})
        self.assertEqual((code, ans["status"]), (200, "cancelled"), ans)
        # never started: no machine measured it, and it has no values
        run = self.served(dropped, "cancelled")
        self.assertIsNone(run["machine"])
        self.assertEqual(run["summary"], {})
        self.srv.wait_event(long_, "sample")
        self.served(long_, "running")
        self.srv.kill9()
        self.srv.start()
        self.assertIn("server stopped",
                      self.served(long_, "interrupted")["error"])
        self.served(queued, "interrupted")
        done = self.srv.start_run(SMALL)
        self.srv.wait_final(done)
        run = self.served(done, "done")
        code, ans, _ = self.srv.json("POST", "/api/runs/import", run)
        self.assertEqual(code, 201, ans)
        self.assertIsNotNone(self.served(ans["id"], "done")["imported"])
        # what was served can be imported, whatever its state
        code, ans, _ = self.srv.json("GET", "/api/runs/%d" % dropped)
        code, ans, _ = self.srv.json("POST", "/api/runs/import", ans)
        self.assertEqual(code, 201, ans)
        self.served(ans["id"], "cancelled")
        self.assertEqual(self.srv.stop(), 0, self.srv.stderr())


class ContractTest(TmpMixin, unittest.TestCase):
    """The server's import and campaign checks and a stock JSON-Schema
    validator reading the served document agree: real documents of every
    experiment pass both; a document breaking one rule fails both, at the
    same place."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.srv = Server(cls.tmp, args=["--import-quota", "100000"]).start()
        cls.doc = served_document(cls.srv)
        cls.base = None

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def setUp(self):
        need_jsonschema(self)

    def total(self):
        return self.srv.json("GET", "/api/runs?limit=1")[1]["total"]

    def done_document(self):
        if type(self).base is None:
            rid = self.srv.start_run(tiny(self.srv)["false_sharing"])
            self.srv.wait_final(rid)
            type(self).base = self.srv.json("GET", "/api/runs/%d" % rid)[1]
        return copy.deepcopy(type(self).base)

    def both_refuse(self, schema, route, bad, name):
        py = schema_errors(self.doc, schema, bad)
        self.assertTrue(py, "%s: the schema accepts it" % name)
        status, ans, _ = self.srv.json("POST", route, bad)
        self.assertEqual(status, 400, "%s: %s" % (name, ans))
        field = ans.get("field", "")
        # a missing or unknown field: the validator names the object
        # holding it, the server the field itself
        self.assertTrue(any(field == p or not p or field.startswith(p + ".")
                            or field.startswith(p + "[") for p, _ in py),
                        "%s: server says %r, the schema %r" % (name, ans, py))

    def test_real_documents_of_every_experiment(self):
        _, exps, _ = self.srv.json("GET", "/api/experiments")
        runs = tiny(self.srv)
        rounds = fewest_rounds(self.srv)
        self.assertEqual(set(runs), {e["name"] for e in exps})
        self.assertTrue(all(runs.values()),
                        "give each experiment a tiny run in its smoke")
        for name, params in sorted(runs.items()):
            with self.subTest(name):
                rid = self.srv.start_run(dict(params, **rounds[name]),
                                         experiment=name)
                self.assertEqual(self.srv.wait_final(rid)[-1][1], "done")
                _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
                self.assertEqual(schema_errors(self.doc, "Run", run), [])
                self.assertEqual(schema_errors(self.doc, "RunDocument", run),
                                 [])
                status, ans, _ = self.srv.json("POST", "/api/runs/import", run)
                self.assertEqual(status, 201, ans)
                _, back, _ = self.srv.json("GET", "/api/runs/%d" % ans["id"])
                self.assertEqual(schema_errors(self.doc, "Run", back), [])
                # the command line's document (with the article's figures
                # in references) is one the server takes too
                argv = [BIN, "run", "--json", name]
                argv += ["%s=%s" % kv for kv in sorted(rounds[name].items())]
                argv += ["%s=%s" % kv for kv in sorted(params.items())]
                out = subprocess.run(argv, capture_output=True, timeout=120,
                                     check=True)
                cli = json.loads(out.stdout)
                self.assertEqual(
                    schema_errors(self.doc, "RunDocument", cli), [])
                status, ans, _ = self.srv.json("POST", "/api/runs/import",
                                               cli)
                self.assertEqual(status, 201, ans)

    def test_documents_breaking_one_rule(self):
        good = self.done_document()
        self.assertEqual(schema_errors(self.doc, "RunDocument", good), [])
        cell = {"chart": "latency", "row": 0, "col": 1, "value": 1.0,
                "samples": [1.0], "stats": {"n": 1, "median": 1, "min": 1,
                                            "max": 1, "mean": 1, "stddev": 0,
                                            "ci_lo": 1, "ci_hi": 1}}

        def caches(x):
            # one of its own: hwloc finds no cache on some machines
            x["machine"]["caches"] = [{"level": 1, "size": 32768,
                                       "instances_of_npus": 1}]
            return x["machine"]["caches"][0]

        cases = [
            ("created_at not a date-time", lambda d: d.update(created_at="x")),
            ("finished_at on 30 February",
             lambda d: d.update(finished_at="2026-02-30T00:00:00Z")),
            ("summary null", lambda d: d.update(summary=None)),
            ("progress without fields", lambda d: d.update(progress={})),
            ("request true", lambda d: d.update(request=True)),
            ("id 0", lambda d: d.update(id=0)),
            ("id text", lambda d: d.update(id="7")),
            ("status unknown", lambda d: d.update(status="paused")),
            ("unknown field", lambda d: d.update(bogus=1)),
            ("no experiment", lambda d: d.pop("experiment")),
            ("no machine", lambda d: d.pop("machine")),
            ("machine a list", lambda d: d.update(machine=[])),
            ("machine field unknown",
             lambda d: d["machine"].update(bogus=1)),
            ("instances_of_npus below 1",
             lambda d: caches(d).update(instances_of_npus=-2147483649)),
            ("instances_of_npus past an int",
             lambda d: caches(d).update(instances_of_npus=2 ** 31)),
            ("pus as text", lambda d: d["machine"].update(pus="2")),
            ("65 distance rows",
             lambda d: d["machine"].update(distances=[[10]] * 65)),
            ("flag too long", lambda d: d["machine"].update(flags=["f" * 33])),
            ("stats.n not whole",
             lambda d: d["samples"][0]["stats"].update(n=1.5)),
            ("y as text", lambda d: d["samples"][0].update(y="fast")),
            ("65 extras", lambda d: d["samples"][0].update(
                extra={"k%d" % i: 1 for i in range(65)})),
            ("series too long",
             lambda d: d["samples"][0].update(series="s" * 257)),
            ("cell row past 1023",
             lambda d: d.update(cells=[dict(cell, row=1024)])),
            ("cell col -1", lambda d: d.update(cells=[dict(cell, col=-1)])),
            ("note level", lambda d: d.update(
                notes=[{"level": "loud", "text": "x"}])),
            ("1025 notes", lambda d: d.update(
                notes=[{"level": "info", "text": "x"}] * 1025)),
            ("thread cpu -2", lambda d: d["placement"][0]["threads"][0].update(
                cpu=-2)),
            ("param an object", lambda d: d["params"].update(threads={})),
            ("param too long", lambda d: d["params"].update(threads="1" * 6144)),
            ("imported.at not a date-time", lambda d: d.update(
                imported={"source": "export", "at": "yesterday"})),
            ("imported.source unknown", lambda d: d.update(
                imported={"source": "mail"})),
            ("verdict without notes",
             lambda d: d.update(verdict_today={"headline": None})),
            ("estimate_s negative", lambda d: d.update(estimate_s=-1)),
            ("reference without y", lambda d: d.update(
                references=[{"chart": "c", "series": "s", "x": 1}])),
            ("version a number", lambda d: d.update(version=7)),
        ]
        before = self.total()
        for name, mutate in cases:
            with self.subTest(name):
                bad = copy.deepcopy(good)
                mutate(bad)
                self.both_refuse("RunDocument", "/api/runs/import", bad, name)
        self.assertEqual(self.total(), before)

    def test_campaigns_breaking_one_rule(self):
        good = {"id": "agree", "engine": "slurm", "cluster": None,
                "experiment": "false_sharing", "params": {"threads": "2"},
                "created_at": "2026-12-03T12:00:00Z", "finished_at": None,
                "nodes": [{"node": "n1", "state": "failed", "reason": "drained",
                           "job_id": "12", "partition": "p", "features": ["a"],
                           "exclusive": True, "run_id": None}]}
        self.assertEqual(schema_errors(self.doc, "Campaign", good), [])
        node = lambda d: d["nodes"][0]
        cases = [
            ("4097 nodes", lambda d: d.update(nodes=d["nodes"] * 4097)),
            ("state unknown", lambda d: node(d).update(state="asleep")),
            ("id with a space", lambda d: d.update(id="a b")),
            ("created_at not a date-time", lambda d: d.update(created_at="x")),
            ("finished_at not a date-time",
             lambda d: d.update(finished_at="soon")),
            ("engine unknown", lambda d: d.update(engine="ssh")),
            ("param a number", lambda d: d["params"].update(threads=2)),
            ("run_id 0", lambda d: node(d).update(run_id=0)),
            ("unknown field", lambda d: d.update(bogus=1)),
            ("node field unknown", lambda d: node(d).update(bogus=1)),
            ("node without a name", lambda d: node(d).pop("node")),
            ("65 features", lambda d: node(d).update(features=["f"] * 65)),
        ]
        count = lambda: len(self.srv.json("GET", "/api/campaigns")[1]["campaigns"])
        before = count()
        for name, mutate in cases:
            with self.subTest(name):
                bad = copy.deepcopy(good)
                mutate(bad)
                self.both_refuse("Campaign", "/api/campaigns", bad, name)
        self.assertEqual(count(), before)
        status, ans, _ = self.srv.json("POST", "/api/campaigns", good)
        self.assertEqual(status, 201, ans)


if __name__ == "__main__":
    unittest.main(verbosity=2)
