"""test_api.py - the REST API and event streams, against the real binary.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_api.py  (or make test-api)
Every server listens on 127.0.0.1:0 with its own database in a temp dir.
No test asserts how long anything took; waits have generous ceilings.
"""

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    BIN,
    FINAL_TYPES,
    Server,
    children_of,
    sse_events,
    wait_gone,
)

# Small runs finish in well under a second; LONG runs take long enough
# per point (five rounds of 10^9 increments) to be cancelled or killed
# while they run, and still emit their first sample on the way.
SMALL = {"threads": "1-2", "increments": 100000, "repeat": 2, "warmup": 0}
# (estimated at about 505 s: under the default --max-run-seconds of 600)
LONG = {"threads": "1-2", "increments": 500000000, "repeat": 5, "warmup": 0}


def allowed(path):
    """A task's Cpus_allowed_list, or None when it has just ended."""
    try:
        with open(path) as f:
            for ln in f:
                if ln.startswith("Cpus_allowed_list:"):
                    return ln.split(":", 1)[1].strip()
    except FileNotFoundError:
        return None


def cpu_list(text):
    """'0,2-3' -> {0, 2, 3}"""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def make_web(root):
    """A web folder with one file of each kind, a subfolder, and traps."""
    web = os.path.join(root, "web")
    os.makedirs(os.path.join(web, "sub"))
    files = {
        "index.html": "<!doctype html><title>numalab test</title>",
        "app.js": "export const x = 1;\n",
        "style.css": "body { color: black }\n",
        "data.json": '{"ok": true}\n',
        "pic.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
        "sub/inner.txt": "inner\n",
        ".hidden": "secret\n",
    }
    for name, text in files.items():
        with open(os.path.join(web, name), "w") as f:
            f.write(text)
    with open(os.path.join(root, "outside.txt"), "w") as f:
        f.write("outside the web folder\n")
    os.symlink(os.path.join(root, "outside.txt"), os.path.join(web, "escape.txt"))
    os.symlink("/etc", os.path.join(web, "etc"))
    os.symlink("app.js", os.path.join(web, "alias.js"))
    return web


