#!/usr/bin/env python3
"""test_load.py - the API under wrk load while one run streams to 500 SSE
subscribers: every subscriber gets every event, in order; wrk sees no errors;
the run ends done. Loopback only, bounded in count and time; stdlib only.
No figure is asserted: the load's numbers are printed for the reader."""

import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "api"))
from harness import FINAL_TYPES, Server, sse_events  # noqa: E402

SUBSCRIBERS = int(os.environ.get("LOAD_SUBSCRIBERS", "500"))
WRK_SECONDS = os.environ.get("LOAD_WRK_SECONDS", "5")
# long enough to be streaming while wrk runs; no test depends on how long
RUN = {"threads": "1-2", "increments": 60000000, "repeat": 5, "warmup": 1}


def subscribe(srv, rid, out, i, ready):
    """One SSE subscriber on its own socket; keeps every event it got."""
    import http.client
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=120)
    try:
        c.request("GET", "/api/runs/%d/events" % rid)
        r = c.getresponse()
        ready.release()
        if r.status != 200:
            out[i] = ("status", r.status)
            return
        evs = []
        for ev in sse_events(r):
            evs.append(ev)
            if ev[1] in FINAL_TYPES:
                break
        out[i] = evs
    except Exception as e:  # reported, not raised: the thread must end
        out[i] = ("error", repr(e))
        ready.release()
    finally:
        c.close()


class LoadTest(unittest.TestCase):
    def setUp(self):
        self.wrk = shutil.which("wrk")
        if not self.wrk:
            self.skipTest("SKIP: wrk is not installed (scripts/deps.sh bench)")
        need = SUBSCRIBERS * 2 + 200
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < need:
            if hard != resource.RLIM_INFINITY and hard < need:
                self.skipTest("SKIP: this process may open only %d files" % hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
        self.tmp = tempfile.mkdtemp(prefix="numalab-load-")
        self.srv = Server(self.tmp).start()  # the server inherits the limit

    def tearDown(self):
        if self.srv.proc:
            self.srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_load_while_streaming(self):
        srv = self.srv
        rid = srv.start_run(RUN)
        out = [None] * SUBSCRIBERS
        ready = threading.Semaphore(0)
        subs = [threading.Thread(target=subscribe, args=(srv, rid, out, i, ready),
                                 daemon=True) for i in range(SUBSCRIBERS)]
        for t in subs:
            t.start()
        for _ in subs:
            self.assertTrue(ready.acquire(timeout=120), "a subscriber never connected")
        url = "http://%s:%d/api/runs/%d" % (srv.host, srv.port, rid)
        wrk = subprocess.run(
            [self.wrk, "-t2", "-c16", "-d%ss" % WRK_SECONDS, "--timeout", "10s",
             "--latency", url],
            capture_output=True, text=True, timeout=120)
        print("\n" + wrk.stdout, file=sys.stderr)
        self.assertEqual(wrk.returncode, 0, wrk.stderr)
        self.assertNotIn("Socket errors", wrk.stdout)
        self.assertNotIn("Non-2xx", wrk.stdout)
        self.assertRegex(wrk.stdout, r"\d+ requests in")
        for t in subs:
            t.join(180)
            self.assertFalse(t.is_alive(), "a subscriber never got the final event")
        final = srv.wait_final(rid)  # after the run: the whole log, replayed
        self.assertEqual(final[-1][1], "done", final[-1])
        self.assertEqual([e[0] for e in final], list(range(1, len(final) + 1)))
        for i, evs in enumerate(out):
            self.assertEqual(evs, final, "subscriber %d" % i)
        _, run, _ = srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(run["status"], "done")
        # the same request without load gives the same shape of result: the
        # same measurements in the same order (what the verdict notes and
        # marks depends on what was measured, which load may change)
        quiet = srv.wait_final(srv.start_run(RUN))
        said = ("note", "mark")
        self.assertEqual([e[1] for e in quiet if e[1] not in said],
                         [e[1] for e in final if e[1] not in said])
        reqs = re.search(r"Requests/sec:\s+([\d.]+)", wrk.stdout)
        print("load: %d subscribers got all %d events; wrk %s req/s"
              % (SUBSCRIBERS, len(final), reqs.group(1) if reqs else "?"),
              file=sys.stderr)
        self.assertEqual(srv.stop(), 0, srv.stderr())


if __name__ == "__main__":
    unittest.main(verbosity=2)
