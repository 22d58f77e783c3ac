"""test_runs.py - runs: submit, read, list, export, cancel.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_runs.py
(make test-api runs every tests/api/test_*.py).
"""

import csv
import io
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    LONG,
    SMALL,
    SharedServerTest,
    children_of,
    main,
    tsan,
)


class RunsTest(SharedServerTest):
    """POST, GET and DELETE of runs on one server."""

    done_run = True

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
                n = con.execute("SELECT coalesce(sum(last_seq - first_seq + 1), 0)"
                                " FROM event_batches WHERE run_id=?", (rid,)).fetchone()[0]
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

    @tsan
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
                                   "col_label", "unit", "sample_index", "value",
                                   "series_label", "x_axis", "value_shown",
                                   "unit_shown", "ci_lo_shown", "ci_hi_shown"])
        _, run, _ = self.srv.json("GET", "/api/runs/%d" % self.done_id)
        want = sum(len(s["samples"]) for s in run["samples"])
        want += sum(max(1, len(c.get("samples") or [])) for c in run["cells"])
        self.assertEqual(len([r for r in rows[1:] if r[1] != "median"]), want)
        # a point's median and interval beside its raw samples, in units a
        # person reads, with the chart's x axis named
        med = [r for r in rows[1:] if r[1] == "median"]
        self.assertEqual(len(med), sum(1 for s in run["samples"] if s.get("stats")
                                       and "median" in s["stats"]) +
                         sum(1 for c in run["cells"] if c.get("stats")
                             and "median" in c["stats"]))
        for r in rows[1:]:
            if r[10] == "s":
                self.assertIn(r[16], ("s", "ms", "\u00b5s", "ns"), r)
            if r[1] in ("sample", "median") and r[4]:
                self.assertTrue(r[14], r)
        raw = [float(v) for s in run["samples"] for v in s["samples"]]
        got = [float(r[12]) for r in rows[1:] if r[1] == "sample"]
        self.assertTrue(all(r[15] for r in rows[1:] if r[12]), rows[:3])
        self.assertEqual(got, raw)
        self.assertTrue(all(r[0] == str(self.done_id) for r in rows[1:]))

    def test_cancel_finished_is_conflict(self):
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % self.done_id)
        self.assertError(status, doc, 409, None, "'done'")

    @tsan
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

if __name__ == "__main__":
    main()
