"""test_import.py - export, import and history filters, against the real binary.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_import.py  (or make test-api)
"""

import copy
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server  # noqa: E402

# budget 0: exactly repeat rounds a point, so the export's samples are known
SMALL = {"threads": "1-2", "increments": 100000, "repeat": 3, "warmup": 0,
         "budget": "0"}
# what an import may change: its id, and the mark that says where it came from
NEW_ON_IMPORT = ("id", "imported")


def without(doc, keys=NEW_ON_IMPORT):
    return {k: v for k, v in doc.items() if k not in keys}


class ImportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-import-")
        # every refused document counts against the import quota too
        cls.srv = Server(cls.tmp, args=["--import-quota", "1000"]).start()
        cls.run_id = cls.srv.start_run(SMALL)
        cls.srv.wait_final(cls.run_id)

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def export(self, run_id):
        status, doc, _ = self.srv.json("GET", "/api/runs/%d?format=json" % run_id)
        self.assertEqual(status, 200, doc)
        return doc

    def import_(self, doc):
        return self.srv.json("POST", "/api/runs/import", doc)

    def total(self):
        status, doc, _ = self.srv.json("GET", "/api/runs?limit=1")
        self.assertEqual(status, 200)
        return doc["total"]

    def test_export_carries_the_whole_run(self):
        doc = self.export(self.run_id)
        for key in ("id", "experiment", "status", "created_at", "started_at",
                    "finished_at", "params", "machine", "version", "placement",
                    "samples", "cells", "notes", "summary", "headline"):
            self.assertIn(key, doc)
        self.assertEqual(doc["status"], "done")
        self.assertTrue(doc["samples"])
        self.assertIn("hostname", doc["machine"])
        self.assertTrue(doc["headline"])
        self.assertTrue(any(len(s["samples"]) == 3 for s in doc["samples"]))
        for s in doc["samples"]:
            self.assertEqual(s["stats"]["n"], len(s["samples"]))

    def test_csv_one_row_per_sample(self):
        doc = self.export(self.run_id)
        status, hdrs, body = self.srv.request(
            "GET", "/api/runs/%d/export.csv" % self.run_id)
        self.assertEqual(status, 200)
        rows = [r for r in csv.DictReader(io.StringIO(body.decode()))
                if r["kind"] != "median"]
        want = sum(len(s["samples"]) for s in doc["samples"])
        want += sum(len(c["samples"]) or 1 for c in doc["cells"])
        self.assertEqual(len(rows), want)

    def test_round_trip_is_identical(self):
        before = self.total()
        orig = self.export(self.run_id)
        status, resp, hdrs = self.import_(orig)
        self.assertEqual(status, 201, resp)
        self.assertNotEqual(resp["id"], self.run_id)
        self.assertEqual(hdrs["location"], "/api/runs/%d" % resp["id"])
        self.assertEqual(self.total(), before + 1)
        back = self.export(resp["id"])
        self.assertEqual(without(back), without(orig))
        self.assertEqual(back["id"], resp["id"])
        self.assertEqual(back["imported"]["original_id"], self.run_id)
        self.assertEqual(back["imported"]["host"], orig["machine"]["hostname"])
        # the stream replays the imported run like any other
        evs = self.srv.wait_final(resp["id"])
        self.assertEqual(evs[-1][1], "done")
        # and again: the first origin is kept
        status, resp2, _ = self.import_(back)
        self.assertEqual(status, 201, resp2)
        again = self.export(resp2["id"])
        self.assertEqual(without(again), without(orig))
        self.assertEqual(again["imported"], back["imported"])
        # CSV of the copy is the CSV of the original but for the id column
        _, _, a = self.srv.request("GET", "/api/runs/%d/export.csv" % self.run_id)
        _, _, b = self.srv.request("GET", "/api/runs/%d/export.csv" % resp["id"])
        strip = lambda t: [r.split(",", 1)[1] for r in t.decode().splitlines()[1:]]
        self.assertEqual(strip(a), strip(b))

    def test_import_of_cli_json(self):
        out = subprocess.run(
            [BIN, "run", "--json", "false_sharing", "threads=1", "repeat=2",
             "warmup=0", "increments=10000"],
            capture_output=True, timeout=120, check=True)
        doc = json.loads(out.stdout)
        status, resp, _ = self.import_(doc)
        self.assertEqual(status, 201, resp)
        back = self.export(resp["id"])
        self.assertEqual(back["samples"], doc["samples"])
        self.assertEqual(back["params"], doc["params"])
        self.assertEqual(back["machine"], doc["machine"])
        self.assertEqual(back["imported"]["source"], "numalab run --json")

    def test_invalid_imports_change_nothing(self):
        good = self.export(self.run_id)
        cases = []

        def case(name, field, mutate):
            d = copy.deepcopy(good)
            mutate(d)
            cases.append((name, field, d))

        case("unknown experiment", "experiment",
             lambda d: d.__setitem__("experiment", "no_such"))
        case("missing experiment", "experiment", lambda d: d.pop("experiment"))
        case("missing samples", "samples", lambda d: d.pop("samples"))
        case("samples not a list", "samples", lambda d: d.__setitem__("samples", {}))
        case("sample y text", "samples[0].y",
             lambda d: d["samples"][0].__setitem__("y", "fast"))
        case("raw sample text", "samples[0].samples[0]",
             lambda d: d["samples"][0]["samples"].__setitem__(0, "x"))
        case("stats n wrong", "samples[0].stats.n",
             lambda d: d["samples"][0]["stats"].__setitem__("n", 99))
        case("unknown chart", "samples[0].chart",
             lambda d: d["samples"][0].__setitem__("chart", "nope"))
        case("unknown field", "bogus", lambda d: d.__setitem__("bogus", 1))
        case("running status", "status", lambda d: d.__setitem__("status", "running"))
        case("unknown param", "params.strid",
             lambda d: d["params"].__setitem__("strid", 3))
        case("machine missing", "machine", lambda d: d.pop("machine"))
        case("note level", "notes[0].level",
             lambda d: d.__setitem__("notes", [{"level": "loud", "text": "x"}]))
        before = self.total()
        for name, field, doc in cases:
            with self.subTest(name):
                status, resp, _ = self.import_(doc)
                self.assertEqual(status, 400, resp)
                self.assertEqual(resp.get("field"), field, resp)
                self.assertTrue(resp["error"].startswith("cannot import: "), resp)
        for body in ("", "{", "[]", "42"):
            with self.subTest(body=body):
                status, resp, _ = self.srv.json(
                    "POST", "/api/runs/import", body,
                    {"Content-Type": "application/json"})
                self.assertEqual(status, 400, resp)
        self.assertEqual(self.total(), before)

    def test_contract_is_enforced(self):
        """What the schema of /api/openapi.json forbids is refused, named,
        and not stored; each document breaks one rule."""
        good = self.export(self.run_id)
        diagonal = [{"chart": "latency", "row": i, "col": i,
                     "row_label": "cpu %d" % i, "col_label": "cpu %d" % i,
                     "value": None, "unit": "ns", "samples": [],
                     "stats": {"n": 0, "median": None, "min": None,
                               "max": None, "mean": None, "stddev": None,
                               "ci_lo": None, "ci_hi": None},
                     "note": "same cpu"} for i in range(12000)]
        cases = [
            ("created_at", "created_at", "x", "is not a date-time"),
            ("summary", "summary", None, "'summary' must be an object"),
            ("progress", "progress.done", {}, "missing field 'progress.done'"),
            ("request", "request", True, "must be an object or null"),
            ("machine", "machine", [], "must be an object or null"),
            ("id", "id", 0, "is 0 (allowed: 1 or more)"),
            ("estimate_s", "estimate_s", -1, "(allowed: 0 or more)"),
            ("finished_at", "finished_at", "2026-02-30T00:00:00Z",
             "is not a date-time"),
            ("headline", "headline", "x" * 1025, "longer than 1024"),
        ]
        before = self.total()
        for key, field, value, words in cases:
            with self.subTest(key):
                d = copy.deepcopy(good)
                d[key] = value
                status, resp, _ = self.import_(d)
                self.assertEqual(status, 400, resp)
                self.assertEqual(resp["field"], field, resp)
                self.assertIn(words, resp["error"])
        with self.subTest("instances_of_npus"):
            d = copy.deepcopy(good)
            # a machine whose hwloc finds no cache gives none to break
            d["machine"]["caches"] = [{"level": 1, "size": 32768,
                                       "instances_of_npus": -2147483649}]
            status, resp, _ = self.import_(d)
            self.assertEqual(status, 400, resp)
            self.assertEqual(resp["field"],
                             "machine.caches[0].instances_of_npus")
            self.assertIn("-2147483649 (allowed: 1 or more)", resp["error"])
        with self.subTest("12000 cells"):
            d = copy.deepcopy(good)
            d.update(experiment="core_to_core", params={}, samples=[],
                     placement=[], summary={}, cells=diagonal)
            status, resp, _ = self.import_(d)
            self.assertEqual(status, 400, resp)
            self.assertEqual(resp["field"], "cells[1024].row")
            self.assertIn("(allowed: 1023 or less)", resp["error"])
            # the widest matrix a run makes, 1,024 cpus, is stored
            d["cells"] = diagonal[:1024]
            status, resp, _ = self.import_(d)
            self.assertEqual(status, 201, resp)
        self.assertEqual(self.total(), before + 1)

    def test_a_run_agrees_with_itself(self):
        """What each field allows alone, put together into what no run
        could be: refused, named, not stored."""
        good = self.export(self.run_id)
        created, started, finished = (good["created_at"], good["started_at"],
                                      good["finished_at"])
        two = {"nodes": 2, "distances": [[10, 21], [21, 10]]}
        cases = [
            ("finished before created", "finished_at",
             {"finished_at": "2000-01-01T00:00:00Z"}, "is before 'created_at'"),
            ("started before created", "started_at",
             {"started_at": "2000-01-01T00:00:00Z"}, "is before 'created_at'"),
            ("started after finished", "finished_at",
             {"started_at": "2100-01-01T00:00:00Z", "finished_at": finished},
             "is before 'started_at'"),
            ("done with an error", "error", {"error": "segfault"},
             "a run whose status is done has no error"),
            ("ragged distances", "machine.distances[1]",
             {"machine": dict(good["machine"], **dict(two, distances=[[10, 21], [21]]))},
             "has 1 distances for 2 nodes"),
            ("rows not nodes", "machine.distances",
             {"machine": dict(good["machine"], **dict(two, nodes=3))},
             "has 2 rows for 3 nodes"),
        ]
        before = self.total()
        for name, field, change, words in cases:
            with self.subTest(name):
                d = copy.deepcopy(good)
                d.update(change)
                status, resp, _ = self.import_(d)
                self.assertEqual(status, 400, resp)
                self.assertEqual(resp["field"], field, resp)
                self.assertIn(words, resp["error"])
        self.assertEqual(self.total(), before)
        # each of those parts, agreeing: stored
        for change in ({"machine": dict(good["machine"], **two)},
                       {"status": "failed", "error": "segfault"},
                       {"started_at": created, "finished_at": started}):
            with self.subTest(change=change):
                d = copy.deepcopy(good)
                d.update(change)
                status, resp, _ = self.import_(d)
                self.assertEqual(status, 201, resp)

    def test_campaign_nodes_are_bounded(self):
        def campaign(n, cid):
            return {"id": cid, "engine": "clush", "experiment": "false_sharing",
                    "params": {}, "created_at": "2026-12-03T12:00:00Z",
                    "nodes": [{"node": "n%d" % i, "state": "pending"}
                              for i in range(n)]}
        count = lambda: len(self.srv.json("GET", "/api/campaigns")[1]["campaigns"])
        before = count()
        status, resp, _ = self.srv.json("POST", "/api/campaigns",
                                        campaign(14000, "huge"))
        self.assertEqual(status, 400, resp)
        self.assertEqual(resp["field"], "nodes")
        self.assertIn("14000 items (allowed: at most 4096)", resp["error"])
        status, resp, _ = self.srv.json("POST", "/api/campaigns",
                                        dict(campaign(1, "late"),
                                             created_at="yesterday"))
        self.assertEqual((status, resp["field"]), (400, "created_at"), resp)
        self.assertEqual(count(), before)
        status, resp, _ = self.srv.json("POST", "/api/campaigns",
                                        campaign(4096, "wide"))
        self.assertEqual(status, 201, resp)
        self.assertEqual(count(), before + 1)

    def test_large_import_is_accepted(self):
        doc = self.export(self.run_id)
        s = doc["samples"][0]
        s["samples"] = [s["y"]] * 20000
        s["stats"]["n"] = 20000
        self.assertGreater(len(json.dumps(doc)), 64 * 1024)
        status, resp, _ = self.import_(doc)
        self.assertEqual(status, 201, resp)

    def test_forged_headline_is_described_again(self):
        doc = self.export(self.run_id)
        forged = "sharing one cache line cost 2 threads 9.99x: buy a new machine"
        doc["headline"] = forged
        doc.pop("verdict_today", None)
        status, resp, _ = self.import_(doc)
        self.assertEqual(status, 201, resp)
        back = self.export(resp["id"])
        # today's rules speak from the run's numbers; the claim is kept, marked
        today = back["verdict_today"]
        self.assertNotEqual(today["headline"], forged)
        self.assertNotIn("9.99", today["headline"])
        self.assertFalse(any("9.99" in n["text"] for n in today["notes"]))
        self.assertEqual(back["headline"], today["headline"])
        self.assertEqual(back["imported"]["headline"], forged)
        self.assertEqual(back["imported"]["client"], "127.0.0.1")
        self.assertEqual(back["imported"]["verdict"]["headline"], today["headline"])
        # the history says where it came from, and not the claim
        status, lst, _ = self.srv.json("GET", "/api/runs?limit=1000")
        row = [r for r in lst["runs"] if r["id"] == resp["id"]][0]
        self.assertEqual(row["imported"]["client"], "127.0.0.1")
        self.assertEqual(row["imported"]["headline"], forged)
        self.assertNotEqual(row["headline"], forged)
        mine = [r for r in lst["runs"] if r["id"] == self.run_id][0]
        self.assertIsNone(mine["imported"])
        # a run made here is described the same way today: nothing changed
        self.assertFalse(self.export(self.run_id)["verdict_today"]["changed"])

    def test_series_and_points_are_bounded(self):
        doc = self.export(self.run_id)
        one = doc["samples"][0]
        many = copy.deepcopy(doc)
        many["samples"] = [dict(one, series="s%d" % i) for i in range(3000)]
        long_ = copy.deepcopy(doc)
        long_["samples"] = [dict(one, x=i) for i in range(5000)]
        before = self.total()
        for d, want in ((many, "more than 128 series"),
                        (long_, "more than 4096 points")):
            status, resp, _ = self.import_(d)
            self.assertEqual(status, 400, resp)
            self.assertEqual(resp["field"], "samples")
            self.assertIn(want, resp["error"])
        self.assertEqual(self.total(), before)

    def test_history_filters(self):
        doc = self.export(self.run_id)
        other = copy.deepcopy(doc)
        other["machine"]["hostname"] = "cluster-node-17"
        other["machine"]["cpu_model"] = "Imaginary Xeon 9999"
        status, resp, _ = self.import_(other)
        self.assertEqual(status, 201, resp)
        for q in ("cluster-node", "CLUSTER-NODE-17", "imaginary xeon"):
            status, lst, _ = self.srv.json("GET", "/api/runs?machine=" + q.replace(" ", "%20"))
            self.assertEqual(status, 200)
            self.assertEqual([r["id"] for r in lst["runs"]], [resp["id"]], q)
            self.assertEqual(lst["total"], 1)
            self.assertEqual(lst["runs"][0]["hostname"], "cluster-node-17")
        status, lst, _ = self.srv.json(
            "GET", "/api/runs?experiment=false_sharing&machine=%s&limit=1&offset=0"
            % doc["machine"]["hostname"])
        self.assertEqual(status, 200)
        self.assertEqual(len(lst["runs"]), 1)
        self.assertGreaterEqual(lst["total"], 1)
        status, lst, _ = self.srv.json("GET", "/api/runs?machine=no-such-machine")
        self.assertEqual((status, lst["total"], lst["runs"]), (200, 0, []))
        # newest first, paged
        status, all_, _ = self.srv.json("GET", "/api/runs?limit=1000")
        ids = [r["id"] for r in all_["runs"]]
        self.assertEqual(ids, sorted(ids, reverse=True))
        status, page, _ = self.srv.json("GET", "/api/runs?limit=1&offset=1")
        self.assertEqual([r["id"] for r in page["runs"]], ids[1:2])


if __name__ == "__main__":
    unittest.main(verbosity=2)
