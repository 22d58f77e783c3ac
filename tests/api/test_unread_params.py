"""test_unread_params.py - POST /api/runs and /api/runs/check refuse a
param the run would not read (400 naming it, and when it is read), take
the same param where it is read, and GET /api/experiments says which is
which, so that a page sending what its schema says applies is never
refused for it.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_unread_params.py
(make test-api runs every tests/api/test_*.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    SharedServerTest,
    main,
)

# (experiment, params, the field, what the refusal says)
REFUSED = [
    ("memory_latency", {"mode": "nodes", "loaders": 2}, "loaders",
     "'loaders' is read only in mode=loaded (mode is nodes)"),
    ("memory_latency", {"mode": "sizes", "nodes": "0"}, "nodes",
     "'nodes' is read only in mode=nodes (mode is sizes)"),
    ("false_sharing", {"cpus": "0", "placement": "spread", "threads": "1"},
     "placement", "'placement' is read only while 'cpus' is empty (cpus is 0)"),
    ("core_to_core", {"repeat": 3}, "repeat",
     "'repeat' is not read by core_to_core: the timed rounds of each pair "
     "are 'samples'"),
    ("memory_policy_semantics", {"warmup": 0}, "warmup",
     "'warmup' is not read by memory_policy_semantics"),
    ("false_sharing", {"layout": "separate", "stride": "64"}, "stride",
     "'stride' is read only in layout=shared or both (layout is separate)"),
    ("remote_bandwidth", {"ops": "read", "kinds": "regular"}, "kinds",
     "'kinds' is read only when 'ops' has write (ops is read)"),
    ("variable_layout", {"parts": "layouts", "starts": 5}, "starts",
     "'starts' is read only when 'parts' has thread_start (parts is layouts)"),
    ("affinity", {"modes": "unpinned,cache_split", "cpus": "0"}, "cpus",
     "'cpus' is read only when 'modes' has one of created_pinned, "
     "pinned_after or process_mask (modes is unpinned,cache_split)"),
    ("affinity", {"modes": "unpinned", "placement": "compact"}, "placement",
     "'placement' is read only when 'modes' has one of created_pinned, "
     "pinned_after or process_mask (modes is unpinned)"),
]

# the same params where the run reads them
TAKEN = [
    ("memory_latency", {"mode": "loaded", "loaders": 1, "load": "write"}),
    ("memory_latency", {"mode": "nodes", "nodes": "0", "cells": "full"}),
    ("false_sharing", {"cpus": "0", "threads": "1"}),
    ("false_sharing", {"cpus": "", "placement": "compact", "threads": "1"}),
    ("core_to_core", {"samples": 5, "warmup": 0}),
    ("false_sharing", {"layout": "shared", "stride": "64"}),
    ("variable_layout", {"parts": "layouts,thread_start", "starts": 5}),
    ("affinity", {"modes": "pinned_after,unpinned", "cpus": "0",
                  "threads": 1}),
    ("affinity", {"modes": "process_mask", "placement": "compact"}),
]


class UnreadParamsTest(SharedServerTest):
    def post(self, route, experiment, params):
        return self.srv.json("POST", route, {"experiment": experiment,
                                             "params": params})

    def test_runs_and_check_refuse_it(self):
        _, before, _ = self.srv.json("GET", "/api/runs")
        for name, params, field, said in REFUSED:
            for route in ("/api/runs", "/api/runs/check"):
                with self.subTest(route=route, name=name, params=params):
                    status, doc, _ = self.post(route, name, params)
                    self.assertError(status, doc, 400, field, said)
        # nothing was queued
        _, after, _ = self.srv.json("GET", "/api/runs")
        self.assertEqual(after["total"], before["total"])

    def test_where_it_is_read_it_is_taken(self):
        for name, params in TAKEN:
            with self.subTest(name=name, params=params):
                status, doc, _ = self.post("/api/runs/check", name, params)
                self.assertEqual(status, 200, doc)

    def test_a_run_of_another_mode(self):
        rid = self.srv.start_run({"mode": "sizes", "size": "64K",
                                  "loads": 4096, "cpu_node": 0, "repeat": 1,
                                  "warmup": 0, "budget": "0"},
                                 experiment="memory_latency")
        evs = self.srv.wait_final(rid)
        self.assertIn(evs[-1][1], ("done", "failed"), evs[-1])
        _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
        # the worker got what the run reads, and the record keeps that
        # alone: asked for again as it is, it is taken
        self.assertEqual(run["params"]["mode"], "sizes")
        self.assertEqual(run["params"]["loads"], 4096)
        self.assertNotIn("loaders", run["params"])
        self.assertNotIn("nodes", run["params"])
        status, doc, _ = self.post("/api/runs/check", "memory_latency",
                                   run["params"])
        self.assertEqual(status, 200, doc)

    def test_the_schema_says_when_each_is_read(self):
        _, exps, _ = self.srv.json("GET", "/api/experiments")
        rows = {e["name"]: {p["name"]: p for p in e["params"]} for e in exps}
        c2c = rows["core_to_core"]
        self.assertIn("samples", c2c["repeat"]["unread"])
        self.assertIn("unread", c2c["budget"])
        self.assertNotIn("unread", c2c["warmup"])
        self.assertIn("unread", rows["memory_policy_semantics"]["warmup"])
        self.assertNotIn("unread", rows["false_sharing"]["repeat"])
        # a placement param one experiment reads in some of its modes
        aff = rows["affinity"]
        self.assertEqual(aff["cpus"]["only_here"]["param"], "modes")
        self.assertIn("process_mask", aff["placement"]["only_here"]["values"])
        self.assertNotIn("unpinned", aff["cpus"]["only_here"]["values"])
        self.assertNotIn("only_here", rows["false_sharing"]["cpus"])
        self.assertEqual(rows["false_sharing"]["placement"]["only"],
                         {"param": "cpus", "values": [""]})
        self.assertEqual(rows["false_sharing"]["stride"]["only"],
                         {"param": "layout", "values": ["shared", "both"]})
        self.assertEqual(rows["memory_latency"]["loaders"]["only"],
                         {"param": "mode", "values": ["loaded"]})
        self.assertEqual(rows["remote_bandwidth"]["kinds"]["only"],
                         {"param": "ops", "values": ["write"]})

    def test_what_a_page_sends_is_never_refused_for_it(self):
        """Every default the schema says a run reads, as the page's form
        sends them: never refused as not read (a machine may still lack
        what an experiment needs)."""
        _, exps, _ = self.srv.json("GET", "/api/experiments")
        for e in exps:
            rows = {p["name"]: p for p in e["params"]}
            defaults = {p["name"]: p["default"] for p in e["params"]}
            sent = {k: v for k, v in defaults.items()
                    if applies(rows[k], defaults, rows)}
            with self.subTest(e["name"]):
                status, doc, _ = self.post("/api/runs/check", e["name"], sent)
                if status != 200:
                    self.assertNotIn("is read only", doc["error"])
                    self.assertNotIn("is not read by", doc["error"])


def applies(row, params, rows):
    """web/rundoc.js's paramApplies, for the page's part of the test."""
    if row.get("unread"):
        return False
    only = row.get("only")
    if not only or only["param"] not in params:
        return True
    value = str(params[only["param"]]).strip()
    on = rows.get(only["param"], {})
    if on.get("type") == "set":
        chosen = on.get("choices", []) if value == "all" else value.split(",")
        return any(c in only["values"] for c in chosen)
    return value in only["values"]


if __name__ == "__main__":
    main()
