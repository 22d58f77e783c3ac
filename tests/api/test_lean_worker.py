"""test_lean_worker.py - the server starts numalab-worker for each run.

numalab-worker (`numalab run` alone, built beside numalab) is found next
to the server binary's real path, or in ../lib/numalab/ from there (an
install prefix); without it the server refuses to start and says why.
Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_lean_worker.py
"""

import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import LONG, SMALL, Server, TmpMixin, children_of, main  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.realpath(harness.BIN)), "numalab-worker")


class BinServer(Server):
    """A server started from another path to the binary."""

    def __init__(self, tmp, binary, **kw):
        super().__init__(tmp, **kw)
        self.binary = binary

    def command(self, listen="127.0.0.1:0"):
        return [self.binary] + super().command(listen)[1:]


class LeanWorkerTest(TmpMixin, unittest.TestCase):
    def setUp(self):
        self.make_tmp()
        self.srv = None

    def tearDown(self):
        if self.srv and self.srv.proc:
            self.srv.stop()
        self.drop_tmp()

    def serve_alone(self, binary, *args):
        """numalab serve from binary that must not start: (status, stderr)."""
        p = subprocess.run([binary, "serve", "--listen", "127.0.0.1:0", "--db",
                            os.path.join(self.tmp, "alone.db"), *args],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stderr

    def test_a_run_is_executed_by_numalab_worker(self):
        self.srv = Server(self.tmp).start()
        rid = self.srv.start_run(LONG)
        try:
            self.srv.wait_event(rid, "start")
            (worker,) = children_of(self.srv.pid())
            self.assertEqual(os.readlink("/proc/%d/exe" % worker), WORKER)
        finally:
            self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.srv.wait_final(rid)

    def test_found_beside_the_real_path_of_a_link(self):
        link = os.path.join(self.tmp, "numalab")
        os.symlink(os.path.realpath(harness.BIN), link)
        self.srv = BinServer(self.tmp, link).start()
        evs = self.srv.wait_final(self.srv.start_run(SMALL))
        self.assertEqual(evs[-1][1], "done", evs[-1])

    def test_found_in_the_prefix_lib_folder(self):
        for d in ("bin", "lib/numalab"):
            os.makedirs(os.path.join(self.tmp, d))
        binary = os.path.join(self.tmp, "bin", "numalab")
        shutil.copy(harness.BIN, binary)
        shutil.copy(WORKER, os.path.join(self.tmp, "lib/numalab/numalab-worker"))
        self.srv = BinServer(self.tmp, binary).start()
        evs = self.srv.wait_final(self.srv.start_run(SMALL))
        self.assertEqual(evs[-1][1], "done", evs[-1])

    def test_missing_worker_is_refused_at_start(self):
        binary = os.path.join(self.tmp, "numalab")
        shutil.copy(harness.BIN, binary)
        rc, err = self.serve_alone(binary)
        self.assertEqual(rc, 1, err)
        self.assertIn("cannot find numalab-worker", err)
        self.assertIn(binary, err)
        self.assertIn("--worker PATH", err)
        # --worker names one: the server starts with it
        self.srv = BinServer(self.tmp, binary, args=("--worker", WORKER)).start()
        evs = self.srv.wait_final(self.srv.start_run(SMALL))
        self.assertEqual(evs[-1][1], "done", evs[-1])

    def test_worker_not_executable_is_refused(self):
        rc, err = self.serve_alone(os.path.realpath(harness.BIN), "--worker",
                                   os.path.join(self.tmp, "none"))
        self.assertEqual(rc, 1, err)
        self.assertIn("cannot execute worker", err)


if __name__ == "__main__":
    main()
