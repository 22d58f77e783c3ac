"""test_trust.py - the trust boundary: Host names, origins of changes, framing, frames, the import quota.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_trust.py  (or make test-api)
"""

import csv
import io
import json
import os
import shutil
import socket
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402

SMALL = {"threads": "1-2", "increments": 100000, "repeat": 3, "warmup": 0}


def raw(srv, data, timeout=30):
    """Sends bytes as they are; returns everything read until the server closes."""
    s = socket.create_connection((srv.host, srv.port), timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                raise AssertionError("server kept the connection open: %r" % out[:300])
            if not chunk:
                return out
            out += chunk
    finally:
        s.close()


def statuses(reply):
    return [int(line.split(b" ")[1]) for line in reply.split(b"\r\n")
            if line.startswith(b"HTTP/1.")]


def body_of(reply):
    return json.loads(reply.split(b"\r\n\r\n", 1)[1])


class TrustTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-trust-")
        cls.srv = Server(cls.tmp, args=["--allowed-host", "lab.example",
                                        "--cors", "http://dash.example:9000",
                                        "--import-quota", "3",
                                        "--import-quota-mib", "1"]).start()

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def total(self):
        status, doc, _ = self.srv.json("GET", "/api/runs?limit=1")
        self.assertEqual(status, 200)
        return doc["total"]

    def assertJsonError(self, status, hdrs, data, want):
        self.assertEqual(status, want, data)
        self.assertEqual(hdrs["content-type"], "application/json")
        self.assertEqual(hdrs["x-content-type-options"], "nosniff")
        self.assertIn("error", json.loads(data))

    # --- Host -------------------------------------------------------------

    def test_rebound_names_are_refused(self):
        port = self.srv.port
        for host in ("evil.example:%d" % port, "evil.example", "localhost.evil.example",
                     "127.0.0.1.nip.io:%d" % port, "lab.example.evil", "x:y"):
            for path in ("/api/runs", "/api/topology", "/"):
                status, hdrs, data = self.srv.request("GET", path, headers={"Host": host})
                self.assertJsonError(status, hdrs, data, 421)
                self.assertIn(host, json.loads(data)["error"])
            status, hdrs, data = self.srv.request(
                "POST", "/api/runs", {"experiment": "false_sharing", "params": SMALL},
                headers={"Host": host})
            self.assertJsonError(status, hdrs, data, 421)

    def test_own_names_are_answered(self):
        port = self.srv.port
        for host in ("127.0.0.1:%d" % port, "localhost:%d" % port, "LOCALHOST",
                     "[::1]:%d" % port, "lab.example:%d" % port, "127.0.0.2"):
            status, _, data = self.srv.request("GET", "/api/experiments",
                                               headers={"Host": host})
            self.assertEqual(status, 200, (host, data))

    def test_http11_needs_a_host(self):
        reply = raw(self.srv, b"GET /api/runs HTTP/1.1\r\nConnection: close\r\n\r\n")
        self.assertEqual(statuses(reply), [400], reply)
        self.assertIn(b"nosniff", reply)
        self.assertIn("Host", body_of(reply)["error"])
        reply = raw(self.srv, b"GET /api/experiments HTTP/1.0\r\n\r\n")
        self.assertEqual(statuses(reply), [200], reply[:200])

    # --- changes: Content-Type and origin --------------------------------

    def test_changes_need_json(self):
        before = self.total()
        # what a plain HTML form can send, to every route that changes a run
        for method, path in (("POST", "/api/runs"), ("POST", "/api/runs/import"),
                             ("DELETE", "/api/runs/1")):
            for ct in ("text/plain", "application/x-www-form-urlencoded",
                       "multipart/form-data; boundary=x", None):
                if method == "DELETE" and ct is None:
                    continue  # the harness names JSON for a cancel
                hdrs = {"Content-Type": ct} if ct else {}
                status, rh, data = self.srv.request(method, path, b'{"experiment":1}', hdrs)
                self.assertJsonError(status, rh, data, 415)
        self.assertEqual(self.total(), before)

    def test_cross_origin_changes_are_refused(self):
        before = self.total()
        body = {"experiment": "false_sharing", "params": SMALL}
        for hdrs in ({"Origin": "http://evil.example"},
                     {"Origin": "null"},
                     {"Origin": "http://127.0.0.2:%d" % self.srv.port},
                     {"Sec-Fetch-Site": "cross-site"},
                     {"Sec-Fetch-Site": "same-site"},
                     {"Origin": "http://127.0.0.1:%d" % self.srv.port,
                      "Sec-Fetch-Site": "cross-site"}):
            for method, path in (("POST", "/api/runs"), ("POST", "/api/runs/import"),
                                 ("DELETE", "/api/runs/1")):
                status, rh, data = self.srv.request(method, path, body, dict(hdrs))
                self.assertJsonError(status, rh, data, 403)
        self.assertEqual(self.total(), before)

    def test_own_and_listed_origins_may_change(self):
        port = self.srv.port
        for hdrs in ({"Origin": "http://127.0.0.1:%d" % port, "Sec-Fetch-Site": "same-origin"},
                     {"Origin": "http://dash.example:9000", "Sec-Fetch-Site": "cross-site"},
                     {"Sec-Fetch-Site": "none"}, {}):
            status, doc, _ = self.srv.post_run(SMALL, headers=hdrs)
            self.assertEqual(status, 202, (hdrs, doc))
            self.srv.wait_final(doc["id"])
        status, doc, _ = self.srv.json(
            "POST", "/api/runs", {"experiment": "false_sharing", "params": SMALL},
            {"Host": "lab.example:%d" % port, "Origin": "http://lab.example:%d" % port})
        self.assertEqual(status, 202, doc)
        self.srv.wait_final(doc["id"])

    def test_reads_need_no_origin_check(self):
        status, _, _ = self.srv.request("GET", "/api/runs",
                                        headers={"Origin": "http://evil.example",
                                                 "Sec-Fetch-Site": "cross-site"})
        self.assertEqual(status, 200)

    # --- frames -----------------------------------------------------------

    def test_pages_cannot_be_framed(self):
        for path in ("/", "/api/runs", "/api/nope"):
            status, hdrs, _ = self.srv.request("GET", path)
            self.assertIn("frame-ancestors 'none'", hdrs["content-security-policy"])
            self.assertEqual(hdrs["x-frame-options"], "DENY")

    # --- framing ------------------------------------------------------------

    def test_two_framings_close_the_connection(self):
        smuggled = b"GET /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        body = b"0\r\n\r\n" + smuggled
        reply = raw(self.srv, b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\nContent-Length: %d\r\n"
                    b"Transfer-Encoding: chunked\r\n\r\n" % len(body) + body)
        self.assertEqual(statuses(reply), [400], reply)
        self.assertIn(b"nosniff", reply)
        self.assertIn("Transfer-Encoding", body_of(reply)["error"])

    def test_unknown_transfer_coding(self):
        for te in (b"gzip", b"chunked, gzip", b"identity", b"xchunked"):
            reply = raw(self.srv, b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Content-Type: application/json\r\nTransfer-Encoding: %s\r\n\r\n"
                        b"abc" % te)
            self.assertEqual(statuses(reply), [501], reply)
            self.assertIn(b"application/json", reply)

    # --- import quota -------------------------------------------------------

    def test_import_quota(self):
        rid = self.srv.start_run(SMALL)
        self.srv.wait_final(rid)
        status, doc, _ = self.srv.json("GET", "/api/runs/%d?format=json" % rid)
        self.assertEqual(status, 200)
        codes = []
        for _ in range(4):
            status, got, hdrs = self.srv.json("POST", "/api/runs/import", doc)
            codes.append(status)
        self.assertEqual(codes, [201, 201, 201, 429], got)
        self.assertIn("quota", got["error"])
        self.assertGreater(int(hdrs["retry-after"]), 0)
        # a refused import is not stored
        status, listing, _ = self.srv.json("GET", "/api/runs?limit=100")
        self.assertEqual(sum(1 for r in listing["runs"] if r["id"] > rid), 3)


class CsvTest(unittest.TestCase):
    def test_formulas_are_neutralised(self):
        tmp = tempfile.mkdtemp(prefix="numalab-trust-")
        srv = Server(tmp).start()
        try:
            rid = srv.start_run(SMALL)
            srv.wait_final(rid)
            _, doc, _ = srv.json("GET", "/api/runs/%d?format=json" % rid)
            evil = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+2", "-2+3",
                    "@SUM(A1)", "\tx", "\r=1"]
            for smp, name in zip(doc["samples"], evil):
                smp["series"] = name
            status, got, _ = srv.json("POST", "/api/runs/import", doc)
            self.assertEqual(status, 201, got)
            status, _, data = srv.request("GET", "/api/runs/%d/export.csv" % got["id"])
            self.assertEqual(status, 200)
            rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
            series = {r[3] for r in rows[1:]}
            for name in evil[: len(doc["samples"])]:
                self.assertIn("'" + name, series)
            for r in rows[1:]:
                for cell in r:
                    if cell and cell[0] in "=+@\t\r":
                        self.fail("live formula %r in %r" % (cell, r))
                    if cell.startswith("-"):
                        float(cell)  # a negative number stays a number
        finally:
            rc = srv.stop()
            shutil.rmtree(tmp, ignore_errors=True)
        self.assertEqual(rc, 0)


class ImportSizeQuotaTest(unittest.TestCase):
    def test_bytes_are_counted(self):
        tmp = tempfile.mkdtemp(prefix="numalab-trust-")
        srv = Server(tmp, args=["--import-quota-mib", "1"]).start()
        try:
            rid = srv.start_run(SMALL)
            srv.wait_final(rid)
            _, doc, _ = srv.json("GET", "/api/runs/%d?format=json" % rid)
            # padding a valid run: the quota counts the bytes sent
            text = json.dumps(doc)
            big = text[:-1] + " " * (400 * 1024) + "}"
            codes = [srv.request("POST", "/api/runs/import", big,
                                 {"Content-Type": "application/json"})[0] for _ in range(3)]
            self.assertEqual(codes, [201, 201, 429])
        finally:
            rc = srv.stop()
            shutil.rmtree(tmp, ignore_errors=True)
        self.assertEqual(rc, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
