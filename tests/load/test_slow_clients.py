#!/usr/bin/env python3
"""test_slow_clients.py - thousands of slow connections from one loopback
address do not starve a client on another; one client cannot hold more than
its connection limit; subscribers of a stored run share its events.

Loopback only (127.0.0.1 for the crowd, 127.0.0.2 for the normal client),
bounded in count and time; stdlib only. The only time asserted is a generous
ceiling (an answer within 5 s); p99 and the server's memory are printed."""

import http.client
import json
import os
import resource
import shutil
import socket
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "api"))
from harness import Server  # noqa: E402

SLOW = int(os.environ.get("LOAD_SLOW", "3000"))
SUBSCRIBERS = int(os.environ.get("LOAD_STORED_SUBSCRIBERS", "500"))
ANSWER_CEILING = 5.0
SMALL = {"threads": "1-2", "increments": 100000, "repeat": 3, "warmup": 0}


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def need_files(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= n:
        return True
    if hard != resource.RLIM_INFINITY and hard < n:
        return False
    resource.setrlimit(resource.RLIMIT_NOFILE, (n, hard))
    return True


def connect_from(src, srv, timeout=10):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", srv.port))
    return s


def timed_get(srv, path="/api/experiments", src="127.0.0.2"):
    """One GET from another address; returns (status, seconds)."""
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=ANSWER_CEILING,
                                   source_address=(src, 0))
    t0 = time.monotonic()
    try:
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        return r.status, time.monotonic() - t0
    finally:
        c.close()


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * 0.99))]


def can_bind_127_0_0_2():
    try:
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.close()
        return True
    except OSError:
        return False


class SlowClientTest(unittest.TestCase):
    def setUp(self):
        if not can_bind_127_0_0_2():
            self.skipTest("SKIP: cannot bind 127.0.0.2 here")
        if not need_files(SLOW + SUBSCRIBERS + 500):
            self.skipTest("SKIP: this process may not open %d files" % (SLOW + 500))
        self.tmp = tempfile.mkdtemp(prefix="numalab-slow-")
        self.srv = None

    def tearDown(self):
        if self.srv and self.srv.proc:
            self.srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_slow_crowd_does_not_starve_others(self):
        srv = self.srv = Server(self.tmp, args=["--max-client-connections",
                                                str(SLOW + 100)]).start()
        before = rss_mib(srv.pid())
        crowd = []
        try:
            for _ in range(SLOW):
                s = connect_from("127.0.0.1", srv)
                s.setblocking(False)
                crowd.append(s)
            head = b"GET /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            times = []
            deadline = time.monotonic() + 12
            i = 0
            while time.monotonic() < deadline:
                # every slow client sends its next header byte, once a second
                for s in crowd:
                    try:
                        s.send(head[i % len(head):i % len(head) + 1])
                    except OSError:
                        pass
                i += 1
                for _ in range(10):
                    status, dt = timed_get(srv)
                    self.assertEqual(status, 200)
                    self.assertLess(dt, ANSWER_CEILING)
                    times.append(dt)
                time.sleep(max(0.0, 1.0 - 10 * (sum(times[-10:]) / 10)))
            during = rss_mib(srv.pid())
        finally:
            for s in crowd:
                s.close()
        time.sleep(1)
        status, _ = timed_get(srv)
        self.assertEqual(status, 200)
        after = rss_mib(srv.pid())
        print("\nslow clients: %d from 127.0.0.1, %d GETs from 127.0.0.2: p99 %.1f ms, "
              "max %.1f ms; server RSS %.1f MiB before, %.1f during, %.1f after"
              % (SLOW, len(times), p99(times) * 1000, max(times) * 1000,
                 before, during, after), file=sys.stderr)
        self.assertEqual(srv.stop(), 0, srv.stderr())

    def test_one_client_is_limited(self):
        srv = self.srv = Server(self.tmp, args=["--max-client-connections", "50"]).start()
        held, refused = [], 0
        try:
            for _ in range(80):
                s = connect_from("127.0.0.1", srv)
                held.append(s)
            # past the limit the server closes the connection at once; the
            # others stay open after their answer (keep-alive)
            for s in held:
                try:
                    s.sendall(b"GET /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                except OSError:
                    pass
            for s in held:
                try:
                    data = s.recv(100)
                except OSError:
                    data = b""
                if not data.startswith(b"HTTP/1.1 200"):
                    refused += 1
            # each accepting thread may let one more in before it is counted
            self.assertGreaterEqual(refused, 30 - 8)
            self.assertLessEqual(refused, 30)
            status, _ = timed_get(srv)
            self.assertEqual(status, 200)
        finally:
            for s in held:
                s.close()
        self.assertEqual(srv.stop(), 0, srv.stderr())

    def test_stored_run_subscribers_share_its_events(self):
        srv = self.srv = Server(self.tmp, args=["--max-client-connections",
                                                str(SUBSCRIBERS + 100)]).start()
        rid = srv.start_run(SMALL)
        srv.wait_final(rid)
        _, doc, _ = srv.json("GET", "/api/runs/%d?format=json" % rid)
        # an imported run of about 8 MB of events: the sample repeated
        one = doc["samples"][0]
        v = one["samples"][0]
        one["samples"] = [v] * 2000
        one["y"] = v
        one["stats"] = {"n": 2000, "median": v, "min": v, "max": v, "mean": v,
                        "stddev": 0.0, "ci_lo": v, "ci_hi": v}
        doc["samples"] = [dict(one, x=float(i + 1)) for i in range(120)]
        body = json.dumps(doc)
        status, got, _ = srv.json("POST", "/api/runs/import", body,
                                  {"Content-Type": "application/json"})
        self.assertEqual(status, 201, got)
        big = got["id"]
        status, _ = timed_get(srv, "/api/runs/%d/events" % big, "127.0.0.1")
        self.assertEqual(status, 200)
        before = rss_mib(srv.pid())
        subs = []
        try:
            for _ in range(SUBSCRIBERS):
                s = connect_from("127.0.0.1", srv, 30)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.sendall(b"GET /api/runs/%d/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % big)
                subs.append(s)  # and never read
            time.sleep(2)
            status, dt = timed_get(srv)
            self.assertEqual(status, 200)
            during = rss_mib(srv.pid())
        finally:
            for s in subs:
                s.close()
        time.sleep(2)
        status, _ = timed_get(srv)
        self.assertEqual(status, 200)
        after = rss_mib(srv.pid())
        print("\nstored-run subscribers: %d on a %.1f MB run that never read: server "
              "RSS %.1f MiB before, %.1f during, %.1f after"
              % (SUBSCRIBERS, len(body) / 1e6, before, during, after), file=sys.stderr)
        # one copy each would be gigabytes; shared, far less than one per subscriber
        self.assertLess(during - before, 100 * SUBSCRIBERS / 1000 + 50)
        self.assertEqual(srv.stop(), 0, srv.stderr())


if __name__ == "__main__":
    unittest.main(verbosity=2)
