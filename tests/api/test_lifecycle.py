"""test_lifecycle.py - stopping and restarting the server.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_lifecycle.py
(make test-api runs every tests/api/test_*.py).
"""

import json
import os
import signal
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    LONG,
    SMALL,
    Server,
    TmpMixin,
    children_of,
    main,
    sse_events,
    tsan,
    wait_gone,
    wait_until,
)


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

    @tsan
    def test_a_run_read_from_memory_reads_as_from_the_store(self):
        # a finished run the server holds is served from its own record of
        # the run (row and document), the same bytes the store gives back
        # once the server restarted: done, cancelled while running, and
        # cancelled while queued (which never started)
        self.srv.start()
        done = self.srv.start_run(SMALL)
        self.srv.wait_final(done)
        running = self.srv.start_run(LONG)
        queued = self.srv.start_run(SMALL)
        self.srv.wait_event(running, "sample")
        self.assertEqual(self.srv.request("DELETE", "/api/runs/%d" % queued)[0], 200)
        self.assertEqual(self.srv.request("DELETE", "/api/runs/%d" % running)[0], 200)
        ids = (done, running, queued)
        before = {}
        for rid in ids:
            self.srv.wait_final(rid)
            status, hdrs, body = self.srv.request("GET", "/api/runs/%d" % rid)
            self.assertEqual(status, 200)
            before[rid] = (hdrs["etag"], body)
        self.assertIsNone(json.loads(before[done][1])["error"])
        self.assertEqual(json.loads(before[running][1])["status"], "cancelled")
        self.assertEqual(self.srv.stop(), 0, self.srv.stderr())
        self.srv.start()
        for rid in ids:
            status, hdrs, body = self.srv.request("GET", "/api/runs/%d" % rid)
            self.assertEqual(status, 200)
            self.assertEqual(body, before[rid][1], "run %d" % rid)
            self.assertEqual(hdrs["etag"], before[rid][0])

    @tsan
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
        self.assertEqual(run["error"], "the server stopped before the run finished")
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
        self.assertEqual([e[0] for e in evs[:-1]], list(range(1, len(evs))))
        # numbered above any event a reader may have seen that the store did
        # not keep (RUNLOG_UNSTORED_MAX, 1024, in server/store/runlog.h)
        self.assertEqual(evs[-1][0], evs[-2][0] + 1025)
        _, q, _ = self.srv.json("GET", "/api/runs/%d" % queued)
        self.assertEqual(q["status"], "interrupted")
        # it had not started, and says so
        self.assertEqual(q["error"], "the server stopped before the run started")
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


    @staticmethod
    def disk(mnt, *servers):
        """What a small disk holds, and what its servers said: a failure
        of the tests below says where the room came from."""
        st = os.statvfs(mnt)
        files = sorted((f, os.path.getsize(os.path.join(mnt, f))) for f in os.listdir(mnt))
        return "%d B free; %s; %s" % (st.f_bavail * st.f_frsize, files,
                                      " | ".join(s.stderr()[-600:] for s in servers))

    def small_disk(self):
        """A 4 MiB tmpfs under the test's folder (the test unmounts it);
        skips where it cannot be mounted."""
        if os.geteuid() != 0:
            self.skipTest("SKIP: mounting a small tmpfs needs root")
        mnt = os.path.join(self.tmp, "small")
        os.mkdir(mnt)
        if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs",
                            mnt], stderr=subprocess.DEVNULL):
            self.skipTest("SKIP: this machine does not let us mount a tmpfs")
        return mnt

    def test_full_disk(self):
        mnt = self.small_disk()
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
                seen = evs[-1][0]  # what a reader of the live run saw last
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
                self.assertEqual(full.stop(), 0, full.stderr())
                self.restart_on_full_disk(mnt, rid, seen)
            finally:
                if full.proc:
                    self.assertEqual(full.stop(), 0, full.stderr())
        finally:
            subprocess.call(["umount", mnt])

    def restart_on_full_disk(self, mnt, rid, seen):
        # the disk is still full: the run the failure cut short cannot be
        # marked yet; it is, with the true reason, once the disk has room
        again = Server(self.tmp, db=os.path.join(mnt, "x.db"),
                       name="again").start()
        try:
            status, run, _ = again.json("GET", "/api/runs/%d" % rid)
            self.assertEqual(status, 200, run)
            kept = run["notes"]
            if run["status"] == "running":
                self.assertTrue(wait_until(
                    lambda: "as soon as the disk has room" in again.stderr()),
                    self.disk(mnt, again))
                os.unlink(os.path.join(mnt, "filler"))
                self.assertTrue(wait_until(lambda: again.json(
                    "GET", "/api/runs/%d" % rid)[1]["status"] == "interrupted"),
                    again.stderr())
                status, run, _ = again.json("GET", "/api/runs/%d" % rid)
                self.assertIn("the disk filled: database or disk is full",
                              run["error"])
                self.assertIn("marked interrupted", again.stderr())
            else:
                # the final write found room after all: the reason it kept
                self.assertIn("database or disk is full", run["error"] or "",
                              self.disk(mnt, again))
            # every note the store kept is still there
            self.assertEqual(run["notes"][:len(kept)], kept)
            evs = again.wait_final(rid)
            self.assertIn(evs[-1][1], ("failed", "interrupted"))
            # a reader of the first server resumes where it was: the events
            # the store lost are never numbered again, and it sees the end
            if evs[-1][0] != seen:
                resume = {"Last-Event-ID": str(seen)}
                status, got, _ = again.events(rid, headers=resume)
                self.assertEqual(status, 200)
                self.assertEqual([e[1] for e in got], [evs[-1][1]])
                self.assertGreater(got[0][0], seen)
                status, _, lines = again.ndjson(rid, headers=resume)
                self.assertEqual(status, 200)
                self.assertEqual([e["type"] for e in lines], [evs[-1][1]])
                self.assertGreater(lines[0]["seq"], seen)
        finally:
            self.assertEqual(again.stop(), 0, again.stderr())

    def test_full_disk_at_restart_spares_new_runs(self):
        # a run killed mid-way left its events in the journal; the server
        # that starts on a full disk cannot fold them in: the run is marked
        # once there is room, and a run this server started meanwhile is not
        mnt = self.small_disk()
        srv = Server(self.tmp, db=os.path.join(mnt, "x.db"), name="fullstart")
        try:
            srv.start()
            rid = srv.start_run(LONG)
            seen = srv.wait_event(rid, "sample")
            srv.kill9()
            filler = os.path.join(mnt, "filler")
            with open(filler, "wb", buffering=0) as f:
                try:
                    while True:
                        f.write(b"\0" * 65536)
                except OSError:
                    pass
            before = self.disk(mnt)
            srv.start()
            # the fold may still fit: SQLite writes a WAL it has already
            # grown over again, and the journal's own blocks come free
            self.assertTrue(wait_until(
                lambda: "as soon as the disk has room" in srv.stderr() or
                "marked interrupted" in srv.stderr()),
                "before: %s; now: %s" % (before, self.disk(mnt, srv)))
            os.unlink(filler)
            new = srv.start_run(LONG)
            self.assertTrue(wait_until(lambda: srv.json(
                "GET", "/api/runs/%d" % rid)[1]["status"] == "interrupted"),
                srv.stderr())
            srv.wait_event(new, "sample")
            _, run, _ = srv.json("GET", "/api/runs/%d" % new)
            self.assertEqual((run["status"], run["error"]), ("running", None))
            self.assertEqual(srv.request("DELETE", "/api/runs/%d" % new)[0], 200)
            self.assertEqual(srv.wait_final(new)[-1][1], "cancelled")
            self.assertEqual(srv.stop(), 0, srv.stderr())
            # the new run as its server ended it; the killed one's events
            # all kept, its end numbered above them
            srv.start()
            _, run, _ = srv.json("GET", "/api/runs/%d" % new)
            self.assertEqual((run["status"], run["error"]),
                             ("cancelled", "cancelled on request"))
            evs = srv.wait_final(rid)
            self.assertEqual(evs[:len(seen)], seen)
            self.assertEqual(evs[-1][1], "interrupted")
            self.assertEqual(evs[-1][0], evs[-2][0] + 1025)
            self.assertEqual(srv.stop(), 0, srv.stderr())
        finally:
            if srv.proc:
                srv.kill9()
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
            s.sendall(b"GET /api/runs/%d/events HTTP/1.1\r\nHost: localhost\r\n\r\n" % rid)
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

if __name__ == "__main__":
    main()