class TmpMixin:
    @classmethod
    def make_tmp(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-api-")
        cls.web = make_web(cls.tmp)

    @classmethod
    def drop_tmp(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


class ApiTest(TmpMixin, unittest.TestCase):
    """One server for the tests that do not stop it."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.srv = Server(cls.tmp, web=cls.web).start()
        # one finished run every test can read
        cls.done_id = cls.srv.start_run(SMALL)
        cls.done_events = cls.srv.wait_final(cls.done_id)

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s on SIGTERM\n%s" % (rc, err))

    def assertError(self, status, doc, want_status, field=None, contains=None):
        self.assertEqual(status, want_status, doc)
        self.assertIsInstance(doc, dict)
        self.assertIn("error", doc)
        msg = doc["error"]
        self.assertTrue(msg and msg[0].islower() or not msg[0].isalpha(), msg)
        self.assertFalse(msg.endswith("."), msg)
        if field is None:
            self.assertNotIn("field", doc)
        else:
            self.assertEqual(doc.get("field"), field, doc)
        if contains:
            self.assertIn(contains, msg)

    # --- schema endpoints ------------------------------------------------

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
        self.assertGreaterEqual(seen, len(doc))

    def test_topology(self):
        status, doc, _ = self.srv.json("GET", "/api/topology")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(doc["npus"], 1)
        self.assertIn("allowed", doc)
        self.assertIn("nodes", doc)

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
            "/api/runs/{id}": {"get", "delete"},
            "/api/runs/{id}/events": {"get"},
            "/api/runs/{id}/export.csv": {"get"},
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
        # every $ref points at something that exists
        text = json.dumps(doc)
        for ref in set(part.split('"')[0] for part in text.split('"$ref": "')[1:]):
            node = doc
            for key in ref.lstrip("#/").split("/"):
                node = node[key]

    # --- POST /api/runs: what is refused ---------------------------------

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

    def test_estimate_over_time_limit(self):
        # refused before it is queued: no run is recorded for it
        _, before, _ = self.srv.json("GET", "/api/runs")
        status, doc, _ = self.srv.post_run(
            {"threads": "1-2", "increments": 4000000000, "repeat": 20},
            "atomic_increment")
        self.assertError(status, doc, 400, None, "limit of 600 s")
        self.assertIn("estimated to take about", doc["error"])
        _, after, _ = self.srv.json("GET", "/api/runs")
        self.assertEqual(len(after["runs"]), len(before["runs"]))

    def test_estimate_over_free_memory(self):
        # memory_policy's own check names the node; the estimate covers the rest
        status, doc, _ = self.srv.post_run({"size": "1T"}, "memory_policy")
        self.assertError(status, doc, 400, "size", "free on node")
        for exp in ("bandwidth_scaling", "remote_bandwidth"):
            status, doc, _ = self.srv.post_run({"size": "1T"}, exp)
            self.assertEqual(status, 400, doc)
            self.assertIn("free", doc["error"], exp)

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

    def test_body_too_big(self):
        body = json.dumps({"experiment": "false_sharing",
                           "params": {"layout": "x" * (100 * 1024)}})
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", body, {"Content-Type": "application/json"})
        self.assertError(status, doc, 413, None, "too large")
        # the connection stays usable for the next request
        status, _, _ = self.srv.json("GET", "/api/experiments")
        self.assertEqual(status, 200)

    # --- routes ------------------------------------------------------------

    def test_unknown_route(self):
        for path in ("/api/nope", "/api/runs/1/nope", "/api", "/api/runs/"):
            status, doc, hdrs = self.srv.json("GET", path)
            self.assertError(status, doc, 404)
            self.assertEqual(hdrs["content-type"], "application/json")

    def test_wrong_method(self):
        status, doc, hdrs = self.srv.json("PUT", "/api/runs", {})
        self.assertError(status, doc, 405, None, "'PUT'")
        self.assertEqual(set(hdrs["allow"].split(", ")), {"GET", "HEAD", "POST"})
        status, doc, hdrs = self.srv.json("DELETE", "/api/experiments")
        self.assertError(status, doc, 405)
        self.assertIn("GET", hdrs["allow"])
        status, doc, hdrs = self.srv.json("POST", "/api/runs/1")
        self.assertError(status, doc, 405)
        self.assertEqual(set(hdrs["allow"].split(", ")), {"GET", "HEAD", "DELETE"})
        status, doc, hdrs = self.srv.json("POST", "/index.html", {})
        self.assertError(status, doc, 405)
        self.assertIn("GET", hdrs["allow"])

    def test_options(self):
        status, hdrs, body = self.srv.request("OPTIONS", "/api/runs")
        self.assertEqual(status, 204)
        self.assertIn("POST", hdrs["allow"])
        self.assertNotIn("access-control-allow-origin", hdrs)

    def test_bad_run_id(self):
        for bad in ("abc", "0", "-1", "1.5", "99999999999999999999"):
            status, doc, _ = self.srv.json("GET", "/api/runs/%s" % bad)
            self.assertError(status, doc, 400, "id")
        status, doc, _ = self.srv.json("DELETE", "/api/runs/abc")
        self.assertError(status, doc, 400, "id")
        status, doc, _ = self.srv.json("GET", "/api/runs/x/events")
        self.assertError(status, doc, 400, "id")

    def test_unknown_run(self):
        for method, path in (("GET", "/api/runs/987654"),
                             ("DELETE", "/api/runs/987654"),
                             ("GET", "/api/runs/987654/events"),
                             ("GET", "/api/runs/987654/export.csv")):
            status, doc, _ = self.srv.json(method, path)
            self.assertError(status, doc, 404, "id", "987654")

    # --- static files --------------------------------------------------------

    def test_static_files(self):
        want = {
            "/": "text/html; charset=utf-8",
            "/index.html": "text/html; charset=utf-8",
            "/app.js": "text/javascript; charset=utf-8",
            "/alias.js": "text/javascript; charset=utf-8",
            "/style.css": "text/css; charset=utf-8",
            "/data.json": "application/json",
            "/pic.svg": "image/svg+xml",
            "/sub/inner.txt": "text/plain; charset=utf-8",
        }
        for path, ctype in want.items():
            status, hdrs, body = self.srv.request("GET", path)
            self.assertEqual(status, 200, path)
            self.assertEqual(hdrs["content-type"], ctype, path)
            self.assertTrue(body, path)
        status, hdrs, body = self.srv.request("GET", "/")
        self.assertIn(b"numalab test", body)
        status, hdrs, body = self.srv.request("HEAD", "/app.js")
        self.assertEqual(status, 200)
        self.assertEqual(body, b"")

    def test_security_headers(self):
        for path in ("/", "/api/experiments", "/api/nope", "/nope.html"):
            _, hdrs, _ = self.srv.request("GET", path)
            self.assertEqual(
                hdrs["content-security-policy"],
                "default-src 'self'; img-src 'self' data: blob:; style-src 'self'",
                path)
            self.assertEqual(hdrs["x-content-type-options"], "nosniff", path)

    def test_path_traversal(self):
        refused = [
            "/../outside.txt",
            "/../../../../etc/passwd",
            "/%2e%2e/outside.txt",
            "/%2E%2E/%2e%2e/etc/passwd",
            "/sub/../../outside.txt",
            "/sub/%2e%2e/%2e%2e/outside.txt",
            "/..%2foutside.txt",
            "/sub%2finner.txt",
            "/sub%2F..%2F..%2Foutside.txt",
            "/..%5coutside.txt",
            "/.hidden",
            "/%2ehidden",
            "/app.js%00.html",
            "/sub//inner.txt",
        ]
        for path in refused:
            status, hdrs, body = self.srv.request("GET", path)
            self.assertIn(status, (400, 404), path)
            self.assertNotIn(b"outside the web folder", body, path)
            self.assertNotIn(b"root:", body, path)
            self.assertNotIn(b"secret", body, path)
            self.assertEqual(hdrs["content-type"], "application/json", path)

    def test_symlinks_out_and_directories(self):
        for path in ("/escape.txt", "/etc/passwd", "/etc/", "/sub", "/sub/",
                     "/nope.html", "/sub/nope"):
            status, _, body = self.srv.request("GET", path)
            self.assertEqual(status, 404, path)
            self.assertNotIn(b"outside the web folder", body)
            self.assertNotIn(b"root:", body)
            self.assertNotIn(b"inner.txt", body)  # no listing

    # --- runs ----------------------------------------------------------------

    def test_accepted_run(self):
        status, doc, hdrs = self.srv.post_run({"threads": [1, 2], "increments": 1000})
        self.assertEqual(status, 202, doc)
        self.assertEqual(doc["status"], "queued")
        rid = doc["id"]
        self.assertEqual(doc["url"], "/api/runs/%d" % rid)
        self.assertEqual(doc["events"], "/api/runs/%d/events" % rid)
        self.assertEqual(hdrs["location"], "/api/runs/%d" % rid)
        evs = self.srv.wait_final(rid)
        self.assertEqual(evs[-1][1], "done", evs[-1])
        status, run, _ = self.srv.json("GET", doc["url"])
        self.assertEqual(status, 200)
        # the request as sent; the params resolved, defaults filled in
        self.assertEqual(run["request"], {"experiment": "false_sharing",
                                          "params": {"threads": [1, 2],
                                                     "increments": 1000}})
        self.assertEqual(run["params"]["threads"], "1-2")
        self.assertEqual(run["params"]["increments"], 1000)
        self.assertEqual(run["params"]["layout"], "both")

    def test_run_document(self):
        status, run, _ = self.srv.json("GET", "/api/runs/%d" % self.done_id)
        self.assertEqual(status, 200)
        for key in ("id", "experiment", "status", "created_at", "started_at",
                    "finished_at", "error", "request", "params", "machine",
                    "version", "placement", "samples", "cells", "notes",
                    "summary", "headline"):
            self.assertIn(key, run)
        self.assertEqual(run["id"], self.done_id)
        self.assertEqual(run["status"], "done")
        self.assertIsNone(run["error"])
        self.assertTrue(run["samples"])
        self.assertTrue(run["placement"])
        self.assertTrue(run["machine"])
        self.assertTrue(run["headline"])
        for t in ("created_at", "started_at", "finished_at"):
            self.assertRegex(run[t], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
        self.assertLessEqual(run["created_at"], run["started_at"])
        self.assertLessEqual(run["started_at"], run["finished_at"])
        sample = run["samples"][0]
        for key in ("chart", "series", "x", "y", "unit", "samples", "stats"):
            self.assertIn(key, sample)
        self.assertNotIn("type", sample)

    def test_ended_run_document_is_served_again_unchanged(self):
        # the first answer builds it from the store, the next ones from memory
        first = self.srv.request("GET", "/api/runs/%d" % self.done_id)
        again = self.srv.request("GET", "/api/runs/%d" % self.done_id)
        self.assertEqual((first[0], again[0]), (200, 200))
        self.assertEqual(first[2], again[2])
        self.assertEqual(again[1]["content-type"], "application/json")
        self.assertEqual(json.loads(again[2])["status"], "done")

    def test_ended_run_is_in_the_database_file_itself(self):
        # the WAL is checkpointed while the server runs (after each run),
        # so the main file alone holds the run: nothing waits on the WAL
        rid = self.srv.start_run(SMALL)
        evs = self.srv.wait_final(rid)
        import sqlite3
        import time
        copy = os.path.join(self.tmp, "main-file-only.db")
        for _ in range(50):
            shutil.copyfile(self.srv.db, copy)  # without -wal and -shm
            con = sqlite3.connect(copy)
            try:
                n = con.execute("SELECT count(*) FROM events WHERE run_id=?", (rid,)).fetchone()[0]
            except sqlite3.DatabaseError:
                n = 0
            con.close()
            if n == len(evs):
                break
            time.sleep(0.1)
        self.assertEqual(n, len(evs))

    def test_list_runs(self):
        status, doc, _ = self.srv.json("GET", "/api/runs")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(doc["total"], 1)
        ids = [r["id"] for r in doc["runs"]]
        self.assertEqual(ids, sorted(ids, reverse=True))
        first = doc["runs"][0]
        for key in ("id", "experiment", "status", "created_at", "finished_at",
                    "headline", "params"):
            self.assertIn(key, first)
        status, doc1, _ = self.srv.json("GET", "/api/runs?limit=1")
        self.assertEqual(len(doc1["runs"]), 1)
        self.assertEqual(doc1["total"], doc["total"])
        status, doc2, _ = self.srv.json("GET", "/api/runs?limit=1&offset=1")
        if doc["total"] > 1:
            self.assertEqual(doc2["runs"][0]["id"], ids[1])
        status, doc3, _ = self.srv.json("GET", "/api/runs?experiment=nope")
        self.assertEqual((doc3["runs"], doc3["total"]), ([], 0))
        status, doc4, _ = self.srv.json("GET", "/api/runs?experiment=false_sharing")
        self.assertTrue(all(r["experiment"] == "false_sharing" for r in doc4["runs"]))
        for bad in ("abc", "0", "-1", "5000", ""):
            status, doc, _ = self.srv.json("GET", "/api/runs?limit=%s" % bad)
            self.assertError(status, doc, 400, "limit")
        status, doc, _ = self.srv.json("GET", "/api/runs?offset=x")
        self.assertError(status, doc, 400, "offset")

    def test_runs_execute_in_order(self):
        ids = [self.srv.start_run(SMALL) for _ in range(3)]
        for rid in ids:
            self.assertEqual(self.srv.wait_final(rid)[-1][1], "done")
        runs = [self.srv.json("GET", "/api/runs/%d" % rid)[1] for rid in ids]
        for a, b in zip(runs, runs[1:]):
            # one at a time, first come first served
            self.assertLessEqual(a["finished_at"], b["started_at"])

    def test_export_csv(self):
        status, hdrs, body = self.srv.request(
            "GET", "/api/runs/%d/export.csv" % self.done_id)
        self.assertEqual(status, 200)
        self.assertTrue(hdrs["content-type"].startswith("text/csv"))
        self.assertIn("attachment", hdrs["content-disposition"])
        rows = list(csv.reader(io.StringIO(body.decode())))
        self.assertEqual(rows[0], ["run_id", "kind", "chart", "series", "x",
                                   "x_label", "row", "col", "row_label",
                                   "col_label", "unit", "sample_index", "value"])
        _, run, _ = self.srv.json("GET", "/api/runs/%d" % self.done_id)
        want = sum(len(s["samples"]) for s in run["samples"])
        want += sum(max(1, len(c.get("samples") or [])) for c in run["cells"])
        self.assertEqual(len(rows) - 1, want)
        raw = [float(v) for s in run["samples"] for v in s["samples"]]
        got = [float(r[12]) for r in rows[1:] if r[1] == "sample"]
        self.assertEqual(got, raw)
        self.assertTrue(all(r[0] == str(self.done_id) for r in rows[1:]))

    def test_cancel_finished_is_conflict(self):
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % self.done_id)
        self.assertError(status, doc, 409, None, "'done'")

    def test_cancel_running_and_queued(self):
        a = self.srv.start_run(LONG)
        b = self.srv.start_run(LONG)
        self.srv.wait_event(a, "status")
        status, doc, _ = self.srv.json("GET", "/api/runs/%d" % b)
        self.assertEqual(doc["status"], "queued")
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % b)
        self.assertEqual((status, doc["status"]), (200, "cancelled"), doc)
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % a)
        self.assertEqual((status, doc["status"]), (200, "cancelled"), doc)
        for rid in (a, b):
            evs = self.srv.wait_final(rid)
            self.assertEqual(evs[-1][1], "cancelled")
            self.assertEqual(evs[-1][2]["status"], "cancelled")
            _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
            self.assertEqual(run["status"], "cancelled")
            self.assertTrue(run["error"])
            self.assertTrue(run["finished_at"])
            status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.assertError(status, doc, 409, None, "'cancelled'")
        self.assertEqual(children_of(self.srv.pid()), [])
        # the queue moves on
        self.assertEqual(self.srv.wait_final(self.srv.start_run(SMALL))[-1][1], "done")

    def thread_masks(self):
        """The Cpus_allowed_list of every thread of the server."""
        masks = set()
        for t in os.listdir("/proc/%d/task" % self.srv.pid()):
            m = allowed("/proc/%d/task/%s/status" % (self.srv.pid(), t))
            if m is not None:
                masks.add(m)
        return masks

    @unittest.skipIf(len(os.sched_getaffinity(0)) < 2, "needs 2 CPUs: one measured, one for the server")
    def test_server_threads_leave_the_cpus_of_the_last_point(self):
        # no cpus named: the placement's CPU of the first point is left
        rid = self.srv.start_run(dict(LONG, threads="1", layout="both", repeat=1, increments=100000000))
        try:
            evs = self.srv.wait_event(rid, "placement")
            cpu = evs[-1][2]["threads"][0]["cpu"]
            masks = self.thread_masks()
            self.assertTrue(masks, masks)
            for m in masks:
                self.assertNotIn(cpu, cpu_list(m), masks)
        finally:
            self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.srv.wait_final(rid)
        everything = allowed("/proc/%d/status" % self.srv.pid())
        self.assertEqual(self.thread_masks(), {everything})

    @unittest.skipIf(len(os.sched_getaffinity(0)) < 2, "needs 2 CPUs: one measured, one for the server")
    def test_server_threads_leave_the_measured_cpus(self):
        cpus = sorted(os.sched_getaffinity(0))
        everything = allowed("/proc/%d/status" % self.srv.pid())
        rid = self.srv.start_run(dict(LONG, threads="1", cpus=str(cpus[0])))
        self.srv.wait_event(rid, "status")
        try:
            masks = self.thread_masks()
            for m in masks:
                self.assertNotIn(cpus[0], cpu_list(m), masks)
            # the worker gets every CPU back, and pins its own threads
            (worker,) = children_of(self.srv.pid())
            self.assertEqual(allowed("/proc/%d/status" % worker), everything)
        finally:
            self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.srv.wait_final(rid)
        self.assertEqual(self.thread_masks(), {everything})

    def test_worker_killed(self):
        rid = self.srv.start_run(LONG)
        self.srv.wait_event(rid, "start")
        kids = children_of(self.srv.pid())
        self.assertEqual(len(kids), 1, kids)
        os.kill(kids[0], signal.SIGKILL)
        evs = self.srv.wait_final(rid)
        self.assertEqual(evs[-1][1], "failed")
        self.assertIn("worker killed by signal 9 (SIGKILL)", evs[-1][2]["error"])
        _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(run["status"], "failed")
        self.assertIn("SIGKILL", run["error"])

    # --- event streams -------------------------------------------------------

    def check_sequence(self, evs, first=1):
        seqs = [e[0] for e in evs]
        self.assertEqual(seqs, list(range(first, first + len(evs))))
        for seq, type_, data in evs:
            self.assertEqual(data["seq"], seq)
            self.assertEqual(data["type"], type_)

    def test_late_subscriber_gets_everything(self):
        status, evs, comments = self.srv.events(self.done_id)
        self.assertEqual(status, 200)
        self.check_sequence(evs)
        types = [e[1] for e in evs]
        self.assertEqual(types[0], "status")
        self.assertEqual(evs[0][2]["status"], "running")
        self.assertIn("start", types)
        self.assertIn("sample", types)
        self.assertEqual(types[-2:], ["end", "done"])
        final = evs[-1][2]
        self.assertEqual(final["status"], "done")
        self.assertIn("summary", final)
        self.assertIn("headline", final)
        self.assertEqual(evs, self.done_events)

    def test_resume(self):
        n = len(self.done_events)
        k = n // 2
        status, evs, _ = self.srv.events(self.done_id,
                                         headers={"Last-Event-ID": str(k)})
        self.assertEqual(status, 200)
        self.assertEqual(evs, self.done_events[k:])
        status, evs, _ = self.srv.events(self.done_id, "?after=%d" % k)
        self.assertEqual(evs, self.done_events[k:])
        # nothing left: 204 makes an EventSource stop reconnecting
        status, evs, _ = self.srv.events(self.done_id,
                                         headers={"Last-Event-ID": str(n)})
        self.assertEqual((status, evs), (204, []))
        status, doc, _ = self.srv.json("GET", "/api/runs/%d/events" % self.done_id,
                                       headers={"Last-Event-ID": "x"})
        self.assertError(status, doc, 400, "Last-Event-ID")

    def test_ndjson(self):
        status, ctype, lines = self.srv.ndjson(self.done_id)
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "application/x-ndjson")
        self.assertEqual(lines, [e[2] for e in self.done_events])
        status, ctype, lines = self.srv.ndjson(
            self.done_id, "", {"Accept": "application/x-ndjson"})
        self.assertEqual(ctype, "application/x-ndjson")
        self.assertEqual(len(lines), len(self.done_events))
        status, ctype, lines = self.srv.ndjson(self.done_id, "?format=ndjson&after=3")
        self.assertEqual(lines[0]["seq"], 4)
        status, doc, _ = self.srv.json("GET", "/api/runs/%d/events?format=xml"
                                       % self.done_id)
        self.assertError(status, doc, 400, "format")

    def test_live_stream_and_resume_mid_run(self):
        rid = self.srv.start_run(LONG)
        # a subscriber that leaves after the first sample...
        first = self.srv.wait_event(rid, "sample")
        self.check_sequence(first)
        # ...and one that stalls: connected, never reading
        stall_c, stall_r = self.srv.open_events(rid)
        # resuming continues exactly where the first left off
        status, rest, _ = self.srv.events(
            rid, headers={"Last-Event-ID": str(first[-1][0])},
            until=lambda e: e[1] == "sample")
        self.assertEqual(status, 200)
        self.check_sequence(rest, first[-1][0] + 1)
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % rid)
        self.assertEqual(doc["status"], "cancelled")
        stall_c.close()
        evs = self.srv.wait_final(rid)
        self.assertEqual(evs[: len(first)], first)
        self.check_sequence(evs)

    def test_many_subscribers(self):
        rid = self.srv.start_run(SMALL)
        results = [None] * 20

        def sub(i):
            results[i] = self.srv.events(rid)[1]

        threads = [threading.Thread(target=sub, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for evs in results:
            self.assertEqual(evs, results[0])
            self.assertIn(evs[-1][1], FINAL_TYPES)


    def test_thousand_subscribers(self):
        import resource
        import socket
        n = 1000
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < n + 100:
            if hard != resource.RLIM_INFINITY and hard < n + 100:
                self.skipTest("SKIP: this process may open only %d files" % hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (n + 100, hard))
        rid = self.srv.start_run(LONG)
        self.srv.wait_event(rid, "status")
        socks = []
        try:
            for _ in range(n):
                s = socket.create_connection((self.srv.host, self.srv.port), 120)
                s.sendall(b"GET /api/runs/%d/events HTTP/1.1\r\nHost: t\r\n\r\n" % rid)
                socks.append(s)
            # half read along; the other half never read a byte
            readers = socks[: n // 2]
            for s in readers:
                buf = b""
                while b"event: status" not in buf:
                    chunk = s.recv(65536)
                    self.assertTrue(chunk)
                    buf += chunk
            status, _, _ = self.srv.json("GET", "/api/experiments")
            self.assertEqual(status, 200)
            status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.assertEqual(doc["status"], "cancelled")
            for s in readers:
                buf = b""
                while b"event: cancelled" not in buf:
                    chunk = s.recv(65536)
                    self.assertTrue(chunk, "stream ended before the final event")
                    buf += chunk
        finally:
            for s in socks:
                s.close()
        self.assertEqual(self.srv.wait_final(self.srv.start_run(SMALL))[-1][1], "done")


class QueueTest(TmpMixin, unittest.TestCase):
    def setUp(self):
        self.make_tmp()
        self.srv = None

    def tearDown(self):
        if self.srv and self.srv.proc:
            self.assertEqual(self.srv.stop(), 0, self.srv.stderr())
        self.drop_tmp()

    def test_queue_full(self):
        self.srv = Server(self.tmp, args=["--max-queue", "1"]).start()
        a = self.srv.start_run(LONG)
        self.srv.wait_event(a, "status")
        b = self.srv.start_run(LONG)
        status, doc, hdrs = self.srv.post_run(SMALL)
        self.assertEqual(status, 429, doc)
        self.assertIn("queue is full", doc["error"])
        self.assertGreater(int(hdrs["retry-after"]), 0)
        self.srv.json("DELETE", "/api/runs/%d" % b)
        status, doc, _ = self.srv.post_run(SMALL)
        self.assertEqual(status, 202, doc)
        self.srv.json("DELETE", "/api/runs/%d" % a)
        self.assertEqual(self.srv.wait_final(doc["id"])[-1][1], "done")

    def test_time_limit(self):
        # a worker that outlives its estimate: the fake one hangs
        mode = os.path.join(self.tmp, "mode")
        with open(mode, "w") as f:
            f.write("hang")
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "fake_worker.py")
        self.srv = Server(self.tmp, args=["--max-run-seconds", "1",
                                          "--worker", fake],
                          env={"FAKE_WORKER_MODE": mode}).start()
        rid = self.srv.start_run(SMALL)
        evs = self.srv.wait_final(rid)
        self.assertEqual(evs[-1][1], "failed")
        self.assertEqual(evs[-1][2]["error"], "run exceeded its time limit of 1 s")
        self.assertEqual(children_of(self.srv.pid()), [])


class WorkerFailureTest(TmpMixin, unittest.TestCase):
    """What the runner makes of a worker that misbehaves (serve --worker)."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.mode = os.path.join(cls.tmp, "mode")
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "fake_worker.py")
        cls.srv = Server(cls.tmp, args=["--worker", fake],
                         env={"FAKE_WORKER_MODE": cls.mode}).start()

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def run_mode(self, mode, params=None):
        with open(self.mode, "w") as f:
            f.write(mode)
        rid = self.srv.start_run(params or {"threads": "1"})
        evs = self.srv.wait_final(rid)
        _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(run["status"], evs[-1][1])
        self.assertEqual(children_of(self.srv.pid()), [])
        return evs, run

    def test_worker_gets_the_resolved_request(self):
        evs, run = self.run_mode("ok", {"threads": [1, 2], "layout": "shared"})
        self.assertEqual(run["status"], "done")
        argv = json.loads(run["notes"][0]["text"])
        self.assertEqual(argv[:3], ["run", "--ndjson", "false_sharing"])
        args = dict(a.split("=", 1) for a in argv[3:])
        self.assertEqual(args["threads"], "1-2")
        self.assertEqual(args["layout"], "shared")
        # every param, defaults included, exactly as stored
        self.assertEqual(set(args), set(run["params"]))
        for k, v in run["request"]["params"].items():
            self.assertIn(k, args)

    def test_garbage(self):
        evs, run = self.run_mode("garbage")
        self.assertEqual(run["status"], "failed")
        self.assertEqual(run["error"], "worker wrote garbage: 'hello, this is not json'")
        # what came before the garbage is kept
        self.assertEqual([e[1] for e in evs], ["status", "start", "note", "failed"])

    def test_not_an_object(self):
        evs, run = self.run_mode("array")
        self.assertIn("worker wrote garbage: '[1, 2, 3]'", run["error"])

    def test_server_event_from_worker(self):
        evs, run = self.run_mode("server_event")
        self.assertEqual(run["status"], "failed")
        self.assertIn("worker wrote garbage", run["error"])

    def test_nonzero_exit(self):
        evs, run = self.run_mode("exit3")
        self.assertEqual(run["status"], "failed")
        self.assertIn("worker exited with status 3", run["error"])
        self.assertIn("the kernel could not allocate its buffer", run["error"])
        self.assertIn("first complaint", run["error"])

    def test_killed_by_signal(self):
        evs, run = self.run_mode("segv")
        self.assertIn("worker killed by signal 11 (SIGSEGV)", run["error"])
        self.assertIn("about to crash", run["error"])

    def test_no_end(self):
        evs, run = self.run_mode("noend")
        self.assertEqual(run["status"], "failed")
        self.assertIn("without reporting its end", run["error"])

    def test_last_line_without_newline(self):
        evs, run = self.run_mode("unterminated")
        self.assertEqual(run["status"], "done")
        self.assertEqual(evs[-1][2]["summary"], {"k": {"value": 2.5, "unit": "x"}})
        self.assertEqual(evs[-1][2]["headline"], "a fake outcome")
        self.assertEqual(run["headline"], "a fake outcome")

    def test_cancel_a_worker_that_ignores_sigterm(self):
        with open(self.mode, "w") as f:
            f.write("ignore_term")
        rid = self.srv.start_run({"threads": "1"})
        self.srv.wait_event(rid, "progress")
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % rid)
        self.assertEqual((status, doc["status"]), (200, "cancelled"))
        self.assertEqual(self.srv.wait_final(rid)[-1][1], "cancelled")
        self.assertEqual(children_of(self.srv.pid()), [])


    def test_cancel_a_worker_that_closed_its_pipes(self):
        with open(self.mode, "w") as f:
            f.write("detach")
        rid = self.srv.start_run({"threads": "1"})
        self.srv.wait_event(rid, "progress")
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % rid)
        self.assertEqual((status, doc["status"]), (200, "cancelled"))
        self.assertEqual(children_of(self.srv.pid()), [])

    def test_grandchild_holding_stdout(self):
        evs, run = self.run_mode("grandchild")
        self.assertEqual(run["status"], "done")


