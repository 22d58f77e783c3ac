#!/usr/bin/env python3
"""test_fanout.py - one live run streamed to 10,000 SSE subscribers: each
gets every event, in order, the same bytes as the stored run replays, and
together they cost the server less than 100 MB (its peak resident set, a
few KiB each; not checked in a sanitizer's build). Past the server's
--max-viewers a subscriber gets 503 with Retry-After, and a slot that frees
is taken again.

10,000 take 10-25 s on a 2-CPU machine, most of it connecting.

The subscribers are asyncio sockets in this one process (HTTP/1.1, chunked
SSE decoded here), connecting from 127.0.0.2, 127.0.0.3, ... a thousand
per address, so the server's per-address limit (2,048) is not what is
tested. Each keeps only a count, the last id and a digest of what it read.
The run is held behind another until every subscriber is connected, so
all of them see it live from its first event. Loopback only; stdlib only;
no time is asserted.

  LOAD_FANOUT=10000 python3 tests/load/test_fanout.py    more subscribers
"""

import asyncio
import hashlib
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
from harness import FINAL_TYPES, Server, can_bind  # noqa: E402

FANOUT = int(os.environ.get("LOAD_FANOUT", "10000"))
# the goal: 10,000 viewers of one run in under 100 MB
PEAK_MB_10000 = 100
VIEWER_LIMIT = 40  # --max-viewers of the limit's test
PER_ADDRESS = 1000
# a few dozen events: a point per stride and layout, then the end
RUN = {"threads": "1", "layout": "both", "stride": "8,16,24,32,40,48,56,64",
       "increments": 200000, "repeat": 2, "warmup": 0}
# holds the queue until cancelled: ~30 ms rounds (a cancel is seen at the
# end of one), about 30 s in all, estimated far above that by the server
HOLD = {"threads": "1", "layout": "separate", "increments": 60000000,
        "repeat": 1000, "warmup": 0}
FINAL = tuple(t.encode() for t in FINAL_TYPES)


def source(i):
    return "127.0.%d.%d" % divmod(2 + i // PER_ADDRESS, 256)


class Sub:
    """One subscriber: what it got, reduced to a few fields."""

    def __init__(self):
        self.events = 0
        self.last = 0
        self.in_order = True
        self.final = None
        self.error = None
        self.digest = hashlib.sha256()

    def event(self, block):
        seq = None
        typ = b"message"
        for ln in block.split(b"\n"):
            if ln.startswith(b"id: "):
                seq = int(ln[4:])
            elif ln.startswith(b"event: "):
                typ = ln[7:]
        if seq is None:
            return  # the retry hint, a comment or a keepalive
        if seq != self.last + 1:
            self.in_order = False
        self.last = seq
        self.events += 1
        self.digest.update(block + b"\n\n")
        if typ in FINAL:
            self.final = typ.decode()


async def subscribe(sub, host, port, rid, src, gate, connected):
    try:
        async with gate:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(src, 0))
    except OSError as e:
        sub.error = "connect from %s: %s" % (src, e)
        connected.set_result(False)
        return
    try:
        writer.write(("GET /api/runs/%d/events HTTP/1.1\r\nHost: %s:%d\r\n"
                      "Accept: text/event-stream\r\n\r\n" % (rid, host, port)).encode())
        head = await reader.readuntil(b"\r\n\r\n")
        connected.set_result(True)
        status = head.split(b"\r\n", 1)[0].split()[1]
        if status != b"200":
            sub.error = "HTTP %s" % status.decode()
            return
        if b"chunked" not in head.lower():
            sub.error = "the stream is not chunked"
            return
        buf = b""
        while sub.final is None:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                break
            buf += (await reader.readexactly(size + 2))[:-2]
            while True:
                i = buf.find(b"\n\n")
                if i < 0:
                    break
                sub.event(buf[:i])
                buf = buf[i + 2:]
        if sub.final is None:
            sub.error = "the stream ended before the final event"
    except (OSError, ValueError, asyncio.IncompleteReadError) as e:
        sub.error = "%s: %s" % (type(e).__name__, e)
    finally:
        if not connected.done():
            connected.set_result(False)
        writer.close()


