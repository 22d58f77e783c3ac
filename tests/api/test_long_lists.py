#!/usr/bin/env python3
"""test_long_lists.py - the longest lists a run takes, through the server:
the run document records a list as the request wrote it (a sweep with a
step as a step, a list no step shortens value by value), an export
imports again unchanged, and the recorded params run again as the same
list; a recorded value as long as the parser takes (6,143 characters)
imports whole. One value more than a list or a chart holds, or a text
longer than a value may be, is refused by POST /api/runs and
/api/runs/check alike, naming the limit.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_long_lists.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SharedServerTest, main  # noqa: E402

# one round of one increment a point: a hundred points in well under a second
QUICK = {"threads": "1", "increments": 1, "repeat": 1, "warmup": 0,
         "budget": "0"}
MAX_LIST = 1024  # the most values a list takes
MAX_TEXT = 6143  # the longest text a value may have
MAX_SERIES = 128  # the most series a chart holds: a stride is one


def irregular_strides(n):
    """n multiples of 4, apart by 8 and 4 in turn: no run of equal steps,
    so they are recorded value by value."""
    v, x = [], 4
    while len(v) < n:
        v.append(x)
        x += (8, 4)[len(v) % 2]
    return ",".join(map(str, v))


def longest_text():
    """1,024 values of 5 digits, 1 and 2 apart in turn: 6,143 characters
    that no range shortens."""
    return ",".join(str(10000 + 3 * i // 2) for i in range(MAX_LIST))


class LongListsTest(SharedServerTest):
    def run_doc(self, params):
        run_id = self.srv.start_run(dict(QUICK, **params))
        evs = self.srv.wait_final(run_id)
        self.assertEqual(evs[-1][1], "done", evs[-1])
        status, doc, _ = self.srv.json("GET", "/api/runs/%d" % run_id)
        self.assertEqual(status, 200, doc)
        return doc

    def import_again(self, doc):
        status, resp, _ = self.srv.json("POST", "/api/runs/import", doc)
        self.assertEqual(status, 201, resp)
        status, back, _ = self.srv.json("GET", "/api/runs/%d" % resp["id"])
        self.assertEqual(status, 200, back)
        for key in ("params", "samples", "request"):
            self.assertTrue(back[key] == doc[key], "%s changed" % key)
        return back

    def refused(self, params, field, words):
        for path in ("/api/runs", "/api/runs/check"):
            status, doc, _ = self.srv.json(
                "POST", path, {"experiment": "false_sharing",
                               "params": params})
            self.assertError(status, doc, 400, field, words)

    def round_trip(self, params, recorded):
        doc = self.run_doc(params)
        self.assertEqual(doc["params"]["stride"], recorded)
        # the page and scripts run again from what was recorded
        status, check, _ = self.srv.json(
            "POST", "/api/runs/check",
            {"experiment": "false_sharing", "params": doc["params"]})
        self.assertEqual(status, 200, check)
        again = self.run_doc(doc["params"])
        self.assertEqual(again["params"], doc["params"])
        self.import_again(doc)
        return doc

    def test_the_longest_sweep_round_trips(self):
        every = list(range(4, 4 * MAX_SERIES + 1, 4))
        doc = self.round_trip({"stride": "4-512:4", "layout": "shared"},
                              "4-512:4")
        self.assertEqual(len(doc["samples"]), MAX_SERIES)
        # written out value by value, or as a JSON array: the same list
        for given in (",".join(map(str, every)), every):
            doc = self.run_doc({"stride": given, "layout": "shared"})
            self.assertEqual(doc["params"]["stride"], "4-512:4")

    def test_a_list_no_step_shortens_round_trips(self):
        text = irregular_strides(MAX_SERIES - 1)
        self.round_trip({"stride": text, "layout": "both"}, text)

    def test_the_longest_text_imports_whole(self):
        doc = self.run_doc({"stride": "4"})
        doc["params"]["cpus"] = longest_text()
        self.assertEqual(len(doc["params"]["cpus"]), MAX_TEXT)
        self.import_again(doc)
        doc["params"]["cpus"] += "0"
        status, resp, _ = self.srv.json("POST", "/api/runs/import", doc)
        self.assertError(status, resp, 400, "params.cpus")

    def test_one_stride_more_than_a_chart_holds_is_refused(self):
        self.refused({"stride": "4-%d:4" % (4 * MAX_SERIES + 4),
                      "layout": "shared"},
                     "stride", "each as a series: at most %d" % MAX_SERIES)
        self.refused({"stride": "4-4096:4"}, "stride",
                     "at most %d (layout=shared: %d)" % (MAX_SERIES - 1,
                                                         MAX_SERIES))

    def test_one_value_more_than_a_list_holds_is_refused(self):
        for cpus in ("0-%d" % MAX_LIST, list(range(MAX_LIST + 1))):
            self.refused({"cpus": cpus}, "cpus",
                         "too many values (at most %d)" % MAX_LIST)

    def test_a_text_too_long_is_refused(self):
        for stride in (",".join(["4"] + ["0"] * (MAX_TEXT // 2 + 1)),
                       [4] + [0] * (MAX_TEXT // 2 + 1)):
            self.refused({"stride": stride}, "stride",
                         "value of 'stride' is too long (at most %d "
                         "characters)" % MAX_TEXT)


if __name__ == "__main__":
    main()
