"""test_events.py - a run's event streams: SSE, NDJSON, resume.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_events.py
(make test-api runs every tests/api/test_*.py).
"""

import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    FINAL_TYPES,
    LONG,
    SMALL,
    SharedServerTest,
    main,
    tsan,
)


class EventsTest(SharedServerTest):
    """GET /api/runs/{id}/events, finished and live."""

    done_run = True

    def check_sequence(self, evs, first=1):
        seqs = [e[0] for e in evs]
        self.assertEqual(seqs, list(range(first, first + len(evs))))
        for seq, type_, data in evs:
            self.assertEqual(data["seq"], seq)
            self.assertEqual(data["type"], type_)

    @tsan
    def test_late_subscriber_gets_everything(self):
        status, evs, comments = self.srv.events(self.done_id)
        self.assertEqual(status, 200)
        self.check_sequence(evs)
        types = [e[1] for e in evs]
        self.assertEqual(types[0], "status")
        self.assertEqual(evs[0][2]["status"], "running")
        self.assertIn("start", types)
        self.assertIn("sample", types)
        self.assertEqual(types[-2:], ["end", "done"])
        final = evs[-1][2]
        self.assertEqual(final["status"], "done")
        self.assertIn("summary", final)
        self.assertIn("headline", final)
        self.assertEqual(evs, self.done_events)

    def test_resume(self):
        n = len(self.done_events)
        k = n // 2
        status, evs, _ = self.srv.events(self.done_id,
                                         headers={"Last-Event-ID": str(k)})
        self.assertEqual(status, 200)
        self.assertEqual(evs, self.done_events[k:])
        status, evs, _ = self.srv.events(self.done_id, "?after=%d" % k)
        self.assertEqual(evs, self.done_events[k:])
        # nothing left: 204 makes an EventSource stop reconnecting
        status, evs, _ = self.srv.events(self.done_id,
                                         headers={"Last-Event-ID": str(n)})
        self.assertEqual((status, evs), (204, []))
        status, doc, _ = self.srv.json("GET", "/api/runs/%d/events" % self.done_id,
                                       headers={"Last-Event-ID": "x"})
        self.assertError(status, doc, 400, "Last-Event-ID")

    def test_ndjson(self):
        status, ctype, lines = self.srv.ndjson(self.done_id)
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "application/x-ndjson")
        self.assertEqual(lines, [e[2] for e in self.done_events])
        status, ctype, lines = self.srv.ndjson(
            self.done_id, "", {"Accept": "application/x-ndjson"})
        self.assertEqual(ctype, "application/x-ndjson")
        self.assertEqual(len(lines), len(self.done_events))
        status, ctype, lines = self.srv.ndjson(self.done_id, "?format=ndjson&after=3")
        self.assertEqual(lines[0]["seq"], 4)
        status, doc, _ = self.srv.json("GET", "/api/runs/%d/events?format=xml"
                                       % self.done_id)
        self.assertError(status, doc, 400, "format")

    @tsan
    def test_live_stream_and_resume_mid_run(self):
        rid = self.srv.start_run(LONG)
        # a subscriber that leaves after the first sample...
        first = self.srv.wait_event(rid, "sample")
        self.check_sequence(first)
        # ...and one that stalls: connected, never reading
        stall_c, stall_r = self.srv.open_events(rid)
        # resuming continues exactly where the first left off
        status, rest, _ = self.srv.events(
            rid, headers={"Last-Event-ID": str(first[-1][0])},
            until=lambda e: e[1] == "sample")
        self.assertEqual(status, 200)
        self.check_sequence(rest, first[-1][0] + 1)
        status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % rid)
        self.assertEqual(doc["status"], "cancelled")
        stall_c.close()
        evs = self.srv.wait_final(rid)
        self.assertEqual(evs[: len(first)], first)
        self.check_sequence(evs)

    @tsan
    def test_many_subscribers(self):
        rid = self.srv.start_run(SMALL)
        results = [None] * 20

        def sub(i):
            results[i] = self.srv.events(rid)[1]

        threads = [threading.Thread(target=sub, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for evs in results:
            self.assertEqual(evs, results[0])
            self.assertIn(evs[-1][1], FINAL_TYPES)

    def test_thousand_subscribers(self):
        import resource
        import socket
        n = 1000
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < n + 100:
            if hard != resource.RLIM_INFINITY and hard < n + 100:
                self.skipTest("SKIP: this process may open only %d files" % hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (n + 100, hard))
        rid = self.srv.start_run(LONG)
        self.srv.wait_event(rid, "status")
        socks = []
        try:
            for _ in range(n):
                s = socket.create_connection((self.srv.host, self.srv.port), 120)
                s.sendall(b"GET /api/runs/%d/events HTTP/1.1\r\nHost: localhost\r\n\r\n" % rid)
                socks.append(s)
            # half read along; the other half never read a byte
            readers = socks[: n // 2]
            for s in readers:
                buf = b""
                while b"event: status" not in buf:
                    chunk = s.recv(65536)
                    self.assertTrue(chunk)
                    buf += chunk
            status, _, _ = self.srv.json("GET", "/api/experiments")
            self.assertEqual(status, 200)
            status, doc, _ = self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.assertEqual(doc["status"], "cancelled")
            for s in readers:
                buf = b""
                while b"event: cancelled" not in buf:
                    chunk = s.recv(65536)
                    self.assertTrue(chunk, "stream ended before the final event")
                    buf += chunk
        finally:
            for s in socks:
                s.close()
        self.assertEqual(self.srv.wait_final(self.srv.start_run(SMALL))[-1][1], "done")

if __name__ == "__main__":
    main()