async def fan_out(srv, rid, n, hold=None):
    """n subscribers of run rid; once all are connected, hold (a run
    that keeps rid queued) is cancelled. Returns the subscribers."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(256)  # ten thousand SYNs at once overflow the backlog
    subs = [Sub() for _ in range(n)]
    futs = [loop.create_future() for _ in range(n)]
    tasks = [asyncio.ensure_future(subscribe(s, srv.host, srv.port, rid, source(i), gate, f))
             for i, (s, f) in enumerate(zip(subs, futs))]
    await asyncio.wait_for(asyncio.gather(*futs), 300)
    if hold is not None:
        _, doc, _ = await loop.run_in_executor(None, srv.json, "GET", "/api/runs/%d" % rid)
        if doc["status"] != "queued":
            raise AssertionError("run %d was %s before every subscriber was connected"
                                 % (rid, doc["status"]))
        await loop.run_in_executor(None, srv.json, "DELETE", "/api/runs/%d" % hold)
    await asyncio.wait_for(asyncio.gather(*tasks), 600)
    return subs


def status_kb(pid, field):
    """A field of /proc/PID/status in kB (VmHWM: the peak resident set)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def sanitized(path):
    """Whether the binary was built with a sanitizer (its memory is not a
    viewer's cost)."""
    with open(path, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__tsan_init" in data


class FanoutTest(unittest.TestCase):
    def setUp(self):
        if not can_bind(source(FANOUT - 1)):
            self.skipTest("SKIP: cannot bind %s here" % source(FANOUT - 1))
        need = FANOUT + 512
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < need:
            if hard != resource.RLIM_INFINITY and hard < need:
                self.skipTest("SKIP: this process may open only %d files" % hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
        self.tmp = tempfile.mkdtemp(prefix="numalab-fanout-")
        self.srv = Server(self.tmp, args=["--max-run-seconds", "7200"]).start()  # inherits the limit

    def tearDown(self):
        if self.srv.proc:
            self.srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_every_subscriber_gets_every_event_in_order(self):
        srv = self.srv
        hold = srv.start_run(HOLD)
        rid = srv.start_run(RUN)
        t0 = time.monotonic()
        subs = asyncio.run(fan_out(srv, rid, FANOUT, hold))
        took = time.monotonic() - t0
        peak_kb = status_kb(srv.pid(), "VmHWM")
        errors = sorted({s.error for s in subs if s.error})
        self.assertEqual(errors, [], "%d subscribers failed" % sum(1 for s in subs if s.error))
        _, run, _ = srv.json("GET", "/api/runs/%d" % rid)
        self.assertEqual(run["status"], "done", run)
        # the stored run, replayed to one more subscriber, is the reference
        ref = asyncio.run(fan_out(srv, rid, 1))[0]
        self.assertIsNone(ref.error)
        self.assertEqual(ref.final, "done")
        self.assertTrue(ref.in_order)
        self.assertGreater(ref.events, 3)
        for i, s in enumerate(subs):
            self.assertTrue(s.in_order, "subscriber %d: ids out of order" % i)
            self.assertEqual(s.final, "done", "subscriber %d" % i)
            self.assertEqual((s.events, s.last), (ref.events, ref.last), "subscriber %d" % i)
            self.assertEqual(s.digest.digest(), ref.digest.digest(),
                             "subscriber %d: other bytes than the stored run's" % i)
        if not sanitized(srv.command()[0]):
            # what 10,000 may take, for as many as were asked
            cap_mb = 12 + (PEAK_MB_10000 - 12) * FANOUT / 10000.0
            self.assertLess(peak_kb * 1024 / 1e6, cap_mb,
                            "server peak RSS with %d subscribers" % FANOUT)
        print("\nfan-out: %d subscribers from %d addresses each got all %d events in order "
              "(%.0f s), server peak RSS %.1f MB" % (FANOUT, (FANOUT - 1) // PER_ADDRESS + 1,
                                                   ref.events, took, peak_kb * 1024 / 1e6),
              file=sys.stderr)
        self.assertEqual(srv.stop(), 0, srv.stderr())


class ViewerLimitTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-viewers-")
        self.srv = Server(self.tmp, args=["--max-run-seconds", "7200",
                                          "--max-viewers", str(VIEWER_LIMIT)]).start()

    def tearDown(self):
        if self.srv.proc:
            self.srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def open_stream(self, rid):
        s = socket.create_connection((self.srv.host, self.srv.port), 10)
        s.sendall(("GET /api/runs/%d/events HTTP/1.1\r\nHost: %s:%d\r\n"
                   "Accept: text/event-stream\r\n\r\n"
                   % (rid, self.srv.host, self.srv.port)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
        return s, head

    def test_past_the_limit_503(self):
        srv = self.srv
        hold = srv.start_run(HOLD)
        rid = srv.start_run(RUN)
        held = []
        try:
            for i in range(VIEWER_LIMIT):
                s, head = self.open_stream(rid)
                held.append(s)
                self.assertTrue(head.startswith(b"HTTP/1.1 200"), (i, head[:200]))
            s, head = self.open_stream(rid)
            hdrs, _, body = head.partition(b"\r\n\r\n")
            length = [int(ln.split(b":")[1]) for ln in hdrs.lower().split(b"\r\n")
                      if ln.startswith(b"content-length:")]
            s.settimeout(10)
            while length and len(body) < length[0]:
                body += s.recv(4096)
            s.close()
            self.assertTrue(hdrs.startswith(b"HTTP/1.1 503"), hdrs[:200])
            self.assertIn(b"retry-after:", hdrs.lower())
            self.assertIn(b"application/json", hdrs.lower())
            err = json.loads(body)["error"]
            self.assertIn("--max-viewers", err)
            self.assertIn(str(VIEWER_LIMIT), err)
            # other reads still answered
            status, _, _ = srv.json("GET", "/api/runs/%d" % rid)
            self.assertEqual(status, 200)
            # the run goes ahead and ends: its streams end, their slots
            # are free again (the stored run's replay is a stream too)
            srv.json("DELETE", "/api/runs/%d" % hold)
            for _ in range(600):  # (its stream is one the limit refuses)
                if srv.json("GET", "/api/runs/%d" % rid)[1]["status"] == "done":
                    break
                time.sleep(0.1)
            for _ in range(100):
                s, head = self.open_stream(rid)
                s.close()
                if head.startswith(b"HTTP/1.1 200"):
                    break
                time.sleep(0.2)
            self.assertTrue(head.startswith(b"HTTP/1.1 200"), head[:200])
        finally:
            for s in held:
                s.close()
            srv.json("DELETE", "/api/runs/%d" % hold)
        self.assertEqual(srv.stop(), 0, srv.stderr())


if __name__ == "__main__":
    unittest.main(verbosity=2)
