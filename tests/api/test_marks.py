"""test_marks.py - a verdict's marks (the summary values it disowns or states
as a lower bound) kept, served, imported and checked like the rest of a run.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_marks.py  (or make test-api)
"""

import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, SharedServerTest, TmpMixin, main  # noqa: E402

WHY = "the 2 threads ran at the same time for only 10% of a round"
MARKS = [
    {"key": "slowdown_2_threads*", "mark": "disowned", "why": WHY},
    {"key": "slowdown_1_threads", "mark": "at_least",
     "why": "they ran together 80% of the time"},
]


class ImportedMarksTest(SharedServerTest):
    done_run = True

    def export(self, run_id):
        status, doc, _ = self.srv.json("GET", "/api/runs/%d?format=json" % run_id)
        self.assertEqual(status, 200, doc)
        return doc

    def with_marks(self, marks=MARKS):
        doc = self.export(self.done_id)
        doc["marks"] = copy.deepcopy(marks)
        doc.pop("verdict_today", None)
        return doc

    def test_a_run_serves_its_marks_and_todays(self):
        doc = self.export(self.done_id)
        # a run made here: its marks are the ones its verdict sent
        self.assertIsInstance(doc["marks"], list)
        today = doc["verdict_today"]
        self.assertIsInstance(today["marks"], list)
        for m in today["marks"] + doc["marks"]:
            self.assertEqual(set(m), {"key", "mark", "why"})
            self.assertIn(m["mark"], ("disowned", "at_least"))
        # a mark event for each of the run's marks, before the headline
        types = [e[1] for e in self.done_events]
        self.assertEqual(types.count("mark"), len(doc["marks"]))
        if doc["marks"]:
            self.assertLess(types.index("mark"), types.index("headline"))

    def test_imported_marks_come_back(self):
        status, resp, _ = self.srv.json("POST", "/api/runs/import", self.with_marks())
        self.assertEqual(status, 201, resp)
        back = self.export(resp["id"])
        self.assertEqual(back["marks"], MARKS)
        # stored as events: the stream holds one mark event for each, before
        # the headline
        _, evs, _ = self.srv.events(resp["id"])
        marks = [e for e in evs if e[1] == "mark"]
        self.assertEqual([{k: e[2][k] for k in ("key", "mark", "why")} for e in marks], MARKS)
        types = [e[1] for e in evs]
        self.assertLess(types.index("mark"), types.index("headline"))
        # today's verdict carries its own marks, and so does where it came from
        self.assertIsInstance(back["verdict_today"]["marks"], list)
        self.assertEqual(back["imported"]["verdict"]["marks"], back["verdict_today"]["marks"])
        # and travels on: exported and imported again, the marks stay
        again = copy.deepcopy(back)
        again.pop("verdict_today")
        status, resp2, _ = self.srv.json("POST", "/api/runs/import", again)
        self.assertEqual(status, 201, resp2)
        self.assertEqual(self.export(resp2["id"])["marks"], MARKS)

    def test_a_document_without_marks_is_read_as_having_none(self):
        doc = self.export(self.done_id)
        doc.pop("marks")
        doc.pop("verdict_today")
        status, resp, _ = self.srv.json("POST", "/api/runs/import", doc)
        self.assertEqual(status, 201, resp)
        self.assertEqual(self.export(resp["id"])["marks"], [])

    def test_summary_intervals_travel_and_are_checked(self):
        doc = self.with_marks([])
        key = next(iter(doc["summary"]))
        v = doc["summary"][key]["value"]
        doc["summary"][key].update({"lo": v * 0.9, "hi": v * 1.1})
        status, resp, _ = self.srv.json("POST", "/api/runs/import", doc)
        self.assertEqual(status, 201, resp)
        back = self.export(resp["id"])["summary"][key]
        self.assertAlmostEqual(back["lo"], v * 0.9)
        self.assertAlmostEqual(back["hi"], v * 1.1)
        _, evs, _ = self.srv.events(resp["id"])
        said = [e[2] for e in evs if e[1] == "summary" and e[2]["key"] == key]
        self.assertEqual(len(said), 1)
        self.assertAlmostEqual(said[0]["hi"], v * 1.1)
        doc["summary"][key]["lo"] = "low"
        status, resp, _ = self.srv.json("POST", "/api/runs/import", doc)
        self.assertError(status, resp, 400, field="summary.%s.lo" % key)

    def test_marks_are_checked(self):
        _, before, _ = self.srv.json("GET", "/api/runs?limit=1")
        cases = [
            ([{"key": "k", "mark": "maybe", "why": ""}], "marks[0].mark", None),
            ([{"key": "", "mark": "disowned", "why": ""}], "marks[0].key", None),
            ([{"key": "k" * 64, "mark": "disowned", "why": ""}], "marks[0].key", "at most 63"),
            ([{"key": "k", "mark": "disowned", "why": "w" * 1025}], "marks[0].why", "1024"),
            ([{"key": "k", "mark": "disowned"}], "marks[0].why", "missing"),
            ([{"key": "k", "mark": "disowned", "why": "", "value": 2}], "marks[0].value", None),
            ([MARKS[0]] * 1025, "marks", "1025"),
            ("disowned", "marks", None),
        ]
        for marks, field, contains in cases:
            status, resp, _ = self.srv.json("POST", "/api/runs/import", self.with_marks(marks))
            self.assertError(status, resp, 400, field=field, contains=contains)
        _, after, _ = self.srv.json("GET", "/api/runs?limit=1")
        self.assertEqual(after["total"], before["total"])


class WorkerMarksTest(TmpMixin, unittest.TestCase):
    """A worker's mark event goes through the stream into the run document."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        mode = os.path.join(cls.tmp, "mode")
        with open(mode, "w") as f:
            f.write("marks")
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_worker.py")
        cls.srv = Server(cls.tmp, args=["--worker", fake],
                         env={"FAKE_WORKER_MODE": mode}).start()

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def test_mark_event_streamed_and_folded(self):
        rid = self.srv.start_run({"threads": "1-2"})
        evs = self.srv.wait_final(rid)
        marks = [e[2] for e in evs if e[1] == "mark"]
        self.assertEqual(len(marks), 1)
        self.assertEqual(marks[0]["key"], "slowdown_2_threads*")
        self.assertEqual(marks[0]["mark"], "disowned")
        self.assertIn("10%", marks[0]["why"])
        _, doc, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(doc["status"], "done")
        self.assertEqual(doc["marks"], [{"key": "slowdown_2_threads*", "mark": "disowned",
                                         "why": "the threads ran together only 10% of the time"}])
        self.assertEqual(doc["summary"]["slowdown_2_threads"]["value"], 2.17)
        # the value the verdict sent again with its interval: kept with it
        self.assertEqual(doc["summary"]["slowdown_1_threads"],
                         {"value": 1.0, "unit": "x", "lo": 0.98, "hi": 1.03})
        self.assertNotIn("lo", doc["summary"]["slowdown_2_threads"])


if __name__ == "__main__":
    main()
