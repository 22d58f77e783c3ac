#!/usr/bin/env python3
"""test_long_lists.py - the longest lists a run takes are recorded and read
back as the same list: a sweep with a step as written (4-512:4), a list
that no step shortens whole; one value more than a list or a chart holds,
or a text longer than a value may be, is refused before the run, by
numalab run and numalab estimate alike, naming the limit in a user's
words.

Stdlib only; NUMALAB_BIN names the binary.
"""

import json
import os
import re
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 120
# one round of one increment a point: a hundred points in well under a second
QUICK = ["threads=1", "increments=1", "repeat=1", "warmup=0", "budget=0"]
MAX_LIST = 1024  # the most values a list takes
MAX_TEXT = 6143  # the longest text a value may have
MAX_SERIES = 128  # the most series a chart holds: a stride is one


def numalab(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=TIMEOUT)


def irregular_strides(n):
    """n multiples of 4, apart by 8 and 4 in turn: no run of equal steps,
    so they are recorded value by value."""
    v, x = [], 4
    while len(v) < n:
        v.append(x)
        x += (8, 4)[len(v) % 2]
    return ",".join(map(str, v))


def run_json(*params):
    p = numalab("run", "--json", "false_sharing", *params)
    if p.returncode != 0:
        raise AssertionError("rc %d: %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout)


def as_args(params):
    return ["%s=%s" % (k, v) for k, v in params.items()]


def strides_measured(doc):
    """The strides the run measured: a series a stride ("shared, stride 4 B")."""
    got = (re.search(r"stride (\d+) B", s["series"]) for s in doc["samples"])
    return sorted({int(m.group(1)) for m in got if m})


class LongLists(unittest.TestCase):
    def refused(self, words, *params):
        for cmd in ("run", "estimate"):
            p = numalab(cmd, "false_sharing", *params)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(words, p.stderr)

    def test_the_longest_sweep_is_recorded_as_written(self):
        every = list(range(4, 4 * MAX_SERIES + 1, 4))
        for written in ("4-512:4", ",".join(map(str, every))):
            with self.subTest(written=written[:20]):
                doc = run_json("stride=" + written, "layout=shared", *QUICK)
                self.assertEqual(doc["params"]["stride"], "4-512:4")
                self.assertTrue(strides_measured(doc) == every,
                                "not every stride was measured")
        # a run again from what was recorded asks for the same
        again = run_json(*as_args(doc["params"]))
        self.assertEqual(again["params"], doc["params"])

    def test_a_list_no_step_shortens_is_recorded_whole(self):
        text = irregular_strides(MAX_SERIES - 1)
        doc = run_json("stride=" + text, "layout=both", *QUICK)
        self.assertEqual(doc["params"]["stride"], text)
        self.assertTrue(strides_measured(doc) ==
                        [int(v) for v in text.split(",")],
                        "not every stride was measured")
        again = run_json(*as_args(doc["params"]))
        self.assertEqual(again["params"], doc["params"])

    def test_estimate_takes_what_a_run_takes(self):
        p = numalab("estimate", "false_sharing", "stride=4-512:4",
                    "layout=shared", *QUICK)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("false_sharing: about", p.stdout)

    def test_one_stride_more_than_a_chart_holds_is_refused(self):
        self.refused("'stride' lists 129 strides, but a chart draws each as "
                     "a series: at most %d" % MAX_SERIES,
                     "stride=4-516:4", "layout=shared")
        self.refused("'stride' lists 1024 strides, but a chart draws each as "
                     "a series beside the separate layout's: at most %d "
                     "(layout=shared: %d)" % (MAX_SERIES - 1, MAX_SERIES),
                     "stride=4-4096:4")

    def test_one_value_more_than_a_list_holds_is_refused(self):
        self.refused("'cpus': too many values (at most %d)" % MAX_LIST,
                     "cpus=0-%d" % MAX_LIST)

    def test_a_text_too_long_is_refused_naming_its_length(self):
        text = ",".join(["4"] + ["0"] * (MAX_TEXT // 2 + 1))
        self.assertGreater(len(text), MAX_TEXT)
        self.refused("value of 'stride' is too long (at most %d characters)"
                     % MAX_TEXT, "stride=" + text)


# a machine of 128 cpus, where the thread counts alone allow more summary
# values than a run records
BIG = dict(os.environ, HWLOC_SYNTHETIC="node:2 core:64 pu:1")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def define(name):
    with open(os.path.join(ROOT, "kernels", "harness", "descriptor.h")) as f:
        return int(re.search(r"#define %s (\d+)" % name, f.read()).group(1))


class SummaryRoom(unittest.TestCase):
    """A run records at most RUN_SUMMARY_MAX summary values, the harness's
    four included, which is what an import takes: lists that would make
    more are refused before the run, naming the count."""

    def estimate(self, *args):
        return subprocess.run([BIN, "estimate", *args], capture_output=True,
                              text=True, timeout=TIMEOUT, env=BIG)

    def test_the_bound_is_the_import_schemas(self):
        with open(os.path.join(ROOT, "server", "rundoc", "openapi.json")) as f:
            doc = json.load(f)
        run = doc["components"]["schemas"]["RunDocument"]
        summary = run["properties"]["summary"]
        self.assertEqual(summary["maxProperties"], define("RUN_SUMMARY_MAX"))

    def test_false_sharing_thread_counts_times_strides(self):
        # 20 x 51 + overlap_min = 1021, one past the 1020 of its own
        p = self.estimate("false_sharing", "threads=1-20", "stride=4-204:4")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("'stride' would make 1021 summary values (one for each "
                      "thread count and stride, and the least overlap), but a "
                      "run records at most 1020 of its own", p.stderr)
        p = self.estimate("false_sharing", "threads=1-20", "stride=4-200:4")
        self.assertEqual(p.returncode, 0, p.stderr)
        # the shared layout alone records no slowdown
        p = self.estimate("false_sharing", "threads=1-20", "stride=4-204:4",
                          "layout=shared")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_atomic_increment_thread_counts_times_variants(self):
        # every variant: eight times, cas over fetch_add and its retries,
        # plain's losses: 11 a thread count
        p = self.estimate("atomic_increment", "threads=1-93")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("'threads' would make 1023 summary values", p.stderr)
        p = self.estimate("atomic_increment", "threads=1-92")
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.estimate("atomic_increment", "threads=1-128",
                          "variants=fetch_add")
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    unittest.main()
