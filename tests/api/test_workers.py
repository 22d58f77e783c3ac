"""test_workers.py - the worker process: its CPUs, death, misbehaviour.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_workers.py
(make test-api runs every tests/api/test_*.py).
"""

import json
import os
import signal
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    LONG,
    Server,
    SharedServerTest,
    TmpMixin,
    children_of,
    main,
    tsan,
)


def allowed(path):
    """A task's Cpus_allowed_list, or None when it has just ended."""
    try:
        with open(path) as f:
            for ln in f:
                if ln.startswith("Cpus_allowed_list:"):
                    return ln.split(":", 1)[1].strip()
    except FileNotFoundError:
        return None


def policy(stat_path):
    """A task's scheduling policy (0 SCHED_OTHER, 3 SCHED_BATCH), or None
    when it has just ended."""
    try:
        with open(stat_path) as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return int(rest[38])  # field 41 of proc(5), the third after the ')'


def policies(pid):
    """The policies of every thread of pid, as a set."""
    out = set()
    for t in os.listdir("/proc/%d/task" % pid):
        p = policy("/proc/%d/task/%s/stat" % (pid, t))
        if p is not None:
            out.add(p)
    return out


def cpu_list(text):
    """'0,2-3' -> {0, 2, 3}"""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


class WorkerTest(SharedServerTest):
    """The worker of a real run, and the server threads beside it."""

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
        # no cpus named: the placement's CPU of the first point is left.
        # Points enough that the run is still live when the masks are read
        # (with two, on a loaded machine the run could end first and give
        # the threads every cpu back, as it should)
        rid = self.srv.start_run(dict(LONG, threads="1", layout="both", repeat=1,
                                      increments=100000000, stride="4-256:4"))
        try:
            evs = self.srv.wait_event(rid, "placement")
            cpu = evs[-1][2]["threads"][0]["cpu"]
            masks = self.thread_masks()
            _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
            self.assertEqual(run["status"], "running", "the run ended before the look")
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
        rid = self.srv.start_run(dict(LONG, threads="1", cpus=str(cpus[0]), stride="4-256:4"))
        # after the worker's placement: while it loads the topology, hwloc
        # binds its thread to each cpu in turn to read that cpu's cpuid
        self.srv.wait_event(rid, "placement")
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

    @tsan
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

class YieldTest(SharedServerTest):
    """A run on every CPU the server may use: its threads have nowhere to
    go, so they yield to the run's (SCHED_BATCH) while it measures, and
    the worker keeps the server's own policy."""

    @classmethod
    def setUpClass(cls):
        # a server on two CPUs at most (one where there is one), so that a
        # false_sharing point of as many threads covers all of them on any
        # machine
        cls.cpus = sorted(os.sched_getaffinity(0))[:2]
        mine = os.sched_getaffinity(0)
        os.sched_setaffinity(0, cls.cpus)
        try:
            super().setUpClass()
        finally:
            os.sched_setaffinity(0, mine)

    @unittest.skipIf(os.sched_getscheduler(0) != os.SCHED_OTHER,
                     "a server started under another policy keeps it")
    def test_server_threads_yield_to_a_run_on_every_cpu(self):
        pid = self.srv.pid()
        self.assertEqual(policies(pid), {os.SCHED_OTHER})
        n = len(self.cpus)
        # one round a point, a fifth of LONG's increments: an estimate
        # under the server's limit even for a build under coverage
        rid = self.srv.start_run(dict(LONG, threads=str(n), layout="both",
                                      cpus=",".join(map(str, self.cpus)),
                                      stride="4-256:4", repeat=1,
                                      increments=20000000))
        try:
            evs = self.srv.wait_event(rid, "placement")
            used = {t["cpu"] for t in evs[-1][2]["threads"]}
            self.assertEqual(used, set(self.cpus), evs[-1][2])
            seen = policies(pid)
            _, run, _ = self.srv.json("GET", "/api/runs/%d" % rid)
            self.assertEqual(run["status"], "running", "the run ended before the look")
            self.assertEqual(seen, {os.SCHED_BATCH})
            # the run's own threads are not batch: the worker gets the
            # server's policy back
            (worker,) = children_of(pid)
            self.assertEqual(policies(worker), {os.SCHED_OTHER})
        finally:
            self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.srv.wait_final(rid)
        self.assertEqual(policies(pid), {os.SCHED_OTHER})

    @unittest.skipIf(os.sched_getscheduler(0) != os.SCHED_OTHER,
                     "a server started under another policy keeps it")
    def test_a_run_queued_behind_one_on_every_cpu_is_not_batch(self):
        # the first run leaves the threads yielding for the next (it was
        # queued): the worker the runner starts then still runs SCHED_OTHER
        n = len(self.cpus)
        every = dict(LONG, threads=str(n), layout="separate",
                     cpus=",".join(map(str, self.cpus)))
        first = self.srv.start_run(dict(every, repeat=1, increments=20000000))
        second = self.srv.start_run(dict(every, layout="both", stride="4-256:4",
                                         repeat=1, increments=20000000))
        try:
            evs = self.srv.wait_event(second, "placement")
            kids = children_of(self.srv.pid())
            _, run, _ = self.srv.json("GET", "/api/runs/%d" % second)
            self.assertEqual(len(kids), 1, (kids, run["status"], evs[-3:]))
            (worker,) = kids
            self.assertEqual(policies(worker), {os.SCHED_OTHER})
        finally:
            self.srv.json("DELETE", "/api/runs/%d" % second)
            self.srv.wait_final(second)
            self.srv.wait_final(first)
        self.assertEqual(policies(self.srv.pid()), {os.SCHED_OTHER})


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
        self.assertEqual(argv[:2], ["run", "--ndjson"])
        # the server's per-run limit, which the run's budget never passes
        self.assertRegex(argv[2], r"^--max-seconds=[0-9]+$")
        self.assertEqual(argv[3], "false_sharing")
        args = dict(a.split("=", 1) for a in argv[4:])
        self.assertEqual(args["threads"], "1-2")
        self.assertEqual(args["layout"], "shared")
        # every param, defaults included, exactly as stored
        self.assertEqual(set(args), set(run["params"]))
        for k, v in run["request"]["params"].items():
            self.assertIn(k, args)

    @tsan
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

    @tsan
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

    def test_progress_lines_read_together_keep_the_last(self):
        evs, run = self.run_mode("progress_burst")
        self.assertEqual(run["status"], "done")
        seen = [(e[1], e[2].get("what") or e[2].get("text")) for e in evs
                if e[1] in ("progress", "note")]
        # of the compact progress lines read at once only the last is kept,
        # in its place; the other lines, and lines of another form, all
        self.assertEqual(seen[1:], [("note", "between"), ("progress", "point 3"),
                                    ("progress", "spaced"), ("progress", "spaced again")])
        self.assertEqual(run["progress"]["what"], "spaced again")
        seqs = [e[0] for e in evs]
        self.assertEqual(seqs, sorted(seqs))

    def test_a_progress_line_passed_over_is_still_checked(self):
        evs, run = self.run_mode("progress_garbage")
        self.assertEqual(run["status"], "failed")
        self.assertEqual(run["error"],
                         "worker wrote garbage: '{\"type\":\"progress\",\"done\":[[1}'")

    @tsan
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

if __name__ == "__main__":
    main()
