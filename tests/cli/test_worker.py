#!/usr/bin/env python3
"""test_worker.py - numalab-worker is `numalab run` alone, and lean.

The server execs numalab-worker (built beside numalab) for each run with
numalab's own argv: its output and exit status are numalab run's, and it
links none of the server's libraries. Stdlib only; NUMALAB_BIN names the
binary (default build/numalab), the worker is found beside it.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
WORKER = os.path.join(os.path.dirname(os.path.realpath(BIN)), "numalab-worker")
TINY = ["threads=1", "increments=1000", "repeat=1", "warmup=0", "budget=0"]
# what a run needs: jansson, hwloc (and what hwloc loads), libnuma, libm;
# and a sanitizer's runtime in a SAN= build
ALLOWED = re.compile(r"^(libjansson|libhwloc|libnuma|libm|libc|libudev|ld-linux|linux-vdso"
                     r"|libasan|libubsan|libtsan|libgcc_s|libstdc\+\+)")


def run(prog, *args):
    p = subprocess.run([prog, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


class WorkerTest(unittest.TestCase):
    def test_links_only_what_a_run_needs(self):
        out = subprocess.run(["readelf", "-d", WORKER], capture_output=True,
                             text=True, check=True).stdout
        needed = re.findall(r"\(NEEDED\).*\[(.*)\]", out)
        self.assertTrue(needed, out)
        for lib in needed:
            self.assertRegex(lib, ALLOWED, "numalab-worker links %s" % lib)
        for server in ("microhttpd", "gnutls", "curl", "sqlite", "libz."):
            self.assertNotIn(server, " ".join(needed))

    def test_same_output_and_status_as_numalab_run(self):
        for args in (["run", "--ndjson", "false_sharing", "threads=zz"],
                     ["run", "--ndjson", "no_such_experiment"],
                     ["run", "--ndjson", "false_sharing", "--bogus"],
                     ["run", "--ndjson", "false_sharing", "--max-seconds=0"],
                     ["run", "false_sharing", "--help"],
                     ["run", "--help"],
                     ["run"]):
            with self.subTest(args=args):
                self.assertEqual(run(WORKER, *args), run(BIN, *args))

    def test_a_run_writes_the_same_events(self):
        rcs, shapes = [], []
        for prog in (BIN, WORKER):
            rc, out, err = run(prog, "run", "--ndjson", "false_sharing", *TINY)
            evs = [json.loads(line) for line in out.decode().splitlines()]
            rcs.append(rc)
            # every event's type and fields; the figures differ run to run,
            # and so do the notes on what a run saw (a round redone, a
            # wide interval): those are compared by their fields alone
            shapes.append([(e["type"], sorted(e)) for e in evs if e["type"] != "note"])
            for e in evs:
                if e["type"] == "note":
                    self.assertLessEqual({"level", "text", "type"}, set(e))
            self.assertEqual(evs[0]["params"]["threads"], "1")
            self.assertEqual(evs[-1]["type"], "end")
            self.assertEqual(evs[-1]["status"], "done", err)
        self.assertEqual(rcs, [0, 0])
        self.assertEqual(shapes[0], shapes[1])

    def test_start_is_a_run_before_its_experiment(self):
        # what the rates time as a worker's start: the machine record a
        # run's start event carries, and nothing else
        rc, out, err = run(WORKER, "--start")
        self.assertEqual(rc, 0, err)
        machine = json.loads(out)
        self.assertIn("cpu_model", machine)
        self.assertGreaterEqual(machine["pus"], 1)

    def test_estimate_says_the_workers_start(self):
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(prefix="numalab-cli-i38-"))
        try:
            p = subprocess.run([BIN, "estimate", "--json", "false_sharing", "threads=1"],
                               capture_output=True, timeout=120, env=env, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            basis = json.loads(p.stdout)["basis"]
            self.assertRegex(basis, r"^the rates measured here(, \d+ built-in)? \(a worker's start [0-9.]+ ms")
            self.assertLess(len(basis), 256)
        finally:
            shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)

    def test_only_run(self):
        for args in ([], ["serve"], ["list"], ["--help"]):
            with self.subTest(args=args):
                rc, out, err = run(WORKER, *args)
                self.assertEqual(rc, 2)
                self.assertEqual(out, b"")
                self.assertIn(b"usage: numalab-worker run", err)
        rc, out, _ = run(WORKER, "--version")
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith(b"numalab-worker "), out)

    def test_one_version_everywhere(self):
        # the binaries, a run's document and its machine all name the same
        # build (a version compiled into each file went stale as files were
        # rebuilt at different commits)
        _, out, _ = run(BIN, "--version")
        version = out.split()[1].decode()
        _, wout, _ = run(WORKER, "--version")
        self.assertEqual(wout.split()[1].decode(), version)
        rc, out, err = run(BIN, "run", "--ndjson", "false_sharing", *TINY)
        self.assertEqual(rc, 0, err)
        start = json.loads(out.splitlines()[0])
        self.assertEqual(start["version"], version, start.keys())
        self.assertEqual(start["machine"]["version"], version)


if __name__ == "__main__":
    unittest.main(verbosity=2)