class LifecycleTest(TmpMixin, unittest.TestCase):
    """Stopping and restarting the server, gently and not."""

    def setUp(self):
        self.make_tmp()
        self.srv = Server(self.tmp, web=self.web)

    def tearDown(self):
        if self.srv.proc:
            self.srv.stop(signal.SIGKILL)
        self.drop_tmp()

    def test_restart_keeps_runs(self):
        self.srv.start()
        rid = self.srv.start_run(SMALL)
        evs = self.srv.wait_final(rid)
        _, before, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        _, listed, _ = self.srv.json("GET", "/api/runs")
        self.assertEqual(self.srv.stop(), 0, self.srv.stderr())
        self.srv.start()
        _, after, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(after, before)
        _, listed2, _ = self.srv.json("GET", "/api/runs")
        self.assertEqual(listed2, listed)
        self.assertEqual(self.srv.events(rid)[1], evs)
        # ids keep counting
        self.assertGreater(self.srv.start_run(SMALL), rid)

    def test_sigterm_mid_run(self):
        self.srv.start()
        a = self.srv.start_run(LONG)
        b = self.srv.start_run(LONG)
        self.srv.wait_event(a, "start")
        worker = children_of(self.srv.pid())
        got, ready = {}, {a: threading.Event(), b: threading.Event()}

        def follow(rid):
            c, r = self.srv.open_events(rid)
            ready[rid].set()
            got[rid] = list(sse_events(r))
            c.close()

        followers = [threading.Thread(target=follow, args=(r,)) for r in (a, b)]
        for t in followers:
            t.start()
        for e in ready.values():
            self.assertTrue(e.wait(120))
        self.assertEqual(self.srv.stop(signal.SIGTERM), 0, self.srv.stderr())
        for t in followers:
            t.join()
        self.assertEqual(got[a][-1][1], "cancelled")
        self.assertIn("server stopped", got[a][-1][2]["error"])
        self.assertEqual(got[b][-1][1], "cancelled")
        for pid in worker:
            self.assertTrue(wait_gone(pid), "worker %d outlived the server" % pid)
        self.srv.start()
        for rid in (a, b):
            _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
            self.assertEqual(run["status"], "cancelled")
            self.assertTrue(run["finished_at"])

    def test_kill9_mid_run(self):
        self.srv.start()
        rid = self.srv.start_run(LONG)
        queued = self.srv.start_run(SMALL)
        before = self.srv.wait_event(rid, "sample")
        workers = children_of(self.srv.pid())
        self.assertEqual(len(workers), 1, workers)
        self.srv.kill9()
        # the worker dies with the server (PR_SET_PDEATHSIG)
        self.assertTrue(wait_gone(workers[0]), "orphaned worker %d" % workers[0])
        # the database survived the kill, before the restart touches it
        import sqlite3
        db = sqlite3.connect(self.srv.db)
        try:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(),
                             [("ok",)])
        finally:
            db.close()
        self.srv.start()
        self.assertIn("interrupted", self.srv.stderr())
        _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(run["status"], "interrupted")
        self.assertIn("server stopped", run["error"])
        self.assertTrue(run["finished_at"])
        # the samples that had arrived are kept
        kept = [e[2] for e in before if e[1] == "sample"]
        self.assertTrue(kept)
        self.assertGreaterEqual(len(run["samples"]), len(kept))
        for want, got in zip(kept, run["samples"]):
            self.assertEqual(got["samples"], want["samples"])
        # its stream replays them and ends with the interrupted event
        evs = self.srv.wait_final(rid)
        self.assertEqual(evs[: len(before)], before)
        self.assertEqual(evs[-1][1], "interrupted")
        self.assertEqual([e[0] for e in evs], list(range(1, len(evs) + 1)))
        _, q, _ = self.srv.json("GET", "/api/runs/%d" % queued)
        self.assertEqual(q["status"], "interrupted")
        # and the server runs new work
        self.assertEqual(self.srv.wait_final(self.srv.start_run(SMALL))[-1][1], "done")
        self.assertEqual(self.srv.stop(), 0, self.srv.stderr())

    def test_read_only_database(self):
        self.srv.start()
        rid = self.srv.start_run(SMALL)
        self.srv.wait_final(rid)
        self.assertEqual(self.srv.stop(), 0)
        ro = Server(self.tmp, db="file:%s?mode=ro" % self.srv.db, name="ro").start()
        try:
            status, doc, _ = ro.json("GET", "/api/runs")
            self.assertEqual((status, doc["total"]), (200, 1))
            status, run, _ = ro.json("GET", "/api/runs/%d" % rid)
            self.assertEqual((status, run["status"]), (200, "done"))
            status, doc, _ = ro.post_run(SMALL)
            self.assertEqual(status, 503, doc)
            self.assertIn("readonly", doc["error"])
            status, doc, _ = ro.json("GET", "/api/runs")
            self.assertEqual(doc["total"], 1)
        finally:
            self.assertEqual(ro.stop(), 0, ro.stderr())


    def test_full_disk(self):
        if os.geteuid() != 0:
            self.skipTest("SKIP: mounting a small tmpfs needs root")
        mnt = os.path.join(self.tmp, "small")
        os.mkdir(mnt)
        if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs",
                            mnt], stderr=subprocess.DEVNULL):
            self.skipTest("SKIP: this machine does not let us mount a tmpfs")
        try:
            full = Server(self.tmp, db=os.path.join(mnt, "x.db"),
                          name="full").start()
            try:
                done = full.start_run(SMALL)
                full.wait_final(done)
                # many points after the disk fills: more than the WAL's
                # room (it is reused once checkpointed), so a write needs space
                rid = full.start_run({"threads": "1-2", "layout": "both", "stride": "4-160:4",
                                      "increments": 50000000, "repeat": 2, "warmup": 0})
                full.wait_event(rid, "start")
                # unbuffered: the ENOSPC comes from write(), not from close()
                with open(os.path.join(mnt, "filler"), "wb", buffering=0) as f:
                    try:
                        while True:
                            f.write(b"\0" * 65536)
                            f.flush()
                    except OSError:
                        pass
                evs = full.wait_final(rid)
                self.assertEqual(evs[-1][1], "failed")
                self.assertIn("database or disk is full", evs[-1][2]["error"])
                self.assertEqual(children_of(full.pid()), [])
                # reads keep working; new runs are refused with the reason
                status, run, _ = full.json("GET", "/api/runs/%d" % done)
                self.assertEqual((status, run["status"]), (200, "done"))
                status, doc, _ = full.json("GET", "/api/runs")
                self.assertEqual(status, 200)
                status, doc, _ = full.post_run(SMALL)
                self.assertEqual(status, 503, doc)
                self.assertIn("database or disk is full", doc["error"])
            finally:
                self.assertEqual(full.stop(), 0, full.stderr())
        finally:
            subprocess.call(["umount", mnt])

    def test_stalled_streams_leak_nothing(self):
        import socket
        self.srv.start()
        rid = self.srv.start_run(LONG)
        self.srv.wait_event(rid, "status")
        pid = self.srv.pid()

        def counts():
            return (len(os.listdir("/proc/%d/fd" % pid)),
                    len(os.listdir("/proc/%d/task" % pid)))

        before = counts()
        socks = []
        for _ in range(50):
            s = socket.create_connection((self.srv.host, self.srv.port), 120)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(b"GET /api/runs/%d/events HTTP/1.1\r\nHost: t\r\n\r\n" % rid)
            socks.append(s)
        # every one of them is being served before they go: none reads a byte
        status, _, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(status, 200)
        self.assertGreater(counts()[0], before[0])
        for s in socks:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
            s.close()  # a reset, as a client that vanished sends
        self.assertTrue(wait_until(lambda: all(
                            n <= b for n, b in zip(counts(), before))),
                        "after 50 stalled clients left: fds, threads %s, "
                        "before %s" % (counts(), before))
        self.srv.json("DELETE", "/api/runs/%d" % rid)
        self.assertEqual(self.srv.wait_final(self.srv.start_run(SMALL))[-1][1], "done")
        self.assertEqual(self.srv.stop(), 0, self.srv.stderr())


