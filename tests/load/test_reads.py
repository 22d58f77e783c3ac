#!/usr/bin/env python3
"""test_reads.py - reads served from kept bytes: an ended run's document and
the experiments' schema carry a strong ETag, answer 304 to If-None-Match,
and gzip when asked, the same bytes to every one of many concurrent
clients; a run still going carries no ETag, and its ended document one of
its own. Loopback only, bounded; stdlib only; no time is asserted."""

import gzip
import http.client
import os
import shutil
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "api"))
from harness import SMALL, Server  # noqa: E402

CLIENTS = int(os.environ.get("LOAD_READERS", "16"))
REQUESTS = 40  # each client's, on one keep-alive connection
# long enough to be read while it runs
SLOW = {"threads": "1", "increments": 20000000, "repeat": 3, "warmup": 0}


def get(conn, path, headers=None):
    conn.request("GET", path, headers=headers or {})
    r = conn.getresponse()
    body = r.read()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


class ReadsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-reads-")
        cls.srv = Server(cls.tmp).start()
        cls.rid = cls.srv.start_run(SMALL)
        cls.srv.wait_final(cls.rid)

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert rc == 0, "the server exited %s" % rc

    def conn(self):
        return http.client.HTTPConnection(self.srv.host, self.srv.port, timeout=60)

    def check_path(self, path):
        c = self.conn()
        status, h, plain = get(c, path)
        self.assertEqual(status, 200, plain[:300])
        etag = h.get("etag")
        self.assertRegex(etag or "", r'^"[0-9a-f]{16}"$')
        self.assertIn("accept-encoding", h.get("vary", "").lower())
        self.assertNotIn("content-encoding", h)
        # the same bytes, the same tag
        status, h2, again = get(c, path)
        self.assertEqual((status, h2.get("etag"), again), (200, etag, plain))
        # 304: no body, the tag again
        for inm in (etag, "W/" + etag, '"0000000000000000", ' + etag, "*"):
            status, h3, body = get(c, path, {"If-None-Match": inm})
            self.assertEqual((status, body), (304, b""), inm)
            self.assertEqual(h3.get("etag"), etag)
        status, _, body = get(c, path, {"If-None-Match": '"0000000000000000"'})
        self.assertEqual((status, body), (200, plain))
        # gzip when asked, the same document inside; not when refused
        status, h4, zipped = get(c, path, {"Accept-Encoding": "br, gzip, deflate"})
        self.assertEqual(status, 200)
        self.assertEqual(h4.get("content-encoding"), "gzip")
        self.assertEqual(h4.get("etag"), etag)
        self.assertLess(len(zipped), len(plain))
        self.assertEqual(gzip.decompress(zipped), plain)
        for ae in ("gzip;q=0", "identity", "br"):
            status, h5, body = get(c, path, {"Accept-Encoding": ae})
            self.assertEqual((status, body), (200, plain), ae)
            self.assertNotIn("content-encoding", h5, ae)
        # HEAD: the head alone
        c.request("HEAD", path, headers={"Accept-Encoding": "gzip"})
        r = c.getresponse()
        self.assertEqual((r.status, r.read()), (200, b""))
        self.assertEqual(r.getheader("etag"), etag)
        c.close()
        return etag, plain

    def test_run_document(self):
        self.check_path("/api/runs/%d" % self.rid)

    def test_experiments(self):
        self.check_path("/api/experiments")
        self.check_path("/api/topology")

    def test_many_clients_get_the_same_bytes(self):
        path = "/api/runs/%d" % self.rid
        etag, plain = self.check_path(path)
        errors = []

        def client(i):
            try:
                c = self.conn()
                for k in range(REQUESTS):
                    kind = (i + k) % 3
                    hdrs = ({}, {"Accept-Encoding": "gzip"}, {"If-None-Match": etag})[kind]
                    status, h, body = get(c, path, hdrs)
                    if kind == 2:
                        ok = status == 304 and body == b""
                    elif kind == 1:
                        ok = status == 200 and gzip.decompress(body) == plain
                    else:
                        ok = status == 200 and body == plain
                    if not ok or h.get("etag") != etag:
                        errors.append((i, k, status, h.get("etag")))
                        return
                c.close()
            except Exception as e:  # reported, not raised: the thread must end
                errors.append((i, repr(e)))

        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_a_run_going_has_no_etag(self):
        rid = self.srv.start_run(SLOW)
        c = self.conn()
        try:
            status, h, doc = get(c, "/api/runs/%d" % rid)
            self.assertEqual(status, 200)
            if b'"status":"running"' in doc or b'"status":"queued"' in doc:
                self.assertNotIn("etag", h)
                # a tag of another document is not this one's
                status, _, _ = get(c, "/api/runs/%d" % rid,
                                   {"If-None-Match": "\"0000000000000000\""})
                self.assertEqual(status, 200)
        finally:
            self.srv.json("DELETE", "/api/runs/%d" % rid)
            self.srv.wait_final(rid)
        status, h, ended = get(c, "/api/runs/%d" % rid)
        self.assertEqual(status, 200)
        self.assertIsNotNone(h.get("etag"))
        other = get(c, "/api/runs/%d" % self.rid)[1].get("etag")
        self.assertNotEqual(h.get("etag"), other)
        c.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
