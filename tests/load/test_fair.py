#!/usr/bin/env python3
"""test_fair.py - a few addresses cannot take every connection: eight loopback
addresses (127.0.0.2-9) hold idle connections up to their limit, which fills
the server, and a ninth (127.0.0.10) is still served; one idle connection of
the busiest is closed to make room, and the server says so in its log, without
a token or a URL. And many cannot either: 600 addresses (127.5.x.y) each hold
one idle connection of a server taking 512, and a newcomer is still served.

Loopback only, 41 and 602 connections, bounded by socket timeouts (a hung
server fails, nothing is timed); stdlib only."""

import contextlib
import http.client
import os
import shutil
import socket
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "api"))
from harness import Server, can_bind  # noqa: E402

PER_CLIENT = 4
CLIENTS = ["127.0.0.%d" % i for i in range(2, 10)]
TOTAL = PER_CLIENT * len(CLIENTS)
NEWCOMER = "127.0.0.10"
TOKEN = "fair-share-token-value"
REQUEST = b"GET /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def connect_from(src, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(30)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def ask(s):
    """One GET on a kept-alive socket: the status, or None when the server
    closed the connection without an answer."""
    try:
        s.sendall(REQUEST)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                return None
            head += chunk
    except (ConnectionError, BrokenPipeError):
        return None
    head, _, body = head.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ")[1])
    length = 0
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            return None
        body += chunk
    return status


class HeldTest(unittest.TestCase):
    """A server whose connections the test holds open: ADDRS must bind,
    args() says how the server starts; held is (address, socket)."""
    ADDRS = []
    WHERE = ""  # the addresses, in words, for the SKIP line
    PREFIX = "numalab-fair-"

    def setUp(self):
        if not all(can_bind(a) for a in self.ADDRS):
            self.skipTest("SKIP: cannot bind %s here" % self.WHERE)
        self.tmp = tempfile.mkdtemp(prefix=self.PREFIX)
        self.srv = Server(self.tmp, args=self.args()).start()
        self.held = []

    def tearDown(self):
        self.release()
        if self.srv.proc:
            self.srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def hold(self, addr):
        """A connection from addr, asked once (200) and kept, idle."""
        s = connect_from(addr, self.srv.port)
        self.held.append((addr, s))
        self.assertEqual(ask(s), 200, addr)

    @contextlib.contextmanager
    def newcomer(self, source):
        """A connection from source, closed when the block ends."""
        c = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=30,
                                       source_address=(source, 0))
        try:
            yield c
        finally:
            c.close()

    def served(self, c, path):
        """path asked on c: answered 200."""
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        self.assertEqual(r.status, 200)

    def release(self):
        for _, s in self.held:
            s.close()
        self.held = []

    def stopped_log(self):
        """Every held connection closed, the server stopped cleanly: its log."""
        self.release()
        self.assertEqual(self.srv.stop(), 0, self.srv.stderr())
        return self.srv.stderr()


class FairTest(HeldTest):
    ADDRS = CLIENTS + [NEWCOMER]
    WHERE = "127.0.0.2-10"

    def args(self):
        token = os.path.join(self.tmp, "token")
        with open(token, "w") as f:
            f.write(TOKEN + "\n")
        return ["--max-connections", str(TOTAL),
                "--max-client-connections", str(PER_CLIENT),
                "--token-file", token, "--public-read"]

    def test_a_newcomer_is_served_when_a_few_hold_everything(self):
        # every address at its limit: the server holds its total
        for addr in CLIENTS:
            for _ in range(PER_CLIENT):
                self.hold(addr)
        # one more from any of them is closed unanswered
        for addr in CLIENTS:
            s = connect_from(addr, self.srv.port)
            try:
                self.assertIsNone(ask(s), addr)
            finally:
                s.close()
        # a ninth address gets in, and is served again on that connection
        with self.newcomer(NEWCOMER) as c:
            for _ in range(2):
                self.served(c, "/api/experiments?access_token=" + TOKEN)
            # the room was made by closing one idle connection of the
            # busiest (checked while the newcomer still holds its slot)
            closed = [addr for addr, s in self.held if ask(s) is None]
        self.assertEqual(len(closed), 1, closed)
        # each address still holds the rest of its connections
        for addr in CLIENTS:
            self.assertGreaterEqual(sum(1 for a, _ in self.held if a == addr)
                                    - closed.count(addr), PER_CLIENT - 1)
        err = self.stopped_log()
        self.assertIn("numalab: http: connection limits:", err)
        self.assertIn("refused from clients at their limit of %d" % PER_CLIENT, err)
        self.assertNotIn(TOKEN, err)
        self.assertNotIn("/api/", err)
        # at most one line a minute: this test is far shorter
        self.assertEqual(err.count("connection limits:"), 1, err)


MANY = ["127.5.%d.%d" % (i // 250, i % 250 + 1) for i in range(600)]
MANY_TOTAL = 512


class ManyAddressesTest(HeldTest):
    ADDRS = [MANY[-1], "127.6.0.1"]
    WHERE = "127.5.x.y and 127.6.0.1"
    PREFIX = "numalab-fair-many-"

    def args(self):
        return ["--max-connections", str(MANY_TOTAL),
                "--token", TOKEN, "--public-read"]

    def test_a_newcomer_is_served_when_each_of_600_holds_one(self):
        # each address asks once and keeps its connection, idle: past 512
        # each newcomer takes the place of the oldest idle one
        for addr in MANY:
            self.hold(addr)
        with self.newcomer("127.6.0.1") as c:
            self.served(c, "/api/experiments")
        # the ones closed are the oldest: the latest still answer
        for addr, s in self.held[-50:]:
            self.assertEqual(ask(s), 200, addr)
        self.assertIsNone(ask(self.held[0][1]))
        err = self.stopped_log()
        self.assertRegex(err, r"\b(1 idle connection|\d+ idle connections)"
                              r" of the busiest clients closed")
        self.assertNotIn("127.5.", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