def wait_until(cond, ceiling=60):
    """Polls cond until it holds; False if it never did within the ceiling."""
    import time
    deadline = time.monotonic() + ceiling
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


class AccessTest(TmpMixin, unittest.TestCase):
    TOKEN = "s3cret-token-for-tests"

    def setUp(self):
        self.make_tmp()
        self.token_file = os.path.join(self.tmp, "token")
        with open(self.token_file, "w") as f:
            f.write(self.TOKEN + "\n")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            if s.proc:
                self.assertEqual(s.stop(), 0, s.stderr())
        self.drop_tmp()

    def server(self, *args, listen="127.0.0.1:0"):
        s = Server(self.tmp, web=self.web, args=list(args),
                   name="s%d" % len(self.servers))
        self.servers.append(s)
        return s.start(listen)

    def auth(self, token=None):
        return {"Authorization": "Bearer %s" % (token or self.TOKEN)}

    def test_token(self):
        s = self.server("--token-file", self.token_file)
        status, doc, hdrs = s.post_run(SMALL)
        self.assertEqual(status, 401, doc)
        self.assertIn("bearer", hdrs["www-authenticate"].lower())
        status, doc, _ = s.post_run(SMALL, headers=self.auth("wrong"))
        self.assertEqual(status, 401)
        status, doc, _ = s.post_run(SMALL, headers=self.auth(self.TOKEN + "x"))
        self.assertEqual(status, 401)
        status, doc, _ = s.json("GET", "/api/runs")
        self.assertEqual(status, 401)
        status, doc, _ = s.post_run(SMALL, headers=self.auth())
        self.assertEqual(status, 202, doc)
        rid = doc["id"]
        status, _, _ = s.json("GET", "/api/runs/%d" % rid, headers=self.auth())
        self.assertEqual(status, 200)
        # EventSource cannot send headers: reads may carry the token in the URL
        status, evs, _ = s.events(rid, "?access_token=%s" % self.TOKEN)
        self.assertEqual(status, 200)
        self.assertIn(evs[-1][1], FINAL_TYPES)
        status, doc, _ = s.json("DELETE", "/api/runs/%d?access_token=%s"
                                % (rid, self.TOKEN))
        self.assertEqual(status, 401)
        # the page itself is not a secret
        status, _, _ = s.request("GET", "/")
        self.assertEqual(status, 200)

    def test_public_read(self):
        s = self.server("--token", self.TOKEN, "--public-read")
        status, doc, _ = s.json("GET", "/api/runs")
        self.assertEqual(status, 200)
        status, doc, _ = s.json("GET", "/api/experiments")
        self.assertEqual(status, 200)
        status, doc, _ = s.post_run(SMALL)
        self.assertEqual(status, 401)
        status, doc, _ = s.json("DELETE", "/api/runs/1")
        self.assertEqual(status, 401)

    def test_non_loopback_needs_token(self):
        db = os.path.join(self.tmp, "open.db")
        p = subprocess.run([BIN, "serve", "--listen", "0.0.0.0:0", "--db", db],
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"token", p.stderr)
        self.assertEqual(p.stdout, b"")
        s = self.server("--token-file", self.token_file, listen="0.0.0.0:0")
        self.assertEqual(s.host, "0.0.0.0")
        s.host = "127.0.0.1"
        status, _, _ = s.json("GET", "/api/experiments", headers=self.auth())
        self.assertEqual(status, 200)

    def test_bad_options(self):
        db = os.path.join(self.tmp, "o.db")
        for args in (["--listen", "nonsense"], ["--max-queue", "0"],
                     ["--bogus"], ["--token", ""],
                     ["--token-file", os.path.join(self.tmp, "missing")]):
            p = subprocess.run([BIN, "serve", "--db", db] + args,
                               capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 2, args)
            self.assertTrue(p.stderr, args)

    def test_cors(self):
        s = self.server("--cors", "http://lab.example")
        _, hdrs, _ = s.request("GET", "/api/experiments",
                               headers={"Origin": "http://lab.example"})
        self.assertEqual(hdrs["access-control-allow-origin"], "http://lab.example")
        _, hdrs, _ = s.request("GET", "/api/experiments",
                               headers={"Origin": "http://evil.example"})
        self.assertNotIn("access-control-allow-origin", hdrs)
        status, hdrs, _ = s.request(
            "OPTIONS", "/api/runs",
            headers={"Origin": "http://lab.example",
                     "Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "content-type"})
        self.assertEqual(status, 204)
        self.assertEqual(hdrs["access-control-allow-origin"], "http://lab.example")
        self.assertIn("POST", hdrs["access-control-allow-methods"])
        self.assertIn("Content-Type", hdrs["access-control-allow-headers"])
        plain = self.server()
        _, hdrs, _ = plain.request("GET", "/api/experiments",
                                   headers={"Origin": "http://lab.example"})
        self.assertNotIn("access-control-allow-origin", hdrs)


if __name__ == "__main__":
    if not os.access(BIN, os.X_OK):
        print("SKIP: no numalab binary at '%s' (set NUMALAB_BIN)" % BIN)
        sys.exit(77)
    unittest.main(verbosity=2)
